#!/usr/bin/env python3
"""Synthetic phone photos of printed school pages, one framed problem per photo.

Usage:
    python tests/photos_tune6/make_photos.py --bank appliance/data/demo_bank.jsonl OUT_DIR \
        --count 120 --seed 79 --workers 2
    python tests/photos_tune6/make_photos.py --summary OUT_DIR

Only numpy, Pillow, OpenCV and the standard library are used.  Every photo draws
from its own random stream numpy.random.default_rng([seed, index]) so the output
does not depend on --workers.
"""
import argparse
import collections
import csv
import json
import math
import os
import re
import sys
import time
from functools import lru_cache
from multiprocessing import Pool

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

CATEGORIES = ['textbook', 'answer_space', 'figures', 'handwriting', 'paper', 'capture', 'layout']
P_SECONDARY = 0.34          # chance that a non-primary category is mixed in
F_MIN = 22.0                # min font size (px) of the target text on the output photo (CJK ink ~19 px)

# ----------------------------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------------------------
_NOTO = '/usr/share/fonts/opentype/noto/'
_DJ = '/usr/share/fonts/truetype/dejavu/'
_LIB = '/usr/share/fonts/truetype/liberation/'
FONT_FILES = {
    'cjk_sans': (_NOTO + 'NotoSansCJK-Regular.ttc', 'SC'),
    'cjk_sans_b': (_NOTO + 'NotoSansCJK-Bold.ttc', 'SC'),
    'cjk_serif': (_NOTO + 'NotoSerifCJK-Regular.ttc', 'SC'),
    'cjk_serif_b': (_NOTO + 'NotoSerifCJK-Bold.ttc', 'SC'),
    'lat_serif': (_LIB + 'LiberationSerif-Regular.ttf', None),
    'lat_serif_b': (_LIB + 'LiberationSerif-Bold.ttf', None),
    'lat_serif_i': (_LIB + 'LiberationSerif-Italic.ttf', None),
    'lat_sans': (_LIB + 'LiberationSans-Regular.ttf', None),
    'lat_sans_b': (_LIB + 'LiberationSans-Bold.ttf', None),
    'lat_narrow': (_LIB + 'LiberationSansNarrow-Regular.ttf', None),
    'dv_sans': (_DJ + 'DejaVuSans.ttf', None),
    'dv_sans_b': (_DJ + 'DejaVuSans-Bold.ttf', None),
    'dv_sans_o': (_DJ + 'DejaVuSans-Oblique.ttf', None),
    'dv_serif': (_DJ + 'DejaVuSerif.ttf', None),
    'dv_serif_b': (_DJ + 'DejaVuSerif-Bold.ttf', None),
    'dv_serif_i': (_DJ + 'DejaVuSerif-Italic.ttf', None),
}
# font families: cjk = CJK glyphs, lat = Latin glyphs (for English pages / latin_mode), fb = fallback
FAMILIES = {
    'serif': {'cjk': 'cjk_serif', 'lat': 'lat_serif', 'fb': 'dv_serif'},
    'serif_dv': {'cjk': 'cjk_serif', 'lat': 'dv_serif', 'fb': 'dv_serif'},
    'sans': {'cjk': 'cjk_sans', 'lat': 'lat_sans', 'fb': 'dv_sans'},
    'sans_dv': {'cjk': 'cjk_sans', 'lat': 'dv_sans', 'fb': 'dv_sans'},
    'serif_b': {'cjk': 'cjk_serif_b', 'lat': 'lat_serif_b', 'fb': 'dv_serif_b'},
    'sans_b': {'cjk': 'cjk_sans_b', 'lat': 'lat_sans_b', 'fb': 'dv_sans_b'},
    'label': {'cjk': 'cjk_serif', 'lat': 'lat_serif_i', 'fb': 'dv_serif_i'},
    'small_sans': {'cjk': 'cjk_sans', 'lat': 'lat_narrow', 'fb': 'dv_sans'},
}
BOLD_OF = {'serif': 'sans_b', 'serif_dv': 'sans_b', 'sans': 'sans_b', 'sans_dv': 'sans_b'}


@lru_cache(maxsize=None)
def _font_path(key):
    path, face = FONT_FILES[key]
    if not os.path.exists(path):
        path, face = FONT_FILES['dv_sans']
    idx = 0
    if face and path.endswith('.ttc'):
        for i in range(8):
            try:
                if face in ImageFont.truetype(path, 12, index=i).getname()[0]:
                    idx = i
                    break
            except OSError:
                break
    return path, idx


@lru_cache(maxsize=512)
def get_font(key, px):
    path, idx = _font_path(key)
    return ImageFont.truetype(path, max(1, int(px)), index=idx)


@lru_cache(maxsize=None)
def _notdef(key):
    m = get_font(key, 40).getmask('\U0010FFFD')
    return m.size, bytes(m)


@lru_cache(maxsize=None)
def has_glyph(key, ch):
    if ch.isspace():
        return True
    m = get_font(key, 40).getmask(ch)
    return (m.size, bytes(m)) != _notdef(key)


@lru_cache(maxsize=200000)
def text_adv(key, s):
    """advance width of s in em (font size 1)."""
    return get_font(key, 200).getlength(s) / 200.0


def is_cjk(c):
    o = ord(c)
    return (0x2E80 <= o <= 0x9FFF) or (0xFF00 <= o <= 0xFFEF) or (0x3000 <= o <= 0x303F) or \
        (0x2460 <= o <= 0x24FF) or (0x3200 <= o <= 0x32FF) or c in '“”‘’—…·'


def char_key(c, fam, latin_mode):
    f = FAMILIES[fam]
    if is_cjk(c):
        return f['cjk'] if has_glyph(f['cjk'], c) else f['fb']
    prim = f['lat'] if latin_mode == 'lat' else f['cjk']
    if has_glyph(prim, c):
        return prim
    if has_glyph(f['fb'], c):
        return f['fb']
    return f['cjk']


_TOKEN_RE = re.compile(r'\s+|[^\s]')


def tokenize(text):
    """Split into tokens: whitespace runs, single CJK chars, latin words."""
    toks = []
    buf = ''
    for c in text:
        if c.isspace():
            if buf:
                toks.append(buf)
                buf = ''
            if toks and toks[-1].isspace():
                toks[-1] += c
            else:
                toks.append(c)
        elif is_cjk(c):
            if buf:
                toks.append(buf)
                buf = ''
            toks.append(c)
        else:
            buf += c
    if buf:
        toks.append(buf)
    return toks


def token_pieces(tok, fam, latin_mode, pt):
    """[(dx, substring, key)], width in pt."""
    pieces = []
    x = 0.0
    cur, ck = '', None
    for c in tok:
        k = char_key(c, fam, latin_mode)
        if k != ck and cur:
            pieces.append((x, cur, ck))
            x += text_adv(ck, cur) * pt
            cur = ''
        cur += c
        ck = k
    if cur:
        pieces.append((x, cur, ck))
        x += text_adv(ck, cur) * pt
    return pieces, x


CLOSE_P = set('，。、；：？！）》」』”’,.;:?!)]%】')
OPEN_P = set('（《「『“‘([【')


