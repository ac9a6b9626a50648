"""The ``eduqa`` command line: mirrors the library, one command per job."""

from __future__ import annotations

import functools
import gc
import json
import logging
import os
import sys
import threading
from dataclasses import asdict
from pathlib import Path

import click

from appliance.config import Config, ConfigError, load_config

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

log = logging.getLogger("eduqa")


def _user_errors() -> tuple[type[Exception], ...]:
    from appliance.asklog.log import UnknownAskError
    from appliance.bank.bank_file import BankFileError
    from appliance.bench.evaluation import QueryFileError
    from appliance.bank.kb import BankImportRejected
    from appliance.db.store import StoreError
    from appliance.common.textnorm import EmptyQuestionError
    from appliance.ocr.errors import OcrError
    from engines.backend import BackendError
    from appliance.serve.client import DaemonAskError
    from appliance.serve.port import PortBusyError
    from engines.encoders import EncoderError

    return (OcrError, ConfigError, BankFileError, BankImportRejected, EmptyQuestionError, StoreError,
            EncoderError, BackendError, QueryFileError, UnknownAskError, PortBusyError, DaemonAskError)


def friendly_errors(func):
    """Known failures become one clear line on stderr and exit code 2, not a traceback."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except _user_errors() as exc:
            from appliance.bank.kb import BankImportRejected

            click.echo(f"error: {exc}", err=True)
            if isinstance(exc, BankImportRejected):
                for problem in exc.problems[:50]:
                    click.echo(f"  {problem}", err=True)
                if len(exc.problems) > 50:
                    click.echo(f"  … and {len(exc.problems) - 50} more", err=True)
            sys.exit(2)

    return wrapper


@click.group()
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="TOML config file (or $EDUQA_CONFIG).")
@click.option("--data-dir", type=click.Path(file_okay=False), help="Data directory (or $EDUQA_DATA_DIR; default ./data).")
@click.option("-v", "--verbose", count=True,
              help="Show progress log lines (INFO); twice: DEBUG. `serve` always logs INFO.")
@click.pass_context
def main(ctx: click.Context, config_path: str | None, data_dir: str | None, verbose: int) -> None:
    """eduqa: a school's own question bank, answered offline in milliseconds."""
    logging.basicConfig(level=_log_level(verbose, ctx.invoked_subcommand),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        ctx.obj = load_config(config_path, data_dir)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    # `eduqa engines ...` builds with the daemon's [engines] settings and calibrates and gates
    # on the school's own bank and asked questions.
    from appliance.inference.engine_wiring import engine_text_data, manager_config
    from engines.cli import CONFIG_META, TEXT_DATA_META

    ctx.meta[TEXT_DATA_META] = functools.partial(engine_text_data, ctx.obj)
    ctx.meta[CONFIG_META] = manager_config(ctx.obj)


def _log_level(verbose: int, command: str | None) -> int:
    """Warnings only on ordinary calls; the daemon's journal gets INFO; -v INFO, -vv DEBUG."""
    if verbose >= 2:
        return logging.DEBUG
    return logging.INFO if verbose or command == "serve" else logging.WARNING


def _limit_blas_threads(config: Config):
    """numpy's BLAS thread pool for this process (``serving.blas_threads``); the returned
    limiter must stay referenced while the limit should hold."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(config.serving.blas_threads, user_api="blas")


def _store_id(config: Config) -> str:
    from appliance.db.store import Store

    store = Store(config.db_path)
    try:
        return store.store_id()
    finally:
        store.close()


def _service(config: Config, progress: bool = True):
    from appliance.ask.service import AskService

    return AskService.open(config, progress=progress)


# -- ask ------------------------------------------------------------------------------
@main.command()
@click.argument("text", required=False)
@click.option("--photo", type=click.Path(dir_okay=False), help="Ask with a photo of the problem instead of text.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer card as JSON.")
@click.option("--local", is_flag=True, help="Answer in this process even when a daemon runs on the configured port.")
@click.pass_obj
@friendly_errors
def ask(config: Config, text: str | None, photo: str | None, as_json: bool, local: bool) -> None:
    """Ask one question (TEXT, or --photo PHOTO) and print the answer card.

    Through the daemon when one answers on the configured port (no models loaded here),
    else in this process."""
    from appliance.common.textnorm import clean_question
    from appliance.ocr.image import ImageLimits, read_photo_file
    from appliance.serve.client import ask_daemon, find_daemon

    if (text is None) == (photo is None):
        raise click.UsageError("give the question as TEXT or as --photo PHOTO (one of them)")
    data = None
    if photo:  # fail fast before loading models
        data = read_photo_file(photo, ImageLimits(config.ocr.max_bytes, config.ocr.max_pixels))
    else:
        clean_question(text, config.ask.max_question_chars)
    daemon = None if local else find_daemon(config.server.host, config.server.port, _store_id(config))
    if daemon:
        log.info("asking the daemon at %s", daemon.base_url)
        card = ask_daemon(daemon, text=text, photo=data)
    elif data is not None:
        card = _service(config).ask_photo(data, client="cli")
    else:
        card = _service(config).ask(text, client="cli")
    if as_json:
        click.echo(json.dumps(card.to_dict(), ensure_ascii=False, indent=2))
        return
    for notice in card.notices:
        click.echo(f"note: {notice}")
    if card.abstained:
        if photo and card.question:
            click.echo(f"read from the photo: {card.question}")
        click.echo(card.message)
    else:
        click.echo(f"[{card.matched_id}] {card.matched_question}")
        click.echo(card.answer)
        click.echo(f"knowledge points: {', '.join(card.knowledge_points)}")
        click.echo(f"source: {card.source}")
    click.echo(f"confidence: {card.confidence:.2f}  ask #{card.ask_id}  backend: {card.backend}")
    for s in card.similar:
        click.echo(f"  similar: [{s.entry_id}] {s.question}")


# -- kb ---------------------------------------------------------------------------------
@main.group()
def kb() -> None:
    """The question bank: import, export, statistics."""


def _bank(config: Config):
    from appliance.bank.kb import QuestionBank
    from appliance.db.store import Store

    return QuestionBank(Store(config.db_path))


@kb.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--skip-bad", is_flag=True, help="Import the good rows and report the bad ones.")
@click.pass_obj
@friendly_errors
def kb_import(config: Config, file: str, skip_bad: bool) -> None:
    """Import a CSV or JSONL file (upsert by id). Bad rows: nothing imported unless --skip-bad."""
    summary = _bank(config).import_file(file, skip_bad=skip_bad, progress=True)
    for problem in summary.skipped:
        click.echo(f"skipped {problem}", err=True)
    click.echo(f"imported {summary.inserted} new, {summary.updated} updated, {len(summary.skipped)} skipped")


@kb.command("export")
@click.argument("file", type=click.Path(dir_okay=False))
@click.pass_obj
@friendly_errors
def kb_export(config: Config, file: str) -> None:
    """Write the bank to FILE (.csv or .jsonl)."""
    click.echo(f"exported {_bank(config).export(file)} entries to {file}")


@kb.command("stats")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly_errors
def kb_stats(config: Config, as_json: bool) -> None:
    """Entries by subject and origin, and the number of asks."""
    stats = _bank(config).stats()
    if as_json:
        click.echo(json.dumps(asdict(stats), ensure_ascii=False))
        return
    click.echo(f"entries: {stats.entries}   asks logged: {stats.asks}")
    for subject, n in stats.by_subject.items():
        click.echo(f"  {subject:<12} {n}")
    click.echo("origin: " + ", ".join(f"{o} {n}" for o, n in stats.by_origin.items()))


@kb.command("remove-demo")
@click.pass_obj
@friendly_errors
def kb_remove_demo(config: Config) -> None:
    """Remove the bundled demo entries (the daemon will not reload them into a non-empty bank)."""
    from appliance.bank.kb import DEMO_ORIGIN

    click.echo(f"removed {_bank(config).remove_origin(DEMO_ORIGIN)} demo entries")


# -- log ----------------------------------------------------------------------------------
@main.group("log")
def log_group() -> None:
    """The ask log."""


def _asks(config: Config):
    from appliance.asklog.log import AskLog
    from appliance.db.store import Store

    return AskLog(Store(config.db_path))


@log_group.command("tail")
@click.option("-n", "count", default=20, show_default=True, type=click.IntRange(min=1),
              help="How many of the latest asks (at least 1).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly_errors
def log_tail(config: Config, count: int, as_json: bool) -> None:
    """The latest asks, oldest first."""
    for row in _asks(config).tail(count):
        if as_json:
            click.echo(json.dumps(row, ensure_ascii=False))
            continue
        outcome = "abstained" if row["abstained"] else f"→ {row['matched_id']}"
        question = row["question"].replace("\n", " ")[:60]
        click.echo(f"#{row['id']} {row['asked_at']} {row['kind']} {row['confidence']:.2f} {outcome}  {question}")


@log_group.command("export")
@click.option("--csv", "csv_file", required=True, type=click.Path(dir_okay=False), help="CSV file to write.")
@click.pass_obj
@friendly_errors
def log_export(config: Config, csv_file: str) -> None:
    """Write the whole ask log as CSV."""
    click.echo(f"exported {_asks(config).export_csv(csv_file)} asks to {csv_file}")


# -- eval -----------------------------------------------------------------------------------
@main.command("eval")
@click.option("--queries", required=True, type=click.Path(dir_okay=False), help="CSV qid,query,expected_id,kind.")
@click.option("--json", "as_json", is_flag=True)
@click.option("--signal", type=click.Choice(["hybrid", "dense", "bm25"]), default="hybrid",
              show_default=True, help="Rank with one signal only (for comparison).")
@click.option("--show-failures", is_flag=True, help="List the queries answered wrongly.")
@click.option("--photos", type=click.Path(file_okay=False, exists=True),
              help="Folder of <qid>.jpg photos: those queries are also asked by photo.")
@click.pass_obj
@friendly_errors
def eval_command(config: Config, queries: str, as_json: bool, signal: str, show_failures: bool,
                 photos: str | None) -> None:
    """Top-1 accuracy per kind and abstain precision/recall on a query set."""
    from appliance.bench import evaluation
    from appliance.ask.service import AskService

    query_list = evaluation.read_queries(queries)
    service = AskService.open(config, progress=not as_json, signal=signal)
    outcomes = evaluation.run_eval(query_list, service.decide_only)
    summary = evaluation.summarise(outcomes)
    if photos:
        photo_outcomes = evaluation.run_photo_eval(query_list, Path(photos), service.decide_photo_only)
        with_photo = {o.query.qid for o in photo_outcomes}
        summary["photo"] = evaluation.summarise(photo_outcomes)
        summary["text_same_queries"] = evaluation.summarise([o for o in outcomes if o.query.qid in with_photo])
        summary["by_kind"]["photo"] = {"n": len(photo_outcomes),
                                       "top1": round(sum(o.correct for o in photo_outcomes) / max(1, len(photo_outcomes)), 4)}
        outcomes = outcomes + photo_outcomes
    if as_json:
        if show_failures:
            summary["failures"] = [_failure_record(o) for o in evaluation.failures(outcomes)]
        click.echo(json.dumps(summary, ensure_ascii=False))
        return
    _print_summary(summary)
    for label in ("photo", "text_same_queries"):
        if label in summary:
            click.echo(f"-- {label.replace('_', ' ')}:")
            _print_summary(summary[label])
    if show_failures:
        click.echo("-- failures:")
        for o in evaluation.failures(outcomes):
            click.echo(f"  {o.query.qid} [{o.query.kind}] expected {o.query.expected_id or '-'} "
                       f"got {o.answered_id or 'abstain'} ({o.confidence:.2f}): {o.query.query}")


def _failure_record(outcome) -> dict:
    return {"qid": outcome.query.qid, "kind": outcome.query.kind, "query": outcome.query.query,
            "expected_id": outcome.query.expected_id or None, "answered_id": outcome.answered_id,
            "confidence": round(outcome.confidence, 4)}


def _print_summary(summary: dict) -> None:
    click.echo(f"queries: {summary['n']}   mean latency: {summary['mean_ms']:.1f} ms")
    for kind, figures in summary["by_kind"].items():
        label = "abstained" if kind == "unanswerable" else "top-1 or abstained right" if kind == "photo" else "top-1"
        click.echo(f"  {kind:<13} n={figures['n']:<4} {label} {figures['top1']:.1%}")
    a = summary["abstain"]
    click.echo(f"  abstain precision {a['precision']:.1%}  recall {a['recall']:.1%}")
    if "calibration" in summary:
        c = summary["calibration"]
        click.echo(f"  calibration ECE {c['ece']:.3f}   answers with confidence >= 0.9: "
                   f"{c['confident_answers']}, right {c['confident_precision']:.1%}")


# -- serve ------------------------------------------------------------------------------------
@main.command()
@click.option("--host", help="Address to listen on (default from config: 127.0.0.1).")
@click.option("--port", type=int, help="Port (default from config: 8080).")
@click.pass_obj
@friendly_errors
def serve(config: Config, host: str | None, port: int | None) -> None:
    """Start the daemon: web pages and the JSON API on HOST:PORT."""
    from appliance import daemon
    from appliance.db.store import Store
    from appliance.serve.port import check_port_free

    host, port = host or config.server.host, port or config.server.port
    # Fail fast, before any model loads: a busy port, or a database that cannot be upgraded.
    check_port_free(host, port)
    Store(config.db_path).close()

    from appliance.serve import sdnotify
    from appliance.serve.malloc import limit_arenas
    from appliance.serve.shed_protocol import shedding_protocol

    sdnotify.status("loading the encoder and the question bank")
    limit_arenas(config.serving.malloc_arenas)
    blas_limit = _limit_blas_threads(config)  # noqa: F841 (held for the daemon's life)
    built = daemon.build(config)
    app, service = built.asgi, built.service
    # Everything loaded so far (models, the bank and its features) lives as long as the
    # daemon: leave it out of the garbage collector's full passes, which would otherwise
    # walk it all and stall every request for a moment.
    gc.collect()
    gc.freeze()
    threading.Thread(target=service.prepare_photos, name="prepare-photos", daemon=True).start()
    # READY=1 once the port is bound; WATCHDOG=1 while the event loop answers. On SIGTERM
    # uvicorn stops accepting, lets in-flight asks finish (up to 30 s), then the app's
    # shutdown flushes the ask log and closes the database.
    sdnotify.serve_uvicorn(app, host=host, port=port,
                           ready_status=f"serving on {host}:{port}, encoder {service.encoder.backend_name}",
                           log_level="info", access_log=False, timeout_graceful_shutdown=30,
                           http=shedding_protocol(app))  # overload refused before any ASGI work


# -- bench --------------------------------------------------------------------------------------
@main.command("bench-ask")
@click.option("--bank-size", default=10_000, show_default=True, help="Entries in the generated bank.")
@click.option("--asks", default=500, show_default=True, help="Timed asks after warm-up.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly_errors
def bench_ask(config: Config, bank_size: int, asks: int, as_json: bool) -> None:
    """Time the warm ask path (tokenise + encode + search + log) on a generated bank."""
    from appliance.bench.ask_path import run_ask_bench

    with _limit_blas_threads(config):
        result = run_ask_bench(config, bank_size=bank_size, asks=asks)
    if as_json:
        click.echo(json.dumps(result))
    else:
        for key, value in result.items():
            click.echo(f"{key:<24} {value}")


@main.command("openapi")
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@click.pass_obj
@friendly_errors
def openapi(config: Config, file: str | None) -> None:
    """Print (or write to FILE) the HTTP API's OpenAPI schema."""
    from appliance.daemon import api_app

    schema = json.dumps(api_app(_service(config, progress=False)).openapi(), indent=2, ensure_ascii=False)
    if file:
        Path(file).write_text(schema + "\n", encoding="utf-8")
    else:
        click.echo(schema)


@main.command("bench")
@click.option("--clients", default="16", show_default=True, help="Concurrent clients; a comma list runs a curve (1,4,16,64).")
@click.option("--requests", default=1000, show_default=True, help="Asks per run.")
@click.option("--bank-size", default=10_000, show_default=True, help="Entries in the generated bank.")
@click.option("--baseline/--no-baseline", default=True, show_default=True,
              help="Also measure the plain baseline (the encoder package's own encode, no batching).")
@click.option("--max-seconds", default=90.0, show_default=True, help="A run also ends after this long.")
@click.option("--plot", type=click.Path(dir_okay=False), help="Write QPS and p99 against clients to this PNG.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly_errors
def bench(config: Config, clients: str, requests: int, bank_size: int, baseline: bool,
          max_seconds: float, plot: str | None, as_json: bool) -> None:
    """Throughput and latency of the HTTP server under concurrent clients, vs the baseline."""
    from appliance.bench.serving import headline, run_bench

    counts = [int(c) for c in clients.split(",")]
    rows = run_bench(config, counts, requests, bank_size, baseline=baseline, max_seconds=max_seconds)
    if plot:
        from appliance.bench.plot import plot_curve

        plot_curve(rows, plot, title=f"eduqa bench: {config.encoder.model}, {bank_size} entries")
    summary = headline(rows, counts[-1] if len(counts) == 1 else 16 if 16 in counts else counts[-1])
    if as_json:
        click.echo(json.dumps({**summary, "runs": rows}))
        return
    for who, runs in rows.items():
        for r in runs:
            click.echo(f"{who:<9} clients={r['clients']:<3} qps={r['qps']:<7} p50={r['p50_ms']}ms "
                       f"p95={r['p95_ms']}ms p99={r['p99_ms']}ms 503={r['rejected_503']} 5xx={r['errors_5xx']}"
                       + (f" batch={r['mean_batch']}" if "mean_batch" in r else ""))
    click.echo(json.dumps(summary))


@main.command("loadtest")
@click.option("--clients", default=64, show_default=True)
@click.option("--duration", default=60.0, show_default=True, help="Seconds of load after warm-up.")
@click.option("--bank-size", default=10_000, show_default=True)
@click.option("--photos", type=click.Path(file_okay=False, exists=True), help="Folder of .jpg photos to mix in.")
@click.option("--photo-share", default=0.2, show_default=True, help="Share of asks sent as photos.")
@click.option("--unique-photos/--repeat-photos", default=True, show_default=True,
              help="Make every photo ask new to the OCR cache (random bytes after the JPEG's end), "
                   "or send the files as they are.")
@click.option("--hostile", is_flag=True,
              help="Honest clients with attackers mixed in (bad text, bombs, floods…), a calm run to compare, "
                   "an overload burst and a kill -9 (docs/SECURITY.md).")
@click.option("--overload-clients", default=1000, show_default=True, help="--hostile: asks sent at one instant.")
@click.option("--classroom-burst", is_flag=True,
              help="Instead of the soak: --burst-clients students each send one new photo at a random moment "
                   "within --burst-window seconds; p50/p95 photo → card against the single-photo median of "
                   "the same run, 503s, lost asks.")
@click.option("--burst-clients", default=40, show_default=True)
@click.option("--burst-window", default=10.0, show_default=True, help="Seconds the burst's photos arrive within.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_obj
@friendly_errors
def loadtest(config: Config, clients: int, duration: float, bank_size: int, photos: str | None,
             photo_share: float, unique_photos: bool, hostile: bool, overload_clients: int,
             classroom_burst: bool, burst_clients: int, burst_window: float, as_json: bool) -> None:
    """Soak the server on loopback: no 5xx but deliberate 503s, no acknowledged ask lost, memory flat."""
    from appliance.bench.serving import run_load_test

    if hostile:
        from appliance.bench.hostile import run_hostile_soak

        result = run_hostile_soak(config, clients, duration, bank_size, overload_clients=overload_clients)
        click.echo(json.dumps(result, ensure_ascii=False, indent=None if as_json else 2))
        honest = [result["calm_text"], result["calm_photo"], result["hostile_text"], result["hostile_photo"]]
        if result["missing_from_log"] or any(h["answered"] != h["sent"] or not h["sent"] for h in honest):
            sys.exit(1)
        return

    photo_bytes = [p.read_bytes() for p in sorted(Path(photos).glob("*.jpg"))] if photos else []
    if classroom_burst:
        from appliance.bench.burst import run_classroom_burst

        if not photo_bytes:
            raise click.UsageError("--classroom-burst needs --photos DIR with .jpg photos")
        result = run_classroom_burst(config, photo_bytes, burst_clients, burst_window, bank_size=bank_size)
        click.echo(json.dumps(result) if as_json else "\n".join(f"{k:<24} {v}" for k, v in result.items()))
        if result["rejected_503"] or result["failed_other"] or result["missing_from_log"]:
            sys.exit(1)
        return
    result = run_load_test(config, clients, duration, bank_size, photo_bytes, photo_share if photo_bytes else 0.0,
                           unique_photos=unique_photos)
    click.echo(json.dumps(result) if as_json else "\n".join(f"{k:<22} {v}" for k, v in result.items()))
    if result["errors_5xx"] or result["missing_from_log"]:
        sys.exit(1)


def _register_optional_commands() -> None:
    """Commands whose modules live beside the core (photo reading)."""
    from appliance.bench.ocr_eval import eval_ocr
    from appliance.ocr.cli import ocr
    from appliance.ops.cli import backup_command, restore_command
    from appliance.teachers.cli import teacher
    from engines.cli import doctor, engines_group

    main.add_command(ocr)
    main.add_command(eval_ocr)
    main.add_command(teacher)
    main.add_command(backup_command)
    main.add_command(restore_command)
    main.add_command(engines_group)
    main.add_command(doctor)


_register_optional_commands()


if __name__ == "__main__":
    main()
