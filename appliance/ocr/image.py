"""Photo bytes → an upright BGR pixel array, with guards against hostile or useless uploads.

Order of the guards, cheapest first: byte size (before reading a file or a stream to
the end), then the header alone (format, pixel count, tiny images, Pillow's
decompression-bomb check), and only then the decode itself (truncated or corrupt
data). EXIF orientation is applied; big photos are decoded or downscaled to at most
``work_max_side`` pixels, which is all recognition needs (the detector shrinks further).
"""

from __future__ import annotations

import io
import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from appliance.ocr.errors import ImageRejected

log = logging.getLogger(__name__)

# Pillow format name → the name we print. MPO is the multi-picture JPEG some phones write.
FORMATS = {"JPEG": "JPEG", "MPO": "JPEG", "PNG": "PNG", "WEBP": "WebP", "HEIF": "HEIC"}


@dataclass(frozen=True)
class ImageLimits:
    max_bytes: int = 15_000_000
    max_pixels: int = 40_000_000
    # A side shorter than this cannot hold a readable question.
    min_side: int = 32
    # Larger photos are decoded (JPEG draft mode) or resized down to this longest side.
    work_max_side: int = 2400


@dataclass(frozen=True)
class DecodedImage:
    pixels: np.ndarray  # H×W×3 uint8, BGR, upright
    source_size: tuple[int, int]  # width, height as stored in the file
    format: str

    @property
    def size(self) -> tuple[int, int]:
        return self.pixels.shape[1], self.pixels.shape[0]


def enable_heic() -> bool:
    """Let Pillow open HEIC photos when pillow-heif is installed (idempotent)."""
    try:
        import pillow_heif
    except ImportError:
        return False
    pillow_heif.register_heif_opener()
    return True


def _megabytes(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB".replace(".0 MB", " MB")


def _too_many_bytes(size: int, limits: ImageLimits) -> ImageRejected:
    return ImageRejected("too_many_bytes", f"the photo is {_megabytes(size)}; the limit is "
                                           f"{_megabytes(limits.max_bytes)} (send a smaller photo)")


def read_photo_file(path: str | Path, limits: ImageLimits) -> bytes:
    """Read a photo file, refusing an oversize one from its size alone (nothing read)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > limits.max_bytes:
            raise _too_many_bytes(size, limits)
        return path.read_bytes()
    except IsADirectoryError:
        raise ImageRejected("unreadable", f"{path} is a folder, not a photo") from None
    except OSError as exc:
        raise ImageRejected("unreadable", f"cannot read {path}: {exc.strerror or exc}") from None


def read_limited(stream: BinaryIO, limits: ImageLimits) -> bytes:
    """Read an upload stream, stopping (and refusing) one byte past the limit."""
    data = stream.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise ImageRejected("too_many_bytes", f"the photo is larger than {_megabytes(limits.max_bytes)}, "
                                              "the limit (send a smaller photo)")
    return data


def check_size(data: bytes, limits: ImageLimits) -> None:
    if not data:
        raise ImageRejected("empty", "the photo is empty (0 bytes)")
    if len(data) > limits.max_bytes:
        raise _too_many_bytes(len(data), limits)


def decode_photo(data: bytes, limits: ImageLimits) -> DecodedImage:
    """Check, decode and turn upright one photo; :class:`ImageRejected` on any bad input."""
    check_size(data, limits)
    image = _open_header(data)
    fmt = _check_header(image, limits)
    source_size = image.size
    _draft(image, fmt, limits)
    _load(image)
    pixels = _to_bgr(_reduce(_upright(image), limits.work_max_side))
    return DecodedImage(_shrink(pixels, limits.work_max_side), source_size, fmt)


def header_pixels(data: bytes, limits: ImageLimits) -> int:
    """The photo's pixel count from its header alone (nothing decoded); refuses what
    :func:`decode_photo` would refuse from the header."""
    image = _open_header(data)
    _check_header(image, limits)
    width, height = image.size
    return width * height


def _open_header(data: bytes) -> Image.Image:
    try:
        return Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise ImageRejected("too_many_pixels", "the image claims far more pixels than any photo "
                                               "(a decompression bomb?); refused before decoding") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        raise ImageRejected("not_an_image", "the file is not an image (send a JPEG, PNG, WebP or HEIC photo)") from None


def _check_header(image: Image.Image, limits: ImageLimits) -> str:
    fmt = FORMATS.get(image.format or "")
    if fmt is None:
        raise ImageRejected("unsupported_format",
                            f"{image.format} images are not accepted (send a JPEG, PNG, WebP or HEIC photo)")
    width, height = image.size
    if width * height > limits.max_pixels:
        raise ImageRejected("too_many_pixels", f"the image is {width}×{height} pixels "
                                               f"({width * height / 1e6:.0f} MP); the limit is "
                                               f"{limits.max_pixels / 1e6:.0f} MP")
    if min(width, height) < limits.min_side:
        raise ImageRejected("too_small", f"the image is only {width}×{height} pixels: too small to hold "
                                         "a question (photograph the page)")
    return fmt


def _draft(image: Image.Image, fmt: str, limits: ImageLimits) -> None:
    """Let the JPEG decoder scale a big photo down by 2/4/8 while decoding (cheap)."""
    width, height = image.size
    scale = limits.work_max_side / max(width, height)
    if fmt == "JPEG" and scale < 0.5:
        image.draft("RGB", (math.ceil(width * scale), math.ceil(height * scale)))


def _load(image: Image.Image) -> None:
    try:
        image.load()
    except Image.DecompressionBombError:
        raise ImageRejected("too_many_pixels", "the image is a decompression bomb; refused") from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError) as exc:
        log.info("photo failed to decode: %s", exc)
        raise ImageRejected("truncated", "the photo is truncated or corrupt (the upload may have been "
                                         "cut off): send it again") from None


def _upright(image: Image.Image) -> Image.Image:
    try:
        return ImageOps.exif_transpose(image)
    except Exception as exc:  # broken EXIF must not lose the photo
        log.warning("ignoring unreadable EXIF orientation: %s", exc)
        return image


def _reduce(image: Image.Image, max_side: int) -> Image.Image:
    """Shrink a big image by a whole factor in its own mode before any colour conversion,
    so a 6300×6300 grey PNG costs 40 MB on the way, not 450 (the fine resize is
    :func:`_shrink`'s)."""
    factor = max(image.size) // max_side
    if factor < 2:
        return image
    try:
        return image.reduce(factor)
    except (ValueError, NotImplementedError):  # a mode reduce() does not handle
        return image


def _to_bgr(image: Image.Image) -> np.ndarray:
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        page = Image.new("RGBA", rgba.size, (255, 255, 255, 255))  # transparent → white paper
        image = Image.alpha_composite(page, rgba)
    rgb = np.asarray(image.convert("RGB"))
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


def _shrink(pixels: np.ndarray, max_side: int) -> np.ndarray:
    height, width = pixels.shape[:2]
    scale = max_side / max(width, height)
    if scale >= 1.0:
        return pixels
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return cv2.resize(pixels, size, interpolation=cv2.INTER_AREA)
