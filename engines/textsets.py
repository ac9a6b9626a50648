"""Read real text (calibration, held-back queries, bank) from plain files.

``.jsonl``: the ``question`` (and ``answer``, when ``with_answers``) or
``query``/``text`` field of each line; ``.csv``: the ``query``, ``question``
or ``text`` column; anything else: one text per line.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Iterable

from engines.precision_plan import TextData, read_text_sets

FIELDS = ("question", "query", "text")


class TextSetError(RuntimeError):
    """A text file could not be read."""


def _from_jsonl(path: Path, with_answers: bool) -> list[str]:
    texts = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise TextSetError(f"{path}:{number}: not JSON ({exc})") from exc
        texts += [str(row[f]) for f in FIELDS if row.get(f)][:1]
        if with_answers and row.get("answer"):
            texts.append(str(row["answer"]))
    return texts


def _from_csv(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        column = next((f for f in FIELDS if f in (reader.fieldnames or [])), None)
        if column is None:
            raise TextSetError(f"{path}: no column named {' / '.join(FIELDS)}")
        return [row[column] for row in reader if row.get(column)]


def read_texts(paths: Iterable[str | Path], with_answers: bool = False) -> list[str]:
    texts: list[str] = []
    for path in map(Path, paths):
        try:
            if path.suffix == ".jsonl":
                texts += _from_jsonl(path, with_answers)
            elif path.suffix == ".csv":
                texts += _from_csv(path)
            else:
                texts += path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise TextSetError(f"cannot read {path}: {exc}") from exc
    return texts


def load_text_data(calibration: Iterable[str | Path], queries: Iterable[str | Path],
                   bank: Iterable[str | Path]) -> TextData:
    """Calibration text (bank questions and answers, past questions), held-back queries, bank questions."""
    return read_text_sets(read_texts(calibration, with_answers=True), read_texts(queries), read_texts(bank))


def read_labelled(eval_csv: str | Path, bank_jsonl: str | Path):
    """An eval CSV (``query``, ``expected_id``) and a JSONL bank (``id``, ``question``)."""
    from engines.bench import LabelledEval

    try:
        with open(eval_csv, encoding="utf-8", newline="") as fh:
            rows = [r for r in csv.DictReader(fh) if r.get("query") and r.get("expected_id")]
        bank = [json.loads(line) for line in Path(bank_jsonl).read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        raise TextSetError(f"cannot read the labelled eval set: {exc}") from exc
    return LabelledEval(tuple(r["query"] for r in rows), tuple(r["expected_id"] for r in rows),
                        tuple(str(b["id"]) for b in bank), tuple(str(b["question"]) for b in bank))
