#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""photos_tune9 -- synthetic phone photos of school pages, each aimed at one
bank problem (the "framed" problem).

    make_photos.py --bank BANK OUT_DIR [qid ...]

Written from a plain description of the task only (no product code read).
Deterministic: a fixed seed; every photo has its own random stream, so a photo
remade alone is byte-identical to the one from a full run.
"""

import argparse
import csv
import difflib
import importlib.util
import json
import math
import multiprocessing as mp
import os
import sys
import time

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

SEED = 9090417
N_PHOTOS = 120

# ----------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------
NOTO = '/usr/share/fonts/opentype/noto/'
LIB = '/usr/share/fonts/truetype/liberation/'
DJV = '/usr/share/fonts/truetype/dejavu/'


def _mpl_dir():
    try:
        spec = importlib.util.find_spec('matplotlib')
        if spec and spec.origin:
            d = os.path.join(os.path.dirname(spec.origin), 'mpl-data', 'fonts', 'ttf')
            if os.path.isdir(d):
                return d + '/'
    except Exception:
        pass
    return None


MPL = _mpl_dir()

CJK_FONTS = {
    'sans': (NOTO + 'NotoSansCJK-Regular.ttc', NOTO + 'NotoSansCJK-Bold.ttc'),
    'serif': (NOTO + 'NotoSerifCJK-Regular.ttc', NOTO + 'NotoSerifCJK-Bold.ttc'),
}
# (name, regular, bold, italic)
LATIN_FONTS = [
    ('liberation_serif', LIB + 'LiberationSerif-Regular.ttf', LIB + 'LiberationSerif-Bold.ttf',
     LIB + 'LiberationSerif-Italic.ttf'),
    ('liberation_sans', LIB + 'LiberationSans-Regular.ttf', LIB + 'LiberationSans-Bold.ttf',
     LIB + 'LiberationSans-Italic.ttf'),
    ('dejavu_serif', DJV + 'DejaVuSerif.ttf', DJV + 'DejaVuSerif-Bold.ttf', DJV + 'DejaVuSerif-Italic.ttf'),
    ('dejavu_sans', DJV + 'DejaVuSans.ttf', DJV + 'DejaVuSans-Bold.ttf', DJV + 'DejaVuSans-Oblique.ttf'),
    ('liberation_sans_narrow', LIB + 'LiberationSansNarrow-Regular.ttf', LIB + 'LiberationSansNarrow-Bold.ttf',
     LIB + 'LiberationSansNarrow-Italic.ttf'),
    ('cjk_builtin', None, None, None),
]
if MPL and os.path.exists(MPL + 'STIXGeneral.ttf'):
    LATIN_FONTS.insert(2, ('stix_serif', MPL + 'STIXGeneral.ttf', MPL + 'STIXGeneralBol.ttf',
                           MPL + 'STIXGeneralItalic.ttf'))
LATIN_FONTS = [f for f in LATIN_FONTS if f[1] is None or os.path.exists(f[1])]
HAND_FONTS = [DJV + 'DejaVuSans-Oblique.ttf', LIB + 'LiberationSerif-Italic.ttf', DJV + 'DejaVuSans-BoldOblique.ttf']

_font_cache = {}
_cjk_index = {}
_cmap_cache = {}


def cjk_index(path):
    if path not in _cjk_index:
        idx = 2
        for i in range(6):
            try:
                if ImageFont.truetype(path, 10, index=i).getname()[0].endswith('CJK SC'):
                    idx = i
                    break
            except Exception:
                break
        _cjk_index[path] = idx
    return _cjk_index[path]


def get_font(path, size):
    size = max(6, int(round(size)))
    key = (path, size)
    f = _font_cache.get(key)
    if f is None:
        idx = cjk_index(path) if path.endswith('.ttc') else 0
        f = ImageFont.truetype(path, size, index=idx)
        _font_cache[key] = f
    return f


def cmap_of(path):
    if path not in _cmap_cache:
        from fontTools.ttLib import TTFont
        _cmap_cache[path] = set(TTFont(path).getBestCmap().keys())
    return _cmap_cache[path]


# ----------------------------------------------------------------------------
# rich text: superscripts, subscripts, blanks, line breaking
# ----------------------------------------------------------------------------
SUP = dict(zip('⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻ⁿ', '0123456789+-n'))
SUB = dict(zip('₀₁₂₃₄₅₆₇₈₉₊₋ₙₓₐₑ', '0123456789+-nxae'))
NO_START = set('，。、；：？！）】》”’,.;:?!)]%…')
NO_END = set('（【《“‘([')


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFE30 <= o <= 0xFE4F
            or 0xFF00 <= o <= 0xFFEF or 0x3000 <= o <= 0x303F or 0x2460 <= o <= 0x24FF
            or ch in '“”‘’…—')


def parse_items(text, blank_em=4.0):
    """text -> list of [kind, char, extra]; kind in n/sup/sub/blank/sp."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '_':
            j = i
            while j < len(text) and text[j] == '_':
                j += 1
            out.append(['blank', '', blank_em * max(1.0, (j - i) / 3.0)])
            i = j
            continue
        if ch in SUP:
            out.append(['sup', SUP[ch], None])
        elif ch in SUB:
            out.append(['sub', SUB[ch], None])
        elif ch == ' ':
            out.append(['sp', ' ', None])
        elif ch == '\u3000':
            out.append(['gap', '', 1.0])
        else:
            out.append(['n', ch, None])
        i += 1
    return out


class Typesetter:
    def __init__(self, cjk_key, latin, em, ink):
        self.cjk_reg, self.cjk_bold = CJK_FONTS[cjk_key]
        self.latin = latin
        self.em = em
        self.ink = ink
        if latin[1] is not None:
            self.lat_reg, self.lat_bold = latin[1], latin[2]
            self.lat_cmap = cmap_of(latin[1])
        else:
            self.lat_reg = self.lat_bold = None
            self.lat_cmap = set()

    def path_for(self, ch, bold):
        if self.lat_reg is not None and not is_cjk(ch) and ord(ch) in self.lat_cmap:
            return self.lat_bold if bold else self.lat_reg
        return self.cjk_bold if bold else self.cjk_reg

    def segments(self, items, em, bold):
        """items of one word -> list of (path, size, text, dy, width, kind)"""
        segs = []
        for kind, ch, extra in items:
            if kind == 'blank':
                segs.append((None, em, '', 0.0, extra * em, 'blank'))
                continue
            if kind == 'gap':
                segs.append((None, em, '', 0.0, extra * em, 'gap'))
                continue
            if kind == 'sup':
                size, dy = em * 0.6, -em * 0.36
            elif kind == 'sub':
                size, dy = em * 0.6, em * 0.15
            else:
                size, dy = em, 0.0
            path = self.path_for(ch, bold)
            if segs and segs[-1][0] == path and segs[-1][5] == kind:
                p, sz, t, d, w, k = segs[-1]
                segs[-1] = (p, sz, t + ch, d, 0, k)
            else:
                segs.append((path, size, ch, dy, 0, kind))
        res = []
        for p, sz, t, d, w, k in segs:
            if p is not None:
                w = get_font(p, sz).getlength(t)
            res.append((p, sz, t, d, w, k))
        return res

    def words(self, items, em, bold):
        words = []
        cur = []
        space_before = False
        prev = None
        for it in items:
            if it[0] == 'sp':
                if cur:
                    words.append((cur, space_before))
                    cur = []
                space_before = True
                prev = None
                continue
            brk = False
            if cur and prev is not None:
                pc, cc = prev[1], it[1]
                if it[0] in ('sup', 'sub'):
                    brk = False
                elif cc in NO_START or pc in NO_END:
                    brk = False
                elif it[0] in ('blank', 'gap') or prev[0] in ('blank', 'gap'):
                    brk = True
                elif is_cjk(cc) or is_cjk(pc):
                    brk = True
            if brk:
                words.append((cur, space_before))
                cur = []
                space_before = False
            cur.append(it)
            prev = it
        if cur:
            words.append((cur, space_before))
        out = []
        for w_items, sb in words:
            segs = self.segments(w_items, em, bold)
            out.append((segs, sb, sum(s[4] for s in segs)))
        return out

    def space_w(self, em):
        p = self.lat_reg or self.cjk_reg
        return get_font(p, em).getlength(' ')

    def wrap(self, items, em, first_w, other_w, bold=False):
        words = self.words(items, em, bold)
        sw = self.space_w(em)
        lines = []
        cur, curw = [], 0.0
        limit = first_w
        for segs, sb, w in words:
            add = (sw if (sb and cur) else 0.0) + w
            if cur and curw + add > limit:
                lines.append(cur)
                cur, curw = [], 0.0
                limit = other_w
                add = w
            cur.append((segs, sb and bool(cur)))
            curw += add
        if cur:
            lines.append(cur)
        return lines, sw

    def line_ops(self, line, x, base, em, sw, color):
        ops = []
        for segs, sb in line:
            if sb:
                x += sw
            for p, sz, t, dy, w, k in segs:
                if k == 'blank':
                    th = max(2, int(round(em / 15)))
                    ops.append(('l', x + em * 0.1, base + em * 0.14, x + w - em * 0.1, base + em * 0.14, th, color))
                elif k != 'gap':
                    ops.append(('t', x, base + dy, t, p, sz, color))
                x += w
        return ops, x

    def text_ops(self, text, x, base, em, color, bold=False):
        items = parse_items(text)
        lines, sw = self.wrap(items, em, 1e9, 1e9, bold)
        if not lines:
            return [], x
        return self.line_ops(lines[0], x, base, em, sw, color)

    def text_width(self, text, em, bold=False):
        ops, x = self.text_ops(text, 0, 0, em, (0, 0, 0), bold)
        return x


