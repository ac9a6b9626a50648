"""The mounted pages against hostile callers (issue 12): no caller can make the box read a
file by naming its path (F3), uploads are metered per address (F6), and the pages and the
JSON API share one rate limit per address. Client addresses are simulated with
X-Forwarded-For, which uvicorn trusts from 127.0.0.1."""

from __future__ import annotations

import io
import json

import httpx
import pytest
from PIL import Image, ImageDraw


@pytest.fixture
def http(live_server):
    with httpx.Client(base_url=live_server.url, follow_redirects=False, timeout=60) as client:
        yield client


def _png(text: str = "SECRET 42") -> bytes:
    image = Image.new("L", (400, 120), 255)
    ImageDraw.Draw(image).text((20, 40), text, fill=0)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _join(http, path: str, address: str, route="/gradio_api/queue/join"):
    file_data = {"path": path, "meta": {"_type": "gradio.FileData"}}
    body = {"data": ["", file_data, "en"], "fn_index": 0, "session_hash": "hostile1", "event_data": None}
    return http.post(route, content=json.dumps(body), headers={"content-type": "application/json",
                                                               "x-forwarded-for": address})


def test_a_path_on_the_box_cannot_be_named_in_an_event(http, live_server, tmp_path):  # F3
    secret = tmp_path / "secret.png"
    secret.write_bytes(_png())
    before = live_server.service.asks.count()
    for route in ("/gradio_api/queue/join", "/gradio_api/run/predict", "/gradio_api/call/predict"):
        response = _join(http, str(secret), "10.7.0.1", route)
        assert response.status_code == 403, (route, response.status_code, response.text[:200])
    assert live_server.service.asks.count() == before


def test_an_upload_can_be_used_by_its_uploader_only(http):
    upload = http.post("/gradio_api/upload", files={"files": ("q.png", _png(), "image/png")},
                       headers={"x-forwarded-for": "10.7.0.2"})
    assert upload.status_code == 200
    (path,) = upload.json()
    assert _join(http, path, "10.7.0.2").status_code == 200
    assert _join(http, path, "10.7.0.3").status_code == 403  # another student's photo


@pytest.fixture
def frozen_limiter(live_server):
    """The limiter's clock stands still, so no token refills between the burst and the ask
    however slowly the machine sends them (CI once took long enough for a refill)."""
    limiter = live_server.limiter
    real_clock, now = limiter.clock, limiter.clock()
    limiter.clock = lambda: now
    yield limiter
    limiter.clock = real_clock


def test_uploads_and_asks_share_one_budget_per_address(http, live_server, frozen_limiter):  # F6 + one limiter
    burst = live_server.config.serving.rate_burst
    statuses = [http.post("/gradio_api/upload", files={"files": ("q.png", b"x" * 1024, "image/png")},
                          headers={"x-forwarded-for": "10.7.0.9"}).status_code for _ in range(2 * burst)]
    assert statuses.count(429) >= 5 and set(statuses) <= {200, 429}
    ask = http.post("/api/v1/ask", json={"text": "水的沸点是多少"}, headers={"x-forwarded-for": "10.7.0.9"})
    assert ask.status_code == 429 and "Retry-After" in ask.headers
    other = http.post("/api/v1/ask", json={"text": "水的沸点是多少"}, headers={"x-forwarded-for": "10.7.0.10"})
    assert other.status_code == 200
