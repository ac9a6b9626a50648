"""Precision passes and the accuracy gate (real models, real demo text)."""

from __future__ import annotations

import numpy as np
import pytest

from engines import precision as passes
from engines.feeds import text_feeds
from engines.gate import GateThresholds, encoder_gate, top1_agreement
from engines.onnx_io import read_io
from engines.precision_plan import PrecisionPlanner, cached_plan
from engines.recipes import get_recipe


class FakeEncoder:
    def __init__(self, table: dict[str, np.ndarray]):
        self.table = table

    def encode(self, texts):
        return np.stack([self.table[t] for t in texts])


def test_gate_passes_identical_and_fails_noisy():
    rng = np.random.default_rng(0)
    texts = [f"t{i}" for i in range(50)]
    vecs = rng.standard_normal((50, 16)).astype(np.float32)
    ref = FakeEncoder(dict(zip(texts, vecs)))
    same = encoder_gate(ref, ref, texts[:20], texts[20:])
    assert same.passed and same.top1_agreement == 1.0 and same.mean_cosine == pytest.approx(1.0)
    noisy = FakeEncoder(dict(zip(texts, vecs + rng.standard_normal(vecs.shape).astype(np.float32))))
    result = encoder_gate(ref, noisy, texts[:20], texts[20:], GateThresholds())
    assert not result.passed and "mean cosine" in result.reason


def test_top1_agreement_counts_same_nearest_neighbour():
    bank = np.eye(3, dtype=np.float32)
    queries = np.array([[1, 0.1, 0], [0, 1, 0.2]], dtype=np.float32)
    swapped = np.array([[0.1, 1, 0], [0, 1, 0.2]], dtype=np.float32)
    assert top1_agreement(queries, bank, queries, bank) == 1.0
    assert top1_agreement(queries, bank, swapped, bank) == 0.5


@pytest.mark.slow
def test_fp16_keeps_io_types(tmp_path):
    src = get_recipe("ocr-cls").onnx_for_ort(tmp_path)
    out = passes.to_fp16(src, tmp_path / "cls-fp16.onnx")
    assert read_io(out) == read_io(src)  # float32 in, float32 out
    import onnx

    graph = onnx.load(str(out)).graph
    constants = [a.t for n in graph.node if n.op_type == "Constant" for a in n.attribute if a.name == "value"]
    types = {t.data_type for t in list(graph.initializer) + constants}
    assert onnx.TensorProto.FLOAT16 in types


@pytest.mark.slow
def test_int8_qdq_quantises_weight_gemms_only(tmp_path, model_cache, text_data):
    import onnx

    recipe = get_recipe("minilm")
    src = recipe.onnx_for_trt(model_cache)
    feeds = text_feeds(recipe, text_data.calibration[:32], batch_size=16)
    out = passes.to_int8_qdq(src, tmp_path / "minilm-qdq.onnx", feeds, recipe.int8_exclude)
    graph = onnx.load(str(out)).graph
    produced_by = {o: n for n in graph.node for o in n.output}
    consumers = [n for n in graph.node
                 if any(produced_by.get(i) is not None and produced_by[i].op_type == "DequantizeLinear" for i in n.input)]
    assert consumers and {n.op_type for n in consumers} == {"MatMul"}
    assert not any("/output/dense/MatMul" in n.name and "attention" not in n.name for n in consumers)
    zero_points = [init for init in graph.initializer if init.name.endswith("zero_point")]
    assert zero_points and all(not onnx.numpy_helper.to_array(z).any() for z in zero_points)  # symmetric
    assert read_io(out) == read_io(src)


@pytest.mark.slow
def test_broken_quantisation_fails_the_gate_and_falls_back(tmp_path, model_cache, text_data, monkeypatch):
    """A quantiser that scrambles the weights must be caught, and the fallback recorded."""
    import onnx
    from onnx import numpy_helper

    def scrambling_quantiser(src, dst, exclude=()):
        model = onnx.load(str(src))
        rng = np.random.default_rng(0)
        for init in model.graph.initializer:
            array = numpy_helper.to_array(init)
            if array.dtype == np.float32 and array.ndim == 2 and array.size > 10000:
                init.CopyFrom(numpy_helper.from_array(rng.permutation(array.ravel()).reshape(array.shape), init.name))
        onnx.save(model, str(dst))
        return dst

    monkeypatch.setattr(passes, "to_int8_dynamic", scrambling_quantiser)
    recipe = get_recipe("use-m3")
    planner = PrecisionPlanner(recipe, "ort-cpu", tmp_path, text_data)
    outcome = cached_plan(planner, recipe.onnx_for_ort(model_cache), "int8")
    assert outcome.precision == "fp32"
    assert outcome.fallbacks[0].precision == "int8"
    assert "accuracy gate failed" in outcome.fallbacks[0].reason
    # the verdict is remembered next to the models
    assert list(tmp_path.glob("use-m3-int8-ort-cpu.precision.json"))


def test_fewer_than_500_calibration_samples_are_noted(tmp_path):
    from engines.precision_plan import TextData

    recipe = get_recipe("use-m3")
    few = TextData(tuple(f"question {i}" for i in range(120)), ("q",), ("b",))
    feeds, samples, note = PrecisionPlanner(recipe, "tensorrt", tmp_path, few)._calibration()
    assert samples == 120 and note == "only 120 calibration samples (< 500)"
    assert len(feeds) == 120 and all(len(f["input_ids"]) == 1 for f in feeds)  # unpadded
    enough = TextData(tuple(f"question {i}" for i in range(500)), ("q",), ("b",))
    assert PrecisionPlanner(recipe, "tensorrt", tmp_path, enough)._calibration()[2] == ""


@pytest.mark.slow
@pytest.mark.parametrize("model_id", ["use-m3", "minilm"])
def test_cpu_int8_serves_only_if_it_passes_and_is_faster(built, model_id):
    """The ONNX Runtime CPU verdict made by the session's INT8 ensure (dynamic INT8)."""
    manager, _ = built[(model_id, "int8")]
    outcome = manager.ort_plan(manager.recipes[model_id])
    if outcome.precision == "int8":
        assert outcome.gate.passed and outcome.gate.top1_agreement >= 0.98
        assert outcome.speedup >= 1.1
        assert manager.cpu_backend(manager.recipes[model_id]).name == "onnxruntime-cpu"
    else:  # only a timing verdict may refuse it here: the accuracy is not in doubt
        assert outcome.fallbacks and "not faster" in outcome.fallbacks[0].reason, outcome.fallbacks
