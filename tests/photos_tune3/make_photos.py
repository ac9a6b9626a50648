#!/usr/bin/env python3
"""Independent generator of phone photos of printed homework problems.

usage: python make_photos.py --bank BANK OUT --count N --seed S [--workers 2]

Each photo frames ONE bank problem (nearest the photo centre, fully inside the photo);
neighbouring problems, headers, footers, hand marks etc. surround it.  See README.md.
"""
import argparse
import csv
import json
import math
import os
import sys
from functools import lru_cache

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont
from fontTools.ttLib import TTFont

cv2.setNumThreads(1)

NOTO = "/usr/share/fonts/opentype/noto/"
LIB = "/usr/share/fonts/truetype/liberation/"
DJV = "/usr/share/fonts/truetype/dejavu/"
FONTS = {
    "sans": (NOTO + "NotoSansCJK-Regular.ttc", 2),
    "sans_b": (NOTO + "NotoSansCJK-Bold.ttc", 2),
    "serif": (NOTO + "NotoSerifCJK-Regular.ttc", 2),
    "serif_b": (NOTO + "NotoSerifCJK-Bold.ttc", 2),
    "smono": (NOTO + "NotoSansCJK-Regular.ttc", 7),
    "lserif": (LIB + "LiberationSerif-Regular.ttf", 0),
    "lserif_b": (LIB + "LiberationSerif-Bold.ttf", 0),
    "lserif_i": (LIB + "LiberationSerif-Italic.ttf", 0),
    "lsans": (LIB + "LiberationSans-Regular.ttf", 0),
    "lsans_b": (LIB + "LiberationSans-Bold.ttf", 0),
    "dvs": (DJV + "DejaVuSans.ttf", 0),
    "dvs_b": (DJV + "DejaVuSans-Bold.ttf", 0),
    "dvs_o": (DJV + "DejaVuSans-Oblique.ttf", 0),
    "dvserif": (DJV + "DejaVuSerif.ttf", 0),
    "dvserif_b": (DJV + "DejaVuSerif-Bold.ttf", 0),
    "dvcond": (DJV + "DejaVuSansCondensed.ttf", 0),
}
# page font families: (cjk regular, cjk bold, latin regular, latin bold, latin italic or None)
FAMILIES = [
    ("serif", "serif_b", "lserif", "lserif_b", "lserif_i"),  # SimSun + Times look
    ("serif", "serif_b", "serif", "serif_b", None),
    ("sans", "sans_b", "sans", "sans_b", None),
    ("sans", "sans_b", "lsans", "lsans_b", None),
    ("serif", "sans_b", "dvserif", "dvserif_b", None),
    ("sans", "sans_b", "dvs", "dvs_b", "dvs_o"),
]
LATIN_FAMILIES = [("lserif", "lserif_b"), ("lsans", "lsans_b"), ("dvserif", "dvserif_b"),
                  ("dvs", "dvs_b"), ("dvcond", "dvs_b")]


@lru_cache(maxsize=None)
def cmap(key):
    path, idx = FONTS[key]
    return frozenset(TTFont(path, fontNumber=idx, lazy=True).getBestCmap().keys())


@lru_cache(maxsize=512)
def font(key, size):
    path, idx = FONTS[key]
    return ImageFont.truetype(path, max(6, int(round(size))), index=idx)


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF) or (0xFF00 <= o <= 0xFFEF) or (0x3000 <= o <= 0x303F) or \
        ch in "“”‘’…—①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳⑴⑵⑶⑷⑸⑹⑺⑻⑼⑽⑾⑿⒀⒁⒂⒃⒄⒅⒆⒇"


NO_START = set("，。、；：？！）》”’,.;:?!)]】」％%")
NO_END = set("（《“‘([【「")


class Style:
    def __init__(self, size, cjk, latin, italic=None, fallback="dvs", color=(20, 20, 20)):
        self.size, self.cjk, self.latin, self.italic, self.fallback, self.color = \
            size, cjk, latin, italic, fallback, color

    def font_for(self, ch, mathy=False, iso=False):
        if is_cjk(ch):
            key = self.cjk
        elif mathy and iso and self.italic and ch.isascii() and ch.isalpha():
            key = self.italic
        else:
            key = self.latin
        if ord(ch) not in cmap(key):
            key = self.fallback if ord(ch) in cmap(self.fallback) else "dvs"
        return key


def tokenize(text):
    toks, cur = [], ""
    for ch in text:
        if ch == " " or is_cjk(ch):
            if cur:
                toks.append(cur)
                cur = ""
            toks.append(ch)
        else:
            cur += ch
    if cur:
        toks.append(cur)
    return toks


def char_keys(tok, st, mathy):
    """font key per character; in maths, isolated ASCII letters (variables) may be italic."""
    keys = []
    for j, c in enumerate(tok):
        iso = mathy and not (j > 0 and tok[j - 1].isascii() and tok[j - 1].isalpha()) and \
            not (j + 1 < len(tok) and tok[j + 1].isascii() and tok[j + 1].isalpha())
        keys.append(st.font_for(c, mathy, iso))
    return keys


def measure(tok, st, mathy):
    return sum(font(k, st.size).getlength(c) for c, k in zip(tok, char_keys(tok, st, mathy)))


def layout(segments, width, first_indent=0.0, next_indent=0.0):
    """segments: list of (text, Style, mathy). Returns lines: list of [(x, tok, Style, mathy)], width."""
    items = []
    for text, st, mathy in segments:
        for t in tokenize(text):
            items.append((t, st, mathy, measure(t, st, mathy)))
    # split over-long words
    out = []
    for it in items:
        if it[3] > width - next_indent and len(it[0]) > 1:
            for c in it[0]:
                out.append((c, it[1], it[2], measure(c, it[1], it[2])))
        else:
            out.append(it)
    items = out
    lines, cur, x = [], [], first_indent
    i = 0
    while i < len(items):
        t, st, mathy, w = items[i]
        # glue non-starting punctuation
        grp = [items[i]]
        j = i + 1
        while j < len(items) and items[j][0][0] in NO_START:
            grp.append(items[j])
            j += 1
        if items[i][0][-1] in NO_END and j < len(items) and items[j][0] != " ":
            grp.append(items[j])
            j += 1
        gw = sum(g[3] for g in grp)
        limit = width
        if cur and x + gw > limit and t != " ":
            while cur and cur[-1][1] == " ":
                cur.pop()
            lines.append(cur)
            cur, x = [], next_indent
        if t == " " and not cur:
            i = j
            continue
        for g in grp:
            cur.append((x, g[0], g[1], g[2]))
            x += g[3]
        i = j
    while cur and cur[-1][1] == " ":
        cur.pop()
    if cur:
        lines.append(cur)
    return lines


def draw_line(draw, line, ox, baseline):
    """draw one laid-out line; returns (x0, x1)."""
    x0, x1 = None, None
    for x, tok, st, mathy in line:
        if tok == " ":
            continue
        xx = ox + x
        run, rkey = "", None
        for c, k in zip(tok, char_keys(tok, st, mathy)):
            if k != rkey and run:
                f = font(rkey, st.size)
                draw.text((xx, baseline), run, font=f, fill=st.color, anchor="ls")
                xx += f.getlength(run)
                run = ""
            rkey = k
            run += c
        if run:
            f = font(rkey, st.size)
            draw.text((xx, baseline), run, font=f, fill=st.color, anchor="ls")
            xx += f.getlength(run)
        x0 = ox + x if x0 is None else min(x0, ox + x)
        x1 = xx if x1 is None else max(x1, xx)
    return x0, x1


CIRC = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
PAREN = "⑴⑵⑶⑷⑸⑹⑺⑻⑼⑽⑾⑿⒀⒁⒂⒃⒄⒅⒆⒇"
CNUM = "一二三四五六七八九十"


