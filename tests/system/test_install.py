"""install.sh for real, into a throw-away prefix, offline from a wheelhouse: install,
upgrade in place (data and config kept), uninstall (data kept), uninstall --purge.

Users: with ``--prefix`` the installer never creates users or calls systemctl. As root,
the test creates a throw-away system user (``eduqa-ci-<pid>``), installs with
``--user`` set to it, checks that the data belong to it and the config is root:<its group>
0640, and deletes the user at the end; without root it installs as the current user.
The prefix lives in a 0755 directory under /tmp so that user can reach it.

The wheelhouse is packed from the dev venv (tests/system/wheelhouse.py), so the test needs
no network; set ``EDUQA_TEST_WHEELHOUSE`` to a directory to reuse one between runs.
Takes about 2 minutes (the first install unpacks torch and friends into a fresh venv).
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.system.conftest import REPO

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    from tests.system.wheelhouse import build_wheelhouse

    reuse = os.environ.get("EDUQA_TEST_WHEELHOUSE")
    out = Path(reuse) if reuse else tmp_path_factory.mktemp("wheelhouse")
    build_wheelhouse(out)
    return out


@pytest.fixture
def base() -> Path:
    path = Path(tempfile.mkdtemp(prefix="eduqa-install-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def service_user() -> str | None:
    """A throw-away system user when root (None: install as the current user). Only with a
    system Python: another user cannot run a venv built on an interpreter under /root."""
    if os.geteuid() != 0 or shutil.which("useradd") is None or not system_python().startswith("/usr/"):
        yield None
        return
    name = f"eduqa-ci-{os.getpid()}"
    subprocess.run(["useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                   check=True)
    try:
        yield name
    finally:
        subprocess.run(["userdel", name], check=False)


def system_python() -> str:
    """The distribution's Python when it is 3.11+ (what a school box has; readable by any
    user), else this interpreter's base."""
    for candidate in ("/usr/bin/python3", "/usr/bin/python3.11", "/usr/bin/python3.12"):
        ok = Path(candidate).exists() and subprocess.run(
            [candidate, "-c", "import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))"],
            capture_output=True).returncode == 0
        if ok:
            return candidate
    return sys._base_executable


def installed_env(drop: str) -> dict[str, str]:
    """This environment less the variables starting with ``drop`` and less PYTHONPATH: with
    a checkout on PYTHONPATH (as the dev commands set it) the installed venv would import
    the checkout's code, and a broken installed package would go unseen."""
    return {k: v for k, v in os.environ.items() if not k.startswith(drop) and k != "PYTHONPATH"}


