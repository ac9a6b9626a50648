#!/usr/bin/env python3
"""Synthetic phone photos of printed school problems.

Each photo frames ONE problem of the question bank (the target) on a
rendered page full of other bank problems (neighbours), seen through a
simple camera model.  See README.md in this folder for the details.

Usage:
    make_photos.py --bank BANK.jsonl OUT_DIR [--count N] [--seed S]
                   [--workers W] [--only 3,17]
    make_photos.py --summary OUT_DIR

Everything about photo i is drawn from numpy.random.default_rng([seed, i]);
only the target item (a seeded permutation of the bank) and the primary
case kind (a seeded round-robin) are fixed per (seed, i) beforehand.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
import time
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache
from multiprocessing import Pool

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

KINDS = ("numbering", "exam", "marks", "camera", "framing", "typography", "media")
SIZES = [(1280, 960), (1600, 1200), (1920, 1440), (2400, 1800), (960, 1280), (1200, 1600)]
MIN_GLYPH_PX = 21.0        # aim; the promise is "at least ~20 px"
CENTER_LIMIT = 0.15        # aim; the promise is "within ~20 % of the frame size"
MIX_PROB = 0.3

# --------------------------------------------------------------------------
# Fonts
# --------------------------------------------------------------------------
_NOTO = "/usr/share/fonts/opentype/noto/"
_DJ = "/usr/share/fonts/truetype/dejavu/"
_LIB = "/usr/share/fonts/truetype/liberation/"
FONT_FILES = {
    "sans_cjk": (_NOTO + "NotoSansCJK-Regular.ttc", 2),     # Noto Sans CJK SC
    "sans_cjk_b": (_NOTO + "NotoSansCJK-Bold.ttc", 2),
    "serif_cjk": (_NOTO + "NotoSerifCJK-Regular.ttc", 2),   # Noto Serif CJK SC
    "serif_cjk_b": (_NOTO + "NotoSerifCJK-Bold.ttc", 2),
    "dv_sans": (_DJ + "DejaVuSans.ttf", 0),
    "dv_sans_b": (_DJ + "DejaVuSans-Bold.ttf", 0),
    "dv_sans_i": (_DJ + "DejaVuSans-Oblique.ttf", 0),
    "dv_serif": (_DJ + "DejaVuSerif.ttf", 0),
    "dv_serif_b": (_DJ + "DejaVuSerif-Bold.ttf", 0),
    "dv_serif_i": (_DJ + "DejaVuSerif-Italic.ttf", 0),
    "dv_cond": (_DJ + "DejaVuSansCondensed.ttf", 0),
    "dv_cond_b": (_DJ + "DejaVuSansCondensed-Bold.ttf", 0),
    "dv_cond_i": (_DJ + "DejaVuSansCondensed-Oblique.ttf", 0),
    "lib_sans": (_LIB + "LiberationSans-Regular.ttf", 0),
    "lib_sans_b": (_LIB + "LiberationSans-Bold.ttf", 0),
    "lib_sans_i": (_LIB + "LiberationSans-Italic.ttf", 0),
    "lib_serif": (_LIB + "LiberationSerif-Regular.ttf", 0),
    "lib_serif_b": (_LIB + "LiberationSerif-Bold.ttf", 0),
    "lib_serif_i": (_LIB + "LiberationSerif-Italic.ttf", 0),
    "lib_narrow": (_LIB + "LiberationSansNarrow-Regular.ttf", 0),
    "lib_narrow_b": (_LIB + "LiberationSansNarrow-Bold.ttf", 0),
    "lib_narrow_i": (_LIB + "LiberationSansNarrow-Italic.ttf", 0),
    "dv_math": (_DJ + "DejaVuMathTeXGyre.ttf", 0),
}
CJK_FAMILIES = {"sans": ("sans_cjk", "sans_cjk_b"), "serif": ("serif_cjk", "serif_cjk_b")}
LATIN_FAMILIES = ["dv_sans", "dv_serif", "dv_cond", "lib_sans", "lib_serif", "lib_narrow", "cjk"]
# last resort chain, in order, for a character the page fonts lack
FALLBACK = ["dv_sans", "dv_serif", "sans_cjk", "serif_cjk", "dv_math"]
HAND_FONTS = ["dv_sans_i", "lib_sans_i", "dv_serif_i", "lib_narrow_i", "dv_cond_i"]
REF_PX = 200               # size at which metrics are measured


def available(key: str) -> bool:
    return os.path.exists(FONT_FILES[key][0])


@cache
def font_cmap(key: str) -> frozenset:
    from fontTools.ttLib import TTFont
    path, idx = FONT_FILES[key]
    if not os.path.exists(path):
        return frozenset()
    tt = TTFont(path, fontNumber=idx, lazy=True)
    return frozenset(tt.getBestCmap().keys())


@lru_cache(maxsize=256)
def pil_font(key: str, px: int) -> ImageFont.FreeTypeFont:
    path, idx = FONT_FILES[key]
    return ImageFont.truetype(path, max(4, int(px)), index=idx,
                              layout_engine=ImageFont.Layout.BASIC)


@cache
def char_metrics(key: str, ch: str) -> tuple[float, tuple[float, float, float, float]]:
    """Advance and ink box (x0, y0, x1, y1 relative to the baseline) in em."""
    f = pil_font(key, REF_PX)
    adv = f.getlength(ch) / REF_PX
    if ch.isspace():
        return adv, (0.0, 0.0, 0.0, 0.0)
    b = f.getbbox(ch, anchor="ls")
    return adv, tuple(v / REF_PX for v in b)


def is_ideograph(ch: str) -> bool:
    o = ord(ch)
    return 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF


def is_cjk(ch: str) -> bool:
    o = ord(ch)
    return (is_ideograph(ch) or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF
            or 0x2460 <= o <= 0x24FF)


def has_cjk(text: str) -> bool:
    return any(is_ideograph(c) for c in text)


@dataclass
class FontSet:
    """Page-consistent fonts: a CJK family and a Latin family."""
    cjk: str
    cjk_b: str
    lat: str
    lat_b: str
    lat_i: str
    symbols_cjk: bool = True   # symbols like × ° in CJK text use the CJK font

    def pick(self, ch: str, role: str, bold: bool = False, italic: bool = False) -> str:
        if role == "cjk":
            prefs = [self.cjk_b if bold else self.cjk, self.cjk, self.lat]
        else:
            main = self.lat_i if italic else (self.lat_b if bold else self.lat)
            prefs = [main, self.lat, self.cjk]
        for key in prefs + FALLBACK:
            if ord(ch) in font_cmap(key):
                return key
        raise KeyError(f"no font has the character {ch!r} (U+{ord(ch):04X})")

    def describe(self) -> dict:
        return {"cjk": self.cjk, "cjk_bold": self.cjk_b, "latin": self.lat,
                "latin_bold": self.lat_b, "latin_italic": self.lat_i}


def make_fontset(cjk_family: str, latin_family: str) -> FontSet:
    cjk, cjk_b = CJK_FAMILIES[cjk_family]
    if latin_family == "cjk":
        lat, lat_b, lat_i = cjk, cjk_b, "dv_serif_i" if cjk_family == "serif" else "dv_sans_i"
    else:
        lat, lat_b, lat_i = latin_family, latin_family + "_b", latin_family + "_i"
    for k in (lat, lat_b, lat_i):
        if not available(k):
            lat, lat_b, lat_i = "dv_sans", "dv_sans_b", "dv_sans_i"
    return FontSet(cjk, cjk_b, lat, lat_b, lat_i)


# --------------------------------------------------------------------------
# Characters and paragraph layout (all geometry in em units of the body size)
# --------------------------------------------------------------------------
SUP = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6",
       "⁷": "7", "⁸": "8", "⁹": "9", "⁺": "+", "⁻": "-", "ⁿ": "n"}
SUB = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6",
       "₇": "7", "₈": "8", "₉": "9", "ₙ": "n", "ₓ": "x"}
NO_LINE_START = set("，。、；：？！）》」』”’,.;:?!)]}%…·°℃")
NO_LINE_END = set("（《「『“‘([{")
ITALIC_VARS = set("xyzabcdnqfgtkv")
INK = (28, 28, 30)


@dataclass
class Ch:
    """One printed character (or a space) with its font and placement."""
    src: str                 # character of the source text
    ch: str                  # character actually drawn
    font: str
    size: float              # em
    dy: float                # baseline shift, em (negative = up)
    adv: float               # advance, em
    ink: tuple               # ink box relative to (x, baseline), em
    role: str
    truth: bool = False
    space: bool = False
    color: tuple = INK
    glyph_h: float | None = None   # height used for the "smallest glyph" rule
    tracked: bool = False    # advance widened by letter spacing: draw on its own
    x: float = 0.0
    y: float = 0.0           # baseline
    placed: bool = False

    def box(self):
        return (self.x + self.ink[0], self.y + self.ink[1],
                self.x + self.ink[2], self.y + self.ink[3])


def italic_positions(text: str) -> set[int]:
    """Single-letter variables in formula-like text (x, y, a, f, ...)."""
    if not any(c in text for c in "=<>") and "f(" not in text:
        return set()
    out = set()
    for i, c in enumerate(text):
        if c not in ITALIC_VARS:
            continue
        prev_c = text[i - 1] if i else " "
        next_c = text[i + 1] if i + 1 < len(text) else " "
        if prev_c.isascii() and prev_c.isalpha():
            continue
        if next_c.isascii() and next_c.isalpha():
            continue
        out.add(i)
    return out


def make_chars(text: str, fs: FontSet, *, size: float = 1.0, bold: bool = False,
               italic: bool = False, truth: bool = False, sup_mode: bool = False,
               italic_vars: bool = False, color=INK, cjk_ctx: bool | None = None,
               tracking: float = 0.0) -> list[Ch]:
    if cjk_ctx is None:
        cjk_ctx = has_cjk(text)
    ivars = italic_positions(text) if italic_vars else set()
    out = []
    for i, c in enumerate(text):
        drawn, sz, dy = c, size, 0.0
        if sup_mode and c in SUP:
            drawn, sz, dy = SUP[c], size * 0.62, -0.38 * size
        elif sup_mode and c in SUB:
            drawn, sz, dy = SUB[c], size * 0.62, 0.16 * size
        if c == " " or c == "\u3000":
            key = fs.lat if c == " " else fs.cjk
            adv, _ = char_metrics(key, c)
            adv = max(adv, 0.22) * size
            out.append(Ch(c, c, key, size, 0.0, adv, (0, 0, 0, 0), "latin",
                          truth=truth, space=True, color=color))
            continue
        if is_cjk(drawn) or (cjk_ctx and fs.symbols_cjk and not drawn.isascii()
                             and drawn not in SUP.values()):
            role = "cjk"
        else:
            role = "latin"
        key = fs.pick(drawn, role, bold=bold, italic=italic or i in ivars)
        adv, ink = char_metrics(key, drawn)
        adv = adv * sz
        if role == "cjk" and tracking:
            adv += tracking
        ink = (ink[0] * sz, ink[1] * sz + dy, ink[2] * sz, ink[3] * sz + dy)
        gh = None
        if is_ideograph(drawn):
            gh = 0.86 * sz
        elif unicodedata.category(drawn)[0] in "LN":
            gh = ink[3] - ink[1]
        out.append(Ch(c, drawn, key, sz, dy, adv, ink, role, truth=truth,
                      color=color, glyph_h=gh, tracked=role == "cjk" and bool(tracking)))
    return out


def spacer(width: float, truth: bool = False) -> Ch:
    return Ch(" ", " ", "dv_sans", 1.0, 0.0, width, (0, 0, 0, 0), "latin",
              truth=truth, space=True)


def _atoms(chars: list[Ch]) -> list[list[Ch]]:
    """Unbreakable units: CJK characters one by one, Latin words whole,
    keeping closing punctuation with what precedes it and opening
    punctuation with what follows.  Spaces are atoms of their own."""
    atoms: list[list[Ch]] = []
    cur: list[Ch] = []
    for c in chars:
        if c.space:
            if cur:
                atoms.append(cur)
                cur = []
            atoms.append([c])
            continue
        if cur:
            prev = cur[-1]
            can_break = is_cjk(prev.ch) or is_cjk(c.ch)
            if c.ch in NO_LINE_START or prev.ch in NO_LINE_END:
                can_break = False
            if can_break:
                atoms.append(cur)
                cur = []
        cur.append(c)
    if cur:
        atoms.append(cur)
    return atoms


@dataclass
class Line:
    chars: list
    baseline: float
    x0: float
    x1: float

    def ink_box(self, truth_only: bool = False):
        boxes = [c.box() for c in self.chars
                 if not c.space and (c.truth or not truth_only)]
        return union(boxes) if boxes else None


def union(boxes):
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def flow_paragraph(chars: list[Ch], x_left: float, width: float, first_indent: float,
                   indent: float, y_top: float, pitch: float, justify: bool = False,
                   asc: float = 0.88) -> tuple[list[Line], float]:
    """Greedy line breaking.  Returns the lines and the y below the last one."""
    atoms = _atoms(chars)
    lines: list[list[tuple[list[Ch], float]]] = []
    cur: list[tuple[list[Ch], float]] = []
    x = first_indent
    pending: list[Ch] = []

    for atom in atoms:
        if atom[0].space:
            if cur:
                pending.extend(atom)
            continue
        w = sum(c.adv for c in atom)
        gap = sum(c.adv for c in pending)
        if cur and x + gap + w > width + 1e-6:
            lines.append(cur)
            cur, x, pending, gap = [], indent, [], 0.0
        if not cur and x + w > width + 1e-6 and len(atom) > 1:
            # a word wider than the line: cut it character by character
            piece: list[Ch] = []
            for c in atom:
                if piece and x + sum(p.adv for p in piece) + c.adv > width:
                    cur.append((piece, x))
                    lines.append(cur)
                    cur, x, piece = [], indent, []
                piece.append(c)
            atom, w = piece, sum(c.adv for c in piece)
        x += gap
        if pending:
            cur.append((pending, x - gap))
            pending = []
        cur.append((atom, x))
        x += w
    if cur:
        lines.append(cur)
    # trailing spaces of a line are not drawn but stay in the character list
    out = []
    y = y_top
    for li, items in enumerate(lines):
        baseline = y + (pitch - 1.0) / 2 + asc
        words = [(a, ax) for a, ax in items if not a[0].space]
        start = items[0][1]
        end = words[-1][1] + sum(c.adv for c in words[-1][0]) if words else start
        shift = [0.0] * len(items)
        if justify and li < len(lines) - 1 and len(words) > 1:
            extra = width - end
            space_idx = [k for k, (a, _) in enumerate(items) if a[0].space]
            cjk_line = any(c.role == "cjk" for a, _ in items for c in a)
            gaps = space_idx if space_idx and not cjk_line else list(range(1, len(items)))
            if gaps and 0 < extra < 0.6 * len(gaps) + 0.5:
                per = extra / len(gaps)
                acc = 0.0
                gset = set(gaps)
                for k in range(len(items)):
                    if k in gset:
                        acc += per
                    shift[k] = acc
                end += acc
        placed = []
        for k, (atom, ax) in enumerate(items):
            cx = ax + shift[k]
            for c in atom:
                c.x = x_left + cx
                c.y = baseline
                c.placed = True
                cx += c.adv
                placed.append(c)
        out.append(Line(placed, baseline, x_left + start, x_left + end))
        y += pitch
    return out, y


def place_run(chars: list[Ch], x: float, baseline: float) -> float:
    for c in chars:
        c.x, c.y, c.placed = x, baseline, True
        x += c.adv
    return x


def run_width(chars: list[Ch]) -> float:
    return sum(c.adv for c in chars)


# --------------------------------------------------------------------------
# Page furniture: numbering, notes, options, headings, figures
# --------------------------------------------------------------------------
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
NUMBER_STYLES = {
    "dot": lambda n: f"{n}.",
    "fwdot": lambda n: f"{n}．",
    "paren_r": lambda n: f"{n})",
    "paren": lambda n: f"({n})",
    "fwparen": lambda n: f"（{n}）",
    "q": lambda n: f"Q{n}.",
    "question": lambda n: f"Question {n}:",
    "problem": lambda n: f"Problem {n}",
    "circled": lambda n: CIRCLED[n - 1],
    "di_ti": lambda n: f"第{n}题",
    "li": lambda n: f"例{n}",
    "dun": lambda n: f"{n}、",
    "ex": lambda n: f"Ex. {n}",
}
WORDY_STYLES = {"question", "problem", "di_ti", "li", "ex"}
CN_NUM = "一二三四五六七八九十"
CN_SECTIONS = {"choice": "选择题", "fill": "填空题", "answer": "解答题"}
EN_SECTIONS = {"choice": "Multiple choice", "fill": "Fill in the blanks", "answer": "Short answer"}
CN_SUBQ = [["（1）写出计算过程；", "（2）检验你的结果。"], ["（1）说明理由；", "（2）写出答案。"],
           ["（1）列出算式；", "（2）求出结果并作答。"]]
EN_SUBQ = [["(a) Show your working.", "(b) Check your answer."],
           ["(i) Explain your reasoning.", "(ii) State the unit."],
           ["(a) Write down the method.", "(b) Give the final answer."]]
CN_WORDS = ["北京", "上海", "长江", "黄河", "细胞核", "叶绿体", "线粒体", "李白", "杜甫", "鲁迅",
            "朱自清", "氧气", "氮气", "二氧化碳", "秦始皇", "汉高祖", "太平洋", "亚洲", "唐太宗",
            "诸葛亮", "左心室", "右心室", "肝脏", "小肠", "青藏高原", "新疆", "澳门", "孔子"]
EN_WORDS = ["went", "goes", "gone", "better", "best", "cheap", "the cell", "the Nile",
            "1492", "newton", "kilogram", "joule", "mitochondria", "nucleus", "an", "since",
            "for", "was cleaned", "is cleaned", "the Amazon", "1776", "watt"]
HAND_ANSWERS = ["x = 4", "x = 5", "= 12 m/s", "a = 5 m/s²", "S = 40 cm²", "v = gt = 20 m/s",
                "x₁ = 2, x₂ = 3", "= 1/2", "= 26 cm", "R = 20 Ω", "答：40", "= 3/8", "y = 7",
                "ans: 11/12", "F = ma", "P = W/t", "= 60 km/h", "k = 3"]


def choose_number_label(style: str, n: int) -> str:
    return NUMBER_STYLES[style](n)


def score_note(rng, cjk: bool) -> str:
    n = int(rng.choice([2, 3, 4, 5, 6, 8, 10, 12]))
    if cjk:
        return [f"（{n}分）", f"（本题{n}分）", f"({n}分)"][rng.integers(3)]
    return [f"({n} points)", f"({n} marks)", f"[{n}]"][rng.integers(3)]


def option_texts(rng, question: str) -> list[str]:
    nums = [int(t) for t in "".join(c if c in "0123456789" else " " for c in question).split()
            if len(t) < 6]
    if nums and rng.random() < 0.75:
        base = max(1, int(rng.choice(nums)))
        kind = rng.integers(3)
        vals = set()
        while len(vals) < 4:
            v = base + int(rng.integers(-base, base + 12))
            if kind == 0:
                vals.add(str(max(v, 1)))
            elif kind == 1:
                vals.add(f"{max(v, 1)}/{int(rng.integers(2, 9))}")
            else:
                vals.add(f"{max(v, 1) / 2:g}")
        return sorted(vals, key=lambda s: float(s.split("/")[0]))
    pool = CN_WORDS if has_cjk(question) else EN_WORDS
    return list(rng.choice(pool, size=4, replace=False))


def section_heading(kind: str, k: int, cjk: bool, rng) -> str:
    pts = int(rng.choice([2, 3, 4, 5]))
    if cjk:
        tail = [f"（每题{pts}分）", f"（本大题共{int(rng.integers(4, 9))}小题）", ""][rng.integers(3)]
        return f"{CN_NUM[k]}、{CN_SECTIONS[kind]}{tail}"
    tail = [f"  ({pts} marks each)", "", f"  [{pts * 5} marks]"][rng.integers(3)]
    return f"Part {'ABCDE'[k]}  {EN_SECTIONS[kind]}{tail}"


@dataclass
class Block:
    chars: list = field(default_factory=list)
    prims: list = field(default_factory=list)
    height: float = 0.0
    item_id: str | None = None
    number: int | None = None
    is_target: bool = False
    label_box: tuple | None = None
    truth_lines: list = field(default_factory=list)   # ink boxes of lines with truth text
    ink_boxes: list = field(default_factory=list)     # every printed line, option, figure
    text_box: tuple | None = None
    core_box: tuple | None = None
    block_box: tuple | None = None
    answer_box: tuple | None = None                   # free area for handwriting
    last_line: tuple | None = None                    # (x_end, baseline, right limit)
    min_glyph: float | None = None
    col: int = 0
    info: dict = field(default_factory=dict)

    def shift(self, dx: float, dy: float) -> None:
        for c in self.chars:
            c.x += dx
            c.y += dy
        for p in self.prims:
            p["pts"] = [(x + dx, y + dy) for x, y in p["pts"]]

        def mv(b):
            return None if b is None else (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)
        self.label_box = mv(self.label_box)
        self.truth_lines = [mv(b) for b in self.truth_lines]
        self.ink_boxes = [mv(b) for b in self.ink_boxes]
        self.text_box, self.core_box = mv(self.text_box), mv(self.core_box)
        self.block_box, self.answer_box = mv(self.block_box), mv(self.answer_box)
        if self.last_line:
            x, b, r = self.last_line
            self.last_line = (x + dx, b + dy, r + dx)


def line_prim(pts, w=0.04, color=INK, closed=False, dash=None):
    return {"t": "line", "pts": list(pts), "w": w, "c": color, "closed": closed, "dash": dash}


def fill_prim(pts, color):
    return {"t": "fill", "pts": list(pts), "c": color}


def ellipse_pts(cx, cy, rx, ry, n=48, a0=0.0, a1=2 * math.pi):
    return [(cx + rx * math.cos(a), cy + ry * math.sin(a))
            for a in np.linspace(a0, a1, n)]


def label_chars(fs: FontSet, text: str, x: float, baseline: float, size=0.8,
                italic=False) -> list[Ch]:
    cs = make_chars(text, fs, size=size, italic=italic, cjk_ctx=False)
    w = run_width(cs)
    place_run(cs, x - w / 2, baseline + 0.3 * size)
    return cs


def draw_figure(kind: str, fs: FontSet, rng) -> tuple[list, list, float, float, dict]:
    """A small figure with labels, origin at its top-left corner."""
    chars: list[Ch] = []
    prims: list = []
    if kind == "triangle":
        w, h = float(rng.uniform(5, 7)), float(rng.uniform(4, 5.5))
        A = (0.8, h - 0.8)
        B = (w - 0.8, h - 0.8)
        C = (0.8 + float(rng.uniform(0, 0.6)) * (w - 1.6), 0.8)
        if rng.random() < 0.5:
            C = (A[0], 0.8)
            prims.append(line_prim([(A[0], A[1] - 0.4), (A[0] + 0.4, A[1] - 0.4), (A[0] + 0.4, A[1])], 0.03))
        prims.append(line_prim([A, B, C], 0.05, closed=True))
        for name, p, off in (("A", A, (-0.45, 0.35)), ("B", B, (0.45, 0.35)), ("C", C, (0, -0.45))):
            chars += label_chars(fs, name, p[0] + off[0], p[1] + off[1], italic=True)
        sides = [str(v) for v in rng.choice([3, 4, 5, 6, 8, 10], size=2, replace=False)]
        chars += label_chars(fs, sides[0], (A[0] + B[0]) / 2, A[1] + 0.5)
        chars += label_chars(fs, sides[1], (A[0] + C[0]) / 2 - 0.45, (A[1] + C[1]) / 2)
    elif kind == "axes":
        w = h = float(rng.uniform(5.5, 7.5))
        ox, oy = w * 0.3, h * 0.7
        prims.append(line_prim([(0.3, oy), (w - 0.2, oy)], 0.035))
        prims.append(line_prim([(w - 0.5, oy - 0.15), (w - 0.2, oy), (w - 0.5, oy + 0.15)], 0.035))
        prims.append(line_prim([(ox, h - 0.2), (ox, 0.3)], 0.035))
        prims.append(line_prim([(ox - 0.15, 0.6), (ox, 0.3), (ox + 0.15, 0.6)], 0.035))
        for k in range(1, 4):
            prims.append(line_prim([(ox + k * 1.1, oy - 0.1), (ox + k * 1.1, oy + 0.1)], 0.03))
            prims.append(line_prim([(ox - 0.1, oy - k * 1.1), (ox + 0.1, oy - k * 1.1)], 0.03))
        chars += label_chars(fs, "x", w - 0.35, oy + 0.55, italic=True)
        chars += label_chars(fs, "y", ox + 0.45, 0.45, italic=True)
        chars += label_chars(fs, "O", ox - 0.35, oy + 0.5, italic=True)
        chars += label_chars(fs, "1", ox + 1.1, oy + 0.55, size=0.65)
        if rng.random() < 0.5:
            slope = float(rng.uniform(0.5, 2))
            xs = np.linspace(-ox + 0.4, w - ox - 0.6, 12)
            pts = [(ox + x, oy - (slope * x + 0.8)) for x in xs]
        else:
            xs = np.linspace(-1.6, 1.9, 30)
            pts = [(ox + 1.0 + x, oy - (x * x * 0.9 - 1.0)) for x in xs]
        pts = [p for p in pts if 0.2 < p[1] < h - 0.2]
        prims.append(line_prim(pts, 0.045))
    elif kind == "circuit":
        w, h = float(rng.uniform(6.5, 8)), float(rng.uniform(4.2, 5.2))
        x0, y0, x1, y1 = 0.6, 0.8, w - 0.6, h - 0.8
        mid = (y0 + y1) / 2
        prims.append(line_prim([(x0, mid - 0.5), (x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, mid + 0.5)], 0.04))
        # battery on the left side
        prims.append(line_prim([(x0 - 0.45, mid - 0.5), (x0 + 0.45, mid - 0.5)], 0.05))
        prims.append(line_prim([(x0 - 0.25, mid + 0.5), (x0 + 0.25, mid + 0.5)], 0.09))
        for k, cx in enumerate((x0 + (x1 - x0) * 0.33, x0 + (x1 - x0) * 0.7)):
            r = [(cx - 0.6, y0 - 0.22), (cx + 0.6, y0 - 0.22), (cx + 0.6, y0 + 0.22), (cx - 0.6, y0 + 0.22)]
            prims.append(fill_prim(r, (255, 255, 255)))
            prims.append(line_prim(r, 0.04, closed=True))
            chars += label_chars(fs, f"R{k + 1}", cx, y0 - 0.55, size=0.7)
        cx = (x0 + x1) / 2
        prims.append(fill_prim(ellipse_pts(cx, y1, 0.38, 0.38), (255, 255, 255)))
        prims.append(line_prim(ellipse_pts(cx, y1, 0.38, 0.38), 0.04, closed=True))
        chars += label_chars(fs, "A", cx, y1 - 0.05, size=0.6)
        chars += label_chars(fs, "S", x1 + 0.4, mid, size=0.7, italic=True)
    else:  # table of values
        ncol = int(rng.integers(4, 7))
        cw, rh = 1.5, 1.3
        w, h = ncol * cw + 0.2, 2 * rh + 0.2
        xs0 = [0.1 + k * cw for k in range(ncol + 1)]
        for y in (0.1, 0.1 + rh, 0.1 + 2 * rh):
            prims.append(line_prim([(xs0[0], y), (xs0[-1], y)], 0.035))
        for x in xs0:
            prims.append(line_prim([(x, 0.1), (x, 0.1 + 2 * rh)], 0.035))
        a, b = int(rng.integers(1, 4)), int(rng.integers(-2, 4))
        for k in range(ncol):
            cx = xs0[k] + cw / 2
            top = "x" if k == 0 else str(k - 1)
            bot = "y" if k == 0 else str(a * (k - 1) + b)
            chars += label_chars(fs, top, cx, 0.1 + rh / 2, italic=k == 0)
            chars += label_chars(fs, bot, cx, 0.1 + 1.5 * rh, italic=k == 0)
    return chars, prims, w, h, {"kind": kind, "w_em": round(w, 2), "h_em": round(h, 2)}


# --------------------------------------------------------------------------
# Page layout
# --------------------------------------------------------------------------
@dataclass
class Page:
    w: float
    h: float
    chars: list
    prims: list
    problems: list            # Blocks of bank problems, in reading order
    target: Block
    hand: list = field(default_factory=list)        # handwriting, drawn on top
    highlights: list = field(default_factory=list)
    info: dict = field(default_factory=dict)


def build_problem(item: dict, number: int, is_target: bool, st: dict, section: str | None,
                  rng) -> Block:
    fs: FontSet = st["fs"]
    pitch, colw = st["pitch"], st["colw"]
    q = item["question"]
    cjk = has_cjk(q)
    blk = Block(item_id=item["id"], number=number, is_target=is_target)
    info = blk.info

    # number label
    lab = make_chars(choose_number_label(st["num_style"], number), fs, bold=st["num_bold"],
                     size=st["num_size"], cjk_ctx=False)
    lw = run_width(lab)
    place = st["num_place"]
    y = 0.0
    if place == "own_line":
        place_run(lab, 0.0, (pitch - 1) / 2 + 0.88)
        y += pitch
        first, indent = st["body_indent"], st["body_indent"]
    elif place == "hanging":
        first = indent = st["hang_w"]
    else:
        first, indent = lw + st["num_gap"], st["wrap_indent"]

    # figure beside the text?
    fig = None
    if rng.random() < st["figure_prob"]:
        fig = draw_figure(str(rng.choice(["triangle", "axes", "circuit", "table"])), fs, rng)
        fig_pos = st["figure_pos"] if st["figure_pos"] != "mixed" else str(rng.choice(["right", "below"]))
        if fig_pos == "right" and colw - fig[2] - 1.0 < 9:
            fig_pos = "below"
        info["figure"] = dict(fig[4], pos=fig_pos)
    avail = colw - (fig[2] + 1.0 if fig and info["figure"]["pos"] == "right" else 0.0)

    # paragraph: [note] question [blank] [note]
    body: list[Ch] = []
    note = score_note(rng, cjk) if st["note_mode"] else None
    note_chars = make_chars(note, fs, size=st["note_size"]) if note else []
    if note and st["note_mode"] == "before":
        body += note_chars + [spacer(0.25)]
    truth = make_chars(q, fs, truth=True, sup_mode=st["sup_mode"], italic_vars=st["italic_vars"],
                       tracking=st["tracking"])
    body += truth
    assert "".join(c.src for c in truth) == q
    blank = None
    if section == "fill" or (section is None and rng.random() < st["blank_prob"]):
        blank = st["blank_style"]
        if blank == "paren":
            body += [spacer(0.2)] + make_chars("（", fs, cjk_ctx=True) + [spacer(2.6)] + \
                make_chars("）", fs, cjk_ctx=True)
        else:
            body += [spacer(0.25)] + make_chars("_" * 8, fs)
        info["blank"] = blank
    if note and st["note_mode"] == "after":
        body += [spacer(0.3)] + note_chars
    lines, y = flow_paragraph(body, 0.0, avail, first, indent, y, pitch, st["justify"])
    assert all(c.placed for c in truth if not c.space), "a character of the question was not placed"
    if place != "own_line":
        lx = 0.0 if place == "inline" else st["hang_w"] - st["num_gap"] - lw
        place_run(lab, lx, lines[0].baseline)
    if note and st["note_mode"] == "right":
        nw = run_width(note_chars)
        if lines[-1].x1 + 1.0 + nw <= avail:
            place_run(note_chars, avail - nw, lines[-1].baseline)
        else:
            place_run(note_chars, avail - nw, y + (pitch - 1) / 2 + 0.88)
            y += pitch
    if note:
        info["score_note"] = {"text": note, "pos": st["note_mode"]}
    blk.chars += lab + body + (note_chars if st["note_mode"] == "right" else [])
    blk.label_box = union([c.box() for c in lab if not c.space])
    blk.truth_lines = [b for b in (ln.ink_box(truth_only=True) for ln in lines) if b]
    info["printed_lines"] = [t for t in ("".join(c.src for c in ln.chars if c.truth).strip()
                                         for ln in lines) if t]
    last = lines[-1]
    blk.last_line = (max(c.box()[2] for c in last.chars if not c.space) if any(
        not c.space for c in last.chars) else last.x1, last.baseline, avail)
    gl = [c.glyph_h for c in truth if c.glyph_h]
    blk.min_glyph = min(gl) if gl else 0.8

    sub_boxes = []
    # sub-questions
    if rng.random() < st["subq_prob"]:
        subs = (CN_SUBQ if cjk else EN_SUBQ)[rng.integers(3)]
        for s in subs:
            cs = make_chars(s, fs)
            sl, y = flow_paragraph(cs, indent + st["sub_indent"], avail - indent - st["sub_indent"],
                                   0.0, 0.0, y, pitch, st["justify"])
            blk.chars += cs
            sub_boxes += [ln.ink_box() for ln in sl]
        info["sub_questions"] = subs

    # multiple-choice options
    if section == "choice" or (section is None and rng.random() < st["option_prob"]):
        opts = option_texts(rng, q)
        ol = st["option_label"]
        opt_chars = [make_chars(ol.format(L="ABCD"[k]) + o, fs, size=st["option_size"])
                     for k, o in enumerate(opts)]
        x_left = indent + st["sub_indent"]
        room = avail - x_left
        ncols = st["option_cols"]
        while ncols > 1 and max(run_width(c) for c in opt_chars) > room / ncols - 0.8:
            ncols //= 2
        for k, cs in enumerate(opt_chars):
            r, cidx = divmod(k, ncols)
            if cidx == 0 and k:
                y += pitch
            place_run(cs, x_left + cidx * room / ncols, y + (pitch - 1) / 2 + 0.88)
            blk.chars += cs
            sub_boxes.append(union([c.box() for c in cs if not c.space]))
        y += pitch
        info["options"] = {"texts": opts, "cols": ncols}

    # figure
    if fig:
        fchars, fprims, fw, fh, _ = fig
        if info["figure"]["pos"] == "right":
            fx, fy = colw - fw, 0.1
            y = max(y, fy + fh + 0.2)
        else:
            fx, fy = indent + float(rng.uniform(0.5, 3.0)), y + 0.2
            y = fy + fh + 0.3
        for c in fchars:
            c.x += fx
            c.y += fy
        for p in fprims:
            p["pts"] = [(a + fx, b + fy) for a, b in p["pts"]]
        blk.chars += fchars
        blk.prims += fprims
        sub_boxes.append((fx, fy, fx + fw, fy + fh))

    blk.text_box = union([blk.label_box] + [ln.ink_box() for ln in lines])
    blk.ink_boxes = [b for b in [blk.label_box] + [ln.ink_box() for ln in lines] + sub_boxes if b]
    if note and st["note_mode"] == "right":
        blk.ink_boxes.append(union([c.box() for c in note_chars if not c.space]))
    blk.core_box = union([blk.text_box] + sub_boxes)

    # answer space
    ans = st["answer_space"] if section in (None, "answer") else None
    if section is None and rng.random() > st["answer_prob"]:
        ans = None
    y_ans = y
    if ans == "lines":
        n = int(rng.integers(2, 4))
        for k in range(n):
            yy = y + (k + 1) * pitch - 0.15
            blk.prims.append(line_prim([(indent, yy), (colw, yy)], 0.025, (90, 90, 95),
                                       dash=st["answer_dash"]))
        y += n * pitch + 0.2
    elif ans == "box":
        hb = float(rng.uniform(2.5, 4.0))
        blk.prims.append(line_prim([(indent, y + 0.3), (colw, y + 0.3), (colw, y + 0.3 + hb),
                                    (indent, y + 0.3 + hb)], 0.03, (70, 70, 75), closed=True))
        y += hb + 0.6
    elif ans == "space":
        y += float(rng.uniform(2.0, 3.5))
    if st["work_space"]:
        y += st["work_space"]
    if ans:
        info["answer_space"] = ans
    if y - y_ans > 1.2:
        blk.answer_box = (indent, y_ans + 0.1, colw, y - 0.1)
    blk.height = y
    blk.block_box = (0.0, 0.0, colw, y)
    return blk


def build_heading(text: str, st: dict, width: float, size=1.08, center=False) -> Block:
    fs = st["fs"]
    cs = make_chars(text, fs, bold=True, size=size)
    h = st["pitch"] * max(1.0, size)
    x = (width - run_width(cs)) / 2 if center else 0.0
    place_run(cs, max(0.0, x), (h - 1) / 2 + 0.88 * size)
    b = Block(chars=cs, height=h)
    b.text_box = b.core_box = union([c.box() for c in cs if not c.space])
    b.block_box = (0.0, 0.0, width, h)
    return b


def snap(y: float, y0: float, pitch: float, on: bool) -> float:
    if not on:
        return y
    return y0 + math.ceil((y - y0) / pitch - 1e-6) * pitch


def build_page(rng, items: list[dict], target_pos: int, first_number: int, st: dict) -> Page:
    """Lay out the problems (target at target_pos) in one or two columns."""
    fs = st["fs"]
    cjk_page = sum(has_cjk(it["question"]) for it in items) * 2 >= len(items)
    ncol, colw, gutter = st["columns"], st["colw"], st["gutter"]
    ml, mr, mt, mb = st["margins"]
    width = ml + ncol * colw + (ncol - 1) * gutter + mr
    pitch = st["pitch"]
    snap_on = st["paper"] == "lined"
    chars, prims = [], []
    info: dict = {}

    y = mt
    if st["header"]:
        title = st["header_title"]
        hb = build_heading(title, st, width - ml - mr, size=1.3, center=True)
        hb.shift(ml, y)
        chars += hb.chars
        y += hb.height + 0.2
        fields = "姓名：________  班级：________  得分：______" if cjk_page else \
            "Name: ____________   Class: ________   Score: ______"
        fb = make_chars(fields, fs, size=0.95)
        fwid = run_width(fb)
        place_run(fb, ml + max(0.0, (width - ml - mr - fwid) / 2), y + (pitch - 1) / 2 + 0.88)
        chars += fb
        y += pitch + 0.3
        prims.append(line_prim([(ml, y), (width - mr, y)], 0.04))
        y += 0.8
        info["header"] = {"title": title, "fields": fields}

    # flow items: headings and problems
    flow: list[Block] = []
    sections = st["sections"]
    sec_of = []
    if sections:
        cuts = sorted(rng.choice(np.arange(1, len(items)), size=len(sections) - 1, replace=False)) \
            if len(sections) > 1 and len(items) > len(sections) else []
        bounds = [0] + [int(c) for c in cuts] + [len(items)]
        for k, kind in enumerate(sections):
            sec_of += [(k, kind)] * (bounds[k + 1] - bounds[k])
    problems = []
    for k, it in enumerate(items):
        section = sec_of[k][1] if sections else None
        if sections and (k == 0 or sec_of[k - 1][0] != sec_of[k][0]):
            text = section_heading(section, sec_of[k][0], cjk_page, rng)
            hb = build_heading(text, st, colw)
            hb.info["heading"] = text
            flow.append(hb)
        blk = build_problem(it, first_number + k, k == target_pos, st, section, rng)
        flow.append(blk)
        problems.append(blk)
    if sections:
        info["sections"] = [s for s in sections]

    # split into columns at roughly half the height
    heights = [b.height + st["gap"] for b in flow]
    col_of = [0] * len(flow)
    if ncol == 2:
        total, acc = sum(heights), 0.0
        split = len(flow)
        for k, hgt in enumerate(heights):
            if acc + hgt / 2 > total / 2:
                split = k
                break
            acc += hgt
        split = max(1, split)
        if flow[split - 1].item_id is None and split < len(flow):   # heading at column end
            split -= 1
        col_of = [0 if k < split else 1 for k in range(len(flow))]
    y0 = snap(y, 0.0, pitch, snap_on)
    bottoms = []
    for c in range(ncol):
        yy = y0
        x = ml + c * (colw + gutter)
        for k, b in enumerate(flow):
            if col_of[k] != c:
                continue
            b.shift(x, yy)
            b.col = c
            yy = snap(yy + b.height + st["gap"], y0, pitch, snap_on)
            chars += b.chars
            prims += b.prims
        bottoms.append(yy)
    y_end = max(bottoms)
    if ncol == 2 and st["col_rule"]:
        xr = ml + colw + gutter / 2
        prims.append(line_prim([(xr, y0 - 0.3), (xr, y_end - 0.5)], 0.035))
    y = y_end + 0.5
    if st["footer"]:
        text = st["footer_text"]
        fb = make_chars(text, fs, size=0.85)
        place_run(fb, (width - run_width(fb)) / 2, y + 1.2)
        chars += fb
        y += 2.0
        info["footer"] = text
    height = y + mb
    page = Page(width, height, chars, prims, problems, problems[target_pos], info=info)
    page.info.update({"columns": ncol, "n_problems": len(problems)})
    return page


# --------------------------------------------------------------------------
# Camera: page (em) -> optional curl -> homography -> upright photo pixels
# --------------------------------------------------------------------------
def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


class Camera:
    """Pinhole camera looking at the page plane.

    aim: page point (em) that lands on the photo centre; sigma: photo pixels
    per em there; tilt_x / tilt_y: rotation of the page plane (perspective);
    roll: in-plane rotation; focal: focal length in pixels.  An optional
    curl warps the page (book spine) before the projection.
    """

    def __init__(self, wu, hu, aim, sigma, roll, tilt_x, tilt_y, focal, curl=None):
        self.wu, self.hu = wu, hu
        self.aim, self.sigma = aim, sigma
        self.roll, self.tilt_x, self.tilt_y, self.focal = roll, tilt_x, tilt_y, focal
        dist = focal / sigma
        r = rot_z(math.radians(roll)) @ rot_x(math.radians(tilt_x)) @ rot_y(math.radians(tilt_y))
        k = np.array([[focal, 0, wu / 2], [0, focal, hu / 2], [0, 0, 1.0]])
        t = np.array([[1, 0, -aim[0]], [0, 1, -aim[1]], [0, 0, 1.0]])
        m = k @ np.column_stack([r[:, 0], r[:, 1], [0, 0, dist]]) @ t
        self.h = m / m[2, 2]
        self.hinv = np.linalg.inv(self.h)
        self.curl = curl
        if curl:
            a = np.array([aim], dtype=np.float64)
            g = self._g_raw(a)
            curl["off"] = (float(g[0, 0] - aim[0]), float(g[0, 1] - aim[1]))

    # curl: G maps a curled-page point to the flat page; F is its inverse
    def _g_raw(self, c):
        cu = self.curl
        u = np.maximum(0.0, cu["side"] * (c[:, 0] - cu["xs"]))
        e = np.exp(-u / cu["w"])
        gx = c[:, 0] + cu["side"] * cu["A"] * cu["w"] * (1 - e)
        gy = c[:, 1] + e * (cu["B"] * (c[:, 1] - cu["ym"]) + cu["C"]) + cu["K"] * (c[:, 0] - cu["xm"]) ** 2
        return np.stack([gx, gy], axis=1)

    def curl_g(self, c):
        if not self.curl:
            return c
        g = self._g_raw(c)
        g[:, 0] -= self.curl["off"][0]
        g[:, 1] -= self.curl["off"][1]
        return g

    def curl_f(self, p):
        if not self.curl:
            return p
        c = p.copy()
        for _ in range(30):
            c = c - (self.curl_g(c) - p)
        return c

    def project(self, pts) -> np.ndarray:
        p = self.curl_f(np.asarray(pts, dtype=np.float64).reshape(-1, 2))
        q = np.column_stack([p, np.ones(len(p))]) @ self.h.T
        return q[:, :2] / q[:, 2:3]

    def unproject(self, uv) -> np.ndarray:
        q = np.column_stack([uv, np.ones(len(uv))]) @ self.hinv.T
        return self.curl_g(q[:, :2] / q[:, 2:3])

    def params(self) -> dict:
        d = {"aim_em": [round(v, 3) for v in self.aim], "px_per_em": round(self.sigma, 2),
             "roll_deg": round(self.roll, 2), "tilt_x_deg": round(self.tilt_x, 2),
             "tilt_y_deg": round(self.tilt_y, 2), "focal_px": round(self.focal, 1),
             "homography": [[round(v, 6) for v in row] for row in self.h.tolist()]}
        if self.curl:
            d["curl"] = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.curl.items()
                         if k != "off"}
        return d


def box_perimeter(b, n=10):
    x0, y0, x1, y1 = b
    t = np.linspace(0, 1, n, endpoint=False)
    return np.concatenate([np.column_stack([x0 + (x1 - x0) * t, np.full(n, y0)]),
                           np.column_stack([np.full(n, x1), y0 + (y1 - y0) * t]),
                           np.column_stack([x1 - (x1 - x0) * t, np.full(n, y1)]),
                           np.column_stack([np.full(n, x0), y1 - (y1 - y0) * t])])


def box_center(b):
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def visible_fraction(cam: Camera, b, wu, hu, n=7) -> float:
    xs = np.linspace(b[0], b[2], n)
    ys = np.linspace(b[1], b[3], n)
    g = np.array([(x, y) for y in ys for x in xs])
    p = cam.project(g)
    inside = (p[:, 0] >= 0) & (p[:, 0] < wu) & (p[:, 1] >= 0) & (p[:, 1] < hu)
    return float(inside.mean())


def check_camera(cam: Camera, page: Page) -> dict:
    """Fairness measurements for the target under this camera."""
    t = page.target
    wu, hu = cam.wu, cam.hu
    fc = np.array([wu / 2, hu / 2])
    per = cam.project(box_perimeter(t.core_box, 12))
    margin = 0.015 * min(wu, hu)
    inside = bool((per[:, 0] >= margin).all() and (per[:, 0] <= wu - margin).all()
                  and (per[:, 1] >= margin).all() and (per[:, 1] <= hu - margin).all())
    res = {"inside": inside}
    # centrality under two notions of a problem's centre
    ok_central, worst = True, 0.0
    offsets = None
    for which in ("core_box", "text_box"):
        cen = [box_center(getattr(b, which)) for b in page.problems]
        pc = cam.project(cen)
        d = np.linalg.norm(pc - fc, axis=1)
        ti = page.problems.index(t)
        dt = d[ti]
        others = np.delete(d, ti)
        if which == "core_box":
            offsets = (pc[ti] - fc) / np.array([wu, hu])
        if len(others):
            need = max(1.3 * dt, dt + 0.04 * min(wu, hu))
            ok_central &= bool(others.min() >= need)
            worst = max(worst, dt / max(others.min(), 1e-6))
    # a neighbour cut by the frame edge: the centre of its visible part counts too
    ti = page.problems.index(t)
    dt_vis = float(np.linalg.norm(cam.project([box_center(t.core_box)])[0] - fc))
    for k, b in enumerate(page.problems):
        if k == ti:
            continue
        xs = np.linspace(b.core_box[0], b.core_box[2], 9)
        ys = np.linspace(b.core_box[1], b.core_box[3], 9)
        p = cam.project(np.array([(x, y) for y in ys for x in xs]))
        vis = p[(p[:, 0] >= 0) & (p[:, 0] < wu) & (p[:, 1] >= 0) & (p[:, 1] < hu)]
        if len(vis):
            dv = float(np.linalg.norm(vis.mean(axis=0) - fc))
            ok_central &= dv >= max(1.3 * dt_vis, dt_vis + 0.04 * min(wu, hu))
            worst = max(worst, dt_vis / max(dv, 1e-6))
    res["central"] = bool(ok_central)
    res["dist_ratio"] = round(float(worst), 3)
    res["center_offset"] = [round(float(v), 4) for v in offsets]
    res["centered"] = bool(abs(offsets[0]) <= CENTER_LIMIT and abs(offsets[1]) <= CENTER_LIMIT)
    # smallest glyph: project the glyph height at points along each target line
    gh = t.min_glyph
    vmin, hmin = 1e9, 1e9
    for b in t.truth_lines:
        xs = np.linspace(b[0], b[2], 6)
        base = np.column_stack([xs, np.full(6, b[3] - 0.12)])
        up = base + np.array([0.0, -gh])
        right = base + np.array([gh, 0.0])
        p0, p1, p2 = cam.project(base), cam.project(up), cam.project(right)
        vmin = min(vmin, float(np.linalg.norm(p1 - p0, axis=1).min()))
        hmin = min(hmin, float(np.linalg.norm(p2 - p0, axis=1).min()))
    res["min_glyph_px"] = round(vmin, 2)
    res["min_glyph_width_px"] = round(hmin, 2)
    res["glyph_ok"] = bool(vmin >= MIN_GLYPH_PX and hmin >= 0.7 * MIN_GLYPH_PX)
    res["ok"] = inside and ok_central and res["centered"] and res["glyph_ok"]
    return res


def count_visible(cam: Camera, page: Page) -> tuple[int, int]:
    full = part = 0
    for b in page.problems:
        f = visible_fraction(cam, b.core_box, cam.wu, cam.hu)
        full += f > 0.6
        part += f > 0
    return full, part


def plan_camera(rng, page: Page, wu: int, hu: int, kinds: set, mode: str,
                allow_curl: bool = True) -> tuple[Camera, dict, dict]:
    """Draw camera parameters until the fairness checks pass."""
    t = page.target
    cb = t.core_box
    cw, ch_ = cb[2] - cb[0], cb[3] - cb[1]
    sig_min = MIN_GLYPH_PX / t.min_glyph
    sig_fit = min(0.94 * wu / cw, 0.92 * hu / ch_)
    strong = "camera" in kinds
    plan = {"mode": mode}
    # neighbour distance limits the aiming jitter
    tc = np.array(box_center(cb))
    nd = min([np.linalg.norm(np.array(box_center(b.core_box)) - tc) for b in page.problems
              if b is not t] or [10.0])
    if mode == "close":
        same_col = [b for b in page.problems if b.col == t.col and b is not t]
        gap_v = min([b.core_box[1] - cb[3] for b in same_col if b.core_box[1] > cb[3]] or [1.0])
        gap_u = min([cb[1] - b.core_box[3] for b in same_col if b.core_box[3] < cb[1]] or [1.0])
        extra = float(rng.uniform(0.35, 1.1))
        sig_v = hu / (ch_ + gap_u + gap_v + 2 * extra)
        sigma = min(sig_v, sig_fit * float(rng.uniform(0.9, 0.98)))
    elif mode == "wide":
        # the widest view (smallest scale) that shows at most about `want` problems
        want = int(rng.integers(6, 11))
        sigma = None
        for f in np.geomspace(1.0, 3.0, 16):
            s = sig_min * 1.04 * f
            if s > sig_fit:
                break
            cam = Camera(wu, hu, tuple(tc), s, 0.0, 0.0, 0.0, max(wu, hu))
            full, _ = count_visible(cam, page)
            sigma = s
            if full <= want + 1:
                break
        sigma = sigma or sig_min * 1.04
        plan["wanted_visible"] = want
    else:
        lo = sig_min * 1.06
        sigma = lo + float(rng.uniform(0.05, 0.75)) * max(0.0, sig_fit - lo)
    sigma = max(sigma, sig_min * 1.04)
    sigma = min(sigma, max(sig_fit, sig_min * 1.04))
    if strong:
        tilt_total = float(rng.uniform(8, 30))
        ang = float(rng.uniform(0, 2 * math.pi))
        tilt_x, tilt_y = tilt_total * math.sin(ang), tilt_total * math.cos(ang)
        roll = float(rng.uniform(-15, 15))
    else:
        tilt_x, tilt_y = float(rng.uniform(-6, 6)), float(rng.uniform(-6, 6))
        roll = float(rng.uniform(-4, 4))
    focal = float(rng.uniform(0.7, 1.25)) * max(wu, hu)
    jit = np.array([rng.uniform(-1, 1), rng.uniform(-1, 1)])
    curl = None
    if strong and rng.random() < 0.4 and allow_curl:
        side = int(rng.choice([-1, 1]))
        half_w = 0.5 * wu / sigma
        curl = {"side": side, "xs": float(tc[0] - side * half_w * rng.uniform(0.4, 1.1)),
                "A": float(rng.uniform(0.2, 0.6)), "w": float(rng.uniform(2.5, 6.0)),
                "B": float(rng.uniform(-0.05, 0.05)), "C": float(rng.uniform(0.1, 0.45)),
                "ym": float(tc[1] + rng.uniform(-3, 3)),
                "K": float(rng.uniform(-1, 1) * 0.3 / max(half_w, 1.0) ** 2), "xm": float(tc[0])}
    scale = 1.0
    for attempt in range(40):
        jmax = min(0.07 * min(wu, hu) / sigma, 0.18 * nd) * scale
        aim = tuple(tc + jit * jmax)
        cam = Camera(wu, hu, aim, sigma, roll * scale, tilt_x * scale, tilt_y * scale, focal,
                     dict(curl, A=curl["A"] * scale, C=curl["C"] * scale, B=curl["B"] * scale,
                          K=curl["K"] * scale) if curl and scale > 0.05 else None)
        res = check_camera(cam, page)
        if res["ok"]:
            break
        if not res["glyph_ok"] and sigma < sig_fit:
            need = MIN_GLYPH_PX / max(res["min_glyph_px"], 1e-3)
            need = max(need, 0.7 * MIN_GLYPH_PX / max(res["min_glyph_width_px"], 1e-3))
            sigma = min(sigma * max(need, 1.0) * 1.02, sig_fit)
        if not res["inside"] and sigma > sig_min * 1.04:
            sigma = max(sigma * 0.95, sig_min * 1.04)
        if attempt % 3 == 2 or res["inside"] and res["glyph_ok"]:
            scale *= 0.75
        if attempt > 30:
            scale = 0.0
    plan.update({"attempts": attempt + 1, "sigma_min": round(sig_min, 2), "sigma_fit": round(sig_fit, 2)})
    return cam, res, plan


# --------------------------------------------------------------------------
# Student marks (handwriting-like), placed in page coordinates
# --------------------------------------------------------------------------
PENS = {"blue": ((25, 60, 175), False), "black": ((35, 35, 42), False),
        "red_pencil": ((200, 50, 50), True), "red": ((205, 30, 35), False)}


def inflate(b, d):
    return (b[0] - d, b[1] - d, b[2] + d, b[3] + d)


def boxes_overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def polyline_hits(pts, width, rects) -> bool:
    pts = np.asarray(pts, dtype=np.float64)
    if len(pts) > 1:
        seg = [np.linspace(pts[k], pts[k + 1], max(2, int(np.linalg.norm(pts[k + 1] - pts[k]) / 0.04)))
               for k in range(len(pts) - 1)]
        pts = np.concatenate(seg)
    for r in rects:
        rr = inflate(r, width / 2 + 0.05)
        if ((pts[:, 0] > rr[0]) & (pts[:, 0] < rr[2]) & (pts[:, 1] > rr[1]) & (pts[:, 1] < rr[3])).any():
            return True
    return False


def hand_text_box(el) -> tuple:
    w = sum(char_metrics(el["font"] if ord(c) in font_cmap(el["font"]) else "dv_sans", c)[0]
            for c in el["text"]) * el["size"]
    s = el["size"]
    return (el["x"] - 0.2 * s, el["y"] - 1.0 * s - 0.12 * w, el["x"] + w + 0.2 * s, el["y"] + 0.35 * s + 0.12 * w)


def mark_box(el) -> tuple:
    if el["t"] == "htext":
        return hand_text_box(el)
    a = np.asarray(el["pts"])
    return inflate((a[:, 0].min(), a[:, 1].min(), a[:, 0].max(), a[:, 1].max()), el["w"])


def wobble(rng, pts, amp):
    pts = np.asarray(pts, dtype=np.float64)
    n = len(pts)
    noise = rng.normal(0, amp, size=(n, 2))
    k = np.ones(5) / 5
    noise[:, 0] = np.convolve(noise[:, 0], k, mode="same")
    noise[:, 1] = np.convolve(noise[:, 1], k, mode="same")
    return [tuple(p) for p in pts + noise]


def add_marks(rng, page: Page, st: dict) -> list[dict]:
    """Circles, ticks, scores, underlines, working, stars/arrows, highlighter."""
    t = page.target
    forbidden = [inflate(b, 0.05) for b in t.truth_lines]
    pen_name = str(rng.choice(list(PENS), p=[0.4, 0.2, 0.25, 0.15]))
    color, pencil = PENS[pen_name]
    red = PENS["red"][0]
    w_pen = float(rng.uniform(0.05, 0.09))
    ti = page.problems.index(t)
    near = [b for b in page.problems[max(0, ti - 2): ti + 3]]
    marks: list[dict] = []
    records: list[dict] = []
    printed_boxes = [x for b in page.problems for x in b.ink_boxes]

    def stroke(pts, col=color, w=w_pen, pen=pencil):
        return {"t": "stroke", "pts": pts, "w": w, "color": col, "pencil": pen}

    def htext(x, y, text, size, col=color, pen=pencil):
        return {"t": "htext", "x": x, "y": y, "text": text, "size": size, "color": col,
                "pencil": pen, "font": str(rng.choice(HAND_FONTS)), "seed": int(rng.integers(1 << 30)),
                "angle": float(rng.uniform(-7, 7))}

    def ok(el, avoid_print=False):
        if el["t"] == "stroke":
            bad = polyline_hits(el["pts"], el["w"], forbidden)
        else:
            hb = hand_text_box(el)
            bad = any(boxes_overlap(hb, f) for f in forbidden)
            if avoid_print:
                bad |= any(boxes_overlap(hb, f) for f in printed_boxes)
        return not bad

    used: list = []
    kinds = ["circle", "tick", "cross", "score", "underline", "working", "star", "arrow", "highlight"]
    n = int(rng.integers(2, 6))
    chosen = list(rng.choice(kinds, size=n, replace=False))
    if not {"circle", "tick", "working", "score"} & set(chosen):
        chosen.append(str(rng.choice(["circle", "tick", "working"])))
    for kind in chosen:
        on_target = rng.random() < 0.6 and kind != "highlight"
        b = t if on_target else near[int(rng.integers(len(near)))]
        if kind == "highlight" and b is t:
            others = [x for x in near if x is not t]
            if not others:
                continue
            b = others[int(rng.integers(len(others)))]
        lb = b.label_box or b.text_box
        els = []
        if kind == "circle":
            pad = float(rng.uniform(0.12, 0.3))
            cx, cy = box_center(lb)
            rx, ry = (lb[2] - lb[0]) / 2 + pad, (lb[3] - lb[1]) / 2 + pad
            a0 = float(rng.uniform(0, 2 * math.pi))
            pts = ellipse_pts(cx, cy, rx, ry, 60, a0, a0 + 2 * math.pi + float(rng.uniform(0.2, 0.6)))
            els = [stroke(wobble(rng, pts, 0.03))]
        elif kind in ("tick", "cross", "score"):
            if rng.random() < 0.5 or not b.last_line:
                x, y = lb[0] - float(rng.uniform(1.0, 2.2)), lb[3]
            else:
                x, y = b.last_line[0] + float(rng.uniform(0.6, 1.5)), b.last_line[1]
            s = float(rng.uniform(0.7, 1.2))
            col = red if rng.random() < 0.6 else color
            if kind == "tick":
                pts = [(x, y - 0.45 * s), (x + 0.3 * s, y), (x + 0.95 * s, y - 1.0 * s)]
                els = [stroke(wobble(rng, np.linspace(pts[0], pts[1], 6).tolist()
                                     + np.linspace(pts[1], pts[2], 10).tolist(), 0.015), col)]
            elif kind == "cross":
                els = [stroke(wobble(rng, np.linspace((x, y - s), (x + 0.8 * s, y), 10), 0.015), col),
                       stroke(wobble(rng, np.linspace((x + 0.8 * s, y - s), (x, y), 10), 0.015), col)]
            else:
                txt = str(rng.choice(["8/10", "-2", "10/10", "3/5", "-1", "+3", "6/8", "-4"]))
                el = htext(x, y, txt, float(rng.uniform(0.9, 1.3)), col, False)
                if x < lb[0]:   # in the margin: end the score before the number
                    hb = hand_text_box(el)
                    el["x"] -= hb[2] - (lb[0] - 0.3)
                els = [el]
                if not ok(el, avoid_print=True):
                    els = []
        elif kind == "underline":
            lines = b.truth_lines
            if not lines:
                continue
            ln = lines[int(rng.integers(len(lines)))]
            a = ln[0] + (ln[2] - ln[0]) * float(rng.uniform(0, 0.5))
            e = a + (ln[2] - a) * float(rng.uniform(0.3, 1.0))
            yy = ln[3] + 0.1
            els = [stroke(wobble(rng, np.linspace((a, yy), (e, yy + float(rng.uniform(-0.1, 0.1))), 20), 0.012),
                          w=w_pen * 0.8)]
        elif kind == "working":
            texts = list(rng.choice(HAND_ANSWERS, size=int(rng.integers(1, 4)), replace=False))
            size = float(rng.uniform(0.9, 1.25))
            if b.answer_box is not None and rng.random() < 0.75:
                x, y = b.answer_box[0] + float(rng.uniform(0.3, 2.0)), b.answer_box[1] + 1.0 * size
                room = b.answer_box[3]
            else:
                x, y = b.last_line[0] + float(rng.uniform(1.0, 2.5)), b.last_line[1]
                room = y + 0.5
            for k, txt in enumerate(texts):
                yy = y + k * 1.35 * size
                if yy > room and k:
                    break
                els.append(htext(x + float(rng.uniform(-0.2, 0.4)), yy, txt, size))
            if not all(ok(el, avoid_print=True) for el in els):
                els = []
        elif kind == "star":
            cx, cy = lb[0] - float(rng.uniform(1.0, 1.8)), box_center(lb)[1]
            r = float(rng.uniform(0.35, 0.55))
            pts = [(cx + (r if k % 2 == 0 else r * 0.42) * math.sin(k * math.pi / 5),
                    cy - (r if k % 2 == 0 else r * 0.42) * math.cos(k * math.pi / 5)) for k in range(11)]
            els = [stroke(wobble(rng, pts, 0.01))]
        elif kind == "arrow":
            cy = box_center(lb)[1]
            x1 = lb[0] - 0.35
            x0 = x1 - float(rng.uniform(1.5, 2.5))
            y0 = cy + float(rng.uniform(-0.8, 0.8))
            els = [stroke(wobble(rng, np.linspace((x0, y0), (x1, cy), 12), 0.01)),
                   stroke([(x1 - 0.35, cy - 0.25), (x1, cy), (x1 - 0.35, cy + 0.25)])]
        elif kind == "highlight":
            lines = b.truth_lines
            if not lines:
                continue
            ln = lines[int(rng.integers(len(lines)))]
            a = ln[0] + (ln[2] - ln[0]) * float(rng.uniform(0, 0.4))
            e = a + (ln[2] - a) * float(rng.uniform(0.4, 1.0))
            hb = (a, ln[1] - 0.08, e, ln[3] + 0.08)
            if any(boxes_overlap(hb, f) for f in forbidden):
                continue
            col = [(255, 236, 60), (150, 240, 120), (255, 160, 210), (120, 220, 255)][rng.integers(4)]
            page.highlights.append({"t": "hl", "box": hb, "color": col, "seed": int(rng.integers(1 << 30))})
            records.append({"kind": kind, "problem": b.item_id, "color": list(col),
                            "box_em": [round(float(v), 2) for v in hb]})
            continue
        els = [el for el in els if ok(el)]
        if not els or any(boxes_overlap(mark_box(el), u_) for el in els for u_ in used):
            continue
        used.extend(mark_box(el) for el in els)
        marks += els
        box = union([mark_box(el) for el in els])
        records.append({"kind": kind, "problem": b.item_id, "on_target": b is t,
                        "pen": pen_name if els[0]["color"] == color else "red",
                        "text": [el["text"] for el in els if el["t"] == "htext"] or None,
                        "box_em": [round(float(v), 2) for v in box]})
    page.hand += marks
    return records


# --------------------------------------------------------------------------
# Rendering the page (only the part the camera can see) at high resolution
# --------------------------------------------------------------------------
PAPER_COLORS = {"white": (250, 250, 248), "offwhite": (247, 241, 226), "recycled": (222, 220, 212),
                "graph": (250, 251, 250), "lined": (249, 248, 242)}


def smooth_noise(rng, h, w, cell, amp=1.0):
    sh, sw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    n = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def _px(pts, crop, e):
    a = np.asarray(pts, dtype=np.float64)
    a = (a - np.array([crop[0], crop[1]])) * e
    return np.round(a * 16).astype(np.int32)


def draw_prims(img, prims, crop, e):
    for p in prims:
        col = tuple(int(v) for v in p["c"])
        if p["t"] == "fill":
            cv2.fillPoly(img, [_px(p["pts"], crop, e)], col, cv2.LINE_AA, shift=4)
            continue
        th = max(1, int(round(p["w"] * e)))
        pts = p["pts"] + ([p["pts"][0]] if p.get("closed") else [])
        if p.get("dash"):
            on, off = p["dash"]
            segs = []
            for a, b in zip(pts[:-1], pts[1:]):
                a, b = np.array(a), np.array(b)
                length = np.linalg.norm(b - a)
                s = 0.0
                while s < length:
                    e2 = min(s + on, length)
                    segs.append([a + (b - a) * s / length, a + (b - a) * e2 / length])
                    s += on + off
            for sgm in segs:
                cv2.polylines(img, [_px(sgm, crop, e)], False, col, th, cv2.LINE_AA, shift=4)
        else:
            cv2.polylines(img, [_px(pts, crop, e)], False, col, th, cv2.LINE_AA, shift=4)


def draw_text(img: np.ndarray, chars: list[Ch], crop, e, ink) -> np.ndarray:
    im = Image.fromarray(img)
    dr = ImageDraw.Draw(im)
    x0, y0, x1, y1 = crop
    run: list[Ch] = []

    def flush():
        if not run:
            return
        c0 = run[0]
        if c0.x > x1 + 1 or c0.y < y0 - 2 or c0.y > y1 + 2 or run[-1].x + run[-1].adv < x0 - 1:
            return
        col = ink if c0.color == INK else c0.color
        f = pil_font(c0.font, round(c0.size * e))
        dr.text(((c0.x - x0) * e, (c0.y + c0.dy - y0) * e), "".join(c.ch for c in run),
                font=f, fill=tuple(int(v) for v in col), anchor="ls")

    for c in chars:
        if c.space or not c.placed:
            flush()
            run = []
            continue
        if run:
            p = run[-1]
            if not (p.font == c.font and p.size == c.size and p.dy == c.dy and p.color == c.color
                    and not p.tracked and abs(p.y - c.y) < 1e-6 and abs(p.x + p.adv - c.x) < 1e-4):
                flush()
                run = []
        run.append(c)
    flush()
    return np.asarray(im).copy()


def composite(img, mask, color, alpha):
    m = (mask.astype(np.float32) / 255.0 * alpha)[..., None]
    img[:] = (img.astype(np.float32) * (1 - m) + np.array(color, np.float32) * m).astype(np.uint8)


def draw_hand(img, hand, crop, e):
    h, w = img.shape[:2]
    by_color: dict = {}
    for el in hand:
        if el["t"] != "stroke":
            continue
        key = (tuple(el["color"]), el["pencil"])
        m = by_color.setdefault(key, np.zeros((h, w), np.uint8))
        th = max(2, int(round(el["w"] * e)))
        cv2.polylines(m, [_px(el["pts"], crop, e)], False, 255, th, cv2.LINE_AA, shift=4)
    for el in hand:
        if el["t"] != "htext":
            continue
        key = (tuple(el["color"]), el["pencil"])
        m = by_color.setdefault(key, np.zeros((h, w), np.uint8))
        _hand_text(m, el, crop, e)
    for (col, pencil), m in by_color.items():
        if pencil:
            grain = np.random.default_rng(7).random(m.shape, dtype=np.float32)
            m = (m.astype(np.float32) * (0.45 + 0.55 * grain)).astype(np.uint8)
            composite(img, m, col, 0.75)
        else:
            composite(img, m, col, 0.92)


def _hand_text(mask, el, crop, e):
    rng = np.random.default_rng(el["seed"])
    px = max(8, int(round(el["size"] * e)))
    font = pil_font(el["font"], px)
    text = el["text"]
    if any(ord(c) not in font_cmap(el["font"]) for c in text):
        font = pil_font("dv_sans_i" if all(ord(c) in font_cmap("dv_sans_i") for c in text) else "sans_cjk", px)
    tw = int(font.getlength(text)) + 2 * px
    th = int(2.2 * px)
    pad = px
    im = Image.new("L", (tw + 2 * pad, th + 2 * pad), 0)
    ImageDraw.Draw(im).text((pad + px // 2, pad + int(1.4 * px)), text, font=font, fill=255, anchor="ls")
    m = np.asarray(im).astype(np.float32)
    hh, ww = m.shape
    amp = 0.06 * px
    dx = smooth_noise(rng, hh, ww, px * 0.7, amp)
    dy = smooth_noise(rng, hh, ww, px * 0.7, amp)
    gx, gy = np.meshgrid(np.arange(ww, dtype=np.float32), np.arange(hh, dtype=np.float32))
    m = cv2.remap(m, gx + dx, gy + dy, cv2.INTER_LINEAR)
    shear = float(rng.uniform(-0.25, 0.05))
    rot = cv2.getRotationMatrix2D((ww / 2, hh / 2), el["angle"], 1.0)
    rot[0, 1] += shear
    m = cv2.warpAffine(m, rot, (ww, hh))
    if px > 30 and rng.random() < 0.5:
        m = cv2.dilate(m, np.ones((2, 2), np.uint8))
    ox = int(round((el["x"] - crop[0]) * e)) - pad - px // 2
    oy = int(round((el["y"] - crop[1]) * e)) - pad - int(1.4 * px)
    H, W = mask.shape
    xa, ya = max(0, ox), max(0, oy)
    xb, yb = min(W, ox + ww), min(H, oy + hh)
    if xa >= xb or ya >= yb:
        return
    sub = m[ya - oy: yb - oy, xa - ox: xb - ox]
    mask[ya:yb, xa:xb] = np.maximum(mask[ya:yb, xa:xb], np.clip(sub, 0, 255).astype(np.uint8))


def draw_highlights(img, hls, crop, e):
    for hl in hls:
        rng = np.random.default_rng(hl["seed"])
        x0, y0, x1, y1 = hl["box"]
        pts = [(x0 + rng.uniform(-0.1, 0.1), y0 + rng.uniform(-0.05, 0.05)),
               (x1 + rng.uniform(-0.1, 0.1), y0 + rng.uniform(-0.1, 0.05)),
               (x1 + rng.uniform(-0.1, 0.1), y1 + rng.uniform(-0.05, 0.1)),
               (x0 + rng.uniform(-0.1, 0.1), y1 + rng.uniform(-0.05, 0.05))]
        m = np.zeros(img.shape[:2], np.uint8)
        cv2.fillPoly(m, [_px(pts, crop, e)], 255, cv2.LINE_AA, shift=4)
        f = (m.astype(np.float32) / 255.0 * 0.85)[..., None]
        tint = np.array(hl["color"], np.float32) / 255.0
        img[:] = (img.astype(np.float32) * (1 - f * (1 - tint))).astype(np.uint8)


def render_canvas(page: Page, crop, e: float, rp: dict) -> np.ndarray:
    """Paint the page region `crop` (em box) at e pixels per em."""
    rng = np.random.default_rng(rp["seed"])
    x0, y0, x1, y1 = crop
    w, h = max(8, int(math.ceil((x1 - x0) * e))), max(8, int(math.ceil((y1 - y0) * e)))
    paper = rp["paper"]
    base = np.array(rp["paper_color"], np.float32)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = base.astype(np.uint8)
    if paper == "graph":
        g = rp["grid_em"]
        col = tuple(int(v) for v in rp["grid_color"])
        for k in range(int(math.floor(x0 / g)), int(math.ceil(x1 / g)) + 1):
            xx = (k * g - x0) * e
            cv2.line(img, (int(xx * 16), 0), (int(xx * 16), h * 16), col, 2 if k % 5 == 0 else 1,
                     cv2.LINE_AA, shift=4)
        for k in range(int(math.floor(y0 / g)), int(math.ceil(y1 / g)) + 1):
            yy = (k * g - y0) * e
            cv2.line(img, (0, int(yy * 16)), (w * 16, int(yy * 16)), col, 2 if k % 5 == 0 else 1,
                     cv2.LINE_AA, shift=4)
    elif paper == "lined":
        p, off = rp["line_pitch"], rp["line_y0"]
        th = max(1, int(round(0.03 * e)))
        for k in range(int(math.floor((y0 - off) / p)), int(math.ceil((y1 - off) / p)) + 1):
            yy = (off + k * p - y0) * e
            cv2.line(img, (0, int(yy * 16)), (w * 16, int(yy * 16)), (150, 175, 215), th, cv2.LINE_AA, shift=4)
        xm = (rp["margin_x"] - x0) * e
        cv2.line(img, (int(xm * 16), 0), (int(xm * 16), h * 16), (215, 80, 80), th + 1, cv2.LINE_AA, shift=4)
    draw_prims(img, page.prims, crop, e)
    img = draw_text(img, page.chars, crop, e, rp["ink"])
    draw_highlights(img, page.highlights, crop, e)
    draw_hand(img, page.hand, crop, e)

    f = img.astype(np.float32)
    lum = smooth_noise(rng, h, w, 6 * e, rp["paper_mottle"]) + smooth_noise(rng, h, w, 3, 1.6)
    f += lum[..., None]
    if paper == "recycled":
        n = int(w * h / (e * e) * 2)
        fib = np.zeros((h, w), np.uint8)
        for _ in range(min(n, 4000)):
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            a = rng.uniform(0, math.pi)
            ln = rng.uniform(0.1, 0.4) * e
            cv2.line(fib, (int(cx), int(cy)), (int(cx + ln * math.cos(a)), int(cy + ln * math.sin(a))),
                     int(rng.integers(60, 160)), 1, cv2.LINE_AA)
        f -= fib[..., None].astype(np.float32) * 0.12
    if rp.get("bleed"):
        f *= 1 - _bleed_layer(rp["bleed"], crop, e, w, h)[..., None]
    if rp.get("photocopy"):
        f = _photocopy(f, rp["photocopy"], rng, e)
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rp.get("screen"):
        out = _screenify(out, page, crop, e, rp["screen"])
    return out


def _bleed_layer(bp, crop, e, w, h):
    """Faint mirrored text from the back of the sheet."""
    s = 0.5
    im = Image.new("L", (max(4, int(w * s)), max(4, int(h * s))), 0)
    dr = ImageDraw.Draw(im)
    fs = bp["font"]
    font = pil_font(fs, max(6, int(e * s * bp["size"])))
    pitch = bp["pitch"]
    y = (bp["y0"] - crop[1]) % pitch
    k = 0
    while y * e * s < im.height + e:
        txt = bp["texts"][k % len(bp["texts"])]
        dr.text((bp["x0"] * e * s, y * e * s), txt, font=font, fill=255, anchor="ls")
        y += pitch
        k += 1
    m = np.asarray(im).astype(np.float32)[:, ::-1]
    m = cv2.GaussianBlur(m, (0, 0), 1.2)
    m = cv2.resize(m, (w, h), interpolation=cv2.INTER_LINEAR)
    return m / 255.0 * bp["alpha"]


def _photocopy(f, pc, rng, e):
    h, w = f.shape[:2]
    # slightly doubled edges: a faint shifted copy of the ink
    dx, dy = pc["shift"]
    dark = 255.0 - f
    shifted = np.roll(np.roll(dark, dy, axis=0), dx, axis=1)
    f = 255.0 - np.maximum(dark, shifted * pc["ghost"])
    # grey background, harsher ink
    f = f * pc["gain"] + smooth_noise(rng, h, w, 4 * e, 5.0)[..., None]
    f = np.where(f < 120, f * 0.7, f)
    # toner speckle
    n = int(w * h * pc["speckle"])
    ys, xs = rng.integers(0, h, n), rng.integers(0, w, n)
    rad = rng.integers(1, 3, n)
    sp = np.zeros((h, w), np.uint8)
    for x, y, r in zip(xs, ys, rad):
        cv2.circle(sp, (int(x), int(y)), int(r), int(rng.integers(120, 230)), -1, cv2.LINE_AA)
    f -= sp[..., None].astype(np.float32) * 0.8
    if pc["streak"] is not None:
        xs_ = int(pc["streak"] * w)
        f[:, max(0, xs_ - 2): xs_ + 2] *= 0.85
    return f


def _screenify(img, page, crop, e, sp):
    """Show the page on a display: pixel grid, subpixels, viewer and bezel."""
    h, w = img.shape[:2]
    xs = crop[0] + (np.arange(w) + 0.5) / e
    ys = crop[1] + (np.arange(h) + 0.5) / e
    on_page = (xs[None, :] >= 0) & (xs[None, :] <= page.w) & (ys[:, None] >= 0) & (ys[:, None] <= page.h)
    img = img.copy()
    img[~on_page] = sp["viewer_bg"]
    k = sp["pixel_px"]
    small = cv2.resize(img, (max(2, int(w / k)), max(2, int(h / k))), interpolation=cv2.INTER_AREA)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST).astype(np.float32)
    fx = ((np.arange(w) / k) % 1.0)[None, :]
    fy = ((np.arange(h) / k) % 1.0)[:, None]
    gap = np.where(fy > 0.82, sp["gap_dim"], 1.0).astype(np.float32)
    lo = sp["stripe_floor"]
    sub = np.stack([np.where(fx < 1 / 3, 1.0, lo), np.where((fx >= 1 / 3) & (fx < 2 / 3), 1.0, lo),
                    np.where(fx >= 2 / 3, 1.0, lo)], axis=-1).astype(np.float32)
    big = big * sub * gap[..., None] * sp["gain"]
    d = sp["display"]
    inside = (xs[None, :] >= d[0]) & (xs[None, :] <= d[2]) & (ys[:, None] >= d[1]) & (ys[:, None] <= d[3])
    out = np.clip(big, 0, 255)
    out[~inside] = sp["bezel_color"]
    return out.astype(np.uint8)


# --------------------------------------------------------------------------
# From the rendered page to the photo
# --------------------------------------------------------------------------
DESKS = {"wood": (140, 100, 62), "grey": (118, 118, 124), "white": (214, 212, 205),
         "dark": (48, 46, 52), "green": (70, 98, 80)}


def desk_background(rng, wu, hu, name):
    base = np.array(DESKS[name], np.float32) * float(rng.uniform(0.85, 1.1))
    img = np.empty((hu, wu, 3), np.float32)
    img[:] = base
    img += smooth_noise(rng, hu, wu, 60, 8)[..., None]
    if name == "wood":
        yy = np.arange(hu, dtype=np.float32)[:, None]
        xx = np.arange(wu, dtype=np.float32)[None, :]
        a = float(rng.uniform(0, math.pi))
        grain = np.sin((xx * math.cos(a) + yy * math.sin(a)) / float(rng.uniform(6, 14))
                       + smooth_noise(rng, hu, wu, 150, 3.0))
        img += (grain * 10)[..., None]
    return img


def unproject_grid(cam: Camera, wu, hu, step=1):
    u = (np.arange(0, wu, step, dtype=np.float64) + 0.5)
    v = (np.arange(0, hu, step, dtype=np.float64) + 0.5)
    uu, vv = np.meshgrid(u, v)
    hi = cam.hinv
    den = hi[2, 0] * uu + hi[2, 1] * vv + hi[2, 2]
    cx = (hi[0, 0] * uu + hi[0, 1] * vv + hi[0, 2]) / den
    cy = (hi[1, 0] * uu + hi[1, 1] * vv + hi[1, 2]) / den
    if cam.curl:
        p = cam.curl_g(np.column_stack([cx.ravel(), cy.ravel()]))
        px, py = p[:, 0].reshape(cx.shape), p[:, 1].reshape(cx.shape)
    else:
        px, py = cx, cy
    return cx, cy, px, py


def polygon_mask(poly, wu, hu, dilate_px=0):
    m = np.zeros((hu, wu), np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(poly) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    if dilate_px > 0:
        k = int(2 * dilate_px + 1)
        m = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return m


def finger_or_pen(rng, wu, hu, forbid: np.ndarray):
    """A finger or a pen tip entering from an edge; never over `forbid`."""
    kind = str(rng.choice(["finger", "pen"]))
    for _ in range(25):
        edge = int(rng.integers(4))
        t = float(rng.uniform(0.05, 0.95))
        start = [(t * wu, -20), (wu + 20, t * hu), (t * wu, hu + 20), (-20, t * hu)][edge]
        inward = np.array([(0, 1), (-1, 0), (0, -1), (1, 0)][edge], np.float64)
        ang = float(rng.uniform(-0.6, 0.6))
        d = np.array([inward[0] * math.cos(ang) - inward[1] * math.sin(ang),
                      inward[0] * math.sin(ang) + inward[1] * math.cos(ang)])
        n = np.array([-d[1], d[0]])
        m = np.zeros((hu, wu), np.uint8)
        s = min(wu, hu)
        if kind == "finger":
            length = float(rng.uniform(0.12, 0.3)) * s
            width = float(rng.uniform(0.09, 0.14)) * s
            tip = np.array(start) + d * length
            p0 = np.array(start) - d * 40
            poly = [p0 + n * width / 2, tip + n * width / 2, tip - n * width / 2, p0 - n * width / 2]
            cv2.fillPoly(m, [np.int32(poly)], 255, cv2.LINE_AA)
            cv2.circle(m, (int(tip[0]), int(tip[1])), int(width / 2), 255, -1, cv2.LINE_AA)
        else:
            length = float(rng.uniform(0.2, 0.45)) * s
            width = float(rng.uniform(0.025, 0.045)) * s
            tip = np.array(start) + d * length
            body_end = tip - d * width * 2.2
            p0 = np.array(start) - d * 40
            poly = [p0 + n * width / 2, body_end + n * width / 2, tip, body_end - n * width / 2,
                    p0 - n * width / 2]
            cv2.fillPoly(m, [np.int32(poly)], 255, cv2.LINE_AA)
        if (m.astype(np.uint16) * forbid > 0).any():
            continue
        info = {"kind": kind, "edge": ["top", "right", "bottom", "left"][edge],
                "tip": [round(float(tip[0]), 1), round(float(tip[1]), 1)]}
        if kind == "finger":
            col = np.array([[196, 150, 125], [225, 180, 155], [150, 105, 80]][rng.integers(3)], np.float32)
        else:
            col = np.array([[30, 40, 120], [25, 25, 28], [180, 30, 30], [220, 220, 225]][rng.integers(4)],
                           np.float32)
        return m, col, info, (np.array(start), d, width)
    return None


def apply_occluder(img, occ):
    m, col, info, (start, d, width) = occ
    mf = cv2.GaussianBlur(m.astype(np.float32) / 255.0, (0, 0), 2.5)
    hu, wu = m.shape
    yy, xx = np.mgrid[0:hu, 0:wu].astype(np.float32)
    across = ((xx - start[0]) * -d[1] + (yy - start[1]) * d[0]) / (width / 2)   # -1..1 over the width
    shade = 1.05 - 0.45 * across ** 2 + 0.08 * across
    layer = col[None, None, :] * np.clip(shade, 0.45, 1.1)[..., None]
    # soft shadow cast by the occluder
    sh = cv2.GaussianBlur(np.roll(mf, (12, 12), axis=(0, 1)), (0, 0), 12)
    img *= (1 - 0.35 * sh)[..., None]
    img[:] = img * (1 - mf[..., None]) + layer * mf[..., None]


def glare_blob(wu, hu, cx, cy, r, amp):
    yy, xx = np.mgrid[0:hu, 0:wu].astype(np.float32)
    return amp * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))


# --------------------------------------------------------------------------
# Random choices for one photo
# --------------------------------------------------------------------------
CN_TITLES = ["七年级数学期中检测试卷", "八年级物理单元测试（二）", "九年级化学练习卷", "初二生物期末复习题",
             "综合练习（三）", "课时作业 第12课"]
EN_TITLES = ["Grade 8 Science - Unit Test", "Mathematics Worksheet 4", "Review Exercises",
             "Mid-term Practice Paper", "Homework Sheet 7"]
FOOTERS = ["page 2 of 4", "Page 3 of 4", "第 2 页 共 4 页", "- 2 -", "第3页（共6页）", "page 1 of 2"]


def target_order(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng([seed, 0x7A26]).permutation(n)


def primary_kind(seed: int, i: int) -> str:
    order = np.random.default_rng([seed, 0xC1D5]).permutation(len(KINDS))
    return KINDS[int(order[(i - 1) % len(KINDS)])]


def u(rng, a, b) -> float:
    return float(rng.uniform(a, b))


def choose_style(rng, kinds: set, mode: str, paper: str, cjk_page: bool) -> dict:
    typo, num, exam = "typography" in kinds, "numbering" in kinds, "exam" in kinds
    st: dict = {"paper": paper}
    if typo:
        cjk_fam = str(rng.choice(["sans", "serif"]))
        lat_fam = str(rng.choice(LATIN_FAMILIES))
    else:
        cjk_fam, lat_fam = [("serif", "lib_serif"), ("sans", "dv_sans"), ("serif", "cjk"),
                            ("sans", "lib_sans")][rng.integers(4)]
    st["fs"] = make_fontset(cjk_fam, lat_fam)
    st["fs"].symbols_cjk = bool(rng.random() < 0.7)
    st["pitch"] = u(rng, 1.2, 2.1) if typo else u(rng, 1.4, 1.75)
    st["justify"] = bool(rng.random() < (0.5 if typo else 0.15))
    st["tracking"] = u(rng, 0.0, 0.08) if typo and rng.random() < 0.4 else 0.0
    st["sup_mode"] = bool(rng.random() < (0.85 if typo else 0.3))
    st["italic_vars"] = bool(typo and rng.random() < 0.6)
    if num:
        st["num_style"] = str(rng.choice(list(NUMBER_STYLES)))
        st["num_place"] = str(rng.choice(["inline", "hanging", "own_line"], p=[0.5, 0.3, 0.2]))
        st["note_mode"] = [None, "before", "after", "right"][int(rng.choice(4, p=[0.3, 0.25, 0.25, 0.2]))]
        st["subq_prob"] = 0.25
    else:
        st["num_style"] = str(rng.choice(["dot", "fwdot", "dun", "dot"] if cjk_page else ["dot", "dot", "paren_r"]))
        st["num_place"] = "inline"
        st["note_mode"] = "after" if exam and rng.random() < 0.3 else None
        st["subq_prob"] = 0.03
    if st["num_place"] == "own_line" and st["num_style"] not in WORDY_STYLES and rng.random() < 0.6:
        st["num_place"] = "inline"
    st["num_bold"] = bool(rng.random() < (0.6 if typo else 0.25))
    st["num_size"] = u(rng, 1.0, 1.15) if typo else 1.0
    st["num_gap"] = u(rng, 0.25, 0.8)
    st["wrap_indent"] = 0.0
    st["body_indent"] = float(rng.choice([0.0, 1.0]))
    st["note_size"] = u(rng, 0.8, 0.95)
    st["sub_indent"] = u(rng, 0.0, 1.5)
    # exam sheet furniture
    st["header"] = bool(exam and rng.random() < 0.55)
    st["header_title"] = str(rng.choice(CN_TITLES if cjk_page else EN_TITLES))
    st["footer"] = bool(exam and rng.random() < 0.5)
    st["footer_text"] = str(rng.choice(FOOTERS))
    if exam:
        ns = int(rng.integers(1, 4))
        st["sections"] = sorted(rng.choice(["choice", "fill", "answer"], size=ns, replace=False),
                                key=["choice", "fill", "answer"].index)
    else:
        st["sections"] = []
    st["option_cols"] = int(rng.choice([1, 2, 4]))
    st["option_label"] = str(rng.choice(["{L}. ", "{L}．", "{L}、", "({L}) ", "{L}) "]))
    st["option_size"] = u(rng, 0.9, 1.0)
    st["blank_style"] = str(rng.choice(["paren", "line"]))
    st["blank_prob"] = 0.0
    st["option_prob"] = 0.0
    st["answer_space"] = str(rng.choice(["lines", "box", "space"])) if exam else None
    st["answer_prob"] = 1.0 if exam else 0.0
    st["answer_dash"] = (0.15, 0.12) if rng.random() < 0.3 else None
    ncol_p = 0.85 if mode == "wide" else (0.5 if exam else 0.3)
    st["columns"] = 2 if rng.random() < ncol_p else 1
    st["col_rule"] = bool(exam and rng.random() < 0.8)
    st["gutter"] = u(rng, 2.0, 3.5)
    st["gap"] = u(rng, 0.3, 0.9) if mode in ("close", "wide") else u(rng, 0.5, 1.5)
    st["work_space"] = u(rng, 1.5, 3.0) if "marks" in kinds and rng.random() < 0.7 else 0.0
    st["figure_prob"] = 0.35 if typo else 0.04
    st["figure_pos"] = str(rng.choice(["right", "below", "mixed"]))
    st["margins"] = (u(rng, 2.5, 4.5), u(rng, 2.0, 4.0), u(rng, 2.5, 5.0), u(rng, 2.5, 4.0))
    return st


def style_meta(st: dict) -> dict:
    keys = ["pitch", "justify", "tracking", "sup_mode", "italic_vars", "num_style", "num_place",
            "num_bold", "num_size", "note_mode", "columns", "col_rule", "colw", "gutter", "gap",
            "header", "footer", "sections", "option_cols", "option_label", "blank_style",
            "answer_space", "work_space", "figure_prob", "figure_pos", "paper"]
    out = {}
    for k in keys:
        v = st.get(k)
        out[k] = round(v, 3) if isinstance(v, float) else v
    out["fonts"] = st["fs"].describe()
    return out


def target_min_glyph(q: str, st: dict) -> float:
    cs = make_chars(q, st["fs"], truth=True, sup_mode=st["sup_mode"], italic_vars=st["italic_vars"])
    gl = [c.glyph_h for c in cs if c.glyph_h]
    return min(gl) if gl else 0.8


def pick_neighbours(rng, bank, t_idx, n):
    subj = bank[t_idx]["id"].rsplit("-", 1)[0]
    pool = [j for j in range(len(bank)) if j != t_idx]
    same = [j for j in pool if bank[j]["id"].rsplit("-", 1)[0] == subj]
    rest = [j for j in pool if j not in set(same)]
    k_same = min(len(same), int(round(n * u(rng, 0.2, 0.8))))
    chosen = list(rng.choice(same, size=k_same, replace=False)) if k_same else []
    chosen += list(rng.choice(rest, size=n - k_same, replace=False))
    rng.shuffle(chosen)
    return [int(j) for j in chosen]


def rotate_points(pts, k, wu, hu):
    """Coordinates after np.rot90(image, k) (counter-clockwise quarter turns)."""
    pts = np.asarray(pts, dtype=np.float64)
    x, y = pts[:, 0], pts[:, 1]
    if k == 1:
        return np.column_stack([y, wu - x])
    if k == 2:
        return np.column_stack([wu - x, hu - y])
    if k == 3:
        return np.column_stack([hu - y, x])
    return pts.copy()


def bbox_of(pts):
    return [round(float(pts[:, 0].min()), 1), round(float(pts[:, 1].min()), 1),
            round(float(pts[:, 0].max()), 1), round(float(pts[:, 1].max()), 1)]


def layout_photo(rng, bank, t_idx, kinds, mode, wu, hu, paper, allow_curl=True):
    """Page + camera that satisfy the fairness rules (simplifying on retries)."""
    target = bank[t_idx]
    cjk_t = has_cjk(target["question"])
    last_err = None
    for attempt in range(8):
        st = choose_style(rng, kinds, mode, paper, cjk_t)
        if attempt >= 2:
            st.update(figure_prob=0.0, subq_prob=0.0, option_cols=4, note_mode=None)
        if attempt >= 4:
            st.update(sections=[s for s in st["sections"] if s != "choice"], answer_space=None,
                      columns=1, num_place="inline", pitch=min(st["pitch"], 1.6))
        g = target_min_glyph(target["question"], st)
        sig_min = MIN_GLYPH_PX / g
        strong = "camera" in kinds and attempt < 6
        fit = (0.7 if strong else 0.85) * wu / sig_min
        if mode == "wide":
            colw = u(rng, 15, 24)
        elif mode == "close":
            colw = fit * u(rng, 0.45, 0.8)
        else:
            colw = fit * u(rng, 0.5, 1.0)
        st["colw"] = float(np.clip(min(colw, fit), 7.0, 34.0))
        if mode == "wide":
            n = int(rng.integers(14, 23))
        elif mode == "close":
            n = int(rng.integers(4, 8))
        else:
            n = int(rng.integers(8, 15)) if st["columns"] == 2 else int(rng.integers(5, 10))
        if mode == "wide":   # keep the target mid-column so neighbours surround it
            if st["columns"] == 2:
                tpos = int(rng.choice([rng.integers(n // 8, 3 * n // 8), rng.integers(5 * n // 8, 7 * n // 8)]))
            else:
                tpos = int(rng.integers(n // 4, n - n // 4))
        else:
            tpos = int(rng.integers(1, n - 1)) if rng.random() < 0.9 else int(rng.choice([0, n - 1]))
        neigh = pick_neighbours(rng, bank, t_idx, n - 1)
        items = [bank[j] for j in neigh[:tpos]] + [target] + [bank[j] for j in neigh[tpos:]]
        first = int(rng.integers(1, 16))
        if st["num_style"] == "circled":
            first = int(rng.integers(1, max(2, 21 - n + 1)))
        labels = [make_chars(choose_number_label(st["num_style"], first + k), st["fs"],
                             bold=st["num_bold"], size=st["num_size"], cjk_ctx=False) for k in range(n)]
        st["hang_w"] = max(run_width(c) for c in labels) + st["num_gap"]
        page = build_page(rng, items, tpos, first, st)
        cb = page.target.core_box
        if (cb[2] - cb[0]) * sig_min * 1.08 > 0.94 * wu or (cb[3] - cb[1]) * sig_min * 1.08 > 0.9 * hu:
            last_err = "target too large for the frame"
            continue
        marks = add_marks(rng, page, st) if "marks" in kinds else []
        cam_kinds = kinds if attempt < 6 else set(kinds) - {"camera"}
        cam, res, plan = plan_camera(rng, page, wu, hu, cam_kinds, mode, allow_curl)
        if res["ok"]:
            plan["layout_attempts"] = attempt + 1
            return st, page, marks, cam, res, plan
        last_err = f"camera checks failed: {res}"
    raise RuntimeError(f"could not lay out a fair photo for {target['id']}: {last_err}")


def make_photo(task) -> dict:
    i, seed, bank, out_dir = task
    rng = np.random.default_rng([seed, i])
    order = target_order(seed, len(bank))
    t_idx = int(order[(i - 1) % len(bank)])
    target = bank[t_idx]
    primary = primary_kind(seed, i)
    mixed = [k for k in KINDS if rng.random() < MIX_PROB and k != primary]
    kinds = {primary, *mixed}
    dropped = []

    # media first: a screen cannot carry pen marks or curl
    paper, media = str(rng.choice(["white", "offwhite"], p=[0.7, 0.3])), {}
    if "media" in kinds:
        opts = ["graph", "lined", "recycled", "photocopy", "screen", "bleed"]
        if "marks" in kinds and primary == "marks":
            opts.remove("screen")
        media_kind = str(rng.choice(opts))
        if media_kind == "screen" and "marks" in kinds:
            kinds.discard("marks")
            dropped.append("marks")
        if media_kind in ("graph", "lined", "recycled"):
            paper = media_kind
        media["effect"] = media_kind
        if media_kind != "screen" and rng.random() < 0.3:
            media["extra"] = str(rng.choice(["bleed", "photocopy"]))
    mode = str(rng.choice(["close", "wide"])) if "framing" in kinds else "normal"
    occluder_wanted = "framing" in kinds and rng.random() < 0.5
    if mode == "wide":
        size = [(1920, 1440), (2400, 1800), (1600, 1200), (1200, 1600)][rng.integers(4)]
    else:
        size = SIZES[int(rng.integers(len(SIZES)))]
    k_rot = 0
    if "camera" in kinds and rng.random() < 0.3:
        k_rot = int(rng.choice([1, 3, 2], p=[0.4, 0.4, 0.2]))
    w, h = size
    wu, hu = (h, w) if k_rot % 2 else (w, h)

    st, page, marks, cam, res, plan = layout_photo(rng, bank, t_idx, kinds, mode, wu, hu, paper,
                                                   allow_curl=media.get("effect") != "screen")
    sigma = cam.sigma
    strong = "camera" in kinds

    # ---- page raster: only the part the camera sees
    step = max(wu, hu) / 24
    _, _, gx, gy = unproject_grid(cam, wu, hu, step=step)
    d_em = np.hypot(np.diff(gx, axis=1), np.diff(gy, axis=1))
    sig_local_max = float(step / max(d_em.min(), 1e-6))
    e = float(np.clip(sigma / u(rng, 0.7, 0.95), 40, 120))
    rp = {"seed": int(rng.integers(1 << 30)), "paper": paper,
          "paper_color": tuple(np.clip(np.array(PAPER_COLORS[paper]) + rng.normal(0, 2, 3), 0, 255)),
          "ink": tuple(int(v) for v in np.clip(np.array([28, 28, 32]) + rng.integers(-12, 14, 3), 0, 80)),
          "paper_mottle": u(rng, 1.5, 4.0)}
    if paper == "graph":
        rp["grid_em"] = u(rng, 0.9, 1.4)
        rp["grid_color"] = [(170, 200, 225), (190, 190, 195), (160, 210, 180)][rng.integers(3)]
    if paper == "lined":
        # blocks start on the pitch grid (see build_page), so rules sit under baselines
        rp["line_pitch"] = st["pitch"]
        rp["line_y0"] = (st["pitch"] - 1) / 2 + 0.88 + 0.2
        rp["margin_x"] = st["margins"][0] - u(rng, 0.6, 1.2)
    effects = [media.get("effect"), media.get("extra")]
    if "bleed" in effects:
        texts = [bank[j]["question"] for j in rng.choice(len(bank), size=12, replace=False)]
        rp["bleed"] = {"texts": texts, "alpha": u(rng, 0.05, 0.12), "pitch": st["pitch"] * u(rng, 0.9, 1.2),
                       "y0": u(rng, 0, 2), "x0": u(rng, 1, 4), "size": 1.0, "font": st["fs"].cjk}
        media["bleed_alpha"] = round(rp["bleed"]["alpha"], 3)
    if "photocopy" in effects:
        rp["photocopy"] = {"shift": (int(rng.integers(1, 4)), int(rng.integers(-2, 3))),
                           "ghost": u(rng, 0.2, 0.45), "gain": u(rng, 0.84, 0.93),
                           "speckle": u(rng, 2e-5, 1.2e-4),
                           "streak": u(rng, 0.05, 0.95) if rng.random() < 0.4 else None}
        media["photocopy"] = {k: v for k, v in rp["photocopy"].items()}
    obj = (0.0, 0.0, page.w, page.h)
    fx0, fy0, fx1, fy1 = float(gx.min()), float(gy.min()), float(gx.max()), float(gy.max())
    if media.get("effect") == "screen":
        tb = inflate(page.target.core_box, 1.5)
        fw, fh = fx1 - fx0, fy1 - fy0
        d = [fx0 - 2, fy0 - 2, fx1 + 2, fy1 + 2]
        for side in rng.choice(4, size=int(rng.integers(1, 3)), replace=False):
            cut = u(rng, 0.06, 0.22) * (fw if side % 2 == 0 else fh)
            if side == 0:
                d[0] = min(fx0 + cut, tb[0])
            elif side == 1:
                d[1] = min(fy0 + cut, tb[1])
            elif side == 2:
                d[2] = max(fx1 - cut, tb[2])
            else:
                d[3] = max(fy1 - cut, tb[3])
        bez = u(rng, 0.5, 2.0)
        obj = (d[0] - bez, d[1] - bez, d[2] + bez, d[3] + bez)
        rp["screen"] = {"display": tuple(d), "pixel_px": u(rng, 2.2, 3.4) * e / sigma,
                        "gap_dim": u(rng, 0.7, 0.9), "stripe_floor": u(rng, 0.7, 0.85),
                        "gain": u(rng, 1.12, 1.3),
                        "viewer_bg": [(205, 205, 210), (64, 66, 72), (236, 236, 236)][rng.integers(3)],
                        "bezel_color": [(18, 18, 20), (35, 35, 38), (200, 200, 205)][rng.integers(3)]}
        media["screen"] = {"display_em": [round(v, 2) for v in d], "bezel_em": round(bez, 2),
                           "pixel_pitch_photo_px": round(rp["screen"]["pixel_px"] * sigma / e, 2)}
    crop = (max(obj[0], fx0 - 1.5), max(obj[1], fy0 - 1.5), min(obj[2], fx1 + 1.5), min(obj[3], fy1 + 1.5))
    area = (crop[2] - crop[0]) * (crop[3] - crop[1]) * e * e
    if area > 16e6:
        e *= math.sqrt(16e6 / area)
        if "screen" in rp:
            rp["screen"]["pixel_px"] = media["screen"]["pixel_pitch_photo_px"] * e / sigma
    canvas = render_canvas(page, crop, e, rp)
    r = min(1.0, 1.3 * sig_local_max / e)
    if r < 0.9:
        canvas = cv2.resize(canvas, (max(2, int(canvas.shape[1] * r)), max(2, int(canvas.shape[0] * r))),
                            interpolation=cv2.INTER_AREA)
        r_x = canvas.shape[1] / ((crop[2] - crop[0]) * e)
        r_y = canvas.shape[0] / ((crop[3] - crop[1]) * e)
    else:
        r_x = r_y = 1.0

    # ---- camera projection
    cx, cy, px, py = unproject_grid(cam, wu, hu)
    mapx = ((px - crop[0]) * e * r_x - 0.5).astype(np.float32)
    mapy = ((py - crop[1]) * e * r_y - 0.5).astype(np.float32)
    warped = cv2.remap(canvas, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    inside = ((px >= obj[0]) & (px <= obj[2]) & (py >= obj[1]) & (py <= obj[3])).astype(np.float32)
    inside = cv2.GaussianBlur(inside, (3, 3), 0.7)
    desk = str(rng.choice(list(DESKS)))
    bg = desk_background(rng, wu, hu, desk)
    shadow = cv2.GaussianBlur(np.roll(inside, (int(0.01 * hu), int(0.01 * wu)), axis=(0, 1)), (0, 0),
                              0.012 * max(wu, hu))
    bg *= (1 - 0.45 * shadow)[..., None]
    img = warped.astype(np.float32) * inside[..., None] + bg * (1 - inside[..., None])
    cam_fx: dict = {"desk": desk}

    if cam.curl:
        cu = cam.curl
        uu = np.maximum(0.0, cu["side"] * (cx - cu["xs"]))
        s_amt = u(rng, 0.2, 0.45)
        img *= (1 - s_amt * np.exp(-uu / (0.5 * cu["w"])))[..., None].astype(np.float32)
        cam_fx["spine_shadow"] = round(s_amt, 3)

    # target region (photo coordinates) that nothing may cover
    t_poly = cam.project(box_perimeter(page.target.core_box, 16))
    forbid = polygon_mask(t_poly, wu, hu, dilate_px=0.4 * sigma)

    # occluders (finger / pen tip)
    occ_info = None
    if occluder_wanted:
        occ = finger_or_pen(rng, wu, hu, forbid)
        if occ is not None:
            apply_occluder(img, occ)
            occ_info = occ[2]

    # lighting
    yy, xx = np.mgrid[0:hu, 0:wu].astype(np.float32)
    xn, yn = xx / wu - 0.5, yy / hu - 0.5
    ga = u(rng, 0.15, 0.4) if strong and rng.random() < 0.7 else u(rng, 0.0, 0.12)
    ang = u(rng, 0, 2 * math.pi)
    vig = u(rng, 0.1, 0.3) if strong else u(rng, 0.03, 0.12)
    light = 1 + ga * (xn * math.cos(ang) + yn * math.sin(ang)) - vig * (xn ** 2 + yn ** 2) * 2
    img *= np.clip(light, 0.45, 1.3)[..., None]
    cam_fx["uneven_light"] = round(ga, 3)
    cam_fx["vignette"] = round(vig, 3)

    # glare on a neighbour (or on the screen)
    glare_p = 0.4 if strong else 0.0
    if media.get("effect") == "screen":
        glare_p = 0.75
    if rng.random() < glare_p:
        cands = []
        for b in page.problems:
            if b is page.target:
                continue
            c = cam.project([box_center(b.core_box)])[0]
            if 0 <= c[0] < wu and 0 <= c[1] < hu:
                cands.append(c)
        cands.append(np.array([u(rng, 0, wu), u(rng, 0, hu)]))
        diag = math.hypot(wu, hu)
        for c in [cands[k] for k in rng.permutation(len(cands))]:
            dist = -cv2.pointPolygonTest(t_poly.astype(np.float32), (float(c[0]), float(c[1])), True)
            rad = min(u(rng, 0.04, 0.11) * diag, dist / 3.3)
            if rad < 0.02 * diag:
                continue
            amp = u(rng, 140, 240)
            blob = glare_blob(wu, hu, float(c[0]), float(c[1]), rad, amp)
            if blob[forbid > 0].max(initial=0) > 6:
                continue
            img += blob[..., None]
            cam_fx["glare"] = {"center": [round(float(c[0]), 1), round(float(c[1]), 1)],
                               "radius": round(rad, 1), "amp": round(amp, 1)}
            break

    if media.get("effect") == "screen":
        d = rp["screen"]["display"]
        on = ((px >= d[0]) & (px <= d[2]) & (py >= d[1]) & (py <= d[3])).astype(np.float32)
        per = u(rng, 9, 30)
        a1 = u(rng, 0, math.pi)
        curv = u(rng, -1, 1) * 2e-4
        phase = (xx * math.cos(a1) + yy * math.sin(a1)) / per + curv * ((xx - wu / 2) ** 2 + (yy - hu / 2) ** 2) / per
        amp = u(rng, 0.04, 0.09)
        img *= (1 + amp * on * np.cos(2 * math.pi * phase))[..., None]
        media["moire"] = {"period_px": round(per, 1), "amp": round(amp, 3)}

    # colour cast
    if strong and rng.random() < 0.6:
        gains = rng.uniform(0.85, 1.12, 3)
    else:
        gains = rng.uniform(0.96, 1.04, 3)
    img *= gains[None, None, :].astype(np.float32)
    cam_fx["channel_gains_rgb"] = [round(float(g), 3) for g in gains]

    # blur
    em_px = sigma
    if strong and rng.random() < 0.5:
        if rng.random() < 0.5:
            sb = min(1.8, u(rng, 0.5, 1.0) * em_px / 45)
            img = cv2.GaussianBlur(img, (0, 0), sb)
            cam_fx["defocus_sigma_px"] = round(sb, 2)
        else:
            ln = int(max(3, min(0.12 * em_px, u(rng, 3, 9))))
            kern = np.zeros((ln, ln), np.float32)
            kern[ln // 2, :] = 1.0 / ln
            rot = cv2.getRotationMatrix2D((ln / 2 - 0.5, ln / 2 - 0.5), u(rng, 0, 180), 1.0)
            kern = cv2.warpAffine(kern, rot, (ln, ln))
            kern /= kern.sum()
            img = cv2.filter2D(img, -1, kern)
            cam_fx["motion_blur_px"] = ln
    elif rng.random() < 0.25:
        sb = u(rng, 0.3, 0.7)
        img = cv2.GaussianBlur(img, (0, 0), sb)
        cam_fx["defocus_sigma_px"] = round(sb, 2)

    # exposure and noise
    if strong and rng.random() < 0.3:
        dark = u(rng, 0.3, 0.5)
        img = img * dark + rng.normal(0, u(rng, 2.5, 5.0), img.shape).astype(np.float32)
        img = img / dark * u(rng, 0.78, 0.92)
        cam_fx["low_light"] = round(dark, 3)
    else:
        img += rng.normal(0, u(rng, 1.0, 3.0), img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        sharp = cv2.GaussianBlur(img, (0, 0), 1.5)
        img = cv2.addWeighted(img, 1.5, sharp, -0.5, 0)
        cam_fx["sharpened"] = True
    if strong and rng.random() < 0.3:
        q0 = int(rng.integers(14, 30))
        ok, buf = cv2.imencode(".jpg", img[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, q0])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)[:, :, ::-1]
        cam_fx["jpeg_blockiness_quality"] = q0

    # orientation and file
    img = np.ascontiguousarray(np.rot90(img, k_rot))
    quality = int(rng.integers(45, 93))
    qid = f"p{i:03d}"
    cv2.imwrite(os.path.join(out_dir, qid + ".jpg"), img[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])

    # ---- meta
    t = page.target
    t_quad = rotate_points(cam.project([(t.core_box[0], t.core_box[1]), (t.core_box[2], t.core_box[1]),
                                        (t.core_box[2], t.core_box[3]), (t.core_box[0], t.core_box[3])]),
                           k_rot, wu, hu)
    t_per = rotate_points(t_poly, k_rot, wu, hu)
    text_pts = np.concatenate([cam.project(box_perimeter(b, 6)) for b in t.truth_lines])
    text_pts = rotate_points(text_pts, k_rot, wu, hu)
    neighbours = []
    tcx, tcy = box_center(t.core_box)
    for b in page.problems:
        if b is t:
            continue
        bx, by = box_center(b.core_box)
        if b.col != t.col:
            pos = "left" if bx < tcx else "right"
        else:
            pos = "above" if by < tcy else "below"
        vf = visible_fraction(cam, b.core_box, wu, hu)
        neighbours.append({"id": b.item_id, "number": b.number, "position": pos,
                           "visible_fraction": round(vf, 3), "visible": vf > 0})
    full, part = count_visible(cam, page)
    return {
        "qid": qid, "index": i, "rng": [seed, i], "target_id": target["id"],
        "kinds": {"primary": primary, "all": [k for k in KINDS if k in kinds], "dropped": dropped},
        "photo": {"width": w, "height": h, "jpeg_quality": quality, "upright_width": wu,
                  "upright_height": hu, "rotated_ccw_deg": 90 * k_rot,
                  "to_upright_rotate_cw_deg": 90 * k_rot},
        "target": {"number": t.number, "label": choose_number_label(st["num_style"], t.number),
                   "bbox": bbox_of(t_per), "quad": [[round(float(a), 1), round(float(b), 1)] for a, b in t_quad],
                   "text_bbox": bbox_of(text_pts), "lines": len(t.truth_lines),
                   "center_offset": res["center_offset"], "min_glyph_px": res["min_glyph_px"],
                   "dist_ratio_to_nearest_other": res["dist_ratio"], "extras": t.info},
        "framing": dict(plan, visible_problems=full, partly_visible_problems=part,
                        occluder=occ_info),
        "neighbours": neighbours,
        "layout": dict(style_meta(st), page_em=[round(page.w, 2), round(page.h, 2)], **page.info),
        "marks": marks,
        "camera": dict(cam.params(), raster_px_per_em=round(e, 2), **cam_fx),
        "render": {"paper": paper, "paper_color": [round(float(v), 1) for v in rp["paper_color"]],
                   "ink": list(rp["ink"]), "paper_mottle": round(rp["paper_mottle"], 2),
                   "grid_em": round(rp.get("grid_em", 0.0), 3) or None,
                   "crop_em": [round(v, 2) for v in crop], "occluder_wanted": occluder_wanted},
        "media": media,
    }


def _timed(task):
    t0 = time.time()
    m = make_photo(task)
    return m, time.time() - t0


# --------------------------------------------------------------------------
# Glyph coverage check, outputs, command line
# --------------------------------------------------------------------------
def verify_glyphs(bank: list[dict]) -> int:
    """Every bank character must map to a font that has it and draws ink."""
    pairs = set()
    for cjk in CJK_FAMILIES:
        for lat in LATIN_FAMILIES:
            fs = make_fontset(cjk, lat)
            for sym in (True, False):
                fs.symbols_cjk = sym
                for it in bank:
                    for sup in (False, True):
                        for ivars in (False, True):
                            for c in make_chars(it["question"], fs, truth=True, sup_mode=sup,
                                                italic_vars=ivars):
                                if not c.space:
                                    pairs.add((c.font, c.ch))
    for key, ch in sorted(pairs):
        if ord(ch) not in font_cmap(key):
            raise SystemExit(f"font {key} lacks {ch!r}")
        f = pil_font(key, 48)
        im = Image.new("L", (120, 120), 0)
        ImageDraw.Draw(im).text((20, 80), ch, font=f, fill=255, anchor="ls")
        if np.asarray(im).max() < 128:
            raise SystemExit(f"font {key} draws no ink for {ch!r}")
    return len(pairs)


def load_bank(path: str) -> list[dict]:
    bank = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                d = json.loads(line)
                bank.append({"id": d["id"], "question": d["question"]})
    return bank


def write_tables(out_dir: str, bank: list[dict], seed: int, count: int) -> None:
    order = target_order(seed, len(bank))
    rows = []
    for i in range(1, count + 1):
        it = bank[int(order[(i - 1) % len(bank)])]
        rows.append((f"p{i:03d}", it))
    with open(os.path.join(out_dir, "truth.csv"), "w", newline="", encoding="utf-8") as fh:
        wr = csv.writer(fh, quoting=csv.QUOTE_MINIMAL)
        wr.writerow(["qid", "text"])
        for qid, it in rows:
            wr.writerow([qid, it["question"]])
    with open(os.path.join(out_dir, "queries.csv"), "w", newline="", encoding="utf-8") as fh:
        wr = csv.writer(fh, quoting=csv.QUOTE_MINIMAL)
        wr.writerow(["qid", "query", "expected_id", "kind"])
        for qid, it in rows:
            wr.writerow([qid, it["question"], it["id"], "exact"])


def summary(out_dir: str) -> None:
    metas = [json.loads(x) for x in open(os.path.join(out_dir, "meta.jsonl"), encoding="utf-8") if x.strip()]
    n = len(metas)
    print(f"{n} photos in {out_dir}")
    print(f"{'kind':<12} {'primary':>8} {'present':>8}")
    for k in KINDS:
        p = sum(m["kinds"]["primary"] == k for m in metas) / n
        a = sum(k in m["kinds"]["all"] for m in metas) / n
        print(f"{k:<12} {p:>8.1%} {a:>8.1%}")

    def share(label, values):
        cnt: dict = {}
        for v in values:
            cnt[v] = cnt.get(v, 0) + 1
        print(f"{label}: " + ", ".join(f"{k}={v / n:.0%}" for k, v in sorted(cnt.items(), key=lambda kv: -kv[1])))
    share("framing", [m["framing"]["mode"] for m in metas])
    share("size", [f"{m['photo']['width']}x{m['photo']['height']}" for m in metas])
    share("rotation", [m["photo"]["rotated_ccw_deg"] for m in metas])
    share("numbering", [m["layout"]["num_style"] for m in metas])
    share("media", [m["media"].get("effect", "plain") for m in metas])
    share("columns", [m["layout"]["columns"] for m in metas])
    g = [m["target"]["min_glyph_px"] for m in metas]
    off = [max(abs(v) for v in m["target"]["center_offset"]) for m in metas]
    print(f"min glyph px: min {min(g):.1f}, median {sorted(g)[n // 2]:.1f}; "
          f"max centre offset {max(off):.3f}; visible problems (wide) "
          f"{sorted(m['framing']['visible_problems'] for m in metas if m['framing']['mode'] == 'wide')}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir", nargs="?")
    ap.add_argument("--bank", help="question bank (JSON lines with id and question)")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=97)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--only", help="comma-separated photo numbers to remake, e.g. 3,17")
    ap.add_argument("--summary", metavar="OUT_DIR", help="print the share of each case kind and exit")
    a = ap.parse_args(argv)
    if a.summary:
        summary(a.summary)
        return 0
    if not a.bank or not a.out_dir:
        ap.error("--bank and OUT_DIR are required")
    bank = load_bank(a.bank)
    os.makedirs(a.out_dir, exist_ok=True)
    t0 = time.time()
    n_pairs = verify_glyphs(bank)
    print(f"glyph check: {n_pairs} (font, character) pairs OK in {time.time() - t0:.1f}s")
    idx = list(range(1, a.count + 1))
    if a.only:
        idx = sorted({int(x) for x in a.only.split(",") if x.strip()})
        bad = [i for i in idx if not 1 <= i <= a.count]
        if bad:
            ap.error(f"--only numbers outside 1..{a.count}: {bad}")
    tasks = [(i, a.seed, bank, a.out_dir) for i in idx]
    t1 = time.time()
    metas: dict = {}
    pool = Pool(a.workers) if a.workers > 1 else None
    results = pool.imap_unordered(_timed, tasks) if pool else map(_timed, tasks)
    for m, sec in results:
        metas[m["qid"]] = m
        print(f"{m['qid']} {m['target_id']:<15} {m['kinds']['primary']:<11} {sec:.1f}s", flush=True)
    if pool:
        pool.close()
        pool.join()
    meta_path = os.path.join(a.out_dir, "meta.jsonl")
    if a.only and os.path.exists(meta_path):
        old = {}
        for line in open(meta_path, encoding="utf-8"):
            if line.strip():
                d = json.loads(line)
                old[d["qid"]] = d
        old.update(metas)
        metas = old
    with open(meta_path, "w", encoding="utf-8") as fh:
        for qid in sorted(metas):
            fh.write(json.dumps(metas[qid], ensure_ascii=False) + "\n")
    write_tables(a.out_dir, bank, a.seed, a.count)
    dt = time.time() - t1
    print(f"made {len(idx)} photos in {dt:.1f}s with {a.workers} worker(s) "
          f"({dt / max(1, len(idx)):.2f}s per photo wall time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
