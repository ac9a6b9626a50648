"""systemd's notification protocol (``sd_notify``), written out: no dependency.

systemd hands a ``Type=notify`` service the address of a datagram socket in
``$NOTIFY_SOCKET`` (a filesystem path, or an abstract socket name starting with ``@``).
The service sends newline-separated ``KEY=VALUE`` lines to it:

- ``READY=1`` once it serves (systemctl start returns, units ordered after it start);
- ``STATUS=...`` a one-line status shown by ``systemctl status``;
- ``WATCHDOG=1`` at least every ``WatchdogSec`` (systemd passes it as ``$WATCHDOG_USEC``)
  while healthy: when the pings stop, systemd kills and restarts the service;
- ``STOPPING=1`` when a graceful shutdown begins.

Outside systemd (no ``$NOTIFY_SOCKET``) every call is a no-op that returns False, so the
daemon runs the same from a terminal.

:func:`serve_uvicorn` runs a uvicorn server that sends ``READY=1`` once its sockets
listen, pings the watchdog while its event loop answers (and an optional health check
passes), and sends ``STOPPING=1`` when shutdown starts.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Callable, Mapping

log = logging.getLogger(__name__)

ENV_SOCKET = "NOTIFY_SOCKET"
ENV_WATCHDOG_USEC = "WATCHDOG_USEC"
ENV_WATCHDOG_PID = "WATCHDOG_PID"


def _address(environ: Mapping[str, str]) -> str | None:
    address = environ.get(ENV_SOCKET, "")
    if not address:
        return None
    if address.startswith("@"):  # abstract namespace
        return "\0" + address[1:]
    if address.startswith("/"):
        return address
    log.warning("sd_notify: unsupported %s=%r (only unix socket paths are supported)", ENV_SOCKET, address)
    return None


def notify(*lines: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send ``lines`` (``KEY=VALUE``) to systemd in one datagram. True when sent; False
    outside systemd or when the socket cannot be reached (logged, never raised)."""
    address = _address(os.environ if environ is None else environ)
    if address is None:
        return False
    payload = "\n".join(line.replace("\n", " ") for line in lines).encode("utf-8")
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(payload)
        return True
    except OSError as exc:
        log.warning("sd_notify: could not send %s: %s", lines[0] if lines else "", exc)
        return False


def ready(status: str | None = None, environ: Mapping[str, str] | None = None) -> bool:
    """The service is up: ``READY=1`` (and ``STATUS=``), with ``MAINPID`` for clarity."""
    lines = ["READY=1", f"MAINPID={os.getpid()}"]
    if status:
        lines.append(f"STATUS={status}")
    return notify(*lines, environ=environ)


def status(text: str, environ: Mapping[str, str] | None = None) -> bool:
    """A one-line status for ``systemctl status``."""
    return notify(f"STATUS={text}", environ=environ)


def stopping(status: str | None = "shutting down: finishing in-flight asks",
             environ: Mapping[str, str] | None = None) -> bool:
    lines = ["STOPPING=1"]
    if status:
        lines.append(f"STATUS={status}")
    return notify(*lines, environ=environ)


def watchdog_ping(environ: Mapping[str, str] | None = None) -> bool:
    return notify("WATCHDOG=1", environ=environ)


