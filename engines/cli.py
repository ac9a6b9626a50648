"""``engines`` command group and ``doctor``: build, inspect and export engines.

The directories come from ``--data-dir`` (cache: ``DATA/cache``, engines:
``DATA/engines``) or, when a parent group put one there, from ``ctx.obj``
(any object with ``cache_dir`` and ``data_dir`` attributes, e.g. the
appliance's config). Real text for INT8 calibration and the accuracy gate
comes from ``--calibration/--queries/--bank`` files, else ``ctx.meta["engines.text_data"]``
or ``ctx.obj.engine_text_data`` (a TextData or a callable returning one). The engine settings
(preference list, precision per model, streams, ahead-of-time compute capability) come from
``ctx.meta["engines.config"]`` (a :class:`ManagerConfig` the appliance makes from its
``[engines]`` section, the same one its daemon serves with); ``--flavour``, ``--precision``
and ``--aot-compute-capability`` override it for one run and say so.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
from pathlib import Path

import click

from engines.accelerators import ACCELERATORS
from engines.manager import DEFAULT_AOT_CC, EngineManager, ManagerConfig
from engines.recipes import PRECISIONS

log = logging.getLogger(__name__)

#: ``ctx.meta`` key where a parent group may put a TextData (or a callable returning one)
#: for INT8 calibration and the accuracy gate: e.g. bank questions + answers + asked questions.
TEXT_DATA_META = "engines.text_data"
#: ``ctx.meta`` key where a parent group puts the :class:`ManagerConfig` of its configuration.
CONFIG_META = "engines.config"


class EnginesCliError(click.ClickException):
    """A known failure: one ``error:`` line, exit status 2 (the appliance CLI's convention)."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def _dirs(ctx: click.Context, data_dir: str | None) -> tuple[Path, Path]:
    if data_dir:
        root = Path(data_dir)
        return root / "cache", root / "engines"
    obj = ctx.obj
    if obj is not None and hasattr(obj, "cache_dir"):
        root = Path(getattr(obj, "data_dir", Path(obj.cache_dir).parent))
        return Path(obj.cache_dir), root / "engines"
    return Path("data") / "cache", Path("data") / "engines"


def _text_data(ctx: click.Context, calibration, queries, bank):
    if calibration or queries or bank:
        from engines.textsets import TextSetError, load_text_data

        try:
            return load_text_data(calibration, queries, bank)
        except TextSetError as exc:
            raise EnginesCliError(str(exc)) from exc
    data = ctx.meta.get(TEXT_DATA_META) or getattr(ctx.obj, "engine_text_data", None)
    return data() if callable(data) else data


def _base_config(ctx: click.Context, data_dir: str | None) -> ManagerConfig:
    """The parent's engine settings (or the defaults), in ``--data-dir``'s folders if given."""
    cache_dir, engine_dir = _dirs(ctx, data_dir)
    base = ctx.meta.get(CONFIG_META) or ManagerConfig(engine_dir=engine_dir, cache_dir=cache_dir)
    if data_dir or CONFIG_META not in ctx.meta:
        base = dataclasses.replace(base, engine_dir=engine_dir, cache_dir=cache_dir)
    return base


def _override(config: ManagerConfig, flavour: str | None, precision: str | None, aot: str | None) -> ManagerConfig:
    """The config with this run's flags, each override said on stderr."""
    changes = {}
    if flavour:
        changes["preference"] = (flavour,)
        _note(f"--flavour {flavour} overrides engines.flavours ({', '.join(config.preference)})")
    if precision:
        changes["precision"] = {"*": precision}
        configured = ", ".join(f"{k}={v}" for k, v in config.precision.items()) or "auto"
        _note(f"--precision {precision} overrides engines.precision ({configured})")
    if aot is not None:
        changes["aot_compute_capability"] = aot
        _note(f"--aot-compute-capability {aot} overrides engines.aot_compute_capability "
              f"({config.aot_compute_capability or 'none'})")
    return dataclasses.replace(config, **changes)


def _note(message: str) -> None:
    click.echo(f"note: {message} for this run only; the daemon serves what the config says", err=True)


def _manager(ctx, data_dir, flavour=None, precision=None, calibration=(), queries=(), bank=(),
             threads: int = 0, with_text: bool = False, aot: str | None = None, read_only: bool = False) -> EngineManager:
    """The manager; ``with_text`` (ensure, build, bench) gives it calibration text, which also
    lets it recompute precision verdicts; ``read_only`` (status, doctor) writes nothing."""
    config = _override(_base_config(ctx, data_dir), flavour, precision, aot)
    if threads:
        config = dataclasses.replace(config, ort_threads=threads)
    config = dataclasses.replace(config, read_only=read_only)
    if not read_only:
        config.engine_dir.mkdir(parents=True, exist_ok=True)
    text = _text_data(ctx, calibration, queries, bank) if with_text else None
    return EngineManager(config, text_data=text)


def _common(f):
    f = click.option("--data-dir", type=click.Path(file_okay=False), help="data dir (default: the app's, or ./data)")(f)
    return f


def _build_options(f):
    f = click.option("--flavour", type=click.Choice(list(ACCELERATORS)),
                     help="build with this accelerator only, for this run (default: engines.flavours)")(f)
    f = click.option("--precision", type=click.Choice(PRECISIONS),
                     help="precision wanted for this run (default: engines.precision)")(f)
    f = click.option("--aot-compute-capability", "aot", metavar="CC",
                     help=f"without a GPU, build ahead of time for this compute capability (e.g. {DEFAULT_AOT_CC})")(f)
    f = click.option("--model", "models", multiple=True, help="only this model (repeatable)")(f)
    f = click.option("--calibration", multiple=True, type=click.Path(dir_okay=False, exists=True),
                     help="real text for INT8 calibration (.jsonl/.csv/.txt, repeatable)")(f)
    f = click.option("--queries", multiple=True, type=click.Path(dir_okay=False, exists=True),
                     help="held-back queries for the accuracy gate")(f)
    f = click.option("--bank", multiple=True, type=click.Path(dir_okay=False, exists=True),
                     help="bank texts for the gate's retrieval agreement")(f)
    return _common(f)


def _print_status(statuses, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps([s.to_dict() for s in statuses], indent=2, ensure_ascii=False))
        return
    for s in statuses:
        engine = f" engine={Path(s.engine_path).name}" if s.engine_path else ""
        click.echo(f"{s.model_id:8s} served by {s.serving} ({s.precision}){engine}: {s.reason}")


def _progress(model_id: str, message: str) -> None:
    click.echo(f"[{model_id}] {message}")


@click.group("engines")
def engines_group() -> None:
    """Build, verify, inspect and export TensorRT engines."""


def _run_ensure(ctx, force, data_dir, flavour, precision, aot, models, calibration, queries, bank, as_json):
    manager = _manager(ctx, data_dir, flavour, precision, calibration, queries, bank, with_text=True, aot=aot)
    _check_models(manager, models)
    statuses = manager.ensure(models or None, force=force, progress=None if as_json else _progress)
    _print_status(statuses, as_json)


def _ensure_command(name: str, force: bool, doc: str):
    @engines_group.command(name, help=doc)
    @_build_options
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_context
    def command(ctx, data_dir, flavour, precision, aot, models, calibration, queries, bank, as_json):
        _run_ensure(ctx, force, data_dir, flavour, precision, aot, models, calibration, queries, bank, as_json)

    return command


ensure_cmd = _ensure_command("ensure", False, "Reuse engines whose key matches; build (and verify) the rest.")
build_cmd = _ensure_command("build", True, "Build engines even when the existing ones match.")


@engines_group.command("status")
@_common
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def status_cmd(ctx, data_dir, as_json):
    """What serves each model, and why, as the daemon decides it (reads only)."""
    manager = _manager(ctx, data_dir, read_only=True)
    _print_status([manager.inspect(model_id) for model_id in manager.recipes], as_json)


@engines_group.command("verify")
@_common
@click.option("--flavour", type=click.Choice(list(ACCELERATORS)))
@click.option("--model", "models", multiple=True)
@click.pass_context
def verify_cmd(ctx, data_dir, flavour, models):
    """Run each built engine against ONNX Runtime on sample inputs (where it can run)."""
    from engines.manifest import EngineManifest, ManifestError

    manager = _manager(ctx, data_dir, flavour)
    _check_models(manager, models)
    engine_accelerators = [a for a in manager.accelerators() if a.builds_engines]
    for model_id in models or manager.recipes:
        recipe = manager.recipes[model_id]
        found = [manager.paths(model_id, a.name) for a in engine_accelerators if manager.paths(model_id, a.name)[1].is_file()]
        if not found:
            click.echo(f"{model_id:8s} no engine built")
            continue
        engine_path, manifest_path = found[0]
        try:
            manifest = EngineManifest.load(manifest_path)
        except ManifestError as exc:
            click.echo(f"{model_id:8s} no engine: {exc}")
            continue
        manifest.verification = manager.verify(recipe, manifest, engine_path)
        manifest.save(manifest_path)
        click.echo(f"{model_id:8s} {manifest.verification['status']}: {manifest.verification.get('reason', '')}")


@engines_group.command("export-triton")
@click.argument("out_dir", type=click.Path(file_okay=False))
@_common
@click.option("--model", "models", multiple=True)
@click.pass_context
def export_triton_cmd(ctx, out_dir, data_dir, models):
    """Write a Triton model repository (TensorRT plan where a full-TensorRT engine exists, else ONNX)."""
    from engines.manifest import EngineManifest, ManifestError
    from engines.triton import TritonExportError, export_model

    manager = _manager(ctx, data_dir)
    _check_models(manager, models)
    for model_id in models or manager.recipes:
        recipe = manager.recipes[model_id]
        onnx_path = recipe.onnx_for_ort(manager.config.cache_dir)
        engine_path, manifest_path = manager.paths(model_id, "tensorrt")
        try:
            plan = engine_path if EngineManifest.load(manifest_path).verified else None
        except ManifestError:
            plan = None
        try:
            model = export_model(recipe, Path(out_dir), onnx_path, plan)
        except (TritonExportError, OSError) as exc:
            raise EnginesCliError(f"{model_id}: {exc}") from exc
        click.echo(f"{model_id:8s} {model.kind:14s} {model.model_file}")


@engines_group.command("bench-int8")
@_common
@click.option("--model", "models", multiple=True, default=("minilm", "use-m3"), show_default=True)
@click.option("--batch", default=32, show_default=True)
@click.option("--rounds", default=20, show_default=True)
@click.option("--threads", default=0, show_default=True, help="ONNX Runtime intra-op threads (0: all cores)")
@click.option("--calibration", multiple=True, type=click.Path(dir_okay=False, exists=True), required=True)
@click.option("--queries", multiple=True, type=click.Path(dir_okay=False, exists=True), required=True)
@click.option("--bank", multiple=True, type=click.Path(dir_okay=False, exists=True), required=True)
@click.option("--eval", "eval_file", type=click.Path(dir_okay=False, exists=True),
              help="labelled queries (.csv with query,expected_id) for dense top-1 accuracy; needs a .jsonl --bank with ids")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def bench_int8_cmd(ctx, data_dir, models, batch, rounds, threads, calibration, queries, bank, eval_file, as_json):
    """INT8 vs FP32 on ONNX Runtime CPU: throughput and the accuracy gate (dynamic and Q/DQ)."""
    from engines.bench import bench_int8
    from engines.textsets import read_labelled

    manager = _manager(ctx, data_dir, calibration=calibration, queries=queries, bank=bank, threads=threads,
                       with_text=True)
    _check_models(manager, models)
    labelled = read_labelled(eval_file, bank[0]) if eval_file else None
    results = [bench_int8(manager, manager.recipes[m], batch, rounds, labelled) for m in models]
    if as_json:
        click.echo(json.dumps([r.to_dict() for r in results], indent=2))
        return
    for r in results:
        click.echo(r.summary())


def _engine_line(manifest_path: Path) -> str:
    from engines.manifest import EngineManifest, ManifestError

    try:
        m = EngineManifest.load(manifest_path)
    except ManifestError as exc:
        return f"{manifest_path.stem}: {exc}"
    engine = manifest_path.with_suffix(".engine")
    size = f"{engine.stat().st_size / 1e6:.0f} MB" if engine.is_file() else "engine file missing"
    target = m.gpu_name or f"ahead of time for compute {m.compute_capability}"
    return (f"{manifest_path.stem}: {m.precision}, {m.flavour} {m.flavour_version}, {target}, {size}, "
            f"{m.verification.get('status', '?')}")


def _check_models(manager: EngineManager, models) -> None:
    unknown = [m for m in models if m not in manager.recipes]
    if unknown:
        raise EnginesCliError(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(sorted(manager.recipes))}")


@click.command("doctor")
@_common
@click.pass_context
def doctor(ctx, data_dir):
    """GPU, driver, accelerators, engines, disk, and what serves each model. Reads only."""
    from engines.trt.cuda import describe_gpu

    manager = _manager(ctx, data_dir, read_only=True)
    gpu, why = describe_gpu()
    if gpu is not None:
        click.echo(f"GPU:        {gpu.name} (compute {gpu.compute_capability}, driver CUDA {gpu.driver_version}, "
                   f"runtime CUDA {gpu.cuda_version}, {gpu.total_memory / 2**30:.1f} GiB)")
    else:
        click.echo(f"GPU:        {why}")
    manager._gpu, manager._gpu_probed = gpu, True  # one probe for the whole report
    for accelerator in manager.accelerators():
        unavailable = accelerator.unavailable(gpu)
        state = f"not usable here: {unavailable}" if unavailable else f"usable ({_version(accelerator)})"
        click.echo(f"{accelerator.name + ':':18s}{state}")
    engine_dir = Path(manager.config.engine_dir)
    manifests = sorted(engine_dir.glob("*.json")) if engine_dir.is_dir() else []
    for manifest_path in manifests:
        click.echo(f"engine:     {_engine_line(manifest_path)}")
    usage = shutil.disk_usage(_existing(engine_dir))
    click.echo(f"disk:       {usage.free / 2**30:.1f} GiB free of {usage.total / 2**30:.1f} GiB at {engine_dir}")
    _print_status([manager.inspect(model_id) for model_id in manager.recipes], as_json=False)


def _version(accelerator) -> str:
    try:
        return accelerator.version()
    except Exception as exc:  # doctor reports, never fails
        return f"version unknown: {exc}"


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing parent (doctor creates nothing)."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path
