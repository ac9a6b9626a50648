"""Text detection: PP-OCR DB model → text-line quads in the photo's pixels.

The photo is shrunk so its longest side is ``max_side`` (a multiple of 32): printed
questions in a 1600×1200 phone photo are 30–80 px tall, so 640 px (12–32 px lines)
keeps every line detectable at a sixth of the full-size cost; docs/OCR.md has the
figures, including photos with text half that size. Post-processing is
Differentiable Binarization's: threshold the probability map, take each connected
region's minimum-area rectangle, score it by the mean probability inside, and grow it
back by ``area × unclip_ratio / perimeter`` (the DB shrink was of that offset; for a
rectangle the rounded offset's minimum-area rectangle is exactly w+2d × h+2d). A long
line bent by a curled page holds more paper than line in its one rectangle and scores
under the threshold: it is cut into straight pieces instead (:func:`straight_pieces`).
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
    # A line bent by the page's curl (its region fills less than ``bent_fill`` of its
    # rectangle), whose one rectangle scores under ``box_thresh`` (it holds more paper than
    # line), is cut into straight pieces, each bowing at most ``bow`` of its thickness.
    bent_fill: float = 0.67
    bow: float = 0.25
    most_pieces: int = 8


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
            whole = region_score(prob, cv2.boxPoints(rect))
            if whole >= p.box_thresh:
                pieces = [(unclip(rect, p.unclip_ratio), whole)]
            else:  # a line bent by the page's curl scores low in one rectangle
                pieces = [(grown, region_score(prob, cv2.boxPoints(piece)))
                          for piece, grown in straight_pieces(prob, contour, rect, p)]
            for grown, score in pieces:
                if score < p.box_thresh or min(grown[1]) < p.min_size + 2:
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


Rect = tuple[tuple[float, float], tuple[float, float], float]


def straight_pieces(prob: np.ndarray, contour: np.ndarray, rect: Rect, p: DetParams) -> list[tuple[Rect, Rect]]:
    """(piece, piece grown by the unclip distance) for each straight piece of a long line
    bent by a curled page (:class:`DetParams`); none for a region that is no such line."""
    (cx, cy), (w, h), angle = rect
    length, across = max(w, h), min(w, h)
    thickness = cv2.contourArea(contour) / max(length, 1.0)
    bow = across - thickness
    if thickness >= p.bent_fill * across or length < 8 * thickness:
        return []
    count = min(p.most_pieces, int(np.ceil(np.sqrt(bow / (p.bow * thickness)))))
    if count < 2:
        return []
    along = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    if w < h:
        along = np.array([-along[1], along[0]])
    points = _region_points(contour)
    u = (points - (cx, cy)) @ along
    cuts = _cuts(prob, points, u, count)
    pieces = []
    for k in range(count):
        mine = points[(u >= cuts[k]) & (u < cuts[k + 1])] if k < count - 1 else points[u >= cuts[k]]
        if len(mine) < 3:
            continue
        piece = cv2.minAreaRect(mine.astype(np.float32))
        pieces.append((piece, _grow_piece(piece, along, k == 0, k == count - 1, p.unclip_ratio)))
    return pieces


def _region_points(contour: np.ndarray) -> np.ndarray:
    """The detector pixels inside a contour, as (x, y) rows."""
    x, y, w, h = cv2.boundingRect(contour)
    mask = np.zeros((h, w), np.uint8)
    cv2.drawContours(mask, [contour - (x, y)], -1, 1, thickness=cv2.FILLED)
    ys, xs = np.nonzero(mask)
    return np.stack([xs + x, ys + y], axis=1).astype(np.float64)


def _cuts(prob: np.ndarray, points: np.ndarray, u: np.ndarray, count: int) -> list[float]:
    """Where to cut a line into ``count`` pieces: near even steps along it, each moved to
    the weakest column within a quarter step (a gap between characters or words)."""
    start, end = float(u.min()), float(u.max())
    step = (end - start) / count
    column = np.floor(u - start).astype(int)
    weight = np.bincount(column, weights=prob[points[:, 1].astype(int), points[:, 0].astype(int)])
    cuts = [start]
    for k in range(1, count):
        lo, hi = int(k * step - step / 4), int(k * step + step / 4) + 1
        near = weight[lo:hi]
        off = np.abs(np.arange(lo, lo + len(near)) - k * step) / (step / 4)
        cuts.append(start + lo + int(np.argmin(near + 0.05 * near.max() * off)))  # a tie goes to the even step
    return cuts


def _grow_piece(piece: Rect, along: np.ndarray, first: bool, last: bool, ratio: float) -> Rect:
    """Unclip a piece across the line as :func:`unclip` does, and along it only at the
    line's own ends, so that pieces meet without reading a character twice."""
    (cx, cy), (w, h), angle = piece
    distance = (w * h) * ratio / (2 * (w + h))
    own = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    w_is_along = abs(own @ along) >= 0.5
    grow_along = distance * (first + last)
    shift = distance / 2 * (last - first)
    cx, cy = cx + shift * along[0], cy + shift * along[1]
    if w_is_along:
        return (cx, cy), (w + grow_along, h + 2 * distance), angle
    return (cx, cy), (w + 2 * distance, h + grow_along), angle
