"""Shared fixtures: a model cache built once per test session, fresh data dirs per test."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from appliance.config import Config  # noqa: E402
from tests.needs import PREFIX as MISSING  # noqa: E402


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory) -> Path:
    """One cache dir for ONNX exports, shared by the whole session (exports are slow)."""
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture
def config(tmp_path, model_cache) -> Config:
    """A config whose data dir is fresh for this test and whose model cache is shared."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "cache").symlink_to(model_cache, target_is_directory=True)
    return dataclasses.replace(Config(), data_dir=data_dir)


@pytest.fixture(scope="session")
def use_encoder(model_cache):
    from engines.encoders import load_encoder

    return load_encoder("use-m3", model_cache)


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return text.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter) -> None:
    """One line per missing tool, package or font that made tests skip (tests/needs.py)."""
    counts: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = _skip_reason(report)
        if reason.startswith(MISSING):
            counts[reason] = counts.get(reason, 0) + 1
    for reason, n in sorted(counts.items()):
        terminalreporter.write_line(f"skipped {n} test{'s' if n != 1 else ''}: {reason}", yellow=True)
