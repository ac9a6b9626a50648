#!/usr/bin/env python3
"""s18: synthetic phone photos of printed homework worksheets.

Each photo frames one complete bank problem near the photo centre while
headers, neighbour lines, marks and a second column crowd it at ordinary
line spacing.  See README.md next to this file.

Photo i draws every random number from
numpy.random.SeedSequence([seed, i]), so a photo does not depend on
--jobs or --only.
"""
import argparse
import csv
import json
import math
import os
import re
import sys
import time

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

E = 48                      # body em on the page, in page pixels
THR_FRAC = 0.05             # other problems must be this * max(W, H) farther
EDGE = 4                    # framed problem must be >= this many px from edges
SAFE = 1.0                  # extra safety (px) applied by the generator

# ----------------------------------------------------------------- fonts
NOTO = '/usr/share/fonts/opentype/noto/'
LIB = '/usr/share/fonts/truetype/liberation/'
DV = '/usr/share/fonts/truetype/dejavu/'
FONT_FILES = {
    'sans_sc': (NOTO + 'NotoSansCJK-Regular.ttc', 'Noto Sans CJK SC'),
    'sans_sc_b': (NOTO + 'NotoSansCJK-Bold.ttc', 'Noto Sans CJK SC'),
    'serif_sc': (NOTO + 'NotoSerifCJK-Regular.ttc', 'Noto Serif CJK SC'),
    'serif_sc_b': (NOTO + 'NotoSerifCJK-Bold.ttc', 'Noto Serif CJK SC'),
    'mono_sc': (NOTO + 'NotoSansCJK-Regular.ttc', 'Noto Sans Mono CJK SC'),
    'mono_sc_b': (NOTO + 'NotoSansCJK-Bold.ttc', 'Noto Sans Mono CJK SC'),
    'lib_serif': (LIB + 'LiberationSerif-Regular.ttf', None),
    'lib_serif_b': (LIB + 'LiberationSerif-Bold.ttf', None),
    'lib_serif_i': (LIB + 'LiberationSerif-Italic.ttf', None),
    'lib_sans': (LIB + 'LiberationSans-Regular.ttf', None),
    'lib_sans_b': (LIB + 'LiberationSans-Bold.ttf', None),
    'lib_sans_i': (LIB + 'LiberationSans-Italic.ttf', None),
    'lib_narrow': (LIB + 'LiberationSansNarrow-Regular.ttf', None),
    'lib_narrow_b': (LIB + 'LiberationSansNarrow-Bold.ttf', None),
    'lib_mono': (LIB + 'LiberationMono-Regular.ttf', None),
    'lib_mono_b': (LIB + 'LiberationMono-Bold.ttf', None),
    'dv_sans': (DV + 'DejaVuSans.ttf', None),
    'dv_sans_b': (DV + 'DejaVuSans-Bold.ttf', None),
    'dv_sans_o': (DV + 'DejaVuSans-Oblique.ttf', None),
    'dv_serif': (DV + 'DejaVuSerif.ttf', None),
    'dv_serif_b': (DV + 'DejaVuSerif-Bold.ttf', None),
    'dv_cond': (DV + 'DejaVuSansCondensed.ttf', None),
    'dv_cond_b': (DV + 'DejaVuSansCondensed-Bold.ttf', None),
    'dv_mono': (DV + 'DejaVuSansMono.ttf', None),
    'dv_mono_b': (DV + 'DejaVuSansMono-Bold.ttf', None),
}
FALLBACKS = ['dv_sans', 'dv_serif', 'lib_sans', 'sans_sc']
FONT_INDEX = {}             # key -> (path, face index)
COVER = {}                  # key -> set of chars in the font's cmap
_FONT_CACHE = {}

SUP = {'²': '2', '³': '3', '¹': '1', '⁴': '4', 'ⁿ': 'n'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5',
       '₆': '6', '₇': '7', '₈': '8', '₉': '9', 'ₙ': 'n'}
NO_START = set('，。、；：？！）》」』】〉”’．,.;:?!)]}%℃·…—｝')
NO_END = set('（《「『【〈“‘([{｛')
CN_NUM = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九', '十',
          '十一', '十二', '十三', '十四', '十五', '十六', '十七', '十八',
          '十九', '二十']


def resolve_fonts(needed):
    """Find face indexes (SC face picked by name) and glyph coverage."""
    from fontTools.ttLib import TTFont, TTCollection
    for key, (path, family) in FONT_FILES.items():
        if path.endswith('.ttc'):
            coll = TTCollection(path, lazy=True)
            idx = None
            for i, f in enumerate(coll.fonts):
                if f['name'].getDebugName(1) == family:
                    idx = i
                    break
            if idx is None:
                raise SystemExit('font face %r not found in %s' % (family, path))
            cmap = coll.fonts[idx]['cmap'].getBestCmap()
        else:
            idx = 0
            cmap = TTFont(path, lazy=True)['cmap'].getBestCmap()
        FONT_INDEX[key] = (path, idx)
        COVER[key] = frozenset(chr(c) for c in cmap)


def font(key, size):
    k = (key, int(size))
    f = _FONT_CACHE.get(k)
    if f is None:
        path, idx = FONT_INDEX[key]
        f = ImageFont.truetype(path, int(size), index=idx)
        _FONT_CACHE[k] = f
    return f


def is_cjk(ch):
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or
            0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF or
            0x2460 <= o <= 0x24FF or ch in '“”‘’…—℃')


class Style:
    """Fonts of one page: a CJK face and an optional separate Latin face."""

    def __init__(self, cjk, latin, lang):
        self.cjk, self.latin, self.lang = cjk, latin, lang

    def key(self, base, bold):
        if base is None:
            return None
        return base + '_b' if bold and (base + '_b') in FONT_FILES else base

    def pick(self, ch, bold):
        cj = self.key(self.cjk, bold)
        la = self.key(self.latin, bold)
        if is_cjk(ch) and not (self.lang == 'en' and ch in '“”‘’—' and la and ch in COVER[la]):
            order = [cj] + FALLBACKS
        else:
            order = ([la] if la else []) + [cj] + FALLBACKS
        for k in order:
            if ch in COVER.get(k, ()):
                return k
        if ch == ' ':
            return order[0]
        raise RuntimeError('no font has glyph %r (U+%04X)' % (ch, ord(ch)))


_PIECE_CACHE = {}


def text_pieces(text, st, size, bold=False):
    """Split text into runs drawn with fonts that have the glyphs.

    Returns (runs, width, box): runs = [(dx, s, fontkey, fsize, dy)],
    box = (l, t, r, b) relative to pen origin on the baseline."""
    ck = (text, st.cjk, st.latin, st.lang, size, bold)
    hit = _PIECE_CACHE.get(ck)
    if hit is not None:
        return hit
    runs = []
    cur = None
    for ch in text:
        if ch in SUP:
            base, sc, dy = SUP[ch], 0.62, -0.40
        elif ch in SUB:
            base, sc, dy = SUB[ch], 0.62, 0.16
        else:
            base, sc, dy = ch, 1.0, 0.0
        k = st.pick(base, bold)
        fs = max(6, int(round(size * sc)))
        dyp = int(round(dy * size))
        if cur and cur[1] == k and cur[2] == fs and cur[3] == dyp:
            cur[0] += base
        else:
            cur = [base, k, fs, dyp]
            runs.append(cur)
    out = []
    x = 0.0
    l, t, r, b = 1e9, 1e9, -1e9, -1e9
    for s, k, fs, dyp in runs:
        f = font(k, fs)
        w = f.getlength(s)
        if s.strip():
            bl, bt, br, bb = f.getbbox(s, anchor='ls')
            l, t, r, b = min(l, x + bl), min(t, bt + dyp), max(r, x + br), max(b, bb + dyp)
        out.append((x, s, k, fs, dyp))
        x += w
    if l > r:
        l, t, r, b = 0, -0.5 * size, x, 0
    res = (out, x, (l, t, r, b))
    _PIECE_CACHE[ck] = res
    return res


# ----------------------------------------------------------------- atoms / wrapping
def make_atoms(text):
    atoms = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '_':
            j = i
            while j < n and text[j] == '_':
                j += 1
            atoms.append(('blank', text[i:j]))
            i = j
        elif ch == ' ':
            while i < n and text[i] == ' ':
                i += 1
            atoms.append(('space', ' '))
        elif is_cjk(ch):
            atoms.append(('cjk', ch))
            i += 1
        else:
            j = i
            while j < n and text[j] not in ' _' and not is_cjk(text[j]):
                j += 1
            atoms.append(('word', text[i:j]))
            i = j
    # a space before closing punctuation / a unit such as ℃ does not allow a break
    out = []
    for a in atoms:
        if out and out[-1][0] == 'space' and a[0] != 'space' and a[1][0] in NO_START:
            out[-1] = (a[0], ' ' + a[1])
        else:
            out.append(a)
    return out


def atom_width(a, st, size, bold, blank_style):
    if a[0] == 'blank':
        if blank_style[0] == 'rule':
            return blank_style[1] * size * max(3, len(a[1])) / 3.0
        return text_pieces(a[1], st, size, bold)[1]
    if a[0] == 'space':
        return text_pieces(' ', st, size, bold)[1] if st.lang == 'en' else 0.3 * size
    return text_pieces(a[1], st, size, bold)[1]


def wrap(atoms, widths, avail_first, avail_rest):
    """Greedy wrap with CJK kinsoku rules.  Returns list of (start, end)."""
    lines = []
    n = len(atoms)
    s = 0
    while s < n and atoms[s][0] == 'space':
        s += 1
    avail = avail_first
    w = 0.0
    i = s
    while i < n:
        aw = widths[i]
        if w + aw <= avail + 0.01 or i == s:
            w += aw
            i += 1
            continue
        if atoms[i][0] == 'space':
            lines.append((s, i))
            i += 1
            s = i
            w = 0.0
            avail = avail_rest
            continue
        b = i
        while b > s + 1 and ((atoms[b][0] in ('cjk', 'word') and atoms[b][1].lstrip()[:1] in NO_START) or
                             (atoms[b - 1][0] == 'cjk' and atoms[b - 1][1] in NO_END) or
                             (atoms[b - 1][0] == 'word' and atoms[b - 1][1][-1] in NO_END and atoms[b][0] != 'space')):
            b -= 1
        e = b
        while e > s and atoms[e - 1][0] == 'space':
            e -= 1
        lines.append((s, e))
        s = b
        while s < n and atoms[s][0] == 'space':
            s += 1
        avail = avail_rest
        w = sum(widths[s:i])
        if s > i:
            i = s
    e = n
    while e > s and atoms[e - 1][0] == 'space':
        e -= 1
    if e > s:
        lines.append((s, e))
    return lines


# ----------------------------------------------------------------- line objects
def new_line(role, pid=None):
    return {'role': role, 'pid': pid, 'pieces': [], 'rules': [], 'box': None,
            'y': 0.0, 'stem_box': None, 'label_box': None, 'color': (25, 25, 25)}


def union(b1, b2):
    if b1 is None:
        return b2
    if b2 is None:
        return b1
    return (min(b1[0], b2[0]), min(b1[1], b2[1]), max(b1[2], b2[2]), max(b1[3], b2[3]))


def put_text(line, x, y, text, st, size, bold=False, color=None):
    runs, w, box = text_pieces(text, st, size, bold)
    for dx, s, k, fs, dy in runs:
        line['pieces'].append((x + dx, y + dy, s, k, fs, color))
    b = (x + box[0], y + box[1], x + box[2], y + box[3])
    line['box'] = union(line['box'], b)
    return w, b


