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

import asyncio
import gc
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
            refusal = self._refusal()
            if refusal is not None:
                raise refusal
            self.in_flight += 1

    def refusal_now(self) -> NotAdmitted | None:
        """The refusal an ask arriving now gets (counted as refused), or None when it would
        be admitted; takes no place in flight (the admitted ask's :meth:`enter` does)."""
        with self._lock:
            return self._refusal()

    def _refusal(self) -> NotAdmitted | None:
        now = self.clock()
        self._forget_old(now)
        n = self.in_flight
        if n >= self.max_in_flight:
            self.refused += 1
            return NotAdmitted(f"{n} asks in flight", 1)
        if n >= self.always_admit:
            rate = self._capacity(now)
            wait = 0.0 if rate <= 0 else n / rate
            if wait > self.deadline_s:
                self.refused += 1
                excess = wait - self.deadline_s
                return NotAdmitted(f"predicted wait {wait:.1f} s", max(1, min(30, math.ceil(excess))))
        return None

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


class CollectorPause:
    """The garbage collector turned off for a short while, and surely on again: when the
    time is up a timer thread turns it on even if nothing else happens (the event loop
    that asked may be gone). A collector that was off already is left as it was."""

    def __init__(self):
        self._lock = threading.Lock()
        self._until: float | None = None  # while paused by this object: when it ends

    @property
    def paused(self) -> bool:
        return self._until is not None

    def pause(self, seconds: float) -> None:
        with self._lock:
            if self._until is None:
                if not gc.isenabled():
                    return
                gc.disable()
            self._until = time.monotonic() + seconds
        timer = threading.Timer(seconds, self._expire)
        timer.daemon = True
        timer.start()

    def resume(self) -> None:
        with self._lock:
            if self._until is not None:
                self._until = None
                gc.enable()

    def _expire(self) -> None:
        with self._lock:
            if self._until is not None and time.monotonic() >= self._until - 0.001:
                self._until = None
                gc.enable()


class RefusalsFirst:
    """Refusals go before admitted asks' work during a storm of refusals.

    A refusal is a few microseconds of event-loop work and must arrive at once; an admitted
    ask has seconds, and its loop work (routing, body, validation, the hand-off to a
    thread) and then its thread's Python work, sharing the GIL, would otherwise delay every
    refusal queued behind it. So an admitted ask first lets the loop run what is already
    waiting (refusals read in the same pass), and while refusals keep coming it waits until
    none came for ``quiet_s``. A storm holds admitted asks for at most ``max_hold_s`` from
    its first refusal; after that they pass freely until the storm ends, so sustained
    overload never starves the answers.

    For as long as admitted asks are held, the garbage collector waits too
    (:class:`CollectorPause`): a thousand connections at once make enough new objects to
    start a full pass (24–30 ms here, docs/BENCHMARKS.md), which would stop every refusal
    behind it. It runs as usual once the hold ends, at most ``max_hold_s`` later.
    """

    def __init__(self, quiet_s: float = 0.005, max_hold_s: float = 0.15):
        self.quiet_s = quiet_s
        self.max_hold_s = max_hold_s
        self._loop = None
        self._released = None  # asyncio.Event, set while admitted asks may pass
        self._first = self._last = -math.inf
        self._timer = None
        self.collector = CollectorPause()

    def refused(self) -> None:
        now = self._bind().time()
        if now - self._last > self.quiet_s and self._released.is_set():  # a new storm
            self._first = now
            self._released.clear()
            self.collector.pause(self.max_hold_s)
            self._timer = self._timer or self._loop.call_later(self.quiet_s, self._check)
        self._last = now

    async def wait_turn(self) -> None:
        await asyncio.sleep(0)
        if self._loop is asyncio.get_running_loop() and not self._released.is_set():
            await self._released.wait()

    def _bind(self):
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # first use, or a new loop (tests): start clean
            self._loop, self._released, self._timer = loop, asyncio.Event(), None
            self._released.set()
            self.collector.resume()  # a storm of an old loop that never ended
        return loop

    def _check(self) -> None:
        now = self._loop.time()
        release_at = min(self._last + self.quiet_s, self._first + self.max_hold_s)
        if now < release_at:
            self._timer = self._loop.call_later(release_at - now, self._check)
            return
        self._timer = None
        self._released.set()
        self.collector.resume()