def wrap_tokens(items, widths):
    """items: list of (tok, width, role).  widths: function(line_index)->max width. returns lines."""
    lines = []
    cur = []
    cw = 0.0
    for it in items:
        tok, w = it[0], it[1]
        lim = widths(len(lines))
        if tok.isspace():
            if cur:
                cur.append(it)
                cw += w
            continue
        has_ink = any(not c[0].isspace() for c in cur)
        if cw + w <= lim + 1e-6 or not has_ink or (tok in CLOSE_P and cw + w <= lim * 1.06):
            cur.append(it)
            cw += w
            continue
        while cur and cur[-1][0].isspace():
            cw -= cur.pop()[1]
        carry = []
        while len(cur) > 1 and cur[-1][0] in OPEN_P:
            carry.insert(0, cur.pop())
        lines.append(cur)
        cur = carry + [it]
        cw = sum(c[1] for c in cur)
    while cur and cur[-1][0].isspace():
        cur.pop()
    if cur:
        lines.append(cur)
    return lines


# ----------------------------------------------------------------------------------------------
# text pools (neutral sentences written for this generator)
# ----------------------------------------------------------------------------------------------
PROSE_ZH = [
    '在解决实际问题时，我们常常先找出题目中的已知量和未知量，再寻找它们之间的关系。',
    '本节我们将通过几个例子，学习如何把文字叙述转化为数学表达式。',
    '观察下面的图形和数据，想一想它们有什么共同的特点。',
    '请同学们在练习时注意书写规范，并检查计算过程是否正确。',
    '科学研究往往从仔细的观察开始，认真记录数据是得出结论的重要一步。',
    '阅读材料时，可以先浏览标题和小结，再细读每一段的要点。',
    '做完一道题后，把结果代回原题检验，是一个很好的学习习惯。',
    '遇到较复杂的问题，可以先画一张简单的示意图，帮助理清思路。',
    '同一个问题往往有多种解法，比较不同的方法可以加深理解。',
    '下面的练习按照由易到难的顺序排列，请根据自己的情况选做。',
    '学习新知识时，要注意它与已学内容之间的联系。',
    '实验前应明确目的，实验中要注意安全，实验后要整理器材。',
    '归纳和类比是获得新结论的常用方法，但结论还需要验证。',
    '课后请完成下列练习，并在小组内交流自己的思路。',
]
PROSE_EN = [
    'In this section we look at how a short written description can be turned into a calculation.',
    'Read each question carefully and underline the key information before you begin.',
    'Careful observation and accurate records are the first steps of any investigation.',
    'When you check your work, substitute your answer back into the original statement.',
    'The examples below show the method step by step; try to explain each step in your own words.',
    'A quick sketch often makes a problem easier to understand.',
    'Many problems can be solved in more than one way, and comparing methods builds understanding.',
    'The exercises that follow start with simple cases and become gradually more demanding.',
    'Remember to include units in your final answers where they are needed.',
    'Work with a partner to compare your answers and discuss any differences.',
    'New ideas are easier to remember when they are linked to things you already know.',
    'Show all of your working so that your method can be followed.',
]
CHAPTERS = {
    'math': [('第三章 一元一次方程', 'Chapter 3  Equations'), ('第五章 图形与面积', 'Chapter 5  Shapes and Area'),
             ('第二章 有理数的运算', 'Chapter 2  Working with Numbers')],
    'physics': [('第六章 质量与密度', 'Chapter 6  Mass and Density'), ('第八章 运动和力', 'Chapter 8  Forces and Motion')],
    'chemistry': [('第五单元 化学方程式', 'Unit 5  Chemical Equations'), ('第三单元 物质构成的奥秘', 'Unit 3  Atoms and Molecules')],
    'biology': [('第二单元 生物体的结构层次', 'Unit 2  Cells and Organisms'), ('第七章 生物的遗传和变异', 'Chapter 7  Heredity')],
    'geography': [('第二章 中国的自然环境', 'Chapter 2  Physical Geography'), ('第一章 地球和地图', 'Chapter 1  Earth and Maps')],
    'history': [('第三单元 秦汉时期', 'Unit 3  Early Empires'), ('第五单元 近代化的探索', 'Unit 5  The Modern Era')],
    'chinese': [('第六单元 古诗词诵读', 'Unit 6  Classical Poems'), ('第二单元 散文阅读', 'Unit 2  Reading Prose')],
    'english': [('Unit 4  Grammar Focus', 'Unit 4  Grammar Focus'), ('Unit 7  Language in Use', 'Unit 7  Language in Use')],
}
SUBJECT_NAMES = {'math': ('数学', 'Mathematics'), 'physics': ('物理', 'Physics'), 'chemistry': ('化学', 'Chemistry'),
                 'biology': ('生物', 'Biology'), 'geography': ('地理', 'Geography'), 'history': ('历史', 'History'),
                 'chinese': ('语文', 'Chinese'), 'english': ('英语', 'English')}
SECTION_TITLES_ZH = ['知识回顾', '方法指导', '阅读与思考', '学习目标', '要点归纳', '探究活动']
SECTION_TITLES_EN = ['Key ideas', 'Before you start', 'Reading', 'Summary', 'Learning goals', 'Investigation']
EX_HEADINGS_ZH = ['练习二', '练习三', '习题 {c}.{s}', '课后练习', '巩固练习', '随堂练习', '练习 {s}']
EX_HEADINGS_EN = ['Exercises {c}.{s}', 'Exercise {s}', 'Practice', 'Check your understanding', 'Exercises {c}{l}']
EXAM_SECTIONS_ZH = ['一、选择题（每小题3分，共24分）', '二、填空题（每空2分，共16分）', '三、解答题（共60分）',
                    '一、基础知识（共30分）', '二、计算题（每题5分）', '三、简答题']
EXAM_SECTIONS_EN = ['Part I  Multiple choice (3 points each)', 'Part II  Short answer', 'Section B  Structured questions',
                    'Section A  (20 marks)']
WS_TITLES_ZH = ['{g}年级{s} 课堂练习（{n}）', '{s}同步训练 第{n}课时', '{g}年级{s}单元检测卷', '{s}周末作业（{n}）',
                '{s}基础练习 {n}']
WS_TITLES_EN = ['{s} Worksheet {n}', 'Homework {n}: {s}', 'Year {g} {s} - Practice Sheet', '{s} Revision Set {n}']
EXAM_TITLES_ZH = [('20{y}—20{y2}学年第一学期期中考试', '{g}年级{s}试卷'), ('20{y}—20{y2}学年第二学期期末检测', '{g}年级{s}'),
                  ('{s}阶段性测试卷', '（考试时间：90分钟  满分：100分）')]
EXAM_TITLES_EN = [('Mid-term Examination 20{y}', 'Year {g} {s}'), ('{s} Unit Test', 'Time: 60 minutes   Total: 100 marks')]
OPTION_POOLS = {
    'history': ['秦朝', '汉朝', '唐朝', '宋朝', '元朝', '明朝', '1911 年', '1840 年', '1919 年', '1949 年'],
    'geography': ['长江', '黄河', '珠江', '淮河', '东海', '南海', '23.5°N', '66.5°N', '赤道'],
    'chemistry': ['H₂O', 'CO₂', 'NaCl', 'O₂', '18', '44', '置换反应', '化合反应'],
    'biology': ['细胞核', '细胞膜', '叶绿体', '线粒体', '1/4', '1/2', '3/4', '蛋白质'],
    'physics': ['牛顿', '焦耳', '瓦特', '帕斯卡', '20 Ω', '5 Ω', '3 × 10⁸ m/s', '340 m/s'],
    'chinese': ['李白', '杜甫', '孟浩然', '王之涣', '苏轼', '鲁迅', '朱自清', '诸葛亮'],
    'english': ['went', 'gone', 'goes', 'better', 'best', 'cheap', 'since', 'for', 'an', 'a'],
    'math': ['2', '3', '4', '5', '1/2', '3/4', '12', '-1'],
}


