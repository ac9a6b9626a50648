"""ONNX Runtime backend: CUDA execution provider when present, CPU otherwise."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from engines.backend import BackendError

log = logging.getLogger(__name__)


class OnnxRuntimeBackend:
    """Runs an ONNX file with ONNX Runtime behind :class:`InferenceBackend`."""

    def __init__(self, model_path: str | Path, threads: int = 0, use_cuda: bool = True, spin: bool = False,
                 providers: Sequence[str] | None = None):
        """``spin``: ONNX Runtime's intra-op threads busy-wait for the next work between
        runs. Off by default: on a small CPU shared with the web server and SQLite the
        spinning takes cores from them; on (benchmarks of the model alone) it shaves a
        little latency. ``providers``: exactly these execution providers (the accelerators
        pass theirs); else CUDA where ``use_cuda`` and installed, then the CPU."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads > 0:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        available = ort.get_available_providers()
        if providers is None:
            providers = ["CPUExecutionProvider"]
            if use_cuda and "CUDAExecutionProvider" in available:
                providers.insert(0, "CUDAExecutionProvider")
        missing = [p for p in providers if p not in available]
        if missing:
            raise BackendError(f"ONNX Runtime here has no {', '.join(missing)}")
        try:
            self._session = ort.InferenceSession(str(model_path), options, providers=list(providers))
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise BackendError(f"ONNX Runtime could not load {model_path}: {exc}") from exc
        self.model_path = Path(model_path)
        served = self._session.get_providers()[0]
        self.name = "onnxruntime-cuda" if served == "CUDAExecutionProvider" else "onnxruntime-cpu"
        #: ONNX Runtime sessions may be run from several threads at once.
        self.thread_safe = True
        self.input_names = tuple(i.name for i in self._session.get_inputs())
        self.output_names = tuple(o.name for o in self._session.get_outputs())
        log.info("loaded %s with %s", Path(model_path).name, self.name)

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        try:
            outputs = self._session.run(list(self.output_names), dict(feeds))
        except Exception as exc:
            raise BackendError(f"ONNX Runtime run failed: {exc}") from exc
        return dict(zip(self.output_names, outputs))