def op_bbox(op):
    if op[0] == 't':
        _, x, y, t, p, sz, c = op
        l, tp, r, b = get_font(p, sz).getbbox(t, anchor='ls')
        return (x + l, y + tp, x + r, y + b)
    if op[0] == 'l':
        _, x0, y0, x1, y1, th, c = op
        return (min(x0, x1), min(y0, y1) - th / 2, max(x0, x1), max(y0, y1) + th / 2)
    if op[0] == 'r':
        return op[1:5]
    return None


def union(boxes):
    boxes = [b for b in boxes if b is not None]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def shift_ops(ops, dx, dy):
    out = []
    for op in ops:
        if op[0] == 't':
            out.append(('t', op[1] + dx, op[2] + dy) + op[3:])
        elif op[0] == 'l':
            out.append(('l', op[1] + dx, op[2] + dy, op[3] + dx, op[4] + dy) + op[5:])
        elif op[0] == 'r':
            out.append(('r', op[1] + dx, op[2] + dy, op[3] + dx, op[4] + dy) + op[5:])
    return out


def sbox(b, dx, dy):
    return (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)


# ----------------------------------------------------------------------------
# page content vocabulary
# ----------------------------------------------------------------------------
SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'biology': '生物', 'geography': '地理',
           'history': '历史', 'chinese': '语文', 'english': '英语'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry', 'biology': 'Biology',
           'geography': 'Geography', 'history': 'History', 'chinese': 'Chinese', 'english': 'English'}
CN_NUM = '一二三四五六七八九十'

NUM_STYLES = ['dot', 'fdot', 'dun', 'paren', 'fparen', 'lent', 'circ', 'di', 'Q', 'Qdot', 'rparen', 'ex']


def num_label(style, n):
    if style == 'dot':
        return f'{n}.'
    if style == 'fdot':
        return f'{n}．'
    if style == 'dun':
        return f'{n}、'
    if style == 'paren':
        return f'({n})'
    if style == 'fparen':
        return f'（{n}）'
    if style == 'lent':
        return f'【{n}】'
    if style == 'circ':
        return chr(0x245F + n) if 1 <= n <= 20 else f'({n})'
    if style == 'di':
        return f'第{n}题'
    if style == 'Q':
        return f'Q{n}'
    if style == 'Qdot':
        return f'Q{n}.'
    if style == 'rparen':
        return f'{n})'
    if style == 'ex':
        return f'Ex. {n}'
    return f'{n}.'


def section_title(lang, stype, k, rng):
    pts = int(rng.choice([2, 3, 4, 5]))
    cnt = int(rng.integers(3, 9))
    if lang == 'zh':
        ordn = CN_NUM[k % 10]
        if stype == 'choice':
            return rng.choice([f'{ordn}、选择题（每小题{pts}分，共{pts * cnt}分）', f'{ordn}、单项选择题（每题{pts}分）',
                               f'{ordn}、选择题（本大题共{cnt}小题）'])
        if stype == 'fill':
            return rng.choice([f'{ordn}、填空题（每空{pts}分，共{pts * cnt}分）', f'{ordn}、填空题'])
        if stype == 'solve':
            return rng.choice([f'{ordn}、解答题（本大题共{cnt}小题，共{pts * cnt * 2}分）', f'{ordn}、计算题',
                               f'{ordn}、简答题（每题{pts}分）'])
        return rng.choice(['【基础巩固】', '【能力提升】', '【课后作业】', '课堂练习', f'知识点{ordn}', '【拓展训练】'])
    roman = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X'][k % 10]
    if stype == 'choice':
        return rng.choice([f'Part {roman}  Multiple choice ({pts} marks each)', f'Section {"ABCDE"[k % 5]}  Choose the best answer'])
    if stype == 'fill':
        return rng.choice([f'Part {roman}  Fill in the blanks', f'Section {"ABCDE"[k % 5]}  Complete the sentences'])
    if stype == 'solve':
        return rng.choice([f'Part {roman}  Short answer', f'Part {roman}  Problem solving ({pts} marks each)'])
    return rng.choice([f'Homework {int(rng.integers(2, 15))}', f'Exercise {int(rng.integers(1, 9))}.{int(rng.integers(1, 6))}',
                       'Warm-up', 'Practice', 'Review questions'])


def page_title(lang, style, subj, rng):
    y = int(rng.integers(2019, 2025))
    g = ['七', '八', '九', '高一', '高二', '五', '六'][int(rng.integers(0, 7))]
    if lang == 'zh':
        zs = SUBJ_ZH.get(subj, '综合')
        if style == 'exam':
            t = f'{y}—{y + 1}学年度第{rng.choice(["一", "二"])}学期{g}年级{zs}{rng.choice(["期中", "期末", "月考"])}试卷'
            sub = rng.choice(['（考试时间：90分钟　满分：100分）', '（满分120分，考试时间120分钟）', None])
        elif style == 'worksheet':
            t = f'{zs}课时练习（{CN_NUM[int(rng.integers(0, 10))]}）'
            sub = None
        elif style == 'homework':
            t = f'{zs}家庭作业　第{int(rng.integers(2, 18))}周'
            sub = rng.choice(['（完成时间：30分钟）', None])
        elif style == 'workbook':
            t = f'{zs}同步练习册　第{int(rng.integers(1, 8))}课时'
            sub = None
        else:
            t = f'习题 {int(rng.integers(1, 9))}.{int(rng.integers(1, 5))}'
            sub = None
        return t, sub
    es = SUBJ_EN.get(subj, 'General')
    if style == 'exam':
        return f'{es} Unit {int(rng.integers(1, 9))} Test ({y}-{y + 1})', rng.choice(['Time: 60 minutes   Total: 100 marks', None])
    if style == 'worksheet':
        return f'{es} Worksheet {int(rng.integers(1, 20))}', None
    if style == 'homework':
        return f'Homework {int(rng.integers(2, 15))}  ({es})', rng.choice(['Due: Friday', None])
    if style == 'workbook':
        return f'{es} Workbook  Lesson {int(rng.integers(1, 12))}', None
    return f'Exercise {int(rng.integers(1, 9))}.{int(rng.integers(1, 5))}', None


def name_line(lang, rng):
    if lang == 'zh':
        return rng.choice(['班级：________　姓名：________　学号：______', '姓名：__________　班级：________　得分：______',
                           '学校：________　班级：______　姓名：________'])
    return rng.choice(['Name: ____________  Class: ______  Date: ________', 'Name: ______________   Form: ______   Score: _____'])


def score_note(lang, rng):
    k = int(rng.choice([2, 3, 4, 5, 6, 8, 10]))
    if lang == 'zh':
        return rng.choice([f'（{k}分）', f'({k}分)', f'（本题{k}分）'])
    return rng.choice([f'({k} marks)', f'[{k} points]', f'({k} pts)', f'({k} marks)'])


def make_options(subj, rng):
    if subj in ('math', 'physics', 'chemistry'):
        b = int(rng.integers(2, 30))
        vals = sorted(set([b, b + int(rng.integers(1, 4)), b * 2, b + int(rng.integers(5, 12)), max(1, b - 1)]))
        vals = [str(v) for v in vals[:4]]
        while len(vals) < 4:
            vals.append(str(int(vals[-1]) + 3))
        return vals
    if subj == 'english':
        return list(rng.choice([['am', 'is', 'are', 'be'], ['a', 'an', 'the', '/'], ['in', 'on', 'at', 'for'],
                                ['go', 'goes', 'went', 'gone'], ['much', 'many', 'few', 'little']]))
    return list(rng.choice([['①②', '①③', '②④', '③④'], ['甲', '乙', '丙', '丁'], ['1840年', '1911年', '1919年', '1949年'],
                            ['亚洲', '欧洲', '非洲', '大洋洲'], ['细胞核', '细胞膜', '细胞质', '线粒体'], ['李白', '杜甫', '王维', '苏轼']]))


