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


class TurnAwareDetector:
    """Finds a page's lines as the detector does, differently as the page comes: on the
    pixels turned upside down it splits the first line in two (a tick over its number)."""

    def __init__(self, pixels_upright):
        self.upright = pixels_upright
        self.calls = []

    def detect(self, pixels, max_side=None):
        from appliance.ocr.det import Detection

        self.calls.append(pixels)
        def quad(x0, x1, y):
            return Detection(np.array([[x0, y], [x1, y], [x1, y + 40], [x0, y + 40]], np.float32), 0.9)
        if np.array_equal(pixels, self.upright):
            return [quad(100, 900, 300), quad(100, 600, 360)]
        return [quad(100, 400, 860), quad(420, 900, 860), quad(400, 900, 800)]  # the same lines, turned


class CropRecognizer:
    def __init__(self):
        self.widths = []

    def read(self, crops):
        self.widths.append(sorted(c.shape[1] for c in crops))
        return [Reading("第1题 解方程：2x + 3 = 13", 0.95) for _ in crops]


def test_a_page_turned_upside_down_has_its_lines_found_again_upright():
    from appliance.ocr.image import DecodedImage

    upright = np.full((1200, 1000, 3), 230, np.uint8)
    upright[:10, :10] = 0  # so the two ways up differ
    detector, recognizer = TurnAwareDetector(upright), CropRecognizer()
    page = PpOcrPipeline(detector, AngleClassifier(ClassifierBackend(0.97)), recognizer)
    found = page.find_lines(DecodedImage(np.rot90(upright, 2).copy(), (1000, 1200), "JPEG"))
    assert found.rotation == 180 and not found.unsure
    assert len(detector.calls) == 2 and np.array_equal(detector.calls[1], upright)
    assert len(found.quads) == 2 and found.quads[0][:, 0].max() == 900  # the line found whole


def test_an_upright_page_is_searched_for_lines_once():
    from appliance.ocr.image import DecodedImage

    upright = np.full((1200, 1000, 3), 230, np.uint8)
    detector = TurnAwareDetector(upright)
    page = PpOcrPipeline(detector, AngleClassifier(ClassifierBackend(0.02)), CropRecognizer())
    found = page.find_lines(DecodedImage(upright, (1000, 1200), "JPEG"))
    assert found.rotation == 0 and len(detector.calls) == 1 and len(found.quads) == 2
