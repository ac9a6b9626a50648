"""sd_notify: a fake NOTIFY_SOCKET (a datagram socket in the test) receives READY=1,
WATCHDOG=1 and STOPPING=1; the watchdog goes quiet when the event loop is wedged."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from appliance.serve import sdnotify
from appliance.bench.serving import free_port
from tests.system.conftest import REPO, get, serve_command


class FakeSystemd:
    """The receiving end of NOTIFY_SOCKET; records (monotonic time, message) pairs."""

    def __init__(self, path: Path | None = None, abstract: str | None = None):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            self.sock.bind("\0" + abstract)
            self.address = "@" + abstract
        else:
            self.sock.bind(str(path))
            self.address = str(path)
        self.sock.settimeout(0.2)
        self.messages: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._receive, daemon=True)
        self._thread.start()

    def _receive(self) -> None:
        while not self._stop.is_set():
            try:
                data = self.sock.recv(4096)
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            self.messages.append((time.monotonic(), data.decode()))

    def lines(self) -> list[str]:
        return [line for _, m in self.messages for line in m.split("\n")]

    def wait_for(self, line: str, timeout: float = 30.0) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for at, message in list(self.messages):
                if line in message.split("\n"):
                    return at
            time.sleep(0.02)
        raise AssertionError(f"{line!r} not received; got {self.messages}")

    def times_of(self, line: str) -> list[float]:
        return [at for at, m in list(self.messages) if line in m.split("\n")]

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def fake_systemd(tmp_path):
    fake = FakeSystemd(tmp_path / "notify.sock")
    yield fake
    fake.close()


def test_messages_reach_the_socket(fake_systemd):
    env = {"NOTIFY_SOCKET": fake_systemd.address}
    assert sdnotify.ready("serving on 0.0.0.0:8080", environ=env)
    assert sdnotify.status("loading the encoder", environ=env)
    assert sdnotify.watchdog_ping(environ=env)
    assert sdnotify.extend_timeout(90, environ=env)
    assert sdnotify.stopping(environ=env)
    fake_systemd.wait_for("STOPPING=1")
    assert [m for _, m in fake_systemd.messages] == [
        f"READY=1\nMAINPID={os.getpid()}\nSTATUS=serving on 0.0.0.0:8080",
        "STATUS=loading the encoder", "WATCHDOG=1", "EXTEND_TIMEOUT_USEC=90000000",
        "STOPPING=1\nSTATUS=shutting down: finishing in-flight asks"]


def test_abstract_socket_address():
    fake = FakeSystemd(abstract=f"eduqa-test-{os.getpid()}")
    try:
        assert sdnotify.notify("READY=1", environ={"NOTIFY_SOCKET": fake.address})
        fake.wait_for("READY=1")
    finally:
        fake.close()


def test_outside_systemd_everything_is_a_quiet_no_op(tmp_path):
    assert sdnotify.notify("READY=1", environ={}) is False
    assert sdnotify.ready(environ={}) is False
    # a socket that is gone: logged, never raised (the daemon must not die for it)
    assert sdnotify.notify("READY=1", environ={"NOTIFY_SOCKET": str(tmp_path / "gone.sock")}) is False
    assert sdnotify.notify("READY=1", environ={"NOTIFY_SOCKET": "vsock:2:1234"}) is False
    assert sdnotify.Watchdog(environ={}).start() is False


def test_watchdog_interval_follows_systemd_environment():
    pid = str(os.getpid())
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 30.0
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": pid}) == 30.0
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "0"}) is None
    assert sdnotify.watchdog_interval({}) is None
    assert sdnotify.Watchdog(environ={"WATCHDOG_USEC": "30000000", "NOTIFY_SOCKET": "/x"}).interval_s == 15.0


def test_watchdog_pings_only_while_healthy(fake_systemd):
    healthy = threading.Event()
    healthy.set()
    env = {"NOTIFY_SOCKET": fake_systemd.address, "WATCHDOG_USEC": "100000"}  # 0.1 s → ping every 0.05 s
    dog = sdnotify.Watchdog(health=healthy.is_set, environ=env)
    assert dog.start()
    try:
        deadline = time.monotonic() + 10
        while dog.pings < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert dog.pings >= 4
        healthy.clear()
        time.sleep(0.1)
        sent = len(fake_systemd.times_of("WATCHDOG=1"))
        missed = dog.missed
        time.sleep(0.3)
        assert len(fake_systemd.times_of("WATCHDOG=1")) == sent, "pinged while unhealthy"
        assert dog.missed > missed
    finally:
        dog.stop()


def test_a_health_check_that_raises_is_unhealthy(fake_systemd):
    def broken() -> bool:
        raise RuntimeError("store gone")

    dog = sdnotify.Watchdog(health=broken, interval_s=1.0, environ={"NOTIFY_SOCKET": fake_systemd.address})
    assert dog.check_once() is False and dog.missed == 1 and dog.pings == 0


SERVER = textwrap.dedent("""
    import sys, time
    from fastapi import FastAPI
    from appliance.serve import sdnotify

    app = FastAPI()

    @app.get("/healthz")
    def healthz():
        return {"status": "alive"}

    @app.get("/wedge")
    async def wedge(seconds: float):
        time.sleep(seconds)  # blocks the event loop, as a hung daemon would
        return {"ok": True}

    sdnotify.serve_uvicorn(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
""")


def test_serve_uvicorn_ready_watchdog_and_stopping(fake_systemd):
    port = free_port()
    env = {**os.environ, "NOTIFY_SOCKET": fake_systemd.address, "WATCHDOG_USEC": "400000"}  # ping every 0.2 s
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], env=env, cwd=REPO,
                              stderr=subprocess.PIPE, text=True)
    try:
        fake_systemd.wait_for("READY=1")
        # READY means serving: the port answers at once
        assert get(port, "/healthz")[0] == 200
        ready = [m for _, m in fake_systemd.messages if "READY=1" in m][0]
        assert f"MAINPID={server.pid}" in ready and f"STATUS=serving on 127.0.0.1:{port}" in ready
        time.sleep(1.0)
        steady = fake_systemd.times_of("WATCHDOG=1")
        assert len(steady) >= 3
        # wedge the event loop for 2.5 s: the pings must stop meanwhile
        before = time.monotonic()
        assert get(port, "/wedge?seconds=2.5")[0] == 200
        after = time.monotonic()
        time.sleep(0.6)
        pings = fake_systemd.times_of("WATCHDOG=1")
        during = [t for t in pings if before + 1.2 < t < after - 0.1]
        assert during == [], "the watchdog pinged while the event loop was blocked"
        assert any(t > after for t in pings), "the watchdog did not resume"
        server.send_signal(signal.SIGTERM)
        fake_systemd.wait_for("STOPPING=1")
        assert server.wait(timeout=30) in (0, -signal.SIGTERM)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_serve_uvicorn_sends_no_ready_when_the_port_is_taken(fake_systemd):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "NOTIFY_SOCKET": fake_systemd.address}
        result = subprocess.run([sys.executable, "-c", SERVER, str(port)], env=env, cwd=REPO,
                                capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "READY=1" not in fake_systemd.lines()


@pytest.mark.slow
def test_eduqa_serve_notifies_systemd(fake_systemd, config):
    port = free_port()
    env = {**os.environ, "NOTIFY_SOCKET": fake_systemd.address, "WATCHDOG_USEC": "2000000"}
    server = subprocess.Popen(serve_command(config.data_dir, port), env=env, cwd=REPO,
                              stderr=subprocess.DEVNULL)
    try:
        fake_systemd.wait_for("READY=1", timeout=300)
        assert get(port, "/readyz")[0] == 200
        fake_systemd.wait_for("WATCHDOG=1", timeout=10)
        server.send_signal(signal.SIGTERM)
        fake_systemd.wait_for("STOPPING=1")
        server.wait(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
