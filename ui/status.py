"""The status page (teacher login): engines, latency, queue, disk, and a rebuild button."""

from __future__ import annotations

import logging
from dataclasses import asdict

import gradio as gr
import pandas as pd

from appliance.ui_config import UiConfig
from ui.i18n import ENGINE_HEADINGS, latency_name, t
from ui.render import CSS, message_html, plain
from ui.status_data import EnginesProvider, Rebuilder, StatusSnapshot, snapshot
from ui.translate import Translations, language_radio, requested_language

log = logging.getLogger(__name__)


def engines_frame(snap: StatusSnapshot, lang: str) -> pd.DataFrame:
    headings = ENGINE_HEADINGS.get(lang, ENGINE_HEADINGS["zh"])
    frame = pd.DataFrame([asdict(e) for e in snap.engines])
    return frame.rename(columns=lambda name: headings.get(name, name))


def latency_frame(snap: StatusSnapshot, lang: str) -> pd.DataFrame:
    def fmt(v):
        return "" if v is None else f"{v:.1f}"

    return pd.DataFrame([[latency_name(lang, r.name), r.count, fmt(r.p50), fmt(r.p95), fmt(r.p99)]
                         for r in snap.latency],
                        columns=[t(lang, "stage"), t(lang, "n"), "p50", "p95", "p99"])


def facts_html(snap: StatusSnapshot, lang: str) -> str:
    gib = 2**30
    rows = [
        (t(lang, "queue"), str(snap.queue_depth)),
        (t(lang, "disk"), t(lang, "disk_value", free=snap.disk_free_bytes / gib, total=snap.disk_total_bytes / gib,
                            db=snap.db_bytes / 2**20)),
        (t(lang, "bank_size"), t(lang, "bank_value", entries=snap.bank_entries, asks=snap.asks_logged)),
    ]
    cells = "".join(f"<tr><th>{plain(k)}</th><td>{plain(v)}</td></tr>" for k, v in rows)
    return f'<table class="eq-facts" id="eq-facts">{cells}</table>'


def header_html(user: str, lang: str, links: list[tuple[str, str]]) -> str:
    anchors = " · ".join(f'<a href="{plain(href)}">{plain(t(lang, key))}</a>' for key, href in links)
    return (f'<div class="eq-userbar">{plain(t(lang, "logged_in_as", user=user))} · '
            f'{anchors} · <a href="/teacher/logout" id="eq-logout">{plain(t(lang, "logout"))}</a></div>')


def build_status(service, ui: UiConfig, engines: EnginesProvider | None, rebuild: Rebuilder) -> gr.Blocks:
    lang0 = ui.default_language
    tr = Translations(lang0)
    with gr.Blocks(title=t(lang0, "status_title")) as page:
        with gr.Row(equal_height=True):
            tr.add(gr.Markdown(f"# {t(lang0, 'status_title')}"), value=lambda lg: f"# {t(lg, 'status_title')}")
            lang = language_radio(lang0)
        userbar = gr.HTML(elem_id="eq-userbar")
        tr.add(gr.Markdown(f"### {t(lang0, 'engines')}"), value=lambda lg: f"### {t(lg, 'engines')}")
        engines_grid = gr.Dataframe(interactive=False, wrap=True, elem_id="eq-engines", datatype="str")
        tr.add(gr.Markdown(f"### {t(lang0, 'latency')}"), value=lambda lg: f"### {t(lg, 'latency')}")
        latency_grid = gr.Dataframe(interactive=False, elem_id="eq-latency", datatype="str")
        facts = gr.HTML(elem_id="eq-status-facts")
        with gr.Row():
            refresh = tr.add(gr.Button(t(lang0, "refresh"), elem_id="eq-status-refresh"), value="refresh")
            rebuild_btn = tr.add(gr.Button(t(lang0, "rebuild"), variant="primary", elem_id="eq-rebuild"), value="rebuild")
        rebuild_note = gr.HTML(elem_id="eq-rebuild-note")

        def show(lang_now, request: gr.Request):
            snap = snapshot(service, engines)
            user = getattr(request, "username", None) or ""
            bar = header_html(user, lang_now, [("teacher_link", "/teacher/")])
            return engines_frame(snap, lang_now), latency_frame(snap, lang_now), facts_html(snap, lang_now), bar

        outputs = [engines_grid, latency_grid, facts, userbar]
        refresh.click(show, [lang], outputs, api_visibility="private")

        def do_rebuild(lang_now, request: gr.Request):
            log.info("rebuild requested by %s", getattr(request, "username", "?"))
            try:
                message = rebuild()
            except Exception as exc:  # shown to the admin, logged with the trace
                log.exception("rebuild failed")
                return message_html(str(exc), "error")
            return message_html(t(lang_now, "rebuilt", message=message))

        rebuild_btn.click(do_rebuild, [lang], rebuild_note, api_visibility="private")

        def relabel(lang_now, request: gr.Request):
            return [*tr.updates(lang_now), *show(lang_now, request)]

        lang.change(relabel, [lang], [*tr.components, *outputs], api_visibility="private")
        def on_load(request: gr.Request):
            return requested_language(request, lang0)

        page.load(on_load, None, lang, api_visibility="private")
        page.load(show, [lang], outputs, api_visibility="private")
        timer = gr.Timer(15)
        timer.tick(show, [lang], outputs, api_visibility="private", show_progress="hidden")
    page.queue(default_concurrency_limit=4)
    return page


STATUS_CSS = CSS + """
.eq-facts th { text-align: left; padding-right: 1rem; }
.eq-userbar { text-align: right; }
"""
