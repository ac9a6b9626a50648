"""SIGTERM while a burst of asks is in flight: in-flight asks finish, nothing answered is lost."""

import signal
import sys
import threading
import time

import pytest

from appliance.asklog.log import AskLog
from appliance.bench.serving import drive, free_port, running
from appliance.db.store import Store


@pytest.mark.slow
def test_sigterm_drains_in_flight_asks_and_flushes_the_log(config):
    port = free_port()
    command = [sys.executable, "-m", "appliance.cli", "--data-dir", str(config.data_dir), "serve", "--port", str(port)]
    queries = [f"第{i}题：解方程 2x + 3 = 13" for i in range(100000)]
    with running(command, port) as server:
        results = []
        load = threading.Thread(target=lambda: results.append(drive(port, queries, clients=8, duration_s=20)))
        load.start()
        time.sleep(2.0)
        server.send_signal(signal.SIGTERM)
        # uvicorn shuts down gracefully, then re-raises the signal: exit by SIGTERM is normal.
        assert server.wait(timeout=60) in (0, -signal.SIGTERM)
        assert b"Finished server process" in server.stderr.read()
        load.join()
    result = results[0]
    assert result.ok > 20, "the burst did not get going before the signal"
    assert result.errors_5xx == 0
    log = AskLog(Store(config.db_path))
    for ask_id in result.ask_ids:
        assert log.get(ask_id)["question"].endswith("解方程 2x + 3 = 13")
    assert log.count() >= len(result.ask_ids)
