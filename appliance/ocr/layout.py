"""Recognised boxes → lines: filtering, rows, joining pieces of text.

1. Drop what is not text of the page: empty or low-confidence readings, and lines cut
   by the top or bottom edge of the frame (the neighbouring question's line half in
   frame: it touches the edge and is clearly shorter than the page's other lines).
2. A line the detector cut where the page bends (a book's page curving to its spine) is
   one box again: the pieces that go on from one another's ends (:func:`chain_bent`).
3. Rows: boxes whose vertical centres lie within half a line height form one row,
   read left to right and merged into one line.
4. Pieces are joined with nothing between CJK text (Chinese does not space its words)
   and with one space between Latin words, numbers or operators. Recognised characters
   (formulas, symbols) are kept as they are.

Which rows make one problem, and which problem the student framed: ``blocks.py``,
``select.py``; the whole step: ``page.py``.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from appliance.ocr.geometry import quad_size
from appliance.ocr.result import LineEvidence, OcrLine
from appliance.wording.problem_text import join


@dataclass(frozen=True)
class LayoutParams:
    min_confidence: float = 0.5
    # A line touching the top/bottom edge and shorter than this share of the median
    # height of the lines clear of the edges is the neighbouring text cut by the frame.
    cut_height: float = 0.75
    edge_margin: float = 4.0  # pixels
    # A box goes on from another when it starts within this share of a line height of the
    # other's end (along it and across it)... and, for the pieces to be one bent line, one
    # of them turns from the last by at least ``bend_least`` degrees (at most ``bend_most``),
    # both at least ``bend_length`` line heights long (a short box's slant says little).
    goes_on_within: float = 0.3
    bend_least: float = 3.0
    bend_most: float = 25.0
    bend_length: float = 2.5


@dataclass(frozen=True)
class TextBox:
    text: str
    confidence: float
    quad: np.ndarray  # upright photo pixels (levelled, on a slanted page: ``skew.py``)
    # The frame's sides ("top", "bottom", "left", "right") the box touches in the photo;
    # None: told from ``quad`` (a levelled box's corners no longer show it).
    sides: frozenset[str] | None = None
    # (read, runner-up) characters the recogniser nearly read otherwise (``Reading.look_alikes``).
    look_alikes: tuple[tuple[str, str], ...] = ()
    evidence: tuple[LineEvidence, ...] = ()  # the recogniser's own reading of the box (its pieces)

    # The box's extents, worked out once: the layout asks for them many times.
    @cached_property
    def height(self) -> float:
        return quad_size(self.quad)[1]

    @cached_property
    def top(self) -> float:
        return float(self.quad[:, 1].min())

    @cached_property
    def bottom(self) -> float:
        return float(self.quad[:, 1].max())

    @cached_property
    def centre_y(self) -> float:
        return float(self.quad[:, 1].mean())

    @cached_property
    def left(self) -> float:
        return float(self.quad[:, 0].min())

    @cached_property
    def right(self) -> float:
        return float(self.quad[:, 0].max())


@dataclass(frozen=True)
class Layout:
    text: str
    lines: tuple[OcrLine, ...]
    confidence: float  # character-weighted mean over the kept lines; 0 when none
    dropped: int
    page_text: str = ""  # everything read on the page (the problem chosen from it is ``text``)
    choices: tuple[str, ...] = ()  # problems with equal claim to be the one framed
    # The look-alikes of the chosen problem's characters (``TextBox.look_alikes``).
    look_alikes: tuple[tuple[str, str], ...] = ()
    evidence: tuple[LineEvidence, ...] = ()  # its boxes' ``TextBox.evidence``, in reading order


def mean_confidence(lines: tuple[OcrLine, ...]) -> float:
    chars = [max(len(line.text), 1) for line in lines]
    return round(sum(c * line.confidence for c, line in zip(chars, lines)) / max(sum(chars), 1), 4)


def keep_question_lines(boxes: list[TextBox], size: tuple[int, int], params: LayoutParams) -> list[TextBox]:
    readable = [b for b in boxes if b.text.strip() and b.confidence >= params.min_confidence]
    inner = [b for b in readable if not at_edge(b, size, params)]
    if not inner:
        return readable
    median = statistics.median(b.height for b in inner)
    return [b for b in readable if not (at_edge(b, size, params) and b.height < params.cut_height * median)]


def cut_by_frame(quads: list[np.ndarray], size: tuple[int, int], params: LayoutParams) -> list[bool]:
    """Which detected lines :func:`keep_question_lines` would drop as cut by the frame,
    told from their boxes alone (before recognition, so they are not read in vain): a
    line at the top or bottom edge shorter than ``cut_height`` of the median height of the
    lines clear of the edges. Unread, the median counts every inner box, not only the
    readable ones."""
    boxes = [TextBox("", 1.0, q) for q in quads]
    inner = [b.height for b in boxes if not at_edge(b, size, params)]
    if not inner:
        return [False] * len(boxes)
    median = statistics.median(inner)
    return [at_edge(b, size, params) and b.height < params.cut_height * median for b in boxes]


def frame_sides(quad: np.ndarray, size: tuple[int, int], margin: float) -> frozenset[str]:
    """The sides of a ``size`` (width, height) frame that a box in its pixels touches."""
    width, height = size
    xs, ys = quad[:, 0], quad[:, 1]
    touched = (("top", ys.min() <= margin), ("bottom", ys.max() >= height - 1 - margin),
               ("left", xs.min() <= margin), ("right", xs.max() >= width - 1 - margin))
    return frozenset(side for side, hit in touched if hit)


def sides_of(box: TextBox, size: tuple[int, int], margin: float) -> frozenset[str]:
    return box.sides if box.sides is not None else frame_sides(box.quad, size, margin)


def at_edge(box: TextBox, size: tuple[int, int], params: LayoutParams) -> bool:
    """Touches the top or bottom edge of the frame."""
    return bool(sides_of(box, size, params.edge_margin) & {"top", "bottom"})


def chain_bent(boxes: list[TextBox], params: LayoutParams) -> list[TextBox]:
    """Each run of boxes that go on from one another's ends with a bend between two of them,
    as one box: its text joined, its corners the first piece's start and the last one's end
    (unless that chord leaves the first piece's height: a line curving on and on)."""
    after, turns = _goes_on(boxes, params)
    chained, used = [], set()
    for i in [i for i in range(len(boxes)) if i not in after.values()] + list(range(len(boxes))):
        run = [i] if i not in used else []
        while run and run[-1] in after and after[run[-1]] not in used | set(run):
            run.append(after[run[-1]])
        used.update(run)
        bent = any(turns[k] >= params.bend_least for k in run[:-1])
        merged = _merged([boxes[k] for k in run]) if bent else None
        # a line curving so far that its chord leaves its first piece's height stays in pieces
        level = merged is not None and abs(merged.centre_y - boxes[i].centre_y) <= boxes[i].height / 2
        chained += [merged] if level else [boxes[k] for k in run]
    return chained


def _goes_on(boxes: list[TextBox], params: LayoutParams) -> tuple[dict[int, int], dict[int, float]]:
    """For each box, the first other box that starts at its end (within ``goes_on_within``
    line heights, along and across it, turned by at most ``bend_most`` degrees, of a like
    height), and the degrees it turns there (0 unless both are ``bend_length`` long)."""
    if len(boxes) < 2:
        return {}, {}
    quads = np.array([b.quad for b in boxes], np.float64)
    along = quads[:, 1] - quads[:, 0]
    along /= np.maximum(np.linalg.norm(along, axis=1), 1e-6)[:, None]
    gap = ((quads[:, 0] + quads[:, 3]) / 2)[None] - ((quads[:, 1] + quads[:, 2]) / 2)[:, None]  # [i, j]: j's start - i's end
    ahead = (gap * along[:, None]).sum(axis=2)
    aside = np.abs(gap[..., 0] * along[:, None, 1] - gap[..., 1] * along[:, None, 0])
    heights = np.array([b.height for b in boxes])
    within, taller = params.goes_on_within * heights[:, None], heights[None] / heights[:, None]
    cosine = np.clip(along @ along.T, -1.0, 1.0)
    goes = ((-2 * within <= ahead) & (ahead <= within) & (aside <= within) & (0.7 <= taller) & (taller <= 1.4)
            & (cosine >= math.cos(math.radians(params.bend_most))))
    np.fill_diagonal(goes, False)
    long = np.array([quad_size(b.quad)[0] / b.height for b in boxes]) >= params.bend_length
    after = {int(i): int(goes[i].argmax()) for i in np.flatnonzero(goes.any(axis=1))}
    turns = {i: math.degrees(math.acos(cosine[i, j])) if long[i] and long[j] else 0.0 for i, j in after.items()}
    return after, turns


def _merged(parts: list[TextBox]) -> TextBox:
    text = parts[0].text
    for part in parts[1:]:
        text = join(text, part.text)
    quad = np.array([parts[0].quad[0], parts[-1].quad[1], parts[-1].quad[2], parts[0].quad[3]], np.float32)
    confidence = float(np.average([p.confidence for p in parts], weights=[max(len(p.text), 1) for p in parts]))
    return TextBox(text, confidence, quad, look_alikes=sum((p.look_alikes for p in parts), ()),
                   evidence=sum((p.evidence for p in parts), ()))


def group_rows(boxes: list[TextBox]) -> list[list[TextBox]]:
    rows: list[list[TextBox]] = []
    centres: list[float] = []  # the last row's boxes' centres and heights
    heights: list[float] = []
    for box in sorted(boxes, key=lambda b: b.centre_y):
        if rows and abs(box.centre_y - math.fsum(centres) / len(centres)) \
                < 0.5 * min(box.height, math.fsum(heights) / len(heights)):
            rows[-1].append(box)
        else:
            rows.append([box])
            centres, heights = [], []
        centres.append(box.centre_y)
        heights.append(box.height)
    return [sorted(row, key=lambda b: b.left) for row in rows]


def row_height(row: list[TextBox]) -> float:
    return statistics.fmean(b.height for b in row)


def merge_row(row: list[TextBox]) -> tuple[OcrLine, tuple[float, float, float]]:
    """One line from a row's boxes, plus (top, bottom, height) for paragraph joining."""
    text = row[0].text.strip()
    for box in row[1:]:
        text = join(text, box.text.strip())
    points = np.concatenate([b.quad for b in row])
    x0, y0 = points.min(axis=0).tolist()
    x1, y1 = points.max(axis=0).tolist()
    chars = [max(len(b.text.strip()), 1) for b in row]
    confidence = float(np.average([b.confidence for b in row], weights=chars))
    line = OcrLine(text, confidence, ((x0, y0), (x1, y0), (x1, y1), (x0, y1)))
    return line, (y0, y1, row_height(row))
