"""The verifier over several candidates at once (no encoder: candidates are made here)."""

import dataclasses

import numpy as np
import pytest

from appliance.ask.pair_features import question_problem, terse
from appliance.ask.search import Candidate
from appliance.ask.verify import BankContext, Scored, TeacherView, Verifier, VerifierModel

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


# A terse question: a student's note of the problem, judged with a threshold of its own.


@pytest.mark.parametrize("text", ["体循环 起点", "Dd×dd 矮茎比例", "gcd(24,36)", "Qin dynasty founded year", "m=2kg F=10N a=?"])
def test_a_note_without_a_question_word_is_terse(text):
    assert terse(question_problem(text))


@pytest.mark.parametrize("text", ["体循环的起点是哪里", "What is the past tense of go?", "解方程 2x+3=13", "帮我写一篇作文",
                                  "？？？", "!!!"])
def test_a_question_a_task_or_no_content_is_not_terse(text):
    assert not terse(question_problem(text))


def _model(threshold: float, terse_threshold: float | None) -> VerifierModel:
    # The identity map: a raw score is its own confidence.
    return dataclasses.replace(VerifierModel.untrained(), threshold=threshold, terse_threshold=terse_threshold)


def _scored(raw: float) -> list[Scored]:
    candidate = Candidate("s", 0.5, 0.5, 1.0, True, None, 0.5, 0.5)
    return [Scored(candidate, {"id": "s", "question": ENTRIES["s"]}, raw, False)]


def test_a_terse_question_is_answered_from_its_own_lower_threshold():
    verifier = Verifier(_model(0.6, 0.3))
    assert not verifier.decide(_scored(0.4), "体循环 起点").abstained
    assert verifier.decide(_scored(0.4), "体循环的起点是哪里？").abstained
    assert verifier.decide(_scored(0.2), "体循环 起点").abstained
    # The confidence is read on the same map either way.
    assert verifier.decide(_scored(0.4), "体循环 起点").confidence == pytest.approx(0.4)


def test_the_terse_threshold_never_goes_below_the_schools_floor_nor_above_the_general_one():
    assert Verifier(_model(0.6, 0.3), abstain_below=0.5).decide(_scored(0.4), "体循环 起点").abstained
    assert not Verifier(_model(0.3, 0.6)).decide(_scored(0.4), "体循环 起点").abstained
    assert Verifier(_model(0.6, None)).decide(_scored(0.4), "体循环 起点").abstained


def test_the_terse_threshold_survives_the_model_file_and_an_old_file_has_none():
    model = _model(0.6, 0.25)
    assert VerifierModel.from_dict(model.to_dict()).terse_threshold == 0.25
    old = model.to_dict()
    del old["terse_threshold"]
    assert VerifierModel.from_dict(old).terse_threshold is None


def test_the_shipped_model_has_a_terse_threshold_below_its_general_one():
    shipped = VerifierModel.load()
    assert shipped.terse_threshold is not None and shipped.terse_threshold < shipped.threshold
