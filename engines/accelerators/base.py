"""What every accelerator offers the engines manager.

An accelerator is one way of running a model here. Two kinds:

- an *engine* accelerator (TensorRT, TensorRT-RTX) builds an engine file ahead of serving
  (``eduqa engines ensure``); only an engine verified against ONNX Runtime serves;
- a *runtime* accelerator (ONNX Runtime on the CPU or through its CUDA provider) serves the
  model's ONNX file, after a precision pass that it may prepare.

The manager walks the configured preference list and serves each model with the first
accelerator that can run here and has what it needs (a verified engine, or nothing).
Adding an accelerator is one module in this package plus one line in ``__init__.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol, runtime_checkable

from engines.backend import InferenceBackend
from engines.engine_key import BuildTarget
from engines.recipes import InputProfile
from engines.trt.cuda import GpuInfo

#: progress(phase, step, steps) while an engine builds.
BuildProgress = Callable[[str, int, int], None]


class CannotBuild(RuntimeError):
    """This accelerator cannot build an engine here (and why)."""


@dataclass(frozen=True)
class OpenOptions:
    """How a backend is opened: concurrent streams (engines), threads (ONNX Runtime) and a
    folder for an accelerator's own caches (e.g. TensorRT-RTX's runtime cache)."""

    streams: int = 1
    threads: int = 0
    cache_dir: Path | None = None


@dataclass(frozen=True)
class EngineBuild:
    """One engine to build: from ``onnx_path`` (already at the wanted precision) into
    ``engine_path`` for ``target``; ``timing_cache`` persists kernel timings where the
    accelerator keeps them."""

    onnx_path: Path
    engine_path: Path
    profiles: tuple[InputProfile, ...]
    target: BuildTarget
    timing_cache: Path | None = None


@dataclass(frozen=True)
class BuiltEngine:
    engine_path: Path
    seconds: float
    engine_bytes: int


@runtime_checkable
class Accelerator(Protocol):
    #: The name used in the config's preference list, in statuses and in /metrics.
    name: str
    #: True: builds an engine file ahead of serving; False: serves the ONNX file itself.
    builds_engines: bool
    #: One line for docs and ``doctor``: what it needs and offers.
    summary: str

    def unavailable(self, gpu: GpuInfo | None) -> str:
        """Why it cannot run models here ("" when it can). Reads, never loads a model."""
        ...

    def version(self) -> str:
        """The installed version (part of an engine's key)."""
        ...

    def open(self, path: Path, options: OpenOptions) -> InferenceBackend:
        """A backend running the engine (or ONNX file) at ``path``; raises BackendError."""
        ...


@runtime_checkable
class EngineAccelerator(Accelerator, Protocol):
    #: Target of the precision pass run before a build ("tensorrt": int8 Q/DQ → fp16 → fp32).
    precision_target: str

    def build_target(self, gpu: GpuInfo | None, aot_compute_capability: str) -> BuildTarget:
        """What to build for here; raises :class:`CannotBuild` with the reason."""
        ...

    def build(self, job: EngineBuild, progress: BuildProgress | None = None) -> BuiltEngine:
        """Build one engine (atomically); raises ``BuildError``."""
        ...


@runtime_checkable
class RuntimeAccelerator(Accelerator, Protocol):
    #: Target of the precision pass for the ONNX file it serves ("ort-cpu": dynamic int8 → fp32),
    #: or "" to serve the source model as it is (FP32).
    precision_target: str
