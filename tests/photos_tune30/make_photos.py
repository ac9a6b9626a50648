#!/usr/bin/env python3
"""Synthetic photo test set "tune30": problems shown on screens and boards.

A student photographs ONE problem shown on a laptop / tablet / phone / monitor
screen (homework app, class group chat, PDF viewer) or projected in class
(projector screen, interactive whiteboard, TV).  The framed problem sits near
the centre of the photo; other bank problems are partly or wholly visible
around it.

Usage:
    python tests/photos_tune30/make_photos.py --bank appliance/data/demo_bank.jsonl \
        OUTDIR --count 120 --seed 311 [--jobs N]

Only numpy, Pillow and OpenCV plus system fonts are used.  Every photo is drawn
from its own random stream (seed, index), so the output does not depend on
--jobs.  See README.md for the output format.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import sys
import time
import unicodedata
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------
NOTO = "/usr/share/fonts/opentype/noto/"
DJV = "/usr/share/fonts/truetype/dejavu/"
LIB = "/usr/share/fonts/truetype/liberation/"
FONT_FILES = {
    "sans_cjk": (NOTO + "NotoSansCJK-Regular.ttc", 2),      # Noto Sans CJK SC
    "sans_cjk_b": (NOTO + "NotoSansCJK-Bold.ttc", 2),
    "serif_cjk": (NOTO + "NotoSerifCJK-Regular.ttc", 2),    # Noto Serif CJK SC
    "serif_cjk_b": (NOTO + "NotoSerifCJK-Bold.ttc", 2),
    "dejavu": (DJV + "DejaVuSans.ttf", 0),
    "dejavu_b": (DJV + "DejaVuSans-Bold.ttf", 0),
    "dejavu_serif": (DJV + "DejaVuSerif.ttf", 0),
    "dejavu_serif_b": (DJV + "DejaVuSerif-Bold.ttf", 0),
    "lib_sans": (LIB + "LiberationSans-Regular.ttf", 0),
    "lib_sans_b": (LIB + "LiberationSans-Bold.ttf", 0),
    "lib_serif": (LIB + "LiberationSerif-Regular.ttf", 0),
    "lib_serif_b": (LIB + "LiberationSerif-Bold.ttf", 0),
    "mono": (DJV + "DejaVuSansMono.ttf", 0),
}
EMOJI_FONT = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"

FAMILIES = {
    "noto_sans": dict(cjk="sans_cjk", latin="sans_cjk", cjk_b="sans_cjk_b", latin_b="sans_cjk_b"),
    "noto_sans+dejavu": dict(cjk="sans_cjk", latin="dejavu", cjk_b="sans_cjk_b", latin_b="dejavu_b"),
    "noto_sans+liberation": dict(cjk="sans_cjk", latin="lib_sans", cjk_b="sans_cjk_b", latin_b="lib_sans_b"),
    "noto_serif": dict(cjk="serif_cjk", latin="serif_cjk", cjk_b="serif_cjk_b", latin_b="serif_cjk_b"),
    "noto_serif+liberation": dict(cjk="serif_cjk", latin="lib_serif", cjk_b="serif_cjk_b", latin_b="lib_serif_b"),
    "noto_serif+dejavu": dict(cjk="serif_cjk", latin="dejavu_serif", cjk_b="serif_cjk_b", latin_b="dejavu_serif_b"),
}
UI_FAMILIES = ["noto_sans", "noto_sans+dejavu", "noto_sans+liberation"]
DOC_FAMILIES = list(FAMILIES)


@lru_cache(maxsize=512)
def font(key: str, size: int) -> ImageFont.FreeTypeFont:
    path, idx = FONT_FILES[key]
    return ImageFont.truetype(path, max(5, int(size)), index=idx)


@lru_cache(maxsize=None)
def _notdef(key: str) -> bytes:
    return bytes(font(key, 24).getmask("\U0010FFFD"))


@lru_cache(maxsize=None)
def has_glyph(key: str, ch: str) -> bool:
    if ch == " ":
        return True
    return bytes(font(key, 24).getmask(ch)) != _notdef(key)


@lru_cache(maxsize=64)
def emoji_image(ch: str, size: int) -> Image.Image:
    f = ImageFont.truetype(EMOJI_FONT, 109)
    im = Image.new("RGBA", (160, 140), (0, 0, 0, 0))
    ImageDraw.Draw(im).text((4, 4), ch, font=f, embedded_color=True)
    bb = im.getbbox() or (0, 0, 136, 128)
    im = im.crop(bb)
    s = max(4, int(size))
    return im.resize((s, max(4, int(s * im.height / max(1, im.width)))), Image.LANCZOS)


def is_wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def is_emoji(ch: str) -> bool:
    o = ord(ch)
    return 0x1F300 <= o <= 0x1FAFF or 0x2600 <= o <= 0x27BF


def has_cjk(s: str) -> bool:
    return any(is_wide(c) for c in s)


def ui_font_key(s: str, fam: str, bold: bool) -> str:
    f = FAMILIES[fam]
    if all(ord(c) < 128 for c in s):
        return f["latin_b"] if bold else f["latin"]
    return f["cjk_b"] if bold else f["cjk"]


def ui_w(s: str, size: float, fam: str, bold: bool = False) -> float:
    return font(ui_font_key(s, fam, bold), int(round(size))).getlength(s)


# --------------------------------------------------------------------------
# rich text: superscripts, subscripts, blanks, CJK/latin wrapping
# --------------------------------------------------------------------------
SUP_MAP = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6",
           "⁷": "7", "⁸": "8", "⁹": "9", "ⁿ": "n", "⁺": "+", "⁻": "-"}
SUB_MAP = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6",
           "₇": "7", "₈": "8", "₉": "9", "ₙ": "n", "ₐ": "a", "ₓ": "x", "ₘ": "m",
           "₊": "+", "₋": "-"}
NO_START = set("，。、？！：；）》”’,.?!:;)]%】」』")
NO_END = set("（《“‘([【「『")


def is_special(q: str) -> bool:
    return "___" in q or any(c in SUP_MAP or c in SUB_MAP for c in q)


def atomize(text: str):
    out, i = [], 0
    while i < len(text):
        if text.startswith("___", i):
            j = i
            while j < len(text) and text[j] == "_":
                j += 1
            out.append((text[i:j], "blank"))
            i = j
            continue
        c = text[i]
        if c in SUP_MAP:
            out.append((SUP_MAP[c], "sup"))
        elif c in SUB_MAP:
            out.append((SUB_MAP[c], "sub"))
        elif is_emoji(c):
            out.append((c, "emoji"))
        elif c in "\ufe0f\u200d":
            pass
        else:
            out.append((c, "n"))
        i += 1
    return out


SPACE = "SPACE"


def make_units(atoms):
    units, cur = [], []

    def flush():
        nonlocal cur
        if cur:
            units.append(cur)
            cur = []

    for a in atoms:
        ch, kind = a
        if kind == "n" and ch == " ":
            flush()
            units.append(SPACE)
            continue
        if kind == "blank":
            flush()
            units.append([a])
            continue
        if kind == "n" and ch in NO_START:
            if cur:
                cur.append(a)
            elif units and units[-1] is not SPACE:
                units[-1].append(a)
            else:
                cur.append(a)
            continue
        wide = (kind == "n" and is_wide(ch)) or kind == "emoji"
        if wide:
            if cur and cur[-1][0] not in NO_END:
                flush()
            cur.append(a)
            if ch not in NO_END:
                flush()
        else:
            if cur and cur[-1][1] in ("n", "emoji") and (is_wide(cur[-1][0]) or cur[-1][1] == "emoji") \
                    and cur[-1][0] not in NO_END:
                flush()
            cur.append(a)
    flush()
    return units


class Style:
    """Typographic style of a question block."""

    def __init__(self, fs, fam, color, lh=1.5, bold=False, blank_em=2.6,
                 blank_style="line", hang=True, label_color=None, label_bold=False,
                 accent=(22, 119, 255)):
        self.fs = float(fs)
        self.fam = fam
        self.color = color
        self.lh = lh
        self.bold = bold
        self.blank_em = blank_em
        self.blank_style = blank_style
        self.hang = hang
        self.label_color = label_color or color
        self.label_bold = label_bold
        self.accent = accent

    def copy(self, **kw):
        s = Style(self.fs, self.fam, self.color)
        s.__dict__.update(self.__dict__)
        s.__dict__.update(kw)
        return s


def font_key_for(ch, fam, bold, cjk_ctx):
    f = FAMILIES[fam]
    ck = f["cjk_b"] if bold else f["cjk"]
    lk = f["latin_b"] if bold else f["latin"]
    if is_wide(ch):
        return ck
    if ch in "“”‘’" and cjk_ctx:
        return ck
    if has_glyph(lk, ch):
        return lk
    return ck


def unit_runs(unit, st: Style, cjk_ctx):
    fs = st.fs
    runs = []
    for ch, kind in unit:
        if kind == "blank":
            runs.append(["blank", ch, None, 0.0, st.blank_em * fs])
        elif kind == "emoji":
            runs.append(["emoji", ch, None, 0.0, 1.2 * fs])
        else:
            size = int(round(fs if kind == "n" else fs * 0.62))
            dy = 0.0 if kind == "n" else (-0.40 * fs if kind == "sup" else 0.16 * fs)
            key = font_key_for(ch, st.fam, st.bold, cjk_ctx)
            if runs and runs[-1][0] == "t" and runs[-1][2] == (key, size) and runs[-1][3] == dy:
                runs[-1][1] += ch
            else:
                runs.append(["t", ch, (key, size), dy, 0.0])
    for r in runs:
        if r[0] == "t":
            r[4] = font(*r[2]).getlength(r[1])
    return runs


class TextLayout:
    def __init__(self, text, st: Style, maxw, first_indent=0.0, rest_indent=0.0):
        self.text = text
        self.st = st
        cjk_ctx = has_cjk(text)
        units = make_units(atomize(text))
        lat = FAMILIES[st.fam]["latin_b" if st.bold else "latin"]
        space_w = font(lat, int(round(st.fs))).getlength(" ")
        self.lines = []          # list of (indent, [(x, runs)], width)
        cur, x, pend = [], 0.0, 0.0
        indent = first_indent
        for u in units:
            if u is SPACE:
                if cur:
                    pend += space_w
                continue
            runs = unit_runs(u, st, cjk_ctx)
            w = sum(r[4] for r in runs)
            avail = maxw - indent
            if cur and x + pend + w > avail:
                self.lines.append((indent, cur, x))
                cur, x, pend = [], 0.0, 0.0
                indent = rest_indent
            x += pend
            pend = 0.0
            cur.append((x, runs))
            x += w
        self.lines.append((indent, cur, x))
        self.lh_px = st.fs * st.lh

    @property
    def height(self):
        return len(self.lines) * self.lh_px

    @property
    def width(self):
        return max(ind + w for ind, _, w in self.lines)

    def baseline(self, i):
        fs = self.st.fs
        return i * self.lh_px + (self.lh_px - fs) / 2 + 0.86 * fs

    def draw(self, p, x, y, color=None):
        """Draw; return tight text box (x0, y0, x1, y1) in painter coords."""
        color = color or self.st.color
        fs = self.st.fs
        box = [1e9, 1e9, -1e9, -1e9]
        for i, (ind, units, w) in enumerate(self.lines):
            bl = y + self.baseline(i)
            for ux, runs in units:
                rx = x + ind + ux
                for kind, s, fk, dy, rw in runs:
                    if kind == "t":
                        p.text((rx, bl + dy), s, font(*fk), color)
                    elif kind == "blank":
                        if self.st.blank_style == "line":
                            th = max(1, int(round(fs / 15)))
                            p.rect((rx + 0.1 * fs, bl + 0.12 * fs, rx + rw - 0.1 * fs, bl + 0.12 * fs + th),
                                   fill=color)
                        else:
                            fk2 = font_key_for("_", self.st.fam, False, False)
                            f2 = font(fk2, int(round(fs)))
                            n = max(3, int(rw / max(1, f2.getlength("_"))))
                            p.text((rx, bl), "_" * n, f2, color)
                    elif kind == "emoji":
                        p.emoji(rx, bl - 0.95 * fs, rw, s)
                    rx += rw
            if units:
                box[0] = min(box[0], x + ind)
                box[2] = max(box[2], x + ind + w)
                box[1] = min(box[1], bl - 0.90 * fs)
                box[3] = max(box[3], bl + 0.14 * fs)
        return tuple(box)


# --------------------------------------------------------------------------
# painter with offset / measure mode
# --------------------------------------------------------------------------
class Painter:
    def __init__(self, img=None, dx=0.0, dy=0.0):
        self.img = img
        self.d = ImageDraw.Draw(img) if img is not None else None
        self.dx, self.dy = dx, dy
        self.W = img.width if img is not None else 0
        self.H = img.height if img is not None else 0

    @property
    def measure(self):
        return self.img is None

    def _b(self, box):
        x0, y0, x1, y1 = box
        return (x0 + self.dx, y0 + self.dy, x1 + self.dx, y1 + self.dy)

    def _vis(self, b):
        return not (b[2] < -2 or b[3] < -2 or b[0] > self.W + 2 or b[1] > self.H + 2)

    def rect(self, box, fill=None, outline=None, width=1, r=0):
        if self.measure:
            return
        b = self._b(box)
        if b[2] - b[0] < 0.5 or b[3] - b[1] < 0.5 or not self._vis(b):
            return
        width = max(1, int(round(width)))
        if r > 0:
            r = min(r, (b[2] - b[0]) / 2, (b[3] - b[1]) / 2)
            self.d.rounded_rectangle(b, radius=max(0, int(r)), fill=fill, outline=outline, width=width)
        else:
            self.d.rectangle(b, fill=fill, outline=outline, width=width)

    def ellipse(self, box, fill=None, outline=None, width=1):
        if self.measure:
            return
        b = self._b(box)
        if b[2] - b[0] < 0.5 or not self._vis(b):
            return
        self.d.ellipse(b, fill=fill, outline=outline, width=max(1, int(round(width))))

    def line(self, pts, fill, width=1):
        if self.measure:
            return
        pts = [(x + self.dx, y + self.dy) for x, y in pts]
        self.d.line(pts, fill=fill, width=max(1, int(round(width))), joint="curve")

    def polygon(self, pts, fill):
        if self.measure:
            return
        self.d.polygon([(x + self.dx, y + self.dy) for x, y in pts], fill=fill)

    def arc(self, box, start, end, fill, width=1):
        if self.measure:
            return
        self.d.arc(self._b(box), start, end, fill=fill, width=max(1, int(round(width))))

    def text(self, xy, s, fnt, fill, anchor="ls"):
        if self.measure or not s:
            return
        x, y = xy[0] + self.dx, xy[1] + self.dy
        sz = fnt.size
        if y < -2 * sz or y > self.H + 2 * sz or x > self.W + 2:
            return
        self.d.text((x, y), s, font=fnt, fill=fill, anchor=anchor)

    def ui(self, x, y, s, size, fam, fill, bold=False, anchor="ls"):
        """Single-line UI string; returns its width."""
        f = font(ui_font_key(s, fam, bold), int(round(size)))
        self.text((x, y), s, f, fill, anchor)
        return f.getlength(s)

    def emoji(self, x, y, size, ch):
        if self.measure:
            return
        im = emoji_image(ch, int(size))
        X, Y = int(x + self.dx), int(y + self.dy)
        if -im.width < X < self.W and -im.height < Y < self.H:
            self.img.paste(im, (X, Y), im)


def q_block(p: Painter, x, y, w, text, st: Style, label=None):
    """Draw a question with optional label at (x, y) within width w.

    label: None or dict(kind='inline'|'circle'|'heading', text=str, color=..., fill=...)
    Returns dict(h, box, nlines, label_box).
    """
    fs = st.fs
    y0 = y
    lab_box = None
    if label and label["kind"] == "heading":
        lf = font(ui_font_key(label["text"], st.fam, True), int(round(fs * 1.0)))
        p.text((x, y + fs * 1.0), label["text"], lf, label.get("color", st.label_color))
        lab_box = (x, y, x + lf.getlength(label["text"]), y + fs * 1.2)
        y += fs * 1.55
    lay_first = 0.0
    if label and label["kind"] == "inline":
        lf = font(ui_font_key(label["text"], st.fam, st.label_bold), int(round(fs)))
        lw = lf.getlength(label["text"])
        last = label["text"][-1]
        gap = fs * (0.08 if last in "、）" else (0.28 if last in ".:" else 0.35))
        lay_first = lw + gap
    elif label and label["kind"] == "circle":
        lay_first = fs * 1.45 + fs * 0.45
    rest = lay_first if (st.hang and lay_first <= 3.2 * fs) else 0.0
    lay = TextLayout(text, st, w, first_indent=lay_first, rest_indent=rest)
    if label and label["kind"] == "inline":
        bl = y + lay.baseline(0)
        p.text((x, bl), label["text"], lf, label.get("color", st.label_color))
        lab_box = (x, bl - 0.9 * fs, x + lw, bl + 0.15 * fs)
    elif label and label["kind"] == "circle":
        bl = y + lay.baseline(0)
        d = fs * 1.45
        cy = bl - 0.36 * fs
        p.ellipse((x, cy - d / 2, x + d, cy + d / 2), fill=label.get("fill", st.accent))
        lf = font(ui_font_key(label["text"], st.fam, True), int(round(fs * 0.82)))
        p.text((x + d / 2, cy), label["text"], lf, label.get("color", (255, 255, 255)), anchor="mm")
        lab_box = (x, cy - d / 2, x + d, cy + d / 2)
    box = lay.draw(p, x, y)
    return dict(h=(y - y0) + lay.height, box=box, nlines=len(lay.lines), label_box=lab_box)


# --------------------------------------------------------------------------
# labels
# --------------------------------------------------------------------------
LABEL_STYLES = ["1.", "1、", "(1)", "（1）", "①", "第1题", "Q1", "Question 1", "circle", "none"]
SUB_STYLES = ["(1)", "（1）", "①"]


def pick_sub_style(rng, main_style):
    if main_style in ("(1)", "（1）"):
        return "①"
    if main_style == "①":
        return rng.choice(["(1)", "（1）"])
    return rng.choice(SUB_STYLES)


def label_for(style, n, context):
    """context: 'app'|'chat'|'doc'|'slide'.  Returns label dict or None."""
    if style == "none":
        return None
    if style == "1.":
        return dict(kind="inline", text=f"{n}.")
    if style == "1、":
        return dict(kind="inline", text=f"{n}、")
    if style == "(1)":
        return dict(kind="inline", text=f"({n})")
    if style == "（1）":
        return dict(kind="inline", text=f"（{n}）")
    if style == "①":
        return dict(kind="inline", text=chr(0x2460 + (n - 1) % 20))
    if style == "第1题":
        if context == "app":
            return dict(kind="heading", text=f"第{n}题")
        return dict(kind="inline", text=f"第{n}题")
    if style == "Q1":
        return dict(kind="inline", text=f"Q{n}.")
    if style == "Question 1":
        if context == "chat":
            return dict(kind="inline", text=f"Question {n}:")
        return dict(kind="heading", text=f"Question {n}")
    if style == "circle":
        return dict(kind="circle", text=str(n))
    raise ValueError(style)


# --------------------------------------------------------------------------
# themes, icons, word pools
# --------------------------------------------------------------------------
ACCENTS = [(22, 119, 255), (7, 193, 96), (250, 140, 22), (114, 46, 209), (19, 170, 180),
           (235, 47, 150), (47, 84, 235), (245, 80, 60)]


def mix(a, b, t):
    return tuple(int(round(a[i] * (1 - t) + b[i] * t)) for i in range(3))


def make_theme(dark, accent):
    if not dark:
        return dict(dark=False, bg=(244, 245, 247), card=(255, 255, 255), text=(28, 30, 33),
                    sub=(128, 132, 138), faint=(196, 199, 204), border=(225, 228, 232),
                    input=(247, 248, 250), bar=(255, 255, 255), bar_text=(28, 30, 33),
                    accent=accent, accent_soft=mix(accent, (255, 255, 255), 0.86),
                    chat_bg=(237, 237, 237), bubble=(255, 255, 255), bubble_text=(25, 25, 25),
                    bubble_me=(149, 236, 105), bubble_me_text=(20, 20, 20), sep=(229, 229, 229),
                    panel=(247, 247, 247), chrome=(222, 225, 230), chrome2=(255, 255, 255))
    acc = mix(accent, (255, 255, 255), 0.18)
    return dict(dark=True, bg=(16, 17, 19), card=(31, 32, 35), text=(226, 228, 231),
                sub=(146, 149, 154), faint=(88, 90, 95), border=(54, 56, 60),
                input=(42, 44, 48), bar=(24, 25, 28), bar_text=(232, 232, 232),
                accent=acc, accent_soft=mix(accent, (31, 32, 35), 0.72),
                chat_bg=(17, 17, 17), bubble=(44, 44, 46), bubble_text=(228, 228, 228),
                bubble_me=(46, 150, 84), bubble_me_text=(236, 236, 236), sep=(44, 44, 46),
                panel=(25, 26, 28), chrome=(32, 33, 36), chrome2=(53, 54, 58))


def icon_back(p, x, cy, s, col, w):
    p.line([(x + s * 0.55, cy - s * 0.5), (x + s * 0.05, cy), (x + s * 0.55, cy + s * 0.5)], col, w)


def icon_menu(p, x, cy, s, col, w):
    for k in (-0.35, 0, 0.35):
        p.line([(x, cy + k * s), (x + s, cy + k * s)], col, w)


def icon_search(p, x, cy, s, col, w):
    r = s * 0.33
    p.ellipse((x, cy - r - s * 0.1, x + 2 * r, cy + r - s * 0.1), outline=col, width=w)
    p.line([(x + 1.7 * r, cy + 0.6 * r), (x + s * 0.9, cy + s * 0.42)], col, w)


def icon_dots(p, x, cy, s, col, vertical=False):
    r = s * 0.09
    for k in (-0.33, 0, 0.33):
        cx, yy = (x + s / 2, cy + k * s) if vertical else (x + s / 2 + k * s, cy)
        p.ellipse((cx - r, yy - r, cx + r, yy + r), fill=col)


def icon_clock(p, x, cy, s, col, w):
    r = s / 2
    p.ellipse((x, cy - r, x + s, cy + r), outline=col, width=w)
    p.line([(x + r, cy - r * 0.6), (x + r, cy), (x + r * 1.5, cy + r * 0.3)], col, w)


def icon_plus(p, x, cy, s, col, w, circle=True):
    if circle:
        p.ellipse((x, cy - s / 2, x + s, cy + s / 2), outline=col, width=w)
    p.line([(x + s * 0.28, cy), (x + s * 0.72, cy)], col, w)
    p.line([(x + s / 2, cy - s * 0.22), (x + s / 2, cy + s * 0.22)], col, w)


def icon_smile(p, x, cy, s, col, w):
    p.ellipse((x, cy - s / 2, x + s, cy + s / 2), outline=col, width=w)
    p.arc((x + s * 0.25, cy - s * 0.15, x + s * 0.75, cy + s * 0.3), 20, 160, col, w)


def icon_mic(p, x, cy, s, col, w):
    p.ellipse((x, cy - s / 2, x + s, cy + s / 2), outline=col, width=w)
    for k in (0.25, 0.4):
        p.arc((x + s * (0.5 - k), cy - s * k, x + s * (0.5 + k), cy + s * k), -50, 50, col, w)


def status_bar(p, W, h, u, col, fam, tstr, rng):
    p.ui(22 * u, h * 0.68, tstr, 15 * u, fam, col, bold=True)
    x = W - 28 * u
    p.rect((x - 22 * u, h * 0.42, x, h * 0.42 + 11 * u), outline=col, width=max(1, u), r=3 * u)
    lvl = rng.uniform(0.3, 0.95)
    p.rect((x - 20 * u, h * 0.42 + 2 * u, x - 20 * u + 18 * u * lvl, h * 0.42 + 9 * u), fill=col, r=1.5 * u)
    x -= 34 * u
    for i in range(4):
        bh = (3 + i * 2.5) * u
        p.rect((x + i * 4.5 * u, h * 0.42 + 11 * u - bh, x + i * 4.5 * u + 3 * u, h * 0.42 + 11 * u),
               fill=col)


def hhmm(rng, lo=7, hi=22):
    return f"{rng.randint(lo, hi)}:{rng.randint(0, 59):02d}"


APP_TITLES_ZH = ["作业", "数学作业 第5次", "课后练习", "单元测验", "今日作业", "周末作业", "寒假作业 Day 3", "每日一练"]
APP_TITLES_EN = ["Homework 5", "Unit 3 Quiz", "Practice Set", "Homework", "Weekly Review", "Exit Ticket"]
APP_BRANDS = ["青禾作业", "云课堂", "StudyBox", "ClassHub", "智学平台", "EduSpace"]
TABS_ZH = ["全部", "未完成", "已完成", "错题本"]
TABS_EN = ["All", "To do", "Done", "Review"]
QTYPE_ZH = ["单选题", "填空题", "解答题", "计算题", "简答题"]
QTYPE_EN = ["Multiple choice", "Fill in", "Short answer", "Calculation"]
STEMS_ZH = ["回答下列问题。", "完成下列各题。", "按要求作答。", "请独立完成下列各小题。", "解答下列各题。"]
STEMS_EN = ["Answer the following questions.", "Complete each of the following.", "Work out the following."]
SECTIONS_ZH = ["基础练习", "能力提升", "拓展题", "填空与计算", "解答题", "综合运用", "计算题"]
SECTIONS_EN = ["Part A", "Part B", "Part C", "Section 1: Basics", "Section 2: Practice"]
TEACHERS = [("王老师", "王"), ("李老师", "李"), ("张老师", "张"), ("数学-陈老师", "陈"), ("班主任 刘老师", "刘"),
            ("Ms. Li", "L"), ("Mr. Zhang", "Z"), ("物理 周老师", "周")]
STUDENTS = [("李明", "明"), ("张雨涵", "涵"), ("王子轩", "轩"), ("陈思远", "远"), ("刘欣怡", "怡"), ("赵一鸣", "鸣"),
            ("Kevin", "K"), ("Amy 林", "A"), ("孙悦", "悦"), ("周浩然", "浩"), ("小鱼", "鱼"), ("Tony", "T")]
REPLIES = ["收到", "收到！", "好的老师", "ok", "OK", "第3题怎么做？", "老师，第2题是不是少了条件？", "明白了",
           "Got it", "Thanks!", "👍", "收到🙏", "谢谢老师", "这题好难😂", "?", "交了", "已完成", "明天交吗？",
           "第1题答案是多少呀", "老师我不会第4题", "好的", "🙋"]
GROUPS = ["初二(3)班 数学群", "七年级2班家校群", "高一物理答疑群", "Class 8B English", "六(1)班 作业群",
          "九年级化学学习群", "初一(5)班", "Grade 7 Science"]
INTRO_ZH = ["今天的作业：", "同学们做一下这几题，明早交", "补充练习：", "课后思考题", "作业如下，拍照上传到平台",
            "今晚完成以下题目"]
INTRO_EN = ["Tonight's homework:", "Please try these:", "Extra practice:", "Homework due tomorrow:"]
PDF_NAMES = ["第三单元练习.pdf", "课后作业(5).pdf", "期中复习卷.pdf", "Worksheet_Unit3.pdf", "Homework_week5.pdf",
             "练习题-答题卡.pdf", "周测卷二.pdf"]
SLIDE_TITLES_ZH = ["课堂练习", "随堂检测", "巩固练习", "例题精讲", "课后作业", "当堂训练", "想一想"]
SLIDE_TITLES_EN = ["Warm-up", "Exercise", "Quick Check", "Practice", "Try it"]
SUBJ_ZH = dict(math="数学", physics="物理", chemistry="化学", biology="生物", geography="地理",
               history="历史", chinese="语文", english="英语")


def make_options(rng, q):
    t = q["question"]
    if "哪一年" in t or "In what year" in t:
        base = rng.randint(1000, 1990) if "前" not in t else rng.randint(200, 230)
        ys = rng.sample(range(base - 30, base + 30), 4)
        return [f"{y}年" if has_cjk(t) else str(y) for y in ys]
    if "作者是谁" in t or "谁" in t:
        return rng.sample(["李白", "杜甫", "鲁迅", "朱自清", "孟浩然", "王之涣", "诸葛亮", "苏轼", "范仲淹"], 4)
    if not has_cjk(t):
        if rng.random() < 0.5:
            return [str(v) for v in rng.sample(range(1, 60), 4)]
        return rng.sample(["went", "goes", "better", "best", "cheap", "the Nile", "newton", "cell",
                           "mitochondria", "1492", "for", "since"], 4)
    vals = rng.sample(range(2, 120), 4)
    return [str(v) for v in vals]


class Ctx:
    """Per-photo context shared by content renderers."""

    def __init__(self, rng, nrng, bank, target):
        self.rng, self.nrng, self.bank, self.target = rng, nrng, bank, target
        self.used = {target["id"]}
        self.meta = {}
        self.items = []          # (qid, box) in content coords

    def take(self, same_subject_p=0.6):
        rng = self.rng
        tl = has_cjk(self.target["question"])
        pool = [e for e in self.bank if e["id"] not in self.used]
        if not pool:
            pool = [e for e in self.bank if e["id"] != self.target["id"]]
        if rng.random() < same_subject_p:
            sub = [e for e in pool if e["subject"] == self.target["subject"]]
            if sub:
                pool = sub
        if rng.random() < 0.75:
            sub = [e for e in pool if has_cjk(e["question"]) == tl]
            if sub:
                pool = sub
        e = rng.choice(pool)
        self.used.add(e["id"])
        return e


def pill(p, x, y, text, size, fam, fg, bg, padx=0.55, bold=False, r=None):
    w = ui_w(text, size, fam, bold)
    h = size * 1.55
    p.rect((x, y, x + w + 2 * padx * size, y + h), fill=bg, r=(h / 2 if r is None else r))
    p.ui(x + padx * size, y + h * 0.5, text, size, fam, fg, bold=bold, anchor="lm")
    return w + 2 * padx * size, h


def shift_box(b, dx, dy):
    return (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)


# --------------------------------------------------------------------------
# desktop chrome (browser / OS) used by laptop & monitor screens
# --------------------------------------------------------------------------
def os_chrome(p, W, H, u, T, fam, rng, tab_title, url, browser=True):
    """Draw OS bars + browser; return (top, bottom) y of the free area."""
    top, bot = 0.0, float(H)
    style = rng.choice(["win", "mac"])
    dark = T["dark"]
    if style == "mac":
        mb = 24 * u
        p.rect((0, 0, W, mb), fill=(236, 236, 238) if not dark else (38, 38, 40))
        col = (30, 30, 30) if not dark else (230, 230, 230)
        x = 20 * u
        for w in (["Chrome", "文件", "编辑", "显示", "历史记录", "书签"] if browser else ["预览", "文件", "编辑", "显示"]):
            x += p.ui(x, mb * 0.72, w, 13 * u, fam, col, bold=(x < 30 * u)) + 18 * u
        p.ui(W - 14 * u, mb * 0.72, f"周三 {hhmm(rng)}", 13 * u, fam, col, anchor="rs")
        top = mb
    else:
        tb = 40 * u
        bot = H - tb
        p.rect((0, bot, W, H), fill=(32, 32, 36) if (dark or rng.random() < 0.6) else (230, 233, 238))
        x = 12 * u
        for i in range(6):
            c = [(0, 120, 215), (245, 190, 60), (66, 133, 244), (230, 230, 230), (16, 124, 65), (200, 60, 60)][i]
            p.rect((x, bot + 9 * u, x + 22 * u, bot + 31 * u), fill=c, r=4 * u)
            x += 38 * u
        p.ui(W - 16 * u, bot + 18 * u, hhmm(rng), 12 * u, fam, (235, 235, 235), anchor="rs")
        p.ui(W - 16 * u, bot + 34 * u, f"2024/{rng.randint(1, 12)}/{rng.randint(1, 28)}", 11 * u, fam,
             (235, 235, 235), anchor="rs")
    if browser:
        ts = 36 * u
        p.rect((0, top, W, top + ts), fill=T["chrome"])
        for i, (c) in enumerate([(255, 95, 87), (254, 188, 46), (40, 200, 64)]):
            if style == "mac":
                p.ellipse((12 * u + i * 20 * u, top + 12 * u, 24 * u + i * 20 * u, top + 24 * u), fill=c)
        x = 90 * u if style == "mac" else 10 * u
        p.rect((x, top + 6 * u, x + 230 * u, top + ts + 2 * u), fill=T["chrome2"], r=8 * u)
        p.ui(x + 14 * u, top + ts * 0.68, tab_title, 12.5 * u, fam, T["text"])
        p.ui(x + 250 * u, top + ts * 0.68, "新标签页", 12.5 * u, fam, T["sub"])
        top += ts
        ab = 40 * u
        p.rect((0, top, W, top + ab), fill=T["chrome2"])
        p.rect((0, top + ab - 1, W, top + ab), fill=T["border"])
        icon_back(p, 14 * u, top + ab / 2, 12 * u, T["sub"], 2 * u)
        p.rect((100 * u, top + 6 * u, W - 120 * u, top + ab - 6 * u), fill=T["input"], r=14 * u)
        p.ui(122 * u, top + ab * 0.66, url, 13 * u, fam, T["sub"])
        top += ab
    return top, bot


# --------------------------------------------------------------------------
# content 1: homework app / learning platform
# --------------------------------------------------------------------------
def app_card(p, x, y, w, e, num, ctx, st, feats, T, fam, u):
    """One problem card.  Returns (h, text_box)."""
    pad = 16 * u
    fs = st.fs
    rng_feats = feats  # all random choices were made by the caller

    def inner(pp):
        yy = y + pad
        if rng_feats["header"]:
            xx = x + pad
            tw, th = pill(pp, xx, yy, rng_feats["qtype"], fs * 0.72, fam, T["accent"], T["accent_soft"])
            if rng_feats["score"]:
                sw = ui_w(rng_feats["score"], fs * 0.72, fam, True) + fs * 0.8
                pill(pp, x + w - pad - sw, yy, rng_feats["score"], fs * 0.72, fam,
                     rng_feats["score_fg"], rng_feats["score_bg"], bold=True, padx=0.55)
            yy += th + fs * 0.6
        lab = label_for(feats["label_style"], num, "app")
        res = q_block(pp, x + pad, yy, w - 2 * pad, e["question"], st, lab)
        yy += res["h"] + fs * 0.5
        if rng_feats["options"]:
            opts = rng_feats["options"]
            two = w > 26 * fs
            colw = (w - 2 * pad) / (2 if two else 1)
            for i, o in enumerate(opts):
                cx = x + pad + (i % 2) * colw if two else x + pad
                cy = yy + (i // 2 if two else i) * fs * 2.0
                sel = rng_feats["selected"] == i
                r = fs * 0.5
                pp.ellipse((cx, cy + fs * 0.5 - r, cx + 2 * r, cy + fs * 0.5 + r),
                           outline=T["accent"] if sel else T["faint"], width=max(1, fs / 12))
                if sel:
                    pp.ellipse((cx + r * 0.45, cy + fs * 0.5 - r * 0.55, cx + r * 1.55, cy + fs * 0.5 + r * 0.55),
                               fill=T["accent"])
                pp.ui(cx + 2 * r + fs * 0.5, cy + fs * 0.86, f"{'ABCD'[i]}. {o}", fs * 0.95, fam, T["text"])
            yy += (2 if two else 4) * fs * 2.0
        if rng_feats["input"]:
            pp.rect((x + pad, yy, x + w - pad, yy + fs * 2.3), fill=T["input"], outline=T["border"],
                    width=max(1, u), r=6 * u)
            pp.ui(x + pad + fs * 0.6, yy + fs * 1.5, rng_feats["input"], fs * 0.88, fam,
                  T["text"] if rng_feats["typed"] else T["sub"])
            yy += fs * 2.3 + fs * 0.6
        if rng_feats["hint"]:
            pp.ui(x + pad, yy + fs * 0.9, rng_feats["hint"], fs * 0.85, fam, T["accent"])
            if rng_feats["upload"]:
                pp.ui(x + w - pad, yy + fs * 0.9, rng_feats["upload"], fs * 0.85, fam, T["sub"], anchor="rs")
            yy += fs * 1.5
        return yy + pad - y, res

    h, _ = inner(Painter(None))
    if feats["card_style"] == "card":
        p.rect((x, y, x + w, y + h), fill=T["card"], r=12 * u,
               outline=T["border"] if not T["dark"] else None, width=max(1, u))
    else:
        p.rect((x, y + h - max(1, u), x + w, y + h), fill=T["border"])
    _, res = inner(p)
    return h, res


def render_app(ctx, scr):
    rng, u = ctx.rng, scr["u"]
    T = make_theme(scr["dark"], rng.choice(ACCENTS))
    fam = ctx.fam_ui
    lang = ctx.lang
    W, H = scr["W"], scr["H"]
    dev = scr["kind"]
    img = Image.new("RGB", (W, H), T["bg"])
    fs = ctx.fc
    st = Style(fs, ctx.fam_doc, T["text"], lh=rng.uniform(1.45, 1.7), blank_style=ctx.blank_style,
               hang=rng.random() < 0.7, label_color=T["text"], label_bold=rng.random() < 0.5, accent=T["accent"])
    title = rng.choice(APP_TITLES_ZH if lang == "zh" else APP_TITLES_EN)
    ntot = rng.randint(8, 20)
    n_items = rng.randint(5, 8)
    t_idx = rng.choice([0] + [1, 2, 3] * 3) if n_items > 4 else 1
    n0 = rng.randint(1, max(1, ntot - n_items + 1))
    cur_num = n0 + t_idx
    # regions -------------------------------------------------------------
    top, bot = 0.0, float(H)
    pre = []            # chrome drawn after the scroll area
    if dev == "phone":
        top = 44 * u
    if dev in ("laptop", "monitor"):
        pre.append("os")
    side = dev in ("laptop", "monitor") and rng.random() < 0.55
    tabs = rng.random() < 0.55
    bottom_bar = dev in ("phone", "tablet") and rng.random() < 0.8
    # estimate chrome heights
    os_seed = rng.random()
    if "os" in pre:
        top, bot = os_chrome(Painter(None), W, H, u, T, fam, random.Random(os_seed), "", "", True)
    appbar_y = top
    top += 54 * u
    prog_y = top
    top += 36 * u
    tabs_y = top
    if tabs:
        top += 42 * u
    if bottom_bar:
        bot -= 64 * u
    vx0, vx1 = 0.0, float(W)
    if side:
        vx0 = 250 * u
    vy0, vy1 = top, bot
    vw = vx1 - vx0
    two_col = (vw > 900 * u and rng.random() < 0.55) or (dev == "tablet" and W > H and rng.random() < 0.5)
    margin = 12 * u if dev == "phone" else 24 * u
    if two_col:
        colw = (min(vw - 2 * margin, 1300 * u) - 16 * u) / 2
        if ctx.max_text_w:
            colw = max(min(colw, ctx.max_text_w + 32 * u), 14 * fs)
        cx0 = vx0 + (vw - (2 * colw + 16 * u)) / 2
        cols = [cx0, cx0 + colw + 16 * u]
    else:
        colw = min(vw - 2 * margin, rng.uniform(640, 820) * u)
        if ctx.max_text_w:
            colw = max(min(colw, ctx.max_text_w + 32 * u), 12 * fs)
        cols = [vx0 + (vw - colw) / 2]
    card_style = "card" if rng.random() < 0.8 else "flat"
    entries = []
    for i in range(n_items):
        entries.append(ctx.target if i == t_idx else ctx.take())
    label_style = ctx.label_style
    feats_list = []
    for i, e in enumerate(entries):
        has_opt = rng.random() < 0.3
        qtype = (QTYPE_ZH if lang == "zh" else QTYPE_EN)[0 if has_opt else rng.randint(1, 3)]
        score = None
        sfg, sbg = T["accent"], T["accent_soft"]
        if rng.random() < 0.6:
            pts = rng.choice([2, 3, 4, 5, 6, 10])
            if rng.random() < 0.35:
                got = rng.randint(0, pts)
                score = f"{got}/{pts}" + ("分" if lang == "zh" else "")
                sfg, sbg = ((35, 150, 70), mix((35, 150, 70), T["card"], 0.85)) if got == pts else \
                    ((220, 80, 50), mix((220, 80, 50), T["card"], 0.85))
            else:
                score = f"{pts}分" if lang == "zh" else f"{pts} pts"
        inp = None
        typed = False
        if not has_opt and rng.random() < 0.55:
            if rng.random() < 0.2:
                inp, typed = rng.choice(["x = 5", "12", "答：", "40", "H2O"]), True
            else:
                inp = rng.choice(["请输入答案", "在此作答…", "输入你的答案"] if lang == "zh" else
                                 ["Type your answer", "Your answer"])
        hint = None
        upload = None
        if rng.random() < 0.4:
            hint = rng.choice(["查看提示 ›", "提示", "看解析"] if lang == "zh" else ["Hint", "Show hint ›"])
            if rng.random() < 0.4:
                upload = "拍照上传" if lang == "zh" else "Upload photo"
        feats_list.append(dict(header=rng.random() < 0.7, qtype=qtype, score=score, score_fg=sfg, score_bg=sbg,
                               options=make_options(rng, e) if has_opt else None,
                               selected=rng.choice([None, None, 0, 1, 2, 3]), input=inp, typed=typed,
                               hint=hint, upload=upload, label_style=label_style, card_style=card_style))
    # measure pass ------------------------------------------------------
    gap = (14 if card_style == "card" else 4) * u

    def place(pp):
        ys = [0.0] * len(cols)
        res = []
        for i, e in enumerate(entries):
            c = int(np.argmin(ys)) if len(cols) > 1 else 0
            h, r = app_card(pp, cols[c], ys[c], colw, e, n0 + i, ctx, st, feats_list[i], T, fam, u)
            res.append((e["id"], r["box"], r["nlines"], (cols[c], ys[c], cols[c] + colw, ys[c] + h)))
            ys[c] += h + gap
        return res, max(ys)

    res, total = place(Painter(None))
    tb = res[t_idx][1]
    vh = vy1 - vy0
    lo = tb[3] - vh * 0.8
    hi = tb[1] - vh * 0.2
    scroll = rng.uniform(min(lo, hi), max(lo, hi)) if total > vh else 0.0
    scroll = max(-gap, min(scroll, total - vh * 0.6))
    dy = vy0 + gap - scroll
    p = Painter(img, 0, dy)
    res, _ = place(p)
    for qid, b, nl, cb in res:
        ctx.items.append((qid, shift_box(b, 0, dy)))
    tbox = shift_box(res[t_idx][1], 0, dy)
    nlines = res[t_idx][2]
    # chrome on top -------------------------------------------------------
    p = Painter(img)
    if "os" in pre:
        p.rect((0, 0, W, appbar_y), fill=T["bg"])
        os_chrome(p, W, H, u, T, fam, random.Random(os_seed),
                  f"{title} - {rng.choice(APP_BRANDS)}", f"https://hw.{rng.choice(['qinghe', 'yunketang', 'studybox'])}-edu.cn/task/{rng.randint(100, 999)}", True)
    if dev == "phone":
        p.rect((0, 0, W, 44 * u), fill=T["bar"])
        status_bar(p, W, 44 * u, u, T["bar_text"], fam, hhmm(rng), rng)
    p.rect((0, appbar_y, W, appbar_y + 54 * u), fill=T["bar"] if rng.random() < 0.6 else T["accent"])
    bar_is_acc = img.getpixel((int(W / 2), int(appbar_y + 2 * u))) == tuple(T["accent"])
    btc = (255, 255, 255) if bar_is_acc else T["bar_text"]
    icon_back(p, 16 * u, appbar_y + 27 * u, 14 * u, btc, 2.2 * u)
    p.ui(W / 2, appbar_y + 27 * u, title, 17 * u, fam, btc, bold=True, anchor="mm")
    icon_clock(p, W - 100 * u, appbar_y + 27 * u, 15 * u, btc, 1.6 * u)
    tm = f"{rng.randint(0, 44):02d}:{rng.randint(0, 59):02d}"
    p.ui(W - 80 * u, appbar_y + 27 * u, (("剩余 " if lang == "zh" else "") if rng.random() < 0.4 else "") + tm,
         14 * u, fam, btc, anchor="lm")
    p.rect((0, prog_y, W, prog_y + 36 * u), fill=T["bar"])
    prog = f"{cur_num}/{ntot}" if rng.random() < 0.6 else (f"已答 {cur_num - 1}/{ntot}" if lang == "zh" else f"Answered {cur_num - 1} of {ntot}")
    pw = p.ui(16 * u, prog_y + 22 * u, prog, 13 * u, fam, T["sub"])
    bx0, bx1 = 16 * u + pw + 14 * u, W - 16 * u
    p.rect((bx0, prog_y + 15 * u, bx1, prog_y + 21 * u), fill=T["border"], r=3 * u)
    p.rect((bx0, prog_y + 15 * u, bx0 + (bx1 - bx0) * (cur_num - 1) / ntot, prog_y + 21 * u), fill=T["accent"], r=3 * u)
    if tabs:
        p.rect((0, tabs_y, W, tabs_y + 42 * u), fill=T["bar"])
        p.rect((0, tabs_y + 42 * u - 1, W, tabs_y + 42 * u), fill=T["border"])
        tl = TABS_ZH if lang == "zh" else TABS_EN
        sel = rng.randrange(len(tl))
        tw = min(W, 560 * u) / len(tl)
        for i, t in enumerate(tl):
            cxx = vx0 + (i + 0.5) * tw
            p.ui(cxx, tabs_y + 22 * u, t, 14 * u, fam, T["accent"] if i == sel else T["sub"], bold=i == sel,
                 anchor="mm")
            if i == sel:
                p.rect((cxx - 14 * u, tabs_y + 36 * u, cxx + 14 * u, tabs_y + 39 * u), fill=T["accent"], r=1.5 * u)
    if side:
        p.rect((0, vy0 - (42 * u if tabs else 0), vx0, bot), fill=T["card"])
        p.rect((vx0 - 1, vy0, vx0, bot), fill=T["border"])
        p.ui(20 * u, vy0 + 30 * u, "答题卡" if lang == "zh" else "Questions", 15 * u, fam, T["text"], bold=True)
        cs = 36 * u
        for k in range(ntot):
            r_, c_ = divmod(k, 5)
            xx, yy = 20 * u + c_ * (cs + 8 * u), vy0 + 50 * u + r_ * (cs + 8 * u)
            n = k + 1
            done = n < cur_num or rng.random() < 0.15
            if n == cur_num:
                p.rect((xx, yy, xx + cs, yy + cs), outline=T["accent"], width=2 * u, r=6 * u)
                col = T["accent"]
            elif done:
                p.rect((xx, yy, xx + cs, yy + cs), fill=T["accent_soft"], r=6 * u)
                col = T["accent"]
            else:
                p.rect((xx, yy, xx + cs, yy + cs), outline=T["border"], width=max(1, u), r=6 * u)
                col = T["sub"]
            p.ui(xx + cs / 2, yy + cs / 2, str(n), 13 * u, fam, col, anchor="mm")
    if bottom_bar:
        p.rect((0, bot, W, bot + 64 * u), fill=T["bar"])
        p.rect((0, bot, W, bot + 1), fill=T["border"])
        bl = ("上一题", "提交") if lang == "zh" else ("Previous", "Submit")
        if rng.random() < 0.5:
            p.rect((16 * u, bot + 12 * u, W / 2 - 8 * u, bot + 52 * u), outline=T["border"], width=max(1, u), r=20 * u)
            p.ui(W / 4 + 4 * u, bot + 32 * u, bl[0], 15 * u, fam, T["text"], anchor="mm")
            p.rect((W / 2 + 8 * u, bot + 12 * u, W - 16 * u, bot + 52 * u), fill=T["accent"], r=20 * u)
            p.ui(W * 3 / 4 - 4 * u, bot + 32 * u, bl[1], 15 * u, fam, (255, 255, 255), bold=True, anchor="mm")
        else:
            p.rect((16 * u, bot + 12 * u, W - 16 * u, bot + 52 * u), fill=T["accent"], r=20 * u)
            p.ui(W / 2, bot + 32 * u, bl[1] + (f"（{cur_num - 1}/{ntot}）" if lang == "zh" else ""), 15 * u, fam,
                 (255, 255, 255), bold=True, anchor="mm")
    elif dev in ("laptop", "monitor", "projector"):
        bw = 120 * u
        p.rect((W - bw - 30 * u, bot - 64 * u, W - 30 * u, bot - 22 * u), fill=T["accent"], r=21 * u)
        p.ui(W - bw / 2 - 30 * u, bot - 43 * u, "提交" if lang == "zh" else "Submit", 15 * u, fam,
             (255, 255, 255), bold=True, anchor="mm")
    ctx.meta.update(content="app", columns=2 if two_col else 1, options_shown=int(bool(feats_list[t_idx]["options"])),
                    input_box=int(bool(feats_list[t_idx]["input"])), hint_link=int(bool(feats_list[t_idx]["hint"])),
                    score_badge=int(bool(feats_list[t_idx]["score"] and feats_list[t_idx]["header"])),
                    label_text=(label_for(label_style, cur_num, "app") or {}).get("text", ""),
                    in_group=0, group_stem="", n_problems_drawn=n_items, side_panel=int(side), tabs=int(tabs))
    return img, tbox, nlines, T


# --------------------------------------------------------------------------
# content 2: class group chat
# --------------------------------------------------------------------------
def avatar(p, x, y, s, ch, color, fam, round_=False):
    p.rect((x, y, x + s, y + s), fill=color, r=(s / 2 if round_ else s * 0.16))
    p.ui(x + s / 2, y + s / 2, ch, s * 0.45, fam, (255, 255, 255), bold=True, anchor="mm")


AV_COLORS = [(91, 143, 249), (97, 221, 170), (246, 189, 22), (232, 104, 74), (154, 96, 180), (38, 154, 153),
             (255, 152, 69), (120, 120, 130), (214, 87, 140)]


def bubble_contents(pp, x, y, maxw, segs, st, T, gap):
    """Draw bubble segments; return (w, h, [(qid, box, nlines)])."""
    yy = y
    w = 0.0
    out = []
    for i, s in enumerate(segs):
        if i:
            yy += gap
        if s[0] == "text":
            lay = TextLayout(s[1], st, maxw)
            lay.draw(pp, x, yy)
            w = max(w, lay.width)
            yy += lay.height
        else:
            e, lab = s[1], s[2]
            r = q_block(pp, x, yy, maxw, e["question"], st, lab)
            ww = r["box"][2] - x
            if r["label_box"]:
                ww = max(ww, r["label_box"][2] - x)
            w = max(w, ww)
            out.append((e["id"], r["box"], r["nlines"]))
            yy += r["h"]
    return w, yy - y, out


def render_chat(ctx, scr):
    rng, u = ctx.rng, scr["u"]
    dark = scr["dark"]
    T = make_theme(dark, rng.choice([(7, 193, 96), (22, 119, 255), (47, 84, 235)]))
    fam = ctx.fam_ui
    W, H = scr["W"], scr["H"]
    dev = scr["kind"]
    img = Image.new("RGB", (W, H), T["chat_bg"])
    fs = ctx.fc
    desktop = dev in ("laptop", "monitor") or (dev == "tablet" and W > H)
    st = Style(fs, fam, T["bubble_text"], lh=rng.uniform(1.35, 1.6), blank_style=ctx.blank_style,
               hang=rng.random() < 0.5, label_color=T["bubble_text"], accent=T["accent"])
    group = rng.choice(GROUPS)
    members = rng.randint(25, 60)
    os_seed = rng.random()
    if desktop:
        top, bot = (0.0, float(H))
        if dev in ("laptop", "monitor"):
            top, bot = os_chrome(Painter(None), W, H, u, T, fam, random.Random(os_seed), "", "", browser=False)
        list_w = (300 if dev == "tablet" else 270) * u
        hdr = 56 * u
        inp = 140 * u
        ax0, ay0, ax1, ay1 = list_w, top + hdr, float(W), bot - inp
        av = 36 * u
    else:
        top = 44 * u + 50 * u
        ax0, ay0, ax1, ay1 = 0.0, top, float(W), H - 76 * u
        av = 40 * u
    aw = ax1 - ax0
    pad_x = 12 * u
    bpad = max(8 * u, fs * 0.6)
    maxbw = aw * rng.uniform(0.6, 0.72)
    if ctx.max_text_w:
        maxbw = max(min(maxbw, ctx.max_text_w + 2 * bpad), 10 * fs)
    name_fs = max(11 * u, fs * 0.72)
    teacher = rng.choice(TEACHERS)
    tcol = rng.choice(AV_COLORS)
    lang = ctx.lang
    round_av = rng.random() < 0.4
    show_names = rng.random() < 0.85
    # ---- message list ------------------------------------------------------
    msgs = []

    def stu():
        n, c = rng.choice(STUDENTS)
        return n, c, rng.choice(AV_COLORS)

    msgs.append(("time", ("昨天 " if rng.random() < 0.3 else "") + hhmm(rng, 17, 21)))
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.55:
            n, c, col = stu()
            msgs.append(("left", n, c, col, [("text", rng.choice(REPLIES))]))
        elif r < 0.7:
            msgs.append(("file", teacher, tcol, rng.choice(PDF_NAMES), f"{rng.uniform(0.2, 3.5):.1f} MB"))
        elif r < 0.8:
            msgs.append(("self", [("text", rng.choice(REPLIES))]))
        else:
            n, c = rng.choice(STUDENTS)
            msgs.append(("system", f"“{n}” 撤回了一条消息" if lang == "zh" else f"{n} joined the group"))
    if rng.random() < 0.5:
        msgs.append(("time", hhmm(rng, 18, 22)))
    mode = rng.choice(["single", "single", "multi", "intro+multi"])
    ls = ctx.label_style
    t_msg = None
    if mode == "single":
        nb = rng.randint(2, 4)
        tpos = rng.randrange(nb)
        n0 = rng.randint(1, 5)
        for i in range(nb):
            e = ctx.target if i == tpos else ctx.take()
            lab = label_for(ls, n0 + i, "chat")
            if i == tpos:
                t_msg = len(msgs)
                t_lab = lab
            msgs.append(("left", teacher[0], teacher[1], tcol, [("q", e, lab)]))
        n_in_bubble = 1
    else:
        k = rng.randint(2, 4)
        tpos = rng.randrange(k)
        n0 = rng.randint(1, 4)
        segs = []
        if mode == "intro+multi":
            segs.append(("text", rng.choice(INTRO_ZH if has_cjk(ctx.target["question"]) else INTRO_EN)))
        if ls == "none" and rng.random() < 0.5:
            ls = rng.choice(["1.", "1、", "(1)", "①"])
        for i in range(k):
            e = ctx.target if i == tpos else ctx.take()
            lab = label_for(ls, n0 + i, "chat")
            if i == tpos:
                t_lab = lab
            segs.append(("q", e, lab))
        t_msg = len(msgs)
        msgs.append(("left", teacher[0], teacher[1], tcol, segs))
        n_in_bubble = k
    for _ in range(rng.randint(2, 4)):
        r = rng.random()
        if r < 0.62 or (r >= 0.8 and msgs[-1][0] == "self"):
            n, c, col = stu()
            msgs.append(("left", n, c, col, [("text", rng.choice(REPLIES))]))
        elif r < 0.8:
            msgs.append(("voice", rng.randint(2, 25)))
        else:
            msgs.append(("self", [("text", rng.choice(REPLIES))]))
    # ---- draw messages -----------------------------------------------------
    gap = fs * 0.35

    def draw_msgs(pp):
        y = 14 * u
        qres = []
        t_res = None
        for mi, m in enumerate(msgs):
            kind = m[0]
            if kind == "time":
                pp.ui(ax0 + aw / 2, y + 10 * u, m[1], 12 * u, fam, T["sub"], anchor="mm")
                y += 32 * u
            elif kind == "system":
                w = ui_w(m[1], 12 * u, fam) + 16 * u
                pp.rect((ax0 + aw / 2 - w / 2, y, ax0 + aw / 2 + w / 2, y + 22 * u), fill=T["sep"], r=4 * u)
                pp.ui(ax0 + aw / 2, y + 11 * u, m[1], 12 * u, fam, T["sub"], anchor="mm")
                y += 36 * u
            elif kind in ("left", "file", "voice"):
                if kind == "left":
                    name, ch, col, segs = m[1], m[2], m[3], m[4]
                elif kind == "file":
                    name, ch, col = m[1][0], m[1][1], m[2]
                else:
                    n, c = STUDENTS[m[1] % len(STUDENTS)]
                    name, ch, col = n, c, AV_COLORS[m[1] % len(AV_COLORS)]
                x = ax0 + pad_x
                y_av = y
                avatar(pp, x, y, av, ch, col, fam, round_av)
                bx = x + av + 10 * u
                by = y
                if show_names:
                    pp.ui(bx, y + name_fs * 0.95, name, name_fs, fam, T["sub"])
                    by = y + name_fs * 1.45
                if kind == "left":
                    w, h, qs = bubble_contents(Painter(None), 0, 0, maxbw - 2 * bpad, segs, st, T, gap)
                    bw, bh = w + 2 * bpad, h + 2 * bpad * 0.8
                    pp.rect((bx, by, bx + bw, by + bh), fill=T["bubble"], r=6 * u)
                    pp.polygon([(bx, by + 12 * u), (bx - 6 * u, by + 17 * u), (bx, by + 22 * u)], T["bubble"])
                    _, _, qs = bubble_contents(pp, bx + bpad, by + bpad * 0.8, maxbw - 2 * bpad, segs, st, T, gap)
                    for q in qs:
                        qres.append(q)
                        if mi == t_msg and q[0] == ctx.target["id"]:
                            t_res = q
                    y = by + bh
                elif kind == "file":
                    fw, fh = min(maxbw, 250 * u), 70 * u
                    pp.rect((bx, by, bx + fw, by + fh), fill=T["bubble"], r=6 * u)
                    pp.ui(bx + 12 * u, by + 26 * u, m[3], 14 * u, fam, T["bubble_text"])
                    pp.ui(bx + 12 * u, by + 52 * u, m[4], 12 * u, fam, T["sub"])
                    pp.rect((bx + fw - 48 * u, by + 14 * u, bx + fw - 12 * u, by + 56 * u), fill=(230, 67, 64), r=3 * u)
                    pp.ui(bx + fw - 30 * u, by + 35 * u, "PDF", 10 * u, fam, (255, 255, 255), bold=True, anchor="mm")
                    y = by + fh
                else:
                    vw = (70 + 6 * m[1]) * u
                    pp.rect((bx, by, bx + vw, by + 40 * u), fill=T["bubble"], r=6 * u)
                    for kk in (0.3, 0.55):
                        pp.arc((bx + 12 * u - kk * 20 * u, by + 20 * u - kk * 20 * u, bx + 12 * u + kk * 20 * u,
                                by + 20 * u + kk * 20 * u), -45, 45, T["bubble_text"], 2 * u)
                    pp.ui(bx + 36 * u, by + 26 * u, f"{m[1]}\"", 14 * u, fam, T["bubble_text"])
                    y = by + 40 * u
                y = max(y, y_av + av) + 16 * u
            elif kind == "self":
                segs = m[1]
                x1 = ax1 - pad_x
                avatar(pp, x1 - av, y, av, "我" if lang == "zh" else "Me", (90, 110, 140), fam, round_av)
                w, h, _ = bubble_contents(Painter(None), 0, 0, maxbw - 2 * bpad, segs, st, T, gap)
                bw, bh = w + 2 * bpad, h + 2 * bpad * 0.8
                bx1 = x1 - av - 10 * u
                pp.rect((bx1 - bw, y, bx1, y + bh), fill=T["bubble_me"], r=6 * u)
                pp.polygon([(bx1, y + 12 * u), (bx1 + 6 * u, y + 17 * u), (bx1, y + 22 * u)], T["bubble_me"])
                bubble_contents(pp, bx1 - bw + bpad, y + bpad * 0.8, maxbw - 2 * bpad, segs,
                                st.copy(color=T["bubble_me_text"]), T, gap)
                y += max(bh, av) + 16 * u
        return y, qres, t_res

    total, _, t_res = draw_msgs(Painter(None))
    vh = ay1 - ay0
    tb = t_res[1]
    lo, hi = tb[3] - vh * 0.85, tb[1] - vh * 0.15
    scroll = rng.uniform(min(lo, hi), max(lo, hi))
    scroll = min(scroll, total - vh + 10 * u) if total > vh else min(scroll, 0)
    dy = ay0 - scroll
    p = Painter(img, 0, dy)
    _, qres, t_res = draw_msgs(p)
    for q in qres:
        ctx.items.append((q[0], shift_box(q[1], 0, dy)))
    tbox = shift_box(t_res[1], 0, dy)
    # ---- chrome ------------------------------------------------------------
    p = Painter(img)
    if desktop:
        if dev in ("laptop", "monitor"):
            os_chrome(p, W, H, u, T, fam, random.Random(os_seed), "", "", browser=False)
        p.rect((0, top, list_w, bot), fill=T["panel"])
        p.rect((list_w - 1, top, list_w, bot), fill=T["border"])
        p.rect((14 * u, top + 14 * u, list_w - 14 * u, top + 44 * u), fill=T["input"], r=6 * u)
        icon_search(p, 24 * u, top + 29 * u, 14 * u, T["sub"], 1.5 * u)
        p.ui(46 * u, top + 34 * u, "搜索" if lang == "zh" else "Search", 13 * u, fam, T["sub"])
        yy = top + 58 * u
        names = [group] + rng.sample(GROUPS + [n for n, _ in STUDENTS], 9)
        for i, nm in enumerate(names):
            if yy > bot:
                break
            if i == 0:
                p.rect((0, yy, list_w - 1, yy + 68 * u), fill=T["sep"] if not dark else (44, 45, 48))
            avatar(p, 14 * u, yy + 12 * u, 44 * u, nm[0], AV_COLORS[i % len(AV_COLORS)], fam, round_av)
            p.ui(68 * u, yy + 30 * u, nm[:11], 14 * u, fam, T["text"])
            p.ui(68 * u, yy + 53 * u, rng.choice(REPLIES)[:10], 12 * u, fam, T["sub"])
            p.ui(list_w - 12 * u, yy + 30 * u, hhmm(rng), 11 * u, fam, T["sub"], anchor="rs")
            yy += 68 * u
        p.rect((list_w, top, W, ay0), fill=T["chat_bg"])
        p.rect((list_w, ay0 - 1, W, ay0), fill=T["border"])
        p.ui(list_w + 20 * u, top + 36 * u, f"{group}({members})", 16 * u, fam, T["text"])
        icon_dots(p, W - 44 * u, top + 28 * u, 22 * u, T["sub"])
        p.rect((list_w, ay1, W, bot), fill=T["chat_bg"] if not dark else (24, 24, 26))
        p.rect((list_w, ay1, W, ay1 + 1), fill=T["border"])
        icon_smile(p, list_w + 20 * u, ay1 + 22 * u, 20 * u, T["sub"], 1.6 * u)
        p.rect((list_w + 56 * u, ay1 + 14 * u, list_w + 74 * u, ay1 + 30 * u), outline=T["sub"], width=1.6 * u, r=2 * u)
        p.rect((W - 110 * u, bot - 46 * u, W - 20 * u, bot - 14 * u), fill=T["sep"] if not dark else (50, 50, 54), r=4 * u)
        p.ui(W - 65 * u, bot - 30 * u, "发送(S)" if lang == "zh" else "Send", 13 * u, fam, T["accent"], anchor="mm")
    else:
        p.rect((0, 0, W, top), fill=T["chat_bg"] if rng.random() < 0.5 else T["bar"])
        status_bar(p, W, 44 * u, u, T["bar_text"], fam, hhmm(rng), rng)
        icon_back(p, 14 * u, 44 * u + 25 * u, 13 * u, T["bar_text"], 2.2 * u)
        p.ui(W / 2, 44 * u + 25 * u, f"{group}({members})", 16.5 * u, fam, T["bar_text"], bold=True, anchor="mm")
        icon_dots(p, W - 40 * u, 44 * u + 25 * u, 22 * u, T["bar_text"])
        p.rect((0, top - 1, W, top), fill=T["border"])
        p.rect((0, ay1, W, H), fill=T["panel"])
        p.rect((0, ay1, W, ay1 + 1), fill=T["border"])
        icon_mic(p, 10 * u, ay1 + 26 * u, 28 * u, T["text"], 1.6 * u)
        p.rect((48 * u, ay1 + 9 * u, W - 92 * u, ay1 + 45 * u), fill=T["card"], r=5 * u)
        icon_smile(p, W - 82 * u, ay1 + 26 * u, 28 * u, T["text"], 1.6 * u)
        icon_plus(p, W - 42 * u, ay1 + 26 * u, 28 * u, T["text"], 1.6 * u)
        p.rect((W / 2 - 67 * u, H - 13 * u, W / 2 + 67 * u, H - 8 * u), fill=T["text"], r=2.5 * u)
    ctx.meta.update(content="chat", columns=1, options_shown=0, input_box=0, hint_link=0, score_badge=0,
                    label_text=(t_lab or {}).get("text", ""), in_group=0, group_stem="",
                    chat_mode=mode, n_in_bubble=n_in_bubble, n_problems_drawn=len(ctx.items),
                    chat_layout="desktop" if desktop else "phone")
    return img, tbox, t_res[2], T


# --------------------------------------------------------------------------
# content 3: PDF / document viewer showing a worksheet
# --------------------------------------------------------------------------
def ws_el(pp, el, x, y, w, st, colors):
    """Draw one worksheet element.  Returns (h, [(qid, box, nlines, label_text, stem)])."""
    fs = st.fs
    kind = el[0]
    out = []
    if kind == "title":
        f1 = font(FAMILIES[st.fam]["cjk_b"], int(fs * 1.45))
        pp.text((x + w / 2, y + fs * 1.6), el[1], f1, colors["text"], anchor="ms")
        f2 = font(FAMILIES[st.fam]["cjk"], int(fs * 0.95))
        pp.text((x + w / 2, y + fs * 3.3), el[2], f2, colors["text"], anchor="ms")
        pp.rect((x, y + fs * 4.1, x + w, y + fs * 4.1 + max(1, fs / 14)), fill=colors["text"])
        return fs * 5.0, out
    if kind == "section":
        f1 = font(ui_font_key(el[1], st.fam, True), int(fs * 1.05))
        pp.text((x, y + fs * 1.45), el[1], f1, colors["text"])
        return fs * 2.1, out
    if kind == "q":
        e, lab, gap_lines, ans = el[1], el[2], el[3], el[4]
        r = q_block(pp, x, y + fs * 0.2, w, e["question"], st, lab)
        out.append((e["id"], r["box"], r["nlines"], (lab or {}).get("text", ""), ""))
        h = fs * 0.2 + r["h"]
        if ans:
            f2 = font(FAMILIES[st.fam]["cjk"], int(fs))
            pp.text((x + fs * 1.0, y + h + fs * 1.3), ans, f2, colors["text"])
            pp.rect((x + fs * 1.0 + f2.getlength(ans), y + h + fs * 1.45,
                     x + min(w, 22 * fs), y + h + fs * 1.45 + max(1, fs / 16)), fill=colors["text"])
            h += fs * 1.9
        return h + gap_lines * fs * st.lh + fs * 0.5, out
    if kind == "group":
        stem, lab, subs, gap_lines = el[1], el[2], el[3], el[4]
        r = q_block(pp, x, y + fs * 0.2, w, stem, st, lab)
        h = fs * 0.2 + r["h"] + fs * 0.25
        ind = fs * 1.2
        for e, sl in subs:
            rr = q_block(pp, x + ind, y + h, w - ind, e["question"], st, sl)
            out.append((e["id"], rr["box"], rr["nlines"], (sl or {}).get("text", ""), stem))
            h += rr["h"] + fs * 0.3 + gap_lines * fs * 0.6 * st.lh
        return h + fs * 0.5, out
    raise ValueError(kind)


def build_worksheet_stream(ctx, rng, lang_cjk, label_style, sub_style, target_in_group, n_items):
    subj = ctx.target["subject"]
    els = []
    grade = str(ctx.target.get("grade", "7"))
    gname = {"7": "七年级", "8": "八年级", "9": "九年级", "10": "高一", "11": "高二", "12": "高三"}.get(
        grade, f"{grade}年级")
    if lang_cjk:
        title = rng.choice([f"{SUBJ_ZH.get(subj, '')}课后练习（{rng.choice('一二三四五六')}）",
                            f"{gname}{SUBJ_ZH.get(subj, '')} 单元检测", f"{SUBJ_ZH.get(subj, '')}周末作业"])
        sub = "班级：________  姓名：________  得分：______"
        names = rng.sample(SECTIONS_ZH, 4)
        sections = [f"{'一二三四'[i]}、{n}" for i, n in enumerate(names)]
        stems = STEMS_ZH
    else:
        title = rng.choice(["Worksheet — Unit 3", "Homework Practice", "Review Sheet 2"])
        sub = "Name: ____________   Class: ______   Score: ____"
        sections = SECTIONS_EN
        stems = STEMS_EN
    els.append(("title", title, sub))
    t_idx = rng.randint(2, max(2, n_items - 3))
    num = rng.choice([1, 1, 1, 5, 9])
    sec_i = 0
    t_info = None
    for i in range(n_items):
        if i == 0 or (rng.random() < 0.18 and els[-1][0] != "section"):
            els.append(("section", sections[sec_i % len(sections)]))
            sec_i += 1
        gap_lines = rng.choice([0, 0, 0.5, 1, 2, 3])
        as_group = (i == t_idx and target_in_group) or (i != t_idx and rng.random() < 0.15)
        if as_group:
            k = rng.randint(2, 3)
            tpos = rng.randrange(k) if i == t_idx else -1
            subs = []
            for j in range(k):
                e = ctx.target if j == tpos else ctx.take(0.8)
                subs.append((e, label_for(sub_style, j + 1, "doc")))
            els.append(("group", rng.choice(stems), label_for(label_style, num, "doc"), subs,
                        rng.choice([0, 0.5, 1])))
            if i == t_idx:
                t_info = (len(els) - 1, subs[tpos][1])
        else:
            e = ctx.target if i == t_idx else ctx.take(0.8)
            ans = None
            if rng.random() < 0.12:
                ans = "答：" if lang_cjk else "Answer:"
            els.append(("q", e, label_for(label_style, num, "doc"), gap_lines, ans))
            if i == t_idx:
                t_info = (len(els) - 1, label_for(label_style, num, "doc"))
        num += 1
    return els, t_info


def render_pdf(ctx, scr):
    rng, u = ctx.rng, scr["u"]
    dark = scr["dark"]
    T = make_theme(dark, rng.choice(ACCENTS))
    fam = ctx.fam_ui
    W, H = scr["W"], scr["H"]
    dev = scr["kind"]
    fs = ctx.fc
    k = scr["page_k"]
    Pw, Ph = 595 * k, 842 * k
    zoom_pct = scr["zoom_pct"]
    lang_cjk = has_cjk(ctx.target["question"]) or rng.random() < 0.5
    page_dark = dark and rng.random() < 0.6
    colors = dict(paper=(255, 255, 255), text=(22, 22, 22)) if not page_dark else \
        dict(paper=(36, 37, 40), text=(214, 216, 219))
    st = Style(fs, ctx.fam_doc, colors["text"], lh=rng.uniform(1.45, 1.75), blank_style=ctx.blank_style,
               hang=rng.random() < 0.75, label_color=colors["text"], label_bold=rng.random() < 0.4,
               accent=T["accent"])
    label_style = ctx.label_style if ctx.label_style != "circle" else "1."
    sub_style = pick_sub_style(rng, label_style)
    target_in_group = ctx.in_group
    cols = scr["cols"]
    two_pages = dev in ("laptop", "monitor") and rng.random() < 0.45
    n_items = rng.randint(10, 16)
    els, t_info = build_worksheet_stream(ctx, rng, lang_cjk, label_style, sub_style, target_in_group, n_items)
    # chrome geometry -----------------------------------------------------------
    os_seed = rng.random()
    fname = rng.choice(PDF_NAMES)
    style = "mobile" if dev in ("phone", "tablet") else rng.choice(["chrome", "reader"])
    top, bot = 0.0, float(H)
    if dev in ("laptop", "monitor"):
        top, bot = os_chrome(Painter(None), W, H, u, T, fam, random.Random(os_seed), "", "",
                             browser=(style == "chrome"))
    if dev == "phone":
        top = 44 * u
    tb_h = {"chrome": 56, "reader": 44, "mobile": 50}[style] * u
    vy0 = top + tb_h
    thumbs = style == "reader" and rng.random() < 0.4
    vx0 = 170 * u if thumbs else 0.0
    vx1 = W - (14 * u if style != "mobile" else 0)
    vy1 = bot
    vw, vh = vx1 - vx0, vy1 - vy0
    mx, my = 62 * k, 64 * k
    gut = 26 * k
    colw = (Pw - 2 * mx - (gut if cols == 2 else 0)) / cols
    colx = [mx + c * (colw + gut) for c in range(cols)]
    # flow ----------------------------------------------------------------------
    placements = []
    page, col, y = 0, 0, my
    col_top = my
    for i, el in enumerate(els):
        h, _ = ws_el(Painter(None), el, 0, 0, Pw - 2 * mx if el[0] == "title" else colw, st, colors)
        if y + h > Ph - my * 0.9 and y > col_top + 1:
            col += 1
            if col >= cols:
                col, page = 0, page + 1
                col_top = my
            y = col_top
        x = mx if el[0] == "title" else colx[col]
        placements.append((i, page, x, y, Pw - 2 * mx if el[0] == "title" else colw))
        y += h
        if el[0] == "title":
            col_top = y
    npages = page + 1
    shown_total = npages + rng.randint(0, 2)
    gapp = 14 * u
    per_row = 2 if two_pages else 1

    def page_origin(pg):
        r, c = divmod(pg, per_row)
        return c * (Pw + gapp), r * (Ph + gapp)

    # target in doc coords
    tpl = placements[t_info[0]]
    _, res = ws_el(Painter(None), els[t_info[0]], tpl[2], tpl[3], tpl[4], st, colors)
    tres = [r for r in res if r[0] == ctx.target["id"]][0]
    ox, oy = page_origin(tpl[1])
    tb = shift_box(tres[1], ox, oy)
    doc_w = per_row * Pw + (per_row - 1) * gapp
    if doc_w + 2 * gapp <= vw:
        sx = -(vw - doc_w) / 2
    else:
        lo, hi = tb[2] - vw * 0.96, tb[0] - vw * 0.04
        a_, b_ = max(lo, -gapp), min(hi, doc_w + gapp - vw)
        if lo <= hi:
            sx = rng.uniform(a_, b_) if a_ <= b_ else rng.uniform(lo, hi)
        else:
            sx = (lo + hi) / 2
    lo, hi = tb[3] - vh * 0.8, tb[1] - vh * 0.2
    sy = rng.uniform(min(lo, hi), max(lo, hi))
    img = Image.new("RGB", (W, H), (82, 86, 89) if (style == "chrome" or dark) else (226, 227, 229))
    if page_dark:
        img.paste((28, 29, 31), (0, 0, W, H))
    dx, dy = vx0 - sx, vy0 - sy
    p = Painter(img, dx, dy)
    for pg in range(npages):
        ox, oy = page_origin(pg)
        if oy + Ph < sy - 10 or oy > sy + vh + 10:
            continue
        p.rect((ox + 3 * u, oy + 4 * u, ox + Pw + 3 * u, oy + Ph + 4 * u), fill=(40, 40, 40) if page_dark else (150, 152, 155))
        p.rect((ox, oy, ox + Pw, oy + Ph), fill=colors["paper"])
        hf = font(FAMILIES[st.fam]["cjk"], int(fs * 0.7))
        if pg > 0:
            p.text((ox + mx, oy + my * 0.55), els[0][1], hf, mix(colors["text"], colors["paper"], 0.45))
            p.rect((ox + mx, oy + my * 0.65, ox + Pw - mx, oy + my * 0.65 + max(1, fs / 18)),
                   fill=mix(colors["text"], colors["paper"], 0.6))
        p.text((ox + Pw / 2, oy + Ph - my * 0.45),
               f"第 {pg + 1} 页 共 {shown_total} 页" if lang_cjk else f"— {pg + 1} —", hf,
               mix(colors["text"], colors["paper"], 0.4), anchor="ms")
        if cols == 2:
            p.rect((ox + Pw / 2 - 0.5, oy + my, ox + Pw / 2 + 0.5, oy + Ph - my), fill=mix(colors["text"], colors["paper"], 0.75))
    for (i, pg, x, y, w) in placements:
        ox, oy = page_origin(pg)
        if oy + y > sy + vh + 50 * fs or oy + y < sy - 60 * fs:
            continue
        _, res = ws_el(p, els[i], ox + x, oy + y, w, st, colors)
        for r in res:
            ctx.items.append((r[0], shift_box(r[1], dx, dy)))
    tbox = shift_box(tb, dx, dy)
    # chrome ---------------------------------------------------------------------
    p = Painter(img)
    if dev in ("laptop", "monitor"):
        p.rect((0, 0, W, top), fill=T["bg"])
        os_chrome(p, W, H, u, T, fam, random.Random(os_seed), fname,
                  "file:///C:/Users/student/Downloads/" + fname, browser=(style == "chrome"))
    if dev == "phone":
        p.rect((0, 0, W, 44 * u), fill=T["bar"])
        status_bar(p, W, 44 * u, u, T["bar_text"], fam, hhmm(rng), rng)
    cur_page = tpl[1] + 1
    if style == "chrome":
        bg, fg = (50, 54, 57), (241, 241, 241)
        p.rect((0, top, W, vy0), fill=bg)
        icon_menu(p, 18 * u, top + 28 * u, 18 * u, fg, 2 * u)
        p.ui(54 * u, top + 33 * u, fname, 14 * u, fam, fg)
        cx = W / 2
        p.rect((cx - 120 * u, top + 16 * u, cx - 88 * u, top + 40 * u), fill=(30, 32, 34))
        p.ui(cx - 104 * u, top + 28 * u, str(cur_page), 13 * u, fam, fg, anchor="mm")
        p.ui(cx - 80 * u, top + 33 * u, f"/ {shown_total}", 13 * u, fam, fg)
        p.rect((cx - 30 * u, top + 18 * u, cx - 29 * u, top + 38 * u), fill=(120, 120, 120))
        p.ui(cx - 5 * u, top + 33 * u, "−", 16 * u, fam, fg)
        p.rect((cx + 14 * u, top + 16 * u, cx + 70 * u, top + 40 * u), fill=(30, 32, 34))
        p.ui(cx + 42 * u, top + 28 * u, f"{zoom_pct}%", 13 * u, fam, fg, anchor="mm")
        p.ui(cx + 78 * u, top + 33 * u, "+", 16 * u, fam, fg)
        for i in range(3):
            xx = W - (40 + 44 * i) * u
            p.rect((xx, top + 20 * u, xx + 16 * u, top + 36 * u), outline=fg, width=1.6 * u, r=2 * u)
    elif style == "reader":
        bg = T["bar"]
        p.rect((0, top, W, vy0), fill=bg)
        p.rect((0, vy0 - 1, W, vy0), fill=T["border"])
        x = 14 * u
        for ic in (icon_menu, icon_search):
            ic(p, x, top + 22 * u, 16 * u, T["text"], 1.6 * u)
            x += 34 * u
        p.ui(x + 10 * u, top + 28 * u, fname, 13.5 * u, fam, T["text"])
        cx = W * 0.55
        p.rect((cx - 40 * u, top + 10 * u, cx + 60 * u, top + 34 * u), outline=T["border"], width=max(1, u), r=4 * u)
        p.ui(cx + 10 * u, top + 22 * u, f"{cur_page} / {shown_total}", 13 * u, fam, T["text"], anchor="mm")
        p.rect((cx + 80 * u, top + 10 * u, cx + 160 * u, top + 34 * u), outline=T["border"], width=max(1, u), r=4 * u)
        p.ui(cx + 92 * u, top + 22 * u, f"{zoom_pct}%  ▾", 13 * u, fam, T["text"], anchor="lm")
        if thumbs:
            p.rect((0, vy0, vx0, bot), fill=T["panel"])
            p.rect((vx0 - 1, vy0, vx0, bot), fill=T["border"])
            ty = vy0 + 16 * u
            tw = vx0 - 60 * u
            for pg in range(shown_total):
                th = tw * 1.414
                sel = pg + 1 == cur_page
                p.rect((30 * u, ty, 30 * u + tw, ty + th), fill=(255, 255, 255),
                       outline=T["accent"] if sel else T["border"], width=(3 if sel else 1) * u)
                for li in range(9):
                    p.rect((38 * u, ty + 14 * u + li * 13 * u, 30 * u + tw * rng.uniform(0.5, 0.9), ty + 17 * u + li * 13 * u),
                           fill=(200, 200, 200))
                p.ui(30 * u + tw / 2, ty + th + 16 * u, str(pg + 1), 12 * u, fam, T["sub"], anchor="mm")
                ty += th + 30 * u
                if ty > bot:
                    break
    else:  # mobile reader
        p.rect((0, top, W, vy0), fill=T["bar"])
        p.rect((0, vy0 - 1, W, vy0), fill=T["border"])
        icon_back(p, 14 * u, top + 25 * u, 13 * u, T["bar_text"], 2.2 * u)
        p.ui(40 * u, top + 31 * u, fname, 15 * u, fam, T["bar_text"], bold=True)
        icon_search(p, W - 84 * u, top + 25 * u, 20 * u, T["bar_text"], 1.8 * u)
        icon_dots(p, W - 44 * u, top + 25 * u, 22 * u, T["bar_text"])
        txt = f"{cur_page}/{shown_total}"
        pw = ui_w(txt, 13 * u, fam) + 24 * u
        py = vy0 + 14 * u if rng.random() < 0.5 else bot - 60 * u
        p.rect((W / 2 - pw / 2, py, W / 2 + pw / 2, py + 28 * u), fill=(60, 60, 60), r=14 * u)
        p.ui(W / 2, py + 14 * u, txt, 13 * u, fam, (255, 255, 255), anchor="mm")
    # scroll bar
    doc_h = ((npages + per_row - 1) // per_row) * (Ph + gapp) + (shown_total - npages) * (Ph + gapp) / per_row
    frac0 = max(0.0, sy / doc_h)
    frac1 = min(1.0, (sy + vh) / doc_h)
    if style != "mobile":
        p.rect((vx1, vy0, W, vy1), fill=T["panel"] if not (style == "chrome") else (66, 70, 73))
        p.rect((vx1 + 3 * u, vy0 + frac0 * vh, W - 3 * u, vy0 + max(frac1 * vh, frac0 * vh + 30 * u)),
               fill=(160, 160, 160), r=4 * u)
    else:
        p.rect((W - 6 * u, vy0 + frac0 * vh, W - 2 * u, vy0 + max(frac1 * vh, frac0 * vh + 40 * u)),
               fill=(140, 140, 140), r=2 * u)
    ctx.meta.update(content="pdf", columns=cols, two_pages=int(two_pages), options_shown=0, input_box=0,
                    hint_link=0, score_badge=0, label_text=(t_info[1] or {}).get("text", ""),
                    in_group=int(bool(target_in_group)), group_stem=tres[4], n_problems_drawn=len(ctx.items),
                    viewer=style, page=f"{cur_page}/{shown_total}", zoom_pct=zoom_pct, page_dark=int(page_dark))
    return img, tbox, tres[2], T


# --------------------------------------------------------------------------
# content 4: lesson slide (projected / on TV)
# --------------------------------------------------------------------------
def render_slide(ctx, scr):
    rng, u = ctx.rng, scr["u"]
    W, H = scr["W"], scr["H"]
    fs = ctx.fc
    tmpl = scr["template"]
    accent = rng.choice(ACCENTS)
    if tmpl == "navy":
        bg, text, ttl = (20, 40, 90), (245, 245, 245), (255, 214, 90)
    elif tmpl == "chalk":
        bg, text, ttl = (34, 72, 52), (240, 240, 232), (255, 235, 150)
    elif tmpl == "grad":
        bg, text, ttl = (236, 244, 252), (25, 30, 40), accent
    else:
        bg, text, ttl = (255, 255, 255), (25, 25, 25), accent
    img = Image.new("RGB", (W, H), bg)
    if tmpl in ("grad", "navy"):
        a = np.asarray(img).astype(np.float32)
        g = np.linspace(0, 1, H)[:, None, None]
        a = a * (1 - 0.12 * g)
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    p = Painter(img)
    fam = ctx.fam_ui
    band = rng.choice(["top", "left", "none"])
    title = rng.choice(SLIDE_TITLES_ZH if ctx.lang == "zh" else SLIDE_TITLES_EN)
    th = 100 * u
    if band == "top":
        p.rect((0, 0, W, th), fill=accent if tmpl in ("white", "grad") else mix(bg, (255, 255, 255), 0.12))
        p.ui(60 * u, th * 0.66, title, 40 * u, fam, (255, 255, 255) if tmpl in ("white", "grad") else ttl, bold=True)
    else:
        if band == "left":
            p.rect((40 * u, 30 * u, 52 * u, 86 * u), fill=accent if tmpl in ("white", "grad") else ttl)
        p.ui(70 * u, 76 * u, title, 40 * u, fam, ttl, bold=True)
        p.rect((60 * u, th + 2 * u, W - 60 * u, th + 4 * u), fill=mix(text, bg, 0.7))
    p.ui(W - 40 * u, H - 24 * u, str(rng.randint(3, 30)), 16 * u, fam, mix(text, bg, 0.4), anchor="rs")
    p.ui(40 * u, H - 24 * u, rng.choice(["实验中学 数学组", "第三章 复习课", "Grade 8 · Unit 4", "初二年级", "高一(2)班"]),
         16 * u, fam, mix(text, bg, 0.4))
    st = Style(fs, ctx.fam_doc, text, lh=rng.uniform(1.4, 1.65), blank_style=ctx.blank_style,
               hang=rng.random() < 0.8, label_color=ttl if rng.random() < 0.3 else text,
               label_bold=rng.random() < 0.6, accent=accent)
    x0, x1 = 70 * u, W - 70 * u
    y0, y1 = th + 30 * u, H - 60 * u
    if ctx.max_text_w:
        x1 = min(x1, x0 + max(ctx.max_text_w, 10 * fs))
    two_col = (x1 - x0) > 28 * fs and rng.random() < 0.45 and not ctx.in_group
    label_style = ctx.label_style
    sub_style = pick_sub_style(rng, label_style)
    n0 = rng.randint(1, 6)
    # element list
    if ctx.in_group:
        k = rng.randint(2, 3)
        tpos = rng.randrange(k)
        subs = []
        for j in range(k):
            e = ctx.target if j == tpos else ctx.take(0.8)
            subs.append((e, label_for(sub_style, j + 1, "slide")))
        stem = rng.choice(STEMS_ZH if has_cjk(ctx.target["question"]) else STEMS_EN)
        els = [("group", stem, label_for(label_style, n0, "slide"), subs, 0)]
        for j in range(rng.randint(0, 2)):
            els.append(("q", ctx.take(0.8), label_for(label_style, n0 + 1 + j, "slide"), 0, None))
    else:
        k = rng.randint(3, 6 if two_col else 5)
        tpos = rng.randrange(k)
        els = []
        for j in range(k):
            e = ctx.target if j == tpos else ctx.take(0.8)
            els.append(("q", e, label_for(label_style, n0 + j, "slide"), rng.choice([0, 0.3, 0.6]), None))
    colors = dict(text=text, paper=bg)
    ncol = 2 if two_col else 1
    colw = (x1 - x0 - (40 * u if two_col else 0)) / ncol

    def place(pp, els_):
        yy = [y0] * ncol
        out = []
        per = math.ceil(len(els_) / ncol)
        for i, el in enumerate(els_):
            c = min(i // per, ncol - 1)
            h, res = ws_el(pp, el, x0 + c * (colw + 40 * u), yy[c], colw, st, colors)
            out.extend(res)
            yy[c] += h + fs * 0.4
        return max(yy), out

    # drop non-target elements until everything fits
    while True:
        ymax, res = place(Painter(None), els)
        if ymax <= y1 or len(els) <= 1:
            break
        drop = [i for i, el in enumerate(els) if not any(r[0] == ctx.target["id"] for r in
                                                         ws_el(Painter(None), el, 0, 0, colw, st, colors)[1])]
        if not drop:
            break
        els.pop(drop[-1])
    _, res = place(p, els)
    for r in res:
        ctx.items.append((r[0], r[1]))
    tres = [r for r in res if r[0] == ctx.target["id"]][0]
    ctx.meta.update(content="slide", columns=ncol, options_shown=0, input_box=0, hint_link=0, score_badge=0,
                    label_text=tres[3], in_group=int(bool(ctx.in_group)), group_stem=tres[4],
                    n_problems_drawn=len(res), slide_template=tmpl)
    T = dict(dark=tmpl in ("navy", "chalk"))
    return img, tres[1], tres[2], T


# --------------------------------------------------------------------------
# geometry helpers
# --------------------------------------------------------------------------
def rot(yaw, pitch, roll):
    y, p, r = map(math.radians, (yaw, pitch, roll))
    Rx = np.array([[1, 0, 0], [0, math.cos(p), -math.sin(p)], [0, math.sin(p), math.cos(p)]])
    Ry = np.array([[math.cos(y), 0, math.sin(y)], [0, 1, 0], [-math.sin(y), 0, math.cos(y)]])
    Rz = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
    return Rz @ Ry @ Rx


def camera_h(pc, s, W, H, off, yaw, pitch, roll, f):
    """Homography plane -> photo; plane point pc lands at photo centre + off with scale ~s."""
    D = f / s
    R = rot(yaw, pitch, roll)
    K = np.array([[f, 0, W / 2 + off[0]], [0, f, H / 2 + off[1]], [0, 0, 1.0]])
    M = K @ np.column_stack([R[:, 0], R[:, 1], [0, 0, D]])
    T = np.array([[1, 0, -pc[0]], [0, 1, -pc[1]], [0, 0, 1.0]])
    return M @ T


def hmap(Hm, pts):
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.hstack([pts, np.ones((len(pts), 1))]) @ Hm.T
    return q[:, :2] / q[:, 2:3]


def box_quad(b):
    return np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]], dtype=np.float64)


def T2(dx, dy):
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])


def S2(s):
    return np.array([[s, 0, 0], [0, s, 0], [0, 0, 1.0]])


def lowfreq(nrng, h, w, cells=6):
    a = nrng.random((cells, cells)).astype(np.float32)
    return cv2.resize(a, (max(1, w), max(1, h)), interpolation=cv2.INTER_CUBIC)


# --------------------------------------------------------------------------
# surroundings
# --------------------------------------------------------------------------
def desk_texture(rng, nrng, h, w, ps, R0):
    kind = rng.choice(["wood", "wood", "white", "grey", "fabric"])
    yy = (np.arange(h, dtype=np.float32)[:, None] / ps + R0[1])
    xx = (np.arange(w, dtype=np.float32)[None, :] / ps + R0[0])
    if kind == "wood":
        c1 = np.array(rng.choice([(120, 80, 50), (150, 108, 70), (176, 135, 95), (95, 62, 40)]), np.float32)
        c2 = c1 * rng.uniform(1.08, 1.2)
        period = rng.uniform(30, 90)
        warp = lowfreq(nrng, h, w, 4) * 1.5 + lowfreq(nrng, h, w, 11) * 0.3
        t = yy / period + warp + xx * 0.0003
        grain = (0.5 + 0.5 * np.sin(2 * np.pi * t)) ** 3
        streak = cv2.resize(nrng.random((max(2, h // 3), 7)).astype(np.float32), (w, h),
                            interpolation=cv2.INTER_LINEAR)
        v = 0.55 * grain + 0.45 * streak
        img = c1[None, None] * (1 - v[..., None]) + c2[None, None] * v[..., None]
    elif kind == "white":
        img = np.full((h, w, 3), rng.choice([(226, 226, 222), (236, 233, 226), (214, 218, 222)]), np.float32)
    elif kind == "grey":
        img = np.full((h, w, 3), rng.choice([(96, 98, 102), (60, 62, 66), (128, 122, 114)]), np.float32)
    else:
        img = np.full((h, w, 3), rng.choice([(70, 90, 120), (130, 70, 70), (90, 110, 85), (160, 150, 130)]), np.float32)
    img = img * (0.85 + 0.3 * lowfreq(nrng, h, w, 4))[..., None]
    img += nrng.normal(0, 3.0, (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255), kind


def room_texture(rng, nrng, h, w, ps, R0, plane_scale):
    """Blurred room behind a laptop / monitor (wall, window, shelf)."""
    wall = np.array(rng.choice([(205, 200, 190), (180, 188, 196), (220, 214, 200), (150, 140, 130)]), np.float32)
    img = np.tile(wall, (h, w, 1)).astype(np.float32)
    img *= (0.8 + 0.35 * lowfreq(nrng, h, w, 3))[..., None]
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    d = ImageDraw.Draw(pil)
    for _ in range(rng.randint(2, 5)):
        x0 = rng.uniform(0, w)
        y0 = rng.uniform(0, h)
        sw, sh = rng.uniform(0.1, 0.5) * w, rng.uniform(0.1, 0.5) * h
        col = rng.choice([(250, 250, 245), (90, 70, 50), (60, 80, 110), (170, 140, 100), (235, 240, 250)])
        d.rectangle((x0, y0, x0 + sw, y0 + sh), fill=col)
    img = np.asarray(pil).astype(np.float32)
    k = max(3, int(plane_scale * 25) | 1)
    return cv2.GaussianBlur(img, (0, 0), max(2.0, k / 3))


# --------------------------------------------------------------------------
# scene (plane) rendering
# --------------------------------------------------------------------------
def subpixel_expand(a):
    """RGB stripe subpixel pattern, each screen pixel -> 3x3 block."""
    up = np.repeat(np.repeat(a, 3, axis=0), 3, axis=1)
    m = np.zeros((3, 3, 3), np.float32)
    for c in range(3):
        m[:, c, c] = 1.0
        m[:, c, [k for k in range(3) if k != c]] = 0.12
    m[2, :, :] *= 0.55
    tile = np.tile(m, (a.shape[0], a.shape[1], 1))
    return up * tile * 2.3


def place_content(content, Hk, R0, ps, cw, ch, grid):
    """Warp content (float HxWx3, 0..1) to canvas through Hk (content->plane).  Returns (img, mask)."""
    Hc, Wc = content.shape[:2]
    inv = np.linalg.inv(Hk)
    corners = np.array([[R0[0], R0[1]], [R0[0] + cw / ps, R0[1]], [R0[0] + cw / ps, R0[1] + ch / ps],
                        [R0[0], R0[1] + ch / ps]])
    cq = hmap(inv, corners)
    x0 = int(max(0, math.floor(cq[:, 0].min()) - 2))
    y0 = int(max(0, math.floor(cq[:, 1].min()) - 2))
    x1 = int(min(Wc, math.ceil(cq[:, 0].max()) + 2))
    y1 = int(min(Hc, math.ceil(cq[:, 1].max()) + 2))
    if x1 <= x0 or y1 <= y0:
        return np.zeros((ch, cw, 3), np.float32), np.zeros((ch, cw), np.float32)
    crop = content[y0:y1, x0:x1]
    if grid:
        prep = subpixel_expand(crop)
        pf = 3.0
        interp = cv2.INTER_NEAREST
    elif ps < 0.999:
        nw, nh = max(1, int(round(crop.shape[1] * ps))), max(1, int(round(crop.shape[0] * ps)))
        prep = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA)
        pf = ps
        interp = cv2.INTER_LINEAR
    else:
        prep = crop
        pf = 1.0
        interp = cv2.INTER_LINEAR
    # prep px -> content px -> plane -> canvas
    M = T2(-R0[0] * ps, -R0[1] * ps) @ S2(ps) @ Hk @ T2(x0, y0) @ S2(1.0 / pf)
    out = cv2.warpPerspective(prep, M, (cw, ch), flags=interp, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    ones = np.ones(prep.shape[:2], np.float32)
    mask = cv2.warpPerspective(ones, M, (cw, ch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=0)
    return out, mask


class Scene:
    """Plain attribute bag describing the photographed plane."""


def render_scene(sc, rng, nrng, content_u8, Hk, Hcam, Wp, Hp):
    """Render the plane (surroundings + device/board + content) and warp it into the photo.

    Returns photo float32 (Hp, Wp, 3) in 0..~1.2 and the info dict.
    """
    content = content_u8.astype(np.float32) / 255.0
    Hinv = np.linalg.inv(Hcam)
    pc = hmap(Hinv, [[0, 0], [Wp, 0], [Wp, Hp], [0, Hp], [Wp / 2, 0], [Wp, Hp / 2], [Wp / 2, Hp], [0, Hp / 2]])
    ext = sc.extent  # plane box that may be drawn (x0, y0, x1, y1)
    x0, y0 = max(ext[0], pc[:, 0].min()), max(ext[1], pc[:, 1].min())
    x1, y1 = min(ext[2], pc[:, 0].max()), min(ext[3], pc[:, 1].max())
    padx, pady = (x1 - x0) * 0.04 + 4, (y1 - y0) * 0.04 + 4
    x0, y0, x1, y1 = math.floor(x0 - padx), math.floor(y0 - pady), math.ceil(x1 + padx), math.ceil(y1 + pady)
    ps = sc.ps
    cw, ch = int((x1 - x0) * ps), int((y1 - y0) * ps)
    lim = 3800
    if max(cw, ch) > lim:
        if sc.grid:
            # clamp the region around the target instead of shrinking
            cx, cy = sc.pc
            half = lim / ps / 2
            x0, x1 = max(x0, math.floor(cx - half)), min(x1, math.ceil(cx + half))
            y0, y1 = max(y0, math.floor(cy - half)), min(y1, math.ceil(cy + half))
        else:
            ps = ps * lim / max(cw, ch)
        cw, ch = int((x1 - x0) * ps), int((y1 - y0) * ps)
    R0 = (x0, y0)

    def C(x, y):
        return ((x - x0) * ps, (y - y0) * ps)

    def CB(b):
        a, b_ = C(b[0], b[1]), C(b[2], b[3])
        return (a[0], a[1], b_[0], b_[1])

    info = {}
    Wc, Hc = content.shape[1], content.shape[0]
    if sc.kind == "device":
        if sc.display in ("laptop", "monitor"):
            bg = room_texture(rng, nrng, ch, cw, ps, R0, ps)
            info["surround"] = "room"
            if sc.display == "laptop":
                # desk under the keyboard
                yd = C(0, Hc + sc.bez[3] + sc.deck_h * 0.9)[1]
                if yd < ch:
                    dk, kind = desk_texture(rng, nrng, ch, cw, ps, R0)
                    yi = int(max(0, yd))
                    bg[yi:] = dk[yi:]
                    info["surround"] = "room+desk"
        else:
            bg, kind = desk_texture(rng, nrng, ch, cw, ps, R0)
            info["surround"] = "desk-" + kind
        pil = Image.fromarray(np.clip(bg, 0, 255).astype(np.uint8))
        d = ImageDraw.Draw(pil)
        bl, bt, br, bb = sc.bez
        body = sc.body_col
        if sc.display == "laptop":
            kx0, ky0 = C(-bl - Wc * 0.02, Hc + bb)
            kx1, ky1 = C(Wc + br + Wc * 0.02, Hc + bb + sc.deck_h)
            d.rounded_rectangle((kx0, ky0, kx1, ky1), radius=int(12 * sc.u * ps), fill=sc.deck_col)
            d.rectangle((kx0, ky0, kx1, ky0 + max(2, 6 * sc.u * ps)), fill=mix(sc.deck_col, (0, 0, 0), 0.45))
            ks = 52 * sc.u
            kg = 8 * sc.u
            kc = mix(sc.deck_col, (0, 0, 0), 0.65)
            ny = 0
            yk = Hc + bb + 40 * sc.u
            while yk + ks < Hc + bb + sc.deck_h * 0.62 and ny < 6:
                xk = -bl + Wc * 0.05
                while xk + ks < Wc + br - Wc * 0.05:
                    a = C(xk, yk)
                    b_ = C(xk + ks, yk + ks)
                    d.rounded_rectangle((a[0], a[1], b_[0], b_[1]), radius=int(5 * sc.u * ps), fill=kc)
                    xk += ks + kg
                yk += ks + kg
                ny += 1
        if sc.display == "monitor":
            sx0, sy0 = C(Wc * 0.45, Hc + bb)
            sx1, sy1 = C(Wc * 0.55, Hc + bb + Hc * 0.25)
            d.rectangle((sx0, sy0, sx1, sy1), fill=mix(body, (128, 128, 128), 0.3))
        ob = CB((-bl, -bt, Wc + br, Hc + bb))
        d.rounded_rectangle(ob, radius=int(sc.radius * ps), fill=body)
        if sc.frame_col is not None:
            d.rounded_rectangle(ob, radius=int(sc.radius * ps), outline=sc.frame_col, width=max(1, int(3 * sc.u * ps)))
        ib = CB((0, 0, Wc, Hc))
        d.rounded_rectangle(ib, radius=int(sc.screen_radius * ps), fill=(8, 8, 10))
        if sc.display == "laptop":
            cx_, cy_ = C(Wc / 2, -bt / 2)
            r = max(1, 3 * sc.u * ps)
            d.ellipse((cx_ - r, cy_ - r, cx_ + r, cy_ + r), fill=(30, 30, 34))
        if sc.display == "monitor":
            cx_, cy_ = C(Wc / 2, Hc + bb / 2)
            d.text((cx_, cy_), "▬", fill=(90, 90, 95), anchor="mm")
        surround = np.asarray(pil).astype(np.float32) / 255.0
        amb = sc.ambient * (0.75 + 0.5 * lowfreq(nrng, ch, cw, 3))
        surround *= amb[..., None]
        cont, mask = place_content(content, Hk, R0, ps, cw, ch, sc.grid)
        # rounded screen corners
        rm = Image.new("L", (cw, ch), 0)
        ImageDraw.Draw(rm).rounded_rectangle(ib, radius=int(sc.screen_radius * ps), fill=255)
        mask = mask * (np.asarray(rm).astype(np.float32) / 255.0)
        screen = cont * sc.brightness + sc.reflect * sc.ambient
        out = surround * (1 - mask[..., None]) + screen * mask[..., None]
        # phone: dynamic island, hand
        if sc.display == "phone":
            ov = Image.new("RGBA", (cw, ch), (0, 0, 0, 0))
            od = ImageDraw.Draw(ov)
            a = C(Wc / 2 - 62 * sc.u, 11 * sc.u)
            b_ = C(Wc / 2 + 62 * sc.u, 46 * sc.u)
            od.rounded_rectangle((a[0], a[1], b_[0], b_[1]), radius=int(18 * sc.u * ps), fill=(0, 0, 0, 255))
            ova = np.asarray(ov).astype(np.float32) / 255.0
            al = ova[..., 3:4]
            out = out * (1 - al) + ova[..., :3] * al
            if sc.hand:
                skin = np.array(rng.choice([(224, 172, 138), (198, 140, 105), (240, 200, 170), (160, 110, 80)]),
                                np.float32) / 255.0
                hx, hy, hr = sc.hand
                hm = Image.new("L", (cw, ch), 0)
                a = C(hx - hr, hy - hr * 1.7)
                b_ = C(hx + hr, hy + hr * 1.7)
                ImageDraw.Draw(hm).ellipse((a[0], a[1], b_[0], b_[1]), fill=255)
                hm = np.asarray(hm).astype(np.float32) / 255.0
                edge = cv2.GaussianBlur(hm, (0, 0), max(1.0, 2.5 * sc.u * ps))
                shade = cv2.GaussianBlur(hm, (0, 0), max(2.0, hr * ps * 0.35))
                col = skin[None, None] * (0.55 + 0.45 * shade[..., None]) * sc.ambient * 1.1
                out = out * (1 - edge[..., None]) + col * edge[..., None]
                info["hand"] = 1
        screen_poly = [[0, 0], [Wc, 0], [Wc, Hc], [0, Hc]]
        dev_poly = [[-bl, -bt], [Wc + br, -bt], [Wc + br, Hc + bb], [-bl, Hc + bb]]
    else:
        # classroom: wall + projection screen / whiteboard / TV
        wall = np.array(sc.wall_col, np.float32)
        bg = np.tile(wall, (ch, cw, 1))
        yy = (np.arange(ch, dtype=np.float32)[:, None] / ps + R0[1]) / max(Wc, Hc)
        bg *= (1.0 - 0.25 * np.clip(-yy, 0, 2))[..., None]
        bg *= (0.85 + 0.3 * lowfreq(nrng, ch, cw, 4))[..., None]
        pil = Image.fromarray(np.clip(bg, 0, 255).astype(np.uint8))
        d = ImageDraw.Draw(pil)
        q = hmap(Hk, [[0, 0], [Wc, 0], [Wc, Hc], [0, Hc]])
        qx0, qy0, qx1, qy1 = q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()
        if sc.blackboard:
            d.rectangle(CB((qx0 - Wc * 0.55, qy0 - Hc * 0.05, qx1 + Wc * 0.55, qy1 + Hc * 0.3)), fill=(105, 105, 100))
            d.rectangle(CB((qx0 - Wc * 0.53, qy0 - Hc * 0.03, qx1 + Wc * 0.53, qy1 + Hc * 0.28)),
                        fill=rng.choice([(38, 62, 50), (30, 36, 34)]))
            for _ in range(rng.randint(3, 8)):
                xx_ = rng.uniform(qx0 - Wc * 0.5, qx1 + Wc * 0.5)
                yy_ = rng.uniform(qy0, qy1 + Hc * 0.25)
                if qx0 - Wc * 0.02 < xx_ < qx1 + Wc * 0.02:
                    continue
                d.line([C(xx_, yy_), C(xx_ + rng.uniform(-80, 80) * sc.u, yy_ + rng.uniform(-20, 20) * sc.u)],
                       fill=(150, 160, 150), width=max(1, int(4 * sc.u * ps)))
        m = sc.margin
        if sc.display == "projector":
            sb = (qx0 - m, qy0 - m, qx1 + m, qy1 + m)
            d.rectangle(CB((sb[0] - m * 0.3, sb[1] - Hc * 0.25, sb[2] + m * 0.3, sb[1] - Hc * 0.2)), fill=(70, 70, 72))
            d.rectangle(CB((sb[0], sb[1] - Hc * 0.2, sb[2], sb[3])), fill=sc.surface_col)
            if sc.screen_border:
                bw = m * 0.45
                d.rectangle(CB((sb[0], sb[1], sb[2], sb[3])), outline=(30, 30, 30), width=max(1, int(bw * ps)))
            dev_poly = [[sb[0], sb[1]], [sb[2], sb[1]], [sb[2], sb[3]], [sb[0], sb[3]]]
        elif sc.display == "whiteboard":
            sb = (qx0 - m, qy0 - m, qx1 + m, qy1 + m)
            fw = 14 * sc.u
            d.rectangle(CB((sb[0] - fw, sb[1] - fw, sb[2] + fw, sb[3] + fw)), fill=(178, 180, 184))
            d.rectangle(CB(sb), fill=sc.surface_col)
            d.rectangle(CB((sb[0] + Wc * 0.05, sb[3] + fw, sb[2] - Wc * 0.05, sb[3] + fw + 28 * sc.u)), fill=(160, 162, 166))
            for i in range(rng.randint(1, 4)):
                xm = sb[0] + Wc * rng.uniform(0.1, 0.9)
                d.rectangle(CB((xm, sb[3] + fw + 4 * sc.u, xm + 110 * sc.u, sb[3] + fw + 20 * sc.u)),
                            fill=rng.choice([(20, 20, 20), (30, 60, 170), (180, 30, 30), (20, 120, 50)]))
            dev_poly = [[sb[0] - fw, sb[1] - fw], [sb[2] + fw, sb[1] - fw], [sb[2] + fw, sb[3] + fw], [sb[0] - fw, sb[3] + fw]]
        else:  # tv
            bz = 22 * sc.u
            d.rounded_rectangle(CB((qx0 - bz, qy0 - bz, qx1 + bz, qy1 + bz * 1.3)), radius=int(6 * sc.u * ps),
                                fill=(18, 18, 20))
            d.rectangle(CB((qx0, qy0, qx1, qy1)), fill=(5, 5, 6))
            dev_poly = [[qx0 - bz, qy0 - bz], [qx1 + bz, qy0 - bz], [qx1 + bz, qy1 + bz * 1.3], [qx0 - bz, qy1 + bz * 1.3]]
        albedo = np.asarray(pil).astype(np.float32) / 255.0
        cont, mask = place_content(content, Hk, R0, ps, cw, ch, False)
        if sc.display in ("projector", "whiteboard"):
            # projected light: black level + content, hotspot falloff
            gx = (np.arange(cw, dtype=np.float32)[None, :] / ps + R0[0])
            gy = (np.arange(ch, dtype=np.float32)[:, None] / ps + R0[1])
            cxh, cyh = sc.hot_c
            rr = ((gx - cxh) / Wc) ** 2 + ((gy - cyh) / Hc) ** 2
            hot = 1.0 - sc.hot_fall * np.clip(rr / 0.5, 0, 1.6)
            light = (sc.black_level + (1 - sc.black_level) * cont) * hot[..., None] * sc.proj_gain
            out = albedo * (sc.ambient + light * mask[..., None])
        else:
            screen = cont * sc.brightness + sc.reflect * sc.ambient
            out = albedo * sc.ambient * (1 - mask[..., None]) + screen * mask[..., None]
        screen_poly = q.tolist()
        info["surround"] = "wall" + ("+blackboard" if sc.blackboard else "")
    if sc.grid:
        # lens / sensor low-pass before sampling the sub-pixel pattern
        out = cv2.GaussianBlur(out.astype(np.float32), (0, 0), max(0.35, 0.5 * 3.0 / sc.s))
    Hc_ = Hcam @ T2(R0[0], R0[1]) @ S2(1.0 / ps)
    photo = cv2.warpPerspective(out.astype(np.float32), Hc_, (Wp, Hp), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    info["screen_poly"] = hmap(Hcam, screen_poly)
    info["dev_poly"] = hmap(Hcam, dev_poly)
    info["canvas"] = f"{cw}x{ch}@{ps:.2f}"
    return photo, info


# --------------------------------------------------------------------------
# photo-space effects
# --------------------------------------------------------------------------
def poly_mask(poly, W, H, blur=1.0):
    m = np.zeros((H, W), np.uint8)
    pts = np.round(np.asarray(poly) * 4).astype(np.int32)
    cv2.fillPoly(m, [pts], 255, lineType=cv2.LINE_AA, shift=2)
    m = m.astype(np.float32) / 255.0
    if blur > 0:
        m = cv2.GaussianBlur(m, (0, 0), blur)
    return m


def boxes_overlap(a, b, pad=0.0):
    return not (a[2] + pad < b[0] or b[2] + pad < a[0] or a[3] + pad < b[1] or b[3] + pad < a[1])


def add_moire(img, smask, rng, nrng, W, H):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, math.pi)
    period = rng.uniform(10, 45)
    uu = xx * math.cos(ang) + yy * math.sin(ang)
    vv = -xx * math.sin(ang) + yy * math.cos(ang)
    curv = rng.uniform(-1.0, 1.0) / max(W, H)
    warp = lowfreq(nrng, H, W, 4) * rng.uniform(1.5, 4) + lowfreq(nrng, H, W, 7) * 0.6
    ph = 2 * np.pi * ((uu + curv * vv * vv) / period + warp)
    chroma = rng.uniform(0.4, 1.0)
    amp = rng.uniform(0.025, 0.07)
    env = np.clip(lowfreq(nrng, H, W, 3) * 1.6 - 0.3, 0, 1)
    m = np.stack([np.cos(ph), np.cos(ph + 2.09 * chroma), np.cos(ph + 4.19 * chroma)], -1)
    img *= 1 + amp * (env * smask)[..., None] * m
    return dict(moire_period=round(period, 1), moire_amp=round(amp, 3))


def add_glare(img, dmask, rng, nrng, W, H, tbox, kind, cap=0.36):
    g = np.zeros((H, W), np.float32)
    if kind == "window":
        pil = Image.new("L", (W, H), 0)
        d = ImageDraw.Draw(pil)
        gw, gh = rng.uniform(0.2, 0.5) * W, rng.uniform(0.25, 0.6) * H
        cx, cy = rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H
        sk = rng.uniform(-0.25, 0.25) * gw
        poly = [(cx - gw / 2 + sk, cy - gh / 2), (cx + gw / 2 + sk, cy - gh / 2), (cx + gw / 2 - sk, cy + gh / 2),
                (cx - gw / 2 - sk, cy + gh / 2)]
        d.polygon(poly, fill=255)
        nb = rng.randint(1, 3)
        for i in range(1, nb + 1):
            t = i / (nb + 1)
            d.line([(cx - gw / 2 + sk + gw * t, cy - gh / 2), (cx - gw / 2 - sk + gw * t, cy + gh / 2)], fill=110,
                   width=int(rng.uniform(0.03, 0.06) * gw))
        d.line([(cx - gw / 2, cy), (cx + gw / 2, cy)], fill=110, width=int(rng.uniform(0.03, 0.06) * gh))
        g = np.asarray(pil).astype(np.float32) / 255.0
        g = cv2.GaussianBlur(g, (0, 0), rng.uniform(12, 30))
        g *= 0.6 + 0.4 * lowfreq(nrng, H, W, 3)
        alpha = rng.uniform(0.22, 0.5)
        col = np.array(rng.choice([(1.0, 1.0, 1.0), (0.95, 0.98, 1.0), (1.0, 0.97, 0.9)]), np.float32)
    else:  # lamp / streak
        cx, cy = rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H
        sx = rng.uniform(40, 160)
        sy = sx * rng.uniform(0.5, 2.0)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        g = np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2) / 2)
        g += 1.5 * np.exp(-(((xx - cx) / (sx * 0.18)) ** 2 + ((yy - cy) / (sy * 0.18)) ** 2) / 2)
        alpha = rng.uniform(0.35, 0.7)
        col = np.array(rng.choice([(1.0, 0.95, 0.85), (1.0, 1.0, 1.0), (0.9, 0.95, 1.0)]), np.float32)
    g = g * dmask
    x0, y0, x1, y1 = [int(v) for v in tbox]
    x0, y0 = max(0, x0), max(0, y0)
    tmax = float(g[y0:max(y0 + 1, y1), x0:max(x0 + 1, x1)].max()) * alpha if x1 > x0 and y1 > y0 else 0
    if tmax > cap:
        alpha *= cap / tmax
    img += (alpha * g)[..., None] * col[None, None]
    return dict(glare_alpha=round(alpha, 3))


def add_hand_shadow(img, smask, rng, W, H, tbox):
    for _ in range(20):
        side = rng.choice(["left", "right", "bottom"])
        hx = rng.uniform(0.1, 0.9) * W
        hy = rng.uniform(0.15, 0.85) * H
        r = rng.uniform(0.05, 0.09) * max(W, H)
        bb = (hx - r * 1.6, hy - r * 2.2, hx + r * 1.6, hy + r * 1.4)
        if side == "left":
            arm = (0, hy + r * 0.5)
            bb = (0, bb[1], bb[2], bb[3] + r)
        elif side == "right":
            arm = (W, hy + r * 0.5)
            bb = (bb[0], bb[1], W, bb[3] + r)
        else:
            arm = (hx + rng.uniform(-0.2, 0.2) * W, H)
            bb = (min(bb[0], arm[0] - r), bb[1], max(bb[2], arm[0] + r), H)
        if boxes_overlap(bb, tbox, pad=25):
            continue
        pil = Image.new("L", (W, H), 0)
        d = ImageDraw.Draw(pil)
        d.line([arm, (hx, hy)], fill=255, width=int(r * 1.3))
        d.ellipse((hx - r, hy - r * 0.9, hx + r, hy + r * 0.9), fill=255)
        for k in range(4):
            a = math.radians(-120 + k * 22 + rng.uniform(-5, 5))
            d.line([(hx + math.cos(a) * r * 0.5, hy + math.sin(a) * r * 0.5),
                    (hx + math.cos(a) * r * 1.9, hy + math.sin(a) * r * 1.9)], fill=255, width=int(r * 0.32))
        m = cv2.GaussianBlur(np.asarray(pil).astype(np.float32) / 255.0, (0, 0), rng.uniform(6, 16))
        img *= (1 - rng.uniform(0.45, 0.7) * m * smask)[..., None]
        return True
    return False


def draw_pointer(u8, rng, W, H, tbox, kind, text_px=24.0):
    pil = Image.fromarray(u8)
    d = ImageDraw.Draw(pil, "RGBA")
    x0, y0, x1, y1 = tbox
    if kind == "laser":
        for _ in range(10):
            px = rng.uniform(x0, min(x1, x0 + 0.4 * (x1 - x0) + 60))
            py = y1 + rng.uniform(8, 30)
            if py < H - 10:
                break
        for rr, a in ((14, 40), (9, 90), (5, 230), (2.5, 255)):
            d.ellipse((px - rr, py - rr, px + rr, py + rr), fill=(255, 40 if rr > 3 else 200, 40 if rr > 3 else 200, a))
        return np.asarray(pil), True
    # stick
    for _ in range(20):
        tx = x0 - rng.uniform(2.2, 3.4) * text_px  # left of the label, which precedes the text
        ty = y0 + (y1 - y0) * rng.uniform(0.1, 0.5) if (y1 - y0) > 60 else (y0 + y1) / 2
        ex = -10 if rng.random() < 0.7 else rng.uniform(0, x0 * 0.6)
        ey = rng.uniform(ty + 0.25 * H, H + 50)
        # stick must not cross the target box
        ok = True
        for t in np.linspace(0, 1, 30):
            xx, yy = tx + (ex - tx) * t, ty + (ey - ty) * t
            if x0 - 4 < xx < x1 + 4 and y0 - 4 < yy < y1 + 4:
                ok = False
        if ok and tx > 10:
            break
    else:
        return u8, False
    w = rng.uniform(4, 9)
    col = rng.choice([(120, 82, 45), (190, 190, 195), (40, 40, 42)])
    d.line([(ex, ey), (tx, ty)], fill=col + (255,), width=int(w))
    d.line([(ex + w * 0.3, ey), (tx + w * 0.2, ty)], fill=mix(col, (255, 255, 255), 0.3) + (255,), width=max(1, int(w * 0.3)))
    d.ellipse((tx - w * 0.7, ty - w * 0.7, tx + w * 0.7, ty + w * 0.7), fill=(30, 30, 30, 255))
    return np.asarray(pil), True


def draw_heads(u8, rng, W, H, tbox):
    top_lim = tbox[3] + 0.08 * H
    if top_lim > H * 0.86:
        return u8, 0
    pil = Image.fromarray(u8)
    d = ImageDraw.Draw(pil)
    n = rng.randint(1, 3)
    drawn = 0
    for _ in range(n):
        r = rng.uniform(0.08, 0.15) * W
        cx = rng.uniform(0.05, 0.95) * W
        cy = H + rng.uniform(-0.2, 0.6) * r
        if cy - r * 1.2 < top_lim:
            cy = top_lim + r * 1.2
        if cy - r * 1.2 > H:
            continue
        col = tuple(int(v) for v in np.array(rng.choice([(22, 20, 20), (35, 30, 28), (15, 15, 18)])))
        d.ellipse((cx - r * 2.2, cy + r * 0.6, cx + r * 2.2, cy + r * 3.5), fill=rng.choice([(30, 40, 70), (200, 200, 205), (60, 60, 64)]))
        d.ellipse((cx - r, cy - r * 1.2, cx + r, cy + r * 1.1), fill=col)
        drawn += 1
    a = np.asarray(pil).astype(np.float32)
    blurred = cv2.GaussianBlur(a, (0, 0), rng.uniform(9, 18))
    # only the lower part (where heads are) is taken from the blurred copy
    m = np.zeros((H, 1, 1), np.float32)
    y0 = int(max(0, top_lim - 0.05 * H))
    m[y0:] = 1
    diff = np.abs(a - u8.astype(np.float32)).sum(-1, keepdims=True) > 0
    sel = np.clip(cv2.GaussianBlur(diff.astype(np.float32)[..., 0], (0, 0), 14) * 1.5, 0, 1)[..., None] * m
    out = u8.astype(np.float32) * (1 - sel) + blurred * sel
    return np.clip(out, 0, 255).astype(np.uint8), drawn


def motion_kernel(length, ang):
    k = np.zeros((length * 2 + 1, length * 2 + 1), np.float32)
    c = length
    dx, dy = math.cos(ang), math.sin(ang)
    for t in np.linspace(-length / 2, length / 2, length * 4):
        k[int(round(c + dy * t)), int(round(c + dx * t))] = 1
    return k / k.sum()


# --------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------
LABELS_BY_CONTENT = {
    "app": ["1.", "(1)", "第1题", "Q1", "Question 1", "circle", "circle", "none", "1、"],
    "chat": ["1.", "1、", "(1)", "（1）", "①", "第1题", "Q1", "Question 1", "none", "none"],
    "pdf": ["1.", "1.", "1、", "(1)", "（1）", "①", "第1题", "Q1", "Question 1", "none"],
    "slide": ["1.", "1、", "(1)", "（1）", "①", "第1题", "Q1", "Question 1", "circle", "none"],
}
LOGICAL = {
    "phone": [(390, 844)],
    "tablet": [(1180, 820), (1024, 768)],
    "laptop": [(1440, 900), (1366, 768), (1280, 800), (1536, 864)],
    "monitor": [(1920, 1080), (1680, 1050)],
}

_BANK = None
_BYID = None


def _init_worker(bank_path):
    global _BANK, _BYID
    cv2.setNumThreads(1)
    _BANK = load_bank(bank_path)
    _BYID = {e["id"]: e for e in _BANK}


def load_bank(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


def tp_range(rng, display):
    if display in ("phone", "tablet") and rng.random() < 0.15:
        return rng.uniform(42, 58)
    lo, hi, mode = dict(phone=(20, 46, 30), tablet=(19, 44, 28), laptop=(18, 40, 24), monitor=(18, 36, 23),
                        projector=(18, 38, 24), whiteboard=(18, 40, 26), tv=(18, 40, 25))[display]
    return rng.triangular(lo, hi, mode)


def make_photo(job):
    idx, seed, bid, scene, display, planned_content, outdir = job
    t0 = time.time()
    rng = random.Random(f"tune30:{seed}:{idx}")
    nrng = np.random.default_rng([int(seed), int(idx), 30])
    target = _BYID[bid]
    ctx = Ctx(rng, nrng, _BANK, target)
    classroom = scene == "classroom"
    content = planned_content
    if display == "phone":
        orient = "portrait" if rng.random() < 0.8 else "landscape"
    elif display == "tablet":
        orient = rng.choice(["portrait", "landscape"])
    else:
        orient = "landscape" if rng.random() < 0.8 else "portrait"
    Wp, Hp = (1280, 960) if orient == "landscape" else (960, 1280)
    ctx.lang = "zh" if rng.random() < 0.7 else "en"
    ctx.fam_ui = rng.choice(UI_FAMILIES)
    ctx.fam_doc = rng.choice(DOC_FAMILIES) if content in ("pdf", "slide") else ctx.fam_ui
    ctx.blank_style = "line" if rng.random() < 0.65 else "underscores"
    ctx.label_style = rng.choice(LABELS_BY_CONTENT[content])
    ctx.in_group = content in ("pdf", "slide") and rng.random() < 0.3
    if classroom:
        dark = content == "slide" and rng.random() < 0.3 or (display == "tv" and content != "slide" and rng.random() < 0.3)
    else:
        dark = rng.random() < 0.36
    tp = tp_range(rng, display)
    grid = display in ("laptop", "monitor", "tablet") and tp >= 28 and rng.random() < 0.5
    if grid:
        fc = rng.uniform(13, 15.5)
        if tp / fc < 2.3:
            fc = tp / 2.3
    else:
        fc = tp / rng.uniform(0.75, 1.2)
    qlen = sum(2 if is_wide(c) else 1 for c in target["question"])
    narrow = qlen > 36 and rng.random() < 0.55
    # ---- screen spec ----------------------------------------------------------
    scr_kind = display if not classroom else "laptop"
    if classroom and content == "slide":
        lw, lh = rng.choice([(1280, 720), (1024, 768)])
    elif classroom:
        lw, lh = rng.choice([(1280, 800), (1366, 768), (1280, 720)])
    else:
        lw, lh = rng.choice(LOGICAL[display])
        if display == "tablet" and (orient == "portrait") == (rng.random() < 0.75):
            lw, lh = lh, lw
    scr = dict(kind=scr_kind, dark=dark)
    zoom_pct = ""
    if content == "app":
        base = 17.0 if display == "tablet" else 16.0
    elif content == "chat":
        base = 16.0 if scr_kind == "phone" or (scr_kind == "tablet" and lw < lh) else 14.5
    elif content == "slide":
        base = rng.uniform(28, 42)
        scr["template"] = rng.choice(["navy", "chalk"]) if dark else rng.choice(["white", "white", "grad"])
    else:
        fs_pt = rng.uniform(10.5, 13)
        scr["cols"] = 2 if (narrow or rng.random() < 0.3) else 1
        colw_pt = 471.0 if scr["cols"] == 1 else 222.5
        if scr_kind in ("phone", "tablet"):
            # zoom relative to fit-width; the text column must still fit the screen width
            zmax = 0.86 * lw * 595 / ((lw - (0 if scr_kind == "phone" else 40)) * colw_pt)
            zf = rng.uniform(min(1.0, zmax), min(zmax, 2.4))
            base = fs_pt * (lw - (0 if scr_kind == "phone" else 40)) * zf / 595
        else:
            zmax = 0.80 * lw / (1.3333 * colw_pt)
            zoom = rng.choice([z for z in (1.0, 1.1, 1.25, 1.5, 1.75, 2.0) if z <= zmax] or [1.0])
            zoom_pct = int(round(zoom * 100))
            base = fs_pt * 1.3333 * zoom
    u = fc / base
    umax = 3400 / max(lw, lh)
    if u > umax:
        u = umax
        fc = base * u
    W, H = int(round(lw * u)), int(round(lh * u))
    scr.update(W=W, H=H, u=u)
    if content == "pdf":
        scr["page_k"] = fc / fs_pt
        scr["zoom_pct"] = zoom_pct
    s = tp / fc
    ctx.fc = fc
    ctx.max_text_w = 0.82 * Wp / s
    if narrow:
        # narrow enough to wrap, wide enough to keep the problem within about 4 lines
        ctx.max_text_w = min(ctx.max_text_w, max(rng.uniform(10.5, 16), qlen / 2 / 3.5) * fc)
    render = dict(app=render_app, chat=render_chat, pdf=render_pdf, slide=render_slide)[content]
    img, tbox, nlines, T = render(ctx, scr)
    content_u8 = np.asarray(img.convert("RGB"))
    # ---- plane geometry ----------------------------------------------------------
    sc = Scene()
    sc.display, sc.u, sc.grid = display, u, grid
    keystone = 0.0
    if classroom:
        sc.kind = "board"
        if display in ("projector", "whiteboard"):
            kx = rng.uniform(0.0, 0.06) * rng.choice([-1, 1])
            ky = rng.uniform(-0.02, 0.02)
            keystone = kx
            src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
            dst = np.float32([[-kx * W / 2 if kx > 0 else 0, ky * H if ky > 0 else 0],
                              [W + (kx * W / 2 if kx > 0 else 0), -ky * H if ky < 0 else 0],
                              [W - (kx * W / 2 if kx < 0 else 0), H], [kx * W / 2 if kx < 0 else 0, H]])
            dst[:, 0] -= dst[:, 0].min() - 0
            Hk = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
        else:
            Hk = np.eye(3)
        sc.wall_col = rng.choice([(226, 222, 208), (215, 220, 214), (236, 233, 226), (205, 208, 214)])
        sc.blackboard = rng.random() < 0.5
        sc.margin = rng.uniform(0.02, 0.07) * W
        sc.surface_col = rng.choice([(236, 236, 232), (242, 242, 240), (228, 229, 230)]) if display == "projector" \
            else (246, 247, 249)
        sc.screen_border = rng.random() < 0.5
        sc.ambient = rng.uniform(0.28, 0.55)
        sc.proj_gain = rng.uniform(0.85, 1.3)
        sc.black_level = rng.uniform(0.04, 0.16)
        sc.hot_fall = rng.uniform(0.12, 0.4)
        qk = hmap(Hk, [[W / 2, H / 2]])[0]
        sc.hot_c = (qk[0] + rng.uniform(-0.15, 0.15) * W, qk[1] + rng.uniform(-0.15, 0.1) * H)
        sc.brightness = rng.uniform(0.85, 1.05)
        sc.reflect = rng.uniform(0.0, 0.06)
    else:
        sc.kind = "device"
        Hk = np.eye(3)
        if display == "phone":
            bz = rng.uniform(10, 16) * u
            sc.bez = (bz, bz * 1.05, bz, bz * 1.05)
            sc.radius, sc.screen_radius = 54 * u, 42 * u
            sc.body_col = rng.choice([(12, 12, 14), (20, 20, 24), (235, 235, 238)]) if rng.random() < 0.3 else (10, 10, 12)
            sc.frame_col = rng.choice([(170, 172, 178), (60, 62, 70), (196, 170, 130), (60, 80, 120), None])
        elif display == "tablet":
            bz = rng.uniform(20, 32) * u
            sc.bez = (bz, bz, bz, bz)
            sc.radius, sc.screen_radius = 36 * u, rng.choice([0, 18]) * u
            sc.body_col = rng.choice([(12, 12, 14), (240, 240, 242), (20, 20, 22)])
            sc.frame_col = rng.choice([(170, 172, 178), (80, 82, 88), None])
        elif display == "laptop":
            sc.bez = (14 * u, 24 * u, 14 * u, 40 * u)
            sc.radius, sc.screen_radius = 14 * u, 0
            sc.body_col = rng.choice([(14, 14, 16), (28, 28, 30), (190, 192, 196)])
            sc.frame_col = None
            sc.deck_h = 0.7 * H
            sc.deck_col = rng.choice([(188, 190, 194), (96, 98, 104), (40, 40, 44)])
        else:
            sc.bez = (9 * u, 9 * u, 9 * u, 24 * u)
            sc.radius, sc.screen_radius = 6 * u, 0
            sc.body_col = rng.choice([(16, 16, 18), (30, 30, 32), (220, 220, 222)])
            sc.frame_col = None
        sc.ambient = rng.uniform(0.55, 1.0)
        sc.brightness = rng.uniform(0.85, 1.04)
        sc.reflect = rng.uniform(0.0, 0.08 if dark else 0.04)
        sc.hand = None
    tq = hmap(Hk, box_quad(tbox))
    pc = tq.mean(axis=0)
    sc.pc = pc
    M = max(W, H)
    sc.extent = (-3 * M, -3 * M, W + 3 * M, H + 3 * M)
    if display == "phone" and rng.random() < 0.3:
        hr = rng.uniform(45, 70) * u
        side = rng.choice([-1, 1])
        hx = -sc.bez[0] - hr * 0.35 if side < 0 else W + sc.bez[2] + hr * 0.35
        hy = rng.uniform(0.6, 0.95) * H
        if not boxes_overlap((hx - hr, hy - 1.6 * hr, hx + hr, hy + 1.6 * hr), tuple(tq.min(0)) + tuple(tq.max(0)), 10 * u):
            sc.hand = (hx, hy, hr)
    # ---- camera ------------------------------------------------------------------
    f = max(Wp, Hp) * rng.uniform(0.72, 1.3)
    if classroom:
        yaw = rng.uniform(-22, 22)
        pitch = rng.uniform(3, 18) * rng.choice([-1, 1, 1])
        roll = rng.uniform(-4, 4)
        cap = 25.0
    else:
        a = rng.triangular(0, 25, 9)
        phi = rng.uniform(0, 2 * math.pi)
        yaw, pitch = a * math.cos(phi), a * math.sin(phi)
        roll = rng.uniform(-8, 8)
        cap = 25.0
    mag = math.hypot(yaw, pitch)
    if mag > cap:
        yaw, pitch = yaw * cap / mag, pitch * cap / mag
    off = [rng.uniform(-0.06, 0.06) * Wp, rng.uniform(-0.06, 0.06) * Hp]
    fit_ok = 0
    s0 = s
    for attempt in range(30):
        Hcam = camera_h(pc, s, Wp, Hp, off, yaw, pitch, roll, f)
        q = hmap(Hcam, tq)
        mx, my = 0.035 * Wp, 0.035 * Hp
        if q[:, 0].min() >= mx and q[:, 0].max() <= Wp - mx and q[:, 1].min() >= my and q[:, 1].max() <= Hp - my:
            fit_ok = 1
            break
        p1 = hmap(Hcam, [[pc[0], pc[1] - fc / 2], [pc[0], pc[1] + fc / 2]])
        tpx = float(np.linalg.norm(p1[0] - p1[1]))
        if tpx > 18.5:
            s *= 0.94
        else:
            off = [off[0] * 0.5, off[1] * 0.5]
            yaw, pitch = yaw * 0.85, pitch * 0.85
    p1 = hmap(Hcam, [[pc[0], pc[1] - fc / 2], [pc[0], pc[1] + fc / 2]])
    text_px = float(np.linalg.norm(p1[0] - p1[1]))
    sc.ps = 3.0 if grid else min(1.0, s * 1.1)
    sc.s = s
    # ---- render ---------------------------------------------------------------------
    photo, info = render_scene(sc, rng, nrng, content_u8, Hk, Hcam, Wp, Hp)
    tqp = hmap(Hcam, tq)
    tb_p = (float(tqp[:, 0].min()), float(tqp[:, 1].min()), float(tqp[:, 0].max()), float(tqp[:, 1].max()))
    smask = poly_mask(info["screen_poly"], Wp, Hp, 1.0)
    dmask = poly_mask(info["dev_poly"], Wp, Hp, 2.0)
    screen_frac = float(smask.mean())
    bezel_visible = int(float((dmask - smask).clip(0, 1).mean()) > 0.004)
    outside_frac = float(1 - dmask.mean())
    ex = {}
    moire = "none"
    if grid:
        moire = "grid-alias"
    if not classroom and rng.random() < 0.35:
        ex.update(add_moire(photo, smask, rng, nrng, Wp, Hp))
        moire = "bands" if moire == "none" else moire + "+bands"
    elif classroom and display == "tv" and rng.random() < 0.4:
        ex.update(add_moire(photo, smask, rng, nrng, Wp, Hp))
        moire = "bands"
    glare = "none"
    gp = 0.45 if not classroom else (0.5 if display in ("tv", "whiteboard") else 0.15)
    if rng.random() < gp:
        glare = rng.choice(["window", "lamp"]) if display != "whiteboard" else "lamp"
        ex.update(add_glare(photo, dmask, rng, nrng, Wp, Hp, tb_p, glare, cap=0.16 if classroom else 0.36))
    hand_shadow = 0
    if display == "projector" and rng.random() < 0.22:
        hand_shadow = int(add_hand_shadow(photo, smask, rng, Wp, Hp, tb_p))
    # exposure, white balance
    if classroom and display in ("projector", "whiteboard"):
        white_c = sc.ambient + sc.proj_gain
        exposure = rng.uniform(1.0, 1.3) / white_c
    else:
        exposure = rng.uniform(0.9, 1.08) / max(0.8, sc.brightness)
    wb = np.array([1 + rng.uniform(-0.06, 0.06), 1 + rng.uniform(-0.025, 0.025), 1 + rng.uniform(-0.06, 0.06)], np.float32)
    photo *= exposure * wb[None, None]
    yy, xx = np.mgrid[0:Hp, 0:Wp].astype(np.float32)
    rr = ((xx - Wp / 2) ** 2 + (yy - Hp / 2) ** 2) / ((Wp / 2) ** 2 + (Hp / 2) ** 2)
    vig = rng.uniform(0.3, 0.55) if classroom else rng.uniform(0.05, 0.3)
    photo *= (1 - vig * rr)[..., None]
    mx_ = photo.max(axis=2, keepdims=True)
    tt = np.clip((mx_ - 0.85) / 0.35, 0, 1)
    photo = photo * (1 - tt) + mx_ * tt
    gamma = rng.uniform(0.92, 1.08)
    photo = np.clip(photo, 0, 1) ** gamma
    u8 = (photo * 255 + 0.5).astype(np.uint8)
    pointer = "none"
    heads = 0
    if classroom:
        if rng.random() < 0.2:
            pointer = rng.choice(["stick", "laser"])
            u8, drawn = draw_pointer(u8, rng, Wp, Hp, tb_p, pointer, text_px)
            if not drawn:
                pointer = "none"
        if rng.random() < 0.4:
            u8, heads = draw_heads(u8, rng, Wp, Hp, tb_p)
    a = u8.astype(np.float32)
    r_ = rng.random()
    blur = 0.0 if r_ < 0.3 else (rng.uniform(0.35, 1.0) if r_ < 0.85 else rng.uniform(1.0, 1.4))
    if blur > 0:
        a = cv2.GaussianBlur(a, (0, 0), blur)
    motion = 0
    if rng.random() < 0.15:
        motion = rng.randint(2, 5)
        a = cv2.filter2D(a, -1, motion_kernel(motion, rng.uniform(0, math.pi)))
    fringe = 0.0
    if rng.random() < 0.45:
        fringe = rng.uniform(0.0006, 0.0018)
        for c, sgn in ((0, 1), (2, -1)):
            Mx = cv2.getRotationMatrix2D((Wp / 2, Hp / 2), 0, 1 + sgn * fringe)
            a[..., c] = cv2.warpAffine(np.ascontiguousarray(a[..., c]), Mx, (Wp, Hp), flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REFLECT)
    noise = rng.uniform(2.0, 6.0) if classroom else rng.uniform(0.8, 3.5)
    a += nrng.normal(0, noise, a.shape[:2] + (1,)).astype(np.float32)
    a += nrng.normal(0, noise * 0.4, a.shape).astype(np.float32)
    u8 = np.clip(a + 0.5, 0, 255).astype(np.uint8)
    q = rng.randint(60, 90)
    qid = f"s{idx:03d}"
    Image.fromarray(u8).save(os.path.join(outdir, qid + ".jpg"), quality=q)
    # ---- visible neighbours ----------------------------------------------------------
    Hall = Hcam @ Hk
    vis = []
    for iid, b in ctx.items:
        if iid == bid:
            continue
        qq = hmap(Hall, box_quad(b))
        bb = (qq[:, 0].min(), qq[:, 1].min(), qq[:, 0].max(), qq[:, 1].max())
        if bb[2] > 0 and bb[0] < Wp and bb[3] > 0 and bb[1] < Hp and iid not in vis:
            vis.append(iid)
    m = ctx.meta
    flags = []
    if any(c in SUP_MAP for c in target["question"]):
        flags.append("sup")
    if any(c in SUB_MAP for c in target["question"]):
        flags.append("sub")
    if "___" in target["question"]:
        flags.append("blank")
    detail = m.get("chat_mode") or m.get("viewer") or m.get("slide_template") or ""
    if content == "chat":
        detail = f"{m['chat_layout']}/{m['chat_mode']}"
    row = dict(
        qid=qid, bank_id=bid, subject=target["subject"], special="+".join(flags) or "none",
        scene=scene, content=content, display=display, orientation=orient, photo_w=Wp, photo_h=Hp,
        theme=("dark" if m.get("page_dark") else "light") if content == "pdf" else ("dark" if T.get("dark") else "light"),
        ui_theme="dark" if T.get("dark") else "light",
        ui_lang=ctx.lang, ui_font=ctx.fam_ui, text_font=ctx.fam_doc,
        label_style=ctx.label_style if not (m.get("in_group")) else "sub:" + ("①" if m["label_text"][:1] in "①②③" else ("（1）" if m["label_text"][:1] == "（" else "(1)")),
        label_text=m.get("label_text", ""), in_group=m.get("in_group", 0), group_stem=m.get("group_stem", ""),
        columns=m.get("columns", 1), two_pages=m.get("two_pages", 0), content_detail=detail,
        n_in_bubble=m.get("n_in_bubble", ""), options_shown=m.get("options_shown", 0),
        input_box=m.get("input_box", 0), hint_link=m.get("hint_link", 0), score_badge=m.get("score_badge", 0),
        page=m.get("page", ""), zoom_pct=m.get("zoom_pct", ""),
        blank_style=ctx.blank_style if "blank" in flags else "",
        text_lines=nlines, narrow_column=int(narrow), screen_w=W, screen_h=H, ui_scale=round(u, 3), content_font_px=round(fc, 1),
        text_px=round(text_px, 1), text_px_planned=round(tp, 1), scale=round(s, 3), scale_planned=round(s0, 3),
        yaw=round(yaw, 1), pitch=round(pitch, 1), roll=round(roll, 1), focal=round(f), keystone=round(keystone, 3),
        pixel_grid=int(grid), moire=moire, glare=glare, glare_alpha=ex.get("glare_alpha", ""),
        fringe=round(fringe, 4), bezel_visible=bezel_visible, screen_frac=round(screen_frac, 3),
        outside_frac=round(outside_frac, 3), surround=info.get("surround", ""), hand=info.get("hand", 0),
        pointer=pointer, hand_shadow=hand_shadow, heads=heads,
        black_level=round(sc.black_level, 3) if classroom and display != "tv" else "",
        hotspot_falloff=round(sc.hot_fall, 3) if classroom and display != "tv" else "",
        ambient=round(sc.ambient, 3), exposure=round(exposure, 3), vignette=round(vig, 3),
        blur_sigma=round(blur, 2), motion_blur_px=motion, noise_sigma=round(noise, 2), jpeg_quality=q,
        target_box=" ".join(str(int(round(v))) for v in tb_p), fit_ok=fit_ok,
        neighbours_visible=";".join(vis), n_neighbours_visible=len(vis),
        seconds=round(time.time() - t0, 2),
    )
    return idx, row


# --------------------------------------------------------------------------
# plan & main
# --------------------------------------------------------------------------
MIX_120 = ([("app", "phone", "app")] * 10 + [("app", "tablet", "app")] * 9 + [("app", "laptop", "app")] * 8 +
           [("app", "monitor", "app")] * 3 +
           [("chat", "phone", "chat")] * 16 + [("chat", "tablet", "chat")] * 6 + [("chat", "laptop", "chat")] * 6 +
           [("pdf", "laptop", "pdf")] * 10 + [("pdf", "tablet", "pdf")] * 8 + [("pdf", "monitor", "pdf")] * 4 +
           [("pdf", "phone", "pdf")] * 6 +
           [("classroom", "projector", "slide")] * 10 + [("classroom", "projector", "pdf")] * 6 +
           [("classroom", "projector", "app")] * 4 +
           [("classroom", "whiteboard", "slide")] * 4 + [("classroom", "whiteboard", "pdf")] * 2 +
           [("classroom", "whiteboard", "app")] * 1 +
           [("classroom", "tv", "slide")] * 3 + [("classroom", "tv", "app")] * 2 + [("classroom", "tv", "pdf")] * 2)
assert len(MIX_120) == 120


def make_plan(bank, count, seed):
    prng = random.Random(f"tune30-plan:{seed}")
    order = []
    while len(order) < count:
        special = [e["id"] for e in bank if is_special(e["question"])]
        others = [e["id"] for e in bank if not is_special(e["question"])]
        prng.shuffle(special)
        prng.shuffle(others)
        order += special + others
    order = order[:count]
    mix = []
    while len(mix) < count:
        mix += MIX_120
    prng.shuffle(mix)
    mix = mix[:count]
    return [(i + 1, order[i]) + tuple(mix[i]) for i in range(count)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=311)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="", help="comma separated 1-based indices (debugging)")
    a = ap.parse_args(argv)
    t0 = time.time()
    bank = load_bank(a.bank)
    byid = {e["id"]: e for e in bank}
    os.makedirs(a.outdir, exist_ok=True)
    plan = make_plan(bank, a.count, a.seed)
    if a.only:
        keep = {int(x) for x in a.only.split(",") if x.strip()}
        plan = [p for p in plan if p[0] in keep]
    jobs = [(i, a.seed, bid, scene, disp, cont, a.outdir) for i, bid, scene, disp, cont in plan]
    rows = {}
    if a.jobs <= 1:
        _init_worker(a.bank)
        for j in jobs:
            i, r = make_photo(j)
            rows[i] = r
            print(f"  {r['qid']} {r['content']:<5} {r['display']:<10} {r['seconds']:.2f}s", file=sys.stderr)
    else:
        with ProcessPoolExecutor(max_workers=a.jobs, initializer=_init_worker, initargs=(a.bank,)) as ex:
            for i, r in ex.map(make_photo, jobs, chunksize=1):
                rows[i] = r
                print(f"  {r['qid']} {r['content']:<5} {r['display']:<10} {r['seconds']:.2f}s", file=sys.stderr)
    order = sorted(rows)
    with open(os.path.join(a.outdir, "truth.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "text"])
        for i in order:
            w.writerow([rows[i]["qid"], byid[rows[i]["bank_id"]]["question"]])
    with open(os.path.join(a.outdir, "queries.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for i in order:
            e = byid[rows[i]["bank_id"]]
            w.writerow([rows[i]["qid"], e["question"], e["id"], "exact"])
    fields = list(rows[order[0]].keys())
    with open(os.path.join(a.outdir, "cases.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for i in order:
            w.writerow(rows[i])
    dt = time.time() - t0
    print(f"wrote {len(order)} photos to {a.outdir} in {dt:.1f}s (jobs={a.jobs})")
    summary(list(rows[i] for i in order))
    return 0


def summary(rows):
    def show(name, key):
        c = Counter(str(key(r)) for r in rows)
        print(f"{name}: " + ", ".join(f"{k}={v}" for k, v in sorted(c.items(), key=lambda kv: -kv[1])))

    show("scene", lambda r: r["scene"])
    show("content", lambda r: r["content"])
    show("display", lambda r: r["display"])
    show("content/display", lambda r: f"{r['content']}/{r['display']}")
    show("theme", lambda r: r["theme"])
    show("orientation", lambda r: r["orientation"])
    show("label_style", lambda r: r["label_style"])
    show("in_group", lambda r: r["in_group"])
    show("columns", lambda r: r["columns"])
    show("text_lines", lambda r: r["text_lines"])
    show("special", lambda r: r["special"])
    show("moire", lambda r: r["moire"])
    show("pixel_grid", lambda r: r["pixel_grid"])
    show("glare", lambda r: r["glare"])
    show("bezel_visible", lambda r: r["bezel_visible"])
    show("pointer", lambda r: r["pointer"])
    show("hand_shadow", lambda r: r["hand_shadow"])
    tp = [float(r["text_px"]) for r in rows]
    print(f"text_px: min={min(tp):.1f} median={sorted(tp)[len(tp) // 2]:.1f} max={max(tp):.1f}")
    print(f"fit_ok: {sum(int(r['fit_ok']) for r in rows)}/{len(rows)}")


if __name__ == "__main__":
    sys.exit(main())