def cn(n):
    if n <= 10:
        return CNUM[n - 1]
    if n < 20:
        return "十" + CNUM[n - 11]
    return CNUM[n // 10 - 1] + "十" + (CNUM[n % 10 - 1] if n % 10 else "")


NUM_STYLES = ["1.", "1．", "1、", "(1)", "（1）", "⑴", "①", "第1题", "Q1", "Q1.", "一、", "例1", "1)", "Problem 1."]
NUM_W = [10, 7, 7, 5, 3, 3, 4, 4, 3, 3, 3, 3, 2, 1]


def fmt_num(style, n):
    if style in ("⑴", "①") and n > 20:
        style = "(1)"
    if style == "⑴":
        return PAREN[n - 1]
    if style == "①":
        return CIRC[n - 1]
    if style == "一、":
        return cn(n) + "、"
    return style.replace("1", str(n), 1)


def rand_score_note(rng, english):
    p = int(rng.choice([2, 3, 4, 5, 6, 8, 10, 12]))
    if english:
        return rng.choice([f"({p} points)", f"[{p} marks]", f"({p} pts)", f"（{p}分）"])
    return rng.choice([f"（{p}分）", f"({p}分)", f"【{p}分】", f"（本小题满分{p}分）", f"(本题{p}分)"])


HEADERS_CN = ["第三章 一元一次方程", "第二章 有理数", "第五单元 面积", "第一章 运动的描述", "第四章 化学式与化合价",
              "第二单元 古诗词诵读", "第六章 几何图形初步", "第十一章 功和机械能", "Unit 3 Grammar", "第二节 细胞的结构"]
TITLES = ["2025—2026学年第一学期期中考试", "2025—2026学年度第一学期期末质量检测", "七年级上学期第一次月考",
          "2026年春季学期阶段性检测", "初三年级第二次模拟考试", "高一年级10月联考"]
SUBJ_CN = {"math": "数学", "physics": "物理", "chemistry": "化学", "english": "英语", "biology": "生物",
           "geography": "地理", "history": "历史", "chinese": "语文"}
SECTIONS = ["选择题", "填空题", "解答题", "计算题", "简答题", "综合题", "基础知识", "阅读理解", "实验探究题"]
STEMS = ["回答下列问题。", "按要求完成下列各题。", "解答下列各题：", "Answer the questions.", "完成下列小题。"]


class Page:
    def __init__(self, W, H):
        self.W, self.H = W, H
        self.img = Image.new("RGB", (W, H), (255, 255, 255))
        self.draw = ImageDraw.Draw(self.img)
        self.hl = Image.new("RGB", (W, H), (255, 255, 255))  # multiply layer (highlighter)
        self.problems = []  # dicts: id, bbox, lines, framed
        self.notes = []


def handwritten_stroke(draw, pts, color, width):
    for a, b in zip(pts[:-1], pts[1:]):
        draw.line([a, b], fill=color, width=width)
        r = width / 2
        draw.ellipse([b[0] - r, b[1] - r, b[0] + r, b[1] + r], fill=color)


def curve(rng, p0, p1, p2, n=12):
    out = []
    for t in np.linspace(0, 1, n):
        x = (1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * p1[0] + t * t * p2[0]
        y = (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * p1[1] + t * t * p2[1]
        out.append((x + rng.normal(0, 0.4), y + rng.normal(0, 0.4)))
    return out


def draw_tick(draw, rng, x, y, s, color):
    w = max(2, int(s * rng.uniform(0.07, 0.12)))
    a = (x, y + 0.45 * s)
    b = (x + 0.3 * s, y + 0.85 * s)
    c = (x + s * rng.uniform(0.9, 1.2), y - s * rng.uniform(0.1, 0.35))
    handwritten_stroke(draw, curve(rng, a, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2 + 0.05 * s), b, 6), color, w)
    handwritten_stroke(draw, curve(rng, b, ((b[0] + c[0]) / 2 - 0.05 * s, (b[1] + c[1]) / 2 + 0.1 * s), c, 10), color, w)


def draw_cross(draw, rng, x, y, s, color):
    w = max(2, int(s * rng.uniform(0.07, 0.11)))
    handwritten_stroke(draw, curve(rng, (x, y), (x + 0.55 * s, y + 0.4 * s), (x + s, y + s)), color, w)
    handwritten_stroke(draw, curve(rng, (x + s * 0.95, y + 0.05 * s), (x + 0.45 * s, y + 0.55 * s), (x + 0.05 * s, y + s)), color, w)


def draw_hand_text(page, rng, x, y, s, text, color):
    """hand-ish text: oblique font, rotated, pasted with multiply."""
    f = font("dvs_o", s)
    w = int(f.getlength(text) + s)
    tmp = Image.new("L", (w, int(s * 1.6)), 0)
    ImageDraw.Draw(tmp).text((s * 0.3, s * 1.2), text, font=f, fill=255, anchor="ls", stroke_width=max(1, int(s / 25)))
    tmp = tmp.rotate(float(rng.uniform(-15, 10)), expand=True, resample=Image.BICUBIC)
    col = Image.new("RGB", tmp.size, color)
    page.img.paste(col, (int(x), int(y)), tmp)
    return (x, y, x + tmp.size[0], y + tmp.size[1])


def scribble(draw, rng, x0, y0, x1, h, color):
    """cursive-like handwriting scribble filling [x0,x1] on a line at y0."""
    x = x0
    w = max(1, int(h * 0.07))
    while x < x1:
        n = int(rng.integers(2, 7))  # letters in a word
        pts = []
        t = 0.0
        amp = [rng.uniform(0.15, 0.45) for _ in range(n)]
        for li in range(n):
            tall = rng.random() < 0.3
            for _ in range(14):
                a = amp[li] * (1.8 if tall else 1.0)
                px = x + h * 0.35 * t / (2 * math.pi) - h * 0.12 * math.sin(t)
                py = y0 + h * 0.9 - h * a * (1 - math.cos(t)) / 2
                pts.append((px + rng.normal(0, h * 0.01), py + rng.normal(0, h * 0.01)))
                t += 2 * math.pi / 14
        handwritten_stroke(draw, pts, color, w)
        x = pts[-1][0] + h * rng.uniform(0.4, 0.9)


def draw_figure(draw, rng, x, y, s, color):
    """small geometry figure (triangle / axes) for neighbour problems."""
    f = font("lserif_i", s * 0.12)
    if rng.random() < 0.5:
        A = (x + s * rng.uniform(0.2, 0.6), y + s * 0.1)
        B = (x + s * 0.05, y + s * 0.85)
        C = (x + s * 0.95, y + s * 0.85)
        draw.polygon([A, B, C], outline=color, width=max(1, int(s / 120)))
        for p, label, dx, dy in ((A, "A", -0.02, -0.02), (B, "B", -0.09, 0.1), (C, "C", 0.03, 0.1)):
            draw.text((p[0] + dx * s, p[1] + dy * s), label, font=f, fill=color, anchor="ls")
    else:
        o = (x + s * 0.3, y + s * 0.7)
        draw.line([(x, o[1]), (x + s, o[1])], fill=color, width=max(1, int(s / 150)))
        draw.line([(o[0], y + s), (o[0], y)], fill=color, width=max(1, int(s / 150)))
        pts = [(x + s * t, o[1] - s * 0.6 * (t - 0.3) * rng.uniform(0.8, 1.5)) for t in np.linspace(0.02, 0.95, 20)]
        draw.line(pts, fill=color, width=max(1, int(s / 120)))
        draw.text((o[0] - s * 0.08, o[1] + s * 0.12), "O", font=f, fill=color, anchor="ls")
        draw.text((x + s * 0.96, o[1] + s * 0.12), "x", font=f, fill=color, anchor="ls")
        draw.text((o[0] + s * 0.03, y + s * 0.05), "y", font=f, fill=color, anchor="ls")


# ----------------------------------------------------------------------------- page building

def build_page(rng, framed, others, ptype, R):
    """Render a page. R = body font size in px. Returns Page and page meta."""
    eng_page = framed["subject"] == "english" and rng.random() < 0.5
    fam = FAMILIES[int(rng.integers(len(FAMILIES)))]
    if eng_page and rng.random() < 0.6:
        lat = LATIN_FAMILIES[int(rng.integers(len(LATIN_FAMILIES)))]
        fam = (fam[0], fam[1], lat[0], lat[1], None)
    pt = {"textbook": rng.uniform(9, 10.5), "worksheet": rng.uniform(11, 14), "exam": rng.uniform(10.5, 12),
          "boxed": rng.uniform(10.5, 13), "strip": rng.uniform(10.5, 13)}[ptype]
    ppm = R / (pt * 0.3528)
    pw, ph = (185, 260) if ptype == "textbook" else (210, 297)
    if ptype == "exam" and rng.random() < 0.3:
        pw, ph = 260, 370  # 8K exam sheet
    W, H = int(pw * ppm), int(ph * ppm)
    pg = Page(W, H)
    d = pg.draw
    ink = tuple(int(v) for v in rng.integers(5, 45, 3)) if rng.random() < 0.8 else (40, 40, 50)
    bold_text = rng.random() < 0.12
    bold_num = rng.random() < 0.5
    body = Style(R, fam[1] if bold_text else fam[0], fam[3] if bold_text else fam[2], fam[4],
                 "dvs_b" if bold_text else "dvs", ink)
    numst = Style(R, fam[1] if bold_num else fam[0], fam[3] if bold_num else fam[2], None,
                  "dvs_b" if bold_num else "dvs", ink)
    small = Style(R * 0.8, fam[0], fam[2], None, "dvs", ink)
    numstyle = str(rng.choice(NUM_STYLES, p=np.array(NUM_W) / sum(NUM_W)))
    if eng_page and rng.random() < 0.5:
        numstyle = str(rng.choice(["1.", "Q1", "Q1.", "1)", "Problem 1."]))
    score_mode = rng.choice(["none", "after_num", "end"], p=[0.6, 0.25, 0.15])
    lh = rng.uniform(1.45, 1.9) if ptype != "textbook" else rng.uniform(1.35, 1.6)
    hang = rng.random() < 0.7
    ml = rng.uniform(14, 25) * ppm
    mr = rng.uniform(14, 25) * ppm
    mt = rng.uniform(12, 22) * ppm
    mb = rng.uniform(15, 25) * ppm
    ncols = 2 if (ptype != "strip" and rng.random() < 0.25) else 1
    meta = dict(ptype=ptype, family=list(fam), pt=round(pt, 2), px_per_mm=round(ppm, 2), page_px=[W, H],
                bold_text=bold_text, bold_num=bold_num, numstyle=numstyle, score_mode=str(score_mode),
                line_height=round(lh, 2), hanging=hang, ncols=ncols, eng_page=eng_page)
    subj = SUBJ_CN.get(framed["subject"], "数学")
    y = mt

    def centered(text, st, yb):
        w = measure(text, st, False)
        draw_line(d, [(0, text, st, False)], (W - w) / 2, yb)

    # ---- headers
    if ptype == "textbook":
        hs = Style(R * 0.85, fam[0], fam[2], None, "dvs", ink)
        txt = str(rng.choice(HEADERS_CN))
        pn = str(int(rng.integers(5, 180)))
        left = rng.random() < 0.5
        draw_line(d, [(0, txt if left else pn, hs, False)], ml, y + R)
        t2 = pn if left else txt
        draw_line(d, [(0, t2, hs, False)], W - mr - measure(t2, hs, False), y + R)
        d.line([(ml, y + R * 1.45), (W - mr, y + R * 1.45)], fill=ink, width=max(1, int(R / 18)))
        y += R * 2.8
        hb = Style(R * 1.25, fam[1], fam[3], None, "dvs_b", ink)
        h = str(rng.choice(["习题 " + f"{rng.integers(1, 6)}.{rng.integers(1, 5)}", "练习", "复习题", "Exercises"]))
        draw_line(d, [(0, h, hb, False)], ml + (W - ml - mr) / 2 - measure(h, hb, False) / 2 if rng.random() < 0.5 else ml, y + R)
        y += R * 2.2
        if rng.random() < 0.6:
            draw_line(d, [(0, str(rng.choice(["复习巩固", "综合运用", "拓广探索"])), Style(R, fam[1], fam[3], None, "dvs_b", ink), False)], ml, y + R)
            y += R * 1.9
        meta["header"] = txt
    elif ptype == "exam":
        tb = Style(R * rng.uniform(1.4, 1.8), fam[1], fam[3], None, "dvs_b", ink)
        y += tb.size
        centered(str(rng.choice(TITLES)), tb, y)
        y += tb.size * 1.5
        centered(f"{subj}试卷", tb, y)
        y += tb.size * 0.8
        if rng.random() < 0.8:
            centered(f"（考试时间：{rng.choice([60, 90, 120])}分钟  满分：{rng.choice([100, 120, 150])}分）", small, y + small.size * 1.5)
            y += small.size * 2.2
        # score table
        ncell = int(rng.integers(4, 7))
        labels = ["题号"] + [cn(i + 1) for i in range(ncell - 1)] + ["总分"]
        cw = min((W - ml - mr) / len(labels), R * 4)
        tx = (W - cw * len(labels)) / 2
        y += R * 0.8
        rh = R * 1.8
        lw = max(1, int(R / 20))
        for r_ in range(3):
            d.line([(tx, y + r_ * rh), (tx + cw * len(labels), y + r_ * rh)], fill=ink, width=lw)
        for c_ in range(len(labels) + 1):
            d.line([(tx + c_ * cw, y), (tx + c_ * cw, y + 2 * rh)], fill=ink, width=lw)
        for c_, lab in enumerate(labels):
            w = measure(lab, small, False)
            draw_line(d, [(0, lab, small, False)], tx + c_ * cw + (cw - w) / 2, y + rh * 0.7)
        w = measure("得分", small, False)
        draw_line(d, [(0, "得分", small, False)], tx + (cw - w) / 2, y + rh * 1.7)
        meta["score_table_y"] = [round(y), round(y + 2 * rh)]
        y += 2 * rh + R * 0.9
        info = "姓名：________  班级：________  考号：__________"
        draw_line(d, [(0, info, body, False)], ml + R, y + R)
        y += R * 2.4
    elif ptype in ("worksheet", "boxed"):
        tb = Style(R * rng.uniform(1.3, 1.7), fam[1], fam[3], None, "dvs_b", ink)
        title = str(rng.choice([f"{subj}课堂练习（第{rng.integers(1, 12)}课时）", f"{subj}周末作业", "课后巩固练习",
                                "Homework Sheet", f"{subj}小测", "学案 · 当堂检测"]))
        y += tb.size
        centered(title, tb, y)
        y += tb.size * 0.9
        if rng.random() < 0.7:
            info = str(rng.choice(["班级________ 姓名________ 日期________", "Name: __________  Class: ______",
                                   "姓名：__________  得分：______"]))
            draw_line(d, [(0, info, small, False)], W - mr - measure(info, small, False), y + small.size * 1.6)
            y += small.size * 2.4
        y += R * 0.8
    # footer
    if ptype != "strip" and rng.random() < 0.85:
        ft = str(rng.choice([f"第{rng.integers(1, 4)}页（共4页）", f"{subj}试卷 第 {rng.integers(1, 6)} 页 共 6 页",
                             str(rng.integers(2, 200)), f"— {rng.integers(2, 99)} —", f"{subj} 七年级上册"]))
        draw_line(d, [(0, ft, small, False)], (W - measure(ft, small, False)) / 2 if rng.random() < 0.7 else W - mr - measure(ft, small, False), H - mb * 0.55)
        meta["footer"] = ft

    # ---- strips on notebook paper: handled as regions
    gap = rng.uniform(3, 10) * ppm if ptype == "boxed" else rng.uniform(0.6, 2.2) * R
    colgap = rng.uniform(6, 12) * ppm
    colw = (W - ml - mr - (ncols - 1) * colgap) / ncols
    bottom = H - mb - R
    target_col = int(rng.integers(ncols))
    target_k = int(rng.choice([0, 1, 2, 3, 4, 5], p=[0.08, 0.22, 0.25, 0.22, 0.15, 0.08]))
    if ptype == "exam" and rng.random() < 0.3:
        target_k = min(target_k, 1)
    pool = list(others)
    num0 = int(rng.integers(1, 16)) if numstyle not in ("①", "⑴") else int(rng.integers(1, 6))
    section_first = ptype == "exam"
    sec_no = int(rng.integers(0, 3))
    strips = []
    frame_col = ink if rng.random() < 0.6 else tuple(int(v) for v in rng.integers(60, 200, 3))
    rad = int(R * rng.uniform(0, 0.8))
    y_start = y
    numctr = num0
    for col in range(ncols):
        x0 = ml + col * (colw + colgap)
        y = y_start
        k = 0
        placed_target = False
        while True:
            is_t = (col == target_col and k == target_k)
            if ptype == "exam" and (section_first or rng.random() < 0.12) and not is_t:
                sec_no += 1
                sec = f"{cn(sec_no)}、{rng.choice(SECTIONS)}（本大题共{rng.integers(3, 10)}小题，每小题{rng.integers(2, 9)}分）"
                hst = Style(R, fam[1], fam[3], None, "dvs_b", ink)
                ls = layout([(sec, hst, False)], colw)
                if rng.random() < 0.5:  # 得分 / 评卷人 box
                    bw, bh = R * 3, R * 1.6
                    for j in range(3):
                        d.line([(x0, y + j * bh), (x0 + 2 * bw, y + j * bh)], fill=ink, width=1)
                    for j in range(3):
                        d.line([(x0 + j * bw, y), (x0 + j * bw, y + 2 * bh)], fill=ink, width=1)
                    draw_line(d, [(0, "得分", small, False)], x0 + R * 0.6, y + bh * 0.7)
                    draw_line(d, [(0, "评卷人", small, False)], x0 + bw + R * 0.3, y + bh * 0.7)
                    y += 2 * bh + R * 0.6
                for ln in ls:
                    y += R * lh
                    draw_line(d, ln, x0, y)
                y += R * 0.8
                section_first = False
            if not is_t and len(pool) < 5:
                break
            q = framed if is_t else pool.pop()
            has_sub = (not is_t) and ptype in ("textbook", "worksheet", "exam") and rng.random() < 0.25
            nstr = fmt_num(numstyle, numctr)
            numctr += 1
            eng = not any(is_cjk(c) for c in q["question"])
            segs = []
            note = rand_score_note(rng, eng) if score_mode != "none" else None
            numw = measure(nstr, numst, False) + R * (0.35 if numstyle in ("1.", "Q1", "Q1.", "1)", "Problem 1.") else 0.15)
            pad = 0
            if ptype in ("boxed", "strip"):
                pad = rng.uniform(0.6, 1.2) * R
            textw = colw - 2 * pad
            if has_sub:
                stem = str(rng.choice(STEMS))
                subs = [pool.pop() for _ in range(int(rng.integers(2, 4)))]
                segs.append((stem, body, False))
            else:
                if note is not None and score_mode == "after_num":
                    segs.append((note + (" " if eng or note.isascii() else ""), body, False))
                segs.append((q["question"], body, q["subject"] == "math"))
                if note is not None and score_mode == "end":
                    segs.append(((" " if eng or note.isascii() else "") + note, body, False))
            fi = numw
            ni = numw if hang else 0
            lines = layout(segs, textw, fi, ni)
            extra_lines = []
            if has_sub:
                for si, sq in enumerate(subs):
                    sl = layout([(f"({si + 1}) ", body, False), (sq["question"], body, sq["subject"] == "math")],
                                textw - numw - R, 0, R * 1.5)
                    extra_lines.append((numw + R * 0.5, sl))
            nlines = len(lines) + sum(len(e[1]) for e in extra_lines)
            answer_sp = 0.0
            if ptype in ("worksheet", "exam", "boxed", "strip") and not eng_page:
                answer_sp = R * lh * float(rng.choice([0, 0.5, 1, 2, 3, 4], p=[0.25, 0.2, 0.2, 0.15, 0.1, 0.1]))
            if ptype == "textbook":
                answer_sp = 0
            fig = (not is_t) and q["subject"] in ("math", "physics") and rng.random() < 0.12
            hblock = pad * 2 + R * lh * nlines + answer_sp + R * 0.3
            if fig:
                hblock = max(hblock, R * 7)
            if y + hblock > bottom:
                if is_t:  # target did not fit: force it as next problem after clearing
                    return None, None
                break
            bx0, by0 = x0, y
            if ptype == "strip":
                strips.append((x0 - rng.uniform(0, 3) * ppm, y, x0 + colw + rng.uniform(-8, 3) * ppm, y + hblock + R * 0.2))
            if ptype == "boxed":
                d.rounded_rectangle([x0, y, x0 + colw, y + hblock], radius=rad, outline=frame_col, width=max(1, int(R / 14)))
            yb = y + pad
            rec_lines = []
            nx = x0 + pad
            for li, ln in enumerate(lines):
                yb += R * lh
                bl = yb - R * (lh - 1) / 2 - R * 0.12
                if li == 0:
                    draw_line(d, [(0, nstr, numst, False)], nx, bl)
                lx0, lx1 = draw_line(d, ln, nx, bl)
                if li == 0:
                    lx0 = nx
                rec_lines.append((lx0, lx1, bl))
            for off, sl in extra_lines:
                for ln in sl:
                    yb += R * lh
                    bl = yb - R * (lh - 1) / 2 - R * 0.12
                    lx0, lx1 = draw_line(d, ln, nx + off, bl)
                    rec_lines.append((lx0, lx1, bl))
            if fig:
                fs = R * 6
                draw_figure(d, rng, x0 + colw - fs - pad, y + pad, fs, ink)
            tx0 = min(r_[0] for r_ in rec_lines)
            tx1 = max(r_[1] for r_ in rec_lines)
            ty0 = rec_lines[0][2] - R * 0.95
            ty1 = rec_lines[-1][2] + R * 0.3
            prob = dict(id=q["id"], framed=is_t, text_bbox=[tx0, ty0, tx1, ty1], lines=rec_lines,
                        block=[bx0, by0, x0 + colw, y + hblock], num=nstr, answer_y=[ty1, y + hblock])
            if ptype == "boxed":
                prob["bbox"] = [x0 - R * 0.1, y - R * 0.1, x0 + colw + R * 0.1, y + hblock + R * 0.1]
            else:
                prob["bbox"] = [tx0, ty0, tx1, ty1]
            if fig:
                prob["bbox"][2] = max(prob["bbox"][2], x0 + colw - pad)
                prob["bbox"][3] = max(prob["bbox"][3], y + pad + R * 6)
            if is_t:
                prob["note"] = note
                placed_target = True
            pg.problems.append(prob)
            y += hblock + gap
            k += 1
        if col == target_col and not placed_target:
            return None, None
    meta["target_k"] = target_k
    meta["target_col"] = target_col
    pg.strips = strips
    return pg, meta


# ----------------------------------------------------------------------------- textures

def smooth_noise(rng, h, w, scale, amp):
    sh, sw = max(2, int(h / scale)), max(2, int(w / scale))
    n = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
    return n * amp


def paper_array(rng, W, H, ptype, meta):
    kind = rng.choice(["white", "offwhite", "recycled", "yellow", "pink", "green", "blue"],
                      p=[0.35, 0.25, 0.12, 0.1, 0.06, 0.06, 0.06])
    base = {"white": (250, 250, 248), "offwhite": (245, 241, 230), "recycled": (228, 226, 218),
            "yellow": (250, 240, 200), "pink": (250, 225, 228), "green": (225, 242, 222), "blue": (222, 235, 248)}[str(kind)]
    meta["paper"] = str(kind)
    # work at reduced res for speed
    s = 4
    h, w = H // s + 1, W // s + 1
    arr = np.empty((h, w, 3), np.float32)
    arr[:] = base
    arr += smooth_noise(rng, h, w, 60, 3.0)[..., None]
    arr += rng.normal(0, 2.0, (h, w, 1)).astype(np.float32)
    arr = cv2.resize(arr, (W, H), interpolation=cv2.INTER_LINEAR)
    arr += rng.normal(0, 1.5, (H, W, 1)).astype(np.float32)
    return arr


def notebook_lines(rng, paper, ppm, meta):
    H, W = paper.shape[:2]
    kind = str(rng.choice(["lined", "grid"]))
    meta["notebook"] = kind
    col = np.array(rng.choice([[150, 180, 225], [160, 205, 170], [200, 170, 200], [170, 170, 170]]), np.float32)
    step = rng.uniform(6, 9) * ppm if kind == "lined" else rng.uniform(4.5, 5.5) * ppm
    ang = math.radians(rng.uniform(-1.8, 1.8))
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    yr = yy * math.cos(ang) + xx * math.sin(ang)
    xr = xx * math.cos(ang) - yy * math.sin(ang)
    lw = max(1.0, ppm * 0.25)
    m = (np.mod(yr, step) < lw).astype(np.float32)
    if kind == "grid":
        m = np.maximum(m, (np.mod(xr, step) < lw).astype(np.float32))
    m = cv2.GaussianBlur(m, (0, 0), 0.6)
    a = m[..., None] * 0.8
    paper[:] = paper * (1 - a) + (paper * col / 255.0) * a
    if kind == "lined" and rng.random() < 0.7:
        x = int(rng.uniform(18, 30) * ppm)
        paper[:, x:x + max(2, int(ppm * 0.4))] = paper[:, x:x + max(2, int(ppm * 0.4))] * np.array([1, 0.6, 0.6], np.float32)


def desk_array(rng, W, H, meta):
    kind = str(rng.choice(["wood", "darkwood", "gray", "white", "fabric", "blue"], p=[0.3, 0.15, 0.2, 0.15, 0.1, 0.1]))
    meta["desk"] = kind
    base = {"wood": (165, 120, 80), "darkwood": (90, 60, 40), "gray": (120, 120, 118), "white": (215, 212, 205),
            "fabric": (70, 75, 90), "blue": (100, 130, 160)}[kind]
    s = 4
    h, w = H // s + 1, W // s + 1
    arr = np.empty((h, w, 3), np.float32)
    arr[:] = base
    if "wood" in kind:
        # grain: streaks fast across, slow along the board, gently wavy, then turned
        n = max(h, w) * 3 // 2
        streak = cv2.resize(rng.normal(0, 1, (n // 2, 5)).astype(np.float32), (n, n), interpolation=cv2.INTER_CUBIC)
        fine = cv2.resize(rng.normal(0, 1, (n, 12)).astype(np.float32), (n, n), interpolation=cv2.INTER_LINEAR)
        yy = np.mgrid[0:n, 0:n][0].astype(np.float32)
        wave = np.sin(yy / rng.uniform(6, 14) + smooth_noise(rng, n, n, n / 3, 2.0))
        g = 0.5 * streak + 0.25 * fine + 0.35 * wave
        M = cv2.getRotationMatrix2D((n / 2, n / 2), float(rng.uniform(0, 180)), 1.0)
        g = cv2.warpAffine(g, M, (n, n), borderMode=cv2.BORDER_REFLECT)
        o = (n - h) // 2, (n - w) // 2
        g = g[o[0]:o[0] + h, o[1]:o[1] + w]
        arr *= (1 + 0.08 * g)[..., None]
    arr += smooth_noise(rng, h, w, 40, 8)[..., None]
    arr += rng.normal(0, 4, (h, w, 3)).astype(np.float32)
    return cv2.resize(arr, (W, H), interpolation=cv2.INTER_LINEAR)


# ----------------------------------------------------------------------------- camera

def rot3(pitch, yaw, roll):
    cx, sx = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    cz, sz = math.cos(roll), math.sin(roll)
    Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return Rz @ Rx @ Ry


def homography(W, H, f, pp, c, s, pitch, yaw, roll):
    K = np.array([[f, 0, pp[0]], [0, f, pp[1]], [0, 0, 1.0]])
    Rm = rot3(pitch, yaw, roll)
    D = f / s
    M = np.column_stack([Rm[:, 0], Rm[:, 1], np.array([0, 0, D])])
    T = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1.0]])
    return K @ M @ T


def apply_h(Hm, pts):
    pts = np.asarray(pts, np.float64)
    p = np.column_stack([pts, np.ones(len(pts))]) @ Hm.T
    return p[:, :2] / p[:, 2:3]


def local_scale(Hm, pt, eps=1.0):
    p0, px, py = apply_h(Hm, [pt, (pt[0] + eps, pt[1]), (pt[0], pt[1] + eps)])
    a, b = px - p0, py - p0
    return math.sqrt(abs(a[0] * b[1] - a[1] * b[0]))


class Curl:
    """page-space warp near a book spine: displayed (u,v) shows page content at (u+gx, v+gy)."""

    def __init__(self, rng, W, H, side):
        self.W, self.H, self.side = W, H, side
        self.wc = rng.uniform(0.12, 0.25) * W
        self.A = rng.uniform(0.01, 0.035) * H
        self.B = rng.uniform(0.01, 0.04) * W
        self.vc = rng.uniform(0.3, 0.7) * H

    def t(self, u):
        dist = u if self.side == "left" else self.W - u
        return np.clip(1 - dist / self.wc, 0, 1) ** 2

    def g(self, u, v):
        t = self.t(u)
        sgn = 1 if self.side == "left" else -1
        return u + sgn * self.B * t, v + self.A * t * (v - self.vc) / (self.H / 2)

    def inv(self, pts):
        out = []
        for u, v in pts:
            a, b = u, v
            for _ in range(6):
                ga, gb = self.g(np.float64(a), np.float64(b))
                a, b = a - (ga - u), b - (gb - v)
            out.append((float(a), float(b)))
        return out


def poly_mask(W, H, poly, dil=0):
    m = np.zeros((H, W), np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(poly)).astype(np.int32)], 1)
    if dil > 0:
        k = int(dil) * 2 + 1
        m = cv2.dilate(m, np.ones((k, k), np.uint8))
    return m