# ----------------------------------------------------------------------------
# problem block
# ----------------------------------------------------------------------------
def build_problem(ts, qtext, label, colw, em, ls, ex, lang):
    """Returns dict with ops (relative, top of block at y=0), box, label_box, nlines."""
    ink = ts.ink
    ops = []
    b0 = em * 0.9
    lab_ops, lab_x = ts.text_ops(label, 0, b0, em, ink, bold=ex['label_bold'])
    ops += lab_ops
    label_box = union([op_bbox(o) for o in lab_ops]) if lab_ops else (0, 0, em, em)
    text_x = lab_x + em * (0.25 if label[-1] in '.．、)）】' else 0.4)
    items = []
    note = ex.get('note')
    if note and ex['note_pos'] == 'prefix':
        items += parse_items(note)
    q_start = len(items)
    items += parse_items(ex['qtext_render'], blank_em=ex['blank_em'])
    if ex.get('fill_blank'):
        items += [['blank', '', ex['blank_em'] * 1.3]]
        if lang == 'zh':
            items += [['n', '。', None]] if ex.get('fill_dot') else []
    if note and ex['note_pos'] == 'inline':
        items += [['sp', ' ', None]] + parse_items(note)
    hang = ex['hang']
    first_w = colw - text_x
    other_w = colw - (text_x if hang else 0)
    lines, sw = ts.wrap(items, em, first_w, other_w)
    base = b0
    end_x = text_x
    for i, line in enumerate(lines):
        x = text_x if (i == 0 or hang) else 0
        lops, end_x = ts.line_ops(line, x, base, em, sw, ink)
        ops += lops
        if i < len(lines) - 1:
            base += em * ls
    nlines = len(lines)
    # right-aligned bits on the last line
    rights = []
    if ex.get('bracket'):
        rights.append(ex['bracket'])
    if note and ex['note_pos'] == 'right':
        rights.append(note)
    for r in rights:
        rw = ts.text_width(r, em)
        if end_x + em * 1.2 + rw > colw:
            base += em * ls
            end_x = 0
        rops, _ = ts.text_ops(r, colw - rw, base, em, ink)
        ops += rops
        end_x = colw
    text_end = end_x
    # options
    opts = ex.get('options')
    if opts:
        olab = ex['opt_fmt']
        strs = [olab.format(L) + o for L, o in zip('ABCD', opts)]
        ws = [ts.text_width(s, em) for s in strs]
        ind = text_x if hang else em * 1.0
        avail = colw - ind
        if max(ws) + em <= avail / 4:
            per, cols = avail / 4, 4
        elif max(ws) + em <= avail / 2:
            per, cols = avail / 2, 2
        else:
            per, cols = avail, 1
        for i, s in enumerate(strs):
            if i % cols == 0:
                base += em * ls
            oops, _ = ts.text_ops(s, ind + per * (i % cols), base, em, ink)
            ops += oops
    ans = ex.get('answer_line')
    if ans:
        base += em * ls * 1.15
        aops, ax = ts.text_ops(ans, text_x if hang else 0, base, em, ink)
        ops += aops
        th = max(2, int(round(em / 16)))
        ops.append(('l', ax + em * 0.2, base + em * 0.15, colw - em * 0.5, base + em * 0.15, th, ink))
    box = union([op_bbox(o) for o in ops])
    return dict(ops=ops, box=box, label_box=label_box, nlines=nlines, text_end=(text_end, base),
                last_base=base)


# ----------------------------------------------------------------------------
# bank, plan
# ----------------------------------------------------------------------------
def load_bank(path):
    bank = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line:
                bank.append(json.loads(line))
    return bank


def has_cjk(s):
    return any(is_cjk(c) for c in s)


def has_supsub(s):
    return any(c in SUP or c in SUB for c in s)


SIZES = ([(1280, 960)] * 48 + [(960, 1280)] * 44 + [(1600, 1200)] * 12 + [(2000, 1500)] * 10
         + [(1200, 1600)] * 3 + [(1500, 2000)] * 3)

PLAN_KINDS = {  # kind -> number of photos that get it in the plan
    'two_column': 42, 'pen_marks': 44, 'header_near': 36, 'name_class_top': 10, 'finger': 10,
    'pen_occluder': 8, 'moire': 6, 'small_print': 20, 'large_print': 20, 'tight_spacing': 26,
    'loose_spacing': 26, 'page_curl': 22, 'shadow': 30, 'uneven_light': 60, 'blur': 36,
    'motion_blur': 10, 'perspective': 70, 'rotation': 80, 'jpeg_noise': 24, 'bold_numbers': 40,
    'options': 30, 'answer_bracket': 30, 'score_note': 40, 'answer_line': 24, 'fill_blank': 12,
}
PAGE_STYLES = ['exam', 'worksheet', 'homework', 'textbook', 'workbook']


