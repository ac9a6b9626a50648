"""The OCR step's failures: each a specific type with a message fit for a student or an admin."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from appliance.ocr.result import OcrResult


class OcrError(ValueError):
    """Base of every known OCR failure (the CLI prints it as one ``error:`` line)."""


class ImageRejected(OcrError):
    """The upload is not a photo we will decode: too big, not an image, broken, tiny.

    ``code`` is a short stable label for logs and metrics (``too_many_bytes``,
    ``too_many_pixels``, ``not_an_image``, ``unsupported_format``, ``truncated``,
    ``too_small``, ``empty``); ``reason`` is the human sentence.
    """

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


class NoTextFound(OcrError):
    """The photo decoded fine but holds no readable text (a blank sheet, a wall).

    Carries the :class:`OcrResult` (sha256, timings) so the ask can still be logged.
    """

    MESSAGE = ("照片里没有找到文字，请把题目放平、拍清楚后再试。"
               " (No text found in the photo: hold the page flat, in good light,"
               " and fill the frame with the question.)")

    def __init__(self, result: OcrResult | None = None):
        super().__init__(self.MESSAGE)
        self.result = result


class OcrBackendUnavailable(OcrError):
    """The configured OCR backend cannot be used here (e.g. paddleocr not installed)."""


class OcrEvalFileError(OcrError):
    """An OCR evaluation folder is missing, or its truth.csv is malformed."""
