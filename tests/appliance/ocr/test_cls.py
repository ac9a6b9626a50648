"""Which way up: the angle classifier's half-turn verdict, confirmed by the recogniser."""

import numpy as np
import pytest

from appliance.ocr.cls import AngleClassifier, reads_better_turned
from appliance.ocr.pipeline import PpOcrPipeline
from appliance.ocr.rec import Reading


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


class MarkedRecognizer:
    """Reads a crop with confidence 0.95 when its marked corner (the first pixel) is at the
    top left, as printed, and 0.4 when the crop is upside down."""

    def __init__(self):
        self.calls = 0

    def read(self, crops, parallel=True):
        self.calls += 1
        return [Reading("x", 0.95 if crop[0, 0, 0] == 255 else 0.4) for crop in crops]


def line(width: int, upright: bool) -> np.ndarray:
    crop = np.zeros((48, width, 3), np.uint8)
    crop[0, 0] = 255
    return crop if upright else crop[::-1, ::-1].copy()


def pipeline(p180: float) -> tuple[PpOcrPipeline, MarkedRecognizer]:
    recognizer = MarkedRecognizer()
    return PpOcrPipeline(None, AngleClassifier(ClassifierBackend(p180)), recognizer), recognizer


@pytest.mark.parametrize("p180", [0.57, 0.82])
def test_an_upright_page_the_classifier_calls_turned_is_kept_as_it_is(p180):
    # the classifier sees a long line squeezed into 192 px; reading the lines both ways decides
    page, recognizer = pipeline(p180)
    assert not page.upside_down([line(900, True), line(700, True), line(300, True)])
    assert recognizer.calls == 1


def test_an_upside_down_page_is_turned_when_it_reads_better_turned():
    page, _ = pipeline(0.9)
    assert page.upside_down([line(900, False), line(600, False)])


def test_a_page_the_classifier_is_sure_of_is_not_read_twice():
    page, recognizer = pipeline(0.02)
    assert not page.upside_down([line(900, True)])
    assert recognizer.calls == 0


def test_the_longest_lines_decide():
    recognizer = MarkedRecognizer()
    crops = [line(200, False), line(900, True), line(800, True), line(700, True)]
    assert not reads_better_turned(recognizer.read, crops, sample=3)
    assert reads_better_turned(recognizer.read, [line(200, True)] + [line(900, False)] * 3, sample=3)
    assert not reads_better_turned(recognizer.read, [], sample=3)
