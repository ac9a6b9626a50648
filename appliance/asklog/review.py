"""Teacher review of the ask log: filter the log, approve an answer, or correct it (and
put the corrected answer into the bank, so the next student who asks gets it).

Built on the ask log's table and :class:`QuestionBank`; SQL in ``review_sql``. Times in
the log are UTC; teachers pick dates in the school's time zone (:func:`day_bounds`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, fields
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

from appliance.db import review_sql
from appliance.bank.bank_editor import BankEntryError, make_entry, split_points
from appliance.bank.kb import QuestionBank
from appliance.asklog.photo_archive import PhotoArchive  # noqa: F401  (re-exported for the UI)
from appliance.asklog.teacher_memory import TeacherMemory
from appliance.db.store import Store

log = logging.getLogger(__name__)

TEACHER_ORIGIN = "teacher"
REVIEW_STATUSES = ("pending", "approved", "corrected", "added", "rejected")
FEEDBACK_FILTERS = ("up", "down", "none")
ORDERS = ("confidence", "newest")
MAX_ROWS = 5000


class ReviewError(ValueError):
    """A review action a teacher can fix: bad filter value, empty answer, unknown ask."""


class UnknownAsk(ReviewError):
    """No ask with that id."""


@dataclass(frozen=True)
class AskFilter:
    since: str | None = None  # UTC ISO bound, inclusive (see day_bounds)
    until: str | None = None  # UTC ISO bound, exclusive
    subject: str | None = None
    confidence_below: float | None = None
    abstained: bool | None = None
    feedback: str | None = None  # "up", "down" or "none" (no feedback given)
    status: str | None = None  # one of REVIEW_STATUSES
    text: str | None = None  # substring of the question or OCR text
    order: str = "confidence"  # "confidence": least confident first; "newest"
    limit: int = 500


@dataclass(frozen=True)
class ReviewRow:
    ask_id: int
    asked_at: str
    kind: str
    question: str
    ocr_text: str | None
    ocr_confidence: float | None
    photo_sha256: str | None
    matched_id: str | None
    subject: str | None
    confidence: float
    abstained: bool
    feedback: str | None
    review_status: str
    teacher_answer: str | None
    client: str


@dataclass(frozen=True)
class Correction:
    answer: str
    knowledge_points: tuple[str, ...] = ()
    subject: str = ""
    grade: str = ""
    source: str = ""
    #: The question stored in the bank; empty: the student's question as asked (or read).
    question: str = ""
    #: "new": a new bank entry ``ask-<id>``; "matched": replace the answer of the entry the
    #: student was given; "none": record the teacher's answer on the ask only.
    target: str = "new"


@dataclass(frozen=True)
class CorrectionResult:
    ask_id: int
    status: str
    entry_id: str | None


# -- time ---------------------------------------------------------------------------------------
def school_tz(name: str = "") -> tzinfo:
    """The named IANA zone, or the box's local zone for ""."""
    return ZoneInfo(name) if name else datetime.now().astimezone().tzinfo


def utc_iso(moment: datetime) -> str:
    """The ask log's time format (UTC, milliseconds, 'Z')."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def parse_utc(stamp: str) -> datetime:
    return datetime.strptime(stamp.rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f").replace(tzinfo=timezone.utc)


def local_text(stamp: str, tz: tzinfo) -> str:
    """A log time as the teacher reads it: 2026-11-30 21:10:41 in the school's zone."""
    return parse_utc(stamp).astimezone(tz).strftime("%Y-%m-%d %H:%M:%S")


def day_bounds(first: date | None, last: date | None, tz: tzinfo) -> tuple[str | None, str | None]:
    """UTC bounds covering whole local days ``first``..``last`` (either may be open)."""
    since = utc_iso(datetime.combine(first, time(0), tz)) if first else None
    until = utc_iso(datetime.combine(last + timedelta(days=1), time(0), tz)) if last else None
    return since, until


