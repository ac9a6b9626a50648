"""Admission control in front of the ask path.

An ask is admitted only when it can still be answered within the deadline. Asks in
flight (admitted, not yet answered) wait for the thread pool and the encoder; by Little's
law the newest one waits about ``in_flight / capacity``. Capacity is the highest rate at
which the path answered over a few seconds lately (it decays with a half-life of a
minute, so a slower box or a busier CPU is noticed); before anything was ever answered
there is no estimate and only the hard cap applies. When that predicted wait exceeds the
deadline, or ``max_in_flight`` asks are already in flight, the ask is refused at once
(the API answers 503 + Retry-After) instead of joining an unbounded wait.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from contextlib import contextmanager
from typing import Callable, Iterator

# Below this many asks in flight nobody is refused: the predicted wait is meaningless
# while the path is idle or just waking up.
ALWAYS_ADMIT = 32
WINDOW_S = 5.0
PEAK_HALF_LIFE_S = 60.0


class NotAdmitted(RuntimeError):
    """The ask cannot be answered within the deadline now; retry after ``retry_after_s``."""

    def __init__(self, reason: str, retry_after_s: int):
        super().__init__(reason)
        self.retry_after_s = retry_after_s


class AdmissionControl:
    def __init__(self, deadline_s: float, max_in_flight: int, clock: Callable[[], float] = time.monotonic,
                 always_admit: int = ALWAYS_ADMIT, window_s: float = WINDOW_S):
        self.deadline_s = deadline_s
        self.max_in_flight = max_in_flight
        self.clock = clock
        self.always_admit = min(always_admit, max_in_flight)
        self.window_s = window_s
        self.in_flight = 0
        self.refused = 0
        self._done: deque[float] = deque()
        self._peak = 0.0  # highest recent answers per second (decaying)
        self._peak_at = 0.0
        self._lock = threading.Lock()

    def throughput(self) -> float:
        """The capacity estimate: answers per second (see the module's docstring)."""
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            return self._capacity(now)

    def predicted_wait_s(self) -> float:
        rate = self.throughput()
        return 0.0 if rate <= 0 else self.in_flight / rate

    @contextmanager
    def admit(self) -> Iterator[None]:
        """Hold a place in flight for one ask, or raise :class:`NotAdmitted` at once."""
        self.enter()
        try:
            yield
        finally:
            self.leave()

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1
            now = self.clock()
            self._done.append(now)
            self._forget_old(now)
            self._capacity(now)  # keep the peak current even while nobody is refused

    def enter(self) -> None:
        """Take a place in flight (pair with :meth:`leave`) or raise :class:`NotAdmitted`."""
        with self._lock:
            now = self.clock()
            self._forget_old(now)
            n = self.in_flight
            if n >= self.max_in_flight:
                self.refused += 1
                raise NotAdmitted(f"{n} asks in flight", 1)
            if n >= self.always_admit:
                rate = self._capacity(now)
                wait = 0.0 if rate <= 0 else n / rate
                if wait > self.deadline_s:
                    self.refused += 1
                    excess = wait - self.deadline_s
                    raise NotAdmitted(f"predicted wait {wait:.1f} s", max(1, min(30, math.ceil(excess))))
            self.in_flight = n + 1

    def _capacity(self, now: float) -> float:
        rate = len(self._done) / self.window_s
        decayed = self._peak * 0.5 ** (max(0.0, now - self._peak_at) / PEAK_HALF_LIFE_S)
        if rate >= decayed:
            self._peak, self._peak_at = rate, now
            return rate
        return decayed

    def _forget_old(self, now: float) -> None:
        while self._done and now - self._done[0] > self.window_s:
            self._done.popleft()


class ShedOverload:
    """ASGI middleware: a JSON ``POST`` to ``path`` goes on only when admitted; otherwise
    it is answered 503 + Retry-After right here, before routing or reading its body, so
    refusing costs next to nothing even when thousands arrive at once."""

    def __init__(self, app, admission: AdmissionControl, path: str = "/api/v1/ask",
                 on_refused: Callable[[], None] | None = None):
        self.app = app
        self.admission = admission
        self.path = path
        self.on_refused = on_refused

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path or not _is_json(scope):
            return await self.app(scope, receive, send)
        try:
            self.admission.enter()
        except NotAdmitted as refused:
            if self.on_refused:
                self.on_refused()
            return await _send_503(send, refused.retry_after_s)
        try:
            await self.app(scope, receive, send)
        finally:
            self.admission.leave()


def shed_first(app) -> None:
    """Make :class:`ShedOverload` the outermost of a Starlette app's own layers again. Layers
    added after the API's (the web pages' login, language and upload guards) would
    otherwise sit outside it, and every refused ask would pay for them during a burst.
    Call it once every layer is added, before the app serves."""
    app.user_middleware.sort(key=lambda layer: layer.cls is not ShedOverload)


def _is_json(scope) -> bool:
    for name, value in scope.get("headers") or []:
        if name == b"content-type":
            return value.split(b";")[0].strip().lower() == b"application/json"
    return False


_BUSY = b'{"detail": "busy: the answer could not come in time, retry in a moment"}'


async def _send_503(send, retry_after_s: int) -> None:
    await send({"type": "http.response.start", "status": 503,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(_BUSY)).encode()),
                            (b"retry-after", str(retry_after_s).encode())]})
    await send({"type": "http.response.body", "body": _BUSY})
