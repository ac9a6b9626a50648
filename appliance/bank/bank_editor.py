"""The teachers' bank editor: search, edit, delete, import and export question-bank entries.

Edits go through :meth:`QuestionBank.upsert`; every change bumps the bank version, so
the answer cache and the dense index follow on the next ask.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

from appliance.db import review_sql

from appliance.db import sql
from appliance.bank.bank_file import (
    MAX_ANSWER_CHARS,
    MAX_KNOWLEDGE_POINTS,
    MAX_QUESTION_CHARS,
    BankEntry,
)
from appliance.bank.kb import BANK_VERSION_KEY, ImportSummary, QuestionBank
from appliance.db.store import Store

log = logging.getLogger(__name__)

EDITED_ORIGIN = "teacher"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,63}$")
_POINT_SPLIT = re.compile(r"[;；,，、\n]")


class BankEntryError(ValueError):
    """An entry typed by a teacher is incomplete or too long."""


class UnknownEntry(BankEntryError):
    """No bank entry with that id."""


def split_points(text: str | list | tuple) -> tuple[str, ...]:
    parts = _POINT_SPLIT.split(text) if isinstance(text, str) else list(text)
    return tuple(p.strip() for p in parts if p and p.strip())


def make_entry(raw: dict) -> BankEntry:
    """A checked :class:`BankEntry` from form fields (the same rules as bank files)."""
    text = {k: str(raw.get(k) or "").strip() for k in ("id", "subject", "grade", "question", "answer", "source")}
    missing = [k for k in ("id", "subject", "question", "answer") if not text[k]]
    if missing:
        raise BankEntryError(f"missing {', '.join(missing)}")
    if not _ID.match(text["id"]):
        raise BankEntryError("id must be 1-64 letters, digits, '.', '_', ':' or '-'")
    if len(text["question"]) > MAX_QUESTION_CHARS:
        raise BankEntryError(f"question longer than {MAX_QUESTION_CHARS} characters")
    if len(text["answer"]) > MAX_ANSWER_CHARS:
        raise BankEntryError(f"answer longer than {MAX_ANSWER_CHARS} characters")
    points = split_points(raw.get("knowledge_points") or ())
    if len(points) > MAX_KNOWLEDGE_POINTS:
        raise BankEntryError(f"more than {MAX_KNOWLEDGE_POINTS} knowledge points")
    return BankEntry(id=text["id"], subject=text["subject"].lower(), grade=text["grade"],
                     question=text["question"], answer=text["answer"], knowledge_points=points,
                     source=text["source"])


class BankEditor:
    def __init__(self, store: Store, bank: QuestionBank):
        self.store = store
        self.bank = bank

    def search(self, text: str = "", subject: str = "", limit: int = 200) -> list[dict]:
        params = {"text": text.strip() or None, "subject": subject or None, "limit": max(1, min(limit, 5000))}
        keys = ("id", "subject", "grade", "question", "answer", "knowledge_points", "source", "origin")
        rows = [dict(zip(keys, r)) for r in self.store.query(review_sql.KB_SEARCH, params)]
        for row in rows:
            row["knowledge_points"] = tuple(json.loads(row["knowledge_points"]))
        return rows

    def subjects(self) -> list[str]:
        return [r[0] for r in self.store.query(review_sql.KB_SUBJECTS)]

    def get(self, entry_id: str) -> dict:
        entry = self.bank.get_many([entry_id]).get(entry_id)
        if entry is None:
            raise UnknownEntry(f"no bank entry {entry_id!r}")
        return entry

    def save(self, raw: dict, teacher: str) -> BankEntry:
        """Insert or replace one entry (by id). Edited entries become the school's own
        (origin "teacher"), so removing the demo bank keeps them."""
        entry = make_entry(raw)
        self.bank.upsert([entry], EDITED_ORIGIN)
        log.info("bank entry %s saved by %s", entry.id, teacher)
        return entry

    def delete(self, entry_id: str, teacher: str) -> None:
        with self.store.transaction() as conn:
            if conn.execute(review_sql.KB_DELETE_ONE, (entry_id,)).rowcount == 0:
                raise UnknownEntry(f"no bank entry {entry_id!r}")
            conn.execute(sql.EMB_DELETE_ORPHANS)
            conn.execute(sql.META_SET, (BANK_VERSION_KEY, str(self.bank.version() + 1)))
        log.info("bank entry %s deleted by %s", entry_id, teacher)

    def import_file(self, path: str | Path, skip_bad: bool) -> ImportSummary:
        """See :meth:`QuestionBank.import_file` (raises BankFileError / BankImportRejected)."""
        return self.bank.import_file(path, skip_bad=skip_bad)

    def export(self, path: str | Path) -> int:
        return self.bank.export(path)
