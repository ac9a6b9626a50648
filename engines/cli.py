"""``engines`` command group and ``doctor``: build, inspect and export engines.

The directories come from ``--data-dir`` (cache: ``DATA/cache``, engines:
``DATA/engines``) or, when a parent group put one there, from ``ctx.obj``
(any object with ``cache_dir`` and ``data_dir`` attributes, e.g. the
appliance's config). Real text for INT8 calibration and the accuracy gate
comes from ``--calibration/--queries/--bank`` files, else ``ctx.meta["engines.text_data"]``
or ``ctx.obj.engine_text_data`` (a TextData or a callable returning one).
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import click

from engines.manager import EngineManager, ManagerConfig
from engines.recipes import PRECISIONS
from engines.trt.flavours import FLAVOURS

log = logging.getLogger(__name__)

#: ``ctx.meta`` key where a parent group may put a TextData (or a callable returning one)
#: for INT8 calibration and the accuracy gate: e.g. bank questions + answers + asked questions.
TEXT_DATA_META = "engines.text_data"


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


def _manager(ctx, data_dir, flavour=None, precision=None, calibration=(), queries=(), bank=(),
             threads: int = 0, with_text: bool = False) -> EngineManager:
    """The manager; ``with_text`` (ensure, build, bench) gives it calibration text, which also
    lets it recompute precision verdicts; status, verify and doctor only read them."""
    cache_dir, engine_dir = _dirs(ctx, data_dir)
    engine_dir.mkdir(parents=True, exist_ok=True)
    config = ManagerConfig(engine_dir=engine_dir, cache_dir=cache_dir, flavour=flavour, precision=precision,
                           ort_threads=threads)
    text = _text_data(ctx, calibration, queries, bank) if with_text else None
    return EngineManager(config, text_data=text)


def _common(f):
    f = click.option("--data-dir", type=click.Path(file_okay=False), help="data dir (default: the app's, or ./data)")(f)
    return f


def _build_options(f):
    f = click.option("--flavour", type=click.Choice(sorted(FLAVOURS)), help="TensorRT flavour (default: auto)")(f)
    f = click.option("--precision", type=click.Choice(PRECISIONS), help="precision wanted (default: per model)")(f)
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


def _run_ensure(ctx, force, data_dir, flavour, precision, models, calibration, queries, bank, as_json):
    manager = _manager(ctx, data_dir, flavour, precision, calibration, queries, bank, with_text=True)
    _check_models(manager, models)
    statuses = manager.ensure(models or None, force=force, progress=None if as_json else _progress)
    _print_status(statuses, as_json)


def _ensure_command(name: str, force: bool, doc: str):
    @engines_group.command(name, help=doc)
    @_build_options
    @click.option("--json", "as_json", is_flag=True)
    @click.pass_context
    def command(ctx, data_dir, flavour, precision, models, calibration, queries, bank, as_json):
        _run_ensure(ctx, force, data_dir, flavour, precision, models, calibration, queries, bank, as_json)

    return command


ensure_cmd = _ensure_command("ensure", False, "Reuse engines whose key matches; build (and verify) the rest.")
build_cmd = _ensure_command("build", True, "Build engines even when the existing ones match.")


@engines_group.command("status")
@_common
@click.option("--flavour", type=click.Choice(sorted(FLAVOURS)))
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def status_cmd(ctx, data_dir, flavour, as_json):
    """What serves each model now, and why (builds nothing)."""
    manager = _manager(ctx, data_dir, flavour)
    _print_status([manager.inspect(model_id) for model_id in manager.recipes], as_json)


@engines_group.command("verify")
@_common
@click.option("--flavour", type=click.Choice(sorted(FLAVOURS)))
@click.option("--model", "models", multiple=True)
@click.pass_context
def verify_cmd(ctx, data_dir, flavour, models):
    """Run each built engine against ONNX Runtime on sample inputs (needs a GPU)."""
    from engines.manifest import EngineManifest, ManifestError
    from engines.trt.flavours import FlavourUnavailable

    manager = _manager(ctx, data_dir, flavour)
    _check_models(manager, models)
    for model_id in models or manager.recipes:
        recipe = manager.recipes[model_id]
        try:
            engine_path, manifest_path = manager.paths(model_id, manager.flavour())
            manifest = EngineManifest.load(manifest_path)
        except (ManifestError, FlavourUnavailable) as exc:
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
    from engines.trt.flavours import TENSORRT
    from engines.triton import TritonExportError, export_model

    manager = _manager(ctx, data_dir)
    _check_models(manager, models)
    for model_id in models or manager.recipes:
        recipe = manager.recipes[model_id]
        onnx_path = recipe.onnx_for_ort(manager.config.cache_dir)
        engine_path, manifest_path = manager.paths(model_id, TENSORRT)
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
    """GPU, driver, TensorRT flavours, engines, disk, and what will serve each model."""
    from engines.trt.cuda import load_cuda
    from engines.trt.flavours import FlavourUnavailable

    manager = _manager(ctx, data_dir)
    try:
        gpu = load_cuda().device_info()
        click.echo(f"GPU:        {gpu.name} (compute {gpu.compute_capability}, driver CUDA {gpu.driver_version}, "
                   f"runtime CUDA {gpu.cuda_version}, {gpu.total_memory / 2**30:.1f} GiB)")
    except Exception as exc:  # doctor reports, never fails
        click.echo(f"GPU:        none usable ({exc})")
    for flavour in FLAVOURS.values():
        try:
            click.echo(f"{flavour.name + ':':12s}{flavour.version()}")
        except FlavourUnavailable as exc:
            click.echo(f"{flavour.name + ':':12s}not available ({exc})")
    engine_dir = manager.config.engine_dir
    for manifest_path in sorted(engine_dir.glob("*.json")):
        click.echo(f"engine:     {_engine_line(manifest_path)}")
    usage = shutil.disk_usage(engine_dir)
    click.echo(f"disk:       {usage.free / 2**30:.1f} GiB free of {usage.total / 2**30:.1f} GiB at {engine_dir}")
    _print_status([manager.inspect(model_id) for model_id in manager.recipes], as_json=False)