def install(prefix: Path, wheelhouse: Path | None, *args: str) -> subprocess.CompletedProcess:
    # Only the wheelhouse: no index, no find-links or constraints from the machine's pip config.
    env = installed_env("PIP_")
    env["PIP_CONFIG_FILE"] = os.devnull
    command = ["bash", str(REPO / "install.sh"), "--prefix", str(prefix), "--yes", *args]
    if wheelhouse is not None:
        command += ["--wheelhouse", str(wheelhouse), "--python", system_python()]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1200)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_install_upgrade_uninstall_in_a_throwaway_prefix(base, wheelhouse, service_user):
    prefix = base / "root"
    venv = prefix / "opt/eduqa/venv"
    conf = prefix / "etc/eduqa/eduqa.toml"
    data = prefix / "var/lib/eduqa"
    password = base / "pw"
    password.write_text("correct horse battery staple\n")
    user_args = ("--user", service_user) if service_user else ()
    uid = pwd.getpwnam(service_user).pw_uid if service_user else os.geteuid()
    gid = pwd.getpwnam(service_user).pw_gid if service_user else os.getegid()

    def eduqa(*args: str) -> subprocess.CompletedProcess:
        """The installed command on PATH (the wrapper with the installed config), as the service user."""
        env = installed_env("EDUQA_")
        command = [str(prefix / "usr/local/bin/eduqa"), *args]
        if service_user:
            command = ["runuser", "-u", service_user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, cwd=base)

    # 1. fresh install, no units
    first = install(prefix, wheelhouse, *user_args, "--no-systemd", "--port", "8123",
                    "--teacher", "alice", "--teacher-password-file", str(password))
    assert (venv / "bin/eduqa").exists()
    assert "eduqa is installed" in first.stdout
    assert "http://" in first.stdout and ":8123/" in first.stdout
    assert not (prefix / "etc/systemd").exists()
    assert f'data_dir = "{data}"' in conf.read_text() and "port = 8123" in conf.read_text()
    # ownership and modes: config root:<service group> 0640, data <service user> 0750
    assert (conf.stat().st_mode & 0o777, conf.stat().st_uid, conf.stat().st_gid) == (0o640, 0, gid) \
        or os.geteuid() != 0
    assert (data.stat().st_mode & 0o777, data.stat().st_uid) == (0o750, uid)
    assert (data / "eduqa.db").stat().st_uid == uid  # created by the installer's check, as that user
    assert grp.getgrgid(conf.parent.stat().st_gid).gr_gid == gid or os.geteuid() != 0
    # the installed package is not the checkout: no editable install, no path back to it
    site = subprocess.run([str(venv / "bin/python"), "-c", "import appliance; print(appliance.__file__)"],
                          capture_output=True, text=True, check=True, cwd=base, env=installed_env("EDUQA_")).stdout
    assert site.startswith(str(venv))
    assert "serve" in eduqa("--help").stdout
    # --teacher created the account through the installed CLI: it must be there to log in
    assert "not created" not in first.stderr, first.stderr
    teachers = eduqa("teacher", "list")
    assert teachers.returncode == 0, teachers.stdout + teachers.stderr
    assert "alice" in teachers.stdout.split()

    # data, and an admin's edit of the config, that the upgrade must keep
    bank = base / "bank.csv"
    bank.write_text("id,subject,grade,question,answer,knowledge_points,source\n"
                    "t-1,数学,7,1+1等于几,2,加法,test\n", encoding="utf-8")
    bank.chmod(0o644)
    imported = eduqa("kb", "import", str(bank))
    assert imported.returncode == 0, imported.stderr
    conf.write_text(conf.read_text() + "\n# edited by IT\n[bank]\ndemo_bank = false\n")
    edited = conf.read_text()

    # 2. upgrade in place, now with the units and a memory cap
    second = install(prefix, wheelhouse, *user_args, "--memory-max", "3G")
    assert "eduqa is upgraded" in second.stdout and "keeping the configuration" in second.stdout
    assert conf.read_text() == edited
    assert json.loads(eduqa("kb", "stats", "--json").stdout)["entries"] == 1
    units = prefix / "etc/systemd/system"
    service = (units / "eduqa.service").read_text()
    assert f"ExecStart={venv}/bin/eduqa serve" in service and f"ReadWritePaths={data}" in service
    assert f"User={service_user or pwd.getpwuid(uid).pw_name}" in service
    assert "MemoryMax=3G" in (units / "eduqa.service.d/10-memory.conf").read_text()
    if shutil.which("systemd-analyze"):  # the installed units (and the drop-in) point at real files
        verify = subprocess.run(["systemd-analyze", "verify", "eduqa.service", "eduqa-engines.service",
                                 "eduqa-backup.service", "eduqa-backup.timer"], capture_output=True, text=True,
                                cwd=base, env={**os.environ, "SYSTEMD_UNIT_PATH": f"{units}:"})
        assert verify.returncode == 0 and "eduqa" not in verify.stdout + verify.stderr, verify.stderr

    # 3. uninstall keeps config and data
    third = install(prefix, None, "--uninstall")
    assert not (prefix / "opt/eduqa").exists() and not (units / "eduqa.service").exists()
    assert not (prefix / "usr/local/bin/eduqa").exists()
    assert conf.read_text() == edited and (data / "eduqa.db").exists()
    assert "kept the configuration" in third.stdout
    with sqlite3.connect(data / "eduqa.db") as kept:  # the kept database is whole
        assert kept.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert kept.execute("SELECT id FROM kb_entries").fetchall() == [("t-1",)]

    # 4. --purge removes config and data too (never users: --prefix)
    install(prefix, None, "--uninstall", "--purge")
    assert not (prefix / "opt/eduqa").exists() and not conf.parent.exists() and not data.exists()
    if service_user:
        pwd.getpwnam(service_user)  # still there: the installer leaves users alone under --prefix
