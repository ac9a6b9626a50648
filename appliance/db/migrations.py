"""Versioned schema: numbered steps, the database's version in ``PRAGMA user_version``.

Every start (every :class:`~appliance.db.store.Store` opened, and ``eduqa restore`` on the
file it restores) brings the database to the latest step:

1. nothing to do when ``user_version`` is already the last step's number;
2. a database that already holds tables is first copied beside itself
   (``eduqa.db.schema-v<N>.bak``, SQLite's online backup API, flushed to disk);
3. every pending step runs in ONE ``BEGIN IMMEDIATE`` transaction, each followed by
   ``PRAGMA user_version = <its number>``; any error rolls the whole upgrade back, so the
   file stays exactly as it was and :class:`MigrationError` says which step failed.

A database from before versioning (release 0.1) has ``user_version`` 0 and the tables of
step 1, whose statements all say ``IF NOT EXISTS``: it passes through step 1 unchanged.

Adding a change to the schema (docs/OPERATIONS.md, "Schema upgrades"): put its SQL in
``sql.py`` and append ONE line to :data:`STEPS` with the next number. Never edit or
renumber a step that has shipped: boxes in the field have already run it.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from appliance.db import sql

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Step:
    version: int
    summary: str
    sql: str


STEPS: tuple[Step, ...] = (
    Step(1, "release 0.1 tables and the FTS5 trigram index", sql.SCHEMA + sql.FTS_SCHEMA),
    Step(2, "index on kb_entries.origin", sql.MIGRATE_2_ORIGIN_INDEX),
    Step(3, "a random identity for the database", sql.MIGRATE_3_STORE_ID),
    Step(4, "teachers' aliases and known negatives (answer verification)", sql.TEACHER_MEMORY_SCHEMA),
    Step(5, "asks.corrects_ask_id: a student's edit of a photo ask's text", sql.MIGRATE_5_ASK_CORRECTS),
)


class MigrationError(RuntimeError):
    """The schema could not be brought up to date; the database file is unchanged."""


@dataclass(frozen=True)
class MigrationResult:
    from_version: int
    to_version: int
    #: The copy taken before the upgrade (None for a new, empty database).
    backup: Path | None


def latest_version(steps: Sequence[Step] = STEPS) -> int:
    return steps[-1].version if steps else 0


def check_steps(steps: Sequence[Step]) -> None:
    """Steps are numbered 1, 2, 3, … in order, with no gap and no repeat."""
    numbers = [s.version for s in steps]
    if numbers != list(range(1, len(steps) + 1)):
        raise ValueError(f"schema steps must be numbered 1..{len(steps)} in order, found {numbers}")


def schema_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute(sql.SCHEMA_VERSION_GET).fetchone()[0])


def migrate(conn: sqlite3.Connection, path: Path, steps: Sequence[Step] = STEPS,
            backup_first: bool = True) -> MigrationResult | None:
    """Run the pending steps on ``conn`` (autocommit mode: ``isolation_level=None``) of the
    database at ``path``. Returns None when the schema was already up to date."""
    check_steps(steps)
    path = Path(path)
    latest = latest_version(steps)
    found = schema_version(conn)
    if found > latest:
        raise MigrationError(
            f"the database {path} has schema version {found}, newer than this eduqa knows ({latest}): "
            "it was written by a newer release; install that release again or restore an older backup")
    if found == latest:
        return None
    copy = _backup_copy(conn, path, found) if backup_first and _has_tables(conn) else None
    done = _run_steps(conn, path, steps, copy)
    if done is None:  # another process upgraded it meanwhile
        return None
    log.info("database schema upgraded from version %d to %d%s", done, latest,
             f" (copy of the old database: {copy})" if copy else "")
    return MigrationResult(done, latest, copy)


def migrate_file(path: Path, steps: Sequence[Step] = STEPS, backup_first: bool = True) -> MigrationResult | None:
    """:func:`migrate` on a database file that nothing else has open (``eduqa restore``)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout=5000")
        return migrate(conn, path, steps, backup_first)
    except sqlite3.Error as exc:
        raise MigrationError(f"cannot upgrade the schema of {path}: {exc}") from None
    finally:
        conn.close()


def _has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute(sql.TABLE_COUNT).fetchone()[0] > 0


def _run_steps(conn: sqlite3.Connection, path: Path, steps: Sequence[Step], copy: Path | None) -> int | None:
    """All pending steps in one transaction; returns the version they started from."""
    conn.execute("BEGIN IMMEDIATE")
    step = None
    try:
        start = schema_version(conn)  # read again under the write lock
        pending = [s for s in steps if s.version > start]
        if not pending:
            conn.execute("ROLLBACK")
            return None
        for step in pending:
            for statement in split_statements(step.sql):
                conn.execute(statement)
            conn.execute(sql.SCHEMA_VERSION_SET.format(version=step.version))
        conn.execute("COMMIT")
        return start
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        where = f"step {step.version} ({step.summary})" if step else "the start"
        kept = f"; a copy from before is at {copy}" if copy else ""
        raise MigrationError(
            f"upgrading the schema of {path} failed at {where}: {exc}. The database is unchanged{kept}; "
            "eduqa will not start on it until this is fixed") from None


def split_statements(script: str) -> list[str]:
    """The complete SQL statements in ``script`` (a trigger's ``BEGIN … END`` stays whole)."""
    statements, pending = [], ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \t\n;"):
                statements.append(pending.strip())
            pending = ""
    if pending.strip(" \t\n;"):
        raise ValueError(f"incomplete SQL statement at the end of a schema step: {pending.strip()[:80]}")
    return statements


def _backup_copy(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    """A consistent copy of the database beside it, flushed to disk before the upgrade."""
    target = _free_name(path.with_name(f"{path.name}.schema-v{version}.bak"))
    partial = target.with_name(f".{target.name}.partial")
    try:
        dest = sqlite3.connect(partial)
        try:
            conn.backup(dest)
        finally:
            dest.close()
        with open(partial, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(partial, target)
    except (OSError, sqlite3.Error) as exc:
        partial.unlink(missing_ok=True)
        raise MigrationError(f"cannot copy {path} before upgrading its schema: {exc}; the database is unchanged") from None
    return target


def _free_name(candidate: Path) -> Path:
    number = 1
    name = candidate
    while name.exists():
        name = candidate.with_name(f"{candidate.name}.{number}")
        number += 1
    return name
