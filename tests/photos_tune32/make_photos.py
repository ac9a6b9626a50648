#!/usr/bin/env python3
"""Synthetic phone photos of one printed homework problem ("tune32" set).

Theme: the students' own habits and their phones -- how close they hold the
phone, which phone/filters they use, the light they sit in, the paper they
photograph, what they scribble around the problem, how they hold the camera
and how the photo is compressed afterwards.

Each photo i shows a page laid out from the question bank; the problem nearest
the centre of the photo (the "framed" one) is a bank entry, and its question
text is the truth.  All randomness of photo i comes from (seed, i), so output
does not depend on --jobs.  Only numpy, Pillow, OpenCV and system fonts.

    python tests/photos_tune32/make_photos.py --bank appliance/data/demo_bank.jsonl \
        OUTDIR --count 120 --seed 331 [--jobs N]
"""
import argparse
import csv
import difflib
import io
import json
import math
import os
import re
import sys
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

# ----------------------------------------------------------------- fonts
NOTO = '/usr/share/fonts/opentype/noto/'
LIB = '/usr/share/fonts/truetype/liberation/'
DJV = '/usr/share/fonts/truetype/dejavu/'
FONTS = {
    'sans': (NOTO + 'NotoSansCJK-Regular.ttc', 2), 'sansb': (NOTO + 'NotoSansCJK-Bold.ttc', 2),
    'serif': (NOTO + 'NotoSerifCJK-Regular.ttc', 2), 'serifb': (NOTO + 'NotoSerifCJK-Bold.ttc', 2),
    'lserif': (LIB + 'LiberationSerif-Regular.ttf', 0), 'lserifb': (LIB + 'LiberationSerif-Bold.ttf', 0),
    'lserifi': (LIB + 'LiberationSerif-Italic.ttf', 0), 'lsans': (LIB + 'LiberationSans-Regular.ttf', 0),
    'lsansb': (LIB + 'LiberationSans-Bold.ttf', 0), 'lsansi': (LIB + 'LiberationSans-Italic.ttf', 0),
    'dserif': (DJV + 'DejaVuSerif.ttf', 0), 'dserifb': (DJV + 'DejaVuSerif-Bold.ttf', 0),
    'dserifi': (DJV + 'DejaVuSerif-Italic.ttf', 0), 'dsansi': (DJV + 'DejaVuSans-Oblique.ttf', 0),
    'dcondi': (DJV + 'DejaVuSansCondensed-Oblique.ttf', 0), 'dsans': (DJV + 'DejaVuSans.ttf', 0),
}
# (cjk, cjk bold, latin, latin bold, latin italic)
FAMILIES = [('sans', 'sansb', 'lsans', 'lsansb', 'lsansi'),
            ('serif', 'serifb', 'lserif', 'lserifb', 'lserifi'),
            ('serif', 'sansb', 'dserif', 'dserifb', 'dserifi'),
            ('sans', 'sansb', 'sans', 'sansb', 'lsansi'),
            ('serif', 'serifb', 'serif', 'serifb', 'lserifi')]
HAND_LAT = ['dsansi', 'lsansi', 'lserifi', 'dcondi']
REF = 100

@lru_cache(maxsize=256)
def font(name, px):
    path, idx = FONTS[name]
    return ImageFont.truetype(path, max(4, int(px)), index=idx, layout_engine=ImageFont.Layout.BASIC)

@lru_cache(maxsize=200000)
def ref_len(name, s):
    return font(name, REF).getlength(s)

def text_w(s, name, size_mm):
    return ref_len(name, s) * size_mm / REF


# ----------------------------------------------------------------- helpers
def srng(seed, *keys):
    """Random stream for (seed, keys...): photo i never depends on other photos or on --jobs."""
    return np.random.default_rng([int(seed)] + [zlib.crc32(k.encode()) if isinstance(k, str) else int(k) for k in keys])

def U(r, a, b):
    return float(r.uniform(a, b))

def choice(r, seq):
    return seq[int(r.integers(len(seq)))]

def smooth_noise(shape, cell, r):
    g = r.standard_normal((max(2, int(shape[0] / cell) + 2), max(2, int(shape[1] / cell) + 2))).astype(np.float32)
    return cv2.resize(g, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)

def rot3(deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])

def tr3(x, y):
    return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], float)

def apply_h(Hm, pts):
    p = np.asarray(pts, float).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ Hm.T
    return q[:, :2] / q[:, 2:3]

def rect_pts(r, nx=5, ny=4):
    return np.array([(x, y) for y in np.linspace(r[1], r[3], ny) for x in np.linspace(r[0], r[2], nx)])

def rect_union(rs):
    rs = [r for r in rs if r]
    return (min(r[0] for r in rs), min(r[1] for r in rs), max(r[2] for r in rs), max(r[3] for r in rs)) if rs else None

def is_lat(c):
    return ord(c) < 128 or c == '°'

def is_english(q):
    return sum(c.isascii() and c.isalpha() for c in q) > 0.5 * len(q)


# ----------------------------------------------------------------- text atoms
SUP = {'²': '2', '³': '3'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6', '₇': '7', '₈': '8', '₉': '9', 'ₙ': 'n'}
CLOSE = set('，。、？！：；）》”’」』%,.;:!?)')
OPEN = set('（《“‘「『(')
SPECIAL = set(SUP) | set(SUB) | {'_'}

def atomize(text, tag='q'):
    """Split text into atoms [kind, string, tag]; kinds lat cjk space sup sub blank (sup/sub hold base digits)."""
    out = []
    for m in re.finditer(r'_+| |[²³]+|[₀-₉ₙ]+|[\x00-\x7f°]+?(?=[ _²³]|[^\x00-\x7f°]|$)|.', text):
        t = m.group()
        if t[0] == '_':
            out.append(['blank', t, tag])
        elif t == ' ':
            out.append(['space', t, tag])
        elif t[0] in SUP:
            out.append(['sup', ''.join(SUP[c] for c in t), tag])
        elif t[0] in SUB:
            out.append(['sub', ''.join(SUB[c] for c in t), tag])
        else:
            out.append(['lat' if is_lat(t[0]) else 'cjk', t, tag])
    return out

def units_of(atoms):
    """Group atoms into unbreakable units (no break before closing punctuation, sub/superscripts...)."""
    units = []
    for a in atoms:
        p = units[-1][-1] if units else None
        join = p is not None and a[0] != 'space' and p[0] != 'space' and (
            a[0] in ('sup', 'sub') or a[1][:1] in CLOSE or (p[0] in ('cjk', 'lat') and p[1][-1:] in OPEN)
            or (p[0] in ('sup', 'sub') and a[0] == 'lat') or (a[2] in ('s', 'b') and p[2] == a[2]))
        if join:
            units[-1].append(a)
        else:
            units.append([a])
    return units

class Style:
    """Typographic style of one page."""

    def __init__(self, fam, em, ink, italic_vars):
        self.cjk, self.cjkb, self.lat, self.latb, self.lati = fam
        self.em, self.ink, self.italic_vars = em, ink, italic_vars

    def atom_font(self, a, bold=False):
        """-> (font name, size mm, dy mm)."""
        k, s, em = a[0], a[1], self.em
        if k == 'cjk':
            return (self.cjkb if bold else self.cjk), em, 0.0
        if k in ('sup', 'sub'):
            return (self.latb if bold else self.lat), 0.62 * em, (-0.36 * em if k == 'sup' else 0.14 * em)
        if self.italic_vars and len(s) == 1 and s in 'xyabcdfnqtv' and not bold:
            return self.lati, em, 0.0
        return (self.latb if bold else self.lat), em, 0.0

    def atom_w(self, a, bold=False):
        k = a[0]
        if k in ('space', 'blank', 'gap'):
            return (0.3 if k == 'space' else max(1.8, 0.55 * len(a[1])) if k == 'blank' else float(a[1][1:])) * self.em
        f, sz, _ = self.atom_font(a, bold)
        return text_w(a[1], f, sz) + (0.04 * self.em if k in ('sup', 'sub') else 0)

def wrap(st, atoms, w_first, w_other, bold=False):
    """Greedy line breaking -> list of lines, each list of (x_offset, width, atom)."""
    lines, cur, curw, limit = [], [], 0.0, w_first
    for u in units_of(atoms):
        ws = [st.atom_w(a, bold) for a in u]
        if u[0][0] == 'space' and not cur:
            continue
        if cur and curw + sum(ws) > limit and u[0][0] != 'space':
            while cur and cur[-1][2][0] == 'space':
                curw -= cur.pop()[1]
            lines.append(cur)
            cur, curw, limit = [], 0.0, w_other
        for a, w in zip(u, ws):
            cur.append((curw, w, a))
            curw += w
    while cur and cur[-1][2][0] == 'space':
        cur.pop()
    return lines + ([cur] if cur else [])


# ----------------------------------------------------------------- page model
class Page:
    def __init__(self):
        self.runs, self.lines, self.rects = [], [], []   # print ops, content mm
        self.text_rects = []                            # (rect, framed?) printed text boxes
        self.problems, self.headers, self.name_zone = [], {}, None


SUBJ_CN = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'english': '英语', 'biology': '生物',
           'geography': '地理', 'history': '历史', 'chinese': '语文'}
SUBJ_EN = {'math': 'Maths', 'physics': 'Physics', 'chemistry': 'Chemistry', 'english': 'English',
           'biology': 'Biology', 'geography': 'Geography', 'history': 'History', 'chinese': 'Chinese'}
CN_NUM = '一二三四五六七八九十'
CIRCLED = '①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳'
NAMES = ['王小明', '李华', '张雨涵', '陈思远', '刘子轩', '赵一诺', '杨洋', '周可欣', 'Amy Chen', 'Li Hua', 'Tom Wang']
EN_OPTS = ['went', 'gone', 'goes', 'going', 'the Nile', 'the cell', 'force', 'energy', '1492', 'better', 'best',
           'cheap', 'apple', 'since', 'for', 'children', 'teeth']

def number_label(style, n, variant):
    return {'dot': f'{n}.', 'dun': f'{n}、', 'paren': f'({n})' if variant else f'（{n}）', 'di_ti': f'第{n}题',
            'Q': f'Q{n}.' if variant else f'Q{n}', 'circled': CIRCLED[(n - 1) % 20]}.get(style, '')

def make_options(e, r, pool):
    """Four plausible options A-D for a neighbour (numbers near its answer, or words)."""
    nums = re.findall(r'(?<![\w^])-?\d+(?:\.\d+)?', e['answer'].replace('$', ' '))
    if nums and r.random() < 0.8:
        v = float(nums[-1])
        out = list(dict.fromkeys('%g' % round(c, 2) for c in [v, v + 1, v - 1, v * 2, v / 2, v + 10, v * 10, v + 2]))[:4]
    else:
        src = EN_OPTS if is_english(e['question']) else pool
        out = [src[i] for i in r.permutation(len(src))[:4]]
    return [out[p] for p in r.permutation(4)]

def clean_answer(a):
    a = re.sub(r'\\sqrt\{([^{}]*)\}', r'√\1', a.replace('$', ''))
    a = re.sub(r'\\frac\{([^{}]*)\}\{([^{}]*)\}', r'\1/\2', a)
    for k, v in (('\\sqrt', '√'), ('\\pi', 'π'), ('\\rho', 'ρ'), ('\\cap', '∩'), ('\\cup', '∪'), ('^2', '²'),
                 ('^3', '³')):
        a = a.replace(k, v)
    return re.sub(r'[{}\\_]', '', a)

def working_lines(e, r, n):
    """A student's working: short pieces of the bank answer."""
    segs = [s.strip() for s in re.split(r'[，。；;！]|\. ', clean_answer(e['answer'])) if s.strip() and
            not re.search('[əɜɪˈˌː]', s)]
    good = [s for s in segs if len(s) <= 20 and re.search(r'[=\d]', s)] or [s[:16] for s in segs[:2]] or ['?']
    st = int(r.integers(max(1, len(good) - n + 1)))
    return [s[:20] for s in good[st:st + n]]

def similar(a, b):
    return difflib.SequenceMatcher(None, a, b).ratio()

