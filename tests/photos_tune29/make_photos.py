#!/usr/bin/env python3
"""photos_tune29 -- synthetic phone photos of colourful workbook / textbook pages.

A pupil photographs ONE problem of a printed page (near the photo centre); other
problems of the page (other bank entries) are partly or wholly visible around it.
The pages imitate colourful workbooks and textbooks for younger pupils and
bilingual schools: tinted panels, coloured labels, icons, Tip boxes, worked
examples, answer spaces with pencil answers, mixed Chinese / English content,
photographed at home at a desk.

Usage:
  python make_photos.py --bank appliance/data/demo_bank.jsonl OUTDIR \
      --count 120 --seed 301 [--jobs 2]

Only numpy, Pillow, OpenCV and system fonts are used.  Every photo is drawn
from its own random stream (seed, index) plus a per-set plan drawn from
(seed, PLAN_STREAM), so the output does not depend on --jobs.
"""
from __future__ import annotations

import argparse
import csv
import glob
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

PLAN_STREAM = 987_654_321

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------
FONT_FILES = {
    'noto_sans': ('NotoSansCJK-Regular.ttc', 'SC'),
    'noto_sans_bold': ('NotoSansCJK-Bold.ttc', 'SC'),
    'noto_serif': ('NotoSerifCJK-Regular.ttc', 'SC'),
    'noto_serif_bold': ('NotoSerifCJK-Bold.ttc', 'SC'),
    'dejavu_sans': ('DejaVuSans.ttf', None),
    'dejavu_sans_bold': ('DejaVuSans-Bold.ttf', None),
    'dejavu_sans_cond': ('DejaVuSansCondensed.ttf', None),
    'dejavu_sans_cond_bold': ('DejaVuSansCondensed-Bold.ttf', None),
    'dejavu_serif': ('DejaVuSerif.ttf', None),
    'dejavu_serif_bold': ('DejaVuSerif-Bold.ttf', None),
    'liberation_sans': ('LiberationSans-Regular.ttf', None),
    'liberation_sans_bold': ('LiberationSans-Bold.ttf', None),
    'liberation_serif': ('LiberationSerif-Regular.ttf', None),
    'liberation_serif_bold': ('LiberationSerif-Bold.ttf', None),
    'hand_light': ('DejaVuSans-ExtraLight.ttf', None),
    'hand_italic': ('LiberationSans-Italic.ttf', None),
    'hand_oblique': ('DejaVuSans-Oblique.ttf', None),
    'hand_serif_italic': ('LiberationSerif-Italic.ttf', None),
}
CJK_FONTS = ['noto_sans', 'noto_serif']
LAT_FONTS = {  # latin partner fonts per CJK family
    'noto_sans': ['dejavu_sans', 'liberation_sans', 'dejavu_sans_cond', 'noto_sans'],
    'noto_serif': ['liberation_serif', 'dejavu_serif', 'noto_serif'],
}
HAND_FONTS = ['hand_light', 'hand_italic', 'hand_oblique', 'hand_serif_italic']

_FONT_PATHS: dict = {}
_FONT_CACHE: dict = {}
_GLYPH_CACHE: dict = {}


def _locate(fname):
    for root in ('/usr/share/fonts', '/usr/local/share/fonts', os.path.expanduser('~/.fonts')):
        hits = glob.glob(os.path.join(root, '**', fname), recursive=True)
        if hits:
            return sorted(hits)[0]
    raise SystemExit(f'font file {fname} not found (install fonts-noto-cjk, fonts-dejavu, fonts-liberation)')


def font_path(key):
    if key not in _FONT_PATHS:
        fname, want = FONT_FILES[key]
        path = _locate(fname)
        index = 0
        if want:
            for i in range(12):
                try:
                    name = ImageFont.truetype(path, 12, index=i).getname()[0]
                except Exception:
                    break
                if name.endswith(' ' + want) and 'Mono' not in name:
                    index = i
                    break
        _FONT_PATHS[key] = (path, index)
    return _FONT_PATHS[key]


def get_font(key, size):
    size = max(6, int(round(size)))
    k = (key, size)
    f = _FONT_CACHE.get(k)
    if f is None:
        path, index = font_path(key)
        f = ImageFont.truetype(path, size, index=index)
        _FONT_CACHE[k] = f
    return f


def has_glyph(key, ch):
    """True when font `key` has a real glyph for ch (compared with .notdef)."""
    k = (key, ch)
    r = _GLYPH_CACHE.get(k)
    if r is None:
        f = get_font(key, 40)
        try:
            m1 = f.getmask(ch)
            m0 = f.getmask('\U000F0123')  # private-use plane, absent from these fonts
            same = (m1.size == m0.size and bytes(m1) == bytes(m0)
                    and abs(f.getlength(ch) - f.getlength('\U000F0123')) < 1e-6)
            r = not same
        except Exception:
            r = False
        _GLYPH_CACHE[k] = r
    return r


# --------------------------------------------------------------------------
# rich text: superscripts, subscripts, blanks
# --------------------------------------------------------------------------
SUP = {'²': '2', '³': '3', '¹': '1', '⁰': '0', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7',
       '⁸': '8', '⁹': '9', '⁺': '+', '⁻': '-', 'ⁿ': 'n'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6', '₇': '7',
       '₈': '8', '₉': '9', 'ₙ': 'n', '₊': '+', '₋': '-', 'ₓ': 'x'}
CLOSE = set('，。、；：？！）》」』”’%】…·,.;:?!)]}')
OPEN = set('（《「『“‘【([{')


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x2FFF or 0x3000 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF
            or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFE30 <= o <= 0xFE4F
            or 0xFF00 <= o <= 0xFFEF or ch in '“”‘’…—')


def is_special(q):
    return '___' in q or any(c in SUP or c in SUB for c in q)


def lang_of(q):
    return 'zh' if any(0x4E00 <= ord(c) <= 0x9FFF for c in q) else 'en'


def parse_rich(s):
    """-> list of elements (kind, text); kind in n/sup/sub/blank; one element per char."""
    out = []
    i = 0
    while i < len(s):
        if s.startswith('___', i):
            j = i
            while j < len(s) and s[j] == '_':
                j += 1
            out.append(('blank', s[i:j]))
            i = j
            continue
        c = s[i]
        if c in SUP:
            out.append(('sup', SUP[c]))
        elif c in SUB:
            out.append(('sub', SUB[c]))
        else:
            out.append(('n', c))
        i += 1
    return out


class Unit:
    __slots__ = ('w', 'space', 'pieces')

    def __init__(self, w, space, pieces):
        self.w = w
        self.space = space
        self.pieces = pieces  # list of (text, kind, which, width)


class TS:
    """Typesetter for one font pair at one size."""

    def __init__(self, cjk, lat, fs, sup_scale=0.62, blank_style='underline', blank_em=3.2):
        self.cjk, self.lat, self.fs = cjk, lat, fs
        self.sup_scale = sup_scale
        self.blank_style = blank_style
        self.blank_em = blank_em

    def which(self, ch):
        if is_cjk(ch):
            return 'cjk'
        return 'lat' if has_glyph(self.lat, ch) else 'cjk'

    def font(self, which, kind):
        size = self.fs if kind == 'n' else self.fs * self.sup_scale
        return get_font(self.cjk if which == 'cjk' else self.lat, size)

    def units(self, elems):
        units = []
        cur = []  # list of (kind, ch, which)

        def flush():
            if not cur:
                return
            pieces = []
            for kind, ch, wh in cur:
                if pieces and pieces[-1][1] == kind and pieces[-1][2] == wh and kind != 'blank':
                    pieces[-1][0] += ch
                else:
                    pieces.append([ch, kind, wh, 0.0])
            tot = 0.0
            for p in pieces:
                if p[1] == 'blank':
                    if self.blank_style == 'underline':
                        p[3] = self.blank_em * self.fs
                    else:
                        p[3] = get_font(self.lat, self.fs).getlength('_' * 7)
                else:
                    p[3] = self.font(p[2], p[1]).getlength(p[0])
                tot += p[3]
            units.append(Unit(tot, False, [tuple(p) for p in pieces]))
            cur.clear()

        prev = None
        for kind, t in elems:
            if kind == 'n' and t == ' ':
                flush()
                units.append(Unit(get_font(self.lat, self.fs).getlength(' '), True, []))
                prev = None
                continue
            wh = 'lat' if kind == 'blank' else self.which(t)
            if prev is not None and cur:
                pk, pt = prev
                cjk_a = pk == 'n' and is_cjk(pt)
                cjk_b = kind == 'n' and is_cjk(t)
                if (cjk_a or cjk_b) and not (kind == 'n' and t in CLOSE) and not (pk == 'n' and pt in OPEN):
                    flush()
            cur.append((kind, t, wh))
            prev = (kind, t)
        flush()
        return units

    def wrap(self, units, w_first, w_rest):
        lines, cur, cw, limit = [], [], 0.0, w_first
        for u in units:
            if u.space:
                if cur:
                    cur.append(u)
                    cw += u.w
                continue
            if cur and cw + u.w > limit:
                while cur and cur[-1].space:
                    cw -= cur[-1].w
                    cur.pop()
                lines.append(cur)
                cur, cw, limit = [], 0.0, w_rest
            cur.append(u)
            cw += u.w
        while cur and cur[-1].space:
            cur.pop()
        if cur:
            lines.append(cur)
        return lines

    @staticmethod
    def line_width(line):
        return sum(u.w for u in line)

    def draw_line(self, d, x, base, line, color):
        fs = self.fs
        for u in line:
            if u.space:
                x += u.w
                continue
            for text, kind, wh, w in u.pieces:
                if kind == 'blank':
                    if self.blank_style == 'underline':
                        th = max(1, int(round(fs / 15)))
                        yb = base + 0.14 * fs
                        d.line([(x + 0.1 * fs, yb), (x + w - 0.1 * fs, yb)], fill=color, width=th)
                    else:
                        d.text((x, base), '_' * 7, font=get_font(self.lat, fs), fill=color, anchor='ls')
                elif kind == 'sup':
                    d.text((x, base - 0.40 * fs), text, font=self.font(wh, kind), fill=color, anchor='ls')
                elif kind == 'sub':
                    d.text((x, base + 0.17 * fs), text, font=self.font(wh, kind), fill=color, anchor='ls')
                else:
                    d.text((x, base), text, font=self.font(wh, kind), fill=color, anchor='ls')
                x += w
        return x

    def plain_width(self, text):
        return sum(u.w for u in self.units(parse_rich(text)))

    def draw_plain(self, d, x, base, text, color):
        line = self.units(parse_rich(text))
        if d is not None:
            self.draw_line(d, x, base, line, color)
        return sum(u.w for u in line)


# --------------------------------------------------------------------------
# colours and content
# --------------------------------------------------------------------------
ACCENTS = {
    'blue': (38, 110, 200), 'green': (46, 150, 80), 'orange': (236, 132, 32),
    'purple': (128, 72, 172), 'pink': (222, 72, 118), 'teal': (16, 148, 150),
    'red': (210, 60, 50), 'yellow': (226, 172, 20),
}
TEXT_COLS = {
    'black': (28, 28, 30), 'dark_blue': (22, 42, 112), 'dark_green': (22, 82, 46),
    'brown': (96, 56, 26), 'purple': (78, 36, 108), 'dark_gray': (55, 55, 62),
}
PAPERS = {'white': (250, 250, 247), 'cream': (250, 244, 226), 'bluish': (243, 247, 252),
          'pale_yellow': (252, 248, 224), 'pale_green': (244, 250, 240)}
CIRCLED = '①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳'
LABEL_STYLES = ['dot', 'dun', 'paren', 'fwparen', 'circled', 'bracket', 'q', 'exercise', 'di',
                'disc', 'square', 'flag', 'none']
PANEL_STYLES = ['rounded_box', 'band', 'frame', 'alt_rows', 'big_panel', 'none']
ANSWER_STYLES = ['none', 'box_below', 'box_right', 'lines', 'grid', 'answer_line']

HEADINGS = {
    'zh': ['练一练', '第三单元 练习', '课堂练习', '巩固练习', '想一想，做一做', '基础训练', '第二单元 复习',
           '拓展练习', '做一做', '第五单元 测试'],
    'en': ['Practice 4B', 'Try these', "Let's practise!", 'Unit 3 Exercises', 'Warm-up',
           'Check your understanding', 'Practice 2A', 'Try it yourself', 'Review 5', 'Quick check'],
    'bi': ['练一练 Practice', '练习 Exercise 2A', 'Try these 试一试', '课堂练习 Class practice',
           'Unit 4 第四单元 练习', '复习 Review'],
}
UNIT_TAGS = {'zh': ['第一单元', '第三单元', '第四单元', '第六单元', '数学乐园', '科学小站'],
             'en': ['Unit 2', 'Unit 3', 'Unit 5', 'Chapter 4', 'Module 1', 'Book 3A'],
             'bi': ['Unit 3 第三单元', '第二单元 Unit 2', 'Module 4 模块四']}
