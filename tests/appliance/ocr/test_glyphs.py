"""Glyph positions: drawn blanks and raised/lowered digits, on hand-made line crops."""

import numpy as np

from appliance.ocr.glyphs import refine
from appliance.ocr.rec import STRIDE, Reading


def crop(width: int = 240) -> np.ndarray:
    return np.full((48, width, 3), 240, np.uint8)


def ink(image: np.ndarray, rows: tuple[int, int], cols: tuple[int, int]) -> None:
    image[rows[0]:rows[1], cols[0]:cols[1]] = 20


def step(column: int) -> int:
    return (column - STRIDE // 2) // STRIDE


def test_a_raised_digit_after_a_letter_is_a_superscript():
    image = crop()
    ink(image, (18, 40), (22, 34))  # x
    ink(image, (18, 40), (54, 66))  # y
    ink(image, (6, 22), (80, 88))  # a small 2 up high
    reading = Reading("xy2", 0.9, (step(28), step(60), step(84)))
    assert refine(reading, image).text == "xy²"


def test_a_lowered_digit_after_a_letter_is_a_subscript():
    image = crop()
    ink(image, (10, 40), (20, 36))  # H
    ink(image, (28, 46), (44, 52))  # a small 2 down low
    ink(image, (10, 40), (60, 76))  # O
    reading = Reading("H2O", 0.9, (step(28), step(48), step(68)))
    assert refine(reading, image).text == "H₂O"


def test_a_digit_on_the_line_stays_as_it_is():
    image = crop()
    ink(image, (18, 40), (22, 34))
    ink(image, (18, 40), (54, 66))
    ink(image, (16, 40), (80, 92))
    reading = Reading("ab2", 0.9, (step(28), step(60), step(86)))
    assert refine(reading, image) == reading


def test_spaces_over_a_drawn_line_are_a_blank():
    image = crop(320)
    ink(image, (10, 38), (10, 40))  # "He"
    ink(image, (40, 43), (60, 180))  # the line to write on
    ink(image, (10, 38), (200, 230))  # "to"
    reading = Reading("He  to", 0.9, (step(16), step(34), step(90), step(150), step(206), step(224)))
    assert refine(reading, image).text == "He ____ to"


def test_spaces_over_blank_paper_stay_spaces():
    image = crop(320)
    ink(image, (10, 38), (10, 40))
    ink(image, (10, 38), (200, 230))
    reading = Reading("He  to", 0.9, (step(16), step(34), step(90), step(150), step(206), step(224)))
    assert refine(reading, image).text == "He  to"
