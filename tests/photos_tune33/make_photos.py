#!/usr/bin/env python3
"""Synthetic phone photos of teacher-made handouts ("tune33" set).

Each photo shows a printed page (worksheet / quiz / unit test / revision
sheet) typed by a teacher and printed at school; the student pointed the
phone at ONE problem (the "framed" problem).  The page is laid out in
millimetres, the visible part is rendered at high resolution with system
fonts and warped into the photo with OpenCV, then phone effects are added.

    make_photos.py --bank BANK OUTDIR --count N --seed S --jobs J

Output depends only on --seed and --count (never on --jobs): every case is
planned from the seed up front and each photo draws its own randomness from
(seed, i).  See README.md for the files written and the column meanings.
"""

import argparse
import csv
import difflib
import glob
import json
import math
import os
import random
import re
import sys
import time
from collections import defaultdict

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

PT = 0.352778          # millimetres per typographic point
REF = 200              # pixel size used for text measurement
FONT_ROOT = '/usr/share/fonts'

FONT_FILES = {
    'lib_serif': ('truetype/liberation/LiberationSerif-Regular.ttf', 0),
    'lib_serif_b': ('truetype/liberation/LiberationSerif-Bold.ttf', 0),
    'lib_serif_i': ('truetype/liberation/LiberationSerif-Italic.ttf', 0),
    'lib_sans': ('truetype/liberation/LiberationSans-Regular.ttf', 0),
    'lib_sans_b': ('truetype/liberation/LiberationSans-Bold.ttf', 0),
    'lib_sans_i': ('truetype/liberation/LiberationSans-Italic.ttf', 0),
    'lib_narrow': ('truetype/liberation/LiberationSansNarrow-Regular.ttf', 0),
    'lib_narrow_b': ('truetype/liberation/LiberationSansNarrow-Bold.ttf', 0),
    'lib_narrow_i': ('truetype/liberation/LiberationSansNarrow-Italic.ttf', 0),
    'dj_sans': ('truetype/dejavu/DejaVuSans.ttf', 0),
    'dj_sans_b': ('truetype/dejavu/DejaVuSans-Bold.ttf', 0),
    'dj_sans_i': ('truetype/dejavu/DejaVuSans-Oblique.ttf', 0),
    'dj_cond': ('truetype/dejavu/DejaVuSansCondensed.ttf', 0),
    'dj_cond_b': ('truetype/dejavu/DejaVuSansCondensed-Bold.ttf', 0),
    'dj_cond_i': ('truetype/dejavu/DejaVuSansCondensed-Oblique.ttf', 0),
    'dj_serif': ('truetype/dejavu/DejaVuSerif.ttf', 0),
    'dj_serif_b': ('truetype/dejavu/DejaVuSerif-Bold.ttf', 0),
    'dj_serif_i': ('truetype/dejavu/DejaVuSerif-Italic.ttf', 0),
    'dj_serifc': ('truetype/dejavu/DejaVuSerifCondensed.ttf', 0),
    'dj_serifc_b': ('truetype/dejavu/DejaVuSerifCondensed-Bold.ttf', 0),
    'dj_serifc_i': ('truetype/dejavu/DejaVuSerifCondensed-Italic.ttf', 0),
    'cjk_sans': ('opentype/noto/NotoSansCJK-Regular.ttc', 2),
    'cjk_sans_b': ('opentype/noto/NotoSansCJK-Bold.ttc', 2),
    'cjk_serif': ('opentype/noto/NotoSerifCJK-Regular.ttc', 2),
    'cjk_serif_b': ('opentype/noto/NotoSerifCJK-Bold.ttc', 2),
}

# Latin families: regular, bold, italic, kind
LATIN_FAMS = {
    'LiberationSerif': ('lib_serif', 'lib_serif_b', 'lib_serif_i', 'serif'),
    'LiberationSans': ('lib_sans', 'lib_sans_b', 'lib_sans_i', 'sans'),
    'LiberationSansNarrow': ('lib_narrow', 'lib_narrow_b', 'lib_narrow_i', 'sans'),
    'DejaVuSans': ('dj_sans', 'dj_sans_b', 'dj_sans_i', 'sans'),
    'DejaVuSansCondensed': ('dj_cond', 'dj_cond_b', 'dj_cond_i', 'sans'),
    'DejaVuSerif': ('dj_serif', 'dj_serif_b', 'dj_serif_i', 'serif'),
    'DejaVuSerifCondensed': ('dj_serifc', 'dj_serifc_b', 'dj_serifc_i', 'serif'),
    'NotoSerifCJK': ('cjk_serif', 'cjk_serif_b', None, 'serif'),
    'NotoSansCJK': ('cjk_sans', 'cjk_sans_b', None, 'sans'),
}
CJK_FAMS = {'NotoSerifCJK-SC': ('cjk_serif', 'cjk_serif_b'),
            'NotoSansCJK-SC': ('cjk_sans', 'cjk_sans_b')}

# --------------------------------------------------------------------------
# font helpers
# --------------------------------------------------------------------------
_FONT = {}
_CMAP = {}
_LEN = {}
_BBOX = {}


def font(key, px):
    px = max(1, int(round(px)))
    k = (key, px)
    f = _FONT.get(k)
    if f is None:
        if len(_FONT) > 400:
            _FONT.clear()
        path, idx = FONT_FILES[key]
        f = ImageFont.truetype(os.path.join(FONT_ROOT, path), px, index=idx,
                               layout_engine=ImageFont.Layout.BASIC)
        _FONT[k] = f
    return f


def cmap(key):
    c = _CMAP.get(key)
    if c is None:
        from fontTools.ttLib import TTFont, TTCollection
        path, idx = FONT_FILES[key]
        full = os.path.join(FONT_ROOT, path)
        if full.endswith('.ttc'):
            tt = TTCollection(full, lazy=True).fonts[idx]
        else:
            tt = TTFont(full, lazy=True)
        c = frozenset(tt.getBestCmap().keys())
        _CMAP[key] = c
    return c


def seg_len(key, text):
    k = (key, text)
    v = _LEN.get(k)
    if v is None:
        v = font(key, REF).getlength(text) / REF
        _LEN[k] = v
    return v


def seg_bbox(key, text):
    k = (key, text)
    v = _BBOX.get(k)
    if v is None:
        b = font(key, REF).getbbox(text, anchor='ls')
        v = tuple(x / REF for x in b)
        _BBOX[k] = v
    return v


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF
            or 0xF900 <= o <= 0xFAFF or ch in '“”‘’…℃')


def has_cjk(s):
    return any(0x3400 <= ord(c) <= 0x9FFF for c in s)


SUP = {'²': '2', '³': '3', '¹': '1', '⁰': '0', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7',
       '⁸': '8', '⁹': '9', '⁻': '-', 'ⁿ': 'n'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6', '₇': '7',
       '₈': '8', '₉': '9', 'ₙ': 'n', 'ₓ': 'x'}
CLOSE = set('，。、；：？！）》」』】〕”’,.;:?!)]}%…')
OPEN = set('（《「『【〔“‘([{')
FRAC_RE = re.compile(r'^(\d+)/(\d+)$')


class Style:
    """Text style: Latin family + CJK family + size (mm per em) + flags."""

    def __init__(self, lat, cjk, em, bold=False, italic=False, math=False,
                 script='raised', frac='inline', sqrt_bar=False, ink=255):
        self.latn = lat
        self.cjkn = cjk
        reg, bld, ita, kind = LATIN_FAMS[lat]
        self.kind = kind
        self.lat_key = bld if bold else (ita if (italic and ita) else reg)
        self.ital_key = ita if ita else reg
        if bold:
            self.ital_key = bld
        sym = 'dj_serif' if kind == 'serif' else 'dj_sans'
        self.sym_key = sym + ('_b' if bold else '')
        c_reg, c_bld = CJK_FAMS[cjk]
        self.cjk_key = c_bld if bold else c_reg
        self.em = em
        self.bold = bold
        self.math = math
        self.script = script
        self.frac = frac
        self.sqrt_bar = sqrt_bar
        self.ink = ink

    def derive(self, **kw):
        d = dict(lat=self.latn, cjk=self.cjkn, em=self.em, bold=self.bold, italic=False,
                 math=self.math, script=self.script, frac=self.frac,
                 sqrt_bar=self.sqrt_bar, ink=self.ink)
        d.update(kw)
        return Style(**d)

    def pick(self, ch, italic=False):
        if is_cjk(ch):
            return self.cjk_key
        k = self.ital_key if italic else self.lat_key
        if ord(ch) in cmap(k):
            return k
        if ord(ch) in cmap(self.sym_key):
            return self.sym_key
        return self.cjk_key


class Tok:
    __slots__ = ('w', 'segs', 'lines', 'asc', 'desc', 'brk', 'space', 'role', 'bbox',
                 'stretch', 'text')

    def __init__(self, role):
        self.w = 0.0
        self.segs = []      # (dx, dy, key, size_mm, text)
        self.lines = []     # (x0, y0, x1, y1, width_mm)
        self.asc = 0.0
        self.desc = 0.0
        self.brk = True
        self.space = False
        self.role = role
        self.bbox = None
        self.stretch = False
        self.text = ''


def _finish(t, st):
    bx = []
    for dx, dy, key, size, text in t.segs:
        b = seg_bbox(key, text)
        if b[2] > b[0]:
            bx.append((dx + b[0] * size, dy + b[1] * size, dx + b[2] * size, dy + b[3] * size))
    for x0, y0, x1, y1, w in t.lines:
        bx.append((min(x0, x1), min(y0, y1) - w / 2, max(x0, x1), max(y0, y1) + w / 2))
    if bx:
        t.bbox = (min(b[0] for b in bx), min(b[1] for b in bx),
                  max(b[2] for b in bx), max(b[3] for b in bx))
    if not t.asc:
        t.asc = 0.88 * st.em
        t.desc = 0.24 * st.em
    return t


def frac_token(num, den, st, role):
    t = Tok(role)
    em = st.em
    fs = 0.70 * em
    kn, kd = st.pick(num[0]), st.pick(den[0])
    wn, wd = seg_len(kn, num) * fs, seg_len(kd, den) * fs
    wb = max(wn, wd) + 0.18 * em
    pad = 0.08 * em
    bar_y = -0.27 * em
    t.segs.append((pad + (wb - wn) / 2, bar_y - 0.10 * em, kn, fs, num))
    t.segs.append((pad + (wb - wd) / 2, bar_y + 0.60 * em, kd, fs, den))
    t.lines.append((pad, bar_y, pad + wb, bar_y, 0.055 * em))
    t.w = wb + 2 * pad
    t.asc = 1.05 * em
    t.desc = 0.55 * em
    t.text = num + '/' + den
    return _finish(t, st)


def word_token(word, st, role):
    if st.frac == 'stacked' and st.math:
        m = FRAC_RE.match(word)
        if m:
            return frac_token(m.group(1), m.group(2), st, role)
    t = Tok(role)
    t.text = word
    em = st.em
    # which letters are single-letter variables (math italic)
    ital = [False] * len(word)
    if st.math and st.kind == 'serif':
        i = 0
        while i < len(word):
            if word[i].isascii() and word[i].isalpha():
                j = i
                while j < len(word) and word[j].isascii() and word[j].isalpha():
                    j += 1
                if j - i == 1:
                    ital[i] = True
                i = j
            else:
                i += 1
    chars = []   # (key, size, dy, ch)
    for i, ch in enumerate(word):
        if ch in SUP or ch in SUB:
            k = st.pick(ch)
            if st.script == 'unicode' and k == st.lat_key and ord(ch) in cmap(k):
                chars.append((k, em, 0.0, ch))
                continue
            base = SUP.get(ch) or SUB.get(ch)
            k = st.pick(base, italic=(base.isalpha() and st.math and st.kind == 'serif'))
            dy = -0.36 * em if ch in SUP else 0.17 * em
            chars.append((k, 0.64 * em, dy, base))
        else:
            chars.append((st.pick(ch, ital[i]), em, 0.0, ch))
    # merge runs
    runs = []
    for k, s, dy, ch in chars:
        if runs and runs[-1][0] == k and runs[-1][1] == s and runs[-1][2] == dy:
            runs[-1][3] += ch
        else:
            runs.append([k, s, dy, ch])
    x = 0.0
    for k, s, dy, txt in runs:
        w = seg_len(k, txt) * s
        t.segs.append((x, dy, k, s, txt))
        x += w
        if k == st.ital_key and st.math and k != st.lat_key:
            x += 0.04 * em
    if st.sqrt_bar and '√' in word:
        # overline over the radicand, as an equation editor draws it
        idx = word.index('√')
        mm = re.match(r'[0-9A-Za-z.]+', word[idx + 1:])
        if mm:
            xa = sum(seg_len(c[0], c[3]) * c[1] for c in chars[:idx + 1])
            wr = sum(seg_len(c[0], c[3]) * c[1] for c in chars[idx + 1:idx + 1 + len(mm.group(0))])
            kr = chars[idx][0]
            b = seg_bbox(kr, '√')
            y = b[1] * em + 0.025 * em
            t.lines.append((xa - 0.03 * em, y, xa + wr + 0.03 * em, y, 0.05 * em))
    t.w = x
    return _finish(t, st)


def tokenize(text, st, role):
    toks = []
    buf = []
    prev_open = [False]

    def push(t, first_char):
        if first_char in CLOSE or prev_open[0]:
            t.brk = False
        toks.append(t)

    def flush():
        if buf:
            w = ''.join(buf)
            t = word_token(w, st, role)
            push(t, w[0])
            prev_open[0] = w[-1] in OPEN
            buf.clear()

    for ch in text:
        if ch == ' ':
            flush()
            t = Tok(role)
            t.space = True
            t.w = seg_len(st.lat_key, ' ') * st.em
            t.text = ' '
            t.asc, t.desc = 0.88 * st.em, 0.24 * st.em
            toks.append(t)
            prev_open[0] = False
        elif is_cjk(ch):
            flush()
            t = Tok(role)
            k = st.cjk_key
            t.segs.append((0.0, 0.0, k, st.em, ch))
            t.w = seg_len(k, ch) * st.em
            t.text = ch
            _finish(t, st)
            push(t, ch)
            prev_open[0] = ch in OPEN
        else:
            buf.append(ch)
    flush()
    return toks


def blank_token(st, role, width):
    """A drawn underline (Word 'underlined spaces'); may shrink to fit."""
    t = Tok(role)
    t.lines.append((0.1 * st.em, 0.14 * st.em, width - 0.1 * st.em, 0.14 * st.em, 0.06 * st.em))
    t.w = width
    t.stretch = True
    t.text = '_'
    return _finish(t, st)


def bracket_token(st, role, cjk, gap_em=2.0):
    """Empty answer brackets kept on one line: （　　） or (      )."""
    t = Tok(role)
    lch, rch = ('（', '）') if cjk else ('(', ')')
    kl = st.cjk_key if cjk else st.lat_key
    wl = seg_len(kl, lch) * st.em
    t.segs.append((0.0, 0.0, kl, st.em, lch))
    t.segs.append((wl + gap_em * st.em, 0.0, kl, st.em, rch))
    t.w = 2 * wl + gap_em * st.em
    t.text = lch + rch
    t.brk = not cjk
    return _finish(t, st)


def toks_width(toks):
    return sum(t.w for t in toks)


