"""The BF16 recogniser (``ocr.rec_bf16``, off by default): OpenVINO reads in BF16 only where
this CPU computes it and its gate passes; anything else (an accelerator, no BF16, no OpenVINO,
a refusing gate) keeps FP32."""

from __future__ import annotations

import json
import logging
from types import SimpleNamespace

import pytest

from appliance.inference import precision_gate
from appliance.ocr.pipeline import bf16_recognizer
from appliance.ocr.reader import OcrReader
from appliance.ocr.settings import OcrSettings
from appliance.wording.cer import errors
from engines import openvino_backend
from engines.backend import BackendError
from engines.ocr_models import bundled_models, character_table
from tests.needs import skip_missing

CPU = SimpleNamespace(name="onnxruntime-cpu")
BF16 = OcrSettings(rec_bf16=True)


def _needs_openvino():
    import importlib.util

    if importlib.util.find_spec("openvino") is None:
        skip_missing("openvino", "pip install -e '.[openvino]'; ./install.sh --dev installs it")


def _never(*args, **kwargs):
    pytest.fail("OpenVINO was asked to compile the recogniser")


@pytest.fixture
def rec():
    models = bundled_models()
    return str(models.rec), character_table(models.rec)


def test_an_accelerators_recogniser_is_kept(rec, monkeypatch):
    monkeypatch.setattr(openvino_backend, "OpenVinoBackend", _never)
    gpu = SimpleNamespace(name="tensorrt")
    assert bf16_recognizer(gpu, rec[0], BF16, rec[1]) is gpu


def test_a_cpu_computing_no_bf16_keeps_fp32_without_compiling(rec, monkeypatch, caplog):
    monkeypatch.setattr(openvino_backend, "cpu_computes", lambda precision: precision == "f32")
    monkeypatch.setattr(openvino_backend, "OpenVinoBackend", _never)
    with caplog.at_level(logging.INFO, logger="appliance.ocr.pipeline"):
        assert bf16_recognizer(CPU, rec[0], BF16, rec[1]) is CPU
    assert "computes no BF16" in caplog.text


def test_openvino_failing_keeps_fp32_and_says_why(rec, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise BackendError("OpenVINO is not installed (test)")

    monkeypatch.setattr(openvino_backend, "cpu_computes", lambda precision: True)
    monkeypatch.setattr(openvino_backend, "OpenVinoBackend", broken)
    with caplog.at_level(logging.WARNING, logger="appliance.ocr.pipeline"):
        assert bf16_recognizer(CPU, rec[0], BF16, rec[1]) is CPU
    assert "BF16 recogniser unavailable" in caplog.text and "not installed" in caplog.text


def test_a_refusing_gate_keeps_fp32(rec, monkeypatch, tmp_path):
    made = []
    monkeypatch.setattr(openvino_backend, "cpu_computes", lambda precision: True)
    monkeypatch.setattr(openvino_backend, "OpenVinoBackend", lambda *a, **k: made.append(a) or SimpleNamespace())
    monkeypatch.setattr(precision_gate, "cached_verdict", lambda *a: precision_gate.decide(1.6, 0.97, 1.2, 0.99))
    assert bf16_recognizer(CPU, rec[0], OcrSettings(int8_dir=str(tmp_path), rec_bf16=True), rec[1]) is CPU
    assert made  # compiled and gated, then refused


def test_off_by_default_the_factorys_recogniser_reads(monkeypatch):
    monkeypatch.setattr(openvino_backend, "OpenVinoBackend", _never)
    assert OcrSettings().rec_bf16 is False
    reader = OcrReader.open(OcrSettings(cache_size=0, det_int8=False))
    assert reader.pipeline.recognizer.backend.name == "onnxruntime-cpu"
    assert "rec" not in reader.pipeline.lowered


def test_what_reads_follows_this_cpus_measurements_and_is_remembered(tmp_path, monkeypatch):
    _needs_openvino()
    reader = OcrReader.open(OcrSettings(cache_size=0, det_int8=False, int8_dir=str(tmp_path), rec_bf16=True))
    kept = list(tmp_path.glob("*.bf16-openvino.gate-*.json"))
    if not openvino_backend.cpu_computes("bf16"):
        assert not kept and reader.pipeline.recognizer.backend.name == "onnxruntime-cpu"
        return
    verdict = precision_gate.GateVerdict(**json.loads(kept[0].read_text()))
    again = precision_gate.decide(verdict.speedup, verdict.agreement, min_agreement=precision_gate.MIN_READING_AGREEMENT)
    assert verdict.serves == again.serves
    assert (reader.pipeline.recognizer.backend.name == "openvino-cpu-bf16") == verdict.serves
    monkeypatch.setattr(precision_gate, "measure_reading", lambda *a: pytest.fail("measured again"))
    reopened = OcrReader.open(OcrSettings(cache_size=0, det_int8=False, int8_dir=str(tmp_path), rec_bf16=True))
    assert (reopened.pipeline.recognizer.backend.name == "openvino-cpu-bf16") == verdict.serves


def test_the_bf16_recogniser_reads_the_photos_as_fp32_does(photo_set, monkeypatch):
    _needs_openvino()
    if not openvino_backend.cpu_computes("bf16"):
        pytest.skip("this CPU computes no BF16 (AVX512-BF16 or AMX)")
    monkeypatch.setattr(precision_gate, "cached_verdict", lambda *a: precision_gate.decide(9.9, 1.0))
    bf16 = OcrReader.open(OcrSettings(cache_size=0, det_int8=False, int8_dir="unused", rec_bf16=True))
    fp32 = OcrReader.open(OcrSettings(cache_size=0, det_int8=False, rec_bf16=False))
    assert bf16.pipeline.lowered == {"rec": ("openvino", "bf16")}
    edits = chars = 0
    for photo in sorted(photo_set.glob("*.png")) + sorted(photo_set.glob("*.jpg")):
        want, got = fp32.read_file(photo).text, bf16.read_file(photo).text
        e, c = errors(want, got)
        edits, chars = edits + e, chars + c
    assert chars > 100 and edits / chars <= 0.01