def make_plan(bank):
    rng = np.random.default_rng(SEED)
    ids = [b['id'] for b in bank]
    special = [b['id'] for b in bank if has_supsub(b['question']) or '__' in b['question']
               or len(b['question']) >= 60]
    rest = [i for i in ids if i not in special]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    chosen = special + rest[:N_PHOTOS - len(special)]
    chosen = [chosen[i] for i in rng.permutation(len(chosen))]
    sizes = [SIZES[i] for i in rng.permutation(len(SIZES))]
    plan = []
    for i in range(N_PHOTOS):
        plan.append(dict(qid=f's{i + 1:03d}', bank_id=chosen[i], size=sizes[i], kinds=set(),
                         page_style=PAGE_STYLES[i % len(PAGE_STYLES)],
                         num_style=NUM_STYLES[(i * 7) % len(NUM_STYLES)],
                         cjk=('serif', 'sans')[(i // 2) % 2],
                         latin=LATIN_FONTS[(i * 5) % len(LATIN_FONTS)][0]))
    for kind, cnt in PLAN_KINDS.items():
        for j in rng.permutation(N_PHOTOS)[:cnt]:
            plan[int(j)]['kinds'].add(kind)
    for p in plan:
        k = p['kinds']
        if 'small_print' in k and 'large_print' in k:
            k.discard('large_print')
        if 'tight_spacing' in k and 'loose_spacing' in k:
            k.discard('loose_spacing')
        if 'moire' in k:
            k.discard('page_curl')
        if 'blur' in k and 'motion_blur' in k:
            k.discard('blur')
        if 'finger' in k and 'pen_occluder' in k:
            k.discard('pen_occluder')
        p['kinds'] = sorted(k)
    return plan


# ----------------------------------------------------------------------------
# page layout
# ----------------------------------------------------------------------------
PAGE_FORMATS = {'A4': (2480, 3508), 'B5': (2150, 3040), '16K': (2270, 3150), 'A5': (1750, 2480)}


class Layout:
    pass


def similar(a, b):
    return difflib.SequenceMatcher(None, a, b).ratio()


def make_layout(rng, plan, bank_by_id, bank, gap_mult):
    kinds = set(plan['kinds'])
    F = bank_by_id[plan['bank_id']]
    fq = F['question']
    subj = F.get('subject', '')
    zhq = has_cjk(fq)
    L = Layout()
    style = plan['page_style']
    if zhq:
        lang = 'zh' if rng.random() < 0.88 else 'en'
    else:
        lang = 'en' if rng.random() < 0.6 else 'zh'
    L.lang, L.style = lang, style
    ncol = 2 if 'two_column' in kinds else 1
    if ncol == 1 and len(fq) >= 60 and rng.random() < 0.4:
        ncol = 2
    if len(fq) >= 80 and 'small_print' not in kinds and rng.random() < 0.6:
        kinds.add('large_print')   # long problem in big print: wraps to 3-4 lines
        ncol = 2
    fmt = rng.choice(['A4', 'A4', 'B5', '16K', 'A5']) if ncol == 1 else rng.choice(['A4', 'A4', 'B5', '16K'])
    if style == 'textbook' and ncol == 1:
        fmt = rng.choice(['16K', 'B5', 'A5'])
    pw, ph = PAGE_FORMATS[fmt]
    L.pw, L.ph, L.fmt = pw, ph, fmt
    if 'small_print' in kinds:
        em = rng.uniform(30, 35)
        L.print_size = 'small'
    elif 'large_print' in kinds:
        em = rng.uniform(54, 64)
        L.print_size = 'large'
    else:
        em = rng.uniform(38, 48)
        L.print_size = 'normal'
    if fmt == 'A5':
        em *= 0.9
    em = float(round(em))
    if 'tight_spacing' in kinds:
        ls, gap_em = rng.uniform(1.15, 1.3), rng.uniform(1.6, 2.4)
        L.spacing = 'tight'
    elif 'loose_spacing' in kinds:
        ls, gap_em = rng.uniform(1.85, 2.3), rng.uniform(3.0, 4.5)
        L.spacing = 'loose'
    else:
        ls, gap_em = rng.uniform(1.4, 1.75), rng.uniform(2.2, 3.4)
        L.spacing = 'normal'
    gap_em *= gap_mult
    L.em, L.ls = em, ls
    ink_v = int(rng.integers(15, 55))
    ink = (ink_v, ink_v, min(255, ink_v + int(rng.integers(0, 15))))
    latin = [f for f in LATIN_FONTS if f[0] == plan['latin']][0]
    ts = Typesetter(plan['cjk'], latin, em, ink)
    L.ts = ts
    L.cjk, L.latin = plan['cjk'], latin[0]
    mx = int(pw * rng.uniform(0.07, 0.11))
    top = int(ph * rng.uniform(0.05, 0.08))
    bottom = ph - int(ph * rng.uniform(0.05, 0.08))
    colgap = int(em * rng.uniform(1.8, 3.0))
    colw = (pw - 2 * mx - (ncol - 1) * colgap) / ncol
    L.ncol, L.colw = ncol, colw
    ops = []
    headers = []   # dicts: text, box, kind
    y = top
    # textbook running head
    if style == 'textbook':
        hs = em * 0.75
        chap = {'math': ['一元一次方程', '整式的加减', '数列', '函数'], 'physics': ['电功率', '压强', '运动和力'],
                'chemistry': ['物质构成的奥秘', '化学方程式'], 'biology': ['细胞', '人体的营养'],
                'geography': ['中国的疆域', '地球的运动'], 'history': ['近代化的探索', '中国古代史'],
                'chinese': ['古诗词诵读', '名著导读'], 'english': ['Grammar', 'Vocabulary']}.get(subj, ['综合练习'])
        left = (f'第{CN_NUM[int(rng.integers(0, 9))]}章　' + rng.choice(chap)) if lang == 'zh' else f'Chapter {int(rng.integers(1, 12))}  Exercises'
        o, _ = ts.text_ops(left, mx, y + hs, hs, (90, 90, 90))
        ops += o
        pn = str(int(rng.integers(12, 180)))
        o, _ = ts.text_ops(pn, pw - mx - ts.text_width(pn, hs), y + hs, hs, (90, 90, 90))
        ops += o
        ops.append(('l', mx, y + hs * 1.5, pw - mx, y + hs * 1.5, 3, (120, 120, 120)))
        y += hs * 2.6
    want_top = 'name_class_top' in kinds or (style in ('exam', 'worksheet', 'homework') and rng.random() < 0.35)
    if want_top:
        t, sub = page_title(lang, style, subj, rng)
        tem = em * rng.uniform(1.25, 1.55)
        if style == 'textbook':
            tw = ts.text_width(t, tem, bold=True)
            tint = tuple(int(v) for v in rng.choice([[225, 240, 228], [222, 233, 247], [248, 232, 222]]))
            ops.append(('r', mx, y, mx + tw + tem * 1.2, y + tem * 1.6, tint))
            o, _ = ts.text_ops(t, mx + tem * 0.6, y + tem * 1.15, tem, ink, bold=True)
            ops += o
            headers.append(dict(text=t, box=union([op_bbox(q) for q in o]), kind='title'))
            y += tem * 2.4
        else:
            tw = ts.text_width(t, tem, bold=True)
            o, _ = ts.text_ops(t, (pw - tw) / 2, y + tem, tem, ink, bold=True)
            ops += o
            headers.append(dict(text=t, box=union([op_bbox(q) for q in o]), kind='title'))
            y += tem * 1.7
            if sub:
                sem = em * 0.85
                sw_ = ts.text_width(sub, sem)
                o, _ = ts.text_ops(sub, (pw - sw_) / 2, y + sem, sem, ink)
                ops += o
                headers.append(dict(text=sub, box=union([op_bbox(q) for q in o]), kind='subtitle'))
                y += sem * 1.9
            nl = name_line(lang, rng)
            nem = em * 0.95
            nw = ts.text_width(nl, nem)
            o, _ = ts.text_ops(nl, (pw - nw) / 2 if rng.random() < 0.6 else mx, y + nem, nem, ink)
            ops += o
            headers.append(dict(text=nl, box=union([op_bbox(q) for q in o]), kind='name_class'))
            y += nem * 2.2
        L.page_header = True
    else:
        L.page_header = False
    col_top = y
    if ncol == 2 and rng.random() < 0.6:
        xm = mx + colw + colgap / 2
        ops.append(('l', xm, col_top, xm, bottom, 2, (110, 110, 110)))
    # problem pool
    same = [b for b in bank if b['id'] != F['id'] and b.get('subject') == subj and has_cjk(b['question']) == zhq
            and similar(b['question'], fq) < 0.7]
    same_lang = [b for b in bank if b['id'] != F['id'] and b.get('subject') != subj and has_cjk(b['question']) == zhq
                 and similar(b['question'], fq) < 0.7]
    other = [b for b in bank if b['id'] != F['id'] and has_cjk(b['question']) != zhq and similar(b['question'], fq) < 0.7]
    if not zhq:
        same_lang = [b for b in bank if b['id'] != F['id'] and b.get('subject') != subj and similar(b['question'], fq) < 0.7]
        other = []
    pool = ([same[i] for i in rng.permutation(len(same))] + [same_lang[i] for i in rng.permutation(len(same_lang))]
            + [other[i] for i in rng.permutation(len(other))])
    seen = set()
    pool = [b for b in pool if not (b['id'] in seen or seen.add(b['id']))]
    L.num_style = plan['num_style']
    if L.num_style in ('circ',):
        n0 = int(rng.integers(1, 4))
    else:
        n0 = int(rng.integers(1, 13))
    label_bold = 'bold_numbers' in kinds
    L.label_bold = label_bold
    fcol = int(rng.integers(0, ncol)) if ncol == 2 else 0
    if 'name_class_top' in kinds and ncol == 2:
        fcol = 0
    if 'name_class_top' in kinds:
        fslot = int(rng.integers(0, 2))
    else:
        fslot = int(rng.integers(1, 5)) if fcol == 0 else int(rng.integers(0, 4))
    header_near = 'header_near' in kinds
    stype_cycle = ['choice', 'fill', 'solve', 'plain']
    st = dict(stype=rng.choice(stype_cycle), k=int(rng.integers(0, 3)), n=n0, pool_i=0)
    problems = []
    # section header at the very start of column 0 when the page has a header
    first_header = L.page_header or rng.random() < 0.3

    def extras_for(stype, is_framed):
        ex = dict(label_bold=label_bold, hang=bool(rng.random() < 0.6), blank_em=float(rng.uniform(3.0, 5.0)))
        if style == 'textbook':
            ex['hang'] = True
        pk = kinds if is_framed else set()
        pr = (lambda k, p: (k in pk) or (not is_framed and rng.random() < p))
        if stype == 'choice':
            if pr('options', 0.8) or (is_framed and rng.random() < 0.25):
                ex['options'] = make_options(subj, rng)
                ex['opt_fmt'] = rng.choice(['{}. ', '{}．', '{}、', '({}) '])
            if lang == 'zh' and (pr('answer_bracket', 0.8) or (is_framed and rng.random() < 0.3)):
                ex['bracket'] = rng.choice(['（　　）', '（　　）', '(　　)', '【　　】'])
            elif pr('answer_bracket', 0.3):
                ex['bracket'] = '(　　)'
        elif stype == 'fill':
            if '__' not in ex.get('qtext', '') and pr('fill_blank', 0.6):
                ex['fill_blank'] = True
                ex['fill_dot'] = False
        elif stype == 'solve':
            if pr('answer_line', 0.4):
                ex['answer_line'] = rng.choice(['答：', '解：', 'Answer:', 'Ans:']) if lang == 'en' else rng.choice(['答：', '解：'])
            ex['work'] = float(rng.uniform(1.5, 5.0)) if rng.random() < 0.5 else 0.0
        if 'answer_bracket' in pk and 'bracket' not in ex:
            ex['bracket'] = '（　　）' if lang == 'zh' else '(　　)'
        if 'options' in pk and 'options' not in ex:
            ex['options'] = make_options(subj, rng)
            ex['opt_fmt'] = rng.choice(['{}. ', '{}．'])
        if 'answer_line' in pk and 'answer_line' not in ex:
            ex['answer_line'] = '答：' if lang == 'zh' else 'Answer:'
        if pr('score_note', 0.25):
            ex['note'] = score_note(lang, rng)
            ex['note_pos'] = rng.choice(['prefix', 'inline', 'right']) if lang == 'zh' else rng.choice(['inline', 'right'])
        return ex

    def add_header(x, y, text):
        hem = em * rng.uniform(1.0, 1.12)
        o, _ = ts.text_ops(text, x, y + hem * 0.95, hem, ink, bold=bool(rng.random() < 0.7))
        b = union([op_bbox(q) for q in o])
        return o, b, hem * 1.9

    framed_block = None
    for c in range(ncol):
        x = mx + c * (colw + colgap)
        y = col_top
        k = 0
        while True:
            is_f = (c == fcol and k == fslot)
            hdr = None
            if is_f and header_near:
                want_h = True
            elif c == 0 and k == 0 and first_header:
                want_h = True
            elif (not is_f) and k > 0 and rng.random() < 0.1:
                want_h = True
            else:
                want_h = False
            if want_h:
                if not (c == 0 and k == 0):
                    st['stype'] = stype_cycle[(stype_cycle.index(st['stype']) + 1) % 4]
                    st['k'] += 1
                hdr = section_title(lang, st['stype'], st['k'], rng)
            if is_f:
                P = F
            else:
                if st['pool_i'] >= len(pool):
                    break
                P = pool[st['pool_i']]
                st['pool_i'] += 1
            hops, hbox, hh = ([], None, 0)
            if hdr:
                hops, hbox, hh = add_header(x, y, hdr)
            ex = extras_for(st['stype'], is_f)
            if '__' in P['question']:
                ex.pop('fill_blank', None)
            ex['qtext_render'] = P['question']
            label = num_label(L.num_style, st['n'])
            blk = build_problem(ts, P['question'], label, colw, em, ls, ex, lang)
            bh = blk['box'][3]
            y_p = y + hh
            if y_p + bh > bottom:
                if is_f:
                    return None
                break
            if hdr:
                ops += hops
                headers.append(dict(text=hdr, box=hbox, kind='section', before=P['id'] if is_f else None))
            ops += shift_ops(blk['ops'], x, y_p)
            pb = dict(id=P['id'], label=label, col=c, framed=is_f, box=sbox(blk['box'], x, y_p),
                      label_box=sbox(blk['label_box'], x, y_p), nlines=blk['nlines'],
                      text_end=(blk['text_end'][0] + x, blk['text_end'][1] + y_p), ex=ex,
                      header_before=bool(hdr))
            problems.append(pb)
            if is_f:
                framed_block = pb
            st['n'] += 1
            k += 1
            y = y_p + bh + em * gap_em + ex.get('work', 0.0) * em
        if c == fcol and framed_block is None:
            return None
    if framed_block is None:
        return None
    L.ops, L.headers, L.problems, L.framed = ops, headers, problems, framed_block
    L.mx, L.col_top, L.bottom = mx, col_top, bottom
    L.ink = ink
    return L


# ----------------------------------------------------------------------------
# pen marks (drawn on the page)
# ----------------------------------------------------------------------------
def overlaps(b, boxes, pad=0):
    for o in boxes:
        if b[0] < o[2] + pad and b[2] > o[0] - pad and b[1] < o[3] + pad and b[3] > o[1] - pad:
            return True
    return False


def hand_stroke(rng, pts, n=24, wob=0.0):
    pts = np.asarray(pts, float)
    out = []
    for i in range(len(pts) - 1):
        for t in np.linspace(0, 1, n, endpoint=False):
            out.append(pts[i] * (1 - t) + pts[i + 1] * t)
    out.append(pts[-1])
    out = np.array(out)
    if wob:
        k = len(out)
        noise = np.cumsum(rng.normal(0, wob, (k, 2)), axis=0)
        noise -= np.linspace(0, 1, k)[:, None] * noise[-1]
        out += noise
    return out


def draw_stroke(draw, pts, w0, w1, color):
    k = len(pts)
    for i in range(k - 1):
        w = w0 + (w1 - w0) * i / max(1, k - 2)
        draw.line([tuple(pts[i]), tuple(pts[i + 1])], fill=color, width=max(1, int(round(w))))
        r = w / 2
        draw.ellipse([pts[i + 1][0] - r, pts[i + 1][1] - r, pts[i + 1][0] + r, pts[i + 1][1] + r], fill=color)


def add_pen_marks(rng, L, page, occupied):
    """Draw marks near the framed problem (and some on neighbours). Returns list of mark kinds."""
    draw = ImageDraw.Draw(page)
    em = L.em
    marks = []
    red = (int(rng.integers(185, 225)), int(rng.integers(20, 55)), int(rng.integers(30, 60)))
    blue = (int(rng.integers(20, 50)), int(rng.integers(40, 70)), int(rng.integers(130, 175)))
    w = max(3.0, em / 9)

    def place(cands):
        for b in cands:
            if b[0] < 5 or b[1] < 5 or b[2] > L.pw - 5 or b[3] > L.ph - 5:
                continue
            if not overlaps(b, occupied, pad=em * 0.15):
                occupied.append(b)
                return b
        return None

    def mark_for(pb, what, color):
        lb = pb['label_box']
        bx = pb['box']
        if what == 'circle':
            cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2
            rx, ry = (lb[2] - lb[0]) / 2 + em * 0.14, (lb[3] - lb[1]) / 2 + em * 0.32
            a0 = rng.uniform(0, 2 * math.pi)
            sweep = rng.uniform(2.0 * math.pi, 2.25 * math.pi)
            ang = np.linspace(a0, a0 + sweep, 60)
            rad = 1 + np.linspace(0, rng.uniform(-0.12, 0.12), 60)
            pts = np.stack([cx + rx * rad * np.cos(ang), cy + ry * rad * np.sin(ang)], 1)
            pts = hand_stroke(rng, pts, n=2, wob=0.25)
            draw_stroke(draw, pts, w * 0.8, w, color)
            return True
        sz = em * rng.uniform(1.1, 1.6)
        tx, tb = pb['text_end']
        cands = [(tx + em * 0.8, tb - sz, tx + em * 0.8 + sz * 1.1, tb + sz * 0.2),
                 (bx[2] + em * 0.5, bx[1], bx[2] + em * 0.5 + sz * 1.1, bx[1] + sz * 1.2),
                 (bx[0] - em * 0.4 - sz * 1.1, bx[1], bx[0] - em * 0.4, bx[1] + sz * 1.2),
                 (bx[0] - em * 0.4 - sz * 1.1, bx[1] - sz, bx[0] - em * 0.4, bx[1] + sz * 0.2),
                 (bx[2] - sz * 1.2, bx[3] + em * 0.2, bx[2], bx[3] + em * 0.2 + sz * 1.1),
                 (bx[2] - sz * 3, bx[1] - sz * 1.15, bx[2] - sz * 1.9, bx[1] - em * 0.1)]
        if what == 'score':
            txt = str(rng.choice(['-2', '-3', '+2', '8', '10', '5分', '6', '-1', '4/5']))
            fp = HAND_FONTS[int(rng.integers(0, len(HAND_FONTS)))]
            fs = int(sz * 0.95)
            font = get_font(fp, fs)
            bb = font.getbbox(txt)
            tw, th = bb[2] - bb[0] + 8, bb[3] - bb[1] + 8
            ring = rng.random() < 0.4
            pd = 0.3 * max(tw, th) if ring else 0.0
            cands2 = [(c[0], c[1], c[0] + tw + 2 * pd, c[1] + th + 2 * pd) for c in cands]
            b = place(cands2)
            if b is None:
                return False
            b = (b[0] + pd, b[1] + pd, b[2] - pd, b[3] - pd)
            tmp = Image.new('L', (int(tw + 20), int(th + 20)), 0)
            ImageDraw.Draw(tmp).text((10 - bb[0] + 4, 10 - bb[1] + 4), txt, font=font, fill=255)
            tmp = tmp.rotate(float(rng.uniform(-12, 12)), resample=Image.BICUBIC)
            col = Image.new('RGB', tmp.size, color)
            page.paste(col, (int(b[0] - 10), int(b[1] - 10)), tmp)
            if ring:
                cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
                ang = np.linspace(0, 2 * math.pi * 1.05, 50) + rng.uniform(0, 6)
                pts = np.stack([cx + (tw / 2 + pd * 0.8) * np.cos(ang), cy + (th / 2 + pd * 0.8) * np.sin(ang)], 1)
                draw_stroke(draw, hand_stroke(rng, pts, 2, 0.3), w * 0.6, w * 0.8, color)
            return True
        b = place(cands)
        if b is None:
            return False
        x0, y0, x1, y1 = b
        if what == 'tick':
            pts = [(x0, y0 + (y1 - y0) * 0.55), (x0 + (x1 - x0) * 0.35, y1), (x1, y0)]
            draw_stroke(draw, hand_stroke(rng, pts, 14, 0.35), w * 0.7, w * 1.1, color)
        else:
            draw_stroke(draw, hand_stroke(rng, [(x0, y0), (x1, y1)], 20, 0.3), w, w * 0.8, color)
            draw_stroke(draw, hand_stroke(rng, [(x1, y0), (x0, y1)], 20, 0.3), w, w * 0.8, color)
        return True

    F = L.framed
    choices = ['circle', 'tick', 'cross', 'score']
    first = choices[int(rng.integers(0, 4))]
    todo = [first]
    if rng.random() < 0.5:
        todo.append(choices[int(rng.integers(0, 4))])
    for what in todo:
        color = red if (what in ('score', 'cross') or rng.random() < 0.6) else blue
        if mark_for(F, what, color):
            marks.append({'circle': 'pen_circle_number', 'tick': 'pen_tick', 'cross': 'pen_cross',
                          'score': 'teacher_score'}[what])
    for pb in L.problems:
        if pb['framed'] or rng.random() > 0.35:
            continue
        what = choices[int(rng.integers(0, 4))]
        mark_for(pb, what, red if rng.random() < 0.7 else blue)
    return sorted(set(marks))


def render_page(L, paper):
    page = Image.new('RGB', (L.pw, L.ph), paper)
    draw = ImageDraw.Draw(page)
    for op in L.ops:
        if op[0] == 'r':
            draw.rectangle(op[1:5], fill=op[5])
    for op in L.ops:
        if op[0] == 't':
            _, x, y, t, p, sz, c = op
            draw.text((x, y), t, font=get_font(p, sz), fill=c, anchor='ls')
        elif op[0] == 'l':
            _, x0, y0, x1, y1, th, c = op
            draw.line([(x0, y0), (x1, y1)], fill=c, width=int(th))
    return page


# ----------------------------------------------------------------------------
# camera geometry
# ----------------------------------------------------------------------------
class Camera:
    def __init__(self, Hm, curl, W, H):
        self.Hm = Hm
        self.Hinv = np.linalg.inv(Hm)
        self.curl = curl
        self.W, self.H = W, H

    def curl_disp(self, x, y):
        c = self.curl
        if c is None:
            return 0.0 * x, 0.0 * y, None
        if c['mode'] == 'bow':
            u = (x - c['xm']) / c['half']
            return 0.0 * x, c['A'] * u * u, np.clip(np.abs(u), 0, 1)
        # edge lift
        if c['axis'] == 'x':
            t = np.clip((x - c['x0']) / c['len'] * c['dir'], 0, 1)
            return -c['dir'] * c['B'] * t ** 2.5, c['A'] * t ** 2.2, t
        t = np.clip((y - c['x0']) / c['len'] * c['dir'], 0, 1)
        return c['A'] * t ** 2.2, -c['dir'] * c['B'] * t ** 2.5, t

    def fwd(self, pts):
        pts = np.asarray(pts, float)
        q = pts.copy()
        if self.curl is not None:
            for _ in range(6):
                dx, dy, _t = self.curl_disp(q[:, 0], q[:, 1])
                q = pts - np.stack([dx, dy], 1)
        h = np.c_[q, np.ones(len(q))] @ self.Hm.T
        return h[:, :2] / h[:, 2:3]

    def fwd_box(self, b):
        xs = np.linspace(b[0], b[2], 9)
        ys = np.linspace(b[1], b[3], 9)
        pts = np.concatenate([np.stack([xs, np.full(9, b[1])], 1), np.stack([xs, np.full(9, b[3])], 1),
                              np.stack([np.full(9, b[0]), ys], 1), np.stack([np.full(9, b[2]), ys], 1)])
        p = self.fwd(pts)
        quad = self.fwd([(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])])
        return (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max())), quad

    def inv_maps(self):
        W, H = self.W, self.H
        u, v = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
        Hi = self.Hinv
        den = Hi[2, 0] * u + Hi[2, 1] * v + Hi[2, 2]
        qx = (Hi[0, 0] * u + Hi[0, 1] * v + Hi[0, 2]) / den
        qy = (Hi[1, 0] * u + Hi[1, 1] * v + Hi[1, 2]) / den
        dx, dy, t = self.curl_disp(qx, qy)
        return qx + dx, qy + dy, t


