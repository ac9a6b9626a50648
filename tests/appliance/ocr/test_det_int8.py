"""The INT8 text detector: built once and kept, reads what the FP32 one reads, never
stops photos being read when it cannot be built, and is only used on the CPU."""

from __future__ import annotations

import json
import logging
from types import SimpleNamespace

import numpy as np
import pytest

from appliance.ocr import det_int8
from appliance.wording.cer import errors, normalise
from appliance.bench.ocr_eval import read_truth
from appliance.ocr.det_int8 import calibration_tensors, int8_model
from appliance.ocr.pipeline import PpOcrPipeline, int8_detector
from appliance.ocr.reader import OcrReader
from appliance.ocr.settings import OcrSettings
from engines.ocr_models import bundled_models


@pytest.fixture(scope="module")
def int8_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("int8")


@pytest.fixture(scope="module")
def int8_reader(int8_dir) -> OcrReader:
    """A reader whose detector is the INT8 model whatever this CPU's gate says (these tests
    are about the model; the gate has tests of its own below)."""
    from appliance.inference import precision_gate as det_gate

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(det_gate, "cached_verdict", lambda *a: det_gate.GateVerdict(9.9, 1.0, True, "test"))
        return OcrReader.open(OcrSettings(cache_size=0, det_int8=True, int8_dir=str(int8_dir)))


@pytest.fixture(scope="module")
def fp32_reader() -> OcrReader:
    return OcrReader.open(OcrSettings(cache_size=0, det_int8=False))


def test_the_reader_detects_with_an_int8_model_kept_in_its_folder(int8_reader, fp32_reader, int8_dir):
    kept = list(int8_dir.glob("*.int8-*.onnx"))
    assert len(kept) == 1
    assert int8_reader.pipeline.detector.backend is not None
    import onnx

    ops = {n.op_type for n in onnx.load(str(kept[0])).graph.node}
    assert "QuantizeLinear" in ops and "DequantizeLinear" in ops
    fp32_session = fp32_reader.pipeline.detector.backend._session
    int8_session = int8_reader.pipeline.detector.backend._session
    assert fp32_session is not int8_session
    assert "QuantizeLinear" not in {n.op_type for n in onnx.load(str(bundled_models().det)).graph.node}


def test_a_kept_model_is_reused_not_rebuilt(int8_reader, int8_dir, monkeypatch):
    def refuse(*args):
        raise AssertionError("rebuilt")

    monkeypatch.setattr(det_int8, "quantize", refuse)
    first = next(int8_dir.glob("*.int8-*.onnx"))
    assert int8_model(bundled_models().det, int8_dir) == first


def test_int8_reads_as_well_as_fp32(int8_reader, fp32_reader, photo_set):
    truth = {row.qid: row.text for row in read_truth(photo_set)}
    photos = sorted(photo_set.glob("*.jpg"))
    assert len(photos) == len(truth) > 0
    same, edits = 0, {"int8": 0, "fp32": 0}
    for photo in photos:
        int8, fp32 = int8_reader.read_file(photo).text, fp32_reader.read_file(photo).text
        same += normalise(int8) == normalise(fp32)  # as scored: a space more or less is no error
        edits["int8"] += errors(truth[photo.stem], int8)[0]
        edits["fp32"] += errors(truth[photo.stem], fp32)[0]
    assert same == len(photos)
    assert edits["int8"] <= edits["fp32"]


def test_int8_boxes_sit_where_the_fp32_boxes_do(int8_reader, fp32_reader, photo_set):
    from appliance.ocr.image import decode_photo

    image = decode_photo(sorted(photo_set.glob("*.jpg"))[0].read_bytes(), int8_reader.limits)
    fp32 = sorted(d.quad.mean(axis=0).tolist() for d in fp32_reader.pipeline.detector.detect(image.pixels))
    int8 = sorted(d.quad.mean(axis=0).tolist() for d in int8_reader.pipeline.detector.detect(image.pixels))
    assert len(fp32) == len(int8) > 0
    assert np.abs(np.array(fp32) - np.array(int8)).max() < 6.0  # photo pixels, 1600×1200


