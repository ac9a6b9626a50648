#!/usr/bin/env python3
"""Synthetic phone photos of printed worksheet pages, one framed problem each.

Usage:
    python make_pages.py --bank demo_bank.jsonl OUT --count 120 --seed 23 [--workers 2] [--meta]

Writes OUT/<qid>.jpg, OUT/truth.csv (qid,text) and OUT/queries.csv
(qid,query,expected_id,kind).  With --meta also OUT/meta.jsonl (one line per
photo describing the random choices; for inspecting the set only).

Everything is decided by a numpy Generator seeded with (seed, photo index), so
the output is the same for the same seed whatever the number of workers.
Only the bank file is read; nothing of the product is used.
"""
import argparse
import csv
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------
_NOTO = "/usr/share/fonts/opentype/noto/"
_LIB = "/usr/share/fonts/truetype/liberation/"
_DJV = "/usr/share/fonts/truetype/dejavu/"

FAMILIES = {
    # name: (is_cjk, serif, regular (path, index), bold (path, index))
    "noto_sans_cjk": (True, False, (_NOTO + "NotoSansCJK-Regular.ttc", 2), (_NOTO + "NotoSansCJK-Bold.ttc", 2)),
    "noto_serif_cjk": (True, True, (_NOTO + "NotoSerifCJK-Regular.ttc", 2), (_NOTO + "NotoSerifCJK-Bold.ttc", 2)),
    "noto_mono_cjk": (True, False, (_NOTO + "NotoSansCJK-Regular.ttc", 7), (_NOTO + "NotoSansCJK-Bold.ttc", 7)),
    "liberation_serif": (False, True, (_LIB + "LiberationSerif-Regular.ttf", 0), (_LIB + "LiberationSerif-Bold.ttf", 0)),
    "liberation_sans": (False, False, (_LIB + "LiberationSans-Regular.ttf", 0), (_LIB + "LiberationSans-Bold.ttf", 0)),
    "liberation_narrow": (False, False, (_LIB + "LiberationSansNarrow-Regular.ttf", 0), (_LIB + "LiberationSansNarrow-Bold.ttf", 0)),
    "dejavu_sans": (False, False, (_DJV + "DejaVuSans.ttf", 0), (_DJV + "DejaVuSans-Bold.ttf", 0)),
    "dejavu_serif": (False, True, (_DJV + "DejaVuSerif.ttf", 0), (_DJV + "DejaVuSerif-Bold.ttf", 0)),
}


def _available_families():
    ok = {k: v for k, v in FAMILIES.items() if os.path.exists(v[2][0]) and os.path.exists(v[3][0])}
    cjk = [k for k, v in ok.items() if v[0]]
    if not cjk or len(ok) < 4:
        sys.exit("need Noto CJK fonts and at least 4 font families (see README)")
    return ok


_CMAPS = {}
_FONTS = {}


def cmap_of(face):
    if face not in _CMAPS:
        path, idx = face
        try:
            from fontTools.ttLib import TTFont
            _CMAPS[face] = set(TTFont(path, fontNumber=idx, lazy=True).getBestCmap().keys())
        except Exception:  # crude fallback when fontTools is missing
            _CMAPS[face] = None
    return _CMAPS[face]


def has_glyph(face, ch):
    cm = cmap_of(face)
    if cm is None:
        cjk_font = "CJK" in face[0]
        return cjk_font or ord(ch) < 0x250 or ch in "²³°×÷"
    return ord(ch) in cm


def font_obj(face, size):
    size = max(6, int(round(size)))
    key = (face, size)
    f = _FONTS.get(key)
    if f is None:
        f = ImageFont.truetype(face[0], size, index=face[1], layout_engine=ImageFont.Layout.BASIC)
        _FONTS[key] = f
    return f


def is_han(ch):
    o = ord(ch)
    return 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF


def is_cjkish(ch):
    o = ord(ch)
    return (is_han(ch) or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF
            or 0x2460 <= o <= 0x24FF)


class FontSet:
    """A page style: a CJK face, a Latin face, fallbacks, one weight."""

    def __init__(self, fams, cjk_fam, latin_fam, bold):
        w = 3 if bold else 2
        self.cjk = fams[cjk_fam][w]
        self.latin = fams[latin_fam][w]
        serif = fams[latin_fam][1]
        dj = "dejavu_serif" if serif and "dejavu_serif" in fams else "dejavu_sans"
        self.dejavu = fams[dj][w] if dj in fams else self.cjk
        self.cjk_chain = [self.cjk, self.dejavu]
        self.latin_chain = [self.latin, self.dejavu, self.cjk]

    def face_for(self, ch, cjk_context):
        chain = self.cjk_chain if (is_cjkish(ch) or (cjk_context and ch in "“”‘’")) else self.latin_chain
        for face in chain:
            if has_glyph(face, ch):
                return face
        return chain[-1]

    def runs(self, text, size, cjk_context):
        out = []
        for ch in text:
            face = self.face_for(ch, cjk_context)
            if out and out[-1][1] == face:
                out[-1][0] += ch
            else:
                out.append([ch, face])
        return [(s, font_obj(face, size)) for s, face in out]


# --------------------------------------------------------------------------
# text flow
# --------------------------------------------------------------------------
NO_START = set("，。、；：？！）》」』”’,.;:?!)]%】")
NO_END = set("（《「『“‘([【")


class Tok:
    __slots__ = ("text", "space", "runs", "w")

    def __init__(self, text, fs, size, cjk_context):
        self.text = text
        self.space = text.isspace()
        self.runs = fs.runs(text, size, cjk_context)
        self.w = sum(f.getlength(s) for s, f in self.runs)


