"""The TensorRT runtime backend. Execution needs an NVIDIA GPU; here only the refusal is tested."""

from __future__ import annotations

import numpy as np
import pytest

from engines.backend import BackendError, InferenceBackend
from engines.trt.cuda import CudaBindingsApi, CudaUnavailable, probe_gpu
from tests.needs import missing

HAS_GPU = probe_gpu() is not None


@pytest.mark.skipif(HAS_GPU, reason="a GPU is present")
def test_no_gpu_gives_a_clear_backend_error(tmp_path, rtx):
    from engines.trt.runtime import TensorRtBackend

    engine = tmp_path / "x.engine"
    engine.write_bytes(b"not an engine")
    with pytest.raises(BackendError, match="TensorRT cannot run here"):
        TensorRtBackend(engine, rtx)


@pytest.mark.skipif(HAS_GPU, reason="a GPU is present")
def test_cuda_bindings_report_no_device():
    pytest.importorskip("cuda.bindings", reason=missing("cuda-python", "./install.sh --dev --engine-builders"))
    with pytest.raises(CudaUnavailable):
        CudaBindingsApi().device_info()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason="needs an NVIDIA GPU with a driver (none here): TensorRT engines run only on a GPU")
@pytest.mark.parametrize("model_id,precision", [("minilm", "fp16"), ("use-m3", "int8"), ("ocr-det", "fp16")])
def test_engine_runs_and_matches_onnxruntime(built, model_id, precision):
    from engines.feeds import sample_feeds
    from engines.ort_backend import OnnxRuntimeBackend
    from engines.trt.runtime import TensorRtBackend

    manager, _ = built[(model_id, precision)]
    from engines.trt.flavours import TENSORRT_RTX as flavour

    backend = TensorRtBackend(manager.paths(model_id, flavour.name)[0], flavour, streams=2)
    assert isinstance(backend, InferenceBackend)
    reference = OnnxRuntimeBackend(manager.recipes[model_id].onnx_for_ort(manager.config.cache_dir))
    for feed in sample_feeds(manager.recipes[model_id]):
        ours, theirs = backend.run(feed), reference.run(feed)
        for name in reference.output_names:
            a, b = ours[name].ravel(), theirs[name].ravel()
            assert np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)) > 0.99
    backend.close()
