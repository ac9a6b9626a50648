"""Text recognition: PP-OCR CTC recogniser over straightened line crops, batched.

Crops are 48 px tall and as wide as their aspect needs. They are sorted by width and
cut into batches whose padding stays small (the model's cost grows with batch ×
widest crop), then decoded greedily: best class per time step, repeats collapsed,
blanks dropped; a line's confidence is the mean probability of its kept characters.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engines.backend import InferenceBackend

HEIGHT = 48
STRIDE = 8  # input columns per output time step


@dataclass(frozen=True)
class RecParams:
    max_batch: int = 16
    # A batch may hold at most this share of padding columns.
    max_padding: float = 0.25
    # Batches narrower than this are padded to it (PaddleOCR trains on 320-wide inputs).
    min_width: int = 320


@dataclass(frozen=True)
class Reading:
    text: str
    confidence: float
    # Output time step of each character (column ``STRIDE * step`` of the 48-px crop).
    steps: tuple[int, ...] = ()


class TextRecognizer:
    def __init__(self, backend: InferenceBackend, characters: list[str], params: RecParams = RecParams()):
        self.backend = backend
        self.characters = np.array(characters, dtype=object)
        self.params = params
        self._input = backend.input_names[0]
        self._output = backend.output_names[0]

    def read(self, crops: list[np.ndarray]) -> list[Reading]:
        """One reading per crop (H=48 BGR uint8), in the order given."""
        readings: list[Reading | None] = [None] * len(crops)
        for batch in plan_batches([c.shape[1] for c in crops], self.params):
            tensor = to_batch([crops[i] for i in batch], self.params.min_width)
            probs = self.backend.run({self._input: tensor})[self._output]
            for row, index in enumerate(batch):
                steps = max(1, -(-crops[index].shape[1] // STRIDE))
                readings[index] = self.decode(probs[row, :steps])
        return readings  # type: ignore[return-value]

    def decode(self, probs: np.ndarray) -> Reading:
        best = probs.argmax(axis=1)
        keep = best != 0
        keep[1:] &= best[1:] != best[:-1]
        if not keep.any():
            return Reading("", 0.0)
        text = "".join(self.characters[best[keep]])
        return Reading(text, float(probs[keep, best[keep]].mean()), tuple(np.flatnonzero(keep).tolist()))


def plan_batches(widths: list[int], params: RecParams) -> list[list[int]]:
    """Indices grouped by similar width, widest first, each batch within the padding budget."""
    order = sorted(range(len(widths)), key=lambda i: widths[i], reverse=True)
    batches: list[list[int]] = []
    for index in order:
        current = batches[-1] if batches else None
        if current and len(current) < params.max_batch:
            columns = widths[current[0]] * (len(current) + 1)
            used = sum(widths[i] for i in current) + widths[index]
            if 1 - used / columns <= params.max_padding:
                current.append(index)
                continue
        batches.append([index])
    return batches


def to_batch(crops: list[np.ndarray], min_width: int = 0) -> np.ndarray:
    """NCHW float32 in [-1, 1]; narrower crops padded on the right with 0 (mid-grey)."""
    width = max(min_width, *(c.shape[1] for c in crops))
    batch = np.zeros((len(crops), 3, HEIGHT, width), np.float32)
    for row, crop in enumerate(crops):
        batch[row, :, :, : crop.shape[1]] = cv2.dnn.blobFromImage(
            crop, scalefactor=1 / 127.5, mean=(127.5, 127.5, 127.5), swapRB=False)[0]
    return batch
