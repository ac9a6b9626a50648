import dataclasses

import pytest

from appliance.inference import engine_wiring
from appliance.asklog.log import AskLog, AskRecord
from appliance.bank.bank_file import BankEntry
from appliance.config import BankConfig, EncoderConfig
from appliance.bank.kb import QuestionBank
from appliance.db.store import Store
from engines.manager import serving_model_key
from engines.status import ModelStatus


def _fill(config, questions_asked: list[str], bank_size: int = 3) -> None:
    store = Store(config.db_path)
    try:
        entries = [BankEntry(f"e{i}", "math", "7", f"bank question {i}", f"worked answer {i}", ("kp",), "ch1")
                   for i in range(bank_size)]
        QuestionBank(store).upsert(entries, origin="school")
        log = AskLog(store)
        for q in questions_asked:
            log.record(AskRecord("c", "text", q, False, None, 0.0, True, {}, "test"))
        log.close()
    finally:
        store.close()


def test_calibration_is_bank_and_asks_and_held_back_asks_never_calibrate(config):
    asked = [f"student question number {i}" for i in range(400)]
    _fill(config, asked + asked[:50])  # repeats count once
    data = engine_wiring.engine_text_data(config)
    assert data.bank == ("bank question 0", "bank question 1", "bank question 2")
    assert {"bank question 1", "worked answer 1"} <= set(data.calibration)
    from_log = [q for q in data.queries if q.startswith("student")]
    assert 40 <= len(from_log) <= 130  # about one in HOLD_BACK_EVERY
    assert not set(from_log) & set(data.calibration)
    assert set(from_log) | {q for q in data.calibration if q.startswith("student")} == set(asked)


def test_young_log_is_topped_up_with_the_demo_eval_queries(config):
    _fill(config, ["what is 2 + 2?"])
    data = engine_wiring.engine_text_data(config)
    assert len(data.queries) > engine_wiring.MIN_GATE_QUERIES
    assert any("光合作用" in q for q in data.queries)


def test_empty_bank_uses_the_demo_bank_only_when_the_daemon_would_load_it(config):
    data = engine_wiring.engine_text_data(config)
    assert len(data.bank) >= 150 and "解方程：2x + 3 = 13" in data.bank
    assert any("两边同时除以 2" in text for text in data.calibration)  # answers calibrate too
    off = dataclasses.replace(config, bank=BankConfig(demo_bank=False))
    assert engine_wiring.engine_text_data(off).bank == ()


def test_engines_off_serves_onnxruntime_directly(config):
    off = dataclasses.replace(config, encoder=EncoderConfig(engines=False))
    manager = engine_wiring.open_engines(off)
    encoder = engine_wiring.open_encoder(off, manager)
    assert manager is None and encoder.backend_name == "onnxruntime-cpu"


def test_engines_on_without_a_verdict_serves_fp32_and_says_why(config, model_cache, tmp_path):
    (model_cache / "models").mkdir(exist_ok=True)
    fresh = tmp_path / "fresh"
    (fresh / "cache").mkdir(parents=True)  # exported models shared, no precision verdicts
    (fresh / "cache" / "models").symlink_to(model_cache / "models", target_is_directory=True)
    fresh_config = dataclasses.replace(config, data_dir=fresh)
    manager = engine_wiring.open_engines(fresh_config)
    encoder = engine_wiring.open_encoder(fresh_config, manager)
    (status,) = manager.status()
    assert status.model_id == "use-m3" and status.serving == "onnxruntime" and status.precision == "fp32"
    assert "eduqa engines ensure" in status.reason
    assert encoder.model_key.startswith("use-m3:") and encoder.model_key.count(":") == 1  # the FP32 key


@pytest.mark.parametrize("serving,precision,suffix", [
    ("onnxruntime", "fp32", ""),
    ("onnxruntime", "int8", ":onnxruntime-int8"),
    ("tensorrt-rtx", "fp16", ":tensorrt-rtx-fp16"),
])
def test_stored_embeddings_are_keyed_by_what_serves(serving, precision, suffix):
    status = ModelStatus("use-m3", serving, "why", precision=precision)
    assert serving_model_key("use-m3:abc", status) == "use-m3:abc" + suffix
