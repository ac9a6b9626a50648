"""The OCR step: a photo of a printed problem → the question text.

``OcrReader.open(OcrSettings.from_config(config)).read(photo_bytes) -> OcrResult``.
Design, figures and the default-vs-PaddleOCR choice: docs/OCR.md.

Names are imported on first use, so ``appliance.config`` can import
``appliance.ocr.settings`` without loading OpenCV, Pillow or the models' code.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "ImageRejected": "appliance.ocr.errors", "NoTextFound": "appliance.ocr.errors",
    "OcrBackendUnavailable": "appliance.ocr.errors", "OcrError": "appliance.ocr.errors",
    "OcrEvalFileError": "appliance.ocr.errors", "OcrReader": "appliance.ocr.reader",
    "OcrLine": "appliance.ocr.result", "OcrResult": "appliance.ocr.result",
    "OcrSettings": "appliance.ocr.settings",
}
__all__ = ["ImageRejected", "NoTextFound", "OcrBackendUnavailable", "OcrError", "OcrEvalFileError",
           "OcrLine", "OcrReader", "OcrResult", "OcrSettings"]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'appliance.ocr' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
