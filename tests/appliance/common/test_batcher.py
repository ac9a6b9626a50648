import threading
import time

import pytest

from appliance.common.batcher import DeadlineExceeded, MicroBatcher, Overloaded


def test_concurrent_items_share_batches_and_get_their_own_rows():
    seen = []

    def run(items):
        seen.append(len(items))
        time.sleep(0.01)
        return [i * 10 for i in items]

    batcher = MicroBatcher(run, "t", max_batch=8, max_wait_ms=20)
    results = {}
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, batcher.submit(i))) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    batcher.close()
    assert results == {i: i * 10 for i in range(24)}
    assert max(seen) > 1 and sum(seen) == 24 and max(seen) <= 8
    assert batcher.stats.items == 24 and batcher.stats.mean_batch > 1


def test_full_queue_is_refused_at_once():
    gate = threading.Event()
    batcher = MicroBatcher(lambda items: (gate.wait(5), items)[1], "t", max_batch=1, max_wait_ms=0, max_queue=1)
    first = threading.Thread(target=batcher.submit, args=(1,))
    first.start()
    time.sleep(0.2)  # the worker holds item 1
    second = threading.Thread(target=batcher.submit, args=(2,))
    second.start()
    time.sleep(0.2)  # item 2 fills the queue
    with pytest.raises(Overloaded):
        batcher.submit(3)
    assert first.is_alive()  # refused while the worker still holds item 1: nothing waited for room
    assert batcher.stats.rejected == 1
    gate.set()
    first.join()
    second.join()
    batcher.close()


def test_deadline_and_errors_reach_the_caller():
    slow = MicroBatcher(lambda items: (time.sleep(0.5), items)[1], "slow", max_batch=1)
    with pytest.raises(DeadlineExceeded):
        slow.submit(1, timeout_s=0.05)
    slow.close()

    def boom(items):
        raise ValueError("engine failed")

    failing = MicroBatcher(boom, "boom")
    with pytest.raises(ValueError, match="engine failed"):
        failing.submit(1)
    assert failing.submit.__self__ is failing  # the worker survives a failed batch
    with pytest.raises(ValueError):
        failing.submit(2)
    failing.close()


def _until(condition, seconds: float = 5.0) -> None:
    stop = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < stop, "condition not reached"
        time.sleep(0.005)


def test_one_callers_items_share_batches_and_are_queued_all_or_none():
    gate, running, seen = threading.Event(), threading.Event(), []

    def run(items):
        running.set()
        gate.wait(5)
        seen.append(list(items))
        return [i * 10 for i in items]

    batcher = MicroBatcher(run, "t", max_batch=16, max_wait_ms=50, max_queue=4)
    results = {}
    busy = threading.Thread(target=batcher.submit, args=(0,))
    busy.start()
    assert running.wait(5)  # the worker holds item 0 and waits at the gate
    a = threading.Thread(target=lambda: results.__setitem__("a", batcher.submit_many([1, 2])))
    b = threading.Thread(target=lambda: results.__setitem__("b", batcher.submit_many([3])))
    a.start()
    _until(lambda: batcher.depth == 2)
    b.start()
    _until(lambda: batcher.depth == 3)
    with pytest.raises(Overloaded):
        batcher.submit_many([4, 5])  # one free place, two items: neither runs
    gate.set()
    for t in (busy, a, b):
        t.join()
    batcher.close()
    assert results == {"a": [10, 20], "b": [30]}
    assert [1, 2, 3] in seen and not any(4 in batch or 5 in batch for batch in seen)


def _batched(batcher, items):
    """Submit ``items`` from as many threads at once; {item: result or exception}."""
    results = {}

    def one(item):
        try:
            results[item] = batcher.submit(item)
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            results[item] = exc

    threads = [threading.Thread(target=one, args=(i,)) for i in items]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_one_bad_item_fails_alone_and_its_batch_mates_are_answered():
    from appliance.common.batcher import ItemFailed

    sizes = []

    def run(items):
        sizes.append(len(items))
        if "bad" in items:
            raise UnicodeEncodeError("utf-8", "\ud800", 0, 1, "surrogates not allowed")
        return [item.upper() for item in items]

    batcher = MicroBatcher(run, "t", max_batch=16, max_wait_ms=300)
    results = _batched(batcher, ["a", "b", "bad", "c", "d"])
    batcher.close()
    assert max(sizes) > 1, "the items never shared a batch"
    assert {k: v for k, v in results.items() if k != "bad"} == {"a": "A", "b": "B", "c": "C", "d": "D"}
    assert isinstance(results["bad"], ItemFailed)
    assert batcher.stats.failed_items == 1


def test_when_every_item_fails_each_caller_gets_the_engine_error():
    def run(items):
        raise RuntimeError("engine down")

    batcher = MicroBatcher(run, "t", max_batch=16, max_wait_ms=200)
    results = _batched(batcher, ["a", "b", "c"])
    batcher.close()
    assert all(isinstance(v, RuntimeError) and str(v) == "engine down" for v in results.values())


def test_a_shared_fault_reaches_the_caller_as_it_is_never_as_one_items_fault():
    """A full disk under the ask log is nobody's bad item: the caller sees the store's error
    (the API answers 503), even right after the writer succeeded."""

    class DiskFull(RuntimeError):
        pass

    full = threading.Event()

    def run(items):
        if full.is_set():
            raise DiskFull("database or disk is full")
        return items

    batcher = MicroBatcher(run, "log", max_batch=4, max_wait_ms=0, shared_faults=(DiskFull,))
    assert batcher.submit("a") == "a"
    full.set()
    with pytest.raises(DiskFull):
        batcher.submit("b")
    batcher.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_workers_run_batches_side_by_side(workers):
    """With two workers a second batch starts while the first still runs; with one it waits."""
    running, most = [0], [0]
    lock = threading.Lock()
    first_started = threading.Event()

    def run(items):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        first_started.set()
        time.sleep(0.2)
        with lock:
            running[0] -= 1
        return items

    batcher = MicroBatcher(run, "t", max_batch=1, max_wait_ms=0, workers=workers)
    results = []
    first = threading.Thread(target=lambda: results.append(batcher.submit(1)))
    first.start()
    assert first_started.wait(5)
    second = threading.Thread(target=lambda: results.append(batcher.submit(2)))
    second.start()
    first.join()
    second.join()
    batcher.close()
    assert sorted(results) == [1, 2]
    assert most[0] == workers