def flow(toks, right, x_first, x_rest, st, ls, justify=False, align='left', y0=0.0):
    """Greedy line breaking.  Returns dict with placed tokens and metrics."""
    units = []
    for t in toks:
        if not units or t.brk or t.space or units[-1][-1].space:
            units.append([t])
        else:
            units[-1].append(t)
    lines = []
    cur, cur_w = [], 0.0
    x_start = x_first
    queue = list(units)
    while queue:
        u = queue.pop(0)
        uw = toks_width(u)
        is_space = u[0].space
        avail = right - x_start
        if is_space and not cur:
            continue
        if not is_space and cur and cur_w + uw > avail + 1e-6:
            if len(u) == 1 and u[0].stretch and avail - cur_w >= 3 * st.em:
                u[0].w = avail - cur_w
                t0 = u[0]
                t0.lines = [(0.1 * st.em, 0.14 * st.em, t0.w - 0.1 * st.em, 0.14 * st.em, 0.06 * st.em)]
                _finish(t0, st)
                cur.append(u)
                cur_w += t0.w
                continue
            lines.append((x_start, cur))
            cur, cur_w = [], 0.0
            x_start = x_rest
            avail = right - x_start
        if not cur and not is_space and uw > avail + 1e-6 and len(u) > 1:
            queue = [[t] for t in u] + queue
            continue
        if not cur and not is_space and uw > avail + 1e-6 and u[0].stretch:
            u[0].w = max(3 * st.em, avail)
            t0 = u[0]
            t0.lines = [(0.1 * st.em, 0.14 * st.em, t0.w - 0.1 * st.em, 0.14 * st.em, 0.06 * st.em)]
            _finish(t0, st)
        cur.append(u)
        cur_w += toks_width(u)
    if cur:
        lines.append((x_start, cur))
    placed = []
    baseline = None
    prev_desc = 0.0
    em = st.em
    ends = []
    line_roles = []
    for li, (xs, us) in enumerate(lines):
        while us and us[-1][0].space:
            us = us[:-1]
        if not us:
            continue
        w = sum(toks_width(u) for u in us)
        avail = right - xs
        gaps = []
        extra = 0.0
        last = li == len(lines) - 1
        if justify and not last and 0 < avail - w < 0.3 * avail and len(us) > 1:
            sp = [k for k, u in enumerate(us) if u[0].space]
            if sp and not any(has_cjk(t.text) for u in us for t in u):
                gaps = sp
            else:
                gaps = list(range(1, len(us)))
            extra = (avail - w) / max(1, len(gaps))
            if extra > (0.3 if gaps is sp else 0.35) * em:
                gaps, extra = [], 0.0
        asc = max(t.asc for u in us for t in u)
        desc = max(t.desc for u in us for t in u)
        if baseline is None:
            baseline = y0 + max(0.9 * em, asc)
        else:
            baseline = baseline + max(ls * em, prev_desc + asc + 0.12 * em)
        prev_desc = desc
        if align == 'center':
            x = xs + (avail - w) / 2
        elif align == 'right':
            x = right - w
        else:
            x = xs
        gset = set(gaps)
        roles = set()
        for k, u in enumerate(us):
            if k in gset:
                x += extra
            for t in u:
                placed.append((t, x, baseline, li))
                roles.add(t.role)
                x += t.w
        ends.append(x)
        line_roles.append(roles)
    if baseline is None:
        baseline = y0 + 0.9 * em
        ends = [x_first]
        line_roles = [set()]
    return dict(placed=placed, last_base=baseline, last_end=ends[-1], nlines=len(ends),
                h=baseline + max(prev_desc, 0.3 * em) - y0, line_roles=line_roles,
                first_end=ends[0])


class Block:
    def __init__(self, kind):
        self.kind = kind
        self.items = []
        self.boxes = defaultdict(list)
        self.h = 0.0
        self.info = {}

    def add_placed(self, placed, ink=255, owner_boxes=True):
        for t, x, b, _li in placed:
            for dx, dy, key, size, text in t.segs:
                if text.strip() and text != '\u3000':
                    self.items.append(('text', x + dx, b + dy, key, size, text, ink))
            for x0, y0, x1, y1, w in t.lines:
                self.items.append(('line', x + x0, b + y0, x + x1, b + y1, w, ink))
            if owner_boxes and t.bbox is not None and not t.space:
                bb = t.bbox
                self.boxes[t.role].append((x + bb[0], b + bb[1], x + bb[2], b + bb[3]))


def union(boxes):
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


# --------------------------------------------------------------------------
# content: names, headings, options, figures
# --------------------------------------------------------------------------
SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'english': '英语',
           'biology': '生物', 'geography': '地理', 'history': '历史', 'chinese': '语文'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry',
           'english': 'English', 'biology': 'Biology', 'geography': 'Geography',
           'history': 'History', 'chinese': 'Chinese'}
TOPIC_EN = {'math': ['Equations', 'Algebra review', 'Probability', 'Geometry', 'Number skills',
                     'Linear functions'],
            'physics': ['Forces and Motion', 'Energy', 'Electricity', 'Free fall'],
            'chemistry': ['Moles', 'Formulae and Equations', 'Air and Oxygen'],
            'english': ['Verb forms', 'Grammar', 'Vocabulary', 'Tenses'],
            'biology': ['Cells', 'Life processes', 'Human body'],
            'geography': ['Rivers', 'World geography', 'Maps and scale'],
            'history': ['Exploration', 'Modern history', 'Key dates'],
            'chinese': ['Classical poems', 'Idioms']}
GRADE_ZH = {'1': '一年级', '2': '二年级', '3': '三年级', '4': '四年级', '5': '五年级',
            '6': '六年级', '7': '七年级', '8': '八年级', '9': '九年级', '10': '高一',
            '11': '高二', '12': '高三'}
SCHOOLS_ZH = ['实验中学', '第二中学', '育才学校', '阳光中学', '城南中学', '光明初级中学',
              '新华实验学校', '明德中学', '第十二中学', '滨江中学']
SCHOOLS_EN = ['Riverside Middle School', 'Hillcrest Academy', 'Green Park School',
              'Oakfield High School', 'Lakeview International School', 'St. Mary\'s School']
CN = '一二三四五六七八九十'
ROMAN = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X']
ROMAN_L = ['i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii', 'ix', 'x', 'xi', 'xii', 'xiii',
           'xiv', 'xv', 'xvi', 'xvii', 'xviii', 'xix', 'xx', 'xxi', 'xxii', 'xxiii', 'xxiv',
           'xxv', 'xxvi', 'xxvii', 'xxviii', 'xxix', 'xxx', 'xxxi', 'xxxii', 'xxxiii', 'xxxiv',
           'xxxv', 'xxxvi', 'xxxvii', 'xxxviii', 'xxxix', 'xl']

NUM_STYLES = {
    'dot': '{n}.', 'paren': '{n})', 'dun': '{n}、', 'fwparen': '（{n}）', 'paren2': '({n})',
    'Q': 'Q{n}', 'Qdot': 'Q{n}.', 'di': '第{n}题', 'question': 'Question {n}:', 'ex': 'Ex. {n}',
    'roman_lower': '{r}.', 'fwdot': '{n}．', 'bracket': '[{n}]', 'none': '',
    'blank_paren': '(      ) {n}.',
}
NUM_ZH = ['dot', 'dun', 'fwparen', 'di', 'fwdot', 'paren2', 'paren', 'none', 'dot', 'dun']
NUM_EN = ['dot', 'paren', 'Q', 'Qdot', 'question', 'ex', 'roman_lower', 'bracket', 'paren2',
          'none', 'dot']
NUM_MIX = ['dot', 'dun', 'fwparen', 'paren', 'Q', 'question', 'ex', 'blank_paren', 'di',
           'roman_lower', 'paren2', 'none']

SEC_NAMES = {
    'choice': (['选择题', '单项选择题', '选一选'], ['Multiple choice', 'Choose the best answer', 'Multiple-choice questions']),
    'fill': (['填空题', '填一填'], ['Fill in the blanks', 'Complete the sentences', 'Short fill-in']),
    'short': (['简答题', '问答题', '解答题'], ['Short answers', 'Short-answer questions', 'Questions']),
    'calc': (['计算题', '解答题', '综合题'], ['Calculation', 'Problems', 'Show your working']),
    'plain': (['基础练习', '知识回顾', '基础巩固'], ['Warm-up', 'Quick questions', 'Review questions']),
}
SEC_INSTR = {
    'choice': ('在每小题给出的四个选项中，只有一项是符合题目要求的。', 'Choose the best answer (A, B, C or D).'),
    'fill': ('请把答案填在横线上。', 'Write your answer on the line.'),
    'short': ('请简要回答下列问题。', 'Answer in one or two sentences.'),
    'calc': ('写出必要的计算过程。', 'Show all your working.'),
    'plain': ('', ''),
}

NUM_UNITS = ['kg/m³', 'm/s²', 'm/s', 'cm³', 'km/h', '千米/时', '平方厘米', '立方厘米', '厘米',
             '千米', 'kg', 'Pa', 'Ω', 'N', 'J', 'W', 'V', 'A', 'g', 'm', 's', '元', '℃', '°', '%',
             'mol', '平方米', '米']
POOL_ZH = {
    'geography': ['太平洋', '大西洋', '印度洋', '北冰洋', '长江', '黄河', '新疆维吾尔自治区',
                  '西藏自治区', '青藏高原', '内蒙古高原', '亚洲', '非洲', '约 23.5°N', '约 66.5°N',
                  '约 24 小时', '约 365 天', '自西向东', '自东向西', '澳门特别行政区'],
    'history': ['公元前 221 年', '公元前 206 年', '1840 年', '1842 年', '1911 年', '1919 年',
                '1921 年', '1949 年', '唐太宗', '唐玄宗', '汉武帝', '刘邦', '1914 年', '1939 年'],
    'biology': ['叶绿体', '线粒体', '细胞核', '液泡', '细胞壁', '左心室', '右心室', '左心房',
                '肝脏', '小肠', '23 对', '46 对', '1/4', '1/2', '沃森和克里克', '孟德尔'],
    'chemistry': ['H₂O', 'H₂O₂', 'CO₂', 'O₂', 'N₂', '氮气', '氧气', '二氧化碳', 'Fe₃O₄', 'NaCl',
                  'pH = 7', 'pH < 7', '0.5 mol', '1 mol', '10%', '20%', 'KMnO₄'],
    'physics': ['3×10⁸ m/s', '340 m/s', '100 ℃', '0 ℃', '5 Ω', '20 Ω', '1 kW·h', '2 m/s²',
                '500 N', '100 J', '10 W', 'ρ = m/V', '2.7 g/cm³', '2×10⁴ Pa', '20 Ω', '12 Ω'],
    'math': ['x ≤ 4', 'x > 4', '√3', '2π', '11/12', '7/12', 'x₁ = 2，x₂ = 3', '(0, 1)',
             '(-1/2, 0)', '{2, 3}', '{1, 2, 3, 4}', '3/4', '1', '60°', '180°'],
    'chinese': ['李白', '杜甫', '王之涣', '孟浩然', '朱自清', '鲁迅', '诸葛亮', '范仲淹', '苏轼',
                '举头望明月', '处处闻啼鸟', '黄河入海流', '更上一层楼', '《岳阳楼记》', '《水调歌头》',
                '孔子', '儒家'],
    'english': ['went', 'gone', 'goes', 'go', 'children', 'childs', 'teeth', 'tooths', 'better',
                'best', 'a', 'an', 'since', 'for', 'cheap', 'I get up at seven every morning.'],
}
POOL_EN = {
    'physics': ['newton (N)', 'joule (J)', 'watt (W)', 'pascal (Pa)', '20 m/s', '10 m/s',
                '20 m', '40 m', '9 J', '36 J', '18 J', '6 J'],
    'biology': ['the cell', 'the tissue', 'the organ', 'the mitochondrion', 'the chloroplast',
                'the nucleus', 'the ribosome'],
    'geography': ['the Nile', 'the Amazon', 'the Yangtze', 'the Mississippi'],
    'history': ['1492', '1498', '1776', '1588', '1519'],
    'math': ['3/8', '5/8', '1/2', '3/5', '720°', '540°', '360°', '3', '2', '4', 'x > 4', 'x < 4',
             'x ≤ 4'],
    'chemistry': ['2 mol', '1 mol', '18 mol', '0.5 mol'],
    'english': ['went', 'gone', 'goes', 'go', 'better', 'best', 'a', 'an', 'since', 'for',
                'cheap', 'was cleaned', 'is cleaned by Tom', 'The room is cleaned by Tom every day.',
                '熟能生巧', 'gooder', 'goodest', 'cheaper'],
}


