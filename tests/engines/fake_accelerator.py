"""A stand-in engine accelerator for tests, since no TensorRT GPU is at hand.

It behaves like a TensorRT flavour to the manager: ``engines ensure`` runs the precision
pass for it (fp16 → the real FP16 ONNX model), "builds" an engine (a copy of that model),
verification runs it against ONNX Runtime, and serving opens it. Its backend really runs the
engine file (through ONNX Runtime on the CPU), counts its runs, and fails on demand, so a
test can see which backend read a photo and force a failover.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from engines.accelerators import BuiltEngine, CannotBuild, OpenOptions
from engines.backend import BackendError
from engines.engine_key import BuildTarget

NAME = "fake-gpu"


class FakeEngineBackend:
    def __init__(self, path: Path, accelerator: "FakeAccelerator"):
        from engines.ort_backend import OnnxRuntimeBackend

        self._inner = OnnxRuntimeBackend(path, providers=["CPUExecutionProvider"])
        self._accelerator = accelerator
        self.name = NAME
        self.path = Path(path)
        self.input_names, self.output_names = self._inner.input_names, self._inner.output_names

    def run(self, feeds):
        if self._accelerator.broken:
            raise BackendError("fake GPU fell off the bus")
        self._accelerator.runs[self.path.name] = self._accelerator.runs.get(self.path.name, 0) + 1
        return self._inner.run(feeds)


class FakeAccelerator:
    name = NAME
    builds_engines = True
    precision_target = "tensorrt"
    summary = "a stand-in for tests"

    def __init__(self, present: bool = True):
        self.present = present
        self.broken = False
        self.runs: dict[str, int] = {}
        self.built: list[Path] = []

    def unavailable(self, gpu) -> str:
        return "" if self.present else "fake GPU unplugged"

    def version(self) -> str:
        return "1.0"

    def build_target(self, gpu, aot_compute_capability: str) -> BuildTarget:
        if not self.present:
            raise CannotBuild("fake GPU unplugged")
        return BuildTarget("Fake GPU", "0.0")

    def build(self, job, progress=None) -> BuiltEngine:
        started = time.perf_counter()
        shutil.copyfile(job.onnx_path, job.engine_path)
        self.built.append(job.onnx_path)
        return BuiltEngine(job.engine_path, time.perf_counter() - started, job.engine_path.stat().st_size)

    def open(self, path: Path, options: OpenOptions) -> FakeEngineBackend:
        return FakeEngineBackend(path, self)
