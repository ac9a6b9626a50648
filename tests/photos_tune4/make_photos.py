#!/usr/bin/env python3
"""Synthetic phone photos of printed homework worksheets.

usage: python make_photos.py --bank BANK OUT --count N --seed S [--workers W]

Each photo frames ONE bank problem (a seeded permutation of the bank, drawn without
replacement): it is the problem nearest the photo centre and lies wholly inside the
photo.  See README.md for what a photo contains and the shares of each case.
Deterministic for a given (seed, count) whatever the number of workers: every photo
uses its own RNGs seeded from (seed, photo index).
"""
import argparse
import csv
import glob
import json
import math
import os
import random
import re
import sys
import time
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# ----------------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------------
FONT_DIRS = ["/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.fonts")]
FONTS = {}   # full name -> (path, index)
CMAPS = {}   # full name -> set of code points

WANTED = {
    "Noto Sans CJK SC", "Noto Sans CJK SC Bold", "Noto Serif CJK SC", "Noto Serif CJK SC Bold",
    "AR PL UKai CN", "AR PL UMing CN", "LXGW WenKai", "LXGW WenKai Bold", "cwTeXFangSong",
    "WenQuanYi Micro Hei", "DejaVu Sans", "DejaVu Sans Bold", "DejaVu Serif", "DejaVu Serif Bold",
    "DejaVu Sans Condensed", "DejaVu Sans Condensed Bold", "Liberation Serif", "Liberation Serif Bold",
    "Liberation Sans", "Liberation Sans Bold", "Liberation Sans Narrow", "Liberation Sans Narrow Bold",
    "FreeSerif", "FreeSerif Bold", "FreeSans", "FreeSans Bold", "DejaVuMathTeXGyre-Regular",
    "Humor Sans",
}

# CJK body faces: key -> (regular, bold or None (=fake bold by stroking)), kind
CJK_FACES = {
    "sans": ("Noto Sans CJK SC", "Noto Sans CJK SC Bold"),
    "serif": ("Noto Serif CJK SC", "Noto Serif CJK SC Bold"),
    "kai": ("AR PL UKai CN", None),
    "wenkai": ("LXGW WenKai", "LXGW WenKai Bold"),
    "ming": ("AR PL UMing CN", None),
    "fangsong": ("cwTeXFangSong", None),
    "hei": ("WenQuanYi Micro Hei", None),
}
CJK_WEIGHTS = {"sans": 26, "serif": 26, "kai": 12, "wenkai": 10, "ming": 10, "fangsong": 7, "hei": 9}
LATIN_FACES = {
    "dejavu_sans": ("DejaVu Sans", "DejaVu Sans Bold"),
    "dejavu_serif": ("DejaVu Serif", "DejaVu Serif Bold"),
    "dejavu_cond": ("DejaVu Sans Condensed", "DejaVu Sans Condensed Bold"),
    "times": ("Liberation Serif", "Liberation Serif Bold"),
    "arial": ("Liberation Sans", "Liberation Sans Bold"),
    "narrow": ("Liberation Sans Narrow", "Liberation Sans Narrow Bold"),
    "freeserif": ("FreeSerif", "FreeSerif Bold"),
    "freesans": ("FreeSans", "FreeSans Bold"),
}
FALLBACK = ["Noto Sans CJK SC", "DejaVu Sans", "FreeSerif", "DejaVuMathTeXGyre-Regular",
            "LXGW WenKai", "WenQuanYi Micro Hei", "Noto Serif CJK SC"]


def load_fonts():
    from fontTools.ttLib import TTCollection, TTFont
    files = []
    for d in FONT_DIRS:
        for ext in ("ttf", "ttc", "otf"):
            files += glob.glob(os.path.join(d, "**", "*." + ext), recursive=True)
    for f in sorted(files):
        if "Emoji" in f:
            continue
        try:
            fts = TTCollection(f, lazy=True).fonts if f.endswith(".ttc") else [TTFont(f, lazy=True)]
        except Exception:
            continue
        for i, ft in enumerate(fts):
            try:
                name = ft["name"].getDebugName(4)
            except Exception:
                continue
            if name in WANTED and name not in FONTS:
                FONTS[name] = (f, i)
                CMAPS[name] = set(ft.getBestCmap().keys())
    for k in list(CJK_FACES):
        r, b = CJK_FACES[k]
        if r not in FONTS:
            del CJK_FACES[k]
        elif b and b not in FONTS:
            CJK_FACES[k] = (r, None)
    for k in list(LATIN_FACES):
        r, b = LATIN_FACES[k]
        if r not in FONTS:
            del LATIN_FACES[k]
        elif b and b not in FONTS:
            LATIN_FACES[k] = (r, None)
    if "Noto Sans CJK SC" not in FONTS:
        sys.exit("Noto Sans CJK SC not found: apt-get install -y fonts-noto-cjk")


@lru_cache(maxsize=None)
def pil_font(name, size):
    path, idx = FONTS[name]
    return ImageFont.truetype(path, size, index=idx, layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=None)
def glyph_w(name, size, ch):
    return pil_font(name, size).getlength(ch)


def has(name, ch):
    return ch == " " or ord(ch) in CMAPS.get(name, ())


def is_cjk_side(ch, lang):
    o = ord(ch)
    if o >= 0x2E80:
        return True
    if ch in "“”‘’…—·" and lang == "zh":
        return True
    return False


def pick_font(style, ch, bold=False):
    """-> (font name, fake_bold). Never substitutes a character: raises if no font has it."""
    cjk_r, cjk_b = CJK_FACES[style["cjk"]]
    lat = LATIN_FACES.get(style["latin"]) if style["latin"] else None
    cjk = (cjk_b or cjk_r) if bold else cjk_r
    cjk_fake = bold and not cjk_b
    order = []
    if lat is not None:
        lt = (lat[1] or lat[0]) if bold else lat[0]
        lfake = bold and not lat[1]
        if is_cjk_side(ch, style["lang"]):
            order = [(cjk, cjk_fake), (lt, lfake)]
        else:
            order = [(lt, lfake), (cjk, cjk_fake)]
    else:
        order = [(cjk, cjk_fake)]
    for fb in FALLBACK:
        order.append((fb, bold))
    for name, fake in order:
        if name in FONTS and has(name, ch):
            return name, fake
    raise ValueError("no font has %r (U+%04X)" % (ch, ord(ch)))


# ----------------------------------------------------------------------------------
# text atoms and line breaking
# ----------------------------------------------------------------------------------
SUP = {"²": "2", "³": "3", "¹": "1", "⁰": "0", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8",
       "⁹": "9", "ⁿ": "n", "⁺": "+", "⁻": "-"}
SUB = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7", "₈": "8",
       "₉": "9", "ₙ": "n", "ₐ": "a", "ₓ": "x", "ₘ": "m", "₊": "+", "₋": "-"}
NO_START = set("，。？！：；、）》」』】〕”’…%‰℃°,.?!:;)]}·～")
NO_END = set("（《「『【〔“‘([{")
GLUE = set("/／")


class Atom:
    __slots__ = ("kind", "w", "asc", "desc", "cls", "d", "role")

    def __init__(self, kind, w, asc, desc, cls, d, role):
        self.kind, self.w, self.asc, self.desc, self.cls, self.d, self.role = kind, w, asc, desc, cls, d, role


def char_cls(ch):
    if ch == " ":
        return "SP"
    if ch in NO_START:
        return "CLOSE"
    if ch in NO_END:
        return "OPEN"
    if ch in GLUE:
        return "GLUE"
    if ord(ch) >= 0x2E80:
        return "CJK"
    return "LAT"


def ch_atom(ch, style, size, bold, role, dy=0.0, cls=None, shown=None):
    shown = shown or ch
    name, fake = pick_font(style, shown, bold)
    w = glyph_w(name, size, shown)
    if shown == " ":
        w = max(w, size * 0.28)
    return Atom("ch", w, size * 0.88 - dy, size * 0.22 + dy, cls or char_cls(ch),
                {"ch": shown, "font": name, "size": size, "fake": fake, "dy": dy}, role)


FRAC_RE = re.compile(r"(?<![\w./])(\d{1,3})/(\d{1,3})(?![\w/])")
SQRT_RE = re.compile(r"√(\d+|[a-zA-Z])")
BLANK_RE = re.compile(r"_{2,}")


def make_atoms(text, style, size=None, bold=False, role="text", allow_math=True):
    fs = size or style["fs"]
    atoms = []
    opts = style["opts"]
    spans = []   # (start, end, kind, match)
    if allow_math:
        for m in BLANK_RE.finditer(text):
            spans.append((m.start(), m.end(), "blank", m))
        if opts["frac"]:
            for m in FRAC_RE.finditer(text):
                spans.append((m.start(), m.end(), "frac", m))
        if opts["sqrt_bar"]:
            for m in SQRT_RE.finditer(text):
                spans.append((m.start(), m.end(), "sqrt", m))
    spans.sort()
    i = 0
    si = 0
    while i < len(text):
        while si < len(spans) and spans[si][0] < i:
            si += 1
        if si < len(spans) and spans[si][0] == i:
            s, e, kind, m = spans[si]
            if kind == "blank":
                n = e - s
                if opts["blank"] == "line":
                    w = max(2.6 * fs, n * 0.5 * fs * opts["blank_scale"])
                    atoms.append(Atom("line", w, 0.88 * fs, 0.22 * fs, "CJK", {"size": fs}, role))
                else:
                    for _ in range(n):
                        atoms.append(ch_atom("_", style, fs, bold, role, cls="LAT"))
            elif kind == "frac":
                ss = int(round(fs * 0.8))
                num, den = m.group(1), m.group(2)
                nf, _ = pick_font(style, "0", bold)
                wn = sum(glyph_w(nf, ss, c) for c in num)
                wd = sum(glyph_w(nf, ss, c) for c in den)
                w = max(wn, wd) + 0.25 * fs
                asc = 0.32 * fs + 0.1 * fs + 0.74 * ss
                desc = -0.32 * fs + 0.1 * fs + 0.74 * ss + 0.06 * fs
                atoms.append(Atom("frac", w, asc, max(desc, 0.22 * fs), "LAT",
                                  {"num": num, "den": den, "font": nf, "size": ss, "fs": fs, "fake": bold}, role))
            elif kind == "sqrt":
                sub = [ch_atom("√", style, fs, bold, role)] + [ch_atom(c, style, fs, bold, role) for c in m.group(1)]
                w = sum(a.w for a in sub) + 0.06 * fs
                atoms.append(Atom("sqrt", w, fs * 0.95, fs * 0.22, "LAT", {"sub": sub, "fs": fs}, role))
            i = e
            si += 1
            continue
        ch = text[i]
        if ch in SUP and opts["script"] == "print":
            atoms.append(ch_atom(ch, style, int(round(fs * 0.62)), bold, role, dy=-0.36 * fs, cls="LAT", shown=SUP[ch]))
        elif ch in SUB and opts["script"] == "print":
            atoms.append(ch_atom(ch, style, int(round(fs * 0.62)), bold, role, dy=0.17 * fs, cls="LAT", shown=SUB[ch]))
        else:
            a = ch_atom(ch, style, fs, bold, role)
            if ch in SUP or ch in SUB:
                a.cls = "LAT"
            atoms.append(a)
        i += 1
    return atoms


