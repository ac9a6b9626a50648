"""Engine lifecycle with real TensorRT-RTX engines built ahead of time on the CPU."""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pytest

from engines.backend import BackendError
from engines.engine_key import EngineKey
from engines.failover import FailoverBackend
from engines.manager import EngineManager, ManagerConfig
from engines.manifest import EngineManifest
from engines.trt.builder import BuildResult
from engines.trt.cuda import GpuInfo
from engines.trt.flavours import Flavour

pytestmark = pytest.mark.slow

BUILT = [("use-m3", "int8"), ("minilm", "int8"), ("use-m3", "fp16"), ("minilm", "fp16"),
         ("ocr-det", "fp16"), ("ocr-rec", "fp16")]


def _manifest(manager, model_id) -> EngineManifest:
    return EngineManifest.load(manager.paths(model_id, manager.flavour())[1])


@pytest.mark.parametrize("model_id,precision", BUILT)
def test_engine_built_on_cpu_with_manifest(built, model_id, precision):
    manager, status = built[(model_id, precision)]
    engine_path, manifest_path = manager.paths(model_id, manager.flavour())
    assert engine_path.stat().st_size > 1_000_000, status
    m = EngineManifest.load(manifest_path)
    assert m.model_id == model_id and m.flavour == "tensorrt-rtx" and m.flavour_version
    assert m.wanted_precision == precision and m.precision == precision, m.precision_fallbacks
    assert m.gpu_name == "" and m.compute_capability == "8.6"  # ahead of time, no GPU here
    assert m.build_seconds > 0 and m.built_at and len(m.model_sha256) == 64
    assert m.profiles and m.profiles[0]["max"][0] >= 1
    assert m.verification["status"] == "unverified" and "no GPU" in m.verification["reason"]
    # never serve an unverified engine
    assert status.serving == "onnxruntime" and "no GPU" in status.reason
    assert status.engine_path == str(engine_path)
    if precision == "int8":
        assert m.calibration_samples == 328  # the demo bank's questions and answers
        assert m.calibration_note == "only 328 calibration samples (< 500)"
        assert m.precision_gate["passed"] and m.precision_gate["mean_cosine"] >= 0.99


def _no_build(*args, **kwargs):
    raise AssertionError("the engine was rebuilt although its key matched")


def _fake_builder(calls):
    def build(request, progress=None):
        calls.append(request)
        request.engine_path.write_bytes(b"fake engine " + request.onnx_path.name.encode())
        return BuildResult(request.engine_path, 0.01, request.engine_path.stat().st_size, "x")

    return build


def test_rebuild_skipped_when_key_matches(built, text_data):
    manager, _ = built[("ocr-det", "fp16")]
    again = EngineManager(manager.config, text_data=text_data, probe=lambda: None, builder=_no_build)
    (status,) = again.ensure(["ocr-det"])
    assert status.engine_path and "no GPU" in status.reason


@pytest.fixture
def det_copy(built, tmp_path, text_data):
    """A private copy of the built ocr-det engine dir, for tests that change things."""
    manager, _ = built[("ocr-det", "fp16")]
    engine_dir = tmp_path / "engines"
    shutil.copytree(manager.config.engine_dir, engine_dir)
    return dataclasses.replace(manager.config, engine_dir=engine_dir)


def test_rebuild_when_tensorrt_version_changes(det_copy, text_data, monkeypatch):
    calls = []
    monkeypatch.setattr(Flavour, "version", lambda self: "99.0")
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: None, builder=_fake_builder(calls))
    progress = []
    manager.ensure(["ocr-det"], progress=lambda mid, msg: progress.append(msg))
    assert len(calls) == 1 and any("flavour_version" in msg for msg in progress)
    assert _manifest(manager, "ocr-det").flavour_version == "99.0"


def test_rebuild_when_gpu_fields_change(det_copy, text_data):
    calls = []
    gpu = GpuInfo("NVIDIA GeForce RTX 4060", "8.9", "13.0", "13.0", 8 << 30)
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: gpu, builder=_fake_builder(calls),
                            open_engine=lambda path, flavour: (_ for _ in ()).throw(BackendError("fake")))
    manager.ensure(["ocr-det"])
    assert len(calls) == 1 and calls[0].compute_capability == ""  # the GPU present: ComputeCapability.CURRENT
    m = _manifest(manager, "ocr-det")
    assert (m.gpu_name, m.compute_capability) == ("NVIDIA GeForce RTX 4060", "8.9")
    assert m.verification["status"] == "failed"  # the engine did not load, so it is not marked good


