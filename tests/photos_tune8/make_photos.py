#!/usr/bin/env python
"""Generate an independent test set of phone-like photos of printed homework
problems.  Written from scratch; reads only the question bank.

    python tests/photos_tune8/make_photos.py --bank appliance/data/demo_bank.jsonl OUT_DIR [qid ...]

Output (in OUT_DIR): r001.jpg..r120.jpg, truth.csv, queries.csv, meta.jsonl; with qids,
only those photos (the CSVs are left alone).
"""
import argparse
import csv
import json
import math
import os
import random
import re
import sys
import time
from functools import lru_cache

import cv2
import numpy as np
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(2)

BANK = 'appliance/data/demo_bank.jsonl'
OUT = 'photos_tune8'
N_PHOTOS = 120
SEED = 20240909

# ----------------------------------------------------------------- fonts ---
FD = '/usr/share/fonts/'
NS = (FD + 'opentype/noto/NotoSansCJK-Regular.ttc', 2)
NSB = (FD + 'opentype/noto/NotoSansCJK-Bold.ttc', 2)
NSE = (FD + 'opentype/noto/NotoSerifCJK-Regular.ttc', 2)
NSEB = (FD + 'opentype/noto/NotoSerifCJK-Bold.ttc', 2)
DJ = FD + 'truetype/dejavu/'
LB = FD + 'truetype/liberation/'
LATIN = {
    'DejaVuSerif': (DJ + 'DejaVuSerif.ttf', DJ + 'DejaVuSerif-Bold.ttf', DJ + 'DejaVuSerif-Italic.ttf'),
    'DejaVuSans': (DJ + 'DejaVuSans.ttf', DJ + 'DejaVuSans-Bold.ttf', DJ + 'DejaVuSans-Oblique.ttf'),
    'DejaVuSansCondensed': (DJ + 'DejaVuSansCondensed.ttf', DJ + 'DejaVuSansCondensed-Bold.ttf',
                            DJ + 'DejaVuSansCondensed-Oblique.ttf'),
    'DejaVuSerifCondensed': (DJ + 'DejaVuSerifCondensed.ttf', DJ + 'DejaVuSerifCondensed-Bold.ttf',
                             DJ + 'DejaVuSerifCondensed-Italic.ttf'),
    'LiberationSerif': (LB + 'LiberationSerif-Regular.ttf', LB + 'LiberationSerif-Bold.ttf',
                        LB + 'LiberationSerif-Italic.ttf'),
    'LiberationSans': (LB + 'LiberationSans-Regular.ttf', LB + 'LiberationSans-Bold.ttf',
                       LB + 'LiberationSans-Italic.ttf'),
    'LiberationSansNarrow': (LB + 'LiberationSansNarrow-Regular.ttf', LB + 'LiberationSansNarrow-Bold.ttf',
                             LB + 'LiberationSansNarrow-Italic.ttf'),
    'LiberationMono': (LB + 'LiberationMono-Regular.ttf', LB + 'LiberationMono-Bold.ttf',
                       LB + 'LiberationMono-Italic.ttf'),
}
HAND_LATIN = [(DJ + 'DejaVuSans-Oblique.ttf', 0), (LB + 'LiberationSans-Italic.ttf', 0),
              (DJ + 'DejaVuSans-ExtraLight.ttf', 0), (LB + 'LiberationSerif-Italic.ttf', 0)]
FALLBACK = (DJ + 'DejaVuSans.ttf', 0)
FONTS_USED = set()


def ref(p):
    return p if isinstance(p, tuple) else (p, 0)


@lru_cache(maxsize=None)
def getfont(r, size):
    FONTS_USED.add(os.path.basename(r[0]) + ('#%d' % r[1] if r[1] else ''))
    return ImageFont.truetype(r[0], max(6, int(size)), index=r[1])


@lru_cache(maxsize=None)
def cmap(r):
    return frozenset(TTFont(r[0], fontNumber=r[1], lazy=True).getBestCmap().keys())


def is_cjkish(c):
    o = ord(c)
    return (0x2E80 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF
            or c in '“”‘’…—·' or 0x2460 <= o <= 0x24FF or 0x3251 <= o <= 0x32BF)


SUP = {'²': '2', '³': '3', '¹': '1', '⁰': '0', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7',
       '⁸': '8', '⁹': '9', '⁻': '-', '⁺': '+', 'ⁿ': 'n'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6', '₇': '7',
       '₈': '8', '₉': '9', 'ₙ': 'n', 'ₓ': 'x', 'ₐ': 'a', 'ₘ': 'm', 'ₖ': 'k'}
NO_START = set('，。、；：？！）》」』”’,.;:?!)]}%…·℃°')
NO_END = set('（《「『“‘([{')
CIRCLED = '①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳'
CN_NUM = '一二三四五六七八九十'


# ------------------------------------------------------------ rich text ---
def parse(text):
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == '_':
            j = i
            while j < len(text) and text[j] == '_':
                j += 1
            out.append(('_', 'blank'))
            i = j
            continue
        if c in SUP:
            out.append((SUP[c], 'sup'))
        elif c in SUB:
            out.append((SUB[c], 'sub'))
        else:
            out.append((c, 'n'))
        i += 1
    return out


def pick_font(c, fs, italic=False):
    if is_cjkish(c):
        return fs['cjk']
    if italic and ord(c) in cmap(fs['lat_i']):
        return fs['lat_i']
    if ord(c) in cmap(fs['lat']):
        return fs['lat']
    if ord(c) in cmap(fs['cjk']):
        return fs['cjk']
    return FALLBACK


def build_units(text, fs, size, rng, italic_vars=False):
    """Split text into unbreakable units of positioned glyphs."""
    items = parse(text)
    # italic single-letter variables (math pages)
    ital = [False] * len(items)
    if italic_vars:
        i = 0
        while i < len(items):
            if items[i][0].isascii() and items[i][0].isalpha() and items[i][1] != 'blank':
                j = i
                while j < len(items) and items[j][0].isascii() and items[j][0].isalpha() and items[j][1] == 'n':
                    j += 1
                if j == i:
                    j = i + 1
                if j - i == 1:
                    ital[i] = True
                i = j
            else:
                i += 1
    units, cur = [], []

    def flush():
        if cur:
            units.append({'g': list(cur), 'w': sum(g['w'] for g in cur), 'space': False})
            cur.clear()

    for k, (c, kind) in enumerate(items):
        if kind == 'blank':
            flush()
            w = size * rng.uniform(2.6, 5.0)
            units.append({'g': [{'c': '', 'kind': 'blank', 'w': w, 'dy': 0, 'size': size, 'font': None}],
                          'w': w, 'space': False})
            continue
        if c == ' ' and kind == 'n':
            flush()
            w = getfont(fs['lat'], size).getlength(' ')
            units.append({'g': [{'c': ' ', 'kind': 'space', 'w': w, 'dy': 0, 'size': size, 'font': None}],
                          'w': w, 'space': True})
            continue
        fr = pick_font(c, fs, ital[k])
        gs = size if kind == 'n' else round(size * 0.62)
        dy = 0 if kind == 'n' else (-0.40 * size if kind == 'sup' else 0.16 * size)
        w = getfont(fr, gs).getlength(c) + (0.04 * size if kind != 'n' else 0)
        g = {'c': c, 'kind': kind, 'w': w, 'dy': dy, 'size': gs, 'font': fr}
        if is_cjkish(c):
            flush()
            units.append({'g': [g], 'w': w, 'space': False})
        else:
            cur.append(g)
    flush()
    # punctuation rules
    merged = []
    for u in units:
        first = u['g'][0]['c']
        if merged and not u['space'] and first in NO_START and not merged[-1]['space']:
            merged[-1]['g'] += u['g']
            merged[-1]['w'] += u['w']
        else:
            merged.append(u)
    out = []
    carry = None
    for u in merged:
        if carry is not None:
            u = {'g': carry['g'] + u['g'], 'w': carry['w'] + u['w'], 'space': u['space'] and carry['space']}
            carry = None
        if not u['space'] and u['g'][-1]['c'] in NO_END:
            carry = u
            continue
        out.append(u)
    if carry is not None:
        out.append(carry)
    return out


def wrap(units, width, first_width=None):
    lines, cur, cw = [], [], 0.0
    lim = first_width if first_width is not None else width
    for u in units:
        if u['space'] and not cur:
            continue
        if cur and not u['space'] and cw + u['w'] > lim:
            while cur and cur[-1]['space']:
                cw -= cur.pop()['w']
            lines.append((cur, lim))
            cur, cw, lim = [], 0.0, width
        if not cur and u['w'] > lim:  # split an over-long unit glyph by glyph
            part, pw = [], 0.0
            for g in u['g']:
                if part and pw + g['w'] > lim:
                    lines.append(([{'g': part, 'w': pw, 'space': False}], lim))
                    part, pw, lim = [], 0.0, width
                part.append(g)
                pw += g['w']
            u = {'g': part, 'w': pw, 'space': False}
        cur.append(u)
        cw += u['w']
    while cur and cur[-1]['space']:
        cur.pop()
    if cur:
        lines.append((cur, lim))
    return lines


def line_width(line):
    return sum(u['w'] for u in line)


def draw_line(draw, line, x, base, ink, lim=None, justify=False, blank_ink=None):
    """Draw one laid-out line; return glyph box [x0,y0,x1,y1]."""
    n = len(line)
    extra = 0.0
    if justify and lim is not None and n > 1:
        ex = lim - line_width(line)
        if 0 < ex < 0.12 * lim:
            extra = ex / (n - 1)
    x0 = x
    top, bot = base, base
    for u in line:
        for g in u['g']:
            if g['kind'] == 'blank':
                th = max(1, round(g['size'] / 16))
                yb = base + 0.14 * g['size']
                draw.line([(x + 2, yb), (x + g['w'] - 2, yb)], fill=blank_ink or ink, width=th)
                bot = max(bot, yb + th)
            elif g['kind'] != 'space':
                f = getfont(g['font'], g['size'])
                draw.text((x, base + g['dy']), g['c'], font=f, fill=ink, anchor='ls')
                top = min(top, base + g['dy'] - 0.82 * g['size'])
                bot = max(bot, base + g['dy'] + 0.22 * g['size'])
            x += g['w']
        x += extra
    return [x0, top, x, bot]


def text_width(text, fs, size, rng):
    return sum(u['w'] for u in build_units(text, fs, size, rng))


def draw_text(draw, text, fs, size, x, base, ink, rng, italic_vars=False):
    units = build_units(text, fs, size, rng, italic_vars)
    return draw_line(draw, units, x, base, ink)


def union(boxes):
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return None
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]


def inter(a, b, pad=0):
    return not (a[2] + pad <= b[0] or b[2] + pad <= a[0] or a[3] + pad <= b[1] or b[3] + pad <= a[1])


