"""Teacher tab: the ask log as a filterable table, one ask's detail, approve or correct."""

from __future__ import annotations

import dataclasses
import logging
import shutil
import tempfile
import time
import uuid
import weakref
from dataclasses import dataclass
from datetime import date, tzinfo
from pathlib import Path

import gradio as gr
import pandas as pd

from appliance.common.csvsafe import safe_writer
from appliance.bank.bank_editor import BankEditor
from appliance.asklog.review import (
    MAX_ROWS,
    AskFilter,
    Correction,
    PhotoArchive,
    ReviewError,
    ReviewRow,
    ReviewService,
    day_bounds,
    local_text,
    parse_points,
)
from ui.i18n import kind_name, subject_choices, subject_name, t
from ui.render import LATEX_DELIMITERS, message_html, safe_markdown
from ui.translate import Translations

log = logging.getLogger(__name__)

COLUMNS = ("ask_id", "time", "kind", "question", "confidence", "abstained", "subject", "feedback", "status")
HEADER_KEYS = {"ask_id": "ask_id", "time": "time", "kind": "kind", "question": "question_col",
               "confidence": "confidence", "abstained": "abstained", "subject": "subject",
               "feedback": "feedback", "status": "status"}
LOG_CELL_CHARS = 60
LOG_COLUMN_WIDTHS = ["7%", "13%", "7%", "31%", "7%", "7%", "8%", "9%", "11%"]
STATUS_KEYS = {"pending": "st_pending", "approved": "st_approved", "corrected": "st_corrected", "added": "st_added",
               "rejected": "st_rejected"}


@dataclass(frozen=True)
class LogQuery:
    """The filter form's values, as the page sends them."""

    first: str | None = None
    last: str | None = None
    subject: str = ""
    below: float = 1.0
    abstained: str = ""  # "", "yes", "no"
    feedback: str = ""
    status: str = ""
    order: str = "confidence"
    text: str = ""


def parse_day(value) -> date | None:
    if value in (None, ""):
        return None
    try:
        return date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        raise ReviewError(f"not a date: {value!r} (use YYYY-MM-DD)") from None


def to_filter(query: LogQuery, tz: tzinfo) -> AskFilter:
    since, until = day_bounds(parse_day(query.first), parse_day(query.last), tz)
    return AskFilter(
        since=since, until=until, subject=query.subject or None,
        confidence_below=None if query.below is None or float(query.below) >= 1.0 else float(query.below),
        abstained={"yes": True, "no": False}.get(query.abstained), feedback=query.feedback or None,
        status=query.status or None, order=query.order or "confidence", text=query.text or None,
    )


def table(rows: list[ReviewRow], tz: tzinfo, lang: str) -> pd.DataFrame:
    """The rows as the page shows them: local times, plain text cells."""
    feedback = {"up": t(lang, "helpful"), "down": t(lang, "not_helpful"), None: ""}
    data = [
        [str(r.ask_id), local_text(r.asked_at, tz), kind_name(lang, r.kind), r.question[:200], f"{r.confidence:.2f}",
         t(lang, "yes") if r.abstained else "", subject_name(lang, r.subject), feedback.get(r.feedback, r.feedback or ""),
         t(lang, STATUS_KEYS.get(r.review_status, "st_pending"))]
        for r in rows
    ]
    return pd.DataFrame(data, columns=[t(lang, HEADER_KEYS[c]) for c in COLUMNS])


def write_csv(rows: list[ReviewRow], tz: tzinfo, folder: Path) -> str:
    """The rows as a CSV file (UTF-8 with BOM, so spreadsheet programs read Chinese)."""
    path = fresh_export(folder, "asks")
    with path.open("w", encoding="utf-8-sig", newline="") as fh:
        writer = safe_writer(fh)
        writer.writerow(["id", "asked_at_local", "kind", "question", "ocr_text", "matched_id", "subject",
                         "confidence", "abstained", "feedback", "review_status", "teacher_answer", "client"])
        for r in rows:
            writer.writerow([r.ask_id, local_text(r.asked_at, tz), r.kind, r.question, r.ocr_text or "",
                             r.matched_id or "", r.subject or "", r.confidence, int(r.abstained),
                             r.feedback or "", r.review_status, r.teacher_answer or "", r.client])
    return str(path)


