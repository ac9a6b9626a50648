"""The student page (no login): ask by text or photo, read the answer card, give 👍/👎.

A photo ask shows the problem read from it in an editable box next to the answer: the student fixes
it and asks again, and that ask is logged as a correction of the photo ask. When the
photo holds several whole problems with equal claim, the card lists them to pick from."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from appliance.common.batcher import DeadlineExceeded, Overloaded
from appliance.serve.ratelimit import RateLimiter
from appliance.asklog.review import PhotoArchive
from appliance.ask.service import AskService, NotAPhotoAsk, PhotoUnavailable
from appliance.db.store import StoreError
from appliance.common.textnorm import BadQuestionError, EmptyQuestionError
from appliance.ui_config import UiConfig
from ui.i18n import t
from ui.render import LATEX_DELIMITERS, message_html, meta_html, safe_markdown
from ui.translate import Translations, language_radio, requested_language

log = logging.getLogger(__name__)

SIMILAR_SHOWN = 3

try:  # the OCR step's failures (appliance.ocr); absent on boxes without it
    from appliance.ocr.errors import NoTextFound, OcrError
except ImportError:  # pragma: no cover - depends on the installed OCR step
    class OcrError(ValueError):  # type: ignore[no-redef]
        pass

    class NoTextFound(OcrError):  # type: ignore[no-redef]
        pass


@dataclass(frozen=True)
class Outcome:
    """What one ask produced, kept in the page's state so a language switch re-renders it:
    a card (as a dict), or a message key (and values) for a refusal or failure."""

    card: dict | None = None
    message_key: str = ""
    message_values: tuple[tuple[str, str], ...] = ()
    message_text: str = ""  # a message from the appliance itself (OCR refusals)
    from_photo: bool = False


class StudentDesk:
    """The ask flow behind the page, kept apart from the layout so it can be tested."""

    def __init__(self, service: AskService, archive: PhotoArchive, limiter: RateLimiter):
        self.service = service
        self.archive = archive
        self.limiter = limiter

    def ask(self, text: str, photo_path: str | None, client: str, crop: tuple | None = None) -> Outcome:
        """``crop``: two opposite corners the student tapped on the photo; only that part is read."""
        return self._guarded(client, lambda: (
            Outcome(card=self._ask_photo(Path(photo_path).read_bytes(), client, crop), from_photo=True)
            if photo_path else Outcome(card=self.service.ask(text or "", client=client).to_dict())))

    def correct(self, text: str, previous: Outcome | None, client: str) -> Outcome:
        """Ask the text the student edited (or picked) after a photo ask, as its correction."""
        card = previous.card if previous and previous.from_photo else None
        if not card or not card.get("ask_id"):
            return Outcome(message_key="not_a_photo_ask")
        photo_ask = card.get("corrects") or card["ask_id"]
        return self._guarded(client, lambda: Outcome(
            card=self.service.ask_correction(text or "", photo_ask, client=client).to_dict(), from_photo=True))

    def _guarded(self, client: str, run) -> Outcome:
        allowed, wait = self.limiter.allow(client)
        if not allowed:
            return Outcome(message_key="too_many", message_values=(("seconds", str(max(1, math.ceil(wait)))),))
        try:
            return run()
        except NotAPhotoAsk:
            return Outcome(message_key="not_a_photo_ask")
        except EmptyQuestionError:
            return Outcome(message_key="empty")
        except BadQuestionError:  # not valid text, too long, unreadable by the encoder
            return Outcome(message_key="bad_text")
        except PhotoUnavailable:
            return Outcome(message_key="photo_unavailable")
        except OcrError as exc:
            return Outcome(message_text=str(exc))
        except (Overloaded, DeadlineExceeded):
            return Outcome(message_key="busy")
        except StoreError:
            log.exception("ask could not be stored")
            return Outcome(message_key="not_saved")
        except Exception:  # never a stack trace on a student's screen
            log.exception("student ask failed")
            return Outcome(message_key="failed")

    def _ask_photo(self, data: bytes, client: str, crop: tuple | None = None) -> dict:
        try:
            card = self.service.ask_photo(data, client=client, crop=crop) if crop else \
                self.service.ask_photo(data, client=client)
        except NoTextFound:
            self.archive.save(data)  # the ask is logged: let the teacher see the photo
            raise
        self.archive.save(data)
        return card.to_dict()

    def feedback(self, card: dict | None, value: str) -> bool:
        if not card:
            return False
        try:
            self.service.asks.set_feedback(int(card["ask_id"]), value)
            return True
        except (KeyError, ValueError, StoreError):
            log.exception("feedback not stored")
            return False

    def similar_entry(self, card: dict | None, index: int) -> dict | None:
        similar = (card or {}).get("similar") or []
        if index >= len(similar):
            return None
        entry_id = similar[index]["entry_id"]
        return self.service.bank.get_many([entry_id]).get(entry_id)


class _Card:
    """A plain-attribute view of a card dict, for the renderers."""

    def __init__(self, data: dict):
        self.__dict__.update(data)


def tap(points: tuple, index) -> tuple:
    """The crop's corners after one more tap on the photo: a third tap starts again."""
    point = (float(index[0]), float(index[1]))
    return (*points, point) if len(points) < 2 else (point,)


