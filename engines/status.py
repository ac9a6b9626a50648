"""Per-model serving status: which backend serves it, and why."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class ModelStatus:
    model_id: str
    #: Backend name serving the model now: "tensorrt", "tensorrt-rtx", "onnxruntime-cpu", ...
    serving: str
    reason: str
    precision: str = "fp32"
    engine_path: str | None = None
    #: "passed" | "failed" | "unverified" | "" (no engine)
    verification: str = ""
    rebuild_scheduled: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def on_tensorrt(self) -> bool:
        return self.serving.startswith("tensorrt")