def tokenize(text, fs, size, cjk_context):
    toks, cur = [], ""

    def flush():
        nonlocal cur
        if cur:
            toks.append(Tok(cur, fs, size, cjk_context))
            cur = ""

    for ch in text:
        if ch.isspace():
            flush()
            if toks and toks[-1].space:
                continue
            toks.append(Tok(" ", fs, size, cjk_context))
        elif is_cjkish(ch) or ch in "“”" and cjk_context:
            flush()
            toks.append(Tok(ch, fs, size, cjk_context))
        else:
            cur += ch
    flush()
    return toks


def wrap(toks, first_w, rest_w):
    lines, cur, curw, width = [], [], 0.0, first_w

    def nonspace(c):
        return any(not t.space for t in c)

    for t in toks:
        if t.space:
            if cur:
                cur.append(t)
                curw += t.w
            continue
        if curw + t.w <= width or not nonspace(cur):
            cur.append(t)
            curw += t.w
            continue
        if t.text[0] in NO_START and len(t.text) == 1:
            cur.append(t)  # hanging punctuation
            curw += t.w
            continue
        while cur and cur[-1].space:
            curw -= cur.pop().w
        carry = []
        if cur and len(cur[-1].text) == 1 and cur[-1].text in NO_END:
            carry = [cur.pop()]
        lines.append(cur)
        width = rest_w
        cur = carry + [t]
        curw = sum(x.w for x in cur)
    while cur and cur[-1].space:
        cur.pop()
    if cur:
        lines.append(cur)
    return lines


# --------------------------------------------------------------------------
# page spec (all random choices, sizes in em)
# --------------------------------------------------------------------------
TITLES_ZH = ["第二单元练习", "七年级数学 课时作业（三）", "期中复习 综合练习", "寒假作业 第 5 天", "课后巩固练习",
             "第三章 单元检测", "周末作业", "基础知识过关训练", "第一单元练习", "随堂小测"]
TITLES_EN = ["Homework 5", "Unit 3 Review Worksheet", "Weekly Practice 12", "Grade 8 Homework", "Quiz 2",
             "Chapter 4 Exercises", "Homework 11", "Revision Sheet"]
NAME_ZH = ["姓名：________  班级：________", "姓名：________  班级：________  学号：______",
           "班级：________  姓名：________  得分：______"]
NAME_EN = ["Name: __________  Class: ______", "Name: ____________  Class: ______  Date: ________"]
SECTIONS_ZH = ["一、填空题", "二、解答题", "三、计算题（每小题 5 分，共 20 分）", "二、简答题", "一、基础题", "能力提升"]
SECTIONS_EN = ["Part A", "Section B  Short answers", "Part 2: Questions", "Exercise 3"]
FOOTERS = ["第 {p} 页（共 {t} 页）", "第 {p} 页 共 {t} 页", "- {p} -", "Page {p} of {t}"]
LABEL_STYLES = ["dot", "fwdot", "paren", "fwparen", "di", "Q", "circled"]
CJK_CHOICES = ["noto_sans_cjk", "noto_serif_cjk", "noto_mono_cjk"]
LATIN_CHOICES = ["liberation_serif", "liberation_sans", "liberation_narrow", "dejavu_sans", "dejavu_serif", "same"]
SIZES = [(1280, 960), (1600, 1200), (2048, 1536), (4000, 3000)]


def has_han(s):
    return any(is_han(c) for c in s)


def make_label(style, n, suffix):
    if style == "dot":
        return f"{n}."
    if style == "fwdot":
        return f"{n}．"
    if style == "paren":
        return f"({n})"
    if style == "fwparen":
        return f"（{n}）"
    if style == "di":
        return f"第{n}题" + ("：" if suffix < 0.4 else "")
    if style == "Q":
        return f"Q{n}" + ["", ".", ":"][int(suffix * 3)]
    return chr(0x2460 + n - 1)


def score_note(rng, zh):
    k = int(rng.integers(2, 13))
    if zh and rng.random() < 0.85:
        return str(rng.choice([f"（{k}分）", f"({k}分)", f"【{k}分】"]))
    return str(rng.choice([f"[{k} marks]", f"({k} marks)"]))


