"""Time as the appliance sees it: injected, so tests never depend on the real clock."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

Clock = Callable[[], str]


def utc_now() -> str:
    """The current UTC time as ISO 8601 with milliseconds, e.g. 2026-11-30T13:10:41.123Z."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
