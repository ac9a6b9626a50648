"""Teacher tab: asks over time (per hour or day) and the abstain rate, asks by subject,
and the confidence histogram (Gradio's built-in plots: drawn in the browser, offline)."""

from __future__ import annotations

from datetime import tzinfo

import gradio as gr
import pandas as pd

from appliance.asklog.review import ReviewError, day_bounds
from appliance.db.store import Store
from appliance.asklog.usage import UNMATCHED, Usage, usage
from ui.i18n import subject_name, t
from ui.render import message_html
from ui.teacher_log import parse_day
from ui.translate import Translations


def frames(figures: Usage, lang: str) -> dict[str, pd.DataFrame]:
    """The four plots' data, with fixed column names (x, y) so a language switch only
    relabels titles."""
    over = pd.DataFrame([(b.start, b.asks, round(b.abstain_rate, 4)) for b in figures.over_time],
                        columns=["time", "asks", "abstain_rate"])
    subjects = pd.DataFrame([(subject_name(lang, s) or t(lang, "unmatched"), n) for s, n in figures.by_subject],
                            columns=["subject", "asks"])
    hist = pd.DataFrame(figures.confidence, columns=["confidence", "asks"])
    return {"over": over, "subjects": subjects, "hist": hist}


class PlotsTab:
    def __init__(self, store: Store, tz: tzinfo):
        self.store = store
        self.tz = tz

    def build(self, tr: Translations, lang) -> None:
        T = tr.text
        with gr.Row():
            first = tr.add(gr.DateTime(label=T("from"), include_time=False, type="string", elem_id="eq-plot-from"), label="from")
            last = tr.add(gr.DateTime(label=T("to"), include_time=False, type="string", elem_id="eq-plot-to"), label="to")
            bucket_choices = [("per_hour", "hour"), ("per_day", "day")]
            bucket = tr.add(gr.Radio(tr.choices(bucket_choices), value="day", label=T("bucket"), elem_id="eq-plot-bucket"),
                            label="bucket", choices=bucket_choices)
            refresh = tr.add(gr.Button(T("refresh"), variant="primary", elem_id="eq-plot-refresh"), value="refresh")
        summary = gr.HTML(elem_id="eq-plot-summary")
        with gr.Row():
            asks = tr.add(gr.BarPlot(x="time", y="asks", label=T("asks_over_time"), x_title=T("time"),
                                     y_title=T("count"), y_lim=[0, None], elem_id="eq-plot-asks", height=260),
                          label="asks_over_time", x_title="time", y_title="count")
            rate = tr.add(gr.BarPlot(x="time", y="abstain_rate", label=T("abstain_rate"), x_title=T("time"),
                                     y_title=T("abstain_rate"), y_lim=[0, 1], elem_id="eq-plot-abstain", height=260),
                          label="abstain_rate", x_title="time", y_title="abstain_rate")
        with gr.Row():
            subjects = tr.add(gr.BarPlot(x="subject", y="asks", label=T("by_subject"), x_title=T("subject"),
                                         y_title=T("count"), y_lim=[0, None], elem_id="eq-plot-subjects", height=260,
                                         sort="-y"),
                              label="by_subject", x_title="subject", y_title="count")
            hist = tr.add(gr.BarPlot(x="confidence", y="asks", label=T("confidence_hist"), x_title=T("confidence"),
                                     y_title=T("count"), y_lim=[0, None], elem_id="eq-plot-confidence", height=260),
                          label="confidence_hist", x_title="confidence", y_title="count")

        def draw(lang_now, first_day, last_day, bucket_name):
            try:
                since, until = day_bounds(parse_day(first_day), parse_day(last_day), self.tz)
                figures = usage(self.store, since, until, self.tz, bucket_name or "day")
            except (ReviewError, ValueError) as exc:
                return [message_html(str(exc), "error"), gr.update(), gr.update(), gr.update(), gr.update()]
            data = frames(figures, lang_now)
            return [message_html(t(lang_now, "plots_summary", total=figures.total, abstained=figures.abstained)),
                    data["over"], data["over"], data["subjects"], data["hist"]]

        refresh.click(draw, [lang, first, last, bucket], [summary, asks, rate, subjects, hist], api_visibility="private")
        self.on_load = (draw, [lang, first, last, bucket], [summary, asks, rate, subjects, hist])


__all__ = ["PlotsTab", "frames", "UNMATCHED"]
