"""Make worksheet-style tuning photos: the framed problem among numbered neighbours.

    python tests/photos/make_worksheet_photos.py OUT_DIR [--count 48] [--seed 5]

Built on :mod:`tests.photos.make_photos` (same fonts, paper, camera and noise) and,
like it, written next to the OCR code: it is the set the question selection was tuned
on, not an independent test. Each page prints numbered problems ("7." 「7．」 "（7）"
「第7题」 "Q7."), the framed one in the middle of the photo with whole neighbours above
and/or below; some pages have a header line (a sheet title, 「第一题（5分）」, "Homework 3,
Question 1") above the problem, some are two-column (the other column cut by the frame's
side), some carry a tick or a circled mark beside the problem; blanks (``___``) are
printed as drawn underlines and ² ³ as small raised digits. Some pages space their
problems tightly, some put the framed problem in the right column, some circle a mark
beside it; some photos have a finger over an edge, a screen's moiré, or are 1280×960. ``truth.csv`` holds the
framed problem's bank text; ``queries.csv`` (``qid,query,expected_id,kind``) the eval
queries whose photo this is.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import ImageDraw

from tests.photos.make_photos import (BANK, KIND_ORDER, QUERIES, FontMissing, Style, char_width,
                                      make_style, photograph, print_page, tilt, wrap)

SUPERSCRIPTS = {"²": "2", "³": "3"}
NUMBER_STYLES = ("{n}. ", "{n}．", "（{n}）", "第{n}题 ", "Q{n}. ")
HEADERS = ("Homework 3, Question 1", "第一题（5分）", "第二单元 课时练习", "Name: ______  Class: ______",
           "一、解答题（每题 6 分）", "Worksheet 2")
BLANK = "___"
CIRCLE = "<circle>"


@dataclass(frozen=True)
class Problem:
    qid: str
    entry_id: str
    text: str
    query: str
    kind: str


def pick(count: int) -> tuple[list[Problem], list[str]]:
    bank = {e["id"]: e for e in map(json.loads, BANK.read_text(encoding="utf-8").splitlines()) if e}
    with QUERIES.open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["kind"] in KIND_ORDER and r["expected_id"] in bank]
    rows.sort(key=lambda r: (KIND_ORDER[r["kind"]], r["qid"]))
    chosen, seen = [], set()
    for row in rows:
        if row["expected_id"] not in seen:
            seen.add(row["expected_id"])
            chosen.append(Problem(row["qid"], row["expected_id"], bank[row["expected_id"]]["question"],
                                  row["query"], row["kind"]))
    short = [e["question"] for e in bank.values() if len(e["question"]) < 60]
    return sorted(chosen[:count], key=lambda p: p.qid), short


def draw_text(draw: ImageDraw.ImageDraw, x: float, y: float, line: str, style: Style) -> None:
    """Print one line; blanks as drawn underlines, ² ³ small and raised."""
    if line == CIRCLE:
        draw.ellipse([(x, y), (x + style.size * 1.3, y + style.size * 1.2)], outline=0, width=max(2, style.size // 16))
        return
    i = 0
    while i < len(line):
        if line.startswith(BLANK, i):
            width = style.size * 2.2
            draw.line([(x + 2, y + style.size * 1.08), (x + width - 2, y + style.size * 1.08)], fill=0,
                      width=max(2, style.size // 18))
            x += width
            i += len(BLANK)
            continue
        ch = line[i]
        if ch in SUPERSCRIPTS:
            draw.text((x, y - style.size * 0.12), SUPERSCRIPTS[ch], font=style.small, fill=0)
            x += style.small.getlength(SUPERSCRIPTS[ch])
        else:
            draw.text((x, y), ch, font=style.font, fill=0)
            x += char_width(style, ch)
        i += 1


def page_rows(rng, problem: Problem, others: list[str], style: Style, index: int):
    """Rows (x, y, text) of a page and the framed problem's box."""
    pitch, gap = style.size * 1.55, style.size * float(rng.uniform(0.6 if index % 3 == 2 else 1.2, 2.4))
    number = int(rng.integers(2, 19))
    fmt = NUMBER_STYLES[index % len(NUMBER_STYLES)]
    before = int(rng.integers(0, 3))
    after = int(rng.integers(0, 3)) if before else int(rng.integers(1, 3))
    texts = [others[int(rng.integers(len(others)))] for _ in range(before + after)]
    sequence = [(number - before + k, t, False) for k, t in enumerate(texts[:before])]
    sequence += [(number, problem.text, True)] + [(number + 1 + k, t, False) for k, t in enumerate(texts[before:])]
    rows, y, box = [], 0.0, None
    if index % 3 == 0:
        rows.append((0.0, y, HEADERS[(index // 3) % len(HEADERS)]))
        y += pitch * 1.4
    for n, text, framed in sequence:
        if framed and index % 5 == 1:  # a label line right above the problem
            rows.append((0.0, y, f"第{n}题（{int(rng.integers(2, 9))}分）"))
            y += pitch * 1.2
        top = y
        lines = wrap(fmt.format(n=n) + text, style)
        for line in lines:
            rows.append((0.0, y, line))
            y += pitch
        if framed:
            width = max(sum(char_width(style, c) for c in line) for line in lines)
            box = (0.0, top, width, y - pitch + style.size * 1.2)
            if index % 4 == 2:  # a tick beside it
                rows.append((width + style.size * 1.5, top, "√"))
            if index % 4 == 1:  # a circle drawn in the margin
                rows.append((-style.size * 2.2, top, CIRCLE))
        y += gap - pitch + style.size
    return rows, box


def make_photo(problem: Problem, others: list[str], index: int, seed: int) -> bytes:
    rng = np.random.default_rng([seed, index])
    style = make_style(rng, 0)
    rows, box = page_rows(rng, problem, others, style, index)
    two_column = index % 4 == 3
    if two_column:  # a second column, cut by the frame's side (left of the framed one on some pages)
        gutter = style.size * float(rng.uniform(1.2, 3.0))
        width = max(x + sum(char_width(style, c) for c in text) for x, _, text in rows) + gutter
        side = -1 if index % 8 == 7 else 1
        rows += [(side * width, y, text) for _, y, text in rows if text not in ("√", CIRCLE)]
    x0, y0, x1, y1 = box
    w = max(x1 - x0 + style.size * 4, style.size * 15)
    h = w * 3 / 4
    h = max(h, (y1 - y0) + style.size * 3)
    w = h * 4 / 3
    cx, cy = (x0 + x1) / 2 + rng.uniform(-0.04, 0.04) * w, (y0 + y1) / 2 + rng.uniform(-0.04, 0.04) * h
    corners = np.array([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2],
                        [cx - w / 2, cy + h / 2]], float)
    corners = tilt(rng, corners, None, style.size)
    page, corners = print_rows(rows, style, corners)
    return phone_effects(rng, photograph(rng, page, corners, 0), index)


def phone_effects(rng, jpeg: bytes, index: int) -> bytes:
    """A finger over an edge, a screen's moiré, a 1280×960 camera."""
    shot = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    h, w = shot.shape[:2]
    if index % 5 == 3:
        corner = (int(rng.choice([0, w])), int(rng.uniform(0.3, 0.9) * h))
        cv2.ellipse(shot, corner, (int(w * 0.09), int(h * 0.2)), float(rng.uniform(0, 180)), 0, 360,
                    (120, 150, 205), -1)
    if index % 6 == 4:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        beat = 1 + 0.07 * np.sin(xx * 0.71 + yy * 0.23) * np.sin(yy * 0.67 - xx * 0.11)
        shot = np.clip(shot * beat[..., None], 0, 255).astype(np.uint8)
    if index % 2 == 1:
        shot = cv2.resize(shot, (1280, 960), interpolation=cv2.INTER_AREA)
    return cv2.imencode(".jpg", shot, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 88))])[1].tobytes()


