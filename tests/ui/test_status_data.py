"""Status page figures: percentiles from the Prometheus histograms, the engines hook."""

from __future__ import annotations

from types import SimpleNamespace

from appliance.ask.metrics import ApplianceMetrics
from ui.status_data import EngineStatus, encoder_engines, histogram_percentiles, manager_engines


def test_percentiles_interpolate_inside_buckets():
    metrics = ApplianceMetrics()
    for ms in [3.0] * 50 + [7.0] * 45 + [40.0] * 5:  # buckets ...2, 5, 10, 20, 30, 50...
        metrics.total_ms.labels("text").observe(ms)
    (row,) = histogram_percentiles(metrics.total_ms, "kind")
    assert row.name == "text" and row.count == 100
    assert row.p50 == 5.0  # the 50th value closes the (2, 5] bucket
    assert 5.0 < row.p95 <= 10.0
    assert 30.0 < row.p99 <= 50.0


def test_no_observations_no_percentiles():
    metrics = ApplianceMetrics()
    metrics.total_ms.labels("photo")  # label created, nothing observed
    (row,) = histogram_percentiles(metrics.total_ms, "kind")
    assert row.count == 0 and row.p50 is None


def test_engine_rows_from_the_encoder_and_from_a_hook():
    service = SimpleNamespace(encoder=SimpleNamespace(model_key="use-m3:abc123", backend_name="onnxruntime-cpu"),
                              ocr=SimpleNamespace(name="ppocrv6/onnxruntime-cpu"))
    rows = encoder_engines(service)
    assert rows[0] == EngineStatus(model="use-m3", version="abc123", backend="onnxruntime-cpu", precision="fp32")
    assert rows[1].backend == "ppocrv6/onnxruntime-cpu"
    hooked = EngineStatus.coerce({"model": "use-m3", "backend": "tensorrt", "precision": "fp16",
                                  "flavour": "tensorrt 10.9", "gpu": "L4", "unknown": "ignored"})
    assert hooked.flavour == "tensorrt 10.9" and hooked.gpu == "L4"


def test_engine_rows_from_the_engines_manager(tmp_path):
    import json

    engine = tmp_path / "use-m3.engine"
    engine.with_suffix(".json").write_text(json.dumps({
        "model_sha256": "0db566fd0af8aaaa", "flavour": "tensorrt", "flavour_version": "10.9", "gpu_name": "NVIDIA L4",
        "built_at": "2026-11-30T08:00:00Z", "verification": {"status": "passed", "max_abs_diff": 0.002}}))

    class Status:
        def __init__(self, **values):
            self.values = values

        def to_dict(self):
            return self.values

    manager = SimpleNamespace(status=lambda: [
        Status(model_id="use-m3", serving="tensorrt", reason="verified engine", precision="fp16",
               engine_path=str(engine), verification="passed"),
        Status(model_id="ocr-det", serving="onnxruntime", reason="no GPU", precision="fp32", engine_path=None),
    ])
    trt, ort = manager_engines(manager)()
    assert (trt.model, trt.backend, trt.precision, trt.flavour, trt.gpu) == \
        ("use-m3", "tensorrt", "fp16", "tensorrt 10.9", "NVIDIA L4")
    assert trt.engine_file == str(engine) and "max_abs_diff=0.002" in trt.verification
    assert trt.built_at.startswith("2026-11-30") and trt.version == "0db566fd0af8"
    assert (ort.model, ort.backend, ort.reason, ort.engine_file) == ("ocr-det", "onnxruntime", "no GPU", "")
