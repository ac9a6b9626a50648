#!/usr/bin/env python3
"""Synthetic phone photos of one printed problem on a page (or screen).

Each photo is aimed at ONE problem from a question bank: that problem lies
wholly inside the frame and is clearly the problem nearest the frame centre.
Neighbouring bank problems (with their own numbers, score notes, options ...)
surround it, whole or cut by the frame edges.

Usage:
  python make_photos.py --bank BANK.jsonl OUT_DIR --count 120 --seed 141 --jobs 2

Photo i (1-based) draws all of its randomness from
numpy.random.SeedSequence([seed, i]), so --jobs only changes speed.
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
from multiprocessing import Pool

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont
from fontTools.ttLib import TTFont, TTCollection

cv2.setNumThreads(1)

# ----------------------------------------------------------------------------
# Fonts
# ----------------------------------------------------------------------------
FONT_DIRS = ['/usr/share/fonts', '/usr/local/share/fonts']
FONT_SPECS = {
    # key: (file name, family name inside a .ttc or None)
    'cjk_sans': ('NotoSansCJK-Regular.ttc', 'Noto Sans CJK SC'),
    'cjk_sans_b': ('NotoSansCJK-Bold.ttc', 'Noto Sans CJK SC'),
    'cjk_serif': ('NotoSerifCJK-Regular.ttc', 'Noto Serif CJK SC'),
    'cjk_serif_b': ('NotoSerifCJK-Bold.ttc', 'Noto Serif CJK SC'),
    'lat_serif': ('LiberationSerif-Regular.ttf', None),
    'lat_serif_b': ('LiberationSerif-Bold.ttf', None),
    'lat_serif_i': ('LiberationSerif-Italic.ttf', None),
    'lat_sans': ('LiberationSans-Regular.ttf', None),
    'lat_sans_b': ('LiberationSans-Bold.ttf', None),
    'lat_sans_i': ('LiberationSans-Italic.ttf', None),
    'lat_narrow': ('LiberationSansNarrow-Regular.ttf', None),
    'dv_sans': ('DejaVuSans.ttf', None),
    'dv_sans_b': ('DejaVuSans-Bold.ttf', None),
    'dv_sans_obl': ('DejaVuSans-Oblique.ttf', None),
    'dv_serif': ('DejaVuSerif.ttf', None),
    'dv_serif_b': ('DejaVuSerif-Bold.ttf', None),
    'dv_serif_i': ('DejaVuSerif-Italic.ttf', None),
    'dv_cond': ('DejaVuSansCondensed.ttf', None),
    'dv_math': ('DejaVuMathTeXGyre.ttf', None),
}
FALLBACK_KEYS = ['dv_sans', 'cjk_sans', 'lat_sans', 'dv_math', 'dv_serif']

# body face sets: (name, cjk face, latin face, kinds)
FACE_SETS = [
    ('song+times', 'cjk_serif', 'lat_serif', ['font_song', 'font_serif']),
    ('song+dejavu_serif', 'cjk_serif', 'dv_serif', ['font_song', 'font_serif']),
    ('song+arial', 'cjk_serif', 'lat_sans', ['font_song', 'font_sans']),
    ('hei+arial', 'cjk_sans', 'lat_sans', ['font_sans']),
    ('hei+dejavu_sans', 'cjk_sans', 'dv_sans', ['font_sans']),
    ('hei+narrow', 'cjk_sans', 'lat_narrow', ['font_sans']),
    ('bold_hei+arial_bold', 'cjk_sans_b', 'lat_sans_b', ['font_bold', 'font_sans']),
    ('bold_song+times_bold', 'cjk_serif_b', 'lat_serif_b', ['font_bold', 'font_song', 'font_serif']),
]
FACE_SET_P = [0.24, 0.10, 0.08, 0.22, 0.10, 0.06, 0.10, 0.10]


class Fonts:
    """Per-process font registry with cmap checks and metric caches."""

    def __init__(self):
        found = {}
        for d in FONT_DIRS:
            for root, _dirs, files in os.walk(d):
                for f in files:
                    found.setdefault(f, os.path.join(root, f))
        self.path = {}
        self.index = {}
        self.cmap = {}
        for key, (fname, family) in FONT_SPECS.items():
            p = found.get(fname)
            if not p:
                continue
            try:
                if fname.lower().endswith('.ttc'):
                    coll = TTCollection(p)
                    idx = None
                    for i, f in enumerate(coll.fonts):
                        if f['name'].getDebugName(1) == family or f['name'].getDebugName(4) == family:
                            idx = i
                            break
                    if idx is None:
                        continue
                    cm = coll.fonts[idx].getBestCmap()
                else:
                    idx = 0
                    cm = TTFont(p, lazy=True).getBestCmap()
            except Exception:
                continue
            self.path[key] = p
            self.index[key] = idx
            self.cmap[key] = set(cm.keys())
        if not self.path:
            raise SystemExit('no usable fonts found under ' + ', '.join(FONT_DIRS))
        self._font = {}
        self._adv = {}
        self._bbox = {}

    def has(self, key, ch):
        return key in self.cmap and ord(ch) in self.cmap[key]

    def avail(self, key):
        return key in self.path

    def font(self, key, size):
        k = (key, int(size))
        f = self._font.get(k)
        if f is None:
            f = ImageFont.truetype(self.path[key], int(size), index=self.index[key],
                                   layout_engine=ImageFont.Layout.BASIC)
            self._font[k] = f
        return f

    def adv(self, key, size, ch):
        k = (key, int(size), ch)
        v = self._adv.get(k)
        if v is None:
            v = self.font(key, size).getlength(ch)
            self._adv[k] = v
        return v

    def bbox(self, key, size, ch):
        k = (key, int(size), ch)
        v = self._bbox.get(k)
        if v is None:
            v = self.font(key, size).getbbox(ch, anchor='ls')
            self._bbox[k] = v
        return v

    def pick(self, ch, order):
        """First face in `order` (then fallbacks) whose cmap has ch."""
        o = ord(ch)
        for key in list(order) + FALLBACK_KEYS:
            if key in self.cmap and o in self.cmap[key]:
                return key
        return None

    def text_ok(self, text, order):
        return all(ch == ' ' or self.pick(ch, order) for ch in text)


_FONTS = None


def fonts():
    global _FONTS
    if _FONTS is None:
        _FONTS = Fonts()
    return _FONTS


# ----------------------------------------------------------------------------
# Text model: bank text -> atoms -> wrapped lines of glyphs
# ----------------------------------------------------------------------------
SUP = {'⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7',
       '⁸': '8', '⁹': '9', '⁺': '+', '⁻': '-', 'ⁿ': 'n'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6', '₇': '7',
       '₈': '8', '₉': '9', '₊': '+', '₋': '-', 'ₙ': 'n', 'ₐ': 'a', 'ₑ': 'e', 'ₓ': 'x'}
CLOSE_P = set('，。？！：；、）》」』”’,.?!:;)]%')
OPEN_P = set('（《「『“‘([')


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF
            or 0x3000 <= o <= 0x303F or 0x2460 <= o <= 0x24FF or 0x3200 <= o <= 0x32FF)


def has_cjk(text):
    return any(is_cjk(c) for c in text)


class TextStyle:
    def __init__(self, cjk_key, lat_key, size, color=(25, 25, 28), cjk_ctx=True):
        self.cjk_key = cjk_key
        self.lat_key = lat_key
        self.size = int(size)
        self.color = color
        self.cjk_ctx = cjk_ctx

    def order_for(self, ch):
        o = ord(ch)
        prefer_cjk = is_cjk(ch) or o == 0x2103 or (self.cjk_ctx and o in (0x201C, 0x201D, 0x2018, 0x2019))
        return [self.cjk_key, self.lat_key] if prefer_cjk else [self.lat_key, self.cjk_key]


def tokenize(text, blank_mode='underline', blank_widths=None):
    """Split text into atoms. An atom is a list of items:
    ('g', ch, style) with style in n/sup/sub, ('blank', em_width, n_underscores), ('sp',)."""
    atoms = []
    word = []
    i = 0
    bi = 0
    n = len(text)

    def flush():
        nonlocal word
        if word:
            atoms.append(word)
            word = []

    while i < n:
        ch = text[i]
        if ch == '_':
            j = i
            while j < n and text[j] == '_':
                j += 1
            flush()
            w = blank_widths[bi % len(blank_widths)] if blank_widths else 4.0
            bi += 1
            if blank_mode == 'underscores':
                nund = max(j - i, int(round(w * 1.6)))
                atoms.append([('g', c, 'n') for c in '_' * nund])
            else:
                atoms.append([('blank', w)])
            i = j
            continue
        if ch == ' ':
            flush()
            atoms.append([('sp',)])
            i += 1
            continue
        if ch in SUP:
            word.append(('g', SUP[ch], 'sup'))
            i += 1
            continue
        if ch in SUB:
            word.append(('g', SUB[ch], 'sub'))
            i += 1
            continue
        if is_cjk(ch) or ch in '“”‘’':
            flush()
            atoms.append([('g', ch, 'n')])
            i += 1
            continue
        word.append(('g', ch, 'n'))
        i += 1
    flush()
    # kinsoku: closing punctuation joins the previous atom, opening joins the next
    out = []
    for a in atoms:
        if (len(a) == 1 and a[0][0] == 'g' and a[0][1] in CLOSE_P and out and out[-1] != [('sp',)]):
            out[-1] = out[-1] + a
        else:
            out.append(a)
    res = []
    carry = []
    for a in out:
        if len(a) == 1 and a[0][0] == 'g' and a[0][1] in OPEN_P:
            carry += a
            continue
        if carry and a != [('sp',)]:
            a = carry + a
            carry = []
        res.append(a)
    if carry:
        res.append(carry)
    return res


def item_metrics(item, st):
    """-> (advance, font key, size, dy) for an item."""
    F = fonts()
    if item[0] == 'sp':
        return (F.adv(st.lat_key, st.size, ' ') if F.avail(st.lat_key) else st.size * 0.3), None, 0, 0
    if item[0] == 'blank':
        return item[1] * st.size, None, 0, 0
    _g, ch, sty = item
    sty = sty.rstrip('*')
    size = st.size if sty == 'n' else max(6, int(round(st.size * 0.62)))
    key = F.pick(ch, st.order_for(ch))
    dy = 0
    if sty == 'sup':
        dy = -int(round(st.size * 0.36))
    elif sty == 'sub':
        dy = int(round(st.size * 0.17))
    return F.adv(key, size, ch), key, size, dy


def atom_width(atom, st):
    return sum(item_metrics(it, st)[0] for it in atom)


def wrap_atoms(atoms, st, x_first, x_left, x_right):
    """Greedy line breaking. Returns a list of lines, each a list of (x, item)."""
    lines = []
    cur = []
    x = x_first
    for atom in atoms:
        if atom == [('sp',)]:
            if cur:
                w = atom_width(atom, st)
                cur.append((x, atom[0]))
                x += w
            continue
        w = atom_width(atom, st)
        if x + w > x_right + 0.5 and any(it[1][0] != 'sp' for it in cur):
            while cur and cur[-1][1][0] == 'sp':
                cur.pop()
            lines.append(cur)
            cur = []
            x = x_left
        if w > x_right - x_left and len(atom) > 1:
            for it in atom:  # hard-break an over-long atom
                wi = item_metrics(it, st)[0]
                if x + wi > x_right and cur:
                    lines.append(cur)
                    cur = []
                    x = x_left
                cur.append((x, it))
                x += wi
            continue
        for it in atom:
            cur.append((x, it))
            x += item_metrics(it, st)[0]
    while cur and cur[-1][1][0] == 'sp':
        cur.pop()
    if cur:
        lines.append(cur)
    return lines


def line_element(placed, baseline, st, role, owner=None, tags=(), color=None):
    """Turn a placed line into a drawable text element with a tight box."""
    F = fonts()
    glyphs = []
    rules = []
    x0 = y0 = 1e9
    x1 = y1 = -1e9
    qb = [1e9, 1e9, -1e9, -1e9]
    th = max(1.0, st.size / 15.0)
    has_sup = False

    def qadd(a, b, c, d):
        qb[0] = min(qb[0], a); qb[1] = min(qb[1], b); qb[2] = max(qb[2], c); qb[3] = max(qb[3], d)
    for x, it in placed:
        if it[0] == 'sp':
            continue
        if it[0] == 'blank':
            w = it[1] * st.size
            yy = baseline + st.size * 0.10
            rules.append((x + st.size * 0.1, yy, x + w - st.size * 0.1, yy, th))
            x0 = min(x0, x)
            x1 = max(x1, x + w)
            y0 = min(y0, yy - th - st.size * 0.3)
            y1 = max(y1, yy + th)
            qadd(x, yy - th - st.size * 0.3, x + w, yy + th)
            continue
        adv, key, size, dy = item_metrics(it, st)
        if it[2].rstrip('*') != 'n':
            has_sup = True
        glyphs.append((x, baseline + dy, it[1], key, size))
        bb = F.bbox(key, size, it[1])
        if bb[2] > bb[0]:
            x0 = min(x0, x + bb[0])
            x1 = max(x1, x + bb[2])
            y0 = min(y0, baseline + dy + bb[1])
            y1 = max(y1, baseline + dy + bb[3])
            if not it[2].endswith('*'):
                qadd(x + bb[0], baseline + dy + bb[1], x + bb[2], baseline + dy + bb[3])
    if x0 > x1:
        return None
    tg = set(tags)
    if has_sup:
        tg.add('supsub')
    return {'type': 'text', 'glyphs': glyphs, 'rules': rules, 'color': color or st.color,
            'box': [x0, y0, x1, y1], 'qbox': qb if qb[0] < qb[2] else None, 'role': role, 'owner': owner,
            'tags': sorted(tg), 'printed': True}


def text_width(text, st, blank_mode='underline', blank_widths=None):
    return sum(atom_width(a, st) for a in tokenize(text, blank_mode, blank_widths))


def single_line(text, x, baseline, st, role, owner=None, tags=(), color=None):
    placed = []
    xx = x
    for a in tokenize(text, 'underscores', [3.0]):
        for it in a:
            placed.append((xx, it))
            xx += item_metrics(it, st)[0]
    return line_element(placed, baseline, st, role, owner, tags, color)


# ----------------------------------------------------------------------------
# Content pools
# ----------------------------------------------------------------------------
CN_DIGITS = '零一二三四五六七八九'


def cn_numeral(n):
    if n < 10:
        return CN_DIGITS[n]
    if n < 20:
        return '十' + (CN_DIGITS[n % 10] if n % 10 else '')
    return CN_DIGITS[n // 10] + '十' + (CN_DIGITS[n % 10] if n % 10 else '')


def circled(n):
    if 1 <= n <= 20:
        return chr(0x2460 + n - 1)
    if 21 <= n <= 35:
        return chr(0x3251 + n - 21)
    if 36 <= n <= 50:
        return chr(0x32B1 + n - 36)
    return None


LABEL_STYLES = ['dot', 'fwdot', 'paren_fw', 'paren', 'di', 'circled', 'Q', 'rparen', 'question', 'cn_dun']


def make_label(n, style):
    if style == 'dot':
        return f'{n}.'
    if style == 'fwdot':
        return f'{n}．'
    if style == 'paren_fw':
        return f'（{n}）'
    if style == 'paren':
        return f'({n})'
    if style == 'di':
        return f'第{n}题'
    if style == 'circled':
        return circled(n) or f'{n}.'
    if style == 'Q':
        return f'Q{n}.' if n % 2 else f'Q{n}'
    if style == 'rparen':
        return f'{n})'
    if style == 'question':
        return f'Question {n}'
    if style == 'cn_dun':
        return cn_numeral(n) + '、'
    return f'{n}.'


SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'biology': '生物', 'geography': '地理',
           'history': '历史', 'chinese': '语文', 'english': '英语'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry', 'biology': 'Biology',
           'geography': 'Geography', 'history': 'History', 'chinese': 'Chinese', 'english': 'English'}

OPTION_POOLS = {
    'chinese': ['李白', '杜甫', '王维', '孟浩然', '苏轼', '范仲淹', '鲁迅', '朱自清', '诸葛亮', '孔子',
                '比喻死守经验，不知变通', '比喻出了问题及时补救', '比喻急于求成，反而坏事', '比喻做事认真细致',
                '《岳阳楼记》', '《水调歌头》', '道家', '儒家', '举头望明月', '处处闻啼鸟', '黄河入海流', '更上一层楼'],
    'history': ['公元前221年', '公元前206年', '公元前202年', '1840年', '1842年', '1911年', '1919年', '1921年',
                '1949年', '1914年', '1939年', '1945年', '唐太宗', '唐玄宗', '汉武帝', '秦始皇', '1492年', '1498年'],
    'geography': ['新疆', '西藏', '内蒙古', '澳门', '长江', '黄河', '太平洋', '大西洋', '亚洲', '非洲',
                  '青藏高原', '内蒙古高原', '23.5°N', '66.5°N', '约24小时', '约365天', '自西向东', '自东向西',
                  'the Nile', 'the Amazon', '8848.86米', '珠穆朗玛峰'],
    'biology': ['叶绿体', '线粒体', '细胞核', '细胞膜', '细胞壁', '液泡', '左心室', '右心室', '肝脏', '小肠',
                '23对', '46对', 'the cell', 'the tissue', 'mitochondria', 'ribosome', '沃森和克里克', '孟德尔'],
    'chemistry': ['H₂O', 'H₂O₂', 'CO₂', 'O₂', 'N₂', 'Fe₃O₄', '7', '11', '18', '44', '10%', '25%', '0.5 mol',
                  '2 mol', '氮气', '氧气', '2H₂O₂ = 2H₂O + O₂↑', 'C + O₂ = CO₂'],
    'physics': ['5 m/s²', '2 m/s²', '12 Ω', '20 Ω', '3×10⁸ m/s', '340 m/s', '500 N', '100 J', '10 W',
                '1 kW·h', '2.7 g/cm³', '100 ℃', '0 ℃', 'newton (N)', 'joule (J)', '5 Ω', '2×10⁴ Pa'],
    'english': ['went', 'goes', 'gone', 'going', 'better', 'best', 'cheap', 'children', 'childs', 'teeth',
                'tooths', 'a', 'an', 'since', 'for', 'well', 'more good', 'is cleaned', 'was cleaned'],
    'math': ['x = 5', 'x = 4', 'x = 2', 'x = 3', '11/12', '7/12', '1/2', '3/4', '12', '72', '(0, 1)', '(1, 0)',
             '720°', '540°', '3/8', '5/8', '{2, 3}', '{1, 2, 3, 4}'],
}

SUBQ_ZH = [('（1）写出计算过程；', '（2）说明你的理由。'), ('（1）列式计算；', '（2）写出答语。'),
           ('(1) 求出结果；', '(2) 检验你的答案是否正确。'), ('（1）写出所用公式；', '（2）代入数据求解。')]
SUBQ_EN = [('(1) Show your working.', '(2) Explain your answer.'), ('(a) Write down the formula you use.', '(b) Give the answer with units.'),
           ('(1) Give your answer.', '(2) Check it in another way.')]

SECTIONS_ZH = ['选择题', '填空题', '解答题', '计算题', '简答题', '基础知识', '综合运用', '判断题']
SECTIONS_EN = ['Multiple Choice', 'Fill in the Blanks', 'Short Answer', 'Calculation', 'Problem Solving', 'Vocabulary']
EN_ROMAN = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII']


def short_answer(item, rng):
    """A short answer a student might write by hand."""
    ans = item.get('answer', '') or ''
    segs = re.findall(r'\$([^$]+)\$', ans)

    def clean(s):
        s = re.sub(r'\\frac\{([^}]*)\}\{([^}]*)\}', r'\1/\2', s)
        s = s.replace('\\times', '×').replace('\\div', '÷').replace('\\pi', 'π').replace('\\rho', 'ρ')
        s = s.replace('\\cdot', '·').replace('\\sqrt', '√').replace('\\circ', '°')
        s = re.sub(r'\^\{?2\}?', '²', s)
        s = re.sub(r'\^\{?3\}?', '³', s)
        s = re.sub(r'_\{?(\d)\}?', lambda m: SUB_INV.get(m.group(1), m.group(1)), s)
        s = re.sub(r'\\[a-zA-Z]+', '', s)
        s = s.replace('{', '').replace('}', '').replace('^', '')
        return s.strip()

    out = []
    if segs:
        out.append(clean(segs[-1]))
        if len(segs) >= 2 and rng.random() < 0.5:
            out.insert(0, clean(segs[-2]))
    else:
        m = re.search(r'答：([^。]+)', ans)
        q = re.findall(r'[“"]([^”"]{1,14})[”"]', ans)
        if m:
            out.append(m.group(1)[:14])
        elif q:
            out.append(q[-1])
        else:
            nums = re.findall(r'(?:公元前\s*)?\d+(?:\.\d+)?\s*(?:年|千米|米|天|小时|对|%|g|N|J|W|Ω|mol|℃)', ans)
            nums = nums or re.findall(r'\d+(?:\.\d+)?', ans)
            if nums:
                out.append(nums[0].replace(' ', ''))
            else:
                clause = re.split(r'[，。,.;；]', ans)[0]
                out.append(clause[:8])
    out = [o[:16] for o in out if o]
    return out or ['?']


SUB_INV = {v: k for k, v in SUB.items() if v.isdigit()}


def gen_options(item, rng):
    subj = item.get('subject', 'math')
    ans = item.get('answer', '') or ''
    vals = []
    if subj in ('math', 'physics', 'chemistry'):
        segs = re.findall(r'\$([^$]+)\$', ans)
        src = segs[-1] if segs else ans
        nums = re.findall(r'-?\d+(?:\.\d+)?', src)
        if nums:
            v = float(nums[-1])
            cands = [v, v + 1, v - 1, v * 2, v / 2, v + 2, v + 10, -v]

            def fmt(x):
                return str(int(x)) if abs(x - round(x)) < 1e-9 else ('%.2f' % x).rstrip('0').rstrip('.')
            seen = []
            for c in cands:
                s = fmt(c)
                if s not in seen:
                    seen.append(s)
            if len(seen) >= 4:
                first = seen[0]
                rest = list(rng.permutation(seen[1:]))[:3]
                vals = [first] + rest
    if not vals:
        pool = OPTION_POOLS.get(subj, OPTION_POOLS['math'])
        idx = rng.choice(len(pool), size=4, replace=False)
        vals = [pool[k] for k in idx]
    vals = [vals[k] for k in rng.permutation(4)]
    return vals


# ----------------------------------------------------------------------------
# Hand drawing (handwriting, ticks, crosses, circles) — drawn at render time
# ----------------------------------------------------------------------------
HAND_LAT = ['lat_sans', 'dv_sans', 'cjk_sans', 'lat_narrow', 'dv_cond']
HAND_CJK = ['cjk_sans']


def hand_text_width(text, size):
    F = fonts()
    w = 0
    for ch in text:
        if ch == ' ':
            w += size * 0.35
            continue
        key = F.pick(ch, HAND_CJK + HAND_LAT if is_cjk(ch) else HAND_LAT + HAND_CJK)
        w += F.adv(key, size, ch) * 0.95
    return w


def _wobble(rng, h, w, sigma, amp):
    d = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), max(0.5, sigma))
    return d * (amp / (d.std() + 1e-6))


def render_handwriting(text, size, seed, pencil=False):
    """Handwriting-like text: per-glyph jitter, writer slant, wobbly strokes, pen-width strokes,
    uneven pressure. Returns (alpha float32 HxW, 0, 0); the first baseline starts at (0.5*size, 1.7*size)."""
    F = fonts()
    rng = np.random.default_rng(seed)
    lat = HAND_LAT[int(rng.integers(len(HAND_LAT)))]
    W = int(hand_text_width(text, size) * 1.3 + size * 2)
    Hh = int(size * 2.6)
    layer = np.zeros((Hh, W), np.float32)
    x = size * 0.5
    base = size * 1.7
    slope = rng.uniform(-0.06, 0.06)
    slant = rng.uniform(-0.35, 0.12)
    pen_w = max(1.0, size * rng.uniform(0.06, 0.10))
    for ch in text:
        if ch == ' ':
            x += size * rng.uniform(0.25, 0.5)
            continue
        key = F.pick(ch, HAND_CJK + HAND_LAT if is_cjk(ch) else [lat] + HAND_LAT + HAND_CJK)
        if key is None:
            continue
        sz = max(6, int(size * rng.uniform(0.82, 1.15)))
        f = F.font(key, sz)
        adv = F.adv(key, sz, ch)
        gw = int(adv + sz * 1.5)
        gimg = Image.new('L', (gw, int(sz * 2.2)), 0)
        ImageDraw.Draw(gimg).text((sz * 0.5, sz * 1.5), ch, font=f, fill=255, anchor='ls')
        g = np.asarray(gimg, np.float32) / 255.0
        # thin the font stroke, then redraw it with a round pen of constant width
        ang = rng.uniform(-11, 11)
        sx, sy = rng.uniform(0.85, 1.12), rng.uniform(0.88, 1.12)
        M = cv2.getRotationMatrix2D((sz * 0.5 + adv * 0.5, sz * 1.5), ang, 1.0)
        M[:, :2] = M[:, :2] @ np.array([[sx, slant + rng.uniform(-0.08, 0.08)], [0, sy]])
        cx, cy = sz * 0.5 + adv * 0.5, sz * 1.5
        M[:, 2] = np.array([cx, cy]) - M[:, :2] @ np.array([cx, cy])
        g = cv2.warpAffine(g, M, (g.shape[1], g.shape[0]), flags=cv2.INTER_LINEAR)
        gh, gw2 = g.shape
        gx, gy = np.meshgrid(np.arange(gw2, dtype=np.float32), np.arange(gh, dtype=np.float32))
        dx = _wobble(rng, gh, gw2, sz * 0.12, sz * 0.014) + _wobble(rng, gh, gw2, sz * 0.3, sz * 0.035)
        dy = _wobble(rng, gh, gw2, sz * 0.12, sz * 0.014) + _wobble(rng, gh, gw2, sz * 0.3, sz * 0.035)
        g = cv2.remap(g, gx + dx, gy + dy, cv2.INTER_LINEAR)
        ox = int(round(x - sz * 0.5))
        oy = int(round(base + slope * x + rng.normal(0, size * 0.06) - sz * 1.5))
        xa, ya = max(0, ox), max(0, oy)
        xb, yb = min(W, ox + gw2), min(Hh, oy + gh)
        if xb > xa and yb > ya:
            layer[ya:yb, xa:xb] = np.maximum(layer[ya:yb, xa:xb], g[ya - oy:yb - oy, xa - ox:xb - ox])
        x += adv * sx * (rng.uniform(0.84, 0.97) if is_cjk(ch) else rng.uniform(0.95, 1.06)) + size * rng.uniform(-0.02, 0.05)
    # pen width
    k = int(round(pen_w - size / 14.0))
    if k >= 2:
        ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        layer = cv2.dilate(layer, ker)
    layer = cv2.GaussianBlur(layer, (0, 0), 0.6)
    hh, ww = layer.shape
    # uneven pressure / ink flow
    pres = _wobble(rng, hh, ww, size * 0.5, 1.0)
    pres = 0.88 + 0.12 * np.tanh(pres)
    if pencil:
        pres *= 0.6 + 0.4 * cv2.GaussianBlur(rng.random((hh, ww)).astype(np.float32), (0, 0), 0.7)
    layer = np.clip(layer * pres * 1.15, 0, 1)
    return layer, 0, 0


def stroke_pts(p0, p1, rng, n=12, bend=0.08):
    p0 = np.array(p0, float)
    p1 = np.array(p1, float)
    d = p1 - p0
    nrm = np.array([-d[1], d[0]])
    mid = (p0 + p1) / 2 + nrm * rng.uniform(-bend, bend)
    t = np.linspace(0, 1, n)[:, None]
    pts = (1 - t) ** 2 * p0 + 2 * (1 - t) * t * mid + t ** 2 * p1
    return pts


def draw_strokes(layer, strokes, width, rng):
    for pts in strokes:
        n = len(pts)
        for k in range(n - 1):
            w = width * (0.75 + 0.45 * math.sin(math.pi * (k + 0.5) / n)) * rng.uniform(0.9, 1.1)
            a = (int(round(pts[k][0] * 8)), int(round(pts[k][1] * 8)))
            b = (int(round(pts[k + 1][0] * 8)), int(round(pts[k + 1][1] * 8)))
            cv2.line(layer, a, b, 1.0, max(1, int(round(w))), cv2.LINE_AA, 3)


def render_mark(kind, w, h, width, seed):
    """Return alpha layer (h, w) with a hand-drawn tick / cross / circle."""
    rng = np.random.default_rng(seed)
    layer = np.zeros((int(h), int(w)), np.float32)
    m = width * 1.5
    if kind == 'tick':
        a = (m + rng.uniform(0, 0.1) * w, h * rng.uniform(0.45, 0.6))
        b = (w * rng.uniform(0.32, 0.42), h - m - rng.uniform(0, 0.05) * h)
        c = (w - m, m + rng.uniform(0, 0.1) * h)
        strokes = [stroke_pts(a, b, rng, 8, 0.1), stroke_pts(b, c, rng, 14, 0.12)]
    elif kind == 'cross':
        strokes = [stroke_pts((m, m + rng.uniform(0, 0.1) * h), (w - m, h - m), rng, 12, 0.1),
                   stroke_pts((w - m - rng.uniform(0, 0.1) * w, m), (m, h - m - rng.uniform(0, 0.1) * h), rng, 12, 0.1)]
    else:  # circle (ellipse, not closed exactly)
        a0 = rng.uniform(0, 2 * math.pi)
        span = 2 * math.pi * rng.uniform(1.02, 1.2)
        t = np.linspace(a0, a0 + span, 60)
        rx = (w - 2 * m) / 2
        ry = (h - 2 * m) / 2
        rad = 1 + 0.05 * np.sin(t * rng.uniform(1, 3) + rng.uniform(0, 6)) + np.linspace(0, rng.uniform(-0.08, 0.08), 60)
        pts = np.stack([w / 2 + rx * rad * np.cos(t), h / 2 + ry * rad * np.sin(t)], 1)
        strokes = [pts]
    draw_strokes(layer, strokes, width, rng)
    return np.clip(layer, 0, 1)


# ----------------------------------------------------------------------------
# Page model and layout
# ----------------------------------------------------------------------------
def box_union(boxes):
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return None
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]


def box_inter(a, b, pad=0.0):
    return not (a[2] + pad <= b[0] or b[2] + pad <= a[0] or a[3] + pad <= b[1] or b[3] + pad <= a[1])


def box_pad(b, p):
    return [b[0] - p, b[1] - p, b[2] + p, b[3] + p]


class Page:
    def __init__(self, W, H):
        self.W = W
        self.H = H
        self.elements = []
        self.problems = []
        self.visible = [0, 0, W, H]   # region where printed content can be seen (page or screen area)
        self.screen = None

    def add(self, el):
        if el is None:
            return None
        self.elements.append(el)
        return len(self.elements) - 1

    def printed_boxes(self):
        return [e['box'] for e in self.elements if e.get('printed')]

    def free(self, box, pad, ignore_roles=()):
        if box[0] < 0 or box[1] < 0 or box[2] > self.W or box[3] > self.H:
            return False
        for e in self.elements:
            if e.get('role') in ignore_roles:
                continue
            if box_inter(box, e['box'], pad):
                return False
        return True


def prim(kind, box, role, owner=None, tags=(), **kw):
    el = {'type': kind, 'box': [float(v) for v in box], 'role': role, 'owner': owner, 'tags': sorted(set(tags)),
          'printed': True}
    el.update(kw)
    return el


def choice(rng, seq, p=None):
    if p is not None:
        p = np.asarray(p, float)
        p = p / p.sum()
    return seq[int(rng.choice(len(seq), p=p))]


def U(rng, a, b):
    return float(rng.uniform(a, b))


def draw_plan(rng, bank, bank_by_flag, i):
    """Decide everything about the photo that does not depend on layout geometry."""
    P = {}
    # --- the framed (target) problem: sometimes favour bank items with blanks / super- and subscripts
    r = rng.random()
    if r < 0.07 and bank_by_flag['blank']:
        P['target'] = bank_by_flag['blank'][int(rng.integers(len(bank_by_flag['blank'])))]
    elif r < 0.17 and bank_by_flag['supsub']:
        P['target'] = bank_by_flag['supsub'][int(rng.integers(len(bank_by_flag['supsub'])))]
    else:
        P['target'] = int(rng.integers(len(bank)))
    tq = bank[P['target']]['question']
    # --- document type
    P['doc'] = choice(rng, ['worksheet', 'exam', 'textbook', 'workbook', 'screen_laptop', 'screen_phone'],
                      [0.31, 0.25, 0.14, 0.15, 0.09, 0.06])
    doc = P['doc']
    if doc == 'worksheet':
        P['ncols'] = choice(rng, [1, 2, 3], [0.55, 0.35, 0.10])
    elif doc == 'exam':
        P['ncols'] = choice(rng, [1, 2, 3], [0.12, 0.55, 0.33])
    elif doc == 'textbook':
        P['ncols'] = choice(rng, [1, 2], [0.7, 0.3])
    elif doc == 'workbook':
        P['ncols'] = choice(rng, [1, 2], [0.6, 0.4])
    elif doc == 'screen_laptop':
        P['ncols'] = choice(rng, [1, 2], [0.6, 0.4])
    else:
        P['ncols'] = 1
    P['misaligned'] = P['ncols'] > 1 and rng.random() < 0.35
    # --- language of page furniture
    en_t = not has_cjk(tq)
    P['lang'] = 'en' if (en_t and rng.random() < 0.55) or (not en_t and rng.random() < 0.08) else 'zh'
    # --- fonts
    fs = choice(rng, FACE_SETS, FACE_SET_P)
    P['face'] = fs
    # --- print size (text height of the framed problem in the photo, px)
    ps = choice(rng, ['small', 'normal', 'large'], [0.22, 0.58, 0.20])
    P['print'] = ps
    P['T'] = {'small': U(rng, 19, 23), 'normal': U(rng, 24, 38), 'large': U(rng, 40, 54)}[ps]
    P['F'] = int(np.clip(round(P['T'] / U(rng, 0.78, 1.05)), 22, 60))
    sp = choice(rng, ['tight', 'normal', 'loose'], [0.25, 0.5, 0.25])
    P['spacing'] = sp
    P['lh'] = {'tight': U(rng, 1.18, 1.32), 'normal': U(rng, 1.4, 1.62), 'loose': U(rng, 1.72, 2.05)}[sp]
    base_gap = {'worksheet': (1.2, 4.5), 'exam': (0.8, 3.5), 'textbook': (0.7, 2.2), 'workbook': (2.0, 5.0),
                'screen_laptop': (0.8, 3.0), 'screen_phone': (0.8, 2.5)}[doc]
    P['gapF'] = U(rng, *base_gap) * (1.9 if ps == 'small' else 1.0)
    # --- numbering
    if P['lang'] == 'en':
        ls = choice(rng, ['dot', 'paren', 'Q', 'rparen', 'question', 'circled'], [0.3, 0.12, 0.18, 0.15, 0.17, 0.08])
    else:
        ls = choice(rng, ['dot', 'fwdot', 'paren_fw', 'paren', 'di', 'circled', 'cn_dun', 'rparen', 'Q'],
                    [0.22, 0.14, 0.13, 0.07, 0.12, 0.1, 0.1, 0.06, 0.06])
    P['label_style'] = ls
    P['label_own_line'] = ls == 'question' and rng.random() < 0.5
    P['hanging'] = rng.random() < 0.6
    P['start_no'] = int(rng.integers(1, 6 if ls in ('circled', 'cn_dun') else 16))
    P['label_bold'] = rng.random() < (0.6 if (doc == 'textbook' or ls in ('question', 'Q')) else 0.15)
    # --- section headings
    p_sec = {'worksheet': 0.5, 'exam': 0.85, 'textbook': 0.25, 'workbook': 0.45, 'screen_laptop': 0.5,
             'screen_phone': 0.3}[doc]
    P['sections'] = ls != 'cn_dun' and rng.random() < p_sec
    # --- score notes
    P['score_notes'] = rng.random() < (0.55 if doc == 'exam' else 0.3)
    P['score_pos'] = choice(rng, ['before', 'after', 'right'], [0.4, 0.35, 0.25])
    P['score_fmt'] = choice(rng, ['zh_fw', 'zh', 'marks', 'pts', 'points'], [0.35, 0.15, 0.2, 0.2, 0.1]) \
        if P['lang'] == 'zh' else choice(rng, ['marks', 'pts', 'points', 'zh_fw'], [0.4, 0.3, 0.2, 0.1])
    # --- blanks
    P['blank_mode'] = choice(rng, ['underline', 'underscores'], [0.55, 0.45])
    P['opt_fmt'] = choice(rng, ['A. ', 'A．', 'A) ', '(A) ', 'A、'], [0.35, 0.2, 0.15, 0.15, 0.15])
    # --- page furniture
    P['title'] = rng.random() < {'worksheet': 0.85, 'exam': 0.95, 'textbook': 0.7, 'workbook': 0.9,
                                 'screen_laptop': 0.7, 'screen_phone': 0.5}[doc]
    P['name_line'] = doc in ('worksheet', 'exam', 'workbook', 'screen_laptop') and rng.random() < 0.7
    P['footer'] = rng.random() < 0.8
    P['ink'] = choice(rng, [(22, 22, 25), (35, 35, 38), (55, 55, 58), (18, 20, 40)], [0.5, 0.25, 0.15, 0.1])
    P['accent'] = choice(rng, [(30, 80, 160), (20, 120, 90), (170, 50, 40), (40, 40, 40)])
    # --- target-specific features
    tf = {}
    tf['mc'] = rng.random() < 0.28
    tf['subq'] = (not tf['mc']) and rng.random() < 0.14
    tf['figure'] = rng.random() < 0.16
    tf['hand'] = doc not in ('screen_laptop', 'screen_phone') and rng.random() < 0.42
    tf['mark'] = choice(rng, [None, 'tick', 'cross', 'circle', 'score'], [0.55, 0.13, 0.1, 0.1, 0.12]) \
        if doc not in ('screen_laptop', 'screen_phone') else None
    P['tfeat'] = tf
    P['neighbor_rates'] = {'mc': U(rng, 0.05, 0.45), 'subq': U(rng, 0.0, 0.2), 'figure': U(rng, 0.0, 0.2),
                           'hand': 0.0 if doc.startswith('screen') else U(rng, 0.05, 0.55),
                           'mark': 0.0 if doc.startswith('screen') else U(rng, 0.0, 0.35)}
    # --- camera / photo
    size = choice(rng, [(1280, 960), (960, 1280), (1600, 1200), (1440, 1080), (1024, 768),
                        (1200, 1600), (1080, 1440), (768, 1024)],
                  [0.33, 0.35, 0.07, 0.07, 0.07, 0.04, 0.04, 0.03])
    P['size'] = size
    P['rotation'] = choice(rng, [0, 90, 270, 180], [0.91, 0.035, 0.035, 0.02])
    P['slant'] = rng.random() < 0.12
    P['curl'] = (not doc.startswith('screen')) and rng.random() < 0.2
    P['occluder'] = choice(rng, [None, 'finger', 'thumb', 'pen'], [0.72, 0.1, 0.09, 0.09])
    P['shadow'] = rng.random() < (0.15 if doc.startswith('screen') else 0.35)
    P['uneven'] = rng.random() < 0.55
    P['blur'] = choice(rng, [None, 'gauss', 'motion'], [0.55, 0.33, 0.12])
    P['jpeg_q'] = int(choice(rng, [int(rng.integers(50, 68)), int(rng.integers(68, 86)), int(rng.integers(86, 95))],
                             [0.2, 0.45, 0.35]))
    P['noise'] = U(rng, 1.0, 6.0)
    return P


def score_text(fmt, k):
    return {'zh_fw': f'（{k}分）', 'zh': f'({k}分)', 'marks': f'({k} marks)' if k > 1 else '(1 mark)',
            'pts': f'[{k} pts]', 'points': f'({k} points)'}[fmt]


def star(atoms):
    return [[(it[0], it[1], it[2] + '*') if it[0] == 'g' else it for it in a] for a in atoms]


def mk_style(P, size=None, bold=False, color=None, text=''):
    _n, cj, la, _k = P['face']
    if bold:
        cj = cj if cj.endswith('_b') else cj + '_b'
        la = la if la.endswith('_b') else ({'lat_narrow': 'lat_sans_b', 'dv_sans': 'dv_sans_b', 'dv_serif': 'dv_serif_b'}.get(la, la + '_b'))
    F = fonts()
    if not F.avail(cj):
        cj = 'cjk_sans'
    if not F.avail(la):
        la = 'dv_sans'
    return TextStyle(cj, la, size or P['F'], color or P['ink'], cjk_ctx=has_cjk(text) if text else True)


def lay_text(pg, text, st, x_first, x_left, x_right, y_top, lh, role, owner=None, tags=(),
             blank_mode='underline', blank_widths=None, pre=None, post=None, align='left'):
    """Lay out wrapped text starting with its first line's top at y_top.
    Returns (element ids, y_bottom, last line end x, last baseline)."""
    atoms = tokenize(text, blank_mode, blank_widths)
    if pre:
        atoms = pre + atoms
    if post:
        atoms = atoms + post
    lines = wrap_atoms(atoms, st, x_first, x_left, x_right)
    ids = []
    base = y_top + st.size * 0.92
    end_x = x_first
    for k, ln in enumerate(lines):
        if align == 'center' and ln:
            w = ln[-1][0] + item_metrics(ln[-1][1], st)[0] - ln[0][0]
            shift = (x_left + x_right) / 2 - w / 2 - ln[0][0]
            ln = [(x + shift, it) for x, it in ln]
        el = line_element(ln, base, st, role, owner, tags)
        if el is not None:
            el['line_no'] = k
            ids.append(pg.add(el))
            end_x = el['box'][2]
        if k < len(lines) - 1:
            base += st.size * lh
    return ids, base + st.size * 0.28, end_x, base


def header_texts(P, rng, subj):
    zh = P['lang'] == 'zh'
    s_zh = SUBJ_ZH.get(subj, '数学')
    s_en = SUBJ_EN.get(subj, 'Mathematics')
    grade = int(rng.integers(3, 10))
    year = int(rng.integers(2019, 2025))
    n = int(rng.integers(1, 13))
    doc = P['doc']
    if zh:
        if doc == 'exam':
            t = [f'{year}—{year + 1}学年度第{choice(rng, ["一", "二"])}学期期{choice(rng, ["中", "末"])}考试',
                 f'{cn_numeral(grade)}年级{s_zh}试卷']
            sub = '（考试时间：90分钟　满分：100分）'
        elif doc == 'textbook':
            t = [choice(rng, [f'习题 {n}.{int(rng.integers(1, 5))}', '练习', f'复习题 {n}', '课后练习'])]
            sub = None
        elif doc == 'workbook':
            t = [f'课时作业（{cn_numeral(n)}）', choice(rng, ['【基础巩固】', '【能力提升】', '【课堂检测】'])]
            sub = None
        else:
            t = [choice(rng, [f'{cn_numeral(grade)}年级{s_zh}课堂练习（{n}）', f'{s_zh}周末作业 第{n}周',
                              f'{s_zh}单元测试卷（{cn_numeral(n)}）', f'{s_zh}同步练习 {n}'])]
            sub = None
        name = choice(rng, ['姓名：________　班级：________　学号：______　得分：______',
                            '班级________ 姓名________ 座号_____ 成绩_____',
                            '姓名：__________  班级：__________  日期：________'])
    else:
        if doc == 'exam':
            t = [f'{choice(rng, ["Mid-term", "Final", "Unit"])} Examination {year}–{year + 1}', f'Grade {grade} {s_en}']
            sub = '(Time allowed: 90 minutes   Total: 100 marks)'
        elif doc == 'textbook':
            t = [choice(rng, [f'Exercise {n}.{int(rng.integers(1, 5))}', 'Practice', f'Review {n}', 'Check Your Understanding'])]
            sub = None
        elif doc == 'workbook':
            t = [f'Lesson {n} Homework', choice(rng, ['[Basic]', '[Challenge]', '[Warm-up]'])]
            sub = None
        else:
            t = [choice(rng, [f'{s_en} Worksheet {n}', f'Unit {n} Review Sheet', f'Homework Sheet {n}', f'{s_en} Practice {n}'])]
            sub = None
        name = choice(rng, ['Name: ____________  Class: ________  Date: ________  Score: ______',
                            'Name __________________  Class ______  No. ____'])
    return t, sub, name


def section_text(P, rng, k):
    if P['lang'] == 'zh':
        nm = SECTIONS_ZH[int(rng.integers(len(SECTIONS_ZH)))]
        tail = choice(rng, ['', f'（每小题{int(rng.integers(2, 6))}分，共{int(rng.integers(10, 40))}分）', '（本大题共5小题）'])
        return f'{cn_numeral(k)}、{nm}{tail}'
    nm = SECTIONS_EN[int(rng.integers(len(SECTIONS_EN)))]
    fmt = choice(rng, ['roman', 'part', 'section'])
    tail = choice(rng, ['', f' ({int(rng.integers(2, 6))} marks each)'])
    if fmt == 'roman':
        return f'{EN_ROMAN[(k - 1) % len(EN_ROMAN)]}. {nm}{tail}'
    if fmt == 'part':
        return f'Part {chr(64 + k)}  {nm}{tail}'
    return f'Section {chr(64 + k)}: {nm}{tail}'


def add_figure(pg, rng, P, x, y, w, owner, number):
    """Draw a small figure or table at (x, y) of width w. Returns its bottom y and kind."""
    F = P['F']
    kind = choice(rng, ['triangle', 'rect', 'circle', 'axes', 'table', 'cube', 'bars'], [0.16, 0.12, 0.12, 0.2, 0.22, 0.08, 0.1])
    lw = max(1.5, F / 14)
    ink = P['ink']
    st = mk_style(P, size=int(F * 0.8))
    st_i = TextStyle('cjk_serif', 'lat_serif_i' if fonts().avail('lat_serif_i') else 'dv_serif', int(F * 0.85), ink)
    h = w * U(rng, 0.7, 0.95)
    tag = {'table': 'table_grid', 'axes': 'figure_axes', 'bars': 'figure_axes'}.get(kind, 'figure_shape')
    tags = ['figure', tag]

    def L(pts, width=lw, dash=False):
        pts = [(float(a), float(b)) for a, b in pts]
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        pg.add(prim('line', [min(xs) - width, min(ys) - width, max(xs) + width, max(ys) + width], 'figure', owner, tags,
                    pts=pts, width=width, color=ink, dash=dash))

    def T(s, cx, cy, sty=st):
        w_ = text_width(s, sty)
        el = single_line(s, cx - w_ / 2, cy + sty.size * 0.35, sty, 'figure', owner, tags)
        pg.add(el)

    if kind == 'triangle':
        a = (x + w * 0.12, y + h * 0.12)
        b = (x + w * 0.12, y + h * 0.82)
        c = (x + w * 0.88, y + h * 0.82)
        L([a, b, c, a])
        L([(b[0], b[1] - F * 0.5), (b[0] + F * 0.5, b[1] - F * 0.5), (b[0] + F * 0.5, b[1])], lw * 0.7)
        T('A', a[0] - F * 0.45, a[1], st_i)
        T('B', b[0] - F * 0.45, b[1] + F * 0.3, st_i)
        T('C', c[0] + F * 0.45, c[1] + F * 0.3, st_i)
        T(str(int(rng.integers(3, 9))), (a[0] + b[0]) / 2 - F * 0.45, (a[1] + b[1]) / 2)
        T(str(int(rng.integers(4, 13))), (b[0] + c[0]) / 2, b[1] + F * 0.6)
        bottom = y + h + F * 0.5
    elif kind == 'rect':
        L([(x + w * 0.1, y + h * 0.15), (x + w * 0.9, y + h * 0.15), (x + w * 0.9, y + h * 0.75),
           (x + w * 0.1, y + h * 0.75), (x + w * 0.1, y + h * 0.15)])
        u = choice(rng, ['cm', '厘米', 'm'])
        T(f'{int(rng.integers(3, 12))} {u}' if u != '厘米' else f'{int(rng.integers(3, 12))}厘米', x + w * 0.5, y + h * 0.75 + F * 0.6)
        T(f'{int(rng.integers(2, 9))}', x + w * 0.9 + F * 0.5, y + h * 0.45)
        bottom = y + h * 0.75 + F * 1.2
    elif kind == 'circle':
        cx, cy, r = x + w / 2, y + h / 2, min(w, h) * 0.4
        pg.add(prim('ellipse', [cx - r, cy - r, cx + r, cy + r], 'figure', owner, tags, width=lw, color=ink))
        L([(cx, cy), (cx + r * 0.8, cy - r * 0.6)])
        pg.add(prim('ellipse', [cx - lw * 1.5, cy - lw * 1.5, cx + lw * 1.5, cy + lw * 1.5], 'figure', owner, tags,
                    width=0, color=ink, fill=ink))
        T('O', cx - F * 0.4, cy + F * 0.35, st_i)
        T('r', cx + r * 0.45, cy - r * 0.3 - F * 0.35, st_i)
        bottom = y + h
    elif kind in ('axes', 'bars'):
        ox, oy = x + w * 0.15, y + h * 0.85
        L([(x + w * 0.05, oy), (x + w * 0.95, oy)])
        L([(ox, y + h * 0.05), (ox, y + h * 0.95)])
        L([(x + w * 0.95 - F * 0.3, oy - F * 0.18), (x + w * 0.95, oy), (x + w * 0.95 - F * 0.3, oy + F * 0.18)])
        L([(ox - F * 0.18, y + h * 0.05 + F * 0.3), (ox, y + h * 0.05), (ox + F * 0.18, y + h * 0.05 + F * 0.3)])
        T('x', x + w * 0.95, oy + F * 0.55, st_i)
        T('y', ox - F * 0.5, y + h * 0.08, st_i)
        T('O', ox - F * 0.45, oy + F * 0.45, st_i)
        if kind == 'axes':
            k = U(rng, -0.6, -0.2)
            L([(ox - w * 0.05, oy + (-w * 0.05) * k - h * 0.3), (x + w * 0.85, oy - h * 0.3 + (w * 0.7) * k)])
            for t in range(1, 4):
                tx = ox + t * w * 0.2
                L([(tx, oy - F * 0.15), (tx, oy)], lw * 0.8)
                T(str(t), tx, oy + F * 0.55)
        else:
            for t in range(4):
                bh = h * U(rng, 0.2, 0.7)
                bx = ox + w * 0.06 + t * w * 0.19
                pg.add(prim('rect', [bx, oy - bh, bx + w * 0.11, oy], 'figure', owner, tags, width=lw * 0.8,
                            color=ink, fill=(160, 160, 160)))
        bottom = y + h + F * 0.4
    elif kind == 'table':
        rows = int(rng.integers(2, 4))
        cols = int(rng.integers(4, 6))
        rh = F * 1.5
        heads = choice(rng, [['x', 'y', 'z'], ['t/s', 'v/(m/s)', 's/m'], ['组别', '人数', '平均分'], ['n', 'aₙ', 'Sₙ']])
        c0 = max(text_width(hd, st) for hd in heads[:rows]) + F * 0.6
        cw = max(F * 1.2, (w - c0) / (cols - 1))
        w = c0 + cw * (cols - 1)
        xs_ = [x] + [x + c0 + k * cw for k in range(cols)]
        for rr in range(rows + 1):
            L([(x, y + rr * rh), (x + w, y + rr * rh)], lw * 0.8)
        for xx in xs_:
            L([(xx, y), (xx, y + rows * rh)], lw * 0.8)
        for rr in range(rows):
            T(heads[rr % len(heads)], x + c0 / 2, y + rr * rh + rh / 2)
            for cc in range(1, cols):
                T(str(int(rng.integers(0, 30))), x + c0 + (cc - 1) * cw + cw / 2, y + rr * rh + rh / 2)
        bottom = y + rows * rh + F * 0.4
    else:  # cube in oblique projection
        s = min(w, h) * 0.55
        d = s * 0.4
        x0, y0 = x + w * 0.1, y + h * 0.3
        L([(x0, y0), (x0 + s, y0), (x0 + s, y0 + s), (x0, y0 + s), (x0, y0)])
        L([(x0, y0), (x0 + d, y0 - d), (x0 + s + d, y0 - d), (x0 + s, y0)])
        L([(x0 + s + d, y0 - d), (x0 + s + d, y0 + s - d), (x0 + s, y0 + s)])
        L([(x0 + d, y0 - d), (x0 + d, y0 + s - d), (x0 + s + d, y0 + s - d)], lw * 0.8, dash=True)
        L([(x0 + d, y0 + s - d), (x0, y0 + s)], lw * 0.8, dash=True)
        T(f'{int(rng.integers(2, 9))} cm', x0 + s / 2, y0 + s + F * 0.6)
        bottom = y0 + s + F * 1.2
    if rng.random() < 0.5:
        cap = f'第{number}题图' if P['lang'] == 'zh' else f'Fig. {number}'
        st_c = mk_style(P, size=int(F * 0.75))
        T(cap, x + w / 2, bottom + F * 0.3, st_c)
        bottom += F * 1.1
    return bottom, tag


def add_hand(pg, rng, lines, x, y_base, size, color, owner, tags, role='hand'):
    """Register handwriting (rendered later). Returns its box."""
    w = max(hand_text_width(t, size) for t in lines) * 1.12 + size * 0.4
    box = [x - size * 0.25, y_base - size * 1.2, x + w, y_base + size * (1.25 * (len(lines) - 1) + 0.45)]
    el = prim('hand', box, role, owner, tags, lines=lines, x=x, y=y_base, size=size, color=color,
              seed=int(rng.integers(1 << 31)))
    el['printed'] = False
    return el


def add_problem(pg, rng, P, bank, item_idx, number, x0, colw, y, is_target, col):
    """Lay out one numbered problem starting at y. Returns bottom y (including the gap)."""
    item = bank[item_idx]
    q = item['question']
    F = P['F']
    lh = P['lh']
    st = mk_style(P, text=q)
    pidx = len(pg.problems)
    feats = dict(P['tfeat']) if is_target else {
        k: rng.random() < v for k, v in P['neighbor_rates'].items()}
    if not is_target:
        feats['mark'] = choice(rng, ['tick', 'cross', 'circle', 'score']) if feats['mark'] else None
        if feats['mc'] and feats['subq']:
            feats['subq'] = False
    label = make_label(number, P['label_style'])
    if not fonts().text_ok(label, [st.cjk_key, st.lat_key]):
        label = f'{number}.'
    start = len(pg.elements)
    rec = {'idx': pidx, 'bank_idx': item_idx, 'bank_id': item['id'], 'label': label, 'col': col,
           'number': number, 'target': is_target, 'features': {}}
    pg.problems.append(rec)
    fig_w = 0
    if feats.get('figure') and colw > 20 * F:
        fig_w = min(colw * 0.35, F * U(rng, 6, 9))
    x_right = x0 + colw - (fig_w + F * 1.0 if fig_w else 0)
    lbl_gap = F * (0.12 if label[-1] in '．、）' else 0.3)
    st_lbl = mk_style(P, text=label, bold=P['label_bold'])
    st_lbl.size = F
    y_top = y
    label_el = single_line(label, x0, y + F * 0.92, st_lbl, 'label', pidx, ['numstyle_' + P['label_style']])
    lid = pg.add(label_el)
    lw_ = label_el['box'][2] - x0
    circle_box = None
    if feats.get('mark') == 'circle':
        # an ellipse drawn round the printed number must enclose its corners: semi-axes ~ 0.71 x the box
        lb = label_el['box']
        cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2
        a = 0.71 * (lb[2] - lb[0]) + 0.12 * F
        b = 0.71 * (lb[3] - lb[1]) + 0.12 * F
        m = max(2.0, F / 11) * 1.5
        circle_box = [cx - a - m, cy - b - m, cx + a + m, cy + b + m]
        lbl_gap = max(lbl_gap, circle_box[2] - lb[2] + 0.2 * F)
    if P['label_own_line']:
        x_first = x0 + F * 0.5
        x_left = x_first
        y = y + F * lh
    else:
        x_first = x0 + lw_ + lbl_gap
        x_left = x_first if P['hanging'] else x0
    score = None
    pre = post = None
    if P['score_notes'] and rng.random() < 0.85:
        k = int(choice(rng, [2, 3, 4, 5, 6, 8, 10]))
        score = score_text(P['score_fmt'], k)
        sat = [[('g', ch, 'n*') for ch in score]]  # a score note never breaks across lines
        if P['score_pos'] == 'before':
            pre = sat + [[('sp',)]]
        elif P['score_pos'] == 'after':
            post = [[('sp',)]] + sat
    bw = [U(rng, 3.0, 6.5) for _ in range(4)]
    ids, y_end, end_x, last_base = lay_text(pg, q, st, x_first, x_left, x_right, y, lh, 'stem', pidx, [],
                                            P['blank_mode'], bw, pre, post)
    if '___' in q:
        for k_ in ids:
            pg.elements[k_]['tags'] = sorted(set(pg.elements[k_]['tags']) | {'blank_' + P['blank_mode']})
    rec['features']['stem_lines'] = len(ids)
    if score and P['score_pos'] == 'before':
        rec['features']['score_note'] = ('before', score)
    elif score and P['score_pos'] == 'after':
        rec['features']['score_note'] = ('after', score)
    elif score:
        sw = text_width(score, st)
        if end_x + F * 1.0 + sw <= x_right:
            pg.add(single_line(score, x_right - sw, last_base, st, 'score', pidx, ['score_note_after']))
        else:
            last_base += st.size * lh
            pg.add(single_line(score, x_right - sw, last_base, st, 'score', pidx, ['score_note_after']))
            y_end = last_base + st.size * 0.28
        rec['features']['score_note'] = ('right', score)
    for k_ in ids:
        if score and P['score_pos'] in ('before', 'after'):
            pg.elements[k_]['tags'] = sorted(set(pg.elements[k_]['tags']) | {'score_note_' + P['score_pos']})
    # options
    if feats.get('mc'):
        opts = gen_options(item, rng)
        letters = 'ABCD'
        f_ = P['opt_fmt']
        texts = [f_.replace('A', letters[k]) + o for k, o in enumerate(opts)]
        st_o = mk_style(P, text=' '.join(texts))
        ws = [text_width(t, st_o) for t in texts]
        avail = x0 + colw - x_left
        pref = choice(rng, [1, 2, 4], [0.5, 0.35, 0.15])
        if pref <= 1 and max(ws) + F * 1.2 <= avail / 4:
            per = 4
        elif pref <= 2 and max(ws) + F * 1.2 <= avail / 2:
            per = 2
        else:
            per = 1
        nl = 4 // per
        tag = {4: 'mc_options_1line', 2: 'mc_options_2lines', 1: 'mc_options_4lines'}[per]
        base = y_end + F * (lh - 1.0) + F * 0.92
        for r_ in range(nl):
            for c_ in range(per):
                k = r_ * per + c_
                pg.add(single_line(texts[k], x_left + c_ * avail / per, base, st_o, 'option', pidx, [tag]))
            if r_ < nl - 1:
                base += F * lh
        y_end = base + F * 0.28
        rec['features']['options'] = texts
        rec['features']['options_layout'] = tag
    if feats.get('subq'):
        sq = SUBQ_ZH[int(rng.integers(len(SUBQ_ZH)))] if has_cjk(q) and P['lang'] == 'zh' else SUBQ_EN[int(rng.integers(len(SUBQ_EN)))]
        for s in sq:
            st_s = mk_style(P, text=s)
            ids2, y_end, _e, _b = lay_text(pg, s, st_s, x_left + F * 0.5, x_left + F * 0.5, x0 + colw,
                                           y_end + F * (lh - 1.0), lh, 'subq', pidx, ['subquestions'])
        rec['features']['subquestions'] = list(sq)
    text_bottom = y_end
    fig_bottom = y_top
    if fig_w:
        fb, ftag = add_figure(pg, rng, P, x0 + colw - fig_w, y_top + F * 0.2, fig_w, pidx, number)
        fig_bottom = fb
        rec['features']['figure'] = ftag
    block_bottom = max(text_bottom, fig_bottom)
    gap = P['gapF'] * F * U(rng, 0.9, 1.15)
    # workbook ruled answer lines
    if P['doc'] == 'workbook' and gap > 2.2 * F and rng.random() < 0.7:
        yy = block_bottom + F * 1.6
        while yy < block_bottom + gap - F * 0.5:
            pg.add(prim('line', [x_left, yy - 1, x0 + colw, yy + 1], 'rule', None, ['answer_lines'],
                        pts=[(x_left, yy), (x0 + colw, yy)], width=max(1.0, F / 22), color=(150, 150, 150), dash=False))
            yy += F * 1.6
    # handwritten answer
    if feats.get('hand'):
        lines = short_answer(item, rng)
        hs = F * U(rng, 1.05, 1.45)
        col_ = choice(rng, [(25, 45, 150), (20, 20, 30), (90, 90, 95), (10, 70, 140)], [0.45, 0.25, 0.15, 0.15])
        w_h = max(hand_text_width(t, hs) for t in lines) * 1.1
        placed = False
        if len(lines) == 1 and end_x + F * 1.2 + w_h < x0 + colw and not fig_w:
            el = add_hand(pg, rng, lines, end_x + F * U(rng, 0.8, 2.0), last_base, hs, col_, pidx, ['handwritten_answer'])
            if pg.free(el['box'], F * 0.1):
                pg.add(el)
                placed = True
        if not placed and gap > hs * (1.25 * len(lines) + 0.5) + F * 0.6:
            el = add_hand(pg, rng, lines, x_left + F * U(rng, 0.3, 3.0), block_bottom + hs * 1.1 + F * 0.2, hs, col_, pidx,
                          ['handwritten_answer'])
            if pg.free(el['box'], F * 0.1) and el['box'][2] < x0 + colw + F:
                pg.add(el)
                placed = True
        if placed:
            rec['features']['handwriting'] = lines
    # teacher / student marks
    mk = feats.get('mark')
    if mk:
        red = (200, 30, 35) if rng.random() < 0.85 else (25, 45, 150)
        lb = label_el['box']
        if mk == 'circle':
            bx = circle_box
            el = prim('mark', bx, 'mark', pidx, ['hand_circle'], mark='circle', color=red, seed=int(rng.integers(1 << 31)),
                      width=max(2.0, F / 11))
            el['printed'] = False
            pg.add(el)
            rec['features']['mark'] = 'circle'
        else:
            sz = F * U(rng, 1.1, 1.7)
            cands = [[x0 - sz * 1.25, y_top - F * 0.1, x0 - F * 0.2, y_top - F * 0.1 + sz],
                     [x0 + colw - sz, y_end - sz, x0 + colw, y_end],
                     [end_x + F * 0.8, last_base - sz * 0.9, end_x + F * 0.8 + sz * 1.3, last_base + sz * 0.2],
                     [x0 + colw - sz * 1.2, y_top - sz * 0.6, x0 + colw, y_top + sz * 0.4]]
            for bx in cands:
                if mk == 'score':
                    txt = choice(rng, ['-2', '-1', '-3', '8分', '5分', '+2', '0', '-4'])
                    el = add_hand(pg, rng, [txt], bx[0], bx[1] + sz * 0.9, sz * 0.85, red, pidx, ['teacher_score'], 'mark')
                else:
                    el = prim('mark', bx, 'mark', pidx, ['hand_' + mk], mark=mk, color=red, seed=int(rng.integers(1 << 31)),
                              width=max(2.0, F / 11))
                    el['printed'] = False
                if pg.free(el['box'], F * 0.15, ignore_roles=('rule',)):
                    pg.add(el)
                    rec['features']['mark'] = mk
                    break
    rec['elements'] = list(range(start, len(pg.elements)))
    return block_bottom + gap


def build_page(rng, P, bank, neighbours_pool):
    F = P['F']
    doc = P['doc']
    nc = P['ncols']
    phone = doc == 'screen_phone'
    if phone:
        colw = F * U(rng, 15, 21)
    elif nc == 1:
        colw = F * U(rng, 26, 44)
    elif nc == 2:
        colw = F * U(rng, 19, 28)
    else:
        colw = F * U(rng, 15, 21)
    gut = F * U(rng, 1.5, 3.5)
    ml = F * U(rng, 2.5, 5.0)
    mt = F * U(rng, 2.5, 4.5)
    Wp = ml * 2 + nc * colw + (nc - 1) * gut
    if nc == 3:
        Hp = Wp * U(rng, 0.68, 0.75)
    elif nc == 2:
        Hp = Wp * U(rng, 1.15, 1.45)
    else:
        Hp = Wp * U(rng, 1.35, 1.45)
    Hp = max(Hp, F * 52)
    pg = Page(Wp, Hp)
    tq = bank[P['target']]
    subj = tq.get('subject', 'math')
    y = mt
    # ---------------- page furniture at the top
    if doc == 'textbook':
        st_h = mk_style(P, size=int(F * 0.8), color=(90, 90, 90))
        chap = f'第{cn_numeral(int(rng.integers(1, 9)))}章　{SUBJ_ZH.get(subj, "数学")}' if P['lang'] == 'zh' else f'Chapter {int(rng.integers(1, 12))}  {SUBJ_EN.get(subj, "Maths")}'
        pg.add(single_line(chap, ml, y + F * 0.7, st_h, 'running_header', None, ['running_header']))
        pn = str(int(rng.integers(12, 180)))
        pg.add(single_line(pn, Wp - ml - text_width(pn, st_h), y + F * 0.7, st_h, 'page_number', None, ['page_number']))
        pg.add(prim('line', [ml, y + F * 1.05, Wp - ml, y + F * 1.15], 'rule', None, [], pts=[(ml, y + F * 1.1), (Wp - ml, y + F * 1.1)],
                    width=max(1.0, F / 20), color=(120, 120, 120), dash=False))
        y += F * 2.2
    if P['title']:
        titles, sub, name = header_texts(P, rng, subj)
        for k, t in enumerate(titles):
            big = int(F * (U(rng, 1.3, 1.7) if k == len(titles) - 1 or doc != 'exam' else U(rng, 1.05, 1.25)))
            if doc == 'workbook' and k == 1:
                big = F
            st_t = mk_style(P, size=big, bold=True, color=P['accent'] if doc in ('textbook', 'workbook') else P['ink'], text=t)
            w = text_width(t, st_t)
            if doc in ('textbook', 'workbook'):
                x = ml
                if doc == 'workbook' and k == 0:
                    pg.add(prim('rect', [ml - F * 0.4, y - F * 0.15, Wp - ml + F * 0.4, y + big * 1.35], 'banner', None,
                                ['header_title'], width=0, color=P['accent'], fill=tuple(int(255 - (255 - c) * 0.18) for c in P['accent'])))
            else:
                x = Wp / 2 - w / 2
            pg.add(single_line(t, x, y + big * 0.95, st_t, 'title', None, ['header_title']))
            y += big * 1.5
        if sub:
            st_s = mk_style(P, size=int(F * 0.85), text=sub)
            w = text_width(sub, st_s)
            pg.add(single_line(sub, Wp / 2 - w / 2, y + F * 0.8, st_s, 'title', None, ['header_title']))
            y += F * 1.4
        if P['name_line']:
            st_n = mk_style(P, size=int(F * 0.92), text=name)
            w = text_width(name, st_n)
            x = Wp / 2 - w / 2 if doc == 'exam' else ml
            pg.add(single_line(name, max(ml, x), y + F * 0.9, st_n, 'name_line', None, ['name_line']))
            y += F * 1.8
        if doc == 'exam' and rng.random() < 0.5:
            # score table: 题号 / 得分
            cols_ = int(rng.integers(4, 7))
            cw = F * 3.2
            tx = Wp / 2 - cols_ * cw / 2
            rh = F * 1.5
            st_tb = mk_style(P, size=int(F * 0.85))
            heads = (['题号'] + [cn_numeral(k) for k in range(1, cols_ - 1)] + ['总分']) if P['lang'] == 'zh' else \
                (['Part'] + [chr(64 + k) for k in range(1, cols_ - 1)] + ['Total'])
            for rr in range(3):
                pg.add(prim('line', [tx, y + rr * rh - 1, tx + cols_ * cw, y + rr * rh + 1], 'table', None, ['score_table'],
                            pts=[(tx, y + rr * rh), (tx + cols_ * cw, y + rr * rh)], width=max(1.0, F / 22), color=P['ink'], dash=False))
            for cc in range(cols_ + 1):
                pg.add(prim('line', [tx + cc * cw - 1, y, tx + cc * cw + 1, y + 2 * rh], 'table', None, ['score_table'],
                            pts=[(tx + cc * cw, y), (tx + cc * cw, y + 2 * rh)], width=max(1.0, F / 22), color=P['ink'], dash=False))
            for cc, hd in enumerate(heads):
                w = text_width(hd, st_tb)
                pg.add(single_line(hd, tx + cc * cw + cw / 2 - w / 2, y + rh * 0.72, st_tb, 'table', None, ['score_table']))
            pg.add(single_line('得分' if P['lang'] == 'zh' else 'Score', tx + cw / 2 - text_width('得分', st_tb) / 2,
                               y + rh * 1.72, st_tb, 'table', None, ['score_table']))
            y += 2 * rh + F * 0.9
        y += F * U(rng, 0.5, 1.5)
    body_top = y
    # exam sealing line at the left margin
    if doc == 'exam' and ml > F * 3.0 and rng.random() < 0.5:
        xs = ml * 0.45
        st_v = mk_style(P, size=int(F * 0.7), color=(110, 110, 110))
        txt = '密封线内不要答题' if P['lang'] == 'zh' else 'DO NOT WRITE HERE'
        yy = Hp * 0.3
        for ch in txt:
            if ch != ' ':
                pg.add(single_line(ch, xs - F * 0.35, yy, st_v, 'seal', None, ['seal_line']))
            yy += F * 0.95
        pg.add(prim('line', [xs + F * 0.5, mt, xs + F * 0.6, Hp - mt], 'rule', None, ['seal_line'],
                    pts=[(xs + F * 0.55, mt), (xs + F * 0.55, Hp - mt)], width=max(1.0, F / 22), color=(120, 120, 120), dash=True))
    # ---------------- columns of problems
    ct = int(rng.integers(nc))
    kt = int(choice(rng, [0, 1, 2, 3, 4, 99], [0.1, 0.24, 0.22, 0.14, 0.1, 0.2]))
    number = P['start_no']
    sec_no = int(rng.integers(1, 4))
    used = {P['target']}
    tsubj = subj
    target_done = False
    col_offsets = [0.0] * nc
    if P['misaligned']:
        col_offsets = [U(rng, -1.2, 1.2) * F * P['lh'] for _ in range(nc)]
    for c in range(nc):
        x0 = ml + c * (colw + gut)
        yc = body_top + max(0.0, col_offsets[c] + 1.2 * F * P['lh']) if P['misaligned'] else body_top
        if nc > 1 and c > 0 and doc == 'exam' and rng.random() < 0.4:
            xl = x0 - gut / 2
            pg.add(prim('line', [xl - 1, body_top, xl + 1, Hp - mt], 'rule', None, [], pts=[(xl, body_top), (xl, Hp - mt)],
                        width=max(1.0, F / 22), color=(140, 140, 140), dash=False))
        slot = 0
        while True:
            dx = U(rng, -0.5, 0.5) * F if P['misaligned'] else 0.0
            if P['sections'] and (slot == 0 and (c == 0 or rng.random() < 0.4) or (slot > 0 and rng.random() < 0.12)):
                s = section_text(P, rng, sec_no)
                sec_no += 1
                st_sec = mk_style(P, size=int(F * U(rng, 1.0, 1.15)), bold=rng.random() < 0.8, text=s)
                ids, yb, _e, _b = lay_text(pg, s, st_sec, x0 + dx, x0 + dx, x0 + colw, yc, 1.3, 'section', None, ['section_heading'])
                yc = yb + F * U(rng, 0.4, 0.9)
                if P['label_style'] not in ('circled',) and rng.random() < 0.3:
                    number = 1
            remaining = Hp - mt - yc
            is_t = (not target_done) and c == ct and (slot == kt or remaining < F * (13 if kt == 99 else 22))
            if is_t:
                idx = P['target']
            else:
                # neighbours: same subject more often than not, never the same bank item twice on a page
                for _ in range(30):
                    if rng.random() < 0.55:
                        cand = [k for k in neighbours_pool.get(tsubj, []) if k not in used]
                    else:
                        cand = []
                    if not cand:
                        idx = int(rng.integers(len(bank)))
                    else:
                        idx = cand[int(rng.integers(len(cand)))]
                    if idx not in used:
                        break
            n_before = len(pg.elements)
            np_before = len(pg.problems)
            yb = add_problem(pg, rng, P, bank, idx, number, x0 + dx, colw, yc, is_t, c)
            last_bottom = max(pg.elements[k]['box'][3] for k in range(n_before, len(pg.elements)))
            if last_bottom > Hp - mt and not is_t:
                del pg.elements[n_before:]
                del pg.problems[np_before:]
                break
            if is_t:
                target_done = True
                if last_bottom > Hp - mt:
                    Hp = last_bottom + mt * 1.5
                    pg.H = Hp
            used.add(idx)
            number += 1
            slot += 1
            yc = yb
    if not target_done:
        return None
    pg.visible = [0, 0, pg.W, pg.H]
    # ---------------- footer / page number
    if P['footer']:
        st_f = mk_style(P, size=int(F * 0.8), color=(70, 70, 70))
        pn = int(rng.integers(1, 9))
        tot = pn + int(rng.integers(0, 5))
        if P['lang'] == 'zh':
            ft = choice(rng, [f'第 {pn} 页（共 {tot} 页）', f'— {pn} —', f'{SUBJ_ZH.get(subj, "数学")}试卷　第{pn}页　共{tot}页', str(pn)])
        else:
            ft = choice(rng, [f'Page {pn} of {tot}', f'— {pn} —', f'{SUBJ_EN.get(subj, "Maths")} Worksheet  p.{pn}', str(pn)])
        w = text_width(ft, st_f)
        x = Wp / 2 - w / 2 if rng.random() < 0.7 else Wp - ml - w
        yb = pg.H - mt * 0.55
        tags = ['page_number'] if re.fullmatch(r'[—\- 0-9]+', ft) else ['footer', 'page_number']
        el = single_line(ft, x, yb, st_f, 'footer', None, tags)
        if pg.free(el['box'], F * 0.3):
            pg.add(el)
    # hand-made marks must not touch printed text of other problems (nor the framed problem's text)
    F_ = P['F']
    for e in pg.elements:
        if e['type'] not in ('hand', 'mark'):
            continue
        for o in pg.elements:
            if not o.get('printed') or o['type'] != 'text':
                continue
            if e['type'] == 'mark' and e.get('mark') == 'circle' and o['owner'] == e['owner'] and o['role'] == 'label':
                continue
            if box_inter(e['box'], o['box'], F_ * 0.15):
                p = pg.problems[e['owner']] if e['owner'] is not None else None
                if p is not None:
                    p['features'].pop('handwriting' if e['role'] == 'hand' else 'mark', None)
                e['type'] = 'none'
                e['tags'] = []
                break
    pg.colw = colw
    pg.gut = gut
    pg.ml = ml
    return pg


# ----------------------------------------------------------------------------
# Screens (laptop / phone showing the page)
# ----------------------------------------------------------------------------
PROBLEM_ROLES = ('label', 'stem', 'score', 'option', 'subq')


def problem_boxes(pg, p, clip=True):
    out = []
    for k in p['elements']:
        e = pg.elements[k]
        if e['role'] in PROBLEM_ROLES:
            b = e['box']
            if clip:
                v = pg.visible
                b = [max(b[0], v[0]), max(b[1], v[1]), min(b[2], v[2]), min(b[3], v[3])]
                if b[2] <= b[0] or b[3] <= b[1]:
                    continue
            out.append(b)
    return out


def target_problem(pg):
    for p in pg.problems:
        if p['target']:
            return p
    return None


def setup_screen(pg, rng, P):
    F = P['F']
    tp = target_problem(pg)
    tb = box_union(problem_boxes(pg, tp, clip=False))
    phone = P['doc'] == 'screen_phone'
    if phone:
        sw = pg.colw + F * U(rng, 1.6, 3.0)
        sh = sw * U(rng, 1.9, 2.15)
        bar = F * U(rng, 3.0, 3.8)
        sx0 = pg.ml - (sw - pg.colw) / 2
        bezel = F * U(rng, 0.5, 1.0)
    else:
        sw = max(tb[2] - tb[0] + F * 4, pg.W * U(rng, 0.7, 1.05))
        sh = sw * U(rng, 0.56, 0.66)
        bar = F * U(rng, 1.6, 2.4)
        lo, hi = tb[2] + F * 1.5 - sw, tb[0] - F * 1.5
        sx0 = U(rng, min(lo, hi), max(lo, hi))
        bezel = F * U(rng, 1.0, 2.2)
    need = (tb[3] - tb[1]) + F * 3 + bar
    if sh < need:
        sh = need
    cy = (tb[1] + tb[3]) / 2
    sy0 = cy - bar - (sh - bar) * U(rng, 0.35, 0.65)
    sy0 = min(sy0, tb[1] - F * 1.2 - bar)
    sy0 = max(sy0, tb[3] + F * 1.2 - sh)
    rect = [sx0, sy0, sx0 + sw, sy0 + sh]
    content = [sx0, sy0 + bar, sx0 + sw, sy0 + sh]
    pg.screen = {'kind': 'phone' if phone else 'laptop', 'rect': rect, 'content': content, 'bar': bar,
                 'bezel': bezel, 'pitch': U(rng, 1.5, 2.6), 'grid_amp': U(rng, 0.12, 0.3),
                 'viewer_gray': choice(rng, [(82, 84, 90), (200, 201, 205), (235, 236, 238)]),
                 'bar_color': choice(rng, [(242, 242, 244), (45, 47, 52), (60, 120, 200)]),
                 'tint': choice(rng, [(0.95, 0.98, 1.05), (1.0, 1.0, 1.0), (1.04, 1.0, 0.93)]),
                 'body': choice(rng, [(30, 30, 32), (190, 192, 196), (120, 122, 128)]) if not phone else
                 choice(rng, [(20, 20, 22), (235, 235, 238), (60, 70, 90)]),
                 'title': choice(rng, ['作业详情', '练习题', '班级作业', 'Homework', 'Assignment']) if phone else
                 choice(rng, ['练习卷.pdf', '作业_第3周.docx', 'worksheet.pdf', 'exam_review.pdf', '期中复习.pdf']),
                 'clock': f'{int(rng.integers(7, 23))}:{int(rng.integers(0, 60)):02d}'}
    pg.visible = content
    return True


# ----------------------------------------------------------------------------
# Camera geometry
# ----------------------------------------------------------------------------
class Curl:
    def __init__(self, kind, A, xref, L, side):
        self.kind, self.A, self.xref, self.L, self.side = kind, A, xref, L, side

    def disp(self, P):
        x = P[:, 0]
        if self.kind == 'bow':
            u = (x - self.xref) / self.L
            dy = self.A * u * u
            dx = np.zeros_like(dy)
        else:
            u = np.maximum(0.0, (x - self.xref) * self.side / self.L)
            dy = self.A * u ** 2.2
            dx = -self.side * abs(self.A) * 0.25 * u ** 2.2
        return np.stack([dx, dy], 1)

    def shade(self, P):
        x = P[:, 0]
        if self.kind == 'bow':
            u = (x - self.xref) / self.L
            return 1.0 - 0.10 * np.clip(np.abs(u), 0, 1.5) ** 2
        u = np.maximum(0.0, (x - self.xref) * self.side / self.L)
        return 1.0 - 0.22 * np.clip(u, 0, 1.5) ** 1.5

    def to_json(self):
        return {'kind': self.kind, 'amplitude_page_px': round(self.A, 1), 'x_ref': round(self.xref, 1),
                'length': round(self.L, 1), 'side': self.side}


def tilt_h(alpha, beta, f, a):
    ca, sa = math.cos(alpha), math.sin(alpha)
    cb, sb = math.cos(beta), math.sin(beta)
    R = np.array([[1, 0, 0], [0, ca, -sa], [0, sa, ca]]) @ np.array([[cb, 0, sb], [0, 1, 0], [-sb, 0, cb]])
    src = np.array([[-a, -a], [a, -a], [a, a], [-a, a]], np.float32)
    dst = []
    for x, y in src:
        X = R @ np.array([x, y, 0.0]) + np.array([0, 0, f])
        dst.append([f * X[0] / X[2], f * X[1] / X[2]])
    return cv2.getPerspectiveTransform(src, np.array(dst, np.float32)).astype(np.float64)


def build_h(c, s, theta, alpha, beta, f, Wc, Hc):
    T1 = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1]], float)
    S = np.diag([s, s, 1.0])
    ct, st_ = math.cos(theta), math.sin(theta)
    R = np.array([[ct, -st_, 0], [st_, ct, 0], [0, 0, 1]], float)
    Hp = tilt_h(alpha, beta, f, max(Wc, Hc) / 2)
    T2 = np.array([[1, 0, Wc / 2], [0, 1, Hc / 2], [0, 0, 1]], float)
    H = T2 @ Hp @ R @ S @ T1
    return H / H[2, 2]


def apply_h(H, P):
    P = np.asarray(P, float)
    Q = np.c_[P, np.ones(len(P))] @ H.T
    return Q[:, :2] / Q[:, 2:3]


def map_page(cam, P):
    P = np.asarray(P, float)
    if cam.get('curl') is not None:
        P = P + cam['curl'].disp(P)
    return apply_h(cam['H'], P)


def box_samples(b, n=5):
    xs = np.linspace(b[0], b[2], n)
    ys = np.linspace(b[1], b[3], 3)
    pts = [(x, b[1]) for x in xs] + [(x, b[3]) for x in xs] + [(b[0], y) for y in ys] + [(b[2], y) for y in ys]
    return np.array(pts, float)


def quad_of(cam, b):
    Q = map_page(cam, box_samples(b))
    return cv2.convexHull(Q.astype(np.float32))


def poly_dist(hull, pt):
    d = cv2.pointPolygonTest(hull, (float(pt[0]), float(pt[1])), True)
    return max(0.0, -d)


def frac_inside(hull, W, H):
    area = cv2.contourArea(hull)
    if area < 1e-6:
        return 0.0
    frame = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    inter, _ = cv2.intersectConvexConvex(hull.reshape(-1, 2).astype(np.float32), frame)
    return float(inter) / area


def rect_dist(c, b):
    dx = max(b[0] - c[0], 0.0, c[0] - b[2])
    dy = max(b[1] - c[1], 0.0, c[1] - b[3])
    return math.hypot(dx, dy)


def evaluate(cam, pg, Wc, Hc, thr):
    """Distances from the frame centre to each problem's printed lines (photo px), plus checks."""
    ctr = (Wc / 2.0, Hc / 2.0)
    m0 = 0.012 * min(Wc, Hc)
    res = {'ok': True, 'why': ''}
    dists = []
    for p in pg.problems:
        bs = problem_boxes(pg, p)
        if not bs:
            continue
        hulls = [quad_of(cam, b) for b in bs]
        d = min(poly_dist(h, ctr) for h in hulls)
        whole = cv2.convexHull(np.concatenate([h.reshape(-1, 2) for h in hulls]).astype(np.float32))
        d_block = poly_dist(whole, ctr)
        fr = [frac_inside(h, Wc, Hc) for h in hulls]
        allin = all(h.reshape(-1, 2)[:, 0].min() >= m0 and h.reshape(-1, 2)[:, 0].max() <= Wc - m0 and
                    h.reshape(-1, 2)[:, 1].min() >= m0 and h.reshape(-1, 2)[:, 1].max() <= Hc - m0 for h in hulls)
        vis = 'whole' if allin else ('cut' if max(fr) > 0.0 else 'none')
        dists.append({'p': p, 'd': d, 'd_block': d_block, 'vis': vis, 'hulls': hulls})
    tgt = [x for x in dists if x['p']['target']][0]
    others = [x for x in dists if not x['p']['target']]
    dmin = min([x['d'] for x in others], default=1e9)
    dmin_block = min([x['d_block'] for x in others], default=1e9)
    res['d_target'] = tgt['d']
    res['d_other'] = dmin
    res['d_other_block'] = dmin_block
    res['margin_lines'] = dmin - tgt['d']
    # stricter: neighbours measured to the hull of their whole block, the target to its nearest line
    res['margin'] = dmin_block - tgt['d']
    res['dists'] = dists
    if tgt['vis'] != 'whole':
        res['ok'] = False
        res['why'] = 'target not wholly in frame'
    elif res['margin'] < thr:
        res['ok'] = False
        res['why'] = 'margin %.1f < %.1f' % (res['margin'], thr)
    res['n_visible_neighbours'] = sum(1 for x in others if x['vis'] != 'none')
    return res