def make_spec(rng, bank, by_subject, framed_idx, fams):
    q = bank[framed_idx]
    zh = has_han(q["question"]) if rng.random() < 0.8 else bool(rng.random() < 0.6)
    sp = {"framed_id": q["id"], "zh": zh}
    two_col = rng.random() < 0.25
    sp["two_col"] = two_col
    n = int(rng.integers(3, 6)) if two_col else int(rng.choice([2, 3, 3, 4, 4, 5]))
    sp["n"] = n
    # neighbours
    pool = by_subject[q["subject"]] if rng.random() < 0.5 else list(range(len(bank)))
    pool = [i for i in pool if i != framed_idx]
    if len(pool) < n - 1:
        pool = [i for i in range(len(bank)) if i != framed_idx]
    others = [int(i) for i in rng.choice(pool, size=n - 1, replace=False)]
    pos = int(rng.integers(0, n))
    items = others[:pos] + [framed_idx] + others[pos:]
    sp["items"] = items
    sp["framed_pos"] = pos
    # numbering
    style = str(rng.choice(LABEL_STYLES))
    start = int(rng.integers(1, 21 - n + 1)) if style == "circled" else int(rng.integers(1, 25))
    sp["label_style"] = style
    suffix = float(rng.random())  # one suffix choice per page
    sp["labels"] = [make_label(style, start + i, suffix) for i in range(n)]
    sp["label_bold"] = bool(rng.random() < 0.4)
    sp["label_gap"] = float(rng.uniform(0.15, 0.4) if style == "circled" else rng.uniform(0.25, 0.75))
    sp["hanging"] = bool(rng.random() < 0.65)
    # score notes
    sp["scores"] = [None] * n
    if rng.random() < 0.35:
        where = "after_label" if rng.random() < 0.6 else "end"
        every = rng.random() < 0.6
        for i in range(n):
            if every or rng.random() < 0.5:
                sp["scores"][i] = (score_note(rng, zh), where)
    # header material
    sp["title"] = (str(rng.choice(TITLES_ZH if zh else TITLES_EN)) if rng.random() < 0.45 else None)
    sp["title_center"] = bool(rng.random() < 0.7)
    sp["title_size"] = float(rng.uniform(1.2, 1.7))
    sp["name_line"] = (str(rng.choice(NAME_ZH if zh else NAME_EN)) if rng.random() < 0.35 else None)
    sp["rule"] = bool(rng.random() < 0.4)
    sp["sections"] = {}
    if rng.random() < 0.3:
        at = int(rng.integers(0, n))
        sp["sections"][at] = str(rng.choice(SECTIONS_ZH if zh else SECTIONS_EN))
    sp["footer"] = (str(rng.choice(FOOTERS)).format(p=int(rng.integers(1, 4)), t=4) if rng.random() < 0.3 else None)
    # geometry (em)
    sp["margin"] = float(rng.uniform(2.5, 4.5))
    sp["top"] = float(rng.uniform(2.0, 4.5))
    if two_col:
        sp["col_w"] = float(rng.uniform(14, 21))
        sp["gutter"] = float(rng.uniform(1.6, 3.2))
        sp["col_rule"] = bool(rng.random() < 0.5)
        sp["left_count"] = int(rng.integers(1, n)) if n > 2 else 1
    else:
        sp["col_w"] = float(rng.uniform(21, 36))
    sp["line_sp"] = float(rng.uniform(1.25, 1.8))
    sp["gaps"] = [float(g) for g in rng.uniform(0.5, 1.0, size=n) * rng.uniform(0.8, 6.0)]
    sp["bottom"] = float(rng.uniform(3, 10))
    sp["page_ratio"] = float(rng.uniform(1.3, 1.45)) if rng.random() < 0.8 else 0.0
    # fonts
    cjk = str(rng.choice(CJK_CHOICES, p=[0.45, 0.45, 0.10]))
    lat = str(rng.choice(LATIN_CHOICES, p=[0.25, 0.2, 0.1, 0.15, 0.15, 0.15]))
    if lat == "same" or lat not in fams:
        lat = cjk
    sp["cjk_font"], sp["latin_font"] = cjk, lat
    sp["bold"] = bool(rng.random() < 0.15)
    sp["head_font"] = str(rng.choice(["noto_sans_cjk", "noto_serif_cjk"]))
    g = float(rng.uniform(5, 70)) if rng.random() < 0.92 else float(rng.uniform(80, 115))
    tint = rng.uniform(-8, 8, size=3) if rng.random() < 0.3 else np.zeros(3)
    sp["ink"] = tuple(int(np.clip(g + t, 0, 140)) for t in tint)
    # marks (tick / circle near a number)
    sp["mark"] = None
    if rng.random() < 0.3:
        target = pos if rng.random() < 0.5 else int(rng.integers(0, n))
        colour = [(200, 30, 35), (30, 50, 170), (90, 90, 95)][int(rng.choice(3, p=[0.6, 0.25, 0.15]))]
        sp["mark"] = {"kind": str(rng.choice(["tick", "circle"])), "target": target, "colour": colour,
                      "seed": int(rng.integers(1 << 30))}
    sp["show_through"] = bool(rng.random() < 0.12)
    if sp["show_through"]:
        sp["show_text"] = [bank[int(i)]["question"] for i in rng.choice(len(bank), size=4)]
    return sp


# --------------------------------------------------------------------------
# layout at a given em (px)
# --------------------------------------------------------------------------
class Page:
    def __init__(self):
        self.ops = []  # ("text", x, baseline, str, font, fill) | ("line", pts, width, fill)
        self.boxes = {}
        self.label_boxes = {}
        self.w = self.h = 0


def _draw_tokens(page, line, x, base, fill):
    x0, y0, x1, y1 = 1e9, 1e9, -1e9, -1e9
    for t in line:
        for s, f in t.runs:
            if not s.isspace():
                page.ops.append(("text", x, base, s, f, fill))
                left, tp, r, b = f.getbbox(s, anchor="ls")
                x0, y0, x1, y1 = min(x0, x + left), min(y0, base + tp), max(x1, x + r), max(y1, base + b)
            x += f.getlength(s)
    return (x0, y0, x1, y1), x


