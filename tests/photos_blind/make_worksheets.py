#!/usr/bin/env python3
"""Blind photo test-set generator: phone photos of printed worksheets.

Written from the question bank file alone (no knowledge of the system under
test).  Each photo frames one bank problem near the image centre of a
synthetic worksheet page; neighbouring problems, headers, teacher marks,
fingers/pens and camera effects are added around it.

Usage:
    python make_worksheets.py --bank PATH/demo_bank.jsonl OUT_DIR [--count 100] [--seed 11]

Outputs in OUT_DIR: w001.jpg ..., truth.csv (qid,text), queries.csv
(qid,query,expected_id,kind).  Requires numpy, Pillow, opencv-python-headless.
"""
import argparse
import csv
import glob
import json
import math
import os
import random
import re
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# --------------------------------------------------------------------------
# Fonts
# --------------------------------------------------------------------------
NOTO_DIR = "/usr/share/fonts/opentype/noto"
LATIN_CANDIDATES = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Regular.ttf",
]
LATIN_BOLD = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf",
]
HAND_FONTS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Italic.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf",
]


def _ttc_index(path, want, avoid=("Mono",)):
    for i in range(16):
        try:
            name = ImageFont.truetype(path, 12, index=i).getname()[0]
        except Exception:
            break
        if want in name and not any(a in name for a in avoid):
            return i
    return 0


@lru_cache(None)
def font_pool():
    """Return dict with lists of (label, path, index) font specs."""
    cjk, cjk_bold = [], []
    specs = [
        ("NotoSansCJK-Regular.ttc", "Noto Sans CJK SC", False, ("Mono",)),
        ("NotoSerifCJK-Regular.ttc", "Noto Serif CJK SC", False, ("Mono",)),
        ("NotoSansCJK-Regular.ttc", "Noto Sans Mono CJK SC", False, ()),
        ("NotoSansCJK-Bold.ttc", "Noto Sans CJK SC", True, ("Mono",)),
        ("NotoSerifCJK-Bold.ttc", "Noto Serif CJK SC", True, ("Mono",)),
    ]
    for fname, want, bold, avoid in specs:
        p = os.path.join(NOTO_DIR, fname)
        if os.path.exists(p):
            spec = (want + (" Bold" if bold else ""), p, _ttc_index(p, want, avoid))
            (cjk_bold if bold else cjk).append(spec)
    # any other Chinese-capable font on the system (wqy, arphic, ...)
    try:
        out = subprocess.run(["fc-list", "-f", "%{file}|%{index}|%{family}\n", ":lang=zh"],
                             capture_output=True, text=True, timeout=20).stdout
    except Exception:
        out = ""
    seen = set()
    for line in sorted(out.splitlines()):
        parts = line.split("|")
        if len(parts) < 3:
            continue
        path, idx, fam = parts[0], parts[1], parts[2].split(",")[0]
        base = os.path.basename(path)
        if base.startswith(("NotoSansCJK", "NotoSerifCJK", "NotoColorEmoji")):
            continue
        if re.search(r"\b(TW|HK|JP|KR|TC|MO|Mono)\b", fam) or (path, idx) in seen:
            continue
        seen.add((path, idx))
        try:
            ImageFont.truetype(path, 20, index=int(idx or 0))
        except Exception:
            continue
        cjk.append((fam, path, int(idx or 0)))
    latin = [("%s" % os.path.basename(p)[:-4], p, 0) for p in LATIN_CANDIDATES if os.path.exists(p)]
    latin_bold = [(os.path.basename(p)[:-4], p, 0) for p in LATIN_BOLD if os.path.exists(p)]
    hand = [(os.path.basename(p)[:-4], p, 0) for p in HAND_FONTS if os.path.exists(p)]
    if not cjk:
        sys.exit("no CJK font found (need Noto CJK in %s or a fc-list :lang=zh font)" % NOTO_DIR)
    if not latin:
        latin = [cjk[0]]
    return {"cjk": cjk, "cjk_bold": cjk_bold or cjk[:1], "latin": latin,
            "latin_bold": latin_bold or latin[:1], "hand": hand or latin[:1]}


@lru_cache(None)
def get_font(path, index, size):
    return ImageFont.truetype(path, int(size), index=index)


_NOTDEF = {}


def _sig(f, ch):
    m = f.getmask(ch)
    return (m.size, bytes(m))


@lru_cache(None)
def has_glyph(path, index, ch):
    if ch.isspace():
        return True
    f = get_font(path, index, 28)
    key = (path, index)
    if key not in _NOTDEF:
        _NOTDEF[key] = _sig(f, "\U0010FFFD")
    return _sig(f, ch) != _NOTDEF[key]


# --------------------------------------------------------------------------
# Rich text: superscripts, subscripts, blanks; tokenising and wrapping
# --------------------------------------------------------------------------
SUP = {"²": "2", "³": "3", "¹": "1", "⁰": "0", "⁴": "4", "⁵": "5", "⁶": "6",
       "⁷": "7", "⁸": "8", "⁹": "9", "⁻": "-", "⁺": "+", "ⁿ": "n"}
SUB = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6",
       "₇": "7", "₈": "8", "₉": "9", "ₙ": "n", "ₘ": "m", "ₓ": "x", "₊": "+", "₋": "-"}
NO_START = set("，。、；：？！）》」』”’,.;:?!)]}%℃°…")
NO_END = set("（《「『“‘([{")


def is_cjk(ch):
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x3000 <= o <= 0x303F
            or 0xFF00 <= o <= 0xFFEF or o in (0x2018, 0x2019, 0x201C, 0x201D, 0x2026, 0x2014)
            or 0x2460 <= o <= 0x24FF)


def is_ideo(ch):
    o = ord(ch)
    return 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF


