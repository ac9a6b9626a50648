"""The HTTP API over the ask service (the web UI mounts into this app).

Routes: ``POST /api/v1/ask`` (JSON ``{"text": ...}`` or multipart with a ``photo``),
``GET /api/v1/asks/{id}``, ``POST /api/v1/asks/{id}/feedback``, ``GET /healthz``,
``GET /readyz``, ``GET /metrics``. Limits (body size, photo size, question length,
per-client rate) and overload (503 + Retry-After) are answered before any model runs.
"""

from __future__ import annotations

import logging
import math
import shutil
from contextlib import asynccontextmanager

from fastapi import FastAPI, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.formparsers import MultiPartException
from pydantic import BaseModel

from appliance.asklog.log import UnknownAskError
from appliance.common.batcher import DeadlineExceeded, Overloaded
from appliance.ocr.errors import ImageRejected
from appliance.serve.client import STORE_HEADER
from appliance.serve.admission import AdmissionControl
from appliance.serve.errors import ErrorIds
from appliance.common.periodic import PeriodicTask
from appliance.serve.ratelimit import RateLimiter
from appliance.ask.service import AskService, PhotoUnavailable
from appliance.db.store import StoreError
from appliance.common.textnorm import MAX_INPUT_CHARS, BadQuestionError, QuestionTooLongError

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = MAX_INPUT_CHARS
# Below this much free space on the data dir's disk the appliance reports not ready.
MIN_FREE_BYTES = 8 * 2**20
RETRY_AFTER_S = 1


