"""Training the verifier: pairs from the bank and the tuning set, a logistic model, an
isotonic calibration, the abstain threshold.

The bank is its own training data (docs/SEARCH.md, "Verification"):

* **retypings** of each bank question are the same problem (ASCII maths, no spaces, a
  numbered preface, filler, the bare expression, one typo);
* **near misses** made from it are not (one given changed, an operator or sign flipped,
  an exponent changed, a quoted line or title swapped for another entry's, a term swapped
  for its opposite, a negation added).

:func:`generate` writes them as a query file (``appliance/data/tune_generated.csv``);
:func:`train` reads query files, asks the search for each query's candidates, labels
each (query, candidate) pair, fits the model, and calibrates it on out-of-fold scores
(queries split into folds, so no query's score comes from a model that saw it).

    python -m appliance.bench.verifier_training generate
    python -m appliance.bench.verifier_training train
    python -m appliance.bench.verifier_training crossval   # each set scored by a model of the others
    python -m appliance.bench.verifier_training terse-threshold   # only the terse questions' threshold
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import csv
import json
import logging
import random
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from appliance.ask import calibration
from appliance.ask.key_term_swap import GROUPS as _GROUPS
from appliance.ask.pair_features import FEATURES, question_problem, terse
from appliance.ask.verify import TeacherView, VerifierModel
from appliance.bench.evaluation import EvalQuery, read_queries
from appliance.common.textnorm import search_form

log = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parents[1] / "data"
#: The model learns from the hand-written tuning sets only, each set weighing the same
#: whatever its size: trained on the generated pairs as well, it learned their easy
#: distribution and lost paraphrases (docs/BENCHMARKS.md). The generated pairs tune and
#: test the rules (:func:`appliance.ask.pair_features.vetoed`).
TRAIN_SETS = (DATA / "demo_eval.csv", DATA / "demo_eval_holdout.csv", DATA / "tune_independent.csv",
              DATA / "tune_independent2.csv")
FOLDS = 5
CALIBRATION = os.environ.get("EDUQA_CALIBRATION", "isotonic")
SEED = 11

_PREFACES = ("第3题：", "Homework 2: ", "例1 ", "老师，", "请问", "这题怎么做：", "Q4. ", "帮我看看：")
_INSTRUCTIONS = re.compile(r"^(?:计算|解方程组?|因式分解|求|已知|写出|把|Find|Solve|Calculate|What is|Choose the correct word)[:：]?\s*")
_ASCII = str.maketrans({"²": "^2", "³": "^3", "×": "*", "÷": "/", "−": "-", "₁": "1", "₀": "0", "₂": "2",
                        "₃": "3", "₅": "5", "ₙ": "n", "°": "度", "√": "sqrt", "：": ":", "，": ",", "？": "?"})
_SCRIPTS = {"²": "³", "³": "²", "₁₀": "₅", "₅": "₁₀", "₂": "₃"}
_FLIPS = {"+": "-", "-": "+", ">": "<", "<": ">", "×": "÷", "÷": "×"}
_CONTRAST = [g.split() for g in _GROUPS if not any(ch in g for ch in "+<一")]


@dataclass(frozen=True)
class Generated:
    query: str
    source_id: str
    kind: str  # exact / paraphrase / partial for retypings, unanswerable for near misses


# -- generation --------------------------------------------------------------------------------
def retypings(question: str, rng: random.Random) -> list[tuple[str, str]]:
    """(text, kind) variants that ask the same problem."""
    found = [
        (question.translate(_ASCII), "exact"),
        (re.sub(r"\s+", "", question), "exact"),
        (rng.choice(_PREFACES) + question, "paraphrase"),
        (re.sub(r"[？?。.]$", "", question.translate(_ASCII)).lower(), "exact"),
    ]
    core = _INSTRUCTIONS.sub("", question)
    if core != question and len(core) >= 4:
        found.append((core, "partial"))
    words = [w for w in re.findall(r"[A-Za-z]{5,}", question)]
    if words:
        word = rng.choice(words)
        i = rng.randrange(len(word) - 1)
        typo = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        found.append((question.replace(word, typo, 1), "paraphrase"))
    return [(t, k) for t, k in dict(found).items() if search_form(t) and t != question] + [(question, "exact")]


def near_misses(question: str, others: list[str], rng: random.Random) -> list[str]:
    """Variants that ask another problem."""
    found = []
    numbers = re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])", question)
    if numbers:
        number = rng.choice(numbers)
        bumped = str(int(float(number)) + rng.choice((1, 2, 3))) if "." not in number else number + "5"
        found.append(re.sub(rf"(?<![\d.]){re.escape(number)}(?![\d.])", bumped, question, count=1))
    for old, new in _SCRIPTS.items():
        if old in question:
            found.append(question.replace(old, new, 1))
            break
    maths = [(m.start(1), m.group(1)) for m in re.finditer(r"[\dxya-z)²]\s*([+\-<>×÷])\s*[\dxya-z(]", question)]
    if maths:
        at, op = rng.choice(maths)
        found.append(question[:at] + _FLIPS[op] + question[at + 1:])
    spans = [s for s in re.findall(r"“[^”]+”|《[^》]+》|\"[^\"]+\"", question)]
    if spans:
        span = spans[0]
        pool = [s for o in others for s in re.findall(re.escape(span[0]) + r"[^" + re.escape(span[-1]) + r"]+" + re.escape(span[-1]), o) if s != span]
        if pool:
            found.append(question.replace(span, rng.choice(pool), 1))
    for group in _CONTRAST:
        present = [t for t in group if len(t) >= 2 and t in question]
        if present:
            term = max(present, key=len)
            found.append(question.replace(term, rng.choice([t for t in group if t != term and len(t) >= 2] or [term]), 1))
            break
    if re.search(r"\bis\b", question):
        found.append(re.sub(r"\bis\b", "is not", question, count=1))
    elif "是" in question:
        found.append(question.replace("是", "不是", 1))
    return [f for f in dict.fromkeys(found) if f != question]


def generate(bank: list[dict], seed: int = SEED) -> list[Generated]:
    rng = random.Random(seed)
    by_form = {search_form(e["question"]): e["id"] for e in bank}
    questions = [e["question"] for e in bank]
    out = []
    for entry in bank:
        for text, kind in retypings(entry["question"], rng):
            out.append(Generated(text, entry["id"], kind))
        for text in near_misses(entry["question"], questions, rng):
            twin = by_form.get(search_form(text))
            out.append(Generated(text, twin, "exact") if twin else Generated(text, "", "unanswerable"))
    return out


def write_generated(items: list[Generated], path: Path) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(("qid", "query", "expected_id", "kind"))
        for i, item in enumerate(items, 1):
            writer.writerow((f"g{i:04d}", item.query, item.source_id, item.kind))


# -- pairs -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pairs:
    rows: np.ndarray  # one feature row per (query, candidate)
    labels: np.ndarray  # 1: the candidate is the query's entry
    groups: np.ndarray  # query index of each row
    queries: list[EvalQuery]


def collect_pairs(service, queries: list[EvalQuery]) -> Pairs:
    """Every query's closest candidates (as the ask path finds them), labelled."""
    rows, labels, groups = [], [], []
    vectors = service.encoder.encode([q.query for q in queries])
    service.refresh_index()
    for i, (query, vector) in enumerate(zip(queries, vectors)):
        ranked = service.search.search(query.query, vector, bank_version=service._index_version)
        found = service.verifier.candidate_features(query.query, vector, ranked, service._context, TeacherView())
        for _candidate, entry, feature_rows, veto in found:
            if veto[0] is not None:  # certainly another problem: the rules decide, not the model
                continue
            rows.append(feature_rows[0])
            labels.append(int(entry["id"] == query.expected_id))
            groups.append(i)
    return Pairs(np.array(rows), np.array(labels), np.array(groups), queries)