class Typesetter:
    """Measures and lays out rich text with per-character font fallback."""

    def __init__(self, F, cjk_chain, latin_chain, blank_em=3.5):
        self.F = F
        self.cjk_chain = cjk_chain
        self.latin_chain = latin_chain
        self.blank_em = blank_em

    def pick(self, ch, size):
        chain = self.cjk_chain if is_cjk(ch) else self.latin_chain
        for spec in chain + self.cjk_chain + self.latin_chain:
            if has_glyph(spec[1], spec[2], ch):
                return get_font(spec[1], spec[2], size)
        return get_font(chain[0][1], chain[0][2], size)

    def items(self, text):
        """text -> list of items (kind, char, font, width, dy)."""
        F = self.F
        small = max(8, int(round(F * 0.62)))
        out = []
        i = 0
        while i < len(text):
            ch = text[i]
            if ch == "_":
                j = i
                while j < len(text) and text[j] == "_":
                    j += 1
                n = j - i
                w = F * max(1.5, self.blank_em * (n / 3.0) ** 0.5) if n >= 2 else F * 0.5
                out.append(("blank", "_" * n, None, w, 0.0))
                i = j
                continue
            if ch in SUP:
                f = self.pick(SUP[ch], small)
                out.append(("sup", SUP[ch], f, f.getlength(SUP[ch]) + F * 0.03, -0.40 * F))
            elif ch in SUB:
                f = self.pick(SUB[ch], small)
                out.append(("sub", SUB[ch], f, f.getlength(SUB[ch]) + F * 0.03, 0.16 * F))
            elif ch.isspace():
                f = self.pick(" ", F)
                out.append(("space", " ", f, max(f.getlength(" "), 0.25 * F), 0.0))
            else:
                f = self.pick(ch, F)
                out.append(("n", ch, f, f.getlength(ch), 0.0))
            i += 1
        return out

    def tokens(self, items):
        toks = []  # list of [items, is_space]
        cur = []

        def flush():
            if cur:
                toks.append([list(cur), False])
                cur.clear()
        for it in items:
            kind, ch = it[0], it[1]
            if kind == "space":
                flush()
                toks.append([[it], True])
            elif kind == "blank" or (kind == "n" and (is_ideo(ch) or is_cjk(ch))):
                flush()
                toks.append([[it], False])
            else:
                cur.append(it)
        flush()
        # kinsoku: closing punctuation sticks to the previous token,
        # opening punctuation sticks to the next one
        merged = []
        for t in toks:
            if (merged and not t[1] and not merged[-1][1] and t[0][0][0] == "n"
                    and t[0][0][1] in NO_START):
                merged[-1][0].extend(t[0])
            else:
                merged.append(t)
        out = []
        i = 0
        while i < len(merged):
            t = merged[i]
            while (not t[1] and t[0][-1][0] == "n" and t[0][-1][1] in NO_END
                   and i + 1 < len(merged) and not merged[i + 1][1]):
                t = [t[0] + merged[i + 1][0], False]
                i += 1
            out.append(t)
            i += 1
        return out

    def wrap(self, text, first_width, rest_width):
        """Return list of lines; each line is a list of (x, item)."""
        toks = self.tokens(self.items(text))
        lines, line, x = [], [], 0.0
        limit = first_width

        def end_line():
            nonlocal line, x, limit
            while line and line[-1][1][0] == "space":
                line.pop()
            lines.append(line)
            line, x = [], 0.0
            limit = rest_width
        for items, is_space in toks:
            w = sum(it[3] for it in items)
            if is_space:
                if line:
                    line.append((x, items[0]))
                    x += w
                continue
            if line and x + w > limit:
                end_line()
            if not line and w > limit:  # hard break inside an over-long token
                for it in items:
                    if line and x + it[3] > limit:
                        end_line()
                    line.append((x, it))
                    x += it[3]
                continue
            for it in items:
                line.append((x, it))
                x += it[3]
        if line or not lines:
            end_line()
        return lines

    def line_width(self, line):
        if not line:
            return 0.0
        x, it = line[-1]
        return x + it[3]

    def draw_line(self, draw, line, x0, baseline, fill=255):
        F = self.F
        for x, it in line:
            kind = it[0]
            if kind == "space":
                continue
            if kind == "blank":
                th = max(2, int(round(F / 17)))
                y = int(round(baseline + 0.14 * F))
                draw.rectangle([x0 + x + 0.08 * F, y, x0 + x + it[3] - 0.08 * F, y + th - 1], fill=fill)
                continue
            draw.text((x0 + x, baseline + it[4]), it[1], font=it[2], fill=fill, anchor="ls")


# --------------------------------------------------------------------------
# Page content
# --------------------------------------------------------------------------
CN_NUM = "一二三四五六七八九十"


def label_text(style, n):
    if style == "dot_fw":
        return "%d．" % n
    if style == "dot":
        return "%d. " % n
    if style == "paren_fw":
        return "（%d）" % n
    if style == "paren":
        return "(%d) " % n
    if style == "circled":
        return chr(0x2460 + n - 1) + " "
    if style == "question":
        return "Question %d. " % n
    if style == "ti":
        return "第%d题 " % n
    return "%d." % n


def header_lines(rng, latin_page):
    """Return list of (text, kind) where kind in title/name/section."""
    if latin_page:
        opts = [
            [("Homework %d" % rng.randint(1, 12), "title")],
            [("Unit %d  Exercise %s" % (rng.randint(1, 8), rng.choice("ABC")), "title")],
            [("Name: ______   Class: ______", "name")],
            [("Homework %d" % rng.randint(1, 12), "title"), ("Name: ______   Class: ______   Score: ______", "name")],
            [("Part %s  Answer the questions. (%d points each)" % (rng.choice("ABC"), rng.choice([2, 3, 5])), "section")],
        ]
    else:
        u, k = rng.randint(0, 7), rng.randint(0, 3)
        opts = [
            [("第%s单元 练习（%s）" % (CN_NUM[u], CN_NUM[k]), "title")],
            [("第%s题（%d分）" % (CN_NUM[rng.randint(0, 4)], rng.choice([5, 10, 12, 15])), "section")],
            [("姓名：______  班级：______", "name")],
            [("第%s单元 练习（%s）" % (CN_NUM[u], CN_NUM[k]), "title"), ("姓名：______  班级：______  学号：____", "name")],
            [("%s、解答题（每小题%d分）" % (CN_NUM[rng.randint(0, 3)], rng.choice([3, 4, 5, 6])), "section")],
            [("Homework %d" % rng.randint(1, 12), "title")],
            [("课时作业（%s）" % CN_NUM[rng.randint(0, 9)], "title"), ("姓名：______  班级：______", "name")],
        ]
    return rng.choice(opts)


def is_latin_only(q):
    return not any(is_cjk(c) for c in q)


def choose_neighbours(rng, bank, target, n):
    latin_t = is_latin_only(target["question"])
    pool_same = [r for r in bank if r["id"] != target["id"] and r["subject"] == target["subject"]]
    pool_lat = [r for r in bank if r["id"] != target["id"] and is_latin_only(r["question"])]
    pool_all = [r for r in bank if r["id"] != target["id"]]
    out, used = [], {target["id"]}
    for _ in range(n):
        for _try in range(20):
            u = rng.random()
            if latin_t and u < 0.75:
                pool = pool_lat
            elif u < 0.6:
                pool = pool_same
            else:
                pool = pool_all
            r = rng.choice(pool or pool_all)
            if r["id"] not in used:
                break
        used.add(r["id"])
        out.append(r)
    return out


class Page:
    pass


def hand_stroke(pts, rng, jitter):
    pts = np.array(pts, dtype=np.float64)
    out = []
    for a, b in zip(pts[:-1], pts[1:]):
        n = max(4, int(np.linalg.norm(b - a) / 6))
        for t in np.linspace(0, 1, n, endpoint=False):
            out.append(a + (b - a) * t)
    out.append(pts[-1])
    out = np.array(out)
    noise = np.cumsum(np.array([[rng.gauss(0, jitter), rng.gauss(0, jitter)] for _ in out]), axis=0)
    noise -= np.linspace(0, 1, len(out))[:, None] * noise[-1]
    return out + noise * 0.5


