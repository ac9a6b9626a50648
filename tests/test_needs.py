"""The end-of-run summary names each missing tool or package once, with the tests it cost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_skipped_groups_print_one_line_each(tmp_path):
    (tmp_path / "conftest.py").write_text("from tests.conftest import pytest_terminal_summary  # noqa: F401\n")
    (tmp_path / "test_probe.py").write_text(
        "import pytest\n"
        "from tests.needs import skip_missing\n\n"
        "@pytest.mark.parametrize('n', range(3))\n"
        "def test_browser(n):\n"
        "    skip_missing('chromium', 'apt-get install -y chromium')\n\n"
        "def test_font():\n"
        "    skip_missing('fonts-noto-cjk', 'apt-get install -y fonts-noto-cjk')\n\n"
        "def test_other():\n"
        "    pytest.skip('a GPU is present')\n")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    lines = result.stdout.splitlines()
    assert "skipped 3 tests: missing chromium (apt-get install -y chromium)" in lines, result.stdout
    assert "skipped 1 test: missing fonts-noto-cjk (apt-get install -y fonts-noto-cjk)" in lines
    assert not any("GPU" in line for line in lines if line.startswith("skipped "))