class FeedbackRequest(BaseModel):
    feedback: str
    token: str = ""


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """ASGI middleware: refuse bodies over ``max_bytes`` (413) whether or not the client
    sent a Content-Length, without buffering more than the limit."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            return await _too_large(self.max_bytes, scope, send)
        seen = 0

        async def limited_receive():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise BodyTooLarge()
            return message

        try:
            await self.app(scope, limited_receive, send)
        except BodyTooLarge:
            await _too_large(self.max_bytes, scope, send)


class SameOriginWrites:
    """ASGI middleware: a state-changing request (POST, PUT, PATCH, DELETE) whose browser
    says it comes from another site (``Origin`` or ``Sec-Fetch-Site``) is refused with 403,
    so a page elsewhere cannot make a teacher's browser change the bank or the log. Clients
    that are not browsers send neither header and are unaffected."""

    UNSAFE = {"POST", "PUT", "PATCH", "DELETE"}

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] in self.UNSAFE and _cross_site(scope):
            response = JSONResponse({"detail": "cross-site request refused"}, status_code=403)
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)


def _cross_site(scope) -> bool:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
    if headers.get("sec-fetch-site", "") == "cross-site":
        return True
    origin = headers.get("origin")
    if not origin or origin == "null":
        return origin == "null"
    host = headers.get("host", "")
    return origin.split("://", 1)[-1].rstrip("/") != host


async def _too_large(max_bytes: int, scope, send) -> None:
    response = JSONResponse({"detail": f"request body larger than {max_bytes // 2**20} MB"}, status_code=413)

    async def no_body():
        return {"type": "http.disconnect"}

    await response(scope, no_body, send)


ASK_OPENAPI = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {"type": "object", "required": ["text"],
                                            "properties": {"text": {"type": "string", "maxLength": MAX_TEXT_CHARS}}}},
            "multipart/form-data": {"schema": {"type": "object", "required": ["photo"],
                                               "properties": {"photo": {"type": "string", "format": "binary"}}}},
        },
    },
    "responses": {"503": {"description": "Overloaded or store not writable; retry after Retry-After seconds"},
                  "413": {"description": "Body, photo or question too large"},
                  "415": {"description": "Neither JSON nor multipart"},
                  "429": {"description": "Too many asks from this client"}},
}


# Photos past their retention are deleted at start and then this often while running.
PRUNE_EVERY_S = 6 * 3600


def create_app(service: AskService, *, limiter: RateLimiter | None = None, close_service_on_shutdown: bool = False,
               pruner: PeriodicTask | None = None) -> FastAPI:
    """The API over ``service``. ``limiter`` is the daemon's one per-address rate limiter,
    shared with the pages (``appliance.daemon`` makes it; one is made when none is given, as
    in tests; either way it is ``app.state.rate_limiter``). ``pruner`` runs while the app
    does (default: photo retention every 6 hours). Serve ``admission.shedding(app)``, not
    the app itself: overload shedding wraps it from outside."""
    serving = service.config.serving
    limiter = limiter or RateLimiter(serving.rate_per_minute, serving.rate_burst)
    admission = AdmissionControl(serving.deadline_s, serving.max_in_flight)
    pruner = pruner or PeriodicTask("photo-retention", PRUNE_EVERY_S, service.photos.prune)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        pruner.start()
        yield
        pruner.stop()
        if close_service_on_shutdown:
            log.info("shutting down: flushing the ask log")
            await run_in_threadpool(service.close)

    docs = service.config.server.api_docs
    app = FastAPI(title="eduqa", version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url="/openapi.json")
    app.state.rate_limiter = limiter
    app.state.admission = admission  # applied around the whole app by admission.shedding
    app.state.on_refused = service.metrics.rejected.labels("not_admitted").inc
    app.state.pruner = pruner
    app.add_middleware(BodyLimit, max_bytes=serving.max_body_bytes)
    app.add_middleware(SameOriginWrites)
    app.add_middleware(ErrorIds)
    if docs:
        _add_offline_docs(app)

    store_id = service.store.store_id()

    @app.get("/healthz")
    def healthz(response: Response) -> dict:
        # `eduqa ask` on this box asks through the daemon only when it serves the same database.
        response.headers[STORE_HEADER] = store_id
        return {"status": "alive"}

    @app.get("/readyz")
    def readyz() -> JSONResponse:
        free = shutil.disk_usage(service.config.data_dir).free
        checks = {"encoder": service.encoder.backend_name, "store_writable": service.store.writable(),
                  "disk_free_mb": free // 2**20}
        ready = bool(checks["store_writable"]) and free >= MIN_FREE_BYTES
        return JSONResponse({"ready": ready, **checks}, status_code=200 if ready else 503)

    @app.get("/metrics")
    def metrics() -> Response:
        return Response(service.metrics.render(), media_type="text/plain; version=0.0.4")

    @app.post("/api/v1/ask", openapi_extra=ASK_OPENAPI)
    async def ask(request: Request) -> dict:
        client = request.client.host if request.client else ""
        allowed, wait = limiter.allow(client)
        if not allowed:
            service.metrics.rejected.labels("rate_limited").inc()
            raise HTTPException(429, "too many questions from this address; wait a moment",
                                headers={"Retry-After": str(max(1, math.ceil(wait)))})
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "application/json":  # admitted by admission.shedding before it got here
            return await _answer(service, service.ask, await _json_text(request), client)
        if kind == "multipart/form-data":
            photo = await _photo_bytes(request, serving.max_photo_bytes)
            return await _answer(service, service.ask_photo, photo, client)
        raise HTTPException(415, 'send JSON {"text": "..."} or multipart/form-data with a "photo" file')

    @app.get("/api/v1/asks/{ask_id}")
    def get_ask(ask_id: int, token: str = "") -> dict:
        """One logged ask; ``token`` is the ``ask_token`` of its answer card."""
        _check_token(service, ask_id, token)
        try:
            return service.asks.get(ask_id)
        except UnknownAskError:
            raise HTTPException(404, f"no ask with id {ask_id}") from None

    @app.post("/api/v1/asks/{ask_id}/feedback")
    def feedback(ask_id: int, body: FeedbackRequest) -> dict:
        _check_token(service, ask_id, body.token)
        try:
            service.asks.set_feedback(ask_id, body.feedback)
        except UnknownAskError:
            raise HTTPException(404, f"no ask with id {ask_id}") from None
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        return {"ok": True}

    return app


def _check_token(service: AskService, ask_id: int, token: str) -> None:
    # Same answer for a wrong token and an unknown id: ids cannot be probed.
    if not service.tokens.valid(ask_id, token):
        raise HTTPException(404, f"no ask with id {ask_id} for this token")


async def _json_text(request: Request) -> str:
    try:
        body = await request.json()
    except (ValueError, RecursionError):  # RecursionError: absurdly deep nesting
        raise HTTPException(400, "the body is not valid JSON") from None
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        raise HTTPException(422, 'expected a JSON object {"text": "your question"}')
    if len(text) > MAX_TEXT_CHARS:
        raise HTTPException(413, f"the question is longer than {MAX_TEXT_CHARS} characters")
    return text


async def _photo_bytes(request: Request, max_bytes: int) -> bytes:
    try:
        form = await request.form(max_files=1, max_fields=4)
    except (MultiPartException, ValueError) as exc:  # malformed multipart
        raise HTTPException(400, f"the upload could not be read: {exc}") from None
    photo = form.get("photo")
    if photo is None or isinstance(photo, str):
        raise HTTPException(422, 'attach the photo as a file field named "photo"')
    data = await photo.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise HTTPException(413, f"the photo is larger than {max_bytes // 2**20} MB")
    return data


async def _answer(service: AskService, ask, payload, client: str) -> dict:
    try:
        card = await run_in_threadpool(ask, payload, client)
    except QuestionTooLongError as exc:
        raise HTTPException(413, str(exc)) from None
    except BadQuestionError as exc:  # empty, not valid text, unreadable by the encoder
        raise HTTPException(422, str(exc)) from None
    except PhotoUnavailable as exc:
        raise HTTPException(501, str(exc)) from None
    except ImageRejected as exc:
        service.metrics.rejected.labels(f"photo_{exc.code}").inc()
        status = 413 if exc.code in ("too_many_bytes", "too_many_pixels") else 422
        raise HTTPException(status, exc.reason) from None
    except Overloaded:
        service.metrics.rejected.labels("overloaded").inc()
        raise HTTPException(503, "busy: too many questions at once, retry in a moment",
                            headers={"Retry-After": str(RETRY_AFTER_S)}) from None
    except DeadlineExceeded:
        service.metrics.rejected.labels("deadline").inc()
        raise HTTPException(503, "the answer took too long, retry in a moment",
                            headers={"Retry-After": str(RETRY_AFTER_S)}) from None
    except StoreError as exc:
        service.metrics.rejected.labels("store").inc()
        raise HTTPException(503, f"the question could not be saved: {exc}",
                            headers={"Retry-After": str(RETRY_AFTER_S * 5)}) from None
    return card.to_dict()


def _add_offline_docs(app: FastAPI) -> None:
    """``/docs``: the API's routes as one plain HTML page built from the schema, with no
    script, font or style from anywhere (the box is offline)."""

    @app.get("/docs", include_in_schema=False)
    def docs_page() -> HTMLResponse:
        import html

        rows = []
        for path, methods in app.openapi().get("paths", {}).items():
            for method, op in methods.items():
                rows.append(f"<tr><td>{html.escape(method.upper())}</td><td><code>{html.escape(path)}</code></td>"
                            f"<td>{html.escape(op.get('summary', ''))}</td></tr>")
        body = ("<!doctype html><meta charset=utf-8><title>eduqa API</title><h1>eduqa API</h1>"
                "<p>Schema: <a href=/openapi.json>/openapi.json</a></p><table>" + "".join(rows) + "</table>")
        return HTMLResponse(body, headers={"Content-Security-Policy": "default-src 'none'"})
