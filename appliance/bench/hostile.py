"""``eduqa loadtest --hostile``: honest students and attackers at once, on loopback.

One daemon (its real rate limits, lockout and queues) runs as its own process on
127.0.0.1. Client addresses are simulated with X-Forwarded-For, which uvicorn trusts from
127.0.0.1 only. Phases, back to back on the same daemon:

1. warm-up: honest text and photo asks (the OCR models reach their working memory);
2. calm: ``clients`` honest text clients and ``photo_clients`` honest photo clients for
   ``duration_s`` (the baseline);
3. hostile: the same honest clients, plus attackers that send, in turn, lone surrogates,
   1 MB of text, 100,000-deep JSON, non-ASCII and wrong ask tokens, decompression bombs,
   huge blank images, cross-site posts, anonymous reads of a path on the box, upload
   floods and login floods; the honest photo clients go on asking by photo;
4. overload: ``overload_clients`` asks sent at the same instant, each on its own
   connection: those that cannot be answered within the deadline must get 503 +
   Retry-After at once (their latency is reported);
5. crash: honest asks for a few seconds, ``kill -9`` of the daemon in the middle, then
   every ask any phase got a card for is looked up in the database.

Reports, for honest asks, answered / 5xx / 503 / 429 / dropped and p50/p99 in each phase;
per attack, the status codes it got and how long the refusals took; the daemon's memory
after warm-up and at the end of the hostile phase.
"""

from __future__ import annotations

import dataclasses
import http.client
import io
import json
import os
import random
import signal
import string
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from appliance.bench.serving import (
    free_port, our_server, prepare_bank, rss_bytes, running,
)
from appliance.config import Config

WARMUP_S = 15.0
CRASH_PHASE_S = 8.0


@dataclass
class HonestTally:
    statuses: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)
    ask_ids: list[int] = field(default_factory=list)

    def summary(self) -> dict:
        ordered = sorted(self.latencies_ms)

        def pct(q):
            return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 1) if ordered else None

        sent = sum(self.statuses.values())
        return {"sent": sent, "answered": self.statuses.get(200, 0),
                "answered_pct": round(100 * self.statuses.get(200, 0) / sent, 3) if sent else None,
                "statuses": {str(k): v for k, v in sorted(self.statuses.items(), key=lambda kv: str(kv[0]))},
                "p50_ms": pct(0.5), "p99_ms": pct(0.99)}


@dataclass
class AttackTally:
    statuses: dict[str, Counter] = field(default_factory=dict)
    refusal_ms: dict[str, list[float]] = field(default_factory=dict)

    def add(self, kind: str, status, ms: float) -> None:
        self.statuses.setdefault(kind, Counter())[str(status)] += 1
        if isinstance(status, int) and 400 <= status < 500 or status == 503:
            self.refusal_ms.setdefault(kind, []).append(ms)

    def summary(self) -> dict:
        out = {}
        for kind, counts in sorted(self.statuses.items()):
            ms = sorted(self.refusal_ms.get(kind, []))
            out[kind] = {"sent": sum(counts.values()), "statuses": dict(counts),
                         "refusal_p99_ms": round(ms[int(0.99 * (len(ms) - 1))], 1) if ms else None}
        return out


# -- payloads ----------------------------------------------------------------------------------
def _png(image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def make_payloads(tmp: Path) -> dict[str, bytes]:
    from PIL import Image, ImageDraw, ImageFont

    question = Image.new("L", (900, 200), 255)
    ImageDraw.Draw(question).text((30, 80), "2x + 3 = 13", fill=0)
    secret = tmp / "secret.png"
    secret.write_bytes(_png(question))
    page = Image.new("L", (3000, 4000), 255)  # a phone photo's size, a question in big print
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=120)
    for y, line in zip(range(600, 3600, 500), ("Solve the equation", "2x + 3 = 13", "for x.")):
        draw.text((300, y), line, fill=0, font=font)
    phone = io.BytesIO()
    page.convert("RGB").save(phone, format="JPEG", quality=85)
    return {
        "honest_photo": phone.getvalue(),
        "huge_blank": _png(Image.new("L", (6300, 6300), 255)),  # just under 40 MP, ~128 kB
        "bomb": _png(Image.new("1", (20000, 20000), 1)),  # 400 MP claimed, refused by header
        "secret_path": str(secret).encode(),
    }