def solve_camera(rng, pg, P):
    Wf, Hf = P['size']
    rot = P['rotation']
    Wc, Hc = (Wf, Hf) if rot in (0, 180) else (Hf, Wf)
    thr = 0.08 * max(Wf, Hf)
    F = P['F']
    tp = target_problem(pg)
    tbs = problem_boxes(pg, tp)
    tb = box_union(tbs)
    others = [(p, problem_boxes(pg, p)) for p in pg.problems if not p['target']]
    others = [(p, b) for p, b in others if b]
    t_lo, t_hi = 18.5, 60.0
    for attempt in range(10):
        jit = 1.0 if attempt < 4 else (0.4 if attempt < 7 else 0.0)
        c = np.array([(tb[0] + tb[2]) / 2 + U(rng, -0.12, 0.12) * jit * (tb[2] - tb[0]),
                      (tb[1] + tb[3]) / 2 + U(rng, -0.25, 0.25) * jit * (tb[3] - tb[1])])
        theta = math.radians(float(np.clip(rng.normal(0, 2.2), -6, 6)))
        if P['slant']:
            big = math.radians(U(rng, 15, 30)) * (1 if rng.random() < 0.5 else -1)
            if rng.random() < 0.5:
                alpha, beta = big, math.radians(U(rng, -6, 6))
            else:
                alpha, beta = math.radians(U(rng, -6, 6)), big
            slack = 0.12
        else:
            alpha, beta = math.radians(U(rng, -5, 5)), math.radians(U(rng, -5, 5))
            slack = 0.05
        if attempt >= 7:
            alpha *= 0.4
            beta *= 0.4
        dt = min(rect_dist(c, b) for b in tbs)
        s_margin = 0.0
        bad = False
        for _p, bs in others:
            dj = rect_dist(c, box_union(bs))
            if dj - dt <= 1e-6:
                bad = True
                break
            s_margin = max(s_margin, thr * (1.2 + slack) / (dj - dt))
        if bad:
            continue
        corners = np.array([[tb[0], tb[1]], [tb[2], tb[1]], [tb[2], tb[3]], [tb[0], tb[3]]]) - c
        ctt, stt = math.cos(theta), math.sin(theta)
        rx = np.abs(corners[:, 0] * ctt - corners[:, 1] * stt).max()
        ry = np.abs(corners[:, 0] * stt + corners[:, 1] * ctt).max()
        mW = (0.5 - slack - 0.02) * Wc
        mH = (0.5 - slack - 0.02) * Hc
        s_fit = min(mW / max(rx, 1), mH / max(ry, 1))
        s_lo = max(s_margin, t_lo / F)
        s_hi = min(s_fit, t_hi / F)
        if s_lo > s_hi:
            continue
        s = float(np.clip(P['T'] / F * U(rng, 0.95, 1.05), s_lo, s_hi))
        f = max(Wc, Hc) * U(rng, 0.9, 1.4)
        best = None
        for shrink in range(4):
            cam = {'H': build_h(c, s, theta, alpha, beta, f, Wc, Hc), 'curl': None, 's': s, 'theta': theta,
                   'alpha': alpha, 'beta': beta, 'f': f, 'c': c, 'Wc': Wc, 'Hc': Hc, 'thr': thr}
            if P['curl']:
                L = Wc / 2 / s
                if rng.random() < 0.5:
                    cam['curl'] = Curl('bow', F * U(rng, 0.4, 1.1) * (1 if rng.random() < 0.5 else -1), c[0] + U(rng, -0.3, 0.3) * L, L, 0)
                else:
                    side = 1 if rng.random() < 0.5 else -1
                    cam['curl'] = Curl('edge', -F * U(rng, 0.8, 2.2), c[0] + side * L * U(rng, 0.35, 0.7), L * 0.6, side)
            ev = evaluate(cam, pg, Wc, Hc, thr)
            if not ev['ok']:
                break
            cam['eval'] = ev
            best = cam
            if ev['n_visible_neighbours'] == 0 and s * 0.85 >= s_lo:
                s *= 0.85
                continue
            v = pg.screen['rect'] if pg.screen else [0, 0, pg.W, pg.H]
            qv = quad_of(cam, v)
            cov = frac_inside(qv, Wc, Hc) * cv2.contourArea(qv) / float(Wc * Hc)
            if cov < (0.45 if pg.screen else 0.6) and s * 1.15 <= s_hi:
                s *= 1.15
                continue
            break
        if best is not None:
            return best
    return None


