"""Evaluation of the ask path on a query set: top-1 accuracy per kind, abstain quality.

The query file is CSV with header ``qid,query,expected_id,kind``; kind is one of
exact, paraphrase, partial, unanswerable (expected_id empty). For answerable kinds
``top1`` is the share answered with the expected entry (an abstention counts as
wrong); for ``unanswerable`` it is the share abstained.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from appliance.ask import calibration
from appliance.bench.csv_input import read_rows
from appliance.ask.policy import Decision

KINDS = ("exact", "paraphrase", "partial", "unanswerable")
HEADER = ("qid", "query", "expected_id", "kind")
#: Answers at or above this confidence are the "confident" bucket (target: ≥ 98 % right).
CONFIDENT = 0.9


class QueryFileError(ValueError):
    """The query file is missing, not UTF-8 CSV, or has a wrong header or kind."""


@dataclass(frozen=True)
class EvalQuery:
    qid: str
    query: str
    expected_id: str
    kind: str


@dataclass(frozen=True)
class EvalOutcome:
    query: EvalQuery
    answered_id: str | None
    confidence: float
    ms: float
    #: The entry the verifier rated most likely, answered or not.
    top_id: str | None = None

    @property
    def top_right(self) -> bool:
        """The most likely entry is the query's (never, for an unanswerable query): what the
        confidence is a probability of."""
        return self.query.kind != "unanswerable" and self.top_id == self.query.expected_id

    @property
    def correct(self) -> bool:
        if self.query.kind == "unanswerable":
            return self.answered_id is None
        return self.answered_id == self.query.expected_id


def read_queries(path: str | Path) -> list[EvalQuery]:
    queries = []
    for line, row in enumerate(read_rows(path, HEADER, QueryFileError, f"query file not found: {path}"), start=2):
        if len(row) != 4:
            raise QueryFileError(f"{path} line {line}: expected 4 fields")
        query = EvalQuery(*(v.strip() for v in row))
        if query.kind not in KINDS:
            raise QueryFileError(f"{path} line {line}: kind must be one of {', '.join(KINDS)}")
        if (query.kind == "unanswerable") != (query.expected_id == ""):
            raise QueryFileError(f"{path} line {line}: expected_id must be empty exactly for unanswerable")
        queries.append(query)
    return queries


def run_eval(queries: list[EvalQuery], answer: Callable[[str], Decision]) -> list[EvalOutcome]:
    outcomes = []
    for q in queries:
        started = time.perf_counter()
        decision = answer(q.query)
        ms = (time.perf_counter() - started) * 1000
        answered = decision.best[1]["id"] if decision.best else None
        outcomes.append(EvalOutcome(q, answered, decision.confidence, ms, decision.top_id))
    return outcomes


def photo_for(query: EvalQuery, photos_dir: Path) -> Path | None:
    for suffix in (".jpg", ".jpeg", ".png"):
        path = Path(photos_dir) / f"{query.qid}{suffix}"
        if path.exists():
            return path
    return None


def run_photo_eval(queries: list[EvalQuery], photos_dir: Path,
                   answer_photo: Callable[[bytes], Decision]) -> list[EvalOutcome]:
    """Like :func:`run_eval`, asking with ``<qid>.jpg`` (or .png) instead of the text, for
    the queries that have a photo."""
    outcomes = []
    for q in queries:
        path = photo_for(q, photos_dir)
        if path is None:
            continue
        photo = path.read_bytes()
        started = time.perf_counter()
        decision = answer_photo(photo)
        ms = (time.perf_counter() - started) * 1000
        outcomes.append(EvalOutcome(q, decision.best[1]["id"] if decision.best else None, decision.confidence, ms,
                                    decision.top_id))
    return outcomes


def summarise(outcomes: list[EvalOutcome]) -> dict:
    by_kind = {}
    for kind in KINDS:
        mine = [o for o in outcomes if o.query.kind == kind]
        if mine:
            by_kind[kind] = {"n": len(mine), "top1": round(sum(o.correct for o in mine) / len(mine), 4)}
    abstained = [o for o in outcomes if o.answered_id is None]
    unanswerable = [o for o in outcomes if o.query.kind == "unanswerable"]
    true_abstains = sum(o.query.kind == "unanswerable" for o in abstained)
    return {
        "n": len(outcomes),
        "by_kind": by_kind,
        "abstain": {
            "precision": round(true_abstains / len(abstained), 4) if abstained else 1.0,
            "recall": round(true_abstains / len(unanswerable), 4) if unanswerable else 1.0,
        },
        "mean_ms": round(statistics.fmean(o.ms for o in outcomes), 3) if outcomes else 0.0,
        "calibration": calibration_summary(outcomes),
    }


def calibration_summary(outcomes: list[EvalOutcome]) -> dict:
    """How far the confidence is a probability: the expected calibration error of the
    verifier's most likely entry, and how often the answers given at confidence ≥ 0.9
    were right."""
    confidence = np.array([o.confidence for o in outcomes], float)
    right = np.array([o.top_right for o in outcomes], float)
    confident = [o for o in outcomes if o.answered_id is not None and o.confidence >= CONFIDENT]
    return {
        "ece": round(calibration.expected_calibration_error(confidence, right), 4),
        "confident_answers": len(confident),
        "confident_precision": round(sum(o.correct for o in confident) / len(confident), 4) if confident else 1.0,
        "reliability": calibration.reliability(confidence, right),
    }


def failures(outcomes: list[EvalOutcome]) -> list[EvalOutcome]:
    return [o for o in outcomes if not o.correct]