def make_options(q, rng, lang):
    a = q.get('answer', '')
    subj = q['subject']
    nums = list(re.finditer(r'-?\d+(?:\.\d+)?', a.replace('$', '')))
    a2 = a.replace('$', '')
    m = nums[-1] if nums else None
    unit = ''
    numeric = False
    if m is not None and subj in ('math', 'physics', 'chemistry', 'geography'):
        after = a2[m.end():m.end() + 8].lstrip(' （(')
        for u in NUM_UNITS:
            if after.startswith(u):
                unit = u
                break
        before = a2[max(0, m.start() - 3):m.start()]
        numeric = bool(unit) or '=' in before or '得' in before or '是' in before
        if re.search(r'[A-Za-z]$', a2[:m.start()]):      # part of a formula such as H2O
            numeric = False
    if numeric and rng.random() < 0.85:
        v = m.group(0)
        prefix = ''
        pm = re.search(r'([a-zA-Z])\s*=\s*' + re.escape(v) + r'\s*$', a2[:m.end()])
        if pm and subj == 'math':
            prefix = pm.group(1) + ' = '
        if '.' in v:
            d = len(v.split('.')[1])
            x = float(v)
            cands = [x * 2, x / 2, x + 0.5, x * 10, x + 1, max(0.1, x - 1)]
            fmt = lambda y: ('%.' + str(d) + 'f') % y
        else:
            x = int(v)
            cands = [x + 1, x - 1, x + 2, 2 * x, x // 2, x + 10, x * 10, -x]
            fmt = lambda y: str(int(y))
        out = [fmt(x)]
        rng.shuffle(cands)
        for c in cands:
            s = fmt(c)
            if s not in out and (c >= 0 or x < 0):
                out.append(s)
            if len(out) == 4:
                break
        while len(out) < 4:
            out.append(fmt(x + len(out) * 3))
        rng.shuffle(out)
        sep = '' if (unit and has_cjk(unit)) or unit in ('°', '%') else ' '
        return [prefix + o + (sep + unit if unit else '') for o in out]
    if lang == 'en' and subj in POOL_EN:
        pool = POOL_EN[subj]
    else:
        pool = POOL_ZH.get(subj) or POOL_EN.get(subj)
    if subj == 'english' and 'go / goes / went' in q['question']:
        return ['go', 'goes', 'went', 'going']
    return rng.sample(pool, 4)


OPT_LABELS = ['A.', 'A．', 'A、', '(A)', 'A)', 'A. ']


def opt_label(style, k):
    L = 'ABCD'[k]
    return style.replace('A', L)


# ---- figures -------------------------------------------------------------

def fig_items(kind, st, rng, lang):
    """Return (items, w, h) for a small drawing, origin top-left, mm."""
    em = st.em
    fs = st.derive(em=em * 0.85, bold=False, math=True)
    lw = rng.uniform(0.22, 0.35)
    items = []

    def text(x, y, s, stl=fs, anchor='c'):
        toks = tokenize(s, stl, 'fig')
        w = toks_width(toks)
        if anchor == 'c':
            x0 = x - w / 2
        elif anchor == 'r':
            x0 = x - w
        else:
            x0 = x
        b = y + 0.35 * stl.em
        for t in toks:
            for dx, dy, key, size, tx in t.segs:
                items.append(('text', x0 + dx, b + dy, key, size, tx, 255))
            for a0, b0, a1, b1, ww in t.lines:
                items.append(('line', x0 + a0, b + b0, x0 + a1, b + b1, ww, 255))
            x0 += t.w

    def line(x0, y0, x1, y1, w=lw):
        items.append(('line', x0, y0, x1, y1, w, 255))

    def arrow(x0, y0, x1, y1):
        line(x0, y0, x1, y1)
        ang = math.atan2(y1 - y0, x1 - x0)
        for s in (-1, 1):
            a = ang + math.pi + s * 0.4
            line(x1, y1, x1 + 1.8 * math.cos(a), y1 + 1.8 * math.sin(a))

    if kind == 'triangle':
        w, h = rng.uniform(30, 42), rng.uniform(24, 32)
        A = (4, h - 5)
        B = (w - 4, h - 5)
        C = (4 + rng.uniform(0, 0.15) * w, 4) if rng.random() < 0.6 else (rng.uniform(0.3, 0.6) * w, 4)
        items.append(('poly', [A, B, C], lw, 255, True))
        if abs(C[0] - A[0]) < 0.2 * w:
            C = (A[0], C[1])
            items[-1] = ('poly', [A, B, C], lw, 255, True)
            line(A[0] + 2.5, A[1], A[0] + 2.5, A[1] - 2.5)
            line(A[0], A[1] - 2.5, A[0] + 2.5, A[1] - 2.5)
        labs = rng.choice([('A', 'B', 'C'), ('C', 'B', 'A'), ('O', 'P', 'Q')])
        text(A[0] - 2.2, A[1] + 1.5, labs[0])
        text(B[0] + 2.2, B[1] + 1.5, labs[1])
        text(C[0], C[1] - 2.5, labs[2])
        s1, s2 = rng.choice([('3', '4'), ('6', '8'), ('a', 'b'), ('5 cm', '12 cm')])
        text((A[0] + B[0]) / 2, A[1] + 2.6, s2)
        text((A[0] + C[0]) / 2 - 3.5, (A[1] + C[1]) / 2, s1, anchor='r' if len(s1) > 1 else 'c')
        return items, w, h + 2
    if kind == 'circuit':
        w, h = rng.uniform(34, 44), rng.uniform(24, 30)
        x0, y0, x1, y1 = 3, 5, w - 3, h - 4
        mx = (x0 + x1) / 2
        line(x0, y0, mx - 2, y0)
        line(mx + 2, y0, x1, y0)
        line(mx - 2, y0 - 3, mx - 2, y0 + 3, lw * 1.2)
        line(mx + 1, y0 - 1.6, mx + 1, y0 + 1.6, lw * 2.5)
        line(x1, y0, x1, y1)
        line(x0, y0, x0, (y0 + y1) / 2 - 3)
        line(x0, (y0 + y1) / 2 + 3, x0, y1)
        items.append(('ellipse', x0, (y0 + y1) / 2, 3, 3, lw, 255))
        text(x0, (y0 + y1) / 2, rng.choice(['A', 'V']))
        rx = mx - 5
        line(x0, y1, rx, y1)
        items.append(('rect', rx, y1 - 1.6, rx + 10, y1 + 1.6, lw, 255))
        line(rx + 10, y1, x1, y1)
        text(rx + 5, y1 - 4.0, rng.choice(['R', 'R₁', 'R = 10 Ω']))
        text(mx, y0 - 4.5, rng.choice(['U', 'E', '6 V', '']) or ' ')
        return items, w, h
    if kind == 'axes':
        w, h = rng.uniform(30, 40), rng.uniform(28, 36)
        ox, oy = rng.uniform(0.2, 0.45) * w, rng.uniform(0.55, 0.75) * h
        arrow(1, oy, w - 1, oy)
        arrow(ox, h - 1, ox, 1)
        text(w - 2, oy + 3, 'x')
        text(ox - 3, 2.5, 'y')
        text(ox - 2.5, oy + 3, 'O')
        for k in range(1, 4):
            tx = ox + k * 6
            if tx < w - 4:
                line(tx, oy, tx, oy - 1.2)
            ty = oy - k * 6
            if ty > 4:
                line(ox, ty, ox + 1.2, ty)
        if rng.random() < 0.5:
            pts = [(ox - 6 + t, oy - 3 - 0.9 * (t)) for t in np.linspace(0, min(w - ox + 2, oy + 3), 8)]
            pts = [(x, y) for x, y in pts if 1 < x < w - 1 and 1 < y < h - 1]
        else:
            pts = [(ox + t, oy - 0.06 * (t - 8) ** 2 + 4) for t in np.linspace(-ox + 2, w - ox - 2, 25)]
            pts = [(x, y) for x, y in pts if 1 < y < h - 1]
        if len(pts) > 1:
            items.append(('poly', pts, lw, 255, False))
        return items, w, h
    if kind == 'numberline':
        w, h = rng.uniform(45, 60), 11
        arrow(1, 4, w - 1, 4)
        n = 7
        for k in range(n):
            x = 4 + k * (w - 9) / (n - 1)
            line(x, 4, x, 2.6)
            text(x, 7.5, str(k - 3).replace('-', '−'))
        return items, w, h
    if kind == 'bars':
        w, h = rng.uniform(32, 42), rng.uniform(26, 32)
        arrow(4, h - 4, w - 1, h - 4)
        arrow(4, h - 4, 4, 1)
        n = 4
        for k in range(n):
            bh = rng.uniform(0.25, 0.8) * (h - 8)
            x = 7 + k * (w - 10) / n
            items.append(('rect', x, h - 4 - bh, x + (w - 10) / n * 0.55, h - 4, lw, 255))
            text(x + (w - 10) / n * 0.27, h - 1.5, str(k + 1))
        return items, w, h
    # table
    if lang == 'en':
        opts = [[['x', '1', '2', '3', '4'], ['y', '3', '5', '7', '9']],
                [['t / s', '0', '1', '2', '3'], ['v / (m/s)', '0', '10', '20', '30']],
                [['Substance', 'Mass / g', 'Volume / cm³'], ['Iron', '79', '10'], ['Aluminium', '27', '10']],
                [['Colour', 'Red', 'Blue'], ['Number', '3', '5']]]
    else:
        opts = [[['x', '1', '2', '3', '4'], ['y', '3', '5', '7', '9']],
                [['时间 t/s', '0', '1', '2', '3'], ['路程 s/m', '0', '10', '20', '30']],
                [['物质', '质量 m/g', '体积 V/cm³'], ['铁', '79', '10'], ['铝', '27', '10']],
                [['电压 U/V', '2', '4', '6'], ['电流 I/A', '0.2', '0.4', '0.6']],
                [['年份', '1840', '1911', '1949'], ['事件', '鸦片战争', '辛亥革命', '新中国成立']]]
    rows = rng.choice(opts)
    ncol = len(rows[0])
    cw = []
    for c in range(ncol):
        cw.append(max(toks_width(tokenize(r[c], fs, 'fig')) for r in rows) + 3.0)
    rh = fs.em * 1.9
    w = sum(cw) + 1
    h = rh * len(rows) + 1
    x = 0.5
    xs = [x]
    for c in cw:
        x += c
        xs.append(x)
    for r in range(len(rows) + 1):
        line(xs[0], 0.5 + r * rh, xs[-1], 0.5 + r * rh)
    for c in xs:
        line(c, 0.5, c, 0.5 + rh * len(rows))
    for r, row in enumerate(rows):
        for c, s in enumerate(row):
            text((xs[c] + xs[c + 1]) / 2, 0.5 + r * rh + rh / 2 - 0.1 * fs.em, s)
    return items, w, h


# --------------------------------------------------------------------------
# page composition
# --------------------------------------------------------------------------
FORMATS = {'A4P1': (210, 297, 1), 'A4P2': (210, 297, 2), 'B4L2': (364, 257, 2), 'A5P1': (148, 210, 1)}


def q_lang(q):
    return 'zh' if has_cjk(q['question']) else 'en'


def label_for(style, n):
    f = NUM_STYLES[style]
    if not f:
        return ''
    return f.format(n=n, r=ROMAN_L[(n - 1) % len(ROMAN_L)])


def score_text(ss, s):
    return ss.format(s=s)


def section_heading(ps, k, typ, rng):
    lang = ps['head_lang']
    names = SEC_NAMES[typ][0 if lang == 'zh' else 1]
    name = rng.choice(names)
    hs = ps['head_style']
    desc = ''
    if ps['sec_desc'] and typ != 'plain':
        if lang == 'zh':
            desc = '（每小题%d分，共%d分）' % (ps['pts'], ps['pts'] * rng.randint(3, 8))
        else:
            desc = ' (%d marks each)' % ps['pts']
    if lang == 'zh':
        if hs == 'part':
            t = '第%s部分  %s%s' % (CN[k], name, desc)
        else:
            t = '%s、%s%s' % (CN[k], name, desc)
        if ps['page_lang'] == 'mixed' and rng.random() < 0.5:
            t += ' (%s)' % rng.choice(SEC_NAMES[typ][1])
    else:
        if hs == 'part':
            t = 'Part %s  %s%s' % ('ABCDEFGH'[k], name, desc)
        elif hs == 'section':
            t = 'Section %d — %s%s' % (k + 1, name, desc)
        elif hs == 'roman':
            t = '%s. %s%s' % (ROMAN[k], name, desc)
        elif hs == 'exercise':
            t = 'Exercise %d: %s%s' % (k + 1, name, desc)
        else:
            t = name + desc
    return t


def extras_for(typ, q, rng, ps, forced=None):
    """Per-problem extras for a section type.  forced: plan's framed extra."""
    lang = ps['page_lang']
    ql = q_lang(q)
    e = dict(opts=None, opt_layout=None, tail=None, tail_align='inline', space=None,
             space_h=0, nlines=0, fig=None, fig_pos=None, ans_text=None)
    kind = forced
    if kind is None:
        r = rng.random()
        if typ == 'choice':
            kind = rng.choice(['opts1', 'opts2', 'opts4', 'opts2', 'opts1'])
        elif typ == 'fill':
            kind = rng.choice(['underline', 'brackets', 'answer_line', 'underline'])
        elif typ == 'short':
            kind = rng.choice(['lines', 'answer_line', 'lines', 'space'])
        elif typ == 'calc':
            kind = rng.choice(['box', 'space', 'space', 'lines'])
        else:
            kind = 'none' if r < 0.85 else 'answer_line'
    e['kind'] = kind
    if kind.startswith('opts'):
        e['opts'] = make_options(q, rng, ql)
        e['opt_layout'] = {'opts1': '1row', 'opts2': '2rows', 'opts4': '4rows'}[kind]
        if ql == 'zh' and ps['choice_brackets'] and ps['num_style'] != 'blank_paren':
            e['tail'] = 'brackets'
            e['tail_align'] = ps['bracket_align']
    elif kind == 'brackets':
        e['tail'] = 'brackets'
        e['tail_align'] = ps['bracket_align']
    elif kind == 'underline':
        e['tail'] = rng.choice(['under_chars', 'under_line'])
    elif kind == 'answer_line':
        if ql == 'zh' or (lang == 'zh'):
            e['ans_text'] = rng.choice(['答：', '答案：', '答：', ''])
        else:
            e['ans_text'] = rng.choice(['Answer:', 'Ans:', 'Answer:', ''])
    elif kind == 'lines':
        e['space'] = 'lines'
        e['nlines'] = rng.randint(2, 4)
    elif kind == 'box':
        e['space'] = 'box'
        e['space_h'] = rng.uniform(16, 34)
    elif kind == 'space':
        e['space'] = 'blank'
        e['space_h'] = rng.uniform(8, 30)
    return e


def layout_problem(p, W, ps, rng):
    st = ps['st_body']
    em = st.em
    b = Block('prob')
    b.info = dict(qid=p['qid'])
    ls = ps['ls']
    x0 = 0.0
    y = 0.0
    e = p['extras']
    fig = None
    text_right = W
    if e['fig']:
        fitems, fw, fh = fig_items(e['fig'], st, rng, q_lang(p['q']) if ps['page_lang'] != 'zh' else 'zh')
        fig = (fitems, fw, fh)
        if e['fig_pos'] == 'beside':
            if W - fw - 5 < 0.55 * W:
                e['fig_pos'] = 'under'
            else:
                text_right = W - fw - rng.uniform(3, 6)
    label = p['label']
    lab_toks = tokenize(label, ps['st_num'], 'label') if label else []
    score_toks = []
    if p['score'] and p['score_pos'] == 'after_number':
        score_toks = tokenize(p['score'], st, 'score')
        if not has_cjk(p['score']) and label:
            score_toks = tokenize(' ', st, 'score') + score_toks
        if not has_cjk(p['score']):
            score_toks += tokenize(' ', st, 'score')
    head = lab_toks + score_toks
    own_line = p.get('label_own_line') and label
    if own_line:
        if p['score'] and p['score_pos'] == 'line_end':
            pass
        f = flow(head, text_right, x0, x0, st, ls)
        b.add_placed(f['placed'])
        if p['score'] and p['score_pos'] == 'line_end':
            stoks = tokenize(p['score'], st, 'score')
            f2 = flow(stoks, text_right, x0, x0, st, ls, align='right')
            b.add_placed(f2['placed'])
        y = f['h'] + 0.15 * em
        text_x = x0
        rest_x = x0
        head_w = 0
    else:
        head_w = toks_width(head)
        gap = 0.0
        if label:
            gap = 0.3 * em if label[-1] in '.)]:题' or label[-1].isalnum() else 0.05 * em
            if label.endswith('、') or label.endswith('．') or label.endswith('）'):
                gap = 0.0
        text_x = x0 + head_w + gap
        rest_x = text_x if p['hanging'] else x0
    qtoks = tokenize(p['q']['question'], st, 'text')
    tail = []
    if e['tail'] == 'brackets' and e['tail_align'] == 'inline':
        if q_lang(p['q']) == 'zh':
            tail = [bracket_token(st, 'tail', True, rng.choice([1.0, 2.0, 3.0]))]
        else:
            tail = tokenize(' ', st, 'tail') + [bracket_token(st, 'tail', False, rng.choice([2.0, 3.0]))]
    elif e['tail'] == 'under_chars':
        tail = tokenize(' ' + '_' * rng.randint(6, 14), st, 'tail')
    elif e['tail'] == 'under_line':
        sp = tokenize(' ', st, 'tail')
        tail = sp + [blank_token(st, 'tail', rng.uniform(14, 30))]
    f = flow(qtoks + tail, text_right, text_x, rest_x, st, ls, justify=ps['justify'], y0=y)
    if head and not own_line:
        fb = flow(head, W, x0, x0, ps['st_num'], ls, y0=y)
        # align label baseline with first text baseline
        first_base = min(bb for _t, _x, bb, _l in f['placed']) if f['placed'] else fb['last_base']
        shift = first_base - fb['last_base']
        pl = [(t, x, bb + shift, li) for t, x, bb, li in fb['placed']]
        b.add_placed(pl)
    b.add_placed(f['placed'])
    b.info['lines'] = sum(1 for r in f['line_roles'] if 'text' in r)
    last_base = f['last_base']
    y = y + f['h']
    # right-aligned trailers (score at line end, brackets at the right margin)
    trailers = []
    if e['tail'] == 'brackets' and e['tail_align'] == 'right':
        trailers += [bracket_token(st, 'tail', q_lang(p['q']) == 'zh', rng.choice([2.0, 3.0]))]
    if p['score'] and p['score_pos'] == 'line_end' and not own_line:
        if trailers:
            trailers += tokenize(' ', st, 'score')
        trailers += tokenize(p['score'], st, 'score')
    if trailers:
        tw = toks_width(trailers)
        if f['last_end'] + 1.0 * em + tw <= text_right:
            base = last_base
        else:
            base = last_base + ls * em
            y += ls * em
        x = text_right - tw
        pl = []
        for t in trailers:
            pl.append((t, x, base, 0))
            x += t.w
        b.add_placed(pl)
    # options
    if e['opts']:
        ox = text_x if (p['hanging'] or own_line) else x0 + (rng.choice([0, 1, 2]) * em)
        avail = text_right - ox
        otoks = [tokenize(opt_label(ps['opt_label'], k) + ('' if ps['opt_label'].endswith(' ') else ' ') + o, st, 'opts')
                 for k, o in enumerate(e['opts'])]
        otoks = [[t for t in ot] for ot in otoks]
        wmax = max(toks_width(ot) for ot in otoks)
        layout = e['opt_layout']
        order = ['1row', '2rows', '4rows']
        i0 = order.index(layout)
        for lay in order[i0:]:
            ncell = {'1row': 4, '2rows': 2, '4rows': 1}[lay]
            if ncell == 1 or wmax + 1.2 * em <= avail / ncell:
                layout = lay
                break
        e['opt_layout'] = layout
        ncell = {'1row': 4, '2rows': 2, '4rows': 1}[layout]
        cellw = avail / ncell
        yy = y + 0.1 * em
        for r in range(4 // ncell):
            rowh = 0
            for c in range(ncell):
                k = r * ncell + c
                cx = ox + c * cellw
                fo = flow(otoks[k], cx + cellw - 0.5 * em if ncell > 1 else text_right,
                          cx, cx + 1.2 * em, st, ls, y0=yy)
                b.add_placed(fo['placed'])
                rowh = max(rowh, fo['h'])
            yy += rowh + (ls - 1.1) * em * 0.6
        y = yy
    if e['ans_text'] is not None:
        at = tokenize(e['ans_text'] + (' ' if e['ans_text'] else ''), st, 'ans')
        at += [blank_token(st, 'ans', max(20.0, (text_right - text_x) * rng.uniform(0.4, 0.9) - toks_width(at)))]
        fa = flow(at, text_right, text_x, text_x, st, ls, y0=y + 0.3 * em)
        b.add_placed(fa['placed'])
        y += fa['h'] + 0.3 * em
    # figure
    if fig:
        fitems, fw, fh = fig
        if e['fig_pos'] == 'beside':
            fx, fy = W - fw, 0.5
            y = max(y, fy + fh + 1.0)
        else:
            fx = text_x + rng.uniform(0, max(0.0, min(30, W - text_x - fw)))
            fy = y + 1.5
            y = fy + fh + 1.0
        for it in fitems:
            b.items.append(shift_item(it, fx, fy))
        b.boxes['fig'].append((fx, fy, fx + fw, fy + fh))
        # figure caption sometimes
        if rng.random() < 0.3:
            cap = ('图%d' % rng.randint(1, 6)) if ps['head_lang'] == 'zh' else ('Fig. %d' % rng.randint(1, 6))
            ct = tokenize(cap, ps['st_small'], 'fig')
            fc = flow(ct, fx + fw, fx, fx, ps['st_small'], ls, align='center', y0=y - 0.5)
            b.add_placed(fc['placed'], owner_boxes=False)
            y += fc['h']
    # answer space
    if e['space'] == 'lines':
        sp = rng.uniform(7, 9.5)
        for k in range(e['nlines']):
            y += sp
            b.items.append(('line', text_x, y, text_right if not fig or e['fig_pos'] != 'beside' else W, y, 0.18, 190))
        y += 2
    elif e['space'] == 'box':
        y += 3.0
        b.items.append(('rect', text_x, y, W, y + e['space_h'], 0.25, 230))
        if rng.random() < 0.4:
            lt = tokenize('Working:' if ps['head_lang'] == 'en' else '解：', ps['st_small'], 'box')
            fl = flow(lt, W, text_x + 1.5, text_x + 1.5, ps['st_small'], ls, y0=y + 1)
            b.add_placed(fl['placed'], owner_boxes=False)
        y += e['space_h'] + 1
    elif e['space'] == 'blank':
        y += e['space_h']
    b.h = y
    return b


def shift_item(it, dx, dy):
    k = it[0]
    if k == 'text':
        return ('text', it[1] + dx, it[2] + dy) + it[3:]
    if k == 'line':
        return ('line', it[1] + dx, it[2] + dy, it[3] + dx, it[4] + dy) + it[5:]
    if k == 'rect':
        return ('rect', it[1] + dx, it[2] + dy, it[3] + dx, it[4] + dy) + it[5:]
    if k == 'fillrect':
        return ('fillrect', it[1] + dx, it[2] + dy, it[3] + dx, it[4] + dy) + it[5:]
    if k == 'poly':
        return ('poly', [(x + dx, y + dy) for x, y in it[1]]) + it[2:]
    if k == 'ellipse':
        return ('ellipse', it[1] + dx, it[2] + dy) + it[3:]
    raise ValueError(k)


def layout_heading(text, W, ps, rng, instr=None):
    b = Block('heading')
    st = ps['st_head']
    f = flow(tokenize(text, st, 'heading'), W, 0, 0, st, ps['ls'])
    b.add_placed(f['placed'])
    h = f['h']
    if instr:
        si = ps['st_small'].derive(italic=ps['head_lang'] == 'en')
        f2 = flow(tokenize(instr, si, 'instr'), W, 0, 0, si, ps['ls'], y0=h)
        b.add_placed(f2['placed'])
        h += f2['h']
    if ps['head_rule'] and rng.random() < 0.5:
        pass
    b.h = h
    b.info['text'] = text
    return b


def header_texts(ps, q, rng):
    subj = ps['subject']
    lang = ps['head_lang']
    grade = str(q.get('grade', '7'))
    doc = ps['doc_type']
    kp = (q.get('knowledge_points') or [''])[0]
    n = rng.randint(1, 12)
    if lang == 'zh':
        g = GRADE_ZH.get(grade, '七年级')
        s = SUBJ_ZH[subj] if not ps['multi_subject'] else '综合'
        school = rng.choice(SCHOOLS_ZH)
        if doc == 'worksheet':
            title = rng.choice(['%s%s课堂练习（%s）' % (g, s, CN[n % 10]), '%s校本作业  第%d课时' % (s, n),
                                '%s%s课后练习' % (g, s), '%s 练习卷' % (kp or s)])
        elif doc == 'quiz':
            title = rng.choice(['%s随堂小测（%d）' % (s, n), '%s%s周测卷' % (g, s), '%s小测验' % s])
        elif doc == 'unit_test':
            title = rng.choice(['%s%s第%s单元测试卷' % (g, s, CN[n % 8]),
                                '%s2023—2024学年第一学期期中考试' % school,
                                '%s%s期末检测试卷' % (g, s)])
        else:
            title = rng.choice(['%s期末复习卷（%s）' % (s, CN[n % 6]), '%s复习专题：%s' % (s, kp or '综合'),
                                '%s%s复习提纲练习' % (g, s)])
        sub = rng.choice(['（满分：100分  时间：%d分钟）' % rng.choice([40, 45, 60, 90]),
                          '（本卷共%d题）' % rng.randint(10, 25), '', '%s%s' % (g, s)])
        if doc == 'unit_test' and '学年' in title:
            sub = '%s%s试卷' % (g, s)
        name = rng.choice(['班级：________  姓名：________  学号：______',
                           '班级__________ 姓名__________ 得分__________',
                           '姓名：__________  班级：________  日期：________',
                           '学校：__________ 班级：________ 姓名：________ 考号：________'])
        small = rng.choice(['%s %s组' % (school, SUBJ_ZH[subj]), '命题人：%s老师' % rng.choice('王李张刘陈杨赵'), school, ''])
    else:
        g = 'Grade %s' % grade
        s = SUBJ_EN[subj] if not ps['multi_subject'] else 'General Science'
        topic = rng.choice(TOPIC_EN.get(subj, ['Review']))
        school = rng.choice(SCHOOLS_EN)
        if doc == 'worksheet':
            title = rng.choice(['%s Worksheet %d: %s' % (s, n, topic), '%s %s — Practice Sheet' % (g, s),
                                'Homework %d — %s' % (n, topic)])
        elif doc == 'quiz':
            title = rng.choice(['%s Quiz %d' % (s, n), 'Quick Quiz: %s' % topic, '%s %s Quiz' % (g, s)])
        elif doc == 'unit_test':
            title = rng.choice(['Unit %d Test — %s' % (n, s), '%s Mid-term Test' % s, '%s %s End-of-Unit Test' % (g, s)])
        else:
            title = rng.choice(['%s Revision Sheet %d' % (s, n), 'Revision: %s' % topic, 'Exam Practice — %s' % s])
        sub = rng.choice(['Time allowed: %d minutes    Total: %d marks' % (rng.choice([30, 40, 45]), rng.choice([20, 30, 50])),
                          'Instructions: Answer all questions in the spaces provided.', '', g])
        name = rng.choice(['Name: ________________  Class: ________  Date: __________',
                           'Name ____________________   Form ______   Score ____ / %d' % rng.choice([20, 30, 50]),
                           'Student name: __________________   Date: ___________'])
        small = rng.choice([school, '%s Department' % SUBJ_EN[subj], ''])
    return title, sub, name, small


def layout_header(W, ps, q, rng):
    b = Block('header')
    title, sub, name, small = header_texts(ps, q, rng)
    ls = ps['ls']
    y = 0.0
    if small and rng.random() < 0.6:
        st = ps['st_small']
        f = flow(tokenize(small, st, 'small'), W, 0, 0, st, 1.2, align=rng.choice(['left', 'right']), y0=y)
        b.add_placed(f['placed'])
        y += f['h'] + 1.0
        if rng.random() < 0.5:
            b.items.append(('line', 0, y, W, y, 0.2, 200))
            y += 2.0
    st = ps['st_title']
    f = flow(tokenize(title, st, 'title'), W, 0, 0, st, 1.25, align=ps['title_align'], y0=y)
    b.add_placed(f['placed'])
    y += f['h'] + 1.0
    if sub:
        st = ps['st_small']
        f = flow(tokenize(sub, st, 'subtitle'), W, 0, 0, st, 1.3, align='center', y0=y)
        b.add_placed(f['placed'])
        y += f['h'] + 1.0
    if ps['namebar']:
        st = ps['st_body']
        f = flow(tokenize(name, st, 'namebar'), W, 0, 0, st, 1.3, align=rng.choice(['center', 'left']), y0=y + 1)
        b.add_placed(f['placed'])
        y += f['h'] + 2.5
    if ps['score_table']:
        ncol = rng.randint(4, 6)
        heads = (['题号'] + [CN[k] for k in range(ncol - 2)] + ['总分']) if ps['head_lang'] == 'zh' else \
            (['Part'] + ['ABCDEF'[k] for k in range(ncol - 2)] + ['Total'])
        row2 = ['得分' if ps['head_lang'] == 'zh' else 'Score'] + [''] * (ncol - 1)
        st = ps['st_small']
        cw = min(22.0, W / (ncol + 1))
        tx = (W - cw * ncol) / 2
        rh = st.em * 2.0
        for r in range(3):
            b.items.append(('line', tx, y + r * rh, tx + cw * ncol, y + r * rh, 0.25, 255))
        for c in range(ncol + 1):
            b.items.append(('line', tx + c * cw, y, tx + c * cw, y + 2 * rh, 0.25, 255))
        for r, row in enumerate([heads, row2]):
            for c, s in enumerate(row):
                if s:
                    tk = tokenize(s, st, 'scoretable')
                    f = flow(tk, tx + (c + 1) * cw, tx + c * cw, tx + c * cw, st, 1.2, align='center',
                             y0=y + r * rh + 0.15 * st.em)
                    b.add_placed(f['placed'])
        y += 2 * rh + 2.0
    if ps['head_rule']:
        b.items.append(('line', 0, y, W, y, 0.35, 255))
        y += 1.5
    b.h = y + 2.0
    b.info['title'] = title
    return b


def build_page(plan, bank, byid, rng):
    q = byid[plan['qid']]
    fmt = plan['fmt']
    pw, ph, ncols = FORMATS[fmt]
    lang = plan['page_lang']
    ps = dict(page_lang=lang, subject=q['subject'], doc_type=plan['doc_type'])
    ps['head_lang'] = lang if lang != 'mixed' else rng.choice(['zh', 'en', 'zh'])
    ps['multi_subject'] = rng.random() < 0.15
    em = plan['body_pt'] * PT
    lat, cjk = plan['lat_fam'], plan['cjk_fam']
    mathy = q['subject'] in ('math', 'physics', 'chemistry')
    body = Style(lat, cjk, em, bold=plan['body_bold'], math=(q['subject'] == 'math' and plan['math_italic']),
                 script=plan['script'], frac=plan['frac'], sqrt_bar=plan['sqrt_bar'])
    ps['st_body'] = body
    ps['st_num'] = body.derive(bold=plan['num_bold'] or plan['body_bold'], math=False)
    head_lat = lat if rng.random() < 0.6 else rng.choice(['LiberationSans', 'DejaVuSans', 'NotoSansCJK'])
    head_cjk = 'NotoSansCJK-SC' if rng.random() < 0.6 else cjk
    ps['st_head'] = Style(head_lat, head_cjk, em * rng.uniform(1.0, 1.15), bold=True)
    ps['st_title'] = Style(head_lat, head_cjk, em * rng.uniform(1.35, 1.8), bold=True)
    ps['st_small'] = Style(lat, cjk, em * rng.uniform(0.82, 0.92))
    ps['ls'] = plan['line_spacing']
    ps['justify'] = plan['justify']
    ps['num_style'] = plan['num_style']
    ps['pts'] = rng.choice([2, 3, 4, 5])
    ps['sec_desc'] = rng.random() < 0.5
    ps['head_style'] = rng.choice(['zh', 'part']) if ps['head_lang'] == 'zh' else \
        rng.choice(['part', 'section', 'roman', 'exercise', 'plain'])
    if plan['num_style'] == 'roman_lower' and ps['head_lang'] == 'en':
        ps['head_style'] = rng.choice(['roman', 'part'])
    ps['choice_brackets'] = rng.random() < 0.6
    ps['bracket_align'] = 'right' if rng.random() < 0.3 else 'inline'
    ps['opt_label'] = rng.choice(OPT_LABELS)
    ps['namebar'] = plan['doc_type'] != 'revision' or rng.random() < 0.4
    ps['score_table'] = plan['doc_type'] == 'unit_test' and ps['head_lang'] == 'zh' and rng.random() < 0.6
    ps['head_rule'] = rng.random() < 0.5
    ps['title_align'] = 'center' if rng.random() < 0.85 else 'left'
    ml = rng.uniform(14, 24)
    mr = rng.uniform(14, 22)
    mt = rng.uniform(12, 22)
    mb = rng.uniform(14, 22)
    if fmt == 'A5P1':
        ml, mr, mt, mb = [v * 0.65 for v in (ml, mr, mt, mb)]
    seal = fmt == 'B4L2' and ps['head_lang'] == 'zh' and rng.random() < 0.6
    if seal:
        ml = max(ml, 30)
    gutter = rng.uniform(4, 9) if fmt == 'A4P2' else rng.uniform(12, 22)
    if ncols == 1:
        gutter = 0
    cw = (pw - ml - mr - gutter * (ncols - 1)) / ncols
    col_x = [ml + k * (cw + gutter) for k in range(ncols)]
    # the problem stream
    score_style = plan['score_style']
    spos = plan['score_pos']
    ps['score_pos'] = spos
    # neighbour pool
    others = [x for x in bank if x['id'] != q['id']]
    if lang == 'zh':
        others = [x for x in others if q_lang(x) == 'zh']
    elif lang == 'en':
        others = [x for x in others if q_lang(x) == 'en']
    same = [x for x in others if x['subject'] == q['subject']]
    diff = [x for x in others if x['subject'] != q['subject']]
    rng.shuffle(same)
    rng.shuffle(diff)
    if ps['multi_subject']:
        pool = same + diff
        rng.shuffle(pool)
    else:
        pool = same + diff
    nmax = {'quiz': rng.randint(6, 12), 'worksheet': rng.randint(10, 24), 'unit_test': rng.randint(14, 30),
            'revision': rng.randint(12, 30)}[plan['doc_type']]
    pool = pool[:nmax]
    # sections
    types_zh = ['choice', 'fill', 'short', 'calc', 'plain']
    sec_types = []
    nsec = rng.randint(1, 4)
    for k in range(nsec):
        sec_types.append(rng.choice(types_zh))
    show_heads = plan['doc_type'] != 'quiz' or rng.random() < 0.5
    if nsec > 1:
        show_heads = True
    per = max(1, int(math.ceil(len(pool) / nsec)))
    stream = []   # list of dicts: heading or problem
    restart = plan['num_style'] in ('fwparen', 'paren2', 'roman_lower', 'Q', 'Qdot') and rng.random() < 0.5
    num = 0
    for k in range(nsec):
        chunk = pool[k * per:(k + 1) * per]
        if not chunk:
            break
        stream.append(dict(kind='heading', sec=k, typ=sec_types[k]))
        if restart:
            num = 0
        for nq in chunk:
            num += 1
            stream.append(dict(kind='prob', sec=k, num=num, q=nq))
    ps['show_heads'] = show_heads
    own_line_style = plan['num_style'] in ('question', 'di') and rng.random() < 0.45
    hanging = plan['hanging']

    def prob_dict(it, qq, forced=None, typ=None):
        e = extras_for(typ or sec_types[it['sec']], qq, rng, ps, forced)
        # neighbours sometimes get figures too
        if forced is None and rng.random() < 0.08 and sec_types[it['sec']] in ('calc', 'short', 'choice'):
            e['fig'] = rng.choice(['triangle', 'circuit', 'axes', 'table'])
            e['fig_pos'] = rng.choice(['beside', 'under'])
        sc = ''
        pos_here = spos
        if spos == 'after_number' and plan['num_style'] == 'none':
            pos_here = 'line_end'
        if spos != 'none':
            sc = score_text(score_style, rng.choice([2, 3, 4, 5, 6]) if score_style.find('marks') < 0 else rng.choice([1, 2, 3, 4]))
        return dict(qid=qq['id'], q=qq, label=label_for(plan['num_style'], it['num']), score=sc,
                    score_pos=pos_here, extras=e, hanging=hanging, label_own_line=own_line_style)

    for it in stream:
        if it['kind'] == 'prob':
            it['p'] = prob_dict(it, it['q'])

    header_col_w = (pw - ml - mr) if fmt != 'B4L2' else cw
    header = layout_header(header_col_w, ps, q, rng)
    gap_after = rng.uniform(1.5, 6.0)
    head_gap = rng.uniform(1.5, 4.0)

    def do_layout(stream):
        blocks = []
        for it in stream:
            if it['kind'] == 'heading':
                if not ps['show_heads']:
                    continue
                if 'block' not in it:
                    txt = section_heading(ps, it['sec'], it['typ'], rng)
                    instr = None
                    if rng.random() < 0.3:
                        ins = SEC_INSTR[it['typ']][0 if ps['head_lang'] == 'zh' else 1]
                        instr = ins or None
                    it['block'] = layout_heading(txt, cw, ps, rng, instr)
                blocks.append((it, it['block']))
            else:
                if 'block' not in it:
                    it['block'] = layout_problem(it['p'], cw, ps, rng)
                blocks.append((it, it['block']))
        # place
        placed = []
        col = 0
        top0 = mt + header.h
        tops = [top0 if (fmt != 'B4L2' or k == 0) else mt for k in range(ncols)]
        y = tops[0]
        bottom = ph - mb
        i = 0
        while i < len(blocks):
            it, bl = blocks[i]
            need = bl.h
            if bl.kind == 'heading' and i + 1 < len(blocks):
                need = bl.h + head_gap + blocks[i + 1][1].h
            if y + need > bottom and not (y == tops[col] and bl.h <= bottom - y):
                col += 1
                if col >= ncols:
                    break
                y = tops[col]
                continue
            if y + bl.h > bottom:
                break
            placed.append((it, bl, col_x[col], y, col))
            y += bl.h + (head_gap if bl.kind == 'heading' else gap_after)
            i += 1
        return placed

    placed = do_layout(stream)
    slots = [k for k, (it, bl, x, y, c) in enumerate(placed) if it['kind'] == 'prob']
    if not slots:
        raise RuntimeError('no problem fits')
    pos = plan['pos_frac']
    target = slots[min(len(slots) - 1, int(pos * len(slots)))]
    forced = plan['extra']
    ftyp = {'opts1': 'choice', 'opts2': 'choice', 'opts4': 'choice', 'brackets': 'fill',
            'underline': 'fill', 'answer_line': 'fill', 'lines': 'short', 'box': 'calc',
            'space': 'calc', 'none': 'plain'}[forced]
    if forced == 'brackets' and q_lang(q) == 'zh' and rng.random() < 0.5:
        ftyp = 'fill'
    ok = False
    cand_order = sorted(slots, key=lambda s: (abs(s - target) + (0.5 if s > target else 0)))
    for s in cand_order:
        it_s = placed[s][0]
        # make the section match the framed problem's kind
        sec = it_s['sec']
        if sec_types[sec] != ftyp:
            sec_types[sec] = ftyp
            for it in stream:
                if it['sec'] == sec:
                    it.pop('block', None)
                    if it['kind'] == 'heading':
                        it['typ'] = ftyp
                    elif it is not it_s:
                        it['p'] = prob_dict(it, it['q'])
        it_s['q'] = q
        p = prob_dict(it_s, q, forced=forced, typ=ftyp)
        if plan['fig'] != 'none':
            p['extras']['fig'] = plan['fig']
            p['extras']['fig_pos'] = plan['fig_pos']
        if plan['score_pos_framed'] is not None:
            p['score_pos'] = plan['score_pos_framed']
            if p['score_pos'] == 'after_number' and not p['label']:
                p['score_pos'] = 'line_end'
            if not p['score']:
                p['score'] = score_text(score_style, rng.choice([2, 3, 4]))
            if p['score_pos'] == 'none':
                p['score'] = ''
        it_s['p'] = p
        it_s['framed'] = True
        it_s.pop('block', None)
        placed2 = do_layout(stream)
        if any(it.get('framed') for it, *_ in placed2):
            placed = placed2
            ok = True
            break
        it_s.pop('framed', None)
    if not ok:
        raise RuntimeError('framed problem does not fit')
    # collect page items and per-problem boxes (page coordinates)
    items = []
    probs = []
    heads = []
    for it, bl, x, y, col in placed:
        for itm in bl.items:
            items.append(shift_item(itm, x, y))
        bx = {r: [(a + x, b_ + y, c + x, d + y) for a, b_, c, d in v] for r, v in bl.boxes.items()}
        if it['kind'] == 'prob':
            core = bx.get('label', []) + bx.get('text', []) + bx.get('score', []) + bx.get('tail', []) + \
                bx.get('opts', []) + bx.get('ans', [])
            probs.append(dict(qid=it['p']['qid'], framed=bool(it.get('framed')), block=union(core),
                              text=union(bx.get('text', [])), fig=union(bx.get('fig', [])),
                              sec=it['sec'], p=it['p'], lines=bl.info.get('lines', 1), col=col,
                              q=it['q']))
        else:
            heads.append(dict(sec=it['sec'], box=union([b for v in bx.values() for b in v]),
                              text=bl.info['text']))
    hx = ml
    for itm in header.items:
        items.append(shift_item(itm, hx, mt))
    hb = {r: [(a + hx, b_ + mt, c + hx, d + mt) for a, b_, c, d in v] for r, v in header.boxes.items()}
    # column divider
    if ncols == 2 and rng.random() < (0.5 if fmt == 'A4P2' else 0.35):
        gx = col_x[0] + cw + gutter / 2
        top = mt + header.h if fmt != 'B4L2' else mt
        items.append(('line', gx, top, gx, ph - mb, 0.2, 180))
    # footer
    if rng.random() < 0.6:
        ft = rng.choice(['第 1 页（共 2 页）', '— 1 —', '第1页 共4页']) if ps['head_lang'] == 'zh' else \
            rng.choice(['Page 1 of 2', '- 1 -', 'page 1'])
        st = ps['st_small']
        f = flow(tokenize(ft, st, 'footer'), pw, 0, 0, st, 1.2, align='center', y0=ph - mb * 0.75)
        blk = Block('f')
        blk.add_placed(f['placed'])
        items += blk.items
    # sealing line (密封线) for landscape exam papers
    if seal:
        sx = ml * 0.55
        y = mt
        while y < ph - mb:
            items.append(('line', sx, y, sx, min(y + 2.5, ph - mb), 0.2, 200))
            y += 4.0
        st = ps['st_small']
        words = '密  封  线  内  不  要  答  题'
        y = ph * 0.25
        for ch in words:
            if ch != ' ':
                items.append(('text', sx - 0.5 * st.em, y, st.cjk_key, st.em, ch, 200))
            y += st.em * 0.6
        y = ph * 0.62
        for ch in '班级____姓名____考号____':
            k = st.cjk_key if is_cjk(ch) else st.lat_key
            items.append(('text', sx - 6 - 0.5 * st.em, y, k, st.em, ch, 255))
            y += st.em * (1.05 if is_cjk(ch) else 0.55)
    framed = [p for p in probs if p['framed']][0]
    fsec = framed['sec']
    fhead = [h for h in heads if h['sec'] == fsec]
    page = dict(w=pw, h=ph, items=items, probs=probs, heads=heads, framed=framed,
                fhead=fhead[0] if fhead else None,
                title=union(hb.get('title', [])), namebar=union(hb.get('namebar', [])),
                ps=ps, cw=cw, ncols=ncols, col_x=col_x, em=em, seal=seal,
                section_type=sec_types[fsec])
    return page


# --------------------------------------------------------------------------
# camera model
# --------------------------------------------------------------------------

def rotmat(roll, pitch, yaw):
    a, b, c = math.radians(pitch), math.radians(yaw), math.radians(roll)
    Rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    Ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    Rz = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
    return Rz @ Rx @ Ry


def homography(c, s, roll, pitch, yaw, f, W, H, ox, oy):
    Z = f / s
    R = rotmat(roll, pitch, yaw)
    K = np.array([[f, 0, W / 2 + ox], [0, f, H / 2 + oy], [0, 0, 1.0]])
    M = np.column_stack([R[:, 0], R[:, 1], [0, 0, Z]])
    T = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1.0]])
    return K @ M @ T


