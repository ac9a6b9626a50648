"""The student's crop: the part between two corners, upright, checked like any photo."""

import io

import numpy as np
import pytest
from PIL import Image

from appliance.ocr.crop import crop_photo
from appliance.ocr.errors import ImageRejected
from tests.appliance.ocr.helpers import encode


def page() -> Image.Image:
    pixels = np.full((300, 400, 3), 235, np.uint8)
    pixels[60:160, 50:150] = 20  # a dark square
    return Image.fromarray(pixels)


def test_the_crop_holds_what_lies_between_the_two_corners_in_either_order():
    cropped = Image.open(io.BytesIO(crop_photo(encode(page()), (200, 210, 40, 50))))
    assert cropped.size == (160, 160)
    pixels = np.asarray(cropped)
    assert pixels[15, 15].max() < 60 and pixels[150, 150].min() > 200  # the square's corner is inside


def test_corners_are_in_the_upright_photo():
    sideways = page().rotate(90, expand=True)  # stored turned, EXIF says: turn it back
    exif = Image.Exif()
    exif[0x0112] = 6
    data = encode(sideways, "JPEG", quality=95, exif=exif)
    cropped = Image.open(io.BytesIO(crop_photo(data, (40, 50, 200, 210))))
    assert np.asarray(cropped)[15, 15].max() < 80


def test_a_crop_too_small_or_of_no_photo_is_refused():
    with pytest.raises(ImageRejected) as info:
        crop_photo(encode(page()), (10, 10, 20, 200))
    assert info.value.code == "too_small"
    with pytest.raises(ImageRejected):
        crop_photo(b"not a photo at all" * 10, (0, 0, 100, 100))
