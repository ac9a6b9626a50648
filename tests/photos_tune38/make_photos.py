#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Synthetic phone photos of printed homework pages that a student has worked on.

Usage:
  python make_photos.py --bank BANK.jsonl OUT_DIR --count 120 --seed 391 [--jobs 2]

Writes OUT_DIR/hw001.jpg ..., OUT_DIR/truth.csv (qid,text) and OUT_DIR/queries.csv
(qid,query,expected_id,kind).  The "framed" problem of each photo is the numbered
problem nearest the image centre; its printed question (exactly as in the bank)
is the truth.  Only numpy, Pillow and OpenCV are used.
"""
import argparse
import csv
import difflib
import json
import math
import os
import re
import sys
import time
from collections import Counter

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# --------------------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------------------
NOTO = '/usr/share/fonts/opentype/noto/'
DJV = '/usr/share/fonts/truetype/dejavu/'
LIB = '/usr/share/fonts/truetype/liberation/'
FONT_FILES = {
    'cjk_sans': (NOTO + 'NotoSansCJK-Regular.ttc', 'Noto Sans CJK SC'),
    'cjk_sans_b': (NOTO + 'NotoSansCJK-Bold.ttc', 'Noto Sans CJK SC'),
    'cjk_serif': (NOTO + 'NotoSerifCJK-Regular.ttc', 'Noto Serif CJK SC'),
    'cjk_serif_b': (NOTO + 'NotoSerifCJK-Bold.ttc', 'Noto Serif CJK SC'),
    'cjk_mono': (NOTO + 'NotoSansCJK-Regular.ttc', 'Noto Sans Mono CJK SC'),
    'dejavu_sans': (DJV + 'DejaVuSans.ttf', None),
    'dejavu_sans_b': (DJV + 'DejaVuSans-Bold.ttf', None),
    'dejavu_serif': (DJV + 'DejaVuSerif.ttf', None),
    'dejavu_serif_b': (DJV + 'DejaVuSerif-Bold.ttf', None),
    'dejavu_cond': (DJV + 'DejaVuSansCondensed.ttf', None),
    'lib_serif': (LIB + 'LiberationSerif-Regular.ttf', None),
    'lib_serif_b': (LIB + 'LiberationSerif-Bold.ttf', None),
    'lib_sans': (LIB + 'LiberationSans-Regular.ttf', None),
    'lib_sans_b': (LIB + 'LiberationSans-Bold.ttf', None),
    'lib_narrow': (LIB + 'LiberationSansNarrow-Regular.ttf', None),
}
BOLD_OF = {'cjk_sans': 'cjk_sans_b', 'cjk_serif': 'cjk_serif_b', 'cjk_mono': 'cjk_sans_b',
           'dejavu_sans': 'dejavu_sans_b', 'dejavu_serif': 'dejavu_serif_b',
           'dejavu_cond': 'dejavu_sans_b', 'lib_serif': 'lib_serif_b', 'lib_sans': 'lib_sans_b',
           'lib_narrow': 'lib_sans_b'}
_FONT_INDEX = {}
_FONT_CACHE = {}
_GLYPH_CACHE = {}
_NOTDEF = {}


def _font_index(key):
    if key in _FONT_INDEX:
        return _FONT_INDEX[key]
    path, fam = FONT_FILES[key]
    idx = 0
    if fam is not None:
        for i in range(16):
            try:
                f = ImageFont.truetype(path, 12, index=i)
            except Exception:
                break
            if f.getname()[0] == fam:
                idx = i
                break
    _FONT_INDEX[key] = idx
    return idx


def font_ok(key):
    return os.path.exists(FONT_FILES[key][0])


def get_font(key, size):
    size = max(6, int(round(size)))
    k = (key, size)
    f = _FONT_CACHE.get(k)
    if f is None:
        f = ImageFont.truetype(FONT_FILES[key][0], size, index=_font_index(key))
        _FONT_CACHE[k] = f
    return f


def has_glyph(key, ch):
    k = (key, ch)
    r = _GLYPH_CACHE.get(k)
    if r is not None:
        return r
    if ch.isspace():
        r = True
    else:
        f = get_font(key, 40)
        if key not in _NOTDEF:
            nd = f.getmask('\U0010FFFD')
            _NOTDEF[key] = (nd.size, bytes(nd))
        m = f.getmask(ch)
        r = not ((m.size == _NOTDEF[key][0] and bytes(m) == _NOTDEF[key][1]) or m.getbbox() is None)
    _GLYPH_CACHE[k] = r
    return r


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF
            or 0x3000 <= o <= 0x303F or o in (0x2018, 0x2019, 0x201C, 0x201D, 0x2026, 0x2014)
            or 0x2460 <= o <= 0x24FF)


def pick_font(ch, st):
    """Per-character font choice with fallback chain."""
    chain = (st['cjk'], st['latin'], 'cjk_sans', 'dejavu_sans') if is_cjk(ch) else \
            (st['latin'], st['cjk'], 'dejavu_sans', 'cjk_sans', 'dejavu_serif')
    for k in chain:
        if has_glyph(k, ch):
            return k
    return chain[0]


# --------------------------------------------------------------------------------------
# text units / line breaking
# --------------------------------------------------------------------------------------
SUP = {'²': '2', '³': '3', '¹': '1', '⁰': '0', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7',
       '⁸': '8', '⁹': '9', '⁺': '+', '⁻': '-', 'ⁿ': 'n'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6', '₇': '7',
       '₈': '8', '₉': '9', 'ₙ': 'n', 'ₐ': 'a', 'ₓ': 'x', 'ₑ': 'e', 'ₒ': 'o', '₊': '+', '₋': '-'}
NO_START = set('，。、；：？！）》」』】〉”’,.;:?!)]}%℃°·…～/')
NO_END = set('（《「『【〈“‘([{/')


def make_units(text, st, size=None, fkey=None, rng=None, blank_em=None):
    """Turn a string into drawable units. Each unit: dict(i0,i1,kind,ch,fk,size,w,yoff)."""
    fs = size or st['fs']
    units = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '_':
            j = i
            while j < n and text[j] == '_':
                j += 1
            em = blank_em if blank_em is not None else (rng.uniform(3.0, 5.5) if rng is not None else 4.0)
            units.append(dict(i0=i, i1=j, kind='blank', ch='', fk=None, size=fs, w=em * fs, yoff=0))
            i = j
            continue
        if ch in SUP or ch in SUB:
            g = SUP.get(ch) or SUB.get(ch)
            sz = int(round(fs * 0.6))
            fk = fkey or pick_font(g, st)
            w = get_font(fk, sz).getlength(g) + fs * 0.03
            yoff = -0.40 * fs if ch in SUP else 0.16 * fs
            units.append(dict(i0=i, i1=i + 1, kind='sup' if ch in SUP else 'sub', ch=g, fk=fk,
                              size=sz, w=w, yoff=yoff))
            i += 1
            continue
        if ch == ' ':
            w = fs * 0.28 if st.get('tight_space') else get_font(st['latin'], fs).getlength(' ')
            units.append(dict(i0=i, i1=i + 1, kind='space', ch=' ', fk=None, size=fs, w=w, yoff=0))
            i += 1
            continue
        fk = fkey or pick_font(ch, st)
        w = get_font(fk, fs).getlength(ch)
        units.append(dict(i0=i, i1=i + 1, kind='ch', ch=ch, fk=fk, size=fs, w=w, yoff=0))
        i += 1
    return units


def _u_char(u):
    if u['kind'] == 'blank':
        return '_'
    if u['kind'] in ('sup', 'sub'):
        return 'x'
    return u['ch']


def can_break(a, b):
    ca, cb = _u_char(a), _u_char(b)
    if b['kind'] == 'space':
        return False
    if cb in NO_START:
        return False
    if a['kind'] == 'space':
        return True
    if ca in NO_END:
        return False
    if (a['kind'] == 'ch' and is_cjk(ca)) or (b['kind'] == 'ch' and is_cjk(cb)):
        return True
    return False


OPS = set('=+-×÷<>≤≥')


def can_break_at(units, k):
    a, b = units[k - 1], units[k]
    if not can_break(a, b):
        return False
    if a['kind'] == 'space':
        # keep short equations together: no break right after / before an operator
        j = k - 1
        while j >= 0 and units[j]['kind'] == 'space':
            j -= 1
        if j >= 0 and units[j]['kind'] == 'ch' and units[j]['ch'] in OPS:
            return False
        if b['kind'] == 'ch' and b['ch'] in OPS:
            return False
    return True


def break_lines(units, avail_first, avail_rest):
    """Greedy line filling with Chinese line-breaking rules. Returns list of unit lists."""
    segs = []
    cur = []
    for k, u in enumerate(units):
        if cur and can_break_at(units, k):
            segs.append(cur)
            cur = []
        cur.append(u)
    if cur:
        segs.append(cur)

    def core_w(seg):
        j = len(seg)
        while j > 0 and seg[j - 1]['kind'] == 'space':
            j -= 1
        return sum(u['w'] for u in seg[:j])

    lines = []
    line = []
    w = 0.0
    queue = list(segs)
    while queue:
        seg = queue.pop(0)
        avail = avail_first if not lines else avail_rest
        cw = core_w(seg)
        if line and w + cw > avail:
            lines.append(line)
            line, w = [], 0.0
            avail = avail_rest
        if not line and cw > avail and len(seg) > 1:
            # force-split an over-long segment
            acc, aw = [], 0.0
            for u in seg:
                if acc and aw + u['w'] > avail:
                    break
                acc.append(u)
                aw += u['w']
            rest = seg[len(acc):]
            queue.insert(0, rest)
            seg = acc
        # drop leading spaces on a new line
        if not line:
            while seg and seg[0]['kind'] == 'space':
                seg = seg[1:]
        line.extend(seg)
        w += sum(u['w'] for u in seg)
    if line:
        lines.append(line)
    # strip trailing spaces
    out = []
    for ln in lines:
        while ln and ln[-1]['kind'] == 'space':
            ln = ln[:-1]
        if ln:
            out.append(ln)
    return out


# --------------------------------------------------------------------------------------
# problem block layout
# --------------------------------------------------------------------------------------
CJK_H = 0.88   # ideograph ink height / font size (Noto CJK)


def place_units(units, x, base, ops, rules, st, justify_to=None):
    """Position units on a line, append draw ops. Returns list of (unit, x0, x1)."""
    fs = st['fs']
    extra = 0.0
    if justify_to is not None and len(units) > 1:
        tot = sum(u['w'] for u in units)
        slack = justify_to - tot
        if 0 < slack < 0.12 * justify_to:
            extra = slack / (len(units) - 1)
    out = []
    for u in units:
        if u['kind'] == 'blank':
            th = max(1, int(round(fs / 18)))
            rules.append((x + fs * 0.1, x + u['w'] - fs * 0.1, base + 0.13 * fs, th))
        elif u['kind'] != 'space':
            ops.append((x, base + u['yoff'], u['ch'], u['fk'], u['size']))
        out.append((u, x, x + u['w']))
        x += u['w'] + extra
    return out


def layout_block(item, label, score, st, colw, rng, bracket, x0, y0):
    """Lay out one numbered problem at page position (x0, y0)."""
    fs, lh = st['fs'], st['lh']
    ops, rules = [], []
    base = y0 + fs * 1.0
    lab_units = make_units(label, st, fkey=None)
    if st.get('label_bold'):
        for u in lab_units:
            if u['kind'] == 'ch':
                bk = BOLD_OF.get(u['fk'])
                if bk and has_glyph(bk, u['ch']):
                    u['fk'] = bk
                    u['w'] = get_font(bk, u['size']).getlength(u['ch'])
    placed = place_units(lab_units, x0, base, ops, rules, st)
    lx1 = placed[-1][2] if placed else x0
    label_box = [x0, base - CJK_H * fs, lx1, base + 0.14 * fs]
    xt = lx1 + fs * st['label_gap']
    score_box = None
    if score:
        su = make_units(score, st, size=int(fs * st.get('score_scale', 0.85)))
        sp = place_units(su, xt, base, ops, rules, st)
        score_box = [xt, base - CJK_H * fs, sp[-1][2], base + 0.14 * fs]
        xt = sp[-1][2] + fs * 0.25
    indent_rest = (xt - x0) if (st['hanging'] and (xt - x0) < 0.28 * colw) else 0.0
    units = make_units(item['question'], st, rng=rng)
    lines = break_lines(units, colw - (xt - x0), colw - indent_rest)
    chars, line_rects, blanks = [], [], []
    for li, ln in enumerate(lines):
        lx = xt if li == 0 else x0 + indent_rest
        just = None
        if st['justify'] and li < len(lines) - 1:
            just = x0 + colw - lx
        pl = place_units(ln, lx, base, ops, rules, st, justify_to=just)
        for u, a, b in pl:
            if u['kind'] == 'space':
                continue
            top = base - CJK_H * fs
            bot = base + 0.14 * fs
            if u['kind'] == 'sup':
                top = base - 1.0 * fs
            if u['kind'] == 'sub':
                bot = base + 0.3 * fs
            chars.append([u['i0'], u['i1'], a, top, b, bot, base, li])
            if u['kind'] == 'blank':
                blanks.append([a, b, base + 0.13 * fs, base])
        line_rects.append([pl[0][1], base - 0.95 * fs, pl[-1][2], base + 0.22 * fs, base])
        base += lh
    base -= lh
    bracket_box = None
    if bracket:
        bw = fs * rng.uniform(3.0, 5.0)
        lb = get_font(st['cjk'], fs).getlength('（')
        last_end = line_rects[-1][2]
        total = lb * 2 + bw
        if last_end + fs * 0.8 + total <= x0 + colw:
            bx = (x0 + colw - total) if (rng.random() < 0.6 and not st.get('bracket_after')) else last_end + fs * 0.6
            bbase = base
        else:
            base += lh
            bx = x0 + colw - total
            bbase = base
        ops.append((bx, bbase, '（', st['cjk'], fs))
        ops.append((bx + lb + bw, bbase, '）', st['cjk'], fs))
        bracket_box = [bx, bbase - CJK_H * fs, bx + total, bbase + 0.14 * fs, bbase]
    boxes = [label_box] + [r[:4] for r in line_rects]
    if bracket_box:
        boxes.append(bracket_box[:4])
    if score_box:
        boxes.append(score_box)
    bb = [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]
    return dict(item=item, label=label, ops=ops, rules=rules, label_box=label_box, chars=chars,
                lines=line_rects, blanks=blanks, bracket=bracket_box, box=bb, nlines=len(lines),
                score_box=score_box)


def shift_block(b, dx, dy):
    b['ops'] = [(x + dx, y + dy, c, f, s) for (x, y, c, f, s) in b['ops']]
    b['rules'] = [(a + dx, c + dx, y + dy, t) for (a, c, y, t) in b['rules']]
    b['label_box'] = [b['label_box'][0] + dx, b['label_box'][1] + dy, b['label_box'][2] + dx, b['label_box'][3] + dy]
    b['chars'] = [[i0, i1, a + dx, t + dy, c + dx, bo + dy, ba + dy, li] for (i0, i1, a, t, c, bo, ba, li) in b['chars']]
    b['lines'] = [[a + dx, t + dy, c + dx, bo + dy, ba + dy] for (a, t, c, bo, ba) in b['lines']]
    b['blanks'] = [[a + dx, c + dx, y + dy, ba + dy] for (a, c, y, ba) in b['blanks']]
    if b['bracket']:
        a, t, c, bo, ba = b['bracket']
        b['bracket'] = [a + dx, t + dy, c + dx, bo + dy, ba + dy]
    if b['score_box']:
        a, t, c, bo = b['score_box']
        b['score_box'] = [a + dx, t + dy, c + dx, bo + dy]
    a, t, c, bo = b['box']
    b['box'] = [a + dx, t + dy, c + dx, bo + dy]


# --------------------------------------------------------------------------------------
# handwriting (stroke font + warped glyphs)
# --------------------------------------------------------------------------------------
def A(cx, cy, rx, ry, a0, a1, n=None):
    if n is None:
        n = max(5, int(abs(a1 - a0) / 22))
    t = np.radians(np.linspace(a0, a1, n))
    return [(cx + rx * math.cos(v), cy + ry * math.sin(v)) for v in t]


def _strokes():
    S = {}
    S['0'] = (.6, [A(.3, .5, .28, .5, -90, 275)])
    S['1'] = (.35, [[(.05, .22), (.25, 0), (.25, 1)]])
    S['2'] = (.62, [A(.29, .27, .26, .26, -160, 20) + [(.04, 1), (.6, 1)]])
    S['3'] = (.58, [A(.27, .25, .25, .24, -150, 90) + A(.27, .73, .29, .27, -90, 150)])
    S['4'] = (.64, [[(.46, 1), (.46, 0), (.02, .68), (.62, .68)]])
    S['5'] = (.58, [[(.52, 0), (.12, 0), (.08, .46)] + A(.29, .68, .27, .31, -140, 150)])
    S['6'] = (.58, [[(.5, .02), (.3, .15), (.12, .38), (.05, .65)] + A(.29, .72, .24, .28, 180, -180)])
    S['7'] = (.6, [[(.02, 0), (.6, 0), (.24, 1)]])
    S['8'] = (.58, [A(.29, .24, .21, .24, 90, 450), A(.29, .73, .27, .27, -90, 270)])
    S['9'] = (.58, [A(.29, .28, .25, .28, 0, 360), [(.54, .28), (.5, .6), (.42, 1)]])
    S['a'] = (.55, [A(.26, .73, .22, .27, -30, 330), [(.48, .46), (.48, .93), (.53, 1)]])
    S['b'] = (.52, [[(.05, 0), (.05, 1)], A(.27, .73, .22, .27, 180, -180)])
    S['c'] = (.5, [A(.26, .73, .23, .27, -40, -320)])
    S['d'] = (.53, [A(.24, .73, .22, .27, 0, 360), [(.47, 0), (.47, 1)]])
    S['e'] = (.52, [[(.03, .73), (.47, .73)] + A(.25, .73, .22, .27, 0, -315)])
    S['f'] = (.45, [[(.47, .06), (.36, 0), (.24, .06), (.2, .25), (.2, 1)], [(.03, .47), (.42, .47)]])
    S['g'] = (.52, [A(.24, .7, .21, .23, 0, 360), [(.46, .47), (.46, 1.2), (.36, 1.36), (.2, 1.38), (.06, 1.28)]])
    S['h'] = (.52, [[(.05, 0), (.05, 1)], [(.05, .66), (.16, .5), (.3, .46), (.42, .52), (.45, .66), (.45, 1)]])
    S['i'] = (.22, [[(.1, .47), (.1, 1)], [(.1, .24), (.11, .27)]])
    S['j'] = (.3, [[(.22, .47), (.22, 1.22), (.12, 1.35), (0, 1.3)], [(.22, .24), (.23, .27)]])
    S['k'] = (.46, [[(.05, 0), (.05, 1)], [(.42, .47), (.06, .76), (.44, 1)]])
    S['l'] = (.24, [[(.1, 0), (.1, .95), (.16, 1)]])
    S['m'] = (.66, [[(.04, .47), (.04, 1)], [(.04, .64), (.14, .49), (.25, .48), (.32, .6), (.32, 1)],
                    [(.32, .62), (.42, .49), (.53, .48), (.6, .6), (.6, 1)]])
    S['n'] = (.5, [[(.05, .47), (.05, 1)], [(.05, .64), (.17, .49), (.32, .47), (.42, .56), (.44, .7), (.44, 1)]])
    S['o'] = (.52, [A(.25, .73, .22, .27, -90, 275)])
    S['p'] = (.52, [[(.05, .47), (.05, 1.4)], A(.27, .73, .22, .27, 180, -180)])
    S['q'] = (.54, [A(.24, .73, .22, .27, 0, 360), [(.46, .47), (.46, 1.4), (.54, 1.32)]])
    S['r'] = (.4, [[(.05, .47), (.05, 1)], [(.05, .66), (.16, .51), (.27, .47), (.38, .49)]])
    S['s'] = (.46, [[(.4, .52), (.28, .46), (.12, .48), (.06, .58), (.14, .68), (.34, .76), (.42, .87),
                     (.35, .97), (.2, 1), (.03, .95)]])
    S['t'] = (.42, [[(.2, .12), (.2, .92), (.27, 1), (.38, .97)], [(.03, .47), (.4, .47)]])
    S['u'] = (.52, [[(.05, .47), (.05, .84), (.14, .98), (.27, 1), (.4, .92), (.45, .78)], [(.45, .47), (.45, 1)]])
    S['v'] = (.46, [[(0, .47), (.22, 1), (.44, .47)]])
    S['w'] = (.62, [[(0, .47), (.15, 1), (.3, .6), (.45, 1), (.6, .47)]])
    S['x'] = (.46, [[(.02, .47), (.42, 1)], [(.42, .47), (.02, 1)]])
    S['y'] = (.48, [[(.02, .47), (.24, .97)], [(.46, .47), (.2, 1.2), (.06, 1.38)]])
    S['z'] = (.48, [[(.03, .47), (.42, .47), (.03, 1), (.44, 1)]])
    S['A'] = (.62, [[(0, 1), (.3, 0), (.6, 1)], [(.12, .62), (.48, .62)]])
    S['B'] = (.58, [[(.05, 0), (.05, 1)], [(.05, 0), (.33, 0), (.46, .1), (.46, .33), (.32, .47), (.05, .48)],
                    [(.3, .48), (.5, .58), (.54, .78), (.44, .95), (.05, 1)]])
    S['C'] = (.62, [A(.33, .5, .3, .5, -40, -320)])
    S['D'] = (.6, [[(.05, 0), (.05, 1)], [(.05, 0), (.3, .03), (.5, .22), (.56, .55), (.46, .86), (.25, .99), (.05, 1)]])
    S['E'] = (.55, [[(.5, 0), (.05, 0), (.05, 1), (.52, 1)], [(.05, .5), (.42, .5)]])
    S['F'] = (.52, [[(.5, 0), (.05, 0), (.05, 1)], [(.05, .5), (.42, .5)]])
    S['G'] = (.64, [A(.33, .5, .3, .5, -40, -330) + [(.6, .55), (.38, .55)]])
    S['H'] = (.6, [[(.05, 0), (.05, 1)], [(.55, 0), (.55, 1)], [(.05, .5), (.55, .5)]])
    S['I'] = (.2, [[(.1, 0), (.1, 1)]])
    S['K'] = (.56, [[(.05, 0), (.05, 1)], [(.52, 0), (.06, .55)], [(.2, .42), (.55, 1)]])
    S['L'] = (.52, [[(.05, 0), (.05, 1), (.5, 1)]])
    S['M'] = (.74, [[(.03, 1), (.08, 0), (.36, .7), (.64, 0), (.7, 1)]])
    S['N'] = (.6, [[(.05, 1), (.05, 0), (.55, 1), (.55, 0)]])
    S['O'] = (.66, [A(.33, .5, .31, .5, -90, 275)])
    S['P'] = (.55, [[(.05, 1), (.05, 0), (.35, 0), (.5, .12), (.5, .35), (.35, .48), (.05, .5)]])
    S['R'] = (.58, [[(.05, 1), (.05, 0), (.35, 0), (.5, .12), (.5, .35), (.35, .48), (.05, .5)], [(.28, .5), (.55, 1)]])
    S['S'] = (.58, [[(.5, .1), (.3, 0), (.1, .05), (.05, .22), (.2, .4), (.45, .55), (.55, .75), (.42, .95),
                     (.2, 1), (.02, .9)]])
    S['T'] = (.56, [[(0, 0), (.56, 0)], [(.28, 0), (.28, 1)]])
    S['U'] = (.6, [[(.05, 0), (.05, .7), (.15, .93), (.3, 1), (.45, .93), (.55, .7), (.55, 0)]])
    S['V'] = (.6, [[(0, 0), (.3, 1), (.6, 0)]])
    S['W'] = (.78, [[(0, 0), (.2, 1), (.38, .35), (.56, 1), (.76, 0)]])
    S['X'] = (.56, [[(0, 0), (.55, 1)], [(.55, 0), (0, 1)]])
    S['Y'] = (.56, [[(0, 0), (.28, .5), (.56, 0)], [(.28, .5), (.28, 1)]])
    S['='] = (.53, [[(.03, .58), (.5, .58)], [(.03, .8), (.5, .8)]])
    S['+'] = (.52, [[(.26, .46), (.26, .96)], [(.02, .71), (.5, .71)]])
    S['-'] = (.47, [[(.05, .7), (.42, .7)]])
    S['×'] = (.48, [[(.06, .5), (.42, .92)], [(.42, .5), (.06, .92)]])
    S['÷'] = (.53, [[(.03, .71), (.5, .71)], [(.26, .5), (.27, .52)], [(.26, .9), (.27, .92)]])
    S['/'] = (.4, [[(.38, 0), (.02, 1.05)]])
    S['('] = (.3, [A(.32, .5, .28, .62, -120, -240)])
    S[')'] = (.32, [A(0, .5, .28, .62, -60, 60)])
    S['.'] = (.2, [[(.08, .97), (.1, 1)]])
    S[','] = (.2, [[(.1, .95), (.05, 1.12)]])
    S[':'] = (.2, [[(.08, .55), (.09, .57)], [(.08, .95), (.09, .97)]])
    S['>'] = (.5, [[(.03, .5), (.45, .72), (.03, .94)]])
    S['<'] = (.5, [[(.45, .5), (.03, .72), (.45, .94)]])
    S['√'] = (.8, [[(0, .62), (.1, .56), (.22, 1), (.42, 0), (.78, 0)]])
    S['?'] = (.5, [A(.25, .25, .22, .22, -170, 90) + [(.25, .47), (.24, .72)], [(.24, .95), (.25, .98)]])
    S['%'] = (.58, [A(.12, .2, .1, .16, 0, 360), [(.5, 0), (.05, 1)], A(.45, .8, .1, .16, 0, 360)])
    S['°'] = (.22, [A(.1, .12, .09, .1, 0, 360)])
    S['!'] = (.2, [[(.1, 0), (.1, .7)], [(.1, .95), (.11, .98)]])
    S['π'] = (.52, [[(0, .5), (.5, .47)], [(.15, .5), (.12, 1)], [(.37, .49), (.38, .95), (.45, 1)]])
    return S


STROKES = _strokes()


def chaikin(p, it=2):
    for _ in range(it):
        if len(p) < 3:
            break
        q = np.empty((2 * (len(p) - 1), 2))
        q[0::2] = 0.75 * p[:-1] + 0.25 * p[1:]
        q[1::2] = 0.25 * p[:-1] + 0.75 * p[1:]
        p = np.vstack([p[:1], q, p[-1:]])
    return p


def glyph_mask(ch, px, rng, hw, cjk):
    """Handwriting-like mask of one glyph (CJK or fallback): slanted, rotated, elastically warped."""
    if cjk:
        fk = hw['cjk_font'] if has_glyph(hw['cjk_font'], ch) else pick_font(ch, {'cjk': 'cjk_sans', 'latin': 'dejavu_sans'})
        fsz = int(round(px * 1.22))
    else:
        fk = 'dejavu_sans' if has_glyph('dejavu_sans', ch) else 'cjk_sans'
        fsz = int(round(px / 0.73))
    fsz = max(8, fsz)
    f = get_font(fk, fsz)
    S = fsz * 2
    img = Image.new('L', (S, S), 0)
    ImageDraw.Draw(img).text((fsz * 0.5, fsz * 1.45), ch, font=f, fill=255, anchor='ls')
    m = np.asarray(img, np.float32)
    # affine: shear (slant), small rotation, squash
    sh = -hw['slant'] * rng.uniform(0.7, 1.2)
    ang = math.radians(rng.normal(0, 4))
    sx = rng.uniform(0.86, 1.06)
    sy = rng.uniform(0.92, 1.06)
    c, s_ = math.cos(ang), math.sin(ang)
    M = np.array([[sx * c, -sy * s_ + sh, 0], [sx * s_, sy * c, 0]], np.float32)
    cx, cy = fsz * 0.9, fsz * 1.0
    M[:, 2] = np.array([cx, cy]) - M[:, :2] @ np.array([cx, cy])
    m = cv2.warpAffine(m, M, (S, S), flags=cv2.INTER_LINEAR)
    # elastic jitter
    amp = max(1.0, fsz * 0.05) * hw['wobble']
    g = 5
    dx = cv2.resize(rng.normal(0, 1, (g, g)).astype(np.float32), (S, S), interpolation=cv2.INTER_CUBIC) * amp
    dy = cv2.resize(rng.normal(0, 1, (g, g)).astype(np.float32), (S, S), interpolation=cv2.INTER_CUBIC) * amp
    yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)
    m = cv2.remap(m, xx + dx, yy + dy, cv2.INTER_LINEAR)
    if hw['tool'] == 'pencil' and fsz > 24:
        m = cv2.erode(m, np.ones((2, 2), np.uint8))
    ys, xs = np.nonzero(m > 20)
    if len(xs) == 0:
        return None
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    mm = m[y0:y1, x0:x1]
    base_y = fsz * 1.45
    return mm.astype(np.uint8), x0 - fsz * 0.5, y0 - base_y   # offsets relative to pen pos / baseline


class HW:
    """A handwritten object in local coords (baseline y=0, starts x=0)."""

    def __init__(self, tool, color):
        self.tool = tool
        self.color = color
        self.polys = []   # (pts Nx2, thickness)
        self.masks = []   # (mask uint8, x, y)

    def bbox(self):
        xs0, ys0, xs1, ys1 = [], [], [], []
        for p, t in self.polys:
            xs0.append(p[:, 0].min() - t)
            xs1.append(p[:, 0].max() + t)
            ys0.append(p[:, 1].min() - t)
            ys1.append(p[:, 1].max() + t)
        for m, x, y in self.masks:
            xs0.append(x)
            ys0.append(y)
            xs1.append(x + m.shape[1])
            ys1.append(y + m.shape[0])
        if not xs0:
            return [0, 0, 0, 0]
        return [min(xs0), min(ys0), max(xs1), max(ys1)]

    def moved(self, dx, dy):
        o = HW(self.tool, self.color)
        o.polys = [(p + np.array([dx, dy]), t) for p, t in self.polys]
        o.masks = [(m, x + dx, y + dy) for m, x, y in self.masks]
        return o

    def add(self, other):
        self.polys += other.polys
        self.masks += other.masks


def hw_style(rng, tool, h):
    return dict(tool=tool, slant=rng.uniform(0.05, 0.32), jit=rng.uniform(0.015, 0.035),
                spacing=rng.uniform(0.08, 0.22), wobble=rng.uniform(0.6, 1.3),
                thick=max(1, int(round(h / rng.uniform(11, 16)))) if tool == 'pen' else max(1, int(round(h / rng.uniform(12, 18)))),
                cjk_font=['cjk_sans', 'cjk_sans', 'cjk_serif', 'cjk_sans_b'][rng.integers(0, 4)] if tool == 'pen' else 'cjk_sans')


def hw_text(text, h, rng, hw, color):
    o = HW(hw['tool'], color)
    x = 0.0
    dy = 0.0
    for ch in text:
        if ch == ' ':
            x += h * rng.uniform(0.35, 0.6)
            continue
        mode = 'n'
        g = ch
        if ch in SUP:
            g, mode = SUP[ch], 'sup'
        elif ch in SUB:
            g, mode = SUB[ch], 'sub'
        sc = 0.6 if mode != 'n' else 1.0
        yoff = -0.55 * h if mode == 'sup' else (0.22 * h if mode == 'sub' else 0.0)
        dy = float(np.clip(dy + rng.normal(0, 0.035 * h), -0.14 * h, 0.14 * h))
        gs = h * sc * rng.uniform(0.9, 1.1)
        if g in STROKES:
            w, strokes = STROKES[g]
            for st in strokes:
                p = np.array(st, np.float64)
                p = p + rng.normal(0, hw['jit'], p.shape)
                if len(p) == 2 and np.hypot(*(p[1] - p[0])) > 0.2:
                    mid = (p[0] + p[1]) / 2 + rng.normal(0, hw['jit'] * 0.8, 2)
                    p = np.vstack([p[:1], mid, p[1:]])
                X = x + p[:, 0] * gs + (1 - p[:, 1]) * gs * hw['slant']
                Y = (p[:, 1] - 1) * gs + yoff + dy
                pts = chaikin(np.stack([X, Y], 1), 2)
                o.polys.append((pts, hw['thick']))
            x += (w + hw['spacing']) * gs
        else:
            cj = is_cjk(g)
            r = glyph_mask(g, gs, rng, hw, cj)
            if r is None:
                continue
            m, ox, oy = r
            o.masks.append((m, x + ox, oy + yoff + dy))
            x += ox + m.shape[1] + hw['spacing'] * gs * (0.5 if cj else 1.0) + (0.08 * gs if cj else 0)
    return o


def hw_ellipse(cx, cy, rx, ry, rng, tool, color, thick):
    o = HW(tool, color)
    a0 = rng.uniform(0, 360)
    span = rng.uniform(350, 400)
    n = 28
    t = np.radians(np.linspace(a0, a0 + span, n))
    r = 1 + np.cumsum(rng.normal(0, 0.012, n))
    tilt = math.radians(rng.normal(0, 8))
    X = rx * r * np.cos(t)
    Y = ry * r * np.sin(t)
    P = np.stack([cx + X * math.cos(tilt) - Y * math.sin(tilt), cy + X * math.sin(tilt) + Y * math.cos(tilt)], 1)
    o.polys.append((chaikin(P, 1), thick))
    return o


def hw_line(p0, p1, rng, tool, color, thick, wav=0.0, n=8):
    o = HW(tool, color)
    t = np.linspace(0, 1, n)[:, None]
    P = np.array(p0) * (1 - t) + np.array(p1) * t
    d = np.array(p1) - np.array(p0)
    L = np.hypot(*d) + 1e-6
    nrm = np.array([-d[1], d[0]]) / L
    off = rng.normal(0, 0.6, n) + (np.sin(np.linspace(0, rng.uniform(6, 14), n) * math.pi) * wav if wav else 0)
    P = P + off[:, None] * nrm[None, :]
    o.polys.append((chaikin(P, 2), thick))
    return o


def hw_star(cx, cy, r, rng, tool, color, thick):
    o = HW(tool, color)
    a0 = -90 + rng.normal(0, 8)
    pts = []
    for k in range(6):
        a = math.radians(a0 + k * 144)
        pts.append((cx + r * math.cos(a) + rng.normal(0, r * 0.06), cy + r * math.sin(a) + rng.normal(0, r * 0.06)))
    o.polys.append((chaikin(np.array(pts), 1), thick))
    return o


def hw_arrow(x0, y0, x1, y1, rng, tool, color, thick):
    o = hw_line((x0, y0), (x1, y1), rng, tool, color, thick)
    ang = math.atan2(y1 - y0, x1 - x0)
    L = max(8.0, 0.25 * math.hypot(x1 - x0, y1 - y0))
    for s in (-1, 1):
        a = ang + math.pi + s * math.radians(rng.uniform(22, 35))
        o.polys.append((np.array([[x1 + L * math.cos(a), y1 + L * math.sin(a)], [x1, y1]]), thick))
    return o


def hw_check(x, y, h, rng, tool, color, thick):
    o = HW(tool, color)
    P = np.array([[x, y - 0.45 * h], [x + 0.3 * h, y], [x + 0.95 * h, y - 1.0 * h]]) + rng.normal(0, 0.04 * h, (3, 2))
    o.polys.append((chaikin(P, 1), thick))
    return o


# --------------------------------------------------------------------------------------
# content pools
# --------------------------------------------------------------------------------------
HW_CN_WORDS = ['解：', '答：', '所以', '因为', '设', '面积', '周长', '千米', '厘米', '已知', '求', '得', '对吗？',
               '不会', '再算一遍', '错', '记住', '重点', '公式', '易错', '复习', '氧气', '电阻', '速度', '李白', '鲁迅',
               '长江', '考点', '注意单位', '看书第', '问老师', '分子', '方程', '检验', '约分', '单位', '原子']
HW_NOTE = ['问老师', '明天交', '记得复习', '错题本', '重点！', 'p.35', 'review!', '订正', '背公式', 'ask Mr. Li',
           '第5页', 'check', '单位!', '别忘了']
HW_ANS_WORDS = ['goes', 'went', 'an', 'a', 'since', 'for', 'go', 'children', 'teeth', 'better', 'best', 'cheap']
HW_ANS_SHORT = ['B', 'C', 'A', 'D', '40', '12', 'x=5', '3', '5', '0.5', '24', '72', '长江', '李白', '鲁迅', '细胞',
                '2 m/s²', '7', '1/2', 'H₂O', '100', '26', '40°', 'x=4']
HW_NAMES = ['李明', '王芳', '张伟', '刘洋', '陈静', '杨帆', 'Tom', 'Amy', '赵磊', '周杰']


def working_line(rng):
    a, b = int(rng.integers(2, 10)), int(rng.integers(2, 13))
    c = a * b
    k = int(rng.integers(0, 18))
    if k == 0:
        return f'{a}x={c}'
    if k == 1:
        return f'x={b}'
    if k == 2:
        return f'{a}+{b}={a + b}'
    if k == 3:
        return f'{a}×{b}={c}'
    if k == 4:
        return f'{c}÷{a}={b}'
    if k == 5:
        return f'S={a}×{b}={c}'
    if k == 6:
        return f'x²-{a + b}x+{c}=0'
    if k == 7:
        return f'x₁={a} x₂={b}'
    if k == 8:
        return f'v={c}/{a}={b}'
    if k == 9:
        return f'{a}x+{b}={a * 3 + b}'
    if k == 10:
        return f'2x={2 * b}'
    if k == 11:
        return '解：' + f'{a}x={c}'
    if k == 12:
        return '答：' + str(c) + ['平方厘米', '千米', '元', '厘米'][int(rng.integers(0, 4))]
    if k == 13:
        return HW_CN_WORDS[int(rng.integers(0, len(HW_CN_WORDS)))]
    if k == 14:
        return f'a₁={a}, d={b}'
    if k == 15:
        return f'({a}+{b})×2={2 * (a + b)}'
    if k == 16:
        return f'{a}²={a * a}'
    return '∴ x=' + str(b) if rng.random() < 0.3 else f'y={a}x+{b}'


# --------------------------------------------------------------------------------------
# page headers
# --------------------------------------------------------------------------------------
GRADES = ['三', '四', '五', '六', '七', '八', '九', '高一', '高二']
SUBJ_CN = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'english': '英语', 'biology': '生物',
           'geography': '地理', 'history': '历史', 'chinese': '语文'}
CN_NUM = '一二三四五六七八九十'


def header_texts(rng, subject, english):
    if english and rng.random() < 0.6:
        t = ['Unit %d Homework' % rng.integers(1, 9), 'Practice Sheet %d' % rng.integers(1, 20),
             'Weekend Review — Grade %d' % rng.integers(6, 10)][int(rng.integers(0, 3))]
        info = 'Name: ________  Class: ______  Date: ______'
        sec = ['Part I  Answer the questions', 'Section B  Grammar', 'Part II  Fill in the blanks'][int(rng.integers(0, 3))]
        return t, info, sec
    g = GRADES[int(rng.integers(0, len(GRADES)))]
    sj = SUBJ_CN.get(subject, '综合')
    g_ = g if g.startswith('高') else g + '年级'
    t = [f'{g_}{sj} 课时作业（{CN_NUM[int(rng.integers(0, 10))]}）', f'{sj}周末练习 第{int(rng.integers(1, 16))}周',
         f'第{CN_NUM[int(rng.integers(0, 8))]}单元 达标检测', f'{g_}{sj}期中复习 专题训练',
         f'{sj}课后巩固练习'][int(rng.integers(0, 5))]
    info = ['班级：________  姓名：________  学号：______', '姓名：__________  得分：______',
            '班级______ 姓名______ 日期____月____日'][int(rng.integers(0, 3))]
    sec = [f'{CN_NUM[int(rng.integers(0, 4))]}、解答题（每小题{int(rng.integers(3, 9))}分）',
           f'{CN_NUM[int(rng.integers(0, 4))]}、填空题', f'{CN_NUM[int(rng.integers(0, 4))]}、简答题',
           f'{CN_NUM[int(rng.integers(0, 4))]}、计算题']
    return t, info, sec[int(rng.integers(0, len(sec)))]


CIRCLED = '①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳'


def fmt_label(style, n):
    if style == 'fw_dot':
        return f'{n}．'
    if style == 'dot':
        return f'{n}.'
    if style == 'paren':
        return f'（{n}）'
    if style == 'circled':
        return CIRCLED[n - 1]
    if style == 'di':
        return f'第{n}题'
    if style == 'q':
        return f'Q{n}'
    return f'{n}、'


# --------------------------------------------------------------------------------------
# geometry helpers
# --------------------------------------------------------------------------------------
def tf(H, pts):
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    ph = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return ph[:, :2] / ph[:, 2:3]


def corners(b):
    return [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]


def ov(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if (w > 0 and h > 0) else 0.0


def grow(b, d):
    return [b[0] - d, b[1] - d, b[2] + d, b[3] + d]


def poly_dist(pt, poly):
    """Distance from point to convex polygon (0 if inside)."""
    inside = cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2), (float(pt[0]), float(pt[1])), True)
    return max(0.0, -inside)


# --------------------------------------------------------------------------------------
# page planning
# --------------------------------------------------------------------------------------
def is_english_q(q):
    return sum(1 for c in q if is_cjk(c)) < 3


def choose_neighbours(rng, bank, framed, k, used):
    fq = framed['question']
    subj = [b for b in bank if b['subject'] == framed['subject']]
    out = []
    tries = 0
    while len(out) < k and tries < 400:
        tries += 1
        pool = subj if (rng.random() < 0.65 and len(subj) > 3) else bank
        c = pool[int(rng.integers(0, len(pool)))]
        if c['id'] == framed['id'] or c['id'] in used:
            continue
        if difflib.SequenceMatcher(None, c['question'], fq).ratio() > 0.72:
            continue
        used.add(c['id'])
        out.append(c)
    return out


def make_page(rng, bank, framed, pcfg):
    """Build a page layout. Returns dict with blocks, extra ops, obstacles, dims."""
    st = pcfg['st']
    fs, lh = st['fs'], st['lh']
    ncol = pcfg['ncol']
    colw = pcfg['colw']
    gutter = pcfg['gutter']
    ml, mr = pcfg['ml'], pcfg['mr']
    W_page = ml + ncol * colw + (ncol - 1) * gutter + mr
    fcol = pcfg['fcol']
    ph_page = pcfg['view_h']          # photo height in page px
    used = {framed['id']}
    extra_ops, extra_rules, extra_obst = [], [], []
    header_blanks = []
    y = pcfg['mt']
    english = is_english_q(framed['question'])
    if pcfg['header']:
        t, info, sec = header_texts(rng, framed['subject'], english)
        tsz = int(fs * rng.uniform(1.15, 1.45))
        hst = dict(st)
        hst['fs'] = tsz
        hst['cjk'] = BOLD_OF.get(st['cjk'], st['cjk'])
        tu = make_units(t, hst, size=tsz)
        tw = sum(u['w'] for u in tu)
        x0 = (W_page - tw) / 2 if rng.random() < 0.75 else ml
        base = y + tsz
        place_units(tu, x0, base, extra_ops, extra_rules, hst)
        extra_obst.append([x0, base - tsz, x0 + tw, base + 0.2 * tsz])
        y = base + tsz * 0.6
        isz = int(fs * rng.uniform(0.85, 1.0))
        ist = dict(st)
        ist['fs'] = isz
        iu = make_units(info, ist, size=isz, blank_em=None, rng=rng)
        iw = sum(u['w'] for u in iu)
        x0 = (W_page - iw) / 2 if rng.random() < 0.6 else ml
        base = y + isz
        pl = place_units(iu, x0, base, extra_ops, extra_rules, ist)
        prev = ''
        for u, a, b in pl:
            if u['kind'] == 'blank':
                header_blanks.append([a, b, base + 0.13 * isz, base, ('姓名' in prev[-4:] or 'Name' in prev[-6:])])
                prev = ''
            elif u['kind'] == 'ch':
                prev += u['ch']
        extra_obst.append([x0, base - isz, x0 + iw, base + 0.2 * isz])
        y = base + isz * 0.8
        if rng.random() < 0.5:
            extra_rules.append((ml * 0.6, W_page - mr * 0.6, y, max(1, int(fs / 16))))
            y += fs * 0.6
        if rng.random() < 0.6:
            ssz = int(fs * rng.uniform(0.95, 1.1))
            sst = dict(st)
            sst['fs'] = ssz
            sst['cjk'] = BOLD_OF.get(st['cjk'], st['cjk'])
            su = make_units(sec, sst, size=ssz)
            base = y + ssz * 1.1
            place_units(su, ml, base, extra_ops, extra_rules, sst)
            extra_obst.append([ml, base - ssz, ml + sum(u['w'] for u in su), base + 0.2 * ssz])
            y = base + ssz * 0.7
    y_start = y + fs * 0.4

    def gap_after():
        g = lh * float(rng.choice([0.35, 0.6, 1.0, 1.5, 2.2, 3.0], p=[0.18, 0.22, 0.22, 0.18, 0.12, 0.08]))
        return min(g, 0.26 * ph_page)

    # decide sequences (heights estimated with a provisional label)
    def est_h(item):
        b = layout_block(item, fmt_label(st['numstyle'], 8), pcfg['score_fmt'], st, colw, rng,
                         pcfg['bracket_all'], 0, 0)
        return b['box'][3] - b['box'][1]

    fh = est_h(framed)
    above, below = [], []
    tgt_above = 0 if pcfg['at_top'] else rng.uniform(0.35, 1.15) * ph_page
    tgt_below = 0 if pcfg['at_bottom'] else rng.uniform(0.4, 1.2) * ph_page
    if pcfg['at_top'] and pcfg['at_bottom']:
        tgt_below = 0.5 * ph_page
    acc = 0.0
    while acc < tgt_above and len(above) < 12:
        nb = choose_neighbours(rng, bank, framed, 1, used)
        if not nb:
            break
        above.append(nb[0])
        acc += est_h(nb[0]) + lh
    acc = 0.0
    while acc < tgt_below and len(below) < 12:
        nb = choose_neighbours(rng, bank, framed, 1, used)
        if not nb:
            break
        below.append(nb[0])
        acc += est_h(nb[0]) + lh
    if not above and not below:
        below = choose_neighbours(rng, bank, framed, 2, used)
    seq = list(reversed(above)) + [framed] + below
    fidx = len(above)
    cols = [None] * ncol
    cols[fcol] = seq
    if ncol == 2:
        other = 1 - fcol
        tot = sum(est_h(it) + lh for it in seq)
        oseq = []
        acc = 0.0
        while acc < tot * rng.uniform(0.85, 1.1) and len(oseq) < 16:
            nb = choose_neighbours(rng, bank, framed, 1, used)
            if not nb:
                break
            oseq.append(nb[0])
            acc += est_h(nb[0]) + lh
        cols[other] = oseq
    # numbering and layout
    n0 = pcfg['n0']
    if st['numstyle'] == 'circled' and n0 + sum(len(c) for c in cols) - 1 > 20:
        st['numstyle'] = 'paren'
    blocks = []
    framed_block = None
    num = n0
    col_x = [ml + c * (colw + gutter) for c in range(ncol)]
    ymax = y_start
    for c in range(ncol):
        yy = y_start
        for k, it in enumerate(cols[c]):
            label = fmt_label(st['numstyle'], num)
            num += 1
            is_f = (c == fcol and k == fidx)
            br = pcfg['bracket_all'] or (is_f and pcfg['bracket_framed']) or \
                (not is_f and pcfg['bracket_some'] and rng.random() < 0.35)
            b = layout_block(it, label, pcfg['score_fmt'], st, colw, rng, br, col_x[c], yy)
            dy = yy - b['box'][1]
            shift_block(b, 0, dy)
            b['col'] = c
            b['framed'] = is_f
            b['col_x'] = col_x[c]
            blocks.append(b)
            if is_f:
                framed_block = b
            g = gap_after()
            if is_f and pcfg['gap_framed']:
                g = max(g, pcfg['gap_framed'] * lh)
            b['gap_after'] = g
            yy = b['box'][3] + g
        ymax = max(ymax, yy)
    H_page = ymax + pcfg['mb']
    if ncol == 2 and pcfg['col_rule']:
        xr = ml + colw + gutter / 2
        extra_rules.append((None, xr, (y_start, ymax), max(1, int(fs / 18))))
    footer = None
    if pcfg['footer']:
        ftxt = [f'第 {int(rng.integers(1, 5))} 页', f'— {int(rng.integers(1, 9))} —', f'{int(rng.integers(1, 9))}'][int(rng.integers(0, 3))]
        fsz = int(fs * 0.8)
        fst = dict(st)
        fst['fs'] = fsz
        fu = make_units(ftxt, fst, size=fsz)
        fw = sum(u['w'] for u in fu)
        base = ymax + pcfg['mb'] * 0.5
        place_units(fu, (W_page - fw) / 2, base, extra_ops, extra_rules, fst)
        extra_obst.append([(W_page - fw) / 2, base - fsz, (W_page + fw) / 2, base + 0.2 * fsz])
        footer = ftxt
    return dict(blocks=blocks, framed=framed_block, W=W_page, H=H_page, extra_ops=extra_ops,
                extra_rules=extra_rules, extra_obst=extra_obst, header_blanks=header_blanks,
                y_start=y_start, col_x=col_x)


# --------------------------------------------------------------------------------------
# camera
# --------------------------------------------------------------------------------------
def build_H(center, W, H, s, theta, px, py):
    c, sn = math.cos(math.radians(theta)), math.sin(math.radians(theta))
    A_ = np.array([[s * c, -s * sn, 0], [s * sn, s * c, 0], [0, 0, 1]], np.float64)
    T1 = np.array([[1, 0, -center[0]], [0, 1, -center[1]], [0, 0, 1]], np.float64)
    P = np.array([[1, 0, 0], [0, 1, 0], [px, py, 1]], np.float64)
    T2 = np.array([[1, 0, W / 2], [0, 1, H / 2], [0, 0, 1]], np.float64)
    return T2 @ P @ A_ @ T1


def check_camera(Hm, page, W, H):
    m = max(12, 0.02 * W)
    fb = page['framed']
    fpoly = tf(Hm, corners(fb['box']))
    if fpoly[:, 0].min() < m or fpoly[:, 1].min() < m or fpoly[:, 0].max() > W - m or fpoly[:, 1].max() > H - m:
        return False
    ctr = np.array([W / 2, H / 2])
    fc = tf(Hm, [((fb['box'][0] + fb['box'][2]) / 2, (fb['box'][1] + fb['box'][3]) / 2)])[0]
    dfc = np.hypot(*(fc - ctr))
    dfp = poly_dist(ctr, fpoly)
    visible_nb = 0
    for b in page['blocks']:
        if b is fb:
            continue
        bc = tf(Hm, [((b['box'][0] + b['box'][2]) / 2, (b['box'][1] + b['box'][3]) / 2)])[0]
        d = np.hypot(*(bc - ctr))
        if d < dfc * 1.3 + 30:
            return False
        bpoly = tf(Hm, corners(b['box']))
        if poly_dist(ctr, bpoly) < dfp + 25:
            return False
        bx0, by0, bx1, by1 = b['box']
        gx = np.linspace(bx0, bx1, 5)
        gy = np.linspace(by0, by1, 3)
        pts = tf(Hm, [(a, c) for a in gx for c in gy])
        if np.any((pts[:, 0] > 0) & (pts[:, 0] < W) & (pts[:, 1] > 0) & (pts[:, 1] < H)):
            visible_nb += 1
    return visible_nb >= 1


# --------------------------------------------------------------------------------------
# annotation planning (page coords)
# --------------------------------------------------------------------------------------
class Annot:
    def __init__(self):
        self.hw = []          # HW objects (page coords), layer from hw.tool (+ 'note' flag)
        self.note_hw = []
        self.hl = []          # (pts, thick, color)
        self.notes = []       # (poly Nx2, color)
        self.smudges = []     # (cx, cy, rx, ry, ang)
        self.faint = []       # faint erased pencil HW
        self.tags = []


def plan_annotations(rng, page, st, Hm, W, H, flags, inks):
    fs = st['fs']
    an = Annot()
    fb = page['framed']
    blocks = page['blocks']
    framed_rects = [c[2:6] for c in fb['chars']] + [fb['label_box']]
    if fb['score_box']:
        framed_rects.append(fb['score_box'])
    print_rects = [l[:4] for b in blocks if b is not fb for l in b['lines']] + \
                  [b['label_box'] for b in blocks if b is not fb] + page['extra_obst'] + \
                  [b['bracket'][:4] for b in blocks if b['bracket'] and b is not fb]
    ink_rects = []

    def vis(rect, frac=0.8):
        pts = tf(Hm, corners(rect))
        m = 4
        ok = (pts[:, 0] > m) & (pts[:, 0] < W - m) & (pts[:, 1] > m) & (pts[:, 1] < H - m)
        return ok.mean() >= frac

    def free(rect, allow_print=0.06, pad=4):
        r = grow(rect, pad)
        for fr in framed_rects:
            if ov(r, grow(fr, 2)) > 0:
                return False
        area = max(1.0, (rect[2] - rect[0]) * (rect[3] - rect[1]))
        po = sum(ov(rect, p) for p in print_rects)
        if po > allow_print * area:
            return False
        for q in ink_rects:
            if ov(r, q) > 0:
                return False
        if rect[0] < 4 or rect[2] > page['W'] - 4 or rect[1] < 4 or rect[3] > page['H'] - 4:
            return False
        return True

    def pick_tool():
        return inks[int(rng.integers(0, len(inks)))]

    def place(obj, regions, tries=40, allow_print=0.06, need_vis=0.85):
        bb = obj.bbox()
        w, h = bb[2] - bb[0], bb[3] - bb[1]
        for _ in range(tries):
            rg = regions[int(rng.integers(0, len(regions)))]
            x0, y0, x1, y1 = rg
            if x1 - x0 < w or y1 - y0 < h:
                continue
            x = rng.uniform(x0, x1 - w)
            y = rng.uniform(y0, y1 - h)
            rect = [x, y, x + w, y + h]
            if not free(rect, allow_print):
                continue
            if not vis(rect, need_vis):
                continue
            ink_rects.append(rect)
            return obj.moved(x - bb[0], y - bb[1]), rect
        return None, None

    # gap regions between problems
    gaps = []
    for b in blocks:
        cx0 = b['col_x']
        cx1 = cx0 + st['colw']
        y0 = b['box'][3] + fs * 0.15
        nxt = [o['box'][1] for o in blocks if o['col'] == b['col'] and o['box'][1] > b['box'][3] - 1]
        y1 = (min(nxt) - fs * 0.1) if nxt else min(page['H'] - 10, y0 + 6 * fs)
        if y1 - y0 > fs * 0.7:
            gaps.append([cx0, y0, cx1, y1])
        # space right of the last line
        ll = b['lines'][-1]
        if cx1 - ll[2] > 4 * fs and not b['bracket']:
            gaps.append([ll[2] + fs * 0.6, ll[1] - fs * 0.1, cx1, ll[3] + fs * 0.3])
    margins = [[6, 0, page['col_x'][0] - fs * 0.25, page['H']]]
    right_edge = page['col_x'][-1] + st['colw']
    if page['W'] - right_edge > 2 * fs:
        margins.append([right_edge + fs * 0.3, 0, page['W'] - 6, page['H']])
    hh = lambda: fs * rng.uniform(0.72, 1.08)   # handwriting cap height

    def new_hw(tool):
        h = hh()
        return h, hw_style(rng, tool, h)

    def color_of(tool):
        if tool == 'pencil':
            return flags['pencil_col']
        return flags['pen_cols'][int(rng.integers(0, len(flags['pen_cols'])))]

    # 1. answers in blanks / brackets
    if flags['answer']:
        targets = []
        for b in blocks:
            for bl in b['blanks']:
                targets.append(('blank', b, bl))
            if b['bracket']:
                targets.append(('bracket', b, b['bracket']))
        fr_t = [t for t in targets if t[1] is fb]
        nb_t = [t for t in targets if t[1] is not fb]
        chosen = []
        if fr_t and rng.random() < 0.8:
            chosen += fr_t[:1 + int(rng.integers(0, len(fr_t)))]
        for t in nb_t:
            if rng.random() < 0.55:
                chosen.append(t)
        for kind, b, geom in chosen:
            tool = pick_tool()
            h, hs = new_hw(tool)
            if kind == 'blank':
                q = b['item']['question']
                if '"since" or "for"' in q:
                    pool = ['since', 'for', 'since']
                elif '"a" or "an"' in q:
                    pool = ['an', 'a', 'an']
                elif '(go / goes / went)' in q:
                    pool = ['goes', 'went', 'go']
                elif is_english_q(q):
                    pool = HW_ANS_WORDS
                else:
                    pool = HW_ANS_SHORT
                txt = pool[int(rng.integers(0, len(pool)))]
                o = hw_text(txt, h * 0.9, rng, hs, color_of(tool))
                bb = o.bbox()
                cx = (geom[0] + geom[1]) / 2
                o = o.moved(cx - (bb[0] + bb[2]) / 2 + rng.normal(0, fs * 0.2), geom[2] - fs * rng.uniform(0.08, 0.2))
                if vis(o.bbox(), 0.9):
                    an.tags.append('answer_in_blank' + ('_framed' if b is fb else '_neighbour'))
            else:
                if flags['circled_letter'] and rng.random() < 0.5:
                    txt = 'ABCD'[int(rng.integers(0, 4))]
                else:
                    txt = HW_ANS_SHORT[int(rng.integers(0, len(HW_ANS_SHORT)))]
                o = hw_text(txt, h, rng, hs, color_of(tool))
                bb = o.bbox()
                cx = (geom[0] + geom[2]) / 2
                o = o.moved(cx - (bb[0] + bb[2]) / 2, geom[4] - fs * 0.05)
                if len(txt) == 1 and txt in 'ABCD' and flags['circled_letter']:
                    bb2 = o.bbox()
                    o.add(hw_ellipse((bb2[0] + bb2[2]) / 2, (bb2[1] + bb2[3]) / 2, (bb2[2] - bb2[0]) * 0.9 + 3,
                                     (bb2[3] - bb2[1]) * 0.7 + 3, rng, tool, o.color, hs['thick']))
                    if vis(o.bbox(), 0.9):
                        an.tags.append('circled_letter')
                if vis(o.bbox(), 0.9):
                    an.tags.append('answer_in_bracket' + ('_framed' if b is fb else '_neighbour'))
            an.hw.append(o)
            ink_rects.append(o.bbox())
    if flags['circled_letter'] and 'circled_letter' not in an.tags:
        tool = pick_tool()
        h, hs = new_hw(tool)
        o = hw_text('ABCD'[int(rng.integers(0, 4))], h, rng, hs, color_of(tool))
        bb = o.bbox()
        o.add(hw_ellipse((bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2, (bb[2] - bb[0]) * 0.9 + 3,
                         (bb[3] - bb[1]) * 0.7 + 3, rng, tool, o.color, hs['thick']))
        po, rect = place(o, margins + gaps)
        if po is not None:
            an.hw.append(po)
            an.tags.append('circled_letter')
    # circled option word (questions with "(go / goes / went)")
    if flags['circle_option']:
        q = fb['item']['question']
        m = re.search(r'\(([a-z]+) / ([a-z]+) / ([a-z]+)\)', q)
        if m:
            g = int(rng.integers(1, 4))
            i0, i1 = m.start(g), m.end(g)
            cs = [c for c in fb['chars'] if i0 <= c[0] < i1]
            if cs:
                x0 = min(c[2] for c in cs)
                x1 = max(c[4] for c in cs)
                yb = cs[0][6]
                tool = pick_tool()
                an.hw.append(hw_ellipse((x0 + x1) / 2, yb - 0.35 * fs, (x1 - x0) / 2 + fs * 0.25, fs * 0.62, rng,
                                        tool, color_of(tool), max(1, int(fs / 14))))
                an.tags.append('circled_option_word')
    # 2. circle round framed number
    if flags['circle_number']:
        lb = fb['label_box']
        tool = pick_tool()
        an.hw.append(hw_ellipse((lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2, (lb[2] - lb[0]) / 2 + fs * 0.3,
                                (lb[3] - lb[1]) / 2 + fs * 0.2, rng, tool, color_of(tool), max(1, int(fs / 14))))
        an.tags.append('circle_number')
    # 3. highlighter over words of the framed problem
    if flags['highlight']:
        nstroke = 1 + int(rng.random() < 0.4)
        cols = flags['hl_cols']
        for _ in range(nstroke):
            li = int(rng.integers(0, fb['nlines']))
            cs = [c for c in fb['chars'] if c[7] == li]
            if len(cs) < 2:
                continue
            L = int(rng.integers(2, min(12, len(cs)) + 1))
            s0 = int(rng.integers(0, len(cs) - L + 1))
            seg = cs[s0:s0 + L]
            x0, x1 = seg[0][2] - fs * 0.1, seg[-1][4] + fs * 0.1
            yb = seg[0][6]
            ym = yb - 0.38 * fs + rng.normal(0, 0.05 * fs)
            tilt = rng.normal(0, 0.02) * (x1 - x0)
            n = 6
            xs = np.linspace(x0, x1, n)
            ys = np.linspace(ym - tilt / 2, ym + tilt / 2, n) + rng.normal(0, 0.03 * fs, n)
            an.hl.append((np.stack([xs, ys], 1), max(3, int(fs * rng.uniform(0.8, 1.05))), cols[int(rng.integers(0, len(cols)))]))
        an.tags.append('highlighter')
    # 4. pen underline under framed words
    if flags['underline']:
        li = int(rng.integers(0, fb['nlines']))
        cs = [c for c in fb['chars'] if c[7] == li]
        if len(cs) >= 2:
            L = int(rng.integers(2, min(14, len(cs)) + 1))
            s0 = int(rng.integers(0, len(cs) - L + 1))
            seg = cs[s0:s0 + L]
            yb = seg[0][6] + fs * rng.uniform(0.2, 0.3)
            tool = pick_tool()
            wav = fs * 0.08 if rng.random() < 0.25 else 0.0
            o = hw_line((seg[0][2], yb), (seg[-1][4], yb + rng.normal(0, fs * 0.05)), rng, tool, color_of(tool),
                        max(1, int(fs / 16)), wav=wav, n=14)
            if rng.random() < 0.2:
                o.add(hw_line((seg[0][2], yb + fs * 0.12), (seg[-1][4], yb + fs * 0.12), rng, tool, o.color, max(1, int(fs / 16))))
            an.hw.append(o)
            an.tags.append('underline')
    # 5. working directly under framed last line
    if flags['under_framed']:
        tool = pick_tool()
        h, hs = new_hw(tool)
        txt = working_line(rng)
        o = hw_text(txt, h, rng, hs, color_of(tool))
        bb = o.bbox()
        xs = fb['lines'][-1][0] + rng.uniform(0, 3) * fs
        ytop = fb['box'][3] + fs * rng.uniform(0.05, 0.3)
        o = o.moved(xs - bb[0], ytop - bb[1])
        an.hw.append(o)
        ink_rects.append(o.bbox())
        an.tags.append('working_under_framed')
        if rng.random() < 0.5:
            o2 = hw_text(working_line(rng), h, rng, hs, o.color)
            b2 = o2.bbox()
            o2 = o2.moved(xs - b2[0] + rng.normal(0, fs * 0.2), o.bbox()[3] + fs * 0.2 - b2[1])
            if o2.bbox()[3] < fb['box'][3] + fb['gap_after'] - fs * 0.1:
                an.hw.append(o2)
                ink_rects.append(o2.bbox())
    # 6. working in gaps and margins
    if flags['working']:
        n = int(rng.integers(1, 6))
        for k in range(n):
            tool = pick_tool()
            h, hs = new_hw(tool)
            nl = 1 + int(rng.random() < 0.35)
            o = HW(tool, color_of(tool))
            yb = 0.0
            for j in range(nl):
                t = working_line(rng)
                oj = hw_text(t, h, rng, hs, o.color)
                o.add(oj.moved(rng.normal(0, 0.3 * h), yb))
                yb += h * rng.uniform(1.5, 1.9)
            crossed = flags['crossed'] and rng.random() < 0.45
            if crossed:
                bb = o.bbox()
                if rng.random() < 0.6:
                    ym = (bb[1] + bb[3]) / 2
                    o.add(hw_line((bb[0] - 3, ym + rng.normal(0, 2)), (bb[2] + 3, ym + rng.normal(0, 3)), rng, tool,
                                  o.color, hs['thick']))
                    if rng.random() < 0.4:
                        o.add(hw_line((bb[0] - 3, ym + h * 0.25), (bb[2] + 3, ym + h * 0.2), rng, tool, o.color, hs['thick']))
                else:
                    zz = []
                    nz = max(3, int((bb[2] - bb[0]) / (h * 0.5)))
                    for z in range(nz + 1):
                        zz.append((bb[0] + (bb[2] - bb[0]) * z / nz, bb[1] + h * 0.2 if z % 2 == 0 else bb[3] - h * 0.2))
                    o.polys.append((chaikin(np.array(zz) + rng.normal(0, 1.5, (len(zz), 2)), 1), hs['thick']))
            regs = gaps + (margins if rng.random() < 0.35 else [])
            po, rect = place(o, regs)
            if po is not None:
                an.hw.append(po)
                an.tags.append('working_gap_or_margin')
                if crossed:
                    an.tags.append('crossed_out')
    # 7. margin marks (star / arrow / check / question mark) next to the framed problem
    if flags['margin_mark']:
        tool = pick_tool()
        col = color_of(tool)
        lb = fb['label_box']
        kind = ['star', 'arrow', 'check', 'qmark'][int(rng.integers(0, 4))]
        r = fs * rng.uniform(0.6, 0.9)
        if kind == 'star':
            o = hw_star(0, 0, r, rng, tool, col, max(1, int(fs / 16)))
        elif kind == 'arrow':
            o = hw_arrow(0, 0, r * 2.6, rng.normal(0, r * 0.3), rng, tool, col, max(1, int(fs / 16)))
        elif kind == 'check':
            o = hw_check(0, 0, r * 1.6, rng, tool, col, max(1, int(fs / 15)))
        else:
            h, hs = new_hw(tool)
            o = hw_text('?', h * 1.2, rng, hs, col)
        bb = o.bbox()
        w = bb[2] - bb[0]
        hgt = bb[3] - bb[1]
        tx = lb[0] - fs * rng.uniform(0.25, 0.6) - w
        ty = (lb[1] + lb[3]) / 2 - hgt / 2 + rng.normal(0, fs * 0.2)
        rect = [tx, ty, tx + w, ty + hgt]
        if tx > 4 and free(rect, 0.1, pad=1) and vis(rect, 0.9):
            an.hw.append(o.moved(tx - bb[0], ty - bb[1]))
            ink_rects.append(rect)
            an.tags.append('margin_' + kind)
        else:
            po, rect = place(o, margins + gaps)
            if po is not None:
                an.hw.append(po)
                an.tags.append('margin_' + kind)
    # 8. header name
    if page['header_blanks'] and rng.random() < 0.7:
        hbs = [b for b in page['header_blanks'] if b[4]] or page['header_blanks']
        hb = hbs[0]
        tool = pick_tool()
        h, hs = new_hw(tool)
        o = hw_text(HW_NAMES[int(rng.integers(0, len(HW_NAMES)))], h, rng, hs, color_of(tool))
        bb = o.bbox()
        o = o.moved((hb[0] + hb[1]) / 2 - (bb[0] + bb[2]) / 2, hb[2] - fs * 0.12)
        an.hw.append(o)
        if vis(o.bbox(), 0.9):
            an.tags.append('header_name')
    # 9. eraser smudge (with faint erased pencil)
    if flags['smudge']:
        rw, rh = fs * rng.uniform(2.5, 6), fs * rng.uniform(0.9, 2.0)
        dummy = HW('pencil', flags['pencil_col'])
        dummy.polys.append((np.array([[0, 0], [rw, rh]]), 1))
        po, rect = place(dummy, gaps + margins, allow_print=0.25, need_vis=0.9)
        if po is not None:
            cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
            an.smudges.append((cx, cy, rw / 2, rh / 2, rng.normal(0, 10)))
            h, hs = new_hw('pencil')
            f = hw_text(working_line(rng), h, rng, hs, flags['pencil_col'])
            bb = f.bbox()
            an.faint.append(f.moved(cx - (bb[0] + bb[2]) / 2, cy - (bb[1] + bb[3]) / 2))
            an.tags.append('eraser_smudge')
    # 10. sticky note partly over a neighbouring problem
    if flags['sticky']:
        fbx = grow(fb['box'], fs * 0.6)
        nbs = [b for b in blocks if b is not fb]
        for _ in range(60):
            b = nbs[int(rng.integers(0, len(nbs)))]
            nw, nh = fs * rng.uniform(3.5, 6.5), fs * rng.uniform(2.6, 4.2)
            bx0, by0, bx1, by1 = b['box']
            cx = rng.uniform(bx0 + (bx1 - bx0) * 0.3, bx1 + nw * 0.3)
            cy = rng.uniform(by0 - nh * 0.2, by1 + nh * 0.2)
            ang = math.radians(rng.normal(0, 6))
            c_, s_ = math.cos(ang), math.sin(ang)
            pts = np.array([[-nw / 2, -nh / 2], [nw / 2, -nh / 2], [nw / 2, nh / 2], [-nw / 2, nh / 2]])
            poly = np.stack([cx + pts[:, 0] * c_ - pts[:, 1] * s_, cy + pts[:, 0] * s_ + pts[:, 1] * c_], 1)
            rect = [poly[:, 0].min(), poly[:, 1].min(), poly[:, 0].max(), poly[:, 1].max()]
            if ov(rect, fbx) > 0:
                continue
            if ov(rect, b['box']) < 0.15 * (rect[2] - rect[0]) * (rect[3] - rect[1]):
                continue
            if not vis(rect, 0.6):
                continue
            if any(ov(rect, q) > 0 for q in ink_rects):
                continue
            ncol_ = flags['note_col']
            an.notes.append((poly, ncol_))
            ink_rects.append(rect)
            tool = 'pen' if 'pen' in inks else 'pencil'
            h, hs = new_hw(tool)
            o = hw_text(HW_NOTE[int(rng.integers(0, len(HW_NOTE)))], h * 0.85, rng, hs, color_of(tool))
            bbn = o.bbox()
            if bbn[2] - bbn[0] < nw * 0.9:
                an.note_hw.append(o.moved(cx - (bbn[0] + bbn[2]) / 2, cy - (bbn[1] + bbn[3]) / 2))
            an.tags.append('sticky_note')
            break
    for o in an.hw:
        an.tags.append('ink_' + o.tool)
    return an


# --------------------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------------------
def draw_hw_cov(cov, o, ox, oy):
    Hh, Ww = cov.shape
    for p, t in o.polys:
        q = np.round((p - np.array([ox, oy])) * 16).astype(np.int32)
        cv2.polylines(cov, [q.reshape(-1, 1, 2)], False, 255, int(t), cv2.LINE_AA, 4)
    for m, x, y in o.masks:
        x0, y0 = int(round(x - ox)), int(round(y - oy))
        h, w = m.shape
        a0, b0 = max(0, x0), max(0, y0)
        a1, b1 = min(Ww, x0 + w), min(Hh, y0 + h)
        if a1 <= a0 or b1 <= b0:
            continue
        sub = m[b0 - y0:b1 - y0, a0 - x0:a1 - x0]
        np.maximum(cov[b0:b1, a0:a1], sub, out=cov[b0:b1, a0:a1])


def ink_layer(img, cov, color, alpha):
    a = cov.astype(np.float32) * (alpha / 255.0)
    a3 = a[..., None]
    img *= (1 - a3)
    img += a3 * np.asarray(color, np.float32)[None, None, :]


def render_page(rng, page, st, an, roi, flags):
    rx0, ry0, rx1, ry1 = roi
    w, h = rx1 - rx0, ry1 - ry0
    paper = np.asarray(flags['paper'], np.float32)
    low = cv2.resize(rng.normal(0, 1, (h // 80 + 2, w // 80 + 2)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    img = np.empty((h, w, 3), np.float32)
    img[:] = paper[None, None, :]
    img *= (1 + 0.012 * low)[..., None]
    img += rng.normal(0, 0.008, (h, w, 1)).astype(np.float32)
    # printed text
    covim = Image.new('L', (w, h), 0)
    d = ImageDraw.Draw(covim)
    ops = page['extra_ops'] + [o for b in page['blocks'] for o in b['ops']]
    for (x, y, ch, fk, sz) in ops:
        if y < ry0 - 10 or y > ry1 + 3 * sz or x > rx1 or x < rx0 - 3 * sz:
            continue
        d.text((x - rx0, y - ry0), ch, font=get_font(fk, sz), fill=255, anchor='ls')
    rules = page['extra_rules'] + [r for b in page['blocks'] for r in b['rules']]
    for r in rules:
        if r[0] is None:    # vertical column rule
            _, xr, (ya, yb), th = r
            d.line([(xr - rx0, ya - ry0), (xr - rx0, yb - ry0)], fill=200, width=th)
        else:
            a, c, y, th = r
            d.line([(a - rx0, y - ry0), (c - rx0, y - ry0)], fill=255, width=th)
    pc = np.asarray(covim, np.float32) / 255.0
    dens = flags['print_density'] * (1 + 0.06 * cv2.resize(rng.normal(0, 1, (h // 6 + 2, w // 6 + 2)).astype(np.float32), (w, h)))
    a3 = (pc * np.clip(dens, 0, 1))[..., None]
    img = img * (1 - a3) + a3 * np.asarray(flags['print_ink'], np.float32)
    # highlighter (multiply)
    if an.hl:
        bycol = {}
        for pts, t, col in an.hl:
            bycol.setdefault(col, []).append((pts, t))
        for col, lst in bycol.items():
            cov = np.zeros((h, w), np.uint8)
            for pts, t in lst:
                q = np.round((pts - np.array([rx0, ry0])) * 16).astype(np.int32)
                cv2.polylines(cov, [q.reshape(-1, 1, 2)], False, 255, int(t), cv2.LINE_AA, 4)
            cov = cv2.GaussianBlur(cov, (0, 0), 1.0)
            a = (cov.astype(np.float32) / 255 * flags['hl_alpha'])[..., None]
            img *= (1 - a + a * np.asarray(col, np.float32)[None, None, :])
    # faint erased pencil + smudge
    if an.faint or an.smudges:
        cov = np.zeros((h, w), np.uint8)
        for o in an.faint:
            draw_hw_cov(cov, o, rx0, ry0)
        ink_layer(img, cov, flags['pencil_col'], rng.uniform(0.12, 0.25))
        sm = np.zeros((h, w), np.float32)
        for cx, cy, rxx, ryy, ang in an.smudges:
            cv2.ellipse(sm, (int(cx - rx0), int(cy - ry0)), (int(rxx), int(ryy)), ang, 0, 360, 1.0, -1)
        if sm.any():
            sm = cv2.GaussianBlur(sm, (0, 0), max(2.0, st['fs'] * 0.35))
            tex = 0.7 + 0.3 * cv2.resize(rng.random((h // 4 + 1, w // 4 + 1)).astype(np.float32), (w, h))
            a = (sm * tex * rng.uniform(0.12, 0.22))[..., None]
            img = img * (1 - a) + a * np.array([0.55, 0.54, 0.53], np.float32)
    # pencil / pen
    by = {}
    for o in an.hw:
        by.setdefault((o.tool, tuple(o.color)), []).append(o)
    for (tool, col), lst in sorted(by.items(), key=lambda kv: kv[0][0] != 'pencil'):
        cov = np.zeros((h, w), np.uint8)
        for o in lst:
            draw_hw_cov(cov, o, rx0, ry0)
        if tool == 'pencil':
            tex = 0.55 + 0.45 * rng.random((h, w)).astype(np.float32)
            cov = (cov.astype(np.float32) * tex).astype(np.uint8)
            ink_layer(img, cov, col, flags['pencil_alpha'])
        else:
            ink_layer(img, cov, col, flags['pen_alpha'])
    # sticky notes
    for poly, ncol in an.notes:
        q = np.round((poly - np.array([rx0, ry0])) * 16).astype(np.int32).reshape(-1, 1, 2)
        sh = np.zeros((h, w), np.float32)
        off = np.array([st['fs'] * 0.12, st['fs'] * 0.2]) * 16
        cv2.fillPoly(sh, [(q + off.astype(np.int32))], 1.0, cv2.LINE_AA, 4)
        sh = cv2.GaussianBlur(sh, (0, 0), max(2.0, st['fs'] * 0.25))
        img *= (1 - 0.3 * sh)[..., None]
        m = np.zeros((h, w), np.float32)
        cv2.fillPoly(m, [q], 1.0, cv2.LINE_AA, 4)
        x0, y0 = poly.min(0) - [rx0, ry0]
        x1, y1 = poly.max(0) - [rx0, ry0]
        yy = np.linspace(0, 1, h, dtype=np.float32)[:, None]
        grad = 1.0 - 0.06 * np.clip((yy * h - y0) / max(1, (y1 - y0)), 0, 1)
        notec = np.asarray(ncol, np.float32)[None, None, :] * grad[..., None]
        m3 = m[..., None]
        img = img * (1 - m3) + notec * m3
    if an.note_hw:
        by = {}
        for o in an.note_hw:
            by.setdefault((o.tool, tuple(o.color)), []).append(o)
        for (tool, col), lst in by.items():
            cov = np.zeros((h, w), np.uint8)
            for o in lst:
                draw_hw_cov(cov, o, rx0, ry0)
            ink_layer(img, cov, col, flags['pen_alpha'] if tool == 'pen' else flags['pencil_alpha'])
    return np.clip(img, 0, 1)


def make_desk(rng, W, H):
    kind = ['wood', 'wood', 'laminate', 'dark', 'mat', 'cloth'][int(rng.integers(0, 6))]
    sw, sh = W // 4, H // 4
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    if kind == 'wood':
        base = np.array([rng.uniform(0.45, 0.7), rng.uniform(0.3, 0.45), rng.uniform(0.15, 0.28)], np.float32)
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        nz = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (sw, sh), interpolation=cv2.INTER_CUBIC)
        g = np.sin(v * rng.uniform(0.15, 0.4) + nz * 3 + u * 0.01) * 0.5 + 0.5
        t = (0.82 + 0.22 * g)[..., None]
        img = base[None, None, :] * t
    elif kind == 'laminate':
        base = np.array([rng.uniform(0.75, 0.9)] * 3, np.float32) * np.array([1.0, 0.98, rng.uniform(0.9, 1.0)], np.float32)
        img = np.broadcast_to(base, (sh, sw, 3)).copy()
    elif kind == 'dark':
        base = np.array([rng.uniform(0.12, 0.25)] * 3, np.float32) * np.array([1.0, 1.0, rng.uniform(0.95, 1.15)], np.float32)
        img = np.broadcast_to(base, (sh, sw, 3)).copy()
    elif kind == 'mat':
        base = np.array([0.15, rng.uniform(0.35, 0.45), rng.uniform(0.25, 0.35)], np.float32)
        img = np.broadcast_to(base, (sh, sw, 3)).copy()
        step = rng.uniform(10, 16)
        grid = ((np.mod(xx, step) < 0.6) | (np.mod(yy, step) < 0.6)).astype(np.float32)
        img = img * (1 - 0.35 * grid[..., None]) + 0.35 * grid[..., None] * np.array([0.7, 0.8, 0.7], np.float32)
    else:
        base = np.array([rng.uniform(0.3, 0.6), rng.uniform(0.3, 0.5), rng.uniform(0.35, 0.6)], np.float32)
        img = np.broadcast_to(base, (sh, sw, 3)).copy()
        img = img * (1 + 0.06 * rng.normal(0, 1, (sh, sw, 1)).astype(np.float32))
    low = cv2.resize(rng.normal(0, 1, (4, 4)).astype(np.float32), (sw, sh), interpolation=cv2.INTER_CUBIC)
    img = img * (1 + 0.05 * low[..., None])
    img = cv2.resize(img.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    img += rng.normal(0, 0.01, (H, W, 1)).astype(np.float32)
    return np.clip(img, 0, 1), kind


def photo_effects(rng, img, W, H, flags):
    tags = []
    # illumination field
    f = cv2.resize(rng.uniform(0.9, 1.05, (3, 4)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    gx = np.linspace(-1, 1, W, dtype=np.float32)[None, :]
    gy = np.linspace(-1, 1, H, dtype=np.float32)[:, None]
    lin = 1 + rng.uniform(-0.08, 0.08) * gx + rng.uniform(-0.08, 0.08) * gy
    img *= (f * lin)[..., None]
    if flags['lamp']:
        lx, ly = rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2)
        r2 = (gx - lx) ** 2 + (gy - ly) ** 2
        fall = 1.1 - 0.35 * np.clip(r2 / 4.0, 0, 1)
        img *= fall[..., None]
        img *= np.array([1.06, 0.96, rng.uniform(0.7, 0.82)], np.float32)[None, None, :]
        tags.append('warm_lamp')
    if flags['shadow']:
        m = np.zeros((H // 4, W // 4), np.float32)
        side = int(rng.integers(0, 4))
        w4, h4 = W // 4, H // 4
        d = rng.uniform(0.15, 0.4)
        if side == 0:
            pts = [(0, 0), (w4 * rng.uniform(0.3, 0.9), 0), (w4 * rng.uniform(0.1, 0.6), h4 * d * 2), (0, h4 * rng.uniform(0.2, 0.9))]
        elif side == 1:
            pts = [(w4, 0), (w4, h4 * rng.uniform(0.3, 1)), (w4 * (1 - d), h4 * rng.uniform(0.2, 0.8)), (w4 * rng.uniform(0.4, 0.8), 0)]
        elif side == 2:
            pts = [(0, h4), (w4 * rng.uniform(0.3, 1), h4), (w4 * rng.uniform(0.2, 0.7), h4 * (1 - d)), (0, h4 * rng.uniform(0.3, 0.8))]
        else:
            pts = [(w4, h4), (w4 * rng.uniform(0.2, 0.7), h4), (w4 * rng.uniform(0.5, 0.9), h4 * rng.uniform(0.3, 0.7)), (w4, h4 * rng.uniform(0.2, 0.6))]
        cv2.fillPoly(m, [np.array(pts, np.int32)], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(4, 12))
        m = cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR)
        img *= (1 - rng.uniform(0.25, 0.42) * m)[..., None]
        tags.append('cast_shadow')
    # page curl / slight non-planarity
    if flags['curl']:
        amp = rng.uniform(1.5, 4.0)
        per = rng.uniform(0.6, 1.5) * W
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        dy = amp * np.sin(2 * math.pi * xx / per + rng.uniform(0, 6.28))
        img = cv2.remap(img, xx, yy + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        tags.append('page_curl')
    if flags['dim']:
        img *= rng.uniform(0.42, 0.62)
        img = np.power(np.clip(img, 0, 1), rng.uniform(0.95, 1.1))
        img += rng.normal(0, rng.uniform(0.02, 0.04), (H, W, 1)).astype(np.float32)
        img += rng.normal(0, 0.012, (H, W, 3)).astype(np.float32)
        tags.append('dim_noisy')
    # blur
    if flags['blur'] == 'gauss':
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.6, 1.25))
        tags.append('blur')
    elif flags['blur'] == 'motion':
        L = int(rng.integers(3, 6))
        k = np.zeros((L, L), np.float32)
        k[L // 2, :] = 1
        Mr = cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, Mr, (L, L))
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        tags.append('motion_blur')
    else:
        img = cv2.GaussianBlur(img, (0, 0), 0.45)
    img += rng.normal(0, rng.uniform(0.004, 0.012), (H, W, 1)).astype(np.float32)
    # mild contrast / exposure
    img = (img - 0.5) * rng.uniform(0.92, 1.08) + 0.5 + rng.uniform(-0.03, 0.03)
    return np.clip(img, 0, 1), tags


# --------------------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------------------
LATIN_KEYS = ['dejavu_sans', 'dejavu_serif', 'lib_serif', 'lib_sans', 'dejavu_cond', 'lib_narrow']
CJK_KEYS = ['cjk_sans', 'cjk_serif', 'cjk_sans', 'cjk_serif', 'cjk_mono']
NUMSTYLES = ['fw_dot', 'dot', 'paren', 'circled', 'di', 'q', 'dun']


def make_photo(index, seed, bank, framed, two_col, upside):
    rng = np.random.default_rng([seed, index])
    tags = []
    r = rng.random()
    if r < 0.06:
        W, H = 1600, 1200
    elif r < 0.54:
        W, H = 1280, 960
    else:
        W, H = 960, 1280
    tags.append(f'size_{W}x{H}')
    english = is_english_q(framed['question'])
    cjk = [k for k in CJK_KEYS if font_ok(k)][int(rng.integers(0, 5))] if True else 'cjk_sans'
    latin_opts = [k for k in LATIN_KEYS if font_ok(k)] + [cjk]
    latin = latin_opts[int(rng.integers(0, len(latin_opts)))]
    if cjk == 'cjk_serif' and rng.random() < 0.5:
        latin = 'lib_serif' if font_ok('lib_serif') else latin
    numstyle = NUMSTYLES[int(rng.integers(0, len(NUMSTYLES)))]
    if english and rng.random() < 0.5:
        numstyle = ['dot', 'q'][int(rng.integers(0, 2))]
    tags.append('font_' + cjk + '+' + latin)
    h_ph = rng.uniform(24, 44.5)
    s = rng.uniform(0.9, 1.1)
    score_fmt = None
    if rng.random() < 0.3:
        p = int(rng.integers(2, 11))
        score_fmt = ['（%d分）', '(%d分)', '（本题%d分）', '[%d pts]', '(%d marks)', '（%d分）'][int(rng.integers(0, 5)) if english else [0, 1, 2, 5][int(rng.integers(0, 4))]] % p
        tags.append('score_note')
    flags = {}
    tool_r = rng.random()
    inks = ['pencil'] if tool_r < 0.3 else (['pen'] if tool_r < 0.6 else ['pencil', 'pen'])
    flags['pencil_col'] = (rng.uniform(0.28, 0.42),) * 3
    pen_cols = [(0.08, 0.15, rng.uniform(0.45, 0.62)), (0.07, 0.07, 0.09), (0.12, 0.22, 0.55)]
    flags['pen_cols'] = [pen_cols[int(rng.integers(0, 3))]]
    if rng.random() < 0.25:
        flags['pen_cols'].append(pen_cols[int(rng.integers(0, 3))])
    flags['pencil_alpha'] = rng.uniform(0.62, 0.88)
    flags['pen_alpha'] = rng.uniform(0.85, 0.97)
    flags['hl_alpha'] = rng.uniform(0.35, 0.55)
    hl_all = [(1.0, 0.96, 0.25), (0.55, 1.0, 0.45), (1.0, 0.55, 0.8)]
    flags['hl_cols'] = [hl_all[int(rng.integers(0, 3))]]
    if rng.random() < 0.3:
        flags['hl_cols'].append(hl_all[int(rng.integers(0, 3))])
    flags['note_col'] = [(1.0, 0.93, 0.5), (1.0, 0.78, 0.86), (0.76, 0.95, 0.7), (0.72, 0.87, 1.0), (1.0, 0.8, 0.55)][int(rng.integers(0, 5))]
    flags['paper'] = (rng.uniform(0.9, 0.99),) * 3
    flags['paper'] = (flags['paper'][0], flags['paper'][1] * rng.uniform(0.98, 1.0), flags['paper'][2] * rng.uniform(0.92, 1.0))
    flags['print_ink'] = (rng.uniform(0.06, 0.18),) * 3
    flags['print_density'] = rng.uniform(0.88, 1.0)
    has_blank = '___' in framed['question']
    flags['answer'] = rng.random() < (0.85 if has_blank else 0.6)
    flags['circled_letter'] = rng.random() < 0.3
    flags['circle_option'] = '(go / goes / went)' in framed['question'] and rng.random() < 0.6
    flags['circle_number'] = rng.random() < 0.3
    flags['highlight'] = rng.random() < 0.4
    flags['underline'] = rng.random() < 0.35
    flags['under_framed'] = rng.random() < 0.3
    flags['working'] = rng.random() < 0.88
    flags['crossed'] = rng.random() < 0.45
    flags['margin_mark'] = rng.random() < 0.4
    flags['smudge'] = rng.random() < 0.2
    flags['sticky'] = rng.random() < 0.22
    flags['lamp'] = rng.random() < 0.28
    flags['dim'] = (not flags['lamp'] and rng.random() < 0.22) or (flags['lamp'] and rng.random() < 0.08)
    flags['shadow'] = rng.random() < 0.35
    flags['curl'] = rng.random() < 0.3
    br = rng.random()
    flags['blur'] = 'gauss' if br < 0.45 else ('motion' if br < 0.57 else None)
    bracket_mode = rng.random()
    header = rng.random() < 0.35
    at_top = rng.random() < (0.55 if header else 0.1)
    at_bottom = rng.random() < 0.12
    ncol = 2 if two_col else 1
    fs0 = h_ph / (CJK_H * s)
    page = None
    Hm = None
    for attempt in range(6):
        fs = int(round(max(fs0 * (0.92 ** attempt), 23.0 / (CJK_H * s))))
        lh = fs * rng.uniform(1.45, 1.85)
        rot_max = 12.0 * (0.75 ** attempt)
        wide = False
        if ncol == 1:
            cpl_max = int(0.8 * min(W, H * 1.3) / (s * fs))
            nat = sum(u['w'] for u in make_units(framed['question'], dict(cjk=cjk, latin=latin, fs=fs), blank_em=4.5)) + 5 * fs
            if nat < 0.7 * W / s and rng.random() < 0.55 and attempt < 3:
                cpl_max = int(1.45 * W / (s * fs))
                wide = True
            cpl = max(8, min(int(rng.integers(16, 40)), cpl_max) - 2 * attempt)
        else:
            cpl_max = int(0.8 * W / (s * fs))
            cpl = max(8, min(int(rng.integers(11, 21)), cpl_max) - 2 * attempt)
        colw = cpl * fs
        st = dict(cjk=cjk, latin=latin, fs=fs, lh=lh, numstyle=numstyle, hanging=rng.random() < 0.6,
                  justify=rng.random() < 0.7, label_gap=rng.uniform(0.15, 0.5), label_bold=rng.random() < 0.35,
                  colw=colw, bracket_after=wide, score_scale=rng.uniform(0.75, 0.92))
        n0 = int(rng.integers(1, 26))
        if numstyle == 'circled':
            n0 = int(rng.integers(1, 4))
        pcfg = dict(st=st, ncol=ncol, colw=colw, gutter=fs * rng.uniform(1.5, 3.5), ml=fs * rng.uniform(2.5, 7.0),
                    mr=fs * rng.uniform(1.5, 5.5), mt=fs * rng.uniform(1.5, 4), mb=fs * rng.uniform(2, 5),
                    fcol=int(rng.integers(0, ncol)), view_h=H / s, header=header, at_top=at_top, at_bottom=at_bottom,
                    score_fmt=score_fmt, n0=n0, bracket_all=bracket_mode < 0.15, bracket_framed=bracket_mode < 0.4,
                    bracket_some=bracket_mode < 0.55, gap_framed=rng.uniform(2.4, 3.2) if flags['under_framed'] else 0,
                    col_rule=rng.random() < 0.5, footer=rng.random() < 0.4)
        page = make_page(rng, bank, framed, pcfg)
        fb = page['framed']
        bw, bh = fb['box'][2] - fb['box'][0], fb['box'][3] - fb['box'][1]
        ok = False
        for t in range(40):
            relax = t / 40.0
            if upside:
                theta = 180 + rng.uniform(-rot_max, rot_max) * (1 - 0.5 * relax)
            else:
                theta = float(np.clip(rng.normal(0, 4.5), -rot_max, rot_max)) if rng.random() < 0.85 else \
                    rng.uniform(-rot_max, rot_max)
                theta *= (1 - 0.6 * relax)
            px = rng.uniform(-1, 1) * 0.00017 * (1 - relax) / (W / 1280)
            py = rng.uniform(-1, 1) * 0.00017 * (1 - relax) / (W / 1280)
            jit = 0.3 * (1 - relax)
            cx = (fb['box'][0] + fb['box'][2]) / 2 + rng.uniform(-jit, jit) * bw
            cy = (fb['box'][1] + fb['box'][3]) / 2 + rng.uniform(-jit, jit) * bh
            Hm = build_H((cx, cy), W, H, s, theta, px, py)
            if check_camera(Hm, page, W, H):
                ok = True
                break
        if ok:
            break
        page = None
    if page is None:
        raise RuntimeError('could not place framed problem for photo %d' % index)
    tags.append('two_column' if ncol == 2 else 'one_column')
    tags.append('numstyle_' + st['numstyle'])
    if upside:
        tags.append('upside_down')
    if header and page['extra_obst']:
        hr = page['extra_obst'][0]
        hp = tf(Hm, [((hr[0] + hr[2]) / 2, (hr[1] + hr[3]) / 2)])[0]
        if 0 < hp[0] < W and 0 < hp[1] < H:
            tags.append('header_visible')
    fb = page['framed']
    if fb['nlines'] > 1:
        tags.append('framed_wrapped')
    if fb['bracket']:
        tags.append('framed_answer_bracket')
    q = framed['question']
    if any(c in SUP or c in SUB for c in q):
        tags.append('framed_sub_sup')
    if '___' in q:
        tags.append('framed_blank')
    if len(q) > 60:
        tags.append('framed_over_60_chars')
    # annotations
    an = plan_annotations(rng, page, st, Hm, W, H, flags, inks)
    tags += sorted(set(an.tags))
    # ROI of page seen by the camera
    Hinv = np.linalg.inv(Hm)
    pc = tf(Hinv, [(0, 0), (W, 0), (W, H), (0, H)])
    rx0 = int(max(0, math.floor(pc[:, 0].min()) - 8))
    ry0 = int(max(0, math.floor(pc[:, 1].min()) - 8))
    rx1 = int(min(math.ceil(page['W']), math.ceil(pc[:, 0].max()) + 8))
    ry1 = int(min(math.ceil(page['H']), math.ceil(pc[:, 1].max()) + 8))
    pimg = render_page(rng, page, st, an, (rx0, ry0, rx1, ry1), flags)
    T = np.array([[1, 0, rx0], [0, 1, ry0], [0, 0, 1]], np.float64)
    Hr = Hm @ T
    warped = cv2.warpPerspective(pimg, Hr, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    mask = cv2.warpPerspective(np.ones(pimg.shape[:2], np.float32), Hr, (W, H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    desk, dkind = make_desk(rng, W, H)
    if mask.min() < 0.99:
        tags.append('desk_visible')
        shm = cv2.GaussianBlur(mask, (0, 0), 6)
        Ms = np.float32([[1, 0, rng.uniform(2, 8)], [0, 1, rng.uniform(2, 10)]])
        shm = cv2.warpAffine(shm, Ms, (W, H))
        desk *= (1 - 0.4 * shm)[..., None]
        # another sheet beneath sometimes
    m3 = mask[..., None]
    img = desk * (1 - m3) + warped * m3
    img, etags = photo_effects(rng, img, W, H, flags)
    tags += etags
    q_jpg = int(rng.integers(65, 93))
    tags.append('jpeg_q%d' % (q_jpg // 10 * 10))
    out = (img * 255 + 0.5).astype(np.uint8)
    info = dict(H=Hm, fs=page['blocks'][0]['ops'][0][4] if page['blocks'][0]['ops'] else 0, st_fs=st['fs'],
                framed_box=fb['box'], boxes=[b['box'] for b in page['blocks']], W=W, Hh=H,
                framed_chars=[c[2:6] for c in fb['chars']])
    return out, q_jpg, tags, info


def special(q):
    return any(c in SUP or c in SUB for c in q) or '___' in q or len(q) > 60


def plan_run(bank, count, seed):
    rng = np.random.default_rng(seed)
    sp = [b for b in bank if special(b['question'])]
    ot = [b for b in bank if not special(b['question'])]
    sp = [sp[i] for i in rng.permutation(len(sp))]
    ot = [ot[i] for i in rng.permutation(len(ot))]
    order = sp + ot
    chosen = []
    while len(chosen) < count:
        chosen += order[:count - len(chosen)]
    chosen = [chosen[i] for i in rng.permutation(len(chosen))]
    n2 = int(round(count * 30 / 120))
    nu = int(round(count * 6 / 120))
    two = set(int(i) for i in rng.choice(count, size=n2, replace=False)) if n2 else set()
    ups = set(int(i) for i in rng.choice(count, size=nu, replace=False)) if nu else set()
    return chosen, two, ups


_BANK = None


def _work(args):
    i, seed, out_dir, framed, two, up = args
    t0 = time.time()
    img, q, tags, _info = make_photo(i + 1, seed, _BANK, framed, two, up)
    path = os.path.join(out_dir, 'hw%03d.jpg' % (i + 1))
    Image.fromarray(img).save(path, quality=q)
    return i, tags, time.time() - t0


def main():
    global _BANK
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out_dir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=391)
    ap.add_argument('--jobs', type=int, default=1)
    a = ap.parse_args()
    with open(a.bank, encoding='utf-8') as f:
        bank = [json.loads(l) for l in f if l.strip()]
    _BANK = bank
    os.makedirs(a.out_dir, exist_ok=True)
    chosen, two, ups = plan_run(bank, a.count, a.seed)
    tasks = [(i, a.seed, a.out_dir, chosen[i], i in two, i in ups) for i in range(a.count)]
    t0 = time.time()
    results = {}
    if a.jobs > 1:
        import multiprocessing as mp
        ctx = mp.get_context('fork')
        with ctx.Pool(a.jobs) as pool:
            for i, tags, dt in pool.imap_unordered(_work, tasks, chunksize=1):
                results[i] = tags
    else:
        for t in tasks:
            i, tags, dt = _work(t)
            results[i] = tags
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for i in range(a.count):
            w.writerow(['hw%03d' % (i + 1), chosen[i]['question']])
    with open(os.path.join(a.out_dir, 'queries.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for i in range(a.count):
            w.writerow(['hw%03d' % (i + 1), chosen[i]['question'], chosen[i]['id'], 'exact'])
    cnt = Counter(t for i in range(a.count) for t in set(results[i]))
    print('wrote %d photos to %s in %.1fs' % (a.count, a.out_dir, time.time() - t0))
    for k in sorted(cnt):
        print('  %-34s %d' % (k, cnt[k]))


if __name__ == '__main__':
    main()
