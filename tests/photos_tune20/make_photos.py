#!/usr/bin/env python3
"""Phone-photo generator for the "weak problem boundaries" test set (photos_tune20).

Every photo shows part of a printed page (worksheet, exam paper, homework sheet or
textbook exercise list) lying on a desk.  Exactly one bank question is "framed":
see README.md, section "Which problem is framed", for the rule enforced here.

Usage:
    make_photos.py --bank BANK OUT_DIR --count 120 --seed 211 [--jobs 2] [--only 3,17]

Photo i draws every random number from
    np.random.default_rng(np.random.SeedSequence([seed, i]))
so a run is reproducible byte for byte and --only remakes the same photos.
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

import cv2
import numpy as np
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

PT = 300.0 / 72.0            # page raster: 300 dpi, pixels per typographic point
MM = 300.0 / 25.4            # pixels per millimetre
ASC, DESC = 0.88, 0.22       # nominal line box, in em, above / below the baseline

# claim rule (all lengths in stored-image pixels, em = target font size there)
RULE_INSET_EM, RULE_INSET_MIN = 0.4, 12.0
RULE_DT_MAX_EM = 1.2
RULE_MARGIN_EM = 0.6
RULE_RATIO = 2.0
RULE_OCC_DILATE_EM = 0.25

NOTO = '/usr/share/fonts/opentype/noto/'
LIB = '/usr/share/fonts/truetype/liberation/'
DJV = '/usr/share/fonts/truetype/dejavu/'
CJK_FACES = {
    'Noto Serif CJK SC': (NOTO + 'NotoSerifCJK-Regular.ttc', NOTO + 'NotoSerifCJK-Bold.ttc', 2),
    'Noto Sans CJK SC': (NOTO + 'NotoSansCJK-Regular.ttc', NOTO + 'NotoSansCJK-Bold.ttc', 2),
}
LATIN_FACES = {
    'Liberation Serif': (LIB + 'LiberationSerif-Regular.ttf', LIB + 'LiberationSerif-Bold.ttf'),
    'Liberation Sans': (LIB + 'LiberationSans-Regular.ttf', LIB + 'LiberationSans-Bold.ttf'),
    'Liberation Sans Narrow': (LIB + 'LiberationSansNarrow-Regular.ttf', LIB + 'LiberationSansNarrow-Bold.ttf'),
    'DejaVu Serif': (DJV + 'DejaVuSerif.ttf', DJV + 'DejaVuSerif-Bold.ttf'),
    'DejaVu Sans': (DJV + 'DejaVuSans.ttf', DJV + 'DejaVuSans-Bold.ttf'),
    'DejaVu Sans Condensed': (DJV + 'DejaVuSansCondensed.ttf', DJV + 'DejaVuSansCondensed-Bold.ttf'),
    'DejaVu Serif Condensed': (DJV + 'DejaVuSerifCondensed.ttf', DJV + 'DejaVuSerifCondensed-Bold.ttf'),
}
FALLBACK = DJV + 'DejaVuSans.ttf'

SUP = dict(zip('⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻ⁿ', '0123456789+-n'))
SUB = dict(zip('₀₁₂₃₄₅₆₇₈₉₊₋ₙₓ', '0123456789+-nx'))
CLOSE = set('，。、；：？！）》」』】”’,.;:?!)]}%…·')
OPEN = set('（《「『【“‘([{')


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF
            or 0x3000 <= o <= 0x303F or 0x2460 <= o <= 0x24FF or ch in '“”‘’…—')


# ----------------------------------------------------------------------------- fonts
class Face:
    _cache = {}

    def __init__(self, path, index=0):
        self.path, self.index = path, index
        self.cmap = TTFont(path, fontNumber=index, lazy=True).getBestCmap() if path.endswith('.ttc') \
            else TTFont(path, lazy=True).getBestCmap()
        self.fonts = {}

    @classmethod
    def get(cls, path, index=0):
        k = (path, index)
        if k not in cls._cache:
            cls._cache[k] = Face(path, index)
        return cls._cache[k]

    def font(self, px):
        px = max(6, int(round(px)))
        f = self.fonts.get(px)
        if f is None:
            f = ImageFont.truetype(self.path, px, index=self.index)
            self.fonts[px] = f
        return f

    def has(self, ch):
        return ord(ch) in self.cmap


class Style:
    """A text style: CJK face + Latin face + size (page px) + colour."""

    def __init__(self, cjk_name, latin_name, size, bold=False, color=(30, 30, 30), blank_em=3.6):
        cp = CJK_FACES[cjk_name]
        self.cjk = Face.get(cp[1] if bold else cp[0], cp[2])
        if latin_name == 'same':
            self.latin = self.cjk
        else:
            lp = LATIN_FACES[latin_name]
            self.latin = Face.get(lp[1] if bold else lp[0])
        self.fb = Face.get(FALLBACK)
        self.size, self.color, self.blank_em, self.bold = size, color, blank_em, bold
        self.cjk_name, self.latin_name = cjk_name, latin_name

    def derive(self, size=None, color=None, bold=None):
        s = Style.__new__(Style)
        s.__dict__.update(self.__dict__)
        if size is not None:
            s.size = size
        if color is not None:
            s.color = color
        if bold is not None and bold != self.bold:
            cp = CJK_FACES[self.cjk_name]
            s.cjk = Face.get(cp[1] if bold else cp[0], cp[2])
            if self.latin_name == 'same':
                s.latin = s.cjk
            else:
                lp = LATIN_FACES[self.latin_name]
                s.latin = Face.get(lp[1] if bold else lp[0])
            s.bold = bold
        return s

    def face_for(self, ch):
        if is_cjk(ch):
            return self.cjk
        if self.latin.has(ch):
            return self.latin
        if self.fb.has(ch):
            return self.fb
        return self.cjk

    def space_w(self):
        return self.latin.font(self.size).getlength(' ')


def make_pieces(text, st):
    """Split a no-space run into drawable pieces: [kind, text, font, dy, width]."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == '_':
            j = i
            while j < len(text) and text[j] == '_':
                j += 1
            out.append(['b', text[i:j], None, 0.0, st.size * (st.blank_em if j - i >= 3 else 0.6 * (j - i)), None])
            i = j
            continue
        if ch in SUP:
            c, scale, dy = SUP[ch], 0.62, -0.38
        elif ch in SUB:
            c, scale, dy = SUB[ch], 0.62, 0.17
        else:
            c, scale, dy = ch, 1.0, 0.0
        face = st.face_for(c)
        key = (face.path, face.index, scale, dy)
        if out and out[-1][0] == 'g' and out[-1][5] == key:
            out[-1][1] += c
        else:
            out.append(['g', c, face.font(st.size * scale), dy * st.size, 0.0, key])
        i += 1
    for p in out:
        if p[0] == 'g':
            p[4] = p[2].getlength(p[1])
    return out


def pieces_width(ps):
    return sum(p[4] for p in ps)


def to_boxes(text, st):
    """Unbreakable boxes: English words whole, one CJK char each, closing
    punctuation glued to what precedes it, opening punctuation to what follows."""
    units = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in ' \t\n':
            units.append(None)
            i += 1
            continue
        if is_cjk(ch):
            units.append(ch)
            i += 1
            continue
        j = i
        while j < len(text) and text[j] not in ' \t\n' and not is_cjk(text[j]):
            j += 1
        units.append(text[i:j])
        i = j
    boxes = []            # [text, space_before]
    pending = False
    for u in units:
        if u is None:
            pending = True
            continue
        if boxes and (u[0] in CLOSE or boxes[-1][0][-1] in OPEN):
            boxes[-1][0] += (' ' if pending else '') + u
        else:
            boxes.append([u, pending])
        pending = False
    out = []
    for t, sp in boxes:
        # a glued box may contain a space (rare); split pieces around it
        parts = t.split(' ')
        ps = []
        for k, part in enumerate(parts):
            if k:
                ps.append(['s', ' ', None, 0.0, st.space_w(), None])
            ps.extend(make_pieces(part, st))
        out.append({'t': t, 'sp': sp, 'ps': ps, 'w': pieces_width(ps)})
    return out


def layout_lines(text, st, x_first, x_cont, right, base0, pitch, justify=False):
    """Greedy line breaking.  Returns list of lines {x0,x1,base,items:[(x,piece)]}."""
    boxes = to_boxes(text, st)
    sw = st.space_w()
    lines = [[]]
    cur, avail = 0.0, right - x_first
    for b in boxes:
        gap = sw if (b['sp'] and lines[-1]) else 0.0
        if lines[-1] and cur + gap + b['w'] > avail + 0.01:
            lines.append([])
            cur, avail, gap = 0.0, right - x_cont, 0.0
        lines[-1].append((b, gap))
        cur += gap + b['w']
    out = []
    for li, line in enumerate(lines):
        x0 = x_first if li == 0 else x_cont
        nat = sum(g + b['w'] for b, g in line)
        extra = 0.0
        weights = []
        if justify and li < len(lines) - 1 and len(line) > 1:
            avail = right - x0
            if nat > 0.7 * avail:
                extra = avail - nat
                weights = [0.0] + [(3.0 if g > 0 else 1.0) for b, g in line[1:]]
        tw = sum(weights) if weights else 1.0
        x = x0
        items = []
        base = base0 + li * pitch
        for k, (b, g) in enumerate(line):
            x += g + (extra * weights[k] / tw if weights else 0.0)
            for p in b['ps']:
                items.append((x, p))
                x += p[4]
        out.append({'x0': x0, 'x1': x, 'base': base, 'items': items, 'size': st.size})
    return out