def _multipart(data: bytes, field_name: str = "photo", filename: str = "q.png") -> tuple[bytes, str]:
    boundary = "eduqa-hostile-" + "".join(random.choices(string.ascii_lowercase, k=12))
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field_name}\"; filename=\"{filename}\"\r\n"
            f"Content-Type: image/png\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def attack_request(kind: str, payloads: dict, rng: random.Random, ask_id: int) -> tuple[str, str, bytes, dict]:
    """(method, path, body, headers) for one attack of ``kind``."""
    js = {"content-type": "application/json"}
    if kind == "lone_surrogate":
        return "POST", "/api/v1/ask", b'{"text": "\\ud800 2x + 3 = 13 \\udfff"}', js
    if kind == "megabyte_text":
        return "POST", "/api/v1/ask", json.dumps({"text": "9" * 1_000_000}).encode(), js
    if kind == "nested_json":
        return "POST", "/api/v1/ask", b"[" * 100_000 + b"]" * 100_000, js
    if kind == "bad_token":
        token = urllib.parse.quote("é")
        return "GET", f"/api/v1/asks/{ask_id}?token={token}", b"", {}
    if kind == "wrong_token_feedback":
        return "POST", f"/api/v1/asks/{ask_id}/feedback", json.dumps({"feedback": "down", "token": "é" * 32}).encode(), js
    if kind in ("bomb", "huge_blank"):
        body, ctype = _multipart(payloads[kind] + rng.randbytes(8) if kind == "huge_blank" else payloads[kind])
        return "POST", "/api/v1/ask", body, {"content-type": ctype}
    if kind == "cross_site":
        return "POST", "/api/v1/ask", json.dumps({"text": "水的沸点是多少"}).encode(), {
            **js, "origin": "http://evil.example", "sec-fetch-site": "cross-site"}
    if kind == "path_read":
        file_data = {"path": payloads["secret_path"].decode(), "meta": {"_type": "gradio.FileData"}}
        body = {"data": ["", file_data, "en"], "fn_index": 0, "session_hash": "hostile", "event_data": None}
        return "POST", "/gradio_api/queue/join", json.dumps(body).encode(), js
    if kind == "upload_flood":
        body, ctype = _multipart(rng.randbytes(2**20), "files", "x.png")
        return "POST", "/gradio_api/upload", body, {"content-type": ctype}
    if kind == "login_flood":
        form = urllib.parse.urlencode({"username": rng.choice(["admin", "ａｄｍｉｎ", "ADMIN", "alice"]),
                                       "password": "".join(rng.choices(string.ascii_letters, k=12))})
        return "POST", "/teacher/login", form.encode(), {"content-type": "application/x-www-form-urlencoded"}
    raise ValueError(kind)


ATTACKS = ("lone_surrogate", "megabyte_text", "nested_json", "bad_token", "wrong_token_feedback", "bomb",
           "huge_blank", "cross_site", "path_read", "upload_flood", "login_flood")


# -- clients -----------------------------------------------------------------------------------
def _send(conn, method, path, body, headers) -> tuple[int, bytes]:
    conn.request(method, path, body=body or None, headers=headers)
    response = conn.getresponse()
    return response.status, response.read()


class Phase:
    _count = 0

    def __init__(self, port: int, seconds: float):
        self.port = port
        self.stop_at = time.monotonic() + seconds
        self.lock = threading.Lock()
        Phase._count += 1
        self.number = Phase._count

    def running(self) -> bool:
        return time.monotonic() < self.stop_at


def _letters(n: int) -> str:
    out = ""
    while True:
        n, r = divmod(n, 26)
        out = string.ascii_lowercase[r] + out
        if n == 0:
            return out


def honest_text(phase: Phase, n: int, queries: list[str], tally: HonestTally) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", phase.port, timeout=60)
    address = f"10.1.{n // 250}.{n % 250 + 1}"
    i = n * 7919
    while phase.running():
        i += 1
        # A tag of letters makes every ask new to the answer cache (no phase is helped by
        # what an earlier one left there) without adding numbers to the question.
        tag = _letters(phase.number * 10**7 + n * 10**5 + i % 10**5)
        body = json.dumps({"text": f"{queries[i % len(queries)]} {tag}"}).encode()
        headers = {"content-type": "application/json", "x-forwarded-for": address}
        started = time.perf_counter()
        try:
            status, payload = _send(conn, "POST", "/api/v1/ask", body, headers)
        except OSError:
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", phase.port, timeout=60)
            status, payload = "dropped", b""
            time.sleep(0.05)
        ms = (time.perf_counter() - started) * 1000
        with phase.lock:
            tally.statuses[status] += 1
            if status == 200:
                tally.latencies_ms.append(ms)
                tally.ask_ids.append(json.loads(payload)["ask_id"])
    conn.close()


