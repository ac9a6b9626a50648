"""A backend that serves from a primary and switches to a fallback for good on failure.

A run that raises, or returns a non-finite output, is answered by the
fallback instead (the caller never sees the failure), the switch is logged,
and ``on_failover(reason)`` tells the owner (the engine manager marks the
model's status and schedules a rebuild). The fallback is made lazily.
"""

from __future__ import annotations

import logging
import threading
from typing import Callable, Mapping

import numpy as np

from engines.backend import InferenceBackend

log = logging.getLogger(__name__)


class FailoverBackend:
    def __init__(self, primary: InferenceBackend, make_fallback: Callable[[], InferenceBackend],
                 on_failover: Callable[[str], None] | None = None, label: str = ""):
        self._primary = primary
        self._make_fallback = make_fallback
        self._fallback: InferenceBackend | None = None
        self._on_failover = on_failover
        self._lock = threading.Lock()
        self.label = label or primary.name
        self.input_names = primary.input_names
        self.output_names = primary.output_names
        self.failure: str | None = None

    @property
    def name(self) -> str:
        return self._fallback.name if self._fallback is not None else self._primary.name

    @property
    def failed_over(self) -> bool:
        return self._fallback is not None

    def _switch(self, reason: str) -> InferenceBackend:
        with self._lock:
            if self._fallback is None:
                log.error("%s: %s; switching to the fallback backend", self.label, reason)
                self._fallback = self._make_fallback()
                self.failure = reason
                if self._on_failover is not None:
                    self._on_failover(reason)
            return self._fallback

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        if self._fallback is not None:
            return self._fallback.run(feeds)
        try:
            outputs = self._primary.run(feeds)
        except Exception as exc:  # any failure of the primary: the fallback answers
            return self._switch(f"{self._primary.name} failed: {exc}").run(feeds)
        bad = [name for name, value in outputs.items()
               if np.issubdtype(np.asarray(value).dtype, np.floating) and not np.isfinite(value).all()]
        if bad:
            return self._switch(f"{self._primary.name} returned non-finite values in {', '.join(bad)}").run(feeds)
        return outputs
