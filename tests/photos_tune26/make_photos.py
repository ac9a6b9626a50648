#!/usr/bin/env python3
"""Synthetic phone photos of printed homework pages -- set "tune26".

Theme: far shots and the student's own marks.  Self-contained: reads only the
question bank (JSON lines with id, subject, grade, question, ...).

    make_photos.py --bank BANK OUT --count N --seed S [--jobs J] [--only 3,17]

Writes OUT/tNNN.jpg, OUT/truth.csv, OUT/queries.csv, OUT/cases.csv.
All randomness comes from numpy.random.default_rng([seed, i, k]); i is the
photo number (1..N), i == 0 is used for the block plans, k picks a stream.
Photo i depends only on (seed, i, bank).
"""
import argparse
import csv
import difflib
import json
import math
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

BLOCK = 20

# ----------------------------------------------------------------------------
# fonts
_N = '/usr/share/fonts/opentype/noto/'
_L = '/usr/share/fonts/truetype/liberation/'
_D = '/usr/share/fonts/truetype/dejavu/'
FONTS = {
    'noto_sans_sc': (_N + 'NotoSansCJK-Regular.ttc', 2),
    'noto_sans_sc_b': (_N + 'NotoSansCJK-Bold.ttc', 2),
    'noto_serif_sc': (_N + 'NotoSerifCJK-Regular.ttc', 2),
    'noto_serif_sc_b': (_N + 'NotoSerifCJK-Bold.ttc', 2),
    'noto_mono_sc': (_N + 'NotoSansCJK-Regular.ttc', 7),
    'lib_serif': (_L + 'LiberationSerif-Regular.ttf', 0),
    'lib_serif_b': (_L + 'LiberationSerif-Bold.ttf', 0),
    'lib_sans': (_L + 'LiberationSans-Regular.ttf', 0),
    'lib_sans_b': (_L + 'LiberationSans-Bold.ttf', 0),
    'lib_narrow': (_L + 'LiberationSansNarrow-Regular.ttf', 0),
    'dv_serif': (_D + 'DejaVuSerif.ttf', 0),
    'dv_serif_b': (_D + 'DejaVuSerif-Bold.ttf', 0),
    'dv_sans': (_D + 'DejaVuSans.ttf', 0),
    'dv_sans_b': (_D + 'DejaVuSans-Bold.ttf', 0),
    'dv_cond': (_D + 'DejaVuSansCondensed.ttf', 0),
}
ZH_FAMILIES = [('noto_serif_sc', 'noto_serif_sc_b'), ('noto_sans_sc', 'noto_sans_sc_b'),
               ('noto_serif_sc', 'noto_sans_sc_b'), ('noto_mono_sc', 'noto_sans_sc_b')]
ZH_FAMILY_P = [0.4, 0.35, 0.15, 0.10]
EN_FAMILIES = [('lib_serif', 'lib_serif_b'), ('dv_serif', 'dv_serif_b'), ('lib_sans', 'lib_sans_b'),
               ('dv_sans', 'dv_sans_b'), ('lib_narrow', 'lib_sans_b'), ('dv_cond', 'dv_sans_b')]
EN_FAMILY_P = [0.3, 0.15, 0.2, 0.15, 0.1, 0.1]
MIX_LATIN = ['lib_serif', 'dv_serif', 'lib_serif', 'lib_sans']

_font_cache = {}
_width_cache = {}
_glyph_cache = {}


def font(key, px):
    px = max(1.0, round(px * 4) / 4.0)
    k = (key, px)
    f = _font_cache.get(k)
    if f is None:
        path, idx = FONTS[key]
        f = ImageFont.truetype(path, px, index=idx)
        _font_cache[k] = f
    return f


def width_em(key, text):
    k = (key, text)
    w = _width_cache.get(k)
    if w is None:
        w = font(key, 200).getlength(text) / 200.0
        _width_cache[k] = w
    return w


def has_glyph(key, ch):
    k = (key, ch)
    r = _glyph_cache.get(k)
    if r is None:
        f = font(key, 48)
        a = f.getmask(ch)
        b = f.getmask('\uffff')
        r = not (a.size == b.size and bytes(a) == bytes(b))
        _glyph_cache[k] = r
    return r


# ----------------------------------------------------------------------------
# text model
SUP = {'²': '2', '³': '3', '¹': '1', '⁰': '0'}
SUB = {chr(0x2080 + d): str(d) for d in range(10)}
SUB['ₙ'] = 'n'
CLOSE = set('，。：；？！）》」』、”’%,.;:?!)]}')
OPEN = set('（《「『“‘([{')
CJK_RE = re.compile(r'[\u4e00-\u9fff]')


def is_cjk_char(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF
            or 0xF900 <= o <= 0xFAFF or ch in '“”‘’' or 0x2460 <= o <= 0x24FF)


def lang_of(text):
    return 'zh' if CJK_RE.search(text) else 'en'


class Style:
    """How a page prints text."""

    def __init__(self, lang, reg, bold, latin, subsup, blank_mode, blank_factor):
        self.lang = lang
        self.reg = reg            # main font key
        self.bold = bold
        self.latin = latin        # font for ASCII runs on a zh page (mixed) or None
        self.subsup = subsup      # 'glyph' or 'typeset'
        self.blank_mode = blank_mode  # 'line' or 'glyph'
        self.blank_factor = blank_factor


def _sym_font(style, base, ch):
    if has_glyph(base, ch):
        return base
    for k in ('dv_serif' if 'serif' in base else 'dv_sans', 'dv_sans', 'noto_sans_sc'):
        if has_glyph(k, ch):
            return k
    return base


def tokenize(text, style, bold=False, src='q'):
    """Split text into wrap tokens.  Each token: dict(pieces=[(txt,font,scale,dy,w)],
    w, sp (space after), nb (no break before), kind, src)."""
    main = style.bold if bold else style.reg
    latin = style.latin if (style.latin and not bold) else main
    toks = []
    cur = None
    glue_next = False

    def new_tok(kind):
        nonlocal glue_next
        t = dict(pieces=[], w=0.0, sp=0.0, nb=glue_next, kind=kind, src=src)
        glue_next = False
        toks.append(t)
        return t

    def add_piece(t, txt, fk, scale=1.0, dy=0.0):
        w = width_em(fk, txt) * scale
        if t['pieces'] and t['pieces'][-1][1] == fk and t['pieces'][-1][2] == scale and t['pieces'][-1][3] == dy:
            p = t['pieces'][-1]
            t['pieces'][-1] = (p[0] + txt, fk, scale, dy, p[4] + w)
        else:
            t['pieces'].append((txt, fk, scale, dy, w))
        t['w'] += w

    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == ' ':
            ref = toks[-1] if toks else None
            if ref is not None:
                fk = latin if style.lang == 'zh' else main
                ref['sp'] += width_em(fk, ' ')
            cur = None
            i += 1
            continue
        if ch == '_':
            j = i
            while j < n and text[j] == '_':
                j += 1
            cnt = j - i
            t = new_tok('blank')
            if style.blank_mode == 'glyph':
                add_piece(t, '_' * max(cnt, 4), latin)
            else:
                t['w'] = max(2.5, cnt * style.blank_factor)
            cur = None
            i = j
            continue
        if ch in SUP or ch in SUB:
            if cur is None:
                cur = new_tok('word')
            base = latin
            if style.subsup == 'glyph' and has_glyph(base, ch):
                add_piece(cur, ch, base)
            else:
                if ch in SUP:
                    add_piece(cur, SUP[ch], base, 0.62, -0.36)
                else:
                    add_piece(cur, SUB[ch], base, 0.62, 0.15)
            i += 1
            continue
        if is_cjk_char(ch):
            cjkf = main if style.lang == 'zh' or 'noto' in main else ('noto_sans_sc_b' if bold else 'noto_sans_sc')
            if ch in CLOSE and toks:
                t = toks[-1]
                add_piece(t, ch, cjkf)
            else:
                t = new_tok('cjk')
                add_piece(t, ch, cjkf)
                if ch in OPEN:
                    glue_next = True
            cur = None
            i += 1
            continue
        # ASCII / other symbol
        if cur is None:
            if ch in CLOSE and toks and not toks[-1]['sp']:
                cur = toks[-1]
            else:
                cur = new_tok('word')
        fk = latin if ord(ch) < 128 else _sym_font(style, latin, ch)
        add_piece(cur, ch, fk)
        if ch in OPEN and len(cur['pieces']) == 1 and len(cur['pieces'][0][0]) == 1:
            pass
        i += 1
    return toks


def wrap(tokens, first_w, rest_w):
    lines = [[]]
    x = 0.0
    width = first_w
    for t in tokens:
        if lines[-1] and not t['nb'] and x + t['w'] > width + 1e-6:
            lines.append([])
            x = 0.0
            width = rest_w
        lines[-1].append((x, t))
        x += t['w'] + t['sp']
    return lines


def line_width(line):
    if not line:
        return 0.0
    x, t = line[-1]
    return x + t['w']


# ----------------------------------------------------------------------------
# bank / plan
SUBJ_ZH = dict(math='数学', physics='物理', chemistry='化学', chinese='语文', geography='地理',
               history='历史', biology='生物', english='英语')
GRADE_ZH = {'1': '一', '2': '二', '3': '三', '4': '四', '5': '五', '6': '六', '7': '七', '8': '八',
            '9': '九', '10': '高一', '11': '高二', '12': '高三'}
MATH_RE = re.compile(r'[0-9A-Za-z].*[=+×÷√²³₀-₉ₙ/<>]|[=+×÷√²³₀-₉ₙ/<>].*[0-9A-Za-z]')
MARK_TYPES = ['circle_num', 'tick', 'cross', 'star', 'arrow', 'underline', 'highlight',
              'crossout_neighbour', 'working_below', 'working_margin']
FURN_TYPES = ['crease', 'punch_holes', 'staple', 'phone_shadow', 'coffee_ring']


def load_bank(path):
    rows = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    for r in rows:
        r['lang'] = lang_of(r['question'])
        r['math'] = bool(MATH_RE.search(r['question']))
    return rows


