"""A live daemon (JSON API + web pages) on 127.0.0.1 for the page tests, Debian's
chromium driven by Playwright, and a guard that fails the test if the server process
opens any connection that is not to the loopback address."""

from __future__ import annotations

import dataclasses
import os
import shutil
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.needs import missing, skip_missing

import ui  # noqa: F401  (Gradio offline settings before Gradio is imported)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TEACHER, PASSWORD = "alice", "correct-horse-42"
#: Set to a folder (e.g. docs/screenshots) to keep the screenshots besides the tmp copy.
SCREENSHOTS_ENV = "EDUQA_SCREENSHOTS"


@dataclass
class LiveServer:
    url: str
    service: object
    mounted: object
    config: object
    outbound: list  # connection attempts to non-loopback addresses
    limiter: object = None  # the daemon's one per-address rate limiter


class OutboundGuard:
    """Refuse (and record) socket connections from this process to non-loopback hosts."""

    def __init__(self):
        self.attempts: list[str] = []
        self._connect = socket.socket.connect
        self._connect_ex = socket.socket.connect_ex

    @staticmethod
    def _loopback(address) -> bool:
        if isinstance(address, (str, bytes)):  # unix socket
            return True
        host = str(address[0])
        return host in ("localhost", "::1") or host.startswith("127.") or host == "::ffff:127.0.0.1"

    def __enter__(self):
        guard = self

        def connect(sock, address):
            if not guard._loopback(address):
                guard.attempts.append(str(address))
                raise OSError(f"test guard: outbound connection to {address} refused")
            return guard._connect(sock, address)

        def connect_ex(sock, address):
            if not guard._loopback(address):
                guard.attempts.append(str(address))
                return 111
            return guard._connect_ex(sock, address)

        socket.socket.connect = connect
        socket.socket.connect_ex = connect_ex
        return self

    def __exit__(self, *exc):
        socket.socket.connect = self._connect
        socket.socket.connect_ex = self._connect_ex


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def live_server(tmp_path_factory, model_cache):
    import uvicorn
    from argon2 import PasswordHasher

    from appliance import daemon
    from appliance.config import Config
    from appliance.teachers.accounts import TeacherAuth
    from appliance.ui_config import UiConfig

    data_dir = tmp_path_factory.mktemp("ui-data")
    (data_dir / "cache").symlink_to(model_cache, target_is_directory=True)
    config = dataclasses.replace(Config(), data_dir=data_dir)
    with OutboundGuard() as guard:
        def make_auth(store):
            auth = TeacherAuth.from_settings(store, UiConfig(login_max_failures=5),
                                             hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
            auth.accounts.add(TEACHER, PASSWORD)
            return auth

        built = daemon.build(config, make_auth=make_auth, progress=False)
        app, service, mounted = built.app, built.service, built.pages
        port = _free_port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 60
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)
        yield LiveServer(f"http://127.0.0.1:{port}", service, mounted, config, guard.attempts, built.limiter)
        server.should_exit = True
        thread.join(timeout=30)
    assert guard.attempts == [], f"the server tried to reach the network: {guard.attempts}"


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        skip_missing("chromium", "apt-get install -y chromium; .ci/run installs it")
    playwright = pytest.importorskip("playwright.sync_api", reason=missing("playwright", "pip install -e '.[test]'"))
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Shots:
    """Screenshots go to a tmp folder, and also to $EDUQA_SCREENSHOTS when set."""

    def __init__(self, folder: Path):
        self.folder = folder
        keep = os.environ.get(SCREENSHOTS_ENV)
        self.keep = Path(keep) if keep else None

    def take(self, page, name: str, full_page: bool = True) -> Path:
        path = self.folder / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        if self.keep:
            self.keep.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, self.keep / path.name)
        return path


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Shots:
    return Shots(tmp_path_factory.mktemp("screenshots"))
