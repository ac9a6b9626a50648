"""What counts as no problem read: a photo of scribbles or a stray mark gets the
"no text found" card, never the answer a letter or two happens to match."""

from __future__ import annotations

import pytest

from appliance.ocr.errors import NoTextFound
from appliance.ocr.result import OcrResult


def _result(text: str) -> OcrResult:
    return OcrResult(text=text, confidence=0.51, lines=(), stage_ms={}, sha256="0" * 64)


@pytest.mark.parametrize("text", ["", "  ", "N", "BV", " 6 ", "a\n1", "?!"])
def test_a_mark_of_one_or_two_signs_is_no_problem(text):
    result = _result(text)  # "N" is what one recogniser read from a page of scribbles
    assert result.empty
    with pytest.raises(NoTextFound):
        result.require_text()


@pytest.mark.parametrize("text", ["2+3", "x²=4", "钠", "氧？", "Why?", "sin 30°"])
def test_short_problems_are_problems(text):
    assert not _result(text).empty and _result(text).require_text() == text
