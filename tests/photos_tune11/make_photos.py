#!/usr/bin/env python3
"""Synthetic phone photos of printed worksheets, one framed problem per photo.

Usage:
    python make_photos.py --bank BANK OUT_DIR [qid ...] [--jobs N]

Writes OUT_DIR/<qid>.jpg (v001 ... v120), truth.csv, queries.csv, meta.jsonl.
Every random choice comes from SEED and the qid, so a single photo can be
remade byte-identically on its own.
"""
import argparse
import csv
import hashlib
import json
import math
import os
import random
import sys
import time
from functools import lru_cache
from multiprocessing import Pool

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

SEED = "photos_tune11/2024-v1"
N_PHOTOS = 120

# --------------------------------------------------------------------------
# fonts
NOTO = "/usr/share/fonts/opentype/noto/"
DJV = "/usr/share/fonts/truetype/dejavu/"
LIB = "/usr/share/fonts/truetype/liberation/"
F_SANS_CJK = (NOTO + "NotoSansCJK-Regular.ttc", 2)
F_SANS_CJK_B = (NOTO + "NotoSansCJK-Bold.ttc", 2)
F_SERIF_CJK = (NOTO + "NotoSerifCJK-Regular.ttc", 2)
F_SERIF_CJK_B = (NOTO + "NotoSerifCJK-Bold.ttc", 2)
F_MONO_CJK = (NOTO + "NotoSansCJK-Regular.ttc", 7)

# (name, regular, bold, kinds)
ZH_FONTS = [
    ("sans", F_SANS_CJK, F_SANS_CJK_B, ["font_sans"]),
    ("sans_bold", F_SANS_CJK_B, F_SANS_CJK_B, ["font_sans", "font_bold"]),
    ("serif", F_SERIF_CJK, F_SERIF_CJK_B, ["font_serif"]),
    ("serif_bold", F_SERIF_CJK_B, F_SERIF_CJK_B, ["font_serif", "font_bold"]),
    ("mono", F_MONO_CJK, F_SANS_CJK_B, ["font_mono"]),
    ("sans_cond", F_SANS_CJK, F_SANS_CJK_B, ["font_sans", "font_condensed"]),
    ("serif_cond", F_SERIF_CJK, F_SERIF_CJK_B, ["font_serif", "font_condensed"]),
]
EN_FONTS = [
    ("dejavu_sans", (DJV + "DejaVuSans.ttf", 0), (DJV + "DejaVuSans-Bold.ttf", 0), ["font_sans"]),
    ("dejavu_serif", (DJV + "DejaVuSerif.ttf", 0), (DJV + "DejaVuSerif-Bold.ttf", 0), ["font_serif"]),
    ("lib_sans", (LIB + "LiberationSans-Regular.ttf", 0), (LIB + "LiberationSans-Bold.ttf", 0), ["font_sans"]),
    ("lib_serif", (LIB + "LiberationSerif-Regular.ttf", 0), (LIB + "LiberationSerif-Bold.ttf", 0), ["font_serif"]),
    ("lib_serif_bold", (LIB + "LiberationSerif-Bold.ttf", 0), (LIB + "LiberationSerif-Bold.ttf", 0), ["font_serif", "font_bold"]),
    ("lib_narrow", (LIB + "LiberationSansNarrow-Regular.ttf", 0), (LIB + "LiberationSansNarrow-Bold.ttf", 0), ["font_sans", "font_condensed"]),
    ("djv_cond", (DJV + "DejaVuSansCondensed.ttf", 0), (DJV + "DejaVuSansCondensed-Bold.ttf", 0), ["font_sans", "font_condensed"]),
    ("djv_serif_cond_bold", (DJV + "DejaVuSerifCondensed-Bold.ttf", 0), (DJV + "DejaVuSerifCondensed-Bold.ttf", 0), ["font_serif", "font_condensed", "font_bold"]),
    ("djv_sans_bold", (DJV + "DejaVuSans-Bold.ttf", 0), (DJV + "DejaVuSans-Bold.ttf", 0), ["font_sans", "font_bold"]),
    ("djv_light", (DJV + "DejaVuSans-ExtraLight.ttf", 0), (DJV + "DejaVuSans.ttf", 0), ["font_sans", "font_light"]),
    ("lib_mono", (LIB + "LiberationMono-Regular.ttf", 0), (LIB + "LiberationMono-Bold.ttf", 0), ["font_mono"]),
]
HAND_FONTS = [(DJV + "DejaVuSans-Oblique.ttf", 0), (DJV + "DejaVuSerif-Italic.ttf", 0),
              (LIB + "LiberationSans-Italic.ttf", 0), (LIB + "LiberationSerif-Italic.ttf", 0)]


@lru_cache(maxsize=None)
def get_font(spec, size):
    return ImageFont.truetype(spec[0], int(size), index=spec[1])


@lru_cache(maxsize=None)
def has_glyph(spec, ch):
    f = get_font(spec, 24)
    a = f.getmask(ch)
    b = f.getmask("\U000F0000")
    return not (a.size == b.size and bytes(a) == bytes(b))


# --------------------------------------------------------------------------
# randomness
def seed_int(*parts):
    h = hashlib.sha256("|".join([SEED] + [str(p) for p in parts]).encode("utf-8")).digest()
    return int.from_bytes(h[:8], "big")


def rng_for(*parts):
    return random.Random(seed_int(*parts))


def nprng_for(*parts):
    return np.random.default_rng(seed_int(*parts))


# --------------------------------------------------------------------------
# bank and global plan
SUP = {"²": "2", "³": "3", "¹": "1"}
SUB = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6",
       "₇": "7", "₈": "8", "₉": "9", "ₙ": "n"}


def is_cjk(ch):
    o = ord(ch)
    return 0x4E00 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF or ch in "“”《》"