def put_rule(line, x0, x1, y, size, color=None):
    th = max(2.0, 0.05 * size)
    yy = y + 0.12 * size
    line['rules'].append((x0, x1, yy, th, color))
    b = (x0, yy - th / 2, x1, yy + th / 2)
    line['box'] = union(line['box'], b)
    return b


def shift_line(ln, dx, dy):
    ln['pieces'] = [(x + dx, y + dy, s, k, fs, c) for (x, y, s, k, fs, c) in ln['pieces']]
    ln['rules'] = [(a + dx, b + dx, y + dy, t, c) for (a, b, y, t, c) in ln['rules']]
    for key in ('box', 'stem_box', 'label_box'):
        if ln[key] is not None:
            b = ln[key]
            ln[key] = (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)
    ln['y'] += dy


def place_atoms(line, atoms, widths, x, y, st, size, bold, blank_style, extra_per_gap=0.0, color=None):
    box = None
    for a, w in zip(atoms, widths):
        if a[0] == 'blank' and blank_style[0] == 'rule':
            b = put_rule(line, x, x + w, y, size, color)
            box = union(box, b)
        elif a[0] == 'space':
            pass
        else:
            _, b = put_text(line, x, y, a[1], st, size, bold, color)
            box = union(box, b)
        x += w + extra_per_gap
    return x, box


# ----------------------------------------------------------------- page text material
TITLES_ZH = ['第一单元 练习（二）', '课后作业', '期中复习卷', '七年级数学 周末作业（三）', '第三章 单元测试',
             '课时练习 第5课时', '寒假作业（四）', '综合练习卷', '第二单元 检测题', '随堂练习']
TITLES_EN = ['Homework 3', 'Unit 2 Review', 'Worksheet 5: Mixed Practice', 'Weekly Quiz 4',
             'Chapter 6 Practice Test', 'Homework Sheet 7', 'Revision Exercise B', 'Unit 4 Homework']
SCHOOL_ZH = ['实验中学 2023—2024 学年第一学期', '育才学校 初二年级', '第二中学 高一 周练']
SCHOOL_EN = ['Greenfield Middle School', 'Year 8 Mathematics', 'Riverside High — Grade 9']
HEAD_ZH = ['一、选择题（每小题3分，共15分）', '二、解答题', '三、填空题（每空2分）', '二、计算题（共20分）',
           '一、基础知识', '四、应用题（每题6分，共24分）', '二、简答题', '一、填空题', '三、解答题（写出必要的过程）']
HEAD_EN = ['Part B: Short answers (2 points each)', 'Section A', 'Part 1: Calculation',
           'Section C — Long questions (10 marks)', 'Part A: Vocabulary', 'Section B (3 marks each)',
           'Part 2', 'Exercise 3']
INSTR_ZH = ['请把答案写在横线上。', '解答应写出文字说明、证明过程或演算步骤。', '本大题共5小题，请将答案填在括号内。',
            '注意：请在答题前认真审题，把答案写在题后的横线上，书写要工整。', '要求写出计算过程。']
INSTR_EN = ['Show all your working.', 'Answer all questions.', 'Write your answers in the spaces provided.',
            'Answer each question. Show all your working clearly and give units where needed.',
            'Calculators are not allowed.']
COMMENT_ZH = ['订正', '好', '很好', '再想想', '订正！']
COMMENT_EN = ['good', 'see me', 'Good!', 'check', 'redo']
SCORES = ['8', '-2', '5/5', '3分', '10', '-1', '4/5', '6分', '+2']
UNITS_ZH = ['（单位：cm）', '（单位：千米）', '（单位：N）', '（单位：元）', '（结果保留一位小数）']
UNITS_EN = ['(unit: cm)', '(units: m/s)', '(Give your answer in cm.)', '(in kg)']
WORDS_EN = ['apple', 'went', 'goes', 'faster', 'better', 'since', 'for', 'big', 'happy', 'red', 'blue',
            'Paris', 'water', 'heart', 'lungs', 'cell']


def template_chars():
    s = ''.join(TITLES_ZH + TITLES_EN + SCHOOL_ZH + SCHOOL_EN + HEAD_ZH + HEAD_EN + INSTR_ZH + INSTR_EN +
                COMMENT_ZH + COMMENT_EN + SCORES + UNITS_ZH + UNITS_EN + WORDS_EN + CN_NUM)
    s += '姓名：班级：学号：日期：得分：Name: Class: Date: Score: 答：Answer: Ans:（　　）()'
    s += '第题分页（）points marks Question Q．、.)-—/ABCD★?？☆✓✗甲乙丙丁水氧气二化碳北京长江黄河解'
    s += ''.join(chr(c) for c in range(32, 127))
    s += ''.join(chr(0x2460 + i) for i in range(20))
    return s


# ----------------------------------------------------------------- labels
def label_text(style, n):
    if style == 'fw_dot':
        return '%d．' % n
    if style == 'dot':
        return '%d.' % n
    if style == 'fw_paren':
        return '（%d）' % n
    if style == 'paren':
        return '(%d)' % n
    if style == 'circled':
        return chr(0x2460 + n - 1) if 1 <= n <= 20 else '%d．' % n
    if style == 'question':
        return 'Question %d.' % n
    if style == 'di_ti':
        return '第%d题' % n
    if style == 'dun':
        return '%d、' % n
    if style == 'cn':
        return (CN_NUM[n] + '、') if 1 <= n <= 20 else '%d、' % n
    if style == 'q':
        return 'Q%d' % n
    if style == 'rparen':
        return '%d)' % n
    return ''


LABEL_GAP = {'fw_dot': 0.05, 'dot': 0.35, 'fw_paren': 0.05, 'paren': 0.3, 'circled': 0.25,
             'question': 0.4, 'di_ti': 0.4, 'dun': 0.0, 'cn': 0.0, 'q': 0.45, 'rparen': 0.35}


# ----------------------------------------------------------------- bank
def load_bank(path):
    rows = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line:
                r = json.loads(line)
                q = r['question']
                r['lang'] = 'zh' if re.search(r'[\u4e00-\u9fff]', q) else 'en'
                rows.append(r)
    return rows


# ----------------------------------------------------------------- design (all random choices)
def choice(rng, items, p=None):
    if p is not None:
        p = np.asarray(p, float)
        p = p / p.sum()
    return items[int(rng.choice(len(items), p=p))]


def weighted_order(rng, idxs, weights):
    u = rng.random(len(idxs))
    keys = -np.log(np.maximum(u, 1e-12)) / np.asarray(weights, float)
    return [idxs[j] for j in np.argsort(keys, kind='stable')]


def similar(a, b):
    import difflib
    return difflib.SequenceMatcher(None, a, b).ratio()


class Ctx:
    pass


def measure_q(q, st, blank_style, size=E):
    atoms = make_atoms(q)
    widths = [atom_width(a, st, size, False, blank_style) for a in atoms]
    return atoms, widths


def design(bank, i, seed):
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    d = Ctx()
    d.rng = rng
    d.tags = []
    n = len(bank)
    # case mix by photo index (not random): 2 in 5 photos frame a one-line problem
    d.oneline = (i % 5) in (1, 3)
    d.two_col = rng.random() < 0.24
    target_n = 1 if d.oneline else int(choice(rng, [2, 3, 4, 5], [0.38, 0.3, 0.2, 0.12]))
    if target_n >= 4 and not d.two_col and rng.random() < 0.5:
        d.two_col = True
    d.hanging = rng.random() < 0.45
    d.label_bold = rng.random() < 0.3
    d.label_gap_jit = float(rng.uniform(-0.1, 0.2))
    qs = [bank[k]['question'] for k in range(n)]
    fw_ = np.array([1.0 + 2.0 * ('___' in q) + 0.6 * any(c in q for c in list(SUP) + list(SUB)) for q in qs])
    best = None
    for attempt in range(160):
        if d.oneline:
            pool = [k for k in range(n) if len(qs[k]) < 30]
        else:
            pool = [k for k in range(n) if len(qs[k]) >= 16]
        pw = fw_[pool] / fw_[pool].sum()
        fi = int(pool[int(rng.choice(len(pool), p=pw))])
        F = bank[fi]
        lang = F['lang']
        if lang == 'zh':
            cjk = choice(rng, ['sans_sc', 'serif_sc', 'mono_sc'], [0.45, 0.45, 0.10])
            latin = choice(rng, [None, 'lib_serif', 'lib_sans', 'dv_sans', 'dv_serif'], [0.4, 0.3, 0.1, 0.1, 0.1])
        else:
            cjk = choice(rng, ['sans_sc', 'serif_sc'])
            latin = choice(rng, ['lib_serif', 'lib_sans', 'dv_sans', 'dv_serif', 'dv_cond', 'lib_narrow', 'lib_mono'],
                           [0.28, 0.22, 0.15, 0.12, 0.08, 0.08, 0.07])
        st = Style(cjk, latin, lang)
        blank_style = ('rule', float(rng.uniform(1.2, 2.4))) if rng.random() < 0.5 else ('us', 0)
        if lang == 'zh':
            lstyle = choice(rng, ['fw_dot', 'dot', 'fw_paren', 'paren', 'circled', 'di_ti', 'dun', 'cn', 'q', 'rparen',
                                  'question', 'qline'],
                            [0.16, 0.14, 0.09, 0.08, 0.07, 0.07, 0.1, 0.06, 0.05, 0.05, 0.03, 0.09])
        else:
            lstyle = choice(rng, ['dot', 'paren', 'question', 'q', 'rparen', 'fw_dot', 'qline'],
                            [0.3, 0.15, 0.14, 0.12, 0.12, 0.04, 0.13])
        score_note = lstyle != 'qline' and rng.random() < 0.28
        score_text = choice(rng, ['（5分）', '（3分）', '（4分）', '（10分）']) if lang == 'zh' else \
            choice(rng, [' (3 points)', ' (2 marks)', ' (5 points)', ' [4]'])
        atoms, widths = measure_q(F['question'], st, blank_style)
        if lstyle == 'qline':
            lab_ws = [0.0]
        else:
            gap_ = LABEL_GAP[lstyle] + (0.0 if lstyle in ('fw_dot', 'dun', 'cn', 'fw_paren') else d.label_gap_jit)
            lab_ws = [text_pieces(label_text(lstyle, nn) + (score_text if score_note else ''), st, E, d.label_bold)[1]
                      + gap_ * E for nn in (1, 19)]
        lab_w = max(lab_ws)
        total = sum(widths)
        if d.oneline:
            lo, hi = (13, 20) if d.two_col else (24, 40)
            need = total + lab_w + 0.4 * E
            if need > hi * E:
                continue
            cw = float(rng.uniform(lo, hi)) * E
            if cw < need:
                cw = need + float(rng.uniform(0.3, 4.0)) * E
            cw = min(cw, hi * E + 4 * E)
            best = (fi, F, lang, st, blank_style, cw, lstyle, score_note, score_text)
            break
        lo, hi = (13, 20) if d.two_col else ((20, 40) if lang == 'zh' else (24, 42))
        got = None
        for cwe in rng.uniform(lo, hi, 10):
            c2 = float(cwe) * E
            nls = set(len(wrap(atoms, widths, c2 - lw_, c2 - (lw_ if d.hanging else 0.0))) for lw_ in lab_ws)
            if nls == {target_n} or (attempt > 100 and len(nls) == 1 and 2 <= min(nls) <= 5):
                got = c2
                break
        if got is not None:
            best = (fi, F, lang, st, blank_style, got, lstyle, score_note, score_text)
            break
    if best is None:
        raise RuntimeError('photo %d: no framed problem fits' % i)
    fi, F, lang, st, blank_style, cw, lstyle, d.score_note, d.score_text = best
    d.fi, d.F, d.lang, d.st, d.blank_style, d.cw, d.lstyle = fi, F, lang, st, blank_style, cw, lstyle
    d.ls = float(rng.uniform(1.3, 1.75))
    d.pitch = d.ls * E
    d.tight = rng.random() < 0.34
    d.gutter = float(rng.uniform(1.0, 2.5)) * E if d.two_col else 0.0
    d.col_rule = d.two_col and rng.random() < 0.4
    d.margin = float(rng.uniform(2.0, 4.0)) * E
    d.justify = lang == 'zh' and rng.random() < 0.7
    d.ink = tuple(int(v) for v in rng.integers(10, 50, 3).clip(10, 60))
    # --- what sits above the framed problem
    if lstyle == 'qline':
        d.above = 'question_line'
    else:
        grp = rng.random()
        if grp < 0.43:
            d.above = choice(rng, ['title', 'section_heading', 'name_line', 'instruction'], [0.25, 0.35, 0.2, 0.2])
        elif grp < 0.86:
            d.above = choice(rng, ['wrapped_word', 'answer_line', 'options_row', 'bracket_line', 'unit_line'],
                             [0.25, 0.22, 0.22, 0.16, 0.15])
        else:
            d.above = 'problem_line'
    d.head_tight = rng.random() < 0.3
    d.head_f = float(rng.uniform(max(0.82, 1.14 / d.ls), 0.95)) if d.head_tight else 1.0
    d.head_sf = float(choice(rng, [1.0, 1.0, 1.08, 1.15, 1.25]))
    d.head_bold = rng.random() < 0.55
    d.f_col = int(rng.integers(2)) if d.two_col else 0
    d.title_center = rng.random() < 0.75
    if d.two_col and d.above in ('title', 'name_line', 'instruction'):
        d.f_col = 0
        d.title_center = False
    # label decorations of the framed problem
    d.faint = lstyle != 'qline' and rng.random() < 0.14
    d.cover = None
    if lstyle != 'qline' and rng.random() < 0.14:
        d.cover = choice(rng, ['finger', 'pen'])
    d.marks = rng.random() < 0.47
    # neighbour pool
    others = [k for k in range(n) if k != fi]
    wts = [1.0 if bank[k]['lang'] == lang else (0.3 if lang == 'en' else 0.15) for k in others]
    d.pool = weighted_order(rng, others, wts)
    d.near_dup = None
    if rng.random() < 0.3:
        cands = [k for k in others if similar(bank[k]['question'], F['question']) > 0.8]
        if cands:
            d.near_dup = int(cands[int(rng.integers(len(cands)))])
            d.pool.remove(d.near_dup)
            d.pool.insert(0, d.near_dup)
    d.n_pre = int(rng.integers(0, 5))
    d.head_title = rng.random() < 0.85
    d.head_school = rng.random() < 0.25
    d.head_name = rng.random() < 0.55
    d.head_instr = rng.random() < 0.25
    d.title_sf = float(rng.uniform(1.15, 1.6))
    d.page_ratio = float(rng.uniform(1.33, 1.45))
    d.footer = rng.random() < 0.5
    d.other_heading = rng.random() < 0.4
    d.post_heading_at = int(rng.integers(2, 6)) if rng.random() < 0.35 else 99
    d.prob_extra = [float(v) for v in rng.uniform(0.3, 1.2, 80)]
    d.head_extra = [float(v) for v in rng.uniform(0.4, 1.5, 20)]
    d.num0 = int(rng.integers(1, 10))
    return d


