"""A benchmark's input CSV: rows under one header, each failure a clear error of the caller's type."""

import pytest

from appliance.bench.csv_input import read_rows
from appliance.bench.evaluation import QueryFileError, read_queries


class Refused(Exception):
    pass


def test_rows_under_the_header_with_or_without_a_byte_order_mark(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("\ufeffqid, text\nq1,解方程\n", encoding="utf-8")
    assert read_rows(path, ("qid", "text"), Refused, "none") == [["q1", "解方程"]]


@pytest.mark.parametrize("content, message", [
    (b"\xff\xfe\x00q", "is not a UTF-8 CSV file"),
    (b"", "header must be qid,text"),
    (b"id,question\nq1,x\n", "header must be qid,text"),
])
def test_a_file_that_is_not_the_csv_asked_for_says_so(tmp_path, content, message):
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    with pytest.raises(Refused, match=message):
        read_rows(path, ("qid", "text"), Refused, "none")


def test_a_missing_file_gets_the_callers_message(tmp_path):
    with pytest.raises(Refused, match="^no truth here$"):
        read_rows(tmp_path / "absent.csv", ("qid", "text"), Refused, "no truth here")
    with pytest.raises(QueryFileError, match="query file not found"):
        read_queries(tmp_path / "absent.csv")