TIPS = {
    'zh': [('提示', '先找出已知条件，再列式计算。'), ('提示', '注意单位要统一。'), ('想一想', '还有其他方法吗？'),
           ('想一想', '你是怎样想的？和同桌说一说。'), ('小贴士', '做完后记得检查一遍哦！'), ('提示', '可以先画图帮助思考。')],
    'en': [('Tip', 'Read the question twice.'), ('Tip', 'Check your units!'), ('Hint', 'Draw a picture first.'),
           ('Remember', 'Show your working.'), ('Think', 'Is there another way?'), ('Tip', 'Underline the key words.')],
}
EXAMPLES = {
    'zh': [('计算：1/2 + 1/3', '解：原式 = 3/6 + 2/6 = 5/6'),
           ('解方程：3x + 2 = 14', '解：3x = 12，x = 4'),
           ('一个正方形的边长是 5 厘米，它的周长是多少厘米？', '解：5 × 4 = 20（厘米）'),
           ('计算：25 × 4 + 16', '解：原式 = 100 + 16 = 116'),
           ('写出铜的元素符号。', '答：Cu'),
           ('一本书 12 元，买 3 本要多少元？', '解：12 × 3 = 36（元）')],
    'en': [('Solve: 4x - 3 = 9.', 'Solution: 4x = 12, so x = 3.'),
           ('What is 25% of 80?', 'Solution: 0.25 × 80 = 20.'),
           ('What is the plural of "box"?', 'Answer: boxes.'),
           ('Work out 3.5 + 2.7.', 'Solution: 3.5 + 2.7 = 6.2'),
           ('A pen costs 4 yuan. How much do 6 pens cost?', 'Solution: 6 × 4 = 24 yuan.')],
}
STEMS = {
    'zh': ['根据所学知识，回答下列问题。', '回答下列问题。', '完成下面各题。', '读一读，答一答。',
           '按要求完成下列各题。', '请回答下面的问题：'],
    'en': ['Answer the questions below.', 'Read and answer.', 'Answer these questions.',
           'Work out the following.', 'Answer each question.'],
}
PENCIL_ANSWERS = ['5', 'x = 5', '40', '26', '60 km/h', '1/2', '3/8', '12', 'x=2, x=3', '0.5', 'B', 'A',
                  'went', 'goes', '7', '24', '3.14', '96', '20 cm', '(0, 1)', '8', 'x = 4', 'yes', '180']
ICONS = ['pencil', 'star', 'bulb', 'bubble', 'smiley', 'apple']


