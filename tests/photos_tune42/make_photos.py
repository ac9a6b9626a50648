#!/usr/bin/env python
"""Synthetic phone-photo test set: one framed, numbered homework problem per photo.

Usage:
  .venv/bin/python tests/photos_tune42/make_photos.py --bank appliance/data/demo_bank.jsonl \
      OUT_DIR --count 120 --seed 431 [--manifest M.jsonl] [--workers 2]

Each photo shows a printed worksheet page (or a screen showing it) with the target
problem (a bank question, printed with a problem number) framed near the centre.
Outputs qsNNN.jpg, truth.csv (qid,text) and queries.csv (qid,query,expected_id,kind).
The optional manifest lists, per photo, the cases that are really visible in the frame.
Deterministic for a given seed (each photo has its own RNG seeded from seed and index).
"""
import argparse
import csv
import json
import math
import multiprocessing as mp
import os
import random
import re
import sys
import time

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

# --------------------------------------------------------------------------- fonts
NOTO = "/usr/share/fonts/opentype/noto/"
DJ = "/usr/share/fonts/truetype/dejavu/"
LB = "/usr/share/fonts/truetype/liberation/"

CJK_SANS = (NOTO + "NotoSansCJK-Regular.ttc", 2)
CJK_SANS_B = (NOTO + "NotoSansCJK-Bold.ttc", 2)
CJK_SERIF = (NOTO + "NotoSerifCJK-Regular.ttc", 2)
CJK_SERIF_B = (NOTO + "NotoSerifCJK-Bold.ttc", 2)
CJK_MONO = (NOTO + "NotoSansCJK-Regular.ttc", 7)
CJK_MONO_B = (NOTO + "NotoSansCJK-Bold.ttc", 7)


def _l(name):
    for d in (DJ, LB):
        if os.path.exists(d + name):
            return (d + name, 0)
    return None


# font families: (name, cjk, cjk_bold, latin, latin_bold)
ZH_FAMILIES = [
    ("NotoSansSC", CJK_SANS, CJK_SANS_B, None, None),
    ("NotoSerifSC", CJK_SERIF, CJK_SERIF_B, None, None),
    ("NotoSerifSC+LiberationSerif", CJK_SERIF, CJK_SERIF_B, _l("LiberationSerif-Regular.ttf"), _l("LiberationSerif-Bold.ttf")),
    ("NotoSerifSC+DejaVuSerif", CJK_SERIF, CJK_SERIF_B, _l("DejaVuSerif.ttf"), _l("DejaVuSerif-Bold.ttf")),
    ("NotoSansSC+DejaVuSans", CJK_SANS, CJK_SANS_B, _l("DejaVuSans.ttf"), _l("DejaVuSans-Bold.ttf")),
    ("NotoSansSC+LiberationSans", CJK_SANS, CJK_SANS_B, _l("LiberationSans-Regular.ttf"), _l("LiberationSans-Bold.ttf")),
    ("NotoSansMonoSC", CJK_MONO, CJK_MONO_B, None, None),
]
EN_FAMILIES = [
    ("DejaVuSerif", CJK_SERIF, CJK_SERIF_B, _l("DejaVuSerif.ttf"), _l("DejaVuSerif-Bold.ttf")),
    ("DejaVuSans", CJK_SANS, CJK_SANS_B, _l("DejaVuSans.ttf"), _l("DejaVuSans-Bold.ttf")),
    ("DejaVuSansCondensed", CJK_SANS, CJK_SANS_B, _l("DejaVuSansCondensed.ttf"), _l("DejaVuSansCondensed-Bold.ttf")),
    ("DejaVuSansMono", CJK_MONO, CJK_MONO_B, _l("DejaVuSansMono.ttf"), _l("DejaVuSansMono-Bold.ttf")),
    ("LiberationSerif", CJK_SERIF, CJK_SERIF_B, _l("LiberationSerif-Regular.ttf"), _l("LiberationSerif-Bold.ttf")),
    ("LiberationSans", CJK_SANS, CJK_SANS_B, _l("LiberationSans-Regular.ttf"), _l("LiberationSans-Bold.ttf")),
    ("LiberationSansNarrow", CJK_SANS, CJK_SANS_B, _l("LiberationSansNarrow-Regular.ttf"), _l("LiberationSansNarrow-Bold.ttf")),
    ("LiberationMono", CJK_MONO, CJK_MONO_B, _l("LiberationMono-Regular.ttf"), _l("LiberationMono-Bold.ttf")),
    ("NotoSansSC(latin)", CJK_SANS, CJK_SANS_B, None, None),
]
ZH_FAMILIES = [f for f in ZH_FAMILIES if f[3] is not None or "+" not in f[0]]
EN_FAMILIES = [f for f in EN_FAMILIES if f[3] is not None or "latin" in f[0]]

_FONT_CACHE = {}
_CMAP_CACHE = {}


def get_font(spec, size):
    key = (spec, int(size))
    f = _FONT_CACHE.get(key)
    if f is None:
        f = ImageFont.truetype(spec[0], max(6, int(size)), index=spec[1])
        _FONT_CACHE[key] = f
    return f


def has_glyph(spec, ch):
    cm = _CMAP_CACHE.get(spec)
    if cm is None:
        cm = None
        try:
            from fontTools.ttLib import TTFont  # optional
            tt = TTFont(spec[0], fontNumber=spec[1], lazy=True)
            cm = set(tt.getBestCmap().keys())
        except Exception:
            cm = "probe"
        _CMAP_CACHE[spec] = cm
    if cm == "probe":
        f = get_font(spec, 40)
        miss = f.getmask("\ue000").tobytes()
        return f.getmask(ch).tobytes() != miss
    return ord(ch) in cm


# --------------------------------------------------------------------------- text shaping
SUP = {"²": "2", "³": "3", "¹": "1", "⁰": "0", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
       "⁸": "8", "⁹": "9", "ⁿ": "n", "⁺": "+", "⁻": "-"}
SUB = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7",
       "₈": "8", "₉": "9", "ₙ": "n", "ₓ": "x", "ₐ": "a", "ₑ": "e", "₊": "+", "₋": "-"}
OPEN_P = set("（(《“‘「『【〈[")
CLOSE_P = set("）)》”’」』】〉]，。？！：；、,.?!:;%")
HAN_RE = re.compile(r"[\u4e00-\u9fff]")


def is_cjkish(ch, lang):
    o = ord(ch)
    if 0x4E00 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF:
        return True
    if 0x2460 <= o <= 0x24FF:
        return True
    if ch in "“”‘’" and lang == "zh":
        return True
    return False


class Typo:
    """A font family at one size, with bold / fake-bold choices."""

    def __init__(self, fam, size, bold=False, fake_bold=0, lang="zh"):
        self.fam = fam
        self.size = size
        self.bold = bold
        self.fake = fake_bold
        self.lang = lang

    def spec_for(self, ch):
        name, cjk, cjkb, lat, latb = self.fam
        c = cjkb if self.bold else cjk
        la = (latb if self.bold else lat) if lat else None
        if is_cjkish(ch, self.lang) or (ch in "“”‘’" and self.lang == "zh"):
            if has_glyph(c, ch):
                return c
        if la and has_glyph(la, ch):
            return la
        if has_glyph(c, ch):
            return c
        dv = _l("DejaVuSans-Bold.ttf" if self.bold else "DejaVuSans.ttf")
        return dv

    def stroke(self, size):
        if not self.fake:
            return 0
        return max(1, int(round(size * 0.028 * self.fake)))


class Tok:
    __slots__ = ("kind", "segs", "w", "open", "close")

    def __init__(self, kind, segs, w, open_=False, close=False):
        self.kind, self.segs, self.w, self.open, self.close = kind, segs, w, open_, close


def make_segs(s, ty):
    """segments: (text, font, dy, stroke, width, kind)"""
    segs = []
    cur = None
    for ch in s:
        style = "n"
        base = ch
        if ch in SUP:
            style, base = "sup", SUP[ch]
        elif ch in SUB:
            style, base = "sub", SUB[ch]
        spec = ty.spec_for(base)
        key = (spec, style)
        if cur is not None and cur[0] == key:
            cur[1] += base
        else:
            cur = [key, base]
            segs.append(cur)
    out = []
    for (spec, style), txt in segs:
        if style == "n":
            size, dy = ty.size, 0.0
        elif style == "sup":
            size, dy = ty.size * 0.62, -0.37 * ty.size
        else:
            size, dy = ty.size * 0.62, 0.15 * ty.size
        f = get_font(spec, size)
        st = ty.stroke(size)
        out.append((txt, f, dy, st, f.getlength(txt) + st, "text"))
    return out


def shape(text, ty, blank_scale=1.0):
    lang = ty.lang
    toks = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "_":
            j = i
            while j < n and text[j] == "_":
                j += 1
            w = max(3.2, (j - i) * 0.62) * ty.size * blank_scale
            toks.append(Tok("blank", [("", None, 0, 0, w, "blank")], w))
            i = j
            continue
        if ch == " ":
            f = get_font(ty.spec_for("a"), ty.size)
            w = f.getlength(" ")
            toks.append(Tok("space", [], w))
            i += 1
            continue
        if is_cjkish(ch, lang):
            segs = make_segs(ch, ty)
            toks.append(Tok("cjk", segs, sum(s[4] for s in segs), ch in OPEN_P, ch in CLOSE_P))
            i += 1
            continue
        j = i
        while j < n and text[j] not in " _" and not is_cjkish(text[j], lang):
            j += 1
        segs = make_segs(text[i:j], ty)
        toks.append(Tok("word", segs, sum(s[4] for s in segs), False, False))
        i = j
    # kinsoku merging: closing punctuation sticks to previous token, opening to next
    out = []
    for t in toks:
        if out and out[-1].kind != "space" and t.kind != "space" and (t.close or out[-1].open):
            p = out[-1]
            p.segs = p.segs + t.segs
            p.w += t.w
            p.open = t.open
            p.kind = "word"
        else:
            out.append(t)
    return out


def break_lines(toks, first_w, rest_w):
    lines = [[]]
    x = 0.0
    avail = first_w
    for t in toks:
        if t.kind == "space":
            if lines[-1]:
                lines[-1].append(t)
                x += t.w
            continue
        if lines[-1] and x + t.w > avail:
            while lines[-1] and lines[-1][-1].kind == "space":
                lines[-1].pop()
            lines.append([])
            x = 0.0
            avail = rest_w
        lines[-1].append(t)
        x += t.w
    while lines[-1] and lines[-1][-1].kind == "space":
        lines[-1].pop()
    return [ln for ln in lines if ln] or [[]]


def line_width(line):
    return sum(t.w for t in line)


