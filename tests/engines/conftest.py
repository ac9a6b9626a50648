"""Engine test fixtures: real text from the demo files, and engines built once per session.

The demo files are read directly (engines never import the appliance). As on a
fresh appliance (``appliance.inference.engine_wiring``): calibration is the bank's questions and
answers (328 texts, fewer than 500, which manifests record); the gate's held-back
queries are both demo eval sets (475, of which 107 without CJK for MiniLM).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.needs import skip_missing

from engines.precision_plan import TextData, read_text_sets

DATA = Path(__file__).resolve().parents[2] / "appliance" / "data"


def demo_text(calibration_limit: int | None = None) -> TextData:
    bank = [json.loads(line) for line in (DATA / "demo_bank.jsonl").read_text(encoding="utf-8").splitlines() if line]
    with open(DATA / "demo_eval.csv", encoding="utf-8") as fh:
        eval_queries = [row["query"] for row in csv.DictReader(fh)]
    with open(DATA / "demo_eval_holdout.csv", encoding="utf-8") as fh:
        held_back = [row["query"] for row in csv.DictReader(fh)]
    questions = [row["question"] for row in bank]
    calibration = questions + [row["answer"] for row in bank]
    data = read_text_sets(calibration, held_back + eval_queries, questions)
    if calibration_limit:
        data = TextData(data.calibration[:calibration_limit], data.queries, data.bank)
    return data


@pytest.fixture(scope="session")
def text_data() -> TextData:
    return demo_text()


@pytest.fixture(scope="session")
def rtx():
    from engines.trt.flavours import TENSORRT_RTX, FlavourUnavailable

    try:
        TENSORRT_RTX.load()
    except FlavourUnavailable:
        skip_missing("the TensorRT-RTX builder", "./install.sh --dev --engine-builders")
    return TENSORRT_RTX


def no_gpu():
    return None


@pytest.fixture(scope="session")
def built(tmp_path_factory, model_cache, text_data, rtx):
    """Real TensorRT-RTX engines built ahead of time on the CPU, once per session.

    Returns {(model_id, precision): (manager, status)} with one engine dir per precision.
    """
    from engines.manager import EngineManager, ManagerConfig

    plan = {"int8": ["use-m3", "minilm"], "fp16": ["use-m3", "minilm", "ocr-det", "ocr-rec"]}
    results = {}
    for precision, model_ids in plan.items():
        engine_dir = tmp_path_factory.mktemp(f"engines-{precision}")
        config = ManagerConfig(engine_dir=engine_dir, cache_dir=model_cache, preference=("tensorrt-rtx",),
                               precision={"*": precision}, aot_compute_capability="8.6")
        manager = EngineManager(config, text_data=text_data, probe=no_gpu)
        for status in manager.ensure(model_ids):
            results[(status.model_id, precision)] = (manager, status)
    return results