def load_bank(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                d = json.loads(line)
                rows.append({"id": d["id"], "question": d["question"]})
    return rows


def has_supsub(q):
    return any(c in SUP or c in SUB for c in q)


def build_plan(bank):
    """Global, qid-independent plan: which bank question each photo frames and the
    page-level attributes that should be spread evenly over the set."""
    g = rng_for("plan")
    en = [i for i, r in enumerate(bank) if not any("\u4e00" <= c <= "\u9fff" for c in r["question"])]
    zh = [i for i in range(len(bank)) if i not in set(en)]

    def special(i):
        q = bank[i]["question"]
        return "___" in q or has_supsub(q)

    def order(pool, n):
        sp = [i for i in pool if special(i)]
        rest = [i for i in pool if not special(i)]
        g.shuffle(sp)
        g.shuffle(rest)
        chosen = (sp + rest)[:n]
        g.shuffle(chosen)
        return chosen

    n_en = min(30, len(en))
    n_zh = N_PHOTOS - n_en
    en_q = order(en, n_en)
    zh_q = order(zh, n_zh)
    while len(zh_q) < n_zh:  # tiny banks: repeat
        zh_q.append(g.choice(zh))
    langs = ["en"] * n_en + ["zh"] * n_zh
    g.shuffle(langs)
    two_col = [True] * (N_PHOTOS // 2) + [False] * (N_PHOTOS - N_PHOTOS // 2)
    g.shuffle(two_col)
    sizes = ([(1280, 960)] * 54 + [(960, 1280)] * 50 +
             [(1600, 1200), (1200, 1600), (1024, 768), (768, 1024), (1440, 1080), (1080, 1440),
              (1920, 1080), (1080, 1920), (1600, 1200), (1024, 768), (1200, 1600), (1280, 720),
              (1440, 1080), (768, 1024), (1080, 1440), (1600, 1200)])
    sizes = sizes[:N_PHOTOS]
    g.shuffle(sizes)
    # capture mode: paper / screen; occluders only on paper
    mode = ["screen_phone"] * 9 + ["screen_laptop"] * 9 + ["paper"] * (N_PHOTOS - 18)
    g.shuffle(mode)
    occl = []
    for m in mode:
        occl.append(None)
    paper_idx = [i for i, m in enumerate(mode) if m == "paper"]
    g.shuffle(paper_idx)
    for i in paper_idx[:15]:
        occl[i] = "finger"
    for i in paper_idx[15:26]:
        occl[i] = "pen"
    zh_styles = ["fwdot", "dot", "dunhao", "paren", "circled", "diti"]
    en_styles = ["dot", "paren", "q", "question"]
    plan = []
    ie = iz = 0
    for k in range(N_PHOTOS):
        if langs[k] == "en":
            bi = en_q[ie]
            style = en_styles[ie % len(en_styles)]
            font = EN_FONTS[ie % len(EN_FONTS)][0]
            ie += 1
        else:
            bi = zh_q[iz]
            style = zh_styles[iz % len(zh_styles)]
            font = ZH_FONTS[iz % len(ZH_FONTS)][0]
            iz += 1
        plan.append({"qid": "v%03d" % (k + 1), "bank_index": bi, "lang": langs[k],
                     "two_col": two_col[k], "size": sizes[k], "mode": mode[k],
                     "occluder": occl[k], "num_style": style, "font": font})
    return plan, en, zh


# --------------------------------------------------------------------------
# text layout
CLOSING = set("，。、？！：；）》”’,.?!:;)]%")


def to_atoms(text, blank_mode, blank_len):
    """Split text into unbreakable atoms; each atom is a list of (string, style)."""
    atoms = []
    cur = []

    def push(s, st):
        if cur and cur[-1][1] == st:
            cur[-1] = (cur[-1][0] + s, st)
        else:
            cur.append((s, st))

    i = 0
    while i < len(text):
        ch = text[i]
        if text.startswith("___", i):
            j = i
            while j < len(text) and text[j] == "_":
                j += 1
            if cur:
                atoms.append(cur)
            cur = []
            if blank_mode == "line":
                atoms.append([("", "blank:%d" % blank_len)])
            else:
                atoms.append([("_" * blank_len, "n")])
            i = j
            continue
        if ch in SUP:
            push(SUP[ch], "sup")
        elif ch in SUB:
            push(SUB[ch], "sub")
        elif ch == " ":
            push(" ", "n")
            atoms.append(cur)
            cur = []
        elif is_cjk(ch) and ch not in CLOSING:
            if cur:
                atoms.append(cur)
            cur = []
            push(ch, "n")
            if ch in "（《“(":
                pass
            else:
                atoms.append(cur)
                cur = []
        elif ch in CLOSING:
            if not cur and atoms:
                cur = atoms.pop()
            push(ch, "n")
        else:
            if cur and is_cjk(cur[-1][0][-1:] or "a") and cur[-1][0][-1:] not in "（《“(":
                atoms.append(cur)
                cur = []
            push(ch, "n")
        i += 1
    if cur:
        atoms.append(cur)
    # merge opening brackets with the following atom
    out = []
    for a in atoms:
        if out and out[-1] and out[-1][-1][0] and out[-1][-1][0][-1] in "（《“(" and out[-1][-1][1] == "n" \
                and len("".join(s for s, _ in out[-1])) == 1:
            out[-1] = out[-1] + a
        else:
            out.append(a)
    return [a for a in out if a]


class Typesetter:
    def __init__(self, spec, fallback, size):
        self.spec = spec
        self.fallback = fallback
        self.size = size

    def runs(self, s, st):
        """Split a styled piece into (text, font, dy) runs by glyph availability."""
        fs = self.size
        if st == "n":
            size, dy = fs, 0.0
        elif st == "sup":
            size, dy = fs * 0.62, -fs * 0.36
        else:
            size, dy = fs * 0.62, fs * 0.17
        out = []
        for ch in s:
            sp = self.spec if has_glyph(self.spec, ch) else self.fallback
            if out and out[-1][1] == sp:
                out[-1][0] += ch
            else:
                out.append([ch, sp])
        return [(t, get_font(sp, size), dy) for t, sp in out]

    def piece_width(self, s, st):
        if st.startswith("blank:"):
            return self.size * int(st.split(":")[1]) * 0.55
        return sum(f.getlength(t) for t, f, _ in self.runs(s, st))

    def atom_width(self, atom):
        return sum(self.piece_width(s, st) for s, st in atom)

    def draw_atom(self, draw, x, base, atom, bbox):
        for s, st in atom:
            if st.startswith("blank:"):
                w = self.piece_width(s, st)
                y = base + self.size * 0.14
                lw = max(2, int(round(self.size / 14)))
                draw.line([(x + 2, y), (x + w - 2, y)], fill=255, width=lw)
                grow(bbox, (x, y - lw, x + w, y + lw))
                x += w
                continue
            for t, f, dy in self.runs(s, st):
                draw.text((x, base + dy), t, font=f, fill=255, anchor="ls")
                if t.strip():
                    grow(bbox, draw.textbbox((x, base + dy), t, font=f, anchor="ls"))
                x += f.getlength(t)
        return x


def grow(b, r):
    b[0] = min(b[0], r[0]); b[1] = min(b[1], r[1])
    b[2] = max(b[2], r[2]); b[3] = max(b[3], r[3])


def new_bbox():
    return [1e9, 1e9, -1e9, -1e9]


def layout_block(draw, ts, label_atoms, atoms, x0, width, y_top, line_h, hanging, label_ts=None):
    """Draw a problem (label + text) starting at y_top. Returns info dict."""
    label_ts = label_ts or ts
    fs = ts.size
    base = y_top + fs * 0.9
    bbox = new_bbox()
    lbox = new_bbox()
    x = x0
    for a in label_atoms:
        x = label_ts.draw_atom(draw, x, base, a, lbox)
    if label_atoms:
        x += fs * 0.3
    grow(bbox, lbox) if lbox[2] > lbox[0] else None
    indent = (x - x0) if hanging else 0.0
    line_start = True
    last_end = x
    nlines = 1
    for a in atoms:
        w = ts.atom_width(a)
        if not line_start and x + w > x0 + width and x > x0 + indent + 1:
            # strip a trailing space effect: simply wrap
            base += line_h
            nlines += 1
            x = x0 + indent
            line_start = True
        if line_start and len(a) == 1 and a[0][0] == " ":
            continue
        x = ts.draw_atom(draw, x, base, a, bbox)
        last_end = x
        line_start = False
    return {"bbox": bbox, "label_bbox": lbox, "last_end": last_end, "last_base": base,
            "bottom": base + fs * 0.3, "nlines": nlines}


# --------------------------------------------------------------------------
# labels and headers
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
ZH_NUM = "一二三四五六七八九十"


def label_text(style, n, r):
    r = random.Random(r)  # per-page variant: same choice for every number on the page
    if style == "fwdot":
        return "%d．" % n
    if style == "dot":
        return "%d." % n
    if style == "dunhao":
        return "%d、" % n
    if style == "paren":
        return r.choice(["(%d)", "（%d）"]) % n
    if style == "circled":
        return CIRCLED[n - 1]
    if style == "diti":
        return "第%d题" % n
    if style == "q":
        return r.choice(["Q%d.", "Q%d"]) % n
    if style == "question":
        return r.choice(["Question %d.", "Question %d:"]) % n
    raise ValueError(style)


NUM_KIND = {"fwdot": "num_fullwidth_dot", "dot": "num_dot", "dunhao": "num_dunhao", "paren": "num_paren",
            "circled": "num_circled", "diti": "num_di_ti", "q": "num_q", "question": "num_question"}

ZH_TITLES = ["七年级数学单元练习", "期中复习题（一）", "课后练习", "初二物理周测", "综合练习卷", "高一化学随堂练习",
             "寒假作业（三）", "基础知识巩固练习"]
EN_TITLES = ["Weekly Review Worksheet", "Grade 8 Practice Sheet", "Unit 3 Quiz", "Homework Sheet",
             "Revision Exercises", "Mid-term Practice"]
ZH_SECTIONS = ["一、选择题", "二、填空题", "三、解答题", "一、计算题", "二、简答题", "三、应用题", "四、综合题"]
EN_SECTIONS = ["Part A", "Part B: Short Answers", "Section 2", "Part C - Grammar", "Part A: Calculation"]


def zh_score_heading(r):
    return "第%s题（%d分）" % (r.choice(ZH_NUM[:5]), r.choice([3, 4, 5, 6, 10]))


def en_score_heading(r):
    return r.choice(["Homework %d, Question %d" % (r.randint(1, 9), r.randint(1, 5)),
                     "Exercise %d (%d points)" % (r.randint(1, 6), r.choice([5, 10, 20]))])


# --------------------------------------------------------------------------
# page rendering
def render_page(spec, bank, r, kinds, extra_gap=1.0):
    """Render the printed page. Returns dict with page image (RGB uint8) and layout."""
    lang = spec["lang"]
    fonts = ZH_FONTS if lang == "zh" else EN_FONTS
    fdef = [f for f in fonts if f[0] == spec["font"]][0]
    kinds.update(fdef[3])
    reg, bold = fdef[1], fdef[2]
    fallback = F_SERIF_CJK if "serif" in spec["font"] else F_SANS_CJK
    condensed = lang == "zh" and "font_condensed" in fdef[3]
    squash = r.uniform(0.76, 0.86) if condensed else 1.0

    two = spec["two_col"]
    PW = int(1700 / squash)
    margin = r.randint(100, 160) / squash
    fs = r.randint(28, 36) if two else r.randint(30, 44)
    if lang == "en" and fs > 40:
        fs -= 4
    line_h = fs * r.uniform(1.35, 1.7)
    gap = fs * r.choice([r.uniform(0.7, 1.4), r.uniform(1.4, 2.6), r.uniform(2.6, 4.0)])
    hanging = r.random() < 0.6
    colgap = r.uniform(2.2, 3.5) * fs
    # one-column sheets: text block between 60 % and 100 % of the usable width
    if not two and (r.random() < 0.5 or extra_gap > 1.0):
        margin += (PW - 2 * margin) * (r.uniform(0.0, 0.2) if extra_gap == 1.0 else r.uniform(0.12, 0.25))
    # leave enough room between problems (answer space) so that, at a scale where a
    # whole problem line fits across the photo, neighbouring centres are well apart
    W, H = spec["size"]
    text_w = ((PW - 2 * margin - colgap) / 2 if two else PW - 2 * margin) * squash
    s_h = min(0.9 * W / text_w, spec.get("zoom_cap", 60.0) / fs)
    need = (0.08 * H * 1.3) / s_h + fs * 0.3
    gap = max(gap, need - 1.25 * fs) * extra_gap
    ts = Typesetter(reg, fallback, fs)
    ts_label = Typesetter(bold if r.random() < 0.4 else reg, fallback, fs)
    ts_bold = Typesetter(bold, fallback, fs)
    ts_title = Typesetter(bold, fallback, fs * 1.35)

    # which problems on the page
    pool = spec["pool"]
    framed_bi = spec["bank_index"]
    others = [i for i in pool if i != framed_bi]
    r.shuffle(others)
    if two:
        rows = r.randint(4, 6)
        n = rows * 2
        fcol = r.randint(0, 1)
        frow = 1 if r.random() < 0.3 else r.randint(1, rows - 2)
        fpos = fcol * rows + frow
        kinds.add("two_column")
        kinds.add("framed_left_col" if fcol == 0 else "framed_right_col")
    else:
        n = r.randint(7, 10)
        rows = n
        fcol = 0
        frow = 1 if r.random() < 0.3 else r.randint(1, n - 2)
        fpos = frow
        kinds.add("one_column")
    others = others[:n - 1]
    probs = others[:fpos] + [framed_bi] + others[fpos:]
    style = spec["num_style"]
    max_start = 20 - n if style == "circled" else 25
    start = r.randint(1, max(1, min(max_start, 16)))
    score_note = None
    if r.random() < 0.35:
        if lang == "zh":
            score_note = r.choice(["（%d分）", "(%d分)", "（本题%d分）"])
        else:
            score_note = r.choice(["(%d points)", "(%d marks)", "[%d points]"])
    blank_mode = r.choice(["line", "line", "underscores"])
    label_seed = r.randint(0, 10 ** 9)

    # headers
    hdr_top = []
    if r.random() < 0.45:
        hdr_top.append("title")
    if r.random() < 0.35:
        hdr_top.append("name")
    if r.random() < 0.45:
        hdr_top.append(r.choice(["section", "section", "score"]))
    between = None
    if r.random() < 0.3:
        between = (fcol, frow + r.randint(0, 1), r.choice(["section", "section", "score"]))

    H0 = int(8000)
    ink = Image.new("L", (PW, H0), 0)
    d = ImageDraw.Draw(ink)
    headers = []
    y = margin * squash * r.uniform(0.7, 1.1)

    def heading_text(kind_):
        if kind_ == "section":
            return r.choice(ZH_SECTIONS if lang == "zh" else EN_SECTIONS)
        return zh_score_heading(r) if lang == "zh" else en_score_heading(r)

    for h in hdr_top:
        b = new_bbox()
        if h == "title":
            t = r.choice(ZH_TITLES if lang == "zh" else EN_TITLES)
            atoms = to_atoms(t, "line", 4)
            w = sum(ts_title.atom_width(a) for a in atoms)
            x = (PW - w) / 2
            base = y + ts_title.size * 0.9
            for a in atoms:
                x = ts_title.draw_atom(d, x, base, a, b)
            y = base + ts_title.size * 0.3 + fs * 0.8
            kinds_name = "header_title"
        elif h == "name":
            if lang == "zh":
                t = r.choice(["姓名：________  班级：________  学号：______",
                              "班级______  姓名______  日期______", "姓名：__________   得分：______"])
            else:
                t = r.choice(["Name: __________   Class: ______   Date: ______",
                              "Name ____________  Score ______"])
            base = y + fs * 0.9
            x = margin
            # typed underscores, drawn as one run
            b2 = new_bbox()
            x = ts.draw_atom(d, x, base, [(t, "n")], b2)
            grow(b, b2)
            y = base + fs * 0.3 + fs * 0.9
            kinds_name = "header_name_line"
        else:
            t = heading_text(h)
            base = y + fs * 0.9
            x = margin
            for a in to_atoms(t, "line", 4):
                x = ts_bold.draw_atom(d, x, base, a, b)
            y = base + fs * 0.3 + fs * 0.7
            kinds_name = "header_section" if h == "section" else "header_score_heading"
        headers.append({"bbox": b, "kind": kinds_name, "between": False})
    y += fs * r.uniform(0.2, 0.8)

    colw = (PW - 2 * margin - (colgap if two else 0)) / (2 if two else 1)
    problems = []
    for c in range(2 if two else 1):
        yc = y
        x0 = margin + c * (colw + colgap)
        for rr in range(rows):
            pi = c * rows + rr
            if between and between[0] == c and between[1] == rr:
                b = new_bbox()
                t = heading_text(between[2])
                base = yc + fs * 0.9
                xx = x0
                for a in to_atoms(t, "line", 4):
                    xx = ts_bold.draw_atom(d, xx, base, a, b)
                headers.append({"bbox": b, "between": True,
                                "kind": "header_section" if between[2] == "section" else "header_score_heading"})
                yc = base + fs * 0.3 + fs * r.uniform(0.5, 1.0)
            num = start + pi
            lab = label_text(style, num, label_seed)
            label_atoms = [[(lab, "n")]]
            if score_note:
                sn = score_note % r.choice([2, 3, 4, 5, 6])
                label_atoms.append([(sn, "n")])
            q = bank[probs[pi]]["question"]
            if style == "question" or style == "q" or lang == "en":
                label_atoms[0] = [(lab + " ", "n")]
            atoms = to_atoms(q, blank_mode, r.randint(4, 7) if blank_mode == "line" else r.randint(4, 8))
            info = layout_block(d, ts, label_atoms, atoms, x0, colw, yc, line_h, hanging, ts_label)
            info.update({"bank_index": probs[pi], "col": c, "row": rr, "x0": x0, "colw": colw,
                         "framed": pi == fpos})
            problems.append(info)
            yc = info["bottom"] + gap
    page_h = int(max(p["bottom"] for p in problems) + margin)
    ink = ink.crop((0, 0, PW, page_h))
    if squash != 1.0:
        ink = ink.resize((int(round(PW * squash)), page_h), Image.LANCZOS)
        for obj in problems + headers:
            for key in ("bbox", "label_bbox"):
                if key in obj:
                    b = obj[key]
                    b[0] *= squash; b[2] *= squash
            if "last_end" in obj:
                obj["last_end"] *= squash
                obj["x0"] *= squash
                obj["colw"] *= squash
        PW = ink.size[0]
    framed = problems[fpos]
    q = bank[framed_bi]["question"]
    if "___" in q:
        kinds.add("blank_line" if blank_mode == "line" else "blank_underscores")
    if has_supsub(q):
        kinds.add("supsub")
    kinds.add(NUM_KIND[style])
    if score_note:
        kinds.add("score_note")
    kinds.add("lang_" + lang)
    # compose printed page
    a = np.asarray(ink, dtype=np.float32) / 255.0
    paper = np.array([r.uniform(238, 252), r.uniform(236, 250), r.uniform(228, 246)], np.float32)
    ink_col = np.array([r.uniform(15, 60)] * 3, np.float32) + np.array([0, 0, r.uniform(0, 15)], np.float32)
    page = paper[None, None, :] * (1 - a[..., None]) + ink_col[None, None, :] * a[..., None]
    return {"page": page, "problems": problems, "headers": headers, "fs": fs, "fpos": fpos,
            "line_h": line_h, "margin": margin * squash, "PW": PW, "PH": page_h, "two": two}


# --------------------------------------------------------------------------
# pen marks on the page
def boxes_overlap(a, b, pad=0):
    return not (a[2] + pad < b[0] or b[2] + pad < a[0] or a[3] + pad < b[1] or b[3] + pad < a[1])


def wobbly(pts, r, amp):
    return [(x + r.uniform(-amp, amp), y + r.uniform(-amp, amp)) for x, y in pts]


def cv_poly(img, pts, color, thick):
    arr = np.array([[int(round(x * 16)), int(round(y * 16))] for x, y in pts], np.int32)
    cv2.polylines(img, [arr], False, color, int(max(1, round(thick))), cv2.LINE_AA, shift=4)


def add_pen_marks(L, r, kinds):
    page = L["page"]
    probs = L["problems"]
    fs = L["fs"]
    fpos = L["fpos"]
    if r.random() > 0.45:
        return
    red = (r.uniform(170, 215), r.uniform(20, 60), r.uniform(30, 70))
    blue = (r.uniform(20, 50), r.uniform(40, 70), r.uniform(140, 190))
    color = red if r.random() < 0.75 else blue
    thick = max(2.0, fs * r.uniform(0.07, 0.11))
    text_boxes = [p["bbox"] for p in probs] + [h["bbox"] for h in L["headers"]]
    col_idx = probs[fpos]["col"]
    cand = [i for i in range(len(probs)) if probs[i]["col"] == col_idx and abs(i - fpos) <= 1]
    nmarks = r.choice([1, 1, 2])
    for _ in range(nmarks):
        i = r.choice(cand)
        p = probs[i]
        kind = r.choice(["circle", "circle", "tick", "tick", "cross", "score"])
        if kind == "circle":
            lb = p["label_bbox"]
            cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2
            rx = (lb[2] - lb[0]) / 2 + fs * 0.28
            ry = (lb[3] - lb[1]) / 2 + fs * 0.3
            a0 = r.uniform(0, 2 * math.pi)
            span = 2 * math.pi * r.uniform(1.03, 1.15)
            pts = [(cx + rx * math.cos(a0 + span * t / 40) * (1 + 0.04 * math.sin(t)),
                    cy + ry * math.sin(a0 + span * t / 40)) for t in range(41)]
            # circle may not touch the text to the right of the label too much
            cv_poly(page, wobbly(pts, r, fs * 0.02), color, thick)
            kinds.add("pen_circle")
            continue
        size = fs * r.uniform(1.0, 1.5)
        # location: right after the last line, else left margin
        spots = []
        spots.append((p["last_end"] + fs * r.uniform(0.6, 1.5), p["last_base"] - size * 0.9))
        spots.append((p["x0"] - size - fs * r.uniform(0.3, 0.8), p["bbox"][1] - fs * 0.1))
        spots.append((p["x0"] + p["colw"] - size * 1.2, p["bbox"][3] + fs * 0.1))
        placed = False
        for sx, sy in spots:
            w = size * (2.2 if kind == "score" else 1.0)
            box = (sx, sy, sx + w, sy + size)
            if box[0] < 4 or box[2] > L["PW"] - 4 or box[1] < 4 or box[3] > L["PH"] - 4:
                continue
            if any(boxes_overlap(box, tb, fs * 0.15) for tb in text_boxes):
                continue
            placed = True
            break
        if not placed:
            continue
        text_boxes.append(box)
        if kind == "tick":
            pts = [(sx, sy + size * 0.55), (sx + size * 0.35, sy + size * 0.95), (sx + size * 1.0, sy)]
            dense = []
            for (x1, y1), (x2, y2) in zip(pts[:-1], pts[1:]):
                for t in range(8):
                    dense.append((x1 + (x2 - x1) * t / 8, y1 + (y2 - y1) * t / 8))
            dense.append(pts[-1])
            cv_poly(page, wobbly(dense, r, fs * 0.015), color, thick)
            kinds.add("pen_tick")
        elif kind == "cross":
            cv_poly(page, wobbly([(sx, sy), (sx + size * 0.5, sy + size * 0.5), (sx + size, sy + size)], r, fs * 0.03), color, thick)
            cv_poly(page, wobbly([(sx + size, sy), (sx + size * 0.5, sy + size * 0.5), (sx, sy + size)], r, fs * 0.03), color, thick)
            kinds.add("pen_cross")
        else:
            txt = r.choice(["8", "-2", "5", "+3", "10", "6分", "-1", "4/5"])
            fspec = r.choice(HAND_FONTS) if not any(is_cjk(c) for c in txt) else F_SANS_CJK
            f = get_font(fspec, size * 0.95)
            im = Image.new("L", (int(w * 1.6) + 20, int(size * 2) + 20), 0)
            ImageDraw.Draw(im).text((10, 10), txt, font=f, fill=255)
            im = im.rotate(r.uniform(-15, 15), resample=Image.BICUBIC, expand=False)
            m = np.asarray(im, np.float32) / 255.0
            x0, y0 = int(sx), int(sy - size * 0.2)
            hh, ww = m.shape
            hh = min(hh, page.shape[0] - y0)
            ww = min(ww, page.shape[1] - x0)
            if hh > 0 and ww > 0:
                m = m[:hh, :ww, None]
                reg = page[y0:y0 + hh, x0:x0 + ww]
                page[y0:y0 + hh, x0:x0 + ww] = reg * (1 - m) + np.array(color, np.float32) * m
            kinds.add("teacher_score")


# --------------------------------------------------------------------------
# geometry
def make_H(p, s, theta, a, b, W, H):
    T1 = np.array([[1, 0, -p[0]], [0, 1, -p[1]], [0, 0, 1]], np.float64)
    S = np.diag([s, s, 1.0])
    c, sn = math.cos(theta), math.sin(theta)
    R = np.array([[c, -sn, 0], [sn, c, 0], [0, 0, 1]], np.float64)
    P = np.array([[1, 0, 0], [0, 1, 0], [a, b, 1]], np.float64)
    T2 = np.array([[1, 0, W / 2], [0, 1, H / 2], [0, 0, 1]], np.float64)
    return T2 @ P @ R @ S @ T1


def tf(Hm, pts):
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.c_[pts, np.ones(len(pts))] @ Hm.T
    w = q[:, 2:3]
    w = np.where(w < 0.05, 0.05, w)
    return q[:, :2] / w


def corners(b):
    return [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]


def centre(b):
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def check_geometry(Hm, L, W, H, strict=1.0):
    probs = L["problems"]
    fp = probs[L["fpos"]]
    m1 = 0.03 * min(W, H)
    m2 = 0.012 * min(W, H)

    def inside(b, m):
        c = tf(Hm, corners(b))
        return (c[:, 0] >= m).all() and (c[:, 0] <= W - m).all() and (c[:, 1] >= m).all() and (c[:, 1] <= H - m).all()

    if not inside(fp["bbox"], m1):
        return False
    for nb in neighbours(L):
        if not inside(probs[nb]["bbox"], m2):
            return False
    ctr = np.array([W / 2, H / 2])
    d0 = np.linalg.norm(tf(Hm, [centre(fp["bbox"])])[0] - ctr)
    for i, p in enumerate(probs):
        if i == L["fpos"]:
            continue
        di = np.linalg.norm(tf(Hm, [centre(p["bbox"])])[0] - ctr)
        if di < 1.5 * strict * d0 or di < d0 + 0.08 * strict * H:
            return False
    return True


def neighbours(L):
    probs = L["problems"]
    f = L["fpos"]
    out = []
    for j in (f - 1, f + 1):
        if 0 <= j < len(probs) and probs[j]["col"] == probs[f]["col"]:
            out.append(j)
    return out


def choose_geometry(L, W, H, r, kinds):
    probs = L["problems"]
    fp = probs[L["fpos"]]
    U = list(fp["bbox"])
    for j in neighbours(L):
        grow(U, probs[j]["bbox"])
    for h in L["headers"]:
        if h["between"] and U[1] - L["fs"] * 3 < h["bbox"][1] < U[3]:
            grow(U, h["bbox"])
    cf = np.array(centre(fp["bbox"]))
    cu = np.array(centre(U))
    fs = L["fs"]
    want_px = r.uniform(19, 30)
    zoom_px = r.choice([r.uniform(22, 30), r.uniform(26, 40), r.uniform(34, 56)])
    rot_big = r.random() < 0.55
    persp = r.random() < 0.45
    best = None
    for attempt in range(60):
        damp = max(0.0, 1.0 - attempt / 40.0)
        theta_deg = (r.uniform(-6, 6) if rot_big else r.uniform(-1.2, 1.2)) * damp
        theta = math.radians(theta_deg)
        if persp:
            a = r.uniform(-2.6e-4, 2.6e-4) * damp
            b = r.uniform(-2.6e-4, 2.6e-4) * damp
        else:
            a = r.uniform(-4e-5, 4e-5) * damp
            b = r.uniform(-4e-5, 4e-5) * damp
        u = r.uniform(0.8, 0.97)
        jitter = np.array([r.uniform(-1, 1), r.uniform(-1, 1)]) * fs * 0.3 * damp
        options = []
        for t in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
            p = cf + t * (cu - cf) + jitter
            rel = np.array(corners(U)) - p
            c, sn = math.cos(theta), math.sin(theta)
            rx = np.abs(rel[:, 0] * c - rel[:, 1] * sn).max()
            ry = np.abs(rel[:, 0] * sn + rel[:, 1] * c).max()
            s_fit = min((W / 2 - 0.04 * W) / rx, (H / 2 - 0.04 * H) / ry) * u
            for s in (min(s_fit, zoom_px / fs), s_fit):
                Hm = make_H(p, s, theta, a, b, W, H)
                if check_geometry(Hm, L, W, H, strict=1.08):
                    options.append((t, s, Hm, theta_deg, a, b))
                    break
        if options:
            good = [o for o in options if o[1] * fs >= want_px]
            pick = good[0] if good else max(options, key=lambda o: o[1])
            best = pick
            break
    if best is None:
        # fallback: no rotation, no perspective, framed centre in the middle, shrink until it fits
        p = cf
        for s in np.linspace(1.2, 0.12, 60):
            Hm = make_H(p, s, 0.0, 0.0, 0.0, W, H)
            if check_geometry(Hm, L, W, H, strict=1.0):
                best = (0.0, s, Hm, 0.0, 0.0, 0.0)
                break
    if best is None:
        raise RuntimeError("no geometry found")
    t, s, Hm, theta_deg, a, b = best
    if abs(theta_deg) >= 1.5:
        kinds.add("rotation")
    if max(abs(a), abs(b)) >= 8e-5:
        kinds.add("perspective")
    xh = s * fs
    if xh < 23:
        kinds.add("text_small")
    elif xh > 38:
        kinds.add("text_large")
    return Hm, s


# --------------------------------------------------------------------------
# photo synthesis
def smooth_noise(g, H, W, cells, amp):
    small = g.normal(0, 1, (cells, cells)).astype(np.float32)
    big = cv2.resize(small, (W, H), interpolation=cv2.INTER_CUBIC)
    return big * amp


def desk_texture(g, r, H, W):
    base = np.array(r.choice([(150, 110, 72), (118, 118, 124), (205, 200, 192), (80, 70, 62), (170, 150, 120)]),
                    np.float32)
    img = np.ones((H, W, 3), np.float32) * base
    img += smooth_noise(g, H, W, 6, 12)[..., None]
    if r.random() < 0.5:  # wood grain
        yy = np.arange(H, dtype=np.float32)[:, None]
        xx = np.arange(W, dtype=np.float32)[None, :]
        ang = r.uniform(-0.3, 0.3)
        grain = np.sin((yy * math.cos(ang) + xx * math.sin(ang)) / r.uniform(3, 9) +
                       smooth_noise(g, H, W, 4, 3)) * 6
        img += grain[..., None]
    img += g.normal(0, 2.0, img.shape).astype(np.float32)
    return img


def warp_page(page, Hm, W, H, s):
    """Warp the page into the photo with area-style prefiltering."""
    inv = np.linalg.inv(Hm)
    cp = tf(inv, [(0, 0), (W, 0), (W, H), (0, H)])
    x0 = int(max(0, math.floor(cp[:, 0].min()) - 8))
    y0 = int(max(0, math.floor(cp[:, 1].min()) - 8))
    x1 = int(min(page.shape[1], math.ceil(cp[:, 0].max()) + 8))
    y1 = int(min(page.shape[0], math.ceil(cp[:, 1].max()) + 8))
    if x1 <= x0 or y1 <= y0:
        return np.zeros((H, W, 3), np.float32), np.zeros((H, W), np.float32)
    crop = page[y0:y1, x0:x1]
    k = min(1.0, s * 1.25)
    if k < 1.0:
        crop = cv2.resize(crop, (max(1, int(crop.shape[1] * k)), max(1, int(crop.shape[0] * k))),
                          interpolation=cv2.INTER_AREA)
    kx = crop.shape[1] / (x1 - x0)
    ky = crop.shape[0] / (y1 - y0)
    A = np.array([[kx, 0, -x0 * kx], [0, ky, -y0 * ky], [0, 0, 1]], np.float64)
    Hc = Hm @ np.linalg.inv(A)
    out = cv2.warpPerspective(crop, Hc, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=(0, 0, 0))
    mask = cv2.warpPerspective(np.ones(crop.shape[:2], np.float32), Hc, (W, H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out, mask


def page_coords(Hm, W, H):
    inv = np.linalg.inv(Hm)
    xs, ys = np.meshgrid(np.arange(W, dtype=np.float64) + 0.5, np.arange(H, dtype=np.float64) + 0.5)
    X = inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]
    Y = inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]
    Z = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    return X / Z, Y / Z


def screen_photo(L, Hm, s, W, H, r, g, kinds, mode):
    page = L["page"]
    fs = L["fs"]
    # screen: emissive white background, slight colour cast
    bg = np.array([r.uniform(225, 250)] * 3, np.float32)
    pg = page.copy()
    pg = pg / 250.0 * bg[None, None, :]
    warped, mask = warp_page(pg, Hm, W, H, s)
    img = warped + (1 - mask[..., None]) * bg[None, None, :]
    # viewport (outside: bezel)
    probs = L["problems"]
    U = list(probs[L["fpos"]]["bbox"])
    for j in neighbours(L):
        grow(U, probs[j]["bbox"])
    # the screen covers the framed block and its neighbours and most of the photo;
    # margins are in page px (photo px / s)
    pw, ph = W / s, H / s
    if mode == "screen_phone":
        mx = [fs * 0.8 + pw * r.uniform(0.0, 0.25) for _ in range(2)]
        my = [fs * 1.5 + ph * r.uniform(0.1, 0.6) for _ in range(2)]
        pitch_px = r.uniform(0.55, 0.95)
    else:
        mx = [fs * 1.5 + pw * r.uniform(0.1, 0.8) for _ in range(2)]
        my = [fs * 1.5 + ph * r.uniform(0.15, 0.8) for _ in range(2)]
        pitch_px = r.uniform(0.9, 1.7)
    vp = [U[0] - mx[0], U[1] - my[0], U[2] + mx[1], U[3] + my[1]]
    X, Y = page_coords(Hm, W, H)
    inside = ((X >= vp[0]) & (X <= vp[2]) & (Y >= vp[1]) & (Y <= vp[3])).astype(np.float32)
    inside = cv2.GaussianBlur(inside, (0, 0), 1.2)
    bezel = np.array([r.uniform(12, 40)] * 3, np.float32)
    img = img * inside[..., None] + bezel[None, None, :] * (1 - inside[..., None])
    # subpixel grid point-sampled by the camera -> aliasing moire
    pitch = pitch_px / s  # page px per screen pixel
    u = X / pitch
    v = Y / pitch
    sub = np.stack([0.72 + 0.28 * np.cos(2 * np.pi * (u - c / 3.0)) for c in range(3)], -1)
    row = 0.86 + 0.14 * np.cos(2 * np.pi * v)
    grid = (sub * row[..., None]).astype(np.float32)
    grid = cv2.GaussianBlur(grid, (0, 0), r.uniform(0.5, 0.9))
    grid = grid / grid.mean(axis=(0, 1), keepdims=True)
    img = img * (0.55 + 0.45 * grid) / (0.55 + 0.45)
    # explicit low-frequency moire bands
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    for _ in range(2):
        ang = r.uniform(0, math.pi)
        lam = r.uniform(25, 90)
        amp = r.uniform(0.05, 0.11)
        warp = smooth_noise(g, H, W, 3, r.uniform(2, 8))
        band = np.sin((xx * math.cos(ang) + yy * math.sin(ang) + warp) * 2 * np.pi / lam + r.uniform(0, 6.3))
        tint = np.array([r.uniform(0.6, 1.4) for _ in range(3)], np.float32)
        img = img * (1 + amp * band[..., None] * tint[None, None, :])
    # colour cast + glare
    cast = np.array([r.uniform(0.9, 1.02), r.uniform(0.95, 1.03), r.uniform(1.0, 1.12)], np.float32)
    img = img * cast
    if r.random() < 0.6:
        cx, cy = r.uniform(0, W), r.uniform(0, H)
        rad = r.uniform(0.2, 0.5) * max(W, H)
        glare = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * rad ** 2)) * r.uniform(15, 40)
        img = img + glare[..., None]
    kinds.add(mode)
    kinds.add("moire")
    return img