def build_page(plan, bank, fi, r, em):
    """Lay out one page (all in millimetres, content coordinates)."""
    e_fr, pg, kind = bank[fi], Page(), plan['paper']
    sizes = {'lined': [(176, 250), (185, 260), (182, 257)], 'grid': [(176, 250), (185, 260), (182, 257)],
             'glossy': [(185, 260), (184, 258)]}.get(kind, [(210, 297), (195, 270)])
    pw, ph = choice(r, sizes)
    pg.w, pg.h, pg.kind = pw, ph, kind
    en = pg.en = is_english(e_fr['question']) and r.random() < 0.7
    fam = FAMILIES[int(r.integers(len(FAMILIES)))]
    ink = (0.08, 0.08, 0.1) if kind != 'recycled' else (0.16, 0.15, 0.15)
    st = pg.style = Style(fam, em, ink, plan.get('italic', False) and e_fr['subject'] in ('math', 'physics'))
    accent = pg.accent = choice(r, [(0.05, 0.3, 0.65), (0.1, 0.45, 0.3), (0.6, 0.15, 0.2), (0.35, 0.2, 0.55)])
    pg.rule = None
    if kind == 'lined':
        pg.rule = ('lined', max(U(r, 7.0, 9.0), em / 0.55), U(r, 18, 26))
    elif kind == 'grid':
        pg.rule = ('grid', 5.0, 10.0)
    x0 = pg.rule[2] + U(r, 3, 6) if kind == 'lined' else U(r, 15, 24)
    mr, mt, mb = U(r, 12, 20), U(r, 12, 20), U(r, 14, 22)
    xr = pw - mr
    pg.col = (x0, xr)
    pitch = pg.pitch = {'lined': pg.rule[1] if pg.rule else 0, 'grid': 5.0 * math.ceil(em * U(r, 1.4, 1.8) / 5.0)}.get(
        kind, em * U(r, 1.45, 1.8))
    rule_y0 = pg.rule_y0 = mt + 6

    def baseline_for(ytop):
        if kind == 'lined':
            return rule_y0 + max(math.ceil((ytop + 0.85 * em - rule_y0) / pitch), 0) * pitch - 0.6
        if kind == 'grid':
            return 5.0 * math.ceil((ytop + 0.9 * em) / 5.0) - 0.8
        return ytop + 0.9 * em

    def emit_line(line, x, base, color, sst=st, bold=False):
        for dx, w, a in line:
            if a[0] == 'blank':
                pg.lines.append((x + dx, base + 0.15 * em, x + dx + w, base + 0.15 * em, 0.06 * em, color))
            elif a[0] not in ('space', 'gap'):
                f, sz, dy = sst.atom_font(a, bold)
                pg.runs.append((x + dx, base + dy, a[1], f, sz, color))

    def line_rect(line, x, base, tags, sc=1.0):
        xs = [(x + dx, x + dx + w) for dx, w, a in line if a[2] in tags]
        if xs:
            return (min(p[0] for p in xs) - 0.3, base - 0.95 * em * sc, max(p[1] for p in xs) + 0.3, base + 0.25 * em * sc)

    def simple_text(s, x, y_base, size_f=1.0, bold=False, color=None, align='left', width=None):
        sst = Style(fam, em * size_f, ink, False)
        ln = wrap(sst, atomize(s, 'h'), 1e9, 1e9, bold)[0]
        w = ln[-1][0] + ln[-1][1]
        x += {'center': ((width or 0) - w) / 2, 'right': (width or 0) - w}.get(align, 0)
        emit_line(ln, x, y_base, color or ink, sst, bold)
        rect = line_rect(ln, x, y_base, ('h',), size_f)
        pg.text_rects.append((rect, False))
        return rect

    y, subj, g = mt, e_fr['subject'], str(e_fr.get('grade', '7'))
    # ---- header
    if kind == 'glossy':
        pg.rects.append(((x0 - 2, y, xr, y + 2.0 * em), accent, None))
        t = choice(r, ['Exercises 3.2', 'Practice 4B', 'Review 2'] if en else ['习题 3.2', '练习二', '复习题 5', '课后练习 1.4'])
        pg.headers['title'] = simple_text(t, x0 + 2, y + 1.45 * em, 1.15, True, (0.98, 0.98, 0.98))
        y += 2.6 * em
    elif plan['title']:
        if en:
            t = f"Grade {g} {SUBJ_EN.get(subj, 'Science')} — " + choice(r, ['Unit 3 Practice', 'Homework Sheet 5',
                                                                            'Revision Worksheet'])
        else:
            gcn = dict(zip(['3', '4', '5', '6', '7', '8', '9'], '三四五六七八九')).get(g, '七') + '年级'
            gcn = {'10': '高一', '11': '高二', '12': '高三'}.get(g, gcn)
            t = gcn + SUBJ_CN.get(subj, '科学') + choice(r, ['单元测试卷', '课时练习', '期中复习题', '周末作业', '随堂练习'])
        fs = U(r, 1.3, 1.6)
        pg.headers['title'] = simple_text(t, x0, y + fs * em, fs, True, None, 'center', xr - x0)
        y += fs * em * 1.9 + 0.3 * em
        if r.random() < 0.4:
            sub = 'Time: 40 minutes   Total: 50 marks' if en else '（满分100分，时间60分钟）'
            simple_text(sub, x0, y + 0.8 * em, 0.85, False, None, 'center', xr - x0)
            y += 1.5 * em
    if plan['nameline']:
        s = 'Name: ________   Class: ______   Date: ______' if en else '班级：________  姓名：________  学号：______'
        pg.headers['nameline'] = simple_text(s, x0, y + 0.9 * em, 0.95)
        lab = 'Name: ' if en else '班级：________  姓名：'
        lx = x0 + wrap(Style(fam, em * 0.95, ink, False), atomize(lab), 1e9, 1e9)[0][-1][0] + 0.6 * em
        pg.name_zone = (lx, y - 0.5 * em, lx + 7 * em, y + 1.0 * em)
        y += 1.9 * em
        if r.random() < 0.5:
            pg.lines.append((x0, y, xr, y, 0.25, ink))
            y += 0.6 * em
    sec_i = [int(r.integers(0, 3))]

    def section(y):
        if en:
            s = choice(r, ['Part A  Multiple Choice', 'Section B: Short Answers (4 marks each)', 'Part C  Calculation'])
        else:
            s = CN_NUM[sec_i[0] % 10] + '、' + choice(r, ['选择题', '填空题', '解答题', '计算题', '简答题']) + \
                choice(r, ['', '（每小题3分，共18分）', '（每题5分）'])
        sec_i[0] += 1
        rect = simple_text(s, x0 - (0 if kind == 'lined' else U(r, 0, 3)), baseline_for(y), 1.0, True,
                           accent if kind == 'glossy' else None)
        pg.headers.setdefault('section', rect)
        return y + pitch * (1 if kind in ('lined', 'grid') else 1.15)

    if plan['section']:
        y = section(y + 0.3 * em)
    # ---- problems: neighbours mostly of the same subject (or English), sometimes a near twin of the framed one
    others = [i for i in range(len(bank)) if i != fi]
    pref = [i for i in others if is_english(bank[i]['question'])] if en else \
        [i for i in others if bank[i]['subject'] == subj]
    twins = [i for i in others if similar(bank[i]['question'], e_fr['question']) > 0.75]
    nb_list = [choice(r, pref if pref and r.random() < 0.75 else others) for _ in range(14)]
    slot = plan['slot']
    pg.twin = bool(plan['twin'] and twins)
    if pg.twin:
        nb_list.insert(slot - 1 if (slot > 0 and r.random() < 0.5) else slot, choice(r, twins))
    kp_pool = sorted({k for b in bank for k in b.get('knowledge_points', []) if len(k) <= 8})
    variant, n0 = bool(r.random() < 0.5), int(r.integers(1, 9))
    hang, num_bold = r.random() < 0.6, r.random() < 0.4
    ans_style = choice(r, ['small', 'medium', 'medium', 'large'] + (['large'] if plan['distance'] == 'mid' else []))
    score_style = choice(r, ['inline', 'right'])
    second_sec = int(r.integers(slot + 1, slot + 4)) if r.random() < 0.3 else -1
    sc_en = en or r.random() < 0.2
    nbi = 0
    for pj in range(14):
        framed = pj == slot
        if pj == second_sec:
            y = section(y + 0.2 * em)
        if framed:
            bi = fi
        else:
            bi, nbi = nb_list[nbi], nbi + 1
        e = bank[bi]
        atoms = atomize(e['question'], 'q')
        with_opts = (not framed) and plan['options'] and r.random() < 0.65
        score_txt = None
        if plan['score'] if framed else (r.random() < 0.35 and (plan['score'] or r.random() < 0.5)):
            pts = int(r.integers(2, 9))
            score_txt = choice(r, [f'({pts} marks)', f'[{pts}]', f'({pts} points)']) if sc_en else f'（{pts}分）'
        if with_opts:   # answer bracket of a choice question
            atoms += [['space', ' ', 'b'], ['lat', '(', 'b'], ['gap', '#2.2', 'b'], ['lat', ')', 'b']] \
                if is_english(e['question']) else [['cjk', '（', 'b'], ['gap', '#2.2', 'b'], ['cjk', '）', 'b']]
        sw = 0.0
        if score_txt and score_style == 'inline':
            atoms += ([['space', ' ', 's']] if sc_en else []) + atomize(score_txt, 's')
        elif score_txt:
            sw = sum(st.atom_w(a) for a in atomize(score_txt, 's')) + 1.5 * em
        lab = number_label(plan['numstyle'], n0 + pj, variant)
        fname = ((st.latb if num_bold else st.lat) if all(is_lat(c) for c in lab) else (st.cjkb if num_bold else st.cjk))
        lw = text_w(lab, fname, em) if lab else 0.0
        gap = 0.45 * em if lab else 0.0
        xt = x0 + (max(lw + gap, 1.6 * em if lab else 0) if hang else lw + gap)
        xc = xt if hang else x0
        base = b = baseline_for(y)
        lines = wrap(st, atoms, xr - xt - sw, xr - xc)
        prob = {'bank_idx': bi, 'framed': framed, 'j': pj, 'line_rects': [], 'opts_rect': None, 'num_rect': None,
                'bracket': None, 'score_rect': None, 'zone': None, 'tail': None}
        if lab:
            pg.runs.append((x0, base, lab, fname, em, accent if kind == 'glossy' else ink))
            prob['num_rect'] = (x0 - 0.3, base - 0.95 * em, x0 + lw + 0.3, base + 0.25 * em)
        for li, ln in enumerate(lines):
            xx = xt if li == 0 else xc
            emit_line(ln, xx, b, ink)
            if line_rect(ln, xx, b, ('q',)):
                prob['line_rects'].append(line_rect(ln, xx, b, ('q',)))
            prob['score_rect'] = line_rect(ln, xx, b, ('s',)) or prob['score_rect']
            for dx, w_, a in ln:
                if a[0] == 'gap':
                    prob['bracket'] = (xx + dx, b - 0.9 * em, xx + dx + w_, b + 0.2 * em)
            last_end = xx + ln[-1][0] + ln[-1][1]
            b += pitch
        last_base = b - pitch
        if score_txt and score_style == 'right':
            prob['score_rect'] = simple_text(score_txt, xr - sw + 1.5 * em, base, 1.0)
        if with_opts:
            sep = choice(r, ['. ', '．', '. '])
            texts = [f'{L}{sep}{o}' for L, o in zip('ABCD', make_options(e, r, kp_pool))]
            ow, colw = max(text_w(t, st.cjk, em) for t in texts), xr - xc
            per = 4 if ow * 4 + 6 * em < colw else (2 if ow * 2 + 3 * em < colw else 1)
            ob = last_base + pitch
            prob['opts_rect'] = rect_union([simple_text(t, xc + (0 if hang else 0.8 * em) + (oi % per) * colw / per,
                                                        ob + (oi // per) * pitch) for oi, t in enumerate(texts)])
            last_base, last_end = ob + (math.ceil(4 / per) - 1) * pitch, xr
        prob['rect'] = rect_union(prob['line_rects'] + [prob['num_rect']])
        pg.text_rects += [(lr, framed) for lr in prob['line_rects']]
        pg.text_rects += [(prob[k_], False) for k_ in ('num_rect', 'score_rect') if prob[k_]]
        gap_mm = {'small': U(r, 2, 5), 'medium': U(r, 9, 18), 'large': U(r, 18, 34)}[ans_style]
        if framed and plan['hw_work_fr']:    # the student has started on it below
            gap_mm = max(gap_mm, U(r, 12, 22))
        if kind == 'lined':
            gap_mm = pitch * int(round(gap_mm / pitch))
        yb = last_base + 0.35 * em
        if gap_mm >= 6:    # answer space: where students write
            prob['zone'] = (xc, yb + 0.6, xr, yb + gap_mm - 0.6)
        if xr - last_end > 22:
            prob['tail'] = (last_end + 3, last_base - 0.95 * em, xr, last_base + 0.3 * em)
        prob['lm'] = (2.5, base - 1.4 * em, x0 - 1.2, base + 0.6 * em) if x0 > 10 else None
        prob['rm'] = (xr + 1.0, base - 1.4 * em, pw - 2.5, base + 0.6 * em) if pw - xr > 10 else None
        y = yb + gap_mm + (0.3 * em if kind not in ('lined', 'grid') else 0)
        if y > ph - mb - 2 * em:
            if pj <= slot:
                return None
            break
        pg.problems.append(prob)
    pg.framed = [p for p in pg.problems if p['framed']][0]
    if r.random() < 0.6:    # footer
        pn = int(r.integers(2, 90))
        s = choice(r, [f'— {pn} —', f'第 {pn % 4 + 1} 页（共 4 页）', f'Page {pn % 4 + 1} of 4', f'{pn}'])
        simple_text(s, x0, ph - mb * 0.45, 0.8, False, None, 'center', xr - x0)
    if kind in ('plain', 'photocopy', 'recycled') and not en and r.random() < 0.3 and x0 > 14:   # exam seal line
        sx = x0 * 0.4
        pg.runs += [(sx - em * 0.4, 60 + i * 3 * em, ch, st.cjk, em * 0.8, ink) for i, ch in enumerate('密封线内不要答题')]
        pg.lines.append((sx + em * 0.8, 20, sx + em * 0.8, ph - 20, 0.15, ink))
    pg.framed_rect = rect_union(pg.framed['line_rects'] + [pg.framed['num_rect']])
    pg.framed_text_rect = rect_union(pg.framed['line_rects'])
    return pg


# ----------------------------------------------------------------- camera
def choose_camera(plan, pg, A_c, W, H, r):
    """Homography page mm -> photo px that puts the framed problem near the centre, with tilt and perspective."""
    fr = apply_h(A_c, rect_pts(pg.framed_rect, 2, 2)[[0, 1, 3, 2]])
    c, fw, fh, em = fr.mean(0), np.ptp(fr[:, 0]), np.ptp(fr[:, 1]), pg.style.em
    th = {'small': U(r, 0, 3), 'medium': U(r, 3, 7), 'large': U(r, 7, 10.5)}[plan['tilt']] * choice(r, [-1, 1])
    ps, phi = (U(r, 0.0, 0.06) if plan['persp'] == 'mild' else U(r, 0.07, 0.16)), U(r, 0, 2 * math.pi)
    px, py, k1 = ps * math.cos(phi), ps * math.sin(phi), U(r, -0.035, 0.01)
    page_corners = np.array([(0, 0), (pg.w, 0), (pg.w, pg.h), (0, pg.h)], float)
    dist, look, ox, oy = plan['distance'], c.copy(), 0.0, 0.0
    if dist == 'far':      # whole page in view: aim between the problem and the page centre, as big as fits
        best = (U(r, 14.8, 19.5) / (0.88 * em) * 0.5, c)
        for t in np.linspace(0, 1, 11):
            lk = c + t * (np.array([pg.w / 2, pg.h / 2]) - c)
            d = (page_corners - lk) @ rot3(th)[:2, :2].T
            m = min(W / 2 * 0.93 / np.abs(d[:, 0]).max(), H / 2 * 0.93 / np.abs(d[:, 1]).max())
            off = np.abs(c - lk) * m
            if off[0] <= 0.11 * W and off[1] <= 0.14 * H and (t == 0 or m > best[0] + 1e-6):
                best = (m, lk)
        m, look = best[0] * U(r, 0.9, 1.0), best[1]
    elif dist == 'mid':
        # frame one or two neighbours above and below the problem
        na, nb = choice(r, [1, 1, 2]), choice(r, [1, 2, 2])
        byj = {p_['j']: p_ for p_ in pg.problems}
        fj = pg.framed['j']
        top = byj.get(fj - na) or byj.get(fj - 1)
        bot = byj.get(fj + nb) or byj.get(fj + 1)
        y_top = apply_h(A_c, [(0, top['rect'][1])])[0, 1] if top else c[1] - 2.5 * fh
        y_bot = apply_h(A_c, [(0, rect_union([bot['rect'], bot['opts_rect']])[3])])[0, 1] if bot else c[1] + 2.5 * fh
        half = max(c[1] - y_top, y_bot - c[1]) + 0.5 * em
        m = (H / 2) / half * U(r, 0.92, 1.05)
        lo = max(17.0, 0.017 * min(W, H)) / (0.88 * em)
        hi = 0.045 * min(W, H) / (0.88 * em)
        m = float(np.clip(m, lo, max(lo, hi)))
        m = min(m, 0.88 * W / fw, 0.62 * H / fh)
        ox, oy = U(r, -0.05, 0.05) * W, U(r, -0.05, 0.05) * H
    else:
        # close: the problem fills most of the width, neighbours (nearly) out of view
        weff = max(fw, 0.35 * (pg.col[1] - pg.col[0]))
        m = U(r, 0.74, 0.92) * W / weff
        byj = {p_['j']: p_ for p_ in pg.problems}
        fj = pg.framed['j']
        gaps = []
        if byj.get(fj - 1):
            gaps.append(c[1] - apply_h(A_c, [(0, rect_union([byj[fj - 1]['rect'], byj[fj - 1]['opts_rect']])[3])])[0, 1])
        if byj.get(fj + 1):
            gaps.append(apply_h(A_c, [(0, byj[fj + 1]['rect'][1])])[0, 1] - c[1])
        if gaps:
            m = max(m, (H / 2) / max(min(gaps) * U(r, 1.0, 1.5), fh / 2 + 2))
        m = min(m, 0.92 * W / fw, 0.8 * H / fh, min(110, 0.085 * min(W, H)) / (0.88 * em))
        ox, oy = U(r, -0.03, 0.03) * W, U(r, -0.04, 0.04) * H
    Hm = None
    for _ in range(60):
        Pp = np.array([[1, 0, 0], [0, 1, 0], [px / (W / 2), py / (W / 2), 1]])
        Hm = tr3(W / 2 + ox, H / 2 + oy) @ Pp @ rot3(th) @ np.diag([m, m, 1]) @ tr3(-look[0], -look[1])
        q = apply_h(Hm, fr)
        ok = (q[:, 0].min() > 0.045 * W and q[:, 0].max() < 0.955 * W and q[:, 1].min() > 0.045 * H
              and q[:, 1].max() < 0.955 * H)
        if dist == 'far':
            pc = apply_h(Hm, page_corners)
            ok = ok and pc[:, 0].min() > 0.01 * W and pc[:, 0].max() < 0.99 * W and \
                pc[:, 1].min() > 0.01 * H and pc[:, 1].max() < 0.99 * H
        if ok:
            break
        m, px, py, ox, oy = m * 0.95, px * 0.9, py * 0.9, ox * 0.8, oy * 0.8
    q = apply_h(Hm, [c, c + (1, 0), c + (0, 1)])
    d1, d2 = q[1] - q[0], q[2] - q[0]
    scale = math.sqrt(abs(d1[0] * d2[1] - d1[1] * d2[0]))     # photo px per mm at the problem
    return {'H': Hm, 'm': scale, 'theta': th, 'persp': math.hypot(px, py), 'k1': k1, 'char': 0.88 * em * scale, 'ok': ok}


# ----------------------------------------------------------------- page region rendering
def curl_disp(u, v, cam_curl, pg):
    """Observed displacement (du, dv) of true page point (u, v) for spine curl / bending."""
    if cam_curl is None:
        return np.zeros_like(u), np.zeros_like(v)
    kind, side, D, A, B, C = cam_curl
    if kind == 'spine':    # both pages rise towards the spine: squeezed across, lines bowed (continuous at the spine)
        ds = u - (0 if side == 'left' else pg.w)
        d = np.abs(ds)
        t = np.clip(1 - d / D, 0, 1)
        return np.sign(ds) * A * D * t * t * (1 - np.exp(-d / 2)), t * t * (B * (v - pg.h / 2) / (pg.h / 2) + C)
    return 0.3 * B * np.cos(math.pi * v / pg.h + C), B * np.sin(math.pi * u / pg.w * A + C)   # loose sheet, gentle wave

def curl_shade(u, v, cam_curl, pg):
    if cam_curl is None:
        return 1.0
    kind, side, D, A, B, C = cam_curl
    if kind == 'spine':
        d = np.abs(u if side == 'left' else pg.w - u)
        t = np.clip(1 - d / D, 0, 1)
        return 1 - 0.45 * t ** 1.6 - 0.25 * np.exp(-d / 1.5)
    return 1 + 0.05 * np.cos(math.pi * u / pg.w * A + C)

def draw_print(pg, reg, k, size):
    """Printed text, rules and bands of the page region (content coordinates), white background."""
    (w, h), rx0, ry0 = size, reg[0], reg[1]
    img = Image.new('RGB', (w, h), (255, 255, 255))
    d = ImageDraw.Draw(img)
    def c255(c):
        return tuple(int(round(255 * v)) for v in c)

    for (x0, y0, x1, y1), fill, _ in pg.rects:
        d.rectangle([(x0 - rx0) * k, (y0 - ry0) * k, (x1 - rx0) * k, (y1 - ry0) * k], fill=c255(fill))
    for x, y, s, f, sz, col in pg.runs:
        X, Y = (x - rx0) * k, (y - ry0) * k
        if X > w + 10 or Y < -sz * k * 2 or Y > h + sz * k * 2 or X < -len(s) * sz * k * 1.2 - 10:
            continue
        d.text((X, Y), s, font=font(f, round(sz * k)), fill=c255(col), anchor='ls')
    for x0, y0, x1, y1, lw, col in pg.lines:
        d.line([((x0 - rx0) * k, (y0 - ry0) * k), ((x1 - rx0) * k, (y1 - ry0) * k)], fill=c255(col),
               width=max(1, int(round(lw * k))))
    return np.asarray(img, np.float32) / 255.0

def paper_base(pg, plan, reg, k, size, r, extra):
    """Paper (all sheets in view) in paper coordinates: rgb, alpha, main-sheet mask, pixel-centre coords in mm."""
    w, h = size
    xs = reg[0] + (np.arange(w, dtype=np.float32) + 0.5) / k
    ys = reg[1] + (np.arange(h, dtype=np.float32) + 0.5) / k
    X, Y = (lambda x: (x - reg[0]) * k), (lambda y: (y - reg[1]) * k)
    kind = pg.kind
    base = {'plain': (0.965, 0.96, 0.945), 'lined': choice(r, [(0.965, 0.955, 0.92), (0.92, 0.955, 0.88)]),
            'grid': (0.96, 0.96, 0.94), 'glossy': (0.975, 0.975, 0.97),
            'recycled': (U(r, 0.8, 0.86), U(r, 0.78, 0.83), U(r, 0.71, 0.76)), 'photocopy': (0.93, 0.93, 0.925)}[kind]
    rgb = np.empty((h, w, 3), np.float32)
    rgb[:] = base
    grain = r.standard_normal((h, w), dtype=np.float32) * {'recycled': 0.035, 'photocopy': 0.02}.get(kind, 0.012)
    rgb *= (1 + 0.025 * smooth_noise((h, w), 40 * k, r) + grain)[..., None]
    alpha, main, m2 = np.zeros((h, w), np.float32), np.zeros((h, w), np.float32), np.zeros((h, w), np.uint8)
    if extra.get('beneath') is not None:   # the next sheet of a stapled packet
        cv2.fillPoly(m2, [np.round(np.array([(X(x), Y(y)) for x, y in extra['beneath']]) * 16).astype(np.int32)], 255,
                     cv2.LINE_AA, shift=4)
        alpha = m2 / np.float32(255)
        rgb *= np.where(m2[..., None] > 0, 0.93, 1.0).astype(np.float32)
    yi0, yi1 = int(np.clip(Y(0), 0, h)), int(np.clip(Y(pg.h), 0, h))
    main[yi0:yi1, int(np.clip(X(0), 0, w)):int(np.clip(X(pg.w), 0, w))] = 1
    if extra.get('facing'):                # the other page of an open book
        fx0 = -pg.w if extra['facing'] == 'left' else pg.w
        alpha[yi0:yi1, int(np.clip(X(fx0), 0, w)):int(np.clip(X(fx0 + pg.w), 0, w))] = 1
    alpha = np.maximum(alpha, main)
    if extra.get('beneath') is not None:   # shadow of the top sheet on the one beneath
        rgb *= (1 - 0.35 * np.clip(cv2.GaussianBlur(main, (0, 0), max(1.0, 0.8 * k)) - main, 0, 1))[..., None]
    if pg.rule:
        col = choice(r, [(0.55, 0.68, 0.86), (0.6, 0.8, 0.68), (0.7, 0.72, 0.85)])
        lw, lay, sp = max(1, int(round(0.18 * k))), np.ones((h, w, 3), np.float32), pg.rule[1]
        def seg(p0, p1, c):
            cv2.line(lay, tuple(int(round(v)) for v in p0), tuple(int(round(v)) for v in p1), c, lw, cv2.LINE_AA)

        if pg.rule[0] == 'lined':          # ruled lines sit just under the text baselines, red margin line
            for yl in [v for v in np.arange(pg.rule_y0 % sp, pg.h - 8, sp) if v > 14]:
                seg((X(0), Y(yl)), (X(pg.w), Y(yl)), col)
            seg((X(pg.rule[2]), Y(0)), (X(pg.rule[2]), Y(pg.h)), (0.85, 0.45, 0.45))
        else:
            for yl in np.arange(10, pg.h - 9, sp):
                seg((X(5), Y(yl)), (X(pg.w - 5), Y(yl)), col)
            for xl in np.arange(10, pg.w - 9, sp):
                seg((X(xl), Y(10)), (X(xl), Y(pg.h - 10)), col)
        rgb *= lay
    if kind == 'recycled':                 # fibres and specks
        for _ in range(min(int(w * h / (k * k) * 0.08), 4000)):
            x, y, a, L, c = r.uniform(0, w), r.uniform(0, h), r.uniform(0, math.pi), r.uniform(0.5, 2.5) * k, r.uniform(0.85, 1.08)
            cv2.line(rgb, (int(x), int(y)), (int(x + L * math.cos(a)), int(y + L * math.sin(a))), tuple(c * v for v in base), 1)
        rgb[r.random((h, w)) < 0.0004] *= 0.6
    return rgb, alpha, m2 / np.float32(255), xs, ys

def hand_text_mask(text, sz, fpair, r, slant):
    sz = int(max(8, sz))
    g = int(sz * 2)
    Hc, Wc = int(sz * 2.4), int(sz * (1.3 * len(text) + 2.5))
    canvas = np.zeros((Hc, Wc), np.float32)
    base, x = int(sz * 1.6), float(sz * 0.8)
    for ch in text:
        if ch == ' ':
            x += sz * U(r, 0.3, 0.5)
            continue
        low = ch in SUB          # written subscripts: a small digit, lowered
        ch = SUB.get(ch, ch)
        f = font(fpair[1] if is_lat(ch) else fpair[0], int(sz * (0.65 if low else 1)))
        im = Image.new('L', (g, g), 0)
        ImageDraw.Draw(im).text((sz * 0.5, sz * (1.55 if low else 1.4)), ch, font=f, fill=255, anchor='ls')
        a = np.asarray(im, np.float32) / 255.0
        ang = math.radians(r.normal(0, 4))
        sx, sy, sh = U(r, 0.86, 1.08), U(r, 0.9, 1.12), slant + r.normal(0, 0.05)
        A = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]]) @ np.array([[sx, -sh], [0, sy]])
        pv = np.array([sz * 0.5, sz * 1.4])
        M = np.hstack([A, (pv - A @ pv)[:, None]]).astype(np.float32)
        a = cv2.warpAffine(a, M, (g, g), flags=cv2.INTER_LINEAR)
        ox, oy = int(round(x - pv[0])), int(round(base - pv[1] + r.normal(0, 0.06 * sz)))
        y0, x0 = max(0, oy), max(0, ox)
        y1, x1 = min(Hc, oy + g), min(Wc, ox + g)
        if x1 > x0 and y1 > y0:
            canvas[y0:y1, x0:x1] = np.maximum(canvas[y0:y1, x0:x1], a[y0 - oy:y1 - oy, x0 - ox:x1 - ox])
        x += f.getlength(ch) * sx * U(r, 0.9, 1.04) + r.normal(0, 0.03 * sz)
    canvas = canvas[:, :max(4, min(Wc, int(x + sz * 0.6)))]
    h, w = canvas.shape
    cell = max(4, sz // 2)
    gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    dx = smooth_noise((h, w), cell, r) * 0.045 * sz
    dy = smooth_noise((h, w), cell, r) * 0.045 * sz
    canvas = cv2.remap(canvas, gx + dx, gy + dy, cv2.INTER_LINEAR)
    return canvas, base

def wobble(pts, r, amp):
    pts = np.asarray(pts, np.float64)
    seg = np.r_[0, np.cumsum(np.hypot(*np.diff(pts, axis=0).T))]
    L = seg[-1]
    n = max(8, int(L / 2))
    t = np.linspace(0, L, n)
    x, y = np.interp(t, seg, pts[:, 0]), np.interp(t, seg, pts[:, 1])
    kk = max(3, n // 12)
    tk = np.linspace(0, L, kk)
    x += np.interp(t, tk, r.standard_normal(kk)) * amp
    y += np.interp(t, tk, r.standard_normal(kk)) * amp
    return np.c_[x, y]

def stroke_patch(polys, thick):
    allp = np.vstack(polys)
    pad = int(thick + 3)
    x0, y0 = int(math.floor(allp[:, 0].min())) - pad, int(math.floor(allp[:, 1].min())) - pad
    x1, y1 = int(math.ceil(allp[:, 0].max())) + pad, int(math.ceil(allp[:, 1].max())) + pad
    patch = np.zeros((max(1, y1 - y0), max(1, x1 - x0)), np.uint8)
    for p in polys:
        q = np.round((p - [x0, y0]) * 16).astype(np.int32)
        cv2.polylines(patch, [q], False, 255, max(1, int(round(thick))), cv2.LINE_AA, shift=4)
    return patch.astype(np.float32) / 255.0, x0, y0

class HandWriter:
    """Places the student's writing on the page (content px), never over the framed text."""

    def __init__(self, pg, reg, k, size, r, inks):
        self.pg, self.reg, self.k, self.r = pg, reg, k, r
        w, h = size
        self.layers = {name: np.zeros((h, w), np.float32) for name in inks}
        self.forbid = np.zeros((h, w), np.uint8)     # 2: framed problem's words (+1.2 mm), 1: other print
        for rect, fr in pg.text_rects:
            pad = 1.2 if fr else 0.2
            (x0, y0), (x1, y1) = self.px((rect[0] - pad, rect[1] - pad)), self.px((rect[2] + pad, rect[3] + pad))
            cv2.rectangle(self.forbid, (int(x0), int(y0)), (int(x1), int(y1)), 2 if fr else 1, -1)
        self.items = []    # (kind, rect mm)
        self.slant, self.thick_mm = U(r, 0.0, 0.25), U(r, 0.3, 0.5)
        self.fpair = (choice(r, ['sans', 'serif', 'sans']), choice(r, HAND_LAT))

    def px(self, p):
        return ((p[0] - self.reg[0]) * self.k, (p[1] - self.reg[1]) * self.k)

    def mm(self, x, y):
        return (x / self.k + self.reg[0], y / self.k + self.reg[1])

    def _place(self, patch, x0, y0, ink, kind, allow_print=False):
        h, w = self.forbid.shape
        ph, pw = patch.shape
        if x0 >= w or y0 >= h or x0 + pw <= 0 or y0 + ph <= 0:
            return None
        cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x0 + pw), min(h, y0 + ph)
        sub, fb = patch[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0], self.forbid[cy0:cy1, cx0:cx1]
        ink_px = sub > 0.15
        tol = 1.0 if allow_print is True else allow_print or 0.04     # share of strokes allowed over other print
        if (ink_px & (fb == 2)).any() or (ink_px & (fb == 1)).sum() > tol * max(1, ink_px.sum()) or not ink_px.any():
            return None
        L = self.layers[ink]
        L[cy0:cy1, cx0:cx1] = np.maximum(L[cy0:cy1, cx0:cx1], sub)
        yy_, xx_ = np.nonzero(ink_px)
        rect = self.mm(cx0 + xx_.min(), cy0 + yy_.min()) + self.mm(cx0 + xx_.max() + 1, cy0 + yy_.max() + 1)
        self.items.append((kind, rect))
        return rect

    def text(self, s, x_mm, base_mm, h_mm, ink, kind, allow_print=False):
        sz = h_mm * self.k / 0.8
        m, b = hand_text_mask(s, sz, self.fpair, self.r, self.slant)
        X, Y = self.px((x_mm, base_mm))
        return self._place(m, int(round(X - 0.8 * sz)), int(round(Y - b)), ink, kind, allow_print)

    def strokes(self, polys_mm, ink, kind, allow_print=False, amp_mm=0.25):
        k = self.k
        polys = [wobble(np.array([self.px(p) for p in poly]), self.r, amp_mm * k) for poly in polys_mm]
        patch, x0, y0 = stroke_patch(polys, max(1.0, self.thick_mm * k))
        return self._place(patch, x0, y0, ink, kind, allow_print)

def ellipse_pts(cx, cy, rx, ry, r):
    a0 = U(r, 0, 2 * math.pi)
    t = np.linspace(a0, a0 + 2 * math.pi + U(r, 0.2, 0.6), 60)
    return np.c_[cx + rx * np.cos(t), cy + ry * np.sin(t)]

def star_pts(cx, cy, R):
    pts = []
    for i in range(11):
        a = -math.pi / 2 + i * math.pi / 5
        rr = R if i % 2 == 0 else R * 0.42
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return np.array(pts)

def arrow_polys(p0, p1, bend, head):
    p0, p1 = np.array(p0, float), np.array(p1, float)
    mid = (p0 + p1) / 2 + bend * np.array([-(p1 - p0)[1], (p1 - p0)[0]])
    t = np.linspace(0, 1, 24)[:, None]
    curve = (1 - t) ** 2 * p0 + 2 * (1 - t) * t * mid + t * t * p1
    d = curve[-1] - curve[-4]
    d /= (np.linalg.norm(d) + 1e-9)
    n = np.array([-d[1], d[0]])
    h1 = p1 - head * d + 0.55 * head * n
    h2 = p1 - head * d - 0.55 * head * n
    return [curve, np.array([h1, p1, h2])]

def write_student(hw, pg, plan, bank, r, main_ink, alt_ink):
    """The student's writing around the problems (never over the framed problem's printed words)."""
    em, fr = pg.style.em, pg.framed
    hmm = em * U(r, 1.05, 1.45)
    nbs = sorted([p for p in pg.problems if not p['framed']], key=lambda p: abs(p['j'] - fr['j']))
    works = []

    def write_lines(lines, z, x, kind):
        yb = z[1] + hmm * 1.05
        for s in lines:
            if yb > z[3]:
                break
            rc = hw.text(s, x, yb, hmm, main_ink, kind)
            works.extend([rc] if rc else [])
            yb, x = yb + hmm * U(r, 1.4, 1.8), x + U(r, -2, 3)

    if plan['hw_name']:
        z, nm = pg.name_zone, choice(r, NAMES)
        if z:
            hw.text(nm, z[0] + 1, z[3] - 0.35 * em, hmm, alt_ink, 'name', allow_print=True)
        else:
            hw.text(nm + choice(r, ['', '  7(3)班', '  8班']), pg.w - 62, 10, hmm * 0.9, alt_ink, 'name')
    if plan['hw_work_nb']:
        for p in nbs[:int(r.integers(1, 4))]:
            if p['bracket'] and r.random() < 0.8:    # answer letter in the choice bracket
                bx = p['bracket']
                hw.text(choice(r, list('ABCD')), bx[0] + 0.25 * (bx[2] - bx[0]), bx[3] - 0.3 * em, em * 1.1, main_ink,
                        'work_nb', True)
            if p['zone'] and p['zone'][3] - p['zone'][1] > 6:
                write_lines(working_lines(bank[p['bank_idx']], r, int(r.integers(1, 4))), p['zone'],
                            p['zone'][0] + U(r, 0, 12), 'work_nb')
            elif p['tail'] and not p['bracket']:
                rc = hw.text(working_lines(bank[p['bank_idx']], r, 1)[0][:10], p['tail'][0] + 2, p['tail'][3] - 0.3 * em,
                             hmm * 0.9, main_ink, 'work_nb')
                works.extend([rc] if rc else [])
    if plan['hw_work_fr']:
        lines = working_lines(bank[fr['bank_idx']], r, int(r.integers(1, 3)))
        if r.random() < 0.25:
            lines = [choice(r, ['解：', '答：', 'Ans:', '设 x =', '= ?'])] + lines[:1]
        if fr['zone'] and fr['zone'][3] - fr['zone'][1] > 6:
            write_lines(lines, fr['zone'], fr['zone'][0] + U(r, 0, 10), 'work_fr')
        elif fr['tail']:
            rc = hw.text(lines[0][:12], fr['tail'][0] + 2, fr['tail'][3] - 0.3 * em, hmm * 0.9, main_ink, 'work_fr')
            works.extend([rc] if rc else [])
    if plan['hw_cross']:
        tgt = works[int(r.integers(len(works)))] if works else None
        for p in ([] if tgt else [p for p in nbs[:3] if p['zone']]):   # a wrong answer to cross out
            tgt = hw.text(choice(r, ['x = 7', '= 25', '12 cm', 'wrong', '错']), p['zone'][0] + 30,
                          p['zone'][1] + hmm * 1.1, hmm, main_ink, 'work_nb')
            if tgt:
                break
        if tgt:
            x0, y0, x1, y1 = tgt
            ym = (y0 + y1) / 2
            if r.random() < 0.5:
                polys = [np.array([(x0 + 1, ym + U(r, -1, 1)), (x1 - 1, ym + U(r, -1, 1))])]
                if r.random() < 0.5:
                    polys.append(np.array([(x0 + 1, ym + 1.5), (x1 - 1, ym - 0.5)]))
            else:   # scribbled out
                n = max(6, int((x1 - x0) / 0.9))
                xs = np.linspace(x0 + 0.5, x1 - 0.5, n) + r.normal(0, 0.4, n)
                yy_ = np.where(np.arange(n) % 2 == 0, y0 + 1.5, y1 - 1.5) + r.normal(0, 0.5, n)
                polys = [np.c_[xs, yy_], np.c_[xs[::-1] + 0.4, yy_[::-1] + r.normal(0, 0.6, n)]]
            hw.strokes(polys, main_ink, 'cross', allow_print=0.12, amp_mm=0.15)
    if plan['hw_arrow']:
        done = False
        if works:
            x0, y0, x1, y1 = works[-1]
            p0 = (x1 + 1.5, (y0 + y1) / 2)
            p1 = (p0[0] + U(r, 10, 22), p0[1] + U(r, -6, 8))
            if hw.strokes(arrow_polys(p0, p1, U(r, -0.3, 0.3), 2.2), main_ink, 'arrow'):
                hw.text(choice(r, ['代入', '移项', 'check', '×2', '单位!', '=?', '对吗']), p1[0] + 1.5, p1[1] + hmm * 0.4,
                        hmm * 0.8, main_ink, 'arrow')
                done = True
        for p in ([] if done else [fr] + nbs[:3]):   # arrow in the margin pointing at a problem
            lm = p['lm'] or p['rm']
            if lm:
                yc = (lm[1] + lm[3]) / 2
                a, b = ((lm[0] + 0.5, yc + 5), (lm[2] - 0.8, yc)) if p['lm'] else ((lm[2] - 0.5, yc + 5), (lm[0] + 0.8, yc))
                if hw.strokes(arrow_polys(a, b, 0.25, 1.8), main_ink, 'arrow'):
                    break
    if plan['hw_circle']:
        done = False
        for p in [p for p in ([fr] if r.random() < 0.7 else []) + nbs[:3] if p['num_rect']]:
            nr = p['num_rect']
            cx, cy = (nr[0] + nr[2]) / 2, (nr[1] + nr[3]) / 2 + 0.1 * em
            for pad in (1.4, 0.9, 0.5):
                rx, ry = (nr[2] - nr[0]) / 2 + pad, (nr[3] - nr[1]) / 2 + pad * 0.8
                if hw.strokes([ellipse_pts(cx, cy, rx, ry, r)], alt_ink if r.random() < 0.3 else main_ink, 'circle',
                              allow_print=True, amp_mm=0.2):
                    done = True
                    break
            if done:
                break
    if plan['hw_margin']:
        for p in ([fr] if r.random() < 0.75 else []) + nbs[:2]:
            z = p['lm'] if (p['lm'] and r.random() < 0.7) else (p['rm'] or p['tail'] or p['lm'])
            if not z:
                continue
            cx, cy = (z[0] + z[2]) / 2 + U(r, -1, 1), (z[1] + z[3]) / 2
            R = min(3.2, (z[2] - z[0]) / 2 - 0.3)
            if r.random() < 0.5 and R > 1.2 and hw.strokes([star_pts(cx, cy, R)], main_ink, 'margin', amp_mm=0.12):
                break
            if hw.text(choice(r, ['?', '??', '?', '!', '不会', '问']), z[0] + 0.5, cy + hmm * 0.35, hmm * 0.9, main_ink,
                       'margin'):
                break
    return hw

def add_facing_text(pg, side, bank, r):
    """Printed problems on the other page of an open book (no labels, never framed)."""
    st = pg.style
    fx0 = -pg.w if side == 'left' else pg.w
    x0, x1 = fx0 + (pg.w - pg.col[1]), fx0 + (pg.w - pg.col[0])
    y, n = pg.h * 0.08, int(r.integers(1, 30))
    while y < pg.h * 0.9:
        e = bank[int(r.integers(len(bank)))]
        lab = f'{n}. '
        pg.runs.append((x0, y, lab, st.lat, st.em, st.ink))
        for ln in wrap(st, atomize(e['question']), x1 - x0 - 2 * st.em, x1 - x0 - 2 * st.em):
            for dx, _w, a in ln:
                if a[0] in ('space', 'gap', 'blank'):
                    continue
                f, sz, dy = st.atom_font(a)
                pg.runs.append((x0 + 2 * st.em + dx, y + dy, a[1], f, sz, st.ink))
            y += pg.pitch
        y += pg.pitch * U(r, 0.5, 2.5)
        n += 1

def render_page(pg, plan, cam, reg, k, r, A_c):
    """Render the page region (paper coords) -> rgb (h,w,3), alpha (h,w), the HandWriter."""
    w, h = int(math.ceil((reg[2] - reg[0]) * k)), int(math.ceil((reg[3] - reg[1]) * k))
    size, ex = (w, h), cam['extra']
    rgb, alpha, under, xs, ys = paper_base(pg, plan, reg, k, size, r, ex)
    paper_tone = np.median(rgb[h // 2::max(1, h // 40), ::max(1, w // 40)].reshape(-1, 3), 0)
    prn = draw_print(pg, reg, k, size)
    inks = {'pencil': (0.33, 0.33, 0.36), 'blue': (0.12, 0.2, 0.55), 'black': (0.1, 0.1, 0.14)}
    main_ink = choice(r, ['pencil', 'pencil', 'blue', 'black'])
    alt_ink = choice(r, ['blue', 'black', main_ink])
    hw = HandWriter(pg, reg, k, size, r, sorted({main_ink, alt_ink}))
    write_student(hw, pg, plan, cam['bank'], r, main_ink, alt_ink)
    hand = np.ones((h, w, 3), np.float32)
    for nm, L in hw.layers.items():
        if nm == 'pencil':     # graphite: grainy and lighter
            L = L * cv2.GaussianBlur(0.55 + 0.35 * np.clip(r.random((h, w), dtype=np.float32) * 1.3, 0, 1), (0, 0), 0.7) * 0.9
        hand *= 1 - L[..., None] * (1 - np.array(inks[nm], np.float32))
    if plan['crooked']:        # printed slightly crooked on the sheet (writing follows the print)
        M = (np.diag([k, k, 1]) @ tr3(-reg[0], -reg[1]) @ A_c @ tr3(reg[0], reg[1]) @ np.diag([1 / k, 1 / k, 1]))[:2]
        prn = cv2.warpAffine(prn, M, size, flags=cv2.INTER_LINEAR, borderValue=(1, 1, 1))
        hand = cv2.warpAffine(hand, M, size, flags=cv2.INTER_LINEAR, borderValue=(1, 1, 1))
    if pg.kind == 'photocopy':  # heavier toner, speckles
        prn = np.clip((prn - 0.12) / 0.88, 0, 1) ** 1.35
        dots = cv2.GaussianBlur((r.random((h, w)) < U(r, 0.0004, 0.0015)).astype(np.float32), (0, 0), max(0.6, 0.12 * k))
        prn *= np.clip(1 - 5 * dots, 0.1, 1)[..., None]
    rgb *= prn * hand
    if pg.kind == 'photocopy':  # grey copier border along some page edges, a streak
        for side, bw in zip(ex['border'], ex['border_w']):
            dd = {'l': xs[None, :], 'r': pg.w - xs[None, :], 't': ys[:, None], 'b': pg.h - ys[:, None]}[side]
            band = np.clip(1 - (dd - bw) / 1.5, 0, 1) * U(r, 0.35, 0.6) * (1 + 0.25 * smooth_noise((h, w), 3 * k, r))
            rgb *= np.clip(1 - band, 0.2, 1)[..., None]
        if r.random() < 0.6:
            sx = (U(r, 0.1, 0.9) * pg.w - reg[0]) * k
            cv2.line(rgb, (int(sx), 0), (int(sx + U(r, -5, 5)), h), (0.75, 0.75, 0.75), max(1, int(0.3 * k)))
    sh = curl_shade(*np.meshgrid(xs, ys), cam['curl'], pg)
    if not np.isscalar(sh):
        rgb *= sh[..., None].astype(np.float32)
    def P(pts):
        return [np.round(np.array([((x - reg[0]) * k, (y - reg[1]) * k) for x, y in pts]) * 16).astype(np.int32)]

    if ex.get('fold') is not None:   # corner turned over: sheet beneath shows, flap shows the back of the paper
        tri, flap = ex['fold']
        cut, fm = np.zeros((h, w), np.uint8), np.zeros((h, w), np.uint8)
        cv2.fillPoly(cut, P(tri), 255, cv2.LINE_AA, shift=4)
        cv2.fillPoly(fm, P(flap), 255, cv2.LINE_AA, shift=4)
        cutf, fmf = (cut / np.float32(255))[..., None], fm / np.float32(255)
        rgb = rgb * (1 - cutf) + paper_tone * 0.88 * cutf
        alpha = alpha * (1 - cutf[..., 0]) + under * cutf[..., 0]
        shadow = cv2.GaussianBlur(np.roll(fmf, (int(1.2 * k), int(1.0 * k)), (0, 1)), (0, 0), 1.2 * k)
        rgb *= (1 - 0.35 * np.clip(shadow - fmf, 0, 1))[..., None]
        back = paper_tone * np.float32(0.97) * (0.88 + 0.08 * smooth_noise((h, w), 30 * k, r))[..., None]
        rgb = rgb * (1 - fmf[..., None]) + back * fmf[..., None]
        alpha = np.maximum(alpha, fmf)
    if ex.get('staple') is not None:
        (sx, sy), ang = ex['staple']
        c, d = np.array(((sx - reg[0]) * k, (sy - reg[1]) * k)), 6 * k * np.array((math.cos(math.radians(ang)),
                                                                                     math.sin(math.radians(ang))))
        p0, p1, tw = tuple(int(v) for v in c - d), tuple(int(v) for v in c + d), max(2, int(0.8 * k))
        cv2.line(rgb, (p0[0] + tw // 2, p0[1] + tw // 2), (p1[0] + tw // 2, p1[1] + tw // 2), (0.45, 0.45, 0.45), tw + 1)
        cv2.line(rgb, p0, p1, (0.62, 0.63, 0.66), tw)
        cv2.line(rgb, p0, p1, (0.85, 0.86, 0.88), max(1, tw // 3))
    return rgb.astype(np.float32), alpha.astype(np.float32), hw


# ----------------------------------------------------------------- photo space: table, objects, light, camera
def table_texture(u, v, r, kind):
    """Desk surface evaluated at page-plane coordinates (so it has the photo's perspective)."""
    h, w = u.shape
    nz = cv2.GaussianBlur(r.standard_normal((64, 64)).astype(np.float32), (0, 0), 2.0) * 3

    def look(scale, off):
        return cv2.remap(nz, ((u / scale + off) % 64).astype(np.float32), ((v / scale + off * 1.7) % 64).astype(np.float32),
                         cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
    if kind in ('wood', 'lightwood'):
        a, lam = U(r, 0, math.pi), U(r, 2.5, 5)
        ring = 0.5 + 0.5 * np.sin(2 * math.pi * ((u * math.cos(a) + v * math.sin(a)) / lam + 2.5 * look(60, 3) + 0.6 * look(8, 11)))
        t = (0.35 * ring ** 3 + 0.65 * (0.5 + 0.25 * look(30, 5)))[..., None]
        c1, c2 = ((0.45, 0.28, 0.16), (0.62, 0.42, 0.25)) if kind == 'wood' else ((0.78, 0.64, 0.45), (0.88, 0.76, 0.58))
        tex = np.array(c1, np.float32) * t + np.array(c2, np.float32) * (1 - t)
    else:
        base = {'white': (0.86, 0.86, 0.84), 'grey': (0.55, 0.57, 0.56), 'green': (0.4, 0.52, 0.45),
                'dark': (0.13, 0.13, 0.14), 'cloth': (0.55, 0.6, 0.72)}[kind]
        tex = np.array(base, np.float32) * (1 + 0.05 * look(25, 7))[..., None]
        if kind == 'cloth':
            tex *= (1 + 0.06 * np.sin(u * 2.5) * np.sin(v * 2.5))[..., None]
    tex *= (1 + 0.03 * r.standard_normal((h, w), dtype=np.float32))[..., None]
    return tex.astype(np.float32)

def poly_mask(shape, pts):
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(pts) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return m.astype(np.float32) / 255.0

def rrect(cx, cy, L, Wd, ang, rad=0.2, n=8):
    """Rounded rectangle polygon centred at (cx, cy)."""
    rr = min(L, Wd) * rad
    pts = []
    for qx, qy, a0 in ((L / 2 - rr, Wd / 2 - rr, 0), (-L / 2 + rr, Wd / 2 - rr, 90), (-L / 2 + rr, -Wd / 2 + rr, 180),
                       (L / 2 - rr, -Wd / 2 + rr, 270)):
        for t in np.linspace(a0, a0 + 90, n):
            pts.append((qx + rr * math.cos(math.radians(t)), qy + rr * math.sin(math.radians(t))))
    pts = np.array(pts)
    c, s = math.cos(math.radians(ang)), math.sin(math.radians(ang))
    return np.c_[cx + pts[:, 0] * c - pts[:, 1] * s, cy + pts[:, 0] * s + pts[:, 1] * c]

def body_shade(mask, lo=0.7):
    """Rounded-body shading from the distance to the outline."""
    dt = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    mx = max(1.0, float(dt.max()))
    return (lo + (1 - lo) * np.sqrt(np.clip(dt / mx, 0, 1)))[..., None].astype(np.float32)

def add_objects(img, plan, forbid, m, r):
    """Table objects and fingers in photo space; avoid the framed problem. Returns names placed."""
    H, W = img.shape[:2]
    placed = []
    def try_put(name, make):
        for _ in range(30):
            parts, mask_all = make()
            if (mask_all * forbid).sum() > 0.5 or mask_all.sum() < 0.002 * W * H:   # on the problem / out of view
                continue
            sh = cv2.GaussianBlur(np.roll(mask_all, (int(0.006 * H) + 2, int(0.004 * W) + 2), (0, 1)), (0, 0), 0.01 * W + 2)
            img[:] *= (1 - 0.4 * np.clip(sh - mask_all, 0, 1))[..., None]
            for msk, col in parts:
                img[:] = img * (1 - msk[..., None]) + col * msk[..., None]
            placed.append(name)
            return True
        return False

    def edge_point():
        side, t = int(r.integers(4)), U(r, 0.1, 0.9)
        return side, [(t * W, 0), (W, t * H), (t * W, H), (0, t * H)][side], [90, 180, 270, 0][side]

    if plan['obj_pencil_case']:
        def mk():
            side, p, ang = edge_point()
            L, Wd = U(r, 180, 220) * m, U(r, 70, 90) * m
            a = ang + U(r, -30, 30)
            d = U(r, 0.1, 0.4) * Wd
            cx, cy = p[0] - math.cos(math.radians(ang)) * (L / 2 - d), p[1] - math.sin(math.radians(ang)) * (L / 2 - d)
            poly = rrect(cx, cy, L, Wd, a, 0.35)
            msk = poly_mask((H, W), poly)
            col = np.array(choice(r, [(0.12, 0.16, 0.35), (0.75, 0.35, 0.5), (0.45, 0.47, 0.5), (0.2, 0.45, 0.3)]), np.float32)
            tex = col * (1 + 0.08 * r.standard_normal((H, W, 1), dtype=np.float32)) * body_shade(msk, 0.6)
            zip_ = poly_mask((H, W), rrect(cx, cy, L * 0.9, max(2, 0.03 * Wd), a, 0.5)) * msk
            return [(msk, tex), (zip_, np.full(3, 0.75, np.float32))], msk
        try_put('pencil_case', mk)
    if plan['obj_ruler']:
        def mk():
            side, p, ang = edge_point()
            L, Wd = U(r, 150, 300) * m, U(r, 25, 32) * m
            a = ang + U(r, -50, 50)
            cx = p[0] - math.cos(math.radians(a)) * L * U(r, 0.15, 0.4)
            cy = p[1] - math.sin(math.radians(a)) * L * U(r, 0.15, 0.4)
            msk = poly_mask((H, W), rrect(cx, cy, L, Wd, a, 0.05, 3))
            transparent = r.random() < 0.6
            ticks = np.zeros((H, W), np.float32)
            ca, sa = math.cos(math.radians(a)), math.sin(math.radians(a))
            for i in range(int(L / m) - 4):
                tl = (0.35 if i % 10 == 0 else 0.22 if i % 5 == 0 else 0.14) * Wd
                x = -L / 2 + (i + 2) * m
                y0 = -Wd / 2
                cv2.line(ticks, (int(cx + x * ca - y0 * sa), int(cy + x * sa + y0 * ca)),
                         (int(cx + x * ca - (y0 + tl) * sa), int(cy + x * sa + (y0 + tl) * ca)), 1.0, 1, cv2.LINE_AA)
            if transparent:
                col = np.array((0.85, 0.93, 1.0), np.float32)
                return [(msk * 0.3, col), (ticks * msk, np.zeros(3, np.float32))], msk * 0.3
            col = np.array(choice(r, [(0.93, 0.93, 0.9), (0.8, 0.65, 0.45)]), np.float32)
            return [(msk, col), (ticks * msk, np.zeros(3, np.float32))], msk
        try_put('ruler', mk)
    if plan['obj_eraser']:
        def mk():
            cx, cy = U(r, 0.05, 0.95) * W, U(r, 0.05, 0.95) * H
            L, Wd, a = U(r, 38, 48) * m, U(r, 18, 22) * m, U(r, 0, 180)
            msk = poly_mask((H, W), rrect(cx, cy, L, Wd, a, 0.15))
            sleeve = poly_mask((H, W), rrect(cx + 0.12 * L * math.cos(math.radians(a)), cy + 0.12 * L * math.sin(math.radians(a)),
                                             L * 0.62, Wd * 1.04, a, 0.02, 2))
            col = np.array(choice(r, [(0.95, 0.95, 0.93), (0.95, 0.72, 0.75)]), np.float32)
            scol = np.array(choice(r, [(0.1, 0.3, 0.7), (0.1, 0.1, 0.1), (0.15, 0.55, 0.3)]), np.float32)
            return [(msk, col * body_shade(msk, 0.85)), (sleeve, scol)], np.maximum(msk, sleeve)
        try_put('eraser', mk)
    if plan['obj_pencil']:
        def mk():
            side, p, ang = edge_point()
            L, Wd = U(r, 120, 170) * m, 7.5 * m
            a = ang + U(r, -40, 40)
            ca, sa = math.cos(math.radians(a)), math.sin(math.radians(a))
            cx, cy = p[0] - ca * L * 0.3, p[1] - sa * L * 0.3
            body = poly_mask((H, W), rrect(cx, cy, L, Wd, a, 0.1, 2))
            tipc = (cx - ca * (L / 2 + 0.6 * Wd * 1.2), cy - sa * (L / 2 + 0.6 * Wd * 1.2))
            tip = poly_mask((H, W), [(cx - ca * L / 2 - sa * Wd / 2, cy - sa * L / 2 + ca * Wd / 2),
                                     (cx - ca * L / 2 + sa * Wd / 2, cy - sa * L / 2 - ca * Wd / 2), tipc])
            lead = poly_mask((H, W), rrect(tipc[0] + ca * 2 * m, tipc[1] + sa * 2 * m, 4 * m, 2 * m, a, 0.4, 3))
            col = np.array(choice(r, [(0.95, 0.78, 0.15), (0.2, 0.35, 0.7), (0.85, 0.2, 0.2)]), np.float32)
            return [(body, col * body_shade(body, 0.65)), (tip, np.array((0.85, 0.7, 0.5), np.float32)), (lead * tip, np.array((0.2, 0.2, 0.22), np.float32))], np.maximum(body, tip)
        try_put('pencil', mk)
    if plan['obj_phone']:
        def mk():
            side, p, ang = edge_point()
            L, Wd = 150 * m, 72 * m
            vis = U(r, 0.08, 0.2) * Wd
            a = ang + U(r, -8, 8) + 90
            cx = p[0] - math.cos(math.radians(ang)) * (Wd / 2 - vis)
            cy = p[1] - math.sin(math.radians(ang)) * (Wd / 2 - vis)
            body = poly_mask((H, W), rrect(cx, cy, L, Wd, a, 0.12))
            scr = poly_mask((H, W), rrect(cx, cy, L * 0.94, Wd * 0.9, a, 0.1))
            return [(body, np.array((0.12, 0.12, 0.13), np.float32)), (scr, np.array((0.03, 0.04, 0.06), np.float32))], body
        try_put('phone_edge', mk)
    if plan['obj_fingers']:
        def mk():
            side, p, ang = edge_point()
            nf = int(r.integers(1, 4))
            fw = U(r, 15, 19) * m
            skin = np.array(choice(r, [(0.88, 0.68, 0.56), (0.78, 0.56, 0.42), (0.93, 0.76, 0.66)]), np.float32)
            a = ang + U(r, -25, 25) + 180
            ca, sa = math.cos(math.radians(a)), math.sin(math.radians(a))
            allm = np.zeros((H, W), np.float32)
            nails = np.zeros((H, W), np.float32)
            for f in range(nf):
                off = (f - (nf - 1) / 2) * fw * 1.02
                L = U(r, 60, 95) * m
                vis = U(r, 0.3, 0.6) * L
                cx = p[0] + ca * (vis - L / 2) - sa * off
                cy = p[1] + sa * (vis - L / 2) + ca * off
                fm = poly_mask((H, W), rrect(cx, cy, L, fw * U(r, 0.92, 1.05), a + U(r, -6, 6), 0.5, 12))
                tip = (cx + ca * (L / 2 - 0.42 * fw), cy + sa * (L / 2 - 0.42 * fw))
                nails = np.maximum(nails, poly_mask((H, W), rrect(tip[0], tip[1], fw * 0.7, fw * 0.62, a, 0.45, 6)))
                allm = np.maximum(allm, fm)
            allm = cv2.GaussianBlur(allm, (0, 0), 1.2 + 0.002 * W)
            nails = cv2.GaussianBlur(nails * allm, (0, 0), 1.5)
            # cylindrical shading across each finger, gaps between fingers darker
            sh = body_shade(allm, 0.55)
            col = skin * sh * (1 + 0.04 * smooth_noise((H, W), 0.02 * W, r))[..., None]
            nailc = np.minimum(skin * np.array([1.1, 1.05, 1.1], np.float32) + 0.05, 1) * sh
            return [(allm, col), (nails * 0.7, nailc)], allm
        try_put('fingers', mk)
    return placed

def light_field(plan, H, W, r, fq_mask):
    """Multiplicative light field (H,W,3) and additive highlight (H,W): cast, falloff, shadows, stripes, flash."""
    h, w = max(2, H // 8), max(2, W // 8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx, yy = xx / w, yy / h
    def col(*c):
        return np.array(c, np.float32)

    L = np.ones((h, w, 3), np.float32) * (1 - U(r, 0.08, 0.22) * ((xx - 0.5) ** 2 + (yy - 0.5) ** 2) / 0.5)[..., None]
    add = np.zeros((h, w), np.float32)
    kind = plan['light']
    if kind == 'warm_lamp':      # desk lamp to one side: warm cast and falloff
        lx, ly = choice(r, [(-0.3, U(r, 0, 1)), (1.3, U(r, 0, 1)), (U(r, 0, 1), -0.3)])
        fall = 0.55 + 0.6 * np.exp(-((xx - lx) ** 2 + (yy - ly) ** 2) / U(r, 0.5, 1.2))
        L *= fall[..., None] * col(1.0, U(r, 0.82, 0.9), U(r, 0.6, 0.76))
    elif kind == 'fluorescent':  # cold, slightly green, sometimes faint rolling-shutter flicker bands
        L *= col(U(r, 0.84, 0.9), U(r, 0.97, 1.0), U(r, 1.03, 1.08))
        if r.random() < 0.5:
            L *= (1 + U(r, 0.008, 0.02) * np.sin(yy * U(r, 3, 9) * 2 * math.pi + U(r, 0, 6)))[..., None]
    elif kind == 'flash':        # hot spot (kept off the framed problem) and dark corners
        dist = cv2.distanceTransform((fq_mask < 0.5).astype(np.uint8), cv2.DIST_L2, 3) / min(W, H)
        want = U(r, 0.08, 0.2)      # just beside the problem, not on it
        cands = [(U(r, 0.15, 0.85), U(r, 0.15, 0.85)) for _ in range(30)]
        fx, fy = min(cands, key=lambda c: abs(dist[int(c[1] * (H - 1)), int(c[0] * (W - 1))] - want))
        s, d2 = U(r, 0.12, 0.22), (xx - fx) ** 2 + (yy - fy) ** 2
        L *= ((0.75 + U(r, 0.35, 0.6) * np.exp(-d2 / (2 * s * s))) * (1 - 0.35 * ((xx - 0.5) ** 2 + (yy - 0.5) ** 2)))[
            ..., None] * col(1.0, 1.0, 1.03)
        add += U(r, 0.1, 0.25) * np.exp(-d2 / (2 * (s / 3.5) ** 2))
    elif kind == 'dim_noisy':    # evening, tungsten room light
        L *= col(1.0, U(r, 0.85, 0.95), U(r, 0.65, 0.8)) * \
            (0.8 + 0.3 * np.exp(-((xx - U(r, 0, 1)) ** 2 + (yy - U(r, 0, 1)) ** 2) / 0.6))[..., None]
    else:
        L *= col(U(r, 0.97, 1.03), 1.0, U(r, 0.95, 1.05))
    if plan['phone_shadow']:     # the phone and the hand holding it, soft shadow from one side
        side, mx = int(r.integers(4)), max(w, h)
        sx, sy = [(U(r, 0.3, 0.7), U(r, -0.1, 0.2)), (U(r, 0.8, 1.1), U(r, 0.3, 0.7)), (U(r, 0.3, 0.7), U(r, 0.8, 1.1)),
                  (U(r, -0.1, 0.2), U(r, 0.3, 0.7))][side]
        m = np.zeros((h, w), np.float32)
        for poly in (rrect(sx * w, sy * h, U(r, 0.5, 0.8) * mx, U(r, 0.3, 0.5) * mx, U(r, -30, 30) + 90 * (side % 2 == 0), 0.2),
                     rrect((sx + [0, 0.3, 0, -0.3][side]) * w, (sy + [-0.3, 0, 0.3, 0][side]) * h, 0.25 * mx, 0.6 * mx,
                           90 * (side % 2) + U(r, -20, 20), 0.4)):
            cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), U(r, 0.02, 0.05) * w + 1)
        L *= 1 - U(r, 0.3, 0.5) * m[..., None] * col(1.0, 0.98, 0.94)
    if plan['window']:           # sunlight through blinds: soft stripes over part of the desk
        a, per, amp = U(r, 0, math.pi), U(r, 0.06, 0.14), U(r, 0.3, 0.5)
        stripe = 0.5 + 0.5 * np.tanh(3 * np.sin(2 * math.pi * (xx * math.cos(a) + yy * math.sin(a) * h / w) / per))
        region = np.exp(-(((xx - U(r, 0.2, 0.8)) / 0.6) ** 2 + ((yy - U(r, 0.2, 0.8)) / 0.6) ** 2))
        L *= (1 - amp * 0.6 + amp * stripe * region + amp * 0.6 * (1 - region))[..., None] * col(1.03, 1.0, 0.94)
    return cv2.resize(L, (W, H), interpolation=cv2.INTER_LINEAR), cv2.resize(add, (W, H), interpolation=cv2.INTER_LINEAR)

def glare(H, W, r, fq_mask, page_a):
    """Specular glare blob on a glossy page, placed to overlap the framed problem as little as possible."""
    yy, xx = np.mgrid[0:H // 8, 0:W // 8].astype(np.float32) * 8
    best = None
    for _ in range(25):
        cx, cy, sx, sy, a = U(r, 0.1, 0.9) * W, U(r, 0.1, 0.9) * H, U(r, 0.12, 0.28) * W, U(r, 0.03, 0.07) * W, U(r, 0, 3.14)
        dx, dy = (xx - cx) * math.cos(a) + (yy - cy) * math.sin(a), -(xx - cx) * math.sin(a) + (yy - cy) * math.cos(a)
        g = cv2.resize(np.exp(-0.5 * ((dx / sx) ** 2 + (dy / sy) ** 2)), (W, H))
        over = (g * fq_mask).max()
        if best is None or over < best[0]:
            best = (over, g)
        if over < 0.25:
            break
    return best[1] * U(r, 0.6, 0.95) * page_a

def camera_pipeline(img, plan, r, zoom):
    """Optics blur, handshake, digital zoom, sensor noise, phone denoise/beauty, sharpening, tone."""
    H, W = img.shape[:2]
    s = min(W, H) / 1000
    img = cv2.GaussianBlur(img, (0, 0), U(r, 0.45, 1.0) * max(0.7, s ** 0.5))
    dim = plan['light'] == 'dim_noisy'
    if dim and r.random() < 0.6:      # slow shutter: a little motion blur
        n = int(r.integers(3, 7))
        kern = np.zeros((n, n), np.float32)
        cv2.line(kern, (0, int(r.integers(n))), (n - 1, int(r.integers(n))), 1.0, 1)
        img = cv2.filter2D(img, -1, kern / kern.sum())
    if zoom > 1:                      # digital zoom: the sensor crop is upscaled later
        img = cv2.resize(img, (int(W / zoom), int(H / zoom)), interpolation=cv2.INTER_AREA)
    h, w = img.shape[:2]
    expo = U(r, 0.25, 0.4) if dim else 1.0
    img = img * expo
    sig = np.sqrt(np.clip(img, 0, None) * (U(r, 0.003, 0.007) if dim else U(r, 0.0002, 0.001)) +
                  (U(r, 0.007, 0.013) if dim else 0.004) ** 2)
    img = img + sig * r.standard_normal(img.shape, dtype=np.float32)
    if dim:                           # chroma noise, gain back up
        img = (img + cv2.resize(r.standard_normal((h // 2, w // 2, 3), dtype=np.float32), (w, h)) * U(r, 0.004, 0.009)) \
            / expo * U(r, 0.8, 0.95)
    img = np.clip(img, 0, 1.2).astype(np.float32)
    if plan['beauty'] or (dim and r.random() < 0.6):   # beauty / denoise filter smears thin strokes
        u8 = np.clip(img * 255, 0, 255).astype(np.uint8)
        if plan['beauty']:
            for _ in range(int(r.integers(1, 3))):
                u8 = cv2.bilateralFilter(u8, int(r.integers(7, 12)), U(r, 45, 90), U(r, 5, 10))
            u8 = cv2.medianBlur(u8, 3) if r.random() < 0.5 else u8
        else:
            u8 = cv2.bilateralFilter(u8, 5, 30, 3)
        img = u8.astype(np.float32) / 255
    if zoom > 1:
        img = cv2.resize(img, (W, H), interpolation=cv2.INTER_CUBIC)
    if plan['sharpen']:               # heavy unsharp mask: halos around strokes
        img = img + U(r, 1.4, 2.6) * (img - cv2.GaussianBlur(img, (0, 0), U(r, 1.8, 3.5) * max(1, s)))
    else:
        img = img + U(r, 0.2, 0.6) * (img - cv2.GaussianBlur(img, (0, 0), 1.0))
    img = np.clip(img, 0, 1) ** U(r, 0.88, 1.08)
    img = img + U(r, 0.0, 0.25) * (img - 0.5) * (1 - np.abs(2 * img - 1)) * 0.5
    grey = img.mean(2, keepdims=True)
    return np.clip(grey + U(r, 0.9, 1.2) * (img - grey), 0, 1)


# ----------------------------------------------------------------- plan
def quota(n, spec, r):
    w = np.array([s[1] for s in spec], float)
    w /= w.sum()
    cnt = np.floor(w * n).astype(int)
    order = np.argsort(-(w * n - cnt), kind='stable')
    for j in order[:n - cnt.sum()]:
        cnt[j] += 1
    vals = [s[0] for s, c in zip(spec, cnt) for _ in range(c)]
    return [vals[i] for i in r.permutation(n)]

def pick(elig, frac, n, r):
    m = min(len(elig), int(round(frac * n)))
    return set(int(x) for x in r.permutation(elig)[:m]) if m else set()

def make_plan(bank, count, seed):
    n = count
    def R(name):
        return srng(seed, 'plan', name)

    special = [i for i, e in enumerate(bank) if any(c in SPECIAL for c in e['question'])]
    rest = [i for i in range(len(bank)) if i not in special]
    rb = R('bank')      # every entry with sub/superscripts or a blank first, then the others
    order = [int(x) for x in rb.permutation(special)] + [int(x) for x in rb.permutation(rest)]
    take = [order[i % len(order)] for i in range(n)]
    plan = [{'bank_idx': take[i]} for i in rb.permutation(n)]
    cols = {
        'distance': [('close', 20), ('mid', 65), ('far', 15)],
        'aspect': [('4:3', 70), ('16:9', 30)],
        'orient': [('portrait', 55), ('landscape', 45)],
        'light': [('daylight', 42), ('warm_lamp', 16), ('fluorescent', 16), ('dim_noisy', 13), ('flash', 13)],
        'paper': [('plain', 20), ('lined', 16), ('grid', 13), ('glossy', 15), ('recycled', 15), ('photocopy', 21)],
        'numstyle': [('dot', 18), ('dun', 17), ('paren', 15), ('di_ti', 12), ('Q', 12), ('circled', 13), ('none', 13)],
        'tilt': [('small', 60), ('medium', 25), ('large', 15)],
        'persp': [('mild', 65), ('strong', 35)],
    }
    for c, spec in cols.items():
        for p, v in zip(plan, quota(n, spec, R(c))):
            p[c] = v
    flags = {'sharpen': 0.15, 'phone_shadow': 0.15, 'hw_name': 0.35, 'hw_work_nb': 0.5, 'hw_work_fr': 0.25,
             'hw_cross': 0.22, 'hw_arrow': 0.18, 'hw_margin': 0.25, 'score': 0.33, 'options': 0.45,
             'twin': 0.3, 'title': 0.6, 'nameline': 0.45, 'section': 0.6, 'italic': 0.3, 'double_jpeg': 0.25,
             'obj_pencil_case': 0.15, 'obj_ruler': 0.15, 'obj_eraser': 0.15, 'obj_phone': 0.1,
             'obj_fingers': 0.15, 'obj_pencil': 0.1}
    for f, fr in flags.items():
        s = pick(list(range(n)), fr, n, R(f))
        for i, p in enumerate(plan):
            p[f] = i in s
    # cases that only make sense with others (picked in order, each from its eligible photos)
    for p in plan:
        if p['distance'] == 'far' and p['orient'] == 'landscape' and p['aspect'] == '16:9':
            p['orient'] = 'portrait'
    cond = [('small', 0.07, lambda p: p['distance'] != 'far'),
            ('zoom', 0.1, lambda p: p['distance'] != 'far' and not p['small'] and p['light'] != 'dim_noisy'),
            ('beauty', 0.12, lambda p: not p['sharpen']),
            ('window', 0.12, lambda p: p['light'] in ('daylight', 'warm_lamp')),
            ('crooked', 0.12, lambda p: p['paper'] in ('plain', 'recycled', 'photocopy')),
            ('stapled', 0.12, lambda p: p['paper'] in ('plain', 'recycled', 'photocopy', 'grid')),
            ('spine', 0.16, lambda p: p['paper'] in ('glossy', 'lined', 'grid') and not p['stapled']),
            ('bend', 0.12, lambda p: not p['spine'] and p['paper'] != 'glossy'),
            ('hw_circle', 0.22, lambda p: p['numstyle'] != 'none')]
    for f, fr, ok in cond:
        s = pick([i for i, p in enumerate(plan) if ok(p)], fr, n, R(f))
        for i, p in enumerate(plan):
            p[f] = i in s
    slot_r = R('slot')
    for p in plan:       # position of the framed problem on its page
        p['aspect'] = '4:3' if p['small'] else p['aspect']
        lo, hi = (2, 4) if p['distance'] == 'far' else (0, 2) if p['stapled'] else (1, 4) if p['distance'] == 'mid' \
            else (0, 4)
        p['slot'] = int(slot_r.integers(lo, hi))
    return plan

def photo_size(p, r):
    if p['small']:
        W, H = 800, 600
    elif p['aspect'] == '4:3':
        opts = [(2000, 1500), (1600, 1200)] if (p['distance'] == 'far' and p['orient'] == 'landscape') else \
            [(1280, 960), (1600, 1200), (2000, 1500), (1440, 1080)]
        W, H = choice(r, opts)
    else:
        W, H = choice(r, [(1600, 900), (1920, 1080), (1706, 960)])
    return (H, W) if p['orient'] == 'portrait' else (W, H)


# ----------------------------------------------------------------- one photo
def sheet_extras(p, pg, A_c, r):
    """Spine curl / bend, stapled packet with a turned corner, copier border."""
    extra, curl = {}, None
    if p['spine']:
        side = 'left' if pg.framed_rect[0] > pg.w * 0.3 and r.random() < 0.6 else choice(r, ['left', 'right'])
        curl = ('spine', side, U(r, 25, 45), U(r, 0.12, 0.3), U(r, 2, 6) * choice(r, [-1, 1]), U(r, -2, 2))
        extra['facing'] = side
    elif p['bend']:
        curl = ('bend', None, 0, U(r, 0.8, 2.0), U(r, 1.0, 3.0), U(r, 0, 2 * math.pi))
    if p['stapled']:
        cs = np.array([(0, 0), (pg.w, 0), (pg.w, pg.h), (0, pg.h)], float)
        extra['beneath'] = apply_h(tr3(pg.w / 2 + U(r, 1.5, 4), pg.h / 2 + U(r, 1.5, 4)) @ rot3(U(r, -1.5, 1.5)) @
                                   tr3(-pg.w / 2, -pg.h / 2), cs)
        extra['staple'] = ((U(r, 7, 11), U(r, 7, 11)), U(r, -50, 10))
        fr_c = apply_h(A_c, rect_pts(pg.framed_rect, 6, 4))
        fb = (fr_c[:, 0].min(), fr_c[:, 1].min(), fr_c[:, 0].max(), fr_c[:, 1].max())
        for corner in sorted(cs[1:], key=lambda c: np.min(np.hypot(*(fr_c - c).T))):   # nearest corner that is free
            for size in (U(r, 30, 48), U(r, 16, 28)):
                c = np.array(corner, float)
                P1 = c + ((-1 if c[0] > 0 else 1) * size * U(r, 0.8, 1.2), 0)
                P2 = c + (0, (1 if c[1] == 0 else -1) * size * U(r, 0.8, 1.2))
                dv = (P2 - P1) / np.linalg.norm(P2 - P1)
                flap = np.array([P1, 2 * (P1 + dv * np.dot(c - P1, dv)) - c, P2])   # corner reflected over the fold
                lo, hi = flap.min(0) - 2, flap.max(0) + 2
                if hi[0] < fb[0] or lo[0] > fb[2] or hi[1] < fb[1] or lo[1] > fb[3]:
                    extra['fold'] = (np.array([P1, c, P2]), flap)
                    break
            if 'fold' in extra:
                break
    if pg.kind == 'photocopy':
        extra['border'] = [s_ for s_ in 'lrtb' if r.random() < 0.55] or ['l']
        extra['border_w'] = [U(r, 2, 10) for _ in extra['border']]
    return extra, curl

def photo_maps(W, H, Hm, k1, curl, pg):
    """Photo pixel -> page mm (flat, as seen) and -> page mm (true, curl undone)."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    cx, cy = W / 2, H / 2
    f = 1 + k1 * ((xx - cx) ** 2 + (yy - cy) ** 2) / (cx * cx + cy * cy)   # lens distortion
    xu, yu = cx + (xx - cx) * f, cy + (yy - cy) * f
    Hi = np.linalg.inv(Hm)
    Z = Hi[2, 0] * xu + Hi[2, 1] * yu + Hi[2, 2]
    uo, vo = (Hi[0, 0] * xu + Hi[0, 1] * yu + Hi[0, 2]) / Z, (Hi[1, 0] * xu + Hi[1, 1] * yu + Hi[1, 2]) / Z
    u, v = uo, vo
    for _ in range(4):
        du, dv = curl_disp(u, v, curl, pg)
        u, v = uo - du, vo - dv
    return uo.astype(np.float32), vo.astype(np.float32), u, v

def make_one(task):
    i, p, bank, outdir, seed = task
    cv2.setNumThreads(1)
    r = srng(seed, 'photo', i)
    W, H = photo_size(p, r)
    e = bank[p['bank_idx']]
    em = U(r, 3.5, 4.4)        # printed font size (mm)
    if p['distance'] == 'far':
        m_fit = min(W * 0.93 / 212, H * 0.93 / (297 if p['paper'] in ('plain', 'photocopy', 'recycled') else 260)) * 0.93
        em = float(np.clip(U(r, 15, 19) / (0.88 * m_fit), 3.2, 6.5))
    plan_p = dict(p)
    for attempt in range(8):
        pg = build_page(plan_p, bank, p['bank_idx'], srng(seed, 'page', i, attempt), em)
        if pg is None:
            plan_p['slot'] = max(0, plan_p['slot'] - 1)
            continue
        rc = srng(seed, 'cam', i, attempt)
        A_c = np.eye(3)
        if p['crooked']:
            A_c = tr3(pg.w / 2 + U(rc, -3, 3), pg.h / 2 + U(rc, -3, 3)) @ rot3(U(rc, 1.0, 3.0) * choice(rc, [-1, 1])) @ \
                tr3(-pg.w / 2, -pg.h / 2)
        cam = choose_camera(p, pg, A_c, W, H, rc)
        if p['distance'] != 'far' and H > W:   # a wide problem: the student turns the phone to landscape
            cam2 = choose_camera(p, pg, A_c, H, W, srng(seed, 'cam2', i, attempt))
            if cam2['ok'] and cam2['char'] > 1.3 * cam['char']:
                W, H, cam = H, W, cam2
        if p['distance'] != 'far' and cam['char'] < 15 and attempt < 7 and em < 5.5:
            em = min(5.5, em * 16 / cam['char'])
            continue
        if p['distance'] == 'far' and (not 14.2 <= cam['char'] <= 20.3 or not cam['ok']) and attempt < 7:
            em = float(np.clip(em * U(r, 15.5, 18.5) / max(cam['char'], 5), 2.8, 7.5))
            continue
        if cam['ok']:
            break
    extra, curl = sheet_extras(p, pg, A_c, r)
    cam.update(bank=bank, extra=extra, curl=curl)
    Hm = cam['H']
    Hc = Hm @ A_c
    # the part of the page(s) that the photo sees, rendered at about 1.1 px per photo px
    border = np.concatenate([np.c_[np.linspace(0, W, 30), np.full(30, y0)] for y0 in (0, H)] +
                            [np.c_[np.full(30, x0), np.linspace(0, H, 30)] for x0 in (0, W)])
    bm = apply_h(np.linalg.inv(Hm), border)
    ext = [-pg.w if extra.get('facing') == 'left' else 0.0, 0.0, 2 * pg.w if extra.get('facing') == 'right' else pg.w, pg.h]
    if extra.get('beneath') is not None:
        ext = [min(ext[0], extra['beneath'][:, 0].min()), min(ext[1], extra['beneath'][:, 1].min()),
               max(ext[2], extra['beneath'][:, 0].max()), max(ext[3], extra['beneath'][:, 1].max())]
    pad = 14 if p['crooked'] else 9
    reg = [max(bm[:, 0].min() - pad, ext[0] - 2), max(bm[:, 1].min() - pad, ext[1] - 2),
           min(bm[:, 0].max() + pad, ext[2] + 2), min(bm[:, 1].max() + pad, ext[3] + 2)]
    k = min(cam['m'] / 0.9, math.sqrt(9.0e6 / ((reg[2] - reg[0]) * (reg[3] - reg[1]))))
    if extra.get('facing'):
        add_facing_text(pg, extra['facing'], bank, r)
    page_rgb, page_a, hw = render_page(pg, p, cam, reg, k, r, A_c)
    uo, vo, u, v = photo_maps(W, H, Hm, cam['k1'], curl, pg)
    warped = cv2.remap(np.dstack([page_rgb, page_a]), ((u - reg[0]) * k - 0.5).astype(np.float32),
                       ((v - reg[1]) * k - 0.5).astype(np.float32), cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                       borderValue=0)
    pa = np.clip(warped[..., 3], 0, 1)
    table = table_texture(uo, vo, r, choice(r, ['wood', 'lightwood', 'white', 'grey', 'green', 'dark', 'cloth']))
    sh = cv2.GaussianBlur(np.roll(pa, (int(0.004 * H) + 1, int(0.004 * W) + 1), (0, 1)), (0, 0), 0.006 * W + 1)
    table *= (1 - 0.4 * np.clip(sh - pa, 0, 1))[..., None]
    img = table * (1 - pa[..., None]) + warped[..., :3] / np.maximum(pa[..., None], 1e-4) * pa[..., None]
    # keep objects, flash hot spot and glare off the framed problem
    fmask = np.zeros((H, W), np.uint8)
    for rc_ in (pg.framed_rect, pg.framed['score_rect']):
        if rc_:
            cv2.fillPoly(fmask, [np.round(apply_h(Hc, rect_pts(rc_, 2, 2)[[0, 1, 3, 2]])).astype(np.int32)], 1)
    dil = int(max(12, 0.025 * W))
    fmask_d = cv2.dilate(fmask, np.ones((dil, dil), np.uint8)).astype(np.float32)
    placed = add_objects(img, p, fmask_d, cam['m'], r)
    L, add = light_field(p, H, W, r, fmask_d)
    img = img * L + add[..., None]
    has_glare = pg.kind == 'glossy' and r.random() < 0.85
    if has_glare:
        img = img + (1.08 - img) * glare(H, W, r, fmask_d, pa)[..., None]
    zoom = U(r, 1.6, 2.4) if p['zoom'] else 1.0
    img = camera_pipeline(img.astype(np.float32), p, r, zoom)
    # JPEG, sometimes re-compressed (and shrunk) by a chat app
    q, q2 = int(r.integers(50, 93)), ''
    buf = io.BytesIO()
    Image.fromarray(np.round(img * 255).astype(np.uint8)).save(buf, 'JPEG', quality=q)
    if p['double_jpeg']:
        im2 = Image.open(io.BytesIO(buf.getvalue())).convert('RGB')
        if max(im2.size) > 1280 and r.random() < 0.5 and cam['char'] * 1280 / max(im2.size) >= 15.5:
            sc = 1280 / max(im2.size)
            im2 = im2.resize((round(im2.size[0] * sc), round(im2.size[1] * sc)), Image.LANCZOS)
        q2, buf = int(r.integers(55, 81)), io.BytesIO()
        im2.save(buf, 'JPEG', quality=q2)
    path = os.path.join(outdir, f'o{i:03d}.jpg')
    with open(path, 'wb') as fh:
        fh.write(buf.getvalue())
    fw, fhh = Image.open(path).size

    def vis(rect, nx=5, ny=4, Hx=None):     # fraction of a page rectangle inside the photo
        if not rect:
            return 0.0
        q_ = apply_h(Hc if Hx is None else Hx, rect_pts(rect, nx, ny))
        return float(np.mean((q_[:, 0] >= 0) & (q_[:, 0] < W) & (q_[:, 1] >= 0) & (q_[:, 1] < H)))

    fr = pg.framed
    nb_vis = [pr['j'] - fr['j'] for pr in pg.problems if not pr['framed'] and vis(rect_union(pr['line_rects'])) >= 0.3]
    hw_kinds = {kd for kd, rc in hw.items if vis(rc, 3, 2) >= 0.5}
    fq_all = apply_h(Hc, rect_pts(pg.framed_text_rect, 3, 3))
    cxy = fq_all.mean(0)
    st_xy = extra.get('staple', ((0, 0), 0))[0]
    row = {
        'qid': f'o{i:03d}', 'bank_id': e['id'], 'subject': e['subject'], 'distance': p['distance'],
        'char_px': round(cam['char'] * fw / W, 1), 'neighbours_above': sum(d < 0 for d in nb_vis),
        'neighbours_below': sum(d > 0 for d in nb_vis), 'whole_page': int(vis((0, 0, pg.w, pg.h), 2, 2, Hm) == 1.0),
        'width': fw, 'height': fhh, 'aspect': p['aspect'], 'orientation': 'portrait' if fhh > fw else 'landscape',
        'small': int(p['small']), 'digital_zoom': round(zoom, 2) if zoom > 1 else 0, 'sharpen_halo': int(p['sharpen']),
        'beauty_filter': int(p['beauty']), 'light': p['light'], 'phone_shadow': int(p['phone_shadow']),
        'window_stripes': int(p['window']), 'glare': int(has_glare), 'paper': pg.kind, 'crooked_print': int(p['crooked']),
        'stapled': int(p['stapled'] and vis((st_xy[0] - 1, st_xy[1] - 1, st_xy[0] + 1, st_xy[1] + 1), 2, 2, Hm) > 0),
        'corner_turned': int('fold' in extra and vis(tuple(extra['fold'][1].min(0)) + tuple(extra['fold'][1].max(0)),
                                                     3, 3, Hm) > 0.3),
        'spine_curl': int(curl is not None and curl[0] == 'spine'),
        'spine_visible': int(vis(((0 if curl[1] == 'left' else pg.w), 0, (0 if curl[1] == 'left' else pg.w) + 0.01, pg.h),
                                 2, 12, Hm) > 0) if curl and curl[0] == 'spine' else '',
        'page_bend': int(curl is not None and curl[0] == 'bend'),
        'hw_name': int('name' in hw_kinds), 'hw_work_neighbour': int('work_nb' in hw_kinds),
        'hw_work_framed': int('work_fr' in hw_kinds), 'hw_cross_out': int('cross' in hw_kinds),
        'hw_arrow': int('arrow' in hw_kinds), 'hw_circled_number': int('circle' in hw_kinds),
        'hw_margin_mark': int('margin' in hw_kinds), 'number_style': p['numstyle'],
        'title_visible': int(vis(pg.headers.get('title')) >= 0.5),
        'nameline_visible': int(vis(pg.headers.get('nameline')) >= 0.5),
        'section_visible': int(vis(pg.headers.get('section')) >= 0.5),
        'score_note_framed': int(bool(fr['score_rect']) and vis(fr['score_rect']) >= 0.5),
        'options_neighbour': int(any(pr['opts_rect'] and vis(pr['opts_rect']) >= 0.5 for pr in pg.problems)),
        'twin_neighbour': int(pg.twin), 'sup_sub': int(any(c in SUP or c in SUB for c in e['question'])),
        'blank': int('_' in e['question']), 'tilt_deg': round(cam['theta'], 1), 'perspective': round(cam['persp'], 2),
        'table_visible': int((pa < 0.5).mean() > 0.02), 'objects': ';'.join(placed), 'jpeg_q': q, 'jpeg_q2': q2,
        'centre_dx': round(cxy[0] / W - 0.5, 3), 'centre_dy': round(cxy[1] / H - 0.5, 3),
        'framed_inside': int(fq_all[:, 0].min() >= 0 and fq_all[:, 0].max() < W and fq_all[:, 1].min() >= 0
                             and fq_all[:, 1].max() < H)}
    return i, e['id'], e['question'], row


# ----------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outdir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=331)
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    a = ap.parse_args(argv)
    with open(a.bank, encoding='utf-8') as fh:
        bank = [json.loads(line) for line in fh if line.strip()]
    os.makedirs(a.outdir, exist_ok=True)
    for f in os.listdir(a.outdir):     # no stale photos from an earlier, larger run
        if re.fullmatch(r'o\d{3,}\.jpg', f):
            os.remove(os.path.join(a.outdir, f))
    plan = make_plan(bank, a.count, a.seed)
    tasks = [(i + 1, plan[i], bank, a.outdir, a.seed) for i in range(a.count)]
    t0 = time.time()
    if a.jobs <= 1:
        results = [make_one(t) for t in tasks]
    else:
        with ProcessPoolExecutor(a.jobs) as ex:
            results = list(ex.map(make_one, tasks, chunksize=1))
    results.sort(key=lambda t: t[0])
    tables = {'truth.csv': (['qid', 'text'], [[row['qid'], q] for _, _, q, row in results]),
              'queries.csv': (['qid', 'query', 'expected_id', 'kind'],
                              [[row['qid'], q, bid, 'exact'] for _, bid, q, row in results]),
              'cases.csv': (list(results[0][3]), [list(row.values()) for *_, row in results])}
    for name, (head, rows) in tables.items():
        with open(os.path.join(a.outdir, name), 'w', newline='', encoding='utf-8') as fh:
            w = csv.writer(fh)
            w.writerow(head)
            w.writerows(rows)
    print(f'{len(results)} photos in {time.time() - t0:.1f}s -> {a.outdir}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
