"""Micro-batching in front of an engine that is faster on batches than on single items.

Callers from many threads ``submit`` one item and wait; one worker thread gathers items
until ``max_batch`` are waiting or the oldest has waited ``max_wait_ms``, runs the engine
once on the batch and hands each caller its row. The engine is only ever called from the
worker thread, so it need not be thread-safe. The queue is bounded: when it is full,
``submit`` raises :class:`Overloaded` at once instead of letting latency grow.

Items are isolated: when a batch fails, each of its items is run again on its own, so
one bad item fails alone (:class:`ItemFailed`) and the rest of its batch is answered. A
batch of one that fails while the engine has been answering other items is that item's
fault too; when everything fails, callers get the engine's own error.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Callable, Generic, Sequence, TypeVar

log = logging.getLogger(__name__)

Item = TypeVar("Item")
Result = TypeVar("Result")


class Overloaded(RuntimeError):
    """The queue is full; the caller should retry after a short pause."""


class DeadlineExceeded(TimeoutError):
    """The item was not processed within its deadline."""


# A lone item that fails while the engine answered other items this recently is the
# item's fault (ItemFailed), not the engine's.
HEALTHY_WINDOW_S = 30.0


class ItemFailed(ValueError):
    """This item failed when run on its own (its batch-mates were answered)."""


@dataclass
class BatchStats:
    batches: int = 0
    items: int = 0
    rejected: int = 0
    failed_items: int = 0

    @property
    def mean_batch(self) -> float:
        return self.items / self.batches if self.batches else 0.0


class MicroBatcher(Generic[Item, Result]):
    def __init__(
        self,
        run_batch: Callable[[list[Item]], Sequence[Result]],
        name: str,
        max_batch: int = 32,
        max_wait_ms: float = 2.0,
        max_queue: int = 256,
        on_batch: Callable[[int], None] | None = None,
        shared_faults: tuple[type[Exception], ...] = (),
        workers: int = 1,
    ):
        self._run_batch = run_batch
        #: Errors that are the shared resource's fault (a full disk, a locked database), never
        #: one item's: they reach each caller as they are, never as :class:`ItemFailed`.
        self.shared_faults = shared_faults
        self.name = name
        self.max_batch = max_batch
        self.max_wait = max_wait_ms / 1000
        self._queue: queue.Queue[tuple[Item, Future]] = queue.Queue(maxsize=max_queue)
        self._on_batch = on_batch
        self.stats = BatchStats()
        self._last_success = -math.inf
        self._stopping = threading.Event()
        # ``workers`` threads each gather and run batches, so one batch never waits for another
        # (an engine that runs on several cores at once: ONNX Runtime on the CPU).
        self._workers = [threading.Thread(target=self._loop, name=f"batcher-{name}-{n}", daemon=True)
                         for n in range(workers)]
        for worker in self._workers:
            worker.start()

    @property
    def depth(self) -> int:
        return self._queue.qsize()

    def submit(self, item: Item, timeout_s: float = 10.0) -> Result:
        """Process one item; blocks until its batch ran. Raises :class:`Overloaded` when
        the queue is full and :class:`DeadlineExceeded` after ``timeout_s``."""
        if self._stopping.is_set():
            raise Overloaded(f"{self.name} is shutting down")
        future: Future = Future()
        try:
            self._queue.put_nowait((item, future))
        except queue.Full:
            self.stats.rejected += 1
            raise Overloaded(f"{self.name} queue is full ({self._queue.maxsize} waiting)") from None
        try:
            return future.result(timeout=timeout_s)
        except FutureTimeout:
            future.cancel()
            raise DeadlineExceeded(f"{self.name} did not answer within {timeout_s:.1f} s") from None

    def submit_many(self, items: Sequence[Item], timeout_s: float = 10.0) -> list[Result]:
        """:meth:`submit` for several items of one caller (a photo's text lines): they may
        share batches with other callers' items. All or none are queued: when the queue
        has no room for all of them, :class:`Overloaded` is raised and none runs."""
        if self._stopping.is_set():
            raise Overloaded(f"{self.name} is shutting down")
        futures: list[Future] = []
        try:
            for item in items:
                future: Future = Future()
                self._queue.put_nowait((item, future))
                futures.append(future)
        except queue.Full:
            for future in futures:
                future.cancel()  # skipped by the worker
            self.stats.rejected += 1
            raise Overloaded(f"{self.name} queue is full ({self._queue.maxsize} waiting)") from None
        deadline = time.monotonic() + timeout_s
        try:
            return [f.result(timeout=max(0.0, deadline - time.monotonic())) for f in futures]
        except FutureTimeout:
            for future in futures:
                future.cancel()
            raise DeadlineExceeded(f"{self.name} did not answer within {timeout_s:.1f} s") from None

    def close(self) -> None:
        """Finish what is queued, then stop the worker."""
        self._stopping.set()
        for worker in self._workers:
            worker.join(timeout=30)

    def _loop(self) -> None:
        while not (self._stopping.is_set() and self._queue.empty()):
            batch = self._gather()
            if batch:
                self._run(batch)

    def _gather(self) -> list[tuple[Item, Future]]:
        try:
            first = self._queue.get(timeout=0.1)
        except queue.Empty:
            return []
        batch = [first]
        deadline = time.monotonic() + self.max_wait
        while len(batch) < self.max_batch:
            remaining = deadline - time.monotonic()
            try:
                batch.append(self._queue.get(timeout=remaining) if remaining > 0 else self._queue.get_nowait())
            except queue.Empty:
                break
        return [(item, fut) for item, fut in batch if fut.set_running_or_notify_cancel()]

    def _run(self, batch: list[tuple[Item, Future]]) -> None:
        try:
            results = self._run_batch([item for item, _ in batch])
        except Exception as exc:
            if len(batch) == 1:  # bad item, or broken engine? the engine's recent record decides
                self._fail(batch[0][1], exc, alone_bad=self._engine_answered_lately())
            else:
                self._run_one_by_one(batch, exc)
            return
        self._count(len(batch))
        for (_, fut), result in zip(batch, results):
            fut.set_result(result)

    def _run_one_by_one(self, batch: list[tuple[Item, Future]], exc: Exception) -> None:
        """A batch failed: each item runs alone, so the bad one(s) fail and the rest are
        answered. Items that fail while a batch-mate succeeds get :class:`ItemFailed`;
        when every item fails the fault is the engine's and each caller gets its error."""
        log.warning("%s batch of %d failed (%s: %s); running its items one by one",
                    self.name, len(batch), type(exc).__name__, str(exc)[:200])
        failures: list[tuple[Future, Exception]] = []
        for item, fut in batch:
            try:
                result = self._run_batch([item])[0]
            except Exception as item_exc:
                failures.append((fut, item_exc))
                continue
            self._count(1)
            fut.set_result(result)
        alone_bad = len(failures) < len(batch)
        for fut, item_exc in failures:
            self._fail(fut, item_exc, alone_bad)

    def _fail(self, fut: Future, exc: Exception, alone_bad: bool) -> None:
        self.stats.failed_items += 1
        if not alone_bad or isinstance(exc, self.shared_faults):
            log.warning("%s failed: %s: %s", self.name, type(exc).__name__, str(exc)[:200])
            fut.set_exception(exc)
            return
        log.warning("%s: one item failed alone (%s: %s)", self.name, type(exc).__name__, str(exc)[:200])
        failed = ItemFailed(f"{self.name} could not process this item ({type(exc).__name__})")
        failed.__cause__ = exc
        fut.set_exception(failed)

    def _engine_answered_lately(self) -> bool:
        return time.monotonic() - self._last_success <= HEALTHY_WINDOW_S

    def _count(self, n: int) -> None:
        self._last_success = time.monotonic()
        self.stats.batches += 1
        self.stats.items += n
        if self._on_batch:
            self._on_batch(n)
