"""install.sh without installing: shellcheck, the GPU → engine extra choice, clear refusals."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.system.conftest import REPO, require_tool

INSTALL = REPO / "install.sh"


def run_install(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, timeout=120)


def test_install_sh_is_shellcheck_clean():
    require_tool("shellcheck")
    result = subprocess.run(["shellcheck", "--severity=style", str(INSTALL)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_shellcheck_check_can_fail(tmp_path):
    require_tool("shellcheck")
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/usr/bin/env bash\nrm -rf $1/*\n")
    assert subprocess.run(["shellcheck", str(bad)], capture_output=True).returncode != 0


def fake_nvidia_smi(tmp_path: Path, output: str | None, status: int = 0, old_driver: bool = False) -> dict:
    """A PATH whose nvidia-smi prints ``output`` for the name,compute_cap query."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    script = bindir / "nvidia-smi"
    if output is None:
        script.unlink(missing_ok=True)
    else:
        cap_query = 'case "$*" in *compute_cap*) echo "Field \\"compute_cap\\" is not a valid field" >&2; exit 2;; esac\n' \
            if old_driver else ""
        script.write_text(f"#!/bin/sh\n{cap_query}cat <<'EOF'\n{output}\nEOF\nexit {status}\n")
        script.chmod(0o755)
    system_path = "/usr/sbin:/usr/bin:/sbin:/bin"
    return {"PATH": f"{bindir}:{system_path}"}


@pytest.mark.parametrize("gpus, expected", [
    (None, "none"),
    ("NVIDIA H200, 9.0", "tensorrt"),
    ("NVIDIA A100-SXM4-80GB, 8.0", "tensorrt"),
    ("Tesla T4, 7.5", "tensorrt"),
    ("NVIDIA L40S, 8.9", "tensorrt"),
    ("NVIDIA GeForce RTX 4090, 8.9", "tensorrt-rtx"),
    ("NVIDIA GeForce RTX 3060, 8.6\nNVIDIA GeForce RTX 3060, 8.6", "tensorrt-rtx"),
    ("NVIDIA RTX A4000, 8.6", "tensorrt-rtx"),
    ("Quadro P4000, 6.1", "none"),          # Pascal: too old for TensorRT 10
    ("Tesla V100-SXM2-16GB, 7.0", "none"),
    ("", "none"),                           # nvidia-smi lists nothing: driver not loaded
])
def test_engine_extra_follows_the_gpu(tmp_path, gpus, expected):
    result = run_install("--detect-engine", env=fake_nvidia_smi(tmp_path, gpus))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == expected, result.stderr


def test_engine_choice_by_name_on_a_driver_without_compute_cap(tmp_path):
    env = fake_nvidia_smi(tmp_path, "NVIDIA GeForce RTX 2080", old_driver=True)
    assert run_install("--detect-engine", env=env).stdout.strip() == "tensorrt-rtx"


def test_failing_nvidia_smi_means_no_engine(tmp_path):
    env = fake_nvidia_smi(tmp_path, "NVIDIA-SMI has failed because it couldn't communicate with the driver", status=9)
    result = run_install("--detect-engine", env=env)
    assert result.stdout.strip() == "none" and "driver" in result.stderr


def test_engine_override_is_checked():
    assert run_install("--detect-engine", "--engine", "tensorrt").stdout.strip() == "tensorrt"
    bad = run_install("--detect-engine", "--engine", "cuda")
    assert bad.returncode == 1 and "--engine must be" in bad.stderr


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "unknown option --bogus"),
    (["--port", "http"], "--port must be 1-65535"),
    (["--port", "70000"], "--port must be 1-65535"),
    (["--memory-max", "lots"], "--memory-max must look like"),
    (["--purge"], "--purge goes with --uninstall"),
    (["--wheelhouse", "/nonexistent/wheels"], "no wheelhouse directory"),
    (["--teacher-password-file", "/nonexistent/pw"], "cannot read the teacher password file"),
    (["--user", "no-such-user-eduqa"], "no user 'no-such-user-eduqa'"),
    (["--python", "/bin/false"], "needs Python 3.11 or newer"),
    (["--wheelhouse"], "--wheelhouse needs a value"),
])
def test_bad_options_are_refused_before_anything_is_installed(tmp_path, args, message):
    prefix = tmp_path / "root"
    result = run_install("--prefix", str(prefix), "--no-systemd", "--yes", *args)
    assert result.returncode in (1, 2), result.stdout
    assert message in result.stderr
    assert not (prefix / "opt").exists() and not (prefix / "etc").exists()


