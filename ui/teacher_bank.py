"""Teacher tab: the question-bank editor — search, edit, delete, import with the per-row
report, export."""

from __future__ import annotations

import logging

import gradio as gr
import pandas as pd

from appliance.bank.bank_editor import BankEditor, BankEntryError
from appliance.bank.bank_file import BankFileError
from appliance.bank.kb import BankImportRejected
from appliance.db.store import StoreError
from ui.i18n import subject_choices, subject_name, t
from ui.render import LATEX_DELIMITERS, message_html, safe_markdown
from ui.teacher_log import export_folder, fresh_export
from ui.translate import Translations

log = logging.getLogger(__name__)

FORM_FIELDS = ("id", "subject", "grade", "question", "answer", "knowledge_points", "source")


def entries_table(entries: list[dict], lang: str) -> pd.DataFrame:
    rows = [[e["id"], subject_name(lang, e["subject"]), e["grade"], e["question"][:120], e["answer"][:120],
             "; ".join(e["knowledge_points"]), e["origin"]] for e in entries]
    headers = ["entry_id", "subject", "grade", "question_col", "answer_col", "knowledge_points", "origin"]
    return pd.DataFrame(rows, columns=[t(lang, h) for h in headers])


def problems_table(problems, lang: str) -> pd.DataFrame:
    return pd.DataFrame([[p.line, p.entry_id, p.message] for p in problems],
                        columns=[t(lang, "line"), t(lang, "entry_id"), t(lang, "problem")])


def import_report(editor: BankEditor, path: str | None, skip_bad: bool, lang: str) -> tuple[str, pd.DataFrame | None]:
    """(message HTML, table of bad rows or None) for one uploaded bank file."""
    if not path:
        return message_html(t(lang, "import_file"), "warn"), None
    try:
        summary = editor.import_file(path, skip_bad=skip_bad)
    except BankImportRejected as exc:
        return message_html(t(lang, "import_rejected", n=len(exc.problems)), "error"), problems_table(exc.problems, lang)
    except (BankFileError, StoreError) as exc:
        return message_html(str(exc), "error"), None
    text = t(lang, "imported", inserted=summary.inserted, updated=summary.updated, skipped=len(summary.skipped))
    return message_html(text), problems_table(summary.skipped, lang) if summary.skipped else None


