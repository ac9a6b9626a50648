"""The JSON API, through FastAPI's test client."""

import pytest
from fastapi.testclient import TestClient

from appliance.api import create_app
from appliance.service import AskService


@pytest.fixture
def client(config):
    service = AskService.open(config)
    with TestClient(create_app(service)) as c:
        yield c
    service.close()


def test_ask_then_read_back_and_give_feedback(client):
    assert client.get("/healthz").json() == {"status": "alive"}
    card = client.post("/api/v1/ask", json={"text": "解方程：2x + 3 = 13"}).json()
    assert card["matched_id"] == "demo-math-001"
    row = client.get(f"/api/v1/asks/{card['ask_id']}").json()
    assert row["question"] == "解方程：2x + 3 = 13"
    assert client.post(f"/api/v1/asks/{card['ask_id']}/feedback", json={"feedback": "up"}).json() == {"ok": True}
    assert client.get(f"/api/v1/asks/{card['ask_id']}").json()["feedback"] == "up"


def test_bad_requests_get_clear_errors(client):
    assert client.post("/api/v1/ask", json={"text": "  "}).status_code == 422
    assert client.post("/api/v1/ask", content=b"{not json", headers={"content-type": "application/json"}).status_code == 422
    assert client.get("/api/v1/asks/999999").status_code == 404
    assert client.post("/api/v1/asks/999999/feedback", json={"feedback": "up"}).status_code == 404
    card = client.post("/api/v1/ask", json={"text": "水的沸点"}).json()
    bad = client.post(f"/api/v1/asks/{card['ask_id']}/feedback", json={"feedback": "meh"})
    assert bad.status_code == 422 and "feedback must be" in bad.json()["detail"]
