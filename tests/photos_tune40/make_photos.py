#!/usr/bin/env python3
"""Synthetic phone photos of an open bound book (textbook / workbook / revision
guide) for tuning an OCR step.  Each photo frames exactly one bank question
(the printed numbered problem nearest the image centre); truth.csv holds that
question's bank text, queries.csv the matching retrieval query.

    make_photos.py --bank BANK OUT_DIR --count 120 --seed 411 [--jobs 2]

Only numpy, Pillow, opencv-python-headless and system fonts are used.  Output
is byte-identical for a given (bank, seed, count) whatever --jobs is: the run
plan comes from default_rng(seed), every photo from default_rng([seed, i]).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import subprocess
import sys
import time
from collections import Counter

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------
_NOTO = '/usr/share/fonts/opentype/noto/'
_DV = '/usr/share/fonts/truetype/dejavu/'
_LIB = '/usr/share/fonts/truetype/liberation/'
FONT_WANT = {
    # key: (family, style, fallback path, fallback index)
    'cjk_serif': ('Noto Serif CJK SC', 'Regular', _NOTO + 'NotoSerifCJK-Regular.ttc', 2),
    'cjk_serif_b': ('Noto Serif CJK SC', 'Bold', _NOTO + 'NotoSerifCJK-Bold.ttc', 2),
    'cjk_sans': ('Noto Sans CJK SC', 'Regular', _NOTO + 'NotoSansCJK-Regular.ttc', 2),
    'cjk_sans_b': ('Noto Sans CJK SC', 'Bold', _NOTO + 'NotoSansCJK-Bold.ttc', 2),
    'lib_serif': ('Liberation Serif', 'Regular', _LIB + 'LiberationSerif-Regular.ttf', 0),
    'lib_serif_b': ('Liberation Serif', 'Bold', _LIB + 'LiberationSerif-Bold.ttf', 0),
    'lib_sans': ('Liberation Sans', 'Regular', _LIB + 'LiberationSans-Regular.ttf', 0),
    'lib_sans_b': ('Liberation Sans', 'Bold', _LIB + 'LiberationSans-Bold.ttf', 0),
    'dv_sans': ('DejaVu Sans', 'Book', _DV + 'DejaVuSans.ttf', 0),
    'dv_sans_b': ('DejaVu Sans', 'Bold', _DV + 'DejaVuSans-Bold.ttf', 0),
    'dv_serif': ('DejaVu Serif', 'Book', _DV + 'DejaVuSerif.ttf', 0),
    'dv_serif_b': ('DejaVu Serif', 'Bold', _DV + 'DejaVuSerif-Bold.ttf', 0),
}


def _fc_list():
    try:
        out = subprocess.run(['fc-list', '--format', '%{file}\t%{index}\t%{family}\t%{style}\n'],
                             capture_output=True, text=True, timeout=30).stdout
    except Exception:
        return []
    rows = []
    for line in out.splitlines():
        p = line.split('\t')
        if len(p) == 4:
            rows.append((p[0], int(p[1] or 0), p[2].split(','), p[3].split(',')))
    rows.sort()
    return rows


class Fonts:
    """Font files resolved once per process; per-character glyph fallback."""

    def __init__(self):
        rows = _fc_list()
        self.paths = {}
        for key, (fam, sty, fpath, fidx) in FONT_WANT.items():
            hit = None
            for path, idx, fams, stys in rows:
                if fam in fams and sty in stys:
                    hit = (path, idx)
                    break
            if hit is None and os.path.exists(fpath):
                hit = (fpath, fidx)
            if hit is not None:
                self.paths[key] = hit
        if 'cjk_sans' not in self.paths and 'cjk_serif' not in self.paths:
            sys.exit('no CJK font (Noto Sans/Serif CJK SC) found')
        # substitute missing keys by a present relative
        subst = {'cjk_serif': 'cjk_sans', 'cjk_sans': 'cjk_serif', 'cjk_serif_b': 'cjk_sans_b',
                 'cjk_sans_b': 'cjk_serif_b', 'lib_serif': 'dv_serif', 'lib_serif_b': 'dv_serif_b',
                 'lib_sans': 'dv_sans', 'lib_sans_b': 'dv_sans_b', 'dv_serif': 'lib_serif',
                 'dv_serif_b': 'lib_serif_b', 'dv_sans': 'lib_sans', 'dv_sans_b': 'lib_sans_b'}
        for key in FONT_WANT:
            if key not in self.paths:
                alt = subst.get(key)
                if alt in self.paths:
                    self.paths[key] = self.paths[alt]
                else:
                    self.paths[key] = self.paths.get('cjk_sans') or self.paths['cjk_serif']
        self._cache = {}
        self._has = {}
        self._notdef = {}

    def get(self, key, size):
        size = max(6, int(round(size)))
        k = (key, size)
        f = self._cache.get(k)
        if f is None:
            path, idx = self.paths[key]
            f = ImageFont.truetype(path, size, index=idx, layout_engine=ImageFont.Layout.BASIC)
            self._cache[k] = f
        return f

    def has(self, key, ch):
        k = (self.paths[key], ch)
        r = self._has.get(k)
        if r is None:
            if ch.isspace():
                r = True
            else:
                f = self.get(key, 40)
                nd = self._notdef.get(self.paths[key])
                if nd is None:
                    m = f.getmask('\uffff')
                    nd = (m.size, bytes(m))
                    self._notdef[self.paths[key]] = nd
                m = f.getmask(ch)
                r = (m.size, bytes(m)) != nd
            self._has[k] = r
        return r

    def pick(self, chain, ch):
        for key in chain:
            if self.has(key, ch):
                return key
        return chain[0]


FONTS = None


def fonts():
    global FONTS
    if FONTS is None:
        FONTS = Fonts()
    return FONTS


# --------------------------------------------------------------------------
# text model
# --------------------------------------------------------------------------
SUP = dict(zip('⁰¹²³⁴⁵⁶⁷⁸⁹ⁿ⁺⁻', '0123456789n+-'))
SUB = dict(zip('₀₁₂₃₄₅₆₇₈₉ₙₐₓₘ₊₋', '0123456789naxm+-'))
OPEN = set('（《「『【〔“‘〈')
CLOSE = set('，。、；：？！）》」』】〕”’〉…℃')


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF
            or 0x3000 <= o <= 0x303F or 0xFE30 <= o <= 0xFE4F)


def has_cjk(text):
    return any(0x4E00 <= ord(c) <= 0x9FFF for c in text)


def has_supsub(text):
    return any(c in SUP or c in SUB for c in text)


class G:
    """One printed item: a character, a space, a drawn blank rule or a gap."""
    __slots__ = ('d', 'kind', 'cls', 'role', 'script', 'bold', 'color', 'rel', 'w', 'fk', 'size', 'x')

    def __init__(self, d='', kind='c', cls='lat', role='lat', script=0, bold=False, color=None,
                 rel=1.0, w=0.0):
        self.d, self.kind, self.cls, self.role = d, kind, cls, role
        self.script, self.bold, self.color, self.rel, self.w = script, bold, color, rel, w
        self.fk, self.size, self.x = None, 0, 0.0


def glyphs_of(text, zh, bold=False, color=None, rel=1.0, rule_em=4.0):
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '_':
            j = i
            while j < len(text) and text[j] == '_':
                j += 1
            out.append(G('', 'rule', 'lat', 'lat', bold=bold, color=color, rel=rel, w=rule_em))
            i = j
            continue
        if ch == ' ':
            out.append(G(' ', 'sp', 'sp', 'lat', rel=rel))
        elif ch in SUP:
            out.append(G(SUP[ch], 'c', 'lat', 'lat', 1, bold, color, rel))
        elif ch in SUB:
            out.append(G(SUB[ch], 'c', 'lat', 'lat', -1, bold, color, rel))
        else:
            quote = ch in '“”‘’'
            if quote and not zh:
                cls = 'lat'
            elif ch in OPEN:
                cls = 'open'
            elif ch in CLOSE:
                cls = 'close'
            elif is_cjk(ch):
                cls = 'cjk'
            else:
                cls = 'lat'
            role = 'cjk' if (is_cjk(ch) or (quote and zh)) else 'lat'
            out.append(G(ch, 'c', cls, role, 0, bold, color, rel))
        i += 1
    return out


class Ctx:
    """Per-photo typographic context (page space, F = body em in px)."""

    def __init__(self, F, cjk_serif, lat_key, ink, accent):
        self.F = F
        self.cjk = 'cjk_serif' if cjk_serif else 'cjk_sans'
        self.lat = lat_key
        self.ink = ink
        self.accent = accent
        fo = fonts()
        self.space_w = fo.get(self.lat, F).getlength(' ') * 1.05

    def chain(self, role, bold):
        b = '_b' if bold else ''
        if role == 'cjk':
            return [self.cjk + b, 'dv_sans' + b, self.lat + b]
        return [self.lat + b, self.cjk + b, 'dv_sans' + b]

    def measure(self, gl):
        fo = fonts()
        for g in gl:
            base = self.F * g.rel
            if g.kind == 'sp':
                g.w = self.space_w * g.rel
                g.size = base
            elif g.kind in ('rule', 'gap'):
                if g.size == 0:
                    g.w = g.w * base
                g.size = base
            else:
                g.size = base * (0.62 if g.script else 1.0)
                g.fk = fo.pick(self.chain(g.role, g.bold), g.d)
                g.w = fo.get(g.fk, g.size).getlength(g.d)
        return gl


def _atoms(gl):
    atoms = []
    cur = None
    for g in gl:
        if g.cls == 'lat':
            if cur is None:
                cur = ['lat', []]
            cur[1].append(g)
            continue
        if cur is not None:
            atoms.append(cur)
            cur = None
        atoms.append([g.cls, [g]])
    if cur is not None:
        atoms.append(cur)
    return atoms


def _breakable(atoms, i):
    a, b = atoms[i][0], atoms[i + 1][0]
    if b == 'close' or a == 'open':
        return False
    if a == 'sp':
        return False          # breaks happen before a space, never after it
    if b == 'sp':
        j = i + 1
        while j < len(atoms) and atoms[j][0] == 'sp':
            j += 1
        return j < len(atoms) and atoms[j][0] != 'close'
    if a == 'lat' and b in ('cjk', 'open'):
        return False
    if a in ('cjk', 'open') and b == 'lat':
        return False
    return True


def segments(gl):
    """Unbreakable segments: list of (lead_spaces, body_glyphs)."""
    atoms = _atoms(gl)
    segs = []
    cur = []
    for i, at in enumerate(atoms):
        cur.append(at)
        if i == len(atoms) - 1 or _breakable(atoms, i):
            lead, body = [], []
            for kind, gs in cur:
                if kind == 'sp' and not body:
                    lead.extend(gs)
                else:
                    body.extend(gs)
            segs.append((lead, body))
            cur = []
    return segs


def break_lines(gl, widths):
    """Greedy line filling.  widths(i) -> available width of line i."""
    segs = segments(gl)
    lines = [[]]
    x = 0.0
    for lead, body in segs:
        if not body:
            continue
        bw = sum(g.w for g in body)
        lw = sum(g.w for g in lead)
        if not lines[-1]:
            lines[-1].extend(body)
            x = bw
        elif x + lw + bw <= widths(len(lines) - 1) + 0.01:
            lines[-1].extend(lead)
            lines[-1].extend(body)
            x += lw + bw
        else:
            lines.append(list(body))
            x = bw
    return lines


def place_line(line, x0, avail, justify):
    """Sets g.x for each glyph; returns right edge."""
    while line and line[-1].kind == 'sp':
        line.pop()
    total = sum(g.w for g in line)
    extra = 0.0
    n_gaps = 0
    if justify and line:
        slack = avail - total
        spaces = [g for g in line if g.kind == 'sp']
        if spaces and not any(g.cls == 'cjk' for g in line):
            n_gaps = len(spaces)
        else:
            n_gaps = len(line) - 1
        if n_gaps > 0 and 0 < slack < 0.12 * avail:
            extra = slack / n_gaps
        else:
            extra = 0.0
    x = x0
    only_spaces = bool(justify and extra and not any(g.cls == 'cjk' for g in line) and
                       any(g.kind == 'sp' for g in line))
    for i, g in enumerate(line):
        g.x = x
        x += g.w
        if extra and i < len(line) - 1:
            if only_spaces:
                if g.kind == 'sp':
                    x += extra
            else:
                x += extra
    return x


def glyph_ops(line, baseline, ctx, ops):
    F = ctx.F
    for g in line:
        col = g.color or ctx.ink
        if g.kind == 'c':
            shift = -0.36 * g.size / 0.62 if g.script == 1 else (0.16 * g.size / 0.62 if g.script == -1 else 0)
            ops.append(('t', g.x, baseline + shift, g.d, g.fk, g.size, col))
        elif g.kind == 'rule':
            lw = max(1.0, 0.06 * F * g.rel)
            ops.append(('line', [(g.x + 0.1 * F, baseline + 0.12 * F), (g.x + g.w - 0.1 * F, baseline + 0.12 * F)],
                        col, lw))


# --------------------------------------------------------------------------
# book content vocabulary
# --------------------------------------------------------------------------
CH_ZH = {
    'math': ['第二章 一元一次方程', '第三章 整式的加减', '第五章 一元二次方程', '第二章 函数',
             '第四章 数列', '第一章 集合与常用逻辑用语', '第三章 三角函数', '第六章 分数的加法和减法'],
    'phys': ['第八章 运动和力', '第十七章 欧姆定律', '第十一章 功和机械能', '第九章 压强', '第四章 牛顿运动定律'],
    'chem': ['第五单元 化学方程式', '第二单元 我们周围的空气', '第十单元 酸和碱', '第四单元 自然界的水'],
    'bio': ['第二单元 生物体的结构层次', '第三单元 生物圈中的绿色植物', '第四单元 生物圈中的人', '第七单元 生物的遗传和变异'],
    'geo': ['第一章 地球和地图', '第二章 中国的自然环境', '第三章 陆地和海洋'],
    'hist': ['第三单元 秦汉时期', '第一单元 中国开始沦为半殖民地半封建社会', '第四单元 新民主主义革命的开始', '第五单元 两次世界大战'],
    'chn': ['第六单元 古诗词诵读', '第三单元 名著导读', '第五单元 成语积累', '课外古诗词诵读'],
    'eng': ['Unit 5 语法专项', 'Module 3 词汇与语法', 'Unit 2 时态复习'],
}
CH_EN = {
    'math': ['Chapter 4 Linear Equations', 'Chapter 7 Probability', 'Unit 3 Coordinate Geometry',
             'Chapter 9 Polygons and Angles'],
    'phys': ['Chapter 2 Motion and Forces', 'Unit 6 Energy and Work'],
    'chem': ['Chapter 5 The Mole Concept'],
    'bio': ['Unit 1 Cells and Organisms'],
    'hist': ['Chapter 8 The Age of Exploration'],
    'geo': ['Unit 2 Rivers of the World'],
    'eng': ['Unit 5 Grammar in Use', 'Unit 2 Tenses Review', 'Module 3 Word Forms'],
    'chn': ['Unit 4 Reading Skills'],
}
BOOK_ZH = ['同步练习册', '课时作业本', '学练优 · 同步训练', '总复习指导', '配套练习', '课本']
BOOK_EN = ['Student Workbook', 'Revision Guide', 'Practice Book', 'Core Textbook']
GROUP_ZH = ['练习 {a}.{b}', '习题 {a}.{b}', '课后作业', '随堂练习', '巩固练习', '基础训练', '课时作业 {n}',
            '复习题 {a}', '达标检测']
GROUP_EN = ['Exercise {n}{L}', 'Practice', 'Practice {n}', 'Review Exercise {n}', 'Check Your Understanding',
            'Skills Practice', 'Homework {n}']
LEVEL_ZH = [('A组', '基础巩固'), ('B组', '能力提升'), ('C组', '拓展探究')]
NOTES_ZH = [('提示', '注意单位要统一。'), ('想一想', '还有其他方法吗？'), ('方法点拨', '先审题，再列式计算。'),
            ('易错点', '注意符号和单位。'), ('知识链接', '回顾课本第 {p} 页的例题。'), ('小贴士', '做完后记得检查。')]
NOTES_EN = [('Tip', 'Check your units.'), ('Hint', 'Draw a diagram first.'), ('Remember', 'Show your working.'),
            ('Key idea', 'Read the question twice.'), ('Note', 'See page {p}.')]
ACCENTS = [(0, 102, 204), (0, 140, 110), (222, 96, 24), (200, 32, 64), (112, 62, 168), (0, 128, 170),
           (40, 120, 60)]
PAPERS = [(250, 250, 247), (248, 244, 230), (242, 242, 238), (251, 248, 240), (245, 241, 226)]
INKS = [(22, 22, 26), (30, 28, 28), (28, 30, 42), (40, 38, 36)]
SEE_ZH = '下列说法中正确的是根据题意可知所以答案为本节学习了如何计算并且理解概念的意义请同学们认真阅读课文完成练习'
SEE_EN = 'the following statements are true and false read the passage carefully then answer questions below'

# number styles (label of a printed problem)
NUM_STYLES = ['dot', 'bare', 'fw', 'ex', 'li', 'lent', 'circle', 'square']


def tint(col, t):
    return tuple(int(round(255 - (255 - c) * t)) for c in col)


# --------------------------------------------------------------------------
# page layout
# --------------------------------------------------------------------------
class Page:
    def __init__(self):
        self.bg = []
        self.fg = []
        self.probs = []     # dict(qids, box, framed)
        self.elems = []     # (name, bbox)
        self.x0 = self.x1 = 0


def label_ops(ctx, style, n, x, baseline, st):
    """Draw problem number; returns label width (incl. gap)."""
    F = ctx.F
    fo = fonts()
    ops = []
    if style in ('circle', 'square'):
        d = 1.02 * F
        cy = baseline - 0.36 * F
        if style == 'circle':
            ops.append(('ell', x, cy - d / 2, x + d, cy + d / 2, ctx.accent))
        else:
            ops.append(('rect', x, cy - d / 2, x + d, cy + d / 2, ctx.accent, None, 0, 0.18 * F))
        s = str(n)
        sz = 0.72 * F if len(s) < 2 else 0.6 * F
        ops.append(('tc', x + d / 2, cy, s, 'lib_sans_b', sz, (255, 255, 255)))
        return ops, d + 0.4 * F
    if style == 'dot':
        s, key, col, gap = f'{n}.', ctx.lat + ('_b' if st.get('num_bold') else ''), ctx.ink, 0.3
    elif style == 'bare':
        s, key, col, gap = f'{n}', 'lib_sans_b', ctx.accent, 0.55
    elif style == 'fw':
        s, key, col, gap = f'{n}．', ctx.cjk, ctx.ink, 0.05
    elif style == 'ex':
        s, key, col, gap = f'Ex. {n}', 'lib_sans_b', ctx.accent if st.get('num_col') else ctx.ink, 0.45
    elif style == 'li':
        s, key, col, gap = f'例{n}', 'cjk_sans_b', ctx.accent, 0.5
    else:  # lent
        s, key, col, gap = f'【{n}】', ctx.cjk, ctx.ink, 0.0
    x1 = x
    for ch in s:
        k = fo.pick([key, ctx.cjk, 'dv_sans'], ch)
        ops.append(('t', x1, baseline, ch, k, F, col))
        x1 += fo.get(k, F).getlength(ch)
    return ops, (x1 - x) + gap * F


def make_figure(rng, ctx, x0, y0, w, h):
    """A small figure or table (page coords) inside (x0,y0,w,h)."""
    F = ctx.F
    ink = ctx.ink
    ops = []
    kind = ['triangle', 'circle', 'axes', 'table', 'bars'][int(rng.integers(5))]
    lw = max(1.0, 0.06 * F)
    small = 0.62 * F
    lab = ctx.lat
    cap_zh = rng.random() < 0.5
    if kind == 'triangle':
        A = (x0 + 0.15 * w, y0 + 0.8 * h)
        B = (x0 + 0.85 * w, y0 + 0.8 * h)
        C = (x0 + 0.15 * w + rng.uniform(0, 0.5) * w, y0 + 0.12 * h)
        ops.append(('line', [A, B, C, A], ink, lw))
        for p, s, dx, dy in ((A, 'A', -0.5, 0.55), (B, 'B', 0.15, 0.55), (C, 'C', 0.0, -0.2)):
            ops.append(('t', p[0] + dx * F * 0.7, p[1] + dy * F * 0.7, s, lab, small, ink))
    elif kind == 'circle':
        r = min(w, h) * 0.36
        cx, cy = x0 + w / 2, y0 + h * 0.45
        ops.append(('ello', cx - r, cy - r, cx + r, cy + r, ink, lw))
        ops.append(('line', [(cx, cy), (cx + r, cy)], ink, lw))
        ops.append(('ell', cx - 0.08 * F, cy - 0.08 * F, cx + 0.08 * F, cy + 0.08 * F, ink))
        ops.append(('t', cx - 0.55 * F, cy + 0.2 * F, 'O', lab, small, ink))
        ops.append(('t', cx + r * 0.35, cy - 0.15 * F, 'r', lab, small, ink))
    elif kind == 'axes':
        ox, oy = x0 + 0.2 * w, y0 + 0.78 * h
        ops.append(('line', [(x0 + 0.05 * w, oy), (x0 + 0.95 * w, oy)], ink, lw))
        ops.append(('line', [(ox, y0 + 0.95 * h), (ox, y0 + 0.05 * h)], ink, lw))
        ops.append(('line', [(x0 + 0.95 * w - 0.2 * F, oy - 0.12 * F), (x0 + 0.95 * w, oy),
                             (x0 + 0.95 * w - 0.2 * F, oy + 0.12 * F)], ink, lw))
        ops.append(('line', [(ox - 0.12 * F, y0 + 0.05 * h + 0.2 * F), (ox, y0 + 0.05 * h),
                             (ox + 0.12 * F, y0 + 0.05 * h + 0.2 * F)], ink, lw))
        ops.append(('line', [(x0 + 0.1 * w, y0 + 0.9 * h), (x0 + 0.85 * w, y0 + 0.12 * h)], ctx.accent, lw * 1.3))
        ops.append(('t', x0 + 0.88 * w, oy + 0.75 * F, 'x', lab, small, ink))
        ops.append(('t', ox + 0.15 * F, y0 + 0.05 * h + 0.45 * F, 'y', lab, small, ink))
        ops.append(('t', ox - 0.55 * F, oy + 0.7 * F, 'O', lab, small, ink))
    elif kind == 'table':
        rows, cols = int(rng.integers(2, 4)), int(rng.integers(3, 5))
        cw, rh = w / cols, min(h / rows, 1.3 * F)
        for r in range(rows + 1):
            ops.append(('line', [(x0, y0 + r * rh), (x0 + w, y0 + r * rh)], ink, lw))
        for c in range(cols + 1):
            ops.append(('line', [(x0 + c * cw, y0), (x0 + c * cw, y0 + rows * rh)], ink, lw))
        ops.insert(0, ('rect', x0, y0, x0 + w, y0 + rh, tint(ctx.accent, 0.18), None, 0, 0))
        for r in range(rows):
            for c in range(cols):
                if r == 0 and c == 0:
                    s = 'x' if not cap_zh else '次数'
                elif r == 0:
                    s = str(int(rng.integers(1, 9)))
                else:
                    s = str(int(rng.integers(0, 60)))
                ops.append(('tc', x0 + (c + 0.5) * cw, y0 + (r + 0.5) * rh, s,
                            ctx.cjk if cap_zh else lab, small, ink))
    else:
        n = int(rng.integers(3, 6))
        bw = w / (n + 1)
        base = y0 + 0.85 * h
        ops.append(('line', [(x0 + 0.05 * w, base), (x0 + 0.98 * w, base)], ink, lw))
        ops.append(('line', [(x0 + 0.05 * w, base), (x0 + 0.05 * w, y0 + 0.05 * h)], ink, lw))
        for i in range(n):
            hh = rng.uniform(0.2, 0.75) * h
            bx = x0 + 0.05 * w + (i + 0.5) * bw
            ops.append(('rect', bx, base - hh, bx + bw * 0.6, base, tint(ctx.accent, 0.6), ink, lw, 0))
    cap = (f'图{int(rng.integers(1, 9))}' if cap_zh else f'Fig. {int(rng.integers(1, 9))}')
    ops.append(('tc', x0 + w / 2, y0 + h + 0.55 * F, cap, ctx.cjk if cap_zh else lab, 0.6 * F, ink))
    return ops, kind


def pick_keyterm(rng, gl, zh):
    """Indices [i0, i1) of a key term inside the question glyph list."""
    cands = []
    if zh:
        run = []
        for i, g in enumerate(gl + [G(' ', 'sp', 'sp')]):
            if g.kind == 'c' and g.cls == 'cjk' and 0x4E00 <= ord(g.d) <= 0x9FFF:
                run.append(i)
            else:
                if len(run) >= 3:
                    cands.append(run)
                run = []
        if not cands:
            return None
        run = cands[int(rng.integers(len(cands)))]
        ln = int(rng.integers(2, min(4, len(run)) + 1))
        st = run[int(rng.integers(0, len(run) - ln + 1))]
        return st, st + ln
    i = 0
    while i < len(gl):
        if gl[i].kind == 'c' and gl[i].d.isalpha():
            j = i
            while j < len(gl) and gl[j].kind == 'c' and gl[j].d.isalpha() and gl[j].script == 0:
                j += 1
            if j - i >= 4:
                cands.append((i, j))
            i = j
        else:
            i += 1
    if not cands:
        return None
    return cands[int(rng.integers(len(cands)))]


class Problem:
    """One numbered problem (1 question, or 2 questions with (1)(2) sub-labels)."""

    def __init__(self, qids, framed):
        self.qids = qids
        self.framed = framed


def layout_problem(rng, ctx, st, bank, prob, number, x_left, x_right, y_top, with_fig_w=0.0):
    """Returns (fg_ops, content_box, height, flags)."""
    F = ctx.F
    lh = st['lh'] * F
    ops = []
    flags = set()
    baseline0 = y_top + (lh - F) / 2 + 0.88 * F
    lops, lw = label_ops(ctx, st['num'], number, x_left, baseline0, st)
    ops.extend(lops)
    x_text = x_left + lw
    text_right = x_right - with_fig_w
    zh = st['zh']
    paras = []
    for k, qid in enumerate(prob.qids):
        q = bank[qid]
        gl = []
        if len(prob.qids) > 1:
            gl.extend(glyphs_of(f'({k + 1})', False))
            gl.append(G(' ', 'sp', 'sp'))
        if k == 0 and st.get('score') and zh:
            gl.extend(glyphs_of(f'（{int(rng.integers(2, 7))}分）', True))
            flags.add('score_note')
        qg = glyphs_of(q, has_cjk(q), rule_em=float(rng.uniform(3.2, 5.0)))
        if st.get('keyterm_p', 0) > rng.random():
            kt = pick_keyterm(rng, qg, has_cjk(q))
            if kt:
                bold = rng.random() < 0.5
                for g in qg[kt[0]:kt[1]]:
                    if bold:
                        g.bold = True
                    else:
                        g.color = ctx.accent
                flags.add('keyterm_bold' if bold else 'keyterm_colour')
        gl.extend(qg)
        suffix = st.get('suffix') if '___' not in q and len(prob.qids) == 1 else None
        if suffix == 'bracket':
            if has_cjk(q):
                gl.append(G('（', 'c', 'open', 'cjk'))
                gl.append(G('', 'gap', 'cjk', w=float(rng.uniform(2.5, 4.0))))
                gl.append(G('）', 'c', 'close', 'cjk'))
            else:
                gl.append(G(' ', 'sp', 'sp'))
                gl.append(G('(', 'c', 'lat'))
                gl.append(G('', 'gap', 'lat', w=float(rng.uniform(2.5, 3.5))))
                gl.append(G(')', 'c', 'lat'))
            flags.add('answer_bracket')
        ctx.measure(gl)
        paras.append((gl, suffix))
    y = y_top
    right = x_text
    nlines = 0
    for pi, (gl, suffix) in enumerate(paras):
        first_x = x_text
        if st['hang'] or pi > 0:
            rest_x = x_text
        else:
            rest_x = x_left
        widths = (lambda i, fx=first_x, rx=rest_x: text_right - (fx if i == 0 else rx))
        lines = break_lines(gl, widths)
        for li, line in enumerate(lines):
            x0 = first_x if li == 0 else rest_x
            avail = text_right - x0
            r = place_line(line, x0, avail, st['justify'] and li < len(lines) - 1)
            right = max(right, r)
            bl = y + (lh - F) / 2 + 0.88 * F
            glyph_ops(line, bl, ctx, ops)
            y += lh
            nlines += 1
        if suffix == 'answer':
            zhq = has_cjk(bank[prob.qids[0]])
            lab = '答：' if zhq else 'Answer:'
            gl2 = glyphs_of(lab, zhq)
            gl2.append(G(' ', 'sp', 'sp'))
            gl2.append(G('', 'rule', 'lat', w=float(rng.uniform(6, 12))))
            ctx.measure(gl2)
            x0 = rest_x if not st['hang'] else x_text
            r = place_line(gl2, x0, text_right - x0, False)
            right = max(right, r)
            bl = y + (lh - F) / 2 + 0.88 * F
            glyph_ops(gl2, bl, ctx, ops)
            y += lh
            nlines += 1
            flags.add('answer_line')
    if len(prob.qids) > 1:
        flags.add('sub_labels')
    top = y_top + (lh - F) / 2 - 0.05 * F
    bot = y - (lh - F) / 2 + 0.25 * F
    box = (x_left - 0.12 * F, top, max(right, x_text) + 0.12 * F, bot)
    return ops, box, y - y_top, flags


def layout_page(rng, ctx, st, bank, page_x0, side, pool, framed_qid, framed_slot, prefix):
    """Lays out one page; returns Page or None when framed problem did not fit."""
    F = ctx.F
    P = Page()
    W_p, H_p = st['W_p'], st['H_p']
    P.x0, P.x1 = page_x0, page_x0 + W_p
    P.side = side
    inner, outer, mcw, col_w = st['inner'], st['outer'], st['mcw'], st['col_w']
    if side == 'R':
        cx0 = page_x0 + inner
        mc = (cx0 + col_w + 0.9 * F, page_x0 + W_p - outer) if mcw else None
    else:
        cx0 = page_x0 + W_p - inner - col_w
        mc = (page_x0 + outer, cx0 - 0.9 * F) if mcw else None
    cx1 = cx0 + col_w
    P.col = (cx0, cx1)
    zh = st['zh']
    ink, acc = ctx.ink, ctx.accent
    fo = fonts()
    top, bottom = st['top'], H_p - st['bottom']
    # ---- running head
    pno = st['pno'] + (0 if side == st['main_side'] else (-1 if side == 'L' else 1))
    hs = 0.78 * F
    hb = top - 0.9 * F
    chap = st['chapter']
    hstyle = st['head']
    outer_x = page_x0 + outer if side == 'L' else page_x0 + W_p - outer
    if hstyle == 'rule':
        ops = []
        ops.append(('line', [(page_x0 + (outer if side == 'L' else inner), hb + 0.35 * F),
                             (page_x0 + W_p - (inner if side == 'L' else outer), hb + 0.35 * F)], acc, max(1, 0.07 * F)))
        if side == 'L':
            ops.append(('t', outer_x, hb, str(pno), 'lib_sans_b', hs, ink))
            ops.append(('tr', page_x0 + W_p - inner, hb, st['book'], ctx.cjk if zh else ctx.lat, hs, ink))
        else:
            ops.append(('t', page_x0 + inner, hb, chap, ctx.cjk if zh else ctx.lat, hs, ink))
            ops.append(('tr', outer_x, hb, str(pno), 'lib_sans_b', hs, ink))
        P.fg.extend(ops)
    else:  # coloured tab with page number at the outer edge
        tw = 2.4 * F
        if side == 'L':
            tx0 = page_x0
            P.bg.append(('rect', tx0, hb - 1.0 * F, tx0 + outer + tw * 0.6, hb + 0.45 * F, acc, None, 0, 0))
            P.fg.append(('tc', tx0 + (outer + tw * 0.6) / 2 + 0.3 * F, hb - 0.28 * F, str(pno), 'lib_sans_b', hs, (255, 255, 255)))
            P.fg.append(('t', tx0 + outer + tw * 0.6 + 0.6 * F, hb, chap, ctx.cjk + '_b' if zh else 'lib_sans_b', hs, acc))
        else:
            tx1 = page_x0 + W_p
            P.bg.append(('rect', tx1 - outer - tw * 0.6, hb - 1.0 * F, tx1, hb + 0.45 * F, acc, None, 0, 0))
            P.fg.append(('tc', tx1 - (outer + tw * 0.6) / 2 - 0.3 * F, hb - 0.28 * F, str(pno), 'lib_sans_b', hs, (255, 255, 255)))
            P.fg.append(('tr', tx1 - outer - tw * 0.6 - 0.6 * F, hb, chap, ctx.cjk + '_b' if zh else 'lib_sans_b', hs, acc))
    P.elems.append(('running_head', (page_x0, hb - 1.1 * F, page_x0 + W_p, hb + 0.5 * F)))
    if st['footer']:
        P.fg.append(('tc', page_x0 + W_p / 2, H_p - st['bottom'] / 2, f'— {pno} —', ctx.lat, 0.7 * F, ink))

    # ---- flow
    y = top + 0.6 * F
    lh = st['lh'] * F
    num = max(1, st['n0'] + (prefix if side != st['main_side'] else 0))
    slot = 0
    placed = False
    group_start_y = None
    group_count = 0
    next_group_at = 0
    level_i = 0
    pending = list(pool)
    fig_slot = st['fig_slot'] if side == st['main_side'] else st['fig_slot_f']
    sub_slot = st['sub_slot'] if side == st['main_side'] else st['sub_slot_f']

    def take():
        return pending.pop(0) if pending else None

    def close_group(y_end):
        if group_start_y is not None and st['group_tint'] and y_end - group_start_y > lh:
            P.bg.append(('rect', cx0 - 0.5 * F, group_start_y - 0.3 * F, cx1 + 0.5 * F, y_end + 0.1 * F,
                         st['tint'], None, 0, 0.4 * F))
            P.elems.append(('tinted_box', (cx0, group_start_y, cx1, y_end)))

    while True:
        if slot == next_group_at:
            # group title bar / level label
            if slot > 0:
                close_group(y - 0.3 * F)
                y += 0.5 * F
            if slot == 0 and rng.random() < 0.3 and not (framed_slot == 0 and side == st['main_side']):
                pass  # page continues the previous page's exercise list
            else:
                if y + 2.4 * F + lh > bottom:
                    break
                title = st['titles'][group_count % len(st['titles'])]
                tstyle = st['title_style']
                tk = (ctx.cjk + '_b') if zh else 'lib_sans_b'
                ts = 1.0 * F
                tw = 0
                for ch in title:
                    kk = fo.pick([tk, 'dv_sans_b'], ch)
                    tw += fo.get(kk, ts).getlength(ch)
                yb = y + 1.35 * F
                if tstyle == 'bar':
                    P.bg.append(('rect', cx0, y, cx1, y + 1.75 * F, acc, None, 0, 0))
                    P.fg.append(('t', cx0 + 0.6 * F, yb, title, tk, ts, (255, 255, 255)))
                elif tstyle == 'tab':
                    P.bg.append(('rect', cx0, y, cx0 + tw + 1.4 * F, y + 1.75 * F, acc, None, 0, 0.3 * F))
                    P.fg.append(('line', [(cx0, y + 1.75 * F), (cx1, y + 1.75 * F)], acc, max(1, 0.08 * F)))
                    P.fg.append(('t', cx0 + 0.7 * F, yb, title, tk, ts, (255, 255, 255)))
                else:  # outlined box
                    P.bg.append(('rect', cx0, y, cx0 + tw + 1.4 * F, y + 1.75 * F, st['tint'], acc, max(1, 0.07 * F), 0.2 * F))
                    P.fg.append(('t', cx0 + 0.7 * F, yb, title, tk, ts, acc))
                P.elems.append(('group_title', (cx0, y, cx1, y + 1.75 * F)))
                y += 2.4 * F
                group_count += 1
            group_start_y = y
            if st['levels'] and zh:
                lab, sub = LEVEL_ZH[level_i % 3]
                level_i += 1
                if y + 1.6 * F + lh <= bottom:
                    P.bg.append(('rect', cx0, y + 0.1 * F, cx0 + 2.6 * F, y + 1.25 * F, tint(acc, 0.22), None, 0, 0.15 * F))
                    P.fg.append(('t', cx0 + 0.35 * F, y + 1.0 * F, lab, ctx.cjk + '_b', 0.85 * F, acc))
                    P.fg.append(('t', cx0 + 3.0 * F, y + 1.0 * F, sub, ctx.cjk, 0.85 * F, ink))
                    P.elems.append(('ab_levels', (cx0, y, cx0 + 8 * F, y + 1.3 * F)))
                    y += 1.6 * F
            next_group_at = slot + int(rng.integers(4, 9))
        is_framed = (side == st['main_side'] and slot == framed_slot)
        if is_framed:
            prob = Problem([framed_qid], True)
        elif slot == sub_slot and len(pending) >= 2:
            prob = Problem([take(), take()], False)
        else:
            q = take()
            if q is None:
                break
            prob = Problem([q], False)
        fig_w = 0.0
        if slot == fig_slot and not is_framed and len(prob.qids) == 1:
            fig_w = st['fig_w']
        ops, box, h, flags = layout_problem(rng, ctx, st, bank, prob, num, cx0, cx1, y, fig_w)
        fig_h = 0
        if fig_w:
            fig_h = st['fig_h']
            h = max(h, fig_h + 1.2 * F)
        if y + h > bottom:
            if side == st['main_side'] and not placed:
                return None
            break
        # two per row for short single-line problems
        pair_done = False
        if st['two_row'] and not fig_w and len(prob.qids) == 1 and box[2] - cx0 < 0.47 * col_w and h <= lh * 1.01:
            nxt_framed = side == st['main_side'] and slot + 1 == framed_slot
            if nxt_framed or pending:
                qn = framed_qid if nxt_framed else pending[0]
                prob2 = Problem([qn], nxt_framed)
                xm = cx0 + col_w / 2
                ops2, box2, h2, fl2 = layout_problem(rng, ctx, st, bank, prob2, num + 1, xm, cx1, y)
                if h2 <= lh * 1.01 and box2[2] <= cx1 + 0.2 * F:
                    if not nxt_framed:
                        take()
                    P.fg.extend(ops)
                    P.fg.extend(ops2)
                    P.probs.append(dict(qids=prob.qids, box=box, framed=prob.framed, flags=flags))
                    P.probs.append(dict(qids=prob2.qids, box=box2, framed=prob2.framed, flags=fl2))
                    P.elems.append(('two_per_row', (cx0, y, cx1, y + h)))
                    placed = placed or prob.framed or prob2.framed
                    num += 2
                    slot += 2
                    y += h + st['gap'] * F
                    pair_done = True
        if pair_done:
            if next_group_at == slot - 1:
                next_group_at = slot
            continue
        if st['ex_tint'] and prob.framed or (st['ex_tint'] and st['num'] == 'li' and rng.random() < 0.5):
            P.bg.append(('rect', cx0 - 0.4 * F, box[1] - 0.3 * F, cx1 + 0.4 * F, box[3] + 0.25 * F,
                         st['tint'], None, 0, 0.25 * F))
            P.bg.append(('rect', cx0 - 0.4 * F, box[1] - 0.3 * F, cx0 - 0.2 * F, box[3] + 0.25 * F, acc, None, 0, 0))
            P.elems.append(('tinted_box', box))
        P.fg.extend(ops)
        if fig_w:
            fx0 = cx1 - fig_w + 0.6 * F
            fops, fkind = make_figure(rng, ctx, fx0, y + 0.2 * F, fig_w - 0.8 * F, fig_h)
            P.fg.extend(fops)
            P.elems.append(('figure_or_table', (fx0, y, cx1, y + fig_h + 1.0 * F)))
        P.probs.append(dict(qids=prob.qids, box=box, framed=prob.framed, flags=flags))
        placed = placed or prob.framed
        y += h + st['gap'] * F
        if st['workspace'] and not prob.framed and rng.random() < 0.6:
            nl = int(rng.integers(1, 3))
            for i in range(nl):
                yy = y + (i + 0.8) * lh
                if yy < bottom:
                    P.fg.append(('line', [(cx0 + 2 * F, yy), (cx1, yy)], (190, 190, 190), max(1, 0.04 * F)))
            y += nl * lh
        num += 1
        slot += 1
    close_group(min(y, bottom))
    if side == st['main_side'] and not placed:
        return None
    # ---- margin column notes
    if mc is not None:
        mx0, mx1 = mc
        ny = top + float(rng.uniform(2, 8)) * F
        for k in range(int(rng.integers(1, 4))):
            if ny > bottom - 6 * F:
                break
            head, body = (NOTES_ZH if zh else NOTES_EN)[int(rng.integers(6 if zh else 5))]
            body = body.format(p=int(rng.integers(10, 120)))
            icon = rng.random() < 0.6
            rs = 0.72
            x = mx0 + 0.3 * F
            if icon:
                r = 0.55 * F
                P.fg.append(('ell', x, ny, x + 2 * r, ny + 2 * r, acc))
                P.fg.append(('tc', x + r, ny + r, '!' if rng.random() < 0.5 else '?', 'lib_sans_b', 0.8 * F, (255, 255, 255)))
                P.fg.append(('t', x + 2 * r + 0.3 * F, ny + 0.85 * F, head, ctx.cjk + '_b' if zh else 'lib_sans_b', 0.78 * F, acc))
            else:
                P.fg.append(('t', x, ny + 0.85 * F, head, ctx.cjk + '_b' if zh else 'lib_sans_b', 0.78 * F, acc))
            gl = glyphs_of(body, zh, rel=rs)
            ctx.measure(gl)
            lines = break_lines(gl, lambda i: mx1 - mx0 - 0.6 * F)
            yy = ny + 1.3 * F
            for line in lines:
                place_line(line, x, mx1 - mx0 - 0.6 * F, False)
                glyph_ops(line, yy + 0.75 * F, ctx, P.fg)
                yy += 1.2 * F
            P.bg.append(('rect', mx0, ny - 0.3 * F, mx1, yy + 0.3 * F, st['tint'] if rng.random() < 0.6 else None,
                         acc, max(1, 0.05 * F), 0.3 * F))
            P.elems.append(('margin_note', (mx0, ny, mx1, yy)))
            ny = yy + float(rng.uniform(3, 10)) * F
    return P


# --------------------------------------------------------------------------
# geometry: page coords -> (gutter curl) -> homography -> image
# --------------------------------------------------------------------------
def rot(axis, a):
    c, s = math.cos(a), math.sin(a)
    if axis == 'x':
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == 'y':
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


class Geom:
    def __init__(self, Wo, Ho, target, s, theta, tilt, yaw, fmul, us, curl, F):
        self.Wo, self.Ho = Wo, Ho
        f = fmul * max(Wo, Ho)
        D = f / s
        R = rot('z', theta) @ rot('x', tilt) @ rot('y', yaw)
        K = np.array([[f, 0, Wo / 2], [0, f, Ho / 2], [0, 0, 1.0]])
        M = np.column_stack([R[:, 0], R[:, 1], [0, 0, D]])
        self.us = us
        self.vc = target[1]
        self.c, self.L, self.k, self.Lv = curl
        at = abs(target[0] - us)
        pt = us + math.copysign(at - self.c * self.L * (1 - math.exp(-at / self.L)), target[0] - us)
        T = np.array([[1, 0, -pt], [0, 1, -target[1]], [0, 0, 1.0]])
        self.H = K @ M @ T
        self.Hi = np.linalg.inv(self.H)
        a1 = np.linspace(0, 25 * self.L, 5001)
        a = np.concatenate([a1, np.linspace(25 * self.L, 25 * self.L + 200000, 4001)[1:]])
        self.atab = a
        self.gtab = a - self.c * self.L * (1 - np.exp(-a / self.L))

    def fwd(self, u, v):
        u = np.asarray(u, float)
        v = np.asarray(v, float)
        d = u - self.us
        a = np.abs(d)
        sg = np.where(d < 0, -1.0, 1.0)
        p = self.us + sg * (a - self.c * self.L * (1 - np.exp(-a / self.L)))
        q = self.vc + (v - self.vc) * (1 - self.k * np.exp(-a / self.Lv))
        H = self.H
        w = H[2, 0] * p + H[2, 1] * q + H[2, 2]
        x = (H[0, 0] * p + H[0, 1] * q + H[0, 2]) / w
        y = (H[1, 0] * p + H[1, 1] * q + H[1, 2]) / w
        return x, y

    def inv(self, x, y):
        Hi = self.Hi
        w = Hi[2, 0] * x + Hi[2, 1] * y + Hi[2, 2]
        p = (Hi[0, 0] * x + Hi[0, 1] * y + Hi[0, 2]) / w
        q = (Hi[1, 0] * x + Hi[1, 1] * y + Hi[1, 2]) / w
        d = p - self.us
        a = np.interp(np.abs(d), self.gtab, self.atab)
        u = self.us + np.where(d < 0, -a, a)
        v = self.vc + (q - self.vc) / (1 - self.k * np.exp(-a / self.Lv))
        return u, v, a, w

    def poly(self, box, n=14):
        x0, y0, x1, y1 = box
        t = np.linspace(0, 1, n)
        us = np.concatenate([x0 + (x1 - x0) * t, np.full(n, x1), x1 - (x1 - x0) * t, np.full(n, x0)])
        vs = np.concatenate([np.full(n, y0), y0 + (y1 - y0) * t, np.full(n, y1), y1 - (y1 - y0) * t])
        x, y = self.fwd(us, vs)
        return np.stack([x, y], 1)

    def grid_frac_inside(self, box, margin=0, n=7):
        x0, y0, x1, y1 = box
        uu, vv = np.meshgrid(np.linspace(x0, x1, n), np.linspace(y0, y1, n))
        x, y = self.fwd(uu.ravel(), vv.ravel())
        ins = (x >= margin) & (x <= self.Wo - margin) & (y >= margin) & (y <= self.Ho - margin)
        return ins.mean()

    def char_h(self, u, v, F):
        xa, ya = self.fwd(u, v - 0.45 * F)
        xb, yb = self.fwd(u, v + 0.45 * F)
        return np.hypot(xb - xa, yb - ya)


# --------------------------------------------------------------------------
# rendering helpers
# --------------------------------------------------------------------------
def draw_ops(draw, ops, ox, oy, rw, rh):
    fo = fonts()
    for op in ops:
        t = op[0]
        if t in ('t', 'tr', 'tc'):
            _, x, y, s, fk, size, col = op
            pad = size * (len(s) + 1)
            if x - ox > rw + pad or x - ox < -pad or y - oy < -2 * size or y - oy > rh + 2 * size:
                continue
            anchor = {'t': 'ls', 'tr': 'rs', 'tc': 'mm'}[t]
            if all(fo.has(fk, ch) for ch in s):
                # the font has every glyph: one call
                draw.text((x - ox, y - oy), s, font=fo.get(fk, size), fill=col, anchor=anchor)
                continue
            # fallback per character (left aligned rendering)
            keys = [fo.pick([fk, 'cjk_sans', 'dv_sans'], ch) for ch in s]
            ws = [fo.get(k, size).getlength(ch) for k, ch in zip(keys, s)]
            tw = sum(ws)
            xx = x - (tw if t == 'tr' else tw / 2 if t == 'tc' else 0)
            for k, ch, w in zip(keys, s, ws):
                draw.text((xx - ox, y - oy), ch, font=fo.get(k, size), fill=col,
                          anchor='lm' if t == 'tc' else 'ls')
                xx += w
        elif t == 'rect':
            _, x0, y0, x1, y1, fill, outline, width, radius = op
            if x1 - ox < -5 or x0 - ox > rw + 5 or y1 - oy < -5 or y0 - oy > rh + 5:
                continue
            box = [x0 - ox, y0 - oy, x1 - ox, y1 - oy]
            w = int(round(width)) if outline else 0
            if radius:
                draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=max(w, 1) if outline else 0)
            else:
                draw.rectangle(box, fill=fill, outline=outline, width=max(w, 1) if outline else 0)
        elif t == 'ell':
            _, x0, y0, x1, y1, fill = op
            draw.ellipse([x0 - ox, y0 - oy, x1 - ox, y1 - oy], fill=fill)
        elif t == 'ello':
            _, x0, y0, x1, y1, col, lw = op
            draw.ellipse([x0 - ox, y0 - oy, x1 - ox, y1 - oy], outline=col, width=max(1, int(round(lw))))
        elif t == 'line':
            _, pts, col, lw = op
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            if max(xs) - ox < -5 or min(xs) - ox > rw + 5 or max(ys) - oy < -5 or min(ys) - oy > rh + 5:
                continue
            draw.line([(p[0] - ox, p[1] - oy) for p in pts], fill=col, width=max(1, int(round(lw))), joint='curve')


def smooth_noise(rng, h, w, cell):
    sh, sw = max(2, h // cell + 2), max(2, w // cell + 2)
    n = rng.standard_normal((sh, sw)).astype(np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)


def desk_texture(rng, W, H):
    kind = ['wood', 'wood', 'plain', 'dark'][int(rng.integers(4))]
    if kind == 'wood':
        base = np.array([rng.uniform(120, 185), rng.uniform(80, 125), rng.uniform(45, 80)], np.float32)
        ang = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        t = xx * math.cos(ang) + yy * math.sin(ang)
        t = t + smooth_noise(rng, H, W, 260) * rng.uniform(6, 20)
        span = float(W + H) + 200
        # 1-D grain profiles across the grain (broad bands + fine streaks)
        k1 = np.linspace(-100, span, int(span / rng.uniform(25, 60)) + 2)
        k2 = np.linspace(-100, span, int(span / rng.uniform(2.5, 5)) + 2)
        p1 = np.interp(t, k1, rng.standard_normal(len(k1))).astype(np.float32)
        p2 = np.interp(t, k2, rng.standard_normal(len(k2))).astype(np.float32)
        val = 0.86 + 0.06 * p1 + 0.035 * p2 + 0.02 * smooth_noise(rng, H, W, 40)
        img = val[..., None] * base[None, None, :]
    else:
        if kind == 'plain':
            base = np.array([rng.uniform(180, 225)] * 3, np.float32) * np.array([1, 0.98, 0.95], np.float32)
        else:
            base = np.array([rng.uniform(35, 70), rng.uniform(38, 72), rng.uniform(45, 80)], np.float32)
        val = 1 + 0.05 * smooth_noise(rng, H, W, 150)
        img = val[..., None] * base[None, None, :]
    return img, kind


def warp_patch(patch_rgba, M, W, H):
    """Affine-warp an RGBA float patch into a W×H canvas; returns (rgb, alpha)."""
    out = cv2.warpAffine(patch_rgba, M, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=(0, 0, 0, 0))
    return out[..., :3], out[..., 3]


def patch_matrix(cx, cy, ang, pw, ph):
    """Affine from patch (pw×ph, centred) to image at (cx,cy) rotated by ang."""
    c, s = math.cos(ang), math.sin(ang)
    return np.array([[c, -s, cx - c * pw / 2 + s * ph / 2], [s, c, cy - s * pw / 2 - c * ph / 2]], np.float32)


def make_pencil(rng, length, width):
    L, Wd = int(length), int(width)
    pw, ph = L, Wd + 4
    yy, xx = np.mgrid[0:ph, 0:pw].astype(np.float32)
    across = (yy - (ph - 1) / 2) / (Wd / 2)
    cone = Wd * rng.uniform(1.6, 2.2)
    body_end = L - cone
    half = np.where(xx < body_end, 1.0, np.clip((L - xx) / cone, 0, 1))
    a = np.clip((half * Wd / 2 - np.abs(yy - (ph - 1) / 2)) + 0.5, 0, 1)
    cols = [(235, 190, 40), (40, 110, 60), (180, 40, 40), (40, 70, 150), (200, 170, 120), (30, 30, 30)]
    body = np.array(cols[int(rng.integers(len(cols)))], np.float32)
    rgb = np.empty((ph, pw, 3), np.float32)
    rgb[:] = body
    er = 0.055 * L
    fe = er + 0.045 * L
    rgb[xx < er] = (225, 140, 150)
    rgb[(xx >= er) & (xx < fe)] = (175, 175, 170)
    ridge = ((xx >= er) & (xx < fe) & ((xx.astype(int) // 3) % 2 == 0))
    rgb[ridge] = (140, 140, 135)
    wood = (xx >= body_end)
    rgb[wood] = (222, 185, 140)
    lead = xx >= body_end + cone * 0.68
    rgb[lead] = (55, 55, 60)
    facet = np.where(across < -0.33, 0.82, np.where(across > 0.33, 1.06, 0.95))
    facet = np.where(wood, 0.85 + 0.15 * (1 - np.abs(across)), facet)
    rgb = rgb * facet[..., None]
    # specular streak
    rgb = rgb + 40 * np.exp(-((across - 0.05) / 0.12) ** 2)[..., None] * (~wood)[..., None]
    rgba = np.dstack([np.clip(rgb, 0, 255), a]).astype(np.float32)
    return rgba


def make_ruler(rng, length, width, px_mm):
    fo = fonts()
    L, Wd = int(length), int(width)
    kind = ['clear', 'clear', 'wood', 'metal'][int(rng.integers(4))]
    base = {'clear': (235, 240, 240), 'wood': (210, 170, 115), 'metal': (190, 192, 195)}[kind]
    alpha = {'clear': 0.22, 'wood': 0.97, 'metal': 0.97}[kind]
    img = Image.new('RGBA', (L, Wd), base + (int(alpha * 255),))
    d = ImageDraw.Draw(img)
    tick = (20, 20, 20, 235)
    n_mm = int(L / px_mm)
    fsz = max(8, int(px_mm * 2.6))
    font = fo.get('lib_sans', fsz)
    for i in range(n_mm + 1):
        x = 6 + i * px_mm
        if x > L - 2:
            break
        ln = Wd * (0.42 if i % 10 == 0 else 0.28 if i % 5 == 0 else 0.16)
        d.line([(x, 0), (x, ln)], fill=tick, width=1 if px_mm < 7 else 2)
        if i % 10 == 0:
            d.text((x, ln + 1), str(i // 10), font=font, fill=tick, anchor='mt')
    d.line([(0, 0), (L, 0)], fill=(255, 255, 255, 200), width=2)
    d.line([(0, Wd - 1), (L, Wd - 1)], fill=(90, 90, 90, 160), width=2)
    arr = np.asarray(img).astype(np.float32)
    arr[..., 3] /= 255.0
    return arr, kind


# --------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------
SIZES = [(1280, 960), (960, 1280), (1600, 1200)]


def subject_of(qid):
    parts = qid.split('-')
    return parts[1] if len(parts) > 2 else 'misc'


def make_style(rng, plan, framed_q):
    zh = has_cjk(framed_q)
    F = int(round(plan['F']))
    st = {'zh': zh}
    st['num'] = plan['num']
    if not zh and st['num'] in ('fw', 'li'):
        st['num'] = 'dot' if st['num'] == 'fw' else 'ex'
    st['lh'] = float(rng.uniform(1.55, 1.95))
    st['gap'] = float(rng.uniform(0.35, 0.9))
    st['hang'] = rng.random() < 0.75
    st['justify'] = rng.random() < 0.7
    st['num_bold'] = rng.random() < 0.5
    st['num_col'] = rng.random() < 0.5
    st['score'] = zh and rng.random() < 0.18
    r = rng.random()
    st['suffix'] = 'bracket' if r < 0.22 else ('answer' if r < 0.36 else None)
    st['keyterm_p'] = 0.35 if plan['keyterm'] else 0.0
    st['two_row'] = plan['two_row']
    st['workspace'] = rng.random() < 0.25
    st['group_tint'] = plan['tint'] and rng.random() < 0.5
    st['ex_tint'] = plan['tint'] and not st['group_tint']
    st['levels'] = plan['levels'] and zh
    st['col_w'] = float(rng.uniform(24, 34)) * F
    st['mcw'] = float(rng.uniform(7.5, 9.5)) * F if plan['margin'] else 0.0
    st['inner'] = float(rng.uniform(2.5, 4.5)) * F
    st['outer'] = float(rng.uniform(2.5, 4.0)) * F
    st['W_p'] = st['inner'] + st['col_w'] + st['outer'] + st['mcw']
    st['H_p'] = float(rng.uniform(46, 56)) * F
    st['top'] = float(rng.uniform(3.5, 5.0)) * F
    st['bottom'] = float(rng.uniform(3.0, 4.5)) * F
    st['footer'] = rng.random() < 0.3
    st['head'] = 'rule' if rng.random() < 0.6 else 'tab'
    st['title_style'] = ['bar', 'tab', 'box'][int(rng.integers(3))]
    st['pno'] = int(rng.integers(8, 190))
    st['n0'] = int(rng.integers(1, 6)) if st['num'] == 'li' else int(rng.integers(1, 16))
    st['fig_w'] = float(rng.uniform(7, 9.5)) * F
    st['fig_h'] = float(rng.uniform(4.5, 6.5)) * F
    return st


def render_photo(index, plan, bank, order, seed):
    rng = np.random.default_rng([seed, index])
    fo = fonts()
    qid = plan['qid']
    framed_q = bank[qid]
    zh = has_cjk(framed_q)
    subj = subject_of(qid)
    Wo, Ho = plan['size']
    F = int(plan['F'])
    accent = ACCENTS[int(rng.integers(len(ACCENTS)))]
    ink = INKS[int(rng.integers(len(INKS)))]
    paper = np.array(PAPERS[int(rng.integers(len(PAPERS)))], np.float32)
    lat_key = ['lib_serif', 'lib_serif', 'dv_serif', 'lib_sans', 'dv_sans'][int(rng.integers(5))]
    cjk_serif = rng.random() < 0.6
    ctx = Ctx(F, cjk_serif, lat_key, ink, accent)
    st = make_style(rng, plan, framed_q)
    st['tint'] = tint(accent, float(rng.uniform(0.08, 0.16)))
    st['main_side'] = plan['side']
    if zh:
        st['chapter'] = CH_ZH.get(subj, CH_ZH['math'])[int(rng.integers(len(CH_ZH.get(subj, CH_ZH['math']))))]
        st['book'] = BOOK_ZH[int(rng.integers(len(BOOK_ZH)))]
        a, b = int(rng.integers(1, 9)), int(rng.integers(1, 6))
        st['titles'] = [t.format(a=a, b=b, n=int(rng.integers(1, 20))) for t in rng.permutation(GROUP_ZH)[:3]]
    else:
        st['chapter'] = CH_EN.get(subj, CH_EN['math'])[int(rng.integers(len(CH_EN.get(subj, CH_EN['math']))))]
        st['book'] = BOOK_EN[int(rng.integers(len(BOOK_EN)))]
        st['titles'] = [t.format(n=int(rng.integers(1, 12)), L='ABCDE'[int(rng.integers(5))])
                        for t in rng.permutation(GROUP_EN)[:3]]
    # neighbour pool: same language, same subject first
    others = [q for q in order if q != qid and has_cjk(bank[q]) == zh]
    rest = [q for q in order if q != qid and has_cjk(bank[q]) != zh]
    same = [q for q in others if subject_of(q) == subj]
    diff = [q for q in others if subject_of(q) != subj]
    same = [same[i] for i in rng.permutation(len(same))]
    diff = [diff[i] for i in rng.permutation(len(diff))]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    k_same = int(rng.integers(3, 9))
    pool_all = same[:k_same] + diff
    pool_all = [pool_all[i] for i in rng.permutation(len(pool_all))]
    pool_all = same[k_same:] + pool_all if rng.random() < 0.5 else pool_all + same[k_same:]
    pool_all += rest
    main_pool = pool_all[:40]
    framed_slot = int(rng.integers(0, 9))
    st['fig_slot'] = -1
    st['sub_slot'] = -1
    if plan['figure']:
        c = [s for s in (framed_slot - 1, framed_slot + 1, framed_slot + 2, framed_slot - 2) if s >= 0]
        st['fig_slot'] = c[int(rng.integers(len(c)))]
    if plan['sublabels']:
        c = [s for s in (framed_slot - 1, framed_slot + 1, framed_slot + 2) if s >= 0 and s != st['fig_slot']]
        st['sub_slot'] = c[int(rng.integers(len(c)))]
    st['fig_slot_f'] = int(rng.integers(0, 10)) if rng.random() < 0.4 else -1
    st['sub_slot_f'] = int(rng.integers(0, 10)) if rng.random() < 0.3 else -1
    W_p = st['W_p']
    main_x0 = W_p if plan['side'] == 'R' else 0.0
    face_x0 = 0.0 if plan['side'] == 'R' else W_p
    face_side = 'L' if plan['side'] == 'R' else 'R'
    main = None
    for _ in range(6):
        main = layout_page(rng, ctx, st, bank, main_x0, plan['side'], main_pool, qid, framed_slot, 0)
        if main is not None:
            break
        framed_slot = max(0, framed_slot - 3)
    if main is None:
        raise RuntimeError(f'photo {index}: framed problem did not fit')
    prefix = -int(rng.integers(8, 20)) if face_side == 'L' else int(rng.integers(8, 20))
    used = {q for p in main.probs for q in p['qids']}
    face_pool = [q for q in pool_all if q not in used][:40]
    face = layout_page(rng, ctx, st, bank, face_x0, face_side, face_pool, None, -5, prefix)
    spread = (0.0, 0.0, 2 * W_p, st['H_p'])
    us = W_p
    fr = [p for p in main.probs if p['framed']][0]
    box = fr['box']
    all_probs = [(p, 'main') for p in main.probs] + [(p, 'face') for p in face.probs]

    # ---------------- camera search
    orient = plan['orient']
    bw, bh = box[2] - box[0], box[3] - box[1]
    bcx, bcy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    toward_spine = -1.0 if plan['side'] == 'R' else 1.0
    geo = None
    info = {}
    why = Counter()
    for attempt in range(60):
        relax = min(1.0, attempt / 40)
        theta = math.radians(orient + rng.uniform(-10, 10) * (1 - 0.6 * relax))
        if plan['low_angle']:
            tilt = math.radians(rng.uniform(22, 38) * (1 - 0.5 * relax)) * (-1 if rng.random() < 0.8 else 1)
        else:
            tilt = math.radians(rng.uniform(-9, 9))
        yaw = math.radians(rng.uniform(-10, 10) * (1 - relax))
        fmul = rng.uniform(0.75, 1.05)
        h_t = float(np.clip(plan['h'] * rng.uniform(0.9, 1.1), 22, 45))
        s = h_t / (0.9 * F)
        # horizontal / vertical slack of the frame in page units (approx.)
        along_u = Wo if orient in (0, 180) else Ho
        along_v = Ho if orient in (0, 180) else Wo
        jx = rng.uniform(-0.12, 0.12) * bw
        jy = rng.uniform(-0.25, 0.25) * min(bh, 1.2 * F)
        if plan['spine']:
            slack = (along_u * 0.5 / s) - bw / 2 - 1.5 * F
            jx = toward_spine * min(max(0.0, slack), 0.17 * min(Wo, Ho) / s) * rng.uniform(0.5, 1.0) * (1 - relax)
        c_curl = rng.uniform(0.35, 0.7)
        L_curl = rng.uniform(0.05, 0.12) * W_p
        k_curl = rng.uniform(0.04, 0.14)
        Lv = rng.uniform(0.06, 0.16) * W_p
        target = (bcx + jx, bcy + jy)
        ok = False
        for _k in range(12):
            g = Geom(Wo, Ho, target, s, theta, tilt, yaw, fmul, us, (c_curl, L_curl, k_curl, Lv), F)
            poly = g.poly(box)
            xs, ys = poly[:, 0], poly[:, 1]
            corners_u = np.array([box[0], box[2], box[0], box[2], bcx])
            corners_v = np.array([box[1], box[1], box[3], box[3], bcy])
            ch = g.char_h(corners_u, corners_v, F)
            hmin, hmax = float(ch.min()), float(ch.max())
            m = 12
            fits = xs.min() >= m and ys.min() >= m and xs.max() <= Wo - m and ys.max() <= Ho - m
            if hmax > 48:
                s *= 46.5 / hmax
                continue
            if not fits:
                span = max((xs.max() - xs.min()) / (Wo - 2 * m - 10), (ys.max() - ys.min()) / (Ho - 2 * m - 10))
                if span > 1:
                    s /= span * 1.03
                else:
                    # re-centre the target towards the box centre
                    target = (0.4 * target[0] + 0.6 * bcx, 0.4 * target[1] + 0.6 * bcy)
                continue
            ok = hmin >= 20
            break
        if not ok:
            why['size/fit'] += 1
            continue
        # framed box must be the nearest to the image centre
        cx, cy = Wo / 2, Ho / 2

        def centre(b):
            pp = g.poly(b, 6)
            return (pp[:, 0].min() + pp[:, 0].max()) / 2, (pp[:, 1].min() + pp[:, 1].max()) / 2

        fcx, fcy = centre(box)
        dfr = math.hypot(fcx - cx, fcy - cy)
        dmin = 1e18
        for p, where in all_probs:
            if p is fr:
                continue
            ox_, oy_ = centre(p['box'])
            dmin = min(dmin, math.hypot(ox_ - cx, oy_ - cy))
        if not (dfr < 0.6 * dmin and dfr < 0.2 * min(Wo, Ho)):
            why['nearest'] += 1
            continue
        # a complete neighbour (main page) at least partly visible
        nb = max((g.grid_frac_inside(p['box'], 2) for p in main.probs if p is not fr), default=0)
        if nb < 0.25:
            why['neighbour'] += 1
            continue
        # whole image must look at the plane in front of the camera
        xs_ = np.array([0, Wo, 0, Wo], float)
        ys_ = np.array([0, 0, Ho, Ho], float)
        _, _, _, wq = g.inv(xs_, ys_)
        if np.any(wq <= 0):
            why['horizon'] += 1
            continue
        geo = g
        info = dict(hmin=hmin, hmax=hmax, dfr=dfr, dmin=dmin, tilt=math.degrees(tilt),
                    theta=math.degrees(theta) - orient, nb=nb)
        break
    if geo is None:
        raise RuntimeError(f'photo {index}: no valid camera found {dict(why)} box={box} F={F} '
                           f'plan={plan}')
    g = geo

    # ---------------- render page-space canvas for the visible region
    gy, gx = np.mgrid[0:Ho + 1:32, 0:Wo + 1:32]
    gx = np.concatenate([gx.ravel(), [Wo, Wo, 0]]).astype(float)
    gy = np.concatenate([gy.ravel(), [0, Ho, Ho]]).astype(float)
    uu, vv, _, _ = g.inv(gx, gy)
    cover_m = float(rng.uniform(0.5, 1.1)) * F if rng.random() < 0.7 else 0.18 * F
    ext = (spread[0] - cover_m - 2 * F, spread[1] - cover_m - 2 * F, spread[2] + cover_m + 2 * F, spread[3] + cover_m + 2 * F)
    rx0 = int(math.floor(max(ext[0], uu.min() - 3 * F)))
    ry0 = int(math.floor(max(ext[1], vv.min() - 3 * F)))
    rx1 = int(math.ceil(min(ext[2], uu.max() + 3 * F)))
    ry1 = int(math.ceil(min(ext[3], vv.max() + 3 * F)))
    rw, rh = max(8, rx1 - rx0), max(8, ry1 - ry0)
    cover_col = [(28, 45, 90), (110, 25, 35), (30, 70, 50), (60, 60, 64), (200, 120, 40), (235, 235, 230)][int(rng.integers(6))]
    canvas = Image.new('RGB', (rw, rh), cover_col)
    dr = ImageDraw.Draw(canvas)
    # page block edges (stack of pages) between cover and the top page
    pcol = tuple(int(c) for c in paper)
    for i in range(5, 0, -1):
        e = i * cover_m * 0.09
        shade = tuple(int(c * (0.80 + 0.035 * (5 - i))) for c in pcol)
        dr.rectangle([spread[0] - e - rx0, spread[1] - e - ry0, spread[2] + e - rx0, spread[3] + e - ry0], fill=shade)
    dr.rectangle([spread[0] - rx0, spread[1] - ry0, spread[2] - rx0, spread[3] - ry0], fill=pcol)
    for P in (face, main):
        draw_ops(dr, P.bg, rx0, ry0, rw, rh)
    for P in (face, main):
        draw_ops(dr, P.fg, rx0, ry0, rw, rh)
    can = np.asarray(canvas).astype(np.float32)
    # see-through of the reverse page (faint mirrored text)
    see = plan['see']
    if see:
        scale = 0.5
        lw_, lh_ = max(4, int(rw * scale)), max(4, int(rh * scale))
        layer = Image.new('L', (lw_, lh_), 0)
        ld = ImageDraw.Draw(layer)
        S = main.x0 + main.x1             # mirror axis: u -> S - u
        mx0 = S - rx1                     # left edge of mirrored region in reverse coords
        fsz = F * scale
        font = fo.get(ctx.cjk if zh else ctx.lat, fsz)
        src = SEE_ZH if zh else SEE_EN
        rev_col = (main.x0 + st['outer'], main.x0 + st['outer'] + st['col_w']) if plan['side'] == 'R' \
            else (main.x1 - st['outer'] - st['col_w'], main.x1 - st['outer'])
        yy = st['top'] + rng.uniform(0, 1.5) * F
        lhh = rng.uniform(1.5, 1.9) * F
        while yy < st['H_p'] - st['bottom']:
            if rng.random() < 0.85 and ry0 - 2 * F < yy < ry1 + 2 * F:
                off = int(rng.integers(0, len(src)))
                n = int(rng.integers(8, 40))
                s_ = (src * 3)[off:off + n] if zh else (src * 3)[off:off + n * 2]
                ld.text(((rev_col[0] - mx0) * scale, (yy - ry0) * scale), s_, font=font, fill=255, anchor='ls')
            yy += lhh
        lay = np.asarray(layer)[:, ::-1].astype(np.float32) / 255.0
        lay = cv2.resize(lay, (rw, rh), interpolation=cv2.INTER_LINEAR)
        lay = cv2.GaussianBlur(lay, (0, 0), max(1.2, 0.09 * F))
        # only on the main page
        ucoord = np.arange(rw) + rx0
        onpage = ((ucoord >= main.x0) & (ucoord <= main.x1)).astype(np.float32)
        strength = rng.uniform(0.035, 0.075)
        can *= (1 - strength * lay * onpage[None, :])[..., None]
    # low-frequency paper mottling (page space)
    mott = 1 + rng.uniform(0.004, 0.01) * smooth_noise(rng, rh, rw, max(8, int(3 * F)))
    can *= mott[..., None]
    sc = info['hmin'] / (0.9 * F)  # output px per page px near the framed problem
    if sc < 0.85:
        can = cv2.GaussianBlur(can, (0, 0), 0.45 * (1 / sc - 1) + 0.2)
    can_u8 = np.clip(can, 0, 255).astype(np.uint8)

    # ---------------- warp to the photo
    yy, xx = np.mgrid[0:Ho, 0:Wo].astype(np.float64)
    U, V, A, _ = g.inv(xx, yy)
    mapx = (U - rx0).astype(np.float32)
    mapy = (V - ry0).astype(np.float32)
    img = cv2.remap(can_u8, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    # book vs desk
    e = cover_m
    inside = ((U >= spread[0] - e) & (U <= spread[2] + e) & (V >= spread[1] - e) & (V <= spread[3] + e)).astype(np.float32)
    inside = cv2.GaussianBlur(inside, (0, 0), 0.8)
    desk, desk_kind = desk_texture(rng, Wo, Ho)
    # book casts a soft shadow on the desk
    sh = cv2.GaussianBlur(inside, (0, 0), 9)
    sh = np.roll(sh, (6, 4), (0, 1))
    desk *= (1 - 0.45 * sh)[..., None]
    img = img * inside[..., None] + desk * (1 - inside[..., None])
    on_pages = ((U >= spread[0]) & (U <= spread[2]) & (V >= spread[1]) & (V <= spread[3])).astype(np.float32)
    # gutter: darker, with a thin valley line at the spine
    gdark = rng.uniform(0.3, 0.55)
    Lg = rng.uniform(0.04, 0.09) * W_p
    shade = 1 - gdark * np.exp(-A / Lg) - 0.25 * np.exp(-(A / (0.15 * F)) ** 2)
    shade = 1 - (1 - shade) * on_pages
    img *= shade[..., None].astype(np.float32)
    # fine paper grain (image space, pages only)
    grain = rng.uniform(2.0, 4.5)
    gr = rng.standard_normal((Ho, Wo)).astype(np.float32)
    gr = cv2.GaussianBlur(gr, (0, 0), 0.7) * grain * 1.6
    img += (gr * on_pages)[..., None]

    # ---------------- forbidden zone = framed problem (dilated)
    em_img = info['hmin'] / 0.9
    poly = g.poly(box, 20)
    forbid = np.zeros((Ho, Wo), np.uint8)
    cv2.fillPoly(forbid, [np.round(poly).astype(np.int32)], 1)
    kd = max(3, int(0.6 * em_img)) * 2 + 1
    forbid = cv2.dilate(forbid, np.ones((kd, kd), np.uint8))
    fb = forbid.astype(bool)
    flags = Counter()
    # direction of page u axis at the target in the image
    p0 = np.array(g.fwd(bcx, bcy))
    p1 = np.array(g.fwd(bcx + 5 * F, bcy))
    ang_u = math.atan2(p1[1] - p0[1], p1[0] - p0[0])
    diag = math.hypot(Wo, Ho)
    h_img = info['hmin']

    def try_place(make, tries=40):
        for _ in range(tries):
            r = make()
            if r is None:
                continue
            rgb, alpha = r
            if np.any((alpha > 0.03) & fb):
                continue
            return rgb, alpha
        return None

    def composite(rgb, alpha, shadow_px, shadow_k):
        nonlocal img
        if shadow_px > 0:
            sa = cv2.GaussianBlur(alpha, (0, 0), shadow_px * 0.7)
            sa = np.roll(sa, (int(shadow_px), int(shadow_px * 0.6)), (0, 1))
            img *= (1 - shadow_k * sa * (1 - alpha))[..., None]
        img = img * (1 - alpha[..., None]) + rgb * alpha[..., None]

    if plan['pencil']:
        def mk():
            Lp = rng.uniform(0.45, 0.85) * diag
            wd = float(np.clip(rng.uniform(1.2, 1.8) * h_img, 16, 70))
            ang = ang_u + math.radians(rng.uniform(-30, 30)) + (math.pi if rng.random() < 0.5 else 0)
            # centre: off the framed box along the page-normal direction, or anywhere
            nrm = np.array([-math.sin(ang_u), math.cos(ang_u)])
            dist = rng.uniform(0.6, 5.0) * h_img + wd
            side_ = 1 if rng.random() < 0.5 else -1
            c = np.array([Wo / 2, Ho / 2]) + nrm * side_ * (dist + (box[3] - box[1]) * sc / 2) \
                + np.array([math.cos(ang_u), math.sin(ang_u)]) * rng.uniform(-0.4, 0.4) * diag
            patch = make_pencil(rng, Lp, wd)
            M = patch_matrix(c[0], c[1], ang, patch.shape[1], patch.shape[0])
            rgb, a = warp_patch(patch, M, Wo, Ho)
            if a.sum() < 0.05 * Lp * wd:
                return None
            return rgb, a
        r = try_place(mk)
        if r:
            composite(r[0], r[1], max(3, 0.25 * h_img), 0.35)
            flags['pencil'] += 1
    if plan['ruler']:
        def mk():
            wd = float(np.clip(rng.uniform(2.2, 3.5) * h_img, 50, 160))
            Lr = diag * 1.3
            ang = ang_u + (math.pi / 2 if rng.random() < 0.35 else 0) + math.radians(rng.uniform(-6, 6))
            nrm = np.array([-math.sin(ang), math.cos(ang)])
            t = rng.uniform(0.25, 0.55) * min(Wo, Ho) + wd / 2
            c = np.array([Wo / 2, Ho / 2]) + nrm * t * (1 if rng.random() < 0.5 else -1)
            patch, kind = make_ruler(rng, Lr, wd, px_mm=h_img / 4.0)
            M = patch_matrix(c[0], c[1], ang, patch.shape[1], patch.shape[0])
            rgb, a = warp_patch(patch, M, Wo, Ho)
            if a.max() <= 0:
                return None
            return rgb, a
        r = try_place(mk)
        if r:
            composite(r[0], r[1], max(2, 0.12 * h_img), 0.25)
            flags['ruler'] += 1
    if plan['thumb']:
        def mk():
            tw = float(np.clip(rng.uniform(4.0, 6.0) * h_img, 90, 300))
            tl = tw * rng.uniform(1.6, 2.1)
            edge = int(rng.integers(4))
            t = rng.uniform(0.1, 0.9)
            pt, d = [(np.array([t * Wo, Ho]), np.array([0, -1.0])), (np.array([t * Wo, 0]), np.array([0, 1.0])),
                     (np.array([0, t * Ho]), np.array([1.0, 0])), (np.array([Wo, t * Ho]), np.array([-1.0, 0]))][edge]
            a_ = math.atan2(d[1], d[0]) + math.radians(rng.uniform(-28, 28))
            d = np.array([math.cos(a_), math.sin(a_)])
            tip = pt + d * tl * rng.uniform(0.45, 0.8)
            c = tip - d * tl / 2
            m = np.zeros((Ho, Wo), np.uint8)
            S = 4
            cv2.ellipse(m, (int(c[0] * S), int(c[1] * S)), (int(tl / 2 * S), int(tw / 2 * S)),
                        math.degrees(a_), 0, 360, 255, -1, cv2.LINE_AA, 2)
            hc = pt - d * tw * 0.35
            cv2.ellipse(m, (int(hc[0] * S), int(hc[1] * S)), (int(tw * 1.5 * S), int(tw * 1.1 * S)),
                        math.degrees(a_), 0, 360, 255, -1, cv2.LINE_AA, 2)
            alpha = cv2.GaussianBlur(m.astype(np.float32) / 255, (0, 0), 1.2)
            if alpha.sum() < 0.3 * tw * tl:
                return None
            skin = np.array([rng.uniform(205, 240), rng.uniform(150, 185), rng.uniform(120, 150)], np.float32)
            dist = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 5)
            sh_ = np.clip(dist / (tw * 0.45), 0, 1)
            # cylinder-like shading across the thumb axis, light from one side
            yyf_, xxf_ = np.mgrid[0:Ho, 0:Wo].astype(np.float32)
            acr = (-(xxf_ - c[0]) * d[1] + (yyf_ - c[1]) * d[0]) / (tw / 2)
            cyl = np.sqrt(np.clip(1 - np.clip(acr, -1, 1) ** 2, 0, 1))
            lit = 0.68 + 0.22 * cyl + 0.1 * np.clip(-acr, 0, 1) * cyl
            lit = lit * (0.8 + 0.2 * np.sqrt(sh_))
            tex = 1 + 0.025 * smooth_noise(rng, Ho, Wo, 6)
            rgb = skin[None, None, :] * (lit * tex)[..., None]
            spec = np.exp(-((acr + 0.35) / 0.18) ** 2) * (sh_ > 0.2)
            rgb = rgb + 28 * spec[..., None]
            nail = np.zeros((Ho, Wo), np.uint8)
            nc = tip - d * tw * 0.45
            cv2.ellipse(nail, (int(nc[0] * S), int(nc[1] * S)), (int(tw * 0.38 * S), int(tw * 0.3 * S)),
                        math.degrees(a_), 0, 360, 255, -1, cv2.LINE_AA, 2)
            na = cv2.GaussianBlur(nail.astype(np.float32) / 255, (0, 0), 1.5) * 0.75
            ncol = np.minimum(skin * np.array([1.06, 1.05, 1.1]) + 18, 255)
            along = ((xxf_ - c[0]) * d[0] + (yyf_ - c[1]) * d[1]) / (tl / 2)
            free = np.clip((along - 0.88) / 0.08, 0, 1)[..., None]      # whitish free edge at the tip
            ncol_px = ncol[None, None, :] * (1 - free) + np.array([245, 235, 225], np.float32) * free
            ncol_px = ncol_px * lit[..., None]
            rgb = rgb * (1 - na[..., None]) + ncol_px * na[..., None]
            return rgb, alpha
        r = try_place(mk, 30)
        if r:
            composite(r[0], r[1], max(4, 0.5 * h_img), 0.4)
            flags['thumb_or_hand'] += 1

    # ---------------- lighting
    gain = rng.uniform(0.88, 1.08)
    wb = np.array([rng.uniform(0.96, 1.04), 1.0, rng.uniform(0.94, 1.04)], np.float32)
    light = np.full((Ho, Wo), gain, np.float32)
    yyf, xxf = np.mgrid[0:Ho, 0:Wo].astype(np.float32)
    if plan['lamp']:
        lx = rng.uniform(-0.3, 1.3) * Wo
        ly = rng.uniform(-0.3, 1.3) * Ho
        sig = rng.uniform(0.5, 1.0) * diag
        amb = rng.uniform(0.55, 0.8)
        fall = np.exp(-((xxf - lx) ** 2 + (yyf - ly) ** 2) / (2 * sig * sig))
        fall_c = math.exp(-((fcx - lx) ** 2 + (fcy - ly) ** 2) / (2 * sig * sig))
        lvl_c = amb + (1 - amb) * fall_c
        boost = 1.0 if lvl_c > 0.7 else 0.75 / lvl_c
        light = gain * boost * (amb + (1 - amb) * fall)
        warm = np.array([1.0, rng.uniform(0.86, 0.92), rng.uniform(0.66, 0.78)], np.float32)
        wb = wb * warm
        flags['lamp_warm_falloff'] += 1
    vig = 1 - rng.uniform(0.05, 0.2) * (((xxf - Wo / 2) ** 2 + (yyf - Ho / 2) ** 2) / (diag / 2) ** 2)
    img *= (light * vig)[..., None] * wb[None, None, :]
    if plan['glare']:
        for _ in range(40):
            gx_ = rng.uniform(0.05, 0.95) * Wo
            gy_ = rng.uniform(0.05, 0.95) * Ho
            sx = rng.uniform(0.06, 0.16) * diag
            sy = sx * rng.uniform(0.4, 0.9)
            ga = rng.uniform(0, math.pi)
            ca, sa_ = math.cos(ga), math.sin(ga)

            def gval(X, Y):
                dx, dy = X - gx_, Y - gy_
                a1 = (dx * ca + dy * sa_) / sx
                a2 = (-dx * sa_ + dy * ca) / sy
                return np.exp(-0.5 * (a1 * a1 + a2 * a2))
            fy, fx = np.nonzero(forbid[::4, ::4])
            if len(fx) and gval(fx * 4.0, fy * 4.0).max() > 0.03:
                continue
            gl_ = gval(xxf, yyf)
            k = rng.uniform(0.55, 0.9)
            core = np.clip(gl_ * 1.6 - 0.6, 0, 1)
            img = img + (255 - img) * (k * gl_ + 0.3 * core)[..., None]
            flags['glare'] += 1
            break
    # ---------------- optics and sensor
    if plan['blur']:
        if rng.random() < 0.25:
            ln = int(rng.integers(3, 6))
            kern = np.zeros((ln, ln), np.float32)
            kern[ln // 2, :] = 1
            Mr = cv2.getRotationMatrix2D(((ln - 1) / 2, (ln - 1) / 2), rng.uniform(0, 180), 1)
            kern = cv2.warpAffine(kern, Mr, (ln, ln))
            kern /= kern.sum()
            img = cv2.filter2D(img, -1, kern)
            flags['motion_blur'] += 1
        else:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.2))
            flags['slight_blur'] += 1
    nl = rng.uniform(1.5, 4.5)
    img += rng.standard_normal((Ho, Wo, 1)).astype(np.float32) * nl
    img += rng.standard_normal((Ho, Wo, 3)).astype(np.float32) * nl * 0.4
    q = int(rng.integers(60, 93))
    out = Image.fromarray(np.clip(img + 0.5, 0, 255).astype(np.uint8), 'RGB')
    buf = io.BytesIO()
    out.save(buf, 'JPEG', quality=q)

    # ---------------- case flags
    def vis(b):
        return g.grid_frac_inside(b, 0, 5) > 0
    flags[f'size_{Wo}x{Ho}'] += 1
    flags[f'turned_{orient}'] += 1
    flags['jpeg_q60-75' if q <= 75 else 'jpeg_q76-92'] += 1
    if abs(info['theta']) >= 5:
        flags['rotation_5to10deg'] += 1
    if abs(info['tilt']) >= 15:
        flags['low_angle_perspective'] += 1
    flags[f'num_{st["num"]}'] += 1
    if st['num'] in ('circle', 'square'):
        flags['number_in_coloured_shape'] += 1
    flags['framed_chinese' if zh else 'framed_english'] += 1
    if has_supsub(framed_q):
        flags['framed_sup_sub'] += 1
    if '___' in framed_q:
        flags['framed_blank_rule'] += 1
    if len(framed_q) > 60:
        flags['framed_over60chars'] += 1
    xs_sp, ys_sp = g.fwd(np.full(50, us), np.linspace(0, st['H_p'], 50))
    if np.any((xs_sp >= 0) & (xs_sp < Wo) & (ys_sp >= 0) & (ys_sp < Ho)):
        flags['gutter_in_view'] += 1
    if any(vis(p['box']) for p in face.probs):
        flags['facing_page_text'] += 1
    seen = set()
    for P in (main, face):
        for name, b in P.elems:
            if name not in seen and vis(b):
                seen.add(name)
    for name in sorted(seen):
        flags[name] += 1
    nflags = set()
    for p in main.probs:
        if vis(p['box']):
            nflags |= set(p['flags'])
    for f_ in sorted(nflags):
        flags[f_] += 1
    for f_ in sorted(fr['flags']):
        if f_.startswith('keyterm'):
            flags['framed_' + f_] += 1
    if see:
        flags['see_through'] += 1
    flags['paper_grain'] += 1
    if np.mean(inside) < 0.995:
        flags['desk_visible_' + desk_kind] += 1
    stats = dict(hmin=info['hmin'], hmax=info['hmax'])
    return buf.getvalue(), dict(flags), stats


# --------------------------------------------------------------------------
# run plan and driver
# --------------------------------------------------------------------------
def load_bank(path):
    items = []
    with open(path, encoding='utf-8') as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            d = json.loads(line)
            items.append((str(d['id']), str(d['question'])))
    return items


def spread_flags(rng, n, frac):
    k = int(round(n * frac))
    arr = np.zeros(n, bool)
    arr[rng.permutation(n)[:k]] = True
    return arr


def make_plan(items, count, seed):
    rng = np.random.default_rng(seed)
    bank = dict(items)
    ids = [i for i, _ in items]
    req = [i for i in ids if has_supsub(bank[i]) or '___' in bank[i] or len(bank[i]) > 60]
    oth = [i for i in ids if i not in set(req)]
    req = [req[i] for i in rng.permutation(len(req))]
    oth = [oth[i] for i in rng.permutation(len(oth))]
    chosen = (req + oth)[:count]
    chosen = [chosen[i] for i in rng.permutation(len(chosen))]
    n = len(chosen)
    orients = np.array([0] * n)
    perm = rng.permutation(n)
    n180, n90, n270 = round(0.08 * n), round(0.06 * n), round(0.05 * n)
    orients[perm[:n180]] = 180
    orients[perm[n180:n180 + n90]] = 90
    orients[perm[n180 + n90:n180 + n90 + n270]] = 270
    sizes = [SIZES[i % 3] for i in rng.permutation(n)]
    nums = [NUM_STYLES[i % len(NUM_STYLES)] for i in rng.permutation(n)]
    fl = {name: spread_flags(rng, n, fr) for name, fr in [
        ('low_angle', 0.3), ('spine', 0.45), ('pencil', 0.3), ('ruler', 0.2), ('thumb', 0.3), ('lamp', 0.45),
        ('glare', 0.35), ('see', 0.5), ('blur', 0.65), ('keyterm', 0.45), ('two_row', 0.25), ('tint', 0.45),
        ('levels', 0.3), ('margin', 0.4), ('figure', 0.4), ('sublabels', 0.3)]}
    sides = ['R' if x else 'L' for x in spread_flags(rng, n, 0.5)]
    hs = rng.uniform(22, 44, n)
    Fs = np.clip(np.round(hs / (0.9 * rng.uniform(0.75, 1.05, n))), 24, 52)
    plans = []
    for i in range(n):
        p = dict(qid=chosen[i], orient=int(orients[i]), size=sizes[i], num=nums[i], side=sides[i],
                 F=int(Fs[i]), h=float(hs[i]))
        for k, v in fl.items():
            p[k] = bool(v[i])
        plans.append(p)
    return plans


_W = {}


def _init(bank, order, seed, out_dir):
    _W.update(bank=bank, order=order, seed=seed, out=out_dir)
    cv2.setNumThreads(1)


def _work(args):
    i, plan = args
    data, flags, stats = render_photo(i, plan, _W['bank'], _W['order'], _W['seed'])
    name = f'tb{i + 1:03d}.jpg'
    with open(os.path.join(_W['out'], name), 'wb') as fh:
        fh.write(data)
    return i, flags, stats


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True)
    ap.add_argument('out_dir')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=411)
    ap.add_argument('--jobs', type=int, default=2)
    a = ap.parse_args(argv)
    t0 = time.time()
    items = load_bank(a.bank)
    bank = dict(items)
    order = [i for i, _ in items]
    if a.count < 1 or a.count > len(items):
        sys.exit(f'--count must be between 1 and {len(items)} (each bank item is framed at most once)')
    os.makedirs(a.out_dir, exist_ok=True)
    plans = make_plan(items, a.count, a.seed)
    fonts()   # resolve fonts (and fail early) in the parent
    missing = sorted({c for _, q in items for c in q if not c.isspace() and c not in SUP and c not in SUB and c != '_'
                      and not any(fonts().has(k, c) for k in ('cjk_serif', 'cjk_sans', 'lib_serif', 'dv_sans'))})
    if missing:
        print('warning: no font has glyphs for', ''.join(missing), file=sys.stderr)
    tasks = list(enumerate(plans))
    results = {}
    if a.jobs <= 1:
        _init(bank, order, a.seed, a.out_dir)
        for t in tasks:
            i, fl, stv = _work(t)
            results[i] = (fl, stv)
    else:
        import multiprocessing as mp
        ctxm = mp.get_context('fork')
        with ctxm.Pool(a.jobs, initializer=_init, initargs=(bank, order, a.seed, a.out_dir)) as pool:
            for i, fl, stv in pool.imap_unordered(_work, tasks, chunksize=1):
                results[i] = (fl, stv)
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', encoding='utf-8', newline='') as fh:
        w = csv.writer(fh, lineterminator='\n')
        w.writerow(['qid', 'text'])
        for i, p in enumerate(plans):
            w.writerow([f'tb{i + 1:03d}', bank[p['qid']]])
    with open(os.path.join(a.out_dir, 'queries.csv'), 'w', encoding='utf-8', newline='') as fh:
        w = csv.writer(fh, lineterminator='\n')
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for i, p in enumerate(plans):
            w.writerow([f'tb{i + 1:03d}', bank[p['qid']], p['qid'], 'exact'])
    total = Counter()
    hs = []
    for i in range(len(plans)):
        total.update(results[i][0])
        hs.append((results[i][1]['hmin'], results[i][1]['hmax']))
    print(f'wrote {len(plans)} photos to {a.out_dir} in {time.time() - t0:.1f}s')
    print(f'framed char height px: min {min(h[0] for h in hs):.1f}, max {max(h[1] for h in hs):.1f}')
    print('per-case counts:')
    for k in sorted(total):
        print(f'  {k:32s} {total[k]}')


if __name__ == '__main__':
    main()
