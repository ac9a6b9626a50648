"""Recognised boxes → the framed problem's text: the layout step of every OCR pipeline.

Unreadable lines and the neighbouring line cut by the frame are dropped
(:func:`layout.keep_question_lines`), a slanted page is levelled (:mod:`skew`), the rest
is grouped into problems and headers (:mod:`blocks`), and the problem the student framed
is chosen (:mod:`select`).
"""

from __future__ import annotations

import statistics
from dataclasses import replace

from appliance.ocr.blocks import BlockParams, Gutters, find_blocks, page_gutters
from appliance.ocr.layout import Layout, LayoutParams, TextBox, chain_bent, frame_sides, keep_question_lines, mean_confidence
from appliance.ocr.result import OcrLine
from appliance.ocr.select import SelectParams, select_problem
from appliance.ocr.skew import Skew, measure_skew, printed_across

#: How far the page's columns may lean with its lines (0: upright, 1: turned as the lines are).
LEANS = (0.0, 0.5, 1.0)


def arrange_page(boxes: list[TextBox], size: tuple[int, int], params: LayoutParams = LayoutParams(),
                 block_params: BlockParams = BlockParams(), select_params: SelectParams = SelectParams(),
                 gutters: Gutters | None = None) -> Layout:
    """``size`` is the upright photo's (width, height). ``gutters``: the page's column
    gutters, known from all of its lines when only some were read (levelled with the
    columns upright: no lean); None: found in ``boxes``."""
    kept = chain_bent(keep_question_lines(boxes, size, params), params)
    kept = [b for b, across in zip(kept, printed_across([b.quad for b in kept])) if not across]
    skew = measure_skew([b.quad for b in kept], size)
    if gutters is None:
        skew = upright_columns(kept, skew, size, params, block_params)
    levelled = level(kept, skew, size, params)
    selection = select_problem(find_blocks(levelled, size, block_params, gutters), size, select_params)
    lines = tuple(in_photo(line, skew) for line in selection.lines)
    return Layout(selection.text, lines, mean_confidence(lines), len(boxes) - len(kept),
                  page_text=selection.page_text, choices=selection.choices,
                  **what_the_recogniser_saw(boxes_within(levelled, selection.lines)))


def what_the_recogniser_saw(boxes: list[TextBox]) -> dict:
    """The chosen problem's look-alikes and evidence (``Layout``'s), from its boxes in order."""
    return {"look_alikes": tuple(dict.fromkeys(pair for box in boxes for pair in box.look_alikes)),
            "evidence": tuple(e for box in boxes for e in box.evidence)}


def boxes_within(boxes: list[TextBox], lines: tuple[OcrLine, ...]) -> list[TextBox]:
    """The boxes whose centre lies in one of ``lines`` (same coordinates): line by line, each
    line's left to right."""
    centres = [box.quad.mean(axis=0) for box in boxes]
    return [box for line in lines for box in sorted(
        (b for b, (x, y) in zip(boxes, centres) if _holds(line.box, x, y)), key=lambda b: b.left)]


def _holds(corners: tuple[tuple[float, float], ...], x: float, y: float) -> bool:
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return min(xs) <= x <= max(xs) and min(ys) <= y <= max(ys)


def upright_columns(boxes: list[TextBox], skew: Skew, size: tuple[int, int], params: LayoutParams,
                    block_params: BlockParams) -> Skew:
    """``skew`` with the lean (:class:`Skew`) under which the page shows its widest gutter
    between columns: a page turned on the desk has columns that lean with its lines, a
    page seen in perspective can have upright columns under sloping lines. Without a
    gutter at any lean, none (lines levelled, x kept)."""
    if skew.level or not boxes:
        return skew
    unit = statistics.median(b.height for b in boxes)
    if max(abs(skew.drift(y)) for y in (0.0, float(size[1]))) < 0.25 * unit:
        return skew  # the columns lean too little to matter
    widths = {lean: widest_gutter(level(boxes, replace(skew, lean=lean), size, params), unit, block_params)
              for lean in LEANS}
    return replace(skew, lean=max(LEANS, key=lambda lean: (widths[lean], -lean)))


def widest_gutter(boxes: list[TextBox], unit: float, block_params: BlockParams) -> float:
    return max((end - start for start, end in page_gutters(boxes, unit, block_params)), default=0.0)


def level(boxes: list[TextBox], skew: Skew, size: tuple[int, int], params: LayoutParams) -> list[TextBox]:
    """The boxes on the levelled page (which sides of the frame they touch from the photo)."""
    if skew.level:
        return boxes
    return [replace(b, quad=skew.to_page(b.quad), sides=frame_sides(b.quad, size, params.edge_margin)) for b in boxes]


def in_photo(line: OcrLine, skew: Skew) -> OcrLine:
    """A line of the levelled page with its box back in photo pixels."""
    if skew.level:
        return line
    corners = skew.to_photo(line.box)
    return OcrLine(line.text, line.confidence, tuple((float(x), float(y)) for x, y in corners.tolist()))