class ShedOverload:
    """ASGI wrapper: a JSON ``POST`` to ``path`` goes on only when admitted; otherwise it is
    answered 503 + Retry-After right here, before routing or reading its body, so refusing
    costs next to nothing even when thousands arrive at once. Admitted asks let refusals
    go first (:class:`RefusalsFirst`). Serve it *around* the whole app (:func:`shedding`):
    as a Starlette middleware it would sit inside the framework's own layers."""

    def __init__(self, app, admission: AdmissionControl, path: str = "/api/v1/ask",
                 on_refused: Callable[[], None] | None = None):
        self.app = app
        self.admission = admission
        self.path = path
        self.on_refused = on_refused
        self.first = RefusalsFirst()

    async def __call__(self, scope, receive, send):
        if not self.guards(scope):
            return await self.app(scope, receive, send)
        try:
            self.admission.enter()
        except NotAdmitted as refused:
            self._count(refused)
            return await _send_503(send, refused.retry_after_s)
        try:
            await self.first.wait_turn()
            await self.app(scope, receive, send)
        finally:
            self.admission.leave()

    def guards(self, scope) -> bool:
        """Whether this request is an ask that admission control decides on."""
        return scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == self.path \
            and _is_json(scope)

    def refusal_bytes(self, scope, keep_alive: bool = True) -> bytes | None:
        """For the HTTP protocol (:mod:`appliance.serve.shed_protocol`), right after a
        request's headers: the whole 503 response when this ask would be refused now
        (counted like a refusal here), else None and the request goes on to ``__call__``,
        which admits it (or, should the gate have filled meanwhile, refuses it)."""
        if not self.guards(scope):
            return None
        refused = self.admission.refusal_now()
        if refused is None:
            return None
        self._count(refused)
        return busy_response(refused.retry_after_s, keep_alive)

    def _count(self, refused: NotAdmitted) -> None:
        if self.on_refused:
            self.on_refused()
        self.first.refused()


def shedding(app) -> ShedOverload:
    """The ASGI application to serve: ``app`` (from :func:`appliance.serve.api.create_app`,
    with any pages mounted) behind its admission control, outside every layer of its own —
    the framework's included, which cost a refused ask about 22 µs against 9 µs here
    (docs/BENCHMARKS.md)."""
    return ShedOverload(app, admission=app.state.admission, on_refused=app.state.on_refused)


def _is_json(scope) -> bool:
    for name, value in scope.get("headers") or []:
        if name == b"content-type":
            return value.split(b";")[0].strip().lower() == b"application/json"
    return False


_BUSY = b'{"detail": "busy: the answer could not come in time, retry in a moment"}'


def _busy_headers(retry_after_s: int) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"application/json"), (b"content-length", str(len(_BUSY)).encode()),
            (b"retry-after", str(retry_after_s).encode())]


async def _send_503(send, retry_after_s: int) -> None:
    await send({"type": "http.response.start", "status": 503, "headers": _busy_headers(retry_after_s)})
    await send({"type": "http.response.body", "body": _BUSY})


def busy_response(retry_after_s: int, keep_alive: bool = True) -> bytes:
    """The same 503 as :func:`_send_503`, as the bytes of a whole HTTP/1.1 response."""
    headers = _busy_headers(retry_after_s) + ([] if keep_alive else [(b"connection", b"close")])
    head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
    return b"HTTP/1.1 503 Service Unavailable\r\n" + head + b"\r\n" + _BUSY
