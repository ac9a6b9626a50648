"""ONNX Runtime's CUDA execution provider (package ``onnxruntime-gpu``), where installed and
a GPU is present: the FP32 ONNX file on the GPU, no engine to build."""

from __future__ import annotations

from pathlib import Path

from engines.accelerators.base import OpenOptions
from engines.backend import InferenceBackend
from engines.trt.cuda import GpuInfo

PROVIDER = "CUDAExecutionProvider"


class OnnxRuntimeCuda:
    name = "onnxruntime-cuda"
    builds_engines = False
    precision_target = ""
    summary = "the FP32 ONNX file on the GPU through ONNX Runtime's CUDA provider (onnxruntime-gpu)"

    def unavailable(self, gpu: GpuInfo | None) -> str:
        import onnxruntime

        if PROVIDER not in onnxruntime.get_available_providers():
            return "this ONNX Runtime has no CUDA provider (onnxruntime-gpu is not installed)"
        if gpu is None:
            return "no NVIDIA GPU here"
        return ""

    def version(self) -> str:
        import onnxruntime

        return onnxruntime.__version__

    def open(self, path: Path, options: OpenOptions) -> InferenceBackend:
        from engines.ort_backend import OnnxRuntimeBackend

        return OnnxRuntimeBackend(path, threads=options.threads, providers=[PROVIDER, "CPUExecutionProvider"])


ACCELERATOR = OnnxRuntimeCuda()
