"""Keep the box from fetching anything on the web on a browser's behalf.

Gradio serves ``/gradio_api/file=<http URL>`` by downloading the URL itself, and
``/gradio_api/proxy=<URL>`` proxies Hugging Face Spaces. Neither is used by these pages;
left open, any student could make the appliance fetch arbitrary web addresses. This ASGI
middleware answers both with 403 on every mounted page."""

from __future__ import annotations

import logging

from fastapi.responses import PlainTextResponse

log = logging.getLogger(__name__)

_REMOTE_PREFIXES = ("http:", "https:", "//", "ftp:", "ws:", "wss:")


def fetches_remotely(path: str) -> bool:
    """True for Gradio routes that would make the server fetch a URL (path already
    %-decoded by the server)."""
    lowered = path.lower()
    if "/gradio_api/proxy=" in lowered:
        return True
    marker = "/gradio_api/file="
    at = lowered.find(marker)
    return at >= 0 and lowered[at + len(marker):].lstrip().startswith(_REMOTE_PREFIXES)


class NoRemoteFetch:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and fetches_remotely(scope.get("path", "")):
            log.warning("refused a request to fetch a remote URL: %s", scope.get("path", "")[:200])
            response = PlainTextResponse("this appliance does not fetch web addresses", status_code=403)
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)
