"""Per-stage wall-clock milliseconds."""

from __future__ import annotations

import time


class Stopwatch:
    def __init__(self) -> None:
        self.stages: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        """Add the time since the previous lap to ``stage`` (stages may repeat)."""
        now = time.perf_counter()
        self.stages[stage] = round(self.stages.get(stage, 0.0) + (now - self._last) * 1000, 3)
        self._last = now
