"""The upload ledger and guard on a stand-in for Gradio's routes (no Gradio, fake clock)."""

from __future__ import annotations

import json

from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from appliance.serve.ratelimit import RateLimiter
from ui.uploads import UploadGuard, UploadLedger


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _app(tmp_path, ledger):
    inner = FastAPI()
    written = []

    @inner.post("/gradio_api/upload")
    async def upload(request: Request):
        body = await request.body()
        path = tmp_path / f"up{len(written)}.bin"
        path.write_bytes(body)
        written.append(str(path))
        return [str(path)]

    @inner.post("/gradio_api/queue/join")
    async def join(request: Request):
        return {"ok": True, "body": (await request.json())}

    inner.add_middleware(UploadGuard, ledger=ledger, limiter=RateLimiter(10**6, 10**6), cache_dir=tmp_path)
    return TestClient(inner)


def test_an_address_over_its_upload_quota_is_refused_until_the_window_passes(tmp_path):  # F6
    clock = Clock()
    client = _app(tmp_path, UploadLedger(quota_bytes=10 * 2**20, clock=clock))
    statuses = [client.post("/gradio_api/upload", content=b"x" * 2**20).status_code for _ in range(50)]
    assert statuses[:10] == [200] * 10 and set(statuses[10:]) == {429}
    clock.now += 3601
    assert client.post("/gradio_api/upload", content=b"x" * 2**20).status_code == 200


def test_events_may_name_only_their_own_uploads_and_the_body_is_passed_on(tmp_path):
    client = _app(tmp_path, UploadLedger(quota_bytes=2**30, clock=Clock()))
    (path,) = client.post("/gradio_api/upload", content=b"photo").json()
    body = {"data": [{"nested": [{"path": path, "meta": {"_type": "gradio.FileData"}}]}], "fn_index": 0}
    ok = client.post("/gradio_api/queue/join", content=json.dumps(body))
    assert ok.status_code == 200 and ok.json()["body"] == body
    for bad in ("/etc/passwd", str(tmp_path / "other.bin"), path + "/../" + path.rsplit("/", 1)[-1]):
        body = {"data": ["", {"path": bad}], "fn_index": 0}
        assert client.post("/gradio_api/queue/join", content=json.dumps(body)).status_code == 403
    deep = "[" * 100_000 + "]" * 100_000
    assert client.post("/gradio_api/queue/join", content=deep).status_code == 400
    assert client.post("/gradio_api/upload", content=b"x", headers={"content-length": ""}).status_code in (400, 411)
