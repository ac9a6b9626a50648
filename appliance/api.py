"""The JSON API over the ask service (the web UI will mount into this app)."""

from __future__ import annotations

from fastapi import FastAPI, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from appliance.asklog import UnknownAskError
from appliance.service import AskService
from appliance.store import StoreError
from appliance.textnorm import EmptyQuestionError

MAX_TEXT_CHARS = 20_000


class AskRequest(BaseModel):
    text: str = Field(max_length=MAX_TEXT_CHARS)


class FeedbackRequest(BaseModel):
    feedback: str


def create_app(service: AskService) -> FastAPI:
    app = FastAPI(title="eduqa", version="0.1.0")

    @app.get("/healthz")
    def healthz() -> dict:
        return {"status": "alive"}

    @app.post("/api/v1/ask")
    async def ask(body: AskRequest, request: Request) -> dict:
        client = request.client.host if request.client else ""
        try:
            card = await run_in_threadpool(service.ask, body.text, client)
        except EmptyQuestionError as exc:
            raise HTTPException(422, str(exc)) from None
        except StoreError as exc:
            raise HTTPException(503, f"the question could not be saved: {exc}") from None
        return card.to_dict()

    @app.get("/api/v1/asks/{ask_id}")
    def get_ask(ask_id: int) -> dict:
        try:
            return service.asks.get(ask_id)
        except UnknownAskError:
            raise HTTPException(404, f"no ask with id {ask_id}") from None

    @app.post("/api/v1/asks/{ask_id}/feedback")
    def feedback(ask_id: int, body: FeedbackRequest) -> dict:
        try:
            service.asks.set_feedback(ask_id, body.feedback)
        except UnknownAskError:
            raise HTTPException(404, f"no ask with id {ask_id}") from None
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        return {"ok": True}

    return app
