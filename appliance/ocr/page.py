"""Recognised boxes → the framed problem's text: the layout step of every OCR pipeline.

Unreadable lines and the neighbouring line cut by the frame are dropped
(:func:`layout.keep_question_lines`), the rest is grouped into problems and headers
(:mod:`blocks`), and the problem the student framed is chosen (:mod:`select`).
"""

from __future__ import annotations

from appliance.ocr.blocks import BlockParams, find_blocks
from appliance.ocr.layout import Layout, LayoutParams, TextBox, keep_question_lines, mean_confidence
from appliance.ocr.select import SelectParams, select_problem


def arrange_page(boxes: list[TextBox], size: tuple[int, int], params: LayoutParams = LayoutParams(),
                 block_params: BlockParams = BlockParams(), select_params: SelectParams = SelectParams()) -> Layout:
    """``size`` is the upright photo's (width, height)."""
    kept = keep_question_lines(boxes, size[1], params)
    selection = select_problem(find_blocks(kept, size, block_params), size, select_params)
    return Layout(selection.text, selection.lines, mean_confidence(selection.lines), len(boxes) - len(kept),
                  page_text=selection.page_text, choices=selection.choices)