def draw_line(draw, x, base, line, ink, size):
    for t in line:
        for (txt, f, dy, st, w, kind) in t.segs:
            if kind == "blank":
                lw = max(2, int(round(size * 0.055)))
                yb = base + size * 0.10
                draw.line([(x + size * 0.08, yb), (x + w - size * 0.08, yb)], fill=ink, width=lw)
            else:
                draw.text((x, base + dy), txt, font=f, fill=ink, anchor="ls",
                          stroke_width=st, stroke_fill=ink if st else None)
            x += w
        if t.kind == "space":
            x += t.w
    return x


# --------------------------------------------------------------------------- content
CN_NUM = "一二三四五六七八九十"

NUMBER_STYLES_ZH = [("dot", 3), ("fwdot", 2), ("dun", 3), ("paren", 1.5), ("fwparen", 2), ("di_ti", 1.5),
                    ("Q", 0.6), ("rparen", 0.8), ("circled", 1.2), ("lenticular", 1.5)]
NUMBER_STYLES_EN = [("dot", 3), ("fwdot", 0.5), ("dun", 0.3), ("paren", 2), ("fwparen", 0.5), ("di_ti", 0.3),
                    ("Q", 2.5), ("rparen", 2), ("circled", 1), ("lenticular", 0.6)]
CIRCLED = ("①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳" + "".join(chr(c) for c in range(0x3251, 0x3260))
           + "".join(chr(c) for c in range(0x32B1, 0x32C0)))


def number_label(style, n):
    return {
        "dot": f"{n}.", "fwdot": f"{n}．", "dun": f"{n}、", "paren": f"({n})", "fwparen": f"（{n}）",
        "di_ti": f"第{n}题", "Q": f"Q{n}.", "rparen": f"{n})", "circled": CIRCLED[n - 1] if 1 <= n <= len(CIRCLED) else f"({n})",
        "lenticular": f"【{n}】",
    }[style]


ZH_FILL = [
    ("计算：25 × 4 + 36 ÷ 6", None),
    ("化简：3a + 2b - a + 5b", None),
    ("若 x = 3 是方程 2x + m = 10 的解，则 m = ______。", None),
    ("下列各数中，是无理数的是（　　）", ["0.5", "√4", "π", "1/3"]),
    ("一个数的 3 倍比它的一半多 15，求这个数。", None),
    ("甲、乙两地相距 360 千米，一辆汽车从甲地开往乙地，每小时行驶 60 千米，几小时可以到达？", None),
    ("比较大小：-2 ______ -5（填“>”或“<”）", None),
    ("下列现象中，属于光的折射的是（　　）", ["小孔成像", "水中倒影", "筷子在水中“折断”", "影子的形成"]),
    ("下列变化属于化学变化的是（　　）", ["冰雪融化", "蜡烛燃烧", "酒精挥发", "玻璃破碎"]),
    ("植物进行蒸腾作用的主要器官是（　　）", ["根", "茎", "叶", "花"]),
    ("“举头望明月”的下一句是______。", None),
    ("一个三角形的三个内角分别是 40°、60° 和 ______°。", None),
    ("用 1、2、3 三个数字可以组成多少个没有重复数字的三位数？", None),
    ("已知 a + b = 5，ab = 6，求 a² + b² 的值。", None),
    ("某班有学生 48 人，其中女生占 3/8，男生有多少人？", None),
    ("下列物质中，属于纯净物的是（　　）", ["空气", "海水", "蒸馏水", "石灰石"]),
    ("写出两个描写春天的成语：______、______。", None),
    ("长江发源于（　　）", ["青藏高原", "云贵高原", "内蒙古高原", "黄土高原"]),
    ("下列单位中，属于功率单位的是（　　）", ["焦耳", "瓦特", "牛顿", "帕斯卡"]),
    ("绿色植物制造有机物的主要器官是______，场所是______。", None),
    ("下列朝代中，最早实行科举制的是（　　）", ["汉朝", "隋朝", "唐朝", "宋朝"]),
    ("把 3.6 千米 = ______ 米，0.25 时 = ______ 分。", None),
    ("如图，直线 a ∥ b，∠1 = 50°，求 ∠2 的度数。", None),
    ("下列说法中，正确的是（　　）", ["相等的角是对顶角", "两点之间线段最短", "垂线段最长", "同位角相等"]),
    ("解不等式 2x - 1 > 5，并把解集在数轴上表示出来。", None),
    ("一根绳子长 12 米，第一次用去全长的 1/3，第二次用去 2 米，还剩多少米？", None),
    ("默写：海内存知己，______。", None),
    ("人体内的血细胞包括红细胞、白细胞和______。", None),
    ("地球上的五带中，有阳光直射现象的是（　　）", ["热带", "北温带", "南温带", "寒带"]),
    ("下列词语中没有错别字的一项是（　　）", ["再接再励", "迫不及待", "谈笑风声", "一愁莫展"]),
]
EN_FILL = [
    ("Simplify: 4(x + 3) - 2x", None),
    ("Which of the following numbers is prime? (    )", ["21", "27", "29", "33"]),
    ("Write 0.45 as a fraction in lowest terms. ________", None),
    ("A train travels 150 km in 2.5 hours. Find its average speed.", None),
    ("Which gas do plants absorb during photosynthesis?", ["oxygen", "nitrogen", "carbon dioxide", "hydrogen"]),
    ("She ______ (read) a book when the phone rang.", None),
    ("Choose the word that best completes the sentence: I am interested ___ music.", ["in", "on", "at", "for"]),
    ("Name the capital city of Australia. ________", None),
    ("Round 3.476 to one decimal place.", None),
    ("What is 15% of 80?", None),
    ("Which planet is closest to the Sun?", ["Venus", "Mercury", "Mars", "Earth"]),
    ("Explain why ice floats on water.", None),
    ("List two renewable sources of energy.", None),
    ("Complete the sequence: 2, 6, 18, 54, ____", None),
    ("The boiling point of water at sea level is ____ °C.", None),
    ("Expand and simplify: (x + 2)(x - 5)", None),
    ("Which of these is a chemical change?", ["melting ice", "burning paper", "boiling water", "cutting wood"]),
    ("Convert 2.5 kilometres into metres.", None),
    ("Give one reason why the Roman Empire declined.", None),
    ("Rewrite the sentence in the past tense: They play football after school.", None),
    ("The area of a square is 49 cm². What is the length of one side?", None),
    ("Which continent is the Sahara Desert in?", ["Asia", "Africa", "Australia", "South America"]),
]

OPT_LABELS = [("A. ", "B. ", "C. ", "D. "), ("A．", "B．", "C．", "D．"), ("A、", "B、", "C、", "D、"),
              ("(A) ", "(B) ", "(C) ", "(D) ")]

ZH_SCORES = ["（5分）", "（本题8分）", "（6分）", "（本题10分）", "(4分)", "（3分）"]
EN_SCORES = ["(5 marks)", "[4 marks]", "(3 points)", "(2 marks)", "[6 points]"]

SUBJ_ZH = {"math": "数学", "physics": "物理", "chemistry": "化学", "biology": "生物", "geography": "地理",
           "history": "历史", "chinese": "语文", "english": "英语"}
SUBJ_EN = {"math": "Mathematics", "physics": "Physics", "chemistry": "Chemistry", "biology": "Biology",
           "geography": "Geography", "history": "History", "chinese": "Chinese", "english": "English"}


def header_lines(rng, lang, subject, kind):
    """returns list of (text, role, align, scale, bold)"""
    if kind == "hw_question":
        return [(f"Homework {rng.randint(1, 12)}, Question {rng.randint(1, 6)}", "header:hw_question", "left", 1.1, True)]
    if kind == "zh_question":
        n = rng.randint(1, 6)
        pts = rng.choice([5, 6, 8, 10, 12])
        return [(f"第{CN_NUM[n - 1]}题（{pts}分）", "header:zh_question", "left", 1.1, True)]
    if kind == "title":
        if lang == "zh":
            g = rng.choice(["七", "八", "九", "六", "五"])
            t = rng.choice([f"{g}年级{SUBJ_ZH.get(subject, '数学')}课时练习（{rng.randint(1, 20)}）",
                            f"{SUBJ_ZH.get(subject, '数学')}单元测试卷　第{CN_NUM[rng.randint(0, 8)]}单元",
                            f"{g}年级上学期{SUBJ_ZH.get(subject, '数学')}期中复习题",
                            f"{SUBJ_ZH.get(subject, '数学')}作业本　第{rng.randint(2, 30)}课时"])
        else:
            t = rng.choice([f"Grade {rng.randint(6, 10)} {SUBJ_EN.get(subject, 'Science')} Worksheet - Unit {rng.randint(1, 9)}",
                            f"{SUBJ_EN.get(subject, 'Science')} Homework Sheet {rng.randint(1, 20)}",
                            f"Unit {rng.randint(1, 12)} Review: {SUBJ_EN.get(subject, 'Science')}",
                            f"Practice Test {rng.randint(1, 5)} - {SUBJ_EN.get(subject, 'Science')}"])
        return [(t, "header:title", "center", rng.uniform(1.2, 1.5), True)]
    if kind == "name_line":
        if lang == "zh":
            t = rng.choice(["姓名：________　班级：________　学号：______",
                            "班级________　姓名________　日期________",
                            "姓名：__________　得分：______"])
        else:
            t = rng.choice(["Name: ____________  Class: ______  Date: ________",
                            "Name ______________   Date __________   Score ____"])
        return [(t, "header:name_line", "left", 0.95, False)]
    raise ValueError(kind)


def section_text(rng, lang):
    if lang == "zh":
        i = rng.randint(0, 4)
        return rng.choice([f"{CN_NUM[i]}、填空题", f"{CN_NUM[i]}、选择题（每小题3分，共30分）", f"{CN_NUM[i]}、解答题",
                           f"{CN_NUM[i]}、计算题", f"{CN_NUM[i]}、简答题（共{rng.randint(3, 6) * 5}分）"])
    return rng.choice(["Part B: Short answers", "Section A: Multiple choice", "Part C: Problems",
                       "Section 2 - Short answer questions", "Part A: Fill in the blanks"])


# --------------------------------------------------------------------------- page layout
class Page:
    pass


def pick_neighbour(rng, page_lang, target, bank, used):
    lang = page_lang if rng.random() < 0.85 else ("en" if page_lang == "zh" else "zh")
    if rng.random() < 0.45:
        pool = [b for b in bank if b["lang"] == lang and b["id"] != target["id"] and b["id"] not in used]
        same = [b for b in pool if b["subject"] == target["subject"]]
        if same and rng.random() < 0.6:
            pool = same
        if pool:
            b = rng.choice(pool)
            used.add(b["id"])
            return {"text": b["question"], "options": None, "src": "bank", "bank_id": b["id"], "lang": lang}
    t, opts = rng.choice(ZH_FILL if lang == "zh" else EN_FILL)
    return {"text": t, "options": opts, "src": "filler", "lang": lang}