def _union(a, b):
    if a is None:
        return b
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def layout(sp, bank, E, fams):
    pg = Page()
    pg.em = E
    fs = FontSet(fams, sp["cjk_font"], sp["latin_font"], sp["bold"])
    fsb = FontSet(fams, sp["cjk_font"], sp["latin_font"], True)
    fsh = FontSet(fams, sp["head_font"], sp["head_font"], True)
    fsl = fsb if sp["label_bold"] else fs
    ink = sp["ink"]
    m = sp["margin"] * E
    ls = sp["line_sp"] * E
    if sp["two_col"]:
        cw = sp["col_w"] * E
        gut = sp["gutter"] * E
        pg.w = int(2 * m + 2 * cw + gut)
        cols = [(m, m + cw), (m + cw + gut, m + 2 * cw + gut)]
    else:
        cw = sp["col_w"] * E
        pg.w = int(2 * m + cw)
        cols = [(m, m + cw)]
    y = sp["top"] * E

    def simple_line(text, fset, size, x, base, center=False):
        toks = tokenize(text, fset, size, has_han(text))
        width = sum(t.w for t in toks)
        if center:
            x = (pg.w - width) / 2
        return _draw_tokens(pg, toks, x, base, ink)

    if sp["title"]:
        sz = sp["title_size"] * E
        y += sz
        simple_line(sp["title"], fsh, sz, m, y, center=sp["title_center"])
        y += sz * 0.9
    if sp["name_line"]:
        y += E * 1.1
        simple_line(sp["name_line"], fs, E * 0.95, m if not sp["title_center"] else m + E, y,
                    center=sp["title_center"] and sp["title"] is not None)
        y += E * 0.9
    if sp["rule"] and (sp["title"] or sp["name_line"]):
        y += E * 0.4
        pg.ops.append(("line", [(m, y), (pg.w - m, y)], max(1, int(E * 0.06)), ink))
        y += E * 0.5
    elif sp["title"] or sp["name_line"]:
        y += E * 0.8

    n = sp["n"]
    if sp["two_col"]:
        assign = [0] * sp["left_count"] + [1] * (n - sp["left_count"])
    else:
        assign = [0] * n
    col_y = [y, y]
    col_top = y
    for i in range(n):
        c = assign[i]
        x0, x1 = cols[c]
        yy = col_y[c]
        if i in sp["sections"]:
            yy += E * 1.05
            simple_line(sp["sections"][i], fsh, E * 1.02, x0, yy)
            yy += E * 0.7
        q = bank[sp["items"][i]]["question"]
        cjk_ctx = has_han(q)
        label = sp["labels"][i]
        ltoks = tokenize(label, fsl, E, True)
        lw = sum(t.w for t in ltoks)
        tx = x0 + lw + sp["label_gap"] * E
        body = q
        sc = sp["scores"][i]
        toks = tokenize(body, fs, E, cjk_ctx)
        if sc:
            stoks = tokenize(sc[0], fs, E, True)
            if sc[1] == "after_label":
                toks = stoks + [Tok(" ", fs, E, cjk_ctx)] * (0 if sc[0][0] in "（【" else 1) + toks
            else:
                toks = toks + [Tok(" ", fs, E, cjk_ctx)] * (0 if (cjk_ctx and sc[0][0] in "（【") else 1) + stoks
        indent = tx if sp["hanging"] else x0
        lines = wrap(toks, x1 - tx, x1 - indent)
        base = yy + E * 1.0
        lb, _ = _draw_tokens(pg, ltoks, x0, base, ink)
        pg.label_boxes[i] = lb
        box = lb
        for j, line in enumerate(lines):
            bb, _ = _draw_tokens(pg, line, tx if j == 0 else indent, base, ink)
            box = _union(box, bb)
            if j < len(lines) - 1:
                base += ls
        pg.boxes[i] = box
        col_y[c] = base + E * 0.35 + sp["gaps"][i] * E
    bottom = max(col_y)
    if sp["two_col"] and sp["col_rule"]:
        xm = (cols[0][1] + cols[1][0]) / 2
        pg.ops.append(("line", [(xm, col_top), (xm, bottom - E)], max(1, int(E * 0.04)), ink))
    bottom += sp["bottom"] * E
    footer_at = len(pg.ops)
    if sp["footer"]:
        simple_line(sp["footer"], fs, E * 0.85, 0, bottom, center=True)
        bottom += E * 2.0
    pg.h = int(max(bottom, pg.w * sp["page_ratio"]))
    if sp["footer"] and pg.h > bottom:  # footer sits at the foot of the sheet
        for k in range(footer_at, len(pg.ops)):
            op = pg.ops[k]
            pg.ops[k] = (op[0], op[1], op[2] + pg.h - bottom) + tuple(op[3:])
    # marks near a number
    mk = sp["mark"]
    if mk:
        r = np.random.default_rng(mk["seed"])
        lb = pg.label_boxes[mk["target"]]
        col = cols[assign[mk["target"]]]
        left_free = col[0] - (cols[0][1] if col[0] > cols[0][0] else 0)
        pts_list = []
        wdt = max(2, int(E * r.uniform(0.07, 0.13)))
        if mk["kind"] == "tick":
            size = min(E * r.uniform(0.9, 1.4), left_free - 0.45 * E)
            if size > 0.5 * E:
                xr = lb[0] - E * r.uniform(0.2, 0.35)
                yb = lb[3] + E * r.uniform(-0.1, 0.1)
                a = (xr - size, yb - size * 0.45)
                b = (xr - size * 0.62, yb)
                cpt = (xr, yb - size * 1.05)
                pts_list.append([a, b, cpt])
        else:
            cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2
            rx = (lb[2] - lb[0]) / 2 + min(0.3 * E, sp["label_gap"] * E * 0.45)
            ry = (lb[3] - lb[1]) / 2 + 0.33 * E
            t0 = r.uniform(0, 2 * math.pi)
            span = r.uniform(2.0 * math.pi * 0.93, 2.0 * math.pi * 1.08)
            ts = np.linspace(t0, t0 + span, 40)
            wob = 1 + 0.06 * np.sin(ts * r.uniform(1.5, 3) + r.uniform(0, 6))
            pts_list.append([(cx + rx * wob[k] * math.cos(t), cy + ry * wob[k] * math.sin(t)) for k, t in enumerate(ts)])
        for pts in pts_list:
            pg.ops.append(("pen", pts, wdt, tuple(mk["colour"])))
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            if mk["target"] == sp["framed_pos"]:
                pg.boxes[mk["target"]] = _union(pg.boxes[mk["target"]], (min(xs) - wdt, min(ys) - wdt, max(xs) + wdt, max(ys) + wdt))
    if sp["show_through"]:
        pg.show = []
        yy = sp["top"] * E + 2 * E
        for t in sp["show_text"]:
            toks = tokenize(t, fs, E, has_han(t))
            for line in wrap(toks, cols[-1][1] - m, cols[-1][1] - m):
                pg.show.append((line, m + E, yy))
                yy += ls
            yy += 3 * E
    else:
        pg.show = None
    return pg