def can_break(a, b):
    """break allowed between atom a and following atom b (Chinese line-break rules)."""
    if a.role == "note" and b.role == "note":
        return False   # a score note such as （5分） is never split
    if b.cls in ("CLOSE", "SP", "GLUE") or a.cls in ("OPEN", "GLUE"):
        return False
    if a.cls == "SP":
        return True
    if a.cls == "LAT" and b.cls == "LAT":
        return False
    if a.cls == "LAT" and b.cls == "OPEN":
        return False   # f(x) keeps together
    return True


def layout_block(segments, width, fs, pitch, hang):
    """segments: list of atom lists, concatenated; segment 0 glued to the first text unit.
    returns dict(lines=[dict(x0, items=[(atom,x)], asc, desc, base)], h, w)."""
    seq = []
    glue_upto = 0
    for k, seg in enumerate(segments):
        seq.extend(seg)
        if k == 0:
            glue_upto = len(seq)
    if not seq:
        return {"lines": [], "h": 0, "w": 0}
    units = []
    cur = [seq[0]]
    for i in range(1, len(seq)):
        if i > glue_upto and can_break(seq[i - 1], seq[i]):
            units.append(cur)
            cur = []
        cur.append(seq[i])
    units.append(cur)
    hang_w = sum(a.w for a in segments[0]) if (hang and segments and segments[0]) else 0.0
    lines = []
    line = []
    x = 0.0

    def avail():
        return width - (hang_w if lines else 0.0)

    def trim_w(items):
        w = sum(a.w for a in items)
        k = len(items) - 1
        while k >= 0 and items[k].cls == "SP":
            w -= items[k].w
            k -= 1
        return w

    for u in units:
        uw = trim_w(u)
        if line and x + uw > avail() + 0.01:
            lines.append(line)
            line, x = [], 0.0
        if not line:
            while u and u[0].cls == "SP":
                u = u[1:]
            if not u:
                continue
            if trim_w(u) > avail():   # over-long unit: force break by atoms
                for a in u:
                    if line and x + a.w > avail():
                        lines.append(line)
                        line, x = [], 0.0
                    line.append(a)
                    x += a.w
                continue
        line.extend(u)
        x += sum(a.w for a in u)
    if line:
        lines.append(line)
    out = []
    base = None
    prev_desc = 0.0
    for li, ln in enumerate(lines):
        while ln and ln[-1].cls == "SP":
            ln = ln[:-1]
        x0 = hang_w if li > 0 else 0.0
        asc = max([0.88 * fs] + [a.asc for a in ln])
        desc = max([0.22 * fs] + [a.desc for a in ln])
        if base is None:
            base = asc
        else:
            base = base + max(pitch, prev_desc + asc + 0.12 * fs)
        items = []
        xx = x0
        for a in ln:
            items.append((a, xx))
            xx += a.w
        out.append({"x0": x0, "x1": xx, "items": items, "asc": asc, "desc": desc, "base": base})
        prev_desc = desc
    h = out[-1]["base"] + out[-1]["desc"] if out else 0
    return {"lines": out, "h": h, "w": max(l["x1"] for l in out) if out else 0}


def draw_atom(dr, a, x, base, ink):
    if a.kind == "ch":
        d = a.d
        if d["ch"] == " ":
            return
        f = pil_font(d["font"], d["size"])
        dr.text((x, base + d["dy"]), d["ch"], font=f, fill=ink, anchor="ls",
                stroke_width=1 if d["fake"] else 0, stroke_fill=ink)
    elif a.kind == "line":
        fs = a.d["size"]
        t = max(1, int(round(fs / 17)))
        y = base + 0.14 * fs
        dr.rectangle([x + 0.08 * fs, y, x + a.w - 0.08 * fs, y + t - 1], fill=ink)
    elif a.kind == "frac":
        d = a.d
        fs, ss = d["fs"], d["size"]
        f = pil_font(d["font"], ss)
        yb = base - 0.32 * fs
        t = max(1, int(round(fs / 18)))
        dr.rectangle([x + 0.06 * fs, yb - t / 2, x + a.w - 0.06 * fs, yb + t / 2], fill=ink)
        cx = x + a.w / 2
        sw = 1 if d["fake"] else 0
        dr.text((cx, yb - 0.1 * fs), d["num"], font=f, fill=ink, anchor="ms", stroke_width=sw, stroke_fill=ink)
        dr.text((cx, yb + 0.1 * fs + 0.74 * ss), d["den"], font=f, fill=ink, anchor="ms", stroke_width=sw, stroke_fill=ink)
    elif a.kind == "sqrt":
        fs = a.d["fs"]
        xx = x
        sub = a.d["sub"]
        for s in sub:
            draw_atom(dr, s, xx, base, ink)
            xx += s.w
        r = sub[0]
        f = pil_font(r.d["font"], r.d["size"])
        bb = f.getbbox("√", anchor="ls")
        t = max(1, int(round(fs / 18)))
        ytop = base + bb[1]
        dr.rectangle([x + bb[2] - t, ytop, xx + 0.04 * fs, ytop + t - 1], fill=ink)


# ----------------------------------------------------------------------------------
# page content
# ----------------------------------------------------------------------------------
CN_DIG = "零一二三四五六七八九"


