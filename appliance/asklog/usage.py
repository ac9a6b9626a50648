"""Usage figures for the teachers' plots: asks over time (per hour or day, in the school's
time zone) with their abstain rate, asks by subject, and the confidence histogram."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo

from appliance.db import review_sql
from appliance.asklog.review import parse_utc
from appliance.db.store import Store

BUCKETS = ("hour", "day")
MAX_BUCKETS = 24 * 93
CONFIDENCE_BINS = 10
UNMATCHED = ""  # subject of asks that matched no entry (abstained)


class UsageError(ValueError):
    """A bad bucket name."""


@dataclass(frozen=True)
class TimeBucket:
    start: str  # local time, "2026-11-30 08:00" (hour) or "2026-11-30" (day)
    asks: int
    abstained: int

    @property
    def abstain_rate(self) -> float:
        return self.abstained / self.asks if self.asks else 0.0


@dataclass(frozen=True)
class Usage:
    total: int
    abstained: int
    over_time: list[TimeBucket] = field(default_factory=list)
    by_subject: list[tuple[str, int]] = field(default_factory=list)  # UNMATCHED for no match
    confidence: list[tuple[str, int]] = field(default_factory=list)  # ("0.0-0.1", n), ...


def usage(store: Store, since: str | None, until: str | None, tz: tzinfo, bucket: str = "day") -> Usage:
    if bucket not in BUCKETS:
        raise UsageError(f"bucket must be one of {', '.join(BUCKETS)}")
    rows = store.query(review_sql.ASK_USAGE, {"since": since, "until": until})
    step = timedelta(hours=1) if bucket == "hour" else timedelta(days=1)
    counts: Counter[datetime] = Counter()
    abstains: Counter[datetime] = Counter()
    subjects: Counter[str] = Counter()
    bins = [0] * CONFIDENCE_BINS
    for asked_at, confidence, abstained, subject in rows:
        start = _floor(parse_utc(asked_at).astimezone(tz), bucket)
        counts[start] += 1
        abstains[start] += int(bool(abstained))
        subjects[subject or UNMATCHED] += 1
        bins[min(CONFIDENCE_BINS - 1, max(0, int(float(confidence) * CONFIDENCE_BINS)))] += 1
    return Usage(
        total=len(rows),
        abstained=sum(abstains.values()),
        over_time=_series(counts, abstains, step, bucket),
        by_subject=sorted(subjects.items(), key=lambda kv: (-kv[1], kv[0])),
        confidence=[(f"{i / CONFIDENCE_BINS:.1f}-{(i + 1) / CONFIDENCE_BINS:.1f}", n) for i, n in enumerate(bins)],
    )


def _floor(moment: datetime, bucket: str) -> datetime:
    moment = moment.replace(minute=0, second=0, microsecond=0)
    return moment.replace(hour=0) if bucket == "day" else moment


def _series(counts: Counter, abstains: Counter, step: timedelta, bucket: str) -> list[TimeBucket]:
    """Every bucket from the first ask to the last (empty ones as 0), at most MAX_BUCKETS."""
    if not counts:
        return []
    fmt = "%Y-%m-%d %H:00" if bucket == "hour" else "%Y-%m-%d"
    first, last = min(counts), max(counts)
    out: list[TimeBucket] = []
    moment = first
    while moment <= last and len(out) < MAX_BUCKETS:
        out.append(TimeBucket(moment.strftime(fmt), counts.get(moment, 0), abstains.get(moment, 0)))
        moment = moment + step  # wall-clock arithmetic, like the bucket keys
    return out
