"""Precision passes and the accuracy gate (real models, real demo text)."""

from __future__ import annotations

import numpy as np
import pytest

from engines import precision as passes
from engines.feeds import text_feeds
from engines.gate import GateResult, GateThresholds, encoder_gate, top1_agreement
from engines.onnx_io import read_io
from engines.precision_plan import MIN_CPU_SPEEDUP, PrecisionOutcome, PrecisionPlanner, cached_plan
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


def meets(gate: GateResult, t: GateThresholds) -> bool:
    """The gate's thresholds applied to its own measured figures."""
    return (gate.mean_cosine >= t.mean_cosine and gate.min_cosine >= t.min_cosine
            and (gate.top1_agreement is None or gate.top1_agreement >= t.top1_agreement))


def int8_measurements(outcome: PrecisionOutcome):
    """The gate and speed-up measured for the INT8 candidate, whichever way it went."""
    if outcome.precision == "int8":
        return outcome.gate, outcome.speedup
    refused = [f for f in outcome.fallbacks if f.precision == "int8"]
    assert len(refused) == 1, outcome.fallbacks
    assert refused[0].gate is not None, f"INT8 was refused without a measurement: {refused[0].reason}"
    return refused[0].gate, refused[0].speedup


@pytest.mark.slow
@pytest.mark.parametrize("model_id", ["use-m3", "minilm"])
def test_cpu_int8_verdict_follows_its_measurements(tmp_path, model_cache, text_data, model_id):
    """Dynamic INT8's numerics depend on the CPU's integer instructions (VNNI or not), so the
    verdict is made per box. Whichever way it goes here, it must follow from what was
    measured: INT8 serves if and only if the gate's figures meet its thresholds and it is
    at least MIN_CPU_SPEEDUP faster."""
    from engines.manager import EngineManager, ManagerConfig

    manager = EngineManager(ManagerConfig(engine_dir=tmp_path, cache_dir=model_cache, precision={"*": "int8"}),
                            text_data=text_data, probe=lambda: None)
    recipe = manager.recipes[model_id]
    outcome = manager.ort_plan(recipe)
    gate, speedup = int8_measurements(outcome)
    thresholds = GateThresholds()
    assert gate.passed == meets(gate, thresholds), gate
    if gate.passed:
        assert speedup is not None, "the speed is measured once the gate passed"
    expected = gate.passed and speedup >= MIN_CPU_SPEEDUP
    assert (outcome.precision == "int8") == expected, (outcome.precision, gate, speedup, outcome.fallbacks)
    if not expected:
        assert outcome.precision == "fp32"
        assert outcome.fallbacks[0].reason.startswith("not faster" if gate.passed else "accuracy gate failed")
    # what serves is what the verdict says
    assert manager.cpu_backend(recipe).name == "onnxruntime-cpu"
    assert manager.ort_plan(recipe).to_dict() == outcome.to_dict()  # remembered, not re-decided


@pytest.mark.parametrize("top1, speedup, serves", [
    (0.99, 1.9, "int8"),   # a VNNI CPU: accurate and faster
    (0.963, 1.9, "fp32"),  # the AVX2 box: top-1 96.3 % < 98 %
    (0.99, 1.02, "fp32"),  # accurate but not faster
])
def test_cpu_verdict_follows_gate_and_speed(tmp_path, monkeypatch, top1, speedup, serves):
    """The same decision on made-up measurements, so every branch is exercised on any CPU."""
    from engines.gate import _judge

    recipe = get_recipe("minilm")
    planner = PrecisionPlanner(recipe, "ort-cpu", tmp_path)
    gate = _judge(np.full(50, 0.995), top1, GateThresholds())
    monkeypatch.setattr(planner, "attempt", lambda src, wanted, candidate: PrecisionOutcome(
        wanted, candidate, tmp_path / "q.onnx", gate))
    monkeypatch.setattr(planner, "_speedup", lambda ref, cand: speedup)
    outcome = planner.plan(tmp_path / "m.onnx", "int8")
    assert outcome.precision == serves
    measured, measured_speed = int8_measurements(outcome)
    assert measured == gate
    assert measured_speed == (speedup if gate.passed else None)
    restored = PrecisionOutcome.from_dict(outcome.to_dict())
    assert restored.fallbacks == outcome.fallbacks  # the measurements survive the sidecar