def paper_photo(L, Hm, s, W, H, r, g, kinds):
    page = L["page"].copy()
    page += smooth_noise(g, page.shape[0], page.shape[1], 8, 2.0)[..., None]
    warped, mask = warp_page(page, Hm, W, H, s)
    desk = desk_texture(g, r, H, W)
    # soft drop shadow of the page on the desk
    sh = cv2.GaussianBlur(mask, (0, 0), 6)
    desk = desk * (1 - 0.35 * sh[..., None])
    img = warped + desk * (1 - mask[..., None])
    return img


def lighting(img, W, H, r, g, kinds, Lbox):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    if r.random() < 0.55:
        ang = r.uniform(0, 2 * math.pi)
        t = (xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)
        t = t / (0.5 * math.hypot(W, H))
        field = 1.0 + r.uniform(0.12, 0.28) * t
        field *= 1.0 - r.uniform(0.05, 0.2) * (((xx - W / 2) / W) ** 2 + ((yy - H / 2) / H) ** 2) * 2
        img = img * field[..., None]
        kinds.add("uneven_light")
    if r.random() < 0.35:
        # shadow polygon from an edge (phone / hand shadow)
        mask = np.zeros((H, W), np.float32)
        side = r.choice(["left", "right", "top", "bottom", "corner"])
        if side == "left":
            x = r.uniform(0.15, 0.45) * W
            pts = [(0, 0), (x + r.uniform(-0.1, 0.1) * W, 0), (x + r.uniform(-0.1, 0.1) * W, H), (0, H)]
        elif side == "right":
            x = W - r.uniform(0.15, 0.45) * W
            pts = [(W, 0), (x, 0), (x + r.uniform(-0.1, 0.1) * W, H), (W, H)]
        elif side == "top":
            y = r.uniform(0.15, 0.4) * H
            pts = [(0, 0), (W, 0), (W, y + r.uniform(-0.1, 0.1) * H), (0, y)]
        elif side == "bottom":
            y = H - r.uniform(0.15, 0.4) * H
            pts = [(0, H), (W, H), (W, y + r.uniform(-0.1, 0.1) * H), (0, y)]
        else:
            pts = [(W, H), (W - r.uniform(0.3, 0.7) * W, H), (W, H - r.uniform(0.3, 0.7) * H)]
        cv2.fillPoly(mask, [np.array(pts, np.int32)], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), r.uniform(12, 40))
        depth = r.uniform(0.25, 0.45)
        img = img * (1 - depth * mask[..., None])
        kinds.add("shadow")
    return img