# ----------------------------------------------------------------- layout
class Page:
    pass


def make_text_element(kind, text, sf=1.0, bold=False, align='left', color=None, width_frac=None):
    return {'t': kind, 'text': text, 'sf': sf, 'bold': bold, 'align': align, 'color': color, 'wf': width_frac}


def layout_textlines(el, x0, yb, cw, d):
    st = d.st
    size = int(round(E * el['sf']))
    atoms = make_atoms(el['text'])
    widths = [atom_width(a, st, size, el['bold'], ('rule', 1.6)) for a in atoms]
    spans = wrap(atoms, widths, cw, cw)
    out = []
    for j, (s, e) in enumerate(spans):
        ln = new_line(el['t'])
        wsum = sum(widths[s:e])
        x = x0
        if el['align'] == 'center':
            x = x0 + (cw - wsum) / 2
        elif el['align'] == 'right':
            x = x0 + cw - wsum
        place_atoms(ln, atoms[s:e], widths[s:e], x, yb + j * d.pitch * el['sf'], st, size, el['bold'],
                    ('rule', 1.6), color=el['color'])
        ln['y'] = yb + j * d.pitch * el['sf']
        ln['text'] = el['text']
        out.append(ln)
    right = el.get('right')
    if right and out:
        ln = out[-1]
        ra = make_atoms(right)
        rw = [atom_width(a, st, size, False, ('rule', 1.6)) for a in ra]
        xr = x0 + cw - sum(rw)
        if xr > ln['box'][2] + 1.0 * size:
            place_atoms(ln, ra, rw, xr, ln['y'], st, size, False, ('rule', 1.6), color=el['color'])
            ln['text'] = el['text'] + ' ... ' + right
    return out


def layout_nameline(el, x0, yb, cw, d):
    st = d.st
    size = int(round(E * el['sf']))
    fields = el['fields']
    target = el['wf'] * cw
    lab_w = [text_pieces(f, st, size, el['bold'])[1] for f in fields]
    gap = 1.0 * size
    blank = max(2.5 * size, (target - sum(lab_w) - gap * (len(fields) - 1)) / len(fields))
    ln = new_line('name_line')
    x = x0
    for f, w in zip(fields, lab_w):
        put_text(ln, x, yb, f, st, size, el['bold'], el['color'])
        x += w
        if el['blank'] == 'rule':
            put_rule(ln, x, x + blank, yb, size, el['color'])
        else:
            nus = max(3, int(blank / text_pieces('_', st, size)[1]))
            put_text(ln, x, yb, '_' * nus, st, size, False, el['color'])
        x += blank + gap
    ln['y'] = yb
    ln['text'] = '  '.join(f + '____' for f in fields)
    return [ln]


def layout_problem(el, x0, yb, cw, d, pid):
    st = d.st
    size = E
    out = []
    label = el['label']
    first = new_line('problem', pid)
    lab_box = None
    sx = x0
    if label:
        num = el.get('label_num', label)
        lw, lab_box = put_text(first, x0, yb, num, st, size, el.get('label_bold', False), el.get('label_color'))
        first['num_box'] = lab_box
        if len(label) > len(num):
            lw2, b2 = put_text(first, x0 + lw, yb, label[len(num):], st, size, False, el.get('label_color'))
            lw += lw2
            lab_box = union(lab_box, b2)
        sx = x0 + lw + el['label_gap'] * size
        first['label_box'] = lab_box
    indent = (sx - x0) if el.get('hanging') else el.get('indent', 0.0)
    atoms, widths = measure_q(el['q'], st, d.blank_style, size)
    spans = wrap(atoms, widths, x0 + cw - sx, cw - indent)
    y = yb
    for j, (s, e) in enumerate(spans):
        ln = first if j == 0 else new_line('problem', pid)
        x = sx if j == 0 else x0 + indent
        extra = 0.0
        if d.justify and j < len(spans) - 1 and e - s > 1:
            slack = (x0 + cw) - x - sum(widths[s:e])
            if 0 < slack < 1.5 * size:
                extra = slack / (e - s - 1)
        _, b = place_atoms(ln, atoms[s:e], widths[s:e], x, y, st, size, False, d.blank_style, extra)
        ln['stem_box'] = b
        ln['y'] = y
        out.append(ln)
        y += d.pitch
    ex = el.get('extra')
    if ex:
        ln = new_line('problem', pid)
        kind, text, align = ex
        if kind == 'options_row':
            parts = text
            x = x0 + indent
            for p in parts[:-1]:
                w, _ = put_text(ln, x, y, p[0], st, size)
                x += w + p[1]
            put_text(ln, x, y, parts[-1][0], st, size)
        else:
            atoms2, widths2 = measure_q(text, st, ('rule', 2.0), size)
            wsum = sum(widths2)
            x = x0 + indent if align == 'left' else x0 + cw - wsum
            place_atoms(ln, atoms2, widths2, x, y, st, size, False, ('rule', 2.0))
        ln['y'] = y
        ln['stem_box'] = ln['box']
        ln['extra'] = kind
        ln['text'] = '   '.join(p[0] for p in text) if kind == 'options_row' else text
        out.append(ln)
    return out


def el_height_lines(lines):
    return lines


def make_problem_el(d, k, bank, extra=None, framed=False):
    rng = d.rng
    el = {'t': 'problem', 'bank': k, 'q': bank[k]['question'], 'extra': extra, 'framed': framed,
          'hanging': d.hanging, 'label': '', 'label_gap': 0.3, 'indent': 0.0}
    if d.lstyle != 'qline':
        el['label_gap'] = LABEL_GAP[d.lstyle] + (0.0 if d.lstyle in ('fw_dot', 'dun', 'cn', 'fw_paren') else d.label_gap_jit)
        el['label_bold'] = d.label_bold
    return el


def extra_line(d, kind):
    rng = d.rng
    zh = d.lang == 'zh'
    if kind == 'answer_line':
        lead = choice(rng, ['答：', '解：', '答案：'] if zh else ['Answer: ', 'Ans: ', 'Answer ='])
        return (kind, lead + '_' * int(rng.integers(8, 24)), 'left')
    if kind == 'unit_line':
        return (kind, choice(rng, UNITS_ZH if zh else UNITS_EN), choice(rng, ['left', 'right']))
    if kind == 'bracket_line':
        if zh:
            t = choice(rng, ['（　　　）', '（　　　　）', '(      )'])
        else:
            t = choice(rng, ['(      )', '(        )', '[      ]'])
        return (kind, t, 'right' if rng.random() < 0.6 else 'left')
    if kind == 'options_row':
        letters = ['A', 'B', 'C', 'D']
        sep = '．' if (zh and rng.random() < 0.6) else '. '
        if rng.random() < 0.5 or not zh:
            base = int(rng.integers(1, 40))
            steps = np.cumsum(rng.integers(1, 4, 4))
            vals = [str(base + int(v)) for v in steps]
            if not zh and rng.random() < 0.5:
                vals = [choice(rng, WORDS_EN) for _ in range(4)]
        else:
            vals = [choice(rng, ['甲', '乙', '丙', '丁', '水', '氧气', '二氧化碳', '北京', '长江', '黄河', '3 cm', '5 cm', '0.5 A', '2 m/s'])
                    for _ in range(4)]
        gap = float(rng.uniform(1.2, 3.5)) * E
        nopt = 4 if rng.random() < 0.7 else 2
        start = 0 if nopt == 4 else 2
        parts = [(letters[j] + sep + vals[j], gap) for j in range(start, 4)]
        return (kind, parts, 'left')
    return None