def detail_markdown(row: ReviewRow, given: dict | None, tz: tzinfo, lang: str) -> str:
    """Everything about one ask, as safe Markdown."""
    facts = [
        f"**#{row.ask_id}** · {local_text(row.asked_at, tz)} · {kind_name(lang, row.kind)} · {safe_markdown(row.client)}",
        f"**{t(lang, 'confidence')}:** {row.confidence:.2f}"
        + (f" · **{t(lang, 'abstained')}**" if row.abstained else "")
        + f" · **{t(lang, 'status')}:** {t(lang, STATUS_KEYS.get(row.review_status, 'st_pending'))}"
        + (f" · **{t(lang, 'feedback')}:** {t(lang, 'helpful' if row.feedback == 'up' else 'not_helpful')}" if row.feedback else ""),
        f"**{t(lang, 'question_col')}:**\n\n{safe_markdown(row.question)}",
    ]
    if given:
        facts.append(f"**{t(lang, 'given_answer')}** ({safe_markdown(given['id'])}):\n\n{safe_markdown(given['answer'])}")
    if row.teacher_answer:
        facts.append(f"**{t(lang, 'teacher_answer')}:**\n\n{safe_markdown(row.teacher_answer)}")
    return "\n\n".join(facts)


def export_folder(owner: object) -> Path:
    """A private folder for ``owner``'s downloads: made at its first export (not at start,
    so restarts leave nothing behind) and removed with ``owner`` or when the daemon exits."""
    path = Path(tempfile.gettempdir()) / f"eduqa-export-{uuid.uuid4().hex[:12]}"
    weakref.finalize(owner, shutil.rmtree, path, True)
    return path


