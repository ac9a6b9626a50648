"""What the teachers taught the appliance about wordings: aliases and known negatives.

* An **alias** is a student's wording that a teacher approved as asking bank entry E.
  The ask path compares later questions with it as with E's own question; it is never
  shown to students.
* A **known negative** is a (wording, entry) pair a teacher marked "not this problem":
  that entry is never given again for that wording.

Both live in SQLite (``kb_aliases``, ``kb_negatives``; SQL in :mod:`appliance.db.sql`),
so they survive a restart. Every change bumps a version in ``meta``, which the ask
path watches to reload them and to forget cached answers.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from appliance.common.clock import Clock, utc_now
from appliance.common.textnorm import search_form
from appliance.db import sql
from appliance.db.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TeacherLabel:
    """One judgement: ``wording`` asks entry ``entry_id`` (right) or does not (wrong)."""

    wording: str
    entry_id: str
    right: bool


@dataclass(frozen=True)
class MemorySnapshot:
    version: int
    aliases: list[tuple[str, str]]  # (entry id, wording)
    negatives: list[tuple[str, str]]  # (wording, entry id)


class TeacherMemory:
    def __init__(self, store: Store, clock: Clock = utc_now):
        self.store = store
        self.clock = clock

    def version(self) -> int:
        return int(self.store.meta_get(sql.TEACHER_MEMORY_VERSION_KEY, "0"))

    def add_alias(self, wording: str, entry_id: str, ask_id: int | None = None, teacher: str = "") -> None:
        """``wording`` asks ``entry_id``: answer it with that entry from now on (and drop a
        earlier rejection of the same pair)."""
        self._remember(sql.ALIAS_UPSERT, sql.NEGATIVE_DELETE, wording, entry_id, ask_id, teacher)
        log.info("alias added for %s by %s", entry_id, teacher or "-")

    def add_negative(self, wording: str, entry_id: str, ask_id: int | None = None, teacher: str = "") -> None:
        """``wording`` does not ask ``entry_id``: never answer it with that entry again."""
        self._remember(sql.NEGATIVE_UPSERT, sql.ALIAS_DELETE, wording, entry_id, ask_id, teacher)
        log.info("known negative added for %s by %s", entry_id, teacher or "-")

    def _remember(self, upsert: str, delete_opposite: str, wording: str, entry_id: str,
                  ask_id: int | None, teacher: str) -> None:
        """Record one (wording, entry) verdict, dropping the opposite verdict on the same pair."""
        form = _form(wording)
        with self.store.transaction() as conn:
            conn.execute(delete_opposite, (form, entry_id))
            conn.execute(upsert, (form, entry_id, wording, ask_id, teacher, self.clock()))
            self._bump(conn)

    def snapshot(self) -> MemorySnapshot:
        version = self.version()
        aliases = [(e, w) for e, w in self.store.query(sql.ALIAS_ALL)]
        negatives = [(w, e) for w, e in self.store.query(sql.NEGATIVE_ALL)]
        return MemorySnapshot(version, aliases, negatives)

    def labels(self) -> list[TeacherLabel]:
        """The judgements teachers made on asks (for recalibration)."""
        return [TeacherLabel(w, e, bool(r)) for w, e, r in self.store.query(sql.TEACHER_LABELS)]

    def label_count(self) -> int:
        return self.store.query(sql.TEACHER_LABEL_COUNT)[0][0]

    def _bump(self, conn) -> None:
        row = conn.execute(sql.META_GET, (sql.TEACHER_MEMORY_VERSION_KEY,)).fetchone()
        conn.execute(sql.META_SET, (sql.TEACHER_MEMORY_VERSION_KEY, str(int(row[0]) + 1 if row else 1)))


def _form(wording: str) -> str:
    form = search_form(wording)
    if not form:
        raise ValueError("a wording needs some text")
    return form
