#!/usr/bin/env python3
"""Synthetic photo test set: "corrected homework handed back by the teacher".

Each photo is a phone snapshot of part of a printed homework / quiz page that a
student worked on and a teacher marked (ticks, crosses, scores, comments,
stamps, stickers, student corrections ...).  The *framed* problem is the printed
numbered problem nearest the image centre; its whole printed box lies inside
the frame and at least one other complete bank problem is visible too.

Outputs in OUT_DIR:
  nb001.jpg ... nbNNN.jpg
  truth.csv    qid,text                       (text = framed bank question, exact)
  queries.csv  qid,query,expected_id,kind     (query = same text, kind = exact)

Usage:
  make_photos.py --bank BANK.jsonl OUT_DIR --count 120 --seed 401 [--jobs 2]

Only numpy, Pillow, opencv-python-headless and system fonts are used.  Output
is byte-identical for a given (bank, seed, count) whatever --jobs is: the run
plan comes from default_rng(seed) and photo i from default_rng([seed, i]).
"""

import argparse
import csv
import json
import math
import multiprocessing as mp
import os
import subprocess
import sys
import time

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------

FONT_WANT = {
    'serif_cjk': [('Noto Serif CJK SC', 'Regular'), ('Noto Sans CJK SC', 'Regular')],
    'serif_cjk_b': [('Noto Serif CJK SC', 'Bold'), ('Noto Sans CJK SC', 'Bold'),
                    ('Noto Sans CJK SC', 'Regular')],
    'sans_cjk': [('Noto Sans CJK SC', 'Regular'), ('Noto Serif CJK SC', 'Regular')],
    'sans_cjk_b': [('Noto Sans CJK SC', 'Bold'), ('Noto Sans CJK SC', 'Regular')],
    'lserif': [('Liberation Serif', 'Regular'), ('DejaVu Serif', 'Book')],
    'lserif_b': [('Liberation Serif', 'Bold'), ('DejaVu Serif', 'Bold')],
    'lserif_i': [('Liberation Serif', 'Italic'), ('DejaVu Serif', 'Italic')],
    'lsans': [('Liberation Sans', 'Regular'), ('DejaVu Sans', 'Book')],
    'lsans_b': [('Liberation Sans', 'Bold'), ('DejaVu Sans', 'Bold')],
    'lsans_i': [('Liberation Sans', 'Italic'), ('DejaVu Sans', 'Oblique')],
    'lnarrow_i': [('Liberation Sans Narrow', 'Italic'), ('Liberation Sans', 'Italic')],
    'dserif': [('DejaVu Serif', 'Book')],
    'dserif_b': [('DejaVu Serif', 'Bold')],
    'dserif_i': [('DejaVu Serif', 'Italic')],
    'dsans': [('DejaVu Sans', 'Book')],
    'dsans_b': [('DejaVu Sans', 'Bold')],
    'dsans_o': [('DejaVu Sans', 'Oblique')],
    'dsans_el': [('DejaVu Sans', 'ExtraLight')],
    'dmono_o': [('DejaVu Sans Mono', 'Oblique')],
    'dmath': [('DejaVu Math TeX Gyre', 'Regular')],
}

_FONT_FILES = None          # key -> (path, index)
_FONT_CACHE = {}
_GLYPH_OK = {}
_PICK = {}
_NOTDEF = {}


def _fc_table():
    rows = []
    try:
        out = subprocess.run(
            ['fc-list', '--format', '%{file}\t%{index}\t%{family[0]}\t%{style[0]}\n'],
            capture_output=True, text=True, timeout=60).stdout
        for line in out.splitlines():
            parts = line.split('\t')
            if len(parts) == 4:
                try:
                    rows.append((parts[0], int(parts[1]), parts[2], parts[3]))
                except ValueError:
                    pass
    except Exception:
        pass
    rows.sort()
    return rows


def font_files():
    global _FONT_FILES
    if _FONT_FILES is not None:
        return _FONT_FILES
    rows = _fc_table()
    table = {}
    for key, wants in FONT_WANT.items():
        for fam, sty in wants:
            hit = [r for r in rows if r[2] == fam and r[3] == sty]
            if hit:
                table[key] = (hit[0][0], hit[0][1])
                break
    if 'sans_cjk' not in table and 'serif_cjk' not in table:
        # last resort: any font that can draw a Han character
        for path, idx, fam, sty in rows:
            try:
                f = ImageFont.truetype(path, 40, index=idx, layout_engine=ImageFont.Layout.BASIC)
                if bytes(f.getmask('中')) != bytes(f.getmask('\U0010FFFD')):
                    table['sans_cjk'] = (path, idx)
                    break
            except Exception:
                continue
    if not table:
        sys.exit('no usable fonts found (fc-list)')
    _FONT_FILES = table
    return table


def has_key(key):
    return key in font_files()


def get_font(key, size):
    size = max(4, int(round(size)))
    k = (key, size)
    f = _FONT_CACHE.get(k)
    if f is None:
        path, idx = font_files()[key]
        f = ImageFont.truetype(path, size, index=idx, layout_engine=ImageFont.Layout.BASIC)
        _FONT_CACHE[k] = f
    return f


def has_glyph(key, ch):
    k = (key, ch)
    r = _GLYPH_OK.get(k)
    if r is None:
        if ch.isspace():
            r = True
        else:
            f = get_font(key, 40)
            nd = _NOTDEF.get(key)
            if nd is None:
                m = f.getmask('\U0010FFFD')
                nd = (m.size, bytes(m))
                _NOTDEF[key] = nd
            m = f.getmask(ch)
            r = not (m.size == nd[0] and bytes(m) == nd[1])
        _GLYPH_OK[k] = r
    return r


def resolve(chain):
    out = [k for k in chain if has_key(k)]
    for k in ('sans_cjk', 'serif_cjk', 'dsans', 'lsans', 'dmath'):
        if has_key(k) and k not in out:
            out.append(k)
    return tuple(out)


def pick_font(chain, ch):
    k = (chain, ch)
    r = _PICK.get(k)
    if r is None:
        r = chain[0]
        for key in chain:
            if has_glyph(key, ch):
                r = key
                break
        _PICK[k] = r
    return r


# --------------------------------------------------------------------------
# text helpers
# --------------------------------------------------------------------------

SUPS = {'⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6',
        '⁷': '7', '⁸': '8', '⁹': '9', '⁺': '+', '⁻': '-', 'ⁿ': 'n'}
SUBS = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6',
        '₇': '7', '₈': '8', '₉': '9', '₊': '+', '₋': '-', 'ₙ': 'n', 'ₐ': 'a',
        'ₓ': 'x', 'ₑ': 'e', 'ₘ': 'm', 'ₖ': 'k'}
CLOSE_P = set('，。、；：？！）》」』”’】〕〉…,.;:?!)]}%')
OPEN_P = set('（《「『“‘【〔〈([{')
OPERATORS = set(['=', '+', '-', '×', '÷', '<', '>', '≈', '≠', '≤', '≥', '/', '·', '→', '−'])
CJK_RANGES = ((0x2E80, 0x2FDF), (0x3000, 0x303F), (0x3040, 0x30FF), (0x3100, 0x312F),
              (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F),
              (0xFF00, 0xFFEF))


def is_cjk(ch):
    o = ord(ch)
    for a, b in CJK_RANGES:
        if a <= o <= b:
            return True
    return False


def is_zh(text):
    return any(0x4E00 <= ord(c) <= 0x9FFF for c in text)


def has_supsub(text):
    return any(c in SUPS or c in SUBS for c in text)


def split_atoms(text):
    atoms, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '_':
            j = i
            while j < n and text[j] == '_':
                j += 1
            atoms.append(('blank', text[i:j]))
            i = j
        elif ch.isspace():
            while i < n and text[i].isspace():
                i += 1
            atoms.append(('sp', ' '))
        elif is_cjk(ch):
            atoms.append(('cjk', ch))
            i += 1
        else:
            j = i
            while j < n and not text[j].isspace() and not is_cjk(text[j]) and text[j] != '_':
                j += 1
            atoms.append(('lat', text[i:j]))
            i = j
    return atoms


def group_units(atoms):
    """Unbreakable units: Latin words / numbers stay whole, closing punctuation
    sticks to what precedes it, opening punctuation to what follows."""
    units, pending = [], False
    for kind, s in atoms:
        if kind == 'sp':
            pending = True
            continue
        glue = False
        if units:
            prev = units[-1]['atoms'][-1]
            if s[0] in CLOSE_P:
                glue = True
            elif prev[0] != 'sp' and prev[1][-1] in OPEN_P and not pending:
                glue = True
            elif kind == 'lat' and s in OPERATORS:
                glue = True          # never start a line with "=", "+", ...
            elif units[-1].get('op'):
                glue = True          # ... nor end one with it
            elif (kind == 'cjk' and prev[0] == 'lat' and not pending and 0x4E00 <= ord(s) <= 0x9FFF
                  and prev[1][-1].isalnum()):
                glue = True          # symbol glued to a Han character, e.g. "ρ水"
            elif (kind == 'lat' and prev[0] == 'lat' and prev[1][-1].isdigit() and len(s) <= 4
                  and not s[0].isdigit() and s[0] not in OPEN_P):
                glue = True          # keep "2 kg", "10 N", "15 ℃" together
        if glue:
            if pending:
                units[-1]['atoms'].append(('sp', ' '))
            units[-1]['atoms'].append((kind, s))
        else:
            units.append({'space': pending, 'atoms': [(kind, s)]})
        units[-1]['op'] = kind == 'lat' and s in OPERATORS
        pending = False
    return units


class Typo:
    """Print typesetting for one page (one weight)."""

    def __init__(self, lang, lat_key, cjk_key):
        self.lang = lang
        self.chain_lat = resolve((lat_key, cjk_key, 'dsans', 'dmath'))
        self.chain_cjk = resolve((cjk_key, lat_key, 'dsans', 'dmath'))

    def key_for(self, ch):
        if is_cjk(ch) or (self.lang == 'zh' and ch in '“”‘’'):
            return pick_font(self.chain_cjk, ch)
        return pick_font(self.chain_lat, ch)

    def space(self, size):
        if self.lang == 'zh':
            return 0.28 * size
        return get_font(self.key_for('a'), size).getlength(' ')

    def shape(self, s, size):
        out, x = [], 0.0
        for ch in s:
            if ch in SUPS or ch in SUBS:
                sup = ch in SUPS
                base = SUPS.get(ch) or SUBS.get(ch)
                sz = max(6, int(round(size * 0.62)))
                key = self.key_for(base)
                dy = -0.40 * size if sup else 0.17 * size
                out.append((x + 0.03 * size, base, key, sz, dy))
                x += get_font(key, sz).getlength(base) + 0.06 * size
            elif ch == ' ':
                x += self.space(size)
            else:
                key = self.key_for(ch)
                out.append((x, ch, key, int(round(size)), 0.0))
                x += get_font(key, size).getlength(ch)
        return out, x


# --------------------------------------------------------------------------
# geometry helpers
# --------------------------------------------------------------------------

def T(tx, ty):
    return np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1.0]])


def Rz(deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])


def Sc(s):
    return np.array([[s, 0, 0], [0, s, 0], [0, 0, 1.0]])


def project(Hm, pts):
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    ph = np.hstack([pts, np.ones((len(pts), 1))]) @ Hm.T
    return ph[:, :2] / ph[:, 2:3]


def corners(r):
    x0, y0, x1, y1 = r
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def frac_inside(quad, W, H):
    q = np.asarray(quad, np.float32).reshape(-1, 2)
    area = abs(cv2.contourArea(q))
    if area <= 1e-6:
        return 0.0
    frame = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    q2 = q if cv2.contourArea(q, oriented=True) < 0 else q[::-1].copy()
    f2 = frame if cv2.contourArea(frame, oriented=True) < 0 else frame[::-1].copy()
    inter, _ = cv2.intersectConvexConvex(q2, f2)
    return float(inter) / area


def rect_union(rs):
    rs = [r for r in rs if r is not None]
    return (min(r[0] for r in rs), min(r[1] for r in rs),
            max(r[2] for r in rs), max(r[3] for r in rs))


def shift_rect(r, dx, dy):
    return None if r is None else (r[0] + dx, r[1] + dy, r[2] + dx, r[3] + dy)


# --------------------------------------------------------------------------
# content pools
# --------------------------------------------------------------------------

ZH_NUM = '一二三四五六七八九十'
SUBJ_ZH = {'math': '数学', 'phys': '物理', 'chem': '化学', 'bio': '生物', 'geo': '地理',
           'hist': '历史', 'chn': '语文', 'eng': '英语'}
SUBJ_EN = {'math': 'Maths', 'phys': 'Physics', 'chem': 'Chemistry', 'bio': 'Biology',
           'geo': 'Geography', 'hist': 'History', 'chn': 'Chinese', 'eng': 'English'}