def cn_num(n):
    d = '零一二三四五六七八九'
    if n < 10:
        return d[n]
    if n < 20:
        return '十' + (d[n % 10] if n % 10 else '')
    return d[n // 10] + '十' + (d[n % 10] if n % 10 else '')


NUM_STYLES_ZH = ['dot', 'dun', 'paren_cn', 'di_ti', 'circled', 'lenticular', 'cn_numeral', 'Q']
NUM_STYLES_EN = ['dot', 'Q', 'Question', 'Ex', 'Problem', 'paren', 'rparen', 'circled', 'lenticular']


def number_label(style, n):
    if style == 'dot':
        return f'{n}.'
    if style == 'dun':
        return f'{n}、'
    if style == 'paren_cn':
        return f'（{n}）'
    if style == 'di_ti':
        return f'第{n}题'
    if style == 'Q':
        return f'Q{n}'
    if style == 'Question':
        return f'Question {n}:'
    if style == 'Ex':
        return f'Ex. {n}'
    if style == 'Problem':
        return f'Problem {n}'
    if style == 'circled':
        return chr(0x2460 + n - 1) if n <= 20 else chr(0x3251 + n - 21)
    if style == 'lenticular':
        return f'【{n}】'
    if style == 'cn_numeral':
        return cn_num(n) + '、'
    if style == 'paren':
        return f'({n})'
    if style == 'rparen':
        return f'{n})'
    return f'{n}.'


SCORE_STYLES_ZH = ['（{n}分）', '({n}分)', '（本题{n}分）', '[{n}分]']
SCORE_STYLES_EN = ['[{n} marks]', '({n} marks)', '({n} pts)', '[{n}]']


def is_en_text(s):
    return not any(is_cjk(c) and '\u4e00' <= c <= '\u9fff' for c in s)


def clean_answer(ans):
    a = ans.replace('$', '')
    a = re.sub(r'\\frac\{([^{}]*)\}\{([^{}]*)\}', r'\1/\2', a)
    a = re.sub(r'\^\{?2\}?', '²', a)
    a = re.sub(r'\^\{?3\}?', '³', a)
    a = re.sub(r'\^\{?(\d+)\}?', r'^\1', a)
    a = re.sub(r'_\{?(\w+)\}?', r'\1', a)
    a = a.replace('\\times', '×').replace('\\div', '÷').replace('\\', '')
    return a


def short_answer(item, rng):
    a = clean_answer(item.get('answer', ''))
    en = is_en_text(item['question'])
    q = re.findall(r'"([^"]{1,18})"', a) + re.findall(r'“([^”]{1,12})”', a)
    if en and q:
        return q[-1] if len(q) > 1 else q[0]
    m = re.findall(r'(-?\d+(?:\.\d+)?(?:/\d+)?)\s*(°|cm²|cm|m/s|kg|N|J|Ω|g|m|km|%)?', a)
    if m:
        num, unit = m[-1]
        if 'x =' in a or 'x=' in a:
            return f'x = {num}'
        return (num + (' ' + unit if unit else '')).strip()
    words = re.split(r'[，。,.;；：:]', a)
    w = words[0].strip() if words else a
    return w[:8] if not en else ' '.join(w.split()[:3])


def working_lines(item, rng):
    a = clean_answer(item.get('answer', ''))
    en = is_en_text(item['question'])
    parts = [p.strip() for p in re.split(r'[，。；;]|\. ', a) if p.strip()]
    lines = []
    for p in parts[:3]:
        if len(p) > (26 if en else 15):
            p = p[:(26 if en else 15)]
        lines.append(p)
    if not lines:
        lines = [short_answer(item, rng)]
    if not en:
        lines[0] = '解：' + lines[0]
        if rng.random() < 0.6:
            lines.append('答：' + short_answer(item, rng))
    else:
        if rng.random() < 0.6:
            lines.append('Ans: ' + short_answer(item, rng))
    return lines[:4]


def make_options(item, rng):
    a = clean_answer(item.get('answer', ''))
    nums = re.findall(r'-?\d+(?:\.\d+)?', a)
    if nums and item['subject'] in ('math', 'physics', 'chemistry') and rng.random() < 0.8:
        v = nums[-1]
        try:
            f = float(v)
        except ValueError:
            f = 3.0
        isint = float(f).is_integer()
        cands = {v}
        deltas = [1, -1, 2, -2, 10, 0.5]
        for d in rng.permutation(deltas):
            if len(cands) >= 4:
                break
            x = f + d if not isint or float(d).is_integer() else f * 2
            s = str(int(x)) if float(x).is_integer() else f'{x:g}'
            cands.add(s)
        while len(cands) < 4:
            cands.add(str(int(rng.integers(1, 99))))
        opts = list(cands)[:4]
    else:
        pool = OPTION_POOLS.get(item['subject'], OPTION_POOLS['math'])
        idx = rng.permutation(len(pool))[:4]
        opts = [pool[i] for i in idx]
    rng.shuffle(opts)
    return opts


def worked_example(rng, lang, subject, n):
    a, b, c = int(rng.integers(3, 13)), int(rng.integers(2, 9)), int(rng.integers(2, 30))
    if lang == 'zh':
        kinds = [
            ([f'例{n}  计算：{a} × {b} − {c}。'], [f'解：原式 = {a * b} − {c} = {a * b - c}。']),
            ([f'例{n}  一个长方形花坛长 {a + b} 米，宽 {b} 米，求它的周长。'],
             [f'解：周长 = 2 × ({a + b} + {b}) = {2 * (a + 2 * b)}（米）。', f'答：花坛的周长是 {2 * (a + 2 * b)} 米。']),
            ([f'例{n}  小明骑车 {b} 分钟行驶了 {b * a * 10} 米，他平均每分钟行驶多少米？'],
             [f'解：{b * a * 10} ÷ {b} = {a * 10}（米）。', f'答：平均每分钟行驶 {a * 10} 米。']),
            ([f'例{n}  把 {a * 4} 个苹果平均分给 {4} 个小组，每组分到几个？'], [f'解：{a * 4} ÷ 4 = {a}（个）。']),
        ]
    else:
        kinds = [
            ([f'Example {n}  Work out {a} × {b} + {c}.'], [f'Solution  {a} × {b} + {c} = {a * b} + {c} = {a * b + c}']),
            ([f'Example {n}  A rectangle is {a + b} cm long and {b} cm wide. Find its area.'],
             [f'Solution  Area = {a + b} × {b} = {(a + b) * b} cm²']),
            ([f'Example {n}  A cyclist travels {a * b * 10} m in {b} minutes. Find the average speed.'],
             [f'Solution  speed = {a * b * 10} ÷ {b} = {a * 10} m per minute']),
        ]
    return kinds[int(rng.integers(len(kinds)))]


# ----------------------------------------------------------------------------------------------
# page model
# ----------------------------------------------------------------------------------------------
def bbox_union(boxes):
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return None
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]


