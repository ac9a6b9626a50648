"""``eduqa bench``: the HTTP server under concurrent clients, against the plain baseline.

Both servers run as their own processes on loopback over the same generated bank (the
demo bank plus generated problems), so the load generator does not share their
interpreter. Each client thread sends its asks one after another on a keep-alive
connection; questions are distinct bank questions and eval queries, so the answer cache
does not flatter the figures.
"""

from __future__ import annotations

import dataclasses
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from appliance.bench.ask_path import generate_bank
from appliance.config import Config
from appliance.bench.evaluation import read_queries
from appliance.bank.kb import QuestionBank, demo_eval_path
from appliance.db.store import Store

READY_TIMEOUT_S = 600


@dataclass
class LoadResult:
    clients: int
    sent: int
    ok: int
    rejected_503: int
    errors_5xx: int
    other: int
    seconds: float
    latencies_ms: list[float] = field(default_factory=list, repr=False)
    stage_ms: dict[str, list[float]] = field(default_factory=dict, repr=False)
    ask_ids: list[int] = field(default_factory=list, repr=False)
    ask_tokens: dict[int, str] = field(default_factory=dict, repr=False)

    @property
    def qps(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]

    def summary(self) -> dict:
        return {
            "clients": self.clients, "ok": self.ok, "rejected_503": self.rejected_503,
            "errors_5xx": self.errors_5xx, "other": self.other, "seconds": round(self.seconds, 2),
            "qps": round(self.qps, 1), "p50_ms": round(self.percentile(0.5), 1),
            "p95_ms": round(self.percentile(0.95), 1), "p99_ms": round(self.percentile(0.99), 1),
            "stage_p50_ms": {s: round(statistics.median(v), 2) for s, v in self.stage_ms.items()},
        }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare_bank(config: Config, bank_size: int, seed: int = 7) -> list[str]:
    """Fill the config's data dir with the demo bank plus generated entries; return the
    questions clients will ask (generated questions mixed with eval queries)."""
    bank = QuestionBank(Store(config.db_path))
    bank.load_demo_if_empty()
    generated = generate_bank(max(0, bank_size - bank.count()), seed)
    if generated:
        bank.upsert(generated, "benchmark")
    bank.store.close()
    queries = [q.query for q in read_queries(demo_eval_path())] + [e.question for e in generated]
    random.Random(seed).shuffle(queries)
    return queries


