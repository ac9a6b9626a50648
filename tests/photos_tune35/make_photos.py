#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Synthetic phone photos of printed school exam papers.

Every photo frames ONE question of a question bank: that problem is printed
completely inside the photo and its block holds the photo centre.  Around it
there are other bank questions, page furniture, watermarks, sealed-line
margins, figures, emphasis marks, handwriting and phone-camera effects.

    make_photos.py --bank BANK.jsonl OUTDIR --count N --seed S [--jobs J]

See README.md in this folder for the cases and the framing rule.
"""
from __future__ import annotations

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
from functools import lru_cache

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------
NOTO = '/usr/share/fonts/opentype/noto/'
LIB = '/usr/share/fonts/truetype/liberation/'
DJV = '/usr/share/fonts/truetype/dejavu/'
FONT_FILES = {
    'cjk_serif': (NOTO + 'NotoSerifCJK-Regular.ttc', 2),
    'cjk_serif_b': (NOTO + 'NotoSerifCJK-Bold.ttc', 2),
    'cjk_sans': (NOTO + 'NotoSansCJK-Regular.ttc', 2),
    'cjk_sans_b': (NOTO + 'NotoSansCJK-Bold.ttc', 2),
    'libserif': (LIB + 'LiberationSerif-Regular.ttf', 0),
    'libserif_b': (LIB + 'LiberationSerif-Bold.ttf', 0),
    'libserif_i': (LIB + 'LiberationSerif-Italic.ttf', 0),
    'libsans': (LIB + 'LiberationSans-Regular.ttf', 0),
    'libsans_b': (LIB + 'LiberationSans-Bold.ttf', 0),
    'libsans_i': (LIB + 'LiberationSans-Italic.ttf', 0),
    'libnarrow': (LIB + 'LiberationSansNarrow-Regular.ttf', 0),
    'libnarrow_b': (LIB + 'LiberationSansNarrow-Bold.ttf', 0),
    'djserif': (DJV + 'DejaVuSerif.ttf', 0),
    'djserif_b': (DJV + 'DejaVuSerif-Bold.ttf', 0),
    'djsans': (DJV + 'DejaVuSans.ttf', 0),
    'djsans_b': (DJV + 'DejaVuSans-Bold.ttf', 0),
    'djsans_i': (DJV + 'DejaVuSans-Oblique.ttf', 0),
    'djcond': (DJV + 'DejaVuSansCondensed.ttf', 0),
    'djcond_b': (DJV + 'DejaVuSansCondensed-Bold.ttf', 0),
}
BOLD = {k: k + '_b' for k in FONT_FILES if k + '_b' in FONT_FILES}
SERIFISH = {'cjk_serif', 'cjk_serif_b', 'libserif', 'libserif_b', 'libserif_i',
            'djserif', 'djserif_b'}
_COVER: dict = {}


def cover(key):
    c = _COVER.get(key)
    if c is None:
        from fontTools.ttLib import TTFont
        path, idx = FONT_FILES[key]
        if path.endswith('.ttc'):
            f = TTFont(path, fontNumber=idx, lazy=True)
        else:
            f = TTFont(path, lazy=True)
        c = frozenset(f.getBestCmap().keys())
        f.close()
        _COVER[key] = c
    return c


def preload_fonts():
    for k, (p, _) in FONT_FILES.items():
        if not os.path.exists(p):
            raise SystemExit('missing font file: ' + p)
        cover(k)


@lru_cache(maxsize=None)
def font(key, px):
    path, idx = FONT_FILES[key]
    return ImageFont.truetype(path, max(2, int(round(px))), index=idx)


@lru_cache(maxsize=None)
def adv(key, ch):
    """advance width of ch in em"""
    return font(key, 256).getlength(ch) / 256.0


@lru_cache(maxsize=None)
def xheight(key):
    b = font(key, 256).getbbox('x', anchor='ls')
    return -b[1] / 256.0


def is_wide(ch, zh):
    o = ord(ch)
    if (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFE30 <= o <= 0xFE4F
            or 0xFF00 <= o <= 0xFFEF or 0x3000 <= o <= 0x303F):
        return True
    if zh and ch in '“”‘’…—':
        return True
    return ch in '℃★☆●○■□▲△'


def pick_font(ch, st, bold, zh):
    key = st['cjk'] if is_wide(ch, zh) else st['latin']
    if bold:
        key = BOLD.get(key, key)
    if ch in ' \u3000' or ord(ch) in cover(key):
        return key
    if key in SERIFISH:
        alts = ('djserif_b' if bold else 'djserif', st['cjk'], 'djsans', 'cjk_sans')
    else:
        alts = ('djsans_b' if bold else 'djsans', st['cjk'], 'djsans', 'cjk_sans')
    for alt in alts:
        if ord(ch) in cover(alt):
            return alt
    return key


def has_cjk(s):
    return any(0x3400 <= ord(c) <= 0x9FFF for c in s)


# --------------------------------------------------------------------------
# display list helpers.  Coordinates are millimetres on the sheet.
# ops:
#  ('g', x, y, ch, key, em, col)                      glyph on baseline y
#  ('l', pts, w, col, dash)                           polyline
#  ('r', (x0,y0,x1,y1), w, col, fill)                 rectangle
#  ('e', (cx,cy), (rx,ry), w, col, fill)              ellipse
#  ('p', pts, col)                                    filled polygon
#  ('rt', (cx,cy), glyphs, width, em, ang, col, alpha, layer)  rotated text
#  ('hs', pts, w, col, alpha, pencil)                 handwriting stroke
# --------------------------------------------------------------------------

def shift_ops(ops, dx, dy):
    out = []
    for op in ops:
        t = op[0]
        if t == 'g':
            out.append(('g', op[1] + dx, op[2] + dy) + op[3:])
        elif t in ('l', 'p', 'hs'):
            out.append((t, [(x + dx, y + dy) for x, y in op[1]]) + op[2:])
        elif t == 'r':
            b = op[1]
            out.append(('r', (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)) + op[2:])
        elif t in ('e', 'rt'):
            out.append((t, (op[1][0] + dx, op[1][1] + dy)) + op[2:])
        else:
            raise ValueError(t)
    return out


def bshift(b, dx, dy):
    return None if b is None else (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)


def bunion(*bs):
    bs = [b for b in bs if b is not None]
    if not bs:
        return None
    return (min(b[0] for b in bs), min(b[1] for b in bs),
            max(b[2] for b in bs), max(b[3] for b in bs))


def bexpand(b, m):
    return (b[0] - m, b[1] - m, b[2] + m, b[3] + m)


def boverlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


# --------------------------------------------------------------------------
# text runs, atoms, wrapping
# --------------------------------------------------------------------------
CLOSE = set('，。？！：；、）》」』”’,.?!:;)]}%')
OPEN = set('（《「『“‘([{')


def glyphs(text, st, em, zh, bold=False, flags=None, key=None):
    out = []
    for i, ch in enumerate(text):
        f = flags[i] if flags else ''
        if key is not None:
            k = key if (ch in ' \u3000' or ord(ch) in cover(key)) else pick_font(ch, st, bold, zh)
        else:
            k = pick_font(ch, st, bold or ('b' in f), zh)
        out.append([ch, k, adv(k, ch) * em, f])
    return out


def run_width(gl):
    return sum(g[2] for g in gl)


def atomize(gl, zh, role):
    atoms = []
    cur = []

    def flush():
        if cur:
            atoms.append({'k': 'word', 'g': list(cur), 'role': role,
                          'w': run_width(cur)})
            cur.clear()
    for g in gl:
        ch = g[0]
        if ch == ' ':
            flush()
            atoms.append({'k': 'space', 'g': [g], 'role': role, 'w': g[2]})
        elif is_wide(ch, zh):
            flush()
            k = 'close' if ch in CLOSE else ('open' if ch in OPEN else 'word')
            atoms.append({'k': k, 'g': [g], 'role': role, 'w': g[2]})
        else:
            cur.append(g)
    flush()
    return atoms


def fixed_atom(gl, role, right=False):
    return {'k': 'fixed', 'g': gl, 'role': role, 'w': run_width(gl), 'right': right}


def gap_atom(w):
    return {'k': 'gap', 'g': [], 'role': 'gap', 'w': w}


def wrap(atoms, w_first, w_rest, em):
    lines = [[]]
    x = 0.0
    limit = w_first
    for a in atoms:
        aw = a['w']
        line = lines[-1]
        if a['k'] in ('space', 'gap') and a['role'] != 'prefixgap':
            if not line:
                continue
            line.append(a)
            x += aw
            continue
        if (x + aw <= limit + 1e-6 or not any(b['k'] not in ('space', 'gap') for b in line)
                or (a['k'] == 'close' and x + aw <= limit + 0.9 * em)
                or (a['k'] == 'gap')):
            line.append(a)
            x += aw
            continue
        carry = []
        while line and line[-1]['k'] in ('space', 'gap'):
            line.pop()
        if line and line[-1]['k'] == 'open' and len(line) > 1:
            carry.append(line.pop())
        lines.append(carry)
        x = sum(c['w'] for c in carry)
        limit = w_rest
        lines[-1].append(a)
        x += aw
    for line in lines:
        while line and line[-1]['k'] in ('space', 'gap'):
            line.pop()
    return [ln for ln in lines if ln]


# --------------------------------------------------------------------------
# bank / option helpers
# --------------------------------------------------------------------------

def options_for(q):
    m = re.search(r'\(([^()]*/[^()]*)\)\s*$', q)
    if m and q.lower().startswith('choose'):
        return [s.strip() for s in m.group(1).split('/') if s.strip()]
    if 'organelle' in q and q.startswith('Which'):
        return ['nucleus', 'mitochondrion', 'chloroplast', 'ribosome']
    if '省级行政区' in q and '最大' in q:
        return ['新疆维吾尔自治区', '西藏自治区', '内蒙古自治区', '青海省']
    if '省级行政区' in q and '最小' in q:
        return ['澳门特别行政区', '香港特别行政区', '上海市', '海南省']
    if '河流是哪' in q:
        return ['长江', '黄河', '黑龙江', '珠江']
    if '大洋是哪' in q:
        return ['太平洋', '大西洋', '印度洋', '北冰洋']
    if '大洲是哪' in q:
        return ['亚洲', '非洲', '北美洲', '南极洲']
    if '高原是哪' in q:
        return ['青藏高原', '内蒙古高原', '黄土高原', '云贵高原']
    if '哪位皇帝' in q:
        return ['唐太宗', '唐玄宗', '汉武帝', '秦始皇']
    return None


SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'biology': '生物',
           'geography': '地理', 'history': '历史', 'chinese': '语文', 'english': '英语'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry',
           'biology': 'Biology', 'geography': 'Geography', 'history': 'History',
           'chinese': 'Chinese', 'english': 'English'}
GRADE_ZH = {'math': ['三年级', '五年级', '七年级', '八年级', '九年级', '高一'],
            'physics': ['八年级', '九年级', '高一'], 'chemistry': ['九年级', '高一'],
            'biology': ['七年级', '八年级', '高一'], 'geography': ['七年级', '八年级'],
            'history': ['七年级', '八年级', '九年级'], 'chinese': ['五年级', '七年级', '八年级'],
            'english': ['七年级', '八年级', '九年级']}
GRADE_EN = ['Grade 7', 'Grade 8', 'Grade 9', 'Year 10', 'Grade 10']
EXAM_ZH = ['2025—2026学年第一学期期中考试', '2025—2026学年度第一学期期末质量检测',
           '2025—2026学年第二学期第一次月考', '2026年春季学期期中学业水平测试',
           '2025年秋季学期阶段性检测']
EXAM_EN = ['2025–2026 Midterm Examination', 'End-of-Term Examination 2025–2026',
           'Unit Test 3 · Spring 2026', 'Mock Examination 2026']
WM_ZH = ['育才中学 内部资料', '实验中学 内部资料 严禁外传', '启明教育 版权所有 翻印必究',
         '第一中学教务处 内部资料', '内部资料 注意保存', '明德中学 试卷专用']
WM_EN = ['Confidential – Do not copy', 'SAMPLE · Internal Use Only',
         'For Review Only – Not for Distribution', 'Riverside High School · Confidential']
CN_NUM = '一二三四五六七八九十'

THEMES = ['watermark', 'sealed_line', 'furniture', 'figure', 'emphasis', 'layout',
          'handwriting']
FURN_KINDS = ['title_block', 'score_table', 'running_header', 'footer', 'defen_box',
              'section_heading']
FIG_BY_SUBJ = {'math': ['triangle', 'axes', 'bar'], 'physics': ['circuit', 'axes'],
               'chemistry': ['bar', 'axes'], 'biology': ['bar'], 'geography': ['bar', 'axes'],
               'history': ['bar'], 'chinese': ['bar'], 'english': ['bar']}


# --------------------------------------------------------------------------
# planning (main process, from --seed only)
# --------------------------------------------------------------------------

class Deal:
    """deal items from a reshuffled deck: balanced shares of every sub-kind"""

    def __init__(self, rng, items):
        self.rng, self.items, self.deck = rng, list(items), []

    def next(self):
        if not self.deck:
            self.deck = self.items[:]
            self.rng.shuffle(self.deck)
        return self.deck.pop()


def plan_cases(bank, count, seed):
    rng = random.Random(seed)
    d_wm = Deal(rng, ['diagonal', 'tiled'])
    d_seal = Deal(rng, ['left', 'left', 'right'])
    d_furn = Deal(rng, FURN_KINDS)
    d_figpos = Deal(rng, ['beside', 'beside', 'below'])
    d_layout = Deal(rng, ['a3_spread', 'a3_spread', 'two_column', 'corner_qr', 'corner_barcode',
                          'corner_logo'])
    d_hand = Deal(rng, ['', '', 'tick', 'circle'])
    d_corner_side = Deal(rng, ['left', 'right'])
    order = []
    while len(order) < count:
        idx = list(range(len(bank)))
        rng.shuffle(idx)
        order += idx
    prim = []
    while len(prim) < count:
        t = THEMES[:]
        rng.shuffle(t)
        prim += t
    cases = []
    for i in range(count):
        q = bank[order[i]]
        zh = has_cjk(q['question'])
        themes = {prim[i]}
        for t in THEMES:
            if t != prim[i] and rng.random() < 0.22:
                themes.add(t)
        c = {'i': i, 'qid': 'ex%03d' % (i + 1), 'bank_index': order[i], 'id': q['id'],
             'primary': prim[i], 'themes': [t for t in THEMES if t in themes],
             'pseed': rng.randrange(1 << 30)}
        c['watermark'] = d_wm.next() if 'watermark' in themes else ''
        c['seal'] = d_seal.next() if 'sealed_line' in themes else ''
        if 'furniture' in themes:
            fk = [d_furn.next()]
            if rng.random() < 0.5:
                fk.append(rng.choice(FURN_KINDS))
            c['furniture'] = list(dict.fromkeys(fk))
        else:
            c['furniture'] = []
        if 'figure' in themes:
            c['figure'] = rng.choice(FIG_BY_SUBJ.get(q.get('subject'), ['bar', 'axes']))
            c['figure_pos'] = d_figpos.next()
        else:
            c['figure'] = ''
            c['figure_pos'] = ''
        if 'emphasis' in themes:
            kinds = ['dots', 'bold', 'underline', 'wavy'] if zh else ['bold', 'underline', 'wavy']
            e = [rng.choice(kinds)]
            if rng.random() < 0.35:
                e.append(rng.choice(kinds))
            c['emphasis'] = list(dict.fromkeys(e))
        else:
            c['emphasis'] = []
        if 'layout' in themes:
            c['layout'] = d_layout.next()
        else:
            c['layout'] = rng.choice(['a4', 'a4', 'a4', 'two_column'])
        if 'handwriting' in themes:
            h = rng.sample(['tick', 'circle', 'bracket_answer', 'line_answer', 'cross'],
                           rng.randint(1, 3))
            c['handwriting'] = h
            c['hand_framed'] = d_hand.next()
        else:
            c['handwriting'] = []
            c['hand_framed'] = ''
        c['corner_side'] = d_corner_side.next()
        wts = [0.42, 0.38, 0.1, 0.1]
        if prim[i] == 'sealed_line' or (prim[i] == 'figure' and c['figure_pos'] == 'beside'):
            wts = [0.5, 0.15, 0.25, 0.1]
        W, H = rng.choices([(1280, 960), (960, 1280), (1600, 1200), (1200, 1600)], wts)[0]
        c['W'], c['H'] = W, H
        shot = rng.choices(['close', 'mid', 'far'], [0.36, 0.38, 0.26])[0]
        if prim[i] in ('sealed_line', 'furniture', 'layout') and shot == 'close' and rng.random() < 0.7:
            shot = rng.choice(['mid', 'far'])
        c['shot'] = shot
        c['rotation'] = max(-8.0, min(8.0, rng.gauss(0, 3.6)))
        c['tilt'] = rng.uniform(0.0, 0.16)
        c['blur'] = round(rng.uniform(0.25, 1.15), 2)
        c['jpeg'] = rng.randint(55, 92)
        c['shadow'] = rng.random() < 0.35
        c['light'] = rng.choice(['warm', 'cool', 'neutral', 'dim', 'bright'])
        cases.append(c)
    return cases


# --------------------------------------------------------------------------
# blocks
# --------------------------------------------------------------------------

def emphasis_flags(text, kinds, r, zh):
    flags = [''] * len(text)
    spans = []
    for kind in kinds:
        code = {'dots': 'd', 'bold': 'b', 'underline': 'u', 'wavy': 'v'}[kind]
        for _ in range(20):
            if zh:
                n = r.randint(2, 4)
                cands = [i for i in range(len(text) - n + 1)
                         if all(0x4E00 <= ord(c) <= 0x9FFF for c in text[i:i + n])]
            else:
                words = [(m.start(), m.end()) for m in re.finditer(r'[A-Za-z]+', text)]
                words = [w for w in words if w[1] - w[0] >= 3]
                if not words:
                    cands = []
                else:
                    j = r.randrange(len(words))
                    k = min(len(words) - 1, j + r.randint(0, 1))
                    cands = [(words[j][0], words[k][1])]
            if not cands:
                break
            if zh:
                s = r.choice(cands)
                e = s + n
            else:
                s, e = cands[0]
            if any(flags[t] for t in range(s, e)):
                continue
            for t in range(s, e):
                flags[t] += code
            spans.append((s, e, kind))
            break
    return flags, spans


def build_para(text, width, em, st, zh, bold=False, align='left', key=None,
               col=(30, 30, 30), pitch=None):
    """simple paragraph; returns (ops, bbox, height)"""
    gl = glyphs(text, st, em, zh, bold=bold, key=key)
    atoms = atomize(gl, zh, 'p')
    lines = wrap(atoms, width, width, em)
    pitch = pitch or em * 1.45
    ops = []
    bb = None
    for i, ln in enumerate(lines):
        lw = sum(a['w'] for a in ln)
        x = 0.0 if align == 'left' else ((width - lw) / 2 if align == 'center' else width - lw)
        y = 0.92 * em + i * pitch
        x0 = x
        for a in ln:
            for g in a['g']:
                ops.append(('g', x, y, g[0], g[1], em, col))
                x += g[2]
        bb = bunion(bb, (x0, y - 0.9 * em, x, y + 0.22 * em))
    h = 0.92 * em + (len(lines) - 1) * pitch + 0.3 * em
    return ops, bb, h


def build_problem(spec, width, em, st, zh, ls, col):
    """Lay out one numbered problem at origin (0,0); returns block dict."""
    ops = []
    pitch = em * ls
    asc = 0.92 * em
    fig = spec.get('fig')
    text_w = width
    fig_w = fig_h = 0.0
    if fig and fig['pos'] == 'beside':
        fig_w, fig_h = fig['w'], fig['h']
        text_w = min(width - fig_w - 4.0, max(18 * em, 0.64 * width))
    # prefix
    atoms = []
    label = spec['label']
    lg = glyphs(label, st, em, zh, bold=spec.get('label_bold', False))
    atoms.append(fixed_atom(lg, 'label'))
    lgap = 0.12 * em if label[-1] in '．、）题' else 0.32 * em
    first = spec['text'][:1]
    if first.isascii() and first.isalnum():
        lgap = max(lgap, 0.3 * em)
    if spec.get('hand_gap'):
        lgap = max(lgap, 0.55 * em)
    atoms.append({'k': 'gap', 'g': [], 'role': 'prefixgap', 'w': lgap})
    if spec.get('score') and spec.get('score_pos') == 'after_label':
        sg = glyphs(spec['score'], st, em, zh)
        atoms.append(fixed_atom(sg, 'score'))
        atoms.append({'k': 'gap', 'g': [], 'role': 'prefixgap',
                      'w': 0.1 * em if spec['score'][-1] == '）' else 0.35 * em})
    prefix_w = sum(a['w'] for a in atoms)
    qflags = spec.get('flags')
    qg = glyphs(spec['text'], st, em, zh, flags=qflags)
    atoms += atomize(qg, zh, 'q')
    if spec.get('score') and spec.get('score_pos') == 'end':
        atoms.append(gap_atom(0.4 * em))
        atoms.append(fixed_atom(glyphs(spec['score'], st, em, zh), 'score'))
    suffix = spec.get('suffix')
    if suffix in ('bracket', 'bracket_right'):
        atoms.append(gap_atom(0.3 * em))
        atoms.append(fixed_atom(glyphs(spec['bracket'], st, em, zh), 'bracket',
                                right=(suffix == 'bracket_right')))
    elif suffix == 'line':
        atoms.append(gap_atom(0.5 * em))
        atoms.append({'k': 'aline', 'g': [], 'role': 'aline', 'w': spec.get('line_w', 5.0) * em})
    indent_rest = prefix_w if spec.get('hang', True) else 0.0
    lines = wrap(atoms, text_w, text_w - indent_rest, em)
    roles = {}
    qpos = []  # (x, w, y, flags)
    for i, ln in enumerate(lines):
        y = asc + i * pitch
        x = 0.0 if i == 0 else indent_rest
        limit = text_w
        for j, a in enumerate(ln):
            if a.get('right') and j == len(ln) - 1:
                x = max(x, limit - a['w'])
            if a['k'] == 'gap':
                x += a['w']
                continue
            if a['k'] == 'aline':
                ops.append(('l', [(x, y + 0.12 * em), (x + a['w'], y + 0.12 * em)],
                            max(0.05 * em, 0.18), col, None))
                roles['aline'] = bunion(roles.get('aline'), (x, y - 0.5 * em, x + a['w'], y + 0.25 * em))
                x += a['w']
                continue
            x0 = x
            for g in a['g']:
                ops.append(('g', x, y, g[0], g[1], em, col))
                if a['role'] == 'q':
                    qpos.append((x, g[2], y, g[3], g[0]))
                x += g[2]
            if a['g']:
                rr = a['role'] if a['role'] in ('label', 'score', 'bracket', 'q') else 'other'
                roles[rr] = bunion(roles.get(rr), (x0, y - 0.9 * em, x, y + 0.22 * em))
    # emphasis decorations
    for code in ('d', 'u', 'v'):
        run = []
        for idx, (x, w, y, f, ch) in enumerate(qpos + [(None, 0, None, '', '')]):
            if x is not None and code in f and (not run or abs(run[-1][2] - y) < 1e-6):
                run.append((x, w, y))
                continue
            if run:
                if code == 'd':
                    for (rx, rw, ry) in run:
                        ops.append(('e', (rx + rw / 2, ry + 0.2 * em), (0.065 * em, 0.065 * em),
                                    0, col, True))
                elif code == 'u':
                    xa, xb, yy = run[0][0], run[-1][0] + run[-1][1], run[0][2] + 0.14 * em
                    ops.append(('l', [(xa, yy), (xb, yy)], max(0.05 * em, 0.15), col, None))
                else:
                    xa, xb, yy = run[0][0], run[-1][0] + run[-1][1], run[0][2] + 0.17 * em
                    n = max(8, int((xb - xa) / (0.06 * em)))
                    pts = [(xa + (xb - xa) * t / n,
                            yy + 0.055 * em * math.sin(2 * math.pi * (xb - xa) * t / n / (0.32 * em)))
                           for t in range(n + 1)]
                    ops.append(('l', pts, max(0.04 * em, 0.13), col, None))
                run = []
            if x is not None and code in f:
                run.append((x, w, y))
    y_end = asc + (len(lines) - 1) * pitch + 0.28 * em
    text_bbox = bunion(roles.get('label'), roles.get('q'), roles.get('score'), roles.get('bracket'),
                       roles.get('aline'), roles.get('other'))
    opt_bbox = None
    opt_boxes = []
    if spec.get('options'):
        og = [glyphs(s, st, em, zh) for s in spec['options']]
        ow = max(run_width(g) for g in og) + 1.2 * em
        avail = width - indent_rest
        ncol = 4 if ow * 4 <= avail else (2 if ow * 2 <= avail else 1)
        colw = avail / ncol
        for n, g in enumerate(og):
            r_, c_ = divmod(n, ncol)
            y = y_end - 0.28 * em + pitch * (1 + r_)
            x = indent_rest + c_ * colw
            x0 = x
            for gg in g:
                ops.append(('g', x, y, gg[0], gg[1], em, col))
                x += gg[2]
            b = (x0, y - 0.9 * em, x, y + 0.22 * em)
            opt_boxes.append(b)
            opt_bbox = bunion(opt_bbox, b)
        y_end = opt_bbox[3] + 0.06 * em
    fig_bbox = None
    cap_bbox = None
    if fig:
        if fig['pos'] == 'beside':
            fx, fy = text_w + 4.0, 0.15 * em
            ops += draw_figure(fig, fx, fy, fig_w, fig_h, st, col)
            fig_bbox = (fx, fy, fx + fig_w, fy + fig_h)
            y_end = max(y_end, fy + fig_h + 0.2 * em)
        else:
            fw, fh = fig['w'], fig['h']
            fx = (width - fw) / 2 if fig.get('align') == 'center' else width - fw - 2.0
            fy = y_end + 0.3 * em
            ops += draw_figure(fig, fx, fy, fw, fh, st, col)
            fig_bbox = (fx, fy, fx + fw, fy + fh)
            cem = em * 0.85
            cops, cbb, ch_ = build_para(fig['caption'], fw + 20, cem, st, zh, col=col)
            cw = cbb[2] - cbb[0]
            cx = fx + fw / 2 - cw / 2
            ops += shift_ops(cops, cx, fy + fh + 0.4 * em)
            cap_bbox = bshift(cbb, cx, fy + fh + 0.4 * em)
            y_end = cap_bbox[3] + 0.2 * em
    ink = bunion(text_bbox, opt_bbox, fig_bbox, cap_bbox)
    return {'ops': ops, 'text_bbox': text_bbox, 'q_bbox': roles.get('q'),
            'label_bbox': roles.get('label'), 'bracket_bbox': roles.get('bracket'),
            'aline_bbox': roles.get('aline'), 'opt_bbox': opt_bbox, 'opt_boxes': opt_boxes,
            'fig_bbox': bunion(fig_bbox, cap_bbox), 'ink_bbox': ink,
            'h': y_end + spec.get('space', 0.0), 'nlines': len(lines),
            'width_used': ink[2] - ink[0]}


# --------------------------------------------------------------------------
# figures
# --------------------------------------------------------------------------

def draw_figure(fig, x, y, w, h, st, col):
    r = random.Random(fig['seed'])
    lw = fig.get('lw', 0.3)
    ops = []
    lem = min(w, h) * 0.11
    lem = max(2.6, min(lem, 3.6))
    ital = 'libserif_i'

    def lab(t, px, py, key=ital, em=lem):
        wd = adv(key, t[0]) * em if len(t) == 1 else sum(adv(key, c) for c in t) * em
        xx = px - wd / 2
        for c in t:
            ops.append(('g', xx, py + 0.35 * em, c, key, em, col))
            xx += adv(key, c) * em
    kind = fig['type']
    if kind == 'triangle':
        A = (x + w * r.uniform(0.3, 0.6), y + h * 0.14)
        B = (x + w * 0.1, y + h * 0.84)
        C = (x + w * 0.9, y + h * 0.84)
        ops.append(('l', [A, B, C, A], lw, col, None))
        lab('A', A[0], A[1] - lem * 0.7)
        lab('B', B[0] - lem * 0.6, B[1] + lem * 0.3)
        lab('C', C[0] + lem * 0.6, C[1] + lem * 0.3)
        if r.random() < 0.7:
            D = (A[0], B[1])
            ops.append(('l', [A, D], lw, col, (1.2, 0.8) if r.random() < 0.4 else None))
            s = min(w, h) * 0.05
            ops.append(('l', [(D[0], D[1] - s), (D[0] + s, D[1] - s), (D[0] + s, D[1])], lw * 0.8, col, None))
            lab('D', D[0], D[1] + lem * 0.9)
    elif kind == 'circuit':
        x0, y0, x1, y1 = x + w * 0.1, y + h * 0.15, x + w * 0.9, y + h * 0.85
        mx = (x0 + x1) / 2
        # top: battery in the middle
        g1, g2 = mx - w * 0.03, mx + w * 0.03
        ops.append(('l', [(x0, y0), (g1, y0)], lw, col, None))
        ops.append(('l', [(g2, y0), (x1, y0)], lw, col, None))
        ops.append(('l', [(g1, y0 - h * 0.09), (g1, y0 + h * 0.09)], lw, col, None))
        ops.append(('l', [(g2, y0 - h * 0.045), (g2, y0 + h * 0.045)], lw * 2.2, col, None))
        # right side: lamp
        ly = (y0 + y1) / 2
        rr_ = min(w, h) * 0.07
        ops.append(('l', [(x1, y0), (x1, ly - rr_)], lw, col, None))
        ops.append(('l', [(x1, ly + rr_), (x1, y1)], lw, col, None))
        ops.append(('e', (x1, ly), (rr_, rr_), lw, col, False))
        d = rr_ * 0.7
        ops.append(('l', [(x1 - d, ly - d), (x1 + d, ly + d)], lw, col, None))
        ops.append(('l', [(x1 - d, ly + d), (x1 + d, ly - d)], lw, col, None))
        lab('L', x1 + rr_ + lem * 0.6, ly)
        # bottom: resistor and switch
        rw, rh = w * 0.18, h * 0.1
        rx = mx - rw / 2 + w * 0.12
        ops.append(('l', [(x1, y1), (rx + rw, y1)], lw, col, None))
        ops.append(('r', (rx, y1 - rh / 2, rx + rw, y1 + rh / 2), lw, col, False))
        lab('R', rx + rw / 2, y1 - rh / 2 - lem * 0.7)
        sx = x0 + w * 0.22
        ops.append(('l', [(rx, y1), (sx + w * 0.12, y1)], lw, col, None))
        ops.append(('l', [(sx + w * 0.12, y1), (sx, y1 - h * 0.08)], lw, col, None))
        ops.append(('e', (sx + w * 0.12, y1), (0.5, 0.5), lw, col, True))
        ops.append(('l', [(sx - w * 0.01, y1), (x0, y1)], lw, col, None))
        lab('S', sx + w * 0.05, y1 + lem * 0.9)
        # left side: ammeter
        ops.append(('l', [(x0, y1), (x0, ly + rr_)], lw, col, None))
        ops.append(('l', [(x0, ly - rr_), (x0, y0)], lw, col, None))
        ops.append(('e', (x0, ly), (rr_, rr_), lw, col, False))
        lab('A', x0, ly, key='libsans')
    elif kind == 'axes':
        ox, oy = x + w * 0.16, y + h * 0.8
        ops.append(('l', [(x + w * 0.05, oy), (x + w * 0.95, oy)], lw, col, None))
        ops.append(('l', [(ox, y + h * 0.95), (ox, y + h * 0.05)], lw, col, None))
        a = min(w, h) * 0.035
        ops.append(('p', [(x + w * 0.95, oy), (x + w * 0.95 - 2 * a, oy - a * 0.8), (x + w * 0.95 - 2 * a, oy + a * 0.8)], col))
        ops.append(('p', [(ox, y + h * 0.05), (ox - a * 0.8, y + h * 0.05 + 2 * a), (ox + a * 0.8, y + h * 0.05 + 2 * a)], col))
        lab('O', ox - lem * 0.6, oy + lem * 0.6)
        lab('x', x + w * 0.94, oy + lem * 0.8)
        lab('y', ox - lem * 0.7, y + h * 0.08)
        if r.random() < 0.5:
            k = r.uniform(0.4, 0.9)
            ops.append(('l', [(x + w * 0.08, oy + (ox - x - w * 0.08) * k * h / w),
                              (x + w * 0.85, oy - (x + w * 0.85 - ox) * k * h / w * 0.8)], lw, col, None))
        else:
            pts = []
            for t in range(41):
                u = -1 + 2 * t / 40
                pts.append((ox + w * 0.35 + u * w * 0.3, oy - h * 0.08 - (1 - u * u) * h * 0.55 + h * 0.0))
            ops.append(('l', pts, lw, col, None))
        for t in range(1, 5):
            tx = ox + t * w * 0.16
            ops.append(('l', [(tx, oy), (tx, oy - 1.0)], lw * 0.8, col, None))
    else:  # bar chart
        ox, oy = x + w * 0.15, y + h * 0.8
        ops.append(('l', [(ox, y + h * 0.06), (ox, oy), (x + w * 0.95, oy)], lw, col, None))
        n = r.randint(3, 5)
        bw = (w * 0.75) / n * 0.55
        cats = r.choice(['甲乙丙丁戊', 'ABCDE', '12345'] if fig.get('zh', True) else ['ABCDE', '12345'])
        for i in range(n):
            bx = ox + (i + 0.3) * (w * 0.78) / n
            bh = h * r.uniform(0.2, 0.65)
            fill = r.random() < 0.5
            if fill:
                ops.append(('r', (bx, oy - bh, bx + bw, oy), lw, (150, 150, 150), True))
            ops.append(('r', (bx, oy - bh, bx + bw, oy), lw, col, False))
            lab(cats[i], bx + bw / 2, oy + lem * 0.8,
                key=st['cjk'] if cats[0] == '甲' else 'libsans', em=lem * 0.9)
        for t in range(1, 4):
            ty = oy - t * h * 0.2
            ops.append(('l', [(ox - 1.0, ty), (ox, ty)], lw * 0.8, col, None))
            lab(str(t * 10), ox - lem * 1.1, ty, key='libsans', em=lem * 0.8)
    return ops


# --------------------------------------------------------------------------
# page furniture
# --------------------------------------------------------------------------

def make_rt(text, st, em, zh, center, angle, col, alpha=1.0, layer='print', bold=False, key=None):
    gl = glyphs(text, st, em, zh, bold=bold, key=key)
    out = []
    x = 0.0
    for g in gl:
        out.append((x, g[0], g[1]))
        x += g[2]
    return ('rt', center, tuple(out), x, em, angle, col, alpha, layer)


def rt_bbox(op):
    (cx, cy), _, width, em, ang = op[1], op[2], op[3], op[4], op[5]
    a = math.radians(ang)
    hw, hh = width / 2, em * 0.8
    ex = abs(hw * math.cos(a)) + abs(hh * math.sin(a))
    ey = abs(hw * math.sin(a)) + abs(hh * math.cos(a))
    return (cx - ex, cy - ey, cx + ex, cy + ey)


def table_ops(x, y, colw, rowh, cells, st, em, zh, col, lw=0.25):
    """cells: rows of strings; returns ops, bbox"""
    ops = []
    nr, nc = len(cells), len(cells[0])
    xs = [x]
    for w in colw:
        xs.append(xs[-1] + w)
    ys = [y + i * rowh for i in range(nr + 1)]
    for yy in ys:
        ops.append(('l', [(xs[0], yy), (xs[-1], yy)], lw, col, None))
    for xx in xs:
        ops.append(('l', [(xx, ys[0]), (xx, ys[-1])], lw, col, None))
    for i, row in enumerate(cells):
        for j, t in enumerate(row):
            if not t:
                continue
            gl = glyphs(t, st, em, zh)
            tw = run_width(gl)
            xx = xs[j] + (colw[j] - tw) / 2
            yy = ys[i] + rowh / 2 + 0.35 * em
            for g in gl:
                ops.append(('g', xx, yy, g[0], g[1], em, col))
                xx += g[2]
    return ops, (xs[0], ys[0], xs[-1], ys[-1])


def qr_ops(x, y, size, r, col):
    n = 25
    m = size / n
    ops = []
    grid = [[r.random() < 0.5 for _ in range(n)] for _ in range(n)]
    for (fx, fy) in ((0, 0), (n - 7, 0), (0, n - 7)):
        for i in range(-1, 8):
            for j in range(-1, 8):
                if 0 <= fx + i < n and 0 <= fy + j < n:
                    ring = max(abs(i - 3), abs(j - 3))
                    grid[fy + j][fx + i] = ring in (0, 1, 3)
    for j in range(n):
        for i in range(n):
            if grid[j][i]:
                ops.append(('r', (x + i * m, y + j * m, x + (i + 1) * m, y + (j + 1) * m), 0, col, True))
    return ops


def barcode_ops(x, y, w, h, r, col, st):
    ops = []
    xx = x
    while xx < x + w:
        bw = r.choice([0.25, 0.25, 0.5, 0.75])
        if r.random() < 0.55:
            ops.append(('r', (xx, y, min(x + w, xx + bw), y + h), 0, col, True))
        xx += bw + r.choice([0.25, 0.5])
    digits = ''.join(str(r.randint(0, 9)) for _ in range(13))
    em = h * 0.22
    gl = glyphs(digits, st, em, False, key='libsans')
    tw = run_width(gl)
    xx = x + (w - tw) / 2
    for g in gl:
        ops.append(('g', xx, y + h + em * 1.0, g[0], g[1], em, col))
        xx += g[2]
    return ops


# --------------------------------------------------------------------------
# page composition
# --------------------------------------------------------------------------

def make_style(r, zh_paper, paper_lang):
    st = {}
    st['cjk'] = r.choice(['cjk_serif', 'cjk_serif', 'cjk_sans'])
    if zh_paper:
        st['latin'] = r.choice(['libserif', 'libserif', st['cjk'], 'djserif', 'libsans'])
        st['head'] = {'cjk': 'cjk_sans', 'latin': r.choice(['libsans', 'cjk_sans'])}
    else:
        st['latin'] = r.choice(['libserif', 'libserif', 'libsans', 'djserif', 'djsans', 'djcond'])
        st['head'] = {'cjk': 'cjk_sans', 'latin': r.choice(['libsans', 'djsans', st['latin']])}
    return st


def head_style(st):
    return {'cjk': st['head']['cjk'], 'latin': st['head']['latin']}


def choose_neighbours(bank, fi, r, zh_paper, framed_zh):
    fq = bank[fi]
    same_subj, same_lang, other = [], [], []
    for j, q in enumerate(bank):
        if j == fi or q['question'] == fq['question']:
            continue
        if difflib.SequenceMatcher(None, q['question'], fq['question']).ratio() >= 0.8:
            continue
        lz = has_cjk(q['question'])
        if lz == framed_zh and q.get('subject') == fq.get('subject'):
            same_subj.append(j)
        elif lz == framed_zh:
            same_lang.append(j)
        else:
            other.append(j)
    for lst in (same_subj, same_lang, other):
        r.shuffle(lst)
    seq = same_subj + same_lang
    r.shuffle(seq)
    # prefer same subject early: stable partial sort
    seq.sort(key=lambda j: (bank[j].get('subject') != fq.get('subject')) * r.random())
    out = []
    oi = 0
    for j in seq:
        if other and oi < len(other) and r.random() < (0.12 if zh_paper else 0.08):
            out.append(other[oi])
            oi += 1
        out.append(j)
    out += other[oi:]
    return out


def page_geometry(layout, ncols, r, seal, corner, em):
    if layout == 'a3':
        PW, PH, halves = 420.0, 297.0, [(0.0, 210.0), (210.0, 420.0)]
    else:
        PW, PH, halves = 210.0, 297.0, [(0.0, 210.0)]
    mt = r.uniform(15, 20)
    mb = r.uniform(17, 22)
    geo = {'PW': PW, 'PH': PH, 'halves': [], 'mt': mt, 'mb': mb}
    for hi, (hx0, hx1) in enumerate(halves):
        ml = r.uniform(16, 22)
        mr = r.uniform(15, 19)
        if seal == 'left' and hi == 0:
            ml += r.uniform(19, 25)
        if seal == 'right' and hi == len(halves) - 1:
            mr += r.uniform(19, 25)
        cx0, cx1 = hx0 + ml, hx1 - mr
        top = mt
        if corner and hi == 0:
            top += 22.0
        geo['halves'].append({'x0': hx0, 'x1': hx1, 'cx0': cx0, 'cx1': cx1, 'top': top,
                              'bottom': PH - mb})
    cw_total = geo['halves'][0]['cx1'] - geo['halves'][0]['cx0']
    gap = r.uniform(7, 11)
    colw = (cw_total - gap * (ncols - 1)) / ncols
    # equalise column width across halves
    for h in geo['halves']:
        w = h['cx1'] - h['cx0']
        colw = min(colw, (w - gap * (ncols - 1)) / ncols)
    geo['colw'] = colw
    geo['gap'] = gap
    geo['ncols'] = ncols
    return geo


def compose_page(case, bank, r):
    fq = bank[case['bank_index']]
    qtext = fq['question']
    framed_zh = has_cjk(qtext)
    subject = fq.get('subject', 'math')
    if framed_zh:
        zh_paper = True
    else:
        zh_paper = bool(case['seal']) or r.random() < 0.4
    paper_lang = 'zh' if zh_paper else 'en'
    st = make_style(r, zh_paper, paper_lang)
    ink = tuple([r.randint(18, 55)] * 3)
    ls = r.uniform(1.5, 1.95)
    # label/score/bracket styles
    if zh_paper:
        label_fmt = r.choice(['{n}．', '{n}．', '{n}.', '{n}、', '（{n}）', '第{n}题', '{n})'])
        score_fmt = r.choice(['（{s}分）', '（本小题{s}分）', '（{s}分）'])
        score_pos = 'after_label'
        bracket = r.choice(['（　　）', '（　　）', '(　　)', '（    ）'])
    else:
        label_fmt = r.choice(['{n}.', '{n}.', 'Q{n}', '{n})', '({n})', 'Q{n}.'])
        score_fmt = r.choice(['({s} marks)', '[{s} marks]', '({s} points)', '({s} marks)'])
        score_pos = r.choice(['end', 'end', 'after_label'])
        bracket = r.choice(['(    )', '[    ]', '(      )'])
    label_bold = r.random() < 0.35
    hang = r.random() < 0.7
    opt_fmt = r.choice(['{L}．{t}', '{L}. {t}', '{L}．{t}']) if zh_paper else r.choice(['{L}. {t}', '({L}) {t}', '{L}) {t}'])

    # framed problem decorations
    opts = options_for(qtext)
    if opts and r.random() < 0.85:
        f_kind = 'choice'
    else:
        f_kind = r.choice(['short', 'short', 'solve'])
    emph_flags, emph_spans = emphasis_flags(qtext, case['emphasis'], r, framed_zh)
    fig = None
    if case['figure']:
        fig = {'type': case['figure'], 'pos': case['figure_pos'], 'seed': r.randrange(1 << 30), 'zh': zh_paper,
               'align': r.choice(['center', 'right']), 'lw': r.uniform(0.22, 0.34)}

    def decorate(spec, kind, rr, num, is_framed):
        spec['label'] = label_fmt.format(n=num)
        spec['label_bold'] = label_bold
        spec['hang'] = hang
        spec['kind'] = kind
        o = options_for(spec['text'])
        if kind == 'choice':
            spec['suffix'] = rr.choice(['bracket', 'bracket_right']) if zh_paper else rr.choice(['bracket', 'bracket_right', 'line'])
            spec['bracket'] = bracket
            spec['line_w'] = 3.0
            if o:
                o = o[:]
                rr.shuffle(o)
                spec['options'] = [opt_fmt.format(L='ABCD'[i], t=t) for i, t in enumerate(o)]
        elif kind == 'short':
            spec['suffix'] = rr.choice(['line', 'line', 'bracket'])
            spec['bracket'] = bracket
            spec['line_w'] = rr.uniform(3.5, 7.0)
        else:
            spec['suffix'] = None
            spec['score'] = score_fmt.format(s=rr.choice([4, 5, 6, 6, 8, 8, 10, 12]))
            spec['score_pos'] = score_pos
            spec['space'] = 0.0
            spec['answer_lines'] = rr.randint(2, 5)
        if kind != 'solve' and rr.random() < 0.12:
            spec['score'] = score_fmt.format(s=rr.choice([2, 3, 4]))
            spec['score_pos'] = score_pos
        return spec

    em_pts = [10.5, 10.5, 11.0, 12.0, 12.0, 14.0]
    r.shuffle(em_pts)
    W, H = case['W'], case['H']
    marg = 0.03 * min(W, H)
    # x-height requirement
    if any(c.isascii() and c.isalnum() for c in qtext):
        xh = min(xheight(pick_font('x', st, False, framed_zh)), 0.56)
    else:
        xh = 0.6
    em_min_px = 14.5 / xh

    layout = case['layout']
    want = []
    if case['primary'] == 'sealed_line' and layout != 'a3_spread':
        long_q = len(qtext) > 22
        want = [('a4', 2)] if (case['seal'] == 'right' or long_q or r.random() < 0.4) else [('a4', 1)]
    elif layout == 'a3_spread':
        want = [('a3', 1), ('a3', 2)] if r.random() < 0.6 else [('a3', 2), ('a3', 1)]
    elif case['figure_pos'] == 'beside' and 'layout' not in case['themes']:
        want = [('a4', 1)]
    elif layout == 'two_column':
        want = [('a4', 2)]
    else:
        want = [('a4', 1)] if r.random() < 0.8 else [('a4', 2)]
    fallback = [('a4', 2), ('a3', 2)]
    chosen = None
    framed_probe = None
    for lay in want + fallback:
        for pt in em_pts:
            em = pt * 0.3528
            geo = page_geometry(lay[0], lay[1], random.Random(case['pseed'] + 7), case['seal'],
                                case['layout'].startswith('corner'), em)
            spec = {'text': qtext, 'flags': emph_flags}
            if fig:
                fig['pos'] = case['figure_pos']
                fw = min(geo['colw'] * 0.38, r.uniform(30, 48))
                if fig['pos'] == 'beside' and geo['colw'] - fw - 4 < 18 * em:
                    fig['pos'] = 'below'
                if fig['pos'] == 'below':
                    fw = min(geo['colw'] * 0.7, r.uniform(38, 60))
                fig['w'] = fw
                fig['h'] = fw * r.uniform(0.65, 0.85)
                fig['caption'] = ''
                spec['fig'] = fig
            spec = decorate(spec, f_kind, random.Random(case['pseed'] + 11), 12, True)
            if fig:
                if 'caption_t' not in fig:
                    fig['caption_t'] = (r.choice(['第{n}题图', '（第{n}题图）', '第{n}题']) if zh_paper
                                        else r.choice(['Figure {n}', 'Fig. {n}', '(Question {n})']))
                fig['caption'] = fig['caption_t'].format(n=12)
            b = build_problem(spec, geo['colw'], em, st, zh_paper, ls, ink)
            fb = bunion(b['text_bbox'], b['opt_bbox'])
            bw_em = (fb[2] - fb[0]) / em
            bh_em = (fb[3] - fb[1]) / em
            need = em_min_px * 1.12
            if bw_em * need <= W - 2 * marg and bh_em * need <= H - 2 * marg:
                chosen = (lay, pt, geo)
                break
        if chosen:
            break
    if not chosen:
        raise RuntimeError('no feasible layout for ' + case['id'])
    (lay_kind, ncols), pt, geo = chosen
    em = pt * 0.3528
    PW, PH = geo['PW'], geo['PH']
    pitch = em * ls

    neigh = choose_neighbours(bank, case['bank_index'], r, zh_paper, framed_zh)
    corner = case['layout'][7:] if case['layout'].startswith('corner') else ''
    corner_right = corner in ('qr', 'barcode') and case['corner_side'] == 'right'
    furn = set(case['furniture'])
    title_half = None
    if 'title_block' in furn or 'score_table' in furn:
        title_half = 0
    elif 'running_header' not in furn and not case['layout'].startswith('corner') and r.random() < 0.3:
        title_half = 0
    n_pages_total = r.choice([4, 4, 6, 8])
    first_page_no = 1 if title_half == 0 else r.choice([2, 3]) if lay_kind == 'a4' else 3
    force_section = 'section_heading' in furn or 'defen_box' in furn
    show_section = force_section or r.random() < 0.8
    defen = zh_paper and ('defen_box' in furn or (show_section and r.random() < 0.35))
    subj_zh = SUBJ_ZH.get(subject, '数学')
    subj_en = SUBJ_EN.get(subject, 'Mathematics')
    grade = r.choice(GRADE_ZH.get(subject, ['八年级']))
    exam_zh = r.choice(EXAM_ZH)
    exam_en = r.choice(EXAM_EN)
    grade_en = r.choice(GRADE_EN)
    hst = head_style(st)

    ops = []
    features = {}

    # ---- top items on title half
    halves = geo['halves']
    col_tops = {}
    for hi, hf in enumerate(halves):
        y = hf['top']
        if title_half == hi:
            cw = hf['cx1'] - hf['cx0']
            tops = []
            if zh_paper:
                if r.random() < 0.4:
                    tops.append(('绝密★启用前', em * 0.9, False, 'left'))
                tops.append((exam_zh, em * r.uniform(1.25, 1.5), True, 'center'))
                tops.append((grade + subj_zh + r.choice(['试卷', '试题', '试卷（A卷）']), em * r.uniform(1.5, 1.9), True, 'center'))
                tops.append((r.choice(['（考试时间：90分钟　满分：100分）', '考试时间：120分钟　　满分：150分',
                                       '（满分100分，时间60分钟）']), em * 0.9, False, 'center'))
                if not case['seal']:
                    tops.append(('姓名：__________　班级：__________　考号：__________', em * 0.95, False, 'center'))
            else:
                tops.append((exam_en, em * 1.35, True, 'center'))
                tops.append((grade_en + ' ' + subj_en, em * 1.6, True, 'center'))
                tops.append((r.choice(['Time allowed: 90 minutes    Total: 100 marks',
                                       'Time: 60 minutes    Full marks: 100']), em * 0.9, False, 'center'))
                tops.append(('Name: ____________   Class: ________   No.: ________', em * 0.95, False, 'center'))
            tb = None
            for text, tem, bold, align in tops:
                o, bb, hh = build_para(text, cw, tem, hst if bold else st, zh_paper, bold=bold,
                                       align=align, col=ink)
                ops += shift_ops(o, hf['cx0'], y)
                tb = bunion(tb, bshift(bb, hf['cx0'], y))
                y += hh + 0.35 * em
            features['title_block'] = [tb]
            if 'score_table' in furn or r.random() < 0.4:
                y += 0.4 * em
                if zh_paper:
                    hdr = ['题号'] + list(CN_NUM[:r.randint(3, 5)]) + ['总分']
                    cells = [hdr, ['得分'] + [''] * (len(hdr) - 1)]
                else:
                    hdr = ['Section'] + list('ABCD'[:r.randint(2, 4)]) + ['Total']
                    cells = [hdr, ['Score'] + [''] * (len(hdr) - 1)]
                cwid = [max(3.2 * em, run_width(glyphs(t, st, em, zh_paper)) + 1.5 * em) for t in hdr]
                tw = sum(cwid)
                tx = hf['cx0'] + (cw - tw) / 2
                o, bb = table_ops(tx, y, cwid, 1.9 * em, cells, st, em, zh_paper, ink)
                ops += o
                features['score_table'] = [bb]
                y = bb[3] + 0.9 * em
            y += 0.4 * em
        col_tops[hi] = y

    # ---- columns
    cols = []
    for hi, hf in enumerate(halves):
        for c in range(ncols):
            x0 = hf['cx0'] + c * (geo['colw'] + geo['gap'])
            cols.append({'x0': x0, 'x1': x0 + geo['colw'], 'y0': col_tops[hi], 'y1': hf['bottom'],
                         'half': hi, 'ci': c})
    colw = geo['colw']

    start_no = 1 if title_half == 0 else r.randint(4, 16)
    sec_lens_seed = r.randrange(1 << 30)
    deco_seed = r.randrange(1 << 30)
    kinds_order = ['choice', 'short', 'solve']

    def flow(k):
        rr = random.Random(sec_lens_seed)
        rd = random.Random(deco_seed + 1000 * k)
        seq = neigh[:k] + [case['bank_index']] + neigh[k:]
        # sections
        lens = []
        while sum(lens) < len(seq):
            lens.append(rr.randint(4, 10))
        raw = []
        s = 0
        for L in lens:
            raw.append((s, s + L))
            s += L
        fsec = next(i for i, (a, b) in enumerate(raw) if a <= k < b)
        di = kinds_order.index(f_kind)
        raw_kind = [kinds_order[max(0, min(2, di + (i - fsec)))] for i in range(len(raw))]
        bounds, sec_kind = [], []
        for (a, b), kd in zip(raw, raw_kind):
            if sec_kind and sec_kind[-1] == kd:
                bounds[-1] = (bounds[-1][0], b)
            else:
                bounds.append((a, b))
                sec_kind.append(kd)
        sec_no0 = 0 if title_half == 0 else rr.randint(0, 2)
        placed = []
        items = []
        ci = 0
        y = cols[0]['y0']
        framed_blk = None
        num = start_no
        for si, (a, b) in enumerate(bounds):
            kind = sec_kind[si]
            # section heading
            nq = min(b - a, rr.randint(4, 10))
            pts = rr.choice([2, 3, 3, 4, 5])
            if show_section and (si > 0 or title_half == 0 or force_section or rr.random() < 0.5):
                if zh_paper:
                    hd = {'choice': '选择题（本大题共{m}小题，每小题%d分，共{t}分）' % pts,
                          'short': rr.choice(['填空题（每小题%d分，共{t}分）' % pts, '简答题（每小题%d分，共{t}分）' % pts]),
                          'solve': rr.choice(['解答题（本大题共{m}小题，共{t}分）', '计算题（共{t}分）'])}[kind]
                    htxt = CN_NUM[(sec_no0 + si) % 10] + '、' + hd.format(m=nq, t=nq * pts)
                else:
                    hd = {'choice': 'Multiple Choice ({m} questions, %d marks each)' % pts,
                          'short': 'Short Answer ({t} marks)',
                          'solve': rr.choice(['Problems (show your working)', 'Extended Response ({t} marks)'])}[kind]
                    htxt = rr.choice(['Section ', 'Part ']) + 'ABCDEF'[(sec_no0 + si) % 6] + '  ' + hd.format(m=nq, t=nq * pts)
                box_w = 0.0
                if defen:
                    box_w = 7.2 * em + 2.0
                ho, hbb, hh = build_para(htxt, colw - box_w, em * 1.0, hst, zh_paper, bold=True, col=ink)
                blk_h = max(hh, 3.1 * em if defen else 0) + 0.5 * em
                while True:
                    c = cols[ci]
                    if y + blk_h + 2.5 * pitch <= c['y1'] or y == c['y0']:
                        break
                    ci += 1
                    if ci >= len(cols):
                        return placed, items, framed_blk
                    y = cols[ci]['y0']
                c = cols[ci]
                if defen:
                    o, tb = table_ops(c['x0'], y + 0.1 * em, [3.0 * em, 4.2 * em], 1.45 * em,
                                      [['得分', '评卷人'], ['', '']], st, em * 0.9, True, ink)
                    ops_h = o
                    items.append({'kind': 'defen_box', 'bbox': tb, 'ops': o, 'col': ci})
                    hy = y + (2.9 * em - hh) / 2 + 0.1 * em
                else:
                    hy = y
                items.append({'kind': 'section_heading', 'bbox': bshift(hbb, c['x0'] + box_w, hy),
                              'ops': shift_ops(ho, c['x0'] + box_w, hy), 'col': ci, 'first_k': a})
                y += blk_h
            for pi in range(a, min(b, len(seq))):
                qi = seq[pi]
                is_f = (pi == k)
                if is_f:
                    spec = {'text': qtext, 'flags': emph_flags}
                    if fig:
                        spec['fig'] = dict(fig, caption=fig['caption_t'].format(n=num))
                    spec = decorate(spec, kind, random.Random(case['pseed'] + 11), num, True)
                    if case['hand_framed']:
                        spec['hand_gap'] = True
                else:
                    qt = bank[qi]['question']
                    fl = None
                    if rd.random() < 0.12:
                        fl, _ = emphasis_flags(qt, [rd.choice(['bold', 'underline'])], rd, has_cjk(qt))
                    spec = decorate({'text': qt, 'flags': fl}, kind, rd, num, False)
                    if rd.random() < 0.1 and kind != 'choice':
                        ft = rd.choice(FIG_BY_SUBJ.get(bank[qi].get('subject'), ['bar']))
                        fw = min(colw * 0.35, rd.uniform(28, 42))
                        spec['fig'] = {'type': ft, 'pos': 'beside', 'w': fw, 'h': fw * 0.75, 'zh': zh_paper,
                                       'seed': rd.randrange(1 << 30), 'lw': 0.28}
                        if colw - fw - 4 < 18 * em:
                            spec['fig']['pos'] = 'below'
                            spec['fig']['caption'] = ('第%d题图' % num) if zh_paper else ('Figure %d' % num)
                            spec['fig']['align'] = 'center'
                blk = build_problem(spec, colw, em, st, zh_paper, ls, ink)
                space = 0.0
                if kind == 'solve':
                    space = spec['answer_lines'] * pitch
                gap_after = rd.uniform(0.5, 1.0) * em
                while True:
                    c = cols[ci]
                    if y + blk['h'] <= c['y1']:
                        break
                    ci += 1
                    if ci >= len(cols):
                        return placed, items, framed_blk
                    y = cols[ci]['y0']
                c = cols[ci]
                pb = {'qi': qi, 'is_framed': is_f, 'col': ci, 'half': c['half'], 'num': num,
                      'pos_in_col': sum(1 for p in placed if p['col'] == ci), 'index': pi,
                      'sec_first': pi == a, 'kind': kind, 'spec': spec,
                      'ops': shift_ops(blk['ops'], c['x0'], y)}
                for key in ('text_bbox', 'q_bbox', 'label_bbox', 'bracket_bbox', 'aline_bbox',
                            'opt_bbox', 'fig_bbox', 'ink_bbox'):
                    pb[key] = bshift(blk[key], c['x0'], y)
                pb['space_bbox'] = (c['x0'], y + blk['h'], c['x1'], min(c['y1'], y + blk['h'] + space))
                placed.append(pb)
                if is_f:
                    framed_blk = pb
                y += blk['h'] + space + gap_after
                num += 1
        return placed, items, framed_blk

    # ---- choose framed position according to the case's goal
    prim = case['primary']

    def goal_ok(pl, fb):
        ph = PH
        if fb is None:
            return False
        if prim == 'sealed_line':
            if case['seal'] == 'left':
                return fb['col'] == 0
            return fb['col'] == len(cols) - 1
        if prim == 'furniture':
            fk = case['furniture'][0]
            if fk in ('title_block', 'score_table'):
                return fb['half'] == 0 and cols[fb['col']]['ci'] == 0 and fb['pos_in_col'] <= 1
            if fk == 'running_header':
                return fb['pos_in_col'] <= 1 and cols[fb['col']]['ci'] == 0
            if fk == 'footer':
                return fb['ink_bbox'][3] > ph - geo['mb'] - 55
            return fb['sec_first']
        if prim == 'layout':
            if case['layout'] == 'a3_spread':
                return fb['half'] == 1 and cols[fb['col']]['ci'] == 0
            if case['layout'].startswith('corner'):
                return fb['half'] == 0 and fb['pos_in_col'] <= 1 and (
                    cols[fb['col']]['ci'] == (ncols - 1 if corner_right else 0))
            return fb['pos_in_col'] >= 1
        if prim == 'handwriting':
            return 1 <= fb['pos_in_col']
        return fb['pos_in_col'] >= 1 or r.random() < 0.2

    kcands = list(range(0, min(len(neigh), 40)))
    r.shuffle(kcands)
    if prim == 'layout' and case['layout'] == 'a3_spread':
        kcands.sort(key=lambda k: -k * r.random())
    best = None
    for k in kcands[:40]:
        pl, it, fb = flow(k)
        if fb is None:
            continue
        if best is None:
            best = (k, pl, it, fb)
        if goal_ok(pl, fb):
            best = (k, pl, it, fb)
            break
    if best is None:
        raise RuntimeError('framed problem could not be placed')
    k, placed, items, fb = best
    for p in placed:
        ops += p['ops']
    for it in items:
        ops += it['ops']
        features.setdefault(it['kind'], []).append(it['bbox'])
    # section heading and defen-box nearest to the framed one
    sec_of_f = [it['bbox'] for it in items if it['kind'] == 'section_heading' and it['first_k'] == fb['index']]
    if sec_of_f:
        features['section_heading_framed'] = sec_of_f

    # ---- column dividers
    if ncols == 2:
        for hi, hf in enumerate(halves):
            xg = hf['cx0'] + colw
            features.setdefault('column_gap', []).append((xg, col_tops[hi], xg + geo['gap'], hf['bottom']))
    if ncols == 2 and r.random() < 0.6:
        for hi, hf in enumerate(halves):
            xm = hf['cx0'] + colw + geo['gap'] / 2
            ops.append(('l', [(xm, col_tops[hi]), (xm, hf['bottom'])], 0.2, ink,
                        (2.0, 1.5) if r.random() < 0.5 else None))
            features.setdefault('column_divider', []).append((xm - 1, col_tops[hi], xm + 1, hf['bottom']))

    # ---- running header / footer
    for hi, hf in enumerate(halves):
        page_no = first_page_no + hi
        if title_half != hi and ('running_header' in furn or r.random() < 0.45):
            if zh_paper:
                txt = r.choice([grade + subj_zh + '期中试卷', exam_zh + '　' + grade + subj_zh,
                                grade + subj_zh + '试题（第%d页）' % page_no])
            else:
                txt = r.choice([grade_en + ' ' + subj_en + ' – Midterm Examination', exam_en])
            hy = geo['mt'] - 9.5
            o, bb, hh = build_para(txt, hf['cx1'] - hf['cx0'], em * 0.85, st, zh_paper,
                                   align=r.choice(['center', 'left', 'right']), col=ink)
            ops += shift_ops(o, hf['cx0'], hy)
            ry = hy + hh + 0.8
            ops.append(('l', [(hf['cx0'], ry), (hf['cx1'], ry)], 0.25, ink, None))
            features.setdefault('running_header', []).append(bunion(bshift(bb, hf['cx0'], hy), (hf['cx0'], ry - 0.5, hf['cx1'], ry + 0.5)))
        if 'footer' in furn or r.random() < 0.7:
            if zh_paper:
                txt = r.choice(['第{p}页　共{n}页', '{s}试卷　第{p}页（共{n}页）', '— {p} —',
                                '{s}　第 {p} 页　共 {n} 页']).format(p=page_no, n=n_pages_total, s=subj_zh)
            else:
                txt = r.choice(['Page {p} of {n}', '— {p} —', '{s} · Page {p}/{n}']).format(p=page_no, n=n_pages_total, s=subj_en)
            fy = hf['bottom'] + 5.0
            o, bb, hh = build_para(txt, hf['cx1'] - hf['cx0'], em * 0.85, st, zh_paper, align='center', col=ink)
            ops += shift_ops(o, hf['cx0'], fy)
            features.setdefault('footer', []).append(bshift(bb, hf['cx0'], fy))

    # ---- sealed-line margin
    if case['seal']:
        hf = halves[0] if case['seal'] == 'left' else halves[-1]
        left = case['seal'] == 'left'
        x_line = hf['x0'] + r.uniform(17, 22) if left else hf['x1'] - r.uniform(17, 22)
        x_fields = x_line - 10.0 if left else x_line + 10.0
        ang = 90 if left else -90
        sem = em * r.uniform(0.95, 1.15)
        seal_txt = r.choice(['密　封　线　内　不　要　答　题', '密　　封　　线', '装　订　线　内　不　要　答　题',
                             '……………密……………封……………线……………'])
        seal_op = make_rt(seal_txt, hst, sem, True, (x_line, PH / 2), ang, ink, bold=r.random() < 0.5)
        sb = rt_bbox(seal_op)
        dash = (r.uniform(1.5, 3.0), r.uniform(1.0, 2.0))
        ops.append(('l', [(x_line, 12.0), (x_line, sb[1] - 2)], 0.25, ink, dash))
        ops.append(('l', [(x_line, sb[3] + 2), (x_line, PH - 12.0)], 0.25, ink, dash))
        ops.append(seal_op)
        if r.random() < 0.5:
            for yy in (PH * 0.22, PH * 0.78):
                ops.append(('e', (x_line, yy), (1.6, 1.6), 0.25, ink, False))
        fields = r.choice(['学校：__________　班级：__________　姓名：__________　考号：__________',
                           '学校________　班级________　姓名________　考号________',
                           '班级：________　姓名：________　座位号：______　考号：__________'])
        f_op = make_rt(fields, st, em * 0.95, True, (x_fields, PH / 2), ang, ink)
        ops.append(f_op)
        fb_ = rt_bbox(f_op)
        features['sealed_line'] = [bunion(sb, fb_, (x_line - 1, 12, x_line + 1, PH - 12))]

    # ---- corner marks
    if corner:
        hf = halves[0]
        size = r.uniform(15, 20)
        if corner == 'qr':
            qx, qy = (hf['cx1'] - size if corner_right else hf['cx0']), geo['mt'] + 0.5
            ops += qr_ops(qx, qy, size, r, (20, 20, 20))
            o, bb, hh = build_para('扫码查看解析' if zh_paper else 'Scan for answers', 40, em * 0.7, st, zh_paper, col=ink)
            bw = bb[2] - bb[0]
            ops += shift_ops(o, qx + size / 2 - bw / 2, qy + size + 0.5)
            features['corner_mark'] = [(qx, qy, qx + size, qy + size + 4)]
        elif corner == 'barcode':
            bw, bh = r.uniform(34, 46), r.uniform(9, 12)
            bx, by = (hf['cx1'] - bw if corner_right else hf['cx0'] + 3), geo['mt'] + 3
            ops.append(('r', (bx - 3, by - 3, bx + bw + 3, by + bh + 5.5), 0.25, ink, False))
            ops += barcode_ops(bx, by, bw, bh, r, (15, 15, 15), st)
            features['corner_mark'] = [(bx - 3, by - 3, bx + bw + 3, by + bh + 5.5)]
        else:
            cx, cy = hf['cx0'] + size / 2, geo['mt'] + size / 2 + 1
            lc = r.choice([(150, 30, 30), (30, 60, 140), (25, 25, 25)])
            ops.append(('e', (cx, cy), (size / 2, size / 2), 0.6, lc, False))
            ops.append(('e', (cx, cy), (size / 2 - 1.3, size / 2 - 1.3), 0.3, lc, False))
            sname = r.choice(['育才', '实验', '明德', '启明']) if zh_paper else r.choice(['RHS', 'KGS', 'SHS'])
            o, bb, hh = build_para(sname, size, size * 0.28, hst, zh_paper, bold=True, align='center', col=lc)
            ops += shift_ops(o, cx - size / 2, cy - hh / 2)
            name = (sname + '中学') if zh_paper else {'RHS': 'Riverside High School', 'KGS': 'Kingsgate School', 'SHS': 'Southfield High School'}[sname]
            o, bb, hh = build_para(name, 80, em * 1.2, hst, zh_paper, bold=True, col=lc)
            ops += shift_ops(o, cx + size / 2 + 3, cy - hh / 2)
            features['corner_mark'] = [(cx - size / 2, cy - size / 2, cx + size / 2 + 3 + bb[2], cy + size / 2)]

    # ---- handwriting (neighbours first, then maybe a mark near the framed number)
    hand_ops = []
    fink = bexpand(fb['ink_bbox'], 0.45 * em)
    hand_done = []
    if case['handwriting']:
        near = sorted([p for p in placed if not p['is_framed']],
                      key=lambda p: (abs(p['index'] - fb['index']), p['index']))
        hr = random.Random(case['pseed'] + 99)
        pen = hr.choice([(95, 95, 100), (35, 55, 150), (40, 40, 60)])
        pencil = pen[0] > 80
        wanted = list(case['handwriting'])
        for what in wanted + [f for f in ('tick', 'circle', 'cross') if f not in wanted]:
            if what not in wanted and hand_done:
                break  # fall-backs only when nothing could be placed
            for p in near[:6]:
                hops = hand_mark(what, p, em, hr, pen, pencil, st, fb)
                if not hops:
                    continue
                hb = ops_bbox(hops)
                if boverlap(hb, fink) or any(boverlap(hb, q) for q in hand_done):
                    continue
                hand_ops += hops
                hand_done.append(hb)
                features.setdefault('handwriting', []).append(hb)
                break
    if case['hand_framed']:
        hr = random.Random(case['pseed'] + 77)
        lb = fb['label_bbox']
        col_ = hr.choice([(200, 40, 40), (95, 95, 100), (35, 55, 150)])
        if case['hand_framed'] == 'tick':
            x1 = lb[0] - 0.4 * em
            sz = 1.1 * em
            pts = [(x1 - sz, lb[1] + 0.45 * sz), (x1 - sz * 0.62, lb[3] - 0.05 * em), (x1 + 0.1 * em, lb[1] - 0.35 * sz)]
            hops = [('hs', jitter_line(pts, hr, 0.05 * em), 0.11 * em, col_, 0.9, col_[0] == 95)]
        else:
            cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2
            rx = (lb[2] - lb[0]) / 2 + 0.25 * em
            ry = (lb[3] - lb[1]) / 2 + 0.15 * em
            hops = [('hs', hand_ellipse(cx, cy, rx, ry, hr), 0.08 * em, col_, 0.9, col_[0] == 95)]
        hb = ops_bbox(hops)
        qb = fb['q_bbox']
        first_line_q = (qb[0], qb[1], qb[2], qb[1] + 1.1 * em) if qb else None
        if not (qb and boverlap(hb, first_line_q)) and not (fb.get('score_bbox') and boverlap(hb, fb['score_bbox'])):
            hand_ops += hops
            features['hand_framed'] = [hb]

    # ---- watermark
    wm_ops = []
    if case['watermark']:
        wtxt = r.choice(WM_ZH if zh_paper else WM_EN)
        wcol = r.choice([(150, 150, 150), (170, 170, 170), (200, 150, 150), (150, 160, 190)])
        walpha = r.uniform(0.11, 0.2)
        wst = {'cjk': r.choice(['cjk_sans_b', 'cjk_serif_b', 'cjk_sans']), 'latin': r.choice(['libsans_b', 'djsans_b', 'libserif_b'])}
        if case['watermark'] == 'diagonal':
            ang = r.choice([1, -1]) * r.uniform(25, 45)
            wem = r.uniform(16, 26)
            # one across the page plus copies down the page
            for hi, hf in enumerate(halves):
                n = r.randint(1, 3)
                for j in range(n):
                    cy = PH * (j + 0.5) / n
                    wm_ops.append(make_rt(wtxt, wst, wem, zh_paper, ((hf['x0'] + hf['x1']) / 2, cy), ang, wcol, walpha, 'wm'))
            # make sure one copy crosses the framed problem
            fbb = fb['text_bbox']
            wm_ops.append(make_rt(wtxt, wst, wem, zh_paper, ((fbb[0] + fbb[2]) / 2 + r.uniform(-20, 20), (fbb[1] + fbb[3]) / 2), ang, wcol, walpha, 'wm'))
        else:
            ang = r.choice([1, -1]) * r.uniform(20, 35)
            wem = r.uniform(6, 10)
            dx = r.uniform(70, 100)
            dy = r.uniform(45, 65)
            ox = r.uniform(0, dx)
            oy = r.uniform(0, dy)
            row = 0
            yy = -dy + oy
            while yy < PH + dy:
                xx = -dx + ox + (dx / 2 if row % 2 else 0)
                while xx < PW + dx:
                    wm_ops.append(make_rt(wtxt, wst, wem, zh_paper, (xx, yy), ang, wcol, walpha, 'wm'))
                    xx += dx
                yy += dy
                row += 1
        features['watermark'] = [rt_bbox(o) for o in wm_ops]
    blocks = [{'ink': p['ink_bbox'], 'text': p['text_bbox'], 'is_framed': p['is_framed'],
               'qi': p['qi']} for p in placed]
    if case['figure'] and fb.get('fig_bbox'):
        features['figure'] = [fb['fig_bbox']]
    if case['emphasis']:
        features['emphasis'] = [fb['text_bbox']]
    if lay_kind == 'a3':
        features['gutter'] = [(200.0, 0.0, 220.0, PH)]
    return {
        'PW': PW, 'PH': PH, 'ops': ops, 'wm_ops': wm_ops, 'hand_ops': hand_ops,
        'blocks': blocks, 'framed': fb, 'features': features, 'em': em, 'em_min_px': em_min_px,
        'xh': xh, 'fold_x': 210.0 if lay_kind == 'a3' else None, 'layout': '%s_%dcol' % (lay_kind, ncols),
        'pt': pt, 'zh_paper': zh_paper, 'paper_lang': paper_lang if framed_zh == zh_paper else 'mixed',
        'label': fb['spec']['label'], 'kind': fb['kind'], 'suffix': fb['spec'].get('suffix') or '',
        'score': fb['spec'].get('score', ''), 'options': bool(fb['spec'].get('options')),
        'emph_spans': emph_spans, 'fig': (fig['type'] + '/' + fig['pos']) if fig else '',
        'st': st, 'n_blocks': len(placed), 'title': title_half is not None,
    }


def ops_bbox(ops):
    bb = None
    for op in ops:
        t = op[0]
        if t in ('l', 'hs', 'p'):
            xs = [p[0] for p in op[1]]
            ys = [p[1] for p in op[1]]
            bb = bunion(bb, (min(xs), min(ys), max(xs), max(ys)))
        elif t == 'rt':
            bb = bunion(bb, rt_bbox(op))
        elif t == 'e':
            bb = bunion(bb, (op[1][0] - op[2][0], op[1][1] - op[2][1], op[1][0] + op[2][0], op[1][1] + op[2][1]))
        elif t == 'g':
            bb = bunion(bb, (op[1], op[2] - op[5], op[1] + op[5], op[2] + 0.2 * op[5]))
        elif t == 'r':
            bb = bunion(bb, op[1])
    return bb


def jitter_line(pts, r, amp):
    out = []
    for (a, b) in zip(pts[:-1], pts[1:]):
        n = 8
        for t in range(n):
            u = t / n
            out.append((a[0] + (b[0] - a[0]) * u + r.uniform(-amp, amp) * 0.3,
                        a[1] + (b[1] - a[1]) * u + r.uniform(-amp, amp) * 0.3))
    out.append(pts[-1])
    return out


def hand_ellipse(cx, cy, rx, ry, r):
    a0 = r.uniform(0, 2 * math.pi)
    span = 2 * math.pi * r.uniform(1.05, 1.2)
    pts = []
    n = 40
    wob = r.uniform(0.03, 0.08)
    for t in range(n + 1):
        a = a0 + span * t / n
        k = 1 + wob * math.sin(3 * a + a0) + 0.04 * t / n
        pts.append((cx + rx * k * math.cos(a), cy + ry * k * math.sin(a)))
    return pts


def hand_mark(what, p, em, r, pen, pencil, st, fb):
    """handwriting on a neighbouring problem block p"""
    lb = p['label_bbox']
    w = 0.09 * em
    if what == 'tick':
        x0 = lb[0] + r.uniform(-0.3, 0.3) * em
        sz = r.uniform(1.0, 1.6) * em
        col = r.choice([(200, 40, 40), pen])
        pts = [(x0, lb[1] + 0.4 * sz), (x0 + 0.35 * sz, lb[1] + 0.85 * sz), (x0 + sz, lb[1] - 0.3 * sz)]
        return [('hs', jitter_line(pts, r, 0.05 * em), w * 1.3, col, 0.9, False if col[0] == 200 else pencil)]
    if what == 'cross':
        x0 = lb[0] + r.uniform(-0.2, 0.2) * em
        s = r.uniform(0.8, 1.1) * em
        y0 = lb[1] - 0.1 * em
        col = r.choice([(200, 40, 40), pen])
        return [('hs', jitter_line([(x0, y0), (x0 + s, y0 + s)], r, 0.05 * em), w * 1.2, col, 0.9, False),
                ('hs', jitter_line([(x0 + s, y0), (x0, y0 + s)], r, 0.05 * em), w * 1.2, col, 0.9, False)]
    if what == 'circle':
        cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2
        return [('hs', hand_ellipse(cx, cy, (lb[2] - lb[0]) / 2 + 0.15 * em, (lb[3] - lb[1]) / 2 + 0.22 * em, r),
                 w, pen, 0.9, pencil)]
    hkey = r.choice(['djsans_i', 'libsans_i', 'libserif_i'])
    hst = {'cjk': 'cjk_sans', 'latin': hkey}
    if what == 'bracket_answer':
        bb = p['bracket_bbox']
        if bb is None:
            return None
        if p['spec'].get('options') or p['kind'] == 'choice':
            ans = r.choice('ABCD')
        elif has_cjk(p['spec']['text']):
            ans = r.choice(['√', '×', '5', '12', '40', '24'])
        else:
            ans = r.choice(['went', 'an', 'better', '√', '5'])
        c = ((bb[0] + bb[2]) / 2 + r.uniform(-0.2, 0.2) * em, (bb[1] + bb[3]) / 2 - 0.05 * em)
        return [make_rt(ans, hst, em * r.uniform(1.2, 1.5), False, c, r.uniform(-12, 12), pen, 0.92, 'hand', bold=not pencil)]
    if what == 'line_answer':
        bb = p['aline_bbox']
        if has_cjk(p['spec']['text']):
            ans = r.choice(['x=5', '12', '40', '3/4', '60', '2.5', '24', '1/2', '72'])
        else:
            ans = r.choice(['went', 'gone', 'since', 'for', 'an', 'a', 'cheap', 'the best', '0.375'])
        if bb is None:
            sb = p['space_bbox']
            if sb[3] - sb[1] < 1.5 * em:
                return None
            c = (sb[0] + r.uniform(0.2, 0.4) * (sb[2] - sb[0]), sb[1] + min(1.2 * em, (sb[3] - sb[1]) / 2))
        else:
            c = ((bb[0] + bb[2]) / 2 + r.uniform(-0.5, 0.5) * em, bb[1] + 0.15 * em)
        return [make_rt(ans, hst, em * r.uniform(1.15, 1.45), False, c, r.uniform(-8, 8), pen, 0.92, 'hand', bold=not pencil)]
    return None


# --------------------------------------------------------------------------
# rendering the visible part of the sheet
# --------------------------------------------------------------------------

def blend(arr, mask, x, y, col, alpha, mode):
    h, w = mask.shape
    H, W = arr.shape[:2]
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - y:y1 - y, x0 - x:x1 - x][..., None] * alpha
    sub = arr[y0:y1, x0:x1]
    c = np.array(col, np.float32)
    if mode == 'mul':
        sub *= 1.0 - m * (1.0 - c / 255.0)
    else:
        sub *= 1.0 - m
        sub += m * c


def rt_mask(op, ppm, cache):
    (cx, cy), gl, width, em, ang = op[1], op[2], op[3], op[4], op[5]
    key = (gl, round(em, 3), round(ang, 3), round(ppm, 3))
    if key in cache:
        return cache[key]
    scale = min(1.0, 180.0 / max(1.0, em * ppm))  # big text rendered smaller then upscaled
    e = em * ppm * scale
    wpx = int(width * ppm * scale + e * 0.6) + 4
    hpx = int(e * 1.5) + 4
    img = Image.new('L', (wpx, hpx), 0)
    d = ImageDraw.Draw(img)
    for dx, ch, k in gl:
        d.text((2 + e * 0.3 + dx * ppm * scale, 2 + e * 1.12), ch, font=font(k, e), fill=255, anchor='ls')
    img = img.rotate(ang, resample=Image.BICUBIC, expand=True)
    m = np.asarray(img, np.float32) / 255.0
    if scale < 1.0:
        m = cv2.resize(m, (max(1, int(m.shape[1] / scale)), max(1, int(m.shape[0] / scale))),
                       interpolation=cv2.INTER_LINEAR)
    cache[key] = m
    return m


def render_region(page, region, ppm, paper, rng):
    x0, y0, x1, y1 = region
    Wc = int(math.ceil((x1 - x0) * ppm))
    Hc = int(math.ceil((y1 - y0) * ppm))
    arr = np.empty((Hc, Wc, 3), np.float32)
    arr[:] = np.array(paper, np.float32)

    def P(x, y):
        return ((x - x0) * ppm, (y - y0) * ppm)

    def vis(bb):
        return bb[2] >= x0 - 2 and bb[0] <= x1 + 2 and bb[3] >= y0 - 2 and bb[1] <= y1 + 2

    SH = 16
    u8 = np.ascontiguousarray(arr.astype(np.uint8))

    def ip(pts):
        return np.array([[int(round(P(x, y)[0] * SH)), int(round(P(x, y)[1] * SH))] for x, y in pts], np.int32)
    glyph_ops = []
    rts = []
    # shapes with cv2 (anti-aliased)
    for op in page['ops']:
        t = op[0]
        if t == 'g':
            if x0 - op[5] <= op[1] <= x1 + op[5] and y0 - op[5] <= op[2] <= y1 + 2 * op[5]:
                glyph_ops.append(op)
            continue
        if t == 'rt':
            if vis(rt_bbox(op)):
                rts.append(op)
            continue
        if t == 'l':
            pts, w, col, dash = op[1], op[2], op[3], op[4]
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            if not vis((min(xs), min(ys), max(xs), max(ys))):
                continue
            th = max(1, int(round(w * ppm)))
            segs = [pts]
            if dash:
                segs = []
                on, off = dash
                for a, b in zip(pts[:-1], pts[1:]):
                    L = math.hypot(b[0] - a[0], b[1] - a[1])
                    if L <= 1e-9:
                        continue
                    s = 0.0
                    while s < L:
                        e = min(L, s + on)
                        segs.append([(a[0] + (b[0] - a[0]) * s / L, a[1] + (b[1] - a[1]) * s / L),
                                     (a[0] + (b[0] - a[0]) * e / L, a[1] + (b[1] - a[1]) * e / L)])
                        s += on + off
            for sg in segs:
                cv2.polylines(u8, [ip(sg)], False, tuple(int(c) for c in col), th, cv2.LINE_AA, 4)
        elif t == 'r':
            b, w, col, fill = op[1], op[2], op[3], op[4]
            if not vis(b):
                continue
            pts = ip([(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])])
            if fill:
                cv2.fillPoly(u8, [pts], tuple(int(c) for c in col), cv2.LINE_AA, 4)
            else:
                cv2.polylines(u8, [pts], True, tuple(int(c) for c in col), max(1, int(round(w * ppm))), cv2.LINE_AA, 4)
        elif t == 'e':
            (cx, cy), (rx, ry), w, col, fill = op[1], op[2], op[3], op[4], op[5]
            if not vis((cx - rx, cy - ry, cx + rx, cy + ry)):
                continue
            c = P(cx, cy)
            cv2.ellipse(u8, (int(c[0] * SH), int(c[1] * SH)), (max(1, int(rx * ppm * SH)), max(1, int(ry * ppm * SH))),
                        0, 0, 360, tuple(int(v) for v in col), -1 if fill else max(1, int(round(w * ppm))), cv2.LINE_AA, 4)
        elif t == 'p':
            xs = [p[0] for p in op[1]]
            ys = [p[1] for p in op[1]]
            if not vis((min(xs), min(ys), max(xs), max(ys))):
                continue
            cv2.fillPoly(u8, [ip(op[1])], tuple(int(c) for c in op[2]), cv2.LINE_AA, 4)
    # glyphs with PIL
    img = Image.fromarray(u8)
    d = ImageDraw.Draw(img)
    for op in glyph_ops:
        _, x, y, ch, k, em, col = op
        if ch in ' \u3000':
            continue
        px, py = P(x, y)
        d.text((px, py), ch, font=font(k, em * ppm), fill=tuple(int(c) for c in col), anchor='ls')
    arr = np.asarray(img, np.float32).copy()
    cache = {}
    for op in rts:
        m = rt_mask(op, ppm, cache)
        c = P(*op[1])
        blend(arr, m, int(round(c[0] - m.shape[1] / 2)), int(round(c[1] - m.shape[0] / 2)), op[6], op[7], 'over')
    # watermark (multiply)
    for op in page['wm_ops']:
        if not vis(rt_bbox(op)):
            continue
        m = rt_mask(op, ppm, cache)
        c = P(*op[1])
        blend(arr, m, int(round(c[0] - m.shape[1] / 2)), int(round(c[1] - m.shape[0] / 2)), op[6], op[7] * 2.2, 'mul')
    # handwriting
    for op in page['hand_ops']:
        if op[0] == 'rt':
            if not vis(rt_bbox(op)):
                continue
            m = rt_mask(op, ppm, cache)
            if op[5] != 0:
                pass
            c = P(*op[1])
            blend(arr, m, int(round(c[0] - m.shape[1] / 2)), int(round(c[1] - m.shape[0] / 2)), op[6], op[7], 'over')
            continue
        pts, w, col, alpha, pencil = op[1], op[2], op[3], op[4], op[5]
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        bb = (min(xs) - w, min(ys) - w, max(xs) + w, max(ys) + w)
        if not vis(bb):
            continue
        ox, oy = int(math.floor((bb[0] - x0) * ppm)) - 2, int(math.floor((bb[1] - y0) * ppm)) - 2
        mw, mh = int((bb[2] - bb[0]) * ppm) + 6, int((bb[3] - bb[1]) * ppm) + 6
        m = np.zeros((mh, mw), np.uint8)
        q = np.array([[int(round(((x - x0) * ppm - ox) * SH)), int(round(((y - y0) * ppm - oy) * SH))] for x, y in pts], np.int32)
        cv2.polylines(m, [q], False, 255, max(1, int(round(w * ppm))), cv2.LINE_AA, 4)
        mf = m.astype(np.float32) / 255.0
        if pencil:
            mf *= rng.uniform(0.45, 1.0, mf.shape).astype(np.float32)
            mf = cv2.GaussianBlur(mf, (0, 0), 0.6)
        blend(arr, mf, ox, oy, col, alpha, 'over')
    # fold of an A3 spread
    if page['fold_x'] is not None and x0 < page['fold_x'] + 40 and x1 > page['fold_x'] - 40:
        xs = x0 + (np.arange(Wc) + 0.5) / ppm
        fd = page['fold_depth']
        fw = page['fold_width']
        f = 1.0 - fd * np.exp(-((xs - page['fold_x']) / fw) ** 2)
        f -= page['fold_side'] * np.clip((xs - page['fold_x']) / 60.0, 0, 1) * 0.0
        side = np.where(xs > page['fold_x'], 1.0 - page['fold_side'], 1.0)
        arr *= (f * side)[None, :, None].astype(np.float32)
    return arr


# --------------------------------------------------------------------------
# camera
# --------------------------------------------------------------------------

def happly(Hm, pts):
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ Hm.T
    return q[:, :2] / q[:, 2:3]


def Tm(dx, dy):
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64)


def make_h(P, s, theta, tilt, tilt_dir, W, H):
    th = math.radians(theta)
    A = Tm(W / 2, H / 2) @ np.array([[s * math.cos(th), -s * math.sin(th), 0],
                                     [s * math.sin(th), s * math.cos(th), 0], [0, 0, 1]]) @ Tm(-P[0], -P[1])
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    c = np.array([W / 2, H / 2])
    ux, uy = math.cos(tilt_dir), math.sin(tilt_dir)
    dst = []
    for (x, y) in src:
        d = np.array([x, y]) - c
        proj = (d[0] * ux / (W / 2) + d[1] * uy / (H / 2)) / 1.0
        proj = max(-1.0, min(1.0, proj))
        k = 1 - tilt * proj
        # shrink only perpendicular to the tilt direction (keystone)
        perp = np.array([-uy, ux])
        dp = np.dot(d, perp) * perp
        dd = np.dot(d, np.array([ux, uy])) * np.array([ux, uy])
        dst.append(c + dd * (1 - 0.35 * tilt * proj) + dp * k)
    Hp = cv2.getPerspectiveTransform(src, np.array(dst, np.float32)).astype(np.float64)
    Ht = Hp @ A
    q = happly(Ht, [P])[0]
    return Tm(W / 2 - q[0], H / 2 - q[1]) @ Ht


def local_scale(Hm, p):
    a = happly(Hm, [p, (p[0] + 1, p[1]), (p[0], p[1] + 1)])
    J = np.array([a[1] - a[0], a[2] - a[0]]).T
    sv = np.linalg.svd(J, compute_uv=False)
    return sv.min(), sv.max()


def corners(b):
    return [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]


def frac_visible(Hm, b, W, H, n=6):
    pts = [(b[0] + (b[2] - b[0]) * (i + 0.5) / n, b[1] + (b[3] - b[1]) * (j + 0.5) / n)
           for i in range(n) for j in range(n)]
    q = happly(Hm, pts)
    ok = (q[:, 0] >= 0) & (q[:, 0] < W) & (q[:, 1] >= 0) & (q[:, 1] < H)
    return float(ok.mean())


def choose_camera(page, case, r):
    W, H = case['W'], case['H']
    fb = page['framed']
    em = page['em']
    em_min = page['em_min_px']
    tb = fb['text_bbox']
    full = bunion(fb['text_bbox'], fb['opt_bbox'])
    inkb = fb['ink_bbox']
    margin = max(14.0, 0.025 * min(W, H))
    bw_em = (full[2] - full[0]) / em
    bh_em = (full[3] - full[1]) / em
    fit_em = min((W - 2 * margin) / bw_em, (H - 2 * margin) / bh_em)
    prim = case['primary']
    gkeys = {'watermark': ['watermark'], 'sealed_line': ['sealed_line'],
             'furniture': [case['furniture'][0] if case['furniture'] else 'footer'],
             'figure': ['figure'], 'emphasis': ['emphasis'], 'handwriting': ['handwriting'],
             'layout': {'a3_spread': ['gutter'], 'two_column': ['column_divider'],
                        }.get(case['layout'], ['corner_mark'])}[prim]
    if prim == 'furniture' and gkeys[0] in ('defen_box', 'section_heading'):
        gkeys = ['section_heading_framed', gkeys[0]]
    if prim == 'layout' and case['layout'] == 'two_column':
        gkeys = ['column_gap']
    gboxes = []
    for k in gkeys:
        gboxes += page['features'].get(k, [])
    # direction from framed toward goal
    gdir = (0.0, 0.0)
    if gboxes:
        fcx, fcy = (tb[0] + tb[2]) / 2, (tb[1] + tb[3]) / 2
        g = min(gboxes, key=lambda b: math.hypot((b[0] + b[2]) / 2 - fcx, (b[1] + b[3]) / 2 - fcy))
        gx, gy = (g[0] + g[2]) / 2 - fcx, (g[1] + g[3]) / 2 - fcy
        n = math.hypot(gx, gy) or 1.0
        gdir = (gx / n, gy / n)
    others = [b for b in page['blocks'] if not b['is_framed']]
    best = None
    need_vis = 0.9 if prim == 'figure' else 0.3
    phases = [(case['shot'], 45)]
    if prim in ('sealed_line', 'furniture', 'layout', 'handwriting', 'figure') and gboxes:
        phases += [('mid', 25), ('far', 35)]
    for phase, (shot, n_att) in enumerate(phases):
        for attempt in range(n_att):
            relax = min(1.0, attempt / 30.0) if best is None else 0.0
            theta = case['rotation'] * (1 - 0.8 * relax)
            tilt = case['tilt'] * (1 - 0.8 * relax)
            tilt_dir = r.uniform(0, 2 * math.pi)
            lo = em_min * 1.04
            if shot == 'close':
                e_px = r.uniform(0.62, 0.92) * (W - 2 * margin) / bw_em
                e_px = min(e_px, 88.0, fit_em * 0.97)
                e_px = max(e_px, lo * 1.25)
            elif shot == 'mid':
                e_px = r.uniform(1.12, 1.45) * lo
            else:
                e_px = r.uniform(1.0, 1.1) * lo
            e_px = min(e_px, fit_em * 0.97)
            # P within the framed question text, inside the range where the whole
            # problem still fits the frame, biased towards the goal feature
            s = e_px / em
            qb = fb['q_bbox'] or tb
            hw = (W / 2 - margin) / (s * (1 + tilt)) * 0.96
            hh = (H / 2 - margin) / (s * (1 + tilt)) * 0.96
            fx0, fx1 = max(qb[0], full[2] - hw), min(qb[2], full[0] + hw)
            if fx0 > fx1:
                # e.g. a right-aligned answer bracket far from a short question:
                # allow the centre anywhere on the problem's own lines
                fx0, fx1 = max(tb[0], full[2] - hw), min(tb[2], full[0] + hw)
            if fx0 > fx1:
                fx0 = fx1 = min(max((full[0] + full[2]) / 2, tb[0]), tb[2])
            qy0, qy1 = qb[1] + 0.3 * (qb[3] - qb[1]), qb[1] + 0.7 * (qb[3] - qb[1])
            fy0, fy1 = max(qy0, full[3] - hh), min(qy1, full[1] + hh)
            if fy0 > fy1:
                fy0 = fy1 = min(max((full[1] + full[3]) / 2, qy0), qy1)
            reach = 0.3 if phase == 0 else 0.5
            bx = 0.5 + reach * gdir[0] * r.uniform(0.3, 1.0) + r.uniform(-0.2, 0.2)
            by = 0.5 + 0.3 * gdir[1] * r.uniform(0.0, 1.0) + r.uniform(-0.2, 0.2)
            bx = min(1.0, max(0.0, bx))
            by = min(1.0, max(0.0, by))
            P = (fx0 + (fx1 - fx0) * bx, fy0 + (fy1 - fy0) * by)
            Hm = make_h(P, s, theta, tilt, tilt_dir, W, H)
            mins = min(local_scale(Hm, p)[0] for p in corners(tb))
            if mins * em < em_min:
                s *= em_min / (mins * em) * 1.01
                Hm = make_h(P, s, theta, tilt, tilt_dir, W, H)
                mins = min(local_scale(Hm, p)[0] for p in corners(tb))
            qc = happly(Hm, corners(full))
            if not ((qc[:, 0] >= margin).all() and (qc[:, 0] <= W - margin).all()
                    and (qc[:, 1] >= margin).all() and (qc[:, 1] <= H - margin).all()):
                continue
            # centre rule, in photo pixels
            cpt = (W / 2.0, H / 2.0)
            fpoly = happly(Hm, corners(tb)).astype(np.float32)
            if cv2.pointPolygonTest(fpoly, cpt, True) < 0:
                continue
            dmin = 1e9
            for b in others:
                poly = happly(Hm, corners(b['ink'])).astype(np.float32)
                d = -cv2.pointPolygonTest(poly, cpt, True)
                dmin = min(dmin, d)
            if dmin < 0.6 * mins * em:
                continue
            inkq = happly(Hm, corners(inkb))
            ink_in = bool((inkq[:, 0] >= 0).all() and (inkq[:, 0] <= W).all()
                          and (inkq[:, 1] >= 0).all() and (inkq[:, 1] <= H).all())
            gv = max([frac_visible(Hm, b, W, H) for b in gboxes] or [0.0])
            score = min(gv, need_vis) * 10 + (0.5 if ink_in else 0.0) + 0.01 * gv
            cand = {'H': Hm, 'P': P, 's': s, 'theta': theta, 'tilt': tilt, 'em_px': mins * em,
                    'dmin': dmin, 'goal_vis': gv, 'ink_in': ink_in, 'score': score, 'shot': shot}
            if best is None or score > best['score'] + 1e-9:
                best = cand
            if gv >= need_vis and ink_in:
                break
        if best is not None and (best['goal_vis'] >= need_vis or not gboxes):
            break
    if best is None:
        # plain fallback: no rotation, no tilt, fitted scale, centre of the text
        P = ((tb[0] + tb[2]) / 2, (tb[1] + tb[3]) / 2)
        qb = fb['q_bbox'] or tb
        P = (min(max(P[0], qb[0]), qb[2]), min(max(P[1], qb[1]), qb[3]))
        s = max(em_min * 1.01, min(fit_em * 0.97, em_min * 1.2)) / em
        Hm = make_h(P, s, 0.0, 0.0, 0.0, W, H)
        best = {'H': Hm, 'P': P, 's': s, 'theta': 0.0, 'tilt': 0.0, 'em_px': s * em, 'dmin': -1,
                'goal_vis': 0.0, 'ink_in': False, 'score': 0, 'shot': 'fallback'}
    return best


# --------------------------------------------------------------------------
# photo effects
# --------------------------------------------------------------------------

def smooth_noise(nr, h, w, cell, amp):
    gh, gw = max(2, h // cell + 2), max(2, w // cell + 2)
    g = nr.normal(0, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def background(nr, r, W, H):
    """desk surface under the sheet"""
    kind = r.choice(['wood', 'wood', 'laminate', 'white', 'dark', 'fabric'])
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    if kind == 'wood':
        base = np.array([r.uniform(120, 175), r.uniform(78, 118), r.uniform(42, 78)], np.float32)
        ang = math.radians(r.uniform(0, 180))
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        # grain: 1-d noise across the boards, stretched along them
        n = int(abs(W * math.sin(ang)) + abs(H * math.cos(ang))) + 8
        g1 = nr.normal(0, 1, n // 3 + 2).astype(np.float32)
        g1 = np.interp(np.arange(n) / 3.0, np.arange(len(g1)), g1).astype(np.float32)
        vv = np.clip((v - v.min()).astype(np.int32), 0, n - 1)
        grain = g1[vv] + 0.5 * np.sin(u / r.uniform(60, 140) + g1[vv] * 2.0)
        bg = base[None, None, :] * (1 + 0.07 * grain[..., None])
    elif kind == 'laminate':
        bg = np.full((H, W, 3), r.uniform(150, 200), np.float32) * np.array([1.0, 0.98, 0.93], np.float32)
    elif kind == 'white':
        bg = np.full((H, W, 3), r.uniform(185, 215), np.float32) * np.array([1.0, 1.0, 0.98], np.float32)
    elif kind == 'fabric':
        c = np.array(r.choice([(60, 70, 110), (90, 60, 50), (70, 90, 70), (110, 110, 115)]), np.float32)
        weave = 0.5 * (np.sin(xx * 1.3) + np.sin(yy * 1.3))
        bg = c[None, None, :] * (1 + 0.04 * weave[..., None])
    else:
        bg = np.full((H, W, 3), r.uniform(35, 60), np.float32) * np.array([1.0, 1.0, 1.08], np.float32)
    bg *= (1 + smooth_noise(nr, H, W, 320, 0.03))[..., None]
    bg += nr.normal(0, 2.5, bg.shape).astype(np.float32)
    return bg


def render_photo(page, case, cam, r, nr):
    W, H = case['W'], case['H']
    Hm = cam['H']
    Hinv = np.linalg.inv(Hm)
    view = happly(Hinv, [(0, 0), (W, 0), (W, H), (0, H), (W / 2, 0), (W, H / 2), (W / 2, H), (0, H / 2)])
    m = 6.0
    region = (max(0.0, view[:, 0].min() - m), max(0.0, view[:, 1].min() - m),
              min(page['PW'], view[:, 0].max() + m), min(page['PH'], view[:, 1].max() + m))
    smax = 0.0
    for p in view[:4].tolist() + [happly(Hinv, [(W / 2, H / 2)])[0].tolist()]:
        p = (min(max(p[0], region[0]), region[2]), min(max(p[1], region[1]), region[3]))
        smax = max(smax, local_scale(Hm, p)[1])
    ppm = min(30.0, smax * 1.05)
    # cap canvas size
    area = (region[2] - region[0]) * (region[3] - region[1]) * ppm * ppm
    if area > 14e6:
        ppm *= math.sqrt(14e6 / area)
    paper = (r.uniform(242, 252), r.uniform(240, 250), r.uniform(232, 246))
    canvas = render_region(page, region, ppm, paper, nr)
    S = np.array([[1 / ppm, 0, region[0]], [0, 1 / ppm, region[1]], [0, 0, 1]], np.float64)
    M = Hm @ S
    # small blur before downsampling for anti-aliasing
    down = smax / ppm
    if down < 0.75:
        canvas = cv2.GaussianBlur(canvas, (0, 0), 0.45 / max(down, 0.2))
    warped = cv2.warpPerspective(canvas, M, (W, H), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    ones = np.ones(canvas.shape[:2], np.float32)
    mask = cv2.warpPerspective(ones, M, (W, H), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    # page edges: only where the region touches the real page boundary; elsewhere the
    # canvas edge lies outside the photo by construction.
    bg = background(nr, r, W, H)
    sh = cv2.GaussianBlur(mask, (0, 0), r.uniform(4, 10))
    sdx, sdy = r.uniform(2, 8), r.uniform(2, 8)
    sh = cv2.warpAffine(sh, np.float32([[1, 0, sdx], [0, 1, sdy]]), (W, H),
                        borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    bg *= (1 - 0.45 * sh)[..., None]
    # paper texture
    tex = 1 + smooth_noise(nr, H, W, 90, 0.015) + nr.normal(0, 0.008, (H, W)).astype(np.float32)
    img = warped * tex[..., None] * mask[..., None] + bg * (1 - mask[..., None])
    # lighting
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xn, yn = (xx - W / 2) / (W / 2), (yy - H / 2) / (H / 2)
    a = r.uniform(0, 2 * math.pi)
    g = r.uniform(0.05, 0.25)
    light = 1 + g * (xn * math.cos(a) + yn * math.sin(a)) / 1.4
    light *= 1 - r.uniform(0.05, 0.22) * (xn ** 2 + yn ** 2) / 2
    lk = case['light']
    gain = {'warm': (1.04, 1.0, 0.88), 'cool': (0.93, 0.98, 1.06), 'neutral': (1.0, 1.0, 1.0),
            'dim': (0.82, 0.8, 0.76), 'bright': (1.06, 1.06, 1.05)}[lk]
    if case['shadow']:
        # a soft shadow of the phone/hand entering from one edge
        sm = np.zeros((H, W), np.float32)
        edge = r.choice(['top', 'bottom', 'left', 'right', 'top'])
        d = r.uniform(0.12, 0.35)
        w0, w1 = sorted([r.uniform(-0.2, 0.7), r.uniform(0.3, 1.2)])
        if edge in ('top', 'bottom'):
            y_in = d * H
            pts = [(w0 * W, 0), (w1 * W, 0), (w1 * W + r.uniform(-80, 80), y_in), (w0 * W + r.uniform(-80, 80), y_in * r.uniform(0.7, 1.1))]
            if edge == 'bottom':
                pts = [(x, H - y) for x, y in pts]
        else:
            x_in = d * W
            pts = [(0, w0 * H), (0, w1 * H), (x_in, w1 * H + r.uniform(-80, 80)), (x_in * r.uniform(0.7, 1.1), w0 * H + r.uniform(-80, 80))]
            if edge == 'right':
                pts = [(W - x, y) for x, y in pts]
        cv2.fillPoly(sm, [np.array(pts, np.int32)], 1.0)
        sm = cv2.GaussianBlur(sm, (0, 0), r.uniform(25, 60))
        light *= 1 - r.uniform(0.25, 0.45) * sm
    img *= light[..., None]
    img *= np.array(gain, np.float32)[None, None, :]
    # blur
    sig = case['blur']
    if sig > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sig)
    if r.random() < 0.15:
        L = r.randint(3, 5)
        k = np.zeros((L, L), np.float32)
        ang = r.uniform(0, 180)
        c = (L - 1) / 2
        for t in np.linspace(-c, c, 4 * L):
            k[int(round(c + t * math.sin(math.radians(ang)))), int(round(c + t * math.cos(math.radians(ang))))] = 1
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
    # noise
    img += nr.normal(0, r.uniform(1.5, 4.5), img.shape).astype(np.float32)
    img += nr.normal(0, 1.0, (H, W, 1)).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    return img


# --------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------

BANK = None


def make_one(args):
    case, outdir, seed = args
    bank = BANK
    r = random.Random('%d:%d:page' % (seed, case['i']))
    nr = np.random.default_rng([seed, case['i']])
    page = compose_page(case, bank, r)
    page['fold_depth'] = r.uniform(0.08, 0.2)
    page['fold_width'] = r.uniform(3.0, 8.0)
    page['fold_side'] = r.uniform(0.0, 0.06)
    rc = random.Random('%d:%d:camera' % (seed, case['i']))
    cam = choose_camera(page, case, rc)
    rp = random.Random('%d:%d:photo' % (seed, case['i']))
    img = render_photo(page, case, cam, rp, nr)
    path = os.path.join(outdir, case['qid'] + '.jpg')
    Image.fromarray(img, 'RGB').save(path, 'JPEG', quality=case['jpeg'])
    fb = page['framed']
    Hm = cam['H']
    quad = happly(Hm, corners(fb['text_bbox']))
    W, H = case['W'], case['H']
    vis = []
    for k, bbs in sorted(page['features'].items()):
        if k in ('emphasis',):
            vis.append(k)
            continue
        if max(frac_visible(Hm, b, W, H) for b in bbs) >= 0.15:
            vis.append(k)
    # shot classification from the result
    fill = (quad[:, 0].max() - quad[:, 0].min()) / W
    n_vis = 0
    for b in page['blocks']:
        if frac_visible(Hm, b['ink'], W, H, 4) > 0:
            n_vis += 1
    row = {
        'qid': case['qid'], 'id': case['id'], 'primary': case['primary'],
        'themes': ';'.join(case['themes'] + ['photo']),
        'paper_lang': page['paper_lang'], 'layout': page['layout'],
        'font_pt': page['pt'], 'fonts': page['st']['cjk'] + '+' + page['st']['latin'],
        'label': page['label'], 'section_kind': page['kind'], 'suffix': page['suffix'],
        'score_note': page['score'], 'options': int(page['options']),
        'watermark': case['watermark'], 'sealed_line': case['seal'],
        'furniture': ';'.join(case['furniture']), 'figure': page['fig'],
        'emphasis': ';'.join('%s[%d:%d]' % (k, s, e) for s, e, k in page['emph_spans']),
        'handwriting': ';'.join(case['handwriting']), 'hand_framed': case['hand_framed'] if 'hand_framed' in page['features'] else '',
        'visible': ';'.join(vis), 'goal_visible': round(cam['goal_vis'], 2),
        'shot': cam['shot'], 'size': '%dx%d' % (W, H),
        'rotation': round(cam['theta'], 2), 'tilt': round(cam['tilt'], 3), 'blur': case['blur'],
        'jpeg_q': case['jpeg'], 'shadow': int(case['shadow']), 'light': case['light'],
        'em_px': round(cam['em_px'], 1), 'xh_px': round(cam['em_px'] * page['xh'], 1),
        'fill': round(fill, 3), 'blocks_visible': n_vis,
        'centre_gap_px': round(cam['dmin'], 1),
        'framed_quad': ' '.join('%.1f,%.1f' % (x, y) for x, y in quad),
    }
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True)
    ap.add_argument('outdir')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--jobs', type=int, default=1)
    a = ap.parse_args(argv)
    global BANK
    bank = []
    with open(a.bank, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            d = json.loads(line)
            if isinstance(d.get('id'), str) and isinstance(d.get('question'), str) and d['question'].strip():
                bank.append({'id': d['id'], 'question': d['question'], 'subject': d.get('subject') or ''})
    if len(bank) < 10:
        raise SystemExit('bank too small')
    BANK = bank
    os.makedirs(a.outdir, exist_ok=True)
    for p in glob.glob(os.path.join(a.outdir, 'ex*.jpg')) + [os.path.join(a.outdir, n) for n in ('truth.csv', 'queries.csv', 'cases.csv')]:
        if os.path.exists(p):
            os.remove(p)
    preload_fonts()
    cases = plan_cases(bank, a.count, a.seed)
    work = [(c, a.outdir, a.seed) for c in cases]
    if a.jobs > 1:
        import multiprocessing as mp
        ctx = mp.get_context('fork')
        with ctx.Pool(a.jobs) as pool:
            rows = list(pool.imap(make_one, work, chunksize=1))
    else:
        rows = [make_one(w) for w in work]
    with open(os.path.join(a.outdir, 'truth.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for c in cases:
            w.writerow([c['qid'], bank[c['bank_index']]['question']])
    with open(os.path.join(a.outdir, 'queries.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for c in cases:
            w.writerow([c['qid'], bank[c['bank_index']]['question'], c['id'], 'exact'])
    with open(os.path.join(a.outdir, 'cases.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for row in rows:
            w.writerow(row)
    print('wrote %d photos to %s' % (len(rows), a.outdir))


if __name__ == '__main__':
    main()
