"""Photo asks after question selection: the chosen problem is asked, the page is logged,
equal claims are offered, and the student's edit is logged as a correction."""

from __future__ import annotations

import sqlite3

import pytest

from appliance.ask.card import CHOOSE_MESSAGE
from appliance.ask.service import AskService, NotAPhotoAsk
from appliance.db.store import Store
from appliance.ocr.result import OcrResult
from tests.appliance.ask.evidence import seen, sure


class FixedReader:
    """Stands in for the OCR reader: every photo reads as ``result``."""

    def __init__(self, result: OcrResult):
        self.result = result

    def read(self, photo: bytes, client: str = "") -> OcrResult:
        return self.result

    def close(self) -> None:
        pass


def result(text: str, page_text: str, choices: tuple[str, ...] = (), look_alikes=(), evidence=()) -> OcrResult:
    return OcrResult(text=text, confidence=0.95, lines=(), stage_ms={"det": 1.0}, sha256="ab" * 32,
                     backend="fake", page_text=page_text, choices=choices, look_alikes=look_alikes,
                     evidence=evidence)


@pytest.fixture
def service(config):
    svc = AskService.open(config)
    yield svc
    svc.close()


def test_the_chosen_problem_is_asked_and_the_whole_page_is_logged(service):
    page = "第一题（5分）\n9．解方程：2x + 3 = 11\n10．解方程：2x + 3 = 13"
    service.ocr = FixedReader(result("解方程：2x + 3 = 11", page))
    card = service.ask_photo(b"photo", client="c")
    assert card.matched_id == "demo-math-002" and card.question == "解方程：2x + 3 = 11"
    row = service.asks.get(card.ask_id)
    assert row["question"] == "解方程：2x + 3 = 11" and row["ocr_text"] == page


def test_equal_claims_are_offered_never_answered(service):
    choices = ("解方程：2x + 3 = 11", "解方程：2x + 3 = 13")
    service.ocr = FixedReader(result(choices[0], "1. 解方程：2x + 3 = 11\n2. 解方程：2x + 3 = 13", choices))
    card = service.ask_photo(b"photo", client="c")
    assert card.abstained and card.matched_id is None and card.answer is None
    assert card.choices == list(choices) and card.message == CHOOSE_MESSAGE
    row = service.asks.get(card.ask_id)
    assert row["kind"] == "photo" and row["abstained"] and "2x + 3 = 13" in row["ocr_text"]
    assert service.decide_photo_only(b"photo").best is None


def test_an_edited_text_is_asked_and_logged_as_a_correction_of_the_photo_ask(service):
    service.ocr = FixedReader(result("解方程：2x + 3 = 1l", "解方程：2x + 3 = 1l"))
    photo_card = service.ask_photo(b"photo", client="c")
    fixed = service.ask_correction("解方程：2x + 3 = 11", photo_card.ask_id, client="c")
    assert fixed.matched_id == "demo-math-002" and fixed.corrects == photo_card.ask_id
    row = service.asks.get(fixed.ask_id)
    assert row["kind"] == "photo_edit" and row["corrects_ask_id"] == photo_card.ask_id
    again = service.ask_correction("解方程：2x + 3 = 13", fixed.ask_id)  # an edit of the edit
    assert service.asks.get(again.ask_id)["corrects_ask_id"] == photo_card.ask_id


def test_only_photo_asks_can_be_corrected(service):
    typed = service.ask("解方程：2x + 3 = 11")
    with pytest.raises(NotAPhotoAsk):
        service.ask_correction("解方程：2x + 3 = 13", typed.ask_id)
    with pytest.raises(NotAPhotoAsk):
        service.ask_correction("解方程：2x + 3 = 13", 10**6)
    assert service.asks.count() == 1  # nothing logged for a refused correction


def test_a_database_from_before_corrections_gains_the_column(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE asks (id INTEGER PRIMARY KEY AUTOINCREMENT, asked_at TEXT NOT NULL, "
                 "client TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL, question TEXT NOT NULL, "
                 "truncated INTEGER NOT NULL DEFAULT 0, ocr_text TEXT, ocr_confidence REAL, photo_sha256 TEXT, "
                 "matched_id TEXT, confidence REAL NOT NULL, abstained INTEGER NOT NULL, stage_ms TEXT NOT NULL, "
                 "backend TEXT NOT NULL, feedback TEXT, review_status TEXT NOT NULL DEFAULT 'pending', "
                 "teacher_answer TEXT)")
    conn.execute("INSERT INTO asks (asked_at, kind, question, confidence, abstained, stage_ms, backend) "
                 "VALUES ('t', 'text', 'q', 0.5, 0, '{}', 'x')")
    conn.commit()
    conn.close()
    store = Store(path)
    columns = [r[0] for r in store.query("SELECT name FROM pragma_table_info('asks')")]
    assert "corrects_ask_id" in columns and store.query("SELECT question FROM asks") == [("q",)]
    store.close()


def test_a_character_the_recogniser_doubted_is_searched_as_its_look_alike_for_that_photo_only(service):
    # 「log₂8」 read as loq28, g the recogniser's runner-up for q: the bank's question
    service.ocr = FixedReader(result("求loq28的值。", "第1题 求loq28的值。", look_alikes=(("q", "g"),)))
    card = service.ask_photo(b"photo", client="c")
    assert card.matched_id == "demo-math-036" and not card.abstained
    # the same text from a photo where the recogniser had no doubt abstains (no cached answer)
    service.ocr = FixedReader(result("求loq28的值。", "第1题 求loq28的值。"))
    assert service.ask_photo(b"photo", client="c").abstained


def test_a_blurred_reading_is_answered_where_the_recogniser_saw_the_bank_question(service):
    # a blurred photo of "Translate into Chinese: Practice makes perfect.": the recogniser's
    # best classes spell nonsense, its runners-up the printed words
    steps = (sure("Transtate into C", at5={"t": 0.6, "l": 0.35}) + [{"": 0.7, "h": 0.3}]
             + sure("inese: Nractice makes paniect.", at7={"N": 0.6, "P": 0.4}, at23={"a": 0.5, "e": 0.45},
                    at24={"n": 0.6, "r": 0.3}, at25={"i": 0.5, "f": 0.4}))
    read = seen(*sure("3. ")[:-1], *steps)
    text = "Transtate into Cinese: Nractice makes paniect."
    service.ocr = FixedReader(result(text, "3. " + text))
    assert service.ask_photo(b"photo", client="c").abstained  # the words alone
    service.ocr = FixedReader(result(text, "3. " + text, evidence=(read,)))
    card = service.ask_photo(b"photo", client="c")
    assert card.matched_id == "demo-eng-008" and not card.abstained and card.question == text
    # a sure reading of another word is no such support
    other = seen(*sure("3. Transtate into Cinese: Nractice makes paniect."))
    service.ocr = FixedReader(result(text, "3. " + text, evidence=(other,)))
    assert service.decide_photo_only(b"photo").abstained
