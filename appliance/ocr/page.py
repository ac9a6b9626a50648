"""Recognised boxes → the framed problem's text: the layout step of every OCR pipeline.

Unreadable lines and the neighbouring line cut by the frame are dropped
(:func:`layout.keep_question_lines`), a slanted page is levelled (:mod:`skew`), the rest
is grouped into problems and headers (:mod:`blocks`), and the problem the student framed
is chosen (:mod:`select`).
"""

from __future__ import annotations

from dataclasses import replace

from appliance.ocr.blocks import BlockParams, find_blocks
from appliance.ocr.layout import Layout, LayoutParams, TextBox, frame_sides, keep_question_lines, mean_confidence
from appliance.ocr.result import OcrLine
from appliance.ocr.select import SelectParams, select_problem
from appliance.ocr.skew import Skew, measure_skew


def arrange_page(boxes: list[TextBox], size: tuple[int, int], params: LayoutParams = LayoutParams(),
                 block_params: BlockParams = BlockParams(), select_params: SelectParams = SelectParams()) -> Layout:
    """``size`` is the upright photo's (width, height)."""
    kept = keep_question_lines(boxes, size, params)
    skew = measure_skew([b.quad for b in kept], size)
    level = [replace(b, quad=skew.to_page(b.quad), sides=frame_sides(b.quad, size, params.edge_margin))
             for b in kept] if not skew.level else kept
    selection = select_problem(find_blocks(level, size, block_params), size, select_params)
    lines = tuple(in_photo(line, skew) for line in selection.lines)
    return Layout(selection.text, lines, mean_confidence(lines), len(boxes) - len(kept),
                  page_text=selection.page_text, choices=selection.choices)


def in_photo(line: OcrLine, skew: Skew) -> OcrLine:
    """A line of the levelled page with its box back in photo pixels."""
    if skew.level:
        return line
    corners = skew.to_photo(line.box)
    return OcrLine(line.text, line.confidence, tuple((float(x), float(y)) for x, y in corners.tolist()))
