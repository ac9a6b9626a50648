import json

import pytest

from appliance.bank.bank_file import FIELDS, read_bank_file
from appliance.bank.kb import BankImportRejected, DEMO_ORIGIN, QuestionBank, demo_bank_path, demo_eval_path
from appliance.bench.evaluation import read_queries
from appliance.db.store import Store

HEADER = ",".join(FIELDS)
SUBJECTS = {"math", "physics", "chemistry", "biology", "geography", "history", "chinese", "english"}


@pytest.fixture
def bank(tmp_path):
    return QuestionBank(Store(tmp_path / "kb.db"), clock=lambda: "2026-01-01T00:00:00.000Z")


def csv_file(tmp_path, *rows, name="bank.csv"):
    path = tmp_path / name
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return path


def test_import_upserts_by_id(bank, tmp_path):
    first = bank.import_file(csv_file(tmp_path, "a,math,7,q1,a1,kp,s", "b,math,7,q2,a2,kp,s"))
    assert (first.inserted, first.updated) == (2, 0)
    second = bank.import_file(csv_file(tmp_path, "b,math,7,q2 edited,a2,kp,s", "c,math,7,q3,a3,kp,s", name="b.csv"))
    assert (second.inserted, second.updated) == (1, 1)
    entries = {e["id"]: e for e in bank.all_entries()}
    assert entries["b"]["question"] == "q2 edited"
    assert bank.count() == 3


def test_bad_rows_import_nothing_unless_skip_bad(bank, tmp_path):
    bank.import_file(csv_file(tmp_path, "keep,math,7,q,a,,"))
    version = bank.version()
    bad = csv_file(tmp_path, "n1,math,7,q1,a1,,", "n2,math,7,,a2,,", "n1,math,7,q3,a3,,", name="bad.csv")
    with pytest.raises(BankImportRejected) as info:
        bank.import_file(bad)
    assert [p.line for p in info.value.problems] == [3, 4]
    assert bank.count() == 1 and bank.version() == version  # nothing half-imported
    summary = bank.import_file(bad, skip_bad=True)
    assert summary.inserted == 1 and len(summary.skipped) == 2
    assert bank.count() == 2


def test_fts_index_follows_upserts_and_deletes(bank, tmp_path):
    bank.import_file(csv_file(tmp_path, "a,math,7,解方程：2x + 3 = 13,x=5,,"))
    hit = "SELECT kb_entries.id FROM kb_entries_fts JOIN kb_entries ON kb_entries.rowid = kb_entries_fts.rowid WHERE kb_entries_fts MATCH ?"
    assert bank.store.query(hit, ('"x+3"',)) == [("a",)]
    bank.import_file(csv_file(tmp_path, "a,math,7,求三角形面积,…,,", name="b.csv"))
    assert bank.store.query(hit, ('"x+3"',)) == []
    assert bank.store.query(hit, ('"三角形"',)) == [("a",)]


def test_export_round_trip(bank, tmp_path):
    bank.import_file(csv_file(tmp_path, 'a,math,7,"say ""hi""",a1,k1;k2,s'))
    out = tmp_path / "out.jsonl"
    assert bank.export(out) == 1
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["question"] == 'say "hi"' and record["knowledge_points"] == ["k1", "k2"]


def test_demo_loads_only_into_an_empty_bank_and_can_be_removed(bank, tmp_path):
    loaded = bank.load_demo_if_empty()
    assert loaded >= 150
    assert bank.load_demo_if_empty() == 0
    stats = bank.stats()
    assert stats.by_origin == {DEMO_ORIGIN: loaded}
    bank.import_file(csv_file(tmp_path, "mine,math,7,q,a,,"))
    assert bank.remove_origin(DEMO_ORIGIN) == loaded
    assert [e["id"] for e in bank.all_entries()] == ["mine"]
    assert bank.load_demo_if_empty() == 0  # not empty: the demo stays out


def test_demo_bank_content_rules():
    parsed = read_bank_file(demo_bank_path())
    assert parsed.problems == []
    entries = parsed.entries
    assert len(entries) >= 150
    assert {e.subject for e in entries} == SUBJECTS
    assert all(1 <= len(e.knowledge_points) <= 3 and e.source and e.answer for e in entries)
    chinese = sum(any("\u4e00" <= ch <= "\u9fff" for ch in e.question) for e in entries)
    assert chinese / len(entries) > 0.6  # mostly Simplified Chinese
    assert len(entries) - chinese >= 15  # and some English


def test_demo_eval_set_matches_the_bank():
    ids = {e.id for e in read_bank_file(demo_bank_path()).entries}
    queries = read_queries(demo_eval_path())
    assert len(queries) >= 120
    assert {q.kind for q in queries} == {"exact", "paraphrase", "partial", "unanswerable"}
    assert all(q.expected_id in ids for q in queries if q.kind != "unanswerable")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_demo_entries_stay_demo_through_export_and_import(tmp_path, suffix):
    """Issue 14 item 6: export, import the same file into a fresh bank, then remove-demo."""
    old = QuestionBank(Store(tmp_path / "old.db"))
    loaded = old.load_demo_if_empty()
    old.import_file(csv_file(tmp_path, "mine,math,7,q,a,,"))
    exported = tmp_path / f"bank{suffix}"
    assert old.export(exported) == loaded + 1

    for name in ("same.db", "new.db"):  # into the bank it came from, and into a new box's bank
        bank = QuestionBank(Store(tmp_path / name))
        if name == "same.db":
            bank.load_demo_if_empty()
            bank.import_file(csv_file(tmp_path, "mine,math,7,q,a,,", name="mine.csv"))
        bank.import_file(exported)
        assert bank.stats().by_origin == {DEMO_ORIGIN: loaded, "import": 1}
        assert bank.remove_origin(DEMO_ORIGIN) == loaded
        assert [e["id"] for e in bank.all_entries()] == ["mine"]


def test_an_edited_demo_entry_is_the_schools_own(bank, tmp_path):
    demo = read_bank_file(demo_bank_path()).entries[0]
    edited = json.dumps({**demo.to_record(), "answer": demo.answer + "（老师补充）"}, ensure_ascii=False)
    path = tmp_path / "edited.jsonl"
    path.write_text(edited + "\n", encoding="utf-8")
    bank.import_file(path)
    assert bank.stats().by_origin == {"import": 1}
    assert bank.remove_origin(DEMO_ORIGIN) == 0
