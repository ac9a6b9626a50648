#!/usr/bin/env python3
"""Synthetic phone photos of printed homework pages, each framing ONE bank problem.

Usage:
    make_photos.py --bank BANK OUT_DIR --count 120 --seed 201 [--jobs 2] [--only 3,17]

Photo i draws every random number from
    np.random.default_rng(np.random.SeedSequence([seed, i]))
so a run is reproducible byte for byte and --only remakes the same photos.
See README.md in this folder for the framing rule and the output fields.
"""
import argparse
import csv
import json
import math
import os
import re
import time

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

GENERATOR_VERSION = "tune19-1"
R = 16.0                       # page render resolution, pixels per millimetre
PT = 0.3528                    # millimetres per typographic point

# --------------------------------------------------------------------------------------
# framing rule constants (also written into every meta row; check.py re-applies them)
# --------------------------------------------------------------------------------------
EDGE_MARGIN_FRAC = 0.03        # target text hull + label at least 3 % of short side from edges
CLAIM_MARGIN_FRAC = 0.05       # every other problem hull >= max(5 % short side, 1 line height)
CLAIM_MARGIN_LINES = 1.0
OCCLUDER_PAD_FRAC = 0.03       # occluders stay >= 3 % short side away from target hull
FAR_MIN_OTHERS = 8             # "far": >= 8 other problems with >= 50 % of their hull in view
INVIEW_FRAC = 0.5
CENTROID_MARGIN_FRAC = 0.02    # every other hull centroid >= 1.15 x (target centroid distance) + 2 % short side
CENTROID_FACTOR = 1.15         #   from the image centre
FAR_AIM_FRAC = 0.1             # far shots: target centroid within 10 % short side of the centre (generation only)
CLOSE_LINE_FRAC = 0.045        # "close": target text line height >= 4.5 % of short side, or
CLOSE_WIDTH_FRAC = 0.7         #          target hull >= 70 % of image width with line height
CLOSE_LINE_FRAC2 = 0.038       #          >= 3.8 % of short side
OFFCENTRE_FRAC = 0.12          # "off_centre": hull centroid >= 12 % of short side from centre

# --------------------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------------------
NOTO = "/usr/share/fonts/opentype/noto/"
LIB = "/usr/share/fonts/truetype/liberation/"
DJV = "/usr/share/fonts/truetype/dejavu/"
FONT_FILES = {
    "serif_cjk": (NOTO + "NotoSerifCJK-Regular.ttc", "Noto Serif CJK SC"),
    "serif_cjk_b": (NOTO + "NotoSerifCJK-Bold.ttc", "Noto Serif CJK SC"),
    "sans_cjk": (NOTO + "NotoSansCJK-Regular.ttc", "Noto Sans CJK SC"),
    "sans_cjk_b": (NOTO + "NotoSansCJK-Bold.ttc", "Noto Sans CJK SC"),
    "lib_serif": (LIB + "LiberationSerif-Regular.ttf", None),
    "lib_serif_b": (LIB + "LiberationSerif-Bold.ttf", None),
    "lib_serif_i": (LIB + "LiberationSerif-Italic.ttf", None),
    "lib_sans": (LIB + "LiberationSans-Regular.ttf", None),
    "lib_sans_b": (LIB + "LiberationSans-Bold.ttf", None),
    "lib_sans_i": (LIB + "LiberationSans-Italic.ttf", None),
    "lib_narrow": (LIB + "LiberationSansNarrow-Regular.ttf", None),
    "lib_narrow_b": (LIB + "LiberationSansNarrow-Bold.ttf", None),
    "lib_narrow_i": (LIB + "LiberationSansNarrow-Italic.ttf", None),
    "dv_serif": (DJV + "DejaVuSerif.ttf", None),
    "dv_serif_b": (DJV + "DejaVuSerif-Bold.ttf", None),
    "dv_serif_i": (DJV + "DejaVuSerif-Italic.ttf", None),
    "dv_sans": (DJV + "DejaVuSans.ttf", None),
    "dv_sans_b": (DJV + "DejaVuSans-Bold.ttf", None),
    "dv_sans_i": (DJV + "DejaVuSans-Oblique.ttf", None),
    "dv_cond": (DJV + "DejaVuSansCondensed.ttf", None),
    "dv_cond_b": (DJV + "DejaVuSansCondensed-Bold.ttf", None),
    "dv_cond_i": (DJV + "DejaVuSansCondensed-Oblique.ttf", None),
}
FONT_NAMES = {
    "serif_cjk": "Noto Serif CJK SC", "sans_cjk": "Noto Sans CJK SC",
    "lib_serif": "Liberation Serif", "lib_sans": "Liberation Sans",
    "lib_narrow": "Liberation Sans Narrow", "dv_serif": "DejaVu Serif",
    "dv_sans": "DejaVu Sans", "dv_cond": "DejaVu Sans Condensed",
}


class Fonts:
    """Lazy cache of FreeType faces, widths, ink boxes and cmaps."""

    def __init__(self):
        self._faces = {}
        self._index = {}
        self._cmap = {}
        self._len = {}
        self._bbox = {}

    def reset(self):
        self._faces.clear()
        self._len.clear()
        self._bbox.clear()

    def _ttc_index(self, key):
        if key in self._index:
            return self._index[key]
        path, family = FONT_FILES[key]
        idx = 0
        if family:
            from fontTools.ttLib import TTCollection
            coll = TTCollection(path, lazy=True)
            for i, f in enumerate(coll.fonts):
                if f["name"].getDebugName(1) == family:
                    idx = i
                    break
        self._index[key] = idx
        return idx

    def face(self, key, size):
        size = max(4, int(round(size)))
        k = (key, size)
        f = self._faces.get(k)
        if f is None:
            path, _ = FONT_FILES[key]
            f = ImageFont.truetype(path, size, index=self._ttc_index(key),
                                   layout_engine=ImageFont.Layout.BASIC)
            self._faces[k] = f
        return f

    def has(self, key, ch):
        cm = self._cmap.get(key)
        if cm is None:
            from fontTools.ttLib import TTFont
            path, _ = FONT_FILES[key]
            if path.endswith(".ttc"):
                cm = set(TTFont(path, fontNumber=self._ttc_index(key), lazy=True).getBestCmap())
            else:
                cm = set(TTFont(path, lazy=True).getBestCmap())
            self._cmap[key] = cm
        return ord(ch) in cm

    def length(self, key, size, text):
        k = (key, int(round(size)), text)
        v = self._len.get(k)
        if v is None:
            v = self.face(key, size).getlength(text)
            self._len[k] = v
        return v

    def bbox(self, key, size, text):
        k = (key, int(round(size)), text)
        v = self._bbox.get(k)
        if v is None:
            v = self.face(key, size).getbbox(text, anchor="ls")
            self._bbox[k] = v
        return v


FONTS = None


def fonts():
    global FONTS
    if FONTS is None:
        FONTS = Fonts()
    return FONTS


def base_of(key):
    return key[:-2] if key.endswith(("_b", "_i")) else key


def font_label(key):
    """human name of a font key, e.g. lib_serif_b -> 'Liberation Serif Bold'"""
    base = base_of(key)
    nm = FONT_NAMES.get(base, base)
    if key.endswith("_b"):
        nm += " Bold"
    elif key.endswith("_i"):
        nm += " Italic"
    return nm


def bold_of(key):
    return base_of(key) + "_b"


def italic_of(key):
    k = base_of(key)
    return k if k.endswith("_cjk") else k + "_i"


# --------------------------------------------------------------------------------------
# characters
# --------------------------------------------------------------------------------------
CLOSE_PUNCT = set("，。、；：？！）》」』】〕”’,.;:?!)]}%°℃…·～")
OPEN_PUNCT = set("（《「『【〔“‘([{")
SUP = {"²": "2", "³": "3", "¹": "1", "⁰": "0", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
       "⁸": "8", "⁹": "9", "⁺": "+", "⁻": "-", "ⁿ": "n"}
SUB = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7",
       "₈": "8", "₉": "9", "ₙ": "n", "ₓ": "x", "₊": "+", "₋": "-"}
CJK_FONT_CHARS = set("“”‘’…—①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳★☆□■△○●")


def is_cjk(ch):
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x3000 <= o <= 0x303F
            or 0xFF00 <= o <= 0xFFEF or 0x2460 <= o <= 0x2473)


def has_cjk(text):
    return any(0x4E00 <= ord(c) <= 0x9FFF for c in text)


def lang_of(text):
    return "zh" if has_cjk(text) else "en"


def circled(n):
    return chr(0x2460 + n - 1) if 1 <= n <= 20 else "(%d)" % n


# --------------------------------------------------------------------------------------
# text layout engine
# --------------------------------------------------------------------------------------
class FontSet:
    def __init__(self, cjk, latin, cjk_bold=None):
        self.cjk = cjk                  # e.g. serif_cjk
        self.latin = latin              # e.g. lib_serif, or None -> use cjk's own Latin
        self.cjk_bold = cjk_bold or bold_of(cjk)

    def pick(self, ch, style):
        F = fonts()
        bold = style == "b"
        ital = style == "i"
        cjk = self.cjk_bold if bold else self.cjk
        if is_cjk(ch) or ch in CJK_FONT_CHARS or (ch == "℃" and self.latin is None):
            return cjk
        lat = self.latin
        if lat is None:
            lat = cjk
        elif bold:
            lat = bold_of(lat)
        elif ital:
            lat = italic_of(lat)
        else:
            lat = lat
        if F.has(lat, ch):
            return lat
        alt = "dv_sans_b" if bold else ("dv_sans_i" if ital else "dv_sans")
        if F.has(alt, ch):
            return alt
        return cjk


def rich(text, role, style="n"):
    return [(c, role, style) for c in text]


def _runs_of(chars, fs, size):
    """chars -> list of runs: dict(text, fk, size, dy, role, kind, w)."""
    F = fonts()
    runs = []
    i = 0
    n = len(chars)
    while i < n:
        ch, role, style = chars[i]
        if ch == "_":
            j = i
            while j < n and chars[j][0] == "_":
                j += 1
            cnt = j - i
            w = size * max(2.6, 0.55 * cnt + 1.1)
            runs.append(dict(text="_" * cnt, fk=None, size=size, dy=0.0, role=role,
                             kind="blank", w=w))
            i = j
            continue
        if ch in SUP:
            t, sc, dy = SUP[ch], 0.62, -0.36
        elif ch in SUB:
            t, sc, dy = SUB[ch], 0.62, 0.17
        else:
            t, sc, dy = ch, 1.0, 0.0
        fk = fs.pick(t if t.strip() else "a", style)
        sz = size * sc
        key = (fk, int(round(sz)), dy, role)
        if runs and runs[-1]["kind"] == "t" and runs[-1]["key"] == key:
            runs[-1]["text"] += t
        else:
            runs.append(dict(text=t, fk=fk, size=int(round(sz)), dy=dy * size, role=role,
                             kind="t", key=key, w=0.0))
        i += 1
    for r in runs:
        if r["kind"] == "t":
            r["w"] = F.length(r["fk"], r["size"], r["text"])
    return runs


def make_units(rc, fs, size):
    """Break rich chars into unbreakable units (English words whole, CJK per character,
    closing punctuation glued to what precedes it, opening punctuation glued to what follows)."""
    atoms = []
    i = 0
    n = len(rc)
    while i < n:
        ch = rc[i][0]
        if ch == " ":
            atoms.append(None)
            i += 1
        elif ch == "_":
            j = i
            while j < n and rc[j][0] == "_":
                j += 1
            atoms.append(rc[i:j])
            i = j
        elif is_cjk(ch) or ch in CJK_FONT_CHARS:
            atoms.append(rc[i:i + 1])
            i += 1
        else:
            j = i
            while j < n and rc[j][0] not in " _" and not is_cjk(rc[j][0]) and rc[j][0] not in CJK_FONT_CHARS:
                j += 1
            atoms.append(rc[i:j])
            i = j
    units = []
    pend_space = False
    for a in atoms:
        if a is None:
            pend_space = True
            continue
        first = a[0][0]
        if units and (first in CLOSE_PUNCT or units[-1]["chars"][-1][0] in OPEN_PUNCT):
            if pend_space:
                units[-1]["chars"] = units[-1]["chars"] + [(" ", a[0][1], a[0][2])]
            units[-1]["chars"] = units[-1]["chars"] + list(a)
        else:
            units.append(dict(chars=list(a), sp=pend_space and bool(units)))
        pend_space = False
    for u in units:
        u["runs"] = _runs_of(u["chars"], fs, size)
        u["w"] = sum(r["w"] for r in u["runs"])
    return units


def space_width(fs, size):
    F = fonts()
    return F.length(fs.latin or fs.cjk, size, " ")


def flow_units(units, width, first_off, hang_off, spw):
    lines = []
    cur = []
    x = first_off
    for u in units:
        sp = spw if (u["sp"] and cur) else 0.0
        if cur and x + sp + u["w"] > width + 0.01:
            lines.append(cur)
            cur = []
            x = hang_off
            sp = 0.0
        cur.append((u, x + sp))
        x += sp + u["w"]
    if cur:
        lines.append(cur)
    return lines


class Sink:
    """Collects drawing operations and ink boxes (page pixels)."""

    def __init__(self):
        self.ops = []
        self.ink = []            # (x0,y0,x1,y1,role)

    def extend(self, other):
        self.ops.extend(other.ops)
        self.ink.extend(other.ink)


def place_text(sink, rc, fs, size, x, width, y_top, leading, first_off=0.0, hang_off=0.0,
               gray=0, max_lines=None, align="left"):
    """Lay out rich text; returns dict(lines=[...], bottom=y, line_boxes={role: [per-line box]})."""
    F = fonts()
    units = make_units(rc, fs, size)
    lines = flow_units(units, width, first_off, hang_off, space_width(fs, size))
    if max_lines is not None:
        lines = lines[:max_lines]
    lead = size * leading
    asc = 0.88 * size
    out_lines = []
    for li, line in enumerate(lines):
        base = y_top + asc + li * lead
        shift = 0.0
        if align != "left" and line:
            endx = line[-1][1] + line[-1][0]["w"]
            startx = line[0][1]
            if align == "center":
                shift = (width - (endx - startx)) / 2.0 - startx
            elif align == "right":
                shift = width - endx
        boxes = {}
        texts = {}
        fused = {}
        for j, (u, ux) in enumerate(line):
            seq = ([(" ", u["chars"][0][1], "n")] if (j > 0 and u["sp"]) else []) + list(u["chars"])
            for c, role, _ in seq:
                texts[role] = texts.get(role, "") + c
        xend = x
        for u, ux in line:
            rx = x + ux + shift
            for r in u["runs"]:
                if r["kind"] == "blank":
                    th = max(2.0, 0.055 * r["size"])
                    yb = base + 0.12 * r["size"]
                    sink.ops.append(("line", rx, yb, rx + r["w"], yb, th, gray))
                    box = (rx, yb - th, rx + r["w"], yb + th)
                else:
                    sink.ops.append(("text", rx, base + r["dy"], r["text"], r["fk"], r["size"], gray))
                    bb = F.bbox(r["fk"], r["size"], r["text"])
                    if bb[2] > bb[0]:
                        box = (rx + bb[0], base + r["dy"] + bb[1], rx + bb[2], base + r["dy"] + bb[3])
                    else:
                        box = None
                if r["kind"] == "t":
                    fused.setdefault(r["role"], set()).add(r["fk"])
                if box is not None:
                    sink.ink.append(box + (r["role"],))
                    b = boxes.get(r["role"])
                    boxes[r["role"]] = box if b is None else (min(b[0], box[0]), min(b[1], box[1]),
                                                               max(b[2], box[2]), max(b[3], box[3]))
                rx += r["w"]
            xend = rx
        out_lines.append(dict(base=base, boxes=boxes, texts=texts, fonts=fused, xend=xend,
                              units=[(u, x + ux + shift) for u, ux in line]))
    bottom = y_top + (len(lines) - 1) * lead + 1.22 * size if lines else y_top
    return dict(lines=out_lines, bottom=bottom, lead=lead)


def text_width(rc, fs, size):
    units = make_units(rc, fs, size)
    spw = space_width(fs, size)
    w = 0.0
    for i, u in enumerate(units):
        w += u["w"] + (spw if (u["sp"] and i) else 0.0)
    return w


# --------------------------------------------------------------------------------------
# filler text
# --------------------------------------------------------------------------------------
SCHOOLS_EN = ["Riverside Middle School", "Greenfield Academy", "Maple Grove High School",
              "St. Anne's Secondary School", "Hillcrest International School", "Lakeview Junior High"]
SCHOOLS_ZH = ["北京市第十二中学", "杭州市实验中学", "成都市育才学校", "南京市第一中学",
              "广州市东山中学", "武汉市外国语学校", "上海市建平中学"]
TITLES_EN = {"exam": ["Mid-Term Examination", "End of Term Test", "Unit Test 3", "Final Examination"],
             "worksheet": ["Revision Worksheet", "Practice Worksheet 5", "Year 8 Review Sheet",
                           "General Knowledge Worksheet"],
             "homework": ["Homework 7", "Weekend Homework", "Homework Sheet - Week 12", "Holiday Homework"],
             "textbook": ["Chapter 3  Review", "Unit 5  Practice", "Section 2.4"]}
