"""Verify a built engine against the ONNX Runtime reference on sample inputs."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from engines.backend import BackendError, InferenceBackend
from engines.gate import GateThresholds, output_gate
from engines.ort_backend import OnnxRuntimeBackend

log = logging.getLogger(__name__)

NO_GPU = "unverified: no GPU here (TensorRT engines run only on an NVIDIA GPU)"


def verify_engine(open_engine: Callable[[], InferenceBackend], reference_onnx: Path,
                  feeds: Sequence[dict], thresholds: GateThresholds = GateThresholds()) -> dict:
    """{"status": "passed"|"failed", figures...}; never raises for a bad engine."""
    try:
        engine = open_engine()
    except BackendError as exc:
        return {"status": "failed", "reason": f"engine did not load: {exc}"}
    reference = OnnxRuntimeBackend(reference_onnx, use_cuda=False)
    try:
        result = output_gate(reference, engine, feeds, thresholds)
        max_abs = max(
            float(np.max(np.abs(reference.run(f)[n] - engine.run(f)[n]))) for f in feeds[:1]
            for n in reference.output_names
        )
    except BackendError as exc:
        return {"status": "failed", "reason": f"engine failed on sample inputs: {exc}"}
    finally:
        close = getattr(engine, "close", None)
        if close is not None:
            close()
    return {
        "status": "passed" if result.passed else "failed",
        "reason": result.reason,
        "mean_cosine": result.mean_cosine,
        "min_cosine": result.min_cosine,
        "max_abs_diff_first_batch": max_abs,
        "samples": result.samples,
    }


def unverified(reason: str = NO_GPU) -> dict:
    return {"status": "unverified", "reason": reason}