ZH_GRADES = ['七年级', '八年级', '九年级', '初一', '初二', '初三', '高一']
ZH_KINDS = ['周测', '单元测试', '课堂小测', '期中复习卷', '课后作业', '练习卷（二）', '随堂练习', '家庭作业']
EN_KINDS = ['Quiz {n}', 'Unit {n} Test', 'Homework Sheet {n}', 'Weekly Practice {n}', 'Class Test {n}']
ZH_SECTIONS = ['选择题（每小题3分，共15分）', '填空题（每空2分，共20分）', '解答题（共30分）',
               '计算题', '基础知识', '简答题（每题4分）', '判断与填空']
EN_SECTIONS = ['Multiple Choice (2 points each)', 'Fill in the Blanks', 'Short Answer',
               'Problems (5 pts each)', 'Questions']
NUM_STYLES = ['dot', 'paren_r', 'paren', 'fw_dot', 'Q', 'dun']

ANS_LETTER = ['A', 'B', 'C', 'D']
ANS_ZH = ['叶绿体', '线粒体', '长江', '黄河', '李白', '孟浩然', '鲁迅', '朱自清', '太平洋', '亚洲',
          '1949年', '秦始皇', '细胞核', '右心室', '左心室', '23对', '肝脏', '小肠', '新疆', '澳门',
          '孔子', '范仲淹', '苏轼', 'H₂O', '氮气', '氧气', '7', '50 Ω', '5 Ω', '100℃', '4×10⁴ Pa']
ANS_NUM = ['5', 'x=5', 'x=6', '40', '12', '3.5', '-1', '2', '11/12', '7/12', '60', '32', '1',
           '1.5', 'x>4', 'x<4', '3/4', '12 cm²', '5 m/s²', '20 m', '100 J', '10 W', '1 kW·h',
           '2.7 g/cm³', '9', '80', '150元', '64', '96', '720°', '540°', '(0,1)', '{2,3}', '√3',
           '10 Ω', '20 N', '500 N', '200', '4', 'x₁=2, x₂=3', '18']
ANS_EN = ['went', 'gone', 'goes', 'an', 'a', 'since', 'for', 'better', 'best', 'cheap',
          'the Nile', '1492', 'newton', 'cell', '3/8', '5/8', '20 m/s', '9 J', '36 J', '2 mol', '3']
ZH_COMMENTS = ['过程!', '订正', '过程呢?', '单位!', '审题!', '见我', '粗心!', '好!', '步骤不全', '再算算']
EN_COMMENTS = ['see me', 'units?', 'show work', 'check!', 'good!', 'redo', 'why?', 'careful!']
SCORE_NOTES = ['-2', '-1', '-3', '+3', '+2', '8/10', '4/5', '✓', '-4', '6/8', '+1', '10/10']
CIRCLED = ['3', '4', '2', '-2', '5', '0', '6', '-1', '8']
TOP_SCORES = ['86', '92', '78', '100', '95', '67', '88分', 'A', 'B+', 'A-', '73', '81', '59']
ZH_NAMES = ['王小明', '李华', '张婷', '刘洋', '陈晨', '赵磊', '周雨', '孙悦']
EN_NAMES = ['Li Hua', 'Amy Chen', 'Tom Wang', 'Lucy Zhao', 'Jack Liu']


def working_lines(rng, lang, n):
    out = []
    for _ in range(n):
        a, b = int(rng.integers(2, 13)), int(rng.integers(2, 13))
        forms = [f'{a}x = {a * b}', f'x = {b}', f'{a}×{b} = {a * b}', f'= {a * b}',
                 f'{a}+{b} = {a + b}', f'S = {a}×{b} = {a * b}', 'F = ma', 'R = U/I',
                 f'P = W/t = {a * b}/{a}', f'∴ x = {b}', f'{a}² = {a * a}', f'x₁={a}, x₂={b}',
                 f'({a}-{b})×2 = {2 * (a - b)}', f'v = {a * b}÷{a} = {b}', f'{a}/{b} + 1',
                 f'ρ = m/V = {a * 10}/{b}']
        if lang == 'zh':
            forms += ['解：设为x', '由题意得', f'答：{b}', f'答：{a * b}', '解：']
        else:
            forms += [f'Ans: {b}', f'= {a}/{a + b}', 'so x = ' + str(b)]
        out.append(forms[int(rng.integers(len(forms)))])
    return out


def blank_answer(text, rng):
    t = text.lower()
    if '"a" or "an"' in t:
        return ['an', 'a'][int(rng.integers(2))]
    if '"since" or "for"' in t:
        return ['since', 'for'][int(rng.integers(2))]
    if 'go / goes / went' in t:
        return ['goes', 'went', 'go'][int(rng.integers(3))]
    return ANS_EN[int(rng.integers(len(ANS_EN)))]


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


# --------------------------------------------------------------------------
# page layout
# --------------------------------------------------------------------------

def number_label(style, n):
    return {'dot': f'{n}.', 'paren_r': f'{n})', 'paren': f'({n})', 'fw_dot': f'{n}．',
            'Q': f'Q{n}', 'dun': f'{n}、'}[style]


class Block:
    def __init__(self, kind):
        self.kind = kind
        self.items = []        # ('g', x, y, ch, key, size, dy) / ('r', x0, y, x1, th)
        self.print_rects = []
        self.h = 0.0
        self.info = {}

    def add_glyphs(self, glyphs, x, y):
        for dx, ch, key, sz, dy in glyphs:
            self.items.append(('g', x + dx, y + dy, ch, key, sz))


def layout_problem(cfg, text, label, note, slot, gap_em, rng):
    em, lh, asc, desc = cfg['em'], cfg['lh'], cfg['asc'], cfg['desc']
    col_w = cfg['col_w']
    typo, typo_n = cfg['typo'], cfg['typo_num']
    b = Block('prob')
    top = cfg['pgap']
    y = top + asc
    g, wn = typo_n.shape(label, em)
    b.add_glyphs(g, 0.0, y)
    num_rect = (0.0, y - asc, wn, y + desc)
    x = wn + (0.12 * em if label[-1] in '．、' else 0.32 * em)
    if note:
        g, w = typo.shape(note, em * 0.9)
        b.add_glyphs(g, x, y)
        x += w + 0.2 * em
    x_first = x
    x_ind = x_first if (cfg['hanging'] and x_first <= 0.3 * col_w) else 0.0
    units = group_units(split_atoms(text))
    sp_w = typo.space(em)

    def unit_w(u):
        w = 0.0
        for kind, s in u['atoms']:
            if kind == 'blank':
                w += cfg['blank_w']
            elif kind == 'sp':
                w += sp_w
            else:
                w += typo.shape(s, em)[1]
        return w

    lim = col_w - max(x_first, x_ind)
    split = []
    for u in units:      # a glued run wider than the column may break at its spaces
        if unit_w(u) > lim and any(a[0] == 'sp' for a in u['atoms']):
            cur_u = {'space': u['space'], 'atoms': []}
            atoms_u = u['atoms']
            for ai, a in enumerate(atoms_u):
                nxt = atoms_u[ai + 1] if ai + 1 < len(atoms_u) else None
                if (a[0] == 'sp' and cur_u['atoms'] and nxt is not None
                        and not (nxt[0] == 'lat' and nxt[1] in OPERATORS)
                        and nxt[1][0] not in CLOSE_P):
                    split.append(cur_u)   # break after an operator, never before it
                    cur_u = {'space': True, 'atoms': []}
                else:
                    cur_u['atoms'].append(a)
            if cur_u['atoms']:
                split.append(cur_u)
        else:
            split.append(u)
    units = split
    lines, cur, avail = [[]], 0.0, col_w - x_first
    for u in units:
        w = unit_w(u)
        sp = sp_w if (u['space'] and lines[-1]) else 0.0
        if lines[-1] and cur + sp + w > avail:
            lines.append([])
            cur, avail, sp = 0.0, col_w - x_ind, 0.0
        lines[-1].append((u, sp))
        cur += sp + w
    line_rects, blanks, line_texts = [], [], []
    max_x = wn
    last_end = x_first
    for li, line in enumerate(lines):
        yb = y + li * lh
        xx = x_first if li == 0 else x_ind
        x_start = xx
        line_texts.append(''.join((' ' if (sp and n_) else '') + ''.join(a[1] for a in u['atoms'])
                                  for n_, (u, sp) in enumerate(line)))
        for u, sp in line:
            xx += sp
            for kind, s in u['atoms']:
                if kind == 'blank':
                    bw = cfg['blank_w']
                    th = max(1.5, em * 0.055)
                    b.items.append(('r', xx + 0.08 * em, yb + 0.14 * em, xx + bw - 0.08 * em, th))
                    blanks.append((xx + 0.08 * em, yb - asc, xx + bw - 0.08 * em, yb + 0.14 * em))
                    xx += bw
                elif kind == 'sp':
                    xx += sp_w
                else:
                    g, w = typo.shape(s, em)
                    b.add_glyphs(g, xx, yb)
                    xx += w
        line_rects.append((x_start, yb - asc, xx, yb + desc))
        max_x = max(max_x, xx)
        last_end = xx
    yb_last = y + (len(lines) - 1) * lh
    slot_rect, slot_kind = None, None
    if slot == 'bracket':
        o, c = ('（', '）') if cfg['lang'] == 'zh' else ('(', ')')
        go, wo = typo.shape(o, em)
        gc, wc = typo.shape(c, em)
        bw = wo + wc + cfg['bracket_in'] * em
        if last_end + 0.8 * em + bw > col_w:
            yb_last += lh
        bx = col_w - bw
        b.add_glyphs(go, bx, yb_last)
        b.add_glyphs(gc, bx + bw - wc, yb_last)
        slot_rect = (bx + wo * 0.6, yb_last - asc, bx + bw - wc * 0.6, yb_last + desc)
        line_rects.append((bx, yb_last - asc, bx + bw, yb_last + desc))
        slot_kind = 'bracket'
        max_x = max(max_x, col_w)
    elif slot == 'line':
        yb_last += lh * 1.05
        lab = pick(rng, ['答：', '答：']) if cfg['lang'] == 'zh' else pick(rng, ['Answer:', 'Ans:'])
        g, wl = typo.shape(lab, em)
        b.add_glyphs(g, x_ind, yb_last)
        rx0 = x_ind + wl + 0.25 * em
        rx1 = min(col_w, rx0 + cfg['ans_line'] * em)
        th = max(1.5, em * 0.05)
        b.items.append(('r', rx0, yb_last + 0.14 * em, rx1, th))
        slot_rect = (rx0, yb_last - asc, rx1, yb_last + 0.14 * em)
        line_rects.append((x_ind, yb_last - asc, rx1, yb_last + desc))
        slot_kind = 'line'
        max_x = max(max_x, rx1)
    bottom = yb_last + desc
    b.print_rects = line_rects + [num_rect]
    b.info = dict(box=(0.0, top, max_x, bottom), num_rect=num_rect, lines=line_rects,
                  blanks=blanks, slot=slot_rect, slot_kind=slot_kind, x_ind=x_ind,
                  end=(last_end, y + (len(lines) - 1) * lh), nlines=len(lines), line_texts=line_texts)
    b.h = bottom + gap_em * em
    b.info['gap'] = (0.0, bottom, col_w, b.h)
    return b


def layout_section(cfg, text):
    em, asc, desc = cfg['em'], cfg['asc'], cfg['desc']
    b = Block('section')
    y = cfg['pgap'] * 1.4 + asc
    g, w = cfg['typo_b'].shape(text, em * 1.04)
    b.add_glyphs(g, 0.0, y)
    b.print_rects = [(0.0, y - asc, w, y + desc)]
    b.h = y + desc + 0.25 * em
    return b


def layout_header(cfg, tw, rng, title, fields):
    em, asc, desc = cfg['em'], cfg['asc'], cfg['desc']
    b = Block('header')
    ts = em * float(rng.uniform(1.3, 1.6))
    g, w = cfg['typo_b'].shape(title, ts)
    y = ts * 1.05
    tx = max(0.0, (tw - w) / 2)
    b.add_glyphs(g, tx, y)
    b.print_rects.append((tx, y - 0.92 * ts, tx + w, y + 0.25 * ts))
    title_rect = (tx, y - 0.92 * ts, tx + w, y + 0.25 * ts)
    y += ts * 0.6 + em * 1.4
    x = 0.0
    field_rects = {}
    fs = em * 0.95
    for name, label, rl in fields:
        g, wl = cfg['typo'].shape(label, fs)
        need = wl + rl * em
        if x + need > tw:
            break
        b.add_glyphs(g, x, y)
        rx0, rx1 = x + wl + 0.1 * em, x + wl + rl * em
        b.items.append(('r', rx0, y + 0.14 * em, rx1, max(1.5, em * 0.05)))
        b.print_rects.append((x, y - asc, rx1, y + desc))
        field_rects[name] = (rx0, y - asc, rx1, y + 0.14 * em)
        x = rx1 + 1.2 * em
    y += desc
    if rng.random() < 0.5:
        y += 0.5 * em
        b.items.append(('r', 0.0, y, tw, max(1.5, em * 0.045)))
    b.h = y + 0.6 * em
    b.info = dict(title=title_rect, fields=field_rects)
    return b


