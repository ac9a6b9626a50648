"""Skipping a test for something the machine lacks, in words the summary can group.

``skip_missing("chromium", "apt-get install -y chromium")`` skips with the reason
``missing chromium (apt-get install -y chromium)``; tests/conftest.py prints one line per
missing thing at the end of the run, with the number of tests it cost.
"""

from __future__ import annotations

import pytest

PREFIX = "missing "


def missing(what: str, install: str) -> str:
    return f"{PREFIX}{what} ({install})"


def skip_missing(what: str, install: str) -> None:
    pytest.skip(missing(what, install))
