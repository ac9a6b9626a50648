"""Verification: is this bank entry the student's problem? And how sure are we?

Retrieval (:mod:`appliance.ask.search`) finds entries that *read* like the question;
embeddings rate "the same problem reworded" and "the same frame about something else"
alike. This stage takes the closest candidates and scores each as a problem:
:func:`~appliance.ask.pair_features.pair_features` compares givens, scripts,
expressions, salient spans, negation and named things both ways, and a small logistic
model (weights in ``appliance/data/verifier.json``, trained by
:mod:`appliance.bench.verifier_training` on pairs made from the bank and the tuning set)
turns them into a raw score. The best-scoring candidate is the answer when its
*calibrated* probability (an isotonic map fitted on labelled asks) reaches the abstain
threshold chosen for the target precision. A terse question (a note such as 体循环 起点,
:func:`~appliance.ask.pair_features.terse`) has a threshold of its own, chosen the same way
on terse questions: its confidence is read on the same map, so it is answered at a lower
one.

The teacher's corrections take part: an approved wording is an alias of its entry
(compared like the entry's own question), and a rejected (wording, entry) pair is never
answered again.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from appliance.ask.pair_features import (FEATURES, BankVocabulary, pair_features, problem_of, question_problem, terse,
                                         vetoed)
from appliance.ask.policy import Decision
from appliance.ask.key_term_swap import third_variant
from appliance.ask.search import Candidate
from appliance.common.textnorm import search_form, trigrams

log = logging.getLogger(__name__)

MODEL_FILE = "verifier.json"
#: Candidates (closest by similarity) the verifier scores.
VERIFY_TOP = 6  # = search.CONFLICT_CHECKS: these have had the key-term check
#: An alias is looked at when this share of the question's trigrams is in it.
ALIAS_LEXICAL = 0.5


class VerifierModelError(ValueError):
    """The verifier's model file is missing or malformed."""


