"""Which way up is the page: a quarter turn from the boxes' shape, a half turn from the
PP-OCR angle classifier.

A printed question is set in one direction, so orientation is decided once per page,
not per line: text lines are wide, so mostly-tall boxes mean the page is sideways
(turn it 90°); then the classifier looks at the few longest lines only and a page
whose lines read as upside down on average is turned 180°. That replaces PaddleOCR's
per-line classification of every line with one small batch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from appliance.ocr.geometry import quad_size
from engines.backend import InferenceBackend

SHAPE = (48, 192)  # height, width the classifier takes


@dataclass(frozen=True)
class ClsParams:
    sample: int = 4  # longest lines classified per page
    threshold: float = 0.5  # mean probability of "180°" above which the page is turned
    # With a mean probability of "180°" from ``confirm_from`` up to ``confirm_to``, the
    # recogniser decides: the page is read both ways up and turned only if its longest
    # lines read with more confidence turned (the classifier sees a long line
    # squeezed into 192 px, and misjudged upright English worksheets at 0.57–0.82; every
    # page it gave 0.9 or more was upside down). Outside that band its verdict stands, and
    # a page is read once.
    confirm_from: float = 0.3
    confirm_to: float = 0.9
    confirm_sample: int = 3


def is_sideways(quads: list[np.ndarray]) -> bool:
    """True when the boxes are mostly taller than wide (the text runs vertically)."""
    tall = wide = 0.0
    for quad in quads:
        width, height = quad_size(quad)
        if height > 1.5 * width:
            tall += height
        elif width > 1.5 * height:
            wide += width
    return tall > wide


class AngleClassifier:
    def __init__(self, backend: InferenceBackend, params: ClsParams = ClsParams()):
        self.backend = backend
        self.params = params
        self._input = backend.input_names[0]
        self._output = backend.output_names[0]

    def upside_down(self, crops: list[np.ndarray]) -> tuple[bool, float]:
        """Decide from the longest of these line crops; returns (turn it, mean P(180°))."""
        if not crops:
            return False, 0.0
        longest = sorted(crops, key=lambda c: c.shape[1], reverse=True)[: self.params.sample]
        probs = self.backend.run({self._input: to_batch(longest)})[self._output]
        p180 = float(probs[:, 1].mean())
        return p180 > self.params.threshold, p180


def reads_better_turned(crops: list[np.ndarray], upright: list, turned: list, sample: int = 3) -> bool:
    """True when the ``sample`` longest of these crops read (``upright``, ``turned``: one
    reading with a ``confidence`` per crop, as they are and turned 180°) with a higher
    summed confidence turned."""
    longest = sorted(range(len(crops)), key=lambda i: crops[i].shape[1], reverse=True)[:sample]
    return sum(turned[i].confidence for i in longest) > sum(upright[i].confidence for i in longest)


def to_batch(crops: list[np.ndarray]) -> np.ndarray:
    """Each crop fitted into 48×192 (squeezed if longer, as PaddleOCR does), [-1, 1], padded."""
    height, width = SHAPE
    batch = np.zeros((len(crops), 3, height, width), np.float32)
    for row, crop in enumerate(crops):
        fitted_w = min(width, math.ceil(height * crop.shape[1] / crop.shape[0]))
        resized = cv2.resize(crop, (fitted_w, height), interpolation=cv2.INTER_AREA)
        batch[row, :, :, :fitted_w] = cv2.dnn.blobFromImage(
            resized, scalefactor=1 / 127.5, mean=(127.5, 127.5, 127.5), swapRB=False)[0]
    return batch