def test_a_wheelhouse_without_the_build_backend_is_refused(tmp_path):
    (tmp_path / "wheels").mkdir()
    result = run_install("--prefix", str(tmp_path / "root"), "--no-systemd", "--wheelhouse", str(tmp_path / "wheels"))
    assert result.returncode == 1 and "no setuptools wheel" in result.stderr


def test_system_mode_refuses_a_non_debian_os(tmp_path):
    """The OS check reads /etc/os-release; run the check in isolation with a fake one."""
    script = INSTALL.read_text()
    start = script.index("check_os() {")
    end = script.index("\n}\n", start) + 3
    fake = tmp_path / "os-release"
    for content, ok in (('ID=ubuntu\nID_LIKE=debian\n', True), ('ID=debian\n', True),
                        ('ID=linuxmint\nID_LIKE="ubuntu debian"\n', True), ('ID=fedora\n', False)):
        fake.write_text(content)
        snippet = ("set -euo pipefail\nskip_os_check=0\ndie() { echo \"error: $*\" >&2; exit 1; }\n"
                   + script[start:end].replace("/etc/os-release", str(fake)) + "check_os\n")
        result = subprocess.run(["bash", "-c", snippet], capture_output=True, text=True)
        assert (result.returncode == 0) == ok, (content, result.stderr)
        if not ok:
            assert "supports Debian and Ubuntu" in result.stderr and "fedora" in result.stderr


FAKE_PYTHON = """#!/usr/bin/env bash
# Stands in for python3 and the venv's python: logs each call, makes the venv, installs nothing.
echo "$*" >> "$FAKE_LOG"
if [ "$1" = "--version" ]; then echo "Python 3.11.9"; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; fi
exit 0
"""


def run_dev(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """./install.sh --dev in a copy of the script (it sets up .venv beside itself) with a fake Python."""
    shutil.copy(INSTALL, tmp_path / "install.sh")
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    log = tmp_path / "calls.log"
    result = subprocess.run(["bash", str(tmp_path / "install.sh"), "--dev", "--python", str(fake), *args],
                            capture_output=True, text=True, env={**os.environ, "FAKE_LOG": str(log)}, timeout=60)
    return result, log.read_text().splitlines() if log.exists() else []


def test_dev_installs_the_test_extras_without_engine_builders(tmp_path):
    """README and CI run ./install.sh --dev: torch pinned, eduqa editable with export and test,
    and neither the TensorRT-RTX builder nor tritonclient."""
    result, calls = run_dev(tmp_path)
    assert result.returncode == 0, result.stderr
    pip = [c for c in calls if c.startswith("-m pip install")]
    assert pip == ["-m pip install --quiet --upgrade pip", "-m pip install --quiet torch==2.13.0",
                   "-m pip install --quiet -e .[export,test]"]


def test_engine_builders_are_opt_in(tmp_path):
    result, calls = run_dev(tmp_path, "--engine-builders")
    assert result.returncode == 0, result.stderr
    assert "-m pip install --quiet -e .[export,test,tensorrt-rtx]" in calls
    assert "-m pip install --quiet --no-deps tritonclient==2.73.0" in calls
    alone = run_install("--engine-builders", "--detect-engine")
    assert alone.returncode != 0 and "--engine-builders goes with --dev" in alone.stderr