def build_page(pc, texts, k, rng):
    """pc: page config. texts: list of (qid, text); k: framed index."""
    cfg = pc
    em = cfg['em']
    blocks = []
    n0 = cfg['first_num']
    if cfg['header']:
        subj = cfg['subject']
        if cfg['head_lang'] == 'zh':
            title = pick(rng, ZH_GRADES) + SUBJ_ZH.get(subj, '综合') + pick(rng, ZH_KINDS)
            fields = [('class', '班级：', 4.5), ('name', '姓名：', 5.5), ('no', '学号：', 3.5),
                      ('score', '得分：', 3.5)]
            if rng.random() < 0.5:
                fields = [fields[1], fields[0], ('date', '日期：', 4.0), fields[3]]
        else:
            title = SUBJ_EN.get(subj, 'Science') + ' ' + pick(rng, EN_KINDS).format(n=int(rng.integers(1, 9)))
            fields = [('name', 'Name:', 6.0), ('class', 'Class:', 3.5), ('date', 'Date:', 4.0),
                      ('score', 'Score:', 3.5)]
        tw = cfg['ncol'] * cfg['col_w'] + (cfg['ncol'] - 1) * cfg['gutter']
        blocks.append(('header', layout_header(cfg, tw, rng, title, fields)))
    sec_at = set()
    if cfg['sections']:
        sec_at.add(0)
        if len(texts) > 3 and rng.random() < 0.6:
            sec_at.add(int(rng.integers(1, len(texts))))
    sec_i = int(rng.integers(0, 3))
    probs = []
    for j, (qid, text) in enumerate(texts):
        if j in sec_at:
            if cfg['head_lang'] == 'zh':
                st = ZH_NUM[sec_i % 10] + '、' + pick(rng, ZH_SECTIONS)
            else:
                st = 'Part ' + 'ABCDEFG'[sec_i % 7] + '  ' + pick(rng, EN_SECTIONS)
            sec_i += 1
            blocks.append(('section', layout_section(cfg, st)))
        label = number_label(cfg['num_style'], n0 + j)
        note = None
        if cfg['score_note']:
            pts = int(rng.choice([2, 3, 4, 5, 6]))
            note = (f'（{pts}分）' if rng.random() < 0.7 else f'({pts}分)') if cfg['lang'] == 'zh' \
                else pick(rng, [f'({pts} pts)', f'[{pts} marks]', f'({pts} points)'])
        slot = cfg['slot_style']
        if slot == 'mix':
            slot = pick(rng, ['bracket', 'line', 'none'])
        gap = cfg['gaps'][j]
        b = layout_problem(cfg, text, label, note, slot, gap, rng)
        b.info.update(qid=qid, text=text, label=label, j=j, framed=(j == k))
        blocks.append(('prob', b))
        probs.append(b)
    # place blocks
    ml, mt = cfg['margin_l'], cfg['margin_t']
    placed = []
    if cfg['ncol'] == 1:
        y = mt
        for kind, b in blocks:
            placed.append((b, ml, y))
            y += b.h
        content_h = y
    else:
        start = 0
        y = mt
        if blocks and blocks[0][0] == 'header':
            placed.append((blocks[0][1], ml, y))
            y += blocks[0][1].h
            start = 1
        rest = blocks[start:]
        hs = np.cumsum([b.h for _, b in rest])
        total = hs[-1]
        split = int(np.argmin(np.abs(hs - total / 2))) + 1
        split = min(max(split, 1), len(rest) - 1)
        yc = y
        for kind, b in rest[:split]:
            placed.append((b, ml, yc))
            yc += b.h
        h1 = yc
        yc = y
        x2 = ml + cfg['col_w'] + cfg['gutter']
        for kind, b in rest[split:]:
            placed.append((b, x2, yc))
            yc += b.h
        content_h = max(h1, yc)
    PW = ml + cfg['ncol'] * cfg['col_w'] + (cfg['ncol'] - 1) * cfg['gutter'] + cfg['margin_r']
    PH = content_h + cfg['margin_b']
    items, print_rects = [], []
    header = None
    for b, bx, by in placed:
        for it in b.items:
            if it[0] == 'g':
                items.append(('g', it[1] + bx, it[2] + by) + it[3:])
            else:
                items.append(('r', it[1] + bx, it[2] + by, it[3] + bx, it[4]))
        for r in b.print_rects:
            print_rects.append(shift_rect(r, bx, by))
        b.x, b.y = bx, by
        if b.kind == 'header':
            header = dict(title=shift_rect(b.info['title'], bx, by),
                          fields={kk: shift_rect(v, bx, by) for kk, v in b.info['fields'].items()})
        if b.kind == 'prob':
            inf = b.info
            for key in ('box', 'num_rect', 'slot', 'gap'):
                inf[key] = shift_rect(inf[key], bx, by)
            inf['lines'] = [shift_rect(r, bx, by) for r in inf['lines']]
            inf['blanks'] = [shift_rect(r, bx, by) for r in inf['blanks']]
            inf['end'] = (inf['end'][0] + bx, inf['end'][1] + by)
            inf['x_ind'] += bx
            inf['col'] = (bx, bx + cfg['col_w'])
    return dict(items=items, print_rects=print_rects, probs=[p.info for p in probs],
                header=header, PW=PW, PH=PH)


# --------------------------------------------------------------------------
# camera fitting / verification
# --------------------------------------------------------------------------

def verify(Hm, boxes, fi, W, H, em_page, em_range):
    m = 0.02 * min(W, H)
    quads = [project(Hm, corners(b)) for b in boxes]
    qf = quads[fi]
    if qf[:, 0].min() < m or qf[:, 0].max() > W - m or qf[:, 1].min() < m or qf[:, 1].max() > H - m:
        return False, 'framed box not inside'
    c = np.array([W / 2, H / 2])
    d = np.array([np.linalg.norm(q.mean(0) - c) for q in quads])
    bf = boxes[fi]
    cf = ((bf[0] + bf[2]) / 2, (bf[1] + bf[3]) / 2)
    seg = project(Hm, [(cf[0], cf[1] - em_page / 2), (cf[0], cf[1] + em_page / 2)])
    em_px = float(np.linalg.norm(seg[1] - seg[0]))
    if not (em_range[0] <= em_px <= em_range[1]):
        return False, 'char size'
    others = [i for i in range(len(boxes)) if i != fi]
    if not others:
        return False, 'no neighbour'
    if d[fi] + 0.3 * em_px >= 0.8 * min(d[i] for i in others):
        return False, 'not nearest'
    vis = {i: frac_inside(quads[i], W, H) for i in others}
    if max(vis.values()) < 0.3:
        return False, 'no visible neighbour'
    return True, dict(vis=vis, em_px=em_px, dist=d, quads=quads)


def random_persp(rng, W, H, amp):
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    # a keystone-like tilt plus independent corner jitter
    tilt = float(rng.uniform(-1, 1)) * amp
    side = int(rng.integers(4))
    dst = src.copy()
    jit = rng.uniform(-1, 1, (4, 2)) * amp * 0.5 * np.array([W, H])
    dst += jit.astype(np.float32)
    if side == 0:
        dst[0, 0] += tilt * W; dst[1, 0] -= tilt * W
    elif side == 1:
        dst[3, 0] += tilt * W; dst[2, 0] -= tilt * W
    elif side == 2:
        dst[0, 1] += tilt * H; dst[3, 1] -= tilt * H
    else:
        dst[1, 1] += tilt * H; dst[2, 1] -= tilt * H
    return cv2.getPerspectiveTransform(src, dst.astype(np.float32)).astype(np.float64)


def fit_camera(boxes, fi, W, H, rot, s, em_page, rng, persp_amp, tilt_max, em_range):
    bf = boxes[fi]
    cf = ((bf[0] + bf[2]) / 2, (bf[1] + bf[3]) / 2)
    last = None
    for att in range(40):
        k = 1.0 if att < 10 else (0.5 if att < 20 else 0.0)
        ss = s * (0.95 ** max(0, att - 20))
        ang = rot + float(rng.uniform(-tilt_max, tilt_max)) * max(k, 0.3 if att < 30 else 0.0)
        A = Rz(ang) @ Sc(ss) @ T(-cf[0], -cf[1])
        q = project(A, corners(bf))
        m = 0.05 * min(W, H)
        lim = 0.09 * min(W, H) * k
        lo_x, hi_x = m - W / 2 - q[:, 0].min(), W / 2 - m - q[:, 0].max()
        lo_y, hi_y = m - H / 2 - q[:, 1].min(), H / 2 - m - q[:, 1].max()
        dx = float(rng.uniform(max(lo_x, -lim), min(hi_x, lim))) if max(lo_x, -lim) < min(hi_x, lim) else 0.0
        dy = float(rng.uniform(max(lo_y, -lim), min(hi_y, lim))) if max(lo_y, -lim) < min(hi_y, lim) else 0.0
        Hm = T(W / 2 + dx, H / 2 + dy) @ A
        if persp_amp > 0 and k > 0:
            Hm = random_persp(rng, W, H, persp_amp * k) @ Hm
        ok, info = verify(Hm, boxes, fi, W, H, em_page, em_range)
        if ok:
            info['tilt'] = ang - rot
            info['persp'] = persp_amp > 0 and k > 0
            return Hm, info
        last = info
    raise RuntimeError('camera fit failed: %s' % last)


# --------------------------------------------------------------------------
# drawing surfaces
# --------------------------------------------------------------------------

class Canvas:
    def __init__(self, ox, oy, w, h):
        self.ox, self.oy, self.w, self.h = ox, oy, w, h
        self.print_img = Image.new('L', (w, h), 0)
        self.pdraw = ImageDraw.Draw(self.print_img)
        self.masks = {}
        self.stickers = []

    def mask(self, name):
        m = self.masks.get(name)
        if m is None:
            m = np.zeros((self.h, self.w), np.uint8)
            self.masks[name] = m
        return m

    def paste_max(self, name, arr, x, y):
        """arr uint8, top-left at page coords (x, y)."""
        m = self.mask(name)
        x0 = int(round(x - self.ox))
        y0 = int(round(y - self.oy))
        h, w = arr.shape
        ax0, ay0 = max(0, -x0), max(0, -y0)
        bx0, by0 = max(0, x0), max(0, y0)
        bx1, by1 = min(self.w, x0 + w), min(self.h, y0 + h)
        if bx1 <= bx0 or by1 <= by0:
            return
        sub = arr[ay0:ay0 + (by1 - by0), ax0:ax0 + (bx1 - bx0)]
        np.maximum(m[by0:by1, bx0:bx1], sub, out=m[by0:by1, bx0:bx1])


def draw_print(canvas, items, ink):
    d = canvas.pdraw
    pad = 200
    for it in items:
        if it[0] == 'g':
            _, x, y, ch, key, sz = it
            lx, ly = x - canvas.ox, y - canvas.oy
            if lx < -pad or ly < -pad or lx > canvas.w + pad or ly > canvas.h + pad:
                continue
            d.text((lx, ly), ch, font=get_font(key, sz), fill=ink, anchor='ls')
        else:
            _, x0, y, x1, th = it
            ly = y - canvas.oy
            if ly < -pad or ly > canvas.h + pad:
                continue
            d.line([(x0 - canvas.ox, ly), (x1 - canvas.ox, ly)], fill=ink, width=max(1, int(round(th))))


def catmull(pts, step=3.0):
    pts = np.asarray(pts, np.float64)
    if len(pts) == 2:
        n = max(2, int(np.linalg.norm(pts[1] - pts[0]) / step))
        t = np.linspace(0, 1, n)[:, None]
        return pts[0] * (1 - t) + pts[1] * t
    P = np.vstack([pts[0], pts, pts[-1]])
    out = []
    for i in range(len(pts) - 1):
        p0, p1, p2, p3 = P[i], P[i + 1], P[i + 2], P[i + 3]
        n = max(3, int(np.linalg.norm(p2 - p1) / step))
        t = np.linspace(0, 1, n, endpoint=False)[:, None]
        out.append(0.5 * ((2 * p1) + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t ** 2
                          + (-p0 + 3 * p1 - 3 * p2 + p3) * t ** 3))
    out.append(pts[-1:])
    return np.vstack(out)