def plan_block(seed, b, bank, usage):
    rng = np.random.default_rng([seed, 0, 1000 + b])
    slots = []
    scales = ['far'] * 6 + ['near'] * 4 + ['normal'] * 10
    for s in scales:
        slots.append(dict(scale=s, control=False, marks=[], furniture=[], mixed=False,
                          blur='none', strong_tilt=False))
    normals = [k for k in range(20) if slots[k]['scale'] == 'normal']
    for k in normals[:3]:
        slots[k]['control'] = True
    # language: 10 zh / 10 en; controls spread
    langs = np.array(['zh'] * 10 + ['en'] * 10)
    rng.shuffle(langs)
    for k in range(20):
        slots[k]['lang'] = str(langs[k])
    non_ctrl = [k for k in range(20) if not slots[k]['control']]
    # marks on 11 slots: far 3, near 2, normal 6
    far = [k for k in range(20) if slots[k]['scale'] == 'far']
    near = [k for k in range(20) if slots[k]['scale'] == 'near']
    nrm = [k for k in normals if not slots[k]['control']]
    mark_slots = list(rng.permutation(far)[:3]) + list(rng.permutation(near)[:2]) + list(rng.permutation(nrm)[:6])
    pool = MARK_TYPES * 2 + list(rng.choice(MARK_TYPES, 2, replace=False))
    rng.shuffle(pool)
    for j, k in enumerate(mark_slots):
        m = []
        for t in pool[2 * j:2 * j + 2]:
            if t not in m:
                m.append(t)
        if 'tick' in m and 'cross' in m:
            m.remove('cross')
        slots[k]['marks'] = m
    # furniture on 7 slots: far 2, near 1, normal 4
    furn_slots = list(rng.permutation(far)[:2]) + list(rng.permutation(near)[:1]) + list(rng.permutation(nrm)[:4])
    fpool = FURN_TYPES * 2
    rng.shuffle(fpool)
    pos = 0
    for j, k in enumerate(furn_slots):
        take = 2 if j < 3 else 1
        f = []
        for t in fpool[pos:pos + take]:
            if t not in f:
                f.append(t)
        pos += take
        slots[k]['furniture'] = f
    # mixed content: 5 zh non-control slots
    zh_nc = [k for k in non_ctrl if slots[k]['lang'] == 'zh']
    for k in list(rng.permutation(zh_nc))[:5]:
        slots[k]['mixed'] = True
    # blur: 3 slots among near/normal non-control
    cand = [k for k in non_ctrl if slots[k]['scale'] != 'far']
    bl = list(rng.permutation(cand))[:3]
    for j, k in enumerate(bl):
        slots[k]['blur'] = ['motion', 'defocus', 'motion' if rng.random() < 0.5 else 'defocus'][j]
    # strong tilt: 4 non-control slots; also any plain normal without another kind
    for k in list(rng.permutation(non_ctrl))[:4]:
        slots[k]['strong_tilt'] = True
    for k in nrm:
        s = slots[k]
        if not (s['marks'] or s['furniture'] or s['mixed'] or s['blur'] != 'none' or s['strong_tilt']):
            s['strong_tilt'] = True
    # photo sizes
    sizes = ['1280x960'] * 12 + ['1600x1200'] * 4 + ['2000x1500'] * 4
    rng.shuffle(sizes)
    for k in range(20):
        w, h = map(int, sizes[k].split('x'))
        portrait = rng.random() < {'near': 0.3, 'far': 0.7}.get(slots[k]['scale'], 0.5)
        if portrait:
            w, h = h, w
        slots[k]['W'], slots[k]['H'] = w, h
        slots[k]['sensor'] = '4000x3000' if sizes[k] == '2000x1500' else sizes[k]
    # questions: least used first, random tie break; constrained slots first
    order = sorted(range(20), key=lambda k: (not slots[k]['mixed'], k))
    for k in order:
        s = slots[k]
        cands = [r for r in bank if r['lang'] == s['lang'] and (r['math'] or not s['mixed'])]
        if not cands:
            cands = [r for r in bank if r['lang'] == s['lang']] or bank
        pri = rng.random(len(cands))
        best = min(range(len(cands)), key=lambda j: (usage.get(cands[j]['id'], 0), pri[j]))
        q = cands[best]
        usage[q['id']] = usage.get(q['id'], 0) + 1
        s['qid'] = q['id']
        s['lang'] = q['lang']
        if s['mixed'] and not q['math']:
            s['mixed'] = False
    return slots