# -- review -------------------------------------------------------------------------------------
class ReviewService:
    def __init__(self, store: Store, bank: QuestionBank):
        self.store = store
        self.bank = bank
        self.memory = TeacherMemory(store)

    def list_asks(self, flt: AskFilter) -> list[ReviewRow]:
        _check_filter(flt)
        params = {
            "since": flt.since, "until": flt.until, "subject": flt.subject or None,
            "below": flt.confidence_below,
            "abstained": None if flt.abstained is None else int(flt.abstained),
            "feedback": flt.feedback or None, "status": flt.status or None,
            "text": (flt.text or "").strip() or None, "order": flt.order,
            "limit": max(1, min(flt.limit, MAX_ROWS)),
        }
        return [_review_row(r) for r in self.store.query(review_sql.ASK_FILTERED, params)]

    def get(self, ask_id: int) -> ReviewRow:
        rows = self.store.query(review_sql.ASK_REVIEW_ONE, (int(ask_id),))
        if not rows:
            raise UnknownAsk(f"no ask with id {ask_id}")
        return _review_row(rows[0])

    def approve(self, ask_id: int, teacher: str, entry_id: str | None = None) -> CorrectionResult:
        """The ask is answered by ``entry_id`` (default: the entry it was given). The
        student's wording becomes an alias of that entry: the next student who asks it so
        gets that entry's answer. An abstained ask approved without an entry is only marked."""
        ask = self.get(ask_id)
        entry_id = entry_id or ask.matched_id
        if entry_id:
            if entry_id not in self.bank.get_many([entry_id]):
                raise ReviewError(f"no bank entry {entry_id}")
            self.memory.add_alias(_wording(ask), entry_id, ask_id, teacher)
        self._set_status(ask_id, "approved", None)
        log.info("ask %s approved by %s (entry %s)", ask_id, teacher, entry_id or "-")
        return CorrectionResult(ask_id, "approved", entry_id)

    def reject(self, ask_id: int, teacher: str, entry_id: str | None = None) -> CorrectionResult:
        """"Not this problem": the entry the ask was given (or ``entry_id``) does not answer
        the student's wording, and is never given for it again."""
        ask = self.get(ask_id)
        entry_id = entry_id or ask.matched_id
        if not entry_id:
            raise ReviewError("this ask was not answered with a bank entry; nothing to reject")
        self.memory.add_negative(_wording(ask), entry_id, ask_id, teacher)
        self._set_status(ask_id, "rejected", None)
        log.info("ask %s: entry %s rejected by %s", ask_id, entry_id, teacher)
        return CorrectionResult(ask_id, "rejected", entry_id)

    def correct(self, ask_id: int, correction: Correction, teacher: str) -> CorrectionResult:
        """Record the teacher's answer; with target "new" or "matched" also upsert it into
        the bank (origin "teacher"), which refreshes the answer cache and dense index."""
        ask = self.get(ask_id)
        answer = (correction.answer or "").strip()
        if not answer:
            raise ReviewError("write the correct answer first")
        if correction.target == "none":
            self._set_status(ask_id, "corrected", answer)
            log.info("ask %s corrected by %s (not added to the bank)", ask_id, teacher)
            return CorrectionResult(ask_id, "corrected", None)
        entry = self._entry_for(ask, correction, answer)
        # Bank first: should the second write fail, redoing the correction is harmless
        # (the entry is upserted by id), and the ask stays "pending" so it is not lost.
        self.bank.upsert([entry], TEACHER_ORIGIN)
        self._set_status(ask_id, "added", answer)
        log.info("ask %s corrected by %s into bank entry %s", ask_id, teacher, entry.id)
        return CorrectionResult(ask_id, "added", entry.id)

    def _entry_for(self, ask: ReviewRow, correction: Correction, answer: str):
        points = tuple(correction.knowledge_points)
        if correction.target == "matched":
            if not ask.matched_id:
                raise ReviewError("this ask was not matched to a bank entry; add it as a new entry")
            old = self.bank.get_many([ask.matched_id]).get(ask.matched_id)
            if old is None:
                raise ReviewError(f"bank entry {ask.matched_id} no longer exists; add it as a new entry")
            raw = {**old, "answer": answer, "knowledge_points": list(points or old["knowledge_points"]),
                   "subject": correction.subject or old["subject"], "grade": correction.grade or old["grade"],
                   "source": correction.source or old["source"]}
        elif correction.target == "new":
            raw = {"id": f"ask-{ask.ask_id}", "subject": correction.subject, "grade": correction.grade,
                   "question": (correction.question or ask.question).strip(), "answer": answer,
                   "knowledge_points": list(points), "source": correction.source}
        else:
            raise ReviewError(f"unknown correction target {correction.target!r}")
        try:
            return make_entry(raw)
        except BankEntryError as exc:
            raise ReviewError(str(exc)) from None

    def _set_status(self, ask_id: int, status: str, answer: str | None) -> None:
        with self.store.transaction() as conn:
            if conn.execute(review_sql.ASK_SET_REVIEW, (status, answer, int(ask_id))).rowcount == 0:
                raise UnknownAsk(f"no ask with id {ask_id}")


def _wording(ask: ReviewRow) -> str:
    """What the student asked: the question as typed, or as read from the photo."""
    wording = (ask.question or ask.ocr_text or "").strip()
    if not wording:
        raise ReviewError("this ask has no text to learn from")
    return wording


def parse_points(text: str) -> tuple[str, ...]:
    """Knowledge points typed by a teacher: separated by ; ； , ， 、 or new lines."""
    return split_points(text)


def _check_filter(flt: AskFilter) -> None:
    if flt.feedback and flt.feedback not in FEEDBACK_FILTERS:
        raise ReviewError(f"feedback filter must be one of {', '.join(FEEDBACK_FILTERS)}")
    if flt.status and flt.status not in REVIEW_STATUSES:
        raise ReviewError(f"status filter must be one of {', '.join(REVIEW_STATUSES)}")
    if flt.order not in ORDERS:
        raise ReviewError(f"order must be one of {', '.join(ORDERS)}")
    if flt.confidence_below is not None and not 0.0 <= flt.confidence_below <= 1.0:
        raise ReviewError("confidence must be between 0 and 1")


def _review_row(values: tuple) -> ReviewRow:
    row = dict(zip((f.name for f in fields(ReviewRow)), values))
    row["abstained"] = bool(row["abstained"])
    row["client"] = row["client"] or ""
    return ReviewRow(**row)


# -- photos -------------------------------------------------------------------------------------
