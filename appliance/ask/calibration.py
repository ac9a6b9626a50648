"""Calibration: from the verifier's raw score to the probability that the answer is right.

An isotonic (monotone, step-wise) map is fitted on labelled answers — the tuning set when
the model is trained, the school's own reviewed asks once there are
:data:`RECALIBRATE_MIN` of them — and the abstain threshold is the lowest confidence at
which the answers given reach the target precision. :func:`expected_calibration_error`
and :func:`reliability` report how well the map holds on other data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Reviewed asks needed before a school's own labels replace the shipped calibration.
RECALIBRATE_MIN = 200
#: Answers given (confidence ≥ threshold) must be right at least this often.
TARGET_PRECISION = 0.95
#: Confidence buckets of the reliability table and of the ECE.
BINS = 10


class CalibrationError(ValueError):
    """Too few or one-sided labels to fit a calibration."""


@dataclass(frozen=True)
class Calibration:
    x: np.ndarray
    y: np.ndarray
    threshold: float

    def __call__(self, raw: np.ndarray | float) -> np.ndarray:
        return np.interp(raw, self.x, self.y)


def fit(raw: np.ndarray, right: np.ndarray, target_precision: float = TARGET_PRECISION,
        method: str = "isotonic", weights: np.ndarray | None = None) -> Calibration:
    """A monotone map raw → P(right) — ``isotonic`` (step-wise) or ``platt`` (a logistic
    curve over the raw score's log-odds) — and the abstain threshold for ``target_precision``.
    ``weights`` weigh the answers (each query set the same, whatever its size)."""
    raw, right = np.asarray(raw, float), np.asarray(right, float)
    if len(raw) < 10 or right.min() == right.max():
        raise CalibrationError("need at least 10 labelled answers, some right and some wrong")
    x, y = _platt_knots(raw, right, weights) if method == "platt" else _isotonic_knots(raw, right, weights)
    calibration = Calibration(x, y, 1.0)
    return Calibration(x, y, choose_threshold(calibration(raw), right, target_precision))


def fit_on_decisions(raw: np.ndarray, right: np.ndarray, method: str = "isotonic",
                     weights: np.ndarray | None = None) -> Calibration:
    """Like :func:`fit`, with the threshold that makes the most decisions right: answering
    when the best entry is right and abstaining when it is not count alike."""
    fitted = fit(raw, right, method=method, weights=weights)
    return Calibration(fitted.x, fitted.y, most_right_threshold(fitted(raw), np.asarray(right, float), weights))


def most_right_threshold(confidence: np.ndarray, right: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The confidence t (among those seen) that maximises right answers (≥ t and right) plus
    right abstentions (< t and wrong), weighted; the highest such t on a tie."""
    w = np.ones(len(confidence)) if weights is None else np.asarray(weights, float)
    best_t, best_score = 1.0, -1.0
    for t in sorted(set(confidence.tolist())):
        score = float((w * (((confidence >= t) & (right == 1)) | ((confidence < t) & (right == 0)))).sum())
        if score >= best_score - 1e-12:
            best_t, best_score = float(t), score
    return best_t


#: Terse decisions needed to choose their own threshold; with fewer, they share the general one.
TERSE_MIN = 30


def terse_threshold(confidence: np.ndarray, right: np.ndarray, terse_mask: np.ndarray,
                    weights: np.ndarray | None = None) -> float | None:
    """The threshold that makes the most terse questions' decisions right, chosen as the
    general one is (:func:`most_right_threshold`), or None with fewer than TERSE_MIN."""
    terse_mask = np.asarray(terse_mask, bool)
    if terse_mask.sum() < TERSE_MIN:
        return None
    w = None if weights is None else np.asarray(weights, float)[terse_mask]
    return most_right_threshold(np.asarray(confidence, float)[terse_mask], np.asarray(right, float)[terse_mask], w)


def _platt_knots(raw: np.ndarray, right: np.ndarray, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """Platt scaling, tabulated at 201 raw scores for ``np.interp``."""
    from sklearn.linear_model import LogisticRegression

    def logit(p):
        p = np.clip(p, 1e-6, 1 - 1e-6)
        return np.log(p / (1 - p)).reshape(-1, 1)

    model = LogisticRegression(C=1e4).fit(logit(raw), right.astype(int), sample_weight=weights)
    x = np.linspace(0.0, 1.0, 201)
    return x, model.predict_proba(logit(x))[:, 1]


def _isotonic_knots(raw: np.ndarray, right: np.ndarray, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """The isotonic map as (x, y) knots for ``np.interp`` (a few dozen at most), each step
    shrunk toward one half by one right and one wrong pseudo-answer (k + 1) / (n + 2): a
    step of 30 answers all right means "about 97 %", not "certainly" — labelled data from
    the authors' own sets is easier than a school's questions."""
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(raw, right, sample_weight=weights)
    x = np.asarray(iso.X_thresholds_, float)
    y = _shrunk(np.asarray(iso.y_thresholds_, float), iso.predict(raw))
    return np.concatenate([[0.0], x, [1.0]]), np.concatenate([[y[0]], y, [y[-1]]])


def _shrunk(levels: np.ndarray, fitted: np.ndarray) -> np.ndarray:
    """Each level p of the step map, held by n answers, becomes (p·n + 1) / (n + 2); kept
    monotone."""
    out = np.array([(p * (n := int(np.isclose(fitted, p).sum())) + 1.0) / (n + 2.0) for p in levels])
    return np.maximum.accumulate(out)


def choose_threshold(confidence: np.ndarray, right: np.ndarray, target_precision: float) -> float:
    """The lowest confidence t such that the answers with confidence ≥ t are right at
    least ``target_precision`` of the time (1.0 when no t reaches it)."""
    order = np.argsort(-confidence)
    conf, ok = confidence[order], right[order]
    precision = np.cumsum(ok) / np.arange(1, len(ok) + 1)
    best = 1.0
    for i in range(len(conf)):
        if (i + 1 == len(conf) or conf[i + 1] < conf[i]) and precision[i] >= target_precision:
            best = float(conf[i])
    return best


def expected_calibration_error(confidence: np.ndarray, right: np.ndarray, bins: int = BINS) -> float:
    """Σ over equal-width confidence buckets of (share of answers) × |accuracy − mean confidence|."""
    confidence, right = np.asarray(confidence, float), np.asarray(right, float)
    if len(confidence) == 0:
        return 0.0
    total = 0.0
    for _lo, _hi, members in _buckets(confidence, bins):
        total += members.sum() / len(confidence) * abs(right[members].mean() - confidence[members].mean())
    return float(total)


def reliability(confidence: np.ndarray, right: np.ndarray, bins: int = BINS) -> list[dict]:
    """Per bucket: its range, how many answers, their mean confidence and how many were right."""
    confidence, right = np.asarray(confidence, float), np.asarray(right, float)
    return [
        {"lo": lo, "hi": hi, "n": int(members.sum()), "confidence": float(confidence[members].mean()),
         "accuracy": float(right[members].mean())}
        for lo, hi, members in _buckets(confidence, bins)
    ]


def _buckets(confidence: np.ndarray, bins: int):
    edges = np.linspace(0.0, 1.0, bins + 1)
    for i in range(bins):
        lo, hi = edges[i], edges[i + 1]
        members = (confidence >= lo) & ((confidence < hi) if i < bins - 1 else (confidence <= hi))
        if members.any():
            yield round(float(lo), 2), round(float(hi), 2), members
