"""Files from browsers: what the pages' upload route wrote for whom, and a quota.

Gradio's event routes (``queue/join``, ``run/…``, ``call/…``) take file arguments as
``{"path": ...}`` objects, and for pages mounted into another app (as here) Gradio does
not check where such a path points: any caller could name a file on the box and get it
read (OCR'd, parsed) back. :class:`UploadGuard` closes that: the upload route's answers
are recorded per client address, and an event naming any path that this server's upload
route did not write for this same address is refused with 403. On the teacher pages
(behind the login) a path may also be a file Gradio itself wrote into its cache (a photo
the page showed). Uploads are metered per address: each costs one ask from the shared
rate limiter, and the bytes one address uploads within an hour are capped.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections import OrderedDict, deque
from pathlib import Path
from typing import Callable, Iterator

from fastapi.responses import JSONResponse

log = logging.getLogger(__name__)

WINDOW_S = 3600.0
MAX_CLIENTS = 10_000
MAX_FILES_PER_CLIENT = 512
# Event bodies are small JSON (a question of 20 000 characters, a bank entry); a longer
# one is refused before it is parsed.
MAX_EVENT_BODY = 2 * 2**20
_EVENT_ROUTES = ("/gradio_api/queue/join", "/gradio_api/run/", "/gradio_api/call/", "/gradio_api/api/")


class UploadLedger:
    """Per client address: the files the upload route wrote for it, and the bytes it
    uploaded in the last ``window_s`` (at most ``quota_bytes``)."""

    def __init__(self, quota_bytes: int, window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic):
        self.quota_bytes = quota_bytes
        self.window_s = window_s
        self.clock = clock
        self._files: OrderedDict[str, OrderedDict[str, float]] = OrderedDict()
        self._bytes: OrderedDict[str, deque[tuple[float, int]]] = OrderedDict()
        self._lock = threading.Lock()

    def remaining(self, client: str) -> int:
        with self._lock:
            return self.quota_bytes - self._used(client, self.clock())

    def charge(self, client: str, nbytes: int) -> None:
        now = self.clock()
        with self._lock:
            self._used(client, now)
            self._bytes.setdefault(client, deque()).append((now, nbytes))
            self._bytes.move_to_end(client)
            _trim(self._bytes)

    def remember(self, client: str, paths: list[str]) -> None:
        now = self.clock()
        with self._lock:
            files = self._files.setdefault(client, OrderedDict())
            for path in paths:
                files[path] = now
            while len(files) > MAX_FILES_PER_CLIENT:
                files.popitem(last=False)
            self._files.move_to_end(client)
            _trim(self._files)

    def owns(self, client: str, path: str) -> bool:
        with self._lock:
            written = self._files.get(client, {}).get(path)
        return written is not None and self.clock() - written <= self.window_s

    def _used(self, client: str, now: float) -> int:
        spent = self._bytes.get(client)
        while spent and now - spent[0][0] > self.window_s:
            spent.popleft()
        return sum(n for _, n in spent) if spent else 0


def _trim(table: OrderedDict) -> None:
    while len(table) > MAX_CLIENTS:
        table.popitem(last=False)


class UploadRefused(Exception):
    def __init__(self, status: int, detail: str, retry_after_s: int = 0):
        super().__init__(detail)
        self.status, self.detail, self.retry_after_s = status, detail, retry_after_s


class UploadGuard:
    """ASGI middleware over the mounted pages (see the module's docstring)."""

    def __init__(self, app, ledger: UploadLedger, limiter, cache_dir: Path,
                 trusted_prefixes: tuple[str, ...] = ("/teacher", "/status")):
        self.app = app
        self.ledger = ledger
        self.limiter = limiter
        self.cache_dir = Path(cache_dir).resolve()
        self.trusted_prefixes = trusted_prefixes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        client = (scope.get("client") or ("", 0))[0] or ""
        try:
            if path.endswith("/gradio_api/upload"):
                return await self._upload(scope, receive, send, client)
            if any(route in path for route in _EVENT_ROUTES):
                body = await _read_body(receive, MAX_EVENT_BODY)
                self._check_event(body, client, trusted=path.startswith(self.trusted_prefixes))
                return await self.app(scope, _replay(body, receive), send)
        except UploadRefused as refused:
            log.info("refused %s from %s: %s", path[:100], client, refused.detail)
            headers = {"Retry-After": str(refused.retry_after_s)} if refused.retry_after_s else None
            response = JSONResponse({"detail": refused.detail}, status_code=refused.status, headers=headers)
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)

    async def _upload(self, scope, receive, send, client: str) -> None:
        allowed, wait = self.limiter.allow(client)
        if not allowed:
            raise UploadRefused(429, "too many requests from this address; wait a moment", max(1, math.ceil(wait)))
        remaining = self.ledger.remaining(client)
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if not declared.isdigit():
            raise UploadRefused(411, "an upload must say its length (Content-Length)")
        if int(declared) > remaining:
            raise UploadRefused(429, "this address has uploaded too much for now; try again later", 600)
        seen = 0

        async def counting_receive():  # the server holds the client to its declared length
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            return message

        status, chunks = 0, []

        async def recording_send(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body" and status == 200:
                chunks.append(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, counting_receive, recording_send)
        finally:
            self.ledger.charge(client, seen)
        if status == 200:
            self.ledger.remember(client, _paths_listed(b"".join(chunks)))

    def _check_event(self, body: bytes, client: str, trusted: bool) -> None:
        try:
            payload = json.loads(body) if body else None
        except (ValueError, RecursionError):
            raise UploadRefused(400, "the request body is not valid JSON") from None
        for path in _file_paths(payload):
            if self.ledger.owns(client, path):
                continue
            if trusted and _inside(path, self.cache_dir):
                continue
            raise UploadRefused(403, "a file must be uploaded from this page first; no path on the box can be named")


def _paths_listed(body: bytes) -> list[str]:
    try:
        listed = json.loads(body)
    except ValueError:
        return []
    return [p for p in listed if isinstance(p, str)] if isinstance(listed, list) else []


def _file_paths(node, depth: int = 0) -> Iterator[str]:
    """Every ``path`` value of every object in a JSON document (Gradio's FileData and
    anything shaped like it), however deeply nested (bounded)."""
    if depth > 64:
        raise UploadRefused(400, "the request body is nested too deeply")
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "path" and value is not None:
                yield value if isinstance(value, str) else repr(value)
            else:
                yield from _file_paths(value, depth + 1)
    elif isinstance(node, list):
        for value in node:
            yield from _file_paths(value, depth + 1)


def _inside(path: str, folder: Path) -> bool:
    try:
        return Path(path).resolve().is_relative_to(folder)
    except (OSError, ValueError):
        return False


async def _read_body(receive, limit: int) -> bytes:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise UploadRefused(400, "the client went away")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise UploadRefused(413, f"the request body is larger than {limit // 2**20} MB")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive):
    sent = False

    async def replay_receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay_receive