def layout_problem(draw, page, prob, x, y, col_w, do_draw=True):
    """Lay out (and draw) a numbered problem at (x, y) top-left. Returns dict with geometry."""
    fs = page.fs
    ty = page.ty
    lab_ty = page.ty_bold if page.num_bold else page.ty
    label = number_label(page.num_style, prob["num"])
    lab_toks = shape(label, lab_ty)
    lab_w = sum(t.w for t in lab_toks)
    gap = fs * page.label_gap
    if page.num_style in ("dun", "fwdot", "fwparen", "lenticular", "di_ti"):
        gap = fs * page.label_gap * 0.5
    elif page.num_style == "circled":
        gap = fs * max(0.3, page.label_gap)
    text = prob["text"]
    score_toks = []
    if page.score_fmt is not None:
        score_toks = shape(page.score_fmt, ty) + [Tok("space", [], fs * 0.3)]
    toks = score_toks + shape(text, ty, blank_scale=page.blank_scale)
    first_w = col_w - lab_w - gap
    if page.indent == "hanging":
        rest_off = lab_w + gap
    elif page.indent == "flush":
        rest_off = 0.0
    else:
        rest_off = fs * 2.0 if page.lang == "zh" else fs * 1.0
    rest_w = col_w - rest_off
    lines = break_lines(toks, first_w, rest_w)
    lh = page.line_h
    base = y + fs * 0.9
    boxes = []
    lab_box = (x, base - fs * 0.88, x + lab_w, base + fs * 0.25)
    if do_draw:
        draw_line(draw, x, base, lab_toks, page.num_ink, fs)
    text_x0 = x + lab_w + gap
    line_ends = []
    for li, ln in enumerate(lines):
        lx = text_x0 if li == 0 else x + rest_off
        lw = line_width(ln)
        if do_draw:
            draw_line(draw, lx, base, ln, page.ink, fs)
        x0 = x if li == 0 else lx
        boxes.append((x0, base - fs * 0.9, lx + lw, base + fs * 0.3))
        line_ends.append((lx + lw, base))
        if li < len(lines) - 1:
            base += lh
    yb = base + fs * 0.3
    opt_boxes = []
    if prob.get("options"):
        labs = page.opt_labels
        items = [labs[k] + o for k, o in enumerate(prob["options"])]
        it_toks = [shape(s, ty) for s in items]
        widths = [line_width(t) for t in it_toks]
        ox = text_x0 if page.indent == "hanging" else x + fs * (1.0 if page.lang == "zh" else 0.5)
        avail = x + col_w - ox
        cell = max(widths) + fs * 1.5
        if 4 * cell <= avail:
            per_row = 4
        elif 2 * cell <= avail:
            per_row = 2
        else:
            per_row = 1
        cw = avail / per_row if per_row > 1 else avail
        if per_row == 4:
            cw = max(cell, min(avail / 4, cell * 1.6))
        for k in range(4):
            r, c = divmod(k, per_row)
            if c == 0:
                base += lh * 0.95
            ox2 = ox + c * cw
            if do_draw:
                draw_line(draw, ox2, base, it_toks[k], page.ink, fs)
            opt_boxes.append((ox2, base - fs * 0.9, ox2 + widths[k], base + fs * 0.3))
        yb = base + fs * 0.3
    ans_boxes = []
    if prob.get("answer_lines"):
        ay = yb
        for k in range(prob["answer_lines"]):
            ay += fs * page.ans_gap
            ax0 = x + rest_off if page.indent != "flush" else x
            if k == 0 and page.ans_prompt:
                pt = shape(page.ans_prompt, ty)
                if do_draw:
                    draw_line(draw, ax0, ay - fs * 0.12, pt, page.ink, fs)
                pw_ = line_width(pt)
                ans_boxes.append((ax0, ay - fs * 0.95, ax0 + pw_, ay + fs * 0.2))
                lx0 = ax0 + pw_ + fs * 0.2
            else:
                lx0 = ax0
            if do_draw:
                draw.line([(lx0, ay), (x + col_w, ay)], fill=page.rule_ink, width=max(2, int(fs * 0.045)))
        yb = ay + fs * 0.35
        ans_boxes.append((x, yb - fs * page.ans_gap * prob["answer_lines"], x + col_w, yb))
    return {"boxes": boxes, "label_box": lab_box, "opt_boxes": opt_boxes, "ans_boxes": ans_boxes,
            "bottom": yb, "n_lines": len(lines), "line_ends": line_ends, "first_base": y + fs * 0.9,
            "text_x0": text_x0, "label_w": lab_w}


def choose_weighted(rng, items):
    tot = sum(w for _, w in items)
    r = rng.random() * tot
    for it, w in items:
        r -= w
        if r <= 0:
            return it
    return items[-1][0]