def capsule_mask(H, W, p0, p1, rad0, rad1):
    """Filled tapered capsule from p0 (radius rad0) to p1 (radius rad1)."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    d = np.array(p1, np.float32) - np.array(p0, np.float32)
    ln2 = float(d @ d) + 1e-6
    t = np.clip(((xx - p0[0]) * d[0] + (yy - p0[1]) * d[1]) / ln2, 0, 1)
    px = p0[0] + t * d[0]
    py = p0[1] + t * d[1]
    dist = np.sqrt((xx - px) ** 2 + (yy - py) ** 2)
    rad = rad0 + (rad1 - rad0) * t
    return np.clip(rad - dist + 1.0, 0, 1), t, dist / np.maximum(rad, 1)


def add_occluder(img, kind, Hm, L, W, H, r, g, kinds):
    probs = L["problems"]
    fb = tf(Hm, corners(probs[L["fpos"]]["bbox"]))
    fx0, fy0 = fb.min(0) - 14
    fx1, fy1 = fb.max(0) + 14
    nb_boxes = []
    for j in neighbours(L):
        c = tf(Hm, corners(probs[j]["bbox"]))
        nb_boxes.append((*(c.min(0) - 6), *(c.max(0) + 6)))
    mn = min(W, H)
    for attempt in range(30):
        side = r.choice(["left", "right", "bottom", "top", "right", "left"])
        depth = r.uniform(0.1, 0.3) * (1 - attempt / 40)
        along = r.uniform(0.15, 0.85)
        tilt = r.uniform(-0.5, 0.5)
        if side in ("left", "right"):
            ex = -0.05 * W if side == "left" else 1.05 * W
            ey = along * H
            dirx = (1 if side == "left" else -1) * math.cos(tilt)
            diry = math.sin(tilt)
            reach = depth * W
        else:
            ex = along * W
            ey = -0.05 * H if side == "top" else 1.05 * H
            dirx = math.sin(tilt)
            diry = (1 if side == "top" else -1) * math.cos(tilt)
            reach = depth * H
        tip = (ex + dirx * (reach + 0.05 * (W if side in ("left", "right") else H)),
               ey + diry * (reach + 0.05 * (W if side in ("left", "right") else H)))
        back = (ex - dirx * 0.3 * mn, ey - diry * 0.3 * mn)
        if kind == "finger":
            rad = r.uniform(0.055, 0.08) * mn
            m, t, rn = capsule_mask(H, W, back, tip, rad * 1.1, rad)
        else:
            rad = r.uniform(0.014, 0.024) * mn
            m, t, rn = capsule_mask(H, W, back, tip, rad, rad * 0.35)
        ys, xs = np.nonzero(m > 0.02)
        if len(xs) == 0:
            continue
        box = (xs.min(), ys.min(), xs.max(), ys.max())
        sub = m[int(max(0, fy0)):int(min(H, fy1)), int(max(0, fx0)):int(min(W, fx1))]
        if sub.size and sub.max() > 0:
            continue
        if attempt < 20 and any(
                m[int(max(0, b[1])):int(min(H, b[3])), int(max(0, b[0])):int(min(W, b[2]))].max(initial=0) > 0
                for b in nb_boxes):
            continue
        break
    else:
        return img
    if kind == "finger":
        skin = np.array([r.uniform(185, 225), r.uniform(135, 170), r.uniform(105, 140)], np.float32)
        shade = 1.0 - 0.35 * np.clip(rn, 0, 1) ** 2
        col = skin[None, None, :] * shade[..., None]
        nail_c = np.array(tip) - np.array([dirx, diry]) * rad * 0.9
        nail = ((np.mgrid[0:H, 0:W][1] - nail_c[0]) ** 2 + (np.mgrid[0:H, 0:W][0] - nail_c[1]) ** 2) < (rad * 0.55) ** 2
        col[nail] = col[nail] * 0.85 + np.array([235, 200, 190], np.float32) * 0.15
        col = cv2.GaussianBlur(col, (0, 0), r.uniform(2, 5))
        m = cv2.GaussianBlur(m, (0, 0), r.uniform(1.5, 3.5))
        kinds.add("finger")
    else:
        body = np.array(r.choice([(30, 40, 120), (20, 20, 24), (230, 230, 235), (180, 30, 40)]), np.float32)
        shade = 1.0 - 0.45 * np.clip(rn, 0, 1) ** 1.5
        col = body[None, None, :] * shade[..., None]
        tipzone = (t > 0.9)[..., None]
        col = np.where(tipzone, np.array([170, 170, 175], np.float32)[None, None, :] * shade[..., None], col)
        col = cv2.GaussianBlur(col, (0, 0), 1.2)
        m = cv2.GaussianBlur(m, (0, 0), 1.0)
        kinds.add("pen_occluder")
    # contact shadow
    shadow = cv2.GaussianBlur(m, (0, 0), 10)
    shadow = np.roll(shadow, (int(0.02 * mn), int(0.02 * mn)), axis=(0, 1))
    img = img * (1 - 0.35 * shadow[..., None])
    img = img * (1 - m[..., None]) + col * m[..., None]
    return img


def finish(img, W, H, r, g, kinds):
    if r.random() < 0.3:
        sig = r.uniform(0.8, 1.6)
        img = cv2.GaussianBlur(img, (0, 0), sig)
        kinds.add("blur")
    elif r.random() < 0.2:
        ln = r.randint(4, 8)
        ang = r.uniform(0, math.pi)
        k = np.zeros((ln * 2 + 1, ln * 2 + 1), np.float32)
        c = ln
        for i in range(-ln, ln + 1):
            x = int(round(c + i * math.cos(ang) / 1.0 * 0.5))
            y = int(round(c + i * math.sin(ang) / 1.0 * 0.5))
            k[y, x] += 1
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        kinds.add("motion_blur")
    else:
        img = cv2.GaussianBlur(img, (0, 0), 0.55)
    if r.random() < 0.4:
        sig = r.uniform(3, 8)
        img = img + g.normal(0, sig, img.shape).astype(np.float32)
        kinds.add("noise")
    else:
        img = img + g.normal(0, 1.2, img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if r.random() < 0.25:
        q = r.randint(28, 50)
        kinds.add("jpeg_low")
    else:
        q = r.randint(78, 93)
    return img, q


def make_photo(spec, bank, out_dir):
    cv2.setNumThreads(1)
    qid = spec["qid"]
    r = rng_for("photo", qid)
    g = nprng_for("photo-np", qid)
    kinds = set()
    W, H = spec["size"]
    if (W, H) == (1280, 960):
        kinds.add("landscape")
    elif (W, H) == (960, 1280):
        kinds.add("portrait")
    else:
        kinds.add("size_other")
        kinds.add("landscape" if W > H else "portrait")
    # lay out the page; try again (more answer space, narrower text block) when no
    # framing satisfies the rules or the text would come out too small to read
    best = None
    for attempt in range(6):
        kinds_try = set(kinds)
        L = render_page(spec, bank, r, kinds_try, extra_gap=1.0 + 0.25 * attempt)
        try:
            Hm, s = choose_geometry(L, W, H, r, kinds_try)
        except RuntimeError:
            continue
        if best is None or s * L["fs"] > best[2] * best[0]["fs"]:
            best = (L, Hm, s, kinds_try)
        if s * L["fs"] >= 19.0:
            break
    if best is None:
        raise RuntimeError("%s: no layout satisfies the framing rules" % qid)
    L, Hm, s, kinds = best
    if spec["mode"] == "paper":
        add_pen_marks(L, r, kinds)
        img = paper_photo(L, Hm, s, W, H, r, g, kinds)
        img = lighting(img, W, H, r, g, kinds, None)
        if spec["occluder"]:
            img = add_occluder(img, spec["occluder"], Hm, L, W, H, r, g, kinds)
    else:
        if r.random() < 0.3:
            add_pen_marks(L, r, kinds)
        img = screen_photo(L, Hm, s, W, H, r, g, kinds, spec["mode"])
        if r.random() < 0.4:
            img = lighting(img, W, H, r, g, kinds, None)
    # headers visible in the photo
    for h in L["headers"]:
        b = h["bbox"]
        if b[2] <= b[0]:
            continue
        c = tf(Hm, corners(b))
        cx, cy = c.mean(0)
        if 0 <= cx <= W and 0.02 * H <= cy <= 0.98 * H and (c[:, 0].max() - c[:, 0].min()) > 0:
            vis = np.clip(c[:, 0], 0, W)
            if (vis.max() - vis.min()) >= 0.5 * (c[:, 0].max() - c[:, 0].min()):
                kinds.add(h["kind"])
                if h["between"]:
                    kinds.add("header_between")
    img, q = finish(img, W, H, r, g, kinds)
    path = os.path.join(out_dir, qid + ".jpg")
    Image.fromarray(img).save(path, "JPEG", quality=q)
    return {"qid": qid, "bank_id": bank[spec["bank_index"]]["id"], "kinds": sorted(kinds)}


def _worker(args):
    spec, bank_path, out_dir = args
    bank = load_bank(bank_path)
    return make_photo(spec, bank, out_dir)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bank", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("out_dir")
    ap.add_argument("qids", nargs="*")
    a = ap.parse_args(argv)
    bank = load_bank(a.bank)
    plan, en, zh = build_plan(bank)
    for p in plan:
        p["pool"] = en if p["lang"] == "en" else zh
    want = set(a.qids) if a.qids else None
    if want:
        unknown = want - {p["qid"] for p in plan}
        if unknown:
            ap.error("unknown qids: %s" % ", ".join(sorted(unknown)))
    todo = [p for p in plan if want is None or p["qid"] in want]
    os.makedirs(a.out_dir, exist_ok=True)
    t0 = time.time()
    args = [(p, a.bank, a.out_dir) for p in todo]
    if a.jobs > 1 and len(todo) > 1:
        with Pool(a.jobs) as pool:
            metas = list(pool.imap(_worker, args, chunksize=1))
    else:
        metas = [make_photo(p, bank, a.out_dir) for p in todo]
    byq = {r["id"]: r for r in bank}
    with open(os.path.join(a.out_dir, "truth.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "text"])
        for m in metas:
            w.writerow([m["qid"], byq[m["bank_id"]]["question"]])
    with open(os.path.join(a.out_dir, "queries.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for m in metas:
            w.writerow([m["qid"], byq[m["bank_id"]]["question"], m["bank_id"], "exact"])
    with open(os.path.join(a.out_dir, "meta.jsonl"), "w", encoding="utf-8") as f:
        for m in metas:
            f.write(json.dumps(m, ensure_ascii=False) + "\n")
    print("wrote %d photos to %s in %.1fs" % (len(metas), a.out_dir, time.time() - t0))


if __name__ == "__main__":
    main()
