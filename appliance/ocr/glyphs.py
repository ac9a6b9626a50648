"""What a line's pixels show that its characters alone do not: blanks drawn as lines,
and digits printed raised (x², 10³) or lowered (a₁, H₂O).

The recogniser gives each character's output time step, i.e. its column in the 48-px
line crop. A run of spaces over a stroke that runs along the lower part of the crop is a
blank to fill in (``____``); a digit after a letter or a bracket whose ink ends above the
middle of the line's letters is a superscript, one whose ink starts below their middle a
subscript.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import cv2
import numpy as np

from appliance.ocr.rec import STRIDE, Reading

SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
BLANK = "____"


@dataclass(frozen=True)
class GlyphParams:
    min_blank_px: int = 40  # a blank is at least this wide in the 48-px crop (about one character)
    underline_fill: float = 0.7  # share of a row's pixels across the gap that must be ink
    raised: float = 0.55  # a superscript's ink ends above this share of the letters' height (from the top)
    lowered: float = 0.45  # a subscript's ink starts below this share


def refine(reading: Reading, crop: np.ndarray, params: GlyphParams = GlyphParams()) -> Reading:
    """The reading with drawn blanks and raised/lowered digits written out."""
    if not reading.text or len(reading.steps) != len(reading.text):
        return reading
    ink = ink_mask(crop)
    spans = char_spans(reading.steps, ink.shape[1])
    text = scripts(reading.text, spans, ink, params)
    text = drawn_blanks(text, spans, ink, params)
    return Reading(text, reading.confidence, reading.steps) if text != reading.text else reading


def ink_mask(crop: np.ndarray) -> np.ndarray:
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    _, mask = cv2.threshold(gray, 0, 1, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    return mask.astype(bool)


def char_spans(steps: tuple[int, ...], width: int) -> list[tuple[int, int]]:
    """Columns [start, end) of each character: halfway to its neighbours' positions."""
    centres = [s * STRIDE + STRIDE // 2 for s in steps]
    spans = []
    for i, c in enumerate(centres):
        start = (centres[i - 1] + c) // 2 if i else max(0, c - 2 * STRIDE)
        end = (c + centres[i + 1]) // 2 if i + 1 < len(centres) else min(width, c + 2 * STRIDE)
        spans.append((start, max(start + 1, end)))
    return spans


def ink_rows(ink: np.ndarray, span: tuple[int, int]) -> tuple[int, int] | None:
    rows = np.flatnonzero(ink[:, span[0]:span[1]].any(axis=1))
    return (int(rows[0]), int(rows[-1])) if rows.size else None


def scripts(text: str, spans: list[tuple[int, int]], ink: np.ndarray, params: GlyphParams) -> str:
    letters = [ink_rows(ink, s) for ch, s in zip(text, spans) if ch.isalpha()]
    letters = [r for r in letters if r is not None]
    if len(letters) < 2:
        return text
    top = statistics.median(r[0] for r in letters)
    bottom = statistics.median(r[1] for r in letters)
    height = max(1.0, bottom - top)
    out = list(text)
    for i, ch in enumerate(text):
        if not ch.isdigit() or not i or not (text[i - 1].isalpha() or text[i - 1] in ")）" or out[i - 1] != text[i - 1]):
            continue
        rows = ink_rows(ink, spans[i])
        if rows is None:
            continue
        if rows[1] < top + params.raised * height:
            out[i] = ch.translate(SUPERSCRIPT)
        elif rows[0] > top + params.lowered * height and text[i - 1].isalpha():
            out[i] = ch.translate(SUBSCRIPT)
    return "".join(out)


def drawn_blanks(text: str, spans: list[tuple[int, int]], ink: np.ndarray, params: GlyphParams) -> str:
    """Spaces between two characters, over a gap with a line drawn low across it → ``____``."""
    out, i = [], 0
    while i < len(text):
        if text[i] != " " or not out:
            if out and out[-1] != " " and underlined(ink, spans[i - 1][1], spans[i][0], params, wide=True):
                out.append(f" {BLANK} ")  # no space read at all over a long drawn line
            out.append(text[i])
            i += 1
            continue
        j = i
        while j < len(text) and text[j] == " ":
            j += 1
        if j < len(text) and underlined(ink, spans[i - 1][1], spans[j][0], params):
            out.append(f" {BLANK} ")
        else:
            out.append(text[i:j])
        i = j
    return "".join(out)


def underlined(ink: np.ndarray, start: int, end: int, params: GlyphParams, wide: bool = False) -> bool:
    if end - start < params.min_blank_px * (2 if wide else 1):
        return False
    lower = ink[ink.shape[0] // 2:, start:end]
    return bool((lower.mean(axis=1) >= params.underline_fill).any())
