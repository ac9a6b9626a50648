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
  (周长 for 面积, "eat" for "go"), see :mod:`appliance.ask.key_term_swap`.

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

from appliance.db import sql
from appliance.ask.key_term_swap import conflicting_detail, warm_entry_tokens
from appliance.ask.dense_index import DenseIndex
from appliance.bank.kb import QuestionBank
from appliance.common.textnorm import numbers, search_form, trigrams

Signal = Literal["hybrid", "dense", "bm25"]

LEXICAL_WEIGHT = 0.25
MISMATCH_PENALTY = 0.6
# The BM25 query uses at most this many of the question's trigrams, the rarest in the bank.
MAX_QUERY_TRIGRAMS = 32
# A trigram held by more than this share of the entries (and more than COMMON_MIN of them)
# is left out of the BM25 query: it says little about which entry is meant (its IDF is
# low) and costs the most (every holder is scored). The lexical feature still counts it.
COMMON_SHARE = 0.02
COMMON_MIN = 200
# Bank entries kept in memory between searches (forgotten when the bank changes).
ENTRY_CACHE_MAX = 50_000
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
        self._doc_freq: dict[str, int] = {}
        self._entry_cache: dict[str, dict] = {}

    def search(self, question: str, query_vector: np.ndarray,
               dense_top: list[tuple[str, float]] | None = None,
               bank_version: int | None = None) -> list[tuple[Candidate, dict]]:
        """Ranked candidates (best first), each with its bank entry. ``dense_top``: the
        index's top ``candidates`` for ``query_vector`` when the caller has them already
        (the encoder batch computes them for all its questions at once); ``bank_version``:
        the bank's version when the caller has just read it."""
        form = search_form(question)
        known_text = self._known_text(bank_version)
        if self.signal == "bm25":
            dense_hits = {}
        else:
            dense_hits = dict(dense_top if dense_top is not None else self.index.top(query_vector, self.candidates))
        bm25_hits = self._bm25(form) if self.signal != "dense" else {}
        entries = self._entries(list(dict.fromkeys([*dense_hits, *bm25_hits])))
        query = _Query(question, trigrams(form), numbers(question), known_text)
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

    def warm(self, question: str, search_text: str) -> None:
        """Compute a bank entry's cached features now (the service does this for the whole
        bank when it loads), so memory does not creep up ask by ask as entries are met."""
        _entry_trigrams(search_text), _entry_numbers(question)
        warm_entry_tokens(question)

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

    def _known_text(self, current: int | None = None) -> str:
        """Every bank question in search form, joined; rebuilt when the bank changes
        (the document frequencies remembered for BM25 are forgotten then too)."""
        text, version = self._bank_text
        current = self.bank.version() if current is None else current
        if version != current:
            text = "\n".join(row[0] for row in self.bank.store.query(sql.KB_SEARCH_TEXTS))
            self._bank_text = (text, current)
            self._doc_freq, self._entry_cache = {}, {}
        return text

    def _entries(self, ids: list[str]) -> dict[str, dict]:
        """Bank entries by id, in ``ids`` order (from memory where read before)."""
        cache = self._entry_cache
        missing = [i for i in ids if i not in cache]
        found = self.bank.get_many(missing) if missing else {}
        if len(cache) + len(found) > ENTRY_CACHE_MAX:
            cache.clear()
        entries = {i: cache.get(i) or found.get(i) for i in ids}
        cache.update(found)
        return {i: e for i, e in entries.items() if e is not None}

    def _query_trigrams(self, form: str) -> list[str]:
        """The trigrams the BM25 query uses: common ones left out, the rarest first."""
        grams = sorted(trigrams(form))
        freq = self._doc_freq  # current: search() checked the bank's version first
        missing = [g for g in grams if g not in freq]
        if missing:
            statement = sql.FTS_DOC_FREQ.format(placeholders=",".join("?" * len(missing)))
            found = dict(self.bank.store.query(statement, missing))
            freq.update({g: found.get(g, 0) for g in missing})
        common = max(COMMON_MIN, COMMON_SHARE * len(self.index.ids))
        kept = [g for g in grams if freq[g] <= common] or grams
        return sorted(kept, key=lambda g: (freq[g], g))[:MAX_QUERY_TRIGRAMS]

    def _bm25(self, form: str) -> dict[str, float]:
        if len(form) < 3 or not trigrams(form):
            return {}
        grams = self._query_trigrams(form)
        match = " OR ".join('"' + g.replace('"', '""') + '"' for g in grams)
        rows = self.bank.store.query(sql.KB_BM25, (match, self.candidates))
        # SQLite's bm25() is negative, lower is better; flip so higher is better.
        return {entry_id: -score for entry_id, score in rows}
