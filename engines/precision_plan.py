"""Choose a precision: apply the wanted pass, gate it, fall back until one passes.

int8 → fp16 → fp32 for TensorRT; int8 (dynamic) → fp32 for ONNX Runtime on
the CPU, where FP16 is not faster. Each refusal is recorded with its reason.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Sequence

from engines import precision as passes
from engines.backend import BackendError
from engines.feeds import image_feeds, text_feeds
from engines.gate import GateResult, GateThresholds, encoder_gate, output_gate
from engines.onnx_io import file_sha256
from engines.recipes import ModelRecipe

log = logging.getLogger(__name__)

MIN_CALIBRATION_SAMPLES = 500
#: A reduced precision serves on the CPU only when at least this much faster.
MIN_CPU_SPEEDUP = 1.1
CHAINS = {
    "tensorrt": {"int8": ("int8", "fp16", "fp32"), "fp16": ("fp16", "fp32"), "fp32": ("fp32",)},
    "ort-cpu": {"int8": ("int8", "fp32"), "fp16": ("fp32",), "fp32": ("fp32",)},
}


@dataclass(frozen=True)
class TextData:
    """Real text: calibration samples, and held-back queries + bank texts for the gate."""

    calibration: tuple[str, ...]
    queries: tuple[str, ...]
    bank: tuple[str, ...]


@dataclass(frozen=True)
class PrecisionFallback:
    precision: str
    reason: str
    #: What was measured before refusing (None where the pass itself failed).
    gate: GateResult | None = None
    speedup: float | None = None


@dataclass
class PrecisionOutcome:
    wanted: str
    precision: str
    onnx_path: Path
    gate: GateResult | None
    calibration_samples: int | None = None
    calibration_note: str = ""
    fallbacks: list[PrecisionFallback] = field(default_factory=list)
    #: Throughput vs FP32 on this CPU (ONNX Runtime targets only).
    speedup: float | None = None

    def to_dict(self) -> dict:
        data = asdict(self)
        data["onnx_path"] = str(self.onnx_path)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "PrecisionOutcome":
        gate = GateResult(**data["gate"]) if data.get("gate") else None
        fallbacks = [PrecisionFallback(f["precision"], f["reason"],
                                       GateResult(**f["gate"]) if f.get("gate") else None, f.get("speedup"))
                     for f in data.get("fallbacks", [])]
        return cls(data["wanted"], data["precision"], Path(data["onnx_path"]), gate,
                   data.get("calibration_samples"), data.get("calibration_note", ""), fallbacks,
                   data.get("speedup"))


class PrecisionPlanner:
    """Runs the precision chain for one recipe and target backend."""

    def __init__(self, recipe: ModelRecipe, target: str, work_dir: Path, data: TextData | None = None,
                 thresholds: GateThresholds = GateThresholds()):
        if target not in CHAINS:
            raise ValueError(f"unknown precision target {target!r}")
        self.recipe, self.target, self.data, self.thresholds = recipe, target, data, thresholds
        self.work_dir = Path(work_dir)

    def plan(self, src: Path, wanted: str) -> PrecisionOutcome:
        """The first precision of the chain that passes the gate (fp32 always does)."""
        src = Path(src)
        fallbacks: list[PrecisionFallback] = []
        for candidate in CHAINS[self.target][wanted]:
            if candidate == "fp32":
                return PrecisionOutcome(wanted, "fp32", src, None, fallbacks=fallbacks)
            try:
                outcome = self.attempt(src, wanted, candidate)
            except (passes.PrecisionError, BackendError, ValueError) as exc:
                fallbacks.append(PrecisionFallback(candidate, str(exc)))
                log.warning("%s: %s refused: %s", self.recipe.id, candidate, exc)
                continue
            if outcome.gate.passed and self.target == "ort-cpu":
                outcome.speedup = self._speedup(src, outcome.onnx_path)
                if outcome.speedup < MIN_CPU_SPEEDUP:
                    fallbacks.append(PrecisionFallback(candidate, f"not faster on this CPU ({outcome.speedup:.2f}x)",
                                                       outcome.gate, outcome.speedup))
                    continue
            if outcome.gate.passed:
                outcome.fallbacks = fallbacks
                return outcome
            fallbacks.append(PrecisionFallback(candidate, f"accuracy gate failed: {outcome.gate.reason}",
                                               outcome.gate))
            log.warning("%s: %s failed the accuracy gate: %s", self.recipe.id, candidate, outcome.gate.reason)
        raise AssertionError("unreachable: every chain ends with fp32")

    def attempt(self, src: Path, wanted: str, candidate: str) -> PrecisionOutcome:
        dst = self.work_dir / f"{self.recipe.id}-{candidate}-{self.target}-{file_sha256(src)[:12]}.onnx"
        samples, note = None, ""
        if candidate == "fp16":
            passes.to_fp16(src, dst)
        elif self.target == "ort-cpu":
            passes.to_int8_dynamic(src, dst, self.recipe.int8_dynamic_exclude)
        else:
            calibration, samples, note = self._calibration()
            passes.to_int8_qdq(src, dst, calibration, self.recipe.int8_exclude)
        return PrecisionOutcome(wanted, candidate, dst, self.gate(src, dst), samples, note)

    def _calibration(self):
        if self.recipe.task != "sentence-encoder":
            feeds = image_feeds(self.recipe, count=8, seed=1)
            return feeds, len(feeds), "synthetic images (no real OCR calibration set)"
        if self.data is None or not self.data.calibration:
            raise ValueError("no calibration text given for INT8")
        texts = self.data.calibration
        note = "" if len(texts) >= MIN_CALIBRATION_SAMPLES else (
            f"only {len(texts)} calibration samples (< {MIN_CALIBRATION_SAMPLES})")
        # One text per feed: no padding, so no padded position's activations widen a range.
        return text_feeds(self.recipe, texts, batch_size=1), len(texts), note

    def _speedup(self, reference_path: Path, candidate_path: Path) -> float:
        """FP32 time / candidate time on one representative batch (best of 3 runs each)."""
        from engines.ort_backend import OnnxRuntimeBackend

        if self.recipe.task == "sentence-encoder":
            texts = list((self.data.calibration if self.data else ()) or ("What is photosynthesis?",))
            feed = text_feeds(self.recipe, (texts * 32)[:32], batch_size=32)[0]
        else:
            feed = image_feeds(self.recipe, count=1)[0]
        times = []
        for path in (reference_path, candidate_path):
            backend = OnnxRuntimeBackend(path, use_cuda=False)
            backend.run(feed)
            times.append(min(_timed(backend, feed) for _ in range(3)))
        return times[0] / times[1]

    def gate(self, reference_path: Path, candidate_path: Path) -> GateResult:
        from engines.ort_backend import OnnxRuntimeBackend

        reference = OnnxRuntimeBackend(reference_path, use_cuda=False)
        candidate = OnnxRuntimeBackend(candidate_path, use_cuda=False)
        if self.recipe.task == "sentence-encoder":
            if self.data is None or not self.data.queries or not self.data.bank:
                raise ValueError("no held-back queries and bank texts to gate on")
            queries = [q for q in self.data.queries if (self.recipe.gate_query_filter or bool)(q)]
            return encoder_gate(self.recipe.make_encoder(reference), self.recipe.make_encoder(candidate),
                                queries, self.data.bank, self.thresholds)
        return output_gate(reference, candidate, image_feeds(self.recipe, count=3, seed=2), self.thresholds)


def _timed(backend, feed) -> float:
    started = time.perf_counter()
    backend.run(feed)
    return time.perf_counter() - started


def cached_plan(planner: PrecisionPlanner, src: Path, wanted: str, recompute: bool = True) -> PrecisionOutcome:
    """:meth:`PrecisionPlanner.plan`, remembered in a JSON sidecar keyed by the source's sha256.

    With ``recompute`` False a missing or stale sidecar gives plain FP32 (nothing is
    written): a daemon started without calibration text must not record a verdict.
    """
    src = Path(src)
    if CHAINS[planner.target][wanted] == ("fp32",):  # nothing to decide
        return PrecisionOutcome(wanted, "fp32", src, None)
    sidecar = planner.work_dir / f"{planner.recipe.id}-{wanted}-{planner.target}.precision.json"
    key = {"source_sha256": file_sha256(src), "wanted": wanted, "exclude": list(planner.recipe.int8_exclude),
           "dynamic_exclude": list(planner.recipe.int8_dynamic_exclude)}
    if sidecar.is_file():
        try:
            saved = json.loads(sidecar.read_text(encoding="utf-8"))
            outcome = PrecisionOutcome.from_dict(saved["outcome"])
            if saved.get("key") == key and outcome.onnx_path.is_file():
                return outcome
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring unreadable %s: %s", sidecar, exc)
    if not recompute:
        return PrecisionOutcome(wanted, "fp32", src, None,
                                fallbacks=[PrecisionFallback(wanted, "no precision verdict yet (eduqa engines ensure decides it on this CPU)")]
                                if wanted != "fp32" else [])
    outcome = planner.plan(src, wanted)
    planner.work_dir.mkdir(parents=True, exist_ok=True)
    tmp = sidecar.with_suffix(".tmp")
    tmp.write_text(json.dumps({"key": key, "outcome": outcome.to_dict()}, indent=2), encoding="utf-8")
    tmp.replace(sidecar)
    return outcome


def read_text_sets(calibration: Sequence[str], queries: Sequence[str], bank: Sequence[str]) -> TextData:
    """Normalise three text lists (blank lines dropped, order kept, duplicates removed)."""
    def clean(texts):
        return tuple(dict.fromkeys(t.strip() for t in texts if t and t.strip()))

    return TextData(clean(calibration), clean(queries), clean(bank))
