"""The student page's ask flow with a stand-in service: text, photo, refusals, feedback,
and how each outcome is rendered (no browser, no models)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import pytest

from appliance.asklog.log import UnknownAskError
from appliance.common.batcher import Overloaded
from appliance.ask.card import AnswerCard, SimilarQuestion
from appliance.serve.ratelimit import RateLimiter
from appliance.asklog.review import PhotoArchive
from appliance.ask.service import NotAPhotoAsk, PhotoUnavailable
from appliance.common.textnorm import EmptyQuestionError
from ui.student import SIMILAR_SHOWN, NoTextFound, Outcome, StudentDesk, crop_box, render, tap

CARD = AnswerCard(ask_id=7, question="解方程：2x + 3 = 13", abstained=False, confidence=0.99, answer="x = 5",
                  matched_id="m1", matched_question="解方程：2x + 3 = 13", knowledge_points=["方程"], source="课本",
                  similar=[SimilarQuestion("m2", "解方程：2x + 3 = 11", 0.8)])


@dataclass
class FakeAsks:
    feedback: dict = field(default_factory=dict)

    def set_feedback(self, ask_id, value):
        if ask_id != 7:
            raise UnknownAskError(ask_id)
        self.feedback[ask_id] = value


@dataclass
class FakeBank:
    def get_many(self, ids):
        return {i: {"id": i, "question": "解方程：2x + 3 = 11", "answer": "x = 4"} for i in ids if i == "m2"}


@dataclass
class FakeService:
    photo: Exception | None = None
    text_error: Exception | None = None
    asks: FakeAsks = field(default_factory=FakeAsks)
    bank: FakeBank = field(default_factory=FakeBank)
    seen: list = field(default_factory=list)
    photo_card: AnswerCard = CARD

    def ask(self, text, client=""):
        self.seen.append(("text", text, client))
        if self.text_error:
            raise self.text_error
        if not text.strip():
            raise EmptyQuestionError("empty")
        return CARD

    def ask_photo(self, data, client="", crop=None):
        self.seen.append(("photo", len(data), client) if crop is None else ("photo", len(data), client, crop))
        if self.photo:
            raise self.photo
        return self.photo_card

    def ask_correction(self, text, photo_ask_id, client=""):
        self.seen.append(("correction", text, photo_ask_id))
        if photo_ask_id != 7:
            raise NotAPhotoAsk(photo_ask_id)
        return AnswerCard(ask_id=9, question=text, abstained=False, confidence=0.9, answer="x = 4", corrects=7)


def desk(tmp_path, service, burst=100):
    return StudentDesk(service, PhotoArchive(tmp_path / "photos"), RateLimiter(60, burst, clock=lambda: 0.0))


def test_text_ask_renders_the_card(tmp_path):
    service = FakeService()
    outcome = desk(tmp_path, service).ask("解方程：2x + 3 = 13", None, "10.0.0.5")
    assert outcome.card["ask_id"] == 7 and service.seen == [("text", "解方程：2x + 3 = 13", "10.0.0.5")]
    updates = render(outcome, "zh")
    message, read, answer, meta = updates[:4]
    assert message["visible"] is False and read["visible"] is False
    assert answer["value"] == "x = 5" and "方程" in meta["value"]
    buttons = updates[4:4 + SIMILAR_SHOWN]
    assert buttons[0]["value"] == "解方程：2x + 3 = 11" and buttons[1]["visible"] is False


def test_photo_ask_keeps_the_photo_and_shows_what_was_read(tmp_path):
    photo = tmp_path / "q.jpg"
    photo.write_bytes(b"\xff\xd8\xff" + b"1" * 50)
    service = FakeService()
    student = desk(tmp_path, service)
    outcome = student.ask("", str(photo), "10.0.0.5")
    assert outcome.from_photo and service.seen[0][0] == "photo"
    sha = hashlib.sha256(photo.read_bytes()).hexdigest()
    assert student.archive.find(sha) is not None
    updates = render(outcome, "zh")
    read, reask = updates[1], updates[-2]
    assert read["visible"] is True and "从照片中读到的题目" in read["label"]
    assert read["value"] == "解方程：2x + 3 = 13" and reask["visible"] is True


def test_photo_without_text_is_kept_for_the_teacher(tmp_path):
    photo = tmp_path / "blank.png"
    photo.write_bytes(b"\x89PNG" + b"0" * 50)
    student = desk(tmp_path, FakeService(photo=NoTextFound()))
    outcome = student.ask("", str(photo), "c")
    assert outcome.card is None and outcome.message_text
    assert student.archive.find(hashlib.sha256(photo.read_bytes()).hexdigest()) is not None


@pytest.mark.parametrize("error, key", [(PhotoUnavailable("no"), "photo_unavailable"), (Overloaded("busy"), "busy"),
                                        (RuntimeError("boom"), "failed")])
def test_failures_become_kind_messages(tmp_path, error, key):
    photo = tmp_path / "q.jpg"
    photo.write_bytes(b"\xff\xd8\xff")
    service = FakeService(photo=error, text_error=error)
    outcome = desk(tmp_path, service).ask("q", str(photo), "c")
    assert outcome == Outcome(message_key=key)
    message = render(outcome, "en")[0]
    assert message["visible"] is True and "Traceback" not in message["value"] and "boom" not in message["value"]


def test_empty_question_and_rate_limit(tmp_path):
    assert desk(tmp_path, FakeService()).ask("   ", None, "c").message_key == "empty"
    limited = desk(tmp_path, FakeService(), burst=1)
    assert limited.ask("q", None, "c").card is not None
    refused = limited.ask("q", None, "c")
    assert refused.message_key == "too_many" and "秒后再试" in render(refused, "zh")[0]["value"]


def test_abstained_card_shows_the_kind_message_and_no_answer(tmp_path):
    abstained = AnswerCard(ask_id=8, question="q", abstained=True, confidence=0.1, message="x")
    updates = render(Outcome(card=abstained.to_dict()), "zh")
    assert "老师会看到你的问题" in updates[0]["value"] and updates[2]["visible"] is False


def test_feedback_and_similar(tmp_path):
    service = FakeService()
    student = desk(tmp_path, service)
    card = CARD.to_dict()
    assert student.feedback(card, "down") and service.asks.feedback == {7: "down"}
    assert not student.feedback({**card, "ask_id": 99}, "up")
    assert not student.feedback(None, "up")
    assert student.similar_entry(card, 0)["answer"] == "x = 4"
    assert student.similar_entry(card, 2) is None


@pytest.mark.parametrize("error", ["InvalidTextError", "QuestionTooLongError"])
def test_bad_text_gets_a_clear_message_not_a_generic_failure(tmp_path, error):  # issue 12, F1 on the page
    from appliance.common import textnorm

    service = FakeService(text_error=getattr(textnorm, error)("bad"))
    outcome = desk(tmp_path, service).ask("\ud800", None, "c")
    assert outcome == Outcome(message_key="bad_text")
    assert "plain words" in render(outcome, "en")[0]["value"]


def test_the_student_page_queue_is_bounded(tmp_path):  # issue 12, F7 on the page
    from appliance.ui_config import UiConfig
    from ui.student import build_student

    page = build_student(desk(tmp_path, FakeService()), UiConfig(student_concurrency=4))
    assert page._queue.max_size == 32


def test_the_edited_text_is_asked_as_a_correction_of_the_photo_ask(tmp_path):
    photo = tmp_path / "q.jpg"
    photo.write_bytes(b"\xff\xd8\xff" + b"1" * 50)
    service = FakeService()
    student = desk(tmp_path, service)
    first = student.ask("", str(photo), "c")
    fixed = student.correct("解方程：2x + 3 = 11", first, "c")
    assert service.seen[-1] == ("correction", "解方程：2x + 3 = 11", 7)
    assert fixed.from_photo and fixed.card["corrects"] == 7
    again = student.correct("解方程：2x + 3 = 13", fixed, "c")  # an edit of the edit still corrects ask 7
    assert service.seen[-1] == ("correction", "解方程：2x + 3 = 13", 7) and again.card is not None
    updates = render(fixed, "en")
    assert updates[1]["value"] == "解方程：2x + 3 = 11" and updates[2]["value"] == "x = 4"


def test_a_correction_needs_a_photo_ask_first(tmp_path):
    service = FakeService()
    student = desk(tmp_path, service)
    typed = student.ask("解方程：2x + 3 = 13", None, "c")
    assert student.correct("x", typed, "c").message_key == "not_a_photo_ask"
    assert student.correct("x", None, "c").message_key == "not_a_photo_ask"
    assert all(kind != "correction" for kind, *_ in service.seen)


def test_equal_claims_are_offered_to_pick(tmp_path):
    photo = tmp_path / "q.jpg"
    photo.write_bytes(b"\xff\xd8\xff" + b"1" * 50)
    choices = ["解方程：2x + 3 = 11", "解方程：2x + 3 = 13"]
    card = AnswerCard(ask_id=7, question="", abstained=True, confidence=0.0, message="pick one", choices=choices)
    service = FakeService(photo_card=card)
    outcome = desk(tmp_path, service).ask("", str(photo), "c")
    updates = render(outcome, "zh")
    message, answer, radio = updates[0], updates[2], updates[-1]
    assert radio["visible"] is True and radio["choices"] == choices
    assert "pick one" in message["value"] and answer["visible"] is False



def test_two_taps_on_the_photo_crop_what_is_read(tmp_path):
    photo = tmp_path / "q.jpg"
    photo.write_bytes(b"\xff\xd8\xff" + b"1" * 50)
    points = tap(tap((), [400, 300]), [40, 20])
    assert crop_box(points) == (400.0, 300.0, 40.0, 20.0)
    assert tap(points, [5, 5]) == ((5.0, 5.0),) and crop_box(tap((), [1, 1])) is None  # a third tap restarts
    service = FakeService()
    desk(tmp_path, service).ask("", str(photo), "c", crop_box(points))
    assert service.seen[-1] == ("photo", 53, "c", (400.0, 300.0, 40.0, 20.0))
