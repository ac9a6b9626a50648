"""OCR evaluation on a folder of photos: ``<qid>.jpg`` (or .jpeg/.png/.webp/.heic) and
``truth.csv`` with header ``qid,text``. Overall CER is total edits over total reference
characters (long questions weigh more); per image CER and time are kept too. ``eduqa
eval-ocr`` (:func:`eval_ocr`, registered on the main group) prints it."""

from __future__ import annotations

import json
import logging
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path

import click

from appliance.bench.csv_input import read_rows
from appliance.ocr import cli as ocr_cli
from appliance.ocr.errors import ImageRejected, OcrEvalFileError
from appliance.ocr.reader import OcrReader
from appliance.wording.cer import errors

log = logging.getLogger(__name__)

SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".heic")
HEADER = ("qid", "text")


@dataclass(frozen=True)
class TruthRow:
    qid: str
    text: str


@dataclass(frozen=True)
class ImageScore:
    qid: str
    cer: float
    edits: int
    chars: int
    ms: float
    text: str
    truth: str
    rejected: str = ""  # the ImageRejected reason, if the photo was refused
    stage_ms: dict[str, float] = field(default_factory=dict)
    # Complete problems had equal claim: the ask path would list them, not answer; ``text``
    # (scored) is the most central one.
    ambiguous: bool = False


@dataclass(frozen=True)
class OcrEvalReport:
    cer: float
    n: int
    median_ms: float
    stage_ms: dict[str, float]  # median per stage
    images: tuple[ImageScore, ...]
    missing: tuple[str, ...]  # qids in truth.csv without a photo

    def summary(self) -> dict:
        return {"cer": round(self.cer, 5), "n": self.n, "median_ms": round(self.median_ms, 1),
                "ambiguous": sum(i.ambiguous for i in self.images)}

    def to_dict(self) -> dict:
        return {**self.summary(), "stage_ms": self.stage_ms, "missing": list(self.missing),
                "images": [asdict(i) for i in self.images]}


def read_truth(folder: Path) -> list[TruthRow]:
    path = folder / "truth.csv"
    if not folder.is_dir():
        raise OcrEvalFileError(f"not a folder: {folder}")
    truth = []
    for line, row in enumerate(read_rows(path, HEADER, OcrEvalFileError, f"{path} not found (header qid,text)"), start=2):
        if len(row) != 2 or not row[0].strip():
            raise OcrEvalFileError(f"{path} line {line}: expected 2 fields, qid,text")
        truth.append(TruthRow(row[0].strip(), row[1]))
    return truth


def find_photo(folder: Path, qid: str) -> Path | None:
    return next((folder / f"{qid}{s}" for s in SUFFIXES if (folder / f"{qid}{s}").is_file()), None)


def evaluate_folder(folder: str | Path, reader: OcrReader) -> OcrEvalReport:
    folder = Path(folder)
    truth = read_truth(folder)
    photos = [(row, find_photo(folder, row.qid)) for row in truth]
    missing = tuple(row.qid for row, photo in photos if photo is None)
    scores = [score_one(reader, row, photo) for row, photo in photos if photo is not None]
    if not scores:
        raise OcrEvalFileError(f"no photo in {folder} matches a qid of truth.csv (<qid>.jpg or .png)")
    return report(scores, missing)


def score_one(reader: OcrReader, row: TruthRow, photo: Path) -> ImageScore:
    try:
        result = reader.read_file(photo)
    except ImageRejected as exc:
        edits, chars = errors(row.text, "")
        return ImageScore(row.qid, 1.0 if chars else 0.0, edits, chars, 0.0, "", row.text, exc.reason)
    edits, chars = errors(row.text, result.text)
    return ImageScore(row.qid, edits / chars if chars else float(edits > 0), edits, chars,
                      result.total_ms, result.text, row.text, stage_ms=result.stage_ms,
                      ambiguous=result.ambiguous)


def report(scores: list[ImageScore], missing: tuple[str, ...]) -> OcrEvalReport:
    edits, chars = sum(s.edits for s in scores), sum(s.chars for s in scores)
    timed = [s for s in scores if not s.rejected]
    stages = {name: round(statistics.median(s.stage_ms.get(name, 0.0) for s in timed), 1)
              for name in dict.fromkeys(k for s in timed for k in s.stage_ms)}
    return OcrEvalReport(edits / chars if chars else 0.0, len(scores),
                         statistics.median(s.ms for s in timed) if timed else 0.0, stages,
                         tuple(scores), missing)


@click.command("eval-ocr")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print {cer, n, median_ms} as JSON.")
@click.pass_obj
@ocr_cli.one_line_errors
def eval_ocr(config, folder: str, as_json: bool) -> None:
    """Character error rate and speed on FOLDER: <qid>.jpg/.png photos and truth.csv (qid,text)."""
    read_truth(Path(folder))  # fail fast on a bad folder before loading models
    result = evaluate_folder(folder, ocr_cli.reader_for(config))
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