# ------------------------------------------------------------- bank data ---
def load_bank():
    rows = []
    with open(BANK, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def is_english(q):
    return not any(is_cjkish(c) for c in q)


OPTION_POOLS = {
    'biology': ['叶绿体', '线粒体', '细胞核', '液泡', '细胞膜', '左心室', '右心室', '肝脏', '小肠', '23对', '1/4', '1/2'],
    'geography': ['新疆维吾尔自治区', '西藏自治区', '澳门特别行政区', '长江', '黄河', '太平洋', '亚洲', '青藏高原',
                  '约23.5°N', '约24小时', '约365天', '自西向东'],
    'history': ['前221年', '前206年', '1840年', '1842年', '1911年', '1949年', '1919年', '1921年', '1914年',
                '1939年', '1945年', '唐太宗', '唐玄宗', '1492年'],
    'chinese': ['李白', '孟浩然', '朱自清', '鲁迅', '诸葛亮', '范仲淹', '苏轼', '王之涣', '孔子', '举头望明月',
                '处处闻啼鸟', '黄河入海流', '更上一层楼'],
    'chemistry': ['氮气', '氧气', 'H₂O', 'H₂O₂', 'Fe₃O₄', '7', 'CO₂', 'NaCl', '18', '44', '10%', '20%', '0.5 mol'],
    'english': ['went', 'gone', 'goes', 'go', 'better', 'best', 'children', 'teeth', 'a', 'an', 'since', 'for',
                'cheap', 'good'],
    'physics': ['5 m/s²', '2 m/s²', '12 Ω', '20 Ω', '5 Ω', '3×10⁸ m/s', '340 m/s', '500 N', '100 J', '10 W',
                '1 kW·h', '2.7 g/cm³', '100 ℃', '0 ℃', '2×10⁴ Pa'],
    'math': ['5', '4', '12', '3', '-5', '2', '10', '1/2', '3/8', '5/8', '160', '150', '720°', '540°', '(0, 1)'],
}


def make_options(q, rng):
    pool = list(OPTION_POOLS.get(q['subject'], OPTION_POOLS['math']))
    ans = q.get('answer', '')
    good = [p for p in pool if p and p in ans]
    nums = re.findall(r'-?\d+(?:\.\d+)?', ans.replace('$', ''))
    opts = []
    if good:
        opts.append(good[-1])
    elif nums and q['subject'] in ('math', 'physics', 'chemistry'):
        v = nums[-1]
        opts.append(v)
        try:
            fv = float(v)
            for cand in [fv + 1, fv - 2, fv * 2, fv / 2, fv + 3, -fv]:
                s = ('%g' % cand)
                if s not in opts:
                    opts.append(s)
        except ValueError:
            pass
    rng.shuffle(pool)
    for p in pool:
        if len(opts) >= 4:
            break
        if p not in opts:
            opts.append(p)
    opts = opts[:4]
    rng.shuffle(opts)
    return opts


def short_answer(q, rng):
    s = q.get('answer', '')
    m = re.search(r'\(([A-Za-z]+(?: / [A-Za-z]+)+)\)', q['question'])
    if m:
        pos = [(max(mm.start() for mm in re.finditer(r'\b%s\b' % o, s)), o) for o in m.group(1).split(' / ')
               if re.search(r'\b%s\b' % o, s)]
        if pos:
            return max(pos)[1]
    qopts = re.findall(r'"([^"]{1,12})"', q['question'])
    if len(qopts) >= 2:
        got = [w for w in re.findall(r'"([^"]{1,12})"', s) if w in qopts]
        if got:
            return got[-1]
    if q['subject'] == 'english':
        qw = set(w.lower() for w in re.findall(r'[A-Za-z]+', q['question'])) | {'answer', 'the'}
        qs = [w for w in re.findall(r'["“]([^"”]{1,30})["”]', s) if w.lower() not in q['question'].lower()]
        if qs:
            return qs[0]
        new = [w for w in re.findall(r'[A-Za-z]+', s) if w.lower() not in qw and len(w) > 2]
        if new:
            return new[-1]
    s = re.sub(r'\\sqrt\{([^{}]*)\}', r'√\1', s)
    s = re.sub(r'\\frac\{([^}]*)\}\{([^}]*)\}', r'\1/\2', s)
    s = s.replace('$', '')
    for a, b in [('\\times', '×'), ('\\cdot', '·'), ('\\sqrt', '√'), ('\\circ', '°'), ('\\pi', 'π'),
                 ('\\cap', '∩'), ('\\cup', '∪'), ('\\div', '÷'), ('\\pm', '±'), ('\\Omega', 'Ω'),
                 ('\\rho', 'ρ'), ('\\Delta', 'Δ'), ('\\left', ''), ('\\right', ''), ('\\text', ''),
                 ('\\mathrm', ''), ('\\quad', ' '), ('\\,', ' '), ('\\{', '{'), ('\\}', '}')]:
        s = s.replace(a, b)
    s = re.sub(r'\\[a-zA-Z]+', '', s)
    s = re.sub(r'\^\{?(\d)\}?', lambda m: '⁰¹²³⁴⁵⁶⁷⁸⁹'[int(m.group(1))], s)
    s = re.sub(r'_\{?(\d)\}?', lambda m: '₀₁₂₃₄₅₆₇₈₉'[int(m.group(1))], s)
    s = re.sub(r'[\^_]\{?([^}\s]*)\}?', r'\1', s)
    s = s.replace('{', '').replace('}', '') if '=' in s else s
    quoted = re.findall(r'["“]([^"”]{1,14})["”]', s)
    if quoted and is_english(q['question']):
        return quoted[-1]
    parts = [p.strip() for p in re.split(r'[，。；;：:]|\. ', s) if p.strip()]
    withnum = [p for p in parts if re.search(r'\d', p)]
    cand = withnum[-1] if withnum else (parts[0] if parts else '?')
    cand = re.sub(r'^(所以|因此|得|即|答|故)\s*', '', cand)
    if len(cand) > 16 and '=' in cand:
        parts2 = cand.split('=')
        cand = '='.join(parts2[-2:]) if len('='.join(parts2[-2:])) <= 18 else parts2[-1]
        cand = cand.strip(' ).,，+-×')
    if len(cand) > 16 and is_english(cand):
        cand = ' '.join(cand.split()[:3])
    if len(cand) > 16:
        cand = cand[-16:]
    cand = cand.strip(' 。.，')
    return cand


# ------------------------------------------------------------ page styles -
SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'biology': '生物', 'geography': '地理',
           'history': '历史', 'chinese': '语文', 'english': '英语'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry', 'biology': 'Biology',
           'geography': 'Geography', 'history': 'History', 'chinese': 'Chinese', 'english': 'English'}


def grade_zh(g):
    try:
        g = int(g)
    except Exception:
        return '七年级'
    if g <= 6:
        return CN_NUM[g - 1] + '年级'
    if g <= 9:
        return CN_NUM[g - 1] + '年级'
    return '高' + CN_NUM[g - 10]


def number_label(n, style):
    return {
        'dot': '%d.' % n, 'fdot': '%d．' % n, 'dun': '%d、' % n, 'paren': '(%d)' % n, 'fparen': '（%d）' % n,
        'di': '第%d题' % n, 'circ': CIRCLED[(n - 1) % 20], 'Q': 'Q%d' % n, 'Qdot': 'Q%d.' % n,
        'exercise': 'Exercise %d' % n, 'question': 'Question %d' % n, 'rparen': '%d)' % n,
        'bracket': '【%d】' % n,
    }[style]


def score_note(k, lang, rng):
    if lang == 'zh':
        return rng.choice(['（%d分）', '(%d分)', '（本题%d分）', '【%d分】', '（%d 分）']) % k
    return rng.choice(['(%d marks)', '[%d]', '(%d pts)', '(%d points)', '[%d marks]']) % k


def section_header_text(lang, rng, q, sec_i, pagekind):
    kp = (q.get('knowledge_points') or ['基础知识'])[0]
    if lang == 'zh':
        typ = rng.choice(['选择题', '填空题', '计算题', '解答题', '简答题', '基础题'])
        return rng.choice([
            '%s、%s（每小题%d分，共%d分）' % (CN_NUM[sec_i], typ, 3, 3 * rng.randint(4, 10)),
            '%s、%s（本大题共%d小题，共%d分）' % (CN_NUM[sec_i], typ, rng.randint(3, 6), rng.randint(12, 40)),
            '%s、%s（每题5分）' % (CN_NUM[sec_i], typ),
            '%s、%s' % (CN_NUM[sec_i], typ),
            '第%s题（%d分）' % (CN_NUM[sec_i], rng.choice([4, 5, 6, 8])),
            '【基础巩固】', '【能力提升】', '◆ 知识点%s：%s' % (CN_NUM[sec_i], kp),
            '练习%s' % CN_NUM[sec_i + 1], '课堂练习', '复习巩固', '综合运用', '拓广探索',
            '知识点%s  %s' % (CN_NUM[sec_i], kp),
        ])
    return rng.choice([
        'Part %s: Short Answer Questions' % 'ABCD'[sec_i % 4],
        'Section %s — Calculations (3 marks each)' % 'ABCD'[sec_i % 4],
        'Homework %d' % rng.randint(2, 12), 'Exercise %d' % rng.randint(2, 9), 'Warm-up',
        'Review Questions', 'Practice %d.%d' % (rng.randint(1, 6), rng.randint(1, 5)),
        'Section %s  Answer ALL questions.' % 'ABC'[sec_i % 3], 'Challenge Problems',
        'Part %s (%d marks)' % ('ABC'[sec_i % 3], rng.randint(10, 30)),
    ])


PAGEKINDS_ZH = ['zh_exam', 'zh_homework', 'zh_textbook', 'zh_workbook']
PAGEKINDS_EN = ['en_worksheet', 'en_textbook', 'en_exam']


def make_style(lang, pagekind, rng, subject):
    st = {'lang': lang, 'kind': pagekind}
    serif = rng.random() < {'zh_exam': 0.75, 'zh_homework': 0.35, 'zh_textbook': 0.8, 'zh_workbook': 0.3,
                            'en_worksheet': 0.25, 'en_textbook': 0.75, 'en_exam': 0.7}[pagekind]
    cjk = NSE if serif else NS
    cjkb = NSEB if serif else NSB
    if lang == 'zh':
        latname = rng.choice(['LiberationSerif', 'LiberationSerif', 'DejaVuSerif', 'CJK', 'DejaVuSans',
                              'LiberationSans']) if serif else rng.choice(['CJK', 'DejaVuSans', 'LiberationSans',
                                                                           'DejaVuSansCondensed'])
    else:
        latname = rng.choice(['LiberationSerif', 'DejaVuSerif', 'DejaVuSerifCondensed']) if serif else \
            rng.choice(['DejaVuSans', 'LiberationSans', 'LiberationSansNarrow', 'DejaVuSansCondensed',
                        'LiberationMono'] if pagekind == 'en_worksheet' else
                       ['DejaVuSans', 'LiberationSans', 'DejaVuSansCondensed'])
    if latname == 'CJK':
        lat, latb, lati = cjk, cjkb, ref(LATIN['LiberationSerif'][2])
    else:
        lat, latb, lati = ref(LATIN[latname][0]), ref(LATIN[latname][1]), ref(LATIN[latname][2])
    st['fs'] = {'cjk': cjk, 'lat': lat, 'lat_i': lati}
    st['fsb'] = {'cjk': cjkb, 'lat': latb, 'lat_i': lati}
    hl = rng.choice(list(LATIN.keys())[:7])
    st['fsh'] = {'cjk': rng.choice([NSB, NSEB, cjkb]), 'lat': ref(LATIN[hl][1]), 'lat_i': ref(LATIN[hl][2])}
    st['italic_vars'] = subject in ('math', 'physics') and rng.random() < 0.55 and latname != 'CJK'
    st['spacing'] = rng.uniform(1.35, 1.95)
    st['para_gap'] = rng.uniform(0.25, 1.3)
    st['justify'] = lang == 'zh' and rng.random() < 0.6
    st['hang'] = rng.random() < 0.6
    g = rng.randint(5, 45)
    st['ink'] = (g, g, g + rng.randint(0, 12)) if rng.random() < 0.7 else (g + 10, g + 5, g)
    if pagekind == 'zh_exam':
        st['num'] = rng.choice(['fdot', 'dot', 'dun', 'dot', 'fdot'])
    elif pagekind == 'zh_homework':
        st['num'] = rng.choice(['fparen', 'di', 'dot', 'paren', 'dun', 'circ', 'bracket'])
    elif pagekind == 'zh_textbook':
        st['num'] = rng.choice(['dot', 'fdot', 'dot', 'paren'])
    elif pagekind == 'zh_workbook':
        st['num'] = rng.choice(['circ', 'di', 'fparen', 'dun', 'fdot'])
    elif pagekind == 'en_worksheet':
        st['num'] = rng.choice(['Q', 'Qdot', 'dot', 'rparen', 'paren'])
    elif pagekind == 'en_textbook':
        st['num'] = rng.choice(['exercise', 'dot', 'dot', 'exercise'])
    else:
        st['num'] = rng.choice(['question', 'dot', 'Qdot', 'paren'])
    st['num_bold'] = rng.random() < 0.6
    st['opt_label'] = rng.choice(['A．%s', 'A. %s', '(A) %s', 'A) %s', 'A、%s']) if lang == 'zh' else \
        rng.choice(['A. %s', '(A) %s', 'A) %s', 'a) %s'])
    st['accent'] = rng.choice([(30, 120, 160), (200, 90, 40), (60, 140, 80), (40, 80, 170), (150, 60, 130)])
    st['paper'] = rng.choice([(250, 249, 244), (246, 244, 236), (252, 252, 250), (240, 238, 230), (247, 246, 241),
                              (236, 236, 232)])
    return st


