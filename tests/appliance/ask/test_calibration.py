"""Calibration: the isotonic map, the threshold choices and the calibration error."""

import numpy as np
import pytest

from appliance.ask import calibration


def test_expected_calibration_error_is_zero_when_confidence_matches_accuracy():
    confidence = np.array([0.95] * 20 + [0.25] * 4)
    right = np.array([1] * 19 + [0] + [1] + [0] * 3)
    assert calibration.expected_calibration_error(confidence, right) == pytest.approx(0.0)
    overconfident = np.array([0.99] * 10)
    assert calibration.expected_calibration_error(overconfident, np.array([1] * 5 + [0] * 5)) == pytest.approx(0.49)


def test_reliability_buckets_count_every_answer():
    rows = calibration.reliability(np.array([0.05, 0.5, 0.55, 1.0]), np.array([0, 1, 0, 1]))
    assert sum(r["n"] for r in rows) == 4
    assert [r["lo"] for r in rows] == [0.0, 0.5, 0.9]


def test_fit_is_monotone_and_its_threshold_answers_where_most_decisions_are_right():
    rng = np.random.default_rng(0)
    raw = rng.uniform(0, 1, 400)
    right = (rng.uniform(0, 1, 400) < raw).astype(int)  # P(right) = raw
    fitted = calibration.fit_on_decisions(raw, right)
    grid = fitted(np.linspace(0, 1, 50))
    assert np.all(np.diff(grid) >= 0)
    assert 0.35 <= fitted.threshold <= 0.65  # about where P(right) crosses one half
    strict = calibration.fit(raw, right, target_precision=0.9)
    answered = fitted(raw) >= strict.threshold
    assert right[answered].mean() >= 0.9


def test_one_sided_labels_are_refused():
    with pytest.raises(calibration.CalibrationError):
        calibration.fit(np.linspace(0, 1, 20), np.ones(20))


def test_a_step_of_all_right_answers_is_not_certainty():
    # 30 answers all right at the top: about 97 %, not 100 % (one right and one wrong
    # pseudo-answer per step); a larger step of all right comes closer to 1.
    raw = np.concatenate([np.linspace(0.0, 0.4, 30), np.linspace(0.6, 1.0, 30)])
    right = np.array([0] * 30 + [1] * 30)
    top = calibration.fit(raw, right)(1.0)
    assert top == pytest.approx(31 / 32)
    raw_big = np.concatenate([np.linspace(0.0, 0.4, 30), np.linspace(0.6, 1.0, 300)])
    assert calibration.fit(raw_big, np.array([0] * 30 + [1] * 300))(1.0) > top


def test_weights_let_each_set_count_the_same():
    # A small set of wrong answers at a high score outweighs a large set's right ones once
    # each set weighs the same.
    raw = np.concatenate([np.full(100, 0.9), np.full(10, 0.9), np.linspace(0, 0.3, 20)])
    right = np.array([1] * 100 + [0] * 10 + [0] * 20)
    plain = calibration.fit(raw, right)(0.9)
    weights = np.concatenate([np.full(100, 1 / 100), np.full(10, 1 / 10), np.full(20, 1 / 20)])
    assert calibration.fit(raw, right, weights=weights)(0.9) < plain - 0.2


def test_terse_questions_get_the_threshold_that_makes_most_of_their_decisions_right():
    # General answers are right from 0.6; the terse ones already from 0.3.
    confidence = np.array([0.1] * 10 + [0.3] * 20 + [0.5] * 20 + [0.7] * 20)
    right = np.array([0] * 10 + [1] * 20 + [1] * 20 + [1] * 20)
    mask = np.array([True] * 50 + [False] * 20)
    assert calibration.terse_threshold(confidence, right, mask) == pytest.approx(0.3)
    # With few terse decisions there is no threshold of their own.
    assert calibration.terse_threshold(confidence, right, np.arange(70) < calibration.TERSE_MIN - 1) is None
