"""A benchmark's input CSV (a query set, an OCR photo folder's truth): UTF-8 (a byte-order
mark allowed) under one header row; a file that is missing, not UTF-8 CSV or headed
otherwise raises the caller's own error type with a message that names the file."""

from __future__ import annotations

import csv
from pathlib import Path


def read_rows(path: str | Path, header: tuple[str, ...], error: type[Exception], missing: str) -> list[list[str]]:
    """The rows under ``header``; ``missing``: the message when there is no such file."""
    try:
        with Path(path).open(encoding="utf-8-sig", newline="") as fh:
            rows = list(csv.reader(fh))
    except FileNotFoundError:
        raise error(missing) from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise error(f"{path} is not a UTF-8 CSV file: {exc}") from None
    if not rows or tuple(h.strip() for h in rows[0]) != header:
        raise error(f"{path}: header must be {','.join(header)}")
    return rows[1:]