def build_layout(bank, d, extra_gap=0.0):
    """Lay out the whole page.  Returns Page with lines and problems."""
    rng_state = d.rng.bit_generator.state        # layout must not consume randomness
    st = d.st
    P = Page()
    two = d.two_col
    cw = d.cw
    m = d.margin
    PW = 2 * m + (2 * cw + d.gutter if two else cw)
    PH = PW * d.page_ratio
    P.W, P.H = PW, PH
    full_w = PW - 2 * m
    zh = d.lang == 'zh'
    pool = [k for k in d.pool if k != d.wrapped_k and k != d.near_dup]
    used = set()

    def take(pred=None):
        for j, k in enumerate(pool):
            if pred is None or pred(k):
                pool.pop(j)
                used.add(k)
                return k
        return None

    # ---------- header block (full width)
    header = []
    above = d.above
    hdr_color = None
    if d.head_school:
        header.append(make_text_element('school', d.school_text, 0.85, False, 'center' if d.title_center else 'left'))
    want_title = d.head_title or above == 'title'
    if want_title:
        sf = d.head_sf if above == 'title' else d.title_sf
        header.append(make_text_element('title', d.title_text, sf, True if above != 'title' else d.head_bold,
                                        'center' if d.title_center else 'left'))
    if (d.head_name and above != 'title') or above == 'name_line':
        header.append({'t': 'name_line', 'fields': d.name_fields, 'sf': 1.0 if above != 'name_line' else d.head_sf,
                       'bold': d.head_bold if above == 'name_line' else False, 'wf': d.name_wf, 'color': None,
                       'blank': d.name_blank})
    first_in_col = above in ('title', 'name_line') or (above == 'instruction' and d.instr_in_header)
    if above == 'instruction' and d.instr_in_header:
        header.append(make_text_element('instruction', d.instr_text, d.head_sf, d.head_bold, 'left'))
        header[-1]['right'] = d.head_right
    elif d.head_instr and above not in ('title', 'name_line'):
        header.append(make_text_element('instruction', d.instr_text2, 1.0, False, 'left'))

    # ---------- framed column element list
    def prob_el(k, extra=None, framed=False):
        return make_problem_el(d, k, bank, extra, framed)

    def qline_el(n_):
        if zh:
            txt = d.qline_fmt.replace('{n}', CN_NUM[n_] if d.qline_cn and n_ <= 20 else str(n_))
        else:
            txt = d.qline_fmt.replace('{n}', str(n_))
        return make_text_element('question_line', txt, d.head_sf, d.head_bold, 'left')

    fcol = []
    ei = 0
    if not first_in_col:
        npre = d.n_pre
        for j in range(npre):
            k = take()
            fcol.append(prob_el(k))
        if above == 'section_heading':
            fcol.append(make_text_element('section_heading', d.head_text, d.head_sf, d.head_bold, 'left'))
            fcol[-1]['right'] = d.head_right
        elif above == 'instruction':
            if d.instr_heading:
                fcol.append(make_text_element('section_heading', d.head_text, 1.0, True, 'left'))
            fcol.append(make_text_element('instruction', d.instr_text, d.head_sf, d.head_bold, 'left'))
            fcol[-1]['right'] = d.head_right
        elif above in ('wrapped_word', 'answer_line', 'options_row', 'bracket_line', 'unit_line', 'problem_line'):
            kk = None
            ex = None
            if above == 'wrapped_word':
                kk = d.wrapped_k
            else:
                if above != 'problem_line':
                    ex = d.extra_spec
            if kk is None:
                kk = take()
            fcol.append(prob_el(kk, ex))
    Fel = prob_el(d.fi, None, True)
    fcol.append(Fel)
    nxt = d.near_dup if d.near_dup is not None else take()
    posts = []
    while nxt is not None and len(posts) < 40:
        if len(posts) == d.post_heading_at:
            posts.append(make_text_element('section_heading', d.head_text2, 1.0, True, 'left'))
        posts.append(prob_el(nxt))
        nxt = take()
    fcol.extend(posts)

    # ---------- other column (two-column pages)
    ocol = []
    if two:
        if d.other_heading:
            ocol.append(make_text_element('section_heading', d.head_text2, 1.0, True, 'left'))
        for j in range(40):
            k = take()
            if k is None:
                break
            ocol.append(prob_el(k))

    # ---------- flow
    bottom = PH - m - (1.5 * E if d.footer else 0)

    def vgap_before(el, prev):
        """baseline distance from prev element's last baseline to el's first baseline"""
        if el['t'] == 'problem' and el.get('framed'):
            if prev is None:
                return None
            if prev['t'] == 'problem':
                if above == 'problem_line':
                    return d.pitch + (0 if d.tight else d.prob_extra[0] * E) + extra_gap
                return d.pitch + extra_gap
            return d.pitch * d.head_f * max(1.0, prev.get('sf', 1.0)) + extra_gap
        if prev is None:
            return None
        if prev.get('framed'):
            g = d.pitch * max(1.0, el.get('sf', 1.0)) + extra_gap
            if el['t'] == 'section_heading':
                return g + d.head_extra[0] * E
            return g + (0 if d.tight else d.prob_extra[1] * E)
        if el['t'] == 'section_heading' or el['t'] == 'title':
            return d.pitch * el['sf'] + d.head_extra[1] * E
        if el['t'] == 'question_line':
            return d.pitch * el['sf'] + (0 if d.tight else d.prob_extra[2] * E)
        if el['t'] == 'problem' and prev['t'] == 'problem':
            return d.pitch + (0 if d.tight else d.prob_extra[3] * E)
        return d.pitch * max(1.0, el.get('sf', 1.0))

    numbering = [d.num0]

    def assign_label(el):
        if el['t'] != 'problem' or d.lstyle == 'qline':
            return
        n_ = numbering[0]
        numbering[0] += 1
        lab = label_text(d.lstyle, n_)
        el['label_num'] = lab
        if el.get('framed'):
            if d.score_note:
                lab += d.score_text
            if d.faint:
                el['label_color'] = d.faint_color
        el['label'] = lab

    def flow(elements, x0, width, prev_b, prev_el, limit, is_fcol):
        lines = []
        out_els = []
        pid_lines = {}
        for el in elements:
            if d.lstyle == 'qline' and el['t'] == 'problem':
                # every problem sits under its own question line
                nq = numbering[0]
                numbering[0] += 1
                q_el = qline_el(nq)
                if el.get('framed'):
                    q_el['is_framed_q'] = True
                    q_el['right'] = d.head_right
                seq = [q_el, el]
            else:
                seq = [el]
            new = []
            pb, pe = prev_b, prev_el
            for e2 in seq:
                gap = vgap_before(e2, pe)
                if gap is None:
                    yb = m + 0.9 * E * e2.get('sf', 1.0) if pb is None else pb + d.pitch
                else:
                    yb = pb + gap
                if e2['t'] == 'problem':
                    assign_label(e2)
                    ls = layout_problem(e2, x0, yb, width, d, e2['bank'])
                elif e2['t'] == 'name_line':
                    ls = layout_nameline(e2, x0, yb, width, d)
                else:
                    ls = layout_textlines(e2, x0, yb, width, d)
                for ln in ls:
                    ln['el'] = e2
                new.append((e2, ls))
                pb, pe = ls[-1]['y'], e2
            lastb = max(ln['box'][3] for _, ls in new for ln in ls)
            if lastb > limit:
                if any(e2.get('framed') for e2, _ in new):
                    raise OverflowError('framed problem below page bottom')
                break
            for e2, ls in new:
                lines.extend(ls)
                out_els.append(e2)
            prev_b, prev_el = pb, pe
        return lines, prev_b, prev_el

    # header flow
    hx0 = m
    hlines, hb, hel = flow(header, hx0, full_w, None, None, PH, False)
    # framed column
    if two:
        fx0 = m + d.f_col * (cw + d.gutter)
        ox0 = m + (1 - d.f_col) * (cw + d.gutter)
    else:
        fx0 = m
    # if framed problem is not first-in-column, the column starts after header with a heading gap
    start_b, start_el = hb, hel
    fcol_use = list(fcol)
    # trim pre elements if the framed problem would run off the page
    while True:
        numbering[0] = d.num0
        try:
            flines, _, _ = flow(fcol_use, fx0, cw, start_b, start_el, bottom, True)
            break
        except OverflowError:
            npre_left = sum(1 for e_ in fcol_use[:fcol_use.index(Fel)] if e_['t'] == 'problem') - \
                (1 if above in ('wrapped_word', 'answer_line', 'options_row', 'bracket_line', 'unit_line',
                                'problem_line') else 0)
            if npre_left > 0:
                j = [k_ for k_, e_ in enumerate(fcol_use) if e_['t'] == 'problem'][0]
                fcol_use = fcol_use[:j] + fcol_use[j + 1:]
                continue
            raise
    lines = hlines + flines
    if two:
        olines, _, _ = flow(ocol, ox0, cw, hb, hel, PH * 3, False)
        # align one of the other column's lines with the framed problem's first line
        ff = [ln for ln in flines if ln['role'] == 'problem' and ln['el'].get('framed')]
        y0 = ff[0]['y']
        top_lim = (max(ln['box'][3] for ln in hlines) + 0.3 * E) if hlines else m
        best = None
        for ln in olines:
            dy = y0 - ln['y']
            top = min(l2['box'][1] for l2 in olines) + dy
            if top < top_lim:
                continue
            if best is None or abs(dy) < abs(best):
                best = dy
        if best is None:
            best = 0.0
        for ln in olines:
            shift_line(ln, 0, best)
        # drop whole elements that run off the bottom
        bad = set(id(ln['el']) for ln in olines if ln['box'][3] > bottom)
        if bad:
            first_bad = min(j for j, ln in enumerate(olines) if id(ln['el']) in bad)
            olines = olines[:first_bad]
        lv = [ln for ln in olines if abs(ln['y'] - y0) < 1.0]
        P.level_line = lv[0] if lv else None
        lines += olines
    # footer
    if d.footer:
        fl = layout_textlines(make_text_element('footer', d.footer_text, 0.8, False, 'center'), m, PH - m * 0.6, full_w, d)
        for ln in fl:
            ln['el'] = {'t': 'footer'}
        lines += fl
    P.lines = lines
    # problems
    probs = {}
    for ln in lines:
        if ln['role'] == 'problem':
            key = id(ln['el'])
            if key not in probs:
                probs[key] = {'bank': ln['el']['bank'], 'framed': bool(ln['el'].get('framed')), 'lines': [],
                              'el': ln['el']}
            probs[key]['lines'].append(ln)
    P.problems = list(probs.values())
    for p in P.problems:
        p['corners'] = np.array([[[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]
                                 for b in (ln['box'] for ln in p['lines'])], np.float64).reshape(-1, 2)
    P.F = [p for p in P.problems if p['framed']][0]
    # what is directly above the framed problem
    fl0 = P.F['lines'][0]
    above_ln = None
    for ln in lines:
        if ln['el'] is P.F['el'] or ln['role'] == 'footer':
            continue
        b = ln['box']
        if b[3] <= fl0['box'][1] + 2 and b[2] > fx0 and b[0] < fx0 + cw:
            if above_ln is None or b[3] > above_ln['box'][3]:
                above_ln = ln
    P.above_ln = above_ln
    P.fx0, P.cw = fx0, cw
    P.col_rule = None
    if two and d.col_rule:
        gx = m + cw + d.gutter / 2
        ys = [ln['box'][1] for ln in lines if ln['role'] != 'footer' and ln not in hlines] or [m]
        ye = [ln['box'][3] for ln in lines if ln['role'] != 'footer' and ln not in hlines] or [PH - m]
        P.col_rule = (gx, min(ys) - 0.3 * E, max(ye) + 0.3 * E)
    d.rng.bit_generator.state = rng_state
    return P


def finish_design(bank, d):
    """Random text choices that the layout needs (drawn once, reused on re-layout)."""
    rng = d.rng
    zh = d.lang == 'zh'
    d.title_text = choice(rng, TITLES_ZH if zh else TITLES_EN)
    d.school_text = choice(rng, SCHOOL_ZH if zh else SCHOOL_EN)
    d.head_text = choice(rng, HEAD_ZH if zh else HEAD_EN)
    d.head_text2 = choice(rng, HEAD_ZH if zh else HEAD_EN)
    d.instr_text = choice(rng, INSTR_ZH if zh else INSTR_EN)
    d.instr_text2 = choice(rng, INSTR_ZH if zh else INSTR_EN)
    d.instr_in_header = rng.random() < 0.5
    d.head_right = None
    if rng.random() < 0.3:
        d.head_right = choice(rng, ['得分：______', '（共20分）', '评卷人：____', '（本题满分12分）'] if zh else
                              ['Score: ____', '[20 marks]', '(Total 15 points)', 'Marks: ___ / 10'])
    d.instr_heading = rng.random() < 0.5
    if zh:
        d.name_fields = choice(rng, [['姓名：', '班级：'], ['姓名：', '班级：', '学号：'], ['班级：', '姓名：', '得分：'],
                                     ['姓名：', '日期：']])
    else:
        d.name_fields = choice(rng, [['Name: ', 'Date: '], ['Name: ', 'Class: ', 'Date: '], ['Name: ', 'Score: ']])
    d.name_wf = float(rng.uniform(0.33, 1.0))
    d.name_blank = choice(rng, ['rule', 'us'])
    if zh:
        d.qline_fmt = choice(rng, ['第{n}题（10分）', '第{n}题', '第{n}题（5分）', '第{n}题（8分）'])
        d.qline_cn = rng.random() < 0.5
    else:
        d.qline_fmt = choice(rng, ['Question {n} (5 marks)', 'Question {n}', 'Q{n} (2 points)', 'Question {n} [4]'])
        d.qline_cn = False
    d.faint_color = tuple([int(rng.integers(150, 195))] * 3)
    d.footer_text = choice(rng, ['— %d —' % int(rng.integers(1, 9)), '第 %d 页' % int(rng.integers(1, 9))
                                 if zh else 'Page %d' % int(rng.integers(1, 9))])
    d.extra_spec = extra_line(d, d.above) if d.above in ('answer_line', 'options_row', 'bracket_line', 'unit_line') else None
    d.wrapped_k = None
    if d.above == 'wrapped_word':
        # a neighbour whose last wrapped line holds a single short word
        st = d.st
        for k in d.pool[:160]:
            q = bank[k]['question']
            atoms, widths = measure_q(q, st, d.blank_style)
            okall = True
            for n_ in (1, 9, 10, 19):
                if d.lstyle == 'qline':
                    lab_w = 0.0
                else:
                    lab_w = text_pieces(label_text(d.lstyle, n_), st, E, d.label_bold)[1] + (LABEL_GAP[d.lstyle] + d.label_gap_jit) * E
                ind = lab_w if d.hanging else 0.0
                spans = wrap(atoms, widths, d.cw - lab_w, d.cw - ind)
                if len(spans) < 2:
                    okall = False
                    break
                s, e = spans[-1]
                w = sum(widths[s:e])
                nonsp = [a for a in atoms[s:e] if a[0] != 'space']
                if not (w <= 0.22 * d.cw and (len(nonsp) == 1 or (all(a[0] == 'cjk' for a in nonsp) and len(nonsp) <= 4))):
                    okall = False
                    break
            if okall:
                d.wrapped_k = k
                break
        if d.wrapped_k is None:
            d.above = 'answer_line'
            d.extra_spec = extra_line(d, 'answer_line')


# ----------------------------------------------------------------- camera / frame search
def rotm(deg):
    t = math.radians(deg)
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s], [s, c]])


