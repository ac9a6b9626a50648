import threading
import time

import pytest

from appliance.batcher import DeadlineExceeded, MicroBatcher, Overloaded


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
    started = time.perf_counter()
    with pytest.raises(Overloaded):
        batcher.submit(3)
    assert time.perf_counter() - started < 0.1
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
