"""The classroom burst's driver against a stand-in server: every student sends one new
photo within the window, 503s and failures are counted, lost asks are found."""

from __future__ import annotations

import json
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from appliance.asklog.log import AskLog, AskRecord
from appliance.bench.burst import READ_SERIES, burst, missing_asks, percentile
from appliance.bench.serving import scrape
from appliance.db.store import Store


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.bodies: list[bytes] = []
        self.lock = threading.Lock()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        payload = (b'# HELP x\neduqa_ocr_reads_total{reading="centre_first"} 7.0\n'
                   b'eduqa_ocr_reads_total{reading="whole"} 3.0\neduqa_ocr_lines_unread_total 41.0\n')
        self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with self.server.lock:
            self.server.bodies.append(body)
            n = len(self.server.bodies)
        status = 503 if n % 10 == 0 else 200  # every tenth photo finds the reader full
        payload = json.dumps({"ask_id": n}).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


def test_every_student_sends_one_new_photo_and_refusals_are_counted():
    server = _Server()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        times = burst(server.server_address[1], [b"\xff\xd8photo\xff\xd9"], clients=20, window_s=0.5,
                      rng=random.Random(1))
    finally:
        server.shutdown()
    assert len(times.statuses) == 20 and times.statuses.count(503) == 2 and len(times.ms) == 18
    photos = {body.split(b"\r\n\r\n", 1)[1] for body in server.bodies}
    assert len(photos) == 20  # no two students sent the same bytes: the OCR cache cannot help
    assert sorted(times.ask_ids) == [n for n in range(1, 21) if n % 10]


def test_acknowledged_asks_missing_from_the_log_are_counted(config):
    log = AskLog(Store(config.db_path))
    ask_id = log.record(AskRecord(client="c", kind="photo", question="q", truncated=False, matched_id=None,
                                  confidence=0.0, abstained=True, stage_ms={}, backend="x"))
    log.close()
    log.store.close()
    assert missing_asks(config, [ask_id]) == 0
    assert missing_asks(config, [ask_id, ask_id + 1]) == 1


def test_percentile():
    assert percentile([5.0, 1.0, 3.0], 0.5) == 3.0 and percentile([1.0, 2.0], 0.95) == 2.0


def test_the_burst_reads_how_photos_were_read_from_the_metrics():
    server = _Server()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        values = scrape(server.server_address[1], *READ_SERIES, "eduqa_absent_total")
    finally:
        server.shutdown()
    assert values == {READ_SERIES[0]: 7.0, READ_SERIES[1]: 41.0, "eduqa_absent_total": 0.0}
