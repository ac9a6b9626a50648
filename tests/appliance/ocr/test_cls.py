"""Which way up: the angle classifier's half-turn verdict, and where it is unsure, the
page read both ways up."""

import numpy as np
import pytest

from appliance.ocr.cls import AngleClassifier, reads_better_turned
from appliance.ocr.pipeline import FoundLines, PpOcrPipeline, turned
from appliance.ocr.rec import Reading
from appliance.ocr.timing import Stopwatch


class ClassifierBackend:
    """The PP-OCR classifier's output: every line read as upside down with ``p180``."""

    name = "fake"
    input_names = ("x",)
    output_names = ("y",)

    def __init__(self, p180: float):
        self.p180 = p180

    def run(self, feeds):
        n = feeds["x"].shape[0]
        return {"y": np.tile([[1 - self.p180, self.p180]], (n, 1)).astype(np.float32)}


def read(crops):
    """Confidence 0.95 for a crop whose marked corner (the first pixel) is at the top left,
    as printed; 0.4 for a crop upside down."""
    return [Reading("x", 0.95 if crop[0, 0, 0] == 255 else 0.4) for crop in crops]


def line(width: int, upright: bool) -> np.ndarray:
    crop = np.zeros((48, width, 3), np.uint8)
    crop[0, 0] = 255
    return crop if upright else crop[::-1, ::-1].copy()


def pipeline(p180: float) -> PpOcrPipeline:
    return PpOcrPipeline(None, AngleClassifier(ClassifierBackend(p180)), None)


def found(crops) -> FoundLines:
    quads = [np.array([[0, 60 * i], [c.shape[1], 60 * i], [c.shape[1], 60 * i + 48], [0, 60 * i + 48]], np.float32)
             for i, c in enumerate(crops)]
    return FoundLines(np.zeros((600, 1000, 3), np.uint8), quads, crops, 0, Stopwatch(), unsure=True)


@pytest.mark.parametrize("p180", [0.57, 0.82])
def test_an_upright_page_the_classifier_calls_turned_is_read_both_ways_and_kept(p180):
    # the classifier sees a long line squeezed into 192 px; reading the page both ways decides
    page = pipeline(p180)
    crops = [line(900, True), line(700, True), line(300, True)]
    assert page.half_turn(crops) == (False, True)  # no turn yet: unsure
    settled, readings = page.settle(found(crops), read(crops), read(turned(crops)))
    assert settled.rotation == 0 and not settled.unsure
    assert [r.confidence for r in readings] == [0.95] * 3


def test_an_unsure_upside_down_page_is_turned_with_its_boxes_and_the_turned_readings():
    page = pipeline(0.72)
    crops = [line(900, False), line(600, False)]
    assert page.half_turn(crops) == (False, True)
    before = found(crops)
    settled, readings = page.settle(before, read(crops), read(turned(crops)))
    assert settled.rotation == 180
    assert [r.confidence for r in readings] == [0.95, 0.95]
    assert all(c[0, 0, 0] == 255 for c in settled.crops)
    assert settled.quads[0][:, 1].min() > before.quads[0][:, 1].min()  # the top line is now at the bottom


@pytest.mark.parametrize("p180, turn", [(0.02, False), (0.97, True)])
def test_a_page_the_classifier_is_sure_of_is_read_once(p180, turn):
    assert pipeline(p180).half_turn([line(900, True)]) == (turn, False)


def test_the_longest_lines_decide():
    crops = [line(200, False), line(900, True), line(800, True), line(700, True)]
    assert not reads_better_turned(crops, read(crops), read(turned(crops)), sample=3)
    crops = [line(200, True)] + [line(900, False)] * 3
    assert reads_better_turned(crops, read(crops), read(turned(crops)), sample=3)
    assert not reads_better_turned([], [], [], sample=3)
