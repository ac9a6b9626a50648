"""Helpers for the system tests: root-only tools, a daemon on a chosen data dir, HTTP asks."""

from __future__ import annotations

import errno
import http.client
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.needs import skip_missing

REPO = Path(__file__).resolve().parents[2]


def require_root(what: str) -> None:
    if os.geteuid() != 0:
        skip_missing("root", "run the tests as root, as .ci/run does")


def require_tool(tool: str, package: str | None = None) -> str:
    path = shutil.which(tool)
    if path is None:
        skip_missing(tool, f"apt-get install -y {package or tool}")
    return path


def serve_command(data_dir: Path, port: int, config: Path | None = None) -> list[str]:
    """``eduqa serve`` as the CI runs it: this interpreter, this checkout."""
    command = [sys.executable, "-m", "appliance.cli"]
    if config is not None:
        command += ["--config", str(config)]
    return command + ["--data-dir", str(data_dir), "serve", "--port", str(port)]


def link_model_cache(data_dir: Path, model_cache: Path) -> None:
    """Share the session's exported models (the data dir's ``cache/``) with a new data dir."""
    link = data_dir / "cache"
    if not link.exists():
        link.symlink_to(model_cache, target_is_directory=True)


def post_ask(port: int, text: str, timeout: float = 60.0) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/api/v1/ask", body=json.dumps({"text": text}).encode(),
                     headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        raw = response.read()
        try:
            return response.status, json.loads(raw or b"{}")
        except ValueError:  # e.g. a bare "Internal Server Error"
            return response.status, {"detail": raw.decode(errors="replace")}
    finally:
        conn.close()


def get(port: int, path: str, timeout: float = 30.0) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.fixture
def eduqa_cli():
    """The main click group with the backup/restore commands registered (as the lead will)."""
    from appliance.cli import main
    from appliance.ops.cli import backup_command, restore_command

    main.add_command(backup_command)
    main.add_command(restore_command)
    return main


@pytest.fixture
def small_disk(tmp_path):
    """A 16 MB tmpfs (root only), unmounted afterwards."""
    require_root("mounting a tmpfs")
    require_tool("mount", "mount")
    mountpoint = tmp_path / "small-disk"
    mountpoint.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0755", "tmpfs", str(mountpoint)]).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], check=False)


def fill(path) -> int:
    """Write ``path`` until the file system says ENOSPC; returns the bytes written."""
    written = 0
    with open(path, "wb", buffering=0) as fh:
        for size in (1 << 20, 1 << 16, 1 << 12, 1 << 9, 1):
            chunk = b"\0" * size
            while True:
                try:
                    written += fh.write(chunk)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    return written