def homography(c, s, deg, g, h, W, H):
    T1 = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1]], float)
    R = np.eye(3)
    R[:2, :2] = rotm(deg) * s
    Pp = np.array([[1, 0, 0], [0, 1, 0], [g, h, 1]], float)
    T2 = np.array([[1, 0, W / 2.0], [0, 1, H / 2.0], [0, 0, 1]], float)
    return T2 @ Pp @ R @ T1


def apply_h(Hm, pts):
    p = np.c_[pts, np.ones(len(pts))] @ Hm.T
    return p[:, :2] / p[:, 2:3]


def hull_of(pts):
    return cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)


def dist_to_hull(hull, pt):
    v = cv2.pointPolygonTest(hull.reshape(-1, 1, 2).astype(np.float32), (float(pt[0]), float(pt[1])), True)
    return max(0.0, -float(v))


def local_scale(Hm, pt):
    e = 2.0
    p = apply_h(Hm, np.array([pt, [pt[0] + e, pt[1]], [pt[0], pt[1] + e]], float))
    j = np.array([p[1] - p[0], p[2] - p[0]]) / e
    return math.sqrt(abs(np.linalg.det(j)))


def evaluate(P, Hm, W, H):
    cen = (W / 2.0, H / 2.0)
    res = []
    for p in P.problems:
        q = apply_h(Hm, p['corners'])
        hl = hull_of(q)
        res.append((p, q, hl, dist_to_hull(hl, cen)))
    return res


def search_frame(P, cam, rng, em_target, tries=60, xbias=0.0):
    W, H = cam['W'], cam['H']
    M = max(W, H)
    thr = THR_FRAC * M
    F = P.F
    fc = F['corners']
    x0, y0 = fc.min(0)
    x1, y1 = fc.max(0)
    fw, fh = x1 - x0, y1 - y0
    xs = np.linspace(x0 + 0.03 * fw, x1 - 0.03 * fw, 11)
    ys = np.linspace(y0 - 0.25 * E, y1 + 0.25 * E, 7)
    cands = [(x, y) for y in ys for x in xs]
    cx, cy = (x0 + x1) / 2 + xbias * fw, (y0 + y1) / 2
    key = [abs(x - cx) / max(fw, E) + abs(y - cy) / max(fh, E) * 0.7 + rng.uniform(0, 0.45) for x, y in cands]
    order = np.argsort(key, kind='stable')
    fcen = fc.mean(0)
    n_try = 0
    for oi in order:
        c = cands[oi]
        R = rotm(cam['rot'])
        rel = (fc - np.array(c)) @ R.T
        lim = []
        for col, half in ((0, W / 2.0), (1, H / 2.0)):
            mx = max(np.max(rel[:, col]), 1e-6)
            mn = max(-np.min(rel[:, col]), 1e-6)
            lim.append((half - EDGE - 3) / mx)
            lim.append((half - EDGE - 3) / mn)
        s_fit = min(lim) * 0.93
        s_hi = min(s_fit, 56.0 / E)
        s_lo = 22.0 / E
        if s_hi < s_lo:
            continue
        st = float(np.clip(em_target / E, s_lo, s_hi))
        s_list = [st]
        for f in (0.34, 0.67, 1.0):
            v = st + (s_hi - st) * f
            if v - s_list[-1] > 0.01:
                s_list.append(v)
        for s in s_list:
            n_try += 1
            if n_try > tries:
                return None
            Hm = homography(c, s, cam['rot'], cam['g'], cam['h'], W, H)
            fq = apply_h(Hm, fc)
            if fq[:, 0].min() < EDGE + 0.5 or fq[:, 1].min() < EDGE + 0.5 or \
                    fq[:, 0].max() > W - EDGE - 0.5 or fq[:, 1].max() > H - EDGE - 0.5:
                continue
            em_c = E * local_scale(Hm, fcen)
            if not (22.5 <= em_c <= 55.5):
                continue
            ev = evaluate(P, Hm, W, H)
            dF = [r[3] for r in ev if r[0] is F][0]
            others = sorted([r[3] for r in ev if r[0] is not F])
            dmin = others[0] if others else 1e9
            if dmin - dF >= thr + SAFE:
                return {'H': Hm, 'c': c, 's': s, 'ev': ev, 'dF': dF, 'em': em_c}
    return None


# ----------------------------------------------------------------- marks & covers (page space)
def boxes_hit(box, boxes, pad=2.0):
    for b in boxes:
        if b is None:
            continue
        if box[0] < b[2] + pad and box[2] > b[0] - pad and box[1] < b[3] + pad and box[3] > b[1] - pad:
            return True
    return False


def stem_boxes(P):
    out = []
    for ln in P.F['lines']:
        if ln['stem_box'] is not None:
            out.append(ln['stem_box'])
    return out


def visible(Hm, box, W, H, pad=2.0):
    q = apply_h(Hm, np.array([[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]], float))
    return bool(q[:, 0].min() >= pad and q[:, 1].min() >= pad and q[:, 0].max() <= W - pad and q[:, 1].max() <= H - pad)


def plan_marks(P, d, Hm, W, H):
    """Teacher/student marks on the framed problem's first row; never on the stem."""
    rng = d.rng
    marks = []
    tags = []
    if not d.marks:
        return marks, tags
    sb = stem_boxes(P)
    first = P.F['lines'][0]
    lb = first['label_box']
    fb = first['box']
    rowc = (fb[1] + fb[3]) / 2
    nmarks = 1 if rng.random() < 0.75 else 2
    for mi in range(nmarks):
        kind = choice(rng, ['tick', 'cross', 'score', 'comment', 'star', 'qmark'], [0.28, 0.14, 0.22, 0.16, 0.1, 0.1])
        color = (205, 35, 40) if rng.random() < 0.75 else (35, 60, 175)
        size = float(rng.uniform(0.9, 1.7)) * E
        if kind in ('score', 'comment'):
            text = choice(rng, SCORES) if kind == 'score' else choice(rng, COMMENT_ZH if (d.lang == 'zh' and rng.random() < 0.7) else COMMENT_EN)
        else:
            text = None
        placed = None
        for t in range(14):
            side = choice(rng, ['left', 'right'])
            touch = side == 'left' and lb is not None and rng.random() < 0.4
            if kind in ('score', 'comment') and text:
                mw = size * (0.55 * len(text) + 0.6) if not re.search(r'[\u4e00-\u9fff]', text) else size * (len(text) + 0.5)
                mw = min(mw, 4.5 * E)
            else:
                mw = size
            mh = size * (1.1 if kind == 'score' else 1.0)
            if side == 'left':
                ref = lb[0] if lb is not None else fb[0]
                gap = float(rng.uniform(-0.45, -0.1)) * mw if touch else float(rng.uniform(0.15, 1.2)) * E
                bx1 = ref - gap
                bx0 = bx1 - mw
            else:
                ref = first['stem_box'][2] if first['stem_box'] else fb[2]
                bx0 = ref + float(rng.uniform(0.4, 2.5)) * E
                bx1 = bx0 + mw
            cyy = rowc + float(rng.uniform(-0.25, 0.25)) * E
            box = (bx0, cyy - mh / 2, bx1, cyy + mh / 2)
            if box[0] < 2 or box[2] > P.W - 2 or not visible(Hm, box, W, H):
                size *= 0.9
                continue
            if boxes_hit(box, sb, 3.0) or any(boxes_hit(box, [m_['box']], 2) for m_ in marks):
                size *= 0.88
                continue
            placed = {'kind': kind, 'box': box, 'color': color, 'text': text, 'side': side,
                      'touch': bool(touch and lb is not None and boxes_hit(box, [lb], 0.0)),
                      'seed': int(rng.integers(1 << 30))}
            break
        if placed:
            marks.append(placed)
            tags.append('mark_' + kind)
            tags.append('mark_' + placed['side'])
            if placed['touch']:
                tags.append('mark_touches_number')
    return marks, sorted(set(tags))


