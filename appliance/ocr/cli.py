"""``eduqa ocr`` and ``eduqa eval-ocr``: standalone click commands, registered on the main
group with ``main.add_command(ocr)`` and ``main.add_command(eval_ocr)``. They take the
appliance :class:`~appliance.config.Config` from ``ctx.obj``."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click

from appliance.ocr.errors import NoTextFound, OcrError


def _known_errors() -> tuple[type[Exception], ...]:
    from appliance.config import ConfigError
    from engines.backend import BackendError

    return OcrError, ConfigError, BackendError


def _one_line_errors(func):
    """Known failures: one ``error:`` line on stderr, exit status 2, no traceback."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except _known_errors() as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)

    return wrapper


def _reader(config):
    from appliance.ocr.reader import OcrReader
    from appliance.ocr.settings import OcrSettings

    return OcrReader.open(OcrSettings.from_config(config))


@click.command("ocr")
@click.argument("photo", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the whole OCR result as JSON.")
@click.pass_obj
@_one_line_errors
def ocr(config, photo: str, as_json: bool) -> None:
    """Read the question in a photo (JPEG, PNG, WebP, HEIC) and print its text."""
    from appliance.ocr.image import decode_photo, read_photo_file
    from appliance.ocr.settings import OcrSettings

    limits = OcrSettings.from_config(config).limits
    data = read_photo_file(photo, limits)
    decode_photo(data, limits)  # bad input fails before the models load
    result = _reader(config).read(data)
    if result.empty:
        raise NoTextFound(result)
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return
    click.echo(result.text)
    stages = ", ".join(f"{k} {v:.0f}" for k, v in result.stage_ms.items())
    click.echo(f"confidence: {result.confidence:.2f}  lines: {len(result.lines)}  rotation: {result.rotation}°  "
               f"{result.total_ms:.0f} ms ({stages})  backend: {result.backend}", err=True)


@click.command("eval-ocr")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print {cer, n, median_ms} as JSON.")
@click.pass_obj
@_one_line_errors
def eval_ocr(config, folder: str, as_json: bool) -> None:
    """Character error rate and speed on FOLDER: <qid>.jpg/.png photos and truth.csv (qid,text)."""
    from appliance.ocr.evaluate import evaluate_folder, read_truth

    read_truth(Path(folder))  # fail fast on a bad folder before loading models
    result = evaluate_folder(folder, _reader(config))
    if as_json:
        click.echo(json.dumps(result.summary()))
        return
    for image in result.images:
        note = f"  rejected: {image.rejected}" if image.rejected else "  (equal claim: choices)" if image.ambiguous else ""
        click.echo(f"{image.qid}\tCER {image.cer:.3f}\t{image.ms:.0f} ms{note}")
    for qid in result.missing:
        click.echo(f"{qid}\tno photo")
    stages = ", ".join(f"{k} {v:.0f}" for k, v in result.stage_ms.items())
    ambiguous = result.summary()["ambiguous"]
    click.echo(f"CER {result.cer:.4f} over {result.n} photos; median {result.median_ms:.0f} ms ({stages})"
               + (f"; {ambiguous} with equal claims" if ambiguous else ""))