@dataclass(frozen=True)
class VerifierModel:
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    #: The isotonic calibration: raw scores and the probability of being right at each.
    calib_x: np.ndarray
    calib_y: np.ndarray
    #: Abstain below this calibrated probability (chosen for the target precision).
    threshold: float
    note: str = ""
    #: A terse question's threshold (chosen the same way on terse questions); None: the same.
    terse_threshold: float | None = None

    @classmethod
    def from_dict(cls, raw: dict) -> "VerifierModel":
        try:
            model = cls(
                features=tuple(raw["features"]), mean=np.asarray(raw["mean"], float),
                scale=np.asarray(raw["scale"], float), coef=np.asarray(raw["coef"], float),
                intercept=float(raw["intercept"]), calib_x=np.asarray(raw["calib_x"], float),
                calib_y=np.asarray(raw["calib_y"], float), threshold=float(raw["threshold"]),
                note=str(raw.get("note", "")),
                terse_threshold=None if raw.get("terse_threshold") is None else float(raw["terse_threshold"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise VerifierModelError(f"verifier model is malformed: {exc}") from None
        if model.features != FEATURES or not (len(model.mean) == len(model.scale) == len(model.coef) == len(FEATURES)):
            raise VerifierModelError("verifier model was trained on other features; retrain it")
        return model

    def to_dict(self) -> dict:
        return {
            "features": list(self.features), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
            "coef": self.coef.tolist(), "intercept": self.intercept, "calib_x": self.calib_x.tolist(),
            "calib_y": self.calib_y.tolist(), "threshold": self.threshold, "note": self.note,
            "terse_threshold": self.terse_threshold,
        }

    @classmethod
    def untrained(cls) -> "VerifierModel":
        """Zero weights (every pair scores 0.5): used while training a new model."""
        n = len(FEATURES)
        return cls(FEATURES, np.zeros(n), np.ones(n), np.zeros(n), 0.0, np.array([]), np.array([]), 0.5, "untrained")

    @classmethod
    def load(cls, path: Path | None = None) -> "VerifierModel":
        try:
            text = Path(path).read_text("utf-8") if path else \
                resources.files("appliance.data").joinpath(MODEL_FILE).read_text("utf-8")
            return cls.from_dict(json.loads(text))
        except (OSError, json.JSONDecodeError) as exc:
            raise VerifierModelError(f"cannot read the verifier model: {exc}") from None

    def raw(self, rows: np.ndarray) -> np.ndarray:
        z = ((rows - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))

    def calibrated(self, raw: float) -> float:
        if len(self.calib_x) == 0:
            return float(raw)
        return float(np.interp(raw, self.calib_x, self.calib_y))

    def with_calibration(self, calib_x: np.ndarray, calib_y: np.ndarray, threshold: float, note: str,
                         terse_threshold: float | None = None) -> "VerifierModel":
        return VerifierModel(self.features, self.mean, self.scale, self.coef, self.intercept,
                             np.asarray(calib_x, float), np.asarray(calib_y, float), float(threshold), note,
                             None if terse_threshold is None else float(terse_threshold))

    def threshold_for(self, terse_question: bool) -> float:
        """The abstain threshold of a question: a terse one's where it is lower."""
        if terse_question and self.terse_threshold is not None:
            return min(self.threshold, self.terse_threshold)
        return self.threshold


@dataclass(frozen=True)
class BankContext:
    """What the features need to know about the whole bank (rebuilt when it changes)."""

    version: int
    known_text: str
    vocabulary: BankVocabulary

    @classmethod
    def build(cls, version: int, search_forms: list[str]) -> "BankContext":
        return cls(version, "\n".join(search_forms), BankVocabulary.build(search_forms))


@dataclass(frozen=True)
class TeacherView:
    """The teacher's corrections as the verifier reads them (see
    :mod:`appliance.asklog.teacher_memory`): aliases by entry, with their vectors, and
    rejected (wording search form, entry id) pairs."""

    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    alias_vectors: dict[str, np.ndarray] = field(default_factory=dict)
    negatives: frozenset[tuple[str, str]] = frozenset()
    alias_grams: dict[str, list[tuple[str, frozenset[str]]]] = field(default_factory=dict)

    @classmethod
    def build(cls, aliases: list[tuple[str, str]], negatives: list[tuple[str, str]],
              vectors: dict[str, np.ndarray]) -> "TeacherView":
        by_entry: dict[str, list[str]] = {}
        grams: dict[str, list[tuple[str, frozenset[str]]]] = {}
        for entry_id, text in aliases:
            by_entry.setdefault(entry_id, []).append(text)
            alias_grams = frozenset(trigrams(search_form(text)))
            for gram in alias_grams:
                grams.setdefault(gram, []).append((entry_id, alias_grams))
        return cls({k: tuple(v) for k, v in by_entry.items()}, vectors,
                   frozenset((search_form(w), e) for w, e in negatives), grams)

    def entries_near(self, form: str) -> set[str]:
        """Entries with an alias holding at least ALIAS_LEXICAL of the question's trigrams."""
        q_grams = trigrams(form)
        if not q_grams or not self.alias_grams:
            return set()
        hits: dict[tuple[str, frozenset[str]], int] = {}
        for gram in q_grams:
            for key in self.alias_grams.get(gram, ()):
                hits[key] = hits.get(key, 0) + 1
        return {entry_id for (entry_id, _), n in hits.items() if n / len(q_grams) >= ALIAS_LEXICAL}


@dataclass(frozen=True)
class Scored:
    candidate: Candidate
    entry: dict
    raw: float
    rejected: bool


class Verifier:
    def __init__(self, model: VerifierModel, abstain_below: float = 0.0, similar: int = 3):
        self.model = model
        self.abstain_below = abstain_below
        self.similar = similar

    @property
    def threshold(self) -> float:
        """Abstain below this: the calibrated threshold, or the school's own if higher."""
        return max(self.model.threshold, self.abstain_below)

    def threshold_for(self, question: str) -> float:
        """The threshold of this question: a terse one's is its own (never below the
        school's)."""
        return max(self.model.threshold_for(terse(question_problem(question))), self.abstain_below)

    def candidate_features(self, question: str, query_vector: np.ndarray, ranked: list[tuple[Candidate, dict]],
                           context: BankContext, teacher: TeacherView) -> list[tuple[Candidate, dict, np.ndarray, list[str | None]]]:
        """The closest candidates, each with one feature row for its question and one per
        alias the teachers approved for it, and for each row why it is vetoed (or None)."""
        if not ranked:
            return []
        q = question_problem(question)
        closest = sorted(ranked, key=lambda pair: pair[0].similarity, reverse=True)[:VERIFY_TOP]
        top_similarity = closest[0][0].similarity
        found = []
        for candidate, entry in closest:
            gap = max(0.0, top_similarity - candidate.similarity)
            swap = candidate.conflict is not None
            e = problem_of(entry["question"])
            rows = [pair_features(q, e, context.vocabulary, candidate.dense, gap, swap)]
            veto = [vetoed(q, e, swap)]
            for alias in teacher.aliases.get(entry["id"], ()):
                vector = teacher.alias_vectors.get(alias)
                dense = float(vector @ query_vector) if vector is not None else candidate.dense
                a = problem_of(alias)
                rows.append(pair_features(q, a, context.vocabulary, dense, 0.0, False))
                veto.append(vetoed(q, a, False))
            found.append((candidate, entry, np.vstack(rows), veto))
        _veto_third_variants(q.text, found)
        return found

    def score(self, question: str, query_vector: np.ndarray, ranked: list[tuple[Candidate, dict]],
              context: BankContext, teacher: TeacherView) -> list[Scored]:
        """The closest candidates with their raw verifier scores, best first; a pair the
        teachers rejected comes last, marked."""
        form = search_form(question)
        scored = [
            Scored(candidate, entry, _best_raw(self.model.raw(rows), veto), (form, entry["id"]) in teacher.negatives)
            for candidate, entry, rows, veto in self.candidate_features(question, query_vector, ranked, context, teacher)
        ]
        scored.sort(key=lambda s: (not s.rejected, s.raw), reverse=True)
        return scored

    def decide(self, scored: list[Scored], question: str = "") -> Decision:
        """Answer with the best allowed candidate when its confidence reaches the question's
        threshold (:meth:`threshold_for`; without the question, the general one)."""
        allowed = [s for s in scored if not s.rejected]
        best = allowed[0] if allowed else None
        confidence = self.model.calibrated(best.raw) if best else 0.0
        threshold = self.threshold_for(question) if question else self.threshold
        if best is None or confidence < threshold:
            return Decision(None, confidence, True, [(s.candidate, s.entry) for s in allowed[: self.similar]],
                            raw=best.raw if best else 0.0, top_id=best.entry["id"] if best else None)
        similar = [(s.candidate, s.entry) for s in allowed[1 : 1 + self.similar]]
        return Decision((best.candidate, best.entry), confidence, False, similar, raw=best.raw,
                        top_id=best.entry["id"])


def _veto_third_variants(question: str, found: list) -> None:
    """A candidate is another problem when the question is a third variant of the frame it
    shares with a vetoed candidate (:func:`~appliance.ask.key_term_swap.third_variant`):
    its question's comparison is vetoed in place."""
    vetoed = [entry["question"] for _, entry, _, veto in found if veto[0] is not None]
    for _, entry, _, veto in found:
        if veto[0] is None and any(third_variant(question, other, entry["question"]) for other in vetoed):
            veto[0] = "third variant"


def _best_raw(raws: np.ndarray, veto: list[str | None]) -> float:
    """The best score over the entry's question and aliases; a vetoed comparison scores 0."""
    allowed = [float(r) for r, v in zip(raws, veto) if v is None]
    return max(allowed, default=0.0)
