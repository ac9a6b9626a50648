"""OCR fixtures: the bundled models loaded once, a small generated photo set, tiny images."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.needs import skip_missing
from PIL import Image

from appliance.ocr.reader import OcrReader
from appliance.ocr.settings import OcrSettings
from tests.appliance.ocr.helpers import encode


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
    except FontMissing:
        skip_missing("fonts-noto-cjk", "apt-get install -y fonts-noto-cjk; .ci/run installs it")
    return folder


@pytest.fixture
def page_jpeg() -> bytes:
    """A plain 400×300 JPEG: light paper with one dark bar."""
    pixels = np.full((300, 400, 3), 235, np.uint8)
    pixels[140:160, 50:350] = 20
    return encode(Image.fromarray(pixels), "JPEG", quality=90)
