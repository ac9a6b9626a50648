"""The appliance's SQLite file: opened in WAL mode, schema created, FTS5 trigram index kept.

One :class:`Store` per process. Writes go through one connection shared between threads
under ``store.lock``, each its own short transaction. Reads (:meth:`Store.query`) take a
read-only connection from a small pool: in WAL mode they never wait for a writer's
fsync, and each statement sees everything committed before it started. A read inside a
write transaction uses the writing connection, so it sees that transaction's own changes.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import sqlite_utils

from appliance.db import sql

log = logging.getLogger(__name__)

FTS_TABLE = "kb_entries_fts"
#: Read connections kept open; more readers than cores only wait for CPU.
READERS = 4
#: Page cache per read connection (KiB): the FTS index and the bank stay in memory.
READER_CACHE_KIB = 32 * 1024


class StoreError(RuntimeError):
    """The database could not be opened or written (disk full, read-only, corrupt)."""


_EXPLAIN = {
    "database or disk is full": "the disk holding the database is full",
    "database is locked": "the database is locked by another program (a backup, an sqlite3 shell?)",
    "attempt to write a readonly database": "the database file or its directory is read-only",
    "disk I/O error": "the disk reported an I/O error",
}


def explain(exc: sqlite3.Error) -> str:
    """SQLite's message with a plain-words reason in front when there is one."""
    text = str(exc)
    for needle, words in _EXPLAIN.items():
        if needle in text:
            return f"{words} ({text})"
    return text


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
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._idle_readers: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._readers_lock = threading.Lock()
        self._closed = False
        self._create_schema()

    def _create_schema(self) -> None:
        with self.lock:
            self.conn.executescript(sql.SCHEMA)
            if FTS_TABLE not in self.db.table_names():
                self.db["kb_entries"].enable_fts(
                    ["search_text"], tokenize="trigram", create_triggers=True
                )
            self.conn.execute(sql.FTS_VOCAB_CREATE)
            self._add_missing_ask_columns()

    def _add_missing_ask_columns(self) -> None:
        """Columns a newer release added to ``asks``, for databases made before it."""
        present = {row[0] for row in self.conn.execute(sql.ASK_TABLE_COLUMNS)}
        for column, declaration in sql.ASK_ADDED_COLUMNS:
            if column not in present:
                self.conn.execute(sql.ASK_ADD_COLUMN.format(column=column, declaration=declaration))

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` write transaction: committed on success, rolled back as a
        whole on any error; SQLite errors become :class:`StoreError` with a plain reason.

        A locked database is retried by SQLite itself (``busy_timeout``, growing sleeps up
        to 5 s) before it reports ``database is locked``."""
        with self.lock:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"database is not writable: {explain(exc)}") from exc
            self._local.writing = True
            try:
                yield self.conn
                self.conn.execute("COMMIT")
            except BaseException as exc:
                self._rollback()
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"database write failed: {explain(exc)}") from exc
                raise
            finally:
                self._local.writing = False

    def _rollback(self) -> None:
        # After SQLITE_FULL (and some I/O errors) SQLite has already rolled back; a bare
        # ROLLBACK would then fail and hide the error that got us here.
        if not self.conn.in_transaction:
            return
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error as exc:
            log.warning("rollback failed: %s", exc)

    def query(self, statement: str, params: tuple | list | dict = ()) -> list[tuple]:
        if getattr(self._local, "writing", False):
            return self.conn.execute(statement, params).fetchall()
        reader = self._take_reader()
        try:
            return reader.execute(statement, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"database read failed: {explain(exc)}") from exc
        finally:
            self._idle_readers.put(reader)

    def _take_reader(self) -> sqlite3.Connection:
        """An idle read connection; a new one while fewer than READERS exist, else wait."""
        try:
            return self._idle_readers.get_nowait()
        except queue.Empty:
            pass
        with self._readers_lock:
            if self._closed:
                raise StoreError(f"the database {self.path} is closed")
            if len(self._readers) < READERS:
                reader = self._open_reader()
                self._readers.append(reader)
                return reader
        return self._idle_readers.get()

    def _open_reader(self) -> sqlite3.Connection:
        try:
            reader = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            reader.execute("PRAGMA busy_timeout=5000")
            reader.execute(f"PRAGMA cache_size=-{READER_CACHE_KIB}")
            reader.execute("PRAGMA query_only=ON")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the database {self.path} for reading: {explain(exc)}") from exc
        return reader

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
        with self.lock, self._readers_lock:
            self._closed = True
            for reader in self._readers:
                reader.close()
            self._readers.clear()
            self.conn.close()
