"""The words on the teacher and status pages: headings, stage names, subject names and
feedback in the page's language (no raw English keys on a Chinese page, no emoji)."""

from __future__ import annotations

from datetime import timezone

from appliance.asklog.review import ReviewRow
from appliance.asklog.usage import UNMATCHED, Usage
from ui.i18n import subject_choices, subject_name
from ui.status import engines_frame, facts_html, latency_frame
from ui.status_data import EngineStatus, LatencyRow, StatusSnapshot
from ui.teacher_bank import entries_table
from ui.teacher_log import table
from ui.teacher_plots import frames


def snapshot() -> StatusSnapshot:
    return StatusSnapshot(
        engines=[EngineStatus(model="use-m3", backend="onnxruntime-cpu", precision="int8")],
        latency=[LatencyRow("ask (text)", 3, 5.0, 9.0, 9.9), LatencyRow("encode", 3, 2.0, 3.0, 3.1),
                 LatencyRow("a-new-stage", 1, 1.0, 1.0, 1.0)],
        queue_depth=0, disk_free_bytes=2**31, disk_total_bytes=2**33, db_bytes=2**20, bank_entries=164,
        asks_logged=7, taken_at=0.0)


def test_status_tables_are_in_the_page_language():
    zh = engines_frame(snapshot(), "zh")
    assert list(zh.columns)[:4] == ["模型", "运行方式", "版本", "精度"]
    assert list(engines_frame(snapshot(), "en").columns)[:2] == ["model", "backend"]
    latency = latency_frame(snapshot(), "zh")
    assert list(latency.columns)[:2] == ["环节", "次数"]
    assert list(latency.iloc[:, 0]) == ["整次提问（文字）", "编码", "a-new-stage"]  # unknown names as they are
    assert list(latency_frame(snapshot(), "en").iloc[:, 0]) == ["ask (text)", "encode", "a-new-stage"]
    facts = facts_html(snapshot(), "zh")
    assert "剩余 2.0 GiB，共 8.0 GiB" in facts and "164 道题" in facts and "free of" not in facts


def test_subjects_are_shown_by_name_and_stored_by_key():
    assert subject_name("zh", "math") == "数学" and subject_name("zh", "Biology") == "生物"
    assert subject_name("en", "math") == "Maths"
    assert subject_name("zh", "天文") == "天文" and subject_name("zh", None) == ""
    assert subject_choices("zh", ["physics", "天文"]) == [("物理", "physics"), ("天文", "天文")]


def _row(**changes) -> ReviewRow:
    values = dict(ask_id=1, asked_at="2026-11-30T08:00:00.000", kind="text", question="1+1=?", ocr_text=None,
                  ocr_confidence=None, photo_sha256=None, matched_id="m-1", subject="math", confidence=0.9,
                  abstained=False, feedback="up", review_status="pending", teacher_answer=None, client="10.0.0.1")
    return ReviewRow(**{**values, **changes})


def test_log_and_bank_tables_show_subject_names_and_feedback_as_words():
    zh = table([_row(), _row(ask_id=2, feedback="down", subject="chemistry")], timezone.utc, "zh")
    assert list(zh["学科"]) == ["数学", "化学"]
    assert list(zh["学生反馈"]) == ["有帮助", "没帮助"]
    assert list(zh["方式"]) == ["文字", "文字"]
    assert "👍" not in zh.to_string() and "👎" not in zh.to_string()
    bank = entries_table([{"id": "e1", "subject": "geography", "grade": "7", "question": "q", "answer": "a",
                           "knowledge_points": [], "origin": "demo"}], "zh")
    assert list(bank["学科"]) == ["地理"]


def test_plot_of_asks_by_subject_uses_names():
    usage = Usage(total=3, abstained=1, over_time=[], by_subject=[("math", 2), (UNMATCHED, 1)], confidence=[])
    assert list(frames(usage, "zh")["subjects"]["subject"]) == ["数学", "（未匹配）"]