def make_H(cx, cy, s, theta, pitch, yaw, f, W, H, du, dv):
    A = np.array([[s, 0, -s * cx], [0, s, -s * cy], [0, 0, 1.0]])
    t = math.radians(theta)
    Rr = np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1.0]])
    a, b = math.radians(pitch), math.radians(yaw)
    Rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    Ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    R = Ry @ Rx
    M = np.column_stack([R[:, 0], R[:, 1], [0, 0, f]])
    K = np.array([[f, 0, W / 2 + du], [0, f, H / 2 + dv], [0, 0, 1.0]])
    return K @ M @ Rr @ A


def clip_box(b, W, H):
    x0, y0, x1, y1 = max(0, b[0]), max(0, b[1]), min(W, b[2]), min(H, b[3])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    return (x0, y0, x1, y1)


def centre(b):
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def check_framing(cam, L, W, H):
    """Returns (ok, info) for the framing rule."""
    fb, fquad = cam.fwd_box(L.framed['box'])
    m = 0.025 * min(W, H)
    if fb[0] < m or fb[1] < m or fb[2] > W - m or fb[3] > H - m:
        return False, None
    c = (W / 2, H / 2)
    fc = centre(fb)
    d0 = math.hypot(fc[0] - c[0], fc[1] - c[1])
    if d0 > 0.05 * H:
        return False, None
    nbs = []
    min_ratio = 1e9
    min_margin = 1e9
    for pb in L.problems:
        if pb['framed']:
            continue
        b, quad = cam.fwd_box(pb['box'])
        cb = clip_box(b, W, H)
        if cb is None:
            continue
        for cc in (centre(b), centre(cb)):
            d = math.hypot(cc[0] - c[0], cc[1] - c[1])
            min_ratio = min(min_ratio, d / max(d0, 1e-6))
            min_margin = min(min_margin, (d - d0) / H)
        nbs.append((pb, b, cb))
    if min_ratio < 1.6 or min_margin < 0.09:
        return False, None
    if not nbs:
        return False, None
    return True, dict(fbox=fb, fquad=fquad, d0=d0, nbs=nbs, min_ratio=min_ratio, min_margin=min_margin)


