"""The systemd units: ``systemd-analyze verify`` clean, the hardening and ordering asked for.

``verify`` checks that every ExecStart binary exists, so the units are verified inside a
throw-away root (``--root``): a copy of the host's stock units (for sysinit.target and
friends) plus an executable stub at each ExecStart path. ``verify`` exits 0 even on an
unknown key or an unparsable value, printing a warning; any output about our units is
therefore a failure too. A deliberately broken unit shows the check can fail.
"""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

from tests.needs import skip_missing

from tests.system.conftest import REPO, require_tool

UNIT_DIR = REPO / "systemd"
UNITS = ["eduqa.service", "eduqa-engines.service", "eduqa-backup.service", "eduqa-backup.timer"]
HOST_UNITS = [Path("/usr/lib/systemd/system"), Path("/lib/systemd/system")]


def read_unit(name: str) -> dict[str, dict[str, list[str]]]:
    """Sections → key → every value (systemd allows a key to repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    for raw in (UNIT_DIR / name).read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def make_root(tmp_path: Path, units: dict[str, str]) -> Path:
    root = tmp_path / "root"
    host = next((p for p in HOST_UNITS if (p / "sysinit.target").exists()), None)
    if host is None:
        skip_missing("systemd", "apt-get install -y systemd; .ci/run installs it")
    (root / "usr/lib/systemd").mkdir(parents=True)
    shutil.copytree(host, root / "usr/lib/systemd/system", symlinks=True)
    (root / "etc/systemd/system").mkdir(parents=True)
    for name, text in units.items():
        (root / "etc/systemd/system" / name).write_text(text)
        for command in re.findall(r"^Exec\w+=[-+!@:]*(\S+)", text, flags=re.M):
            stub = root / command.lstrip("/")
            stub.parent.mkdir(parents=True, exist_ok=True)
            stub.write_text("#!/bin/sh\nexit 0\n")
            stub.chmod(0o755)
    return root


def verify(root: Path, names: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(["systemd-analyze", "verify", f"--root={root}", *names],
                          capture_output=True, text=True, cwd=root)


def problems(result: subprocess.CompletedProcess, names: list[str]) -> list[str]:
    lines = (result.stdout + result.stderr).splitlines()
    return [line for line in lines if any(name in line for name in names)] + (
        [f"exit status {result.returncode}"] if result.returncode else [])


def test_every_unit_passes_systemd_analyze_verify(tmp_path):
    require_tool("systemd-analyze", "systemd")
    root = make_root(tmp_path, {name: (UNIT_DIR / name).read_text() for name in UNITS})
    result = verify(root, UNITS)
    assert problems(result, UNITS) == [], result.stdout + result.stderr


def test_the_verify_check_catches_a_broken_unit(tmp_path):
    require_tool("systemd-analyze", "systemd")
    text = (UNIT_DIR / "eduqa.service").read_text().replace("WatchdogSec=30s", "WatchdogSec=thirty\nBogusKey=1")
    root = make_root(tmp_path, {"eduqa.service": text})
    found = problems(verify(root, ["eduqa.service"]), ["eduqa.service"])
    assert any("BogusKey" in line for line in found) and any("thirty" in line for line in found), found
    # and a missing ExecStart binary
    (root / "opt/eduqa/venv/bin/eduqa").unlink()
    assert problems(verify(root, ["eduqa.service"]), ["eduqa.service"])


def test_security_exposure_is_low(tmp_path):
    require_tool("systemd-analyze", "systemd")
    root = make_root(tmp_path, {name: (UNIT_DIR / name).read_text() for name in UNITS})
    for name in UNITS[:3]:
        out = subprocess.run(["systemd-analyze", "security", "--offline=true", f"--root={root}", name],
                             capture_output=True, text=True, cwd=root)
        match = re.search(r"Overall exposure level for \S+: ([\d.]+)", out.stdout + out.stderr)
        assert match, out.stdout + out.stderr
        # systemd rates < 3 "OK"; an unhardened service scores 9.6.
        assert float(match.group(1)) < 3.0, f"{name}: {match.group(0)}"


def test_daemon_unit_is_notify_with_watchdog_restart_and_hardening():
    unit = read_unit("eduqa.service")
    service = unit["Service"]
    assert service["Type"] == ["notify"]
    assert service["WatchdogSec"] and service["Restart"] == ["on-failure"]
    assert service["ExecStart"] == ["/opt/eduqa/venv/bin/eduqa serve"]
    assert service["User"] == ["eduqa"]
    for key in ("NoNewPrivileges", "ProtectHome", "PrivateTmp"):
        assert service[key] == ["yes"], key
    assert service["ProtectSystem"] == ["strict"]
    assert service["ReadWritePaths"] == ["/var/lib/eduqa"]
    assert service["DevicePolicy"] == ["closed"]
    # the names /proc/devices shows on an H200 box (driver 5xx/6xx): 195 nvidia, 195 nvidiactl,
    # 238 nvidia-uvm, 241 nvidia-caps
    allowed = {d.split()[0] for d in service["DeviceAllow"]}
    assert {"char-nvidia", "char-nvidiactl", "char-nvidia-uvm", "char-nvidia-caps"} <= allowed
    assert unit["Service"]["DeviceAllow"] == read_unit("eduqa-engines.service")["Service"]["DeviceAllow"]
    assert service["MemoryMax"]
    # The engine build must not keep the daemon down: Wants=, never Requires=/BindsTo=.
    assert "eduqa-engines.service" in " ".join(unit["Unit"]["Wants"])
    assert "eduqa-engines.service" in " ".join(unit["Unit"]["After"])
    assert "Requires" not in unit["Unit"] and "BindsTo" not in unit["Unit"]


def test_engine_unit_is_a_long_oneshot_before_the_daemon():
    unit = read_unit("eduqa-engines.service")
    assert unit["Service"]["Type"] == ["oneshot"]
    assert unit["Service"]["ExecStart"] == ["/opt/eduqa/venv/bin/eduqa engines ensure"]
    assert "eduqa.service" in unit["Unit"]["Before"]
    timeout = unit["Service"]["TimeoutStartSec"][0]
    assert timeout.endswith("min") and int(timeout[:-3]) >= 30


def test_engine_unit_is_pulled_in_by_the_daemon_as_docs_operations_says():
    """docs/OPERATIONS.md: the engine check runs on every box (no start condition), is not
    enabled itself (no [Install]: eduqa.service Wants= it and starts After= it), and
    restarting it does not restart the daemon (nothing binds the daemon to it)."""
    engines, daemon = read_unit("eduqa-engines.service"), read_unit("eduqa.service")
    assert not [key for key in engines["Unit"] if key.startswith(("Condition", "Assert"))]
    assert "Install" not in engines
    assert "eduqa-engines.service" in daemon["Unit"]["Wants"][0].split()
    assert "eduqa-engines.service" in daemon["Unit"]["After"][0].split()
    for binding in ("Requires", "BindsTo", "PartOf", "Requisite"):
        assert not any("eduqa-engines" in v for v in daemon["Unit"].get(binding, [])), binding
    assert "PropagatesReloadTo" not in engines["Unit"] and "PartOf" not in engines["Unit"]


def test_backup_timer_runs_the_backup_service_nightly_and_catches_up():
    timer = read_unit("eduqa-backup.timer")["Timer"]
    assert timer["OnCalendar"] == ["*-*-* 02:30:00"] and timer["Persistent"] == ["true"]
    service = read_unit("eduqa-backup.service")["Service"]
    assert service["Type"] == ["oneshot"] and service["ExecStart"] == ["/opt/eduqa/venv/bin/eduqa backup"]
    assert service["User"] == ["eduqa"] and service["ReadWritePaths"] == ["/var/lib/eduqa"]


def test_units_parse_as_ini():
    for name in UNITS:  # no duplicate sections, no stray text
        parser = configparser.ConfigParser(strict=False, interpolation=None)
        parser.optionxform = str
        parser.read_string((UNIT_DIR / name).read_text())
        assert parser.sections()