class Geo:
    """content mm -> (skew) paper mm -> (bend) -> homography -> camera px."""

    def __init__(self, page, skew_deg, skew_off, bend):
        self.pw, self.ph = page['w'], page['h']
        a = math.radians(skew_deg)
        cx, cy = self.pw / 2, self.ph / 2
        ca, sa = math.cos(a), math.sin(a)
        # paper = A @ (content - centre) + centre + off
        self.A = np.array([[ca, -sa], [sa, ca]])
        self.cc = np.array([cx, cy])
        self.off = np.array(skew_off)
        self.bend = bend     # (ax, ay, x0, y0)
        self.H = np.eye(3)

    def c2p(self, P):
        P = np.asarray(P, dtype=np.float64)
        return (P - self.cc) @ self.A.T + self.cc + self.off

    def p2c(self, P):
        return (P - self.cc - self.off) @ self.A + self.cc

    def bend_d(self, X, Y):
        ax, ay, x0, y0 = self.bend
        dy = ay * ((X - x0) / max(x0, self.pw - x0)) ** 2
        dx = ax * ((Y - y0) / max(y0, self.ph - y0)) ** 2
        return dx, dy

    def fwd(self, P, H=None):
        """content mm (N,2) -> camera px (N,2)."""
        H = self.H if H is None else H
        Q = self.c2p(P)
        dx, dy = self.bend_d(Q[:, 0], Q[:, 1])
        X = Q[:, 0] + dx
        Y = Q[:, 1] + dy
        d = H[2, 0] * X + H[2, 1] * Y + H[2, 2]
        u = (H[0, 0] * X + H[0, 1] * Y + H[0, 2]) / d
        v = (H[1, 0] * X + H[1, 1] * Y + H[1, 2]) / d
        return np.stack([u, v], 1)

    def inv_maps(self, Hs, W, H):
        """Per-pixel paper and content coordinates (float32 arrays)."""
        Hi = np.linalg.inv(Hs).astype(np.float64)
        u = np.arange(W, dtype=np.float32)[None, :]
        v = np.arange(H, dtype=np.float32)[:, None]
        d = (Hi[2, 0] * u + Hi[2, 1] * v + Hi[2, 2]).astype(np.float32)
        X = ((Hi[0, 0] * u + Hi[0, 1] * v + Hi[0, 2]) / d).astype(np.float32)
        Y = ((Hi[1, 0] * u + Hi[1, 1] * v + Hi[1, 2]) / d).astype(np.float32)
        ax, ay, x0, y0 = self.bend
        if ax or ay:
            Xp, Yp = X.copy(), Y.copy()
            for _ in range(3):
                dx, dy = self.bend_d(Xp, Yp)
                Xp = X - dx
                Yp = Y - dy
            X, Y = Xp.astype(np.float32), Yp.astype(np.float32)
        # content coordinates
        A = self.A
        Xr = X - np.float32(self.cc[0] + self.off[0])
        Yr = Y - np.float32(self.cc[1] + self.off[1])
        Xc = (A[0, 0] * Xr + A[1, 0] * Yr + self.cc[0]).astype(np.float32)
        Yc = (A[0, 1] * Xr + A[1, 1] * Yr + self.cc[1]).astype(np.float32)
        return X, Y, Xc, Yc


