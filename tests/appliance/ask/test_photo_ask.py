"""Asking with a photo: through the service and the HTTP API, good and bad uploads."""

import io
import struct
import zlib

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from appliance.daemon import api_app
from appliance.ask.service import AskService
from tests.needs import skip_missing


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    from tests.photos.make_photos import FontMissing, make_set

    folder = tmp_path_factory.mktemp("photos")
    try:
        samples = make_set(folder, count=2, seed=3)
    except FontMissing:
        skip_missing("fonts-noto-cjk", "apt-get install -y fonts-noto-cjk; .ci/run installs it")
    from appliance.bench.evaluation import read_queries
    from appliance.bank.kb import demo_eval_path

    expected = {q.qid: q.expected_id for q in read_queries(demo_eval_path())}
    return [(expected[s.qid], (folder / f"{s.qid}.jpg").read_bytes()) for s in samples]


@pytest.fixture
def service(config):
    svc = AskService.open(config)
    yield svc
    svc.close()


def jpeg(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG")
    return out.getvalue()


def png_claiming(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b"")


def test_photo_ask_is_answered_logged_and_kept(service, photos):
    expected_id, photo = photos[0]
    card = service.ask_photo(photo, client="10.0.0.9")
    assert card.matched_id == expected_id
    assert any(stage.startswith("ocr_") for stage in card.stage_ms)
    row = service.asks.get(card.ask_id)
    assert row["kind"] == "photo" and row["ocr_text"] and row["ocr_confidence"] > 0.5
    assert service.photos.find(row["photo_sha256"]).read_bytes() == photo
    again = service.ask_photo(photo)
    assert again.ask_id != card.ask_id and again.stage_ms.get("ocr_cache") is not None
    metrics = service.metrics.render().decode()  # one photo read (whole: nothing else in flight), one cache hit
    assert 'eduqa_ocr_reads_total{reading="whole"} 1.0' in metrics
    assert "eduqa_ocr_lines_unread_total 0.0" in metrics


def test_blank_sheet_gets_a_clear_message_and_a_logged_ask(service):
    card = service.ask_photo(jpeg(Image.new("RGB", (1600, 1200), (236, 234, 228))))
    assert card.abstained and "No text found" in card.message
    row = service.asks.get(card.ask_id)
    assert row["kind"] == "photo" and row["abstained"] and row["photo_sha256"]


def test_api_photo_uploads_good_and_bad(service, photos):
    expected_id, photo = photos[1]
    with TestClient(api_app(service)) as client:
        ok = client.post("/api/v1/ask", files={"photo": ("q.jpg", photo, "image/jpeg")})
        assert ok.status_code == 200 and ok.json()["matched_id"] == expected_id
        cases = {
            "text renamed .jpg": (b"this is not a photo at all\n" * 10, 422),
            "truncated JPEG": (photo[: len(photo) // 3], 422),
            "1x1 image": (jpeg(Image.new("RGB", (1, 1))), 422),
            "PNG header claiming 30000x30000": (png_claiming(30000, 30000), 413),
        }
        for name, (data, status) in cases.items():
            response = client.post("/api/v1/ask", files={"photo": ("q.jpg", data, "image/jpeg")})
            assert response.status_code == status, name
            assert response.json()["detail"] and "Traceback" not in response.text, name
        assert client.get("/healthz").status_code == 200  # still up


def test_api_refuses_a_200_mb_upload_without_reading_it_all(service):
    def body():
        for _ in range(200):
            yield b"\0" * 2**20

    with TestClient(api_app(service)) as client:
        response = client.post("/api/v1/ask", content=body(),
                               headers={"content-type": "multipart/form-data; boundary=x"})
        assert response.status_code == 413 and "larger than" in response.json()["detail"]
        assert client.get("/healthz").status_code == 200
