"""Whose photo the reader takes next: start-time fair queueing, weighted by pixels.

One photo is decoded and detected at a time. Waiting photos are served in the order of
their *start tag*: a client's next photo starts where its previous one finished, and a
photo's cost is its pixel count (from the header, before decoding). So a student who
sends photo after photo, or photos of 40 megapixels, moves their own later photos back
and never the class's: another address's first photo starts at the current virtual time
and goes ahead of them. Each address may have ``per_client_max`` photos waiting or being
read; past that share it is admitted only while fewer than half of ``queue_max`` photos
wait (one more is refused at once). So a class behind one NAT address can still fill an
idle reader, while one sender never holds more than half the queue. At most ``queue_max``
photos wait in all. Callers without an address (the CLI, evaluation) are not capped.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

from appliance.common.batcher import DeadlineExceeded, Overloaded

MAX_CLIENTS = 10_000
MEGAPIXEL = 1_000_000


class ClientOverloaded(Overloaded):
    """This address already has its share of photos waiting or being read."""


@dataclass(order=True)
class _Waiter:
    start: float
    seq: int
    client: str = field(compare=False)


class FairTurns:
    def __init__(self, queue_max: int, per_client_max: int):
        self.queue_max = queue_max
        self.per_client_max = per_client_max
        self._cond = threading.Condition()
        self._waiting: list[_Waiter] = []
        self._held: dict[str, int] = {}  # photos per client waiting or being read
        self._finish: OrderedDict[str, float] = OrderedDict()  # each client's last finish tag
        self._virtual = 0.0
        self._busy = False
        self._seq = itertools.count()

    @property
    def waiting(self) -> int:
        with self._cond:
            return len(self._waiting)

    @property
    def idle(self) -> bool:
        """No photo is being decoded or detected, and none waits for its turn."""
        with self._cond:
            return not self._busy and not self._waiting

    @contextmanager
    def turn(self, client: str, pixels: int, deadline: float) -> Iterator[None]:
        """Wait for this photo's turn (refused at once when the queues are full, given up
        at ``deadline``), hold it while the body runs."""
        with self._cond:
            me = self._enqueue(client, max(1.0, pixels / MEGAPIXEL))
            try:
                while self._busy or min(self._waiting) is not me:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise DeadlineExceeded("the photo was not read in time")
                    self._cond.wait(remaining)
            except BaseException:
                self._waiting.remove(me)
                self._release_client(client)
                self._cond.notify_all()
                raise
            self._waiting.remove(me)
            self._busy = True
            self._virtual = me.start
        try:
            yield
        finally:
            with self._cond:
                self._busy = False
                self._release_client(client)
                self._cond.notify_all()

    def _enqueue(self, client: str, cost: float) -> _Waiter:
        if len(self._waiting) >= self.queue_max:
            raise Overloaded(f"photo reader busy: {len(self._waiting)} photos waiting")
        held = self._held.get(client, 0)
        if client and held >= self.per_client_max and len(self._waiting) >= self.queue_max // 2:
            raise ClientOverloaded(f"this address already has {held} photos being read; wait for them")
        start = max(self._virtual, self._finish.get(client, 0.0))
        self._finish[client] = start + cost
        self._finish.move_to_end(client)
        while len(self._finish) > MAX_CLIENTS:
            self._finish.popitem(last=False)
        self._held[client] = held + 1
        me = _Waiter(start, next(self._seq), client)
        self._waiting.append(me)
        return me

    def _release_client(self, client: str) -> None:
        left = self._held.get(client, 1) - 1
        if left > 0:
            self._held[client] = left
        else:
            self._held.pop(client, None)