def plan_cover(P, d, Hm, W, H):
    """Finger tip or pen tip partly over the framed problem's number, never the stem."""
    rng = d.rng
    if d.cover is None:
        return None
    lb = P.F['lines'][0].get('num_box')
    if lb is None or not visible(Hm, lb, W, H, 6.0):
        return None
    sb = stem_boxes(P)
    pts = []
    for b in sb:
        xs = np.arange(b[0], b[2] + 1, 3.0)
        ys = np.arange(b[1], b[3] + 1, 3.0)
        gx, gy = np.meshgrid(xs, ys)
        pts.append(np.c_[gx.ravel(), gy.ravel()])
    pts = np.vstack(pts) if pts else np.zeros((0, 2))
    lw = lb[2] - lb[0]
    for t in range(12):
        ang = float(rng.uniform(150, 235)) if d.cover == 'finger' else float(rng.uniform(120, 240))
        tipx = lb[0] + float(rng.uniform(0.15, 0.6)) * lw
        tipy = (lb[1] + lb[3]) / 2 + float(rng.uniform(-0.3, 0.3)) * (lb[3] - lb[1])
        a = math.radians(ang)
        dirv = np.array([math.cos(a), math.sin(a)])
        if d.cover == 'finger':
            r = float(rng.uniform(0.9, 1.5)) * E
            tip = np.array([tipx, tipy]) - dirv * r * 0.0
            ctr = tip + dirv * r            # centre of the rounded end
            far = ctr + dirv * 30 * E
            cov = {'kind': 'finger', 'a': ctr, 'b': far, 'r': r,
                   'skin': tuple(int(v) for v in (rng.uniform(200, 235), rng.uniform(150, 185), rng.uniform(120, 155)))}
            if len(pts):
                dd = seg_dist(pts, ctr, far)
                if np.any(dd < r + 3):
                    continue
            dd = seg_dist(np.array([[lb[0], (lb[1] + lb[3]) / 2], [(lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2]]), ctr, far)
            if not np.any(dd < r):
                continue
            return cov
        else:
            tip = np.array([tipx, tipy])
            poly = pen_poly(tip, dirv, E)
            if len(pts) and np.any(in_convex_multi(pts, poly)):
                continue
            col = choice(rng, [(30, 40, 120), (20, 20, 20), (160, 30, 30), (40, 120, 60)])
            return {'kind': 'pen', 'tip': tip, 'dir': dirv, 'polys': poly, 'color': col}
    return None


def seg_dist(pts, a, b):
    ab = b - a
    t = np.clip(((pts - a) @ ab) / (ab @ ab), 0, 1)
    pr = a + t[:, None] * ab
    return np.linalg.norm(pts - pr, axis=1)


def pen_poly(tip, dirv, em):
    nrm = np.array([-dirv[1], dirv[0]])
    w0, w1, L1 = 0.08 * em, 0.38 * em, 1.3 * em
    cone = [tip + nrm * w0, tip + dirv * L1 + nrm * w1, tip + dirv * L1 - nrm * w1, tip - nrm * w0]
    w2 = 0.42 * em
    body = [tip + dirv * L1 + nrm * w2, tip + dirv * 40 * em + nrm * w2, tip + dirv * 40 * em - nrm * w2,
            tip + dirv * L1 - nrm * w2]
    return [np.array(cone), np.array(body)]


def in_convex_multi(pts, polys):
    hit = np.zeros(len(pts), bool)
    for poly in polys:
        inside = np.ones(len(pts), bool)
        n = len(poly)
        # orientation
        area = sum(poly[j][0] * poly[(j + 1) % n][1] - poly[(j + 1) % n][0] * poly[j][1] for j in range(n))
        sgn = 1 if area > 0 else -1
        for j in range(n):
            a, b = poly[j], poly[(j + 1) % n]
            cr = (b[0] - a[0]) * (pts[:, 1] - a[1]) - (b[1] - a[1]) * (pts[:, 0] - a[0])
            inside &= (cr * sgn >= -3.0 * np.hypot(b[0] - a[0], b[1] - a[1]))
        hit |= inside
    return hit


# ----------------------------------------------------------------- rendering
def render_region(P, d, x0, y0, x1, y1, marks, cover, screen_bg=None):
    w, h = int(math.ceil(x1 - x0)), int(math.ceil(y1 - y0))
    img = Image.new('RGB', (w, h), (255, 255, 255))
    if screen_bg is not None:
        arr = np.full((h, w, 3), screen_bg, np.uint8)
        px0, py0 = int(round(-x0)), int(round(-y0))
        px1, py1 = int(round(P.W - x0)), int(round(P.H - y0))
        arr[max(0, py0):max(0, min(h, py1)), max(0, px0):max(0, min(w, px1))] = 255
        img = Image.fromarray(arr)
    dr = ImageDraw.Draw(img)
    ink = d.ink
    for ln in P.lines:
        b = ln['box']
        if b[2] < x0 - 10 or b[0] > x1 + 10 or b[3] < y0 - 30 or b[1] > y1 + 30:
            continue
        for (x, y, s, k, fs, c) in ln['pieces']:
            dr.text((x - x0, y - y0), s, font=font(k, fs), fill=c if c is not None else ink, anchor='ls')
        for (a, bb, y, th, c) in ln['rules']:
            dr.line([(a - x0, y - y0), (bb - x0, y - y0)], fill=c if c is not None else ink, width=max(1, int(round(th))))
    if P.col_rule is not None:
        gx, ya, yb = P.col_rule
        dr.line([(gx - x0, ya - y0), (gx - x0, yb - y0)], fill=tuple(min(255, v + 60) for v in ink), width=2)
    arr = np.asarray(img).copy()
    for mk in marks:
        draw_mark(arr, mk, x0, y0)
    if cover is not None:
        draw_cover(arr, cover, x0, y0)
    return arr


def jitter_poly(pts, rng, amp):
    pts = np.asarray(pts, float)
    return pts + rng.normal(0, amp, pts.shape)


def smooth_curve(pts, n=24):
    pts = np.asarray(pts, float)
    out = []
    for j in range(len(pts) - 1):
        for t in np.linspace(0, 1, n, endpoint=False):
            out.append(pts[j] * (1 - t) + pts[j + 1] * t)
    out.append(pts[-1])
    out = np.array(out)
    k = max(1, n // 4)
    ker = np.ones(k) / k
    if len(out) > k * 2:
        sm = np.c_[np.convolve(np.pad(out[:, 0], (k, k), 'edge'), ker, 'same')[k:-k],
                   np.convolve(np.pad(out[:, 1], (k, k), 'edge'), ker, 'same')[k:-k]]
        sm[0], sm[-1] = out[0], out[-1]
        return sm
    return out


def stroke(arr, pts, color, th, alpha=0.9):
    ov = arr.copy()
    p = np.round(pts * 4).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(ov, [p], False, color, int(max(1, round(th))), cv2.LINE_AA, shift=2)
    arr[:] = (arr.astype(np.float32) * (1 - alpha) + ov.astype(np.float32) * alpha).astype(np.uint8) \
        if alpha < 1 else ov


def draw_mark(arr, mk, ox, oy):
    rng = np.random.default_rng(mk['seed'])
    b = mk['box']
    x0, y0, x1, y1 = b[0] - ox, b[1] - oy, b[2] - ox, b[3] - oy
    w, h = x1 - x0, y1 - y0
    if x1 < -50 or y1 < -50 or x0 > arr.shape[1] + 50 or y0 > arr.shape[0] + 50:
        return
    col = mk['color']
    th = max(2.0, 0.09 * E * rng.uniform(0.8, 1.3))
    k = mk['kind']
    if k == 'tick':
        pts = [(x0 + 0.05 * w, y0 + 0.55 * h), (x0 + 0.35 * w, y0 + 0.92 * h), (x0 + 0.98 * w, y0 + 0.05 * h)]
        stroke(arr, smooth_curve(jitter_poly(pts, rng, 0.03 * w), 10), col, th)
    elif k == 'cross':
        stroke(arr, smooth_curve(jitter_poly([(x0 + .1 * w, y0 + .1 * h), (x1 - .1 * w, y1 - .1 * h)], rng, .03 * w), 10), col, th)
        stroke(arr, smooth_curve(jitter_poly([(x1 - .1 * w, y0 + .12 * h), (x0 + .12 * w, y1 - .1 * h)], rng, .03 * w), 10), col, th)
    elif k == 'star':
        cxs, cys, r = (x0 + x1) / 2, (y0 + y1) / 2, min(w, h) / 2
        pts = []
        for j in range(6):
            a = -math.pi / 2 + j * 4 * math.pi / 5
            pts.append((cxs + r * math.cos(a), cys + r * math.sin(a)))
        stroke(arr, jitter_poly(pts, rng, 0.03 * r), col, th * 0.8)
    else:
        text = mk['text'] if k != 'qmark' else '?'
        fk = 'sans_sc' if re.search(r'[\u4e00-\u9fff]', text) else choice(rng, ['dv_sans_o', 'lib_sans_i', 'lib_serif_i'])
        for ch in text:
            if ch not in COVER[fk]:
                fk = 'sans_sc'
        fs = int(h * (0.8 if k != 'qmark' else 1.0))
        f = font(fk, fs)
        tw = f.getlength(text)
        pad = int(fs * 0.6)
        im = Image.new('L', (int(tw) + 2 * pad, fs * 2 + 2 * pad), 0)
        ImageDraw.Draw(im).text((pad, pad + fs), text, font=f, fill=255, anchor='ls', stroke_width=max(1, fs // 22))
        a = np.asarray(im).astype(np.float32) / 255.0
        ang = rng.uniform(-14, 14)
        shear = rng.uniform(-0.25, 0.1)
        hh, ww = a.shape
        A = cv2.getRotationMatrix2D((ww / 2, hh / 2), ang, 1.0)
        A[0, 1] += shear
        a = cv2.warpAffine(a, A, (ww, hh), flags=cv2.INTER_LINEAR)
        # place so the text centre sits at the box centre (score circles sit around it)
        cxs, cys = (x0 + x1) / 2, (y0 + y1) / 2
        px, py = int(round(cxs - ww / 2)), int(round(cys - hh / 2 + fs * 0.3))
        blend(arr, a * 0.92, col, px, py)
        if k == 'score':
            ov = np.zeros(arr.shape[:2], np.float32)
            rx, ry = w / 2 * rng.uniform(0.95, 1.1), h / 2 * rng.uniform(0.95, 1.1)
            a0 = rng.uniform(0, 360)
            ts = np.radians(np.linspace(a0, a0 + rng.uniform(340, 385), 60))
            rr = 1 + rng.normal(0, 0.03, len(ts)).cumsum() * 0.3
            pts = np.c_[cxs + rx * rr * np.cos(ts), cys + ry * rr * np.sin(ts)]
            cv2.polylines(ov, [np.round(pts * 4).astype(np.int32).reshape(-1, 1, 2)], False, 1.0,
                          int(round(th)), cv2.LINE_AA, shift=2)
            blend(arr, ov * 0.9, col, 0, 0)


def blend(arr, alpha, col, px, py):
    H, W = arr.shape[:2]
    h, w = alpha.shape
    xa, ya = max(0, px), max(0, py)
    xb, yb = min(W, px + w), min(H, py + h)
    if xb <= xa or yb <= ya:
        return
    a = alpha[ya - py:yb - py, xa - px:xb - px][..., None]
    reg = arr[ya:yb, xa:xb].astype(np.float32)
    # ink multiplies the paper
    tgt = reg * (np.array(col, np.float32) / 255.0)
    arr[ya:yb, xa:xb] = (reg * (1 - a) + tgt * a).clip(0, 255).astype(np.uint8)


def draw_cover(arr, cov, ox, oy):
    H, W = arr.shape[:2]
    if cov['kind'] == 'finger':
        a = cov['a'] - (ox, oy)
        b = cov['b'] - (ox, oy)
        r = cov['r']
        xa, xb = int(max(0, min(a[0], b[0]) - r - 40)), int(min(W, max(a[0], b[0]) + r + 40))
        ya, yb = int(max(0, min(a[1], b[1]) - r - 40)), int(min(H, max(a[1], b[1]) + r + 40))
        if xb <= xa or yb <= ya:
            return
        gx, gy = np.meshgrid(np.arange(xa, xb, dtype=np.float32), np.arange(ya, yb, dtype=np.float32))
        pts = np.c_[gx.ravel(), gy.ravel()]
        dd = seg_dist(pts, a, b).reshape(gx.shape)
        # soft shadow first (offset)
        sh = seg_dist(pts - np.array([0.25 * r, 0.35 * r]), a, b).reshape(gx.shape)
        shadow = np.clip((r * 1.35 - sh) / (0.6 * r), 0, 1) * 0.35
        reg = arr[ya:yb, xa:xb].astype(np.float32)
        reg *= (1 - shadow[..., None])
        inside = np.clip((r - dd) / 2.0, 0, 1)
        shade = 0.62 + 0.38 * np.sqrt(np.clip(1 - (dd / r) ** 2, 0, 1))
        skin = np.array(cov['skin'], np.float32)
        fcol = skin[None, None, :] * shade[..., None]
        # nail near the tip
        t = ((pts - a) @ (b - a)) / ((b - a) @ (b - a))
        t = t.reshape(gx.shape) * np.linalg.norm(b - a)
        nail = np.clip(1 - ((t - 0.35 * r) / (0.9 * r)) ** 2 - (dd / (0.6 * r)) ** 2, 0, 1)
        nail = (nail > 0).astype(np.float32) * 0.25
        fcol = fcol * (1 - nail[..., None]) + 245 * nail[..., None]
        reg = reg * (1 - inside[..., None]) + fcol * inside[..., None]
        arr[ya:yb, xa:xb] = reg.clip(0, 255).astype(np.uint8)
    else:
        cone, body = cov['polys']
        img = Image.fromarray(arr)
        dr = ImageDraw.Draw(img)
        sh = [tuple(p - (ox, oy) + (0.25 * E, 0.3 * E)) for p in body]
        ov = Image.new('L', img.size, 0)
        ImageDraw.Draw(ov).polygon(sh, fill=80)
        arr2 = np.asarray(img).astype(np.float32)
        o = np.asarray(ov).astype(np.float32)[..., None] / 255.0
        o = cv2.GaussianBlur(o[..., 0], (0, 0), 6)[..., None]
        arr2 = arr2 * (1 - o)
        img = Image.fromarray(arr2.clip(0, 255).astype(np.uint8))
        dr = ImageDraw.Draw(img)
        dr.polygon([tuple(p - (ox, oy)) for p in body], fill=cov['color'])
        dr.polygon([tuple(p - (ox, oy)) for p in cone], fill=(150, 150, 155))
        tip = cov['tip'] - (ox, oy)
        dr.ellipse([tip[0] - 3, tip[1] - 3, tip[0] + 3, tip[1] + 3], fill=(40, 40, 40))
        arr[:] = np.asarray(img)


# ----------------------------------------------------------------- photo synthesis
def smooth_noise(rng, H, W, cell):
    gh, gw = H // cell + 3, W // cell + 3
    n = rng.normal(0, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(n, (W, H), interpolation=cv2.INTER_CUBIC)


def desk_image(rng, H, W):
    kind = choice(rng, ['wood', 'plain', 'cloth', 'dark'], [0.4, 0.3, 0.15, 0.15])
    if kind == 'wood':
        base = np.array(choice(rng, [(150, 105, 65), (120, 80, 50), (185, 145, 100), (95, 65, 45)]), np.float32)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        a = rng.uniform(0, math.pi)
        u = xx * math.cos(a) + yy * math.sin(a)
        warp_ = smooth_noise(rng, H, W, 160) * 25
        g = np.sin((u + warp_) * rng.uniform(0.03, 0.08)) * 0.5 + np.sin((u + warp_ * 2) * 0.21) * 0.2
        lum = 1 + 0.08 * g + 0.05 * smooth_noise(rng, H, W, 90)
    elif kind == 'plain':
        base = np.array(choice(rng, [(205, 205, 200), (170, 175, 180), (200, 190, 170), (120, 140, 120)]), np.float32)
        lum = 1 + 0.04 * smooth_noise(rng, H, W, 120)
    elif kind == 'cloth':
        base = np.array(choice(rng, [(60, 80, 120), (110, 50, 50), (70, 100, 80)]), np.float32)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        lum = 1 + 0.06 * np.sin(xx * 0.9) * np.sin(yy * 0.9) + 0.05 * smooth_noise(rng, H, W, 80)
    else:
        base = np.array(choice(rng, [(45, 45, 50), (30, 32, 38), (60, 55, 50)]), np.float32)
        lum = 1 + 0.08 * smooth_noise(rng, H, W, 100)
    img = base[None, None, :] * lum[..., None]
    img += rng.normal(0, 3, (H, W, 1)).astype(np.float32)
    return img, kind


def make_photo(P, d, cam, fr, marks, cover):
    rng = d.rng
    W, H = cam['W'], cam['H']
    Hm = fr['H']
    Hi = np.linalg.inv(Hm)
    corners = np.array([[0, 0], [W, 0], [W, H], [0, H]], float)
    pc = apply_h(Hi, corners)
    pad = 8
    screen = cam['screen']
    if screen:
        sr = cam['screen_rect']
        bx0, by0, bx1, by1 = sr
    else:
        bx0, by0, bx1, by1 = 0, 0, P.W, P.H
    x0 = max(bx0, math.floor(pc[:, 0].min()) - pad)
    y0 = max(by0, math.floor(pc[:, 1].min()) - pad)
    x1 = min(bx1, math.ceil(pc[:, 0].max()) + pad)
    y1 = min(by1, math.ceil(pc[:, 1].max()) + pad)
    crop = render_region(P, d, x0, y0, x1, y1, marks, cover,
                         screen_bg=cam.get('app_bg') if screen else None)
    T = Hm @ np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], float)
    s = fr['s']
    if s < 0.85:
        r = min(1.0, s / 0.85)
        nw, nh = max(1, int(round(crop.shape[1] * r))), max(1, int(round(crop.shape[0] * r)))
        rx, ry = crop.shape[1] / nw, crop.shape[0] / nh
        crop = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA)
        T = T @ np.array([[rx, 0, 0], [0, ry, 0], [0, 0, 1]], float)
    ones = np.full(crop.shape[:2], 255, np.uint8)
    warped = cv2.warpPerspective(crop, T, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=(255, 255, 255)).astype(np.float32)
    mask = cv2.warpPerspective(ones, T, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=0).astype(np.float32) / 255.0
    tags = []
    if not screen:
        bg, dk = desk_image(rng, H, W)
        tags.append('desk_' + dk)
        # page shadow on the desk
        off = rng.uniform(4, 22, 2) * rng.choice([-1, 1], 2)
        M = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
        sh = cv2.warpAffine(mask, M, (W, H), borderValue=0)
        sh = cv2.GaussianBlur(sh, (0, 0), rng.uniform(6, 20))
        bg *= (1 - rng.uniform(0.25, 0.55) * sh)[..., None]
        paper = np.array([rng.uniform(238, 255), rng.uniform(236, 253), rng.uniform(225, 248)], np.float32)
        tex = 1 + 0.012 * smooth_noise(rng, H, W, 40) + rng.normal(0, 0.008, (H, W)).astype(np.float32)
        page = warped * (paper / 255.0)[None, None, :] * tex[..., None]
        img = bg * (1 - mask[..., None]) + page * mask[..., None]
        # uneven light, vignette
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        xn, yn = xx / W - 0.5, yy / H - 0.5
        L = 1 + rng.uniform(-0.18, 0.18) * xn + rng.uniform(-0.18, 0.18) * yn
        mx, my = rng.uniform(-0.5, 0.5, 2)
        L += rng.uniform(-0.08, 0.12) * np.exp(-((xn - mx) ** 2 + (yn - my) ** 2) / (2 * rng.uniform(0.1, 0.4) ** 2))
        if rng.random() < 0.25:
            # soft shadow of the phone / hand across a side
            a = rng.uniform(0, 2 * math.pi)
            proj = xn * math.cos(a) + yn * math.sin(a)
            edge = rng.uniform(0.25, 0.45)
            L *= 1 - rng.uniform(0.15, 0.35) * np.clip((proj - edge) / 0.12, 0, 1)
            tags.append('hand_shadow')
        v = rng.uniform(0.08, 0.35)
        L *= 1 - v * (xn ** 2 + yn ** 2) * 2
        wb = np.array([rng.uniform(0.93, 1.04), 1.0, rng.uniform(0.88, 1.03)], np.float32)
        img = img * L[..., None] * wb[None, None, :] * rng.uniform(0.9, 1.08)
    else:
        tags.append('screen')
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        room = np.array(choice(rng, [(30, 30, 35), (70, 65, 60), (120, 110, 100)]), np.float32)
        bg = room[None, None, :] * (1 + 0.15 * smooth_noise(rng, H, W, 150))[..., None]
        # bezel polygon
        sr = cam['screen_rect']
        bw = cam['bezel']
        bez = np.array([[sr[0] - bw, sr[1] - bw], [sr[2] + bw, sr[1] - bw], [sr[2] + bw, sr[3] + bw],
                        [sr[0] - bw, sr[3] + bw]], float)
        bq = apply_h(Hm, bez)
        bmask = np.zeros((H, W), np.uint8)
        cv2.fillPoly(bmask, [np.round(bq * 4).astype(np.int32).reshape(-1, 1, 2)], 255, cv2.LINE_AA, shift=2)
        bmask = bmask.astype(np.float32)[..., None] / 255.0
        bez_col = np.array([rng.uniform(12, 30)] * 3, np.float32)
        bezel = bez_col * (1 + 0.2 * (yy / H)[..., None])
        img = bg * (1 - bmask) + bezel * bmask
        scr_white = np.array([rng.uniform(215, 245), rng.uniform(220, 248), rng.uniform(228, 255)], np.float32)
        black = rng.uniform(18, 40)
        scr = black + warped * ((scr_white - black) / 255.0)[None, None, :]
        # moire
        a = rng.uniform(0, math.pi)
        f1 = rng.uniform(0.018, 0.06)
        curv = rng.uniform(-3, 3) * smooth_noise(rng, H, W, 300)
        ph = (xx * math.cos(a) + yy * math.sin(a)) * f1 * 2 * math.pi + curv
        amp = rng.uniform(0.008, 0.022)
        moire = np.stack([1 + amp * np.sin(ph + k * 2.1) for k in range(3)], -1)
        grid = 1 - rng.uniform(0.005, 0.015) * (np.sin(xx * rng.uniform(1.5, 2.8)) ** 2)[..., None]
        scr = scr * moire * grid
        # glare
        gx_, gy_ = rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H
        sg = rng.uniform(0.12, 0.35) * max(W, H)
        gl = np.exp(-(((xx - gx_) / sg) ** 2 + ((yy - gy_) / (sg * rng.uniform(0.4, 1.0))) ** 2))
        scr = scr + rng.uniform(35, 85) * gl[..., None]
        img = img * (1 - mask[..., None]) + scr * mask[..., None]
        xn, yn = xx / W - 0.5, yy / H - 0.5
        img *= (1 - rng.uniform(0.05, 0.2) * (xn ** 2 + yn ** 2) * 2)[..., None]
    # blur
    r = rng.random()
    if r < 0.22:
        sig = rng.uniform(0.6, 1.5)
        img = cv2.GaussianBlur(img, (0, 0), sig)
        tags.append('blur')
    elif r < 0.32:
        ln_ = int(rng.integers(3, 8))
        k = np.zeros((ln_, ln_), np.float32)
        k[ln_ // 2, :] = 1
        Mr = cv2.getRotationMatrix2D((ln_ / 2 - 0.5, ln_ / 2 - 0.5), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, Mr, (ln_, ln_))
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        tags.append('motion_blur')
    # sensor noise
    sig = rng.uniform(1.5, 6.0)
    img = img + rng.normal(0, sig, img.shape).astype(np.float32) + \
        rng.normal(0, 1, (H, W, 1)).astype(np.float32) * np.sqrt(np.clip(img, 0, 255)) * rng.uniform(0.05, 0.25)
    out = np.clip(img, 0, 255).astype(np.uint8)
    return out, tags


# ----------------------------------------------------------------- one photo
SIZES = [(1280, 960), (960, 1280), (1600, 1200), (1024, 768)]


def sample_camera(rng, screen, upside_down):
    W, H = SIZES[int(rng.choice(4, p=[0.6, 0.15, 0.13, 0.12]))]
    if upside_down:
        rot = 180 + rng.uniform(-4, 4)
    else:
        rot = float(np.clip(rng.normal(0, 3.0), -7, 7))
    pm = 0.6e-4 if screen else 1.2e-4
    g, h = rng.uniform(-pm, pm, 2)
    return {'W': W, 'H': H, 'rot': float(rot), 'g': float(g), 'h': float(h), 'screen': screen}


def one_photo(bank, i, seed):
    t0 = time.time()
    d = design(bank, i, seed)
    finish_design(bank, d)
    rng = d.rng
    screen = (i % 12) == 6          # one photo in twelve is a photo of a screen
    cam = sample_camera(rng, screen, (i % 30) == 11 and not screen)   # 4 pages in 120 turned 180 degrees
    em_target = float(rng.uniform(24, 54)) if not d.two_col else float(rng.uniform(23, 42))
    fr = None
    P = None
    extra = 0.0
    fallback_sizes = [s for s in [(1024, 768), (1280, 960)] if s != (cam['W'], cam['H'])]
    for attempt in range(12):
        if attempt <= 8:
            extra = 0.25 * E * attempt
        P = build_layout(bank, d, extra)
        fr = search_frame(P, cam, rng, em_target, xbias=(0.0 if not d.two_col else (0.22 if d.f_col == 0 else -0.22)))
        if fr is not None:
            break
        if attempt == 8 and fallback_sizes:
            # last resort: another photo size (happens only when nothing else passes)
            cam['W'], cam['H'] = fallback_sizes.pop(0)
            extra = 0.0
    if fr is None:
        raise RuntimeError('photo %d: no frame satisfies the nearest-problem rule' % i)
    marks, mtags = plan_marks(P, d, fr['H'], cam['W'], cam['H'])
    cover = plan_cover(P, d, fr['H'], cam['W'], cam['H'])
    if screen:
        fc = P.F['corners']
        Hi = np.linalg.inv(fr['H'])
        pc = apply_h(Hi, np.array([[0, 0], [cam['W'], 0], [cam['W'], cam['H']], [0, cam['H']]], float))
        vx0, vy0 = pc.min(0)
        vx1, vy1 = pc.max(0)
        fx0, fy0 = fc.min(0)
        fx1, fy1 = fc.max(0)
        fr_ = rng.uniform(-0.25, 0.12, 4)
        sx0 = min(fx0 - 1.0 * E, vx0 + fr_[0] * (vx1 - vx0))
        sx1 = max(fx1 + 1.0 * E, vx1 - fr_[1] * (vx1 - vx0))
        sy0 = min(fy0 - 1.0 * E, vy0 + fr_[2] * (vy1 - vy0))
        sy1 = max(fy1 + 1.0 * E, vy1 - fr_[3] * (vy1 - vy0))
        cam['screen_rect'] = (sx0, sy0, sx1, sy1)
        cam['bezel'] = rng.uniform(1.0, 4.0) * E
        cam['app_bg'] = choice(rng, [(82, 86, 89), (230, 230, 232), (50, 54, 58), (240, 240, 240)])
    img, ptags = make_photo(P, d, cam, fr, marks, cover)
    q = int(rng.integers(55, 91))
    ok, buf = cv2.imencode('.jpg', img[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, q])
    jpg = buf.tobytes()
    # ---------- meta
    W, H = cam['W'], cam['H']
    ev = fr['ev']
    fq = [r for r in ev if r[0] is P.F][0]
    others = sorted([(r[3], r[0]['bank'], r[2]) for r in ev if r[0] is not P.F], key=lambda t: t[0])
    dF = fr['dF']
    kinds = ['lang_' + d.lang, 'one_line' if len(P.F['lines']) == 1 else 'lines_%d' % len(P.F['lines'])]
    kinds.append('two_column' if d.two_col else 'one_column')
    if d.two_col:
        if d.col_rule:
            kinds.append('column_rule')
        lv = getattr(P, 'level_line', None)
        if lv is not None and visible(fr['H'], lv['box'], W, H, 0.0):
            kinds.append('other_column_level')
    kinds.append('tight_list' if d.tight else 'normal_spacing')
    above_tag = 'nothing'
    above_text = ''
    if P.above_ln is not None:
        ln = P.above_ln
        if ln['role'] == 'problem':
            ex = ln.get('extra')
            if ex:
                above_tag = ex
            elif ln is ln['el'] and False:
                pass
            else:
                plines = [p for p in P.problems if p['el'] is ln['el']][0]['lines']
                if ln is plines[-1] and len(plines) >= 2 and d.above == 'wrapped_word' and ln['el']['bank'] == d.wrapped_k:
                    above_tag = 'wrapped_word'
                else:
                    above_tag = 'problem_line'
            above_text = ln.get('text') or ''.join(p[2] for p in ln['pieces'])
        else:
            above_tag = ln['role']
            above_text = ln.get('text', '')
    kinds.append('above_' + above_tag)
    if above_tag in ('title', 'section_heading', 'name_line', 'instruction', 'question_line', 'school'):
        kinds.append('first_under_header')
        gap_b = P.F['lines'][0]['y'] - P.above_ln['y']
        if gap_b < d.pitch - 0.5:
            kinds.append('header_tighter')
        sf = P.above_ln['el'].get('sf', 1.0)
        if sf > 1.01:
            kinds.append('header_larger')
        if P.above_ln['el'].get('bold'):
            kinds.append('header_bold')
        wfrac = (P.above_ln['box'][2] - P.above_ln['box'][0]) / P.cw
        kinds.append('header_w_' + ('third' if wfrac < 0.45 else ('half' if wfrac < 0.8 else 'full')))
    elif above_tag != 'nothing':
        kinds.append('neighbour_line_above')
    kinds.append('num_' + d.lstyle if d.lstyle != 'qline' else 'num_none')
    if d.score_note:
        kinds.append('score_note')
    if d.faint:
        kinds.append('num_faint')
    if cover is not None:
        kinds.append('num_' + cover['kind'])
    if d.hanging:
        kinds.append('hanging_indent')
    kinds += mtags
    if d.near_dup is not None and any(p['bank'] == d.near_dup for p in P.problems):
        kinds.append('near_duplicate_neighbour')
    qtxt = d.F['question']
    if '___' in qtxt:
        kinds.append('blank_' + d.blank_style[0])
    if any(c in qtxt for c in list(SUP) + list(SUB)):
        kinds.append('sup_sub')
    kinds.append('size_%dx%d' % (W, H))
    if abs(cam['rot']) > 90:
        kinds.append('rot_180')
    if extra > 0:
        kinds.append('extra_space')
    if q < 65:
        kinds.append('jpeg_low')
    kinds += ptags
    kinds = sorted(set(kinds))
    hull = fq[2]
    fb = fq[1]
    label = P.F['el'].get('label', '') or ''
    meta = {
        'qid': 'h%03d' % i, 'file': 'h%03d.jpg' % i, 'bank_id': d.F['id'], 'width': W, 'height': H,
        'rotation': round(cam['rot'], 2),
        'box': [round(float(fb[:, 0].min()), 1), round(float(fb[:, 1].min()), 1),
                round(float(fb[:, 0].max()), 1), round(float(fb[:, 1].max()), 1)],
        'hull': [[round(float(x), 2), round(float(y), 2)] for x, y in hull],
        'label': label, 'framed_dist': round(dF, 2),
        'nearest_others': [[bank[b]['id'], round(dd, 2)] for dd, b, _ in others[:3]],
        'min_gap_ratio': round((others[0][0] - dF) / max(W, H), 4) if others else None,
        'body_px': round(fr['em'], 1), 'kinds': kinds, 'above': above_tag, 'above_text': above_text,
        'planned_above': d.above, 'n_lines': len(P.F['lines']), 'extra_space_em': round(extra / E, 2), 'jpeg_quality': q,
        'others': [{'bank_id': bank[b]['id'], 'dist': round(dd, 2),
                    'hull': [[round(float(x), 2), round(float(y), 2)] for x, y in hl]} for dd, b, hl in others],
        'secs': round(time.time() - t0, 2),
    }
    return meta, jpg


# ----------------------------------------------------------------- driver
_BANK = None
_SEED = None
_OUT = None


def _work(i):
    meta, jpg = one_photo(_BANK, i, _SEED)
    with open(os.path.join(_OUT, meta['file']), 'wb') as f:
        f.write(jpg)
    return meta


def main():
    global _BANK, _SEED, _OUT
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('out_dir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=181)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--only', default='')
    a = ap.parse_args()
    t0 = time.time()
    bank = load_bank(a.bank)
    needed = set(template_chars())
    for r in bank:
        needed |= set(r['question'])
    needed |= set(SUP.values()) | set(SUB.values())
    resolve_fonts(needed)
    os.makedirs(a.out_dir, exist_ok=True)
    idx = list(range(1, a.count + 1))
    if a.only:
        want = {int(x) for x in a.only.split(',') if x.strip()}
        idx = [k for k in idx if k in want]
    _BANK, _SEED, _OUT = bank, a.seed, a.out_dir
    metas = []
    if a.jobs > 1:
        import multiprocessing as mp
        ctx = mp.get_context('fork')
        with ctx.Pool(a.jobs) as pool:
            for m in pool.imap_unordered(_work, idx):
                metas.append(m)
    else:
        for k in idx:
            metas.append(_work(k))
    # merge with an existing meta.jsonl when --only regenerates a subset
    mpath = os.path.join(a.out_dir, 'meta.jsonl')
    allm = {}
    if a.only and os.path.exists(mpath):
        with open(mpath, encoding='utf-8') as f:
            for line in f:
                if line.strip():
                    m = json.loads(line)
                    allm[m['qid']] = m
    for m in metas:
        allm[m['qid']] = m
    rows = [allm[k] for k in sorted(allm)]
    byid = {r['id']: r for r in bank}
    with open(mpath, 'w', encoding='utf-8') as f:
        for m in rows:
            m2 = dict(m)
            m2.pop('secs', None)
            f.write(json.dumps(m2, ensure_ascii=False) + '\n')
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for m in rows:
            w.writerow([m['qid'], byid[m['bank_id']]['question']])
    with open(os.path.join(a.out_dir, 'queries.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for m in rows:
            w.writerow([m['qid'], byid[m['bank_id']]['question'], m['bank_id'], 'exact'])
    secs = [m.get('secs', 0) for m in metas]
    print('wrote %d photos to %s in %.1fs (slowest photo %.2fs)' % (len(metas), a.out_dir, time.time() - t0,
                                                                    max(secs) if secs else 0))


if __name__ == '__main__':
    main()
