"""The recogniser's gate: BF16 serves only where it reads the FP32 recogniser's characters
alike and is faster, measured on drawn lines (the detector's gate: tests/appliance/ocr/test_det_int8.py)."""

from __future__ import annotations

import time

import numpy as np

from appliance.inference.precision_gate import (MIN_READING_AGREEMENT, READS, decide, gate_lines,
                                                measure_reading)


def _reader(seconds: float, change=lambda text: text):
    def read(crops):
        time.sleep(seconds)
        return [change(f"line {crop.shape[1]} of 2x+3=11") for crop in crops]

    return read


def test_gate_lines_are_drawn_crops_as_the_recogniser_gets_them_and_repeatable():
    photos = gate_lines(photos=3, lines=4)
    assert [len(p) for p in photos] == [4, 4, 4]
    crops = [c for p in photos for c in p]
    assert all(c.dtype == np.uint8 and c.ndim == 3 and c.shape[0] == 48 and c.shape[2] == 3 for c in crops)
    assert len({c.shape[1] for c in crops}) > 6  # lines of many widths
    assert all(c.min() < 100 < 160 < c.max() for c in crops)  # dark ink on light paper
    again = [c for p in gate_lines(photos=3, lines=4) for c in p]
    assert all(np.array_equal(a, b) for a, b in zip(crops, again))


def test_a_recogniser_reading_alike_and_faster_serves():
    verdict = measure_reading(_reader(0.02), _reader(0.005), gate_lines(photos=2, lines=2))
    assert verdict.serves and verdict.agreement == 1.0 and verdict.speedup > 1.2
    assert "characters alike" in verdict.reason


def test_a_recogniser_that_misreads_does_not_serve_however_fast():
    drop_a_digit = _reader(0.0, lambda text: text.replace("3", ""))
    verdict = measure_reading(_reader(0.02), drop_a_digit, gate_lines(photos=2, lines=2))
    assert not verdict.serves and verdict.agreement < MIN_READING_AGREEMENT
    assert verdict.reason.startswith("reads") and "characters alike" in verdict.reason


def test_a_recogniser_no_faster_does_not_serve():
    verdict = measure_reading(_reader(0.01), _reader(0.01), gate_lines(photos=2, lines=2))
    assert not verdict.serves and "as fast" in verdict.reason


def test_the_verdict_is_its_measurements():
    assert decide(1.5, 0.995, min_agreement=MIN_READING_AGREEMENT, agrees=READS).serves
    assert not decide(1.5, 0.98, min_agreement=MIN_READING_AGREEMENT, agrees=READS).serves
    assert not decide(1.1, 1.0, min_agreement=MIN_READING_AGREEMENT, agrees=READS).serves