def choose_camera(rng, L, plan, W, H):
    kinds = plan['kinds']
    theta = rng.uniform(2.0, 6.0) * rng.choice([-1, 1]) if 'rotation' in kinds else rng.uniform(-1.5, 1.5)
    if 'perspective' in kinds:
        pitch, yaw = rng.uniform(4, 12) * rng.choice([-1, 1]), rng.uniform(-9, 9)
    else:
        pitch, yaw = rng.uniform(-2.5, 2.5), rng.uniform(-2, 2)
    if 'moire' in kinds:
        pitch, yaw = pitch * 0.6, yaw * 0.6
    f = rng.uniform(0.95, 1.35) * max(W, H)
    du, dv = rng.uniform(-0.03, 0.03) * W, rng.uniform(-0.025, 0.025) * H
    base = min(W, H) / 960.0
    close = rng.random() < 0.45
    if L.print_size == 'small':
        emp = rng.uniform(16, 20)
    elif L.print_size == 'large':
        emp = rng.uniform(34, 44)
    else:
        emp = rng.uniform(23, 34)
    emp *= base
    fbw = L.framed['box'][2] - L.framed['box'][0]
    if close and L.print_size != 'small':
        # a close shot: the framed problem fills a good part of the width
        emp = max(emp, min(46 * base, rng.uniform(0.5, 0.78) * W / fbw * L.em))
    curl = None
    if 'page_curl' in kinds:
        if rng.random() < 0.5:
            curl = dict(mode='bow', xm=L.pw / 2 + rng.uniform(-0.2, 0.2) * L.pw, half=L.pw / 2,
                        A=rng.uniform(25, 60) * rng.choice([-1, 1]))
        else:
            axis = 'x' if rng.random() < 0.7 else 'y'
            ext = L.pw if axis == 'x' else L.ph
            d = int(rng.choice([-1, 1]))
            x0 = ext * (rng.uniform(0.55, 0.7) if d == 1 else rng.uniform(0.3, 0.45))
            ln = (ext - x0) if d == 1 else x0
            curl = dict(mode='edge', axis=axis, dir=d, x0=x0, len=ln, A=rng.uniform(30, 80), B=rng.uniform(20, 60))
    cx, cy = centre(L.framed['box'])
    s0 = emp / L.em
    best = None
    for k in (1.0, 1.12, 1.25, 1.4, 1.6, 1.8, 0.9, 0.8, 0.7, 0.6, 0.52):
        s = s0 * k
        if L.em * s < 13.0 * base * (0.95 if L.print_size == 'small' else 1.0):
            continue
        if L.em * s > 48 * base:
            continue
        Hm = make_H(cx, cy, s, theta, pitch, yaw, f, W, H, du, dv)
        cam = Camera(Hm, curl, W, H)
        ok, info = check_framing(cam, L, W, H)
        if ok:
            best = (cam, info, dict(s=s, theta=theta, pitch=pitch, yaw=yaw, f=f, du=du, dv=dv, curl=curl,
                                       close=bool(close and L.print_size != 'small')))
            break
    return best


# ----------------------------------------------------------------------------
# photo synthesis
# ----------------------------------------------------------------------------
def lowfreq(rng, W, H, cells, amp):
    g = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC) * amp


def desk_bg(rng, W, H):
    kind = int(rng.integers(0, 5))
    cols = [(150, 108, 72), (196, 162, 120), (118, 118, 124), (222, 220, 212), (62, 64, 70)]
    base = np.array(cols[kind], np.float32) * rng.uniform(0.85, 1.1)
    img = np.ones((H, W, 3), np.float32) * base
    img *= (1 + lowfreq(rng, W, H, (6, 5), 0.06))[..., None]
    if kind in (0, 1):
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        warp = lowfreq(rng, W, H, (4, 4), 25.0)
        grain = np.sin((xx * math.cos(ang) + yy * math.sin(ang) + warp) / rng.uniform(6, 14))
        img *= (1 + 0.07 * grain)[..., None]
    return img


