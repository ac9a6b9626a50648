"""Text recognition: PP-OCR CTC recogniser over straightened line crops, batched.

Crops are 48 px tall and as wide as their aspect needs. They are sorted by width and
cut into batches whose padding stays small (the model's cost grows with batch ×
widest crop), then decoded greedily: best class per time step, repeats collapsed,
blanks dropped; a line's confidence is the mean probability of its kept characters.

With ``threads`` > 1 and a backend that says it is thread-safe (ONNX Runtime), the
batches of one call run on that many threads at once, each on its own core: one
photo's lines are then cut into at least that many batches. Batches never mix photos and
their plan does not depend on the load, so a photo always reads the same.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import cv2
import numpy as np

from engines.backend import InferenceBackend

HEIGHT = 48
STRIDE = 8  # input columns per output time step


@dataclass(frozen=True)
class RecParams:
    max_batch: int = 16
    # A batch may hold at most this share of padding columns (0.25 and a floor of 320
    # columns before: a quarter to two fifths of the columns read on worksheet photos
    # were padding).
    max_padding: float = 0.1
    # Batches narrower than this are padded to it: a label or a short answer line alone
    # reads as well at 160 columns as at the 320 PaddleOCR trains on (docs/OCR.md).
    min_width: int = 160
    # Batches of one call run on this many threads (only on a thread-safe backend)...
    threads: int = 1
    # ...when it holds at least this many lines: splitting a photo of two or three lines
    # saved little and slowed the next photo's detection in a classroom burst.
    parallel_min: int = 6
    # A kept character whose runner-up class has at least this probability gets it as a
    # look-alike (``Reading.look_alikes``): what the search may take it for, as a camera
    # reads 语 as 游 or g as q.
    look_alike_least: float = 0.15
    # A step keeps each class of at least this probability in ``Reading.odds`` (a sure step
    # only its best): what a bank question is weighed against.
    odds_least: float = 0.005
    odds_most: int = 4


@dataclass(frozen=True)
class Reading:
    text: str
    confidence: float
    # Output time step of each character (column ``STRIDE * step`` of the 48-px crop).
    steps: tuple[int, ...] = ()
    # (read, runner-up) for each character the recogniser nearly read as another; ("", c)
    # for a character c it nearly read where it read none.
    look_alikes: tuple[tuple[str, str], ...] = ()
    # Each output step's likely classes, (character, probability), most likely first; "": the blank.
    odds: tuple[tuple[tuple[str, float], ...], ...] = ()


@dataclass(frozen=True)
class PaddedLines:
    """Some of a photo's line crops, each to be read padded to ``widths`` (the width it
    gets when the photo's lines are read together: :meth:`TextRecognizer.pad_widths`),
    so that reading a photo part by part reads each line as reading it whole would."""

    crops: list[np.ndarray]
    widths: list[int]

    def __len__(self) -> int:
        return len(self.crops)


class TextRecognizer:
    def __init__(self, backend: InferenceBackend, characters: list[str], params: RecParams = RecParams()):
        self.backend = backend
        self.characters = np.array(characters, dtype=object)
        self._classes = np.array(["", *characters[1:]], dtype=object)  # class 0 is the blank
        self.params = params
        self._input = backend.input_names[0]
        self._output = backend.output_names[0]
        self.threads = params.threads if getattr(backend, "thread_safe", False) else 1
        self._pool = ThreadPoolExecutor(self.threads, "ocr-rec") if self.threads > 1 else None

    def read(self, crops: list[np.ndarray], parallel: bool = True) -> list[Reading]:
        """One reading per crop (H=48 BGR uint8) of one photo, in the order given."""
        return self.read_photos([crops], parallel)[0]

    def read_photos(self, photos: list[list[np.ndarray] | PaddedLines], parallel: bool = True) -> list[list[Reading]]:
        """One reading per crop of each photo. A photo's batches are planned from its own
        crops alone: a line is read padded to the widest crop of its batch, so a photo's
        text never depends on the photos read with it nor on the load. ``parallel``: the
        batches may run on :attr:`threads` threads (False while the other cores are busy;
        the plan is the same either way). Lines given as :class:`PaddedLines` are read at
        their given widths, in batches of lines of one width."""
        jobs = []
        for number, lines in enumerate(photos):
            jobs += [(number, batch, width) for batch, width in self._plan(lines)]
        spread = parallel and self._pool is not None and len(jobs) > 1 and any(
            len(lines) >= self.params.parallel_min for lines in photos)
        run = self._pool.map if spread else map
        readings: list[list[Reading | None]] = [[None] * len(lines) for lines in photos]
        crops = [lines.crops if isinstance(lines, PaddedLines) else lines for lines in photos]
        for (number, batch, _), rows in zip(jobs, run(
                lambda job: self.read_batch([crops[job[0]][i] for i in job[1]], job[2]), jobs)):
            for index, reading in zip(batch, rows):
                readings[number][index] = reading
        return readings  # type: ignore[return-value]

    def pad_widths(self, crops: list[np.ndarray]) -> list[int]:
        """The width each of one photo's crops is padded to when they are read together."""
        widths = [0] * len(crops)
        for batch, _ in self._plan(crops):
            for index in batch:
                widths[index] = max(self.params.min_width, *(crops[i].shape[1] for i in batch))
        return widths

    def _plan(self, lines: list[np.ndarray] | PaddedLines) -> list[tuple[list[int], int]]:
        """(indices, width padded to; 0: the batch's widest) of each batch of one photo's lines."""
        if isinstance(lines, PaddedLines):
            by_width: dict[int, list[int]] = {}
            for index, width in enumerate(lines.widths):
                by_width.setdefault(width, []).append(index)
            most = self.params.max_batch
            return [(group[i:i + most], width) for width, group in sorted(by_width.items(), reverse=True)
                    for i in range(0, len(group), most)]
        threads = self.threads if len(lines) >= self.params.parallel_min else 1
        return [(batch, 0) for batch in plan_batches([c.shape[1] for c in lines], self.params, threads)]

    def read_batch(self, crops: list[np.ndarray], width: int = 0) -> list[Reading]:
        """One backend run over crops of similar width (padded to ``width`` when it is wider)."""
        probs = self.backend.run({self._input: to_batch(crops, max(width, self.params.min_width))})[self._output]
        return [self.decode(probs[row, :max(1, -(-crop.shape[1] // STRIDE))]) for row, crop in enumerate(crops)]

    def decode(self, probs: np.ndarray) -> Reading:
        best = probs.argmax(axis=1)
        keep = best != 0
        keep[1:] &= best[1:] != best[:-1]
        if not keep.any():
            return Reading("", 0.0)
        text = "".join(self.characters[best[keep]])
        return Reading(text, float(probs[keep, best[keep]].mean()), tuple(np.flatnonzero(keep).tolist()),
                       self.look_alikes(probs[keep], best[keep]) + self.nearly_kept(probs, best), self.odds(probs, best))

    def odds(self, probs: np.ndarray, best: np.ndarray) -> tuple[tuple[tuple[str, float], ...], ...]:
        """Each step's likeliest classes (up to ``odds_most``) of at least ``odds_least``
        probability, most likely first."""
        sure = probs[np.arange(len(best)), best]
        steps = [[(ch, p)] for ch, p in zip(self._classes[best].tolist(), sure.tolist())]
        doubted = np.flatnonzero(sure < 1.0 - self.params.odds_least)
        others, rows = probs[doubted], np.arange(len(doubted))
        others[rows, best[doubted]] = 0.0
        for _ in range(self.params.odds_most - 1):  # the runner-up, then the next...
            cls = others.argmax(axis=1)
            p = others[rows, cls]
            for row in np.flatnonzero(p >= self.params.odds_least):
                steps[doubted[row]].append((self._classes[cls[row]], float(p[row])))
            others[rows, cls] = 0.0
        return tuple(map(tuple, steps))

    def look_alikes(self, kept: np.ndarray, chosen: np.ndarray) -> tuple[tuple[str, str], ...]:
        """(character, runner-up) where the runner-up, not the blank, came close."""
        doubted = kept[np.arange(len(chosen)), chosen] < 1.0 - self.params.look_alike_least  # else none came close
        if not doubted.any():
            return ()
        chosen = chosen[doubted]
        second, close = self._runners_up(kept[doubted], chosen)
        return tuple(dict.fromkeys(zip(self.characters[chosen[close]].tolist(), self.characters[second[close]].tolist())))

    def nearly_kept(self, probs: np.ndarray, best: np.ndarray) -> tuple[tuple[str, str], ...]:
        """("", character) for a character that came close at a step read as the blank: one
        the reading may have dropped (the lowered n of aₙ). Not the character read before or
        after the step, whose tail or head such a step is."""
        steps = np.flatnonzero((best == 0) & (probs[:, 0] < 1.0 - self.params.look_alike_least))
        read = np.flatnonzero(best != 0)
        if not len(steps) or not len(read):
            return ()
        second, close = self._runners_up(probs[steps], best[steps])
        at = np.searchsorted(read, steps)  # the first character read after each step
        before = best[read[np.maximum(at - 1, 0)]]
        after = best[read[np.minimum(at, len(read) - 1)]]
        dropped = close & (second != before) & (second != after)
        return tuple(dict.fromkeys(("", ch) for ch in self.characters[second[dropped]].tolist()))

    def _runners_up(self, rows: np.ndarray, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's best class other than ``chosen`` and the blank, and whether it reached
        ``look_alike_least``."""
        others = rows.copy()
        others[np.arange(len(chosen)), chosen] = 0.0
        others[:, 0] = 0.0  # the blank: a character perhaps not there is no look-alike
        second = others.argmax(axis=1)
        return second, others[np.arange(len(second)), second] >= self.params.look_alike_least


#: A ring nearly read (at least this probability) before a line's first character is its
#: circled label, faint or under a pen's ring: 「⑪ 求 24 和 36…」 read 「求 24 和 36…」.
RING_NEARLY_READ = 0.3
_RINGS = frozenset(map(chr, range(0x2460, 0x2474)))


def with_ring_nearly_read(reading: Reading) -> Reading:
    """The reading with the circled number it nearly read before its first character (:data:`RING_NEARLY_READ`)."""
    if not reading.steps or reading.text[:1] in _RINGS:
        return reading
    rings = [(p, ch, step) for step, odds in enumerate(reading.odds[:reading.steps[0]])
             for ch, p in odds if ch in _RINGS and p >= RING_NEARLY_READ]
    return replace(reading, text=max(rings)[1] + reading.text, steps=(max(rings)[2], *reading.steps)) if rings else reading


def plan_batches(widths: list[int], params: RecParams, threads: int = 1) -> list[list[int]]:
    """Indices grouped by similar width, widest first, each batch within the padding budget;
    with ``threads`` > 1 no batch holds more than its share of the lines, so every thread
    gets one."""
    order = sorted(range(len(widths)), key=lambda i: widths[i], reverse=True)
    most = min(params.max_batch, math.ceil(len(widths) / threads)) if threads > 1 else params.max_batch
    batches: list[list[int]] = []
    for index in order:
        current = batches[-1] if batches else None
        if current and len(current) < most:
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