# --------------------------------------------------------- handwriting ---
def hand_alpha(text, size, rng, lat_ref, cjk_ref):
    """Jittered 'handwriting' rendering of text; returns (alpha float32, baseline_y)."""
    size = int(size)
    W = int(size * (len(text) * 1.25 + 3))
    Hh = int(size * 2.8)
    img = Image.new('L', (W, Hh), 0)
    d = ImageDraw.Draw(img)
    x = size * 0.6
    base = size * 1.8
    slope = rng.uniform(-0.05, 0.05)
    for c in text:
        if c == ' ':
            x += size * rng.uniform(0.25, 0.45)
            continue
        fr = cjk_ref if is_cjkish(c) or ord(c) not in cmap(lat_ref) else lat_ref
        if ord(c) not in cmap(fr):
            fr = FALLBACK
        sc = rng.uniform(0.85, 1.15)
        f = getfont(fr, size * sc)
        yb = base + slope * x + rng.uniform(-0.07, 0.07) * size
        d.text((x, yb), c, font=f, fill=255, anchor='ls')
        x += f.getlength(c) * rng.uniform(0.88, 1.05) + size * rng.uniform(-0.03, 0.06)
    a = np.asarray(img, np.float32) / 255.0
    a = a[:, :int(min(W, x + size))]
    h, w = a.shape
    # slant
    k = rng.uniform(0.05, 0.28)
    M = np.float32([[1, -k, k * base], [0, 1, 0]])
    a = cv2.warpAffine(a, M, (w, h))
    # elastic wobble
    amp = size * rng.uniform(0.035, 0.07)
    sig = size * 0.3
    dx = cv2.GaussianBlur(np.random.default_rng(rng.randint(0, 1 << 30)).standard_normal((h, w)).astype(np.float32),
                          (0, 0), sig)
    dy = cv2.GaussianBlur(np.random.default_rng(rng.randint(0, 1 << 30)).standard_normal((h, w)).astype(np.float32),
                          (0, 0), sig)
    dx *= amp / (dx.std() + 1e-6)
    dy *= amp / (dy.std() + 1e-6)
    gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    a = cv2.remap(a, gx + dx, gy + dy, cv2.INTER_LINEAR)
    # pen thickness
    if rng.random() < 0.4:
        a = cv2.dilate(a, np.ones((2, 2), np.uint8))
    elif rng.random() < 0.3:
        a = cv2.erode(a, np.ones((2, 1), np.uint8))
        a = np.clip(a * 1.3, 0, 1)
    return np.clip(a, 0, 1), base


def paste_alpha(layer, a, x, y):
    """max-composite alpha (float 0..1) into uint8 layer at top-left (x,y); returns box or None."""
    H, W = layer.shape
    h, w = a.shape
    x, y = int(round(x)), int(round(y))
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return None
    sub = (a[y0 - y:y1 - y, x0 - x:x1 - x] * 255).astype(np.uint8)
    layer[y0:y1, x0:x1] = np.maximum(layer[y0:y1, x0:x1], sub)
    ys, xs = np.nonzero(sub > 40)
    if len(xs) == 0:
        return None
    return [x0 + xs.min(), y0 + ys.min(), x0 + xs.max(), y0 + ys.max()]


def hand_box_estimate(a, x, y):
    ys, xs = np.nonzero(a > 0.15)
    if len(xs) == 0:
        return None
    return [x + xs.min(), y + ys.min(), x + xs.max(), y + ys.max()]


def stroke(layer, pts, width, rng, jitter=0.0):
    pts = np.array(pts, np.float64)
    if jitter:
        pts = pts + np.array([[rng.uniform(-jitter, jitter), rng.uniform(-jitter, jitter)] for _ in pts])
    # smooth via Chaikin
    for _ in range(2):
        q = [pts[0]]
        for i in range(len(pts) - 1):
            q.append(0.75 * pts[i] + 0.25 * pts[i + 1])
            q.append(0.25 * pts[i] + 0.75 * pts[i + 1])
        q.append(pts[-1])
        pts = np.array(q)
    cv2.polylines(layer, [np.round(pts * 4).astype(np.int32)], False, 255, max(1, int(round(width))),
                  cv2.LINE_AA, shift=2)
    return [pts[:, 0].min() - width, pts[:, 1].min() - width, pts[:, 0].max() + width, pts[:, 1].max() + width]


def draw_tick(layer, x, y, L, width, rng):
    return stroke(layer, [(x, y - 0.1 * L), (x + 0.32 * L, y + 0.3 * L), (x + L, y - 0.7 * L)], width, rng,
                  jitter=0.06 * L)


def draw_cross(layer, x, y, L, width, rng):
    b1 = stroke(layer, [(x, y - 0.5 * L), (x + L * 0.5, y), (x + L, y + 0.5 * L)], width, rng, 0.05 * L)
    b2 = stroke(layer, [(x + L, y - 0.5 * L), (x + 0.5 * L, y), (x, y + 0.5 * L)], width, rng, 0.05 * L)
    return union([b1, b2])


def draw_ellipse_loop(layer, box, width, rng):
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    ax, ay = (box[2] - box[0]) / 2, (box[3] - box[1]) / 2
    t0 = rng.uniform(0, 2 * math.pi)
    ts = np.linspace(t0, t0 + 2 * math.pi * rng.uniform(1.0, 1.12), 40)
    pts = [(cx + ax * math.cos(t) * (1 + 0.05 * math.sin(3 * t)), cy + ay * math.sin(t)) for t in ts]
    return stroke(layer, pts, width, rng)


