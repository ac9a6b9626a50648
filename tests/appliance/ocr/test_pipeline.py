"""The PP-OCR pipeline's last step: read lines laid out into the question text."""

from __future__ import annotations

import numpy as np

from appliance.ocr.pipeline import FoundLines, PpOcrPipeline
from appliance.ocr.rec import Reading
from appliance.ocr.timing import Stopwatch


def _quad(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)


def _two_rows_of_two_columns():
    """Two problems of two lines side by side, the left one at the frame's centre: too few
    rows to see the gutter in, so laid out as found their rows run across both columns."""
    lines = [("5. 左栏的题目第一行", (60, 640, 460, 700)), ("左栏的题目第二行是多少？", (60, 710, 460, 770)),
             ("6. 右栏的题目第一行", (540, 640, 940, 700)), ("右栏的题目第二行是多少？", (540, 710, 940, 770))]
    pixels = np.full((1400, 1000, 3), 255, np.uint8)
    quads = [_quad(*box) for _, box in lines]
    crops = [np.full((48, 320, 3), 255, np.uint8) for _ in lines]
    page = FoundLines(pixels, quads, crops, 0, Stopwatch())
    return page, [Reading(text, 0.95) for text, _ in lines]


def test_the_read_boxes_are_laid_out_in_given_gutters_or_as_found():
    pipeline = PpOcrPipeline(None, None, None)
    page, readings = _two_rows_of_two_columns()
    boxes = pipeline.read_boxes(page, readings)
    assert [b.text for b in boxes] == [r.text for r in readings]
    in_columns = pipeline.lay_out(page, boxes, ((460.0, 540.0),))
    assert in_columns.text == "左栏的题目第一行左栏的题目第二行是多少？"
    assert pipeline.lay_out(page, boxes).text != in_columns.text  # rows run across the gutter
    assert pipeline.finish(page, readings).text == pipeline.lay_out(page, boxes).text