TITLES_ZH = {"exam": ["七年级期中测试卷", "八年级单元检测", "九年级第一学期期末考试", "综合能力测试卷"],
             "worksheet": ["课后练习", "基础巩固练习", "知识点复习学案", "综合练习（二）"],
             "homework": ["家庭作业（第7周）", "寒假作业", "周末作业", "课时作业"],
             "textbook": ["第三章 复习题", "第二单元 练习", "第5节 课后习题"]}
CHAPTERS_EN = ["Chapter 3  Equations", "Unit 5  Forces and Motion", "Chapter 7  Chemistry Basics",
               "Unit 2  The Living World", "Chapter 4  Review"]
CHAPTERS_ZH = ["第三章 一元一次方程", "第二单元 力与运动", "第五章 化学方程式", "第一单元 生物体的结构",
               "第四章 综合复习"]
INSTR_EN = ["Answer ALL questions.", "Answer ALL questions in the spaces provided.",
            "Show all your working clearly.", "Write your answers in the spaces provided.",
            "Calculators may be used.", "Read each question carefully before answering."]
INSTR_ZH = ["请将答案写在答题区域内。", "解答应写出文字说明、证明过程或演算步骤。",
            "本卷共4页，满分100分，考试时间90分钟。", "请认真审题，仔细作答。", "答题时请保持卷面整洁。"]
HINTS_EN = ["show all your working.", "write the formula first.", "check your units.",
            "draw a diagram to help you.", "think about the definition.", "look at the key words."]
HINTS_ZH = ["注意单位换算。", "先写出公式，再代入数据。", "可以画图帮助分析。", "回忆课本上的相关知识。",
            "注意题目中的关键词。", "先列式，再计算。"]
CN_NUM = "一二三四五六七八"
SECTION_EN = {"choice": ["Multiple Choice", "Choose the best answer"],
              "fill": ["Short Answer", "Fill in the blanks"],
              "solve": ["Structured Questions", "Working Questions", "Long Answer"]}
SECTION_ZH = {"choice": "选择题", "fill": "填空题", "solve": "解答题"}
SECTION_ZH_ALT = {"choice": "单项选择", "fill": "填空", "solve": "计算题"}


def clean_answer(ans):
    s = ans.replace("$", "")
    for _ in range(3):
        s = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", s)
        s = re.sub(r"\\sqrt\{([^{}]*)\}", r"√\1", s)
    supm = {"2": "²", "3": "³"}
    s = re.sub(r"\^\{?([23])\}?", lambda m: supm[m.group(1)], s)
    subd = {str(k): v for k, v in zip(range(10), "₀₁₂₃₄₅₆₇₈₉")}
    s = re.sub(r"_\{(\d+)\}", lambda m: "".join(subd[c] for c in m.group(1)), s)
    s = re.sub(r"_(\d)", lambda m: subd[m.group(1)], s)
    s = s.replace("_n", "ₙ")
    for a, b in [("\\sin", "sin"), ("\\cos", "cos"), ("\\rho", "ρ"), ("\\times", "×"),
                 ("\\div", "÷"), ("\\cdot", "·"), ("\\pi", "π"), ("\\cap", "∩"), ("\\cup", "∪")]:
        s = s.replace(a, b)
    s = re.sub(r"\\[a-zA-Z]+", "", s)
    s = s.replace("{", "").replace("}", "").replace("^", "").replace("_", "")
    return re.sub(r"\s+", " ", s).strip()


NUM_RE = re.compile(r"-?\d+(?:\.\d+)?")
BAD_EN = {"the", "a", "an", "so", "and", "but", "although", "because", "which", "that", "this", "there", "it",
          "we", "they", "he", "she", "in", "of", "to", "for", "on", "at", "by", "with", "from", "answer", "e"}


def fmt_num(v):
    if abs(v - round(v)) < 1e-9:
        return str(int(round(v)))
    return ("%.2f" % v).rstrip("0").rstrip(".")


def make_options(rng, rec, bank):
    ans = clean_answer(rec["answer"])
    nums = [float(x) for x in NUM_RE.findall(ans)]
    lang = lang_of(rec["question"])
    opts = None
    numeric_q = bool(re.search(r"\d|多少|几|哪一年|[Hh]ow (many|far|much)|[Ww]hat year|[Ss]peed|[Ss]lope|[Ss]um", rec["question"]))
    if nums and numeric_q and rng.random() < 0.85:
        v = nums[-1]
        cands = [v, v + 1, v - 1, v * 2, v + 2, v + 10, v / 2 if v else 3, v * 3 + 1]
        seen = []
        for c in cands:
            t = fmt_num(c)
            if t not in seen:
                seen.append(t)
        if len(seen) >= 4:
            opts = [seen[0]] + [seen[k] for k in rng.choice(np.arange(1, len(seen)), 3, replace=False)]
    if opts is None:
        subj = [r for r in bank if r["subject"] == rec["subject"]]
        srcs = [rec] + [subj[k] for k in rng.permutation(len(subj))[:14]]
        quoted, plain = [], []
        for r in srcs:
            a = clean_answer(r["answer"])
            for m in re.findall(r"[“\"《]([^”\"》]{1,14})[”\"》]", a):
                if lang_of(m) == lang:
                    quoted.append(m.strip())
            for ph in re.split(r"[，。；：、,.;:（）()“”\"!?？！=]", a):
                ph = ph.strip()
                if lang == "zh":
                    if (has_cjk(ph) and 2 <= len(ph) <= 7 and ph[-1] not in "是的为了在有和与及"
                            and not ph.startswith(("所以", "因为", "即", "它", "这", "由", "从", "答", "得", "下一句"))):
                        plain.append(ph)
                else:
                    wds = ph.split()
                    if (not has_cjk(ph) and 1 <= len(wds) <= 3 and 2 <= len(ph) <= 18 and wds[0].lower() not in
                            BAD_EN and not any(w.lower() in ("is", "are", "was", "so", "we", "it") for w in wds)):
                        plain.append(ph)
        uniq = []
        for p in quoted + plain:
            if p and p not in uniq:
                uniq.append(p)
        if len(uniq) < 4:
            uniq += [x for x in (["甲", "乙", "丙", "丁"] if lang == "zh" else ["none of these", "both", "neither", "all"])
                     if x not in uniq]
        opts = uniq[:4]
    order = rng.permutation(4)
    return [opts[k] for k in order]


# --------------------------------------------------------------------------------------
# page specification (all random choices for the page are drawn here)
# --------------------------------------------------------------------------------------
LABELS_EN = ["1.", "1)", "(1)", "Q1.", "Q1", "Question 1", "Ex. 1", "1", "none"]
LABELS_ZH = ["1.", "1、", "（1）", "①", "第1题", "【1】", "1．", "none"]
SUBLABELS_EN = ["(a)", "a)", "(i)"]
SUBLABELS_ZH = ["（1）", "(1)", "①"]
ROMAN = ["i", "ii", "iii", "iv", "v"]


def label_text(style, n):
    if style == "none":
        return ""
    if style == "①":
        return circled(n)
    if style == "Question 1":
        return "Question %d" % n
    return style.replace("1", str(n), 1)


def sublabel_text(style, k):
    if style == "(a)":
        return "(%s)" % "abcdef"[k]
    if style == "a)":
        return "%s)" % "abcdef"[k]
    if style == "(i)":
        return "(%s)" % ROMAN[k]
    if style == "①":
        return circled(k + 1)
    return style.replace("1", str(k + 1), 1)


def choose(rng, items, p=None):
    if p is not None:
        p = np.asarray(p, float)
        p = p / p.sum()
    return items[int(rng.choice(len(items), p=p))]


def make_page_spec(rng, bank, target_idx, mode):
    tq = bank[target_idx]
    tlang = lang_of(tq["question"])
    S = {}
    S["bilingual"] = bool(rng.random() < 0.15)
    S["lang"] = tlang
    S["ptype"] = choose(rng, ["worksheet", "exam", "textbook", "homework"], [0.3, 0.3, 0.2, 0.2])
    hl = "zh" if (tlang == "zh") else "en"
    if S["bilingual"] and rng.random() < 0.5:
        hl = "en" if hl == "zh" else "zh"
    S["hlang"] = hl                                   # language of headings / filler
    if S["ptype"] == "textbook" and rng.random() < 0.5:
        S["page_mm"] = (182.0, 257.0)
    else:
        S["page_mm"] = (210.0, 297.0)
    # columns
    if mode == "far":
        S["cols"] = 2 if rng.random() < 0.85 else 1
    else:
        S["cols"] = 2 if rng.random() < (0.55 if mode == "close" else 0.4) else 1
    S["gutter"] = float(rng.uniform(5, 28)) if S["cols"] == 2 else 0.0
    S["gutter_rule"] = bool(S["cols"] == 2 and S["gutter"] > 9 and rng.random() < 0.5)
    wide_left = S["cols"] == 1 and rng.random() < 0.35
    S["margin_l"] = float(rng.uniform(30, 48)) if wide_left else float(rng.uniform(13, 24))
    S["margin_r"] = float(rng.uniform(11, 22))
    S["margin_t"] = float(rng.uniform(12, 22))
    S["margin_b"] = float(rng.uniform(14, 24))
    S["wide_left"] = wide_left
    S["margin_line"] = bool(wide_left and rng.random() < 0.5)   # printed vertical margin rule
    # fonts
    if hl == "zh" or S["bilingual"] or tlang == "zh":
        cjk = choose(rng, ["serif_cjk", "sans_cjk"], [0.65, 0.35])
    else:
        cjk = choose(rng, ["serif_cjk", "sans_cjk"])
    if hl == "zh":
        latin = choose(rng, [None, "lib_serif", "dv_serif", "lib_sans"], [0.35, 0.35, 0.15, 0.15])
    else:
        latin = choose(rng, ["lib_serif", "lib_sans", "dv_serif", "dv_sans", "dv_cond", "lib_narrow"],
                       [0.3, 0.22, 0.16, 0.14, 0.1, 0.08])
    S["font_cjk"], S["font_latin"] = cjk, latin
    S["font_head_cjk"] = choose(rng, ["sans_cjk", "serif_cjk"], [0.6, 0.4])
    if mode == "far":
        S["pt"] = float(rng.uniform(10.0, 11.5))
    else:
        S["pt"] = float(rng.uniform(10.0, 12.5))
    S["leading"] = float(rng.uniform(1.3, 1.55) if hl == "en" else rng.uniform(1.4, 1.8))
    S["ink"] = int(rng.integers(10, 60))
    # problem styling
    S["label_style"] = choose(rng, LABELS_ZH if hl == "zh" else LABELS_EN,
                              [0.2, 0.18, 0.12, 0.12, 0.1, 0.1, 0.08, 0.1] if hl == "zh" else
                              [0.18, 0.12, 0.1, 0.12, 0.08, 0.1, 0.08, 0.1, 0.12])
    S["label_bold"] = bool(rng.random() < 0.45)
    S["hanging"] = bool(rng.random() < 0.6)
    S["sublabel_style"] = choose(rng, SUBLABELS_ZH if hl == "zh" else SUBLABELS_EN)
    S["sep"] = choose(rng, ["none", "boxes", "rules"], [0.45, 0.3, 0.25])
    S["box_round"] = bool(rng.random() < 0.3)
    S["spacing"] = choose(rng, ["tight", "normal", "generous"], [0.3, 0.45, 0.25])
    if mode == "far" and S["spacing"] == "generous":
        S["spacing"] = "normal"
    S["gap_mm"] = {"tight": float(rng.uniform(0.8, 2.2)), "normal": float(rng.uniform(3.5, 7.0)),
                   "generous": float(rng.uniform(10, 20))}[S["spacing"]]
    S["score_mode"] = choose(rng, ["none", "column", "inline"], [0.4, 0.35, 0.25])
    S["score_col_mm"] = float(rng.uniform(13, 19))
    S["score_fmt"] = choose(rng, ["（%d分）", "(%d分)", "【%d分】"] if hl == "zh" else
                            ["[%d]", "(%d marks)", "[%d marks]", "(%d)"])
    S["p_figure"] = 0.0 if mode == "far" and rng.random() < 0.5 else float(rng.uniform(0.1, 0.35))
    S["p_hint"] = float(rng.uniform(0.0, 0.3)) if rng.random() < 0.6 else 0.0
    S["p_group"] = float(rng.uniform(0.1, 0.3)) if rng.random() < 0.35 else 0.0
    S["answer_style"] = choose(rng, ["none", "ruled", "dotted", "box", "da_line", "mixed"],
                               [0.25, 0.18, 0.12, 0.1, 0.15, 0.2])
    if mode == "far" and S["answer_style"] in ("box", "ruled", "mixed") and rng.random() < 0.7:
        S["answer_style"] = choose(rng, ["da_line", "none", "dotted"])
    S["answer_lines"] = int(rng.integers(1, 4))
    S["header"] = bool(rng.random() < 0.85)
    S["footer"] = bool(rng.random() < 0.8)
    S["name_line"] = bool(S["ptype"] in ("worksheet", "exam", "homework") and rng.random() < 0.75)
    S["school"] = bool(S["ptype"] in ("exam", "worksheet") and rng.random() < 0.7)
    S["instructions"] = bool(rng.random() < 0.55)
    S["sections"] = bool(S["ptype"] == "exam" or rng.random() < 0.35)
    S["worked"] = bool(S["ptype"] == "textbook" and rng.random() < 0.85)
    S["p_options"] = 0.5
    if mode == "far":
        S["p_group"] = min(S["p_group"], 0.12)
        S["p_options"] = 0.3
        S["p_figure"] = S["p_figure"] * 0.4
        if S["spacing"] == "tight" and rng.random() < 0.6:
            S["spacing"] = "normal"
            S["gap_mm"] = float(rng.uniform(3.5, 7.0))
        S["worked"] = S["worked"] and rng.random() < 0.4
    S["start_no"] = int(rng.integers(1, 12))
    S["page_no"] = int(rng.integers(1, 5)) if S["ptype"] != "textbook" else int(rng.integers(12, 180))
    S["page_total"] = int(rng.integers(max(S["page_no"], 2), 7)) if S["page_no"] < 7 else S["page_no"] + 4
    S["title_idx"] = int(rng.integers(0, 100))
    S["school_idx"] = int(rng.integers(0, 100))
    # questions on the page
    if S["bilingual"]:
        pool = [k for k in range(len(bank)) if k != target_idx]
        # keep a real mix: about half in the other language
        other = [k for k in pool if lang_of(bank[k]["question"]) != tlang]
        same = [k for k in pool if lang_of(bank[k]["question"]) == tlang]
        o = [int(k) for k in rng.permutation(other)]
        s_ = [int(k) for k in rng.permutation(same)]
        mix = []
        turn = bool(rng.random() < 0.5)
        while o or s_:
            src = o if (turn and o) or not s_ else s_
            mix.append(src.pop())
            turn = not turn
        # light local shuffle so the alternation is not perfectly regular
        for j in range(0, len(mix) - 1, 2):
            if rng.random() < 0.3:
                mix[j], mix[j + 1] = mix[j + 1], mix[j]
        order = mix
    else:
        pool = [k for k in range(len(bank)) if k != target_idx and lang_of(bank[k]["question"]) == tlang]
        order = [int(k) for k in rng.permutation(pool)]
    S["others"] = order[:40]
    # per-question styling, drawn now so layout is deterministic
    qspecs = {}
    for k in [target_idx] + S["others"]:
        qspecs[k] = make_q_spec(rng, S, bank, k, k == target_idx)
    S["qspecs"] = qspecs
    S["target"] = target_idx
    S["target_slot"] = int(rng.integers(0, 9 if S["cols"] == 2 else 6))
    # where the framed problem sits in its column (decides whether header / footer / worked example show)
    if mode == "far":
        S["target_pos"] = choose(rng, ["middle", "lower"], [0.6, 0.4])
    elif S["worked"] and rng.random() < 0.6:
        S["target_pos"] = "top"
    else:
        S["target_pos"] = choose(rng, ["top", "middle", "bottom"], [0.3, 0.4, 0.3])
    return S


FIG_KINDS = ["triangle", "circuit", "axes", "numberline", "table"]