def honest_photo(phase: Phase, n: int, photo: bytes, tally: HonestTally, pause_s: float = 2.0) -> None:
    rng = random.Random()  # unseeded: no phase re-sends another phase's bytes (OCR cache)
    address = f"10.2.0.{n + 1}"
    while phase.running():
        conn = http.client.HTTPConnection("127.0.0.1", phase.port, timeout=60)
        body, ctype = _multipart(photo + rng.randbytes(8))  # new to the OCR cache every time
        started = time.perf_counter()
        try:
            status, payload = _send(conn, "POST", "/api/v1/ask", body, {"content-type": ctype, "x-forwarded-for": address})
        except OSError:
            status, payload = "dropped", b""
        conn.close()
        with phase.lock:
            tally.statuses[status] += 1
            if status == 200:
                tally.latencies_ms.append((time.perf_counter() - started) * 1000)
                tally.ask_ids.append(json.loads(payload)["ask_id"])
        time.sleep(pause_s)


def attacker(phase: Phase, n: int, kinds: tuple[str, ...], payloads: dict, tally: AttackTally,
             pause_s: float, known_ask: list[int]) -> None:
    rng = random.Random(1000 + n)
    address = f"10.66.0.{n + 1}"
    i = 0
    while phase.running():
        kind = kinds[i % len(kinds)]
        i += 1
        method, path, body, headers = attack_request(kind, payloads, rng, known_ask[0] if known_ask else 1)
        conn = http.client.HTTPConnection("127.0.0.1", phase.port, timeout=60)
        started = time.perf_counter()
        try:
            status, _ = _send(conn, method, path, body, {**headers, "x-forwarded-for": address})
        except OSError:
            status = "dropped"
        conn.close()
        with phase.lock:
            tally.add(kind, status, (time.perf_counter() - started) * 1000)
        time.sleep(pause_s)