# ----------------------------------------------------------------------------
# Rendering
# ----------------------------------------------------------------------------
def smooth_noise(rng, h, w, cell, amp):
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    g = rng.normal(0, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def desk_texture(rng, h, w, kind):
    base = {'wood': (150, 108, 70), 'wood_light': (196, 160, 118), 'gray': (118, 120, 126), 'white': (212, 212, 206),
            'dark': (48, 48, 54), 'green': (62, 98, 80), 'cloth': (90, 70, 120)}[kind]
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    n = smooth_noise(rng, h, w, 400, 5) + smooth_noise(rng, h, w, 25, 1.5)
    img += n[:, :, None]
    if kind.startswith('wood'):
        gh = max(2, h // 3)
        streak = cv2.resize(rng.normal(0, 1, (gh, 6)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        img += (streak * 14)[:, :, None] * np.array([1.0, 0.8, 0.6], np.float32)
    img += rng.normal(0, 2.0, (h, w, 1)).astype(np.float32)
    return img


def draw_elements(img, pg, roi, r, els, dark=1.0):
    F = fonts()
    d = ImageDraw.Draw(img)
    rx, ry = roi[0], roi[1]

    def tx(x):
        return (x - rx) * r

    def ty(y):
        return (y - ry) * r

    for e in els:
        t = e['type']
        col = tuple(int(c * dark) for c in e.get('color', (0, 0, 0)))
        if t == 'text':
            for (x, y, ch, key, size) in e['glyphs']:
                sz = max(4, int(round(size * r)))
                d.text((tx(x), ty(y)), ch, font=F.font(key, sz), fill=col, anchor='ls')
            for (xa, ya, xb, yb, th) in e['rules']:
                d.line([(tx(xa), ty(ya)), (tx(xb), ty(yb))], fill=col, width=max(1, int(round(th * r))))
        elif t == 'line':
            pts = [(tx(x), ty(y)) for x, y in e['pts']]
            wdt = max(1, int(round(e['width'] * r)))
            if e.get('dash'):
                for a, b in zip(pts[:-1], pts[1:]):
                    L = math.hypot(b[0] - a[0], b[1] - a[1])
                    seg = max(4.0, 6 * wdt)
                    n = int(L / seg)
                    for k in range(0, n, 2):
                        p0 = (a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n)
                        p1 = (a[0] + (b[0] - a[0]) * (k + 1) / n, a[1] + (b[1] - a[1]) * (k + 1) / n)
                        d.line([p0, p1], fill=col, width=wdt)
            else:
                d.line(pts, fill=col, width=wdt, joint='curve')
        elif t == 'rect':
            b = e['box']
            fill = tuple(e['fill']) if e.get('fill') else None
            d.rectangle([tx(b[0]), ty(b[1]), tx(b[2]), ty(b[3])], fill=fill,
                        outline=col if e.get('width', 0) > 0 else None, width=max(1, int(round(e.get('width', 1) * r))))
        elif t == 'ellipse':
            b = e['box']
            fill = tuple(e['fill']) if e.get('fill') else None
            d.ellipse([tx(b[0]), ty(b[1]), tx(b[2]), ty(b[3])], fill=fill,
                      outline=col if e.get('width', 0) > 0 else None, width=max(1, int(round(e.get('width', 1) * r))))


def blend_ink(canvas, alpha, x, y, color):
    """Multiply-blend an alpha layer of ink onto a float canvas at integer position (x, y)."""
    h, w = alpha.shape
    H, W = canvas.shape[:2]
    xa, ya = max(0, x), max(0, y)
    xb, yb = min(W, x + w), min(H, y + h)
    if xb <= xa or yb <= ya:
        return
    a = alpha[ya - y:yb - y, xa - x:xb - x][:, :, None]
    col = np.array(color, np.float32)
    region = canvas[ya:yb, xa:xb]
    # ink absorbs light: darken towards the ink colour
    canvas[ya:yb, xa:xb] = region * (1 - a) + np.minimum(region, col * (region / 255.0) * 1.0 + col * 0.0) * a


def render_roi(pg, P, roi, r, rng):
    rx0, ry0, rx1, ry1 = roi
    w = int(math.ceil((rx1 - rx0) * r))
    h = int(math.ceil((ry1 - ry0) * r))
    scr = pg.screen
    desk = choice(rng, ['wood', 'wood_light', 'gray', 'white', 'dark', 'green', 'cloth'], [0.25, 0.15, 0.15, 0.15, 0.12, 0.1, 0.08])
    canvas = desk_texture(rng, h, w, desk)

    def R(b):
        return [int(round((b[0] - rx0) * r)), int(round((b[1] - ry0) * r)), int(round((b[2] - rx0) * r)), int(round((b[3] - ry0) * r))]

    pb = R([0, 0, pg.W, pg.H])
    paper = choice(rng, [(250, 250, 247), (246, 243, 232), (240, 240, 240), (252, 252, 252), (236, 233, 222)])
    if scr is None:
        # soft drop shadow of the sheet on the desk
        sh = np.zeros((h, w), np.float32)
        off = int(max(2, 6 * r))
        cv2.rectangle(sh, (pb[0] + off, pb[1] + off), (pb[2] + off, pb[3] + off), 1.0, -1)
        sh = cv2.GaussianBlur(sh, (0, 0), max(2.0, 10 * r))
        canvas *= (1 - 0.35 * sh)[:, :, None]
        ya, yb = max(0, pb[1]), min(h, pb[3])
        xa, xb = max(0, pb[0]), min(w, pb[2])
        if yb > ya and xb > xa:
            canvas[ya:yb, xa:xb] = np.array(paper, np.float32)
            tex = smooth_noise(rng, yb - ya, xb - xa, 40, 2.5) + rng.normal(0, 1.6, (yb - ya, xb - xa)).astype(np.float32)
            canvas[ya:yb, xa:xb] += tex[:, :, None]
    else:
        canvas[:] = np.array(scr['viewer_gray'], np.float32)
        ya, yb = max(0, pb[1]), min(h, pb[3])
        xa, xb = max(0, pb[0]), min(w, pb[2])
        if yb > ya and xb > xa:
            canvas[ya:yb, xa:xb] = (255, 255, 255)
    img = Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8))
    margin = 4 * P['F']
    vis = [e for e in pg.elements if e['type'] in ('text', 'line', 'rect', 'ellipse') and
           box_inter(e['box'], [rx0 - margin, ry0 - margin, rx1 + margin, ry1 + margin])]
    # banners / fills first, then everything else
    vis.sort(key=lambda e: 0 if e['role'] == 'banner' else 1)
    draw_elements(img, pg, roi, r, vis, dark=1.0)
    canvas = np.asarray(img).astype(np.float32)
    # handwriting and hand marks
    for e in pg.elements:
        if e['type'] not in ('hand', 'mark') or not box_inter(e['box'], [rx0 - margin, ry0 - margin, rx1 + margin, ry1 + margin]):
            continue
        if e['type'] == 'hand':
            sz = e['size'] * r
            for k, line in enumerate(e['lines']):
                lay, _, _ = render_handwriting(line, sz, e['seed'] + k, pencil=tuple(e['color']) == (90, 90, 95))
                X = int(round((e['x'] - rx0) * r - 0.5 * sz))
                Y = int(round((e['y'] + k * 1.25 * e['size'] - ry0) * r - 1.7 * sz))
                blend_ink(canvas, lay, X, Y, e['color'])
        else:
            b = R(e['box'])
            lay = render_mark(e['mark'], max(8, b[2] - b[0]), max(8, b[3] - b[1]), max(1.5, e['width'] * r), e['seed'])
            blend_ink(canvas, lay, b[0], b[1], e['color'])
    if scr is not None:
        canvas = finish_screen(canvas, pg, P, roi, r, rng, R)
    return canvas


def finish_screen(canvas, pg, P, roi, r, rng, R):
    scr = pg.screen
    h, w = canvas.shape[:2]
    F = P['F']
    sr = R(scr['rect'])
    cr = R(scr['content'])
    # toolbar / status bar above the content
    bar = canvas[max(0, sr[1]):max(0, min(h, cr[1])), max(0, sr[0]):max(0, min(w, sr[2]))]
    if bar.size:
        bar[:] = np.array(scr['bar_color'], np.float32)
    img = Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8))
    d = ImageDraw.Draw(img)
    light = sum(scr['bar_color']) > 400
    tcol = (40, 40, 45) if light else (235, 235, 240)
    Fs = fonts()
    sz = max(6, int(F * 0.8 * r))
    if scr['kind'] == 'phone':
        k1 = Fs.pick('9', ['lat_sans', 'dv_sans'])
        d.text((sr[0] + F * 0.8 * r, sr[1] + F * 0.9 * r), scr['clock'], font=Fs.font(k1, sz), fill=tcol, anchor='ls')
        d.rectangle([sr[2] - F * 2.2 * r, sr[1] + F * 0.35 * r, sr[2] - F * 0.8 * r, sr[1] + F * 0.85 * r], outline=tcol, width=max(1, int(r * 2)))
        title = scr['title']
        tk = 'cjk_sans' if has_cjk(title) else 'lat_sans'
        tw = Fs.font(tk, int(sz * 1.2)).getlength(title)
        d.text(((sr[0] + sr[2]) / 2 - tw / 2, sr[1] + (scr['bar'] - F * 0.7) * r), title, font=Fs.font(tk, int(sz * 1.2)), fill=tcol, anchor='ls')
        d.line([(sr[0] + F * 0.7 * r, sr[1] + (scr['bar'] - F * 1.1) * r), (sr[0] + F * 1.1 * r, sr[1] + (scr['bar'] - F * 1.5) * r)], fill=tcol, width=max(1, int(r * 2)))
        d.line([(sr[0] + F * 0.7 * r, sr[1] + (scr['bar'] - F * 1.1) * r), (sr[0] + F * 1.1 * r, sr[1] + (scr['bar'] - F * 0.7) * r)], fill=tcol, width=max(1, int(r * 2)))
    else:
        title = scr['title']
        tk = 'cjk_sans' if has_cjk(title) else 'lat_sans'
        d.text((sr[0] + F * 4.5 * r, sr[1] + scr['bar'] * 0.65 * r), title, font=Fs.font(tk, sz), fill=tcol, anchor='ls')
        for k in range(3):
            cx = sr[0] + F * (0.8 + k * 1.1) * r
            cy = sr[1] + scr['bar'] * 0.5 * r
            d.ellipse([cx - F * 0.3 * r, cy - F * 0.3 * r, cx + F * 0.3 * r, cy + F * 0.3 * r],
                      fill=[(236, 95, 87), (245, 190, 80), (98, 197, 85)][k])
        for k in range(4):
            cx = sr[2] - F * (1.2 + k * 1.6) * r
            cy = sr[1] + scr['bar'] * 0.5 * r
            d.rectangle([cx - F * 0.45 * r, cy - F * 0.35 * r, cx + F * 0.45 * r, cy + F * 0.35 * r], outline=tcol, width=max(1, int(r * 1.5)))
    canvas = np.asarray(img).astype(np.float32)
    # sub-pixel grid of the display (aliases into moire once photographed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    p = scr['pitch']
    a = scr['grid_amp']
    grid = np.empty((h, w, 3), np.float32)
    for ch in range(3):
        grid[:, :, ch] = 1 - a + a * (0.5 + 0.5 * np.cos(2 * np.pi * (xx / p - ch / 3.0)))
    grid *= (1 - a * 0.6 + a * 0.6 * (0.5 + 0.5 * np.cos(2 * np.pi * yy / p)))[:, :, None]
    inside = np.zeros((h, w), np.float32)
    cv2.rectangle(inside, (sr[0], sr[1]), (sr[2], sr[3]), 1.0, -1)
    tint = np.array(scr['tint'], np.float32)
    scr_img = canvas * grid * tint
    # outside the screen: bezel, then device body, then desk
    bz = int(scr['bezel'] * r)
    body = np.empty_like(canvas)
    body[:] = np.array(scr['body'], np.float32)
    bez = np.zeros((h, w), np.float32)
    rad = int(bz * (2.5 if scr['kind'] == 'phone' else 0.6)) + 1
    x0, y0, x1, y1 = sr[0] - bz, sr[1] - bz, sr[2] + bz, sr[3] + bz
    cv2.rectangle(bez, (x0 + rad, y0), (x1 - rad, y1), 1.0, -1)
    cv2.rectangle(bez, (x0, y0 + rad), (x1, y1 - rad), 1.0, -1)
    for (cx, cy) in [(x0 + rad, y0 + rad), (x1 - rad, y0 + rad), (x0 + rad, y1 - rad), (x1 - rad, y1 - rad)]:
        cv2.circle(bez, (cx, cy), rad, 1.0, -1)
    bez_col = np.array((14, 14, 16), np.float32)
    dev = np.zeros((h, w), np.float32)
    ext = int(bz * (1.2 if scr['kind'] == 'phone' else 3.0)) + 2
    cv2.rectangle(dev, (x0 - ext, y0 - ext), (x1 + ext, y1 + ext * (6 if scr['kind'] == 'laptop' else 1)), 1.0, -1)
    dev = cv2.GaussianBlur(dev, (0, 0), 2)
    out = desk_texture(rng, h, w, choice(rng, ['dark', 'wood', 'gray', 'white']))
    out = out * (1 - dev[:, :, None]) + body * dev[:, :, None]
    out = out * (1 - bez[:, :, None]) + bez_col * bez[:, :, None]
    out = out * (1 - inside[:, :, None]) + scr_img * inside[:, :, None]
    return out


