"""The tuning-set figures of the full ask path (default encoder, hybrid search, verifier),
pinned: a change that makes any of them worse fails here. docs/BENCHMARKS.md has them."""

import pytest

from appliance.ask.service import AskService
from appliance.bench import evaluation

# demo_eval.csv, 2026-12-01 (docs/BENCHMARKS.md, "Issue 11").
PINNED_TOP1 = {"exact": 1.0, "paraphrase": 0.9555, "partial": 0.9722, "unanswerable": 0.8913}
PINNED_ABSTAIN_PRECISION = 0.8913
MAX_ECE = 0.02
PINNED_CONFIDENT_PRECISION = 0.995


@pytest.fixture(scope="module")
def summary(tmp_path_factory, model_cache):
    import dataclasses
    from importlib import resources

    from appliance.config import Config

    data_dir = tmp_path_factory.mktemp("eval")
    (data_dir / "cache").symlink_to(model_cache, target_is_directory=True)
    service = AskService.open(dataclasses.replace(Config(), data_dir=data_dir))
    try:
        path = resources.files("appliance.data").joinpath("demo_eval.csv")
        outcomes = evaluation.run_eval(evaluation.read_queries(path), service.decide_only)
    finally:
        service.close()
    return evaluation.summarise(outcomes)


@pytest.mark.parametrize("kind", sorted(PINNED_TOP1))
def test_top1_by_kind_does_not_regress(summary, kind):
    assert summary["by_kind"][kind]["top1"] >= PINNED_TOP1[kind]


def test_abstentions_stay_precise(summary):
    assert summary["abstain"]["precision"] >= PINNED_ABSTAIN_PRECISION


def test_confidence_stays_calibrated(summary):
    calibration = summary["calibration"]
    assert calibration["ece"] <= MAX_ECE
    assert calibration["confident_precision"] >= PINNED_CONFIDENT_PRECISION
