import json

import pytest

from appliance.bank.bank_file import BankFileError, FIELDS, read_bank_file, write_bank_file

HEADER = ",".join(FIELDS)


def csv_file(tmp_path, *rows, header=HEADER, name="bank.csv"):
    path = tmp_path / name
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def test_good_csv_with_knowledge_points_split(tmp_path):
    path = csv_file(tmp_path, 'm1,math,7,解方程：2x + 3 = 13,x = 5,一元一次方程;移项,人教版 七上 第三章',
                    'm2,Math,7,"Quoted, with comma",answer,,')
    parsed = read_bank_file(path)
    assert parsed.problems == []
    assert [e.id for e in parsed.entries] == ["m1", "m2"]
    assert parsed.entries[0].knowledge_points == ("一元一次方程", "移项")
    assert parsed.entries[1].subject == "math"
    assert parsed.entries[1].question == "Quoted, with comma"


def test_wrong_header_is_a_file_error(tmp_path):
    path = csv_file(tmp_path, "m1,math,q,a", header="id,subject,question,answer")
    with pytest.raises(BankFileError, match="wrong CSV header"):
        read_bank_file(path)


def test_bad_encoding_names_the_line(tmp_path):
    path = tmp_path / "gbk.csv"
    path.write_bytes((HEADER + "\n").encode() + "m1,math,7,解方程,答案,,\n".encode("gbk"))
    with pytest.raises(BankFileError, match="not UTF-8.*line 2"):
        read_bank_file(path)


def test_row_problems_carry_line_numbers(tmp_path):
    path = csv_file(
        tmp_path,
        "m1,math,7,q1,a1,,",
        "m2,math,7,,a2,,",          # missing question
        "m3,math,7,q3",             # too few fields
        "m1,math,7,q4,a4,,",        # duplicate id
        "bad id!,math,7,q5,a5,,",   # id with space and !
    )
    parsed = read_bank_file(path)
    assert [e.id for e in parsed.entries] == ["m1"]
    messages = {p.line: p.message for p in parsed.problems}
    assert "missing question" in messages[3]
    assert "expected 7 fields" in messages[4]
    assert "duplicate id, first seen on line 2" in messages[5]
    assert "id must be" in messages[6]


def test_jsonl_accepts_lists_and_reports_garbage(tmp_path):
    path = tmp_path / "bank.jsonl"
    good = {"id": "e1", "subject": "english", "grade": 8, "question": "q", "answer": "a",
            "knowledge_points": ["tense"], "source": "s"}
    path.write_text("\n".join([
        json.dumps(good),
        "{not json",
        json.dumps([1, 2]),
        json.dumps({**good, "id": "e2", "colour": "red"}),
        json.dumps({**good, "id": "e3", "knowledge_points": [1, 2]}),
    ]), encoding="utf-8")
    parsed = read_bank_file(path)
    assert [e.id for e in parsed.entries] == ["e1"]
    assert parsed.entries[0].grade == "8"
    assert [p.line for p in parsed.problems] == [2, 3, 4, 5]
    assert "unknown field(s): colour" in parsed.problems[2].message


def test_binary_garbage_and_empty_files(tmp_path):
    garbage = tmp_path / "photo.csv"
    garbage.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(BankFileError):
        read_bank_file(garbage)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(BankFileError, match="empty"):
        read_bank_file(empty)
    with pytest.raises(BankFileError, match="not found"):
        read_bank_file(tmp_path / "absent.csv")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_write_then_read_round_trip(tmp_path, suffix):
    entries = [{"id": "x1", "subject": "math", "grade": "7", "question": 'say "hi", then <b>',
                "answer": "line1\nline2", "knowledge_points": ["a", "b"], "source": "ch1"}]
    path = tmp_path / ("out" + suffix)
    assert write_bank_file(entries, path) == 1
    back = read_bank_file(path)
    assert back.problems == []
    assert back.entries[0].to_record() == entries[0]


def test_bank_csv_export_neutralises_formulas_and_reads_back_exactly(tmp_path):  # issue 12, F4
    from appliance.bank.bank_file import write_bank_file

    entry = {"id": "q1", "subject": "math", "grade": "", "question": "=1+1 是多少?", "answer": "-2",
             "knowledge_points": ["@kp"], "source": "+src"}
    path = tmp_path / "bank.csv"
    write_bank_file([entry], path)
    text = path.read_text(encoding="utf-8")
    assert "'=1+1" in text and "'-2" in text and "'+src" in text
    back = read_bank_file(path).entries[0].to_record()
    assert back["question"] == "=1+1 是多少?" and back["answer"] == "-2" and back["source"] == "+src"
