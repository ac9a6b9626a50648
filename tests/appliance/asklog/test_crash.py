"""SIGKILL in the middle of a burst of asks: every acknowledged ask is in the log."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from appliance.asklog.log import AskLog
from appliance.db.store import Store

CHILD = textwrap.dedent("""
    import sys, threading
    from appliance.config import load_config
    from appliance.ask.service import AskService

    service = AskService.open(load_config())
    print("ready", flush=True)
    lock = threading.Lock()

    def burst(worker):
        for i in range(100000):
            text = f"学生{worker}的第{i}个问题：解方程 2x + 3 = 13"
            card = service.ask(text, client=f"w{worker}")
            with lock:  # acknowledged: the answer is back, so the row must be durable
                print(f"{card.ask_id}\\t{text}", flush=True)

    for w in range(4):
        threading.Thread(target=burst, args=(w,), daemon=True).start()
    threading.Event().wait()
""")


@pytest.mark.slow
def test_sigkill_during_a_burst_loses_no_acknowledged_ask(config):
    env = {**os.environ, "EDUQA_DATA_DIR": str(config.data_dir)}
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=env)
    acknowledged = {}
    try:
        assert child.stdout.readline().strip() == "ready"
        while len(acknowledged) < 150:
            line = child.stdout.readline()
            assert line, "child died before the kill"
            ask_id, text = line.rstrip("\n").split("\t")
            acknowledged[int(ask_id)] = text
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    log = AskLog(Store(config.db_path))  # "restart": a fresh process-level open of the file
    for ask_id, text in acknowledged.items():
        assert log.get(ask_id)["question"] == text
    integrity = log.store.query("PRAGMA integrity_check")[0][0]
    assert integrity == "ok"
