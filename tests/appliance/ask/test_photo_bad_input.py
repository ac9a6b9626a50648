"""Photos a student should not have sent, or sent oddly: never a 500, never another
problem's answer — a clear card (and the photo and text kept for the teacher)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from appliance.ask.service import AskService

FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")


@pytest.fixture(scope="module")
def service(tmp_path_factory, model_cache):
    import dataclasses

    from appliance.config import Config

    data_dir = tmp_path_factory.mktemp("data")
    (data_dir / "cache").symlink_to(model_cache, target_is_directory=True)
    svc = AskService.open(dataclasses.replace(Config(), data_dir=data_dir))
    yield svc
    svc.close()


def page(lines: list[tuple[int, str]], size=(1600, 1200), paper=(236, 234, 228), ink=(25, 25, 30)) -> Image.Image:
    if not FONT.exists():
        pytest.skip("fonts-noto-cjk is not installed")
    font = ImageFont.truetype(str(FONT), 60, index=2)
    image = Image.new("RGB", size, paper)
    draw = ImageDraw.Draw(image)
    for y, text in lines:
        draw.text((120, y), text, fill=ink, font=font)
    return image


def squeeze(text: str) -> str:
    return "".join(text.split())


def jpeg(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def test_two_whole_problems_get_a_choice_not_an_answer(service):
    card = service.ask_photo(jpeg(page([(380, "1. 解方程：2x + 3 = 13"), (720, "2. 解方程：2x + 3 = 11")])))
    assert card.abstained and card.matched_id is None
    assert sorted(squeeze(c) for c in card.choices) == ["解方程：2x+3=11", "解方程：2x+3=13"]
    assert service.asks.get(card.ask_id)["photo_sha256"]


def test_a_header_and_a_neighbour_change_no_answer(service):
    alone = service.ask_photo(jpeg(page([(560, "解方程：2x + 3 = 11")])))
    framed = service.ask_photo(jpeg(page([(150, "第一题（5分）"), (520, "9．解方程：2x + 3 = 11"),
                                          (1130, "10．求 24 和 36 的最小公倍数。")])))
    assert alone.matched_id == framed.matched_id == "demo-math-002"
    assert squeeze(framed.question) == "解方程：2x+3=11"  # no number, no header


def test_an_upside_down_photo_is_read_the_right_way_up(service):
    card = service.ask_photo(jpeg(page([(560, "解方程：2x + 3 = 11")]).rotate(180)))
    assert card.matched_id == "demo-math-002"


def test_a_photo_of_a_screen_gets_the_right_answer_or_none(service):
    image = np.asarray(page([(560, "解方程：2x + 3 = 11")], paper=(40, 44, 52), ink=(225, 225, 225))).astype(np.float32)
    yy, xx = np.mgrid[0:image.shape[0], 0:image.shape[1]]
    moire = 18 * np.sin((xx * 0.9 + yy * 0.35)) * np.sin(yy * 0.8)  # the pixel grid beating with the sensor's
    shot = Image.fromarray(np.clip(image + moire[..., None], 0, 255).astype(np.uint8))
    card = service.ask_photo(jpeg(shot))
    assert card.matched_id in (None, "demo-math-002")


def test_handwriting_only_gets_a_clear_card_not_another_answer(service):
    rng = np.random.default_rng(4)
    image = Image.new("RGB", (1600, 1200), (236, 234, 228))
    draw = ImageDraw.Draw(image)
    for _ in range(14):  # scribbled strokes, no printed text
        points = np.cumsum(rng.normal(0, 25, (30, 2)), axis=0) + rng.uniform(200, 1000, 2)
        draw.line([tuple(p) for p in points], fill=(30, 30, 90), width=6, joint="curve")
    card = service.ask_photo(jpeg(image))
    assert card.abstained and card.matched_id is None and card.message


def test_a_crop_around_one_of_two_problems_answers_that_one(service):
    photo = jpeg(page([(380, "1. 解方程：2x + 3 = 13"), (720, "2. 解方程：2x + 3 = 11")]))
    card = service.ask_photo(photo, crop=(60, 650, 1500, 850))  # the student's two taps around problem 2
    assert card.matched_id == "demo-math-002" and not card.choices