def draw_marks(red, rng, kind, cx, cy, size, fonts):
    """Teacher marks on the red layer (uint8 array, page resolution)."""
    th = max(2, int(size / 11))
    if kind == "tick":
        pts = [(cx - 0.5 * size, cy), (cx - 0.15 * size, cy + 0.4 * size), (cx + 0.55 * size, cy - 0.55 * size)]
        p = hand_stroke(pts, rng, size * 0.01)
        cv2.polylines(red, [np.round(p * 4).astype(np.int32)], False, 255, th, cv2.LINE_AA, shift=2)
    elif kind == "cross":
        for a, b in [((-0.45, -0.45), (0.45, 0.45)), ((0.45, -0.45), (-0.45, 0.45))]:
            pts = [(cx + a[0] * size, cy + a[1] * size), (cx + b[0] * size, cy + b[1] * size)]
            p = hand_stroke(pts, rng, size * 0.01)
            cv2.polylines(red, [np.round(p * 4).astype(np.int32)], False, 255, th, cv2.LINE_AA, shift=2)
    elif kind == "circled":
        txt = rng.choice(["5", "4", "3", "8", "10", "-2", "-1", "6"])
        hspec = rng.choice(fonts["hand"])
        fs = int(size * (0.75 if len(txt) == 1 else 0.6))
        f = get_font(hspec[1], hspec[2], fs)
        im = Image.new("L", (int(size * 2), int(size * 2)), 0)
        ImageDraw.Draw(im).text((size, size), txt, font=f, fill=255, anchor="mm")
        arr = np.asarray(im)
        x0, y0 = int(cx - size), int(cy - size)
        h, w = arr.shape
        ax0, ay0 = max(0, -x0), max(0, -y0)
        ax1, ay1 = min(w, red.shape[1] - x0), min(h, red.shape[0] - y0)
        if ax1 > ax0 and ay1 > ay0:
            dst = red[y0 + ay0:y0 + ay1, x0 + ax0:x0 + ax1]
            dst[:] = np.maximum(dst, arr[ay0:ay1, ax0:ax1])
        r = size * 0.62
        a0 = rng.uniform(0, 2 * math.pi)
        ts = np.linspace(a0, a0 + 2 * math.pi * rng.uniform(1.05, 1.2), 60)
        rr = r * (1 + 0.06 * np.sin(ts * 2 + rng.uniform(0, 6))) * np.linspace(1.0, 1.08, len(ts))
        p = np.stack([cx + rr * np.cos(ts) * 1.08, cy + rr * np.sin(ts)], 1)
        cv2.polylines(red, [np.round(p * 4).astype(np.int32)], False, 255, th, cv2.LINE_AA, shift=2)


