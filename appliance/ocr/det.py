"""Text detection: PP-OCR DB model → text-line quads in the photo's pixels.

The photo is shrunk so its longest side is ``max_side`` (a multiple of 32): printed
questions in a 1600×1200 phone photo are 30–80 px tall, so 640 px (12–32 px lines)
keeps every line detectable at a sixth of the full-size cost; docs/OCR.md has the
figures, including photos with text half that size. Post-processing is
Differentiable Binarization's: threshold the probability map, take each connected
region's minimum-area rectangle, score it by the mean probability inside, and grow it
back by ``area × unclip_ratio / perimeter`` (the DB shrink was of that offset; for a
rectangle the rounded offset's minimum-area rectangle is exactly w+2d × h+2d).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from appliance.ocr.geometry import order_quad
from engines.backend import InferenceBackend


@dataclass(frozen=True)
class DetParams:
    max_side: int = 640
    thresh: float = 0.3
    box_thresh: float = 0.5
    unclip_ratio: float = 1.6
    max_candidates: int = 1000
    min_size: float = 3.0


@dataclass(frozen=True)
class Detection:
    quad: np.ndarray  # (4, 2) float32, photo pixels
    score: float


class TextDetector:
    def __init__(self, backend: InferenceBackend, params: DetParams = DetParams()):
        self.backend = backend
        self.params = params
        self._input = backend.input_names[0]
        self._output = backend.output_names[0]

    def detect(self, image: np.ndarray, max_side: int | None = None) -> list[Detection]:
        """``max_side`` overrides the configured size for this photo (smaller when busy)."""
        tensor, scale = self.prepare(image, max_side)
        prob = self.backend.run({self._input: tensor})[self._output][0, 0]
        return self.boxes(prob, scale, image.shape[1], image.shape[0])

    def prepare(self, image: np.ndarray, max_side: int | None = None) -> tuple[np.ndarray, tuple[float, float]]:
        return detector_input(image, max_side or self.params.max_side)

    def boxes(self, prob: np.ndarray, scale: tuple[float, float], width: int, height: int) -> list[Detection]:
        p = self.params
        mask = cv2.dilate((prob > p.thresh).astype(np.uint8), np.ones((2, 2), np.uint8))
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        found = []
        for contour in contours[: p.max_candidates]:
            rect = cv2.minAreaRect(contour)
            if min(rect[1]) < p.min_size:
                continue
            score = region_score(prob, cv2.boxPoints(rect))
            if score < p.box_thresh:
                continue
            grown = unclip(rect, p.unclip_ratio)
            if min(grown[1]) < p.min_size + 2:
                continue
            quad = cv2.boxPoints(grown) * np.array(scale, np.float32)
            quad[:, 0] = np.clip(quad[:, 0], 0, width - 1)
            quad[:, 1] = np.clip(quad[:, 1], 0, height - 1)
            found.append(Detection(order_quad(quad), score))
        return found


def detector_input(image: np.ndarray, max_side: int) -> tuple[np.ndarray, tuple[float, float]]:
    """Resize to the detector's size (multiples of 32) and normalise to [-1, 1], NCHW;
    returns the tensor and the scale back to the photo's pixels."""
    height, width = image.shape[:2]
    ratio = min(1.0, max_side / max(height, width))
    new_h = max(32, round(height * ratio / 32) * 32)
    new_w = max(32, round(width * ratio / 32) * 32)
    resized = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_AREA if ratio < 1 else cv2.INTER_LINEAR)
    tensor = cv2.dnn.blobFromImage(resized, scalefactor=1 / 127.5, mean=(127.5, 127.5, 127.5), swapRB=False)
    return tensor, (width / new_w, height / new_h)


def region_score(prob: np.ndarray, corners: np.ndarray) -> float:
    """Mean probability inside the polygon (DB's "fast" score)."""
    h, w = prob.shape
    x0, y0 = np.clip(np.floor(corners.min(axis=0)).astype(int), 0, [w - 1, h - 1])
    x1, y1 = np.clip(np.ceil(corners.max(axis=0)).astype(int), 0, [w - 1, h - 1])
    mask = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
    cv2.fillPoly(mask, [(corners - (x0, y0)).round().astype(np.int32)], 1)
    return float(cv2.mean(prob[y0:y1 + 1, x0:x1 + 1], mask)[0])


def unclip(rect: tuple, ratio: float) -> tuple:
    (cx, cy), (w, h), angle = rect
    distance = (w * h) * ratio / (2 * (w + h))
    return (cx, cy), (w + 2 * distance, h + 2 * distance), angle