# ---------------------------------------------------------------- figures -
def draw_figure(draw, x, y, w, h, kind, st, size, rng, num):
    ink = st['ink']
    fs = st['fs']
    fsz = int(size * 0.8)
    lw = max(1, int(size / 16))
    cap_h = int(size * 1.3)
    gh = h - cap_h
    if kind == 'bar':
        ox, oy = x + 0.16 * w, y + gh - 0.14 * gh
        draw.line([(ox, y + 0.05 * gh), (ox, oy), (x + w * 0.97, oy)], fill=ink, width=lw)
        n = rng.randint(3, 5)
        labs = rng.choice([['甲', '乙', '丙', '丁', '戊'], ['一月', '二月', '三月', '四月', '五月'],
                           ['A', 'B', 'C', 'D', 'E'], ['Mon', 'Tue', 'Wed', 'Thu', 'Fri']])
        bw = (w * 0.78) / n
        vmax = rng.choice([10, 20, 50, 100])
        for t in range(5):
            ty = oy - (oy - y - 0.1 * gh) * t / 4
            draw.line([(ox - 5, ty), (ox, ty)], fill=ink, width=lw)
            draw_text(draw, str(vmax * t // 4), fs, fsz * 0.8, ox - 0.13 * w, ty + fsz * 0.3, ink, rng)
        fill = rng.choice([(200, 200, 200), (170, 170, 170), (255, 255, 255)])
        for i in range(n):
            v = rng.uniform(0.2, 1.0)
            bx = ox + bw * (i + 0.25)
            draw.rectangle([bx, oy - (oy - y - 0.1 * gh) * v, bx + bw * 0.5, oy], fill=fill, outline=ink, width=lw)
            draw_text(draw, labs[i], fs, fsz * 0.8, bx, oy + fsz * 0.95, ink, rng)
    elif kind == 'triangle':
        A = (x + 0.12 * w, y + 0.82 * gh)
        B = (x + 0.85 * w, y + 0.82 * gh)
        C = (x + 0.12 * w, y + 0.12 * gh) if rng.random() < 0.5 else (x + 0.55 * w, y + 0.12 * gh)
        draw.line([A, B, C, A], fill=ink, width=lw + 1)
        if C[0] == A[0]:
            s = 0.08 * w
            draw.line([(A[0], A[1] - s), (A[0] + s, A[1] - s), (A[0] + s, A[1])], fill=ink, width=lw)
        fi = {'cjk': fs['cjk'], 'lat': fs['lat_i'], 'lat_i': fs['lat_i']}
        draw_text(draw, 'A', fi, fsz, A[0] - fsz * 0.9, A[1] + fsz * 0.6, ink, rng)
        draw_text(draw, 'B', fi, fsz, B[0] + fsz * 0.2, B[1] + fsz * 0.6, ink, rng)
        draw_text(draw, 'C', fi, fsz, C[0] - fsz * 0.3, C[1] - fsz * 0.3, ink, rng)
        a, b = rng.choice([(3, 4), (6, 8), (5, 12)])
        draw_text(draw, str(b), fs, fsz, (A[0] + B[0]) / 2, A[1] + fsz * 1.1, ink, rng)
        draw_text(draw, str(a), fs, fsz, min(A[0], C[0]) - fsz * 0.2 + (C[0] - A[0]) * 0.3 - fsz * 0.6,
                  (A[1] + C[1]) / 2, ink, rng)
    elif kind == 'axes':
        ox, oy = x + 0.35 * w, y + 0.62 * gh
        draw.line([(x + 0.04 * w, oy), (x + 0.96 * w, oy)], fill=ink, width=lw)
        draw.line([(ox, y + 0.96 * gh), (ox, y + 0.04 * gh)], fill=ink, width=lw)
        a = 0.025 * w
        draw.polygon([(x + 0.96 * w, oy), (x + 0.96 * w - 2 * a, oy - a), (x + 0.96 * w - 2 * a, oy + a)], fill=ink)
        draw.polygon([(ox, y + 0.04 * gh), (ox - a, y + 0.04 * gh + 2 * a), (ox + a, y + 0.04 * gh + 2 * a)], fill=ink)
        fi = {'cjk': fs['cjk'], 'lat': fs['lat_i'], 'lat_i': fs['lat_i']}
        draw_text(draw, 'x', fi, fsz, x + 0.93 * w, oy + fsz * 1.1, ink, rng)
        draw_text(draw, 'y', fi, fsz, ox + fsz * 0.4, y + 0.08 * gh + fsz * 0.4, ink, rng)
        draw_text(draw, 'O', fi, fsz * 0.9, ox - fsz * 0.9, oy + fsz * 1.0, ink, rng)
        u = 0.11 * w
        for t in range(-2, 5):
            if t:
                draw.line([(ox + t * u, oy - 4), (ox + t * u, oy)], fill=ink, width=lw)
                draw_text(draw, str(t), fs, fsz * 0.75, ox + t * u - fsz * 0.2, oy + fsz * 0.9, ink, rng)
        m = rng.choice([2, 1, -1, 0.5])
        c = rng.choice([1, 0, 2])
        p1 = (ox - 2.5 * u, oy - (m * -2.5 + c) * u)
        p2 = (ox + 4.5 * u, oy - (m * 4.5 + c) * u)
        # clip crudely to figure box
        def clip(p):
            return (min(max(p[0], x), x + w), min(max(p[1], y), y + gh))
        draw.line([clip(p1), clip(p2)], fill=ink, width=lw + 1)
    elif kind == 'table':
        rows = rng.choice([[['x', '1', '2', '3', '4'], ['y', '3', '5', '7', '9']],
                           [['时间/s', '0', '1', '2', '3'], ['速度/(m/s)', '0', '10', '20', '30']],
                           [['组别', '甲', '乙', '丙'], ['人数', '12', '18', '15'], ['占比', '30%', '45%', '25%']],
                           [['Day', 'Mon', 'Tue', 'Wed', 'Thu'], ['°C', '12', '15', '9', '11']],
                           [['温度/℃', '20', '40', '60'], ['溶解度/g', '36.0', '36.6', '37.3']]])
        nr, nc = len(rows), len(rows[0])
        c0 = w * 0.3
        cw = (w - c0) / (nc - 1)
        rh = gh / (nr + 0.4)
        for i in range(nr + 1):
            draw.line([(x, y + i * rh), (x + w, y + i * rh)], fill=ink, width=lw)
        draw.line([(x, y), (x, y + nr * rh)], fill=ink, width=lw)
        for j in range(nc):
            xx = x + c0 + j * cw
            draw.line([(xx, y), (xx, y + nr * rh)], fill=ink, width=lw)
        for i, r in enumerate(rows):
            for j, t in enumerate(r):
                fsz2 = fsz * 0.85
                tw = text_width(t, fs, fsz2, rng)
                cx = x + c0 / 2 if j == 0 else x + c0 + (j - 0.5) * cw
                draw_text(draw, t, fs, fsz2, cx - tw / 2, y + i * rh + rh * 0.5 + fsz2 * 0.35, ink, rng)
        gh = nr * rh
    else:  # circle
        r = min(w, gh) * 0.4
        cx, cy = x + w / 2, y + gh / 2
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=ink, width=lw + 1)
        draw.line([(cx, cy), (cx + r * 0.8, cy - r * 0.6)], fill=ink, width=lw)
        draw.ellipse([cx - 3, cy - 3, cx + 3, cy + 3], fill=ink)
        fi = {'cjk': fs['cjk'], 'lat': fs['lat_i'], 'lat_i': fs['lat_i']}
        draw_text(draw, 'O', fi, fsz, cx - fsz * 0.9, cy + fsz * 0.5, ink, rng)
        draw_text(draw, 'r', fi, fsz, cx + r * 0.35, cy - r * 0.35, ink, rng)
    cap = rng.choice(['（第%d题图）' % num, '第%d题图' % num, '图%d' % rng.randint(1, 6)]) if st['lang'] == 'zh' else \
        rng.choice(['Figure %d' % rng.randint(1, 6), 'Fig. %d' % rng.randint(1, 6), '(Question %d)' % num])
    cw_ = text_width(cap, st['fs'], fsz * 0.8, rng)
    draw_text(draw, cap, st['fs'], fsz * 0.8, x + w / 2 - cw_ / 2, y + gh + cap_h * 0.75, ink, rng)
    return [x, y, x + w, y + gh + cap_h]


# ------------------------------------------------------------------ page --
class Page:
    def __init__(self, W, H, st, rng):
        self.W, self.H = int(W), int(H)
        self.st = st
        self.rng = rng
        self.img = Image.new('RGB', (self.W, self.H), (255, 255, 255))
        self.draw = ImageDraw.Draw(self.img)
        self.layers = {}
        self.el = []      # elements
        self.textboxes = []  # all printed text boxes (avoid placing hand ink over them)
        self.protect = []    # framed problem boxes

    def layer(self, name):
        if name not in self.layers:
            self.layers[name] = np.zeros((self.H, self.W), np.uint8)
        return self.layers[name]

    def free(self, box, pad=4):
        if box[0] < 0 or box[1] < 0 or box[2] > self.W or box[3] > self.H:
            return False
        for b in self.protect:
            if inter(box, b, pad * 2):
                return False
        for b in self.textboxes:
            if inter(box, b, pad):
                return False
        return True


def render_problem(pg, x, y, colw, q, spec, num, col):
    st, rng, d = pg.st, pg.rng, pg.draw
    f = st['f']
    lh = f * st['spacing']
    fs, fsb = st['fs'], st['fsb']
    ink = st['ink']
    label = number_label(num, spec['num'])
    lfs = fsb if st['num_bold'] else fs
    el = {'type': 'problem', 'bank_id': q['id'], 'framed': spec.get('framed', False), 'num': num, 'col': col,
          'label': label, 'marks': [], 'score_note': None}
    text_lines_boxes = []
    fig = spec.get('fig')
    fig_w = 0
    if fig and fig[1] == 'beside':
        fig_w = max(colw * rng.uniform(0.28, 0.36), f * rng.uniform(7, 9))
        if fig_w > colw * 0.45 or colw - fig_w < f * 12:
            fig = (fig[0], 'below')
            spec['fig'] = fig
            fig_w = 0
    tw_all = colw - (fig_w + f * 0.8 if fig_w else 0)
    lab_units = build_units(label, lfs, f, rng)
    lab_w = line_width(lab_units)
    own_line = spec['num'] in ('exercise', 'question') and rng.random() < 0.6
    gap = f * (0.15 if label.endswith(('、', '．', '】')) or spec['num'] in ('circ', 'fparen') else 0.4)
    sn = spec.get('score')  # (text, pos)
    sn_units = build_units(sn[0], fs, f * 0.95, rng) if sn else None
    sn_w = line_width(sn_units) if sn else 0
    base = y + f * 0.95
    boxes = []
    if own_line:
        lb = draw_line(d, lab_units, x, base, ink)
        el['label_box'] = lb
        boxes.append(lb)
        if sn and sn[1] == 'after':
            sb = draw_line(d, sn_units, lb[2] + f * 0.5, base, ink)
            el['score_note'] = sb
            boxes.append(sb)
        base += lh
        indent = f * rng.choice([0, 0, 1.0]) if not spec.get('indent') else spec['indent']
        first_x = x + indent
        first_w = tw_all - indent
    else:
        lb = draw_line(d, lab_units, x, base, ink)
        el['label_box'] = lb
        boxes.append(lb)
        first_x = x + lab_w + gap
        if sn and sn[1] == 'after':
            sb = draw_line(d, sn_units, first_x, base, ink)
            el['score_note'] = sb
            boxes.append(sb)
            first_x = sb[2] + f * 0.2
        indent = (lab_w + gap) if st['hang'] and lab_w < f * 3 else (f * 2 if st['lang'] == 'zh' and rng.random() < 0.3 else 0)
        first_w = tw_all - (first_x - x)
    units = build_units(q['question'], fs, f, rng, st['italic_vars'] and not is_english(q['question']))
    lines = wrap(units, tw_all - indent, first_w)
    for i, (ln, lim) in enumerate(lines):
        lx = first_x if i == 0 else x + indent
        tb = draw_line(d, ln, lx, base, ink, lim, st['justify'] and i < len(lines) - 1)
        text_lines_boxes.append(tb)
        base += lh
    base -= lh
    el['line_boxes'] = text_lines_boxes
    el['text_box'] = union(text_lines_boxes)
    boxes += text_lines_boxes
    if sn and sn[1] == 'end':
        last = text_lines_boxes[-1]
        if last[2] + sn_w + f < x + tw_all:
            sx = x + tw_all - sn_w
        else:
            base += lh
            sx = x + tw_all - sn_w
        sb = draw_line(d, sn_units, sx, base, ink)
        el['score_note'] = sb
        boxes.append(sb)
    el['last_end'] = (text_lines_boxes[-1][2], base)
    # options
    opts = spec.get('options')
    if opts:
        ostrs = [st['opt_label'].replace('A', 'ABCD'[i]).replace('a', 'abcd'[i], 1) % o
                 if '%s' in st['opt_label'] else o for i, o in enumerate(opts)]
        ounits = [build_units(s, fs, f, rng) for s in ostrs]
        ows = [line_width(u) for u in ounits]
        ox = x + (indent if indent else f)
        avail = x + tw_all - ox
        if max(ows) + f < avail / 4:
            per = 4
        elif max(ows) + f < avail / 2:
            per = 2
        else:
            per = 1
        slot = avail / per
        ob = []
        for i, u in enumerate(ounits):
            if i % per == 0:
                base += lh
            ob.append(draw_line(d, u, ox + (i % per) * slot, base, ink))
        el['options_box'] = union(ob)
        boxes += ob
    el['block_box'] = union(boxes)
    bottom = el['block_box'][3]
    # figure
    if fig:
        fkind, fpos = fig
        if fpos == 'beside':
            fw = fig_w
            fh = fw * rng.uniform(0.7, 0.95)
            fx = x + colw - fw
            fb = draw_figure(d, fx, y + f * 0.2 + (lh if own_line else 0), fw, fh, fkind, st, f, rng, num)
        else:
            fw = min(max(colw * rng.uniform(0.35, 0.5), f * rng.uniform(8, 10)), colw * 0.8, f * 14)
            fh = fw * rng.uniform(0.6, 0.85)
            fx = x + (indent or f) + rng.uniform(0, colw - fw - (indent or f)) * rng.choice([0, 0.5, 1])
            fb = draw_figure(d, fx, bottom + f * 0.5, fw, fh, fkind, st, f, rng, num)
        el['fig_box'] = fb
        pg.el.append({'type': 'figure', 'box': fb, 'of': q['id'], 'framed_owner': el['framed'], 'kind': fkind})
        bottom = max(bottom, fb[3])
    # answer space
    n_ans = spec.get('ans_lines', 0)
    ans_top = bottom + f * 0.3
    if n_ans:
        if spec.get('ruled'):
            for i in range(n_ans):
                yy = ans_top + (i + 1) * lh
                d.line([(x + (indent or f), yy), (x + colw, yy)], fill=(150, 150, 150) if rng.random() < 0.5 else ink,
                       width=max(1, int(f / 22)))
        bottom = ans_top + n_ans * lh
    el['answer_area'] = [x + (indent or 0), ans_top, x + colw, bottom] if n_ans else None
    el['full_box'] = [x, y, x + colw, bottom]
    el['x'], el['colw'], el['indent'] = x, colw, indent
    pg.textboxes += [b for b in boxes]
    if el.get('fig_box'):
        pg.textboxes.append(el['fig_box'])
    if el['framed']:
        pg.protect += [b for b in boxes]
    pg.el.append(el)
    return bottom - y, el


def render_header(pg, x, y, colw, text, mode):
    st, rng, d = pg.st, pg.rng, pg.draw
    f = st['f']
    if mode == 'banner':
        hs = f * 1.1
        tw = text_width(text, st['fsh'], hs, rng)
        col = st['accent']
        light = tuple(int(c + (255 - c) * 0.8) for c in col)
        solid = rng.random() < 0.5
        d.rectangle([x, y + f * 0.2, x + tw + f * 1.2, y + f * 0.2 + hs * 1.5], fill=col if solid else light)
        inkc = (255, 255, 255) if solid else st['ink']
        b = draw_text(d, text, st['fsh'], hs, x + f * 0.6, y + f * 0.2 + hs * 1.1, inkc, rng)
        b = [x, y + f * 0.2, x + tw + f * 1.2, y + f * 0.2 + hs * 1.5]
        h = hs * 1.5 + f * 0.6
    elif mode == 'boxed':
        hs = f * 1.0
        tw = text_width(text, st['fsh'], hs, rng)
        b = draw_text(d, text, st['fsh'], hs, x + f * 0.4, y + hs * 1.15, st['ink'], rng)
        d.rectangle([x, y + hs * 0.1, x + tw + f * 0.8, y + hs * 1.55], outline=st['ink'], width=max(1, int(f / 18)))
        b = [x, y + hs * 0.1, x + tw + f * 0.8, y + hs * 1.55]
        h = hs * 1.8
    elif mode == 'rule':
        hs = f * 1.05
        b = draw_text(d, text, st['fsh'], hs, x, y + hs * 1.1, st['accent'] if rng.random() < 0.5 else st['ink'], rng)
        d.line([(x, y + hs * 1.5), (x + colw, y + hs * 1.5)], fill=st['accent'], width=max(2, int(f / 12)))
        h = hs * 1.9
    else:  # plain bold
        hs = f * rng.uniform(1.0, 1.15)
        units = build_units(text, st['fsh'], hs, rng)
        lines = wrap(units, colw)
        bb = []
        base = y + hs * 1.1
        for ln, lim in lines:
            bb.append(draw_line(d, ln, x, base, st['ink']))
            base += hs * 1.4
        b = union(bb)
        h = base - y - hs * 0.2
    pg.textboxes.append(b)
    pg.el.append({'type': 'header', 'box': b, 'text': text})
    return h


def render_page_header(pg, x, y, w, q, rng):
    """Title block with school/class/name fields; returns height."""
    st, d = pg.st, pg.draw
    f = st['f']
    ink = st['ink']
    lang = st['lang']
    y0 = y
    boxes = []
    kind = st['kind']
    if lang == 'zh':
        subj = SUBJ_ZH.get(q['subject'], '数学')
        gz = grade_zh(q.get('grade', '7'))
        yr = rng.randint(2019, 2025)
        if kind in ('zh_exam', 'zh_textbook'):
            t1 = rng.choice(['%d—%d学年度第%s学期%s质量检测' % (yr, yr + 1, rng.choice('一二'), rng.choice(['期中', '期末'])),
                             '%s%s第%s次月考试卷' % (gz, subj, rng.choice('一二三')),
                             '%s实验中学%d年%s学期%s' % (rng.choice(['育才', '明德', '第一', '阳光', '城南']), yr,
                                                    rng.choice(['春季', '秋季']), rng.choice(['期中考试', '阶段测试']))])
            t2 = '%s %s 试卷' % (gz, subj)
        else:
            t1 = rng.choice(['课时作业（%s）' % rng.choice(CN_NUM), '%s%s 课后练习' % (gz, subj),
                             '%s 周末作业 第%d周' % (subj, rng.randint(2, 18)), '%s家庭作业' % subj])
            t2 = (q.get('knowledge_points') or [''])[0]
        hs = f * rng.uniform(1.25, 1.5)
        tw = text_width(t1, st['fsh'], hs, rng)
        boxes.append(draw_text(d, t1, st['fsh'], hs, x + (w - tw) / 2, y + hs * 1.1, ink, rng))
        y += hs * 1.5
        if t2:
            hs2 = f * 1.15
            tw = text_width(t2, st['fsh'], hs2, rng)
            boxes.append(draw_text(d, t2, st['fsh'], hs2, x + (w - tw) / 2, y + hs2 * 1.1, ink, rng))
            y += hs2 * 1.5
        if rng.random() < 0.5:
            t3 = '（考试时间：%d分钟  满分：%d分）' % (rng.choice([60, 90, 100, 120]), rng.choice([100, 120, 150]))
            tw = text_width(t3, st['fs'], f * 0.9, rng)
            boxes.append(draw_text(d, t3, st['fs'], f * 0.9, x + (w - tw) / 2, y + f * 1.0, ink, rng))
            y += f * 1.5
        fields = rng.choice(['学校：____ 班级：____ 姓名：____ 考号：____', '班级________ 姓名________ 学号________',
                             '姓名：______  班级：______  日期：______', '班级：____ 姓名：____ 得分：____'])
    else:
        t1 = rng.choice(['Homework %d' % rng.randint(1, 15), '%s Worksheet %d' % (SUBJ_EN[q['subject']], rng.randint(1, 9)),
                         'Grade %s %s — Unit %d Review' % (q.get('grade', '8'), SUBJ_EN[q['subject']], rng.randint(1, 8)),
                         'Mid-term Test: %s' % SUBJ_EN[q['subject']], 'Weekly Practice %d' % rng.randint(1, 20)])
        hs = f * rng.uniform(1.3, 1.6)
        if rng.random() < 0.5:
            tw = text_width(t1, st['fsh'], hs, rng)
            boxes.append(draw_text(d, t1, st['fsh'], hs, x + (w - tw) / 2, y + hs * 1.1, ink, rng))
        else:
            boxes.append(draw_text(d, t1, st['fsh'], hs, x, y + hs * 1.1, ink, rng))
        y += hs * 1.6
        fields = rng.choice(['Name: ______  Class: ____  Date: ____', 'Name ________   Form ____   Score ___ / %d' % rng.randint(20, 50),
                             'Student: ________  Teacher: ______'])
    fy = y + f * 1.1
    boxes.append(draw_text(d, fields, st['fs'], f, x + rng.uniform(0, w * 0.1), fy, ink, rng))
    y = fy + f * 0.6
    if lang == 'zh' and kind == 'zh_exam' and rng.random() < 0.5:
        # score table
        cols = ['题号', '一', '二', '三', '四', '总分']
        rows2 = ['得分']
        cw = f * 3
        tx = x + (w - cw * len(cols)) / 2
        ty = y + f * 0.4
        rh = f * 1.6
        for i in range(3):
            d.line([(tx, ty + i * rh), (tx + cw * len(cols), ty + i * rh)], fill=ink, width=max(1, int(f / 20)))
        for j in range(len(cols) + 1):
            d.line([(tx + j * cw, ty), (tx + j * cw, ty + 2 * rh)], fill=ink, width=max(1, int(f / 20)))
        for j, c in enumerate(cols):
            tw = text_width(c, st['fs'], f * 0.9, rng)
            draw_text(d, c, st['fs'], f * 0.9, tx + j * cw + (cw - tw) / 2, ty + rh * 0.72, ink, rng)
        tw = text_width(rows2[0], st['fs'], f * 0.9, rng)
        draw_text(d, rows2[0], st['fs'], f * 0.9, tx + (cw - tw) / 2, ty + rh * 1.72, ink, rng)
        boxes.append([tx, ty, tx + cw * len(cols), ty + 2 * rh])
        y = ty + 2 * rh + f * 0.3
    if rng.random() < 0.5:
        d.line([(x, y + f * 0.3), (x + w, y + f * 0.3)], fill=ink, width=max(1, int(f / 18)))
        y += f * 0.4
    b = union(boxes)
    pg.textboxes += boxes
    pg.el.append({'type': 'page_header', 'box': [x, y0, x + w, y]})
    return y - y0 + f * 1.0


def make_page(plan, bank, by_id, rng):
    """Render a page; returns (Page, framed element, info dict)."""
    q = by_id[plan['bank_id']]
    W, H = plan['size']
    lang = plan['lang']
    pagekind = plan['pagekind']
    st = make_style(lang, pagekind, rng, q['subject'])
    cols = plan['cols']
    # geometry in photo terms -> page font size
    portrait = H > W
    if cols == 1:
        n_em = rng.uniform(22, 34) if lang == 'zh' else rng.uniform(22, 32)
        frac = rng.uniform(0.85, 1.15) if portrait else rng.uniform(0.66, 1.0)
    else:
        n_em = rng.uniform(15, 20)
        frac = rng.uniform(0.5, 0.6) if portrait else rng.uniform(0.42, 0.56)
    char_px = W * frac / n_em
    if char_px < 26:
        n_em = W * frac / 26
        char_px = 26
    s_target = rng.uniform(0.72, 1.1)
    f = int(np.clip(round(char_px / s_target), 24, 64))
    st['f'] = f
    colw = int(n_em * f)
    mL = int(f * rng.uniform(2.5, 5.0))
    mR = int(f * rng.uniform(2.0, 4.0))
    gap = int(f * rng.uniform(1.6, 3.2))
    if cols == 1:
        pw = mL + colw + mR
        ph = int(pw * rng.choice([1.414, 1.414, 1.33, 1.5]))
    else:
        pw = mL + 2 * colw + gap + mR
        ph = int(pw * (0.707 if pagekind == 'zh_exam' and rng.random() < 0.6 else 1.35))
    pg = Page(pw, ph, st, rng)
    d = pg.draw
    pg.scale = char_px / f
    info = {'pagekind': pagekind, 'cols': cols, 'font_px_page': f, 'n_em': round(n_em, 1), 'lang': lang}
    # sealing line on A3 exam
    top = int(f * rng.uniform(2.5, 4.5))
    bottom_lim = ph - int(f * 3)
    if pagekind == 'zh_textbook' or (pagekind == 'en_textbook' and rng.random() < 0.7):
        # running head
        chap = q.get('source', '').split(' ')[-1] if lang == 'zh' else 'Chapter %d  %s' % (
            rng.randint(1, 9), SUBJ_EN[q['subject']])
        rh_text = ('第%s章  %s' % (rng.choice(CN_NUM[:8]), chap)) if lang == 'zh' else chap
        b = draw_text(d, rh_text, st['fs'], f * 0.85, mL, top - f * 0.8, st['accent'], rng)
        pn = str(rng.randint(12, 180))
        pwid = text_width(pn, st['fs'], f * 0.85, rng)
        draw_text(d, pn, st['fs'], f * 0.85, pw - mR - pwid, top - f * 0.8, st['accent'], rng)
        d.line([(mL, top - f * 0.4), (pw - mR, top - f * 0.4)], fill=st['accent'], width=max(1, int(f / 14)))
        pg.textboxes.append(b)
        top += int(f * 0.6)
    if cols == 2 and rng.random() < 0.6:
        dash = rng.random() < 0.5
        xm = mL + colw + gap / 2
        yy = top
        while yy < bottom_lim:
            d.line([(xm, yy), (xm, yy + (f * 0.5 if dash else bottom_lim - top))], fill=st['ink'], width=max(1, int(f / 22)))
            yy += f * 0.9 if dash else bottom_lim
    if pagekind == 'zh_exam' and cols == 2 and rng.random() < 0.6 and mL > f * 2.6:
        # seal line
        xs = mL * 0.45
        yy = top
        while yy < bottom_lim:
            d.line([(xs, yy), (xs, yy + f * 0.4)], fill=st['ink'], width=1)
            yy += f * 0.7
        seal = Image.new('RGB', (int(f * 14), int(f * 1.4)), (255, 255, 255))
        sd = ImageDraw.Draw(seal)
        draw_text(sd, '密 封 线 内 不 要 答 题', st['fs'], f * 0.8, 2, f * 1.0, st['ink'], rng)
        seal = seal.rotate(90, expand=True)
        pg.img.paste(seal, (int(xs - f * 1.5), int(ph * 0.4)))
    # footer

    # ---- content plan
    framed_col = 0 if cols == 1 else plan['framed_col']
    if lang == 'en':
        pool = [r for r in bank if is_english(r['question'])]
    else:
        pool = [r for r in bank if r['subject'] == q['subject']] if rng.random() < 0.7 else bank
    pool = [r for r in pool if r['id'] != q['id']]
    if len(pool) < 6:
        pool = [r for r in bank if r['id'] != q['id']]
    rng.shuffle(pool)
    neigh = iter(pool * 4)

    def pspec(framed=False):
        sp = {'num': st['num'], 'framed': framed}
        if rng.random() < (0.3 if pagekind in ('zh_exam', 'en_exam') else 0.12) or (framed and plan['want_score'] and rng.random() < 0.55):
            sp['score'] = (score_note(rng.choice([2, 3, 4, 5, 6, 8, 10]), lang if rng.random() < 0.9 else 'en', rng),
                           'after' if lang == 'zh' or rng.random() < 0.35 else 'end')
        if rng.random() < (0.3 if framed else 0.25):
            sp['options'] = True
        sp['ans_lines'] = rng.choice([0, 0, 0, 1, 1, 2, 3]) if pagekind != 'en_worksheet' else rng.choice([0, 1, 2])
        sp['ruled'] = pagekind in ('en_worksheet', 'zh_homework') and rng.random() < 0.6
        return sp

    page_header_first = plan['want_header'] and rng.random() < 0.35
    k_above = rng.choice([1, 2, 2, 3, 3, 4, 5]) if not page_header_first else rng.choice([0, 1])
    sec_i = rng.randint(0, 3)
    if cols == 2:
        colx = [mL, mL + colw + gap]
    else:
        colx = [mL]
    y0 = top
    if page_header_first or rng.random() < 0.25:
        if cols == 2 and rng.random() < 0.5:
            y0 += render_page_header(pg, mL, y0, pw - mL - mR, q, rng)
            col_tops = [y0, y0]
        else:
            hh = render_page_header(pg, colx[0], y0, colw, q, rng)
            col_tops = [y0 + hh, y0]
            if framed_col == 1:
                page_header_first = False
    else:
        col_tops = [y0, y0]
        page_header_first = False
    num = rng.randint(1, 14) if st['num'] != 'circ' else rng.randint(1, 6)
    if plan.get('figure'):
        fig_target = rng.choice(['framed', 'prev', 'next', 'framed'])
    else:
        fig_target = None
    framed_el = None
    sec_header_mode = rng.choice(['plain', 'plain', 'banner', 'boxed', 'rule'])
    for c in range(cols):
        x = colx[c]
        y = col_tops[c]
        seq = []
        if c == framed_col:
            for i in range(k_above):
                seq.append(('p', next(neigh), pspec()))
            if plan['want_header'] and not page_header_first:
                pos = len(seq) if rng.random() < 0.75 or not seq else len(seq) - 1
                seq.insert(pos, ('h', section_header_text(lang, rng, q, sec_i, pagekind), sec_header_mode))
            elif rng.random() < 0.15 and seq:
                seq.insert(0, ('h', section_header_text(lang, rng, q, sec_i, pagekind), sec_header_mode))
            seq.append(('p', q, pspec(True)))
            for i in range(16):
                seq.append(('p', next(neigh), pspec()))
        else:
            if rng.random() < 0.3:
                seq.append(('h', section_header_text(lang, rng, q, (sec_i + 1) % 6, pagekind), sec_header_mode))
            for i in range(20):
                seq.append(('p', next(neigh), pspec()))
                if rng.random() < 0.08:
                    seq.append(('h', section_header_text(lang, rng, q, (sec_i + 2) % 6, pagekind), sec_header_mode))
        fidx = [i for i, s in enumerate(seq) if s[0] == 'p' and s[2]['framed']]
        fidx = fidx[0] if fidx else None
        for i, item in enumerate(seq):
            if y > bottom_lim - f * 3:
                break
            if item[0] == 'h':
                h = render_header(pg, x, y, colw, item[1], item[2])
                y += h + f * 0.3
                continue
            _, qq, sp = item
            if sp.get('options') is True:
                sp['options'] = make_options(qq, rng)
            if fig_target and c == framed_col and fidx is not None and (
                    (fig_target == 'framed' and i == fidx) or (fig_target == 'prev' and i == fidx - 1) or
                    (fig_target == 'next' and i == fidx + 1)):
                sp['fig'] = (rng.choice(['bar', 'triangle', 'axes', 'table', 'circle']),
                             rng.choice(['beside', 'below']) if not sp.get('options') else 'below')
            elif not fig_target and rng.random() < 0.0:
                pass
            if plan.get('want_hand') and sp['framed'] and rng.random() < 0.6 and not sp['ans_lines']:
                sp['ans_lines'] = rng.choice([1, 2, 2, 3])
            h, el = render_problem(pg, x, y, colw, qq, sp, num, c)
            if sp['framed']:
                framed_el = el
                if el['block_box'][3] > bottom_lim:
                    return None
            num += 1
            y += h + f * st['para_gap']
    if framed_el is None:
        return None
    pn1 = rng.randint(1, 4)
    pn2 = pn1 + rng.randint(1, 4)
    if lang == 'zh':
        foot_t = rng.choice(['第%d页（共%d页）' % (pn1, pn2), '- %d -' % pn1,
                             '%s试卷 第 %d 页' % (SUBJ_ZH[q['subject']], pn1), '第 %d 页 共 %d 页' % (pn1, pn2)])
    else:
        foot_t = rng.choice(['Page %d of %d' % (pn1, pn2), '- %d -' % pn1, str(pn1)])
    fw_ = text_width(foot_t, st['fs'], f * 0.8, rng)
    fbx = [(pw - fw_) / 2, ph - f * 2.3, (pw + fw_) / 2, ph - f * 1.1]
    if pg.free(fbx, 2):
        pg.textboxes.append(draw_text(d, foot_t, st['fs'], f * 0.8, (pw - fw_) / 2, ph - f * 1.4, st['ink'], rng))
    # ---- pen & handwriting marks
    add_marks(pg, plan, framed_el, rng)
    info['style'] = {'num_style': st['num'], 'spacing': round(st['spacing'], 2), 'justify': st['justify'],
                     'italic_vars': st['italic_vars'],
                     'fonts': sorted(set(os.path.basename(v[0]) + ('#%d' % v[1] if v[1] else '')
                                         for k in ('fs', 'fsb', 'fsh') for v in st[k].values()))}
    return pg, framed_el, info


def add_marks(pg, plan, fel, rng):
    st = pg.st
    f = st['f']
    probs = [e for e in pg.el if e['type'] == 'problem']
    fi = probs.index(fel)
    near = [p for p in probs if p['col'] == fel['col'] and abs(probs.index(p) - fi) <= 3]
    hand_col = rng.choice(['blue', 'blue', 'black', 'pencil'])
    lat_h = rng.choice(HAND_LATIN)
    cjk_h = rng.choice([NS, NS, NSE])
    hsize = f * rng.uniform(1.0, 1.35)

    def hand(text, x, base, p, colr=None):
        a, b0 = hand_alpha(text, hsize, rng, lat_h, cjk_h)
        ytop = base - b0
        box = hand_box_estimate(a, x, ytop)
        if box is None or not pg.free(box, pad=3):
            return None
        lay = pg.layer(colr or hand_col)
        bb = paste_alpha(lay, a, x, ytop)
        if bb:
            pg.el.append({'type': 'hand', 'box': bb, 'of': p['bank_id'], 'on_framed': p['framed'], 'text': text})
            pg.textboxes.append(bb)
        return bb

    def hand_for(p):
        q = BY_ID[p['bank_id']]
        ans = short_answer(q, rng)
        ok = None
        if p.get('answer_area'):
            aa = p['answer_area']
            lines = [ans]
            if not is_english(q['question']) and rng.random() < 0.5:
                lines = ['解：' + ans] if rng.random() < 0.5 else ['答：' + ans]
            base = aa[1] + hsize * 1.1
            for t in lines:
                if base > aa[3] + hsize * 0.3:
                    break
                ok = hand(t, aa[0] + rng.uniform(0, f * 3), base, p) or ok
                base += hsize * 1.5
        if not ok:
            ex, eb = p['last_end']
            t = ans if len(ans) < 10 else rng.choice('ABCD')
            ok = hand(t, ex + f * rng.uniform(0.8, 2.0), eb + f * 0.1, p)
        return ok

    want_hand = plan.get('want_hand')
    if want_hand:
        targets = [fel] if rng.random() < 0.65 else []
        targets += [p for p in near if p is not fel and rng.random() < 0.6]
        for p in targets:
            hand_for(p)
    elif rng.random() < 0.1:
        for p in near:
            if p is not fel and rng.random() < 0.4:
                hand_for(p)
    # teacher pen marks
    if plan.get('want_score') or rng.random() < 0.12:
        pen = 'red' if rng.random() < 0.8 else 'blue'
        lay = pg.layer(pen)
        w = max(2, f * rng.uniform(0.08, 0.13))
        cands = [fel] * 2 + near
        for p in cands[:rng.randint(2, 5)]:
            kind = rng.choice(['tick', 'tick', 'cross', 'score', 'circle'] if not p['framed'] else
                              ['tick', 'tick', 'cross', 'score'])
            L = f * rng.uniform(1.0, 1.8)
            lb = p['label_box']
            if kind == 'circle':
                box = [lb[0] - f * 0.3, lb[1] - f * 0.3, lb[2] + f * 0.15, lb[3] + f * 0.3]
                ok = all(not inter(box, b, 0) for b in pg.protect)
                if ok:
                    bb = draw_ellipse_loop(lay, box, w * 0.8, rng)
                    pg.el.append({'type': 'pen_mark', 'kind': 'circle', 'box': bb, 'of': p['bank_id'], 'color': pen})
                    pg.textboxes.append(bb)
                continue
            spots = []
            if lb[0] - L * 1.4 > 0:
                spots.append((lb[0] - L * 1.3, (lb[1] + lb[3]) / 2))
            ex, eb = p['last_end']
            spots.append((ex + f * 0.6, eb - f * 0.3))
            spots.append((p['x'] + p['colw'] - L * 1.2, (p['block_box'][1] + p['block_box'][3]) / 2))
            rng.shuffle(spots)
            for sx, sy in spots:
                if kind == 'score':
                    t = rng.choice(['-2', '+5', '-1', '3', '5分', '√', '-3', '4\'', '8'])
                    a, b0 = hand_alpha(t, f * rng.uniform(1.1, 1.5), rng, rng.choice(HAND_LATIN), NS)
                    box = hand_box_estimate(a, sx, sy + f * 0.4 - b0)
                    if box and pg.free(box):
                        bb = paste_alpha(lay, a, sx, sy + f * 0.4 - b0)
                        if bb:
                            pg.el.append({'type': 'pen_mark', 'kind': 'score', 'box': bb, 'of': p['bank_id'],
                                          'color': pen, 'text': t})
                            pg.textboxes.append(bb)
                        break
                else:
                    box = [sx - w, sy - L, sx + L + w, sy + L * 0.6]
                    if pg.free(box):
                        bb = (draw_tick if kind == 'tick' else draw_cross)(lay, sx, sy, L if kind == 'tick' else L * 0.8,
                                                                          w, rng)
                        pg.el.append({'type': 'pen_mark', 'kind': kind, 'box': bb, 'of': p['bank_id'], 'color': pen})
                        pg.textboxes.append(bb)
                        break
        if rng.random() < 0.3:
            # total score at top
            t = str(rng.randint(60, 100))
            a, b0 = hand_alpha(t, f * 2.2, rng, rng.choice(HAND_LATIN), NS)
            x = pg.W * rng.uniform(0.6, 0.85)
            box = hand_box_estimate(a, x, f * 0.3)
            if box and pg.free(box):
                bb = paste_alpha(lay, a, x, f * 0.3)
                if bb:
                    pg.el.append({'type': 'pen_mark', 'kind': 'total', 'box': bb, 'color': pen})


INK_COLORS = {'blue': (30, 55, 160), 'black': (25, 25, 35), 'pencil': (95, 95, 100), 'red': (205, 30, 35)}


def finish_page(pg, rng, screen=False, crop=None):
    """Paper texture, ink layers, show-through -> float32 RGB array 0..255 (of the crop)."""
    cx0, cy0, cx1, cy1 = crop if crop else (0, 0, pg.W, pg.H)
    canvas = np.asarray(pg.img.crop((cx0, cy0, cx1, cy1)), np.float32) / 255.0
    H, W = canvas.shape[:2]
    if not screen and rng.random() < 0.4:
        canvas = cv2.GaussianBlur(canvas, (0, 0), 0.6)  # slight ink spread
    if screen:
        paper = np.ones((H, W, 3), np.float32) * np.array([252, 252, 252], np.float32)
    else:
        paper = np.ones((H, W, 3), np.float32) * np.array(pg.st['paper'], np.float32)
        lo = np.random.default_rng(rng.randint(0, 1 << 30)).standard_normal((H // 40 + 2, W // 40 + 2)).astype(np.float32)
        lo = cv2.resize(cv2.GaussianBlur(lo, (0, 0), 1.5), (W, H), interpolation=cv2.INTER_CUBIC)
        paper *= (1 + 0.015 * lo)[..., None]
        grain = np.random.default_rng(rng.randint(0, 1 << 30)).standard_normal((H, W)).astype(np.float32)
        paper *= (1 + 0.012 * grain)[..., None]
    page = paper * canvas
    if not screen and rng.random() < 0.35:
        back = canvas[:, ::-1].mean(axis=2)
        back = cv2.GaussianBlur(back, (0, 0), 1.5)
        page *= (1 - rng.uniform(0.03, 0.07) * (1 - back))[..., None]
    for name, lay in pg.layers.items():
        a = (lay[cy0:cy1, cx0:cx1].astype(np.float32) / 255.0) * rng.uniform(0.8, 0.95)
        col = np.array(INK_COLORS[name], np.float32) / 255.0
        page *= (1 - a[..., None] * (1 - col))
    if screen:
        # subpixel grid of an LCD, before the camera samples it
        p = 3
        xx = (np.arange(W) + cx0) % p
        grid = np.ones((H, W, 3), np.float32) * 0.9
        for ch in range(3):
            grid[:, xx == ch, ch] = 1.0
        rows = ((np.arange(H) + cy0) % p == 0)
        grid[rows] *= 0.92
        page = page * grid / 0.95
    return np.clip(page, 0, 255)


# ---------------------------------------------------------------- camera --
def desk_background(W, H, rng, screen=False):
    g = np.random.default_rng(rng.randint(0, 1 << 30))
    if screen:
        bg = np.ones((H, W, 3), np.float32) * rng.uniform(10, 30)
        return bg
    kind = rng.choice(['wood', 'grey', 'dark', 'paper', 'cloth'])
    if kind == 'wood':
        base = np.array(rng.choice([(150, 105, 65), (185, 140, 95), (120, 80, 50), (200, 170, 130)]), np.float32)
        yy = np.arange(H, dtype=np.float32)[:, None]
        xx = np.arange(W, dtype=np.float32)[None, :]
        n = cv2.resize(g.standard_normal((8, 8)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
        ang = rng.uniform(0, math.pi)
        t = xx * math.cos(ang) + yy * math.sin(ang)
        stripes = 0.5 + 0.5 * np.sin(t / rng.uniform(6, 14) + 6 * n)
        bg = base[None, None, :] * (0.85 + 0.2 * stripes)[..., None]
    elif kind == 'paper':
        bg = np.ones((H, W, 3), np.float32) * np.array([225, 222, 212], np.float32)
    else:
        v = {'grey': rng.uniform(110, 170), 'dark': rng.uniform(35, 70), 'cloth': rng.uniform(60, 120)}[kind]
        tint = np.array([rng.uniform(0.9, 1.1) for _ in range(3)], np.float32)
        bg = np.ones((H, W, 3), np.float32) * v * tint
    bg = bg * (1 + 0.04 * g.standard_normal((H, W, 1)).astype(np.float32))
    return bg


def choose_camera(pg, fbox, W, H, rng, allow_rot=True):
    s = pg.scale
    bw, bh = (fbox[2] - fbox[0]) * s, (fbox[3] - fbox[1]) * s
    if bw > 0.9 * W:
        s *= 0.9 * W / bw
    if bh > 0.62 * H:
        s *= 0.62 * H / bh
    cxp, cyp = (fbox[0] + fbox[2]) / 2, (fbox[1] + fbox[3]) / 2
    for attempt in range(60):
        r = rng.random()
        theta = rng.uniform(-2, 2) if r < 0.45 else rng.uniform(-5, 5) if r < 0.8 else rng.uniform(-8, 8)
        if not allow_rot:
            theta = rng.uniform(-1.5, 1.5)
        ox, oy = rng.uniform(-0.07, 0.07) * W, rng.uniform(-0.07, 0.07) * H
        th = math.radians(theta)
        c, sn = math.cos(th), math.sin(th)
        P = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
        Q = []
        for (u, v) in P:
            du, dv = (u - W / 2 - ox) / s, (v - H / 2 - oy) / s
            # page text appears rotated by +theta (ccw) in the photo
            Q.append([cxp + c * du - sn * dv, cyp + sn * du + c * dv])
        Q = np.array(Q, np.float64)
        ux = (Q[1] - Q[0]) / np.linalg.norm(Q[1] - Q[0])
        uy = (Q[3] - Q[0]) / np.linalg.norm(Q[3] - Q[0])
        wp, hp = W / s, H / s
        kv = rng.uniform(-0.13, 0.13) if rng.random() < 0.6 else rng.uniform(-0.03, 0.03)
        kh = rng.uniform(-0.10, 0.10) if rng.random() < 0.4 else rng.uniform(-0.03, 0.03)
        a = kv * wp / 2
        Q[0] -= a * ux; Q[1] += a * ux; Q[2] -= a * ux; Q[3] += a * ux
        b = kh * hp / 2
        Q[0] -= b * uy; Q[3] += b * uy; Q[1] += b * uy; Q[2] -= b * uy
        Q += np.array([[rng.uniform(-0.015, 0.015) * wp, rng.uniform(-0.015, 0.015) * hp] for _ in range(4)])
        Hm = cv2.getPerspectiveTransform(P, Q.astype(np.float32)).astype(np.float64)
        Hi = np.linalg.inv(Hm)
        pts = to_photo(Hi, [[fbox[0], fbox[1]], [fbox[2], fbox[1]], [fbox[2], fbox[3]], [fbox[0], fbox[3]]])
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        mx, my = 0.035 * W, 0.035 * H
        if x0 < mx or y0 < my or x1 > W - mx or y1 > H - my:
            continue
        ccx, ccy = (x0 + x1) / 2, (y0 + y1) / 2
        if abs(ccx - W / 2) > 0.11 * W or abs(ccy - H / 2) > 0.11 * H:
            continue
        return Hm, {'theta_nominal': theta, 'keystone_v': kv, 'keystone_h': kh, 'scale': s}
    return None, None


def to_photo(Hi, pts):
    p = np.array(pts, np.float64)
    ph = np.c_[p, np.ones(len(p))] @ Hi.T
    return ph[:, :2] / ph[:, 2:3]


def warp_maps(Hm, W, H, rng, curve_amp):
    gx, gy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    if curve_amp > 0:
        ph = rng.uniform(0, 2 * math.pi)
        fr = rng.uniform(0.5, 1.5)
        dy = curve_amp * np.sin(math.pi * fr * gx / W + ph)
        dx = curve_amp * 0.5 * np.sin(math.pi * fr * gy / H + ph)
        gx = gx + dx
        gy = gy + dy
    den = Hm[2, 0] * gx + Hm[2, 1] * gy + Hm[2, 2]
    mx = ((Hm[0, 0] * gx + Hm[0, 1] * gy + Hm[0, 2]) / den).astype(np.float32)
    my = ((Hm[1, 0] * gx + Hm[1, 1] * gy + Hm[1, 2]) / den).astype(np.float32)
    return mx, my


def draw_occluder(img, forbid, rng, kind):
    """Finger or pen entering from an edge, never touching `forbid` (uint8 mask)."""
    H, W = img.shape[:2]
    md = min(W, H)
    for attempt in range(40):
        edge = rng.choice(['left', 'right', 'bottom', 'bottom', 'top', 'left', 'right'])
        if kind == 'finger':
            width = md * rng.uniform(0.09, 0.15)
            length = md * rng.uniform(0.16, 0.34)
        else:
            width = md * rng.uniform(0.03, 0.05)
            length = md * rng.uniform(0.3, 0.6)
        t = rng.uniform(0.1, 0.9)
        if edge == 'left':
            p0, n = np.array([-width, t * H]), np.array([1.0, 0])
        elif edge == 'right':
            p0, n = np.array([W + width, t * H]), np.array([-1.0, 0])
        elif edge == 'top':
            p0, n = np.array([t * W, -width]), np.array([0, 1.0])
        else:
            p0, n = np.array([t * W, H + width]), np.array([0, -1.0])
        ang = math.radians(rng.uniform(-35, 35))
        dvec = np.array([n[0] * math.cos(ang) - n[1] * math.sin(ang), n[0] * math.sin(ang) + n[1] * math.cos(ang)])
        for shrink in range(8):
            L = length * (0.85 ** shrink) + width
            tip = p0 + dvec * L
            m = np.zeros((H, W), np.uint8)
            perp = np.array([-dvec[1], dvec[0]])
            if kind == 'finger':
                cv2.line(m, tuple(np.int32(p0 - dvec * md)), tuple(np.int32(tip - dvec * width * 0.5)), 255,
                         int(width), cv2.LINE_AA)
                cv2.ellipse(m, tuple(np.int32(tip - dvec * width * 0.5)), (int(width * 0.5), int(width * 0.62)),
                            math.degrees(math.atan2(dvec[1], dvec[0])) + 90, 0, 360, 255, -1, cv2.LINE_AA)
            else:
                body_end = tip - dvec * width * 2.2
                poly = np.array([p0 - dvec * md + perp * width / 2, body_end + perp * width / 2,
                                 tip, body_end - perp * width / 2, p0 - dvec * md - perp * width / 2])
                cv2.fillPoly(m, [np.int32(poly * 4)], 255, cv2.LINE_AA, shift=2)
            blur = md * (0.006 if kind == 'pen' else rng.uniform(0.006, 0.016))
            grow = int(blur * 3 + md * 0.02)
            mg = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))
            if np.any((mg > 0) & (forbid > 0)):
                continue
            visible = np.count_nonzero(m) / (W * H)
            if visible < 0.006:
                break
            # render
            a = cv2.GaussianBlur(m.astype(np.float32) / 255.0, (0, 0), blur)
            gy, gx = np.mgrid[0:H, 0:W].astype(np.float32)
            # distance from axis for shading
            rel = (gx - p0[0]) * perp[0] + (gy - p0[1]) * perp[1]
            along = (gx - p0[0]) * dvec[0] + (gy - p0[1]) * dvec[1]
            shade = np.clip(1 - (rel / (width / 2)) ** 2, 0, 1) ** 0.5
            if kind == 'finger':
                base = np.array(rng.choice([(224, 172, 140), (210, 150, 120), (190, 130, 100), (235, 190, 160),
                                            (170, 115, 85)]), np.float32)
                col = base[None, None, :] * (0.62 + 0.42 * shade[..., None])
                # nail
                nc = tip - dvec * width * 0.55
                nm = np.zeros((H, W), np.uint8)
                cv2.ellipse(nm, tuple(np.int32(nc)), (int(width * 0.3), int(width * 0.36)),
                            math.degrees(math.atan2(dvec[1], dvec[0])) + 90, 0, 360, 255, -1, cv2.LINE_AA)
                na = cv2.GaussianBlur(nm.astype(np.float32) / 255.0, (0, 0), blur + 1) * 0.55
                nail = np.array([245, 210, 200], np.float32)
                col = col * (1 - na[..., None]) + nail * na[..., None]
                # knuckle crease
                crease = np.exp(-((along - (L - width * 1.8)) / (width * 0.05)) ** 2) * (np.abs(rel) < width * 0.4)
                col *= (1 - 0.15 * crease[..., None])
            else:
                base = np.array(rng.choice([(25, 25, 30), (20, 40, 120), (180, 30, 40), (220, 220, 225),
                                            (40, 90, 60)]), np.float32)
                col = base[None, None, :] * (0.55 + 0.6 * shade[..., None])
                hl = np.exp(-((rel - width * 0.18) / (width * 0.07)) ** 2)
                col = col + (255 - col) * 0.5 * hl[..., None]
                tipzone = np.clip((along - (L - width * 2.2)) / (width * 0.5), 0, 1)
                metal = np.array([170, 170, 175], np.float32) * (0.6 + 0.5 * shade[..., None])
                col = col * (1 - tipzone[..., None]) + metal * tipzone[..., None]
            # cast shadow
            off = np.float32([[1, 0, md * 0.02], [0, 1, md * 0.025]])
            sh = cv2.warpAffine(a, off, (W, H))
            sh = cv2.GaussianBlur(sh, (0, 0), md * 0.015)
            shd = sh * (forbid == 0)
            img *= (1 - 0.35 * shd[..., None])
            img[:] = img * (1 - a[..., None]) + col * a[..., None]
            ys, xs = np.nonzero(m)
            return {'kind': kind, 'edge': edge, 'box': [int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())],
                    'area_frac': round(float(visible), 4)}
    return None


def lighting(img, rng, fmask_box):
    H, W = img.shape[:2]
    gy, gx = np.mgrid[0:H, 0:W].astype(np.float32)
    xn, yn = gx / W - 0.5, gy / H - 0.5
    eff = {}
    phi = rng.uniform(0, 2 * math.pi)
    a = rng.uniform(0.05, 0.35)
    G = 1 + a * (xn * math.cos(phi) + yn * math.sin(phi)) * 2 * 0.5
    v = rng.uniform(0, 0.35)
    G *= (1 - v * (xn ** 2 + yn ** 2) * 1.6)
    eff['gradient'] = round(a, 3)
    eff['vignette'] = round(v, 3)
    if rng.random() < 0.45:
        # soft shadow of phone / hand from a side
        ang = rng.uniform(0, 2 * math.pi)
        d = xn * math.cos(ang) + yn * math.sin(ang)
        edge = rng.uniform(0.15, 0.45)
        soft = rng.uniform(0.03, 0.12)
        sm = 1 / (1 + np.exp(-(d - edge) / soft))
        dark = rng.uniform(0.25, 0.42)
        G *= (1 - dark * sm)
        eff['shadow'] = round(dark, 3)
    G = np.clip(G, 0.5, 1.25)
    img *= G[..., None]
    expo = rng.uniform(0.85, 1.08)
    wb = np.array([rng.uniform(0.93, 1.07), 1.0, rng.uniform(0.88, 1.06)], np.float32)
    img *= expo * wb
    eff['exposure'] = round(expo, 3)
    return eff


def moire(img, rng):
    H, W = img.shape[:2]
    gy, gx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, math.pi)
    per = rng.uniform(7, 22)
    warpv = rng.uniform(5, 25)
    t = (gx * math.cos(ang) + gy * math.sin(ang)) / per + np.sin(gy / H * math.pi * rng.uniform(1, 3)) * warpv / per \
        + np.sin(gx / W * math.pi * rng.uniform(1, 3) + 1.3) * warpv / per * 0.7
    r2_ = ((gx - rng.uniform(0, W)) ** 2 + (gy - rng.uniform(0, H)) ** 2) / (per * W * rng.uniform(2, 6))
    t = t + r2_
    amp = rng.uniform(0.08, 0.16)
    for ch in range(3):
        img[..., ch] *= (1 - amp * (0.5 + 0.5 * np.sin(2 * math.pi * t + ch * 2.1)))
    # bluish screen tint + glare
    img *= np.array([0.95, 1.0, 1.07], np.float32)
    cx, cy = rng.uniform(0, W), rng.uniform(0, H)
    r2 = ((gx - cx) ** 2 + (gy - cy) ** 2) / (0.3 * W) ** 2
    img += 40 * np.exp(-r2)[..., None]
    return {'moire_period': round(per, 1), 'moire_amp': round(amp, 3)}


def box_vis(Hi, box, W, H):
    pts = to_photo(Hi, [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]])
    x0, y0 = pts.min(0)
    x1, y1 = pts.max(0)
    area = max(1e-6, (x1 - x0) * (y1 - y0))
    ix = max(0, min(x1, W) - max(x0, 0))
    iy = max(0, min(y1, H) - max(y0, 0))
    return ix * iy / area, [float(x0), float(y0), float(x1), float(y1)]


