"""Optional backend: a PaddleOCR installation with its models on disk (``ocr.backend = "paddleocr"``).

For schools that already run PaddleOCR (e.g. with its server models, or on Paddle's
own GPU runtime). It is imported only when chosen; it is not a dependency of the
appliance. Offline use needs the models on disk: ``ocr.model_dir`` may hold ``det/``,
``rec/`` and ``cls/`` inference-model folders, otherwise PaddleOCR's own model cache
is used. Detection, orientation and recognition are PaddleOCR's; reading order,
the frame-edge filter and paragraph joining are the appliance's (:mod:`layout`).
Both PaddleOCR 3.x (``predict``) and 2.x (``ocr``) APIs are supported.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from appliance.ocr.errors import OcrBackendUnavailable
from appliance.ocr.geometry import order_quad
from appliance.ocr.image import DecodedImage
from appliance.ocr.layout import LayoutParams, TextBox
from appliance.ocr.page import arrange_page
from appliance.ocr.pipeline import PageText
from appliance.ocr.settings import OcrSettings
from appliance.ocr.timing import Stopwatch

log = logging.getLogger(__name__)

INSTALL_HINT = ("ocr.backend = \"paddleocr\" needs PaddleOCR and its models installed "
                "(pip install paddlepaddle paddleocr, models on disk); "
                "or use the default ocr.backend = \"onnx\" (bundled, offline)")


class PaddleOcrPipeline:
    def __init__(self, engine: Any, layout: LayoutParams = LayoutParams()):
        self.engine = engine
        self.layout = layout
        self.name = "paddleocr"

    @classmethod
    def open(cls, settings: OcrSettings) -> PaddleOcrPipeline:
        try:
            import paddleocr
        except ImportError as exc:
            raise OcrBackendUnavailable(f"{INSTALL_HINT} ({exc})") from None
        try:
            engine = paddleocr.PaddleOCR(**_options(paddleocr, settings.model_dir))
        except Exception as exc:  # PaddleOCR raises many types when models are missing
            raise OcrBackendUnavailable(f"PaddleOCR could not start: {exc}") from exc
        log.info("OCR: PaddleOCR %s", getattr(paddleocr, "__version__", "?"))
        return cls(engine, LayoutParams(min_confidence=settings.min_confidence))

    def read(self, image: DecodedImage) -> PageText:
        watch = Stopwatch()
        boxes = [TextBox(text, score, order_quad(np.asarray(poly, np.float32).reshape(4, 2)))
                 for text, score, poly in self._raw(image.pixels)]
        watch.lap("paddleocr")
        layout = arrange_page(boxes, (image.pixels.shape[1], image.pixels.shape[0]), self.layout)
        watch.lap("layout")
        return PageText(layout.text, layout.lines, layout.confidence, layout.dropped, 0, watch.stages,
                        layout.page_text, layout.choices)

    def _raw(self, pixels: np.ndarray) -> list[tuple[str, float, Any]]:
        if hasattr(self.engine, "predict"):  # PaddleOCR 3.x
            found = []
            for page in self.engine.predict(pixels):
                found += zip(page["rec_texts"], page["rec_scores"], page["rec_polys"])
            return [(t, float(s), _four_corners(p)) for t, s, p in found]
        pages = self.engine.ocr(pixels, cls=True) or []  # PaddleOCR 2.x
        return [(text, float(score), _four_corners(poly))
                for page in pages if page for poly, (text, score) in page]


def _options(module: Any, model_dir: str) -> dict:
    major = int(str(getattr(module, "__version__", "3")).split(".")[0] or 3)
    folders = {name: Path(model_dir) / name for name in ("det", "rec", "cls")} if model_dir else {}
    folders = {k: str(v) for k, v in folders.items() if v.is_dir()}
    if major >= 3:
        keys = {"det": "text_detection_model_dir", "rec": "text_recognition_model_dir",
                "cls": "textline_orientation_model_dir"}
        return {"use_doc_orientation_classify": False, "use_doc_unwarping": False,
                "use_textline_orientation": True, **{keys[k]: v for k, v in folders.items()}}
    keys = {"det": "det_model_dir", "rec": "rec_model_dir", "cls": "cls_model_dir"}
    return {"use_angle_cls": True, "lang": "ch", "show_log": False, **{keys[k]: v for k, v in folders.items()}}


def _four_corners(poly: Any) -> np.ndarray:
    """PaddleOCR gives 4-point boxes (2.x) or polygons (3.x): reduce to the bounding rectangle."""
    points = np.asarray(poly, np.float32).reshape(-1, 2)
    if len(points) == 4:
        return points
    return cv2.boxPoints(cv2.minAreaRect(points))
