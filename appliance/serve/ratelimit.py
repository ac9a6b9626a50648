"""Per-client token buckets: each address may ask ``rate_per_minute`` times a minute,
with bursts of ``burst``. Memory is bounded: the least recently seen clients are
forgotten first."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Callable

MAX_CLIENTS = 10_000


class RateLimiter:
    def __init__(self, rate_per_minute: int, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate = rate_per_minute / 60.0
        self.burst = float(burst)
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, client: str) -> tuple[bool, float]:
        """(allowed, seconds until the next ask would be allowed)."""
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.pop(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            allowed = tokens >= 1.0
            if allowed:
                tokens -= 1.0
            self._buckets[client] = (tokens, now)
            while len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)
        return allowed, 0.0 if allowed else (1.0 - tokens) / self.rate
