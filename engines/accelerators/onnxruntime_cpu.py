"""ONNX Runtime on the CPU: always available, the last resort of every preference list and
the fallback behind every engine. Serves dynamic INT8 where that passed the accuracy gate and
measured faster on this CPU (``engines ensure`` decides), else FP32."""

from __future__ import annotations

from pathlib import Path

from engines.accelerators.base import OpenOptions
from engines.backend import InferenceBackend
from engines.trt.cuda import GpuInfo

NAME = "onnxruntime"


class OnnxRuntimeCpu:
    name = NAME
    builds_engines = False
    precision_target = "ort-cpu"
    summary = "the ONNX file on the CPU; dynamic int8 where it passes the gate and is faster, else fp32"

    def unavailable(self, gpu: GpuInfo | None) -> str:
        return ""

    def version(self) -> str:
        import onnxruntime

        return onnxruntime.__version__

    def open(self, path: Path, options: OpenOptions) -> InferenceBackend:
        from engines.ort_backend import OnnxRuntimeBackend

        return OnnxRuntimeBackend(path, threads=options.threads, providers=["CPUExecutionProvider"])


ACCELERATOR = OnnxRuntimeCpu()
