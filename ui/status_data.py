"""What the status page shows, gathered from the running service: engines, latency
percentiles (from the Prometheus histograms), queue depth, disk, bank size.

The engine table comes from a hook (``EnginesProvider``) so the engines manager can
report TensorRT builds; without one, the encoder (and OCR step) describe themselves.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)

PERCENTILES = (0.5, 0.95, 0.99)


@dataclass(frozen=True)
class EngineStatus:
    model: str
    backend: str  # serving now, e.g. "tensorrt", "onnxruntime-cpu"
    version: str = ""
    precision: str = ""
    flavour: str = ""  # TensorRT flavour and version, e.g. "tensorrt-rtx 1.2"
    gpu: str = ""
    engine_file: str = ""
    verification: str = ""
    built_at: str = ""
    reason: str = ""  # why this backend serves (e.g. "no GPU", "verified engine")

    @classmethod
    def coerce(cls, item) -> "EngineStatus":
        """From an EngineStatus, a dict, or an object with ``to_dict()`` (the engines
        manager's ``ModelStatus``: model_id, serving, engine_path are renamed)."""
        if isinstance(item, EngineStatus):
            return item
        data = item.to_dict() if hasattr(item, "to_dict") else dict(item)
        for theirs, ours in _ALIASES.items():
            if theirs in data and ours not in data:
                data[ours] = data[theirs]
        names = {f.name for f in fields(cls)}
        return cls(**{k: str(v) for k, v in data.items() if k in names and v not in (None, "")})


_ALIASES = {"model_id": "model", "serving": "backend", "engine_path": "engine_file"}


EnginesProvider = Callable[[], list]
Rebuilder = Callable[[], str]


@dataclass(frozen=True)
class LatencyRow:
    name: str  # "ask (text)" or a stage
    count: int
    p50: float | None
    p95: float | None
    p99: float | None


@dataclass(frozen=True)
class StatusSnapshot:
    engines: list[EngineStatus]
    latency: list[LatencyRow]
    queue_depth: int
    disk_free_bytes: int
    disk_total_bytes: int
    db_bytes: int
    bank_entries: int
    asks_logged: int
    taken_at: float


def encoder_engines(service) -> list[EngineStatus]:
    """Today's engines, as the service's encoder and OCR step describe themselves."""
    encoder = service.encoder
    model, _, version = encoder.model_key.partition(":")
    rows = [EngineStatus(model=model, version=version, backend=encoder.backend_name,
                         precision=getattr(encoder, "precision", "fp32"))]
    ocr = getattr(service, "ocr", None)
    if ocr is not None:
        rows.append(EngineStatus(model="ocr", backend=str(getattr(ocr, "name", type(ocr).__name__))))
    return rows


def manager_engines(manager) -> EnginesProvider:
    """The engine table from the engines manager: its per-model status, completed from
    the manifest beside each engine (``<engine>.json``: flavour, GPU, built_at, figures)."""

    def provide() -> list[EngineStatus]:
        rows = []
        for status in manager.status():
            row = EngineStatus.coerce(status)
            manifest = _manifest_beside(row.engine_file)
            if manifest:
                verification = manifest.get("verification") or {}
                figures = ", ".join(f"{k}={v}" for k, v in verification.items() if k not in ("status", "reason"))
                row = replace(row, version=row.version or str(manifest.get("model_sha256", ""))[:12],
                              flavour=f"{manifest.get('flavour', '')} {manifest.get('flavour_version', '')}".strip(),
                              gpu=str(manifest.get("gpu_name", "")), built_at=str(manifest.get("built_at", "")),
                              verification=" ".join(p for p in (row.verification, figures) if p))
            rows.append(row)
        return rows

    return provide


def _manifest_beside(engine_file: str) -> dict | None:
    if not engine_file:
        return None
    path = Path(engine_file).with_suffix(".json")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def histogram_percentiles(histogram, label: str) -> list[LatencyRow]:
    """Percentiles per value of ``label`` from a prometheus_client Histogram, by linear
    interpolation inside the bucket that holds each rank (as Prometheus does)."""
    buckets: dict[str, list[tuple[float, float]]] = {}
    counts: dict[str, int] = {}
    for family in histogram.collect():
        for sample in family.samples:
            key = sample.labels.get(label, "")
            if sample.name.endswith("_bucket"):
                buckets.setdefault(key, []).append((float(sample.labels["le"]), sample.value))
            elif sample.name.endswith("_count"):
                counts[key] = int(sample.value)
    rows = []
    for key in sorted(buckets):
        cumulative = sorted(buckets[key])
        total = counts.get(key, 0)
        values = [_quantile(cumulative, total, q) for q in PERCENTILES]
        rows.append(LatencyRow(key, total, *values))
    return rows


def _quantile(cumulative: list[tuple[float, float]], total: int, q: float) -> float | None:
    if total <= 0:
        return None
    rank = q * total
    lower_bound, lower_count = 0.0, 0.0
    for upper, count in cumulative:
        if count >= rank:
            if upper == float("inf"):
                return lower_bound  # beyond the last finite bucket: report its bound
            if count == lower_count:
                return upper
            return round(lower_bound + (upper - lower_bound) * (rank - lower_count) / (count - lower_count), 2)
        lower_bound, lower_count = upper, count
    return lower_bound


def snapshot(service, engines: EnginesProvider | None = None, clock: Callable[[], float] = time.time) -> StatusSnapshot:
    try:
        engine_rows = [EngineStatus.coerce(e) for e in (engines() if engines else encoder_engines(service))]
    except Exception:  # a broken hook must not take the status page down
        log.exception("engine status hook failed")
        engine_rows = encoder_engines(service)
    metrics = service.metrics
    latency = [LatencyRow(f"ask ({r.name})", r.count, r.p50, r.p95, r.p99)
               for r in histogram_percentiles(metrics.total_ms, "kind")]
    latency += histogram_percentiles(metrics.stage_ms, "stage")
    data_dir = Path(service.config.data_dir)
    usage = shutil.disk_usage(data_dir)
    db = Path(service.config.db_path)
    db_bytes = sum(p.stat().st_size for p in (db, db.with_name(db.name + "-wal")) if p.exists())
    stats = service.bank.stats()
    return StatusSnapshot(
        engines=engine_rows, latency=latency, queue_depth=int(service.encoder_batcher.depth),
        disk_free_bytes=usage.free, disk_total_bytes=usage.total, db_bytes=db_bytes,
        bank_entries=stats.entries, asks_logged=stats.asks, taken_at=clock(),
    )


def default_rebuild(service) -> Rebuilder:
    """Today's rebuild: bring the dense index up to date with the bank."""

    def rebuild() -> str:
        service.refresh_index()
        return f"dense index: {len(service.index.ids)} entries ({service.encoder.model_key})"

    return rebuild