def make_q_spec(rng, S, bank, k, is_target):
    rec = bank[k]
    q = {}
    q["fig"] = None
    if rng.random() < S["p_figure"] * (1.6 if is_target else 1.0):
        kind = choose(rng, FIG_KINDS, [0.22, 0.2, 0.2, 0.16, 0.22])
        q["fig"] = dict(kind=kind, place=choose(rng, ["beside", "under"], [0.55, 0.45]),
                        w=float(rng.uniform(24, 38)), h=float(rng.uniform(18, 28)),
                        seed=int(rng.integers(0, 2 ** 31)))
    q["hint"] = None
    if rng.random() < S["p_hint"] * (1.5 if is_target else 1.0):
        lang = S["hlang"] if not S["bilingual"] else lang_of(rec["question"])
        if lang == "zh":
            kps = rec.get("knowledge_points") or []
            if kps and rng.random() < 0.5:
                q["hint"] = "提示：本题考查" + "、".join(kps[:2]) + "。"
            else:
                q["hint"] = "提示：" + choose(rng, HINTS_ZH)
        else:
            q["hint"] = "Hint: " + choose(rng, HINTS_EN)
    q["score"] = int(choose(rng, [2, 3, 4, 5, 6, 8]))
    st = S["answer_style"]
    if st == "mixed":
        st = choose(rng, ["none", "ruled", "dotted", "box", "da_line"])
    q["answer"] = st
    q["answer_lines"] = int(rng.integers(1, 4)) if st in ("ruled", "dotted") else 0
    q["answer_box_h"] = float(rng.uniform(12, 28))
    q["options"] = make_options(rng, rec, bank) if rng.random() < S["p_options"] else None
    q["opt_fmt"] = choose(rng, ["A. ", "A．", "(A) ", "A) "] if S["hlang"] == "en" or not has_cjk(rec["question"])
                          else ["A．", "A. ", "A、", "（A）"])
    q["group"] = bool(rng.random() < S["p_group"])
    q["group_n"] = int(rng.integers(2, 4))
    q["lead_in"] = choose(rng, ["回答下列问题：", "完成下列各题。", "根据所学知识回答："] if S["hlang"] == "zh"
                          else ["Answer the following.", "Complete each of the following:",
                                "Answer these questions."])
    q["score_line"] = choose(rng, ["first", "last"])
    return q


# --------------------------------------------------------------------------------------
# page layout
# --------------------------------------------------------------------------------------
class PageLayout:
    def __init__(self, S):
        self.S = S
        self.w = int(round(S["page_mm"][0] * R))
        self.h = int(round(S["page_mm"][1] * R))
        self.size = S["pt"] * PT * R
        self.fs = FontSet(S["font_cjk"], S["font_latin"])
        self.hfs = FontSet(S["font_head_cjk"], bold_of(S["font_latin"]) if S["font_latin"] else None,
                           cjk_bold=bold_of(S["font_head_cjk"]))
        self.sink = Sink()
        self.recs = []          # bank problems on page
        self.elems = []         # dict(kind, box, rec=index or None)
        self.ink = S["ink"]

    def mm(self, v):
        return v * R

    def elem(self, kind, box, rec=None, **kw):
        d = dict(kind=kind, box=[float(b) for b in box], rec=rec)
        d.update(kw)
        self.elems.append(d)


def _bold_fs(pg):
    return FontSet(pg.S["font_cjk"], pg.S["font_latin"], cjk_bold=bold_of(pg.S["font_cjk"]))


def draw_header(pg, rng_unused=None):
    S = pg.S
    sink = pg.sink
    x0 = pg.mm(S["margin_l"])
    x1 = pg.w - pg.mm(S["margin_r"])
    W = x1 - x0
    y = pg.mm(S["margin_t"])
    hl = S["hlang"]
    sz = pg.size
    g = pg.ink
    if not S["header"]:
        return y
    if S["ptype"] == "textbook":
        chap = (CHAPTERS_ZH if hl == "zh" else CHAPTERS_EN)[S["title_idx"] % 5]
        r1 = place_text(sink, rich(chap, "hdr"), pg.fs, sz * 0.85, x0, W, y, 1.2, gray=g + 40)
        pn = str(S["page_no"])
        place_text(sink, rich(pn, "hdr", "b"), pg.hfs, sz * 0.95, x0, W, y, 1.2, gray=g, align="right")
        pg.elem("page_header", r1["lines"][0]["boxes"].get("hdr", (x0, y, x1, r1["bottom"])))
        y = r1["bottom"] + pg.mm(1.2)
        sink.ops.append(("line", x0, y, x1, y, max(2, pg.mm(0.25)), g + 30))
        y += pg.mm(5)
        return y
    if S["school"]:
        name = (SCHOOLS_ZH if hl == "zh" else SCHOOLS_EN)[S["school_idx"] % 6]
        r = place_text(sink, rich(name, "hdr", "b"), pg.hfs, sz * 1.1, x0, W, y, 1.2, gray=g, align="center")
        pg.elem("school_name", (x0, y, x1, r["bottom"]))
        y = r["bottom"] + pg.mm(1.5)
    title = (TITLES_ZH if hl == "zh" else TITLES_EN)[S["ptype"]]
    title = title[S["title_idx"] % len(title)]
    if S["bilingual"]:
        title = title + ("  Bilingual Practice" if hl == "zh" else "  双语练习")
    if S["ptype"] == "homework" and not S["school"]:
        r = place_text(sink, rich(title, "hdr", "b"), pg.hfs, sz * 1.25, x0, W, y, 1.2, gray=g)
        due = "完成日期：周五" if hl == "zh" else "Due: Friday"
        place_text(sink, rich(due, "hdr"), pg.fs, sz * 0.9, x0, W, y + sz * 0.25, 1.2, gray=g, align="right")
    else:
        r = place_text(sink, rich(title, "hdr", "b"), pg.hfs, sz * 1.3, x0, W, y, 1.2, gray=g, align="center")
    pg.elem("title", (x0, y, x1, r["bottom"]))
    y = r["bottom"] + pg.mm(1.5)
    if S["ptype"] == "exam":
        info = ("（考试时间：90分钟  满分：100分）" if hl == "zh" else "Time allowed: 1 hour 30 minutes    Total: 100 marks")
        r = place_text(sink, rich(info, "hdr"), pg.fs, sz * 0.88, x0, W, y, 1.2, gray=g, align="center")
        y = r["bottom"] + pg.mm(1.5)
    if S["name_line"]:
        fields = ["姓名：", "班级：", "学号：", "日期："] if hl == "zh" else ["Name:", "Class:", "Date:"]
        lens = [38, 22, 20, 22] if hl == "zh" else [55, 22, 28]
        xx = x0
        base = y + 0.88 * sz
        top = y
        for f, L in zip(fields, lens):
            L = pg.mm(L) * (W / pg.mm(170))
            r = place_text(sink, rich(f, "hdr"), pg.fs, sz, xx, W, y, 1.2, gray=g)
            fw = text_width(rich(f, "hdr"), pg.fs, sz)
            lx0 = xx + fw + pg.mm(1)
            lx1 = xx + L
            sink.ops.append(("line", lx0, base + pg.mm(0.8), lx1, base + pg.mm(0.8), max(2, pg.mm(0.2)), g))
            xx = lx1 + pg.mm(4)
            if xx > x1 - pg.mm(15):
                break
        pg.elem("name_class_date", (x0, top, xx, base + pg.mm(1.5)))
        y = base + pg.mm(4.5)
    if S["ptype"] == "exam" or rng_bool(S, "hdr_rule"):
        sink.ops.append(("line", x0, y, x1, y, max(2, pg.mm(0.3)), g))
        y += pg.mm(3.5)
    else:
        y += pg.mm(1.5)
    return y


def rng_bool(S, key):
    return (S["title_idx"] + len(key)) % 2 == 0


def draw_footer(pg):
    S = pg.S
    if not S["footer"]:
        return pg.h - pg.mm(S["margin_b"])
    sz = pg.size * 0.85
    x0 = pg.mm(S["margin_l"])
    x1 = pg.w - pg.mm(S["margin_r"])
    hl = S["hlang"]
    n, t = S["page_no"], S["page_total"]
    if S["ptype"] == "textbook":
        txt = str(n)
        align = "right" if n % 2 else "left"
    elif hl == "zh":
        txt = choose_det(["第%d页（共%d页）" % (n, t), "— %d —" % n, "数学试卷  第 %d 页" % n, "第%d页" % n], S)
        align = "center"
    else:
        txt = choose_det(["Page %d of %d" % (n, t), "– %d –" % n, "Page %d" % n, "p. %d" % n], S)
        align = "center" if S["title_idx"] % 3 else "right"
    yb = pg.h - pg.mm(S["margin_b"]) + pg.mm(4)
    r = place_text(pg.sink, rich(txt, "ftr"), pg.fs, sz, x0, x1 - x0, yb, 1.2, gray=pg.ink + 20, align=align)
    fb = r["lines"][0]["boxes"].get("ftr", (x0, yb, x1, r["bottom"]))
    pg.elem("page_footer", fb, text=txt)
    return pg.h - pg.mm(S["margin_b"])


def choose_det(items, S):
    return items[S["title_idx"] % len(items)]


# ---------------------------------------------------------------- figures / tables
def draw_figure(pg, fig, x, y, w, h, sink):
    """Draw a small figure in box (x,y,w,h) page px. Returns used height."""
    rs = np.random.default_rng(fig["seed"])          # drawn from a seed taken from the photo rng
    g = pg.ink
    lw = max(2.0, pg.mm(0.28))
    sz = pg.size * 0.8
    lab_fs = FontSet(pg.S["font_cjk"], "lib_serif_i" if pg.S["font_latin"] is None else italic_of(pg.S["font_latin"]))
    plain_fs = pg.fs
    kind = fig["kind"]

    def label(t, cx, cy, fs=lab_fs, s=sz):
        tw = text_width(rich(t, "fig"), fs, s)
        place_text(sink, rich(t, "fig"), fs, s, cx - tw / 2, tw + 10, cy - 0.55 * s, 1.0, gray=g)

    if kind == "triangle":
        m = pg.mm(4)
        A = (x + m + rs.uniform(0, w * 0.3), y + m * 0.8)
        B = (x + m * 0.8, y + h - m)
        C = (x + w - m, y + h - m)
        if rs.random() < 0.5:
            A = (B[0], y + m * 0.8)
        sink.ops.append(("poly", [A, B, C], lw, g, True))
        label("A", A[0], A[1] - sz * 0.6)
        label("B", B[0] - sz * 0.6, B[1] + sz * 0.3)
        label("C", C[0] + sz * 0.6, C[1] + sz * 0.3)
        if A[0] == B[0]:
            q = pg.mm(2.2)
            sink.ops.append(("poly", [(B[0], B[1] - q), (B[0] + q, B[1] - q), (B[0] + q, B[1])], lw * 0.7, g, False))
    elif kind == "circuit":
        m = pg.mm(3)
        x0, y0, x1, y1 = x + m, y + m, x + w - m, y + h - m
        xm = (x0 + x1) / 2
        # loop with gaps for battery (left side) and resistor (top)
        ym = (y0 + y1) / 2
        gap = pg.mm(2.0)
        rw = pg.mm(9)
        sink.ops.append(("poly", [(x0, ym - gap), (x0, y0), (xm - rw / 2, y0)], lw, g, False))
        sink.ops.append(("poly", [(xm + rw / 2, y0), (x1, y0), (x1, y1), (x0, y1), (x0, ym + gap)], lw, g, False))
        sink.ops.append(("line", x0 - pg.mm(3), ym - gap, x0 + pg.mm(3), ym - gap, lw, g))
        sink.ops.append(("line", x0 - pg.mm(1.6), ym + gap, x0 + pg.mm(1.6), ym + gap, lw * 2.2, g))
        sink.ops.append(("rect", xm - rw / 2, y0 - pg.mm(1.6), xm + rw / 2, y0 + pg.mm(1.6), lw, g, None, 0))
        label("R", xm, y0 + pg.mm(4.5))
        if rs.random() < 0.6:
            cx, cy, rr = x1, ym, pg.mm(2.8)
            sink.ops.append(("ellipse", cx - rr, cy - rr, cx + rr, cy + rr, lw, g, 255))
            label("A", cx, cy, fs=plain_fs, s=sz * 0.85)
        if rs.random() < 0.6:
            sx = xm
            sink.ops.append(("line", sx - pg.mm(4), y1, sx + pg.mm(3), y1 - pg.mm(3), lw, g))
            sink.ops.append(("rect", sx - pg.mm(4), y1 - pg.mm(1), sx + pg.mm(4), y1 + pg.mm(1), 0, 255, 255, 0))
            sink.ops.append(("line", sx - pg.mm(4), y1, sx + pg.mm(3), y1 - pg.mm(3), lw, g))
            label("S", sx, y1 - pg.mm(5))
    elif kind == "axes":
        m = pg.mm(3)
        ox = x + m + rs.uniform(0.15, 0.4) * (w - 2 * m)
        oy = y + m + rs.uniform(0.55, 0.8) * (h - 2 * m)
        ah = pg.mm(1.5)
        sink.ops.append(("line", x + m * 0.5, oy, x + w - m * 0.5, oy, lw, g))
        sink.ops.append(("line", ox, y + h - m * 0.5, ox, y + m * 0.5, lw, g))
        xe, ye = x + w - m * 0.5, y + m * 0.5
        sink.ops.append(("poly", [(xe - ah, oy - ah * 0.6), (xe, oy), (xe - ah, oy + ah * 0.6)], lw, g, False))
        sink.ops.append(("poly", [(ox - ah * 0.6, ye + ah), (ox, ye), (ox + ah * 0.6, ye + ah)], lw, g, False))
        label("x", xe - pg.mm(1), oy + sz * 0.7)
        label("y", ox + sz * 0.6, ye + pg.mm(1))
        label("O", ox - sz * 0.55, oy + sz * 0.6)
        unit = pg.mm(rs.uniform(3, 5))
        k = 1
        while ox + k * unit < xe - ah * 2:
            sink.ops.append(("line", ox + k * unit, oy - pg.mm(0.7), ox + k * unit, oy, lw * 0.8, g))
            k += 1
        pts = []
        a = rs.uniform(-1.2, 1.6)
        b = rs.uniform(-0.5, 1.5)
        curve = rs.random() < 0.4
        for t in np.linspace(-(ox - x - m) / unit, (x + w - m - ox) / unit, 40):
            v = (0.4 * t * t - 1.0 if curve else a * t + b)
            px, py = ox + t * unit, oy - v * unit
            if y + m <= py <= y + h - m:
                pts.append((px, py))
        if len(pts) >= 2:
            sink.ops.append(("poly", pts, lw, g, False))
    elif kind == "numberline":
        m = pg.mm(3)
        yy = y + h * 0.45
        sink.ops.append(("line", x + m * 0.5, yy, x + w - m * 0.5, yy, lw, g))
        ah = pg.mm(1.5)
        xe = x + w - m * 0.5
        sink.ops.append(("poly", [(xe - ah, yy - ah * 0.6), (xe, yy), (xe - ah, yy + ah * 0.6)], lw, g, False))
        n = int(rs.integers(5, 8))
        start = -int(rs.integers(1, n - 1))
        step = (w - 3 * m) / (n - 1)
        for i in range(n):
            tx = x + m + i * step
            sink.ops.append(("line", tx, yy - pg.mm(1.2), tx, yy, lw, g))
            label(str(start + i), tx, yy + sz * 0.85, fs=plain_fs)
        if rs.random() < 0.6:
            i = int(rs.integers(0, n))
            cx = x + m + (i + rs.uniform(0.2, 0.8)) * step
            rr = pg.mm(0.9)
            sink.ops.append(("ellipse", cx - rr, yy - rr, cx + rr, yy + rr, lw, g, g))
            label("P", cx, yy - sz * 0.9)
    elif kind == "table":
        lang = pg.S["hlang"]
        if rs.random() < 0.5:
            head = ["x"] + [str(v) for v in range(-1, int(rs.integers(3, 5)))]
            row = ["y"] + [str(int(rs.integers(-5, 12))) for _ in head[1:]]
            rows = [head, row]
        else:
            if lang == "zh":
                head = ["时间/min", "0", "2", "4", "6"]
                row = ["温度/℃", str(int(rs.integers(15, 30))), str(int(rs.integers(30, 50))),
                       str(int(rs.integers(50, 80))), "100"]
            else:
                head = ["Time/s", "0", "1", "2", "3"]
                row = ["Speed/(m/s)", "0", str(int(rs.integers(2, 6))), str(int(rs.integers(6, 12))),
                       str(int(rs.integers(12, 20)))]
            rows = [head, row]
        tsz = sz
        cw = []
        for c in range(len(rows[0])):
            cw.append(max(text_width(rich(r[c], "fig"), plain_fs, tsz) for r in rows) + pg.mm(3))
        rh = tsz * 1.7
        tw = sum(cw)
        sc = min(1.0, w / tw)
        if sc < 1.0:
            tsz *= sc
            cw = [c * sc for c in cw]
            rh *= sc
            tw = sum(cw)
        for ri, r in enumerate(rows):
            xx = x
            for c, t in enumerate(r):
                tw_ = text_width(rich(t, "fig"), plain_fs, tsz)
                place_text(sink, rich(t, "fig"), plain_fs, tsz, xx + (cw[c] - tw_) / 2, cw[c] + 5,
                           y + ri * rh + (rh - 1.2 * tsz) / 2, 1.0, gray=g)
                xx += cw[c]
        lw2 = max(2.0, pg.mm(0.22))
        for ri in range(len(rows) + 1):
            sink.ops.append(("line", x, y + ri * rh, x + tw, y + ri * rh, lw2, g))
        xx = x
        for c in range(len(cw) + 1):
            sink.ops.append(("line", xx, y, xx, y + rh * len(rows), lw2, g))
            if c < len(cw):
                xx += cw[c]
        return rh * len(rows), tw
    return h, w


