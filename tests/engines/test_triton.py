"""The Triton model repository: config.pbtxt parses against Triton's own schema and matches the model."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.needs import skip_missing

from engines.onnx_io import read_io
from engines.recipes import get_recipe
from engines.triton import TRITON_TYPES, export_model


def triton_model_config():
    """tritonclient's generated ModelConfig message, loaded without its grpc package."""
    spec = importlib.util.find_spec("tritonclient")
    if spec is None:
        skip_missing("tritonclient", "./install.sh --dev --engine-builders")
    path = Path(next(iter(spec.submodule_search_locations))) / "grpc" / "model_config_pb2.py"
    module_spec = importlib.util.spec_from_file_location("triton_model_config_pb2", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("model_id", ["ocr-rec", "ocr-cls", "use-m3"])
def test_config_parses_and_matches_io(tmp_path, model_cache, model_id):
    from google.protobuf import text_format

    pb2 = triton_model_config()
    recipe = get_recipe(model_id)
    onnx_path = recipe.onnx_for_ort(model_cache)
    model = export_model(recipe, tmp_path, onnx_path)
    config = text_format.Parse((tmp_path / model_id / "config.pbtxt").read_text(), pb2.ModelConfig())
    assert config.name == model_id and config.backend == "onnxruntime"
    assert (tmp_path / model_id / "1" / "model.onnx").stat().st_size == onnx_path.stat().st_size
    assert config.max_batch_size == recipe.profiles[0].max[0] == model.max_batch_size
    assert config.dynamic_batching.max_queue_delay_microseconds > 0
    assert list(config.dynamic_batching.preferred_batch_size)
    io = read_io(onnx_path)
    for ours, spec in zip(config.input, io.inputs):
        assert ours.name == spec.name
        assert pb2.DataType.Name(ours.data_type) == TRITON_TYPES[spec.dtype]
        assert list(ours.dims) == [d if d > 0 else -1 for d in spec.shape[1:]]
    assert [o.name for o in config.output] == [s.name for s in io.outputs]
    assert [list(o.dims) for o in config.output] == [[d if d > 0 else -1 for d in s.shape[1:]] for s in io.outputs]


def test_engine_export_uses_tensorrt_plan(tmp_path, model_cache):
    from google.protobuf import text_format

    pb2 = triton_model_config()
    recipe = get_recipe("ocr-cls")
    fake_plan = tmp_path / "cls.engine"
    fake_plan.write_bytes(b"plan")
    export_model(recipe, tmp_path / "repo", recipe.onnx_for_ort(model_cache), fake_plan)
    config = text_format.Parse((tmp_path / "repo" / "ocr-cls" / "config.pbtxt").read_text(), pb2.ModelConfig())
    assert config.platform == "tensorrt_plan" and config.default_model_filename == "model.plan"
    assert (tmp_path / "repo" / "ocr-cls" / "1" / "model.plan").read_bytes() == b"plan"
    assert pb2.ModelInstanceGroup.Kind.Name(config.instance_group[0].kind) == "KIND_GPU"
