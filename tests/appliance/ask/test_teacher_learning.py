"""Learning from the teacher, end to end on the real encoder and the demo bank: an approved
wording is answered next time, a rejected (wording, entry) pair is never answered again,
and both survive a restart; the confidence map is refitted from the school's own
judgements once there are enough of them."""

import pytest

from appliance.ask import calibration
from appliance.ask.service import AskService
from appliance.asklog.review import ReviewError, ReviewService

# A paraphrase the verifier does not answer on its own ("5-sided shape" is a given that
# the pentagon entry does not hold), and a near miss it answers with the wrong entry
# (the body's largest organ, answered with its main organ of digestion: another subject
# in the same frame that the rules do not see).
PARAPHRASE = "How many degrees do all the inside angles of a 5-sided shape add up to?"
PENTAGON = "demo-math-046"
NEAR_MISS = "人体最大的器官是什么？"


def _open(config):
    return AskService.open(config)


def test_an_abstained_paraphrase_approved_once_is_answered_next_time(config):
    service = _open(config)
    try:
        first = service.ask(PARAPHRASE)
        assert first.abstained
        done = ReviewService(service.store, service.bank).approve(first.ask_id, "alice", entry_id=PENTAGON)
        assert done.entry_id == PENTAGON
        again = service.ask(PARAPHRASE)
        assert not again.abstained and again.matched_id == PENTAGON
        # the same wording typed a little differently is the same wording
        assert service.ask(PARAPHRASE.lower().rstrip("?")).matched_id == PENTAGON
    finally:
        service.close()
    restarted = _open(config)
    try:
        card = restarted.ask(PARAPHRASE)
        assert not card.abstained and card.matched_id == PENTAGON
    finally:
        restarted.close()


def test_a_wrong_answer_rejected_once_is_never_given_again_for_that_wording(config):
    service = _open(config)
    try:
        first = service.ask(NEAR_MISS)
        assert not first.abstained, "the near miss should be answered (wrongly) before the rejection"
        wrong = first.matched_id
        ReviewService(service.store, service.bank).reject(first.ask_id, "alice")
        again = service.ask(NEAR_MISS)
        assert again.matched_id != wrong
        assert wrong not in {s.entry_id for s in again.similar} or again.matched_id != wrong
    finally:
        service.close()
    restarted = _open(config)
    try:
        assert restarted.ask(NEAR_MISS).matched_id != wrong
    finally:
        restarted.close()


def test_rejecting_an_abstained_ask_without_an_entry_is_refused(config):
    service = _open(config)
    try:
        card = service.ask(PARAPHRASE)
        with pytest.raises(ReviewError, match="not answered"):
            ReviewService(service.store, service.bank).reject(card.ask_id, "alice")
        with pytest.raises(ReviewError, match="no bank entry"):
            ReviewService(service.store, service.bank).approve(card.ask_id, "alice", entry_id="nope")
    finally:
        service.close()


def test_recalibrates_from_the_schools_judgements_only_once_there_are_enough(config):
    service = _open(config)
    try:
        entries = service.bank.all_entries()
        shipped = service.verifier.model
        # 199 judgements: bank questions approved as themselves, near misses rejected.
        judged = 0
        for i, entry in enumerate(entries):
            service.memory.add_alias(entry["question"] + " ", entry["id"], ask_id=10_000 + i)
            judged += 1
        near = [(f"{e['question']}（第{n}问）", e["id"]) for n in (7, 8) for e in entries]
        for i, (wording, entry_id) in enumerate(near[: calibration.RECALIBRATE_MIN - 1 - judged]):
            service.memory.add_negative(wording, entry_id, ask_id=20_000 + i)
        assert service.memory.label_count() == calibration.RECALIBRATE_MIN - 1
        assert service.recalibrate() is False
        assert service.verifier.model is shipped
        service.memory.add_negative("水的沸点是多少（第9问）", "demo-phys-020", ask_id=30_000)
        assert service.recalibrate() is True
        assert service.verifier.model is not shipped
        assert "school" in service.verifier.model.note
        # None of the judged wordings is terse: they share the school's general threshold.
        assert service.verifier.model.terse_threshold is None
    finally:
        service.close()