class Page:
    """Page content in pt coordinates.  ops = printed layer, marks = handwriting / highlighter."""

    def __init__(self, rng, plan):
        self.rng = rng
        self.plan = plan
        self.ops = []
        self.marks = []
        self.problems = []
        self.pages = []          # page rects [x0, y0, x1, y1] in pt
        self.spine_x = None
        self.extra = {}

    # ---- primitive emitters
    def text_line(self, x, base, text, pt, fam, latin_mode, col=(25, 25, 25), role='text', tok_roles=None):
        """emit one line of text starting at x with baseline base; returns (x_end, token list)."""
        toks = tokenize(text)
        pieces_all = []
        tokinfo = []
        cx = x
        for t in toks:
            pcs, w = token_pieces(t, fam, latin_mode, pt)
            if not t.isspace():
                for dx, s, k in pcs:
                    pieces_all.append((cx + dx, s, k))
                tokinfo.append((cx, cx + w, t, role))
            cx += w
        if pieces_all:
            self.ops.append({'t': 'text', 'y': base, 'pt': pt, 'col': col, 'pieces': pieces_all})
        return cx, tokinfo

    def emit_items_line(self, x, base, items, pt, col):
        """items from wrap: (tok, w, role, pieces). returns tokinfo and x_end"""
        pcs = []
        info = []
        cx = x
        for tok, w, role, pieces in items:
            if not tok.isspace():
                for dx, s, k in pieces:
                    pcs.append((cx + dx, s, k))
                info.append((cx, cx + w, tok, role))
            cx += w
        if pcs:
            self.ops.append({'t': 'text', 'y': base, 'pt': pt, 'col': col, 'pieces': pcs})
        return info, cx

    def line(self, pts, w=0.6, col=(30, 30, 30), dash=None):
        self.ops.append({'t': 'line', 'pts': [tuple(map(float, p)) for p in pts], 'w': w, 'col': col, 'dash': dash})

    def rect(self, box, w=0.6, col=(30, 30, 30), fill=None):
        self.ops.append({'t': 'rect', 'box': [float(v) for v in box], 'w': w, 'col': col, 'fill': fill})

    def ellipse(self, box, w=0.6, col=(30, 30, 30), fill=None):
        self.ops.append({'t': 'ellipse', 'box': [float(v) for v in box], 'w': w, 'col': col, 'fill': fill})

    def poly(self, pts, w=0.6, col=(30, 30, 30), fill=None):
        self.ops.append({'t': 'poly', 'pts': [tuple(map(float, p)) for p in pts], 'w': w, 'col': col, 'fill': fill})


def text_width(text, pt, fam, latin_mode):
    return sum(token_pieces(t, fam, latin_mode, pt)[1] for t in tokenize(text))


def make_items(segments, fam, latin_mode, pt):
    items = []
    for text, role, f in segments:
        for t in tokenize(text):
            pcs, w = token_pieces(t, f or fam, latin_mode, pt)
            items.append((t, w, role, pcs))
    return items