def box_corners(b):
    x0, y0, x1, y1 = b
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)


def inside(quad, W, H, m):
    return bool(np.all(quad[:, 0] >= m) and np.all(quad[:, 0] <= W - m) and
                np.all(quad[:, 1] >= m) and np.all(quad[:, 1] <= H - m))


def frame_camera(page, geo, plan, rng, W, H):
    """Choose homography (content-free: on paper coords) for camera size W x H."""
    fr = page['framed']
    blk = fr['block']
    bw, bh = blk[2] - blk[0], blk[3] - blk[1]
    cw = page['cw']
    mode = plan['framing']
    em = page['em']
    f = plan['focal'] * max(W, H)
    roll, pitch, yaw = plan['roll'], plan['pitch'], plan['yaw']
    cent = plan['centring']
    if cent == 'centred':
        dx, dy = rng.normal(0, 0.012), rng.normal(0, 0.014)
        dx, dy = float(np.clip(dx, -0.035, 0.035)), float(np.clip(dy, -0.035, 0.035))
    elif cent == 'slight':
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(0.04, 0.09)
        dx, dy = r * math.cos(a), r * math.sin(a) * 0.9
    else:
        if rng.random() < 0.6:
            dx = rng.choice([-1, 1]) * rng.uniform(0.10, 0.24)
            dy = rng.normal(0, 0.04)
        else:
            dy = rng.choice([-1, 1]) * rng.uniform(0.10, 0.22)
            dx = rng.normal(0, 0.04)
    # visible width (mm) wanted
    if mode == 'close':
        vis = max(bw, 0.5 * cw) / rng.uniform(0.80, 0.96)
    elif mode == 'mid':
        vis = max(bw * rng.uniform(1.12, 1.45), cw * rng.uniform(0.75, 1.1))
    elif mode == 'far':
        vis = (page['w'] * rng.uniform(0.75, 1.0)) if page['ncols'] == 1 else cw * rng.uniform(1.6, 2.3)
    else:
        vis = None
    base_w = W
    if mode != 'whole':
        s = base_w / vis
        # legibility bounds: em in px
        s = max(s, plan['min_em_px'] / em)
        cap = rng.uniform(0.055, 0.08) if mode == 'close' else rng.uniform(0.032, 0.05)
        s = min(s, max(W, H) * cap / em)
        c = geo.c2p(np.array([[(blk[0] + blk[2]) / 2, (blk[1] + blk[3]) / 2]]))[0]
        oxy = [dx * W, dy * H]
        Hm = None
        for it in range(120):
            Hm = homography(c, s, roll, pitch, yaw, f, W, H, oxy[0], oxy[1])
            q = geo.fwd(box_corners(blk), Hm)
            m = 0.03 * min(W, H)
            if inside(q, W, H, m):
                # re-centre on the quad centre (the measured centre)
                qc = q.mean(0)
                err = qc - np.array([W / 2 + dx * W, H / 2 + dy * H])
                if np.abs(err).max() > 2 and it < 100:
                    oxy[0] -= err[0]
                    oxy[1] -= err[1]
                    continue
                break
            if it >= 90:
                pitch *= 0.7
                yaw *= 0.7
                roll *= 0.8
            if s * em > plan['min_em_px'] * 1.02 or (abs(dx) < 0.01 and abs(dy) < 0.01):
                s *= 0.95
            else:
                dx *= 0.8
                dy *= 0.8
                oxy = [dx * W, dy * H]
        else:
            raise RuntimeError('cannot frame the problem')
        return Hm, dict(s=s, roll=roll, pitch=pitch, yaw=yaw, f=f)
    # whole page
    pc = np.array([page['w'] / 2, page['h'] / 2])
    s = min(W / page['w'], H / page['h']) * rng.uniform(0.82, 0.92)
    oxy = [rng.normal(0, 0.02) * W, rng.normal(0, 0.02) * H]
    corners = np.array([[0, 0], [page['w'], 0], [page['w'], page['h']], [0, page['h']]], dtype=np.float64)
    Hm = None
    for it in range(60):
        Hm = homography(pc, s, roll, pitch, yaw, f, W, H, oxy[0], oxy[1])
        # corners are paper coords: map without skew
        d = Hm @ np.vstack([corners.T, np.ones(4)])
        q = (d[:2] / d[2]).T
        if inside(q, W, H, 0.015 * min(W, H)):
            break
        s *= 0.96
    return Hm, dict(s=s, roll=roll, pitch=pitch, yaw=yaw, f=f)


