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
EXAM_SECTIONS_ZH = [('一、选择题（每小题3分，共24分）', '二、填空题（每空2分，共16分）'),
                    ('二、填空题（每空2分，共16分）', '三、解答题（共60分）'),
                    ('一、基础知识（共30分）', '二、计算题（每题5分）'), ('二、计算题（每题5分）', '三、简答题')]
EXAM_SECTIONS_EN = [('Part I  Multiple choice (3 points each)', 'Part II  Short answer'),
                    ('Section A  (20 marks)', 'Section B  Structured questions')]
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
        if n <= 20:
            return chr(0x2460 + n - 1)
        if n <= 35:
            return chr(0x3251 + n - 21)
        if n <= 50:
            return chr(0x32B1 + n - 36)
        return f'({n})'
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
    if not en:
        mm = re.search(r'是([^，。；、（(]{2,10})', a)
        if mm:
            return mm.group(1).strip('“”')
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
        P = plan['paper']
        self.snap = (P['pitch'], P['rule_top']) if P.get('rule') == 'lined' else None

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
        if self.snap:
            pitch, off = self.snap
            n = math.ceil((y + 1.2 * pt - off) / pitch)
            y = off + n * pitch - 1.2 * pt
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
            if reserve > 0:
                bw = min(bw, reserve - pt * 0.6)
            by = base0 - pt * 1.0
            # box at the right end of the problem's first line (the text was wrapped with room for it)
            slot = {'kind': 'box', 'box': [right - bw, by, right, by + bh]}
            pg.rect(slot['box'], w=pt * 0.06, col=self.ink)
            parts.append(slot['box'])
            if nlines * lh < bh:
                nlines = int(math.ceil(bh / lh))
        y_cur = base0 + (nlines - 1) * lh + pt * 0.35
        # options
        opts = make_options(item, rng) if spec.get('options') else None
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
        rec = {'gap_below': gap_after, 'id': item['id'], 'label': label, 'target': bool(is_target), 'pt': pt, 'box': box,
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
                vt = '密封线内不要答题' if lang == 'zh' else 'DO NOT WRITE HERE'
                vy = (py0 + py1) / 2 - len(vt) * self.pt * 0.5
                for ch in vt:
                    pg.text_line(sx + self.pt * 0.5, vy, ch, self.pt * 0.7, self.fam, 'cjk', col=self.ink)
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


# ----------------------------------------------------------------------------------------------
# handwriting / marking plan (after layout, in pt)
# ----------------------------------------------------------------------------------------------
INKS = {'blue': (28, 52, 150), 'black': (32, 32, 38), 'red': (200, 32, 38), 'pencil': (95, 95, 100),
        'darkblue': (20, 35, 105)}
HAND_STYLES = ['hershey_script', 'hershey_simplex', 'hershey_plain', 'hershey_duplex', 'pil']


def jitter_poly(rng, pts, amp):
    return [(x + rng.normal(0, amp), y + rng.normal(0, amp)) for x, y in pts]


def ellipse_pts(rng, box, pad, n=40):
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    a, b = (x1 - x0) / 2 + pad, (y1 - y0) / 2 + pad * 0.8
    t0 = rng.uniform(0, 2 * math.pi)
    over = rng.uniform(0.15, 0.5)
    ts = np.linspace(t0, t0 + 2 * math.pi + over, n)
    ph = rng.uniform(0, 6.28)
    pts = []
    for i, t in enumerate(ts):
        r = 1 + 0.06 * math.sin(2 * t + ph) + 0.04 * (i / n)
        pts.append((cx + a * r * math.cos(t), cy + b * r * math.sin(t)))
    return pts


class MarkPlanner:
    def __init__(self, rng, pg, plan, bank, tp):
        self.rng, self.pg, self.plan, self.bank = rng, pg, plan, bank
        self.tp = tp
        H = plan['hand']
        self.style = H['style']
        self.slant = H['slant']
        self.pen = H['pen']
        self.log = []
        self.used_work = set()

    def hand(self, x, base, text, pt, ink, on):
        self.pg.marks.append({'t': 'hand', 'x': x, 'y': base, 'pt': pt, 'col': INKS[ink], 'text': text,
                              'seed': int(self.rng.integers(1 << 30)), 'slant': self.slant + self.rng.normal(0, 0.03),
                              'style': self.style, 'rot': float(self.rng.normal(0, 1.2))})
        return x + hand_width(text, pt, self.style)

    def stroke(self, pts, w, ink):
        self.pg.marks.append({'t': 'stroke', 'pts': pts, 'w': w, 'col': INKS[ink]})

    def pick(self, want_target, cond=lambda r: True):
        probs = self.pg.problems
        t = [r for r in probs if r['target']][0]
        if want_target and cond(t):
            return t
        ti = probs.index(t)
        cand = [r for r in probs if not r['target'] and cond(r) and r['page'] == t['page']]
        cand.sort(key=lambda r: abs(probs.index(r) - ti))
        if cand:
            return cand[0] if self.rng.random() < 0.7 or len(cand) == 1 else cand[1]
        return t if cond(t) else None

    def run(self):
        kinds = sorted(self.plan['hand']['kinds'], key=lambda kw: kw[0] != 'working_below')
        for kind, want_t in kinds:
            getattr(self, 'k_' + kind)(want_t)
        return self.log

    def answer_pos(self, r, text, pt):
        """where to write an answer for problem r: (x, base, maxw, where) or None if there is no room."""
        s = r['slot']
        colx, colw = r['col']
        w = hand_width(text, pt, self.style)
        if s and s['kind'] in ('bracket', 'box', 'answer_line'):
            b = s['box']
            if s['kind'] == 'answer_line':
                return b[0] + pt * 0.3, b[3] - pt * 0.35, b[2] - b[0], s['kind']
            return (b[0] + b[2]) / 2 - min(w, b[2] - b[0]) / 2, (b[1] + b[3]) / 2 + pt * 0.38, b[2] - b[0], s['kind']
        if s and s['kind'] == 'dotted':
            ln = s['lines'][0]
            return ln[0] + pt * 1.5, ln[3] - pt * 0.2, ln[2] - ln[0], 'dotted'
        if r['blanks']:
            b = r['blanks'][0]
            return b[0] + pt * 0.1, b[3] - pt * 0.3, max(b[2] - b[0], pt * 3), 'blank'
        right = colx + colw
        if r['work_box'] is not None and id(r) not in self.used_work:
            wb = r['work_box']
            return wb[0] + pt, wb[1] + pt * 1.2, wb[2] - wb[0] - pt, 'work_area'
        if r['x_end'] + pt * 1.2 + min(w, pt * 4) < right:
            return r['x_end'] + pt * 1.2, r['last_base'] + pt * 0.05, right - r['x_end'] - pt * 1.2, 'beside'
        if r['gap_below'] >= pt * 1.5:
            return colx + colw * 0.45, r['block_bottom'] + min(r['gap_below'] * 0.6, pt * 1.2), colw * 0.55, 'below'
        return None

    def fit(self, text, pt, maxw):
        """shrink and, if needed, shorten a handwritten answer so that it fits maxw."""
        w = hand_width(text, pt, self.style)
        if w > maxw:
            pt = max(pt * 0.8, pt * maxw / w)
        while len(text) > 2 and hand_width(text, pt, self.style) > maxw * 1.05:
            text = text[:-1].rstrip()
        return text, pt

    def candidates(self, want_t):
        probs = self.pg.problems
        t = [r for r in probs if r['target']][0]
        ti = probs.index(t)
        others = [r for r in probs if not r['target'] and r['page'] == t['page']]
        others.sort(key=lambda r: abs(probs.index(r) - ti) + 0.5 * self.rng.random())
        return ([t] + others) if want_t else (others + [t])

    def k_answer_in_blank(self, want_t):
        for r in self.candidates(want_t):
            it = self.bank_item(r)
            text = 'ABCD'[int(self.rng.integers(4))] if r['options'] else short_answer(it, self.rng)
            pt = r['pt'] * self.rng.uniform(1.0, 1.3)
            pos = self.answer_pos(r, text, pt)
            if pos is None:
                continue
            x, base, maxw, where = pos
            text, pt = self.fit(text, pt, maxw)
            if where == 'work_area':
                self.used_work.add(id(r))
            ink = self.pen
            self.hand(x, base, text, pt, ink, r['target'])
            self.log.append({'kind': 'answer_in_blank', 'on_target': r['target'], 'where': where, 'text': text,
                             'ink': ink})
            return

    def k_crossed_out(self, want_t):
        for r in self.candidates(want_t):
            it = self.bank_item(r)
            right = short_answer(it, self.rng)
            m = re.search(r'\d+', right)
            wrong = (right[:m.start()] + str(int(m.group()) + int(self.rng.choice([-2, -1, 1, 3]))) + right[m.end():]) \
                if m else ('no' if is_en_text(right) else '不对')
            pt = r['pt'] * self.rng.uniform(1.0, 1.25)
            pos = self.answer_pos(r, wrong + '  ' + right, pt)
            if pos is None:
                continue
            x, base, maxw, where = pos
            if where == 'work_area':
                self.used_work.add(id(r))
            if where in ('bracket', 'box'):
                colx, colw = r['col']
                if r['x_end'] + pt * 8 < colx + colw:
                    x, base, maxw, where = r['x_end'] + pt, r['last_base'], colx + colw - r['x_end'] - pt, 'beside'
                else:
                    continue
            pair = wrong + '  ' + right
            w = hand_width(pair, pt, self.style)
            if w > maxw:
                pt = max(pt * 0.8, pt * maxw / w)
                if hand_width(pair, pt, self.style) > maxw * 1.08:
                    continue
            xe = self.hand(x, base, wrong, pt, self.pen, r['target'])
            y = base - pt * 0.3
            self.stroke(jitter_poly(self.rng, [(x - pt * 0.2, y + pt * 0.1), (xe + pt * 0.1, y - pt * 0.1)],
                                    pt * 0.03), pt * 0.08, self.pen)
            if self.rng.random() < 0.5:
                self.stroke(jitter_poly(self.rng, [(x - pt * 0.1, y - pt * 0.15), (xe, y + pt * 0.05)], pt * 0.03),
                            pt * 0.08, self.pen)
            self.hand(xe + pt * 0.6, base, right, pt, self.pen, r['target'])
            self.log.append({'kind': 'crossed_out', 'on_target': r['target'], 'where': where,
                             'text': f'~{wrong}~ {right}'})
            return

    def k_working_below(self, want_t):
        r = self.pick(want_t, lambda q: q['work_box'] is not None)
        if r is None:
            return self.k_answer_in_blank(want_t)
        it = self.bank_item(r)
        lines = working_lines(it, self.rng)
        self.used_work.add(id(r))
        b = r['work_box']
        h = b[3] - b[1]
        pt = min(r['pt'] * self.rng.uniform(1.0, 1.3), h / (len(lines) * 1.4 + 0.2))
        y = b[1] + pt * 1.15
        x0 = b[0] + self.rng.uniform(0, 2) * pt
        strike = int(self.rng.integers(len(lines))) if self.rng.random() < 0.4 else -1
        for i, ln in enumerate(lines):
            x = x0 + self.rng.normal(0, 0.3) * pt
            if i == strike:
                bad = ('2x' if is_en_text(ln) else '错') if self.rng.random() < 0.5 else str(int(self.rng.integers(2, 99)))
                xe = self.hand(x, y, bad, pt, self.pen, r['target'])
                yy = y - pt * 0.3
                self.stroke(jitter_poly(self.rng, [(x - pt * 0.2, yy), (xe + pt * 0.1, yy - pt * 0.1)], pt * 0.03),
                            pt * 0.08, self.pen)
                x = xe + pt * 0.5
            self.hand(x, y, ln, pt, self.pen, r['target'])
            y += pt * self.rng.uniform(1.3, 1.5)
        self.log.append({'kind': 'working_below', 'on_target': r['target'], 'lines': lines,
                         'crossed_out_word': strike >= 0})

    def k_circle(self, want_t):
        r = self.pick(want_t)
        toks = [(a, b, t, ln) for ln in r['lines'] for (a, b, t, role) in ln['tokens']
                if role == 'stem' and re.search(r'\d', t) and len(t) <= 8]
        if toks and self.rng.random() < 0.6:
            a, b, t, ln = toks[int(self.rng.integers(len(toks)))]
            box = [a, ln['base'] - r['pt'] * 0.85, b, ln['base'] + r['pt'] * 0.15]
            ink, what = self.pen, 'number_in_stem'
        else:
            box, ink, what = r['num_box'], 'red', 'problem_number'
        self.stroke(ellipse_pts(self.rng, box, r['pt'] * 0.3), r['pt'] * 0.07, ink)
        self.log.append({'kind': 'circle', 'on_target': r['target'], 'what': what})

    def k_underline(self, want_t):
        r = self.pick(want_t)
        ln = r['lines'][int(self.rng.integers(len(r['lines'])))]
        toks = [t for t in ln['tokens'] if t[3] == 'stem']
        if not toks:
            return
        i0 = int(self.rng.integers(len(toks)))
        i1 = min(len(toks) - 1, i0 + int(self.rng.integers(1, 8)))
        x0, x1 = toks[i0][0], toks[i1][1]
        y = ln['base'] + r['pt'] * 0.3
        n = max(2, int((x1 - x0) / (r['pt'] * 0.8)))
        wav = self.rng.random() < 0.35
        pts = [(x0 + (x1 - x0) * i / n, y + (r['pt'] * 0.12 * math.sin(i * 1.7) if wav else 0) +
                self.rng.normal(0, r['pt'] * 0.03) + (i / n) * self.rng.normal(0, 0.2)) for i in range(n + 1)]
        ink = ['red', 'blue', 'pencil'][int(self.rng.integers(3))]
        self.stroke(pts, r['pt'] * 0.07, ink)
        self.log.append({'kind': 'underline', 'on_target': r['target'], 'wavy': wav, 'ink': ink})

    def k_highlighter(self, want_t):
        r = self.pick(want_t)
        ln = r['lines'][int(self.rng.integers(len(r['lines'])))]
        toks = [t for t in ln['tokens'] if t[3] == 'stem']
        if not toks:
            return
        i0 = int(self.rng.integers(len(toks)))
        i1 = min(len(toks) - 1, i0 + int(self.rng.integers(2, 12)))
        pt = r['pt']
        box = [toks[i0][0] - pt * 0.15, ln['base'] - pt * 0.95, toks[i1][1] + pt * 0.2, ln['base'] + pt * 0.3]
        col = [(255, 236, 70), (150, 245, 140), (255, 165, 210), (120, 225, 255)][int(self.rng.integers(4))]
        self.pg.marks.insert(0, {'t': 'hl', 'box': box, 'col': col, 'seed': int(self.rng.integers(1 << 30)),
                                 'alpha': float(self.rng.uniform(0.55, 0.85))})
        self.log.append({'kind': 'highlighter', 'on_target': r['target'], 'color': col})

    def k_tick_cross(self, want_t):
        r = self.pick(want_t)
        pt = r['pt']
        colx, colw = r['col']
        if self.rng.random() < 0.5 and r['x_end'] + pt * 3 < colx + colw:
            x, y = r['x_end'] + pt * 1.0, r['last_base']
        else:
            x, y = colx - pt * 2.2, r['num_box'][3]
        sz = pt * self.rng.uniform(1.3, 2.2)
        tick = self.rng.random() < 0.65
        if tick:
            pts = [(x, y - sz * 0.45), (x + sz * 0.3, y), (x + sz * 0.95, y - sz * 1.05)]
            self.stroke(jitter_poly(self.rng, pts, pt * 0.04), pt * 0.12, 'red')
        else:
            self.stroke(jitter_poly(self.rng, [(x, y - sz), (x + sz * 0.8, y)], pt * 0.04), pt * 0.12, 'red')
            self.stroke(jitter_poly(self.rng, [(x + sz * 0.8, y - sz), (x, y)], pt * 0.04), pt * 0.12, 'red')
        self.log.append({'kind': 'tick' if tick else 'cross', 'on_target': r['target']})

    def k_score(self, want_t):
        r = self.pick(want_t)
        pt = r['pt']
        colx, colw = r['col']
        ch = self.rng.integers(4)
        full = int(self.rng.choice([5, 8, 10, 12]))
        txt = [f'{int(self.rng.integers(1, full))}/{full}', f'-{int(self.rng.integers(1, 4))}',
               f'+{int(self.rng.integers(1, 6))}', f'{int(self.rng.integers(2, 9))}'][ch]
        hp = pt * self.rng.uniform(1.3, 1.9)
        ext = self.pg.extra
        if 'score_table' in ext and self.rng.random() < 0.5:
            b = ext['score_table']
            txt = str(int(self.rng.integers(58, 99)))
            x, y = b[2] + pt * 1.5, b[3]
            hp = pt * 2.6
            xe = self.hand(x, y, txt, hp, 'red', False)
            self.stroke(jitter_poly(self.rng, [(x, y + pt * 0.4), (xe, y + pt * 0.3)], pt * 0.04), pt * 0.1, 'red')
            self.stroke(jitter_poly(self.rng, [(x, y + pt * 0.8), (xe, y + pt * 0.7)], pt * 0.04), pt * 0.1, 'red')
            self.log.append({'kind': 'score', 'on_target': False, 'text': txt, 'where': 'header'})
            return
        if self.rng.random() < 0.5:
            x, y = colx - hand_width(txt, hp, self.style) - pt * 0.6, r['num_box'][3] + pt * 0.2
            where = 'left_margin'
        else:
            x, y = colx + colw - hand_width(txt, hp, self.style), r['block_bottom'] - pt * 0.1
            where = 'right_margin'
        self.hand(x, y, txt, hp, 'red', False)
        self.log.append({'kind': 'score', 'on_target': r['target'], 'text': txt, 'where': where})

    def bank_item(self, r):
        return self.bank[self.plan['id_index'][r['id']]]


# ----------------------------------------------------------------------------------------------
# handwriting rasteriser (pen-like imitation: Hershey stroke fonts + jittered CJK glyphs)
# ----------------------------------------------------------------------------------------------
HERSHEY = {'hershey_script': cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, 'hershey_simplex': cv2.FONT_HERSHEY_SIMPLEX,
           'hershey_plain': cv2.FONT_HERSHEY_PLAIN, 'hershey_duplex': cv2.FONT_HERSHEY_DUPLEX}


@lru_cache(maxsize=None)
def _hershey_cap(face):
    (w, h), b = cv2.getTextSize('H', face, 1.0, 1)
    return h


def _use_hershey(style, ch):
    return style in HERSHEY and 32 < ord(ch) < 127


def hand_width(text, pt, style):
    w = 0.0
    for ch in text:
        if ch == ' ':
            w += pt * 0.4
        elif _use_hershey(style, ch):
            face = HERSHEY[style]
            sc = 0.72 / _hershey_cap(face)
            w += cv2.getTextSize(ch, face, sc * 100, 1)[0][0] / 100 * pt * 1.0
        else:
            w += text_adv('cjk_sans' if is_cjk(ch) else 'dv_sans', ch) * pt * 0.95
    return w


def hand_mask(text, px, style, slant, rot, rng):
    """returns float mask, (anchor_x, anchor_y) = pen start on the baseline."""
    pad = int(px * 0.8) + 4
    est = int(hand_width(text, px, style) * 1.25) + 2 * pad
    Hm = int(px * 2.3) + 2 * pad
    by = pad + int(px * 1.25)
    m = np.zeros((Hm, est + int(px)), np.uint8)
    x = float(pad)
    thick_mul = rng.uniform(0.8, 1.3)
    for ch in text:
        if ch == ' ':
            x += px * 0.4 * rng.uniform(0.8, 1.3)
            continue
        gs = int(px * 2.2) + 4
        g = np.zeros((gs, gs), np.uint8)
        gb = int(px * 1.45)
        if _use_hershey(style, ch):
            face = HERSHEY[style]
            sc = 0.72 * px / _hershey_cap(face)
            th = max(1, int(round(px * 0.075 * thick_mul * (0.8 if style == 'hershey_duplex' else 1.0))))
            cv2.putText(g, ch, (2, gb), face, sc, 255, th, cv2.LINE_AA)
            adv = cv2.getTextSize(ch, face, sc, th)[0][0]
        else:
            key = 'cjk_sans' if is_cjk(ch) else 'dv_sans'
            if thick_mul > 1.15 and is_cjk(ch):
                key = 'cjk_sans_b'
            f = get_font(key, px * 0.95)
            im = Image.new('L', (gs, gs), 0)
            ImageDraw.Draw(im).text((2, gb), ch, font=f, fill=255, anchor='ls')
            g = np.asarray(im).copy()
            adv = f.getlength(ch)
        amp = px * (0.035 if _use_hershey(style, ch) else 0.05)
        ddx = cv2.resize(rng.normal(0, amp, (3, 3)).astype(np.float32), (gs, gs), interpolation=cv2.INTER_CUBIC)
        ddy = cv2.resize(rng.normal(0, amp, (3, 3)).astype(np.float32), (gs, gs), interpolation=cv2.INTER_CUBIC)
        gxx, gyy = np.meshgrid(np.arange(gs, dtype=np.float32), np.arange(gs, dtype=np.float32))
        g = cv2.remap(g, gxx + ddx, gyy + ddy, cv2.INTER_LINEAR)
        a = rng.normal(0, 4.5)
        scl = rng.uniform(0.88, 1.1)
        M = cv2.getRotationMatrix2D((2 + adv / 2, gb - px * 0.35), a, scl)
        M[1, 2] += rng.normal(0, px * 0.05)
        g = cv2.warpAffine(g, M, (gs, gs))
        xi = int(round(x)) - 2
        y0 = by - gb
        xe = min(m.shape[1], xi + gs)
        if xi >= 0 and y0 >= 0 and xe > xi:
            np.maximum(m[y0:y0 + gs, xi:xe], g[:m.shape[0] - y0, :xe - xi], out=m[y0:y0 + gs, xi:xe])
        x += adv * rng.uniform(0.9, 1.06) + px * rng.uniform(-0.02, 0.06)
    m = m[:, :int(x) + pad]
    # slant (shear about baseline) and line rotation
    Hm, Wm = m.shape
    sl = float(slant)
    off = sl * (Hm - by) if sl > 0 else -sl * by
    M = np.float32([[1, -sl, sl * by + off], [0, 1, 0]])
    m2 = cv2.warpAffine(m, M, (Wm + int(abs(sl) * Hm) + 2, Hm))
    ax = pad + off
    R = cv2.getRotationMatrix2D((float(ax), float(by)), rot, 1.0)
    m2 = cv2.warpAffine(m2, R, (m2.shape[1], m2.shape[0]))
    f = m2.astype(np.float32) / 255.0
    # pen pressure variation
    lw = max(2, f.shape[1] // max(4, int(px * 1.5)))
    lf = cv2.resize(rng.uniform(0.72, 1.0, (2, lw)).astype(np.float32), (f.shape[1], f.shape[0]),
                    interpolation=cv2.INTER_CUBIC)
    f *= np.clip(lf, 0.6, 1.0)
    return np.clip(f * 1.15, 0, 1), (ax, by)


def _darken(layer, x, y, mask, col, opacity=0.95):
    h, w = mask.shape
    H, W = layer.shape[:2]
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    mm = mask[y0 - y:y1 - y, x0 - x:x1 - x, None] * opacity
    col = np.asarray(col, np.float32)[None, None, :]
    ink = 255.0 - mm * (255.0 - col)
    reg = layer[y0:y1, x0:x1]
    np.minimum(reg, ink.astype(np.uint8), out=reg)


# ----------------------------------------------------------------------------------------------
# rendering of the page canvas (paper x printed x marks) for a region in pt at k px/pt
# ----------------------------------------------------------------------------------------------
def _noise_field(rng, shape_px, cells, lo, hi):
    h, w = shape_px
    gh, gw = max(2, int(cells[0])), max(2, int(cells[1]))
    n = rng.uniform(lo, hi, (gh, gw)).astype(np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)


def render_canvas(pg, plan, region, k, seed):
    rng = np.random.default_rng(seed)
    rx0, ry0, rx1, ry1 = region
    cw, ch = int(math.ceil((rx1 - rx0) * k)), int(math.ceil((ry1 - ry0) * k))
    P = plan['paper']
    X = lambda x: (x - rx0) * k
    Y = lambda y: (y - ry0) * k
    # ---- paper
    base = np.array(P['color'], np.float32)
    low = _noise_field(rng, (ch, cw), ((ry1 - ry0) / 40, (rx1 - rx0) / 40), -1, 1)
    paper = np.empty((ch, cw, 3), np.float32)
    grain = rng.standard_normal((ch, cw), dtype=np.float32) * P['grain']
    for c in range(3):
        paper[..., c] = base[c] * (1 + low * P['mottle']) + grain
    paper = np.clip(paper, 0, 255).astype(np.uint8)
    area_pt = (rx1 - rx0) * (ry1 - ry0)
    if P['kind'] == 'recycled':
        nf = int(area_pt / 300 * P.get('fibres', 1.0))
        xs = rng.uniform(0, cw, nf)
        ys = rng.uniform(0, ch, nf)
        ang = rng.uniform(0, math.pi, nf)
        ln = rng.uniform(1.0, 4.0, nf) * k
        dv = rng.normal(0, 22, nf)
        for i in range(nf):
            c = tuple(int(np.clip(v + dv[i], 0, 255)) for v in P['color'])
            p0 = (int(xs[i]), int(ys[i]))
            p1 = (int(xs[i] + ln[i] * math.cos(ang[i])), int(ys[i] + ln[i] * math.sin(ang[i])))
            cv2.line(paper, p0, p1, c, 1, cv2.LINE_AA)
    for pr in pg.pages:
        px0, py0, px1, py1 = pr
        if P['rule'] == 'lined':
            pitch = P['pitch']
            y = py0 + P['rule_top']
            while y < py1 - 20:
                if ry0 - 2 <= y <= ry1 + 2:
                    cv2.line(paper, (int(X(px0)), int(round(Y(y)))), (int(X(px1)), int(round(Y(y)))), P['rule_col'],
                             max(1, int(round(0.45 * k))), cv2.LINE_AA)
                y += pitch
            mx = px0 + P['margin_x']
            cv2.line(paper, (int(X(mx)), int(Y(py0))), (int(X(mx)), int(Y(py1))), (210, 110, 115),
                     max(1, int(round(0.5 * k))), cv2.LINE_AA)
        elif P['rule'] == 'squared':
            pitch = P['pitch']
            th = max(1, int(round(0.3 * k)))
            xx = px0 + (P['rule_top'] % pitch)
            while xx < px1:
                if rx0 - 2 <= xx <= rx1 + 2:
                    cv2.line(paper, (int(round(X(xx))), int(Y(py0))), (int(round(X(xx))), int(Y(py1))), P['rule_col'], th,
                             cv2.LINE_AA)
                xx += pitch
            yy = py0 + (P['rule_top'] % pitch)
            while yy < py1:
                if ry0 - 2 <= yy <= ry1 + 2:
                    cv2.line(paper, (int(X(px0)), int(round(Y(yy)))), (int(X(px1)), int(round(Y(yy)))), P['rule_col'], th,
                             cv2.LINE_AA)
                yy += pitch
    # ---- printed layer
    img = Image.new('RGB', (cw, ch), (255, 255, 255))
    dr = ImageDraw.Draw(img)
    mrg = 30.0
    for op in pg.ops:
        t = op['t']
        if t == 'text':
            y, pt = op['y'], op['pt']
            if y + pt < ry0 - mrg or y - pt > ry1 + mrg:
                continue
            xa, xb = op['pieces'][0][0], op['pieces'][-1][0] + pt * 8
            if xb < rx0 - mrg or xa > rx1 + mrg:
                continue
            px = max(1, int(round(pt * k)))
            for (x, s, key) in op['pieces']:
                if x > rx1 + mrg or x + pt * 10 < rx0 - mrg:
                    continue
                dr.text((X(x), Y(y)), s, font=get_font(key, px), fill=tuple(op['col']), anchor='ls')
            continue
        lw = max(1, int(round(op.get('w', 0.5) * k))) if op.get('w', 0.5) > 0 else 0
        col = tuple(op['col'])
        if t == 'line':
            pts = [(X(x), Y(y)) for x, y in op['pts']]
            if op.get('dash'):
                on, off = op['dash'][0] * k, op['dash'][1] * k
                for (ax, ay), (bx, by) in zip(pts[:-1], pts[1:]):
                    L = math.hypot(bx - ax, by - ay)
                    if L < 1e-6:
                        continue
                    ux, uy = (bx - ax) / L, (by - ay) / L
                    d = 0.0
                    while d < L:
                        e = min(L, d + max(on, 1.0))
                        dr.line([(ax + ux * d, ay + uy * d), (ax + ux * e, ay + uy * e)], fill=col, width=lw)
                        d = e + off
            else:
                dr.line(pts, fill=col, width=lw, joint='curve')
        elif t == 'rect':
            b = op['box']
            dr.rectangle([X(b[0]), Y(b[1]), X(b[2]), Y(b[3])], outline=col if lw else None,
                         fill=tuple(op['fill']) if op.get('fill') else None, width=lw)
        elif t == 'ellipse':
            b = op['box']
            dr.ellipse([X(b[0]), Y(b[1]), X(b[2]), Y(b[3])], outline=col, fill=tuple(op['fill']) if op.get('fill') else None,
                       width=lw)
        elif t == 'poly':
            pts = [(X(x), Y(y)) for x, y in op['pts']]
            if op.get('fill'):
                dr.polygon(pts, fill=tuple(op['fill']))
            dr.line(pts + [pts[0]], fill=col, width=lw, joint='curve')
        elif t == 'arc':
            b = op['box']
            dr.arc([X(b[0]), Y(b[1]), X(b[2]), Y(b[3])], op['a0'], op['a1'], fill=col, width=lw)
    printed = np.asarray(img).copy()
    # photocopy look: faded toner + speckle + streaks
    if P.get('fade', 0) > 0:
        f = _noise_field(rng, (ch, cw), ((ry1 - ry0) / 60, (rx1 - rx0) / 60), 1 - P['fade'], 1.0)
        f = f * rng.uniform(0.92, 1.0, (ch, cw)).astype(np.float32)
        ink = 255.0 - printed.astype(np.float32)
        printed = (255.0 - ink * np.clip(f, 0.4, 1.0)[..., None]).astype(np.uint8)
    if P.get('photocopy'):
        n = int(area_pt / 500 * P['speckle'])
        xs, ys = rng.uniform(0, cw, n), rng.uniform(0, ch, n)
        rr = rng.gamma(1.0, 0.1, n) * k
        gv = rng.integers(40, 170, n)
        for i in range(n):
            if rr[i] < 1.0:
                xi, yi = int(xs[i]), int(ys[i])
                printed[yi:yi + 1 + int(rng.random() < 0.4), xi:xi + 1 + int(rng.random() < 0.4)] = int(gv[i])
            else:
                ax_, ay_ = rr[i] * rng.uniform(0.5, 1.0), rr[i] * rng.uniform(0.5, 1.0)
                cv2.ellipse(printed, (int(xs[i] * 4), int(ys[i] * 4)), (int(ax_ * 4), int(ay_ * 4)),
                            float(rng.uniform(0, 180)), 0, 360, (int(gv[i]),) * 3, -1, cv2.LINE_AA, shift=2)
        for sx in P['streaks']:
            xx = X(pg.pages[0][0] + sx * (pg.pages[-1][2] - pg.pages[0][0]))
            if 0 <= xx < cw:
                g = int(rng.integers(205, 235))
                cv2.line(printed, (int(xx), 0), (int(xx + rng.normal(0, 6)), ch), (g, g, g),
                         max(1, int(k * rng.uniform(0.5, 2.0))), cv2.LINE_AA)
    # ---- marks layer
    marks = np.full((ch, cw, 3), 255, np.uint8)
    for op in pg.marks:
        t = op['t']
        if t == 'hl':
            b = op['box']
            x0, y0, x1, y1 = int(X(b[0])), int(Y(b[1])), int(X(b[2])), int(Y(b[3]))
            x0c, y0c, x1c, y1c = max(0, x0), max(0, y0), min(cw, x1), min(ch, y1)
            if x1c <= x0c or y1c <= y0c:
                continue
            hr = np.random.default_rng(op['seed'])
            hh, ww = y1 - y0, x1 - x0
            m = np.ones((hh, ww), np.float32)
            top = cv2.resize(hr.uniform(0, 0.12, (1, max(2, ww // 20))).astype(np.float32), (ww, 1))[0] * hh
            bot = cv2.resize(hr.uniform(0, 0.12, (1, max(2, ww // 20))).astype(np.float32), (ww, 1))[0] * hh
            yy = np.arange(hh, dtype=np.float32)[:, None]
            m *= np.clip(yy - top[None, :], 0, 1) * np.clip(hh - bot[None, :] - yy, 0, 1)
            m *= hr.uniform(0.85, 1.0) * op['alpha']
            m = m[y0c - y0:y1c - y0, x0c - x0:x1c - x0, None]
            col = np.asarray(op['col'], np.float32)[None, None] / 255.0
            reg = marks[y0c:y1c, x0c:x1c].astype(np.float32)
            marks[y0c:y1c, x0c:x1c] = (reg * (1 - m * (1 - col))).astype(np.uint8)
        elif t == 'hand':
            px = op['pt'] * k
            if px < 4:
                continue
            hr = np.random.default_rng(op['seed'])
            mask, (ax, ay) = hand_mask(op['text'], px, op['style'], op['slant'], op['rot'], hr)
            _darken(marks, int(round(X(op['x']) - ax)), int(round(Y(op['y']) - ay)), mask, op['col'],
                    hr.uniform(0.85, 0.98))
        elif t == 'stroke':
            pts = np.array([(X(x), Y(y)) for x, y in op['pts']], np.float32)
            th = max(1, int(round(op['w'] * k)))
            bx0, by0 = np.floor(pts.min(0)).astype(int) - th - 2
            bx1, by1 = np.ceil(pts.max(0)).astype(int) + th + 2
            m = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
            p = ((pts - [bx0, by0]) * 16).astype(np.int32).reshape(-1, 1, 2)
            cv2.polylines(m, [p], False, 255, th, cv2.LINE_AA, shift=4)
            _darken(marks, int(bx0), int(by0), m.astype(np.float32) / 255.0, op['col'], 0.92)
    out = cv2.multiply(paper, printed, scale=1 / 255.0)
    out = cv2.multiply(out, marks, scale=1 / 255.0)
    # ---- shading in page space (spine gutter, crease)
    xs_pt = rx0 + (np.arange(cw, dtype=np.float32) + 0.5) / k
    ys_pt = ry0 + (np.arange(ch, dtype=np.float32) + 0.5) / k
    fx = np.ones(cw, np.float32)
    fy = np.ones(ch, np.float32)
    if pg.spine_x is not None:
        dc = P['curl_width']
        t = np.abs(xs_pt - pg.spine_x)
        w = np.clip(1 - t / dc, 0, 1)
        fx *= 1 - P['curl_shade'] * w ** 2.2
        fx *= 1 - 0.35 * np.exp(-(t / 1.5) ** 2)
    cr = P.get('crease_abs')
    if cr:
        if cr['orient'] == 'h':
            d = ys_pt - cr['pos']
            fy *= 1 - cr['dark'] * np.exp(-(d / 7.0) ** 2) * (d < 0) - 0.25 * cr['dark'] * np.exp(-(d / 9.0) ** 2) * (d >= 0)
            fy *= 1 + 0.05 * np.exp(-((d - 0.8) / 0.6) ** 2)
            fy *= 1 - 0.12 * np.exp(-((d + 0.4) / 0.35) ** 2)
        else:
            d = xs_pt - cr['pos']
            fx *= 1 - cr['dark'] * np.exp(-(d / 7.0) ** 2) * (d < 0) - 0.25 * cr['dark'] * np.exp(-(d / 9.0) ** 2) * (d >= 0)
            fx *= 1 + 0.05 * np.exp(-((d - 0.8) / 0.6) ** 2)
            fx *= 1 - 0.12 * np.exp(-((d + 0.4) / 0.35) ** 2)
    if (fx != 1).any() or (fy != 1).any():
        sh = fy[:, None] * fx[None, :]
        out = np.clip(out.astype(np.float32) * sh[..., None], 0, 255).astype(np.uint8)
    return out


# ----------------------------------------------------------------------------------------------
# camera geometry
# ----------------------------------------------------------------------------------------------
def homography(theta, tilt, tdir, fcam, s, c, W, H, ox, oy):
    cx, cy = c
    T1 = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], float)
    th = math.radians(theta)
    R = np.array([[math.cos(th), -math.sin(th), 0], [math.sin(th), math.cos(th), 0], [0, 0, 1]], float)
    S = np.diag([s, s, 1.0])
    ax = math.radians(tilt) * math.cos(tdir)
    ay = math.radians(tilt) * math.sin(tdir)
    Rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    Ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    R3 = Rx @ Ry
    P = np.array([[fcam * R3[0, 0], fcam * R3[0, 1], 0], [fcam * R3[1, 0], fcam * R3[1, 1], 0],
                  [R3[2, 0], R3[2, 1], fcam]])
    T2 = np.array([[1, 0, W / 2 + ox], [0, 1, H / 2 + oy], [0, 0, 1]], float)
    return T2 @ P @ S @ R @ T1


def apply_h(Hm, pts):
    pts = np.asarray(pts, float)
    q = np.c_[pts, np.ones(len(pts))] @ Hm.T
    return q[:, :2] / q[:, 2:3]


def distort(ux, uy, D):
    """page distortion: flat position u -> page content position g (pt)."""
    gx = ux.copy()
    gy = uy.copy()
    for (axx, ayy, kx, ky, ph) in D['waves']:
        a = kx * ux + ky * uy + ph
        gx = gx + axx * np.sin(a)
        gy = gy + ayy * np.sin(a * 0.7 + 1.0)
    if D.get('spine_x') is not None:
        t = ux - D['spine_x']
        w = np.clip(1 - np.abs(t) / D['curl_width'], 0, 1) ** 2
        gx = gx + np.sign(t) * w * D['curl_dx']
        gy = gy + w * D['curl_dy'] * (uy - D['page_cy']) / D['page_hh']
    cr = D.get('crease')
    if cr:
        if cr['orient'] == 'h':
            gy = gy + cr['shift'] * np.tanh((uy - cr['pos']) / 2.0)
        else:
            gx = gx + cr['shift'] * np.tanh((ux - cr['pos']) / 2.0)
    return gx, gy


def forward(Hm, D, pts):
    pts = np.asarray(pts, float)
    gx, gy = distort(pts[:, 0], pts[:, 1], D)
    u = np.c_[2 * pts[:, 0] - gx, 2 * pts[:, 1] - gy]
    return apply_h(Hm, u)


def box_edge_pts(b, n=6):
    x0, y0, x1, y1 = b
    t = np.linspace(0, 1, n)
    return np.r_[np.c_[x0 + (x1 - x0) * t, np.full(n, y0)], np.c_[x0 + (x1 - x0) * t, np.full(n, y1)],
                 np.c_[np.full(n, x0), y0 + (y1 - y0) * t], np.c_[np.full(n, x1), y0 + (y1 - y0) * t]]


def min_local_scale(Hm, D, pts):
    out = []
    for p in pts:
        q = forward(Hm, D, [p, (p[0] + 1, p[1]), (p[0], p[1] + 1)])
        J = np.c_[q[1] - q[0], q[2] - q[0]]
        out.append(np.linalg.svd(J, compute_uv=False).min())
    return float(min(out))


def solve_camera(rng, pg, plan, D):
    C = plan['capture']
    W, H = C['sensor']
    ds = C['downscale']
    fmin = F_MIN * ds
    eff = set(C['effects'])
    t = [r for r in pg.problems if r['target']][0]
    box = t['box']
    c = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    Fpt = t['pt']
    edge = box_edge_pts(box)
    corners = [(box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3]),
               (c[0], box[1]), (c[0], box[3])]
    others = [r for r in pg.problems if not r['target']]
    ocent = np.array([((r['box'][0] + r['box'][2]) / 2, (r['box'][1] + r['box'][3]) / 2) for r in others]) \
        if others else np.zeros((0, 2))
    margin = 0.035 * min(W, H)
    s_min = fmin / Fpt
    sign = 1 if rng.random() < 0.5 else -1
    for attempt in range(70):
        damp = 1.0 if attempt < 20 else max(0.0, 1 - (attempt - 20) / 40)
        if 'sideways' in eff:
            theta = sign * 90 + rng.uniform(-6, 6) * damp
        elif 'rotation' in eff:
            theta = sign * rng.uniform(8, 20) * (damp if attempt >= 20 else 1) if damp > 0.4 else sign * 8 * damp
        else:
            theta = float(np.clip(rng.normal(0, 1.6), -4, 4)) * damp
        tilt = (rng.uniform(15, 30) if 'oblique' in eff else rng.uniform(0, 8)) * (damp if attempt >= 20 else 1)
        tdir = rng.uniform(0, 2 * math.pi)
        fcam = rng.uniform(0.75, 1.1) * max(W, H)
        if 'off_centre' in eff:
            fa = rng.uniform(0.1, 0.2) * (1 if rng.random() < 0.5 else -1)
            fc = rng.uniform(-0.07, 0.07)
            if attempt < 8 and rng.random() < 0.35:
                fa, fc = fc, fa           # sometimes try across the lines first
            thr = math.radians(theta)
            fx = float(np.clip(fa * math.cos(thr) - fc * math.sin(thr), -0.2, 0.2)) * max(damp, 0.5)
            fy = float(np.clip(fa * math.sin(thr) + fc * math.cos(thr), -0.2, 0.2)) * max(damp, 0.5)
        else:
            fx, fy = rng.uniform(-0.05, 0.05, 2) * damp
        ox, oy = fx * W, fy * H
        Fph = rng.uniform(fmin * 1.06, max(fmin * 1.25, 0.052 * min(W, H)))
        fill = rng.uniform(0.5, 0.9)
        th = math.radians(theta)
        hw, hh = (box[2] - box[0]) / 2, (box[3] - box[1]) / 2
        ex = abs(hw * math.cos(th)) + abs(hh * math.sin(th))
        ey = abs(hw * math.sin(th)) + abs(hh * math.cos(th))
        s_fill = fill * min((W / 2 - abs(ox)) / ex, (H / 2 - abs(oy)) / ey)
        s = max(min(Fph / Fpt, s_fill), s_min * 1.04)
        ok = False
        for _ in range(14):
            Hm = homography(theta, tilt, tdir, fcam, s, c, W, H, ox, oy)
            q = forward(Hm, D, edge)
            if (q[:, 0].min() >= margin and q[:, 0].max() <= W - margin and q[:, 1].min() >= margin and
                    q[:, 1].max() <= H - margin):
                ok = True
                break
            s *= 0.94
            if s < s_min:
                break
        if not ok:
            continue
        sig = min_local_scale(Hm, D, corners)
        if sig * Fpt < fmin:
            continue
        ctr = np.array([W / 2, H / 2])
        tc = forward(Hm, D, [c])[0]
        dt = np.linalg.norm(tc - ctr)
        if len(ocent):
            oc = forward(Hm, D, ocent)
            do = np.linalg.norm(oc - ctr, axis=1).min()
            if do < dt + 0.05 * min(W, H):
                continue
        if plan['layout']['style'] == 'open_book' and attempt < 25:
            sp = forward(Hm, D, [(pg.spine_x, c[1] - 50), (pg.spine_x, c[1] + 50)])
            vis = ((sp[:, 0] > 0) & (sp[:, 0] < W) & (sp[:, 1] > 0) & (sp[:, 1] < H)).any()
            if not vis:
                continue
        return {'H': Hm, 'theta': float(theta), 'tilt': float(tilt), 'tilt_dir_deg': math.degrees(tdir),
                'fcam': float(fcam), 's': float(s), 'offset_frac': [float(fx), float(fy)], 'attempts': attempt + 1,
                'fallback': False, 'min_font_px_sensor': float(sig * Fpt)}
    s = max(s_min * 1.03, 1e-3)
    Hm = homography(0, 0, 0, max(W, H), s, c, W, H, 0, 0)
    return {'H': Hm, 'theta': 0.0, 'tilt': 0.0, 'tilt_dir_deg': 0.0, 'fcam': float(max(W, H)), 's': float(s),
            'offset_frac': [0.0, 0.0], 'attempts': 70, 'fallback': True,
            'min_font_px_sensor': float(min_local_scale(Hm, D, corners) * Fpt)}


# ----------------------------------------------------------------------------------------------
# the photograph: warp onto a background, light, optics, sensor, JPEG
# ----------------------------------------------------------------------------------------------
def make_background(rng, W, H, kind):
    w4, h4 = max(8, W // 4), max(8, H // 4)
    if kind == 'wood':
        base = np.array([rng.uniform(95, 165), rng.uniform(65, 115), rng.uniform(35, 75)], np.float32)
        streak = cv2.resize(rng.normal(0, 1, (h4, 6)).astype(np.float32), (w4, h4), interpolation=cv2.INTER_CUBIC)
        streak += cv2.resize(rng.normal(0, 0.5, (h4 // 3 + 2, 40)).astype(np.float32), (w4, h4))
        if rng.random() < 0.5:
            streak = cv2.resize(streak.T.copy(), (w4, h4))
        img = base[None, None, :] * (1 + 0.12 * streak[..., None])
    elif kind == 'dark_cloth':
        base = np.array(rng.uniform(25, 70, 3), np.float32)
        img = base[None, None, :] * (1 + 0.08 * rng.normal(0, 1, (h4, w4, 1)).astype(np.float32))
    elif kind == 'paper_stack':
        lv = rng.uniform(120, 190)
        img = np.empty((h4, w4, 3), np.float32)
        img[:] = np.array([lv, lv * rng.uniform(0.95, 1.02), lv * rng.uniform(0.9, 1.0)], np.float32)
        sheet = np.zeros((h4, w4), np.float32)
        cx, cy = rng.uniform(0.2, 0.8) * w4, rng.uniform(0.2, 0.8) * h4
        rect = ((float(cx), float(cy)), (float(rng.uniform(0.6, 1.2) * w4), float(rng.uniform(0.6, 1.2) * h4)),
                float(rng.uniform(-25, 25)))
        cv2.fillPoly(sheet, [cv2.boxPoints(rect).astype(np.int32)], 1.0)
        sheet = cv2.GaussianBlur(sheet, (0, 0), 1.0)
        pc = np.array([rng.uniform(215, 240)] * 3, np.float32) + rng.normal(0, 3, 3).astype(np.float32)
        img = img * (1 - sheet[..., None]) + pc[None, None, :] * sheet[..., None]
    else:
        lv = rng.uniform(150, 200) if kind == 'grey_desk' else rng.uniform(200, 235)
        base = np.array([lv, lv, lv], np.float32) + rng.normal(0, 6, 3).astype(np.float32)
        img = np.empty((h4, w4, 3), np.float32)
        img[:] = base
    low = cv2.resize(rng.normal(0, 1, (4, 4)).astype(np.float32), (w4, h4), interpolation=cv2.INTER_CUBIC)
    img = img * (1 + 0.06 * low[..., None])
    img = cv2.resize(img, (W, H), interpolation=cv2.INTER_LINEAR)
    return np.clip(img, 0, 255)


def shadow_mask(rng, W, H, kind):
    w4, h4 = max(8, W // 4), max(8, H // 4)
    m = np.zeros((h4, w4), np.float32)
    side = int(rng.integers(4))
    if kind == 'phone':
        depth = rng.uniform(0.18, 0.45)
        width = rng.uniform(0.35, 0.7)
        pos = rng.uniform(0.1, 0.9)
        if side in (0, 1):    # top / bottom
            x0 = (pos - width / 2) * w4
            pts = [(x0, -10), (x0 + width * w4, -10), (x0 + width * w4 + rng.normal(0, 0.05) * w4, depth * h4),
                   (x0 + rng.normal(0, 0.05) * w4, depth * h4)]
            if side == 1:
                pts = [(x, h4 - y) for x, y in pts]
        else:
            y0 = (pos - width / 2) * h4
            pts = [(-10, y0), (-10, y0 + width * h4), (depth * w4, y0 + width * h4 + rng.normal(0, 0.05) * h4),
                   (depth * w4, y0 + rng.normal(0, 0.05) * h4)]
            if side == 3:
                pts = [(w4 - x, y) for x, y in pts]
        cv2.fillPoly(m, [np.array(pts, np.int32)], 1.0)
    else:   # hand: palm + fingers reaching in from one side
        cx = rng.uniform(0.2, 0.8)
        if side == 0:
            palm = (cx * w4, -0.05 * h4)
            dirv = (0, 1)
        elif side == 1:
            palm = (cx * w4, 1.05 * h4)
            dirv = (0, -1)
        elif side == 2:
            palm = (-0.05 * w4, cx * h4)
            dirv = (1, 0)
        else:
            palm = (1.05 * w4, cx * h4)
            dirv = (-1, 0)
        r = rng.uniform(0.16, 0.26) * min(w4, h4)
        cv2.ellipse(m, (int(palm[0]), int(palm[1])), (int(r * 1.3), int(r)), float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        for f in range(4):
            off = (f - 1.5) * r * 0.5
            ln = r * rng.uniform(1.0, 1.7)
            px = palm[0] + dirv[0] * ln + (off if dirv[0] == 0 else 0)
            py = palm[1] + dirv[1] * ln + (off if dirv[1] == 0 else 0)
            ang = 90 if dirv[0] == 0 else 0
            cv2.ellipse(m, (int(px), int(py)), (int(ln * 0.6), int(r * 0.16)), ang + rng.normal(0, 8), 0, 360, 1.0, -1)
    sig = rng.uniform(0.02, 0.06) * math.hypot(w4, h4)
    m = cv2.GaussianBlur(m, (0, 0), sig)
    return cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR)


def disk_kernel(r):
    n = int(math.ceil(r)) * 2 + 1
    y, x = np.mgrid[:n, :n] - n // 2
    k = np.clip(r + 0.5 - np.sqrt(x * x + y * y), 0, 1).astype(np.float32)
    return k / k.sum()


def motion_kernel(L, ang):
    n = int(math.ceil(L)) | 1
    k = np.zeros((n, n), np.float32)
    c = n // 2
    dx, dy = math.cos(ang), math.sin(ang)
    for t in np.linspace(-L / 2, L / 2, int(L * 3) + 1):
        x, y = c + t * dx, c + t * dy
        xi, yi = int(math.floor(x)), int(math.floor(y))
        fx, fy = x - xi, y - yi
        for (a, b, w) in ((xi, yi, (1 - fx) * (1 - fy)), (xi + 1, yi, fx * (1 - fy)), (xi, yi + 1, (1 - fx) * fy),
                          (xi + 1, yi + 1, fx * fy)):
            if 0 <= a < n and 0 <= b < n:
                k[b, a] += w
    return k / k.sum()


def compute_maps(Hinv, D, W, H, region, k, step):
    """inverse maps (canvas px) and page coordinates for each sensor pixel."""
    gw, gh = (W + step - 1) // step, (H + step - 1) // step
    xs = (np.arange(gw, dtype=np.float64) * step + (step - 1) / 2.0)[None, :]
    ys = (np.arange(gh, dtype=np.float64) * step + (step - 1) / 2.0)[:, None]
    den = Hinv[2, 0] * xs + Hinv[2, 1] * ys + Hinv[2, 2]
    ux = (Hinv[0, 0] * xs + Hinv[0, 1] * ys + Hinv[0, 2]) / den
    uy = (Hinv[1, 0] * xs + Hinv[1, 1] * ys + Hinv[1, 2]) / den
    gx, gy = distort(ux, uy, D)
    gx, gy = gx.astype(np.float32), gy.astype(np.float32)
    if step > 1:
        gx = cv2.resize(gx, (gw * step, gh * step), interpolation=cv2.INTER_LINEAR)[:H, :W]
        gy = cv2.resize(gy, (gw * step, gh * step), interpolation=cv2.INTER_LINEAR)[:H, :W]
    return gx, gy


def photograph(rng, canvas, region, k, cam, D, pg, plan, tpts):
    C = plan['capture']
    W, H = C['sensor']
    ds = C['downscale']
    eff = set(C['effects'])
    info = {}
    Hinv = np.linalg.inv(cam['H'])
    step = 2 if W * H > 6e6 else 1
    gx, gy = compute_maps(Hinv, D, W, H, region, k, step)
    mx = ((gx - np.float32(region[0])) * np.float32(k)).astype(np.float32)
    my = ((gy - np.float32(region[1])) * np.float32(k)).astype(np.float32)
    page = cv2.remap(canvas, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    del mx, my
    px0 = min(p[0] for p in pg.pages)
    py0 = min(p[1] for p in pg.pages)
    px1 = max(p[2] for p in pg.pages)
    py1 = max(p[3] for p in pg.pages)
    d = np.minimum(np.minimum(gx - px0, px1 - gx), np.minimum(gy - py0, py1 - gy)) * np.float32(cam['s'])
    mask = np.clip(d + 0.5, 0, 1).astype(np.float32)
    del gx, gy, d
    bgk = plan['capture']['background']
    bg = make_background(rng, W, H, bgk)
    # drop shadow of the sheet on the desk
    w8, h8 = max(8, W // 8), max(8, H // 8)
    sh = cv2.GaussianBlur(cv2.resize(mask, (w8, h8), interpolation=cv2.INTER_AREA), (0, 0), 0.006 * math.hypot(w8, h8))
    M = np.float32([[1, 0, rng.uniform(-0.004, 0.004) * w8], [0, 1, rng.uniform(0.0, 0.006) * h8]])
    sh = cv2.resize(cv2.warpAffine(sh, M, (w8, h8)), (W, H), interpolation=cv2.INTER_LINEAR)
    bg *= (1 - 0.4 * sh)[..., None]
    img = page.astype(np.float32) * mask[..., None] + bg * (1 - mask[..., None])
    del page, bg
    info['background'] = bgk
    info['page_fraction_of_frame'] = float(mask.mean())
    # illumination: gradient + vignette + colour cast
    yy, xx = np.mgrid[0:32, 0:32].astype(np.float32) / 31.0 - 0.5
    ang = rng.uniform(0, 2 * math.pi)
    gstr = rng.uniform(0.04, 0.22)
    vig = rng.uniform(0.05, 0.3)
    L = 1 + gstr * (xx * math.cos(ang) + yy * math.sin(ang)) * 2 - vig * (xx ** 2 + yy ** 2) * 2
    L *= 1 + 0.03 * cv2.resize(rng.normal(0, 1, (3, 3)).astype(np.float32), (32, 32), interpolation=cv2.INTER_CUBIC)
    L = cv2.resize(L, (W, H), interpolation=cv2.INTER_CUBIC)
    expo = rng.uniform(0.92, 1.08)
    gains = np.array([1 + rng.normal(0, 0.03), 1.0, 1 + rng.normal(0, 0.04)], np.float32)
    if 'low_light' in eff:
        gains = np.array([1.06, 1.0, 0.86], np.float32) * (1 + rng.normal(0, 0.02, 3)).astype(np.float32)
    img *= (L * np.float32(expo))[..., None] * gains[None, None, :]
    info.update(illum_gradient=float(gstr), vignette=float(vig), exposure=float(expo), wb_gains=[float(g) for g in gains])
    # shadow of the phone / hand
    tp = np.asarray(tpts)
    tx = np.clip(tp[:, 0].astype(int), 0, W - 1)
    ty = np.clip(tp[:, 1].astype(int), 0, H - 1)
    if 'shadow' in eff:
        kind = 'phone' if rng.random() < 0.5 else 'hand'
        for _ in range(12):
            m = shadow_mask(rng, W, H, kind)
            if m.mean() > 0.04:
                break
        dark = rng.uniform(0.35, 0.62)
        mt = float(m[ty, tx].max())
        if dark * mt > 0.45:
            dark = 0.45 / max(mt, 1e-6)
        tint = np.array([0.97, 1.0, 1.05], np.float32)
        img *= (1 - dark * m[..., None] * (2 - tint[None, None, :]))
        info['shadow'] = {'kind': kind, 'darkness': float(dark), 'max_on_target': float(dark * mt),
                          'coverage': float(m.mean())}
        del m
    if 'glare' in eff:
        tb = [tp[:, 0].min(), tp[:, 1].min(), tp[:, 0].max(), tp[:, 1].max()]
        R = rng.uniform(0.06, 0.16) * math.hypot(W, H)
        on_page = rng.random() < 0.85
        for _ in range(80):
            gxp, gyp = rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H
            if on_page and mask[int(gyp), int(gxp)] < 0.5:
                continue
            if not (tb[0] - R * 0.3 < gxp < tb[2] + R * 0.3 and tb[1] - R * 0.3 < gyp < tb[3] + R * 0.3):
                break
        a = rng.uniform(0.65, 0.95)
        yy, xx = np.ogrid[0:H, 0:W]
        r2 = ((xx - gxp) ** 2 + ((yy - gyp) * rng.uniform(0.8, 1.25)) ** 2).astype(np.float32) / (R * R)
        g = np.exp(-r2 * 2.2) + 0.6 * np.exp(-r2 * 12)
        g = np.clip(g, 0, 1)
        gt = float(g[ty, tx].max())
        if a * gt > 0.45:
            a = 0.45 / max(gt, 1e-6)
        img += (265.0 - img) * (a * g)[..., None]
        info['glare'] = {'center': [float(gxp / ds), float(gyp / ds)], 'radius': float(R / ds), 'strength': float(a),
                         'max_on_target': float(a * gt)}
        del g, r2
    # optics
    fpx = cam['min_font_px_sensor']
    if 'defocus' in eff:
        r = rng.uniform(1.4 * ds, max(1.6 * ds, 0.12 * fpx))
        img = cv2.filter2D(img, -1, disk_kernel(r), borderType=cv2.BORDER_REFLECT)
        info['defocus_radius_px'] = float(r / ds)
    if 'motion_blur' in eff:
        Lm = rng.uniform(4 * ds, max(5 * ds, (0.2 if 'low_light' in eff else 0.26) * fpx))
        an = rng.uniform(0, math.pi)
        img = cv2.filter2D(img, -1, motion_kernel(Lm, an), borderType=cv2.BORDER_REFLECT)
        info['motion_blur'] = {'length_px': float(Lm / ds), 'angle_deg': math.degrees(an)}
    sb = rng.uniform(0.45, 0.85) * ds
    img = cv2.GaussianBlur(img, (0, 0), sb)
    info['base_blur_sigma'] = float(sb / ds)
    # sensor + ISP
    if 'low_light' in eff:
        e = rng.uniform(0.22, 0.4)
        lin = img * e
        shot = np.sqrt(np.maximum(lin, 0) * 0.9).astype(np.float32)
        n = rng.standard_normal(img.shape[:2], dtype=np.float32)
        img = lin + shot * n[..., None] * 0.9 + rng.standard_normal(img.shape, dtype=np.float32) * shot * 0.5 + \
            rng.standard_normal(img.shape[:2], dtype=np.float32)[..., None] * 2.0
        img = img / e * rng.uniform(0.7, 0.88)
        img = cv2.GaussianBlur(img, (0, 0), 0.5 * ds)
        info['low_light'] = {'exposure': float(e)}
    else:
        sg = rng.uniform(1.0, 2.8)
        img += rng.standard_normal(img.shape[:2], dtype=np.float32)[..., None] * sg + \
            rng.standard_normal(img.shape, dtype=np.float32) * (sg * 0.4)
        info['noise_sigma'] = float(sg)
    if ds > 1:
        img = cv2.resize(img, (W // ds, H // ds), interpolation=cv2.INTER_AREA)
    amt = rng.uniform(0.2, 0.7)
    img = img + amt * (img - cv2.GaussianBlur(img, (0, 0), 1.3))
    info['sharpen'] = float(amt)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8), info


# ----------------------------------------------------------------------------------------------
# random plan for one photo
# ----------------------------------------------------------------------------------------------
CAPTURE_EFFECTS = ['off_centre', 'oblique', 'rotation', 'sideways', 'motion_blur', 'defocus', 'low_light', 'glare',
                   'shadow', 'low_res', 'large', 'low_jpeg']
CAPTURE_W = [1.0, 1.0, 1.0, 0.25, 0.8, 0.8, 0.8, 0.8, 0.8, 0.75, 0.6, 0.6]
EXCLUSIVE = [{'rotation', 'sideways'}, {'low_res', 'large'}, {'motion_blur', 'defocus'}]
LAYOUT_VARIANTS = ['two_col_rule', 'two_col_norule', 'options_grid', 'dense', 'large_print', 'long_wrap']
PAPER_OPTS = ['lined', 'squared', 'recycled', 'photocopy', 'crease', 'book_curl']
PAPER_W = [1.0, 0.8, 1.0, 1.0, 0.9, 0.9]
HAND_KINDS = ['answer_in_blank', 'working_below', 'circle', 'underline', 'tick_cross', 'score', 'crossed_out',
              'highlighter']
HAND_W = [1.3, 1.1, 0.9, 0.8, 0.9, 0.8, 0.6, 0.9]


def weighted_pick(rng, items, weights, n, exclusive=()):
    out = []
    items = list(items)
    w = np.array(weights, float)
    while len(out) < n and w.sum() > 0:
        i = int(rng.choice(len(items), p=w / w.sum()))
        w[i] = 0
        cand = items[i]
        if any(cand in ex and (ex - {cand}) & set(out) for ex in exclusive):
            continue
        out.append(cand)
    return out


def make_plan(rng, target, primary, attempt):
    cats = {primary} | {c for c in CATEGORIES if c != primary and rng.random() < P_SECONDARY}
    cats = [c for c in CATEGORIES if c in cats]
    lang = 'en' if is_en_text(target['question']) else 'zh'
    # ---------------- capture
    eff = []
    if 'capture' in cats:
        n = int(rng.choice([1, 2, 3], p=[0.35, 0.45, 0.2]))
        eff = weighted_pick(rng, CAPTURE_EFFECTS, CAPTURE_W, n, EXCLUSIVE)
    portrait = rng.random() < 0.6
    if 'low_res' in eff:
        out = (960, 720)
    elif 'large' in eff:
        out = (2016, 1512)
    else:
        out = [(1600, 1200), (1280, 960), (1440, 1080), (1920, 1440)][int(rng.integers(4))]
    if portrait:
        out = (out[1], out[0])
    ds = 2 if 'large' in eff else 1
    wtext = out[1] if 'sideways' in eff else out[0]
    em_max = 0.8 * wtext / F_MIN
    capture = {'effects': eff, 'out_size': list(out), 'sensor': [out[0] * ds, out[1] * ds], 'downscale': ds,
               'portrait': portrait, 'jpeg_quality': int(rng.integers(50, 63) if 'low_jpeg' in eff else
                                                          rng.integers(68, 91)),
               'background': ['wood', 'grey_desk', 'white_desk', 'dark_cloth', 'paper_stack'][int(rng.integers(5))],
               'em_max': em_max}
    # ---------------- paper
    popts = []
    if 'paper' in cats:
        popts = weighted_pick(rng, PAPER_OPTS, PAPER_W, int(rng.choice([1, 2], p=[0.55, 0.45])),
                              [{'lined', 'squared'}, {'book_curl', 'lined'}, {'book_curl', 'squared'}])
    if 'textbook' in cats and ('lined' in popts or 'squared' in popts):
        popts = [o for o in popts if o not in ('lined', 'squared')] or ['recycled']
    variant = str(rng.choice(LAYOUT_VARIANTS)) if 'layout' in cats else 'standard'
    # ---------------- page style
    if 'book_curl' in popts:
        style = 'open_book'
    elif 'textbook' in cats:
        style = 'textbook' if rng.random() < 0.72 else 'open_book'
    elif ('lined' in popts or 'squared' in popts) and rng.random() < 0.6:
        style = 'exercise_book'
    else:
        style = 'exam' if rng.random() < 0.45 else 'worksheet'
    if variant == 'dense' and style == 'worksheet':
        style = 'exam'
    if style == 'open_book':
        page_size = (float(rng.uniform(440, 500)), float(rng.uniform(640, 700)))
    elif style == 'textbook':
        page_size = (516.0, 729.0) if rng.random() < 0.6 else (500.0, 700.0)
    elif style == 'exercise_book':
        page_size = (500.0, 705.0)
    else:
        page_size = (595.0, 842.0)
    if variant == 'dense':
        pt = rng.uniform(8.5, 9.8)
        ls = rng.uniform(1.4, 1.6) if lang == 'zh' else rng.uniform(1.25, 1.4)
    elif variant == 'large_print':
        pt = rng.uniform(15.5, 20)
        ls = rng.uniform(1.7, 2.1)
    elif style in ('textbook', 'open_book'):
        pt = rng.uniform(10, 11.5)
        ls = rng.uniform(1.55, 1.85) if lang == 'zh' else rng.uniform(1.35, 1.55)
    else:
        pt = rng.uniform(10.5, 12.5)
        ls = rng.uniform(1.55, 1.9) if lang == 'zh' else rng.uniform(1.35, 1.6)
    m = {'l': rng.uniform(40, 70), 'r': rng.uniform(40, 70), 't': rng.uniform(42, 70), 'b': rng.uniform(42, 65)}
    if variant == 'dense':
        m = {k: v * 0.7 for k, v in m.items()}
    if style == 'exam' and rng.random() < 0.5:
        m['l'] = rng.uniform(62, 90)
    ncol = 1
    col_rule = False
    if variant in ('two_col_rule', 'two_col_norule'):
        ncol, col_rule = 2, variant == 'two_col_rule'
    elif variant == 'dense' and rng.random() < 0.65:
        ncol, col_rule = 2, rng.random() < 0.6
    col_gap = rng.uniform(16, 30)
    body_w = page_size[0] - m['l'] - m['r']
    colw = (body_w - col_gap * (ncol - 1)) / ncol
    max_colw = colw
    pt_bumped = False
    if variant == 'long_wrap':
        max_colw = min(colw, pt * rng.uniform(15, 22))
    if max_colw / pt > em_max:
        if variant != 'dense':
            pt2 = min(pt * 1.35, max_colw / em_max)
            pt_bumped = pt2 > pt
            pt = pt2
        if max_colw / pt > em_max:
            max_colw = em_max * pt
    colw_eff = min(colw, max_colw)
    family = str(rng.choice(['serif', 'serif_dv', 'sans', 'sans_dv'], p=[0.4, 0.15, 0.3, 0.15]))
    if style in ('textbook', 'open_book') and rng.random() < 0.6:
        family = 'serif'
    g = int(rng.integers(10, 46))
    ink = (g, g, g + int(rng.integers(0, 8)))
    accent = ink
    if style in ('textbook', 'open_book') and rng.random() < 0.75:
        accent = [(20, 70, 150), (160, 30, 40), (20, 110, 70), (90, 40, 120)][int(rng.integers(4))]
    nstyles = NUM_STYLES_ZH if lang == 'zh' else NUM_STYLES_EN
    if rng.random() < 0.12:
        nstyles = NUM_STYLES_EN if lang == 'zh' else NUM_STYLES_ZH
    num_style = str(rng.choice(nstyles))
    num_start = 1 if rng.random() < 0.3 else int(rng.integers(2, 16))
    if attempt >= 1:
        tpos = 0
    else:
        tpos = int(rng.integers(0, 5 if ncol == 1 else 9))
        if style in ('textbook', 'open_book') or variant == 'large_print':
            tpos = min(tpos, 2)
    textbook = {}
    if 'textbook' in cats:
        textbook = {'section_title': rng.random() < 0.6, 'prose': rng.random() < 0.75, 'example': rng.random() < 0.5,
                    'ex_heading': rng.random() < 0.85}
        if not (textbook['prose'] or textbook['example']):
            textbook['prose' if rng.random() < 0.6 else 'example'] = True
    elif style == 'open_book':
        textbook = {'ex_heading': rng.random() < 0.5}
    # ---------------- per-problem specs
    nspec = 44
    specs = [dict() for _ in range(nspec)]
    score_on = rng.random() < (0.75 if style == 'exam' else 0.35)
    sst = (SCORE_STYLES_ZH if lang == 'zh' else SCORE_STYLES_EN)[int(rng.integers(4))]
    spos = 'before' if (lang == 'zh' and rng.random() < 0.35) else 'after'
    gap_rng = {'worksheet': (0.4, 2.6), 'exam': (0.3, 1.3), 'exercise_book': (0.6, 2.2), 'textbook': (0.3, 0.9),
               'open_book': (0.3, 0.9)}[style]
    if variant == 'dense':
        gap_rng = (0.15, 0.6)
    ans_main = ans_second = None
    if 'answer_space' in cats:
        ans_main = str(rng.choice(['answer_line', 'box', 'bracket', 'dotted']))
        if rng.random() < 0.35:
            ans_second = str(rng.choice([a for a in ['answer_line', 'box', 'bracket', 'dotted'] if a != ans_main]))
    opt_t = variant == 'options_grid'
    opt_n = 0.6 if variant == 'options_grid' else (0.25 if style == 'exam' else 0.0)
    for i, sp in enumerate(specs):
        sp['gap'] = float(rng.uniform(*gap_rng))
        if score_on:
            sp['score'] = sst.format(n=int(rng.choice([2, 3, 4, 5, 6, 8, 10])))
            sp['score_pos'] = spos
        if ans_main:
            r = rng.random()
            a = ans_main if r < 0.7 else (ans_second if (ans_second and r < 0.85) else None)
            if i == tpos and a is None and rng.random() < 0.75:
                a = ans_main
            sp['answer'] = a
            if a == 'box':
                sp['reserve_right'] = pt * float(rng.uniform(6.0, 8.0))
        is_t = i == tpos
        if (is_t and opt_t) or (not is_t and rng.random() < opt_n):
            sp['options'] = True
    if style == 'exam' and num_style != 'cn_numeral':
        secs = EXAM_SECTIONS_ZH if lang == 'zh' else EXAM_SECTIONS_EN
        pair = secs[int(rng.integers(len(secs)))]
        specs[0]['section'] = pair[0]
        j = int(rng.integers(3, 9))
        if j != tpos:
            specs[j]['section'] = pair[1]
    figs = []
    if 'figures' in cats:
        nf = int(rng.integers(1, 4))
        idxs = []
        if rng.random() < 0.5 or attempt >= 2:
            idxs.append(tpos)
        for d in rng.permutation([-2, -1, 1, 2, 3]):
            if len(idxs) >= nf:
                break
            if 0 <= tpos + d < nspec:
                idxs.append(int(tpos + d))
        if attempt >= 3:
            idxs = [i for i in idxs if i != tpos]
        for i in idxs:
            kinds = FIG_SUBJECT.get(target['subject'], FIG_KINDS) if rng.random() < 0.6 else FIG_KINDS
            kind = str(rng.choice(kinds))
            aspect = {'triangle': 0.75, 'circle': 1.0, 'bars': 0.8, 'circuit': 0.7, 'rect_dims': 0.6,
                      'number_line': 0.25, 'axes': 0.9, 'table': 0.3}[kind]
            place = 'right' if (kind not in ('table', 'number_line') and colw_eff / pt >= 22 and rng.random() < 0.55) \
                else 'below'
            f = {'kind': kind, 'place': place, 'aspect': aspect * rng.uniform(0.9, 1.1),
                 'width': rng.uniform(0.5, 0.8) if kind in ('table', 'number_line') else rng.uniform(0.3, 0.5),
                 'caption': (None if rng.random() < 0.5 else ('（第{n}题图）' if lang == 'zh' else 'Figure for Q{n}'))}
            specs[i]['figure'] = f
            if place == 'right':
                specs[i]['reserve_right'] = colw_eff * float(rng.uniform(0.3, 0.38))
                if specs[i].get('answer') == 'box':
                    specs[i]['answer'] = 'bracket'
            figs.append({'spec_index': i, 'on_target': i == tpos, **{k: v for k, v in f.items()}})
    hand = {'kinds': [], 'style': str(rng.choice(HAND_STYLES, p=[0.25, 0.25, 0.15, 0.1, 0.25])),
            'slant': float(rng.uniform(0.05, 0.32) if rng.random() < 0.85 else rng.uniform(-0.12, 0.0)),
            'pen': str(rng.choice(['blue', 'black', 'pencil', 'darkblue'], p=[0.45, 0.25, 0.15, 0.15]))}
    if 'handwriting' in cats:
        ks = weighted_pick(rng, HAND_KINDS, HAND_W, int(rng.choice([1, 2, 3], p=[0.3, 0.45, 0.25])),
                           [{'answer_in_blank', 'crossed_out'}])
        for kname in ks:
            want_t = bool(rng.random() < 0.6)
            hand['kinds'].append((kname, want_t))
            if kname == 'working_below':
                idx = tpos if want_t else (tpos + 1 if rng.random() < 0.6 or tpos == 0 else tpos - 1)
                specs[idx]['work_lines'] = int(rng.integers(2, 5))
    # ---------------- paper parameters
    w0 = rng.uniform(243, 252)
    paper = {'kind': 'white', 'options': popts, 'color': [min(255, w0 + rng.uniform(0, 4)), w0, w0 - rng.uniform(0, 7)],
             'grain': float(rng.uniform(1.2, 3.0)), 'mottle': float(rng.uniform(0.006, 0.02)), 'rule': None,
             'photocopy': False, 'fade': 0.0, 'crease': None,
             'curl_width': float(rng.uniform(45, 90)), 'curl_shade': float(rng.uniform(0.3, 0.6))}
    if 'recycled' in popts:
        if rng.random() < 0.7:
            gl = rng.uniform(196, 220)
            paper['color'] = [gl + rng.uniform(-2, 6), gl + rng.uniform(-2, 3), gl - rng.uniform(0, 10)]
            paper['kind'] = 'recycled'
        else:
            paper['color'] = [rng.uniform(232, 242), rng.uniform(222, 232), rng.uniform(188, 205)]
            paper['kind'] = 'recycled'
        paper['fibres'] = float(rng.uniform(0.5, 1.5))
        paper['mottle'] = float(rng.uniform(0.02, 0.04))
        paper['grain'] = float(rng.uniform(2.5, 4.5))
    if 'photocopy' in popts:
        paper['photocopy'] = True
        paper['speckle'] = float(rng.uniform(0.3, 1.5))
        paper['streaks'] = [float(v) for v in rng.uniform(0.05, 0.95, int(rng.integers(0, 3)))]
        paper['fade'] = float(rng.uniform(0.2, 0.45))
        if paper['kind'] == 'white':
            gl = rng.uniform(232, 244)
            paper['color'] = [gl, gl, gl - rng.uniform(0, 4)]
    if 'lined' in popts or 'squared' in popts:
        paper['rule'] = 'lined' if 'lined' in popts else 'squared'
        paper['pitch'] = float(pt * ls) if paper['rule'] == 'lined' else 14.17
        paper['rule_top'] = float(rng.uniform(55, 90))
        paper['margin_x'] = float(rng.uniform(40, 62))
        paper['rule_col'] = [(165, 190, 222), (185, 185, 190), (170, 205, 185)][int(rng.integers(3))]
        if paper['rule'] == 'lined' and m['l'] < paper['margin_x'] + 6:
            m['l'] = paper['margin_x'] + 8
    if 'crease' in popts:
        paper['crease'] = {'orient': 'h' if rng.random() < 0.7 else 'v',
                           'rel': float(rng.uniform(1.0, 4.0) * (1 if rng.random() < 0.5 else -1)),
                           'dark': float(rng.uniform(0.06, 0.15)), 'shift': float(rng.uniform(0.3, 1.0))}
    layout = {'variant': variant, 'style': style, 'page_size': page_size, 'body_pt': float(pt), 'line_spacing': float(ls),
              'margins': m, 'columns': ncol, 'col_rule': bool(col_rule), 'col_gap': float(col_gap),
              'max_colw': float(max_colw), 'pt_bumped_for_resolution': pt_bumped, 'family': family,
              'latin_mode': ('lat' if lang == 'en' or rng.random() < 0.5 else 'cjk'), 'ink': list(ink),
              'accent': list(accent), 'num_style': num_style, 'num_bold': bool(rng.random() < 0.5),
              'hanging': bool(rng.random() < 0.7), 'num_start': num_start, 'target_pos': tpos,
              'target_page': int(rng.integers(2)), 'textbook': textbook, 'problem_specs': specs,
              'score_style': sst if score_on else None, 'score_pos': spos if score_on else None,
              'answer_styles': [a for a in (ans_main, ans_second) if a], 'figures': figs}
    return {'categories': cats, 'primary': primary, 'lang': lang, 'capture': capture, 'layout': layout,
            'paper': paper, 'hand': hand}


def neighbour_order(rng, bank, t_idx):
    t = bank[t_idx]
    lang_t = is_en_text(t['question'])
    others = [i for i in range(len(bank)) if i != t_idx and bank[i]['question'] != t['question']]
    same_l = [i for i in others if is_en_text(bank[i]['question']) == lang_t]
    diff_l = [i for i in others if i not in set(same_l)]
    if rng.random() < 0.6:
        subj = [i for i in same_l if bank[i]['subject'] == t['subject']]
        rest = [i for i in same_l if bank[i]['subject'] != t['subject']]
        order = list(rng.permutation(subj)) + list(rng.permutation(rest))
    else:
        order = list(rng.permutation(same_l))
    order += list(rng.permutation(diff_l))
    return [int(i) for i in order], ('single_subject_first' if len(order) else '')


# ----------------------------------------------------------------------------------------------
# one photo
# ----------------------------------------------------------------------------------------------
_BANK = None
_ID_INDEX = None


def _init(bank):
    global _BANK, _ID_INDEX
    _BANK = bank
    _ID_INDEX = {b['id']: i for i, b in enumerate(bank)}


def _jsonable(o):
    if isinstance(o, dict):
        return {str(k): _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return round(float(o), 4)
    if isinstance(o, float):
        return round(o, 4)
    if isinstance(o, np.ndarray):
        return _jsonable(o.tolist())
    return o


def make_one(args):
    index, seed, t_idx, primary, out_dir = args
    t0 = time.time()
    bank = _BANK
    rng = np.random.default_rng([seed, index])
    target = bank[t_idx]
    qid = f'g{index + 1:03d}'
    pg = None
    for attempt in range(5):
        plan = make_plan(rng, target, primary, attempt)
        plan['id_index'] = _ID_INDEX
        order, _ = neighbour_order(rng, bank, t_idx)
        lay = Layouter(rng, plan, bank, target, order)
        pg = lay.build()
        if pg is not None:
            break
    if pg is None:
        raise RuntimeError(f'{qid}: could not lay out the target problem')
    trec = [r for r in pg.problems if r['target']][0]
    marks_log = MarkPlanner(rng, pg, plan, bank, None).run() if 'handwriting' in plan['categories'] else []
    # page distortion (not flat paper, spine curl, crease)
    PW, PH = plan['layout']['page_size']
    D = {'waves': [], 'spine_x': None}
    for _ in range(int(rng.integers(1, 3))):
        lam = rng.uniform(180, 480)
        a = rng.uniform(0, math.pi)
        D['waves'].append((float(rng.uniform(0.1, 1.0)), float(rng.uniform(0.1, 1.0)), float(2 * math.pi / lam *
                           math.cos(a)), float(2 * math.pi / lam * math.sin(a)), float(rng.uniform(0, 6.28))))
    if pg.spine_x is not None:
        D.update(spine_x=pg.spine_x, curl_width=plan['paper']['curl_width'], curl_dx=float(rng.uniform(4, 12)),
                 curl_dy=float(rng.uniform(-10, 10)), page_cy=PH / 2, page_hh=PH / 2)
    cr = plan['paper'].get('crease')
    if cr:
        b = trec['box']
        lh = trec['pt'] * plan['layout']['line_spacing']
        if cr['orient'] == 'h':
            pos = (b[3] + cr['rel'] * lh) if cr['rel'] > 0 else (b[1] + cr['rel'] * lh)
        else:
            pos = (b[2] + cr['rel'] * lh * 2) if cr['rel'] > 0 else (b[0] + cr['rel'] * lh * 2)
        plan['paper']['crease_abs'] = {'orient': cr['orient'], 'pos': float(pos), 'dark': cr['dark']}
        D['crease'] = {'orient': cr['orient'], 'pos': float(pos), 'shift': cr['shift']}
    cam = solve_camera(rng, pg, plan, D)
    C = plan['capture']
    W, H = C['sensor']
    ds = C['downscale']
    # visible region of the page canvas
    Hinv = np.linalg.inv(cam['H'])
    t = np.linspace(0, 1, 9)
    border = np.r_[np.c_[t * W, np.zeros(9)], np.c_[t * W, np.full(9, H)], np.c_[np.zeros(9), t * H],
                   np.c_[np.full(9, W), t * H]]
    u = apply_h(Hinv, border)
    gxb, gyb = distort(u[:, 0], u[:, 1], D)
    cx0 = min(p[0] for p in pg.pages)
    cy0 = min(p[1] for p in pg.pages)
    cx1 = max(p[2] for p in pg.pages)
    cy1 = max(p[3] for p in pg.pages)
    pad = 20.0
    region = [max(cx0, gxb.min() - pad), max(cy0, gyb.min() - pad), min(cx1, gxb.max() + pad), min(cy1, gyb.max() + pad)]
    area = max(1.0, (region[2] - region[0]) * (region[3] - region[1]))
    k = cam['s'] * rng.uniform(1.0, 1.12)
    budget = min(2.4 * W * H, 6.5e6)
    k = min(k, math.sqrt(budget / area))
    canvas = render_canvas(pg, plan, region, k, int(rng.integers(1 << 30)))
    # target sample points for glare / shadow limits
    b = trec['box']
    gxs, gys = np.meshgrid(np.linspace(b[0], b[2], 12), np.linspace(b[1], b[3], 5))
    tpts = forward(cam['H'], D, np.c_[gxs.ravel(), gys.ravel()])
    photo, pinfo = photograph(rng, canvas, region, k, cam, D, pg, plan, tpts)
    del canvas
    q = C['jpeg_quality']
    ok, enc = cv2.imencode('.jpg', cv2.cvtColor(photo, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q])
    with open(os.path.join(out_dir, qid + '.jpg'), 'wb') as f:
        f.write(enc.tobytes())
    # ---------------- meta
    Wo, Ho = W // ds, H // ds
    corners = [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]
    poly = forward(cam['H'], D, corners) / ds
    ctr = forward(cam['H'], D, [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)])[0] / ds
    dist_t = float(np.hypot(ctr[0] - Wo / 2, ctr[1] - Ho / 2))
    neigh = []
    for r in pg.problems:
        if r['target']:
            continue
        rb = r['box']
        gx_, gy_ = np.meshgrid(np.linspace(rb[0], rb[2], 7), np.linspace(rb[1], rb[3], 4))
        qq = forward(cam['H'], D, np.c_[gx_.ravel(), gy_.ravel()]) / ds
        inside = (qq[:, 0] >= 0) & (qq[:, 0] < Wo) & (qq[:, 1] >= 0) & (qq[:, 1] < Ho)
        if inside.any():
            rc = forward(cam['H'], D, [((rb[0] + rb[2]) / 2, (rb[1] + rb[3]) / 2)])[0] / ds
            neigh.append({'id': r['id'], 'label': r['label'], 'visible': 'whole' if inside.all() else 'cut',
                          'centre_dist_px': round(float(np.hypot(rc[0] - Wo / 2, rc[1] - Ho / 2)), 1)})
    spine_vis = None
    if pg.spine_x is not None:
        sp = forward(cam['H'], D, [(pg.spine_x, y) for y in np.linspace(0, PH, 15)]) / ds
        spine_vis = bool(((sp[:, 0] >= 0) & (sp[:, 0] < Wo) & (sp[:, 1] >= 0) & (sp[:, 1] < Ho)).any())
    lay_meta = {k2: v for k2, v in plan['layout'].items() if k2 != 'problem_specs'}
    tspec = plan['layout']['problem_specs'][plan['layout']['target_pos']]
    fonts_used = sorted({p[2] for op in pg.ops if op['t'] == 'text' for p in op['pieces']})
    meta = {
        'qid': qid, 'index': index, 'expected_id': target['id'], 'subject': target['subject'], 'lang': plan['lang'],
        'primary_case': plan['primary'], 'cases': plan['categories'],
        'layout': lay_meta, 'page_extra': pg.extra, 'fonts': fonts_used,
        'target': {'label': trec['label'], 'box_pt': trec['box'], 'pt': trec['pt'],
                   'n_lines': len(trec['lines']), 'options': trec['options'],
                   'answer_space': (trec['slot'] or {}).get('kind'), 'score_note': tspec.get('score'),
                   'figure': tspec.get('figure'), 'work_lines': tspec.get('work_lines'),
                   'polygon_px': poly.round(1).tolist(), 'centre_px': ctr.round(1).tolist(),
                   'bbox_px': [float(poly[:, 0].min()), float(poly[:, 1].min()), float(poly[:, 0].max()),
                               float(poly[:, 1].max())],
                   'offset_frac': [float((ctr[0] - Wo / 2) / Wo), float((ctr[1] - Ho / 2) / Ho)],
                   'centre_dist_px': round(dist_t, 1),
                   'min_font_px': round(cam['min_font_px_sensor'] / ds, 1),
                   'fully_inside': bool((poly[:, 0] >= 0).all() and (poly[:, 0] <= Wo).all() and
                                        (poly[:, 1] >= 0).all() and (poly[:, 1] <= Ho).all()),
                   'most_central': all(n['centre_dist_px'] > dist_t for n in neigh)},
        'neighbours_visible': neigh, 'n_problems_on_page': len(pg.problems),
        'problems_on_page': [{'id': r['id'], 'label': r['label'], 'target': r['target'], 'page': r['page'],
                              'box_pt': r['box'], 'answer_space': (r['slot'] or {}).get('kind'),
                              'options': r['options']} for r in pg.problems],
        'handwriting': marks_log, 'hand_style': plan['hand'] if marks_log else None,
        'paper': plan['paper'], 'spine_visible': spine_vis, 'distortion': D,
        'camera': {k2: v for k2, v in cam.items() if k2 != 'H'} | {'homography_pt_to_sensor': cam['H'],
                                                                  'sensor': [W, H], 'out_size': [Wo, Ho],
                                                                  'effects': C['effects'], 'jpeg_quality': q,
                                                                  'render_px_per_pt': k, 'region_pt': region},
        'photo': pinfo, 'seconds': round(time.time() - t0, 2),
    }
    return _jsonable(meta), (qid, target['question'], target['id'])


# ----------------------------------------------------------------------------------------------
# summary
# ----------------------------------------------------------------------------------------------
def summary(out_dir):
    metas = [json.loads(l) for l in open(os.path.join(out_dir, 'meta.jsonl'), encoding='utf-8') if l.strip()]
    n = len(metas)
    print(f'{n} photos in {out_dir}')

    def show(title, counter, denom=n):
        print(f'\n{title}')
        for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0]))):
            print(f'  {str(k):<28} {v:4d}  {100.0 * v / denom:5.1f}%')

    show('primary case (one per photo)', collections.Counter(m['primary_case'] for m in metas))
    show('case present (several per photo)', collections.Counter(c for m in metas for c in m['cases']))
    print(f"\n  mean cases per photo: {np.mean([len(m['cases']) for m in metas]):.2f}")
    show('page style', collections.Counter(m['layout']['style'] for m in metas))
    show('layout variant', collections.Counter(m['layout']['variant'] for m in metas))
    show('columns', collections.Counter(f"{m['layout']['columns']} col" + (' +rule' if m['layout']['col_rule'] else '')
                                        for m in metas))
    show('paper options', collections.Counter(o for m in metas for o in (m['paper']['options'] or ['plain'])))
    show('answer space at target', collections.Counter(str(m['target']['answer_space']) for m in metas))
    show('figures (on page / next to target)', collections.Counter(
        f['kind'] + (' @target' if f['on_target'] else '') for m in metas for f in m['layout']['figures']))
    show('handwriting marks', collections.Counter(h['kind'] + (' @target' if h['on_target'] else '')
                                                  for m in metas for h in m['handwriting']))
    show('capture effects', collections.Counter(e for m in metas for e in (m['camera']['effects'] or ['mild only'])))
    show('number style', collections.Counter(m['layout']['num_style'] for m in metas))
    show('output size', collections.Counter('x'.join(map(str, m['camera']['out_size'])) for m in metas))
    show('language', collections.Counter(m['lang'] for m in metas))
    show('subject', collections.Counter(m['subject'] for m in metas))
    rot = np.array([abs(m['camera']['theta']) for m in metas])
    tilt = np.array([m['camera']['tilt'] for m in metas])
    off = np.array([max(abs(v) for v in m['target']['offset_frac']) for m in metas])
    fpx = np.array([m['target']['min_font_px'] for m in metas])
    q = np.array([m['camera']['jpeg_quality'] for m in metas])
    print('\nnumbers')
    print(f'  |rotation| deg   min {rot.min():.1f}  median {np.median(rot):.1f}  max {rot.max():.1f}'
          f'  (sideways {int((rot > 60).sum())})')
    print(f'  tilt deg         min {tilt.min():.1f}  median {np.median(tilt):.1f}  max {tilt.max():.1f}')
    print(f'  target offset    median {np.median(off):.3f}  max {off.max():.3f}  (>=0.1: {int((off >= 0.1).sum())})')
    print(f'  target font px   min {fpx.min():.1f}  median {np.median(fpx):.1f}  max {fpx.max():.1f}')
    print(f'  jpeg quality     min {q.min()}  max {q.max()}')
    print(f"  target with options: {sum(1 for m in metas if m['target']['options'])}, "
          f"multi-line targets: {sum(1 for m in metas if m['target']['n_lines'] > 1)}, "
          f"score note on target: {sum(1 for m in metas if m['target']['score_note'])}")
    print(f"  target fully inside: {sum(m['target']['fully_inside'] for m in metas)}/{n}, "
          f"most central: {sum(m['target']['most_central'] for m in metas)}/{n}, "
          f"camera fallback: {sum(m['camera']['fallback'] for m in metas)}")
    print(f"  open book with spine visible: {sum(1 for m in metas if m['spine_visible'])}"
          f"/{sum(1 for m in metas if m['spine_visible'] is not None)}")
    print(f"  neighbours visible per photo: median {np.median([len(m['neighbours_visible']) for m in metas]):.0f}, "
          f"photos with a cut neighbour: {sum(any(x['visible'] == 'cut' for x in m['neighbours_visible']) for m in metas)}")
    print(f"  seconds per photo (one worker): mean {np.mean([m['seconds'] for m in metas]):.2f}")


# ----------------------------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out_dir', nargs='?')
    ap.add_argument('--bank', default='appliance/data/demo_bank.jsonl')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=79)
    ap.add_argument('--workers', type=int, default=2)
    ap.add_argument('--only', type=str, default=None, help='comma separated 1-based photo numbers (debug)')
    ap.add_argument('--summary', metavar='OUT_DIR', default=None, help='print case shares from OUT_DIR/meta.jsonl')
    a = ap.parse_args(argv)
    if a.summary:
        summary(a.summary)
        return
    if not a.out_dir:
        ap.error('OUT_DIR is required')
    bank = [json.loads(l) for l in open(a.bank, encoding='utf-8') if l.strip()]
    os.makedirs(a.out_dir, exist_ok=True)
    if a.count > len(bank):
        print(f'warning: count {a.count} > bank size {len(bank)}; targets repeat', file=sys.stderr)
    perm = np.random.default_rng([a.seed]).permutation(len(bank))
    targets = [int(perm[i % len(bank)]) for i in range(a.count)]
    # primary case: balanced round robin in a seeded order
    crng = np.random.default_rng([a.seed, 1_000_003])
    prim = [CATEGORIES[i % len(CATEGORIES)] for i in range(a.count)]
    prim = [prim[i] for i in crng.permutation(a.count)]
    jobs = [(i, a.seed, targets[i], prim[i], a.out_dir) for i in range(a.count)]
    if a.only:
        keep = {int(x) - 1 for x in a.only.split(',')}
        jobs = [j for j in jobs if j[0] in keep]
    t0 = time.time()
    if a.workers > 1:
        with Pool(a.workers, initializer=_init, initargs=(bank,)) as pool:
            results = list(pool.imap(make_one, jobs, chunksize=1))
    else:
        _init(bank)
        results = [make_one(j) for j in jobs]
    if not a.only:
        with open(os.path.join(a.out_dir, 'meta.jsonl'), 'w', encoding='utf-8') as f:
            for m, _ in results:
                f.write(json.dumps(m, ensure_ascii=False) + '\n')
        with open(os.path.join(a.out_dir, 'truth.csv'), 'w', encoding='utf-8', newline='') as f:
            w = csv.writer(f)
            w.writerow(['qid', 'text'])
            for _, (qid, text, _) in results:
                w.writerow([qid, text])
        with open(os.path.join(a.out_dir, 'queries.csv'), 'w', encoding='utf-8', newline='') as f:
            w = csv.writer(f)
            w.writerow(['qid', 'query', 'expected_id', 'kind'])
            for _, (qid, text, eid) in results:
                w.writerow([qid, text, eid, 'exact'])
    print(f'{len(results)} photos written to {a.out_dir} in {time.time() - t0:.1f} s')


if __name__ == '__main__':
    main()