def line_rect(ln, size=None):
    s = size or ln['size']
    return (ln['x0'], ln['base'] - ASC * s, ln['x1'], ln['base'] + DESC * s)


def single_line(text, st, x, base):
    return layout_lines(text, st, x, x, 1e9, base, 0)[0]


# ----------------------------------------------------------------------------- content
ZH_TITLES = ['七年级数学期中测试卷', '八年级物理单元检测', '课时作业（十二）', '综合练习（二）', '九年级化学周测',
             '初二生物课堂练习', '寒假作业 第 5 天', '地理 随堂小测', '历史 基础知识过关', '语文 课后巩固练习',
             '高一数学 午练', '阶段性学业质量检测']
EN_TITLES = ['Homework Sheet - Week 6', 'Grade 8 Science Review', 'Unit 3 Worksheet', 'Practice Test B',
             'Daily Warm-up Questions', 'Revision Worksheet', 'Quiz 4', 'Mixed Review']
ZH_NAME = ['姓名：________  班级：________  学号：______', '班级________ 姓名________ 得分________',
           '姓名：__________ 日期：__________']
EN_NAME = ['Name: ____________  Class: ______  Date: ________', 'Name ______________ Score ______']
ZH_SECT = ['一、选择题', '二、填空题', '三、解答题', '四、计算题', '五、简答题', '一、基础题', '二、提高题', '三、拓展题']
ZH_INSTR = ['（每小题 3 分，共 15 分）', '（本大题共 6 小题，每小题 4 分）', '请将答案写在横线上。',
            '在每小题给出的四个选项中，只有一项是符合题目要求的。', '解答应写出文字说明或演算步骤。', '（每空 2 分）']
EN_SECT = ['Part A  Multiple choice', 'Part B  Short answer', 'Section 1', 'Section 2', 'Warm-up', 'Practice',
           'Exercise 3.2', 'Challenge']
EN_INSTR = ['Choose the best answer.', 'Answer the following questions. Show your working.',
            'Write your answers on the lines provided.', 'Answer in complete sentences.']
TB_SECT_ZH = ['练习', '习题 2.1', '复习题', '练习 3', '习题 4.2', '课后练习']
TB_SECT_EN = ['Exercises 4.2', 'Exercises', 'Practice 5', 'Review Exercises']


def zh_majority(qs):
    n = sum(1 for q in qs if sum(is_cjk(c) for c in q) > 0.2 * len(q))
    return n * 2 >= len(qs)


def invent_options(rng, qrow):
    ans = qrow.get('answer', '') or ''
    nums = re.findall(r'\d+(?:\.\d+)?', ans)
    opts = []
    if nums and rng.random() < 0.8:
        v = float(nums[int(rng.integers(len(nums)))])
        cands = [v, v + 1, v * 2, v / 2 if v else 3, v + 10, max(v - 1, 0.5), v * 3, v + 2]
        for c in cands:
            s = ('%d' % c) if abs(c - round(c)) < 1e-9 else ('%.2f' % c).rstrip('0').rstrip('.')
            if s not in opts:
                opts.append(s)
            if len(opts) == 4:
                break
    if len(opts) < 4:
        opts = []
        if sum(is_cjk(c) for c in ans) > 5:
            frags = [f for f in re.split(r'[，。；、：（）()\s$“”《》=＝→,.:;]+', ans) if 2 <= len(f) <= 7]
        else:
            frags = [w for w in re.findall(r'[A-Za-z]{3,12}', ans)]
        frags = list(dict.fromkeys(frags))
        while len(frags) < 4:
            frags.append(['甲', '乙', '丙', '丁', 'none', 'both'][len(frags)])
        idx = rng.choice(len(frags), 4, replace=False)
        opts = [frags[int(k)] for k in idx]
    order = rng.permutation(4)
    return [opts[int(k)] for k in order]


# ----------------------------------------------------------------------------- page
class Page:
    def __init__(self):
        self.ops = []          # drawing ops
        self.problems = []     # problem dicts
        self.texts = []        # non-problem text rects: {'kind','rect','text'}


def label_string(rng_fmt, n, zh):
    if rng_fmt == 'circ' and n <= 20:
        return chr(0x2460 + n - 1)
    if zh:
        return {'dot': '%d.', 'fdot': '%d．', 'par': '（%d）', 'dun': '%d、', 'circ': '%d.'}[rng_fmt] % n
    return {'dot': '%d.', 'fdot': '%d)', 'par': '(%d)', 'dun': 'Q%d.', 'circ': '%d.'}[rng_fmt] % n