def build_page(rng, target, bank, frame_wh, narrow_level=0):
    W, H = frame_wh
    pg = Page()
    lang = target["lang"]
    pg.lang = lang
    fams = ZH_FAMILIES if lang == "zh" else EN_FAMILIES
    fam = rng.choice(fams)
    pg.font_name = fam[0]
    fs = rng.uniform(44, 58)
    pg.fs = fs
    weight = rng.random()
    fake = 0
    if weight < 0.12:
        fake = 1  # semi-bold print (fake bold by stroke)
        pg.weight = "fakebold"
    elif weight < 0.2:
        pg.weight = "bold"
    else:
        pg.weight = "regular"
    pg.ty = Typo(fam, fs, bold=(pg.weight == "bold"), fake_bold=fake, lang=lang)
    pg.ty_bold = Typo(fam, fs, bold=True, fake_bold=0, lang=lang)
    pg.num_style = choose_weighted(rng, NUMBER_STYLES_ZH if lang == "zh" else NUMBER_STYLES_EN)
    pg.num_bold = rng.random() < 0.3
    pg.label_gap = rng.uniform(0.25, 0.7)
    pg.indent = choose_weighted(rng, [("hanging", 5), ("flush", 3), ("indent", 1.5)])
    pg.line_h = fs * rng.uniform(1.4, 1.85)
    pg.blank_scale = rng.uniform(0.8, 1.4)
    pg.score_fmt = None
    if rng.random() < 0.22:
        pg.score_fmt = rng.choice(ZH_SCORES if lang == "zh" else EN_SCORES)
    pg.opt_labels = rng.choice(OPT_LABELS)
    toner = rng.random()
    base_ink = int(rng.uniform(10, 45)) if toner < 0.8 else int(rng.uniform(55, 85))
    pg.ink = (base_ink, base_ink + rng.randint(-3, 3), base_ink + rng.randint(0, 8))
    pg.num_ink = pg.ink
    pg.rule_ink = tuple(int(min(200, c + rng.uniform(40, 110))) for c in pg.ink)
    pg.ans_gap = rng.uniform(1.5, 2.0)
    ans_mode = rng.random()
    pg.answer_lines = 0
    pg.ans_prompt = None
    if ans_mode < 0.25:
        pg.answer_lines = rng.randint(1, 3)
        if rng.random() < 0.35:
            pg.ans_prompt = rng.choice(["答：", "解："]) if lang == "zh" else rng.choice(["Answer:", "Ans:"])
    elif ans_mode < 0.4:
        pg.answer_space = True
    # columns
    portrait = H > W
    two_col = rng.random() < (0.42 if not portrait else 0.5)
    if narrow_level >= 2:
        two_col = True
    if two_col:
        col_w = fs * rng.uniform(17, 25) * (0.85 ** max(0, narrow_level - 2))
        gutter = fs * rng.uniform(0.8, 4.5)
        ncols = 2
    else:
        hi = 42 if not portrait else 34
        col_w = fs * rng.uniform(24, hi) * (0.85 ** narrow_level)
        gutter = 0
        ncols = 1
    # keep long targets on at most 4 lines
    probe = shape(target["question"], pg.ty)
    for _ in range(12):
        if len(break_lines(probe, col_w - fs * 2.5, col_w - fs)) <= 4:
            break
        col_w *= 1.12
    pg.two_col = two_col
    pg.gutter = gutter
    pg.col_w = col_w
    ml = fs * rng.uniform(3.0, 6.5)
    mt = fs * rng.uniform(3.5, 7.0)
    pw = int(2 * ml + ncols * col_w + gutter * (ncols - 1))
    pg.margin_l, pg.margin_t = ml, mt
    ph_est = int(pw * rng.uniform(1.3, 1.45))
    # header
    hdr_kinds = []
    if rng.random() < 0.5:
        opts = ["title", "name_line", "section", "hw_question" if lang == "en" or rng.random() < 0.25 else "zh_question"]
        k = rng.choice(opts)
        hdr_kinds.append(k)
        if k == "title" and rng.random() < 0.5:
            hdr_kinds.append("name_line")
        if k in ("title", "name_line") and rng.random() < 0.5:
            hdr_kinds.append("section")
        if k == "zh_question" and lang == "en":
            hdr_kinds[-1] = "hw_question"
    pg.header_kinds = hdr_kinds
    header_mode = bool(hdr_kinds)

    # decide target column and index
    tcol = rng.randrange(ncols)
    if header_mode:
        tidx = 0 if rng.random() < 0.6 else 1
        if ncols == 2 and rng.random() < 0.6:
            tcol = 0
    else:
        tidx = rng.randint(1, 4) if rng.random() < 0.93 else 0
    # numbering
    start = rng.randint(1, 9)
    pg.start = start
    # render
    img = Image.new("RGB", (pw, ph_est + int(fs * 60)), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    elements = []
    y = mt
    for hk in hdr_kinds:
        if hk == "section":
            lines = [(section_text(rng, lang), "header:section", "left", rng.uniform(1.0, 1.15), True)]
        else:
            lines = header_lines(rng, lang, target["subject"], hk)
        for (t, role, align, scale, bold) in lines:
            hty = Typo(fam, fs * scale, bold=bold, lang=lang)
            toks = shape(t, hty)
            w = line_width(toks)
            if align == "center":
                hx = (pw - w) / 2
            else:
                hx = ml
            base = y + fs * scale * 0.95
            draw_line(draw, hx, base, toks, pg.ink, fs * scale)
            elements.append({"kind": "header", "role": role, "text": t,
                             "boxes": [(hx, base - fs * scale * 0.9, hx + w, base + fs * scale * 0.3)]})
            y = base + fs * scale * 0.3 + fs * rng.uniform(0.6, 1.4)
    if hdr_kinds and rng.random() < 0.3:
        draw.line([(ml, y), (pw - ml, y)], fill=pg.rule_ink, width=max(2, int(fs * 0.05)))
        y += fs * 0.6
    col_top = y + fs * rng.uniform(0.2, 0.8)
    pg.col_top = col_top
    gap_p = fs * rng.uniform(0.5, 2.0)
    if getattr(pg, "answer_space", False):
        gap_p += fs * rng.uniform(2.5, 5.0)
    pg.gap_p = gap_p
    used = set([target["id"]])
    num = start
    page_bottom = ph_est - mt
    target_info = None
    col_x = [ml + c * (col_w + gutter) for c in range(ncols)]
    mid_section_done = bool(hdr_kinds and "section" in hdr_kinds)
    for c in range(ncols):
        yy = col_top
        idx = 0
        while True:
            is_t = (c == tcol and idx == tidx)
            if not is_t and yy > page_bottom and not (c == tcol and idx < tidx):
                break
            if is_t:
                prob = {"text": target["question"], "options": None, "num": num, "role": "target"}
            else:
                prob = pick_neighbour(rng, lang, target, bank, used)
                prob["num"] = num
                prob["role"] = "neighbour"
            prob["answer_lines"] = pg.answer_lines if pg.answer_lines else 0
            if pg.num_style == "circled" and num > 20:
                prob["num"] = num  # falls back to (n)
            # a mid-column section heading right before a problem (sometimes the target)
            if not mid_section_done and idx > 0 and rng.random() < 0.18:
                st = section_text(rng, lang)
                hty = Typo(fam, fs * 1.05, bold=True, lang=lang)
                toks = shape(st, hty)
                base = yy + fs * 0.95
                draw_line(draw, col_x[c], base, toks, pg.ink, fs * 1.05)
                elements.append({"kind": "header", "role": "section_mid", "text": st, "col": c,
                                 "boxes": [(col_x[c], base - fs, col_x[c] + line_width(toks), base + fs * 0.3)]})
                yy = base + fs * 0.3 + fs * 0.7
                mid_section_done = True
            geo = layout_problem(draw, pg, prob, col_x[c], yy, col_w)
            el = {"kind": "problem", "role": prob["role"], "col": c, "idx": idx, "num": num,
                  "text": prob["text"], "src": prob.get("src", "target"), "bank_id": prob.get("bank_id"),
                  "has_options": bool(prob.get("options")), "boxes": geo["boxes"], "label_box": geo["label_box"],
                  "opt_boxes": geo["opt_boxes"], "ans_boxes": geo["ans_boxes"], "geo": geo,
                  "has_blank": "__" in prob["text"], "has_bracket": "（　　）" in prob["text"] or "(    )" in prob["text"]}
            elements.append(el)
            if is_t:
                target_info = el
            yy = geo["bottom"] + gap_p
            num += 1
            idx += 1
            if yy > page_bottom + fs * 40:
                break
        if c == 0 and ncols == 2 and rng.random() < 0.5:
            # vertical rule in the gutter
            gx = col_x[0] + col_w + gutter / 2
            pg.gutter_rule = True
            draw.line([(gx, col_top), (gx, page_bottom)], fill=pg.rule_ink, width=max(2, int(fs * 0.04)))
    ph = int(max(ph_est, max(max(b[3] for b in e["boxes"]) for e in elements) + mt))
    img = img.crop((0, 0, pw, ph))
    pg.img = img
    pg.W, pg.H = pw, ph
    pg.elements = elements
    pg.target = target_info
    pg.tcol = tcol
    pg.ncols = ncols
    pg.col_x = col_x
    return pg


# --------------------------------------------------------------------------- pen marks on paper
def box_overlap(a, b, pad=0.0):
    return not (a[2] + pad <= b[0] or b[2] + pad <= a[0] or a[3] + pad <= b[1] or b[3] + pad <= a[1])


def all_text_boxes(pg):
    out = []
    for e in pg.elements:
        out += list(e["boxes"])
        if e.get("label_box"):
            out.append(e["label_box"])
        out += e.get("opt_boxes", [])
        out += [b for b in e.get("ans_boxes", [])[:-1]]
    return out


def wobble_poly(rng, pts, amp):
    return [(x + rng.uniform(-amp, amp), y + rng.uniform(-amp, amp)) for x, y in pts]


def draw_marks(rng, pg):
    """Draw pen marks / highlighter on the page. Returns list of (case, box)."""
    fs = pg.fs
    t = pg.target
    g = t["geo"]
    img = pg.img
    marks = []
    boxes = all_text_boxes(pg)
    pen_cols = [(200, 30, 35), (30, 50, 170), (25, 25, 30), (215, 40, 60)]
    ink = rng.choice(pen_cols)
    overlay = Image.new("L", img.size, 0)
    od = ImageDraw.Draw(overlay)
    lw = max(3, int(fs * rng.uniform(0.07, 0.12)))
    choice = rng.random()
    kinds = []
    if choice < 0.55:
        kinds.append(rng.choice(["tick", "tick", "cross", "star", "circle_number"]))
        if rng.random() < 0.25:
            kinds.append(rng.choice(["tick", "star", "circle_number"]))
    kinds = list(dict.fromkeys(kinds))
    for k in kinds:
        if k == "circle_number":
            lb = t["label_box"]
            gapx = min(fs * 0.2, (g["text_x0"] - lb[2]) * 0.6 + fs * 0.05)
            cx = (lb[0] + lb[2]) / 2
            cy = (lb[1] + lb[3]) / 2 + fs * 0.05
            rx = (lb[2] - lb[0]) / 2 + gapx
            ry = (lb[3] - lb[1]) / 2 + fs * 0.12
            a0 = rng.uniform(0, 2 * math.pi)
            pts = []
            for i in range(40):
                a = a0 + i / 36.0 * 2 * math.pi
                r = 1 + 0.05 * math.sin(3 * a + a0) + rng.uniform(-0.015, 0.015)
                pts.append((cx + rx * r * math.cos(a), cy + ry * r * math.sin(a)))
            od.line(pts, fill=255, width=lw, joint="curve")
            marks.append(("pen_mark:circled_number", (cx - rx, cy - ry, cx + rx, cy + ry)))
            continue
        sz = fs * rng.uniform(1.0, 1.7)
        cands = []
        ex, eb = g["line_ends"][-1]
        cands.append((ex + fs * rng.uniform(0.6, 2.0), eb - sz * 0.8))
        ex0, eb0 = g["line_ends"][0]
        cands.append((ex0 + fs * rng.uniform(0.6, 2.0), eb0 - sz * 0.8))
        lb = t["label_box"]
        cands.append((lb[0] - sz - fs * rng.uniform(0.3, 1.0), lb[1] - fs * 0.1))
        rng.shuffle(cands)
        placed = None
        for (mx, my) in cands:
            mb = (mx, my, mx + sz, my + sz)
            if mb[0] < fs * 0.3 or mb[2] > pg.W - fs * 0.3 or mb[1] < 0 or mb[3] > pg.H:
                continue
            if any(box_overlap(mb, b, fs * 0.15) for b in boxes):
                continue
            placed = mb
            break
        if placed is None:
            continue
        boxes.append(placed)  # later marks must not land on this one
        x0, y0, x1, y1 = placed
        if k == "tick":
            pts = [(x0 + 0.05 * sz, y0 + 0.55 * sz), (x0 + 0.35 * sz, y0 + 0.9 * sz), (x0 + 0.95 * sz, y0 + 0.05 * sz)]
            pts = wobble_poly(rng, pts, sz * 0.04)
            od.line(pts, fill=255, width=lw, joint="curve")
        elif k == "cross":
            a = wobble_poly(rng, [(x0 + 0.1 * sz, y0 + 0.1 * sz), (x0 + 0.9 * sz, y0 + 0.9 * sz)], sz * 0.05)
            b = wobble_poly(rng, [(x0 + 0.9 * sz, y0 + 0.1 * sz), (x0 + 0.1 * sz, y0 + 0.9 * sz)], sz * 0.05)
            od.line(a, fill=255, width=lw)
            od.line(b, fill=255, width=lw)
        elif k == "star":
            cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, sz * 0.48
            pts = []
            for i in range(6):
                a = -math.pi / 2 + i * 4 * math.pi / 5
                pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
            pts = wobble_poly(rng, pts, sz * 0.03)
            od.line(pts, fill=255, width=max(3, int(lw * 0.8)), joint="curve")
        marks.append(("pen_mark:" + k, placed))
    # highlighter on a neighbour line
    if rng.random() < 0.22:
        nbs = [e for e in pg.elements if e["kind"] == "problem" and e["role"] == "neighbour"
               and e["col"] == t["col"] and abs(e["idx"] - t["idx"]) == 1]
        if nbs:
            nb = rng.choice(nbs)
            bx = nb["boxes"][-1] if nb["idx"] < t["idx"] else nb["boxes"][0]
            hl_col = rng.choice([(255, 240, 60), (150, 255, 120), (255, 150, 200), (120, 220, 255)])
            hb = (bx[0] + rng.uniform(0, 0.3) * (bx[2] - bx[0]), bx[1] + fs * 0.1,
                  bx[2] + fs * rng.uniform(-0.5, 0.4), bx[3] - fs * 0.02)
            if not any(box_overlap(hb, tb, 1) for tb in t["boxes"] + [t["label_box"]]):
                arr = np.asarray(img).astype(np.float32)
                m = Image.new("L", img.size, 0)
                md = ImageDraw.Draw(m)
                md.rounded_rectangle(hb, radius=fs * 0.15, fill=255)
                ma = np.asarray(m).astype(np.float32)[..., None] / 255.0 * rng.uniform(0.55, 0.85)
                col = np.array(hl_col, np.float32)[None, None] / 255.0
                arr = arr * (1 - ma) + arr * col * ma
                img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
                marks.append(("highlighter_neighbour", hb))
    if any(m[0].startswith("pen_mark") for m in marks):
        arr = np.asarray(img).astype(np.float32)
        a = np.asarray(overlay).astype(np.float32)[..., None] / 255.0 * rng.uniform(0.8, 0.95)
        arr = arr * (1 - a) + np.array(ink, np.float32)[None, None] * a
        img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    pg.img = img
    return marks


# --------------------------------------------------------------------------- geometry
def mat_affine(s, theta, c_src, c_dst):
    ct, st = math.cos(theta), math.sin(theta)
    A = np.array([[s * ct, -s * st, 0], [s * st, s * ct, 0], [0, 0, 1]], np.float64)
    T1 = np.array([[1, 0, -c_src[0]], [0, 1, -c_src[1]], [0, 0, 1]], np.float64)
    T2 = np.array([[1, 0, c_dst[0]], [0, 1, c_dst[1]], [0, 0, 1]], np.float64)
    return T2 @ A @ T1


def apply_h(Hm, pts):
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ Hm.T
    return p[:, :2] / p[:, 2:3]


def box_pts(b, nx=6, ny=3):
    xs = np.linspace(b[0], b[2], nx)
    ys = np.linspace(b[1], b[3], ny)
    return np.array([(x, y) for y in ys for x in xs])


class Curl:
    def __init__(self, rng, W, H, kind):
        self.kind = kind
        self.W, self.H = W, H
        self.amp = 0.0
        if kind == "bow":
            self.amp = rng.uniform(4, 12) * rng.choice([-1, 1])
            self.axis = rng.choice(["x", "y"])
        elif kind == "edge":
            self.amp = rng.uniform(8, 22)
            self.side = rng.choice(["left", "right", "bottom", "top"])
            self.frac = rng.uniform(0.12, 0.3)

    def disp(self, u, v):
        W, H = self.W, self.H
        if self.kind == "bow":
            if self.axis == "x":
                t = (2 * u / W - 1)
                return 0 * u, self.amp * (t * t - 0.33)
            t = (2 * v / H - 1)
            return self.amp * (t * t - 0.33), 0 * v
        if self.kind == "edge":
            if self.side == "left":
                t = np.clip((self.frac * W - u) / (self.frac * W), 0, 1)
                return self.amp * 0.4 * t * t, -self.amp * t * t
            if self.side == "right":
                t = np.clip((u - (1 - self.frac) * W) / (self.frac * W), 0, 1)
                return -self.amp * 0.4 * t * t, -self.amp * t * t
            if self.side == "top":
                t = np.clip((self.frac * H - v) / (self.frac * H), 0, 1)
                return -self.amp * t * t, self.amp * 0.4 * t * t
            t = np.clip((v - (1 - self.frac) * H) / (self.frac * H), 0, 1)
            return self.amp * t * t, -self.amp * 0.4 * t * t
        return 0 * u, 0 * v

    def shade(self, U, V):
        if self.kind == "edge":
            dx, dy = self.disp(U, V)
            mag = np.sqrt(dx * dx + dy * dy) / max(1e-6, self.amp)
            return 1 - 0.18 * mag
        if self.kind == "bow":
            dx, dy = self.disp(U, V)
            g = (dy if self.axis == "x" else dx) / max(1e-6, abs(self.amp))
            return 1 + 0.05 * g
        return np.ones_like(U)


def forward(Hm, curl, pts):
    q = apply_h(Hm, pts)
    if curl is not None:
        dx, dy = curl.disp(q[:, 0], q[:, 1])
        q = q + np.stack([dx, dy], 1)
    return q


def tilt_homography(W, H, pitch_deg, yaw_deg, f):
    K = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1]], np.float64)
    a, b = math.radians(pitch_deg), math.radians(yaw_deg)
    Rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    Ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    P = K @ Ry @ Rx @ np.linalg.inv(K)
    c = apply_h(P, [(W / 2, H / 2)])[0]
    T = np.array([[1, 0, W / 2 - c[0]], [0, 1, H / 2 - c[1]], [0, 0, 1]], np.float64)
    P = T @ P
    return P / P[2, 2]