def make_plan(seed, bank, count):
    usage = {}
    plan = []
    for b in range((count + BLOCK - 1) // BLOCK):
        plan.extend(plan_block(seed, b, bank, usage))
    return plan[:count]


# ----------------------------------------------------------------------------
# page layout (units: mm)
def rect_hit(a, b, pad=0.0):
    return not (a[2] + pad <= b[0] or b[2] + pad <= a[0] or a[3] + pad <= b[1] or b[3] + pad <= a[1])


def rect_union(rs):
    return (min(r[0] for r in rs), min(r[1] for r in rs), max(r[2] for r in rs), max(r[3] for r in rs))


CIRCLED = '①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳'


def fmt_label(fmt, n):
    if fmt == 'circled':
        return CIRCLED[n - 1]
    return fmt.replace('{n}', str(n))


class Page:
    pass


def choose_neighbours(rng, bank, framed, n):
    pool = []
    for r in bank:
        if r['id'] == framed['id'] or r['lang'] != framed['lang'] or r['question'] == framed['question']:
            continue
        if difflib.SequenceMatcher(None, r['question'], framed['question']).ratio() >= 0.75:
            continue
        pool.append(r)
    w = np.array([3.0 if r['subject'] == framed['subject'] else 1.0 for r in pool])
    n = min(n, len(pool))
    idx = rng.choice(len(pool), n, replace=False, p=w / w.sum())
    return [pool[j] for j in idx]


def layout_page(rng, slot, framed, bank, target_char):
    lang = framed['lang']
    pg = Page()
    pg.lang = lang
    scale = slot['scale']
    pg.kind = str(rng.choice(['worksheet', 'exam', 'homework', 'textbook'], p=[0.3, 0.3, 0.2, 0.2]))
    if pg.kind == 'textbook' or (pg.kind == 'homework' and rng.random() < 0.5):
        pg.W, pg.H = 185.0, 260.0
    elif lang == 'en' and rng.random() < 0.3:
        pg.W, pg.H = 216.0, 279.0
    else:
        pg.W, pg.H = 210.0, 297.0
    holes = 'punch_holes' in slot['furniture']
    ml = float(rng.uniform(19, 25) if holes else rng.uniform(13, 24))
    mr = float(rng.uniform(12, 20))
    mt = float(rng.uniform(12, 20))
    mb = float(rng.uniform(14, 20))
    pg.margins = (ml, mt, mr, mb)
    if scale == 'far':
        cols = 2 if rng.random() < 0.65 else 1
    elif scale == 'near':
        cols = 2 if rng.random() < 0.8 else 1
    else:
        cols = 2 if rng.random() < 0.45 else 1
    cgap = float(rng.uniform(6, 11))
    TW = pg.W - ml - mr
    # font size: realistic preference, but the framed problem must fit the photo
    Wp = slot['W']
    max_block_em = Wp * 0.88 / 1.12 / target_char
    em_pref = float(rng.uniform(3.5, 4.6) if scale != 'near' else rng.uniform(3.8, 5.0))
    for _ in range(2):
        col_w = (TW - cgap * (cols - 1)) / cols
        em = max(em_pref, col_w / max_block_em)
        if em > 6.2 and cols == 1:
            cols = 2
            continue
        break
    em = min(em, 6.5)
    col_w = (TW - cgap * (cols - 1)) / cols
    pg.em = em
    pg.cols = cols
    pg.col_x = [ml + c * (col_w + cgap) for c in range(cols)]
    pg.col_w = col_w
    # style
    if lang == 'zh':
        fam = ZH_FAMILIES[int(rng.choice(len(ZH_FAMILIES), p=ZH_FAMILY_P))]
        latin = str(rng.choice(MIX_LATIN)) if slot['mixed'] else None
    else:
        fam = EN_FAMILIES[int(rng.choice(len(EN_FAMILIES), p=EN_FAMILY_P))]
        latin = None
    style = Style(lang, fam[0], fam[1], latin, 'glyph' if rng.random() < 0.6 else 'typeset',
                  'line' if rng.random() < 0.75 else 'glyph', float(rng.uniform(0.8, 1.4)))
    pg.style = style
    pg.ink = tuple(int(v) for v in rng.integers(18, 55, 1).repeat(3) + np.array([0, 0, rng.integers(0, 12)]))
    lh = float(rng.uniform(1.45, 1.85))
    if 'underline' in slot['marks'] or 'highlight' in slot['marks']:
        lh = max(lh, 1.6)
    pg.lh = lh
    # numbering
    if lang == 'zh':
        numfmt = str(rng.choice(['{n}.', '{n}．', '({n})', '（{n}）', '{n}、', '第{n}题', 'circled'],
                                p=[0.2, 0.15, 0.12, 0.15, 0.2, 0.1, 0.08]))
        note_fmt = str(rng.choice(['（{k}分）', '({k}分)', '']))
    else:
        numfmt = str(rng.choice(['{n}.', '({n})', 'Q{n}', '{n})', 'Q{n}.'], p=[0.35, 0.2, 0.2, 0.1, 0.15]))
        note_fmt = str(rng.choice(['({k} marks)', '[{k}]', '({k} pts)', '']))
    note_pos = str(rng.choice(['after_label', 'end', 'right'])) if lang == 'zh' else str(rng.choice(['end', 'right']))
    note_every = rng.random() < 0.5
    label_bold = rng.random() < 0.45
    hanging = rng.random() < 0.7
    label_gap = float(rng.uniform(0.25, 0.55))
    if 'circle_num' in slot['marks']:
        label_gap = max(label_gap, 0.75)
        hanging = True
    # problems
    if scale == 'far':
        nprob = int(rng.integers(12, 21))
    else:
        nprob = int(rng.integers(6, 15))
    neigh = choose_neighbours(rng, bank, framed, nprob - 1)
    nprob = len(neigh) + 1
    lo_f, hi_f = {'far': (0.3, 0.7), 'normal': (0.1, 0.9)}.get(scale, (0.0, 1.0))
    fpos = int(round(rng.uniform(lo_f, hi_f) * (nprob - 1)))
    probs = neigh[:fpos] + [framed] + neigh[fpos:]
    start_no = int(rng.choice([1, 1, 1, int(rng.integers(2, 12))]))
    if numfmt == 'circled' and start_no + nprob - 1 > 20:
        numfmt = '{n}、'
    ans_kinds = []
    for j in range(nprob):
        if scale == 'far':
            a = str(rng.choice(['none', 'blank', 'short', 'lines'], p=[0.45, 0.25, 0.2, 0.1]))
            h = float(rng.uniform(0.5, 2.0))
        else:
            a = str(rng.choice(['none', 'blank', 'short', 'lines'], p=[0.25, 0.35, 0.2, 0.2]))
            h = float(rng.uniform(1.5, 5.0))
        ans_kinds.append((a, h))
    if 'working_below' in slot['marks']:
        ans_kinds[fpos] = ('blank', float(rng.uniform(4.8, 7.5)))
    scores = [int(rng.choice([2, 3, 4, 5, 6, 8, 10])) for _ in range(nprob)]
    show_note = [bool(note_fmt) and (note_every or rng.random() < 0.3) for _ in range(nprob)]
    section_at = int(rng.integers(2, nprob)) if (nprob > 5 and rng.random() < 0.5) else -1
    heads = header_texts(rng, pg, framed)
    pg.heads = heads
    pg.start_no = start_no
    params = dict(numfmt=numfmt, note_fmt=note_fmt, note_pos=note_pos, label_bold=label_bold,
                  hanging=hanging, label_gap=label_gap)
    # layout with retries dropping leading problems until the framed one fits
    first = 0
    while True:
        ok = _flow(pg, probs[first:], fpos - first, start_no + first, ans_kinds[first:], scores[first:],
                   show_note[first:], section_at - first, params, rng_seed=int(rng.integers(1 << 30)))
        if ok or first >= fpos:
            break
        first += 1
    pg.params = params
    pg.numfmt = numfmt
    return pg


def header_texts(rng, pg, framed):
    g = str(framed.get('grade', '7'))
    subj = framed.get('subject', 'math')
    if pg.lang == 'zh':
        gz = GRADE_ZH.get(g, '七')
        gname = gz if gz.startswith('高') else gz + '年级'
        sz = SUBJ_ZH.get(subj, '数学')
        if pg.kind == 'exam':
            title = '%s%s%s' % (gname, sz, rng.choice(['单元测试卷', '期中测试卷', '月考试卷', '期末复习卷']))
        elif pg.kind == 'worksheet':
            title = '%s%s%s' % (gname, sz, rng.choice(['练习卷', '同步练习', '课堂小测', '专项训练']))
        elif pg.kind == 'homework':
            title = '%s%s（第%d天）' % (sz, rng.choice(['家庭作业', '课后作业', '寒假作业', '暑假作业']), rng.integers(1, 30))
        else:
            title = '练习%s' % rng.choice(['一', '二', '三', '四', '五', '六', '七', '八', '九', '十', '十二'])
        info = str(rng.choice(['班级：________  姓名：________  得分：______',
                               '姓名：__________  学号：______  班级：______',
                               '姓名______ 班级______ 日期______']))
        secs = ['一、' + str(rng.choice(['填空题', '计算题', '解答题', '基础练习', '选择与填空'])),
                '二、' + str(rng.choice(['解答题', '应用题', '综合题', '拓展提升']))]
        if rng.random() < 0.5:
            secs = [s + '（每小题%d分）' % rng.integers(2, 7) for s in secs]
    else:
        sname = subj.capitalize() if subj != 'chinese' else 'Language'
        if pg.kind == 'exam':
            title = 'Grade %s %s %s' % (g, sname, rng.choice(['Unit Test', 'Mid-term Review', 'Quiz', 'Practice Exam']))
        elif pg.kind == 'worksheet':
            title = '%s Worksheet %d' % (sname, rng.integers(1, 20))
        elif pg.kind == 'homework':
            title = 'Homework %d - %s' % (rng.integers(1, 30), sname)
        else:
            title = 'Exercise %d.%d' % (rng.integers(1, 12), rng.integers(1, 9))
        info = str(rng.choice(['Name: ______________  Class: ______  Date: ________',
                               'Name ________________   Score ______ / 50',
                               'Student: ______________   Teacher: __________']))
        secs = ['Part %s. %s' % (rng.choice(['A', 'I', '1']), rng.choice(['Short answer', 'Answer the questions', 'Warm-up', 'Practice'])),
                'Part %s. %s' % (rng.choice(['B', 'II', '2']), rng.choice(['Problems', 'Challenge', 'Further practice']))]
    return dict(title=title, info=info, secs=secs)


def _flow(pg, probs, fidx, start_no, ans_kinds, scores, show_note, section_at, params, rng_seed):
    rng = np.random.default_rng(rng_seed)
    st = pg.style
    em = pg.em
    ml, mt, mr, mb = pg.margins
    pg.items = []
    pg.occ = []
    pg.problems = []
    pg.bands = []
    y = mt
    # header
    heads = pg.heads
    if pg.kind == 'textbook':
        band_h = em * 2.0
        col = tuple(int(v) for v in rng.choice([[205, 225, 240], [215, 235, 215], [245, 225, 200]]))
        pg.bands.append((ml - 3, y, pg.W - mr + 3, y + band_h, col))
        tw = _text_items(pg, heads['title'], ml + em * 0.6, y + band_h * 0.72, 1.25, bold=True)
        pg.occ.append((ml, y, ml + em * 0.6 + tw, y + band_h))
        y += band_h + em * 1.0
    else:
        ts = 1.4 if pg.kind == 'exam' else 1.25
        tw = _measure(pg, heads['title'], ts, True)
        x = (pg.W - tw) / 2 if pg.kind in ('exam', 'worksheet') else ml
        _text_items(pg, heads['title'], x, y + em * ts * 0.9, ts, bold=True)
        pg.occ.append((x, y, x + tw, y + em * ts * 1.15))
        y += em * ts * 1.6
        iw = _measure(pg, heads['info'], 0.9, False)
        x = (pg.W - iw) / 2 if pg.kind == 'exam' else ml
        _text_items(pg, heads['info'], x, y + em * 0.85, 0.9)
        pg.occ.append((x, y, x + iw, y + em * 1.05))
        y += em * 1.6
        if rng.random() < 0.6:
            pg.items.append(('l', ml, y, pg.W - mr, y, 0.3))
            y += em * 0.6
    y_top = y
    col = 0
    bottom = pg.H - mb - (em * 1.5 if pg.kind == 'textbook' else 0)
    numfmt = params['numfmt']
    framed_placed = False
    cy = y_top
    for j, q in enumerate(probs):
        if j == 0 or j == section_at:
            sec = pg.heads['secs'][0 if j == 0 else 1]
            if cy + em * 2.0 > bottom:
                if col + 1 < pg.cols:
                    col += 1
                    cy = y_top
                else:
                    break
            x0 = pg.col_x[col]
            w = _text_items(pg, sec, x0, cy + em * 0.95, 1.0, bold=True, dry=True)
            if w > pg.col_w:
                sec = sec.split('（')[0]
            w = _text_items(pg, sec, x0, cy + em * 0.95, 1.0, bold=True)
            pg.occ.append((x0, cy, x0 + w, cy + em * 1.2))
            cy += em * 1.7
        res = _layout_problem(pg, q, start_no + j, col, cy, ans_kinds[j], scores[j], show_note[j], params,
                              dry=True)
        if cy + res['height'] > bottom:
            if col + 1 < pg.cols:
                col += 1
                cy = y_top
            else:
                break
        res = _layout_problem(pg, q, start_no + j, col, cy, ans_kinds[j], scores[j], show_note[j], params)
        res['framed'] = (j == fidx)
        res['index'] = j
        pg.problems.append(res)
        if j == fidx:
            framed_placed = True
        cy += res['height'] + em * float(rng.uniform(0.5, 1.3))
    if pg.cols == 2 and rng.random() < 0.4:
        xm = pg.col_x[1] - (pg.col_x[1] - pg.col_x[0] - pg.col_w) / 2
        pg.items.append(('l', xm, y_top, xm, bottom, 0.25))
    if pg.kind == 'textbook' or rng.random() < 0.4:
        pn = str(int(rng.integers(5, 180)))
        if rng.random() < 0.4:
            pn = '- %s -' % pn
        w = _measure(pg, pn, 0.85, False)
        _text_items(pg, pn, (pg.W - w) / 2, pg.H - mb * 0.45, 0.85)
    return framed_placed


def _measure(pg, text, size, bold):
    toks = tokenize(text, pg.style, bold=bold, src='h')
    return line_width(wrap(toks, 1e9, 1e9)[0]) * pg.em * size


def _text_items(pg, text, x, base, size, bold=False, dry=False):
    toks = tokenize(text, pg.style, bold=bold, src='h')
    line = wrap(toks, 1e9, 1e9)[0]
    if not dry:
        _emit_line(pg, line, x, base, size)
    return line_width(line) * pg.em * size


def _emit_line(pg, line, x, base, size=1.0):
    em = pg.em * size
    for tx, t in line:
        if t['kind'] == 'blank' and not t['pieces']:
            yb = base + em * 0.1
            pg.items.append(('l', x + tx * em, yb, x + (tx + t['w']) * em, yb, 0.22))
            continue
        px = x + tx * em
        for txt, fk, sc, dy, w in t['pieces']:
            pg.items.append(('t', px, base + dy * em, txt, fk, em * sc, w * em))
            px += w * em


def _layout_problem(pg, q, number, col, y, ans, score, show_note, params, dry=False):
    st = pg.style
    em = pg.em
    x0 = pg.col_x[col]
    colw_em = pg.col_w / em
    label = fmt_label(params['numfmt'], number)
    ltoks = tokenize(label, st, bold=params['label_bold'], src='label')
    lw = sum(t['w'] for t in ltoks) + (ltoks[-1]['sp'] if ltoks else 0)
    gap = params['label_gap']
    toks = tokenize(q['question'], st, src='q')
    note = params['note_fmt'].replace('{k}', str(score)) if show_note else ''
    ntoks = tokenize(note, st, src='note') if note else []
    pos = params['note_pos']
    if ntoks and pos == 'after_label':
        toks = ntoks + toks
    elif ntoks and pos == 'end':
        if st.lang == 'en' and toks:
            toks[-1]['sp'] += width_em(st.reg, ' ')
        toks = toks + ntoks
    tx = lw + gap
    if params['hanging']:
        lines = wrap(toks, colw_em - tx, colw_em - tx)
        xs = [x0 + tx * em] * len(lines)
    else:
        lines = wrap(toks, colw_em - tx, colw_em)
        xs = [x0 + tx * em] + [x0] * (len(lines) - 1)
    lh = pg.lh * em
    base0 = y + em * 0.92
    rec = dict(number=number, label=label, qid=q['id'], col=col, lines=[], rects=[])
    right_note = None
    if ntoks and pos == 'right':
        nw = sum(t['w'] for t in ntoks)
        last_end = line_width(lines[-1]) * em + xs[-1]
        if x0 + pg.col_w - nw * em - last_end > em * 1.0:
            right_note = (x0 + pg.col_w - nw * em, len(lines) - 1)
        else:
            right_note = (x0 + pg.col_w - nw * em, len(lines))
    nlines = len(lines) + (1 if right_note and right_note[1] == len(lines) else 0)
    text_h = em * 0.92 + (nlines - 1) * lh + em * 0.3
    kind, ah = ans
    if kind == 'none':
        ans_h = 0.0
    elif kind == 'blank':
        ans_h = ah * em
    elif kind == 'short':
        ans_h = 1.9 * em
    else:
        nl = 1 + int(ah // 2)
        ans_h = nl * 1.9 * em + 0.4 * em
    rec['height'] = text_h + ans_h
    if dry:
        return rec
    # emit label
    lbase = base0
    lline = wrap(ltoks, 1e9, 1e9)[0]
    _emit_line(pg, lline, x0, lbase)
    rec['label_rect'] = (x0, lbase - em * 0.9, x0 + line_width(lline) * em, lbase + em * 0.22)
    rec['rects'].append(rec['label_rect'])
    for k, line in enumerate(lines):
        b = base0 + k * lh
        _emit_line(pg, line, xs[k], b)
        spans = []
        for lx, t in line:
            if t['src'] == 'q':
                spans.append((xs[k] + lx * em, xs[k] + (lx + t['w']) * em))
        r = (xs[k], b - em * 0.92, xs[k] + line_width(line) * em, b + em * 0.25)
        rec['rects'].append(r)
        rec['lines'].append(dict(base=b, x0=r[0], x1=r[2], spans=spans))
    if right_note:
        nx, k = right_note
        b = base0 + k * lh
        nline = wrap(ntoks, 1e9, 1e9)[0]
        _emit_line(pg, nline, nx, b)
        rec['rects'].append((nx, b - em * 0.92, nx + line_width(nline) * em, b + em * 0.25))
    rec['bbox'] = rect_union(rec['rects'])
    pg.occ.extend(rec['rects'])
    ytxt = y + text_h
    tx0 = x0 + tx * em if params['hanging'] else x0
    x1 = x0 + pg.col_w
    if kind == 'short':
        lab = '答：' if st.lang == 'zh' else 'Answer:'
        b = ytxt + em * 1.3
        w = _text_items(pg, lab, tx0, b, 1.0)
        pg.occ.append((tx0, b - em * 0.9, tx0 + w, b + em * 0.2))
        pg.items.append(('l', tx0 + w + em * 0.3, b + em * 0.12, min(x1, tx0 + w + em * 12), b + em * 0.12, 0.2))
    elif kind == 'lines':
        nl = 1 + int(ah // 2)
        for k in range(nl):
            b = ytxt + em * (1.6 + 1.9 * k)
            pg.items.append(('l', tx0, b, x1, b, 0.18))
    rec['ans_rect'] = (tx0, ytxt, x1, ytxt + ans_h)
    rec['ans_kind'] = kind
    rec['text_x0'] = tx0
    return rec


# ----------------------------------------------------------------------------
# drawing helpers (canvas px)
def catmull(pts, n=8):
    pts = np.asarray(pts, dtype=np.float64)
    if len(pts) < 3:
        t = np.linspace(0, 1, n * max(1, len(pts) - 1) + 1)[:, None]
        return pts[0] * (1 - t) + pts[-1] * t
    p = np.vstack([pts[0], pts, pts[-1]])
    out = []
    for i in range(1, len(p) - 2):
        p0, p1, p2, p3 = p[i - 1], p[i], p[i + 1], p[i + 2]
        for t in np.linspace(0, 1, n, endpoint=False):
            t2, t3 = t * t, t * t * t
            out.append(0.5 * ((2 * p1) + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2
                              + (-p0 + 3 * p1 - 3 * p2 + p3) * t3))
    out.append(p[-2])
    return np.array(out)


def jitter_path(pts, rng, amp):
    pts = np.asarray(pts, dtype=np.float64)
    if len(pts) < 2:
        return pts
    if len(pts) < 24:
        seg = np.hypot(*np.diff(pts, axis=0).T)
        cum = np.concatenate([[0], np.cumsum(seg)])
        t = np.linspace(0, cum[-1], 24)
        pts = np.stack([np.interp(t, cum, pts[:, 0]), np.interp(t, cum, pts[:, 1])], axis=1)
    n = len(pts)
    walk = np.cumsum(rng.normal(0, 1, (n, 2)), axis=0)
    k = max(3, n // 6)
    ker = np.ones(k) / k
    sm = np.stack([np.convolve(walk[:, d], ker, mode='same') for d in range(2)], axis=1)
    sm -= np.linspace(sm[0], sm[-1], n)
    s = np.abs(sm).max() + 1e-9
    return pts + sm / s * amp + rng.normal(0, amp * 0.08, (n, 2))


def draw_poly(mask, pts, thick):
    pts = np.asarray(pts, dtype=np.float64)
    if len(pts) < 2:
        return
    p = np.round(pts * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(mask, [p], False, 1.0, thickness=max(1, int(round(thick))), lineType=cv2.LINE_AA, shift=4)


GLYPHS = {
    '0': [[(0.3, 0.0), (0.06, 0.2), (0.05, 0.7), (0.3, 1.0), (0.54, 0.75), (0.55, 0.25), (0.33, 0.0), (0.22, 0.06)]],
    '1': [[(0.12, 0.22), (0.32, 0.0), (0.3, 1.0)]],
    '2': [[(0.05, 0.28), (0.15, 0.07), (0.32, 0.0), (0.5, 0.08), (0.55, 0.28), (0.45, 0.5), (0.02, 1.0), (0.6, 0.97)]],
    '3': [[(0.05, 0.1), (0.3, 0.0), (0.52, 0.12), (0.5, 0.32), (0.25, 0.47), (0.52, 0.6), (0.55, 0.82), (0.35, 1.0), (0.05, 0.92)]],
    '4': [[(0.42, 1.0), (0.42, 0.0), (0.02, 0.68), (0.6, 0.68)]],
    '5': [[(0.55, 0.0), (0.1, 0.0), (0.07, 0.45), (0.3, 0.38), (0.52, 0.5), (0.55, 0.78), (0.35, 1.0), (0.05, 0.92)]],
    '6': [[(0.5, 0.05), (0.3, 0.0), (0.1, 0.25), (0.05, 0.7), (0.2, 1.0), (0.45, 0.95), (0.55, 0.72), (0.4, 0.52), (0.15, 0.58), (0.07, 0.7)]],
    '7': [[(0.02, 0.02), (0.58, 0.02), (0.25, 1.0)]],
    '8': [[(0.5, 0.15), (0.3, 0.0), (0.08, 0.15), (0.15, 0.38), (0.45, 0.58), (0.55, 0.82), (0.3, 1.0), (0.05, 0.82), (0.15, 0.58), (0.45, 0.38), (0.52, 0.15)]],
    '9': [[(0.5, 0.3), (0.35, 0.45), (0.1, 0.4), (0.05, 0.15), (0.3, 0.0), (0.52, 0.12), (0.5, 0.5), (0.42, 1.0)]],
    '+': [[(0.05, 0.55), (0.55, 0.55)], [(0.3, 0.3), (0.3, 0.8)]],
    '-': [[(0.08, 0.55), (0.5, 0.55)]],
    '=': [[(0.05, 0.45), (0.5, 0.45)], [(0.05, 0.68), (0.5, 0.68)]],
    'x': [[(0.05, 0.4), (0.5, 1.0)], [(0.5, 0.4), (0.05, 1.0)]],
    '(': [[(0.32, -0.05), (0.1, 0.3), (0.08, 0.7), (0.32, 1.05)]],
    ')': [[(0.05, -0.05), (0.27, 0.3), (0.29, 0.7), (0.05, 1.05)]],
    '/': [[(0.5, 0.0), (0.05, 1.0)]],
}


def hand_text(rng, s, x, y, h, slant):
    """Polyline strokes (page mm) of a handwritten string; (x, y) = top-left."""
    strokes = []
    cx = x
    for ch in s:
        if ch == ' ':
            cx += h * 0.45
            continue
        g = GLYPHS.get(ch)
        if g is None:
            continue
        sc = h * float(rng.uniform(0.88, 1.1))
        dy = float(rng.normal(0, h * 0.05))
        for st in g:
            pts = np.array(st, dtype=np.float64)
            pts = pts + rng.normal(0, 0.035, pts.shape)
            pts[:, 0] = pts[:, 0] + slant * (1.0 - pts[:, 1])
            curve = catmull(pts, 6) if len(pts) > 2 else catmull(pts, 6)
            strokes.append(np.stack([cx + curve[:, 0] * sc, y + dy + curve[:, 1] * sc], axis=1))
        cx += sc * float(rng.uniform(0.62, 0.8))
    return strokes, cx - x


def scrawl(rng, x, y, w, h):
    n = int(max(30, w / h * 18))
    t = np.linspace(0, 1, n)
    loops = float(rng.uniform(2.5, 4.5)) * w / h
    xs = x + t * w + np.sin(t * loops * 2 * np.pi) * h * 0.25
    ys = y + h * 0.5 - np.abs(np.cos(t * loops * np.pi)) * h * 0.45 * rng.uniform(0.6, 1.0, n) + np.sin(t * 7) * h * 0.05
    return [np.stack([xs, ys], axis=1)]


def working_lines(rng, lang):
    a, b = int(rng.integers(2, 10)), int(rng.integers(2, 20))
    c = int(rng.integers(2, 9))
    opts = [['%dx=%d' % (a, a * c), 'x=%d' % c],
            ['%d+%d=%d' % (a, b, a + b)],
            ['%dx%d=%d' % (a, c, a * c), '%d-%d=%d' % (a * c, b, a * c - b)],
            ['(%d+%d)x%d' % (a, b, c), '=%d' % ((a + b) * c)],
            ['%d/%d' % (b, a), '=%d' % (b // a)],
            ['%d' % (a * 10 + b), '-%d' % b, '=%d' % (a * 10)]]
    return opts[int(rng.integers(len(opts)))]


# ----------------------------------------------------------------------------
class Canvas:
    """Page region [rx0, ry0] .. at R px/mm."""

    def __init__(self, rx0, ry0, rx1, ry1, R):
        self.rx0, self.ry0, self.R = rx0, ry0, R
        self.w = int(math.ceil((rx1 - rx0) * R))
        self.h = int(math.ceil((ry1 - ry0) * R))

    def px(self, pts):
        pts = np.asarray(pts, dtype=np.float64)
        return np.stack([(pts[..., 0] - self.rx0) * self.R, (pts[..., 1] - self.ry0) * self.R], axis=-1)

    def mask(self):
        return np.zeros((self.h, self.w), np.float32)


def render_page(pg, cv, rng):
    R = cv.R
    paper = np.array(pg.paper, np.uint8)
    img = Image.new('RGB', (cv.w, cv.h), tuple(int(v) for v in paper))
    d = ImageDraw.Draw(img)
    for (x0, y0, x1, y1, col) in pg.bands:
        d.rectangle([(x0 - cv.rx0) * R, (y0 - cv.ry0) * R, (x1 - cv.rx0) * R, (y1 - cv.ry0) * R], fill=col)
    ink = pg.ink
    vx0, vy0 = cv.rx0, cv.ry0
    vx1, vy1 = cv.rx0 + cv.w / R, cv.ry0 + cv.h / R
    for it in pg.items:
        if it[0] == 't':
            _, x, b, txt, fk, size, w = it
            if x > vx1 or x + w < vx0 or b - size > vy1 or b + size * 0.4 < vy0:
                continue
            d.text(((x - vx0) * R, (b - vy0) * R), txt, font=font(fk, size * R), fill=ink, anchor='ls')
        else:
            _, x0, y0, x1, y1, lw = it
            if max(x0, x1) < vx0 or min(x0, x1) > vx1 or max(y0, y1) < vy0 or min(y0, y1) > vy1:
                continue
            d.line([((x0 - vx0) * R, (y0 - vy0) * R), ((x1 - vx0) * R, (y1 - vy0) * R)], fill=ink,
                   width=max(1, int(round(lw * R))))
    a = np.asarray(img, dtype=np.float32)
    # paper texture: low-frequency shading + fine grain
    lo = rng.normal(0, 1, (6, 6)).astype(np.float32)
    lo = cv2.resize(lo, (cv.w, cv.h), interpolation=cv2.INTER_CUBIC)
    grain = rng.standard_normal((cv.h, cv.w), dtype=np.float32) * 1.6
    a *= (1.0 + 0.012 * lo)[..., None]
    a += grain[..., None]
    return a


def _bbox(m):
    x, y, w, h = cv2.boundingRect((m > 1e-3).astype(np.uint8))
    return slice(y, y + h), slice(x, x + w)


def composite(a, m, col, alpha):
    ys, xs = _bbox(m)
    mm = (m[ys, xs] * alpha)[..., None]
    sub = a[ys, xs]
    sub *= (1 - mm)
    sub += mm * np.array(col, np.float32)


def composite_mul(a, m, col, alpha):
    ys, xs = _bbox(m)
    mm = (m[ys, xs] * alpha)[..., None]
    sub = a[ys, xs]
    sub *= 1 - mm * (1 - np.array(col, np.float32) / 255.0)


def find_free(pg, w, h, near, rng, framed_rects, pad_em=0.25, strict_all=True, tries=500, sigma_em=6.0,
              sigma_y_em=None):
    em = pg.em
    best = None
    sy = sigma_em if sigma_y_em is None else sigma_y_em
    for relax in ([True, False] if strict_all else [False]):
        c = rng.normal(0, 1, (tries, 2)) * np.array([sigma_em * em, sy * em]) + np.array(near)
        for cx, cy in c:
            r = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            if r[0] < 2 or r[1] < 2 or r[2] > pg.W - 2 or r[3] > pg.H - 2:
                continue
            if any(rect_hit(r, fr, em * 0.5) for fr in framed_rects):
                continue
            if relax and any(rect_hit(r, o, em * pad_em) for o in pg.occ):
                continue
            dist = math.hypot(cx - near[0], cy - near[1])
            if best is None or dist < best[0]:
                best = (dist, r)
        if best:
            return best[1]
    return None


PENS = {'blue': (35, 55, 150), 'black': (30, 30, 38), 'red': (185, 35, 35), 'pencil': (95, 95, 100)}
HILITE = {'yellow': (255, 240, 60), 'green': (150, 245, 120), 'pink': (255, 150, 200)}


def apply_marks(pg, cv, a, slot, rng, framed):
    em = pg.em
    R = cv.R
    done = []
    pen = str(rng.choice(['blue', 'black', 'red', 'pencil'], p=[0.45, 0.25, 0.1, 0.2]))
    pen_w = float(rng.uniform(0.35, 0.6)) if pen != 'pencil' else float(rng.uniform(0.4, 0.7))
    slant = float(rng.uniform(0.05, 0.3))
    frects = framed['rects']
    fb = framed['bbox']

    def ink(strokes, colname=None, width=None, alpha=None, jit=0.06):
        colname = colname or pen
        width = width or pen_w
        m = cv.mask()
        for s in strokes:
            s = jitter_path(s, rng, jit * em * 0.5)
            draw_poly(m, cv.px(s), width * R)
        if colname == 'pencil':
            g = rng.uniform(0.45, 1.0, m.shape).astype(np.float32)
            m = cv2.GaussianBlur(m * g, (0, 0), 0.6)
            composite(a, m, PENS['pencil'], alpha or 0.75)
        else:
            composite(a, m, PENS[colname], alpha or float(rng.uniform(0.8, 0.95)))

    for mk in slot['marks']:
        lr = framed['label_rect']
        if mk == 'circle_num':
            cx, cy = (lr[0] + lr[2]) / 2, (lr[1] + lr[3]) / 2 - em * 0.05
            rx = (lr[2] - lr[0]) / 2 + em * 0.3
            ry = (lr[3] - lr[1]) / 2 + em * 0.12
            th0 = float(rng.uniform(0, 2 * np.pi))
            t = np.linspace(th0, th0 + 2 * np.pi + rng.uniform(0.25, 0.7), 60)
            grow = 1 + np.linspace(-0.04, 0.1, 60)
            pts = np.stack([cx + rx * grow * np.cos(t), cy + ry * grow * np.sin(t)], axis=1)
            ink([pts], jit=0.05)
            done.append(mk)
        elif mk in ('tick', 'cross', 'star'):
            size = em * float(rng.uniform(1.3, 2.2))
            if rng.random() < 0.5 or mk == 'star':
                near = (lr[0] - size * 1.0, (lr[1] + lr[3]) / 2)
            else:
                last = framed['lines'][-1]
                near = (last['x1'] + size * 1.2, last['base'] - em * 0.4)
            r = find_free(pg, size, size, near, rng, frects, sigma_em=3.0)
            if r is None:
                continue
            pg.occ.append(r)
            x0, y0 = r[0], r[1]
            if mk == 'tick':
                pts = catmull([(x0, y0 + size * 0.55), (x0 + size * 0.3, y0 + size * 0.95),
                               (x0 + size * 0.6, y0 + size * 0.45), (x0 + size, y0)], 8)
                ink([pts], colname='red' if rng.random() < 0.4 else None, jit=0.03)
            elif mk == 'cross':
                ink([np.array([(x0, y0), (x0 + size, y0 + size)]), np.array([(x0 + size, y0), (x0, y0 + size)])],
                    colname='red' if rng.random() < 0.4 else None, jit=0.03)
            else:
                cxs, cys = x0 + size / 2, y0 + size / 2
                ang = -np.pi / 2 + np.arange(6) * 4 * np.pi / 5 + rng.normal(0, 0.05, 6)
                pts = np.stack([cxs + size / 2 * np.cos(ang), cys + size / 2 * np.sin(ang)], axis=1)
                ink([pts], jit=0.03)
            done.append(mk)
        elif mk == 'arrow':
            L = em * float(rng.uniform(2.2, 3.6))
            near = (lr[0] - L / 2 - em * 0.6, (lr[1] + lr[3]) / 2)
            r = find_free(pg, L, em * 1.0, near, rng, frects, sigma_em=2.5, sigma_y_em=0.25)
            if r is None:
                continue
            pg.occ.append(r)
            yy = (r[1] + r[3]) / 2
            tip = (r[2], yy)
            shaft = catmull([(r[0], yy + rng.normal(0, em * 0.2)), ((r[0] + r[2]) / 2, yy - em * 0.1), tip], 8)
            hl = em * 0.6
            h1 = np.array([(tip[0] - hl, tip[1] - hl * 0.6), tip])
            h2 = np.array([(tip[0] - hl, tip[1] + hl * 0.6), tip])
            if (r[0] + r[2]) / 2 > (lr[0] + lr[2]) / 2:
                shaft[:, 0] = 2 * (r[0] + r[2]) / 2 - shaft[:, 0]
                h1[:, 0] = 2 * (r[0] + r[2]) / 2 - h1[:, 0]
                h2[:, 0] = 2 * (r[0] + r[2]) / 2 - h2[:, 0]
            ink([shaft, h1, h2], jit=0.03)
            done.append(mk)
        elif mk in ('underline', 'highlight'):
            cand = [ln for ln in framed['lines'] if len(ln['spans']) >= 1]
            if not cand:
                continue
            ln = cand[int(rng.integers(len(cand)))]
            sp = ln['spans']
            i0 = int(rng.integers(0, len(sp)))
            i1 = min(len(sp) - 1, i0 + int(rng.integers(1, 8)))
            xa, xb = sp[i0][0], sp[i1][1]
            if xb - xa < em * 1.5:
                xb = min(ln['x1'], xa + em * 3)
            b = ln['base']
            if mk == 'underline':
                yy = b + em * float(rng.uniform(0.2, 0.27))
                n = 30
                xs = np.linspace(xa - em * 0.2, xb + em * 0.2, n)
                ys = yy + np.linspace(0, rng.normal(0, em * 0.06), n)
                col = 'pencil' if rng.random() < 0.6 else None
                ink([np.stack([xs, ys], axis=1)], colname=col, width=pen_w * 0.9, jit=0.03)
            else:
                colname = str(rng.choice(list(HILITE)))
                m = cv.mask()
                top, bot = b - em * 0.9, b + em * 0.18
                wob = rng.normal(0, em * 0.04, 4)
                poly = np.array([(xa - em * 0.2, top + wob[0]), (xb + em * 0.25, top + wob[1]),
                                 (xb + em * 0.15, bot + wob[2]), (xa - em * 0.1, bot + wob[3])])
                p = np.round(cv.px(poly) * 16).astype(np.int32)
                cv2.fillPoly(m, [p], 1.0, lineType=cv2.LINE_AA, shift=4)
                m = cv2.GaussianBlur(m, (0, 0), max(0.6, em * R * 0.05))
                streak = 0.85 + 0.15 * cv2.resize(rng.random((2, 12)).astype(np.float32), (cv.w, cv.h))
                composite_mul(a, m * streak, HILITE[colname], float(rng.uniform(0.55, 0.8)))
            done.append(mk)
        elif mk == 'crossout_neighbour':
            nb = [p for p in pg.problems if not p['framed'] and not rect_hit(p['bbox'], fb, em * 1.0)]
            if not nb:
                continue
            fi = framed['index']
            nb.sort(key=lambda p: abs(p['index'] - fi))
            p = nb[0] if rng.random() < 0.7 else nb[int(rng.integers(len(nb)))]
            bx = p['bbox']
            if rng.random() < 0.5:
                s = np.array([(bx[0], bx[1] - em * 0.1), (bx[2], bx[3] + em * 0.1)])
            else:
                s = np.array([(bx[0], bx[3] + em * 0.1), (bx[2], bx[1] - em * 0.1)])
            s = catmull(s, 30)
            ink([s], colname=None, width=pen_w * 1.1, jit=0.08)
            done.append(mk)
        elif mk == 'working_below':
            ar = framed['ans_rect']
            if ar[3] - ar[1] < em * 3.0:
                continue
            h = em * float(rng.uniform(0.9, 1.3))
            y = ar[1] + em * 0.4
            strokes = []
            for s in working_lines(rng, pg.lang):
                if y + h > ar[3] - em * 0.2:
                    break
                st, w = hand_text(rng, s, ar[0] + em * float(rng.uniform(0.2, 2.0)), y, h, slant)
                strokes += st
                y += h * 1.5
            if rng.random() < 0.4 and y + h < ar[3]:
                strokes += scrawl(rng, ar[0] + em, y, min(ar[2] - ar[0] - em, em * 6), h)
            ink(strokes, width=pen_w * 0.9, jit=0.02)
            done.append(mk)
        elif mk == 'working_margin':
            h = em * float(rng.uniform(0.8, 1.1))
            lines = working_lines(rng, pg.lang)
            lines = lines[:2]
            w = max(len(s) for s in lines) * h * 0.75 + em
            hh = len(lines) * h * 1.5 + em * 0.3
            near = (fb[2] + w / 2 + em, (fb[1] + fb[3]) / 2)
            if rng.random() < 0.4:
                near = (pg.W - pg.margins[2] / 2, (fb[1] + fb[3]) / 2)
            r = find_free(pg, w, hh, near, rng, frects, sigma_em=5.0)
            if r is None:
                continue
            pg.occ.append(r)
            strokes = []
            y = r[1] + em * 0.15
            for s in lines:
                st, _ = hand_text(rng, s, r[0] + em * 0.3, y, h, slant)
                strokes += st
                y += h * 1.5
            ink(strokes, width=pen_w * 0.85, jit=0.02)
            done.append(mk)
    return done


def apply_furniture_page(pg, cv, a, alpha, slot, rng, framed, record):
    em = pg.em
    R = cv.R
    fb = framed['bbox']
    fbx = (fb[0] - em, fb[1] - em, fb[2] + em, fb[3] + em)
    X = (np.arange(cv.w, dtype=np.float32) / R + cv.rx0)[None, :]
    Y = (np.arange(cv.h, dtype=np.float32) / R + cv.ry0)[:, None]
    for f in slot['furniture']:
        if f == 'crease':
            for _ in range(30):
                horiz = rng.random() < 0.6
                pos = float(rng.uniform(0.2, 0.8)) * (pg.H if horiz else pg.W)
                ang = float(rng.normal(0, 0.02))
                if horiz and (fbx[1] < pos < fbx[3]):
                    continue
                if not horiz and (fbx[0] < pos < fbx[2]):
                    continue
                break
            else:
                continue
            if horiz:
                d = (Y - pos) - (X - pg.W / 2) * ang
            else:
                d = (X - pos) - (Y - pg.H / 2) * ang
            wdt = float(rng.uniform(0.8, 2.0))
            amp = float(rng.uniform(0.06, 0.14))
            prof = (1 + amp * np.exp(-((d - wdt) / wdt) ** 2) - amp * 1.2 * np.exp(-((d + wdt * 0.7) / (wdt * 0.8)) ** 2)
                    - 0.03 * (1 / (1 + np.exp(-d / 8.0))))
            a *= prof[..., None]
            record.append('crease')
        elif f == 'punch_holes':
            ml = pg.margins[0]
            n = int(rng.choice([2, 3]))
            hx = ml * float(rng.uniform(0.38, 0.5))
            ys = pg.H / 2 + (np.array([-40, 40]) if n == 2 else np.array([-80, 0, 80])) * (pg.H / 297)
            rad = float(rng.uniform(2.6, 3.2))
            for hy in ys:
                x0 = max(0, int((hx - rad - 2 - cv.rx0) * R)); x1 = min(cv.w, int((hx + rad + 2 - cv.rx0) * R) + 1)
                y0 = max(0, int((hy - rad - 2 - cv.ry0) * R)); y1 = min(cv.h, int((hy + rad + 2 - cv.ry0) * R) + 1)
                if x1 <= x0 or y1 <= y0:
                    continue
                dd = np.sqrt((X[:, x0:x1] - hx) ** 2 + (Y[y0:y1] - hy) ** 2)
                alpha[y0:y1, x0:x1] *= np.clip((dd - rad) * R, 0, 1)
                rim = np.exp(-((dd - rad - 0.25) / 0.35) ** 2)
                a[y0:y1, x0:x1] *= (1 - 0.25 * rim)[..., None]
            record.append('punch_holes')
        elif f == 'staple':
            corner = (float(rng.uniform(7, 13)), float(rng.uniform(6, 11)))
            ang = math.radians(float(rng.uniform(-50, -10)) if rng.random() < 0.7 else float(rng.uniform(-5, 5)))
            L = float(rng.uniform(10, 13))
            p0 = np.array(corner)
            p1 = p0 + L * np.array([math.cos(ang), -math.sin(ang)])
            srect = (min(p0[0], p1[0]) - 2, min(p0[1], p1[1]) - 2, max(p0[0], p1[0]) + 2, max(p0[1], p1[1]) + 2)
            if rect_hit(srect, fb, 1.0):
                continue
            m = cv.mask()
            draw_poly(m, cv.px(np.array([p0, p1]) + 0.35), 0.9 * R)
            m = cv2.GaussianBlur(m, (0, 0), 0.4 * R)
            composite(a, m, (60, 58, 55), 0.45)
            m = cv.mask()
            draw_poly(m, cv.px(np.array([p0, p1])), 0.75 * R)
            composite(a, m, (150, 152, 158), 0.95)
            m = cv.mask()
            draw_poly(m, cv.px(np.array([p0, p1]) - 0.12), 0.25 * R)
            composite(a, m, (235, 235, 240), 0.8)
            record.append('staple')
        elif f == 'coffee_ring':
            rad = float(rng.uniform(22, 38))
            ok = None
            for _ in range(200):
                cx = float(rng.uniform(0, pg.W))
                cy = float(rng.uniform(0, pg.H))
                # ring must not cross the framed block (distance from rect to centre)
                corners = [(fbx[0], fbx[1]), (fbx[2], fbx[1]), (fbx[0], fbx[3]), (fbx[2], fbx[3])]
                dmax = max(math.hypot(px - cx, py - cy) for px, py in corners)
                ddx = max(fbx[0] - cx, 0, cx - fbx[2])
                ddy = max(fbx[1] - cy, 0, cy - fbx[3])
                dmin = math.hypot(ddx, ddy)
                if dmin > rad + 3 or dmax < rad - 4:
                    if dmax < rad - 4:
                        continue  # inside the ring: the faint fill would still tint it -> avoid
                    ok = (cx, cy)
                    break
            if ok is None:
                continue
            cx, cy = ok
            x0 = max(0, int((cx - rad - 4 - cv.rx0) * R)); x1 = min(cv.w, int((cx + rad + 4 - cv.rx0) * R) + 1)
            y0 = max(0, int((cy - rad - 4 - cv.ry0) * R)); y1 = min(cv.h, int((cy + rad + 4 - cv.ry0) * R) + 1)
            if x1 <= x0 or y1 <= y0:
                continue
            Xs, Ys = X[:, x0:x1], Y[y0:y1]
            dd = np.sqrt((Xs - cx) ** 2 + (Ys - cy) ** 2)
            th = np.arctan2(Ys - cy, Xs - cx)
            wv = 1.2 + 0.8 * np.sin(th * 3 + rng.uniform(0, 6)) + 0.5 * np.sin(th * 7 + rng.uniform(0, 6))
            gapc = float(rng.uniform(-np.pi, np.pi))
            arc = np.clip(1.4 - np.abs(np.angle(np.exp(1j * (th - gapc)))) * 0.0 - (np.cos(th - gapc) > 0.85) * 1.0, 0, 1)
            ring = np.exp(-((dd - rad) / (0.6 * wv)) ** 2) * arc
            fill = (dd < rad).astype(np.float32) * 0.12
            m = np.clip(ring * 0.9 + fill, 0, 1).astype(np.float32)
            m = cv2.GaussianBlur(m, (0, 0), 0.3 * R)
            composite_mul(a[y0:y1, x0:x1], m, (165, 115, 70), float(rng.uniform(0.35, 0.6)))
            record.append('coffee_ring')


# ----------------------------------------------------------------------------
def rot_matrix(pitch, yaw, roll):
    cx, sx = math.cos(pitch), math.sin(pitch)
    cy, sy = math.cos(yaw), math.sin(yaw)
    cz, sz = math.cos(roll), math.sin(roll)
    Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return Rz @ Rx @ Ry


def homography(c, s, rot, f, W, H):
    K = np.array([[f, 0, W / 2.0], [0, f, H / 2.0], [0, 0, 1.0]])
    M = np.column_stack([rot[:, 0] * s, rot[:, 1] * s, np.array([0, 0, f])])
    T = np.array([[1, 0, -c[0]], [0, 1, -c[1]], [0, 0, 1.0]])
    Hm = K @ M @ T
    return Hm / Hm[2, 2]


def proj(Hm, pts):
    pts = np.asarray(pts, dtype=np.float64)
    p = np.column_stack([pts, np.ones(len(pts))]) @ Hm.T
    return p[:, :2] / p[:, 2:3]


def rect_corners(r):
    return np.array([(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3])])


def make_desk(rng, W, H):
    kind = str(rng.choice(['wood', 'grey', 'white', 'dark', 'cloth']))
    base = {'wood': (150, 108, 70), 'grey': (125, 125, 130), 'white': (205, 203, 198),
            'dark': (58, 52, 50), 'cloth': (70, 98, 85)}[kind]
    lo = cv2.resize(rng.normal(0, 1, (5, 5)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    img = np.ones((H, W, 3), np.float32) * np.array(base, np.float32)
    img *= (1 + 0.08 * lo)[..., None]
    if kind == 'wood':
        yy = np.arange(H, dtype=np.float32)[:, None]
        xx = np.arange(W, dtype=np.float32)[None, :]
        ang = float(rng.uniform(0, np.pi))
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        g = np.sin(u / float(rng.uniform(6, 14)) + 3 * np.sin(v / 300.0) + lo * 2)
        img *= (1 + 0.07 * g)[..., None]
    img += rng.standard_normal((H, W, 1), dtype=np.float32) * 3
    return img, kind


def _frame(seed, i, att, slot, framed_q, bank):
    """Lay out the page and place the camera (attempt att)."""
    W, H = slot['W'], slot['H']
    scale = slot['scale']
    rL = np.random.default_rng([seed, i, 10 * att + 1])
    rC = np.random.default_rng([seed, i, 10 * att + 2])
    if scale == 'far':
        target = float(rC.uniform(14, 22))
    elif scale == 'near':
        target = float(rC.uniform(50, 90))
    else:
        target = float(rC.uniform(28, 45))
    pg = layout_page(rL, slot, framed_q, bank, target if scale != 'near' else max(50.0, target * 0.85))
    if scale == 'far':
        along = H if (H >= W) == (pg.H >= pg.W) else W
        desired = pg.em * float(rC.uniform(0.85, 1.25)) * along / pg.H
        target = float(min(22.0, max(14.0, desired)))
    pg.paper = tuple(int(v) for v in (rL.integers(236, 252) + np.array([rL.integers(0, 5), 0, -rL.integers(0, 8)])))
    framed = [p for p in pg.problems if p['framed']][0]
    em = pg.em
    # camera
    if slot['control']:
        tilt = float(rC.uniform(0, 6))
        roll_lim = 3
    elif slot['strong_tilt']:
        tilt = float(rC.uniform(12, 20))
        roll_lim = 8
    else:
        tilt = float(rC.uniform(0, 11))
        roll_lim = 8
    tdir = float(rC.uniform(0, 2 * np.pi))
    roll = float(rC.uniform(-roll_lim, roll_lim))
    f = max(W, H) * float(rC.uniform(0.75, 0.95))
    ln = framed['lines'][int(rC.integers(len(framed['lines'])))]
    cx_frac = float(rC.uniform(0.25, 0.75))
    cy0 = ln['base'] - em * 0.35
    fbb = rect_union(framed['rects'])
    bc = ((fbb[0] + fbb[2]) / 2, (fbb[1] + fbb[3]) / 2)
    margin = max(0.04 * min(W, H), 0.7 * target)
    ctrl = dict(shift=1.0, tilt=1.0, char=1.0)
    Hm = None
    for attempt in range(16):
        cxp = ln['x0'] + (ln['x1'] - ln['x0']) * (0.5 + (cx_frac - 0.5) * ctrl['shift'])
        c = (cxp, cy0)
        t = math.radians(tilt * ctrl['tilt'])
        rot = rot_matrix(t * math.cos(tdir), t * math.sin(tdir), math.radians(roll * ctrl['tilt']))
        ch = target * ctrl['char']
        s = ch / (em * np.linalg.norm(rot[:2, 1]))
        Hm = homography(c, s, rot, f, W, H)
        q = proj(Hm, rect_corners(fbb))
        ok = (q[:, 0].min() >= margin and q[:, 0].max() <= W - margin and q[:, 1].min() >= margin
              and q[:, 1].max() <= H - margin)
        if ok:
            break
        if attempt < 4:
            ctrl['shift'] *= 0.5
            # move the centre line towards the middle line of the block
            if len(framed['lines']) > 2:
                mid = framed['lines'][len(framed['lines']) // 2]
                ln = mid
                cy0 = ln['base'] - em * 0.35
        elif attempt < 8:
            ctrl['tilt'] *= 0.7
        else:
            ctrl['char'] *= 0.92
    tilt_eff = tilt * ctrl['tilt']
    roll_eff = roll * ctrl['tilt']
    # projected character height (em) at the photo centre
    pc = proj(Hm, np.array([c, (c[0], c[1] + em)]))
    char_px = float(np.hypot(*(pc[1] - pc[0])))
    q = proj(Hm, rect_corners(fbb))
    mpx = float(min(q[:, 0].min(), W - q[:, 0].max(), q[:, 1].min(), H - q[:, 1].max()))
    inview = 0
    for p in pg.problems:
        bb = p['bbox']
        cpt = proj(Hm, np.array([((bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2)]))[0]
        if 0 <= cpt[0] < W and 0 <= cpt[1] < H:
            inview += 1
    if scale == 'far':
        pen = max(0, 14 - char_px) + max(0, char_px - 22.5) + max(0, 8 - inview) + max(0, inview - 16)
    elif scale == 'near':
        pen = max(0, 49.5 - char_px)
    else:
        pen = max(0, 27.5 - char_px)
    return dict(pg=pg, framed=framed, em=em, Hm=Hm, c=c, char_px=char_px, target=target, tilt_eff=tilt_eff,
                roll_eff=roll_eff, mpx=mpx, inview=inview, fbb=fbb, pen=pen, att=att)


def render_photo(i, seed, slot, bank_by_id, bank):
    framed_q = bank_by_id[slot['qid']]
    W, H = slot['W'], slot['H']
    scale = slot['scale']
    rM = np.random.default_rng([seed, i, 3])
    rF = np.random.default_rng([seed, i, 4])
    rX = np.random.default_rng([seed, i, 5])
    rP = np.random.default_rng([seed, i, 6])
    rD = np.random.default_rng([seed, i, 7])
    best = None
    for att in range(5):
        fr = _frame(seed, i, att, slot, framed_q, bank)
        if best is None or fr['pen'] < best['pen']:
            best = fr
        if fr['pen'] <= 0:
            break
    fr = best
    pg, framed, em, Hm, c, char_px, target = fr['pg'], fr['framed'], fr['em'], fr['Hm'], fr['c'], fr['char_px'], fr['target']
    tilt_eff, roll_eff, mpx, inview, fbb = fr['tilt_eff'], fr['roll_eff'], fr['mpx'], fr['inview'], fr['fbb']
    # canvas region
    Hinv = np.linalg.inv(Hm)
    corners = np.array([(-20, -20), (W + 20, -20), (W + 20, H + 20), (-20, H + 20)], dtype=np.float64)
    pc4 = proj(Hinv, corners)
    rx0 = max(0.0, pc4[:, 0].min() - 3)
    ry0 = max(0.0, pc4[:, 1].min() - 3)
    rx1 = min(pg.W, pc4[:, 0].max() + 3)
    ry1 = min(pg.H, pc4[:, 1].max() + 3)
    # local scales at photo corners -> resolution
    smax = 0.0
    for (u, v) in [(0, 0), (W, 0), (0, H), (W, H), (W / 2, H / 2)]:
        pm = proj(Hinv, np.array([(u, v)]))[0]
        d = proj(Hm, np.array([pm, pm + (0, 1.0)]))
        smax = max(smax, float(np.hypot(*(d[1] - d[0]))))
    R = smax * 1.5
    area = (rx1 - rx0) * (ry1 - ry0) * R * R
    if area > 5.0e6:
        R *= math.sqrt(5.0e6 / area)
    cv = Canvas(rx0, ry0, rx1, ry1, R)
    a = render_page(pg, cv, rD)
    alpha = np.ones((cv.h, cv.w), np.float32)
    marks_done = apply_marks(pg, cv, a, slot, rM, framed) if slot['marks'] else []
    furn = []
    apply_furniture_page(pg, cv, a, alpha, slot, rF, framed, furn)
    # warp
    A = np.array([[1 / R, 0, rx0], [0, 1 / R, ry0], [0, 0, 1.0]])
    Hc = Hm @ A
    sig = max(0.0, 0.45 * R / max(smax, 1e-6) - 0.3)
    if sig > 0.2:
        a = cv2.GaussianBlur(a, (0, 0), sig)
    page = cv2.warpPerspective(a, Hc, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    msk = cv2.warpPerspective(alpha, Hc, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    desk, desk_kind = make_desk(rD, W, H)
    sh = cv2.GaussianBlur(msk, (0, 0), max(W, H) * 0.006)
    sh = cv2.warpAffine(sh, np.float32([[1, 0, max(W, H) * 0.003], [0, 1, max(W, H) * 0.004]]), (W, H))
    desk *= (1 - 0.35 * sh * (1 - msk))[..., None]
    img = desk * (1 - msk[..., None]) + page * msk[..., None]
    # framed block quad in photo coords (for shadow placement)
    fq = proj(Hm, rect_corners(fbb))
    # lighting
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xn = xx / W - 0.5
    yn = yy / H - 0.5
    ctl = slot['control']
    gx, gy = rX.uniform(-0.25, 0.25, 2) * (0.5 if ctl else 1.0)
    light = float(rX.uniform(0.82, 1.04)) * (1 + gx * xn + gy * yn)
    vig = float(rX.uniform(0.1, 0.35))
    light = light * (1 - vig * (xn ** 2 + yn ** 2) * 1.6)
    blob = cv2.resize(rX.normal(0, 1, (4, 4)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    light = light * (1 + (0.02 if ctl else 0.05) * blob)
    light_desc = 'grad(%.2f,%.2f) vig %.2f' % (gx, gy, vig)
    if 'phone_shadow' in slot['furniture']:
        # choose the photo edge farthest from the framed block
        gaps = {'top': fq[:, 1].min(), 'bottom': H - fq[:, 1].max(), 'left': fq[:, 0].min(),
                'right': W - fq[:, 0].max()}
        edge = max(gaps, key=gaps.get)
        room = gaps[edge]
        soft = max(W, H) * float(rX.uniform(0.025, 0.045))
        depth = max(0.0, room - 2.2 * soft) * float(rX.uniform(0.55, 0.95))
        if depth > 20:
            dark = float(rX.uniform(0.5, 0.75))
            m = np.zeros((H, W), np.float32)
            along = W if edge in ('top', 'bottom') else H
            a0 = along * float(rX.uniform(-0.3, 0.25))
            a1 = along * float(rX.uniform(0.6, 1.3))
            if edge == 'top':
                cv2.rectangle(m, (int(a0), -50), (int(a1), int(depth)), 1.0, -1)
            elif edge == 'bottom':
                cv2.rectangle(m, (int(a0), int(H - depth)), (int(a1), H + 50), 1.0, -1)
            elif edge == 'left':
                cv2.rectangle(m, (-50, int(a0)), (int(depth), int(a1)), 1.0, -1)
            else:
                cv2.rectangle(m, (int(W - depth), int(a0)), (W + 50, int(a1)), 1.0, -1)
            m = cv2.GaussianBlur(m, (0, 0), soft)
            light = light * (1 - (1 - dark) * m)
            furn.append('phone_shadow')
    img *= light[..., None]
    cast = np.array([1 + rX.normal(0, 0.03), 1.0, 1 + rX.normal(0, 0.04)], np.float32)
    img *= cast
    # optics
    blur = slot['blur']
    blur_desc = 'none'
    if blur == 'motion':
        L = int(rX.integers(4, 8))
        ang = float(rX.uniform(0, 180))
        k = np.zeros((L * 2 + 1, L * 2 + 1), np.float32)
        cv2.line(k, (L - int(round(L * math.cos(math.radians(ang)) / 2)), L - int(round(L * math.sin(math.radians(ang)) / 2))),
                 (L + int(round(L * math.cos(math.radians(ang)) / 2)), L + int(round(L * math.sin(math.radians(ang)) / 2))),
                 1.0, 1, cv2.LINE_AA)
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        blur_desc = 'motion %dpx@%d' % (L, ang)
    elif blur == 'defocus':
        r = float(rX.uniform(1.3, 2.4))
        n = int(math.ceil(r)) * 2 + 3
        k = np.zeros((n, n), np.float32)
        cv2.circle(k, (n // 2 * 16, n // 2 * 16), int(r * 16), 1.0, -1, cv2.LINE_AA, 4)
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        blur_desc = 'defocus r%.1f' % r
    else:
        s0 = float(rX.uniform(0.3, 0.6))
        img = cv2.GaussianBlur(img, (0, 0), s0)
    nsig = float(rX.uniform(1.5, 3.0) if ctl else rX.uniform(2.0, 5.0))
    lum = rX.standard_normal((H, W, 1), dtype=np.float32) * nsig
    chroma = cv2.resize(rX.standard_normal((H // 2, W // 2, 3), dtype=np.float32) * (nsig * 0.5), (W, H),
                        interpolation=cv2.INTER_LINEAR)
    img = img + lum + chroma
    if rX.random() < 0.5:
        bl = cv2.GaussianBlur(img, (0, 0), 1.2)
        img = img + float(rX.uniform(0.2, 0.5)) * (img - bl)
    out = np.clip(img, 0, 255).astype(np.uint8)
    qual = int(rX.integers(78, 93) if ctl else rX.integers(60, 93))
    kinds = [scale] if scale != 'normal' else []
    if slot['control']:
        kinds = ['control']
    if marks_done:
        kinds.append('marks')
    if furn:
        kinds.append('furniture')
    if slot['mixed']:
        kinds.append('mixed')
    if blur != 'none' or tilt_eff >= 12:
        kinds.append('capture')
    row = dict(qid='t%03d' % i, bank_id=framed_q['id'], lang=framed_q['lang'], subject=framed_q['subject'],
               kinds=';'.join(kinds), scale=scale, control=int(slot['control']),
               photo_w=W, photo_h=H, sensor=slot['sensor'], char_px='%.1f' % char_px,
               target_char_px='%.1f' % target, framed_lines=len(framed['lines']),
               framed_number=framed['label'], number_style=pg.numfmt, page_kind=pg.kind,
               columns=pg.cols, em_mm='%.2f' % em, problems_on_page=len(pg.problems), problems_in_view=inview,
               font=pg.style.reg, latin_font=pg.style.latin or '', subsup=pg.style.subsup,
               marks=';'.join(marks_done), furniture=';'.join(furn), tilt_deg='%.1f' % tilt_eff,
               roll_deg='%.1f' % roll_eff, blur=blur_desc, noise_sigma='%.1f' % nsig, jpeg_q=qual,
               light=light_desc, desk=desk_kind, framed_margin_px='%.0f' % mpx,
               layout_attempt=fr['att'])
    return out, qual, row


def _worker(args):
    i, seed, slot, bank_path, outdir = args
    cv2.setNumThreads(1)
    bank = load_bank(bank_path)
    by_id = {r['id']: r for r in bank}
    if len(_font_cache) > 400:
        _font_cache.clear()
    img, qual, row = render_photo(i, seed, slot, by_id, bank)
    Image.fromarray(img).save(os.path.join(outdir, 't%03d.jpg' % i), 'JPEG', quality=qual)
    return i, row


CASE_FIELDS = ['qid', 'bank_id', 'lang', 'subject', 'kinds', 'scale', 'control', 'photo_w', 'photo_h', 'sensor',
               'char_px', 'target_char_px', 'framed_lines', 'framed_number', 'number_style', 'page_kind', 'columns',
               'em_mm', 'problems_on_page', 'problems_in_view', 'font', 'latin_font', 'subsup', 'marks',
               'furniture', 'tilt_deg', 'roll_deg', 'blur', 'noise_sigma', 'jpeg_q', 'light', 'desk',
               'framed_margin_px', 'layout_attempt']


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True)
    ap.add_argument('out')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=271)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--only', default='')
    args = ap.parse_args(argv)
    bank = load_bank(args.bank)
    by_id = {r['id']: r for r in bank}
    os.makedirs(args.out, exist_ok=True)
    plan = make_plan(args.seed, bank, args.count)
    todo = list(range(1, args.count + 1))
    if args.only:
        todo = sorted({int(x) for x in args.only.split(',') if x.strip()})
        todo = [i for i in todo if 1 <= i <= args.count]
    tasks = [(i, args.seed, plan[i - 1], os.path.abspath(args.bank), args.out) for i in todo]
    rows = {}
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as ex:
            for i, row in ex.map(_worker, tasks, chunksize=1):
                rows[i] = row
    else:
        for t in tasks:
            i, row = _worker(t)
            rows[i] = row
    # truth / queries from the plan (complete regardless of --only)
    with open(os.path.join(args.out, 'truth.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for i in range(1, args.count + 1):
            w.writerow(['t%03d' % i, by_id[plan[i - 1]['qid']]['question']])
    with open(os.path.join(args.out, 'queries.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for i in range(1, args.count + 1):
            q = by_id[plan[i - 1]['qid']]
            w.writerow(['t%03d' % i, q['question'], q['id'], 'exact'])
    cpath = os.path.join(args.out, 'cases.csv')
    old = {}
    if args.only and os.path.exists(cpath):
        with open(cpath, encoding='utf-8', newline='') as f:
            for r in csv.DictReader(f):
                old[r['qid']] = r
    allrows = {}
    for k, r in old.items():
        n = int(k[1:])
        if n <= args.count:
            allrows[n] = r
    allrows.update(rows)
    with open(cpath, 'w', encoding='utf-8', newline='') as f:
        w = csv.DictWriter(f, fieldnames=CASE_FIELDS)
        w.writeheader()
        for n in sorted(allrows):
            w.writerow({k: allrows[n].get(k, '') for k in CASE_FIELDS})
    print('wrote %d photos to %s' % (len(rows), args.out))


if __name__ == '__main__':
    main()
