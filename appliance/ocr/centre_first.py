"""Centre-first reading for a busy reader: the lines round the frame's centre first.

When a class photographs one problem at once, photos queue for recognition, and on a
worksheet page most of that work is the lines far from the problem the student framed.
While photos wait, the reader reads a page in bands that grow from the row at the
frame's centre (rows of the levelled page, counted out above and below it: a page of
large print and one of small print are read a like number of rows at a time) and stops
as soon as the problem chosen from what is read has ``rows_beyond`` rows of read text
above and below it (the last band, everything, always settles it). Everything after that would only
repeat the choice. A page with columns has its gutters found in all of its boxes before
anything is read (which column a line belongs to is decided from rows far above and
below); each band's layout is given them, checked against what has been read (a gutter
seen in the boxes alone may be none: the last "D" options of a page's problems, set far
right, are no column once read). A page whose way up is still to be settled is
read whole, as is a page of more than ``max_lines`` lines (each band's layout would
cost more than the reading it saves), and a band that offers the student a choice is
read on, as is one (of a page with columns) whose problem is another when its rows are
laid out as they were found (the reader checks that: :mod:`appliance.ocr.reader`).

Only the boxes' geometry is used to plan; what was read decides when to stop.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from appliance.ocr.blocks import BlockParams, Gutters, page_gutters
from appliance.ocr.layout import LayoutParams, TextBox
from appliance.ocr.page import level
from appliance.ocr.result import OcrLine
from appliance.ocr.skew import Skew, measure_skew, printed_across
from appliance.wording.problem_text import NUMBER, is_header, part_number


@dataclass(frozen=True)
class CentreFirstParams:
    # Each band reaches this many rows above and below the row at the frame's centre.
    rows_out: tuple[int, ...] = (2, 3, 4, 6, 9)
    rows_beyond: int = 2  # rows of read text the chosen problem needs above and below it
    # A page of more lines is read whole: each band's layout would cost more than reading
    # it saves (the layout is quadratic in lines; worksheet pages have 10-60).
    max_lines: int = 100


@dataclass(frozen=True)
class ReadingPlan:
    """The order in which to read a page's boxes: ``bands`` of box indices, each holding
    the one before; the last holds every box."""

    bands: tuple[tuple[int, ...], ...]
    centres: tuple[float, ...]  # each box's middle, levelled
    skew: Skew
    unit: float  # median box height
    rows_needed: int = CentreFirstParams.rows_beyond
    gutters: Gutters = ()  # the page's column gutters, found in all of its boxes
    levelled: tuple[TextBox, ...] = ()  # the boxes, levelled, their text not yet known

    def gutters_for(self, band: int, read: Mapping[int, str] | None = None) -> Gutters | None:
        """The gutters to lay out band ``band`` with: the page's, for a band of some of its
        lines on a page with columns, found again with the texts ``read`` so far (box index:
        text); None (found in the lines, as in any whole read) else."""
        if not self.gutters or band == len(self.bands) - 1:
            return None
        if not read:
            return self.gutters
        known = [dataclasses.replace(box, text=read.get(i, "")) for i, box in enumerate(self.levelled)]
        return page_gutters(known, self.unit, BlockParams()) or None

    def settled(self, band: int, lines: tuple[OcrLine, ...], choices: tuple[str, ...],
                read: Mapping[int, str] | None = None) -> bool:
        """Whether the problem chosen from band ``band``'s readings (its ``lines``; ``read``:
        the band's texts by box index) stays chosen when the rest is read."""
        if band == len(self.bands) - 1:
            return True
        if not lines or len(choices) > 1:
            return False
        corners = np.concatenate([np.asarray(line.box, dtype=np.float64) for line in lines])
        ys = self._on_page(corners)[:, 1]
        top, bottom = float(ys.min()), float(ys.max())
        centres = [self.centres[i] for i in self.bands[band]]
        return (self._rows([y for y in centres if y < top]) >= self.rows_needed
                and self._rows([y for y in centres if y > bottom]) >= self.rows_needed
                and not (read and self._part_under_a_stem(band, lines[0], read)))

    def _part_under_a_stem(self, band: int, first: OcrLine, read: Mapping[int, str]) -> bool:
        """The chosen problem starts like a sub-question, "3)", and the rows above it in its
        column go up through its parts to "1)" and then to a line that starts no problem:
        the parts may be those of a stem whose start is not read yet (「…2 s?」 ⏎ "1) Show
        your working."). A "(5)" under another problem's last line is no part of a run."""
        number = part_number(first.text)
        if number is None:
            return False
        corners = self._on_page(np.asarray(first.box, dtype=np.float64))
        x0, x1, middle = corners[:, 0].min(), corners[:, 0].max(), corners[:, 1].mean()
        above = [i for i in self.bands[band] if self.centres[i] < middle - 0.5 * self.unit
                 and self.levelled[i].left < x1 and self.levelled[i].right > x0]
        rows = rows_of([self.centres[i] for i in above], self.unit)
        for row in reversed(rows):  # nearest first
            text = read.get(above[min(row, key=lambda k: self.levelled[above[k]].left)], "")
            starts = NUMBER.match(text) is not None or is_header(text)
            if number == 1:
                return not starts
            if part_number(text) != number - 1:
                return False
            number -= 1
        return number == 1  # up to "1)" and nothing read above it

    def _on_page(self, corners: np.ndarray) -> np.ndarray:
        return corners if self.skew.level else self.skew.to_page(corners)

    def _rows(self, centres: list[float]) -> int:
        return len(rows_of(centres, self.unit))


def rows_of(centres: list[float] | tuple[float, ...], unit: float) -> list[list[int]]:
    """Indices of box middles in rows, top to bottom: a new row where the next middle is
    half a line lower."""
    rows: list[list[int]] = []
    previous = None
    for i in sorted(range(len(centres)), key=lambda i: centres[i]):
        if previous is None or centres[i] - previous > 0.5 * unit:
            rows.append([])
        rows[-1].append(i)
        previous = centres[i]
    return rows


def plan_reading(quads: list[np.ndarray], size: tuple[int, int],
                 params: CentreFirstParams = CentreFirstParams()) -> ReadingPlan:
    """The bands to read ``quads`` (upright photo pixels) in, and the page's gutters."""
    boxes = [TextBox("", 1.0, q) for q in quads]
    skew = measure_skew([q for q, across in zip(quads, printed_across(quads)) if not across], size)
    levelled = level(boxes, skew, size, LayoutParams())
    height = float(size[1])
    unit = statistics.median(b.height for b in levelled) if levelled else 1.0
    centres = tuple(b.centre_y for b in levelled)
    everything = tuple(range(len(quads)))
    bands: list[tuple[int, ...]] = []
    gutters = page_gutters(levelled, unit, BlockParams()) if quads else ()
    rows = rows_of(centres, unit)
    middle = min(range(len(rows)), key=lambda r: min(abs(centres[i] - height / 2) for i in rows[r]), default=0)
    for reach in params.rows_out if 0 < len(quads) <= params.max_lines else ():
        band = tuple(sorted(i for row in rows[max(0, middle - reach):middle + reach + 1] for i in row))
        if len(band) == len(quads):
            break
        if not bands or len(band) > len(bands[-1]):
            bands.append(band)
    return ReadingPlan((*bands, everything), centres, skew, unit, params.rows_beyond, gutters, tuple(levelled))
