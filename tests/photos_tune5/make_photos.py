#!/usr/bin/env python3
"""Synthetic phone photos of printed homework worksheets.

Each photo shows ONE framed problem of a printed worksheet (nearest the photo
centre, fully inside the frame) with neighbouring problems around it, taken
with a phone under varied conditions.  The framed problem's text is exactly
the bank item's ``question`` field.

Usage:
    python tests/photos_tune5/make_photos.py --bank appliance/data/demo_bank.jsonl \
        OUT_DIR --count 120 --seed 67 [--workers 2]
    python tests/photos_tune5/make_photos.py --summary OUT_DIR

Only numpy, Pillow, opencv-python-headless and installed system fonts are used.
Output is byte-identical for a given seed whatever the number of workers.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import sys
import time
from collections import Counter
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

PAGE_W, PAGE_H = 1500, 2121
SIZES = [(1280, 960), (960, 1280), (1600, 1200), (1200, 1600), (2048, 1536)]
CENTRE_RATIO_MIN = 1.6          # internal requirement (brief asks >= 1.25)

# ----------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------
_NOTO = '/usr/share/fonts/opentype/noto/'
_LIB = '/usr/share/fonts/truetype/liberation/'
_DJ = '/usr/share/fonts/truetype/dejavu/'
FONT_FILES = {
    'noto_sans': (_NOTO + 'NotoSansCJK-Regular.ttc', 2),
    'noto_sans_bold': (_NOTO + 'NotoSansCJK-Bold.ttc', 2),
    'noto_serif': (_NOTO + 'NotoSerifCJK-Regular.ttc', 2),
    'noto_serif_bold': (_NOTO + 'NotoSerifCJK-Bold.ttc', 2),
    'lib_sans': (_LIB + 'LiberationSans-Regular.ttf', 0),
    'lib_sans_bold': (_LIB + 'LiberationSans-Bold.ttf', 0),
    'lib_serif': (_LIB + 'LiberationSerif-Regular.ttf', 0),
    'lib_serif_bold': (_LIB + 'LiberationSerif-Bold.ttf', 0),
    'dj_sans': (_DJ + 'DejaVuSans.ttf', 0),
    'dj_sans_bold': (_DJ + 'DejaVuSans-Bold.ttf', 0),
    'dj_serif': (_DJ + 'DejaVuSerif.ttf', 0),
    'dj_serif_bold': (_DJ + 'DejaVuSerif-Bold.ttf', 0),
    'hand_lib_serif_it': (_LIB + 'LiberationSerif-Italic.ttf', 0),
    'hand_lib_sans_it': (_LIB + 'LiberationSans-Italic.ttf', 0),
    'hand_lib_narrow_it': (_LIB + 'LiberationSansNarrow-Italic.ttf', 0),
    'hand_dj_sans_obl': (_DJ + 'DejaVuSans-Oblique.ttf', 0),
    'hand_dj_serif_it': (_DJ + 'DejaVuSerif-Italic.ttf', 0),
}
CJK_FONTS = ['noto_sans', 'noto_serif']
LATIN_FONTS = ['same_as_cjk', 'lib_sans', 'lib_serif', 'dj_sans', 'dj_serif']
HAND_FONTS = [n for n in FONT_FILES if n.startswith('hand_')]


def _check_fonts():
    missing = [n for n, (p, _) in FONT_FILES.items() if not os.path.exists(p)]
    for base in ('noto_sans', 'noto_serif', 'dj_sans'):
        if base in missing:
            sys.exit('required font missing: %s' % FONT_FILES[base][0])
    for n in missing:
        FONT_FILES.pop(n)
        for lst in (LATIN_FONTS, HAND_FONTS):
            if n in lst:
                lst.remove(n)


_check_fonts()


@lru_cache(maxsize=96)
def _font(name, size_q):
    path, idx = FONT_FILES[name]
    return ImageFont.truetype(path, size_q / 8.0, index=idx,
                              layout_engine=ImageFont.Layout.BASIC)


def font(name, size):
    if name not in FONT_FILES:             # bold variant missing -> regular
        name = name.replace('_bold', '')
    return _font(name, max(8, int(round(size * 8))))


@lru_cache(maxsize=None)
def _notdef(name):
    m = font(name, 40).getmask('\ue000')
    return (m.size, np.array(m).tobytes())


@lru_cache(maxsize=None)
def has_glyph(name, ch):
    if ch.isspace():
        return True
    m = font(name, 40).getmask(ch)
    return (m.size, np.array(m).tobytes()) != _notdef(name)


# ----------------------------------------------------------------------------
# text helpers
# ----------------------------------------------------------------------------
CJK_CLOSE = set('，。、；：？！）》」』”’】〉…')
CJK_OPEN = set('（《「『“‘【〈')
LAT_CLOSE = set(',.;:!?)]}%')
LAT_OPEN = set('([{')
SUP = {'²': '2', '³': '3', '¹': '1', '⁰': '0', '⁴': '4', '⁵': '5', '⁶': '6',
       '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-', '⁺': '+', 'ⁿ': 'n'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6',
       '₇': '7', '₈': '8', '₉': '9', 'ₙ': 'n', 'ₓ': 'x'}
CN_DIG = '零一二三四五六七八九'


def is_cjk(c):
    o = ord(c)
    return ((0x2E80 <= o <= 0x9FFF) or (0xF900 <= o <= 0xFAFF)
            or (0xFF00 <= o <= 0xFFEF) or (0x3000 <= o <= 0x303F)
            or c in '“”‘’…—')


def has_cjk(s):
    return any('\u4e00' <= c <= '\u9fff' for c in s)


def cn_num(n):
    if n < 10:
        return CN_DIG[n]
    if n < 20:
        return '十' + (CN_DIG[n % 10] if n % 10 else '')
    return CN_DIG[n // 10] + '十' + (CN_DIG[n % 10] if n % 10 else '')


def circled(n):
    if n <= 20:
        return chr(0x2460 + n - 1)
    if n <= 35:
        return chr(0x3251 + n - 21)
    if n <= 50:
        return chr(0x32B1 + n - 36)
    return '(%d)' % n


NUM_STYLES = ['1.', '1．', '1、', '(1)', '（1）', '①', '第1题', 'Q1',
              'Question 1:', '一、', 'Ex. 1', 'Exercise 1', '[1]']


def fmt_num(style, n):
    return {
        '1.': '%d.' % n, '1．': '%d．' % n, '1、': '%d、' % n,
        '(1)': '(%d)' % n, '（1）': '（%d）' % n, '①': circled(n),
        '第1题': '第%d题' % n, 'Q1': 'Q%d' % n, 'Question 1:': 'Question %d:' % n,
        '一、': cn_num(n) + '、', 'Ex. 1': 'Ex. %d' % n,
        'Exercise 1': 'Exercise %d' % n, '[1]': '[%d]' % n,
    }[style]


def tokens_from_text(text, script_mode):
    """-> list of (text, kind); kind in n/sup/sub/blank/space."""
    toks = []
    i = 0
    while i < len(text):
        if text.startswith('___', i):
            j = i
            while j < len(text) and text[j] == '_':
                j += 1
            toks.append((text[i:j], 'blank'))
            i = j
            continue
        c = text[i]
        if script_mode == 'raised' and c in SUP:
            toks.append((SUP[c], 'sup'))
        elif script_mode == 'raised' and c in SUB:
            toks.append((SUB[c], 'sub'))
        elif c == ' ' or c == '\u3000':
            toks.append((' ', 'space'))
        else:
            toks.append((c, 'n'))
        i += 1
    return toks


def atoms_from_tokens(toks):
    """Group tokens into unbreakable atoms: list of dict(toks, sp)."""
    atoms = []
    cur = None
    cur_cls = None
    pending_space = False
    glue = False

    def flush():
        nonlocal cur, cur_cls
        if cur is not None:
            atoms.append(cur)
        cur, cur_cls = None, None

    for t, k in toks:
        if k == 'space':
            flush()
            pending_space = True
            glue = False
            continue
        if k == 'blank':
            flush()
            atoms.append({'toks': [(t, k)], 'sp': pending_space})
            pending_space = False
            glue = False
            continue
        cjk = (k == 'n' and is_cjk(t))
        closing = (t in CJK_CLOSE) or (t in LAT_CLOSE and k == 'n')
        if closing and not pending_space:
            if cur is None and atoms:
                cur = atoms.pop()
                cur_cls = 'x'
            if cur is not None:
                cur['toks'].append((t, k))
                continue
        if glue and cur is not None:
            cur['toks'].append((t, k))
            glue = t in CJK_OPEN or t in LAT_OPEN
            cur_cls = 'cjk' if cjk else 'lat'
            continue
        if cjk:
            flush()
            cur = {'toks': [(t, k)], 'sp': pending_space}
            cur_cls = 'cjk'
        else:
            if cur is not None and cur_cls in ('lat', 'x') and not pending_space:
                cur['toks'].append((t, k))
            else:
                flush()
                cur = {'toks': [(t, k)], 'sp': pending_space}
            cur_cls = 'lat'
        pending_space = False
        glue = t in CJK_OPEN or t in LAT_OPEN
    flush()
    return atoms


class Style:
    """Page typography."""

    def __init__(self, cjk, latin, script_mode, blank_mode, blank_em):
        self.cjk = cjk
        self.latin = cjk if latin == 'same_as_cjk' else latin
        self.script_mode = script_mode
        self.blank_mode = blank_mode
        self.blank_em = blank_em

    def font_for(self, ch, bold=False):
        name = self.cjk if is_cjk(ch) else self.latin
        if not has_glyph(name, ch):
            for alt in (self.latin, self.cjk, 'dj_sans'):
                if has_glyph(alt, ch):
                    name = alt
                    break
        return name + ('_bold' if bold else '')

    def runs(self, toks, size, bold=False):
        runs = []
        for t, k in toks:
            if k == 'blank':
                if self.blank_mode == 'rule':
                    runs.append({'kind': 'rule', 'w': self.blank_em * size, 's': size})
                    continue
                fn = self.font_for('_', bold)
                runs.append({'kind': 'text', 't': t, 'f': fn, 's': size, 'dy': 0.0})
                continue
            if k == 'sup':
                s, dy = size * 0.62, -0.36 * size
            elif k == 'sub':
                s, dy = size * 0.62, 0.15 * size
            else:
                s, dy = size, 0.0
            fn = self.font_for(t, bold)
            last = runs[-1] if runs else None
            if (last is not None and last['kind'] == 'text' and last['f'] == fn
                    and last['s'] == s and last['dy'] == dy and k != 'blank'
                    and not last.get('blank')):
                last['t'] += t
            else:
                runs.append({'kind': 'text', 't': t, 'f': fn, 's': s, 'dy': dy})
        for r in runs:
            if r['kind'] == 'text':
                r['w'] = font(r['f'], r['s']).getlength(r['t'])
        return runs

    def atoms(self, text, size, bold=False, script=True):
        toks = tokens_from_text(text, self.script_mode if script else 'unicode')
        out = []
        for a in atoms_from_tokens(toks):
            runs = self.runs(a['toks'], size, bold)
            out.append({'runs': runs, 'w': sum(r['w'] for r in runs), 'sp': a['sp']})
        return out

    def single(self, text, size, bold=False):
        """A string as one unbreakable atom."""
        toks = tokens_from_text(text, 'unicode')
        runs = self.runs([(t, 'n' if k == 'space' else k) for t, k in toks], size, bold)
        return {'runs': runs, 'w': sum(r['w'] for r in runs), 'sp': False}

    def space_w(self, size):
        return font(self.latin, size).getlength(' ')


def flow(atoms, x_first, x_wrap, x_right, space_w):
    lines = [[]]
    x = x_first
    for a in atoms:
        gap = space_w if (a['sp'] and lines[-1]) else 0.0
        if lines[-1] and x + gap + a['w'] > x_right:
            lines.append([])
            x = x_wrap
            gap = 0.0
        lines[-1].append((x + gap, a))
        x += gap + a['w']
    return lines


def emit_atom(ops, x, baseline, atom, color):
    for r in atom['runs']:
        if r['kind'] == 'text':
            ops.append(('text', x, baseline + r['dy'], r['t'], r['f'], r['s'], color,
                        (x, baseline - 1.1 * r['s'] + r['dy'], x + r['w'] + 2,
                         baseline + 0.4 * r['s'] + r['dy'])))
        else:
            y = baseline + 0.12 * r['s']
            ops.append(('line', x + 0.04 * r['w'], y, x + 0.96 * r['w'], y,
                        max(1.5, 0.055 * r['s']), color))
        x += r['w']
    return x


def emit_text(ops, st, text, x, baseline, size, color, bold=False, anchor='l'):
    a = st.single(text, size, bold)
    if anchor == 'c':
        x = x - a['w'] / 2
    elif anchor == 'r':
        x = x - a['w']
    emit_atom(ops, x, baseline, a, color)
    return x, a['w']


# ----------------------------------------------------------------------------
# content pools (written for this generator)
# ----------------------------------------------------------------------------
SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'english': '英语',
           'biology': '生物', 'geography': '地理', 'history': '历史', 'chinese': '语文'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry',
           'english': 'English', 'biology': 'Biology', 'geography': 'Geography',
           'history': 'History', 'chinese': 'Chinese'}
ZH_SHEETS = ['课后练习', '家庭作业', '同步练习', '周末作业', '随堂检测', '单元复习题',
             '基础训练', '课时作业', '巩固提升']
EN_SHEETS = ['Homework Sheet', 'Practice Worksheet', 'Unit Review', 'Weekly Quiz',
             'Revision Exercises', 'Class Practice']
FILLER_ZH = [
    '我们知道，含有未知数的等式叫做方程。解方程就是求出使方程左右两边相等的未知数的值。'
    '在解方程的过程中，常常要用到等式的性质：等式两边加上（或减去）同一个数，结果仍相等；'
    '等式两边乘同一个数，或除以同一个不为 0 的数，结果仍相等。',
    '物体单位体积的质量叫做这种物质的密度。密度是物质的一种特性，同种物质的密度一般是不变的。'
    '在实验中，我们可以用天平测出物体的质量，用量筒测出它的体积，再计算出它的密度。',
    '化学反应前后，参加反应的各物质的质量总和，等于反应后生成的各物质的质量总和，'
    '这个规律叫做质量守恒定律。从微观角度看，反应前后原子的种类、数目和质量都没有改变。',
    '地图是学习地理的重要工具。在使用地图时，要先看清图例和比例尺，'
    '再根据指向标或经纬网判断方向，这样才能从地图上准确地获取信息。',
    '阅读下面的材料，思考作者是如何通过具体事例来表达自己的观点的。'
    '注意体会文中关键词语在表达上的作用，并尝试用自己的话概括段落大意。',
    '生物体的结构和功能是相适应的。细胞是生物体结构和功能的基本单位，'
    '不同的细胞在形态和结构上各有特点，它们共同完成生物体的各项生命活动。',
]
FILLER_EN = [
    'An equation is a statement that two expressions are equal. To solve an equation, '
    'we do the same thing to both sides until the unknown stands alone. Always check '
    'your answer by putting it back into the original equation.',
    'When an object falls freely near the surface of the Earth, its speed increases by '
    'about 10 metres per second every second. In the exercises below, ignore air '
    'resistance unless the question tells you otherwise.',
    'Read each sentence carefully and think about when the action happens. Words such '
    'as yesterday, every day and since often tell us which tense to use.',
    'Living things are made of cells. Cells of different kinds have different shapes '
    'and jobs, but they share some basic parts that keep them alive.',
]
SECTION_ZH = ['3.2 解一元一次方程（一）', '第二节　密度', '5.1 质量守恒定律', '第四课　地图的阅读',
              '1.3 有理数的乘方', '第三节　细胞的结构', '2.4 等差数列']
SECTION_EN = ['Section 2.3  Solving Equations', '4.1  Free Fall', 'Unit 6  Grammar Focus',
              'Lesson 3  Cells and Tissues', '5.2  Probability']
EXHEAD_ZH = ['练习', '习题 3.2', '随堂练习', '课堂练习', '想一想，做一做', '练一练']
EXHEAD_EN = ['Exercises', 'Practice', 'Try These', 'Exercise 4B', 'Check Your Understanding']
EXAM_TITLES_ZH = ['2023—2024学年度第一学期期末考试', '2024年春季学期期中质量检测',
                  '2023—2024学年第二学期月考试卷', '2024年秋季学期阶段性检测']
EXAM_TITLES_EN = ['Mid-term Examination 2024', 'End of Term Test', 'Unit Assessment 2023-2024']
EXAM_SECT_ZH = ['一、选择题（本大题共10小题，每小题3分，共30分）', '二、填空题（每空2分，共20分）',
                '三、计算题（写出必要的步骤）', '四、解答题（共30分）', '五、简答题（本大题共4小题）']
EXAM_SECT_EN = ['Part I  Multiple Choice (30 points)', 'Part II  Short Answer (40 points)',
                'Part III  Calculation', 'Part IV  Open Questions (30 points)']
OPT_WORDS_EN = [('go', 'goes', 'went', 'gone'), ('a', 'an', 'the', '/'),
                ('since', 'for', 'in', 'at'), ('better', 'best', 'good', 'well'),
                ('is', 'are', 'was', 'were'), ('cheap', 'expensive', 'large', 'small'),
                ('cell', 'tissue', 'organ', 'system')]
OPT_WORDS_ZH = [('秦朝', '汉朝', '唐朝', '宋朝'), ('北京', '上海', '南京', '西安'),
                ('光合作用', '呼吸作用', '蒸腾作用', '吸收作用'), ('李白', '杜甫', '白居易', '王维'),
                ('亚洲', '欧洲', '非洲', '南美洲'), ('细胞核', '细胞膜', '细胞质', '细胞壁'),
                ('1911年', '1919年', '1921年', '1949年'),
                ('地球自转产生昼夜交替', '地球公转产生四季变化', '太阳直射点不移动', '经线都是半圆'),
                ('氧气', '氮气', '二氧化碳', '稀有气体')]
UNITS = ['', '', ' cm', ' m/s', ' g', ' kg', ' N', ' J', '°', ' cm²', ' Pa']


def make_options(rng, subject):
    r = rng.random()
    if subject in ('math', 'physics', 'chemistry') and r < 0.8:
        v = int(rng.integers(1, 60))
        d = int(rng.integers(1, 6))
        vals = [v, v + d, v - d, 2 * v] if r < 0.5 else [v, -v, v + 2 * d, v * 10]
        unit = UNITS[int(rng.integers(len(UNITS)))]
        order = rng.permutation(4)
        return ['%d%s' % (vals[j], unit) for j in order]
    if subject == 'english' or (r > 0.85 and subject != 'chinese'):
        ws = OPT_WORDS_EN[int(rng.integers(len(OPT_WORDS_EN)))]
    else:
        ws = OPT_WORDS_ZH[int(rng.integers(len(OPT_WORDS_ZH)))]
    return [ws[j] for j in rng.permutation(4)]


def short_answer(ans, lang_zh, rng):
    """A short hand-written answer derived from the bank answer (never the question)."""
    s = ans.replace('$', '').replace('\\{', '\x01').replace('\\}', '\x02')
    s = s.replace('\\times', '×').replace('\\div', '÷').replace('\\pi', 'π')
    s = s.replace('\\rho', 'ρ').replace('\\cdot', '·').replace('\\approx', '≈')
    for a_, b_ in (('\\cap', '∩'), ('\\cup', '∪'), ('\\log', 'log'), ('\\sin', 'sin'),
                   ('\\cos', 'cos'), ('\\tan', 'tan'), ('\\Omega', 'Ω'), ('\\circ', '°'),
                   ('\\le', '≤'), ('\\ge', '≥'), ('\\neq', '≠'), ('\\%', '%')):
        s = s.replace(a_, b_)
    s = re.sub(r'\\sqrt\{([^{}]*)\}', r'√\1', s)
    s = re.sub(r'\\frac\{([^{}]*)\}\{([^{}]*)\}', r'\1/\2', s)
    s = re.sub(r'_\{([0-9n]+)\}', lambda mm: ''.join('₀₁₂₃₄₅₆₇₈₉'[int(c)] if c.isdigit() else 'ₙ' for c in mm.group(1)), s)
    s = re.sub(r'\\[a-zA-Z]+', '', s)
    s = s.replace('^2', '²').replace('^3', '³').replace('{', '').replace('}', '')
    s = re.sub(r'_([0-9n])', lambda mm: '₀₁₂₃₄₅₆₇₈₉'[int(mm.group(1))] if mm.group(1).isdigit() else 'ₙ', s)
    s = s.replace('\x01', '{').replace('\x02', '}')
    parts = [p.strip() for p in re.split(r'[。；;，！!]|, (?=[A-Za-z])|\. ', s) if p.strip()]

    def balanced(p):
        return p.count('(') == p.count(')') and p.count('（') == p.count('）') and \
            p.count('“') == p.count('”') and p.count('"') % 2 == 0
    parts = [p for p in parts if balanced(p) and (len(p) >= 4 or has_cjk(p) or '=' in p)]
    short = [p for p in parts if 1 <= len(p) <= 20]
    pref = [p for p in short if '=' in p or '答' in p or 'Answer' in p or '是' in p]
    if pref and rng.random() < 0.7:
        pick_ = pref[-1]
    elif short:
        pick_ = short[int(rng.integers(len(short)))]
    elif parts:
        p = parts[-1]
        if has_cjk(p):
            pick_ = p[:int(rng.integers(6, 13))]
        else:
            pick_ = ' '.join(p.split()[:int(rng.integers(2, 5))])
    else:
        pick_ = '略'
    pick_ = pick_.rstrip('：:，,').strip()
    if lang_zh and has_cjk(pick_) and rng.random() < 0.3 and not pick_.startswith(('答', '解')):
        pick_ = ('答：' if rng.random() < 0.6 else '解：') + pick_
    return pick_


# ----------------------------------------------------------------------------
# page layout
# ----------------------------------------------------------------------------
def U(rng, a, b):
    return float(rng.uniform(a, b))


def pick(rng, seq, p=None):
    if p is not None:
        p = np.asarray(p, float)
        p = p / p.sum()
        return seq[int(rng.choice(len(seq), p=p))]
    return seq[int(rng.integers(len(seq)))]


class Page:
    def __init__(self):
        self.ops = []        # drawn with PIL
        self.post = []       # alpha / multiply ops drawn with numpy+cv2
        self.problems = []
        self.meta = {}


def hand_op(rng, text, x, y_top, size, color, angle, lang_font):
    """Build a handwriting op (italic/oblique font, jittered, slanted, rotated);
    returns (op, width_units, height_units)."""
    chars = []
    w = 0.0
    for ch in text:
        if is_cjk(ch) or not has_glyph(lang_font, ch):
            fn = 'noto_sans' if has_glyph('noto_sans', ch) else 'dj_sans'
        else:
            fn = lang_font
        ds = U(rng, 0.88, 1.12)
        dy = U(rng, -0.07, 0.07)
        dx = U(rng, -0.06, 0.1)
        cw = font(fn, size * ds).getlength(ch) * (1 + dx)
        chars.append((ch, fn, ds, dy, dx))
        w += cw
    op = ('hand', x, y_top, chars, size, color, angle, U(rng, 0.05, 0.28),
          U(rng, 0.82, 0.96), int(rng.integers(0, 2)))
    return op, w, size * 1.35


def build_page(rng, bank, t_idx, lang_zh_target):
    P = Page()
    m = P.meta
    # ---- typography -------------------------------------------------------
    cjk = pick(rng, CJK_FONTS)
    latin = pick(rng, LATIN_FONTS, [0.3, 0.2, 0.2, 0.15, 0.15])
    script_mode = 'raised' if rng.random() < 0.8 else 'unicode'
    blank_mode = 'rule' if rng.random() < 0.6 else 'underscores'
    st = Style(cjk, latin, script_mode, blank_mode, U(rng, 2.2, 3.6))
    fs = int(rng.integers(24, 45))
    lsp = U(rng, 1.3, 2.0)
    L = fs * lsp
    hanging = rng.random() < 0.8
    layout = pick(rng, ['one_col', 'two_col_rule', 'two_col_norule', 'textbook', 'exam'],
                  [0.28, 0.15, 0.15, 0.21, 0.21])
    lang_zh = lang_zh_target if rng.random() < 0.75 else (not lang_zh_target)
    num_style = pick(rng, NUM_STYLES)
    label_emph = pick(rng, ['plain', 'bold', 'box_fill', 'box_outline'], [0.55, 0.25, 0.12, 0.08])
    box_col = pick(rng, [(30, 90, 200), (200, 50, 50), (20, 140, 90), (230, 120, 20), (70, 70, 70)])
    score_mode = pick(rng, ['none', 'after_number', 'end'], [0.64, 0.18, 0.18])
    score_fmt = pick(rng, ['（%d分）', '(%d分)', '（本题%d分）'] if lang_zh else
                     ['(%d marks)', '[%d pts]', '(%d points)', '(%d marks)'])
    spacing = pick(rng, ['generous', 'normal', 'tight'], [0.42, 0.23, 0.35])
    options_on = rng.random() < 0.45
    opt_label = pick(rng, ['A.', 'A．', 'A、', '(A)'])
    paper = pick(rng, [(249, 249, 246), (246, 242, 230), (238, 237, 232), (243, 246, 250),
                       (252, 251, 248)])
    ink = pick(rng, [(22, 22, 24), (40, 40, 44), (30, 32, 48), (58, 58, 60)])
    accent = pick(rng, [(30, 90, 180), (190, 40, 40), (20, 120, 80), (120, 60, 160)])
    ml = U(rng, 100, 175)
    mr = U(rng, 100, 175)
    mt = U(rng, 105, 165)
    mb = U(rng, 120, 170)
    x_left, x_right = ml, PAGE_W - mr
    m.update(layout=layout, lang='zh' if lang_zh else 'en', font_cjk=cjk,
             font_latin=st.latin, font_size=fs, line_spacing=round(lsp, 3),
             hanging_indent=hanging, numbering=num_style, label_emphasis=label_emph,
             label_box_colour=box_col if label_emph.startswith('box') else None,
             score_note=score_mode, score_format=score_fmt if score_mode != 'none' else None,
             spacing=spacing, options_page=options_on, option_label=opt_label,
             script_mode=script_mode, blank_mode=blank_mode, paper=paper, ink=ink,
             margins=[round(ml), round(mr), round(mt), round(mb)])
    P.paper, P.ink, P.fs, P.st = paper, ink, fs, st
    ops = P.ops
    subj = bank[t_idx]['subject']
    grade = bank[t_idx].get('grade', '7')
    try:
        g = int(grade)
    except ValueError:
        g = 7
    grade_zh = ('高' + cn_num(g - 9)) if g >= 10 else (cn_num(g) + '年级')
    y = mt
    # ---- headers ----------------------------------------------------------
    columns = [(x_left, x_right)]
    header = {}
    n0 = 1
    if layout == 'one_col':
        if rng.random() < 0.65:
            ts = fs * U(rng, 1.25, 1.6)
            title = (grade_zh + SUBJ_ZH[subj] + ' ' + pick(rng, ZH_SHEETS)) if lang_zh else \
                ('Grade %d %s  %s %d' % (g, SUBJ_EN[subj], pick(rng, EN_SHEETS), int(rng.integers(1, 12))))
            y += ts
            emit_text(ops, st, title, PAGE_W / 2, y, ts, ink, bold=True, anchor='c')
            header['title'] = title
            y += ts * 0.6
            if rng.random() < 0.7:
                info = '姓名：__________　班级：________　日期：________' if lang_zh else \
                    'Name: ______________   Class: ________   Date: ________'
                y += fs * 1.2
                emit_text(ops, st, info, PAGE_W / 2, y, fs * 0.85, ink, anchor='c')
                header['info_line'] = True
                y += fs * 0.5
            if rng.random() < 0.5:
                y += fs * 0.3
                ops.append(('line', x_left, y, x_right, y, 2.5, ink))
                header['rule'] = True
            y += fs * 1.0
        else:
            n0 = int(rng.integers(3, 16))
            ss = fs * 0.7
            emit_text(ops, st, ('第 %d 页' % int(rng.integers(2, 5))) if lang_zh else
                      ('page %d' % int(rng.integers(2, 5))), x_right, y + ss, ss, ink, anchor='r')
            header['continuation'] = True
            y += ss * 2.2
    elif layout.startswith('two_col'):
        ts = fs * U(rng, 1.3, 1.7)
        title = (grade_zh + SUBJ_ZH[subj] + pick(rng, ['第三单元', '第五章', '期中复习', '专题训练'])
                 + ' ' + pick(rng, ZH_SHEETS)) if lang_zh else \
            ('%s — %s %d' % (SUBJ_EN[subj], pick(rng, EN_SHEETS), int(rng.integers(1, 12))))
        y += ts
        emit_text(ops, st, title, PAGE_W / 2, y, ts, ink, bold=True, anchor='c')
        header['title'] = title
        y += ts * 0.5
        if rng.random() < 0.5:
            y += fs * 1.1
            sub = '（时间：40分钟　满分：100分）' if lang_zh else '(Time: 40 minutes)'
            emit_text(ops, st, sub, PAGE_W / 2, y, fs * 0.8, ink, anchor='c')
            y += fs * 0.4
        if rng.random() < 0.6:
            y += fs * 0.5
            ops.append(('line', x_left, y, x_right, y, 2.0, ink))
            header['rule'] = True
        y += fs * 1.0
        gutter = U(rng, 50, 95)
        cw = (x_right - x_left - gutter) / 2
        columns = [(x_left, x_left + cw), (x_right - cw, x_right)]
        if layout == 'two_col_rule':
            xm = (x_left + x_right) / 2
            ops.append(('line', xm, y - fs * 0.3, xm, PAGE_H - mb, 2.0, ink))
        m['gutter'] = round(gutter)
    elif layout == 'textbook':
        ss = fs * 0.72
        left = pick(rng, ['第三章　一元一次方程', '第六章　质量与密度', '第五单元　化学方程式',
                          '第二章　地图', '第一单元　细胞']) if lang_zh else \
            pick(rng, ['Chapter 3  Equations', 'Chapter 4  Motion', 'Unit 6  Grammar',
                       'Chapter 2  Living Things'])
        y += ss
        emit_text(ops, st, left, x_left, y, ss, ink, anchor='l')
        emit_text(ops, st, str(int(rng.integers(12, 180))), x_right, y, ss, ink, anchor='r')
        y += ss * 0.5
        ops.append(('line', x_left, y, x_right, y, 1.6, ink))
        y += fs * 1.6
        hs = fs * U(rng, 1.15, 1.4)
        emit_text(ops, st, pick(rng, SECTION_ZH) if lang_zh else pick(rng, SECTION_EN),
                  x_left, y, hs, accent if rng.random() < 0.5 else ink, bold=True)
        y += hs * 0.6 + L * 0.3
        fillers = FILLER_ZH if lang_zh else FILLER_EN
        n_par = 1 if rng.random() < 0.6 else 2
        par_idx = [int(j) for j in rng.permutation(len(fillers))[:n_par]]
        for pi in par_idx:
            para = fillers[pi]
            atoms = st.atoms(para, fs, script=False)
            indent = 2 * fs if lang_zh else 0
            lines = flow(atoms, x_left + indent, x_left, x_right, st.space_w(fs))
            for li, ln in enumerate(lines):
                bl = y + (L - fs) / 2 + 0.88 * fs
                for (x, a) in ln:
                    emit_atom(ops, x, bl, a, ink)
                y += L
        header['paragraphs'] = n_par
        y += L * 0.4
        eh = pick(rng, EXHEAD_ZH) if lang_zh else pick(rng, EXHEAD_EN)
        band = rng.random() < 0.5
        es = fs * 1.1
        if band:
            w = st.single(eh, es, True)['w']
            light = tuple(int(255 - (255 - c) * 0.25) for c in accent)
            ops.append(('rrect', x_left - 8, y, x_left + w + 30, y + es * 1.5, None, light, 0, es * 0.3))
            emit_text(ops, st, eh, x_left + 11, y + es * 1.12, es, accent, bold=True)
        else:
            emit_text(ops, st, eh, x_left, y + es * 1.1, es, ink, bold=True)
        header['exercise_heading'] = eh
        header['heading_band'] = band
        y += es * 1.5 + L * 0.4
    else:  # exam
        ts = fs * U(rng, 1.3, 1.6)
        y += ts
        emit_text(ops, st, pick(rng, EXAM_TITLES_ZH) if lang_zh else pick(rng, EXAM_TITLES_EN),
                  PAGE_W / 2, y, ts, ink, bold=True, anchor='c')
        y += ts * 0.4 + fs * 1.4
        emit_text(ops, st, (grade_zh + SUBJ_ZH[subj] + '试卷') if lang_zh else
                  ('Grade %d %s Paper' % (g, SUBJ_EN[subj])), PAGE_W / 2, y, fs * 1.15, ink,
                  bold=rng.random() < 0.5, anchor='c')
        y += fs * 1.3
        emit_text(ops, st, '（考试时间：90分钟　满分：100分）' if lang_zh else
                  '(Time allowed: 90 minutes   Total: 100 marks)', PAGE_W / 2, y, fs * 0.8, ink, anchor='c')
        y += fs * 1.4
        emit_text(ops, st, '学校：________　班级：________　姓名：________　考号：________' if lang_zh
                  else 'School: ________  Class: ______  Name: ____________', PAGE_W / 2, y,
                  fs * 0.78, ink, anchor='c')
        y += fs * 1.0
        ncol = int(rng.integers(4, 7))
        heads = (['题号'] + [cn_num(i + 1) for i in range(ncol - 1)] + ['总分']) if lang_zh else \
            (['Part'] + ['I', 'II', 'III', 'IV', 'V', 'VI'][:ncol - 1] + ['Total'])
        rows = ['题号', '得分'] if lang_zh else ['Part', 'Score']
        cwid = U(rng, 95, 145)
        ch = fs * 0.9 * 1.6
        tw = cwid * len(heads)
        tx0 = PAGE_W / 2 - tw / 2
        ty0 = y
        for ri in range(2):
            for ci in range(len(heads)):
                cx0 = tx0 + ci * cwid
                cy0 = ty0 + ri * ch
                ops.append(('rect', cx0, cy0, cx0 + cwid, cy0 + ch, ink, None, 2.0))
                txt = heads[ci] if ri == 0 else (rows[1] if ci == 0 else '')
                if txt:
                    emit_text(ops, st, txt, cx0 + cwid / 2, cy0 + ch * 0.68, fs * 0.85, ink, anchor='c')
        if rng.random() < 0.4:
            ops.append(('rect', tx0 - 6, ty0 - 6, tx0 + tw + 6, ty0 + 2 * ch + 6, ink, None, 2.0))
        header['score_table_cols'] = len(heads)
        y = ty0 + 2 * ch + fs * 1.2
        n0 = 1
    # footer
    if rng.random() < 0.6:
        fsz = fs * 0.7
        ftxt = pick(rng, ['第 %d 页（共 4 页）', '— %d —', '%d']) if lang_zh else \
            pick(rng, ['Page %d of 4', '- %d -', '%d'])
        emit_text(ops, st, ftxt % int(rng.integers(1, 5)), PAGE_W / 2, PAGE_H - mb * 0.45,
                  fsz, ink, anchor='c')
        header['footer'] = True
    m['header'] = header
    if num_style == '①':
        n0 = min(n0, 5)
    y_top_cols = y
    y_bottom = PAGE_H - mb

    # ---- problem plan -----------------------------------------------------
    same_subject = rng.random() < 0.6
    others = [i for i in range(len(bank)) if i != t_idx]
    if same_subject:
        same = [i for i in others if bank[i]['subject'] == subj]
        diff = [i for i in others if bank[i]['subject'] != subj]
        order = list(rng.permutation(same)) + list(rng.permutation(diff))
    else:
        order = list(rng.permutation(others))
    order = [int(i) for i in order]
    m['neighbour_mix'] = 'same_subject_first' if same_subject else 'mixed'
    gap_rng = {'generous': (1.4, 4.5), 'normal': (0.6, 1.3), 'tight': (0.12, 0.45)}[spacing]
    plan = []
    for s in range(40):
        plan.append({
            'gap': U(rng, *gap_rng) * L,
            'opts': options_on and rng.random() < 0.6,
            'opt_seed': int(rng.integers(1 << 30)),
            'score': int(pick(rng, [2, 3, 4, 5, 6, 8, 10, 12])),
            'section': layout == 'exam' and s > 0 and rng.random() < 0.12,
            'section_text': None,
        })
    sect_list = EXAM_SECT_ZH if lang_zh else EXAM_SECT_EN
    sect_i = int(rng.integers(0, 2))
    exam_first_section = sect_list[sect_i]
    for pl in plan:
        if pl['section']:
            sect_i = min(sect_i + 1, len(sect_list) - 1)
            pl['section_text'] = sect_list[sect_i]
    label_gap = U(rng, 0.2, 0.5) * fs
    sw = st.space_w(fs)

    def block(s, qi, is_t, x0, x1, yy, col):
        """Lay out one problem with its top at yy; returns (record, ops, height)."""
        pl = plan[s]
        num = n0 + s
        bops = []
        label = fmt_num(num_style, num)
        la = st.single(label, fs, bold=(label_emph == 'bold'))
        atoms = []
        sc_txt = score_fmt % pl['score'] if score_mode != 'none' else None
        if score_mode == 'after_number':
            sa = st.single(sc_txt, fs * 0.95)
            sa['sp'] = True
            atoms.append(sa)
        qatoms = st.atoms(bank[qi]['question'], fs)
        if atoms and qatoms and (not has_cjk(sc_txt) or not is_cjk(bank[qi]['question'][0])):
            qatoms[0]['sp'] = True
        atoms += qatoms
        if score_mode == 'end':
            sa = st.single(sc_txt, fs * 0.95)
            sa['sp'] = not (has_cjk(sc_txt) and lang_zh)
            atoms.append(sa)
        lw = la['w'] + (fs * 0.35 if label_emph.startswith('box') else 0)
        tx = x0 + lw + label_gap
        hang = hanging and (tx - x0) < 0.2 * (x1 - x0)
        lines = flow(atoms, tx, tx if hang else x0, x1, sw)
        bl0 = (L - fs) / 2 + 0.88 * fs
        line_info = []
        for li, ln in enumerate(lines):
            bl = bl0 + li * L
            xe = tx
            spans = []
            for (x, a) in ln:
                xe = emit_atom(bops, x, bl, a, ink)
                spans.append((x, xe))
            line_info.append({'bl': bl, 'x0': ln[0][0] if ln else tx, 'x1': xe, 'spans': spans})
        lbl_x = x0 + (fs * 0.175 if label_emph.startswith('box') else 0)
        if label_emph == 'box_fill':
            bops.append(('rrect', x0, bl0 - 0.92 * fs, x0 + lw, bl0 + 0.25 * fs, None, box_col, 0, fs * 0.18))
            emit_atom(bops, lbl_x, bl0, la, (255, 255, 255))
        elif label_emph == 'box_outline':
            bops.append(('rrect', x0, bl0 - 0.92 * fs, x0 + lw, bl0 + 0.25 * fs, box_col, None, 2.5, fs * 0.12))
            emit_atom(bops, lbl_x, bl0, la, box_col)
        else:
            emit_atom(bops, lbl_x, bl0, la, ink)
        label_box = (x0, bl0 - 0.92 * fs, x0 + lw, bl0 + 0.25 * fs)
        last_bl = bl0 + (len(lines) - 1) * L
        text_box = [x0, bl0 - 0.92 * fs, max(li['x1'] for li in line_info), last_bl + 0.26 * fs]
        by = len(lines) * L
        box = list(text_box)
        opts_meta = None
        if pl['opts'] and not is_t:
            orng = np.random.default_rng(pl['opt_seed'])
            opts = make_options(orng, bank[qi]['subject'])
            oatoms = []
            for j, o in enumerate(opts):
                lab = opt_label.replace('A', 'ABCD'[j])
                oatoms.append(st.single(lab + ('' if lab.endswith(('、', '．')) else ' ') + o, fs))
            ow = max(a['w'] for a in oatoms)
            avail = x1 - tx
            per = 4 if ow * 4 + fs * 3 < avail else (2 if ow * 2 + fs * 2 < avail else 1)
            cwd = avail / per
            nrows = 4 // per
            for j, a in enumerate(oatoms):
                r_, c_ = divmod(j, per)
                bl = by + (L - fs) / 2 + 0.88 * fs + r_ * L
                emit_atom(bops, tx + c_ * cwd, bl, a, ink)
            box[2] = max(box[2], tx + (per - 1) * cwd + max(a['w'] for a in oatoms))
            box[3] = by + (nrows - 1) * L + (L - fs) / 2 + 0.88 * fs + 0.26 * fs
            by += nrows * L
            opts_meta = {'options': opts, 'per_line': per}
        pr = {
            'slot': s, 'bank_index': qi, 'id': bank[qi]['id'], 'num': num, 'label': label,
            'is_target': is_t, 'col': col,
            'box': [box[0], box[1] + yy, box[2], box[3] + yy],
            'text_box': [text_box[0], text_box[1] + yy, text_box[2], text_box[3] + yy],
            'label_box': [label_box[0], label_box[1] + yy, label_box[2], label_box[3] + yy],
            'lines': [{'bl': li['bl'] + yy, 'x0': li['x0'], 'x1': li['x1'], 'spans': li['spans']}
                      for li in line_info],
            'tx': tx, 'col_x': (x0, x1), 'options': opts_meta,
            'gap_top': box[3] + yy, 'gap_bottom': yy + by + pl['gap'],
        }
        return pr, [shift_op(op, 0, yy) for op in bops], by

    def run_layout(t_slot):
        lops = []
        probs = []
        col = 0
        x0, x1 = columns[0]
        yy = y_top_cols
        if layout == 'exam':
            yy += fs * 1.1
            emit_text(lops, st, exam_first_section, x0, yy, fs * 1.0, ink, bold=True)
            yy += fs * 0.9
        ni = 0
        for s in range(len(plan)):
            pl = plan[s]
            is_t = (s == t_slot)
            if is_t:
                qi = t_idx
            else:
                qi = order[ni % len(order)]
                ni += 1
            placed = False
            while not placed:
                sec_ops = []
                y_here = yy
                if pl['section'] and not is_t and yy > y_top_cols + fs:
                    y_here += fs * 1.2
                    emit_text(sec_ops, st, pl['section_text'], x0, y_here, fs, ink, bold=True)
                    y_here += fs * 0.9
                pr, bops, h = block(s, qi, is_t, x0, x1, y_here, col)
                if y_here + h <= y_bottom:
                    lops += sec_ops + bops
                    probs.append(pr)
                    yy = y_here + h + pl['gap']
                    placed = True
                elif col + 1 < len(columns) and yy > y_top_cols + 1:
                    col += 1
                    x0, x1 = columns[col]
                    yy = y_top_cols
                else:
                    return lops, probs
        return lops, probs

    _, probs0 = run_layout(None)
    n_fit = len(probs0)
    if n_fit == 0:
        raise RuntimeError('nothing fits')
    t_slot = int(rng.integers(0, n_fit))
    while True:
        lops, probs = run_layout(t_slot)
        if any(p['is_target'] for p in probs):
            break
        t_slot -= 1
        if t_slot < 0:
            raise RuntimeError('target does not fit on page')
    # gaps: clamp gap bottom to the next problem top in the same column
    for a, b in zip(probs, probs[1:]):
        if a['col'] == b['col']:
            a['gap_bottom'] = min(a['gap_bottom'], b['box'][1])
    for p in probs:
        if p is probs[-1] or p['col'] != probs[probs.index(p) + 1]['col']:
            p['gap_bottom'] = min(p['gap_bottom'], y_bottom)
    ops += lops
    P.problems = probs
    P.target = [p for p in probs if p['is_target']][0]
    P.target_text = bank[t_idx]['question']
    m.update(first_number=n0, target_slot=t_slot, problems_on_page=len(probs),
             target_label=P.target['label'], target_column=P.target['col'])
    P.columns = columns
    P.lang_zh = lang_zh
    P.L = L
    add_marks(rng, P, bank)
    return P


def shift_op(op, dx, dy):
    t = op[0]
    if t == 'text':
        b = op[7]
        return (t, op[1] + dx, op[2] + dy, op[3], op[4], op[5], op[6],
                (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy))
    if t in ('line', 'rect', 'rrect'):
        return (t, op[1] + dx, op[2] + dy, op[3] + dx, op[4] + dy) + tuple(op[5:])
    raise ValueError(t)


# ----------------------------------------------------------------------------
# marks & student writing
# ----------------------------------------------------------------------------
RED = (205, 32, 40)


def _rects_overlap(a, b, pad=0.0):
    return not (a[2] + pad <= b[0] or b[2] + pad <= a[0] or a[3] + pad <= b[1] or b[3] + pad <= a[1])


def _free(P, rect, pad=4.0):
    if rect[0] < 10 or rect[2] > PAGE_W - 10 or rect[1] < 10 or rect[3] > PAGE_H - 10:
        return False
    for p in P.problems:
        if _rects_overlap(rect, p['box'], pad):
            return False
    return True


def tick_points(rng, x, y, s, kind):
    """Stroke polylines for a tick/cross of size s with top-left (x, y)."""
    if kind == 'tick':
        p0 = (x + U(rng, 0, 0.1) * s, y + s * U(rng, 0.45, 0.6))
        p1 = (x + s * U(rng, 0.3, 0.42), y + s * U(rng, 0.88, 1.0))
        p2 = (x + s * U(rng, 0.9, 1.05), y + s * U(rng, -0.05, 0.1))
        a = [p0, ((p0[0] + p1[0]) / 2 + U(rng, -.03, .03) * s, (p0[1] + p1[1]) / 2), p1]
        b = [p1]
        for t in np.linspace(0.2, 1, 5):
            b.append((p1[0] + (p2[0] - p1[0]) * t + math.sin(t * 3) * 0.03 * s,
                      p1[1] + (p2[1] - p1[1]) * t - math.sin(t * math.pi) * 0.06 * s))
        return [a + b[1:]]
    # cross
    strokes = []
    for (ax, ay, bx, by) in ((0.1, 0.05, 0.9, 0.95), (0.88, 0.08, 0.12, 0.92)):
        pts = []
        for t in np.linspace(0, 1, 6):
            pts.append((x + s * (ax + (bx - ax) * t) + U(rng, -.02, .02) * s,
                        y + s * (ay + (by - ay) * t) + math.sin(t * math.pi) * 0.04 * s))
        strokes.append(pts)
    return strokes


def ellipse_points(rng, cx, cy, rx, ry):
    th0 = U(rng, 0, 2 * math.pi)
    span = 2 * math.pi + U(rng, 0.2, 0.6)
    pts = []
    ph = U(rng, 0, 6.28)
    for t in np.linspace(0, span, 48):
        r = 1 + 0.06 * math.sin(2 * t + ph) + 0.04 * t / span
        pts.append((cx + rx * r * math.cos(th0 + t), cy + ry * r * math.sin(th0 + t)))
    return pts


def add_marks(rng, P, bank):
    m = P.meta
    fs = P.fs
    probs = P.problems
    T = P.target
    ti = probs.index(T)
    near = [p for j, p in enumerate(probs) if abs(j - ti) <= 2]
    near_nb = [p for p in near if not p['is_target']]
    marks = {}
    lang_font = pick(rng, HAND_FONTS)
    m['hand_font'] = lang_font
    # red ticks / crosses
    if rng.random() < 0.35:
        done = []
        for p in near:
            if rng.random() > 0.65:
                continue
            kind = 'tick' if rng.random() < 0.65 else 'cross'
            s = fs * U(rng, 1.1, 2.0)
            last = p['lines'][-1]
            cands = [(last['x1'] + fs * U(rng, 0.5, 1.5), last['bl'] - s * 0.8),
                     (p['box'][0] - s - fs * 0.3, p['lines'][0]['bl'] - s * 0.8),
                     (p['tx'] + fs * U(rng, 0, 4), p['box'][3] + fs * 0.25)]
            for (x, y) in cands:
                if _free(P, (x, y, x + s, y + s), 2):
                    for stroke in tick_points(rng, x, y, s, kind):
                        P.post.append(('poly', stroke, RED, fs * U(rng, 0.08, 0.13), U(rng, 0.8, 0.95)))
                    done.append({'id': p['id'], 'kind': kind, 'target': p['is_target']})
                    break
        if done:
            marks['ticks'] = done
    # red circle around a problem number
    if rng.random() < 0.22:
        p = T if rng.random() < 0.45 else (pick(rng, near_nb) if near_nb else T)
        b = p['label_box']
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        rx = (b[2] - b[0]) / 2 + fs * U(rng, 0.3, 0.55)
        ry = (b[3] - b[1]) / 2 + fs * U(rng, 0.2, 0.4)
        P.post.append(('poly', ellipse_points(rng, cx, cy, rx, ry), RED, fs * U(rng, 0.06, 0.1),
                       U(rng, 0.8, 0.95)))
        marks['number_circle'] = {'id': p['id'], 'target': p['is_target']}
    # hand-written score in red
    if rng.random() < 0.25:
        p = pick(rng, near)
        txt = pick(rng, ['-2', '-3', '+2', '5', '8', '10', '-1', '6分', '3分', '×', '-4'])
        hs = fs * U(rng, 1.1, 1.7)
        op, w, h = hand_op(rng, txt, 0, 0, hs, RED, U(rng, -12, 12), lang_font)
        cands = [(p['box'][0] - w - fs * 0.6, p['box'][1] - h * 0.1),
                 (p['lines'][0]['x1'] + fs * 1.0, p['lines'][0]['bl'] - h * 0.8),
                 (p['col_x'][1] - w, p['box'][3] + fs * 0.3),
                 (p['box'][2] + fs * 0.8, p['box'][3] - h)]
        for (x, y) in cands:
            if _free(P, (x - 5, y - 5, x + w + 5, y + h + 5)):
                P.ops.append((op[0], x, y) + op[3:])
                marks['red_score'] = {'id': p['id'], 'text': txt, 'target': p['is_target']}
                break
    # highlighter across part of a neighbour's line
    if rng.random() < 0.22 and near_nb:
        p = pick(rng, near_nb)
        li = pick(rng, p['lines'])
        sp = li['spans']
        i0 = int(rng.integers(0, len(sp)))
        i1 = int(rng.integers(i0, min(len(sp), i0 + 12)))
        xa, xb = sp[i0][0] - 4, sp[i1][1] + 4
        if xb - xa < fs * 2:
            xb = min(li['x1'] + 4, xa + fs * 4)
        bl = li['bl']
        top, bot = bl - fs * U(rng, 0.85, 1.0), bl + fs * U(rng, 0.18, 0.3)
        sk = U(rng, -0.1, 0.1) * fs
        col = pick(rng, [(255, 238, 40), (120, 240, 90), (255, 130, 190), (255, 180, 60), (110, 210, 255)])
        poly = [(xa, top + sk), (xb, top - sk), (xb + fs * 0.1, bot - sk), (xa - fs * 0.05, bot + sk)]
        P.post.append(('hl', poly, col, U(rng, 0.35, 0.65)))
        marks['highlighter'] = {'id': p['id'], 'colour': col}
    # pencil underline under some words of the framed problem
    if rng.random() < 0.22:
        li = pick(rng, T['lines'])
        sp = li['spans']
        i0 = int(rng.integers(0, len(sp)))
        i1 = int(rng.integers(i0, min(len(sp), i0 + 8)))
        xa, xb = sp[i0][0], sp[i1][1]
        if xb - xa < fs * 1.5:
            xb = min(li['x1'], xa + fs * 3)
        yb = li['bl'] + fs * U(rng, 0.14, 0.24)
        pts = []
        n = max(4, int((xb - xa) / (fs * 0.5)))
        ph = U(rng, 0, 6)
        for t in np.linspace(0, 1, n):
            pts.append((xa + (xb - xa) * t, yb + math.sin(t * 7 + ph) * fs * 0.03 + t * U(rng, -.02, .02) * fs))
        P.post.append(('poly', pts, (95, 95, 100), fs * U(rng, 0.045, 0.075), U(rng, 0.55, 0.8)))
        marks['pencil_underline'] = {'line_baseline': round(li['bl'], 1)}
    m['marks'] = marks
    # student writing
    writing = []
    ink = pick(rng, [(28, 52, 160), (20, 35, 110), (35, 35, 40), (40, 70, 190)])
    m['student_ink'] = ink
    want_nb = rng.random() < (0.22 if m['spacing'] == 'tight' else 0.42)
    want_t = rng.random() < 0.18
    targets = []
    if want_nb:
        cands = list(near_nb)
        order = rng.permutation(len(cands)) if cands else []
        nwrite = 1 if rng.random() < 0.6 else 2
        for j in order:
            targets.append(cands[int(j)])
        quota = nwrite
    else:
        quota = 0
    if want_t:
        targets = [T] + targets
        quota += 1
    # pass 1: in the answer space below the problem; pass 2 (no room below): after its last line
    done_ids = set()
    for mode in ('below', 'right_of_last_line'):
        for p in targets:
            if quota <= 0 or p['id'] in done_ids:
                continue
            if p['is_target'] and any(w_['target'] for w_ in writing):
                continue
            txt = short_answer(bank[p['bank_index']]['answer'],
                               P.lang_zh or has_cjk(bank[p['bank_index']]['question']), rng)
            if mode == 'below':
                hs = fs * U(rng, 0.95, 1.35)
                ang = U(rng, -6, 6)
            else:
                hs = fs * U(rng, 0.9, 1.05)
                ang = U(rng, -3, 3)
            op, w, h = hand_op(rng, txt, 0, 0, hs, ink, ang, lang_font)
            x1c = p['col_x'][1]
            if w > x1c - p['tx']:
                continue
            extra = abs(math.sin(math.radians(ang))) * w
            gt, gb = p['gap_top'], p['gap_bottom']
            if mode == 'below':
                if gb - gt <= h + extra + fs * 0.5:
                    continue
                x = p['tx'] + U(rng, 0, max(0.0, min(3 * fs, x1c - p['tx'] - w)))
                y = gt + fs * 0.2 + extra / 2 + U(rng, 0, max(0.0, (gb - gt) - h - extra - fs * 0.5))
            else:
                last = p['lines'][-1]
                if x1c - last['x1'] <= w + fs * 1.5:
                    continue
                x = last['x1'] + fs * 1.0
                y = last['bl'] - h * 0.85
            rect = (x, y - extra / 2, x + w, y + h + extra / 2)
            clash = any(_rects_overlap(rect, q['box'], 2) for q in P.problems if q is not p) or \
                (mode == 'below' and _rects_overlap(rect, p['box'], 2))
            if clash:
                continue
            P.ops.append((op[0], x, y) + op[3:])
            writing.append({'id': p['id'], 'target': p['is_target'], 'text': txt, 'place': mode,
                            'angle': round(ang, 2)})
            done_ids.add(p['id'])
            quota -= 1
    m['student_writing'] = writing


# ----------------------------------------------------------------------------
# page rendering (a region of the page at scale k)
# ----------------------------------------------------------------------------
def render_hand(img, op, k, u0, v0):
    _, x, y, chars, size, color, angle, slant, opacity, stroke = op
    S = size * k
    if S < 3:
        return
    widths = [font(fn, S * ds).getlength(ch) * (1 + dx) for ch, fn, ds, dy, dx in chars]
    pw = int(sum(widths) + 2 * S) + 4
    ph = int(S * 2.4) + 4
    patch = Image.new('L', (pw, ph), 0)
    d = ImageDraw.Draw(patch)
    cx = S
    base = S * 1.5
    sw = 1 if (stroke and S > 45) else 0
    for (ch, fn, ds, dy, dx), w in zip(chars, widths):
        d.text((cx, base + dy * S), ch, font=font(fn, S * ds), fill=255, anchor='ls', stroke_width=sw,
               stroke_fill=255)
        cx += w
    patch = patch.transform(patch.size, Image.AFFINE, (1, slant, -slant * base, 0, 1, 0),
                            resample=Image.BILINEAR)
    patch = patch.rotate(angle, resample=Image.BICUBIC, expand=True)
    # the unrotated patch's point (S, base) corresponds to (x, y + size*1.0)
    cxu = (x - u0) * k - S + pw / 2
    cyu = (y - v0) * k + S * 1.0 - base + ph / 2
    px = int(round(cxu - patch.size[0] / 2))
    py = int(round(cyu - patch.size[1] / 2))
    mask = patch.point(lambda p: int(p * opacity))
    img.paste(Image.new('RGB', patch.size, color), (px, py), mask)


def smooth_noise(rng, h, w, cell):
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def render_region(P, region, k, rng):
    u0, v0, u1, v1 = region
    Wc = max(8, int(math.ceil((u1 - u0) * k)))
    Hc = max(8, int(math.ceil((v1 - v0) * k)))
    base = np.array(P.paper, np.float32)
    tex = smooth_noise(rng, Hc, Wc, max(8, 60 * k)) * U(rng, 1.0, 3.0)
    tex += smooth_noise(rng, Hc, Wc, max(4, 6 * k)) * U(rng, 0.5, 1.5)
    canvas = np.clip(base[None, None, :] + tex[..., None], 0, 255).astype(np.uint8)
    img = Image.fromarray(canvas, 'RGB')
    d = ImageDraw.Draw(img)

    def T(x, y):
        return ((x - u0) * k, (y - v0) * k)

    for op in P.ops:
        t = op[0]
        if t == 'text':
            b = op[7]
            if b[2] < u0 or b[0] > u1 or b[3] < v0 or b[1] > v1:
                continue
            s = op[5] * k
            if s < 1.0:
                continue
            d.text(T(op[1], op[2]), op[3], font=font(op[4], s), fill=op[6], anchor='ls')
        elif t == 'line':
            if max(op[1], op[3]) < u0 or min(op[1], op[3]) > u1 or max(op[2], op[4]) < v0 or min(op[2], op[4]) > v1:
                continue
            d.line([T(op[1], op[2]), T(op[3], op[4])], fill=op[6], width=max(1, int(round(op[5] * k))))
        elif t == 'rect':
            if op[3] < u0 or op[1] > u1 or op[4] < v0 or op[2] > v1:
                continue
            a, b = T(op[1], op[2]), T(op[3], op[4])
            d.rectangle([a, b], outline=op[5], fill=op[6], width=max(1, int(round(op[7] * k))))
        elif t == 'rrect':
            if op[3] < u0 or op[1] > u1 or op[4] < v0 or op[2] > v1:
                continue
            a, b = T(op[1], op[2]), T(op[3], op[4])
            d.rounded_rectangle([a, b], radius=max(1, op[8] * k), outline=op[5], fill=op[6],
                                width=max(1, int(round(op[7] * k))) if op[5] else 0)
        elif t == 'hand':
            if op[1] > u1 + 500 or op[2] > v1 + 200 or op[2] < v0 - 300:
                continue
            render_hand(img, op, k, u0, v0)
    arr = np.asarray(img).copy()
    for op in P.post:
        t = op[0]
        pts = np.array([T(x, y) for x, y in op[1]], np.float64)
        if t == 'poly':
            _, _, col, width, alpha = op
            _blend_shape(arr, pts, col, alpha, width * k, 'over', closed=False)
        elif t == 'hl':
            _, _, col, alpha = op
            _blend_shape(arr, pts, col, alpha, None, 'multiply')
    return arr


def _blend_shape(arr, pts, col, alpha, width, mode, closed=False):
    Hc, Wc = arr.shape[:2]
    pad = (width or 2) + 3
    x0 = int(max(0, math.floor(pts[:, 0].min() - pad)))
    y0 = int(max(0, math.floor(pts[:, 1].min() - pad)))
    x1 = int(min(Wc, math.ceil(pts[:, 0].max() + pad)))
    y1 = int(min(Hc, math.ceil(pts[:, 1].max() + pad)))
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    ip = np.round((pts - [x0, y0]) * 16).astype(np.int32).reshape(-1, 1, 2)
    if width is None:
        cv2.fillPoly(mask, [ip], 255, cv2.LINE_AA, shift=4)
    else:
        cv2.polylines(mask, [ip], closed, 255, max(1, int(round(width))), cv2.LINE_AA, shift=4)
    a = (mask.astype(np.float32) / 255.0 * alpha)[..., None]
    win = arr[y0:y1, x0:x1].astype(np.float32)
    c = np.array(col, np.float32)
    if mode == 'multiply':
        win = win * (1 - a * (1 - c / 255.0))
    else:
        win = win * (1 - a) + c * a
    arr[y0:y1, x0:x1] = np.clip(win, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------
# camera geometry
# ----------------------------------------------------------------------------
def rot_matrix(rx, ry, rz):
    rx, ry, rz = map(math.radians, (rx, ry, rz))
    Rx = np.array([[1, 0, 0], [0, math.cos(rx), -math.sin(rx)], [0, math.sin(rx), math.cos(rx)]])
    Ry = np.array([[math.cos(ry), 0, math.sin(ry)], [0, 1, 0], [-math.sin(ry), 0, math.cos(ry)]])
    Rz = np.array([[math.cos(rz), -math.sin(rz), 0], [math.sin(rz), math.cos(rz), 0], [0, 0, 1]])
    return Rx @ Ry @ Rz


def build_H(f, W, H, off, R, s, cu, cv):
    Z = f / s
    K = np.array([[f, 0, W / 2 + off[0]], [0, f, H / 2 + off[1]], [0, 0, 1.0]])
    t = np.array([0, 0, Z]) - R[:, 0] * cu - R[:, 1] * cv
    M = np.column_stack([R[:, 0], R[:, 1], t])
    Hm = K @ M
    return Hm / Hm[2, 2]


def project(Hm, pts):
    pts = np.asarray(pts, np.float64)
    ph = np.column_stack([pts, np.ones(len(pts))]) @ Hm.T
    return ph[:, :2] / ph[:, 2:3]


def box_points(b, n=4):
    """Perimeter of a box, ordered (clockwise), n points per edge."""
    x0, y0, x1, y1 = b
    pts = []
    for t in np.linspace(0, 1, n, endpoint=False):
        pts.append((x0 + (x1 - x0) * t, y0))
    for t in np.linspace(0, 1, n, endpoint=False):
        pts.append((x1, y0 + (y1 - y0) * t))
    for t in np.linspace(0, 1, n, endpoint=False):
        pts.append((x1 - (x1 - x0) * t, y1))
    for t in np.linspace(0, 1, n, endpoint=False):
        pts.append((x0, y1 - (y1 - y0) * t))
    return np.array(pts)


def clip_polygon(poly, W, H):
    """Sutherland-Hodgman clip of a polygon to the frame [0,W]x[0,H]."""
    out = [tuple(p) for p in poly]
    for axis, val, keep_ge in ((0, 0.0, True), (0, float(W), False), (1, 0.0, True), (1, float(H), False)):
        if not out:
            break
        inp, out = out, []
        for i in range(len(inp)):
            a, b = inp[i - 1], inp[i]
            ina = (a[axis] >= val) if keep_ge else (a[axis] <= val)
            inb = (b[axis] >= val) if keep_ge else (b[axis] <= val)
            if inb:
                if not ina:
                    t = (val - a[axis]) / (b[axis] - a[axis])
                    out.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
                out.append(b)
            elif ina:
                t = (val - a[axis]) / (b[axis] - a[axis])
                out.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
    return np.array(out) if out else None


class Curl:
    def __init__(self, rng, W, H, kind):
        self.kind = kind
        self.W, self.H = W, H
        self.A = U(rng, 0.008, 0.028) * min(W, H) if kind != 'none' else 0.0
        self.sign = 1 if rng.random() < 0.5 else -1
        self.lam = U(rng, 0.8, 1.6)
        self.ph = U(rng, 0, 6.28)
        self.corner = (pick(rng, [-1, 1]), pick(rng, [-1, 1]))
        self.t0 = U(rng, 0.25, 0.45)
        self.shade = U(rng, 0.04, 0.16)

    def params(self):
        return {'type': self.kind, 'amp_px': round(self.A, 2), 'shade': round(self.shade, 3)}

    def field(self, X, Y):
        """displacement (dx, dy) and shading profile for photo coords."""
        xn = X / self.W - 0.5
        yn = Y / self.H - 0.5
        A = self.A
        if self.kind == 'bend_v':
            prof = 1 - 4 * xn * xn
            return 0 * X, A * self.sign * prof, 1 - prof
        if self.kind == 'bend_h':
            prof = 1 - 4 * yn * yn
            return A * self.sign * prof, 0 * Y, 1 - prof
        if self.kind == 'wave':
            a = 2 * np.pi * xn / self.lam + self.ph
            return 0.3 * A * np.sin(2 * np.pi * yn / self.lam + self.ph), A * np.sin(a), 0.5 + 0.5 * np.cos(a)
        if self.kind == 'corner':
            cx, cy = self.corner
            dd = (xn * cx + yn * cy) - self.t0
            dd = np.maximum(dd, 0) / (1 - self.t0)
            g = dd * dd * 2.2
            return A * g * cx, A * g * cy, np.minimum(dd * 1.5, 1.0)
        z = 0 * X
        return z, z, z

    def inverse_points(self, q):
        """photo position p of points whose undistorted position is q (p + D(p) = q)."""
        if self.kind == 'none':
            return q
        p = q.copy()
        for _ in range(4):
            dx, dy, _ = self.field(p[:, 0], p[:, 1])
            p = q - np.column_stack([dx, dy])
        return p


def solve_camera(W, H, quads, ti, s0, s_min, R, f, off, curl, margin, em_units, counts=None):
    """Find a homography; shrink offset/scale until the target fits inside the frame,
    is clearly the most central problem, and at least one neighbour is (partly) visible.

    Distances of neighbours are measured both to the centre of their whole box and
    to the centre of the part of the box inside the frame; the smaller one counts."""
    tb = quads[ti]
    cu, cv = (tb[0] + tb[2]) / 2, (tb[1] + tb[3]) / 2
    s = s0
    off_des = np.array(off, float)        # wanted target-centre displacement from frame centre
    corr = np.zeros(2)                    # principal-point correction (perspective/curl bias)
    pts_all = [box_points(b) for b in quads]
    pc = np.array([W / 2, H / 2])
    info = None
    for it in range(120):
        Hm = build_H(f, W, H, off_des + corr, R, s, cu, cv)
        cents = []
        dists = []
        vis = []
        tp = None
        em = em_units * s
        for j, pts in enumerate(pts_all):
            pp = curl.inverse_points(project(Hm, pts))
            lo, hi = pp.min(0), pp.max(0)
            c = (lo + hi) / 2
            cents.append(c)
            dd = float(np.linalg.norm(c - pc))
            if j == ti:
                tp = pp
            else:
                cp = clip_polygon(pp, W, H)
                if cp is not None and len(cp) >= 3:
                    clo, chi = cp.min(0), cp.max(0)
                    ix, iy = chi - clo
                    if ix > 0 and iy > 0:
                        dd = min(dd, float(np.linalg.norm((clo + chi) / 2 - pc)))
                else:
                    ix = iy = 0.0
                # visible: at least about one text line and a few characters inside the frame
                a, b = (ix, iy) if (hi[0] - lo[0]) >= (hi[1] - lo[1]) else (iy, ix)
                if counts is None or counts[j]:
                    vis.append(bool(min(ix, iy) >= 0.9 * em and max(a, b) >= 2.5 * em))
            dists.append(dd)
        d = np.array(dists)
        bias = cents[ti] - (pc + off_des)
        if np.abs(bias).max() > 1.5 and it < 100:
            corr -= bias
            continue
        dt = d[ti]
        others = np.delete(d, ti)
        ratio = float(others.min() / max(dt, 1e-6)) if len(others) else float('inf')
        inside = (tp[:, 0].min() >= margin and tp[:, 1].min() >= margin and
                  tp[:, 0].max() <= W - margin and tp[:, 1].max() <= H - margin)
        n_vis = int(sum(vis))
        quad = curl.inverse_points(project(Hm, np.array([[tb[0], tb[1]], [tb[2], tb[1]], [tb[2], tb[3]], [tb[0], tb[3]]])))
        info = {'H': Hm, 's': s, 'off': off_des.copy(), 'pp_corr': corr.copy(), 'ratio': ratio,
                'inside': bool(inside), 'quad': quad, 'target_pts': tp, 'centres': cents, 'dist': d,
                'iters': it, 'visible_neighbours': n_vis}
        if inside and ratio >= CENTRE_RATIO_MIN and (n_vis > 0 or not vis or s < 0.6 * s_min):
            return info
        if not inside:
            if np.abs(off_des).max() > 4:
                off_des *= 0.6
            else:
                s *= 0.93
        elif ratio < CENTRE_RATIO_MIN:
            off_des *= 0.5
            if np.abs(off_des).max() < 0.5:
                off_des[:] = 0
                s *= 0.97
        else:
            s *= 0.93          # zoom out until a neighbour shows
    return info


# ----------------------------------------------------------------------------
# photo-space effects
# ----------------------------------------------------------------------------
def make_background(rng, W, H):
    kind = pick(rng, ['wood', 'cloth', 'laminate', 'dark_desk'], [0.38, 0.25, 0.22, 0.15])
    if kind == 'wood':
        base = np.array(pick(rng, [(150, 105, 70), (190, 150, 105), (110, 72, 45), (205, 175, 135)]), np.float32)
        D = int(math.hypot(W, H)) + 4
        along = smooth_noise(rng, 8, D, D / 6)[0:1, :]
        rows = np.arange(D, dtype=np.float32)[:, None]
        warp = smooth_noise(rng, D, D // 8 + 2, 40)
        warp = cv2.resize(warp, (D, D), interpolation=cv2.INTER_LINEAR)
        f = U(rng, 0.08, 0.25)
        stripes = np.sin(rows * f + warp * 6.0) * 0.5 + 0.5
        fine = smooth_noise(rng, D, D, 3) * 0.25
        g = (stripes * U(rng, 14, 30) + fine * 10 + along * 6).astype(np.float32)
        ang = U(rng, 0, 180)
        M = cv2.getRotationMatrix2D((D / 2, D / 2), ang, 1.0)
        g = cv2.warpAffine(g, M, (D, D), borderMode=cv2.BORDER_REFLECT)
        y0, x0 = (D - H) // 2, (D - W) // 2
        g = g[y0:y0 + H, x0:x0 + W]
        img = base[None, None, :] * (0.82 + g[..., None] / 100.0)
    elif kind == 'cloth':
        base = np.array(pick(rng, [(60, 80, 130), (150, 40, 45), (70, 110, 80), (190, 185, 175),
                                   (90, 90, 95), (200, 160, 120)]), np.float32)
        p = U(rng, 3.0, 6.0)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        a = math.radians(U(rng, 0, 90))
        u = xx * math.cos(a) + yy * math.sin(a)
        v = -xx * math.sin(a) + yy * math.cos(a)
        weave = np.sin(u * 2 * np.pi / p) * np.sin(v * 2 * np.pi / p)
        folds = smooth_noise(rng, H, W, min(W, H) / 3)
        img = base[None, None, :] * (1 + 0.06 * weave[..., None] + 0.08 * folds[..., None])
        img += rng.standard_normal((H, W, 1)).astype(np.float32) * 4
    elif kind == 'laminate':
        base = np.array(pick(rng, [(225, 225, 220), (200, 200, 198), (235, 230, 215), (180, 190, 200)]), np.float32)
        spk = smooth_noise(rng, H, W, 2) * 3 + smooth_noise(rng, H, W, min(W, H) / 2) * 6
        img = base[None, None, :] + spk[..., None]
    else:
        base = np.array(pick(rng, [(35, 35, 38), (50, 45, 42), (25, 30, 40)]), np.float32)
        spk = smooth_noise(rng, H, W, 3) * 3 + smooth_noise(rng, H, W, min(W, H) / 2) * 5
        img = base[None, None, :] + spk[..., None]
    return np.clip(img, 0, 255).astype(np.float32), kind


def shift_img(a, dx, dy):
    """Translate an image by (dx, dy) px, replicating the border (no wrap-around)."""
    M = np.float32([[1, 0, dx], [0, 1, dy]])
    h, w = a.shape[:2]
    return cv2.warpAffine(a.astype(np.float32), M, (w, h), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def capsule_mask(W, H, a, b, r):
    m = np.zeros((H, W), np.uint8)
    a = np.array(a, float)
    b = np.array(b, float)
    d = b - a
    n = np.array([-d[1], d[0]]) / (np.linalg.norm(d) + 1e-9)
    poly = np.array([a + n * r, b + n * r, b - n * r, a - n * r])
    cv2.fillConvexPoly(m, np.round(poly * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    cv2.circle(m, (int(round(b[0] * 16)), int(round(b[1] * 16))), int(round(r * 16)), 255, -1, cv2.LINE_AA, shift=4)
    return m


def edge_entry(rng, W, H, edge, along, inward_len, ang_dev):
    if edge == 'bottom':
        p = np.array([W * along, H + 0.05 * H]); dirv = np.array([0, -1.0])
    elif edge == 'top':
        p = np.array([W * along, -0.05 * H]); dirv = np.array([0, 1.0])
    elif edge == 'left':
        p = np.array([-0.05 * W, H * along]); dirv = np.array([1.0, 0])
    else:
        p = np.array([W + 0.05 * W, H * along]); dirv = np.array([-1.0, 0])
    a = math.radians(ang_dev)
    dirv = np.array([dirv[0] * math.cos(a) - dirv[1] * math.sin(a), dirv[0] * math.sin(a) + dirv[1] * math.cos(a)])
    return p, p + dirv * inward_len, dirv


def add_finger(rng, img, forbid, W, H):
    mn = min(W, H)
    for attempt in range(12):
        edge = pick(rng, ['bottom', 'left', 'right', 'top'], [0.42, 0.24, 0.24, 0.1])
        r = U(rng, 0.045, 0.075) * mn
        length = U(rng, 0.12, 0.3) * mn + 0.05 * mn
        a, b, dirv = edge_entry(rng, W, H, edge, U(rng, 0.1, 0.9), length, U(rng, -30, 30))
        m = capsule_mask(W, H, a, b, r)
        big = cv2.dilate(m, np.ones((9, 9), np.uint8))
        if (big & forbid).any():
            continue
        ys, xs = np.nonzero(m)
        if len(xs) < 50:
            continue
        sig = U(rng, 0.003, 0.012) * mn
        pad = int(3 * max(sig, r * 0.5) + r * 0.4) + 4
        x0, x1 = max(0, xs.min() - pad), min(W, xs.max() + pad)
        y0, y1 = max(0, ys.min() - pad), min(H, ys.max() + pad)
        mw = m[y0:y1, x0:x1]
        dist = cv2.distanceTransform((mw > 127).astype(np.uint8), cv2.DIST_L2, 5) / r
        shade = 0.6 + 0.4 * np.sqrt(np.clip(dist, 0, 1))
        skin = np.array(pick(rng, [(232, 180, 150), (214, 152, 118), (240, 196, 170), (170, 112, 80),
                                   (222, 168, 130)]), np.float32)
        col = skin[None, None, :] * shade[..., None]
        # soft specular ridge along the finger
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        nrm = np.array([-dirv[1], dirv[0]])
        side = ((xx - a[0]) * nrm[0] + (yy - a[1]) * nrm[1]) / r
        col += (np.exp(-((side + 0.3) ** 2) / 0.05) * 25 * (mw > 0))[..., None]
        # nail
        nail_c = b - dirv * r * 0.55
        nm = np.zeros_like(mw)
        ang = math.degrees(math.atan2(dirv[1], dirv[0]))
        cv2.ellipse(nm, (int(nail_c[0] - x0), int(nail_c[1] - y0)), (int(r * 0.5), int(r * 0.4)), ang, 0, 360, 255, -1, cv2.LINE_AA)
        na = (nm.astype(np.float32) / 255 * 0.6)[..., None]
        col = col * (1 - na) + np.array([240, 212, 205], np.float32) * na
        alpha = cv2.GaussianBlur(mw.astype(np.float32) / 255, (0, 0), sig)[..., None]
        col = cv2.GaussianBlur(col, (0, 0), sig)
        # soft shadow on the page next to the finger
        sh = cv2.GaussianBlur(shift_img(mw, r * 0.25, r * 0.25) / 255, (0, 0), r * 0.3)
        win = img[y0:y1, x0:x1]
        win *= (1 - 0.35 * sh[..., None])
        img[y0:y1, x0:x1] = win * (1 - alpha) + col * alpha
        return {'edge': edge, 'radius_px': round(r, 1), 'blur_sigma': round(sig, 2), 'attempt': attempt}
    return None


def add_pen(rng, img, forbid, W, H):
    mn = min(W, H)
    for attempt in range(12):
        edge = pick(rng, ['bottom', 'left', 'right', 'top'], [0.3, 0.3, 0.3, 0.1])
        r = U(rng, 0.012, 0.022) * mn
        length = U(rng, 0.25, 0.5) * mn
        a, b, dirv = edge_entry(rng, W, H, edge, U(rng, 0.1, 0.9), length, U(rng, -50, 50))
        tip = b + dirv * r * 3
        m = capsule_mask(W, H, a, b, r)
        tm = np.zeros((H, W), np.uint8)
        nrm = np.array([-dirv[1], dirv[0]])
        cone = np.array([b + nrm * r, tip, b - nrm * r])
        cv2.fillConvexPoly(tm, np.round(cone * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
        allm = np.maximum(m, tm)
        big = cv2.dilate(allm, np.ones((9, 9), np.uint8))
        if (big & forbid).any():
            continue
        ys, xs = np.nonzero(allm)
        if len(xs) < 30:
            continue
        pad = int(r * 2.5) + 8
        x0, x1 = max(0, xs.min() - pad), min(W, xs.max() + pad)
        y0, y1 = max(0, ys.min() - pad), min(H, ys.max() + pad)
        mw = m[y0:y1, x0:x1].astype(np.float32) / 255
        tw = tm[y0:y1, x0:x1].astype(np.float32) / 255
        body = np.array(pick(rng, [(25, 45, 140), (20, 20, 24), (200, 30, 40), (235, 235, 230), (40, 130, 80)]), np.float32)
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        side = ((xx - a[0]) * nrm[0] + (yy - a[1]) * nrm[1]) / r
        shade = 0.7 + 0.3 * np.cos(np.clip(side, -1, 1) * 1.4 - 0.5)
        hl = np.exp(-((side + 0.35) ** 2) / 0.02) * 70
        col = body[None, None, :] * shade[..., None] + hl[..., None]
        tipc = np.array([170, 170, 175], np.float32) * (0.8 + 0.2 * shade[..., None])
        sh = cv2.GaussianBlur(shift_img(np.maximum(mw, tw), r * 0.6, r * 0.8), (0, 0), r * 0.6)
        win = img[y0:y1, x0:x1]
        win *= (1 - 0.4 * sh[..., None])
        sig = U(rng, 0.6, 1.6)
        am = cv2.GaussianBlur(mw, (0, 0), sig)[..., None]
        at = cv2.GaussianBlur(tw * (1 - mw), (0, 0), sig)[..., None]
        win = win * (1 - am) + col * am
        win = win * (1 - at) + tipc * at
        img[y0:y1, x0:x1] = win
        return {'edge': edge, 'radius_px': round(r, 1), 'attempt': attempt}
    return None


def low_field(rng, W, H, fn):
    """evaluate fn(xn, yn) on a low-res grid and upscale."""
    w, h = max(8, W // 8), max(8, H // 8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xn = (xx + 0.5) / w - 0.5
    yn = (yy + 0.5) / h - 0.5
    f = fn(xn, yn).astype(np.float32)
    return cv2.resize(f, (W, H), interpolation=cv2.INTER_LINEAR)


def hand_shadow(rng, W, H):
    w, h = max(8, W // 8), max(8, H // 8)
    m = np.zeros((h, w), np.float32)
    edge = pick(rng, ['bottom', 'left', 'right', 'top', 'corner'])
    cov = U(rng, 0.2, 0.5)
    if edge == 'corner':
        cx, cy = pick(rng, [0, w]), pick(rng, [0, h])
        ax, ay = int(w * U(rng, 0.4, 0.8)), int(h * U(rng, 0.4, 0.8))
    elif edge in ('bottom', 'top'):
        cx, cy = int(w * U(rng, 0.2, 0.8)), (h if edge == 'bottom' else 0)
        ax, ay = int(w * U(rng, 0.3, 0.7)), int(h * cov)
    else:
        cx, cy = (0 if edge == 'left' else w), int(h * U(rng, 0.2, 0.8))
        ax, ay = int(w * cov), int(h * U(rng, 0.3, 0.7))
    cv2.ellipse(m, (int(cx), int(cy)), (max(2, ax), max(2, ay)), U(rng, -40, 40), 0, 360, 1.0, -1, cv2.LINE_AA)
    if rng.random() < 0.5:   # phone body shape: add a rectangle-ish extension
        pts = np.array([[cx, cy], [cx + U(rng, -0.3, 0.3) * w, cy + U(rng, -0.3, 0.3) * h],
                        [cx + U(rng, -0.3, 0.3) * w, cy + U(rng, -0.3, 0.3) * h]], np.int32)
        cv2.fillConvexPoly(m, pts, 1.0)
    sig = U(rng, 0.02, 0.07) * math.hypot(w, h)
    m = cv2.GaussianBlur(m, (0, 0), sig)
    return cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR), edge


# ----------------------------------------------------------------------------
# one photo
# ----------------------------------------------------------------------------
def make_photo(args):
    idx, seed, bank, t_idx, attempt = args
    rng = np.random.default_rng([seed, idx, attempt])
    item = bank[t_idx]
    lang_zh = has_cjk(item['question'])
    P = build_page(rng, bank, t_idx, lang_zh)
    meta = {'qid': 'f%03d' % (idx + 1), 'bank_id': item['id'], 'attempt': attempt}
    meta['page'] = P.meta
    W, H = SIZES[int(rng.integers(len(SIZES)))]
    meta['size'] = [W, H]
    screen = rng.random() < 0.08
    meta['screen'] = screen
    # --- camera choices
    r = rng.random()
    if screen:
        rot_kind = 'small'
        theta = U(rng, -15, 15)
    elif r < 0.87:
        rot_kind = 'small'
        theta = U(rng, -20, 20)
    elif r < 0.93:
        rot_kind = 'r180'
        theta = 180 + U(rng, -8, 8)
    else:
        rot_kind = 'r90'
        theta = pick(rng, [90, -90]) + U(rng, -8, 8)
    strong = rng.random() < (0.15 if screen else 0.27)
    if strong:
        big = pick(rng, ['rx', 'ry'])
        mag = U(rng, 16, 32) * pick(rng, [-1, 1])
        other = U(rng, -10, 10)
        rx, ry = (mag, other) if big == 'rx' else (other, mag)
    else:
        rx, ry = float(np.clip(rng.normal(0, 4), -8, 8)), float(np.clip(rng.normal(0, 4), -8, 8))
    f = U(rng, 0.7, 1.0) * max(W, H)
    R = rot_matrix(rx, ry, theta)
    off_frac = U(rng, 0.0, 0.1)
    off = [U(rng, -1, 1) * off_frac * W, U(rng, -1, 1) * off_frac * H]
    along_w = H if abs(math.sin(math.radians(theta))) > 0.7 else W   # photo dim along page x
    framing = pick(rng, ['wide', 'medium', 'close'], [0.25, 0.5, 0.25])
    fs = P.fs
    T = P.target
    tb = T['text_box']
    meta['camera'] = {'rotation_kind': rot_kind, 'rotation_deg': round(theta, 2), 'tilt_x_deg': round(rx, 2),
                      'tilt_y_deg': round(ry, 2), 'strong_perspective': strong, 'focal_px': round(f, 1),
                      'framing': framing}
    curl_kind = 'none'
    if not screen and rng.random() < 0.36:
        curl_kind = pick(rng, ['bend_v', 'bend_h', 'wave', 'corner'])
    curl = Curl(rng, W, H, curl_kind)
    meta['curl'] = curl.params()
    margin = max(14.0, 0.025 * min(W, H)) + curl.A * 1.2
    if screen:
        return make_screen_photo(rng, P, meta, W, H, R, f, off, theta, framing, margin, idx)
    if framing == 'wide':
        cov = U(rng, 1.05, 1.5) * PAGE_W
    elif framing == 'medium':
        cov = U(rng, 0.5, 0.85) * PAGE_W
    else:
        cov = max((tb[2] - tb[0]) * 1.15, U(rng, 0.3, 0.5) * PAGE_W)
    s0 = along_w / cov
    s_min = 20.0 / fs
    s0 = max(s0, s_min)
    quads = [p['box'] for p in P.problems]
    ti = P.problems.index(T)
    quads[ti] = tb
    same_col = [p['col'] == T['col'] for p in P.problems]
    cam = solve_camera(W, H, quads, ti, s0, s_min, R, f, off, curl, margin, fs,
                       counts=same_col if sum(same_col) > 1 else None)
    Hm = cam['H']
    meta['camera'].update(scale_px_per_unit=round(cam['s'], 4), offset_px=[round(float(v), 1) for v in cam['off']],
                          principal_point_shift_px=[round(float(v), 1) for v in cam['pp_corr']],
                          solve_iters=cam['iters'])
    # --- render region of the page
    Hinv = np.linalg.inv(Hm)
    edge_pts = []
    for t in np.linspace(0, 1, 17):
        edge_pts += [(t * W, 0), (t * W, H), (0, t * H), (W, t * H)]
    edge_pts = np.array(edge_pts)
    dx, dy, _ = curl.field(edge_pts[:, 0], edge_pts[:, 1])
    pu = project(Hinv, edge_pts + np.column_stack([dx, dy]))
    pad = 30
    u0 = max(0.0, pu[:, 0].min() - pad)
    v0 = max(0.0, pu[:, 1].min() - pad)
    u1 = min(float(PAGE_W), pu[:, 0].max() + pad)
    v1 = min(float(PAGE_H), pu[:, 1].max() + pad)
    # max local scale -> render scale k
    scales = []
    for (x, y) in [(0, 0), (W, 0), (0, H), (W, H), (W / 2, H / 2)]:
        a = project(Hinv, np.array([[x, y], [x + 1, y], [x, y + 1]]))
        jac = abs((a[1, 0] - a[0, 0]) * (a[2, 1] - a[0, 1]) - (a[1, 1] - a[0, 1]) * (a[2, 0] - a[0, 0]))
        scales.append(1 / math.sqrt(max(jac, 1e-12)))
    k = float(np.clip(max(scales) * 1.15, 0.35, 3.2))
    area = max(1.0, (u1 - u0) * (v1 - v0))
    k = min(k, math.sqrt(14e6 / area))
    meta['render_scale'] = round(k, 3)
    canvas = render_region(P, (u0, v0, u1, v1), k, rng)
    # --- warp
    X, Y = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    cdx, cdy, cprof = curl.field(X, Y)
    qx = X + cdx
    qy = Y + cdy
    den = Hinv[2, 0] * qx + Hinv[2, 1] * qy + Hinv[2, 2]
    u = (Hinv[0, 0] * qx + Hinv[0, 1] * qy + Hinv[0, 2]) / den
    v = (Hinv[1, 0] * qx + Hinv[1, 1] * qy + Hinv[1, 2]) / den
    del qx, qy
    mapx = ((u - u0) * k).astype(np.float32)
    mapy = ((v - v0) * k).astype(np.float32)
    page = cv2.remap(canvas, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    del canvas, mapx, mapy
    edge = np.minimum(np.minimum(u, PAGE_W - u), np.minimum(v, PAGE_H - v)) * (cam['s'] * 0.9)
    alpha = np.clip(edge + 0.5, 0, 1).astype(np.float32)
    del u, v, edge, den
    if curl.kind != 'none':
        page *= (1 - curl.shade * cprof.astype(np.float32))[..., None]
    cover = float(alpha.mean())
    meta['page_cover_fraction'] = round(cover, 4)
    bg_visible = bool(cover < 0.985)
    meta['background_visible'] = bg_visible
    if alpha.min() < 0.999:
        bg, bgk = make_background(rng, W, H)
        sh_off = (int(U(rng, -14, 14)), int(U(rng, 3, 18)))
        sh = cv2.GaussianBlur(shift_img(alpha, sh_off[0], sh_off[1]), (0, 0), U(rng, 5, 16))
        bg *= (1 - U(rng, 0.2, 0.45) * sh)[..., None]
        img = bg * (1 - alpha[..., None]) + page * alpha[..., None]
        meta['background'] = bgk
        del bg
    else:
        img = page
        meta['background'] = None
    del page
    # target quad (photo coords) and forbid mask for occluders
    tp = cam['target_pts']
    hull = cv2.convexHull(tp.astype(np.float32)).reshape(-1, 2)
    forbid = np.zeros((H, W), np.uint8)
    cv2.fillConvexPoly(forbid, np.round(hull).astype(np.int32), 255)
    dil = int(max(8, fs * cam['s'] * 0.6 + 0.015 * min(W, H)))
    forbid = cv2.dilate(forbid, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * dil + 1, 2 * dil + 1)))
    occ = {}
    ro = rng.random()
    if ro < 0.16:
        occ['finger'] = add_finger(rng, img, forbid, W, H)
    elif ro < 0.27:
        occ['pen'] = add_pen(rng, img, forbid, W, H)
    elif ro < 0.31:
        occ['finger'] = add_finger(rng, img, forbid, W, H)
        occ['pen'] = add_pen(rng, img, forbid, W, H)
    meta['occluders'] = occ
    finish_photo(rng, img, meta, W, H, screen=False, text_px=fs * cam['s'])
    return finalize(rng, img, meta, P, cam, W, H)


def finish_photo(rng, img, meta, W, H, screen, text_px):
    fx = {}
    # uneven lighting
    if rng.random() < 0.55:
        g1, g2 = U(rng, -0.35, 0.35), U(rng, -0.35, 0.35)
        vig = U(rng, 0.0, 0.5)
        hx, hy, hr, hs = U(rng, -0.5, 0.5), U(rng, -0.5, 0.5), U(rng, 0.2, 0.5), U(rng, 0.0, 0.2)
        L = low_field(rng, W, H, lambda x, y: 1 + g1 * x + g2 * y - vig * (x * x + y * y)
                      + hs * np.exp(-((x - hx) ** 2 + (y - hy) ** 2) / (hr * hr)))
        img *= L[..., None]
        fx['uneven_light'] = {'gx': round(g1, 3), 'gy': round(g2, 3), 'vignette': round(vig, 3), 'hotspot': round(hs, 3)}
    else:
        vig = U(rng, 0.0, 0.15)
        img *= low_field(rng, W, H, lambda x, y: 1 - vig * (x * x + y * y))[..., None]
    temp = pick(rng, ['neutral', 'warm', 'cool'], [0.45, 0.35, 0.2])
    tint = {'neutral': (1, 1, 1), 'warm': (1.0, 0.95, 0.84), 'cool': (0.93, 0.98, 1.05)}[temp]
    img *= np.array(tint, np.float32)[None, None, :]
    fx['colour_temp'] = temp
    # shadow of phone / hand
    if not screen and rng.random() < 0.27:
        m, edge = hand_shadow(rng, W, H)
        dark = U(rng, 0.22, 0.5)
        img *= (1 - dark * m)[..., None]
        fx['hand_shadow'] = {'edge': edge, 'darkness': round(dark, 3)}
    # exposure / low light
    low = rng.random() < 0.15
    if low:
        gain = U(rng, 0.35, 0.6)
        img *= gain
        fx['low_light'] = {'gain': round(gain, 3)}
    else:
        gain = U(rng, 0.92, 1.12)
        img *= gain
        fx['exposure_gain'] = round(gain, 3)
    # blur
    rb = rng.random()
    if rb < 0.08:
        ln = int(min(rng.integers(5, 14), max(4, 0.3 * text_px)))
        ang = U(rng, 0, 180)
        kern = np.zeros((ln, ln), np.float32)
        kern[ln // 2, :] = 1
        Mr = cv2.getRotationMatrix2D((ln / 2 - 0.5, ln / 2 - 0.5), ang, 1.0)
        kern = cv2.warpAffine(kern, Mr, (ln, ln))
        kern /= kern.sum()
        img[:] = cv2.filter2D(img, -1, kern)
        fx['motion_blur'] = {'length_px': ln, 'angle_deg': round(ang, 1)}
    elif rb < 0.30:
        sig = U(rng, 0.7, 1.6)
        img[:] = cv2.GaussianBlur(img, (0, 0), sig)
        fx['defocus_sigma'] = round(sig, 2)
    # noise
    ns = U(rng, 5, 12) if low else U(rng, 0.8, 3.0)
    nrng = rng.standard_normal((H, W)).astype(np.float32) * ns
    img += nrng[..., None]
    del nrng
    cn = rng.standard_normal((H // 2 + 1, W // 2 + 1, 3)).astype(np.float32) * (ns * 0.5)
    img += cv2.resize(cn, (W, H), interpolation=cv2.INTER_LINEAR)
    fx['noise_sigma'] = round(ns, 2)
    if rng.random() < 0.35 and not low:
        amt = U(rng, 0.3, 0.8)
        bl = cv2.GaussianBlur(img, (0, 0), 1.2)
        img[:] = img + amt * (img - bl)
        fx['sharpen'] = round(amt, 2)
    meta['effects'] = fx


def finalize(rng, img, meta, P, cam, W, H):
    q = int(rng.integers(55, 93))
    meta['jpeg_quality'] = q
    out = np.clip(img, 0, 255).astype(np.uint8)
    pil = Image.fromarray(out, 'RGB')
    buf = io.BytesIO()
    pil.save(buf, 'JPEG', quality=q, subsampling=2)
    tp = cam['target_pts']
    cents = cam['centres']
    d = cam['dist']
    probs = cam.get('problems', P.problems)
    ti = probs.index(P.target)
    meta['target'] = {
        'slot': P.target['slot'], 'label': P.target['label'],
        'photo_bbox': [round(float(tp[:, 0].min()), 1), round(float(tp[:, 1].min()), 1),
                       round(float(tp[:, 0].max()), 1), round(float(tp[:, 1].max()), 1)],
        'photo_quad': [[round(float(x), 1), round(float(y), 1)] for x, y in cam['quad']],
        'centre_px': [round(float(cents[ti][0]), 1), round(float(cents[ti][1]), 1)],
        'centre_dist_px': round(float(d[ti]), 1),
        'nearest_other_dist_px': round(float(np.delete(d, ti).min()), 1) if len(d) > 1 else None,
        'centre_ratio': round(float(cam['ratio']), 3) if math.isfinite(cam['ratio']) else None,
        'inside': cam['inside'],
        'text_height_px': round(P.fs * cam['s'], 1),
        'visible_neighbours': cam['visible_neighbours'],
        'text_has_sub_sup': any(c in SUP or c in SUB for c in P.target_text),
        'text_has_blank': '___' in P.target_text,
    }
    nbs = []
    for j, p in enumerate(probs):
        if j == ti:
            continue
        c = cents[j]
        vis = bool(-0.1 * W < c[0] < 1.1 * W and -0.1 * H < c[1] < 1.1 * H)
        if vis:
            nbs.append({'id': p['id'], 'label': p['label'], 'centre_px': [round(float(c[0]), 1), round(float(c[1]), 1)],
                        'dist_px': round(float(d[j]), 1), 'has_options': p['options'] is not None})
    meta['neighbours_near_frame'] = nbs
    meta['page']['neighbour_ids'] = [p['id'] for p in P.problems if not p['is_target']]
    return buf.getvalue(), meta


# ----------------------------------------------------------------------------
# screen photos
# ----------------------------------------------------------------------------
def make_screen_photo(rng, P, meta, W, H, R, f, off, theta, framing, margin, idx):
    dev = pick(rng, ['phone', 'laptop'])
    T = P.target
    tb = T['text_box']
    if dev == 'phone':
        sw, sh = 1080, 2340
        bez = [40, 70, 40, 70]
        status_h, bar_h = 70, 130
        zoom = sw / PAGE_W * U(rng, 1.0, 1.3)
        cx0, cy0, cx1, cy1 = 0, status_h + bar_h, sw, sh
        bar_col = pick(rng, [(245, 245, 245), (40, 40, 45), (30, 110, 200)])
        viewer_bg = (225, 225, 225) if bar_col[0] > 100 else (50, 50, 55)
    else:
        sw, sh = 1920, 1200
        bez = [30, 40, 30, 60]
        status_h, bar_h = 0, 80
        cx0, cy0, cx1, cy1 = 0, bar_h, sw, sh
        bar_col = pick(rng, [(235, 235, 235), (50, 52, 58)])
        viewer_bg = pick(rng, [(128, 128, 128), (82, 86, 89), (220, 220, 220)])
        zoom = sw * U(rng, 0.55, 0.9) / PAGE_W
    cw, chh = cx1 - cx0, cy1 - cy0
    th = (tb[3] - tb[1]) * zoom
    if th > 0.8 * chh:
        zoom *= 0.8 * chh / th
    if (tb[2] - tb[0]) * zoom > 0.95 * cw:
        zoom *= 0.95 * cw / ((tb[2] - tb[0]) * zoom)
    # page position on screen: page x centred (laptop) / fitted (phone); target near content centre
    tcu, tcv = (tb[0] + tb[2]) / 2, (tb[1] + tb[3]) / 2
    if dev == 'phone':
        ox = cx0 + cw / 2 - tcu * zoom + U(rng, -0.05, 0.05) * cw
        if PAGE_W * zoom >= cw:            # page wider than the screen: no empty side
            ox = float(np.clip(ox, cx1 - PAGE_W * zoom, cx0))
        else:
            ox = cx0 + (cw - PAGE_W * zoom) / 2
    else:
        ox = cx0 + cw / 2 - PAGE_W / 2 * zoom
    oy = cy0 + chh / 2 - tcv * zoom + U(rng, -0.1, 0.1) * chh
    # keep target fully on the content area
    ty0, ty1 = tb[1] * zoom + oy, tb[3] * zoom + oy
    if ty0 < cy0 + 20:
        oy += cy0 + 20 - ty0
    if ty1 > cy1 - 20:
        oy -= ty1 - (cy1 - 20)
    tx0, tx1 = tb[0] * zoom + ox, tb[2] * zoom + ox
    if tx0 < cx0 + 10:
        ox += cx0 + 10 - tx0
    if tx1 > cx1 - 10:
        ox -= tx1 - (cx1 - 10)
    # render visible page part
    u0 = max(0.0, (cx0 - ox) / zoom)
    u1 = min(float(PAGE_W), (cx1 - ox) / zoom)
    v0 = max(0.0, (cy0 - oy) / zoom)
    v1 = min(float(PAGE_H), (cy1 - oy) / zoom)
    screen_img = np.zeros((sh, sw, 3), np.uint8)
    screen_img[:] = viewer_bg
    canvas = render_region(P, (u0, v0, u1, v1), zoom, rng)
    px, py = int(round(u0 * zoom + ox)), int(round(v0 * zoom + oy))
    ch_, cw_ = canvas.shape[:2]
    ya, yb = max(py, cy0), min(py + ch_, cy1)
    xa, xb = max(px, cx0), min(px + cw_, cx1)
    if yb > ya and xb > xa:
        screen_img[ya:yb, xa:xb] = canvas[ya - py:yb - py, xa - px:xb - px]
    sim = Image.fromarray(screen_img)
    d = ImageDraw.Draw(sim)
    d.rectangle([0, status_h, sw, status_h + bar_h], fill=bar_col)
    tcol = (20, 20, 20) if bar_col[0] > 100 else (235, 235, 235)
    title = pick(rng, ['作业.pdf', 'worksheet.pdf', '练习卷.pdf', 'homework_05.pdf', '期中复习.pdf'])
    tf = font('noto_sans', bar_h * 0.38)
    d.text((sw / 2, status_h + bar_h / 2), title, font=tf, fill=tcol, anchor='mm')
    if dev == 'phone':
        d.rectangle([0, 0, sw, status_h], fill=(0, 0, 0) if bar_col[0] < 100 else (250, 250, 250))
        sc = (255, 255, 255) if bar_col[0] < 100 else (0, 0, 0)
        d.text((60, status_h * 0.72), '%d:%02d' % (int(rng.integers(7, 23)), int(rng.integers(0, 60))),
               font=font('dj_sans', 34), fill=sc, anchor='ls')
        d.rectangle([sw - 130, 22, sw - 70, 48], outline=sc, width=3)
        d.rectangle([sw - 126, 26, sw - 126 + int(56 * U(rng, 0.2, 0.95)), 44], fill=sc)
    else:
        for j in range(4):
            d.rounded_rectangle([20 + j * 60, 20, 60 + j * 60, 60], radius=6, fill=(200, 200, 200) if bar_col[0] < 100 else (120, 120, 120))
    screen_img = np.asarray(sim)
    # device image
    DW, DH = sw + bez[0] + bez[2], sh + bez[1] + bez[3]
    body = np.array(pick(rng, [(18, 18, 20), (30, 30, 34), (200, 200, 205), (12, 12, 14)]), np.float32)
    dimg = np.zeros((DH, DW, 3), np.float32)
    dimg[:] = body
    gy = np.linspace(0.9, 1.1, DH, dtype=np.float32)[:, None, None]
    dimg *= gy
    dimg[bez[1]:bez[1] + sh, bez[0]:bez[0] + sw] = screen_img.astype(np.float32)
    rad = 90 if dev == 'phone' else 24
    cr = np.zeros((DH, DW), np.uint8)
    cv2.rectangle(cr, (rad, 0), (DW - rad - 1, DH - 1), 255, -1)
    cv2.rectangle(cr, (0, rad), (DW - 1, DH - rad - 1), 255, -1)
    for (cx, cy) in [(rad, rad), (DW - rad - 1, rad), (rad, DH - rad - 1), (DW - rad - 1, DH - rad - 1)]:
        cv2.circle(cr, (cx, cy), rad, 255, -1, cv2.LINE_AA)
    amask = cr
    # problem boxes in device coords
    def to_dev(b):
        return [b[0] * zoom + ox + bez[0], b[1] * zoom + oy + bez[1], b[2] * zoom + ox + bez[0], b[3] * zoom + oy + bez[1]]
    # neighbours only count with the part shown inside the screen's content area
    ca = (cx0 + bez[0], cy0 + bez[1], cx1 + bez[0], cy1 + bez[1])
    quads = []
    keep = []
    for p in P.problems:
        if p is T:
            ti = len(quads)
            quads.append(to_dev(tb))
            keep.append(p)
            continue
        b = to_dev(p['box'])
        b = [max(b[0], ca[0]), max(b[1], ca[1]), min(b[2], ca[2]), min(b[3], ca[3])]
        if b[2] - b[0] > 2 and b[3] - b[1] > 2:
            quads.append(b)
            keep.append(p)
    # scale: device content width across photo
    along_w = H if abs(math.sin(math.radians(theta))) > 0.7 else W
    s0 = along_w * U(rng, 0.75, 1.15) / (sw if dev == 'phone' else sw * 0.8)
    s_min = 22.0 / (P.fs * zoom)
    s0 = max(s0, s_min)
    curl = Curl(rng, W, H, 'none')
    same_col = [p['col'] == T['col'] for p in keep]
    cam = solve_camera(W, H, quads, ti, s0, s_min, R, f, off, curl, margin, P.fs * zoom,
                       counts=same_col if sum(same_col) > 1 else None)
    Hm = cam['H']
    Hinv = np.linalg.inv(Hm)
    X, Y = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    den = Hinv[2, 0] * X + Hinv[2, 1] * Y + Hinv[2, 2]
    u = ((Hinv[0, 0] * X + Hinv[0, 1] * Y + Hinv[0, 2]) / den).astype(np.float32)
    v = ((Hinv[1, 0] * X + Hinv[1, 1] * Y + Hinv[1, 2]) / den).astype(np.float32)
    devimg = cv2.remap(dimg, u, v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    alpha = cv2.remap(amask, u, v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32) / 255
    # moire: point-sampled sub-pixel grid of the screen (aliases into fringes)
    su = u - bez[0]
    sv = v - bez[1]
    scr = ((su >= 0) & (su < sw) & (sv >= 0) & (sv < sh)).astype(np.float32)
    scr = cv2.GaussianBlur(scr, (0, 0), 1.0)
    a_m = U(rng, 0.2, 0.45)
    b_m = U(rng, 0.1, 0.3)
    vert = 1 - b_m * (0.5 - 0.5 * np.cos(2 * np.pi * sv))
    for c in range(3):
        patt = (1 - a_m * (0.5 - 0.5 * np.cos(2 * np.pi * (su - c / 3.0)))) * vert / ((1 - a_m / 2) * (1 - b_m / 2))
        devimg[..., c] *= (1 - scr) + scr * patt
    # screen appearance: raised blacks, slight blue cast
    lift = U(rng, 8, 28)
    devimg += scr[..., None] * lift
    devimg *= 1 - scr[..., None] * np.array([0.0, 0.01, -0.03], np.float32)[None, None, :]
    # glare
    gx, gy2 = U(rng, 0.2, 0.8) * W, U(rng, 0.2, 0.8) * H
    gax, gay = U(rng, 0.1, 0.35) * W, U(rng, 0.08, 0.25) * H
    ang = math.radians(U(rng, 0, 180))
    xr = (X - gx) * math.cos(ang) + (Y - gy2) * math.sin(ang)
    yr = -(X - gx) * math.sin(ang) + (Y - gy2) * math.cos(ang)
    glare = np.exp(-((xr / gax) ** 2 + (yr / gay) ** 2)).astype(np.float32)
    gs = U(rng, 40, 100)
    devimg += (glare * alpha * gs)[..., None]
    del X, Y, xr, yr, den, su, sv
    bg, bgk = make_background(rng, W, H)
    shd = cv2.GaussianBlur(shift_img(alpha, int(U(rng, 4, 16)), int(U(rng, -10, 10))), (0, 0), U(rng, 6, 16))
    bg *= (1 - 0.45 * shd)[..., None]
    img = bg * (1 - alpha[..., None]) + devimg * alpha[..., None]
    meta['screen_info'] = {'device': dev, 'zoom_dev_px_per_unit': round(zoom, 4), 'moire_amp': round(a_m, 3),
                           'moire_row_amp': round(b_m, 3), 'glare_strength': round(gs, 1), 'black_lift': round(lift, 1),
                           'title': title}
    meta['camera'].update(scale_px_per_dev_px=round(cam['s'], 4), offset_px=[round(float(x), 1) for x in cam['off']],
                          principal_point_shift_px=[round(float(v), 1) for v in cam['pp_corr']],
                          solve_iters=cam['iters'])
    meta['background'] = bgk
    meta['background_visible'] = bool(alpha.mean() < 0.985)
    meta['page_cover_fraction'] = None
    meta['occluders'] = {}
    finish_photo(rng, img, meta, W, H, screen=True, text_px=P.fs * zoom * cam['s'])
    cam = dict(cam)
    cam['problems'] = keep
    out, meta = finalize(rng, img, meta, P, cam, W, H)
    meta['target']['text_height_px'] = round(P.fs * zoom * cam['s'], 1)
    return out, meta


# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------
def worker(args):
    idx, seed, bank, t_idx = args
    last = None
    for attempt in range(6):
        try:
            data, meta = make_photo((idx, seed, bank, t_idx, attempt))
        except RuntimeError as e:      # layout impossibility -> retry with another stream
            last = str(e)
            continue
        t = meta['target']
        if t['inside'] and (t['centre_ratio'] is None or t['centre_ratio'] >= 1.25):
            return idx, data, meta
        last = meta
    if isinstance(last, dict):
        return idx, data, meta
    raise RuntimeError('photo %d failed: %s' % (idx, last))


_BANK = None


def _init(bank):
    global _BANK
    _BANK = bank
    cv2.setNumThreads(1)


def _worker_pool(args):
    idx, seed, t_idx = args
    return worker((idx, seed, _BANK, t_idx))


def load_bank(path):
    rows = []
    with open(path, encoding='utf-8') as fh:
        for line in fh:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def target_order(n_bank, count, seed):
    rng = np.random.default_rng([seed, 999331])
    order = []
    while len(order) < count:
        order += [int(i) for i in rng.permutation(n_bank)]
    return order[:count]


def summarize(metas):
    n = len(metas)
    rows = []

    def share(name, pred):
        c = sum(1 for m in metas if pred(m))
        rows.append((name, c, 100.0 * c / max(n, 1)))

    def dist(name, key):
        cnt = Counter(key(m) for m in metas)
        for k_ in sorted(cnt, key=lambda z: str(z)):
            rows.append(('%s = %s' % (name, k_), cnt[k_], 100.0 * cnt[k_] / n))

    pg = lambda m: m['page']
    dist('layout', lambda m: pg(m)['layout'])
    share('screen photo (phone/laptop)', lambda m: m['screen'])
    dist('photo size', lambda m: '%dx%d' % tuple(m['size']))
    dist('page language', lambda m: pg(m)['lang'])
    dist('numbering', lambda m: pg(m)['numbering'])
    dist('number emphasis', lambda m: pg(m)['label_emphasis'])
    dist('score note', lambda m: pg(m)['score_note'])
    dist('CJK font', lambda m: pg(m)['font_cjk'])
    dist('Latin font', lambda m: pg(m)['font_latin'])
    dist('font size', lambda m: '24-30' if pg(m)['font_size'] <= 30 else ('31-37' if pg(m)['font_size'] <= 37 else '38-44'))
    dist('line spacing', lambda m: '1.3-1.55' if pg(m)['line_spacing'] < 1.55 else ('1.55-1.8' if pg(m)['line_spacing'] < 1.8 else '1.8-2.0'))
    share('hanging indent', lambda m: pg(m)['hanging_indent'])
    dist('spacing', lambda m: pg(m)['spacing'])
    share('page with A-D option lines under some neighbours', lambda m: pg(m)['options_page'])
    share('option lines under a neighbour near the frame', lambda m: any(nb['has_options'] for nb in m['neighbours_near_frame']))
    dist('neighbours', lambda m: pg(m)['neighbour_mix'])
    dist('sub/superscripts (page style)', lambda m: pg(m)['script_mode'])
    dist('blanks (page style)', lambda m: pg(m)['blank_mode'])
    share('framed text has sub/superscript characters', lambda m: m['target']['text_has_sub_sup'])
    share('  ... drawn raised/lowered', lambda m: m['target']['text_has_sub_sup'] and pg(m)['script_mode'] == 'raised')
    share('framed text has a ___ blank', lambda m: m['target']['text_has_blank'])
    share('  ... drawn as a rule', lambda m: m['target']['text_has_blank'] and pg(m)['blank_mode'] == 'rule')
    share('red ticks/crosses', lambda m: 'ticks' in pg(m)['marks'])
    share('red circle on a number', lambda m: 'number_circle' in pg(m)['marks'])
    share('red circle on the framed number', lambda m: pg(m)['marks'].get('number_circle', {}).get('target', False))
    share('red hand-written score', lambda m: 'red_score' in pg(m)['marks'])
    share('highlighter on a neighbour', lambda m: 'highlighter' in pg(m)['marks'])
    share('pencil underline in framed problem', lambda m: 'pencil_underline' in pg(m)['marks'])
    share('student answer at a neighbour', lambda m: any(not w['target'] for w in pg(m)['student_writing']))
    share('  ... in the space below it', lambda m: any(not w['target'] and w['place'] == 'below' for w in pg(m)['student_writing']))
    share('student answer at the framed problem', lambda m: any(w['target'] for w in pg(m)['student_writing']))
    share('  ... in the space below it', lambda m: any(w['target'] and w['place'] == 'below' for w in pg(m)['student_writing']))
    dist('rotation', lambda m: m['camera']['rotation_kind'])
    share('strong perspective', lambda m: m['camera']['strong_perspective'])
    dist('framing', lambda m: m['camera']['framing'])
    dist('paper curl', lambda m: m['curl']['type'])
    share('phone/hand shadow', lambda m: 'hand_shadow' in m['effects'])
    share('uneven lighting', lambda m: 'uneven_light' in m['effects'])
    share('low light + noise', lambda m: 'low_light' in m['effects'])
    share('motion blur', lambda m: 'motion_blur' in m['effects'])
    share('defocus', lambda m: 'defocus_sigma' in m['effects'])
    share('background visible', lambda m: m['background_visible'])
    dist('background', lambda m: m['background'] if m['background_visible'] else 'none (page fills frame)')
    share('finger at an edge', lambda m: bool(m['occluders'].get('finger')))
    share('pen at an edge', lambda m: bool(m['occluders'].get('pen')))
    dist('JPEG quality', lambda m: '55-67' if m['jpeg_quality'] <= 67 else ('68-80' if m['jpeg_quality'] <= 80 else '81-92'))
    ratios = [m['target']['centre_ratio'] for m in metas if m['target']['centre_ratio'] is not None]
    lines = ['| case | photos | share |', '|---|---:|---:|']
    for name, c, pct in rows:
        lines.append('| %s | %d | %.1f%% |' % (name, c, pct))
    lines.append('')
    lines.append('photos: %d; framed problem inside frame: %d; min centre ratio (nearest other / framed): %.2f'
                 % (n, sum(1 for m in metas if m['target']['inside']), min(ratios) if ratios else float('nan')))
    return '\n'.join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out_dir')
    ap.add_argument('--bank', default='appliance/data/demo_bank.jsonl')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=67)
    ap.add_argument('--workers', type=int, default=2)
    ap.add_argument('--summary', action='store_true', help='print case shares of an existing OUT_DIR and exit')
    a = ap.parse_args(argv)
    if a.summary:
        metas = [json.loads(l) for l in open(os.path.join(a.out_dir, 'meta.jsonl'), encoding='utf-8')]
        print(summarize(metas))
        return 0
    t0 = time.time()
    bank = load_bank(a.bank)
    os.makedirs(a.out_dir, exist_ok=True)
    order = target_order(len(bank), a.count, a.seed)
    jobs = [(i, a.seed, order[i]) for i in range(a.count)]
    results = [None] * a.count
    if a.workers > 1:
        import multiprocessing as mp
        ctx = mp.get_context('fork') if 'fork' in mp.get_all_start_methods() else mp.get_context()
        with ctx.Pool(a.workers, initializer=_init, initargs=(bank,)) as pool:
            for idx, data, meta in pool.imap_unordered(_worker_pool, jobs, chunksize=1):
                results[idx] = (data, meta)
    else:
        _init(bank)
        for j in jobs:
            idx, data, meta = _worker_pool(j)
            results[idx] = (data, meta)
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', encoding='utf-8', newline='') as ft, \
            open(os.path.join(a.out_dir, 'queries.csv'), 'w', encoding='utf-8', newline='') as fq, \
            open(os.path.join(a.out_dir, 'meta.jsonl'), 'w', encoding='utf-8') as fm:
        wt = csv.writer(ft, lineterminator='\n')
        wq = csv.writer(fq, lineterminator='\n')
        wt.writerow(['qid', 'text'])
        wq.writerow(['qid', 'query', 'expected_id', 'kind'])
        for i, (data, meta) in enumerate(results):
            qid = 'f%03d' % (i + 1)
            with open(os.path.join(a.out_dir, qid + '.jpg'), 'wb') as fh:
                fh.write(data)
            item = bank[order[i]]
            wt.writerow([qid, item['question']])
            wq.writerow([qid, item['question'], item['id'], 'exact'])
            fm.write(json.dumps(meta, ensure_ascii=False, sort_keys=True, default=_json_default) + '\n')
    metas = [r[1] for r in results]
    print(summarize(metas))
    print('wrote %d photos to %s in %.1f s' % (a.count, a.out_dir, time.time() - t0))
    return 0


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, tuple):
        return list(o)
    raise TypeError(type(o))


if __name__ == '__main__':
    sys.exit(main())
