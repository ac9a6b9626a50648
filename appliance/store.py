"""The appliance's SQLite file: opened in WAL mode, schema created, FTS5 trigram index kept.

One :class:`Store` per process. SQLite connections are shared between threads under
``store.lock``; every write is its own short transaction.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import sqlite_utils

from appliance import sql

log = logging.getLogger(__name__)

FTS_TABLE = "kb_entries_fts"


class StoreError(RuntimeError):
    """The database could not be opened or written (disk full, read-only, corrupt)."""


class Store:
    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed ask survives a power cut, not only a process crash.
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA busy_timeout=5000")
            conn.execute("PRAGMA foreign_keys=ON")
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the database {self.path}: {exc}") from exc
        self.conn = conn
        self.db = sqlite_utils.Database(conn)
        self.lock = threading.RLock()
        self._create_schema()

    def _create_schema(self) -> None:
        with self.lock:
            self.conn.executescript(sql.SCHEMA)
            if FTS_TABLE not in self.db.table_names():
                self.db["kb_entries"].enable_fts(
                    ["search_text"], tokenize="trigram", create_triggers=True
                )

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; rolled back as a whole on any error."""
        with self.lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"database is not writable: {exc}") from exc
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as exc:
                self.conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"database write failed: {exc}") from exc
                raise

    def query(self, statement: str, params: tuple | list = ()) -> list[tuple]:
        with self.lock:
            return self.conn.execute(statement, params).fetchall()

    def writable(self) -> bool:
        """True when a write transaction can be started (disk not read-only, not locked)."""
        with self.lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.execute("ROLLBACK")
                return True
            except sqlite3.Error:
                return False

    def meta_get(self, key: str, default: str = "") -> str:
        rows = self.query(sql.META_GET, (key,))
        return rows[0][0] if rows else default

    def close(self) -> None:
        with self.lock:
            self.conn.close()
