"""The tuning-set figures of the full ask path (default encoder, hybrid search, verifier),
pinned: a change that makes any of them worse fails here. docs/BENCHMARKS.md has them."""

import pytest

from appliance.ask.service import AskService
from appliance.bench import evaluation

# The shipped model's figures on six tuning sets, 2026-12-04 (docs/BENCHMARKS.md,
# "Issue 11", eighth pass, with the terse questions' threshold). It is trained on the first three: these catch regressions, they
# do not tell how it does on new questions (the crossval step of verifier_training does).
PINNED = {
    "demo_eval.csv": {
        "top1": {"exact": 1.0, "paraphrase": 0.9556, "partial": 1.0, "unanswerable": 1.0},
        "abstain_precision": 0.92, "max_ece": 0.07, "confident_precision": 0.994,
    },
    "tune_independent.csv": {
        # abstain precision 0.9289 → 0.9246 in the seventh pass: a wrong answer became an
        # abstention (the largest ocean, answered with the longest river)
        "top1": {"exact": 1.0, "paraphrase": 0.8812, "partial": 0.9831, "unanswerable": 0.925},
        "abstain_precision": 0.9343, "max_ece": 0.04, "confident_precision": 0.995,
    },
    "tune_independent2.csv": {
        "top1": {"exact": 1.0, "paraphrase": 0.9462, "partial": 0.9692, "unanswerable": 0.9171},
        "abstain_precision": 0.9543, "max_ece": 0.04, "confident_precision": 0.985,
    },
    # Read while writing the fourth to seventh passes' rules, never trained on.
    "tune_independent3.csv": {
        # ECE 0.036 → 0.040 in the eighth pass: three near-misses answered at 0.82–0.96
        # abstain, and the bins of the calibration error weigh the rest anew
        "top1": {"exact": 1.0, "paraphrase": 0.9023, "partial": 0.9848, "unanswerable": 0.956},
        "abstain_precision": 0.9355, "max_ece": 0.045, "confident_precision": 0.99,
    },
    # Written on 2026-12-03, scored once before the sixth pass's second step, then read.
    "tune_independent4.csv": {
        "top1": {"exact": 1.0, "paraphrase": 0.8552, "partial": 0.9865, "unanswerable": 0.9086},
        "abstain_precision": 0.8933, "max_ece": 0.045, "confident_precision": 0.995,
    },
    # Written on 2026-12-03 (second stop), scored once with main's code, then read while
    # writing the seventh pass's rules.
    "tune_independent5.csv": {
        "top1": {"exact": 1.0, "paraphrase": 0.8923, "partial": 0.98, "unanswerable": 0.8571},
        "abstain_precision": 0.9202, "max_ece": 0.05, "confident_precision": 0.99,
    },
}


@pytest.fixture(scope="module")
def summaries(tmp_path_factory, model_cache):
    import dataclasses
    from importlib import resources

    from appliance.config import Config

    data_dir = tmp_path_factory.mktemp("eval")
    (data_dir / "cache").symlink_to(model_cache, target_is_directory=True)
    service = AskService.open(dataclasses.replace(Config(), data_dir=data_dir))
    found = {}
    try:
        for name in PINNED:
            path = resources.files("appliance.data").joinpath(name)
            found[name] = evaluation.summarise(evaluation.run_eval(evaluation.read_queries(path), service.decide_only))
    finally:
        service.close()
    return found


CASES = [(name, kind) for name, pins in PINNED.items() for kind in sorted(pins["top1"])]


@pytest.mark.parametrize("name, kind", CASES)
def test_top1_by_kind_does_not_regress(summaries, name, kind):
    assert summaries[name]["by_kind"][kind]["top1"] >= PINNED[name]["top1"][kind]


@pytest.mark.parametrize("name", sorted(PINNED))
def test_abstentions_stay_precise(summaries, name):
    assert summaries[name]["abstain"]["precision"] >= PINNED[name]["abstain_precision"]


@pytest.mark.parametrize("name", sorted(PINNED))
def test_confidence_stays_calibrated(summaries, name):
    calibration = summaries[name]["calibration"]
    assert calibration["ece"] <= PINNED[name]["max_ece"]
    assert calibration["confident_precision"] >= PINNED[name]["confident_precision"]
