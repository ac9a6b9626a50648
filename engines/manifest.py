"""The engine manifest: a JSON file beside each engine saying what it is.

``<engine>.json`` next to ``<engine>.engine``. It carries the engine key's
fields plus what a person (or the status page) wants to know: driver and
CUDA versions, profiles, build time, verification figures, calibration and
precision fallbacks, and the engine file's own sha256, which is how a
truncated or corrupted engine is caught before TensorRT ever sees it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from engines.atomic import write_bytes
from engines.engine_key import EngineKey

SCHEMA = 1


class ManifestError(RuntimeError):
    """A manifest is missing, unreadable or does not describe its engine."""


@dataclass
class EngineManifest:
    model_id: str
    model_sha256: str
    #: The precision the engine really has (after any fallback) and the one asked for.
    precision: str
    wanted_precision: str
    flavour: str
    flavour_version: str
    gpu_name: str
    compute_capability: str
    driver_version: str
    cuda_version: str
    profiles: list[dict]
    build_seconds: float
    built_at: str
    engine_file: str
    engine_sha256: str
    engine_bytes: int
    #: {"status": "passed"|"failed"|"unverified", "reason": ..., figures...}
    verification: dict = field(default_factory=dict)
    calibration_samples: int | None = None
    calibration_note: str = ""
    precision_fallbacks: list[dict] = field(default_factory=list)
    precision_gate: dict | None = None
    schema: int = SCHEMA

    def key(self) -> EngineKey:
        return EngineKey(self.model_sha256, self.wanted_precision, self.flavour, self.flavour_version,
                         self.gpu_name, self.compute_capability)

    @property
    def verified(self) -> bool:
        return self.verification.get("status") == "passed"

    def save(self, path: str | Path) -> Path:
        """Write atomically (temp file + rename)."""
        return write_bytes(path, json.dumps(asdict(self), indent=2, ensure_ascii=False).encode("utf-8"))

    @classmethod
    def load(cls, path: str | Path) -> "EngineManifest":
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ManifestError(f"cannot read engine manifest {path}: {exc}") from exc
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise ManifestError(f"{path}: not an engine manifest of schema {SCHEMA}")
        known = {f.name for f in fields(cls)}
        try:
            return cls(**{k: v for k, v in data.items() if k in known})
        except TypeError as exc:
            raise ManifestError(f"{path}: {exc}") from exc
