"""Decoding guards: every bad upload is a specific ImageRejected with a clear reason."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from appliance.ocr.errors import ImageRejected
from appliance.ocr.image import ImageLimits, decode_photo, enable_heic, read_limited, read_photo_file
from tests.appliance.ocr.helpers import encode

LIMITS = ImageLimits()


def png_header(width: int, height: int) -> bytes:
    """A PNG that is only a signature, an IHDR claiming width×height, and IEND."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk + struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))


def rejected(data: bytes, limits: ImageLimits = LIMITS) -> ImageRejected:
    with pytest.raises(ImageRejected) as info:
        decode_photo(data, limits)
    return info.value


def test_text_file_renamed_jpg(tmp_path):
    path = tmp_path / "question.jpg"
    path.write_text("解方程：2x + 3 = 13\n", encoding="utf-8")
    with pytest.raises(ImageRejected) as info:
        decode_photo(read_photo_file(path, LIMITS), LIMITS)
    assert info.value.code == "not_an_image"
    assert "not an image" in str(info.value)


def test_truncated_jpeg(page_jpeg):
    error = rejected(page_jpeg[: len(page_jpeg) // 2])
    assert error.code == "truncated"
    assert "truncated or corrupt" in str(error)


def test_one_pixel_image():
    error = rejected(encode(Image.new("RGB", (1, 1), "white")))
    assert error.code == "too_small" and "1×1" in str(error)


def test_png_header_claiming_30000_by_30000_is_refused_before_decoding(monkeypatch):
    from PIL import ImageFile

    loads = []
    monkeypatch.setattr(ImageFile.ImageFile, "load", lambda self: loads.append(self.size))
    error = rejected(png_header(30000, 30000))
    assert error.code == "too_many_pixels"
    assert loads == []  # no pixel was decoded


def test_over_the_pixel_limit_names_the_size():
    error = rejected(png_header(8000, 6000))  # 48 MP: under Pillow's bomb limit, over ours
    assert error.code == "too_many_pixels"
    assert "8000×6000" in str(error) and "40 MP" in str(error)


def test_pixel_limit_is_a_parameter(page_jpeg):
    assert rejected(page_jpeg, ImageLimits(max_pixels=10_000)).code == "too_many_pixels"


def test_200_mb_file_is_refused_from_its_size_without_reading_it(tmp_path, monkeypatch):
    path = tmp_path / "huge.jpg"
    with path.open("wb") as fh:
        fh.truncate(200_000_000)  # sparse: nothing is written or read
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"{self} was read"))
    with pytest.raises(ImageRejected) as info:
        read_photo_file(path, LIMITS)
    assert info.value.code == "too_many_bytes"
    assert "200 MB" in str(info.value) and "15 MB" in str(info.value)


class ZeroStream(io.RawIOBase):
    """A 200 MB upload that is never held in memory; counts what is read."""

    def __init__(self, size: int):
        self.left = size
        self.served = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        self.served += n
        return bytes(n)


def test_200_mb_upload_stream_is_cut_at_the_limit():
    stream = ZeroStream(200_000_000)
    with pytest.raises(ImageRejected) as info:
        read_limited(stream, LIMITS)
    assert info.value.code == "too_many_bytes"
    assert stream.served == LIMITS.max_bytes + 1


def test_byte_limit_on_bytes_is_a_parameter(page_jpeg):
    assert rejected(page_jpeg, ImageLimits(max_bytes=100)).code == "too_many_bytes"


def test_empty_upload():
    assert rejected(b"").code == "empty"


def test_gif_is_not_accepted():
    error = rejected(encode(Image.new("RGB", (64, 64), "white"), "GIF"))
    assert error.code == "unsupported_format" and "GIF" in str(error)


def test_exif_orientation_is_applied():
    pixels = np.full((100, 200, 3), 255, np.uint8)
    pixels[:, :100] = 0  # left half dark
    exif = Image.Exif()
    exif[0x0112] = 6  # stored turned: display needs 90° clockwise
    image = decode_photo(encode(Image.fromarray(pixels), "JPEG", exif=exif, quality=95), LIMITS)
    assert image.size == (100, 200)  # width, height after turning
    assert image.pixels[:100].mean() < 30 and image.pixels[100:].mean() > 225  # left half → top


def test_transparent_png_is_put_on_white_paper():
    image = decode_photo(encode(Image.new("RGBA", (64, 64), (0, 0, 0, 0))), LIMITS)
    assert image.pixels.min() == 255


@pytest.mark.parametrize("fmt", ["PNG", "WEBP", "JPEG"])
def test_formats_decode_to_bgr(fmt):
    image = decode_photo(encode(Image.new("RGB", (64, 48), (255, 0, 0)), fmt), LIMITS)
    assert image.size == (64, 48)
    blue, green, red = image.pixels[24, 32].tolist()
    assert red > 200 and blue < 60 and green < 60


def test_heic_decodes_when_pillow_heif_is_installed():
    if not enable_heic():
        pytest.skip("pillow-heif not installed")
    data = encode(Image.new("RGB", (64, 48), (0, 0, 255)), "HEIF")
    image = decode_photo(data, LIMITS)
    assert image.format == "HEIC" and image.size == (64, 48)


def test_big_photo_is_decoded_small():
    data = encode(Image.new("RGB", (5000, 4000), "white"), "JPEG", quality=50)
    image = decode_photo(data, LIMITS)
    assert max(image.size) <= LIMITS.work_max_side
    assert image.source_size == (5000, 4000)
