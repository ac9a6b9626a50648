"""OCR benchmark: this pipeline vs RapidOCR with its defaults, same photos, same run;
and the photo path's top-1 accuracy against the text path on the same queries.

    python -m appliance.bench.ocr_photos PHOTO_DIR [--repeat 3] [--det-max-side 640] [--threads 1] [--no-baseline]
    python -m appliance.bench.ocr_photos PHOTO_DIR --top1 --data-dir DIR [--queries FILE]

PHOTO_DIR is an eval-ocr folder (``<qid>.jpg`` + ``truth.csv``), e.g. the one
``tests/photos/make_photos.py`` writes. Timings alternate the two systems photo by
photo (and which goes first), so background load hits both alike; the load average
is reported with the figures. The reader runs without its cache, so every read is real.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from appliance.wording.cer import errors
from appliance.bench.ocr_eval import find_photo, read_truth
from appliance.ocr.layout import TextBox
from appliance.ocr.page import arrange_page
from appliance.ocr.reader import OcrReader
from appliance.ocr.settings import OcrSettings


@dataclass
class Tally:
    """Times and errors of one system over the photo set."""

    ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)  # process CPU time, all threads
    edits: int = 0
    chars: int = 0
    stages: list[dict] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)

    def summary(self) -> dict:
        out = {"cer": round(self.edits / max(self.chars, 1), 5),
               "median_ms": round(statistics.median(self.ms), 1),
               "median_cpu_ms": round(statistics.median(self.cpu_ms), 1),
               "p90_ms": round(statistics.quantiles(self.ms, n=10)[-1], 1) if len(self.ms) > 1 else None}
        if self.stages:
            names = dict.fromkeys(k for s in self.stages for k in s)
            out["stage_ms"] = {k: round(statistics.median(s.get(k, 0.0) for s in self.stages), 1) for k in names}
        return out


def rapidocr_engine():
    """RapidOCR with its default configuration (only its logging quietened)."""
    from rapidocr import RapidOCR

    return RapidOCR(params={"Global.log_level": "warning"})


def read_ours(reader: OcrReader, photo: bytes) -> tuple[str, float, dict]:
    started = time.perf_counter()
    result = reader.read(photo)
    return result.text, (time.perf_counter() - started) * 1000, result.stage_ms


def read_rapidocr(engine, photo: bytes) -> tuple[str, float, object]:
    started = time.perf_counter()
    output = engine(photo)
    ms = (time.perf_counter() - started) * 1000
    return "\n".join(output.txts or ()), ms, output


def rapidocr_with_our_layout(output) -> str:
    """RapidOCR's boxes and readings through this appliance's layout step (frame-edge filter)."""
    if getattr(output, "boxes", None) is None or not output.txts:
        return ""
    boxes = [TextBox(t, float(s), np.asarray(b, np.float32))
             for b, t, s in zip(output.boxes, output.txts, output.scores)]
    return arrange_page(boxes, (output.img.shape[1], output.img.shape[0])).text


def compare(folder: Path, reader: OcrReader, engine, repeat: int) -> dict:
    """Both systems on every photo, ``repeat`` rounds; ``engine`` None times ours alone."""
    truth = [(row, find_photo(folder, row.qid)) for row in read_truth(folder)]
    photos = [(row, photo.read_bytes()) for row, photo in truth if photo is not None]
    ours, rapid, rapid_layout = Tally(), Tally(), Tally()
    load_before = os.getloadavg()
    for rep in range(repeat):
        for index, (row, data) in enumerate(photos):
            runs = [("ours", read_ours, reader), ("rapid", read_rapidocr, engine)][: 2 if engine else 1]
            for name, read, system in runs if (index + rep) % 2 == 0 else runs[::-1]:
                cpu_started = time.process_time()
                text, ms, extra = read(system, data)
                tally = ours if name == "ours" else rapid
                tally.ms.append(ms)
                tally.cpu_ms.append((time.process_time() - cpu_started) * 1000)
                if rep == 0:
                    add_errors(tally, row.qid, row.text, text)
                    if name == "ours":
                        tally.stages.append(extra)
                    else:
                        add_errors(rapid_layout, row.qid, row.text, rapidocr_with_our_layout(extra))
    summary = {"photos": len(photos), "repeat": repeat, "load_before": [round(x, 2) for x in load_before],
               "load_after": [round(x, 2) for x in os.getloadavg()], "ours": ours.summary(), "texts": ours.texts}
    if engine:
        summary["rapidocr_defaults"] = rapid.summary()
        summary["rapidocr_defaults"]["cer_with_our_layout"] = round(rapid_layout.edits / max(rapid_layout.chars, 1), 5)
        summary["speedup"] = round(summary["rapidocr_defaults"]["median_ms"] / summary["ours"]["median_ms"], 2)
    return summary


def add_errors(tally: Tally, qid: str, truth: str, text: str) -> None:
    edits, chars = errors(truth, text)
    tally.edits += edits
    tally.chars += chars
    tally.texts[qid] = text


def photo_vs_text(folder: Path, texts: dict[str, str], data_dir: str, queries: str) -> dict:
    """Top-1 of decide_only(OCR text) vs decide_only(typed query), same queries."""
    from appliance.config import load_config
    from appliance.bench.evaluation import read_queries
    from appliance.ask.service import AskService

    service = AskService.open(load_config(data_dir=data_dir))
    printed = {row.qid: row.text for row in read_truth(folder)}
    asked = [q for q in read_queries(queries) if q.qid in texts]
    hits = {"text": 0, "photo": 0, "printed_text": 0}
    misses = []
    for query in asked:
        answers = {"text": query.query, "photo": texts[query.qid] or " ", "printed_text": printed[query.qid]}
        for path, text in answers.items():
            decision = service.decide_only(text) if text.strip() else None
            best = decision.best[1]["id"] if decision and decision.best else None
            hits[path] += best == query.expected_id
            if path == "photo" and best != query.expected_id:
                misses.append({"qid": query.qid, "expected": query.expected_id, "got": best, "ocr": texts[query.qid]})
    n = len(asked)
    return {"n": n, **{f"top1_{k}": round(v / max(n, 1), 4) for k, v in hits.items()}, "photo_misses": misses}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="OCR speed/CER vs RapidOCR defaults; photo vs text top-1")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--det-max-side", type=int, default=OcrSettings.det_max_side)
    parser.add_argument("--threads", type=int, default=OcrSettings.threads)
    parser.add_argument("--no-baseline", action="store_true", help="time this pipeline alone")
    parser.add_argument("--top1", action="store_true", help="also photo-path vs text-path top-1")
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("--queries", default=str(Path(__file__).parents[1] / "data" / "demo_eval.csv"))
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    settings = OcrSettings(det_max_side=args.det_max_side, threads=args.threads, cache_size=0)
    engine = None if args.no_baseline else rapidocr_engine()
    summary = compare(args.folder, OcrReader.open(settings), engine, args.repeat)
    if args.top1:
        summary["top1"] = photo_vs_text(args.folder, summary["texts"], args.data_dir, args.queries)
    summary.pop("texts")
    print(json.dumps(summary, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
