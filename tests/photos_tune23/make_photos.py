#!/usr/bin/env python3
"""Synthetic phone photos of ONE framed printed problem on a school page, with things
around and on top of the page: desk margins, objects with print, a second sheet, a
book spine / fold / crease, hands and shadows, printed page furniture.

usage: make_photos.py --bank BANK OUT [--count 120] [--seed 241] [--jobs 2] [--only 3,17]

Every random draw of photo i comes from np.random.default_rng(SeedSequence([seed, i]));
the case plan of photo i (kinds, language, framed question, framing, size) depends only
on i (and the bank).  See README.md for the output format.
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import csv
import difflib
import io
import json
import math
import multiprocessing as mp
import re
import subprocess
import sys
import time

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont
from fontTools.ttLib import TTFont

cv2.setNumThreads(1)

# ----------------------------------------------------------------------------- plan
KIND_NAMES = {1: "desk_around_page", 2: "objects_with_print", 3: "second_sheet",
              4: "spine_fold_crease", 5: "hand_or_shadow", 6: "page_furniture"}
MIN_COUNTS = {1: 40, 2: 45, 3: 30, 4: 25, 5: 30, 6: 30}
_WEYL = {1: (0.6180339887, 0.11, 0.41), 2: (0.4142135624, 0.37, 0.44),
         3: (0.7320508076, 0.53, 0.30), 4: (0.2360679775, 0.71, 0.25),
         5: (0.3027756377, 0.19, 0.30), 6: (0.6457513111, 0.83, 0.30)}
SIZES = [(1280, 960), (960, 1280), (1600, 1200)]


def _fr(x):
    return x - math.floor(x)


def plan_kinds(i):
    ks = [k for k, (a, b, p) in _WEYL.items() if _fr(i * a + b) < p]
    if not ks:
        ks = [(i * 5) % 6 + 1]
    return ks


def plan_lang(i):
    return "en" if _fr(i * 0.7548776662 + 0.29) < 0.30 else "zh"


def plan_framing(i):
    x = _fr(i * 0.5698402910 + 0.07)
    return "close" if x < 0.27 else ("medium" if x < 0.66 else "far")


def plan_size(i):
    if i % 8 == 5:
        return (1600, 1200)
    return (1280, 960) if _fr(i * 0.8660254038 + 0.41) < 0.5 else (960, 1280)


def lang_of(text):
    return "zh" if re.search("[\u3400-\u9fff]", text) else "en"


def bank_pools(bank):
    ids = sorted(bank)
    return ([q for q in ids if lang_of(bank[q]) == "zh"],
            [q for q in ids if lang_of(bank[q]) == "en"])


def plan(i, bank):
    """Case plan of photo i: depends only on i (and the bank), never on --count/--seed."""
    zh, en = bank_pools(bank)
    lang = plan_lang(i)
    k = sum(1 for j in range(1, i) if plan_lang(j) == lang)
    if lang == "zh":
        qid = zh[(k * 37 + 5) % len(zh)]
    else:
        qid = en[(k * 11 + 3) % len(en)]
    return {"i": i, "qid": "j%03d" % i, "kinds": plan_kinds(i), "lang": lang,
            "bank_id": qid, "framing": plan_framing(i), "size": list(plan_size(i))}


# ----------------------------------------------------------------------------- fonts
FONT_WANT = {
    "zh_sans": [("Noto Sans CJK SC", "Regular")],
    "zh_sans_b": [("Noto Sans CJK SC", "Bold"), ("Noto Sans CJK SC", "Regular")],
    "zh_serif": [("Noto Serif CJK SC", "Regular"), ("Noto Sans CJK SC", "Regular")],
    "zh_serif_b": [("Noto Serif CJK SC", "Bold"), ("Noto Sans CJK SC", "Bold")],
    "en_serif": [("Liberation Serif", "Regular"), ("DejaVu Serif", "Book")],
    "en_serif_b": [("Liberation Serif", "Bold"), ("DejaVu Serif", "Bold")],
    "en_serif_i": [("Liberation Serif", "Italic"), ("DejaVu Serif", "Italic"), ("DejaVu Serif", "Book")],
    "en_sans": [("Liberation Sans", "Regular"), ("DejaVu Sans", "Book")],
    "en_sans_b": [("Liberation Sans", "Bold"), ("DejaVu Sans", "Bold")],
    "dv_sans": [("DejaVu Sans", "Book"), ("Liberation Sans", "Regular")],
    "dv_sans_b": [("DejaVu Sans", "Bold"), ("Liberation Sans", "Bold")],
    "dv_serif": [("DejaVu Serif", "Book"), ("Liberation Serif", "Regular")],
    "dv_serif_b": [("DejaVu Serif", "Bold"), ("Liberation Serif", "Bold")],
    "mono": [("DejaVu Sans Mono", "Book"), ("Liberation Mono", "Regular")],
    "narrow_b": [("Liberation Sans Narrow", "Bold"), ("DejaVu Sans", "Condensed Bold"), ("DejaVu Sans", "Bold")],
}
FONTS = {}     # key -> (path, index)
COV = {}       # key -> set of code points
_FONT_OBJ = {}
_LEN_CACHE = {}


def init_fonts():
    if FONTS:
        return
    out = subprocess.run(["fc-list", "--format", "%{file}\t%{family[0]}\t%{style[0]}\t%{index}\n"],
                         capture_output=True, text=True).stdout
    found = {}
    for line in sorted(out.splitlines()):
        parts = line.split("\t")
        if len(parts) != 4:
            continue
        path, fam, sty, idx = parts
        found.setdefault((fam, sty), (path, int(idx or 0)))
    cmaps = {}
    for key, wants in FONT_WANT.items():
        for w in wants:
            if w in found:
                FONTS[key] = found[w]
                break
        if key not in FONTS:
            raise SystemExit("font not found for %s (wanted %s)" % (key, wants))
        if FONTS[key] not in cmaps:
            p, ix = FONTS[key]
            tt = TTFont(p, fontNumber=ix, lazy=True)
            cmaps[FONTS[key]] = set(tt.getBestCmap().keys())
            tt.close()
        COV[key] = cmaps[FONTS[key]]


def font(key, size):
    size = max(4, int(round(size)))
    k = (key, size)
    fo = _FONT_OBJ.get(k)
    if fo is None:
        p, ix = FONTS[key]
        fo = ImageFont.truetype(p, size=size, index=ix, layout_engine=ImageFont.Layout.BASIC)
        _FONT_OBJ[k] = fo
    return fo


def covered(ch, chain):
    o = ord(ch)
    return any(o in COV[k] for k in chain)


def seg_runs(s, chain):
    """Split s into runs drawn with the first font of chain that has each glyph."""
    runs = []
    for ch in s:
        if ch == " ":
            k = runs[-1][0] if runs else chain[0]
        else:
            o = ord(ch)
            k = chain[0]
            for kk in chain:
                if o in COV[kk]:
                    k = kk
                    break
        if runs and runs[-1][0] == k:
            runs[-1][1] += ch
        else:
            runs.append([k, ch])
    return runs


def text_len(s, chain, size):
    key = (s, tuple(chain), int(round(size)))
    v = _LEN_CACHE.get(key)
    if v is None:
        v = sum(font(k, size).getlength(t) for k, t in seg_runs(s, chain))
        if len(_LEN_CACHE) > 200000:
            _LEN_CACHE.clear()
        _LEN_CACHE[key] = v
    return v


def add_text(prims, x, base, s, chain, size, color):
    """Append text prims (one per font run); returns (advance, ink bbox or None)."""
    x0 = x
    bb = None
    size = int(round(size))
    for k, t in seg_runs(s, chain):
        fo = font(k, size)
        adv = fo.getlength(t)
        if t.strip():
            b = fo.getbbox(t, anchor="ls")
            rb = (x + b[0], base + b[1], x + b[2], base + b[3])
            prims.append({"t": "text", "x": x, "y": base, "s": t, "k": k, "z": size, "c": color, "bb": rb})
            bb = rb if bb is None else (min(bb[0], rb[0]), min(bb[1], rb[1]), max(bb[2], rb[2]), max(bb[3], rb[3]))
        x += adv
    return x - x0, bb


def char_boxes(s, chain, size, x, base):
    """Per-character horizontal extents (for choosing the centre on a glyph)."""
    out = []
    pos = x
    size = int(round(size))
    for k, t in seg_runs(s, chain):
        fo = font(k, size)
        for j, ch in enumerate(t):
            a = fo.getlength(t[:j])
            b = fo.getlength(t[:j + 1])
            out.append((ch, pos + a, pos + b))
        pos += fo.getlength(t)
    return out


# ----------------------------------------------------------------------------- text content
TITLES_ZH = ["七年级数学 单元测试卷", "八年级物理 课后作业（十二）", "九年级化学 周末练习", "生物 课时练习 第5课时",
             "期中复习 综合练习", "地理 单元检测题", "历史 随堂小测", "语文 基础知识练习", "课后巩固练习（三）", "综合能力训练"]
TITLES_EN = ["Worksheet 7: Mixed Review", "Unit 3 Homework", "Practice Test - Section B", "Exercise 4.2",
             "Science Quiz 2", "Weekly Review Sheet", "Homework Sheet 5"]
INFO_ZH = ["班级：________  姓名：________  学号：______", "姓名 __________  班级 ________  得分 ______"]
INFO_EN = ["Name: ______________   Class: ________   Date: ________", "Name ____________  Form ______  Score ____"]
NOTE_ZH = ["（满分 100 分，时间 90 分钟）", "（请在答题区域内作答）", "说明：本练习共 4 页，请认真审题。"]
NOTE_EN = ["Answer all questions. Show your working.", "Time allowed: 40 minutes.",
           "Write your answers in the spaces provided."]
SECT_ZH = ["一、选择题", "二、填空题", "三、解答题", "一、基础练习", "二、能力提升", "A 组", "B 组", "四、计算题"]
SECT_ZH_SUF = ["", "（每小题 3 分，共 18 分）", "（每题 5 分）", "（共 20 分）"]
SECT_EN = ["Part A", "Part B: Short answers", "Section 1", "Section 2: Problems", "Exercises", "Review questions"]
SCORE_ZH = ["（3分）", "（4分）", "（5分）", "（6 分）", "（8分）"]
SCORE_EN = ["(2 marks)", "(3 marks)", "[4]", "(5 points)"]
TIPS_ZH = ["提示：注意单位换算。", "提示：先写出公式，再代入数据计算。", "想一想：还有其他解法吗？", "注意：结果要化成最简形式。",
           "小贴士：审题时圈出关键词。", "温馨提示：计算后记得检验。"]
TIPS_EN = ["Tip: Write the formula first.", "Hint: Check your units.", "Remember: show your working.",
           "Tip: Underline the key words.", "Note: Give your answer to 2 d.p."]
MARGIN_ZH = ["易错点", "注意审题", "★重点", "参考例2", "想一想", "见第12页", "记公式"]
MARGIN_EN = ["Key idea", "See p. 14", "Note: units", "Watch out!", "Example 2"]
HEAD_ZH = [("人教版 · 七年级上册", "第三章 一元一次方程"), ("课时作业本", "第 {p} 课时"), ("单元质量检测", "数学"),
           ("期末复习专项训练", "物理"), ("同步练习册", "化学 · 九年级")]
HEAD_EN = [("Unit 4 - Practice Book", "Grade 8"), ("Chapter 3 Review", "Science"), ("Homework Booklet", "Term 2"),
           ("Revision Pack", "Mathematics")]
FOOT_ZH = ["第 {p} 页（共 {n} 页）", "— {p} —", "{p}", "数学试卷 第{p}页 共{n}页"]
FOOT_EN = ["Page {p} of {n}", "— {p} —", "{p}", "Unit 3 Homework   page {p}"]
TABLES_ZH = [[["x", "-1", "0", "1", "2"], ["y", "3", "1", "-1", "-3"]],
             [["时间 t/h", "1", "2", "3", "4"], ["路程 s/km", "60", "120", "180", "240"]],
             [["温度/℃", "0", "10", "20", "30"], ["长度/cm", "10.0", "10.2", "10.4", "10.6"]],
             [["电压 U/V", "1.0", "2.0", "3.0"], ["电流 I/A", "0.2", "0.4", "0.6"]]]
TABLES_EN = [[["t (s)", "0", "1", "2", "3"], ["v (m/s)", "0", "10", "20", "30"]],
             [["Mass/g", "10", "20", "30"], ["Length/cm", "5.0", "5.4", "5.8"]],
             [["x", "1", "2", "3", "4"], ["y", "2", "5", "8", "11"]]]
BR_PENCIL = ["BRIGHTLINE HB", "ORION 2B", "中华绘图 HB", "SKETCHPRO 2B", "TIGER-7 HB", "STARLINE 2H"]
BR_PEN = ["GELWRITE 0.5", "晨星 0.5mm", "FLOWMAX 0.38", "INKJOY-7", "SMOOTH GEL 0.5"]
BR_CALC = ["CALCO fx-82", "SUNMATH 82MS", "DELTA-100", "MATHPRO 991"]
BR_ERASER = ["ERASER", "橡皮擦", "4B", "PLUS", "DUST-FREE", "HI-POLYMER"]
NOTE_WORDS_ZH = ["记得订正", "明天交", "第5题再看", "问老师", "背公式!", "错题本", "周五考试", "带尺子"]
NOTE_WORDS_EN = ["check Q5", "due Fri", "ask Ms Li", "p.32 again", "units!", "test Mon", "bring ruler"]
CALC_NUMS = ["3.14159", "128", "0.75", "-2.5", "1024", "36", "9.8", "0.125", "2.718281", "144"]

LABEL_STYLES_ZH = ["1.", "1．", "(1)", "（1）", "【1】", "Q1", "第1题"]
LABEL_STYLES_EN = ["1.", "(1)", "Q1"]

CLOSE_P = set("，。？！；：、）》」』”’,.?!;:%")
OPEN_P = set("（《「『“‘")


def fmt_label(style, n):
    return {"1.": "%d." % n, "1．": "%d．" % n, "(1)": "(%d)" % n, "（1）": "（%d）" % n,
            "【1】": "【%d】" % n, "Q1": "Q%d" % n, "第1题": "第%d题" % n}[style]


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF) or (0xF900 <= o <= 0xFAFF) or (0xFF00 <= o <= 0xFFEF) or (0x3000 <= o <= 0x303F)


def tokenize(text, qflag):
    """Atoms for line breaking: CJK chars, latin words, spaces; no line starts with closing
    punctuation and none ends with opening punctuation."""
    atoms = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == " ":
            atoms.append([" ", qflag])
            i += 1
        elif is_cjk(ch) or ch in CLOSE_P or ch in OPEN_P:
            atoms.append([ch, qflag])
            i += 1
        else:
            j = i
            while j < n and text[j] != " " and not is_cjk(text[j]) and text[j] not in CLOSE_P and text[j] not in OPEN_P:
                j += 1
            atoms.append([text[i:j], qflag])
            i = j
    merged = []
    pending_open = ""
    for a in atoms:
        t = a[0]
        if t in OPEN_P or (len(t) == 1 and t in OPEN_P):
            pending_open += t
            continue
        if pending_open:
            t = pending_open + t
            pending_open = ""
        if merged and t and t[0] in CLOSE_P and t.strip() and merged[-1][0] != " " and len(t) == 1:
            merged[-1][0] += t
            continue
        merged.append([t, a[1]])
    if pending_open:
        merged.append([pending_open, qflag])
    return merged


def wrap_atoms(atoms, chain, size, first_w, rest_w):
    lines = []
    cur = []
    cw = 0.0
    avail = first_w
    for t, q in atoms:
        if t == " " and not cur:
            continue
        w = text_len(t, chain, size)
        if cur and t != " " and cw + w > avail:
            while cur and cur[-1][0] == " ":
                cw -= text_len(" ", chain, size)
                cur.pop()
            lines.append(cur)
            cur = []
            cw = 0.0
            avail = rest_w
        cur.append((t, q))
        cw += w
    while cur and cur[-1][0] == " ":
        cur.pop()
    if cur:
        lines.append(cur)
    return lines


# ----------------------------------------------------------------------------- geometry
def rect_pts(b):
    x0, y0, x1, y1 = b
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)


def happly(Hm, pts):
    pts = np.asarray(pts, float).reshape(-1, 2)
    q = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(Hm, float).T
    return q[:, :2] / q[:, 2:3]


def poly_area(p):
    p = np.asarray(p, float)
    if len(p) < 3:
        return 0.0
    x, y = p[:, 0], p[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def clip_poly(poly, x0, y0, x1, y1):
    pts = [tuple(p) for p in np.asarray(poly, float)]
    for e in range(4):
        if not pts:
            break
        out = []
        n = len(pts)
        for k in range(n):
            P = pts[k]
            Q = pts[(k + 1) % n]
            if e == 0:
                pin, qin = P[0] >= x0, Q[0] >= x0
            elif e == 1:
                pin, qin = P[0] <= x1, Q[0] <= x1
            elif e == 2:
                pin, qin = P[1] >= y0, Q[1] >= y0
            else:
                pin, qin = P[1] <= y1, Q[1] <= y1
            if pin:
                out.append(P)
            if pin != qin:
                if e < 2:
                    bx = x0 if e == 0 else x1
                    t = (bx - P[0]) / (Q[0] - P[0])
                    out.append((bx, P[1] + t * (Q[1] - P[1])))
                else:
                    by = y0 if e == 2 else y1
                    t = (by - P[1]) / (Q[1] - P[1])
                    out.append((P[0] + t * (Q[0] - P[0]), by))
        pts = out
    return np.array(pts, float) if pts else np.zeros((0, 2))


def inside_frac(poly, W, H):
    a = poly_area(poly)
    if a <= 0:
        return 0.0
    return poly_area(clip_poly(poly, 0, 0, W, H)) / a


def convex_overlap(P, Q):
    P = np.asarray(P, float)
    Q = np.asarray(Q, float)
    for poly in (P, Q):
        n = len(poly)
        for k in range(n):
            e = poly[(k + 1) % n] - poly[k]
            ax = np.array([-e[1], e[0]])
            p = P @ ax
            q = Q @ ax
            if p.max() < q.min() or q.max() < p.min():
                return False
    return True


def point_in_convex(pt, poly):
    poly = np.asarray(poly, float)
    n = len(poly)
    sgn = 0
    for k in range(n):
        a = poly[k]
        b = poly[(k + 1) % n]
        c = (b[0] - a[0]) * (pt[1] - a[1]) - (b[1] - a[1]) * (pt[0] - a[0])
        if c != 0:
            s = 1 if c > 0 else -1
            if sgn == 0:
                sgn = s
            elif s != sgn:
                return False
    return True


def in_convex_many(pts, poly):
    pts = np.asarray(pts, float)
    poly = np.asarray(poly, float)
    a = poly
    b = np.roll(poly, -1, axis=0)
    e = b - a
    C = e[None, :, 0] * (pts[:, None, 1] - a[None, :, 1]) - e[None, :, 1] * (pts[:, None, 0] - a[None, :, 0])
    return (C >= 0).all(1) | (C <= 0).all(1)


def boxes_inside_frac(Hm, boxes, W, H, bz=None):
    """inside fraction of many page rectangles mapped by Hm (vectorised fast path);
    bz: spine/curl bend applied to the corners first."""
    if len(boxes) == 0:
        return np.zeros(0)
    B = np.asarray(boxes, float)
    pts = np.stack([B[:, [0, 1]], B[:, [2, 1]], B[:, [2, 3]], B[:, [0, 3]]], 1).reshape(-1, 2)
    if bz is not None and bz["variant"] in ("spine", "curl"):
        pts = bend_forward(bz, pts)
    q = happly(Hm, pts).reshape(-1, 4, 2)
    out = np.zeros(len(B))
    xmin, xmax = q[..., 0].min(1), q[..., 0].max(1)
    ymin, ymax = q[..., 1].min(1), q[..., 1].max(1)
    full = (xmin >= 0) & (ymin >= 0) & (xmax <= W) & (ymax <= H)
    none = (xmax <= 0) | (ymax <= 0) | (xmin >= W) | (ymin >= H)
    out[full] = 1.0
    for k in np.nonzero(~full & ~none)[0]:
        out[k] = inside_frac(q[k], W, H)
    return out


def rot_rect(cx, cy, w, h, ang):
    c, s = math.cos(ang), math.sin(ang)
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    R = np.array([[c, -s], [s, c]])
    return pts @ R.T + np.array([cx, cy])


def capsule_poly(p0, p1, w, n=8):
    p0 = np.asarray(p0, float)
    p1 = np.asarray(p1, float)
    d = p1 - p0
    L = np.hypot(*d) + 1e-9
    u = d / L
    v = np.array([-u[1], u[0]])
    pts = []
    for k in range(n + 1):
        a = math.pi / 2 + math.pi * k / n
        pts.append(p0 + (w / 2) * (math.cos(a) * u + math.sin(a) * v))
    for k in range(n + 1):
        a = -math.pi / 2 + math.pi * k / n
        pts.append(p1 + (w / 2) * (math.cos(a) * u + math.sin(a) * v))
    return np.array(pts)


def dilate_rect(b, m):
    return (b[0] - m, b[1] - m, b[2] + m, b[3] + m)


def rect_inter(a, b):
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[2], b[2]), min(a[3], b[3])
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def union_bb(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def edge_samples(b, n=5):
    x0, y0, x1, y1 = b
    t = np.linspace(0, 1, n, endpoint=False)
    top = np.stack([x0 + (x1 - x0) * t, np.full(n, y0)], 1)
    right = np.stack([np.full(n, x1), y0 + (y1 - y0) * t], 1)
    bot = np.stack([x1 - (x1 - x0) * t, np.full(n, y1)], 1)
    left = np.stack([np.full(n, x0), y1 - (y1 - y0) * t], 1)
    return np.vstack([top, right, bot, left])


# ----------------------------------------------------------------------------- page layout
class Page:
    def __init__(self, w, h, st):
        self.w, self.h, self.st = w, h, st
        self.prims = []
        self.problems = []
        self.furniture = []
        self.framed_idx = None


def choose(rng, seq, p=None):
    return seq[int(rng.choice(len(seq), p=p))]


def make_style(rng, lang, framing, cols=None, wide_margin=None, need_head=False, need_foot=False):
    st = {"lang": lang}
    if lang == "zh":
        body = choose(rng, ["zh_sans", "zh_serif"], [0.45, 0.55])
        st["body"], st["bold"] = body, body + "_b"
        st["chain"] = [body, "zh_sans", "dv_sans"]
        st["bchain"] = [body + "_b", "zh_sans_b", "dv_sans_b"]
        st["label_style"] = choose(rng, LABEL_STYLES_ZH, [0.22, 0.2, 0.12, 0.14, 0.12, 0.08, 0.12])
    else:
        body = choose(rng, ["en_serif", "en_sans", "dv_serif", "dv_sans"], [0.35, 0.25, 0.2, 0.2])
        st["body"] = body
        st["bold"] = {"en_serif": "en_serif_b", "en_sans": "en_sans_b", "dv_serif": "dv_serif_b", "dv_sans": "dv_sans_b"}[body]
        st["chain"] = [body, "dv_sans", "zh_sans"]
        st["bchain"] = [st["bold"], "dv_sans_b", "zh_sans_b"]
        st["label_style"] = choose(rng, LABEL_STYLES_EN, [0.5, 0.25, 0.25])
    frange = {"close": (40, 58), "medium": (28, 42), "far": (22, 32)}[framing]
    st["f"] = int(rng.integers(frange[0], frange[1] + 1))
    st["cols"] = cols if cols else (2 if rng.random() < (0.55 if framing == "far" else 0.4) else 1)
    st["lh"] = float(rng.uniform(1.35, 1.75))
    gl = {"close": (1.2, 5.0), "medium": (0.5, 3.0), "far": (0.25, 1.3)}[framing]
    st["gap"] = float(rng.uniform(*gl))
    if st["cols"] == 1:
        st["tw"] = float(rng.uniform(28, 38))
        st["gut"] = 0.0
    else:
        cw = float(rng.uniform(14.5, 19))
        st["gut"] = float(rng.uniform(1.5, 3.0))
        st["tw"] = 2 * cw + st["gut"]
    st["ml"] = float(rng.uniform(2.6, 4.8))
    st["mr"] = float(rng.uniform(2.6, 4.8))
    if wide_margin == "left":
        st["ml"] = float(rng.uniform(6.5, 8.5))
    elif wide_margin == "right":
        st["mr"] = float(rng.uniform(6.5, 8.5))
    st["mt"] = float(rng.uniform(3.6 if need_head else 2.8, 5.0))
    st["mb"] = float(rng.uniform(3.6 if need_foot else 2.8, 5.0))
    st["aspect"] = 1.4142 if lang == "zh" or rng.random() < 0.5 else 1.2941
    st["label_bold"] = bool(rng.random() < 0.3)
    st["hanging"] = bool(rng.random() < 0.6)
    st["score_notes"] = bool(rng.random() < 0.3)
    st["answer_lines"] = bool(rng.random() < 0.3)
    st["doc_type"] = choose(rng, ["worksheet", "exam paper", "homework sheet", "textbook exercise page"])
    st["title"] = bool(rng.random() < 0.55)
    st["sections"] = bool(rng.random() < 0.5)
    g = int(rng.integers(10, 60))
    st["ink"] = (g, g, int(min(90, g + rng.integers(0, 18))))
    pw = int(rng.integers(236, 253))
    st["paper"] = (pw, int(pw - rng.integers(0, 6)), int(pw - rng.integers(2, 14)))
    st["num0"] = 1 if rng.random() < 0.5 else int(rng.integers(2, 25))
    st["page_no"] = int(rng.integers(1, 9))
    return st


def prep_problem(st, qtext, label, width, score=None):
    f = st["f"]
    chain = st["chain"]
    lchain = st["bchain"] if st["label_bold"] else chain
    lw = text_len(label, lchain, f)
    lgap = f * (0.35 if st["lang"] == "en" or label[-1] in ".)" or label[-1].isdigit() else 0.15)
    if label.startswith("第"):
        lgap = f * 0.4
    ind = lw + lgap
    atoms = tokenize(qtext, True)
    if score:
        if st["lang"] == "en":
            atoms.append([" ", False])
        atoms += tokenize(score, False)
    lines = wrap_atoms(atoms, chain, f, width - ind, width - (ind if st["hanging"] else 0))
    return {"label": label, "lw": lw, "ind": ind, "lines": lines, "n": len(lines), "score": score,
            "h": len(lines) * f * st["lh"]}


def place_problem(page, pp, x, y, bank_id, qtext, col, framed):
    st = page.st
    f = st["f"]
    L = f * st["lh"]
    asc = f * 0.86
    chain = st["chain"]
    lchain = st["bchain"] if st["label_bold"] else chain
    _, lbb = add_text(page.prims, x, y + asc, pp["label"], lchain, f, st["ink"])
    lines = []
    box = lbb
    for j, ln in enumerate(pp["lines"]):
        base = y + j * L + asc
        lx = x + (pp["ind"] if (j == 0 or st["hanging"]) else 0)
        s = "".join(t for t, q in ln)
        _, bb = add_text(page.prims, lx, base, s, chain, f, st["ink"])
        qmask = "".join(("1" if q else "0") * len(t) for t, q in ln)
        rec = {"bb": bb, "x": lx, "base": base, "s": s, "qmask": qmask}
        lines.append(rec)
        box = union_bb(box, bb)
    prob = {"bank_id": bank_id, "text": qtext, "label": pp["label"], "label_bb": lbb, "lines": lines,
            "box": box, "col": col, "framed": framed, "n_lines": pp["n"], "score": pp["score"],
            "slot": (x, y, y + pp["h"])}
    page.problems.append(prob)
    return prob


def draw_answer_lines(page, x0, x1, y0, y1):
    st = page.st
    L = st["f"] * st["lh"]
    y = y0 + L * 0.9
    while y < y1 - L * 0.3:
        page.prims.append({"t": "line", "p": (x0, y, x1, y), "w": max(1, st["f"] / 22), "c": (150, 150, 150),
                           "bb": (x0, y - 2, x1, y + 2)})
        y += L


def add_tip_box(page, rng, x, y, w):
    st = page.st
    f = st["f"]
    fs = f * 0.82
    txt = choose(rng, TIPS_ZH if st["lang"] == "zh" else TIPS_EN)
    chain = st["chain"]
    lines = wrap_atoms(tokenize(txt, False), chain, fs, w - 1.6 * f, w - 1.6 * f)
    Ls = fs * 1.45
    h = len(lines) * Ls + 0.9 * f
    fill = None if rng.random() < 0.4 else (int(rng.integers(226, 242)),) * 3
    page.prims.append({"t": "rect", "b": (x, y, x + w, y + h), "o": (90, 90, 90), "f": fill,
                       "w": max(1, f / 18), "r": f * 0.3, "bb": (x - 2, y - 2, x + w + 2, y + h + 2)})
    for j, ln in enumerate(lines):
        add_text(page.prims, x + 0.8 * f, y + 0.45 * f + j * Ls + fs * 0.9, "".join(t for t, q in ln), chain, fs, st["ink"])
    page.furniture.append({"type": "tip_box", "text": txt, "bb": (x, y, x + w, y + h)})
    return h


def table_size(st, rows):
    f = st["f"]
    fs = f * 0.8
    chain = st["chain"]
    cws = [max(text_len(r[c], chain, fs) for r in rows) + 1.0 * f for c in range(len(rows[0]))]
    return cws, fs * 1.9, fs


def add_table(page, x, y, rows, cws, ch, fs):
    st = page.st
    chain = st["chain"]
    w = sum(cws)
    h = ch * len(rows)
    lw = max(1, st["f"] / 20)
    for r in range(len(rows) + 1):
        page.prims.append({"t": "line", "p": (x, y + r * ch, x + w, y + r * ch), "w": lw, "c": st["ink"],
                           "bb": (x, y + r * ch - 2, x + w, y + r * ch + 2)})
    cx = x
    for c in range(len(cws) + 1):
        page.prims.append({"t": "line", "p": (cx, y, cx, y + h), "w": lw, "c": st["ink"], "bb": (cx - 2, y, cx + 2, y + h)})
        if c < len(cws):
            for r in range(len(rows)):
                tw = text_len(rows[r][c], chain, fs)
                add_text(page.prims, cx + (cws[c] - tw) / 2, y + r * ch + ch * 0.5 + fs * 0.36, rows[r][c], chain, fs, st["ink"])
            cx += cws[c]
    txt = " | ".join(" ".join(r) for r in rows)
    page.furniture.append({"type": "table", "text": txt, "bb": (x, y, x + w, y + h)})


def add_figure(page, rng, x, y, sz):
    st = page.st
    f = st["f"]
    ink = st["ink"]
    lw = max(1, f / 16)
    it = ["en_serif_i", "dv_serif"]
    fs = f * 0.8
    kind = choose(rng, ["triangle", "circle", "axes", "numberline", "rect"])
    P = page.prims
    labels = []

    def line(a, b, w=lw):
        P.append({"t": "line", "p": (a[0], a[1], b[0], b[1]), "w": w, "c": ink,
                  "bb": (min(a[0], b[0]) - 3, min(a[1], b[1]) - 3, max(a[0], b[0]) + 3, max(a[1], b[1]) + 3)})

    def lab(s, px, py):
        tw = text_len(s, it, fs)
        add_text(P, px - tw / 2, py + fs * 0.35, s, it, fs, ink)
        labels.append(s)

    m = 0.15 * sz
    if kind == "triangle":
        A = (x + m, y + sz - m)
        B = (x + sz - m, y + sz - m)
        C = (x + m, y + m + 0.1 * sz)
        line(A, B)
        line(B, C)
        line(C, A)
        r = 0.08 * sz
        line((A[0] + r, A[1]), (A[0] + r, A[1] - r))
        line((A[0], A[1] - r), (A[0] + r, A[1] - r))
        lab("A", A[0] - 0.35 * f, A[1] + 0.4 * f)
        lab("B", B[0] + 0.4 * f, B[1] + 0.4 * f)
        lab("C", C[0] - 0.4 * f, C[1] - 0.3 * f)
        lab(choose(rng, ["3", "4", "6", "a"]), (A[0] + B[0]) / 2, A[1] + 0.6 * f)
        lab(choose(rng, ["4", "8", "b"]), A[0] - 0.5 * f, (A[1] + C[1]) / 2)
    elif kind == "circle":
        cx, cy, r = x + sz / 2, y + sz / 2, sz / 2 - m
        P.append({"t": "ellipse", "b": (cx - r, cy - r, cx + r, cy + r), "w": lw, "c": ink, "bb": (cx - r - 3, cy - r - 3, cx + r + 3, cy + r + 3)})
        line((cx, cy), (cx + r * 0.87, cy - r * 0.5))
        P.append({"t": "ellipse", "b": (cx - 3, cy - 3, cx + 3, cy + 3), "w": lw, "c": ink, "fill": ink, "bb": (cx - 4, cy - 4, cx + 4, cy + 4)})
        lab("O", cx - 0.2 * f, cy + 0.5 * f)
        lab("r", cx + r * 0.45, cy - r * 0.25 - 0.4 * f)
    elif kind == "axes":
        ox, oy = x + 0.3 * sz, y + 0.7 * sz
        line((x + m * 0.5, oy), (x + sz - m * 0.3, oy))
        line((ox, y + sz - m * 0.5), (ox, y + m * 0.3))
        line((x + sz - m * 0.3, oy), (x + sz - m * 0.3 - 0.25 * f, oy - 0.15 * f))
        line((ox, y + m * 0.3), (ox - 0.15 * f, y + m * 0.3 + 0.25 * f))
        line((ox - 0.15 * sz, oy + 0.25 * sz), (x + sz - m, y + m))
        lab("x", x + sz - m * 0.3, oy + 0.55 * f)
        lab("y", ox - 0.5 * f, y + m * 0.3)
        lab("O", ox - 0.45 * f, oy + 0.5 * f)
        lab("A", x + sz * 0.62, y + sz * 0.33)
    elif kind == "numberline":
        yy = y + sz * 0.5
        line((x + m * 0.3, yy), (x + sz - m * 0.3, yy))
        n = 6
        for k in range(n):
            px = x + m + k * (sz - 2 * m) / (n - 1)
            line((px, yy - 0.2 * f), (px, yy + 0.2 * f))
            lab(str(k - 2), px, yy + 0.7 * f)
    else:
        x0, y0, x1, y1 = x + m, y + m + 0.1 * sz, x + sz - m, y + sz - m
        P.append({"t": "rect", "b": (x0, y0, x1, y1), "o": ink, "f": None, "w": lw, "r": 0, "bb": (x0 - 3, y0 - 3, x1 + 3, y1 + 3)})
        line((x0, y1), (x1, y0), max(1, lw * 0.7))
        lab("A", x0 - 0.35 * f, y0 - 0.3 * f)
        lab("B", x1 + 0.35 * f, y0 - 0.3 * f)
        lab("C", x1 + 0.35 * f, y1 + 0.4 * f)
        lab("D", x0 - 0.35 * f, y1 + 0.4 * f)
    page.furniture.append({"type": "figure", "text": kind + ": " + " ".join(labels), "bb": (x, y, x + sz, y + sz)})


def build_page(rng, st, framed, nbr_iter, policy, furn, sibling=None, page_total=None):
    """Lay out one page.  framed: (bank_id, text) or None.  policy: dict(col, mode, k).
    furn: list of page-furniture requests for kind 6.  Returns Page or None."""
    f = st["f"]
    L = f * st["lh"]
    Wp = (st["ml"] + st["tw"] + st["mr"]) * f
    Hp = Wp * st["aspect"]
    page = Page(Wp, Hp, st)
    ink = st["ink"]
    chain, bchain = st["chain"], st["bchain"]
    lang = st["lang"]
    x0 = st["ml"] * f
    tw = st["tw"] * f
    ncol = st["cols"]
    colw = (tw - st["gut"] * f * (ncol - 1)) / ncol
    cols = [(x0 + c * (colw + st["gut"] * f), x0 + c * (colw + st["gut"] * f) + colw) for c in range(ncol)]
    top = st["mt"] * f
    bot = Hp - st["mb"] * f
    furn = furn or []
    ftypes = [q["type"] for q in furn]
    pno = st["page_no"]
    ptot = page_total or pno + int(rng.integers(0, 4))
    # running header / footer / page number
    if "header" in ftypes or (not furn and False):
        hs = f * 0.78
        l, r = choose(rng, HEAD_ZH if lang == "zh" else HEAD_EN)
        r = r.format(p=pno)
        yb = top - 1.3 * f
        _, b1 = add_text(page.prims, x0, yb, l, chain, hs, ink)
        rw = text_len(r, chain, hs)
        _, b2 = add_text(page.prims, x0 + tw - rw, yb, r, chain, hs, ink)
        page.prims.append({"t": "line", "p": (x0, yb + 0.35 * f, x0 + tw, yb + 0.35 * f), "w": max(1, f / 18), "c": ink,
                           "bb": (x0, yb, x0 + tw, yb + 0.4 * f + 2)})
        page.furniture.append({"type": "running_header", "text": l + "  " + r,
                               "bb": (x0, min(b1[1], b2[1]), x0 + tw, yb + 0.4 * f)})
    if "footer" in ftypes or "page_number" in ftypes:
        hs = f * 0.8
        yb = bot + 1.9 * f
        s = choose(rng, FOOT_ZH if lang == "zh" else FOOT_EN).format(p=pno, n=ptot)
        if "page_number" in ftypes:
            s = choose(rng, ["{p}", "— {p} —", "- {p} -"]).format(p=pno)
            sw = text_len(s, chain, f * 0.9)
            xx = choose(rng, [x0, x0 + (tw - sw) / 2, x0 + tw - sw])
            _, b = add_text(page.prims, xx, yb, s, chain, f * 0.9, ink)
            page.furniture.append({"type": "page_number", "text": s, "bb": b})
        else:
            page.prims.append({"t": "line", "p": (x0, yb - 1.05 * f, x0 + tw, yb - 1.05 * f), "w": max(1, f / 18), "c": ink,
                               "bb": (x0, yb - 1.05 * f - 2, x0 + tw, yb - 1.05 * f + 2)})
            sw = text_len(s, chain, hs)
            _, b = add_text(page.prims, x0 + (tw - sw) / 2, yb, s, chain, hs, ink)
            page.furniture.append({"type": "running_footer", "text": s, "bb": (x0, yb - 1.05 * f - 2, x0 + tw, b[3])})
    y = top
    if st["title"]:
        ts = f * float(rng.uniform(1.3, 1.6))
        t = choose(rng, TITLES_ZH if lang == "zh" else TITLES_EN)
        w = text_len(t, bchain, ts)
        add_text(page.prims, x0 + (tw - w) / 2, y + ts * 0.9, t, bchain, ts, ink)
        y += ts * 1.6
        if rng.random() < 0.6:
            s = choose(rng, INFO_ZH if lang == "zh" else INFO_EN)
            w = text_len(s, chain, f * 0.9)
            add_text(page.prims, x0 + (tw - w) / 2, y + f * 0.8, s, chain, f * 0.9, ink)
            y += f * 1.7
        if rng.random() < 0.4:
            s = choose(rng, NOTE_ZH if lang == "zh" else NOTE_EN)
            add_text(page.prims, x0, y + f * 0.8, s, chain, f * 0.85, ink)
            y += f * 1.6
        y += 0.4 * f
    col_top = y
    num = st["num0"]
    pol = policy or {}
    fr_placed = framed is None
    attach_next = [q for q in furn if q["type"] in ("table", "figure") and q.get("attach") == "next"]
    attach_prev = [q for q in furn if q["type"] in ("table", "figure") and q.get("attach") == "prev"]
    tip_before = [q for q in furn if q["type"] == "tip_box" and q.get("pos") == "before"]
    tip_after = [q for q in furn if q["type"] == "tip_box" and q.get("pos") == "after"]
    margin_note = [q for q in furn if q["type"] == "margin_note"]
    queue = []
    nbr_done = [False]
    sect_list = SECT_ZH if lang == "zh" else SECT_EN
    sect_i = int(rng.integers(0, len(sect_list) - 1))

    def next_nbr():
        if queue:
            return queue[0]
        if nbr_done[0]:
            return None
        try:
            queue.append(next(nbr_iter))
        except StopIteration:
            nbr_done[0] = True
            return None
        return queue[0]

    def score_for():
        if st["score_notes"] and rng.random() < 0.8:
            return choose(rng, SCORE_ZH if lang == "zh" else SCORE_EN)
        return None

    def fig_req_size(q):
        if q["type"] == "figure":
            return q["size"] * f
        rows = q["rows"]
        cws, ch, fs = table_size(st, rows)
        return ch * len(rows)

    def extra_h(att):
        h = 0.0
        for q in att:
            if q["type"] == "table" or q.get("where") == "below":
                h += fig_req_size(q) + 0.5 * L
        return h

    def place_attachments(att, prob, x, xr, ytop, ybot):
        """tables/figures belonging to a neighbour. returns new y after them."""
        yy = ybot
        for q in att:
            if q["type"] == "figure" and q.get("where") == "beside":
                sz = q["size"] * f
                add_figure(page, rng, xr - sz, ytop, sz)
                page.furniture[-1]["near"] = prob["bank_id"]
                yy = max(yy, ytop + sz)
            elif q["type"] == "figure":
                sz = q["size"] * f
                add_figure(page, rng, x + prob["lw_ind"], yy + 0.25 * L, sz)
                page.furniture[-1]["near"] = prob["bank_id"]
                yy += sz + 0.5 * L
            else:
                cws, ch, fs = table_size(st, q["rows"])
                add_table(page, x + prob["lw_ind"], yy + 0.25 * L, q["rows"], cws, ch, fs)
                page.furniture[-1]["near"] = prob["bank_id"]
                yy += ch * len(q["rows"]) + 0.5 * L
        return yy

    sibling_pending = [False]
    for c in range(ncol):
        cx0, cx1 = cols[c]
        y = col_top
        n_in_col = 0
        if st["sections"] and (c == 0 or rng.random() < 0.3):
            s = sect_list[min(sect_i, len(sect_list) - 1)]
            sect_i += 1
            if lang == "zh" and rng.random() < 0.5 and not s.endswith("组"):
                s += choose(rng, SECT_ZH_SUF)
            add_text(page.prims, cx0, y + f * 0.9, s, bchain, f, ink)
            y += 1.6 * f
        while True:
            is_fr = False
            if not fr_placed and c == pol.get("col", 0):
                mode = pol.get("mode", "index")
                if mode == "top":
                    is_fr = n_in_col == 0
                elif mode == "index":
                    is_fr = n_in_col >= pol.get("k", 1)
                if not is_fr:
                    # would the framed problem still fit after the next neighbour?
                    nb = next_nbr()
                    fpp = prep_problem(st, framed[1], fmt_label(st["label_style"], num + 1), colw, None)
                    need = fpp["h"] + L * st["gap"] + sum(add_tip_h(st, q, colw) for q in tip_before + tip_after)
                    nh = (prep_problem(st, nb[1], fmt_label(st["label_style"], num), colw, None)["h"] if nb else 0)
                    if nb is None or y + nh + L * st["gap"] + need > bot - 0.2 * L:
                        is_fr = True
            if is_fr:
                for q in tip_before:
                    h = add_tip_box(page, rng, cx0, y, colw)
                    page.furniture[-1]["near"] = "framed"
                    y += h + 0.6 * L
                sc = score_for()
                pp = prep_problem(st, framed[1], fmt_label(st["label_style"], num), colw, sc)
                if pp["n"] > 4 or y + pp["h"] > bot:
                    return None
                prob = place_problem(page, pp, cx0, y, framed[0], framed[1], c, True)
                page.framed_idx = len(page.problems) - 1
                for q in margin_note:
                    ms = f * 0.72
                    txt = choose(rng, MARGIN_ZH if lang == "zh" else MARGIN_EN)
                    if c == 0 and (ncol == 2 or st["ml"] > st["mr"]):
                        mx0, mx1 = 0.9 * f, x0 - 0.8 * f
                    else:
                        mx0, mx1 = x0 + tw + 0.8 * f, Wp - 0.9 * f
                    lines = wrap_atoms(tokenize(txt, False), chain, ms, mx1 - mx0 - 0.6 * f, mx1 - mx0 - 0.6 * f)
                    yy = y + (rng.uniform(-0.6, 0.8)) * L
                    bb = None
                    for j, ln in enumerate(lines):
                        _, b = add_text(page.prims, mx0 + 0.3 * f, yy + ms * 0.9 + j * ms * 1.35, "".join(t for t, _ in ln), chain, ms,
                                        (int(ink[0] * 0.5 + 60), int(ink[1] * 0.5 + 60), int(ink[2] * 0.5 + 90)))
                        bb = union_bb(bb, b)
                    if bb is None:
                        return None
                    style = choose(rng, ["box", "bar"])
                    bx = (bb[0] - 0.25 * f, bb[1] - 0.25 * f, bb[2] + 0.25 * f, bb[3] + 0.25 * f)
                    if style == "box":
                        page.prims.append({"t": "rect", "b": bx, "o": (110, 110, 140), "f": None, "w": max(1, f / 22), "r": 0.2 * f,
                                           "bb": dilate_rect(bx, 2)})
                    else:
                        page.prims.append({"t": "line", "p": (bx[0], bx[1], bx[0], bx[3]), "w": max(2, f / 8), "c": (110, 110, 150),
                                           "bb": (bx[0] - 3, bx[1], bx[0] + 3, bx[3])})
                    page.furniture.append({"type": "margin_note", "text": txt, "bb": bx, "near": "framed"})
                y += pp["h"]
                for q in tip_after:
                    y += 0.5 * L
                    h = add_tip_box(page, rng, cx0, y, colw)
                    page.furniture[-1]["near"] = "framed"
                    y += h
                if st["answer_lines"] and st["gap"] > 1.5:
                    draw_answer_lines(page, cx0 + pp["ind"], cx1, y, y + L * st["gap"])
                y += L * st["gap"]
                num += 1
                n_in_col += 1
                fr_placed = True
                if sibling is not None:
                    queue.insert(0, sibling)
                    sibling_pending[0] = True
                continue
            nb = next_nbr()
            if nb is None:
                break
            att = []
            if fr_placed and framed is not None and attach_next and page.problems and page.problems[-1]["framed"]:
                att = attach_next
            if (not fr_placed and attach_prev and c == pol.get("col", 0) and pol.get("mode") == "index"
                    and n_in_col == pol.get("k", 1) - 1):
                att = attach_prev
            width = colw
            beside = [q for q in att if q["type"] == "figure" and q.get("where") == "beside"]
            if beside:
                width = colw - beside[0]["size"] * f - 0.8 * f
            sc = score_for()
            pp = prep_problem(st, nb[1], fmt_label(st["label_style"], num), width, sc)
            hh = pp["h"]
            if beside:
                hh = max(hh, beside[0]["size"] * f)
            hh += extra_h(att)
            if y + hh > bot:
                if att:
                    return None
                break
            queue.pop(0)
            prob = place_problem(page, pp, cx0, y, nb[0], nb[1], c, False)
            prob["lw_ind"] = pp["ind"]
            if att:
                yend = place_attachments(att, prob, cx0, cx1, y, y + pp["h"])
                att.clear()
            else:
                yend = y + pp["h"]
            if st["answer_lines"] and st["gap"] > 1.5:
                draw_answer_lines(page, cx0 + pp["ind"], cx1, yend, yend + L * st["gap"])
            y = yend + L * st["gap"]
            num += 1
            n_in_col += 1
        if not fr_placed and c == pol.get("col", 0):
            return None
    if not fr_placed:
        return None
    # all requested furniture present?
    got = [q["type"] for q in page.furniture]
    for q in furn:
        t = {"header": "running_header", "footer": "running_footer"}.get(q["type"], q["type"])
        if t not in got:
            return None
    page.cols = cols
    page.col_top = col_top
    page.bot = bot
    return page


def add_tip_h(st, q, colw):
    f = st["f"]
    fs = f * 0.82
    return 2 * fs * 1.45 + 0.9 * f + 0.6 * f * st["lh"]


def render_page(page, rx, ry, rw, rh):
    """Render region [rx,rx+rw)x[ry,ry+rh) of page coords -> (rgb uint8, alpha uint8)."""
    st = page.st
    img = Image.new("RGB", (rw, rh), st["paper"])
    d = ImageDraw.Draw(img)
    for p in page.prims:
        bb = p["bb"]
        if bb[2] < rx or bb[0] > rx + rw or bb[3] < ry or bb[1] > ry + rh:
            continue
        t = p["t"]
        if t == "text":
            d.text((p["x"] - rx, p["y"] - ry), p["s"], font=font(p["k"], p["z"]), fill=p["c"], anchor="ls")
        elif t == "line":
            a, b, c2, e = p["p"]
            d.line([(a - rx, b - ry), (c2 - rx, e - ry)], fill=p["c"], width=int(round(p["w"])))
        elif t == "rect":
            a, b, c2, e = p["b"]
            box = [a - rx, b - ry, c2 - rx, e - ry]
            if p.get("r"):
                d.rounded_rectangle(box, radius=p["r"], outline=p["o"], fill=p["f"], width=int(round(p["w"])))
            else:
                d.rectangle(box, outline=p["o"], fill=p["f"], width=int(round(p["w"])))
        elif t == "ellipse":
            a, b, c2, e = p["b"]
            d.ellipse([a - rx, b - ry, c2 - rx, e - ry], outline=p["c"], fill=p.get("fill"), width=int(round(p["w"])))
    rgb = np.asarray(img, dtype=np.uint8).copy()
    alpha = np.zeros((rh, rw), np.uint8)
    x0 = int(max(0, math.ceil(-rx)))
    y0 = int(max(0, math.ceil(-ry)))
    x1 = int(min(rw, math.floor(page.w - rx)))
    y1 = int(min(rh, math.floor(page.h - ry)))
    if x1 > x0 and y1 > y0:
        alpha[y0:y1, x0:x1] = 255
    return rgb, alpha


# ----------------------------------------------------------------------------- camera
def homography(c, s, theta, a, b, W, H):
    cx, cy = c
    T1 = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], float)
    S = np.diag([s, s, 1.0])
    ct, sn = math.cos(theta), math.sin(theta)
    R = np.array([[ct, -sn, 0], [sn, ct, 0], [0, 0, 1]], float)
    P = np.array([[1, 0, 0], [0, 1, 0], [a, b, 1]], float)
    T2 = np.array([[1, 0, W / 2], [0, 1, H / 2], [0, 0, 1]], float)
    return T2 @ P @ R @ S @ T1


def pick_centre(rng, page):
    fp = page.problems[page.framed_idx]
    st = page.st
    f = st["f"]
    cands = fp.get("_cands")
    if cands is not None:
        li, k, ch, xa, xb = cands[int(rng.integers(0, len(cands)))]
        ln = fp["lines"][li]
        yc = ln["base"] - (0.36 if st["lang"] == "zh" or ch.isdigit() or ch.isupper() else 0.26) * f
        return (xa + xb) / 2.0, yc, li, ch
    cands = []
    fp["_cands"] = cands
    for li, ln in enumerate(fp["lines"]):
        cbs = char_boxes(ln["s"], st["chain"], f, ln["x"], ln["base"])
        for k, (ch, xa, xb) in enumerate(cbs):
            if ln["qmask"][k] == "1" and (ch.isalnum() or is_cjk(ch)) and ch not in CLOSE_P and ch not in OPEN_P and xb - xa > f * 0.3:
                cands.append((li, k, ch, xa, xb))
    li, k, ch, xa, xb = cands[int(rng.integers(0, len(cands)))]
    ln = fp["lines"][li]
    yc = ln["base"] - (0.36 if st["lang"] == "zh" or ch.isdigit() or ch.isupper() else 0.26) * f
    return (xa + xb) / 2.0, yc, li, ch


def count_visible(page, Hm, W, H, bz=None):
    return int((boxes_inside_frac(Hm, [p["box"] for p in page.problems], W, H, bz) >= 0.35).sum())


FRAMING_RANGE = {"close": (2, 3), "medium": (4, 7), "far": (8, 999)}


def paper_rect(scene):
    return scene["paper_rect"]


def desk_stats(paper_poly, W, H):
    """fraction of photo not covered by the paper quad, and which photo borders show desk
    (a border counts when more than 10% of it is desk)."""
    inter = poly_area(clip_poly(paper_poly, 0, 0, W, H))
    frac = 1 - inter / (W * H)
    sides = []
    ts = np.linspace(0.0, 1.0, 41)
    borders = {"top": np.stack([ts * W, np.full_like(ts, 0.5)], 1), "bottom": np.stack([ts * W, np.full_like(ts, H - 0.5)], 1),
               "left": np.stack([np.full_like(ts, 0.5), ts * H], 1), "right": np.stack([np.full_like(ts, W - 0.5), ts * H], 1)}
    for name in ("top", "bottom", "left", "right"):
        out = int((~in_convex_many(borders[name], paper_poly)).sum())
        if out > 0.1 * len(ts):
            sides.append(name)
    return frac, sides


def camera_ok(scene, Hm, W, H, need_count=True):
    page = scene["page"]
    kinds = scene["kinds"]
    fp = page.problems[page.framed_idx]
    m = 14
    fpoly = happly(Hm, rect_pts(fp["box"]))
    if fpoly[:, 0].min() < m or fpoly[:, 1].min() < m or fpoly[:, 0].max() > W - m or fpoly[:, 1].max() > H - m:
        return False
    pr = scene["paper_rect"]
    if 1 in kinds:
        corners = happly(Hm, rect_pts((0, 0, page.w, page.h)))
        if not any(25 < x < W - 25 and 25 < y < H - 25 for x, y in corners):
            return False
        ppoly = happly(Hm, rect_pts(pr))
        frac = 1 - poly_area(clip_poly(ppoly, 0, 0, W, H)) / (W * H)
        if frac < 0.05 or frac > 0.55:
            return False
        frac, sides = desk_stats(ppoly, W, H)
        if not (1 <= len(sides) <= 2):
            return False
    else:
        Hinv = np.linalg.inv(Hm)
        pc = happly(Hinv, [[0, 0], [W, 0], [W, H], [0, H]])
        if pc[:, 0].min() < pr[0] + 3 or pc[:, 1].min() < pr[1] + 3 or pc[:, 0].max() > pr[2] - 3 or pc[:, 1].max() > pr[3] - 3:
            return False
    if need_count:
        lo, hi = FRAMING_RANGE[scene["framing"]]
        n = count_visible(page, Hm, W, H, scene.get("bend"))
        if not (lo <= n <= hi):
            return False
    if 6 in kinds:
        if not any(inside_frac(happly(Hm, rect_pts(q["bb"])), W, H) >= 0.5 for q in page.furniture):
            return False
    bz = scene.get("bend")
    if bz and bz["variant"] in ("spine", "curl"):
        zr = bz["zone_rect"]
        zi = bz["inner_rect"]
        if poly_area(clip_poly(happly(Hm, rect_pts(zi)), 0, 0, W, H)) < 0.03 * W * H:
            return False
        ok = False
        for p in page.problems:
            if p["framed"]:
                continue
            ri = rect_inter(p["box"], zr)
            if ri and poly_area(clip_poly(happly(Hm, rect_pts(ri)), 0, 0, W, H)) > 0.002 * W * H:
                ok = True
                break
        if not ok:
            return False
    return True


def solve_camera(rng, scene):
    page = scene["page"]
    W, H = scene["W"], scene["H"]
    f = page.st["f"]
    for _ in range(8):
        cx, cy, li, ch = pick_centre(rng, page)
        theta = math.radians(float(np.clip(rng.normal(0, 4.5), -10, 10)))
        a, b = rng.uniform(-1.4e-4, 1.4e-4, 2) * (1280.0 / max(W, H))
        grid = np.arange(0.45, 1.5001, 0.03)
        feas = []
        for s in grid:
            if not (11 <= f * s <= 75):
                continue
            Hm = homography((cx, cy), s, theta, a, b, W, H)
            if camera_ok(scene, Hm, W, H):
                feas.append(float(s))
        if feas:
            s = feas[int(rng.integers(0, len(feas)))]
            Hm = homography((cx, cy), s, theta, a, b, W, H)
            return {"H": Hm, "s": s, "theta": theta, "a": float(a), "b": float(b), "c": (cx, cy), "line": li, "char": ch}
    return None


# ----------------------------------------------------------------------------- bend / crease
def bend_tables(k):
    u = np.linspace(0, 1, 401)
    g = u + k * u * (1 - u) ** 2
    return u, g


def bend_forward(bz, pts):
    """flat page coords -> bent page coords (points)."""
    pts = np.array(pts, float).reshape(-1, 2)
    if not bz or bz["variant"] not in ("spine", "curl"):
        if bz and bz["variant"] == "crease":
            n = np.array(bz["n"])
            d = (pts - np.array(bz["p0"])) @ n
            pts = pts + np.outer(bz["delta"] * np.tanh(d / bz["w"]), n)
        return pts
    ax = 0 if bz["axis"] == "x" else 1
    o = 1 - ax
    u_tab, g_tab = bend_tables(bz["k"])
    d = pts[:, ax] - bz["xs"]
    us = np.abs(d) / bz["D"]
    m = us < 1
    ud = np.interp(us[m], g_tab, u_tab)
    out = pts.copy()
    out[m, ax] = bz["xs"] + np.sign(d[m]) * ud * bz["D"]
    out[m, o] = bz["yc"] + (pts[m, o] - bz["yc"]) / (1 + bz["cb"] * (1 - ud) ** 2)
    return out


def apply_bend(layer, alpha, bz, ox, oy):
    """remap page layer (canvas coords, origin ox,oy in page coords) for spine/curl/crease."""
    ch, cw = alpha.shape
    if bz["variant"] in ("spine", "curl"):
        ax = bz["axis"]
        if ax == "x":
            lo = int(max(0, math.floor(bz["xs"] - bz["D"] - ox - 2)))
            hi = int(min(cw, math.ceil(bz["xs"] + bz["D"] - ox + 2)))
            if hi <= lo:
                return layer, alpha
            X, Y = np.meshgrid(np.arange(lo, hi, dtype=np.float32) + ox, np.arange(ch, dtype=np.float32) + oy)
            A, B = X, Y
        else:
            lo = int(max(0, math.floor(bz["xs"] - bz["D"] - oy - 2)))
            hi = int(min(ch, math.ceil(bz["xs"] + bz["D"] - oy + 2)))
            if hi <= lo:
                return layer, alpha
            X, Y = np.meshgrid(np.arange(cw, dtype=np.float32) + ox, np.arange(lo, hi, dtype=np.float32) + oy)
            A, B = Y, X
        d = A - bz["xs"]
        u = np.clip(np.abs(d) / bz["D"], 0, 1)
        sa = bz["xs"] + np.sign(d) * bz["D"] * (u + bz["k"] * u * (1 - u) ** 2)
        sb = bz["yc"] + (B - bz["yc"]) * (1 + bz["cb"] * (1 - u) ** 2)
        if ax == "x":
            mx, my = (sa - ox).astype(np.float32), (sb - oy).astype(np.float32)
        else:
            mx, my = (sb - ox).astype(np.float32), (sa - oy).astype(np.float32)
        rl = cv2.remap(layer, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        ra = cv2.remap(alpha, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        t = 1 - u
        shade = 1 - bz["g"] * t ** bz["gamma"]
        if bz["variant"] == "curl":
            shade = shade + bz["hl"] * np.exp(-((u - 0.45) / 0.18) ** 2)
        rl = np.clip(rl.astype(np.float32) * shade[..., None], 0, 255).astype(np.uint8)
        if ax == "x":
            layer[:, lo:hi] = rl
            alpha[:, lo:hi] = ra
        else:
            layer[lo:hi, :] = rl
            alpha[lo:hi, :] = ra
        return layer, alpha
    # crease
    n = np.array(bz["n"], np.float32)
    X, Y = np.meshgrid(np.arange(cw, dtype=np.float32) + ox, np.arange(ch, dtype=np.float32) + oy)
    d = (X - bz["p0"][0]) * n[0] + (Y - bz["p0"][1]) * n[1]
    sh = bz["delta"] * np.tanh(d / bz["w"])
    mx = (X - sh * n[0] - ox).astype(np.float32)
    my = (Y - sh * n[1] - oy).astype(np.float32)
    layer = cv2.remap(layer, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    shade = 1 - bz["dark"] * np.exp(-(d / bz["lw"]) ** 2) + bz["light"] * np.exp(-((d - 2.2 * bz["lw"]) / (1.5 * bz["lw"])) ** 2)
    shade = shade - bz["step"] * (d > 0) * np.exp(-np.abs(d) / bz["sw"])
    layer = np.clip(layer.astype(np.float32) * shade[..., None], 0, 255).astype(np.uint8)
    return layer, alpha


def plan_bend_pre(rng, scene):
    """spine / curl: choose side and zone before the camera (it affects the paper area)."""
    page = scene["page"]
    f = page.st["f"]
    fp = page.problems[page.framed_idx]
    fb = dilate_rect(fp["box"], 0.6 * f)
    variant = scene["bend_variant"]
    sides = ["left", "right", "top", "bottom"]
    dists = {"left": fb[0] / page.w, "right": (page.w - fb[2]) / page.w, "top": fb[1] / page.h, "bottom": (page.h - fb[3]) / page.h}
    order = [sides[k] for k in rng.permutation(4)]
    if rng.random() < 0.75:
        order.sort(key=lambda sd: dists[sd] if dists[sd] > 0.1 else 9.0)
    for side in order:
        if side == "left":
            dist, dim, xs, axis = fb[0], page.w, 0.0, "x"
        elif side == "right":
            dist, dim, xs, axis = page.w - fb[2], page.w, page.w, "x"
        elif side == "top":
            dist, dim, xs, axis = fb[1], page.h, 0.0, "y"
        else:
            dist, dim, xs, axis = page.h - fb[3], page.h, page.h, "y"
        dmax = min(0.34 * dim, dist)
        dmin = 0.10 * dim
        if dmax <= dmin:
            continue
        D = float(rng.uniform(dmin, dmax))
        Di = 0.4 * D
        if side == "left":
            zr, zi = (0, 0, D, page.h), (0, 0, Di, page.h)
        elif side == "right":
            zr, zi = (page.w - D, 0, page.w, page.h), (page.w - Di, 0, page.w, page.h)
        elif side == "top":
            zr, zi = (0, 0, page.w, D), (0, 0, page.w, Di)
        else:
            zr, zi = (0, page.h - D, page.w, page.h), (0, page.h - Di, page.w, page.h)
        fbox = fp["box"]
        yc = (fbox[1] + fbox[3]) / 2 if axis == "x" else (fbox[0] + fbox[2]) / 2
        bz = {"variant": variant, "side": side, "axis": axis, "xs": xs, "D": D,
              "k": float(rng.uniform(0.7, 1.8)), "cb": float(rng.uniform(0.03, 0.11)), "yc": yc,
              "g": float(rng.uniform(0.3, 0.6) if variant == "spine" else rng.uniform(0.12, 0.3)),
              "gamma": float(rng.uniform(1.6, 3.2)), "hl": float(rng.uniform(0.0, 0.06)), "zone_rect": zr, "inner_rect": zi}
        if variant == "spine":
            if side == "left":
                pr = (-page.w, 0, page.w, page.h)
            elif side == "right":
                pr = (0, 0, 2 * page.w, page.h)
            elif side == "top":
                pr = (0, -page.h, page.w, page.h)
            else:
                pr = (0, 0, page.w, 2 * page.h)
            bz["facing_offset"] = {"left": (-page.w, 0), "right": (page.w, 0), "top": (0, -page.h), "bottom": (0, page.h)}[side]
            scene["paper_rect"] = pr
        return bz
    return None


def plan_crease(rng, scene, cam):
    page = scene["page"]
    W, H = scene["W"], scene["H"]
    Hm = cam["H"]
    Hinv = np.linalg.inv(Hm)
    f = page.st["f"]
    fp = page.problems[page.framed_idx]
    fz = rect_pts(dilate_rect(fp["box"], 0.8 * f))
    for _ in range(60):
        q = np.array([rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H])
        p0 = happly(Hinv, [q])[0]
        if not (0 < p0[0] < page.w and 0 < p0[1] < page.h):
            continue
        r = rng.random()
        if r < 0.45:
            ang = rng.normal(0, 2.0)
        elif r < 0.8:
            ang = 90 + rng.normal(0, 2.0)
        else:
            ang = rng.uniform(-35, 35)
        t = math.radians(ang)
        dirv = np.array([math.cos(t), math.sin(t)])
        n = np.array([-dirv[1], dirv[0]])
        dd = (fz - p0) @ n
        if not (dd.min() > 0 or dd.max() < 0):
            continue
        lw = float(rng.uniform(0.05, 0.12)) * f
        return {"variant": "crease", "p0": [float(p0[0]), float(p0[1])], "n": [float(n[0]), float(n[1])],
                "angle_deg": float(ang), "w": float(rng.uniform(0.3, 1.0) * f), "delta": float(rng.uniform(0.6, 2.2)),
                "lw": lw, "dark": float(rng.uniform(0.12, 0.3)), "light": float(rng.uniform(0.02, 0.08)),
                "step": float(rng.uniform(0.02, 0.08)), "sw": float(rng.uniform(2, 6)) * f}
    return None


# ----------------------------------------------------------------------------- second sheet
def other_questions(rng, bank, exclude, lang=None):
    ids = sorted(q for q in bank if q not in exclude and (lang is None or lang_of(bank[q]) == lang))
    perm = rng.permutation(len(ids))
    return [(ids[k], bank[ids[k]]) for k in perm]


def place_sheet(rng, scene, cam, bank):
    page = scene["page"]
    W, H = scene["W"], scene["H"]
    Hm = cam["H"]
    Hinv = np.linalg.inv(Hm)
    f = page.st["f"]
    fp = page.problems[page.framed_idx]
    kinds = scene["kinds"]
    mode = "under" if (1 in kinds and rng.random() < 0.55) else "over"
    lang2 = scene["lang"] if rng.random() < 0.8 else ("en" if scene["lang"] == "zh" else "zh")
    st2 = make_style(rng, lang2, choose(rng, ["medium", "far", "close"], [0.5, 0.35, 0.15]))
    st2["f"] = int(max(16, round(f * rng.uniform(0.85, 1.15))))
    st2["title"] = st2["title"] and rng.random() < 0.5
    qs = other_questions(rng, bank, {scene["bank_id"]}, lang2)
    if len(qs) < 20:
        qs += other_questions(rng, bank, {scene["bank_id"]} | {q for q, _ in qs})
    sheet = build_page(rng, st2, None, iter(qs), None, None)
    if sheet is None or not sheet.problems:
        return None
    fz = rect_pts(dilate_rect(fp["box"], 0.5 * f))
    view_c = happly(Hinv, [[W / 2, H / 2]])[0]
    view_pts = happly(Hinv, [[0, 0], [W, 0], [W, H], [0, H]])
    ext = np.hypot(*(view_pts[2] - view_pts[0])) / 2
    pr = scene["paper_rect"]
    page_poly_ph = happly(Hm, rect_pts(pr))
    for _ in range(80):
        phi = math.radians(float(rng.uniform(5, 25)) * (1 if rng.random() < 0.5 else -1))
        R = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
        e = int(rng.integers(0, 4))
        nloc = [np.array([1.0, 0]), np.array([-1.0, 0]), np.array([0, 1.0]), np.array([0, -1.0])][e]
        n = R @ nloc
        tau = np.array([-n[1], n[0]])
        tf = (fz @ n).max()
        if mode == "over":
            gap = rng.uniform(0.2 * f, 0.7 * ext)
        else:
            gap = rng.uniform(0.5 * f, 1.4 * ext)
        t = tf + gap
        # edge line n.p = t ; sheet on side n.p >= t
        sw, sh = sheet.w, sheet.h
        along = sh if e < 2 else sw
        tc = view_c @ tau
        t0 = tc - rng.uniform(-0.3, 1.1) * along
        # local edge origin: point on edge where local coordinate along-edge is 0
        Pedge = n * t + tau * t0
        # build sheet->page affine: local (u,v) with R; find translation so that edge matches
        if e == 0:      # edge u=0, inward +u ; along = v direction (R@[0,1]) must equal +-tau
            loc_edge0 = np.array([0.0, 0.0])
        elif e == 1:    # edge u=sw, inward -u
            loc_edge0 = np.array([sw, 0.0])
        elif e == 2:    # edge v=0
            loc_edge0 = np.array([0.0, 0.0])
        else:
            loc_edge0 = np.array([0.0, sh])
        # R@(local along unit) relative to tau sign
        along_loc = np.array([0, 1.0]) if e < 2 else np.array([1.0, 0])
        sgn = 1.0 if (R @ along_loc) @ tau > 0 else -1.0
        if sgn < 0:
            loc_edge0 = loc_edge0 + along_loc * along
        Tt = Pedge - R @ loc_edge0
        T2 = np.array([[R[0, 0], R[0, 1], Tt[0]], [R[1, 0], R[1, 1], Tt[1]], [0, 0, 1]])
        spoly = happly(T2, rect_pts((0, 0, sw, sh)))
        if mode == "over" and convex_overlap(spoly, fz):
            continue
        sph = happly(Hm, spoly)
        # raster check of visible part
        sc = 0.25
        Ws, Hs = int(W * sc), int(H * sc)
        ms = np.zeros((Hs, Ws), np.uint8)
        cv2.fillPoly(ms, [np.round(sph * sc * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        mp_ = np.zeros((Hs, Ws), np.uint8)
        cv2.fillPoly(mp_, [np.round(page_poly_ph * sc * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        vis = ms.astype(bool) if mode == "over" else (ms.astype(bool) & ~mp_.astype(bool))
        vfrac = vis.mean()
        if mode == "over" and not (0.07 <= vfrac <= 0.45):
            continue
        if mode == "under":
            desk = ~(ms.astype(bool) | mp_.astype(bool))
            if vfrac < 0.05 or desk.mean() < 0.03:
                continue
        Hs2 = Hm @ T2
        nvis = 0
        for p in sheet.problems:
            m2 = np.zeros((Hs, Ws), np.uint8)
            cv2.fillPoly(m2, [np.round(happly(Hs2, rect_pts(p["box"])) * sc * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
            if (m2.astype(bool) & vis).sum() >= 30:
                nvis += 1
        if nvis == 0:
            continue
        if mode == "over":
            # keep the centre and the framed problem clear (checked), and leave most of the photo to page 1
            pass
        return {"mode": mode, "page": sheet, "T": T2, "angle_deg": math.degrees(phi), "visible_frac": float(vfrac),
                "lang": lang2}
    return None


# ----------------------------------------------------------------------------- objects
def ppc_of(page):
    return page.w / (21.0 if page.st["aspect"] > 1.35 else 21.59)


def new_sprite(w, h):
    return Image.new("RGBA", (int(math.ceil(w)), int(math.ceil(h))), (0, 0, 0, 0))


def sprite_ruler(rng, ppc, lang):
    Lcm = int(choose(rng, [15, 15, 20]))
    wcm = float(rng.uniform(2.8, 3.5))
    w, h = (Lcm + 1.4) * ppc, wcm * ppc
    im = new_sprite(w, h)
    d = ImageDraw.Draw(im)
    kind = choose(rng, ["clear", "wood", "white", "steel", "tinted"], [0.35, 0.2, 0.2, 0.1, 0.15])
    body = {"clear": (235, 240, 245, 85), "wood": (214, 176, 118, 255), "white": (246, 246, 242, 255),
            "steel": (190, 195, 200, 255), "tinted": (150, 200, 230, 120)}[kind]
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=0.15 * ppc, fill=body, outline=(120, 120, 120, 200), width=max(1, int(ppc * 0.03)))
    ink = (20, 20, 20, 240) if kind != "steel" else (30, 30, 40, 255)
    x0 = 0.7 * ppc
    lw = max(1, int(round(ppc * 0.028)))
    fnt = font("dv_sans", max(6, 0.36 * ppc))
    for mm in range(Lcm * 10 + 1):
        x = x0 + mm * ppc / 10
        ln = 0.62 if mm % 10 == 0 else (0.45 if mm % 5 == 0 else 0.28)
        d.line([(x, 0), (x, ln * ppc)], fill=ink, width=lw)
        if mm % 10 == 0:
            s = str(mm // 10)
            tw = fnt.getlength(s)
            d.text((x - tw / 2, 0.68 * ppc + 0.36 * ppc), s, font=fnt, fill=ink, anchor="ls")
    d.text((x0 + 0.25 * ppc, 1.5 * ppc), "cm", font=font("dv_sans", 0.3 * ppc), fill=ink, anchor="ls")
    brand = choose(rng, ["SCHOOLMATE", "学生直尺", "RULER 15cm", "MATHKIT", "OFFICE LINE"])
    fb = font("zh_sans" if any(is_cjk(c) for c in brand) else "dv_sans_b", 0.32 * ppc)
    d.text((w * 0.45, h - 0.6 * ppc), brand, font=fb, fill=ink, anchor="ls")
    if kind == "steel":
        for k in range(0, int(w), max(3, int(ppc * 0.6))):
            d.line([(k, 0), (k + ppc * 0.3, h)], fill=(255, 255, 255, 10), width=max(1, int(ppc * 0.2)))
    return im, {"type": "ruler", "material": kind, "text": " ".join(str(k) for k in range(Lcm + 1)) + " cm " + brand,
                "size_cm": [Lcm + 1.4, round(wcm, 2)], "translucent": kind in ("clear", "tinted")}


def sprite_pencil(rng, ppc, lang):
    Lcm = float(rng.uniform(13, 17.5))
    dcm = 0.75
    w, h = Lcm * ppc, dcm * ppc
    im = new_sprite(w, h)
    d = ImageDraw.Draw(im)
    col = choose(rng, [(235, 190, 40), (40, 120, 60), (180, 40, 40), (30, 60, 140), (60, 60, 60), (230, 120, 160)])
    tip = 2.0 * ppc
    fer = 1.1 * ppc
    era = 0.8 * ppc
    bx0, bx1 = tip, w - fer - era
    for k, fac in enumerate([1.15, 1.0, 0.78]):
        y0 = k * h / 3
        c = tuple(int(min(255, v * fac)) for v in col) + (255,)
        d.rectangle([bx0, y0, bx1, y0 + h / 3], fill=c)
    d.polygon([(bx0, 0), (bx0, h), (0.45 * ppc, h * 0.62), (0.45 * ppc, h * 0.38)], fill=(222, 184, 135, 255))
    d.polygon([(0.45 * ppc, h * 0.62), (0.45 * ppc, h * 0.38), (0, h * 0.5)], fill=(55, 55, 60, 255))
    d.rectangle([bx1, 0, bx1 + fer, h], fill=(185, 185, 175, 255))
    for k in range(4):
        xx = bx1 + (k + 1) * fer / 5
        d.line([(xx, 0), (xx, h)], fill=(130, 130, 120, 255), width=max(1, int(ppc * 0.04)))
    d.rounded_rectangle([bx1 + fer, 0, w - 1, h - 1], radius=0.25 * ppc, fill=(235, 140, 150, 255))
    brand = choose(rng, BR_PENCIL)
    inkc = (30, 30, 30, 255) if sum(col) > 450 else (235, 215, 140, 255)
    fk = "zh_sans_b" if any(is_cjk(c) for c in brand) else "narrow_b"
    d.text((bx0 + 1.2 * ppc, h * 0.5 + 0.18 * ppc), brand, font=font(fk, 0.42 * ppc), fill=inkc, anchor="ls")
    return im, {"type": "pencil", "text": brand, "size_cm": [round(Lcm, 2), dcm], "translucent": False}


def sprite_pen(rng, ppc, lang):
    Lcm = float(rng.uniform(13, 15.5))
    dcm = float(rng.uniform(0.95, 1.15))
    w, h = Lcm * ppc, dcm * ppc
    arr = np.zeros((int(math.ceil(h)), int(math.ceil(w)), 4), np.uint8)
    col = np.array(choose(rng, [(20, 40, 120), (25, 25, 25), (200, 30, 40), (240, 240, 240), (60, 140, 200)]), float)
    yy = (np.arange(arr.shape[0]) + 0.5) / arr.shape[0]
    prof = 0.55 + 0.55 * np.sin(np.pi * yy) ** 0.7 + 0.35 * np.exp(-((yy - 0.3) / 0.08) ** 2)
    tipL = int(1.4 * ppc)
    arr[:, tipL:, :3] = np.clip(col[None, None, :] * prof[:, None, None] + 25 * np.exp(-((yy - 0.3) / 0.08) ** 2)[:, None, None], 0, 255).astype(np.uint8)
    arr[:, tipL:, 3] = 255
    im = Image.fromarray(arr, "RGBA")
    d = ImageDraw.Draw(im)
    d.polygon([(tipL, 0), (tipL, h), (0.2 * ppc, h * 0.6), (0.2 * ppc, h * 0.4)], fill=(190, 190, 195, 255))
    d.polygon([(0.2 * ppc, h * 0.6), (0.2 * ppc, h * 0.4), (0, h * 0.5)], fill=(40, 40, 40, 255))
    grip = (tipL, tipL + 2.5 * ppc)
    d.rectangle([grip[0], 0, grip[1], h], fill=(70, 70, 75, 235))
    for k in range(8):
        xx = grip[0] + (k + 0.5) * (grip[1] - grip[0]) / 8
        d.line([(xx, 1), (xx, h - 2)], fill=(50, 50, 55, 255), width=max(1, int(ppc * 0.05)))
    cx = w - 5.5 * ppc
    d.line([(cx, 0), (cx, h)], fill=(200, 200, 200, 255), width=max(1, int(ppc * 0.05)))
    d.rounded_rectangle([cx + 0.5 * ppc, h * 0.05, w - 0.5 * ppc, h * 0.3], radius=0.1 * ppc, fill=(200, 200, 205, 255))
    brand = choose(rng, BR_PEN)
    fk = "zh_sans_b" if any(is_cjk(c) for c in brand) else "dv_sans_b"
    inkc = (245, 245, 245, 255) if col.sum() < 400 else (20, 20, 20, 255)
    d.text((grip[1] + 0.6 * ppc, h * 0.5 + 0.2 * ppc), brand, font=font(fk, 0.42 * ppc), fill=inkc, anchor="ls")
    return im, {"type": "pen", "text": brand, "size_cm": [round(Lcm, 2), round(dcm, 2)], "translucent": False}


def sprite_calculator(rng, ppc, lang):
    wcm, hcm = float(rng.uniform(7.5, 8.5)), float(rng.uniform(13.5, 15.5))
    w, h = wcm * ppc, hcm * ppc
    im = new_sprite(w, h)
    d = ImageDraw.Draw(im)
    body = choose(rng, [(45, 45, 50), (60, 65, 80), (30, 40, 70), (200, 200, 205)])
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=0.6 * ppc, fill=body + (255,), outline=(20, 20, 20, 255), width=max(1, int(ppc * 0.05)))
    lab = (240, 240, 240, 255) if sum(body) < 400 else (30, 30, 30, 255)
    brand = choose(rng, BR_CALC)
    d.text((0.6 * ppc, 0.9 * ppc), brand, font=font("dv_sans_b", 0.45 * ppc), fill=lab, anchor="ls")
    d.rectangle([w - 2.8 * ppc, 0.35 * ppc, w - 0.6 * ppc, 0.95 * ppc], fill=(50, 35, 30, 255))
    lx0, ly0, lx1, ly1 = 0.6 * ppc, 1.3 * ppc, w - 0.6 * ppc, 3.4 * ppc
    d.rounded_rectangle([lx0, ly0, lx1, ly1], radius=0.2 * ppc, fill=(168, 182, 160, 255), outline=(30, 30, 30, 255), width=2)
    num = choose(rng, CALC_NUMS)
    fd = font("mono", 1.1 * ppc)
    tw = fd.getlength(num)
    d.text((lx1 - 0.3 * ppc - tw, ly1 - 0.35 * ppc), num, font=fd, fill=(25, 30, 25, 255), anchor="ls")
    expr = choose(rng, ["12×8", "3÷4", "2^10", "√2", "355÷113", "1/8"])
    d.text((lx0 + 0.3 * ppc, ly0 + 0.6 * ppc), expr, font=font("dv_sans", 0.42 * ppc), fill=(25, 30, 25, 255), anchor="ls")
    rows = [["SHIFT", "MODE", "sin", "cos", "tan"], ["7", "8", "9", "DEL", "AC"], ["4", "5", "6", "×", "÷"],
            ["1", "2", "3", "+", "−"], ["0", ".", "EXP", "Ans", "="]]
    ky0 = 4.2 * ppc
    kh = (h - ky0 - 0.5 * ppc) / len(rows)
    kw = (w - 1.0 * ppc) / 5
    fk = font("dv_sans_b", 0.42 * ppc)
    for r, row in enumerate(rows):
        for c, s in enumerate(row):
            x0 = 0.5 * ppc + c * kw + 0.12 * ppc
            y0 = ky0 + r * kh + 0.15 * ppc
            kc = (210, 210, 210, 255) if r > 0 and c < 3 else ((200, 90, 40, 255) if s in ("DEL", "AC") else (90, 90, 100, 255))
            d.rounded_rectangle([x0, y0, x0 + kw - 0.24 * ppc, y0 + kh - 0.3 * ppc], radius=0.15 * ppc, fill=kc)
            tc = (20, 20, 20, 255) if kc[0] > 150 and kc[1] > 150 else (245, 245, 245, 255)
            fs = fk if len(s) < 3 else font("dv_sans_b", 0.3 * ppc)
            tw = fs.getlength(s)
            d.text((x0 + (kw - 0.24 * ppc - tw) / 2, y0 + (kh - 0.3 * ppc) / 2 + 0.15 * ppc), s, font=fs, fill=tc, anchor="ls")
    return im, {"type": "calculator", "text": brand + " | " + expr + " | " + num, "size_cm": [round(wcm, 2), round(hcm, 2)],
                "translucent": False}


def sprite_eraser(rng, ppc, lang):
    wcm, hcm = float(rng.uniform(4.0, 5.2)), float(rng.uniform(1.9, 2.5))
    w, h = wcm * ppc, hcm * ppc
    im = new_sprite(w, h)
    d = ImageDraw.Draw(im)
    body = choose(rng, [(245, 245, 240), (240, 175, 185), (180, 210, 240), (250, 250, 250)])
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=0.25 * ppc, fill=body + (255,), outline=(170, 170, 170, 255), width=1)
    sl = choose(rng, [(30, 80, 170), (220, 50, 40), (30, 30, 30), (40, 140, 80)])
    s0, s1 = w * 0.22, w * 0.88
    d.rectangle([s0, 0, s1, h - 1], fill=sl + (255,))
    word = choose(rng, BR_ERASER)
    fk = "zh_sans_b" if any(is_cjk(c) for c in word) else "dv_sans_b"
    fnt = font(fk, min(0.6 * ppc, (s1 - s0) * 0.8 / max(1.8, len(word) * 0.62)))
    tw = fnt.getlength(word)
    d.text((s0 + (s1 - s0 - tw) / 2, h * 0.5 + 0.2 * ppc), word, font=fnt, fill=(255, 255, 255, 255), anchor="ls")
    return im, {"type": "eraser", "text": word, "size_cm": [round(wcm, 2), round(hcm, 2)], "translucent": False}


def handwrite(im, rng, x, y, text, size, color, lang):
    """draw text char by char with jitter so it looks handwritten."""
    pos = x
    for ch in text:
        chain = ["zh_sans", "dv_sans"] if is_cjk(ch) else ["en_serif_i", "dv_sans", "zh_sans"]
        k = seg_runs(ch, chain)[0][0]
        fs = size * float(rng.uniform(0.88, 1.12))
        fo = font(k, fs)
        adv = fo.getlength(ch)
        if ch != " ":
            tile = Image.new("L", (int(fs * 1.8), int(fs * 1.8)), 0)
            ImageDraw.Draw(tile).text((fs * 0.4, fs * 1.3), ch, font=fo, fill=255, anchor="ls")
            tile = tile.rotate(float(rng.uniform(-12, 12)), resample=Image.BILINEAR)
            tile = tile.transform(tile.size, Image.AFFINE, (1, float(rng.uniform(-0.25, 0.05)), 0, 0, 1, 0), resample=Image.BILINEAR)
            col = Image.new("RGBA", tile.size, color + (255,))
            im.paste(col, (int(pos - fs * 0.4), int(y - fs * 1.3 + rng.uniform(-0.08, 0.08) * fs)), tile)
        pos += adv * float(rng.uniform(0.85, 1.0))
    return pos - x


def sprite_note(rng, ppc, lang):
    wcm = 7.6
    hcm = choose(rng, [7.6, 7.6, 5.1])
    w, h = wcm * ppc, hcm * ppc
    col = choose(rng, [(252, 240, 120), (250, 190, 210), (190, 240, 180), (180, 220, 250), (255, 210, 140)])
    arr = np.zeros((int(math.ceil(h)), int(math.ceil(w)), 4), np.float32)
    yy = np.linspace(0, 1, arr.shape[0])[:, None]
    xx = np.linspace(0, 1, arr.shape[1])[None, :]
    shade = 1 - 0.10 * np.clip((yy - 0.75) / 0.25, 0, 1) ** 2 - 0.04 * xx
    for c in range(3):
        arr[..., c] = col[c] * shade
    arr[..., 3] = 255
    arr[: int(0.18 * arr.shape[0]), :, :3] *= 0.97
    im = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGBA")
    words = NOTE_WORDS_ZH if (lang == "zh" and rng.random() < 0.75) else NOTE_WORDS_EN
    k = int(rng.integers(2, 4)) if hcm > 6 else 2
    sel = [words[j] for j in rng.choice(len(words), k, replace=False)]
    inkc = choose(rng, [(20, 40, 150), (20, 20, 25), (170, 30, 30)])
    fs = float(rng.uniform(0.55, 0.72)) * ppc
    for j, s in enumerate(sel):
        handwrite(im, rng, 0.5 * ppc + rng.uniform(0, 0.5) * ppc, 1.6 * ppc + j * 1.45 * ppc + rng.uniform(-0.1, 0.1) * ppc, s, fs, inkc, lang)
    # mild wobble of the writing
    a = np.asarray(im).copy()
    H_, W_ = a.shape[:2]
    gy, gx = np.mgrid[0:H_, 0:W_].astype(np.float32)
    amp = 0.05 * ppc
    dx = amp * np.sin(gy / (0.9 * ppc) + rng.uniform(0, 6))
    dy = amp * np.sin(gx / (1.3 * ppc) + rng.uniform(0, 6))
    a = cv2.remap(a, gx + dx, gy + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return Image.fromarray(a, "RGBA"), {"type": "sticky_note", "text": " / ".join(sel), "size_cm": [wcm, hcm], "translucent": False}


SPRITES = {"ruler": sprite_ruler, "pencil": sprite_pencil, "pen": sprite_pen, "calculator": sprite_calculator,
           "eraser": sprite_eraser, "sticky_note": sprite_note}


def place_objects(rng, scene, cam, occ):
    page = scene["page"]
    W, H = scene["W"], scene["H"]
    Hm = cam["H"]
    Hinv = np.linalg.inv(Hm)
    f = page.st["f"]
    ppc = ppc_of(page)
    fp = page.problems[page.framed_idx]
    fz = rect_pts(dilate_rect(fp["box"], 0.45 * f + 0.25 * ppc))
    vis_nbrs = [p for p in page.problems if not p["framed"] and inside_frac(happly(Hm, rect_pts(p["box"])), W, H) > 0.05]
    if not vis_nbrs:
        return None
    nobj = int(choose(rng, [1, 2, 3], [0.45, 0.4, 0.15]))
    types = list(SPRITES)
    pw = np.array([0.22, 0.2, 0.14, 0.12, 0.14, 0.18])
    sel = [types[k] for k in rng.choice(len(types), nobj, replace=False, p=pw / pw.sum())]
    placed = []
    for t in sel:
        im, info = SPRITES[t](rng, ppc, scene["lang"])
        w, h = im.size
        ok = False
        for _ in range(120):
            nb = vis_nbrs[int(rng.integers(0, len(vis_nbrs)))]
            b = nb["box"]
            anchor = np.array([rng.uniform(b[0], b[2]), rng.uniform(b[1], b[3])])
            if not placed and rng.random() < 0.25 and 1 in scene["kinds"]:
                q = np.array([rng.uniform(0.05, 0.95) * W, rng.uniform(0.05, 0.95) * H])
                anchor = happly(Hinv, [q])[0]
            ang = rng.uniform(0, 2 * math.pi) if t != "sticky_note" else rng.normal(0, 0.25)
            if t == "calculator":
                ang = rng.normal(0, 0.5)
            dirv = rng.normal(size=2)
            dirv /= np.linalg.norm(dirv) + 1e-9
            cpos = anchor + dirv * rng.uniform(0.1, 0.5) * max(w, h)
            poly = rot_rect(cpos[0], cpos[1], w, h, ang)
            if convex_overlap(poly, fz):
                continue
            if any(convex_overlap(poly, o["poly_page"]) for o in placed + occ):
                continue
            ph = happly(Hm, poly)
            vf = inside_frac(ph, W, H)
            if vf < 0.3 or poly_area(clip_poly(ph, 0, 0, W, H)) < 0.015 * W * H:
                continue
            over = [p["bank_id"] for p in vis_nbrs if convex_overlap(poly, rect_pts(p["box"]))]
            if not placed and not over:
                continue
            if poly_area(clip_poly(ph, 0, 0, W, H)) > 0.33 * W * H:
                continue
            info = dict(info)
            info.update({"poly_page": poly, "centre_page": cpos, "angle": ang, "sprite": im, "over_neighbours": over})
            placed.append(info)
            ok = True
            break
        if not ok:
            if not placed:
                return None
    return placed


# ----------------------------------------------------------------------------- hands / shadows
SKIN = [(224, 172, 140), (198, 140, 105), (235, 190, 160), (170, 115, 85), (240, 200, 175), (210, 160, 125)]


def place_hand(rng, scene, cam, occ):
    page = scene["page"]
    W, H = scene["W"], scene["H"]
    Hm = cam["H"]
    Hinv = np.linalg.inv(Hm)
    f = page.st["f"]
    ppc = ppc_of(page)
    fp = page.problems[page.framed_idx]
    fz = rect_pts(dilate_rect(fp["box"], 0.45 * f + 0.3 * ppc))
    nbr_lines = []
    for p in page.problems:
        if p["framed"]:
            continue
        for ln in p["lines"]:
            if ln["bb"]:
                nbr_lines.append((p["bank_id"], ln["bb"]))
    pr = scene["paper_rect"]
    # free page edges in view (for holding at the edge)
    edges = []
    if 1 in scene["kinds"]:
        P = rect_pts((0, 0, page.w, page.h))
        names = ["top", "right", "bottom", "left"]
        bz = scene.get("bend")
        for k in range(4):
            if bz and bz["variant"] == "spine" and bz["side"] == names[k]:
                continue
            a, b = P[k], P[(k + 1) % 4]
            ts = np.linspace(0.02, 0.98, 40)
            pts = a[None] + ts[:, None] * (b - a)[None]
            ph = happly(Hm, pts)
            inb = (ph[:, 0] > 30) & (ph[:, 0] < W - 30) & (ph[:, 1] > 30) & (ph[:, 1] < H - 30)
            if inb.sum() >= 6:
                edges.append((names[k], pts[inb], k))
    for _ in range(150):
        mode = "edge" if edges and rng.random() < 0.7 else "border"
        if mode == "edge":
            name, pts, k = edges[int(rng.integers(0, len(edges)))]
            P0 = pts[int(rng.integers(0, len(pts)))]
            nin = [np.array([0, 1.0]), np.array([-1.0, 0]), np.array([0, -1.0]), np.array([1.0, 0])][k]
        else:
            side = int(rng.integers(0, 4))
            t = rng.uniform(0.15, 0.85)
            q = [np.array([t * W, 0]), np.array([W, t * H]), np.array([t * W, H]), np.array([0, t * H])][side]
            qin = [np.array([0, 1.0]), np.array([-1.0, 0]), np.array([0, -1.0]), np.array([1.0, 0])][side]
            P0 = happly(Hinv, [q])[0]
            P1 = happly(Hinv, [q + qin * 50])[0]
            nin = (P1 - P0) / np.linalg.norm(P1 - P0)
            name = ["photo_top", "photo_right", "photo_bottom", "photo_left"][side]
        ang = rng.normal(0, 0.35)
        R = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
        dirv = R @ nin
        perp = np.array([-dirv[1], dirv[0]])
        fingers = []
        style = "thumb" if rng.random() < 0.65 else "fingers"
        if style == "thumb":
            wth = rng.uniform(1.8, 2.3) * ppc
            depth = rng.uniform(1.6, 3.6) * ppc
            base = P0 - dirv * rng.uniform(2.5, 4.0) * ppc
            tip = P0 + dirv * depth
            fingers.append((base, tip, wth))
        else:
            nf = int(rng.integers(2, 4))
            for j in range(nf):
                wf = rng.uniform(1.45, 1.75) * ppc
                off = (j - (nf - 1) / 2) * rng.uniform(1.6, 1.9) * ppc
                depth = rng.uniform(1.0, 2.6) * ppc
                base = P0 + perp * off - dirv * 3.0 * ppc
                tip = P0 + perp * off + dirv * depth
                fingers.append((base, tip, wf))
        polys = [capsule_poly(b, t_, w_) for b, t_, w_ in fingers]
        if any(convex_overlap(pp, fz) for pp in polys):
            continue
        if any(convex_overlap(pp, o["poly_page"]) for pp in polys for o in occ):
            continue
        cover = set()
        for pp in polys:
            for bid, bb in nbr_lines:
                if convex_overlap(pp, rect_pts(bb)):
                    ph = happly(Hm, rect_pts(bb))
                    if inside_frac(ph, W, H) > 0.2:
                        cover.add(bid)
        if not cover:
            continue
        vis_area = sum(poly_area(clip_poly(happly(Hm, pp), 0, 0, W, H)) for pp in polys)
        if vis_area < 0.01 * W * H or vis_area > 0.2 * W * H:
            continue
        palm = None
        if mode == "edge":
            pc = P0 - dirv * rng.uniform(4.5, 6.0) * ppc + perp * rng.uniform(-1.5, 1.5) * ppc
            palm = (pc, rng.uniform(4.0, 5.0) * ppc, rng.uniform(3.2, 4.0) * ppc, math.atan2(dirv[1], dirv[0]))
        hull = cv2.convexHull(np.vstack(polys).astype(np.float32)).reshape(-1, 2).astype(float)
        return {"mode": mode, "edge": name, "style": style, "fingers": fingers, "polys": polys, "palm": palm,
                "skin": choose(rng, SKIN), "covers_neighbours": sorted(cover), "poly_page": hull,
                "shadow_off": (rng.normal(0, 0.3, 2) * ppc).tolist(), "shadow_blur": float(rng.uniform(0.2, 0.5) * ppc),
                "shadow_dark": float(rng.uniform(0.25, 0.45))}
    return None


def plan_shadows(rng, scene, cam):
    W, H = scene["W"], scene["H"]
    out = []
    kinds_s = []
    if rng.random() < 0.55:
        kinds_s.append(choose(rng, ["phone", "hand"], [0.6, 0.4]))
    return kinds_s


# ----------------------------------------------------------------------------- textures
def lowfreq(rng, h, w, cell):
    gh, gw = max(2, h // cell + 2), max(2, w // cell + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def desk_texture(rng, h, w, ppc):
    kind = choose(rng, ["wood", "plain", "cloth"], [0.45, 0.3, 0.25])
    h2, w2 = max(2, h // 2), max(2, w // 2)
    if kind == "wood":
        c1 = np.array(choose(rng, [(150, 100, 60), (185, 135, 85), (120, 80, 50), (205, 165, 115), (95, 65, 45)]), np.float32)
        c2 = c1 * float(rng.uniform(0.72, 0.86))
        ang = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:h2, 0:w2].astype(np.float32) * 2.0
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        per = float(rng.uniform(0.18, 0.45)) * ppc
        off = per * (1.2 * lowfreq(rng, h2, w2, 90) + 0.6 * np.sin(u / (float(rng.uniform(4, 9)) * ppc) + rng.uniform(0, 6)))
        g = 0.5 + 0.5 * np.sin(2 * np.pi * (v + off) / per)
        g = g ** float(rng.uniform(2.0, 4.0))
        g2 = 0.5 + 0.5 * np.sin(2 * np.pi * (v + 0.5 * off) / (per * 0.23))
        g = np.clip(0.75 * g + 0.12 * g2 + 0.1 * lowfreq(rng, h2, w2, 25), 0, 1)
        img = c1[None, None] * (1 - g[..., None]) + c2[None, None] * g[..., None]
        if rng.random() < 0.5:
            plank = rng.uniform(8, 14) * ppc
            seam = (np.abs(((v % plank) - plank / 2)) > plank / 2 - 2.0).astype(np.float32)
            img *= (1 - 0.35 * seam)[..., None]
    elif kind == "plain":
        c1 = np.array(choose(rng, [(225, 225, 220), (200, 205, 210), (90, 110, 100), (60, 70, 90), (235, 230, 215), (140, 140, 145)]),
                      np.float32)
        img = np.repeat(np.repeat(c1[None, None], h2, 0), w2, 1)
        img = img * (1 + 0.05 * lowfreq(rng, h2, w2, 80))[..., None]
    else:
        c1 = np.array(choose(rng, [(160, 40, 45), (40, 70, 120), (90, 120, 80), (200, 190, 170), (70, 70, 75)]), np.float32)
        yy, xx = np.mgrid[0:h2, 0:w2].astype(np.float32)
        per = rng.uniform(0.06, 0.14) * ppc / 2
        wv = 0.5 + 0.25 * np.sin(xx * 2 * np.pi / per) * np.sin(yy * 2 * np.pi / per) + 0.25 * np.sin((xx + yy) * 2 * np.pi / (per * 2))
        img = c1[None, None] * (0.82 + 0.25 * wv[..., None])
        img = img * (1 + 0.12 * lowfreq(rng, h2, w2, 50))[..., None]
    img = cv2.resize(img.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    img += rng.standard_normal((h, w, 1)).astype(np.float32) * 3.0
    return np.clip(img, 0, 255), kind


def paper_texture(rng, h, w, f):
    t = 1 + 0.018 * lowfreq(rng, h, w, int(max(20, 6 * f)))
    t += 0.012 * lowfreq(rng, h, w, 6)
    return t.astype(np.float32)


# ----------------------------------------------------------------------------- compositing helpers
def composite_sprite(canvas, sprite, M, shadow=None):
    """sprite RGBA (PIL) placed with 2x3 affine M (sprite px -> canvas px)."""
    ch, cw = canvas.shape[:2]
    sw, sh = sprite.size
    corners = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], float) @ M[:, :2].T + M[:, 2]
    pad = 4 + (int(shadow[2] * 3 + abs(shadow[0]) + abs(shadow[1])) if shadow else 0)
    x0 = int(max(0, math.floor(corners[:, 0].min()) - pad))
    y0 = int(max(0, math.floor(corners[:, 1].min()) - pad))
    x1 = int(min(cw, math.ceil(corners[:, 0].max()) + pad))
    y1 = int(min(ch, math.ceil(corners[:, 1].max()) + pad))
    if x1 <= x0 or y1 <= y0:
        return
    M2 = M.copy()
    M2[:, 2] -= (x0, y0)
    arr = np.asarray(sprite, np.uint8)
    warped = cv2.warpAffine(arr, M2, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    a = warped[..., 3:4].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1]
    if shadow:
        dx, dy, blur, dark = shadow
        sa = cv2.warpAffine(arr[..., 3], M2, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        opaque = float(min(1.0, arr[..., 3].max() / 255.0))
        Ms = np.float32([[1, 0, dx], [0, 1, dy]])
        sa = cv2.warpAffine(sa, Ms, (x1 - x0, y1 - y0))
        k = int(blur * 3) * 2 + 1
        sa = cv2.GaussianBlur(sa.astype(np.float32) / 255.0, (k, k), blur)
        roi *= (1 - dark * opaque * sa)[..., None]
    roi[:] = roi * (1 - a) + warped[..., :3].astype(np.float32) * a


def draw_hand(rng, canvas, hand, ox, oy, scale, page_alpha):
    ch, cw = canvas.shape[:2]
    allpts = [np.asarray(p) for p in hand["polys"]]
    palm = hand["palm"]
    if palm is not None:
        pc, ra, rb, ang = palm
        t = np.linspace(0, 2 * np.pi, 48)
        e = np.stack([ra * np.cos(t), rb * np.sin(t)], 1)
        R = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
        allpts.append(e @ R.T + pc)
    pts_all = (np.vstack(allpts) - (ox, oy)) * scale
    blur = hand["shadow_blur"] * scale
    pad = int(blur * 4 + 20)
    x0 = int(max(0, pts_all[:, 0].min() - pad))
    y0 = int(max(0, pts_all[:, 1].min() - pad))
    x1 = int(min(cw, pts_all[:, 0].max() + pad))
    y1 = int(min(ch, pts_all[:, 1].max() + pad))
    if x1 <= x0 + 2 or y1 <= y0 + 2:
        return
    rw, rh = x1 - x0, y1 - y0

    def to_roi(p):
        return np.round(((np.asarray(p) - (ox, oy)) * scale - (x0, y0)) * 16).astype(np.int32)

    fmask = np.zeros((rh, rw), np.uint8)
    for p in hand["polys"]:
        cv2.fillPoly(fmask, [to_roi(p)], 255, cv2.LINE_AA, 4)
    pmask = np.zeros((rh, rw), np.uint8)
    if palm is not None:
        cv2.fillPoly(pmask, [to_roi(allpts[-1])], 255, cv2.LINE_AA, 4)
        pa = page_alpha[y0:y1, x0:x1].astype(np.float32) / 255.0
        pmask = (pmask.astype(np.float32) * (1 - pa)).astype(np.uint8)
    m = np.maximum(fmask, pmask)
    roi = canvas[y0:y1, x0:x1]
    # shadow
    dx, dy = np.array(hand["shadow_off"]) * scale
    sm = cv2.warpAffine(m, np.float32([[1, 0, dx + blur * 0.6], [0, 1, dy + blur * 0.6]]), (rw, rh))
    k = int(blur * 3) * 2 + 1
    sm = cv2.GaussianBlur(sm.astype(np.float32) / 255.0, (k, k), blur)
    roi *= (1 - hand["shadow_dark"] * sm)[..., None]
    # skin shading from distance to the outline
    dist = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 5)
    wmax = max(4.0, np.percentile(dist[m > 127], 95) if (m > 127).any() else 4.0)
    sh = 0.68 + 0.32 * np.sqrt(np.clip(dist / wmax, 0, 1))
    skin = np.array(hand["skin"], np.float32)
    col = skin[None, None] * sh[..., None]
    # nails
    nail = np.zeros((rh, rw), np.uint8)
    crease = np.zeros((rh, rw), np.uint8)
    for b, t_, w_ in hand["fingers"]:
        b = np.asarray(b)
        t_ = np.asarray(t_)
        d = (t_ - b) / (np.linalg.norm(t_ - b) + 1e-9)
        c = ((t_ - d * w_ * 0.12 - (ox, oy)) * scale - (x0, y0))
        ang = math.degrees(math.atan2(d[1], d[0]))
        cv2.ellipse(nail, (int(c[0]), int(c[1])), (max(1, int(w_ * 0.3 * scale)), max(1, int(w_ * 0.25 * scale))), ang, 0, 360, 255, -1,
                    cv2.LINE_AA)
        kc = ((t_ - d * w_ * 1.7 - (ox, oy)) * scale - (x0, y0))
        cv2.ellipse(crease, (int(kc[0]), int(kc[1])), (max(1, int(w_ * 0.05 * scale)), max(1, int(w_ * 0.28 * scale))), ang, -60, 60,
                    255, max(1, int(scale * w_ * 0.025)), cv2.LINE_AA)
    nail = cv2.GaussianBlur(nail.astype(np.float32) / 255.0, (5, 5), 1.2) * (m.astype(np.float32) / 255.0)
    crease = crease.astype(np.float32) / 255.0
    col = col * (1 - 0.12 * cv2.GaussianBlur(crease, (5, 5), 1.5)[..., None])
    nc = np.minimum(255, skin * 0.8 + np.array([62, 50, 56], np.float32))
    col = col * (1 - 0.5 * nail[..., None]) + (nc * sh[..., None]) * 0.5 * nail[..., None]
    col = col * (1 + 0.015 * cv2.resize(np.float32(rng.standard_normal((max(2, rh // 14), max(2, rw // 14)))),
                                        (rw, rh), interpolation=cv2.INTER_CUBIC)[..., None])
    a = (m.astype(np.float32) / 255.0)[..., None]
    roi[:] = roi * (1 - a) + col * a


def photo_shadow(rng, W, H, kind):
    sc = 0.25
    w, h = int(W * sc), int(H * sc)
    m = np.zeros((h, w), np.uint8)
    side = int(rng.integers(0, 4))
    if kind == "phone":
        depth = rng.uniform(0.15, 0.45)
        ang = rng.uniform(-0.35, 0.35)
        L = max(w, h) * 3
        # a big rotated rectangle entering from a side
        if side == 0:
            c = np.array([w / 2 + rng.uniform(-0.3, 0.3) * w, depth * h - L / 2])
        elif side == 1:
            c = np.array([w - depth * w + L / 2, h / 2 + rng.uniform(-0.3, 0.3) * h])
        elif side == 2:
            c = np.array([w / 2 + rng.uniform(-0.3, 0.3) * w, h - depth * h + L / 2])
        else:
            c = np.array([depth * w - L / 2, h / 2 + rng.uniform(-0.3, 0.3) * h])
        wid = rng.uniform(0.5, 0.9) * max(w, h) if side in (0, 2) else L
        hei = L if side in (0, 2) else rng.uniform(0.5, 0.9) * max(w, h)
        poly = rot_rect(c[0], c[1], wid, hei, ang)
        cv2.fillPoly(m, [np.round(poly * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        blur = rng.uniform(6, 16)
        dark = rng.uniform(0.15, 0.38)
    else:
        base = [np.array([rng.uniform(0.2, 0.8) * w, -0.1 * h]), np.array([1.1 * w, rng.uniform(0.2, 0.8) * h]),
                np.array([rng.uniform(0.2, 0.8) * w, 1.1 * h]), np.array([-0.1 * w, rng.uniform(0.2, 0.8) * h])][side]
        inward = [np.array([0, 1.0]), np.array([-1.0, 0]), np.array([0, -1.0]), np.array([1.0, 0])][side]
        R = rng.uniform(0.18, 0.3) * min(w, h)
        cv2.circle(m, tuple(int(v) for v in base), int(R), 255, -1, cv2.LINE_AA)
        perp = np.array([-inward[1], inward[0]])
        for j in range(4):
            off = (j - 1.5) * R * 0.45
            ln = R * rng.uniform(1.2, 2.0)
            p0 = base + perp * off
            p1 = p0 + (inward + perp * rng.normal(0, 0.15)) * ln
            cv2.line(m, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 255, max(2, int(R * 0.32)), cv2.LINE_AA)
        blur = rng.uniform(4, 10)
        dark = rng.uniform(0.18, 0.35)
    k = int(blur * 3) * 2 + 1
    m = cv2.GaussianBlur(m.astype(np.float32) / 255.0, (k, k), blur)
    m = cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR)
    return m, {"type": kind + "_shadow", "side": ["top", "right", "bottom", "left"][side], "strength": round(float(dark), 3)}, dark


# ----------------------------------------------------------------------------- scene
def try_scene(rng, P, bank, sims):
    lang = P["lang"]
    kinds = P["kinds"]
    framing = P["framing"]
    W, H = P["size"]
    fid = P["bank_id"]
    ftext = bank[fid]
    scene = {"kinds": kinds, "lang": lang, "framing": framing, "W": W, "H": H, "bank_id": fid}
    # ---- kind 6 requests
    furn = []
    if 6 in kinds:
        opts = ["tip_box", "table", "figure", "margin_note"]
        if 1 in kinds:
            opts += ["header", "footer", "page_number"]
        pw = np.array([0.25, 0.2, 0.25, 0.15] + ([0.12, 0.1, 0.1] if 1 in kinds else []))
        n6 = 2 if rng.random() < 0.25 else 1
        sel = [opts[k] for k in rng.choice(len(opts), n6, replace=False, p=pw / pw.sum())]
        if "header" in sel and ("footer" in sel or "page_number" in sel):
            sel = ["header"]
        if "footer" in sel and "page_number" in sel:
            sel = ["footer"]
        for t in sel:
            q = {"type": t}
            if t == "tip_box":
                q["pos"] = choose(rng, ["before", "after"])
            elif t in ("table", "figure"):
                q["attach"] = choose(rng, ["next", "prev"])
                if t == "figure":
                    q["where"] = choose(rng, ["beside", "below"])
                    q["size"] = float(rng.uniform(5.0, 8.0))
                else:
                    q["rows"] = choose(rng, TABLES_ZH if lang == "zh" else TABLES_EN)
            furn.append(q)
    ftypes = [q["type"] for q in furn]
    # ---- framed position policy
    if "header" in ftypes:
        mode = "top"
    elif "footer" in ftypes or "page_number" in ftypes:
        mode = "bottom"
    elif 1 in kinds:
        mode = choose(rng, ["top", "index", "bottom"], [0.35, 0.3, 0.35])
    else:
        mode = "index"
    if mode == "bottom" and any(q.get("attach") == "next" for q in furn):
        for q in furn:
            if q.get("attach") == "next":
                q["attach"] = "prev"
        mode = "index"
    if mode == "top" and any(q.get("attach") == "prev" for q in furn):
        for q in furn:
            if q.get("attach") == "prev":
                q["attach"] = "next"
    cols_pref = None
    longq = len(ftext) > (26 if lang == "zh" else 55)
    st0_cols = 2 if rng.random() < (0.75 if longq else (0.55 if framing == "far" else 0.4)) else 1
    pol_col = int(rng.integers(0, st0_cols))
    k_idx = int(rng.integers(1, 3)) if 1 in kinds else int(rng.integers(1, 6))
    if mode == "index" and any(q.get("attach") == "prev" for q in furn):
        k_idx = max(k_idx, 1)
    policy = {"col": pol_col, "mode": mode, "k": k_idx}
    wide = None
    if "margin_note" in ftypes:
        wide = ("left" if pol_col == 0 else "right") if st0_cols == 2 else choose(rng, ["left", "right"])
    st = make_style(rng, lang, framing, cols=st0_cols, wide_margin=wide, need_head="header" in ftypes,
                    need_foot=("footer" in ftypes or "page_number" in ftypes))
    if 6 not in kinds:
        pass
    # neighbours
    pool = other_questions(rng, bank, {fid}, lang)
    sib = None
    if sims.get(fid) and rng.random() < 0.35:
        sid = sims[fid]
        sib = (sid, bank[sid])
        pool = [q for q in pool if q[0] != sid]
    page = build_page(rng, st, (fid, ftext), iter(pool), policy, furn, sibling=sib)
    if page is None:
        return None
    fp = page.problems[page.framed_idx]
    if not (1 <= fp["n_lines"] <= 4) or not all(ln["bb"] for ln in fp["lines"]):
        return None
    scene["page"] = page
    scene["paper_rect"] = (0.0, 0.0, page.w, page.h)
    # ---- kind 4 pre-camera
    if 4 in kinds:
        if 1 in kinds:
            v = choose(rng, ["spine", "curl", "crease"], [0.35, 0.4, 0.25])
        else:
            v = choose(rng, ["spine", "crease"], [0.6, 0.4])
        scene["bend_variant"] = v
        if v in ("spine", "curl"):
            bz = plan_bend_pre(rng, scene)
            if bz is None:
                return None
            scene["bend"] = bz
    cam = solve_camera(rng, scene)
    if cam is None:
        return None
    scene["cam"] = cam
    if 4 in kinds and scene["bend_variant"] == "crease":
        bz = plan_crease(rng, scene, cam)
        if bz is None:
            return None
        scene["bend"] = bz
    occ = []
    if 3 in kinds:
        sh = place_sheet(rng, scene, cam, bank)
        if sh is None:
            return None
        scene["sheet"] = sh
        if sh["mode"] == "over":
            occ.append({"poly_page": happly(sh["T"], rect_pts((0, 0, sh["page"].w, sh["page"].h)))})
    if 2 in kinds:
        objs = place_objects(rng, scene, cam, occ)
        if objs is None:
            return None
        scene["objects"] = objs
        occ += objs
    if 5 in kinds:
        r = rng.random()
        want_hand = r < 0.7
        want_shadow = r >= 0.4
        if want_hand:
            hand = place_hand(rng, scene, cam, occ)
            if hand is None:
                if not want_shadow:
                    want_shadow = True
            else:
                scene["hand"] = hand
        if want_shadow:
            scene["shadow_kind"] = choose(rng, ["phone", "hand"], [0.6, 0.4])
    if 4 in kinds and scene["bend"]["variant"] == "spine":
        # facing page content
        st_f = dict(st)
        st_f["title"] = False
        st_f["page_no"] = st["page_no"] + (1 if scene["bend"]["side"] in ("left", "top") else -1)
        st_f["num0"] = st["num0"] + 20
        fpool = other_questions(rng, bank, {fid}, lang)
        facing = build_page(rng, st_f, None, iter(fpool), None, None)
        if facing is None:
            return None
        scene["facing"] = facing
    return scene


# ----------------------------------------------------------------------------- render
def render_scene(rng, scene):
    page = scene["page"]
    st = page.st
    W, H = scene["W"], scene["H"]
    cam = scene["cam"]
    Hm = cam["H"]
    Hinv = np.linalg.inv(Hm)
    f = st["f"]
    ppc = ppc_of(page)
    corners = happly(Hinv, [[0, 0], [W, 0], [W, H], [0, H]])
    pad = 12
    ox = math.floor(corners[:, 0].min()) - pad
    oy = math.floor(corners[:, 1].min()) - pad
    cw = int(math.ceil(corners[:, 0].max()) + pad - ox)
    chh = int(math.ceil(corners[:, 1].max()) + pad - oy)
    # desk
    canvas, desk_kind = desk_texture(rng, chh, cw, ppc)
    bz = scene.get("bend")
    # shadows of paper on the desk are added through the paper alpha
    sheet = scene.get("sheet")

    def sheet_layer():
        sp = sheet["page"]
        T2 = sheet["T"]
        Ti = np.linalg.inv(T2)
        cc = happly(Ti, [[ox, oy], [ox + cw, oy], [ox + cw, oy + chh], [ox, oy + chh]])
        rx0 = max(-2, math.floor(cc[:, 0].min()) - 2)
        ry0 = max(-2, math.floor(cc[:, 1].min()) - 2)
        rx1 = min(sp.w + 2, math.ceil(cc[:, 0].max()) + 2)
        ry1 = min(sp.h + 2, math.ceil(cc[:, 1].max()) + 2)
        if rx1 <= rx0 or ry1 <= ry0:
            return None
        rgb, al = render_page(sp, rx0, ry0, int(rx1 - rx0), int(ry1 - ry0))
        tex = paper_texture(rng, rgb.shape[0], rgb.shape[1], sp.st["f"])
        rgb = np.clip(rgb.astype(np.float32) * tex[..., None], 0, 255).astype(np.uint8)
        M = (np.array([[1, 0, -ox], [0, 1, -oy], [0, 0, 1]]) @ T2 @ np.array([[1, 0, rx0], [0, 1, ry0], [0, 0, 1]]))[:2]
        wr = cv2.warpAffine(rgb, M, (cw, chh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        wa = cv2.warpAffine(al, M, (cw, chh), flags=cv2.INTER_LINEAR, borderValue=0)
        return wr, wa

    def drop(layer_alpha, dark, blur, off):
        k = int(blur * 3) * 2 + 1
        sa = cv2.warpAffine(layer_alpha, np.float32([[1, 0, off[0]], [0, 1, off[1]]]), (cw, chh))
        sa = cv2.GaussianBlur(sa.astype(np.float32) / 255.0, (k, k), blur)
        return 1 - dark * sa * (1 - layer_alpha.astype(np.float32) / 255.0)

    light_off = rng.normal(0, 0.12, 2) * ppc
    if sheet is not None and sheet["mode"] == "under":
        sl = sheet_layer()
        if sl is not None:
            wr, wa = sl
            canvas *= drop(wa, 0.3, 0.12 * ppc, light_off)[..., None]
            a = (wa.astype(np.float32) / 255.0)[..., None]
            canvas = canvas * (1 - a) + wr.astype(np.float32) * a
    # page 1 (+ facing page)
    rgb, al = render_page(page, ox, oy, cw, chh)
    if scene.get("facing") is not None:
        fpg = scene["facing"]
        dx, dy = bz["facing_offset"]
        frgb, fal = render_page(fpg, ox - dx, oy - dy, cw, chh)
        m = fal > 0
        rgb[m] = frgb[m]
        al = np.maximum(al, fal)
    tex = paper_texture(rng, chh, cw, f)
    rgb = np.clip(rgb.astype(np.float32) * tex[..., None], 0, 255).astype(np.uint8)
    if bz is not None:
        rgb, al = apply_bend(rgb, al, bz, ox, oy)
    canvas *= drop(al, float(rng.uniform(0.2, 0.4)), 0.1 * ppc, light_off + 0.05 * ppc)[..., None]
    a = (al.astype(np.float32) / 255.0)[..., None]
    canvas = canvas * (1 - a) + rgb.astype(np.float32) * a
    page_alpha = al
    if sheet is not None and sheet["mode"] == "over":
        sl = sheet_layer()
        if sl is not None:
            wr, wa = sl
            canvas *= drop(wa, 0.35, 0.1 * ppc, light_off)[..., None]
            a = (wa.astype(np.float32) / 255.0)[..., None]
            canvas = canvas * (1 - a) + wr.astype(np.float32) * a
            page_alpha = np.maximum(page_alpha, wa)
    # objects
    for ob in scene.get("objects", []):
        im = ob["sprite"]
        w, h = im.size
        c, s_ = math.cos(ob["angle"]), math.sin(ob["angle"])
        cx, cy = ob["centre_page"]
        M = np.array([[c, -s_, cx - ox - (c * w / 2 - s_ * h / 2)], [s_, c, cy - oy - (s_ * w / 2 + c * h / 2)]], np.float64)
        hgt = {"ruler": 0.1, "pencil": 0.35, "pen": 0.45, "calculator": 0.5, "eraser": 0.3, "sticky_note": 0.05}[ob["type"]] * ppc
        shadow = (light_off[0] + hgt * 0.5, light_off[1] + hgt * 0.8, max(1.0, 0.08 * ppc + hgt * 0.4), 0.4 if not ob["translucent"] else 0.15)
        composite_sprite(canvas, im, M, shadow)
    if scene.get("hand") is not None:
        draw_hand(rng, canvas, scene["hand"], ox, oy, 1.0, page_alpha)
    # downscale big canvases first (proper anti-aliasing), then the camera warp
    s = cam["s"]
    k = 1.0
    if s < 0.8:
        k = s / 0.92
        canvas = cv2.resize(canvas, (max(2, int(round(cw * k))), max(2, int(round(chh * k)))), interpolation=cv2.INTER_AREA)
    Mc = Hm @ np.array([[1, 0, ox], [0, 1, oy], [0, 0, 1]]) @ np.diag([1 / k, 1 / k, 1])
    img = cv2.warpPerspective(canvas, Mc, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # ---- camera effects
    eff = {}
    shadows_meta = []
    if scene.get("shadow_kind"):
        m, info, dark = photo_shadow(rng, W, H, scene["shadow_kind"])
        img *= (1 - dark * m)[..., None]
        fp = page.problems[page.framed_idx]
        fq = happly(Hm, rect_pts(fp["box"]))
        fm = np.zeros((H, W), np.uint8)
        cv2.fillPoly(fm, [np.round(fq).astype(np.int32)], 1)
        info["framed_mean_darkening"] = round(float((m[fm > 0] * dark).mean()) if fm.any() else 0.0, 3)
        shadows_meta.append(info)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xn, yn = xx / W - 0.5, yy / H - 0.5
    gx, gy = rng.uniform(-0.35, 0.35, 2)
    vig = float(rng.uniform(0.1, 0.45))
    lightf = (1 + gx * xn + gy * yn) * (1 - vig * (xn ** 2 + yn ** 2) * 1.6)
    if rng.random() < 0.4:
        bx_, by_ = rng.uniform(-0.4, 0.4, 2)
        lightf += float(rng.uniform(0.03, 0.1)) * np.exp(-((xn - bx_) ** 2 + (yn - by_) ** 2) / 0.05)
    expo = float(rng.uniform(0.8, 1.0))
    img *= (lightf * expo)[..., None]
    temp = float(rng.uniform(-0.07, 0.05))
    img *= np.array([1 - temp, 1.0, 1 + temp], np.float32)[None, None]  # RGB: temp < 0 is warmer
    eff.update({"light_gradient": [round(float(gx), 3), round(float(gy), 3)], "vignette": round(vig, 3), "exposure": round(expo, 3),
                "white_balance": round(temp, 3)})
    sig = float(rng.uniform(0.3, 1.25))
    kk = int(sig * 3) * 2 + 1
    img = cv2.GaussianBlur(img, (kk, kk), sig)
    eff["blur_sigma"] = round(sig, 3)
    if rng.random() < 0.2:
        ln = int(rng.integers(3, 8))
        ang = rng.uniform(0, 180)
        ker = np.zeros((ln, ln), np.float32)
        ker[ln // 2, :] = 1
        ker = cv2.warpAffine(ker, cv2.getRotationMatrix2D((ln / 2 - 0.5, ln / 2 - 0.5), ang, 1.0), (ln, ln))
        ker /= ker.sum()
        img = cv2.filter2D(img, -1, ker)
        eff["motion_blur"] = [ln, round(float(ang), 1)]
    nsig = float(rng.uniform(1.5, 6.0))
    noise = rng.standard_normal((H, W, 1)).astype(np.float32) * nsig + rng.standard_normal((H, W, 3)).astype(np.float32) * (nsig * 0.35)
    img += noise
    eff["noise_sigma"] = round(nsig, 2)
    if rng.random() < 0.5:
        blurred = cv2.GaussianBlur(img, (0, 0), 1.5)
        amt = float(rng.uniform(0.2, 0.6))
        img = img + amt * (img - blurred)
        eff["sharpen"] = round(amt, 2)
    img = np.clip(img, 0, 255).astype(np.uint8)
    q = int(rng.integers(60, 93))
    eff["jpeg_quality"] = q
    return img, q, eff, shadows_meta, desk_kind


def r2(v):
    return [round(float(x), 2) for x in v]


def quad_list(pts):
    return [r2(p) for p in pts]


def build_meta(scene, P, eff, shadows_meta, desk_kind, q):
    page = scene["page"]
    st = page.st
    W, H = scene["W"], scene["H"]
    cam = scene["cam"]
    Hm = cam["H"]
    bz = scene.get("bend")

    def to_photo(pts):
        return happly(Hm, bend_forward(bz, pts))

    fp = page.problems[page.framed_idx]
    line_quads = []
    for ln in fp["lines"]:
        qi = [k for k, c in enumerate(ln["qmask"]) if c == "1"]
        cbs = char_boxes(ln["s"], st["chain"], st["f"], ln["x"], ln["base"])
        if qi:
            xa, xb = cbs[qi[0]][1], cbs[qi[-1]][2]
            y0, y1 = ln["bb"][1], ln["bb"][3]
            line_quads.append(quad_list(to_photo(rect_pts((xa, y0, xb, y1)))))
    fr_quad = quad_list(to_photo(rect_pts(fp["box"])))
    nbrs = []
    for idx, p in enumerate(page.problems):
        if p["framed"]:
            continue
        qd = to_photo(rect_pts(p["box"]))
        fr = inside_frac(qd, W, H)
        if fr <= 0:
            continue
        fb, pb = fp["box"], p["box"]
        if p["col"] == fp["col"]:
            rel = "above" if pb[3] <= fb[1] + 1 else "below"
        else:
            rel = "left_column" if p["col"] < fp["col"] else "right_column"
        nbrs.append({"bank_id": p["bank_id"], "label": p["label"], "relation": rel, "quad": quad_list(qd), "inside_frac": round(fr, 3),
                     "cut_by_photo_edge": bool(fr < 0.999), "n_lines": p["n_lines"]})
    # paper / desk
    sc = 0.25
    Ws, Hs = int(W * sc), int(H * sc)
    paper = np.zeros((Hs, Ws), np.uint8)
    pr = scene["paper_rect"]
    cv2.fillPoly(paper, [np.round(happly(Hm, rect_pts(pr)) * sc * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    sheet = scene.get("sheet")
    if sheet is not None:
        cv2.fillPoly(paper, [np.round(happly(Hm @ sheet["T"], rect_pts((0, 0, sheet["page"].w, sheet["page"].h))) * sc * 16).astype(np.int32)],
                     1, cv2.LINE_8, 4)
    desk_frac = float(1 - paper.mean())
    ppoly = happly(Hm, rect_pts(pr))
    _, sides = desk_stats(ppoly, W, H)
    pcorners = happly(Hm, rect_pts((0, 0, page.w, page.h)))
    cin = [quad_list([c])[0] for c in pcorners if 0 <= c[0] < W and 0 <= c[1] < H]
    objs = []
    occluders = []
    for ob in scene.get("objects", []):
        qd = happly(Hm, ob["poly_page"])
        objs.append({"type": ob["type"], "text": ob["text"], "quad": quad_list(qd), "size_cm": ob["size_cm"],
                     "translucent": ob["translucent"], "on_page": bool(point_in_convex(ob["centre_page"], rect_pts(pr))),
                     "over_neighbours": ob["over_neighbours"], "material": ob.get("material")})
        occluders.append({"what": ob["type"], "poly": quad_list(qd)})
    sh_meta = None
    if sheet is not None:
        sp = sheet["page"]
        H2 = Hm @ sheet["T"]
        sprobs = []
        for p in sp.problems:
            qd = happly(H2, rect_pts(p["box"]))
            fr = inside_frac(qd, W, H)
            if fr > 0:
                sprobs.append({"bank_id": p["bank_id"], "quad": quad_list(qd), "inside_frac": round(fr, 3)})
        sq = happly(H2, rect_pts((0, 0, sp.w, sp.h)))
        sh_meta = {"mode": sheet["mode"], "angle_deg": round(sheet["angle_deg"], 2), "quad": quad_list(sq), "lang": sheet["lang"],
                   "visible_frac": round(sheet["visible_frac"], 3), "problems": sprobs,
                   "layout": {"columns": sp.st["cols"], "font": sp.st["body"], "font_px": sp.st["f"], "label_style": sp.st["label_style"]}}
        if sheet["mode"] == "over":
            occluders.append({"what": "second_sheet", "poly": quad_list(sq)})
    hand_meta = None
    if scene.get("hand") is not None:
        hd = scene["hand"]
        polys = [quad_list(happly(Hm, p)) for p in hd["polys"]]
        hand_meta = {"mode": hd["mode"], "edge": hd["edge"], "style": hd["style"], "finger_polys": polys,
                     "covers_neighbours": hd["covers_neighbours"], "skin": list(hd["skin"])}
        for p in polys:
            occluders.append({"what": "hand", "poly": p})
        if hd["palm"] is not None:
            pc, ra, rb, ang = hd["palm"]
            t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
            R = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
            e = np.stack([ra * np.cos(t), rb * np.sin(t)], 1) @ R.T + pc
            hand_meta["palm_poly"] = quad_list(happly(Hm, e))
    bend_meta = None
    if bz is not None:
        if bz["variant"] in ("spine", "curl"):
            zq = happly(Hm, rect_pts(bz["zone_rect"]))
            bend_meta = {"variant": bz["variant"], "side": bz["side"], "zone_quad": quad_list(zq), "zone_width_px_page": round(bz["D"], 1),
                         "compression": round(bz["k"], 3), "curl": round(bz["cb"], 3), "gutter_darkening": round(bz["g"], 3)}
            if scene.get("facing") is not None:
                fpg = scene["facing"]
                dx, dy = bz["facing_offset"]
                fq = []
                for p in fpg.problems:
                    qd = happly(Hm, bend_forward(bz, rect_pts(p["box"]) + (dx, dy)))
                    fr = inside_frac(qd, W, H)
                    if fr > 0:
                        fq.append({"bank_id": p["bank_id"], "quad": quad_list(qd), "inside_frac": round(fr, 3)})
                bend_meta["facing_page_problems"] = fq
        else:
            p0 = np.array(bz["p0"])
            n = np.array(bz["n"])
            dv = np.array([n[1], -n[0]])
            seg = happly(Hm, [p0 - dv * 1e4, p0 + dv * 1e4])
            bend_meta = {"variant": "crease", "line": quad_list(seg), "angle_deg": round(bz["angle_deg"], 2),
                         "darkening": round(bz["dark"], 3)}
    furn = []
    for q_ in page.furniture:
        qd = to_photo(rect_pts(q_["bb"]))
        furn.append({"type": q_["type"], "text": q_["text"], "quad": quad_list(qd), "inside_frac": round(inside_frac(qd, W, H), 3),
                     "near": q_.get("near", "page")})
    cx, cy = cam["c"]
    meta = {
        "qid": P["qid"], "bank_id": P["bank_id"], "text": fp["text"], "size": [W, H], "jpeg_quality": q,
        "kinds": P["kinds"], "kind_names": [KIND_NAMES[k] for k in P["kinds"]], "lang": P["lang"], "framing": P["framing"],
        "visible_problems": count_visible_bent(page, Hm, bz, W, H),
        "centre": [W / 2, H / 2], "centre_page_px": r2((cx, cy)), "centre_line": cam["line"], "centre_char": cam["char"],
        "framed": {"label": fp["label"], "quad": fr_quad, "line_quads": line_quads, "n_lines": len(line_quads),
                   "printed_lines": fp["n_lines"],
                   "label_quad": quad_list(to_photo(rect_pts(fp["label_bb"]))), "score_note": fp["score"],
                   "char_height_px": round(st["f"] * cam["s"], 1)},
        "neighbours": nbrs,
        "layout": {"doc_type": st["doc_type"], "columns": st["cols"], "font": st["body"], "font_file": os.path.basename(FONTS[st["body"]][0]),
                   "font_px": st["f"], "label_style": st["label_style"], "label_bold": st["label_bold"], "hanging_indent": st["hanging"],
                   "line_spacing": round(st["lh"], 3), "problem_gap_lines": round(st["gap"], 3), "page_size_px": r2((page.w, page.h)),
                   "margins_em": r2((st["ml"], st["mt"], st["mr"], st["mb"])), "score_notes": st["score_notes"],
                   "answer_lines": st["answer_lines"], "title_block": st["title"], "sections": st["sections"],
                   "framed_position": "col%d" % fp["col"]},
        "camera": {"scale": round(cam["s"], 4), "rotation_deg": round(math.degrees(cam["theta"]), 3), "perspective": [cam["a"], cam["b"]],
                   "homography_page_to_photo": [[float("%.8g" % v) for v in row] for row in Hm]},
        "desk": {"texture": desk_kind, "fraction": round(desk_frac, 4), "sides": sides if desk_frac > 0 else [],
                 "page_corners_in_view": cin},
        "objects": objs, "second_sheet": sh_meta, "bend": bend_meta, "hand": hand_meta, "shadows": shadows_meta,
        "furniture": furn, "occluders": occluders, "effects": eff,
    }
    return meta


def count_visible_bent(page, Hm, bz, W, H):
    return count_visible(page, Hm, W, H, bz)


# ----------------------------------------------------------------------------- driver
_G = {}


def load_bank(path):
    bank = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                o = json.loads(line)
                bank[o["id"]] = o["question"]
    return bank


def similar_map(bank):
    ids = sorted(bank)
    out = {}
    for a in ids:
        best, bs = None, 0.0
        for b in ids:
            if a == b or lang_of(bank[a]) != lang_of(bank[b]):
                continue
            r = difflib.SequenceMatcher(None, bank[a], bank[b]).ratio()
            if r > bs:
                best, bs = b, r
        if bs >= 0.8:
            out[a] = best
    return out


def check_coverage(bank):
    for qid, t in bank.items():
        lang = lang_of(t)
        chains = [["zh_sans", "dv_sans"], ["zh_serif", "zh_sans", "dv_sans"]] if lang == "zh" else \
            [["en_serif", "dv_sans", "zh_sans"], ["en_sans", "dv_sans", "zh_sans"], ["dv_serif", "dv_sans", "zh_sans"]]
        for ch in t:
            if ch != " " and not any(covered(ch, c) for c in chains):
                raise SystemExit("no font covers %r in %s" % (ch, qid))


def make_one(i):
    bank, sims, out, seed = _G["bank"], _G["sims"], _G["out"], _G["seed"]
    P = plan(i, bank)
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    scene = None
    for att in range(400):
        scene = try_scene(rng, P, bank, sims)
        if scene is not None:
            break
    if scene is None:
        raise RuntimeError("photo %d: no scene after 400 attempts" % i)
    img, q, eff, shm, desk_kind = render_scene(rng, scene)
    eff["attempts"] = att + 1
    meta = build_meta(scene, P, eff, shm, desk_kind, q)
    buf = io.BytesIO()
    Image.fromarray(img, "RGB").save(buf, format="JPEG", quality=q)
    with open(os.path.join(out, P["qid"] + ".jpg"), "wb") as fh:
        fh.write(buf.getvalue())
    text = bank[P["bank_id"]]
    return (P["qid"], [P["qid"], text], [P["qid"], text, P["bank_id"], "exact"],
            json.dumps(meta, ensure_ascii=False, sort_keys=True))


def _init(bank, sims, out, seed):
    cv2.setNumThreads(1)
    init_fonts()
    _G.update({"bank": bank, "sims": sims, "out": out, "seed": seed})


def csv_text(header, rows):
    s = io.StringIO()
    w = csv.writer(s, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(r)
    return s.getvalue()


def read_csv_rows(path):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    return {r[0]: r for r in rows[1:] if r}


def read_jsonl(path):
    if not os.path.exists(path):
        return {}
    out = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line:
                out[json.loads(line)["qid"]] = line
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=241)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    a = ap.parse_args(argv)
    t0 = time.time()
    init_fonts()
    bank = load_bank(a.bank)
    check_coverage(bank)
    sims = similar_map(bank)
    os.makedirs(a.out, exist_ok=True)
    if a.only:
        idx = sorted({int(x) for x in a.only.split(",") if x.strip()})
    else:
        idx = list(range(1, a.count + 1))
    jobs = max(1, min(2, a.jobs))
    results = []
    if jobs == 1 or len(idx) == 1:
        _init(bank, sims, a.out, a.seed)
        for i in idx:
            results.append(make_one(i))
    else:
        ctx = mp.get_context("fork")
        with ctx.Pool(jobs, initializer=_init, initargs=(bank, sims, a.out, a.seed)) as pool:
            for r in pool.imap_unordered(make_one, idx, chunksize=1):
                results.append(r)
    tp = os.path.join(a.out, "truth.csv")
    qp = os.path.join(a.out, "queries.csv")
    mpth = os.path.join(a.out, "meta.jsonl")
    if a.only:
        truth = read_csv_rows(tp)
        queries = read_csv_rows(qp)
        metas = read_jsonl(mpth)
    else:
        truth, queries, metas = {}, {}, {}
    for qid, tr, qr, mj in results:
        truth[qid] = tr
        queries[qid] = qr
        metas[qid] = mj
    keys = sorted(truth)
    with open(tp, "w", encoding="utf-8", newline="") as fh:
        fh.write(csv_text(["qid", "text"], [truth[k] for k in keys]))
    with open(qp, "w", encoding="utf-8", newline="") as fh:
        fh.write(csv_text(["qid", "query", "expected_id", "kind"], [queries[k] for k in sorted(queries)]))
    with open(mpth, "w", encoding="utf-8") as fh:
        for k in sorted(metas):
            fh.write(metas[k] + "\n")
    print("made %d photos in %s (%.1f s)" % (len(idx), a.out, time.time() - t0))


if __name__ == "__main__":
    main()
