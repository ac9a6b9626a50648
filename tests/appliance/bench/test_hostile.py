"""The hostile soak's attack payloads are what they claim to be (the soak itself runs with
``eduqa loadtest --hostile``; figures in docs/BENCHMARKS.md)."""

from __future__ import annotations

import io
import json
import random

import pytest
from PIL import Image

from appliance.bench.hostile import ATTACKS, attack_request, make_payloads
from appliance.ocr.image import ImageLimits, header_pixels
from appliance.ocr.errors import ImageRejected


@pytest.fixture(scope="module")
def payloads(tmp_path_factory):
    return make_payloads(tmp_path_factory.mktemp("hostile"))


def test_images_sit_on_the_right_side_of_the_pixel_limit(payloads):
    limits = ImageLimits()
    assert limits.max_pixels * 0.99 < header_pixels(payloads["huge_blank"], limits) <= limits.max_pixels
    assert len(payloads["huge_blank"]) < 200_000
    with pytest.raises(ImageRejected):
        header_pixels(payloads["bomb"], limits)
    assert Image.open(io.BytesIO(payloads["honest_photo"])).size == (3000, 4000)


@pytest.mark.parametrize("kind", ATTACKS)
def test_every_attack_builds_a_request(payloads, kind):
    method, path, body, headers = attack_request(kind, payloads, random.Random(1), 5)
    assert method in ("GET", "POST") and path.startswith("/")
    if kind == "lone_surrogate":
        assert "\ud800" in json.loads(body)["text"]
    if kind == "megabyte_text":
        assert len(body) > 1_000_000
    if kind == "cross_site":
        assert headers["origin"] == "http://evil.example"
    if kind == "path_read":
        assert payloads["secret_path"].decode() in body.decode()