def choose_camera(rng, pg, W, H, screen):
    fs = pg.fs
    t = pg.target
    tb = list(t["boxes"]) + [t["label_box"]]
    tx0 = min(b[0] for b in tb)
    ty0 = min(b[1] for b in tb)
    tx1 = max(b[2] for b in tb)
    ty1 = max(b[3] for b in tb)
    c_t = ((tx0 + tx1) / 2, (ty0 + ty1) / 2)
    tw, th = tx1 - tx0, ty1 - ty0
    others = []
    for e in pg.elements:
        if e is t:
            continue
        bb = list(e["boxes"]) + ([e["label_box"]] if e.get("label_box") else []) + e.get("opt_boxes", [])
        others.append((min(b[0] for b in bb), min(b[1] for b in bb), max(b[2] for b in bb), max(b[3] for b in bb)))
    tpts = np.concatenate([box_pts(b, 5, 2) for b in tb])
    m = 28
    too_small = 0
    for attempt in range(80):
        relax = min(1.0, attempt / 40.0)
        theta_deg = float(np.clip(rng.gauss(0, 3.6), -8, 8)) * (1 - 0.5 * relax)
        th_r = math.radians(theta_deg)
        wr = tw * abs(math.cos(th_r)) + th * abs(math.sin(th_r))
        hr = tw * abs(math.sin(th_r)) + th * abs(math.cos(th_r))
        s_fit = min((W - 2 * m) / wr, (H - 2 * m) / hr) * 0.88
        out_fs = math.exp(rng.uniform(math.log(24), math.log(58)))
        s = min(out_fs / fs, s_fit)
        if s * fs < 17.5:
            too_small += 1
            if too_small > 12:
                return None
            continue
        slack_x = max(0.0, (W - 2 * m - wr * s) / 2)
        slack_y = max(0.0, (H - 2 * m - hr * s) / 2)
        offmag = rng.choice([0.15, 0.4, 0.7, 1.0]) * (1 - 0.7 * relax)
        ox = rng.uniform(-1, 1) * min(slack_x, 0.16 * W) * offmag
        oy = rng.uniform(-1, 1) * min(slack_y, 0.16 * H) * offmag
        A = mat_affine(s, th_r, c_t, (W / 2 + ox, H / 2 + oy))
        # camera tilt: pinhole camera rotated about the x / y axes (keystone, no shear)
        tilt_max = 16.0 * (1 - 0.6 * relax)
        pitch = float(np.clip(rng.gauss(0, 6.5), -tilt_max, tilt_max))
        yaw = float(np.clip(rng.gauss(0, 6.0), -tilt_max, tilt_max))
        P = tilt_homography(W, H, pitch, yaw, rng.uniform(0.8, 1.25) * max(W, H))
        pj = max(abs(pitch), abs(yaw))
        Hm = P @ A
        ck = rng.random()
        curl = Curl(rng, W, H, "none" if ck < 0.45 else ("bow" if ck < 0.75 else "edge"))
        q = forward(Hm, curl, tpts)
        if q[:, 0].min() < m or q[:, 0].max() > W - m or q[:, 1].min() < m or q[:, 1].max() > H - m:
            continue
        # local text size at target centre
        c = apply_h(Hm, [c_t, (c_t[0] + fs, c_t[1]), (c_t[0], c_t[1] + fs)])
        loc = min(np.hypot(*(c[1] - c[0])), np.hypot(*(c[2] - c[0])))
        if loc < 18.0:
            continue
        # the frame centre must clearly be on the target
        Hi = np.linalg.inv(Hm)
        cp = apply_h(Hi, [(W / 2, H / 2)])[0]

        def dist(b):
            dx = max(b[0] - cp[0], 0, cp[0] - b[2])
            dy = max(b[1] - cp[1], 0, cp[1] - b[3])
            return math.hypot(dx, dy)
        dt = dist((tx0, ty0, tx1, ty1))
        do = min([dist(b) for b in others] or [1e9])
        if not (dt <= min(1.0 * fs, 0.35 * do) or (dt == 0 and do > fs * 0.5)):
            continue
        if screen:
            curl.kind = "none"  # screens are flat
        if curl.kind == "edge":
            # no curl distortion over the target itself
            mag = np.hypot(*curl.disp(q[:, 0], q[:, 1]))
            if mag.max() > 3:
                curl.kind = "none"
        return {"H": Hm, "s": s, "theta": theta_deg, "curl": curl, "persp": pj, "out_fs": loc,
                "offset": (ox / W, oy / H), "c_t": c_t}
    return None


# --------------------------------------------------------------------------- textures
def lowfreq(nrng, W, H, cells=6, amp=1.0):
    g = nrng.standard_normal((cells, max(2, int(cells * W / H)))).astype(np.float32)
    return cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC) * amp


