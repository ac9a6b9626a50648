"""The school's question bank: import, export, statistics and the bundled demo bank.

Writes go through one SQL upsert inside one transaction, so an import either lands
whole or not at all; triggers keep the FTS5 trigram index (``appliance/db/sql.py``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable

from tqdm import tqdm

from appliance.db import sql
from appliance.bank.bank_file import BankEntry, RowProblem, read_bank_file, write_bank_file
from appliance.common.clock import Clock, utc_now
from appliance.db.store import Store
from appliance.common.textnorm import search_form

log = logging.getLogger(__name__)

DEMO_ORIGIN = "demo"
IMPORT_ORIGIN = "import"
BANK_VERSION_KEY = "bank_version"


class BankImportRejected(ValueError):
    """The file has bad rows and ``skip_bad`` was not given: nothing was imported."""

    def __init__(self, path: Path, problems: list[RowProblem]):
        self.problems = problems
        super().__init__(
            f"{path}: {len(problems)} bad row(s), nothing imported "
            "(fix them, or import the good rows with --skip-bad)"
        )


@dataclass(frozen=True)
class ImportSummary:
    inserted: int
    updated: int
    skipped: list[RowProblem] = field(default_factory=list)


@dataclass(frozen=True)
class BankStats:
    entries: int
    by_subject: dict[str, int]
    by_origin: dict[str, int]
    asks: int


class QuestionBank:
    def __init__(self, store: Store, clock: Clock = utc_now):
        self.store = store
        self.clock = clock

    # -- reading -------------------------------------------------------------------
    def count(self) -> int:
        return self.store.query(sql.KB_COUNT)[0][0]

    def version(self) -> int:
        """Bumped by every change to the bank; caches keyed on it go stale on change."""
        return int(self.store.meta_get(BANK_VERSION_KEY, "0"))

    def get_many(self, ids: list[str]) -> dict[str, dict]:
        if not ids:
            return {}
        statement = sql.KB_BY_IDS.format(placeholders=",".join("?" * len(ids)))
        return {row["id"]: row for row in map(_entry_dict, self.store.query(statement, ids))}

    def all_entries(self) -> list[dict]:
        return [_entry_dict(row) for row in self.store.query(sql.KB_ALL)]

    def stats(self) -> BankStats:
        return BankStats(
            entries=self.count(),
            by_subject=dict(self.store.query(sql.KB_COUNT_BY_SUBJECT)),
            by_origin=dict(self.store.query(sql.KB_COUNT_BY_ORIGIN)),
            asks=self.store.query(sql.ASK_COUNT)[0][0],
        )

    # -- writing -------------------------------------------------------------------
    def upsert(self, entries: list[BankEntry], origin: str | Callable[[BankEntry], str],
               progress: bool = False) -> ImportSummary:
        """Insert or update ``entries`` in one transaction; ``origin`` names where they came
        from (or says so per entry)."""
        ids = [e.id for e in entries]
        existing = self._existing_ids(ids)
        now = self.clock()
        origin_of = origin if callable(origin) else (lambda _entry: origin)
        rows = (
            (e.id, e.subject, e.grade, e.question, e.answer,
             json.dumps(list(e.knowledge_points), ensure_ascii=False), e.source, origin_of(e),
             search_form(e.question), now, now)
            for e in tqdm(entries, desc="importing", unit="entry", disable=not progress)
        )
        with self.store.transaction() as conn:
            conn.executemany(sql.KB_UPSERT, rows)
            self._bump_version(conn)
        updated = len(existing)
        log.info("bank: %d inserted, %d updated", len(entries) - updated, updated)
        return ImportSummary(inserted=len(entries) - updated, updated=updated)

    def import_file(self, path: str | Path, skip_bad: bool = False, progress: bool = False) -> ImportSummary:
        """Import a CSV or JSONL file. With bad rows and no ``skip_bad``, nothing is stored."""
        parsed = read_bank_file(path)
        if parsed.problems and not skip_bad:
            raise BankImportRejected(Path(path), parsed.problems)
        summary = self.upsert(parsed.entries, demo_marker(), progress=progress)
        return ImportSummary(summary.inserted, summary.updated, parsed.problems)

    def remove_origin(self, origin: str) -> int:
        with self.store.transaction() as conn:
            removed = conn.execute(sql.KB_DELETE_BY_ORIGIN, (origin,)).rowcount
            conn.execute(sql.EMB_DELETE_ORPHANS)
            self._bump_version(conn)
        return removed

    def load_demo_if_empty(self) -> int:
        """Load the bundled demo bank into an empty bank; returns the entries loaded."""
        if self.count():
            return 0
        demo = read_bank_file(demo_bank_path())
        if demo.problems:  # a packaging bug, not a user error
            raise RuntimeError(f"bundled demo bank is broken: {demo.problems[0]}")
        self.upsert(demo.entries, DEMO_ORIGIN)
        log.info("bank was empty: loaded %d demo entries", len(demo.entries))
        return len(demo.entries)

    def export(self, path: str | Path) -> int:
        return write_bank_file(self.all_entries(), path)

    def _existing_ids(self, ids: list[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            statement = sql.KB_EXISTING_IDS.format(placeholders=",".join("?" * len(chunk)))
            found.update(row[0] for row in self.store.query(statement, chunk))
        return found

    def _bump_version(self, conn) -> None:
        conn.execute(sql.META_SET, (BANK_VERSION_KEY, str(self.version() + 1)))  # read in this transaction


def demo_marker() -> Callable[[BankEntry], str]:
    """Origin for an imported entry: ``demo`` when it is, field for field, an entry of the
    bundled demo bank (an exported and re-imported demo entry stays one, so
    ``kb remove-demo`` still removes it), else ``import``. An entry changed in any field is
    the school's own."""
    bundled = frozenset(read_bank_file(demo_bank_path()).entries)
    return lambda entry: DEMO_ORIGIN if entry in bundled else IMPORT_ORIGIN


def demo_bank_path() -> Path:
    return Path(str(resources.files("appliance") / "data" / "demo_bank.jsonl"))


def demo_eval_path() -> Path:
    return Path(str(resources.files("appliance") / "data" / "demo_eval.csv"))


_ENTRY_KEYS = ("id", "subject", "grade", "question", "answer", "knowledge_points", "source", "origin", "search_text")


def _entry_dict(row: Iterable) -> dict:
    entry = dict(zip(_ENTRY_KEYS, row))
    entry["knowledge_points"] = json.loads(entry["knowledge_points"])
    return entry
