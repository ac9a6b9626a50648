"""The engine lifecycle: ensure (reuse or build, verify), serve, fail over.

``ensure`` computes each model's engine key (model sha256, precision,
flavour + version, GPU name, compute capability); a manifest with the same
key whose engine file still has its recorded sha256 is reused, anything else
is built again (precision pass → TensorRT build → verification against ONNX
Runtime). Only a verified engine serves. ``backend_for`` hands out a
TensorRT backend wrapped in a :class:`FailoverBackend` whose fallback is
ONNX Runtime, or ONNX Runtime directly, and records why in a
:class:`ModelStatus`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

from engines.backend import BackendError, InferenceBackend
from engines.engine_key import BuildTarget, EngineKey
from engines.failover import FailoverBackend
from engines.feeds import sample_feeds
from engines.manifest import EngineManifest, ManifestError
from engines.encoders.base import EncoderError
from engines.onnx_io import OnnxModelError, file_sha256
from engines.ort_backend import OnnxRuntimeBackend
from engines.precision_plan import PrecisionPlanner, TextData, cached_plan
from engines.recipes import ModelRecipe, RecipeError, default_recipes, get_recipe
from engines.status import ModelStatus
from engines.trt.builder import BuildError, BuildRequest, build_engine
from engines.trt.cuda import GpuInfo, probe_gpu
from engines.trt.flavours import FLAVOURS, Flavour, FlavourUnavailable, get_flavour
from engines.verify import unverified, verify_engine

log = logging.getLogger(__name__)

#: Failures that leave ONNX Runtime serving one model (and the other models going on).
_SERVE_ERRORS = (FlavourUnavailable, BackendError, RecipeError, EncoderError, OnnxModelError, OSError)
_ENSURE_ERRORS = _SERVE_ERRORS + (BuildError,)
#: Where a GPU-less TensorRT-RTX build aims: Ampere RTX (RTX 30xx, A-series workstation cards).
DEFAULT_AOT_CC = "8.6"
Progress = Callable[[str, str], None]


@dataclass(frozen=True)
class ManagerConfig:
    engine_dir: Path
    cache_dir: Path
    #: "tensorrt", "tensorrt-rtx" or None (full TensorRT where it runs, else RTX).
    flavour: str | None = None
    #: None: each recipe's own precision.
    precision: str | None = None
    aot_compute_capability: str = DEFAULT_AOT_CC
    streams: int = 1
    ort_threads: int = 0


class EngineManager:
    def __init__(self, config: ManagerConfig, recipes: dict[str, ModelRecipe] | None = None,
                 text_data: TextData | None = None, probe: Callable[[], GpuInfo | None] = probe_gpu,
                 builder=build_engine, open_engine=None):
        self.config = config
        self.recipes = default_recipes() if recipes is None else recipes
        self.text_data = text_data
        self._probe = probe
        self._builder = builder
        self._open_engine = open_engine or self._open_trt
        self._statuses: dict[str, ModelStatus] = {}
        self._gpu: GpuInfo | None = None
        self._gpu_probed = False

    # ------------------------------------------------------------ targets

    def gpu(self) -> GpuInfo | None:
        if not self._gpu_probed:
            self._gpu, self._gpu_probed = self._probe(), True
        return self._gpu

    def flavour(self) -> Flavour:
        """The configured flavour, or the first that can build here."""
        if self.config.flavour:
            flavour = get_flavour(self.config.flavour)
            flavour.load()
            return flavour
        for flavour in FLAVOURS.values():
            try:
                flavour.load()
            except FlavourUnavailable:
                continue
            if self.gpu() is not None or flavour.builds_without_gpu:
                return flavour
        raise FlavourUnavailable("no TensorRT flavour can build here (neither tensorrt nor tensorrt_rtx_bindings "
                                 "imports, or only full TensorRT is installed and there is no GPU)")

    def target(self, flavour: Flavour) -> BuildTarget:
        gpu = self.gpu()
        if gpu is not None:
            return BuildTarget(gpu.name, gpu.compute_capability, gpu.driver_version, gpu.cuda_version)
        if not flavour.builds_without_gpu:
            raise FlavourUnavailable(f"{flavour.name} needs a GPU to build engines and there is none here")
        return BuildTarget("", self.config.aot_compute_capability)

    def paths(self, model_id: str, flavour: Flavour) -> tuple[Path, Path]:
        base = Path(self.config.engine_dir) / f"{model_id}-{flavour.name}"
        return base.with_suffix(".engine"), base.with_suffix(".json")

    def wanted_precision(self, recipe: ModelRecipe) -> str:
        return self.config.precision or recipe.precision

    def expected_key(self, recipe: ModelRecipe, flavour: Flavour, target: BuildTarget) -> EngineKey:
        source = recipe.onnx_for_trt(self.config.cache_dir)
        return EngineKey.for_build(file_sha256(source), self.wanted_precision(recipe), flavour.name,
                                   flavour.version(), target)

    # ------------------------------------------------------------- checks

    def check(self, recipe: ModelRecipe, flavour: Flavour, key: EngineKey) -> tuple[EngineManifest | None, str]:
        """The reusable manifest, or None and why the engine must be (re)built."""
        engine_path, manifest_path = self.paths(recipe.id, flavour)
        if not manifest_path.is_file() or not engine_path.is_file():
            return None, "no engine built yet"
        try:
            manifest = EngineManifest.load(manifest_path)
        except ManifestError as exc:
            return None, str(exc)
        differences = manifest.key().differences(key)
        if differences:
            return None, f"engine key changed ({', '.join(differences)})"
        if file_sha256(engine_path) != manifest.engine_sha256:
            return None, "engine file does not match its manifest's sha256 (corrupted or replaced)"
        if manifest.verification.get("status") == "failed":
            return None, f"engine failed verification: {manifest.verification.get('reason', '')}"
        return manifest, "engine key matches"

    # ------------------------------------------------------------- ensure

    def ensure(self, model_ids: Iterable[str] | None = None, force: bool = False,
               progress: Progress | None = None) -> list[ModelStatus]:
        """Reuse or build every model's engine; never raises for one model's failure."""
        ids = list(model_ids) if model_ids is not None else list(self.recipes)
        return [self.ensure_one(get_recipe(mid, self.recipes), force, progress) for mid in ids]

    def ensure_one(self, recipe: ModelRecipe, force: bool = False, progress: Progress | None = None) -> ModelStatus:
        say = (lambda msg: progress(recipe.id, msg)) if progress else (lambda msg: None)
        try:
            flavour = self.flavour()
            target = self.target(flavour)
            key = self.expected_key(recipe, flavour, target)
            manifest, why = (None, "rebuild forced") if force else self.check(recipe, flavour, key)
            if manifest is None:
                say(f"building: {why}")
                manifest = self.build(recipe, flavour, target, key, say)
            else:
                say(f"reusing {self.paths(recipe.id, flavour)[0].name}: {why}")
        except _ENSURE_ERRORS as exc:
            return self._remember(self._ort_status(recipe, f"no engine: {exc}"))
        return self._remember(self._status_from(recipe, flavour, manifest))

    def build(self, recipe: ModelRecipe, flavour: Flavour, target: BuildTarget, key: EngineKey,
              say: Callable[[str], None]) -> EngineManifest:
        source = recipe.onnx_for_trt(self.config.cache_dir)
        planner = PrecisionPlanner(recipe, "tensorrt", Path(self.config.cache_dir) / "precision", self.text_data)
        say(f"precision pass ({key.precision} wanted)")
        outcome = cached_plan(planner, source, key.precision)
        say(f"precision {outcome.precision}" + "".join(f"; {f.precision} refused: {f.reason}" for f in outcome.fallbacks))
        engine_path, manifest_path = self.paths(recipe.id, flavour)
        timing_cache = Path(self.config.engine_dir) / f"timing-{flavour.name}.cache" if target.has_gpu else None
        request = BuildRequest(outcome.onnx_path, engine_path, recipe.profiles, flavour,
                               "" if target.has_gpu else target.compute_capability, timing_cache)
        result = self._builder(request, progress=_phase_reporter(say))
        manifest = self._manifest(recipe, key, target, result, outcome)
        manifest.verification = self.verify(recipe, manifest, engine_path)
        manifest.save(manifest_path)
        say(f"built in {result.seconds:.1f}s, verification: {manifest.verification['status']}")
        return manifest

    def _manifest(self, recipe, key: EngineKey, target: BuildTarget, result, outcome) -> EngineManifest:
        return EngineManifest(
            model_id=recipe.id, model_sha256=key.model_sha256, precision=outcome.precision,
            wanted_precision=key.precision, flavour=key.flavour, flavour_version=key.flavour_version,
            gpu_name=target.gpu_name, compute_capability=target.compute_capability,
            driver_version=target.driver_version, cuda_version=target.cuda_version,
            profiles=[{"name": p.name, "dtype": p.dtype, "min": list(p.min), "opt": list(p.opt), "max": list(p.max)}
                      for p in recipe.profiles],
            build_seconds=round(result.seconds, 3),
            built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            engine_file=result.engine_path.name, engine_sha256=file_sha256(result.engine_path),
            engine_bytes=result.engine_bytes,
            calibration_samples=outcome.calibration_samples, calibration_note=outcome.calibration_note,
            precision_fallbacks=[{"precision": f.precision, "reason": f.reason} for f in outcome.fallbacks],
            precision_gate=outcome.gate.to_dict() if outcome.gate else None,
        )

    def verify(self, recipe: ModelRecipe, manifest: EngineManifest, engine_path: Path) -> dict:
        if self.gpu() is None:
            return unverified()
        flavour = get_flavour(manifest.flavour)
        return verify_engine(lambda: self._open_engine(engine_path, flavour), recipe.onnx_for_ort(self.config.cache_dir),
                             sample_feeds(recipe))

    # -------------------------------------------------------------- serve

    def _serving_manifest(self, recipe: ModelRecipe) -> tuple[Flavour, EngineManifest]:
        """The flavour and manifest of a good engine; raises with the reason there is none."""
        flavour = self.flavour()
        engine_path, manifest_path = self.paths(recipe.id, flavour)
        if not engine_path.is_file() or not manifest_path.is_file():
            # Before the key: computing it may export the model, which serving must not wait for.
            raise BackendError(f"no {flavour.name} engine built yet (eduqa engines ensure builds it)")
        key = self.expected_key(recipe, flavour, self.target(flavour))
        manifest, why = self.check(recipe, flavour, key)
        if manifest is None:
            raise BackendError(why)
        if not manifest.verified:
            raise BackendError(manifest.verification.get("reason", "engine not verified"))
        return flavour, manifest

    def inspect(self, model_id: str) -> ModelStatus:
        """What would serve ``model_id`` and why, without loading anything."""
        recipe = get_recipe(model_id, self.recipes)
        try:
            flavour, manifest = self._serving_manifest(recipe)
        except _SERVE_ERRORS as exc:
            return self._remember(self._ort_status(recipe, str(exc)))
        return self._remember(self._status_from(recipe, flavour, manifest))

    def backend_for(self, model_id: str) -> InferenceBackend:
        """TensorRT (with ONNX Runtime failover) where a verified engine exists, else ONNX Runtime."""
        recipe = get_recipe(model_id, self.recipes)
        try:
            flavour, manifest = self._serving_manifest(recipe)
            primary = self._open_engine(self.paths(recipe.id, flavour)[0], flavour)
        except _SERVE_ERRORS as exc:
            self._remember(self._ort_status(recipe, str(exc)))
            return self.ort_backend(recipe)
        self._remember(self._status_from(recipe, flavour, manifest))
        return FailoverBackend(primary, lambda: self.ort_backend(recipe),
                               on_failover=lambda reason: self.schedule_rebuild(recipe.id, reason), label=recipe.id)

    def encoder_for(self, model_id: str, max_tokens: int = 128):
        """The sentence encoder ``model_id`` over :meth:`backend_for`. Its ``model_key`` names
        what serves when that is not ONNX Runtime FP32 (``use-m3:<sha12>:onnxruntime-int8``),
        so embeddings stored for one precision are never mixed with another's."""
        recipe = get_recipe(model_id, self.recipes)
        if recipe.make_encoder is None:
            raise RecipeError(f"{model_id} is not a sentence encoder")
        encoder = recipe.make_encoder(self.backend_for(model_id), max_tokens)
        encoder.model_key = serving_model_key(encoder.model_key, self._statuses[model_id])
        return encoder

    def _open_trt(self, engine_path: Path, flavour: Flavour) -> InferenceBackend:
        from engines.trt.runtime import TensorRtBackend

        cache = Path(self.config.engine_dir) / f"{engine_path.stem}.runtime-cache"
        return TensorRtBackend(engine_path, flavour, streams=self.config.streams, runtime_cache=cache)

    def ort_plan(self, recipe: ModelRecipe):
        """The precision ONNX Runtime serves (dynamic INT8 where it passed the gate and is faster)."""
        planner = PrecisionPlanner(recipe, "ort-cpu", Path(self.config.cache_dir) / "precision", self.text_data)
        source = recipe.onnx_for_ort(self.config.cache_dir)
        return cached_plan(planner, source, self.wanted_precision(recipe), recompute=self.text_data is not None)

    def ort_backend(self, recipe: ModelRecipe) -> InferenceBackend:
        outcome = self.ort_plan(recipe)
        return OnnxRuntimeBackend(outcome.onnx_path, threads=self.config.ort_threads,
                                  use_cuda=outcome.precision == "fp32")

    # ------------------------------------------------------------- status

    def schedule_rebuild(self, model_id: str, reason: str) -> None:
        """Mark the engine failed (the next ``ensure`` rebuilds it) and the model as served by ORT."""
        recipe = get_recipe(model_id, self.recipes)
        try:
            _, manifest_path = self.paths(model_id, self.flavour())
            manifest = EngineManifest.load(manifest_path)
            manifest.verification = {"status": "failed", "reason": f"failed at run time: {reason}"}
            manifest.save(manifest_path)
        except (FlavourUnavailable, ManifestError, OSError) as exc:
            log.warning("%s: could not mark the engine for rebuild: %s", model_id, exc)
        status = self._ort_status(recipe, f"failed over at run time: {reason}")
        status.rebuild_scheduled = True
        self._remember(status)

    def status(self) -> list[ModelStatus]:
        return list(self._statuses.values())

    def _remember(self, status: ModelStatus) -> ModelStatus:
        self._statuses[status.model_id] = status
        return status

    def _ort_status(self, recipe: ModelRecipe, reason: str) -> ModelStatus:
        try:
            precision = self.ort_plan(recipe).precision
        except Exception as exc:  # a status must never raise
            log.warning("%s: ORT precision unknown: %s", recipe.id, exc)
            precision = "fp32"
        return ModelStatus(recipe.id, "onnxruntime", reason, precision=precision)

    def _status_from(self, recipe: ModelRecipe, flavour: Flavour, manifest: EngineManifest) -> ModelStatus:
        engine_path = str(self.paths(recipe.id, flavour)[0])
        verification = manifest.verification.get("status", "")
        if manifest.verified:
            return ModelStatus(recipe.id, flavour.name, "verified engine", manifest.precision, engine_path, verification)
        status = self._ort_status(recipe, manifest.verification.get("reason", "engine not verified"))
        status.engine_path, status.verification = engine_path, verification
        return status


def serving_model_key(model_key: str, status: ModelStatus) -> str:
    """``model_key`` as is for ONNX Runtime FP32 (the reference), else with backend and precision."""
    if status.serving == "onnxruntime" and status.precision == "fp32":
        return model_key
    return f"{model_key}:{status.serving}-{status.precision}"


def _phase_reporter(say: Callable[[str], None]):
    """Report each TensorRT build phase once, when it starts."""
    started = time.perf_counter()

    def progress(phase: str, step: int, steps: int) -> None:
        if step == 0:
            say(f"  [{time.perf_counter() - started:5.1f}s] {phase}" + (f" ({steps} steps)" if steps else ""))

    return progress
