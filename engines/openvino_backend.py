"""OpenVINO backend: an ONNX file compiled for this CPU, in FP32 or BF16.

Used where a model's arithmetic in BF16 pays on this CPU (AVX512-BF16 or AMX): the
ONNX file stays FP32 and OpenVINO computes in BF16 (``precision="bf16"``), which ONNX
Runtime's CPU provider does not offer. Whether that is as good and faster is measured
on the box by the caller (:mod:`appliance.inference.precision_gate`), never assumed.

The backend keeps one infer request per stream and may be run from any number of threads
at once: ``streams`` runs compute in parallel, each on ``threads`` cores, and further callers
wait for a request to come free (each request holds the memory of the largest input it ran).
"""

from __future__ import annotations

import logging
import queue
import sys
from pathlib import Path
from typing import Mapping

import numpy as np

from engines.backend import BackendError

log = logging.getLogger(__name__)

PRECISIONS = ("f32", "bf16")
SHAPES_KEPT = 64


def _openvino():
    # Importing OpenVINO reports the import to Google Analytics through the openvino_telemetry
    # package unless that package cannot be imported: the appliance never phones home, so
    # for this process it cannot (OpenVINO then uses its own do-nothing stand-in).
    if "openvino" not in sys.modules:
        sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]
    try:
        import openvino
    except ImportError as exc:
        raise BackendError(f"OpenVINO is not installed ({exc})") from exc
    return openvino


def cpu_computes(precision: str) -> bool:
    """Whether OpenVINO computes in ``precision`` on this CPU (BF16: AVX512-BF16 or AMX;
    elsewhere it would quietly compute in FP32)."""
    if precision == "f32":
        return True
    try:
        capabilities = _openvino().Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    except Exception:  # noqa: BLE001 - no OpenVINO, or no CPU plugin: it computes nothing here
        return False
    return precision.upper() in {str(c).upper() for c in capabilities}


class OpenVinoBackend:
    """Runs an ONNX file with OpenVINO on the CPU behind :class:`InferenceBackend`."""

    def __init__(self, model_path: str | Path, precision: str = "f32", streams: int = 1, threads: int = 1):
        if precision not in PRECISIONS:
            raise BackendError(f"OpenVINO precision must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        ov = _openvino()
        config = {
            "INFERENCE_PRECISION_HINT": precision,
            "NUM_STREAMS": max(1, streams),
            "INFERENCE_NUM_THREADS": max(1, streams) * max(1, threads),
            # The appliance shares two cores with its web server and ONNX Runtime: no
            # thread is tied to a core.
            "ENABLE_CPU_PINNING": False,
            # Kernels kept for this many input shapes. Every photo brings new line widths,
            # and OpenVINO's default (5,000 shapes, about 5 MB each) grew a reader past 3 GB
            # within minutes.
            "CPU_RUNTIME_CACHE_CAPACITY": SHAPES_KEPT,
        }
        try:
            self._compiled = ov.Core().compile_model(str(model_path), "CPU", config)
        except Exception as exc:  # OpenVINO raises its own untyped errors
            raise BackendError(f"OpenVINO could not compile {model_path}: {exc}") from exc
        self.model_path = Path(model_path)
        self.precision = precision
        self.name = f"openvino-cpu-{precision}"
        #: Runs from several threads share the streams' infer requests.
        self.thread_safe = True
        self.input_names = tuple(port.get_any_name() for port in self._compiled.inputs)
        self._takes = {port.get_any_name(): port.get_partial_shape() for port in self._compiled.inputs}
        self._shape_of = ov.PartialShape
        self.output_names = tuple(port.get_any_name() for port in self._compiled.outputs)
        self._idle: queue.SimpleQueue = queue.SimpleQueue()
        for _ in range(max(1, streams)):
            self._idle.put(self._compiled.create_infer_request())
        log.info("loaded %s with %s", self.model_path.name, self.name)

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        self._check(feeds)
        request = self._idle.get()
        try:
            results = request.infer(dict(feeds))  # outputs copied: the request's own are reused
            return {name: np.asarray(results[port]) for name, port in zip(self.output_names, self._compiled.outputs)}
        except Exception as exc:
            raise BackendError(f"OpenVINO run failed: {exc}") from exc
        finally:
            self._idle.put(request)

    def _check(self, feeds: Mapping[str, np.ndarray]) -> None:
        """OpenVINO runs an input of the wrong shape without a word (and returns nothing, or
        the model's reading of it): refuse it here, as ONNX Runtime does."""
        for name, takes in self._takes.items():
            if name not in feeds:
                raise BackendError(f"OpenVINO run failed: input {name!r} missing")
            shape = np.shape(feeds[name])
            if not takes.compatible(self._shape_of(list(shape))):
                raise BackendError(f"OpenVINO run failed: input {name!r} of shape {shape} where the model takes {takes}")