class BankTab:
    def __init__(self, editor: BankEditor):
        self.editor = editor
        self._export_dir = export_folder(self)

    def build(self, tr: Translations, lang) -> None:
        T = tr.text
        with gr.Row():
            query = tr.add(gr.Textbox(label=T("bank_search"), elem_id="eq-bank-query", scale=3), label="bank_search")
            subject = tr.add(gr.Dropdown([(T("any"), "")], value="", label=T("subject"), elem_id="eq-bank-subject",
                                         scale=1), label="subject")
            search = tr.add(gr.Button(T("search"), variant="primary", elem_id="eq-bank-search", scale=1), value="search")
        grid = gr.Dataframe(interactive=False, wrap=True, max_height=360, elem_id="eq-bank-table", datatype="str")
        with gr.Row():
            entry_id = tr.add(gr.Textbox(label=T("entry_id"), elem_id="eq-entry-id"), label="entry_id")
            entry_subject = tr.add(gr.Dropdown([], value=None, allow_custom_value=True, label=T("subject"),
                                               elem_id="eq-entry-subject"), label="subject")
            grade = tr.add(gr.Textbox(label=T("grade"), elem_id="eq-entry-grade"), label="grade")
        question = tr.add(gr.Textbox(label=T("question_col"), lines=2, max_lines=10, elem_id="eq-entry-question"),
                          label="question_col")
        with gr.Row():
            answer = tr.add(gr.Textbox(label=T("answer_col"), lines=5, max_lines=20, elem_id="eq-entry-answer"),
                            label="answer_col")
            preview = gr.Markdown(elem_id="eq-entry-preview", latex_delimiters=LATEX_DELIMITERS)
        with gr.Row():
            points = tr.add(gr.Textbox(label=T("points_input"), elem_id="eq-entry-points"), label="points_input")
            source = tr.add(gr.Textbox(label=T("source"), elem_id="eq-entry-source"), label="source")
        with gr.Row():
            save = tr.add(gr.Button(T("save_entry"), variant="primary", elem_id="eq-entry-save"), value="save_entry")
            new = tr.add(gr.Button(T("new_entry"), elem_id="eq-entry-new"), value="new_entry")
            confirm = tr.add(gr.Checkbox(label=T("confirm_delete"), elem_id="eq-entry-confirm"), label="confirm_delete")
            delete = tr.add(gr.Button(T("delete_entry"), variant="stop", elem_id="eq-entry-delete"), value="delete_entry")
        result = gr.HTML(elem_id="eq-entry-result")
        with gr.Accordion(T("import"), open=False) as importer:
            upload = tr.add(gr.File(label=T("import_file"), file_types=[".csv", ".jsonl"], type="filepath",
                                    elem_id="eq-import-file"), label="import_file")
            skip_bad = tr.add(gr.Checkbox(label=T("skip_bad"), elem_id="eq-import-skip"), label="skip_bad")
            run_import = tr.add(gr.Button(T("import"), elem_id="eq-import-run"), value="import")
            import_result = gr.HTML(elem_id="eq-import-result")
            problems = gr.Dataframe(visible=False, interactive=False, wrap=True, elem_id="eq-import-problems")
        tr.add(importer, label="import")
        export = tr.add(gr.Button(T("export_bank"), elem_id="eq-bank-export"), value="export_bank")
        export_file = gr.File(visible=False, interactive=False, elem_id="eq-bank-file")

        def do_search(lang_now, text, subject_value):
            return entries_table(self.editor.search(text or "", subject_value or ""), lang_now)

        search.click(do_search, [lang, query, subject], grid, api_visibility="private")
        query.submit(do_search, [lang, query, subject], grid, api_visibility="private")

        form = [entry_id, entry_subject, grade, question, answer, points, source]

        def pick(lang_now, evt: gr.SelectData):
            entry_key = (evt.row_value or [None])[0] if getattr(evt, "row_value", None) else None
            try:
                e = self.editor.get(entry_key)
            except BankEntryError as exc:
                return [gr.update()] * len(form) + [message_html(str(exc), "error")]
            subjects = subject_choices(lang_now, self.editor.subjects())
            return [e["id"], gr.update(value=e["subject"], choices=subjects), e["grade"], e["question"],
                    e["answer"], "; ".join(e["knowledge_points"]), e["source"], ""]

        grid.select(pick, [lang], [*form, result], api_visibility="private")
        answer.change(lambda text: safe_markdown(text), answer, preview, show_progress="hidden",
                      api_visibility="private")

        def do_save(lang_now, key, subject_value, grade_value, question_value, answer_value, points_value,
                    source_value, request: gr.Request):
            values = (key, subject_value, grade_value, question_value, answer_value, points_value, source_value)
            raw = dict(zip(FORM_FIELDS, values))
            try:
                entry = self.editor.save(raw, _teacher(request))
            except (BankEntryError, StoreError) as exc:
                return message_html(str(exc), "error")
            return message_html(t(lang_now, "saved_entry", id=entry.id))

        save.click(do_save, [lang, *form], result, api_visibility="private")
        new.click(lambda: ["", None, "", "", "", "", "", ""], None, [*form, result], api_visibility="private")

        def do_delete(lang_now, key, confirmed, request: gr.Request):
            if not confirmed:
                return message_html(t(lang_now, "tick_confirm"), "warn"), gr.update()
            try:
                self.editor.delete((key or "").strip(), _teacher(request))
            except (BankEntryError, StoreError) as exc:
                return message_html(str(exc), "error"), gr.update()
            return message_html(t(lang_now, "deleted_entry", id=key)), False

        delete.click(do_delete, [lang, entry_id, confirm], [result, confirm], api_visibility="private")

        def do_import(lang_now, path, skip):
            message, bad = import_report(self.editor, path, bool(skip), lang_now)
            return message, gr.update(value=bad, visible=bad is not None)

        run_import.click(do_import, [lang, upload, skip_bad], [import_result, problems], api_visibility="private")

        def do_export():
            path = fresh_export(self._export_dir, "bank")
            self.editor.export(path)
            return gr.update(value=str(path), visible=True)

        export.click(do_export, None, export_file, api_visibility="private")

        def subjects(lang_now):
            names = self.editor.subjects()
            return (gr.update(choices=[(t(lang_now, "any"), "")] + subject_choices(lang_now, names)),
                    gr.update(choices=subject_choices(lang_now, names)))

        self.on_load = (do_search, [lang, query, subject], grid)
        self.on_subjects = (subjects, [lang], [subject, entry_subject])


def _teacher(request: gr.Request | None) -> str:
    return getattr(request, "username", None) or "?"
