#!/usr/bin/env python3
"""Synthetic phone photos of printed school test papers, one framed bank problem per photo.

Usage:
  make_photos.py --bank BANK.jsonl OUTDIR [--count N] [--seed S] [--jobs J]

See README.md in this folder for what is produced and how the framed problem is chosen.
"""

import argparse
import csv
import json
import math
import os
import random
import sys
from functools import lru_cache
from multiprocessing import Pool

import cv2
import numpy as np
from fontTools.ttLib import TTCollection, TTFont
from PIL import Image, ImageDraw, ImageFont

EM_MIN = 31.0          # minimum printed em (font size) in photo px at the framed problem
                       # -> Latin x-height >= ~14 px, CJK glyph height >= ~27 px

# ----------------------------------------------------------------------------------------
# bank

def load_bank(path):
    rows = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            d = json.loads(line)
            rows.append({'id': d['id'], 'subject': d['subject'], 'question': d['question']})
    return rows


def has_cjk(s):
    return any('\u4e00' <= c <= '\u9fff' for c in s)

# ----------------------------------------------------------------------------------------
# fonts

FONT_SPECS = {
    'cjk_sans': ('NotoSansCJK-Regular.ttc', 'Noto Sans CJK SC'),
    'cjk_sans_b': ('NotoSansCJK-Bold.ttc', 'Noto Sans CJK SC'),
    'cjk_serif': ('NotoSerifCJK-Regular.ttc', 'Noto Serif CJK SC'),
    'cjk_serif_b': ('NotoSerifCJK-Bold.ttc', 'Noto Serif CJK SC'),
    'cjk_mono': ('NotoSansCJK-Regular.ttc', 'Noto Sans Mono CJK SC'),
    'lat_serif': ('LiberationSerif-Regular.ttf', None),
    'lat_serif_b': ('LiberationSerif-Bold.ttf', None),
    'lat_serif_i': ('LiberationSerif-Italic.ttf', None),
    'lat_sans': ('LiberationSans-Regular.ttf', None),
    'lat_sans_b': ('LiberationSans-Bold.ttf', None),
    'lat_sans_i': ('LiberationSans-Italic.ttf', None),
    'lat_narrow': ('LiberationSansNarrow-Regular.ttf', None),
    'lat_narrow_b': ('LiberationSansNarrow-Bold.ttf', None),
    'dj_serif': ('DejaVuSerif.ttf', None),
    'dj_serif_b': ('DejaVuSerif-Bold.ttf', None),
    'dj_serif_i': ('DejaVuSerif-Italic.ttf', None),
    'dj_sans': ('DejaVuSans.ttf', None),
    'dj_sans_b': ('DejaVuSans-Bold.ttf', None),
    'dj_sans_o': ('DejaVuSans-Oblique.ttf', None),
    'dj_cond': ('DejaVuSansCondensed.ttf', None),
    'dj_cond_b': ('DejaVuSansCondensed-Bold.ttf', None),
    'dj_serif_c': ('DejaVuSerifCondensed.ttf', None),
    'dj_serif_cb': ('DejaVuSerifCondensed-Bold.ttf', None),
}
BOLD = {'cjk_sans': 'cjk_sans_b', 'cjk_serif': 'cjk_serif_b', 'lat_serif': 'lat_serif_b',
        'lat_sans': 'lat_sans_b', 'lat_narrow': 'lat_narrow_b', 'dj_serif': 'dj_serif_b',
        'dj_sans': 'dj_sans_b', 'dj_cond': 'dj_cond_b', 'dj_serif_c': 'dj_serif_cb', 'cjk_mono': 'cjk_sans_b'}

_FILE_INDEX = None


def _font_file_index():
    global _FILE_INDEX
    if _FILE_INDEX is None:
        idx = {}
        for root, dirs, files in os.walk('/usr/share/fonts'):
            dirs.sort()
            for fn in sorted(files):
                idx.setdefault(fn, os.path.join(root, fn))
        _FILE_INDEX = idx
    return _FILE_INDEX


@lru_cache(None)
def font_loc(key):
    base, fam = FONT_SPECS[key]
    path = _font_file_index().get(base)
    if path is None:
        raise RuntimeError('font file missing: %s' % base)
    index = 0
    if fam:
        coll = TTCollection(path)
        for i, f in enumerate(coll.fonts):
            if f['name'].getDebugName(1) == fam:
                index = i
                break
        else:
            raise RuntimeError('font family %s not in %s' % (fam, path))
    return path, index


@lru_cache(None)
def cmap(key):
    path, index = font_loc(key)
    if path.endswith('.ttc'):
        f = TTFont(path, fontNumber=index, lazy=True)
    else:
        f = TTFont(path, lazy=True)
    return frozenset(f.getBestCmap().keys())


@lru_cache(None)
def xheight_ratio(key):
    path, index = font_loc(key)
    f = TTFont(path, fontNumber=index, lazy=True) if path.endswith('.ttc') else TTFont(path, lazy=True)
    xh = getattr(f['OS/2'], 'sxHeight', 0) or 0.5 * f['head'].unitsPerEm
    return xh / f['head'].unitsPerEm


@lru_cache(None)
def get_font(key, size):
    path, index = font_loc(key)
    return ImageFont.truetype(path, max(4, int(size)), index=index)


def is_cjk_char(ch):
    o = ord(ch)
    return ((0x2E80 <= o <= 0x9FFF) or (0xF900 <= o <= 0xFAFF) or (0xFF00 <= o <= 0xFFEF)
            or (0x3000 <= o <= 0x303F) or o in (0x201C, 0x201D, 0x2018, 0x2019, 0x2103, 0x2026, 0x2014, 0x2605)
            or (0x2460 <= o <= 0x24FF) or (0x3251 <= o <= 0x32BF))


@lru_cache(maxsize=20000)
def text_runs(text, face):
    """face = (cjk_key, lat_key, sym_key). Returns tuple of (substring, fontkey)."""
    cjk, lat, sym = face
    runs = []
    cur = None
    buf = []
    for ch in text:
        if ch == ' ':
            k = cur if cur is not None else lat
        else:
            k = cjk if is_cjk_char(ch) else lat
            if ord(ch) not in cmap(k):
                for alt in (sym, 'dj_sans', cjk, 'cjk_sans'):
                    if ord(ch) in cmap(alt):
                        k = alt
                        break
        if k != cur and buf:
            runs.append((''.join(buf), cur))
            buf = []
        cur = k
        buf.append(ch)
    if buf:
        runs.append((''.join(buf), cur))
    return tuple(runs)


@lru_cache(maxsize=50000)
def text_width(text, face, size):
    return sum(get_font(k, size).getlength(s) for s, k in text_runs(text, face))


def bold_face(face):
    return tuple(BOLD.get(k, k) for k in face)

# ----------------------------------------------------------------------------------------
# text wrapping

NO_START = set('，。、；：？！）》」』”’,.;:?!)]}%…')
NO_END = set('（《「『“‘([{')


def tokenize(text):
    toks = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == ' ':
            toks.append(' ')
            i += 1
        elif is_cjk_char(ch) or ch in NO_START or ch in NO_END:
            toks.append(ch)
            i += 1
        else:
            j = i
            while j < n and text[j] != ' ' and not is_cjk_char(text[j]) and text[j] not in NO_START and text[j] not in NO_END:
                j += 1
            toks.append(text[i:j])
            i = j
    # glue kinsoku characters
    out = []
    for t in toks:
        if out and t != ' ' and t[0] in NO_START and out[-1] != ' ':
            out[-1] += t
        else:
            out.append(t)
    out2 = []
    carry = ''
    for t in out:
        if carry:
            if t == ' ':
                out2.append(carry)
                carry = ''
            else:
                t = carry + t
                carry = ''
        if t != ' ' and t[-1] in NO_END:
            carry = t
            continue
        out2.append(t)
    if carry:
        out2.append(carry)
    return out2


def wrap_text(text, face, size, first_w, cont_w):
    toks = tokenize(text)
    lines = []
    cur = ''
    width = first_w
    for t in toks:
        if t == ' ':
            if cur:
                cur += ' '
            continue
        cand = cur + t
        if text_width(cand.rstrip(), face, size) <= width or not cur.strip():
            if not cur.strip() and text_width(t, face, size) > width:
                # token longer than a whole line: split by characters
                piece = ''
                for ch in t:
                    if piece and text_width(cur + piece + ch, face, size) > width:
                        lines.append((cur + piece).rstrip())
                        cur = ''
                        piece = ''
                        width = cont_w
                    piece += ch
                cur = cur + piece
            else:
                cur = cand
        else:
            lines.append(cur.rstrip())
            width = cont_w
            cur = t
    if cur.strip():
        lines.append(cur.rstrip())
    # sanity: lines must reconstruct text (ignoring break spaces)
    assert ''.join(lines).replace(' ', '') == text.replace(' ', ''), (lines, text)
    return lines

# ----------------------------------------------------------------------------------------
# string pools

SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'english': '英语', 'biology': '生物',
           'geography': '地理', 'history': '历史', 'chinese': '语文'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry', 'english': 'English',
           'biology': 'Biology', 'geography': 'Geography', 'history': 'History', 'chinese': 'Chinese'}
SCHOOLS_ZH = ['明德实验中学', '育才中学', '北辰第二中学', '城南外国语学校', '星海中学', '博雅学校', '东湖实验学校',
              '青云区第一中学', '南山初级中学', '启智双语学校']
PUBL_ZH = ['启明试卷网', '学海文化', '优学教育', '金榜题库', '名师导学', '华夏名校联盟', '青云区教研室']
SCHOOLS_EN = ['Riverside High School', 'Maple Leaf Academy', 'Oakwood School', 'Greenfield Middle School',
              'Northgate College', 'Lakeside International School', 'St. Clare\'s School']
PUBL_EN = ['ExamPro Press', 'BrightPath Education', 'Scholar Test Series', 'Summit Papers', 'Oakwood Exam Board']
GRADES_ZH = ['三年级', '五年级', '六年级', '七年级', '八年级', '九年级', '高一', '高二', '高三']
GRADES_EN = ['Grade 6', 'Grade 7', 'Grade 8', 'Grade 9', 'Year 10', 'Year 11']
CN_NUM = '一二三四五六七八九十'
ROMAN = ['I', 'II', 'III', 'IV', 'V', 'VI']

SEC_ZH = {'choice': ['选择题', '单项选择题'], 'fill': ['填空题'],
          'solve': ['解答题', '计算题', '简答题', '综合题', '实验探究题', '应用题']}
SEC_EN = {'choice': ['Multiple Choice', 'Choose the Best Answer'], 'fill': ['Fill in the Blanks', 'Complete the Answers'],
          'solve': ['Short Answer Questions', 'Problem Solving', 'Calculations', 'Answer the Questions']}

HAND_BRACKET = ['A', 'B', 'C', 'D']
HAND_LINE = ['x=5', 'x=4', '40', '12', 'went', 'goes', 'an', 'since', '3/4', '1.5A', '5', '0.25', 'y=2x+1', '20',
             'a', '8 cm', '100', 'x>4', '24']
TEACHER = ['-2', '-3', '8', '6', '+2', '10', '4', '-1', '7', '12']

ZH_CATS = [['一月', '二月', '三月', '四月', '五月', '六月'], ['甲', '乙', '丙', '丁', '戊'],
           ['周一', '周二', '周三', '周四', '周五'], ['语文', '数学', '英语', '物理', '化学'],
           ['A组', 'B组', 'C组', 'D组', 'E组']]
EN_CATS = [['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun'],
           ['A', 'B', 'C', 'D', 'E'], ['Red', 'Blue', 'Green', 'White'], ['2019', '2020', '2021', '2022', '2023']]


def make_options(q, pyr):
    """Invent options, only for questions that ask to choose. Returns list or None."""
    import re
    m = re.search(r'\(([^()]*/[^()]*)\)\s*$', q)
    if m:
        opts = [s.strip() for s in m.group(1).split('/') if s.strip()]
        extra = {'go': 'going', 'goes': 'gone'}
        for o in list(opts):
            if o in extra and extra[o] not in opts and len(opts) < 4:
                opts.append(extra[o])
        return opts
    m = re.findall(r'"([^"]+)" or "([^"]+)"', q)
    if m and q.startswith('Fill in the blank with'):
        opts = list(m[0])
        for fill in ['the', '/', 'from', 'in', 'at']:
            if len(opts) >= 4:
                break
            if fill not in opts:
                opts.append(fill)
        return opts
    pools = [
        ('organelle', ['nucleus', 'mitochondrion', 'ribosome', 'chloroplast']),
        ('basic unit of structure', ['organ', 'tissue', 'cell', 'organism']),
        ('SI unit of force', ['joule', 'newton', 'watt', 'pascal']),
        ('longest river in the world', ['the Amazon', 'the Nile', 'the Yangtze', 'the Mississippi']),
        ('Columbus', ['1492', '1498', '1519', '1588']),
        ('哪一条', ['长江', '黄河', '珠江', '黑龙江', '淮河']),
        ('省级行政区', ['新疆维吾尔自治区', '西藏自治区', '内蒙古自治区', '澳门特别行政区', '青海省']),
        ('大洋', ['太平洋', '大西洋', '印度洋', '北冰洋']),
        ('大洲', ['亚洲', '非洲', '北美洲', '欧洲', '南极洲']),
        ('高原', ['青藏高原', '内蒙古高原', '黄土高原', '云贵高原']),
        ('哪位皇帝', ['唐太宗', '唐玄宗', '汉武帝', '宋太祖', '唐高宗']),
        ('心脏的哪个腔', ['左心室', '右心室', '左心房', '右心房']),
        ('的作者是谁？', ['李白', '杜甫', '王维', '孟浩然', '朱自清', '鲁迅', '诸葛亮', '白居易']),
        ('场所是哪里', ['叶绿体', '线粒体', '细胞核', '液泡']),
        ('最大的消化腺', ['胃', '肝脏', '胰腺', '唾液腺']),
        ('控制中心', ['细胞膜', '细胞质', '细胞核', '细胞壁']),
        ('主要器官是什么', ['胃', '小肠', '大肠', '食道']),
    ]
    for key, pool in pools:
        if key in q:
            opts = pyr.sample(pool, 4) if len(pool) > 4 else list(pool)
            pyr.shuffle(opts)
            return opts
    if '哪一年' in q and ('秦' in q or '西汉' in q):
        ys = pyr.sample(range(180, 260), 4)
        return ['公元前%d年' % y for y in ys]
    if '哪一年' in q:
        base = pyr.randint(1840, 1950)
        ys = sorted(pyr.sample(range(base - 12, base + 12), 4))
        return ['%d年' % y for y in ys]
    return None

# ----------------------------------------------------------------------------------------
# page layout: everything is a display list of ops in page px


def circled(n):
    if 1 <= n <= 20:
        return chr(0x2460 + n - 1)
    if 21 <= n <= 35:
        return chr(0x3251 + n - 21)
    return '(%d)' % n


