"""The teacher page (login): ask log, question bank and plots, as tabs."""

from __future__ import annotations

from datetime import tzinfo

import gradio as gr

from appliance.bank.bank_editor import BankEditor
from appliance.asklog.review import PhotoArchive, ReviewService
from appliance.db.store import Store
from appliance.ui_config import UiConfig
from ui.i18n import t
from ui.status import header_html
from ui.teacher_bank import BankTab
from ui.teacher_log import LogTab
from ui.teacher_plots import PlotsTab
from ui.translate import Translations, language_radio, requested_language


def build_teacher(store: Store, review: ReviewService, editor: BankEditor, archive: PhotoArchive,
                  ui: UiConfig, tz: tzinfo) -> gr.Blocks:
    lang0 = ui.default_language
    tr = Translations(lang0)
    log_tab, bank_tab, plots_tab = LogTab(review, editor, archive, tz), BankTab(editor), PlotsTab(store, tz)
    with gr.Blocks(title=t(lang0, "teacher_title")) as page:
        with gr.Row(equal_height=True):
            tr.add(gr.Markdown(f"# {t(lang0, 'teacher_title')}"), value=lambda lg: f"# {t(lg, 'teacher_title')}")
            lang = language_radio(lang0)
        userbar = gr.HTML(elem_id="eq-userbar")
        with gr.Tabs():
            with tr.add(gr.Tab(t(lang0, "tab_log"), elem_id="eq-tab-log"), label="tab_log"):
                log_tab.build(tr, lang)
            with tr.add(gr.Tab(t(lang0, "tab_bank"), elem_id="eq-tab-bank"), label="tab_bank"):
                bank_tab.build(tr, lang)
            with tr.add(gr.Tab(t(lang0, "tab_plots"), elem_id="eq-tab-plots"), label="tab_plots"):
                plots_tab.build(tr, lang)

        def bar(lang_now, request: gr.Request):
            user = getattr(request, "username", None) or ""
            return header_html(user, lang_now, [("status_link", "/status/")])

        loaders = [(bar, [lang], [userbar]), log_tab.on_load, log_tab.on_subjects, bank_tab.on_load,
                   bank_tab.on_subjects, plots_tab.on_load]

        def on_load(request: gr.Request):
            return requested_language(request, lang0)

        page.load(on_load, None, lang, api_visibility="private")
        for fn, inputs, outputs in loaders:
            page.load(fn, inputs, outputs, api_visibility="private")

        def relabel(lang_now, request: gr.Request):
            return [*tr.updates(lang_now), bar(lang_now, request)]

        lang.change(relabel, [lang], [*tr.components, userbar], api_visibility="private")
        for fn, inputs, outputs in loaders[1:]:
            lang.change(fn, inputs, outputs, api_visibility="private")
    page.queue(default_concurrency_limit=4)
    return page