@contextmanager
def running(command: list[str], port: int, env: dict | None = None) -> Iterator[subprocess.Popen]:
    """Start a server process and wait until its /readyz answers 200. Its stderr goes to
    a temporary file (a pipe nobody reads would stall it), readable as ``proc.stderr``."""
    log_file = tempfile.TemporaryFile()
    proc = subprocess.Popen(command, env={**os.environ, **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=log_file)
    proc.stderr = _LogReader(log_file)
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {proc.stderr.read().decode(errors='replace')[-2000:]}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/readyz")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError("server did not become ready")
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()


class _LogReader:
    def __init__(self, fh):
        self._fh = fh

    def read(self) -> bytes:
        self._fh.seek(0)
        return self._fh.read()


def drive(port: int, queries: list[str], clients: int, requests: int | None = None,
          duration_s: float | None = None, photos: list[bytes] | None = None,
          photo_share: float = 0.0, unique_photos: bool = False) -> LoadResult:
    """``clients`` threads ask in turn until ``requests`` are done or ``duration_s`` passed."""
    lock = threading.Lock()
    result = LoadResult(clients, 0, 0, 0, 0, 0, 0.0)
    counter = iter(range(10**9))
    stop_at = time.monotonic() + duration_s if duration_s else None

    def next_index() -> int | None:
        with lock:
            i = next(counter)
        if requests is not None and i >= requests:
            return None
        if stop_at is not None and time.monotonic() >= stop_at:
            return None
        return i

    def client(n: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        rng = random.Random(n)
        while (i := next_index()) is not None:
            body, headers = _request_body(queries[i % len(queries)], photos, photo_share, rng, unique_photos)
            started = time.perf_counter()
            try:
                conn.request("POST", "/api/v1/ask", body=body, headers=headers)
                response = conn.getresponse()
                payload = response.read()
            except OSError:
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                with lock:
                    result.sent += 1
                    result.other += 1
                continue
            _record(result, lock, response.status, payload, (time.perf_counter() - started) * 1000)
        conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result.seconds = time.perf_counter() - started
    return result


def _request_body(text: str, photos: list[bytes] | None, share: float, rng: random.Random,
                  unique_photos: bool = False) -> tuple[bytes, dict]:
    if photos and rng.random() < share:
        boundary = "eduqa-bench-boundary"
        photo = photos[rng.randrange(len(photos))]
        if unique_photos:  # bytes after the JPEG's end marker: same picture, new sha256, no OCR cache hit
            photo += rng.randbytes(16)
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"q.jpg\"\r\n"
                f"Content-Type: image/jpeg\r\n\r\n").encode() + photo + f"\r\n--{boundary}--\r\n".encode()
        return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    return json.dumps({"text": text}).encode(), {"Content-Type": "application/json"}


def _record(result: LoadResult, lock: threading.Lock, status: int, payload: bytes, ms: float) -> None:
    with lock:
        result.sent += 1
        if status == 200:
            result.ok += 1
            result.latencies_ms.append(ms)
            card = json.loads(payload)
            if "ask_id" in card:
                result.ask_ids.append(card["ask_id"])
                result.ask_tokens[card["ask_id"]] = card.get("ask_token", "")
            for stage, value in card.get("stage_ms", {}).items():
                result.stage_ms.setdefault(stage, []).append(value)
        elif status == 503:
            result.rejected_503 += 1
        elif status >= 500:
            result.errors_5xx += 1
        else:
            result.other += 1


def scrape(port: int, *series: str) -> dict[str, float]:
    """The values of the named ``series`` (name with its labels, as /metrics writes them); 0 for one not there."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    values = dict.fromkeys(series, 0.0)
    for line in text.splitlines():
        name, _, value = line.rpartition(" ")
        if name in values:
            values[name] = float(value)
    return values


def batch_totals(port: int) -> tuple[float, float]:
    """(items, batches) the encoder batcher has run so far, read from /metrics."""
    items, batches = 'eduqa_batch_size_sum{engine="encoder"}', 'eduqa_batch_size_count{engine="encoder"}'
    values = scrape(port, items, batches)
    return values[items], values[batches]


@contextmanager
def bench_data_dir(config: Config) -> Iterator[Config]:
    with tempfile.TemporaryDirectory(prefix="eduqa-bench-") as tmp:
        config.cache_dir.mkdir(parents=True, exist_ok=True)
        (Path(tmp) / "cache").symlink_to(config.cache_dir.resolve(), target_is_directory=True)
        # The bench measures the server, not the rate limiter guarding a school's LAN.
        serving = dataclasses.replace(config.serving, rate_per_minute=10**9, rate_burst=10**9)
        yield dataclasses.replace(config, data_dir=Path(tmp), serving=serving)


def write_bench_config(config: Config, path: Path) -> None:
    s = config.serving
    path.write_text(
        f'[encoder]\nmodel = "{config.encoder.model}"\n'
        f"[serving]\nbatch_max = {s.batch_max}\nbatch_wait_ms = {s.batch_wait_ms}\n"
        f"queue_max = {s.queue_max}\nrate_per_minute = {s.rate_per_minute}\nrate_burst = {s.rate_burst}\n"
        f"max_in_flight = {s.max_in_flight}\n"
        f"[ocr]\nqueue_max = {config.ocr.queue_max}\ndeadline_s = {config.ocr.deadline_s}\n"
        f"det_max_side = {config.ocr.det_max_side}\nthreads = {config.ocr.threads}\n"
        f"rec_threads = {config.ocr.rec_threads}\n"
        f"busy_queue = {config.ocr.busy_queue}\ndet_max_side_busy = {config.ocr.det_max_side_busy}\n"
        f"centre_first_queue = {config.ocr.centre_first_queue}\n",
        encoding="utf-8",
    )


def our_server(config: Config, port: int) -> list[str]:
    toml = config.data_dir / "bench.toml"
    write_bench_config(config, toml)
    return [sys.executable, "-m", "appliance.cli", "--config", str(toml), "--data-dir", str(config.data_dir),
            "serve", "--port", str(port)]


def baseline_server(config: Config, port: int) -> list[str]:
    return [sys.executable, "-m", "appliance.bench.baseline", "--db", str(config.db_path),
            "--encoder", config.encoder.model, "--port", str(port)]


def run_bench(config: Config, clients: list[int], requests: int, bank_size: int,
              baseline: bool = True, url_port: int | None = None, max_seconds: float = 90.0) -> dict:
    """Our server and (optionally) the baseline, each at every client count; a run ends
    after ``requests`` asks or ``max_seconds``, whichever comes first."""
    with bench_data_dir(config) as bench_config:
        queries = prepare_bank(bench_config, bank_size)
        rows = {"ours": [], "baseline": []}
        port = url_port or free_port()
        # Every run asks questions no earlier run asked, so the answer cache never helps.
        fresh = _fresh_slices(queries, 50, requests, len(clients))
        with running(our_server(bench_config, port), port):
            drive(port, next(fresh), 4, requests=50)  # warm-up
            for n in clients:
                items_before, batches_before = batch_totals(port)
                result = drive(port, next(fresh), n, requests=requests, duration_s=max_seconds)
                items, batches = batch_totals(port)
                mean_batch = (items - items_before) / max(1.0, batches - batches_before)
                rows["ours"].append({**result.summary(), "mean_batch": round(mean_batch, 2)})
        if baseline:
            port = free_port()
            fresh = _fresh_slices(queries, 50, requests, len(clients))
            with running(baseline_server(bench_config, port), port):
                drive(port, next(fresh), 4, requests=50)
                for n in clients:
                    rows["baseline"].append(drive(port, next(fresh), n, requests=requests, duration_s=max_seconds).summary())
    return rows


def _fresh_slices(queries: list[str], warmup: int, requests: int, runs: int):
    """The warm-up's questions, then one disjoint slice of ``requests`` questions per run
    (wrapping only when the bank is too small to give every run its own)."""
    start = 0
    for size in [warmup] + [requests] * runs:
        chunk = [queries[(start + i) % len(queries)] for i in range(size)]
        start += size
        yield chunk


def headline(rows: dict, clients: int) -> dict:
    """The figures at one client count: ours, the baseline's and their ratio."""
    ours = next(r for r in rows["ours"] if r["clients"] == clients)
    base = next((r for r in rows["baseline"] if r["clients"] == clients), None)
    return {
        "clients": clients, "qps": ours["qps"], "p50_ms": ours["p50_ms"], "p99_ms": ours["p99_ms"],
        "mean_batch": ours.get("mean_batch"),
        "baseline_qps": base["qps"] if base else None,
        "baseline_p99_ms": base["p99_ms"] if base else None,
        "ratio": round(ours["qps"] / base["qps"], 2) if base and base["qps"] else None,
    }


def rss_bytes(pid: int) -> int:
    """Resident memory of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def run_load_test(config: Config, clients: int, duration_s: float, bank_size: int,
                  photos: list[bytes], photo_share: float, unique_photos: bool = True) -> dict:
    """A bounded soak on loopback: ``clients`` for ``duration_s``, text and photo asks
    mixed (with ``unique_photos`` every photo ask misses the OCR cache, so each is read in
    full). Reports 5xx other than deliberate 503s, asks acknowledged but missing from the
    log, and the server's memory after warm-up and at the end."""
    from appliance.asklog.log import AskLog, UnknownAskError

    with bench_data_dir(config) as bench_config:
        queries = prepare_bank(bench_config, bank_size)
        port = free_port()
        with running(our_server(bench_config, port), port) as server:
            mix = dict(photos=photos, photo_share=photo_share, unique_photos=unique_photos)
            drive(port, queries, clients, duration_s=min(15.0, duration_s / 4), **mix)
            rss_warm = rss_bytes(server.pid)
            result = drive(port, queries, clients, duration_s=duration_s, **mix)
            rss_end = rss_bytes(server.pid)
        log = AskLog(Store(bench_config.db_path))
        missing = 0
        for ask_id in result.ask_ids:
            try:
                log.get(ask_id)
            except UnknownAskError:
                missing += 1
        log.store.close()
    return {
        **result.summary(), "duration_s": duration_s, "photo_share": photo_share, "unique_photos": unique_photos,
        "acknowledged": len(result.ask_ids), "missing_from_log": missing,
        "rss_after_warmup_mb": round(rss_warm / 2**20, 1), "rss_end_mb": round(rss_end / 2**20, 1),
        "rss_growth_pct": round(100 * (rss_end - rss_warm) / rss_warm, 1),
    }