def label_text(style, n):
    return {'dot': '%d.' % n, 'fwdot': '%d．' % n, 'dun': '%d、' % n, 'fwparen': '（%d）' % n,
            'paren': '(%d)' % n, 'circ': circled(n), 'di': '第%d题' % n, 'q': 'Q%d' % n,
            'qdot': 'Q%d.' % n, 'rparen': '%d)' % n}[style]


def rect_union(rects):
    xs0 = min(r[0] for r in rects)
    ys0 = min(r[1] for r in rects)
    xs1 = max(r[2] for r in rects)
    ys1 = max(r[3] for r in rects)
    return (xs0, ys0, xs1, ys1)


def rects_hit(a, b, pad=0.0):
    return not (a[2] + pad <= b[0] or b[2] + pad <= a[0] or a[3] + pad <= b[1] or b[3] + pad <= a[1])


class PageBuilder:
    """Builds one printed page (geometry + ops)."""

    def __init__(self, case, bank, pyr, rng, attempt):
        self.case = case
        self.bank = bank
        self.pyr = pyr
        self.rng = rng
        self.attempt = attempt
        self.ops = []

    # ---------------- primitives
    def T(self, x, y, text, face, size, color, align='l'):
        if align != 'l':
            w = text_width(text, face, int(size))
            x = x - (w if align == 'r' else w / 2.0)
        self.ops.append(('text', x, y, text, face, int(size), color))
        return text_width(text, face, int(size))

    def L(self, pts, width, color):
        self.ops.append(('line', [tuple(p) for p in pts], width, color))

    def R(self, box, outline, width, fill=None):
        self.ops.append(('rect', tuple(box), outline, width, fill))

    def dashed(self, p0, p1, dash, gap, width, color, skips=()):
        (x0, y0), (x1, y1) = p0, p1
        length = math.hypot(x1 - x0, y1 - y0)
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        t = 0.0
        while t < length:
            t1 = min(length, t + dash)
            ok = True
            for a, b in skips:
                if t1 > a and t < b:
                    ok = False
            if ok:
                self.L([(x0 + ux * t, y0 + uy * t), (x0 + ux * t1, y0 + uy * t1)], width, color)
            t = t1 + gap

    # ---------------- style
    def choose_style(self):
        pyr, case = self.pyr, self.case
        st = {}
        lang = case['page_lang']
        st['lang'] = lang
        E = case['E']
        st['E'] = E
        if lang == 'zh':
            faces = [('notoserif', ('cjk_serif', 'cjk_serif', 'dj_serif')),
                     ('notoserif+times', ('cjk_serif', 'lat_serif', 'dj_serif')),
                     ('notosans', ('cjk_sans', 'cjk_sans', 'dj_sans')),
                     ('notosans+arial', ('cjk_sans', 'lat_sans', 'dj_sans')),
                     ('notoserif+dejavu', ('cjk_serif', 'dj_serif', 'dj_serif')),
                     ('notoserif+narrow', ('cjk_serif', 'lat_narrow', 'dj_sans'))]
        else:
            faces = [('times', ('cjk_serif', 'lat_serif', 'dj_serif')),
                     ('arial', ('cjk_sans', 'lat_sans', 'dj_sans')),
                     ('dejavuserif', ('cjk_serif', 'dj_serif', 'dj_serif')),
                     ('dejavusans', ('cjk_sans', 'dj_sans', 'dj_sans')),
                     ('narrow', ('cjk_sans', 'lat_narrow', 'dj_sans')),
                     ('dejavucond', ('cjk_sans', 'dj_cond', 'dj_sans')),
                     ('dejavuserifcond', ('cjk_serif', 'dj_serif_c', 'dj_serif'))]
        st['face_name'], st['face'] = pyr.choice(faces)
        st['bface'] = bold_face(st['face'])
        # headings often in a sans bold (黑体)
        st['hface'] = st['bface'] if pyr.random() < 0.5 else bold_face(('cjk_sans', 'lat_sans' if lang == 'en' else 'cjk_sans', 'dj_sans'))
        st['lp'] = E * pyr.uniform(1.45, 1.85)
        st['para_gap'] = E * pyr.uniform(0.5, 1.2)
        if lang == 'zh':
            st['label_style'] = pyr.choice(['fwdot', 'fwdot', 'dot', 'dun', 'fwparen', 'paren', 'circ', 'di', 'rparen', 'q'])
        else:
            st['label_style'] = pyr.choice(['dot', 'dot', 'paren', 'q', 'qdot', 'rparen', 'circ'])
        lb = pyr.random()
        st['label_face'] = st['bface'] if lb < 0.45 else (st['face'] if lb < 0.85 else bold_face(('cjk_sans', 'lat_sans', 'dj_sans')))
        gap_base = 0.12 if st['label_style'] in ('fwdot', 'dun', 'fwparen', 'circ') else 0.35
        st['label_gap'] = E * (gap_base + pyr.uniform(0.0, 0.3))
        deco = case.get('label_deco')
        st['label_deco'] = deco
        if deco in ('circled', 'boxed'):
            st['label_style'] = 'num'
        ink_v = pyr.randint(14, 55)
        tint = pyr.choice([(0, 0, 0), (0, 0, 6), (4, 2, 0), (0, 2, 4)])
        st['ink'] = tuple(min(255, ink_v + t) for t in tint)
        st['label_color'] = st['ink']
        if case.get('label_light'):
            st['label_color'] = pyr.choice([(128, 128, 128), (145, 145, 150), (70, 105, 175), (175, 80, 80), (110, 140, 110)])
        st['indent'] = pyr.choice(['hanging', 'hanging', 'flush'])
        st['score_style'] = pyr.choice([None, None, 'after', 'right'])
        st['score_all'] = pyr.random() < 0.35
        st['bracket_mode'] = pyr.choice(['inline', 'right', 'own_line', 'inline', 'right'])
        st['bracket_own_align'] = pyr.choice(['right', 'indent'])
        st['opt_sep'] = pyr.choice(['．', '.', '、']) if lang == 'zh' else pyr.choice(['.', '. ', ')'])
        st['opt_paren'] = pyr.random() < 0.2
        st['heading_box'] = lang == 'zh' and (pyr.random() < 0.45 or case.get('furn_mode') == 'section')
        # paper
        st['paper'] = pyr.choice([(246, 244, 236), (243, 242, 238), (250, 248, 242), (236, 233, 222),
                                  (240, 240, 240), (233, 231, 224), (248, 246, 233)])
        return st

    # ---------------- page geometry
    def choose_geometry(self, st):
        pyr, case = self.pyr, self.case
        E = st['E']
        W_ph = case['W']
        colw_max = (W_ph * 0.86) / 32.5
        layout = case.get('layout')
        if layout is None:
            layout = 'double' if (colw_max < 29 or pyr.random() < 0.3) else 'single'
        shrink = 0.9 ** self.attempt
        if layout == 'single':
            colw = pyr.uniform(30, 42)
        else:
            colw = pyr.uniform(22, 31)
        colw = min(colw, colw_max, case.get('colw_cap', 99)) * shrink
        colw = max(colw, 18)
        if layout == 'single' and colw < 29 and not case.get('binding_side'):
            layout = 'double'      # narrow text column: a two-column (A3 style) paper
        st['layout'] = layout
        st['colw_em'] = colw
        mL = pyr.uniform(3.0, 4.5)
        mR = pyr.uniform(3.0, 4.5)
        if st['label_deco'] == 'margin':
            st['margin_lab_w'] = E * pyr.uniform(2.6, 3.4)
            mL = max(mL, st['margin_lab_w'] / E + 1.5)
        strip = 0.0
        bind = case.get('binding_side')
        if bind:
            strip = pyr.uniform(6.5, 8.0)
        gut = pyr.uniform(3.0, 4.5)
        if st['label_deco'] == 'margin':
            gut = max(gut, st['margin_lab_w'] / E + 2.2)
        text_w = colw if layout == 'single' else 2 * colw + gut
        Wp = (mL + mR + strip + text_w) * E
        if layout == 'single' or pyr.random() < 0.35:
            Hp = Wp * 1.414
        else:
            Hp = Wp / 1.414
            if Hp < 40 * E:
                Hp = 40 * E
        self.Wp, self.Hp = int(Wp), int(Hp)
        left0 = (mL + (strip if bind == 'left' else 0)) * E
        self.cols = [(left0, colw * E)]
        if layout == 'double':
            self.cols.append((left0 + (colw + gut) * E, colw * E))
            st['gutter_rule'] = pyr.random() < 0.4
            st['gut'] = gut * E
        self.strip = strip * E
        self.bind = bind
        self.mT = pyr.uniform(2.8, 4.0) * E
        self.mB = pyr.uniform(2.5, 3.5) * E

    # ---------------- header / footer / binding
    def draw_school_header(self, st):
        E = st['E']
        case = self.case
        sz = int(E * 0.72)
        ink = st['ink']
        x0 = self.cols[0][0]
        x1 = self.cols[-1][0] + self.cols[-1][1]
        y = self.mT - 0.9 * E
        if st['lang'] == 'zh':
            left = '%s %s' % (case['school'], self.pyr.choice(['2024届高三第二次模拟考试', '2023—2024学年度第一学期期中考试',
                                                              '单元检测卷', '阶段性质量检测', '2024年春季学期月考']))
            right = '%s%s' % (case['grade'], SUBJ_ZH[case['subject']])
        else:
            left = case['school']
            right = '%s %s · %s' % (case['grade'], SUBJ_EN[case['subject']], self.pyr.choice(['Midterm', 'Unit Test', 'Final Exam', 'Term 2 Test']))
        self.T(x0, y, left, st['face'], sz, ink)
        self.T(x1, y, right, st['face'], sz, ink, align='r')
        self.L([(x0, y + 0.35 * E), (x1, y + 0.35 * E)], max(1, E / 22), ink)
        if self.pyr.random() < 0.4:
            self.L([(x0, y + 0.47 * E), (x1, y + 0.47 * E)], max(1, E / 40), ink)
        self.furn_rects.append((x0, y - E, x1, y + 0.5 * E))

    def draw_footer(self, st):
        E = st['E']
        case = self.case
        sz = int(E * 0.72)
        ink = st['ink']
        x0 = self.cols[0][0]
        x1 = self.cols[-1][0] + self.cols[-1][1]
        y = self.Hp - self.mB + 1.2 * E
        p, P = case['page_no'], case['page_total']
        if st['lang'] == 'zh':
            txt = self.pyr.choice(['第 %d 页 共 %d 页' % (p, P), '%s试卷　第%d页（共%d页）' % (SUBJ_ZH[case['subject']], p, P),
                                   '— %d —' % p, '%s%s　第%d页' % (case['grade'], SUBJ_ZH[case['subject']], p)])
        else:
            txt = self.pyr.choice(['Page %d of %d' % (p, P), '%s · Page %d' % (SUBJ_EN[case['subject']], p), '- %d -' % p])
        if self.pyr.random() < 0.4:
            self.L([(x0, y - 1.0 * E), (x1, y - 1.0 * E)], max(1, E / 30), ink)
        if self.pyr.random() < 0.7:
            self.T((x0 + x1) / 2, y, txt, st['face'], sz, ink, align='c')
        else:
            self.T(x1, y, txt, st['face'], sz, ink, align='r')
        self.furn_rects.append((x0, y - E, x1, y + 0.4 * E))

    def draw_binding(self, st):
        E = st['E']
        pyr = self.pyr
        ink = st['ink']
        side = self.bind
        zh_fields = st['lang'] == 'zh' or pyr.random() < 0.5
        sw = self.strip
        if side == 'left':
            line_x = sw - 1.4 * E
            field_x = 1.6 * E + pyr.uniform(0, 0.6) * E
            instr_x = line_x - 1.3 * E
            ang = 90
        else:
            line_x = self.Wp - sw + 1.4 * E
            field_x = self.Wp - 1.6 * E - pyr.uniform(0, 0.6) * E
            instr_x = line_x + 1.3 * E
            ang = -90
        y0, y1 = 1.5 * E, self.Hp - 1.5 * E
        chars = pyr.choice([['密', '封', '线'], ['装', '订', '线'], ['密', '封', '线', '内', '不', '要', '答', '题']])
        n = len(chars)
        span = y1 - y0
        pos = [y0 + span * (k + 1) / (n + 1) for k in range(n)]
        skips = [((p - 0.8 * E) - y0, (p + 0.8 * E) - y0) for p in pos]
        style = pyr.choice(['dash', 'dot'])
        if style == 'dash':
            self.dashed((line_x, y0), (line_x, y1), 0.5 * E, 0.3 * E, max(1, E / 22), ink, skips)
        else:
            self.dashed((line_x, y0), (line_x, y1), 0.12 * E, 0.22 * E, max(1.5, E / 14), ink, skips)
        csz = int(E * pyr.uniform(0.9, 1.15))
        for c, p in zip(chars, pos):
            self.T(line_x, p + 0.38 * csz, c, st['bface'] if pyr.random() < 0.5 else st['face'], csz, ink, align='c')
        # instruction stacked vertically or rotated
        if pyr.random() < 0.6:
            instr = pyr.choice(['装订线内不要答题', '密封线内不要答题', '请不要在密封线内答题']) if zh_fields else 'Do not write inside the binding line'
            self.ops.append(('rtext', instr_x, self.Hp * pyr.uniform(0.35, 0.65), instr, st['face'], int(E * 0.75), ink, ang))
        # rotated fields
        if zh_fields:
            segs = [('学校', 6), ('班级', 4), ('姓名', 5), ('考号', 6)] if pyr.random() < 0.5 else \
                   [('学校', 6), ('班级', 4), ('姓名', 5), ('准考证号', 7)]
        else:
            segs = [('School', 6), ('Class', 4), ('Name', 6), ('No.', 4)]
        fsz = int(E * pyr.uniform(0.78, 0.95))
        self.ops.append(('fields', field_x, self.Hp * pyr.uniform(0.42, 0.58), segs, st['face'], fsz, ink, ang))
        self.furn_rects.append((min(line_x, field_x) - E, y0, max(line_x, field_x) + E, y1))
        self.binding_x = line_x

    # ---------------- title block items
    def title_items(self, st):
        case = self.case
        pyr = self.pyr
        items = []
        if st['lang'] == 'zh':
            if pyr.random() < 0.3:
                items.append({'kind': 'line', 'text': pyr.choice(['绝密★启用前', '秘密★启用前', '机密']), 'size': 0.8, 'align': 'l', 'bold': False})
            y1 = pyr.randint(2019, 2024)
            items.append({'kind': 'line', 'text': pyr.choice(['%d—%d学年度第%s学期%s考试' % (y1, y1 + 1, pyr.choice('一二'), pyr.choice(['期中', '期末'])),
                                                                '%s%d年%s质量检测' % (case['school'], y1 + 1, pyr.choice(['春季', '秋季'])),
                                                                '%d年初中学业水平模拟考试' % (y1 + 1)]), 'size': 1.25, 'align': 'c', 'bold': True})
            items.append({'kind': 'line', 'text': '%s%s试卷' % (case['grade'], SUBJ_ZH[case['subject']]) if pyr.random() < 0.6 else
                          '%s%s（%s卷）' % (case['grade'], SUBJ_ZH[case['subject']], pyr.choice('AB')), 'size': 1.6, 'align': 'c', 'bold': True})
            t = pyr.choice([60, 90, 100, 120])
            full = pyr.choice([100, 120, 150])
            items.append({'kind': 'line', 'text': pyr.choice(['（考试时间：%d分钟　满分：%d分）' % (t, full), '考试时间 %d分钟　满分 %d分' % (t, full),
                                                                '（满分%d分，考试用时%d分钟）' % (full, t)]), 'size': 0.9, 'align': 'c', 'bold': False})
            if pyr.random() < 0.75:
                k = pyr.randint(3, 5)
                items.append({'kind': 'scoretable', 'head': ['题号'] + [CN_NUM[i] for i in range(k)] + ['总分'], 'row': '得分'})
            if pyr.random() < 0.5:
                items.append({'kind': 'notice', 'lines': ['注意事项：', '1．答题前，考生务必将自己的姓名、准考证号填写在规定位置。',
                                                          '2．请将答案写在答题区域内，超出区域的答案无效。',
                                                          '3．考试结束后，将本试卷和答题卡一并交回。'][:pyr.randint(2, 4)]})
        else:
            items.append({'kind': 'line', 'text': case['school'], 'size': 1.2, 'align': 'c', 'bold': True})
            y1 = pyr.randint(2019, 2024)
            items.append({'kind': 'line', 'text': '%d-%d %s Examination' % (y1, y1 + 1, pyr.choice(['Midterm', 'Final', 'End-of-Term'])), 'size': 1.05, 'align': 'c', 'bold': False})
            items.append({'kind': 'line', 'text': '%s %s' % (case['grade'], SUBJ_EN[case['subject']]), 'size': 1.5, 'align': 'c', 'bold': True})
            t = pyr.choice([45, 60, 90])
            full = pyr.choice([50, 80, 100])
            items.append({'kind': 'line', 'text': 'Time allowed: %d minutes      Total: %d marks' % (t, full), 'size': 0.9, 'align': 'c', 'bold': False})
            items.append({'kind': 'namefields'})
            if pyr.random() < 0.6:
                k = pyr.randint(3, 4)
                items.append({'kind': 'scoretable', 'head': ['Part'] + ROMAN[:k] + ['Total'], 'row': 'Score'})
            if pyr.random() < 0.5:
                items.append({'kind': 'notice', 'lines': ['Instructions:', '1. Answer ALL questions in the spaces provided.',
                                                          '2. Calculators are not allowed.', '3. Show your working where asked.'][:pyr.randint(2, 4)]})
        return items

    # ---------------- item layout
    def layout_item(self, it, x, y, w, st):
        save = self.ops
        self.ops = []
        g = getattr(self, 'lay_' + it['kind'])(it, x, y, w, st)
        g['ops'] = self.ops
        self.ops = save
        return g

    def lay_line(self, it, x, y, w, st):
        E = st['E']
        sz = int(E * it['size'])
        face = st['hface'] if it['bold'] else st['face']
        b = y + 1.05 * sz
        xx = x + w / 2 if it['align'] == 'c' else x
        self.T(xx, b, it['text'], face, sz, st['ink'], align=it['align'])
        h = sz * 1.5
        return {'height': h, 'furn': (x, y, x + w, y + h)}

    def lay_scoretable(self, it, x, y, w, st):
        E = st['E']
        n = len(it['head'])
        cw = min(3.2 * E, (w - 2 * E) / n)
        ch = 1.45 * E
        tw = cw * n
        x0 = x + (w - tw) / 2
        y0 = y + 0.3 * E
        lw = max(1, E / 22)
        sz = int(E * 0.85)
        for r in range(3):
            self.L([(x0, y0 + r * ch), (x0 + tw, y0 + r * ch)], lw, st['ink'])
        for c in range(n + 1):
            self.L([(x0 + c * cw, y0), (x0 + c * cw, y0 + 2 * ch)], lw, st['ink'])
        for c, t in enumerate(it['head']):
            self.T(x0 + c * cw + cw / 2, y0 + ch * 0.72, t, st['face'], sz, st['ink'], align='c')
        self.T(x0 + cw / 2, y0 + ch * 1.72, it['row'], st['face'], sz, st['ink'], align='c')
        h = 2 * ch + 0.9 * E
        return {'height': h, 'furn': (x0, y0, x0 + tw, y0 + 2 * ch)}

    def lay_notice(self, it, x, y, w, st):
        E = st['E']
        sz = int(E * 0.82)
        b = y + 1.0 * sz
        for k, t in enumerate(it['lines']):
            face = st['hface'] if k == 0 else st['face']
            for ln in wrap_text(t, face, sz, w - (0 if k == 0 else E), w - 2 * E):
                self.T(x + (0 if k == 0 else E), b, ln, face, sz, st['ink'])
                b += sz * 1.45
        h = b - y + 0.2 * E
        return {'height': h, 'furn': (x, y, x + w, y + h)}

    def lay_namefields(self, it, x, y, w, st):
        E = st['E']
        sz = int(E * 0.9)
        b = y + 1.2 * E
        xx = x + E
        for lab, ln in [('Name:', 9), ('Class:', 5), ('No.:', 4)]:
            tw = self.T(xx, b, lab, st['face'], sz, st['ink'])
            self.L([(xx + tw + 0.2 * E, b + 0.15 * E), (xx + tw + 0.2 * E + ln * E * 0.6, b + 0.15 * E)], max(1, E / 25), st['ink'])
            xx += tw + ln * E * 0.6 + 1.2 * E
            if xx > x + w - 5 * E:
                break
        return {'height': 2.0 * E, 'furn': (x, y, x + w, y + 2 * E)}

    def lay_heading(self, it, x, y, w, st):
        E = st['E']
        sz = int(E * it.get('size', 1.0))
        x0 = x
        top = y + 0.4 * E
        box_h = 0
        if it.get('box'):
            cw, ch = 2.6 * E, 1.3 * E
            lw = max(1, E / 24)
            for r in range(3):
                self.L([(x, top + r * ch), (x + 2 * cw, top + r * ch)], lw, st['ink'])
            for c in range(3):
                self.L([(x + c * cw, top), (x + c * cw, top + 2 * ch)], lw, st['ink'])
            hs = int(E * 0.75)
            labs = ['得分', '评卷人'] if st['lang'] == 'zh' else ['Score', 'Marker']
            for c in range(2):
                self.T(x + c * cw + cw / 2, top + ch * 0.72, labs[c], st['face'], hs, st['ink'], align='c')
            x0 = x + 2 * cw + 0.8 * E
            box_h = 2 * ch
            b = top + ch * 1.75
        else:
            b = top + 0.95 * sz
        name_w = text_width(it['name'], st['hface'], sz)
        self.T(x0, b, it['name'], st['hface'], sz, st['ink'])
        desc = it.get('desc', '')
        bottom = b + 0.3 * E
        if desc:
            lines = wrap_text(desc, st['face'], sz, x + w - x0 - name_w, x + w - x0)
            for k, ln in enumerate(lines):
                self.T(x0 + (name_w if k == 0 else 0), b, ln, st['face'], sz, st['ink'])
                bottom = b + 0.3 * E
                b += st['lp']
        h = max(bottom, top + box_h) - y + 0.5 * E
        return {'height': h, 'furn': (x, y, x + w, y + h)}

    def lay_problem(self, it, x, y, w, st):
        E = st['E']
        lp = st['lp']
        ink = st['ink']
        face = st['face']
        pres = it['present']
        n = it['n']
        asc, dsc = 0.92 * E, 0.24 * E
        prints = []
        texts = []
        ans = []
        g = {}
        b = y + 1.0 * E
        right = x + w
        fig = pres.get('figure')
        if fig and fig['place'] == 'beside':
            right = x + w - fig['w'] - 1.0 * E
        # ---- label
        deco = st['label_deco']
        lface = st['label_face']
        lcol = st['label_color']
        if deco in ('circled', 'boxed'):
            core = str(n)
            cw = text_width(core, lface, E)
            lw = max(cw + 0.45 * E, 1.15 * E)
            lx = x
            cx, cy = lx + lw / 2, b - 0.36 * E
            if deco == 'circled':
                r = lw / 2
                self.ops.append(('ellipse', (cx - r, cy - r, cx + r, cy + r), lcol, max(1, E / 18)))
            else:
                r = lw / 2
                self.R((cx - r, cy - 0.58 * E, cx + r, cy + 0.58 * E), lcol, max(1, E / 18))
            self.T(cx, b - 0.02 * E, core, lface, int(E * 0.82) if len(core) > 1 else E, lcol, align='c')
            label_rect = (lx, cy - 0.6 * E, lx + lw, cy + 0.6 * E)
            tx0 = lx + lw + 0.3 * E
        else:
            lab = label_text(st['label_style'], n)
            lw = text_width(lab, lface, E)
            if deco == 'margin':
                lx = x - st['margin_lab_w']
                tx0 = x
            else:
                lx = x
                tx0 = x + lw + st['label_gap']
            self.T(lx, b, lab, lface, E, lcol)
            label_rect = (lx, b - asc, lx + lw, b + dsc)
        tx0 += pres.get('extra_gap', 0) * E
        prints.append(label_rect)
        g['label'] = label_rect
        # ---- score after label
        txf = tx0
        if pres.get('score') and st['score_style'] == 'after':
            s = '（%d分）' % pres['score'] if st['lang'] == 'zh' else '(%d marks) ' % pres['score']
            sw = self.T(tx0, b, s, face, E, ink)
            prints.append((tx0, b - asc, tx0 + sw, b + dsc))
            txf = tx0 + sw
        cont_x = tx0 if st['indent'] == 'hanging' else (x if deco != 'margin' else x)
        lines = wrap_text(it['q']['question'], face, E, right - txf, right - cont_x)
        ex = txf
        for k, ln in enumerate(lines):
            if k > 0:
                b += lp
            lx_k = txf if k == 0 else cont_x
            lwid = self.T(lx_k, b, ln, face, E, ink)
            r = (lx_k, b - asc, lx_k + lwid, b + dsc)
            texts.append(r)
            ex = lx_k + lwid
        prints.extend(texts)
        # ---- tails after the text: bracket, underline, right-aligned score
        cur_end = ex
        br = pres.get('bracket')
        if br:
            s = '（　　）' if st['lang'] == 'zh' else '(        )'
            bw = text_width(s, face, E)
            gapb = 0.15 * E if st['lang'] == 'zh' else 0.4 * E
            if br == 'inline' and cur_end + gapb + bw <= right:
                xb = cur_end + gapb
            elif br == 'right' and cur_end + 1.0 * E + bw <= right:
                xb = right - bw
            else:
                b += lp
                if br == 'own_line' and st['bracket_own_align'] == 'right':
                    xb = right - bw
                elif br == 'right':
                    xb = right - bw
                else:
                    xb = cont_x
            self.T(xb, b, s, face, E, ink)
            rb = (xb, b - asc, xb + bw, b + dsc)
            prints.append(rb)
            g['bracket'] = rb
            cur_end = xb + bw
        ul = pres.get('underline')
        if ul:
            L = E * self.pyr.uniform(4, 8)
            if ul == 'inline' and cur_end + 0.4 * E + L <= right:
                xu = cur_end + 0.4 * E
            else:
                b += lp
                xu = cont_x
                L = min(L * 1.4, right - cont_x)
            self.L([(xu, b + 0.12 * E), (xu + L, b + 0.12 * E)], max(1, E / 22), ink)
            ans.append((xu, b - 1.0 * E, xu + L, b + 0.12 * E))
            cur_end = xu + L
        if pres.get('score') and st['score_style'] == 'right':
            s = ('（%d分）' % pres['score']) if st['lang'] == 'zh' else (st.setdefault('score_fmt', self.pyr.choice(['[%d]', '(%d marks)', '[%d marks]'])) % pres['score'])
            sw = text_width(s, face, E)
            if cur_end + 1.0 * E + sw > right:
                b += lp
            xs = right - sw
            self.T(xs, b, s, face, E, ink)
            prints.append((xs, b - asc, xs + sw, b + dsc))
        # ---- options
        opts = pres.get('options')
        if opts:
            letters = 'ABCD'
            if st['opt_paren']:
                ostr = ['(%s)%s' % (letters[k], o) if st['lang'] == 'en' else '（%s）%s' % (letters[k], o) for k, o in enumerate(opts)]
            else:
                ostr = ['%s%s%s' % (letters[k], st['opt_sep'], o) for k, o in enumerate(opts)]
            ox = cont_x + (0.0 if st['indent'] == 'hanging' else 1.0 * E)
            avail = right - ox
            mw = max(text_width(s, face, E) for s in ostr)
            if mw + 1.2 * E <= avail / len(ostr):
                per = len(ostr)
            elif mw + 1.2 * E <= avail / 2 and len(ostr) >= 2:
                per = 2
            else:
                per = 1
            slot = avail / per
            for k, s in enumerate(ostr):
                if k % per == 0:
                    b += lp
                xo = ox + (k % per) * slot
                ow = self.T(xo, b, s, face, E, ink)
                prints.append((xo, b - asc, xo + ow, b + dsc))
        # ---- answer space below
        sp = pres.get('space')
        bottom = b + dsc
        if sp:
            kind, k = sp
            lw_rule = max(1, E / 24)
            if kind in ('jie_lines', 'jie_blank'):
                b += lp * 1.15
                word = '解：' if st['lang'] == 'zh' else self.pyr.choice(['Solution:', 'Answer:', 'Working:'])
                jw = self.T(cont_x, b, word, face, E, ink)
                if kind == 'jie_lines':
                    self.L([(cont_x + jw + 0.2 * E, b + 0.15 * E), (right, b + 0.15 * E)], lw_rule, ink)
                    ans.append((cont_x + jw, b - E, right, b + 0.15 * E))
                    for _ in range(k - 1):
                        b += lp * 1.25
                        self.L([(cont_x, b + 0.15 * E), (right, b + 0.15 * E)], lw_rule, ink)
                        ans.append((cont_x, b - E, right, b + 0.15 * E))
                else:
                    b += lp * k
                bottom = b + 0.3 * E
            elif kind == 'lines':
                for _ in range(k):
                    b += lp * 1.25
                    self.L([(cont_x, b + 0.15 * E), (right, b + 0.15 * E)], lw_rule, ink)
                    ans.append((cont_x, b - E, right, b + 0.15 * E))
                bottom = b + 0.3 * E
            elif kind == 'box':
                top = b + 0.6 * E
                hh = lp * k
                self.R((cont_x, top, right, top + hh), ink, lw_rule)
                ans.append((cont_x + 0.5 * E, top, right - 0.5 * E, top + 1.6 * E))
                bottom = top + hh
                b = bottom
            elif kind == 'blank':
                bottom = b + lp * k
                b = bottom
            elif kind == 'ans_line':
                b += lp * 1.3
                word = '答：' if st['lang'] == 'zh' else 'Answer:'
                jw = self.T(cont_x, b, word, face, E, ink)
                self.L([(cont_x + jw + 0.2 * E, b + 0.15 * E), (min(right, cont_x + jw + 14 * E), b + 0.15 * E)], lw_rule, ink)
                ans.append((cont_x + jw, b - E, min(right, cont_x + jw + 14 * E), b + 0.15 * E))
                bottom = b + 0.3 * E
        # ---- figure
        fig_rect = None
        if fig:
            if fig['place'] == 'beside':
                fx, fy = x + w - fig['w'], y + 0.3 * E
            else:
                fy = bottom + 0.5 * E
                al = fig.get('align', 'c')
                fx = (x + (w - fig['w']) / 2) if al == 'c' else (x + w - fig['w'] - E if al == 'r' else cont_x + E)
            self.figure(fig, fx, fy, st, n)
            fig_rect = (fx, fy, fx + fig['w'], fy + fig['h'])
            bottom = max(bottom, fig_rect[3])
        g['fig'] = fig_rect
        h = bottom - y + st['para_gap']
        g.update({'height': h, 'prints': prints, 'texts': texts, 'ans': ans,
                  'block': rect_union(prints)})
        return g

    # ---------------- figures
    def figure(self, fig, x, y, st, n):
        E = st['E']
        pyr = self.pyr
        ink = st['ink']
        face = st['face']
        w, h = fig['w'], fig['h'] - 1.5 * E
        lw = max(1, E / 18)
        small = int(E * 0.68)
        kind = fig['kind']
        zh = st['lang'] == 'zh'
        if kind in ('bar', 'line'):
            ox, oy = x + 2.3 * E, y + h - 1.6 * E
            ax1, ay1 = x + w - 0.8 * E, y + 1.0 * E
            step = pyr.choice([1, 2, 5, 10, 20, 50])
            nt = pyr.randint(4, 6)
            self.L([(ox, oy), (ax1, oy)], lw, ink)
            self.L([(ox, oy), (ox, ay1 - 0.3 * E)], lw, ink)
            self.L([(ox - 0.2 * E, ay1 - 0.05 * E), (ox, ay1 - 0.4 * E), (ox + 0.2 * E, ay1 - 0.05 * E)], lw, ink)
            self.L([(ax1 - 0.35 * E, oy - 0.2 * E), (ax1 + 0.05 * E, oy), (ax1 - 0.35 * E, oy + 0.2 * E)], lw, ink)
            for t in range(nt + 1):
                yy = oy - (oy - ay1) * t / nt
                self.L([(ox - 0.22 * E, yy), (ox, yy)], lw, ink)
                self.T(ox - 0.35 * E, yy + 0.25 * small, str(step * t), face, small, ink, align='r')
                if t > 0 and fig.get('grid'):
                    self.dashed((ox, yy), (ax1 - 0.5 * E, yy), 0.2 * E, 0.2 * E, max(1, E / 40), ink)
            cats = pyr.choice(ZH_CATS if zh else EN_CATS)
            lab_w = max(text_width(c, face, small) for c in cats) + 0.5 * E
            kmax = int((ax1 - 0.6 * E - ox) // lab_w)
            k = max(2, min(len(cats), pyr.randint(3, len(cats)), kmax))
            cats = cats[:k]
            slot = (ax1 - 0.6 * E - ox) / k
            prev = None
            for i, c in enumerate(cats):
                cx = ox + slot * (i + 0.5)
                v = pyr.randint(1, 2 * nt - 1) / 2.0
                yy = oy - (oy - ay1) * v / nt
                if kind == 'bar':
                    bw = slot * 0.5
                    fillc = pyr.choice([None, (150, 150, 150), (200, 200, 200)])
                    self.R((cx - bw / 2, yy, cx + bw / 2, oy), ink, lw, fill=fillc)
                    if fig.get('values'):
                        val = v * step
                        self.T(cx, yy - 0.2 * E, ('%g' % val), face, small, ink, align='c')
                else:
                    self.ops.append(('ellipse', (cx - 0.12 * E, yy - 0.12 * E, cx + 0.12 * E, yy + 0.12 * E), ink, lw, ink))
                    if prev:
                        self.L([prev, (cx, yy)], lw, ink)
                    prev = (cx, yy)
                self.T(cx, oy + 0.95 * small + 0.2 * E, c, face, small, ink, align='c')
            ylab = pyr.choice(['人数/人', '数量/个', '温度/℃', '质量/g']) if zh else pyr.choice(['Number', 'Rainfall (mm)', 'Sales', 'Score'])
            self.T(ox + 0.3 * E, ay1 - 0.3 * E, ylab, face, small, ink)
        elif kind == 'table':
            cols = pyr.randint(4, 6)
            rows = pyr.choice([2, 2, 3])
            heads = pyr.choice([['时间t/s', '路程s/m', '速度v/(m/s)'], ['x', 'y', 'z'], ['温度/℃', '质量/g', '体积/cm³'], ['组别', '人数', '平均分']]) if zh \
                else pyr.choice([['x', 'y', 'z'], ['Time (s)', 'Distance (m)', 'Speed (m/s)'], ['Day', 'Rainfall (mm)', 'Temp (°C)']])
            hw = max(text_width(hd, face, small) for hd in heads[:rows]) + 0.8 * E
            cw = (w - hw) / (cols - 1)
            ch = 1.45 * E
            ty = y + 0.3 * E
            for r in range(rows + 1):
                self.L([(x, ty + r * ch), (x + w, ty + r * ch)], lw, ink)
            self.L([(x, ty), (x, ty + rows * ch)], lw, ink)
            for c in range(cols):
                xx = x + hw + c * cw
                self.L([(xx, ty), (xx, ty + rows * ch)], lw, ink)
            for r in range(rows):
                self.T(x + hw / 2, ty + r * ch + 0.95 * ch * 0.72, heads[r], face, small, ink, align='c')
                base = pyr.randint(0, 20)
                stp = pyr.choice([1, 2, 5, 0.5, 10])
                for c in range(cols - 1):
                    v = base + stp * c + (pyr.choice([0, 0, 1]) if r else 0)
                    self.T(x + hw + c * cw + cw / 2, ty + r * ch + 0.95 * ch * 0.72, '%g' % v, face, small, ink, align='c')
            h = rows * ch + 0.6 * E
        elif kind == 'geometry':
            pts = {}
            pts['A'] = (x + w * pyr.uniform(0.3, 0.6), y + 0.8 * E)
            pts['B'] = (x + 1.0 * E, y + h - 1.0 * E)
            pts['C'] = (x + w - 1.0 * E, y + h - 1.0 * E)
            t = pyr.uniform(0.35, 0.65)
            pts['D'] = (pts['B'][0] + (pts['C'][0] - pts['B'][0]) * t, pts['B'][1])
            self.L([pts['A'], pts['B'], pts['C'], pts['A']], lw, ink)
            self.L([pts['A'], pts['D']], lw, ink)
            if pyr.random() < 0.5:
                pts['E'] = ((pts['A'][0] + pts['C'][0]) / 2, (pts['A'][1] + pts['C'][1]) / 2)
                self.L([pts['D'], pts['E']], lw, ink)
            if pyr.random() < 0.4:
                cx, cy = (pts['A'][0] + pts['D'][0]) / 2, (pts['A'][1] + 2 * pts['D'][1]) / 3
                r = min(w, h) * 0.18
                self.ops.append(('ellipse', (cx - r, cy - r, cx + r, cy + r), ink, lw))
                pts['O'] = (cx, cy)
            gx = sum(p[0] for p in pts.values()) / len(pts)
            gy = sum(p[1] for p in pts.values()) / len(pts)
            lf = ('cjk_serif', 'lat_serif_i', 'dj_serif')
            for k2, (px, py) in pts.items():
                dx, dy = px - gx, py - gy
                d = math.hypot(dx, dy) or 1
                if k2 == 'D':
                    dx, dy, d = 0, 1, 1
                if k2 == 'O':
                    dx, dy, d = 1, 0, 1
                lx, ly = px + dx / d * 0.6 * E, py + dy / d * 0.6 * E
                self.T(lx, ly + 0.35 * E, k2, lf, int(E * 0.85), ink, align='c')
        elif kind == 'circuit':
            x0, y0, x1, y1 = x + 1.2 * E, y + 1.0 * E, x + w - 1.2 * E, y + h - 1.2 * E
            mx = (x0 + x1) / 2
            my = (y0 + y1) / 2
            # top: resistor
            rw, rh = 2.2 * E, 0.8 * E
            self.L([(x0, y0), (mx - rw / 2, y0)], lw, ink)
            self.R((mx - rw / 2, y0 - rh / 2, mx + rw / 2, y0 + rh / 2), ink, lw)
            self.L([(mx + rw / 2, y0), (x1, y0)], lw, ink)
            self.T(mx, y0 - rh / 2 - 0.25 * E, pyr.choice(['R₁', 'R', 'R₂']), ('cjk_serif', 'lat_serif_i', 'dj_serif'), int(E * 0.8), ink, align='c')
            # left: battery
            self.L([(x0, y0), (x0, my - 0.25 * E)], lw, ink)
            self.L([(x0 - 0.7 * E, my - 0.25 * E), (x0 + 0.7 * E, my - 0.25 * E)], lw, ink)
            self.L([(x0 - 0.35 * E, my + 0.2 * E), (x0 + 0.35 * E, my + 0.2 * E)], lw * 2.5, ink)
            self.L([(x0, my + 0.2 * E), (x0, y1)], lw, ink)
            # right: lamp
            r = 0.55 * E
            self.L([(x1, y0), (x1, my - r)], lw, ink)
            self.ops.append(('ellipse', (x1 - r, my - r, x1 + r, my + r), ink, lw))
            q = r * 0.7
            self.L([(x1 - q, my - q), (x1 + q, my + q)], lw, ink)
            self.L([(x1 - q, my + q), (x1 + q, my - q)], lw, ink)
            self.L([(x1, my + r), (x1, y1)], lw, ink)
            self.T(x1 + r + 0.3 * E, my + 0.3 * E, 'L', ('cjk_serif', 'lat_serif_i', 'dj_serif'), int(E * 0.8), ink)
            # bottom: switch + ammeter
            sx = x0 + (x1 - x0) * 0.3
            self.L([(x0, y1), (sx, y1)], lw, ink)
            self.L([(sx, y1), (sx + 1.3 * E, y1 - 0.6 * E)], lw, ink)
            self.ops.append(('ellipse', (sx - 0.1 * E, y1 - 0.1 * E, sx + 0.1 * E, y1 + 0.1 * E), ink, lw))
            self.T(sx + 0.6 * E, y1 + 0.95 * E, 'S', ('cjk_serif', 'lat_serif_i', 'dj_serif'), int(E * 0.8), ink, align='c')
            ax = x0 + (x1 - x0) * 0.68
            self.L([(sx + 1.4 * E, y1), (ax - r, y1)], lw, ink)
            self.ops.append(('ellipse', (ax - r, y1 - r, ax + r, y1 + r), ink, lw))
            self.T(ax, y1 + 0.3 * E, 'A', ('cjk_sans', 'lat_sans', 'dj_sans'), int(E * 0.75), ink, align='c')
            self.L([(ax + r, y1), (x1, y1)], lw, ink)
        # caption
        cap = fig['caption']
        self.T(x + w / 2, y + h + 1.1 * E, cap, face, int(E * 0.78), ink, align='c')

    # ---------------- flow
    def flow(self, items, st, col_top):
        placed = []
        ci = 0
        y = col_top
        n = self.n0
        col_bot = self.Hp - self.mB - 1.2 * E_of(st)
        i = 0
        while i < len(items):
            it = items[i]
            if ci >= len(self.cols):
                break
            x, w = self.cols[ci]
            if it['kind'] == 'problem':
                it['n'] = n
            g = self.layout_item(it, x, y, w, st)
            need = g['height'] + (3.0 * st['lp'] if it['kind'] == 'heading' else 0)
            if y + need <= col_bot:
                g['col'] = ci
                placed.append((it, g))
                y += g['height']
                if it['kind'] == 'problem':
                    n += 1
                i += 1
            else:
                if abs(y - col_top) < 1e-6:
                    i += 1          # does not fit an empty column: drop it
                    continue
                ci += 1
                y = col_top
        return placed

    # ---------------- the page
    def build(self):
        case, pyr = self.case, self.pyr
        st = self.choose_style()
        self.choose_geometry(st)
        self.st = st
        E = st['E']
        self.furn_rects = []
        self.ops = []
        self.binding_x = None
        base_ops = []
        # header / footer / binding
        if case['page_no'] > 1 or case.get('school_header') or pyr.random() < 0.4:
            self.draw_school_header(st)
            col_top = self.mT + 0.6 * E
        else:
            col_top = self.mT - 0.5 * E
        self.draw_footer(st)
        if self.bind:
            self.draw_binding(st)
        if st['layout'] == 'double' and st.get('gutter_rule'):
            free = st['gut'] - (st['margin_lab_w'] if st['label_deco'] == 'margin' else 0)
            gx = self.cols[0][0] + self.cols[0][1] + free / 2
            self.L([(gx, col_top), (gx, self.Hp - self.mB)], max(1, E / 30), st['ink'])
        base_ops = self.ops
        self.ops = []
        # ---- items
        self.n0 = 1 if case['page_no'] == 1 else pyr.randint(4, 16)
        items = []
        if case['page_no'] == 1:
            items += self.title_items(st)
        neighbours = case['neighbours']
        nb_iter = iter(neighbours)
        sec_types = pyr.choice([['choice', 'fill', 'solve'], ['choice', 'solve'], ['fill', 'solve'], ['choice', 'fill'],
                                ['solve'], ['choice'], ['fill', 'solve', 'solve']])
        sec_start = 0 if case['page_no'] == 1 else pyr.randint(1, 3)
        heading_first = case['page_no'] == 1 or pyr.random() < 0.35
        sections = []
        while len(sec_types) < 8:
            sec_types.append(pyr.choice(['choice', 'fill', 'solve', 'solve']))
        for si, stype in enumerate(sec_types):
            if si > 0 and not sections[-1]['probs']:
                break
            cnt = pyr.randint(3, 8)
            sec = {'type': stype, 'idx': sec_start + si, 'probs': []}
            for _ in range(cnt):
                q = next(nb_iter, None)
                if q is None:
                    break
                sec['probs'].append(q)
            sections.append(sec)
        sections = [sec for sec in sections if sec['probs']] or sections[:1]
        # target section & position
        mode = case['target_pos']
        if mode == 'top':
            tsec, tpos = 0, pyr.choice([0, 0, 1])
            heading_first = True
        elif mode == 'section' and len(sections) > 1:
            tsec, tpos = 1, 0
        else:
            tsec = pyr.randrange(len(sections))
            tpos = pyr.randint(1, 3) if mode in ('mid', 'section') else len(sections[tsec]['probs'])
        if case.get('force_sec_type'):
            sections[tsec]['type'] = case['force_sec_type']

        def sec_heading(sec):
            stype = sec['type']
            k = len(sec['probs']) + 1
            pts = pyr.choice([2, 3, 4, 5])
            if st['lang'] == 'zh':
                name = '%s、%s' % (CN_NUM[sec['idx'] % 10], pyr.choice(SEC_ZH[stype]))
                desc = pyr.choice(['（本大题共%d小题，每小题%d分，共%d分）' % (k, pts, k * pts), '（每小题%d分，共%d分）' % (pts, k * pts),
                                   '（共%d分）' % (k * pts), '（本题共%d小题，满分%d分。解答应写出文字说明或演算步骤）' % (k, k * pts)])
            else:
                name = pyr.choice(['Part %s  ' % ROMAN[sec['idx'] % 6], 'Section %s: ' % 'ABCDEF'[sec['idx'] % 6],
                                   '%s. ' % ROMAN[sec['idx'] % 6]]) + pyr.choice(SEC_EN[stype])
                desc = pyr.choice([' (%d marks)' % (k * pts), ' (%d points each, %d points in total)' % (pts, k * pts), ''])
            return {'kind': 'heading', 'name': name, 'desc': desc, 'box': st['heading_box'],
                    'size': pyr.choice([1.0, 1.0, 1.05, 1.1])}

        tgt_q = case['target']
        sections = [sec for sec in sections if sec['probs']] or sections[:1]
        if tsec >= len(sections):
            tsec = len(sections) - 1
        for si, sec in enumerate(sections):
            if si > 0 or heading_first:
                items.append(sec_heading(sec))
            probs = list(sec['probs'])
            if si == tsec:
                probs.insert(min(tpos, len(probs)), None)
            for q in probs:
                is_t = q is None
                qq = tgt_q if is_t else q
                items.append({'kind': 'problem', 'q': qq, 'is_target': is_t,
                              'present': self.present(sec['type'], qq, is_t, st)})
        placed = self.flow(items, st, col_top)
        ok = any(it.get('is_target') for it, g in placed)
        if mode == 'bottom':
            # move the target to the slot that ends closest to the bottom of the last column used
            col_bot = self.Hp - self.mB - 1.2 * E
            t_item = items.pop(next(k for k, it in enumerate(items) if it.get('is_target')))
            best = None
            slots = [k for k, it in enumerate(items) if it['kind'] == 'problem'] + [len(items)]
            for k in slots:
                trial = items[:k] + [t_item] + items[k:]
                pl = self.flow(trial, st, col_top)
                tg = [(it, g) for it, g in pl if it.get('is_target')]
                if not tg:
                    break
                g = tg[0][1]
                last_col = max(gg['col'] for _, gg in pl)
                gap = col_bot - (g['block'][3])
                if g['col'] == last_col and gap < 7 * st['lp']:
                    best = (k, pl)
                    break
            if best:
                items = items[:best[0]] + [t_item] + items[best[0]:]
                placed = best[1]
            else:
                items.insert(min(len(items), 3), t_item)
                placed = self.flow(items, st, col_top)
            ok = any(it.get('is_target') for it, g in placed)
        tries = 0
        while not ok and tries < 6:
            # move target earlier in the sequence
            ti = next(k for k, it in enumerate(items) if it.get('is_target'))
            pi = [k for k, it in enumerate(items[:ti]) if it['kind'] == 'problem']
            if not pi:
                break
            j = pi[len(pi) // 2]
            t_item = items.pop(ti)
            items.insert(j, t_item)
            placed = self.flow(items, st, col_top)
            ok = any(it.get('is_target') for it, g in placed)
            tries += 1
        if not ok:
            return None
        # ---- collect
        self.problems = []
        for it, g in placed:
            self.ops.extend(g['ops'])
            if it['kind'] == 'problem':
                self.problems.append({'id': it['q']['id'], 'n': it['n'], 'is_target': it['is_target'],
                                      'prints': g['prints'], 'texts': g['texts'], 'ans': g['ans'],
                                      'label': g['label'], 'bracket': g.get('bracket'), 'block': g['block'],
                                      'fig': g['fig'], 'col': g['col'], 'present': it['present']})
            elif 'furn' in g:
                self.furn_rects.append(g['furn'])
        self.ops = base_ops + self.ops
        ti = [k for k, p in enumerate(self.problems) if p['is_target']][0]
        self.target = self.problems[ti]
        self.target_index = ti
        return self

    def present(self, stype, q, is_target, st):
        pyr, case = self.pyr, self.case
        E = st['E']
        p = {}
        text = q['question']
        if st['score_style'] and (stype == 'solve' or st['score_all']):
            p['score'] = pyr.choice([2, 3, 4, 5, 6, 8, 10])
        if stype == 'choice':
            p['bracket'] = st['bracket_mode']
            opts = make_options(text, pyr)
            if opts and pyr.random() < 0.85:
                p['options'] = opts
        elif stype == 'fill':
            r = pyr.random()
            p['underline'] = 'inline' if r < 0.6 else ('below' if r < 0.8 else None)
        else:
            kind = pyr.choice(['blank', 'lines', 'jie_lines', 'jie_blank', 'box', 'ans_line', 'blank'])
            p['space'] = (kind, pyr.randint(2, 4) if kind != 'ans_line' else 1)
        if is_target and case.get('answer_kind'):
            ak = case['answer_kind']
            for k in ('bracket', 'underline', 'space'):
                p.pop(k, None)
            if ak == 'bracket_own':
                p['bracket'] = 'own_line'
                st['bracket_own_align'] = pyr.choice(['right', 'indent'])
            elif ak == 'underline_below':
                p['underline'] = 'below'
            elif ak == 'bracket_end':
                p['bracket'] = pyr.choice(['inline', 'right'])
            else:
                p['space'] = (ak, pyr.randint(2, 4) if ak != 'ans_line' else 1)
        if is_target and case.get('ring_label'):
            p['extra_gap'] = 0.45
        # figures
        fkind = None
        if is_target and case.get('fig_target'):
            fkind = case['fig_target']
        elif (not is_target) and pyr.random() < case.get('fig_neighbour_p', 0.05):
            fkind = pyr.choice(['bar', 'line', 'table', 'geometry', 'circuit'])
        if fkind:
            colw = self.cols[0][1]
            place = 'below'
            if fkind != 'table' and pyr.random() < 0.5 and colw > 26 * E:
                place = 'beside'
            fw = pyr.uniform(10, 14) * E if fkind != 'table' else min(colw - 2 * E, pyr.uniform(14, 22) * E)
            fh = pyr.uniform(7.5, 9.5) * E if fkind != 'table' else (4.2 if True else 0) * E + 1.5 * E
            if fkind == 'circuit':
                fh = pyr.uniform(6.5, 8) * E
            zh = st['lang'] == 'zh'
            capn = None  # filled with the problem number at layout time
            p['figure'] = {'kind': fkind, 'place': place, 'w': fw, 'h': fh + 1.5 * E,
                           'align': pyr.choice(['c', 'r', 'l']), 'grid': pyr.random() < 0.4,
                           'values': pyr.random() < 0.4, 'cap_style': pyr.randint(0, 3), 'zh': zh}
        return p


def E_of(st):
    return st['E']

# caption is added lazily (needs the problem number)
_orig_figure = PageBuilder.figure


def _figure_with_caption(self, fig, x, y, st, n):
    zh = st['lang'] == 'zh'
    cs = fig['cap_style']
    if zh:
        fig['caption'] = ['第%d题图' % n, '（第%d题图）' % n, '图%d' % (n % 7 + 1), '第%d题' % n][cs]
    else:
        fig['caption'] = ['Figure %d' % (n % 7 + 1), 'Fig. %d' % n, '(Question %d)' % n, 'Diagram for Q%d' % n][cs]
    return _orig_figure(self, fig, x, y, st, n)


PageBuilder.figure = _figure_with_caption

# ----------------------------------------------------------------------------------------
# handwriting


def smooth_noise(rng, n, amp, k=3):
    t = np.linspace(0, 1, n)
    out = np.zeros(n)
    for _ in range(k):
        out += np.sin(2 * np.pi * (rng.uniform(0.5, 2.5) * t + rng.uniform(0, 1))) * rng.uniform(0.3, 1.0)
    return out / k * amp


def pen_tick(cx, cy, s, rng):
    p0 = (cx - 0.45 * s, cy - 0.05 * s)
    p1 = (cx - 0.12 * s + rng.uniform(-0.05, 0.05) * s, cy + 0.35 * s)
    p2 = (cx + 0.55 * s, cy - 0.6 * s + rng.uniform(-0.1, 0.1) * s)
    a = np.linspace(0, 1, 6)[:, None]
    seg1 = np.array(p0) * (1 - a) + np.array(p1) * a
    c = np.array([(p1[0] + p2[0]) / 2 + 0.08 * s, (p1[1] + p2[1]) / 2 + 0.05 * s])
    b = np.linspace(0, 1, 10)[:, None]
    seg2 = (1 - b) ** 2 * np.array(p1) + 2 * (1 - b) * b * c + b ** 2 * np.array(p2)
    return [np.vstack([seg1, seg2[1:]])]


def pen_cross(cx, cy, s, rng):
    r = s * 0.45
    j = lambda: rng.uniform(-0.08, 0.08) * s
    return [np.array([(cx - r + j(), cy - r + j()), (cx + r + j(), cy + r + j())]),
            np.array([(cx + r + j(), cy - r + j()), (cx - r + j(), cy + r + j())])]


def pen_ring(cx, cy, rx, ry, rng):
    n = 40
    a0 = rng.uniform(0, 2 * np.pi)
    t = a0 + np.linspace(0, 2 * np.pi + rng.uniform(0.3, 0.7), n)
    wob = 1 + smooth_noise(rng, n, 0.08)
    pts = np.stack([cx + rx * wob * np.cos(t), cy + ry * wob * np.sin(t)], 1)
    return [pts]


def hand_mask(text, size, rng, pyr):
    key = pyr.choice(['lat_sans_i', 'dj_sans_o', 'lat_serif_i', 'dj_serif_i'])
    f = get_font(key, int(size))
    w = int(f.getlength(text) + size * 1.6)
    h = int(size * 2.2)
    im = Image.new('L', (w, h), 0)
    ImageDraw.Draw(im).text((size * 0.8, size * 1.5), text, font=f, fill=255, anchor='ls')
    arr = np.array(im)
    k = max(1, int(round(size / 16)))
    if k > 1:
        arr = cv2.dilate(arr, np.ones((k, k), np.uint8))
    ang = rng.uniform(-12, 8)
    M = cv2.getRotationMatrix2D((w / 2, h / 2), ang, rng.uniform(0.95, 1.1))
    sh = rng.uniform(-0.35, -0.05)
    M[0, 1] += sh
    M[0, 2] -= sh * h / 2
    arr = cv2.warpAffine(arr, M, (w, h), flags=cv2.INTER_LINEAR)
    dx = cv2.resize(rng.normal(0, 1, (3, 5)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC) * size * 0.05
    dy = cv2.resize(rng.normal(0, 1, (3, 5)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC) * size * 0.05
    gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    arr = cv2.remap(arr, gx + dx, gy + dy, cv2.INTER_LINEAR)
    return arr


def add_handwriting(page, case, pyr, rng):
    """Pen marks in page coordinates. Never touches the framed problem's printed text."""
    st = page.st
    E = st['E']
    tgt = page.target
    forbid = [(r[0] - 0.35 * E, r[1] - 0.35 * E, r[2] + 0.35 * E, r[3] + 0.35 * E) for r in tgt['prints']]
    marks = []
    kinds = []
    blue = pyr.choice([(28, 45, 140), (20, 25, 35), (35, 60, 160), (50, 40, 110)])
    red = pyr.choice([(200, 30, 35), (215, 45, 50), (185, 20, 40)])
    pen_w = max(2.0, E * pyr.uniform(0.07, 0.11))

    def ok(box):
        return not any(rects_hit(box, f) for f in forbid)

    def add_strokes(strokes, col, width, tag):
        allp = np.vstack(strokes)
        box = (allp[:, 0].min() - width, allp[:, 1].min() - width, allp[:, 0].max() + width, allp[:, 1].max() + width)
        if not ok(box):
            return False
        marks.append(('stroke', [s.tolist() for s in strokes], width, col))
        kinds.append(tag)
        return True

    def add_text(text, cx, cy, size, col, tag):
        m = hand_mask(text, size, rng, pyr)
        h, w = m.shape
        box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        # the mask has generous padding; test the inked part
        ys, xs = np.nonzero(m > 40)
        if len(xs) == 0:
            return False
        ib = (box[0] + xs.min(), box[1] + ys.min(), box[0] + xs.max(), box[1] + ys.max())
        if not ok(ib):
            return False
        marks.append(('hand', box[0], box[1], m, col))
        kinds.append(tag)
        return True

    nbs = [p for p in page.problems if not p['is_target']]
    # distance in the problem sequence from the target: prefer close neighbours
    ti = page.target_index
    nbs_sorted = sorted(nbs, key=lambda p: abs(page.problems.index(p) - ti))
    want = case.get('handwriting')
    if want:
        for p in nbs_sorted[:6]:
            r = pyr.random()
            if p['bracket'] and r < 0.8:
                bx = p['bracket']
                add_text(pyr.choice(HAND_BRACKET), (bx[0] + bx[2]) / 2, (bx[1] + bx[3]) / 2, E * pyr.uniform(1.1, 1.5), blue, 'answer_in_bracket')
            elif p['ans'] and r < 0.75:
                a = p['ans'][0]
                add_text(pyr.choice(HAND_LINE), a[0] + min(a[2] - a[0], 8 * E) * pyr.uniform(0.25, 0.55), a[3] - 0.55 * E,
                         E * pyr.uniform(1.0, 1.4), blue, 'answer_on_line')
            r = pyr.random()
            lab = p['label']
            if r < 0.3:
                add_strokes(pen_tick(lab[0] - 0.9 * E, (lab[1] + lab[3]) / 2, E * pyr.uniform(1.1, 1.6), rng), red, pen_w, 'tick')
            elif r < 0.45:
                add_strokes(pen_cross(lab[0] - 0.9 * E, (lab[1] + lab[3]) / 2, E * pyr.uniform(0.9, 1.3), rng), red, pen_w, 'cross')
            elif r < 0.6:
                cx, cy = (lab[0] + lab[2]) / 2, (lab[1] + lab[3]) / 2
                add_strokes(pen_ring(cx, cy, (lab[2] - lab[0]) / 2 + 0.35 * E, 0.75 * E, rng), blue, pen_w * 0.8, 'circled_number')
        # teacher's score in the margin near some problem (maybe the target, outside its text)
        cand = nbs_sorted[:3] + [tgt]
        pyr.shuffle(cand)
        for p in cand[:2]:
            lab = p['label']
            size = E * pyr.uniform(1.3, 2.0)
            side = pyr.random()
            if side < 0.6:
                cx = lab[0] - size * 1.1
            else:
                cx = page.cols[p['col']][0] + page.cols[p['col']][1] + size * 0.6
            add_text(pyr.choice(TEACHER), cx, (lab[1] + lab[3]) / 2 - 0.2 * E, size, red, 'teacher_score')
    if case.get('ring_label'):
        lab = tgt['label']
        cx, cy = (lab[0] + lab[2]) / 2, (lab[1] + lab[3]) / 2
        rx = (lab[2] - lab[0]) / 2 + 0.3 * E
        ry = 0.72 * E
        ring_box = (cx - rx, cy - ry, cx + rx, cy + ry)
        texts_only = [r for r in tgt['prints'] if r is not lab]
        how = case['ring_label']
        done = False
        if how == 'ring' and not any(rects_hit(ring_box, r) for r in texts_only):
            marks.append(('stroke', [s.tolist() for s in pen_ring(cx, cy, rx, ry, rng)], pen_w * 0.8, pyr.choice([blue, red])))
            kinds.append('target_label_ringed')
            done = True
        if not done:
            s = E * 1.2
            tx = lab[0] - 0.8 * s
            tb = (tx - s, cy - s, tx + s, cy + s)
            if not any(rects_hit(tb, r) for r in texts_only):
                marks.append(('stroke', [s_.tolist() for s_ in pen_tick(tx, cy, s, rng)], pen_w, pyr.choice([blue, red])))
                kinds.append('target_label_ticked')
    return marks, kinds

# ----------------------------------------------------------------------------------------
# rasterising a crop of the page


def raster_page(page, crop, wm, marks, rng, pyr):
    x0, y0, x1, y1 = crop
    w, h = x1 - x0, y1 - y0
    st = page.st
    E = st['E']
    paper = np.array(st['paper'], np.float32)
    # paper with low-frequency blotches + fibre grain
    low = cv2.resize(rng.normal(0, 1, (max(2, h // 90), max(2, w // 90))).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    grain = rng.normal(0, 1, (h, w)).astype(np.float32)
    grain = cv2.GaussianBlur(grain, (0, 0), 0.8)
    base = paper[None, None, :] + (low * pyr.uniform(1.5, 3.5) + grain * pyr.uniform(1.5, 3.0))[:, :, None]
    # watermark / background print layer
    if wm:
        layer = Image.new('L', (w, h), 0)
        draw_watermark(layer, wm, page, x0, y0, pyr)
        m = np.asarray(layer, np.float32) / 255.0
        for spec in wm:
            pass
        col = np.array(wm[0]['color'], np.float32)
        a = wm[0]['alpha']
        base = base * (1 - a * m[:, :, None]) + col[None, None, :] * (a * m[:, :, None])
    img = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8), 'RGB')
    d = ImageDraw.Draw(img)
    for op in page.ops:
        draw_op(img, d, op, x0, y0)
    for mk in marks:
        draw_op(img, d, mk, x0, y0)
    return np.asarray(img)


def draw_op(img, d, op, ox, oy):
    kind = op[0]
    if kind == 'text':
        _, x, y, text, face, size, color = op
        x -= ox
        y -= oy
        if x > img.width + 10 or y < -size * 2 or y > img.height + size * 2:
            return
        for s, k in text_runs(text, face):
            f = get_font(k, size)
            d.text((x, y), s, font=f, fill=color, anchor='ls')
            x += f.getlength(s)
    elif kind == 'line':
        _, pts, width, color = op
        d.line([(px - ox, py - oy) for px, py in pts], fill=color, width=max(1, int(round(width))))
    elif kind == 'rect':
        _, box, outline, width, fill = op
        d.rectangle((box[0] - ox, box[1] - oy, box[2] - ox, box[3] - oy), outline=outline, width=max(1, int(round(width))), fill=fill)
    elif kind == 'ellipse':
        box, outline, width = op[1], op[2], op[3]
        fill = op[4] if len(op) > 4 else None
        d.ellipse((box[0] - ox, box[1] - oy, box[2] - ox, box[3] - oy), outline=outline, width=max(1, int(round(width))), fill=fill)
    elif kind == 'rtext':
        _, cx, cy, text, face, size, color, ang = op
        tw = int(text_width(text, face, size) + size)
        im = Image.new('L', (tw, int(size * 1.6)), 0)
        dd = ImageDraw.Draw(im)
        xx = size * 0.5
        for s, k in text_runs(text, face):
            f = get_font(k, size)
            dd.text((xx, size * 1.15), s, font=f, fill=255, anchor='ls')
            xx += f.getlength(s)
        im = im.rotate(ang, expand=True, resample=Image.BICUBIC)
        img.paste(color, (int(cx - ox - im.width / 2), int(cy - oy - im.height / 2)), im)
    elif kind == 'fields':
        _, cx, cy, segs, face, size, color, ang = op
        total = sum(text_width(t, face, size) + L * size + size * 1.2 for t, L in segs) + size
        im = Image.new('L', (int(total), int(size * 1.7)), 0)
        dd = ImageDraw.Draw(im)
        xx = size * 0.5
        base = size * 1.2
        for t, L in segs:
            for s, k in text_runs(t, face):
                f = get_font(k, size)
                dd.text((xx, base), s, font=f, fill=255, anchor='ls')
                xx += f.getlength(s)
            dd.line([(xx + size * 0.15, base + size * 0.15), (xx + L * size, base + size * 0.15)], fill=255, width=max(1, size // 18))
            xx += L * size + size * 1.2
        im = im.rotate(ang, expand=True, resample=Image.BICUBIC)
        img.paste(color, (int(cx - ox - im.width / 2), int(cy - oy - im.height / 2)), im)
    elif kind == 'stroke':
        _, strokes, width, color = op
        for s in strokes:
            pts = [(px - ox, py - oy) for px, py in s]
            d.line(pts, fill=color, width=max(1, int(round(width))), joint='curve')
            r = width / 2.0
            for px, py in (pts[0], pts[-1]):
                d.ellipse((px - r, py - r, px + r, py + r), fill=color)
    elif kind == 'hand':
        _, bx, by, m, color = op
        alpha = Image.fromarray((m.astype(np.float32) * 0.92).astype(np.uint8), 'L')
        img.paste(color, (int(bx - ox), int(by - oy)), alpha)


def draw_watermark(layer, wm, page, ox, oy, pyr):
    d = ImageDraw.Draw(layer)
    E = page.st['E']
    for spec in wm:
        t = spec['type']
        if t in ('diag', 'center', 'tiled'):
            size = int(spec['size'])
            face = spec['face']
            tw = int(text_width(spec['text'], face, size) + size)
            tile = Image.new('L', (tw, int(size * 1.6)), 0)
            dd = ImageDraw.Draw(tile)
            xx = size * 0.5
            for s, k in text_runs(spec['text'], face):
                f = get_font(k, size)
                dd.text((xx, size * 1.15), s, font=f, fill=spec.get('level', 255), anchor='ls')
                xx += f.getlength(s)
            if spec['angle']:
                tile = tile.rotate(spec['angle'], expand=True, resample=Image.BICUBIC)
            if t == 'center':
                centers = [(page.Wp / 2, page.Hp * spec.get('yfrac', 0.5))]
            else:
                centers = []
                sx, sy = spec['step_x'], spec['step_y']
                rows = int(page.Hp / sy) + 3
                cols = int(page.Wp / sx) + 3
                for r in range(-1, rows):
                    for c in range(-1, cols):
                        centers.append((c * sx + (r % 2) * sx * spec.get('stagger', 0.5) + spec.get('phase', 0), r * sy + sy * 0.3))
            for cx, cy in centers:
                px, py = int(cx - ox - tile.width / 2), int(cy - oy - tile.height / 2)
                if px > layer.width or py > layer.height or px + tile.width < 0 or py + tile.height < 0:
                    continue
                layer.paste(255, (px, py), tile)
        elif t == 'grid':
            g = spec['step']
            lw = max(1, int(E / 30))
            xs = np.arange(0, page.Wp, g)
            ys = np.arange(0, page.Hp, g)
            for x in xs:
                if ox - 2 <= x <= ox + layer.width + 2:
                    d.line([(x - ox, 0), (x - ox, layer.height)], fill=spec.get('level', 200), width=lw)
            for y in ys:
                if oy - 2 <= y <= oy + layer.height + 2:
                    d.line([(0, y - oy), (layer.width, y - oy)], fill=spec.get('level', 200), width=lw)
        elif t == 'logo':
            cx, cy = spec['cx'] - ox, spec['cy'] - oy
            R = spec['r']
            lw = max(2, int(R / 14))
            d.ellipse((cx - R, cy - R, cx + R, cy + R), outline=255, width=lw)
            d.ellipse((cx - R * 0.78, cy - R * 0.78, cx + R * 0.78, cy + R * 0.78), outline=255, width=max(1, lw // 2))
            star = []
            for k in range(10):
                rr = R * (0.55 if k % 2 == 0 else 0.22)
                a = -math.pi / 2 + k * math.pi / 5
                star.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
            d.polygon(star, fill=255)
            size = int(R * 0.32)
            face = spec['face']
            tw = text_width(spec['text'], face, size)
            xx = cx - tw / 2
            for s, k in text_runs(spec['text'], face):
                f = get_font(k, size)
                d.text((xx, cy + R + size * 1.3), s, font=f, fill=255, anchor='ls')
                xx += f.getlength(s)


def make_watermark(page, case, pyr):
    st = page.st
    E = st['E']
    zh = st['lang'] == 'zh'
    name = case['school'] if pyr.random() < 0.5 else pyr.choice(PUBL_ZH if zh else PUBL_EN)
    if not zh and pyr.random() < 0.3:
        name = name.upper()
    wface = pyr.choice([('cjk_sans_b', 'lat_sans_b', 'dj_sans_b'), ('cjk_serif_b', 'lat_serif_b', 'dj_serif_b'), ('cjk_sans', 'lat_sans', 'dj_sans')])
    color = pyr.choice([(120, 120, 120), (160, 60, 60), (70, 90, 160), (90, 130, 90), (140, 110, 80)])
    sub = case.get('wm_kind') or pyr.choice(['diag20', 'diag45', 'center', 'tiled', 'grid', 'logo'])
    specs = []
    alpha = pyr.uniform(0.07, 0.14)
    if sub in ('diag20', 'diag45'):
        ang = (20 if sub == 'diag20' else 45) * pyr.choice([1, 1, -1]) + pyr.uniform(-2, 2)
        size = E * pyr.uniform(2.2, 3.6)
        tw = text_width(name, wface, int(size))
        specs.append({'type': 'diag', 'text': name, 'face': wface, 'size': size, 'angle': ang,
                      'step_x': tw * pyr.uniform(1.1, 1.5), 'step_y': size * pyr.uniform(3.0, 4.5), 'stagger': 0.5,
                      'phase': pyr.uniform(0, tw)})
    elif sub == 'center':
        size = E * pyr.uniform(4.0, 6.5)
        txt = name if pyr.random() < 0.7 else (pyr.choice(['样卷', '内部资料', '绝密']) if zh else pyr.choice(['SAMPLE', 'CONFIDENTIAL']))
        while text_width(txt, wface, int(size)) > page.Wp * 0.9 and size > 2 * E:
            size *= 0.9
        specs.append({'type': 'center', 'text': txt, 'face': wface, 'size': size, 'angle': 0, 'yfrac': pyr.uniform(0.35, 0.6)})
        alpha = pyr.uniform(0.06, 0.11)
    elif sub == 'tiled':
        size = E * pyr.uniform(0.8, 1.3)
        txt = name + pyr.choice(['', '  www.%s.cn' % pyr.choice(['qimingsj', 'xuehai', 'jinbang', 'youxue']) if zh else '  www.exampro.org'])
        tw = text_width(txt, wface, int(size))
        specs.append({'type': 'tiled', 'text': txt, 'face': wface, 'size': size, 'angle': pyr.choice([0, 0, 30, -30, 15]),
                      'step_x': tw * pyr.uniform(1.3, 1.8), 'step_y': size * pyr.uniform(3.5, 6.0), 'stagger': 0.5, 'phase': 0})
        alpha = pyr.uniform(0.10, 0.18)
    elif sub == 'grid':
        specs.append({'type': 'grid', 'step': E * pyr.uniform(1.0, 1.6), 'level': 255})
        color = pyr.choice([(120, 150, 190), (150, 150, 150), (190, 120, 120), (120, 170, 140)])
        alpha = pyr.uniform(0.12, 0.22)
    else:
        tgt = page.target['block']
        specs.append({'type': 'logo', 'cx': pyr.uniform(tgt[0], tgt[2]), 'cy': (tgt[1] + tgt[3]) / 2 + pyr.uniform(-4, 4) * E,
                      'r': E * pyr.uniform(4, 7), 'text': name, 'face': wface})
        alpha = pyr.uniform(0.07, 0.12)
    specs[0]['color'] = color
    specs[0]['alpha'] = alpha
    return specs, sub

# ----------------------------------------------------------------------------------------
# camera


def curl_disp(x, y, curl):
    side, Z, c, v, yc, Wp = curl
    if side == 'left':
        d = np.clip(Z - x, 0, None)
        dx = c * d * d / Z
    else:
        d = np.clip(x - (Wp - Z), 0, None)
        dx = -c * d * d / Z
    dy = v * (d / Z) ** 2 * (y - yc)
    return dx, dy


def forward(pts, cam):
    pts = np.asarray(pts, np.float64)
    x, y = pts[:, 0], pts[:, 1]
    if cam['curl']:
        dx, dy = curl_disp(x, y, cam['curl'])
        x, y = x + dx, y + dy
    Hm = cam['H']
    q = Hm @ np.stack([x, y, np.ones_like(x)])
    return np.stack([q[0] / q[2], q[1] / q[2]], 1)


def inverse_grid(cam, W, H):
    Hi = np.linalg.inv(cam['H'])
    u, v = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
    q0 = Hi[0, 0] * u + Hi[0, 1] * v + Hi[0, 2]
    q1 = Hi[1, 0] * u + Hi[1, 1] * v + Hi[1, 2]
    q2 = Hi[2, 0] * u + Hi[2, 1] * v + Hi[2, 2]
    q2 = np.where(np.abs(q2) < 1e-6, 1e-6, q2)
    xp, yp = np.clip(q0 / q2, -1e6, 1e6), np.clip(q1 / q2, -1e6, 1e6)
    if cam['curl']:
        x, y = xp.copy(), yp.copy()
        for _ in range(10):
            dx, dy = curl_disp(np.clip(x, -1e5, 1e5), np.clip(y, -1e5, 1e5), cam['curl'])
            x, y = np.clip(xp - dx, -1e6, 1e6), np.clip(yp - dy, -1e6, 1e6)
        return x, y
    return xp, yp


def build_H(W, H, anchor, s, theta, a, b, off):
    T1 = np.array([[1, 0, -anchor[0]], [0, 1, -anchor[1]], [0, 0, 1]], float)
    S = np.diag([s, s, 1.0])
    c, sn = math.cos(math.radians(theta)), math.sin(math.radians(theta))
    R = np.array([[c, -sn, 0], [sn, c, 0], [0, 0, 1]], float)
    P = np.array([[1, 0, 0], [0, 1, 0], [a, b, 1]], float)
    T2 = np.array([[1, 0, W / 2 + off[0]], [0, 1, H / 2 + off[1]], [0, 0, 1]], float)
    return T2 @ P @ R @ S @ T1


def rect_pts(r, n=3):
    x0, y0, x1, y1 = r
    pts = []
    for t in np.linspace(0, 1, n):
        pts += [(x0 + (x1 - x0) * t, y0), (x0 + (x1 - x0) * t, y1), (x0, y0 + (y1 - y0) * t), (x1, y0 + (y1 - y0) * t)]
    return pts


def quad_dist(cam, r, c):
    q = forward([(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3])], cam).astype(np.float32)
    v = cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(c[0]), float(c[1])), True)
    return max(0.0, -v)


def eval_camera(page, cam, W, H):
    E = page.st['E']
    tgt = page.target
    # local em at the target
    ems = []
    hs = []
    for r in tgt['prints']:
        q = forward([(r[0], r[1]), (r[0], r[3]), (r[2], r[1]), (r[2], r[3])], cam)
        hgt = r[3] - r[1]
        wid = r[2] - r[0]
        v1 = np.linalg.norm(q[1] - q[0]) / hgt
        v2 = np.linalg.norm(q[3] - q[2]) / hgt
        hh = min(np.linalg.norm(q[2] - q[0]), np.linalg.norm(q[3] - q[1])) / max(wid, 1)
        ems.append(min(v1, v2) * E)
        hs.append(hh / max(min(v1, v2), 1e-6))
    em = min(ems)
    if em < EM_MIN or min(hs) < 0.8:
        return None, 'scale'
    m = max(10.0, 0.4 * em)
    allp = forward([p for r in tgt['prints'] for p in rect_pts(r)], cam)
    if allp[:, 0].min() < m or allp[:, 1].min() < m or allp[:, 0].max() > W - m or allp[:, 1].max() > H - m:
        return None, 'outside'
    c = (W / 2.0, H / 2.0)
    dt = min(quad_dist(cam, r, c) for r in tgt['prints'])
    if dt > max(0.6 * em, 12):
        return None, 'offcentre'
    do = 1e9
    for p in page.problems:
        if p['is_target']:
            continue
        for r in p['prints']:
            do = min(do, quad_dist(cam, r, c))
    if do < dt + max(1.0 * em, 0.02 * min(W, H)):
        return None, 'neighbour'
    nb_vis = 0
    for p in page.problems:
        if p['is_target']:
            continue
        for r in p['prints']:
            q = forward([(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3])], cam)
            if q[:, 0].max() > 0 and q[:, 0].min() < W and q[:, 1].max() > 0 and q[:, 1].min() < H:
                nb_vis += 1
                break
    if nb_vis < 1:
        return None, 'alone'
    bbox = (allp[:, 0].min(), allp[:, 1].min(), allp[:, 0].max(), allp[:, 1].max())
    return {'em': em, 'dt': dt, 'do': do, 'nb_vis': nb_vis, 'bbox': bbox}, 'ok'


def visible(cam, W, H, pts):
    q = forward(pts, cam)
    return bool(((q[:, 0] > 0) & (q[:, 0] < W) & (q[:, 1] > 0) & (q[:, 1] < H)).any())


def solve_camera(page, case, pyr):
    """Find a camera that frames the target: complete, legible, nearest the photo centre."""
    W, H = case['W'], case['H']
    E = page.st['E']
    tgt = page.target
    texts = tgt['texts']
    blk = rect_union(tgt['prints'])
    em_goal = case['em_goal']
    rot0 = case['rot']
    persp0 = case['persp']
    curl = None
    if case.get('curl'):
        side = page.bind or pyr.choice(['left', 'left', 'right'])
        Z = (page.cols[0][0] if side == 'left' else page.Wp - (page.cols[-1][0] + page.cols[-1][1])) + pyr.uniform(1.0, 4.0) * E
        curl = (side, Z, pyr.uniform(0.12, 0.3), pyr.uniform(0.02, 0.06), page.Hp / 2, page.Wp)
    prefs = []
    if page.bind and page.binding_x is not None:
        prefs.append(('binding', [(page.binding_x, y) for y in np.linspace(page.Hp * 0.05, page.Hp * 0.95, 40)]))
    if case.get('furniture'):
        fp = [p for r in page.furn_rects for p in rect_pts(r, 4)]
        if fp:
            prefs.append(('furniture', fp))
    bias_x = {'left': -1.0, 'right': 1.0}.get(page.bind, 0.0)     # aim at the text end nearest the binding
    bias_y = 0.0
    if case.get('furniture') and page.furn_rects:
        fy = np.mean([(r[1] + r[3]) / 2 for r in page.furn_rects])
        bias_y = -1.0 if fy < (blk[1] + blk[3]) / 2 else 1.0
    # largest scale at which the whole framed block fits (ignoring perspective)
    bw, bh = blk[2] - blk[0], blk[3] - blk[1]
    th = math.radians(abs(rot0))
    rw = bw * math.cos(th) + bh * math.sin(th)
    rh = bw * math.sin(th) + bh * math.cos(th)
    s_fit = min((W - 40) / rw, (H - 40) / rh)
    em = min(em_goal, s_fit * E * 0.97)
    if em < EM_MIN:
        return None
    fallback = None
    levels = 0
    while em >= EM_MIN * 1.005 and levels < 14:
        sc = em / E
        half_w = (W / 2 - 20) / sc
        half_h = (H / 2 - 20) / sc
        for t in range(8):
            shrink = 1.0 - t / 10.0
            # anchor: a point on the framed text that will sit near the photo centre
            feas = []
            for kk, r in enumerate(texts):
                lo = max(r[0], blk[2] - half_w)
                hi = min(r[2], blk[0] + half_w)
                if lo <= hi:
                    feas.append((kk, r, lo, hi))
            if not feas:
                break
            if bias_y < 0:
                kk, r, lo, hi = feas[0]
            elif bias_y > 0:
                kk, r, lo, hi = feas[-1]
            else:
                kk, r, lo, hi = feas[int(pyr.choices(range(len(feas)), weights=[f[3] - f[2] + E for f in feas])[0])]
            if bias_x < 0:
                hi = lo + (hi - lo) * 0.3
            elif bias_x > 0:
                lo = hi - (hi - lo) * 0.3
            ax = pyr.uniform(lo, hi)
            ay = pyr.uniform(r[1] + 0.2 * E, r[3] - 0.2 * E)
            ay = min(max(ay, blk[3] - half_h), blk[1] + half_h)
            anchor = np.array([ax, ay])
            if curl:
                dx, dy = curl_disp(np.array([ax]), np.array([ay]), curl)
                anchor = np.array([ax + dx[0], ay + dy[0]])
            theta = rot0 * (1.0 if t < 3 else shrink)
            a = persp0[0] * shrink / max(W, H)
            b = persp0[1] * shrink / max(W, H)
            off = (pyr.uniform(-0.3, 0.3) * em, pyr.uniform(-0.2, 0.2) * em)
            cam = {'H': build_H(W, H, anchor, sc, theta, a, b, off), 'curl': curl, 'theta': theta, 'a': a, 'b': b}
            res, why = eval_camera(page, cam, W, H)
            if res is None:
                continue
            cam['res'] = res
            prefs_ok = [name for name, pts in prefs if visible(cam, W, H, pts)]
            cam['prefs_ok'] = prefs_ok
            if len(prefs_ok) == len(prefs):
                return cam
            if fallback is None or len(prefs_ok) > len(fallback['prefs_ok']):
                fallback = cam
        if fallback is not None and levels >= 3:
            break
        em *= 0.95
        levels += 1
    return fallback

# ----------------------------------------------------------------------------------------
# photo effects


def make_background(W, H, rng, pyr):
    kind = pyr.choice(['wood', 'wood', 'dark', 'light', 'cloth', 'desk_grey'])
    u, v = np.meshgrid(np.linspace(0, 1, W, dtype=np.float32), np.linspace(0, 1, H, dtype=np.float32))
    noise = cv2.resize(rng.normal(0, 1, (max(2, H // 40), max(2, W // 40))).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    fine = rng.normal(0, 1, (H, W)).astype(np.float32)
    if kind == 'wood':
        base = np.array(pyr.choice([(160, 115, 75), (190, 150, 105), (120, 80, 50), (205, 170, 125)]), np.float32)
        ang = pyr.uniform(-0.3, 0.3) + pyr.choice([0, np.pi / 2])
        across = u * math.cos(ang) * W + v * math.sin(ang) * H          # across the grain
        along = -u * math.sin(ang) * W + v * math.cos(ang) * H
        warp = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
        pos = across + warp * pyr.uniform(10, 30) + np.sin(along / pyr.uniform(150, 400)) * pyr.uniform(5, 20)
        period = pyr.uniform(5, 11)
        fine_lines = np.sin(pos / period * 2 * np.pi + np.sin(pos / 37.0))
        bands = np.sin(pos / (period * pyr.uniform(6, 14)) * 2 * np.pi)
        streak = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), 0.6)
        grain = 0.35 * fine_lines + 0.5 * bands
        img = base[None, None] * (1 + 0.07 * grain[:, :, None]) + streak[:, :, None] * 3 + noise[:, :, None] * 3
    elif kind == 'dark':
        base = np.array(pyr.choice([(45, 45, 50), (60, 55, 50), (35, 40, 45)]), np.float32)
        img = base[None, None] + noise[:, :, None] * 6 + fine[:, :, None] * 4
    elif kind == 'light':
        base = np.array(pyr.choice([(205, 205, 200), (220, 215, 205), (190, 195, 200)]), np.float32)
        img = base[None, None] + noise[:, :, None] * 5 + fine[:, :, None] * 3
    elif kind == 'cloth':
        base = np.array(pyr.choice([(60, 75, 110), (90, 60, 60), (70, 95, 80)]), np.float32)
        weave = (np.sin(u * W * 1.3) * np.sin(v * H * 1.3)) * 6
        img = base[None, None] + weave[:, :, None] + noise[:, :, None] * 6 + fine[:, :, None] * 5
    else:
        base = np.array(pyr.choice([(140, 140, 140), (165, 160, 150)]), np.float32)
        img = base[None, None] + noise[:, :, None] * 5 + fine[:, :, None] * 3
    return img, kind


def apply_photo(page_img, page, crop, cam, case, rng, pyr, W, H):
    x0, y0, x1, y1 = crop
    xs, ys = cam['grid']
    mx = (xs - x0).astype(np.float32)
    my = (ys - y0).astype(np.float32)
    st = page.st
    E = st['E']
    s = cam['res']['em'] / E
    # slight pre-blur to avoid aliasing when downscaling
    src = page_img
    if s < 0.9:
        src = cv2.GaussianBlur(page_img, (0, 0), 0.35 / max(s, 0.3))
    warped = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    # page mask with soft edge
    dist = np.minimum(np.minimum(xs, page.Wp - xs), np.minimum(ys, page.Hp - ys))
    mask = np.clip(dist * s + 0.5, 0, 1).astype(np.float32)
    bg, bgkind = make_background(W, H, rng, pyr)
    # sheet(s) under the page
    if pyr.random() < 0.35:
        dx, dy = pyr.uniform(-0.02, 0.02) * page.Wp, pyr.uniform(-0.02, 0.02) * page.Hp
        d2 = np.minimum(np.minimum(xs - dx, page.Wp - xs + dx), np.minimum(ys - dy, page.Hp - ys + dy))
        m2 = np.clip(d2 * s + 0.5, 0, 1).astype(np.float32)
        sheet = np.array(st['paper'], np.float32) * 0.93
        bg = bg * (1 - m2[:, :, None]) + sheet[None, None] * m2[:, :, None]
    # drop shadow
    shadow = cv2.GaussianBlur(mask, (0, 0), max(2.0, 0.008 * max(W, H)))
    sh = np.roll(np.roll(shadow, int(pyr.uniform(2, 8)), 0), int(pyr.uniform(-6, 6)), 1)
    bg = bg * (1 - 0.45 * sh[:, :, None])
    img = bg * (1 - mask[:, :, None]) + warped * mask[:, :, None]
    info = {'background': bgkind}
    # curl shading
    if cam['curl']:
        side, Z, c, v, yc, Wp = cam['curl']
        dd = np.clip(Z - xs, 0, None) if side == 'left' else np.clip(xs - (Wp - Z), 0, None)
        shade = 1 - pyr.uniform(0.15, 0.35) * np.clip(dd / Z, 0, 1.2) ** 2
        img *= shade.astype(np.float32)[:, :, None]
    # lighting
    u, vv = np.meshgrid(np.linspace(-0.5, 0.5, W, dtype=np.float32), np.linspace(-0.5, 0.5, H, dtype=np.float32))
    light = np.ones((H, W), np.float32) * pyr.uniform(0.86, 1.04)
    light *= 1 + pyr.uniform(-0.22, 0.22) * u + pyr.uniform(-0.22, 0.22) * vv
    lamp = case.get('lamp')
    if lamp:
        lx, ly = pyr.uniform(-0.6, 0.6), pyr.uniform(-0.6, 0.6)
        sig = pyr.uniform(0.3, 0.6)
        light *= 0.85 + pyr.uniform(0.15, 0.3) * np.exp(-((u - lx) ** 2 + (vv - ly) ** 2) / (2 * sig * sig))
    vig = pyr.uniform(0.05, 0.35)
    light *= 1 - vig * (u * u + vv * vv) * 1.6
    tint = pyr.choice([(1.0, 1.0, 1.0), (1.0, 0.96, 0.86), (1.0, 0.93, 0.8), (0.95, 0.98, 1.03), (1.0, 0.98, 0.94)])
    if lamp:
        tint = pyr.choice([(1.0, 0.94, 0.8), (1.0, 0.9, 0.74), (1.0, 0.96, 0.86)])
    img = img * light[:, :, None] * np.array(tint, np.float32)[None, None]
    info['lamp'] = bool(lamp)
    if case.get('shadow'):
        # a soft shadow of a hand / phone coming from one edge
        poly = []
        edge = pyr.choice(['l', 'r', 't', 'b', 'corner'])
        cx, cy = W / 2, H / 2
        if edge == 'l':
            poly = [(-50, pyr.uniform(0, H * 0.4)), (pyr.uniform(0.2, 0.4) * W, pyr.uniform(0.3, 0.5) * H),
                    (pyr.uniform(0.25, 0.45) * W, pyr.uniform(0.6, 0.8) * H), (-50, H + 50)]
        elif edge == 'r':
            poly = [(W + 50, pyr.uniform(0, H * 0.4)), (pyr.uniform(0.6, 0.8) * W, pyr.uniform(0.3, 0.5) * H),
                    (pyr.uniform(0.55, 0.75) * W, pyr.uniform(0.6, 0.8) * H), (W + 50, H + 50)]
        elif edge == 't':
            poly = [(pyr.uniform(0, 0.3) * W, -50), (pyr.uniform(0.2, 0.5) * W, pyr.uniform(0.2, 0.4) * H),
                    (pyr.uniform(0.6, 0.9) * W, pyr.uniform(0.15, 0.35) * H), (W + 50, -50)]
        elif edge == 'b':
            poly = [(pyr.uniform(0, 0.3) * W, H + 50), (pyr.uniform(0.2, 0.5) * W, pyr.uniform(0.65, 0.85) * H),
                    (pyr.uniform(0.6, 0.9) * W, pyr.uniform(0.7, 0.85) * H), (W + 50, H + 50)]
        else:
            poly = [(-50, -50), (pyr.uniform(0.3, 0.6) * W, -50), (pyr.uniform(0.1, 0.3) * W, pyr.uniform(0.3, 0.5) * H), (-50, pyr.uniform(0.4, 0.7) * H)]
        m = np.zeros((H, W), np.uint8)
        cv2.fillPoly(m, [np.array(poly, np.int32)], 255)
        m = cv2.GaussianBlur(m.astype(np.float32) / 255.0, (0, 0), pyr.uniform(0.03, 0.08) * max(W, H))
        depth = pyr.uniform(0.25, 0.42)
        img = img * (1 - depth * m)[:, :, None]
        info['shadow'] = edge
    # optics: blur / sharpening
    if case.get('blur'):
        if pyr.random() < 0.7:
            sg = pyr.uniform(0.6, 1.15)
            img = cv2.GaussianBlur(img, (0, 0), sg)
            info['blur'] = 'gauss%.2f' % sg
        else:
            L = pyr.randint(3, 5)
            k = np.zeros((L, L), np.float32)
            k[L // 2, :] = 1.0
            M = cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5), pyr.uniform(0, 180), 1.0)
            k = cv2.warpAffine(k, M, (L, L))
            k /= k.sum()
            img = cv2.filter2D(img, -1, k)
            info['blur'] = 'motion%d' % L
    else:
        img = cv2.GaussianBlur(img, (0, 0), pyr.uniform(0.35, 0.6))
        if case['src'] != '%dx%d' % (W, H) or pyr.random() < 0.4:
            bl = cv2.GaussianBlur(img, (0, 0), 1.5)
            img = cv2.addWeighted(img, 1.4, bl, -0.4, 0)
    # sensor noise (luma + chroma)
    ns = pyr.uniform(1.5, 4.5)
    img = img + rng.normal(0, ns, (H, W, 1)).astype(np.float32) + rng.normal(0, ns * 0.5, (H, W, 3)).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    return img, info

# ----------------------------------------------------------------------------------------
# one photo


def render_case(case):
    seed, i = case['seed'], case['i']
    rng = np.random.default_rng([seed, i, 3637])
    pyr = random.Random('tune36:%d:%d' % (seed, i))
    W, H = case['W'], case['H']
    page = cam = None
    for attempt in range(8):
        c2 = dict(case)
        if attempt >= 4:
            c2['rot'] = case['rot'] * 0.5
            c2['persp'] = (case['persp'][0] * 0.5, case['persp'][1] * 0.5)
            c2['layout'] = 'double'
        pb = PageBuilder(c2, None, pyr, rng, attempt)
        page = pb.build()
        if page is None:
            continue
        cam = solve_camera(page, c2, pyr)
        if cam is not None:
            case = c2
            break
    if cam is None:
        raise RuntimeError('no camera for case %d' % i)
    info = {}
    # watermark
    wm = None
    if case.get('watermark'):
        wm, sub = make_watermark(page, case, pyr)
        info['watermark'] = sub
    # handwriting
    marks, hk = add_handwriting(page, case, pyr, rng)
    info['handwriting'] = '+'.join(sorted(set(hk)))
    # crop of the page actually seen
    xs, ys = inverse_grid(cam, W, H)
    cam['grid'] = (xs, ys)
    inside = (xs >= -2) & (xs <= page.Wp + 2) & (ys >= -2) & (ys <= page.Hp + 2)
    cx0 = int(max(0, math.floor(xs[inside].min()) - 3))
    cy0 = int(max(0, math.floor(ys[inside].min()) - 3))
    cx1 = int(min(page.Wp, math.ceil(xs[inside].max()) + 3))
    cy1 = int(min(page.Hp, math.ceil(ys[inside].max()) + 3))
    crop = (cx0, cy0, cx1, cy1)
    page_img = raster_page(page, crop, wm, marks, rng, pyr)
    img, pinfo = apply_photo(page_img, page, crop, cam, case, rng, pyr, W, H)
    info.update(pinfo)
    ok, buf = cv2.imencode('.jpg', cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, case['jpeg']])
    if not ok:
        raise RuntimeError('jpeg encode failed')
    qid = 'tp%03d' % (i + 1)
    with open(os.path.join(case['outdir'], qid + '.jpg'), 'wb') as f:
        f.write(buf.tobytes())
    st = page.st
    res = cam['res']
    x_ratio = min(xheight_ratio(k) for k in set(st['face'][1:]))
    bbox = '%d %d %d %d' % (math.floor(res['bbox'][0]), math.floor(res['bbox'][1]), math.ceil(res['bbox'][2]), math.ceil(res['bbox'][3]))
    tp = page.target['present']
    return {
        'qid': qid, 'expected_id': case['target']['id'], 'subject': case['target']['subject'],
        'lang': case['page_lang'], 'primary': case['primary'], 'kinds': ';'.join(case['kinds']),
        'photo_w': W, 'photo_h': H, 'source': case['src'],
        'distance': 'far' if res['em'] < 36 else ('mid' if res['em'] < 44 else 'close'),
        'neighbours_visible': res['nb_vis'],
        'em_px': '%.1f' % res['em'], 'xheight_px': '%.1f' % (res['em'] * x_ratio),
        'rotation_deg': '%.1f' % cam['theta'], 'persp': '%.5f,%.5f' % (cam['a'], cam['b']),
        'layout': st['layout'], 'col_w_em': '%.1f' % st['colw_em'], 'font': st['face_name'],
        'label_style': st['label_style'], 'label_deco': (st['label_deco'] or '') + ('+light' if case.get('label_light') else ''),
        'ring_label': case.get('ring_label') or '',
        'target_number': page.target['n'], 'target_pos': case['target_pos'],
        'answer_space': ';'.join(x for x in [
            ('bracket_' + tp['bracket']) if tp.get('bracket') else '',
            ('underline_' + tp['underline']) if tp.get('underline') else '',
            ('%s_x%d' % tp['space']) if tp.get('space') else '',
            ('options%d' % len(tp['options'])) if tp.get('options') else ''] if x),
        'figure': (tp['figure']['kind'] + '/' + tp['figure']['place']) if tp.get('figure') else ('neighbour' if any(p['fig'] for p in page.problems if not p['is_target']) else ''),
        'watermark': info.get('watermark', ''), 'binding': (page.bind or '') + ('/visible' if 'binding' in cam.get('prefs_ok', []) else ''),
        'furniture': ('page%d/' % case['page_no']) + ('visible' if 'furniture' in cam.get('prefs_ok', []) else 'n/a'),
        'handwriting': info['handwriting'], 'background': info['background'], 'lamp': int(info['lamp']),
        'shadow': info.get('shadow', ''), 'blur': info.get('blur', ''), 'curl': cam['curl'][0] if cam['curl'] else '',
        'jpeg_q': case['jpeg'], 'neighbours_in_page': len(page.problems) - 1, 'target_bbox': bbox,
        'text': case['target']['question'],
    }

# ----------------------------------------------------------------------------------------
# planning


KINDS = ['watermark', 'binding', 'hardlabel', 'figure', 'answer', 'furniture', 'handwriting']


def plan_cases(bank, count, seed, outdir):
    R = random.Random('tune36-plan:%d' % seed)
    order = list(range(len(bank)))
    targets = []
    while len(targets) < count:
        R.shuffle(order)
        targets += order
    targets = targets[:count]
    sizes = [('1280x960', 1280, 960, '1280x960')] * 6 + [('960x1280', 960, 1280, '960x1280')] * 5 + \
            [('1600x1200', 1600, 1200, '1600x1200'), ('1200x1600', 1200, 1600, '1200x1600')] + \
            [('2000x1500', 2000, 1500, '4000x3000'), ('1500x2000', 1500, 2000, '3000x4000')]
    cases = []
    prim_order = []
    by_subj = {}
    for q in bank:
        by_subj.setdefault(q['subject'], []).append(q)
    for i in range(count):
        if i % len(KINDS) == 0:
            prim_order = list(KINDS)
            R.shuffle(prim_order)
        primary = prim_order[i % len(KINDS)]
        kinds = {primary}
        for k in KINDS:
            if k != primary and R.random() < 0.22:
                kinds.add(k)
        q = bank[targets[i]]
        tl = 'zh' if has_cjk(q['question']) else 'en'
        if q['subject'] == 'english':
            page_lang = 'zh' if R.random() < 0.6 else 'en'
        else:
            page_lang = tl if R.random() < 0.9 else ('en' if tl == 'zh' else 'zh')
        _, W, H, src = R.choice(sizes)
        distance = R.choices(['far', 'mid', 'close'], [0.25, 0.4, 0.35])[0]
        em_goal = {'far': R.uniform(33, 37), 'mid': R.uniform(38, 46), 'close': R.uniform(47, 60)}[distance]
        if src.startswith('4000') or src.startswith('3000'):
            em_goal = max(em_goal, 34)
        E = int(round(em_goal * R.uniform(1.0, 1.25)))
        rot = R.uniform(-10, 10) if R.random() < 0.3 else max(-10, min(10, R.gauss(0, 3.5)))
        persp = (R.uniform(-0.3, 0.3), R.uniform(-0.3, 0.3))
        case = {'i': i, 'seed': seed, 'outdir': outdir, 'target': q, 'primary': primary, 'kinds': sorted(kinds),
                'W': W, 'H': H, 'src': src, 'distance': distance, 'em_goal': em_goal, 'E': E,
                'rot': rot, 'persp': persp, 'page_lang': page_lang,
                'jpeg': R.randint(50, 92), 'lamp': R.random() < 0.45, 'shadow': R.random() < 0.3,
                'blur': R.random() < 0.3, 'curl': R.random() < 0.2}
        # neighbours: other bank questions, mostly same subject and language
        same_lang = [b for b in bank if b['id'] != q['id'] and (('zh' if has_cjk(b['question']) else 'en') == page_lang or
                                                                  (q['subject'] == 'english' and b['subject'] == 'english'))]
        other = [b for b in bank if b['id'] != q['id'] and b not in same_lang]
        subj = [b for b in same_lang if b['subject'] == q['subject']]
        rest = [b for b in same_lang if b['subject'] != q['subject']]
        R.shuffle(subj)
        R.shuffle(rest)
        R.shuffle(other)
        nb = []
        while subj or rest or other:
            r = R.random()
            if subj and (r < 0.75 or not rest):
                nb.append(subj.pop())
            elif rest and r < 0.93:
                nb.append(rest.pop())
            elif other:
                nb.append(other.pop())
            elif rest:
                nb.append(rest.pop())
            if len(nb) >= 40:
                break
        case['neighbours'] = nb
        zh = page_lang == 'zh'
        case['school'] = R.choice(SCHOOLS_ZH if zh else SCHOOLS_EN)
        case['grade'] = R.choice(GRADES_ZH if zh else GRADES_EN)
        case['subject'] = q['subject']
        case['page_total'] = R.randint(2, 8)
        case['page_no'] = R.randint(1, case['page_total'])
        case['target_pos'] = R.choice(['mid', 'mid', 'mid', 'section', 'bottom'])
        # ---- case kinds
        if 'watermark' in kinds:
            case['watermark'] = True
            case['wm_kind'] = R.choice(['diag20', 'diag45', 'center', 'tiled', 'grid', 'logo'])
        if 'binding' in kinds:
            case['binding_side'] = R.choice(['left', 'left', 'left', 'right'])
            if R.random() < 0.45:
                case['curl'] = True
            if W < H and R.random() < 0.7:
                W, H = H, W
                case['W'], case['H'] = W, H
                case['src'] = 'x'.join(reversed(src.split('x')))
            if distance != 'far':
                case['distance'] = distance = R.choice(['far', 'mid'])
                case['em_goal'] = em_goal = R.uniform(33, 37) if distance == 'far' else R.uniform(37, 44)
                case['E'] = int(round(em_goal * R.uniform(1.0, 1.2)))
            case['colw_cap'] = max(20.0, W * 0.97 / em_goal - 8.5)
            case['layout'] = 'single'
        elif R.random() < 0.08:
            case['binding_side'] = 'left'
        if 'hardlabel' in kinds:
            deco = R.choice(['circled', 'boxed', 'light', 'margin', 'ring', 'tick', 'margin+light', 'circled+light'])
            if 'circled' in deco:
                case['label_deco'] = 'circled'
            elif 'boxed' in deco:
                case['label_deco'] = 'boxed'
            elif 'margin' in deco:
                case['label_deco'] = 'margin'
            if 'light' in deco:
                case['label_light'] = True
            if deco in ('ring', 'tick'):
                case['ring_label'] = deco
        if 'figure' in kinds:
            r = R.random()
            if r < 0.6:
                case['fig_target'] = R.choice(['bar', 'line', 'table', 'geometry', 'circuit'])
                case['fig_neighbour_p'] = 0.15
            else:
                case['fig_neighbour_p'] = 0.3
        if 'answer' in kinds:
            case['answer_kind'] = R.choice(['bracket_own', 'lines', 'box', 'jie_lines', 'jie_blank', 'underline_below', 'ans_line', 'bracket_end'])
        if 'furniture' in kinds:
            case['furniture'] = True
            fm = R.choice(['top', 'top', 'section', 'bottom'])
            case['furn_mode'] = fm
            case['target_pos'] = fm
            if fm == 'top':
                case['page_no'] = 1
            case['school_header'] = True
            if case['distance'] == 'close':
                case['distance'] = 'mid'
                case['em_goal'] = R.uniform(36, 43)
                case['E'] = int(round(case['em_goal'] * 1.1))
        if 'handwriting' in kinds:
            case['handwriting'] = True
        cases.append(case)
    return cases


def _worker(case):
    cv2.setNumThreads(1)
    return render_case(case)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outdir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=371)
    ap.add_argument('--jobs', type=int, default=1)
    args = ap.parse_args(argv)
    bank = load_bank(args.bank)
    if len(bank) < 2:
        sys.exit('bank too small')
    if args.count < 1 or args.count > 999:
        sys.exit('--count must be 1..999')
    os.makedirs(args.outdir, exist_ok=True)
    for fn in sorted(os.listdir(args.outdir)):
        if (fn.startswith('tp') and fn.endswith('.jpg')) or fn in ('truth.csv', 'queries.csv', 'cases.csv'):
            os.remove(os.path.join(args.outdir, fn))
    cases = plan_cases(bank, args.count, args.seed, args.outdir)
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            metas = list(pool.imap(_worker, cases, chunksize=1))
    else:
        cv2.setNumThreads(1)
        metas = [render_case(c) for c in cases]
    with open(os.path.join(args.outdir, 'truth.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for m in metas:
            w.writerow([m['qid'], m['text']])
    with open(os.path.join(args.outdir, 'queries.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for m in metas:
            w.writerow([m['qid'], m['text'], m['expected_id'], 'exact'])
    cols = [k for k in metas[0].keys() if k != 'text']
    with open(os.path.join(args.outdir, 'cases.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(cols)
        for m in metas:
            w.writerow([m[k] for k in cols])
    print('wrote %d photos to %s' % (len(metas), args.outdir))


if __name__ == '__main__':
    main()