# --------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------

def item_bbox(it):
    k = it[0]
    if k == 'text':
        _, x, y, key, size, text, ink = it
        return (x, y - size, x + size * max(1, len(text)), y + 0.4 * size)
    if k in ('line', 'rect', 'fillrect'):
        return (min(it[1], it[3]) - 1, min(it[2], it[4]) - 1, max(it[1], it[3]) + 1, max(it[2], it[4]) + 1)
    if k == 'poly':
        xs = [p[0] for p in it[1]]
        ys = [p[1] for p in it[1]]
        return (min(xs) - 1, min(ys) - 1, max(xs) + 1, max(ys) + 1)
    if k == 'ellipse':
        return (it[1] - it[3] - 1, it[2] - it[4] - 1, it[1] + it[3] + 1, it[2] + it[4] + 1)
    return (0, 0, 0, 0)


def render_ink(items, x0, y0, x1, y1, r, speck_rng=None, speck_density=0.0):
    wpx = max(8, int(math.ceil((x1 - x0) * r)))
    hpx = max(8, int(math.ceil((y1 - y0) * r)))
    img = Image.new('L', (wpx, hpx), 0)
    dr = ImageDraw.Draw(img)

    def P(x, y):
        return ((x - x0) * r, (y - y0) * r)

    for it in items:
        bb = item_bbox(it)
        if bb[2] < x0 or bb[0] > x1 or bb[3] < y0 or bb[1] > y1:
            continue
        k = it[0]
        if k == 'text':
            _, x, y, key, size, text, ink = it
            px = size * r
            if px < 3:
                continue
            dr.text(P(x, y), text, font=font(key, px), fill=int(ink), anchor='ls')
        elif k == 'line':
            _, a, b, c, d, w, ink = it
            wp = max(1, int(round(w * r)))
            dr.line([P(a, b), P(c, d)], fill=int(ink), width=wp)
        elif k == 'rect':
            _, a, b, c, d, w, ink = it
            wp = max(1, int(round(w * r)))
            p0, p1 = P(a, b), P(c, d)
            dr.rectangle([p0, p1], outline=int(ink), width=wp)
        elif k == 'fillrect':
            _, a, b, c, d, ink = it
            dr.rectangle([P(a, b), P(c, d)], fill=int(ink))
        elif k == 'poly':
            _, pts, w, ink, closed = it
            pp = [P(x, y) for x, y in pts]
            if closed:
                pp = pp + [pp[0]]
            dr.line(pp, fill=int(ink), width=max(1, int(round(w * r))), joint='curve')
        elif k == 'ellipse':
            _, cx, cy, rx, ry, w, ink = it
            dr.ellipse([P(cx - rx, cy - ry), P(cx + rx, cy + ry)], outline=int(ink),
                       width=max(1, int(round(w * r))))
    if speck_rng is not None and speck_density > 0:
        area = (x1 - x0) * (y1 - y0)
        n = int(area * speck_density)
        xs = speck_rng.uniform(x0, x1, n)
        ys = speck_rng.uniform(y0, y1, n)
        rs = speck_rng.uniform(0.04, 0.16, n)
        inks = speck_rng.integers(90, 230, n)
        for x, y, rr, ik in zip(xs, ys, rs, inks):
            (a, b) = P(x - rr, y - rr)
            (c, d) = P(x + rr, y + rr)
            dr.ellipse([a, b, c, d], fill=int(ik))
    return np.asarray(img, dtype=np.float32) / 255.0


def smooth_noise(rng, h, w, scale, octaves=3):
    out = np.zeros((h, w), np.float32)
    amp = 1.0
    tot = 0
    for o in range(octaves):
        sh = max(2, int(h / scale) + 2)
        sw = max(2, int(w / scale) + 2)
        n = rng.standard_normal((sh, sw)).astype(np.float32)
        out += amp * cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
        tot += amp
        amp *= 0.5
        scale /= 2.5
    return out / tot


def page_shading(page, plan, rng, res=2.0):
    """Low-res paper-space maps: shade (multiplicative) and extra ink."""
    pw, ph = page['w'], page['h']
    h, w = int(ph * res) + 2, int(pw * res) + 2
    shade = np.ones((h, w), np.float32)
    shade *= 1 + 0.018 * smooth_noise(rng, h, w, 40 * res)
    X, Y = np.meshgrid(np.arange(w, dtype=np.float32) / res, np.arange(h, dtype=np.float32) / res)
    extra = np.zeros((h, w), np.float32)
    crease = plan['crease']
    if crease != 'none':
        if crease == 'fold_h':
            p0 = np.array([0, ph / 2 + rng.normal(0, 6)])
            ang = rng.normal(0, 1.5)
        elif crease == 'fold_v':
            p0 = np.array([pw / 2 + rng.normal(0, 5), 0])
            ang = 90 + rng.normal(0, 1.5)
        else:
            p0 = np.array([pw * rng.uniform(0.6, 0.85), 0])
            ang = rng.uniform(120, 150)
        a = math.radians(ang)
        nx, ny = -math.sin(a), math.cos(a)
        d = (X - p0[0]) * nx + (Y - p0[1]) * ny
        sgn = rng.choice([-1, 1])
        ridge = 0.10 * np.exp(-(d / 0.5) ** 2) * rng.uniform(0.5, 1.0)
        valley = 0.07 * np.exp(-((d - sgn * 0.9) / 0.8) ** 2)
        side = 0.035 * np.tanh(d * sgn / 6.0)
        shade *= (1 + ridge - valley - side - 0.02 * np.exp(-(d / 15) ** 2))
        extra -= 0.25 * np.exp(-(d / 0.35) ** 2)     # toner cracked along the fold
    if plan['print_style'] == 'copier':
        shade *= rng.uniform(0.92, 0.98)
        # dark bands at some page edges (original smaller than the copy)
        for side in ('l', 'r', 't', 'b'):
            if rng.random() < 0.35:
                wd = rng.uniform(0.8, 4)
                g = rng.uniform(0.25, 0.6)
                if side == 'l':
                    extra += g * (X < wd)
                elif side == 'r':
                    extra += g * (X > pw - wd)
                elif side == 't':
                    extra += g * (Y < wd)
                else:
                    extra += g * (Y > ph - wd)
        extra += 0.05 * np.clip(smooth_noise(rng, h, w, 60 * res), 0, None)
    if plan['showthrough']:
        # faint mirrored lines of text from the back of the sheet
        st = np.zeros((h, w), np.float32)
        y = rng.uniform(15, 30)
        while y < ph - 15:
            x0 = rng.uniform(15, 30)
            x1 = pw - rng.uniform(15, 60)
            yy = int(y * res)
            st[yy:yy + max(1, int(2.2 * res)), int(x0 * res):int(x1 * res)] = 1
            y += rng.uniform(5, 9)
        st = cv2.GaussianBlur(st, (0, 0), 1.2 * res)
        st *= (0.6 + 0.4 * np.clip(smooth_noise(rng, h, w, 5 * res), -1, 1))
        shade *= 1 - rng.uniform(0.025, 0.06) * st
    return shade, extra


