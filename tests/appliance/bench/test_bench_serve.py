import io
import json
import random

from PIL import Image

from appliance.bench.serving import _fresh_slices, _request_body
from appliance.ocr.image import ImageLimits, decode_photo


def _jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "white").save(buffer, "JPEG")
    return buffer.getvalue()


def _photo_part(body: bytes) -> bytes:
    start = body.index(b"\r\n\r\n") + 4
    return body[start : body.rindex(b"\r\n--")]


def test_unique_photos_differ_but_still_decode():
    photo, rng = _jpeg(), random.Random(1)
    sent = [_photo_part(_request_body("q", [photo], 1.0, rng, unique_photos=True)[0]) for _ in range(5)]
    assert len(set(sent)) == 5 and all(p.startswith(photo) for p in sent)
    assert decode_photo(sent[0], ImageLimits()).source_size == (64, 48)
    repeated = _photo_part(_request_body("q", [photo], 1.0, rng)[0])
    assert repeated == photo


def test_text_asks_are_json_and_every_run_gets_fresh_questions():
    body, headers = _request_body("解方程", None, 0.0, random.Random(0))
    assert headers["Content-Type"] == "application/json" and json.loads(body)["text"] == "解方程"
    warmup, first, second = _fresh_slices([f"q{i}" for i in range(100)], 10, 20, 2)
    assert not set(warmup) & set(first) and not set(first) & set(second)
