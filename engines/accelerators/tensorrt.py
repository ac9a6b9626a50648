"""Full TensorRT (module ``tensorrt``): data-centre GPUs; builds only on the GPU it serves.

:class:`TensorRtAccelerator` serves both TensorRT flavours (TensorRT-RTX: ``tensorrt_rtx.py``);
what differs between them lives in :class:`engines.trt.flavours.Flavour`."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from engines.accelerators.base import BuildProgress, BuiltEngine, CannotBuild, EngineBuild, OpenOptions
from engines.backend import InferenceBackend
from engines.engine_key import BuildTarget
from engines.trt.cuda import GpuInfo
from engines.trt.flavours import TENSORRT, Flavour, FlavourUnavailable


class TensorRtAccelerator:
    builds_engines = True
    precision_target = "tensorrt"

    def __init__(self, flavour: Flavour, summary: str, runs_on: Callable[[GpuInfo], str] = lambda gpu: ""):
        """``runs_on(gpu)``: why this flavour cannot run on that GPU ("" when it can)."""
        self.flavour = flavour
        self.name = flavour.name
        self.summary = summary
        self._runs_on = runs_on

    def _not_installed(self) -> str:
        try:
            self.flavour.load()
        except FlavourUnavailable as exc:
            if "No module named" in str(exc):
                return f"not installed (no module {' or '.join(self.flavour.module_names)})"
            return str(exc)
        return ""

    def unavailable(self, gpu: GpuInfo | None) -> str:
        """Why this flavour serves nothing here; without a GPU that is the reason, installed
        or not (a CPU-only box is told nothing about installing what it could not run)."""
        if gpu is None:
            return "no NVIDIA GPU here to run its engines"
        return self._not_installed() or self._runs_on(gpu)

    def version(self) -> str:
        return self.flavour.version()

    def build_target(self, gpu: GpuInfo | None, aot_compute_capability: str) -> BuildTarget:
        if gpu is None and not self.flavour.builds_without_gpu:
            raise CannotBuild("needs an NVIDIA GPU to build engines and there is none here")
        if gpu is None and not aot_compute_capability:
            raise CannotBuild("no NVIDIA GPU here to run its engines (engines.aot_compute_capability "
                              "builds them ahead of time for another box)")
        missing = self._not_installed()
        if missing:
            raise CannotBuild(missing)
        if gpu is None:
            return BuildTarget("", aot_compute_capability)
        unsupported = self._runs_on(gpu)
        if unsupported:
            raise CannotBuild(unsupported)
        return BuildTarget(gpu.name, gpu.compute_capability, gpu.driver_version, gpu.cuda_version)

    def build(self, job: EngineBuild, progress: BuildProgress | None = None) -> BuiltEngine:
        from engines.trt.builder import BuildRequest, build_engine

        cc = "" if job.target.has_gpu else job.target.compute_capability
        timing = job.timing_cache if self.flavour.has_timing_cache and job.target.has_gpu else None
        result = build_engine(BuildRequest(job.onnx_path, job.engine_path, job.profiles, self.flavour, cc, timing),
                              progress=progress)
        return BuiltEngine(result.engine_path, result.seconds, result.engine_bytes)

    def open(self, path: Path, options: OpenOptions) -> InferenceBackend:
        from engines.trt.runtime import TensorRtBackend

        cache = (Path(options.cache_dir) / f"{Path(path).stem}.runtime-cache"
                 if options.cache_dir and self.flavour.has_runtime_cache else None)
        return TensorRtBackend(path, self.flavour, streams=options.streams, runtime_cache=cache)


ACCELERATOR = TensorRtAccelerator(
    TENSORRT, "engines built on this box's NVIDIA GPU (data-centre cards); int8/fp16/fp32; timing cache")
