"""Engine lifecycle with real TensorRT-RTX engines built ahead of time on the CPU."""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pytest

from engines.backend import BackendError
from engines.engine_key import EngineKey
from engines.failover import FailoverBackend
from engines.accelerators import ACCELERATORS, BuiltEngine
from engines.accelerators.tensorrt import TensorRtAccelerator
from engines.manager import EngineManager, ManagerConfig
from engines.manifest import EngineManifest
from engines.trt.cuda import GpuInfo
from engines.trt.flavours import TENSORRT_RTX, Flavour

pytestmark = pytest.mark.slow

BUILT = [("use-m3", "int8"), ("minilm", "int8"), ("use-m3", "fp16"), ("minilm", "fp16"),
         ("ocr-det", "fp16"), ("ocr-rec", "fp16")]


RTX = "tensorrt-rtx"


def _manifest(manager, model_id) -> EngineManifest:
    return EngineManifest.load(manager.paths(model_id, RTX)[1])


def _rtx(manager):
    return ACCELERATORS[RTX]


@pytest.mark.parametrize("model_id,precision", BUILT)
def test_engine_built_on_cpu_with_manifest(built, model_id, precision):
    manager, status = built[(model_id, precision)]
    engine_path, manifest_path = manager.paths(model_id, RTX)
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


class _RecordingRtx(TensorRtAccelerator):
    """TensorRT-RTX whose builds are recorded and written as stand-in files (or refused)."""

    def __init__(self, calls, refuse: bool = False, fail_open: bool = False, aot_only: bool = False):
        super().__init__(TENSORRT_RTX, "test", runs_on=lambda gpu: "")
        self.calls, self.refuse, self.fail_open, self.aot_only = calls, refuse, fail_open, aot_only

    def build_target(self, gpu, aot_compute_capability):
        """``aot_only``: the engines built ahead of time count as built for the GPU present."""
        return super().build_target(None if self.aot_only else gpu, aot_compute_capability or "8.6")

    def unavailable(self, gpu):
        return "" if gpu is not None else "no NVIDIA GPU here to run its engines"

    def build(self, job, progress=None):
        if self.refuse:
            raise AssertionError("the engine was rebuilt although its key matched")
        self.calls.append(job)
        job.engine_path.write_bytes(b"fake engine " + job.onnx_path.name.encode())
        return BuiltEngine(job.engine_path, 0.01, job.engine_path.stat().st_size)

    def open(self, path, options):
        if self.fail_open:
            raise BackendError("fake")
        return super().open(path, options)


@pytest.fixture
def rtx_calls(monkeypatch):
    """Builds of a recording TensorRT-RTX registered in its place for the test."""
    calls = []
    monkeypatch.setitem(ACCELERATORS, RTX, _RecordingRtx(calls))
    return calls


@pytest.fixture
def no_rebuild(monkeypatch):
    monkeypatch.setitem(ACCELERATORS, RTX, _RecordingRtx([], refuse=True))


def test_rebuild_skipped_when_key_matches(built, text_data, no_rebuild):
    manager, _ = built[("ocr-det", "fp16")]
    again = EngineManager(manager.config, text_data=text_data, probe=lambda: None)
    (status,) = again.ensure(["ocr-det"])
    assert status.engine_path and "no GPU" in status.reason


@pytest.fixture
def det_copy(built, tmp_path, text_data):
    """A private copy of the built ocr-det engine dir, for tests that change things."""
    manager, _ = built[("ocr-det", "fp16")]
    engine_dir = tmp_path / "engines"
    shutil.copytree(manager.config.engine_dir, engine_dir)
    return dataclasses.replace(manager.config, engine_dir=engine_dir)


def test_rebuild_when_tensorrt_version_changes(det_copy, text_data, monkeypatch, rtx_calls):
    calls = rtx_calls
    monkeypatch.setattr(Flavour, "version", lambda self: "99.0")
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: None)
    progress = []
    manager.ensure(["ocr-det"], progress=lambda mid, msg: progress.append(msg))
    assert len(calls) == 1 and any("flavour_version" in msg for msg in progress)
    assert _manifest(manager, "ocr-det").flavour_version == "99.0"


