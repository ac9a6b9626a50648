"""SQLite busy/locked: a write lock held by another connection is waited out (SQLite's busy
handler retries with growing sleeps, up to ``busy_timeout`` = 5 s); held longer, the ask
is refused with a clear StoreError / 503, and the next ask after the lock goes succeeds."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from appliance.asklog.log import AskLog, AskRecord
from appliance.bench.serving import free_port, running
from appliance.db.store import Store, StoreError
from tests.system.conftest import post_ask, serve_command


def record(text: str) -> AskRecord:
    return AskRecord(client="10.0.0.1", kind="text", question=text, truncated=False, matched_id=None,
                     confidence=0.0, abstained=True, stage_ms={}, backend="test")


class LockHolder:
    """Another connection (as a backup tool or an sqlite3 shell would be) holding the write lock."""

    def __init__(self, db: Path):
        self.conn = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        self.conn.execute("BEGIN IMMEDIATE")

    def release_after(self, seconds: float) -> threading.Thread:
        thread = threading.Timer(seconds, self.release)
        thread.start()
        return thread

    def release(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("COMMIT")


def test_store_waits_out_a_briefly_held_write_lock(tmp_path):
    store = Store(tmp_path / "eduqa.db")
    assert store.query("PRAGMA busy_timeout")[0][0] == 5000
    log = AskLog(store)
    holder = LockHolder(store.path)
    releaser = holder.release_after(1.0)
    started = time.monotonic()
    ask_id = log.record(record("锁住的时候问的问题"))
    waited = time.monotonic() - started
    releaser.join()
    assert waited >= 0.8, f"the write did not wait for the lock ({waited:.2f} s)"
    assert log.get(ask_id)["question"] == "锁住的时候问的问题"
    log.close()
    store.close()


def test_store_reports_a_lock_held_past_the_timeout_clearly(tmp_path):
    store = Store(tmp_path / "eduqa.db")
    store.conn.execute("PRAGMA busy_timeout=300")  # the 5 s default, shortened for the test
    log = AskLog(store)
    holder = LockHolder(store.path)
    with pytest.raises(StoreError) as err:
        log.record(record("等不到锁"))
    assert "locked" in str(err.value) and "not writable" in str(err.value)
    holder.release()
    assert log.get(log.record(record("锁放开以后")))["question"] == "锁放开以后"
    assert store.query("PRAGMA integrity_check")[0][0] == "ok"
    log.close()
    store.close()


@pytest.mark.slow
def test_daemon_rides_out_a_short_lock_and_refuses_clearly_past_the_timeout(config):
    data = config.data_dir
    port = free_port()
    with running(serve_command(data, port), port) as server:
        assert post_ask(port, "热身：解方程 2x + 3 = 13")[0] == 200
        db = data / "eduqa.db"

        holder = LockHolder(db)
        releaser = holder.release_after(1.5)
        started = time.monotonic()
        status, card = post_ask(port, "短锁：解方程 2x + 3 = 13")
        waited = time.monotonic() - started
        releaser.join()
        assert status == 200, card
        assert waited >= 1.3, f"answered in {waited:.2f} s while the log was locked"

        holder = LockHolder(db)
        releaser = holder.release_after(7.0)  # past the 5 s busy_timeout
        status, body = post_ask(port, "长锁：解方程 2x + 3 = 13")
        releaser.join()
        assert status == 503, body
        assert "could not be saved" in body["detail"] and "locked" in body["detail"]

        status, card = post_ask(port, "锁放开：解方程 2x + 3 = 13")
        assert status == 200, card
        assert server.poll() is None
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        questions = {q for (q,) in conn.execute("SELECT question FROM asks")}
    assert {"短锁：解方程 2x + 3 = 13", "锁放开：解方程 2x + 3 = 13"} <= questions
    assert "长锁：解方程 2x + 3 = 13" not in questions  # refused, so not acknowledged
