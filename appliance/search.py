"""Hybrid search over the bank: dense cosine + SQLite FTS5 trigram BM25, fused.

Candidates come from both signals (top ``candidates`` of each). Each candidate is
then scored on absolute features, not on ranks (rank fusion lets a weak lexical
list outvote a confident dense match):

* ``dense``: cosine between the question and the entry's question embeddings;
* ``lexical``: the share of the question's character trigrams found in the entry
  (1.0 when the student typed a fragment of the entry verbatim);
* ``numbers_match``: every number in the question also occurs in the entry. A
  problem with other numbers is another problem, whatever the text similarity;
* ``conflict``: the question reads like the entry with one key term swapped
  (周长 for 面积, "eat" for "go"), see :mod:`appliance.contrast`.

A candidate with other numbers or a conflict is pushed down the ranking (its
near-duplicate sibling may be the right answer) and is never given as the answer.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from dataclasses import dataclass
from typing import Literal

import numpy as np

from appliance import sql
from appliance.contrast import conflicting_detail
from appliance.dense_index import DenseIndex
from appliance.kb import QuestionBank
from appliance.textnorm import numbers, search_form, trigrams

Signal = Literal["hybrid", "dense", "bm25"]

LEXICAL_WEIGHT = 0.25
MISMATCH_PENALTY = 0.6
MAX_QUERY_TRIGRAMS = 32
# Candidates (closest first) checked for a swapped key term.
CONFLICT_CHECKS = 6


@dataclass(frozen=True)
class Candidate:
    entry_id: str
    dense: float
    lexical: float
    bm25: float
    numbers_match: bool
    conflict: str | None
    similarity: float
    score: float

    @property
    def answerable(self) -> bool:
        """False when the entry is another problem (other numbers, a swapped key term)."""
        return self.numbers_match and self.conflict is None


# Entry features are pure functions of the entry's text: cached across searches.
_entry_trigrams = functools.lru_cache(maxsize=50_000)(trigrams)
_entry_numbers = functools.lru_cache(maxsize=50_000)(numbers)


@dataclass(frozen=True)
class _Query:
    text: str
    grams: set[str]
    numbers: Counter
    known_text: str


class HybridSearch:
    def __init__(self, bank: QuestionBank, index: DenseIndex, candidates: int = 20, signal: Signal = "hybrid"):
        self.bank = bank
        self.index = index
        self.candidates = candidates
        self.signal = signal
        self._bank_text = ("", -1)

    def search(self, question: str, query_vector: np.ndarray) -> list[tuple[Candidate, dict]]:
        """Ranked candidates (best first), each with its bank entry."""
        form = search_form(question)
        dense_hits = dict(self.index.top(query_vector, self.candidates)) if self.signal != "bm25" else {}
        bm25_hits = self._bm25(form) if self.signal != "dense" else {}
        entries = self.bank.get_many(list(dict.fromkeys([*dense_hits, *bm25_hits])))
        query = _Query(question, trigrams(form), numbers(question), self._known_text())
        ranked = []
        for entry_id, entry in entries.items():
            dense = dense_hits.get(entry_id)
            if dense is None and self.signal != "bm25":
                dense = self.index.cosine(query_vector, entry_id)
            ranked.append((self._score(entry, dense or 0.0, bm25_hits.get(entry_id, 0.0), query), entry))
        ranked.sort(key=lambda pair: pair[0].similarity, reverse=True)
        if self.signal == "hybrid":
            # The key-term check is the costly one; only the closest entries can matter.
            ranked[:CONFLICT_CHECKS] = [(self._check_conflict(c, e, query), e) for c, e in ranked[:CONFLICT_CHECKS]]
        ranked.sort(key=lambda pair: pair[0].score, reverse=True)
        return ranked

    def _score(self, entry: dict, dense: float, bm25: float, query: "_Query") -> Candidate:
        entry_grams = _entry_trigrams(entry["search_text"])
        lexical = len(query.grams & entry_grams) / len(query.grams) if query.grams else 0.0
        numbers_match = not (query.numbers - _entry_numbers(entry["question"]))
        similarity = {"dense": dense, "bm25": bm25}.get(self.signal, dense + LEXICAL_WEIGHT * lexical)
        penalty = MISMATCH_PENALTY if self.signal == "hybrid" and not numbers_match else 0.0
        return Candidate(entry["id"], dense, lexical, bm25, numbers_match, None, similarity, similarity - penalty)

    def _check_conflict(self, candidate: Candidate, entry: dict, query: "_Query") -> Candidate:
        conflict = conflicting_detail(query.text, entry["question"], query.known_text)
        if conflict is None:
            return candidate
        score = candidate.similarity - MISMATCH_PENALTY
        return dataclasses.replace(candidate, conflict=conflict, score=score)

    def _known_text(self) -> str:
        """Every bank question in search form, joined; rebuilt when the bank changes."""
        text, version = self._bank_text
        current = self.bank.version()
        if version != current:
            text = "\n".join(row[0] for row in self.bank.store.query(sql.KB_SEARCH_TEXTS))
            self._bank_text = (text, current)
        return text

    def _bm25(self, form: str) -> dict[str, float]:
        grams = sorted(trigrams(form))
        if not grams or len(form) < 3:
            return {}
        if len(grams) > MAX_QUERY_TRIGRAMS:
            step = len(grams) / MAX_QUERY_TRIGRAMS
            grams = [grams[int(i * step)] for i in range(MAX_QUERY_TRIGRAMS)]
        match = " OR ".join('"' + g.replace('"', '""') + '"' for g in grams)
        rows = self.bank.store.query(sql.KB_BM25, (match, self.candidates))
        # SQLite's bm25() is negative, lower is better; flip so higher is better.
        return {entry_id: -score for entry_id, score in rows}