def ch(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def wch(rng, items):
    """weighted choice from [(value, weight), ...]"""
    vals = [v for v, _ in items]
    w = np.array([x for _, x in items], float)
    return vals[int(rng.choice(len(vals), p=w / w.sum()))]


def mix(c1, c2, a):
    return tuple(int(round(c1[i] * (1 - a) + c2[i] * a)) for i in range(3))


# --------------------------------------------------------------------------
# icons (drawn with primitives)
# --------------------------------------------------------------------------
def draw_icon(d, name, cx, cy, r, accent, rng_val=0.0):
    dark = (60, 50, 40)
    lw = max(1, int(r / 9))
    if name == 'star':
        pts = []
        for i in range(10):
            a = -math.pi / 2 + i * math.pi / 5
            rr = r if i % 2 == 0 else r * 0.45
            pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
        d.polygon(pts, fill=(250, 200, 40), outline=(200, 130, 20))
    elif name == 'pencil':
        ang = math.radians(-35 + 20 * rng_val)
        ux, uy = math.cos(ang), math.sin(ang)
        vx, vy = -uy, ux
        L, wdt = 1.8 * r, 0.36 * r

        def P(a, b):
            return (cx + ux * a + vx * b, cy + uy * a + vy * b)
        d.polygon([P(-L / 2, -wdt / 2), P(L / 4, -wdt / 2), P(L / 4, wdt / 2), P(-L / 2, wdt / 2)],
                  fill=(250, 196, 40), outline=dark)
        d.polygon([P(L / 4, -wdt / 2), P(L / 2, 0), P(L / 4, wdt / 2)], fill=(236, 200, 150), outline=dark)
        d.polygon([P(0.42 * L, -wdt / 6), P(L / 2, 0), P(0.42 * L, wdt / 6)], fill=(50, 50, 50))
        d.polygon([P(-L / 2, -wdt / 2), P(-0.6 * L, -wdt / 2), P(-0.6 * L, wdt / 2), P(-L / 2, wdt / 2)],
                  fill=(170, 170, 175), outline=dark)
        d.polygon([P(-0.6 * L, -wdt / 2), P(-0.72 * L, -wdt / 2), P(-0.72 * L, wdt / 2), P(-0.6 * L, wdt / 2)],
                  fill=(240, 130, 150), outline=dark)
    elif name == 'bulb':
        d.ellipse([cx - 0.55 * r, cy - 0.85 * r, cx + 0.55 * r, cy + 0.25 * r], fill=(255, 222, 70),
                  outline=(190, 140, 20), width=lw)
        d.rectangle([cx - 0.28 * r, cy + 0.2 * r, cx + 0.28 * r, cy + 0.6 * r], fill=(150, 150, 160), outline=dark)
        d.line([(cx - 0.28 * r, cy + 0.37 * r), (cx + 0.28 * r, cy + 0.37 * r)], fill=dark, width=lw)
        for a in (-150, -115, -65, -30, -90):
            t = math.radians(a)
            d.line([(cx + 0.72 * r * math.cos(t), cy - 0.3 * r + 0.72 * r * math.sin(t)),
                    (cx + 0.98 * r * math.cos(t), cy - 0.3 * r + 0.98 * r * math.sin(t))],
                   fill=(240, 170, 20), width=lw + 1)
    elif name == 'bubble':
        d.rounded_rectangle([cx - r, cy - 0.75 * r, cx + r, cy + 0.45 * r], radius=int(0.35 * r),
                            fill=(255, 255, 255), outline=accent, width=lw + 1)
        d.polygon([(cx - 0.5 * r, cy + 0.42 * r), (cx - 0.75 * r, cy + 0.95 * r), (cx - 0.1 * r, cy + 0.42 * r)],
                  fill=(255, 255, 255), outline=accent)
        d.line([(cx - 0.5 * r + 2, cy + 0.42 * r), (cx - 0.1 * r - 2, cy + 0.42 * r)], fill=(255, 255, 255), width=lw + 1)
        for k in (-1, 0, 1):
            d.ellipse([cx + k * 0.45 * r - 0.12 * r, cy - 0.27 * r, cx + k * 0.45 * r + 0.12 * r, cy - 0.03 * r],
                      fill=accent)
    elif name == 'smiley':
        d.ellipse([cx - r, cy - r, cx + r, cy + r], fill=(255, 214, 60), outline=(200, 140, 20), width=lw)
        d.ellipse([cx - 0.45 * r, cy - 0.4 * r, cx - 0.2 * r, cy - 0.1 * r], fill=dark)
        d.ellipse([cx + 0.2 * r, cy - 0.4 * r, cx + 0.45 * r, cy - 0.1 * r], fill=dark)
        d.arc([cx - 0.55 * r, cy - 0.45 * r, cx + 0.55 * r, cy + 0.6 * r], 20, 160, fill=dark, width=lw + 1)
    elif name == 'apple':
        d.ellipse([cx - 0.85 * r, cy - 0.6 * r, cx + 0.05 * r, cy + 0.85 * r], fill=(220, 50, 50))
        d.ellipse([cx - 0.05 * r, cy - 0.6 * r, cx + 0.85 * r, cy + 0.85 * r], fill=(220, 50, 50))
        d.line([(cx, cy - 0.55 * r), (cx + 0.1 * r, cy - 0.95 * r)], fill=(110, 70, 30), width=lw + 1)
        d.ellipse([cx + 0.1 * r, cy - 0.95 * r, cx + 0.6 * r, cy - 0.7 * r], fill=(70, 160, 60))


# --------------------------------------------------------------------------
# page layout
# --------------------------------------------------------------------------
class Ctx:
    pass


def label_info(ctx, n, style=None, sub=False):
    """-> (width_px, own_line, draw(d, x, base)) for a problem label."""
    st = ctx.st
    style = style or st['label_style']
    fs = ctx.fs
    if style == 'none':
        return 0.0, False, None
    if style in ('disc', 'square', 'flag'):
        txt = str(n)
        f = get_font(st['lat_bold'], fs * 0.78)
        tw = f.getlength(txt)
        wd = max(1.25 * fs, tw + 0.5 * fs) + (0.35 * fs if style == 'flag' else 0)
        col = ctx.label_color

        def draw(d, x, base, wd=wd, txt=txt, f=f):
            cy = base - 0.36 * fs
            h = 1.25 * fs
            if style == 'disc':
                d.ellipse([x, cy - h / 2, x + wd, cy + h / 2], fill=col)
            elif style == 'square':
                d.rounded_rectangle([x, cy - h / 2, x + wd, cy + h / 2], radius=int(0.22 * fs), fill=col)
            else:
                d.polygon([(x, cy - h / 2), (x + wd, cy - h / 2), (x + wd - 0.35 * fs, cy),
                           (x + wd, cy + h / 2), (x, cy + h / 2)], fill=col)
            cx = x + (wd - (0.35 * fs if style == 'flag' else 0)) / 2
            d.text((cx, cy), txt, font=f, fill=(255, 255, 255), anchor='mm')
        return wd, False, draw
    txt = {'dot': f'{n}.', 'dun': f'{n}、', 'paren': f'({n})', 'fwparen': f'（{n}）',
           'circled': CIRCLED[(n - 1) % 20], 'bracket': f'[{n}]', 'q': f'Q{n}',
           'exercise': f'Exercise {n}', 'di': f'第{n}题'}[style]
    ts = ctx.ts_label
    w = ts.plain_width(txt)
    own = style in ('exercise', 'di') and st['label_own_line']
    col = ctx.label_color

    def draw(d, x, base, txt=txt):
        ts.draw_plain(d, x, base, txt, col)
    return w, own, draw


class Block:
    def __init__(self):
        self.h = 0.0
        self.bg = []     # callables(d) drawn first
        self.fg = []     # callables(d)
        self.post = []   # callables(arr) drawn on numpy array after PIL (pencil)
        self.boxes = []  # (entry_id, x0, y0, x1, y1, framed, nlines)
        self.has_panel = True


def text_lines(ctx, segs_text, x_first, w_first, x_rest, w_rest, base0, color, block, entry_id=None,
               framed=False):
    ts = ctx.ts
    units = ts.units(parse_rich(segs_text))
    lines = ts.wrap(units, w_first, w_rest)
    lh = ctx.lh
    fs = ctx.fs
    x0s, x1s = [], []
    for i, line in enumerate(lines):
        bx = x_first if i == 0 else x_rest
        base = base0 + i * lh
        block.fg.append(lambda d, bx=bx, base=base, line=line: ts.draw_line(d, bx, base, line, color))
        x0s.append(bx)
        x1s.append(bx + ts.line_width(line))
    if entry_id is not None:
        block.boxes.append((entry_id, min(x0s), base0 - 0.92 * fs, max(x1s),
                            base0 + (len(lines) - 1) * lh + 0.25 * fs, framed, len(lines)))
    return len(lines), max(x1s)


def answer_space(ctx, x, y, w, style, pencil, block, rng):
    """Draw an answer space below a problem at (x, y); returns its height."""
    fs = ctx.fs
    st = ctx.st
    acc = ctx.accent
    lc = mix(acc, (255, 255, 255), 0.35) if st['answer_accent'] else (165, 165, 170)
    lw = max(1, int(fs / 18))
    if style == 'box_below':
        bw = w * float(rng.uniform(0.45, 1.0))
        bh = fs * float(rng.uniform(1.8, 2.6))
        y0 = y + 0.3 * fs
        block.bg.append(lambda d: d.rounded_rectangle([x, y0, x + bw, y0 + bh], radius=int(0.3 * fs),
                                                      fill=(255, 255, 255), outline=lc, width=lw + 1))
        if pencil:
            block.post.append(('pencil', x + 0.6 * fs, y0 + bh * 0.68, pencil))
        return bh + 0.5 * fs
    if style == 'lines':
        n = int(rng.integers(1, 4))
        gap = 1.5 * fs
        dotted = rng.random() < 0.35
        for k in range(n):
            yy = y + (k + 1) * gap

            def f(d, yy=yy):
                if dotted:
                    xx = x
                    while xx < x + w:
                        d.line([(xx, yy), (min(xx + 0.25 * fs, x + w), yy)], fill=lc, width=lw)
                        xx += 0.45 * fs
                else:
                    d.line([(x, yy), (x + w, yy)], fill=lc, width=lw)
            block.bg.append(f)
        if pencil:
            block.post.append(('pencil', x + 0.5 * fs, y + gap - 0.15 * fs, pencil))
        return n * gap + 0.5 * fs
    if style == 'grid':
        sq = 1.3 * fs
        n = int(min(w // sq, rng.integers(6, 16)))
        tian = st['lang'] != 'en' and rng.random() < 0.5
        y0 = y + 0.35 * fs

        def f(d):
            for k in range(n):
                xx = x + k * sq
                d.rectangle([xx, y0, xx + sq, y0 + sq], outline=lc, width=lw)
                if tian:
                    for t in range(0, int(sq), max(3, int(fs / 5))):
                        d.point((xx + sq / 2, y0 + t), fill=lc)
                        d.point((xx + t, y0 + sq / 2), fill=lc)
        block.bg.append(f)
        if pencil:
            block.post.append(('pencil_grid', x, y0 + sq * 0.8, pencil, sq))
        return sq + 0.7 * fs
    if style == 'answer_line':
        word = {'zh': '答：', 'en': 'Answer:', 'bi': 'Answer 答：'}[st['lang']]
        base = y + 1.3 * fs
        ts = ctx.ts_small
        ww = ts.plain_width(word)
        L = min(w - ww - 0.3 * fs, fs * float(rng.uniform(7, 13)))
        block.fg.append(lambda d: ts.draw_plain(d, x, base, word, ctx.text_color))
        block.bg.append(lambda d: d.line([(x + ww + 0.2 * fs, base + 0.15 * fs), (x + ww + 0.2 * fs + L, base + 0.15 * fs)],
                                         fill=ctx.text_color, width=lw))
        if pencil:
            block.post.append(('pencil', x + ww + 0.6 * fs, base - 0.05 * fs, pencil))
        return 1.8 * fs
    return 0.0


def problem_block(ctx, item, number, x, y, w, rng):
    st, fs, lh = ctx.st, ctx.fs, ctx.lh
    b = Block()
    px, py = ctx.pad_x, ctx.pad_y
    ix, iw = x + px, w - 2 * px
    icon = item.get('icon')
    ans = item.get('answer', 'none')
    if icon == 'right' and iw < 14 * fs:
        icon = None
    if ans == 'box_right' and iw - (2.4 * fs if icon == 'right' else 0.0) < 16 * fs:
        ans = 'box_below'
    item['answer_eff'], item['icon_eff'] = ans, icon or ''
    icon_w = 2.4 * fs if icon == 'right' else 0.0
    box_w = 4.8 * fs if ans == 'box_right' else 0.0
    avail = iw - icon_w - box_w
    lw_, own, ldraw = label_info(ctx, number)
    if ldraw and not own and avail - lw_ < 9 * fs:
        own = True  # a long label ("Exercise 12") goes on its own line in a narrow column
    item['label_own_eff'] = int(bool(ldraw and own))
    base0 = y + py + 0.5 * (lh - fs) + 0.88 * fs
    if ldraw:
        b.fg.append(lambda d, base=base0: ldraw(d, ix, base))
    if own:
        base0 += lh
        tx = ix + (0.0 if rng.random() < 0.6 or avail < 12 * fs else 1.0 * fs)
        rest_x = tx
    else:
        gap = (0.35 * fs if lw_ else 0.0)
        tx = ix + lw_ + gap
        rest_x = tx if st['hanging'] else ix
    nl, xend = text_lines(ctx, item['text'], tx, avail - (tx - ix), rest_x, avail - (rest_x - ix), base0,
                          ctx.text_color, b, item['id'], item.get('framed', False))
    text_bottom = base0 - 0.88 * fs - 0.5 * (lh - fs) + nl * lh
    if icon == 'right':
        cx, cy = x + w - px - 1.1 * fs, base0 - 0.35 * fs
        nm = item['icon_name']
        b.fg.append(lambda d: draw_icon(d, nm, cx, cy, 0.8 * fs, ctx.accent, 0.3))
    elif icon == 'margin':
        cx, cy = ctx.margin_icon_x, base0 - 0.35 * fs
        nm = item['icon_name']
        b.fg.append(lambda d: draw_icon(d, nm, cx, cy, 0.8 * fs, ctx.accent, -0.4))
    if ans == 'box_right':
        bx0 = x + w - px - icon_w - box_w + 0.5 * fs
        by0 = y + py + 0.1 * fs
        bh = max(1.6 * fs, text_bottom - by0 - 0.1 * fs)
        b.bg.append(lambda d: d.rounded_rectangle([bx0, by0, bx0 + box_w - 0.6 * fs, by0 + bh], radius=int(0.25 * fs),
                                                  fill=(255, 255, 255), outline=ctx.accent, width=max(1, int(fs / 14))))
        if item.get('pencil'):
            b.post.append(('pencil', bx0 + 0.4 * fs, by0 + bh / 2 + 0.35 * fs, item['pencil']))
        ah = 0.0
    else:
        ah = answer_space(ctx, rest_x, text_bottom, avail - (rest_x - ix), ans, item.get('pencil'), b, rng)
    if item.get('mark') and not item.get('framed'):
        mk = item['mark']
        b.post.append(('mark', mk, ix, base0, xend, fs))
    b.h = (text_bottom - y) + ah + py
    return b


def group_block(ctx, item, number, x, y, w, rng):
    st, fs, lh = ctx.st, ctx.fs, ctx.lh
    b = Block()
    px, py = ctx.pad_x, ctx.pad_y
    ix, iw = x + px, w - 2 * px
    lw_, own, ldraw = label_info(ctx, number)
    if ldraw and not own and iw - lw_ < 10 * fs:
        own = True
    item['label_own_eff'] = int(bool(ldraw and own))
    base0 = y + py + 0.5 * (lh - fs) + 0.88 * fs
    if ldraw:
        b.fg.append(lambda d, base=base0: ldraw(d, ix, base))
    if own:
        base0 += lh
        tx = ix
    else:
        tx = ix + lw_ + (0.35 * fs if lw_ else 0.0)
    nl, _ = text_lines(ctx, item['stem'], tx, iw - (tx - ix), tx, iw - (tx - ix), base0, ctx.text_color, b)
    base = base0 + nl * lh
    sub_x = tx if st['sub_indent'] else ix + 1.0 * fs
    for k, sub in enumerate(item['subs']):
        slw, _, sdraw = label_info(ctx, k + 1, style=st['sub_label_style'])
        b.fg.append(lambda d, base=base, sdraw=sdraw: sdraw(d, sub_x, base))
        stx = sub_x + slw + 0.3 * fs
        nls, _ = text_lines(ctx, sub['text'], stx, ix + iw - stx, stx, ix + iw - stx, base, ctx.text_color, b,
                            sub['id'], sub.get('framed', False))
        base += nls * lh
        if sub.get('answer') == 'lines':
            yy = base - 0.88 * fs - 0.5 * (lh - fs) + 1.2 * fs
            b.bg.append(lambda d, yy=yy: d.line([(stx, yy), (ix + iw, yy)], fill=(170, 170, 175), width=max(1, int(fs / 18))))
            if sub.get('pencil'):
                b.post.append(('pencil', stx + 0.5 * fs, yy - 0.15 * fs, sub['pencil']))
            base += 1.4 * fs
    b.h = (base - 0.88 * fs - 0.5 * (lh - fs) - y) + py
    return b


def example_block(ctx, item, x, y, w, rng):
    fs, lh = ctx.fs, ctx.lh
    b = Block()
    b.has_panel = False
    px = 0.6 * fs
    title = item['title']
    tsb = ctx.ts_label
    tw = tsb.plain_width(title)
    base0 = y + 0.5 * fs + 0.5 * (lh - fs) + 0.88 * fs
    tab = item['tab']
    acc = ctx.accent2
    tint = mix((255, 255, 255), acc, 0.10)
    if tab:
        b.fg.append(lambda d: (d.rounded_rectangle([x + px - 0.2 * fs, base0 - 1.05 * fs, x + px + tw + 0.2 * fs, base0 + 0.3 * fs],
                                                   radius=int(0.25 * fs), fill=acc),
                               ctx.ts_label.draw_plain(d, x + px, base0, title, (255, 255, 255))))
    else:
        b.fg.append(lambda d: ctx.ts_label.draw_plain(d, x + px, base0, title, acc))
    tx = x + px + tw + 0.6 * fs
    nl, _ = text_lines(ctx, item['body'], tx, x + w - px - tx, x + px, w - 2 * px, base0, ctx.text_color, b)
    base = base0 + nl * lh
    nl2, _ = text_lines(ctx, item['solution'], x + px + 1.0 * fs, w - 2 * px - 1.0 * fs, x + px + 1.0 * fs,
                        w - 2 * px - 1.0 * fs, base, ctx.text_color, b)
    b.h = (base + nl2 * lh - 0.88 * fs - 0.5 * (lh - fs) - y) + 0.5 * fs
    h = b.h
    b.bg.append(lambda d: (d.rectangle([x, y, x + w, y + h], fill=tint),
                           d.rectangle([x, y, x + 0.22 * fs, y + h], fill=acc)))
    return b


def tip_block(ctx, item, x, y, w, rng):
    fs = ctx.fs
    b = Block()
    b.has_panel = False
    acc = ctx.accent2
    ts = ctx.ts_small
    sfs = ts.fs
    slh = sfs * 1.45
    title = item['title']
    tsl = ctx.ts_label_small
    tw = tsl.plain_width(title)
    pad = 0.5 * fs
    icon = item.get('icon')
    tb_base = y + pad + 0.95 * sfs
    ttx = x + pad + (1.6 * fs if icon else 0.0)
    units = ts.units(parse_rich(item['text']))
    lines = ts.wrap(units, w - 2 * pad, w - 2 * pad)
    body0 = tb_base + slh * 1.2
    for i, line in enumerate(lines):
        bb = body0 + i * slh
        b.fg.append(lambda d, bb=bb, line=line: ts.draw_line(d, x + pad, bb, line, ctx.text_color))
    h = (body0 + (len(lines) - 1) * slh + 0.45 * sfs + pad) - y
    style = item['style']
    fill = mix((255, 255, 255), acc, 0.13)
    if style == 'dashed':
        def bg(d):
            d.rounded_rectangle([x, y, x + w, y + h], radius=int(0.5 * fs), fill=fill)
            n = int((w + h) * 2 / (0.6 * fs))
            per = [(x, y, x + w, y), (x + w, y, x + w, y + h), (x + w, y + h, x, y + h), (x, y + h, x, y)]
            for (a0, b0, a1, b1) in per:
                L = math.hypot(a1 - a0, b1 - b0)
                k = 0.0
                while k < L:
                    t0, t1 = k / L, min(L, k + 0.35 * fs) / L
                    d.line([(a0 + (a1 - a0) * t0, b0 + (b1 - b0) * t0), (a0 + (a1 - a0) * t1, b0 + (b1 - b0) * t1)],
                           fill=acc, width=max(1, int(fs / 12)))
                    k += 0.6 * fs
            del n
    else:
        def bg(d):
            d.rounded_rectangle([x, y, x + w, y + h], radius=int(0.5 * fs), fill=fill, outline=acc,
                                width=max(1, int(fs / 12)))
    b.bg.append(bg)
    if icon:
        b.fg.append(lambda d: draw_icon(d, icon, x + pad + 0.7 * fs, tb_base - 0.35 * sfs, 0.65 * fs, acc, 0.0))
    b.fg.append(lambda d: tsl.draw_plain(d, ttx, tb_base, title, acc))
    b.h = h
    return b


def heading_block(ctx, item, x, y, w, rng):
    fs = ctx.fs
    b = Block()
    b.has_panel = False
    ts = ctx.ts_head
    tw = ts.plain_width(item['text'])
    base = y + 1.25 * ts.fs
    acc = ctx.accent
    if item['style'] == 'pill':
        b.bg.append(lambda d: d.rounded_rectangle([x, base - 1.15 * ts.fs, x + tw + 1.2 * fs, base + 0.35 * ts.fs],
                                                  radius=int(0.7 * ts.fs), fill=acc))
        b.fg.append(lambda d: ts.draw_plain(d, x + 0.6 * fs, base, item['text'], (255, 255, 255)))
    else:
        b.fg.append(lambda d: draw_icon(d, 'star', x + 0.6 * fs, base - 0.4 * ts.fs, 0.6 * fs, acc))
        b.fg.append(lambda d: ts.draw_plain(d, x + 1.5 * fs, base, item['text'], acc))
        b.bg.append(lambda d: d.line([(x, base + 0.45 * ts.fs), (x + w, base + 0.45 * ts.fs)], fill=acc,
                                     width=max(1, int(fs / 14))))
    b.h = base + 0.6 * ts.fs - y
    return b


def build_block(ctx, item, number, x, y, w, rng):
    t = item['type']
    if t == 'problem':
        return problem_block(ctx, item, number, x, y, w, rng)
    if t == 'group':
        return group_block(ctx, item, number, x, y, w, rng)
    if t == 'example':
        return example_block(ctx, item, x, y, w, rng)
    if t == 'tip':
        return tip_block(ctx, item, x, y, w, rng)
    return heading_block(ctx, item, x, y, w, rng)


def panel_bg(ctx, idx, x, y, w, h):
    st = ctx.st
    ps = st['panel_style']
    fs = ctx.fs
    tint, acc = ctx.tint, ctx.accent
    ops = []
    if ps == 'rounded_box':
        outline = acc if st['panel_outline'] else None
        ops.append(lambda d: d.rounded_rectangle([x, y, x + w, y + h], radius=int(0.55 * fs), fill=tint,
                                                 outline=outline, width=max(1, int(fs / 16))))
    elif ps == 'band':
        ops.append(lambda d: d.rectangle([x, y, x + w, y + h], fill=tint))
        if st['panel_outline']:
            ops.append(lambda d: d.rectangle([x, y, x + 0.28 * fs, y + h], fill=acc))
    elif ps == 'frame':
        r = int(0.45 * fs) if st['panel_outline'] else 0
        ops.append(lambda d: d.rounded_rectangle([x, y, x + w, y + h], radius=r, fill=ctx.frame_fill,
                                                 outline=acc, width=max(2, int(fs / 11))))
    elif ps == 'alt_rows':
        if idx % 2 == 0:
            ops.append(lambda d: d.rectangle([x, y, x + w, y + h], fill=tint))
    return ops


def render_page(spec, fs, measure=False, facing=False):
    """Render one page.  Returns dict(img (np RGB or None), w, h, boxes, framed, ...)."""
    st = spec['style']
    rng = np.random.default_rng(spec['layout_seed'])  # layout-time choices (stable across fs)
    ctx = Ctx()
    ctx.st, ctx.fs = st, fs
    ctx.lh = st['lh'] * fs
    ctx.accent = ACCENTS[st['accent']]
    ctx.accent2 = ACCENTS[st['accent2']]
    ctx.tint = mix((255, 255, 255), ctx.accent, st['tint_a'])
    ctx.frame_fill = PAPERS[st['paper']] if not st['frame_fill'] else mix((255, 255, 255), ctx.accent, 0.06)
    ctx.text_color = TEXT_COLS[st['text_color']]
    ctx.label_color = {'text': ctx.text_color, 'accent': ctx.accent,
                       'accent2': ctx.accent2}[st['label_color']]
    if st['label_style'] in ('disc', 'square', 'flag') and st['label_color'] == 'text':
        ctx.label_color = ctx.accent
    ctx.ts = TS(st['cjk'], st['lat'], fs, st['sup_scale'], st['blank_style'], st['blank_em'])
    ctx.ts_label = TS(st['cjk_bold'], st['lat_bold'], fs, st['sup_scale'])
    ctx.ts_small = TS(st['cjk'], st['lat'], fs * 0.82, st['sup_scale'])
    ctx.ts_label_small = TS(st['cjk_bold'], st['lat_bold'], fs * 0.86, st['sup_scale'])
    ctx.ts_head = TS(st['cjk_bold'], st['lat_bold'], fs * 1.25, st['sup_scale'])
    ps = st['panel_style']
    pad = st['panel_pad']
    ctx.pad_x = pad * fs if ps in ('rounded_box', 'band', 'frame', 'alt_rows') else 0.0
    ctx.pad_y = (0.45 * fs if ps in ('rounded_box', 'band', 'frame', 'alt_rows') else 0.1 * fs)
    geo = spec['geo']
    ml, mr, mt, mb = (geo['ml'] * fs, geo['mr'] * fs, geo['mt'] * fs, geo['mb'] * fs)
    cw, gut = geo['cw'] * fs, geo['gutter'] * fs
    ncol = geo['ncol']
    side = geo['side']
    side_w = side * fs if side else 0.0
    side_gap = 1.5 * fs if side else 0.0
    page_w = ml + ncol * cw + (ncol - 1) * gut + side_w + side_gap + mr
    page_h = page_w * geo['ratio']
    text_x0 = ml + (side_w + side_gap if side and geo['side_left'] else 0.0)
    ctx.margin_icon_x = text_x0 - 1.4 * fs
    header_h = geo['header_h'] * fs
    col_top = mt + header_h
    blocks = []  # (col, block, x, y, w)
    number = spec['start_no']
    ymax = col_top
    framed_info = None
    for ci in range(ncol):
        cx = text_x0 + ci * (cw + gut)
        y = col_top + (0.6 * fs if ps == 'big_panel' else 0.0)
        bx = cx + (0.7 * fs if ps == 'big_panel' else 0.0)
        bw = cw - (1.4 * fs if ps == 'big_panel' else 0.0)
        pidx = 0
        col_blocks = []
        must_until = next((k + 2 for k, it in enumerate(spec['cols'][ci]) if it.get('has_framed')), -1)
        for k, item in enumerate(spec['cols'][ci]):
            numbered = item['type'] in ('problem', 'group')
            blk = build_block(ctx, item, number, bx, y, bw, rng)
            must = item.get('has_framed', False) or k <= must_until
            if y + blk.h > page_h - mb and not must:
                break
            if numbered:
                if item.get('has_framed'):
                    framed_info = {'number': number}
                number += 1
                if blk.has_panel:
                    blk.bg[:0] = panel_bg(ctx, pidx, bx, y, bw, blk.h)
                pidx += 1
            col_blocks.append((blk, bx, y, bw))
            y += blk.h + st['block_gap'] * fs
        if col_blocks:
            ymax = max(ymax, y)
            page_h = max(page_h, ymax + mb)
        blocks.append(col_blocks)
    page_h = max(page_h, ymax + mb)
    # side column (tips / icons)
    side_blocks = []
    if side:
        sx = ml if geo['side_left'] else page_w - mr - side_w
        y = col_top + 1.0 * fs
        for item in spec['side_items']:
            blk = build_block(ctx, item, 0, sx, y, side_w, rng)
            if y + blk.h > page_h - mb:
                break
            side_blocks.append(blk)
            y += blk.h + 1.5 * fs
    res = {'w': int(math.ceil(page_w)), 'h': int(math.ceil(page_h)), 'framed_number': None}
    boxes = []
    for cb in blocks:
        for blk, _, _, _ in cb:
            boxes.extend(blk.boxes)
    res['boxes'] = boxes
    fr = [bx for bx in boxes if bx[5]]
    res['framed_box'] = fr[0][1:5] if fr else None
    res['framed_lines'] = fr[0][6] if fr else 0
    if framed_info:
        res['framed_number'] = framed_info['number']
    if measure:
        res['img'] = None
        return res
    paper = PAPERS[st['paper']]
    img = Image.new('RGB', (res['w'], res['h']), paper)
    d = ImageDraw.Draw(img)
    acc = ctx.accent
    # page decorations: coloured edge strip / corner
    if st['edge_strip']:
        sw = 0.9 * fs
        if geo['side_left']:
            d.rectangle([res['w'] - sw, 0, res['w'], res['h']], fill=mix(paper, acc, 0.55))
        else:
            d.rectangle([0, 0, sw, res['h']], fill=mix(paper, acc, 0.55))
    # header
    hs = st['header_style']
    htxt = spec['heading']
    tsh = ctx.ts_head
    hb = mt + 0.2 * fs + 1.0 * tsh.fs
    if hs == 'band':
        d.rectangle([0, mt - 0.6 * fs, res['w'], hb + 0.6 * tsh.fs], fill=acc)
        tsh.draw_plain(d, text_x0, hb, htxt, (255, 255, 255))
    elif hs == 'tab':
        tw = tsh.plain_width(htxt)
        d.rounded_rectangle([text_x0 - 0.6 * fs, mt - 0.5 * fs, text_x0 + tw + 0.8 * fs, hb + 0.55 * tsh.fs],
                            radius=int(0.6 * fs), fill=acc)
        d.line([(text_x0, hb + 0.55 * tsh.fs), (res['w'] - mr, hb + 0.55 * tsh.fs)], fill=acc, width=max(2, int(fs / 9)))
        tsh.draw_plain(d, text_x0, hb, htxt, (255, 255, 255))
    else:
        draw_icon(d, 'star', text_x0 + 0.7 * fs, hb - 0.45 * tsh.fs, 0.75 * fs, acc)
        tsh.draw_plain(d, text_x0 + 1.8 * fs, hb, htxt, acc)
        yy = hb + 0.5 * tsh.fs
        xx = text_x0
        while xx < res['w'] - mr:
            d.ellipse([xx, yy, xx + 0.18 * fs, yy + 0.18 * fs], fill=acc)
            xx += 0.5 * fs
    if spec.get('unit_tag'):
        ts2 = ctx.ts_label_small
        tw = ts2.plain_width(spec['unit_tag'])
        ux = res['w'] - mr - tw
        ts2.draw_plain(d, ux, hb, spec['unit_tag'], (255, 255, 255) if hs == 'band' else ctx.accent2)
    # page number
    pn = str(spec['page_no'])
    pf = get_font(st['lat_bold'], fs * 0.8)
    px_ = (res['w'] - mr - 0.8 * fs) if (spec['page_no'] % 2) else (ml + 0.8 * fs)
    py_ = res['h'] - mb * 0.5
    d.ellipse([px_ - 0.8 * fs, py_ - 0.8 * fs, px_ + 0.8 * fs, py_ + 0.8 * fs], fill=acc)
    d.text((px_, py_), pn, font=pf, fill=(255, 255, 255), anchor='mm')
    # big panel + column divider
    for ci, cb in enumerate(blocks):
        if not cb:
            continue
        cx = text_x0 + ci * (cw + gut)
        y0 = cb[0][2] - 0.6 * fs
        lb = cb[-1]
        y1 = lb[2] + lb[0].h + 0.6 * fs
        if ps == 'big_panel':
            d.rounded_rectangle([cx, y0, cx + cw, y1], radius=int(0.8 * fs), fill=ctx.tint,
                                outline=acc if st['panel_outline'] else None, width=max(1, int(fs / 12)))
        if ci > 0 and st['col_divider']:
            xx = cx - gut / 2
            d.line([(xx, col_top), (xx, y1)], fill=mix(paper, acc, 0.6), width=max(1, int(fs / 14)))
    if side and st['side_rule']:
        xx = (ml + side_w + side_gap / 2) if geo['side_left'] else (page_w - mr - side_w - side_gap / 2)
        d.line([(xx, col_top), (xx, res['h'] - mb)], fill=mix(paper, acc, 0.5), width=max(1, int(fs / 14)))
    posts = []
    for cb in blocks:
        for blk, _, _, _ in cb:
            for op in blk.bg:
                op(d)
            for op in blk.fg:
                op(d)
            posts.extend(blk.post)
    for blk in side_blocks:
        for op in blk.bg:
            op(d)
        for op in blk.fg:
            op(d)
    # scattered margin icons
    for (nm, rx, ry) in spec.get('margin_icons', []):
        if side:
            cxm = (ml + side_w / 2) if geo['side_left'] else (page_w - mr - side_w / 2)
        else:
            cxm = ml * 0.5 if rx < 0.5 else res['w'] - mr * 0.5
        draw_icon(d, nm, cxm, ry * res['h'], min(1.1 * fs, 0.4 * max(ml, mr, side_w)), acc, rx)
    arr = np.asarray(img).copy()
    prng = np.random.default_rng(spec['layout_seed'] + 17)
    for p in posts:
        if p[0] == 'pencil':
            pencil_write(arr, p[1], p[2], p[3], fs * st['pencil_size'], prng, st)
        elif p[0] == 'pencil_grid':
            _, x0, base, txt, sq = p
            for k, c in enumerate(txt.replace(' ', '')[:12]):
                pencil_write(arr, x0 + k * sq + 0.2 * sq, base, c, fs * st['pencil_size'], prng, st)
        elif p[0] == 'mark':
            draw_mark(arr, p[1], p[2], p[3], p[4], p[5], prng, st)
    res['img'] = arr
    return res


def pencil_write(arr, x, base, text, size, rng, st):
    """Handwriting-like pencil text: jittered glyphs of a light/italic font, graphite colour."""
    key = st['hand_font']
    H, W = arr.shape[:2]
    lw = int(size * (0.75 * len(text) + 2))
    lh = int(size * 2.4)
    layer = np.zeros((lh, lw), np.float32)
    cx = size * 0.5
    for c in text:
        if c == ' ':
            cx += size * 0.38
            continue
        sz = size * float(rng.uniform(0.88, 1.12))
        fk = 'noto_sans' if is_cjk(c) else key
        f = get_font(fk, sz)
        t = Image.new('L', (int(sz * 2.2), int(sz * 2.4)), 0)
        ImageDraw.Draw(t).text((sz * 0.5, sz * 1.5), c, font=f, fill=255, anchor='ls')
        t = t.rotate(float(rng.uniform(-9, 9)), resample=Image.BICUBIC, center=(sz * 0.9, sz * 1.1))
        ta = np.asarray(t, np.float32) / 255.0
        if key == 'hand_light':
            ta = cv2.dilate(ta, np.ones((2, 2), np.uint8)) if size > 30 else ta
        ox = int(cx - sz * 0.5)
        oy = int(size * 1.5 - sz * 1.5 + rng.uniform(-0.08, 0.08) * size)
        y0, x0 = max(0, oy), max(0, ox)
        y1, x1 = min(lh, oy + ta.shape[0]), min(lw, ox + ta.shape[1])
        if y1 > y0 and x1 > x0:
            layer[y0:y1, x0:x1] = np.maximum(layer[y0:y1, x0:x1], ta[y0 - oy:y1 - oy, x0 - ox:x1 - ox])
        cx += f.getlength(c) * float(rng.uniform(0.92, 1.08))
    shear = float(rng.uniform(0.05, 0.25))
    M = np.float32([[1, -shear, shear * lh * 0.6], [0, 1, 0]])
    layer = cv2.warpAffine(layer, M, (lw, lh))
    grain = rng.uniform(0.55, 1.0, size=layer.shape).astype(np.float32)
    alpha = np.clip(layer * grain * st['pencil_alpha'], 0, 1)
    colour = np.array(st['pencil_color'], np.float32)
    gx, gy = int(x - size * 0.5), int(base - size * 1.5)
    ay0, ax0 = max(0, gy), max(0, gx)
    ay1, ax1 = min(H, gy + lh), min(W, gx + lw)
    if ay1 <= ay0 or ax1 <= ax0:
        return
    a = alpha[ay0 - gy:ay1 - gy, ax0 - gx:ax1 - gx, None]
    reg = arr[ay0:ay1, ax0:ax1].astype(np.float32)
    arr[ay0:ay1, ax0:ax1] = (reg * (1 - a) + colour * a).astype(np.uint8)


def draw_mark(arr, kind, x, base, xend, fs, rng, st):
    col = tuple(int(v) for v in (st['mark_color']))
    th = max(1, int(fs / 12))
    if kind == 'tick':
        p0 = (int(xend + 0.5 * fs), int(base - 0.4 * fs))
        pts = np.array([p0, (p0[0] + int(0.3 * fs), p0[1] + int(0.35 * fs)),
                        (p0[0] + int(0.95 * fs), p0[1] - int(0.55 * fs))], np.int32)
        cv2.polylines(arr, [pts], False, col, th + 1, cv2.LINE_AA)
    elif kind == 'circle':
        c = (int(x + 0.5 * fs), int(base - 0.35 * fs))
        cv2.ellipse(arr, c, (int(0.95 * fs), int(0.75 * fs)), float(rng.uniform(-20, 20)), 10, 340, col, th, cv2.LINE_AA)
    elif kind == 'underline':
        yy = int(base + 0.25 * fs)
        n = 12
        xs = np.linspace(x + 1.5 * fs, min(xend, x + 12 * fs), n)
        ys = yy + rng.normal(0, fs * 0.04, n)
        pts = np.stack([xs, ys], 1).astype(np.int32)
        cv2.polylines(arr, [pts], False, col, th, cv2.LINE_AA)


# --------------------------------------------------------------------------
# page spec
# --------------------------------------------------------------------------
def pick_entry(rng, bank, lang, subject, exclude, same_subj_p=0.6):
    pool = [e for e in bank if e['lang'] == lang and e['id'] not in exclude]
    if subject and rng.random() < same_subj_p:
        p2 = [e for e in pool if e['subject'] == subject]
        if p2:
            pool = p2
    if not pool:
        pool = [e for e in bank if e['id'] not in exclude]
    return ch(rng, pool)


def make_style(rng, plan, large, lang):
    cjk = ch(rng, CJK_FONTS)
    lat = ch(rng, LAT_FONTS[cjk])
    bold_lat = lat + '_bold' if not lat.startswith('noto') else lat + '_bold'
    accent = ch(rng, list(ACCENTS))
    accent2 = ch(rng, [a for a in ACCENTS if a != accent]) if rng.random() < 0.5 else accent
    tc = plan['text_color']
    label_style = plan['label_style']
    st = {
        'cjk': cjk, 'cjk_bold': cjk + '_bold', 'lat': lat, 'lat_bold': bold_lat,
        'accent': accent, 'accent2': accent2, 'tint_a': float(rng.uniform(0.10, 0.24)),
        'text_color': tc, 'paper': wch(rng, [('white', 4), ('cream', 2), ('bluish', 1), ('pale_yellow', 1), ('pale_green', 1)]),
        'label_style': label_style,
        'label_color': wch(rng, [('text', 3), ('accent', 3), ('accent2', 1)]),
        'label_own_line': bool(rng.random() < 0.5),
        'sub_label_style': ch(rng, ['paren', 'fwparen', 'circled']) if label_style not in ('paren', 'fwparen', 'circled') else ch(rng, ['paren', 'fwparen']),
        'sub_indent': bool(rng.random() < 0.5),
        'hanging': bool(rng.random() < 0.7),
        'panel_style': plan['panel_style'],
        'panel_outline': bool(rng.random() < 0.5),
        'panel_pad': float(rng.uniform(0.5, 0.9)),
        'frame_fill': bool(rng.random() < 0.4),
        'lh': float(rng.uniform(1.65, 2.0) if large else rng.uniform(1.4, 1.7)),
        'block_gap': float(rng.uniform(0.7, 1.4) if large else rng.uniform(0.5, 1.1)),
        'sup_scale': float(rng.uniform(0.58, 0.68)),
        'blank_style': wch(rng, [('underline', 3), ('underscores', 2)]),
        'blank_em': float(rng.uniform(2.5, 4.5)),
        'header_style': ch(rng, ['band', 'tab', 'title']),
        'edge_strip': bool(rng.random() < 0.3),
        'col_divider': bool(rng.random() < 0.5),
        'side_rule': bool(rng.random() < 0.5),
        'answer_accent': bool(rng.random() < 0.5),
        'hand_font': ch(rng, HAND_FONTS),
        'pencil_size': float(rng.uniform(0.9, 1.2)),
        'pencil_alpha': float(rng.uniform(0.65, 0.9)),
        'pencil_color': ch(rng, [(70, 70, 78), (60, 62, 70), (85, 85, 90), (30, 50, 150)]),
        'mark_color': ch(rng, [(200, 40, 40), (70, 70, 78)]),
        'lang': lang,
    }
    return st


def make_items(rng, bank, n, lang_pref, mixed, subject, exclude, st, plan, p_answer, p_pencil, p_icon,
               icon_mode, allow_extras):
    items = []
    for _ in range(n):
        r = rng.random()
        if allow_extras and r < 0.06:
            items.append({'type': 'heading', 'text': ch(rng, HEADINGS[st['lang']]), 'style': ch(rng, ['pill', 'line'])})
            continue
        if allow_extras and r < 0.12:
            lg = 'en' if st['lang'] == 'en' else 'zh'
            used = st.setdefault('_used_tips', set())
            free = [t for t in TIPS[lg] if t[1] not in used] or TIPS[lg]
            t = ch(rng, free)
            used.add(t[1])
            items.append({'type': 'tip', 'title': t[0], 'text': t[1], 'style': ch(rng, ['solid', 'dashed']),
                          'icon': 'bulb' if rng.random() < 0.5 else None})
            continue
        lang = lang_pref
        if mixed and rng.random() < 0.4:
            lang = 'en' if lang_pref == 'zh' else 'zh'
        if rng.random() < 0.12:
            e1 = pick_entry(rng, bank, lang, subject, exclude)
            exclude.add(e1['id'])
            e2 = pick_entry(rng, bank, lang, e1['subject'], exclude, 0.8)
            exclude.add(e2['id'])
            items.append({'type': 'group', 'stem': ch(rng, STEMS[lang]),
                          'subs': [{'id': e1['id'], 'text': e1['question']}, {'id': e2['id'], 'text': e2['question']}]})
            continue
        e = pick_entry(rng, bank, lang, subject, exclude)
        exclude.add(e['id'])
        it = {'type': 'problem', 'id': e['id'], 'text': e['question']}
        decorate_problem(rng, it, plan, p_answer, p_pencil, p_icon, icon_mode)
        items.append(it)
    return items


def decorate_problem(rng, it, plan, p_answer, p_pencil, p_icon, icon_mode):
    ans = plan['answer_style']
    it['answer'] = ans if (ans != 'none' and rng.random() < p_answer) else 'none'
    if it['answer'] != 'none' and rng.random() < p_pencil:
        it['pencil'] = ch(rng, PENCIL_ANSWERS)
    if icon_mode != 'none' and rng.random() < p_icon:
        it['icon'] = icon_mode
        it['icon_name'] = ch(rng, ICONS)
    r = rng.random()
    if r < 0.08:
        it['mark'] = 'tick'
    elif r < 0.13:
        it['mark'] = 'circle'
    elif r < 0.16:
        it['mark'] = 'underline'


def make_spec(rng, plan, bank, bank_by_id, framed_id, Ww, Hw):
    fe = bank_by_id[framed_id]
    flang = fe['lang']
    large = plan['print'] == 'large'
    mixed = plan['mixed_lang']
    if mixed:
        page_lang = ch(rng, ['zh', 'en', 'bi'])
    else:
        page_lang = flang if rng.random() < 0.8 else 'bi'
    st = make_style(rng, plan, large, page_lang)
    ncol = plan['columns']
    # column width (em) bounded so that a full-width framed block still fits the photo
    h_lo = 30 if large else 22
    cw_max = 0.82 * Ww / h_lo
    if ncol == 1:
        cw = float(rng.uniform(18, 30) if large else rng.uniform(26, 44))
    else:
        cw = float(rng.uniform(15, 20) if large else rng.uniform(18, 25))
    # keep the framed problem to at most ~4 lines: estimated width in em / 3.5 + label and padding
    est = sum(1.0 if is_cjk(c) else 0.55 for c in fe['question'])
    cw = max(cw, est / 3.5 + 5.5)
    cw = min(cw, cw_max)
    side = None
    if ncol == 1 and plan['side_box'] and rng.random() < 0.6:
        side = float(rng.uniform(8, 11))
    icon_mode = plan['icons']
    ml = float(rng.uniform(2.5, 4.0)) + (2.4 if icon_mode == 'margin' else 0.0)
    mr = float(rng.uniform(2.5, 4.0))
    geo = {'ml': ml, 'mr': mr, 'mt': float(rng.uniform(2.5, 3.5)), 'mb': float(rng.uniform(2.5, 3.5)),
           'cw': cw, 'gutter': float(rng.uniform(1.5, 2.6)), 'ncol': ncol, 'side': side,
           'side_left': bool(rng.random() < 0.4), 'ratio': float(rng.uniform(1.3, 1.42)),
           'header_h': float(rng.uniform(3.2, 4.2))}
    exclude = {framed_id}
    p_answer = float(rng.uniform(0.5, 1.0))
    p_pencil = float(plan['pencil_p'])
    p_icon = float(rng.uniform(0.3, 0.7))
    subject = fe['subject']
    lang_pref = flang
    cols = []
    framed_col = int(rng.integers(ncol))
    framed_pos = int(rng.integers(1, 6))
    adj_other = None
    for ci in range(ncol):
        items = make_items(rng, bank, 14, lang_pref, mixed, subject, exclude, st, plan, p_answer, p_pencil,
                           p_icon, icon_mode, allow_extras=True)
        cols.append(items)
    # framed item
    if plan['framed_mode'] == 'sub':
        e2 = pick_entry(rng, bank, flang, subject, exclude, 0.8)
        exclude.add(e2['id'])
        subs = [{'id': framed_id, 'text': fe['question'], 'framed': True},
                {'id': e2['id'], 'text': e2['question']}]
        sub_pos = plan['sub_pos']
        if sub_pos == 1:
            subs.reverse()
        fit = {'type': 'group', 'stem': ch(rng, STEMS[flang]), 'subs': subs, 'has_framed': True}
        if plan['answer_style'] == 'lines' or rng.random() < 0.3:
            for s in subs:
                s['answer'] = 'lines'
                if rng.random() < p_pencil:
                    s['pencil'] = ch(rng, PENCIL_ANSWERS)
    else:
        sub_pos = -1
        fit = {'type': 'problem', 'id': framed_id, 'text': fe['question'], 'framed': True, 'has_framed': True}
        decorate_problem(rng, fit, plan, 1.0 if plan['answer_style'] != 'none' else 0.0,
                         plan['framed_pencil_p'], p_icon, icon_mode)
        fit.pop('mark', None)
    # never put tip/heading/example immediately replaced: insert framed at framed_pos
    col = cols[framed_col]
    col.insert(framed_pos, fit)
    # worked example near the exercises
    example = None
    if plan['example']:
        lg = 'en' if page_lang == 'en' or (page_lang == 'bi' and rng.random() < 0.5) else 'zh'
        body, sol = ch(rng, EXAMPLES[lg])
        n_ex = int(rng.integers(1, 3))
        title = (f'例{n_ex}' if rng.random() < 0.7 else f'【例{n_ex}】') if lg == 'zh' else f'Example {n_ex}'
        example = {'type': 'example', 'title': title, 'body': body, 'solution': sol, 'tab': bool(rng.random() < 0.5)}
        pos = int(rng.integers(0, framed_pos + 1)) if rng.random() < 0.7 else framed_pos + 1
        col.insert(pos, example)
        if pos <= framed_pos:
            framed_pos += 1
    # mixed language: make an immediate neighbour of the framed problem the other language
    if mixed:
        other = 'en' if flang == 'zh' else 'zh'
        nb_pos = framed_pos + 1 if rng.random() < 0.5 else framed_pos - 1
        if 0 <= nb_pos < len(col) and col[nb_pos]['type'] == 'problem':
            e = pick_entry(rng, bank, other, None, exclude)
            exclude.add(e['id'])
            col[nb_pos]['id'] = e['id']
            col[nb_pos]['text'] = e['question']
            adj_other = e['id']
        else:
            e = pick_entry(rng, bank, other, None, exclude)
            exclude.add(e['id'])
            it = {'type': 'problem', 'id': e['id'], 'text': e['question']}
            decorate_problem(rng, it, plan, p_answer, p_pencil, p_icon, icon_mode)
            col.insert(framed_pos + 1, it)
            adj_other = e['id']
    # tip box in the flow or in the side column
    side_items = []
    tip_kind = ''
    if plan['side_box']:
        lg = 'en' if page_lang == 'en' or (page_lang == 'bi' and rng.random() < 0.5) else 'zh'
        tips = []
        used = st.setdefault('_used_tips', set())
        free = [t for t in TIPS[lg] if t[1] not in used]
        free = free if len(free) >= 3 else TIPS[lg]
        for k in rng.permutation(len(free))[:3]:
            t = free[int(k)]
            tips.append({'type': 'tip', 'title': t[0], 'text': t[1], 'style': ch(rng, ['solid', 'dashed']),
                         'icon': 'bulb' if rng.random() < 0.6 else None})
        tip_kind = tips[0]['title']
        if side:
            side_items = tips
        else:
            pos = framed_pos + (1 if rng.random() < 0.5 else 0)
            for c_ in col:
                if c_['type'] == 'tip' and c_['text'] == tips[0]['text']:
                    c_['text'], c_['title'] = tips[1]['text'], tips[1]['title']
            col.insert(pos, tips[0])
            if pos <= framed_pos:
                framed_pos += 1
    # no two non-problem blocks (tip / heading / example) in a row
    for ci in range(ncol):
        cleaned = []
        for it in cols[ci]:
            if (it['type'] in ('tip', 'heading', 'example') and cleaned
                    and cleaned[-1]['type'] in ('tip', 'heading', 'example')):
                if it['type'] == 'example':
                    cleaned[-1] = it
                continue
            cleaned.append(it)
        cols[ci] = cleaned
    col = cols[framed_col]
    framed_pos = next(k for k, it in enumerate(col) if it.get('has_framed'))
    margin_icons = []
    if icon_mode == 'right' or side:
        for _ in range(int(rng.integers(1, 4))):
            margin_icons.append((ch(rng, ICONS), float(rng.random()), float(rng.uniform(0.1, 0.9))))
    heading = ch(rng, HEADINGS[page_lang])
    spec = {
        'style': st, 'geo': geo, 'cols': cols, 'side_items': side_items, 'margin_icons': margin_icons,
        'heading': heading, 'unit_tag': ch(rng, UNIT_TAGS[page_lang]) if rng.random() < 0.6 else '',
        'start_no': int(rng.integers(1, 10)), 'page_no': int(rng.integers(8, 140)),
        'layout_seed': int(rng.integers(1 << 30)),
        'framed_col': framed_col, 'framed_pos': framed_pos, 'sub_pos': sub_pos, 'adj_other': adj_other,
        'tip_kind': tip_kind, 'example': example['title'] if example else '', 'page_lang': page_lang,
        'framed_item': fit,
    }
    return spec


def facing_spec(rng, spec, plan, bank):
    """Other page of an open book: same style, other problems."""
    sp = dict(spec)
    st = spec['style']
    geo = dict(spec['geo'])
    geo['side_left'] = not geo['side_left']
    sp['geo'] = geo
    exclude = set()
    for c in spec['cols']:
        for it in c:
            if it['type'] == 'problem':
                exclude.add(it['id'])
    fe_lang = 'zh' if rng.random() < 0.6 else 'en'
    sp['cols'] = [make_items(rng, bank, 14, fe_lang, True, None, exclude, st, plan, 0.6, 0.2, 0.4,
                             'right' if plan['icons'] == 'right' else 'none', True) for _ in range(geo['ncol'])]
    sp['side_items'] = []
    sp['heading'] = ch(rng, HEADINGS[spec['page_lang']])
    sp['page_no'] = spec['page_no'] + 1
    sp['start_no'] = int(rng.integers(1, 10))
    sp['layout_seed'] = int(rng.integers(1 << 30))
    sp['margin_icons'] = []
    return sp


# --------------------------------------------------------------------------
# photo synthesis
# --------------------------------------------------------------------------
def desk_background(rng, W, H):
    kind = wch(rng, [('wood', 5), ('laminate', 2), ('cloth', 2)])
    if kind == 'wood':
        base = np.array(ch(rng, [(150, 105, 65), (180, 135, 90), (120, 80, 50), (200, 160, 115)]), np.float32)
        g = rng.random((H // 6 + 2, 5)).astype(np.float32)
        g = cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC)
        fine = cv2.resize(rng.random((H // 2 + 2, 40)).astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
        tex = 0.8 + 0.3 * g + 0.08 * fine
        img = base[None, None, :] * tex[..., None]
        if rng.random() < 0.5:
            img = img.transpose(1, 0, 2)
            img = cv2.resize(img, (W, H))
    elif kind == 'laminate':
        base = np.array(ch(rng, [(225, 225, 220), (200, 200, 205), (235, 230, 215), (170, 185, 195)]), np.float32)
        img = np.ones((H, W, 3), np.float32) * base
    else:
        c1 = np.array(ch(rng, [(200, 60, 60), (60, 110, 190), (70, 150, 90), (230, 180, 60)]), np.float32)
        c2 = np.array((240, 238, 230), np.float32)
        cell = int(rng.integers(40, 90))
        yy, xx = np.mgrid[0:H, 0:W]
        a = ((xx // cell) % 2).astype(np.float32)
        b = ((yy // cell) % 2).astype(np.float32)
        t = (a + b) / 2.0
        img = c2 * (1 - t[..., None]) + c1 * t[..., None]
        img = cv2.GaussianBlur(img, (0, 0), 1.5)
    img += rng.normal(0, 3, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.float32), kind


def book_spread(rng, page_a, page_b, framed_left, fs):
    """Compose an open book spread: cover border, two pages, gutter shading."""
    ha, wa = page_a.shape[:2]
    hb, wb = page_b.shape[:2]
    H = max(ha, hb)
    left, right = (page_a, page_b) if framed_left else (page_b, page_a)

    def padh(p):
        if p.shape[0] < H:
            ext = np.repeat(p[-1:, :, :], H - p.shape[0], axis=0)
            p = np.concatenate([p, ext], 0)
        return p
    left, right = padh(left), padh(right)
    spread = np.concatenate([left, right], 1).astype(np.float32)
    spine = left.shape[1]
    ws = spread.shape[1]
    # gutter shading
    d = np.abs(np.arange(ws, dtype=np.float32) - spine)
    gw = float(rng.uniform(1.5, 3.5)) * fs
    shade = 1.0 - float(rng.uniform(0.25, 0.5)) * np.exp(-d / gw)
    spread *= shade[None, :, None]
    # cover border and page-stack edges
    bw = int(float(rng.uniform(0.8, 1.6)) * fs)
    cover = np.array(ch(rng, list(ACCENTS.values())), np.float32) * 0.85
    out = np.ones((H + 2 * bw, ws + 2 * bw, 3), np.float32) * cover
    out[bw:bw + H, bw:bw + ws] = spread
    for k in range(1, 5):
        xx = bw - k * max(2, bw // 10)
        if xx > 0:
            out[bw:bw + H, xx] = 200
            out[bw:bw + H, ws + 2 * bw - 1 - xx] = 200
    offset = (bw, bw) if framed_left else (bw + left.shape[1], bw)
    return out, spine + bw, offset, gw


def apply_curl(img, spine_x, amp, width, cam):
    """Inverse-map a page image so that lines near the spine bend (page dips into the gutter)."""
    h, w = img.shape[:2]
    xs = np.arange(w, dtype=np.float32)
    z = amp * np.exp(-np.abs(xs - spine_x) / width)  # dip depth as a fraction of camera distance
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    zz = z[None, :]
    mapx = xx + (xx - cam[0]) * zz
    mapy = yy + (yy - cam[1]) * zz
    return cv2.remap(img, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), z


def curl_forward(pts, spine_x, amp, width, cam):
    """Approximate forward map of page points through the curl (inverse of apply_curl)."""
    out = []
    for (x, y) in pts:
        z = amp * math.exp(-abs(x - spine_x) / width)
        out.append(((x + cam[0] * z) / (1 + z), (y + cam[1] * z) / (1 + z)))
    return out


def homography(c, s, theta, pitch, yaw, f, target):
    A = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1]], float)
    S = np.diag([s, s, 1.0])
    t = math.radians(theta)
    R = np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1]])
    a, b = math.radians(pitch), math.radians(yaw)
    Rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    Ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    K = np.diag([f, f, 1.0])
    P = K @ Rx @ Ry @ np.linalg.inv(K)
    M = P @ R @ S @ A
    p = M @ np.array([c[0], c[1], 1.0])
    p = p[:2] / p[2]
    T = np.array([[1, 0, target[0] - p[0]], [0, 1, target[1] - p[1]], [0, 0, 1]], float)
    return T @ M


def hmap(M, pts):
    pts = np.asarray(pts, float)
    q = (M @ np.c_[pts, np.ones(len(pts))].T).T
    return q[:, :2] / q[:, 2:3]


def smooth_blob(W, H, poly, sigma):
    m = np.zeros((H, W), np.float32)
    cv2.fillPoly(m, [np.asarray(poly, np.int32)], 1.0)
    k = int(sigma * 3) * 2 + 1
    return cv2.GaussianBlur(m, (k, k), sigma)


def quad_overlap(mask, quad):
    m = np.zeros(mask.shape, np.uint8)
    cv2.fillPoly(m, [np.asarray(quad, np.int32)], 1)
    return float((mask * m).sum() / max(1, m.sum()))


def add_occluder(rng, img, kind, quad, W, H):
    """finger or pencil case entering from an edge, kept off the framed problem."""
    for attempt in range(12):
        edge = ch(rng, ['left', 'right', 'bottom', 'top'] if kind == 'pencil_case' else ['left', 'right', 'bottom'])
        if kind == 'finger':
            L = float(rng.uniform(0.18, 0.32)) * min(W, H) * (1 - attempt * 0.06)
            wd = float(rng.uniform(70, 120))
            if edge in ('left', 'right'):
                y0 = float(rng.uniform(0.2, 0.8)) * H
                x0 = -40 if edge == 'left' else W + 40
                ang = math.radians(float(rng.uniform(-25, 25))) + (0 if edge == 'left' else math.pi)
            else:
                x0 = float(rng.uniform(0.15, 0.85)) * W
                y0 = H + 40
                ang = -math.pi / 2 + math.radians(float(rng.uniform(-30, 30)))
            ux, uy = math.cos(ang), math.sin(ang)
            tip = (x0 + ux * L, y0 + uy * L)
            mask = np.zeros((H, W), np.float32)
            cv2.line(mask, (int(x0 - ux * 200), int(y0 - uy * 200)), (int(tip[0]), int(tip[1])), 1.0, int(wd), cv2.LINE_AA)
            cv2.circle(mask, (int(tip[0]), int(tip[1])), int(wd / 2), 1.0, -1, cv2.LINE_AA)
        else:
            depth = float(rng.uniform(0.10, 0.2)) * (W if edge in ('left', 'right') else H) * (1 - attempt * 0.06)
            tilt = float(rng.uniform(-0.08, 0.08))
            mask = np.zeros((H, W), np.float32)
            if edge == 'bottom':
                poly = [(-10, H + 10), (W + 10, H + 10), (W + 10, H - depth + tilt * W), (-10, H - depth)]
            elif edge == 'top':
                poly = [(-10, -10), (W + 10, -10), (W + 10, depth + tilt * W), (-10, depth)]
            elif edge == 'left':
                poly = [(-10, -10), (depth, -10), (depth + tilt * H, H + 10), (-10, H + 10)]
            else:
                poly = [(W + 10, -10), (W - depth, -10), (W - depth + tilt * H, H + 10), (W + 10, H + 10)]
            cv2.fillPoly(mask, [np.asarray(poly, np.int32)], 1.0, cv2.LINE_AA)
        if quad_overlap(mask, quad) < 0.001:
            break
    else:
        return 'none', ''
    if kind == 'finger':
        skin = np.array(ch(rng, [(224, 172, 140), (198, 140, 105), (240, 200, 170), (170, 115, 85)]), np.float32)
        dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
        shade = np.clip(dist / (wd / 2), 0, 1) ** 0.5
        col = skin[None, None, :] * (0.62 + 0.4 * shade[..., None])
        nx, ny = tip[0] - ux * wd * 0.45, tip[1] - uy * wd * 0.45
        nail = np.zeros((H, W), np.float32)
        cv2.ellipse(nail, (int(nx), int(ny)), (int(wd * 0.42), int(wd * 0.3)), math.degrees(ang), 0, 360, 1.0, -1, cv2.LINE_AA)
        nail = cv2.GaussianBlur(nail, (0, 0), 3) * mask
        col = col * (1 - 0.25 * nail[..., None]) + np.array([245, 215, 205], np.float32) * 0.25 * nail[..., None]
        sig = float(rng.uniform(3, 7))
    else:
        fab = np.array(ch(rng, [(60, 90, 170), (220, 90, 140), (60, 150, 110), (240, 170, 40), (120, 80, 160)]), np.float32)
        noise = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 1.2)
        dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
        shade = 0.62 + 0.4 * np.clip(dist / 90.0, 0, 1) ** 0.6  # rounded body: darker at its inner edge
        col = fab[None, None, :] * (shade * (0.92 + 0.07 * noise))[..., None]
        # zipper running parallel to the inner edge: dark teeth band + light tape
        yy_, xx_ = np.mgrid[0:H, 0:W].astype(np.float32)
        teeth = (np.sin((xx_ + yy_) * 0.42) > -0.2).astype(np.float32)
        band = ((dist > 20) & (dist < 36)).astype(np.float32)
        tape = (((dist > 12) & (dist <= 20)) | ((dist >= 36) & (dist < 44))).astype(np.float32)
        zc = np.array([45, 45, 50], np.float32)
        col = col * (1 - 0.9 * band * teeth)[..., None] + zc * (0.9 * band * teeth)[..., None]
        col = col * (1 + 0.12 * np.exp(-((dist - 80) / 25) ** 2))[..., None]
        col = col * (1 - 0.5 * tape)[..., None] + fab * 0.45 * (0.5 * tape)[..., None]
        sig = float(rng.uniform(1.5, 3.0))
    m = cv2.GaussianBlur(mask, (0, 0), sig)[..., None]
    col = cv2.GaussianBlur(col, (0, 0), sig)
    # contact shadow
    sh = cv2.GaussianBlur(mask, (0, 0), 18)[..., None]
    img *= (1 - 0.35 * sh)
    img[:] = img * (1 - m) + col * m
    return kind, edge


def synth_photo(idx, plan, bank, bank_by_id, framed_id, seed):
    rng = np.random.default_rng([seed, idx])
    W, H = (1280, 960) if plan['orientation'] == 'landscape' else (960, 1280)
    side_k = plan['sideways']  # 0, 1 (ccw) or 3 (cw)
    Ww, Hw = (H, W) if side_k else (W, H)
    spec = make_spec(rng, plan, bank, bank_by_id, framed_id, Ww, Hw)
    large = plan['print'] == 'large'
    # pass 1: measure framed block in em
    m = render_page(spec, 40, measure=True)
    fb = m['framed_box']
    bw_em = (fb[2] - fb[0]) / 40 + 2.5
    bh_em = (fb[3] - fb[1]) / 40 + 1.0
    h_lo, h_hi = (30.0, 60.0) if large else (22.0, 46.0)
    h_cap = min(h_hi, 0.84 * Ww / bw_em, 0.55 * Hw / bh_em)
    if h_cap < h_lo:
        h_lo = max(22.0, min(h_lo, h_cap))
    h_cap = max(h_cap, h_lo)
    h_target = float(h_lo + (h_cap - h_lo) * rng.beta(1.4, 1.6))
    s0 = float(rng.uniform(0.8, 1.05))
    fs = int(np.clip(round(h_target / s0), 18, 80))
    page = render_page(spec, fs)
    img = page['img']
    fb = page['framed_box']
    quad_page = [(fb[0], fb[1]), (fb[2], fb[1]), (fb[2], fb[3]), (fb[0], fb[3])]
    book = plan['book']
    curl_amp = 0.0
    cam = None
    origin = (0.0, 0.0)
    if book:
        fspec = facing_spec(rng, spec, plan, bank)
        fpage = render_page(fspec, fs)
        framed_left = bool(rng.random() < 0.5)
        spread, spine_x, off, gw = book_spread(rng, img, fpage['img'], framed_left, fs)
        origin = (float(off[0]), float(off[1]))
        quad_page = [(x + origin[0], y + origin[1]) for x, y in quad_page]
        fcx = sum(p[0] for p in quad_page) / 4
        fcy = sum(p[1] for p in quad_page) / 4
        cam = (fcx, fcy)
        curl_amp = float(rng.uniform(0.03, 0.09))
        curl_w = float(rng.uniform(2.5, 6.0)) * fs
        canvas, _ = apply_curl(spread, spine_x, curl_amp, curl_w, cam)
        quad_page = curl_forward(quad_page, spine_x, curl_amp, curl_w, cam)
        boxes_off = origin
    else:
        canvas = img.astype(np.float32)
        spine_x, curl_w = None, None
        boxes_off = (0.0, 0.0)
    fc = np.mean(np.asarray(quad_page), 0)
    # geometry
    theta = float(np.clip(rng.normal(0, 4.5), -12, 12))
    if rng.random() < 0.15:
        theta = float(rng.choice([-1, 1]) * rng.uniform(8, 12))
    pitch = float(np.clip(rng.normal(0, 5), -12, 12))
    yaw = float(np.clip(rng.normal(0, 4), -10, 10))
    focal = float(rng.uniform(1.2, 1.8)) * max(Ww, Hw)
    jx, jy = float(rng.uniform(-0.06, 0.06)) * Ww, float(rng.uniform(-0.07, 0.07)) * Hw
    # text boxes of the other bank problems on the page, in canvas coordinates
    nb_quads = []
    for (eid, x0, y0, x1, y1, framed, nl) in page['boxes']:
        if framed:
            continue
        pts = [(x0 + boxes_off[0], y0 + boxes_off[1]), (x1 + boxes_off[0], y0 + boxes_off[1]),
               (x1 + boxes_off[0], y1 + boxes_off[1]), (x0 + boxes_off[0], y1 + boxes_off[1])]
        if book:
            pts = curl_forward(pts, spine_x, curl_amp, curl_w, cam)
        nb_quads.append((eid, pts))
    h_goal = h_target
    M = None
    for attempt in range(30):
        target = (Ww / 2 + jx, Hw / 2 + jy)
        s = h_goal / fs
        for _ in range(3):
            M = homography(fc, s, theta, pitch, yaw, focal, target)
            pp = hmap(M, [(fc[0], fc[1] - fs / 2), (fc[0], fc[1] + fs / 2)])
            hm = float(np.hypot(*(pp[1] - pp[0])))
            s *= h_goal / hm
        M = homography(fc, s, theta, pitch, yaw, focal, target)
        q = hmap(M, quad_page)
        mx, my = 0.035 * Ww, 0.05 * Hw
        # the framed problem must be clearly the one nearest the photo centre
        pc = np.array([Ww / 2, Hw / 2])
        d_f = float(np.hypot(*(q.mean(0) - pc)))
        d_n = min([float(np.hypot(*(hmap(M, pts).mean(0) - pc))) for _, pts in nb_quads] or [1e9])
        if d_f > 0.6 * d_n:
            jx *= 0.5
            jy *= 0.5
            continue
        if q[:, 0].min() >= mx and q[:, 0].max() <= Ww - mx and q[:, 1].min() >= my and q[:, 1].max() <= Hw - my:
            break
        if h_goal > 22.5:
            h_goal = max(22.0, h_goal * 0.95)
        else:
            theta *= 0.7
            pitch *= 0.7
            yaw *= 0.7
            jx *= 0.6
            jy *= 0.6
    pp = hmap(M, [(fc[0], fc[1] - fs / 2), (fc[0], fc[1] + fs / 2)])
    text_h = float(np.hypot(*(pp[1] - pp[0])))
    pc = np.array([Ww / 2, Hw / 2])
    d_framed = float(np.hypot(*(hmap(M, quad_page).mean(0) - pc)))
    d_nearest = min([float(np.hypot(*(hmap(M, pts).mean(0) - pc))) for _, pts in nb_quads] or [9999.0])
    # compose
    bg, desk = desk_background(rng, Ww, Hw)
    ch_, cw_ = canvas.shape[:2]
    warped = cv2.warpPerspective(canvas, M, (Ww, Hw), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    alpha = cv2.warpPerspective(np.ones((ch_, cw_), np.float32), M, (Ww, Hw), flags=cv2.INTER_LINEAR)
    shadow = cv2.GaussianBlur(alpha, (0, 0), 12)
    shadow = np.roll(shadow, (6, 4), (0, 1))
    bg *= (1 - 0.35 * shadow[..., None])
    a3 = alpha[..., None]
    photo = warped * a3 + bg * (1 - a3)
    # paper texture
    tex = cv2.GaussianBlur(rng.normal(0, 1, (Hw, Ww)).astype(np.float32), (0, 0), 1.0) * float(rng.uniform(1.5, 4))
    photo += tex[..., None] * a3
    # lighting
    yy, xx = np.mgrid[0:Hw, 0:Ww].astype(np.float32)
    light_kind = wch(rng, [('warm', 6), ('neutral', 2), ('cool', 1)])
    gang = float(rng.uniform(0, 2 * math.pi))
    gstr = float(rng.uniform(0.08, 0.3))
    grad = ((xx - Ww / 2) * math.cos(gang) + (yy - Hw / 2) * math.sin(gang)) / max(Ww, Hw)
    lx, ly = float(rng.uniform(-0.3, 1.3)) * Ww, float(rng.uniform(-0.3, 1.3)) * Hw
    spot = np.exp(-(((xx - lx) ** 2 + (yy - ly) ** 2) / (2 * (0.7 * max(Ww, Hw)) ** 2)))
    vig = 1 - float(rng.uniform(0.05, 0.25)) * (((xx - Ww / 2) / (Ww / 2)) ** 2 + ((yy - Hw / 2) / (Hw / 2)) ** 2) / 2
    Lmap = (float(rng.uniform(0.8, 0.98)) + gstr * grad + 0.12 * spot) * vig
    shadow_kind = 'none'
    if rng.random() < plan['shadow_p']:
        shadow_kind = 'phone'
        cxs = Ww / 2 + float(rng.uniform(-0.5, 0.5)) * Ww
        cys = Hw * float(rng.choice([-0.05, 1.05])) if rng.random() < 0.6 else Hw / 2 + float(rng.uniform(-0.4, 0.4)) * Hw
        sw, sh_ = float(rng.uniform(0.35, 0.6)) * Ww, float(rng.uniform(0.3, 0.55)) * Hw
        ang = math.radians(float(rng.uniform(-30, 30)))
        pts = []
        for ax, ay in [(-1, -1), (1, -1), (1, 1), (-1, 1)]:
            px_, py_ = ax * sw / 2, ay * sh_ / 2
            pts.append((cxs + px_ * math.cos(ang) - py_ * math.sin(ang), cys + px_ * math.sin(ang) + py_ * math.cos(ang)))
        blob = smooth_blob(Ww, Hw, pts, float(rng.uniform(25, 60)))
        Lmap *= (1 - float(rng.uniform(0.22, 0.42)) * blob)
    photo *= Lmap[..., None]
    cast = {'warm': (1.0, float(rng.uniform(0.9, 0.96)), float(rng.uniform(0.74, 0.86))),
            'neutral': (1.0, 1.0, float(rng.uniform(0.95, 1.0))),
            'cool': (float(rng.uniform(0.9, 0.96)), float(rng.uniform(0.97, 1.0)), 1.0)}[light_kind]
    photo *= np.array(cast, np.float32)[None, None, :]
    quad_ph = hmap(M, quad_page)
    occ, occ_edge = 'none', ''
    if plan['occluder'] != 'none':
        occ, occ_edge = add_occluder(rng, photo, plan['occluder'], quad_ph, Ww, Hw)
    # optics
    blur_sigma = float(rng.choice([0.0, 0.0, rng.uniform(0.4, 0.9), rng.uniform(0.8, 1.4)]))
    if blur_sigma > 0:
        photo = cv2.GaussianBlur(photo, (0, 0), blur_sigma)
    motion = 0
    if rng.random() < 0.15:
        motion = int(rng.integers(3, 6))
        k = np.zeros((motion, motion), np.float32)
        ang = float(rng.uniform(0, 180))
        cv2.line(k, (0, motion // 2), (motion - 1, motion // 2), 1.0, 1)
        R = cv2.getRotationMatrix2D(((motion - 1) / 2, motion // 2), ang, 1.0)
        k = cv2.warpAffine(k, R, (motion, motion))
        k /= max(k.sum(), 1e-6)
        photo = cv2.filter2D(photo, -1, k)
    sharpen = rng.random() < 0.4
    if sharpen:
        bl = cv2.GaussianBlur(photo, (0, 0), 1.2)
        photo = cv2.addWeighted(photo, 1.5, bl, -0.5, 0)
    noise = float(rng.uniform(1.5, 5.0))
    photo += rng.normal(0, noise, photo.shape).astype(np.float32)
    photo = np.clip(photo, 0, 255).astype(np.uint8)
    # orientation
    quad_out = quad_ph.copy()
    if side_k == 1:
        photo = np.rot90(photo, 1)
        quad_out = np.c_[quad_ph[:, 1], Ww - 1 - quad_ph[:, 0]]
    elif side_k == 3:
        photo = np.rot90(photo, 3)
        quad_out = np.c_[Hw - 1 - quad_ph[:, 1], quad_ph[:, 0]]
    photo = np.ascontiguousarray(photo)
    assert photo.shape[1] == W and photo.shape[0] == H, photo.shape
    q = int(rng.integers(60, 91))
    # neighbours visible in the photo
    vis = []
    for eid, pts in nb_quads:
        qq = hmap(M, pts)
        if ((qq[:, 0] > 0) & (qq[:, 0] < Ww) & (qq[:, 1] > 0) & (qq[:, 1] < Hw)).any():
            vis.append(eid)
    st = spec['style']
    fit = spec['framed_item']
    page_has_en = any(it.get('text') and lang_of(it['text']) == 'en' for c in spec['cols'] for it in c if it['type'] == 'problem')
    page_has_zh = any(it.get('text') and lang_of(it['text']) == 'zh' for c in spec['cols'] for it in c if it['type'] == 'problem')
    case = {
        'bank_id': framed_id, 'subject': bank_by_id[framed_id]['subject'], 'lang': bank_by_id[framed_id]['lang'],
        'special': plan['special'], 'orientation': plan['orientation'], 'sideways_rot': {0: 0, 1: 90, 3: 270}[side_k],
        'width': W, 'height': H,
        'page_kind': 'textbook' if (plan['book'] or spec['geo']['side']) else 'workbook',
        'book_spread': int(bool(book)), 'print': plan['print'], 'columns': spec['geo']['ncol'],
        'col_width_em': round(spec['geo']['cw'], 1), 'side_column': int(bool(spec['geo']['side'])),
        'framed_col': spec['framed_col'], 'framed_pos': spec['framed_pos'], 'framed_mode': plan['framed_mode'],
        'sub_index': spec['sub_pos'] + 1 if spec['sub_pos'] >= 0 else '',
        'framed_number': page['framed_number'] if st['label_style'] != 'none' else '',
        'framed_lines': page['framed_lines'], 'framed_chars': len(bank_by_id[framed_id]['question']),
        'panel_style': st['panel_style'], 'panel_outline': int(st['panel_outline']), 'accent': st['accent'],
        'accent2': st['accent2'], 'text_color': st['text_color'], 'paper': st['paper'],
        'label_style': st['label_style'], 'label_color': st['label_color'],
        'label_own_line': fit.get('label_own_eff', 0),
        'sub_label_style': st['sub_label_style'] if plan['framed_mode'] == 'sub' else '',
        'hanging_indent': int(st['hanging']), 'cjk_font': st['cjk'], 'latin_font': st['lat'],
        'page_font_px': fs, 'line_spacing': round(st['lh'], 2), 'text_h_px': round(text_h, 1),
        'sup_scale': round(st['sup_scale'], 2), 'blank_style': st['blank_style'] if '___' in bank_by_id[framed_id]['question'] else '',
        'header_style': st['header_style'], 'heading': spec['heading'], 'unit_tag': spec['unit_tag'],
        'page_lang': spec['page_lang'], 'mixed_lang': int(bool(plan['mixed_lang'])),
        'page_has_zh_and_en': int(page_has_en and page_has_zh), 'adjacent_other_lang_id': spec['adj_other'] or '',
        'icons': plan['icons'], 'margin_icons': len(spec['margin_icons']),
        'tip_box': spec['tip_kind'], 'tip_place': ('side' if spec['side_items'] else ('flow' if spec['tip_kind'] else '')),
        'worked_example': spec['example'],
        'answer_style': plan['answer_style'],
        'framed_icon': fit.get('icon_eff', '') if fit['type'] == 'problem' else '',
        'framed_answer': fit.get('answer_eff', '') if fit['type'] == 'problem' else ('lines' if fit['subs'][0].get('answer') else ''),
        'framed_pencil': (fit.get('pencil', '') if fit['type'] == 'problem'
                          else next((s.get('pencil', '') for s in fit['subs'] if s.get('framed')), '')),
        'hand_font': st['hand_font'],
        'curl_amp': round(curl_amp, 3), 'rotation_deg': round(theta, 1), 'pitch_deg': round(pitch, 1),
        'yaw_deg': round(yaw, 1), 'focal_px': int(focal),
        'lighting': light_kind, 'shadow': shadow_kind, 'light_gradient': round(gstr, 2),
        'occluder': occ, 'occluder_edge': occ_edge, 'desk': desk,
        'blur_sigma': round(blur_sigma, 2), 'motion_blur_px': motion, 'sharpen': int(sharpen),
        'noise_sigma': round(noise, 1), 'jpeg_quality': q,
        'framed_centre_offset_px': round(d_framed, 1), 'nearest_other_centre_offset_px': round(d_nearest, 1),
        'framed_quad': ' '.join(f'{v:.0f}' for v in quad_out.reshape(-1)),
        'neighbours_in_photo': ' '.join(vis),
    }
    return photo, q, case


def worker(args):
    idx, plan, bank, framed_id, seed, outdir = args
    bank_by_id = {e['id']: e for e in bank}
    photo, q, case = synth_photo(idx, plan, bank, bank_by_id, framed_id, seed)
    qid = f'q{idx:03d}'
    ok = cv2.imwrite(os.path.join(outdir, qid + '.jpg'), cv2.cvtColor(photo, cv2.COLOR_RGB2BGR),
                     [cv2.IMWRITE_JPEG_QUALITY, q])
    if not ok:
        raise RuntimeError('could not write ' + qid)
    case = {'qid': qid, **case}
    return idx, qid, framed_id, case


# --------------------------------------------------------------------------
# plan (stratified choices over the whole set) and main
# --------------------------------------------------------------------------
def strat(rng, options, n):
    """Stratified assignment: counts proportional to weights, shuffled."""
    vals = [v for v, _ in options]
    w = np.array([x for _, x in options], float)
    w = w / w.sum()
    counts = np.floor(w * n).astype(int)
    rem = n - counts.sum()
    order = np.argsort(-(w * n - counts), kind='stable')
    for k in range(rem):
        counts[order[k % len(vals)]] += 1
    out = []
    for v, c in zip(vals, counts):
        out += [v] * int(c)
    perm = rng.permutation(n)
    return [out[i] for i in perm]


def load_bank(path):
    bank = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            e = json.loads(line)
            bank.append({'id': e['id'], 'question': e['question'], 'subject': e.get('subject', ''),
                         'lang': lang_of(e['question'])})
    return bank


def entry_order(bank, count, rng):
    """Special entries (superscript / subscript / ___) first, then the others; each cycle shuffled."""
    order = []
    while len(order) < count:
        spec_ = [e['id'] for e in bank if is_special(e['question'])]
        rest = [e['id'] for e in bank if not is_special(e['question'])]
        order += [spec_[i] for i in rng.permutation(len(spec_))]
        order += [rest[i] for i in rng.permutation(len(rest))]
    return order[:count]


def make_plan(n, seed, bank, order):
    rng = np.random.default_rng([seed, PLAN_STREAM])
    by_id = {e['id']: e for e in bank}
    n_side = max(1, round(n * 5 / 120)) if n >= 10 else 0
    sideways = [0] * n
    for i in rng.choice(n, n_side, replace=False) if n_side else []:
        sideways[int(i)] = int(rng.choice([1, 3]))
    n_finger = round(n * 6 / 120)
    n_case = round(n * 4 / 120)
    occl = ['none'] * n
    pick = rng.choice(n, n_finger + n_case, replace=False) if n_finger + n_case else []
    for k, i in enumerate(pick):
        occl[int(i)] = 'finger' if k < n_finger else 'pencil_case'
    cols = {
        'orientation': strat(rng, [('landscape', 1), ('portrait', 1)], n),
        'panel_style': strat(rng, [('rounded_box', 24), ('band', 22), ('frame', 20), ('alt_rows', 18),
                                   ('big_panel', 14), ('none', 22)], n),
        'label_style': strat(rng, [(s, 1) for s in LABEL_STYLES], n),
        'text_color': strat(rng, [('black', 5), ('dark_blue', 2), ('dark_green', 1.5), ('brown', 1.5),
                                  ('purple', 1.5), ('dark_gray', 0.5)], n),
        'framed_mode': strat(rng, [('single', 5), ('sub', 1)], n),
        'print': strat(rng, [('normal', 3), ('large', 2)], n),
        'columns': strat(rng, [(1, 3), (2, 2)], n),
        'mixed_lang': strat(rng, [(True, 1), (False, 1)], n),
        'answer_style': strat(rng, [(s, 1) for s in ANSWER_STYLES], n),
        'framed_pencil_p': strat(rng, [(0.0, 2), (1.0, 1)], n),
        'pencil_p': strat(rng, [(0.0, 1), (0.3, 1), (0.6, 1)], n),
        'icons': strat(rng, [('none', 2), ('right', 1), ('margin', 1)], n),
        'side_box': strat(rng, [(True, 2), (False, 3)], n),
        'example': strat(rng, [(True, 1), (False, 2)], n),
        'book': strat(rng, [(True, 1), (False, 2)], n),
        'shadow_p': strat(rng, [(0.0, 1), (1.0, 1)], n),
    }
    sub_idx = [i for i in range(n) if cols['framed_mode'][i] == 'sub']
    first = int(rng.integers(2))
    sub_pos = [0] * n
    for k, i in enumerate(sub_idx):
        sub_pos[i] = (k + first) % 2
    plans = []
    for i in range(n):
        p = {k: v[i] for k, v in cols.items()}
        p['sideways'] = sideways[i]
        p['sub_pos'] = sub_pos[i]
        p['occluder'] = occl[i]
        p['special'] = int(is_special(by_id[order[i]]['question']))
        plans.append(p)
    return plans


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outdir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=301)
    ap.add_argument('--jobs', type=int, default=2)
    a = ap.parse_args(argv)
    t0 = time.time()
    bank = load_bank(a.bank)
    os.makedirs(a.outdir, exist_ok=True)
    order = entry_order(bank, a.count, np.random.default_rng([a.seed, PLAN_STREAM + 1]))
    plans = make_plan(a.count, a.seed, bank, order)
    tasks = [(i + 1, plans[i], bank, order[i], a.seed, a.outdir) for i in range(a.count)]
    results = []
    if a.jobs <= 1:
        for t in tasks:
            results.append(worker(t))
    else:
        with ProcessPoolExecutor(a.jobs) as ex:
            for r in ex.map(worker, tasks, chunksize=1):
                results.append(r)
    results.sort(key=lambda r: r[0])
    by_id = {e['id']: e for e in bank}
    with open(os.path.join(a.outdir, 'truth.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for _, qid, eid, _ in results:
            w.writerow([qid, by_id[eid]['question']])
    with open(os.path.join(a.outdir, 'queries.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for _, qid, eid, _ in results:
            w.writerow([qid, by_id[eid]['question'], eid, 'exact'])
    cases = [r[3] for r in results]
    with open(os.path.join(a.outdir, 'cases.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.DictWriter(f, fieldnames=list(cases[0].keys()))
        w.writeheader()
        for c in cases:
            w.writerow(c)
    print(f'wrote {len(results)} photos to {a.outdir} in {time.time() - t0:.1f} s')


if __name__ == '__main__':
    main()
