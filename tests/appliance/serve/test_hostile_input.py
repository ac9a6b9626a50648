"""Bad or hostile input through the HTTP API: each attack gets a card or a clear 4xx,
never a 500, and never hurts the asks sent beside it."""

from __future__ import annotations

import dataclasses
import logging
import threading

import pytest
from fastapi.testclient import TestClient

from appliance.ask.service import AskService
from appliance.config import ServingConfig
from appliance.serve.api import create_app


@pytest.fixture
def client(config):
    service = AskService.open(config)
    with TestClient(create_app(service, close_service_on_shutdown=True)) as c:
        yield c


def _raw_json(client, body: str, url="/api/v1/ask"):
    return client.post(url, content=body.encode("utf-8"), headers={"content-type": "application/json"})


@pytest.mark.parametrize("body, statuses", [
    ('{"text": "\\ud800"}', {422}),                          # F1: a lone surrogate
    ('{"text": "2x + 3 = 13 \\udfff\\ud800"}', {422}),
    ('{"text": "😀 解方程：2x + 3 = 13 🧮"}', {200}),          # emoji
    ('{"text": "' + "9" * 100_000 + '"}', {413}),             # 100 kB of digits
    ('{"text": "' + "9" * 19_000 + '"}', {200}),
    ('{"text": "?!?!…… ,,, ！！。。"}', {200, 422}),           # punctuation only
    ('{"text": "x² + café + 方程 + Ωμέγα + עברית + кошка"}', {200}),  # mixed scripts
    ('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}", {400}),  # F9: deep nesting
    ("[" * 100_000 + "]" * 100_000, {400}),
    ('{"text": 5}', {422}),
])
def test_odd_and_hostile_text_gets_a_card_or_a_clear_4xx(client, body, statuses):
    response = _raw_json(client, body)
    assert response.status_code in statuses, response.text[:300]
    if response.status_code == 200:
        assert "ask_id" in response.json()
    else:
        assert response.json()["detail"]


def test_non_ascii_ask_tokens_are_404_not_500(client):  # F8
    card = client.post("/api/v1/ask", json={"text": "水的沸点是多少"}).json()
    assert client.get(f"/api/v1/asks/{card['ask_id']}", params={"token": "é"}).status_code == 404
    feedback = client.post(f"/api/v1/asks/{card['ask_id']}/feedback", json={"feedback": "up", "token": "é"})
    assert feedback.status_code == 404
    nested = _raw_json(client, "[" * 100_000 + "]" * 100_000, url=f"/api/v1/asks/{card['ask_id']}/feedback")
    assert nested.status_code in (400, 422)


def test_a_bad_question_fails_alone_and_the_others_in_its_batch_are_answered(config):  # F1
    config = dataclasses.replace(config, serving=dataclasses.replace(ServingConfig(), batch_wait_ms=300.0))
    service = AskService.open(config)
    real_encode = service.encoder.encode
    batch_sizes = []

    def encode(texts):  # stands in for a tokenizer that chokes on one input
        batch_sizes.append(len(texts))
        if any("💥" in t for t in texts):
            raise ValueError("tokenizer failed")
        return real_encode(texts)

    service.encoder.encode = encode
    questions = ["解方程：2x + 3 = 13", "水的沸点是多少", "💥 爆炸", "\ud800", "光合作用需要什么"]
    outcomes = {}

    def ask(q):
        try:
            outcomes[q] = service.ask(q, client="t")
        except Exception as exc:  # noqa: BLE001 - inspected below
            outcomes[q] = exc

    with TestClient(create_app(service, close_service_on_shutdown=True)) as client:
        threads = [threading.Thread(target=ask, args=(q,)) for q in questions]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert max(batch_sizes) > 1, "the asks never shared a batch"
        from appliance.common.textnorm import BadQuestionError

        for q in ("解方程：2x + 3 = 13", "水的沸点是多少", "光合作用需要什么"):
            assert hasattr(outcomes[q], "ask_id"), outcomes[q]
        assert isinstance(outcomes["💥 爆炸"], BadQuestionError)
        assert isinstance(outcomes["\ud800"], BadQuestionError)
        assert client.post("/api/v1/ask", json={"text": "💥 again"}).status_code == 422


def test_an_unexpected_error_is_one_log_line_with_an_error_id(config, caplog):
    service = AskService.open(config)
    app = create_app(service, close_service_on_shutdown=True)

    @app.get("/boom")
    def boom():
        raise RuntimeError("a bug")

    with TestClient(app, raise_server_exceptions=False) as client, caplog.at_level(logging.INFO):
        response = client.get("/boom")
    assert response.status_code == 500
    error_id = response.json()["error_id"]
    lines = [r for r in caplog.records if error_id in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None and "RuntimeError" in lines[0].getMessage()


def test_docs_are_off_by_default_and_offline_when_on(config):
    service = AskService.open(config)
    with TestClient(create_app(service, close_service_on_shutdown=True)) as client:
        assert client.get("/docs").status_code == 404 and client.get("/redoc").status_code == 404
    config = dataclasses.replace(config, server=dataclasses.replace(config.server, api_docs=True))
    with TestClient(create_app(AskService.open(config), close_service_on_shutdown=True)) as client:
        page = client.get("/docs")
        assert page.status_code == 200 and "/api/v1/ask" in page.text
        assert "http" not in page.text.replace("http-equiv", "") and "<script" not in page.text
        assert client.get("/redoc").status_code == 404