def crop_box(points: tuple) -> tuple | None:
    return (*points[0], *points[1]) if len(points) == 2 else None


WARNINGS = ("empty", "bad_text", "too_many", "busy", "photo_unavailable", "not_a_photo_ask")


def render(outcome: Outcome | None, lang: str) -> list:
    """Updates for: message, read-from-photo box, answer, meta, 3 similar buttons, similar
    label, viewer, feedback row, feedback note, re-ask button, choices."""
    hidden = gr.update(visible=False)
    blank = [hidden, gr.update(value="", visible=False), gr.update(value="", visible=False), hidden]
    blank += [hidden] * SIMILAR_SHOWN
    blank += [hidden, gr.update(value="", visible=False), hidden, gr.update(value=""), hidden,
              gr.update(choices=[], value=None, visible=False)]
    if outcome is None:
        return blank
    card = outcome.card
    if card is None:
        text = outcome.message_text or t(lang, outcome.message_key, **dict(outcome.message_values))
        blank[0] = gr.update(value=message_html(text, "warn" if outcome.message_key in WARNINGS else "error"),
                             visible=True)
        return blank
    if card.get("choices"):
        blank[0] = gr.update(value=message_html(card.get("message") or t(lang, "choose"), "warn"), visible=True)
        blank[-1] = gr.update(choices=list(card["choices"]), value=None, label=t(lang, "choose"), visible=True)
        return blank
    view = _Card(card)
    out: list = []
    out.append(gr.update(value=message_html(t(lang, "abstain")), visible=True) if view.abstained else hidden)
    read = card.get("question") if outcome.from_photo else None
    out.append(gr.update(value=read, label=t(lang, "read_from_photo"), visible=True)
               if outcome.from_photo else gr.update(value="", visible=False))
    if view.abstained:
        out += [gr.update(value="", visible=False), hidden]
    else:
        out.append(gr.update(value=safe_markdown(view.answer), visible=True))
        out.append(gr.update(value=meta_html(view, lang), visible=True))
    similar = card.get("similar") or []
    for i in range(SIMILAR_SHOWN):
        out.append(gr.update(value=similar[i]["question"], visible=True) if i < len(similar) else hidden)
    out.append(gr.update(value=f"**{t(lang, 'similar')}**", visible=bool(similar)))
    out.append(gr.update(value="", visible=False))
    out.append(gr.update(visible=True))
    out.append(gr.update(value=""))
    out.append(gr.update(value=t(lang, "reask"), visible=outcome.from_photo))
    out.append(gr.update(choices=[], value=None, visible=False))
    return out


