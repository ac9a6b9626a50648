"""Every page in one language: ``<html lang>`` and Gradio's own words follow the page.

Gradio's page template says ``lang="en"``, and its client picks the language of its own
words (the upload box's "Drop Image Here", table tools, loading notes) from the browser's
language, not from the page's. So a Chinese page on an English browser showed English
there. For the HTML of the mounted pages (``?lang=`` in the address, else
``ui.default_language``) this ASGI middleware sets ``lang`` on ``<html>`` and puts a small
inline script before Gradio's own that reports the page's language as the browser's; a
switch of the page's language radio (``#eq-lang``) sets ``lang`` and ``?lang=`` in the
address, so a reload comes back in that language. Nothing is loaded from anywhere.
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs

from ui.i18n import pick_language

HTML_LANG = {"zh": "zh-CN", "en": "en"}

_HTML_TAG = re.compile(r"<html\b[^>]*>", re.IGNORECASE)
_LANG_ATTR = re.compile(r"\slang\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+)", re.IGNORECASE)
_HEAD_TAG = re.compile(r"<head\b[^>]*>", re.IGNORECASE)

_SCRIPT = """<script>(() => {
  const lang = %s;
  for (const [key, value] of [["language", lang], ["languages", [lang]]]) {
    try { Object.defineProperty(navigator, key, {get: () => value, configurable: true}); } catch (e) {}
  }
  document.addEventListener("change", (event) => {
    const input = event.target;
    if (!input || input.type !== "radio" || !input.closest || !input.closest("#eq-lang")) return;
    const label = input.closest("label");
    const chosen = (label ? label.textContent : input.value || "").trim() === "English" ? "en" : "zh";
    document.documentElement.lang = chosen === "en" ? "en" : "zh-CN";
    const address = new URL(window.location.href);
    address.searchParams.set("lang", chosen);
    window.history.replaceState(window.history.state, "", address);
  }, true);
})();</script>"""


def localise(page: str, lang: str) -> str:
    """The page HTML with ``<html lang>`` set and the language script first in ``<head>``."""
    code = HTML_LANG[lang]
    tag = _HTML_TAG.search(page)
    if tag is None:
        return page
    old = tag.group(0)
    new = _LANG_ATTR.sub(f' lang="{code}"', old, count=1) if _LANG_ATTR.search(old) else \
        old[:-1] + f' lang="{code}">'
    page = page[:tag.start()] + new + page[tag.end():]
    head = _HEAD_TAG.search(page)
    if head is None:
        return page
    return page[:head.end()] + _SCRIPT % json.dumps(code) + page[head.end():]


class PageLanguage:
    """ASGI middleware: GET of one of ``pages`` (exact paths, e.g. ``/``, ``/teacher/``)
    answered with HTML gets :func:`localise`d. The request goes on without
    ``Accept-Encoding`` so the body arrives uncompressed."""

    def __init__(self, app, pages: tuple[str, ...], default_language: str):
        self.app = app
        self.pages = set(pages)
        self.default = default_language

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] not in self.pages:
            return await self.app(scope, receive, send)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        lang = pick_language((query.get("lang") or [""])[0], self.default)
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"accept-encoding"]
        start: dict = {}
        chunks: list[bytes] = []

        async def send_localised(message):
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body":
                return await send(message)
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            await _send_page(send, start, b"".join(chunks), lang)

        await self.app(dict(scope, headers=headers), receive, send_localised)


async def _send_page(send, start: dict, body: bytes, lang: str) -> None:
    headers = list(start.get("headers", []))
    kind = next((v for k, v in headers if k.lower() == b"content-type"), b"")
    encoded = any(k.lower() == b"content-encoding" for k, _ in headers)
    if kind.startswith(b"text/html") and not encoded:
        body = localise(body.decode("utf-8"), lang).encode("utf-8")
        headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
    await send({**start, "headers": headers})
    await send({"type": "http.response.body", "body": body})
