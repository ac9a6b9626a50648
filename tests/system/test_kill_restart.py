"""The daemon killed with SIGKILL in the middle of a burst of HTTP asks, then started again
on the same data dir (as systemd's Restart=on-failure would): every ask that got a 200
is served back by the new daemon, and the database is intact.

(tests/appliance/asklog/test_crash.py kills an in-process service; this goes through
``eduqa serve``, the HTTP API and a real restart.)
"""

from __future__ import annotations

import json
import signal
import sqlite3
import threading
import time

import pytest

from appliance.bench.serving import drive, free_port, running
from tests.system.conftest import get, serve_command

pytestmark = pytest.mark.slow


def test_sigkill_then_restart_serves_every_acknowledged_ask(config, tmp_path):
    config_file = tmp_path / "eduqa.toml"  # the burst comes from one address: no rate limit
    config_file.write_text("[serving]\nrate_per_minute = 1000000\nrate_burst = 1000000\n")
    queries = [f"断电测试{i}：解方程 2x + {i % 30} = 13" for i in range(3000)]
    port = free_port()
    results = []
    with running(serve_command(config.data_dir, port, config_file), port) as server:
        load = threading.Thread(target=lambda: results.append(drive(port, queries, clients=8, requests=len(queries))))
        load.start()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            time.sleep(0.5)
            # logged asks may not have been answered yet: at most one per client (8) is in
            # flight, so 120 logged means at least 112 answered before the kill
            if _asks_logged(config.data_dir) >= 120:
                break
        server.send_signal(signal.SIGKILL)
        assert server.wait(timeout=30) == -signal.SIGKILL
        load.join()
    result = results[0]
    assert result.ok >= 100, "the burst did not get going before the kill"
    assert result.ok < len(queries), "the kill came after the burst"

    port = free_port()
    with running(serve_command(config.data_dir, port, config_file), port):
        for ask_id in result.ask_ids:
            status, body = get(port, f"/api/v1/asks/{ask_id}?token={result.ask_tokens[ask_id]}")
            assert status == 200, (ask_id, body)
            assert json.loads(body)["question"].startswith("断电测试")
    with sqlite3.connect(config.data_dir / "eduqa.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def _asks_logged(data_dir) -> int:
    try:
        with sqlite3.connect(f"file:{data_dir / 'eduqa.db'}?mode=ro", uri=True, timeout=5) as conn:
            return conn.execute("SELECT count(*) FROM asks").fetchone()[0]
    except sqlite3.Error:
        return 0
