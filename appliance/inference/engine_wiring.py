"""Where the appliance meets ``engines/``: the engines manager made from the config's
``[engines]`` section (the same one ``eduqa engines ensure`` builds with), the encoder and the
OCR models it serves, and the real text (the school's bank and its students' questions) that
engine precision passes calibrate and gate on."""

from __future__ import annotations

import hashlib
import logging
from importlib import resources
from typing import Callable

from appliance.db import sql
from appliance.config import Config
from appliance.db.store import Store
from engines.backend import InferenceBackend
from engines.encoders import SentenceEncoder, load_encoder
from engines.precision_plan import TextData, read_text_sets

log = logging.getLogger(__name__)

#: Past questions read for calibration (newest first).
MAX_ASKED = 20_000
#: One asked question in this many is held back from calibration for the accuracy gate.
HOLD_BACK_EVERY = 5
#: Below this many held-back questions the gate also uses the packaged demo eval queries.
MIN_GATE_QUERIES = 200


def manager_config(config: Config, read_only: bool = False):
    """The engines manager's settings from the appliance config (``[engines]``, the data dir)."""
    from engines.manager import ManagerConfig

    engines = config.engines
    return ManagerConfig(config.engine_dir, config.cache_dir, preference=engines.flavours,
                         precision=dict(engines.precision), aot_compute_capability=engines.aot_compute_capability,
                         streams=engines.streams, ort_threads=config.encoder.threads, read_only=read_only)


def open_engines(config: Config):
    """The engines manager the daemon serves every model through; None when
    ``encoder.engines`` is off (ONNX Runtime FP32 serves directly)."""
    if not config.encoder.engines:
        return None
    from engines.manager import EngineManager

    return EngineManager(manager_config(config))


def open_encoder(config: Config, manager=None):
    """The configured encoder, served through ``manager`` (or ONNX Runtime FP32 without one)."""
    enc = config.encoder
    if manager is None:
        return load_encoder(enc.model, config.cache_dir, max_tokens=enc.max_tokens, threads=enc.threads)
    encoder: SentenceEncoder = manager.encoder_for(enc.model, enc.max_tokens)
    status = next(s for s in manager.status() if s.model_id == enc.model)
    log.info("encoder %s served by %s (%s): %s", enc.model, status.serving, status.precision, status.reason)
    return encoder


#: The OCR pipeline's roles → the engines' model ids.
OCR_MODELS = {"det": "ocr-det", "cls": "ocr-cls", "rec": "ocr-rec"}


def ocr_backend_factory(manager, threads: int) -> Callable[[str, str], InferenceBackend]:
    """``factory(role, path)`` for the PP-OCR pipeline: each model served by ``manager`` like the
    encoder (``path``, the bundled file, is the model the manager's recipe also serves)."""

    def make(role: str, path: str) -> InferenceBackend:
        backend = manager.backend_for(OCR_MODELS[role], threads=threads)
        status = next(s for s in manager.status() if s.model_id == OCR_MODELS[role])
        log.info("%s served by %s (%s): %s", status.model_id, status.serving, status.precision, status.reason)
        return backend

    return make


def _held_back(question: str) -> bool:
    digest = hashlib.sha1(question.encode("utf-8")).digest()
    return digest[0] % HOLD_BACK_EVERY == 0


def _packaged_texts(*names: str) -> list[str]:
    from engines.textsets import read_texts

    with resources.as_file(resources.files("appliance") / "data") as folder:
        return read_texts([folder / name for name in names])


def _bank_rows(store: Store, config: Config) -> list[tuple[str, str]]:
    """The bank's (question, answer) rows; the demo bank's while the bank is empty and the
    daemon would load the demo (engines are often ensured before the first start)."""
    rows = [tuple(row) for row in store.query(sql.KB_QUESTIONS_ANSWERS)]
    if rows or not config.bank.demo_bank:
        return rows
    from appliance.bank.bank_file import read_bank_file
    from appliance.bank.kb import demo_bank_path

    return [(e.question, e.answer) for e in read_bank_file(demo_bank_path()).entries]


def engine_text_data(config: Config) -> TextData:
    """Calibration: bank questions and answers plus past questions; gate queries: the past
    questions held back from calibration (topped up with the demo eval queries while the
    log is young); bank: the bank's questions."""
    store = Store(config.db_path)
    try:
        bank = _bank_rows(store, config)
        asked = [row[0] for row in store.query(sql.ASK_RECENT_QUESTIONS, (MAX_ASKED,))]
    finally:
        store.close()
    held = [q for q in asked if _held_back(q)]
    calibration = [text for row in bank for text in row] + [q for q in asked if not _held_back(q)]
    queries = held if len(held) >= MIN_GATE_QUERIES else held + _packaged_texts("demo_eval.csv", "demo_eval_holdout.csv")
    log.info("engine text: %d calibration texts, %d gate queries (%d from the ask log), %d bank questions",
             len(calibration), len(queries), len(held), len(bank))
    return read_text_sets(calibration, queries, [row[0] for row in bank])