def finger_layer(rng, W, H, fbox, kind):
    """Returns (rgb float, alpha float) or None."""
    mn = min(W, H)
    for _ in range(40):
        edge = rng.choice(['bottom', 'left', 'right', 'top', 'bottom'])
        if kind == 'finger':
            wd = rng.uniform(0.09, 0.14) * mn
        else:
            wd = rng.uniform(0.022, 0.034) * mn
        if edge == 'bottom':
            band = (fbox[3] + 12, H)
            if band[1] - band[0] < 0.07 * H:
                continue
            tip = (rng.uniform(0.1, 0.9) * W, rng.uniform(band[0] + wd * 0.6, max(band[0] + wd * 0.6 + 1, H - 0.04 * H)))
            ang = math.radians(90 + rng.uniform(-35, 35))
        elif edge == 'top':
            band = (0, fbox[1] - 12)
            if band[1] < 0.07 * H:
                continue
            tip = (rng.uniform(0.1, 0.9) * W, rng.uniform(0.04 * H, max(0.04 * H + 1, band[1] - wd * 0.6)))
            ang = math.radians(-90 + rng.uniform(-35, 35))
        elif edge == 'left':
            band = (0, fbox[0] - 12)
            if band[1] < 0.06 * W:
                tip = (rng.uniform(0.03, 0.12) * W, rng.uniform(0.05, 0.95) * H)
            else:
                tip = (rng.uniform(0.03 * W, max(0.03 * W + 1, band[1] - wd * 0.6)), rng.uniform(0.1, 0.9) * H)
            ang = math.radians(180 + rng.uniform(-30, 30))
        else:
            band = (fbox[2] + 12, W)
            if band[1] - band[0] < 0.06 * W:
                tip = (rng.uniform(0.88, 0.97) * W, rng.uniform(0.05, 0.95) * H)
            else:
                tip = (rng.uniform(band[0] + wd * 0.6, max(band[0] + wd * 0.6 + 1, 0.97 * W)), rng.uniform(0.1, 0.9) * H)
            ang = math.radians(rng.uniform(-30, 30))
        d = np.array([math.cos(ang), math.sin(ang)])   # from tip outwards
        far = np.array(tip) + d * 3 * max(W, H)
        mask = np.zeros((H, W), np.uint8)
        cv2.line(mask, (int(tip[0]), int(tip[1])), (int(far[0]), int(far[1])), 255, int(wd))
        cv2.circle(mask, (int(tip[0]), int(tip[1])), int(wd / 2), 255, -1)
        pad = 14
        x0, y0 = max(0, int(fbox[0]) - pad), max(0, int(fbox[1]) - pad)
        x1, y1 = min(W, int(fbox[2]) + pad), min(H, int(fbox[3]) + pad)
        sh_off = (int(wd * 0.25), int(wd * 0.3))
        if mask[y0:y1, x0:x1].any():
            continue
        sx0, sy0 = max(0, x0 - sh_off[0] - 20), max(0, y0 - sh_off[1] - 20)
        if mask[sy0:y1, sx0:x1].any():
            continue
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        rx, ry = xx - tip[0], yy - tip[1]
        perp = (rx * (-d[1]) + ry * d[0]) / (wd / 2)
        along = rx * d[0] + ry * d[1]
        perp = np.clip(perp, -1, 1)
        shade = 0.62 + 0.38 * np.sqrt(1 - perp ** 2)
        if kind == 'finger':
            skin = np.array(rng.choice([[224, 172, 140], [205, 150, 118], [236, 190, 160], [170, 118, 88]]), np.float32)
            rgb = skin[None, None, :] * shade[..., None]
            rgb *= (1 + 0.05 * np.sin(along / (wd * 0.9)))[..., None]
            nail = np.zeros((H, W), np.uint8)
            nc = np.array(tip) + d * wd * 0.45
            cv2.ellipse(nail, (int(nc[0]), int(nc[1])), (int(wd * 0.42), int(wd * 0.32)),
                        math.degrees(ang), 0, 360, 255, -1)
            nm = (nail > 0)[..., None]
            rgb = np.where(nm, rgb * 0.55 + np.array([250, 215, 205], np.float32) * 0.45 * shade[..., None], rgb)
            blur = rng.uniform(2.5, 5.0) * mn / 960
        else:
            body = np.array(rng.choice([[30, 50, 150], [25, 25, 30], [190, 30, 35], [235, 235, 235]]), np.float32)
            shine = np.exp(-((perp + 0.35) ** 2) / 0.03)
            rgb = body[None, None, :] * shade[..., None] + 120 * shine[..., None]
            tipm = (along < wd * 2.2)[..., None]
            metal = np.array([150, 150, 155], np.float32)[None, None, :] * shade[..., None] + 80 * shine[..., None]
            rgb = np.where(tipm, metal, rgb)
            # cone tip: narrow the mask near the tip
            cone = (np.abs(perp) * (wd / 2) <= np.maximum(wd * 0.08, along / (wd * 2.2) * wd / 2)) | (along >= wd * 2.2)
            mask = (mask > 0) & cone
            mask = mask.astype(np.uint8) * 255
            blur = rng.uniform(1.0, 2.5) * mn / 960
        alpha = mask.astype(np.float32) / 255.0
        alpha = cv2.GaussianBlur(alpha, (0, 0), blur)
        rgb = cv2.GaussianBlur(np.clip(rgb, 0, 255).astype(np.float32), (0, 0), blur)
        if alpha[y0:y1, x0:x1].max() > 0.02:
            continue
        shadow = cv2.GaussianBlur(np.roll(np.roll(alpha, sh_off[1], 0), sh_off[0], 1), (0, 0), wd * 0.35)
        if shadow[y0:y1, x0:x1].max() > 0.15:
            continue
        return rgb, alpha, shadow, edge
    return None


def synth_photo(rng, plan, L, cam, info, camp):
    W, H = plan['size']
    kinds = set(plan['kinds'])
    done = set()
    moire = 'moire' in kinds
    paper = (255, 255, 255) if moire else tuple(int(v) for v in np.array([246, 244, 236]) + rng.integers(-6, 7, 3))
    if L.style == 'textbook' and not moire:
        paper = (250, 249, 245)
    page = render_page(L, paper)
    occupied = [op_bbox(o) for o in L.ops if o[0] in ('t', 'l')]
    marks = []
    if 'pen_marks' in kinds:
        marks = add_pen_marks(rng, L, page, occupied)
        done.update(marks)
    # pre-downscale the page
    s = camp['s']
    r = min(1.0, s * 1.3)
    pg = np.asarray(page)
    if r < 0.999:
        pg = cv2.resize(pg, (max(1, int(round(L.pw * r))), max(1, int(round(L.ph * r)))), interpolation=cv2.INTER_AREA)
    rx_, ry_ = pg.shape[1] / L.pw, pg.shape[0] / L.ph
    px, py, curl_t = cam.inv_maps()
    mapx = ((px + 0.5) * rx_ - 0.5).astype(np.float32)
    mapy = ((py + 0.5) * ry_ - 0.5).astype(np.float32)
    img = cv2.remap(pg, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    edge_d = np.minimum(np.minimum(px, L.pw - px), np.minimum(py, L.ph - py)) * s
    alpha = np.clip(edge_d + 0.5, 0, 1).astype(np.float32)
    # paper texture
    if not moire:
        img *= (1 + lowfreq(rng, W, H, (8, 6), 0.012) + lowfreq(rng, W, H, (W // 6, H // 6), 0.01))[..., None]
    if curl_t is not None:
        sh = 1 - rng.uniform(0.08, 0.2) * np.clip(curl_t, 0, 1) ** 2
        img *= sh[..., None].astype(np.float32)
        done.add('page_curl')
    # background
    if moire:
        bg = np.ones((H, W, 3), np.float32) * np.array([18, 18, 22], np.float32)
    else:
        bg = desk_bg(rng, W, H)
        shadow = cv2.GaussianBlur(np.roll(np.roll(alpha, int(0.006 * W), 1), int(0.008 * H), 0), (0, 0), 0.01 * W)
        bg *= (1 - 0.35 * shadow)[..., None]
    if alpha.min() < 0.99:
        done.add('page_edge_visible' if not moire else 'screen_edge_visible')
    img = img * alpha[..., None] + bg * (1 - alpha[..., None])
    if moire:
        T = (1.0 / s) * rng.uniform(0.88, 1.12)
        ph_ = [0.0, 1 / 3, 2 / 3]
        amp = rng.uniform(0.12, 0.22)
        gy = 0.5 + 0.5 * np.cos(2 * math.pi * py / T)
        for ch in range(3):
            gx = 0.5 + 0.5 * np.cos(2 * math.pi * (px / T + ph_[ch]))
            img[..., ch] *= (1 - amp + amp * (0.5 * gx + 0.5 * gy)).astype(np.float32)
        img = img * 0.86 + 18
        img[..., 2] *= 1.04
        img[..., 0] *= 0.97
        glare = lowfreq(rng, W, H, (3, 3), 1.0)
        img += np.clip(glare, 0, None)[..., None] * rng.uniform(10, 25)
        done.add('moire')
    # occluder
    occ_box = None
    occ = None
    for okind in ('finger', 'pen_occluder'):
        if okind in kinds:
            occ = finger_layer(rng, W, H, info['fbox'], 'finger' if okind == 'finger' else 'pen')
            if occ is not None:
                rgb, oa, osh, edge = occ
                img *= (1 - 0.4 * osh)[..., None]
                img = img * (1 - oa[..., None]) + rgb * oa[..., None]
                done.add(okind)
                ys, xs = np.nonzero(oa > 0.3)
                if len(xs):
                    occ_box = (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max()))
                occ = oa
    # lighting
    yy = (np.arange(H, dtype=np.float32)[:, None] / H - 0.5)
    xx = (np.arange(W, dtype=np.float32)[None, :] / W - 0.5)
    rr = xx ** 2 + yy ** 2
    light = 1 - rng.uniform(0.05, 0.15) * rr * 2
    if 'uneven_light' in kinds:
        phi = rng.uniform(0, 2 * math.pi)
        g = rng.uniform(0.15, 0.32)
        light = light + g * (xx * math.cos(phi) + yy * math.sin(phi)) * 2 * 0.5
        light = light - rng.uniform(0.05, 0.15) * rr * 2
        if rng.random() < 0.5:
            bx, by = rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4)
            light = light + rng.uniform(0.06, 0.14) * np.exp(-((xx - bx) ** 2 + (yy - by) ** 2) / 0.05)
        done.add('uneven_light')
    light = np.broadcast_to(light, (H, W)).astype(np.float32)
    if 'shadow' in kinds:
        m = np.zeros((H // 4, W // 4), np.float32)
        cxs, cys = rng.choice([-0.1, 1.1]) * W / 4, rng.uniform(-0.1, 1.1) * H / 4
        ax_, ay_ = rng.uniform(0.4, 0.8) * W / 4, rng.uniform(0.4, 0.9) * H / 4
        cv2.ellipse(m, (int(cxs), int(cys)), (int(ax_), int(ay_)), float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(0.02, 0.05) * W / 4)
        m = cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR)
        light = light * (1 - rng.uniform(0.22, 0.42) * m)
        done.add('shadow')
    img *= light[..., None]
    cast = np.array([1 + rng.uniform(-0.05, 0.06), 1.0, 1 + rng.uniform(-0.07, 0.04)], np.float32)
    img *= cast
    # blur
    mn = min(W, H) / 960
    if 'motion_blur' in kinds:
        ln = max(1, int(round(rng.uniform(1.0, 2.2) * mn)))
        k = np.zeros((ln * 2 + 1, ln * 2 + 1), np.float32)
        a = rng.uniform(0, math.pi)
        cv2.line(k, (int(ln - ln * math.cos(a)), int(ln - ln * math.sin(a))),
                 (int(ln + ln * math.cos(a)), int(ln + ln * math.sin(a))), 1.0, 1)
        img = cv2.filter2D(img, -1, k / k.sum())
        done.add('motion_blur')
    elif 'blur' in kinds:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.9, 1.5) * mn)
        done.add('blur')
    else:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.35, 0.7) * mn)
    # phone sharpening
    bl = cv2.GaussianBlur(img, (0, 0), 1.3 * mn)
    img = img + rng.uniform(0.2, 0.5) * (img - bl)
    # sensor noise
    sig = rng.uniform(1.5, 4.5)
    img += rng.standard_normal((H, W, 1), dtype=np.float32) * sig
    img += rng.standard_normal((H, W, 3), dtype=np.float32) * (sig * 0.4)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if 'jpeg_noise' in kinds:
        q = int(rng.integers(38, 58))
        done.add('jpeg_noise')
    else:
        q = int(rng.integers(72, 94))
    return img, q, done, occ, occ_box