def desk_texture(rng, nrng, W, H):
    kind = rng.choice(["wood", "wood", "plain", "fabric", "dark", "cloth_light"])
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    if kind == "wood":
        base = np.array(rng.choice([(150, 105, 70), (180, 135, 90), (120, 80, 50), (200, 165, 120)]), np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        warp = lowfreq(nrng, W, H, 5, 25)
        grain = np.sin((u + warp) * rng.uniform(0.03, 0.09)) * 0.5 + 0.5
        fine = nrng.standard_normal((H, W)).astype(np.float32)
        fine = cv2.GaussianBlur(fine, (0, 0), 1.2) * 0.04
        tex = base[None, None] * (0.82 + 0.22 * grain[..., None] + fine[..., None])
    elif kind == "plain":
        base = np.array(rng.choice([(205, 205, 200), (170, 180, 190), (230, 225, 210), (120, 130, 120)]), np.float32)
        tex = base[None, None] * (1 + lowfreq(nrng, W, H, 4, 0.05)[..., None])
    elif kind == "fabric":
        base = np.array(rng.choice([(60, 70, 110), (110, 50, 50), (80, 90, 80)]), np.float32)
        n = nrng.standard_normal((H, W)).astype(np.float32) * 0.08
        tex = base[None, None] * (1 + n[..., None] + lowfreq(nrng, W, H, 4, 0.06)[..., None])
    elif kind == "cloth_light":
        base = np.array((225, 220, 205), np.float32)
        tex = base[None, None] * (1 + 0.03 * np.sin(xx * 0.9)[..., None] * np.sin(yy * 0.9)[..., None]
                                  + lowfreq(nrng, W, H, 4, 0.04)[..., None])
    else:
        base = np.array(rng.choice([(35, 35, 38), (50, 45, 40)]), np.float32)
        tex = base[None, None] * (1 + nrng.standard_normal((H, W, 1)).astype(np.float32) * 0.06)
    return np.clip(tex, 0, 255), kind


def paper_color(rng):
    return np.array(rng.choice([(250, 249, 244), (246, 245, 240), (252, 252, 250), (244, 240, 228),
                                (240, 242, 244), (248, 246, 236)]), np.float32)


# --------------------------------------------------------------------------- occluders (output space)
def capsule_mask(W, H, p0, p1, width, ss=2):
    m = np.zeros((H * ss, W * ss), np.uint8)
    a = (int(p0[0] * ss), int(p0[1] * ss))
    b = (int(p1[0] * ss), int(p1[1] * ss))
    cv2.line(m, a, b, 255, int(width * ss), cv2.LINE_AA)
    cv2.circle(m, b, int(width * ss / 2), 255, -1, cv2.LINE_AA)
    cv2.circle(m, a, int(width * ss / 2), 255, -1, cv2.LINE_AA)
    return cv2.resize(m, (W, H), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def edge_point(rng, W, H, edge, t):
    if edge == "left":
        return np.array([0.0, t * H]), np.array([1.0, 0.0])
    if edge == "right":
        return np.array([float(W), t * H]), np.array([-1.0, 0.0])
    if edge == "top":
        return np.array([t * W, 0.0]), np.array([0.0, 1.0])
    return np.array([t * W, float(H)]), np.array([0.0, -1.0])


def draw_finger(rng, img, tmask, W, H):
    for _ in range(60):
        edge = rng.choice(["left", "right", "bottom", "bottom", "top"])
        t = rng.uniform(0.1, 0.9)
        p_edge, n = edge_point(rng, W, H, edge, t)
        ang = math.atan2(n[1], n[0]) + math.radians(rng.uniform(-35, 35))
        d = np.array([math.cos(ang), math.sin(ang)])
        wdt = rng.uniform(0.09, 0.14) * min(W, H)
        L = rng.uniform(0.7, 2.0) * wdt
        p0 = p_edge - d * wdt * 1.5
        p1 = p_edge + d * L
        m = capsule_mask(W, H, p0, p1, wdt)
        if (m > 0.02)[tmask].any():
            continue
        break
    else:
        return img, None
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    # distance from axis for cylindrical shading
    rel = np.stack([xx - p0[0], yy - p0[1]], -1)
    perp = np.abs(rel[..., 0] * (-d[1]) + rel[..., 1] * d[0]) / (wdt / 2)
    along = rel[..., 0] * d[0] + rel[..., 1] * d[1]
    skin = np.array(rng.choice([(226, 182, 150), (205, 155, 120), (170, 120, 90), (235, 195, 170)]), np.float32)
    shade = 1 - 0.38 * np.clip(perp, 0, 1) ** 2 + 0.08 * np.exp(-((perp - 0.25) ** 2) / 0.02)
    col = skin[None, None] * shade[..., None]
    # nail
    tip_along = np.linalg.norm(p1 - p0)
    nail = np.exp(-(((along - (tip_along - wdt * 0.05)) / (wdt * 0.33)) ** 2) - (perp / 0.55) ** 4)
    nail = (nail > 0.5).astype(np.float32)
    nail = cv2.GaussianBlur(nail, (0, 0), 1.5)
    nail_col = np.array((240, 200, 190), np.float32)
    col = col * (1 - 0.6 * nail[..., None]) + nail_col[None, None] * 0.6 * nail[..., None] * shade[..., None]
    # knuckle crease
    crease = np.exp(-(((along - (tip_along - wdt * 1.3)) / 2.5) ** 2)) * (perp < 0.8)
    col = col * (1 - 0.18 * crease[..., None])
    blur = rng.uniform(1.5, 4.0)
    m = cv2.GaussianBlur(m, (0, 0), blur * 0.6)
    col = cv2.GaussianBlur(col, (0, 0), blur)
    # shadow
    off = rng.uniform(8, 22)
    sm = np.roll(np.roll(m, int(off), 1), int(off * 0.8), 0)
    sm = cv2.GaussianBlur(sm, (0, 0), 12)
    img = img * (1 - 0.45 * sm[..., None])
    img = img * (1 - m[..., None]) + col * m[..., None]
    return img, {"edge": edge, "mask": m}


def draw_pen(rng, img, tmask, W, H):
    for _ in range(60):
        edge = rng.choice(["left", "right", "bottom", "top"])
        wdt = rng.uniform(18, 32)
        inset = rng.uniform(0.02, 0.12)
        ang_off = math.radians(rng.uniform(-20, 20))
        if edge in ("top", "bottom"):
            yb = inset * H if edge == "top" else (1 - inset) * H
            cx = rng.uniform(0.2, 0.8) * W
            dvec = np.array([math.cos(ang_off), math.sin(ang_off)])
            c = np.array([cx, yb])
        else:
            xb = inset * W if edge == "left" else (1 - inset) * W
            cy = rng.uniform(0.2, 0.8) * H
            dvec = np.array([math.sin(ang_off), math.cos(ang_off)])
            c = np.array([xb, cy])
        L = rng.uniform(0.5, 0.9) * max(W, H)
        if rng.random() < 0.5:
            dvec = -dvec
        p0 = c - dvec * L * rng.uniform(0.55, 0.9)
        p1 = c + dvec * L * 0.35
        m = capsule_mask(W, H, p0, p1, wdt)
        if (m > 0.02)[tmask].any():
            continue
        # tip (p1) cone and cap
        break
    else:
        return img, None
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    d = (p1 - p0) / np.linalg.norm(p1 - p0)
    rel = np.stack([xx - p0[0], yy - p0[1]], -1)
    perp = (rel[..., 0] * (-d[1]) + rel[..., 1] * d[0]) / (wdt / 2)
    along = rel[..., 0] * d[0] + rel[..., 1] * d[1]
    Ltot = np.linalg.norm(p1 - p0)
    body = np.array(rng.choice([(30, 60, 160), (20, 20, 25), (190, 30, 40), (230, 230, 235), (240, 200, 40)]),
                    np.float32)
    shade = 1 - 0.45 * np.clip(np.abs(perp), 0, 1) ** 2 + 0.35 * np.exp(-((perp + 0.35) ** 2) / 0.02)
    col = body[None, None] * shade[..., None]
    tipzone = np.clip((along - (Ltot - wdt * 2.2)) / (wdt * 2.2), 0, 1)
    metal = np.array((170, 170, 175), np.float32)[None, None] * shade[..., None]
    col = col * (1 - tipzone[..., None]) + metal * tipzone[..., None]
    # taper the tip
    taper = np.clip(1 - tipzone * 0.85, 0.15, 1)
    m = m * (np.abs(perp) <= taper + 0.05)
    m = cv2.GaussianBlur(m.astype(np.float32), (0, 0), 1.0)
    blur = rng.uniform(0.8, 2.5)
    col = cv2.GaussianBlur(col, (0, 0), blur)
    off = rng.uniform(6, 16)
    sm = np.roll(np.roll(m, int(off), 1), int(off), 0)
    sm = cv2.GaussianBlur(sm, (0, 0), 6)
    img = img * (1 - 0.4 * sm[..., None])
    img = img * (1 - m[..., None]) + col * m[..., None]
    return img, {"edge": edge, "mask": m}


# --------------------------------------------------------------------------- rendering
def inverse_maps(Hm, curl, W, H, ss=1):
    ys, xs = np.mgrid[0:H * ss, 0:W * ss].astype(np.float32)
    u = (xs + 0.5) / ss - 0.5
    v = (ys + 0.5) / ss - 0.5
    if curl is not None and curl.kind != "none":
        dx, dy = curl.disp(u, v)
        u = u - dx
        v = v - dy
    Hi = np.linalg.inv(Hm)
    den = Hi[2, 0] * u + Hi[2, 1] * v + Hi[2, 2]
    px = (Hi[0, 0] * u + Hi[0, 1] * v + Hi[0, 2]) / den
    py = (Hi[1, 0] * u + Hi[1, 1] * v + Hi[1, 2]) / den
    return px.astype(np.float32), py.astype(np.float32)


def render_paper(rng, nrng, pg, cam, W, H, info):
    s = cam["s"]
    page = np.asarray(pg.img).astype(np.float32)
    pc = paper_color(rng)
    page = page / 255.0 * pc[None, None]
    if rng.random() < 0.35:
        ghost = np.roll(page[:, ::-1], int(rng.uniform(0.3, 0.7) * pg.line_h), 0)
        ghost = cv2.GaussianBlur(ghost, (0, 0), pg.fs * 0.12)
        a = rng.uniform(0.015, 0.04)
        page = page * (1 - a) + page * (ghost / pc[None, None]) * a
        info.append("paper_show_through")
    f = min(1.0, s * 1.4)
    if f < 1.0:
        small = cv2.resize(page, (max(2, int(pg.W * f)), max(2, int(pg.H * f))), interpolation=cv2.INTER_AREA)
    else:
        small = page
    px, py = inverse_maps(cam["H"], cam["curl"], W, H)
    fx = small.shape[1] / pg.W
    fy = small.shape[0] / pg.H
    mx, my = px * fx, py * fy
    warped = cv2.remap(small, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    ones = np.ones(small.shape[:2], np.float32)
    alpha = cv2.remap(ones, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    desk, dk = desk_texture(rng, nrng, W, H)
    if alpha.min() < 0.99:
        info.append("page_edge_visible")
        info.append("desk:" + dk)
    sh = cv2.GaussianBlur(alpha, (0, 0), 10)
    sh = np.roll(np.roll(sh, 6, 1), 9, 0)
    desk = desk * (1 - 0.45 * sh[..., None])
    # paper texture
    tex = 1 + lowfreq(nrng, W, H, 7, 0.012)[..., None] + nrng.standard_normal((H, W, 1)).astype(np.float32) * 0.008
    warped = warped * tex
    out = warped * alpha[..., None] + desk * (1 - alpha[..., None])
    if cam["curl"].kind != "none":
        U, V = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
        out = out * cam["curl"].shade(U, V)[..., None]
    return out


def render_screen(rng, nrng, pg, cam, W, H, info, tbox_page):
    """Photo of a phone / laptop screen showing the page: pixel grid, moire, glare."""
    s = cam["s"]
    fs = pg.fs
    kind = rng.choice(["phone", "laptop", "monitor"])
    pitch_out = rng.uniform(0.55, 1.25)  # screen pixel size in output pixels
    pitch_out = min(pitch_out, cam["out_fs"] / 15.0)
    p = pitch_out / s  # page px per screen px
    # viewport (page coords) shown on screen
    tx0, ty0, tx1, ty1 = tbox_page
    Hi = np.linalg.inv(cam["H"])
    cs = apply_h(Hi, [(0, 0), (W, 0), (W, H), (0, H)])
    fx0, fy0 = cs[:, 0].min(), cs[:, 1].min()
    fx1, fy1 = cs[:, 0].max(), cs[:, 1].max()
    cxm, cym = (fx0 + fx1) / 2, (fy0 + fy1) / 2
    if kind == "phone":
        # a phone held in front of the camera: portrait screen, bezel at the sides
        vw_ = (fx1 - fx0) * rng.uniform(0.62, 0.95)
        vh_ = vw_ * rng.uniform(1.7, 2.1)
    else:
        scale = rng.uniform(0.8, 1.3)
        vw_ = (fx1 - fx0) * scale
        vh_ = (fy1 - fy0) * scale * rng.uniform(0.85, 1.1)
    vx0 = cxm - vw_ / 2 + rng.uniform(-0.12, 0.12) * vw_
    vy0 = cym - vh_ / 2 + rng.uniform(-0.12, 0.12) * vh_
    vx0 = min(vx0, tx0 - fs * 0.6)
    vy0 = min(vy0, ty0 - fs * 0.6)
    vx1 = max(vx0 + vw_, tx1 + fs * 0.6)
    vy1 = max(vy0 + vh_, ty1 + fs * 0.6)
    sw = max(8, int((vx1 - vx0) / p))
    shh = max(8, int((vy1 - vy0) / p))
    # screen content at screen resolution: page (with viewer background outside the page)
    dark_ui = rng.random() < 0.3
    ui_bg = np.array((60, 62, 66) if dark_ui else (215, 218, 222), np.float32)
    page = np.asarray(pg.img).astype(np.float32)
    M = np.array([[1 / p, 0, -vx0 / p], [0, 1 / p, -vy0 / p]], np.float32)
    # downscale in two steps for quality
    f = min(1.0, 1.5 / p)
    small = cv2.resize(page, (max(2, int(pg.W * f)), max(2, int(pg.H * f))), interpolation=cv2.INTER_AREA)
    M2 = M.copy()
    M2[:, :2] /= f
    scr = cv2.warpAffine(small, M2, (sw, shh), flags=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=tuple(float(c) for c in ui_bg))
    scr_mask = cv2.warpAffine(np.ones(small.shape[:2], np.float32), M2, (sw, shh), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    scr = scr * scr_mask[..., None] + ui_bg[None, None] * (1 - scr_mask[..., None])
    if kind != "phone" and rng.random() < 0.6:
        tb_h = max(3, int(shh * rng.uniform(0.03, 0.06)))
        bar = np.array((45, 45, 50) if dark_ui else (238, 238, 240), np.float32)
        # keep the toolbar off the target
        ty_s = (ty0 - vy0) / p
        if ty_s > tb_h * 2:
            scr[:tb_h] = bar
            for k in range(rng.randint(3, 7)):
                xk = int(sw * (0.02 + 0.05 * k))
                scr[int(tb_h * 0.3):int(tb_h * 0.7), xk:xk + max(2, tb_h // 2)] = (120, 120, 125)
            info.append("screen_toolbar")
    # supersampled point sampling of the subpixel grid -> aliasing / moire
    ss = 2
    px, py = inverse_maps(cam["H"], cam["curl"], W, H, ss=ss)
    sx = (px - vx0) / p
    sy = (py - vy0) / p
    ix = np.floor(sx)
    iy = np.floor(sy)
    fxr = sx - ix
    fyr = sy - iy
    inside = (sx >= 0) & (sx < sw) & (sy >= 0) & (sy < shh)
    val = cv2.remap(scr, np.clip(ix, 0, sw - 1).astype(np.float32), np.clip(iy, 0, shh - 1).astype(np.float32),
                    cv2.INTER_NEAREST)
    sub = np.zeros_like(val)
    layout = rng.choice(["rgb", "bgr"])
    order = [0, 1, 2] if layout == "rgb" else [2, 1, 0]
    # smooth sub-pixel emission profiles: colour stripes (luminance-neutral across R,G,B) and a
    # dark row gap (the black matrix) whose beat with the sensor grid gives luminance moire
    gapy = rng.uniform(0.12, 0.35)
    row = 1.0 - gapy * (0.5 + 0.5 * np.cos(2 * math.pi * fyr))
    for k, ch in enumerate(order):
        col = 1.0 + np.cos(2 * math.pi * (fxr - (k + 0.5) / 3.0))
        sub[..., ch] = val[..., ch] * col * row
    alias = cv2.resize(sub, (W, H), interpolation=cv2.INTER_AREA)
    clean = cv2.resize(val, (W, H), interpolation=cv2.INTER_AREA)
    clean = cv2.GaussianBlur(clean, (0, 0), 0.6)
    a = rng.uniform(0.35, 0.7)
    sat = rng.uniform(0.3, 1.0)
    alias = alias * sat + alias.mean(axis=2, keepdims=True) * (1 - sat)
    content = clean * (1 - a) + alias * a / (1 - gapy * 0.5)
    ins = cv2.resize(inside.astype(np.float32), (W, H), interpolation=cv2.INTER_AREA)
    # explicit low-frequency moire bands
    U, V = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    # low-frequency, curved interference bands (the beat of pixel grid and sensor grid)
    fb = rng.uniform(0.006, 0.025)
    a1 = rng.uniform(0, math.pi)
    warp = lowfreq(nrng, W, H, 3, rng.uniform(20, 90))
    phase = (U * math.cos(a1) + V * math.sin(a1) + warp) * fb * 2 * math.pi
    band = np.cos(phase).astype(np.float32)
    mamp = rng.uniform(0.03, 0.08)
    tint = np.array([rng.uniform(0.9, 1.1), 1.0, rng.uniform(0.9, 1.1)], np.float32)
    content = content * (1 + mamp * band[..., None] * tint[None, None])
    # bezel and surroundings
    bez_w = fs * rng.uniform(0.6, 2.5) / p  # in screen px
    bx = np.maximum(np.maximum(-sx, sx - sw), np.maximum(-sy, sy - shh))
    bezel = (bx > 0) & (bx < bez_w)
    bez = cv2.resize(bezel.astype(np.float32), (W, H), interpolation=cv2.INTER_AREA)
    room, rk = desk_texture(rng, nrng, W, H)
    room = room * rng.uniform(0.35, 0.8)
    bezel_col = np.array(rng.choice([(18, 18, 20), (30, 30, 34), (200, 200, 205)]), np.float32)
    out = content * ins[..., None] + bezel_col[None, None] * bez[..., None] + room * (1 - ins - bez)[..., None].clip(0, 1)
    if ins.min() < 0.99:
        info.append("screen_bezel_visible")
    # black level (screen reflects ambient light), emissive tint
    blk = rng.uniform(8, 35)
    out = out * (1 - blk / 255.0) + blk
    out = out * np.array([rng.uniform(0.92, 1.0), 1.0, rng.uniform(1.0, 1.1)], np.float32)[None, None]
    info.append("screen:" + kind)
    info.append("moire")
    return out, {"pitch_out": pitch_out, "kind": kind, "view": (vx0, vy0, vx1, vy1)}


def glare(rng, img, W, H, tmask_f):
    U, V = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    cx, cy = rng.uniform(0, W), rng.uniform(0, H)
    sx, sy = rng.uniform(0.1, 0.35) * W, rng.uniform(0.08, 0.3) * H
    ang = rng.uniform(0, math.pi)
    xr = (U - cx) * math.cos(ang) + (V - cy) * math.sin(ang)
    yr = -(U - cx) * math.sin(ang) + (V - cy) * math.cos(ang)
    g = np.exp(-(xr / sx) ** 2 - (yr / sy) ** 2)
    if rng.random() < 0.5:
        # a reflected window stripe
        k = np.exp(-(((U - rng.uniform(0, W)) * 0.8 + (V - rng.uniform(0, H)) * 0.6) / rng.uniform(20, 80)) ** 2)
        g = np.maximum(g, 0.6 * k)
    strength = rng.uniform(0.25, 0.6)
    tmax = float((g * tmask_f).max()) if tmask_f.any() else 0
    if tmax * strength > 0.4:
        strength = 0.4 / max(tmax, 1e-6)
    g = g * strength
    return img * (1 - g[..., None]) + 250 * g[..., None]


def lighting(rng, nrng, img, W, H, tmask_f, info):
    U, V = np.meshgrid(np.linspace(-1, 1, W, dtype=np.float32), np.linspace(-1, 1, H, dtype=np.float32))
    base = rng.uniform(0.78, 1.05)
    gx, gy = rng.uniform(-0.22, 0.22), rng.uniform(-0.22, 0.22)
    vig = rng.uniform(0.0, 0.3)
    L = base * (1 + gx * U + gy * V) * (1 - vig * (U * U + V * V) / 2)
    L = L + lowfreq(nrng, W, H, 3, 0.04)
    if abs(gx) + abs(gy) > 0.2 or vig > 0.18:
        info.append("uneven_light")
    if rng.random() < 0.4:
        # soft cast shadow (phone / hand) from one side
        m = np.zeros((H, W), np.float32)
        side = rng.choice(["left", "right", "top", "bottom", "corner"])
        pts = []
        if side == "left":
            x = rng.uniform(0.1, 0.35) * W
            pts = [(0, 0), (x, 0), (x + rng.uniform(-0.1, 0.2) * W, H), (0, H)]
        elif side == "right":
            x = rng.uniform(0.65, 0.9) * W
            pts = [(x, 0), (W, 0), (W, H), (x + rng.uniform(-0.2, 0.1) * W, H)]
        elif side == "top":
            y = rng.uniform(0.1, 0.35) * H
            pts = [(0, 0), (W, 0), (W, y + rng.uniform(-0.1, 0.15) * H), (0, y)]
        elif side == "bottom":
            y = rng.uniform(0.65, 0.9) * H
            pts = [(0, y), (W, y + rng.uniform(-0.15, 0.1) * H), (W, H), (0, H)]
        else:
            pts = [(W, H), (W * rng.uniform(0.4, 0.7), H), (W, H * rng.uniform(0.3, 0.6))]
        cv2.fillPoly(m, [np.int32(pts)], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(15, 60))
        dark = rng.uniform(0.2, 0.45)
        L = L * (1 - dark * m)
        info.append("shadow")
    # keep the target readable
    if tmask_f.any():
        tmin = float(L[tmask_f > 0].min())
        if tmin < 0.55:
            L = L * (0.55 / tmin) ** 0.8
    wb = rng.choice(["neutral", "warm", "cool", "neutral"])
    gains = {"neutral": (1, 1, 1), "warm": (1.06, 1.0, 0.86), "cool": (0.92, 0.99, 1.08)}[wb]
    if wb != "neutral":
        info.append("white_balance:" + wb)
    return img * L[..., None] * np.array(gains, np.float32)[None, None]


def camera_finish(rng, nrng, img, out_fs, info):
    H, W = img.shape[:2]
    r = rng.random()
    smax = min(1.2, out_fs / 22.0)
    if r < 0.15:
        ln = rng.randint(3, 5)
        k = np.zeros((ln, ln), np.float32)
        ang = rng.uniform(0, math.pi)
        c = (ln - 1) / 2
        for i in range(ln * 3):
            t = i / (ln * 3 - 1) - 0.5
            x = int(round(c + t * (ln - 1) * math.cos(ang)))
            y = int(round(c + t * (ln - 1) * math.sin(ang)))
            k[y, x] = 1
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        info.append("motion_blur")
    elif r < 0.7:
        sg = rng.uniform(0.4, smax)
        img = cv2.GaussianBlur(img, (0, 0), sg)
        if sg > 0.8:
            info.append("blur")
    if rng.random() < 0.35:
        bl = cv2.GaussianBlur(img, (0, 0), 1.5)
        img = img + (img - bl) * rng.uniform(0.3, 0.8)
        info.append("sharpened")
    # sensor noise (luma-dependent) + chroma noise
    sig = rng.uniform(1.5, 6.5)
    n = nrng.standard_normal((H, W, 1)).astype(np.float32) * sig
    nc = nrng.standard_normal((H // 2, W // 2, 3)).astype(np.float32) * sig * 0.5
    nc = cv2.resize(nc, (W, H), interpolation=cv2.INTER_LINEAR)
    img = img + n * np.sqrt(np.clip(img, 1, 255) / 160.0) + nc
    if sig > 4:
        info.append("noise")
    # tone
    if rng.random() < 0.3:
        g = rng.uniform(0.85, 1.15)
        img = 255 * (np.clip(img, 0, 255) / 255) ** g
    return np.clip(img, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- one photo
def visible_frac(Hm, curl, b, W, H, occ=None, view=None):
    pts = box_pts(b, 8, 3)
    q = forward(Hm, curl, pts)
    ins = (q[:, 0] >= 0) & (q[:, 0] < W) & (q[:, 1] >= 0) & (q[:, 1] < H)
    if view is not None:
        ins &= (pts[:, 0] >= view[0]) & (pts[:, 0] <= view[2]) & (pts[:, 1] >= view[1]) & (pts[:, 1] <= view[3])
    if occ is not None and ins.any():
        qi = q[ins].astype(int)
        vis = occ[np.clip(qi[:, 1], 0, H - 1), np.clip(qi[:, 0], 0, W - 1)] < 0.5
        return float(ins.mean()), float(vis.mean()) if len(vis) else 0.0
    return float(ins.mean()), 1.0


def elem_box(e):
    bb = list(e["boxes"]) + ([e["label_box"]] if e.get("label_box") else [])
    return (min(b[0] for b in bb), min(b[1] for b in bb), max(b[2] for b in bb), max(b[3] for b in bb))


def make_one(job):
    i, seed, target, bank, out_dir = job
    rng = random.Random(seed * 1000003 + i * 7919 + 17)
    nrng = np.random.default_rng(seed * 1000003 + i * 7919 + 17)
    portrait = rng.random() < 0.45
    W, H = (960, 1280) if portrait else (1280, 960)
    screen = rng.random() < 0.22
    cam = None
    for narrow in range(6):
        for _ in range(3):
            pg = build_page(rng, target, bank, (W, H), narrow_level=narrow)
            cam = choose_camera(rng, pg, W, H, screen)
            if cam is not None:
                break
        if cam is not None:
            break
    if cam is None:
        raise RuntimeError(f"no camera for {target['id']}")
    marks = draw_marks(rng, pg)
    info = []
    t = pg.target
    tb = list(t["boxes"]) + [t["label_box"]]
    tbox = elem_box(t)
    # target mask in output space
    tmask = np.zeros((H, W), np.uint8)
    for b in tb:
        q = forward(cam["H"], cam["curl"], [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])])
        cv2.fillPoly(tmask, [np.int32(np.round(q))], 1)
    kd = int(max(25, cam["out_fs"] * 1.2)) | 1  # keep occluders well clear of the target text
    tmask_d = cv2.dilate(tmask, np.ones((kd, kd), np.uint8)).astype(bool)
    tmask_f = tmask.astype(np.float32)
    if screen:
        img, sinfo = render_screen(rng, nrng, pg, cam, W, H, info, tbox)
    else:
        img = render_paper(rng, nrng, pg, cam, W, H, info)
        info.append("paper")
        sinfo = None
    occ = np.zeros((H, W), np.float32)
    r = rng.random()
    if r < 0.2:
        img, fi = draw_finger(rng, img, tmask_d, W, H)
        if fi:
            info.append("finger:" + fi["edge"])
            occ = np.maximum(occ, fi["mask"])
    elif r < 0.33:
        img, pi = draw_pen(rng, img, tmask_d, W, H)
        if pi:
            info.append("pen_object:" + pi["edge"])
            occ = np.maximum(occ, pi["mask"])
    if screen:
        img = glare(rng, img, W, H, tmask_f)
        info.append("screen_glare")
        img = lighting(rng, nrng, img * 1.0, W, H, tmask_f, [])
    else:
        img = lighting(rng, nrng, img, W, H, tmask_f, info)
    img = camera_finish(rng, nrng, img, cam["out_fs"], info)
    # jpeg
    q = rng.randint(55, 92)
    path = os.path.join(out_dir, f"qs{i + 1:03d}.jpg")
    bgr = img[..., ::-1]
    if rng.random() < 0.25:
        q0 = rng.randint(70, 95)
        ok, enc = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, q0])
        bgr = cv2.imdecode(enc, cv2.IMREAD_COLOR)
        info.append("double_jpeg")
    cv2.imwrite(path, bgr, [cv2.IMWRITE_JPEG_QUALITY, q])
    # ---------------------------------------------------------------- manifest cases
    cases = ["lang:" + target["lang"], "subject:" + target["subject"],
             "orientation:" + ("portrait" if portrait else "landscape"),
             "number_style:" + pg.num_style, "font:" + pg.font_name, "weight:" + pg.weight]
    if pg.num_style == "circled" and t["num"] > len(CIRCLED):
        cases[3] = "number_style:paren(circled>20)"
    if pg.num_bold:
        cases.append("number_bold")
    if pg.score_fmt:
        cases.append("score_note")
    cases.append(f"target_lines:{t['geo']['n_lines']}")
    if any(ch in target["question"] for ch in list(SUP) + list(SUB)):
        cases.append("sup_sub")
    if "__" in target["question"]:
        cases.append("target_blank")
    if t["ans_boxes"]:
        cases.append("answer_lines")
        if pg.ans_prompt:
            cases.append("answer_prompt")
    Hm, curl = cam["H"], cam["curl"]
    view = sinfo["view"] if sinfo else None
    for e in pg.elements:
        if e["kind"] != "header":
            continue
        fr, vis = visible_frac(Hm, curl, e["boxes"][0], W, H, occ, view)
        if fr > 0.05:
            role = e["role"] if e["role"] != "section_mid" else "header:section_mid"
            cases.append(role + ("" if fr > 0.97 else "(cut)"))
    nb_cut = False
    for e in pg.elements:
        if e["kind"] != "problem" or e is t:
            continue
        b = elem_box(e)
        fr, vis = visible_frac(Hm, curl, b, W, H, occ, view)
        if fr <= 0.03:
            continue
        if e["col"] == t["col"]:
            if e["idx"] == t["idx"] - 1:
                cases.append("neighbour_above" + ("" if fr > 0.97 else "(cut)"))
            elif e["idx"] == t["idx"] + 1:
                cases.append("neighbour_below" + ("" if fr > 0.97 else "(cut)"))
            else:
                cases.append("more_neighbours")
            if fr <= 0.97:
                nb_cut = True
        else:
            side = "left" if e["col"] < t["col"] else "right"
            cases.append(f"column_{side}" + ("" if fr > 0.97 else "(cut)"))
        if e["has_options"]:
            ofr = max([visible_frac(Hm, curl, ob, W, H, None, view)[0] for ob in e["opt_boxes"]] or [0])
            if ofr > 0.3:
                cases.append("neighbour_mc_options")
        if e["has_blank"]:
            cases.append("neighbour_blank_underline")
        if e["has_bracket"]:
            cases.append("neighbour_bracket_blank")
        if e["src"] == "bank":
            cases.append("neighbour_from_bank")
        if vis < 0.97:
            cases.append("neighbour_occluded")
    if pg.two_col:
        cases.append("two_column")
        cases.append(f"gutter:{pg.gutter / pg.fs:.1f}fs")
    for (k, b) in marks:
        fr, _ = visible_frac(Hm, curl, b, W, H, None, view)
        if fr > 0.6:
            cases.append(k)
    cases += info
    cases.append(f"rotation:{cam['theta']:+.1f}")
    if abs(cam["theta"]) >= 4:
        cases.append("rotation_strong")
    cases.append(f"tilt:{cam['persp']:.0f}")
    if cam["persp"] >= 6:
        cases.append("perspective")
    if curl.kind != "none":
        cases.append("curl:" + curl.kind)
    off = math.hypot(*cam["offset"])
    cases.append("off_centre" if off > 0.06 else "centred")
    cases.append(f"text_px:{int(round(cam['out_fs']))}")
    cases.append(f"jpeg_q:{q}")
    cases = list(dict.fromkeys(cases))
    tq = forward(Hm, curl, box_pts(tbox, 4, 2))
    man = {"qid": f"qs{i + 1:03d}", "file": f"qs{i + 1:03d}.jpg", "expected_id": target["id"],
           "text": target["question"], "number": t["num"], "label": number_label(pg.num_style, t["num"]),
           "cases": cases,
           "target_bbox": [int(tq[:, 0].min()), int(tq[:, 1].min()), int(tq[:, 0].max()), int(tq[:, 1].max())],
           "size": [W, H]}
    return man


# --------------------------------------------------------------------------- selection / main
def lang_of(q):
    return "zh" if HAN_RE.search(q) else "en"


def is_special(q):
    return any(ch in q for ch in list(SUP) + list(SUB)) or "__" in q


def choose_targets(bank, count, seed):
    rng = random.Random(seed * 31 + 5)
    n = len(bank)
    if count > n:
        raise SystemExit(f"--count {count} exceeds bank size {n} (targets must be distinct)")
    groups = {}
    for b in bank:
        groups.setdefault((b["lang"], b["subject"]), []).append(b)
    keys = sorted(groups)
    exact = {k: count * len(groups[k]) / n for k in keys}
    quota = {k: int(math.floor(exact[k])) for k in keys}
    rest = count - sum(quota.values())
    order = sorted(keys, key=lambda k: (-(exact[k] - quota[k]), rng.random()))
    for k in order[:rest]:
        quota[k] += 1
    chosen = []
    for k in keys:
        g = groups[k][:]
        rng.shuffle(g)
        g.sort(key=lambda b: 0 if is_special(b["question"]) else 1)
        chosen += g[:quota[k]]
    rng.shuffle(chosen)
    return chosen


def _init_worker():
    cv2.setNumThreads(1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=431)
    ap.add_argument("--manifest", default=None)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    bank = []
    with open(a.bank, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            d = json.loads(line)
            bank.append({"id": d["id"], "question": d["question"], "subject": d.get("subject", ""),
                         "lang": lang_of(d["question"])})
    os.makedirs(a.out_dir, exist_ok=True)
    targets = choose_targets(bank, a.count, a.seed)
    jobs = [(i, a.seed, targets[i], bank, a.out_dir) for i in range(a.count)]
    t0 = time.time()
    workers = max(1, min(2, a.workers))
    cv2.setNumThreads(1)
    if workers == 1:
        mans = [make_one(j) for j in jobs]
    else:
        with mp.get_context("fork").Pool(workers, initializer=_init_worker) as pool:
            mans = list(pool.imap(make_one, jobs, chunksize=1))
    with open(os.path.join(a.out_dir, "truth.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "text"])
        for m in mans:
            w.writerow([m["qid"], m["text"]])
    with open(os.path.join(a.out_dir, "queries.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for m in mans:
            w.writerow([m["qid"], m["text"], m["expected_id"], "exact"])
    if a.manifest:
        with open(a.manifest, "w", encoding="utf-8") as f:
            for m in mans:
                f.write(json.dumps(m, ensure_ascii=False) + "\n")
    print(f"wrote {len(mans)} photos to {a.out_dir} in {time.time() - t0:.1f}s "
          f"({workers} worker{'s' if workers > 1 else ''})")


if __name__ == "__main__":
    main()
