"""The classroom burst: the teacher says "photograph problem 3" and the class does, within seconds.

``clients`` students each send one photo the server has never seen (new bytes, so the
OCR cache cannot help) at a random moment within ``window_s``. Before the burst, in the
same run and on the same server, photos are sent one at a time to measure the
single-photo median it is compared with. Reported: p50/p95 photo → card, 503s, other
failures, and acknowledged asks missing from the log.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import statistics
import threading
import time
from dataclasses import dataclass, field

from appliance.bench.serving import bench_data_dir, our_server, prepare_bank, free_port, running, scrape
from appliance.asklog.log import AskLog, UnknownAskError
from appliance.config import Config
from appliance.db.store import Store

BOUNDARY = "eduqa-burst-boundary"


@dataclass
class PhotoTimes:
    ms: list[float] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    ask_ids: list[int] = field(default_factory=list)
    stage_ms: dict[str, list[float]] = field(default_factory=dict)  # the cards' own stage times

    def add(self, status: int, ms: float, payload: bytes) -> None:
        self.statuses.append(status)
        if status == 200:
            self.ms.append(ms)
            card = json.loads(payload)
            if card.get("ask_id") is not None:
                self.ask_ids.append(card["ask_id"])
            for stage, value in card.get("stage_ms", {}).items():
                self.stage_ms.setdefault(stage, []).append(value)

    def stage_medians(self) -> dict[str, float]:
        return {stage: round(statistics.median(v), 1) for stage, v in self.stage_ms.items()}


def fresh(photo: bytes, rng: random.Random) -> bytes:
    """The same picture with bytes after the JPEG's end marker: a photo the server never saw."""
    return photo + rng.randbytes(16)


def send_photo(port: int, photo: bytes) -> tuple[int, float, bytes]:
    body = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"q.jpg\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + photo + f"\r\n--{BOUNDARY}--\r\n".encode()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    started = time.perf_counter()
    try:
        conn.request("POST", "/api/v1/ask", body=body,
                     headers={"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"})
        response = conn.getresponse()
        payload = response.read()
        return response.status, (time.perf_counter() - started) * 1000, payload
    except OSError:
        return 0, (time.perf_counter() - started) * 1000, b""
    finally:
        conn.close()


def single_photos(port: int, photos: list[bytes], count: int, rng: random.Random) -> PhotoTimes:
    times = PhotoTimes()
    for i in range(count):
        times.add(*send_photo(port, fresh(photos[i % len(photos)], rng)))
    return times


def burst(port: int, photos: list[bytes], clients: int, window_s: float, rng: random.Random) -> PhotoTimes:
    times, lock = PhotoTimes(), threading.Lock()
    moments = sorted(rng.uniform(0, window_s) for _ in range(clients))
    mine = [fresh(photos[i % len(photos)], rng) for i in range(clients)]
    start = time.monotonic() + 0.5

    def student(i: int) -> None:
        time.sleep(max(0.0, start + moments[i] - time.monotonic()))
        status, ms, payload = send_photo(port, mine[i])
        with lock:
            times.add(status, ms, payload)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times


def missing_asks(config: Config, ask_ids: list[int]) -> int:
    """Acknowledged asks that the server's log does not hold."""
    log = AskLog(Store(config.db_path))
    missing = 0
    try:
        for ask_id in ask_ids:
            try:
                log.get(ask_id)
            except UnknownAskError:
                missing += 1
    finally:
        log.store.close()
    return missing


READ_SERIES = ('eduqa_ocr_reads_total{reading="centre_first"}', "eduqa_ocr_lines_unread_total")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def run_classroom_burst(config: Config, photos: list[bytes], clients: int = 40, window_s: float = 10.0,
                        singles: int = 10, bank_size: int = 2000, seed: int = 13) -> dict:
    if not photos:
        raise ValueError("the classroom burst needs photos (--photos DIR)")
    rng = random.Random(seed)
    with bench_data_dir(config) as bench_config:
        prepare_bank(bench_config, bank_size)
        port = free_port()
        with running(our_server(bench_config, port), port):
            single_photos(port, photos, 3, rng)  # warm-up: models loaded, first-call costs paid
            alone = single_photos(port, photos, singles, rng)
            before = scrape(port, *READ_SERIES)
            crowd = burst(port, photos, clients, window_s, rng)
            after = scrape(port, *READ_SERIES)
        missing = missing_asks(bench_config, alone.ask_ids + crowd.ask_ids)
    single_median = statistics.median(alone.ms) if alone.ms else float("nan")
    p95 = percentile(crowd.ms, 0.95)
    return {
        "clients": clients, "window_s": window_s, "ok": crowd.statuses.count(200),
        "rejected_503": crowd.statuses.count(503),
        "failed_other": sum(1 for s in crowd.statuses if s not in (200, 503)),
        "p50_ms": round(percentile(crowd.ms, 0.5), 1), "p95_ms": round(p95, 1),
        "max_ms": round(max(crowd.ms), 1) if crowd.ms else None,
        "single_photo_median_ms": round(single_median, 1),
        "p95_over_single_median": round(p95 / single_median, 2) if alone.ms and crowd.ms else None,
        "missing_from_log": missing,
        # Burst photos read centre-first (photos were waiting) and the lines they left unread.
        "read_centre_first": int(after[READ_SERIES[0]] - before[READ_SERIES[0]]),
        "lines_unread": int(after[READ_SERIES[1]] - before[READ_SERIES[1]]),
        "load_average": [round(v, 2) for v in os.getloadavg()],
        # Where the time went (medians of the cards' stage_ms; "ocr" includes the wait for the reader).
        "burst_stage_p50_ms": crowd.stage_medians(), "single_stage_p50_ms": alone.stage_medians(),
    }
