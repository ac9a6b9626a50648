"""The verifier over several candidates at once (no encoder: candidates are made here)."""

import numpy as np

from appliance.ask.search import Candidate
from appliance.ask.verify import BankContext, TeacherView, Verifier, VerifierModel

ENTRIES = {
    "s": "写出硫在氧气中燃烧的化学方程式。",
    "m": "写出甲烷气体在氧气中燃烧的化学方程式。",
}


def _vetoes(question: str, conflict_of: dict[str, str | None]) -> dict[str, str | None]:
    ranked = [(Candidate(key, 0.9 - i / 10, 0.5, 1.0, True, conflict_of.get(key), 0.9 - i / 10, 0.9 - i / 10),
               {"id": key, "question": text}) for i, (key, text) in enumerate(ENTRIES.items())]
    context = BankContext.build(1, list(ENTRIES.values()))
    found = Verifier(VerifierModel.untrained()).candidate_features(question, np.zeros(4), ranked, context, TeacherView())
    return {entry["id"]: veto[0] for _, entry, _, veto in found}


def test_the_next_variant_after_a_vetoed_one_is_vetoed_too():
    # 硫 is the closest, a near copy with one word swapped; 甲烷气体 differs from it in the
    # same slot, and the question is too far from it for the near-copy rule.
    vetoes = _vetoes("写出铁丝在氧气中燃烧的化学方程式", {})
    assert vetoes == {"s": "key term", "m": "third variant"}


def test_a_variant_the_question_is_stays_allowed():
    vetoes = _vetoes("写出甲烷在氧气中燃烧的化学方程式", {"s": "甲烷 ≠ 硫"})
    assert vetoes == {"s": "key term", "m": None}


def test_without_a_vetoed_variant_nothing_changes():
    vetoes = _vetoes("写出硫在氧气中燃烧的化学方程式", {})
    assert vetoes == {"s": None, "m": None}