def occluder_layer(rng, kind, Wc, Hc, forbid):
    """Try to place a finger / thumb / pen; returns (rgb, alpha, shadow, info) or None."""
    md = min(Wc, Hc)
    for _ in range(14):
        edge = choice(rng, ['left', 'right', 'bottom', 'top'], [0.3, 0.3, 0.3, 0.1])
        t = U(rng, 0.1, 0.9)
        if edge == 'left':
            p_out = np.array([-md * 0.1, t * Hc]); nrm = np.array([1.0, 0.0])
        elif edge == 'right':
            p_out = np.array([Wc + md * 0.1, t * Hc]); nrm = np.array([-1.0, 0.0])
        elif edge == 'bottom':
            p_out = np.array([t * Wc, Hc + md * 0.1]); nrm = np.array([0.0, -1.0])
        else:
            p_out = np.array([t * Wc, -md * 0.1]); nrm = np.array([0.0, 1.0])
        ang = math.radians(U(rng, -35, 35))
        dirv = np.array([nrm[0] * math.cos(ang) - nrm[1] * math.sin(ang), nrm[0] * math.sin(ang) + nrm[1] * math.cos(ang)])
        if kind == 'finger':
            width = md * U(rng, 0.085, 0.13); length = md * U(rng, 0.16, 0.3)
        elif kind == 'thumb':
            width = md * U(rng, 0.15, 0.21); length = md * U(rng, 0.14, 0.24)
        else:
            width = md * U(rng, 0.022, 0.036); length = md * U(rng, 0.3, 0.55)
        tip = p_out + dirv * (length + md * 0.1)
        mask = np.zeros((Hc, Wc), np.uint8)
        cv2.line(mask, tuple(int(v) for v in p_out), tuple(int(v) for v in tip), 255, int(width))
        if kind == 'pen':
            # tapered tip
            tip2 = tip + dirv * width * 2.2
            perp = np.array([-dirv[1], dirv[0]])
            poly = np.array([tip + perp * width / 2, tip - perp * width / 2, tip2], np.int32)
            cv2.fillPoly(mask, [poly], 255)
        else:
            cv2.circle(mask, tuple(int(v) for v in tip), int(width / 2), 255, -1)
        grow = cv2.dilate(mask, np.ones((15, 15), np.uint8))
        if (grow > 0).astype(np.uint8).__and__(forbid).any():
            continue
        if mask.sum() == 0:
            continue
        m = mask.astype(np.float32) / 255.0
        dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
        dn = dist / (dist.max() + 1e-6)
        rgb = np.zeros((Hc, Wc, 3), np.float32)
        if kind in ('finger', 'thumb'):
            skin = np.array(choice(rng, [(224, 172, 140), (198, 140, 105), (240, 196, 165), (172, 116, 86)]), np.float32)
            shade = 0.55 + 0.5 * np.sqrt(dn)
            rgb[:] = skin
            rgb *= shade[:, :, None]
            if rng.random() < 0.6:
                nail = np.zeros((Hc, Wc), np.uint8)
                nc = tip - dirv * width * 0.35
                cv2.ellipse(nail, (tuple(int(v) for v in nc)), (int(width * 0.26), int(width * 0.34)),
                            math.degrees(math.atan2(dirv[1], dirv[0])) + 90, 0, 360, 255, -1)
                nm = cv2.GaussianBlur(nail.astype(np.float32) / 255.0, (0, 0), 2) * m
                rgb = rgb * (1 - nm[:, :, None] * 0.5) + np.array((238, 205, 200), np.float32) * nm[:, :, None] * 0.5
            sig = U(rng, 2.0, 6.0)
        else:
            body = np.array(choice(rng, [(25, 45, 130), (20, 20, 24), (180, 30, 35), (230, 230, 235), (30, 110, 60)]), np.float32)
            rgb[:] = body
            perp = np.array([-dirv[1], dirv[0]])
            yy, xx = np.mgrid[0:Hc, 0:Wc].astype(np.float32)
            off = ((xx - tip[0]) * perp[0] + (yy - tip[1]) * perp[1]) / (width / 2 + 1e-6)
            rgb *= (0.6 + 0.55 * np.exp(-((off + 0.35) ** 2) / 0.08))[:, :, None].clip(0, 1.4)
            along = ((xx - tip[0]) * dirv[0] + (yy - tip[1]) * dirv[1])
            cone = (along > 0).astype(np.float32) * m
            rgb = rgb * (1 - cone[:, :, None]) + np.array((170, 170, 175), np.float32) * cone[:, :, None]
            sig = U(rng, 0.8, 2.0)
        alpha = cv2.GaussianBlur(m, (0, 0), sig)
        rgb = cv2.GaussianBlur(rgb, (0, 0), sig)
        sh = cv2.GaussianBlur(np.roll(np.roll(m, int(md * 0.03), 1), int(md * 0.04), 0), (0, 0), md * 0.03)
        return rgb, alpha, sh, {'kind': kind, 'edge': edge}
    return None