def test_rebuild_when_model_hash_changes(det_copy, text_data, tmp_path):
    import onnx

    calls = []
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: None, builder=_fake_builder(calls))
    recipe = manager.recipes["ocr-det"]
    model = onnx.load(str(recipe.onnx_for_trt(det_copy.cache_dir)))
    model.doc_string = "retrained"
    changed = tmp_path / "det-changed.onnx"
    onnx.save(model, str(changed))
    manager.recipes["ocr-det"] = dataclasses.replace(recipe, source=lambda cache: changed, trt_source=None)
    old_sha = _manifest(manager, "ocr-det").model_sha256
    manager.ensure(["ocr-det"])
    assert len(calls) == 1 and _manifest(manager, "ocr-det").model_sha256 != old_sha


def test_corrupted_engine_is_detected_and_ort_serves(det_copy, text_data):
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: None, builder=_no_build)
    engine_path, manifest_path = manager.paths("ocr-det", manager.flavour())
    m = EngineManifest.load(manifest_path)
    m.verification = {"status": "passed"}  # as if it had been verified on a GPU
    m.save(manifest_path)
    data = bytearray(engine_path.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
    engine_path.write_bytes(bytes(data))
    _, why = manager.check(manager.recipes["ocr-det"], manager.flavour(),
                           manager.expected_key(manager.recipes["ocr-det"], manager.flavour(),
                                                manager.target(manager.flavour())))
    assert "sha256" in why
    backend = manager.backend_for("ocr-det")
    assert backend.name.startswith("onnxruntime")
    (status,) = manager.status()
    assert status.serving == "onnxruntime" and "sha256" in status.reason
    image = np.zeros((1, 3, 64, 64), dtype=np.float32)
    assert backend.run({"x": image})[backend.output_names[0]].shape == (1, 1, 64, 64)


def test_no_tensorrt_means_ort(tmp_path, model_cache, text_data):
    config = ManagerConfig(engine_dir=tmp_path, cache_dir=model_cache, flavour="tensorrt")  # full TRT: absent here
    manager = EngineManager(config, text_data=text_data, probe=lambda: None)
    (status,) = manager.ensure(["ocr-det"])
    assert status.serving == "onnxruntime" and "no engine" in status.reason


class _Flaky:
    name = "tensorrt-rtx"
    input_names = ("x",)
    output_names = ("y",)

    def __init__(self, mode):
        self.mode = mode

    def run(self, feeds):
        if self.mode == "raise":
            raise BackendError("CUDA error 700: an illegal memory access was encountered")
        return {"y": np.array([np.nan, 1.0], dtype=np.float32)}


class _Reference:
    name = "onnxruntime-cpu"
    input_names = ("x",)
    output_names = ("y",)

    def run(self, feeds):
        return {"y": np.array([0.5, 1.0], dtype=np.float32)}


@pytest.mark.parametrize("mode,expected", [("raise", "illegal memory"), ("nan", "non-finite")])
def test_failover_at_run_time_schedules_a_rebuild(det_copy, text_data, mode, expected):
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: None)
    backend = FailoverBackend(_Flaky(mode), _Reference, lambda reason: manager.schedule_rebuild("ocr-det", reason))
    out = backend.run({"x": np.zeros(2)})
    assert out["y"].tolist() == [0.5, 1.0] and backend.failed_over and backend.name == "onnxruntime-cpu"
    assert backend.run({"x": np.zeros(2)})["y"].tolist() == [0.5, 1.0]
    (status,) = manager.status()
    assert status.serving == "onnxruntime" and status.rebuild_scheduled and expected in status.reason
    m = _manifest(manager, "ocr-det")
    assert m.verification["status"] == "failed"
    key = manager.expected_key(manager.recipes["ocr-det"], manager.flavour(), manager.target(manager.flavour()))
    assert manager.check(manager.recipes["ocr-det"], manager.flavour(), key)[0] is None  # next ensure rebuilds


def test_key_is_used_for_reuse(built):
    manager, _ = built[("minilm", "int8")]
    flavour = manager.flavour()
    key = manager.expected_key(manager.recipes["minilm"], flavour, manager.target(flavour))
    assert isinstance(key, EngineKey) and _manifest(manager, "minilm").key() == key