def extend_timeout(seconds: float, environ: Mapping[str, str] | None = None) -> bool:
    """Ask systemd for ``seconds`` more before a start (or stop) times out."""
    return notify(f"EXTEND_TIMEOUT_USEC={int(seconds * 1_000_000)}", environ=environ)


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """The watchdog timeout systemd set for this process, in seconds; None when there is
    none (no ``WatchdogSec=``, not under systemd, or meant for another process)."""
    env = os.environ if environ is None else environ
    usec = env.get(ENV_WATCHDOG_USEC, "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    pid = env.get(ENV_WATCHDOG_PID, "")
    if pid and (not pid.isdigit() or int(pid) != os.getpid()):
        return None
    return int(usec) / 1_000_000


class Watchdog:
    """A daemon thread that sends ``WATCHDOG=1`` every half watchdog period while
    ``health()`` returns True. When the check fails (or raises, or takes longer than the
    period) no ping is sent, and systemd restarts the service once ``WatchdogSec`` passes
    without one. ``health`` may be replaced while running (e.g. once the server is up).
    """

    def __init__(self, health: Callable[[], bool] | None = None, interval_s: float | None = None,
                 environ: Mapping[str, str] | None = None):
        self.environ = dict(os.environ if environ is None else environ)
        timeout = watchdog_interval(self.environ)
        self.interval_s = interval_s if interval_s is not None else (timeout / 2 if timeout else None)
        self.health = health or (lambda: True)
        self.pings = 0
        self.missed = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def enabled(self) -> bool:
        return self.interval_s is not None and _address(self.environ) is not None

    def start(self) -> bool:
        """Start pinging; False (and no thread) when systemd asked for no watchdog."""
        if not self.enabled or self._thread is not None:
            return False
        self._thread = threading.Thread(target=self._loop, name="sd-watchdog", daemon=True)
        self._thread.start()
        log.info("watchdog: pinging systemd every %.1f s while healthy", self.interval_s)
        return True

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def check_once(self) -> bool:
        """Run the health check; ping when it passes. Returns whether it passed."""
        try:
            healthy = bool(self.health())
        except Exception as exc:  # a failing check is an unhealthy daemon, not a dead thread
            log.warning("watchdog: health check raised %s: %s", type(exc).__name__, exc)
            healthy = False
        if healthy:
            watchdog_ping(self.environ)
            self.pings += 1
        else:
            self.missed += 1
            log.warning("watchdog: health check failed; not pinging systemd (%d missed)", self.missed)
        return healthy

    def _loop(self) -> None:
        assert self.interval_s is not None
        while not self._stop.wait(self.interval_s):
            self.check_once()


def loop_responds(loop, timeout_s: float = 5.0) -> bool:
    """True when the asyncio ``loop`` runs a callback from another thread within
    ``timeout_s``: the server's event loop is not wedged."""
    if loop is None or loop.is_closed() or not loop.is_running():
        return False
    done = threading.Event()
    try:
        loop.call_soon_threadsafe(done.set)
    except RuntimeError:  # closed meanwhile
        return False
    return done.wait(timeout_s)


def serve_uvicorn(app, *, host: str, port: int, ready_status: str | None = None,
                  health: Callable[[], bool] | None = None,
                  environ: Mapping[str, str] | None = None, **uvicorn_options) -> None:
    """Run ``app`` with uvicorn (blocking) and speak sd_notify around it.

    ``READY=1`` is sent once the listening sockets are bound, ``STOPPING=1`` when the
    graceful shutdown starts (SIGTERM), and ``WATCHDOG=1`` every half ``WatchdogSec``
    while the event loop answers within a few seconds and ``health()`` (if given) passes.
    Other keyword arguments go to ``uvicorn.Config`` (log_level, timeout_graceful_shutdown...).
    Signals behave as with ``uvicorn.run``: SIGTERM drains, then the process exits.
    """
    import asyncio

    import uvicorn

    env = dict(os.environ if environ is None else environ)
    watchdog = Watchdog(environ=env)
    check_timeout = max(1.0, min(5.0, (watchdog.interval_s or 10.0) / 2))
    state: dict = {"loop": None}

    def healthy() -> bool:
        if state["loop"] is None:  # still starting: TimeoutStartSec guards this phase
            return True
        return loop_responds(state["loop"], check_timeout) and (health is None or health())

    watchdog.health = healthy

    class NotifyingServer(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            if self.should_exit:  # e.g. the port was taken: uvicorn exits, no READY
                return
            state["loop"] = asyncio.get_running_loop()
            ready(ready_status or f"serving on {host}:{port}", environ=env)

        async def shutdown(self, sockets=None) -> None:
            stopping(environ=env)
            await super().shutdown(sockets=sockets)

    config = uvicorn.Config(app, host=host, port=port, **uvicorn_options)
    server = NotifyingServer(config)
    watchdog.start()
    try:
        server.run()
    except KeyboardInterrupt:  # as uvicorn.run: Ctrl-C in a terminal is a normal stop
        pass
    finally:
        watchdog.stop()
    if not server.started:  # as uvicorn.run: a server that never started is a failure
        raise SystemExit(3)
