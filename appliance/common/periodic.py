"""A job run every ``interval_s`` on its own daemon thread while the appliance runs (photo
retention). The wait is injected, so tests drive it without sleeping."""

from __future__ import annotations

import logging
import threading
from typing import Callable

log = logging.getLogger(__name__)


class PeriodicTask:
    def __init__(self, name: str, interval_s: float, job: Callable[[], object],
                 wait: Callable[[float], bool] | None = None):
        """``wait(seconds)`` returns True when the task should stop (default: the stop
        event's own wait)."""
        self.name = name
        self.interval_s = interval_s
        self.job = job
        self.runs = 0
        self._stop = threading.Event()
        self._wait = wait or self._stop.wait
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name=f"periodic-{self.name}", daemon=True)
            self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def run_once(self) -> None:
        """One run; a failure is logged and the next run happens as planned."""
        try:
            self.job()
        except Exception as exc:  # keep the timer alive
            log.warning("%s failed: %s: %s", self.name, type(exc).__name__, exc)
        self.runs += 1

    def _loop(self) -> None:
        while not self._stop.is_set() and not self._wait(self.interval_s):
            self.run_once()