def cn_num(n):
    if n < 10:
        return CN_DIG[n]
    if n < 20:
        return "十" + (CN_DIG[n % 10] if n % 10 else "")
    return CN_DIG[n // 10] + "十" + (CN_DIG[n % 10] if n % 10 else "")


NUM_STYLES_ZH = ["{n}.", "{n}．", "{n}、", "({n})", "（{n}）", "{c}", "第{n}题", "第{n}题：", "{z}、", "Q{n}.", "【{n}】", "{n})"]
NUM_STYLES_EN = ["{n}.", "{n})", "({n})", "Q{n}.", "Q{n}", "Question {n}:", "{c}", "No.{n}", "{n}."]
NOTE_STYLES_ZH = ["（{s}分）", "({s}分)", "【{s}分】", "（本题{s}分）", "[{s}分]"]
NOTE_STYLES_EN = ["({s} points)", "[{s} marks]", "({s} pts)", "({s} marks)", "（{s}分）"]
SUBJ_CN = {"math": "数学", "physics": "物理", "chemistry": "化学", "english": "英语", "biology": "生物",
           "geography": "地理", "history": "历史", "chinese": "语文"}
SUBJ_EN = {"math": "Maths", "physics": "Physics", "chemistry": "Chemistry", "english": "English",
           "biology": "Biology", "geography": "Geography", "history": "History", "chinese": "Chinese"}
SCHOOLS = ["育才中学", "实验小学", "第二中学", "阳光学校", "新华初级中学", "市第一中学", "光明小学", "外国语学校"]
SECTION_ZH = ["填空题", "选择题", "计算题", "解答题", "应用题", "判断题", "简答题", "基础知识", "综合运用", "解方程"]
SECTION_EN = ["Grammar", "Vocabulary", "Fill in the blanks", "Calculation", "Short answers", "Reading", "Problems"]
ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII"]


def grade_cn(g):
    try:
        g = int(g)
    except Exception:
        return ""
    if g <= 6:
        return cn_num(g) + "年级"
    if g <= 9:
        return ["七", "八", "九"][g - 7] + "年级"
    return "高" + ["一", "二", "三"][min(g - 10, 2)]


def fmt_label(style_s, n):
    c = chr(0x2460 + n - 1) if 1 <= n <= 20 else str(n)
    return style_s.format(n=n, c=c, z=cn_num(n))


def is_zh(text):
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def header_lines(R, lang, target):
    subj = target.get("subject", "math")
    g = target.get("grade", "")
    out = []   # (text, size factor, bold, align)
    if lang == "zh":
        t = R.choice([
            "「第%s单元测试」" % cn_num(R.randint(1, 8)),
            "%s%s%s 第%d周作业" % (R.choice(SCHOOLS), grade_cn(g), SUBJ_CN.get(subj, ""), R.randint(1, 18)),
            "%s%s 课时作业（%s）" % (grade_cn(g), SUBJ_CN.get(subj, ""), cn_num(R.randint(1, 9))),
            "第%s单元 练习卷" % cn_num(R.randint(1, 8)),
            "%s 期中复习题" % SUBJ_CN.get(subj, ""),
            "%s%s寒假作业" % (grade_cn(g), SUBJ_CN.get(subj, "")),
        ])
        out.append((t, R.uniform(1.25, 1.6), True, "center"))
        if R.random() < 0.8:
            u = "_" * R.randint(6, 9)
            s = R.choice(["班级：%s  姓名：%s  学号：%s" % (u, u, "_" * 5),
                          "姓名：%s  班级：%s  得分：%s" % (u, u, "_" * 5),
                          "班级 %s 姓名 %s" % (u, u)])
            out.append((s, 0.95, False, R.choice(["center", "left"])))
        if R.random() < 0.3:
            out.append(("（时间：%d分钟  满分：100分）" % R.choice([40, 45, 60, 90]), 0.85, False, "center"))
    else:
        t = R.choice(["Homework %d" % R.randint(1, 12), "Unit %d Quiz" % R.randint(1, 9),
                      "%s Worksheet %d" % (SUBJ_EN.get(subj, "English"), R.randint(1, 6)),
                      "Grade %s %s Practice" % (g, SUBJ_EN.get(subj, "English")),
                      "Weekend Homework", "Unit %d Review" % R.randint(1, 9)])
        out.append((t, R.uniform(1.25, 1.6), True, "center"))
        if R.random() < 0.8:
            u = "_" * R.randint(6, 9)
            out.append(("Name: %s  Class: %s  Date: %s" % (u, "_" * 5, "_" * 6), 0.95, False, R.choice(["center", "left"])))
    return out


def section_title(R, lang, k):
    if lang == "zh":
        s = cn_num(k) + "、" + R.choice(SECTION_ZH)
        if R.random() < 0.5:
            s += "（每题%d分，共%d分）" % (R.choice([2, 3, 4, 5]), R.choice([10, 15, 20, 24, 30]))
        return s
    s = R.choice(["Part %s  " % ROMAN[k - 1], "Section %s  " % "ABCDEFG"[k - 1], "%s. " % ROMAN[k - 1]]) + R.choice(SECTION_EN)
    return s


def short_answer(ans, lang):
    a = re.sub(r"\$|\\[a-zA-Z]+|[{}]", "", ans or "")
    a = a.replace("\n", " ").strip()
    for sep in ["。", "；", ". ", "，"]:
        if sep in a:
            a = a.split(sep)[0]
            break
    return a[:14].strip() or "ok"


# ----------------------------------------------------------------------------------
# page rendering
# ----------------------------------------------------------------------------------
PAGE_W, PAGE_H = 1500, 2121


def choose_style(R, lang, target_text):
    keys = list(CJK_FACES)
    wts = [CJK_WEIGHTS.get(k, 5) for k in keys]
    for _ in range(20):
        cjk = R.choices(keys, wts)[0]
        name = CJK_FACES[cjk][0]
        if all(has(name, c) or not is_cjk_side(c, lang) for c in target_text):
            break
    else:
        cjk = "sans"
    if lang == "en":
        latin = R.choice(list(LATIN_FACES))
    else:
        latin = R.choice([None, None, None] + list(LATIN_FACES))
    fs = R.choice([26, 28, 30, 30, 32, 32, 34, 36, 38, 40])
    opts = {
        "script": "print" if R.random() < 0.75 else "unicode",
        "blank": "line" if R.random() < 0.55 else "underscore",
        "blank_scale": R.uniform(1.0, 1.7),
        "frac": R.random() < 0.7,
        "sqrt_bar": R.random() < 0.7,
    }
    g = R.randint(10, 55)
    tone = R.choice([(0, 0, 0), (0, 0, 0), (4, 2, 0), (0, 2, 8)])
    ink = tuple(min(255, g + t) for t in tone)
    return {"cjk": cjk, "latin": latin, "fs": fs, "bold": R.random() < 0.12, "lang": lang,
            "opts": opts, "ink": ink, "label_bold": R.random() < 0.35,
            "pitch": R.uniform(1.45, 1.95)}


def render_page(R, nrng, target, bank, pools):
    lang_t = "zh" if is_zh(target["question"]) else "en"
    lang = lang_t if R.random() < 0.8 else ("zh" if lang_t == "en" else lang_t)
    st = choose_style(R, lang, target["question"])
    fs = st["fs"]
    pitch = st["pitch"] * fs
    u = R.random()
    page_type = "one_column" if u < 0.50 else ("two_column" if u < 0.78 else "answer_space")
    ncols = 2 if page_type == "two_column" else 1
    margin_l = R.randint(80, 150)
    margin_r = R.randint(80, 140)
    margin_t = R.randint(90, 160)
    margin_b = R.randint(100, 170)
    gutter = R.randint(50, 90)
    full_w = PAGE_W - margin_l - margin_r
    col_w = (full_w - gutter) / 2 if ncols == 2 else full_w
    col_x = [margin_l] if ncols == 1 else [margin_l, margin_l + col_w + gutter]
    nstyles = NUM_STYLES_ZH if lang == "zh" else NUM_STYLES_EN
    num_style = R.choice(nstyles)
    has_note = R.random() < 0.45
    note_style = R.choice(NOTE_STYLES_ZH if lang == "zh" else NOTE_STYLES_EN)
    note_pos = "after_label" if R.random() < 0.35 else "end"
    hang = R.random() < 0.7
    label_gap = R.uniform(0.25, 0.6) * fs
    if page_type == "answer_space":
        gap_lines = R.uniform(2.2, 5.0)
    else:
        gap_lines = R.choice([R.uniform(0.35, 0.8), R.uniform(0.35, 0.8), R.uniform(0.9, 2.2)])
    answer_rules = page_type == "answer_space" and R.random() < 0.45
    answer_prompt = None
    if R.random() < 0.10 and gap_lines > 1.2:
        answer_prompt = "解：" if lang == "zh" else "Answer:"
    has_header = R.random() < 0.65
    has_sections = R.random() < 0.55
    start_num = 1 if (has_header or R.random() < 0.5) else R.randint(3, 14)
    if "{c}" in num_style:
        start_num = min(start_num, 4)

    # neighbours
    same = [b for b in pools[lang] if b["id"] != target["id"] and b["question"] != target["question"]]
    other = [b for b in bank if b["id"] != target["id"] and b["question"] != target["question"]]
    fillers = []
    pref_subj = [b for b in same if b["subject"] == target["subject"]]
    for _ in range(44):
        r = R.random()
        src = pref_subj if (r < 0.55 and pref_subj) else (same if (r < 0.9 and same) else other)
        fillers.append(R.choice(src))
    # de-duplicate consecutive picks where possible
    seen = set()
    uniq = []
    for b in fillers:
        if b["id"] not in seen:
            uniq.append(b)
            seen.add(b["id"])
    fillers = uniq + [b for b in fillers if b not in uniq]

    notes_val = [R.choice([2, 3, 4, 5, 5, 6, 8, 10]) for _ in range(60)]
    section_at = set()
    if has_sections:
        section_at.add(0)
        for i in range(1, 40):
            if R.random() < 0.13:
                section_at.add(i)
    hdr = header_lines(R, lang, target) if has_header else []
    rule_under_header = R.random() < 0.5
    col_divider = ncols == 2 and R.random() < 0.5
    footer = R.choice([None, None, "- %d -" % R.randint(1, 4), "第 %d 页 共 4 页" % R.randint(1, 4)])
    if footer and lang == "en" and "页" in footer:
        footer = "Page %d of 4" % R.randint(1, 4)

    # header blocks (full width)
    hdr_blocks = []
    for (t, sz, b, al) in hdr:
        atoms = make_atoms(t, st, size=int(round(fs * sz)), bold=b, role="header")
        blk = layout_block([[], atoms], full_w, fs * sz, pitch * sz, False)
        hdr_blocks.append((blk, al, t))
    top_y = margin_t
    hdr_pos = []
    for blk, al, t in hdr_blocks:
        x = margin_l + ((full_w - blk["w"]) / 2 if al == "center" else 0)
        hdr_pos.append((blk, x, top_y, t))
        top_y += blk["h"] + 0.55 * fs
    if hdr_blocks:
        top_y += 0.9 * fs
    rule_y = top_y - 0.6 * fs if (hdr_blocks and rule_under_header) else None
    bottom_y = PAGE_H - margin_b - (1.5 * fs if footer else 0)

    def make_problem_block(b, num, nv):
        label = fmt_label(num_style, num)
        la = make_atoms(label, st, bold=st["label_bold"] or st["bold"], role="label", allow_math=False)
        la.append(Atom("ch", label_gap, 0, 0, "CJK", {"ch": " ", "font": "DejaVu Sans", "size": fs, "fake": False, "dy": 0}, "label"))
        ta = make_atoms(b["question"], st, bold=st["bold"], role="text")
        note = note_style.format(s=nv) if has_note else None
        if note:
            na = make_atoms(note, st, bold=False, role="note", allow_math=False)
            if note_pos == "after_label":
                segs = [la + na, ta]
            else:
                sp = ch_atom(" ", st, fs, False, "sep")
                segs = [la, ta, [sp] + na]
        else:
            segs = [la, ta]
        blk = layout_block(segs, col_w, fs, pitch, hang)
        return blk, label, note

    def flow(seq):
        """seq: list of (kind, payload). returns placed list or None."""
        placed = []
        col = 0
        y = top_y
        sec_k = 0
        for kind, payload in seq:
            if kind == "section":
                sec_k += 1
                t = section_title(R2, lang, sec_k)
                atoms = make_atoms(t, st, size=int(round(fs * 1.05)), bold=True, role="section")
                blk = layout_block([[], atoms], col_w, fs, pitch, False)
                gb, ga = (0.5 * fs if placed else 0), 0.45 * fs
                h = blk["h"]
                if y + gb + h > bottom_y:
                    col += 1
                    if col >= ncols:
                        break
                    y = top_y
                    gb = 0
                placed.append({"kind": "section", "blk": blk, "x": col_x[col], "y": y + gb, "col": col, "text": t})
                y += gb + h + ga
            else:
                b, num, nv = payload
                blk, label, note = make_problem_block(b, num, nv)
                h = blk["h"]
                if y + h > bottom_y:
                    col += 1
                    if col >= ncols:
                        break
                    y = top_y
                    if y + h > bottom_y:
                        break
                gap = gap_lines * pitch * R2.uniform(0.85, 1.15)
                placed.append({"kind": "problem", "blk": blk, "x": col_x[col], "y": y, "col": col, "id": b["id"],
                               "number": num, "label": label, "note": note, "gap": gap, "bank": b})
                y += h + gap
        return placed

    placed = None
    chosen_k = None
    kmax = 6 if ncols == 1 else 14
    if page_type == "answer_space":
        kmax = 3
    for attempt in range(40):
        k = R.randint(1, max(1, kmax))
        seq_items = fillers[:k] + [target] + fillers[k:]
        seq = []
        for i, b in enumerate(seq_items):
            if i in section_at:
                seq.append(("section", None))
            seq.append(("problem", (b, start_num + i, notes_val[i])))
        R2 = random.Random(R.random())
        pl = flow(seq)
        probs = [p for p in pl if p["kind"] == "problem"]
        ti = [j for j, p in enumerate(probs) if p["id"] == target["id"] and p["number"] == start_num + k]
        if not ti:
            kmax = max(1, k - 1)
            continue
        tp = probs[ti[0]]
        above = [p for p in probs[:ti[0]] if p["col"] == tp["col"]]
        below = [p for p in probs[ti[0] + 1:] if p["col"] == tp["col"]]
        if above and below:
            placed, chosen_k = pl, k
            break
        if not below:
            kmax = max(1, k - 1)
        if placed is None and (above or below) and attempt > 30:
            placed, chosen_k = pl, k
    if placed is None:
        raise RuntimeError("could not lay out page")

    # ---- draw the page ----
    paper = (R.randint(244, 255), R.randint(242, 254), R.randint(232, 250))
    img = Image.new("RGB", (PAGE_W, PAGE_H), paper)
    dr = ImageDraw.Draw(img)
    ink = st["ink"]
    occupied = []   # text boxes (x0,y0,x1,y1)
    probs_out = []
    for blk, x, y, t in hdr_pos:
        for ln in blk["lines"]:
            for a, ax in ln["items"]:
                draw_atom(dr, a, x + ax, y + ln["base"], ink)
            occupied.append((x + ln["x0"], y + ln["base"] - ln["asc"], x + ln["x1"], y + ln["base"] + ln["desc"]))
    if rule_y is not None:
        dr.rectangle([margin_l, rule_y, PAGE_W - margin_r, rule_y + max(1, fs // 14)], fill=ink)
    if col_divider:
        xd = margin_l + col_w + gutter / 2
        dr.line([(xd, top_y), (xd, bottom_y)], fill=ink, width=max(1, fs // 18))
    if footer:
        f = pil_font(pick_font(st, "页")[0] if "页" in footer else pick_font(st, "P")[0], int(fs * 0.8))
        dr.text((PAGE_W / 2, PAGE_H - margin_b + 0.3 * fs), footer, font=f, fill=ink, anchor="ms")
    for p in placed:
        blk, x, y = p["blk"], p["x"], p["y"]
        boxes = []
        text_boxes = []
        label_box = None
        for ln in blk["lines"]:
            for a, ax in ln["items"]:
                draw_atom(dr, a, x + ax, y + ln["base"], ink)
            lb = (x + ln["x0"], y + ln["base"] - ln["asc"], x + ln["x1"], y + ln["base"] + ln["desc"])
            boxes.append(lb)
            txt = [(a, ax) for a, ax in ln["items"] if a.role == "text"]
            if txt:
                text_boxes.append((x + txt[0][1], lb[1], x + txt[-1][1] + txt[-1][0].w, lb[3]))
            lab = [(a, ax) for a, ax in ln["items"] if a.role == "label" and a.d.get("ch", "") != " "]
            if lab and label_box is None:
                label_box = (x + lab[0][1], lb[1], x + lab[-1][1] + lab[-1][0].w, lb[3])
        occupied.extend(boxes)
        box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
        if p["kind"] == "problem":
            probs_out.append({"id": p["id"], "number": p["number"], "label": p["label"], "note": p["note"],
                              "box": box, "col": p["col"], "lines": boxes, "text_boxes": text_boxes,
                              "label_box": label_box, "gap": p["gap"], "bank": p["bank"],
                              "is_target": p["id"] == target["id"] and p["number"] == start_num + chosen_k,
                              "col_x": (x, x + col_w)})
    # answer rules / prompts in the gaps
    for pr in probs_out:
        gy0 = pr["box"][3]
        gy1 = gy0 + pr["gap"]
        pr["gap_box"] = (pr["col_x"][0], gy0, pr["col_x"][1], gy1)
        if answer_prompt and pr["gap"] > 1.2 * fs:
            f = pil_font(pick_font(st, answer_prompt[0])[0], fs)
            yy = gy0 + 0.35 * fs + fs
            dr.text((pr["col_x"][0] + (pr["text_boxes"][0][0] - pr["col_x"][0] if hang and pr["text_boxes"] else 0), yy),
                    answer_prompt, font=f, fill=ink, anchor="ls")
            tb = f.getbbox(answer_prompt)
            x0p = pr["col_x"][0] + (pr["text_boxes"][0][0] - pr["col_x"][0] if hang and pr["text_boxes"] else 0)
            occupied.append((x0p, yy - fs, x0p + tb[2], yy + 0.25 * fs))
            pr["gap_box"] = (pr["col_x"][0], yy + 0.3 * fs, pr["col_x"][1], gy1)
        if answer_rules and pr["gap"] > 1.5 * pitch:
            n = int(pr["gap"] / pitch)
            for j in range(1, n):
                yy = gy0 + j * pitch
                dr.line([(pr["col_x"][0] + 0.2 * fs, yy), (pr["col_x"][1] - 0.2 * fs, yy)], fill=(150, 150, 150), width=1)
    secs = [{"text": p["text"], "col": p["col"]} for p in placed if p["kind"] == "section"]
    target_p = [p for p in probs_out if p["is_target"]][0]
    info = {
        "lang": lang, "page_type": page_type, "columns": ncols, "style": st, "num_style": num_style,
        "note_style": note_style if has_note else None, "note_pos": note_pos if has_note else None,
        "hanging_indent": hang, "gap_lines": round(gap_lines, 2), "answer_rules": answer_rules,
        "answer_prompt": answer_prompt, "header": [h[0] for h in hdr], "sections": [s["text"] for s in secs],
        "footer": footer, "col_divider": col_divider, "paper": paper, "start_num": start_num,
    }
    return img, probs_out, target_p, occupied, info


# ----------------------------------------------------------------------------------
# marks (page space)
# ----------------------------------------------------------------------------------
def boxes_hit(b, boxes, pad=0.0):
    for o in boxes:
        if b[0] < o[2] + pad and b[2] > o[0] - pad and b[1] < o[3] + pad and b[3] > o[1] - pad:
            return True
    return False


def stroke(mask, pts, th):
    pts = np.round(np.asarray(pts, np.float64) * 8).astype(np.int32)
    cv2.polylines(mask, [pts.reshape(-1, 1, 2)], False, 255, max(1, int(round(th))), cv2.LINE_AA, shift=3)


def tick_pts(R, x, y, s):
    p0 = (x, y + 0.45 * s)
    p1 = (x + 0.35 * s + R.uniform(-0.05, 0.05) * s, y + s)
    p2 = (x + s * R.uniform(0.9, 1.15), y - R.uniform(0.0, 0.25) * s)
    seg1 = [p0[0] + (p1[0] - p0[0]) * t for t in np.linspace(0, 1, 6)], [p0[1] + (p1[1] - p0[1]) * t for t in np.linspace(0, 1, 6)]
    pts = list(zip(*seg1))
    for t in np.linspace(0, 1, 10)[1:]:
        bend = math.sin(t * math.pi) * 0.06 * s
        pts.append((p1[0] + (p2[0] - p1[0]) * t - bend, p1[1] + (p2[1] - p1[1]) * t - bend * 0.3))
    return [pts]


def cross_pts(R, x, y, s):
    j = lambda: R.uniform(-0.08, 0.08) * s
    return [[(x + j(), y + j()), (x + s + j(), y + s + j())], [(x + s + j(), y + j()), (x + j(), y + s + j())]]


def hand_text(mask, text, x, y, size, R, lang_fonts):
    """handwritten-looking text drawn into mask with baseline at y. returns box."""
    xx = x
    top = y - size
    lat = lang_fonts[0] if R.random() < 0.6 else None
    cjk_fonts = [f for f in lang_fonts[1:] if f in FONTS]
    cjk = R.choice(cjk_fonts) if cjk_fonts else "Noto Sans CJK SC"
    sw = R.choice([0, 0, 1])
    slant = R.uniform(-8, 4)
    drift = R.uniform(-0.04, 0.04)
    for ci, ch in enumerate(text):
        if ch == " ":
            xx += size * 0.35
            continue
        fname = None
        for fn in ([lat, cjk] if (lat and ord(ch) < 0x2E80) else [cjk, lang_fonts[0]]):
            if fn and fn in FONTS and has(fn, ch):
                fname = fn
                break
        if fname is None:
            fname = pick_font({"cjk": "sans", "latin": None, "lang": "zh"}, ch)[0]
        sz = int(size * R.uniform(0.86, 1.12))
        f = pil_font(fname, sz)
        w = max(2, int(f.getlength(ch)) + 8)
        im = Image.new("L", (w + 16, int(sz * 1.6) + 16), 0)
        ImageDraw.Draw(im).text((8, int(sz * 1.2) + 8), ch, font=f, fill=255, anchor="ls",
                                stroke_width=sw, stroke_fill=255)
        im = im.rotate(slant + R.uniform(-8, 8), resample=Image.BILINEAR, expand=False)
        a = np.asarray(im)
        px = int(xx)
        py = int(y - sz * 1.2 - 8 + R.uniform(-0.09, 0.09) * size + drift * (xx - x))
        h_, w_ = a.shape
        if px < 0 or py < 0 or px + w_ > mask.shape[1] or py + h_ > mask.shape[0]:
            xx += w - 8
            continue
        sl = mask[py:py + h_, px:px + w_]
        np.maximum(sl, a, out=sl)
        xx += (w - 8) * R.uniform(0.95, 1.1)
    return (x, top, xx, y + 0.25 * size)


def add_marks(R, page, probs, target, occupied, info):
    st = info["style"]
    fs = st["fs"]
    H, W = page.shape[:2]
    masks = {"red": np.zeros((H, W), np.uint8), "blue": np.zeros((H, W), np.uint8),
             "pencil": np.zeros((H, W), np.uint8), "hl": np.zeros((H, W), np.uint8)}
    pen = R.choice(["blue", "blue", "black", "pencil"])
    pen_mask = "pencil" if pen == "pencil" else "blue"
    marks = []
    placed = []
    lang_hand = ["Humor Sans", "AR PL UKai CN", "LXGW WenKai"]
    tgt_text = target["text_boxes"] or [target["box"]]

    def free(b):
        return 0 <= b[0] and 0 <= b[1] and b[2] < W and b[3] < H and not boxes_hit(b, occupied, 0.12 * fs) and not boxes_hit(b, placed, 0.1 * fs)

    def tick_or_cross(pr, kind, color):
        s = fs * R.uniform(1.0, 1.8)
        last = pr["lines"][-1]
        cands = []
        cands.append((last[2] + R.uniform(0.4, 1.2) * fs, last[1] - 0.2 * s))                       # after last line
        lb = pr["label_box"] or pr["box"]
        cands.append((lb[0] - s - R.uniform(0.3, 0.9) * fs, lb[1] - 0.1 * s))                    # left margin
        cands.append((pr["col_x"][1] + R.uniform(0.1, 0.6) * fs, pr["box"][1]))                     # right margin
        cands.append((pr["box"][0] + R.uniform(0, 4) * fs, pr["box"][3] + 0.3 * fs))                 # gap below
        R.shuffle(cands)
        for (x, y) in cands:
            b = (x - 4, y - 0.3 * s, x + s * 1.2, y + s + 4)
            if free(b):
                th = fs * R.uniform(0.07, 0.13)
                for pl in (tick_pts(R, x, y, s) if kind == "tick" else cross_pts(R, x, y, s)):
                    stroke(masks[color], pl, th)
                placed.append(b)
                return [round(v) for v in b]
        return None

    # circled number of the framed problem
    if R.random() < 0.2 and target["label_box"]:
        lb = target["label_box"]
        cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2 + 0.05 * fs
        rx = (lb[2] - lb[0]) / 2 + 0.3 * fs
        ry = (lb[3] - lb[1]) / 2 + 0.12 * fs
        a0 = R.uniform(0, 2 * math.pi)
        sweep = R.uniform(2.05, 2.3) * math.pi
        pts = []
        for t in np.linspace(0, sweep, 60):
            rr = 1 + 0.06 * math.sin(3 * t + a0) + t * 0.02
            pts.append((cx + rx * rr * math.cos(a0 + t), cy + ry * rr * math.sin(a0 + t)))
        col = R.choice(["red", pen_mask])
        stroke(masks[col], pts, fs * R.uniform(0.06, 0.11))
        marks.append({"type": "circled_number", "color": col if col != "blue" else pen, "target": True})
    # red tick / cross near the framed problem
    if R.random() < 0.32:
        kind = "tick" if R.random() < 0.7 else "cross"
        b = tick_or_cross(target, kind, "red")
        if b:
            marks.append({"type": kind, "color": "red", "target": True, "box": b})
    # marks on neighbours
    if R.random() < 0.4:
        for pr in R.sample(probs, min(len(probs), R.randint(1, 4))):
            if pr is target:
                continue
            kind = "tick" if R.random() < 0.65 else "cross"
            b = tick_or_cross(pr, kind, "red")
            if b:
                marks.append({"type": kind, "color": "red", "target": False, "problem": pr["number"]})
    # handwriting in answer gaps
    if R.random() < 0.4:
        cand = [pr for pr in probs if pr["gap_box"][3] - pr["gap_box"][1] > 1.25 * fs]
        R.shuffle(cand)
        for pr in cand[:R.randint(1, 3)]:
            gb = pr["gap_box"]
            hs = fs * R.uniform(0.9, 1.3)
            if gb[3] - gb[1] < hs * 1.25:
                hs = (gb[3] - gb[1]) / 1.3
            txt = short_answer(pr["bank"].get("answer", ""), info["lang"])
            x = gb[0] + R.uniform(0.5, 3) * fs
            y = gb[1] + hs * 1.05 + R.uniform(0, max(0, gb[3] - gb[1] - hs * 1.3))
            est = (x, y - hs, x + len(txt) * hs * 0.85, y + 0.3 * hs)
            if est[2] > W - 20 or not free(est):
                continue
            bx = hand_text(masks[pen_mask], txt, x, y, hs, R, lang_hand)
            placed.append(bx)
            marks.append({"type": "handwriting", "text": txt, "problem": pr["number"], "target": pr is target,
                          "color": pen})
    # score written in red next to a neighbour
    if R.random() < 0.15:
        pr = R.choice(probs)
        if pr is not target:
            txt = R.choice(["-2", "-3", "+5", "5", "3", "-1"])
            x = pr["col_x"][1] - 2.5 * fs
            y = pr["box"][3] + 1.3 * fs
            b = (x, y - 1.2 * fs, x + 2 * fs, y + 0.3 * fs)
            if free(b):
                hand_text(masks["red"], txt, x, y, fs * 1.2, R, lang_hand)
                placed.append(b)
                marks.append({"type": "score", "text": txt, "problem": pr["number"], "target": False})
    # underline part of the framed problem
    if R.random() < 0.12 and target["text_boxes"]:
        tb = R.choice(target["text_boxes"])
        x0 = R.uniform(tb[0], tb[0] + 0.5 * (tb[2] - tb[0]))
        x1 = R.uniform(x0 + 0.3 * (tb[2] - x0), tb[2])
        y = tb[3] + 0.05 * fs
        wavy = R.random() < 0.4
        pts = [(x, y + (0.08 * fs * math.sin((x - x0) / (0.25 * fs)) if wavy else R.uniform(-0.02, 0.02) * fs))
               for x in np.linspace(x0, x1, 40)]
        stroke(masks[pen_mask], pts, fs * 0.06)
        marks.append({"type": "wavy_underline" if wavy else "underline", "target": True, "color": pen})
    # highlighter over part of the framed problem (transparent)
    if R.random() < 0.06 and target["text_boxes"]:
        tb = R.choice(target["text_boxes"])
        x0 = R.uniform(tb[0], tb[0] + 0.4 * (tb[2] - tb[0]))
        x1 = R.uniform(x0 + 0.3 * (tb[2] - x0), tb[2])
        cv2.rectangle(masks["hl"], (int(x0), int(tb[1] + 0.1 * fs)), (int(x1), int(tb[3])), 255, -1)
        marks.append({"type": "highlighter", "target": True})
    # doodles / scribbles in free margin
    if R.random() < 0.15:
        for _ in range(6):
            x = R.uniform(20, W - 200)
            y = R.uniform(20, H - 200)
            s = R.uniform(1.5, 4) * fs
            b = (x, y, x + s, y + s * 0.6)
            if free(b):
                pts = []
                for t in np.linspace(0, 1, 50):
                    pts.append((x + s * t, y + s * 0.3 + s * 0.25 * math.sin(t * R.uniform(8, 20)) * R.uniform(0.6, 1)))
                stroke(masks[pen_mask], pts, fs * 0.05)
                placed.append(b)
                marks.append({"type": "scribble", "target": False})
                break
    inks = {"red": np.array([0.80, 0.10, 0.13]), "blue": np.array([0.10, 0.20, 0.62]) if pen == "blue" else np.array([0.1, 0.1, 0.12]),
            "pencil": np.array([0.42, 0.42, 0.45]), "hl": np.array([1.0, 0.95, 0.35]) if R.random() < 0.6 else np.array([0.55, 1.0, 0.6])}
    opac = {"red": R.uniform(0.8, 0.95), "blue": R.uniform(0.8, 0.95), "pencil": R.uniform(0.55, 0.8), "hl": R.uniform(0.35, 0.55)}
    for k, m in masks.items():
        ys, xs = np.nonzero(m)
        if len(ys) == 0:
            continue
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        a = (m[y0:y1, x0:x1].astype(np.float32) / 255.0 * opac[k])[..., None]
        sl = page[y0:y1, x0:x1]
        page[y0:y1, x0:x1] = sl * (1 - a + a * inks[k][None, None, :].astype(np.float32))
    return marks


# ----------------------------------------------------------------------------------
# camera
# ----------------------------------------------------------------------------------
SIZES_OTHER = [(1600, 1200), (1200, 1600), (1024, 768), (768, 1024), (1920, 1080), (1080, 1920), (2000, 1500), (800, 600)]


def apply_h(H, pts):
    pts = np.asarray(pts, np.float64)
    p = np.c_[pts, np.ones(len(pts))] @ H.T
    return p[:, :2] / p[:, 2:3]


def poly_contains(poly, pt):
    return cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2), (float(pt[0]), float(pt[1])), False) >= 0


def poly_dist(poly, pt):
    d = cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2), (float(pt[0]), float(pt[1])), True)
    return max(0.0, -d)


def box_poly(b, pad=0.0):
    return np.array([(b[0] - pad, b[1] - pad), (b[2] + pad, b[1] - pad), (b[2] + pad, b[3] + pad), (b[0] - pad, b[3] + pad)])


def dense_edge(b, n=12):
    pts = []
    for t in np.linspace(0, 1, n):
        pts += [(b[0] + (b[2] - b[0]) * t, b[1]), (b[0] + (b[2] - b[0]) * t, b[3]),
                (b[0], b[1] + (b[3] - b[1]) * t), (b[2], b[1] + (b[3] - b[1]) * t)]
    return np.array(pts)


def choose_camera(R, probs, target, info):
    u = R.random()
    if u < 0.42:
        PW, PH = 1280, 960
    elif u < 0.76:
        PW, PH = 960, 1280
    else:
        PW, PH = R.choice(SIZES_OTHER)
    fs = info["style"]["fs"]
    tb = target["box"]
    tw, th = tb[2] - tb[0], tb[3] - tb[1]
    colw = target["col_x"][1] - target["col_x"][0]
    rot_big = R.random() < 0.12
    frame_mode = "target" if R.random() < 0.5 else "column"
    margin = 0.03 * min(PW, PH) + 6
    for attempt in range(60):
        shrink = 0.93 ** attempt
        if frame_mode == "target":
            s = R.uniform(0.5, 0.92) * PW / tw
        else:
            s = R.uniform(0.7, 1.1) * PW / colw
        s = min(s, 0.62 * PH / th, 1.3, 0.93 * PW / tw) * shrink
        s = max(s, min(16.0 / fs, 0.93 * PW / tw * shrink))
        rot = (R.uniform(-22, 22) if rot_big else R.gauss(0, 4.5)) * (shrink ** 0.5)
        rot = max(-24, min(24, rot))
        persp = R.uniform(0.0, 0.11) * shrink
        jx = R.uniform(-0.22, 0.22) * tw * shrink
        jy = R.uniform(-0.25, 0.25) * th * shrink
        c = np.array([(tb[0] + tb[2]) / 2 + jx, (tb[1] + tb[3]) / 2 + jy])
        th_r = math.radians(rot)
        A = np.array([[s * math.cos(th_r), -s * math.sin(th_r), 0], [s * math.sin(th_r), s * math.cos(th_r), 0], [0, 0, 1.0]])
        T1 = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1.0]])
        T2 = np.array([[1, 0, PW / 2], [0, 1, PH / 2], [0, 0, 1.0]])
        H0 = T2 @ A @ T1
        Q = np.float32([[0, 0], [PW, 0], [PW, PH], [0, PH]])
        D = np.float32([[R.uniform(-1, 1) * persp * PW, R.uniform(-1, 1) * persp * PH] for _ in range(4)])
        Hp = cv2.getPerspectiveTransform(Q, Q + D).astype(np.float64)
        H = Hp @ H0
        cc = apply_h(H, [c])[0]
        H = np.array([[1, 0, PW / 2 - cc[0]], [0, 1, PH / 2 - cc[1]], [0, 0, 1.0]]) @ H
        # checks
        tpoly = apply_h(H, dense_edge(target["box"] if True else tb, 10))
        if tpoly[:, 0].min() < margin or tpoly[:, 1].min() < margin or tpoly[:, 0].max() > PW - margin or tpoly[:, 1].max() > PH - margin:
            continue
        centre = (PW / 2, PH / 2)
        tq = apply_h(H, box_poly(tb))
        if not poly_contains(tq, centre):
            continue
        tcd = float(np.hypot(*(apply_h(H, [((tb[0] + tb[2]) / 2, (tb[1] + tb[3]) / 2)])[0] - centre)))
        ok = True
        others = []
        for pr in probs:
            if pr is target:
                continue
            b = pr["box"]
            q = apply_h(H, box_poly(b))
            cd = float(np.hypot(*(apply_h(H, [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)])[0] - centre)))
            pd = poly_dist(q, centre)
            if cd < tcd * 1.15 + 10 or pd < 0.25 * fs * s:
                ok = False
                break
            others.append((cd, pd))
        if not ok:
            continue
        cam = {"size": [PW, PH], "orientation": "landscape" if PW > PH else "portrait", "scale": round(s, 3),
               "rotation_deg": round(rot, 2), "perspective": round(persp, 3), "frame_mode": frame_mode,
               "attempts": attempt + 1, "target_centre_dist": round(tcd, 1),
               "nearest_other_centre_dist": round(min([o[0] for o in others] or [1e9]), 1)}
        return H, (PW, PH), cam
    raise RuntimeError("no camera found")


