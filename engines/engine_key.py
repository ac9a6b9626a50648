"""The engine key: what an engine was built from and for. Equal key → reuse; else rebuild."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class BuildTarget:
    """The GPU an engine is for. ``gpu_name`` is empty for an ahead-of-time
    build on a machine without a GPU (TensorRT-RTX), ``compute_capability``
    then being the targeted one."""

    gpu_name: str
    compute_capability: str
    driver_version: str = ""
    cuda_version: str = ""

    @property
    def has_gpu(self) -> bool:
        return bool(self.gpu_name)


@dataclass(frozen=True)
class EngineKey:
    model_sha256: str
    precision: str
    flavour: str
    flavour_version: str
    gpu_name: str
    compute_capability: str

    @classmethod
    def for_build(cls, model_sha256: str, precision: str, flavour: str, flavour_version: str,
                  target: BuildTarget) -> "EngineKey":
        return cls(model_sha256, precision, flavour, flavour_version, target.gpu_name, target.compute_capability)

    def digest(self) -> str:
        """Short stable hash of every field, for file names."""
        text = "|".join(str(v) for v in asdict(self).values())
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    def differences(self, other: "EngineKey") -> list[str]:
        """Names of the fields that differ, e.g. ``['flavour_version']``."""
        mine, theirs = asdict(self), asdict(other)
        return [name for name in mine if mine[name] != theirs[name]]
