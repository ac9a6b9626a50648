"""Whether an INT8 text detector serves on *this* CPU: measured here, once, and remembered.

INT8 speed and agreement depend on the CPU (VNNI/AMX or plain AVX2), so the INT8 model
serves only where, on gate pages drawn for the purpose (not any photo set the OCR is tuned
or scored on), it finds the FP32 detector's lines (``min_agreement`` of them, matched by
overlap) and is ``min_speedup`` times as fast. The verdict is kept beside the INT8 model,
keyed by the CPU's model name and flags, so a data dir moved to another box is gated anew.
"""

from __future__ import annotations

import hashlib
import json
import logging
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

MIN_SPEEDUP = 1.2
MIN_AGREEMENT = 0.95


@dataclass(frozen=True)
class Int8Verdict:
    speedup: float  # FP32 median time ÷ INT8 median time on the gate pages
    agreement: float  # share of the FP32 detector's lines the INT8 one also finds
    serves: bool
    reason: str


def decide(speedup: float, agreement: float, min_speedup: float = MIN_SPEEDUP,
           min_agreement: float = MIN_AGREEMENT) -> Int8Verdict:
    """The verdict from the two measurements (pure: tests feed it any figures)."""
    if agreement < min_agreement:
        return Int8Verdict(speedup, agreement, False, f"finds {agreement:.1%} of the FP32 lines (< {min_agreement:.0%})")
    if speedup < min_speedup:
        return Int8Verdict(speedup, agreement, False, f"{speedup:.2f}× as fast as FP32 (< {min_speedup}×)")
    return Int8Verdict(speedup, agreement, True, f"{speedup:.2f}× as fast, finds {agreement:.1%} of the FP32 lines")


def cpu_key() -> str:
    """A short key for this CPU: its model name and instruction-set flags."""
    try:
        info = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        fields = [line for line in info.splitlines() if line.startswith(("model name", "flags"))][:2]
    except OSError:
        import platform

        fields = [platform.machine(), platform.processor()]
    return hashlib.sha256("\n".join(fields).encode()).hexdigest()[:12]


def cached_verdict(folder: Path, model_name: str, measure) -> Int8Verdict:
    """The verdict remembered for this CPU under ``folder``, else ``measure()``'s, saved."""
    path = Path(folder) / f"{model_name}.gate-{cpu_key()}.json"
    try:
        return Int8Verdict(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        pass
    verdict = measure()
    try:
        path.write_text(json.dumps(asdict(verdict)), encoding="utf-8")
    except OSError as exc:
        log.warning("OCR: could not keep the INT8 verdict in %s (%s): it is measured again next start", path, exc)
    return verdict


def measure(fp32, int8, pages: list[np.ndarray], rounds: int = 2) -> Int8Verdict:
    """Detect the same pages with both detectors (``detect(page)`` → items with a ``quad``),
    timing them in turns."""
    times: dict[str, list[float]] = {"fp32": [], "int8": []}
    found, matched = 0, 0
    for _ in range(rounds):
        for page in pages:
            boxes = {}
            for name, detector in (("fp32", fp32), ("int8", int8)):
                started = time.perf_counter()
                boxes[name] = [_rect(d.quad) for d in detector.detect(page)]
                times[name].append(time.perf_counter() - started)
            found += len(boxes["fp32"])
            matched += sum(any(_iou(a, b) >= 0.5 for b in boxes["int8"]) for a in boxes["fp32"])
    speedup = statistics.median(times["fp32"]) / max(1e-9, statistics.median(times["int8"]))
    return decide(round(speedup, 2), round(matched / found, 4) if found else 0.0)


def _rect(quad: np.ndarray) -> tuple[float, float, float, float]:
    return float(quad[:, 0].min()), float(quad[:, 1].min()), float(quad[:, 0].max()), float(quad[:, 1].max())


def _iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)
