"""Make the OCR photo test set: phone-like photos of printed bank questions.

    python tests/photos/make_photos.py OUT_DIR [--count 48] [--seed 7] [--scale 0.55]

For ``count`` answerable queries of ``appliance/data/demo_eval.csv`` (one per expected
entry, exact queries first) it prints the expected entry's question text with a CJK
font from Debian's ``fonts-noto-cjk`` on a paper-like page and "photographs" it:
small tilt, some pages turned 90°/180°/270°, perspective, uneven light and a shadow,
focus or motion blur, sensor noise, JPEG compression, and (on most photos) the
neighbouring printed line half in frame. Writes ``<qid>.jpg`` (1600×1200) and
``truth.csv`` (``qid,text``; the text is the printed bank question). Deterministic
for a seed; about 0.1 s an image.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

REPO = Path(__file__).resolve().parents[2]
BANK = REPO / "appliance" / "data" / "demo_bank.jsonl"
QUERIES = REPO / "appliance" / "data" / "demo_eval.csv"
FONT_DIRS = (Path("/usr/share/fonts/opentype/noto"), Path("/usr/share/fonts/truetype/noto"))
FONT_FILES = ("NotoSansCJK-Regular.ttc", "NotoSerifCJK-Regular.ttc", "NotoSansCJK-Bold.ttc")
SC_FACE = 2  # index of the Simplified Chinese face inside the Noto CJK collections
FRAME = (1600, 1200)  # width, height of every photo
KIND_ORDER = {"exact": 0, "partial": 1, "paraphrase": 2}
# Characters the Noto CJK fonts lack: printed as a smaller, lowered base character.
SUBSCRIPTS = {chr(0x2080 + d): str(d) for d in range(10)} | {"ₙ": "n", "ₓ": "x"}
# Page turn of photo i (degrees clockwise), cycling: mostly upright, some turned.
TURNS = (0, 0, 0, 180, 0, 0, 0, 90, 0, 0, 0, 270)
NO_LINE_START = set("，。、；：？！）》”’,.;:?!)")
LIGHT_SCALE = 200  # light gains are stored as uint8 × 1/200


class FontMissing(RuntimeError):
    """fonts-noto-cjk is not installed."""


@dataclass(frozen=True)
class Sample:
    qid: str
    text: str
    neighbour: str


@dataclass(frozen=True)
class Style:
    font: ImageFont.FreeTypeFont
    small: ImageFont.FreeTypeFont
    size: int
    ink: tuple[int, int, int]
    paper: tuple[int, int, int]
    column_chars: int
    widths: dict = field(default_factory=dict)


# -- choosing the questions ----------------------------------------------------------
def pick_samples(count: int) -> list[Sample]:
    bank = {e["id"]: e for e in map(json.loads, BANK.read_text(encoding="utf-8").splitlines()) if e}
    with QUERIES.open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["kind"] in KIND_ORDER]
    rows.sort(key=lambda r: (KIND_ORDER[r["kind"]], r["qid"]))
    chosen, seen = [], set()
    for row in rows:
        if row["expected_id"] not in seen and row["expected_id"] in bank:
            seen.add(row["expected_id"])
            chosen.append(row)
    if len(chosen) < count:
        raise SystemExit(f"only {len(chosen)} answerable queries with distinct entries")
    chosen = sorted(chosen[:count], key=lambda r: r["qid"])
    others = [e["question"] for i, e in sorted(bank.items()) if i not in seen]
    return [Sample(r["qid"], bank[r["expected_id"]]["question"], others[(i * 7) % len(others)])
            for i, r in enumerate(chosen)]


# -- printing the page -----------------------------------------------------------------
def find_font(name: str) -> Path:
    for folder in FONT_DIRS:
        if (folder / name).exists():
            return folder / name
    raise FontMissing(f"{name} not found: install fonts-noto-cjk (apt-get install fonts-noto-cjk)")


def make_style(rng: np.random.Generator, turn: int) -> Style:
    name = FONT_FILES[int(rng.choice(len(FONT_FILES), p=(0.5, 0.35, 0.15)))]
    size = int(rng.integers(40, 56))
    path = str(find_font(name))
    ink = tuple(int(v) for v in rng.integers(15, 45) + rng.integers(-10, 25, 3))
    paper = tuple(int(v) for v in rng.integers(218, 246) + rng.integers(-6, 7, 3))
    column = int(rng.integers(15, 19)) if turn in (90, 270) else int(rng.integers(20, 27))
    return Style(ImageFont.truetype(path, size, index=SC_FACE),
                 ImageFont.truetype(path, int(size * 0.62), index=SC_FACE), size, ink, paper, column)


def char_width(style: Style, ch: str) -> float:
    if ch not in style.widths:
        style.widths[ch] = (style.small.getlength(SUBSCRIPTS[ch]) if ch in SUBSCRIPTS
                            else style.font.getlength(ch))
    return style.widths[ch]


def wrap(text: str, style: Style) -> list[str]:
    """Greedy wrap at the column width; ASCII words stay whole, closing punctuation
    never starts a line (it may stick out, as in Chinese typesetting)."""
    limit = style.column_chars * style.size
    tokens, word = [], ""
    for ch in text:
        if ch.isascii() and not ch.isspace():
            word += ch
            continue
        tokens += [word, ch] if word else [ch]
        word = ""
    tokens += [word] if word else []
    lines, line = [], ""
    for token in tokens:
        if line and token not in NO_LINE_START and sum(char_width(style, c) for c in line + token) > limit:
            lines.append(line.rstrip())
            line = token.lstrip()
        else:
            line += token
    return lines + [line.rstrip()] if line.strip() else lines


def draw_line(draw: ImageDraw.ImageDraw, xy: tuple[float, float], line: str, style: Style) -> None:
    x, y = xy
    for ch in line:
        if ch in SUBSCRIPTS:
            draw.text((x, y + style.size * 0.42), SUBSCRIPTS[ch], font=style.small, fill=0)
        else:
            draw.text((x, y), ch, font=style.font, fill=0)
        x += char_width(style, ch)


def layout(sample: Sample, style: Style, above: bool | None) -> tuple[list[tuple[float, str]], tuple, float | None]:
    """Lines as (top y, text) in page units, the question's box and the neighbour's centre y."""
    pitch = style.size * 1.55
    question = wrap(sample.text, style)
    rows: list[tuple[float, str]] = []
    y, neighbour_y = 0.0, None
    neighbour = wrap(sample.neighbour, style)[-1 if above else 0] if above is not None else ""
    if above:
        rows.append((y, neighbour))
        neighbour_y, y = y + style.size * 0.78, y + pitch * 1.6
    top = y
    for line in question:
        rows.append((y, line))
        y += pitch
    bottom = y - pitch + style.size * 1.2
    width = max(sum(char_width(style, c) for c in line) for line in question)
    if above is False:
        y += pitch * 0.6
        rows.append((y, neighbour))
        neighbour_y = y + style.size * 0.78
    return rows, (0.0, top, width, bottom), neighbour_y


def camera_rect(rng: np.random.Generator, box: tuple, neighbour_y: float | None,
                above: bool | None, portrait: bool, size: int) -> np.ndarray:
    """Page-space corners (TL, TR, BR, BL) of what the camera sees, tilted and skewed."""
    x0, y0, x1, y1 = box
    aspect = 3 / 4 if portrait else 4 / 3
    mx, my = rng.uniform(50, 160), rng.uniform(50, 180)
    need_w = max(x1 - x0 + 2 * mx, size * (11 if portrait else 15))
    top = neighbour_y if above else y0 - my
    bottom = neighbour_y if above is False else y1 + my
    need_h = bottom - top
    w, h = (need_h * aspect, need_h) if need_w / need_h < aspect else (need_w, need_w / aspect)
    left = x0 - mx - rng.uniform(0, max(0.0, w - (x1 - x0 + 2 * mx)))
    if above is False:
        top = bottom - h
    elif not above:
        top -= rng.uniform(0, h - need_h)
    corners = np.array([[left, top], [left + w, top], [left + w, top + h], [left, top + h]], float)
    return tilt(rng, corners, cut_edge=None if above is None else (0, 1) if above else (2, 3), size=size)


def tilt(rng: np.random.Generator, corners: np.ndarray, cut_edge: tuple[int, int] | None,
         size: int) -> np.ndarray:
    """Perspective (corner jitter) and hand tilt. With a neighbour line, the frame edge
    that cuts it keeps running through its middle: that edge's corners move only along
    it, and the tilt (about the edge's midpoint) is small enough to stay within the line."""
    w, h = corners[2] - corners[0]
    jitter = rng.uniform(-0.03, 0.03, (4, 2)) * (w, h)
    if cut_edge:
        jitter[list(cut_edge), 1] = 0.0
        limit = math.degrees(math.atan(0.15 * size / (w / 2)))
        pivot = corners[list(cut_edge)].mean(axis=0)
    else:
        limit, pivot = 4.0, corners.mean(axis=0)
    corners = corners + jitter
    angle = math.radians(rng.uniform(-limit, limit))
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return ((corners - pivot) @ rot.T + pivot).astype(np.float32)


def print_page(rows, style: Style, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Render the lines on paper covering the camera rect; returns (BGR page, shifted corners)."""
    origin = np.floor(corners.min(axis=0)) - 40
    size = np.ceil(corners.max(axis=0) - origin) + 40
    mask = Image.new("L", (int(size[0]), int(size[1])), 255)
    draw = ImageDraw.Draw(mask)
    for y, line in rows:
        draw_line(draw, (-origin[0], y - origin[1]), line, style)
    coverage = np.asarray(mask)  # 0 = ink, 255 = paper, anti-aliased between
    ramps = [np.linspace(i, p, 256).round().astype(np.uint8) for i, p in zip(style.ink[::-1], style.paper[::-1])]
    page = cv2.merge([cv2.LUT(coverage, ramp) for ramp in ramps])
    return page, (corners - origin).astype(np.float32)


# -- photographing it ------------------------------------------------------------------
def frame_corners(turn: int) -> np.ndarray:
    w, h = FRAME
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    return np.roll(corners, turn // 90, axis=0)


def light_field(rng: np.random.Generator) -> np.ndarray:
    """A smooth light ramp in a random direction times one soft shadow (computed small),
    as uint8 gains over ``LIGHT_SCALE``."""
    w, h = 160, 120
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, 2 * math.pi)
    ramp = (xx / w - 0.5) * math.cos(angle) + (yy / h - 0.5) * math.sin(angle)
    light = 0.9 + rng.uniform(0.15, 0.35) * ramp
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    shadow = np.exp(-(((xx - cx) / (w * 0.35)) ** 2 + ((yy - cy) / (h * 0.3)) ** 2))
    light *= 1.0 - rng.uniform(0.05, 0.3) * shadow
    light = cv2.resize(light * LIGHT_SCALE, FRAME, interpolation=cv2.INTER_LINEAR).astype(np.uint8)
    return cv2.merge([light] * 3)


def blur(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    if rng.random() < 0.25:
        length = int(rng.integers(4, 8))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        return cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.4))


def photograph(rng: np.random.Generator, page: np.ndarray, corners: np.ndarray, turn: int) -> bytes:
    matrix = cv2.getPerspectiveTransform(corners, frame_corners(turn))
    shot = cv2.warpPerspective(page, matrix, FRAME, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    shot = blur(rng, cv2.multiply(shot, light_field(rng), scale=1 / LIGHT_SCALE))
    noise = rng.standard_normal((FRAME[1], FRAME[0]), np.float32) * np.float32(rng.uniform(2.0, 6.0))
    shot = cv2.add(shot, cv2.merge([noise] * 3), dtype=cv2.CV_8U)  # saturating
    ok, jpeg = cv2.imencode(".jpg", shot, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 86))])
    assert ok
    return jpeg.tobytes()


def make_photo(sample: Sample, index: int, seed: int) -> bytes:
    rng = np.random.default_rng([seed, index])
    turn = TURNS[index % len(TURNS)]
    style = make_style(rng, turn)
    above = [True, False, None, True][index % 4]
    rows, box, neighbour_y = layout(sample, style, above)
    corners = camera_rect(rng, box, neighbour_y, above, turn in (90, 270), style.size)
    page, corners = print_page(rows, style, corners)
    return photograph(rng, page, corners, turn)


def shrink(jpeg: bytes, factor: float) -> bytes:
    """The same photo taken from further away: content scaled by ``factor``, same frame."""
    shot = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    small = cv2.resize(shot, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    top, left = (FRAME[1] - small.shape[0]) // 2, (FRAME[0] - small.shape[1]) // 2
    framed = cv2.copyMakeBorder(small, top, FRAME[1] - small.shape[0] - top, left,
                                FRAME[0] - small.shape[1] - left, cv2.BORDER_REPLICATE)
    return cv2.imencode(".jpg", framed, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()


def make_set(out: Path, count: int = 48, seed: int = 7, scale: float = 1.0) -> list[Sample]:
    out.mkdir(parents=True, exist_ok=True)
    samples = pick_samples(count)
    for index, sample in enumerate(samples):
        photo = make_photo(sample, index, seed)
        (out / f"{sample.qid}.jpg").write_bytes(shrink(photo, scale) if scale < 1 else photo)
    with (out / "truth.csv").open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["qid", "text"])
        writer.writerows((s.qid, s.text) for s in samples)
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=48)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--scale", type=float, default=1.0, help="shrink the content (e.g. 0.55: smaller print)")
    args = parser.parse_args(argv)
    try:
        samples = make_set(args.out, args.count, args.seed, args.scale)
    except FontMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(samples)} photos and truth.csv to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
