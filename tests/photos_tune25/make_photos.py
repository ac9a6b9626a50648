"""Synthetic phone photos of printed homework pages under hard capture conditions.

Each photo shows one framed bank question (at the photo centre, fully inside the
photo, uncovered) on a rendered school page, surrounded by neighbouring bank
questions, seen through a simulated camera (curved pages, strong perspective, bad
light, blur, low resolution, screen photos, objects over the page edge).

All randomness of photo i comes from numpy.random.default_rng([seed, i, ...]) or
from per-seed plans, so photo i depends only on (seed, i, bank).

Usage:
  python make_photos.py --bank BANK.jsonl OUT --count 120 --seed 261 --jobs 1 [--only 3,17]
"""

import argparse
import csv
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from difflib import SequenceMatcher
from functools import lru_cache

import cv2
import numpy as np
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

KINDS = ["curve", "perspective", "light", "blur", "lowres", "screen", "occluder"]
BLOCK = 20  # photos are planned in blocks of 20 so the kinds are spread evenly
BLOCK_TOKENS = {"curve": 4, "perspective": 4, "light": 5, "blur": 4,
                "lowres": 4, "screen": 2, "occluder": 4}
BLOCK_PLAIN = 3
BLOCK_EN = 7
BLOCK_SIGNS = 8

NOTO = "/usr/share/fonts/opentype/noto/"
TT = "/usr/share/fonts/truetype/"
CJK_BODY = [("Noto Sans CJK SC", NOTO + "NotoSansCJK-Regular.ttc", 2),
            ("Noto Serif CJK SC", NOTO + "NotoSerifCJK-Regular.ttc", 2)]
CJK_BOLD = [(NOTO + "NotoSansCJK-Bold.ttc", 2), (NOTO + "NotoSerifCJK-Bold.ttc", 2)]
LATIN_BODY = [("Liberation Serif", TT + "liberation/LiberationSerif-Regular.ttf", 0),
              ("Liberation Sans", TT + "liberation/LiberationSans-Regular.ttf", 0),
              ("DejaVu Serif", TT + "dejavu/DejaVuSerif.ttf", 0),
              ("DejaVu Sans", TT + "dejavu/DejaVuSans.ttf", 0),
              ("DejaVu Sans Condensed", TT + "dejavu/DejaVuSansCondensed.ttf", 0),
              ("Liberation Sans Narrow", TT + "liberation/LiberationSansNarrow-Regular.ttf", 0),
              ("Noto Sans CJK SC", NOTO + "NotoSansCJK-Regular.ttc", 2)]
LATIN_BOLD = [(TT + "liberation/LiberationSerif-Bold.ttf", 0),
              (TT + "liberation/LiberationSans-Bold.ttf", 0),
              (TT + "dejavu/DejaVuSerif-Bold.ttf", 0),
              (TT + "dejavu/DejaVuSans-Bold.ttf", 0)]
ASCII_IN_ZH = [None, None, (TT + "liberation/LiberationSerif-Regular.ttf", 0),
               (TT + "dejavu/DejaVuSerif.ttf", 0)]
FALLBACKS = [(TT + "dejavu/DejaVuSans.ttf", 0), (NOTO + "NotoSansCJK-Regular.ttc", 2)]

SUP = {"²": "2", "³": "3"}
SUB = {chr(0x2080 + k): str(k) for k in range(10)}
SUB["ₙ"] = "n"
SYMBOLS = set("√π°℃Ω×÷≤≥∩∪<>%")
CLOSE_P = set("，。？！：；、）》”’」】』,.;:!?)]}%")
OPEN_P = set("（《“‘「【『([{")
ZH_NUM = "一二三四五六七八九十"

SUBJ_ZH = {"math": "数学", "physics": "物理", "chemistry": "化学", "biology": "生物",
           "geography": "地理", "history": "历史", "chinese": "语文", "english": "英语"}
SUBJ_EN = {"math": "Mathematics", "physics": "Physics", "chemistry": "Chemistry",
           "biology": "Biology", "geography": "Geography", "history": "History",
           "chinese": "Chinese", "english": "English"}
GRADE_ZH = {str(k + 1): ZH_NUM[k] if k < 9 else "" for k in range(9)}

INKS = [(0.07, 0.07, 0.08), (0.10, 0.10, 0.10), (0.24, 0.24, 0.25), (0.09, 0.13, 0.34),
        (0.04, 0.05, 0.07)]
PAPERS = [(0.96, 0.96, 0.95), (0.95, 0.93, 0.86), (0.89, 0.89, 0.86), (0.97, 0.95, 0.84),
          (0.93, 0.95, 0.97), (0.94, 0.92, 0.90)]
DESKS = [("wood", (0.55, 0.37, 0.22)), ("lightwood", (0.74, 0.60, 0.42)),
         ("grey", (0.42, 0.43, 0.45)), ("dark", (0.13, 0.12, 0.12)),
         ("white", (0.83, 0.83, 0.81)), ("green", (0.20, 0.33, 0.25)),
         ("blue", (0.25, 0.33, 0.48))]
PALETTE_SKIN = [(0.93, 0.76, 0.64), (0.86, 0.66, 0.52), (0.72, 0.52, 0.38),
                (0.55, 0.38, 0.27), (0.95, 0.80, 0.70)]
SIZES = [((1280, 960), 0.36), ((960, 1280), 0.30), ((1600, 1200), 0.11),
         ((1200, 1600), 0.11), ((1024, 768), 0.08), ((768, 1024), 0.04)]


# ----------------------------------------------------------------------------- bank

def is_cjk(c):
    o = ord(c)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF
            or 0x3000 <= o <= 0x303F or c in "“”‘’")


def question_lang(q):
    return "zh" if any(0x4E00 <= ord(c) <= 0x9FFF for c in q) else "en"


def sign_classes(q):
    out = []
    if "___" in q:
        out.append("blank")
    if any(c in SUP or c in SUB for c in q):
        out.append("supsub")
    if any(c in SYMBOLS for c in q):
        out.append("symbol")
    if any(c in "()（）" for c in q):
        out.append("paren")
    return out