def draw_stroke(canvas, name, pts, width, rng, taper=0.45):
    m = canvas.mask(name)
    P = catmull(pts) - np.array([canvas.ox, canvas.oy])
    n = len(P)
    t = np.linspace(0, 1, n)
    press = 1.0 - taper * (np.exp(-t * 9) + 0.6 * np.exp(-(1 - t) * 9))
    press *= 1 + 0.12 * np.sin(t * float(rng.uniform(3, 8)) + float(rng.uniform(0, 6)))
    Q = np.round(P * 16).astype(np.int64)
    lim = 2 ** 26
    Q = np.clip(Q, -lim, lim)
    for i in range(n - 1):
        th = max(1, int(round(width * press[i])))
        cv2.line(m, (int(Q[i, 0]), int(Q[i, 1])), (int(Q[i + 1, 0]), int(Q[i + 1, 1])), 255, th,
                 cv2.LINE_AA, shift=4)


# ---------------------------- handwriting ---------------------------------

_GLYPH_BMP = {}


def glyph_bitmap(key, size, ch):
    k = (key, size, ch)
    r = _GLYPH_BMP.get(k)
    if r is None:
        f = get_font(key, size)
        adv = f.getlength(ch)
        pl, pr = int(size * 0.7) + 4, int(size * 0.9) + 4
        gw = int(adv) + pl + pr
        gh = int(size * 2.1) + 8
        oy = int(size * 1.45) + 4
        img = Image.new('L', (gw, gh), 0)
        ImageDraw.Draw(img).text((pl, oy), ch, font=f, fill=255, anchor='ls')
        r = (np.asarray(img, np.float32), pl, oy, adv)
        _GLYPH_BMP[k] = r
    return r


def make_writer(rng, role, lang):
    """Handwriting style parameters."""
    lat = pick(rng, ['dsans_o', 'lsans_i', 'lnarrow_i', 'dmono_o', 'lserif_i', 'dserif_i'])
    cjk = pick(rng, ['sans_cjk', 'sans_cjk', 'serif_cjk'])
    w = dict(lat=resolve((lat, 'dsans_o', 'lsans_i', 'sans_cjk')),
             cjk=resolve((cjk, 'sans_cjk', lat)),
             slant=float(rng.uniform(0.12, 0.34)) if role == 'teacher' else float(rng.uniform(0.05, 0.28)),
             rot_sd=float(rng.uniform(2.5, 6.0)),
             elastic=float(rng.uniform(0.035, 0.07)) if role == 'teacher' else float(rng.uniform(0.025, 0.055)),
             wscale=float(rng.uniform(0.85, 1.12)),
             spacing=float(rng.uniform(0.92, 1.12)),
             drift=float(rng.uniform(-0.05, 0.05)),
             jit=float(rng.uniform(0.03, 0.07)),
             pen=float(rng.uniform(0.05, 0.075)))
    return w


def hand_key(writer, ch):
    if is_cjk(ch):
        return pick_font(writer['cjk'], ch)
    return pick_font(writer['lat'], ch)


def hand_measure(text, size, writer):
    w = 0.0
    for ch in text:
        if ch == ' ':
            w += 0.32 * size * writer['spacing']
        else:
            w += get_font(hand_key(writer, ch), size).getlength(ch) * writer['wscale'] * writer['spacing']
    return w


def thin(b):
    """Zhang-Suen thinning of a boolean image (numpy only)."""
    I = np.pad(b.astype(np.uint8), 1)
    while True:
        changed = False
        for step in (0, 1):
            P2, P3, P4 = I[:-2, 1:-1], I[:-2, 2:], I[1:-1, 2:]
            P5, P6, P7 = I[2:, 2:], I[2:, 1:-1], I[2:, :-2]
            P8, P9 = I[1:-1, :-2], I[:-2, :-2]
            C = I[1:-1, 1:-1]
            nb = [P2, P3, P4, P5, P6, P7, P8, P9, P2]
            B = P2 + P3 + P4 + P5 + P6 + P7 + P8 + P9
            A = sum(((nb[k] == 0) & (nb[k + 1] == 1)).astype(np.uint8) for k in range(8))
            if step == 0:
                m = (P2 * P4 * P6 == 0) & (P4 * P6 * P8 == 0)
            else:
                m = (P2 * P4 * P8 == 0) & (P2 * P6 * P8 == 0)
            D = (C == 1) & (B >= 2) & (B <= 6) & (A == 1) & m
            if D.any():
                C[D] = 0
                changed = True
        if not changed:
            break
    return I[1:-1, 1:-1]