# ----------------------------------------------------------------------------
# one photo
# ----------------------------------------------------------------------------
def make_one(args):
    idx, plan, bank = args
    bank_by_id = {b['id']: b for b in bank}
    rng = np.random.default_rng([SEED, idx + 1])
    W, H = plan['size']
    gap_mult = 1.0
    got = None
    for attempt in range(30):
        L = make_layout(rng, plan, bank_by_id, bank, gap_mult)
        if L is None:
            continue
        res = choose_camera(rng, L, plan, W, H)
        if res is not None:
            got = (L, res)
            break
        if attempt % 3 == 2:
            gap_mult *= 1.25
    if got is None:
        raise RuntimeError(f'could not frame {plan["qid"]}')
    L, (cam, info, camp) = got
    img, q, done, occ, occ_box = synth_photo(rng, plan, L, cam, info, camp)
    buf = _jpeg_bytes(img, q)
    # meta
    kinds = set(done)
    F = L.framed
    kinds.add(f'font_cjk_{L.cjk}')
    kinds.add(f'font_latin_{L.latin}')
    if L.label_bold:
        kinds.add('bold_numbers')
    kinds.add(f'print_{L.print_size}')
    kinds.add(f'spacing_{L.spacing}')
    kinds.add(f'page_{L.style}')
    kinds.add(f'numbering_{L.num_style}')
    kinds.add(f'lang_page_{L.lang}')
    if L.ncol == 2:
        kinds.add('two_column')
        kinds.add('framed_left_column' if F['col'] == 0 else 'framed_right_column')
    if F['header_before']:
        kinds.add('header_near')
    fq = F and bank_by_id[plan['bank_id']]['question']
    if '__' in fq:
        kinds.add('blank_underline')
    if has_supsub(fq):
        kinds.add('sup_sub')
    if F['nlines'] >= 2:
        kinds.add('long_wrap')
    ex = F['ex']
    if ex.get('options'):
        kinds.add('options')
    if ex.get('bracket'):
        kinds.add('answer_bracket')
    if ex.get('note'):
        kinds.add('score_note')
    if ex.get('answer_line'):
        kinds.add('answer_line')
    if ex.get('fill_blank'):
        kinds.add('fill_blank_added')
    if camp['close']:
        kinds.add('close_shot')
    if abs(camp['theta']) >= 2:
        kinds.add('rotation')
    if max(abs(camp['pitch']), abs(camp['yaw'])) >= 4:
        kinds.add('perspective')
    nbs = []
    fcen = centre(info['fbox'])
    above = below = side = 0
    for pb, b, cb in info['nbs']:
        complete = (b[0] >= 0 and b[1] >= 0 and b[2] <= W and b[3] <= H)
        c = centre(b)
        if pb['col'] != F['col']:
            pos = 'other_column'
            side += 1
        elif c[1] < fcen[1]:
            pos = 'above'
            above += 1
        else:
            pos = 'below'
            below += 1
        occluded = False
        if occ is not None:
            x0, y0 = int(max(0, cb[0])), int(max(0, cb[1]))
            x1, y1 = int(min(W, cb[2])), int(min(H, cb[3]))
            occluded = bool(occ[y0:y1, x0:x1].max() > 0.3) if x1 > x0 and y1 > y0 else False
        nbs.append(dict(id=pb['id'], label=pb['label'], position=pos, box=[round(v, 1) for v in b],
                        complete=bool(complete), occluded=occluded))
        kinds.add(f'neighbour_{pos}_' + ('complete' if complete else 'cut'))
    hdr_vis = []
    for h in L.headers:
        b, _ = cam.fwd_box(h['box'])
        if clip_box(b, W, H):
            hdr_vis.append(dict(kind=h['kind'], text=h['text'], box=[round(v, 1) for v in b]))
            if h['kind'] == 'name_class':
                kinds.add('name_class_line')
            if h['kind'] in ('title', 'subtitle'):
                kinds.add('page_title')
            if h['kind'] == 'section':
                kinds.add('section_title')
    kinds.add(f'size_{W}x{H}')
    meta = dict(qid=plan['qid'], bank_id=plan['bank_id'], kinds=sorted(kinds), size=[W, H],
                rotation_deg=round(camp['theta'], 2),
                perspective=dict(pitch_deg=round(camp['pitch'], 2), yaw_deg=round(camp['yaw'], 2),
                                 focal_px=round(camp['f'], 1)),
                framed_box=[round(v, 1) for v in info['fbox']],
                framed_quad=[[round(float(x), 1), round(float(y), 1)] for x, y in info['fquad']],
                framed_label=F['label'], framed_lines=F['nlines'],
                framed_centre_offset_px=round(info['d0'], 1),
                nearest_other_ratio=round(min(info['min_ratio'], 99.0), 2),
                nearest_other_margin_frac_h=round(info['min_margin'], 3),
                neighbours=nbs, headers_visible=hdr_vis,
                occluder_box=list(occ_box) if occ_box else None,
                page=dict(style=L.style, format=L.fmt, columns=L.ncol, lang=L.lang, em_px=L.em,
                          line_spacing=round(L.ls, 2), cjk_font=L.cjk, latin_font=L.latin,
                          numbering=L.num_style),
                print_em_photo_px=round(L.em * camp['s'], 1), jpeg_quality=q)
    return plan['qid'], buf, meta


def _jpeg_bytes(img, q):
    import io
    bio = io.BytesIO()
    Image.fromarray(img).save(bio, 'JPEG', quality=q)
    return bio.getvalue()


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True)
    ap.add_argument('--jobs', type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument('out_dir')
    ap.add_argument('qids', nargs='*')
    a = ap.parse_args(argv)
    bank = load_bank(a.bank)
    bank_by_id = {b['id']: b for b in bank}
    plan = make_plan(bank)
    os.makedirs(a.out_dir, exist_ok=True)
    wanted = set(a.qids)
    bad = wanted - {p['qid'] for p in plan}
    if bad:
        ap.error(f'unknown qids: {sorted(bad)}')
    todo = [(i, p, bank) for i, p in enumerate(plan) if not wanted or p['qid'] in wanted]
    t0 = time.time()
    metas = {}
    if a.jobs > 1 and len(todo) > 1:
        ctx = mp.get_context('fork')
        with ctx.Pool(a.jobs) as pool:
            it = pool.imap(make_one, todo, chunksize=1)
            for qid, buf, meta in it:
                with open(os.path.join(a.out_dir, qid + '.jpg'), 'wb') as f:
                    f.write(buf)
                metas[qid] = meta
    else:
        for t in todo:
            qid, buf, meta = make_one(t)
            with open(os.path.join(a.out_dir, qid + '.jpg'), 'wb') as f:
                f.write(buf)
            metas[qid] = meta
    # tables
    truth_p = os.path.join(a.out_dir, 'truth.csv')
    queries_p = os.path.join(a.out_dir, 'queries.csv')
    if not wanted or not os.path.exists(truth_p):
        with open(truth_p, 'w', encoding='utf-8', newline='') as f:
            w = csv.writer(f, lineterminator='\n')
            w.writerow(['qid', 'text'])
            for p in plan:
                w.writerow([p['qid'], bank_by_id[p['bank_id']]['question']])
    if not wanted or not os.path.exists(queries_p):
        with open(queries_p, 'w', encoding='utf-8', newline='') as f:
            w = csv.writer(f, lineterminator='\n')
            w.writerow(['qid', 'query', 'expected_id', 'kind'])
            for p in plan:
                w.writerow([p['qid'], bank_by_id[p['bank_id']]['question'], p['bank_id'], 'exact'])
    meta_p = os.path.join(a.out_dir, 'meta.jsonl')
    if not wanted:
        with open(meta_p, 'w', encoding='utf-8') as f:
            for p in plan:
                f.write(json.dumps(metas[p['qid']], ensure_ascii=False) + '\n')
    else:
        # replace the lines of the remade photos (identical content) or append
        old = {}
        order = [p['qid'] for p in plan]
        if os.path.exists(meta_p):
            with open(meta_p, encoding='utf-8') as f:
                for line in f:
                    if line.strip():
                        m = json.loads(line)
                        old[m['qid']] = line.rstrip('\n')
        for q, m in metas.items():
            old[q] = json.dumps(m, ensure_ascii=False)
        with open(meta_p, 'w', encoding='utf-8') as f:
            for q in order:
                if q in old:
                    f.write(old[q] + '\n')
    dt = time.time() - t0
    print(f'wrote {len(metas)} photo(s) to {a.out_dir} in {dt:.1f}s', file=sys.stderr)


if __name__ == '__main__':
    main()
