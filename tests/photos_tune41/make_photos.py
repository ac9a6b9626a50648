#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Synthetic phone photos of photocopied / home-printed exam and quiz papers.

Each photo frames ONE target problem (a bank question with a problem number in
front of it) at the image centre; neighbouring bank problems, section headings,
title lines, option rows, answer blanks, score boxes etc. surround it.  The page
is degraded like a 1st-3rd generation photocopy (or a banded inkjet print) and
then "photographed" (perspective, rotation, curl, lighting, blur, noise, JPEG).

Usage:
  .venv/bin/python tests/photos_tune41/make_photos.py \
      --bank appliance/data/demo_bank.jsonl OUT_DIR --count 120 --seed 421

Outputs in OUT_DIR: pc001.jpg ..., truth.csv (qid,text), queries.csv
(qid,query,expected_id,kind).  Optional --manifest PATH writes one JSON line per
photo with the cases that are actually visible in the frame (for reporting).
"""
import argparse
import csv
import difflib
import json
import math
import multiprocessing as mp
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import cv2  # noqa: E402
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

cv2.setNumThreads(1)

PXMM = 10.0          # page raster resolution, px per mm
PT = 0.3528          # mm per point
MIN_EM = 21.0        # min target em height in the photo (px) at the centre
MIN_EM_EDGE = 18.0   # min em anywhere on the target (perspective)
MAX_EM = 44.0

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------
_ND = "/usr/share/fonts/opentype/noto/"
_LB = "/usr/share/fonts/truetype/liberation/"
_DV = "/usr/share/fonts/truetype/dejavu/"
FONT_SPECS = {
    "serif_cjk": (_ND + "NotoSerifCJK-Regular.ttc", "SC"),
    "serif_cjk_b": (_ND + "NotoSerifCJK-Bold.ttc", "SC"),
    "sans_cjk": (_ND + "NotoSansCJK-Regular.ttc", "SC"),
    "sans_cjk_b": (_ND + "NotoSansCJK-Bold.ttc", "SC"),
    "lib_serif": (_LB + "LiberationSerif-Regular.ttf", None),
    "lib_serif_b": (_LB + "LiberationSerif-Bold.ttf", None),
    "lib_sans": (_LB + "LiberationSans-Regular.ttf", None),
    "lib_sans_b": (_LB + "LiberationSans-Bold.ttf", None),
    "dv_serif": (_DV + "DejaVuSerif.ttf", None),
    "dv_serif_b": (_DV + "DejaVuSerif-Bold.ttf", None),
    "dv_sans": (_DV + "DejaVuSans.ttf", None),
    "dv_sans_b": (_DV + "DejaVuSans-Bold.ttf", None),
    "dv_math": (_DV + "DejaVuMathTeXGyre.ttf", None),
}
BOLD = {"serif_cjk": "serif_cjk_b", "sans_cjk": "sans_cjk_b", "lib_serif": "lib_serif_b",
        "lib_sans": "lib_sans_b", "dv_serif": "dv_serif_b", "dv_sans": "dv_sans_b"}
FALLBACK = ["dv_serif", "dv_sans", "dv_math"]
_FONT_IDX = {}
_CMAP = {}
_FONTS = {}
_KEYCACHE = {}


def init_fonts():
    if _CMAP:
        return
    from fontTools.ttLib import TTCollection, TTFont
    for key, (path, want) in FONT_SPECS.items():
        if path.endswith(".ttc"):
            coll = TTCollection(path, lazy=True)
            idx = None
            for i, f in enumerate(coll.fonts):
                nm = f["name"].getDebugName(1) or ""
                if nm.endswith(" " + want) and "Mono" not in nm:
                    idx = i
                    break
            if idx is None:
                idx = 0
            _FONT_IDX[key] = (path, idx)
            _CMAP[key] = set(coll.fonts[idx].getBestCmap().keys())
        else:
            _FONT_IDX[key] = (path, 0)
            _CMAP[key] = set(TTFont(path, lazy=True).getBestCmap().keys())


def font(key, size):
    size = int(round(size))
    k = (key, size)
    f = _FONTS.get(k)
    if f is None:
        path, idx = _FONT_IDX[key]
        f = ImageFont.truetype(path, size, index=idx, layout_engine=ImageFont.Layout.BASIC)
        _FONTS[k] = f
    return f


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFE30 <= o <= 0xFE4F
            or 0xFF00 <= o <= 0xFFEF or 0x3000 <= o <= 0x303F)


ZH_CTX_PUNCT = set("“”‘’—…·")


def has_cjk(s):
    return any(is_cjk(c) for c in s)


def pick_key(ch, style, zh):
    ck = (ch, style, zh)
    r = _KEYCACHE.get(ck)
    if r is not None:
        return r
    cjk, lat = style
    prefer = cjk if (is_cjk(ch) or (zh and ch in ZH_CTX_PUNCT)) else lat
    r = None
    for k in [prefer, cjk, lat] + FALLBACK:
        if ord(ch) in _CMAP[k]:
            r = k
            break
    if r is None:
        r = cjk
    _KEYCACHE[ck] = r
    return r


def runs(text, style, zh=None):
    if zh is None:
        zh = has_cjk(text)
    out = []
    for ch in text:
        k = pick_key(ch, style, zh)
        if out and out[-1][1] == k:
            out[-1][0] += ch
        else:
            out.append([ch, k])
    return out


def tw(text, style, size, zh=None):
    return sum(font(k, size).getlength(s) for s, k in runs(text, style, zh))


def bold_style(style):
    return (BOLD.get(style[0], style[0]), BOLD.get(style[1], style[1]))


# --------------------------------------------------------------------------
# text tokenising / wrapping
# --------------------------------------------------------------------------
NO_START = set("，。、？！：；）》」』”’%％.,;:?!)]}")
NO_END = set("（《「『“‘([{")


def tokenize(text):
    toks = []
    i, sp = 0, False
    n = len(text)
    while i < n:
        c = text[i]
        if c == " ":
            sp = True
            i += 1
            continue
        if is_cjk(c) or c in ZH_CTX_PUNCT:
            tok = c
            i += 1
        else:
            j = i
            while j < n and text[j] != " " and not is_cjk(text[j]) and text[j] not in ZH_CTX_PUNCT:
                j += 1
            tok = text[i:j]
            i = j
        toks.append([tok, sp])
        sp = False
    merged = []
    for tok, s in toks:
        if merged and not s and (tok[0] in NO_START or merged[-1][0][-1] in NO_END):
            merged[-1][0] += tok
        else:
            merged.append([tok, s])
    return merged


def wrap(text, maxw, style, size, tail=None):
    """Greedy wrap; returns list of line strings. tail: extra (tok, space) tokens."""
    zh = has_cjk(text)
    toks = tokenize(text)
    if tail:
        toks = toks + [list(t) for t in tail]
        zh = zh or any(has_cjk(t[0]) for t in tail)
    sw = tw(" ", style, size, zh)
    lines, cur, curw = [], "", 0.0
    for tok, s in toks:
        w = tw(tok, style, size, zh)
        if cur and curw + (sw if s else 0) + w <= maxw:
            cur += (" " if s else "") + tok
            curw += (sw if s else 0) + w
            continue
        if cur:
            lines.append(cur)
        if w > maxw:  # over-long token: break by characters
            part, pw = "", 0.0
            for ch in tok:
                cw = tw(ch, style, size, zh)
                if part and pw + cw > maxw:
                    lines.append(part)
                    part, pw = "", 0.0
                part += ch
                pw += cw
            cur, curw = part, pw
        else:
            cur, curw = tok, w
    if cur:
        lines.append(cur)
    return lines, zh


# --------------------------------------------------------------------------
# content vocabulary
# --------------------------------------------------------------------------
CN_NUM = "一二三四五六七八九十"
SUBJ_ZH = {"math": "数学", "physics": "物理", "chemistry": "化学", "biology": "生物",
           "geography": "地理", "history": "历史", "chinese": "语文", "english": "英语"}
SUBJ_EN = {"math": "Mathematics", "physics": "Physics", "chemistry": "Chemistry",
           "biology": "Biology", "geography": "Geography", "history": "History",
           "chinese": "Chinese", "english": "English"}
GRADE_ZH = {"1": "一年级", "2": "二年级", "3": "三年级", "4": "四年级", "5": "五年级",
            "6": "六年级", "7": "七年级", "8": "八年级", "9": "九年级", "10": "高一",
            "11": "高二", "12": "高三"}
ZH_OPTS = {
    "math": ["2", "3", "4", "5", "6", "8", "12", "-1", "-3", "1/2", "3/4", "√3", "2√2", "x = 3",
             "x = -2", "(0, 1)", "(1, 0)", "36°", "90°", "π", "2π", "无解", "10", "24"],
    "physics": ["3 m/s", "5 m/s²", "10 N", "20 N", "6 Ω", "12 V", "0.5 A", "40 W", "200 J",
                "3×10⁸ m/s", "1.0×10³ kg/m³", "变大", "变小", "不变", "凸透镜", "凹透镜"],
    "chemistry": ["O₂", "N₂", "CO₂", "H₂O", "NaCl", "HCl", "18", "44", "58.5", "7", "氧气",
                  "氮气", "二氧化碳", "稀有气体", "化合反应", "分解反应", "置换反应"],
    "biology": ["叶绿体", "线粒体", "细胞核", "细胞壁", "液泡", "左心室", "右心房", "小肠",
                "胃", "1/4", "1/2", "3/4", "沃森和克里克", "孟德尔", "达尔文"],
    "geography": ["长江", "黄河", "太平洋", "大西洋", "印度洋", "青藏高原", "黄土高原",
                  "新疆", "西藏", "内蒙古", "一年", "一天", "珠穆朗玛峰", "5 千米", "50 千米"],
    "history": ["公元前221年", "公元前202年", "1842年", "1921年", "1949年", "1939年",
                "唐太宗", "汉武帝", "秦始皇", "刘邦", "康熙", "乾隆"],
    "chinese": ["李白", "杜甫", "白居易", "苏轼", "鲁迅", "诸葛亮", "处处闻啼鸟",
                "更上一层楼", "夜来风雨声", "《水调歌头》", "《念奴娇》", "比喻", "拟人"],
    "english": ["went", "goes", "gone", "better", "best", "children", "childs", "since",
                "for", "an", "a", "cheap", "I get up at seven.", "I got up at seven."],
}
EN_OPTS = ["went", "goes", "gone", "going", "better", "best", "well", "cheap", "cheaper",
           "since", "for", "an", "a", "the", "1492", "1776", "1620", "mitochondria",
           "nucleus", "ribosome", "chloroplast", "720°", "540°", "360°", "3/8", "5/8",
           "2", "3", "20 m/s", "36 J", "12 J", "x < 4", "x > 4", "x < 2"]
ZH_NAME = ["选择题", "填空题", "判断题", "解答题", "计算题", "简答题"]


def zh_heading(kind, idx, rng):
    n = CN_NUM[idx % 10]
    p = int(rng.choice([2, 3, 4, 5]))
    c = int(rng.integers(4, 13))
    if kind == "choice":
        return str(rng.choice([f"{n}、选择题（每小题{p}分，共{p * c}分）",
                               f"{n}、单项选择题（本大题共{c}小题，每小题{p}分，共{p * c}分）",
                               f"{n}、选择题（每题只有一个正确答案）"]))
    if kind == "fill":
        return str(rng.choice([f"{n}、填空题（每空{p}分，共{p * c}分）", f"{n}、填空题",
                               f"{n}、填空题（本大题共{c}小题）"]))
    if kind == "judge":
        return f"{n}、判断题（对的打“√”，错的打“×”，每题{p}分）"
    return str(rng.choice([f"{n}、解答题（共{p * c + 6}分）", f"{n}、计算题（每小题{p}分）",
                           f"{n}、简答题（本大题共{c}小题，共{p * c}分）", f"{n}、解答题"]))


def en_heading(kind, idx, rng):
    L = "ABCDEFG"[idx % 7]
    R = ["I", "II", "III", "IV", "V", "VI"][idx % 6]
    m = int(rng.choice([10, 12, 15, 20, 24, 30]))
    if kind == "choice":
        return str(rng.choice([f"Part {L}  Multiple choice ({m} marks)",
                               f"{R}. Choose the best answer. (2 marks each)",
                               f"Section {idx + 1}: Multiple Choice"]))
    if kind in ("fill", "judge"):
        return str(rng.choice([f"Part {L}  Fill in the blanks ({m} marks)",
                               f"{R}. Complete the sentences. ({m}%)",
                               f"Section {idx + 1}: Fill in the blanks"]))
    return str(rng.choice([f"Part {L}  Short answer ({m} marks)",
                           f"{R}. Answer the questions. ({m} marks)",
                           f"Section {idx + 1}: Short Answer"]))


def num_label(style, n):
    if style == "dot":
        return f"{n}."
    if style == "fw":
        return f"{n}．"
    if style == "paren":
        return f"({n})"
    return f"（{n}）"


def make_options(rng, q, lang):
    subj = q["subject"]
    if lang == "en" and not has_cjk(q["question"]):
        pool = EN_OPTS
    else:
        pool = ZH_OPTS.get(subj, ZH_OPTS["math"])
    idx = rng.choice(len(pool), size=4, replace=False)
    return [pool[i] for i in idx]


# --------------------------------------------------------------------------
# page layout
# --------------------------------------------------------------------------
def new_el(kind, bbox, **kw):
    d = {"kind": kind, "bbox": [float(v) for v in bbox]}
    d.update(kw)
    return d


def layout_page(P, sections, bank, rng_local):
    """Lay out a page. Returns (elements, draws, target_el or None).

    sections: list of dict(kind, heading, items=[dict(qid|TARGET, tail, options, pre)])
    All measures in page px.
    """
    S = PXMM
    pw, ph = P["pw"] * S, P["ph"] * S
    ml, mr, mt, mb = [v * S for v in P["margins"]]
    style = P["style"]
    bstyle = bold_style(style)
    em = P["pt"] * PT * S
    lh = em * P["spacing"]
    draws, els = [], []
    content_w = pw - ml - mr
    y = mt
    # ---------------- header ----------------
    H = P["header"]
    if H:
        for tline in H["title"]:
            tem = H["title_pt"] * PT * S
            w = tw(tline, bstyle, tem)
            x = ml + (content_w - w) / 2
            base = y + tem * 1.05
            draws.append(("text", x, base, tline, bstyle, tem))
            els.append(new_el("title", (x, base - tem * 0.95, x + w, base + tem * 0.2), text=tline))
            y += tem * 1.55
        if H.get("subtitle"):
            sem = em * 0.95
            w = tw(H["subtitle"], style, sem)
            x = ml + (content_w - w) / 2
            base = y + sem * 1.05
            draws.append(("text", x, base, H["subtitle"], style, sem))
            els.append(new_el("subtitle", (x, base - sem * 0.95, x + w, base + sem * 0.2)))
            y += sem * 1.6
        if H.get("nameline"):
            nem = em * 1.05
            w = tw(H["nameline"], style, nem)
            x = ml + (content_w - w) / 2
            base = y + nem * 1.1
            draws.append(("text", x, base, H["nameline"], style, nem))
            els.append(new_el("nameline", (x, base - nem * 0.95, x + w, base + nem * 0.25)))
            y += nem * 1.8
        if H.get("scoretable"):
            cols = H["scoretable"]
            cw, chh = 13 * S, 7 * S
            tot = cw * len(cols)
            x0 = ml + (content_w - tot) / 2
            y0 = y + 1 * S
            lw = max(2, int(0.25 * S))
            for r in range(3):
                draws.append(("line", x0, y0 + r * chh, x0 + tot, y0 + r * chh, lw))
            for c in range(len(cols) + 1):
                draws.append(("line", x0 + c * cw, y0, x0 + c * cw, y0 + 2 * chh, lw))
            tem = em * 0.95
            for c, lab in enumerate(cols):
                w = tw(lab, style, tem)
                draws.append(("text", x0 + c * cw + (cw - w) / 2, y0 + chh * 0.5 + tem * 0.36, lab, style, tem))
            w = tw("得分", style, tem)
            draws.append(("text", x0 + (cw - w) / 2, y0 + chh * 1.5 + tem * 0.36, "得分", style, tem))
            els.append(new_el("scoretable", (x0, y0, x0 + tot, y0 + 2 * chh)))
            y = y0 + 2 * chh + 2 * S
        if H.get("rule"):
            draws.append(("line", ml, y + 1 * S, pw - mr, y + 1 * S, max(2, int(0.3 * S))))
            y += 2.5 * S
        y += 2 * S
    # ---------------- columns ----------------
    ncols = P["ncols"]
    gap = P["colgap"] * S
    colw = (content_w - gap * (ncols - 1)) / ncols
    cols = [(ml + c * (colw + gap), ml + c * (colw + gap) + colw) for c in range(ncols)]
    ytop, ybot = y, ph - mb
    if P.get("footer"):
        fem = em * 0.9
        w = tw(P["footer"], style, fem)
        base = ph - mb * 0.45
        draws.append(("text", ml + (content_w - w) / 2, base, P["footer"], style, fem))
        els.append(new_el("footer", (ml + (content_w - w) / 2, base - fem, ml + (content_w + w) / 2, base + fem * 0.2)))
    if ncols > 1 and P["rule"]:
        for c in range(ncols - 1):
            xr = cols[c][1] + gap / 2
            draws.append(("line", xr, ytop, xr, ybot, max(2, int(0.22 * S))))
            els.append(new_el("colrule", (xr - 2, ytop, xr + 2, ybot)))
    state = {"c": 0, "y": ytop}

    def place(h, keep=0.0):
        if state["y"] + h + keep > ybot:
            state["c"] += 1
            state["y"] = ytop
            if state["c"] >= ncols or state["y"] + h + keep > ybot:
                return None
        x0 = cols[state["c"]][0]
        yy = state["y"]
        state["y"] += h
        return x0, yy, state["c"]

    target_el = None
    number = 0
    nstyle = P["numstyle"]
    opt_lab = P["optlabel"]
    full = False
    for si, sec in enumerate(sections):
        if full:
            break
        # ---- heading ----
        hem = em * 1.02
        hstyle = bstyle if P["heading_bold"] else style
        hh = max(lh * 1.25, (2 * 6.2 * S + 1.5 * S) if sec.get("scorebox") == "zh" else 0)
        pos = place(hh, keep=lh * 2)
        if pos is None:
            break
        x0, yy, c = pos
        xt = x0
        if sec.get("scorebox") == "zh":
            cw, chh = 10 * S, 6.2 * S
            ty = yy + 0.5 * S
            lw = max(2, int(0.22 * S))
            for r in range(3):
                draws.append(("line", x0, ty + r * chh, x0 + 2 * cw, ty + r * chh, lw))
            for k in range(3):
                draws.append(("line", x0 + k * cw, ty, x0 + k * cw, ty + 2 * chh, lw))
            sem = em * 0.85
            for k, lab in enumerate(["得分", "评卷人"]):
                w = tw(lab, style, sem)
                draws.append(("text", x0 + k * cw + (cw - w) / 2, ty + chh * 0.5 + sem * 0.36, lab, style, sem))
            els.append(new_el("scorebox", (x0, ty, x0 + 2 * cw, ty + 2 * chh)))
            xt = x0 + 2 * cw + 2.5 * S
            base = ty + chh + hem * 0.4
        else:
            base = yy + (hh - hem) / 2 + hem * 0.88
        htext = sec["heading"]
        avail = cols[c][1] - xt
        hlines, _ = wrap(htext, avail, hstyle, hem)
        for li, hl in enumerate(hlines):
            draws.append(("text", xt, base + li * hem * 1.3, hl, hstyle, hem))
        hwid = max(tw(hl, hstyle, hem) for hl in hlines)
        extra = (len(hlines) - 1) * hem * 1.3
        if extra:
            state["y"] = max(state["y"], base + extra + hem * 0.5)
        els.append(new_el("heading", (xt, base - hem * 0.95, xt + hwid, base + extra + hem * 0.25), text=htext, col=c))
        if sec.get("scorebox") == "en":
            bw, bh = 16 * S, hem * 1.5
            bx = cols[c][1] - bw
            if bx > xt + hwid + 2 * S:
                by = base - hem * 1.1
                lw = max(2, int(0.22 * S))
                draws.append(("rect", bx, by, bx + bw, by + bh, lw))
                lab = sec.get("boxlabel", "/20")
                w = tw(lab, style, em * 0.9)
                draws.append(("text", bx + bw - w - 1.0 * S, by + bh * 0.5 + em * 0.32, lab, style, em * 0.9))
                els.append(new_el("scorebox", (bx, by, bx + bw, by + bh)))
        if sec.get("instr"):
            iem = em * 0.95
            ilines, _ = wrap(sec["instr"], colw, style, iem)
            for il in ilines:
                p2 = place(lh)
                if p2 is None:
                    full = True
                    break
                draws.append(("text", p2[0], p2[1] + (lh - iem) / 2 + iem * 0.88, il, style, iem))
                els.append(new_el("instr", (p2[0], p2[1], p2[0] + tw(il, style, iem), p2[1] + lh)))
        if full:
            break
        state["y"] += lh * 0.15
        if nstyle in ("paren", "fwparen"):
            number = 0
        # ---- problems ----
        for jj, it in enumerate(sec["items"]):
            number += 1
            is_t = it.get("target", False)
            q = bank[it["qid"]]
            text = q["question"]
            if it.get("pre"):
                text = it["pre"] + text
            label = num_label(nstyle, number)
            lgap = 0 if nstyle in ("fw", "fwparen") else em * 0.3
            lw_ = tw(label, style, em) + lgap
            tx_off = lw_
            tail = None if is_t else it.get("tail")
            lines, zh = wrap(text, colw - tx_off - 2, style, em, tail=tail)
            opts_lines = []
            if not is_t and it.get("options"):
                labs = [f"{'ABCD'[k]}{opt_lab}{o}" for k, o in enumerate(it["options"])]
                ow = colw - tx_off
                wid = [tw(lb, style, em) + em * 0.8 for lb in labs]
                if max(wid) <= ow / 4:
                    opts_lines = [[(lb, k * ow / 4) for k, lb in enumerate(labs)]]
                elif max(wid) <= ow / 2:
                    opts_lines = [[(labs[0], 0), (labs[1], ow / 2)], [(labs[2], 0), (labs[3], ow / 2)]]
                else:
                    opts_lines = [[(lb, 0)] for lb in labs]
            nl = len(lines) + len(opts_lines)
            space = it.get("space", 0.0) * S
            ruled = it.get("ruled", 0)
            h = nl * lh + P["pgap"] * em + space + ruled * lh * 1.3
            pos = place(nl * lh + P["pgap"] * em, keep=0)
            if pos is None:
                full = True
                if is_t:
                    return els, draws, None
                break
            x0, yy, c = pos
            state["y"] += space + ruled * lh * 1.3
            if state["y"] > ybot:
                state["y"] = ybot
            b0 = yy + (lh - em) / 2 + em * 0.88
            draws.append(("text", x0, b0, label, style, em))
            maxr = x0 + lw_
            for li, ln in enumerate(lines):
                bl = b0 + li * lh
                draws.append(("text", x0 + tx_off, bl, ln, style, em, zh))
                maxr = max(maxr, x0 + tx_off + tw(ln, style, em, zh))
            text_bb = (x0, b0 - em * 0.95, maxr, b0 + (len(lines) - 1) * lh + em * 0.25)
            full_bb = list(text_bb)
            for oi, ol in enumerate(opts_lines):
                bl = b0 + (len(lines) + oi) * lh
                for lb, ox in ol:
                    draws.append(("text", x0 + tx_off + ox, bl, lb, style, em))
                    full_bb[2] = max(full_bb[2], x0 + tx_off + ox + tw(lb, style, em))
                full_bb[3] = bl + em * 0.25
            for r in range(ruled):
                ry = b0 + (nl - 1) * lh + (r + 1) * lh * 1.3
                if ry < ybot:
                    draws.append(("line", x0 + tx_off, ry, cols[c][1], ry, max(2, int(0.15 * S))))
            el = new_el("problem", text_bb, full=list(full_bb), qid=it["qid"], target=is_t,
                        col=c, nlines=len(lines), label=label, section=si, j=jj,
                        skind=sec["kind"],
                        has_options=bool(opts_lines), has_tail=bool(tail), lines=lines)
            if opts_lines:
                el["opts_bb"] = [text_bb[0] + tx_off, text_bb[3], full_bb[2], full_bb[3]]
            els.append(el)
            if is_t:
                target_el = el
        if full:
            break
    return els, draws, target_el


def render_draws(draws, pw, ph, shift=(0, 0)):
    img = Image.new("L", (int(round(pw)), int(round(ph))), 0)
    d = ImageDraw.Draw(img)
    for dr in draws:
        if dr[0] == "text":
            x, base, text, style, size = dr[1], dr[2], dr[3], dr[4], dr[5]
            zh = dr[6] if len(dr) > 6 else None
            for s, k in runs(text, style, zh):
                f = font(k, size)
                d.text((x, base), s, font=f, fill=255, anchor="ls")
                x += f.getlength(s)
        elif dr[0] == "line":
            d.line([(dr[1], dr[2]), (dr[3], dr[4])], fill=255, width=int(dr[5]))
        elif dr[0] == "rect":
            d.rectangle([dr[1], dr[2], dr[3], dr[4]], outline=255, width=int(dr[5]))
    return np.asarray(img)


# --------------------------------------------------------------------------
# geometry helpers
# --------------------------------------------------------------------------
def proj(H, pts):
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    ph = np.c_[pts, np.ones(len(pts))] @ H.T
    return ph[:, :2] / ph[:, 2:3]


def bb_corners(b):
    return [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]


def vis_frac(H, b, W, Hh, nx=7, ny=3):
    xs = np.linspace(b[0], b[2], nx)
    ys = np.linspace(b[1], b[3], ny)
    pts = np.array([(x, y) for x in xs for y in ys])
    p = proj(H, pts)
    ins = (p[:, 0] >= 0) & (p[:, 0] < W) & (p[:, 1] >= 0) & (p[:, 1] < Hh)
    return float(ins.mean())


def tilt_k(phi_deg, half_fov=0.42):
    phi = math.radians(abs(phi_deg))
    r = math.cos(phi - half_fov) / math.cos(phi + half_fov)
    k = (r - 1) / (r + 1)
    return k if phi_deg >= 0 else -k


def make_H(c, w, aspect, theta, kx, ky, W, Hh):
    hw, hh = w / 2, w * aspect / 2
    offs = np.array([(-hw * (1 + ky), -hh * (1 + kx)), (hw * (1 + ky), -hh * (1 - kx)),
                     (hw * (1 - ky), hh * (1 - kx)), (-hw * (1 - ky), hh * (1 + kx))])
    ct, st = math.cos(theta), math.sin(theta)
    R = np.array([[ct, -st], [st, ct]])
    quad = offs @ R.T + np.asarray(c)
    src = np.float32([(0, 0), (W, 0), (W, Hh), (0, Hh)])
    Hinv = cv2.getPerspectiveTransform(src, quad.astype(np.float32)).astype(np.float64)
    p0 = proj(Hinv, [(W / 2, Hh / 2)])[0]
    quad = quad + (np.asarray(c) - p0)
    Hinv = cv2.getPerspectiveTransform(src, quad.astype(np.float32)).astype(np.float64)
    return np.linalg.inv(Hinv), quad


# --------------------------------------------------------------------------
# plan
# --------------------------------------------------------------------------
CASE_FRAC = {
    "inkjet": 0.16, "gen2": 0.33, "gen3": 0.2, "gray_bg": 0.42, "speckle": 0.6,
    "streak": 0.27, "faded": 0.27, "bold": 0.22, "copier_blur": 0.35, "ghost": 0.3,
    "title": 0.38, "nameline": 0.2, "heading": 0.45, "scorebox": 0.3, "mc": 0.42,
    "blanks": 0.3, "staple": 0.2, "hole": 0.16, "crease": 0.27, "curl": 0.32,
    "strong_persp": 0.35, "lamp": 0.3, "hand_shadow": 0.15, "motion": 0.2,
    "landscape": 0.5, "cols1": 0.2, "cols3": 0.35, "colrule": 0.6,
}


def is_zh_q(q):
    return has_cjk(q["question"])


def make_plan(bank_list, count, seed):
    rng = np.random.default_rng(seed)
    nb = len(bank_list)
    en = [i for i, q in enumerate(bank_list) if not is_zh_q(q)]
    zh = [i for i, q in enumerate(bank_list) if is_zh_q(q)]
    n_en = int(round(count * len(en) / nb))
    n_zh = count - n_en

    def pick(pool, n):
        out = []
        while len(out) < n:
            k = min(n - len(out), len(pool))
            out += list(rng.choice(pool, size=k, replace=False))
        return out
    targets = pick(en, n_en) + pick(zh, n_zh)
    targets = [int(t) for t in rng.permutation(targets)]
    flags = [set() for _ in range(count)]

    def assign(name, frac, among=None):
        pool = list(range(count)) if among is None else list(among)
        k = int(round(frac * count))
        k = min(k, len(pool))
        for j in rng.choice(pool, size=k, replace=False):
            flags[int(j)].add(name)
    assign("inkjet", CASE_FRAC["inkjet"])
    copier = [i for i in range(count) if "inkjet" not in flags[i]]
    assign("gen3", CASE_FRAC["gen3"], copier)
    assign("gen2", CASE_FRAC["gen2"], [i for i in copier if "gen3" not in flags[i]])
    for name in ["gray_bg", "streak", "faded", "bold", "copier_blur", "ghost"]:
        assign(name, CASE_FRAC[name], copier)
    for name in ["speckle", "title", "heading", "scorebox", "mc", "blanks", "staple", "hole",
                 "crease", "curl", "strong_persp", "lamp", "hand_shadow", "motion", "landscape"]:
        assign(name, CASE_FRAC[name])
    assign("nameline", CASE_FRAC["nameline"], [i for i in range(count) if "title" in flags[i]]
           if sum("title" in f for f in flags) >= CASE_FRAC["nameline"] * count else None)
    assign("cols1", CASE_FRAC["cols1"])
    assign("cols3", CASE_FRAC["cols3"], [i for i in range(count) if "cols1" not in flags[i]])
    assign("colrule", CASE_FRAC["colrule"])
    plan = []
    for i in range(count):
        f = flags[i]
        if "mc" in f:
            f.discard("blanks")
        if "cols1" in f:
            f.add("landscape")
        plan.append({"i": i, "qidx": targets[i], "flags": sorted(f)})
    return plan


# --------------------------------------------------------------------------
# page spec / content per photo
# --------------------------------------------------------------------------
def build_page_spec(rng, flags, tq, lang):
    P = {}
    if rng.random() < 0.8:
        P["pw"], P["ph"] = 210.0, 297.0
    else:
        P["pw"], P["ph"] = 184.0, 260.0
    ncols = 1 if "cols1" in flags else (3 if "cols3" in flags else 2)
    P["ncols"] = ncols
    ml = rng.uniform(14, 20) if "hole" not in flags else rng.uniform(22, 27)
    mt = rng.uniform(12, 18) if "staple" not in flags else rng.uniform(16, 19)
    if "staple" in flags:
        ml = max(ml, 16.0)
    P["margins"] = [ml, rng.uniform(12, 18), mt, rng.uniform(13, 18)]
    P["colgap"] = rng.uniform(6, 11)
    P["rule"] = ("colrule" in flags) and ncols > 1
    if ncols == 1:
        P["pt"] = rng.uniform(10.0, 11.0)
    elif ncols == 2:
        P["pt"] = rng.uniform(9.0, 11.0)
    else:
        P["pt"] = rng.uniform(9.0, 10.5)
    P["spacing"] = rng.uniform(1.4, 1.8)
    P["pgap"] = rng.uniform(0.15, 0.7)
    cjk = "serif_cjk" if rng.random() < 0.7 else "sans_cjk"
    if lang == "en":
        lat = str(rng.choice(["lib_serif", "lib_serif", "lib_sans", "dv_serif", "dv_sans"]))
    else:
        lat = str(rng.choice(["lib_serif", "lib_serif", cjk, cjk, "dv_serif", "lib_sans"]))
    P["style"] = (cjk, lat)
    P["heading_bold"] = rng.random() < 0.75
    if lang == "en":
        P["numstyle"] = str(rng.choice(["dot", "dot", "paren", "dot"]))
        P["optlabel"] = str(rng.choice([". ", ") ", ". "]))
    else:
        P["numstyle"] = str(rng.choice(["dot", "fw", "fw", "paren", "fwparen"]))
        P["optlabel"] = str(rng.choice([". ", "．", "、"]))
    return P


def build_header(rng, flags, tq, lang):
    want = "title" in flags or "nameline" in flags or rng.random() < 0.45
    if not want:
        return None
    subj = tq["subject"]
    g = str(tq.get("grade", "7"))
    H = {"title_pt": rng.uniform(13, 16.5)}
    if lang == "zh":
        y = int(rng.integers(2024, 2029))
        term = str(rng.choice(["一", "二"]))
        kind = str(rng.choice(["期中考试", "期末考试", "月考", "期中质量检测"]))
        gz, sz = GRADE_ZH.get(g, "七年级"), SUBJ_ZH.get(subj, "数学")
        opts = [[f"{y}—{y + 1}学年第{term}学期{kind} {gz}{sz}"],
                [f"{y}—{y + 1}学年第{term}学期{kind}", f"{gz}{sz}试卷"],
                [f"{gz}{sz}单元测试卷（第{CN_NUM[int(rng.integers(0, 8))]}单元）"],
                [f"{sz}周测（{int(rng.integers(1, 20))}）  {gz}"]]
        H["title"] = opts[int(rng.integers(0, len(opts)))]
        if rng.random() < 0.6:
            H["subtitle"] = str(rng.choice(["（满分100分，考试时间90分钟）", "（时间：60分钟  满分：100分）",
                                            "（本试卷共4页，满分120分）"]))
        if "nameline" in flags or rng.random() < 0.5:
            H["nameline"] = str(rng.choice(["姓名________  班级________  学号________",
                                            "班级______ 姓名______ 考号______ 得分______",
                                            "学校__________ 班级________ 姓名________"]))
        if rng.random() < 0.35:
            H["scoretable"] = ["题号", "一", "二", "三", "四", "总分"]
    else:
        n = int(rng.integers(1, 12))
        se = SUBJ_EN.get(subj, "English")
        opts = [[f"Unit {n} Quiz"], [f"Grade {g} {se} — Mid-term Test"], [f"{se} Quiz {n}"],
                [f"Chapter {n} Review Worksheet"], [f"Weekly Test {n} ({se})"]]
        H["title"] = opts[int(rng.integers(0, len(opts)))]
        if rng.random() < 0.5:
            H["subtitle"] = str(rng.choice(["Time: 40 minutes    Total: 50 marks",
                                            "Answer ALL questions. Time allowed: 30 minutes"]))
        if "nameline" in flags or rng.random() < 0.5:
            H["nameline"] = str(rng.choice(["Name: ______________   Class: ________   Date: __________",
                                            "Name ________________  Class ______  Score ______"]))
    H["rule"] = rng.random() < 0.4
    return H


SEC_ORDER_ZH = [["choice", "fill", "answer"], ["choice", "fill", "judge", "answer"],
                ["fill", "answer"], ["choice", "answer"], ["fill", "judge", "answer"]]
SEC_ORDER_EN = [["choice", "fill", "short"], ["fill", "short"], ["choice", "short"]]


def build_content(rng, flags, tqi, bank, lang, P):
    tq = bank[tqi]
    others = []
    for j, q in enumerate(bank):
        if j == tqi:
            continue
        if difflib.SequenceMatcher(None, q["question"], tq["question"]).ratio() > 0.8:
            continue
        if lang == "en" and is_zh_q(q) and q["subject"] != "english":
            continue
        others.append(j)
    key = [rng.random() - (0.45 if bank[j]["subject"] == tq["subject"] else 0.0)
           - (0.3 if (lang == "en") == (not is_zh_q(bank[j])) else 0.0) for j in others]
    pool = [others[k] for k in np.argsort(key, kind="stable")]
    order = (SEC_ORDER_EN if lang == "en" else SEC_ORDER_ZH)
    order = list(order[int(rng.integers(0, len(order)))])
    extra = ["answer", "fill", "choice", "answer"] if lang == "zh" else ["short", "fill", "choice"]
    while len(order) < 7:
        order.append(extra[int(rng.integers(0, len(extra)))] if rng.random() < 0.6 else order[-1])
    sb_mode = None
    if "scorebox" in flags:
        sb_mode = "zh" if lang == "zh" else "en"
    elif rng.random() < 0.25:
        sb_mode = "zh" if lang == "zh" else "en"
    sections = []
    pi = 0
    for si, kind in enumerate(order):
        if pi >= len(pool):
            break
        n = int(rng.integers(4, 11)) if kind != "answer" and kind != "short" else int(rng.integers(3, 7))
        sec = {"kind": kind,
               "heading": (en_heading if lang == "en" else zh_heading)(kind, si, rng),
               "scorebox": sb_mode, "items": []}
        if sb_mode == "en":
            sec["boxlabel"] = str(rng.choice(["/20", "/10", "/15", "Score:"]))
        if lang == "en" and rng.random() < 0.35:
            sec["instr"] = str(rng.choice(["Read each question carefully.",
                                           "Write your answers on the lines provided.",
                                           "Circle the letter of the best answer."]))
        for _ in range(n):
            if pi >= len(pool):
                break
            qj = pool[pi]
            pi += 1
            it = {"qid": qj}
            zhq = is_zh_q(bank[qj])
            if kind == "choice":
                it["options"] = make_options(rng, bank[qj], lang)
                if rng.random() < 0.75:
                    it["tail"] = [("（　　）", False)] if zhq else [("(    )", True)]
            elif kind == "fill":
                if rng.random() < 0.85:
                    it["tail"] = [("_" * int(rng.integers(6, 11)), bool(rng.random() < 0.5))]
            elif kind == "judge":
                it["tail"] = [("（　　）", False)] if zhq else [("(    )", True)]
            elif kind == "answer":
                it["space"] = float(rng.uniform(6, 30)) if rng.random() < 0.7 else 0.0
                if zhq and rng.random() < 0.3:
                    it["pre"] = f"（{int(rng.choice([4, 6, 8, 10]))}分）"
            elif kind == "short":
                it["ruled"] = int(rng.integers(1, 4)) if rng.random() < 0.7 else 0
            sec["items"].append(it)
        sections.append(sec)
    return sections


def choose_target_slot_dry(rng, flags, P, sections, bank, want_col):
    """Lay the page out without the target and pick the slot (section, index) of a
    problem in the wanted column that also satisfies the layout wishes; the target is
    inserted before that problem."""
    els, _, _ = layout_page(P, sections, bank, rng)
    probs = [e for e in els if e["kind"] == "problem"]
    if not probs:
        return choose_target_slot(rng, flags, sections)
    cols_used = sorted(set(e["col"] for e in probs))
    col = want_col if want_col in cols_used else cols_used[-1]
    cand = [e for e in probs if e["col"] == col]
    colmin = {c: min(e["bbox"][1] for e in probs if e["col"] == c) for c in cols_used}

    def restrict(cs, pred):
        r = [e for e in cs if pred(e)]
        return r if r else cs
    if "mc" in flags:
        cand = restrict(cand, lambda e: e["skind"] == "choice")
    elif "blanks" in flags:
        cand = restrict(cand, lambda e: e["skind"] in ("fill", "judge"))
    if any(f in flags for f in ("title", "nameline", "staple")):
        cand = restrict(cand, lambda e: e["bbox"][1] - colmin[e["col"]] < 30 * PXMM)
    if "heading" in flags:
        cand = restrict(cand, lambda e: e["j"] <= 1)
    # keep at least one neighbour after the target in the column when possible
    last = max(cand, key=lambda e: e["bbox"][1])
    if len(cand) > 1 and rng.random() < 0.7:
        cand = [e for e in cand if e is not last]
    e = cand[int(rng.integers(0, len(cand)))]
    return e["section"], e["j"]


def choose_target_slot(rng, flags, sections):
    kinds = [s["kind"] for s in sections]
    if "mc" in flags and "choice" in kinds:
        cand = [i for i, k in enumerate(kinds) if k == "choice"]
    elif "blanks" in flags and ("fill" in kinds or "judge" in kinds):
        cand = [i for i, k in enumerate(kinds) if k in ("fill", "judge")]
    elif ("title" in flags or "nameline" in flags or "staple" in flags):
        cand = [0]
    else:
        cand = list(range(min(len(sections), 3)))
    si = int(rng.choice(cand))
    n = len(sections[si]["items"])
    if ("title" in flags or "nameline" in flags or "staple" in flags) and si == 0:
        j = int(rng.integers(0, min(2, n + 1)))
    elif "heading" in flags:
        j = int(rng.integers(0, min(2, n + 1)))
    else:
        j = int(rng.integers(0, n + 1))
    return si, j


# --------------------------------------------------------------------------
# photo synthesis
# --------------------------------------------------------------------------
def lowfreq(rng, h, w, cell):
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    g = rng.random((gh, gw)).astype(np.float32)
    f = cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
    f -= f.min()
    f /= (f.max() + 1e-6)
    return f


def find_frame(rng, flags, els, tgt, P, W, Hh, em, curlA):
    tb = tgt["bbox"]
    tw_, th_ = tb[2] - tb[0], tb[3] - tb[1]
    pwpx, phpx = P["pw"] * PXMM, P["ph"] * PXMM
    aspect = Hh / W
    others = [e for e in els if e["kind"] == "problem" and not e["target"]]
    feats = {}
    for e in els:
        feats.setdefault(e["kind"], []).append(e)
    best = None
    strong = "strong_persp" in flags
    close_pow = float(rng.choice([1.0, 1.6, 2.5]))
    for attempt in range(90):
        phi = rng.uniform(8, 15) if strong else rng.uniform(0, 7)
        psi = rng.uniform(0, 2 * math.pi)
        kx, ky = tilt_k(phi * math.cos(psi)), tilt_k(phi * math.sin(psi))
        theta = math.radians(rng.uniform(-8, 8) if rng.random() < 0.8 else rng.uniform(-2, 2))
        kmax = 1 + abs(kx) + abs(ky)
        w_min = max(tw_ * 1.16 * kmax, th_ * 1.5 * kmax / aspect, em * W / MAX_EM, 40 * PXMM)
        w_max = min(em * W / MIN_EM, pwpx * 1.25)
        if w_min > w_max:
            w_max = w_min * 1.02
        # bias toward smaller frames early, wider when features are requested
        u = rng.random() ** close_pow
        if attempt > 30 and any(f in flags for f in ("staple", "hole", "title", "nameline")):
            u = 0.5 + 0.5 * u
        w = w_min + (w_max - w_min) * u
        jx = rng.uniform(-0.22, 0.22) * tw_
        jy = rng.uniform(-0.2, 0.2) * th_ if tgt["nlines"] > 1 else rng.uniform(-0.1, 0.1) * th_
        c = ((tb[0] + tb[2]) / 2 + jx, (tb[1] + tb[3]) / 2 + jy)
        H, quad = make_H(c, w, aspect, theta, kx, ky, W, Hh)
        # target fully visible with margin
        m = max(28.0, 0.8 * em * W / w) + curlA
        tp = proj(H, bb_corners(tb))
        if tp[:, 0].min() < m or tp[:, 1].min() < m or tp[:, 0].max() > W - m or tp[:, 1].max() > Hh - m:
            continue
        # legibility: projected em at the target corners
        ems = []
        for (x, y) in bb_corners(tb):
            a = proj(H, [(x, y), (x, y + em), (x + em, y)])
            ems.append(min(np.linalg.norm(a[1] - a[0]), np.linalg.norm(a[2] - a[0])))
        emc = float(np.mean(ems))
        if min(ems) < MIN_EM_EDGE or emc < MIN_EM - 1:
            continue
        # nearest to centre
        ctr = (W / 2.0, Hh / 2.0)
        tpoly = tp.astype(np.float32).reshape(-1, 1, 2)
        if cv2.pointPolygonTest(tpoly, ctr, True) < 0:
            continue
        tcen = proj(H, [((tb[0] + tb[2]) / 2, (tb[1] + tb[3]) / 2)])[0]
        dt = math.hypot(tcen[0] - ctr[0], tcen[1] - ctr[1])
        ok = True
        for e in others:
            b = e["full"]
            pp = proj(H, bb_corners(b)).astype(np.float32).reshape(-1, 1, 2)
            d = cv2.pointPolygonTest(pp, ctr, True)
            if d > -0.5 * emc:
                ok = False
                break
            ec = proj(H, [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)])[0]
            if math.hypot(ec[0] - ctr[0], ec[1] - ctr[1]) <= dt + 0.3 * emc:
                ok = False
                break
        if not ok:
            continue
        # visible features
        vis = {}
        for k in ("title", "nameline", "scoretable", "heading", "scorebox", "colrule", "footer"):
            vis[k] = any(vis_frac(H, e["bbox"], W, Hh) >= (0.6 if k != "colrule" else 0.3)
                         for e in feats.get(k, []))
        vis["options"] = any("opts_bb" in e and vis_frac(H, e["opts_bb"], W, Hh) >= 0.5 for e in others)
        vis["blanks"] = any(e["has_tail"] and vis_frac(H, e["bbox"], W, Hh) >= 0.5 for e in others)
        nvis = [vis_frac(H, e["full"], W, Hh, 5, 2) for e in others]
        vis["neighbours"] = sum(1 for v in nvis if v > 0)
        vis["cut_neighbour"] = any(0 < v < 1 for v in nvis)
        # physical page features
        staple_pt = (P["staple"][0], P["staple"][1]) if P.get("staple") else None
        if staple_pt:
            sp = proj(H, [staple_pt])[0]
            vis["staple"] = bool(15 < sp[0] < W - 15 and 15 < sp[1] < Hh - 15)
        else:
            vis["staple"] = False
        if P.get("holes"):
            vis["hole"] = False
            for (hx, hy, r) in P["holes"]:
                hp = proj(H, [(hx, hy)])[0]
                if 10 < hp[0] < W - 10 and 10 < hp[1] < Hh - 10:
                    vis["hole"] = True
        else:
            vis["hole"] = False
        # is any page edge visible?
        corners_img = np.array([(0, 0), (W, 0), (W, Hh), (0, Hh)], np.float64)
        Hinv = np.linalg.inv(H)
        ci = proj(Hinv, corners_img)
        vis["page_edge"] = bool((ci[:, 0] < 0).any() or (ci[:, 1] < 0).any() or
                                (ci[:, 0] > pwpx).any() or (ci[:, 1] > phpx).any())
        score = 0.0
        for f, k in (("title", "title"), ("nameline", "nameline"), ("heading", "heading"),
                     ("scorebox", "scorebox"), ("mc", "options"), ("blanks", "blanks"),
                     ("staple", "staple"), ("hole", "hole")):
            if f in flags and vis.get(k):
                score += 1
        if "colrule" in flags and vis.get("colrule"):
            score += 0.5
        score += 0.1 * min(vis["neighbours"], 4)
        cand = (score, H, quad, dict(vis), emc, phi, math.degrees(theta), w)
        if best is None or score > best[0] + 1e-9:
            best = cand
        nreq = sum(1 for f in ("title", "nameline", "heading", "scorebox", "mc", "blanks", "staple", "hole")
                   if f in flags)
        if score >= nreq + 0.5 * ("colrule" in flags) + 0.4 and attempt >= 4:
            break
    return best


def draw_staple(rgb, alpha, x, y, ang, L, rng):
    h, w = rgb.shape[:2]
    dx, dy = math.cos(ang) * L / 2, math.sin(ang) * L / 2
    p0 = (int(x - dx), int(y - dy))
    p1 = (int(x + dx), int(y + dy))
    th = max(3, int(0.75 * PXMM))
    sh = np.zeros((h, w), np.float32)
    cv2.line(sh, (p0[0] + 6, p0[1] + 8), (p1[0] + 6, p1[1] + 8), 1.0, th + 4, cv2.LINE_AA)
    sh = cv2.GaussianBlur(sh, (0, 0), 4)
    rgb *= (1 - 0.45 * sh)[..., None]
    cv2.line(rgb, p0, p1, (95, 95, 100), th + 2, cv2.LINE_AA)
    cv2.line(rgb, p0, p1, (185, 188, 195), th, cv2.LINE_AA)
    nx, ny = -math.sin(ang), math.cos(ang)
    q0 = (int(p0[0] + nx * th * 0.25), int(p0[1] + ny * th * 0.25))
    q1 = (int(p1[0] + nx * th * 0.25), int(p1[1] + ny * th * 0.25))
    cv2.line(rgb, q0, q1, (235, 238, 242), max(1, th // 3), cv2.LINE_AA)
    for p in (p0, p1):
        cv2.circle(rgb, p, th // 2 + 1, (80, 80, 85), -1, cv2.LINE_AA)


def synth_photo(job):
    init_fonts()
    i, seed, plan_item, bank, outdir = job["i"], job["seed"], job["plan"], job["bank"], job["out"]
    rng = np.random.default_rng([seed, i])
    flags = set(plan_item["flags"])
    tqi = plan_item["qidx"]
    tq = bank[tqi]
    lang = "zh" if is_zh_q(tq) else ("en" if rng.random() < 0.8 else "zh")
    landscape = "landscape" in flags
    W, Hh = (1280, 960) if landscape else (960, 1280)

    # ---------- layout with target ----------
    P = build_page_spec(rng, flags, tq, lang)
    P["header"] = build_header(rng, flags, tq, lang)
    if rng.random() < 0.6:
        if lang == "zh":
            P["footer"] = f"{SUBJ_ZH.get(tq['subject'], '数学')}试卷 第{int(rng.integers(1, 3))}页（共4页）"
        else:
            P["footer"] = f"Page {int(rng.integers(1, 3))} of {int(rng.integers(2, 5))}"
    curlA = float(rng.uniform(4, 13)) if "curl" in flags else 0.0
    best = None
    els = draws = tgt = None
    for attempt in range(40):
        sections = build_content(rng, flags, tqi, bank, lang, P)
        if not sections:
            sections = [{"kind": "answer", "heading": "一、解答题", "items": []}]
        if "staple" in flags or "hole" in flags:
            want_col = 0
        else:
            want_col = int(rng.integers(0, P["ncols"]))
        si, j = choose_target_slot_dry(rng, flags, P, sections, bank, want_col)
        sections[si]["items"].insert(j, {"qid": tqi, "target": True})
        els, draws, tgt = layout_page(P, sections, bank, rng)
        if tgt is None:
            continue
        if tgt["col"] != min(want_col, P["ncols"] - 1) and attempt < 20:
            continue
        em = P["pt"] * PT * PXMM
        # physical page features depend on the target location
        P["staple"] = None
        P["holes"] = None
        if "staple" in flags:
            P["staple"] = (rng.uniform(6, 9) * PXMM, rng.uniform(6, 9) * PXMM,
                           math.radians(rng.uniform(-60, -30)) if rng.random() < 0.75 else math.radians(rng.uniform(-5, 5)))
        if "hole" in flags:
            ty = (tgt["bbox"][1] + tgt["bbox"][3]) / 2
            hy = ty + rng.uniform(-35, 35) * PXMM
            hy = min(max(hy, 25 * PXMM), P["ph"] * PXMM - 25 * PXMM)
            holes = [(P["margins"][0] * 0.45 * PXMM, hy, rng.uniform(2.7, 3.2) * PXMM)]
            if rng.random() < 0.5:
                hy2 = hy + (80 * PXMM if hy < P["ph"] * PXMM / 2 else -80 * PXMM)
                holes.append((holes[0][0], hy2, holes[0][2]))
            P["holes"] = holes
        fr = find_frame(rng, flags, els, tgt, P, W, Hh, em, curlA)
        if fr is None:
            continue
        best = fr
        if attempt >= 3 or fr[0] >= 1 or not any(f in flags for f in ("title", "staple", "hole", "heading", "mc", "blanks", "nameline")):
            break
    if best is None:
        raise RuntimeError(f"photo {i}: no valid frame")
    score, H, quad, vis, emc, phi, rot, wframe = best

    pwpx, phpx = int(round(P["pw"] * PXMM)), int(round(P["ph"] * PXMM))
    ink_full = render_draws(draws, pwpx, phpx)
    # crop region covering the frame
    x0 = int(max(0, math.floor(quad[:, 0].min()) - 40))
    y0 = int(max(0, math.floor(quad[:, 1].min()) - 40))
    x1 = int(min(pwpx, math.ceil(quad[:, 0].max()) + 40))
    y1 = int(min(phpx, math.ceil(quad[:, 1].max()) + 40))
    ink = ink_full[y0:y1, x0:x1].astype(np.float32) / 255.0
    ch, cw = ink.shape
    meta_cases = []

    # ---------- print / copy process ----------
    inkjet = "inkjet" in flags
    gen = 3 if "gen3" in flags else (2 if "gen2" in flags else 1)
    if inkjet:
        gen = 0
    if inkjet:
        ink = cv2.GaussianBlur(ink, (0, 0), rng.uniform(0.5, 0.9))
        # missing-nozzle banding: thin light rows at a regular pitch plus broad
        # weaker density bands (head passes)
        period = rng.uniform(1.4, 3.5) * PXMM
        bandw = rng.uniform(0.15, 0.35) * PXMM
        amp = rng.uniform(0.4, 0.7)
        yy = np.arange(ch, dtype=np.float32) + y0
        phase = yy % period
        band = np.where(phase < bandw, amp, 0.0).astype(np.float32)
        band += (rng.random(ch).astype(np.float32) - 0.5) * 0.1
        pass_p = rng.uniform(6, 14) * PXMM
        band += rng.uniform(0.05, 0.18) * (0.5 + 0.5 * np.sin(2 * np.pi * yy / pass_p + rng.uniform(0, 6.3))).astype(np.float32)
        if rng.random() < 0.6:  # one clogged-head band
            yb = rng.uniform(0, ch)
            band += 0.35 * np.exp(-((yy - y0 - yb) / (rng.uniform(1.0, 3.0) * PXMM)) ** 2).astype(np.float32)
        band = np.clip(band, 0, 0.8)
        ink *= (1 - band)[:, None]
        ink *= rng.uniform(0.85, 0.97)
        meta_cases.append("inkjet_banding")
    else:
        if "copier_blur" in flags:
            ink = cv2.GaussianBlur(ink, (0, 0), rng.uniform(0.9, 1.6))
            meta_cases.append("copier_blur")
        for g in range(2, gen + 1):
            ink = cv2.GaussianBlur(ink, (0, 0), rng.uniform(0.6, 0.9))
            ink = np.clip((ink - 0.08) * 1.45, 0, 1)
        if "bold" in flags:
            k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
            ib = cv2.dilate(ink, k, iterations=int(rng.integers(1, 3)))
            ib = cv2.GaussianBlur(ib, (0, 0), rng.uniform(0.8, 1.3))
            ib = np.clip(ib * 1.5, 0, 1)
            if rng.random() < 0.4:
                m = np.ones_like(ink)
            else:
                m = np.clip((lowfreq(rng, ch, cw, 40 * PXMM) - 0.4) / 0.2, 0, 1)
            ink = ink * (1 - m) + np.maximum(ink, ib) * m
            meta_cases.append("bold_smudge")
        if "faded" in flags:
            m = np.clip((lowfreq(rng, ch, cw, 35 * PXMM) - 0.45) / 0.25, 0, 1)
            amt = rng.uniform(0.35, 0.55)
            ink *= (1 - amt * m)
            meta_cases.append("faded_patches")
    ink_dark = rng.uniform(0.9, 0.97)
    ink *= ink_dark
    light = np.ones((ch, cw), np.float32)  # product of (1 - darkness) layers
    if not inkjet:
        if "gray_bg" in flags or gen >= 2:
            base = rng.uniform(0.08, 0.22) if "gray_bg" in flags else rng.uniform(0.02, 0.07)
            f = lowfreq(rng, ch, cw, rng.uniform(15, 50) * PXMM)
            f2 = lowfreq(rng, ch, cw, rng.uniform(3, 8) * PXMM)
            bg = base * (0.45 + 0.8 * f) * (0.8 + 0.4 * f2)
            light *= (1 - np.clip(bg, 0, 0.4))
            if "gray_bg" in flags:
                meta_cases.append("gray_blotchy_bg")
        if "streak" in flags:
            vertical = rng.random() < 0.6
            L = cw if vertical else ch
            pos = rng.uniform(0.1, 0.9) * L
            width = rng.uniform(0.2, 2.2) * PXMM
            amp = rng.uniform(0.3, 0.55) if width > 1.0 * PXMM else rng.uniform(0.45, 0.72)
            ax = np.arange(L, dtype=np.float32)
            prof = amp * np.exp(-((ax - pos) / width) ** 2)
            if vertical:
                mod = 0.7 + 0.6 * cv2.resize(rng.random((8, 1)).astype(np.float32), (1, ch), interpolation=cv2.INTER_CUBIC)
                s = np.clip(prof[None, :] * mod, 0, 0.85)
            else:
                mod = 0.7 + 0.6 * cv2.resize(rng.random((1, 8)).astype(np.float32), (cw, 1), interpolation=cv2.INTER_CUBIC)
                s = np.clip(prof[:, None] * mod, 0, 0.85)
            light *= (1 - s)
            meta_cases.append("streak_" + ("vertical" if vertical else "horizontal"))
        if gen >= 2 and rng.random() < 0.35:
            # copier edge shadow along the page border
            e = np.zeros((phpx, pwpx), np.float32)
            bw = int(rng.uniform(2, 6) * PXMM)
            side = int(rng.integers(0, 4))
            if side == 0:
                e[:, :bw] = 1
            elif side == 1:
                e[:, -bw:] = 1
            elif side == 2:
                e[:bw, :] = 1
            else:
                e[-bw:, :] = 1
            e = cv2.GaussianBlur(e[y0:y1, x0:x1], (0, 0), 1.5 * PXMM)
            light *= (1 - 0.6 * e)
    if "ghost" in flags and not inkjet:
        # reverse page showing through, mirrored
        g_rng = np.random.default_rng(int(rng.integers(0, 2**62)))
        gP = dict(P)
        gP["ncols"] = int(g_rng.integers(1, 4))
        gP["rule"] = False
        gP["header"] = None
        gP["footer"] = None
        gP["pt"] = g_rng.uniform(9.5, 12)
        gsecs = build_content(g_rng, set(), int(g_rng.integers(0, len(bank))), bank, lang, gP)
        gels, gdraws, _ = layout_page(gP, gsecs, bank, g_rng)
        gink = render_draws(gdraws, pwpx, phpx)[:, ::-1]
        gink = gink[y0:y1, x0:x1].astype(np.float32) / 255.0
        gink = cv2.GaussianBlur(gink, (0, 0), rng.uniform(1.5, 3.0))
        light *= (1 - rng.uniform(0.07, 0.15) * gink)
        meta_cases.append("ghost_reverse")
    if "speckle" in flags:
        sp = np.zeros((ch, cw), np.float32)
        area_cm2 = ch * cw / (PXMM * 10) ** 2
        n = int(area_cm2 * rng.uniform(0.4, 4.5) * (1 + 0.4 * max(gen - 1, 0)))
        xs = rng.integers(0, cw, n)
        ys = rng.integers(0, ch, n)
        rs = rng.choice([1, 1, 1, 2, 2, 3], n)
        vs = rng.uniform(0.35, 0.95, n)
        for x, y, r, v in zip(xs, ys, rs, vs):
            cv2.circle(sp, (int(x), int(y)), int(r), float(v), -1)
        nd = int(area_cm2 * rng.uniform(0.05, 0.25))
        for _ in range(nd):
            x, y = int(rng.integers(0, cw)), int(rng.integers(0, ch))
            cv2.ellipse(sp, (x, y), (int(rng.integers(3, 9)), int(rng.integers(2, 7))),
                        float(rng.uniform(0, 180)), 0, 360, float(rng.uniform(0.4, 0.9)), -1)
        sp = cv2.GaussianBlur(sp, (0, 0), 0.8)
        light *= (1 - np.clip(sp, 0, 1))
        meta_cases.append("speckle_dust")
    light *= (1 - ink)
    D = 1 - light  # total darkness

    # ---------- colour ----------
    paper = np.array([rng.uniform(238, 252), rng.uniform(238, 252), rng.uniform(234, 250)], np.float32)
    if inkjet:
        inkc = np.array(rng.choice([[30, 28, 38], [38, 34, 30], [25, 25, 25]]), np.float32)
    else:
        tv = rng.uniform(15, 40)
        inkc = np.array([tv, tv, tv + rng.uniform(-3, 5)], np.float32)
    rgb = paper[None, None, :] * (1 - D[..., None]) + inkc[None, None, :] * D[..., None]
    alpha = np.ones((ch, cw), np.float32)
    yy, xx = np.mgrid[0:ch, 0:cw].astype(np.float32)
    xx += x0
    yy += y0
    if "crease" in flags:
        # fold line through a point inside the framed area
        cx = rng.uniform(quad[:, 0].min(), quad[:, 0].max())
        cy = rng.uniform(quad[:, 1].min(), quad[:, 1].max())
        horiz = rng.random() < 0.6
        a = math.radians(rng.uniform(-12, 12)) + (0 if horiz else math.pi / 2)
        nx, ny = -math.sin(a), math.cos(a)
        d = (xx - cx) * nx + (yy - cy) * ny
        sh = 1 - rng.uniform(0.08, 0.2) * np.exp(-(d / (0.35 * PXMM)) ** 2)
        side = np.where(d > 0, 1 - rng.uniform(0.03, 0.1) * np.exp(-d / (rng.uniform(8, 25) * PXMM)), 1.0)
        hl = 1 + 0.06 * np.exp(-((d + 0.8 * PXMM) / (0.4 * PXMM)) ** 2)
        rgb *= (sh * side * hl)[..., None]
        meta_cases.append("crease")
    if P.get("staple"):
        sx, sy, sa = P["staple"]
        if x0 - 200 < sx < x1 + 200 and y0 - 200 < sy < y1 + 200:
            draw_staple(rgb, alpha, sx - x0, sy - y0, sa, rng.uniform(9.5, 12) * PXMM, rng)
    if P.get("holes"):
        for (hx, hy, r) in P["holes"]:
            cxh, cyh = hx - x0, hy - y0
            ring = np.zeros((ch, cw), np.float32)
            cv2.circle(ring, (int(cxh), int(cyh)), int(r + 0.6 * PXMM), 1.0, -1, cv2.LINE_AA)
            ring = cv2.GaussianBlur(ring, (0, 0), 3)
            rgb *= (1 - 0.12 * ring)[..., None]
            hm = np.zeros((ch, cw), np.float32)
            cv2.circle(hm, (int(cxh), int(cyh)), int(r), 1.0, -1, cv2.LINE_AA)
            alpha *= (1 - hm)
    rgb = np.clip(rgb, 0, 255).astype(np.uint8)

    # ---------- camera ----------
    T = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
    Hc = H @ T
    J = proj(Hc, [(cw / 2, ch / 2), (cw / 2 + 10, ch / 2), (cw / 2, ch / 2 + 10)])
    u1, u2 = J[1] - J[0], J[2] - J[0]
    s_est = math.sqrt(abs(u1[0] * u2[1] - u1[1] * u2[0])) / 10
    if s_est < 0.85:
        f = min(1.0, s_est * 1.15)
        nw, nh = max(8, int(cw * f)), max(8, int(ch * f))
        rgb = cv2.resize(rgb, (nw, nh), interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, (nw, nh), interpolation=cv2.INTER_AREA)
        S = np.array([[cw / nw, 0, 0], [0, ch / nh, 0], [0, 0, 1]], np.float64)
        Hc = Hc @ S
    page_img = cv2.warpPerspective(rgb, Hc, (W, Hh), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    a_img = cv2.warpPerspective(alpha, Hc, (W, Hh), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    a_img = cv2.GaussianBlur(a_img, (0, 0), 0.7)

    # desk
    desk_kind = int(rng.integers(0, 4))
    if desk_kind == 0:   # wood
        base = np.array([rng.uniform(110, 170), rng.uniform(75, 115), rng.uniform(45, 75)], np.float32)
        grain = cv2.resize(rng.random((Hh // 3, 6)).astype(np.float32), (W, Hh), interpolation=cv2.INTER_CUBIC)
        if rng.random() < 0.5:
            grain = cv2.resize(rng.random((6, W // 3)).astype(np.float32), (W, Hh), interpolation=cv2.INTER_CUBIC)
        desk = base[None, None, :] * (0.75 + 0.45 * grain[..., None])
    elif desk_kind == 1:  # light laminate
        v = rng.uniform(170, 215)
        desk = np.full((Hh, W, 3), v, np.float32) * np.array([1.0, 0.98, 0.94], np.float32)
        desk *= (0.9 + 0.2 * lowfreq(rng, Hh, W, 200))[..., None]
    elif desk_kind == 2:  # dark desk
        v = rng.uniform(35, 70)
        desk = np.full((Hh, W, 3), v, np.float32) * np.array([1.0, 1.0, 1.08], np.float32)
        desk *= (0.85 + 0.3 * lowfreq(rng, Hh, W, 150))[..., None]
    else:  # grey-green desk mat
        desk = np.array([rng.uniform(60, 100), rng.uniform(95, 130), rng.uniform(80, 110)], np.float32)[None, None, :] \
            * (0.9 + 0.2 * lowfreq(rng, Hh, W, 120))[..., None]
    desk += rng.normal(0, 3, (Hh, W, 1)).astype(np.float32)
    shadow = cv2.GaussianBlur(a_img, (0, 0), 12)
    shadow = np.roll(shadow, (int(rng.integers(3, 10)), int(rng.integers(3, 10))), axis=(0, 1))
    desk *= (1 - 0.4 * shadow)[..., None]
    img = desk * (1 - a_img[..., None]) + page_img.astype(np.float32) * a_img[..., None]

    # curl (slight bending of the paper)
    if curlA > 0:
        gy, gx = np.mgrid[0:Hh, 0:W].astype(np.float32)
        if rng.random() < 0.5:
            u = (gx / W - rng.uniform(0.3, 0.7)) * 2
            mapy = gy + curlA * u ** 2 * np.sign(rng.random() - 0.5)
            mapx = gx + 0.3 * curlA * u * (gy / Hh - 0.5)
            shade = 1 - rng.uniform(0.05, 0.15) * np.clip(np.abs(u) - 0.4, 0, 1)
        else:
            u = (gy / Hh - rng.uniform(0.3, 0.7)) * 2
            mapx = gx + curlA * u ** 2 * np.sign(rng.random() - 0.5)
            mapy = gy + 0.3 * curlA * u * (gx / W - 0.5)
            shade = 1 - rng.uniform(0.05, 0.15) * np.clip(np.abs(u) - 0.4, 0, 1)
        img = cv2.remap(img, mapx.astype(np.float32), mapy.astype(np.float32), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REFLECT)
        img *= shade[..., None]
        meta_cases.append("curl")

    # lighting
    gy, gx = np.mgrid[0:Hh, 0:W].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    ramp = ((gx / W - 0.5) * math.cos(ang) + (gy / Hh - 0.5) * math.sin(ang))
    strength = rng.uniform(0.08, 0.35)
    illum = 1 + strength * ramp * 2
    r2 = ((gx / W - 0.5) ** 2 + (gy / Hh - 0.5) ** 2) / 0.5
    illum *= 1 - rng.uniform(0.05, 0.25) * r2
    gain = rng.uniform(0.8, 1.05)
    img *= (illum * gain)[..., None]
    if "hand_shadow" in flags:
        hx, hy = rng.choice([0, W]), rng.uniform(0, Hh)
        if rng.random() < 0.5:
            hx, hy = rng.uniform(0, W), rng.choice([0, Hh])
        hs = np.exp(-(((gx - hx) / (rng.uniform(0.25, 0.45) * W)) ** 2 + ((gy - hy) / (rng.uniform(0.25, 0.5) * Hh)) ** 2))
        img *= (1 - rng.uniform(0.2, 0.4) * hs)[..., None]
        meta_cases.append("hand_shadow")
    if "lamp" in flags:
        lx, ly = rng.uniform(0.15, 0.85) * W, rng.uniform(0.15, 0.85) * Hh
        sr = rng.uniform(0.12, 0.3) * W
        gblob = np.exp(-(((gx - lx) ** 2 + (gy - ly) ** 2) / (2 * sr ** 2)))
        hot = rng.uniform(0.25, 0.55)
        img = img * (1 + hot * gblob)[..., None] + (hot * 30 * gblob)[..., None]
        img *= np.array([1.04, 1.0, 0.9], np.float32)
        meta_cases.append("lamp_hotspot")
    wb = rng.choice(["neutral", "warm", "cool"], p=[0.45, 0.4, 0.15])
    if wb == "warm":
        img *= np.array([1.05, 1.0, rng.uniform(0.82, 0.92)], np.float32)
    elif wb == "cool":
        img *= np.array([rng.uniform(0.92, 0.97), 1.0, 1.04], np.float32)
    img = np.clip(img, 0, 255)

    # blur
    emc_img = emc
    sig = rng.uniform(0.3, min(1.1, 0.045 * emc_img))
    img = cv2.GaussianBlur(img, (0, 0), sig)
    if "motion" in flags:
        L = int(round(rng.uniform(3, max(3.5, min(9, 0.22 * emc_img)))))
        k = np.zeros((L * 2 + 1, L * 2 + 1), np.float32)
        a = rng.uniform(0, math.pi)
        dx, dy = L * math.cos(a) / 2, L * math.sin(a) / 2
        cv2.line(k, (int(round(L - dx)), int(round(L - dy))), (int(round(L + dx)), int(round(L + dy))), 1.0, 1)
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        meta_cases.append("motion_blur")
    # phone sharpening + noise
    if rng.random() < 0.6:
        bl = cv2.GaussianBlur(img, (0, 0), 1.2)
        img = img + rng.uniform(0.2, 0.6) * (img - bl)
    nl = rng.uniform(2.0, 6.0)
    img += rng.normal(0, nl, (Hh, W, 1)).astype(np.float32)
    img += rng.normal(0, nl * 0.4, (Hh, W, 3)).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    q = int(rng.integers(55, 91))
    name = f"pc{i + 1:03d}.jpg"
    Image.fromarray(img).save(os.path.join(outdir, name), "JPEG", quality=q, subsampling=2)

    meta = {
        "qid": f"pc{i + 1:03d}", "id": tq["id"], "subject": tq["subject"], "lang_q": "zh" if is_zh_q(tq) else "en",
        "page_lang": lang, "flags": sorted(flags), "cases": meta_cases, "visible": vis,
        "cols": P["ncols"], "col": tgt["col"], "pt": round(P["pt"], 2), "em_px": round(emc, 1),
        "tilt_deg": round(phi, 1), "rot_deg": round(rot, 1), "gen": gen, "jpeg_q": q,
        "target_lines": tgt["nlines"], "label": tgt["label"], "landscape": landscape,
        "size": [W, Hh],
    }
    return meta


# --------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=421)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--manifest", default=None, help="optional JSONL path for per-photo case metadata")
    a = ap.parse_args()
    try:
        os.nice(10)
    except OSError:
        pass
    t0 = time.time()
    bank = [json.loads(l) for l in open(a.bank, encoding="utf-8") if l.strip()]
    os.makedirs(a.out_dir, exist_ok=True)
    init_fonts()
    plan = make_plan(bank, a.count, a.seed)
    jobs = [{"i": p["i"], "seed": a.seed, "plan": p, "bank": bank, "out": a.out_dir} for p in plan]
    workers = max(1, min(2, a.workers))
    if workers > 1:
        ctx = mp.get_context("fork")
        with ctx.Pool(workers) as pool:
            metas = list(pool.imap(synth_photo, jobs, chunksize=1))
    else:
        metas = [synth_photo(j) for j in jobs]
    with open(os.path.join(a.out_dir, "truth.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["qid", "text"])
        for p in plan:
            w.writerow([f"pc{p['i'] + 1:03d}", bank[p["qidx"]]["question"]])
    with open(os.path.join(a.out_dir, "queries.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["qid", "query", "expected_id", "kind"])
        for p in plan:
            q = bank[p["qidx"]]
            w.writerow([f"pc{p['i'] + 1:03d}", q["question"], q["id"], "exact"])
    if a.manifest:
        with open(a.manifest, "w", encoding="utf-8") as f:
            for m in metas:
                f.write(json.dumps(m, ensure_ascii=False) + "\n")
    print(f"wrote {len(metas)} photos to {a.out_dir} in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