def fit_logistic(rows: np.ndarray, labels: np.ndarray,
                 weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    mean, scale = rows.mean(axis=0), rows.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=1.0, max_iter=3000, class_weight="balanced")
    model.fit((rows - mean) / scale, labels, sample_weight=None if weights is None else weights / weights.mean())
    return mean, scale, model.coef_[0], float(model.intercept_[0])


def decisions(pairs: Pairs, raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per query: the best candidate's raw score, and whether answering with it is right.
    A query whose every candidate was vetoed abstains whatever the calibration: it is left
    out."""
    best_raw, right = [], []
    for i in range(len(pairs.queries)):
        mine = np.flatnonzero(pairs.groups == i)
        if len(mine) == 0:
            continue
        top = mine[np.argmax(raw[mine])]
        best_raw.append(raw[top])
        right.append(int(pairs.labels[top] == 1))
    return np.array(best_raw), np.array(right)


def out_of_fold(pairs: Pairs, folds: int = FOLDS) -> np.ndarray:
    raw = np.zeros(len(pairs.labels))
    fold_of = np.arange(len(pairs.queries)) % folds
    for k in range(folds):
        test = fold_of[pairs.groups] == k
        mean, scale, coef, intercept = fit_logistic(pairs.rows[~test], pairs.labels[~test])
        raw[test] = _raw(pairs.rows[test], mean, scale, coef, intercept)
    return raw


def _raw(rows, mean, scale, coef, intercept) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(((rows - mean) / scale) @ coef + intercept)))


def set_weights(pairs: Pairs) -> np.ndarray:
    """Every pair of a set weighs 1 / (the set's queries): each set counts the same."""
    return np.full(len(pairs.labels), 1.0 / max(1, len(pairs.queries)))


def set_out_scores(per_set: list[Pairs]) -> list[np.ndarray]:
    """Each set's pairs scored by a model fitted on the *other* sets only (out-of-fold
    within the set when there is one set): the scores of questions written by someone
    the model never learned from, which is what the shipped model meets at a school."""
    scores = []
    for k, pairs in enumerate(per_set):
        others = [p for j, p in enumerate(per_set) if j != k]
        if not others:
            scores.append(out_of_fold(pairs))
            continue
        params = fit_logistic(np.vstack([p.rows for p in others]), np.concatenate([p.labels for p in others]),
                              np.concatenate([set_weights(p) for p in others]))
        scores.append(_raw(pairs.rows, *params))
    return scores


def train(service, sets: tuple[Path, ...] = TRAIN_SETS) -> tuple[VerifierModel, dict]:
    per_set = [collect_pairs(service, read_queries(path)) for path in sets]
    raw, ok, w, terse_mask = set_out_decisions(per_set)
    fitted = calibration.fit_on_decisions(raw, ok, CALIBRATION, weights=w / w.mean())
    rows = np.vstack([p.rows for p in per_set])
    mean, scale, coef, intercept = fit_logistic(rows, np.concatenate([p.labels for p in per_set]),
                                                np.concatenate([set_weights(p) for p in per_set]))
    by_set, start = {}, 0
    for path, pairs in zip(sets, per_set):
        n = len(decided(pairs))
        by_set[path.name] = {"queries": len(pairs.queries), "set_out_ece": round(
            calibration.expected_calibration_error(fitted(raw[start:start + n]), ok[start:start + n]), 4)}
        start += n
    terse_at = calibration.terse_threshold(fitted(raw), ok, terse_mask, w)
    queries = sum(len(p.queries) for p in per_set)
    model = VerifierModel(FEATURES, mean, scale, coef, intercept, fitted.x, fitted.y, fitted.threshold,
                          note=f"trained on {', '.join(p.name for p in sets)}: {queries} queries, "
                               f"{len(rows)} pairs, each set weighing the same; calibrated on each set's "
                               f"scores from a model fitted on the other sets", terse_threshold=terse_at)
    report = {"queries": queries, "pairs": int(len(rows)), "threshold": fitted.threshold,
              "terse_threshold": terse_at, "sets": by_set, "weights": dict(zip(FEATURES, np.round(coef, 3).tolist()))}
    return model, report


def decided(pairs: Pairs) -> list[EvalQuery]:
    """The queries with a candidate no rule vetoed, in the order :func:`decisions` keeps."""
    return [q for i, q in enumerate(pairs.queries) if np.any(pairs.groups == i)]


def set_out_decisions(per_set: list[Pairs]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every set's decisions scored by a model of the other sets: (best raw score, right,
    weight — each set weighing the same —, terse question), one row per decided query."""
    raws, rights, weights, terse_flags = [], [], [], []
    for pairs, scores in zip(per_set, set_out_scores(per_set)):
        raw, ok = decisions(pairs, scores)
        raws.append(raw)
        rights.append(ok)
        weights.append(np.full(len(raw), 1.0 / max(1, len(pairs.queries))))
        terse_flags.append(np.array([terse(question_problem(q.query)) for q in decided(pairs)], bool))
    return np.concatenate(raws), np.concatenate(rights), np.concatenate(weights), np.concatenate(terse_flags)


def shipped_with_terse_threshold(service, model: VerifierModel, sets: tuple[Path, ...] = TRAIN_SETS) -> tuple[VerifierModel, dict]:
    """The shipped model with only its terse threshold chosen anew: the training sets'
    decisions scored by models of the other sets, read on the shipped calibration."""
    per_set = [collect_pairs(service, read_queries(path)) for path in sets]
    raw, ok, w, terse_mask = set_out_decisions(per_set)
    confidence = np.array([model.calibrated(r) for r in raw])
    terse_at = calibration.terse_threshold(confidence, ok, terse_mask, w)
    report = {"terse_decisions": int(terse_mask.sum()), "terse_right": int(ok[terse_mask].sum()),
              "threshold": model.threshold, "terse_threshold": terse_at}
    return dataclasses.replace(model, terse_threshold=terse_at), report


def cross_validate(service, sets: tuple[Path, ...] = TRAIN_SETS) -> dict:
    """Each set's figures from a model trained and calibrated on the other sets only: how
    the verifier does on questions written by someone it never learned from (the shipped
    model, trained on all of them, scores better on each than it would on a new set)."""
    from appliance.bench import evaluation

    figures = {}
    for held in sets:
        model, _ = train(service, tuple(s for s in sets if s != held))
        service.verifier.model = model
        service.clear_answer_cache()
        summary = evaluation.summarise(evaluation.run_eval(read_queries(held), service.decide_only))
        calib = summary["calibration"]
        figures[held.name] = {
            "top1": {k: v["top1"] for k, v in summary["by_kind"].items()}, "abstain": summary["abstain"],
            "ece": calib["ece"], "confident": [calib["confident_answers"], calib["confident_precision"]],
        }
    return figures


def _open_service(data_dir: Path):
    from appliance.ask.service import AskService
    from appliance.config import Config

    config = Config(data_dir=data_dir)
    return AskService.open(config, verifier_model=VerifierModel.untrained())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("generate", "train", "crossval", "terse-threshold"))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--sets", type=Path, nargs="+", default=list(TRAIN_SETS), help="query files to train on")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    bank = [json.loads(line) for line in (DATA / "demo_bank.jsonl").read_text("utf-8").splitlines() if line.strip()]
    if args.step == "generate":
        items = generate(bank)
        out = args.out or DATA / "tune_generated.csv"
        write_generated(items, out)
        print(f"wrote {len(items)} queries to {out}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        service = _open_service(Path(tmp))
        try:
            if args.step == "crossval":
                print(json.dumps(cross_validate(service, tuple(args.sets)), indent=1, ensure_ascii=False))
                return
            if args.step == "terse-threshold":
                model, report = shipped_with_terse_threshold(service, VerifierModel.load(), tuple(args.sets))
            else:
                model, report = train(service, tuple(args.sets))
        finally:
            service.close()
    out = args.out or DATA / "verifier.json"
    out.write_text(json.dumps(model.to_dict(), indent=1) + "\n", "utf-8")
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