def render_region(pg, x0, y0, x1, y1, paper_level=255):
    w, h = int(x1 - x0), int(y1 - y0)
    img = Image.new("RGB", (w, h), (paper_level,) * 3)
    if pg.show:
        # faint text printed on the back of the sheet, seen mirrored through the paper
        layer = Image.new("L", (w, h), 0)
        dl = ImageDraw.Draw(layer)
        bx0 = pg.w - x1
        for line, x, base in pg.show:
            xx = x
            for t in line:
                for s, f in t.runs:
                    if not s.isspace():
                        dl.text((xx - bx0, base - y0), s, font=f, fill=255, anchor="ls")
                    xx += f.getlength(s)
        layer = layer.transpose(Image.FLIP_LEFT_RIGHT)
        arr = np.asarray(img).astype(np.float32)
        sig = max(1.0, 0.08 * pg.em)
        a = cv2.GaussianBlur(np.asarray(layer).astype(np.float32) / 255.0, (0, 0), sig)[..., None]
        arr = arr * (1 - 0.05 * a)
        img = Image.fromarray(arr.astype(np.uint8))
    d = ImageDraw.Draw(img)
    for op in pg.ops:
        if op[0] == "text":
            _, x, base, s, f, fill = op
            if x - x0 > w + 4 * f.size or base - y0 < -2 * f.size or base - y0 > h + 2 * f.size:
                continue
            d.text((x - x0, base - y0), s, font=f, fill=fill, anchor="ls")
        elif op[0] == "line":
            _, pts, wd, fill = op
            d.line([(px - x0, py - y0) for px, py in pts], fill=fill, width=wd)
        elif op[0] == "pen":
            _, pts, wd, fill = op
            d.line([(px - x0, py - y0) for px, py in pts], fill=fill, width=wd, joint="curve")
            for px, py in (pts[0], pts[-1]):
                d.ellipse([px - x0 - wd / 2, py - y0 - wd / 2, px - x0 + wd / 2, py - y0 + wd / 2], fill=fill)
    return img


# --------------------------------------------------------------------------
# camera
# --------------------------------------------------------------------------
def camera_matrix(cx, cy, s, theta, px, py, W, H, dx, dy):
    T1 = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], float)
    c, si = math.cos(theta), math.sin(theta)
    RS = np.array([[s * c, -s * si, 0], [s * si, s * c, 0], [0, 0, 1]], float)
    P = np.array([[1, 0, 0], [0, 1, 0], [px, py, 1]], float)
    T2 = np.array([[1, 0, W / 2 + dx], [0, 1, H / 2 + dy], [0, 0, 1]], float)
    return T2 @ P @ RS @ T1


def apply_h(Hm, pts):
    pts = np.asarray(pts, float)
    ph = np.c_[pts, np.ones(len(pts))] @ Hm.T
    return ph[:, :2] / ph[:, 2:3]


def box_corners(b, pad):
    return [(b[0] - pad, b[1] - pad), (b[2] + pad, b[1] - pad), (b[2] + pad, b[3] + pad), (b[0] - pad, b[3] + pad)]