# ---------------------------------------------------------------- answer areas
def draw_answer(pg, qs, x, w, y, sink):
    st = qs["answer"]
    g = pg.ink
    lw = max(2.0, pg.mm(0.2))
    hl = pg.S["hlang"]
    if st == "none":
        return y, None
    y0 = y
    if st == "ruled":
        for i in range(qs["answer_lines"]):
            y += pg.mm(8.0)
            sink.ops.append(("line", x, y, x + w, y, lw, g + 60))
        y += pg.mm(1.5)
    elif st == "dotted":
        for i in range(qs["answer_lines"]):
            y += pg.mm(8.0)
            sink.ops.append(("dots", x, x + w, y, pg.mm(1.15), max(1.5, pg.mm(0.16)), g + 20))
        y += pg.mm(1.5)
    elif st == "box":
        y += pg.mm(1.5)
        sink.ops.append(("rect", x, y, x + w, y + pg.mm(qs["answer_box_h"]), lw, g + 30, None, 0))
        y += pg.mm(qs["answer_box_h"]) + pg.mm(1)
    elif st == "da_line":
        word = "答：" if hl == "zh" else choose_det(["Answer:", "Ans:", "Answer:"], pg.S)
        y += pg.mm(1.5)
        r = place_text(sink, rich(word, "ans"), pg.fs, pg.size, x, w, y, 1.2, gray=g)
        ww = text_width(rich(word, "ans"), pg.fs, pg.size)
        base = r["lines"][0]["base"]
        L = min(w - ww - pg.mm(2), pg.mm(70))
        sink.ops.append(("line", x + ww + pg.mm(1.5), base + pg.mm(0.8), x + ww + pg.mm(1.5) + L,
                         base + pg.mm(0.8), lw, g))
        y = r["bottom"] + pg.mm(1)
    return y, (x, y0, x + w, y)


def layout_question_body(pg, qs, qtext, x, w, y, sink, label, label_style_kind, number_score, sub=False):
    """Label + question text (+ inline score) + options + hint + figure + answer area.
    Returns dict(bottom, qlines (list of boxes), label_box, features, elems)."""
    S = pg.S
    sz = pg.size
    g = pg.ink
    lead = S["leading"]
    feats = []
    elems = []
    score_txt = (S["score_fmt"] % number_score) if S["score_mode"] != "none" and number_score else None
    score_col = score_txt is not None and S["score_mode"] == "column" and not sub
    tw = w - (pg.mm(S["score_col_mm"]) if score_col else 0)
    fig = qs["fig"]
    fig_w = pg.mm(fig["w"]) if fig else 0
    if fig and fig["place"] == "beside" and tw - fig_w - pg.mm(4) < max(0.55 * tw, pg.mm(48)):
        fig = dict(fig, place="under")
    text_w = tw - (fig_w + pg.mm(4) if fig and fig["place"] == "beside" else 0)
    first_off = hang_off = 0.0
    label_box = None
    lfs = _bold_fs(pg) if S["label_bold"] else pg.fs
    lst = "b" if S["label_bold"] else "n"
    cy = y
    if label and label_style_kind == "heading":
        r = place_text(sink, rich(label, "label", "b"), _bold_fs(pg), sz, x, tw, cy, lead, gray=g)
        label_box = r["lines"][0]["boxes"].get("label")
        cy = r["bottom"] + pg.mm(1.0)
    elif label:
        r = place_text(sink, rich(label, "label", lst), lfs, sz, x, tw, cy, lead, gray=g)
        label_box = r["lines"][0]["boxes"].get("label")
        lw_ = text_width(rich(label, "label", lst), lfs, sz)
        first_off = lw_ + sz * (0.3 if is_cjk(label[-1]) else 0.45)
        hang_off = first_off if S["hanging"] else 0.0
    rc = rich(qtext, "q")
    if score_txt and S["score_mode"] == "inline":
        rc = rc + rich(" " + score_txt, "score")
        feats.append("score_inline")
    r = place_text(sink, rc, pg.fs, sz, x, text_w, cy, lead, first_off=first_off, hang_off=hang_off, gray=g)
    qlines = [ln["boxes"]["q"] for ln in r["lines"] if "q" in ln["boxes"]]
    qtexts = [ln["texts"]["q"] for ln in r["lines"] if "q" in ln["boxes"]]
    qfonts = sorted(set().union(*[ln["fonts"].get("q", set()) for ln in r["lines"]]))
    qbases = [ln["base"] for ln in r["lines"]]
    if score_txt and S["score_mode"] == "inline":
        for ln in r["lines"]:
            if "score" in ln["boxes"]:
                elems.append(("score_inline", ln["boxes"]["score"]))
    if any(c == "_" for c in qtext):
        feats.append("blank_in_question")
    if any(c in SUP or c in SUB for c in qtext):
        feats.append("supsub_in_question")
    text_bottom = r["bottom"]
    if score_col:
        base = qbases[0] if qs["score_line"] == "first" else qbases[-1]
        sw = text_width(rich(score_txt, "score"), pg.fs, sz * 0.95)
        r2 = place_text(sink, rich(score_txt, "score"), pg.fs, sz * 0.95, x + w - sw, sw + 5,
                        base - 0.88 * sz * 0.95, lead, gray=g)
        elems.append(("marks_column", r2["lines"][0]["boxes"].get("score")))
        feats.append("marks_column")
    cy = text_bottom + pg.mm(0.8)
    indent = hang_off if hang_off > 0 else (first_off if S["hanging"] else 0.0)
    if qs["options"]:
        fmt = qs["opt_fmt"]
        opts = [fmt.replace("A", "ABCD"[i]) + o for i, o in enumerate(qs["options"])]
        ow = max(text_width(rich(o, "opt"), pg.fs, sz) for o in opts) + sz * 1.5
        avail = text_w - indent
        per_row = 4 if ow * 4 <= avail else (2 if ow * 2 <= avail else 1)
        cellw = avail / per_row
        top = cy
        for i, o in enumerate(opts):
            rr, cc = divmod(i, per_row)
            place_text(sink, rich(o, "opt"), pg.fs, sz, x + indent + cc * cellw, cellw, cy + rr * sz * lead,
                       lead, gray=g)
        nrows = (4 + per_row - 1) // per_row
        cy = cy + (nrows - 1) * sz * lead + 1.22 * sz + pg.mm(0.8)
        elems.append(("options", (x + indent, top, x + text_w, cy)))
        feats.append("options")
    if qs["hint"]:
        hfs = FontSet(pg.S["font_cjk"], italic_of(pg.S["font_latin"]) if pg.S["font_latin"] else None)
        st = "i" if not has_cjk(qs["hint"]) else "n"
        rr = place_text(sink, rich(qs["hint"], "hint", st), hfs, sz * 0.88, x + indent, text_w - indent,
                        cy + pg.mm(0.5), 1.3, gray=min(150, g + 70))
        elems.append(("hint", (x + indent, cy, x + text_w, rr["bottom"])))
        cy = rr["bottom"] + pg.mm(0.8)
        feats.append("hint_line")
    if fig:
        fh = pg.mm(fig["h"])
        if fig["place"] == "beside":
            fx = x + tw - fig_w
            used_h, used_w = draw_figure(pg, fig, fx, y, fig_w, fh, sink)
            elems.append(("figure" if fig["kind"] != "table" else "table", (fx, y, fx + used_w, y + used_h)))
            cy = max(cy, y + used_h + pg.mm(1.5))
        else:
            fx = x + indent + pg.mm(2)
            used_h, used_w = draw_figure(pg, fig, fx, cy + pg.mm(1), min(fig_w, text_w - indent - pg.mm(4)), fh, sink)
            elems.append(("figure" if fig["kind"] != "table" else "table", (fx, cy, fx + used_w, cy + used_h + pg.mm(1))))
            cy = cy + used_h + pg.mm(3)
        feats.append(("table_" if fig["kind"] == "table" else "figure_") + fig["place"])
        if fig["kind"] != "table":
            feats.append("figure_" + fig["kind"])
    ay, abox = draw_answer(pg, qs, x + indent, tw - indent, cy, sink)
    if abox is not None:
        elems.append(("answer_" + qs["answer"], abox))
        feats.append("answer_" + qs["answer"])
        cy = ay
    return dict(bottom=cy, qlines=qlines, qtexts=qtexts, qfonts=qfonts, label_box=label_box, feats=feats, elems=elems,
                qbases=qbases, lead=r["lead"])


def layout_item(pg, item, x, w, y, counter):
    """Lay out one flow item into a fresh Sink. Returns (sink, height, recs, elems, n_used)."""
    S = pg.S
    sink = Sink()
    recs = []
    elems = []
    sz = pg.size
    g = pg.ink
    kind = item["kind"]
    if kind == "section":
        r = place_text(sink, rich(item["text"], "sec", "b"), pg.hfs, sz * 1.05, x, w, y, 1.3, gray=g)
        elems.append(dict(kind="section_heading", box=[x, y, x + w, r["bottom"]]))
        bottom = r["bottom"]
        if item.get("instr"):
            r2 = place_text(sink, rich(item["instr"], "ins", "n"), pg.fs, sz * 0.92, x, w, bottom + pg.mm(0.8),
                            1.3, gray=g + 20)
            elems.append(dict(kind="instructions", box=[x, bottom, x + w, r2["bottom"]]))
            bottom = r2["bottom"]
        return sink, bottom - y + pg.mm(2.5), recs, elems, 0
    if kind == "instr":
        r = place_text(sink, rich(item["text"], "ins", "i" if S["hlang"] == "en" else "n"),
                       FontSet(S["font_cjk"], italic_of(S["font_latin"]) if S["font_latin"] else None),
                       sz * 0.95, x, w, y, 1.3, gray=g)
        elems.append(dict(kind="instructions", box=[x, y, x + w, r["bottom"]]))
        return sink, r["bottom"] - y + pg.mm(3), recs, elems, 0
    if kind == "worked":
        pad = pg.mm(3)
        ix, iw = x + pad, w - 2 * pad
        cy = y + pad
        hl = S["hlang"]
        title = ("例题%d" % item["no"]) if hl == "zh" else ("Worked example %d" % item["no"])
        inner = Sink()
        r = place_text(inner, rich(title, "wtitle", "b"), pg.hfs, sz * 1.02, ix, iw, cy, 1.3, gray=g)
        cy = r["bottom"] + pg.mm(1)
        r = place_text(inner, rich(item["q"], "q"), pg.fs, sz, ix, iw, cy, S["leading"], gray=g)
        qlines = [ln["boxes"]["q"] for ln in r["lines"] if "q" in ln["boxes"]]
        qtexts = [ln["texts"]["q"] for ln in r["lines"] if "q" in ln["boxes"]]
        cy = r["bottom"] + pg.mm(1)
        sol = ("解：" if hl == "zh" else "Solution: ") + item["sol"]
        r = place_text(inner, rich(sol, "sol"), pg.fs, sz * 0.95, ix, iw, cy, S["leading"], gray=g + 15,
                       max_lines=3)
        cy = r["bottom"] + pad
        sink.ops.append(("rect", x, y, x + w, cy, max(2, pg.mm(0.25)), g + 60, 238, int(pg.mm(1.5))))
        sink.ops.append(("rect", x, y, x + pg.mm(1.2), cy, 0, 255, g + 90, 0))
        sink.extend(inner)
        recs.append(dict(bank_idx=item["bank_idx"], role="worked_example", label=title, qlines=qlines, qtexts=qtexts,
                         label_box=None, block=[x, y, x + w, cy], feats=["worked_example"]))
        elems.append(dict(kind="worked_example", box=[x, y, x + w, cy]))
        ex = ("练习" if hl == "zh" else "Exercises")
        r = place_text(sink, rich(ex, "sec", "b"), pg.hfs, sz * 1.05, x, w, cy + pg.mm(4), 1.3, gray=g)
        elems.append(dict(kind="section_heading", box=[x, cy + pg.mm(4), x + w, r["bottom"]]))
        return sink, r["bottom"] - y + pg.mm(3), recs, elems, 0
    # problem (possibly a group of sub-problems)
    boxed = S["sep"] == "boxes"
    pad = pg.mm(2.8) if boxed else 0.0
    ix, iw = x + pad, w - 2 * pad
    cy = y + pad
    no = counter
    lab = label_text(S["label_style"], no)
    lkind = "heading" if S["label_style"] == "Question 1" else "inline"
    if kind == "problem":
        qs = item["qs"]
        res = layout_question_body(pg, qs, item["q"], ix, iw, cy, sink, lab, lkind, qs["score"])
        recs.append(dict(bank_idx=item["bank_idx"], role="problem", label=lab, qlines=res["qlines"],
                         qtexts=res["qtexts"], qfonts=res["qfonts"],
                         label_box=res["label_box"], feats=res["feats"], qbases=res["qbases"],
                         lead=res["lead"]))
        for k, b in res["elems"]:
            if b is not None:
                elems.append(dict(kind=k, box=list(b), rec_local=0))
        if res["label_box"] is not None:
            elems.append(dict(kind="label", box=list(res["label_box"]), rec_local=0))
        cy = res["bottom"]
    else:  # group
        lfs = _bold_fs(pg) if S["label_bold"] else pg.fs
        lst = "b" if S["label_bold"] else "n"
        first_off = 0.0
        label_box = None
        if lab and lkind == "heading":
            r = place_text(sink, rich(lab, "label", "b"), _bold_fs(pg), sz, ix, iw, cy, S["leading"], gray=g)
            label_box = r["lines"][0]["boxes"].get("label")
            cy = r["bottom"] + pg.mm(1)
        elif lab:
            r = place_text(sink, rich(lab, "label", lst), lfs, sz, ix, iw, cy, S["leading"], gray=g)
            label_box = r["lines"][0]["boxes"].get("label")
            first_off = text_width(rich(lab, "label", lst), lfs, sz) + sz * 0.4
        r = place_text(sink, rich(item["lead_in"], "lead"), pg.fs, sz, ix, iw, cy, S["leading"],
                       first_off=first_off, hang_off=first_off if S["hanging"] else 0, gray=g)
        if label_box is not None:
            elems.append(dict(kind="label", box=list(label_box), rec_local=None))
        cy = r["bottom"] + pg.mm(1.2)
        sub_indent = max(first_off, sz * 1.2)
        for k, (bi, qtext, qs) in enumerate(item["subs"]):
            sl = sublabel_text(S["sublabel_style"], k)
            res = layout_question_body(pg, qs, qtext, ix + sub_indent, iw - sub_indent, cy, sink, sl, "inline",
                                       qs["score"], sub=True)
            recs.append(dict(bank_idx=bi, role="sub_problem", label=sl, parent_label=lab, qlines=res["qlines"],
                             qtexts=res["qtexts"], qfonts=res["qfonts"],
                             label_box=res["label_box"], feats=res["feats"] + ["sub_label"],
                             qbases=res["qbases"], lead=res["lead"]))
            for kk, b in res["elems"]:
                if b is not None:
                    elems.append(dict(kind=kk, box=list(b), rec_local=len(recs) - 1))
            if res["label_box"] is not None:
                elems.append(dict(kind="sub_label", box=list(res["label_box"]), rec_local=len(recs) - 1))
            cy = res["bottom"] + pg.mm(1.2)
    bottom = cy + pad
    if boxed:
        sink.ops.append(("rect", x, y, x + w, bottom, max(2, pg.mm(0.25)), g + 10, None,
                         int(pg.mm(2)) if S["box_round"] else 0))
        elems.append(dict(kind="problem_box", box=[x, y, x + w, bottom], rec_local=None))
    for r_ in recs:
        r_["block"] = [x, y, x + w, bottom]
        if boxed:
            r_["feats"] = r_["feats"] + ["boxed"]
    return sink, bottom - y, recs, elems, 1