# ----------------------------------------------------------------------------------------------
# figures (drawn shapes with labels; they belong to no problem text)
# ----------------------------------------------------------------------------------------------
def draw_figure(pg, kind, box, rng, pt, lang, fam):
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    lw = max(0.5, pt * 0.07)
    lab = lambda x, y, s, size=pt * 0.9: pg.text_line(x, y, s, size, 'label', 'lat', col=(25, 25, 25))
    ink = (25, 25, 25)
    if kind == 'triangle':
        A = (x0 + w * rng.uniform(0.25, 0.6), y0 + h * 0.12)
        B = (x0 + w * 0.08, y1 - h * 0.14)
        C = (x1 - w * 0.06, y1 - h * 0.14)
        pg.poly([A, B, C], w=lw)
        lab(A[0] - pt * 0.3, A[1] - pt * 0.15, 'A')
        lab(B[0] - pt * 0.8, B[1] + pt * 0.6, 'B')
        lab(C[0] + pt * 0.1, C[1] + pt * 0.6, 'C')
        side = f'{int(rng.integers(3, 13))} cm'
        lab((B[0] + C[0]) / 2 - pt * 1.2, B[1] + pt * 1.1, side, pt * 0.8)
        ang = ['60°', '45°', '30°', '90°', '120°'][int(rng.integers(5))]
        pg.ops.append({'t': 'arc', 'box': [B[0] - pt * 1.4, B[1] - pt * 1.4, B[0] + pt * 1.4, B[1] + pt * 1.4],
                       'a0': -60, 'a1': 0, 'w': lw, 'col': ink})
        lab(B[0] + pt * 1.5, B[1] - pt * 0.35, ang, pt * 0.75)
    elif kind == 'circle':
        r = min(w, h) * 0.38
        cx, cy = x0 + w / 2, y0 + h / 2
        pg.ellipse([cx - r, cy - r, cx + r, cy + r], w=lw)
        a = rng.uniform(-0.6, 0.6)
        A = (cx + r * math.cos(a), cy + r * math.sin(a))
        pg.line([(cx, cy), A], w=lw)
        pg.ellipse([cx - lw * 1.5, cy - lw * 1.5, cx + lw * 1.5, cy + lw * 1.5], w=lw, fill=ink)
        lab(cx - pt * 0.9, cy + pt * 0.3, 'O')
        lab(A[0] + pt * 0.2, A[1], 'A')
        lab((cx + A[0]) / 2 - pt * 0.5, (cy + A[1]) / 2 - pt * 0.3, f'r = {int(rng.integers(2, 9))} cm', pt * 0.7)
    elif kind == 'bars':
        ax0, ay1 = x0 + pt * 1.6, y1 - pt * 1.4
        pg.line([(ax0, y0 + pt * 0.3), (ax0, ay1), (x1 - pt * 0.3, ay1)], w=lw)
        n = int(rng.integers(3, 6))
        bw = (x1 - ax0 - pt) / n
        vals = rng.uniform(0.25, 0.95, n)
        names = ['A', 'B', 'C', 'D', 'E'] if lang == 'en' else ['一', '二', '三', '四', '五']
        for i in range(n):
            bx = ax0 + pt * 0.5 + i * bw
            top = ay1 - vals[i] * (ay1 - y0 - pt * 0.6)
            pg.rect([bx, top, bx + bw * 0.6, ay1], w=lw, fill=(150, 150, 150) if rng.random() < 0.5 else None)
            lab(bx + bw * 0.1, ay1 + pt * 1.0, names[i], pt * 0.7)
        for j, v in enumerate([0, 10, 20, 30]):
            yy = ay1 - j / 3 * (ay1 - y0 - pt * 0.6)
            pg.line([(ax0 - pt * 0.25, yy), (ax0, yy)], w=lw)
            lab(x0, yy + pt * 0.25, str(v), pt * 0.6)
    elif kind == 'circuit':
        mx0, my0, mx1, my1 = x0 + w * 0.08, y0 + h * 0.15, x1 - w * 0.08, y1 - h * 0.12
        cx = (mx0 + mx1) / 2
        pg.line([(mx0, my0), (cx - pt * 0.6, my0)], w=lw)
        pg.line([(cx + pt * 0.4, my0), (mx1, my0), (mx1, my1), (mx0, my1), (mx0, my0)], w=lw)
        pg.line([(cx - pt * 0.6, my0 - pt * 0.9), (cx - pt * 0.6, my0 + pt * 0.9)], w=lw)
        pg.line([(cx + pt * 0.4, my0 - pt * 0.45), (cx + pt * 0.4, my0 + pt * 0.45)], w=lw * 2.2)
        rw = w * 0.22
        for i, lx in enumerate([mx0 + w * 0.12, mx1 - w * 0.12 - rw]):
            pg.rect([lx, my1 - pt * 0.45, lx + rw, my1 + pt * 0.45], w=lw, fill=(255, 255, 255))
            lab(lx + rw * 0.3, my1 + pt * 1.6, f'R{"₁₂"[i]}', pt * 0.8)
        r = pt * 0.8
        ay = (my0 + my1) / 2
        pg.ellipse([mx1 - r, ay - r, mx1 + r, ay + r], w=lw, fill=(255, 255, 255))
        lab(mx1 - r * 0.45, ay + r * 0.45, 'A', pt * 0.8)
        lab(cx - pt * 0.5, my0 - pt * 1.1, 'S' if rng.random() < 0.5 else 'U', pt * 0.75)
    elif kind == 'rect_dims':
        a, b = int(rng.integers(4, 13)), int(rng.integers(2, 9))
        rx0, ry0 = x0 + w * 0.1, y0 + h * 0.12
        rx1, ry1 = x1 - w * 0.18, y1 - h * 0.28
        pg.rect([rx0, ry0, rx1, ry1], w=lw)
        lab((rx0 + rx1) / 2 - pt, ry1 + pt * 1.2, f'{a} cm', pt * 0.8)
        lab(rx1 + pt * 0.3, (ry0 + ry1) / 2 + pt * 0.3, f'{b} cm', pt * 0.8)
    elif kind == 'number_line':
        yy = y0 + h * 0.5
        pg.line([(x0, yy), (x1, yy)], w=lw)
        pg.poly([(x1, yy), (x1 - pt * 0.6, yy - pt * 0.3), (x1 - pt * 0.6, yy + pt * 0.3)], w=lw, fill=ink)
        n = 7
        for i in range(n):
            xx = x0 + pt * 0.6 + i * (w - pt * 1.8) / (n - 1)
            pg.line([(xx, yy - pt * 0.3), (xx, yy)], w=lw)
            lab(xx - pt * 0.3, yy + pt * 1.1, str(i - 3), pt * 0.7)
        for nm in ('A', 'B'):
            i = rng.uniform(0, n - 1)
            xx = x0 + pt * 0.6 + i * (w - pt * 1.8) / (n - 1)
            pg.ellipse([xx - pt * 0.18, yy - pt * 0.18, xx + pt * 0.18, yy + pt * 0.18], w=lw, fill=ink)
            lab(xx - pt * 0.3, yy - pt * 0.6, nm, pt * 0.8)
    elif kind == 'axes':
        ox, oy = x0 + w * 0.3, y0 + h * 0.65
        pg.line([(x0, oy), (x1, oy)], w=lw)
        pg.line([(ox, y1), (ox, y0)], w=lw)
        pg.poly([(x1, oy), (x1 - pt * 0.5, oy - pt * 0.25), (x1 - pt * 0.5, oy + pt * 0.25)], w=lw, fill=ink)
        pg.poly([(ox, y0), (ox - pt * 0.25, y0 + pt * 0.5), (ox + pt * 0.25, y0 + pt * 0.5)], w=lw, fill=ink)
        lab(x1 - pt * 0.6, oy + pt * 1.1, 'x', pt * 0.8)
        lab(ox + pt * 0.3, y0 + pt * 0.8, 'y', pt * 0.8)
        lab(ox - pt * 0.9, oy + pt * 1.0, 'O', pt * 0.8)
        pg.line([(x0 + w * 0.05, y1 - h * 0.05), (x1 - w * 0.1, y0 + h * 0.1)], w=lw)
    elif kind == 'table':
        nc = int(rng.integers(4, 7))
        heads = ['x'] + [str(v) for v in range(-1, nc - 2)] if rng.random() < 0.5 else \
            (['t/min' if lang == 'en' else '时间/min'] + [str(2 * v) for v in range(nc - 1)])
        row2 = ['y' if heads[0] == 'x' else ('T/°C' if lang == 'en' else '温度/°C')] + \
            [str(int(v)) for v in rng.integers(-5, 60, nc - 1)]
        rows = [heads, row2]
        if rng.random() < 0.4:
            rows.append(['m/g' if lang == 'en' else '质量/g'] + [str(int(v)) for v in rng.integers(1, 99, nc - 1)])
        fpt = pt * 0.85
        c0w = max(text_width(r[0], fpt, fam, 'lat') for r in rows) + fpt
        cw = (w - c0w) / (nc - 1)
        rh = fpt * 1.7
        for i, r in enumerate(rows):
            yy = y0 + i * rh
            for j, s in enumerate(r):
                cx0 = x0 if j == 0 else x0 + c0w + (j - 1) * cw
                cwj = c0w if j == 0 else cw
                tw = text_width(s, fpt, fam, 'lat')
                pg.text_line(cx0 + (cwj - tw) / 2, yy + rh * 0.72, s, fpt, fam, 'lat')
        for i in range(len(rows) + 1):
            pg.line([(x0, y0 + i * rh), (x1, y0 + i * rh)], w=lw)
        for j in range(nc + 1):
            xx = x0 if j == 0 else min(x1, x0 + c0w + (j - 1) * cw)
            pg.line([(xx, y0), (xx, y0 + len(rows) * rh)], w=lw)
        return len(rows) * rh
    return h


FIG_KINDS = ['triangle', 'circle', 'bars', 'circuit', 'rect_dims', 'number_line', 'axes', 'table']
FIG_SUBJECT = {'physics': ['circuit', 'bars', 'table', 'rect_dims'], 'chemistry': ['table', 'bars'],
               'biology': ['table', 'bars', 'circle'], 'geography': ['bars', 'table', 'axes'],
               'history': ['table', 'bars'], 'chinese': ['table'], 'english': ['table', 'bars']}