def build_student(desk: StudentDesk, ui: UiConfig) -> gr.Blocks:
    lang0 = ui.default_language
    tr = Translations(lang0)
    with gr.Blocks(title=t(lang0, "title"), fill_width=False, delete_cache=(3600, 3600)) as page:
        outcome = gr.State(None)
        corners = gr.State(())
        with gr.Row(elem_classes="eq-header", equal_height=True):
            tr.add(gr.Markdown(f"# {t(lang0, 'title')}", min_width=160),
                   value=lambda lang: f"# {t(lang, 'title')}")
            lang = language_radio(lang0)
        tr.add(gr.Markdown(t(lang0, "subtitle")), value="subtitle")
        with gr.Column():
            question = tr.add(gr.Textbox(label=t(lang0, "question"), placeholder=t(lang0, "question_ph"),
                                         lines=3, max_lines=10, max_length=20_000, elem_id="eq-question"),
                              label="question", placeholder="question_ph")
            photo = tr.add(gr.Image(label=t(lang0, "photo"), type="filepath", image_mode=None,
                                    sources=["upload", "clipboard"], height=220, elem_id="eq-photo",
                                    placeholder=t(lang0, "photo_ph")),
                           label="photo", placeholder="photo_ph")
            crop_note = tr.add(gr.Markdown(t(lang0, "crop_hint"), elem_id="eq-crop-note"), value="crop_hint")
            with gr.Row():
                ask = tr.add(gr.Button(t(lang0, "ask"), variant="primary", elem_id="eq-ask", scale=3), value="ask")
                clear = tr.add(gr.Button(t(lang0, "clear"), elem_id="eq-clear", scale=1), value="clear")
        with gr.Column(elem_id="eq-card"):
            message = gr.HTML(visible=False, elem_id="eq-message")
            choices = gr.Radio(choices=[], visible=False, elem_id="eq-choices")
            read = gr.Textbox(visible=False, elem_id="eq-read", lines=2, max_lines=8, max_length=20_000,
                              interactive=True)
            reask = gr.Button(t(lang0, "reask"), visible=False, size="sm", elem_id="eq-reask")
            answer = gr.Markdown(visible=False, elem_id="eq-answer", elem_classes="eq-answer",
                                 latex_delimiters=LATEX_DELIMITERS, sanitize_html=True)
            meta = gr.HTML(visible=False, elem_id="eq-meta")
            similar_label = gr.Markdown(visible=False, elem_id="eq-similar-label")
            with gr.Column(elem_classes="eq-similar"):
                similar = [gr.Button(visible=False, size="sm", elem_id=f"eq-similar-{i}") for i in range(SIMILAR_SHOWN)]
            viewer = gr.Markdown(visible=False, elem_id="eq-viewer", latex_delimiters=LATEX_DELIMITERS)
            with gr.Row(visible=False, elem_id="eq-feedback") as feedback_row:
                up = tr.add(gr.Button(t(lang0, "helpful"), size="sm", elem_id="eq-up"), value="helpful")
                down = tr.add(gr.Button(t(lang0, "not_helpful"), size="sm", elem_id="eq-down"), value="not_helpful")
            feedback_note = gr.Markdown(elem_id="eq-feedback-note")
        card_outputs = [message, read, answer, meta, *similar, similar_label, viewer, feedback_row, feedback_note,
                        reask, choices]

        def do_ask(text, photo_path, points, lang_now, request: gr.Request):
            result = desk.ask(text, photo_path, _client(request), crop_box(points) if photo_path else None)
            return [result, *render(result, lang_now)]

        ask.click(do_ask, [question, photo, corners, lang], [outcome, *card_outputs],
                  concurrency_limit=ui.student_concurrency, api_visibility="private")

        def on_tap(points, lang_now, evt: gr.SelectData):
            points = tap(points, evt.index)
            return points, t(lang_now, "crop_set" if len(points) == 2 else "crop_one")

        photo.select(on_tap, [corners, lang], [corners, crop_note], api_visibility="private")
        photo.change(lambda lang_now: ((), t(lang_now, "crop_hint")), lang, [corners, crop_note],
                     api_visibility="private")

        def do_correct(text, current: Outcome | None, lang_now, request: gr.Request):
            result = desk.correct(text, current, _client(request))
            if result.card is None:  # keep the photo's card; show why nothing was asked
                return [current, *_with_message(render(current, lang_now), render(result, lang_now))]
            return [result, *render(result, lang_now)]

        reask.click(do_correct, [read, outcome, lang], [outcome, *card_outputs],
                    concurrency_limit=ui.student_concurrency, api_visibility="private")
        choices.input(do_correct, [choices, outcome, lang], [outcome, *card_outputs],
                      concurrency_limit=ui.student_concurrency, api_visibility="private")

        def do_clear():
            return [None, "", None, *render(None, lang0)]

        clear.click(do_clear, None, [outcome, question, photo, *card_outputs], api_visibility="private")

        def show_similar(index: int):
            def handler(current: Outcome | None, lang_now: str):
                entry = desk.similar_entry(current.card if current else None, index)
                if entry is None:
                    return gr.update(value="", visible=False)
                text = (f"**{t(lang_now, 'similar_entry')}:** {safe_markdown(entry['question'])}\n\n"
                        f"{safe_markdown(entry['answer'])}")
                return gr.update(value=text, visible=True)
            return handler

        for i, button in enumerate(similar):
            button.click(show_similar(i), [outcome, lang], viewer, api_visibility="private")

        def give(value: str):
            def handler(current: Outcome | None, lang_now: str):
                ok = desk.feedback(current.card if current else None, value)
                return t(lang_now, "thanks" if ok else "feedback_failed")
            return handler

        up.click(give("up"), [outcome, lang], feedback_note, api_visibility="private")
        down.click(give("down"), [outcome, lang], feedback_note, api_visibility="private")

        def relabel(lang_now: str, current: Outcome | None):
            return [*tr.updates(lang_now), *render(current, lang_now)]

        lang.change(relabel, [lang, outcome], [*tr.components, *card_outputs], api_visibility="private")

        def on_load(request: gr.Request):
            return requested_language(request, lang0)

        page.load(on_load, None, lang, api_visibility="private")
    # Bounded: past this many waiting, Gradio tells the student the queue is full at once.
    page.queue(default_concurrency_limit=ui.student_concurrency, max_size=ui.student_concurrency * 8)
    return page


def _with_message(card_updates: list, message_updates: list) -> list:
    """The card as it was, with the message of a refused re-ask above it."""
    return [message_updates[0], *card_updates[1:]]


def _client(request: gr.Request | None) -> str:
    client = getattr(request, "client", None)
    return getattr(client, "host", "") or ""