def build_items(S, bank, target_slot):
    """Ordered flow items; returns list and the item index holding the target."""
    qs = S["qspecs"]
    tgt = S["target"]
    others = list(S["others"])
    hl = S["hlang"]
    items = []
    if S["instructions"] and not S["sections"]:
        items.append(dict(kind="instr", text=(INSTR_ZH if hl == "zh" else INSTR_EN)[S["title_idx"] % 5]))
    worked_q = None
    if S["worked"]:
        worked_q = others.pop()
        items.append(dict(kind="worked", bank_idx=worked_q, q=bank[worked_q]["question"],
                          sol=clean_answer(bank[worked_q]["answer"]), no=1 + S["title_idx"] % 4))
    probs = []
    seq = others[:]
    seq.insert(min(target_slot, len(seq)), tgt)
    i = 0
    while i < len(seq):
        k = seq[i]
        if qs[k]["group"] and i + 1 < len(seq):
            n = min(qs[k]["group_n"], len(seq) - i)
            subs = [(seq[i + j], bank[seq[i + j]]["question"], qs[seq[i + j]]) for j in range(n)]
            probs.append(dict(kind="group", subs=subs, lead_in=qs[k]["lead_in"], members=seq[i:i + n]))
            i += n
        else:
            probs.append(dict(kind="problem", bank_idx=k, q=bank[k]["question"], qs=qs[k], members=[k]))
            i += 1
    if S["sections"]:
        types = ["choice", "fill", "solve"]
        start = S["title_idx"] % 3
        nsec = 2 if len(probs) > 6 else 1
        cut = [0, max(2, len(probs) // 3 + S["title_idx"] % 3), len(probs)]
        for si in range(nsec):
            t = types[(start + si) % 3]
            if hl == "zh":
                nm = (SECTION_ZH if S["title_idx"] % 2 else SECTION_ZH_ALT)[t]
                txt = "%s、%s（每小题%d分）" % (CN_NUM[(start + si) % 8], nm, 3 + si)
                instr = INSTR_ZH[(S["title_idx"] + si) % 5] if (S["instructions"] and si == 0) else None
            else:
                nm = SECTION_EN[t][S["title_idx"] % len(SECTION_EN[t])]
                txt = "Section %s   %s" % ("ABCD"[(start + si) % 4], nm)
                instr = INSTR_EN[(S["title_idx"] + si) % 6] if (S["instructions"] and si == 0) else None
            items.append(dict(kind="section", text=txt, instr=instr))
            seg = probs[cut[si]:cut[si + 1]] if si < nsec - 1 else probs[cut[si]:]
            for p in seg:
                if t == "choice" and p["kind"] == "problem" and p["qs"]["options"] is None:
                    pass
                items.append(p)
    else:
        items.extend(probs)
    return items


def layout_page(S, bank, slot0=None):
    """Full page layout; returns PageLayout with recs (target marked) or None if the target did not fit."""
    if slot0 is None:
        slot0 = S["target_slot"]
    for attempt in range(4):
        slot = slot0 if attempt == 0 else slot0 // (2 * attempt)
        pg = PageLayout(S)
        items = build_items(S, bank, slot)
        y0 = draw_header(pg)
        y_end = draw_footer(pg) - pg.mm(3)
        x0 = pg.mm(S["margin_l"])
        x1 = pg.w - pg.mm(S["margin_r"])
        if S["cols"] == 2:
            gw = pg.mm(S["gutter"])
            cw = (x1 - x0 - gw) / 2
            cols = [(x0, cw), (x0 + cw + gw, cw)]
        else:
            cols = [(x0, x1 - x0)]
        if S["margin_line"]:
            xm = x0 - pg.mm(6)
            pg.sink.ops.append(("line", xm, pg.mm(8), xm, pg.h - pg.mm(8), max(2, pg.mm(0.25)), 120))
        ci = 0
        y = y0
        counter = S["start_no"]
        gap = pg.mm(S["gap_mm"])
        col_items = [[] for _ in cols]
        for it in items:
            cx, cw_ = cols[ci]
            sink, h, recs, elems, used = layout_item(pg, it, cx, cw_, y, counter)
            if y + h > y_end:
                if ci + 1 < len(cols):
                    ci += 1
                    y = y0
                    cx, cw_ = cols[ci]
                    sink, h, recs, elems, used = layout_item(pg, it, cx, cw_, y, counter)
                    if y + h > y_end:
                        break
                else:
                    break
            base_idx = len(pg.recs)
            for r in recs:
                r["col"] = ci
                r["order"] = len(pg.recs)
                pg.recs.append(r)
            for e in elems:
                rl = e.pop("rec_local", None)
                e["rec"] = (base_idx + rl) if rl is not None else None
                if rl is None and it["kind"] in ("problem", "group") and e["kind"] in ("problem_box", "label"):
                    e["rec_group"] = list(range(base_idx, base_idx + len(recs)))
                pg.elems.append(e)
            pg.sink.extend(sink)
            col_items[ci].append(it)
            counter += used
            is_prob = it["kind"] in ("problem", "group")
            y += h + (gap if is_prob else pg.mm(1.5))
            if is_prob and S["sep"] == "rules" and y - gap / 2 < y_end:
                yy = y - gap / 2 if gap > pg.mm(2.5) else y
                if gap <= pg.mm(2.5):
                    y += pg.mm(2.5)
                    yy = y - pg.mm(1.25)
                pg.sink.ops.append(("line", cx, yy, cx + cw_, yy, max(2, pg.mm(0.2)), pg.ink + 70))
                pg.elems.append(dict(kind="rule", box=[cx, yy - 1, cx + cw_, yy + 1], rec=None))
        if S["cols"] == 2 and S["gutter_rule"]:
            xm = x0 + cols[0][1] + pg.mm(S["gutter"]) / 2
            pg.sink.ops.append(("line", xm, y0, xm, y_end, max(2, pg.mm(0.2)), pg.ink + 60))
        tix = [i for i, r in enumerate(pg.recs) if r["bank_idx"] == S["target"]]
        if tix and pg.recs[tix[0]]["role"] != "worked_example":
            pg.target = tix[0]
            pg.cols = cols
            pg.y_content = (y0, y_end)
            return pg
    return None


# --------------------------------------------------------------------------------------
# rendering the page (grayscale print), then coloured student marks
# --------------------------------------------------------------------------------------
def render_page(pg):
    img = Image.new("L", (pg.w, pg.h), 255)
    dr = ImageDraw.Draw(img)
    F = fonts()
    for op in pg.sink.ops:
        t = op[0]
        if t == "text":
            _, x, y, text, fk, size, gray = op
            dr.text((x, y), text, font=F.face(fk, size), fill=int(gray), anchor="ls")
        elif t == "line":
            _, x0, y0, x1, y1, w, gray = op
            wi = max(1, int(round(w)))
            if abs(y1 - y0) < 0.5:
                a_, b_ = min(x0, x1), max(x0, x1)
                dr.rectangle([a_, y0 - wi / 2, b_, y0 + max(0, wi / 2 - 1)], fill=int(gray))
            elif abs(x1 - x0) < 0.5:
                a_, b_ = min(y0, y1), max(y0, y1)
                dr.rectangle([x0 - wi / 2, a_, x0 + max(0, wi / 2 - 1), b_], fill=int(gray))
            else:
                dr.line([(x0, y0), (x1, y1)], fill=int(gray), width=wi)
        elif t == "rect":
            _, x0, y0, x1, y1, w, og, fill, rad = op
            x0, x1 = min(x0, x1), max(x0, x1)
            y0, y1 = min(y0, y1), max(y0, y1)
            wi = int(round(w))
            if rad:
                dr.rounded_rectangle([x0, y0, x1, y1], radius=rad, outline=None if wi == 0 else int(og),
                                     fill=None if fill is None else int(fill), width=max(wi, 1))
            else:
                dr.rectangle([x0, y0, x1, y1], outline=None if wi == 0 else int(og),
                             fill=None if fill is None else int(fill), width=max(wi, 1))
        elif t == "poly":
            _, pts, w, gray, closed = op
            pts = [(float(a), float(b)) for a, b in pts]
            if closed:
                pts = pts + [pts[0]]
            dr.line(pts, fill=int(gray), width=max(1, int(round(w))), joint="curve")
        elif t == "ellipse":
            _, x0, y0, x1, y1, w, gray, fill = op
            dr.ellipse([x0, y0, x1, y1], outline=int(gray), fill=None if fill is None else int(fill),
                       width=max(1, int(round(w))))
        elif t == "dots":
            _, x0, x1, y, pitch, rr, gray = op
            xx = x0
            while xx <= x1:
                dr.ellipse([xx - rr, y - rr, xx + rr, y + rr], fill=int(gray))
                xx += pitch
    return img


PEN_COLOURS = {"red": (200, 30, 35), "blue": (25, 45, 160), "black": (35, 35, 40), "pencil": (95, 95, 100)}
HIGHLIGHT = {"yellow": (255, 238, 70), "green": (150, 240, 120), "pink": (255, 150, 200), "orange": (255, 190, 90)}


def stroke(arr, pts, colour, width, rng, jitter=0.0):
    pts = np.asarray(pts, np.float64)
    if jitter:
        pts = pts + rng.normal(0, jitter, pts.shape)
    p = np.round(pts * 4).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(arr, [p], False, colour, max(1, int(round(width))), cv2.LINE_AA, shift=2)


def smooth_path(ctrl, n=40):
    ctrl = np.asarray(ctrl, float)
    t = np.linspace(0, 1, len(ctrl))
    tt = np.linspace(0, 1, n)
    return np.stack([np.interp(tt, t, ctrl[:, 0]), np.interp(tt, t, ctrl[:, 1])], 1)


def box_overlaps(b, boxes, pad=0.0):
    for c in boxes:
        if b[0] < c[2] + pad and b[2] > c[0] - pad and b[1] < c[3] + pad and b[3] > c[1] - pad:
            return True
    return False


def plan_marks(rng, pg):
    """Decide student marks near the target (page px). Drawn later on the RGB page."""
    marks = []
    t = pg.recs[pg.target]
    ink_boxes = [b[:4] for b in pg.sink.ink]
    fig_boxes = [e["box"] for e in pg.elems if e["kind"] in ("figure", "table")]
    q = t["qlines"]
    sz = pg.size
    pen = choose(rng, ["red", "blue", "black", "pencil"], [0.45, 0.3, 0.15, 0.1])
    width = pg.mm(float(rng.uniform(0.35, 0.7)))
    want = []
    if rng.random() < 0.5:
        n = int(rng.integers(1, 3))
        want = list(rng.choice(["tickcross", "circle", "highlight", "underline", "scribble"], n,
                               replace=False, p=[0.3, 0.16, 0.2, 0.17, 0.17]))
        want = [("tick" if rng.random() < 0.62 else "cross") if w == "tickcross" else w for w in want]
    x_left = min(b[0] for b in q)
    lb = t["label_box"]
    for m in want:
        if m in ("tick", "cross"):
            s = sz * float(rng.uniform(1.0, 1.6))
            anchor = lb if lb is not None else (x_left, q[0][1], x_left, q[0][3])
            cands = [(anchor[0] - s * 1.3, anchor[1] - s * 0.3)]
            xe = max(b[2] for b in q)
            cands.append((q[-1][2] + s * 0.6, q[-1][1] - s * 0.2))
            cands.append((xe + s * 0.8, q[0][1] - s * 0.3))
            for cx, cy in cands:
                bb = (cx, cy, cx + s, cy + s)
                if bb[0] < pg.mm(3) or bb[2] > pg.w - pg.mm(3):
                    continue
                if box_overlaps(bb, ink_boxes, pad=sz * 0.1) or box_overlaps(bb, fig_boxes) or \
                        box_overlaps(bb, [mm["box"] for mm in marks], pad=sz * 0.2):
                    continue
                if m == "tick":
                    pts = smooth_path([(cx, cy + s * 0.55), (cx + s * 0.35, cy + s * 0.95), (cx + s, cy)], 24)
                else:
                    pts = None
                marks.append(dict(kind="mark_" + m, pen=pen, width=width, pts=pts, box=list(bb),
                                  seed=int(rng.integers(0, 2 ** 31))))
                break
        elif m == "circle" and lb is not None:
            px, py = sz * 0.35, sz * 0.3
            bb = (lb[0] - px, lb[1] - py, lb[2] + px, lb[3] + py)
            if box_overlaps(bb, [mm["box"] for mm in marks]):
                continue
            marks.append(dict(kind="mark_circled_number", pen=pen, width=width, box=list(bb),
                              seed=int(rng.integers(0, 2 ** 31))))
        elif m == "highlight":
            li = int(rng.integers(0, len(q)))
            b = q[li]
            L = b[2] - b[0]
            a0 = b[0] + L * float(rng.uniform(0, 0.5))
            a1 = min(b[2], a0 + L * float(rng.uniform(0.3, 0.8)))
            bb = (a0, b[1] - sz * 0.12, a1, b[3] + sz * 0.12)
            marks.append(dict(kind="mark_highlighter", colour=choose(rng, list(HIGHLIGHT)), box=list(bb),
                              line=li, seed=int(rng.integers(0, 2 ** 31))))
        elif m == "underline":
            li = int(rng.integers(0, len(q)))
            b = q[li]
            base = t["qbases"][li] if li < len(t.get("qbases", [])) else b[3]
            L = b[2] - b[0]
            a0 = b[0] + L * float(rng.uniform(0, 0.6))
            a1 = min(b[2], a0 + max(sz * 1.5, L * float(rng.uniform(0.15, 0.4))))
            yy = max(base + sz * 0.2, b[3] + sz * 0.05)
            marks.append(dict(kind="mark_underline", pen=pen, width=width * 0.8, box=[a0, yy - width, a1, yy + width],
                              y=yy, seed=int(rng.integers(0, 2 ** 31))))
        elif m == "scribble":
            s_w = pg.mm(float(rng.uniform(10, 20)))
            s_h = pg.mm(float(rng.uniform(5, 9)))
            blk = t.get("block")
            ycen = (q[0][1] + q[-1][3]) / 2
            cands = []
            cands.append((pg.mm(3) + rng.uniform(0, pg.mm(4)), ycen - s_h / 2))
            cands.append((pg.w - pg.mm(3) - s_w, ycen - s_h / 2))
            cands.append((max(b[2] for b in q) + pg.mm(4), ycen - s_h / 2))
            if blk:
                cands.append((blk[0] + pg.mm(20), blk[3] - s_h - pg.mm(2)))
            order = rng.permutation(len(cands))
            for oi in order:
                cx, cy = cands[oi]
                bb = (cx, cy, cx + s_w, cy + s_h)
                if bb[0] < pg.mm(2) or bb[2] > pg.w - pg.mm(2):
                    continue
                if box_overlaps(bb, ink_boxes, pad=sz * 0.25) or box_overlaps(bb, fig_boxes, pad=sz * 0.2) or \
                        box_overlaps(bb, [mm["box"] for mm in marks], pad=sz * 0.3):
                    continue
                marks.append(dict(kind="mark_scribble", pen=pen, width=width * 0.85, box=list(bb),
                                  style=choose(rng, ["loops", "arrow", "question", "star", "zigzag"]),
                                  seed=int(rng.integers(0, 2 ** 31))))
                break
    # an occasional tick on a neighbour (realistic clutter)
    if rng.random() < 0.15:
        nb = [i for i, r in enumerate(pg.recs) if i != pg.target and r["role"] != "worked_example"]
        if nb:
            r = pg.recs[nb[int(rng.integers(0, len(nb)))]]
            s = sz * 1.2
            b = r["qlines"][-1]
            bb = (b[2] + s * 0.6, b[1] - s * 0.2, b[2] + s * 1.6, b[1] + s * 0.8)
            if bb[2] < pg.w - pg.mm(3) and not box_overlaps(bb, ink_boxes, pad=sz * 0.1) and \
                    not box_overlaps(bb, [mm["box"] for mm in marks], pad=sz * 0.2):
                pts = smooth_path([(bb[0], bb[1] + s * 0.55), (bb[0] + s * 0.35, bb[1] + s * 0.95),
                                   (bb[0] + s, bb[1])], 24)
                marks.append(dict(kind="neighbour_tick", pen=pen, width=width, pts=pts, box=list(bb),
                                  seed=int(rng.integers(0, 2 ** 31))))
    return marks


def draw_marks(rgb, marks):
    for m in marks:
        rs = np.random.default_rng(m["seed"])
        k = m["kind"]
        b = m["box"]
        if k == "mark_highlighter":
            x0, y0, x1, y1 = [int(round(v)) for v in b]
            col = np.array(HIGHLIGHT[m["colour"]], np.float32) / 255.0
            reg = rgb[y0:y1, x0:x1].astype(np.float32)
            hh, ww = reg.shape[:2]
            if hh < 2 or ww < 2:
                continue
            alpha = np.ones((hh, ww), np.float32) * float(rs.uniform(0.75, 0.95))
            # ragged ends and streaks
            xs = np.arange(ww)[None, :]
            end_fade = np.clip(np.minimum(xs, ww - 1 - xs) / max(3.0, hh * 0.3), 0, 1)
            streak = 1 - 0.12 * (np.sin(np.arange(hh) / max(1.0, hh / 6.0) + rs.uniform(0, 6))[:, None] > 0.7)
            alpha = alpha * end_fade * streak
            mul = 1 - alpha[..., None] * (1 - col[None, None, :])
            rgb[y0:y1, x0:x1] = np.clip(reg * mul, 0, 255).astype(np.uint8)
            continue
        col = PEN_COLOURS[m["pen"]]
        w = m["width"]
        if k in ("mark_tick", "neighbour_tick"):
            stroke(rgb, m["pts"], col, w, rs, jitter=w * 0.08)
        elif k == "mark_cross":
            x0, y0, x1, y1 = b
            stroke(rgb, smooth_path([(x0, y0), (x1, y1)], 12), col, w, rs, jitter=w * 0.1)
            stroke(rgb, smooth_path([(x1, y0 + (y1 - y0) * 0.05), (x0 + (x1 - x0) * 0.05, y1)], 12), col, w, rs,
                   jitter=w * 0.1)
        elif k == "mark_circled_number":
            x0, y0, x1, y1 = b
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            a, bb = (x1 - x0) / 2, (y1 - y0) / 2
            t0 = rs.uniform(0, 2 * np.pi)
            tt = np.linspace(t0, t0 + 2 * np.pi * rs.uniform(1.05, 1.18), 60)
            rr = 1 + 0.06 * np.sin(tt * 2 + rs.uniform(0, 6))
            pts = np.stack([cx + a * rr * np.cos(tt), cy + bb * rr * np.sin(tt)], 1)
            stroke(rgb, pts, col, w, rs)
        elif k == "mark_underline":
            x0, _, x1, _ = b
            yy = m["y"]
            n = 30
            xs = np.linspace(x0, x1, n)
            ys = yy + np.sin(np.linspace(0, rs.uniform(2, 6), n)) * w * 0.4 + np.linspace(0, rs.normal(0, w), n)
            stroke(rgb, np.stack([xs, ys], 1), col, w, rs)
        elif k == "mark_scribble":
            x0, y0, x1, y1 = b
            W_, H_ = x1 - x0, y1 - y0
            st = m["style"]
            if st == "loops":
                tt = np.linspace(0, 1, 160)
                nl = rs.integers(3, 6)
                xs = x0 + W_ * tt + 0.12 * W_ * np.sin(2 * np.pi * nl * tt)
                ys = y0 + H_ * (0.55 - 0.4 * np.cos(2 * np.pi * nl * tt) * (0.6 + 0.4 * np.sin(tt * 7)))
                stroke(rgb, np.stack([xs, ys], 1), col, w, rs)
            elif st == "arrow":
                ym = y0 + H_ / 2
                stroke(rgb, smooth_path([(x1, ym + H_ * 0.2), (x0 + W_ * 0.5, ym - H_ * 0.1), (x0, ym)], 30), col, w, rs)
                stroke(rgb, [(x0 + W_ * 0.2, ym - H_ * 0.35), (x0, ym), (x0 + W_ * 0.22, ym + H_ * 0.3)], col, w, rs)
            elif st == "question":
                cx = x0 + W_ * 0.3
                tt = np.linspace(np.pi, -0.5 * np.pi, 40)
                r_ = H_ * 0.28
                xs = cx + r_ * np.cos(tt)
                ys = y0 + H_ * 0.3 - r_ * np.sin(tt)
                pts = list(zip(xs, ys)) + [(cx, y0 + H_ * 0.78)]
                stroke(rgb, pts, col, w, rs)
                cv2.circle(rgb, (int(cx), int(y0 + H_ * 0.95)), max(2, int(w * 0.7)), col, -1, cv2.LINE_AA)
                stroke(rgb, smooth_path([(x0 + W_ * 0.55, y0 + H_ * 0.6), (x0 + W_ * 0.75, y0 + H_ * 0.9),
                                         (x1, y0 + H_ * 0.5)], 20), col, w, rs)
            elif st == "star":
                cx, cy = x0 + H_ / 2, y0 + H_ / 2
                rr = H_ * 0.48
                pts = [(cx + rr * np.sin(a), cy - rr * np.cos(a)) for a in np.arange(6) * 4 * np.pi / 5]
                stroke(rgb, pts, col, w, rs)
                stroke(rgb, smooth_path([(x0 + H_ * 1.2, cy), (x1, cy - H_ * 0.2)], 12), col, w, rs)
            else:
                n = int(rs.integers(5, 9))
                xs = np.linspace(x0, x1, n)
                ys = np.where(np.arange(n) % 2 == 0, y0 + H_ * 0.2, y1 - H_ * 0.2) + rs.normal(0, H_ * 0.08, n)
                stroke(rgb, np.stack([xs, ys], 1), col, w, rs)


# --------------------------------------------------------------------------------------
# camera geometry
# --------------------------------------------------------------------------------------
class Camera:
    """page px -> photo px: similarity about aim point P, perspective about image centre,
    then a page bend/curl displacement field whose direction is perpendicular to its gradient
    (so the inverse is exact)."""

    def __init__(self, W, H, P, s, theta, gx, gy, curl):
        self.W, self.H = W, H
        self.C = np.array([W / 2.0, H / 2.0])
        self.P = np.asarray(P, float)
        self.s = s
        c, sn = math.cos(theta), math.sin(theta)
        self.A = s * np.array([[c, -sn], [sn, c]])
        self.Ainv = np.linalg.inv(self.A)
        self.gx, self.gy = gx, gy
        self.curl = curl     # None or dict(a, n(2), e(2), t0, kind)
        self.S = min(W, H)

    def _disp(self, p):
        if not self.curl:
            return np.zeros_like(p)
        cu = self.curl
        n = np.asarray(cu["n"])
        e = np.asarray(cu["e"])
        t = ((p - self.C) @ n) / self.S
        if cu["kind"] == "bow":
            f = t * t
        else:
            f = np.maximum(0.0, t - cu["t0"]) ** 2 * 3.0
        return (cu["a"] * self.S * f)[:, None] * e[None, :]

    def fwd(self, pts):
        pts = np.asarray(pts, float).reshape(-1, 2)
        q = (pts - self.P) @ self.A.T
        den = 1.0 + self.gx * q[:, 0] + self.gy * q[:, 1]
        q = q / den[:, None]
        p = q + self.C
        return p + self._disp(p)

    def inv(self, p):
        p = np.asarray(p, float).reshape(-1, 2)
        q = p - self._disp(p) - self.C
        den = 1.0 - self.gx * q[:, 0] - self.gy * q[:, 1]
        r = q / den[:, None]
        return r @ self.Ainv.T + self.P

    def shade(self, p):
        """extra darkening where the page bends (0..1)."""
        if not self.curl:
            return np.zeros(len(p))
        cu = self.curl
        t = ((p - self.C) @ np.asarray(cu["n"])) / self.S
        if cu["kind"] == "bow":
            return np.zeros(len(p))
        return np.clip((t - cu["t0"]) * 1.6, 0, 1) * cu["shade"]


def sample_box(b, nx=9, ny=3):
    x0, y0, x1, y1 = b
    xs = np.linspace(x0, x1, nx)
    ys = np.linspace(y0, y1, ny)
    pts = [(x, y0) for x in xs] + [(x, y1) for x in xs] + [(x0, y) for y in ys] + [(x1, y) for y in ys]
    return np.array(pts, float)


def convex_hull(pts):
    pts = np.asarray(pts, np.float32).reshape(-1, 1, 2)
    h = cv2.convexHull(pts).reshape(-1, 2).astype(float)
    return h


def poly_centroid(P):
    P = np.asarray(P, float)
    x, y = P[:, 0], P[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cr = x * y1 - x1 * y
    a = cr.sum() / 2.0
    if abs(a) < 1e-9:
        return P.mean(0)
    return np.array([((x + x1) * cr).sum() / (6 * a), ((y + y1) * cr).sum() / (6 * a)])


def poly_area(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def clip_poly_rect(P, W, H):
    def clip(poly, inside, inter):
        out = []
        n = len(poly)
        for i in range(n):
            a, b = poly[i], poly[(i + 1) % n]
            ia, ib = inside(a), inside(b)
            if ia and ib:
                out.append(b)
            elif ia and not ib:
                out.append(inter(a, b))
            elif not ia and ib:
                out.append(inter(a, b))
                out.append(b)
        return out

    def ix(xc):
        return lambda a, b: (xc, a[1] + (b[1] - a[1]) * (xc - a[0]) / (b[0] - a[0]))

    def iy(yc):
        return lambda a, b: (a[0] + (b[0] - a[0]) * (yc - a[1]) / (b[1] - a[1]), yc)

    poly = [tuple(p) for p in P]
    for inside, inter in [(lambda p: p[0] >= 0, ix(0.0)), (lambda p: p[0] <= W, ix(float(W))),
                          (lambda p: p[1] >= 0, iy(0.0)), (lambda p: p[1] <= H, iy(float(H)))]:
        if not poly:
            break
        poly = clip(poly, inside, inter)
    return np.array(poly, float) if len(poly) >= 3 else np.zeros((0, 2))


def point_poly_dist(pt, P):
    d = cv2.pointPolygonTest(P.astype(np.float32).reshape(-1, 1, 2), (float(pt[0]), float(pt[1])), True)
    return max(0.0, -d)


def poly_poly_dist(A, B):
    if cv2.intersectConvexConvex(A.astype(np.float32), B.astype(np.float32))[0] > 0:
        return 0.0
    d = min(point_poly_dist(p, B) for p in A)
    return min(d, min(point_poly_dist(p, A) for p in B))


def rec_geometry(cam, rec, pg):
    pts = np.concatenate([sample_box(b) for b in rec["qlines"]], 0)
    hull = convex_hull(cam.fwd(pts))
    quads = []
    hts = []
    for b in rec["qlines"]:
        c = cam.fwd(np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]))
        quads.append(c)
        top = (c[0] + c[1]) / 2
        bot = (c[2] + c[3]) / 2
        hts.append(float(np.hypot(*(bot - top))))
    return hull, quads, float(np.mean(hts))


STATS = {}


def choose_camera(rng, pg, mode, W, H, accept_any=False):
    """Try camera poses until the framing rule holds. Returns (cam, info) or None."""
    t = pg.recs[pg.target]
    q = t["qlines"]
    tx0 = min(b[0] for b in q)
    tx1 = max(b[2] for b in q)
    ty0 = min(b[1] for b in q)
    ty1 = max(b[3] for b in q)
    tw_mm = (tx1 - tx0) / R
    th_mm = (ty1 - ty0) / R
    S = min(W, H)
    others = [i for i in range(len(pg.recs)) if i != pg.target]
    for attempt in range(80):
        # scale in photo px per mm
        k_s = S / 960.0
        if mode == "close":
            fit = min(0.88 * W / max(tw_mm, 1.0), 0.8 * H / max(th_mm, 1.0))
            s_mm = min(float(rng.uniform(13.0, 21.0)) * k_s, fit * float(rng.uniform(0.85, 1.0)))
        elif mode == "medium":
            s_mm = float(rng.uniform(8.0, 12.5)) * k_s
        else:
            s_mm = float(rng.uniform(5.6, 7.6)) * k_s
        if attempt > 40:
            s_mm *= float(rng.uniform(0.95, 1.15) if mode == "far" else rng.uniform(0.85, 1.15))
        s = s_mm / R
        theta = math.radians(float(np.clip(rng.normal(0, 2.6), -6, 6)))
        persp = rng.random() < 0.55
        gx = float(rng.uniform(-0.1, 0.1)) / (W / 2) if persp else 0.0
        gy = float(rng.uniform(-0.1, 0.1)) / (H / 2) if persp else 0.0
        curl = None
        u = rng.random()
        if u < 0.18:
            ang = float(rng.uniform(-0.15, 0.15))
            n = (math.cos(ang), math.sin(ang))
            e = (-n[1], n[0])
            curl = dict(kind="bow", a=float(rng.uniform(0.02, 0.07)) * (1 if rng.random() < 0.5 else -1),
                        n=n, e=e, t0=0.0, shade=0.0)
        elif u < 0.3:
            ang = float(rng.uniform(0, 2 * math.pi))
            n = (math.cos(ang), math.sin(ang))
            e = (-n[1], n[0])
            curl = dict(kind="bend", a=float(rng.uniform(0.06, 0.16)) * (1 if rng.random() < 0.5 else -1),
                        n=n, e=e, t0=float(rng.uniform(0.22, 0.38)), shade=float(rng.uniform(0.1, 0.3)))
        # aim point inside a target line box (inset); far shots aim near the problem's middle
        if mode != "far" and rng.random() < 0.55:
            li = int(rng.integers(0, len(q)))
            b = q[li]
            ax = b[0] + (b[2] - b[0]) * float(rng.uniform(0.2, 0.8))
            ay = b[1] + (b[3] - b[1]) * float(rng.uniform(0.3, 0.7))
        else:
            li = len(q) // 2
            b = q[li]
            cxm = (tx0 + tx1) / 2
            ax = float(np.clip(cxm + rng.normal(0, (tx1 - tx0) * 0.1), b[0] + (b[2] - b[0]) * 0.2,
                               b[2] - (b[2] - b[0]) * 0.2))
            ay = b[1] + (b[3] - b[1]) * 0.5
        cam = Camera(W, H, (ax, ay), s, theta, gx, gy, curl)
        hull, quads, lh = rec_geometry(cam, t, pg)
        em = EDGE_MARGIN_FRAC * S
        pts = hull
        if t["label_box"] is not None:
            pts = np.concatenate([hull, cam.fwd(sample_box(t["label_box"], 3, 2))], 0)
        if pts[:, 0].min() < em or pts[:, 1].min() < em or pts[:, 0].max() > W - em or pts[:, 1].max() > H - em:
            STATS["edge"] = STATS.get("edge", 0) + 1
            continue
        if point_poly_dist(cam.C, hull) > 0:
            continue
        M = max(CLAIM_MARGIN_FRAC * S, CLAIM_MARGIN_LINES * lh)
        tcd = float(np.hypot(*(poly_centroid(hull) - cam.C)))
        if mode == "far" and tcd > FAR_AIM_FRAC * S:
            STATS["far_aim"] = STATS.get("far_aim", 0) + 1
            continue
        ok = True
        geo = {}
        for i in others:
            h2, qd2, lh2 = rec_geometry(cam, pg.recs[i], pg)
            d = point_poly_dist(cam.C, h2)
            lbh = None
            if pg.recs[i].get("label_box") is not None:
                # a neighbour's printed label (e.g. a "Question 12" heading) also counts towards its claim
                lbh = convex_hull(cam.fwd(sample_box(pg.recs[i]["label_box"], 3, 2)))
                d = min(d, point_poly_dist(cam.C, lbh))
            if d < M:
                ok = False
                STATS["claim"] = STATS.get("claim", 0) + 1
                break
            if float(np.hypot(*(poly_centroid(h2) - cam.C))) < CENTROID_FACTOR * tcd + CENTROID_MARGIN_FRAC * S:
                ok = False
                STATS["centroid"] = STATS.get("centroid", 0) + 1
                break
            geo[i] = (h2, qd2, lh2, d, lbh)
        if not ok:
            continue
        # in-view count for far mode
        inview = 0
        for i, (h2, _, _, d, _) in geo.items():
            a = poly_area(h2)
            vis = poly_area(clip_poly_rect(h2, W, H)) / a if a > 0 else 0.0
            if vis >= INVIEW_FRAC:
                inview += 1
        if mode == "far" and inview < FAR_MIN_OTHERS and not accept_any:
            STATS["inview"] = STATS.get("inview", 0) + 1
            continue
        return cam, dict(hull=hull, quads=quads, lh=lh, M=M, geo=geo, attempt=attempt, inview=inview)
    return None


# --------------------------------------------------------------------------------------
# photo synthesis
# --------------------------------------------------------------------------------------
def smooth_noise(rng, H, W, cells, amp=1.0):
    g = rng.normal(0, 1, (cells[0], cells[1])).astype(np.float32)
    return cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC) * amp


def make_desk(rng, H, W, kind):
    if kind == "wood":
        base = np.array([rng.uniform(120, 185), rng.uniform(80, 125), rng.uniform(45, 80)], np.float32)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        ang = rng.uniform(-0.3, 0.3) + (0 if rng.random() < 0.5 else np.pi / 2)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        warp = smooth_noise(rng, H, W, (6, 8), 18.0)
        v = np.sin((u + warp) / rng.uniform(5, 11)) * 0.5 + 0.5
        v2 = smooth_noise(rng, H, W, (40, 3), 0.08)
        shade = 0.82 + 0.16 * v + v2
        img = base[None, None, :] * shade[..., None]
    elif kind == "laminate":
        base = np.array([rng.uniform(190, 235)] * 3, np.float32) + rng.uniform(-8, 8, 3).astype(np.float32)
        img = base[None, None, :] * (1 + smooth_noise(rng, H, W, (10, 10), 0.02))[..., None]
    elif kind == "cloth":
        base = np.array([rng.uniform(40, 110), rng.uniform(50, 120), rng.uniform(70, 150)], np.float32)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        weave = 0.06 * np.sin(xx * 1.3) * np.sin(yy * 1.3)
        img = base[None, None, :] * (1 + weave + smooth_noise(rng, H, W, (8, 8), 0.05))[..., None]
    else:  # dark desk
        base = np.array([rng.uniform(30, 70)] * 3, np.float32) + rng.uniform(-6, 6, 3).astype(np.float32)
        img = base[None, None, :] * (1 + smooth_noise(rng, H, W, (12, 12), 0.05))[..., None]
    return img.astype(np.float32)


def capsule_poly(p0, p1, r, n=16):
    p0 = np.asarray(p0, float)
    p1 = np.asarray(p1, float)
    d = p1 - p0
    ang = math.atan2(d[1], d[0])
    pts = []
    for a in np.linspace(ang + np.pi / 2, ang + 3 * np.pi / 2, n):
        pts.append(p0 + r * np.array([math.cos(a), math.sin(a)]))
    for a in np.linspace(ang - np.pi / 2, ang + np.pi / 2, n):
        pts.append(p1 + r * np.array([math.cos(a), math.sin(a)]))
    return np.array(pts)


def plan_occluder(rng, W, H, hull, kind):
    S = min(W, H)
    pad = OCCLUDER_PAD_FRAC * S
    for _ in range(30):
        edge = int(rng.integers(0, 4))
        if kind == "finger":
            r = S * float(rng.uniform(0.06, 0.1))
            L = S * float(rng.uniform(0.12, 0.3))
        else:
            r = S * float(rng.uniform(0.012, 0.022))
            L = S * float(rng.uniform(0.3, 0.55))
        along = float(rng.uniform(0.08, 0.92))
        ang_off = float(rng.uniform(-0.6, 0.6))
        if edge == 0:
            p0 = np.array([along * W, -r * 2]); dirv = np.array([0, 1.0])
        elif edge == 1:
            p0 = np.array([W + r * 2, along * H]); dirv = np.array([-1.0, 0])
        elif edge == 2:
            p0 = np.array([along * W, H + r * 2]); dirv = np.array([0, -1.0])
        else:
            p0 = np.array([-r * 2, along * H]); dirv = np.array([1.0, 0])
        c, s_ = math.cos(ang_off), math.sin(ang_off)
        dirv = np.array([c * dirv[0] - s_ * dirv[1], s_ * dirv[0] + c * dirv[1]])
        p1 = p0 + dirv * (L + r * 2)
        poly = capsule_poly(p0, p1, r)
        if kind == "pen":
            tip = p1 + dirv * r * 3.5
            poly = np.concatenate([poly, tip[None, :]], 0)
            poly = convex_hull(poly)
        if poly_poly_dist(poly, hull) < pad:
            continue
        return dict(kind=kind, p0=p0.tolist(), p1=p1.tolist(), r=r, dir=dirv.tolist(),
                    poly=[[round(float(a), 2), round(float(b), 2)] for a, b in poly],
                    colour=choose(rng, ["skin1", "skin2", "skin3"]) if kind == "finger" else
                    choose(rng, ["blue", "black", "red", "white", "green"]),
                    seed=int(rng.integers(0, 2 ** 31)))
    return None


SKIN = {"skin1": (224, 182, 155), "skin2": (196, 148, 112), "skin3": (150, 105, 75)}
PENBODY = {"blue": (40, 70, 170), "black": (30, 30, 35), "red": (190, 35, 40), "white": (225, 225, 220),
           "green": (40, 130, 70)}


def draw_occluder(img, oc):
    H, W = img.shape[:2]
    rs = np.random.default_rng(oc["seed"])
    poly = np.array(oc["poly"], np.float32)
    mask = np.zeros((H, W), np.uint8)
    cv2.fillPoly(mask, [np.round(poly * 4).astype(np.int32)], 255, cv2.LINE_AA, shift=2)
    if oc["kind"] == "finger":
        dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 5)
        r = oc["r"]
        rel = np.clip(dist / max(r, 1), 0, 1)
        shade = 0.55 + 0.4 * np.sqrt(rel) + 0.1 * np.exp(-((rel - 0.8) ** 2) / 0.03)
        col = np.array(SKIN[oc["colour"]], np.float32) * float(rs.uniform(0.85, 1.05))
        layer = col[None, None, :] * shade[..., None]
        # nail near the tip
        p1 = np.array(oc["p1"])
        d = np.array(oc["dir"])
        nc = p1 + d * r * 0.35
        ax = (int(r * 0.55), int(r * 0.7))
        angd = math.degrees(math.atan2(d[1], d[0]))
        nail = np.zeros((H, W), np.uint8)
        cv2.ellipse(nail, (int(nc[0]), int(nc[1])), (ax[1], ax[0]), angd, 0, 360, 255, -1, cv2.LINE_AA)
        nm = (nail.astype(np.float32) / 255.0)[..., None] * (mask[..., None] > 0)
        layer = layer * (1 - 0.25 * nm) + np.array([240, 215, 205], np.float32) * 0.25 * nm
        blur = max(2.0, r * 0.12)
        a = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), blur)[..., None]
        layer = cv2.GaussianBlur(layer, (0, 0), blur * 0.6)
        img[:] = img * (1 - a) + layer * a
    else:
        # shadow first
        off = np.array(oc["dir"]) * 0 + np.array([oc["r"] * 0.8, oc["r"] * 1.2])
        sh = np.zeros((H, W), np.uint8)
        cv2.fillPoly(sh, [np.round((poly + off) * 4).astype(np.int32)], 255, cv2.LINE_AA, shift=2)
        sa = cv2.GaussianBlur(sh.astype(np.float32) / 255.0, (0, 0), max(2.0, oc["r"] * 0.6))[..., None]
        img[:] = img * (1 - 0.35 * sa)
        dist = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 5)
        rel = np.clip(dist / max(oc["r"], 1), 0, 1)
        col = np.array(PENBODY[oc["colour"]], np.float32)
        shade = 0.55 + 0.45 * rel + 0.35 * np.exp(-((rel - 0.7) ** 2) / 0.02)
        layer = col[None, None, :] * shade[..., None]
        # metal tip region: beyond p1
        p1 = np.array(oc["p1"])
        d = np.array(oc["dir"])
        yy, xx = np.mgrid[0:H, 0:W]
        along = (xx - p1[0]) * d[0] + (yy - p1[1]) * d[1]
        tipm = (along > 0)[..., None]
        layer = np.where(tipm, np.array([170, 170, 175], np.float32)[None, None, :] * shade[..., None], layer)
        a = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), 1.2)[..., None]
        img[:] = img * (1 - a) + np.clip(layer, 0, 255) * a


