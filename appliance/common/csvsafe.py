"""CSV cells a spreadsheet will not run: every CSV the appliance writes goes through
:func:`safe_writer`. A text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return would be read as a formula (``=HYPERLINK(...)`` sends data away when
the teacher clicks it); such a cell is written with a leading apostrophe, which
spreadsheets show as text. :func:`unescape_cell` undoes it when the appliance reads its
own export back (bank files), so an export → import round trip is exact."""

from __future__ import annotations

import csv
from typing import Any, Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def unescape_cell(text: str) -> str:
    if text.startswith("'") and text[1:2] and text[1:2] in FORMULA_STARTS:
        return text[1:]
    return text


class SafeCsvWriter:
    def __init__(self, fh, **kwargs):
        self._writer = csv.writer(fh, **kwargs)

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([safe_cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def safe_writer(fh, **kwargs) -> SafeCsvWriter:
    """A ``csv.writer`` whose text cells never start a formula."""
    return SafeCsvWriter(fh, **kwargs)