def hand_text(canvas, name, text, x, y, size, writer, rng, pen=None):
    """Handwrite text with its baseline starting at page (x, y); returns bbox.

    Glyphs of a normal font are slanted, rotated, elastically warped, reduced
    to their centre line and re-inked with a round pen of constant width, so
    strokes look written rather than printed."""
    size = max(8, int(round(size)))
    if pen is None:
        pen = max(1.6, size * writer['pen'])
    x0, xx, yy = x, float(x), float(y)
    ys = []
    for ch in text:
        if ch == ' ':
            xx += 0.32 * size * writer['spacing'] * float(rng.uniform(0.8, 1.3))
            continue
        key = hand_key(writer, ch)
        src, ox, oy, adv = glyph_bitmap(key, size, ch)
        gh, gw = src.shape
        cjk = is_cjk(ch)
        ang = math.radians(float(rng.normal(0, writer['rot_sd'])))
        sh = writer['slant'] + float(rng.normal(0, 0.05))
        sx = writer['wscale'] * (1 + float(rng.normal(0, 0.06)))
        sy = 1 + float(rng.normal(0, 0.07))
        c, s_ = math.cos(ang), math.sin(ang)
        L = np.array([[c, -s_], [s_, c]]) @ np.array([[1, -sh], [0, 1]]) @ np.diag([sx, sy])
        A = np.zeros((2, 3))
        A[:, :2] = L
        A[:, 2] = np.array([ox, oy]) - L @ np.array([ox, oy])
        out = cv2.warpAffine(src, A, (gw, gh), flags=cv2.INTER_LINEAR)
        amp = writer['elastic'] * size * (0.55 if cjk else 1.0)
        grid = rng.normal(0, 1, (2, 4, 4)).astype(np.float32) * amp
        dxm = cv2.resize(grid[0], (gw, gh), interpolation=cv2.INTER_CUBIC)
        dym = cv2.resize(grid[1], (gw, gh), interpolation=cv2.INTER_CUBIC)
        gx, gy = np.meshgrid(np.arange(gw, dtype=np.float32), np.arange(gh, dtype=np.float32))
        out = cv2.remap(out, gx + dxm, gy + dym, cv2.INTER_LINEAR)
        skel = thin(out > 110)
        dist = cv2.distanceTransform((1 - skel).astype(np.uint8), cv2.DIST_L2, 3)
        ink = np.clip(pen / 2 + 0.5 - dist, 0, 1)
        if gw > 4 and gh > 4:
            ink *= np.clip(0.72 + 0.4 * smooth_noise(rng, gh, gw, max(4, size // 3)), 0, 1)
        jx = float(rng.normal(0, writer['jit'])) * size
        jy = float(rng.normal(0, writer['jit'])) * size
        canvas.paste_max(name, (ink * 255).astype(np.uint8), xx - ox + jx, yy - oy + jy)
        ys.append(yy + jy)
        adv_w = adv * sx * writer['spacing'] * float(rng.uniform(0.9, 1.08))
        xx += adv_w
        yy += writer['drift'] * adv_w + float(rng.normal(0, 0.02)) * size
    ymin = min(ys) if ys else y
    ymax = max(ys) if ys else y
    return (x0, ymin - 0.85 * size, xx, ymax + 0.2 * size)


# ---------------------------- pen marks -----------------------------------

def mark_tick(canvas, name, x, y, size, width, rng):
    j = lambda: rng.normal(0, 0.05, 2) * size
    p0 = np.array([x, y + 0.5 * size]) + j()
    p1 = np.array([x + 0.3 * size, y + 0.95 * size]) + j()
    p2 = np.array([x + 1.0 * size, y - 0.02 * size]) + j()
    mid1 = (p0 + p1) / 2 + j() * 0.5
    bow = (p1 + p2) / 2 + np.array([0.06, 0.06]) * size * float(rng.uniform(-1, 1.5))
    draw_stroke(canvas, name, [p0, mid1, p1, bow, p2], width, rng)
    return (x, y - 0.05 * size, x + size, y + size)


def mark_cross(canvas, name, x, y, size, width, rng):
    j = lambda: rng.normal(0, 0.06, 2) * size
    a0, a1 = np.array([x, y]) + j(), np.array([x + size, y + size]) + j()
    b0, b1 = np.array([x + size, y]) + j(), np.array([x, y + size]) + j()
    draw_stroke(canvas, name, [a0, (a0 + a1) / 2 + j() * 0.4, a1], width, rng)
    draw_stroke(canvas, name, [b0, (b0 + b1) / 2 + j() * 0.4, b1], width, rng)
    return (x, y, x + size, y + size)


def mark_ellipse(canvas, name, rect, width, rng, pad=0.25):
    x0, y0, x1, y1 = rect
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    rx = (x1 - x0) / 2 * (1 + pad) + 4
    ry = (y1 - y0) / 2 * (1 + pad * 1.3) + 4
    a0 = float(rng.uniform(0, 2 * math.pi))
    span = 2 * math.pi + float(rng.uniform(0.2, 0.6))
    n = 14
    t = np.linspace(0, 1, n)
    wob = 1 + rng.normal(0, 0.04, n)
    ang = a0 - span * t
    rot = float(rng.normal(0, 0.08))
    px = rx * wob * np.cos(ang)
    py = ry * wob * np.sin(ang)
    pts = np.stack([cx + px * math.cos(rot) - py * math.sin(rot),
                    cy + px * math.sin(rot) + py * math.cos(rot)], 1)
    pts[-1] += rng.normal(0, 0.06, 2) * ry
    draw_stroke(canvas, name, pts, width, rng, taper=0.3)
    return (cx - rx, cy - ry, cx + rx, cy + ry)


def mark_underline(canvas, name, x0, x1, y, width, rng, wavy=False, em=30):
    n = max(3, int((x1 - x0) / (0.5 * em)) + 1)
    xs = np.linspace(x0, x1, n)
    ys = y + rng.normal(0, 0.04, n) * em + np.linspace(0, float(rng.normal(0, 0.1)) * em, n)
    if wavy:
        ys = ys + 0.12 * em * np.sin(np.arange(n) * math.pi)
    draw_stroke(canvas, name, np.stack([xs, ys], 1), width, rng, taper=0.3)
    return (x0, y - 0.2 * em, x1, y + 0.2 * em)


def mark_arrow(canvas, name, p_from, p_to, width, rng):
    p0, p1 = np.array(p_from, float), np.array(p_to, float)
    d = p1 - p0
    L = np.linalg.norm(d) + 1e-6
    nrm = np.array([-d[1], d[0]]) / L
    mid = (p0 + p1) / 2 + nrm * L * float(rng.uniform(-0.18, 0.18))
    draw_stroke(canvas, name, [p0, mid, p1], width, rng, taper=0.2)
    dirv = p1 - (mid * 0.3 + p1 * 0.7)
    dirv /= np.linalg.norm(dirv) + 1e-6
    hl = min(L * 0.3, max(12.0, L * 0.18))
    for sgn in (-1, 1):
        a = math.radians(28 * sgn + float(rng.normal(0, 4)))
        rv = np.array([dirv[0] * math.cos(a) - dirv[1] * math.sin(a),
                       dirv[0] * math.sin(a) + dirv[1] * math.cos(a)])
        draw_stroke(canvas, name, [p1, p1 - rv * hl], width, rng, taper=0.2)
    xs = [p0[0], p1[0], mid[0]]
    ys = [p0[1], p1[1], mid[1]]
    return (min(xs) - hl, min(ys) - hl, max(xs) + hl, max(ys) + hl)


def mark_strike(canvas, name, rect, width, rng, em):
    x0, y0, x1, y1 = rect
    ym = (y0 + y1) / 2 + 0.1 * (y1 - y0)
    kind = int(rng.integers(3))
    if kind == 0:
        mark_underline(canvas, name, x0 - 3, x1 + 3, ym, width, rng, em=em)
    elif kind == 1:
        mark_underline(canvas, name, x0 - 3, x1 + 3, ym - 0.12 * em, width, rng, em=em)
        mark_underline(canvas, name, x0 - 3, x1 + 3, ym + 0.12 * em, width, rng, em=em)
    else:   # scribble
        n = max(4, int((x1 - x0) / (0.22 * em)))
        xs = np.linspace(x0, x1, n)
        ys = np.where(np.arange(n) % 2 == 0, y0 + 0.25 * (y1 - y0), y1 - 0.1 * (y1 - y0))
        ys = ys + rng.normal(0, 0.05, n) * em
        draw_stroke(canvas, name, np.stack([xs, ys], 1), width, rng, taper=0.1)


# ------------------------------ stamps ------------------------------------

def smooth_noise(rng, h, w, cells):
    g = rng.random((max(2, h // cells + 2), max(2, w // cells + 2))).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def ink_texture(rng, arr):
    h, w = arr.shape
    n1 = smooth_noise(rng, h, w, max(3, w // 10))
    n2 = rng.random((h, w)).astype(np.float32)
    t = np.clip(0.45 + 0.75 * n1, 0, 1) * np.where(n2 < 0.06, 0.35, 1.0)
    return (arr.astype(np.float32) * t).astype(np.uint8)


def render_round_stamp(D, rng, lang):
    D = int(D)
    S = int(D * 1.15) + 4
    img = Image.new('L', (S, S), 0)
    d = ImageDraw.Draw(img)
    c, R = S / 2, D / 2
    d.ellipse([c - R, c - R, c + R, c + R], outline=255, width=max(2, int(D * 0.055)))
    if rng.random() < 0.6:
        r2 = R * 0.8
        d.ellipse([c - r2, c - r2, c + r2, c + r2], outline=255, width=max(1, int(D * 0.02)))
    if lang == 'zh' and rng.random() < 0.75:
        txt = pick(rng, ['已阅', '已批改', '阅', '优', '检查'])
        key = 'serif_cjk_b' if has_key('serif_cjk_b') else 'sans_cjk'
    else:
        txt = pick(rng, ['CHECKED', 'GOOD', 'OK!', 'SEEN'])
        key = 'lsans_b' if has_key('lsans_b') else 'dsans'
    fs = D * 0.4
    f = get_font(key, fs)
    while f.getlength(txt) > D * 0.6 and fs > 6:
        fs *= 0.9
        f = get_font(key, fs)
    d.text((c, c + (0.05 * D if len(txt) > 1 else 0)), txt, font=f, fill=255, anchor='mm')
    # small star on top, date below
    sr = D * 0.08
    cy = c - R * 0.55
    pts = []
    for i in range(10):
        rr = sr if i % 2 == 0 else sr * 0.42
        a = -math.pi / 2 + i * math.pi / 5
        pts.append((c + rr * math.cos(a), cy + rr * math.sin(a)))
    d.polygon(pts, fill=255)
    if rng.random() < 0.6:
        ff = get_font('dsans' if has_key('dsans') else key, D * 0.1)
        d.text((c, c + R * 0.55), '2024.%02d.%02d' % (int(rng.integers(9, 13)), int(rng.integers(1, 29))),
               font=ff, fill=255, anchor='mm')
    arr = np.asarray(img)
    M = cv2.getRotationMatrix2D((S / 2, S / 2), float(rng.uniform(-35, 35)), 1.0)
    arr = cv2.warpAffine(arr, M, (S, S))
    return ink_texture(rng, arr)


def render_smiley_stamp(D, rng):
    D = int(D)
    S = int(D * 1.15) + 4
    img = Image.new('L', (S, S), 0)
    d = ImageDraw.Draw(img)
    c, R = S / 2, D / 2
    wdt = max(2, int(D * 0.06))
    d.ellipse([c - R, c - R, c + R, c + R], outline=255, width=wdt)
    er = D * 0.07
    for ex in (c - R * 0.35, c + R * 0.35):
        d.ellipse([ex - er, c - R * 0.3 - er, ex + er, c - R * 0.3 + er], fill=255)
    d.arc([c - R * 0.55, c - R * 0.45, c + R * 0.55, c + R * 0.6], 20, 160, fill=255, width=wdt)
    arr = np.asarray(img)
    M = cv2.getRotationMatrix2D((S / 2, S / 2), float(rng.uniform(-30, 30)), 1.0)
    return ink_texture(rng, cv2.warpAffine(arr, M, (S, S)))


def render_sticker(D, rng, kind):
    """RGBA float array (0..1)."""
    D = int(D)
    S = int(D * 1.2) + 6
    img = Image.new('RGBA', (S, S), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    c, R = S / 2, D / 2
    if kind == 'star':
        col = pick(rng, [(245, 190, 30), (235, 60, 60), (60, 150, 230), (250, 200, 60), (90, 190, 90)])
        pts, pts_b = [], []
        rot = float(rng.uniform(-0.5, 0.5))
        for i in range(10):
            rr = R if i % 2 == 0 else R * 0.45
            a = -math.pi / 2 + i * math.pi / 5 + rot
            pts.append((c + rr * math.cos(a), c + rr * math.sin(a)))
            rb = rr + D * 0.05
            pts_b.append((c + rb * math.cos(a), c + rb * math.sin(a)))
        if rng.random() < 0.6:
            d.polygon(pts_b, fill=(250, 250, 248, 255))
        d.polygon(pts, fill=col + (255,))
        hl = tuple(min(255, v + 45) for v in col)
        d.polygon([(c, c)] + pts[0:3], fill=hl + (255,))
    else:   # smiley sticker
        d.ellipse([c - R, c - R, c + R, c + R], fill=(250, 210, 40, 255), outline=(220, 160, 20, 255),
                  width=max(1, int(D * 0.03)))
        er = D * 0.07
        for ex in (c - R * 0.35, c + R * 0.35):
            d.ellipse([ex - er, c - R * 0.3 - er * 1.4, ex + er, c - R * 0.3 + er * 1.4], fill=(40, 30, 20, 255))
        d.arc([c - R * 0.55, c - R * 0.45, c + R * 0.55, c + R * 0.6], 20, 160, fill=(40, 30, 20, 255),
              width=max(2, int(D * 0.06)))
    arr = np.asarray(img).astype(np.float32) / 255.0
    M = cv2.getRotationMatrix2D((S / 2, S / 2), float(rng.uniform(-25, 25)), 1.0)
    return cv2.warpAffine(arr, M, (S, S))


# --------------------------------------------------------------------------
# placement of annotations
# --------------------------------------------------------------------------

class Placer:
    def __init__(self, print_rects, protect, Hm, W, H, em, page_rect):
        self.page = page_rect
        self.P = np.array(print_rects, np.float64).reshape(-1, 4)
        self.A = np.zeros((0, 4))
        self.X = np.array(protect, np.float64).reshape(-1, 4)
        self.Hm, self.W, self.H, self.em = Hm, W, H, em

    @staticmethod
    def _ov(c, R):
        if len(R) == 0:
            return np.zeros(len(c))
        ix = np.clip(np.minimum(c[:, None, 2], R[None, :, 2]) - np.maximum(c[:, None, 0], R[None, :, 0]), 0, None)
        iy = np.clip(np.minimum(c[:, None, 3], R[None, :, 3]) - np.maximum(c[:, None, 1], R[None, :, 1]), 0, None)
        return (ix * iy).sum(1)

    def inside(self, rects, margin=6):
        K = len(rects)
        pts = np.concatenate([rects[:, [0, 1]], rects[:, [2, 1]], rects[:, [2, 3]], rects[:, [0, 3]]], 0)
        q = project(self.Hm, pts).reshape(4, K, 2)
        ok = (q[..., 0] >= margin) & (q[..., 0] <= self.W - margin) & (q[..., 1] >= margin) & (q[..., 1] <= self.H - margin)
        return ok.all(0)

    def find(self, w, h, anchors, spread, rng, print_cost=1.0, K=64):
        anchors = np.asarray(anchors, np.float64).reshape(-1, 2)
        idx = rng.integers(0, len(anchors), K)
        c = anchors[idx] + rng.normal(0, 1, (K, 2)) * spread
        c = np.vstack([anchors, c])
        rects = np.stack([c[:, 0] - w / 2, c[:, 1] - h / 2, c[:, 0] + w / 2, c[:, 1] + h / 2], 1)
        area = max(w * h, 1.0)
        cost = (print_cost * self._ov(rects, self.P) / area + 3.0 * self._ov(rects, self.A) / area
                + 1e4 * (self._ov(rects, self.X) > 0))
        dist = np.min(np.linalg.norm(c[:, None, :] - anchors[None, :, :], axis=2), 1)
        cost += 0.05 * dist / self.em
        cost += 100.0 * (~self.inside(rects))
        px0, py0, px1, py1 = self.page
        off = (rects[:, 0] < px0) | (rects[:, 1] < py0) | (rects[:, 2] > px1) | (rects[:, 3] > py1)
        cost += 100.0 * off
        b = int(np.argmin(cost))
        if cost[b] >= 100:
            return None
        r = tuple(float(v) for v in rects[b])
        return r

    def add(self, r):
        self.A = np.vstack([self.A, np.array(r, np.float64).reshape(1, 4)])


# --------------------------------------------------------------------------
# composition and capture
# --------------------------------------------------------------------------

def compose_page(canvas, rng, inks, paper_col, crease):
    h, w = canvas.h, canvas.w
    img = np.empty((h, w, 3), np.float32)
    img[:] = np.array(paper_col, np.float32) / 255.0
    low = smooth_noise(rng, h, w, 90) - 0.5
    img *= (1 + 0.035 * low)[..., None]
    grain = rng.normal(0, 0.012, (h // 2 + 1, w // 2 + 1)).astype(np.float32)
    grain = cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR)
    img *= (1 + grain)[..., None]
    for name, col, alpha in inks:
        if name == 'print':
            m = np.asarray(canvas.print_img, np.float32) / 255.0
        else:
            if name not in canvas.masks:
                continue
            m = canvas.masks[name].astype(np.float32) / 255.0
        if not m.any():
            continue
        if name == 'pencil':
            m *= np.clip(0.55 + 0.6 * rng.random((h, w), dtype=np.float32), 0, 1)
        m *= alpha
        c = np.array(col, np.float32) / 255.0
        img *= 1 - m[..., None] * (1 - c)[None, None, :]
    for arr, x, y in canvas.stickers:
        S = arr.shape[0]
        x0, y0 = int(round(x - canvas.ox)), int(round(y - canvas.oy))
        ax0, ay0 = max(0, -x0), max(0, -y0)
        bx0, by0 = max(0, x0), max(0, y0)
        bx1, by1 = min(w, x0 + S), min(h, y0 + S)
        if bx1 <= bx0 or by1 <= by0:
            continue
        sub = arr[ay0:ay0 + by1 - by0, ax0:ax0 + bx1 - bx0]
        a = sub[..., 3:4]
        # soft shadow of the sticker edge
        sh = cv2.GaussianBlur(arr[..., 3], (0, 0), 2.5)
        sh = np.roll(np.roll(sh, 2, 0), 2, 1)[ay0:ay0 + by1 - by0, ax0:ax0 + bx1 - bx0]
        reg = img[by0:by1, bx0:bx1]
        reg *= (1 - 0.25 * sh)[..., None]
        img[by0:by1, bx0:bx1] = reg * (1 - a) + sub[..., :3] * a
    if crease is not None:
        (px, py), ang, depth = crease
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        xx += canvas.ox
        yy += canvas.oy
        nx, ny = -math.sin(ang), math.cos(ang)
        dd = (xx - px) * nx + (yy - py) * ny
        shade = 1 - depth * np.exp(-(dd / 2.2) ** 2) + 0.6 * depth * np.exp(-((dd - 4) / 3.0) ** 2)
        shade -= 0.5 * depth * np.tanh(dd / 60.0) * np.exp(-np.abs(dd) / 260.0)
        img *= shade[..., None]
    return img


def make_background(W, H, rng):
    kind = int(rng.integers(4))
    if kind == 0:     # wood
        base = np.array([float(rng.uniform(120, 175)), float(rng.uniform(80, 120)), float(rng.uniform(45, 80))]) / 255
        n = rng.normal(0, 1, (8, max(2, W // 3))).astype(np.float32)
        n = cv2.GaussianBlur(n, (0, 0), 2)
        streak = cv2.resize(n, (W, H), interpolation=cv2.INTER_LINEAR)
        low = smooth_noise(rng, H, W, 200)
        bg = base[None, None, :] * (1 + 0.08 * streak + 0.15 * (low - 0.5))[..., None]
    elif kind == 1:   # plain desk
        base = np.array(pick(rng, [(200, 200, 195), (60, 62, 68), (225, 222, 215), (150, 160, 170)]), float) / 255
        low = smooth_noise(rng, H, W, 250)
        bg = base[None, None, :] * (1 + 0.12 * (low - 0.5))[..., None]
    elif kind == 2:   # cloth / mat
        base = np.array(pick(rng, [(70, 90, 120), (120, 60, 60), (60, 100, 70), (90, 90, 90)]), float) / 255
        n = rng.normal(0, 0.05, (H // 2 + 1, W // 2 + 1)).astype(np.float32)
        n = cv2.resize(n, (W, H))
        bg = base[None, None, :] * (1 + n)[..., None]
    else:             # another sheet under the page, with faint rulings
        base = np.array([float(rng.uniform(215, 240))] * 3) / 255
        bg = np.tile(base[None, None, :], (H, W, 1))
        step = int(rng.integers(35, 60))
        for y in range(int(rng.integers(0, step)), H, step):
            bg[y:y + 2] *= 0.88
    return bg.astype(np.float32)


def capture(page_rgb, canvas, Hm, W, H, rng, flags, tags):
    M = Hm @ T(canvas.ox, canvas.oy)
    warped = cv2.warpPerspective(page_rgb, M, (W, H), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    ones = np.ones((canvas.h, canvas.w), np.float32)
    alpha = cv2.warpPerspective(ones, M, (W, H), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    bg = make_background(W, H, rng)
    if (alpha < 0.5).mean() > 0.02:
        sh = cv2.GaussianBlur(alpha, (0, 0), 9)
        sh = np.roll(np.roll(sh, 6, 0), 5, 1)
        bg *= (1 - 0.45 * sh)[..., None]
        tags.append('page_edge_visible')
    img = bg * (1 - alpha[..., None]) + warped * alpha[..., None]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xn, yn = xx / W - 0.5, yy / H - 0.5
    illum = np.ones((H, W), np.float32) * float(rng.uniform(0.92, 1.05))
    if flags['uneven_light']:
        a, b = rng.uniform(-1, 1, 2)
        illum *= 1 + float(rng.uniform(0.12, 0.3)) * (a * xn + b * yn)
        cx, cy = rng.uniform(-0.4, 0.4, 2)
        illum *= 1 - float(rng.uniform(0.1, 0.3)) * ((xn - cx) ** 2 + (yn - cy) ** 2)
        tags.append('uneven_light')
    else:
        illum *= 1 - 0.12 * (xn ** 2 + yn ** 2)
    if flags['shadow']:
        sm = np.zeros((H // 4, W // 4), np.float32)
        h4, w4 = sm.shape
        side = int(rng.integers(4))
        depth = float(rng.uniform(0.25, 0.55))
        # a phone/hand-like blob coming in from one edge
        cxy = [(float(rng.uniform(0.1, 0.9)) * w4, 0), (w4, float(rng.uniform(0.1, 0.9)) * h4),
               (float(rng.uniform(0.1, 0.9)) * w4, h4), (0, float(rng.uniform(0.1, 0.9)) * h4)][side]
        ax, ay = float(rng.uniform(0.25, 0.5)) * w4, float(rng.uniform(0.25, 0.5)) * h4
        cv2.ellipse(sm, (int(cxy[0]), int(cxy[1])), (int(ax), int(ay)), float(rng.uniform(0, 180)),
                    0, 360, 1.0, -1)
        sm = cv2.GaussianBlur(sm, (0, 0), float(rng.uniform(6, 16)))
        sm = cv2.resize(sm, (W, H), interpolation=cv2.INTER_LINEAR)
        illum *= 1 - depth * sm
        tags.append('shadow')
    img *= illum[..., None]
    gains = np.array([float(rng.uniform(0.95, 1.06)), 1.0, float(rng.uniform(0.88, 1.03))], np.float32)
    img *= gains[None, None, :]
    if flags['blur']:
        if rng.random() < 0.7:
            img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.8, 1.6)))
        else:
            L = int(rng.integers(3, 7))
            k = np.zeros((L, L), np.float32)
            k[L // 2, :] = 1.0 / L
            Mk = cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
            k = cv2.warpAffine(k, Mk, (L, L))
            k /= max(k.sum(), 1e-6)
            img = cv2.filter2D(img, -1, k)
        tags.append('blur')
    else:
        img = cv2.GaussianBlur(img, (0, 0), 0.5)
    noise = rng.normal(0, float(rng.uniform(0.006, 0.02)), (H, W, 1)).astype(np.float32)
    cn = rng.normal(0, 0.006, (H // 2, W // 2, 3)).astype(np.float32)
    img += noise + cv2.resize(cn, (W, H))
    img = np.clip(img, 0, 1) ** float(rng.uniform(0.9, 1.1))
    return (img * 255 + 0.5).astype(np.uint8)


# --------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------

SIZES = [(1280, 960), (960, 1280), (1600, 1200)]


def make_photo(args):
    seed, i, plan_i, bank, out_dir = args
    rng = np.random.default_rng([seed, i])
    p = plan_i
    tags = []
    fid, ftext = bank[p['framed']]
    lang = 'zh' if is_zh(ftext) else 'en'
    subj = fid.split('-')[1] if fid.count('-') >= 2 else 'math'
    W, H = SIZES[p['size']]
    rot = p['rot']
    L_text = W if rot in (0, 180) else H
    ncol = 2 if p['two_col'] else 1
    s = float(rng.uniform(0.8, 1.0))
    if ncol == 1:
        col_ph = float(rng.uniform(0.6, 0.86)) * L_text
        gut_ph = 0.0
    else:
        col_ph = float(rng.uniform(0.42, 0.55)) * L_text
        gut_ph = float(rng.uniform(0.04, 0.08)) * L_text
    em_lo, em_hi = (31.0, 52.0) if lang == 'en' else (27.0, 50.0)
    em_hi = max(em_lo, min(em_hi, col_ph / 13.0))
    em_ph = float(rng.uniform(em_lo, em_hi))
    em = float(int(round(em_ph / s)))

    # neighbours: mostly same language, often same subject
    others = [j for j in range(len(bank)) if j != p['framed']]
    same_l = [j for j in others if is_zh(bank[j][1]) == (lang == 'zh')]
    same_s = [j for j in same_l if bank[j][0].split('-')[1:2] == [subj]]
    n_total = int(rng.integers(10, 15)) if ncol == 2 else int(rng.integers(6, 11))
    header = bool(p['header'])
    k = int(rng.integers(0, 2)) if header else int(rng.integers(1, 7 if ncol == 1 else 5))
    if not header and rng.random() < 0.08:
        k = 0
    k = min(k, n_total - 2)
    chosen = []

    def add_neighbours(n):
        target = len(chosen) + n
        while len(chosen) < target:
            r = rng.random()
            pool = same_s if (r < 0.45 and same_s) else (same_l if (r < 0.88 and same_l) else others)
            j = pool[int(rng.integers(len(pool)))]
            if j not in chosen:
                chosen.append(j)

    add_neighbours(n_total - 1)

    # per-slot working space
    work_slots, ding_slot = [], None
    near = [j for j in (k, k + 1, k - 1) if 0 <= j < n_total]
    if p['working']:
        work_slots = sorted(set(near[int(rng.integers(len(near)))] for _ in range(int(rng.integers(1, 3)))))
    if p['dingzheng']:
        ding_slot = near[int(rng.integers(len(near)))] if rng.random() < 0.7 else k
    base_gap = float(rng.uniform(0.35, 1.3))
    gaps = []
    for j in range(n_total + 40):
        g = base_gap * float(rng.uniform(0.8, 1.25))
        if j in work_slots:
            g = max(g, float(rng.uniform(2.6, 3.6)))
        if j == ding_slot:
            g = max(g, 0.0) + float(rng.uniform(2.9, 3.8))
        gaps.append(g)

    head_lang = lang if rng.random() < 0.75 else ('zh' if lang == 'en' else 'zh')
    if lang == 'zh':
        cjk_key = 'serif_cjk' if rng.random() < 0.7 else 'sans_cjk'
        lat_key = pick(rng, ['lserif', 'lserif', 'dserif', 'lsans'])
    else:
        cjk_key = 'serif_cjk'
        lat_key = pick(rng, ['lserif', 'dserif', 'lsans', 'dsans'])
    bold_map = {'serif_cjk': 'serif_cjk_b', 'sans_cjk': 'sans_cjk_b', 'lserif': 'lserif_b',
                'dserif': 'dserif_b', 'lsans': 'lsans_b', 'dsans': 'dsans_b'}
    typo = Typo(lang, lat_key, cjk_key)
    typo_b = Typo(lang, bold_map[lat_key], bold_map[cjk_key])
    slot_style = pick(rng, ['bracket', 'line', 'none', 'mix', 'bracket', 'mix'])
    cfg = dict(lang=lang, head_lang=head_lang, em=em, lh=em * float(rng.uniform(1.5, 1.9)),
               asc=0.92 * em, desc=0.26 * em, col_w=col_ph / s, gutter=gut_ph / s, ncol=ncol,
               typo=typo, typo_b=typo_b, typo_num=typo_b if rng.random() < 0.5 else typo,
               hanging=bool(rng.random() < 0.6), pgap=0.3 * em,
               blank_w=em * float(rng.uniform(3.0, 4.5)), bracket_in=float(rng.uniform(3.0, 5.0)),
               ans_line=float(rng.uniform(6, 11)), num_style=p['num_style'], score_note=p['score_note'],
               slot_style=slot_style, header=header, sections=p['sections'], subject=subj,
               first_num=int(rng.integers(1, 14)) if not header else 1, gaps=gaps,
               margin_l=em * float(rng.uniform(3.0, 9.0)), margin_r=em * float(rng.uniform(2.5, 8.0)),
               margin_t=em * float(rng.uniform(2.0, 4.5)), margin_b=em * float(rng.uniform(3.0, 8.0)))
    aspect = float(rng.uniform(1.2, 1.45))
    while True:
        # more problems until the sheet has a page-like shape
        order = chosen[:k] + [p['framed']] + chosen[k:]
        texts = [bank[j] for j in order]
        page = build_page(cfg, texts, k, rng)
        if page['PH'] >= aspect * page['PW'] or len(chosen) >= n_total + 30:
            break
        add_neighbours(2)
    probs = page['probs']
    boxes = [pr['box'] for pr in probs]
    fi = k
    em_range = (25.0, 54.0) if lang == 'zh' else (29.0, 57.0)
    Hm, cam = fit_camera(boxes, fi, W, H, rot, s, em, rng,
                         float(rng.uniform(0.03, 0.07)) if p['persp'] else 0.0,
                         float(rng.choice([3.0, 5.0, 8.0])), em_range)
    if os.environ.get('MAKE_PHOTOS_DEBUG'):
        fq_ = cam['quads'][fi]
        print('nb%03d %dx%d rot=%d em_px=%.1f framed=%s centre=(%.0f,%.0f) page=%.0fx%.0f' % (
            i + 1, W, H, rot, cam['em_px'], fid, fq_[:, 0].mean(), fq_[:, 1].mean(), page['PW'], page['PH']),
            file=sys.stderr)
    tags.append('rot%d' % rot)
    tags.append('size_%dx%d' % (W, H))
    if cam['persp']:
        tags.append('perspective')
    if abs(cam['tilt']) > 3:
        tags.append('tilt_gt3deg')
    tags.append('framed_' + lang)
    if has_supsub(ftext):
        tags.append('framed_supsub')
    if '___' in ftext:
        tags.append('framed_blank_rule')
    if len(ftext) > 60:
        tags.append('framed_long_gt60')
    if probs[fi]['nlines'] > 1:
        tags.append('framed_wrapped')
    tags.append('two_column' if ncol == 2 else 'one_column')
    tags.append('num_style_' + p['num_style'])
    if p['score_note']:
        tags.append('printed_score_note')
    if probs[fi]['slot_kind']:
        tags.append('framed_slot_' + probs[fi]['slot_kind'])
    tags.append('print_font_' + ('serif' if cjk_key == 'serif_cjk' and lang == 'zh' else
                                 ('sans' if lang == 'zh' else lat_key)))

    # crop = part of page that can be seen
    inv = np.linalg.inv(Hm)
    fq = project(inv, [[0, 0], [W, 0], [W, H], [0, H]])
    ox = int(max(0, math.floor(fq[:, 0].min()) - 4))
    oy = int(max(0, math.floor(fq[:, 1].min()) - 4))
    x1 = int(min(page['PW'], math.ceil(fq[:, 0].max()) + 4))
    y1 = int(min(page['PH'], math.ceil(fq[:, 1].max()) + 4))
    canvas = Canvas(ox, oy, max(8, x1 - ox), max(8, y1 - oy))
    draw_print(canvas, page['items'], 255)

    def vis_rect(r, margin=4):
        q = project(Hm, corners(r))
        c = q.mean(0)
        return margin <= c[0] <= W - margin and margin <= c[1] <= H - margin

    if page['header'] and vis_rect(page['header']['title'], 10):
        tags.append('header_visible')
    vis_probs = [j for j in range(len(probs)) if j == fi or cam['vis'].get(j, 0) >= 0.3]
    part_probs = [j for j in range(len(probs)) if j != fi and cam['vis'].get(j, 0) > 0.02]
    tags.append('neighbours_visible_%d' % min(3, len([j for j in vis_probs if j != fi])))

    # ------------------------------------------------------------ annotations
    fbox = probs[fi]['box']
    protect = [(fbox[0] - 0.15 * em, fbox[1] - 0.1 * em, fbox[2] + 0.15 * em, fbox[3] + 0.1 * em)]
    placer = Placer(page['print_rects'], protect, Hm, W, H, em,
                    (0.4 * em, 0.4 * em, page['PW'] - 0.4 * em, page['PH'] - 0.4 * em))
    teacher_col = (30, 135, 65) if p['green'] else (205, 28, 38)
    teacher_col = tuple(int(np.clip(v + rng.integers(-12, 13), 0, 255)) for v in teacher_col)
    tags.append('teacher_green_pen' if p['green'] else 'teacher_red_pen')
    stu_kind = pick(rng, ['blue', 'blue', 'blue', 'black', 'black', 'pencil'])
    stu_col = {'blue': (30, 50, 150), 'black': (28, 28, 38), 'pencil': (85, 85, 92)}[stu_kind]
    stu_mask = 'pencil' if stu_kind == 'pencil' else 'student'
    tags.append('student_' + stu_kind)
    corr_mask = 'student2' if rng.random() < 0.4 else stu_mask
    corr_col = pick(rng, [(30, 50, 150), (28, 28, 38)]) if corr_mask == 'student2' else stu_col
    sw = make_writer(rng, 'student', lang)
    tw = make_writer(rng, 'teacher', lang)
    pen_w = max(2.0, em * float(rng.uniform(0.06, 0.09)))
    spen_w = max(1.5, em * float(rng.uniform(0.04, 0.06)))
    annot = []        # (tag, rect)
    written = []      # (rect, j, kind)

    def note(tag, r):
        if r is not None:
            annot.append((tag, r))
            placer.add(r)

    # student answers in slots / blanks
    if p['answers']:
        for j in vis_probs:
            pr = probs[j]
            if pr['slot'] is not None and rng.random() < 0.9:
                sr = pr['slot']
                if pr['slot_kind'] == 'bracket':
                    a = pick(rng, ANS_LETTER) if rng.random() < 0.5 else pick(rng, ANS_NUM)
                else:
                    a = pick(rng, ANS_ZH + ANS_NUM) if lang == 'zh' else pick(rng, ANS_EN + ANS_NUM)
                sz = em * float(rng.uniform(0.85, 1.1))
                wa = hand_measure(a, sz, sw)
                room = sr[2] - sr[0]
                if wa > room and pr['slot_kind'] == 'bracket':
                    sz *= max(0.6, room / wa)
                    wa = hand_measure(a, sz, sw)
                if pr['slot_kind'] == 'bracket':
                    x = sr[0] + max(0.0, (room - wa) / 2)
                else:
                    x = sr[0] + em * float(rng.uniform(0.3, 1.2))
                r = hand_text(canvas, stu_mask, a, x, sr[3] - 0.22 * em, sz, sw, rng)
                written.append((r, j, 'slot'))
                note('student_answers', r)
            for br in pr['blanks']:
                if rng.random() < 0.85:
                    a = blank_answer(pr['text'], rng)
                    sz = em * float(rng.uniform(0.85, 1.05))
                    wa = hand_measure(a, sz, sw)
                    x = br[0] + max(0.0, (br[2] - br[0] - wa) / 2)
                    r = hand_text(canvas, stu_mask, a, x, br[3] - 0.2 * em, sz, sw, rng)
                    written.append((r, j, 'blank'))
                    note('student_answers', r)
        if p['name_field'] and page['header'] and 'name' in page['header']['fields']:
            fr = page['header']['fields']['name']
            nm = pick(rng, ZH_NAMES) if head_lang == 'zh' else pick(rng, EN_NAMES)
            r = hand_text(canvas, stu_mask, nm, fr[0] + 0.5 * em, fr[3] - 0.2 * em, em * 1.05, sw, rng)
            note('student_name', r)
            if 'class' in page['header']['fields'] and rng.random() < 0.7:
                fr = page['header']['fields']['class']
                r = hand_text(canvas, stu_mask, pick(rng, ['8(3)', '3班', '7-2', '九(1)']),
                              fr[0] + 0.4 * em, fr[3] - 0.2 * em, em, sw, rng)
                note('student_name', r)

    # working lines (between problems)
    work_written = []
    for j in range(len(probs)):
        pr = probs[j]
        g = pr['gap']
        if j == ding_slot:
            continue
        if j in work_slots and g[3] - g[1] > 2.0 * em:
            nl = max(1, min(3, int((g[3] - g[1] - 0.4 * em) / (1.3 * em))))
            y = g[1] + 1.35 * em
            x = pr['x_ind'] + em * float(rng.uniform(0.0, 1.5))
            for ln in working_lines(rng, lang, nl):
                sz = em * float(rng.uniform(0.8, 1.0))
                r = hand_text(canvas, stu_mask, ln, x, y, sz, sw, rng)
                work_written.append((r, j))
                note('student_working', r)
                y += 1.25 * em
    # 订正 correction under a problem
    if ding_slot is not None:
        pr = probs[ding_slot]
        g = pr['gap']
        x = pr['x_ind'] + em * float(rng.uniform(0.0, 1.0))
        y = g[1] + 1.3 * em
        sz = em * float(rng.uniform(0.85, 1.05))
        lab = '订正：' if (lang == 'zh' or rng.random() < 0.6) else 'Correction:'
        r0 = hand_text(canvas, corr_mask, lab, x, y, sz, sw, rng)
        lines = working_lines(rng, lang, int(rng.integers(1, 3)))
        r1 = hand_text(canvas, corr_mask, lines[0], r0[2] + 0.3 * em, y, sz, sw, rng)
        rr = [r0, r1]
        if len(lines) > 1 and g[3] - y > 1.6 * em:
            rr.append(hand_text(canvas, corr_mask, lines[1], r0[2] + 0.3 * em, y + 1.25 * em, sz, sw, rng))
        note('student_dingzheng', rect_union(rr))
        work_written.append((rr[-1], ding_slot))

    # crossed-out answer with a new one beside it
    if p['strikeout']:
        cands = [w_ for w_ in written if w_[2] == 'slot'] + [(r, j, 'work') for r, j in work_written]
        if not cands:
            # write an answer in a neighbour's gap first
            for j in vis_probs:
                if j == fi:
                    continue
                g = probs[j]['gap']
                a = pick(rng, ANS_NUM)
                sz = em * 0.95
                wa = hand_measure(a, sz, sw)
                spot = placer.find(wa, 1.1 * em, [(probs[j]['box'][2] - wa, g[1] + 0.7 * em)], em, rng, 2.0)
                if spot:
                    r = hand_text(canvas, stu_mask, a, spot[0], spot[3] - 0.2 * em, sz, sw, rng)
                    cands.append((r, j, 'gap'))
                    note('student_answers', r)
                    break
        if cands:
            r, j, kind_ = cands[int(rng.integers(len(cands)))]
            mark_strike(canvas, stu_mask, r, spen_w * 1.1, rng, em)
            a = pick(rng, ANS_LETTER if (kind_ == 'slot' and probs[j]['slot_kind'] == 'bracket' and rng.random() < 0.5)
                     else ANS_NUM)
            sz = em * float(rng.uniform(0.8, 1.0))
            wa = hand_measure(a, sz, sw)
            anchors = [(r[2] + 0.4 * em + wa / 2, (r[1] + r[3]) / 2), ((r[0] + r[2]) / 2, r[1] - 0.6 * em),
                       ((r[0] + r[2]) / 2, r[3] + 0.7 * em)]
            spot = placer.find(wa, 1.1 * em, anchors, 0.6 * em, rng, 3.0)
            if spot:
                r2 = hand_text(canvas, corr_mask, a, spot[0], spot[3] - 0.2 * em, sz, sw, rng)
                note('student_strikeout', rect_union([r, r2]))

    # arrow pointing at the framed problem
    if p['arrow']:
        nr = probs[fi]['num_rect']
        tip_opts = [((nr[0] - 0.25 * em, (nr[1] + nr[3]) / 2), (-1, 0.6)),
                    ((fbox[2] + 0.3 * em, (fbox[1] + fbox[3]) / 2), (1, 0.5)),
                    (((fbox[0] + fbox[2]) / 2, fbox[3] + 0.3 * em), (0.5, 1))]
        for oi in rng.permutation(len(tip_opts)):
            tip, dirn = tip_opts[int(oi)]
            L = em * float(rng.uniform(2.2, 3.5))
            tail = (tip[0] + dirn[0] * L, tip[1] + dirn[1] * L)
            t2 = (tip[0] + dirn[0] * 0.5 * em, tip[1] + dirn[1] * 0.5 * em)
            r = (min(t2[0], tail[0]) - 0.2 * em, min(t2[1], tail[1]) - 0.2 * em,
                 max(t2[0], tail[0]) + 0.2 * em, max(t2[1], tail[1]) + 0.2 * em)
            pg = placer.page
            if (placer._ov(np.array([r]), placer.X)[0] > 0 or not placer.inside(np.array([r]))[0]
                    or r[0] < pg[0] or r[1] < pg[1] or r[2] > pg[2] or r[3] > pg[3]):
                continue
            if placer._ov(np.array([r]), placer.P)[0] > 0.35 * (r[2] - r[0]) * (r[3] - r[1]):
                continue
            if placer._ov(np.array([r]), placer.A)[0] > 0:
                continue
            ar = mark_arrow(canvas, stu_mask, tail, tip, spen_w * 1.2, rng)
            note('student_arrow', ar)
            if rng.random() < 0.5:
                q = pick(rng, ['?', '??', '不会', '问']) if lang == 'zh' else pick(rng, ['?', '??', 'help'])
                wq = hand_measure(q, em * 0.9, sw)
                spot = placer.find(wq, em, [(tail[0] + dirn[0] * (0.3 * em + wq / 2), tail[1] + dirn[1] * 0.7 * em)],
                                   0.4 * em, rng, 4.0)
                if spot is not None and placer._ov(np.array([spot]), placer.P)[0] == 0:
                    note('student_arrow', hand_text(canvas, stu_mask, q, spot[0], spot[3] - 0.2 * em,
                                                    em * 0.9, sw, rng))
            break

    # teacher ticks / crosses
    marked = []
    targets = sorted(vis_probs, key=lambda j: (abs(j - fi), j))
    n_tc = 0
    for kind_ in (('tick',) if p['tick'] else ()) + (('cross',) if p['cross'] else ()):
        cnt = int(rng.integers(1, 3)) if kind_ == 'tick' else 1
        for _ in range(cnt):
            free = [j for j in targets if j not in marked]
            if not free:
                break
            j = free[0] if (rng.random() < 0.45 or len(free) == 1) else free[int(rng.integers(1, len(free)))]
            pr = probs[j]
            big = j != fi and rng.random() < 0.5
            size = em * (float(rng.uniform(2.2, 3.6)) if big else float(rng.uniform(1.3, 2.0)))
            if big:     # big mark over a neighbour
                bx = pr['box']
                spot = placer.find(size, size, [((bx[0] + bx[2]) / 2, (bx[1] + bx[3]) / 2), (bx[2] - size, bx[1])],
                                   em, rng, 0.0)
            else:
                anchors = []
                if pr['slot'] is not None:
                    anchors.append(((pr['slot'][0] + pr['slot'][2]) / 2, (pr['slot'][1] + pr['slot'][3]) / 2))
                anchors.append((pr['end'][0] + 0.6 * em + size / 2, pr['end'][1] - 0.4 * em))
                anchors.append((pr['col'][1] + size / 2 + 0.2 * em, (pr['box'][1] + pr['box'][3]) / 2))
                anchors.append((pr['box'][0] - size / 2 - 0.2 * em, (pr['box'][1] + pr['box'][3]) / 2))
                if j == fi:
                    placer.X = np.zeros((0, 4))
                    # may overlap the answer slot of the framed problem, not its text
                    prot = [r_ for r_ in pr['lines'] if pr['slot'] is None or
                            not (abs(r_[0] - pr['slot'][0]) < 2 * em and abs(r_[1] - pr['slot'][1]) < 2)]
                    prot = [(r_[0], r_[1] + 0.1 * em, r_[2], r_[3] - 0.1 * em) for r_ in prot] + [pr['num_rect']]
                    placer.X = np.array(prot, np.float64).reshape(-1, 4)
                spot = placer.find(size, size, anchors, 0.8 * em, rng, 1.5)
                placer.X = np.array(protect, np.float64).reshape(-1, 4)
            if spot is None:
                continue
            if kind_ == 'tick':
                r = mark_tick(canvas, 'teacher', spot[0], spot[1], size, pen_w, rng)
            else:
                r = mark_cross(canvas, 'teacher', spot[0] + 0.1 * size, spot[1] + 0.1 * size, size * 0.8, pen_w, rng)
            note('teacher_' + kind_, r)
            if j == fi:
                tags.append('teacher_mark_on_framed')
            marked.append(j)
            n_tc += 1

    def teacher_text(txt, sz, anchors, spread, tag, circle=False, print_cost=1.5):
        wa = hand_measure(txt, sz, tw)
        pad = 0.6 * sz if circle else 0.1 * sz
        spot = placer.find(wa + 2 * pad, sz * 1.15 + 2 * pad, anchors, spread, rng, print_cost)
        if spot is None:
            return None
        r = hand_text(canvas, 'teacher', txt, spot[0] + pad, spot[3] - pad - 0.25 * sz, sz, tw, rng, pen=pen_w)
        if circle:
            r = mark_ellipse(canvas, 'teacher', r, pen_w * 0.9, rng)
        note(tag, r)
        return r

    def margin_anchors(j):
        pr = probs[j]
        bx = pr['box']
        return [(pr['col'][1] + 1.2 * em, (bx[1] + bx[3]) / 2), (bx[0] - 1.3 * em, (bx[1] + bx[3]) / 2),
                (pr['end'][0] + 2.0 * em, pr['end'][1] - 0.3 * em), ((bx[0] + bx[2]) / 2, bx[3] + 0.8 * em)]

    if p['t_score']:
        for _ in range(int(rng.integers(1, 3))):
            j = pick(rng, targets[:3])
            txt = pick(rng, SCORE_NOTES)
            if txt == '✓':
                size = em * 1.2
                spot = placer.find(size, size, margin_anchors(j), em, rng, 1.5)
                if spot:
                    note('teacher_score_note', mark_tick(canvas, 'teacher', spot[0], spot[1], size, pen_w * 0.8, rng))
            else:
                teacher_text(txt, em * float(rng.uniform(1.0, 1.5)), margin_anchors(j), em, 'teacher_score_note')
    if p['t_circled']:
        j = pick(rng, targets[:3])
        teacher_text(pick(rng, CIRCLED), em * float(rng.uniform(1.0, 1.4)), margin_anchors(j), em,
                     'teacher_circled_score', circle=True)
    if p['t_comment']:
        j = pick(rng, targets[:3])
        pool = ZH_COMMENTS if (lang == 'zh' and rng.random() < 0.75) else EN_COMMENTS
        teacher_text(pick(rng, pool), em * float(rng.uniform(0.95, 1.3)), margin_anchors(j), 1.2 * em,
                     'teacher_comment')
    if p['t_underline']:
        cands = [r for r, j in work_written] + [w_[0] for w_ in written if w_[1] != fi]
        if cands:
            r = cands[int(rng.integers(len(cands)))]
            ur = mark_underline(canvas, 'teacher', r[0] - 0.1 * em, r[2] + 0.1 * em, r[3] + 0.15 * em,
                                pen_w * 0.8, rng, wavy=bool(rng.random() < 0.4), em=em)
            note('teacher_underline', ur)
            if rng.random() < 0.5:
                teacher_text(pick(rng, ['?', '×', '错']), em * 1.1, [(r[2] + 1.0 * em, (r[1] + r[3]) / 2)],
                             0.5 * em, 'teacher_underline')
    if p['t_qmark']:
        j = pick(rng, targets[:3])
        pr = probs[j]
        bx = pr['box']
        anchors = [(bx[0] - 1.2 * em, (bx[1] + bx[3]) / 2), (pr['col'][1] + 1.0 * em, (bx[1] + bx[3]) / 2)]
        teacher_text('?', em * float(rng.uniform(1.5, 2.4)), anchors, 0.6 * em, 'teacher_margin_qmark')
    if p['t_top'] and page['header']:
        hd = page['header']
        fr = hd['fields'].get('score')
        sz = em * float(rng.uniform(2.0, 3.2))
        txt = pick(rng, TOP_SCORES)
        anchors = [(hd['title'][2] + 2.5 * em, (hd['title'][1] + hd['title'][3]) / 2),
                   (hd['title'][0] - 2.5 * em, (hd['title'][1] + hd['title'][3]) / 2)]
        if fr is not None:
            anchors.insert(0, ((fr[0] + fr[2]) / 2 + 0.5 * em, fr[1] - 0.2 * em))
        r = teacher_text(txt, sz, anchors, 1.0 * em, 'teacher_top_score', circle=bool(rng.random() < 0.4),
                         print_cost=0.6)
        if r is not None and rng.random() < 0.5:
            mark_underline(canvas, 'teacher', r[0], r[2], r[3] + 0.1 * em, pen_w, rng, em=em)
            mark_underline(canvas, 'teacher', r[0] + 0.2 * em, r[2], r[3] + 0.35 * em, pen_w, rng, em=em)

    # stamps and stickers (never on the framed problem)
    def stamp_anchors():
        a = []
        for j in part_probs[:4]:
            bx = probs[j]['box']
            a.append(((bx[0] + bx[2]) / 2, (bx[1] + bx[3]) / 2))
            a.append((bx[2], bx[1]))
        a.append((fbox[2] + 2.5 * em, fbox[1]))
        a.append((fbox[0] - 2.5 * em, fbox[3]))
        return a

    if p['stamp']:
        D = em * float(rng.uniform(3.0, 5.0))
        arr = render_round_stamp(D, rng, lang)
        S = arr.shape[0]
        spot = placer.find(S * 0.8, S * 0.8, stamp_anchors(), 2.5 * em, rng, 0.15)
        if spot:
            canvas.paste_max('stamp', arr, spot[0] - 0.1 * S, spot[1] - 0.1 * S)
            note('stamp_checked', spot)
    if p['star']:
        D = em * float(rng.uniform(1.6, 3.0))
        arr = render_sticker(D, rng, 'star')
        S = arr.shape[0]
        spot = placer.find(S * 0.85, S * 0.85, stamp_anchors(), 2.5 * em, rng, 0.2)
        if spot:
            canvas.stickers.append((arr, spot[0] - 0.075 * S, spot[1] - 0.075 * S))
            note('sticker_star', spot)
    if p['smiley']:
        D = em * float(rng.uniform(2.0, 3.5))
        sticker = rng.random() < 0.5
        arr = render_sticker(D, rng, 'smiley') if sticker else render_smiley_stamp(D, rng)
        S = arr.shape[0]
        spot = placer.find(S * 0.85, S * 0.85, stamp_anchors(), 2.5 * em, rng, 0.2)
        if spot:
            if sticker:
                canvas.stickers.append((arr, spot[0] - 0.075 * S, spot[1] - 0.075 * S))
            else:
                canvas.paste_max('smiley', arr, spot[0] - 0.075 * S, spot[1] - 0.075 * S)
            note('smiley', spot)

    for tag, r in annot:
        if vis_rect(r):
            tags.append(tag)
    # handwriting / marks inside the framed box
    fb = np.array([fbox])
    if any(placer._ov(fb, np.array([r]))[0] > 0 for tag, r in annot
           if tag.startswith('student') or tag.startswith('teacher')):
        tags.append('ink_inside_framed_box')

    # ------------------------------------------------------------ compose
    paper = (float(rng.uniform(236, 252)), float(rng.uniform(234, 250)), float(rng.uniform(222, 245)))
    print_ink = float(rng.uniform(18, 60))
    stamp_col = pick(rng, [(200, 30, 50), (215, 45, 60), (190, 20, 40)])
    inks = [('print', (print_ink, print_ink, print_ink * 1.05), float(rng.uniform(0.88, 1.0))),
            ('pencil', stu_col, 0.8), ('student', stu_col, 0.95), ('student2', corr_col, 0.95),
            ('teacher', teacher_col, 0.93), ('stamp', stamp_col, 0.8),
            ('smiley', pick(rng, [(200, 30, 50), (40, 70, 170)]), 0.8)]
    crease = None
    if p['crease']:
        # through a point near the framed problem, roughly along or across the lines
        cx = (fbox[0] + fbox[2]) / 2 + float(rng.normal(0, 4)) * em
        cy = (fbox[1] + fbox[3]) / 2 + float(rng.normal(0, 4)) * em
        ang = (0.0 if rng.random() < 0.5 else math.pi / 2) + float(rng.normal(0, 0.08))
        crease = ((cx, cy), ang, float(rng.uniform(0.08, 0.18)))
        tags.append('crease')
    page_rgb = compose_page(canvas, rng, inks, paper, crease)
    flags = dict(uneven_light=p['uneven'], shadow=p['shadow'], blur=p['blur'])
    img = capture(page_rgb, canvas, Hm, W, H, rng, flags, tags)
    img = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
    if rng.random() < 0.3:       # earlier compression (messaging app) before the final one
        ok, buf = cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(50, 80))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        tags.append('double_jpeg')
    q = p['jpeg_q']
    tags.append('jpeg_q%02d_%02d' % ((q // 10) * 10, (q // 10) * 10 + 9))
    name = 'nb%03d' % (i + 1)
    ok, buf = cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, q])
    with open(os.path.join(out_dir, name + '.jpg'), 'wb') as f:
        f.write(buf.tobytes())
    uniq = sorted(set(tags))
    return name, fid, ftext, uniq


# --------------------------------------------------------------------------
# run plan
# --------------------------------------------------------------------------

def priority_item(text):
    return has_supsub(text) or '___' in text or len(text) > 60


def make_plan(bank, count, seed):
    rng = np.random.default_rng(seed)
    if count > len(bank):
        sys.exit('count %d exceeds bank size %d (each item is framed at most once)' % (count, len(bank)))
    pri = [j for j, (_, t) in enumerate(bank) if priority_item(t)]
    rest = [j for j, (_, t) in enumerate(bank) if not priority_item(t)]
    if count <= len(pri):
        chosen = [pri[j] for j in rng.permutation(len(pri))[:count]]
    else:
        chosen = pri + [rest[j] for j in rng.permutation(len(rest))[:count - len(pri)]]
    framed = [chosen[j] for j in rng.permutation(len(chosen))]

    def frac(f):
        sel = np.zeros(count, bool)
        sel[rng.permutation(count)[:int(round(f * count))]] = True
        return sel

    def spread(values, weights):
        wts = np.array(weights, float) / sum(weights)
        reps = [int(round(w * count)) for w in wts]
        lst = []
        for v, n in zip(values, reps):
            lst += [v] * n
        while len(lst) < count:
            lst.append(values[0])
        lst = lst[:count]
        return [lst[j] for j in rng.permutation(count)]

    rot = spread([0, 180, 90, 270], [0.70, 0.12, 0.09, 0.09])
    size = spread([0, 1, 2], [0.35, 0.40, 0.25])
    nums = spread(NUM_STYLES, [1] * len(NUM_STYLES))
    cols = {k: frac(f) for k, f in [
        ('two_col', 0.35), ('header', 0.35), ('sections', 0.45), ('score_note', 0.35), ('persp', 0.6),
        ('uneven', 0.65), ('shadow', 0.35), ('blur', 0.4), ('crease', 0.3), ('green', 0.25),
        ('tick', 0.6), ('cross', 0.45), ('t_score', 0.5), ('t_circled', 0.3), ('t_comment', 0.5),
        ('t_underline', 0.3), ('t_qmark', 0.25), ('answers', 0.85), ('strikeout', 0.35),
        ('dingzheng', 0.35), ('arrow', 0.3), ('working', 0.5), ('stamp', 0.25), ('star', 0.2),
        ('smiley', 0.2), ('t_top', 0.8), ('name_field', 0.8)]}
    qs = rng.integers(60, 93, count)
    plan = []
    for i in range(count):
        e = dict(framed=int(framed[i]), rot=int(rot[i]), size=int(size[i]), num_style=nums[i],
                 jpeg_q=int(qs[i]))
        for k, v in cols.items():
            e[k] = bool(v[i])
        if e['t_underline']:
            e['working'] = True
        plan.append(e)
    return plan


def _worker(args):
    cv2.setNumThreads(1)
    return make_photo(args)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True, help='question bank (JSON lines with id, question)')
    ap.add_argument('out_dir')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=401)
    ap.add_argument('--jobs', type=int, default=1)
    a = ap.parse_args()
    t0 = time.time()
    bank = []
    with open(a.bank, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line:
                o = json.loads(line)
                bank.append((str(o['id']), str(o['question'])))
    os.makedirs(a.out_dir, exist_ok=True)
    font_files()
    plan = make_plan(bank, a.count, a.seed)
    tasks = [(a.seed, i, plan[i], bank, a.out_dir) for i in range(a.count)]
    if a.jobs > 1:
        ctx = mp.get_context('fork') if 'fork' in mp.get_all_start_methods() else mp.get_context()
        with ctx.Pool(a.jobs) as pool:
            results = list(pool.imap(_worker, tasks, chunksize=1))
    else:
        results = [make_photo(t) for t in tasks]
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['qid', 'text'])
        for name, fid, text, _ in results:
            w.writerow([name, text])
    with open(os.path.join(a.out_dir, 'queries.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for name, fid, text, _ in results:
            w.writerow([name, text, fid, 'exact'])
    counts = {}
    for _, _, _, tags in results:
        for t in tags:
            counts[t] = counts.get(t, 0) + 1
    print('wrote %d photos to %s in %.1f s' % (len(results), a.out_dir, time.time() - t0))
    print('per-case counts (photos showing each case):')
    for t in sorted(counts):
        print('  %-28s %4d' % (t, counts[t]))


if __name__ == '__main__':
    main()