def synthesize(rng, pg, page_rgb, cam, W, H, fx):
    """Warp page into the photo and apply camera effects. fx: dict of effect choices (drawn already)."""
    S = min(W, H)
    s = cam.s
    # pre-shrink for anti-aliasing when the page is much denser than the photo
    k = 1.0
    src = page_rgb
    if s < 0.8:
        k = s / 0.85
        src = cv2.resize(page_rgb, (max(1, int(round(pg.w * k))), max(1, int(round(pg.h * k)))),
                         interpolation=cv2.INTER_AREA)
    # inverse map, page-border distance and bend shading, computed in row blocks to bound memory
    mx = np.empty((H, W), np.float32)
    my = np.empty((H, W), np.float32)
    mask = np.empty((H, W), np.float32)
    bshade = np.zeros((H, W), np.float32) if (cam.curl and cam.curl["kind"] == "bend") else None
    for y0 in range(0, H, 128):
        y1 = min(H, y0 + 128)
        gy, gx = np.mgrid[y0:y1, 0:W]
        grid = np.stack([gx.ravel() + 0.5, gy.ravel() + 0.5], 1)
        pp = cam.inv(grid)
        mx[y0:y1] = (pp[:, 0] * k - 0.5).reshape(y1 - y0, W)
        my[y0:y1] = (pp[:, 1] * k - 0.5).reshape(y1 - y0, W)
        sd = np.minimum(np.minimum(pp[:, 0], pg.w - pp[:, 0]), np.minimum(pp[:, 1], pg.h - pp[:, 1])) * s
        mask[y0:y1] = np.clip(sd + 0.5, 0, 1).reshape(y1 - y0, W)
        if bshade is not None:
            bshade[y0:y1] = cam.shade(np.stack([gx.ravel(), gy.ravel()], 1).astype(float)).reshape(y1 - y0, W)
    warped = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    del mx, my, src
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    # paper mottle
    warped *= (1 + smooth_noise(rng, H, W, (9, 12), 0.012))[..., None]
    if fx["screen"]:
        desk = np.full((H, W, 3), float(rng.uniform(8, 25)), np.float32)
        warped = warped * np.array([0.93, 0.97, 1.05], np.float32) * 0.92 + 12
    else:
        desk = make_desk(rng, H, W, fx["desk"])
        sh = cv2.GaussianBlur(mask, (0, 0), S * 0.012)
        sh = np.roll(sh, (int(S * 0.006), int(S * 0.008)), (0, 1))
        desk *= (1 - 0.45 * sh)[..., None]
    img = warped * mask[..., None] + desk * (1 - mask[..., None])
    del warped, desk
    for oc in fx["occluders"]:
        draw_occluder(img, oc)
    # lighting
    L = np.full((H, W), fx["light_base"], np.float32)
    ang = fx["light_ang"]
    L *= 1 + fx["light_grad"] * ((xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)) / S
    rr = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / (0.25 * (W * W + H * H))
    L *= 1 - fx["vignette"] * rr
    if bshade is not None:
        L *= 1 - bshade
    if fx["shadow"] is not None:
        sd_ = fx["shadow"]
        m = np.zeros((H, W), np.uint8)
        cv2.fillPoly(m, [np.round(np.array(sd_["poly"]) * 4).astype(np.int32)], 255, cv2.LINE_AA, shift=2)
        m = cv2.GaussianBlur(m.astype(np.float32) / 255.0, (0, 0), sd_["soft"] * S)
        L *= 1 - sd_["dark"] * m
    img *= L[..., None]
    img *= np.array(fx["wb"], np.float32)[None, None, :]
    if fx["screen"]:
        # photo of a screen: faint, curved, colour-fringed interference bands + subpixel stripes
        m = fx["moire"]
        u = xx * math.cos(m["ang"]) + yy * math.sin(m["ang"])
        v = -xx * math.sin(m["ang"]) + yy * math.cos(m["ang"])
        warp = smooth_noise(rng, H, W, (3, 4), m["period"] * 0.6)
        phase = 2 * np.pi * ((u + warp) / m["period"] + m["curv"] * 2.5 * (v / S) ** 2
                             + m["curv2"] * 2.0 * (u / S) * (v / S))
        env = 0.6 + 0.4 * np.cos(2 * np.pi * v / (m["period"] * 7.0) + m["curv2"])
        for c in range(3):
            band = 0.5 + 0.5 * np.sin(phase + (c - 1) * m["chroma"])
            img[..., c] *= (1 - m["amp"] * band * env)
        sub = np.stack([(xx.astype(np.int32) + c) % 3 == 0 for c in range(3)], -1).astype(np.float32)
        img *= (1 - m["sub"] + m["sub"] * 1.5 * sub)
        img = img * 0.94 + 10
    del xx, yy
    img = np.clip(img, 0, 255)
    if fx["blur"] > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), fx["blur"])
    if fx["motion"] is not None:
        ln, an = fx["motion"]
        ker = np.zeros((ln * 2 + 1, ln * 2 + 1), np.float32)
        c = ln
        for t in np.linspace(-ln / 2, ln / 2, ln * 4):
            ker[int(round(c + t * math.sin(an))), int(round(c + t * math.cos(an)))] = 1
        ker /= ker.sum()
        img = cv2.filter2D(img, -1, ker)
    nz = rng.normal(0, fx["noise"], (H, W, 1)).astype(np.float32)
    nzc = rng.normal(0, fx["noise"] * 0.35, (H, W, 3)).astype(np.float32)
    shot = np.sqrt(np.clip(img, 1, 255) / 255.0) * 1.2
    img = img + (nz + nzc) * shot
    return np.clip(img + 0.5, 0, 255).astype(np.uint8), mask