class Retry(Exception):
    pass


def make_one(job):
    i, seed, q, others = job
    for attempt in range(20):
        try:
            return _make_one(i, seed, q, others, attempt)
        except Retry:
            continue
    raise RuntimeError(f"could not make photo {i + 1} for {q['id']}")


def _make_one(i, seed, q, others, attempt):
    rng = np.random.default_rng([seed, i, 7, attempt])
    meta = {"photo": f"p{i + 1:03d}.jpg", "qid": q["id"], "attempt": attempt}
    # ---- photo geometry
    sizes = [(960, 1280), (1080, 1440), (1200, 1600), (1536, 2048), (1800, 2400), (3024, 4032), (1080, 1920), (1440, 1920)]
    sw = [0.22, 0.12, 0.16, 0.12, 0.08, 0.14, 0.08, 0.08]
    PW, PH = sizes[int(rng.choice(len(sizes), p=sw))]
    landscape = rng.random() < 0.25
    if landscape:
        PW, PH = PH, PW
    short = min(PW, PH)
    mode = str(rng.choice(["far", "mid", "close"], p=[0.18, 0.42, 0.40]))
    far = mode == "far"
    ptype = str(rng.choice(["textbook", "worksheet", "exam", "boxed", "strip"], p=[0.25, 0.22, 0.23, 0.15, 0.15]))
    # target em size in the photo
    if far:
        E = short * rng.uniform(0.017, 0.026)
    elif mode == "mid":
        E = short * rng.uniform(0.026, 0.05)
    else:
        E = short * rng.uniform(0.045, 0.065)
    E_min = max(18.0, short * 0.017)
    E = max(E, E_min * 1.05)
    R = float(np.clip(E * rng.uniform(0.9, 1.15), 26, 64))
    meta.update(photo_px=[PW, PH], landscape=landscape, far=far, framing=mode)
    pg = None
    for _attempt in range(6):
        sh = list(others)
        rng.shuffle(sh)
        pg, pmeta = build_page(rng, q, sh, ptype, R)
        if pg is not None:
            break
    if pg is None:
        raise Retry()
    meta.update(pmeta)
    W, H = pg.W, pg.H
    tgt = [p for p in pg.problems if p["framed"]][0]
    R_ = R
    d = pg.draw

    # ---- hand marks on the page (page coords), never over framed text
    fx0, fy0, fx1, fy1 = tgt["text_bbox"]
    forbid = [tgt["text_bbox"]]
    marks = []
    red = tuple(int(v) for v in (rng.integers(180, 230), rng.integers(10, 50), rng.integers(20, 60)))

    def free(b, pad=R_ * 0.3):
        for f_ in forbid:
            if not (b[2] + pad < f_[0] or b[0] - pad > f_[2] or b[3] + pad < f_[1] or b[1] - pad > f_[3]):
                return False
        return 0 <= b[0] and b[2] <= W and 0 <= b[1] and b[3] <= H

    if rng.random() < 0.35:
        kind = str(rng.choice(["tick", "cross", "score"], p=[0.5, 0.25, 0.25]))
        s = R_ * rng.uniform(1.5, 2.6)
        cands = [(fx1 + R_ * rng.uniform(0.5, 2), fy0 + rng.uniform(-0.5, 0.5) * R_),
                 (fx0 - s - R_ * rng.uniform(0.4, 1.2), fy0 + rng.uniform(-0.3, 0.6) * R_),
                 (tgt["lines"][-1][1] + R_ * 0.8, tgt["lines"][-1][2] - R_ * 0.9),
                 (fx0 + R_ * rng.uniform(2, 8), fy1 + R_ * 0.5)]
        order = rng.permutation(len(cands))
        for oi in order:
            x, y = cands[oi]
            b = (x, y - s * 0.4, x + s * 1.3, y + s * 1.1)
            if kind == "score":
                b = (x, y, x + s * 2.2, y + s * 1.4)
            if free(b):
                if kind == "tick":
                    draw_tick(d, rng, x, y, s, red)
                elif kind == "cross":
                    draw_cross(d, rng, x, y, s * 0.8, red)
                else:
                    txt = str(rng.choice(["-2", "-3", "5", "8", "+4", "10", "6'", "12", "-1"]))
                    b2 = draw_hand_text(pg, rng, x, y, s * 0.8, txt, red)
                    b = b2
                marks.append(dict(kind=kind, bbox=[round(v) for v in b], on="framed"))
                forbid.append(list(b))
                break
    # marks / scribbles on neighbours
    for p in pg.problems:
        if p["framed"]:
            continue
        r = rng.random()
        if r < 0.15:
            x, y = p["text_bbox"][2] + R_ * 0.6, p["text_bbox"][1]
            s = R_ * rng.uniform(1.3, 2.2)
            b = (x, y - s * 0.4, x + s * 1.3, y + s * 1.1)
            if free(b):
                draw_tick(d, rng, x, y, s, red) if rng.random() < 0.7 else draw_cross(d, rng, x, y, s * 0.8, red)
                marks.append(dict(kind="mark", bbox=[round(v) for v in b], on=p["id"]))
        elif r < 0.3 and p["answer_y"][1] - p["answer_y"][0] > R_ * 1.3:
            y = p["answer_y"][0] + R_ * 0.3
            b = (p["text_bbox"][0], y, p["text_bbox"][0] + R_ * 15, y + R_ * 1.1)
            if free(b):
                pen = tuple(int(v) for v in rng.choice([[30, 40, 120], [20, 20, 30], [60, 60, 70]]))
                scribble(d, rng, b[0] + R_, y, b[0] + R_ * rng.uniform(4, 12), R_ * 0.9, pen)
                marks.append(dict(kind="scribble", bbox=[round(v) for v in b], on=p["id"]))
    # highlighter over part of a neighbour line
    hl = None
    if rng.random() < 0.3:
        tidx = pg.problems.index(tgt)
        near = [p for j, p in enumerate(pg.problems) if not p["framed"] and abs(j - tidx) <= 2]
        if near:
            p = near[int(rng.integers(len(near)))]
            lx0, lx1, bl = p["lines"][int(rng.integers(len(p["lines"])))]
            a = lx0 + (lx1 - lx0) * rng.uniform(0, 0.4)
            b_ = lx0 + (lx1 - lx0) * rng.uniform(0.5, 1.0)
            hb = (a, bl - R_ * 0.95, b_, bl + R_ * 0.25)
            if free(hb, pad=R_ * 0.15):
                col = tuple(int(v) for v in rng.choice([[255, 245, 90], [150, 250, 140], [255, 170, 210], [140, 220, 255]]))
                hd = ImageDraw.Draw(pg.hl)
                pts = [(a + rng.normal(0, R_ * 0.1), hb[1] + rng.normal(0, R_ * 0.08)),
                       (b_ + rng.normal(0, R_ * 0.1), hb[1] + rng.normal(0, R_ * 0.1)),
                       (b_ + rng.normal(0, R_ * 0.1), hb[3] + rng.normal(0, R_ * 0.08)),
                       (a + rng.normal(0, R_ * 0.1), hb[3] + rng.normal(0, R_ * 0.1))]
                hd.polygon(pts, fill=col)
                hl = dict(bbox=[round(v) for v in hb], on=p["id"], color=list(col))
    meta["marks"] = marks
    meta["highlight"] = hl

    # ---- compose page array
    paper = paper_array(rng, W, H, ptype, meta)
    ppm = pmeta["px_per_mm"]
    if ptype == "strip":
        notebook_lines(rng, paper, ppm, meta)
        wp = np.array(rng.choice([[252, 252, 250], [246, 244, 238]]), np.float32)
        for (a, b, c_, e) in pg.strips:
            a, b, c_, e = int(a), int(b), int(c_), int(e)
            # shadow under strip edge
            paper[b + 2:e + int(ppm * 0.6), a + 2:c_ + int(ppm * 0.5)] *= 0.88
            paper[b:e, a:c_] = wp + rng.normal(0, 1.5, (e - b, c_ - a, 1)).astype(np.float32)
    prn = np.asarray(pg.img, np.float32)
    if rng.random() < 0.5:  # ink spread
        prn = cv2.GaussianBlur(prn, (0, 0), R_ / 40 * rng.uniform(0.3, 0.7))
    if rng.random() < 0.25:  # photocopy: grayish print, toner speckles
        prn = 255 - (255 - prn) * rng.uniform(0.75, 0.95)
        sp = (rng.random((H // 2 + 1, W // 2 + 1)) < 0.00012).astype(np.float32)
        sp = cv2.resize(sp, (W, H), interpolation=cv2.INTER_NEAREST)
        prn = prn * (1 - 0.6 * sp[..., None])
        meta["photocopy"] = True
    page = paper * (prn / 255.0) * (np.asarray(pg.hl, np.float32) / 255.0)
    if rng.random() < 0.2:  # show-through of the back side
        back = cv2.GaussianBlur(np.asarray(pg.img.convert("L"), np.float32)[:, ::-1], (0, 0), 2.0)
        page *= (1 - 0.06 * (1 - back / 255.0))[..., None]
        meta["show_through"] = True
    page = np.clip(page, 0, 255).astype(np.uint8)

    # ---- camera pose search
    curl = None
    if ptype == "textbook" and rng.random() < 0.6 or (ptype == "worksheet" and rng.random() < 0.15):
        curl = Curl(rng, W, H, str(rng.choice(["left", "right"])))
        meta["curl"] = dict(side=curl.side, width=round(curl.wc), A=round(curl.A), B=round(curl.B))
    fb = tgt["bbox"]
    c_box = ((fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2)
    corners_pg = [(fb[0], fb[1]), (fb[2], fb[1]), (fb[2], fb[3]), (fb[0], fb[3])]
    tb = tgt["text_bbox"]
    tcorners = [(tb[0], tb[1]), (tb[2], tb[1]), (tb[2], tb[3]), (tb[0], tb[3])]
    if curl is not None:
        corners_d = curl.inv(corners_pg)
        tcorners_d = curl.inv(tcorners)
        c_box = tuple(np.mean(corners_d, axis=0))
    else:
        corners_d, tcorners_d = corners_pg, tcorners
    fwidth = fb[2] - fb[0]
    chosen = None
    for att in range(40):
        damp = max(0.2, 1 - att / 30)
        roll = math.radians(rng.uniform(-10, 10) * damp)
        pitch = math.radians(float(np.clip(rng.normal(0, 9), -22, 22)) * damp)
        yaw = math.radians(float(np.clip(rng.normal(0, 7), -18, 18)) * damp)
        f = max(PW, PH) * rng.uniform(0.75, 1.15)
        frac = {"far": (0.3, 0.55), "mid": (0.5, 0.93), "close": (0.8, 0.95)}[mode]
        frac = rng.uniform(*frac)
        s = frac * PW / fwidth
        s = min(s, E * rng.uniform(1.0, 1.5) / R_ if not far else E / R_)
        s = s * 0.96 ** att
        s = max(s, E_min / R_ * 1.1)
        if mode == "close":  # centre may sit right of a short problem's middle (page edge out of view)
            jx = -(fb[2] - fb[0]) * s * rng.uniform(-0.1, 0.4)
        else:
            jx = (fb[2] - fb[0]) * s * rng.uniform(-0.15, 0.15)
        jy = (fb[3] - fb[1]) * s * rng.uniform(-0.2, 0.2)
        pp = (PW / 2 + jx, PH / 2 + jy)
        Hm = homography(PW, PH, f, pp, c_box, s, pitch, yaw, roll)
        cp = apply_h(Hm, corners_d)
        m = 0.02 * short
        if cp[:, 0].min() < m or cp[:, 0].max() > PW - m or cp[:, 1].min() < m or cp[:, 1].max() > PH - m:
            continue
        scs = [local_scale(Hm, p) * R_ for p in tcorners_d]
        if min(scs) < E_min:
            continue
        # nearest-to-centre check against visible problems
        ctr = np.array([PW / 2, PH / 2])
        dt = np.linalg.norm(cp.mean(0) - ctr)
        if not cv2.pointPolygonTest(cp.astype(np.float32).reshape(-1, 1, 2), (float(ctr[0]), float(ctr[1])), False) >= 0:
            continue
        ok = True
        for p in pg.problems:
            if p["framed"]:
                continue
            b = p["bbox"]
            pc = [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]
            if curl is not None:
                pc = curl.inv(pc)
            q_ = apply_h(Hm, pc)
            if np.linalg.norm(q_.mean(0) - ctr) < dt * 1.15 + 0.03 * short:
                ok = False
                break
            if cv2.pointPolygonTest(q_.astype(np.float32).reshape(-1, 1, 2), (float(ctr[0]), float(ctr[1])), True) > -0.02 * short:
                ok = False
                break
        if not ok:
            continue
        chosen = (Hm, f, s, pitch, yaw, roll, pp, cp, scs)
        break
    if chosen is None:
        raise Retry()
    Hm, f, s, pitch, yaw, roll, pp, cp, scs = chosen
    meta["camera"] = dict(focal=round(f), scale=round(s, 3), pitch=round(math.degrees(pitch), 2),
                          yaw=round(math.degrees(yaw), 2), roll=round(math.degrees(roll), 2),
                          min_em_px=round(min(scs), 1))
    meta["framed_quad"] = [[round(float(a), 1), round(float(b), 1)] for a, b in cp]
    tq = apply_h(Hm, tcorners_d)
    meta["framed_text_quad"] = [[round(float(a), 1), round(float(b), 1)] for a, b in tq]
    vis = []
    for p in pg.problems:
        b = p["bbox"]
        pc = [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]
        if curl is not None:
            pc = curl.inv(pc)
        q_ = apply_h(Hm, pc)
        inside = (q_[:, 0].max() > 0 and q_[:, 0].min() < PW and q_[:, 1].max() > 0 and q_[:, 1].min() < PH)
        if inside and not p["framed"]:
            full = bool(q_[:, 0].min() >= 0 and q_[:, 0].max() <= PW and q_[:, 1].min() >= 0 and q_[:, 1].max() <= PH)
            vis.append(dict(id=p["id"], num=p["num"], complete=full))
    meta["framed_num"] = tgt["num"]
    meta["framed_score_note"] = tgt.get("note")
    meta["neighbours_visible"] = vis

    # ---- render photo
    Hinv = np.linalg.inv(Hm).astype(np.float32)
    yy, xx = np.mgrid[0:PH, 0:PW].astype(np.float32)
    den = Hinv[2, 0] * xx + Hinv[2, 1] * yy + Hinv[2, 2]
    mu = (Hinv[0, 0] * xx + Hinv[0, 1] * yy + Hinv[0, 2]) / den
    mv = (Hinv[1, 0] * xx + Hinv[1, 1] * yy + Hinv[1, 2]) / den
    mu, mv = mu.astype(np.float32), mv.astype(np.float32)
    del xx, yy, den
    shade = None
    if curl is not None:
        t = curl.t(mu)
        shade = 1 - rng.uniform(0.25, 0.5) * t ** 1.5
        gu, gv = curl.g(mu, mv)
        mu, mv = gu.astype(np.float32), gv.astype(np.float32)
    photo = cv2.remap(page, mu, mv, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0)).astype(np.float32)
    mask = cv2.remap(np.full((H, W), 255, np.uint8), mu, mv, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32) / 255.0
    del mu, mv
    desk_vis = float(mask.mean()) < 0.999
    meta["desk_visible"] = desk_vis
    meta["desk_fraction"] = round(1 - float(mask.mean()), 3)
    if desk_vis:
        desk = desk_array(rng, PW, PH, meta)
        sh_ = cv2.GaussianBlur(mask, (0, 0), short * 0.01)
        sh_ = np.roll(sh_, (int(short * 0.006), int(short * 0.004)), axis=(0, 1))
        desk *= (1 - 0.45 * sh_)[..., None]
        photo = photo * mask[..., None] + desk * (1 - mask[..., None])
    if shade is not None:
        photo *= shade[..., None]
    del mask, shade

    # finger at an edge (never over the framed problem)
    fq = poly_mask(PW, PH, cp, dil=0.02 * short)
    if rng.random() < 0.2:
        for _ in range(8):
            edge = int(rng.integers(4))
            rw = short * rng.uniform(0.07, 0.11)
            rl = short * rng.uniform(0.15, 0.3)
            along = rng.uniform(0.1, 0.9)
            if edge == 0:
                cxy, ang = (along * PW, PH), rng.uniform(-110, -70)
            elif edge == 1:
                cxy, ang = (along * PW, 0), rng.uniform(70, 110)
            elif edge == 2:
                cxy, ang = (0, along * PH), rng.uniform(-20, 20)
            else:
                cxy, ang = (PW, along * PH), rng.uniform(160, 200)
            fm = np.zeros((PH, PW), np.uint8)
            tip = (cxy[0] + math.cos(math.radians(ang)) * rl, cxy[1] + math.sin(math.radians(ang)) * rl)
            cv2.ellipse(fm, (int(tip[0] - math.cos(math.radians(ang)) * rl / 2), int(tip[1] - math.sin(math.radians(ang)) * rl / 2)),
                        (int(rl / 2 + rw), int(rw)), ang, 0, 360, 1, -1)
            if (fm & fq).any():
                continue
            fmf = cv2.GaussianBlur(fm.astype(np.float32), (0, 0), max(1.0, short * 0.003))
            skin = np.array(rng.choice([[200, 150, 125], [225, 180, 150], [170, 120, 95], [235, 195, 170]]), np.float32)
            sh2 = cv2.GaussianBlur(fm.astype(np.float32), (0, 0), short * 0.02)
            photo *= (1 - 0.35 * np.clip(sh2 - fmf, 0, 1))[..., None]
            grad = cv2.GaussianBlur(fm.astype(np.float32), (0, 0), rw * 0.5)
            fcol = skin[None, None, :] * (0.75 + 0.3 * grad[..., None]) + smooth_noise(rng, PH, PW, short * 0.05, 4)[..., None]
            photo = photo * (1 - fmf[..., None]) + fcol * fmf[..., None]
            # finger nail near the tip
            nm = np.zeros((PH, PW), np.uint8)
            dx, dy = math.cos(math.radians(ang)), math.sin(math.radians(ang))
            nc = (int(tip[0] - dx * rw * 0.75), int(tip[1] - dy * rw * 0.75))
            cv2.ellipse(nm, nc, (int(rw * 0.6), int(rw * 0.5)), ang, 0, 360, 1, -1)
            nmf = cv2.GaussianBlur(nm.astype(np.float32), (0, 0), max(1.0, rw * 0.06)) * fmf
            ncol = np.clip(skin * 1.12 + np.array([12, 8, 10], np.float32), 0, 255)
            photo = photo * (1 - 0.7 * nmf[..., None]) + ncol * 0.7 * nmf[..., None]
            meta["finger"] = dict(edge=["bottom", "top", "left", "right"][edge])
            break
    # lighting
    yy, xx = np.mgrid[0:PH, 0:PW].astype(np.float32)
    gdir = rng.uniform(0, 2 * math.pi)
    gl = ((xx - PW / 2) * math.cos(gdir) + (yy - PH / 2) * math.sin(gdir)) / max(PW, PH)
    light = 1 + rng.uniform(0.05, 0.3) * gl
    vig = 1 - rng.uniform(0.05, 0.25) * (((xx - PW / 2) / PW) ** 2 + ((yy - PH / 2) / PH) ** 2) * 2
    light = light * vig
    del xx, yy, gl, vig
    if rng.random() < 0.4:
        kind = str(rng.choice(["hand", "phone"]))
        m = np.zeros((PH // 4 + 1, PW // 4 + 1), np.float32)
        h4, w4 = m.shape
        if kind == "phone":
            cxy = (rng.uniform(0, w4), rng.choice([rng.uniform(-0.2, 0.15), rng.uniform(0.85, 1.2)]) * h4)
            box = cv2.boxPoints(((float(cxy[0]), float(cxy[1])), (float(w4 * rng.uniform(0.4, 0.7)), float(h4 * rng.uniform(0.4, 0.7))), float(rng.uniform(-30, 30))))
            cv2.fillPoly(m, [box.astype(np.int32)], 1.0)
        else:
            for _ in range(int(rng.integers(2, 5))):
                ex = rng.choice([rng.uniform(-0.1, 0.3), rng.uniform(0.7, 1.1)]) * w4
                cv2.ellipse(m, (int(ex), int(rng.uniform(0.5, 1.2) * h4)), (int(w4 * rng.uniform(0.15, 0.35)), int(h4 * rng.uniform(0.2, 0.45))),
                            float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        m = cv2.GaussianBlur(m, (0, 0), w4 * rng.uniform(0.02, 0.06))
        m = cv2.resize(m, (PW, PH), interpolation=cv2.INTER_LINEAR)
        light *= 1 - rng.uniform(0.2, 0.4) * m
        meta["shadow"] = kind
    tint = np.array([1.0, 1.0, 1.0], np.float32)
    if rng.random() < 0.35:
        tint = np.array([1.0, rng.uniform(0.9, 0.97), rng.uniform(0.7, 0.88)], np.float32)  # warm/yellowish light
        meta["tint"] = "warm"
    elif rng.random() < 0.15:
        tint = np.array([rng.uniform(0.88, 0.95), rng.uniform(0.95, 1.0), 1.0], np.float32)
        meta["tint"] = "cool"
    expo = rng.uniform(0.82, 1.08)
    photo = photo * (light * expo)[..., None] * tint
    del light
    # blur
    bl = rng.random()
    sc = short / 1000.0
    if bl < 0.3:
        sg = min(rng.uniform(0.6, 1.6) * sc, min(scs) / 18)
        photo = cv2.GaussianBlur(photo, (0, 0), sg)
        meta["blur"] = dict(kind="gauss", sigma=round(sg, 2))
    elif bl < 0.45:
        L = max(3, int(min(rng.uniform(3, 9) * sc, min(scs) / 6)))
        k = np.zeros((L, L), np.float32)
        k[L // 2, :] = 1
        M = cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        k = cv2.warpAffine(k, M, (L, L))
        k /= k.sum()
        photo = cv2.filter2D(photo, -1, k)
        meta["blur"] = dict(kind="motion", length=L)
    else:
        photo = cv2.GaussianBlur(photo, (0, 0), 0.5 * sc + 0.3)
    # sensor noise (luma + chroma), then slight sharpening like phone ISPs
    ns = rng.uniform(1.5, 6)
    photo += rng.normal(0, ns, (PH, PW, 1)).astype(np.float32) + rng.normal(0, ns * 0.4, (PH, PW, 3)).astype(np.float32)
    if rng.random() < 0.5:
        bb = cv2.GaussianBlur(photo, (0, 0), 1.2 * sc + 0.5)
        photo = photo + 0.5 * (photo - bb)
    meta["noise"] = round(ns, 2)
    img = Image.fromarray(np.clip(photo, 0, 255).astype(np.uint8))
    del photo
    qual = int(rng.integers(60, 96))
    meta["jpeg_quality"] = qual
    orient = 1
    if rng.random() < 0.2:
        orient = int(rng.choice([6, 8, 3], p=[0.6, 0.3, 0.1]))
        img = img.rotate({6: 90, 8: 270, 3: 180}[orient], expand=True)
    meta["exif_orientation"] = orient
    return i, img, qual, orient, meta


def job_run(args):
    i, seed, q, others, out = args
    i, img, qual, orient, meta = make_one((i, seed, q, others))
    kw = dict(quality=qual)
    if orient != 1:
        ex = Image.Exif()
        ex[0x0112] = orient
        kw["exif"] = ex.tobytes()
    img.save(os.path.join(out, meta["photo"]), "JPEG", **kw)
    return meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bank", required=True)
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    bank = [json.loads(line) for line in open(a.bank, encoding="utf-8") if line.strip()]
    if a.count > len(bank):
        sys.exit(f"--count {a.count} > bank size {len(bank)} (framed problems are drawn without replacement)")
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng([a.seed, 1])
    order = rng.permutation(len(bank))[:a.count]
    jobs = []
    for i, bi in enumerate(order):
        q = bank[int(bi)]
        others = [b for b in bank if b["id"] != q["id"] and b["question"] != q["question"]]
        jobs.append((i, a.seed, q, others, a.out))
    if a.workers > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(a.workers) as pool:
            metas = pool.map(job_run, jobs, chunksize=1)
    else:
        metas = [job_run(j) for j in jobs]
    with open(os.path.join(a.out, "truth.csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["qid", "text"])
        for j in jobs:
            w.writerow([f"p{j[0] + 1:03d}", j[2]["question"]])
    with open(os.path.join(a.out, "queries.csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for j in jobs:
            w.writerow([f"p{j[0] + 1:03d}", j[2]["question"], j[2]["id"], "exact"])
    with open(os.path.join(a.out, "meta.jsonl"), "w", encoding="utf-8") as fh:
        for m in metas:
            fh.write(json.dumps(m, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
