"""Character error rate: NFKC and whitespace do not count, misread characters do."""

import pytest

from appliance.wording.cer import cer, edit_distance, errors, normalise


def test_subscripts_and_superscripts_fold():
    assert cer("H₂O", "H2O") == 0.0
    assert cer("x² - 5x + 4 = 0", "x2-5x+4=0") == 0.0


def test_full_width_forms_fold():
    assert cer("解方程：2x＋3＝13", "解方程:2x+3=13") == 0.0


def test_whitespace_is_ignored():
    assert cer("2x + 3 = 13", "2x+3 =\n13") == 0.0
    assert normalise(" a\tb\nc ") == "abc"


@pytest.mark.parametrize(("a", "b", "distance"), [
    ("", "", 0), ("abc", "", 3), ("", "ab", 2), ("kitten", "sitting", 3), ("细胞核", "细胞", 1),
])
def test_edit_distance(a, b, distance):
    assert edit_distance(a, b) == distance == edit_distance(b, a)


def test_rate_is_edits_over_reference_characters():
    assert errors("解方程：2x + 3 = 13", "解方程：2x + 3 = 18") == (1, 11)
    assert cer("abcd", "abXd") == 0.25
    assert cer("abc", "abcdef") == 1.0


def test_empty_reference():
    assert cer("", "") == 0.0
    assert cer(" ", "x") == 1.0


def test_a_blank_counts_once_whatever_its_length():
    assert cer("He ___ to school", "He ____ to school") == 0.0
    assert cer("He ___ to school", "He to school") > 0.0
