"""Features of a (question, bank entry) pair: how far the entry *is* the student's problem.

Each feature compares the two :class:`~appliance.ask.problem_form.ProblemForm` s both
ways (the student may leave out what the entry says; what the student says must not be
missing from the entry), and is an absolute number, never a rank. The verifier
(:mod:`appliance.ask.verify`) turns them into a probability.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from appliance.ask.problem_form import ProblemForm, read_problem, strip_preface, units
from appliance.common.textnorm import trigrams

FEATURES = (
    "dense", "lexical", "lexical_back", "givens_q_missing", "givens_e_missing", "givens_q_any",
    "scripts_q_missing", "scripts_e_missing", "expr_q_missing", "expr_e_missing",
    "spans_q_missing", "spans_e_missing", "negation_diff", "key_term_swap",
    "known_missing", "unknown_share", "entry_missing", "similarity_gap",
)
#: Counts are capped: the third missing given says little more than the second.
CAP = 2.0
#: A span of the entry counts as present in the question when this share of its
#: trigrams is there (the student may drop a character or two of a quoted line).
SPAN_COVERAGE = 0.6


@dataclass(frozen=True)
class BankVocabulary:
    """How many bank questions hold each content unit (CJK pair, Latin word)."""

    doc_freq: dict[str, int]
    entries: int
    idf_of: dict[str, float]

    @classmethod
    def build(cls, search_forms: list[str]) -> "BankVocabulary":
        freq: Counter[str] = Counter()
        for form in search_forms:
            freq.update(units(form))
        n = max(1, len(search_forms))
        return cls(dict(freq), n, {u: math.log((1 + n) / (1 + f)) + 1.0 for u, f in freq.items()})

    def idf(self, unit: str) -> float:
        found = self.idf_of.get(unit)
        return found if found is not None else math.log(1 + self.entries) + 1.0


@functools.lru_cache(maxsize=50_000)
def problem_of(text: str) -> ProblemForm:
    """The problem form of a text, its numbered preface left out (cached: bank questions
    are read once)."""
    return read_problem(strip_preface(text))


def pair_features(q: ProblemForm, e: ProblemForm, vocab: BankVocabulary, dense: float,
                  similarity_gap: float, key_term_swap: bool) -> np.ndarray:
    q_grams, e_grams = q.grams, e.grams
    return np.array([
        dense,
        _share(q_grams, e_grams),
        _share(e_grams, q_grams),
        _capped(givens_missing(q, e)),
        _capped(sum((e.givens - q.givens).values())),
        float(bool(q.givens)),
        _capped(scripts_missing(q, e)),
        _capped(sum((e.scripts - q.scripts).values())),
        _capped(sum(expr not in e.maths for expr in q.expressions)),
        _capped(sum(expr not in q.maths for expr in e.expressions)),
        _capped(sum(span not in e.form for span in q.spans)),
        _capped(sum(not _covered(span, q.form) for span in e.spans)),
        float(q.negations != e.negations),
        float(key_term_swap),
        *_unit_shares(q.bigrams, e.bigrams, vocab),
        similarity_gap,
    ], dtype=np.float64)


def givens_missing(q: ProblemForm, e: ProblemForm) -> int:
    """The question's givens the entry lacks. A number the entry writes as an exponent or
    index counts as present (the student typed "以2为底" for log₂, "第10项" for a₁₀)."""
    return sum(n for g, n in (q.givens - e.givens).items() if g not in e.script_values)


def scripts_missing(q: ProblemForm, e: ProblemForm) -> int:
    """The question's exponents and indices the entry lacks, unless the entry has the same
    digits as a plain number (the student's "x2" may be the entry's "x 2")."""
    return sum(n for s, n in (q.scripts - e.scripts).items() if s.split("^")[1] not in e.givens)


def other_script(q: ProblemForm, e: ProblemForm) -> bool:
    """The question raises or indexes a symbol the entry also raises or indexes, with other
    digits (x³ for x², a₂₀ for a₁₀)."""
    e_bases = {s.split("^")[0] for s in e.scripts}
    return any(s.split("^")[0] in e_bases for s in q.scripts - e.scripts if s.split("^")[1] not in e.givens)


def other_expression(q: ProblemForm, e: ProblemForm) -> bool:
    """An expression of the question with two operators or more is not in the entry, while
    one of the entry's has the same operands: the same numbers arranged otherwise (a sign,
    an operator, a side of an inequality)."""
    for expr in q.expressions:
        if expr in e.maths or sum(expr.count(op) for op in _OPERATORS) < 2:
            continue
        mine = sorted(_OPERAND.findall(expr))
        if any(sorted(_OPERAND.findall(theirs)) == mine for theirs in e.expressions):
            return True
    return False


_OPERATORS = "+-×/=<>≥≤≠"
_OPERAND = re.compile(r"[a-z0-9.^{}]+")


def vetoed(q: ProblemForm, e: ProblemForm, key_term_swap: bool) -> str | None:
    """Why the entry is certainly another problem, or None: a given of the question is not
    in the entry, an exponent or index differs, an expression has the entry's operands in
    another arrangement, a quoted span of the question is not in the entry, or a key term
    is swapped for its opposite."""
    if givens_missing(q, e):
        return "givens"
    if other_script(q, e):
        return "scripts"
    if other_expression(q, e):
        return "expression"
    if any(span not in e.form for span in q.spans) and e.spans:
        return "span"
    if key_term_swap:
        return "key term"
    return None


def _share(mine: set[str], theirs: set[str]) -> float:
    return len(mine & theirs) / len(mine) if mine else 0.0


def _capped(count: int) -> float:
    return min(float(count), CAP)


def _covered(span: str, form: str) -> bool:
    if span in form:
        return True
    grams = trigrams(span)
    return bool(grams) and len(grams & trigrams(form)) / len(grams) >= SPAN_COVERAGE


def _unit_shares(q_units: frozenset[str], e_units: frozenset[str], vocab: BankVocabulary) -> tuple[float, float, float]:
    """(the IDF-weighted share of the question's units that the bank knows but this entry
    lacks — another named thing; the share of the question's units the bank has never seen
    — new words; the IDF-weighted share of the entry's units the question lacks)."""
    if not q_units:
        return 0.0, 0.0, 1.0
    q_weight = sum(vocab.idf(u) for u in q_units)
    known_missing = sum(vocab.idf(u) for u in q_units - e_units if vocab.doc_freq.get(u, 0))
    unknown = sum(1 for u in q_units if not vocab.doc_freq.get(u, 0)) / len(q_units)
    e_weight = sum(vocab.idf(u) for u in e_units) or 1.0
    entry_missing = sum(vocab.idf(u) for u in e_units - q_units) / e_weight
    return known_missing / q_weight, unknown, entry_missing