def build_page(rng, plan, bank, twins):
    pg = Page()
    kind = plan['page']
    if kind == 'textbook' and rng.random() < 0.6:
        pw, ph = int(176 * MM), int(250 * MM)
    else:
        pw, ph = int(210 * MM), int(297 * MM)
    pg.w, pg.h = pw, ph
    size_pt = float(rng.uniform(10.0, 12.5)) if plan['cols'] == 2 else float(rng.uniform(10.5, 13.5))
    size = size_pt * PT
    cjk_name = str(rng.choice(list(CJK_FACES), p=[0.65, 0.35]))
    latin_name = str(rng.choice(['same'] + list(LATIN_FACES)))
    ink = int(rng.integers(15, 60))
    blank_em = float(rng.uniform(3.0, 5.0))
    st = Style(cjk_name, latin_name, size, color=(ink, ink, ink + int(rng.integers(0, 10))), blank_em=blank_em)
    pitch = size * float(rng.uniform(1.38, 1.85))
    pg.size, pg.pitch, pg.size_pt = size, pitch, size_pt
    pg.fonts = {'cjk': cjk_name, 'latin': (cjk_name if latin_name == 'same' else latin_name), 'size_pt': round(size_pt, 2),
                'line_pitch_em': round(pitch / size, 3)}
    accent = [(30, 90, 160), (20, 120, 110), (170, 60, 40), (110, 60, 150)][int(rng.integers(4))]

    ml = float(rng.uniform(16, 26)) * MM
    mr = float(rng.uniform(14, 24)) * MM
    if plan['cols'] == 1 and rng.random() < 0.35:
        ml += float(rng.uniform(10, 35)) * MM         # narrow single column (wide left margin)
    if plan['lstyle'] == 'margin':
        ml = max(ml, 22 * MM)
    mt = float(rng.uniform(14, 24)) * MM
    mb = float(rng.uniform(16, 24)) * MM
    ncols = plan['cols']
    gut_name = None
    if ncols == 2:
        gut_name = plan['gutter']
        gut = size * {'narrow': float(rng.uniform(1.0, 2.0)), 'medium': float(rng.uniform(2.5, 4.5)),
                      'wide': float(rng.uniform(5.5, 9.0))}[gut_name]
        if plan['lstyle'] == 'margin':
            gut = max(gut, size * 4.5)
            gut_name = 'wide' if gut >= 5.5 * size else 'medium'
        colw = (pw - ml - mr - gut) / 2
        cols = [(ml, ml + colw), (ml + colw + gut, pw - mr)]
        if rng.random() < 0.4:
            xm = ml + colw + gut / 2
            pg.ops.append(('line', xm, mt + 30 * MM, xm, ph - mb, 3, (120, 120, 120)))
    else:
        gut = 0.0
        cols = [(ml, pw - mr)]
    pg.cols, pg.gutter, pg.gutter_name = cols, gut, gut_name

    # ---- questions for this page: mostly one subject, no twins, no repeats
    subjects = sorted(set(r['subject'] for r in bank))
    focus = subjects[int(rng.integers(len(subjects)))]
    order = list(rng.permutation(len(bank)))
    order = [k for k in order if bank[k]['subject'] == focus] + [k for k in order if bank[k]['subject'] != focus]
    chosen = []
    for k in order:
        if any(twins[k][j] for j in chosen):
            continue
        chosen.append(int(k))
    zh = zh_majority([bank[k]['question'] for k in chosen[:12]])
    pg.zh = zh

    # ---- header
    y = mt
    if rng.random() < 0.8:
        title = str(rng.choice(ZH_TITLES if zh else EN_TITLES))
        if kind == 'textbook':
            title = str(rng.choice(TB_SECT_ZH if zh else TB_SECT_EN)) + ('  ' + str(rng.choice(['第一节', '第二节', '复习'])) if zh else '')
        tst = st.derive(size=size * float(rng.uniform(1.35, 1.7)), bold=True,
                        color=(accent if kind == 'textbook' else st.color))
        ln = single_line(title, tst, 0, y + ASC * tst.size)
        w = ln['x1']
        dx = (pw - w) / 2 if kind != 'textbook' else ml
        ln = single_line(title, tst, dx, y + ASC * tst.size)
        if kind == 'textbook':
            pg.ops.append(('rect', ml - 0.4 * size, y - 0.3 * size, pw - mr, ln['base'] + 0.45 * tst.size, None,
                           tuple(int(255 - (255 - c) * 0.18) for c in accent)))
        pg.ops.append(('text', ln, tst.color))
        pg.texts.append({'kind': 'title', 'rect': line_rect(ln), 'text': title})
        y = ln['base'] + DESC * tst.size + 0.8 * size
        if kind in ('exam', 'homework', 'worksheet') and rng.random() < 0.85:
            nm = str(rng.choice(ZH_NAME if zh else EN_NAME))
            ln = single_line(nm, st, 0, 0)
            ln = single_line(nm, st, (pw - ln['x1']) / 2, y + ASC * size)
            pg.ops.append(('text', ln, st.color))
            pg.texts.append({'kind': 'name_line', 'rect': line_rect(ln), 'text': nm})
            y = ln['base'] + DESC * size + 0.6 * size
        if rng.random() < 0.5:
            pg.ops.append(('line', ml, y, pw - mr, y, 3, (60, 60, 60)))
            y += 0.6 * size
        y += 0.6 * size
    top_y = y
    bottom_y = ph - mb
    if rng.random() < 0.8:
        ft = str(rng.choice(['第 %d 页（共 4 页）', '— %d —', 'Page %d', '%d'])) % int(rng.integers(1, 5))
        ln = single_line(ft, st.derive(size=size * 0.85), 0, 0)
        ln = single_line(ft, st.derive(size=size * 0.85), (pw - ln['x1']) / 2, ph - mb * 0.5)
        pg.ops.append(('text', ln, st.color))
        pg.texts.append({'kind': 'footer', 'rect': line_rect(ln), 'text': ft})

    # ---- page-wide style
    spacing = plan['spacing']
    para = plan['para']
    justify = para == 'justified'
    if justify:
        para_base = str(rng.choice(['flush', 'hanging']))
    else:
        para_base = para
    lab_fmt = str(rng.choice(['dot', 'fdot', 'par', 'dun', 'circ'], p=[0.35, 0.2, 0.2, 0.15, 0.1]))
    lab_gap = size * float(rng.uniform(0.2, 0.55))
    lstyle = plan['lstyle']
    lab_color = st.color
    lab_size = size
    if lstyle == 'faint':
        g = int(rng.integers(150, 190))
        lab_color = (g, g, g)
    elif lstyle == 'tiny':
        lab_size = size * float(rng.uniform(0.52, 0.64))
    elif kind == 'textbook' and rng.random() < 0.4:
        lab_color = accent
    lab_bold = bool(rng.random() < 0.3)
    lst = st.derive(size=lab_size, color=lab_color, bold=lab_bold)
    hang_em = float(rng.uniform(1.0, 2.0))
    pg.page_style = {'spacing': spacing, 'para': para, 'para_base': para_base, 'label_mode': plan['labels'],
                     'label_print': lstyle if lstyle in ('faint', 'tiny', 'margin') else 'plain',
                     'label_format': lab_fmt, 'cols': ncols, 'gutter': gut_name,
                     'gutter_em': round(gut / size, 2) if ncols == 2 else None}

    def extra_gap():
        if spacing == 'equal':
            return 0.0
        if spacing == 'slight':
            return size * float(rng.uniform(0.25, 0.6))
        return pitch * float(rng.uniform(0.9, 2.2))

    # ---- sections
    nsec = int(rng.integers(1, 4))
    secs = []
    for s in range(nsec):
        has_head = plan['headings'] and (s > 0 or rng.random() < 0.8)
        if zh:
            head = (str(rng.choice(TB_SECT_ZH)) if kind == 'textbook' else ZH_SECT[(s + int(rng.integers(0, 3))) % len(ZH_SECT)])
            instr = str(rng.choice(ZH_INSTR))
        else:
            head = str(rng.choice(TB_SECT_EN if kind == 'textbook' else EN_SECT))
            instr = str(rng.choice(EN_INSTR))
        ex = str(rng.choice(['none', 'options', 'lines', 'work', 'mixed'], p=[0.4, 0.2, 0.15, 0.1, 0.15]))
        if spacing == 'equal' and rng.random() < 0.6:
            ex = 'none'
        if plan['labels'] == 'none':
            labelled = False
        elif plan['labels'] == 'all':
            labelled = True
        else:
            labelled = 'per_problem' if rng.random() < 0.5 else bool((s + int(plan['mix_first'])) % 2 == 0)
        secs.append({'head': head if has_head else None, 'instr': instr if (has_head and rng.random() < 0.6) else None,
                     'extras': ex, 'labelled': labelled, 'score': kind == 'exam' and rng.random() < 0.5})
    if plan['labels'] == 'mixed' and nsec == 1:
        secs[0]['labelled'] = 'per_problem'
    if plan['labels'] == 'mixed':
        # make sure both kinds occur
        kinds_ = set(str(s_['labelled']) for s_ in secs)
        if kinds_ in ({'True'}, {'False'}):
            secs[0]['labelled'] = 'per_problem'

    # ---- flow
    col = 0
    cy = top_y
    num = int(rng.integers(1, 12)) if rng.random() < 0.5 else 1
    qi = 0
    max_prob = int(rng.integers(14, 30)) if ncols == 1 else int(rng.integers(24, 44))
    prev_kind = 'top'
    sec_i = 0
    per_sec = max(3, max_prob // nsec)
    in_sec = 0
    need_head = True
    while qi < len(chosen) and len(pg.problems) < max_prob:
        if in_sec >= per_sec and sec_i < nsec - 1:
            sec_i += 1
            in_sec = 0
            need_head = True
        sec = secs[sec_i]
        x0c, x1c = cols[col]
        if need_head and sec['head']:
            hst = st.derive(bold=True, color=(accent if kind == 'textbook' else st.color))
            gap_before = 0.0 if prev_kind == 'top' else pitch * float(rng.uniform(0.6, 1.4))
            base = cy + gap_before + ASC * size
            items = []
            ln = layout_lines(sec['head'], hst, x0c, x0c, x1c, base, pitch)
            items.append(('head', ln, hst.color))
            last = ln[-1]['base']
            if sec['instr']:
                if rng.random() < 0.5:
                    ln2 = layout_lines(sec['instr'], st, ln[-1]['x1'] + 0.5 * size, x0c, x1c, last, pitch)
                else:
                    ln2 = layout_lines(sec['instr'], st, x0c, x0c, x1c, last + pitch, pitch)
                items.append(('instruction', ln2, st.color))
                last = ln2[-1]['base']
            if last + DESC * size + 2.5 * pitch > bottom_y:
                if col + 1 < len(cols):
                    col += 1
                    cy = top_y
                    prev_kind = 'top'
                    continue
                break
            for k_, lns, colr in items:
                for l_ in lns:
                    pg.ops.append(('text', l_, colr))
                    pg.texts.append({'kind': k_, 'rect': line_rect(l_), 'text': k_})
            cy = last + DESC * size + (pitch - (ASC + DESC) * size) + size * float(rng.uniform(0.0, 0.5))
            prev_kind = 'head'
        need_head = False
        k = chosen[qi]
        row = bank[k]
        lab = sec['labelled']
        if lab == 'per_problem':
            lab = bool(rng.random() < 0.5)
        gap = 0.0 if prev_kind in ('top', 'head') else extra_gap()
        base = cy + gap + ASC * size
        prob = build_problem(rng, row, k, st, lst, lab, num, lab_fmt, lab_gap, zh, para_base, justify, hang_em,
                             lstyle, x0c, x1c, base, pitch, sec, kind, cols, col, spacing)
        if prob['bottom'] > bottom_y:
            if col + 1 < len(cols):
                col += 1
                cy = top_y
                prev_kind = 'top'
                continue
            break
        prob['col'] = col
        prob['section'] = sec_i
        prob['after'] = prev_kind
        prob['gap_before_px'] = gap
        pg.problems.append(prob)
        pg.ops.extend(prob['ops'])
        if lab:
            num += 1
        qi += 1
        in_sec += 1
        cy = prob['bottom'] + (pitch - (ASC + DESC) * size)
        prev_kind = 'prob'
    pg.ink = st.color
    return pg


def build_problem(rng, row, k, st, lst, labelled, num, lab_fmt, lab_gap, zh, para, justify, hang_em, lstyle,
                  x0c, x1c, base, pitch, sec, kind, cols, col, spacing):
    size = st.size
    ops = []
    p = {'bank_index': k, 'bank_id': row['id'], 'text': row['question'], 'label': None, 'label_rect': None,
         'extras': [], 'extra_rects': []}
    right = x1c
    fig = None
    if row['subject'] in ('math', 'physics') and sec['extras'] != 'options' and x1c - x0c > 20 * size and rng.random() < 0.12:
        fw, fh = size * float(rng.uniform(5.5, 8.0)), size * float(rng.uniform(3.5, 5.5))
        fig = (x1c - fw, base - ASC * size, x1c, base - ASC * size + fh)
        right = x1c - fw - size * 0.8
    lab_w = 0.0
    lab_ln = None
    if labelled:
        lt = label_string(lab_fmt, num, zh)
        lab_ln = single_line(lt, lst, 0, 0)
        lab_w = lab_ln['x1']
        p['label'] = lt
    first_ind = 2 * size if para == 'firstindent' else 0.0
    if labelled and lstyle == 'margin':
        lx = x0c - lab_w - 0.7 * size
        tx = x0c
        cont = x0c
    elif labelled:
        lx = x0c + first_ind
        tx = lx + lab_w + lab_gap
        cont = tx if para == 'hanging' else x0c
    else:
        lx = None
        tx = x0c + first_ind
        cont = x0c + (hang_em * size if para == 'hanging' else 0.0)
    lines = layout_lines(row['question'], st, tx, cont, right, base, pitch, justify)
    p['lines'] = lines
    for ln in lines:
        ops.append(('text', ln, st.color))
    if labelled:
        lab_ln = single_line(p['label'], lst, lx, base)
        ops.append(('text', lab_ln, lst.color))
        p['label_rect'] = line_rect(lab_ln, lst.size)
    bottom = lines[-1]['base'] + DESC * size
    last_base = lines[-1]['base']
    # score note
    if sec['score'] and rng.random() < 0.7:
        sn = ('（%d分）' % int(rng.choice([2, 3, 4, 5, 6, 8]))) if zh else (lambda v: '(%d mark%s)' % (v, '' if v == 1 else 's'))(int(rng.choice([1, 2, 3, 4])))
        sst = st.derive(size=size * float(rng.choice([1.0, 0.9])))
        sl = single_line(sn, sst, 0, 0)
        w = sl['x1']
        if lines[-1]['x1'] + 0.6 * size + w <= x1c:
            sx = x1c - w if rng.random() < 0.4 else lines[-1]['x1'] + 0.4 * size
            sl = single_line(sn, sst, sx, last_base)
        else:
            last_base += pitch
            sl = single_line(sn, sst, x1c - w, last_base)
            bottom = last_base + DESC * size
        ops.append(('text', sl, st.color))
        p['extras'].append('score')
        p['extra_rects'].append(line_rect(sl))
    ex = sec['extras']
    if ex == 'mixed':
        ex = str(rng.choice(['none', 'options', 'lines', 'work']))
    ox = cont if para != 'firstindent' else (tx if labelled else x0c + size)
    ox = max(ox, x0c + (lab_w + lab_gap if labelled and lstyle != 'margin' else 0))
    if ex == 'options':
        opts = invent_options(rng, row)
        of = str(rng.choice(['A. ', 'A．', '(A) ', 'A) ']))
        strs = [of.replace('A', 'ABCD'[j]) + o for j, o in enumerate(opts)]
        ws = [single_line(s_, st, 0, 0)['x1'] for s_ in strs]
        avail = x1c - ox
        cw4, cw2 = avail / 4, avail / 2
        if max(ws) < cw4 - size:
            grid = [(j * cw4, 0) for j in range(4)]
        elif max(ws) < cw2 - size:
            grid = [((j % 2) * cw2, j // 2) for j in range(4)]
        else:
            grid = [(0, j) for j in range(4)]
        for j, s_ in enumerate(strs):
            gx, gr = grid[j]
            ol = single_line(s_, st, ox + gx, last_base + pitch * (1 + gr))
            ops.append(('text', ol, st.color))
            p['extra_rects'].append(line_rect(ol))
        last_base = last_base + pitch * (1 + max(g[1] for g in grid))
        bottom = last_base + DESC * size
        p['extras'].append('options')
    elif ex == 'lines':
        n = int(rng.integers(1, 4))
        lp = pitch * float(rng.uniform(1.4, 2.0))
        yy = last_base
        pre = rng.random() < 0.4
        for j in range(n):
            yy += lp
            xs = ox
            if pre and j == 0:
                al = single_line('答：' if zh else 'Answer:', st, ox, yy)
                ops.append(('text', al, st.color))
                xs = al['x1'] + 0.3 * size
            ops.append(('line', xs, yy + 0.1 * size, x1c, yy + 0.1 * size, max(2, int(size * 0.04)), (90, 90, 90)))
        p['extra_rects'].append((ox, last_base + DESC * size, x1c, yy + 0.2 * size))
        bottom = yy + 0.25 * size
        p['extras'].append('answer_lines')
    elif ex == 'work':
        h = pitch * float(rng.uniform(2.5, 6.0))
        if rng.random() < 0.5:
            al = single_line('解：' if zh else 'Solution:', st, ox, last_base + pitch)
            ops.append(('text', al, st.color))
            p['extra_rects'].append(line_rect(al))
        p['extra_rects'].append((ox, last_base + DESC * size, x1c, last_base + DESC * size + h))
        bottom = last_base + DESC * size + h
        p['extras'].append('workspace')
    if fig is not None:
        ops.extend(figure_ops(rng, fig, st))
        p['extra_rects'].append(fig)
        p['extras'].append('figure')
        bottom = max(bottom, fig[3])
    p['bottom'] = bottom
    p['ops'] = ops
    p['text_x0'] = tx
    p['cont_x0'] = cont
    p['col_x'] = (x0c, x1c)
    p['lab_x'] = lx
    return p


def figure_ops(rng, r, st):
    x0, y0, x1, y1 = r
    w, h = x1 - x0, y1 - y0
    ops = []
    c = (40, 40, 40)
    t = max(2, int(st.size * 0.05))
    sst = st.derive(size=st.size * 0.8)
    kind = int(rng.integers(3))
    if kind == 0:
        A, B, C = (x0 + 0.15 * w, y1 - 0.2 * h), (x1 - 0.1 * w, y1 - 0.2 * h), (x0 + 0.15 * w, y0 + 0.12 * h)
        ops.append(('poly', [A, B, C], t, c))
        for nm, P, d in (('A', C, (-0.5, 0.1)), ('B', A, (-0.6, 0.9)), ('C', B, (0.2, 0.9))):
            ops.append(('text', single_line(nm, sst, P[0] + d[0] * st.size, P[1] + d[1] * st.size), c))
    elif kind == 1:
        cx, cy, rr = (x0 + x1) / 2, (y0 + y1) / 2, 0.4 * min(w, h)
        ops.append(('ellipse', (cx - rr, cy - rr, cx + rr, cy + rr), t, c))
        ops.append(('line', cx, cy, cx + rr, cy, t, c))
        ops.append(('text', single_line('O', sst, cx - 0.7 * st.size, cy + 0.3 * st.size), c))
    else:
        ops.append(('line', x0 + 0.1 * w, y1 - 0.15 * h, x1 - 0.05 * w, y1 - 0.15 * h, t, c))
        ops.append(('line', x0 + 0.1 * w, y1 - 0.15 * h, x0 + 0.1 * w, y0 + 0.05 * h, t, c))
        ops.append(('line', x0 + 0.1 * w, y1 - 0.2 * h, x1 - 0.15 * w, y0 + 0.2 * h, t, c))
        ops.append(('text', single_line('x', sst, x1 - 0.15 * w, y1 - 0.15 * h + st.size), c))
        ops.append(('text', single_line('y', sst, x0 + 0.1 * w - 0.8 * st.size, y0 + 0.05 * h + 0.8 * st.size), c))
    return ops


def hand_circle_ops(rng, rect, size, limit_x, color):
    x0, y0, x1, y1 = rect
    cx, cy = (x0 + x1) / 2, y1 - 0.5 * (y1 - y0) + 0.05 * size
    rx = (x1 - x0) / 2 + 0.32 * size
    if cx + rx > limit_x - 0.08 * size:
        rx = max((x1 - x0) / 2 + 0.1 * size, limit_x - 0.08 * size - cx)
    ry = float(rng.uniform(0.55, 0.7)) * size
    a0 = float(rng.uniform(0, 2 * math.pi))
    sweep = 2 * math.pi + float(rng.uniform(0.2, 0.7))
    ph = rng.uniform(0, 2 * math.pi, 3)
    pts = []
    n = 60
    for j in range(n + 1):
        a = a0 + sweep * j / n
        wob = 1 + 0.06 * math.sin(2 * a + ph[0]) + 0.04 * math.sin(3 * a + ph[1]) + 0.05 * j / n
        pts.append((cx + rx * wob * math.cos(a), cy + ry * wob * math.sin(a)))
    return [('pen', pts, max(3, int(size * float(rng.uniform(0.06, 0.09)))), color)]


def render_page(pg, rng, paper):
    img = Image.new('RGB', (pg.w, pg.h), paper)
    d = ImageDraw.Draw(img)
    for op in pg.ops:
        t = op[0]
        if t == 'text':
            ln, color = op[1], op[2]
            for x, pc in ln['items']:
                if pc[0] == 'g':
                    d.text((x, ln['base'] + pc[3]), pc[1], font=pc[2], fill=color, anchor='ls')
                elif pc[0] == 'b':
                    yy = ln['base'] + 0.12 * ln['size']
                    d.line([(x + 0.05 * ln['size'], yy), (x + pc[4] - 0.05 * ln['size'], yy)], fill=color,
                           width=max(2, int(ln['size'] * 0.055)))
        elif t == 'line':
            d.line([(op[1], op[2]), (op[3], op[4])], fill=op[6], width=int(op[5]))
        elif t == 'rect':
            d.rectangle([op[1], op[2], op[3], op[4]], fill=op[6])
        elif t == 'poly':
            pts = op[1] + [op[1][0]]
            d.line(pts, fill=op[3], width=op[2], joint='curve')
        elif t == 'ellipse':
            d.ellipse(op[1], outline=op[3], width=op[2])
        elif t == 'pen':
            d.line(op[1], fill=op[3], width=op[2], joint='curve')
    a = np.asarray(img).astype(np.float32)
    # paper: low-frequency tint + fibre noise, slightly uneven toner
    lf = cv2.resize(rng.normal(0, 1, (12, 9)).astype(np.float32), (pg.w, pg.h), interpolation=cv2.INTER_CUBIC)
    a *= (1.0 + 0.012 * lf)[..., None]
    a += rng.normal(0, 2.0, (pg.h // 4 + 1, pg.w // 4 + 1)).astype(np.float32).repeat(4, 0).repeat(4, 1)[:pg.h, :pg.w, None]
    return np.clip(a, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------- geometry
def apply_h(H, pts):
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.hstack([pts, np.ones((len(pts), 1))]) @ H.T
    return q[:, :2] / q[:, 2:3]


def rect_pts(r):
    x0, y0, x1, y1 = r
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def hull_of(pts):
    pts = np.asarray(pts, dtype=np.float32).reshape(-1, 1, 2)
    return cv2.convexHull(pts)


def dist_to_hull(h, pt):
    v = cv2.pointPolygonTest(h, (float(pt[0]), float(pt[1])), True)
    return max(0.0, -v)


def problem_text_rects(p):
    return [line_rect(ln) for ln in p['lines']]


def problem_block_rects(p):
    r = problem_text_rects(p) + list(p['extra_rects'])
    if p['label_rect']:
        r.append(p['label_rect'])
    return r


def make_h(c_page, m, theta, persp, W, H):
    ct, sn = math.cos(theta), math.sin(theta)
    T1 = np.array([[1, 0, -c_page[0]], [0, 1, -c_page[1]], [0, 0, 1]], float)
    RS = np.array([[m * ct, -m * sn, 0], [m * sn, m * ct, 0], [0, 0, 1]], float)
    P = np.array([[1, 0, 0], [0, 1, 0], [persp[0], persp[1], 1]], float)
    T2 = np.array([[1, 0, W / 2], [0, 1, H / 2], [0, 0, 1]], float)
    return T2 @ P @ RS @ T1


def em_at(Hm, pt, size):
    a = apply_h(Hm, [pt, (pt[0], pt[1] + size), (pt[0] + size, pt[1])])
    return 0.5 * (np.linalg.norm(a[1] - a[0]) + np.linalg.norm(a[2] - a[0]))


# ----------------------------------------------------------------------------- target choice
def neighbours(pg, ti):
    """Problems directly above / below in the same column (flow order)."""
    P = pg.problems
    up = ti - 1 if ti > 0 and P[ti - 1]['col'] == P[ti]['col'] and P[ti]['after'] == 'prob' else None
    dn = ti + 1 if ti + 1 < len(P) and P[ti + 1]['col'] == P[ti]['col'] and P[ti + 1]['after'] == 'prob' else None
    return up, dn


def short_one(p):
    cw = p['col_x'][1] - p['col_x'][0]
    return len(p['lines']) == 1 and (p['lines'][0]['x1'] - p['col_x'][0]) <= 0.5 * cw


def multi(p):
    return 2 <= len(p['lines']) <= 4


def short_last(p):
    cw = p['col_x'][1] - p['col_x'][0]
    return len(p['lines']) >= 2 and (p['lines'][-1]['x1'] - p['lines'][-1]['x0']) <= 0.35 * cw


def adjacency_tags(pg, ti):
    P = pg.problems
    up, dn = neighbours(pg, ti)
    t = P[ti]
    tags = []
    if up is not None and short_one(P[up]) and multi(t):
        tags.append('oneliner_above_multiline')
    if dn is not None and short_one(t) and multi(P[dn]):
        tags.append('oneliner_above_multiline')
    if up is not None and multi(P[up]) and short_one(t):
        tags.append('multiline_above_oneliner')
    if dn is not None and multi(t) and short_one(P[dn]):
        tags.append('multiline_above_oneliner')
    if short_last(t):
        tags.append('target_short_last_line')
    if (up is not None and short_last(P[up])) or (dn is not None and short_last(P[dn])):
        tags.append('neighbour_short_last_line')
    return sorted(set(tags))


def pick_target(rng, pg, plan):
    P = pg.problems
    idx = list(range(len(P)))
    both = [i for i in idx if all(n is not None for n in neighbours(pg, i))]
    pool = both if (both and rng.random() < 0.85) else [i for i in idx if any(n is not None for n in neighbours(pg, i))] or idx
    want = plan['adj']

    def ok_adj(i):
        tg = adjacency_tags(pg, i)
        if want == 'any':
            return True
        if want == 'short_last':
            return 'target_short_last_line' in tg
        return want in tg

    def ok_spot(i):
        n = len(P[i]['lines'])
        return {'first': 1, 'beside': 1, 'last': 2, 'between': 2, 'middle': 3}[plan['spot']] <= n

    def ok_label(i):
        if plan['lstyle'] in ('circled', 'covered'):
            return P[i]['label'] is not None
        return True

    for filt in ((ok_adj, ok_spot, ok_label), (ok_adj, ok_label), (ok_adj,), (ok_spot, ok_label), (ok_label,), ()):
        c = [i for i in pool if all(f(i) for f in filt)]
        if c:
            return int(c[int(rng.integers(len(c)))])
    return int(pool[int(rng.integers(len(pool)))])


def centre_point(rng, pg, t, spot):
    lines = t['lines']
    size = pg.size
    n = len(lines)
    if spot == 'middle' and n < 3:
        spot = 'between' if n == 2 else 'first'
    if spot in ('last', 'between') and n < 2:
        spot = 'first' if rng.random() < 0.6 else 'beside'

    def on_line(ln):
        x = float(rng.uniform(ln['x0'] + 0.3 * size, max(ln['x0'] + 0.31 * size, ln['x1'] - 0.3 * size)))
        return (x, ln['base'] - 0.36 * size + float(rng.uniform(-0.08, 0.08)) * size)

    if spot == 'first':
        return on_line(lines[0]), ('first' if n > 1 else 'single_line')
    if spot == 'last':
        return on_line(lines[-1]), spot
    if spot == 'middle':
        return on_line(lines[int(rng.integers(1, n - 1))]), spot
    if spot == 'between':
        k = int(rng.integers(0, n - 1))
        a, b = lines[k], lines[k + 1]
        lo, hi = max(a['x0'], b['x0']) + 0.3 * size, min(a['x1'], b['x1']) - 0.3 * size
        x = float(rng.uniform(lo, max(lo + 1, hi)))
        y = 0.5 * ((a['base'] + DESC * size) + (b['base'] - ASC * size)) + float(rng.uniform(-0.05, 0.05)) * size
        return (x, y), spot
    # beside: right of a line's end, or left of its start
    k = int(rng.integers(n))
    ln = lines[k]
    if rng.random() < 0.6:
        x = ln['x1'] + float(rng.uniform(0.35, 1.0)) * size
    else:
        x = ln['x0'] - float(rng.uniform(0.35, 1.0)) * size
    return (x, ln['base'] - 0.36 * size), 'beside'


# ----------------------------------------------------------------------------- photo effects
def desk(rng, W, H):
    kind = str(rng.choice(['wood', 'plain', 'cloth', 'dark']))
    w4, h4 = W // 4, H // 4
    yy, xx = np.mgrid[0:h4, 0:w4].astype(np.float32)
    if kind == 'wood':
        base = np.array([rng.uniform(120, 190), rng.uniform(80, 130), rng.uniform(40, 80)], np.float32)
        a = float(rng.uniform(0, math.pi))
        u = xx * math.cos(a) + yy * math.sin(a)
        v = -xx * math.sin(a) + yy * math.cos(a)
        warp = cv2.resize(rng.normal(0, 1, (6, 8)).astype(np.float32), (w4, h4), interpolation=cv2.INTER_CUBIC)
        g = np.sin(v * float(rng.uniform(0.15, 0.4)) + 4 * warp + 0.02 * u)
        f = 1 + 0.12 * g + 0.04 * rng.normal(0, 1, (h4, w4)).astype(np.float32)
        img = base[None, None, :] * f[..., None]
    elif kind == 'cloth':
        c1 = rng.uniform(60, 220, 3).astype(np.float32)
        c2 = c1 * float(rng.uniform(0.6, 0.85))
        s = float(rng.uniform(10, 30))
        m = ((np.floor(xx / s) + np.floor(yy / s)) % 2)[..., None]
        img = c1 * m + c2 * (1 - m)
        img = img * (1 + 0.05 * rng.normal(0, 1, (h4, w4, 1)).astype(np.float32))
    else:
        lvl = (40, 90) if kind == 'dark' else (140, 220)
        c = rng.uniform(*lvl, 3).astype(np.float32)
        lf = cv2.resize(rng.normal(0, 1, (5, 7)).astype(np.float32), (w4, h4), interpolation=cv2.INTER_CUBIC)
        img = c[None, None, :] * (1 + 0.06 * lf[..., None] + 0.03 * rng.normal(0, 1, (h4, w4, 1)).astype(np.float32))
    img = cv2.resize(np.clip(img, 0, 255).astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    return img, kind


def capsule_mask(W, H, tip, u, width, length, taper=None):
    """Polygon of a finger (rounded tip) or pen (cone tip) lying from `tip` along direction u."""
    u = np.asarray(u, float) / np.linalg.norm(u)
    nrm = np.array([-u[1], u[0]])
    tip = np.asarray(tip, float)
    pts = []
    if taper is None:      # finger: semicircle at the tip
        c = tip + u * width / 2
        for a in np.linspace(-math.pi / 2, math.pi / 2, 24):
            d = -u * math.cos(a) + nrm * math.sin(a)
            pts.append(c + d * width / 2)
        # finger of ~5 widths, then the hand widening towards the image edge
        k1 = c + u * width * 4.5
        k2 = c + u * width * 9.0
        far = c + u * length
        pts += [k1 + nrm * width * 0.55, k2 + nrm * width * 1.6, far + nrm * width * 1.8,
                far - nrm * width * 1.6, k2 - nrm * width * 1.2, k1 - nrm * width * 0.55]
    else:                  # pen: cone of length `taper`, then body
        cone_end = tip + u * taper
        pts = [tip, cone_end + nrm * width / 2, tip + u * length + nrm * width / 2,
               tip + u * length - nrm * width / 2, cone_end - nrm * width / 2]
    return np.array(pts, np.float32)


def draw_occluder(img, rng, poly, kind, em, tip=None, u=None):
    H, W = img.shape[:2]
    mask = np.zeros((H, W), np.float32)
    cv2.fillPoly(mask, [np.round(poly * 4).astype(np.int32)], 1.0, lineType=cv2.LINE_AA, shift=2)
    sh = np.zeros_like(mask)
    off = rng.uniform(0.3, 0.9, 2) * em
    cv2.fillPoly(sh, [np.round((poly + off) * 4).astype(np.int32)], 1.0, lineType=cv2.LINE_AA, shift=2)
    sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, 0.5 * em))
    img *= (1 - 0.35 * sh)[..., None]
    soft = cv2.GaussianBlur(mask, (0, 0), 1.2 if kind == 'finger' else 0.7)
    if kind == 'finger':
        col = np.array([rng.uniform(170, 225), rng.uniform(120, 165), rng.uniform(95, 135)], np.float32)
        shade = cv2.GaussianBlur(mask, (0, 0), max(2.0, 0.6 * em))
        layer = col[None, None, :] * (0.7 + 0.35 * shade[..., None])
        if tip is not None:
            # finger nail near the tip
            u = np.asarray(u, float) / np.linalg.norm(u)
            w = float(np.linalg.norm(poly[0] - poly[23]))
            c = np.asarray(tip) + u * 0.42 * w
            nail = np.zeros((H, W), np.float32)
            cv2.ellipse(nail, (int(round(c[0])), int(round(c[1]))), (int(0.34 * w), int(0.27 * w)),
                        math.degrees(math.atan2(u[1], u[0])), 0, 360, 1.0, -1, cv2.LINE_AA)
            nail = cv2.GaussianBlur(nail * mask, (0, 0), 1.5)
            layer = layer * (1 - 0.5 * nail[..., None]) + (col * 1.05 + 25)[None, None, :] * (0.5 * nail[..., None])
    else:
        col = np.array(rng.choice([[30, 40, 120], [20, 20, 25], [160, 30, 40], [220, 220, 225]]), np.float32)
        shade = cv2.GaussianBlur(mask, (0, 0), max(1.0, 0.25 * em))
        layer = col[None, None, :] * (0.75 + 0.4 * shade[..., None])
    img[:] = img * (1 - soft[..., None]) + layer * soft[..., None]
    return mask


def lighting(rng, W, H):
    sw, sh = W // 16, H // 16
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xx, yy = xx / sw - 0.5, yy / sh - 0.5
    a, b = rng.uniform(-0.35, 0.35, 2)
    f = 1 + a * xx + b * yy
    cx, cy = rng.uniform(-0.4, 0.4, 2)
    f *= 1 - float(rng.uniform(0.05, 0.25)) * ((xx - cx) ** 2 + (yy - cy) ** 2) * 2
    tags = []
    if abs(a) + abs(b) > 0.3:
        tags.append('uneven_light')
    if rng.random() < 0.3:
        s = np.zeros((sh, sw), np.float32)
        pts = (rng.uniform(0, 1, (4, 2)) * [sw, sh] + [[-sw * 0.6, 0], [0, 0], [0, 0], [-sw * 0.6, 0]]).astype(np.int32)
        cv2.fillPoly(s, [pts], 1.0)
        s = cv2.GaussianBlur(s, (0, 0), float(rng.uniform(2, 6)))
        f *= 1 - float(rng.uniform(0.15, 0.3)) * s
        tags.append('soft_shadow')
    f = np.clip(f, 0.55, 1.15)
    return cv2.resize(f, (W, H), interpolation=cv2.INTER_CUBIC), tags


# ----------------------------------------------------------------------------- one photo
PAGE_KINDS = ['worksheet', 'exam', 'homework', 'textbook']


def make_plan(i, rng):
    """Stratified per-photo plan; cycles keyed on the photo index, details from rng."""
    labels = ['none', 'all', 'mixed'][i % 3]
    lstyle = ['plain', 'faint', 'tiny', 'margin', 'circled', 'covered'][(i // 3) % 6]
    if labels == 'none':
        lstyle = 'none'
    spacing = ['equal', 'slight', 'equal', 'generous', 'slight'][i % 5]
    para = ['flush', 'hanging', 'firstindent', 'justified'][(i // 5) % 4]
    cols = 2 if (i // 2) % 2 == 0 else 1
    adj = ['oneliner_above_multiline', 'multiline_above_oneliner', 'short_last', 'any'][(i // 4) % 4]
    spot = ['first', 'last', 'between', 'beside', 'middle', 'first', 'last'][(i // 7) % 7]
    shot = ['close', 'medium', 'far'][(i + i // 9) % 3]
    return {'labels': labels, 'lstyle': lstyle, 'spacing': spacing, 'para': para, 'cols': cols,
            'gutter': str(rng.choice(['narrow', 'medium', 'wide'])), 'adj': adj, 'spot': spot, 'shot': shot,
            'page': PAGE_KINDS[int(rng.integers(4))], 'headings': bool(rng.random() < 0.75),
            'mix_first': bool(rng.random() < 0.5), 'landscape': bool(rng.random() < 0.5)}


def evaluate(pg, ti, Hm, W, H, c):
    """Claim rule evaluation in stored-image pixels."""
    P = pg.problems
    t = P[ti]
    tq = [apply_h(Hm, rect_pts(r)) for r in problem_text_rects(t)]
    allp = np.vstack(tq)
    em = em_at(Hm, (t['lines'][0]['x0'], t['lines'][0]['base'] - ASC * pg.size), pg.size)
    inset = max(RULE_INSET_MIN, RULE_INSET_EM * em)
    inside = bool(allp[:, 0].min() >= inset and allp[:, 1].min() >= inset and allp[:, 0].max() <= W - inset
                  and allp[:, 1].max() <= H - inset)
    th = hull_of(allp)
    dt = dist_to_hull(th, c)
    others = []
    for j, p in enumerate(P):
        if j == ti:
            continue
        bh = hull_of(np.vstack([apply_h(Hm, rect_pts(r)) for r in problem_block_rects(p)]))
        tpts = np.vstack([apply_h(Hm, rect_pts(r)) for r in problem_text_rects(p)])
        others.append((j, dist_to_hull(bh, c), bh, tpts))
    texts = []
    for tx in pg.texts:
        h_ = hull_of(apply_h(Hm, rect_pts(tx['rect'])))
        texts.append((tx, dist_to_hull(h_, c), h_))
    dmin = min([o[1] for o in others] + [tx[1] for tx in texts] + [1e9])
    need = max(dt + RULE_MARGIN_EM * em, RULE_RATIO * dt)
    ok = inside and dt <= RULE_DT_MAX_EM * em and dmin >= need
    return {'ok': ok, 'inside': inside, 'em': em, 'inset': inset, 'dt': dt, 'dmin': dmin, 'need': need,
            'thull': th, 'tquads': tq, 'others': others, 'texts': texts}


def page_coverage(pg, Hm, W, H):
    """Fraction of the photo covered by the page."""
    c = apply_h(Hm, rect_pts((0, 0, pg.w, pg.h)))
    img = np.array(rect_pts((0, 0, W, H)), np.float32)
    inter, _ = cv2.intersectConvexConvex(img, c.astype(np.float32))
    return float(inter) / (W * H)


def photo(i, seed, bank, twins):
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    plan = make_plan(i, rng)
    W, H = (1280, 960) if plan['landscape'] else (960, 1280)
    for attempt in range(8):
        pg = build_page(rng, plan, bank, twins)
        has_l = [p['label'] is not None for p in pg.problems]
        if len(pg.problems) >= 3 and (plan['labels'] != 'mixed' or (any(has_l) and not all(has_l))):
            break
    best = None
    for attempt in range(60):
        ti = pick_target(rng, pg, plan)
        t = pg.problems[ti]
        spot = plan['spot'] if attempt < 30 else str(rng.choice(['first', 'between', 'last', 'middle']))
        c_page, spot_done = centre_point(rng, pg, t, spot)
        shot = plan['shot']
        em_want = {'close': rng.uniform(30, 40), 'medium': rng.uniform(20, 28), 'far': rng.uniform(14.5, 18)}[shot]
        theta = math.radians(float(rng.uniform(-6, 6)) if rng.random() < 0.7 else float(rng.uniform(-1.5, 1.5)))
        persp = rng.uniform(-1.4e-4, 1.4e-4, 2)
        m = float(em_want) / pg.size
        ev = None
        for _ in range(12):
            Hm = make_h(c_page, m, theta, persp, W, H)
            ev = evaluate(pg, ti, Hm, W, H, apply_h(Hm, [c_page])[0])
            if ev['inside'] or ev['em'] < 13.5:
                break
            m *= 0.9
        cover = page_coverage(pg, Hm, W, H)
        need_cover = {'close': 0.92, 'medium': 0.8, 'far': 0.62}[shot] if attempt < 40 else 0.4
        if ev['ok'] and ev['em'] >= 13.5 and cover >= need_cover:
            best = (ti, c_page, spot_done, Hm, ev, m, theta, persp)
            break
    if best is None:
        raise RuntimeError('photo %d: no valid framing found' % i)
    ti, c_page, spot_done, Hm, ev, m, theta, persp = best
    t = pg.problems[ti]
    size = pg.size
    tags = []
    # ---- hand circle on the target label (student circled the number)
    label_state = 'absent' if t['label'] is None else pg.page_style['label_print']
    pen_cols = [(35, 60, 170), (185, 35, 40), (30, 30, 40)]
    if t['label'] is not None and plan['lstyle'] == 'circled':
        col = tuple(int(v) for v in pen_cols[int(rng.integers(3))])
        pg.ops.extend(hand_circle_ops(rng, t['label_rect'], size, t['text_x0'] if t['lab_x'] is not None and t['lab_x'] < t['text_x0'] else 1e9, col))
        label_state = 'circled'
        # sometimes a neighbour's number was circled too
        up, dn = neighbours(pg, ti)
        for nb in (up, dn):
            if nb is not None and pg.problems[nb]['label'] is not None and rng.random() < 0.3:
                q = pg.problems[nb]
                pg.ops.extend(hand_circle_ops(rng, q['label_rect'], size, q['text_x0'], col))
    paper = tuple(int(v) for v in (rng.uniform(232, 252), rng.uniform(230, 250), rng.uniform(218, 245)))
    page_img = render_page(pg, rng, paper)

    # ---- composite onto desk
    img, desk_kind = desk(rng, W, H)
    f = min(1.0, m / 0.8)
    src = page_img
    Hw = Hm
    if f < 1.0:
        src = cv2.resize(page_img, (max(1, int(round(pg.w * f))), max(1, int(round(pg.h * f)))), interpolation=cv2.INTER_AREA)
        Hw = Hm @ np.diag([pg.w / src.shape[1], pg.h / src.shape[0], 1.0])
    warped = cv2.warpPerspective(src, Hw, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).astype(np.float32)
    corners = apply_h(Hm, rect_pts((0, 0, pg.w, pg.h)))
    pmask = np.zeros((H, W), np.float32)
    cv2.fillPoly(pmask, [np.round(corners * 4).astype(np.int32)], 1.0, lineType=cv2.LINE_AA, shift=2)
    shadow = cv2.GaussianBlur(np.roll(pmask, (int(rng.integers(3, 12)), int(rng.integers(-6, 10))), (0, 1)), (0, 0), 8)
    img *= (1 - 0.35 * shadow)[..., None]
    img = img * (1 - pmask[..., None]) + warped * pmask[..., None]
    page_visible_edges = bool(pmask.min() < 0.5)

    # ---- occluders
    em = ev['em']
    occluders = []
    tmask = np.zeros((H, W), np.uint8)
    dil = RULE_OCC_DILATE_EM * em
    for q in ev['tquads']:     # exact line quads, then dilated with morphology
        cv2.fillPoly(tmask, [np.round(q).astype(np.int32)], 1)
    k = int(max(3, 2 * dil + 1))
    tmask_d = cv2.dilate(tmask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))

    used_dir = [(None, None)]

    def try_occluder(kind, tip, dirs, width, taper=None):
        for a in dirs:
            u = (math.cos(a), math.sin(a))
            poly = capsule_mask(W, H, tip, u, width, 3 * max(W, H), taper)
            m_ = np.zeros((H, W), np.uint8)
            cv2.fillPoly(m_, [np.round(poly).astype(np.int32)], 1)
            if not (m_ & tmask_d).any():
                used_dir[:] = [(tip, u)]
                return poly
        return None

    if t['label'] is not None and plan['lstyle'] == 'covered':
        lr = t['label_rect']
        lq = apply_h(Hm, rect_pts(lr))
        lc = lq.mean(0)
        rot = theta
        done = False
        for kind in (['finger', 'pen'] if rng.random() < 0.6 else ['pen', 'finger']):
            ux = np.array([math.cos(rot), math.sin(rot)])
            half = 0.5 * float(np.linalg.norm(lq[1] - lq[0]))
            poly = None
            if kind == 'finger':
                width = em * float(rng.uniform(3.4, 4.4))
                dirs = [rot + math.pi + math.radians(float(d)) for d in rng.permutation([0, -20, 20, -40, 40, -60, 60])]
                for off in (0.3, 0.0, -0.3):
                    poly = try_occluder('finger', lc + ux * (half + off * em), dirs, width)
                    if poly is not None:
                        break
            else:
                width = em * float(rng.uniform(2.0, 2.6))
                taper = em * float(rng.uniform(1.2, 1.6))
                dirs = [rot + math.pi + math.radians(float(d)) for d in rng.permutation([0, -12, 12, -25, 25, -40, 40])]
                for off in (0.15, 0.0, -0.15):
                    poly = try_occluder('pen', lc + ux * (half + off * em), dirs, width, taper=taper)
                    if poly is not None:
                        break
            if poly is not None:
                draw_occluder(img, rng, poly, kind, em, *(used_dir[0] if kind == 'finger' else (None, None)))
                occluders.append({'kind': kind, 'covers': 'target_label', 'polygon': np.round(poly.astype(np.float64), 1).tolist()})
                label_state = 'covered_' + kind
                done = True
                break
        if not done:
            tags.append('cover_failed')
    elif rng.random() < 0.12:
        # a finger holding the page at an image edge, away from the target
        side = int(rng.integers(4))
        tip = [(rng.uniform(0.2, 0.8) * W, H - rng.uniform(0.06, 0.16) * H), (rng.uniform(0.06, 0.16) * W, rng.uniform(0.2, 0.8) * H),
               (W - rng.uniform(0.06, 0.16) * W, rng.uniform(0.2, 0.8) * H), (rng.uniform(0.2, 0.8) * W, rng.uniform(0.06, 0.16) * H)][side]
        a = [math.pi / 2, math.pi, 0.0, -math.pi / 2][side] + math.radians(float(rng.uniform(-25, 25)))
        poly = try_occluder('finger', tip, [a], em * float(rng.uniform(3.2, 4.2)))
        if poly is not None:
            draw_occluder(img, rng, poly, 'finger', em, *used_dir[0])
            occluders.append({'kind': 'finger', 'covers': 'page_edge', 'polygon': np.round(poly.astype(np.float64), 1).tolist()})
            tags.append('finger_in_view')

    # ---- camera effects
    light, ltags = lighting(rng, W, H)
    tags += ltags
    gains = rng.uniform(0.93, 1.05, 3).astype(np.float32)
    img = img * light[..., None] * gains[None, None, :]
    blur = 0.0
    if rng.random() < 0.75:
        blur = float(rng.uniform(0.3, 1.3))
        img = cv2.GaussianBlur(img, (0, 0), blur)
        if blur > 0.9:
            tags.append('blur')
    if rng.random() < 0.12:
        L = int(rng.integers(3, 6))
        kern = np.zeros((L, L), np.float32)
        cv2.line(kern, (0, int(rng.integers(L))), (L - 1, int(rng.integers(L))), 1.0)
        img = cv2.filter2D(img, -1, kern / kern.sum())
        tags.append('motion_blur')
    ns = float(rng.uniform(1.5, 6.0))
    img = img + rng.normal(0, ns, (H, W, 1)).astype(np.float32) + rng.normal(0, ns * 0.35, (H, W, 3)).astype(np.float32)
    if ns > 4.5:
        tags.append('noise')
    q = int(rng.integers(60, 93))
    if q < 70:
        tags.append('jpeg_low')
    out = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    out.save(buf, format='JPEG', quality=q)
    jpg = buf.getvalue()

    # ---- meta
    P = pg.problems
    up, dn = neighbours(pg, ti)
    c_img = (W / 2.0, H / 2.0)

    def vis(pts):
        inside = (pts[:, 0] >= 0) & (pts[:, 0] <= W) & (pts[:, 1] >= 0) & (pts[:, 1] <= H)
        return 'whole' if inside.all() else ('part' if inside.any() else 'none')

    others = []
    for j, dblock, bh, tpts in ev['others']:
        p = P[j]
        th_ = hull_of(tpts)
        rel = 'above' if j == up else ('below' if j == dn else ('same_column' if p['col'] == t['col'] else 'other_column'))
        others.append({'bank_id': p['bank_id'], 'relation': rel,
                       'box': [round(float(tpts[:, 0].min()), 1), round(float(tpts[:, 1].min()), 1),
                               round(float(tpts[:, 0].max()), 1), round(float(tpts[:, 1].max()), 1)],
                       'distance': round(dist_to_hull(th_, c_img), 2), 'block_distance': round(dblock, 2),
                       'block_hull': np.round(bh.reshape(-1, 2).astype(np.float64), 1).tolist(),
                       'visible': vis(tpts), 'n_lines': len(p['lines']), 'label': p['label']})
    texts = [{'kind': tx['kind'], 'distance': round(d_, 2), 'hull': np.round(h_.reshape(-1, 2).astype(np.float64), 1).tolist()}
             for tx, d_, h_ in ev['texts']]
    allq = np.vstack(ev['tquads'])
    # ---- tags
    lm = plan['labels']
    tags.append('labels_' + {'none': 'none', 'all': 'all', 'mixed': 'mixed'}[lm])
    has_l = [p['label'] is not None for p in P]
    if lm == 'mixed' and not (any(has_l) and not all(has_l)):
        tags.append('mixed_degenerate')
    tags.append('target_label_' + label_state)
    if t['label'] is not None and label_state not in ('plain',) and pg.page_style['label_print'] != 'plain':
        tags.append('target_label_print_' + pg.page_style['label_print'])
    nb_lab = [P[n]['label'] is not None for n in (up, dn) if n is not None]
    if nb_lab and (t['label'] is not None) != all(nb_lab) or (len(set(nb_lab)) > 1):
        tags.append('labelled_unlabelled_adjacent')
    tags.append('gap_' + pg.page_style['spacing'])
    tags.append('para_' + pg.page_style['para'])
    if pg.page_style['para'] == 'justified':
        tags.append('para_justified_' + pg.page_style['para_base'])
    tags.append('cols_%d' % pg.page_style['cols'])
    if pg.page_style['cols'] == 2:
        tags.append('gutter_' + pg.page_style['gutter'])
    tags.append('page_' + plan['page'])
    if any(tx['kind'] == 'head' for tx in pg.texts):
        tags.append('headings')
    if any(tx['kind'] == 'instruction' for tx in pg.texts):
        tags.append('instructions')
    for e in ('options', 'answer_lines', 'workspace', 'score', 'figure'):
        if e in t['extras']:
            tags.append('target_' + e)
        if any(e in p['extras'] for p in P):
            tags.append('page_' + e)
    tags += adjacency_tags(pg, ti)
    tags.append('target_lines_%d' % min(len(t['lines']), 4) + ('plus' if len(t['lines']) > 4 else ''))
    tags.append('centre_' + spot_done)
    for nb, nm in ((up, 'above'), (dn, 'below')):
        if nb is None:
            tags.append('no_neighbour_' + nm)
            continue
        o = next(o for o in others if o['relation'] == nm)
        if o['visible'] == 'whole':
            tags.append('neighbour_%s_whole' % nm)
    shot_done = 'close' if em >= 29 else ('medium' if em >= 19.5 else 'far')
    tags.append('shot_' + shot_done)
    tags.append('landscape' if W > H else 'portrait')
    if abs(math.degrees(theta)) >= 3:
        tags.append('rotation_3to6')
    if float(np.abs(persp).max()) > 0.9e-4:
        tags.append('perspective_mild')
    if page_visible_edges:
        tags.append('page_edge_visible')
    meta = {
        'qid': 'd%03d' % i, 'file': 'd%03d.jpg' % i, 'index': i, 'seed': seed,
        'bank_id': t['bank_id'], 'width': W, 'height': H,
        'target': {
            'box': [round(float(allq[:, 0].min()), 1), round(float(allq[:, 1].min()), 1),
                    round(float(allq[:, 0].max()), 1), round(float(allq[:, 1].max()), 1)],
            'hull': np.round(ev['thull'].reshape(-1, 2).astype(np.float64), 1).tolist(),
            'line_quads': [np.round(np.asarray(qd, np.float64), 1).tolist() for qd in ev['tquads']],
            'n_lines': len(t['lines']), 'em_px': round(em, 2), 'label': t['label'], 'label_state': label_state,
            'extras': t['extras'], 'centre_spot': spot_done, 'distance': round(ev['dt'], 2),
            'neighbour_above': P[up]['bank_id'] if up is not None else None,
            'neighbour_below': P[dn]['bank_id'] if dn is not None else None,
        },
        'others': others, 'non_problem_text': texts,
        'rule': {'d_target': round(ev['dt'], 2), 'd_other_min': round(ev['dmin'], 2), 'required': round(ev['need'], 2),
                 'inset': round(ev['inset'], 2), 'em_px': round(em, 2)},
        'kinds': sorted(set(tags)), 'fonts': pg.fonts, 'page': dict(pg.page_style, kind=plan['page'],
                                                                    n_problems=len(P), size_px=[pg.w, pg.h]),
        'camera': {'rotation_deg': round(math.degrees(theta), 3), 'perspective': [float(v) for v in persp],
                   'scale': round(m, 5), 'shot': shot_done, 'jpeg_quality': q, 'blur_sigma': round(blur, 3),
                   'noise_sigma': round(ns, 3), 'desk': desk_kind,
                   'homography_page_to_image': np.round(Hm, 9).tolist()},
        'occluders': occluders, 'plan': plan,
    }
    return jpg, meta


# ----------------------------------------------------------------------------- driver
_G = {}


def load_bank(path):
    rows = [json.loads(l) for l in open(path, encoding='utf-8') if l.strip()]
    return rows


def twin_matrix(bank):
    n = len(bank)
    tw = [[False] * n for _ in range(n)]
    for a in range(n):
        for b in range(a + 1, n):
            qa, qb = bank[a]['question'], bank[b]['question']
            if difflib.SequenceMatcher(None, qa, qb, autojunk=False).ratio() >= 0.8:
                tw[a][b] = tw[b][a] = True
    return tw


def _init(bank_path, seed, out):
    _G['bank'] = load_bank(bank_path)
    _G['twins'] = twin_matrix(_G['bank'])
    _G['seed'] = seed
    _G['out'] = out


def _work(i):
    jpg, meta = photo(i, _G['seed'], _G['bank'], _G['twins'])
    with open(os.path.join(_G['out'], meta['file']), 'wb') as fh:
        fh.write(jpg)
    return meta


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True)
    ap.add_argument('out_dir')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=211)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--only', default=None, help='comma-separated 1-based photo numbers to (re)make')
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    idx = list(range(1, a.count + 1))
    if a.only:
        want = sorted(set(int(s) for s in a.only.split(',') if s.strip()))
        bad = [k for k in want if not 1 <= k <= a.count]
        if bad:
            sys.exit('--only out of range 1..%d: %s' % (a.count, bad))
        idx = want
    t0 = time.time()
    jobs = max(1, min(2, a.jobs))
    if jobs > 1:
        import multiprocessing as mp
        with mp.get_context('fork').Pool(jobs, initializer=_init, initargs=(a.bank, a.seed, a.out_dir)) as pool:
            metas = list(pool.imap(_work, idx, chunksize=1))
    else:
        _init(a.bank, a.seed, a.out_dir)
        metas = [_work(i) for i in idx]
    # merge with an existing meta.jsonl when remaking a subset
    mpath = os.path.join(a.out_dir, 'meta.jsonl')
    allm = {}
    if a.only and os.path.exists(mpath):
        for l in open(mpath, encoding='utf-8'):
            if l.strip():
                mm = json.loads(l)
                allm[mm['qid']] = mm
    for mm in metas:
        allm[mm['qid']] = mm
    bank = {r['id']: r for r in load_bank(a.bank)}
    rows = [allm[k] for k in sorted(allm)]
    with open(mpath, 'w', encoding='utf-8') as fh:
        for mm in rows:
            fh.write(json.dumps(mm, ensure_ascii=False, sort_keys=True) + '\n')
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', encoding='utf-8', newline='') as fh:
        w = csv.writer(fh)
        w.writerow(['qid', 'text'])
        for mm in rows:
            w.writerow([mm['qid'], bank[mm['bank_id']]['question']])
    with open(os.path.join(a.out_dir, 'queries.csv'), 'w', encoding='utf-8', newline='') as fh:
        w = csv.writer(fh)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for mm in rows:
            w.writerow([mm['qid'], bank[mm['bank_id']]['question'], mm['bank_id'], 'exact'])
    print('made %d photo(s) in %.1f s -> %s' % (len(metas), time.time() - t0, a.out_dir))


if __name__ == '__main__':
    main()
