"""The ask log: one row per question asked, committed before its answer is returned."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

from appliance.common.csvsafe import safe_writer
from appliance.db import sql
from appliance.common.batcher import MicroBatcher
from appliance.common.clock import Clock, utc_now
from appliance.db.store import Store, StoreError

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
    #: The photo ask this one corrects (the student edited the text read from the photo).
    corrects: int | None = None


class AskLog:
    """Asks are written by one writer thread with group commit: asks arriving together
    share one transaction (one fsync), and each caller returns only once its row is
    committed."""

    def __init__(self, store: Store, clock: Clock = utc_now):
        self.store = store
        self.clock = clock
        self._writer: MicroBatcher[AskRecord, int] | None = None
        self._writer_lock = threading.Lock()

    def record(self, ask: AskRecord, timeout_s: float = 30.0) -> int:
        """Write one ask durably (WAL, synchronous=FULL) and return its id."""
        return self._group_writer().submit(ask, timeout_s=timeout_s)

    def close(self) -> None:
        """Commit what is queued and stop the writer."""
        if self._writer is not None:
            self._writer.close()

    def _group_writer(self) -> MicroBatcher[AskRecord, int]:
        with self._writer_lock:
            if self._writer is None:
                self._writer = MicroBatcher(self._write_many, "ask-log", max_batch=64, max_wait_ms=0, max_queue=4096,
                                            shared_faults=(StoreError,))
            return self._writer

    def _write_many(self, asks: list[AskRecord]) -> list[int]:
        with self.store.transaction() as conn:
            return [conn.execute(sql.ASK_INSERT, self._values(ask)).lastrowid for ask in asks]

    def _values(self, ask: AskRecord) -> tuple:
        return (
            self.clock(), ask.client, ask.kind, ask.question, int(ask.truncated), ask.ocr_text,
            ask.ocr_confidence, ask.photo_sha256, ask.matched_id, ask.confidence,
            int(ask.abstained), json.dumps(ask.stage_ms), ask.backend, ask.corrects,
        )

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
            writer = safe_writer(fh)
            writer.writerow(ASK_FIELDS)
            writer.writerows(rows)
        return len(rows)


def _row(values: tuple) -> dict:
    row = dict(zip(ASK_FIELDS, values))
    row["stage_ms"] = json.loads(row["stage_ms"])
    row["truncated"] = bool(row["truncated"])
    row["abstained"] = bool(row["abstained"])
    return row
