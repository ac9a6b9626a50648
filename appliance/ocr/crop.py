"""The student's crop: the part of a photo between two points, as a new PNG.

Points are in the upright photo's pixels (EXIF orientation applied, as a browser shows
it). The crop is checked like any photo (size, format, decode) and must be at least
``limits.min_side`` on each side.
"""

from __future__ import annotations

import io

from appliance.ocr.errors import ImageRejected
from appliance.ocr.image import ImageLimits, _check_header, _load, _open_header, _upright, check_size

Box = tuple[float, float, float, float]


def crop_photo(data: bytes, box: Box, limits: ImageLimits = ImageLimits()) -> bytes:
    check_size(data, limits)
    image = _open_header(data)
    _check_header(image, limits)
    _load(image)
    upright = _upright(image)
    width, height = upright.size
    x0, x1 = sorted((_clamp(box[0], width), _clamp(box[2], width)))
    y0, y1 = sorted((_clamp(box[1], height), _clamp(box[3], height)))
    if min(x1 - x0, y1 - y0) < limits.min_side:
        raise ImageRejected("too_small", "the crop is too small to hold a question: choose two opposite "
                                         "corners of the problem")
    out = io.BytesIO()
    upright.crop((x0, y0, x1, y1)).convert("RGB").save(out, "PNG")
    return out.getvalue()


def _clamp(value: float, side: int) -> int:
    return int(min(max(0.0, float(value)), float(side)))
