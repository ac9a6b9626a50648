"""Reading and writing question-bank files (CSV and JSONL), with a per-row report.

A file is read completely and every row checked before anything is stored: the
caller gets the good entries and a list of :class:`RowProblem` (line number and
what is wrong), and decides whether to import.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

from appliance.common.csvsafe import safe_writer, unescape_cell

FIELDS = ("id", "subject", "grade", "question", "answer", "knowledge_points", "source")
REQUIRED = ("id", "subject", "question", "answer")
MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_QUESTION_CHARS = 5000
MAX_ANSWER_CHARS = 20000
MAX_KNOWLEDGE_POINTS = 10
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,63}$")
_KP_SPLIT = re.compile(r"[;；]")


class BankFileError(ValueError):
    """The file as a whole cannot be read (missing, wrong header, not UTF-8, not CSV/JSONL)."""


@dataclass(frozen=True)
class BankEntry:
    id: str
    subject: str
    grade: str
    question: str
    answer: str
    knowledge_points: tuple[str, ...]
    source: str

    def to_record(self) -> dict:
        record = asdict(self)
        record["knowledge_points"] = list(self.knowledge_points)
        return record


@dataclass(frozen=True)
class RowProblem:
    line: int
    entry_id: str
    message: str

    def __str__(self) -> str:
        who = f" (id {self.entry_id})" if self.entry_id else ""
        return f"line {self.line}{who}: {self.message}"


@dataclass
class BankFile:
    path: Path
    entries: list[BankEntry] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)


def read_bank_file(path: str | Path) -> BankFile:
    """Parse and check a CSV or JSONL bank file. Raises :class:`BankFileError` for
    file-level problems; row-level problems are collected in ``problems``."""
    path = Path(path)
    text = _read_utf8(path)
    kind = _kind(path, text)
    rows = _csv_rows(text) if kind == "csv" else _jsonl_rows(text)
    result = BankFile(path)
    seen: dict[str, int] = {}
    for line, raw, error in rows:
        if error:
            result.problems.append(RowProblem(line, "", error))
            continue
        entry, problem = _check_row(line, raw)
        if problem:
            result.problems.append(problem)
        elif entry.id in seen:
            result.problems.append(
                RowProblem(line, entry.id, f"duplicate id, first seen on line {seen[entry.id]}")
            )
        else:
            seen[entry.id] = line
            result.entries.append(entry)
    return result


def _read_utf8(path: Path) -> str:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise BankFileError(f"file not found: {path}") from None
    except OSError as exc:
        raise BankFileError(f"cannot read {path}: {exc.strerror}") from None
    if size > MAX_FILE_BYTES:
        raise BankFileError(f"{path} is {size // 2**20} MB; the limit is {MAX_FILE_BYTES // 2**20} MB")
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise BankFileError(
            f"{path} is not UTF-8 (bad byte at line {line}); save it as UTF-8 and try again"
        ) from None


def _kind(path: Path, text: str) -> str:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    return "jsonl" if text.lstrip().startswith("{") else "csv"


def _csv_rows(text: str) -> Iterable[tuple[int, dict | None, str]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise BankFileError("the file is empty") from None
    except csv.Error as exc:
        raise BankFileError(f"not a readable CSV file: {exc}") from None
    header = [h.strip() for h in header]
    if tuple(header) != FIELDS:
        raise BankFileError(
            f"wrong CSV header: expected {','.join(FIELDS)}, found {','.join(header)[:200]}"
        )
    try:
        for values in reader:
            line = reader.line_num
            if not any(v.strip() for v in values):
                continue
            if len(values) != len(FIELDS):
                yield line, None, f"expected {len(FIELDS)} fields, found {len(values)}"
                continue
            yield line, dict(zip(FIELDS, (unescape_cell(v) for v in values))), ""
    except csv.Error as exc:
        raise BankFileError(f"not a readable CSV file (line {reader.line_num}): {exc}") from None


def _jsonl_rows(text: str) -> Iterable[tuple[int, dict | None, str]]:
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            yield line, None, f"not valid JSON: {exc.msg}"
            continue
        if not isinstance(obj, dict):
            yield line, None, "each line must be a JSON object"
            continue
        unknown = sorted(set(obj) - set(FIELDS))
        if unknown:
            yield line, None, f"unknown field(s): {', '.join(unknown)}"
            continue
        yield line, obj, ""


def _check_row(line: int, raw: dict) -> tuple[BankEntry | None, RowProblem | None]:
    entry_id = _text(raw.get("id"))
    missing = [f for f in REQUIRED if not _text(raw.get(f))]
    if missing:
        return None, RowProblem(line, entry_id, f"missing {', '.join(missing)}")
    for name in FIELDS:
        value = raw.get(name)
        if value is not None and not isinstance(value, (str, int, float, list)):
            return None, RowProblem(line, entry_id, f"{name} has an unsupported type")
    if not _ID.match(entry_id):
        return None, RowProblem(
            line, entry_id[:64], "id must be 1-64 letters, digits, '.', '_', ':' or '-'"
        )
    question, answer = _text(raw["question"]), _text(raw["answer"])
    if len(question) > MAX_QUESTION_CHARS:
        return None, RowProblem(line, entry_id, f"question longer than {MAX_QUESTION_CHARS} characters")
    if len(answer) > MAX_ANSWER_CHARS:
        return None, RowProblem(line, entry_id, f"answer longer than {MAX_ANSWER_CHARS} characters")
    points = _knowledge_points(raw.get("knowledge_points"))
    if points is None:
        return None, RowProblem(line, entry_id, "knowledge_points must be text separated by ';' or a list of text")
    if len(points) > MAX_KNOWLEDGE_POINTS:
        return None, RowProblem(line, entry_id, f"more than {MAX_KNOWLEDGE_POINTS} knowledge points")
    entry = BankEntry(
        id=entry_id,
        subject=_text(raw["subject"]).lower(),
        grade=_text(raw.get("grade")),
        question=question,
        answer=answer,
        knowledge_points=points,
        source=_text(raw.get("source")),
    )
    return entry, None


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value.strip() if isinstance(value, str) else ""


def _knowledge_points(value) -> tuple[str, ...] | None:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        parts = _KP_SPLIT.split(value)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = value
    else:
        return None
    return tuple(p.strip() for p in parts if p.strip())


#: File name endings an export understands, and the format each one gets.
EXPORT_KINDS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def write_bank_file(entries: Iterable[dict], path: str | Path) -> int:
    """Write entries (dicts with FIELDS; knowledge_points a list) as CSV or JSONL by suffix.
    Raises :class:`BankFileError` for another suffix or a file that cannot be written."""
    path = Path(path)
    kind = EXPORT_KINDS.get(path.suffix.lower())
    if kind is None:
        raise BankFileError(f"cannot tell the format from the name {path.name!r}: "
                            f"end it with {', '.join(EXPORT_KINDS)}")
    try:
        return _write_entries(entries, path, kind)
    except OSError as exc:
        raise BankFileError(f"cannot write {path}: {exc.strerror or exc}") from None


def _write_entries(entries: Iterable[dict], path: Path, kind: str) -> int:
    count = 0
    with path.open("w", encoding="utf-8", newline="") as fh:
        if kind == "csv":
            writer = safe_writer(fh)
            writer.writerow(FIELDS)
            for e in entries:
                writer.writerow([";".join(e[f]) if f == "knowledge_points" else e[f] for f in FIELDS])
                count += 1
        else:
            for e in entries:
                fh.write(json.dumps({f: e[f] for f in FIELDS}, ensure_ascii=False) + "\n")
                count += 1
    return count
