"""INT8 on the CPU: throughput and accuracy of dynamic INT8 and static Q/DQ vs FP32.

Throughput is texts per second through ONNX Runtime on the CPU, at a fixed
batch size, over real text (tokenised once; tokenisation is not timed), the
median of ``rounds`` passes. The machine's load average is recorded with the
figures because other work on the same cores skews them.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from engines.feeds import text_feeds
from engines.gate import GateResult
from engines.ort_backend import OnnxRuntimeBackend
from engines.precision_plan import PrecisionPlanner
from engines.recipes import ModelRecipe


@dataclass
class BenchResult:
    model_id: str
    batch: int
    threads: int
    load_average: tuple[float, float, float]
    fp32_texts_per_s: float
    int8_dynamic_texts_per_s: float
    int8_qdq_texts_per_s: float
    dynamic_gate: GateResult
    qdq_gate: GateResult
    #: Dense-retrieval top-1 accuracy on a labelled eval set: {"fp32": .., "int8-dynamic": .., "int8-qdq": ..}
    eval_top1: dict | None = None

    @property
    def dynamic_speedup(self) -> float:
        return self.int8_dynamic_texts_per_s / self.fp32_texts_per_s

    def to_dict(self) -> dict:
        data = asdict(self)
        data["dynamic_speedup"] = round(self.dynamic_speedup, 3)
        return data

    def summary(self) -> str:
        def gate(g: GateResult) -> str:
            top1 = (f", top-1 {g.top1_agreement:.1%} (strict {g.top1_strict:.1%})"
                    if g.top1_agreement is not None else "")
            return f"{'PASS' if g.passed else 'FAIL'} (cos mean {g.mean_cosine:.4f}, min {g.min_cosine:.4f}{top1})"

        return (
            f"{self.model_id}: batch {self.batch}, {self.threads} threads, load {self.load_average[0]:.2f}\n"
            f"  fp32          {self.fp32_texts_per_s:8.1f} texts/s\n"
            f"  int8 dynamic  {self.int8_dynamic_texts_per_s:8.1f} texts/s  ({self.dynamic_speedup:.2f}x)  "
            f"gate {gate(self.dynamic_gate)}\n"
            f"  int8 Q/DQ     {self.int8_qdq_texts_per_s:8.1f} texts/s  "
            f"({self.int8_qdq_texts_per_s / self.fp32_texts_per_s:.2f}x on ORT CPU; built for TensorRT)  "
            f"gate {gate(self.qdq_gate)}"
            + ("\n  eval top-1 (dense): " + ", ".join(f"{k} {v:.1%}" for k, v in self.eval_top1.items())
               if self.eval_top1 else "")
        )


def throughputs(model_paths: list[Path], feeds: list[dict], rounds: int, threads: int = 0) -> list[float]:
    """Texts per second of each model: median over ``rounds``, the models taking turns within
    each round so that load from other work on the machine falls on all of them alike."""
    backends = [OnnxRuntimeBackend(path, threads=threads, use_cuda=False, spin=True) for path in model_paths]
    for backend in backends:
        backend.run(feeds[0])  # warm-up
    texts = sum(len(next(iter(f.values()))) for f in feeds)
    times: list[list[float]] = [[] for _ in backends]
    for _ in range(rounds):
        for backend, spent in zip(backends, times):
            started = time.perf_counter()
            for feed in feeds:
                backend.run(feed)
            spent.append(time.perf_counter() - started)
    return [texts / statistics.median(spent) for spent in times]


@dataclass(frozen=True)
class LabelledEval:
    """Queries with the id of the bank entry that answers each, and the bank (ids, texts)."""

    queries: tuple[str, ...]
    expected: tuple[str, ...]
    bank_ids: tuple[str, ...]
    bank_texts: tuple[str, ...]


def dense_top1(encoder, labelled: LabelledEval) -> float:
    """Share of queries whose nearest bank text (cosine) is the expected entry."""
    import numpy as np

    queries = encoder.encode(list(labelled.queries))
    bank = encoder.encode(list(labelled.bank_texts))
    best = np.argmax(queries @ bank.T, axis=1)
    return float(np.mean([labelled.bank_ids[i] == e for i, e in zip(best, labelled.expected)]))


def _eval_top1(recipe: ModelRecipe, labelled: LabelledEval, models: dict[str, Path]) -> dict:
    return {name: dense_top1(recipe.make_encoder(OnnxRuntimeBackend(path, use_cuda=False)), labelled)
            for name, path in models.items()}


def bench_int8(manager, recipe: ModelRecipe, batch: int = 32, rounds: int = 20,
               labelled: LabelledEval | None = None) -> BenchResult:
    """Both INT8 flavours of ``recipe`` against FP32; gates use the manager's text data."""
    data = manager.text_data
    if data is None:
        raise ValueError("bench-int8 needs calibration text, held-back queries and bank texts")
    work = Path(manager.config.cache_dir) / "precision"
    ort_src = recipe.onnx_for_ort(manager.config.cache_dir)
    trt_src = recipe.onnx_for_trt(manager.config.cache_dir)
    cpu = PrecisionPlanner(recipe, "ort-cpu", work, data)
    dynamic = cpu.attempt(ort_src, "int8", "int8")
    qdq = PrecisionPlanner(recipe, "tensorrt", work, data).attempt(trt_src, "int8", "int8")
    feeds = text_feeds(recipe, list(data.bank)[: batch * 4], batch_size=batch)
    feeds = [f for f in feeds if len(next(iter(f.values()))) == batch] or feeds
    threads = manager.config.ort_threads
    load = os.getloadavg()
    fp32, dyn, static = throughputs([ort_src, dynamic.onnx_path, qdq.onnx_path], feeds, rounds, threads)
    return BenchResult(
        model_id=recipe.id, batch=batch, threads=threads or (os.cpu_count() or 1),
        load_average=load,
        fp32_texts_per_s=fp32,
        int8_dynamic_texts_per_s=dyn,
        int8_qdq_texts_per_s=static,
        dynamic_gate=dynamic.gate, qdq_gate=qdq.gate,
        eval_top1=_eval_top1(recipe, labelled, {"fp32": ort_src, "int8-dynamic": dynamic.onnx_path,
                                                "int8-qdq": qdq.onnx_path}) if labelled else None,
    )