def test_a_failed_build_keeps_the_fp32_detector(tmp_path, monkeypatch, caplog):
    def broken(*args):
        raise RuntimeError("no quantiser here")

    monkeypatch.setattr(det_int8, "quantize", broken)
    fp32 = SimpleNamespace(name="onnxruntime-cpu")
    settings = OcrSettings(int8_dir=str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="appliance.ocr.pipeline"):
        assert int8_detector(fp32, str(bundled_models().det), settings) is fp32
    assert "INT8 detector unavailable" in caplog.text
    assert not list(tmp_path.glob("*.onnx"))  # nothing half-built left to load next time


def test_an_accelerators_detector_is_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(det_int8, "quantize", lambda *a: pytest.fail("quantised for an accelerator"))
    gpu = SimpleNamespace(name="tensorrt")
    assert int8_detector(gpu, str(bundled_models().det), OcrSettings(int8_dir=str(tmp_path))) is gpu


def test_switched_off_the_factorys_detector_reads():
    made = {}

    def factory(role, path):
        from engines.ort_backend import OnnxRuntimeBackend

        made[role] = OnnxRuntimeBackend(path, threads=1, use_cuda=False)
        return made[role]

    pipeline = PpOcrPipeline.open(OcrSettings(det_int8=False), factory)
    assert pipeline.detector.backend is made["det"]


def test_calibration_is_synthetic_and_repeatable():
    first = [t for _, t in zip(range(4), calibration_tensors(count=2))]
    again = [t for _, t in zip(range(4), calibration_tensors(count=2))]
    assert [t.shape for t in first] == [(1, 3, 480, 640), (1, 3, 352, 480)] * 2
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert all(-1.0 <= t.min() and t.max() <= 1.0 for t in first)


def test_config_puts_the_model_under_the_data_dirs_cache(tmp_path):
    config = SimpleNamespace(ocr=OcrSettings(), cache_dir=tmp_path / "cache")
    assert OcrSettings.from_config(config).int8_dir == str(tmp_path / "cache" / "ocr")
    mine = SimpleNamespace(ocr=OcrSettings(int8_dir="/srv/ocr"), cache_dir=tmp_path / "cache")
    assert OcrSettings.from_config(mine).int8_dir == "/srv/ocr"


# -- the gate: INT8 serves only where it is measured faster and as good on this CPU -------


def test_the_gate_refuses_a_model_that_is_slower_or_misses_lines():
    from appliance.inference.precision_gate import decide

    assert decide(4.0, 0.99).serves
    assert not decide(1.1, 0.99).serves and "as fast" in decide(1.1, 0.99).reason
    assert not decide(4.0, 0.90).serves and "FP32 lines" in decide(4.0, 0.90).reason


def test_what_serves_follows_this_cpus_measurements_and_is_remembered(tmp_path, monkeypatch):
    from appliance.inference import precision_gate as det_gate

    reader = OcrReader.open(OcrSettings(cache_size=0, det_int8=True, int8_dir=str(tmp_path)))
    (kept,) = tmp_path.glob("*.int8-*.gate-*.json")
    verdict = det_gate.GateVerdict(**json.loads(kept.read_text()))
    assert verdict.serves == det_gate.decide(verdict.speedup, verdict.agreement).serves
    served = reader.pipeline.detector.backend.model_path.name
    assert (".int8-" in served) == verdict.serves
    monkeypatch.setattr(det_gate, "measure", lambda *a: pytest.fail("measured again"))
    again = OcrReader.open(OcrSettings(cache_size=0, det_int8=True, int8_dir=str(tmp_path)))
    assert (".int8-" in again.pipeline.detector.backend.model_path.name) == verdict.serves


def test_a_refusing_verdict_keeps_the_fp32_detector(tmp_path, monkeypatch):
    from appliance.inference import precision_gate as det_gate

    monkeypatch.setattr(det_gate, "cached_verdict", lambda *a: det_gate.decide(1.05, 1.0))
    reader = OcrReader.open(OcrSettings(cache_size=0, det_int8=True, int8_dir=str(tmp_path)))
    assert ".int8-" not in reader.pipeline.detector.backend.model_path.name
