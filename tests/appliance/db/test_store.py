import threading

import pytest

from appliance.db import sql
from appliance.db.store import Store, StoreError


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "eduqa.db")
    yield s
    s.close()


def _set(conn, key: str, value: str) -> None:
    conn.execute(sql.META_SET, (key, value))


def test_reads_do_not_wait_for_a_write_in_progress(store):
    with store.transaction() as conn:
        _set(conn, "k", "committed")
    inside, release, seen = threading.Event(), threading.Event(), []

    def writer():
        with store.transaction() as conn:
            _set(conn, "k", "uncommitted")
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=writer)
    thread.start()
    assert inside.wait(10)
    reader = threading.Thread(target=lambda: seen.append(store.meta_get("k")))
    reader.start()
    reader.join(5)
    finished_while_writing = not reader.is_alive()
    release.set()
    thread.join(10)
    assert finished_while_writing, "a read waited for the writer's transaction"
    assert seen == ["committed"]
    assert store.meta_get("k") == "uncommitted"  # committed now, and seen by the next read


def test_a_read_inside_a_transaction_sees_its_own_writes(store):
    with store.transaction() as conn:
        _set(conn, "k", "mine")
        assert store.meta_get("k") == "mine"
    assert store.meta_get("k") == "mine"


def test_reads_after_close_are_refused_clearly(store):
    store.meta_get("k")
    store.close()
    with pytest.raises(StoreError):
        store.meta_get("k")
    fresh = []
    t = threading.Thread(target=lambda: fresh.append(pytest.raises(StoreError, store.meta_get, "k")))
    t.start()
    t.join()
    assert fresh