def overload_burst(port: int, n: int, queries: list[str]) -> dict:
    """``n`` asks released at once, each on its own connection, from one event loop (so
    the load generator's own threads do not blur the timings); what came back, how fast.
    The loop is uvloop's: on asyncio's own loop the generator's bookkeeping of a thousand
    connections doubled the refusal times it measured (BENCHMARKS.md, "Hostile soak")."""
    import asyncio

    import uvloop

    async def one(i: int, go: asyncio.Event):
        body = json.dumps({"text": queries[(i * 31) % len(queries)]}).encode()
        head = (f"POST /api/v1/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"X-Forwarded-For: 10.3.{i // 250}.{i % 250 + 1}\r\nContent-Length: {len(body)}\r\n"
                f"Connection: close\r\n\r\n").encode()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return "dropped", 0.0, False
        await go.wait()
        started = time.perf_counter()
        try:
            writer.write(head + body)
            await writer.drain()
            status_line = await reader.readline()
            ms = (time.perf_counter() - started) * 1000
            rest = await reader.read()
            writer.close()
        except OSError:
            return "dropped", (time.perf_counter() - started) * 1000, False
        parts = status_line.split()
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else "bad"
        return status, ms, b"retry-after:" in rest.lower()

    async def burst():
        go = asyncio.Event()
        tasks = [asyncio.create_task(one(i, go)) for i in range(n)]
        await asyncio.sleep(2.0)  # every connection open
        go.set()
        return await asyncio.gather(*tasks)

    results = uvloop.run(burst())
    statuses = Counter(str(s) for s, _, _ in results)
    shed = sorted(ms for s, ms, _ in results if s == 503)
    answered = sorted(ms for s, ms, _ in results if s == 200)

    def pct(values, q):
        return round(values[min(len(values) - 1, int(round(q * (len(values) - 1))))], 1) if values else None

    return {"clients": n, "statuses": dict(statuses),
            "shed_with_retry_after": sum(1 for s, _, r in results if s == 503 and r),
            "shed_p50_ms": pct(shed, 0.5), "shed_p99_ms": pct(shed, 0.99), "shed_max_ms": pct(shed, 1.0),
            "answered_p50_ms": pct(answered, 0.5), "answered_max_ms": pct(answered, 1.0)}


def _run_threads(targets: list[tuple]) -> None:
    threads = [threading.Thread(target=fn, args=args, daemon=True) for fn, *args in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


# -- the soak ------------------------------------------------------------------------------------
def soak_config(config: Config, tmp: Path) -> Config:
    """The daemon's own limits (rate, lockout, queues); only the data dir is fresh."""
    config.cache_dir.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "cache").symlink_to(config.cache_dir.resolve(), target_is_directory=True)
    return dataclasses.replace(config, data_dir=tmp)


def run_hostile_soak(config: Config, clients: int, duration_s: float, bank_size: int,
                     attackers: int = 6, attack_pause_s: float = 0.2, photo_clients: int = 2,
                     overload_clients: int = 1000) -> dict:
    import tempfile

    from appliance.asklog.log import AskLog, UnknownAskError
    from appliance.db.store import Store

    with tempfile.TemporaryDirectory(prefix="eduqa-hostile-") as tmp_name:
        tmp = Path(tmp_name)
        soak = soak_config(config, tmp / "data")
        queries = prepare_bank(soak, bank_size)
        payloads = make_payloads(tmp)
        port = free_port()
        calm, hostile, crash, photos, calm_photos = (HonestTally() for _ in range(5))
        attacks = AttackTally()
        with running(our_server(soak, port), port) as server:
            warm = Phase(port, min(WARMUP_S, duration_s / 4))
            _run_threads([(honest_text, warm, n, queries, HonestTally()) for n in range(clients)]
                         + [(honest_photo, warm, n, payloads["honest_photo"], HonestTally())
                            for n in range(photo_clients)])
            rss_warm = rss_bytes(server.pid)
            calm_phase = Phase(port, duration_s)
            _run_threads([(honest_text, calm_phase, n, queries, calm) for n in range(clients)]
                         + [(honest_photo, calm_phase, n, payloads["honest_photo"], calm_photos)
                            for n in range(photo_clients)])
            rss_calm = rss_bytes(server.pid)
            known = calm.ask_ids[:1]
            hostile_phase = Phase(port, duration_s)
            kinds = [ATTACKS[n::attackers] or ATTACKS for n in range(attackers)]
            _run_threads(
                [(honest_text, hostile_phase, n, queries, hostile) for n in range(clients)]
                + [(honest_photo, hostile_phase, n, payloads["honest_photo"], photos) for n in range(photo_clients)]
                + [(attacker, hostile_phase, n, tuple(kinds[n]), payloads, attacks, attack_pause_s, known)
                   for n in range(attackers)])
            rss_end = rss_bytes(server.pid)
            overload = overload_burst(port, overload_clients, queries) if overload_clients else None
            crash_phase = Phase(port, CRASH_PHASE_S)
            killer = threading.Timer(CRASH_PHASE_S / 2, os.kill, args=(server.pid, signal.SIGKILL))
            killer.start()
            _run_threads([(honest_text, crash_phase, n, queries, crash) for n in range(clients)])
            killer.join()
            server.wait(timeout=30)
        acknowledged = calm.ask_ids + calm_photos.ask_ids + hostile.ask_ids + photos.ask_ids + crash.ask_ids
        log = AskLog(Store(soak.db_path))
        missing = 0
        for ask_id in acknowledged:
            try:
                log.get(ask_id)
            except UnknownAskError:
                missing += 1
        log.store.close()
    attack_sent = sum(sum(c.values()) for c in attacks.statuses.values())
    honest_sent = sum(hostile.statuses.values()) + sum(photos.statuses.values())
    calm_p99, hostile_p99 = calm.summary()["p99_ms"], hostile.summary()["p99_ms"]
    return {
        "clients": clients, "duration_s": duration_s, "attackers": attackers, "photo_clients": photo_clients,
        "calm_text": calm.summary(), "calm_photo": calm_photos.summary(), "hostile_text": hostile.summary(), "hostile_photo": photos.summary(),
        "p99_ratio_hostile_over_calm": round(hostile_p99 / calm_p99, 2) if calm_p99 and hostile_p99 else None,
        "abusive_share_pct": round(100 * attack_sent / max(1, attack_sent + honest_sent), 1),
        "attacks": attacks.summary(),
        "overload": overload, "crash_phase_text": crash.summary(), "acknowledged": len(acknowledged), "missing_from_log": missing,
        "rss_after_warmup_mb": round(rss_warm / 2**20, 1), "rss_after_calm_mb": round(rss_calm / 2**20, 1),
        "rss_end_mb": round(rss_end / 2**20, 1), "rss_growth_pct": round(100 * (rss_end - rss_warm) / rss_warm, 1),
    }
