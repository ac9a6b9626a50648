"""``eduqa ocr``: a standalone click command, registered on the main group with
``main.add_command(ocr)``; it takes the appliance :class:`~appliance.config.Config` from
``ctx.obj``. ``eduqa eval-ocr`` is :mod:`appliance.bench.ocr_eval`'s."""

from __future__ import annotations

import functools
import json
import sys

import click

from appliance.ocr.errors import NoTextFound, OcrError


def _known_errors() -> tuple[type[Exception], ...]:
    from appliance.config import ConfigError
    from engines.backend import BackendError

    return OcrError, ConfigError, BackendError


def one_line_errors(func):
    """Known failures: one ``error:`` line on stderr, exit status 2, no traceback."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except _known_errors() as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)

    return wrapper


def reader_for(config):
    from appliance.ocr.reader import OcrReader
    from appliance.ocr.settings import OcrSettings

    return OcrReader.open(OcrSettings.from_config(config))


@click.command("ocr")
@click.argument("photo", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the whole OCR result as JSON.")
@click.pass_obj
@one_line_errors
def ocr(config, photo: str, as_json: bool) -> None:
    """Read the question in a photo (JPEG, PNG, WebP, HEIC) and print its text."""
    from appliance.ocr.image import decode_photo, read_photo_file
    from appliance.ocr.settings import OcrSettings

    limits = OcrSettings.from_config(config).limits
    data = read_photo_file(photo, limits)
    decode_photo(data, limits)  # bad input fails before the models load
    result = reader_for(config).read(data)
    if result.empty:
        raise NoTextFound(result)
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return
    click.echo(result.text)
    stages = ", ".join(f"{k} {v:.0f}" for k, v in result.stage_ms.items())
    click.echo(f"confidence: {result.confidence:.2f}  lines: {len(result.lines)}  rotation: {result.rotation}°  "
               f"{result.total_ms:.0f} ms ({stages})  backend: {result.backend}", err=True)
