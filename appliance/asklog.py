"""The ask log: one row per question asked, committed before its answer is returned."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

from appliance import sql
from appliance.clock import Clock, utc_now
from appliance.store import Store

ASK_FIELDS = tuple(c.strip() for c in sql.ASK_COLUMNS.split(","))
FEEDBACK_VALUES = ("up", "down")


class UnknownAskError(KeyError):
    """No ask with that id."""


@dataclass(frozen=True)
class AskRecord:
    """What is logged for one ask (the row's id and time are added by the log)."""

    client: str
    kind: str
    question: str
    truncated: bool
    matched_id: str | None
    confidence: float
    abstained: bool
    stage_ms: dict[str, float]
    backend: str
    ocr_text: str | None = None
    ocr_confidence: float | None = None
    photo_sha256: str | None = None


class AskLog:
    def __init__(self, store: Store, clock: Clock = utc_now):
        self.store = store
        self.clock = clock

    def record(self, ask: AskRecord) -> int:
        """Write one ask durably (WAL, synchronous=FULL) and return its id."""
        values = (
            self.clock(), ask.client, ask.kind, ask.question, int(ask.truncated), ask.ocr_text,
            ask.ocr_confidence, ask.photo_sha256, ask.matched_id, ask.confidence,
            int(ask.abstained), json.dumps(ask.stage_ms), ask.backend,
        )
        with self.store.transaction() as conn:
            return conn.execute(sql.ASK_INSERT, values).lastrowid

    def get(self, ask_id: int) -> dict:
        rows = self.store.query(sql.ASK_GET, (ask_id,))
        if not rows:
            raise UnknownAskError(ask_id)
        return _row(rows[0])

    def tail(self, n: int = 20) -> list[dict]:
        return [_row(r) for r in reversed(self.store.query(sql.ASK_TAIL, (n,)))]

    def count(self) -> int:
        return self.store.query(sql.ASK_COUNT)[0][0]

    def set_feedback(self, ask_id: int, feedback: str) -> None:
        if feedback not in FEEDBACK_VALUES:
            raise ValueError(f"feedback must be one of {', '.join(FEEDBACK_VALUES)}")
        with self.store.transaction() as conn:
            if conn.execute(sql.ASK_SET_FEEDBACK, (feedback, ask_id)).rowcount == 0:
                raise UnknownAskError(ask_id)

    def export_csv(self, path: str | Path) -> int:
        rows = self.store.query(sql.ASK_ALL)
        with Path(path).open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(ASK_FIELDS)
            writer.writerows(rows)
        return len(rows)


def _row(values: tuple) -> dict:
    row = dict(zip(ASK_FIELDS, values))
    row["stage_ms"] = json.loads(row["stage_ms"])
    row["truncated"] = bool(row["truncated"])
    row["abstained"] = bool(row["abstained"])
    return row