def plan_effects(rng, W, H, hull, mode):
    fx = {}
    fx["screen"] = bool(rng.random() < 0.06)
    fx["desk"] = choose(rng, ["wood", "laminate", "cloth", "dark"], [0.45, 0.3, 0.1, 0.15])
    fx["light_base"] = float(rng.uniform(0.82, 1.04))
    fx["light_grad"] = float(rng.uniform(-0.35, 0.35)) if rng.random() < 0.7 else float(rng.uniform(-0.08, 0.08))
    fx["light_ang"] = float(rng.uniform(0, 2 * math.pi))
    fx["vignette"] = float(rng.uniform(0.0, 0.35))
    warm = float(rng.uniform(-0.07, 0.09))
    fx["wb"] = [1 + warm, 1 + warm * 0.2, 1 - warm]
    fx["shadow"] = None
    if rng.random() < 0.35 and not fx["screen"]:
        for _ in range(20):
            edge = int(rng.integers(0, 4))
            depth = float(rng.uniform(0.15, 0.55))
            pts = []
            n = 6
            for i in range(n + 1):
                a = i / n
                wob = float(rng.uniform(-0.06, 0.06))
                if edge == 0:
                    pts.append((a * W, (depth + wob) * H))
                elif edge == 1:
                    pts.append(((1 - depth - wob) * W, a * H))
                elif edge == 2:
                    pts.append((a * W, (1 - depth - wob) * H))
                else:
                    pts.append(((depth + wob) * W, a * H))
            big = 3 * max(W, H)
            if edge == 0:
                pts = [(-big, -big), (W + big, -big)] + [(W + big, pts[-1][1])] + pts[::-1] + [(-big, pts[0][1])]
            elif edge == 1:
                pts = [(W + big, -big), (W + big, H + big)] + pts[::-1] + [(pts[0][0], -big)]
            elif edge == 2:
                pts = [(-big, H + big), (W + big, H + big)] + [(W + big, pts[-1][1])] + pts[::-1] + [(-big, pts[0][1])]
            else:
                pts = [(-big, -big), (-big, H + big)] + pts[::-1] + [(pts[0][0], -big)]
            dark = float(rng.uniform(0.2, 0.42))
            soft = float(rng.uniform(0.02, 0.08))
            fx["shadow"] = dict(edge=edge, poly=[[float(a), float(b)] for a, b in pts], dark=dark, soft=soft)
            break
    fx["blur"] = float(rng.uniform(0.0, 1.7)) if rng.random() < 0.6 else float(rng.uniform(0.0, 0.5))
    if mode == "far":
        fx["blur"] = min(fx["blur"], 1.0)
    fx["motion"] = (int(rng.integers(2, 5)), float(rng.uniform(0, math.pi))) if rng.random() < 0.1 else None
    fx["noise"] = float(rng.uniform(1.5, 8.0))
    fx["jpeg"] = int(rng.integers(60, 93))
    fx["moire"] = None
    if fx["screen"]:
        fx["moire"] = dict(ang=float(rng.uniform(0, math.pi)), period=float(rng.uniform(14, 40)),
                           curv=float(rng.uniform(-1, 1)), curv2=float(rng.uniform(-1, 1)),
                           amp=float(rng.uniform(0.05, 0.1)), sub=float(rng.uniform(0.01, 0.025)),
                           chroma=float(rng.uniform(0.6, 1.6)))
    fx["occluders"] = []
    u = rng.random()
    if u < 0.13:
        oc = plan_occluder(rng, W, H, hull, "finger")
        if oc:
            fx["occluders"].append(oc)
    elif u < 0.23:
        oc = plan_occluder(rng, W, H, hull, "pen")
        if oc:
            fx["occluders"].append(oc)
    return fx


def shadow_factor_at(fx, pts, W, H):
    """approximate lighting multiplier of the hard shadow polygon at given points (for safety check)."""
    if fx["shadow"] is None:
        return np.ones(len(pts))
    P = np.array(fx["shadow"]["poly"], np.float32).reshape(-1, 1, 2)
    out = []
    for p in pts:
        d = cv2.pointPolygonTest(P, (float(p[0]), float(p[1])), True)
        out.append(1 - fx["shadow"]["dark"] * (1.0 if d > 0 else 0.0))
    return np.array(out)


# --------------------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------------------
def r2(v):
    return round(float(v), 2)


def poly_json(P):
    return [[r2(a), r2(b)] for a, b in P]


