"""Manifest round trip and the engine key's decision fields."""

from __future__ import annotations

import json

import pytest

from engines.engine_key import BuildTarget, EngineKey
from engines.manifest import EngineManifest, ManifestError


def manifest(**changes) -> EngineManifest:
    base = dict(
        model_id="minilm", model_sha256="a" * 64, precision="int8", wanted_precision="int8",
        flavour="tensorrt-rtx", flavour_version="1.7.1.116", gpu_name="", compute_capability="8.6",
        driver_version="", cuda_version="", profiles=[{"name": "input_ids", "min": [1, 1]}],
        build_seconds=1.5, built_at="2026-11-30T12:00:00+00:00", engine_file="minilm.engine",
        engine_sha256="b" * 64, engine_bytes=10, calibration_samples=200,
        calibration_note="only 200 calibration samples (< 500)",
    )
    base.update(changes)
    return EngineManifest(**base)


def test_round_trip(tmp_path):
    m = manifest(verification={"status": "unverified", "reason": "no GPU"})
    path = m.save(tmp_path / "minilm.json")
    assert EngineManifest.load(path) == m
    assert not list(tmp_path.glob("*.tmp"))
    assert json.loads(path.read_text())["schema"] == 1


def test_unreadable_manifests(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ManifestError):
        EngineManifest.load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"schema": 99}')
    with pytest.raises(ManifestError, match="schema"):
        EngineManifest.load(tmp_path / "other.json")


def test_key_fields():
    target = BuildTarget("NVIDIA GeForce RTX 3060", "8.6", "13.0", "13.0")
    key = EngineKey.for_build("a" * 64, "int8", "tensorrt-rtx", "1.7.1.116", target)
    assert manifest(gpu_name="NVIDIA GeForce RTX 3060").key() == key
    for field, value in [("model_sha256", "c" * 64), ("flavour_version", "1.8.0"), ("gpu_name", "RTX 4090"),
                         ("compute_capability", "8.9"), ("precision", "fp16")]:
        changed = EngineKey(**{**key.__dict__, field: value})
        assert key.differences(changed) == [field]
        assert changed.digest() != key.digest()
    # driver and CUDA versions are recorded, but do not force a rebuild
    assert manifest(driver_version="99").key() == manifest().key()
