"""OCR fixtures: the bundled models loaded once, a small generated photo set, tiny images."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from appliance.ocr.image import DecodedImage
from appliance.ocr.pipeline import PageText
from appliance.ocr.reader import OcrReader
from appliance.ocr.result import OcrLine
from appliance.ocr.settings import OcrSettings


@pytest.fixture(scope="session")
def reader() -> OcrReader:
    return OcrReader.open(OcrSettings(cache_size=0))  # every read real, whatever ran before


@pytest.fixture(scope="session")
def photo_set(tmp_path_factory) -> Path:
    """Eight generated photos: upright ones, one turned 180° (index 3) and one 90° (index 7)."""
    from tests.photos.make_photos import FontMissing, make_set

    folder = tmp_path_factory.mktemp("photos")
    try:
        make_set(folder, count=8, seed=7)
    except FontMissing as exc:
        pytest.skip(str(exc))
    return folder


def encode(image: Image.Image, fmt: str = "PNG", **params) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **params)
    return buffer.getvalue()


@pytest.fixture
def page_jpeg() -> bytes:
    """A plain 400×300 JPEG: light paper with one dark bar."""
    pixels = np.full((300, 400, 3), 235, np.uint8)
    pixels[140:160, 50:350] = 20
    return encode(Image.fromarray(pixels), "JPEG", quality=90)


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
