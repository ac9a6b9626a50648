"""Switch a page's language in place: every labelled component is registered with the
text keys of its label, value, placeholder or choices, and one event re-labels them all."""

from __future__ import annotations

from typing import Any

import gradio as gr

from ui.i18n import LANG_CHOICES, pick_language, t


class Translations:
    def __init__(self, lang: str):
        self.lang = lang
        self._items: list[tuple[Any, dict[str, Any]]] = []

    def add(self, component, **keys):
        """Register ``component``; ``keys`` maps an attribute (label, value, placeholder,
        info) to a text key or a function of the language, or ``choices`` to a list of
        (text key, value)."""
        self._items.append((component, keys))
        return component

    def text(self, key: str, **values) -> str:
        return t(self.lang, key, **values)

    def choices(self, pairs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        return [(t(self.lang, key), value) for key, value in pairs]

    @property
    def components(self) -> list:
        return [c for c, _ in self._items]

    def updates(self, lang: str) -> list:
        out = []
        for _, keys in self._items:
            values = {}
            for attr, key in keys.items():
                if attr == "choices":
                    values[attr] = [(t(lang, k), v) for k, v in key]
                elif callable(key):
                    values[attr] = key(lang)
                else:
                    values[attr] = t(lang, key)
            out.append(gr.update(**values))
        return out


def language_radio(lang: str) -> gr.Radio:
    return gr.Radio(LANG_CHOICES, value=lang, show_label=False, container=False, elem_id="eq-lang",
                    scale=0, min_width=230)


def requested_language(request: gr.Request | None, default: str) -> str:
    """``?lang=en`` in the page address, else ``default``."""
    if request is None:
        return default
    params = getattr(request, "query_params", None) or {}
    return pick_language(params.get("lang"), default)