# ----------------------------------------------------------------------------------------------
# layout
# ----------------------------------------------------------------------------------------------
class Layouter:
    def __init__(self, rng, plan, bank, target, neigh_ids):
        self.rng = rng
        self.plan = plan
        self.bank = bank
        self.target = target
        self.neigh = list(neigh_ids)
        self.ni = 0
        L = plan['layout']
        self.pt = L['body_pt']
        self.ls = L['line_spacing']
        self.fam = L['family']
        self.bfam = BOLD_OF[self.fam]
        self.lang = plan['lang']
        self.latin = L['latin_mode']
        self.ink = tuple(L['ink'])
        self.accent = tuple(L['accent'])
        self.pg = Page(rng, plan)
        self.num = L['num_start']
        self.target_placed = False
        self._ops_mark = None
        self.cur_page = 0

    def next_neighbour(self):
        it = self.bank[self.neigh[self.ni % len(self.neigh)]]
        self.ni += 1
        return it

    def lm(self, text):
        return 'lat' if is_en_text(text) else self.latin

    # ---------- blocks
    def para(self, text, x, y, width, pt, fam=None, col=None, indent=0.0, ls=None, align='left'):
        fam = fam or self.fam
        col = col or self.ink
        ls = ls or self.ls
        items = make_items([(text, 'prose', None)], fam, self.lm(text), pt)
        lines = wrap_tokens(items, lambda i: width - (indent if i == 0 else 0))
        base = y + pt * 0.92
        for i, ln in enumerate(lines):
            lx = x + (indent if i == 0 else 0)
            if align == 'center':
                lx = x + (width - sum(t[1] for t in ln)) / 2
            self.pg.emit_items_line(lx, base, ln, pt, col)
            base += pt * ls
        return y + len(lines) * pt * ls

    def heading(self, text, x, y, width, pt, align='left', col=None, bar=False):
        if bar:
            self.pg.rect([x, y + pt * 0.05, x + pt * 0.35, y + pt * 1.15], w=0, col=col or self.accent,
                         fill=col or self.accent)
            x += pt * 0.8
            width -= pt * 0.8
        return self.para(text, x, y, width, pt, fam=self.bfam, col=col or self.ink, ls=1.5, align=align)

    def blank_line_field(self, x, base, label, length, pt):
        ex, _ = self.pg.text_line(x, base, label, pt, self.fam, self.lm(label), col=self.ink)
        self.pg.line([(ex + pt * 0.2, base + pt * 0.2), (ex + length, base + pt * 0.2)], w=pt * 0.05, col=self.ink)
        return ex + length

    # ---------- problem
    def problem(self, item, is_target, x0, colw, y, spec):
        pg, rng = self.pg, self.rng
        pt = self.pt * spec.get('pt_mul', 1.0)
        lh = pt * self.ls
        q = item['question']
        lm = self.lm(q)
        label = number_label(self.plan['layout']['num_style'], self.num)
        self.num += 1
        nfam = self.bfam if self.plan['layout']['num_bold'] else self.fam
        label_w = text_width(label, pt, nfam, lm)
        gap = pt * (0.35 if label[-1] in '.:)、）】' else 0.5)
        if self.plan['layout']['num_style'] in ('circled',):
            gap = pt * 0.3
        pw = label_w + gap
        hang = self.plan['layout']['hanging']
        reserve = spec.get('reserve_right', 0.0)
        first_w = colw - pw - reserve
        rest_w = colw - (pw if hang else 0.0) - reserve
        segs = []
        score = spec.get('score')
        if score and spec.get('score_pos') == 'before':
            segs.append((score, 'score', None))
        segs.append((q, 'stem', None))
        if score and spec.get('score_pos') != 'before':
            segs.append((' ' + score if is_en_text(q) or score[0] in '[(' else score, 'score', None))
        items = make_items(segs, self.fam, lm, pt)
        lines = wrap_tokens(items, lambda i: first_w if i == 0 else rest_w)
        base0 = y + pt * 0.95
        pg.text_line(x0, base0, label, pt, nfam, lm, col=self.ink)
        num_box = [x0, base0 - pt * 0.9, x0 + label_w, base0 + pt * 0.2]
        rec_lines = []
        stem_boxes = []
        x_end = x0
        for i, ln in enumerate(lines):
            lx = x0 + pw if (i == 0 or hang) else x0
            base = base0 + i * lh
            info, xe = pg.emit_items_line(lx, base, ln, pt, self.ink)
            x_end = xe
            lb = [lx, base - pt * 0.9, xe, base + pt * 0.22]
            rec_lines.append({'box': lb, 'tokens': info, 'base': base})
            for (a, b, t, role) in info:
                if role == 'stem':
                    stem_boxes.append([a, base - pt * 0.9, b, base + pt * 0.22])
        nlines = len(lines)
        last_base = base0 + (nlines - 1) * lh
        slot = None
        blanks = []
        for ln in rec_lines:
            for (a, b, t, role) in ln['tokens']:
                if role == 'stem' and '__' in t:
                    blanks.append([a, ln['base'] - pt * 0.9, b, ln['base'] + pt * 0.25])
        parts = [num_box] + [l['box'] for l in rec_lines]
        ans = spec.get('answer')
        right = x0 + colw
        if ans == 'bracket':
            sw = pt * rng.uniform(3.2, 4.8)
            if x_end + sw + pt * 0.5 > right - reserve:
                last_base += lh
                nlines += 1
            pg.text_line(right - reserve - sw, last_base, '（', pt, self.fam, 'cjk', col=self.ink)
            pg.text_line(right - reserve - pt, last_base, '）', pt, self.fam, 'cjk', col=self.ink)
            slot = {'kind': 'bracket', 'box': [right - reserve - sw + pt, last_base - pt * 0.9, right - reserve - pt,
                                               last_base + pt * 0.2]}
            parts.append([right - reserve - sw, last_base - pt * 0.9, right - reserve, last_base + pt * 0.2])
        elif ans == 'box':
            bw, bh = pt * rng.uniform(4.5, 7.0), lh * rng.uniform(1.1, 1.6)
            if reserve == 0.0 or True:
                by = base0 - pt * 1.0
                # box at right end of the problem's first line (text was wrapped with reserve for it)
                slot = {'kind': 'box', 'box': [right - bw, by, right, by + bh]}
                pg.rect(slot['box'], w=pt * 0.06, col=self.ink)
                parts.append(slot['box'])
                if nlines * lh < bh:
                    nlines = int(math.ceil(bh / lh))
        y_cur = base0 + (nlines - 1) * lh + pt * 0.35
        # options
        opts = spec.get('options')
        if opts:
            labels = ['A', 'B', 'C', 'D']
            sep = '. ' if rng.random() < 0.6 else '．'
            otexts = [labels[i] + sep + o for i, o in enumerate(opts)]
            ow = max(text_width(o, pt, self.fam, self.lm(o)) for o in otexts) + pt * 1.5
            avail = colw - pw - reserve
            ncol = 4 if ow * 4 <= avail else (2 if ow * 2 <= avail else 1)
            cellw = avail / ncol
            oy = y_cur + pt * 0.2
            for i, o in enumerate(otexts):
                r, c = divmod(i, ncol)
                ob = oy + r * lh + pt * 0.9
                xe, info = pg.text_line(x0 + pw + c * cellw, ob, o, pt, self.fam, self.lm(o), col=self.ink)
                parts.append([x0 + pw + c * cellw, ob - pt * 0.9, xe, ob + pt * 0.2])
            y_cur = oy + ((len(otexts) + ncol - 1) // ncol) * lh - pt * 0.2
        box = bbox_union(parts)
        fig = spec.get('figure')
        fig_box = None
        if fig and fig['place'] == 'right':
            fw = reserve - pt * 0.8
            fh = min(fw * fig['aspect'], pt * 9)
            fig_box = [right - fw, y + pt * 0.2, right, y + pt * 0.2 + fh]
            draw_figure(self.pg, fig['kind'], fig_box, rng, self.pt, self.lang, self.fam)
            y_cur = max(y_cur, fig_box[3] + pt * 0.8)
        # answer lines / dotted lines
        ans_line = None
        if ans == 'answer_line':
            ab = y_cur + pt * 1.2
            lab = '答：' if self.lang == 'zh' and not is_en_text(q) else 'Answer:'
            ex = self.blank_line_field(x0 + pw, ab, lab, min(colw - pw, pt * rng.uniform(10, 22)), pt)
            ans_line = {'kind': 'answer_line', 'box': [x0 + pw + text_width(lab, pt, self.fam, 'lat') + pt * 0.3,
                                                      ab - pt * 1.1, ex, ab + pt * 0.2]}
            y_cur = ab + pt * 0.6
        elif ans == 'dotted':
            nd = int(rng.integers(2, 4))
            dl = []
            for j in range(nd):
                yy = y_cur + lh * (1.05 + j * 1.15)
                pg.line([(x0 + pw * 0.5, yy), (right, yy)], w=pt * 0.06, col=(90, 90, 90), dash=(pt * 0.15, pt * 0.35))
                dl.append([x0 + pw * 0.5, yy - lh, right, yy])
            ans_line = {'kind': 'dotted', 'box': bbox_union(dl), 'lines': dl}
            y_cur = y_cur + lh * (1.05 + nd * 1.15) - lh * 0.5
        if fig and fig['place'] == 'below':
            fw = min(colw * fig['width'], pt * 20)
            fh = fw * fig['aspect']
            fx = x0 + pw + (0 if rng.random() < 0.5 else (colw - pw - fw) * 0.5)
            fig_box = [fx, y_cur + pt * 0.5, fx + fw, y_cur + pt * 0.5 + fh]
            hh = draw_figure(self.pg, fig['kind'], fig_box, rng, self.pt, self.lang, self.fam)
            fig_box[3] = fig_box[1] + hh
            y_cur = fig_box[3] + pt * 0.4
            if fig.get('caption'):
                cap = fig['caption'].format(n=self.num - 1)
                cw = text_width(cap, pt * 0.8, self.fam, 'cjk')
                pg.text_line((fig_box[0] + fig_box[2]) / 2 - cw / 2, y_cur + pt * 0.8, cap, pt * 0.8, self.fam, 'cjk',
                             col=self.ink)
                y_cur += pt * 1.2
        work_box = None
        if spec.get('work_lines'):
            wl = spec['work_lines']
            work_box = [x0 + pw * 0.5, y_cur + pt * 0.2, right - pt, y_cur + pt * 0.2 + wl * lh * 1.35]
            y_cur = work_box[3]
        gap_after = lh * spec.get('gap', 0.6)
        rec = {'id': item['id'], 'label': label, 'target': bool(is_target), 'pt': pt, 'box': box,
               'stem_box': bbox_union(stem_boxes), 'num_box': num_box, 'lines': rec_lines, 'slot': slot or ans_line,
               'blanks': blanks, 'work_box': work_box, 'fig_box': fig_box, 'col': [x0, colw], 'x_end': x_end,
               'last_base': last_base, 'options': opts, 'page': self.cur_page, 'block_bottom': y_cur}
        pg.problems.append(rec)
        return y_cur + gap_after

    # ---------- page furniture
    def page_header(self, px0, py0, px1, py1, m, page_no, style, first=True):
        """returns y where body starts."""
        pg, rng = self.pg, self.rng
        L = self.plan['layout']
        lang = self.lang
        subj = self.target['subject']
        sname = SUBJECT_NAMES[subj][0 if lang == 'zh' else 1]
        x0, x1 = px0 + m['l'], px1 - m['r']
        y = py0 + m['t']
        small = max(7.0, self.pt * 0.72)
        g = self.target.get('grade', '7')
        if style in ('textbook', 'open_book'):
            chap = CHAPTERS.get(subj, CHAPTERS['math'])[int(rng.integers(len(CHAPTERS.get(subj, CHAPTERS['math']))))]
            title = chap[0] if lang == 'zh' else chap[1]
            hy = py0 + m['t'] * 0.55
            pn = str(page_no)
            outer_right = (page_no % 2 == 0) == False
            tw = text_width(title, small, self.fam, self.latin)
            if outer_right:
                pg.text_line(x0, hy, title, small, self.fam, self.latin, col=self.ink)
                pg.text_line(x1 - text_width(pn, small, self.fam, 'lat'), hy, pn, small, self.bfam, 'lat', col=self.ink)
            else:
                pg.text_line(x0, hy, pn, small, self.bfam, 'lat', col=self.ink)
                pg.text_line(x1 - tw, hy, title, small, self.fam, self.latin, col=self.ink)
            pg.line([(x0, hy + small * 0.5), (x1, hy + small * 0.5)], w=0.5, col=self.accent)
            fy = py1 - m['b'] * 0.45
            fpn = f'— {pn} —' if rng.random() < 0.5 else pn
            pg.text_line((x0 + x1) / 2 - text_width(fpn, small, self.fam, 'lat') / 2, fy, fpn, small, self.fam, 'lat',
                         col=self.ink)
            self.pg.extra.setdefault('furniture', []).append('running_header_footer')
            return y
        if not first:
            return y
        if style == 'exam':
            tpl = EXAM_TITLES_ZH if lang == 'zh' else EXAM_TITLES_EN
            t1, t2 = tpl[int(rng.integers(len(tpl)))]
            yy = int(rng.integers(18, 25))
            fmt = dict(y=yy, y2=yy + 1, g=g, s=sname)
            y = self.heading(t1.format(**fmt), x0, y, x1 - x0, self.pt * 1.35, align='center')
            y = self.para(t2.format(**fmt), x0, y, x1 - x0, self.pt * 1.1, align='center', ls=1.6)
            if rng.random() < 0.6:
                heads = ['题号', '一', '二', '三', '总分'] if lang == 'zh' else ['Part', 'I', 'II', 'III', 'Total']
                cw = self.pt * 3.2
                tx = (x0 + x1) / 2 - cw * len(heads) / 2
                rh = self.pt * 1.6
                for j, h in enumerate(heads):
                    pg.text_line(tx + j * cw + cw / 2 - text_width(h, self.pt * 0.85, self.fam, 'cjk') / 2,
                                 y + rh * 0.72, h, self.pt * 0.85, self.fam, 'cjk', col=self.ink)
                    pg.text_line(tx + j * cw + 2, y + rh * 1.72, '得分' if (j == 0 and lang == 'zh') else
                                 ('Score' if j == 0 else ''), self.pt * 0.85, self.fam, 'cjk', col=self.ink)
                for i in range(3):
                    pg.line([(tx, y + i * rh), (tx + cw * len(heads), y + i * rh)], w=0.5, col=self.ink)
                for j in range(len(heads) + 1):
                    pg.line([(tx + j * cw, y), (tx + j * cw, y + 2 * rh)], w=0.5, col=self.ink)
                self.pg.extra['score_table'] = [tx, y, tx + cw * len(heads), y + 2 * rh]
                y += 2 * rh + self.pt * 0.8
            if rng.random() < 0.5 and m['l'] > 40:
                sx = px0 + m['l'] * 0.45
                pg.line([(sx, py0 + 40), (sx, py1 - 40)], w=0.5, col=self.ink, dash=(3, 3))
                vt = '密封线内不要答题' if lang == 'zh' else 'DO NOT WRITE IN THIS MARGIN'
                vy = (py0 + py1) / 2 - len(vt) * self.pt * 0.5
                for ch in vt:
                    pg.text_line(sx - self.pt * 1.6, vy, ch, self.pt * 0.7, self.fam, 'cjk', col=self.ink)
                    vy += self.pt * 1.0
                self.pg.extra['sealing_line'] = True
        elif style == 'worksheet':
            tpl = WS_TITLES_ZH if lang == 'zh' else WS_TITLES_EN
            t = tpl[int(rng.integers(len(tpl)))].format(g=g, s=sname, n=int(rng.integers(1, 12)))
            y = self.heading(t, x0, y, x1 - x0, self.pt * rng.uniform(1.2, 1.5), align='center' if rng.random() < 0.7 else 'left')
        elif style == 'exercise_book':
            pass
        if style in ('exam', 'worksheet', 'exercise_book') and rng.random() < 0.75:
            labels = ['姓名：', '班级：', '学号：'] if lang == 'zh' else ['Name:', 'Class:', 'Date:']
            if style == 'exercise_book':
                labels = ['日期：', '第    次作业'] if lang == 'zh' else ['Date:', 'No.']
            xx = x0
            base = y + self.pt * 1.2
            seg = (x1 - x0) / len(labels)
            for lb in labels:
                self.blank_line_field(xx, base, lb, seg * 0.85, self.pt * 0.95)
                xx += seg
            self.pg.extra['info_line'] = [x0, base - self.pt, x1, base + self.pt * 0.3]
            y = base + self.pt * 1.0
        return y + self.pt * 0.6

    # ---------- full layout
    def build(self):
        L = self.plan['layout']
        rng = self.rng
        PW, PH = L['page_size']
        style = L['style']
        m = L['margins']
        two_pages = style == 'open_book'
        pages = [[0, 0, PW, PH]] + ([[PW, 0, 2 * PW, PH]] if two_pages else [])
        self.pg.pages = pages
        if two_pages:
            self.pg.spine_x = PW
        tpage = L['target_page'] if two_pages else 0
        page_no0 = int(rng.integers(12, 180)) * 2
        specs = L['problem_specs']     # list of per-problem specs; the target's index = L['target_pos']
        for pi, pr in enumerate(pages):
            self.cur_page = pi
            px0, py0, px1, py1 = pr
            mm = dict(m)
            if two_pages:   # inner margins near the spine
                if pi == 0:
                    mm['l'], mm['r'] = m['r'], m['l']
            y = self.page_header(px0, py0, px1, py1, mm, page_no0 + pi, style)
            x0, x1 = px0 + mm['l'], px1 - mm['r']
            body_w = x1 - x0
            ybot = py1 - mm['b']
            if pi != tpage:
                self.facing_page(x0, y, body_w, ybot)
                continue
            y = self.pre_content(x0, y, body_w, ybot)
            ncol = L['columns']
            cgap = L['col_gap']
            colw = (body_w - cgap * (ncol - 1)) / ncol
            colw = min(colw, L['max_colw'])
            self.pg.extra['columns'] = [[x0 + c * (colw + cgap), colw] for c in range(ncol)]
            if ncol == 2 and L['col_rule']:
                rx = x0 + colw + cgap / 2
                self.pg.line([(rx, y), (rx, ybot)], w=0.5, col=self.ink)
            k = 0
            col = 0
            ytop = y
            placed_target = False
            while True:
                is_t = (k == L['target_pos'])
                spec = specs[min(k, len(specs) - 1)]
                item = self.target if is_t else self.next_neighbour()
                self._ops_mark = len(self.pg.ops)
                # section headings (exam) inserted before some problems
                if spec.get('section'):
                    y = self.heading(spec['section'], x0 + col * (colw + cgap), y + self.pt * 0.3, colw,
                                     self.pt * 1.05) + self.pt * 0.2
                cx = x0 + col * (colw + cgap)
                y_try = self.problem(item, is_t, cx, colw, y, spec)
                rec = self.pg.problems[-1]
                if rec['block_bottom'] > ybot and not is_t and (placed_target or k > L['target_pos']):
                    self.drop_last()
                    if col + 1 < ncol:
                        col += 1
                        y = ytop
                        continue
                    break
                if rec['block_bottom'] > ybot:
                    # overflow before / at the target: move to next column, else signal failure
                    self.drop_last()
                    if col + 1 < ncol:
                        col += 1
                        y = ytop
                        continue
                    return None
                if is_t:
                    placed_target = True
                y = y_try
                k += 1
                if k > 40:
                    break
        if not any(r['target'] for r in self.pg.problems):
            return None
        return self.pg

    def drop_last(self):
        rec = self.pg.problems.pop()
        # remove ops added after the record started is complex; we re-render by truncating ops
        if self._ops_mark is not None:
            self.pg.ops = self.pg.ops[:self._ops_mark]
        self.num -= 1
        if not rec['target']:
            self.ni -= 1

    def pre_content(self, x0, y, w, ybot):
        """textbook prose / worked example / exercises heading / exam section."""
        L = self.plan['layout']
        rng = self.rng
        lang = self.lang
        tb = L['textbook']
        if tb.get('section_title'):
            c, s = int(rng.integers(1, 9)), int(rng.integers(1, 5))
            t = (f'{c}.{s}  ' + SECTION_TITLES_ZH[int(rng.integers(len(SECTION_TITLES_ZH)))]) if lang == 'zh' else \
                (f'{c}.{s}  ' + SECTION_TITLES_EN[int(rng.integers(len(SECTION_TITLES_EN)))])
            y = self.heading(t, x0, y, w, self.pt * 1.25, col=self.accent) + self.pt * 0.2
        if tb.get('prose'):
            pool = PROSE_ZH if lang == 'zh' else PROSE_EN
            idx = rng.permutation(len(pool))[:int(rng.integers(2, 5))]
            sep = '' if lang == 'zh' else ' '
            text = sep.join(pool[i] for i in idx)
            y = self.para(text, x0, y, w, self.pt, indent=self.pt * 2 if lang == 'zh' else self.pt * 1.5) + self.pt * 0.6
        if tb.get('example'):
            q, sol = worked_example(rng, lang, self.target['subject'], int(rng.integers(1, 4)))
            y0 = y
            pad = self.pt * 0.6
            boxed = rng.random() < 0.5
            yy = y + (pad if boxed else 0)
            for s in q:
                yy = self.para(s, x0 + pad, yy, w - 2 * pad, self.pt, fam=self.fam)
            for s in sol:
                yy = self.para(s, x0 + pad + self.pt * 2, yy, w - 2 * pad - self.pt * 2, self.pt)
            if boxed:
                tint = tuple(int(v) for v in (236 + rng.integers(0, 15, 3)))
                self.pg.ops.insert(0, {'t': 'rect', 'box': [x0, y0, x0 + w, yy + pad], 'w': 0.5, 'col': self.accent,
                                       'fill': tint})
                yy += pad
            y = yy + self.pt * 0.6
        if tb.get('ex_heading'):
            c, s = int(rng.integers(1, 9)), int(rng.integers(1, 6))
            pool = EX_HEADINGS_ZH if lang == 'zh' else EX_HEADINGS_EN
            t = pool[int(rng.integers(len(pool)))].format(c=c, s=s, l='ABC'[int(rng.integers(3))])
            y = self.heading(t, x0, y, w, self.pt * 1.15, col=self.accent, bar=rng.random() < 0.5) + self.pt * 0.2
        return y

    def facing_page(self, x0, y, w, ybot):
        """the other page of an open book: prose and a few more problems."""
        rng = self.rng
        lang = self.lang
        pool = PROSE_ZH if lang == 'zh' else PROSE_EN
        y = self.heading(('阅读与思考' if lang == 'zh' else 'Reading'), x0, y, w, self.pt * 1.2, col=self.accent)
        idx = rng.permutation(len(pool))[:int(rng.integers(3, 7))]
        text = ('' if lang == 'zh' else ' ').join(pool[i] for i in idx)
        y = self.para(text, x0, y, w, self.pt, indent=self.pt * 2) + self.pt
        spec = {'gap': 0.8}
        while True:
            self._ops_mark = len(self.pg.ops)
            it = self.next_neighbour()
            ny = self.problem(it, False, x0, w, y, spec)
            if self.pg.problems[-1]['block_bottom'] > ybot:
                self.drop_last()
                break
            y = ny
        self._ops_mark = None


