"""The accelerator registry, and what the manager says and builds on a box without a GPU."""

from __future__ import annotations

import pytest

from engines.accelerators import (ACCELERATORS, CPU, Accelerator, EngineAccelerator, UnknownAccelerator,
                                  get_accelerator, resolve)
from engines.manager import EngineManager, ManagerConfig
from engines.trt.cuda import GpuInfo, describe_gpu

H200 = GpuInfo("NVIDIA H200", "9.0", "13.0", "13.0", 141 << 30)
RTX_4060 = GpuInfo("NVIDIA GeForce RTX 4060", "8.9", "13.0", "13.0", 8 << 30)


@pytest.mark.parametrize("name", list(ACCELERATORS))
def test_every_registered_accelerator_offers_the_interface(name):
    accelerator = ACCELERATORS[name]
    assert isinstance(accelerator, Accelerator) and accelerator.name == name and accelerator.summary
    assert isinstance(accelerator.unavailable(None), str)
    if accelerator.builds_engines:
        assert isinstance(accelerator, EngineAccelerator)


def test_the_cpu_ends_every_preference_list_and_unknown_names_are_refused():
    assert [a.name for a in resolve(("tensorrt-rtx",))] == ["tensorrt-rtx", CPU]
    assert [a.name for a in resolve((CPU, "tensorrt"))] == [CPU, "tensorrt"]
    assert ACCELERATORS[CPU].unavailable(None) == ""
    with pytest.raises(UnknownAccelerator, match="unknown engine flavour 'tensorrt-xl'"):
        get_accelerator("tensorrt-xl")


def test_tensorrt_rtx_refuses_hopper_and_runs_on_an_rtx_card(rtx):
    accelerator = ACCELERATORS["tensorrt-rtx"]
    assert accelerator.unavailable(H200) == "does not support NVIDIA H200 (compute capability 9.0)"
    assert accelerator.unavailable(RTX_4060) == ""
    assert accelerator.unavailable(None) == "no NVIDIA GPU here to run its engines"


def test_without_a_driver_there_is_no_gpu_not_an_old_driver():
    gpu, why = describe_gpu(driver=lambda: False)
    assert gpu is None and why.startswith("no NVIDIA GPU (no NVIDIA driver")
    assert "insufficient" not in why


def test_a_cpu_only_box_builds_no_engine_and_advises_none(tmp_path, model_cache, text_data):
    """Nothing on a box without a GPU may say an engine is missing or should be built: no
    engine could run there. ensure only decides the CPU precision."""
    engine_dir = tmp_path / "engines"
    engine_dir.mkdir()
    manager = EngineManager(ManagerConfig(engine_dir, model_cache), text_data=text_data, probe=lambda: None)
    (ensured,) = manager.ensure(["ocr-cls"])
    assert ensured.serving == CPU and not list(engine_dir.iterdir())
    for status in (ensured, manager.inspect("ocr-cls")):
        assert "built yet" not in status.reason and "ensure builds" not in status.reason, status.reason
        assert "no NVIDIA GPU here" in status.reason, status.reason


def test_ahead_of_time_builds_only_when_asked(tmp_path, model_cache):
    manager = EngineManager(ManagerConfig(tmp_path, model_cache, preference=("tensorrt-rtx",)), probe=lambda: None)
    with pytest.raises(Exception, match="aot_compute_capability"):
        manager.builder()
    aot = EngineManager(ManagerConfig(tmp_path, model_cache, preference=("tensorrt-rtx",),
                                      aot_compute_capability="8.6"), probe=lambda: None)
    try:
        ACCELERATORS["tensorrt-rtx"].flavour.load()
    except Exception:
        pytest.skip("TensorRT-RTX is not installed")
    accelerator, target = aot.builder()
    assert accelerator.name == "tensorrt-rtx" and (target.gpu_name, target.compute_capability) == ("", "8.6")


def test_status_and_doctor_settings_write_nothing(tmp_path):
    """A read-only manager on an empty data dir reports without exporting a model."""
    cache = tmp_path / "cache"
    manager = EngineManager(ManagerConfig(tmp_path / "engines", cache, read_only=True), probe=lambda: None)
    status = manager.inspect("use-m3")
    assert status.serving == CPU and "not exported yet" in status.reason
    assert not cache.exists() and not (tmp_path / "engines").exists()
