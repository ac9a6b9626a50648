"""The engine lifecycle: ensure (reuse or build, verify), serve, fail over.

The accelerators (:mod:`engines.accelerators`) are walked in the configured order of
preference. ``ensure`` builds with the first engine accelerator that can build here for a
box that can run the engine (or ahead of time for ``aot_compute_capability``): each model's
engine key (model sha256, precision, flavour + version, GPU name, compute capability) is
compared with the manifest beside the engine; a match whose engine file still has its
recorded sha256 is reused, anything else is built again (precision pass → build →
verification against ONNX Runtime). Serving (``backend_for``) takes, per model, the first
accelerator in the list that runs here and has what it needs (a verified engine; ONNX
Runtime needs nothing), behind a :class:`FailoverBackend` whose fallback is ONNX Runtime on
the CPU, and records what serves and why in a :class:`ModelStatus`, which changes when a
backend fails over. ``inspect`` answers the same question without loading anything.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, Mapping

from engines.accelerators import (CPU, Accelerator, CannotBuild, EngineAccelerator, EngineBuild, OpenOptions,
                                  default_preference, get_accelerator, resolve)
from engines.backend import BackendError, InferenceBackend
from engines.engine_key import BuildTarget, EngineKey
from engines.failover import FailoverBackend
from engines.feeds import sample_feeds
from engines.manifest import EngineManifest, ManifestError
from engines.encoders.base import EncoderError
from engines.onnx_io import OnnxModelError, file_sha256
from engines.precision_plan import PrecisionPlanner, TextData, cached_plan
from engines.recipes import ModelRecipe, RecipeError, default_recipes, get_recipe
from engines.status import ModelStatus
from engines.trt.builder import BuildError
from engines.trt.cuda import GpuInfo, probe_gpu
from engines.trt.flavours import FlavourUnavailable
from engines.verify import NO_GPU, unverified, verify_engine

log = logging.getLogger(__name__)

#: Failures that leave the next accelerator (at last ONNX Runtime) serving one model.
_SERVE_ERRORS = (FlavourUnavailable, BackendError, RecipeError, EncoderError, OnnxModelError, OSError, CannotBuild)
_ENSURE_ERRORS = _SERVE_ERRORS + (BuildError,)
#: Where a GPU-less TensorRT-RTX build aims when asked to build ahead of time without a
#: capability: Ampere RTX (RTX 30xx, A-series workstation cards).
DEFAULT_AOT_CC = "8.6"
AUTO = "auto"
Progress = Callable[[str, str], None]


@dataclass(frozen=True)
class ManagerConfig:
    engine_dir: Path
    cache_dir: Path
    #: Accelerator names, most wanted first; ONNX Runtime on the CPU is always the last resort.
    preference: tuple[str, ...] = field(default_factory=default_preference)
    #: Model id (or "*" for every model) → "fp32" | "fp16" | "int8" | "auto". "auto" (or
    #: absent): builds use the recipe's precision; serving takes the verified engine that
    #: ``ensure`` built, whatever its precision.
    precision: Mapping[str, str] = field(default_factory=dict)
    #: Without a GPU, build engines ahead of time for this compute capability ("8.6"), where an
    #: accelerator can (TensorRT-RTX); "": build nothing that could not run here.
    aot_compute_capability: str = ""
    streams: int = 1
    ort_threads: int = 0
    #: Status and doctor: export no model, compute no verdict, write nothing.
    read_only: bool = False


@dataclass
class _Choice:
    """What serves one model: the accelerator, the engine's manifest (engines only), and why
    each accelerator before it in the preference list does not."""

    accelerator: Accelerator
    manifest: EngineManifest | None
    passed_over: list[str]


class EngineManager:
    def __init__(self, config: ManagerConfig, recipes: dict[str, ModelRecipe] | None = None,
                 text_data: TextData | None = None, probe: Callable[[], GpuInfo | None] = probe_gpu):
        self.config = config
        self.recipes = default_recipes() if recipes is None else recipes
        self.text_data = text_data
        self._probe = probe
        self._statuses: dict[str, ModelStatus] = {}
        self._gpu: GpuInfo | None = None
        self._gpu_probed = False

    # ------------------------------------------------------------ targets

    def gpu(self) -> GpuInfo | None:
        if not self._gpu_probed:
            self._gpu, self._gpu_probed = self._probe(), True
        return self._gpu

    def accelerators(self) -> list[Accelerator]:
        """The configured preference list, resolved (ONNX Runtime on the CPU last)."""
        return resolve(self.config.preference)

    def builder(self) -> tuple[EngineAccelerator, BuildTarget]:
        """The first engine accelerator in the list that can build here, and for what;
        raises :class:`CannotBuild` with every reason."""
        reasons = []
        for accelerator in self.accelerators():
            if not accelerator.builds_engines:
                continue
            try:
                return accelerator, accelerator.build_target(self.gpu(), self.config.aot_compute_capability)
            except CannotBuild as exc:
                reasons.append(f"{accelerator.name}: {exc}")
        raise CannotBuild("; ".join(reasons) or "no engine accelerator in engines.flavours")

    def paths(self, model_id: str, accelerator: str) -> tuple[Path, Path]:
        base = Path(self.config.engine_dir) / f"{model_id}-{accelerator}"
        return base.with_suffix(".engine"), base.with_suffix(".json")

    def configured_precision(self, recipe: ModelRecipe) -> str:
        chosen = self.config.precision
        return chosen.get(recipe.id) or chosen.get("*") or AUTO

    def wanted_precision(self, recipe: ModelRecipe) -> str:
        """The precision a build (or the CPU's precision pass) aims at."""
        precision = self.configured_precision(recipe)
        return recipe.precision if precision == AUTO else precision

    def expected_key(self, recipe: ModelRecipe, accelerator: EngineAccelerator, target: BuildTarget,
                     precision: str | None = None) -> EngineKey:
        source = recipe.onnx_for_trt(self.config.cache_dir, create=not self.config.read_only)
        return EngineKey.for_build(file_sha256(source), precision or self.wanted_precision(recipe), accelerator.name,
                                   accelerator.version(), target)

    # ------------------------------------------------------------- checks

    def check(self, recipe: ModelRecipe, accelerator: EngineAccelerator,
              key: EngineKey) -> tuple[EngineManifest | None, str]:
        """The reusable manifest, or None and why the engine must be (re)built."""
        engine_path, manifest_path = self.paths(recipe.id, accelerator.name)
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
            accelerator, target = self.builder()
            key = self.expected_key(recipe, accelerator, target)
            manifest, why = (None, "rebuild forced") if force else self.check(recipe, accelerator, key)
            if manifest is None:
                say(f"building with {accelerator.name}: {why}")
                manifest = self.build(recipe, accelerator, target, key, say)
            else:
                say(f"reusing {self.paths(recipe.id, accelerator.name)[0].name}: {why}")
        except _ENSURE_ERRORS as exc:
            return self._remember(self._cpu_status(recipe, f"no engine: {exc}"))
        return self._remember(self._status_from(recipe, accelerator, manifest))

    def build(self, recipe: ModelRecipe, accelerator: EngineAccelerator, target: BuildTarget, key: EngineKey,
              say: Callable[[str], None]) -> EngineManifest:
        source = recipe.onnx_for_trt(self.config.cache_dir)
        planner = PrecisionPlanner(recipe, accelerator.precision_target, Path(self.config.cache_dir) / "precision",
                                   self.text_data)
        say(f"precision pass ({key.precision} wanted)")
        outcome = cached_plan(planner, source, key.precision)
        say(f"precision {outcome.precision}" + "".join(f"; {f.precision} refused: {f.reason}" for f in outcome.fallbacks))
        engine_path, manifest_path = self.paths(recipe.id, accelerator.name)
        timing_cache = Path(self.config.engine_dir) / f"timing-{accelerator.name}.cache"
        built = accelerator.build(EngineBuild(outcome.onnx_path, engine_path, recipe.profiles, target, timing_cache),
                                  progress=_phase_reporter(say))
        manifest = self._manifest(recipe, key, target, built, outcome)
        manifest.verification = self.verify(recipe, manifest, engine_path)
        manifest.save(manifest_path)
        say(f"built in {built.seconds:.1f}s, verification: {manifest.verification['status']}")
        return manifest

    def _manifest(self, recipe, key: EngineKey, target: BuildTarget, built, outcome) -> EngineManifest:
        return EngineManifest(
            model_id=recipe.id, model_sha256=key.model_sha256, precision=outcome.precision,
            wanted_precision=key.precision, flavour=key.flavour, flavour_version=key.flavour_version,
            gpu_name=target.gpu_name, compute_capability=target.compute_capability,
            driver_version=target.driver_version, cuda_version=target.cuda_version,
            profiles=[{"name": p.name, "dtype": p.dtype, "min": list(p.min), "opt": list(p.opt), "max": list(p.max)}
                      for p in recipe.profiles],
            build_seconds=round(built.seconds, 3),
            built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            engine_file=built.engine_path.name, engine_sha256=file_sha256(built.engine_path),
            engine_bytes=built.engine_bytes,
            calibration_samples=outcome.calibration_samples, calibration_note=outcome.calibration_note,
            precision_fallbacks=[{"precision": f.precision, "reason": f.reason} for f in outcome.fallbacks],
            precision_gate=outcome.gate.to_dict() if outcome.gate else None,
        )

    def verify(self, recipe: ModelRecipe, manifest: EngineManifest, engine_path: Path) -> dict:
        """Run the engine against ONNX Runtime where its accelerator runs here, else "unverified"."""
        accelerator = get_accelerator(manifest.flavour)
        why = accelerator.unavailable(self.gpu())
        if why:
            return unverified(NO_GPU if self.gpu() is None else f"unverified: {accelerator.name} {why}")
        return verify_engine(lambda: accelerator.open(engine_path, self._options()),
                             recipe.onnx_for_ort(self.config.cache_dir), sample_feeds(recipe))

    # -------------------------------------------------------------- serve

    def _serving_manifest(self, recipe: ModelRecipe, accelerator: EngineAccelerator) -> EngineManifest:
        """The manifest of a good engine of ``accelerator``; raises with the reason there is none."""
        engine_path, manifest_path = self.paths(recipe.id, accelerator.name)
        if not engine_path.is_file() or not manifest_path.is_file():
            # Before the key: computing it may export the model, which serving must not wait for.
            raise BackendError("no engine built yet (eduqa engines ensure builds it)")
        try:
            built = EngineManifest.load(manifest_path)
        except ManifestError as exc:
            raise BackendError(str(exc)) from exc
        precision = self.configured_precision(recipe)
        precision = built.wanted_precision if precision == AUTO else precision
        target = accelerator.build_target(self.gpu(), self.config.aot_compute_capability)
        manifest, why = self.check(recipe, accelerator, self.expected_key(recipe, accelerator, target, precision))
        if manifest is None:
            raise BackendError(why)
        if not manifest.verified:
            raise BackendError(manifest.verification.get("reason", "engine not verified"))
        return manifest

    def _walk(self, recipe: ModelRecipe, opener=None):
        """The first accelerator of the list that can serve ``recipe`` here → (_Choice, the
        opened backend or None). With ``opener(choice)``, one that fails to open is passed over."""
        passed_over: list[str] = []
        for accelerator in self.accelerators():
            why = accelerator.unavailable(self.gpu())
            if why:
                passed_over.append(f"{accelerator.name}: {why}")
                continue
            try:
                manifest = self._serving_manifest(recipe, accelerator) if accelerator.builds_engines else None
                choice = _Choice(accelerator, manifest, list(passed_over))
                return choice, (opener(choice) if opener else None)
            except _SERVE_ERRORS as exc:
                if accelerator.name == CPU:
                    raise
                passed_over.append(f"{accelerator.name}: {exc}")
        raise AssertionError("unreachable: ONNX Runtime on the CPU ends every preference list")

    def inspect(self, model_id: str) -> ModelStatus:
        """What would serve ``model_id`` and why, without loading anything."""
        recipe = get_recipe(model_id, self.recipes)
        choice, _ = self._walk(recipe)
        return self._remember(self._choice_status(recipe, choice))

    def backend_for(self, model_id: str, threads: int | None = None) -> InferenceBackend:
        """The backend of the first accelerator that serves ``model_id`` here, behind the ONNX
        Runtime failover unless it is ONNX Runtime on the CPU itself. ``threads``: ONNX Runtime
        threads for this model (default ``ort_threads``)."""
        recipe = get_recipe(model_id, self.recipes)
        options = self._options(threads)
        choice, primary = self._walk(recipe, lambda c: self._open(recipe, c, options))
        self._remember(self._choice_status(recipe, choice))
        if choice.accelerator.name == CPU:
            return primary
        name = choice.accelerator.name
        return FailoverBackend(primary, lambda: self.cpu_backend(recipe, options),
                               on_failover=lambda reason: self.schedule_rebuild(recipe.id, name, reason),
                               label=recipe.id)

    def encoder_for(self, model_id: str, max_tokens: int = 128, threads: int | None = None):
        """The sentence encoder ``model_id`` over :meth:`backend_for`. Its ``model_key`` names
        what serves when that is not ONNX Runtime FP32 (``use-m3:<sha12>:onnxruntime-int8``),
        so embeddings stored for one precision are never mixed with another's."""
        recipe = get_recipe(model_id, self.recipes)
        if recipe.make_encoder is None:
            raise RecipeError(f"{model_id} is not a sentence encoder")
        encoder = recipe.make_encoder(self.backend_for(model_id, threads), max_tokens)
        encoder.model_key = serving_model_key(encoder.model_key, self._statuses[model_id])
        return encoder

    def _options(self, threads: int | None = None) -> OpenOptions:
        return OpenOptions(streams=self.config.streams,
                           threads=self.config.ort_threads if threads is None else threads,
                           cache_dir=Path(self.config.engine_dir))

    def _open(self, recipe: ModelRecipe, choice: _Choice, options: OpenOptions) -> InferenceBackend:
        accelerator = choice.accelerator
        if accelerator.builds_engines:
            return accelerator.open(self.paths(recipe.id, accelerator.name)[0], options)
        if accelerator.name == CPU:
            return self.cpu_backend(recipe, options)
        return accelerator.open(recipe.onnx_for_ort(self.config.cache_dir), options)

    def ort_plan(self, recipe: ModelRecipe):
        """The precision ONNX Runtime serves on the CPU (dynamic INT8 where it passed the gate
        and is faster). Without calibration text (serving) only a cached verdict is read."""
        planner = PrecisionPlanner(recipe, "ort-cpu", Path(self.config.cache_dir) / "precision", self.text_data)
        source = recipe.onnx_for_ort(self.config.cache_dir, create=not self.config.read_only)
        recompute = self.text_data is not None and not self.config.read_only
        return cached_plan(planner, source, self.wanted_precision(recipe), recompute=recompute)

    def cpu_backend(self, recipe: ModelRecipe, options: OpenOptions | None = None) -> InferenceBackend:
        return get_accelerator(CPU).open(self.ort_plan(recipe).onnx_path, options or self._options())

    # ------------------------------------------------------------- status

    def schedule_rebuild(self, model_id: str, accelerator: str, reason: str) -> None:
        """Mark the engine failed (the next ``ensure`` rebuilds it) and the model as served by
        ONNX Runtime on the CPU."""
        recipe = get_recipe(model_id, self.recipes)
        has_engine = get_accelerator(accelerator).builds_engines
        if has_engine:
            self._mark_failed(model_id, accelerator, reason)
        status = self._cpu_status(recipe, f"failed over at run time: {reason}")
        status.rebuild_scheduled = has_engine
        self._remember(status)

    def _mark_failed(self, model_id: str, accelerator: str, reason: str) -> None:
        _, manifest_path = self.paths(model_id, accelerator)
        try:
            manifest = EngineManifest.load(manifest_path)
            manifest.verification = {"status": "failed", "reason": f"failed at run time: {reason}"}
            manifest.save(manifest_path)
        except (ManifestError, OSError) as exc:
            log.warning("%s: could not mark the %s engine for rebuild: %s", model_id, accelerator, exc)

    def status(self) -> list[ModelStatus]:
        return list(self._statuses.values())

    def _remember(self, status: ModelStatus) -> ModelStatus:
        self._statuses[status.model_id] = status
        return status

    def _choice_status(self, recipe: ModelRecipe, choice: _Choice) -> ModelStatus:
        reason = "; ".join(choice.passed_over)
        name = choice.accelerator.name
        if choice.manifest is not None:
            return self._status_from(recipe, choice.accelerator, choice.manifest)
        if name == CPU:
            return self._cpu_status(recipe, reason or "first in engines.flavours")
        return ModelStatus(recipe.id, name, reason or "first in engines.flavours", precision="fp32")

    def _cpu_status(self, recipe: ModelRecipe, reason: str) -> ModelStatus:
        try:
            plan = self.ort_plan(recipe)
            precision = plan.precision
            notes = [f"{f.precision}: {f.reason}" for f in plan.fallbacks if "verdict" in f.reason]
        except RecipeError as exc:  # read only, and the model not exported yet
            precision, notes = "fp32", [str(exc)]
        except Exception as exc:  # a status must never raise
            log.warning("%s: ORT precision unknown: %s", recipe.id, exc)
            precision, notes = "fp32", []
        return ModelStatus(recipe.id, CPU, "; ".join([reason, *notes]), precision=precision)

    def _status_from(self, recipe: ModelRecipe, accelerator: Accelerator, manifest: EngineManifest) -> ModelStatus:
        engine_path = str(self.paths(recipe.id, accelerator.name)[0])
        verification = manifest.verification.get("status", "")
        if manifest.verified:
            return ModelStatus(recipe.id, accelerator.name, "verified engine", manifest.precision, engine_path,
                               verification)
        status = self._cpu_status(recipe, manifest.verification.get("reason", "engine not verified"))
        status.engine_path, status.verification = engine_path, verification
        return status


def serving_model_key(model_key: str, status: ModelStatus) -> str:
    """``model_key`` as is for ONNX Runtime FP32 (the reference), else with backend and precision."""
    if status.serving == CPU and status.precision == "fp32":
        return model_key
    return f"{model_key}:{status.serving}-{status.precision}"


def _phase_reporter(say: Callable[[str], None]):
    """Report each build phase once, when it starts."""
    started = time.perf_counter()

    def progress(phase: str, step: int, steps: int) -> None:
        if step == 0:
            say(f"  [{time.perf_counter() - started:5.1f}s] {phase}" + (f" ({steps} steps)" if steps else ""))

    return progress