def shoot(pg, fel, plan, rng):
    W, H = plan['size']
    screen = plan['moire']
    fbox = fel['block_box']
    Hm, cam = choose_camera(pg, fbox, W, H, rng)
    if Hm is None:
        return None
    Hi = np.linalg.inv(Hm)
    # crop the page to what the frame can see
    fq = to_photo(Hm, [[0, 0], [W, 0], [W, H], [0, H]])
    mgn = 0.06 * max(W, H) / cam['scale']
    cx0 = int(max(0, fq[:, 0].min() - mgn)); cy0 = int(max(0, fq[:, 1].min() - mgn))
    cx1 = int(min(pg.W, fq[:, 0].max() + mgn)); cy1 = int(min(pg.H, fq[:, 1].max() + mgn))
    if cx1 - cx0 < 10 or cy1 - cy0 < 10:
        return None
    page = finish_page(pg, rng, screen, (cx0, cy0, cx1, cy1))
    Hm = np.array([[1, 0, -cx0], [0, 1, -cy0], [0, 0, 1]], np.float64) @ Hm
    ph_, pw_ = page.shape[:2]
    s = cam['scale']
    curve = 0 if screen or rng.random() < 0.5 else rng.uniform(0.5, 0.0045 * W)
    mx, my = warp_maps(Hm, W, H, rng, curve)
    src = page
    if s < 0.85 and not screen:
        r = min(1.0, s * 1.3)
        src = cv2.resize(page, (int(pw_ * r), int(ph_ * r)), interpolation=cv2.INTER_AREA)
        mxs, mys = mx * r, my * r
    else:
        mxs, mys = mx, my
    warped = cv2.remap(src, mxs, mys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    cover = cv2.remap(np.ones(src.shape[:2], np.float32), mxs, mys, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    # framed masks
    fm = np.zeros((ph_, pw_), np.uint8)
    b = [int(v) for v in fbox]
    b = [b[0] - cx0, b[1] - cy0, b[2] - cx0, b[3] - cy0]
    fm[max(0, b[1]):b[3] + 1, max(0, b[0]):b[2] + 1] = 255
    fmask = cv2.remap(fm, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    tm = np.zeros((ph_, pw_), np.uint8)
    for lb in fel['line_boxes']:
        l = [int(lb[0]) - cx0, int(lb[1]) - cy0, int(lb[2]) - cx0, int(lb[3]) - cy0]
        tm[max(0, l[1]):l[3] + 1, max(0, l[0]):l[2] + 1] = 255
    tmask = cv2.remap(tm, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    bg = desk_background(W, H, rng, screen)
    shadow = cv2.GaussianBlur(cv2.warpAffine(cover, np.float32([[1, 0, 6], [0, 1, 8]]), (W, H)), (0, 0), 8)
    bg *= (1 - 0.4 * shadow)[..., None]
    img = warped * cover[..., None] + bg * (1 - cover[..., None])
    eff = {'curvature_px': round(float(curve), 2), 'keystone_v': round(cam['keystone_v'], 3),
           'keystone_h': round(cam['keystone_h'], 3), 'scale_page_to_photo': round(s, 3),
           'page_visible_frac': round(float(cover.mean()), 3)}
    occl = None
    if plan['occluder']:
        g_ = int(0.025 * min(W, H))
        forbid = cv2.dilate(fmask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g_ + 1, 2 * g_ + 1)))
        occl = draw_occluder(img, forbid, rng, 'finger' if rng.random() < 0.65 else 'pen')
    eff.update(lighting(img, rng, fbox))
    if screen:
        eff.update(moire(img, rng))
    # blur
    char_px = pg.st['f'] * s
    r = rng.random()
    sig = 0.0
    if r < 0.45:
        sig = rng.uniform(0.3, 0.9)
    elif r < 0.8:
        sig = rng.uniform(0.9, 1.5) if char_px > 24 else rng.uniform(0.6, 1.0)
    sig *= max(1.0, W / 1280)
    if sig > 0:
        img = cv2.GaussianBlur(img, (0, 0), sig)
    eff['blur_sigma'] = round(sig, 2)
    if rng.random() < 0.12:
        k = rng.randint(3, 6)
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        Mr = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        ker = cv2.warpAffine(ker, Mr, (k, k))
        ker /= ker.sum()
        img = cv2.filter2D(img, -1, ker)
        eff['motion_blur_px'] = k
    nz = rng.uniform(1.5, 6.5)
    g = np.random.default_rng(rng.randint(0, 1 << 30))
    noise = g.standard_normal((H, W, 1)).astype(np.float32) * nz * np.sqrt(np.clip(img.mean(2, keepdims=True), 1, 255) / 128)
    img += noise + g.standard_normal((H, W, 3)).astype(np.float32) * nz * 0.35
    eff['noise_sigma'] = round(nz, 2)
    img = np.clip(img, 0, 255).astype(np.uint8)
    # measured skew of the framed problem's first line
    lb = fel['line_boxes'][0]
    p2 = to_photo(Hi, [[lb[0], lb[3]], [lb[2], lb[3]]])
    skew = -math.degrees(math.atan2(p2[1, 1] - p2[0, 1], p2[1, 0] - p2[0, 0]))
    # element visibility
    vis = []
    for e in pg.el:
        box = e.get('box') or e.get('block_box')
        if box is None:
            continue
        fr, pb = box_vis(Hi, box, W, H)
        vis.append((e, fr, pb))
    return {'img': img, 'fmask': fmask, 'tmask': tmask, 'eff': eff, 'occl': occl, 'skew': skew, 'vis': vis,
            'Hi': Hi, 'cam': cam}


# ------------------------------------------------------------------ main --
BY_ID = {}


def mask_box(m):
    ys, xs = np.nonzero(m)
    if len(xs) == 0:
        return None
    return [int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())]


def rot_img(img, q):
    # q = clockwise quarter turns
    return np.ascontiguousarray(np.rot90(img, k=-q))


def make_plans(bank, rng):
    ids = [r['id'] for r in bank]
    special = [r['id'] for r in bank if any(c in SUP or c in SUB for c in r['question']) or '___' in r['question']]
    others = [i for i in ids if i not in special]
    rng.shuffle(others)
    chosen = special + others[:110 - len(special)]
    rep = rng.sample(chosen, 10)
    framed = chosen + rep
    rng.shuffle(framed)
    assert len(framed) == N_PHOTOS
    sizes = [(1280, 960)] * 40 + [(960, 1280)] * 45 + [(1600, 1200)] * 10 + [(1200, 1600)] * 12 + [(2000, 1500)] * 13
    rng.shuffle(sizes)

    def pick(n):
        s = set(rng.sample(range(N_PHOTOS), n))
        return [i in s for i in range(N_PHOTOS)]
    hdr, two, score, hand, occ, fig = pick(40), pick(38), pick(45), pick(40), pick(30), pick(36)
    moire_i = set(rng.sample(range(N_PHOTOS), 7))
    quarter_c = [i for i in range(N_PHOTOS) if i not in moire_i]
    quarter = {}
    for i in rng.sample(quarter_c, 10):
        q = rng.choice([1, 2, 3])
        if sizes[i] == (2000, 1500) and q in (1, 3):
            q = 2
        quarter[i] = q
    plans = []
    for i in range(N_PHOTOS):
        q = BY_ID[framed[i]]
        eng = is_english(q['question'])
        lang = ('en' if rng.random() < 0.7 else 'zh') if eng else 'zh'
        pk = rng.choice(PAGEKINDS_EN if lang == 'en' else PAGEKINDS_ZH)
        plans.append({'qid': 'r%03d' % (i + 1), 'bank_id': framed[i], 'size': sizes[i], 'lang': lang, 'pagekind': pk,
                      'cols': 2 if two[i] else 1, 'framed_col': rng.choice([0, 1]), 'want_header': hdr[i],
                      'want_score': score[i], 'want_hand': hand[i], 'occluder': occ[i], 'figure': fig[i],
                      'moire': i in moire_i, 'quarter': quarter.get(i, 0)})
    return plans


def classify(res, pg, fel, plan, W, H):
    kinds = []
    details = {}
    vis = res['vis']

    def anyvis(pred, thr=0.6):
        return [(e, fr) for e, fr, pb in vis if pred(e) and fr >= thr]
    hv = anyvis(lambda e: e['type'] == 'header', 0.6) + anyvis(lambda e: e['type'] == 'page_header', 0.4)
    if hv:
        kinds.append('header')
        details['headers'] = [e.get('text', 'page_header') for e, _ in hv]
    if pg.st.get('cols_n', 1) == 2:
        other = [(e, fr) for e, fr, pb in vis if e['type'] == 'problem' and e['col'] != fel['col'] and fr > 0.05]
        if other:
            kinds.append('two_column')
            details['other_column_problems'] = [e['bank_id'] for e, _ in other]
    sc = []
    for e, fr, pb in vis:
        if fr < 0.6:
            continue
        if e['type'] == 'problem' and e.get('score_note'):
            fr2, _ = box_vis(res['Hi'], e['score_note'], W, H)
            if fr2 > 0.9:
                sc.append('score_note:%s' % e['bank_id'])
        if e['type'] == 'problem' and e['label'] and e['label'][0] in CIRCLED:
            fr2, _ = box_vis(res['Hi'], e['label_box'], W, H)
            if fr2 > 0.9:
                sc.append('circled_number:%s' % e['bank_id'])
        if e['type'] == 'pen_mark':
            sc.append('pen_%s_%s:%s' % (e['color'], e['kind'], e.get('of', 'page')))
    if sc:
        kinds.append('score_mark')
        details['score_marks'] = sc
    hw = anyvis(lambda e: e['type'] == 'hand', 0.6)
    if hw:
        kinds.append('handwriting')
        details['handwriting'] = [{'of': e['of'], 'on_framed': e['on_framed'], 'text': e['text']} for e, _ in hw]
    if res['occl']:
        kinds.append('occluder')
    eff = res['eff']
    cam = []
    if abs(res['skew']) >= 2:
        cam.append('rotation')
    if abs(eff['keystone_v']) >= 0.04 or abs(eff['keystone_h']) >= 0.04:
        cam.append('perspective')
    if eff.get('shadow') or eff['gradient'] > 0.2:
        cam.append('uneven_light')
    if eff['blur_sigma'] >= 0.8 or eff.get('motion_blur_px'):
        cam.append('blur')
    if plan['quarter']:
        cam.append('quarter_turn')
    if plan['moire']:
        cam.append('screen_moire')
    if plan['jpeg_q'] <= 65:
        cam.append('strong_jpeg')
    if cam:
        kinds.append('camera')
        details['camera'] = cam
    if tuple(sorted(plan['size'])) != (960, 1280):
        kinds.append('large_size')
    fg = anyvis(lambda e: e['type'] == 'figure', 0.5)
    if fg:
        kinds.append('figure')
        details['figures'] = [{'kind': e['kind'], 'of': e['of']} for e, _ in fg]
    return kinds, details


def main():
    global BANK, OUT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--bank', default=BANK)
    parser.add_argument('out')
    parser.add_argument('qids', nargs='*', help='remake only these photos (same pixels as in the full run)')
    args = parser.parse_args()
    BANK, OUT = args.bank, args.out
    t0 = time.time()
    os.makedirs(OUT, exist_ok=True)
    bank = load_bank()
    for r in bank:
        BY_ID[r['id']] = r
    rng0 = random.Random(SEED)
    plans = make_plans(bank, rng0)
    only = set(args.qids)
    metas = []
    for i, plan in enumerate(plans):
        if only and plan['qid'] not in only:
            continue
        for attempt in range(12):
            rng = random.Random(SEED * 1000 + i * 37 + attempt)
            np.random.seed(rng.randint(0, 1 << 30))
            plan['jpeg_q'] = rng.randint(55, 92)
            out = make_page(plan, bank, BY_ID, rng)
            if out is None:
                continue
            pg, fel, info = out
            pg.st['cols_n'] = plan['cols']
            res = shoot(pg, fel, plan, rng)
            if res is None:
                continue
            W, H = plan['size']
            kinds, details = classify(res, pg, fel, plan, W, H)
            # require planned features to be visible (retry otherwise)
            need = [('want_header', 'header'), ('want_hand', 'handwriting'), ('want_score', 'score_mark'),
                    ('figure', 'figure'), ('occluder', 'occluder')]
            if plan['cols'] == 2:
                need.append(('cols', 'two_column'))
            missing = [k for p, k in need if plan.get(p) and k not in kinds]
            fb = mask_box(res['fmask'])
            if fb is None:
                continue
            cx, cy = (fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2
            okc = abs(cx - W / 2) <= 0.13 * W and abs(cy - H / 2) <= 0.13 * H and fb[0] > 3 and fb[1] > 3 and \
                fb[2] < W - 4 and fb[3] < H - 4
            if not okc:
                continue
            if missing and attempt < 11:
                continue
            break
        else:
            print('FAILED', plan['qid'])
            continue
        img, fmask, tmask = res['img'], res['fmask'], res['tmask']
        q = plan['quarter']
        if q:
            img, fmask, tmask = rot_img(img, q), rot_img(fmask, q), rot_img(tmask, q)
        Hh, Ww = img.shape[:2]
        fb = mask_box(fmask)
        tb = mask_box(tmask)
        cnts, _ = cv2.findContours((fmask > 0).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        quad = cv2.boxPoints(cv2.minAreaRect(max(cnts, key=cv2.contourArea))).round(1).tolist()
        pil = Image.fromarray(img)
        sub = rng.choice([0, 2, 2, 1])
        pil.save(os.path.join(OUT, plan['qid'] + '.jpg'), quality=plan['jpeg_q'], subsampling=sub)
        # neighbours visible
        neigh = []
        for e, fr, pb in res['vis']:
            if e['type'] == 'problem' and not e['framed'] and fr > 0.02:
                neigh.append({'bank_id': e['bank_id'], 'visible_frac': round(float(fr), 2), 'cut_by_frame': bool(fr < 0.98),
                              'column': e['col']})
        char_px = pg.st['f'] * res['cam']['scale']
        meta = {
            'qid': plan['qid'], 'bank_id': plan['bank_id'], 'kinds': kinds, 'size': [Ww, Hh],
            'rotation': {'skew_deg': round(res['skew'], 2), 'saved_quarter_turn_cw': q * 90},
            'bbox': fb, 'text_bbox': tb, 'quad': quad,
            'bbox_center_offset_frac': [round(((fb[0] + fb[2]) / 2 - Ww / 2) / Ww, 3),
                                        round(((fb[1] + fb[3]) / 2 - Hh / 2) / Hh, 3)],
            'framed_label': fel['label'], 'framed_char_px': round(char_px, 1),
            'framed_has_options': bool(fel.get('options_box')),
            'framed_score_note': bool(fel.get('score_note')),
            'jpeg_quality': plan['jpeg_q'], 'layout': info, 'effects': res['eff'], 'occluder': res['occl'],
            'details': details, 'neighbours': neigh, 'attempt': attempt,
        }
        metas.append(meta)
        print(plan['qid'], plan['bank_id'], Ww, Hh, ','.join(kinds), 'att=%d' % attempt, 'px=%.0f' % char_px,
              '%.1fs' % (time.time() - t0), flush=True)
    if only:
        return
    with open(os.path.join(OUT, 'meta.jsonl'), 'w', encoding='utf-8') as f:
        for m in metas:
            f.write(json.dumps(m, ensure_ascii=False) + '\n')
    with open(os.path.join(OUT, 'truth.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for m in metas:
            w.writerow([m['qid'], BY_ID[m['bank_id']]['question']])
    with open(os.path.join(OUT, 'queries.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for m in metas:
            w.writerow([m['qid'], BY_ID[m['bank_id']]['question'], m['bank_id'], 'exact'])
    print('fonts used:', sorted(FONTS_USED))
    print('done in %.1fs' % (time.time() - t0))


if __name__ == '__main__':
    main()
