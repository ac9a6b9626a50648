"""Memory that does not creep up ask by ask (issue 12): a bank question's derived features
are computed when the bank loads and kept; a student's question is read for its ask and
not kept, however many different questions are asked."""

from __future__ import annotations

import pytest

from appliance.ask import key_term_swap, pair_features, search
from appliance.ask.service import AskService

ENTRY_CACHES = {
    "problem forms": pair_features.problem_of,
    "entry tokens": key_term_swap._entry_tokens,
    "entry trigrams": search._entry_trigrams,
    "entry numbers": search._entry_numbers,
}


@pytest.fixture
def service(config):
    for cache in ENTRY_CACHES.values():
        cache.cache_clear()
    svc = AskService.open(config)
    yield svc
    svc.close()


def _sizes() -> dict[str, int]:
    return {name: cache.cache_info().currsize for name, cache in ENTRY_CACHES.items()}


def test_the_bank_features_are_taken_when_the_bank_loads(service):
    entries = service.bank.count()
    assert all(size >= entries * 0.9 for size in _sizes().values()), (_sizes(), entries)


def test_new_questions_leave_the_kept_features_as_they_were(service):
    before = _sizes()
    for n in range(300):  # more than the question-side caches hold
        service.ask(f"一个长方形的长是{n + 3}厘米，宽是2厘米，它的面积是多少平方厘米？")
        service.ask(f"What is the boiling point of water at {n + 1000} metres above sea level?")
    assert _sizes() == before
    assert pair_features.question_problem.cache_info().currsize <= 256
    assert key_term_swap._question_tokens.cache_info().currsize <= 256
