"""The optional PaddleOCR backend: a clear error without it, our layout on top of it."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from appliance.ocr.errors import OcrBackendUnavailable
from appliance.ocr.image import DecodedImage
from appliance.ocr.reader import open_pipeline
from appliance.ocr.settings import OcrSettings


def test_missing_paddleocr_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "paddleocr", None)  # import paddleocr → ImportError
    with pytest.raises(OcrBackendUnavailable, match="paddleocr"):
        open_pipeline(OcrSettings(backend="paddleocr"))


def fake_paddleocr(calls: dict) -> types.ModuleType:
    module = types.ModuleType("paddleocr")
    module.__version__ = "3.1.0"

    class PaddleOCR:
        def __init__(self, **options):
            calls["options"] = options

        def predict(self, image):
            calls["shape"] = image.shape
            return [{
                "rec_texts": ["2x + 3 = 13", "解方程：", "半行"],
                "rec_scores": [0.98, 0.99, 0.9],
                "rec_polys": [np.array([[300, 100], [600, 100], [600, 140], [300, 140]]),
                              np.array([[100, 100], [290, 100], [290, 140], [100, 140]]),
                              np.array([[100, 0], [600, 0], [600, 15], [100, 15]])],
            }]

    module.PaddleOCR = PaddleOCR
    return module


def test_paddleocr_results_go_through_our_layout(monkeypatch, tmp_path):
    calls: dict = {}
    monkeypatch.setitem(sys.modules, "paddleocr", fake_paddleocr(calls))
    (tmp_path / "det").mkdir()
    pipeline = open_pipeline(OcrSettings(backend="paddleocr", model_dir=str(tmp_path)))
    page = pipeline.read(DecodedImage(np.zeros((600, 800, 3), np.uint8), (800, 600), "JPEG"))
    assert page.text == "解方程：2x + 3 = 13"  # reading order fixed, the cut line at the top dropped
    assert page.dropped == 1
    assert calls["options"]["text_detection_model_dir"] == str(tmp_path / "det")
    assert "text_recognition_model_dir" not in calls["options"]
    assert pipeline.name == "paddleocr"
