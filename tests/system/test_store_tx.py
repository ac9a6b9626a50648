"""Store.transaction on a full disk and under a lock (fast, no daemon; the daemon-level
tests are test_disk_full/test_busy)."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from appliance.db.store import Store, StoreError


def fill_table_until_full(store: Store, tx) -> StoreError:
    with tx() as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS ballast (b BLOB)")
    for _ in range(100_000):
        try:
            with tx() as conn:
                conn.execute("INSERT INTO ballast VALUES (randomblob(4000))")
        except StoreError as exc:
            return exc
    raise AssertionError("the disk never filled")


def test_a_full_disk_becomes_a_clear_store_error_and_recovers(small_disk):
    store = Store(small_disk / "eduqa.db")
    spare = small_disk / "spare"
    spare.write_bytes(b"\0" * (2 << 20))  # something else on the disk, removed later
    tx = store.transaction
    error = fill_table_until_full(store, tx)
    assert "the disk holding the database is full" in str(error)
    assert not store.conn.in_transaction
    with pytest.raises(StoreError, match="full"):  # still full: still a clean error
        with tx() as conn:
            conn.execute("INSERT INTO ballast VALUES (randomblob(4000))")
    spare.unlink()  # room again: the same connection writes
    with tx() as conn:
        conn.execute("INSERT INTO ballast VALUES (randomblob(10))")
    assert store.query("PRAGMA integrity_check")[0][0] == "ok"
    store.close()


def test_errors_inside_the_block_roll_back_and_pass_through(tmp_path):
    store = Store(tmp_path / "eduqa.db")
    tx = store.transaction
    with tx() as conn:
        conn.execute("CREATE TABLE t (x UNIQUE)")
        conn.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(ValueError):
        with tx() as conn:
            conn.execute("INSERT INTO t VALUES (2)")
            raise ValueError("not a database error")
    with pytest.raises(StoreError, match="database write failed: UNIQUE constraint failed"):
        with tx() as conn:
            conn.execute("INSERT INTO t VALUES (3)")
            conn.execute("INSERT INTO t VALUES (1)")
    assert store.query("SELECT x FROM t") == [(1,)] and not store.conn.in_transaction
    store.close()


def test_a_lock_held_too_long_is_explained(tmp_path):
    store = Store(tmp_path / "eduqa.db")
    store.conn.execute("PRAGMA busy_timeout=200")
    other = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(StoreError) as err:
        with store.transaction():
            pass
    assert "locked by another program" in str(err.value) and "database is locked" in str(err.value)
    other.execute("COMMIT")
    released = threading.Event()
    with store.transaction():
        released.set()
    assert released.is_set()
    store.close()
