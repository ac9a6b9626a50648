"""Test helpers for the OCR tests: encoding images, a pipeline without models."""

from __future__ import annotations

import io

from PIL import Image

from appliance.ocr.image import DecodedImage
from appliance.ocr.pipeline import PageText
from appliance.ocr.result import OcrLine


def encode(image: Image.Image, fmt: str = "PNG", **params) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **params)
    return buffer.getvalue()


class CountingPipeline:
    """Stands in for the models: returns fixed text and counts its calls."""

    name = "fake"

    def __init__(self, text: str = "解方程：2x + 3 = 13"):
        self.text = text
        self.calls = 0

    def read(self, image: DecodedImage) -> PageText:
        self.calls += 1
        lines = (OcrLine(self.text, 0.9, ((0, 0), (10, 0), (10, 5), (0, 5))),) if self.text else ()
        return PageText(self.text, lines, 0.9 if self.text else 0.0,
                        stage_ms={"det": 1.0, "cls": 0.0, "rec": 1.0, "layout": 0.0})