def fresh_export(folder: Path, stem: str, keep_s: float = 3600.0) -> Path:
    """A new file name in ``folder`` for one download; exports older than ``keep_s`` go
    (Gradio serves a copy from its own cache)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    now = time.time()
    for old in folder.glob("*.csv"):
        try:
            if now - old.stat().st_mtime > keep_s:
                old.unlink()
        except OSError:
            pass
    return folder / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}.csv"


class LogTab:
    def __init__(self, review: ReviewService, editor: BankEditor, archive: PhotoArchive, tz: tzinfo):
        self.review = review
        self.editor = editor
        self.archive = archive
        self.tz = tz
        self._export_dir = export_folder(self)

    def build(self, tr: Translations, lang) -> None:
        T = tr.text
        with gr.Row():
            first = tr.add(gr.DateTime(label=T("from"), include_time=False, type="string", elem_id="eq-log-from"), label="from")
            last = tr.add(gr.DateTime(label=T("to"), include_time=False, type="string", elem_id="eq-log-to"), label="to")
            subject = tr.add(gr.Dropdown([(T("any"), "")], value="", label=T("subject"), elem_id="eq-log-subject"),
                             label="subject")
            below = tr.add(gr.Slider(0, 1, value=1.0, step=0.05, label=T("conf_below"), elem_id="eq-log-below"),
                           label="conf_below")
        with gr.Row():
            abstained = tr.add(gr.Radio(tr.choices([("any", ""), ("yes", "yes"), ("no", "no")]), value="",
                                        label=T("abstained"), elem_id="eq-log-abstained"),
                               label="abstained", choices=[("any", ""), ("yes", "yes"), ("no", "no")])
            fb_choices = [("any", ""), ("helpful", "up"), ("not_helpful", "down"), ("fb_none", "none")]
            feedback = tr.add(gr.Dropdown(tr.choices(fb_choices), value="", label=T("feedback"), elem_id="eq-log-feedback"),
                              label="feedback", choices=fb_choices)
            st_choices = [("any", "")] + [(key, status) for status, key in STATUS_KEYS.items()]
            status = tr.add(gr.Dropdown(tr.choices(st_choices), value="", label=T("status"), elem_id="eq-log-status"),
                            label="status", choices=st_choices)
            order_choices = [("order_confidence", "confidence"), ("order_newest", "newest")]
            order = tr.add(gr.Radio(tr.choices(order_choices), value="confidence", label=T("order"), elem_id="eq-log-order"),
                           label="order", choices=order_choices)
        with gr.Row():
            text = tr.add(gr.Textbox(label=T("search"), elem_id="eq-log-text", scale=3), label="search")
            refresh = tr.add(gr.Button(T("refresh"), variant="primary", elem_id="eq-log-refresh", scale=1), value="refresh")
            export = tr.add(gr.Button(T("export_csv"), elem_id="eq-log-export", scale=1), value="export_csv")
        export_file = gr.File(visible=False, interactive=False, elem_id="eq-log-file")
        note = gr.Markdown(elem_id="eq-log-note")
        # Long questions are cut to LOG_CELL_CHARS in the grid (the detail below shows them whole)
        # and the columns share the width, so all nine stay on screen.
        grid = gr.Dataframe(interactive=False, wrap=True, max_height=420, elem_id="eq-log-table",
                            datatype="str", show_row_numbers=False, max_chars=LOG_CELL_CHARS,
                            column_widths=LOG_COLUMN_WIDTHS)
        tr.add(gr.Markdown(f"### {T('detail')}"), value=lambda lg: f"### {t(lg, 'detail')}")
        with gr.Row():
            ask_id = tr.add(gr.Number(value=None, label=T("ask_id"), precision=0, elem_id="eq-ask-id", scale=1), label="ask_id")
            open_btn = tr.add(gr.Button(T("open"), elem_id="eq-ask-open", scale=1), value="open")
        with gr.Row():
            with gr.Column(scale=3):
                detail = gr.Markdown(elem_id="eq-detail", latex_delimiters=LATEX_DELIMITERS)
                ocr = tr.add(gr.Textbox(label=T("ocr_text"), interactive=False, visible=False, elem_id="eq-ocr"),
                             label="ocr_text")
            photo = tr.add(gr.Image(label=T("photo_of_ask"), interactive=False, visible=False, elem_id="eq-ask-photo",
                                    scale=2), label="photo_of_ask")
        approve = tr.add(gr.Button(T("approve"), elem_id="eq-approve"), value="approve")
        reject = tr.add(gr.Button(T("reject"), elem_id="eq-reject"), value="reject")
        answer = tr.add(gr.Textbox(label=T("teacher_answer"), lines=5, max_lines=20, elem_id="eq-correct-answer"),
                        label="teacher_answer")
        with gr.Row():
            points = tr.add(gr.Textbox(label=T("points_input"), elem_id="eq-correct-points"), label="points_input")
            subject_in = tr.add(gr.Dropdown([], value=None, allow_custom_value=True, label=T("subject"),
                                            elem_id="eq-correct-subject"), label="subject")
            grade = tr.add(gr.Textbox(label=T("grade"), elem_id="eq-correct-grade"), label="grade")
        bank_question = tr.add(gr.Textbox(label=T("bank_question"), elem_id="eq-correct-question"), label="bank_question")
        target_choices = [("target_new", "new"), ("target_matched", "matched"), ("target_none", "none")]
        target = tr.add(gr.Radio(tr.choices(target_choices), value="new", label=T("target"), elem_id="eq-correct-target"),
                        label="target", choices=target_choices)
        save = tr.add(gr.Button(T("save_correction"), variant="primary", elem_id="eq-correct-save"), value="save_correction")
        result = gr.HTML(elem_id="eq-correct-result")

        filters = [first, last, subject, below, abstained, feedback, status, order, text]

        def query_of(*values) -> LogQuery:
            return LogQuery(*values)

        def load_rows(lang_now, *values):
            try:
                rows = self.review.list_asks(to_filter(query_of(*values), self.tz))
            except ReviewError as exc:
                return gr.update(), message_html(str(exc), "error")
            return table(rows, self.tz, lang_now), t(lang_now, "rows", n=len(rows))

        refresh.click(load_rows, [lang, *filters], [grid, note], api_visibility="private")
        text.submit(load_rows, [lang, *filters], [grid, note], api_visibility="private")

        def export_rows(*values):
            try:
                query = to_filter(query_of(*values), self.tz)
                rows = self.review.list_asks(dataclasses.replace(query, limit=MAX_ROWS))
            except ReviewError:
                rows = []
            return gr.update(value=write_csv(rows, self.tz, self._export_dir), visible=True)

        export.click(export_rows, filters, export_file, api_visibility="private")

        def subjects(lang_now):
            names = self.editor.subjects()
            return (gr.update(choices=[(t(lang_now, "any"), "")] + subject_choices(lang_now, names)),
                    gr.update(choices=subject_choices(lang_now, names)))

        detail_outputs = [detail, ocr, photo, answer, points, subject_in, grade, bank_question, target, result]

        def open_ask(lang_now, number):
            if number in (None, ""):
                return [message_html(t(lang_now, "select_ask"), "warn")] + [gr.update()] * (len(detail_outputs) - 1)
            try:
                row = self.review.get(int(number))
            except (ReviewError, ValueError) as exc:
                return [message_html(str(exc), "error")] + [gr.update()] * (len(detail_outputs) - 1)
            given = self.editor.bank.get_many([row.matched_id]).get(row.matched_id) if row.matched_id else None
            photo_path = self.archive.find(row.photo_sha256)
            return [
                detail_markdown(row, given, self.tz, lang_now),
                gr.update(value=row.ocr_text or "", visible=bool(row.ocr_text)),
                gr.update(value=str(photo_path) if photo_path else None, visible=photo_path is not None),
                row.teacher_answer or (given["answer"] if given and not row.abstained else ""),
                "; ".join(given["knowledge_points"]) if given else "",
                gr.update(value=given["subject"] if given else None,
                          choices=subject_choices(lang_now, self.editor.subjects())),
                given["grade"] if given else "",
                "",
                "new",
                "",
            ]

        open_btn.click(open_ask, [lang, ask_id], detail_outputs, api_visibility="private")
        ask_id.submit(open_ask, [lang, ask_id], detail_outputs, api_visibility="private")

        def pick_row(lang_now, evt: gr.SelectData):
            value = (evt.row_value or [None])[0] if getattr(evt, "row_value", None) else None
            try:
                number = int(value)
            except (TypeError, ValueError):
                number = None
            return [number, *open_ask(lang_now, number)]

        grid.select(pick_row, [lang], [ask_id, *detail_outputs], api_visibility="private")

        def do_approve(lang_now, number, request: gr.Request):
            try:
                self.review.approve(int(number), _teacher(request))
            except (ReviewError, TypeError, ValueError) as exc:
                return message_html(str(exc) if isinstance(exc, ReviewError) else t(lang_now, "select_ask"), "error")
            return message_html(t(lang_now, "approved", id=int(number)))

        approve.click(do_approve, [lang, ask_id], result, api_visibility="private")

        def do_reject(lang_now, number, request: gr.Request):
            try:
                self.review.reject(int(number), _teacher(request))
            except (ReviewError, TypeError, ValueError) as exc:
                return message_html(str(exc) if isinstance(exc, ReviewError) else t(lang_now, "select_ask"), "error")
            return message_html(t(lang_now, "rejected", id=int(number)))

        reject.click(do_reject, [lang, ask_id], result, api_visibility="private")

        def do_correct(lang_now, number, answer_text, points_text, subject_text, grade_text, question_text,
                       target_value, request: gr.Request):
            if number in (None, ""):
                return message_html(t(lang_now, "select_ask"), "warn")
            correction = Correction(answer=answer_text or "", knowledge_points=parse_points(points_text or ""),
                                    subject=subject_text or "", grade=grade_text or "",
                                    question=question_text or "", target=target_value or "new",
                                    source=t(lang_now, "teacher_source"))
            try:
                done = self.review.correct(int(number), correction, _teacher(request))
            except ReviewError as exc:
                return message_html(str(exc), "error")
            key = "added" if done.entry_id else "corrected"
            return message_html(t(lang_now, key, id=done.ask_id, entry=done.entry_id or ""))

        save.click(do_correct, [lang, ask_id, answer, points, subject_in, grade, bank_question, target],
                   result, api_visibility="private")
        self.on_load = (load_rows, [lang, *filters], [grid, note])
        self.on_subjects = (subjects, [lang], [subject, subject_in])


def _teacher(request: gr.Request | None) -> str:
    return getattr(request, "username", None) or "?"