def test_rebuild_when_gpu_fields_change(det_copy, text_data, monkeypatch):
    calls = []
    monkeypatch.setitem(ACCELERATORS, RTX, _RecordingRtx(calls, fail_open=True))
    gpu = GpuInfo("NVIDIA GeForce RTX 4060", "8.9", "13.0", "13.0", 8 << 30)
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: gpu)
    manager.ensure(["ocr-det"])
    assert len(calls) == 1 and calls[0].target.gpu_name  # the GPU present: ComputeCapability.CURRENT
    m = _manifest(manager, "ocr-det")
    assert (m.gpu_name, m.compute_capability) == ("NVIDIA GeForce RTX 4060", "8.9")
    assert m.verification["status"] == "failed"  # the engine did not load, so it is not marked good


def test_rebuild_when_model_hash_changes(det_copy, text_data, tmp_path, rtx_calls):
    import onnx

    calls = rtx_calls
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: None)
    recipe = manager.recipes["ocr-det"]
    model = onnx.load(str(recipe.onnx_for_trt(det_copy.cache_dir)))
    model.doc_string = "retrained"
    changed = tmp_path / "det-changed.onnx"
    onnx.save(model, str(changed))
    manager.recipes["ocr-det"] = dataclasses.replace(recipe, source=lambda cache: changed, trt_source=None)
    old_sha = _manifest(manager, "ocr-det").model_sha256
    manager.ensure(["ocr-det"])
    assert len(calls) == 1 and _manifest(manager, "ocr-det").model_sha256 != old_sha


def test_corrupted_engine_is_detected_and_ort_serves(det_copy, text_data, monkeypatch):
    monkeypatch.setitem(ACCELERATORS, RTX, _RecordingRtx([], refuse=True, aot_only=True))
    gpu = GpuInfo("NVIDIA GeForce RTX 4060", "8.6", "13.0", "13.0", 8 << 30)
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: None)
    engine_path, manifest_path = manager.paths("ocr-det", RTX)
    m = EngineManifest.load(manifest_path)
    m.verification = {"status": "passed"}  # as if it had been verified on a GPU
    m.save(manifest_path)
    data = bytearray(engine_path.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
    engine_path.write_bytes(bytes(data))
    rtx = _rtx(manager)
    _, why = manager.check(manager.recipes["ocr-det"], rtx,
                           manager.expected_key(manager.recipes["ocr-det"], rtx, rtx.build_target(None, "8.6")))
    assert "sha256" in why
    # on a box whose GPU could run it, the corrupted engine is refused and ONNX Runtime serves
    manager = EngineManager(det_copy, text_data=text_data, probe=lambda: gpu)
    backend = manager.backend_for("ocr-det")
    assert backend.name.startswith("onnxruntime")
    (status,) = manager.status()
    assert status.serving == "onnxruntime" and "sha256" in status.reason
    image = np.zeros((1, 3, 64, 64), dtype=np.float32)
    assert backend.run({"x": image})[backend.output_names[0]].shape == (1, 1, 64, 64)


def test_no_tensorrt_means_ort(tmp_path, model_cache, text_data):
    config = ManagerConfig(engine_dir=tmp_path, cache_dir=model_cache, preference=("tensorrt",))  # full TRT: absent here
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
    backend = FailoverBackend(_Flaky(mode), _Reference, lambda reason: manager.schedule_rebuild("ocr-det", RTX, reason))
    out = backend.run({"x": np.zeros(2)})
    assert out["y"].tolist() == [0.5, 1.0] and backend.failed_over and backend.name == "onnxruntime-cpu"
    assert backend.run({"x": np.zeros(2)})["y"].tolist() == [0.5, 1.0]
    (status,) = manager.status()
    assert status.serving == "onnxruntime" and status.rebuild_scheduled and expected in status.reason
    m = _manifest(manager, "ocr-det")
    assert m.verification["status"] == "failed"
    rtx = _rtx(manager)
    key = manager.expected_key(manager.recipes["ocr-det"], rtx, rtx.build_target(None, "8.6"))
    assert manager.check(manager.recipes["ocr-det"], rtx, key)[0] is None  # next ensure rebuilds


def test_key_is_used_for_reuse(built):
    manager, _ = built[("minilm", "int8")]
    rtx = _rtx(manager)
    key = manager.expected_key(manager.recipes["minilm"], rtx, rtx.build_target(None, "8.6"))
    assert isinstance(key, EngineKey) and _manifest(manager, "minilm").key() == key
