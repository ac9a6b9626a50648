"""A full disk under the daemon: asks are refused with a clear 503, the daemon stays up and
answers again once there is room, no acknowledged ask is lost, the database stays intact.

The data dir is a small tmpfs (root only); the exported models stay on the real disk
through the ``cache`` link, as the daemon's model cache would on a second disk.
"""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from appliance.bench.serving import free_port, running
from tests.system.conftest import REPO, fill, get, link_model_cache, post_ask, serve_command

pytestmark = pytest.mark.slow


def test_full_disk_refuses_asks_clearly_and_the_daemon_survives(small_disk, model_cache):
    data = small_disk / "data"
    data.mkdir()
    link_model_cache(data, model_cache)
    port = free_port()
    command = serve_command(data, port)
    acknowledged: dict[int, str] = {}
    with running(command, port, env={"PYTHONPATH": str(REPO)}) as server:
        for i in range(5):
            text = f"磁盘测试{i}：解方程 2x + 3 = 13"
            status, card = post_ask(port, text)
            assert status == 200, card
            acknowledged[card["ask_id"]] = text
        filler = small_disk / "filler"
        assert fill(filler) > 0

        refused = None
        for i in range(3000):  # the WAL may still have room for a few commits
            text = f"满盘{i}：解方程 2x + {i} = 13"
            status, body = post_ask(port, text)
            if status == 200:
                acknowledged[body["ask_id"]] = text
                continue
            refused = (status, body)
            break
        assert refused is not None, "asks were still stored with the disk full"
        status, body = refused
        assert status == 503, body
        assert "could not be saved" in body["detail"] and "full" in body["detail"], body
        # The daemon is up, says it cannot write, and keeps refusing cleanly.
        assert server.poll() is None
        assert get(port, "/healthz")[0] == 200
        ready_status, ready_body = get(port, "/readyz")
        ready = json.loads(ready_body)
        assert ready_status == 503 and ready["ready"] is False, ready  # no room: not ready
        assert ready["disk_free_mb"] < 8, ready
        assert post_ask(port, "再问一次：解方程 2x + 3 = 13")[0] == 503
        metrics = get(port, "/metrics")[1].decode()
        assert re.search(r'eduqa_asks_rejected_total\{reason="store"\} [1-9]', metrics), "not visible in /metrics"
        assert b"Traceback" not in server.stderr.read()

        filler.unlink()  # room again: the same daemon answers and stores asks
        status, card = post_ask(port, "空间恢复：解方程 2x + 3 = 13")
        assert status == 200, card
        acknowledged[card["ask_id"]] = "空间恢复：解方程 2x + 3 = 13"
        assert get(port, "/readyz")[0] == 200
    with sqlite3.connect(data / "eduqa.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = dict(conn.execute("SELECT id, question FROM asks").fetchall())
    for ask_id, text in acknowledged.items():
        assert stored.get(ask_id) == text
