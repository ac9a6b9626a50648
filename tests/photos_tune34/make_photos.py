#!/usr/bin/env python3
"""Synthetic phone photos of printed workbook pages, photographed at home in
the evening ("workbooks and exercise books at home").

Each photo frames ONE problem (the "framed" problem) from the question bank;
the page around it shows other bank problems as neighbours, printed in the
same style.  See README.md in this folder.

Usage:
  make_photos.py --bank BANK OUTDIR --count N --seed S --jobs J

Output depends only on --seed and --count (not on --jobs).
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
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------
NOTO = "/usr/share/fonts/opentype/noto/"
LIB = "/usr/share/fonts/truetype/liberation/"
DJV = "/usr/share/fonts/truetype/dejavu/"
FONT_FILES = {
    "cjk_sans": (NOTO + "NotoSansCJK-Regular.ttc", 2),
    "cjk_sans_bold": (NOTO + "NotoSansCJK-Bold.ttc", 2),
    "cjk_serif": (NOTO + "NotoSerifCJK-Regular.ttc", 2),
    "cjk_serif_bold": (NOTO + "NotoSerifCJK-Bold.ttc", 2),
    "lib_sans": (LIB + "LiberationSans-Regular.ttf", 0),
    "lib_sans_bold": (LIB + "LiberationSans-Bold.ttf", 0),
    "lib_serif": (LIB + "LiberationSerif-Regular.ttf", 0),
    "lib_serif_bold": (LIB + "LiberationSerif-Bold.ttf", 0),
    "djv_sans": (DJV + "DejaVuSans.ttf", 0),
    "djv_sans_bold": (DJV + "DejaVuSans-Bold.ttf", 0),
    "djv_serif": (DJV + "DejaVuSerif.ttf", 0),
    "djv_obl": (DJV + "DejaVuSans-Oblique.ttf", 0),
    "djv_cond": (DJV + "DejaVuSansCondensed.ttf", 0),
}
# page font families: (cjk font, latin font for latin-only text)
FAMILIES = {
    "sans": ("cjk_sans", "lib_sans"),
    "serif": ("cjk_serif", "lib_serif"),
    "bold": ("cjk_sans_bold", "lib_sans_bold"),
    "serif_bold": ("cjk_serif_bold", "lib_serif_bold"),
    "dejavu": ("cjk_sans", "djv_sans"),
    "dejavu_serif": ("cjk_serif", "djv_serif"),
    "noto_latin": ("cjk_sans", "cjk_sans"),
}

_font_cache = {}
_glyph_cache = {}


def font(name, size):
    key = (name, int(size))
    f = _font_cache.get(key)
    if f is None:
        path, idx = FONT_FILES[name]
        f = ImageFont.truetype(path, int(size), index=idx)
        _font_cache[key] = f
    return f


def has_glyph(name, ch):
    key = (name, ch)
    r = _glyph_cache.get(key)
    if r is None:
        if ch.isspace():
            r = True
        else:
            f = font(name, 40)
            a = f.getmask(ch)
            b = f.getmask("\U000F0000")
            r = a.size != b.size or bytes(a) != bytes(b)
        _glyph_cache[key] = r
    return r


def is_cjk(ch):
    o = ord(ch)
    return 0x4E00 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF


def has_cjk(s):
    return any(is_cjk(c) for c in s)


def runs_for(text, primary):
    """Split text into (string, fontname) runs with per-char glyph fallback."""
    chain = [primary, "djv_sans", "cjk_sans"]
    runs = []
    for ch in text:
        fn = next((c for c in chain if has_glyph(c, ch)), primary)
        if runs and runs[-1][1] == fn:
            runs[-1][0] += ch
        else:
            runs.append([ch, fn])
    return runs


def text_len(text, primary, size):
    return sum(font(fn, size).getlength(s) for s, fn in runs_for(text, primary))


def draw_runs(draw, x, y_base, text, primary, size, fill):
    for s, fn in runs_for(text, primary):
        f = font(fn, size)
        draw.text((x, y_base), s, font=f, fill=fill, anchor="ls")
        x += f.getlength(s)
    return x


TOKEN_RE = re.compile(r"[\x21-\x7e\u00b2\u00b3\u2070-\u209f\u00b0\u221a\u03c0\u00d7\u00f7\u2103\u03a9\u2229\u222a\u03c1]+|\s+|.")
NO_LINE_START = set("，。？！：；、）》”’,.?!:;)")


def wrap(text, primary, size, width):
    toks = TOKEN_RE.findall(text)
    lines, cur, cw = [], [], 0.0
    for t in toks:
        tw = text_len(t, primary, size)
        if cur and cw + tw > width and not t.isspace() and t not in NO_LINE_START:
            lines.append("".join(cur).rstrip())
            cur, cw = [], 0.0
        if not cur and t.isspace():
            continue
        if tw > width and not cur:  # very long token: split by char
            for ch in t:
                chw = text_len(ch, primary, size)
                if cur and cw + chw > width:
                    lines.append("".join(cur))
                    cur, cw = [], 0.0
                cur.append(ch)
                cw += chw
            continue
        cur.append(t)
        cw += tw
    if cur:
        lines.append("".join(cur).rstrip())
    return [l for l in lines if l]


# --------------------------------------------------------------------------
# colours / helpers
# --------------------------------------------------------------------------
PALETTE = [
    (0, 150, 160), (230, 120, 30), (40, 110, 200), (60, 160, 80),
    (140, 70, 170), (220, 60, 90), (20, 130, 110), (200, 150, 20),
]


def tint(c, a):
    return tuple(int(255 - (255 - v) * a) for v in c)


def darker(c, a):
    return tuple(int(v * a) for v in c)


def rounded(draw, box, r, fill=None, outline=None, width=1):
    draw.rounded_rectangle(box, radius=r, fill=fill, outline=outline, width=width)


def icon(draw, kind, cx, cy, r, col):
    if kind == "star":
        pts = []
        for k in range(10):
            rr = r if k % 2 == 0 else r * 0.45
            a = -math.pi / 2 + k * math.pi / 5
            pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
        draw.polygon(pts, fill=col)
    elif kind == "bulb":
        draw.ellipse((cx - r * 0.7, cy - r, cx + r * 0.7, cy + r * 0.4), fill=col)
        draw.rectangle((cx - r * 0.35, cy + r * 0.35, cx + r * 0.35, cy + r * 0.8), fill=col)
        draw.line((cx - r * 0.35, cy + r * 0.6, cx + r * 0.35, cy + r * 0.6), fill=(255, 255, 255), width=max(1, int(r / 8)))
        for a in (-150, -90, -30):
            t = math.radians(a)
            draw.line((cx + r * 0.95 * math.cos(t), cy - 0.3 * r + r * 0.95 * math.sin(t),
                       cx + r * 1.25 * math.cos(t), cy - 0.3 * r + r * 1.25 * math.sin(t)), fill=col, width=max(2, int(r / 7)))
    else:  # pencil
        a = math.radians(-40)
        ux, uy = math.cos(a), math.sin(a)
        vx, vy = -uy, ux
        L, w = r * 1.0, r * 0.32
        body = [(cx - ux * L + vx * w, cy - uy * L + vy * w), (cx + ux * L * 0.5 + vx * w, cy + uy * L * 0.5 + vy * w),
                (cx + ux * L * 0.5 - vx * w, cy + uy * L * 0.5 - vy * w), (cx - ux * L - vx * w, cy - uy * L - vy * w)]
        draw.polygon(body, fill=col)
        tip = [(cx + ux * L * 0.5 + vx * w, cy + uy * L * 0.5 + vy * w), (cx + ux * L * 1.05, cy + uy * L * 1.05),
               (cx + ux * L * 0.5 - vx * w, cy + uy * L * 0.5 - vy * w)]
        draw.polygon(tip, fill=tint(col, 0.45))


def hand_text(img, x, y_base, text, size, col, rng, alpha=0.85):
    """Jittered 'handwriting' drawn per glyph."""
    x = float(x)
    for ch in text:
        if ch == " ":
            x += size * 0.35
            continue
        fn = "cjk_sans" if is_cjk(ch) else "djv_obl"
        if not has_glyph(fn, ch):
            fn = "djv_sans"
        s = int(size * rng.uniform(0.9, 1.1))
        f = font(fn, s)
        w = int(f.getlength(ch)) + 8
        g = Image.new("L", (w + 10, int(s * 1.6)), 0)
        ImageDraw.Draw(g).text((5, int(s * 1.2)), ch, font=f, fill=255, anchor="ls")
        g = g.rotate(rng.uniform(-9, 9), resample=Image.BILINEAR, expand=False)
        gy = y_base - int(s * 1.2) + rng.uniform(-s * 0.06, s * 0.06)
        a = g.point(lambda v: int(v * alpha))
        img.paste(Image.new("RGB", g.size, col), (int(x), int(gy)), a)
        x += f.getlength(ch) * rng.uniform(0.92, 1.05)
    return x


def qr_code(draw, x, y, size, rng):
    n = 25
    m = size / n
    draw.rectangle((x - m, y - m, x + size + m, y + size + m), fill=(255, 255, 255))
    grid = rng.random((n, n)) < 0.5
    for (fx, fy) in ((0, 0), (n - 7, 0), (0, n - 7)):
        grid[fy:fy + 7, fx:fx + 7] = False
        grid[fy, fx:fx + 7] = grid[fy + 6, fx:fx + 7] = True
        grid[fy:fy + 7, fx] = grid[fy:fy + 7, fx + 6] = True
        grid[fy + 2:fy + 5, fx + 2:fx + 5] = True
    for r in range(n):
        for c in range(n):
            if grid[r, c]:
                draw.rectangle((x + c * m, y + r * m, x + (c + 1) * m - 1, y + (r + 1) * m - 1), fill=(20, 20, 20))


# --------------------------------------------------------------------------
# problem blocks
# --------------------------------------------------------------------------
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
NUM_STYLES = ["dot", "dot", "paren", "circled", "shape_circle", "shape_round", "none", "bracket", "ti", "en_q"]
ANSWER_SPACES = ["bracket", "bracket", "underline", "box", "da", "grid", "dots", "none", "none"]
EXTRAS = ["none"] * 5 + ["table", "numberline", "figure"]
BOX_LABELS = ["例题", "Think about it", "想一想", "试一试", "Example"]


def num_marker(style, n):
    return {"dot": f"{n}.", "paren": f"（{n}）", "circled": CIRCLED[(n - 1) % 20], "bracket": f"【{n}】",
            "ti": f"第{n}题", "en_q": f"Q{n}.", "none": ""}.get(style, str(n))


def draw_extra(img, draw, kind, x, y, w, S, ink, accent, fam, rng):
    """Draw a table / number line / figure starting at (x, y). Returns height."""
    latin = FAMILIES[fam][0]
    fs = int(S * 0.85)
    if kind == "table":
        cols = int(rng.integers(4, 7))
        cw = min(w / cols, S * 3.2)
        rh = S * 1.5
        heads = rng.choice([["x", "1", "2", "3", "4", "5", "6"], ["t/min", "0", "2", "4", "6", "8", "10"],
                            ["m/g", "10", "20", "30", "40", "50", "60"], ["x²", "1", "4", "9", "16", "25", "36"],
                            ["温度/℃", "20", "40", "60", "80", "100", "120"], ["角/°", "30", "45", "60", "90", "120", "180"]])
        row2 = ["y"] + ["" if rng.random() < 0.5 else str(int(rng.integers(1, 40))) for _ in range(6)]
        if heads[0].startswith("温"):
            row2[0] = "溶解度/g"
        lab_w = max(text_len(heads[0], latin, fs), text_len(row2[0], latin, fs)) + S * 0.6
        cw = max(cw, lab_w)
        while cols > 3 and cols * cw > w:
            cols -= 1
        for r, row in enumerate([heads[:cols], row2]):
            for c in range(cols):
                bx = (x + c * cw, y + r * rh, x + (c + 1) * cw, y + (r + 1) * rh)
                if r == 0:
                    draw.rectangle(bx, fill=tint(accent, 0.18))
                draw.rectangle(bx, outline=ink, width=2)
                t = row[c]
                if t:
                    tw = text_len(t, latin, fs)
                    draw_runs(draw, bx[0] + (cw - tw) / 2, bx[1] + rh * 0.7, t, latin, fs, ink)
        return 2 * rh + S * 0.4
    if kind == "numberline":
        L = min(w * 0.9, S * 16)
        yy = y + S * 0.8
        draw.line((x, yy, x + L, yy), fill=ink, width=3)
        draw.polygon([(x + L, yy - 8), (x + L + 18, yy), (x + L, yy + 8)], fill=ink)
        n = 7
        for k in range(n):
            tx = x + S + k * (L - 2 * S) / (n - 1)
            draw.line((tx, yy - 10, tx, yy), fill=ink, width=3)
            t = str(k - 3)
            draw_runs(draw, tx - text_len(t, latin, fs) / 2, yy + S * 1.1, t, latin, fs, ink)
        k = int(rng.integers(0, n))
        tx = x + S + k * (L - 2 * S) / (n - 1)
        draw.ellipse((tx - 8, yy - 8, tx + 8, yy + 8), fill=accent)
        draw_runs(draw, tx - 8, yy - 16, "A", latin, fs, ink)
        return S * 2.4
    # figure: triangle / rectangle / circle with labels
    H = S * 4.2
    sub = rng.choice(["tri", "rect", "circle"])
    if sub == "tri":
        pts = [(x + S, y + H - S * 0.3), (x + S * 7, y + H - S * 0.3), (x + S * 2.5, y + S * 0.5)]
        draw.polygon(pts, outline=ink, width=3)
        for (px, py), lab in zip(pts, ("B", "C", "A")):
            draw_runs(draw, px + (-S * 0.9 if lab == "B" else S * 0.25), py + (S * 0.2 if lab == "A" else S * 0.4), lab, latin, fs, ink)
        draw_runs(draw, pts[0][0] + S * 0.8, pts[0][1] - S * 0.25, f"{int(rng.choice([30, 45, 60]))}°", latin, int(fs * 0.8), ink)
    elif sub == "rect":
        draw.rectangle((x + S, y + S * 0.5, x + S * 7, y + H - S * 0.6), outline=ink, width=3, fill=tint(accent, 0.1))
        draw_runs(draw, x + S * 3.3, y + H + S * 0.1, f"{int(rng.integers(3, 12))} cm", latin, fs, ink)
        draw_runs(draw, x + S * 7.3, y + H / 2 + S * 0.3, f"{int(rng.integers(2, 8))} cm", latin, fs, ink)
    else:
        cx, cy, r = x + S * 3, y + H / 2, H / 2 - S * 0.3
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=ink, width=3)
        draw.line((cx, cy, cx + r, cy), fill=ink, width=2)
        draw.ellipse((cx - 5, cy - 5, cx + 5, cy + 5), fill=ink)
        draw_runs(draw, cx + r * 0.25, cy - S * 0.2, "r = 2 cm", latin, int(fs * 0.8), ink)
        draw_runs(draw, cx + r + S * 0.5, cy + S * 0.3, "S = πr²", latin, fs, ink)
    return H + S * 0.6


def render_block(entry, n, st, rng, framed=False):
    """Render one problem block as an RGB image on paper colour.

    Returns dict(img, text_box (x0,y0,x1,y1), info)."""
    S = st["size"]
    W = st["col_w"]
    paper, ink, accent = st["paper"], st["ink"], st["accent"]
    q = entry["question"]
    prim = FAMILIES[st["family"]][0] if has_cjk(q) else FAMILIES[st["family"]][1]
    info = {}
    H0 = int(S * 30)
    img = Image.new("RGB", (W, H0), paper)
    draw = ImageDraw.Draw(img)
    boxed = st.get("box_label") if framed or rng.random() < 0.12 else None
    if boxed is None and not framed and rng.random() < 0.1:
        boxed = str(rng.choice(BOX_LABELS))
    pad = int(S * 0.6) if boxed else 0
    top = pad + (int(S * 1.2) if boxed else 0)
    # number marker
    ns = st["num_style"]
    mk = num_marker(ns, n)
    mx = pad + int(S * 0.1)
    y_base = top + S * 1.05
    if ns in ("shape_circle", "shape_round"):
        d = S * 1.15
        bx = (mx, y_base - S * 0.95, mx + d, y_base - S * 0.95 + d)
        if ns == "shape_circle":
            draw.ellipse(bx, fill=accent)
        else:
            rounded(draw, bx, S * 0.25, fill=accent)
        t = str(n)
        fsz = int(S * 0.78)
        tw = text_len(t, "lib_sans_bold", fsz)
        draw_runs(draw, mx + (d - tw) / 2, y_base - S * 0.95 + d * 0.75, t, "lib_sans_bold", fsz, (255, 255, 255))
        mw = d + S * 0.4
    elif mk:
        mcol = accent if st["num_coloured"] else ink
        mfont = FAMILIES[st["family"]][0] if not st["num_bold"] else "cjk_sans_bold"
        draw_runs(draw, mx, y_base, mk, mfont, S, mcol)
        mw = text_len(mk, mfont, S) + S * 0.3
    else:
        mw = 0
    # score note
    score = None
    if st["score_notes"] and rng.random() < 0.75:
        score = f"（{int(rng.choice([2, 3, 4, 5, 6, 8, 10]))}分）" if has_cjk(q) or rng.random() < 0.5 else f"({int(rng.choice([2, 3, 5]))} pts)"
    score_pos = str(rng.choice(["before", "after"])) if score else ""
    tx0 = mx + mw
    # extra beside?
    extra = str(rng.choice(EXTRAS)) if not framed else st["framed_extra"]
    extra_pos = str(rng.choice(["below", "below", "beside"])) if extra != "none" else ""
    text_w = W - tx0 - pad - S * 0.5
    if extra_pos == "beside" and (extra != "figure" or text_w * 0.42 < S * 9.5):
        extra_pos = "below"
    if extra_pos == "beside":
        text_w = text_w - S * 9.5
    if score and score_pos == "before":
        sw = text_len(score, prim, S) + S * 0.2
        draw_runs(draw, tx0, y_base, score, prim, S, (110, 110, 110))
        first_indent = sw
    else:
        first_indent = 0
    ans = st["framed_answer"] if framed else str(rng.choice(ANSWER_SPACES))
    # wrap (first line may have indent): wrap with full width and check first line
    lines = wrap(q, prim, S, text_w - first_indent)
    # re-wrap continuation lines at full width for proper hanging indent
    if first_indent and len(lines) > 1:
        first = lines[0]
        idx = q.find(first) + len(first)
        lines = [first] + wrap(q[idx:].lstrip(), prim, S, text_w)
    lh = S * st["line_spacing"]
    x_end = tx0
    text_x1 = tx0
    for k, line in enumerate(lines):
        xs = tx0 + (first_indent if k == 0 else 0)
        x_end = draw_runs(draw, xs, y_base + k * lh, line, prim, S, ink)
        text_x1 = max(text_x1, x_end)
    last_base = y_base + (len(lines) - 1) * lh
    text_box = [mx, y_base - S * 1.0, text_x1, last_base + S * 0.3]
    # assert exact reconstruction
    joined = "".join(lines)
    info["truth_ok"] = re.sub(r"\s+", "", joined) == re.sub(r"\s+", "", q)
    info["n_lines"] = len(lines)
    # suffix items (after the question text): score, bracket
    xcur = x_end + S * 0.2
    ycur = last_base
    if ans == "bracket":
        bw = text_len("（　　　）", prim if has_cjk(q) else "cjk_sans", S)
        if xcur + bw > tx0 + text_w + S:
            xcur, ycur = tx0 + text_w - bw, ycur + lh
        draw_runs(draw, xcur, ycur, "（　　　）", "cjk_sans", S, ink)
        info["bracket_xy"] = (xcur + S * 0.9, ycur)
        xcur += bw
    if score and score_pos == "after":
        sw = text_len(score, prim, S * 0.85)
        if xcur + sw > W - pad:
            xcur, ycur = W - pad - sw - S * 0.2, ycur + lh
        draw_runs(draw, xcur + S * 0.3, ycur, score, prim, int(S * 0.85), (110, 110, 110))
    y = ycur + S * 0.7
    # extra
    ex_box = None
    if extra != "none":
        if extra_pos == "beside":
            ex_x = tx0 + text_w + S * 0.8
            hgt = draw_extra(img, draw, extra, ex_x, top, W - ex_x - pad, S, ink, accent, st["family"], rng)
            y = max(y, top + hgt)
        else:
            hgt = draw_extra(img, draw, extra, tx0 + S, y, text_w - S, S, ink, accent, st["family"], rng)
            y += hgt
    # answer space
    fill = st["framed_fill"] if framed else str(rng.choice(["none", "none", "none", "pencil", "pen"]))
    ans_area = None
    if ans == "underline":
        nl = int(rng.integers(1, 4))
        for k in range(nl):
            yy = y + S * 1.3 * (k + 1)
            draw.line((tx0, yy, W - pad - S, yy), fill=(120, 120, 120), width=2)
        ans_area = (tx0, y, W - pad - S, y + S * 1.3 * nl)
        y += S * 1.3 * nl + S * 0.5
    elif ans == "box":
        bh = S * rng.uniform(2.2, 4.0)
        draw.rectangle((tx0, y + S * 0.2, W - pad - S, y + bh), outline=(140, 140, 140), width=2)
        ans_area = (tx0, y + S * 0.2, W - pad - S, y + bh)
        y += bh + S * 0.5
    elif ans == "da":
        da = "答：" if has_cjk(q) else "Answer: "
        x2 = draw_runs(draw, tx0, y + S * 1.3, da, "cjk_sans", S, ink)
        draw.line((x2, y + S * 1.4, x2 + S * 12, y + S * 1.4), fill=ink, width=2)
        ans_area = (x2, y + S * 0.2, x2 + S * 12, y + S * 1.3)
        y += S * 2.0
    elif ans in ("grid", "dots"):
        gh = S * rng.uniform(3, 5.5)
        gc = tint(st["accent"], 0.25) if rng.random() < 0.5 else (200, 200, 200)
        step = int(S * 0.8)
        x0g, x1g = tx0, W - pad - S
        if ans == "grid":
            for xx in np.arange(x0g, x1g + 1, step):
                draw.line((xx, y, xx, y + gh), fill=gc, width=1)
            for yy in np.arange(y, y + gh + 1, step):
                draw.line((x0g, yy, x1g, yy), fill=gc, width=1)
        else:
            for yy in np.arange(y + step, y + gh, step * 1.4):
                for xx in np.arange(x0g, x1g, 10):
                    draw.point((xx, yy), fill=(150, 150, 150))
                    draw.point((xx + 1, yy), fill=(150, 150, 150))
        ans_area = (x0g, y, x1g, y + gh)
        y += gh + S * 0.4
    # student's writing
    crossed = False
    hw = ""
    if fill != "none":
        hcol = (80, 80, 85) if fill == "pencil" else (30, 60, 170)
        ansr = entry.get("answer", "") or ""
        ansr = re.sub(r"\$", "", ansr)
        snippet = ansr[: int(rng.integers(4, 14))] if ansr else "x = 5"
        hs = int(S * rng.uniform(0.85, 1.05))
        if ans == "bracket" and "bracket_xy" in info:
            bx, by = info["bracket_xy"]
            hand_text(img, bx, by, str(rng.choice(["A", "B", "C", "√", snippet[:2]])), hs, hcol, rng)
            hw = "bracket"
        elif ans_area is not None:
            ax0, ay0, ax1, ay1 = ans_area
            yy = ay0 + min(S * 1.2, (ay1 - ay0) * 0.9)
            if rng.random() < 0.35:  # crossed out attempt first
                x2 = hand_text(img, ax0 + S * 0.5, yy, snippet[: max(3, len(snippet) // 2)], hs, hcol, rng)
                draw.line((ax0 + S * 0.3, yy - S * 0.35, x2, yy - S * 0.4 + rng.uniform(-4, 4)), fill=hcol, width=3)
                draw.line((ax0 + S * 0.3, yy - S * 0.55, x2, yy - S * 0.2), fill=hcol, width=2)
                crossed = True
                if ay1 - ay0 > S * 2.2:
                    yy += S * 1.2
                    hand_text(img, ax0 + S * 0.5, yy, snippet, hs, hcol, rng)
                else:
                    hand_text(img, x2 + S * 0.8, yy, snippet, hs, hcol, rng)
            else:
                hand_text(img, ax0 + S * 0.5, yy, snippet, hs, hcol, rng)
            hw = "answer"
        else:
            hand_text(img, tx0 + S, y + S * 1.1, snippet, hs, hcol, rng)
            y += S * 1.5
            hw = "working"
    # teacher's mark (right side, outside the text box)
    mark = st["framed_mark"] if framed else (str(rng.choice(["none", "none", "tick", "cross", "score", "dingzheng"])) if fill != "none" else "none")
    if mark != "none":
        red = (215, 30, 35)
        mxr = W - pad - S * 2.2
        myr = max(text_box[3] + S * 0.2, y - S * 1.6)
        if mark == "tick":
            draw.line((mxr, myr, mxr + S * 0.5, myr + S * 0.7, mxr + S * 1.6, myr - S * 0.9), fill=red, width=max(3, S // 10), joint="curve")
        elif mark == "cross":
            draw.line((mxr, myr - S * 0.6, mxr + S * 1.2, myr + S * 0.6), fill=red, width=max(3, S // 10))
            draw.line((mxr + S * 1.2, myr - S * 0.6, mxr, myr + S * 0.6), fill=red, width=max(3, S // 10))
        elif mark == "score":
            hand_text(img, mxr - S * 0.5, myr + S * 0.5, str(rng.choice(["+5", "8", "-2", "10", "5分"])), int(S * 1.2), red, rng, 0.95)
        else:
            hand_text(img, mxr - S * 1.3, myr + S * 0.5, "订正", int(S * 1.05), red, rng, 0.95)
        y = max(y, myr + S * 1.0)
    bottom = int(y + pad + S * 0.3)
    if boxed:
        col = st["accent"]
        bimg = Image.new("RGB", (W, bottom), paper)
        bd = ImageDraw.Draw(bimg)
        rounded(bd, (2, int(S * 0.6), W - 3, bottom - 2), S * 0.5, fill=tint(col, 0.12), outline=tint(col, 0.6), width=3)
        # composite: paper pixels of block -> tinted
        arr = np.array(img)[:bottom]
        barr = np.array(bimg)
        is_paper = np.all(arr == np.array(paper, np.uint8), axis=2)
        arr[is_paper] = barr[is_paper]
        img = Image.fromarray(arr)
        draw = ImageDraw.Draw(img)
        lw = text_len(boxed, "cjk_sans_bold", int(S * 0.8)) + S * 1.6
        rounded(draw, (S * 0.8, 0, S * 0.8 + lw, S * 1.25), S * 0.35, fill=col)
        icon(draw, str(rng.choice(["star", "bulb", "pencil"])), S * 1.35, S * 0.62, S * 0.42, (255, 255, 255))
        draw_runs(draw, S * 1.95, S * 0.95, boxed, "cjk_sans_bold", int(S * 0.8), (255, 255, 255))
    else:
        img = img.crop((0, 0, W, bottom))
    info.update(score=score or "", score_pos=score_pos, answer_space=ans, extra=extra, extra_pos=extra_pos,
                fill=fill, handwriting=hw, crossed=crossed, mark=mark, box=boxed or "")
    return dict(img=img, text_box=text_box, info=info, h=bottom)


SECTION_TITLES_ZH = ["一、选择题", "二、填空题", "三、解答题", "基础巩固", "能力提升", "拓展探究", "课时作业", "知识点 1", "课堂检测", "夯实基础"]
SECTION_TITLES_EN = ["Part A  Vocabulary", "Exercise 2", "Practice", "Check yourself", "Part B  Grammar", "Warm-up"]
HEADS_ZH = ["同步练习 · {s} {g}年级", "{s}练习册 {g}年级上册", "课课练 · {s}", "{s} 作业本", "学练优 {s}"]
HEADS_EN = ["Practice Book · Grade {g}", "English Workbook {g}", "Homework Helper"]
SUBJ_ZH = {"math": "数学", "physics": "物理", "chemistry": "化学", "english": "英语", "biology": "生物",
           "geography": "地理", "history": "历史", "chinese": "语文"}


def section_bar(st, rng, W):
    S = st["size"]
    titles = SECTION_TITLES_EN if st["lang"] == "en" else SECTION_TITLES_ZH
    st["_bar_k"] = st.get("_bar_k", int(rng.integers(0, len(titles)))) + 1
    title = titles[st["_bar_k"] % len(titles)]
    h = int(S * 1.9)
    img = Image.new("RGB", (W, h), st["paper"])
    d = ImageDraw.Draw(img)
    col = st["accent"]
    kind = st["bar_style"]
    ic = str(rng.choice(["pencil", "star", "bulb"]))
    fs = int(S * 0.95)
    if kind == "full":
        rounded(d, (0, int(S * 0.2), W - 1, h - int(S * 0.2)), S * 0.3, fill=tint(col, 0.25))
        rounded(d, (0, int(S * 0.2), int(S * 1.6), h - int(S * 0.2)), S * 0.3, fill=col)
        icon(d, ic, S * 0.8, h / 2, S * 0.5, (255, 255, 255))
        draw_runs(d, S * 2.0, h / 2 + fs * 0.36, title, "cjk_sans_bold", fs, darker(col, 0.6))
    else:
        tw = text_len(title, "cjk_sans_bold", fs)
        rounded(d, (0, int(S * 0.2), int(tw + S * 2.6), h - int(S * 0.2)), S * 0.6, fill=col)
        icon(d, ic, S * 0.9, h / 2, S * 0.5, (255, 255, 255))
        draw_runs(d, S * 1.8, h / 2 + fs * 0.36, title, "cjk_sans_bold", fs, (255, 255, 255))
        d.line((tw + S * 3, h / 2, W, h / 2), fill=tint(col, 0.5), width=3)
    return img


PW, PH = 1700, 2400


def render_page(entries, st, rng, framed_idx, start_no, side):
    """Render a page. entries: list of bank entries to try (framed at framed_idx).
    Returns (img, blocks) where blocks = list of dict(text_box, block_box, framed)."""
    S = st["size"]
    page = Image.new("RGB", (PW, PH), st["paper"])
    d = ImageDraw.Draw(page)
    mL = int(rng.uniform(110, 170))
    mR = int(rng.uniform(110, 170))
    col = st["accent"]
    deco = []
    top = int(rng.uniform(90, 140))
    # running head
    if st["running_head"]:
        fs = int(S * 0.7)
        subj = st["subject"]
        g = st["grade"]
        if st["lang"] == "en":
            head = str(rng.choice(HEADS_EN)).format(g=g)
        else:
            head = str(rng.choice(HEADS_ZH)).format(s=SUBJ_ZH.get(subj, "综合"), g=g)
        hx = mL if side == "left" else PW - mR - text_len(head, "cjk_sans", fs)
        draw_runs(d, hx, top, head, "cjk_sans", fs, darker(col, 0.8))
        d.line((mL, top + S * 0.45, PW - mR, top + S * 0.45), fill=col, width=4)
        top += int(S * 1.3)
        deco.append("head")
    if st["logo"]:
        lx = PW - mR - 90 if side == "left" else mL
        d.ellipse((lx, 30, lx + 70, 100), fill=col)
        draw_runs(d, lx + 14, 82, "学", "cjk_sans_bold", 42, (255, 255, 255))
        deco.append("logo")
    bottom_lim = PH - 150
    if st["qr"]:
        qs = 150
        qx = PW - mR - qs if side == "right" else mL
        qr_code(d, qx, PH - 120 - qs, qs, rng)
        draw_runs(d, qx + (qs + 20 if side == "left" else -330), PH - 120 - qs / 2, "扫码看讲解视频", "cjk_sans", 28, darker(col, 0.8))
        bottom_lim = PH - 120 - qs - 30
        deco.append("qr")
    # page number
    pn = str(st["page_no"] + (1 if side == "right" else 0))
    pfs = 40
    px = PW - mR - 40 if side == "right" else mL
    if st["pn_style"] == "shape":
        d.ellipse((px - 12, PH - 95, px + 60, PH - 23), fill=col)
        draw_runs(d, px + 24 - text_len(pn, "lib_sans_bold", pfs) / 2, PH - 45, pn, "lib_sans_bold", pfs, (255, 255, 255))
    else:
        draw_runs(d, PW / 2 - 20, PH - 50, f"— {pn} —", "lib_serif", pfs, (60, 60, 60))
    deco.append("pagenum")
    full = PW - mL - mR
    cw = int(full * st["col_frac"])
    xL = mL
    if cw < full:  # side column: notes area / knowledge box
        sx0 = mL + cw + 40 if side == "left" or st["col_frac"] < 0.7 else mL
        if sx0 == mL:
            xL = mL + full - cw
        sx1 = sx0 + full - cw - 40
        sy0 = top + int(S * 0.5)
        sy1 = min(bottom_lim, sy0 + int(rng.uniform(0.4, 0.9) * (bottom_lim - sy0)))
        rounded(d, (sx0, sy0, sx1, sy1), 24, fill=tint(col, 0.08), outline=tint(col, 0.5), width=3)
        lab = str(rng.choice(["笔记", "Notes", "知识梳理", "易错点", "方法点拨"]))
        rounded(d, (sx0 + 20, sy0 - 20, sx0 + 40 + text_len(lab, "cjk_sans_bold", 30), sy0 + 24), 12, fill=col)
        draw_runs(d, sx0 + 30, sy0 + 14, lab, "cjk_sans_bold", 30, (255, 255, 255))
        for yy in range(sy0 + 90, sy1 - 20, 60):
            for xx in range(sx0 + 20, sx1 - 20, 12):
                d.point((xx, yy), fill=tint(col, 0.6))
        deco.append("sidebar")
    mL = xL
    st = dict(st, col_w=cw)
    y = top + int(S * 0.5)
    blocks = []
    n = start_no
    k = 0
    next_bar = 0 if rng.random() < 0.7 else 2
    while k < len(entries):
        if k == next_bar:
            bar = section_bar(st, rng, cw)
            if y + bar.height > bottom_lim:
                if k <= framed_idx:
                    return None, None, None
                break
            page.paste(bar, (mL, y))
            y += bar.height + int(S * 0.3)
            next_bar = k + int(rng.integers(3, 7))
            deco.append("bar")
        blk = render_block(entries[k], n, st, rng, framed=(k == framed_idx))
        if y + blk["h"] > bottom_lim:
            if k <= framed_idx:
                return None, None, None
            break
        page.paste(blk["img"], (mL, y))
        tb = blk["text_box"]
        blocks.append(dict(text_box=[tb[0] + mL, tb[1] + y, tb[2] + mL, tb[3] + y],
                           block_box=[mL, y, mL + cw, y + blk["h"]], framed=(k == framed_idx),
                           info=blk["info"], entry=entries[k]))
        y += blk["h"]
        if st["rules"] and k + 1 < len(entries):
            d.line((mL, y + S * 0.35, mL + cw, y + S * 0.35), fill=tint(col, 0.45) if rng.random() < 0.5 else (190, 190, 190), width=2)
        y += int(S * 0.7)
        n += 1
        k += 1
    return page, blocks, sorted(set(deco))


# --------------------------------------------------------------------------
# planning
# --------------------------------------------------------------------------
SIZES = [("1280x960", 1280, 960, 1280), ("1600x1200", 1600, 1200, 1600), ("960x1280", 960, 1280, 960),
         ("4000x3000>2000x1500", 2000, 1500, 4000), ("1280x960", 1280, 960, 1280), ("1440x1080", 1440, 1080, 1440)]


def strat(rng, n, items):
    """Stratified assignment: items = [(value, weight)]; returns list of n values, shuffled."""
    tot = sum(w for _, w in items)
    out = []
    for v, w in items:
        out += [v] * int(round(n * w / tot))
    while len(out) < n:
        out.append(items[0][0])
    out = out[:n]
    rng.shuffle(out)
    return out


def plan_cases(bank, count, seed):
    rng = random.Random(seed)
    order = list(range(len(bank)))
    rng.shuffle(order)
    # make sure all subjects are well covered: interleave by subject
    by_s = {}
    for i in order:
        by_s.setdefault(bank[i]["subject"], []).append(i)
    inter = []
    while any(by_s.values()):
        for s in sorted(by_s):
            if by_s[s]:
                inter.append(by_s[s].pop())
    framed = [inter[i % len(inter)] for i in range(count)]
    zoom = strat(rng, count, [("mid", 45), ("closeup", 25), ("wide", 18), ("whole", 12)])
    pos = strat(rng, count, [("centre", 62), ("near", 16), ("off", 22)])
    rot = strat(rng, count, [(0, 80), (90, 8), (180, 6), (270, 6)])
    tilt = strat(rng, count, [("mild", 75), ("strong", 25)])
    layout = strat(rng, count, [("spread", 70), ("single", 30)])
    holder = strat(rng, count, [("none", 45), ("hand", 30), ("pencil_case", 15), ("pencil", 10)])
    size = strat(rng, count, [(s, 1) for s in range(len(SIZES))])
    answer = strat(rng, count, [("bracket", 22), ("underline", 14), ("box", 12), ("da", 14), ("grid", 12), ("dots", 8), ("none", 18)])
    fill = strat(rng, count, [("none", 45), ("pencil", 30), ("pen", 25)])
    mark = strat(rng, count, [("none", 55), ("tick", 15), ("cross", 10), ("score", 10), ("dingzheng", 10)])
    extra = strat(rng, count, [("none", 60), ("table", 14), ("numberline", 12), ("figure", 14)])
    fam = strat(rng, count, [(f, 1) for f in FAMILIES])
    num = strat(rng, count, [(s, 1) for s in sorted(set(NUM_STYLES))])
    mixed = strat(rng, count, [("same_subject", 60), ("mixed", 40)])
    colf = strat(rng, count, [(1.0, 30), (0.72, 20), (0.55, 25), (0.45, 25)])
    big = [k for k in range(len(SIZES)) if SIZES[k][1] * SIZES[k][2] >= 1440 * 1080]
    for k in range(count):
        if zoom[k] == "whole" and size[k] not in big:
            size[k] = big[k % len(big)]
    cases = []
    for i in range(count):
        cases.append(dict(i=i + 1, qid=f"wb{i + 1:03d}", bank_idx=framed[i], zoom=zoom[i], position=pos[i], rotation=rot[i],
                          tilt=tilt[i], layout=layout[i], holder=holder[i], size_idx=size[i], answer=answer[i],
                          fill=fill[i] if answer[i] != "none" or fill[i] == "none" else fill[i], mark=mark[i] if fill[i] != "none" else ("none" if mark[i] != "dingzheng" else "none"),
                          extra=extra[i], family=fam[i], col_frac=colf[i], num_style=num[i], neighbours=mixed[i],
                          jpeg_q=rng.randint(55, 92)))
    return cases


# --------------------------------------------------------------------------
# geometry
# --------------------------------------------------------------------------
def curl_delta(x, y, g):
    """Displacement of canvas points due to page curvature near the spine."""
    dx = np.zeros_like(x)
    dy = np.zeros_like(y)
    if g["spine"] is not None:
        xs, w, a, b, yc = g["spine"], g["curl_w"], g["curl_a"], g["curl_b"], g["yc"]
        d = np.abs(x - xs)
        t = np.clip(1 - d / w, 0, 1)
        sgn = np.sign(x - xs)
        dx = dx - sgn * a * w * t ** 3
        dy = dy - b * t ** 2 * (y - yc)
    # gentle global bow of the paper
    bow = g["bow"]
    u = (x - g["cx"]) / (g["cw"] / 2)
    dy = dy + bow * (1 - np.clip(u, -1.2, 1.2) ** 2) * 40
    return dx, dy


def fwd_pts(pts, g, M):
    pts = np.asarray(pts, np.float64)
    dx, dy = curl_delta(pts[:, 0], pts[:, 1], g)
    p = np.stack([pts[:, 0] + dx, pts[:, 1] + dy, np.ones(len(pts))], 1) @ M.T
    return p[:, :2] / p[:, 2:3]


def inv_map(W, H, g, M, step=4):
    gw, gh = W // step + 2, H // step + 2
    gx, gy = np.meshgrid(np.arange(gw) * step, np.arange(gh) * step)
    P = np.stack([gx.ravel(), gy.ravel(), np.ones(gx.size)], 1) @ np.linalg.inv(M).T
    qx, qy = P[:, 0] / P[:, 2], P[:, 1] / P[:, 2]
    sx, sy = qx.copy(), qy.copy()
    for _ in range(6):
        dx, dy = curl_delta(sx, sy, g)
        sx, sy = qx - dx, qy - dy
    sx = sx.reshape(gh, gw).astype(np.float32)
    sy = sy.reshape(gh, gw).astype(np.float32)
    X, Y = np.meshgrid(np.arange(W, dtype=np.float32) / step, np.arange(H, dtype=np.float32) / step)
    mx = cv2.remap(sx, X, Y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    my = cv2.remap(sy, X, Y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return mx, my


def box_pts(b, n=6):
    x0, y0, x1, y1 = b
    xs = np.linspace(x0, x1, n)
    ys = np.linspace(y0, y1, n)
    return np.concatenate([np.stack([xs, np.full(n, y0)], 1), np.stack([xs, np.full(n, y1)], 1),
                           np.stack([np.full(n, x0), ys], 1), np.stack([np.full(n, x1), ys], 1)])


def rot_mat(theta):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


def T(tx, ty):
    return np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]], np.float64)


# --------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------
def make_one(args):
    case, bank, seed, outdir = args
    i = case["i"]
    nrng = np.random.default_rng([seed, i])
    rng = nrng
    entry = bank[case["bank_idx"]]
    subj = entry["subject"]
    # neighbours
    pool = [e for e in bank if e["id"] != entry["id"] and e["question"] != entry["question"]]
    same = [e for e in pool if e["subject"] == subj]
    if case["neighbours"] == "same_subject" and len(same) >= 8:
        cand = same
    else:
        cand = pool
    perm = nrng.permutation(len(cand))
    neigh = [cand[j] for j in perm[:24]]
    lang = "en" if (subj == "english" and not has_cjk(entry["question"]) and rng.random() < 0.7) else "zh"
    accent = PALETTE[int(rng.integers(len(PALETTE)))]
    paper = tuple(int(v) for v in (np.array([250, 249, 244]) - rng.integers(0, 10, 3)))
    st = dict(size=int(rng.integers(34, 46)), paper=paper, ink=(int(rng.integers(10, 40)),) * 3, accent=accent,
              family=case["family"], num_style=case["num_style"], num_coloured=bool(rng.random() < 0.5),
              num_bold=bool(rng.random() < 0.5), score_notes=bool(rng.random() < 0.4), line_spacing=float(rng.uniform(1.45, 1.8)),
              framed_answer=case["answer"], framed_fill=case["fill"], framed_mark=case["mark"], framed_extra=case["extra"],
              box_label=(str(rng.choice(BOX_LABELS)) if rng.random() < 0.18 else None), lang=lang, subject=subj,
              grade=entry.get("grade", "7"), running_head=bool(rng.random() < 0.8), logo=bool(rng.random() < 0.35),
              qr=bool(rng.random() < 0.35), page_no=int(rng.integers(2, 120)) * 2, pn_style=str(rng.choice(["shape", "plain"])),
              bar_style=str(rng.choice(["full", "tab"])), rules=bool(rng.random() < 0.6),
              col_frac=float(case["col_frac"]))
    side = str(rng.choice(["left", "right"]))
    page = None
    fi0 = int(rng.integers(0, 10))
    for attempt in range(12):
        fi = max(0, fi0 - 2 * attempt) if attempt < 8 else int(rng.integers(0, 2))
        ents = neigh[:fi] + [entry] + neigh[fi:fi + 12]
        if attempt >= 9:
            st["size"] = 34
        page, blocks, deco = render_page(ents, st, rng, fi, int(rng.integers(1, 12)), side)
        if page is not None:
            break
    if page is None:
        raise RuntimeError(f"{case['qid']}: framed problem did not fit page")
    fb = next(b for b in blocks if b["framed"])
    # canvas: book
    border = 40
    cover = tuple(int(v) for v in rng.integers(30, 160, 3))
    if case["layout"] == "spread":
        other_st = dict(st, framed_answer="none", framed_fill="none", framed_mark="none", framed_extra="none")
        oents = neigh[12:24]
        opage, oblocks, _ = render_page(oents, other_st, rng, -1, int(rng.integers(1, 12)), "right" if side == "left" else "left")
        CW, CH = 2 * PW + 2 * border, PH + 2 * border
        canvas = np.zeros((CH, CW, 3), np.uint8)
        canvas[:] = cover
        lx = border
        rx = border + PW
        if side == "left":
            canvas[border:border + PH, lx:lx + PW] = np.array(page)
            canvas[border:border + PH, rx:rx + PW] = np.array(opage)
            offx = lx
            ooff = rx
        else:
            canvas[border:border + PH, rx:rx + PW] = np.array(page)
            canvas[border:border + PH, lx:lx + PW] = np.array(opage)
            offx = rx
            ooff = lx
        # page-stack edges
        for k in range(6):
            c = 200 - k * 12
            cv2.line(canvas, (border - 4 - k * 5, border), (border - 4 - k * 5, border + PH), (c, c, c - 5), 2)
            cv2.line(canvas, (CW - border + 3 + k * 5, border), (CW - border + 3 + k * 5, border + PH), (c, c, c - 5), 2)
        spine = border + PW
        others = [dict(b, off=offx) for b in blocks if not b["framed"]] + [dict(b, off=ooff) for b in oblocks]
    else:
        CW, CH = PW + 2 * border, PH + 2 * border
        canvas = np.zeros((CH, CW, 3), np.uint8)
        canvas[:] = cover if rng.random() < 0.5 else (235, 235, 230)
        canvas[border:border + PH, border:border + PW] = np.array(page)
        offx = border
        spine = None
        others = [dict(b, off=offx) for b in blocks if not b["framed"]]
    offy = border
    g = dict(spine=spine, curl_w=float(rng.uniform(200, 420)), curl_a=float(rng.uniform(0.08, 0.3)),
             curl_b=float(rng.uniform(0.02, 0.08)), yc=CH / 2, bow=float(rng.uniform(-0.6, 0.6)), cx=CW / 2, cw=CW)
    tb = fb["text_box"]
    ftext = [tb[0] + offx - 6, tb[1] + offy - 6, tb[2] + offx + 6, tb[3] + offy + 6]
    bb = fb["block_box"]
    fblock = [bb[0] + offx, bb[1] + offy, bb[2] + offx, bb[3] + offy]
    sname, W, H, src_w = SIZES[case["size_idx"]]
    rot = case["rotation"]
    Weff, Heff = (W, H) if rot in (0, 180) else (H, W)
    fw, fh = ftext[2] - ftext[0], ftext[3] - ftext[1]
    S = st["size"]
    zoom = case["zoom"]
    if zoom == "closeup":
        s = min(rng.uniform(0.8, 0.95) * Weff / fw, 0.085 * Heff / S, 0.85 * Heff / fh)
    elif zoom == "mid":
        s = rng.uniform(0.55, 0.85) * Weff / (PW - 260)
        s = min(s, 0.9 * Weff / fw, 0.8 * Heff / fh)
    elif zoom == "wide":
        s = rng.uniform(0.75, 0.95) * Weff / PW
        s = min(s, 0.9 * Weff / fw)
    else:
        s = min(Weff / (PW + 60), Heff / (PH + 60)) * rng.uniform(0.85, 0.97)
    small = rng.uniform(-3, 3) if case["tilt"] == "mild" else rng.uniform(-9, 9)
    theta = math.radians(rot + small)
    kmag = rng.uniform(0.0, 0.12) if case["tilt"] == "mild" else rng.uniform(0.25, 0.45)
    kang = rng.uniform(0, 2 * math.pi)
    kx, ky = kmag * math.cos(kang) / max(W, H), kmag * math.sin(kang) / max(W, H)
    # target centre
    if case["position"] == "centre":
        tdx, tdy = rng.uniform(-0.03, 0.03), rng.uniform(-0.03, 0.03)
    elif case["position"] == "near":
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(0.04, 0.08)
        tdx, tdy = r * math.cos(a), r * math.sin(a)
    else:
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(0.12, 0.28)
        tdx, tdy = r * math.cos(a), r * math.sin(a)
    margin = 0.015 * max(W, H)
    fpts = box_pts(ftext, 8)
    bpts = box_pts(fblock, 8)
    page_c = np.array([[offx + PW / 2, offy + PH / 2]])
    block_ok = False
    M = None
    for it in range(80):
        c = fwd_pts(np.array([[(ftext[0] + ftext[2]) / 2, (ftext[1] + ftext[3]) / 2]]), g, np.eye(3))[0]
        if zoom == "whole":
            c = fwd_pts(page_c, g, np.eye(3))[0]
        P = np.array([[1, 0, 0], [0, 1, 0], [kx, ky, 1]], np.float64)
        A = T(W / 2, H / 2) @ P @ rot_mat(theta) @ np.diag([s, s, 1.0]) @ T(-c[0], -c[1])
        # shift so the framed centre lands at the target
        fc = fwd_pts(np.array([[(ftext[0] + ftext[2]) / 2, (ftext[1] + ftext[3]) / 2]]), g, A)[0]
        if zoom == "whole":
            fc = fwd_pts(page_c, g, A)[0]
            tgt = np.array([W / 2, H / 2]) + np.array([tdx * W, tdy * H]) * 0.3
        else:
            tgt = np.array([W / 2 + tdx * W, H / 2 + tdy * H])
        Mc = T(tgt[0] - fc[0], tgt[1] - fc[1]) @ A
        q = fwd_pts(fpts, g, Mc)
        inside = (q[:, 0].min() > margin and q[:, 1].min() > margin and q[:, 0].max() < W - margin and q[:, 1].max() < H - margin)
        if inside:
            M = Mc
            qb = fwd_pts(bpts, g, Mc)
            block_ok = (qb[:, 0].min() > 0 and qb[:, 1].min() > 0 and qb[:, 0].max() < W and qb[:, 1].max() < H)
            break
        if it % 2 == 0 and abs(tdx) + abs(tdy) > 0.02:
            tdx *= 0.75
            tdy *= 0.75
        else:
            s *= 0.95
            kx *= 0.93
            ky *= 0.93
    if M is None:
        raise RuntimeError(f"{case['qid']}: could not fit framed problem")
    # people keep the book in view: if the page covers too little of the photo, pan toward it
    gx_, gy_ = np.meshgrid(np.linspace(0, W, 20), np.linspace(0, H, 15))
    gp = np.stack([gx_.ravel(), gy_.ravel(), np.ones(gx_.size)], 1)
    pages_box = (offx, offy, offx + PW, offy + PH) if spine is None else (border, offy, CW - border, offy + PH)
    for _ in range(8):
        pp = gp @ np.linalg.inv(M).T
        px_, py_ = pp[:, 0] / pp[:, 2], pp[:, 1] / pp[:, 2]
        cov = np.mean((px_ > pages_box[0]) & (px_ < pages_box[2]) & (py_ > pages_box[1]) & (py_ < pages_box[3]))
        if cov >= 0.7 or zoom == "whole" or case["position"] == "centre":
            break
        pc = fwd_pts(np.array([[(pages_box[0] + pages_box[2]) / 2, (pages_box[1] + pages_box[3]) / 2]]), g, M)[0]
        M2 = T(0.12 * (W / 2 - pc[0]), 0.12 * (H / 2 - pc[1])) @ M
        q = fwd_pts(fpts, g, M2)
        if not (q[:, 0].min() > margin and q[:, 1].min() > margin and q[:, 0].max() < W - margin and q[:, 1].max() < H - margin):
            break
        M = M2
    pp = gp @ np.linalg.inv(M).T
    px_, py_ = pp[:, 0] / pp[:, 2], pp[:, 1] / pp[:, 2]
    cov = np.mean((px_ > pages_box[0]) & (px_ < pages_box[2]) & (py_ > pages_box[1]) & (py_ < pages_box[3]))
    qb = fwd_pts(bpts, g, M)
    block_ok = (qb[:, 0].min() > 0 and qb[:, 1].min() > 0 and qb[:, 0].max() < W and qb[:, 1].max() < H)
    # ---- warp ----
    mx, my = inv_map(W, H, g, M)
    jac = abs(np.linalg.det(M[:2, :2])) ** 0.5  # approx dest px per src px
    f = float(min(1.0, jac * 1.5))
    src = canvas
    if f < 0.98:
        src = cv2.resize(canvas, (int(CW * f), int(CH * f)), interpolation=cv2.INTER_AREA)
    warped = cv2.remap(src, (mx * f).astype(np.float32), (my * f).astype(np.float32), cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    inb = ((mx >= 0) & (my >= 0) & (mx < CW) & (my < CH)).astype(np.float32)
    inb = cv2.GaussianBlur(inb, (3, 3), 0)[..., None]
    # desk background
    desk_kind = str(rng.choice(["wood", "cloth", "plain"]))
    base = np.array(rng.choice([[120, 80, 50], [160, 120, 80], [90, 60, 40], [200, 195, 185], [60, 70, 90], [170, 160, 150]]), np.float32)
    small_n = rng.normal(0, 1, (H // 16 + 1, W // 16 + 1)).astype(np.float32)
    bg = cv2.resize(small_n, (W, H), interpolation=cv2.INTER_CUBIC)[..., None] * 8
    if desk_kind == "wood":
        yy = np.arange(H, dtype=np.float32)[:, None]
        xx = np.arange(W, dtype=np.float32)[None, :]
        ang = rng.uniform(0, math.pi)
        grain = np.sin((xx * math.cos(ang) + yy * math.sin(ang)) / rng.uniform(6, 14) + 3 * np.sin(xx / 180 + yy / 230))
        bg = bg + grain[..., None] * 12
    desk = np.clip(base[None, None, :] + bg, 0, 255)
    img = warped.astype(np.float32) * inb + desk * (1 - inb)
    # gutter shadow
    if spine is not None:
        t = np.clip(1 - np.abs(mx - spine) / g["curl_w"], 0, 1)
        gs = rng.uniform(0.25, 0.55)
        img *= (1 - gs * t ** 2.2)[..., None]
    # framed mask for occluder tests
    fq = fwd_pts(fpts, g, M)
    fmask = np.zeros((H, W), np.uint8)
    hull = cv2.convexHull(fq.astype(np.float32)).astype(np.int32)
    cv2.fillConvexPoly(fmask, hull, 255)
    fmask_d = cv2.dilate(fmask, np.ones((int(0.03 * W) + 1, int(0.03 * W) + 1), np.uint8))
    # holder: hand / pencil case / pencil
    holder = case["holder"]
    holder_done = "none"
    if holder != "none":
        for tries in range(12):
            occ = np.zeros((H, W), np.uint8)
            edge = int(rng.integers(0, 4))
            pos_ = rng.uniform(0.1, 0.9)
            L = max(W, H)
            if holder == "hand":
                ex, ey = [(pos_ * W, -0.05 * H), (W * 1.05, pos_ * H), (pos_ * W, H * 1.05), (-0.05 * W, pos_ * H)][edge]
                ang = [math.pi / 2, math.pi, -math.pi / 2, 0][edge] + rng.uniform(-0.4, 0.4)
                ux, uy = math.cos(ang), math.sin(ang)
                vx, vy = -uy, ux
                r = L * rng.uniform(0.05, 0.08)
                cv2.ellipse(occ, (int(ex), int(ey)), (int(r * 2.2), int(r * 1.6)), math.degrees(ang), 0, 360, 255, -1)
                for fk in range(int(rng.integers(1, 4))):
                    o = (fk - 1) * r * 0.55
                    fl = r * rng.uniform(1.6, 2.6)
                    p0 = (ex + vx * o, ey + vy * o)
                    p1 = (p0[0] + ux * fl, p0[1] + uy * fl)
                    cv2.line(occ, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), 255, int(r * 0.48))
                    cv2.circle(occ, (int(p1[0]), int(p1[1])), int(r * 0.24), 255, -1)
                col = np.array([rng.uniform(190, 230), rng.uniform(150, 180), rng.uniform(120, 150)], np.float32)
            elif holder == "pencil_case":
                cxr, cyr = [(pos_ * W, 0), (W, pos_ * H), (pos_ * W, H), (0, pos_ * H)][edge]
                ang = [0, 90, 0, 90][edge] + rng.uniform(-20, 20)
                rect = ((cxr, cyr), (L * rng.uniform(0.35, 0.5), L * rng.uniform(0.12, 0.2)), ang)
                cv2.fillConvexPoly(occ, cv2.boxPoints(rect).astype(np.int32), 255)
                col = np.array(rng.choice([[40, 70, 160], [200, 60, 80], [60, 60, 60], [230, 180, 60], [90, 150, 120]]), np.float32)
            else:
                cxr, cyr = rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H
                ang = rng.uniform(0, 180)
                rect = ((cxr, cyr), (L * 0.4, L * 0.014), ang)
                cv2.fillConvexPoly(occ, cv2.boxPoints(rect).astype(np.int32), 255)
                col = np.array(rng.choice([[230, 190, 40], [40, 120, 60], [200, 40, 40]]), np.float32)
            if (occ & fmask_d).any() or occ.mean() < 1:
                continue
            # drop shadow + object
            sh = cv2.GaussianBlur(occ, (0, 0), L * 0.012).astype(np.float32) / 255
            sh = np.roll(sh, (int(L * 0.01), int(L * 0.012)), (0, 1))
            sh = sh * (1 - fmask_d / 255.0)
            img *= (1 - 0.45 * sh)[..., None]
            om = cv2.GaussianBlur(occ, (0, 0), 1.5).astype(np.float32)[..., None] / 255
            shade = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (W, H))[..., None] * 10
            img = img * (1 - om) + np.clip(col[None, None] + shade, 0, 255) * om
            holder_done = holder
            break
    # lighting: lamp falloff
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    lxp, lyp = rng.uniform(-0.4, 1.4) * W, rng.uniform(-0.4, 1.4) * H
    sig = rng.uniform(0.5, 1.1) * max(W, H)
    light = np.exp(-((xx - lxp) ** 2 + (yy - lyp) ** 2) / (2 * sig ** 2))
    light = light / light.max()
    fall = rng.uniform(0.25, 0.55)
    exposure = rng.uniform(0.72, 1.02)
    L_ = exposure * ((1 - fall) + fall * light)
    # phone / hand shadow
    shadow = "none"
    if rng.random() < 0.4:
        shm = np.zeros((H, W), np.uint8)
        edge = int(rng.integers(0, 4))
        d0 = rng.uniform(0.15, 0.35)
        if edge == 0:
            pts = [(0, 0), (W, 0), (W * rng.uniform(0.6, 1), H * d0), (W * rng.uniform(0, 0.4), H * d0 * rng.uniform(0.6, 1.4))]
        elif edge == 1:
            pts = [(W, 0), (W, H), (W * (1 - d0), H * rng.uniform(0.6, 1)), (W * (1 - d0 * rng.uniform(0.6, 1.4)), 0)]
        elif edge == 2:
            pts = [(0, H), (W, H), (W * rng.uniform(0.6, 1), H * (1 - d0)), (W * rng.uniform(0, 0.4), H * (1 - d0))]
        else:
            pts = [(0, 0), (0, H), (W * d0, H * rng.uniform(0.6, 1)), (W * d0 * rng.uniform(0.6, 1.4), 0)]
        cv2.fillPoly(shm, [np.array(pts, np.int32)], 255)
        shs = cv2.GaussianBlur(shm, (0, 0), max(W, H) * 0.03).astype(np.float32) / 255
        over = float((shs * (fmask / 255.0)).max())
        strength = rng.uniform(0.2, 0.45) if over < 0.05 else rng.uniform(0.15, 0.3)
        L_ = L_ * (1 - strength * shs)
        shadow = "phone" if rng.random() < 0.6 else "hand"
        shadow += "_on_framed" if over > 0.05 else ""
    img *= L_[..., None]
    # colour cast (warm lamp, partly corrected by AWB)
    cast_kind = str(rng.choice(["warm", "warm", "warm", "neutral", "cool_led", "greenish"]))
    cast = {"warm": [rng.uniform(0.98, 1.05), rng.uniform(0.86, 0.93), rng.uniform(0.62, 0.78)],
            "neutral": [1.0, rng.uniform(0.97, 1.0), rng.uniform(0.93, 0.99)],
            "cool_led": [rng.uniform(0.88, 0.95), rng.uniform(0.95, 1.0), 1.02],
            "greenish": [rng.uniform(0.88, 0.94), 1.0, rng.uniform(0.8, 0.88)]}[cast_kind]
    img *= np.array(cast, np.float32)[None, None, :]
    # hot spot (glare)
    hot = 0.0
    if rng.random() < 0.45:
        hxp, hyp = rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H
        hs = rng.uniform(0.06, 0.16) * max(W, H)
        hot = rng.uniform(0.12, 0.35)
        spot = np.exp(-((xx - hxp) ** 2 + (yy - hyp) ** 2) / (2 * hs ** 2))
        img += (hot * 255 * spot)[..., None] * np.array([1.0, 0.95, 0.85], np.float32)
    # blur
    blur = "none"
    br = rng.random()
    if br < 0.18:
        sgm = rng.uniform(0.7, 1.5) * W / 1600
        img = cv2.GaussianBlur(img, (0, 0), sgm)
        blur = f"gauss{sgm:.1f}"
    elif br < 0.28:
        k = int(rng.integers(3, 7))
        ker = np.zeros((k, k), np.float32)
        ang = rng.uniform(0, 180)
        cv2.line(ker, (0, k // 2), (k - 1, k // 2), 1, 1)
        ker = cv2.warpAffine(ker, cv2.getRotationMatrix2D(((k - 1) / 2, (k - 1) / 2), ang, 1), (k, k))
        ker /= max(ker.sum(), 1e-6)
        img = cv2.filter2D(img, -1, ker)
        blur = f"motion{k}"
    # noise (low light): luma + chroma
    ns = (1.02 - exposure) * 14 + rng.uniform(1, 5)
    noise = nrng.normal(0, ns, (H, W, 1)).astype(np.float32)
    cn = cv2.resize(nrng.normal(0, ns * 0.6, (H // 2, W // 2, 3)).astype(np.float32), (W, H))
    img = img + noise + cn
    if src_w > W:  # phone sharpening of downscaled 4000px photo
        img = cv2.addWeighted(img, 1.35, cv2.GaussianBlur(img, (0, 0), 1.2), -0.35, 0)
    out = np.clip(img, 0, 255).astype(np.uint8)
    path = os.path.join(outdir, f"{case['qid']}.jpg")
    cv2.imwrite(path, cv2.cvtColor(out, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(case["jpeg_q"])])
    # ---- measurements ----
    corners = np.array([[ftext[0], ftext[1]], [ftext[2], ftext[1]], [ftext[2], ftext[3]], [ftext[0], ftext[3]]])
    qc = fwd_pts(corners, g, M)
    cen = fwd_pts(np.array([[(ftext[0] + ftext[2]) / 2, (ftext[1] + ftext[3]) / 2]]), g, M)[0]
    xs_, ys_ = fq[:, 0], fq[:, 1]
    # line height in photo px (text size)
    lh = fwd_pts(np.array([[ftext[0], ftext[1]], [ftext[0], ftext[1] + S]]), g, M)
    text_px = float(np.hypot(*(lh[1] - lh[0])))
    nfull = ncut = 0
    for b in others:
        t_ = b["text_box"]
        pts = box_pts([t_[0] + b["off"], t_[1] + offy, t_[2] + b["off"], t_[3] + offy], 5)
        p = fwd_pts(pts, g, M)
        ins = (p[:, 0] >= 0) & (p[:, 0] < W) & (p[:, 1] >= 0) & (p[:, 1] < H)
        if ins.all():
            nfull += 1
        elif ins.any():
            ncut += 1
    info = fb["info"]
    ql = entry["question"]
    lang_q = "en" if not has_cjk(ql) else ("mixed" if re.search(r"[A-Za-z]{2,}", ql) else "zh")
    row = dict(qid=case["qid"], expected_id=entry["id"], subject=subj, q_lang=lang_q, page_lang=lang,
               n_lines=info["n_lines"], family=case["family"], font_size_src=S, num_style=case["num_style"],
               score_note=info["score"], answer_space=info["answer_space"], filled=info["fill"], handwriting=info["handwriting"],
               crossed_out=int(info["crossed"]), teacher_mark=info["mark"], extra=info["extra"], extra_pos=info["extra_pos"],
               tinted_box=info["box"], col_frac=case["col_frac"], page_deco="+".join(deco), layout=case["layout"], page_side=side,
               neighbours=case["neighbours"], holder=holder_done, shadow=shadow, light_falloff=round(fall, 2), exposure=round(exposure, 2),
               hotspot=round(hot, 2), cast=cast_kind, noise_sigma=round(ns, 1), blur=blur, desk=desk_kind,
               rotation=rot, rot_extra_deg=round(small, 1), tilt=case["tilt"], tilt_k=round(math.hypot(kx, ky) * max(W, H), 3),
               zoom=zoom, position=case["position"], width=W, height=H, size_src=sname, jpeg_q=case["jpeg_q"],
               centre_dx=round((cen[0] - W / 2) / W, 4), centre_dy=round((cen[1] - H / 2) / H, 4),
               framed_w_frac=round((xs_.max() - xs_.min()) / W, 3), framed_h_frac=round((ys_.max() - ys_.min()) / H, 3),
               text_px=round(text_px, 1), page_cover=round(float(cov), 2), block_complete=int(block_ok), neighbours_full=nfull, neighbours_cut=ncut,
               truth_ok=int(info["truth_ok"]),
               framed_quad=" ".join(f"{v:.1f}" for v in qc.ravel()))
    return row, entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bank", required=True)
    ap.add_argument("outdir")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=351)
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    t0 = time.time()
    bank = [json.loads(l) for l in open(a.bank, encoding="utf-8") if l.strip()]
    os.makedirs(a.outdir, exist_ok=True)
    for p in glob.glob(os.path.join(a.outdir, "wb*.jpg")):
        os.remove(p)
    cases = plan_cases(bank, a.count, a.seed)
    jobs = [(c, bank, a.seed, a.outdir) for c in cases]
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs) as ex:
            results = list(ex.map(make_one, jobs, chunksize=1))
    else:
        results = [make_one(j) for j in jobs]
    rows = [r for r, _ in results]
    with open(os.path.join(a.outdir, "truth.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["qid", "text"])
        for r, e in results:
            w.writerow([r["qid"], e["question"]])
    with open(os.path.join(a.outdir, "queries.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for r, e in results:
            w.writerow([r["qid"], e["question"], e["id"], "exact"])
    with open(os.path.join(a.outdir, "cases.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} photos to {a.outdir} in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