def load_bank(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                r["lang"] = question_lang(r["question"])
                r["signs"] = sign_classes(r["question"])
                rows.append(r)
    return rows


# ----------------------------------------------------------------------------- plans

def block_plan(seed, block):
    """Kinds, language and sign preference of the 20 photos of one block."""
    rng = np.random.default_rng([seed, block, 7])
    order = rng.permutation(BLOCK)
    plain = set(order[:BLOCK_PLAIN].tolist())
    hard = [k for k in range(BLOCK) if k not in plain]
    kinds = {k: [] for k in range(BLOCK)}
    tokens = [k for k, n in BLOCK_TOKENS.items() for _ in range(n)]
    tokens = [tokens[j] for j in rng.permutation(len(tokens))]
    extra = [str(rng.choice(["light", "blur", "perspective", "occluder"])) for _ in range(3)]
    for j, tok in enumerate(tokens + extra):
        cands = [k for k in hard if tok not in kinds[k] and len(kinds[k]) < 3
                 and not ({tok} | set(kinds[k])) >= {"screen", "curve"}]
        if not cands:
            continue
        # spread the listed tokens one or two per photo; the extras make a few triples
        pick = min if j < len(tokens) else max
        least = pick(len(kinds[k]) for k in cands)
        cands = [k for k in cands if len(kinds[k]) == least]
        kinds[cands[int(rng.integers(len(cands)))]].append(tok)
    en = set(rng.permutation(BLOCK)[:BLOCK_EN].tolist())
    signs = set(rng.permutation(BLOCK)[:BLOCK_SIGNS].tolist())
    return [{"kinds": [k for k in KINDS if k in kinds[j]], "lang": "en" if j in en else "zh",
             "signs": j in signs} for j in range(BLOCK)]


def photo_plan(seed, i, bank):
    """Plan of photo i (1-based): kinds, framed question."""
    pools = {}
    for lang in ("zh", "en"):
        for want in (True, False):
            pool = [r for r in bank if r["lang"] == lang and bool(r["signs"]) == want]
            if want:  # strong signs (blank, sup/sub, symbols) come twice as often
                pool += [r for r in pool if set(r["signs"]) - {"paren"}]
            if not pool:
                pool = [r for r in bank if r["lang"] == lang] or bank
            perm = np.random.default_rng([seed, 0, 1000 + len(pools)]).permutation(len(pool))
            pools[(lang, want)] = [pool[j] for j in perm]
    seen = {}
    plan = None
    for j in range(1, i + 1):
        p = block_plan(seed, (j - 1) // BLOCK)[(j - 1) % BLOCK]
        key = (p["lang"], p["signs"])
        n = seen.get(key, 0)
        seen[key] = n + 1
        if j == i:
            pool = pools[key]
            offset = n // len(pool)  # later cycles shift so repeats differ in order
            plan = dict(p, row=pool[(n + offset) % len(pool)])
    return plan


# ----------------------------------------------------------------------------- fonts

@lru_cache(maxsize=None)
def font(path, index, size):
    return ImageFont.truetype(path, max(6, int(round(size))), index=index)


@lru_cache(maxsize=None)
def cmap(path, index):
    if path.endswith(".ttc"):
        tt = TTFont(path, fontNumber=index, lazy=True)
    else:
        tt = TTFont(path, lazy=True)
    return frozenset(tt.getBestCmap().keys())


class Face:
    """A body font with fallbacks and an optional separate font for ASCII runs."""

    def __init__(self, main, size, ascii_font=None):
        self.main, self.size, self.ascii_font = main, size, ascii_font
        self.fallback_used = set()

    def pick(self, c):
        if self.ascii_font and ord(c) < 128 and c != " ":
            return self.ascii_font
        if ord(c) in cmap(*self.main):
            return self.main
        for fb in FALLBACKS:
            if ord(c) in cmap(*fb):
                self.fallback_used.add(c)
                return fb
        return self.main

    def runs(self, text, scale=1.0):
        """Split text into (ImageFont, substring) runs by glyph coverage."""
        out = []
        for c in text:
            f = self.pick(c)
            if out and out[-1][0] == f:
                out[-1][1] += c
            else:
                out.append([f, c])
        return [(font(f[0], f[1], self.size * scale), s) for f, s in out]

    def has(self, c):
        return ord(c) in cmap(*self.main)


# ----------------------------------------------------------------------------- text layout

def tokens_of(text):
    """Split bank text into ('t'|'sup'|'sub'|'blank', string) tokens."""
    toks = []
    k = 0
    while k < len(text):
        c = text[k]
        if text.startswith("___", k):
            m = k
            while m < len(text) and text[m] == "_":
                m += 1
            toks.append(["blank", text[k:m]])
            k = m
            continue
        kind, s = ("sup", SUP[c]) if c in SUP else ("sub", SUB[c]) if c in SUB else ("t", c)
        if toks and toks[-1][0] == kind and kind != "blank":
            toks[-1][1] += s
        else:
            toks.append([kind, s])
        k += 1
    return toks


class Unit:
    def __init__(self, kind, cjk=False):
        self.kind = kind  # 'word', 'space', 'blank'
        self.cjk = cjk
        self.pieces = []  # (kind, text, scale, dy_em) ; kind in t/sup/sub/glyph/blank
        self.w = 0.0
        self.text = ""


def make_units(text, face, style):
    """Units for line breaking; style holds the blank / sup-sub rendering choices."""
    units = []
    for kind, s in tokens_of(text):
        if kind == "blank":
            u = Unit("blank")
            u.pieces.append(("blank", s, 1.0, 0.0))
            units.append(u)
            continue
        if kind in ("sup", "sub"):
            if not units or units[-1].kind == "space":
                units.append(Unit("word"))
            u = units[-1]
            orig = "".join({v: k for k, v in (SUP if kind == "sup" else SUB).items()}[d] for d in s)
            if style["supsub"] == "glyph" and all(face.has(c) for c in orig):
                u.pieces.append(("t", orig, 1.0, 0.0))
            else:
                sc = style["ss_scale"]
                dy = -style["sup_raise"] if kind == "sup" else style["sub_drop"]
                u.pieces.append((kind, s, sc, dy))
            continue
        for c in s:
            if c == " ":
                units.append(Unit("space"))
                units[-1].pieces.append(("t", " ", 1.0, 0.0))
            elif is_cjk(c) or c in "√℃":
                u = Unit("word", cjk=True)
                u.pieces.append(("t", c, 1.0, 0.0))
                units.append(u)
            else:
                if not units or units[-1].kind != "word" or units[-1].cjk or \
                        units[-1].pieces[-1][0] in ("sup", "sub") and c.isalnum():
                    units.append(Unit("word"))
                u = units[-1]
                if u.pieces and u.pieces[-1][0] == "t":
                    u.pieces[-1] = ("t", u.pieces[-1][1] + c, 1.0, 0.0)
                else:
                    u.pieces.append(("t", c, 1.0, 0.0))
    for u in units:
        u.text = "".join(p[1] for p in u.pieces)
        u.w = 0.0
        for kind, s, sc, _ in u.pieces:
            if kind == "blank":
                u.w += blank_width(s, face, style)
            else:
                u.w += sum(f.getlength(t) for f, t in face.runs(s, sc))
    return units


def blank_width(s, face, style):
    if style["blank"] == "underscores":
        return sum(f.getlength(t) for f, t in face.runs("_" * style["blank_n"]))
    return style["blank_em"] * face.size


def glue(prev, cur):
    """True when no line break is allowed between prev and cur."""
    if prev.kind == "space" or cur.kind == "space":
        return False
    if cur.text[:1] in CLOSE_P or prev.text[-1:] in OPEN_P:
        return True
    if prev.kind == "blank" or cur.kind == "blank":
        return False
    if prev.cjk and cur.cjk:
        return False
    return True


def break_lines(units, first_w, other_w):
    groups = []
    for k, u in enumerate(units):
        if groups and glue(units[k - 1], u):
            groups[-1].append(u)
        else:
            groups.append([u])
    lines, cur, x = [], [], 0.0
    for g in groups:
        gw = sum(u.w for u in g)
        limit = first_w if not lines else other_w
        if cur and x + gw > limit:
            while cur and cur[-1].kind == "space":
                x -= cur.pop().w
            lines.append(cur)
            cur, x = [], 0.0
        if not cur and g[0].kind == "space":
            continue
        cur.extend(g)
        x += gw
    while cur and cur[-1].kind == "space":
        cur.pop()
    if cur:
        lines.append(cur)
    return lines


class Ink:
    """Greyscale ink coverage layer of the page (255 = full ink)."""

    def __init__(self, w, h):
        self.img = Image.new("L", (w, h), 0)
        self.draw = ImageDraw.Draw(self.img)

    def text(self, x, base, s, face, scale=1.0, dy=0.0, fill=255):
        for f, t in face.runs(s, scale):
            self.draw.text((x, base + dy * face.size), t, font=f, fill=fill, anchor="ls")
            x += f.getlength(t)
        return x

    def hline(self, x0, x1, y, th, fill=255):
        if x1 <= x0:
            return
        y = int(round(y))
        self.draw.rectangle([int(x0), y, int(x1), y + max(1, int(th)) - 1], fill=fill)

    def draw_units(self, line, x, base, face, style):
        for u in line:
            for kind, s, sc, dy in u.pieces:
                if kind == "blank":
                    w = blank_width(s, face, style)
                    if style["blank"] == "underscores":
                        self.text(x, base, "_" * style["blank_n"], face)
                    else:
                        y = base + style["blank_dy"] * face.size
                        self.hline(x + 0.1 * face.size, x + w - 0.1 * face.size, y,
                                   style["blank_th"], style["blank_fill"])
                    x += w
                else:
                    x = self.text(x, base, s, face, sc, dy)
        return x


# ----------------------------------------------------------------------------- page

def zh_number(n):
    return ZH_NUM[n - 1] if n <= 10 else str(n)


def page_texts(rng, lang, doc, row):
    subj, grade = row.get("subject", "math"), str(row.get("grade", "7"))
    chap = int(rng.integers(1, 9))
    part = f"{chap}.{int(rng.integers(1, 5))}"
    letter = "ABC"[int(rng.integers(3))]
    if lang == "zh":
        g = (GRADE_ZH.get(grade, "七") + "年级") if grade in GRADE_ZH else "七年级"
        s = SUBJ_ZH.get(subj, "数学")
        titles = {"exam": [f"{g}{s}第一学期期中测试卷", f"{g}{s}期末质量检测", f"{s}单元测试卷（{zh_number(chap)}）"],
                  "worksheet": [f"{s}课时练习 第{chap}课", f"{g}{s}同步练习", f"{s}专项训练（{zh_number(chap)}）"],
                  "homework": [f"{s}家庭作业（{chap}）", f"{g}{s}周末作业", f"{s}课后作业 第{chap}周"],
                  "textbook": [f"练习 {part}", f"习题 {part}", "复习题"]}
        sub = ["（考试时间：90分钟  满分：100分）", "（时间：60分钟  满分：100分）", "（本卷共4页）"]
        name = ["姓名：", "班级：", "学号："]
        secs = ["填空题", "计算题", "解答题", "简答题", "基础知识", "应用题", "综合题", "知识运用"]
        running = f"第{zh_number(chap)}章  {s}"
    else:
        s = SUBJ_EN.get(subj, "Mathematics")
        titles = {"exam": [f"Grade {grade} {s} Midterm Examination", f"{s} Unit {chap} Test", f"End-of-Term Exam: {s}"],
                  "worksheet": [f"{s} Worksheet {chap}", f"Unit {chap} Practice Sheet", f"{s} Skills Practice"],
                  "homework": [f"Homework Sheet {chap}", f"{s} Homework - Week {chap}", f"Weekend Homework: {s}"],
                  "textbook": [f"Exercise {chap}{letter}", f"Practice {part}", "Review Questions"]}
        sub = ["Time allowed: 60 minutes   Total: 100 marks", "Answer all questions.", "Show your working."]
        name = ["Name:", "Class:", "Date:"]
        secs = ["Short Answer", "Problems", "Fill in the blanks", "Answer the questions",
                "Calculations", "Review", "Practice", "Challenge"]
        running = f"Chapter {chap}  {s}"
    return {"title": str(rng.choice(titles[doc])), "sub": str(rng.choice(sub)), "name": name,
            "secs": [secs[j] for j in rng.permutation(len(secs))], "running": running}


def layout_page(rng, lang, doc, framed_row, neighbours, fs, col_em, two_col, page_em, margin_em,
                screen=False, blank_style=None):
    """Render the page ink; returns dict with ink array, size and problem blocks."""
    if lang == "zh":
        name, path, idx = CJK_BODY[int(rng.integers(len(CJK_BODY)))]
        bold = CJK_BOLD[int(rng.integers(len(CJK_BOLD)))]
        asc = ASCII_IN_ZH[int(rng.integers(len(ASCII_IN_ZH)))]
    else:
        name, path, idx = LATIN_BODY[int(rng.integers(len(LATIN_BODY)))]
        bold = LATIN_BOLD[int(rng.integers(len(LATIN_BOLD)))]
        asc = None
    face = Face((path, idx), fs, asc)
    style = {"supsub": "glyph" if rng.random() < 0.35 else "drawn",
             "ss_scale": float(rng.uniform(0.58, 0.7)),
             "sup_raise": float(rng.uniform(0.33, 0.45)), "sub_drop": float(rng.uniform(0.12, 0.22)),
             "blank": str(rng.choice(["underscores", "line", "grey"])) if blank_style is None else blank_style,
             "blank_n": int(rng.integers(4, 9)), "blank_em": float(rng.uniform(2.0, 5.5)),
             "blank_dy": float(rng.uniform(0.08, 0.18))}
    if style["blank"] == "grey":
        style["blank_th"] = max(1, int(fs * rng.uniform(0.025, 0.05)))
        style["blank_fill"] = int(rng.integers(110, 160))
    else:
        style["blank_th"] = max(1, int(fs * rng.uniform(0.03, 0.09)))
        style["blank_fill"] = 255
    lh = fs * float(rng.uniform(1.45, 1.85))
    gap_em = 2.0
    n_cols = 2 if two_col else 1
    col_w = col_em * fs
    margin = fs * margin_em
    W = int(max(page_em * fs, 2 * margin + n_cols * col_w + (n_cols - 1) * gap_em * fs))
    if n_cols == 2:  # spread the two columns over the page width
        gap_em = max(gap_em, (W - 2 * margin - 2 * col_w) / fs * float(rng.uniform(0.5, 1.0)))
    H0 = int(W * 1.414)
    texts = page_texts(rng, lang, doc, framed_row)
    if lang == "zh":
        num_fmt = str(rng.choice(["{n}.", "{n}．", "（{n}）", "({n})", "【{n}】", "{n}、"]))
        score_fmt = "（{k}分）"
    else:
        num_fmt = str(rng.choice(["{n}.", "({n})", "{n})", "Q{n}.", "{n}."]))
        score_fmt = str(rng.choice(["({k} marks)", "[{k}]", "({k} points)"]))
    score_p = 0.0 if doc == "textbook" else float(rng.uniform(0.2, 0.6))
    score_pos = str(rng.choice(["start", "end", "right"])) if lang == "zh" else str(rng.choice(["end", "right"]))
    hang = bool(rng.random() < 0.7)
    answer_mode = str(rng.choice(["none", "space", "lines", "answer"], p=[0.3, 0.3, 0.2, 0.2]))
    framed_k = int(rng.integers(1, 13 if n_cols == 2 else 8))  # position of the framed problem
    meta = {"font": name + ("+" + os.path.basename(asc[0]).split("-")[0].split(".")[0] if asc else ""),
            "num_fmt": num_fmt, "blank_style": style["blank"], "supsub_style": style["supsub"],
            "lh_em": round(lh / fs, 2)}

    for attempt in range(8):
        # when the framed problem does not fit, move it up, then make the page longer
        if attempt:
            framed_k = max(1, framed_k // 2)
        H = int(H0 * (1.2 ** max(0, attempt - 3)))
        ink = Ink(W, H)
        blocks = []
        bottom = H - margin * 1.2
        y = margin
        # running header / title
        if doc == "textbook":
            sf = Face(face.main, fs * 0.8, asc)
            ink.text(margin, y + 0.8 * fs, texts["running"], sf, fill=200)
            pn = str(int(rng.integers(12, 160)))
            ink.text(W - margin - sf.size * len(pn) * 0.6, y + 0.8 * fs, pn, sf, fill=200)
            ink.hline(margin, W - margin, y + 1.2 * fs, max(1, int(fs * 0.04)), 180)
            y += 2.6 * fs
            tf = Face(bold, fs * 1.15)
            ink.text(margin, y + fs, texts["title"], tf)
            y += 2.2 * fs
        else:
            tf = Face(bold, fs * float(rng.uniform(1.25, 1.6)))
            tw = sum(f.getlength(t) for f, t in tf.runs(texts["title"]))
            ink.text(max(margin, (W - tw) / 2), y + tf.size, texts["title"], tf)
            y += tf.size * 1.7
            if doc == "exam" or rng.random() < 0.3:
                sf = Face(face.main, fs * 0.85, asc)
                sw = sum(f.getlength(t) for f, t in sf.runs(texts["sub"]))
                ink.text(max(margin, (W - sw) / 2), y + sf.size, texts["sub"], sf)
                y += sf.size * 1.8
            if doc != "textbook" and rng.random() < 0.75:
                x = margin + fs
                for label in texts["name"]:
                    x = ink.text(x, y + fs, label, face)
                    ul = fs * float(rng.uniform(4, 7))
                    ink.hline(x + 0.2 * fs, x + ul, y + fs * 1.12, max(1, int(fs * 0.05)))
                    x += ul + 1.5 * fs
                y += lh * 1.6
        top_cols = y
        col = 0
        n = 0
        sec = 0
        placed_framed = False
        queue = list(neighbours)
        sec_every = int(rng.integers(2, 5)) if doc != "textbook" else 99
        use_sections = doc != "textbook" and rng.random() < 0.85
        while True:
            x0 = margin + col * (col_w + gap_em * fs)
            if use_sections and n % sec_every == 0:
                heading = (f"{zh_number(sec + 1)}、{texts['secs'][sec % len(texts['secs'])]}" if lang == "zh"
                           else f"{'ABCDEFGH'[sec % 8]}. {texts['secs'][sec % len(texts['secs'])]}"
                           if rng.random() < 0.5 else f"Part {sec + 1}: {texts['secs'][sec % len(texts['secs'])]}")
                if score_p > 0 and rng.random() < 0.5:
                    k = int(rng.integers(2, 6))
                    heading += (f"（每小题{k}分，共{k * sec_every}分）" if lang == "zh"
                                else f"  ({k} marks each)")
                hf = Face(bold, fs * float(rng.uniform(1.0, 1.12)), asc)
                hw = sum(f.getlength(t) for f, t in hf.runs(heading))
                if hw > col_w:  # keep the heading inside its column
                    heading = heading.split("（")[0].split("  (")[0]
                    hw = sum(f.getlength(t) for f, t in hf.runs(heading))
                    if hw > col_w:
                        hf = Face(bold, hf.size * col_w / hw * 0.97, asc)
                if y + lh * 3.3 > bottom:  # no heading alone at the foot of a column
                    if col + 1 < n_cols:
                        col, y = col + 1, top_cols
                        continue
                    if placed_framed:
                        break
                ink_h = y + hf.size * 1.05
                ink.text(x0, ink_h, heading, hf)
                y += lh * 1.3
                sec += 1
            is_framed = n == framed_k
            row = framed_row if is_framed else (queue.pop(0) if queue else None)
            if row is None:
                break
            num = num_fmt.format(n=n + 1)
            nw = sum(f.getlength(t) for f, t in face.runs(num)) + 0.35 * fs
            score = score_fmt.format(k=int(rng.choice([2, 3, 4, 5, 6, 8, 10]))) if rng.random() < score_p else ""
            text = row["question"]
            prefix = ""
            if score and score_pos == "start":
                prefix, score = score, ""
            pre_w = sum(f.getlength(t) for f, t in face.runs(prefix)) if prefix else 0.0
            units = make_units(text, face, style)
            if score and score_pos == "end":
                units += make_units(" " + score if lang == "en" else score, face, style)
            first_w = col_w - nw - pre_w
            other_w = col_w - (nw if hang else 0)
            lines = break_lines(units, first_w, other_w)
            nl = len(lines)
            ans_lines = 0
            if answer_mode == "space":
                ans_lines = int(rng.integers(1, 4))
            elif answer_mode in ("lines", "answer"):
                ans_lines = int(rng.integers(1, 3))
            need = nl * lh + ans_lines * lh + 0.4 * lh
            if y + need > bottom:
                if col + 1 < n_cols:
                    col, y = col + 1, top_cols
                    x0 = margin + col * (col_w + gap_em * fs)
                elif placed_framed:
                    break
                elif not is_framed:
                    n += 1  # skip this neighbour, keep counting
                    continue
                else:
                    break
            base = y + 0.88 * fs + (lh - fs) * 0.5
            ink.text(x0, base, num, face)
            xs = x0 + nw
            if prefix:
                xs = ink.text(xs, base, prefix, face)
            line_boxes = []
            for li, line in enumerate(lines):
                lx = xs if li == 0 else x0 + (nw if hang else 0)
                lb = base + li * lh
                xe = ink.draw_units(line, lx, lb, face, style)
                line_boxes.append((lx, lb - 0.88 * fs, xe, lb + 0.12 * fs))
            if score and score_pos == "right":
                sw = sum(f.getlength(t) for f, t in face.runs(score))
                lastb = base + (nl - 1) * lh
                if line_boxes[-1][2] + sw + fs > x0 + col_w:
                    lastb += lh
                    nl += 1
                ink.text(x0 + col_w - sw, lastb, score, face)
            y_end = base + (nl - 1) * lh + 0.12 * fs
            bx0 = x0
            bx1 = max(b[2] for b in line_boxes)
            blocks.append({"id": row["id"], "framed": is_framed, "n": n + 1,
                           "bbox": (bx0, base - 0.88 * fs, bx1, y_end), "lines": line_boxes})
            y = y_end + (lh - fs) * 0.5
            if answer_mode == "lines":
                for _ in range(ans_lines):
                    y += lh
                    ink.hline(x0 + nw, x0 + col_w, y - 0.2 * lh, max(1, int(fs * 0.035)), 150)
            elif answer_mode == "answer":
                y += lh
                lab = "答：" if lang == "zh" else "Answer:"
                xa = ink.text(x0 + nw, y - 0.3 * lh, lab, face)
                ink.hline(xa + 0.2 * fs, x0 + col_w, y - 0.25 * lh, max(1, int(fs * 0.04)), 200)
                y += (ans_lines - 1) * lh
            else:
                y += ans_lines * lh
            y += 0.4 * lh
            placed_framed = placed_framed or is_framed
            n += 1
        if placed_framed:
            break
    if n_cols == 2 and rng.random() < 0.6:
        xm = margin + col_w + gap_em * fs / 2
        ink.draw.line([(xm, top_cols), (xm, H - margin)], fill=150, width=max(1, int(fs * 0.03)))
    if doc in ("exam", "homework") and rng.random() < 0.6:
        sf = Face(face.main, fs * 0.8, asc)
        foot = (f"第 {int(rng.integers(1, 4))} 页  共 4 页" if lang == "zh" else f"- {int(rng.integers(1, 5))} -")
        ink.text(W / 2 - 2 * fs, H - margin * 0.6, foot, sf)
    framed = [b for b in blocks if b["framed"]][0]
    meta["fallback_glyphs"] = "".join(sorted(face.fallback_used))
    return {"ink": np.asarray(ink.img), "W": W, "H": H, "blocks": blocks, "framed": framed,
            "fs": fs, "meta": meta, "screen": screen}


# ----------------------------------------------------------------------------- camera

def rot(axis, ang):
    axis = np.asarray(axis, float)
    axis /= np.linalg.norm(axis)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(ang) * K + (1 - np.cos(ang)) * K @ K


class Camera:
    """Page surface (flat, bound book page or curled sheet) seen by a pinhole camera."""

    def __init__(self, W, H, f, R, surf, Wp, Hp):
        self.W, self.H, self.f, self.R = W, H, f, R
        self.surf = surf
        self.Wp, self.Hp = Wp, Hp
        self.T = np.zeros(3)
        if surf["kind"] != "flat":
            X = np.arange(-0.8 * Wp, 1.8 * Wp, 2.0)
            hp = self.h(X, np.full_like(X, surf["yc"]))
            ds = np.sqrt(1 + np.gradient(hp, X) ** 2) * 2.0
            s = np.concatenate([[0], np.cumsum(ds[:-1])])
            anchor = surf.get("xs", Wp / 2)
            s += anchor - np.interp(anchor, X, s)
            self.X_tab, self.s_tab = X, s

    def h(self, X, Y):
        s = self.surf
        if s["kind"] == "flat":
            return np.zeros_like(X)
        if s["kind"] == "spine":
            d = np.abs(X - s["xs"])
            A, L, d0 = s["A"], s["L"], s["d0"]
            h = A / (1 + np.exp(-(d - d0) / L)) - A / (1 + np.exp(d0 / L))
            return h * (1 + s["cy"] * (Y - s["yc"]) / self.Hp)
        ph = 2 * np.pi * (X * np.cos(s["phi"]) + Y * np.sin(s["phi"])) / s["lam"] + s["ph0"]
        return s["A"] * np.sin(ph) + s["A2"] * ((X - s["x2"]) / self.Wp) ** 2

    def to_X(self, xp):
        return xp if self.surf["kind"] == "flat" else np.interp(xp, self.s_tab, self.X_tab)

    def to_xp(self, X):
        return X if self.surf["kind"] == "flat" else np.interp(X, self.X_tab, self.s_tab)

    def aim(self, xp, yp, Z0):
        X = self.to_X(np.array([xp]))[0]
        P = np.array([X, yp, -self.h(np.array([X]), np.array([yp]))[0]])
        self.T = np.array([0, 0, Z0]) - self.R @ P

    def forward(self, xp, yp):
        xp, yp = np.asarray(xp, float), np.asarray(yp, float)
        X = self.to_X(xp)
        P = np.stack([X, yp, -self.h(X, yp)])
        C = self.R @ P + self.T[:, None]
        return self.f * C[0] / C[2] + self.W / 2, self.f * C[1] / C[2] + self.H / 2

    def inverse(self, u, v):
        """Page coordinates (x_page, y_page), surface param X and validity per photo pixel."""
        dx = (u - self.W / 2) / self.f
        dy = (v - self.H / 2) / self.f
        Rt = self.R.T.astype(np.float32)
        ax = Rt[0, 0] * dx + Rt[0, 1] * dy + Rt[0, 2]
        ay = Rt[1, 0] * dx + Rt[1, 1] * dy + Rt[1, 2]
        az = Rt[2, 0] * dx + Rt[2, 1] * dy + Rt[2, 2]
        b = (self.R.T @ self.T).astype(np.float32)
        h = np.float32(0.0)
        iters = 1 if self.surf["kind"] == "flat" else 5
        for _ in range(iters):
            lam = (b[2] - h) / az
            X = lam * ax - b[0]
            Y = lam * ay - b[1]
            if iters > 1:
                h = self.h(X, Y).astype(np.float32)
        valid = lam > 0
        return self.to_xp(X).astype(np.float32), Y.astype(np.float32), X, valid


# ----------------------------------------------------------------------------- helpers

def smooth_noise(rng, h, w, cell, amp):
    small = rng.standard_normal((max(2, h // cell + 2), max(2, w // cell + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def capsule(mask, p0, p1, r, val=255):
    p0 = tuple(int(round(c)) for c in p0)
    p1 = tuple(int(round(c)) for c in p1)
    cv2.line(mask, p0, p1, val, int(round(2 * r)), cv2.LINE_AA)
    cv2.circle(mask, p1, int(round(r)), val, -1, cv2.LINE_AA)
    cv2.circle(mask, p0, int(round(r)), val, -1, cv2.LINE_AA)


def edge_point(rng, W, H, side):
    t = rng.uniform(0.1, 0.9)
    return {"bottom": (t * W, H + 10), "top": (t * W, -10), "left": (-10, t * H),
            "right": (W + 10, t * H)}[side]


def disk_kernel(r):
    n = int(np.ceil(r)) * 2 + 1
    yy, xx = np.mgrid[:n, :n] - n // 2
    k = np.clip(r + 0.5 - np.sqrt(xx ** 2 + yy ** 2), 0, 1).astype(np.float32)
    return k / k.sum()


def path_kernel(pts):
    """Blur kernel along a camera path, centred on the path's mean so it does not shift the image."""
    pts = np.asarray(pts, float)
    pts -= pts.mean(0)
    half = int(np.ceil(np.abs(pts).max())) + 2
    k = np.zeros((2 * half + 1, 2 * half + 1), np.float32)
    for a, b in zip(pts[:-1], pts[1:]):
        cv2.line(k, tuple(int(round((c + half) * 4)) for c in a), tuple(int(round((c + half) * 4)) for c in b),
                 1.0, 1, cv2.LINE_AA, shift=2)
    return k / k.sum()


# ----------------------------------------------------------------------------- occluders

def draw_occluder(rng, kind, W, H, em, protect, page_mask):
    """Return (rgb, alpha, shadow_alpha, desc) of an object, or None when it cannot avoid protect."""
    hs = np.nonzero(protect.any(1))[0]
    ws = np.nonzero(protect.any(0))[0]
    v0, v1, u0, u1 = hs[0], hs[-1], ws[0], ws[-1]
    for _ in range(40):
        alpha = np.zeros((H, W), np.uint8)
        detail = np.zeros((H, W), np.uint8)
        if kind in ("finger", "thumb"):
            r = em * (2.0 if kind == "finger" else 2.6) * rng.uniform(0.9, 1.3)
            side = str(rng.choice(["bottom", "left", "right", "top"], p=[0.4, 0.25, 0.25, 0.1]))
            p0 = np.array(edge_point(rng, W, H, side), float)
            inward = {"bottom": -np.pi / 2, "top": np.pi / 2, "left": 0.0, "right": np.pi}[side]
            ang = inward + rng.uniform(-0.5, 0.5)
            ln = r * rng.uniform(2.0, 4.5)
            p1 = p0 + ln * np.array([np.cos(ang), np.sin(ang)])
            capsule(alpha, p0 - 3 * r * np.array([np.cos(ang), np.sin(ang)]), p1, r)
            nail = p1 - 0.55 * r * np.array([np.cos(ang), np.sin(ang)])
            cv2.ellipse(detail, tuple(int(c) for c in nail), (int(r * 0.55), int(r * 0.7)),
                        float(np.degrees(ang)) + 90, 0, 360, 255, -1, cv2.LINE_AA)
            base_col = np.array(PALETTE_SKIN[int(rng.integers(len(PALETTE_SKIN)))])
            detail_col = np.clip(base_col * 1.12 + 0.06, 0, 1)
            blur = rng.uniform(1.5, 4.0)
            shadow_off = em * rng.uniform(0.6, 1.5)
        elif kind in ("pen", "pencil"):
            r = em * (1.2 if kind == "pen" else 0.95) * rng.uniform(0.9, 1.15)
            cu = (u0 + u1) / 2 + rng.uniform(-0.3, 0.3) * W
            region = rng.choice(["above", "below"])
            cv = (rng.uniform(0, max(1, v0 - 2 * r)) if region == "above"
                  else rng.uniform(min(H - 1, v1 + 2 * r), H))
            ang = rng.uniform(-0.45, 0.45) + (np.pi if rng.random() < 0.5 else 0)
            d = np.array([np.cos(ang), np.sin(ang)])
            ln = rng.uniform(0.5, 1.2) * max(W, H)
            tip = np.array([cu, cv]) + d * ln * 0.3
            tail = tip - d * ln
            capsule(alpha, tail, tip - d * r * 1.5, r)
            cone = np.array([tip - d * r * 1.5 + np.array([-d[1], d[0]]) * r,
                             tip - d * r * 1.5 - np.array([-d[1], d[0]]) * r, tip + d * r * 0.8])
            cv2.fillPoly(alpha, [np.round(cone).astype(np.int32)], 255, cv2.LINE_AA)
            cv2.fillPoly(detail, [np.round(cone).astype(np.int32)], 255, cv2.LINE_AA)
            if kind == "pen":
                base_col = np.array([(0.1, 0.15, 0.5), (0.08, 0.08, 0.09), (0.6, 0.08, 0.1),
                                     (0.85, 0.85, 0.88)][int(rng.integers(4))])
                detail_col = np.array([0.55, 0.56, 0.6])
            else:
                base_col = np.array([0.92, 0.72, 0.12])
                detail_col = np.array([0.85, 0.7, 0.5])
            blur = rng.uniform(0.6, 1.5)
            shadow_off = em * rng.uniform(0.4, 0.9)
        elif kind == "ruler":
            wdt = em * rng.uniform(6, 8)
            cu = (u0 + u1) / 2 + rng.uniform(-0.3, 0.3) * W
            region = rng.choice(["above", "below"])
            cv = (v0 - wdt * rng.uniform(0.6, 1.2)) if region == "above" else (v1 + wdt * rng.uniform(0.6, 1.2))
            ang = rng.uniform(-0.3, 0.3)
            rect = ((float(cu), float(cv)), (float(2.5 * max(W, H)), float(wdt)), float(np.degrees(ang)))
            box = cv2.boxPoints(rect)
            cv2.fillPoly(alpha, [np.round(box).astype(np.int32)], 255, cv2.LINE_AA)
            d = np.array([np.cos(ang), np.sin(ang)])
            nrm = np.array([-d[1], d[0]])
            edge = np.array([cu, cv]) - nrm * wdt / 2
            step = em * 0.55
            for k in range(-int(3 * max(W, H) / step), int(3 * max(W, H) / step)):
                p = edge + d * k * step
                tl = wdt * (0.35 if k % 10 == 0 else 0.22 if k % 5 == 0 else 0.13)
                cv2.line(detail, tuple(int(c) for c in p), tuple(int(c) for c in p + nrm * tl), 255,
                         max(1, int(em * 0.06)), cv2.LINE_AA)
            base_col = np.array([(0.85, 0.9, 0.92), (0.95, 0.95, 0.9), (0.7, 0.85, 0.95)][int(rng.integers(3))])
            detail_col = np.array([0.1, 0.1, 0.12])
            blur = rng.uniform(0.5, 1.2)
            shadow_off = em * rng.uniform(0.2, 0.5)
        else:  # eraser
            ew, eh = em * rng.uniform(8, 11), em * rng.uniform(4, 5.5)
            side = rng.choice(["above", "below", "left", "right"])
            cu = {"left": u0 - ew * 0.4, "right": u1 + ew * 0.4}.get(side, rng.uniform(0, W))
            cv = {"above": v0 - eh * 0.7, "below": v1 + eh * 0.7}.get(side, rng.uniform(0, H))
            rect = ((float(cu), float(cv)), (float(ew), float(eh)), float(rng.uniform(-40, 40)))
            cv2.fillPoly(alpha, [np.round(cv2.boxPoints(rect)).astype(np.int32)], 255, cv2.LINE_AA)
            sleeve = (rect[0], (rect[1][0] * 0.55, rect[1][1] * 1.02), rect[2])
            cv2.fillPoly(detail, [np.round(cv2.boxPoints(sleeve)).astype(np.int32)], 255, cv2.LINE_AA)
            base_col = np.array([(0.95, 0.95, 0.93), (0.95, 0.7, 0.72)][int(rng.integers(2))])
            detail_col = np.array([(0.15, 0.3, 0.7), (0.2, 0.5, 0.3), (0.8, 0.2, 0.2)][int(rng.integers(3))])
            blur = rng.uniform(0.6, 1.5)
            shadow_off = em * rng.uniform(0.3, 0.7)
        grown = cv2.dilate(alpha, np.ones((5, 5), np.uint8))
        if (grown > 0)[protect].any():
            continue
        if not ((alpha > 0) & page_mask).any():
            continue
        a = alpha.astype(np.float32) / 255
        dist = cv2.distanceTransform((alpha > 127).astype(np.uint8), cv2.DIST_L2, 3)
        rel = np.clip(dist / (dist.max() + 1e-6), 0, 1)
        shade = 0.72 + 0.38 * np.sqrt(rel) if kind != "ruler" else np.ones_like(rel)
        rgb = base_col[None, None, :] * shade[..., None]
        dm = (detail.astype(np.float32) / 255)[..., None]
        rgb = rgb * (1 - dm) + detail_col[None, None, :] * dm * shade[..., None]
        if kind == "ruler":
            a = a * 0.55 + dm[..., 0] * 0.4
        k = int(blur * 3) * 2 + 1
        a = cv2.GaussianBlur(a, (k, k), blur)
        rgb = cv2.GaussianBlur(rgb.astype(np.float32), (k, k), blur)
        M = np.float32([[1, 0, shadow_off * 0.6], [0, 1, shadow_off]])
        sh = cv2.warpAffine(alpha.astype(np.float32) / 255, M, (W, H))
        ks = int(shadow_off) * 2 + 1
        sh = cv2.GaussianBlur(sh, (ks, ks), shadow_off / 2) * (0.35 if kind == "ruler" else 0.5)
        return rgb.astype(np.float32), a, sh, kind
    return None



# ----------------------------------------------------------------------------- photo

def choose_size(rng, kinds):
    sizes = [s for s, _ in SIZES]
    p = np.array([w for _, w in SIZES])
    if "lowres" in kinds:
        p = p * np.array([1, 1, 0.3, 0.3, 3, 3])
    return sizes[int(rng.choice(len(sizes), p=p / p.sum()))]


def make_photo(seed, i, bank):
    plan = photo_plan(seed, i, bank)
    kinds = plan["kinds"]
    row = plan["row"]
    lang = row["lang"]
    rng = np.random.default_rng([seed, i, 1])
    W, H = choose_size(rng, kinds)
    screen = "screen" in kinds
    plain = not kinds
    effects = []

    # ---- target size of the framed text in the photo (em height in px)
    if "lowres" in kinds:
        line_target = rng.uniform(15, 21.5)
    elif plain:
        line_target = rng.uniform(27, 42)
    elif screen:
        line_target = rng.uniform(26, 36)
    else:
        line_target = rng.uniform(22, 40)

    # ---- page
    docs = ["exam", "worksheet", "homework", "textbook"]
    doc = str(rng.choice(docs, p=[0.3, 0.3, 0.2, 0.2]))
    curve_style = None
    if "curve" in kinds:
        curve_style = "spine" if rng.random() < 0.6 else "curl"
        if curve_style == "spine":
            doc = "textbook"
    if screen:  # the page is rendered with 3 page px per screen pixel
        pitch = rng.uniform(1.2, 1.5) if "lowres" in kinds else rng.uniform(1.3, 2.1)
        fs = float(np.clip(3 * line_target / pitch, 36, 66))
    else:
        fs = float(rng.uniform(36, 46))
    # a real page is 40-50 em wide; narrow columns come from two-column layouts
    # or, where the photo cannot hold a full column, from a wide side margin
    fit_em = 0.80 * W / line_target
    page_em = float(rng.uniform(40, 50))
    margin_em = float(rng.uniform(2.5, 4.5))
    avail = page_em - 2 * margin_em
    two_col = doc in ("exam", "worksheet") and rng.random() < 0.35
    if avail > fit_em and not two_col:  # too wide for the photo: two columns or a narrow one
        two_col = rng.random() < 0.5
    col_em = (avail - 2.0) / 2 if two_col else avail
    if col_em > fit_em:
        col_em = max(10.0, fit_em * float(rng.uniform(0.8, 1.0)))
    # neighbours: same language, never a near-duplicate of the framed question
    others = [r for r in bank if r["lang"] == lang and r["id"] != row["id"]
              and SequenceMatcher(None, r["question"], row["question"]).ratio() < 0.75]
    same = [r for r in others if r.get("subject") == row.get("subject")]
    pool = same if (len(same) >= 6 and rng.random() < 0.6) else others
    neigh = [pool[j] for j in rng.permutation(len(pool))]
    if len(neigh) < 14:
        neigh += [others[j] for j in rng.permutation(len(others))]
    blank_style = ["underscores", "line", "grey"][i % 3]  # spread the blank styles evenly
    page = layout_page(rng, lang, doc, row, neigh, fs, col_em, two_col, page_em, margin_em, screen, blank_style)
    Wp, Hp = page["W"], page["H"]
    fb = page["framed"]
    bx0, by0, bx1, by1 = fb["bbox"]

    # ---- camera geometry
    grng = np.random.default_rng([seed, i, 2])
    roll = np.radians(grng.uniform(-10, 10) if not plain else grng.uniform(-4, 4))
    if "perspective" in kinds:
        tilt = np.radians(grng.uniform(15, 35))
    elif "curve" in kinds:
        tilt = np.radians(grng.uniform(12, 28))
    elif plain:
        tilt = np.radians(grng.uniform(0, 8))
    else:
        tilt = np.radians(grng.uniform(0, 14))
    axis_ang = grng.uniform(-0.35, 0.35) + (np.pi / 2 if grng.random() < 0.3 else 0.0)
    tilt *= 1 if grng.random() < 0.75 else -1
    R = rot([0, 0, 1], roll) @ rot([np.cos(axis_ang), np.sin(axis_ang), 0], tilt)
    f = grng.uniform(0.85, 1.15) * max(W, H)
    surf = {"kind": "flat"}
    foot = W / 2 * fs / line_target  # half the photo width in page px (roughly)
    if curve_style == "spine":
        # the spine is on the page side nearer the framed problem, and the bend is in view
        left = (bx0 + bx1) / 2 < Wp / 2 if grng.random() < 0.8 else grng.random() < 0.5
        xs = 0.0 if left else float(Wp)
        dist_framed = abs((bx0 + bx1) / 2 - xs)
        strong = grng.random() < 0.5
        near = min(abs(bx0 - xs), abs(bx1 - xs))
        if strong:
            d0 = near + (dist_framed - near) * grng.uniform(0.0, 0.8)
        else:
            d0 = max(fs * grng.uniform(1.5, 4.0), near - foot * grng.uniform(0.3, 0.8))
        surf = {"kind": "spine", "xs": xs, "A": fs * grng.uniform(4.0, 9.0),
                "L": fs * grng.uniform(1.5, 3.5), "d0": d0, "cy": grng.uniform(-0.5, 0.5),
                "yc": (by0 + by1) / 2}
        effects.append(f"curve=spine(A={surf['A'] / fs:.1f}em,strong_near_framed={int(strong)})")
    elif curve_style == "curl":
        surf = {"kind": "curl", "A": fs * grng.uniform(2.0, 4.5), "lam": 2 * foot * grng.uniform(0.8, 1.6),
                "phi": grng.uniform(-0.3, 0.3), "ph0": grng.uniform(0, 2 * np.pi),
                "A2": fs * grng.uniform(-4, 4), "x2": grng.uniform(0, Wp), "yc": (by0 + by1) / 2}
        effects.append(f"curve=curl(A={surf['A'] / fs:.1f}em)")
    cam = Camera(W, H, f, R, surf, Wp, Hp)
    fx, fy = grng.uniform(0.3, 0.7), grng.uniform(0.3, 0.7)
    aim_x = bx0 + (bx1 - bx0) * fx
    aim_y = by0 + (by1 - by0) * fy
    if len(fb["lines"]) == 1:
        aim_x = min(aim_x, fb["lines"][0][2] - fs)
    line_pts_x = np.array([(lb[0] + lb[2]) / 2 for lb in fb["lines"]])
    line_pts_t = np.array([lb[1] for lb in fb["lines"]])
    line_pts_b = np.array([lb[3] for lb in fb["lines"]])
    pad = 0.4 * fs
    ex = np.linspace(bx0 - pad, bx1 + pad, 24)
    ey = np.linspace(by0 - pad, by1 + pad, 12)
    bx = np.concatenate([ex, ex, np.full_like(ey, bx0 - pad), np.full_like(ey, bx1 + pad)])
    by = np.concatenate([np.full_like(ex, by0 - pad), np.full_like(ex, by1 + pad), ey, ey])
    Z0 = f * fs / line_target
    margin = 0.03 * min(W, H)
    for it in range(30):
        cam.aim(aim_x, aim_y, Z0)
        measured = float(np.mean(np.hypot(*(np.array(cam.forward(line_pts_x, line_pts_t)) -
                                            np.array(cam.forward(line_pts_x, line_pts_b))))))
        u, v = cam.forward(bx, by)
        inside = (u.min() > margin and v.min() > margin and u.max() < W - margin and v.max() < H - margin)
        if it < 3 and abs(measured / line_target - 1) > 0.03:
            Z0 *= measured / line_target
            continue
        if inside:
            break
        Z0 *= 1.07
    line_px = measured

    # ---- inverse maps
    uu, vv = np.meshgrid(np.arange(W, dtype=np.float32) + 0.5, np.arange(H, dtype=np.float32) + 0.5)
    xp, yp, Xs, valid = cam.inverse(uu, vv)
    xp[~valid] = -1e5
    yp[~valid] = -1e5
    scale = line_px / fs  # photo px per page px near the framed problem
    prng = np.random.default_rng([seed, i, 3])

    # page mask with an anti-aliased edge
    edge_d = np.minimum(np.minimum(xp, Wp - xp), np.minimum(yp, Hp - yp)) * scale
    page_mask = np.clip(edge_d + 0.5, 0, 1).astype(np.float32)

    # shading from the surface normal
    shade = np.ones((H, W), np.float32)
    if surf["kind"] != "flat":
        Yp = yp
        hx = (cam.h(Xs + 1, Yp) - cam.h(Xs - 1, Yp)) / 2
        hy = (cam.h(Xs, Yp + 1) - cam.h(Xs, Yp - 1)) / 2
        nrm = np.sqrt(hx ** 2 + hy ** 2 + 1)
        lx, ly = prng.uniform(-0.5, 0.5, 2)
        ldir = np.array([lx, ly, 1.0]) / np.sqrt(lx ** 2 + ly ** 2 + 1)
        ndl = (hx * ldir[0] + hy * ldir[1] + ldir[2]) / nrm
        shade = (0.35 + 0.65 * np.clip(ndl, 0, 1)) / (0.35 + 0.65 * ldir[2])
        if surf["kind"] == "spine":
            g = prng.uniform(0.25, 0.5)
            shade *= 1 - g * np.exp(-np.abs(Xs - surf["xs"]) / (fs * prng.uniform(0.8, 2.0)))
        shade = shade.astype(np.float32)

    paper = np.array(PAPERS[int(prng.integers(len(PAPERS)))], np.float32)
    inkc = np.array(INKS[int(prng.integers(len(INKS)))], np.float32)
    desk_name, desk_col = DESKS[int(prng.integers(len(DESKS)))]
    desk_col = np.array(desk_col, np.float32)
    effects.append("paper=" + "/".join(f"{c:.2f}" for c in paper))

    # ---- the page content in photo space
    if screen:
        img_page, screen_mask, bezel_mask, sdesc = render_screen(prng, page, xp, yp, scale, fb, W, H)
        effects.append(sdesc)
    else:
        r = min(1.0, scale * 1.35)
        ink_small = page["ink"]
        if r < 0.9:
            ink_small = cv2.resize(ink_small, None, fx=r, fy=r, interpolation=cv2.INTER_AREA)
            mx, my = (xp + 0.5) * r - 0.5, (yp + 0.5) * r - 0.5
        else:
            mx, my = xp, yp
        inkw = cv2.remap(ink_small, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=0).astype(np.float32) / 255
        inkw *= prng.uniform(0.85, 1.0)
        tex = 1 + smooth_noise(prng, H, W, 96, 0.006) + prng.standard_normal((H, W)).astype(np.float32) * 0.006
        paper_img = paper[None, None, :] * tex[..., None]
        img_page = paper_img * (1 - inkw[..., None]) + inkc[None, None, :] * inkw[..., None]

    # desk background
    desk = desk_col[None, None, :] * (1 + smooth_noise(prng, H, W, 128, 0.03)[..., None])
    if "wood" in desk_name:  # straight grain with slight waviness
        ang = prng.uniform(0, np.pi)
        across = uu * np.cos(ang) + vv * np.sin(ang) + smooth_noise(prng, H, W, 160, 6.0)
        prof_x = np.arange(-2 * max(W, H), 2 * max(W, H), 3.0)
        prof = np.convolve(prng.standard_normal(len(prof_x)), np.ones(5) / 5, "same")
        desk = desk * (1 + 0.06 * np.interp(across, prof_x, prof).astype(np.float32)[..., None])
    desk = desk * (1 - 0.25 * cv2.GaussianBlur(page_mask, (0, 0), 6 + 10 * scale)[..., None])
    desk = desk.astype(np.float32)
    if surf["kind"] == "spine":  # the facing page beyond the spine
        beyond = ((xp - surf["xs"]) * (1 if surf["xs"] == 0 else -1) < 0) & (yp > 0) & (yp < Hp)
        facing = paper * 0.92
        desk[beyond] = facing
    if screen:
        img = desk.copy() if "phone" in effects[-1] else np.full_like(desk, prng.uniform(0.08, 0.25))
        bm = bezel_mask[..., None]
        img = img * (1 - bm) + np.float32(prng.uniform(0.03, 0.1)) * bm
        sm = screen_mask[..., None]
        img = img * (1 - sm) + img_page * sm
        pmask = screen_mask
    else:
        pm = page_mask[..., None]
        img = desk * (1 - pm) + img_page * pm
        pmask = page_mask
    img = (img * shade[..., None]).astype(np.float32)

    protect = ((xp >= bx0 - pad) & (xp <= bx1 + pad) & (yp >= by0 - pad) & (yp <= by1 + pad))
    framed_inside = bool(protect.any() and not (protect[0].any() or protect[-1].any()
                                                 or protect[:, 0].any() or protect[:, -1].any()))
    centre_on = bool(protect[H // 2, W // 2])

    # ---- objects over the page
    orng = np.random.default_rng([seed, i, 4])
    occluder = ""
    if "occluder" in kinds:
        kinds_obj = ["finger", "thumb", "pen", "pencil", "ruler", "eraser"]
        for obj in [kinds_obj[j] for j in orng.permutation(len(kinds_obj))][:3]:
            res = draw_occluder(orng, obj, W, H, line_px, protect, pmask > 0.5)
            if res is not None:
                rgb, a, sh, occluder = res
                img = img * (1 - sh[..., None])
                img = img * (1 - a[..., None]) + rgb * a[..., None]
                effects.append(f"occluder={occluder}")
                break

    # ---- light
    lrng = np.random.default_rng([seed, i, 5])
    light = []
    if "light" in kinds:
        opts = ["dim", "warm", "shadow", "glare", "gradient"]
        n = 1 if lrng.random() < 0.55 else 2
        light = [opts[j] for j in lrng.permutation(len(opts))[:n]]
    elif not plain and lrng.random() < 0.25:
        light = ["gradient"]
    expo = lrng.uniform(0.92, 1.05)
    wb = np.array([1 + lrng.uniform(-0.04, 0.04), 1.0, 1 + lrng.uniform(-0.05, 0.04)], np.float32)
    img = img * (expo * wb)[None, None, :]
    if "gradient" in light:
        ang = lrng.uniform(0, 2 * np.pi)
        t = ((uu - W / 2) * np.cos(ang) + (vv - H / 2) * np.sin(ang)) / max(W, H)
        lo = lrng.uniform(0.45, 0.7)
        g = lo + (1 - lo) * np.clip(t + 0.5, 0, 1) ** lrng.uniform(0.6, 1.6)
        img = img * g[..., None] * lrng.uniform(1.0, 1.15)
        effects.append(f"light=gradient({lo:.2f})")
    if "warm" in light:
        cast = np.array([1.0, lrng.uniform(0.8, 0.9), lrng.uniform(0.5, 0.68)], np.float32)
        img = img * cast[None, None, :] * lrng.uniform(1.0, 1.1)
        effects.append("light=warm_lamp")
    if "shadow" in light:
        sh = hard_shadow(lrng, W, H)
        dark = lrng.uniform(0.42, 0.65)
        cool = np.array([0.97, 0.99, 1.04], np.float32)  # shadows are lit by bluish skylight
        img = img * (1 - (1 - dark) * sh[..., None]) * np.where(sh[..., None] > 0.5, cool, 1)
        effects.append(f"light=hard_shadow({dark:.2f},over_framed={int((sh > 0.5)[protect].any())})")
    if "glare" in light:
        cx, cy = lrng.uniform(0.15, 0.85) * W, lrng.uniform(0.15, 0.85) * H
        sx, sy = lrng.uniform(0.05, 0.16) * W, lrng.uniform(0.04, 0.12) * H
        q = ((uu - cx) / sx) ** 2 + ((vv - cy) / sy) ** 2
        spot = np.exp(-q / 2)
        touches = bool((spot > 0.2)[protect].any())
        amp = lrng.uniform(0.18, 0.3) if touches else lrng.uniform(0.5, 0.9)
        img = img + (amp * spot + 0.5 * amp * np.exp(-q * 3))[..., None] * np.array([1.0, 1.0, 0.98], np.float32)
        effects.append(f"light=glare({amp:.2f},touches_framed={int(touches)})")
    vig = lrng.uniform(0.0, 0.3)
    rr = ((uu - W / 2) ** 2 + (vv - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
    img = img * (1 - vig * rr)[..., None]

    # ---- optics: blur
    brng = np.random.default_rng([seed, i, 6])
    img = np.clip(img, 0, 1.2).astype(np.float32)
    base_sigma = brng.uniform(0.3, 0.6) * min(1.0, line_px / 24)
    img = cv2.GaussianBlur(img, (0, 0), base_sigma)
    if "blur" in kinds:
        mode = str(brng.choice(["defocus", "motion", "shake"]))
        if mode == "defocus":
            rad = brng.uniform(1.2, max(1.4, min(2.8, 0.09 * line_px)))
            k = disk_kernel(rad)
            desc = f"blur=defocus(r={rad:.1f})"
        elif mode == "motion":
            ln = brng.uniform(3, max(3.5, min(8, 0.25 * line_px)))
            ang = brng.uniform(0, np.pi)
            k = path_kernel([[0, 0], [ln * np.cos(ang), ln * np.sin(ang)]])
            desc = f"blur=motion(len={ln:.1f},ang={np.degrees(ang):.0f})"
        else:
            span = brng.uniform(3.0, max(3.5, min(6.0, 0.2 * line_px)))
            steps = brng.normal(0, 1, (7, 2)).cumsum(0)
            steps *= span / (np.ptp(steps, 0).max() + 1e-6)
            k = path_kernel(steps)
            desc = f"blur=shake(span={span:.1f})"
        img = cv2.filter2D(img, -1, k, borderType=cv2.BORDER_REFLECT)
        effects.append(desc)

    # ---- sensor noise and ISP
    nrng = np.random.default_rng([seed, i, 7])
    if "dim" in light:
        lvl = nrng.uniform(0.22, 0.4)
        sig = nrng.uniform(0.05, 0.085)
        img = img * lvl
        noise = nrng.standard_normal((H, W, 3)).astype(np.float32) * sig * lvl
        noise += nrng.standard_normal((H, W, 1)).astype(np.float32) * sig * lvl * 0.8
        noise = cv2.GaussianBlur(noise, (0, 0), 0.6)
        img = (img + noise * np.sqrt(np.clip(img / lvl, 0.05, 1.2))) / lvl * nrng.uniform(0.6, 0.85)
        effects.append(f"light=dim_noise(level={lvl:.2f},sigma={sig:.3f})")
    else:
        sig = nrng.uniform(0.004, 0.014)
        img = img + nrng.standard_normal((H, W, 3)).astype(np.float32) * sig
    if nrng.random() < 0.6:
        amt = nrng.uniform(0.2, 0.7)
        img = img + amt * (img - cv2.GaussianBlur(img, (0, 0), 1.2))
    img = np.clip(img, 0, 1)
    gam = nrng.uniform(0.9, 1.1)
    out = (np.power(img, gam) * 255 + 0.5).astype(np.uint8)

    # legibility measure on the framed problem (before JPEG)
    contrast = framed_contrast(out, page, protect, xp, yp, line_px)

    if "lowres" in kinds:
        q = int(nrng.integers(55, 71)) if line_px >= 17 else int(nrng.integers(62, 71))
    elif plain:
        q = int(nrng.integers(78, 93))
    else:
        q = int(nrng.integers(60, 93))
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(out, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok

    visible = neighbour_visibility(page, xp[::4, ::4], yp[::4, ::4])
    info = {"qid": f"b{i:03d}", "framed_id": row["id"], "lang": lang,
            "kinds": ";".join(kinds) if kinds else "plain",
            "signs": ";".join(row["signs"]) if plan["signs"] else "",
            "sign_classes_in_text": ";".join(row["signs"]), "doc": doc,
            "columns": 2 if two_col else 1, "width": W, "height": H, "line_px": round(line_px, 1),
            "framed_lines": len(fb["lines"]), "jpeg_q": q,
            "tilt_deg": round(float(np.degrees(abs(tilt))), 1), "roll_deg": round(float(np.degrees(roll)), 1),
            "font": page["meta"]["font"], "num_fmt": page["meta"]["num_fmt"],
            "blank_style": page["meta"]["blank_style"] if "blank" in row["signs"] else "",
            "supsub_style": page["meta"]["supsub_style"] if "supsub" in row["signs"] else "",
            "fallback_glyphs": page["meta"]["fallback_glyphs"],
            "effects": ";".join(effects), "occluder": occluder,
            "framed_inside": int(framed_inside), "centre_on_framed": int(centre_on),
            "framed_contrast": round(contrast, 3),
            "neighbours_visible": ";".join(visible)}
    return bytes(buf), info


def framed_contrast(out, page, protect, xp, yp, line_px):
    """Median local stroke contrast over the framed problem's ink (0..1): local paper level
    (max filter over about half a line) minus the pixel's luminance."""
    ink = cv2.remap(page["ink"], xp, yp, cv2.INTER_LINEAR, borderValue=0)
    lum = out.mean(2).astype(np.float32) / 255
    k = max(3, int(line_px * 0.6) | 1)
    local_paper = cv2.dilate(lum, np.ones((k, k), np.uint8))
    ink_px = protect & (ink > 200)
    if ink_px.sum() < 10:
        return 0.0
    return float(np.median(local_paper[ink_px] - lum[ink_px]))


def neighbour_visibility(page, xs, ys):
    out = []
    for b in page["blocks"]:
        if b["framed"]:
            continue
        x0, y0, x1, y1 = b["bbox"]
        m = (xs >= x0) & (xs <= x1) & (ys >= y0) & (ys <= y1)
        if m.any():
            out.append(b["id"])
    return out


def hard_shadow(rng, W, H):
    """Sharp-edged shadow of a phone or a hand entering from one side."""
    m = np.zeros((H, W), np.uint8)
    side = str(rng.choice(["bottom", "left", "right", "top"]))
    p0 = np.array(edge_point(rng, W, H, side), float)
    inward = {"bottom": -np.pi / 2, "top": np.pi / 2, "left": 0.0, "right": np.pi}[side]
    ang = inward + rng.uniform(-0.6, 0.6)
    d = np.array([np.cos(ang), np.sin(ang)])
    nrm = np.array([-d[1], d[0]])
    if rng.random() < 0.5:  # phone: a long rounded rectangle
        wdt = rng.uniform(0.25, 0.45) * min(W, H)
        ln = rng.uniform(0.4, 0.8) * max(W, H)
        c = p0 + d * (ln / 2 - 0.1 * ln)
        rect = ((float(c[0]), float(c[1])), (float(ln), float(wdt)), float(np.degrees(ang)))
        cv2.fillPoly(m, [np.round(cv2.boxPoints(rect)).astype(np.int32)], 255, cv2.LINE_AA)
        kind = 2.0
    else:  # hand: palm and fingers
        palm_r = rng.uniform(0.14, 0.22) * min(W, H)
        pc = p0 + d * palm_r * 0.6
        cv2.circle(m, tuple(int(c) for c in pc), int(palm_r), 255, -1, cv2.LINE_AA)
        for k in range(4):
            off = (k - 1.5) * palm_r * 0.45
            base = pc + nrm * off + d * palm_r * 0.5
            tip = base + d * palm_r * rng.uniform(1.0, 1.7) + nrm * off * 0.3
            capsule(m, base, tip, palm_r * 0.17)
        kind = 3.0
    sh = m.astype(np.float32) / 255
    return cv2.GaussianBlur(sh, (0, 0), rng.uniform(1.0, kind))


def render_screen(rng, page, xp, yp, scale, fb, W, H):
    """The page shown on a monitor or phone: pixel grid, subpixels, glow and bezel."""
    p = 3  # page px per screen pixel
    ink = page["ink"].astype(np.float32) / 255
    Hs, Ws = ink.shape[0] // p, ink.shape[1] // p
    small = cv2.resize(ink[:Hs * p, :Ws * p], (Ws, Hs), interpolation=cv2.INTER_AREA)
    white = np.array([0.93, 0.96, 1.0], np.float32) * rng.uniform(0.92, 1.0)
    black = np.float32(rng.uniform(0.06, 0.14)) * np.array([0.9, 0.95, 1.0], np.float32)
    scr = white[None, None, :] * (1 - small[..., None]) + black[None, None, :] * small[..., None]
    big = np.repeat(np.repeat(scr, p, 0), p, 1)
    cols = np.arange(big.shape[1]) % p
    rows = np.arange(big.shape[0]) % p
    sub = np.zeros((1, big.shape[1], 3), np.float32)
    for c in range(3):
        sub[0, cols == c, c] = 3.0
    strength = rng.uniform(0.15, 0.4)
    sub = (1 - strength) + strength * sub
    row_gap = np.where(rows == p - 1, rng.uniform(0.7, 0.9), 1.0).astype(np.float32)[:, None, None]
    big = cv2.GaussianBlur((big * sub * row_gap).astype(np.float32), (0, 0), rng.uniform(0.35, 0.6))
    img = cv2.remap(big, xp, yp, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    # outside the page the viewer shows a grey background
    pdist = np.minimum(np.minimum(xp, page["W"] - xp), np.minimum(yp, page["H"] - yp)) * scale
    pm = np.clip(pdist + 0.5, 0, 1)[..., None]
    img = img * pm + (1 - pm) * np.float32(rng.uniform(0.25, 0.45))
    # the visible screen: a window around the framed problem, then a bezel
    bx0, by0, bx1, by1 = fb["bbox"]
    cx, cy = (bx0 + bx1) / 2, (by0 + by1) / 2
    hw, hh = W / 2 / scale, H / 2 / scale
    fac = rng.uniform(0.75, 1.6, 4)
    fac[rng.random(4) < 0.5] = 2.0  # most sides run past the photo edge
    sx0 = min(cx - hw * fac[0], bx0 - page["fs"])
    sx1 = max(cx + hw * fac[1], bx1 + page["fs"])
    sy0 = min(cy - hh * fac[2], by0 - page["fs"])
    sy1 = max(cy + hh * fac[3], by1 + page["fs"])
    bw = page["fs"] * rng.uniform(0.8, 2.5)
    dist = np.minimum(np.minimum(xp - sx0, sx1 - xp), np.minimum(yp - sy0, sy1 - yp)) * scale
    screen_mask = np.clip(dist + 0.5, 0, 1).astype(np.float32)
    bezel_mask = np.clip(dist + bw * scale + 0.5, 0, 1).astype(np.float32) - screen_mask
    glow = 1 + 0.1 * np.exp(-((xp - cx) ** 2 + (yp - cy) ** 2) / (30 * page["fs"]) ** 2)
    img = img * glow[..., None].astype(np.float32)
    img = img + 0.08 * cv2.GaussianBlur(img, (0, 0), 6)
    device = "phone" if rng.random() < 0.4 else "monitor"
    return img.astype(np.float32), screen_mask, bezel_mask, f"screen={device}(pitch={p * scale:.2f}px)"


# ----------------------------------------------------------------------------- driver

_BANK = None


def _init(bank):
    global _BANK
    _BANK = bank
    cv2.setNumThreads(1)


def _job(args):
    seed, i, out = args
    data, info = make_photo(seed, i, _BANK)
    with open(os.path.join(out, f"b{i:03d}.jpg"), "wb") as fh:
        fh.write(data)
    return info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=261)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated photo numbers to remake (CSVs untouched)")
    a = ap.parse_args(argv)
    bank = load_bank(a.bank)
    os.makedirs(a.out, exist_ok=True)
    idx = [int(s) for s in a.only.split(",") if s.strip()] if a.only else list(range(1, a.count + 1))
    t0 = time.time()
    tasks = [(a.seed, i, a.out) for i in idx]
    infos = []
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs, initializer=_init, initargs=(bank,)) as ex:
            for info in ex.map(_job, tasks):
                infos.append(info)
                print(f"[{len(infos)}/{len(idx)}] {info['qid']} {info['framed_id']} {info['kinds']} "
                      f"{time.time() - t0:.1f}s", flush=True)
    else:
        _init(bank)
        for t in tasks:
            info = _job(t)
            infos.append(info)
            print(f"[{len(infos)}/{len(idx)}] {info['qid']} {info['framed_id']} {info['kinds']} "
                  f"{time.time() - t0:.1f}s", flush=True)
    if not a.only:
        byid = {r["id"]: r for r in bank}
        with open(os.path.join(a.out, "truth.csv"), "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["qid", "text"])
            for info in infos:
                w.writerow([info["qid"], byid[info["framed_id"]]["question"]])
        with open(os.path.join(a.out, "queries.csv"), "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["qid", "query", "expected_id", "kind"])
            for info in infos:
                w.writerow([info["qid"], byid[info["framed_id"]]["question"], info["framed_id"], "exact"])
        with open(os.path.join(a.out, "cases.csv"), "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(infos[0].keys()))
            w.writeheader()
            w.writerows(infos)
    print(f"done: {len(idx)} photos in {time.time() - t0:.1f}s -> {a.out}")


if __name__ == "__main__":
    sys.exit(main())
