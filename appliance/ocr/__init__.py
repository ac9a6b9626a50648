"""The OCR step: a photo of a printed problem → the question text.

``OcrReader.open(OcrSettings.from_config(config)).read(photo_bytes) -> OcrResult``.
Design, figures and the default-vs-PaddleOCR choice: docs/OCR.md.
"""

from appliance.ocr.errors import (ImageRejected, NoTextFound, OcrBackendUnavailable, OcrError,
                                  OcrEvalFileError)
from appliance.ocr.reader import OcrReader
from appliance.ocr.result import OcrLine, OcrResult
from appliance.ocr.settings import OcrSettings

__all__ = ["ImageRejected", "NoTextFound", "OcrBackendUnavailable", "OcrError", "OcrEvalFileError",
           "OcrLine", "OcrReader", "OcrResult", "OcrSettings"]
