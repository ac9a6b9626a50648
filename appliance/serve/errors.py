"""The last line of defence: an exception that escapes the app becomes one 500 answer with
an error id, and one log line naming that id (the traceback only at DEBUG level), so a
client that triggers a bug again and again cannot flood the journal."""

from __future__ import annotations

import json
import logging
import secrets

log = logging.getLogger(__name__)


def new_error_id() -> str:
    return secrets.token_hex(6)


class ErrorIds:
    """ASGI middleware; add it last (outermost of the app's own middleware)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def tracking_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            error_id = new_error_id()
            log.error("error %s: %s %s failed: %s: %s", error_id, scope.get("method"),
                      str(scope.get("path", ""))[:200], type(exc).__name__, str(exc)[:200])
            log.debug("error %s traceback", error_id, exc_info=True)
            if not started:
                await _send_500(send, error_id)


async def _send_500(send, error_id: str) -> None:
    body = json.dumps({"detail": "internal error; tell the administrator this id", "error_id": error_id}).encode()
    await send({"type": "http.response.start", "status": 500,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