def background(R, nrng, PW, PH, screen):
    if screen:
        g = R.uniform(0.25, 0.55)
        bg = np.full((PH, PW, 3), g, np.float32) * np.array([0.97, 0.98, 1.0], np.float32)
        return bg, "viewer_grey"
    kind = R.choice(["wood", "wood", "desk", "desk", "cloth", "dark"])
    yy, xx = np.mgrid[0:PH, 0:PW].astype(np.float32)
    low = cv2.resize(nrng.random((PH // 32 + 2, PW // 32 + 2)).astype(np.float32), (PW, PH), interpolation=cv2.INTER_CUBIC)
    if kind == "wood":
        base = np.array([R.uniform(0.45, 0.7), R.uniform(0.3, 0.45), R.uniform(0.15, 0.28)], np.float32)
        ang = R.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        big = cv2.resize(nrng.random((4, 4)).astype(np.float32), (PW, PH), interpolation=cv2.INTER_CUBIC)
        grain = 0.5 + 0.5 * np.sin(u / R.uniform(10, 30) + 1.5 * np.sin(v / R.uniform(300, 700)) + 2.0 * big)
        n1 = int(abs(u).max() + abs(v).max()) + 4
        streak = cv2.GaussianBlur(nrng.random((1, n1)).astype(np.float32), (0, 0), 1.5).ravel()
        st = streak[np.clip((u + 0.3 * np.sin(v / 200.0) * 10 - u.min()).astype(np.int64), 0, n1 - 1)]
        st = (st - st.mean()) / (st.std() + 1e-6)
        t = 0.84 + 0.12 * grain + 0.03 * st
        bg = base[None, None, :] * t[..., None]
    elif kind == "desk":
        g = R.uniform(0.55, 0.9)
        base = np.array([g, g * R.uniform(0.96, 1.02), g * R.uniform(0.92, 1.03)], np.float32)
        bg = base[None, None, :] * (0.93 + 0.07 * low)[..., None]
    elif kind == "cloth":
        base = np.array([R.uniform(0.2, 0.7) for _ in range(3)], np.float32)
        n = cv2.GaussianBlur(nrng.random((PH, PW)).astype(np.float32), (0, 0), 1.2)
        bg = base[None, None, :] * (0.85 + 0.3 * n)[..., None]
    else:
        g = R.uniform(0.08, 0.22)
        bg = np.full((PH, PW, 3), g, np.float32) * (0.9 + 0.2 * low)[..., None]
    return bg.astype(np.float32), kind


def paper_texture(R, nrng, page):
    H, W = page.shape[:2]
    low = cv2.resize(nrng.random((H // 64 + 2, W // 64 + 2)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    fine = nrng.normal(0, 1, (H // 2, W // 2)).astype(np.float32)
    fine = cv2.resize(fine, (W, H), interpolation=cv2.INTER_LINEAR)
    t = 1.0 - 0.025 * low + 0.012 * fine
    page *= t[..., None]
    if R.random() < 0.1:   # fold crease
        y = R.uniform(0.3, 0.7) * H
        yy = np.arange(H, dtype=np.float32)[:, None]
        crease = 1 - 0.05 * np.exp(-((yy - y) / 6.0) ** 2) + 0.02 * np.exp(-((yy - y - 10) / 10.0) ** 2)
        page *= crease[..., None]
        return "crease"
    return None


def make_occluder(R, nrng, PW, PH, tpoly):
    kind = "finger" if R.random() < 0.6 else "pen"
    md = min(PW, PH)
    tmask = np.zeros((PH, PW), np.uint8)
    cv2.fillPoly(tmask, [np.round(tpoly).astype(np.int32)], 255)
    tmask = cv2.dilate(tmask, np.ones((31, 31), np.uint8))
    for attempt in range(30):
        edge = R.choice(["left", "right", "bottom", "bottom", "top"])
        if edge == "left":
            p0 = np.array([-20.0, R.uniform(0.1, 0.95) * PH])
            ang = R.uniform(-40, 40)
        elif edge == "right":
            p0 = np.array([PW + 20.0, R.uniform(0.1, 0.95) * PH])
            ang = 180 + R.uniform(-40, 40)
        elif edge == "bottom":
            p0 = np.array([R.uniform(0.05, 0.95) * PW, PH + 20.0])
            ang = -90 + R.uniform(-45, 45)
        else:
            p0 = np.array([R.uniform(0.05, 0.95) * PW, -20.0])
            ang = 90 + R.uniform(-35, 35)
        d = np.array([math.cos(math.radians(ang)), math.sin(math.radians(ang))])
        n = np.array([-d[1], d[0]])
        if kind == "finger":
            L = R.uniform(0.15, 0.35) * md
            wd = R.uniform(0.11, 0.19) * md
        else:
            L = R.uniform(0.25, 0.5) * md
            wd = R.uniform(0.03, 0.05) * md
        p1 = p0 + d * L
        mask = np.zeros((PH, PW), np.uint8)
        body = np.array([p0 + n * wd / 2, p1 + n * wd / 2, p1 - n * wd / 2, p0 - n * wd / 2])
        cv2.fillPoly(mask, [np.round(body).astype(np.int32)], 255)
        if kind == "finger":
            cv2.ellipse(mask, (int(p1[0]), int(p1[1])), (int(wd * 0.5), int(wd * 0.5)), 0, 0, 360, 255, -1)
        else:
            tip = p1 + d * wd * 1.6
            cv2.fillPoly(mask, [np.round(np.array([p1 + n * wd / 2, tip, p1 - n * wd / 2])).astype(np.int32)], 255)
        if (mask & tmask).any():
            continue
        if mask.sum() / 255 < 0.004 * PW * PH:
            continue
        return kind, mask, (p0, p1, d, n, wd), edge
    return None


def composite_occluder(R, nrng, img, occ):
    kind, mask, (p0, p1, d, n, wd), edge = occ
    PH, PW = mask.shape
    m = mask.astype(np.float32) / 255
    dt = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    dtn = np.clip(dt / (wd / 2 + 1e-6), 0, 1)
    shade = np.sqrt(dtn)
    if kind == "finger":
        skin = np.array([R.uniform(0.78, 0.92), R.uniform(0.55, 0.7), R.uniform(0.45, 0.58)], np.float32)
        col = skin[None, None, :] * (0.55 + 0.5 * shade)[..., None]
        nail_c = p1 - d * wd * 0.25
        nm = np.zeros((PH, PW), np.uint8)
        ang = math.degrees(math.atan2(d[1], d[0]))
        cv2.ellipse(nm, (int(nail_c[0]), int(nail_c[1])), (int(wd * 0.33), int(wd * 0.26)), ang, 0, 360, 255, -1)
        nm = cv2.GaussianBlur(nm.astype(np.float32) / 255, (0, 0), 2)[..., None] * 0.55
        col = col * (1 - nm) + np.array([0.95, 0.8, 0.78], np.float32) * (0.6 + 0.4 * shade[..., None]) * nm
        blur = R.uniform(3, 10)
    else:
        body = np.array(R.choice([(0.1, 0.15, 0.5), (0.08, 0.08, 0.1), (0.85, 0.85, 0.88), (0.7, 0.1, 0.1)]), np.float32)
        spec = np.exp(-((dtn - 0.75) / 0.12) ** 2)
        col = body[None, None, :] * (0.5 + 0.6 * shade)[..., None] + 0.35 * spec[..., None]
        blur = R.uniform(1.2, 4)
    # shadow on the paper
    sh = cv2.GaussianBlur(np.roll(np.roll(m, int(R.uniform(5, 25)), 0), int(R.uniform(-15, 15)), 1), (0, 0), R.uniform(10, 25))
    img *= (1 - 0.35 * sh)[..., None]
    mb = cv2.GaussianBlur(m, (0, 0), blur)[..., None]
    colb = cv2.GaussianBlur(col * m[..., None], (0, 0), blur) / np.maximum(mb, 1e-3)
    img[:] = img * (1 - mb) + colb * mb
    return {"type": kind, "edge": edge, "blur": round(blur, 1)}


def screen_moire(R, img, Hinv, s, PW, PH):
    yy, xx = np.mgrid[0:PH, 0:PW].astype(np.float64)
    pts = np.stack([xx.ravel(), yy.ravel(), np.ones(xx.size)], 1) @ Hinv.T
    u = (pts[:, 0] / pts[:, 2]).reshape(PH, PW)
    v = (pts[:, 1] / pts[:, 2]).reshape(PH, PW)
    if R.random() < 0.65:   # close to the sensor pitch -> broad coloured beat bands
        pitch_photo = R.uniform(0.955, 1.045)
        amp = R.uniform(0.12, 0.28)
    else:                   # finer visible pixel grid with shorter beats
        pitch_photo = R.uniform(1.1, 1.45)
        amp = R.uniform(0.15, 0.32)
    p = pitch_photo / s
    row = 0.75 + 0.25 * np.cos(2 * np.pi * v / p)
    out = np.empty_like(img)
    for ch in range(3):
        g = 0.5 + 0.5 * np.cos(2 * np.pi * (u / p + ch / 3.0))
        pat = (1 - amp) + amp * (g * row) * 1.6
        out[..., ch] = img[..., ch] * pat
    # screen look: raised black level, bluish white, glare
    white = np.array([R.uniform(0.88, 0.95), R.uniform(0.92, 0.98), 1.0], np.float32)
    out = 0.1 + out * white[None, None, :] * 0.9
    gx, gy = R.uniform(0, PW), R.uniform(0, PH)
    glare = np.exp(-(((xx - gx) / (0.4 * PW)) ** 2 + ((yy - gy) / (0.3 * PH)) ** 2)).astype(np.float32)
    out += R.uniform(0.04, 0.15) * glare[..., None]
    return out.astype(np.float32), {"pitch_px": round(pitch_photo, 2), "amplitude": round(amp, 2)}


def lighting(R, nrng, img, PW, PH):
    yy, xx = np.mgrid[0:PH, 0:PW].astype(np.float32)
    info = {}
    gx, gy = R.uniform(-0.35, 0.35), R.uniform(-0.35, 0.35)
    ill = 1 + gx * (xx / PW - 0.5) + gy * (yy / PH - 0.5)
    vig = R.uniform(0.0, 0.35)
    r2 = ((xx - PW / 2) / (PW / 2)) ** 2 + ((yy - PH / 2) / (PH / 2)) ** 2
    ill *= 1 - vig * r2 / 2
    low = cv2.resize(nrng.random((4, 4)).astype(np.float32), (PW, PH), interpolation=cv2.INTER_CUBIC)
    ill *= 0.92 + 0.16 * low
    ill *= R.uniform(0.78, 1.08)
    info["uneven"] = {"grad": [round(gx, 2), round(gy, 2)], "vignette": round(vig, 2)}
    if R.random() < 0.35:
        m = np.zeros((PH, PW), np.uint8)
        side = R.choice(["left", "right", "top", "bottom", "corner"])
        k = R.uniform(0.15, 0.5)
        if side == "left":
            poly = [(0, 0), (k * PW * R.uniform(0.6, 1.4), 0), (k * PW, PH), (0, PH)]
        elif side == "right":
            poly = [(PW, 0), (PW - k * PW, 0), (PW - k * PW * R.uniform(0.6, 1.4), PH), (PW, PH)]
        elif side == "top":
            poly = [(0, 0), (PW, 0), (PW, k * PH * R.uniform(0.5, 1.5)), (0, k * PH)]
        elif side == "bottom":
            poly = [(0, PH), (PW, PH), (PW, PH - k * PH), (0, PH - k * PH * R.uniform(0.5, 1.5))]
        else:
            poly = [(0, 0), (k * PW * 2, 0), (0, k * PH * 2)]
        cv2.fillPoly(m, [np.round(np.array(poly)).astype(np.int32)], 255)
        sm = cv2.GaussianBlur(m.astype(np.float32) / 255, (0, 0), R.uniform(15, 60))
        dark = R.uniform(0.25, 0.5)
        ill *= 1 - dark * sm
        info["shadow"] = {"side": side, "strength": round(dark, 2)}
    img *= ill[..., None]
    temp = R.uniform(-0.07, 0.07)
    img *= np.array([1 + temp, 1.0, 1 - temp], np.float32)[None, None, :]
    info["colour_temp"] = round(temp, 3)
    return img, info


def bend_field(R, PW, PH):
    yy, xx = np.mgrid[0:PH, 0:PW].astype(np.float32)
    amp = R.uniform(3, 0.012 * min(PW, PH))
    ph = R.uniform(0, 2 * math.pi)
    dy = amp * np.sin(np.pi * xx / PW * R.uniform(0.6, 1.4) + ph)
    dx = 0.4 * amp * np.sin(np.pi * yy / PH * R.uniform(0.6, 1.4) + ph)
    return dx.astype(np.float32), dy.astype(np.float32), round(float(amp), 1)


def make_photo(args):
    idx, seed, entry, bank, pools, out_dir, name = args
    R = random.Random(seed * 1000003 + idx * 7919 + 17)
    nrng = np.random.default_rng([seed, idx])
    t0 = time.time()
    img, probs, target, occupied, info = render_page(R, nrng, entry, bank, pools)
    page = np.asarray(img).astype(np.float32) / 255.0
    marks = add_marks(R, page, probs, target, occupied, info)
    crease = paper_texture(R, nrng, page)
    if R.random() < 0.08:   # print-through from the back side
        back = np.fliplr(page).mean(axis=2)
        page *= (1 - 0.06 * (1 - back))[..., None]
        info["bleed_through"] = True
    H, (PW, PH), cam = choose_camera(R, probs, target, info)
    screen = R.random() < 0.12
    s = cam["scale"]
    # pre-shrink the page to avoid aliasing (except for the screen's own pattern)
    k = 1.0
    src = page
    if s < 0.8:
        k = s * 1.25
        src = cv2.resize(page, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    Hs = H @ np.diag([1 / k, 1 / k, 1.0])
    warped = cv2.warpPerspective(src, Hs, (PW, PH), flags=cv2.INTER_LINEAR if s < 1 else cv2.INTER_CUBIC,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    alpha = cv2.warpPerspective(np.ones(src.shape[:2], np.float32), Hs, (PW, PH), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    bend = None
    dxy = None
    if R.random() < 0.3 and not screen:
        dx, dy, amp = bend_field(R, PW, PH)
        yy, xx = np.mgrid[0:PH, 0:PW].astype(np.float32)
        warped = cv2.remap(warped, xx + dx, yy + dy, cv2.INTER_LINEAR)
        alpha = cv2.remap(alpha, xx + dx, yy + dy, cv2.INTER_LINEAR)
        bend = amp
        dxy = (dx, dy)
    bg, bg_kind = background(R, nrng, PW, PH, screen)
    if not screen:
        sh = cv2.GaussianBlur(np.roll(np.roll(alpha, R.randint(3, 15), 0), R.randint(-10, 10), 1), (0, 0), 8)
        bg *= (1 - 0.4 * sh)[..., None]
    a3 = alpha[..., None]
    photo = warped * a3 + bg * (1 - a3)
    cam["background"] = bg_kind
    cam["paper_bend_px"] = bend
    moire = None
    if screen:
        photo, moire = screen_moire(R, photo, np.linalg.inv(H), s, PW, PH)
    photo, light = lighting(R, nrng, photo, PW, PH)
    cam["light"] = light
    # target polygon in photo space (for checks and occluder avoidance)
    tb = target["box"]
    tpoly = apply_h(H, box_poly(tb, 0.2 * info["style"]["fs"]))
    if dxy is not None:
        ix = np.clip(np.round(tpoly[:, 0]).astype(int), 0, PW - 1)
        iy = np.clip(np.round(tpoly[:, 1]).astype(int), 0, PH - 1)
        tpoly = tpoly - np.stack([dxy[0][iy, ix], dxy[1][iy, ix]], 1)
    occ_info = None
    if R.random() < 0.2:
        occ = make_occluder(R, nrng, PW, PH, tpoly)
        if occ:
            occ_info = composite_occluder(R, nrng, photo, occ)
    # optics and sensor
    blur = {}
    r = R.random()
    if r < 0.15:
        ln = R.randint(3, 9)
        kern = np.zeros((ln, ln), np.float32)
        kern[ln // 2, :] = 1
        M = cv2.getRotationMatrix2D((ln / 2 - 0.5, ln / 2 - 0.5), R.uniform(0, 180), 1)
        kern = cv2.warpAffine(kern, M, (ln, ln))
        kern /= kern.sum()
        photo = cv2.filter2D(photo, -1, kern)
        blur = {"type": "motion", "len": ln}
    elif r < 0.8:
        sg = R.uniform(0.4, 1.6)
        photo = cv2.GaussianBlur(photo, (0, 0), sg)
        blur = {"type": "gaussian", "sigma": round(sg, 2)}
    else:
        blur = {"type": "none"}
    if R.random() < 0.1:
        sg = R.uniform(1.5, 2.5)
        b2 = cv2.GaussianBlur(photo, (0, 0), sg)
        yy = np.linspace(0, 1, PH, dtype=np.float32)[:, None, None]
        w = np.clip((yy - R.uniform(0.6, 0.9)) * 5, 0, 1) if R.random() < 0.5 else np.clip((R.uniform(0.1, 0.4) - yy) * 5, 0, 1)
        photo = photo * (1 - w) + b2 * w
        blur["depth_of_field"] = round(sg, 2)
    if R.random() < 0.4:
        amt = R.uniform(0.3, 1.0)
        bl = cv2.GaussianBlur(photo, (0, 0), 1.5)
        photo = photo + amt * (photo - bl)
        cam["sharpen"] = round(amt, 2)
    nz = R.uniform(0.005, 0.03)
    noise = nrng.normal(0, 1, photo.shape).astype(np.float32) * nz * np.sqrt(np.clip(photo, 0.02, 1))
    chroma = cv2.resize(nrng.normal(0, nz * 0.6, (PH // 2, PW // 2, 3)).astype(np.float32), (PW, PH))
    photo = photo + noise + chroma
    gamma = R.uniform(0.9, 1.1)
    photo = np.clip(photo, 0, 1) ** gamma
    out = (photo * 255 + 0.5).astype(np.uint8)
    q = R.randint(55, 95)
    path = os.path.join(out_dir, name + ".jpg")
    im = Image.fromarray(out)
    if R.random() < 0.15:   # re-compressed (shared through a chat app)
        import io
        b = io.BytesIO()
        im.save(b, "JPEG", quality=R.randint(70, 92))
        b.seek(0)
        im = Image.open(b).convert("RGB")
        cam["double_jpeg"] = True
    im.save(path, "JPEG", quality=q)
    cam.update({"blur": blur, "noise_sigma": round(nz, 4), "gamma": round(gamma, 3), "jpeg_quality": q,
                "screen_moire": moire})
    # visibility of the other problems
    neighbours = []
    for pr in probs:
        if pr is target:
            continue
        e = apply_h(H, dense_edge(pr["box"], 8))
        inside = ((e[:, 0] >= 0) & (e[:, 0] < PW) & (e[:, 1] >= 0) & (e[:, 1] < PH)).mean()
        vis = "full" if inside == 1 else ("partial" if inside > 0 else "outside")
        if vis == "outside":
            q4 = apply_h(H, box_poly(pr["box"]))
            if poly_contains(q4, (PW / 2, PH / 2)):
                vis = "partial"
        rel = "above" if pr["box"][3] <= target["box"][1] and pr["col"] == target["col"] else (
            "below" if pr["box"][1] >= target["box"][3] and pr["col"] == target["col"] else "other_column")
        neighbours.append({"id": pr["id"], "number": pr["number"], "label": pr["label"], "position": rel,
                           "visible": vis})
    st = info["style"]
    meta = {
        "qid": name, "file": name + ".jpg", "expected_id": entry["id"], "subject": entry.get("subject"),
        "page_type": info["page_type"], "columns": info["columns"], "lang": info["lang"],
        "screen_photo": screen,
        "fonts": {"cjk": CJK_FACES[st["cjk"]][0], "cjk_style": st["cjk"],
                  "latin": LATIN_FACES[st["latin"]][0] if st["latin"] else None,
                  "size_px": st["fs"], "bold": st["bold"], "label_bold": st["label_bold"],
                  "line_pitch": round(st["pitch"], 2), "ink": st["ink"]},
        "render": {"scripts": st["opts"]["script"], "blanks": st["opts"]["blank"],
                   "fractions_stacked": st["opts"]["frac"], "sqrt_bar": st["opts"]["sqrt_bar"],
                   "hanging_indent": info["hanging_indent"], "gap_lines": info["gap_lines"],
                   "answer_rules": info["answer_rules"], "answer_prompt": info["answer_prompt"],
                   "crease": crease, "bleed_through": info.get("bleed_through", False)},
        "number_style": info["num_style"], "note_style": info["note_style"], "note_position": info["note_pos"],
        "target": {"number": target["number"], "label": target["label"], "note": target["note"],
                   "column": target["col"], "lines": len(target["lines"]),
                   "photo_polygon": [[round(float(x), 1), round(float(y), 1)] for x, y in tpoly]},
        "header": info["header"], "sections": info["sections"], "footer": info["footer"],
        "neighbours": neighbours,
        "n_above_visible_full": sum(1 for n in neighbours if n["position"] == "above" and n["visible"] == "full"),
        "n_below_visible_full": sum(1 for n in neighbours if n["position"] == "below" and n["visible"] == "full"),
        "marks": marks, "occluder": occ_info, "camera": cam,
    }
    return meta


# ----------------------------------------------------------------------------------
def summarize(metas):
    n = len(metas)
    c = lambda f: round(100.0 * sum(1 for m in metas if f(m)) / max(n, 1), 1)
    s = {
        "photos": n,
        "page_type": {k: c(lambda m, k=k: m["page_type"] == k) for k in ["one_column", "two_column", "answer_space"]},
        "header_line": c(lambda m: bool(m["header"])),
        "section_headings": c(lambda m: bool(m["sections"])),
        "score_note": c(lambda m: m["target"]["note"] is not None),
        "lang_zh_page": c(lambda m: m["lang"] == "zh"),
        "screen_moire": c(lambda m: m["screen_photo"]),
        "occluder_finger": c(lambda m: (m["occluder"] or {}).get("type") == "finger"),
        "occluder_pen": c(lambda m: (m["occluder"] or {}).get("type") == "pen"),
        "circled_number": c(lambda m: any(k["type"] == "circled_number" for k in m["marks"])),
        "red_tick_or_cross_near_target": c(lambda m: any(k["type"] in ("tick", "cross") and k["target"] for k in m["marks"])),
        "handwriting": c(lambda m: any(k["type"] in ("handwriting", "score", "scribble") for k in m["marks"])),
        "underline_or_highlight_on_target": c(lambda m: any(k["type"] in ("underline", "wavy_underline", "highlighter") for k in m["marks"])),
        "any_mark": c(lambda m: bool(m["marks"])),
        "size_1280x960_landscape": c(lambda m: m["camera"]["size"] == [1280, 960]),
        "size_960x1280_portrait": c(lambda m: m["camera"]["size"] == [960, 1280]),
        "size_other": c(lambda m: m["camera"]["size"] not in ([1280, 960], [960, 1280])),
        "rotation_abs_gt_8deg": c(lambda m: abs(m["camera"]["rotation_deg"]) > 8),
        "shadow": c(lambda m: "shadow" in m["camera"]["light"]),
        "paper_bend": c(lambda m: bool(m["camera"]["paper_bend_px"])),
        "motion_blur": c(lambda m: m["camera"]["blur"]["type"] == "motion"),
        "neighbour_cut_at_edge": c(lambda m: any(x["visible"] == "partial" for x in m["neighbours"])),
        "full_neighbour_above_and_below_visible": c(lambda m: m["n_above_visible_full"] > 0 and m["n_below_visible_full"] > 0),
        "blank_as_line": c(lambda m: m["render"]["blanks"] == "line"),
        "scripts_raised_print": c(lambda m: m["render"]["scripts"] == "print"),
    }
    for key in ["cjk_style", "latin"]:
        d = {}
        for m in metas:
            v = str(m["fonts"][key])
            d[v] = d.get(v, 0) + 1
        s["font_" + key] = {k: round(100.0 * v / n, 1) for k, v in sorted(d.items())}
    d = {}
    for m in metas:
        d[m["number_style"]] = d.get(m["number_style"], 0) + 1
    s["number_style"] = {k: round(100.0 * v / n, 1) for k, v in sorted(d.items())}
    return s


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bank", required=True)
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    t0 = time.time()
    load_fonts()
    bank = [json.loads(l) for l in open(a.bank, encoding="utf-8") if l.strip()]
    pools = {"zh": [b for b in bank if is_zh(b["question"])], "en": [b for b in bank if not is_zh(b["question"])]}
    rng = random.Random(a.seed)
    order = []
    while len(order) < a.count:   # without replacement; a new permutation only if count > bank size
        p = list(range(len(bank)))
        rng.shuffle(p)
        order += p
    order = order[:a.count]
    os.makedirs(a.out, exist_ok=True)
    width = max(3, len(str(a.count)))
    jobs = [(i, a.seed, bank[order[i]], bank, pools, a.out, "p%0*d" % (width, i + 1)) for i in range(a.count)]
    if a.workers > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(a.workers) as pool:
            metas = list(pool.imap(make_photo, jobs, chunksize=1))
    else:
        metas = [make_photo(j) for j in jobs]
    with open(os.path.join(a.out, "truth.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["qid", "text"])
        for j, m in zip(jobs, metas):
            w.writerow([m["qid"], j[2]["question"]])
    with open(os.path.join(a.out, "queries.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for j, m in zip(jobs, metas):
            w.writerow([m["qid"], j[2]["question"], j[2]["id"], "exact"])
    with open(os.path.join(a.out, "meta.jsonl"), "w", encoding="utf-8") as f:
        for m in metas:
            f.write(json.dumps(m, ensure_ascii=False) + "\n")
    s = summarize(metas)
    s["seed"], s["count"], s["workers"], s["wall_s"] = a.seed, a.count, a.workers, round(time.time() - t0, 1)
    with open(os.path.join(a.out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(s, f, ensure_ascii=False, indent=1)
    print(json.dumps(s, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