def build_page(rng, target, bank, W, H, fonts):
    pg = Page()
    q = target["question"]
    latin_t = is_latin_only(q)
    latin_page = latin_t and rng.random() < 0.8
    # fonts -----------------------------------------------------------------
    cjk = fonts["cjk"]
    noto_sans = [f for f in cjk if f[0] == "Noto Sans CJK SC"] or cjk[:1]
    if latin_page and rng.random() < 0.65:
        main_latin = rng.choice(fonts["latin"])
        cjk_main = rng.choice(cjk)
        latin_chain = [main_latin]
        label_spec = rng.choice([main_latin] + fonts["latin_bold"])
        font_desc = main_latin[0]
    else:
        weights = [3 if "Bold" not in f[0] and "Mono" not in f[0] else 1 for f in cjk]
        cjk_main = rng.choices(cjk, weights=weights)[0]
        latin_chain = [cjk_main]
        if rng.random() < 0.35:
            latin_chain = [rng.choice(fonts["latin"])] + latin_chain
        label_spec = rng.choice([cjk_main] + fonts["cjk_bold"])
        font_desc = cjk_main[0] + (" + " + latin_chain[0][0] if len(latin_chain) > 1 else "")
    cjk_chain = [cjk_main] + [f for f in cjk if f != cjk_main] + noto_sans
    pg.font_desc = font_desc

    # scale ------------------------------------------------------------------
    # glyph size in the photo (Latin x-height is small, so Latin pages get larger type)
    char_px = rng.uniform(30, 40) if latin_page else rng.uniform(25, 36)
    ts_probe = Typesetter(40, cjk_chain, latin_chain)
    q_em = sum(it[3] for it in ts_probe.items(q)) / 40.0
    if latin_page and rng.random() < 0.45:
        style = "question"
    elif latin_page:
        style = rng.choice(["dot", "dot", "paren", "circled"])
    else:
        style = rng.choices(["dot_fw", "dot", "paren_fw", "circled", "ti"], [3, 3, 2, 1.5, 0.8])[0]
    ncol = 2 if rng.random() < 0.35 else 1
    label_em = 5.5 if style == "question" else (2.6 if style in ("paren_fw", "ti") else 1.6)
    score = None
    if rng.random() < (0.15 if latin_page else 0.3):
        score = "(%d points)" % rng.choice([2, 3, 5]) if latin_page else "（%d分）" % rng.choice([2, 3, 4, 5, 6, 8, 10])
        label_em += 4.5 if latin_page else 3.5
    max_lines = rng.choice([3, 4, 5])
    cpl_min = max(11.0, label_em + 5, q_em / max_lines + label_em * 0.5)
    cpl_fit = 0.80 * W / char_px
    if cpl_fit < cpl_min:
        char_px = max(19.0, 0.80 * W / cpl_min)
        cpl_fit = 0.80 * W / char_px
    if ncol == 1:
        lo, hi = max(cpl_min, 0.72 * cpl_fit), cpl_fit
    else:
        lo, hi = max(cpl_min, 0.42 * cpl_fit), max(cpl_min, 0.62 * cpl_fit)
    cpl = rng.uniform(lo, max(lo, hi))
    F = int(round(char_px * rng.uniform(1.25, 1.6)))
    F = max(28, min(F, 56))
    s = char_px / F
    ts = Typesetter(F, cjk_chain, latin_chain, blank_em=rng.uniform(2.5, 4.5))
    lab_ts = Typesetter(F, [label_spec] + cjk_chain, [label_spec] + latin_chain)
    pg.F, pg.s = F, s

    col_w = cpl * F
    ml = rng.uniform(2.6, 5.0) * F
    mr = rng.uniform(2.0, 4.5) * F
    gutter = rng.uniform(2.6, 4.0) * F
    mt = rng.uniform(1.5, 4.0) * F
    page_w = int(ml + ncol * col_w + (ncol - 1) * gutter + mr)
    ls = rng.uniform(1.35, 1.75)
    hanging = rng.random() < (0.2 if style == "question" or score else 0.65)

    # content ----------------------------------------------------------------
    if ncol == 1:
        nb = rng.randint(3, 7)
        cols_n = [nb]
    else:
        cols_n = [rng.randint(3, 6), rng.randint(3, 6)]
    total = sum(cols_n)
    tcol = rng.randrange(ncol)
    u = rng.random()
    if u < 0.15:
        tpos = 0
    elif u < 0.3:
        tpos = cols_n[tcol] - 1
    else:
        tpos = rng.randint(0, cols_n[tcol] - 1)
        if cols_n[tcol] >= 3:
            tpos = rng.randint(1, cols_n[tcol] - 2)
    tglobal = sum(cols_n[:tcol]) + tpos
    neigh = choose_neighbours(rng, bank, target, total - 1)
    rows = neigh[:tglobal] + [target] + neigh[tglobal:]
    nmax = 20 if style == "circled" else 30
    n0 = rng.randint(1, max(1, nmax - total + 1))

    draw_layers = []  # deferred draw ops on coverage layer

    # header
    y = mt
    header_bottom = y
    hdr = header_lines(rng, latin_page) if rng.random() < 0.55 else []
    hdr_ops = []
    content_w = page_w - ml - mr
    for text, kind in hdr:
        if kind == "title":
            hF = int(F * rng.uniform(1.1, 1.35))
            spec = rng.choice(fonts["latin_bold"] if is_latin_only(text) else fonts["cjk_bold"])
        else:
            hF = int(F * rng.uniform(0.85, 1.0))
            spec = rng.choice(fonts["latin"] if is_latin_only(text) else [cjk_main])
        hts = Typesetter(hF, [spec] + cjk_chain, [spec] + latin_chain, blank_em=4.0)
        line = hts.wrap(text, 10 ** 6, 10 ** 6)[0]
        w = hts.line_width(line)
        x = ml + (content_w - w) / 2 if (kind == "title" or rng.random() < 0.5) else ml
        base = y + 0.95 * hF
        hdr_ops.append((hts, line, x, base))
        y = base + 0.6 * hF
    if hdr:
        y += rng.uniform(0.4, 1.2) * F
        header_bottom = y
        pg.header_rule = rng.random() < 0.6
        if pg.header_rule:
            y += 0.5 * F
    else:
        pg.header_rule = False

    blocks = []
    num = n0
    k = 0
    for c in range(ncol):
        x0 = ml + c * (col_w + gutter)
        yc = y
        for j in range(cols_n[c]):
            row = rows[k]
            lab = label_text(style, num)
            lab_line = lab_ts.wrap(lab.strip(), 10 ** 6, 10 ** 6)[0]
            lab_w = lab_ts.line_width(lab_line) + (F * 0.3 if lab.endswith(" ") else 0.0)
            sc_w = 0
            sc_line = None
            if score:
                sc_line = ts.wrap(score, 10 ** 6, 10 ** 6)[0]
                sc_w = ts.line_width(sc_line) + (0.2 * F if latin_page else 0)
            if style in ("dot_fw", "paren_fw") and not score:
                lab_w += 0.05 * F
            text_x = lab_w + sc_w
            indent = text_x if (hanging and text_x < 4.2 * F) else (0.0 if style != "question" else 1.0 * F)
            lines = ts.wrap(row["question"], col_w - text_x, col_w - indent)
            base0 = yc + 0.92 * F
            lh = ls * F
            top = base0 - 0.95 * F
            bottom = base0 + (len(lines) - 1) * lh + 0.3 * F
            right = x0 + max([text_x + ts.line_width(lines[0])] +
                             [indent + ts.line_width(l) for l in lines[1:]])
            b = dict(row=row, x0=x0, top=top, bottom=bottom, right=right, lab=lab, lab_w=lab_w, lab_line=lab_line,
                     sc_line=sc_line, text_x=text_x, indent=indent, lines=lines, base0=base0,
                     lh=lh, col=c, col_right=x0 + col_w, is_target=(k == tglobal),
                     last_end=x0 + (text_x if len(lines) == 1 else indent) + ts.line_width(lines[-1]),
                     last_base=base0 + (len(lines) - 1) * lh)
            blocks.append(b)
            gap = rng.uniform(0.5, 2.0) * F
            if rng.random() < 0.2:
                gap += rng.uniform(1.5, 4.0) * F  # answer space
            yc = bottom + gap
            num += 1
            k += 1
        draw_layers.append(yc)
    content_bottom = max(draw_layers)
    page_h = int(content_bottom + rng.uniform(1.5, 8.0) * F)
    if rng.random() < 0.7:  # most sheets are A4-shaped and continue beyond the content
        page_h = max(page_h, int(page_w * rng.uniform(1.25, 1.45)))

    # render coverage layer (ink) and red layer (teacher marks) -------------
    cov_im = Image.new("L", (page_w, page_h), 0)
    d = ImageDraw.Draw(cov_im)
    for hts, line, x, base in hdr_ops:
        hts.draw_line(d, line, x, base)
    if pg.header_rule:
        lw = max(1, F // 16)
        d.rectangle([ml, header_bottom, page_w - mr, header_bottom + lw], fill=200)
    if ncol == 2 and rng.random() < 0.5:
        gx = ml + col_w + gutter / 2
        d.rectangle([gx, y, gx + max(1, F // 20), content_bottom], fill=170)
    if rng.random() < 0.15:
        m = 0.8 * F
        d.rectangle([ml - m, mt - m, page_w - mr + m, content_bottom + 0.5 * F], outline=200,
                    width=max(1, F // 18))
    for b in blocks:
        lab_ts.draw_line(d, b["lab_line"], b["x0"], b["base0"])
        if b["sc_line"]:
            ts.draw_line(d, b["sc_line"], b["x0"] + b["lab_w"], b["base0"])
        for li, line in enumerate(b["lines"]):
            xs = b["x0"] + (b["text_x"] if li == 0 else b["indent"])
            ts.draw_line(d, line, xs, b["base0"] + li * b["lh"])
    cov = np.asarray(cov_im)
    red = np.zeros((page_h, page_w), np.uint8)

    # teacher marks: near the target and sometimes next to neighbours
    marks = []
    tb = [b for b in blocks if b["is_target"]][0]
    for b in blocks:
        p = 0.45 if b["is_target"] else 0.2
        if rng.random() >= p:
            continue
        kind = rng.choices(["tick", "cross", "circled"], [4, 2, 3])[0]
        size = 1.5 * F
        right_room = b["col_right"] + (mr if b["col"] == ncol - 1 else gutter * 0.5) - b["last_end"]
        left_room = (ml if b["col"] == 0 else gutter * 0.5)
        lsize = min(size, (left_room - 0.4 * F) / 1.5)
        if right_room > 0.8 * F + 1.45 * size and (rng.random() < 0.6 or lsize < 0.9 * F):
            cx = b["last_end"] + 0.7 * F + size * 0.6
            cy = b["last_base"] - 0.35 * F
        elif lsize >= 0.9 * F:
            size = lsize
            cx = b["x0"] - 0.3 * F - size * 0.75
            cy = b["top"] + min(b["bottom"] - b["top"], 1.2 * F) / 2
        else:
            continue
        draw_marks(red, rng, kind, cx, cy, size, fonts)
        marks.append(kind)

    pg.cov, pg.red = cov, red
    pg.w, pg.h = page_w, page_h
    pg.blocks = blocks
    pg.target = tb
    pg.style, pg.ncol, pg.header = style, ncol, [h[0] for h in hdr]
    pg.score = score
    pg.marks = marks
    pg.nlines = len(tb["lines"])
    pg.latin_page = latin_page
    return pg


# --------------------------------------------------------------------------
# Camera
# --------------------------------------------------------------------------
def tmat(tx, ty):
    return np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]], np.float64)


def apply_h(Hm, pts):
    pts = np.asarray(pts, np.float64)
    ph = np.c_[pts, np.ones(len(pts))] @ Hm.T
    return ph[:, :2] / ph[:, 2:3]


def block_quad(b, pad):
    return np.array([[b["x0"] - pad, b["top"] - pad], [b["right"] + pad, b["top"] - pad],
                     [b["right"] + pad, b["bottom"] + pad], [b["x0"] - pad, b["bottom"] + pad]])


def camera_homography(rng, pg, W, H, upside):
    tb = pg.target
    cx = (tb["x0"] + tb["right"]) / 2
    cy = (tb["top"] + tb["bottom"]) / 2
    theta = math.radians((180.0 if upside else 0.0) + max(-8, min(8, rng.gauss(0, 3.8))))
    persp = rng.uniform(0.0, 0.065)
    jx = rng.uniform(-0.035, 0.035) * W
    jy = rng.uniform(-0.03, 0.03) * H
    s = pg.s
    D = 0.5 * min(W, H)
    sq = np.float32([[-D, -D], [D, -D], [D, D], [-D, D]])
    dst = sq + np.float32([[rng.uniform(-1, 1) * persp * D, rng.uniform(-1, 1) * persp * D] for _ in range(4)])
    P = cv2.getPerspectiveTransform(sq, dst).astype(np.float64)
    R = np.array([[math.cos(theta), -math.sin(theta), 0], [math.sin(theta), math.cos(theta), 0], [0, 0, 1]])
    for attempt in range(14):
        S = np.diag([s, s, 1.0])
        Hm = P @ R @ S @ tmat(-cx, -cy)
        c = apply_h(Hm, [[cx, cy]])[0]
        Hm = tmat(W / 2 + jx - c[0], H / 2 + jy - c[1]) @ Hm
        q = apply_h(Hm, block_quad(tb, 0.45 * pg.F))
        margin = 16
        ok = (q[:, 0].min() >= margin and q[:, 0].max() <= W - margin and
              q[:, 1].min() >= margin and q[:, 1].max() <= H - margin)
        if ok:
            centres = []
            for b in pg.blocks:
                bc = apply_h(Hm, [[(b["x0"] + b["right"]) / 2, (b["top"] + b["bottom"]) / 2]])[0]
                centres.append(math.hypot(bc[0] - W / 2, bc[1] - H / 2))
            tdist = centres[pg.blocks.index(tb)]
            others = [dd for b, dd in zip(pg.blocks, centres) if b is not tb]
            if others and min(others) < tdist + 10:
                if jx == 0 and jy == 0:
                    return Hm, s, math.degrees(theta)  # target centred exactly; accept
                jx = jy = 0.0
                continue
            return Hm, s, math.degrees(theta)
        if attempt == 13:
            break
        s *= 0.93
        if attempt > 6:
            persp *= 0.6
            dst = sq + (dst - sq) * 0.6
            P = cv2.getPerspectiveTransform(sq, dst).astype(np.float64)
    return Hm, s, math.degrees(theta)


# --------------------------------------------------------------------------
# Photo synthesis
# --------------------------------------------------------------------------
SKIN = [(226, 180, 152), (214, 163, 128), (196, 142, 110), (238, 198, 172), (172, 120, 90), (232, 190, 160)]
DESKS = [(150, 108, 70), (118, 84, 56), (128, 128, 126), (52, 52, 56), (200, 198, 190), (70, 96, 80), (180, 160, 130)]


def smooth_noise(nrng, h, w, cell):
    small = nrng.standard_normal((max(2, h // cell + 2), max(2, w // cell + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def make_desk(rng, nrng, W, H):
    """Table surface, synthesised at half resolution."""
    w2, h2 = W // 2, H // 2
    base = np.array(rng.choice(DESKS), np.float32) * rng.uniform(0.8, 1.1)
    f = 1 + 0.05 * smooth_noise(nrng, h2, w2, 45)
    if rng.random() < 0.5:  # wood-like grain
        yy = np.arange(h2, dtype=np.float32)[:, None]
        xx = np.arange(w2, dtype=np.float32)[None, :]
        ang = rng.uniform(-0.3, 0.3)
        g = np.sin((yy * math.cos(ang) + xx * math.sin(ang)) / rng.uniform(1.3, 3)
                   + 1.2 * smooth_noise(nrng, h2, w2, 110))
        f += 0.035 * g + 0.02 * smooth_noise(nrng, h2, w2, 3)
    f = cv2.resize(f, (W, H), interpolation=cv2.INTER_LINEAR)
    return f[..., None] * base


def capsule_layer(w, h, p0, p1, r, off=(0, 0), scale=1.0):
    m = np.zeros((h, w), np.float32)
    q0 = (int(round((p0[0] - off[0]) * scale * 4)), int(round((p0[1] - off[1]) * scale * 4)))
    q1 = (int(round((p1[0] - off[0]) * scale * 4)), int(round((p1[1] - off[1]) * scale * 4)))
    cv2.line(m, q0, q1, 1.0, max(1, int(2 * r * scale)), cv2.LINE_AA, shift=2)
    return m


def roi_of(pts, pad, W, H):
    pts = np.asarray(pts, np.float64)
    x0 = int(max(0, math.floor(pts[:, 0].min() - pad)))
    y0 = int(max(0, math.floor(pts[:, 1].min() - pad)))
    x1 = int(min(W, math.ceil(pts[:, 0].max() + pad)))
    y1 = int(min(H, math.ceil(pts[:, 1].max() + pad)))
    return x0, y0, max(x0 + 1, x1), max(y0 + 1, y1)


def axis_dist(p0, p1, xx, yy):
    d = np.array(p1, np.float64) - np.array(p0, np.float64)
    L = float(np.linalg.norm(d)) + 1e-6
    nx, ny = -d[1] / L, d[0] / L
    ux, uy = d[0] / L, d[1] / L
    dist = (xx - p0[0]) * nx + (yy - p0[1]) * ny
    along = (xx - p0[0]) * ux + (yy - p0[1]) * uy
    return dist.astype(np.float32), along.astype(np.float32)


PROT_SCALE = 0.25


def place_occluder(rng, W, H, prot_small, length_rng, r, anchors=None, centre=None):
    """Pick an axis p0 (outside the frame) -> p1 (tip) that keeps clear of the
    protected area.  With anchors (points on the visible page outline) the
    occluder crosses the page edge there."""
    hs, ws = prot_small.shape
    for attempt in range(40):
        if anchors is not None and len(anchors) and attempt < 25:
            a = anchors[rng.randrange(len(anchors))]
            d = np.array(a, np.float64) - np.array(centre, np.float64)
            ang = math.atan2(d[1], d[0]) + rng.uniform(-0.35, 0.35)
            dvec = (math.cos(ang), math.sin(ang))
            ts = []
            for k, lim in ((0, W), (1, H)):
                if dvec[k] > 1e-6:
                    ts.append((lim - a[k]) / dvec[k])
                elif dvec[k] < -1e-6:
                    ts.append(-a[k] / dvec[k])
            t_exit = min(ts) if ts else 0.0
            overlap = rng.uniform(0.1, 0.9) * r
            if t_exit + overlap > length_rng[1] * 1.5:
                continue
            e = (a[0] + dvec[0] * t_exit, a[1] + dvec[1] * t_exit)
            p1 = (a[0] - dvec[0] * overlap, a[1] - dvec[1] * overlap)
            p0 = (e[0] + dvec[0] * 3 * r, e[1] + dvec[1] * 3 * r)
        else:
            side = rng.choice(["left", "right", "bottom", "top", "bottom", "right"])
            t = rng.uniform(0.08, 0.92)
            if side == "left":
                e, ang = (0, t * H), 0.0
            elif side == "right":
                e, ang = (W, t * H), math.pi
            elif side == "top":
                e, ang = (t * W, 0), math.pi / 2
            else:
                e, ang = (t * W, H), -math.pi / 2
            ang += rng.uniform(-0.6, 0.6)
            L = rng.uniform(*length_rng)
            dvec = (math.cos(ang), math.sin(ang))
            p0 = (e[0] - dvec[0] * 3 * r, e[1] - dvec[1] * 3 * r)
            p1 = (e[0] + dvec[0] * L, e[1] + dvec[1] * L)
        m = capsule_layer(ws, hs, p0, p1, r + 16, scale=PROT_SCALE)
        if (m * prot_small).max() > 0:
            continue
        return p0, p1
    return None


def add_finger(img, rng, nrng, prot_small, anchors=None, centre=None):
    H, W = img.shape[:2]
    r = rng.uniform(34, 58)
    pl = place_occluder(rng, W, H, prot_small, (0.12 * min(W, H), 0.30 * min(W, H)), r, anchors, centre)
    if pl is None:
        return False
    p0, p1 = pl
    x0, y0, x1, y1 = roi_of([p0, p1], r + 110, W, H)
    sub = img[y0:y1, x0:x1]
    h, w = sub.shape[:2]
    m = capsule_layer(w, h, p0, p1, r, off=(x0, y0))
    # cast shadow
    sh = cv2.GaussianBlur(np.roll(m, (int(rng.uniform(6, 16)), int(rng.uniform(-10, 10))), (0, 1)), (0, 0), 12)
    sub *= (1 - 0.35 * sh)[..., None]
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    dist, along = axis_dist(p0, p1, xx, yy)
    shade = 0.68 + 0.38 * np.sqrt(np.clip(1 - (dist / r) ** 2, 0, 1))
    skin = np.array(rng.choice(SKIN), np.float32) * rng.uniform(0.85, 1.05)
    layer = shade[..., None] * skin
    layer *= (1 + 0.04 * smooth_noise(nrng, h, w, 12))[..., None]
    # nail near the tip
    L = math.hypot(p1[0] - p0[0], p1[1] - p0[1])
    nail = ((along - (L - 0.85 * r)) / (0.8 * r)) ** 2 + (dist / (0.62 * r)) ** 2 < 1
    nail_col = np.minimum(skin * np.array([1.08, 1.1, 1.14], np.float32) + 12, 255)
    layer = np.where(nail[..., None], 0.5 * layer + 0.5 * nail_col * (0.8 + 0.2 * shade[..., None]), layer)
    m = cv2.GaussianBlur(m, (0, 0), 2.0)
    layer = cv2.GaussianBlur(layer, (0, 0), rng.uniform(1.5, 3.5))
    sub[:] = sub * (1 - m[..., None]) + layer * m[..., None]
    return True


def add_pen(img, rng, nrng, prot_small, anchors=None, centre=None):
    H, W = img.shape[:2]
    r = rng.uniform(9, 16)
    pl = place_occluder(rng, W, H, prot_small, (0.3 * max(W, H), 0.6 * max(W, H)), r + 3 * r, anchors, centre)
    if pl is None:
        return False
    p0, p1 = pl
    x0, y0, x1, y1 = roi_of([p0, p1], r + 70, W, H)
    sub = img[y0:y1, x0:x1]
    h, w = sub.shape[:2]
    d = np.array(p1) - np.array(p0)
    L = np.linalg.norm(d)
    u = d / L
    body_end = np.array(p1) - u * 3.2 * r
    m = capsule_layer(w, h, p0, body_end, r, off=(x0, y0))
    nvec = np.array([-u[1], u[0]])
    cone = np.array([body_end + nvec * r, body_end - nvec * r, np.array(p1)]) - np.array([x0, y0])
    cm = np.zeros((h, w), np.float32)
    cv2.fillConvexPoly(cm, np.round(cone * 4).astype(np.int32), 1.0, cv2.LINE_AA, shift=2)
    sh = cv2.GaussianBlur(np.roll(np.maximum(m, cm), (int(rng.uniform(5, 12)), int(rng.uniform(3, 10))), (0, 1)),
                          (0, 0), 6)
    sub *= (1 - 0.3 * sh)[..., None]
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    dist, along = axis_dist(p0, p1, xx, yy)
    t = dist / r
    shade = 0.55 + 0.35 * np.sqrt(np.clip(1 - t ** 2, 0, 1)) + 0.5 * np.exp(-((t + 0.35) ** 2) / 0.02)
    body = np.array(rng.choice([(30, 60, 170), (20, 20, 24), (190, 30, 40), (230, 230, 235), (40, 140, 90)]), np.float32)
    metal = np.array([175, 175, 180], np.float32)
    layer_b = np.clip(shade[..., None] * body, 0, 255)
    layer_c = np.clip(shade[..., None] * metal, 0, 255)
    sub[:] = sub * (1 - cm[..., None]) + layer_c * cm[..., None]
    sub[:] = sub * (1 - m[..., None]) + layer_b * m[..., None]
    return True


def moire_layer(rng, Hm_inv, s, W, H, xx, yy):
    """Screen sub-pixel grid seen through the camera (aliases into moire)
    plus low-frequency interference bands."""
    h = [float(t) for t in np.asarray(Hm_inv).ravel()]
    den = h[6] * xx + h[7] * yy + h[8]
    u = (h[0] * xx + h[1] * yy + h[2]) / den
    v = (h[3] * xx + h[4] * yy + h[5]) / den
    page_per_photo_px = math.sqrt(abs(h[0] * h[4] - h[1] * h[3])) / abs(h[8])
    pitch = rng.uniform(1.4, 3.2) * page_per_photo_px   # screen pixel pitch (page units)
    ph = (u / pitch) % 1.0
    rowm = np.where((v / pitch) % 1.0 < rng.uniform(0.7, 0.9), 1.0, 0.6).astype(np.float32)
    mask = np.empty((H, W, 3), np.float32)
    idx = (ph * 3).astype(np.int32)
    for c in range(3):  # stored RGB
        mask[..., c] = np.where(idx == c, 1.0, 0.3) * rowm
    mask /= mask.reshape(-1, 3).mean(0)
    a = rng.uniform(0.15, 0.3)
    m = 1 - a + a * mask
    # interference bands (curved, slightly rainbow)
    A = rng.uniform(0.08, 0.16)
    ang = rng.uniform(0, math.pi)
    period = rng.uniform(9, 40)
    curv = rng.uniform(-1, 1) * 2.5e-4
    x0, y0 = rng.uniform(0, W), rng.uniform(0, H)
    phase = 2 * math.pi * ((xx * math.cos(ang) + yy * math.sin(ang)) / period
                           + curv * ((xx - x0) ** 2 + (yy - y0) ** 2) / period)
    phase2 = 2 * math.pi * ((xx * math.cos(ang + 0.2) + yy * math.sin(ang + 0.2)) / (period * 1.07))
    for c in range(3):
        m[..., c] *= 1 + A * np.sin(phase + c * 0.9) * (0.6 + 0.4 * np.sin(phase2 * 0.05 + c))
    return m


def synth_photo(rng, nrng, pg, W, H, upside, moire, xx, yy):
    Hm, s, theta = camera_homography(rng, pg, W, H, upside)
    # scale page to photo resolution first (good antialiasing), then warp
    sw, sh = max(1, int(round(pg.w * s))), max(1, int(round(pg.h * s)))
    cov_s = cv2.resize(pg.cov, (sw, sh), interpolation=cv2.INTER_AREA)
    red_s = cv2.resize(pg.red, (sw, sh), interpolation=cv2.INTER_AREA)
    Hs = Hm @ np.diag([1 / s, 1 / s, 1.0])          # scaled page -> photo
    # only the part of the sheet that the camera sees is composed
    corners = apply_h(np.linalg.inv(Hs), [[0, 0], [W, 0], [W, H], [0, H]])
    bx0, by0 = np.floor(corners.min(0)).astype(int) - 4
    bx1, by1 = np.ceil(corners.max(0)).astype(int) + 4
    if moire:  # the document is shown on a screen that extends beyond the page
        ex = int(rng.uniform(0.15, 1.2) * max(W, H))
        ey = int(rng.uniform(0.15, 1.2) * max(W, H))
        sb = (-ex, -ey, sw + ex, sh + ey)
    else:
        sb = (0, 0, sw, sh)
    cx0, cy0 = max(bx0, sb[0]), max(by0, sb[1])
    cx1, cy1 = max(cx0 + 1, min(bx1, sb[2])), max(cy0 + 1, min(by1, sb[3]))
    cw, ch = cx1 - cx0, cy1 - cy0
    cov = np.zeros((ch, cw), np.float32)
    red = np.zeros((ch, cw), np.float32)
    ix0, iy0, ix1, iy1 = max(cx0, 0), max(cy0, 0), min(cx1, sw), min(cy1, sh)
    if ix1 > ix0 and iy1 > iy0:
        cov[iy0 - cy0:iy1 - cy0, ix0 - cx0:ix1 - cx0] = cov_s[iy0:iy1, ix0:ix1] / 255.0
        red[iy0 - cy0:iy1 - cy0, ix0 - cx0:ix1 - cx0] = red_s[iy0:iy1, ix0:ix1] / 255.0
    Hc = Hs @ tmat(cx0, cy0)                         # crop -> photo
    if moire:
        paper = np.array([250, 251, 253], np.float32) * rng.uniform(0.9, 1.0)
    else:
        paper = np.array([rng.uniform(238, 252), rng.uniform(236, 250), rng.uniform(228, 246)], np.float32)
    tex = np.ones((ch, cw), np.float32)
    if not moire:
        tex += 0.025 * smooth_noise(nrng, ch, cw, 48) + 0.012 * nrng.standard_normal((ch, cw), np.float32)
        if rng.random() < 0.25:  # show-through of the reverse side
            tex *= 1 - rng.uniform(0.02, 0.035) * cv2.GaussianBlur(cov[:, ::-1], (0, 0), 3.0)
    ink = np.array(rng.choice([(22, 22, 26), (35, 33, 38), (15, 18, 40), (50, 50, 50)]), np.float32)
    dens = rng.uniform(0.85, 1.0)
    redc = np.array([205, 35, 40], np.float32) if rng.random() < 0.85 else np.array([30, 60, 190], np.float32)
    covd = cov * dens
    page = (tex[..., None] * paper) * (1 - covd[..., None] * (1 - ink / 255.0)) \
        * (1 - (red * 0.95)[..., None] * (1 - redc / 255.0))
    warped = cv2.warpPerspective(page, Hc, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    alpha = cv2.warpPerspective(np.ones((ch, cw), np.float32), Hc, (W, H), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT)
    if moire:
        bg = np.ones((H, W, 3), np.float32) * rng.uniform(10, 30)
        bg *= (1 + 0.3 * smooth_noise(nrng, H, W, 300))[..., None]
        m = moire_layer(rng, np.linalg.inv(Hs), 1.0, W, H, xx, yy)
        warped = warped * m * np.array([0.95, 0.98, 1.04], np.float32)
    else:
        bg = make_desk(rng, nrng, W, H)
        a4 = cv2.resize(alpha, (W // 4, H // 4), interpolation=cv2.INTER_AREA)
        a4 = cv2.GaussianBlur(np.roll(a4, (int(rng.uniform(1, 3)), int(rng.uniform(-2, 2))), (0, 1)), (0, 0), 2.3)
        psh = cv2.resize(a4, (W, H), interpolation=cv2.INTER_LINEAR)
        bg *= (1 - 0.4 * psh)[..., None]
    img = bg * (1 - alpha[..., None]) + warped * alpha[..., None]

    # gentle paper bend
    if not moire and rng.random() < 0.45:
        amp_x, amp_y = rng.uniform(0, 4), rng.uniform(1, 6)
        ly_, lx_ = np.arange(H, dtype=np.float32)[:, None], np.arange(W, dtype=np.float32)[None, :]
        mx = xx + amp_x * np.sin(2 * math.pi * ly_ / (H * rng.uniform(1.5, 3)) + rng.uniform(0, 6)).astype(np.float32)
        my = yy + amp_y * np.sin(2 * math.pi * lx_ / (W * rng.uniform(1.2, 2.5)) + rng.uniform(0, 6)).astype(np.float32)
        img = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)

    # occluders must never touch the framed problem (checked on a 1/4-scale mask)
    ws_, hs_ = int(W * PROT_SCALE), int(H * PROT_SCALE)
    prot_small = np.zeros((hs_, ws_), np.float32)
    q = apply_h(Hm, block_quad(pg.target, 0.6 * pg.F)) * PROT_SCALE
    cv2.fillConvexPoly(prot_small, np.round(q * 4).astype(np.int32), 1.0, cv2.LINE_8, shift=2)
    prot_small = cv2.dilate(prot_small, np.ones((5, 5), np.uint8))
    occl = []
    # points of the page outline that are visible: fingers/pens cross the page edge there
    pc = apply_h(Hs, [[0, 0], [sw, 0], [sw, sh], [0, sh]])
    anchors = []
    for k in range(4):
        for t in np.linspace(0.03, 0.97, 24):
            p = pc[k] + (pc[(k + 1) % 4] - pc[k]) * t
            if 30 <= p[0] <= W - 30 and 30 <= p[1] <= H - 30:
                anchors.append((float(p[0]), float(p[1])))
    if moire:
        anchors = []
    centre = apply_h(Hs, [[sw / 2, sh / 2]])[0]
    if rng.random() < 0.32:
        if add_finger(img, rng, nrng, prot_small, anchors, centre):
            occl.append("finger")
    if rng.random() < 0.22:
        if add_pen(img, rng, nrng, prot_small, anchors if rng.random() < 0.5 else None, centre):
            occl.append("pen")

    # lighting: gradient, vignette, shadow, colour cast (smooth -> computed at 1/8 scale)
    ls_ = 8
    wl, hl = W // ls_, H // ls_
    ly, lx = np.mgrid[0:hl, 0:wl].astype(np.float32)
    lx, ly = (lx + 0.5) * ls_, (ly + 0.5) * ls_
    ang = rng.uniform(0, 2 * math.pi)
    g = rng.uniform(0.05, 0.35)
    illum = 1 + g * ((lx / W - 0.5) * math.cos(ang) + (ly / H - 0.5) * math.sin(ang)) * 2
    vx, vy = rng.uniform(0.3, 0.7) * W, rng.uniform(0.3, 0.7) * H
    illum *= 1 - rng.uniform(0.08, 0.3) * (((lx - vx) / W) ** 2 + ((ly - vy) / H) ** 2) * 2
    shadow = False
    if rng.random() < (0.25 if moire else 0.6):
        shadow = True
        sa = rng.uniform(0, 2 * math.pi)
        nx, ny = math.cos(sa), math.sin(sa)
        off = rng.uniform(0.15, 0.6) * math.hypot(W, H) / 2
        dd = (lx - W / 2) * nx + (ly - H / 2) * ny - off + smooth_noise(nrng, hl, wl, 25) * 25
        soft = rng.uniform(15, 70)
        sm = 1 / (1 + np.exp(-dd / soft))
        illum *= 1 - rng.uniform(0.25, 0.45) * sm
    illum *= rng.uniform(0.85, 1.08)
    if moire and rng.random() < 0.5:  # screen glare (additive, expressed as gain on a bright screen)
        gx, gy = rng.uniform(0, W), rng.uniform(0, H)
        illum += rng.uniform(0.06, 0.16) * np.exp(-(((lx - gx) / (0.25 * W)) ** 2 + ((ly - gy) / (0.2 * H)) ** 2))
    illum = cv2.resize(illum.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    cast = np.array(rng.choice([(1.0, 1.0, 1.0), (1.04, 1.0, 0.9), (0.94, 0.98, 1.06), (1.02, 1.0, 0.95)]), np.float32)
    img *= illum[..., None]
    img *= cast

    # optics: blur / slight motion blur
    sigma = rng.uniform(0.3, 0.6) if moire else rng.uniform(0.35, 1.05)
    img = cv2.GaussianBlur(img, (0, 0), sigma)
    motion = 0
    if rng.random() < 0.12:
        k = motion = rng.randint(1, 2)
        ker = np.zeros((k * 2 + 1, k * 2 + 1), np.float32)
        a = rng.uniform(0, math.pi)
        cv2.line(ker, (int(k - k * math.cos(a)), int(k - k * math.sin(a))),
                 (int(k + k * math.cos(a)), int(k + k * math.sin(a))), 1.0, 1)
        img = cv2.filter2D(img, -1, ker / ker.sum())
    # sensor noise
    ns = rng.uniform(1.5, 6.0)
    noise = nrng.standard_normal((H, W, 1), dtype=np.float32) * (ns * 1.05)
    noise = noise + nrng.standard_normal((H, W, 3), dtype=np.float32) * (ns * 0.35)
    img += noise
    gamma = rng.uniform(0.9, 1.1)
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma + 0.5, 0, 255).astype(np.uint8)
    out = cv2.LUT(np.clip(img, 0, 255).astype(np.uint8), lut)
    tq = apply_h(Hm, block_quad(pg.target, 0.0))
    meta = dict(target_quad=[[round(float(x), 1), round(float(y), 1)] for x, y in tq],
                theta=round(theta, 1), char_px=round(pg.F * s, 1), occluders=occl, shadow=shadow,
                blur=round(sigma, 2), motion=motion, noise=round(ns, 1))
    return out, meta


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------
def special(q):
    return any(c in SUP or c in SUB for c in q) or "__" in q or len(q) > 60


_GRIDS = {}


def grid(W, H):
    if (W, H) not in _GRIDS:
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        _GRIDS[(W, H)] = (xx, yy)
    return _GRIDS[(W, H)]


def make_one(job):
    i, row, bank, seed, upside, moire, out_dir, debug = job
    rng = random.Random(seed * 1000003 + i * 7919 + 17)
    nrng = np.random.default_rng(seed * 1000003 + i * 7919 + 29)
    fonts = font_pool()
    portrait = rng.random() < 0.45
    W, H = (960, 1280) if portrait else (1280, 960)
    pg = build_page(rng, row, bank, W, H, fonts)
    xx, yy = grid(W, H)
    img, meta = synth_photo(rng, nrng, pg, W, H, upside, moire, xx, yy)
    qid = "w%03d" % (i + 1)
    quality = rng.randint(70, 90)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    with open(os.path.join(out_dir, qid + ".jpg"), "wb") as f:
        f.write(buf.tobytes())
    meta.update(qid=qid, id=row["id"], size="%dx%d" % (W, H), font=pg.font_desc, style=pg.style,
                ncol=pg.ncol, header=pg.header, score=pg.score, marks=pg.marks, lines=pg.nlines,
                moire=moire, upside_down=upside, jpeg=quality)
    return qid, row, meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bank", required=True)
    ap.add_argument("out_dir")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--debug", action="store_true", help="also write meta.jsonl (layout/effect details)")
    a = ap.parse_args()
    t0 = time.time()
    bank = [json.loads(l) for l in open(a.bank, encoding="utf-8") if l.strip()]
    os.makedirs(a.out_dir, exist_ok=True)
    rng = random.Random(a.seed)
    idx = list(range(len(bank)))
    rng.shuffle(idx)
    spec = [i for i in idx if special(bank[i]["question"])]
    rest = [i for i in idx if not special(bank[i]["question"])]
    order = []
    while len(order) < a.count:
        order += (spec + rest)[: a.count - len(order)]
    rng.shuffle(order)
    n = a.count
    moire_set = set(rng.sample(range(n), int(round(0.15 * n))))
    upside_set = set(rng.sample([k for k in range(n) if k not in moire_set], max(1, int(round(0.05 * n))) if n >= 5 else 0))
    font_pool()
    jobs = [(k, bank[order[k]], bank, a.seed, k in upside_set, k in moire_set, a.out_dir, a.debug) for k in range(n)]
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs) as ex:
            results = list(ex.map(make_one, jobs, chunksize=2))
    else:
        results = [make_one(j) for j in jobs]
    with open(os.path.join(a.out_dir, "truth.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "text"])
        for qid, row, _ in results:
            w.writerow([qid, row["question"]])
    with open(os.path.join(a.out_dir, "queries.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for qid, row, _ in results:
            w.writerow([qid, row["question"], row["id"], "exact"])
    if a.debug:
        with open(os.path.join(a.out_dir, "meta.jsonl"), "w", encoding="utf-8") as f:
            for _, _, m in results:
                f.write(json.dumps(m, ensure_ascii=False) + "\n")
    print("wrote %d photos to %s in %.1fs" % (n, a.out_dir, time.time() - t0))


if __name__ == "__main__":
    main()
