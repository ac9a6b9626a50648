"""The daemon prepares the photo reader at start (a fresh install builds and gates its INT8
detector then, not while the first class waits); a failure there is logged, not fatal."""

from __future__ import annotations

import logging

import pytest

from appliance.ask.service import AskService


@pytest.fixture
def service(config):
    svc = AskService.open(config)
    yield svc
    svc.close()


def test_the_reader_is_opened_once_at_start_and_reused(service):
    class Reader:
        def close(self) -> None:
            pass

    opened = []
    reader = Reader()
    service.open_ocr = lambda: opened.append(1) or reader
    service.prepare_photos()
    service.prepare_photos()
    assert opened == [1] and service.ocr is reader


def test_a_reader_that_cannot_open_is_logged_and_tried_again_at_the_first_photo(service, caplog):
    def broken():
        raise RuntimeError("models missing")

    service.open_ocr = broken
    with caplog.at_level(logging.WARNING):
        service.prepare_photos()
    assert "could not be prepared" in caplog.text and "models missing" in caplog.text
    assert service.ocr is None


def test_the_models_the_ocr_step_lowered_are_what_the_card_and_metrics_name(service):
    from types import SimpleNamespace

    from appliance.inference.engine_wiring import OCR_MODELS

    pipeline = SimpleNamespace(lowered={"det": ("onnxruntime", "int8"), "rec": ("openvino", "bf16")})
    service.ocr = SimpleNamespace(pipeline=pipeline, backend="ppocrv6/openvino-cpu-bf16", close=lambda: None)
    rows = {m: (b, p) for m, b, p in service.serving_rows()}
    det, rec = OCR_MODELS["det"], OCR_MODELS["rec"]
    assert rows[det] == ("onnxruntime", "int8")  # the engines manager's rows, corrected
    assert rows[rec] == ("openvino", "bf16")
    assert service.served_by(photo=True)[det].endswith("int8")
    assert service.served_by(photo=True)[rec] == "openvino bf16"
    pipeline.lowered = {}
    assert all(p not in ("int8", "bf16") for m, _, p in service.serving_rows() if m in (det, rec))


def test_the_pipeline_names_only_the_models_it_lowered():
    from pathlib import Path
    from types import SimpleNamespace

    from appliance.ocr.pipeline import PpOcrPipeline

    pipeline = PpOcrPipeline.__new__(PpOcrPipeline)
    pipeline.detector = SimpleNamespace(backend=SimpleNamespace(model_path=Path("det.int8-r1-abc.onnx")))
    pipeline.recognizer = SimpleNamespace(backend=SimpleNamespace(precision="bf16"))
    assert pipeline.lowered == {"det": ("onnxruntime", "int8"), "rec": ("openvino", "bf16")}
    pipeline.detector = SimpleNamespace(backend=SimpleNamespace(model_path=Path("PP-OCRv6_det_small.onnx")))
    pipeline.recognizer = SimpleNamespace(backend=SimpleNamespace(name="onnxruntime-cpu"))
    assert pipeline.lowered == {}
