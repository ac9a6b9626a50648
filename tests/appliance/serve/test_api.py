"""The HTTP API, through FastAPI's test client."""

import dataclasses

import pytest
from fastapi.testclient import TestClient

from appliance import daemon
from appliance.config import ServingConfig


def make_client(config, **serving):
    config = dataclasses.replace(config, serving=dataclasses.replace(ServingConfig(), **serving))
    built = daemon.build(config, pages=False, progress=False)
    return built.service, TestClient(built.app)


@pytest.fixture
def client(config):
    service, c = make_client(config)
    with c:
        yield c


def test_ask_then_read_back_and_give_feedback(client):
    assert client.get("/healthz").json() == {"status": "alive"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["store_writable"] is True
    card = client.post("/api/v1/ask", json={"text": "解方程：2x + 3 = 13"}).json()
    assert card["matched_id"] == "demo-math-001"
    token = card["ask_token"]
    row = client.get(f"/api/v1/asks/{card['ask_id']}", params={"token": token}).json()
    assert row["question"] == "解方程：2x + 3 = 13"
    feedback = client.post(f"/api/v1/asks/{card['ask_id']}/feedback", json={"feedback": "up", "token": token})
    assert feedback.json() == {"ok": True}
    assert client.get(f"/api/v1/asks/{card['ask_id']}", params={"token": token}).json()["feedback"] == "up"


def test_an_ask_cannot_be_read_or_rated_without_its_token(client):
    mine = client.post("/api/v1/ask", json={"text": "水的沸点是多少"}).json()
    other = client.post("/api/v1/ask", json={"text": "解方程：2x + 3 = 13"}).json()
    assert client.get(f"/api/v1/asks/{other['ask_id']}").status_code == 404
    assert client.get(f"/api/v1/asks/{other['ask_id']}", params={"token": mine["ask_token"]}).status_code == 404
    stolen = client.post(f"/api/v1/asks/{other['ask_id']}/feedback", json={"feedback": "down", "token": mine["ask_token"]})
    assert stolen.status_code == 404


def test_metrics_count_asks_batches_and_cache(client):
    client.post("/api/v1/ask", json={"text": "水的沸点是多少"})
    client.post("/api/v1/ask", json={"text": "水的沸点是多少"})
    text = client.get("/metrics").text
    assert 'eduqa_asks_total{kind="text",outcome="answered"} 2.0' in text
    assert 'eduqa_cache_lookups_total{cache="answer",result="hit"} 1.0' in text
    assert 'eduqa_batch_size_count{engine="encoder"} 1.0' in text
    assert 'eduqa_model_backend{backend="onnxruntime",model="use-m3"' in text
    assert "eduqa_stage_milliseconds_bucket" in text and "eduqa_queue_depth" in text


def test_limits_and_bad_requests(client):
    assert client.post("/api/v1/ask", json={"text": "  "}).status_code == 422
    bad_json = client.post("/api/v1/ask", content=b"{not json", headers={"content-type": "application/json"})
    assert bad_json.status_code == 400 and "not valid JSON" in bad_json.json()["detail"]
    assert client.post("/api/v1/ask", json={"question": "x"}).status_code == 422
    assert client.post("/api/v1/ask", content=b"hello", headers={"content-type": "text/plain"}).status_code == 415
    assert client.post("/api/v1/ask", json={"text": "题" * 20_001}).status_code == 413
    assert client.get("/api/v1/asks/999999").status_code == 404
    assert client.post("/api/v1/asks/999999/feedback", json={"feedback": "up"}).status_code == 404
    card = client.post("/api/v1/ask", json={"text": "水的沸点"}).json()
    bad = client.post(f"/api/v1/asks/{card['ask_id']}/feedback", json={"feedback": "meh", "token": card["ask_token"]})
    assert bad.status_code == 422 and "feedback must be" in bad.json()["detail"]


def test_oversize_body_and_photo_are_refused_before_reading_them(config):
    service, c = make_client(config, max_body_bytes=1000, max_photo_bytes=500)
    with c:
        big = c.post("/api/v1/ask", json={"text": "x" * 2000})
        assert big.status_code == 413 and "larger than" in big.json()["detail"]
        photo = c.post("/api/v1/ask", files={"photo": ("p.jpg", b"\xff" * 800, "image/jpeg")})
        assert photo.status_code == 413


def test_rate_limit_answers_429_with_retry_after(config):
    service, c = make_client(config, rate_per_minute=1, rate_burst=2)  # no refill on a slow machine
    with c:
        codes = [c.post("/api/v1/ask", json={"text": "水的沸点"}).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        limited = c.post("/api/v1/ask", json={"text": "水的沸点"})
        assert int(limited.headers["Retry-After"]) >= 1


def test_overload_answers_503_at_once_and_recovers(config, monkeypatch):
    import threading
    import time

    service, c = make_client(config, queue_max=1, batch_max=1)
    gate = threading.Event()
    real = service.encoder_batcher._run_batch
    monkeypatch.setattr(service.encoder_batcher, "_run_batch", lambda texts: (gate.wait(30), real(texts))[1])
    with c:
        results = []
        workers = [threading.Thread(target=lambda i=i: results.append(
            c.post("/api/v1/ask", json={"text": f"问题{i}：水的沸点"}))) for i in range(6)]
        for w in workers:
            w.start()
        time.sleep(1.0)
        started = time.perf_counter()
        refused = c.post("/api/v1/ask", json={"text": "再问一次：水的沸点"})
        elapsed = time.perf_counter() - started
        gate.set()
        for w in workers:
            w.join()
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "1"
        assert elapsed < 10  # refused at once, not after waiting in line behind the 30 s gate
        assert any(r.status_code == 503 for r in results)
        assert c.post("/api/v1/ask", json={"text": "水的沸点是多少"}).status_code == 200  # recovered


def test_checked_in_openapi_schema_matches_the_app(client):
    import json
    from pathlib import Path

    checked_in = json.loads((Path(__file__).parents[3] / "docs" / "openapi.json").read_text(encoding="utf-8"))
    assert client.get("/openapi.json").json() == checked_in, "run: eduqa openapi docs/openapi.json"


def test_state_changing_requests_from_another_site_are_refused(client):
    evil = {"Origin": "http://evil.example"}
    refused = client.post("/api/v1/ask", json={"text": "水的沸点"}, headers=evil)
    assert refused.status_code == 403 and "cross-site" in refused.json()["detail"]
    assert client.post("/api/v1/ask", json={"text": "水的沸点"}, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert client.post("/api/v1/ask", json={"text": "水的沸点"}, headers={"Origin": "null"}).status_code == 403
    same = client.post("/api/v1/ask", json={"text": "水的沸点"}, headers={"Origin": "http://testserver"})
    assert same.status_code == 200
    assert client.post("/api/v1/ask", json={"text": "水的沸点"}).status_code == 200  # no browser headers
    assert client.get("/healthz", headers=evil).status_code == 200  # reads are not state changes