def print_rows(rows, style: Style, corners: np.ndarray):
    page, shifted = print_page([], style, corners)  # blank paper of the right size
    origin = corners.min(axis=0) - shifted.min(axis=0)
    mask = np.full(page.shape[:2], 255, np.uint8)
    from PIL import Image

    image = Image.fromarray(mask)
    draw = ImageDraw.Draw(image)
    for x, y, text in rows:
        draw_text(draw, x - origin[0], y - origin[1], text, style)
    coverage = np.asarray(image)
    ramps = [np.linspace(i, p, 256).round().astype(np.uint8) for i, p in zip(style.ink[::-1], style.paper[::-1])]
    return cv2.merge([cv2.LUT(coverage, ramp) for ramp in ramps]), shifted


def make_set(out: Path, count: int = 48, seed: int = 5) -> list[Problem]:
    out.mkdir(parents=True, exist_ok=True)
    problems, others = pick(count)
    for index, problem in enumerate(problems):
        pool = [t for t in others if t != problem.text]
        (out / f"{problem.qid}.jpg").write_bytes(make_photo(problem, pool, index, seed))
    with (out / "truth.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["qid", "text"])
        writer.writerows((p.qid, p.text) for p in problems)
    with (out / "queries.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["qid", "query", "expected_id", "kind"])
        writer.writerows((p.qid, p.query, p.entry_id, p.kind) for p in problems)
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=48)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    try:
        problems = make_set(args.out, args.count, args.seed)
    except FontMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(problems)} photos, truth.csv and queries.csv to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