def make_one(i, seed, bank, out_dir):
    t0 = time.time()
    fonts().reset()          # FreeType faces are large: keep only one photo's sizes in memory
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    # target: language first (keeps English targets frequent enough), then uniform within it
    zh = [k for k, r in enumerate(bank) if lang_of(r["question"]) == "zh"]
    en = [k for k, r in enumerate(bank) if lang_of(r["question"]) == "en"]
    tl = "en" if rng.random() < 0.3 else "zh"
    pool = en if tl == "en" else zh
    target_idx = int(pool[int(rng.integers(0, len(pool)))])
    mode = choose(rng, ["close", "medium", "far"], [0.37, 0.36, 0.27])
    u = rng.random()
    land = 0.72 if mode == "close" else 0.45
    if u < 0.12:
        W, H = choose(rng, [(1600, 1200), (2000, 1500)]) if rng.random() < land else \
            choose(rng, [(1200, 1600), (1500, 2000)])
    elif rng.random() < land:
        W, H = 1280, 960
    else:
        W, H = 960, 1280
    pg = cam = info = None
    for lay_try in range(8):
        S = make_page_spec(rng, bank, target_idx, mode)
        if lay_try >= 3 and S["spacing"] == "tight":
            S["spacing"] = "normal"
            S["gap_mm"] = 5.0
        # dry run to count problems per column, then put the target at the chosen place
        # (far shots: middle of a column, so the view holds many problems)
        pg0 = layout_page(S, bank, slot0=0)
        if pg0 is None:
            continue
        probs = [r for r in pg0.recs if r["role"] != "worked_example"]
        col = S["target_slot"] % S["cols"]
        if S["worked"] and S["target_pos"] == "top":
            col = 0
        before = sum(1 for r in probs if r["col"] < col)
        n_c = sum(1 for r in probs if r["col"] == col)
        if n_c == 0:
            before, n_c = 0, len(probs)
        jig = S["target_slot"] % 3
        if S["target_pos"] == "top":
            slot = before + min(jig % 2, max(0, n_c - 1))
        elif S["target_pos"] == "bottom":
            slot = before + max(0, n_c - 1)
        elif S["target_pos"] == "lower":
            slot = before + min(n_c - 1, max(0, int(round(n_c * 0.68)) - 1 + jig % 2))
        else:
            slot = before + max(0, n_c // 2 - 1 + jig - 1)
        pg = layout_page(S, bank, slot0=slot)
        if pg is None:
            continue
        res = choose_camera(rng, pg, mode, W, H, accept_any=lay_try >= 5)
        if res is None:
            continue
        cam, info = res
        break
    if cam is None:
        raise RuntimeError("photo %d: no valid framing found" % i)
    marks = plan_marks(rng, pg)
    fx = plan_effects(rng, W, H, info["hull"], mode)
    # keep hard shadow off the target's darkest side: lighten if target would be too dark
    if fx["shadow"] is not None:
        f = shadow_factor_at(fx, info["hull"], W, H)
        if f.min() < 0.7:
            fx["shadow"]["dark"] = min(fx["shadow"]["dark"], 0.28)
    page = render_page(pg)
    paper = np.array([rng.uniform(236, 252), rng.uniform(234, 250), rng.uniform(226, 246)], np.float32)
    inkc = np.array([rng.uniform(10, 40)] * 3, np.float32) + rng.uniform(0, 10, 3).astype(np.float32)
    lv = np.arange(256, dtype=np.float32)[:, None] / 255.0
    lut = (paper[None, :] * lv + inkc[None, :] * (1 - lv)).astype(np.uint8)      # 256 x 3
    rgb = lut[np.asarray(page)]
    del page
    draw_marks(rgb, marks)
    dbg = os.environ.get("PHOTOS_DEBUG_DIR")
    if dbg:  # developer aid: the flat page before the camera, a third of its size
        Image.fromarray(rgb).resize((pg.w // 3, pg.h // 3)).save(os.path.join(dbg, "page_%03d.png" % i))
    img, mask = synthesize(rng, pg, rgb, cam, W, H, fx)
    del rgb
    name = "n%03d.jpg" % i
    Image.fromarray(img).save(os.path.join(out_dir, name), "JPEG", quality=fx["jpeg"])
    meta = build_meta(i, seed, bank, pg, cam, info, marks, fx, mode, W, H, mask, name)
    return meta, time.time() - t0


def build_meta(i, seed, bank, pg, cam, info, marks, fx, mode, W, H, mask, name):
    S = pg.S
    Smin = min(W, H)
    t = pg.recs[pg.target]
    hull = info["hull"]
    C = cam.C
    tags = set()

    def vis_frac(P):
        a = poly_area(P)
        return poly_area(clip_poly_rect(P, W, H)) / a if a > 0 else 0.0

    def elem_in_view(box):
        c = cam.fwd(np.array([[(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]]))[0]
        return 0 <= c[0] < W and 0 <= c[1] < H

    others = []
    nearest = None
    for j, r in enumerate(pg.recs):
        if j == pg.target:
            continue
        h2, qd2, lh2, d, lbh = info["geo"][j]
        vf = vis_frac(h2)
        rel = "other"
        if r["col"] == t["col"]:
            rel = "above" if r["order"] < t["order"] else "below"
        else:
            rel = "other_column"
        o = dict(bank_id=bank[r["bank_idx"]]["id"], role=r["role"], label=r.get("label", ""),
                 column=r["col"], order=r["order"], relation=rel,
                 hull=poly_json(h2), box=[r2(h2[:, 0].min()), r2(h2[:, 1].min()), r2(h2[:, 0].max()), r2(h2[:, 1].max())],
                 line_quads=[poly_json(qq) for qq in qd2], line_height_px=r2(lh2), line_texts=r["qtexts"],
                 label_hull=poly_json(lbh) if lbh is not None else None,
                 centre_dist=r2(d), visible_fraction=round(vf, 4), in_view=bool(vf >= INVIEW_FRAC))
        others.append(o)
        if nearest is None or d < nearest[0]:
            nearest = (d, o["bank_id"])
    # neighbour visibility (immediate neighbours in reading order within the same column)
    same = [o for o in others if o["column"] == t["col"] and o["role"] != "worked_example"]
    above = [o for o in same if o["order"] < t["order"]]
    below = [o for o in same if o["order"] > t["order"]]
    for nm, lst, pick in [("above", above, max), ("below", below, min)]:
        if lst:
            o = pick(lst, key=lambda z: z["order"])
            o["immediate"] = True
            if o["visible_fraction"] >= 0.999:
                tags.add("neighbour_%s_whole" % nm)
            elif o["visible_fraction"] > 0:
                tags.add("neighbour_%s_cut" % nm)
    if S["cols"] == 2 and any(o["relation"] == "other_column" and o["visible_fraction"] > 0 for o in others):
        tags.add("neighbour_other_column_visible")
    if any(0 < o["visible_fraction"] < 0.999 for o in others):
        tags.add("problems_cut_by_edge")
    n_inview = sum(1 for o in others if o["in_view"])
    # framing tags
    bw = hull[:, 0].max() - hull[:, 0].min()
    if n_inview >= FAR_MIN_OTHERS:
        tags.add("frame_far")
    elif info["lh"] >= CLOSE_LINE_FRAC * Smin or (bw >= CLOSE_WIDTH_FRAC * W and info["lh"] >= CLOSE_LINE_FRAC2 * Smin):
        tags.add("frame_close")
    if "frame_close" not in tags and "frame_far" not in tags:
        tags.add("frame_medium")
    cen = poly_centroid(hull)
    if np.hypot(*(cen - C)) >= OFFCENTRE_FRAC * Smin:
        tags.add("off_centre")
    rot = math.degrees(math.atan2(cam.A[1, 0], cam.A[0, 0]))
    if abs(rot) >= 2.0:
        tags.add("rotated")
    kx, ky = abs(cam.gx) * W / 2, abs(cam.gy) * H / 2
    if max(kx, ky) >= 0.03:
        tags.add("perspective")
    if cam.curl:
        tags.add("page_curl" if cam.curl["kind"] == "bow" else "page_bend")
    if mask.min() < 0.5:
        tags.add("page_edge_visible")
    # page design tags
    tags.add("page_" + S["ptype"])
    tags.add("two_column" if S["cols"] == 2 else "one_column")
    if S["cols"] == 2:
        g = S["gutter"]
        tags.add("gutter_narrow" if g < 9 else ("gutter_medium" if g < 18 else "gutter_wide"))
        if S["gutter_rule"]:
            tags.add("gutter_rule")
    if S["wide_left"]:
        tags.add("wide_left_margin")
    tags.add("spacing_" + S["spacing"])
    if S["sep"] == "boxes":
        tags.add("problems_boxed")
    elif S["sep"] == "rules":
        tags.add("problems_ruled")
    tags.add("label_" + ("none" if S["label_style"] == "none" else S["label_style"]))
    tags.add("bilingual_page" if S["bilingual"] else "monolingual_page")
    tags.add("lang_" + lang_of(bank[pg.recs[pg.target]["bank_idx"]]["question"]))
    for f in t["feats"]:
        tags.add("target_" + f)
    if t["role"] == "sub_problem":
        tags.add("target_sub_label")
    if S["score_mode"] == "column":
        tags.add("marks_column")
    # page elements visible in the photo
    seen_elems = []
    for e in pg.elems:
        if elem_in_view(e["box"]):
            k = e["kind"]
            seen_elems.append(k)
            mp = {"page_header": "page_header", "page_footer": "page_footer", "school_name": "school_name",
                  "title": "page_title", "name_class_date": "name_class_date", "section_heading": "section_heading",
                  "instructions": "instructions_line", "worked_example": "worked_example", "hint": "hint_line",
                  "figure": "figure", "table": "table", "marks_column": "marks_column_visible",
                  "score_inline": "score_inline", "options": "options", "problem_box": "problems_boxed_visible",
                  "rule": "rules_visible", "sub_label": "sub_label"}
            if k in mp:
                tags.add("seen_" + mp[k])
            if k in ("page_header", "school_name", "title", "name_class_date"):
                tags.add("seen_page_header")
            if k.startswith("answer_"):
                tags.add("seen_" + k)
    for m in marks:
        if m["kind"].startswith("mark_"):
            tags.add(m["kind"])
        else:
            tags.add("mark_neighbour_tick")
    if any(m["kind"].startswith("mark_") for m in marks):
        tags.add("student_marks")
    # camera tags
    if abs(fx["light_grad"]) >= 0.15 or fx["vignette"] >= 0.2:
        tags.add("uneven_light")
    if fx["shadow"] is not None:
        tags.add("shadow")
    if fx["blur"] >= 0.9:
        tags.add("blur")
    if fx["motion"] is not None:
        tags.add("motion_blur")
    if fx["noise"] >= 4.5:
        tags.add("noise")
    if fx["jpeg"] <= 70:
        tags.add("jpeg_low")
    for oc in fx["occluders"]:
        tags.add("occluder_" + oc["kind"])
    if fx["screen"]:
        tags.add("moire")
    tags.add("landscape" if W > H else "portrait")
    if max(W, H) > 1280:
        tags.add("size_large")
    if S["lang"] == "en" and S["bilingual"] or S["lang"] == "zh" and S["bilingual"]:
        pass
    langs_on_page = sorted(set(lang_of(bank[r["bank_idx"]]["question"]) for r in pg.recs))
    fset = {"body_cjk": FONT_NAMES[S["font_cjk"]],
            "body_latin": FONT_NAMES[S["font_latin"]] if S["font_latin"] else FONT_NAMES[S["font_cjk"]] + " (own Latin)",
            "heading_cjk": FONT_NAMES[S["font_head_cjk"]], "body_pt": r2(S["pt"]), "leading": r2(S["leading"])}
    target = dict(bank_id=bank[t["bank_idx"]]["id"], role=t["role"], label=t.get("label", ""),
                  parent_label=t.get("parent_label"), column=t["col"], order=t["order"],
                  hull=poly_json(hull), box=[r2(hull[:, 0].min()), r2(hull[:, 1].min()), r2(hull[:, 0].max()),
                                             r2(hull[:, 1].max())],
                  line_quads=[poly_json(qq) for qq in info["quads"]], line_height_px=r2(info["lh"]),
                  line_texts=t["qtexts"],
                  fonts_used=[font_label(k) for k in t.get("qfonts", [])],
                  n_lines=len(t["qlines"]), centre_dist=r2(point_poly_dist(C, hull)),
                  label_hull=(poly_json(convex_hull(cam.fwd(sample_box(t["label_box"], 3, 2))))
                              if t["label_box"] is not None else None),
                  block_hull=poly_json(convex_hull(cam.fwd(sample_box(t["block"], 5, 5)))) if t.get("block") else None,
                  features=sorted(set(t["feats"])))
    meta = dict(
        qid="n%03d" % i, file=name, index=i, seed=seed, generator=GENERATOR_VERSION,
        bank_id=target["bank_id"], lang=lang_of(bank[t["bank_idx"]]["question"]),
        width=W, height=H, jpeg_quality=fx["jpeg"],
        target=target, others=others,
        framing=dict(rule="image centre inside target text hull; every other problem's text hull at least "
                          "claim_margin_px from the image centre; target text hull and label at least "
                          "edge_margin_px inside the image",
                     centre=[r2(C[0]), r2(C[1])], short_side=Smin,
                     edge_margin_px=r2(EDGE_MARGIN_FRAC * Smin), claim_margin_px=r2(info["M"]),
                     claim_margin_frac=CLAIM_MARGIN_FRAC, claim_margin_lines=CLAIM_MARGIN_LINES,
                     target_centre_dist=r2(point_poly_dist(C, hull)),
                     nearest_other_dist=r2(nearest[0]) if nearest else None,
                     centroid_margin_px=r2(CENTROID_MARGIN_FRAC * Smin), centroid_factor=CENTROID_FACTOR,
                     target_centroid_dist=r2(np.hypot(*(cen - C))),
                     nearest_other_centroid_dist=r2(min(np.hypot(*(poly_centroid(info["geo"][j][0]) - C))
                                                        for j in info["geo"])) if info["geo"] else None,
                     nearest_other_bank_id=nearest[1] if nearest else None,
                     others_in_view=n_inview, mode_drawn=mode, camera_attempts=info["attempt"] + 1),
        kinds=sorted(tags),
        page=dict(type=S["ptype"], size_mm=list(S["page_mm"]), render_px_per_mm=R, columns=S["cols"],
                  gutter_mm=r2(S["gutter"]), margins_mm=[r2(S["margin_l"]), r2(S["margin_t"]), r2(S["margin_r"]),
                                                         r2(S["margin_b"])],
                  bilingual=S["bilingual"], heading_lang=S["hlang"], question_langs=langs_on_page,
                  label_style=S["label_style"], sublabel_style=S["sublabel_style"], separators=S["sep"],
                  spacing=S["spacing"], gap_mm=r2(S["gap_mm"]), score_mode=S["score_mode"],
                  n_problems=len(pg.recs), target_position=S["target_pos"],
                  elements_in_view=sorted(set(seen_elems))),
        fonts=fset,
        camera=dict(px_per_mm=r2(cam.s * R), rotation_deg=r2(rot), perspective=[round(cam.gx * W / 2, 4),
                                                                                 round(cam.gy * H / 2, 4)],
                    curl=cam.curl, aim_page_mm=[r2(cam.P[0] / R), r2(cam.P[1] / R)]),
        effects=dict(screen_moire=fx["screen"], moire=fx["moire"], desk=fx["desk"] if not fx["screen"] else "screen",
                     light=dict(base=r2(fx["light_base"]), grad=r2(fx["light_grad"]), vignette=r2(fx["vignette"])),
                     shadow=(dict(edge=fx["shadow"]["edge"], dark=r2(fx["shadow"]["dark"]),
                                  soft=r2(fx["shadow"]["soft"])) if fx["shadow"] else None),
                     blur_sigma=r2(fx["blur"]), motion_blur=fx["motion"], noise_sigma=r2(fx["noise"])),
        occluders=[dict(kind=o["kind"], poly=o["poly"]) for o in fx["occluders"]],
        marks=[dict(kind=m["kind"], box_page_mm=[r2(v / R) for v in m["box"]],
                    hull=poly_json(convex_hull(cam.fwd(sample_box(m["box"], 3, 3)))))
               for m in marks],
    )
    return meta


# --------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------
_BANK = None


def _init(bank_path):
    global _BANK
    cv2.setNumThreads(1)
    _BANK = load_bank(bank_path)
    fonts()


def _work(args):
    i, seed, out_dir = args
    return make_one(i, seed, _BANK, out_dir)


def load_bank(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def write_outputs(out_dir, metas, bank):
    by_id = {r["id"]: r for r in bank}
    metas = sorted(metas, key=lambda m: m["index"])
    with open(os.path.join(out_dir, "meta.jsonl"), "w", encoding="utf-8") as f:
        for m in metas:
            f.write(json.dumps(m, ensure_ascii=False, sort_keys=True) + "\n")
    with open(os.path.join(out_dir, "truth.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["qid", "text"])
        for m in metas:
            w.writerow([m["qid"], by_id[m["bank_id"]]["question"]])
    with open(os.path.join(out_dir, "queries.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["qid", "query", "expected_id", "kind"])
        for m in metas:
            w.writerow([m["qid"], by_id[m["bank_id"]]["question"], m["bank_id"], "exact"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=201)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", default=None, help="comma-separated photo numbers to (re)make, e.g. 3,17")
    a = ap.parse_args(argv)
    os.makedirs(a.out_dir, exist_ok=True)
    bank = load_bank(a.bank)
    if a.only:
        idx = sorted(set(int(x) for x in a.only.split(",") if x.strip()))
    else:
        idx = list(range(1, a.count + 1))
    jobs = max(1, min(a.jobs, 2, len(idx)))
    t0 = time.time()
    tasks = [(i, a.seed, a.out_dir) for i in idx]
    metas = []
    if jobs == 1:
        _init(a.bank)
        for tk in tasks:
            m, secs = _work(tk)
            metas.append(m)
            print("%s %s %.1fs" % (m["file"], m["bank_id"], secs), flush=True)
    else:
        import multiprocessing as mp
        ctx = mp.get_context("fork")
        with ctx.Pool(jobs, initializer=_init, initargs=(a.bank,), maxtasksperchild=20) as pool:
            for m, secs in pool.imap(_work, tasks):
                metas.append(m)
                print("%s %s %.1fs" % (m["file"], m["bank_id"], secs), flush=True)
    # merge with an existing meta.jsonl when remaking a subset
    mpath = os.path.join(a.out_dir, "meta.jsonl")
    if a.only and os.path.exists(mpath):
        old = {}
        with open(mpath, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    m = json.loads(line)
                    old[m["qid"]] = m
        for m in metas:
            old[m["qid"]] = m
        metas = list(old.values())
    write_outputs(a.out_dir, metas, bank)
    print("made %d photos in %.1fs with %d job(s) -> %s" % (len(tasks), time.time() - t0, jobs, a.out_dir))


if __name__ == "__main__":
    main()