def make_background(rng, kind, H, W):
    hs, ws = H // 8 + 2, W // 8 + 2
    if kind == 'wood':
        base = np.array(rng.choice([[0.62, 0.45, 0.30], [0.75, 0.60, 0.42], [0.50, 0.34, 0.22], [0.80, 0.68, 0.52]]))
        yy, xx = np.mgrid[0:hs, 0:ws].astype(np.float32)
        a = rng.uniform(0, math.pi) if rng.random() < 0.3 else rng.choice([0, math.pi / 2]) + rng.normal(0, 0.1)
        along = xx * math.cos(a) + yy * math.sin(a)
        across = -xx * math.sin(a) + yy * math.cos(a)
        n1 = smooth_noise(rng, hs, ws, max(hs, ws) / 2.0, octaves=2)
        per = rng.uniform(3, 7)
        g = np.sin(2 * math.pi * across / per + 2.5 * n1 + 0.02 * along)
        fine = np.sin(2 * math.pi * across / (per / 7.3) + 4 * n1)
        v = 0.9 + 0.08 * g + 0.03 * fine + 0.05 * smooth_noise(rng, hs, ws, 30)
    elif kind == 'gray':
        base = np.array([0.55, 0.56, 0.58]) * rng.uniform(0.8, 1.2)
        v = 1 + 0.05 * smooth_noise(rng, hs, ws, 10)
    elif kind == 'white':
        base = np.array([0.86, 0.86, 0.84])
        v = 1 + 0.03 * smooth_noise(rng, hs, ws, 12)
    elif kind == 'green':
        base = np.array(rng.choice([[0.35, 0.55, 0.45], [0.42, 0.6, 0.55]]))
        v = 1 + 0.04 * smooth_noise(rng, hs, ws, 10)
    elif kind == 'dark':
        base = np.array(rng.choice([[0.12, 0.13, 0.18], [0.18, 0.16, 0.15], [0.1, 0.1, 0.1]]))
        v = 1 + 0.12 * smooth_noise(rng, hs, ws, 4)
    else:   # papers: other sheets beneath
        base = np.array([0.88, 0.88, 0.86])
        v = 1 + 0.02 * smooth_noise(rng, hs, ws, 10)
    img = v[..., None] * base[None, None, :].astype(np.float32)
    img = cv2.resize(img.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    if kind == 'papers':
        # a few faint text-like lines from another sheet
        for _ in range(int(rng.integers(6, 20))):
            y = int(rng.uniform(0, H))
            x0 = int(rng.uniform(0, W * 0.8))
            cv2.line(img, (x0, y), (x0 + int(rng.uniform(50, W * 0.4)), y), (0.55, 0.55, 0.55),
                     max(1, int(H / 300)))
        img = cv2.GaussianBlur(img, (0, 0), 1.0)
    return img


def draw_occluder(kind, rng, H, W, avoid):
    """Return (rgb layer, alpha, shadow alpha, description) or None.

    Works at reduced resolution (the occluder is out of focus anyway) and
    returns full-size layers."""
    d = max(1, int(round(min(W, H) / 700.0)))
    Wl, Hl = (W + d - 1) // d, (H + d - 1) // d
    av = cv2.resize(avoid, (Wl, Hl), interpolation=cv2.INTER_NEAREST)
    av = cv2.dilate(av, np.ones((3, 3), np.uint8))
    m = min(Wl, Hl)
    for attempt in range(40):
        side = rng.choice(['l', 'r', 't', 'b'], p=[0.25, 0.25, 0.1, 0.4])
        t = rng.uniform(0.1, 0.9)
        if side == 'l':
            p0 = np.array([-0.02 * Wl, t * Hl])
            base_ang = 0.0
        elif side == 'r':
            p0 = np.array([1.02 * Wl, t * Hl])
            base_ang = 180.0
        elif side == 't':
            p0 = np.array([t * Wl, -0.02 * Hl])
            base_ang = 90.0
        else:
            p0 = np.array([t * Wl, 1.02 * Hl])
            base_ang = -90.0
        if kind == 'finger':
            ang = math.radians(base_ang + rng.normal(0, 22))
            L = rng.uniform(0.12, 0.3) * m
            wd = rng.uniform(0.09, 0.15) * m
        else:
            ang = math.radians(base_ang + rng.uniform(-60, 60))
            L = rng.uniform(0.3, 0.75) * max(Wl, Hl)
            wd = rng.uniform(0.022, 0.035) * m
        dv = np.array([math.cos(ang), math.sin(ang)])
        p1 = p0 + dv * L
        mask = np.zeros((Hl, Wl), np.uint8)
        cv2.line(mask, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 255, max(1, int(wd)), cv2.LINE_AA)
        cv2.circle(mask, tuple(int(v) for v in p1), max(1, int(wd / 2)), 255, -1, cv2.LINE_AA)
        if kind == 'pen':
            tip = p1 + dv * wd * 1.6
            nrm = np.array([-dv[1], dv[0]])
            tri = np.array([p1 + nrm * wd / 2, p1 - nrm * wd / 2, tip]).astype(np.int32)
            cv2.fillConvexPoly(mask, tri, 255, cv2.LINE_AA)
        grow = max(3, int(0.03 * m))
        mk = cv2.dilate(mask, np.ones((grow, grow), np.uint8))
        if np.any((mk > 0) & (av > 0)):
            continue
        if (mask > 0).sum() < 30:
            continue
        yy, xx = np.mgrid[0:Hl, 0:Wl].astype(np.float32)
        nrm = np.array([-dv[1], dv[0]])
        across = ((xx - p0[0]) * nrm[0] + (yy - p0[1]) * nrm[1]) / (wd / 2)
        along = ((xx - p0[0]) * dv[0] + (yy - p0[1]) * dv[1])
        across = np.clip(across, -1, 1)
        if kind == 'finger':
            skin = np.array(rng.choice([[0.88, 0.68, 0.56], [0.80, 0.60, 0.47], [0.68, 0.48, 0.36],
                                        [0.92, 0.75, 0.65]]), np.float32)
            shade = 0.62 + 0.42 * np.sqrt(np.clip(1 - across ** 2, 0, 1))
            rgb = shade[..., None] * skin[None, None, :]
            nail = ((along > L - wd * 0.75) & (np.abs(across) < 0.55)).astype(np.float32)
            nail = cv2.GaussianBlur(nail, (0, 0), max(1, wd * 0.06))
            rgb = rgb * (1 - 0.5 * nail[..., None]) + 0.5 * nail[..., None] * np.array([0.95, 0.82, 0.80], np.float32)
            blur = rng.uniform(0.01, 0.025) * m
            desc = 'finger_' + side
        else:
            col = np.array(rng.choice([[0.1, 0.15, 0.45], [0.08, 0.08, 0.09], [0.7, 0.1, 0.1],
                                       [0.85, 0.85, 0.88], [0.2, 0.45, 0.3]]), np.float32)
            shade = 0.55 + 0.45 * np.sqrt(np.clip(1 - across ** 2, 0, 1))
            hl = np.exp(-((across + 0.35) / 0.15) ** 2) * 0.35
            rgb = shade[..., None] * col[None, None, :] + hl[..., None]
            tipz = (along > L).astype(np.float32)
            rgb = rgb * (1 - tipz[..., None]) + tipz[..., None] * (0.55 * shade[..., None])
            blur = rng.uniform(0.002, 0.008) * m
            desc = 'pen_' + side
        a = mask.astype(np.float32) / 255.0
        a = cv2.GaussianBlur(a, (0, 0), max(0.5, blur))
        rgb = cv2.GaussianBlur(rgb.astype(np.float32), (0, 0), max(0.5, blur))
        sh = np.roll(np.roll(mask, int(0.015 * m), 0), int(0.01 * m), 1).astype(np.float32) / 255
        sh = cv2.GaussianBlur(sh, (0, 0), 0.02 * m)
        up = lambda z: cv2.resize(z, (W, H), interpolation=cv2.INTER_LINEAR)
        return up(rgb), up(a), up(sh), desc
    return None


def lighting_field(rng, kind, H, W):
    hs, ws = H // 8 + 2, W // 8 + 2
    yy, xx = np.mgrid[0:hs, 0:ws].astype(np.float32)
    xx /= ws
    yy /= hs
    L = np.ones((hs, ws), np.float32)
    gain = np.array([1, 1, 1], np.float32)
    a = rng.uniform(0, 2 * math.pi)
    g = (xx - 0.5) * math.cos(a) + (yy - 0.5) * math.sin(a)
    if kind == 'even':
        L *= 1 + 0.04 * g
    elif kind == 'gradient':
        L *= 1 + rng.uniform(0.2, 0.45) * g
    elif kind == 'warm_lamp':
        L *= 1 + rng.uniform(0.2, 0.4) * g
        gain = np.array([1.08, 0.95, 0.72], np.float32)
    elif kind == 'cool':
        L *= 1 + 0.15 * g
        gain = np.array([0.9, 0.97, 1.08], np.float32)
    elif kind == 'dim':
        L *= rng.uniform(0.55, 0.72) * (1 + 0.2 * g)
    elif kind == 'hotspot':
        cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
        r2 = (xx - cx) ** 2 + (yy - cy) ** 2
        L *= 0.9 + rng.uniform(0.15, 0.28) * np.exp(-r2 / rng.uniform(0.01, 0.04))
    vig = rng.uniform(0.05, 0.25)
    L *= 1 - vig * (((xx - 0.5) ** 2 + (yy - 0.5) ** 2) / 0.5)
    L = cv2.resize(L, (W, H), interpolation=cv2.INTER_LINEAR)
    return L, gain


def shadow_field(rng, kind, H, W):
    if kind == 'none':
        return None
    m = np.zeros((H // 4 + 1, W // 4 + 1), np.float32)
    h, w = m.shape
    if kind == 'phone':
        # soft rectangle-ish shadow entering from one side
        side = rng.choice(['t', 'b', 'l', 'r'])
        depth = rng.uniform(0.15, 0.4)
        if side == 't':
            m[:int(depth * h), int(rng.uniform(0, 0.3) * w):int(rng.uniform(0.6, 1) * w)] = 1
        elif side == 'b':
            m[int((1 - depth) * h):, int(rng.uniform(0, 0.3) * w):int(rng.uniform(0.6, 1) * w)] = 1
        elif side == 'l':
            m[int(rng.uniform(0, 0.3) * h):int(rng.uniform(0.6, 1) * h), :int(depth * w)] = 1
        else:
            m[int(rng.uniform(0, 0.3) * h):int(rng.uniform(0.6, 1) * h), int((1 - depth) * w):] = 1
        sig = rng.uniform(0.03, 0.08) * max(h, w)
    else:
        # hand / arm shadow: a big blob from a corner
        cx, cy = rng.choice([0, 1]) * w, rng.choice([0, 1]) * h
        cv2.ellipse(m, (int(cx), int(cy)), (int(rng.uniform(0.3, 0.6) * w), int(rng.uniform(0.3, 0.6) * h)),
                    rng.uniform(0, 180), 0, 360, 1, -1)
        sig = rng.uniform(0.06, 0.12) * max(h, w)
    m = cv2.GaussianBlur(m, (0, 0), sig)
    m = cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR)
    return m


def render_photo(page, plan, seed, i):
    rng = np.random.default_rng([seed, i, 7])
    pr = random.Random(seed * 1000003 + i * 7919 + 1)
    ow, oh = plan['photo_w'], plan['photo_h']        # stored size
    rot = plan['rot90']
    cam_w, cam_h = (oh, ow) if rot in (90, 270) else (ow, oh)
    k = plan['sensor_scale']
    geo = Geo(page, plan['print_skew'], (rng.normal(0, 1.0), rng.normal(0, 1.0)), plan['bend'])
    Hm, cam = frame_camera(page, geo, plan, rng, cam_w, cam_h)
    geo.H = Hm
    S = np.diag([k, k, 1.0])
    Hs = S @ Hm
    W, H = cam_w * k, cam_h * k
    X, Y, Xc, Yc = geo.inv_maps(Hs, W, H)
    pw, ph = page['w'], page['h']
    on_page = (X > -1) & (X < pw + 1) & (Y > -1) & (Y < ph + 1)
    if not on_page.any():
        raise RuntimeError('page not visible')
    # local scale: px per mm (output px)
    s_c = cam['s']
    step = 16
    Xs, Ys = Xc[::step, ::step], Yc[::step, ::step]
    dxu = np.hypot(np.diff(Xs, axis=1), np.diff(Ys, axis=1))[:-1, :] / step
    dxv = np.hypot(np.diff(Xs, axis=0), np.diff(Ys, axis=0))[:, :-1] / step
    onp = on_page[::step, ::step][:-1, :-1]
    mmpp = np.minimum(dxu, dxv)[onp] if onp.any() else np.array([1 / (s_c * k)])
    s_max = 1.0 / max(1e-4, float(mmpp.min()))          # sensor px per mm
    cx0 = float(max(-2, Xc[on_page].min() - 2))
    cx1 = float(min(pw + 2, Xc[on_page].max() + 2))
    cy0 = float(max(-2, Yc[on_page].min() - 2))
    cy1 = float(min(ph + 2, Yc[on_page].max() + 2))
    r = 1.5 * s_max / k if k > 1 else 1.5 * s_max
    area = (cx1 - cx0) * (cy1 - cy0)
    r = min(r, math.sqrt(26e6 / area), 60.0)
    r = max(r, 3.0)
    speck = plan['print_style'] == 'copier'
    ink = render_ink(page['items'], cx0, cy0, cx1, cy1, r, speck_rng=rng if speck else None,
                     speck_density=rng.uniform(0.002, 0.02) if speck else 0)
    if plan['print_style'] == 'copier' and rng.random() < 0.5:
        kk = max(1, int(round(r * 0.06)))
        if kk > 1:
            ink = cv2.dilate(ink, np.ones((kk, kk), np.uint8))
    # anti-alias before resampling
    ratio = r / (s_max / 1.0)
    sig = 0.45 * r / max(1e-3, s_max)
    if sig > 0.3:
        ink = cv2.GaussianBlur(ink, (0, 0), sig)
    mx = (Xc - cx0) * r
    my = (Yc - cy0) * r
    inkw = cv2.remap(ink, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    del ink, mx, my
    shade, extra = page_shading(page, plan, rng)
    res = 2.0
    sx, sy = (X * res).astype(np.float32), (Y * res).astype(np.float32)
    shade_w = cv2.remap(shade, sx, sy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    extra_w = cv2.remap(extra, sx, sy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    del sx, sy
    # toner density variation
    dens = plan['toner'] * (1 + 0.06 * cv2.resize(smooth_noise(rng, H // 16 + 2, W // 16 + 2, 6), (W, H)))
    ink_a = np.clip(inkw * dens + extra_w, 0, 1)
    # page mask (anti-aliased paper edge)
    spx = s_c * k
    dist = np.minimum(np.minimum(X, pw - X), np.minimum(Y, ph - Y))
    pmask = np.clip(dist * spx + 0.5, 0, 1).astype(np.float32)
    del X, Y, Xc, Yc, dist
    paper = np.array(plan['paper_rgb'], np.float32)
    fine = (1 + 0.012 * rng.standard_normal((H // 2 + 1, W // 2 + 1)).astype(np.float32))
    fine = cv2.resize(fine, (W, H), interpolation=cv2.INTER_LINEAR)
    toner = np.float32(plan['toner_gray'])
    pshade = (shade_w * fine)[..., None]
    page_rgb = paper[None, None, :] * pshade * (1 - ink_a[..., None]) + toner * ink_a[..., None]
    bg = make_background(rng, plan['background'], H, W)
    # drop shadow of the sheet onto the desk
    dsl = cv2.resize(pmask, (W // 4 + 1, H // 4 + 1), interpolation=cv2.INTER_AREA)
    dsl = cv2.GaussianBlur(dsl, (0, 0), 0.002 * max(W, H))
    dsl = np.roll(dsl, (int(0.001 * H), int(0.001 * W)), (0, 1))
    ds = cv2.resize(dsl, (W, H), interpolation=cv2.INTER_LINEAR)
    bg = bg * (1 - 0.35 * ds[..., None])
    img = bg * (1 - pmask[..., None]) + page_rgb * pmask[..., None]
    del page_rgb, bg, ink_a, inkw, shade_w, extra_w
    # framed region to avoid with occluders
    fq = geo.fwd(box_corners(page['framed']['block']), Hs)
    avoid = np.zeros((H, W), np.uint8)
    cv2.fillConvexPoly(avoid, fq.astype(np.int32), 255)
    occ = 'none'
    if plan['occluder'] != 'none':
        o = draw_occluder(plan['occluder'], rng, H, W, avoid)
        if o is not None:
            rgb, a, sh, occ = o
            img = img * (1 - 0.35 * sh[..., None])
            img = img * (1 - a[..., None]) + rgb * a[..., None]
    # lighting
    L, gain = lighting_field(rng, plan['lighting'], H, W)
    sf = shadow_field(rng, plan['shadow'], H, W)
    if sf is not None:
        L = L * (1 - rng.uniform(0.25, 0.4) * sf)
    img = img * (L[..., None] * gain[None, None, :] * plan['exposure'])
    # blur
    bsig = min(plan['blur_sigma'], 0.045 * cam['s'] * page['em'])
    bs = bsig * k
    if plan['blur'] == 'motion':
        mlen = min(plan['motion_len'], 0.2 * cam['s'] * page['em'])
        ln = max(3, int(mlen * k))
        kern = np.zeros((ln, ln), np.float32)
        cv2.line(kern, (0, ln // 2), (ln - 1, ln // 2), 1.0, 1)
        M = cv2.getRotationMatrix2D((ln / 2 - 0.5, ln / 2 - 0.5), plan['motion_ang'], 1.0)
        kern = cv2.warpAffine(kern, M, (ln, ln))
        kern /= kern.sum()
        img = cv2.filter2D(img, -1, kern)
    if bs > 0.2:
        img = cv2.GaussianBlur(img, (0, 0), bs)
    if plan['dof']:
        blurred = cv2.GaussianBlur(img, (0, 0), (bsig + 1.0) * k)
        yy = np.linspace(0, 1, H, dtype=np.float32)[:, None]
        xx = np.linspace(0, 1, W, dtype=np.float32)[None, :]
        a = rng.uniform(0, 2 * math.pi)
        g = (xx - 0.5) * math.cos(a) + (yy - 0.5) * math.sin(a)
        # depth of field: the blur grows away from the framed problem, which stays sharp
        gq = (fq[:, 0] / W - 0.5) * math.cos(a) + (fq[:, 1] / H - 0.5) * math.sin(a)
        wgt = np.clip((g - float(gq.max()) - 0.04) * 3.0, 0, 1)[..., None]
        img = img * (1 - wgt) + blurred * wgt
    # noise
    ns = plan['noise_sigma']
    lum = rng.standard_normal((H, W), dtype=np.float32)[..., None]
    img = img + lum * np.sqrt(np.clip(img, 0, 1) * ns * ns + (ns * 0.35) ** 2)
    ch = rng.standard_normal((H // 3 + 1, W // 3 + 1, 3), dtype=np.float32) * ns * 0.6
    img = img + cv2.resize(ch, (W, H), interpolation=cv2.INTER_LINEAR)
    img = np.clip(img, 0, 1)
    if k > 1:
        img = cv2.resize(img, (cam_w, cam_h), interpolation=cv2.INTER_AREA)
    # phone sharpening
    am = plan['sharpen']
    if am > 0:
        bl = cv2.GaussianBlur(img, (0, 0), 1.2)
        img = np.clip(img + am * (img - bl), 0, 1)
    out = (img * 255 + 0.5).astype(np.uint8)
    out = cv2.cvtColor(out, cv2.COLOR_RGB2BGR)
    # rotations of the stored image
    def rotpts(P):
        P = np.asarray(P, np.float64).copy()
        if rot == 90:     # np.rot90 k=1 (counter-clockwise)
            return np.stack([P[:, 1], cam_w - P[:, 0]], 1)
        if rot == 180:
            return np.stack([cam_w - P[:, 0], cam_h - P[:, 1]], 1)
        if rot == 270:
            return np.stack([cam_h - P[:, 1], P[:, 0]], 1)
        return P
    if rot:
        out = np.ascontiguousarray(np.rot90(out, {90: 1, 180: 2, 270: 3}[rot]))
    assert out.shape[1] == ow and out.shape[0] == oh, (out.shape, ow, oh)

    def to_photo(box):
        return rotpts(geo.fwd(box_corners(box), Hm))

    geom = dict(cam=cam, occluder=occ, blur_sigma=bsig, to_photo=to_photo, render_ppmm=r, Hm=Hm, geo=geo,
                cam_w=cam_w, cam_h=cam_h)
    ok, buf = cv2.imencode('.jpg', out, [cv2.IMWRITE_JPEG_QUALITY, int(plan['jpeg_q'])])
    return buf.tobytes(), geom


# --------------------------------------------------------------------------
# measurements
# --------------------------------------------------------------------------

def vis_state(quad, W, H):
    """'full' if the quad is inside the photo, 'cut' if partly, 'out' otherwise."""
    if quad is None:
        return 'out'
    if inside(quad, W, H, 0):
        return 'full'
    rect = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    try:
        a, _ = cv2.intersectConvexConvex(quad.astype(np.float32), rect)
    except cv2.error:
        a = 0
    return 'cut' if a > 1 else 'out'


def math_features(text, plan):
    plan = dict(dict(script='raised', frac='inline', sqrt_bar=False), **plan)
    f = []
    if any(c in SUP for c in text):
        f.append('sup_' + plan['script'])
    if any(c in SUB for c in text):
        f.append('sub_' + plan['script'])
    if re.search(r'(?<![\d.])\d+/\d+(?![\d/])', text):
        f.append('frac_' + plan['frac'])
    if '√' in text:
        f.append('sqrt' + ('_bar' if plan['sqrt_bar'] else ''))
    if 'π' in text:
        f.append('pi')
    if re.search('[ΩρπΔαβθλμ]', text):
        f.append('greek')
    if '°' in text or '℃' in text:
        f.append('degree')
    if '×' in text or '÷' in text:
        f.append('times_div')
    if '∩' in text or '∪' in text:
        f.append('set_ops')
    if re.search(r'[<>≤≥]', text):
        f.append('inequality')
    return ';'.join(f) if f else 'none'


def qstr(q):
    return ' '.join('%.1f %.1f' % (x, y) for x, y in q)


def make_one(args):
    i, plan, seed, bank, outdir = args
    byid = {q['id']: q for q in bank}
    prng = random.Random(seed * 1000003 + i)
    page = build_page(plan, bank, byid, prng)
    jpg, g = render_photo(page, plan, seed, i)
    qid = 'l%03d' % i
    with open(os.path.join(outdir, qid + '.jpg'), 'wb') as fh:
        fh.write(jpg)
    W, H = plan['photo_w'], plan['photo_h']
    fr = page['framed']
    fq = g['to_photo'](fr['block'])
    tq = g['to_photo'](fr['text'])
    c = fq.mean(0)
    # other problems in view
    n_full = n_cut = 0
    near = 0
    ftext = fr['q']['question']
    for p in page['probs']:
        if p['framed']:
            continue
        vs = vis_state(g['to_photo'](p['block']), W, H)
        if vs == 'full':
            n_full += 1
        elif vs == 'cut':
            n_cut += 1
        if vs != 'out' and difflib.SequenceMatcher(None, ftext, p['q']['question']).ratio() >= 0.75:
            near += 1
    head_vis = vis_state(g['to_photo'](page['fhead']['box']), W, H) if page['fhead'] and page['fhead']['box'] else 'none'
    title_vis = vis_state(g['to_photo'](page['title']), W, H) if page['title'] else 'none'
    name_vis = vis_state(g['to_photo'](page['namebar']), W, H) if page['namebar'] else 'none'
    fig_vis = 'none'
    if fr['fig']:
        fig_vis = vis_state(g['to_photo'](fr['fig']), W, H)
    e = fr['p']['extras']
    side = np.linalg.norm(fq[1] - fq[0])
    em_px = page['em'] * side / max(1e-6, fr['block'][2] - fr['block'][0])
    ps = page['ps']
    ans = e['space'] or ('answer_line' if e['ans_text'] is not None else 'none')
    inline_blank = {'brackets': 'brackets_' + e['tail_align'], 'under_chars': 'underscores',
                    'under_line': 'underline'}.get(e['tail'], 'none')
    row = dict(
        qid=qid, expected_id=fr['qid'], subject=fr['q']['subject'], question_lang=q_lang(fr['q']),
        page_lang=plan['page_lang'], doc_type=plan['doc_type'], page_format=plan['fmt'], columns=page['ncols'],
        latin_font=plan['lat_fam'], cjk_font=plan['cjk_fam'], body_pt=plan['body_pt'],
        body_bold=int(plan['body_bold']), print_style=plan['print_style'],
        number_style=plan['num_style'], label=fr['p']['label'], label_own_line=int(bool(fr['p'].get('label_own_line') and fr['p']['label'])),
        score_note=fr['p']['score'] if fr['p']['score_pos'] != 'none' else '',
        score_pos=fr['p']['score_pos'] if fr['p']['score'] else 'none',
        section_type=page['section_type'],
        section_heading=page['fhead']['text'] if (page['fhead'] and ps['show_heads']) else '',
        framed_lines=fr['lines'], indent='hanging' if fr['p']['hanging'] else 'flush',
        justify=int(plan['justify']), options=e['opt_layout'] or 'none', answer_space=ans,
        inline_blank=inline_blank, figure=e['fig'] or 'none', figure_pos=e['fig_pos'] or 'none',
        figure_in_view=fig_vis, math_features=math_features(ftext, plan),
        framing=plan['framing'], centring=plan['centring'],
        centre_dx='%.4f' % (c[0] / W - 0.5), centre_dy='%.4f' % (c[1] / H - 0.5),
        framed_quad=qstr(fq), question_quad=qstr(tq),
        framed_w_frac='%.3f' % ((fq[:, 0].max() - fq[:, 0].min()) / W),
        framed_h_frac='%.3f' % ((fq[:, 1].max() - fq[:, 1].min()) / H),
        char_px='%.1f' % em_px,
        neighbours_full=n_full, neighbours_cut=n_cut, near_dup_in_view=near,
        heading_in_view=head_vis, title_in_view=title_vis, namebar_in_view=name_vis,
        photo_w=W, photo_h=H, sensor='%dx%d' % (g['cam_w'] * plan['sensor_scale'], g['cam_h'] * plan['sensor_scale']),
        rot_deg='%.1f' % g['cam']['roll'], rot90=plan['rot90'],
        tilt_pitch='%.1f' % g['cam']['pitch'], tilt_yaw='%.1f' % g['cam']['yaw'],
        focal_px='%.0f' % g['cam']['f'], bend_mm='%.1f' % max(abs(plan['bend'][0]), abs(plan['bend'][1])),
        lighting=plan['lighting'], shadow=plan['shadow'], occluder=g['occluder'], crease=plan['crease'],
        blur=plan['blur'], blur_sigma='%.2f' % g['blur_sigma'], dof=int(plan['dof']),
        noise_sigma='%.3f' % plan['noise_sigma'], jpeg_q=plan['jpeg_q'], background=plan['background'],
        paper=plan['paper'], showthrough=int(plan['showthrough']),
    )
    return i, row, fr['q']['question']


# --------------------------------------------------------------------------
# planning
# --------------------------------------------------------------------------

def em_len(text):
    return sum(1.0 if is_cjk(c) or ord(c) > 0x2E80 else 0.5 for c in text)


def spread(R, n, weights):
    keys = list(weights.keys())
    tot = float(sum(weights.values()))
    raw = [weights[k] / tot * n for k in keys]
    cnt = [int(math.floor(x)) for x in raw]
    rem = sorted(range(len(keys)), key=lambda j: -(raw[j] - cnt[j]))
    for j in rem[:n - sum(cnt)]:
        cnt[j] += 1
    out = []
    for k, c in zip(keys, cnt):
        out += [k] * c
    R.shuffle(out)
    return out


def plan_cases(bank, N, seed):
    R = random.Random(seed)
    ids = [q['id'] for q in bank]
    byid = {q['id']: q for q in bank}
    # every question with word-processor maths or a long (wrapping) text is
    # framed first; the rest of the bank fills up the count
    pri = [q['id'] for q in bank if math_features(q['question'], {}) != 'none' or em_len(q['question']) >= 24]
    rest = [x for x in ids if x not in set(pri)]
    R.shuffle(pri)
    R.shuffle(rest)
    order = pri + rest
    framed = order[:min(N, len(order))]
    R.shuffle(framed)
    framed = [framed[k] if k < len(framed) else order[k % len(order)] for k in range(N)]
    L = lambda w: spread(R, N, w)
    doc = L({'worksheet': 32, 'quiz': 22, 'unit_test': 26, 'revision': 20})
    fmt = L({'A4P1': 38, 'A4P2': 30, 'B4L2': 17, 'A5P1': 15})
    # long problems mostly go to narrow columns (so that they wrap)
    narrow = ('A4P2', 'A5P1')
    for k in range(N):
        if em_len(byid[framed[k]]['question']) >= 24 and fmt[k] not in narrow and R.random() < 0.65:
            for j in range(N):
                if fmt[j] in narrow and em_len(byid[framed[j]]['question']) < 20:
                    fmt[k], fmt[j] = fmt[j], fmt[k]
                    break
    latf = L({'LiberationSerif': 20, 'LiberationSans': 15, 'LiberationSansNarrow': 10, 'DejaVuSans': 10,
              'DejaVuSansCondensed': 8, 'DejaVuSerif': 10, 'DejaVuSerifCondensed': 7, 'NotoSerifCJK': 12,
              'NotoSansCJK': 8})
    cjkf = L({'NotoSerifCJK-SC': 58, 'NotoSansCJK-SC': 42})
    pt = L({10.5: 30, 11: 14, 12: 30, 14: 10, 10: 10, 13: 6})
    score_pos = L({'none': 40, 'after_number': 28, 'line_end': 32})
    extra = L({'opts1': 14, 'opts2': 10, 'opts4': 8, 'brackets': 10, 'underline': 10, 'answer_line': 10,
               'lines': 12, 'box': 8, 'space': 10, 'none': 11})
    fig = L({'none': 66, 'triangle': 6, 'circuit': 6, 'axes': 6, 'table': 9, 'numberline': 3, 'bars': 4})
    framing = L({'close': 30, 'mid': 43, 'far': 18, 'whole': 9})
    centring = L({'centred': 64, 'slight': 21, 'off': 15})
    photo = L({'1280x960': 27, '1600x1200': 26, '960x1280': 20, '2000x1500@2': 15, '1200x1600': 12})
    rot90 = L({0: 94, 90: 2, 270: 2, 180: 2})
    lighting = L({'even': 24, 'gradient': 30, 'warm_lamp': 14, 'dim': 10, 'hotspot': 10, 'cool': 12})
    shadow = L({'none': 60, 'hand': 20, 'phone': 20})
    occl = L({'none': 60, 'finger': 25, 'pen': 15})
    crease = L({'none': 78, 'fold_h': 10, 'fold_v': 7, 'corner': 5})
    blur = L({'none': 45, 'mild': 33, 'soft': 14, 'motion': 8})
    noise = L({'low': 40, 'mid': 40, 'high': 20})
    printst = L({'laser': 60, 'copier': 40})
    bgk = L({'wood': 30, 'gray': 18, 'white': 14, 'green': 14, 'dark': 12, 'papers': 12})
    paper = L({'white': 55, 'cream': 20, 'recycled': 25})
    num_cycle = {'zh': NUM_ZH[:], 'en': NUM_EN[:], 'mixed': NUM_MIX[:]}
    for v in num_cycle.values():
        R.shuffle(v)
    num_idx = {'zh': 0, 'en': 0, 'mixed': 0}
    plans = []
    for k in range(N):
        q = byid[framed[k]]
        ql = q_lang(q)
        if ql == 'zh':
            pl = 'mixed' if (R.random() < 0.22 or q['subject'] == 'english') else 'zh'
        else:
            pl = 'mixed' if R.random() < 0.4 else 'en'
        ns = num_cycle[pl][num_idx[pl] % len(num_cycle[pl])]
        num_idx[pl] += 1
        if ns in ('blank_paren',) and ql != 'en':
            ns = 'dot'
        f = fmt[k]
        lat = latf[k]
        if pl == 'en' and lat.startswith('Noto') and R.random() < 0.7:
            lat = R.choice(['LiberationSerif', 'LiberationSans', 'DejaVuSans'])
        ph = photo[k]
        fr = framing[k]
        body = pt[k]
        if fr == 'whole':
            if f == 'B4L2':
                ph = R.choice(['2000x1500@2', '1600x1200'])
            else:
                ph = R.choice(['1200x1600', '1500x2000@2', '1200x1600', '1600x1200r'])
            body = max(body, 12)
        rot = rot90[k]
        if ph.endswith('r'):
            ph = ph[:-1]
            rot = R.choice([90, 270])
        sz, _, sc = ph.partition('@')
        w, h = map(int, sz.split('x'))
        score_style = R.choice(['（{s}分）', '({s}分)', '【{s}分】']) if pl == 'zh' else \
            R.choice(['[{s} marks]', '({s} pts)', '({s} points)', '[{s}]', '({s} marks)']) if pl == 'en' else \
            R.choice(['（{s}分）', '[{s} marks]', '({s} pts)'])
        b = blur[k]
        bsig = {'none': 0.0, 'mild': R.uniform(0.5, 0.9), 'soft': R.uniform(0.9, 1.4),
                'motion': R.uniform(0.0, 0.4)}[b]
        if fr in ('whole', 'far'):
            bsig = min(bsig, 0.7)
        roll = max(-12, min(12, R.gauss(0, 4.0)))
        if R.random() < 0.1:
            roll = R.choice([-1, 1]) * R.uniform(7, 12)
        pitch = max(-20, min(20, R.gauss(0, 7)))
        yaw = max(-15, min(15, R.gauss(0, 5)))
        bend = (0.0, 0.0, 0.0, 0.0)
        pw_, ph_, _ = FORMATS[f]
        if R.random() < 0.3:
            bend = (R.uniform(-0.8, 0.8), R.uniform(-1.6, 1.6), R.uniform(0.3, 0.7) * pw_, R.uniform(0.3, 0.7) * ph_)
        nz = {'low': R.uniform(0.006, 0.012), 'mid': R.uniform(0.012, 0.022), 'high': R.uniform(0.022, 0.035)}[noise[k]]
        prgb = {'white': (0.96, 0.96, 0.95), 'cream': (0.97, 0.94, 0.87), 'recycled': (0.90, 0.90, 0.87)}[paper[k]]
        mil = {'close': 26.0, 'mid': 21.0, 'far': 17.0, 'whole': 14.0}[fr]
        plans.append(dict(
            i=k + 1, qid=q['id'], page_lang=pl, doc_type=doc[k], fmt=f, lat_fam=lat, cjk_fam=cjkf[k],
            body_pt=body, body_bold=R.random() < 0.07, num_bold=R.random() < 0.4, num_style=ns,
            score_style=score_style, score_pos=score_pos[k], score_pos_framed=score_pos[k],
            extra=extra[k], fig=fig[k], fig_pos=R.choice(['beside', 'beside', 'under']),
            hanging=R.random() < 0.6, justify=R.random() < (0.7 if pl != 'en' else 0.35),
            line_spacing=R.uniform(1.3, 1.9), script=R.choice(['raised', 'raised', 'unicode']),
            frac=R.choice(['inline', 'stacked']) if R.random() < (0.85 if re.search(r'\d/\d', q['question']) else 0.6) else 'inline',
            sqrt_bar=R.random() < (0.75 if '√' in q['question'] else 0.5), math_italic=R.random() < 0.5,
            pos_frac=R.random(), framing=fr, centring=centring[k], photo_w=w, photo_h=h,
            sensor_scale=2 if sc else 1, rot90=rot, roll=roll, pitch=pitch, yaw=yaw,
            focal=R.uniform(0.72, 0.82) if R.random() < 0.85 else R.uniform(1.4, 1.6),
            min_em_px=mil, bend=bend, print_skew=R.gauss(0, 0.4), lighting=lighting[k], shadow=shadow[k],
            exposure=R.uniform(0.88, 1.08), occluder=occl[k], crease=crease[k], blur=b, blur_sigma=bsig,
            motion_len=R.uniform(4, 9), motion_ang=R.uniform(0, 180), dof=R.random() < 0.12,
            noise_sigma=nz, sharpen=R.uniform(0.0, 0.8), jpeg_q=R.randint(58, 93), print_style=printst[k],
            toner=R.uniform(0.82, 0.98), toner_gray=R.uniform(0.06, 0.16), background=bgk[k], paper=paper[k],
            paper_rgb=prgb, showthrough=R.random() < 0.25,
        ))
    return plans


_BANK = None


def _init(bank):
    cv2.setNumThreads(1)
    global _BANK
    _BANK = bank


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('outdir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=341)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--only', default='', help='debug: comma-separated indices (does not write CSVs)')
    a = ap.parse_args()
    bank = [json.loads(l) for l in open(a.bank, encoding='utf-8') if l.strip()]
    os.makedirs(a.outdir, exist_ok=True)
    plans = plan_cases(bank, a.count, a.seed)
    idx = list(range(1, a.count + 1))
    if a.only:
        idx = [int(x) for x in a.only.split(',')]
    else:
        for f in glob.glob(os.path.join(a.outdir, 'l*.jpg')):
            os.remove(f)
    t0 = time.time()
    tasks = [(i, plans[i - 1], a.seed, bank, a.outdir) for i in idx]
    results = []
    if a.jobs > 1:
        import multiprocessing as mp
        ctx = mp.get_context('fork')
        with ctx.Pool(a.jobs, initializer=_init, initargs=(bank,)) as pool:
            for r in pool.imap_unordered(make_one, tasks):
                results.append(r)
                print('.', end='', flush=True)
    else:
        cv2.setNumThreads(1)
        for t in tasks:
            results.append(make_one(t))
            print('.', end='', flush=True)
    print()
    results.sort(key=lambda r: r[0])
    if not a.only:
        with open(os.path.join(a.outdir, 'truth.csv'), 'w', newline='', encoding='utf-8') as fh:
            w = csv.writer(fh)
            w.writerow(['qid', 'text'])
            for i, row, text in results:
                w.writerow([row['qid'], text])
        with open(os.path.join(a.outdir, 'queries.csv'), 'w', newline='', encoding='utf-8') as fh:
            w = csv.writer(fh)
            w.writerow(['qid', 'query', 'expected_id', 'kind'])
            for i, row, text in results:
                w.writerow([row['qid'], text, row['expected_id'], 'exact'])
        with open(os.path.join(a.outdir, 'cases.csv'), 'w', newline='', encoding='utf-8') as fh:
            cols = list(results[0][1].keys())
            w = csv.DictWriter(fh, fieldnames=cols)
            w.writeheader()
            for i, row, text in results:
                w.writerow(row)
    print('wrote %d photos to %s in %.1fs' % (len(results), a.outdir, time.time() - t0))


if __name__ == '__main__':
    main()