def make_photo(args):
    seed, i, bank, flags, pools = args
    ss = np.random.SeedSequence([seed, i])
    rng = np.random.default_rng(ss)
    F_ = fonts()
    plan = None
    pg = cam = None
    relax = 1.0
    for attempt in range(14):
        if plan is None or attempt % 2 == 0:
            plan = draw_plan(rng, bank, flags, i) if plan is None else plan
        P = dict(plan)
        P['gapF'] = plan['gapF'] * relax
        if attempt >= 10:
            P['ncols'] = 1 if not P['doc'].startswith('screen') else P['ncols']
            P['slant'] = False
            P['curl'] = False
        pg = build_page(rng, P, bank, pools)
        if pg is None:
            relax *= 1.2
            continue
        if P['doc'].startswith('screen'):
            setup_screen(pg, rng, P)
        cam = solve_camera(rng, pg, P)
        if cam is not None:
            break
        relax *= 1.3
        if attempt % 3 == 2 and P['T'] < 26:
            plan['T'] = P['T'] * 1.15
    if cam is None:
        raise RuntimeError(f'photo {i}: no valid layout found')
    return render_photo(rng, pg, P, cam, seed, i, bank)


def render_photo(rng, pg, P, cam, seed, i, bank):
    Wc, Hc = cam['Wc'], cam['Hc']
    H = cam['H']
    Hinv = np.linalg.inv(H)
    s = cam['s']
    F = P['F']
    screen = pg.screen is not None
    # ---- region of the page that the frame sees
    bx = np.linspace(0, Wc, 9)
    by = np.linspace(0, Hc, 9)
    border = np.array([(x, 0) for x in bx] + [(x, Hc) for x in bx] + [(0, y) for y in by] + [(Wc, y) for y in by], float)
    pr = apply_h(Hinv, border)
    if cam['curl'] is not None:
        pr = pr - cam['curl'].disp(pr)
    pad = 3 * F
    roi = [float(pr[:, 0].min() - pad), float(pr[:, 1].min() - pad), float(pr[:, 0].max() + pad), float(pr[:, 1].max() + pad)]
    r = min(1.0, s * (1.7 if screen else 1.3))
    canvas = render_roi(pg, P, roi, r, rng)
    if not screen:
        canvas = cv2.GaussianBlur(canvas, (0, 0), 0.45)
    # ---- warp to the camera frame
    uu, vv = np.meshgrid(np.arange(Wc, dtype=np.float64), np.arange(Hc, dtype=np.float64))
    pts = np.stack([uu.ravel(), vv.ravel()], 1)
    rpts = apply_h(Hinv, pts)
    curl_shade = None
    if cam['curl'] is not None:
        p = rpts.copy()
        for _ in range(4):
            p = rpts - cam['curl'].disp(p)
        rpts = p
        curl_shade = cam['curl'].shade(rpts).reshape(Hc, Wc).astype(np.float32)
    mx = ((rpts[:, 0] - roi[0]) * r).reshape(Hc, Wc).astype(np.float32)
    my = ((rpts[:, 1] - roi[1]) * r).reshape(Hc, Wc).astype(np.float32)
    img = cv2.remap(canvas, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    kinds = set()
    info = {}
    # ---- screen moire overlay
    if screen:
        sr = pg.screen['rect']
        q = map_page(cam, np.array([[sr[0], sr[1]], [sr[2], sr[1]], [sr[2], sr[3]], [sr[0], sr[3]]]))
        smask = np.zeros((Hc, Wc), np.float32)
        cv2.fillPoly(smask, [q.astype(np.int32)], 1.0)
        yy, xx = np.mgrid[0:Hc, 0:Wc].astype(np.float32)
        per = U(rng, 14, 60)
        ang = U(rng, 0, math.pi)
        curv = U(rng, -1, 1) * 1e-4
        ph = 2 * np.pi * ((xx * math.cos(ang) + yy * math.sin(ang)) / per + curv * ((xx - Wc / 2) ** 2 + (yy - Hc / 2) ** 2) / per)
        amp = U(rng, 0.02, 0.07)
        mo = np.stack([1 + amp * np.cos(ph), 1 + amp * np.cos(ph + 2.1), 1 + amp * np.cos(ph + 4.2)], 2)
        img = img * (1 - smask[:, :, None]) + img * mo * smask[:, :, None]
        # glare on the glass
        gl = np.zeros((Hc, Wc), np.float32)
        c0 = (int(U(rng, 0, Wc)), int(U(rng, 0, Hc)))
        cv2.ellipse(gl, c0, (int(Wc * U(rng, 0.2, 0.5)), int(Hc * U(rng, 0.05, 0.15))), U(rng, 0, 180), 0, 360, 1.0, -1)
        gl = cv2.GaussianBlur(gl, (0, 0), min(Wc, Hc) * 0.08) * smask
        img += (gl * U(rng, 10, 35))[:, :, None]
        kinds.add('moire')
        info['screen'] = {'kind': pg.screen['kind'], 'pixel_pitch_page_px': round(pg.screen['pitch'], 2),
                          'moire_period_px': round(per, 1)}
    # ---- lighting
    yy, xx = np.mgrid[0:Hc, 0:Wc].astype(np.float32)
    xn, yn = xx / Wc - 0.5, yy / Hc - 0.5
    expo = U(rng, 0.82, 1.02) if not screen else U(rng, 0.85, 1.0)
    light = np.full((Hc, Wc), expo, np.float32)
    if P['uneven']:
        g = np.array([U(rng, -1, 1), U(rng, -1, 1)])
        g = g / (np.linalg.norm(g) + 1e-6) * U(rng, 0.15, 0.35)
        light *= 1 + g[0] * xn + g[1] * yn
        light *= 1 - U(rng, 0.1, 0.3) * (xn ** 2 + yn ** 2) * 2
        if rng.random() < 0.4:
            hx, hy = U(rng, -0.4, 0.4), U(rng, -0.4, 0.4)
            light += U(rng, 0.05, 0.14) * np.exp(-((xn - hx) ** 2 + (yn - hy) ** 2) / 0.05)
        kinds.add('uneven_light')
    else:
        light *= 1 - 0.08 * (xn ** 2 + yn ** 2) * 2
    if P['shadow']:
        sh = np.zeros((Hc, Wc), np.float32)
        side = int(rng.integers(4))
        k1, k2 = U(rng, 0.15, 0.55), U(rng, 0.15, 0.55)
        if side == 0:
            poly = [(0, 0), (Wc * k1, 0), (Wc * k2, Hc), (0, Hc)]
        elif side == 1:
            poly = [(Wc, 0), (Wc * (1 - k1), 0), (Wc * (1 - k2), Hc), (Wc, Hc)]
        elif side == 2:
            poly = [(0, 0), (Wc, 0), (Wc, Hc * k1), (0, Hc * k2)]
        else:
            poly = [(0, Hc), (Wc, Hc), (Wc, Hc * (1 - k1)), (0, Hc * (1 - k2))]
        cv2.fillPoly(sh, [np.array(poly, np.int32)], 1.0)
        sh = cv2.GaussianBlur(sh, (0, 0), min(Wc, Hc) * U(rng, 0.03, 0.09))
        light *= 1 - U(rng, 0.2, 0.42) * sh
        kinds.add('shadow')
    if curl_shade is not None:
        light *= curl_shade
        kinds.add('curl')
    temp = choice(rng, [(1.0, 1.0, 1.0), (1.05, 1.0, 0.88), (0.96, 1.0, 1.06), (1.03, 1.01, 0.95)])
    img = img * light[:, :, None] * np.array(temp, np.float32)
    # ---- finger / thumb / pen at an edge, never over the framed problem
    ev = cam['eval']
    tgt = [x for x in ev['dists'] if x['p']['target']][0]
    forbid = np.zeros((Hc, Wc), np.uint8)
    for hl in tgt['hulls']:
        cv2.fillPoly(forbid, [hl.reshape(-1, 2).astype(np.int32)], 1)
    forbid = cv2.dilate(forbid, np.ones((9, 9), np.uint8))
    occ = None
    if P['occluder']:
        res = occluder_layer(rng, P['occluder'], Wc, Hc, forbid)
        if res is not None:
            orgb, oa, osh, occ = res
            img *= (1 - 0.35 * osh)[:, :, None]
            olight = light[:, :, None] * 1.05
            img = img * (1 - oa[:, :, None]) + orgb * olight * oa[:, :, None]
            kinds.add(P['occluder'])
            occ['box'] = None
            ys, xs = np.nonzero(oa > 0.5)
            if len(xs):
                occ['box'] = [int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())]
    # ---- blur
    T_px = F * s
    blur = None
    if P['blur'] == 'gauss':
        sig = min(U(rng, 0.6, 1.6), T_px / 22)
        img = cv2.GaussianBlur(img, (0, 0), sig)
        blur = {'kind': 'gauss', 'sigma': round(sig, 2)}
        kinds.add('blur')
    elif P['blur'] == 'motion':
        L = int(min(U(rng, 3, 8), T_px / 5))
        L = max(L, 3)
        k = np.zeros((L, L), np.float32)
        ang = U(rng, 0, 180)
        cv2.line(k, (0, L // 2), (L - 1, L // 2), 1.0, 1)
        M = cv2.getRotationMatrix2D(((L - 1) / 2, L / 2 - 0.5), ang, 1.0)
        k = cv2.warpAffine(k, M, (L, L))
        k /= k.sum() + 1e-6
        img = cv2.filter2D(img, -1, k)
        blur = {'kind': 'motion', 'length': L, 'angle': round(ang, 1)}
        kinds.add('blur')
        kinds.add('motion_blur')
    # ---- sensor noise
    nz = P['noise']
    img = img + rng.normal(0, nz, (Hc, Wc, 1)).astype(np.float32) + rng.normal(0, nz * 0.4, (Hc, Wc, 3)).astype(np.float32)
    if nz > 4:
        kinds.add('noise')
    img = np.clip(img, 0, 255).astype(np.uint8)
    # ---- orientation of the stored photo
    rot = P['rotation']

    def rot_pts(Q):
        Q = np.asarray(Q, float).reshape(-1, 2)
        x, y = Q[:, 0], Q[:, 1]
        if rot == 90:
            return np.stack([Hc - y, x], 1)
        if rot == 180:
            return np.stack([Wc - x, Hc - y], 1)
        if rot == 270:
            return np.stack([y, Wc - x], 1)
        return Q

    if rot == 90:
        img = np.ascontiguousarray(np.rot90(img, -1))
    elif rot == 180:
        img = np.ascontiguousarray(np.rot90(img, 2))
    elif rot == 270:
        img = np.ascontiguousarray(np.rot90(img, 1))
    if rot:
        kinds.add('rot%d' % rot)
    Hout, Wout = img.shape[:2]
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, 'JPEG', quality=int(P['jpeg_q']))
    jpg = buf.getvalue()
    if P['jpeg_q'] < 68:
        kinds.add('jpeg_low')
    # ---------------- meta
    item = bank[P['target']]
    tp = target_problem(pg)

    def bbox_of(Q):
        Q = np.asarray(Q).reshape(-1, 2)
        return [round(float(Q[:, 0].min()), 1), round(float(Q[:, 1].min()), 1),
                round(float(Q[:, 0].max()), 1), round(float(Q[:, 1].max()), 1)]

    allq = np.concatenate([rot_pts(h.reshape(-1, 2)) for h in tgt['hulls']])
    qboxes = [pg.elements[k]['qbox'] for k in tp['elements'] if pg.elements[k]['role'] == 'stem' and pg.elements[k].get('qbox')]
    qpts = np.concatenate([rot_pts(map_page(cam, box_samples(b))) for b in qboxes]) if qboxes else allq
    tb_page = box_union(problem_boxes(pg, tp))
    corners = rot_pts(map_page(cam, np.array([[tb_page[0], tb_page[1]], [tb_page[2], tb_page[1]],
                                                 [tb_page[2], tb_page[3]], [tb_page[0], tb_page[3]]])))
    # visible kinds of case from tagged elements
    vis_el = {}
    for k, e in enumerate(pg.elements):
        if not e['tags']:
            continue
        b = e['box']
        if pg.screen is not None and e.get('printed'):
            v = pg.visible
            b = [max(b[0], v[0]), max(b[1], v[1]), min(b[2], v[2]), min(b[3], v[3])]
            if b[2] <= b[0] or b[3] <= b[1]:
                continue
        hl = quad_of(cam, b)
        fr = frac_inside(hl, Wc, Hc)
        if occ and occ.get('box') and e['type'] in ('hand', 'mark'):
            pass
        if fr >= 0.3:
            vis_el[k] = fr
            for t in e['tags']:
                if t.startswith('numstyle_') and e['owner'] is not None:
                    kinds.add(t)
                elif not t.startswith('numstyle_'):
                    kinds.add(t)
    kinds.add('doc_' + P['doc'])
    if P['doc'].startswith('screen'):
        kinds.add('screen')
    kinds.add('cols_%d' % P['ncols'])
    kinds.update(P['face'][3])
    T_eff = F * s
    psz = 'small' if T_eff < 24 else ('large' if T_eff >= 40 else 'normal')
    kinds.add('print_' + psz)
    if P['spacing'] != 'normal':
        kinds.add('spacing_' + P['spacing'])
    if P['slant']:
        kinds.add('slant')
    if P['sections'] and any(pg.elements[k]['role'] == 'section' for k in vis_el):
        kinds.add('section_heading')
        if P['label_style'] in ('dot', 'fwdot', 'paren', 'paren_fw', 'rparen'):
            kinds.add('section_with_numbered_problems')
    if P['label_style'] == 'cn_dun':
        kinds.add('section_numbered_problems_cn')
    # relations of neighbours
    tcol = tp['col']
    tcy = (tb_page[1] + tb_page[3]) / 2
    neigh = []
    above = below = False
    cut_left = cut_right = False
    for x in ev['dists']:
        p = x['p']
        if p['target']:
            continue
        bs = problem_boxes(pg, p)
        pb = box_union(bs)
        if p['col'] == tcol:
            rel = 'above' if (pb[1] + pb[3]) / 2 < tcy else 'below'
        else:
            rel = 'left_column' if p['col'] < tcol else 'right_column'
        if x['vis'] == 'whole' and rel == 'above':
            above = True
        if x['vis'] == 'whole' and rel == 'below':
            below = True
        if x['vis'] == 'cut' and rel == 'left_column':
            cut_left = True
        if x['vis'] == 'cut' and rel == 'right_column':
            cut_right = True
        if x['vis'] != 'none':
            sim = difflib.SequenceMatcher(None, bank[p['bank_idx']]['question'], item['question']).ratio()
            if sim >= 0.75:
                kinds.add('near_duplicate_neighbour')
            neigh.append({'bank_id': p['bank_id'], 'label': p['label'], 'relation': rel, 'visible': x['vis'],
                          'distance_px': round(x['d'], 1), 'block_distance_px': round(x['d_block'], 1),
                          'similarity_to_target': round(sim, 2)})
    if above and below:
        kinds.add('neighbours_complete_above_below')
    elif above or below:
        kinds.add('neighbour_complete_' + ('above' if above else 'below'))
    if cut_left:
        kinds.add('column_cut_left')
    if cut_right:
        kinds.add('column_cut_right')
    if any(n['visible'] == 'cut' for n in neigh):
        kinds.add('neighbour_cut_by_edge')
    if P['misaligned'] and (cut_left or cut_right or any(n['relation'].endswith('column') for n in neigh)):
        kinds.add('columns_misaligned')
    tf = tp['features']
    kinds.add('target_wrap_%d' % min(tf.get('stem_lines', 1), 5))
    if tf.get('stem_lines', 1) >= 2:
        kinds.add('target_wraps')
    for key, kk in [('options', 'target_mc'), ('subquestions', 'target_subquestions'), ('figure', 'target_figure'),
                    ('handwriting', 'target_handwriting'), ('score_note', 'target_score_note')]:
        if tf.get(key):
            kinds.add(kk)
    if tf.get('mark'):
        kinds.add('target_mark_' + tf['mark'])
    if '___' in item['question']:
        kinds.add('target_blank')
    if any(c in SUP or c in SUB for c in item['question']):
        kinds.add('target_supsub')
    if has_cjk(item['question']):
        kinds.add('target_zh')
    else:
        kinds.add('target_en')
    langs = set()
    for n in neigh:
        q = bank[[p for p in pg.problems if p['bank_id'] == n['bank_id']][0]['bank_idx']]['question']
        langs.add('zh' if has_cjk(q) else 'en')
    langs.add('zh' if has_cjk(item['question']) else 'en')
    if len(langs) == 2:
        kinds.add('mixed_zh_en_page')
    vq = quad_of(cam, pg.screen['rect'] if pg.screen else [0, 0, pg.W, pg.H])
    coverage = frac_inside(vq, Wc, Hc) * cv2.contourArea(vq) / float(Wc * Hc)
    dist_list = sorted([{'bank_id': x['p']['bank_id'], 'label': x['p']['label'], 'target': x['p']['target'],
                         'distance_px': round(x['d'], 1), 'block_distance_px': round(x['d_block'], 1),
                         'visible': x['vis']} for x in ev['dists'] if x['d'] < 1.5 * max(Wc, Hc)],
                       key=lambda z: z['distance_px'])
    meta = {
        'qid': 'y%03d' % i, 'file': 'y%03d.jpg' % i, 'bank_id': item['id'], 'subject': item.get('subject'),
        'kinds': sorted(kinds),
        'width': Wout, 'height': Hout, 'rotation': rot,
        'rotation_note': 'clockwise degrees the upright page is turned in the stored image',
        'skew_deg': round(math.degrees(cam['theta']), 2),
        'tilt_deg': [round(math.degrees(cam['alpha']), 1), round(math.degrees(cam['beta']), 1)],
        'target_box': bbox_of(allq),
        'target_quad': [[round(float(a), 1), round(float(b), 1)] for a, b in corners],
        'question_box': bbox_of(qpts),
        'target_label': tp['label'], 'number_style': P['label_style'],
        'score_note': tf.get('score_note'),
        'stem_lines': tf.get('stem_lines'),
        'options': tf.get('options'), 'options_layout': tf.get('options_layout'),
        'subquestions': tf.get('subquestions'), 'figure': tf.get('figure'),
        'handwriting': tf.get('handwriting'), 'mark': tf.get('mark'),
        'page_coverage': round(min(1.0, coverage), 3),
        'doc_type': P['doc'], 'columns': P['ncols'], 'columns_misaligned': bool(P['misaligned']),
        'font': P['face'][0], 'print_size': psz, 'text_px': round(T_eff, 1), 'line_spacing': round(P['lh'], 2),
        'blank_style': P['blank_mode'] if '___' in item['question'] else None,
        'frame_center': [Wout / 2, Hout / 2],
        'distance_target_px': round(ev['d_target'], 1), 'distance_nearest_other_px': round(ev['d_other'], 1),
        'distance_nearest_other_block_px': round(ev['d_other_block'], 1),
        'margin_px': round(ev['margin'], 1), 'margin_lines_px': round(ev['margin_lines'], 1),
        'margin_required_px': round(cam['thr'], 1),
        'margin_frac_of_height': round(ev['margin'] / Hout, 3),
        'distances': dist_list[:12],
        'neighbours_visible': neigh,
        'occluder': occ, 'curl': cam['curl'].to_json() if cam['curl'] is not None else None,
        'blur': blur, 'jpeg_quality': int(P['jpeg_q']), 'noise_sigma': round(P['noise'], 2),
        'seed': [int(seed), int(i)],
    }
    if info.get('screen'):
        meta['screen'] = info['screen']
    return jpg, meta


# ----------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------
_BANK = None


def _worker(a):
    seed, i = a
    return make_photo((seed, i, _BANK['bank'], _BANK['flags'], _BANK['pools']))


def _init(bankinfo):
    global _BANK
    _BANK = bankinfo
    cv2.setNumThreads(1)


def load_bank(path):
    bank = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line:
                bank.append(json.loads(line))
    flags = {'blank': [k for k, b in enumerate(bank) if '___' in b['question']],
             'supsub': [k for k, b in enumerate(bank) if any(c in SUP or c in SUB for c in b['question'])]}
    pools = {}
    for k, b in enumerate(bank):
        pools.setdefault(b.get('subject', ''), []).append(k)
    return {'bank': bank, 'flags': flags, 'pools': pools}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True)
    ap.add_argument('out_dir')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=141)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--only', type=str, default=None, help='comma-separated photo numbers (for debugging)')
    a = ap.parse_args()
    t0 = time.time()
    info = load_bank(a.bank)
    os.makedirs(a.out_dir, exist_ok=True)
    idxs = list(range(1, a.count + 1))
    if a.only:
        idxs = [int(x) for x in a.only.split(',')]
    tasks = [(a.seed, i) for i in idxs]
    if a.jobs > 1:
        with Pool(a.jobs, initializer=_init, initargs=(info,)) as pool:
            results = list(pool.imap(_worker, tasks, chunksize=1))
    else:
        _init(info)
        results = [_worker(t) for t in tasks]
    metas = []
    for (jpg, meta) in results:
        with open(os.path.join(a.out_dir, meta['file']), 'wb') as f:
            f.write(jpg)
        metas.append(meta)
    byid = {b['id']: b for b in info['bank']}
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for m in metas:
            w.writerow([m['qid'], byid[m['bank_id']]['question']])
    with open(os.path.join(a.out_dir, 'queries.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for m in metas:
            w.writerow([m['qid'], byid[m['bank_id']]['question'], m['bank_id'], 'exact'])
    with open(os.path.join(a.out_dir, 'meta.jsonl'), 'w', encoding='utf-8') as f:
        for m in metas:
            f.write(json.dumps(m, ensure_ascii=False, sort_keys=True) + '\n')
    counts = {}
    for m in metas:
        for k in m['kinds']:
            counts[k] = counts.get(k, 0) + 1
    print('wrote %d photos to %s in %.1f s' % (len(metas), a.out_dir, time.time() - t0))
    for k in sorted(counts):
        print('  %-40s %d' % (k, counts[k]))


if __name__ == '__main__':
    main()
