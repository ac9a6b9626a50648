"""Accuracy gate: a reduced-precision model against its FP32 reference.

Encoders are judged on held-back queries: cosine of the two embeddings of
each query (mean and worst), and top-1 retrieval agreement — each query's
nearest bank text is the same under both models. Other models are judged on
the cosine of their flattened outputs per sample.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Mapping, Sequence

import numpy as np

from engines.backend import InferenceBackend


@dataclass(frozen=True)
class GateThresholds:
    mean_cosine: float = 0.99
    min_cosine: float = 0.97
    top1_agreement: float = 0.98
    #: Bank entries whose FP32 similarities to a query are within this are a tie: picking
    #: either one agrees (e.g. "sin 30° + cos 60°" vs "sin 60° + cos 30°", 1e-4 apart for
    #: a bag-of-words-like encoder). 0 gives the strict count.
    tie_tolerance: float = 1e-3


@dataclass(frozen=True)
class GateResult:
    passed: bool
    mean_cosine: float
    min_cosine: float
    #: None where the model is not a retrieval encoder.
    top1_agreement: float | None
    samples: int
    reason: str
    #: Top-1 agreement with no tie tolerance (reported, not gated).
    top1_strict: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _rowwise_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a.reshape(len(a), -1).astype(np.float64)
    b = b.reshape(len(b), -1).astype(np.float64)
    denom = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.divide((a * b).sum(axis=1), denom, out=np.zeros(len(a)), where=denom > 0)


def _judge(cos: np.ndarray, top1: float | None, t: GateThresholds, top1_strict: float | None = None) -> GateResult:
    if not np.isfinite(cos).all():
        return GateResult(False, float("nan"), float("nan"), top1, len(cos), "non-finite outputs")
    failures = []
    if cos.mean() < t.mean_cosine:
        failures.append(f"mean cosine {cos.mean():.4f} < {t.mean_cosine}")
    if cos.min() < t.min_cosine:
        failures.append(f"min cosine {cos.min():.4f} < {t.min_cosine}")
    if top1 is not None and top1 < t.top1_agreement:
        failures.append(f"top-1 agreement {top1:.1%} < {t.top1_agreement:.0%}")
    reason = "; ".join(failures) or "passed"
    return GateResult(not failures, float(cos.mean()), float(cos.min()), top1, len(cos), reason, top1_strict)


def top1_agreement(ref_queries, ref_bank, cand_queries, cand_bank, tie_tolerance: float = 0.0) -> float:
    """Share of queries whose nearest bank row is the same under both models; a row
    within ``tie_tolerance`` of the reference's best (reference similarities) counts as the same."""
    ref_scores = ref_queries @ ref_bank.T
    cand_best = np.argmax(cand_queries @ cand_bank.T, axis=1)
    rows = np.arange(len(ref_scores))
    return float(np.mean(ref_scores[rows, cand_best] >= ref_scores.max(axis=1) - tie_tolerance))


def encoder_gate(reference, candidate, queries: Sequence[str], bank: Sequence[str],
                 thresholds: GateThresholds = GateThresholds()) -> GateResult:
    """Compare two sentence encoders (anything with ``encode(texts)``) on held-back queries."""
    if not queries or not bank:
        raise ValueError("the gate needs held-back queries and bank texts")
    ref_q, cand_q = reference.encode(list(queries)), candidate.encode(list(queries))
    ref_b, cand_b = reference.encode(list(bank)), candidate.encode(list(bank))
    cos = _rowwise_cosine(ref_q, cand_q)
    if not (np.isfinite(cand_q).all() and np.isfinite(cand_b).all()):
        return GateResult(False, float("nan"), float("nan"), None, len(cos), "non-finite outputs")
    top1 = top1_agreement(ref_q, ref_b, cand_q, cand_b, thresholds.tie_tolerance)
    return _judge(cos, top1, thresholds, top1_agreement(ref_q, ref_b, cand_q, cand_b))


def output_gate(reference: InferenceBackend, candidate: InferenceBackend,
                feeds: Sequence[Mapping[str, np.ndarray]],
                thresholds: GateThresholds = GateThresholds()) -> GateResult:
    """Compare every output of two backends sample by sample."""
    cosines = []
    for feed in feeds:
        ref, cand = reference.run(feed), candidate.run(feed)
        for name in reference.output_names:
            if ref[name].shape != cand[name].shape:
                return GateResult(False, 0.0, 0.0, None, len(cosines),
                                  f"output {name} shape {cand[name].shape} != {ref[name].shape}")
            cosines.append(_rowwise_cosine(ref[name], cand[name]))
    return _judge(np.concatenate(cosines), None, thresholds)