# --------------------------------------------------------------------------
# photo effects
# --------------------------------------------------------------------------
def background(rng, W, H, kind):
    small = (max(8, W // 8), max(8, H // 8))
    if kind == "screen":
        base = np.array(rng.uniform(10, 35, size=3))
        img = np.ones((small[1], small[0], 3), np.float32) * base
    elif kind == "wood":
        base = np.array([rng.uniform(130, 185), rng.uniform(85, 125), rng.uniform(45, 80)])
        ang = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:small[1], 0:small[0]].astype(np.float32)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        n = int(abs(v).max() * 2 + 10)
        g1 = cv2.GaussianBlur(rng.normal(0, 1, (1, n)).astype(np.float32), (0, 0), rng.uniform(0.8, 2.0))[0]
        vv = v + 2.5 * np.sin(u * rng.uniform(0.01, 0.03) + rng.uniform(0, 6))
        streak = np.interp(vv.ravel() + n / 2, np.arange(n), g1).reshape(vv.shape)
        streak /= max(1e-3, float(np.abs(streak).max()))
        img = base[None, None, :] * (1 + 0.12 * streak[..., None])
    else:
        base = np.array(rng.choice([[150, 150, 155], [200, 198, 190], [60, 65, 75], [180, 190, 200], [90, 110, 90]])) \
            + rng.uniform(-15, 15, size=3)
        img = np.ones((small[1], small[0], 3), np.float32) * base
    noise = cv2.GaussianBlur(rng.normal(0, 1, (small[1], small[0])).astype(np.float32), (0, 0), 2)
    img = img * (1 + 0.04 * noise[..., None])
    return cv2.resize(img.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)


def lighting_field(rng, W, H, meta):
    sw, sh = max(8, W // 8), max(8, H // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xn, yn = xx / sw - 0.5, yy / sh - 0.5
    L = np.ones((sh, sw), np.float32) * rng.uniform(0.88, 1.05)
    if rng.random() < 0.8:
        g = rng.uniform(0.1, 0.35)
        a = rng.uniform(0, 2 * math.pi)
        L += g * (xn * math.cos(a) + yn * math.sin(a))
        meta.append("gradient")
    if rng.random() < 0.6:
        cxv, cyv = rng.uniform(-0.2, 0.2, size=2)
        L -= rng.uniform(0.1, 0.35) * ((xn - cxv) ** 2 + (yn - cyv) ** 2)
        meta.append("vignette")
    if rng.random() < 0.35:
        # soft shadow of phone/hand: half plane with blurred edge
        a = rng.uniform(0, 2 * math.pi)
        off = rng.uniform(0.05, 0.35)
        d = xn * math.cos(a) + yn * math.sin(a) - off
        soft = rng.uniform(0.02, 0.12)
        sh_mask = 1 / (1 + np.exp(-d / soft))
        L *= 1 - rng.uniform(0.2, 0.42) * sh_mask
        meta.append("shadow")
    if rng.random() < 0.12:
        gx, gy = rng.uniform(-0.4, 0.4, size=2)
        L += rng.uniform(0.08, 0.2) * np.exp(-((xn - gx) ** 2 + (yn - gy) ** 2) / (2 * rng.uniform(0.05, 0.15) ** 2))
        meta.append("glare")
    L = np.clip(L, 0.5, 1.25)
    return cv2.resize(L, (W, H), interpolation=cv2.INTER_LINEAR)


def occluder(rng, img, forbid, W, H, kind):
    """Draw a finger or pen entering from an edge; never over `forbid` (uint8 mask)."""
    mn = min(W, H)
    for _ in range(30):
        edge = rng.choice(["bottom", "left", "right", "top"], p=[0.45, 0.22, 0.22, 0.11])
        if kind == "finger":
            width = rng.uniform(0.10, 0.17) * mn
            length = rng.uniform(0.08, 0.22) * mn
        else:
            width = rng.uniform(0.022, 0.04) * mn
            length = rng.uniform(0.2, 0.55) * mn
        ang_j = rng.uniform(-0.5, 0.5)
        if edge == "bottom":
            sx, sy, ang = rng.uniform(0.05, 0.95) * W, H + width, -math.pi / 2 + ang_j
        elif edge == "top":
            sx, sy, ang = rng.uniform(0.05, 0.95) * W, -width, math.pi / 2 + ang_j
        elif edge == "left":
            sx, sy, ang = -width, rng.uniform(0.05, 0.95) * H, 0 + ang_j
        else:
            sx, sy, ang = W + width, rng.uniform(0.05, 0.95) * H, math.pi + ang_j
        ux, uy = math.cos(ang), math.sin(ang)
        tx, ty = sx + ux * (length + width), sy + uy * (length + width)
        m = np.zeros((H, W), np.uint8)
        cv2.line(m, (int(sx), int(sy)), (int(tx), int(ty)), 255, int(width))
        cv2.circle(m, (int(tx), int(ty)), int(width / 2), 255, -1)
        if kind == "pen":
            tip = (int(tx + ux * width * 1.6), int(ty + uy * width * 1.6))
            nx, ny = -uy, ux
            poly = np.array([[tx + nx * width / 2, ty + ny * width / 2], [tx - nx * width / 2, ty - ny * width / 2],
                             tip], np.int32)
            cv2.fillConvexPoly(m, poly, 255)
        if (m[forbid > 0] > 0).any():
            continue
        area = (m > 0).mean()
        if area < 0.002:
            continue
        # shading across the width
        yy, xx = np.nonzero(m)
        dperp = ((xx - sx) * (-uy) + (yy - sy) * ux) / (width / 2)
        dalong = ((xx - sx) * ux + (yy - sy) * uy)
        if kind == "finger":
            base = np.array([rng.uniform(200, 235), rng.uniform(150, 185), rng.uniform(120, 155)])
            shade = 1 - 0.35 * np.clip(dperp, -1.2, 1.2) ** 2 + 0.06 * np.sign(dperp)
            col = base[None, :] * shade[:, None]
            nail = dalong > (length + width) - width * 0.55
            col[nail] = col[nail] * 0.6 + np.array([235, 200, 195]) * 0.4
        else:
            base = np.array(rng.choice([[20, 30, 120], [15, 15, 18], [230, 230, 235], [180, 30, 40], [40, 110, 60]]), float)
            shade = 1 - 0.45 * np.clip(dperp, -1.2, 1.2) ** 2
            hl = np.exp(-((dperp + 0.35) ** 2) / 0.02) * 70
            col = base[None, :] * shade[:, None] + hl[:, None]
            tipz = dalong > (length + width)
            col[tipz] = np.array([150, 150, 155]) * shade[tipz, None]
        sig = max(1.0, width * 0.04)
        # shadow cast by the occluder (kept light over the framed problem)
        ms = cv2.resize(np.roll(np.roll(m, int(width * 0.25), 0), int(width * 0.15), 1), (W // 4, H // 4),
                        interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        shadow = cv2.resize(cv2.GaussianBlur(ms, (0, 0), width * 0.35 / 4), (W, H))
        shadow[forbid > 0] = np.minimum(shadow[forbid > 0], 0.3)
        img *= (1 - 0.35 * shadow)[..., None]
        layer = np.zeros_like(img)
        layer[yy, xx] = col
        alpha = cv2.GaussianBlur(m.astype(np.float32) / 255, (0, 0), sig)
        layer = cv2.GaussianBlur(layer, (0, 0), sig)
        img *= (1 - alpha)[..., None]
        img += layer
        return edge
    return None


def moire(rng, W, H):
    """Screen-photo interference: curved low-frequency colour bands plus a fine grid."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    a = rng.uniform(0, math.pi)
    u = xx * math.cos(a) + yy * math.sin(a)
    v = -xx * math.sin(a) + yy * math.cos(a)
    f = rng.uniform(0.012, 0.04)
    bend = rng.uniform(5, 25) * np.sin(v * rng.uniform(0.002, 0.006) + rng.uniform(0, 6))
    fine_f = rng.uniform(0.18, 0.33)
    fine = np.sin(2 * math.pi * fine_f * xx) * np.sin(2 * math.pi * fine_f * yy)
    out = np.empty((H, W, 3), np.float32)
    for ch in range(3):
        out[..., ch] = np.sin(2 * math.pi * f * (u + bend) + ch * 2.1) + 0.35 * fine
    return out


# --------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------
_BANK = None
_BY_SUBJ = None
_FAMS = None


def _init(bank_path):
    global _BANK, _BY_SUBJ, _FAMS
    _BANK = load_bank(bank_path)
    _BY_SUBJ = {}
    for i, q in enumerate(_BANK):
        _BY_SUBJ.setdefault(q.get("subject", "x"), []).append(i)
    _FAMS = _available_families()


def load_bank(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                d = json.loads(line)
                if d.get("id") and d.get("question"):
                    d.setdefault("subject", "x")
                    out.append(d)
    return out


def make_photo(args):
    idx, framed_idx, seed, out_dir = args
    bank, fams = _BANK, _FAMS
    rng = np.random.default_rng([seed, idx])
    meta = {"qid": f"t{idx + 1:03d}", "expected_id": bank[framed_idx]["id"]}
    sp = make_spec(rng, bank, _BY_SUBJ, framed_idx, fams)
    # photo size
    si = int(rng.choice(4, p=[0.3, 0.3, 0.32, 0.08]))
    W, H = SIZES[si]
    if rng.random() < 0.5:
        W, H = H, W
    screen = rng.random() < 0.1
    if screen:
        sp["show_through"] = False
    em_target = min(W, H) / rng.uniform(13, 30)
    theta = math.radians(float(np.clip(rng.normal(0, 3.5), -8, 8)))
    tilt = rng.uniform(0, 0.2) if rng.random() < 0.75 else 0.0
    ta = rng.uniform(0, 2 * math.pi)
    px, py = tilt * math.cos(ta) / (max(W, H) / 2), tilt * math.sin(ta) / (max(W, H) / 2)
    dx, dy = rng.uniform(-0.06, 0.06) * W, rng.uniform(-0.06, 0.06) * H
    margin = 0.035

    def fit(pg, E, s):
        b = pg.boxes[sp["framed_pos"]]
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        d_x, d_y = dx, dy
        for _ in range(60):
            Hm = camera_matrix(cx, cy, s, theta, px, py, W, H, d_x, d_y)
            q = apply_h(Hm, box_corners(b, 0.3 * E))
            if (q[:, 0].min() >= margin * W and q[:, 0].max() <= (1 - margin) * W
                    and q[:, 1].min() >= margin * H and q[:, 1].max() <= (1 - margin) * H):
                return Hm, s
            s *= 0.94
            d_x *= 0.9
            d_y *= 0.9
        return Hm, s

    E = em_target / 0.85
    pg = layout(sp, bank, E, fams)
    Hm, s = fit(pg, E, 0.85)
    if s < 0.62:  # re-layout at a smaller em so the page is not downscaled too much
        E = E * s / 0.85
        pg = layout(sp, bank, E, fams)
        Hm, s = fit(pg, E, 0.85)
    em_photo = E * s
    # region of the page seen by the camera
    Hinv = np.linalg.inv(Hm)
    corners = apply_h(Hinv, [(0, 0), (W, 0), (W, H), (0, H)])
    rx0 = int(max(0, corners[:, 0].min() - 4))
    ry0 = int(max(0, corners[:, 1].min() - 4))
    rx1 = int(min(pg.w, corners[:, 0].max() + 4))
    ry1 = int(min(pg.h, corners[:, 1].max() + 4))
    paper = render_region(pg, rx0, ry0, rx1, ry1)
    arr = np.asarray(paper).astype(np.float32)
    if s < 0.75:
        arr = cv2.GaussianBlur(arr, (0, 0), 0.5 * (1 / s - 1))
    M = Hm @ np.array([[1, 0, rx0], [0, 1, ry0], [0, 0, 1]], float)
    warped = cv2.warpPerspective(arr, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(255, 255, 255))
    pmask = cv2.warpPerspective(np.ones((ry1 - ry0, rx1 - rx0), np.float32), M, (W, H), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    fx = []
    # gentle page bend
    if not screen and rng.random() < 0.25:
        A = rng.uniform(0.002, 0.005) * H
        lam = rng.uniform(0.8, 2.0) * W
        ph = rng.uniform(0, 2 * math.pi)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        mapy = yy + (A * np.sin(2 * math.pi * xx / lam + ph)).astype(np.float32)
        warped = cv2.remap(warped, xx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        pmask = cv2.remap(pmask, xx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        del yy, xx, mapy
        fx.append("bend")
    # paper tint + texture
    if screen:
        tint = np.array([rng.uniform(0.9, 0.97), rng.uniform(0.94, 1.0), 1.0])
        fx.append("screen")
    else:
        tint = np.array(rng.choice([[1.0, 0.99, 0.95], [0.97, 0.96, 0.92], [0.99, 0.99, 0.99], [0.96, 0.97, 0.99],
                                    [1.0, 0.97, 0.9]])) * rng.uniform(0.9, 1.0)
        tex = cv2.resize(rng.normal(0, 1, (H // 4 + 1, W // 4 + 1)).astype(np.float32), (W, H))
        warped *= (1 + rng.uniform(0.005, 0.02) * tex)[..., None]
    warped *= tint[None, None, :].astype(np.float32)
    bg = background(rng, W, H, "screen" if screen else str(rng.choice(["wood", "plain", "plain"])))
    # drop shadow of the page on the table
    if not screen:
        small = cv2.resize(pmask, (W // 4, H // 4), interpolation=cv2.INTER_AREA)
        sh = cv2.resize(cv2.GaussianBlur(small, (0, 0), max(1, 0.0025 * min(W, H))), (W, H))
        bg *= (1 - 0.35 * sh)[..., None]
    img = bg * (1 - pmask[..., None]) + warped * pmask[..., None]
    del warped, bg
    # framed problem region in the photo
    fb = pg.boxes[sp["framed_pos"]]
    q = apply_h(Hm, box_corners(fb, 0.3 * E))
    forbid = np.zeros((H, W), np.uint8)
    cv2.fillConvexPoly(forbid, q.astype(np.int32), 255)
    forbid = cv2.dilate(forbid, np.ones((3, 3), np.uint8), iterations=max(1, int(0.01 * min(W, H))))
    occ = None
    r = rng.random()
    if not screen and r < 0.12:
        occ = occluder(rng, img, forbid, W, H, "finger")
        if occ:
            fx.append("finger")
    elif not screen and r < 0.22:
        occ = occluder(rng, img, forbid, W, H, "pen")
        if occ:
            fx.append("pen")
    # lighting
    L = lighting_field(rng, W, H, fx)
    img *= L[..., None]
    wb = np.array([1 + rng.uniform(-0.06, 0.06), 1.0, 1 + rng.uniform(-0.08, 0.06)], np.float32)
    img *= wb[None, None, :]
    if screen:
        img += moire(rng, W, H) * rng.uniform(5, 12)
        fx.append("moire")
    # blur
    br = rng.random()
    if br < 0.55:
        sig = min(rng.uniform(0.4, 1.5) * max(W, H) / 1600, em_photo / 16)
        img = cv2.GaussianBlur(img, (0, 0), max(0.3, sig))
        fx.append("blur%.1f" % sig)
    elif br < 0.68:
        ln = int(max(3, min(rng.uniform(3, 8) * max(W, H) / 1600, em_photo / 8)))
        k = np.zeros((ln, ln), np.float32)
        a = rng.uniform(0, math.pi)
        c = (ln - 1) / 2
        cv2.line(k, (int(c - c * math.cos(a)), int(c - c * math.sin(a))), (int(c + c * math.cos(a)), int(c + c * math.sin(a))), 1, 1)
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        fx.append("motion%d" % ln)
    # sensor noise
    nsig = rng.uniform(1.5, 8.0)
    noise = rng.standard_normal((H, W), dtype=np.float32) * nsig
    img += noise[..., None]
    if rng.random() < 0.5:
        img += rng.standard_normal((H, W, 3), dtype=np.float32) * (nsig * 0.4)
    del noise
    img = np.clip(img, 0, 255).astype(np.uint8)
    quality = int(rng.integers(55, 91))
    path = os.path.join(out_dir, meta["qid"] + ".jpg")
    Image.fromarray(img).save(path, quality=quality)
    meta.update({
        "size": [W, H], "em_px": round(em_photo, 1), "rotation_deg": round(math.degrees(theta), 2),
        "tilt": round(tilt, 3), "jpeg_q": quality, "noise": round(nsig, 1), "effects": fx,
        "n_problems": sp["n"], "two_col": sp["two_col"], "framed_pos": sp["framed_pos"],
        "label_style": sp["label_style"], "framed_label": sp["labels"][sp["framed_pos"]],
        "score": bool(sp["scores"][sp["framed_pos"]]), "any_score": any(sp["scores"]),
        "title": bool(sp["title"]), "name_line": bool(sp["name_line"]), "section": bool(sp["sections"]),
        "footer": bool(sp["footer"]), "fonts": [sp["cjk_font"], sp["latin_font"]], "bold": sp["bold"],
        "mark": (sp["mark"]["kind"] + ("@framed" if sp["mark"]["target"] == sp["framed_pos"] else "@other")) if sp["mark"] else None,
        "show_through": sp["show_through"], "neighbour_ids": [bank[i]["id"] for i in sp["items"] if i != framed_idx],
        "framed_box_photo": [[round(float(a), 1) for a in p] for p in q],
    })
    return meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bank", required=True)
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--meta", action="store_true", help="also write meta.jsonl")
    a = ap.parse_args()
    t0 = time.time()
    bank = load_bank(a.bank)
    if len(bank) < 6:
        sys.exit("bank too small")
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng([a.seed, 999983])
    order = []
    while len(order) < a.count:
        order.extend(int(i) for i in rng.permutation(len(bank)))
    order = order[:a.count]
    jobs = [(i, order[i], a.seed, a.out) for i in range(a.count)]
    if a.workers > 1:
        with ProcessPoolExecutor(a.workers, initializer=_init, initargs=(a.bank,)) as ex:
            metas = list(ex.map(make_photo, jobs, chunksize=2))
    else:
        _init(a.bank)
        metas = [make_photo(j) for j in jobs]
    with open(os.path.join(a.out, "truth.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["qid", "text"])
        for m, j in zip(metas, jobs):
            w.writerow([m["qid"], bank[j[1]]["question"]])
    with open(os.path.join(a.out, "queries.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for m, j in zip(metas, jobs):
            w.writerow([m["qid"], bank[j[1]]["question"], bank[j[1]]["id"], "exact"])
    if a.meta:
        with open(os.path.join(a.out, "meta.jsonl"), "w", encoding="utf-8") as f:
            for m in metas:
                f.write(json.dumps(m, ensure_ascii=False) + "\n")
    print(f"wrote {a.count} photos to {a.out} in {time.time() - t0:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
