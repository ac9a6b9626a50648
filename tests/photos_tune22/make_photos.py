#!/usr/bin/env python3
"""Synthetic phone photos of SHORT framed problems on realistic school pages.

Usage:
    make_photos.py --bank BANK OUT --count 120 --seed 231 --jobs 2 [--only 3,17]

Every random draw of photo i comes from
np.random.default_rng(np.random.SeedSequence([seed, i])); the case plan of
photo i (layout, language, kinds, framed question, ...) is a pure function of
i (see plan_table), so it does not depend on --count or --seed.
"""
import argparse
import csv
import io
import json
import math
import os
import time

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# --------------------------------------------------------------------------
# bank and plan
# --------------------------------------------------------------------------

MASK64 = (1 << 64) - 1


def ih(i, salt, n):
    """Deterministic integer hash of (i, salt) reduced to range(n)."""
    x = (i * 0x9E3779B97F4A7C15 + (salt + 1) * 0xD1B54A32D192ED03) & MASK64
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK64
    x ^= x >> 31
    return x % n


def is_cjk(c):
    o = ord(c)
    return (0x4E00 <= o <= 0x9FFF) or (0x3400 <= o <= 0x4DBF)


def is_zh(q):
    return any(is_cjk(c) for c in q)


FULLWIDTH = set('，。：；？！（）《》、【】“”‘’')


def est_em(q):
    w = 0.0
    for c in q:
        if is_cjk(c) or c in FULLWIDTH or ord(c) >= 0xFF00:
            w += 1.0
        elif c == ' ':
            w += 0.3
        else:
            w += 0.56
    return w


def load_bank(path):
    rows = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line:
                r = json.loads(line)
                rows.append({'id': r['id'], 'question': r['question'],
                             'subject': r.get('subject', '')})
    return rows


ZH_SHORT_MAX = 17     # characters
EN_SHORT_MAX = 53     # characters


def short_pools(bank):
    zh = [k for k, r in enumerate(bank) if is_zh(r['question']) and len(r['question']) <= ZH_SHORT_MAX]
    en = [k for k, r in enumerate(bank) if not is_zh(r['question']) and len(r['question']) <= EN_SHORT_MAX]
    return zh, en


LAYOUT_CYCLE = ['list', 'grid', 'twocol', 'list', 'spaced', 'grid', 'twocol', 'list', 'grid', 'twocol']
# position of each cycle slot among the slots of the same layout
LAYOUT_POS = [LAYOUT_CYCLE[:k].count(LAYOUT_CYCLE[k]) for k in range(10)]
ZH_LABELS = ['dot', 'fdot', 'paren', 'fparen', 'bracket', 'circled', 'q', 'di', 'dun', 'dot', 'none']
EN_LABELS = ['dot', 'paren', 'rparen', 'q', 'qdot', 'bracket', 'dot', 'none']
LABEL_EFFECTS = ['faint', 'tiny', 'hand_circle', 'tick', 'cross', 'finger', 'pen']
MARK_TYPES = ['hand_answer', 'tick', 'highlight', 'circled_number']
KIND_NAMES = {
    1: 'tight_list', 2: 'grid_row', 3: 'two_column', 4: 'context_above_below',
    5: 'label_variants', 6: 'score_note', 7: 'student_marks'}
KIND_MIN_120 = {1: 30, 2: 25, 3: 25, 4: 30, 5: 25, 6: 15, 7: 20}


def lang_of(i):
    return 'en' if (i % 13) in (1, 5, 9, 12) else 'zh'


def grid_slot(i):
    """Items per row and the framed position for grid photo i, cycling through
    the positions among the earlier grid photos of the same language/width."""
    lang = lang_of(i)
    prev = [j for j in range(1, i) if LAYOUT_CYCLE[(j - 1) % 10] == 'grid' and lang_of(j) == lang]
    if lang == 'en':
        return 2, ['left', 'right'][len(prev) % 2]
    if len(prev) % 4 == 3:
        n2 = sum(1 for k in range(len(prev)) if k % 4 == 3)
        return 2, ['left', 'right'][n2 % 2]
    n3 = sum(1 for k in range(len(prev)) if k % 4 != 3)
    return 3, ['left', 'middle', 'right'][n3 % 3]


def base_plan(i):
    """Everything of the plan of photo i except the chosen question."""
    layout = LAYOUT_CYCLE[(i - 1) % 10]
    lang = lang_of(i)
    p = {'i': i, 'layout': layout, 'lang': lang}
    ncols, pos = 1, 'left'
    if layout == 'grid':
        ncols, pos = grid_slot(i)
    elif layout == 'twocol':
        ncols = 2
        g = 3 * ((i - 1) // 10) + LAYOUT_POS[(i - 1) % 10]
        pos = ['left', 'right'][g % 2]
    p['ncols'], p['pos'] = ncols, pos
    r = ih(i, 4, 20)
    if layout == 'list':
        above = 'heading' if r < 4 else 'instruction' if r < 7 else 'long_tail' if r < 11 else 'plain'
    elif layout == 'grid':
        above = 'heading' if r < 5 else 'instruction' if r < 8 else 'long_tail' if r < 10 else 'plain'
    elif layout == 'twocol':
        above = 'heading' if r < 4 else 'instruction' if r < 6 else 'long_tail' if r < 10 else 'plain'
    else:
        above = 'heading' if r < 5 else 'instruction' if r < 8 else 'plain'
    if layout == 'grid' and lang == 'en' and above == 'long_tail':
        above = 'instruction'   # an English grid page is too wide for a long neighbour to wrap
    p['above'] = above
    if layout in ('list', 'grid'):
        below = 'next'
    elif layout == 'twocol':
        below = ['next', 'answer_line', 'ruled', 'next'][ih(i, 5, 4)]
    else:
        below = ['answer_line', 'ruled', 'box'][ih(i, 5, 3)]
    p['below'] = below
    styles = ZH_LABELS if lang == 'zh' else EN_LABELS
    p['label_style'] = styles[ih(i, 6, len(styles))]
    eff = 'none'
    if p['label_style'] != 'none':
        if ih(i, 7, 20) < 7:
            eff = LABEL_EFFECTS[(3 * i) % len(LABEL_EFFECTS)]
    p['label_effect'] = eff
    r = ih(i, 8, 100)
    p['score'] = 'inline' if r < 12 else 'margin' if r < 25 else 'none'
    marks = []
    if ih(i, 9, 100) < 32:
        marks.append(MARK_TYPES[ih(i, 10, 4)])
        if ih(i, 13, 3) == 0:
            m2 = MARK_TYPES[ih(i, 14, 4)]
            if m2 not in marks:
                marks.append(m2)
    p['marks'] = sorted(marks)
    r = ih(i, 11, 10)
    p['distance'] = 'close' if r < 3 else 'medium' if r < 7 else 'far'
    if layout == 'spaced' and p['distance'] == 'far':
        p['distance'] = 'medium'   # answer space leaves too few problems for a far shot
    p['centre_at'] = ['start', 'middle', 'end'][ih(i, 12, 3)]
    kinds = []
    if layout == 'list':
        kinds.append(1)
    if layout == 'grid':
        kinds.append(2)
    if layout == 'twocol':
        kinds.append(3)
    if above != 'plain' or below in ('answer_line', 'ruled', 'box'):
        kinds.append(4)
    if p['label_style'] == 'none' or eff != 'none':
        kinds.append(5)
    if p['score'] != 'none':
        kinds.append(6)
    if marks:
        kinds.append(7)
    p['kinds'] = kinds
    p['layout'] = layout
    return p


def max_em_for(p):
    if p['layout'] == 'grid':
        if p['lang'] == 'zh':
            return 12.5 if p['ncols'] == 3 else 18.0
        return 25.0
    if p['layout'] == 'twocol':
        return 18.0 if p['lang'] == 'zh' else 26.0
    return 99.0


_PLAN_CACHE = {}


def plan_table(bank, upto):
    """Plans of photos 1..upto. The question of photo i is chosen greedily
    (least used so far, ties broken by a hash of i) from the short pool of its
    language that fits its layout; it depends only on i."""
    key = id(bank)
    cached = _PLAN_CACHE.get(key)
    if cached is not None and len(cached) >= upto:
        return cached[:upto]
    zh, en = short_pools(bank)
    used = {}
    plans = []
    for i in range(1, upto + 1):
        p = base_plan(i)
        pool = zh if p['lang'] == 'zh' else en
        lim = max_em_for(p)
        cand = [k for k in pool if est_em(bank[k]['question']) <= lim] or pool
        best = min(cand, key=lambda k: (used.get(k, 0), ih(i, 1000 + k, 1 << 30)))
        used[best] = used.get(best, 0) + 1
        p['bank_index'] = best
        p['bank_id'] = bank[best]['id']
        plans.append(p)
    _PLAN_CACHE[key] = plans
    return plans


# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------

NOTO = '/usr/share/fonts/opentype/noto/'
DJ = '/usr/share/fonts/truetype/dejavu/'
LB = '/usr/share/fonts/truetype/liberation/'
FACE_FILES = {
    'sans_sc': (NOTO + 'NotoSansCJK-Regular.ttc', 2),
    'sans_sc_bold': (NOTO + 'NotoSansCJK-Bold.ttc', 2),
    'serif_sc': (NOTO + 'NotoSerifCJK-Regular.ttc', 2),
    'serif_sc_bold': (NOTO + 'NotoSerifCJK-Bold.ttc', 2),
    'mono_sc': (NOTO + 'NotoSansCJK-Regular.ttc', 7),
    'mono_sc_bold': (NOTO + 'NotoSansCJK-Bold.ttc', 7),
    'dejavu_sans': (DJ + 'DejaVuSans.ttf', 0),
    'dejavu_sans_bold': (DJ + 'DejaVuSans-Bold.ttf', 0),
    'dejavu_serif': (DJ + 'DejaVuSerif.ttf', 0),
    'dejavu_serif_bold': (DJ + 'DejaVuSerif-Bold.ttf', 0),
    'dejavu_cond': (DJ + 'DejaVuSansCondensed.ttf', 0),
    'dejavu_cond_bold': (DJ + 'DejaVuSansCondensed-Bold.ttf', 0),
    'lib_sans': (LB + 'LiberationSans-Regular.ttf', 0),
    'lib_sans_bold': (LB + 'LiberationSans-Bold.ttf', 0),
    'lib_serif': (LB + 'LiberationSerif-Regular.ttf', 0),
    'lib_serif_bold': (LB + 'LiberationSerif-Bold.ttf', 0),
    'lib_narrow': (LB + 'LiberationSansNarrow-Regular.ttf', 0),
    'lib_narrow_bold': (LB + 'LiberationSansNarrow-Bold.ttf', 0),
}


def _find_fallback_files():
    """Replace missing font files by whatever fc-match finds (best effort)."""
    import subprocess
    for k, (path, idx) in list(FACE_FILES.items()):
        if os.path.exists(path):
            continue
        query = 'Noto Sans CJK SC' if '_sc' in k else ('serif' if 'serif' in k else 'sans')
        try:
            out = subprocess.run(['fc-match', '-f', '%{file}', query], capture_output=True, text=True).stdout
            if out and os.path.exists(out):
                FACE_FILES[k] = (out, 0)
            else:
                del FACE_FILES[k]
        except Exception:
            del FACE_FILES[k]


_find_fallback_files()

_CMAPS = {}
_FONTS = {}


def face_cmap(face):
    cm = _CMAPS.get(face)
    if cm is None:
        from fontTools.ttLib import TTFont
        path, idx = FACE_FILES[face]
        f = TTFont(path, fontNumber=idx, lazy=True) if path.endswith('.ttc') else TTFont(path, lazy=True)
        cm = frozenset(f.getBestCmap().keys())
        f.close()
        _CMAPS[face] = cm
    return cm


def get_font(face, size):
    size = max(4, int(round(size)))
    key = (face, size)
    f = _FONTS.get(key)
    if f is None:
        path, idx = FACE_FILES[face]
        f = ImageFont.truetype(path, size, index=idx, layout_engine=ImageFont.Layout.BASIC)
        _FONTS[key] = f
    return f


def chain_for(primary):
    serif = 'serif' in primary
    bold = 'bold' in primary
    chain = [primary]
    cjk = ('serif_sc' if serif else 'sans_sc') + ('_bold' if bold else '')
    for c in (cjk, 'sans_sc', ('dejavu_serif' if serif else 'dejavu_sans') + ('_bold' if bold else ''),
              'dejavu_sans'):
        if c in FACE_FILES and c not in chain:
            chain.append(c)
    return tuple(c for c in chain if c in FACE_FILES)


_RUNS = {}


def split_runs(text, chain):
    key = (text, chain)
    r = _RUNS.get(key)
    if r is not None:
        return r
    runs = []
    for ch in text:
        face = None
        if ch == ' ':
            face = runs[-1][0] if runs else chain[0]
        else:
            for fc in chain:
                if ord(ch) in face_cmap(fc):
                    face = fc
                    break
            if face is None:
                face = chain[-1]
        if runs and runs[-1][0] == face:
            runs[-1][1] += ch
        else:
            runs.append([face, ch])
    r = [(f, s) for f, s in runs]
    _RUNS[key] = r
    return r


def missing_glyphs(text, chain):
    out = []
    for ch in text:
        if ch == ' ':
            continue
        if not any(ord(ch) in face_cmap(fc) for fc in chain):
            out.append(ch)
    return out


_MEAS = {}


def measure(text, chain, size):
    key = (text, chain, int(round(size)))
    m = _MEAS.get(key)
    if m is not None:
        return m
    x = 0.0
    top, bot, left, right = 1e9, -1e9, 1e9, -1e9
    for face, seg in split_runs(text, chain):
        f = get_font(face, size)
        if seg.strip():
            l, t, r, b = f.getbbox(seg, anchor='ls')
            left = min(left, x + l)
            right = max(right, x + r)
            top = min(top, t)
            bot = max(bot, b)
        x += f.getlength(seg)
    if left > right:
        left, right, top, bot = 0.0, x, -0.7 * size, 0.0
    m = (x, left, top, right, bot)
    _MEAS[key] = m
    return m


_ADV = {}


def advance(text, chain, size):
    key = (text, chain, int(round(size)))
    a = _ADV.get(key)
    if a is None:
        a = 0.0
        for face, seg in split_runs(text, chain):
            a += get_font(face, size).getlength(seg)
        _ADV[key] = a
    return a


# --------------------------------------------------------------------------
# page text content
# --------------------------------------------------------------------------

CN_NUM = '一二三四五六七八九十'
CIRCLED = '①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳'


def label_text(style, n):
    if style == 'dot':
        return '%d.' % n
    if style == 'fdot':
        return '%d．' % n
    if style == 'paren':
        return '(%d)' % n
    if style == 'fparen':
        return '（%d）' % n
    if style == 'bracket':
        return '【%d】' % n
    if style == 'circled':
        return CIRCLED[(n - 1) % 20]
    if style == 'q':
        return 'Q%d' % n
    if style == 'qdot':
        return 'Q%d.' % n
    if style == 'di':
        return '第%d题' % n
    if style == 'dun':
        return '%d、' % n
    if style == 'rparen':
        return '%d)' % n
    return ''


ZH_SECTIONS = ['选择题', '填空题', '简答题', '计算题', '解答题', '基础知识', '判断与说理', '知识回顾']
ZH_SEC_NOTES = ['', '（每小题3分，共15分）', '（每小题2分，共20分）', '（本大题共6小题）', '（共24分）', '（每空1分）']
ZH_INSTR = ['请在横线上作答。', '请将答案写在题后的横线上。', '阅读下列各题，直接写出答案。',
            '注意：解答时写出必要的文字说明和步骤。', '（本大题共8小题，每小题2分，共16分）', '请用黑色签字笔作答。']
EN_SECTIONS = ['Section A: Multiple choice', 'Section B: Short answers (2 marks each)',
               'Part II Vocabulary', 'Exercise 4', 'Section C: Calculations', 'Part I Basic facts',
               'Questions 1-10 (1 mark each)', 'Review questions']
EN_INSTR = ['Answer all questions.', 'Write your answers on the lines provided.', 'Show your working.',
            'Answer in complete sentences.', 'Use a black pen. Do not write in the margin.']
ZH_TITLES = ['{s}中学2023—2024学年第一学期期中检测', '{s}实验学校 七年级 单元测试卷', '课时作业（十二）',
             '{s}中学 九年级 第二次月考', '寒假作业 第5天', '习题 3.2', '同步练习 第二课时', '{s}市初中学业水平模拟考试']
ZH_SCHOOLS = ['第三', '育才', '实验', '城南', '东湖', '红星', '光明', '第一']
ZH_SUBJ = ['数学', '物理', '化学', '生物', '地理', '历史', '语文', '英语', '综合']
EN_TITLES = ['Unit 5 Review Worksheet', 'Homework Sheet 7', 'Mid-term Examination', 'Exercise 3.2',
             'Weekly Quiz - Science', 'Practice Paper B', 'Revision Worksheet', 'Chapter 4 Exercises']
ZH_HAND = ['x = 5', 'H2O', '公元前221年', '鲁迅', '朱自清', '4', '1949年', '太平洋', '长江', '亚洲',
           '23对', '肝脏', '小肠', '细胞核', '100℃', '(x+3)(x-3)', '3/4', '孔子', '氧气', '3', '李白', '新疆']
EN_HAND = ['went', 'gone', 'better', 'best', 'an', 'a', 'cheap', 'newton', 'the Nile', 'x > 4', '720°',
           '540°', 'cell', 'mitochondria', '1492', '2 mol', '3', 'since']


# --------------------------------------------------------------------------
# page layout
# --------------------------------------------------------------------------

def u(rng, a, b):
    return float(rng.uniform(a, b))


def choice(rng, seq):
    return seq[int(rng.integers(len(seq)))]


class Page:
    def __init__(self, rng, bank, plan, E, style):
        self.rng = rng
        self.bank = bank
        self.plan = plan
        self.E = E
        self.st = style
        self.ops_bg = []      # highlighter
        self.ops = []         # printed
        self.ops_pen = []     # pen marks on paper
        self.problems = []
        self.framed = None
        self.forbid = []      # rects (page px) marks must avoid
        self.marks = []
        self.lang = plan['lang']
        if self.lang == 'zh':
            pool = [k for k, r in enumerate(bank) if is_zh(r['question'])]
        else:
            pool = [k for k, r in enumerate(bank) if not is_zh(r['question'])]
            pool += [k for k, r in enumerate(bank) if r['subject'] == 'english' and is_zh(r['question'])]
        fq = bank[plan['bank_index']]['question']
        self.pool = [k for k in pool if bank[k]['question'] != fq]
        self.used = set()
        self.counter = 0
        self.wcache = {}
        self.occupied = []    # every printed text box (page px)

    # ---- neighbour choice
    def pick(self, want='any', max_w=None):
        """Choose a neighbour bank index. want: 'short' (fits max_w on one line),
        'long' (wider than max_w), or 'any'."""
        rng = self.rng
        c = self.st['chain']
        E = self.E
        cand = [k for k in self.pool if k not in self.used]
        if len(cand) < 3:
            self.used = set()
            cand = list(self.pool)

        def w(k):
            v = self.wcache.get(k)
            if v is None:
                v = self.wcache[k] = advance(self.bank[k]['question'], c, E)
            return v
        if want == 'short' and max_w is not None:
            c2 = [k for k in cand if w(k) <= max_w]
            if not c2:
                c2 = [k for k in self.pool if w(k) <= max_w]
            cand = c2 or cand
        elif want == 'long' and max_w is not None:
            c2 = [k for k in cand if w(k) > max_w * 1.05]
            if not c2:
                c2 = sorted(cand, key=lambda k: (-w(k), k))[:3]
            cand = c2
        k = cand[int(rng.integers(len(cand)))]
        self.used.add(k)
        return k

    # ---- primitive drawing ops
    def text(self, x, y, s, chain=None, size=None, fill=None):
        chain = chain or self.st['chain']
        size = size or self.E
        fill = self.st['ink'] if fill is None else fill
        self.ops.append(('text', x, y, s, chain, size, fill))
        adv, l, t, r, b = measure(s, chain, size)
        box = (x + l, y + t, x + r, y + b)
        self.occupied.append(box)
        return box, adv

    def hline(self, x0, x1, y, w=None, fill=None):
        w = w or max(1, self.E * 0.06)
        self.ops.append(('line', x0, y, x1, y, w, self.st['ink'] if fill is None else fill))

    def rect(self, x0, y0, x1, y1, w=None):
        w = w or max(1, self.E * 0.05)
        self.ops.append(('rect', x0, y0, x1, y1, w, self.st['ink']))

    # ---- wrapping
    def wrap(self, s, width, chain, size):
        toks = []
        cur = ''
        for ch in s:
            if ch == ' ':
                if cur:
                    toks.append(cur)
                    cur = ''
                toks.append(' ')
            elif is_cjk(ch) or ch in FULLWIDTH:
                if cur:
                    toks.append(cur)
                    cur = ''
                toks.append(ch)
            else:
                cur += ch
        if cur:
            toks.append(cur)
        lines = []
        line = ''
        for tok in toks:
            cand = line + tok
            if line and advance(cand.rstrip(), chain, size) > width:
                if tok in '，。：；？！）》、”' and len(tok) == 1:
                    line = cand
                    continue
                lines.append(line.rstrip())
                line = '' if tok == ' ' else tok
            else:
                line = cand
        if line.strip():
            lines.append(line.rstrip())
        return lines or [s]

    # ---- a problem
    def item(self, x0, width, bl, k, n, framed=False, gap_after=None, score=None, force_one=False):
        """Lay out problem k with number n at column x0..x0+width, first baseline bl.
        Returns the next baseline."""
        st = self.st
        E = self.E
        pitch = st['pitch'] * E
        style = st['label_style']
        lab = label_text(style, n) if style != 'none' else ''
        lab_size = E
        lab_fill = st['ink']
        lab_chain = st['label_chain']
        if framed and self.plan['label_effect'] == 'tiny':
            lab_size = E * st['tiny_scale']
        if framed and self.plan['label_effect'] == 'faint':
            lab_fill = st['faint']
        rec = {'bank_index': k, 'bank_id': self.bank[k]['id'], 'n': n,
               'label': lab, 'label_box': None, 'framed': framed, 'order': len(self.problems)}
        x = x0
        if lab:
            lab_y = bl if lab_size == E else bl - E * u(self.rng, 0.0, 0.3)
            lb, ladv = self.text(x0, lab_y, lab, chain=lab_chain, size=lab_size, fill=lab_fill)
            rec['label_box'] = lb
            x = x0 + max(ladv, st['label_min'] * E if lab_size == E else 0) + st['label_gap'] * E
        q = self.bank[k]['question']
        chain = st['chain']
        sc_txt = None
        sc_w = 0
        if score:
            sc_txt = self.score_text()
            sc_w = advance(sc_txt, chain, E) + E
        avail = x0 + width - x - (sc_w if score else 0)
        if force_one or advance(q, chain, E) <= avail:
            lines = [q]
        else:
            lines = self.wrap(q, avail, chain, E)
        boxes = []
        ind = x if st['hanging'] else x0
        y = bl
        for li, ln in enumerate(lines):
            lx = x if li == 0 else ind
            b, adv_ = self.text(lx, y, ln, chain=chain, size=E)
            boxes.append(b)
            rec.setdefault('line_ends', []).append(lx + adv_)
            y += pitch
        last_bl = y - pitch
        rec['lines'] = boxes
        rec['text_box'] = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                           max(b[2] for b in boxes), max(b[3] for b in boxes))
        rec['baseline'] = bl
        rec['last_baseline'] = last_bl
        rec['col'] = (x0, x0 + width)
        rec['text_x'] = x
        if sc_txt:
            if score == 'inline':
                sx = rec['line_ends'][-1] + E * u(self.rng, 0.4, 1.2)
                if sx + sc_w - E > x0 + width:
                    sx = x0 + width - (sc_w - E)
            else:
                sx = x0 + width - (sc_w - E)
            sb, _ = self.text(sx, last_bl, sc_txt, chain=chain, size=E)
            rec['score_box'] = sb
            rec['score_text'] = sc_txt
            rec['score_pos'] = score
        self.problems.append(rec)
        if framed:
            self.framed = rec
            tb = rec['text_box']
            self.forbid.append((tb[0] - 0.15 * E, tb[1] - 0.1 * E, tb[2] + 0.15 * E, tb[3] + 0.1 * E))
            if rec['label_box']:
                lb = rec['label_box']
                self.forbid.append((lb[0] - 0.1 * E, lb[1] - 0.1 * E, lb[2] + 0.1 * E, lb[3] + 0.1 * E))
        g = st['gap'] if gap_after is None else gap_after
        return last_bl + pitch + g * E

    def n_lines(self, k, width):
        st = self.st
        E = self.E
        lw = 0.0
        if st['label_style'] != 'none':
            lw = max(advance(label_text(st['label_style'], 10), st['label_chain'], E), st['label_min'] * E) \
                + st['label_gap'] * E
        q = self.bank[k]['question']
        if advance(q, st['chain'], E) <= width - lw:
            return 1
        return len(self.wrap(q, width - lw, st['chain'], E))

    def pick_tail(self, width):
        """A long problem (wraps in `width`) whose last line ends short."""
        st = self.st
        E = self.E
        lw = 0.0
        if st['label_style'] != 'none':
            lw = max(advance(label_text(st['label_style'], 10), st['label_chain'], E), st['label_min'] * E) \
                + st['label_gap'] * E
        avail = width - lw
        good, good_used, wraps = [], [], []
        for k in self.pool:
            q = self.bank[k]['question']
            if advance(q, st['chain'], E) <= avail:
                continue
            lines = self.wrap(q, avail, st['chain'], E)
            if 2 <= len(lines) <= 4 and advance(lines[-1], st['chain'], E) < 0.5 * avail:
                (good_used if k in self.used else good).append(k)
            elif len(lines) >= 2:
                wraps.append(k)
        good = good or good_used or wraps
        if not good:
            return self.pick('long', width - 3 * E)
        k = good[int(self.rng.integers(len(good)))]
        self.used.add(k)
        return k

    def score_text(self):
        if self.lang == 'zh':
            return choice(self.rng, ['（2分）', '（3分）', '（4分）', '(2分)', '（1分）', '（5分）'])
        return choice(self.rng, ['[1 mark]', '(2 marks)', '[2]', '[3 marks]', '(1 mark)'])

    def heading(self, x0, bl, kind='heading', width=None):
        st = self.st
        E = self.E
        rng = self.rng
        if kind == 'heading':
            if self.lang == 'zh':
                s = CN_NUM[st['sec_no'] % 10] + '、' + choice(rng, ZH_SECTIONS) + choice(rng, ZH_SEC_NOTES)
            else:
                s = choice(rng, EN_SECTIONS)
            st['sec_no'] += 1
            size = E * u(rng, 1.0, 1.15)
            chain = st['bold_chain'] if rng.random() < 0.7 else st['chain']
        else:
            s = choice(rng, ZH_INSTR if self.lang == 'zh' else EN_INSTR)
            size = E * u(rng, 0.9, 1.0)
            chain = st['chain']
        if width is not None:
            while advance(s, chain, size) > width and len(s) > 4:
                s = s[:-2]
        b, _ = self.text(x0, bl, s, chain=chain, size=size)
        return bl + st['pitch'] * E * u(rng, 1.05, 1.35), s, b

    def answer_space(self, x0, width, bl, kind):
        """Draw an answer line / ruled lines / box after a problem; returns next baseline."""
        E = self.E
        rng = self.rng
        pitch = self.st['pitch'] * E
        if kind == 'answer_line':
            y = bl + pitch * u(rng, 0.95, 1.25)
            pre = '答：' if self.lang == 'zh' else 'Answer:'
            ind = x0 + E * u(rng, 0, 2)
            b, adv = self.text(ind, y, pre)
            xe = min(x0 + width, ind + adv + E * u(rng, 8, 22))
            self.hline(ind + adv + 0.2 * E, xe, y + 0.15 * E)
            return y + pitch * u(rng, 1.2, 1.6), ('answer_line', (ind, y - E, xe, y + 0.2 * E))
        if kind == 'ruled':
            n = int(rng.integers(2, 4))
            rp = E * u(rng, 1.6, 2.2)
            y = bl + rp * 0.9
            for _ in range(n):
                self.hline(x0 + 0.5 * E, x0 + width, y, w=max(1, E * 0.04))
                y += rp
            return y - rp + pitch * u(rng, 1.0, 1.4), ('ruled', (x0, bl + 0.3 * E, x0 + width, y - rp))
        if kind == 'box':
            h = E * u(rng, 2.5, 5.0)
            y0 = bl + 0.6 * E
            self.rect(x0 + 0.5 * E, y0, x0 + width - 0.2 * E, y0 + h)
            return y0 + h + E * 0.8 + E * 0.8, ('box', (x0 + 0.5 * E, y0, x0 + width, y0 + h))
        if kind == 'space':
            return bl + E * u(rng, 2.5, 6.0), ('space', None)
        return bl, (kind, None)


def fill_list(pg, x0, width, bl, y_target, long_p=0.2, spaced=False):
    """Generic filler: a flow of problems (with an occasional heading)."""
    rng = pg.rng
    E = pg.E
    since = 0
    while bl < y_target:
        if since >= 3 and rng.random() < 0.12:
            bl, _, _ = pg.heading(x0, bl, width=width)
            since = 0
        since += 1
        want = 'long' if rng.random() < long_p else 'short'
        k = pg.pick(want, width - 3 * E)
        pg.counter += 1
        bl = pg.item(x0, width, bl, k, pg.counter)
        if spaced:
            bl, _ = pg.answer_space(x0, width, pg.problems[-1]['last_baseline'],
                                    choice(rng, ['answer_line', 'ruled', 'space']))
    return bl


def fill_until(pg, x0, width, bl, limit):
    """Problems (one per entry) while the next one still ends above `limit`."""
    rng = pg.rng
    E = pg.E
    pitch = pg.st['pitch'] * E
    tries = 0
    while tries < 6:
        want = 'long' if rng.random() < 0.3 else 'short'
        k = pg.pick(want, width - 3 * E)
        n = pg.n_lines(k, width)
        if bl + n * pitch + pg.st['gap'] * E - 0.5 * pitch > limit:
            tries += 1
            continue
        pg.counter += 1
        bl = pg.item(x0, width, bl, k, pg.counter)
    return bl


def fill_grid(pg, x0, width, bl, nrows, ncols, gutter):
    E = pg.E
    cw = (width - (ncols - 1) * gutter) / ncols
    pitch = pg.st['pitch'] * E
    for _ in range(nrows):
        nb = bl
        for c in range(ncols):
            k = pg.pick('short', cw - 3 * E)
            pg.counter += 1
            nb = max(nb, pg.item(x0 + c * (cw + gutter), cw, bl, k, pg.counter, gap_after=0))
        bl = nb + pg.st['row_gap'] * E
    return bl


def page_header(pg, x0, width, bl):
    rng = pg.rng
    st = pg.st
    E = pg.E
    if pg.lang == 'zh':
        t = choice(rng, ZH_TITLES).replace('{s}', choice(rng, ZH_SCHOOLS))
        if rng.random() < 0.6:
            t += ' ' + choice(rng, ZH_SUBJ)
        name = '姓名：________  班级：________  学号：______  得分：______'
    else:
        t = choice(rng, EN_TITLES)
        name = 'Name: ______________  Class: ________  Date: ________  Score: ____'
    size = E * u(rng, 1.25, 1.6)
    tw = advance(t, st['bold_chain'], size)
    pg.text(x0 + max(0, (width - tw) / 2), bl, t, chain=st['bold_chain'], size=size)
    bl += size * 1.7
    if rng.random() < 0.8:
        ns = E * u(rng, 0.85, 1.0)
        while advance(name, st['chain'], ns) > width and len(name) > 10:
            name = name[:-3]
        nw = advance(name, st['chain'], ns)
        pg.text(x0 + max(0, (width - nw) / 2), bl, name, size=ns)
        bl += E * st['pitch'] * 1.5
    if rng.random() < 0.5:
        pg.hline(x0, x0 + width, bl - E * 0.9, w=max(1, E * 0.05))
        bl += E * 0.6
    return bl


def make_style(rng, plan, E):
    lang = plan['lang']
    if lang == 'zh':
        body = choice(rng, ['sans_sc', 'serif_sc', 'serif_sc', 'sans_sc', 'mono_sc', 'serif_sc', 'lib_serif+serif_sc'])
    else:
        body = choice(rng, ['dejavu_sans', 'dejavu_serif', 'lib_sans', 'lib_serif', 'lib_serif', 'dejavu_cond',
                            'lib_narrow', 'serif_sc', 'sans_sc'])
    if body == 'lib_serif+serif_sc':
        chain = tuple(c for c in ('lib_serif', 'serif_sc', 'dejavu_serif', 'sans_sc', 'dejavu_sans') if c in FACE_FILES)
        bold = chain_for('serif_sc_bold')
    else:
        if body not in FACE_FILES:
            body = 'sans_sc'
        chain = chain_for(body)
        b = body + '_bold'
        bold = chain_for(b if b in FACE_FILES else body)
    label_chain = bold if rng.random() < 0.3 else chain
    tight = plan['layout'] == 'list'
    pitch = u(rng, 1.3, 1.6) if tight else u(rng, 1.45, 1.9)
    gap = u(rng, 0.0, 0.25) if tight else u(rng, 0.3, 1.2)
    inkv = int(rng.integers(10, 60))
    tint = rng.integers(-8, 9, size=3)
    ink = tuple(int(np.clip(inkv + t, 0, 255)) for t in tint)
    st = {
        'body': body, 'chain': chain, 'bold_chain': bold, 'label_chain': label_chain,
        'pitch': pitch, 'gap': gap, 'row_gap': u(rng, 0.2, 0.9),
        'label_style': plan['label_style'], 'label_gap': u(rng, 0.2, 0.6),
        'label_min': u(rng, 0.0, 1.6) if rng.random() < 0.4 else 0.0,
        'hanging': rng.random() < 0.65, 'ink': ink,
        'faint': tuple(int(v) for v in np.clip(np.array(ink) + rng.integers(120, 170), 0, 235)),
        'tiny_scale': u(rng, 0.5, 0.68), 'sec_no': int(rng.integers(0, 4)),
        'doc_type': choice(rng, ['worksheet', 'exam_paper', 'homework', 'textbook']),
    }
    return st


def build_page(rng, bank, plan, E):
    """Lay the page out around the framed problem. Page coordinates in px at em=E."""
    st = make_style(rng, plan, E)
    pg = Page(rng, bank, plan, E, st)
    lang = plan['lang']
    layout = plan['layout']
    fq = bank[plan['bank_index']]['question']
    chain = st['chain']
    # width needed by the framed problem on one line
    lab_w = 0.0
    if st['label_style'] != 'none':
        lab_w = max(advance(label_text(st['label_style'], 20), st['label_chain'], E), st['label_min'] * E) \
            + st['label_gap'] * E
    need = lab_w + advance(fq, chain, E) + 0.3 * E
    if plan['score'] != 'none':
        need += advance('（3分）' if lang == 'zh' else '[3 marks]', chain, E) + (1.0 if layout == 'grid' else 2.0) * E
    if 'hand_answer' in plan['marks'] and layout != 'grid':
        need += 2.0 * E
    if lang == 'zh':
        Wt = E * u(rng, 36, 48)
    elif plan['above'] == 'long_tail':
        Wt = E * u(rng, 34, 42)     # so that a long English neighbour wraps and ends short
    else:
        Wt = E * u(rng, 40, 54)
    gutter = E * u(rng, 1.5, 3.5)
    if layout == 'grid':
        Wt = max(Wt, plan['ncols'] * need + (plan['ncols'] - 1) * gutter)
    elif layout == 'twocol':
        Wt = max(Wt, 2 * need + gutter, 2 * 16 * E + gutter)
    else:
        Wt = max(Wt, need)
    Wt = float(Wt)
    ml = E * u(rng, 3, 6)
    mt = E * u(rng, 3, 5)
    pw = Wt + ml + E * u(rng, 3, 6)
    x0 = ml
    pitch = st['pitch'] * E
    bl = mt + E
    if st['doc_type'] != 'textbook' or rng.random() < 0.3:
        bl = page_header(pg, x0, Wt, bl)
    else:
        # running header of a textbook page
        rh = ('第三章  ' + choice(rng, ZH_SUBJ)) if lang == 'zh' else 'Chapter 3  Review'
        pg.text(x0, bl, rh, size=E * 0.85)
        pg.hline(x0, x0 + Wt, bl + 0.4 * E, w=max(1, 0.04 * E))
        bl += pitch * 1.6
    pre_target = bl + E * u(rng, 0, 34) * (1.0 if rng.random() < 0.85 else 0.0)
    ctx = {'above': plan['above'], 'below': plan['below'], 'above_text': None}
    framed_col = None
    if layout == 'twocol':
        # Two columns, numbered column by column (left column first, as printed);
        # the framed short problem sits beside a long problem of the other column.
        cw = (Wt - gutter) / 2
        cols = [x0, x0 + cw + gutter]
        st['divider'] = rng.random() < 0.5
        fc = 0 if plan['pos'] == 'left' else 1
        score = plan['score'] if plan['score'] != 'none' else None
        post_len = E * u(rng, 25, 45)
        ko = pg.pick('long', cw - 3 * E)
        n_long = pg.n_lines(ko, cw)
        # context above the framed problem (decided first, to know its height)
        ctx_items = []
        if plan['above'] in ('heading', 'instruction'):
            if plan['above'] == 'instruction' and rng.random() < 0.5:
                ctx_items.append(('heading', 'heading'))
            ctx_items.append(('heading', plan['above']))
        elif plan['above'] == 'long_tail':
            ctx_items.append(('item', pg.pick_tail(cw)))
        else:
            ctx_items.append(('item', pg.pick('short', cw - 3 * E)))
        ctx_h = 0.0
        for kind, v in ctx_items:
            ctx_h += pitch * 1.35 if kind == 'heading' else pg.n_lines(v, cw) * pitch + st['gap'] * E

        def framed_part(c, bl_c, min_fbl):
            for kind, v in ctx_items:
                if kind == 'heading':
                    bl_c, s, _ = pg.heading(cols[c], bl_c, kind=v, width=cw)
                    if v == plan['above']:
                        ctx['above_text'] = s
                else:
                    pg.counter += 1
                    bl_c = pg.item(cols[c], cw, bl_c, v, pg.counter)
                    if plan['above'] == 'long_tail':
                        ctx['above_text'] = bank[v]['question']
            fbl = max(bl_c, min_fbl)
            pg.counter += 1
            nb = pg.item(cols[c], cw, fbl, plan['bank_index'], pg.counter, framed=True, score=score, force_one=True)
            if plan['below'] in ('answer_line', 'ruled'):
                nb, info = pg.answer_space(cols[c], cw, fbl, plan['below'])
                ctx['below_box'] = info[1]
            return nb, fbl

        def long_part(c, bl_c):
            pg.counter += 1
            nb = pg.item(cols[c], cw, bl_c, ko, pg.counter)
            pg.problems[-1]['beside_framed'] = True
            return nb

        ends = []
        bl_l = bl
        if rng.random() < 0.6:
            bl_l, _, _ = pg.heading(cols[0], bl_l, width=cw)
        bl_l = fill_list(pg, cols[0], cw, bl_l, pre_target, long_p=0.35)
        if fc == 0:
            bl_l, sync = framed_part(0, bl_l, 0)
            ends.append(fill_list(pg, cols[0], cw, bl_l, bl_l + post_len, long_p=0.35))
            target = sync - pitch * int(rng.integers(0, min(2, n_long)))
            bl_r = fill_until(pg, cols[1], cw, bl, target)
            bl_r = long_part(1, max(bl_r, target))
        else:
            sync = bl_l
            bl_l = long_part(0, bl_l)
            ends.append(fill_list(pg, cols[0], cw, bl_l, bl_l + post_len, long_p=0.35))
            target = sync + pitch * int(rng.integers(0, n_long))
            bl_r = fill_until(pg, cols[1], cw, bl, target - ctx_h)
            bl_r, _ = framed_part(1, bl_r, target)
        ends.append(fill_list(pg, cols[1], cw, bl_r, max(bl_r + E * 8, ends[0] - E * u(rng, 0, 6)), long_p=0.35))
        framed_col = (cols[fc], cw)
        page_h = max(max(ends) + pitch * 2, pw * 1.3) + E * 4
        if st.get('divider'):
            pg.ops.append(('line', x0 + cw + gutter / 2, mt, x0 + cw + gutter / 2, page_h - mt, max(1, 0.04 * E), st['ink']))
    else:
        spaced = layout == 'spaced'
        bl = fill_list(pg, x0, Wt, bl, pre_target, long_p=0.25, spaced=spaced)
        if st['label_style'] == 'circled':
            pg.counter = 0
        if plan['above'] in ('heading', 'instruction'):
            if plan['above'] == 'instruction' and rng.random() < 0.5:
                bl, _, _ = pg.heading(x0, bl, width=Wt)
            bl, s, _ = pg.heading(x0, bl, kind=plan['above'], width=Wt)
            ctx['above_text'] = s
        elif plan['above'] == 'long_tail':
            k = pg.pick_tail(Wt)
            pg.counter += 1
            bl = pg.item(x0, Wt, bl, k, pg.counter)
            ctx['above_text'] = bank[k]['question']
            if spaced:
                bl, _ = pg.answer_space(x0, Wt, pg.problems[-1]['last_baseline'], 'space')
        else:
            for _ in range(int(rng.integers(1, 5))):
                want = 'short' if (layout != 'spaced' and rng.random() < 0.8) else 'any'
                k = pg.pick(want, Wt - 3 * E if layout != 'grid' else Wt / plan['ncols'] - 3 * E)
                pg.counter += 1
                bl = pg.item(x0, Wt, bl, k, pg.counter)
                if spaced:
                    bl, _ = pg.answer_space(x0, Wt, pg.problems[-1]['last_baseline'], plan['below'])
            if layout == 'grid' and rng.random() < 0.5:
                bl = fill_grid(pg, x0, Wt, bl, int(rng.integers(1, 3)), plan['ncols'], gutter)
        score = plan['score'] if plan['score'] != 'none' else None
        if layout == 'grid':
            ncols = plan['ncols']
            cw = (Wt - (ncols - 1) * gutter) / ncols
            fpos = {'left': 0, 'middle': 1, 'right': ncols - 1}[plan['pos']]
            nb = bl
            for c in range(ncols):
                pg.counter += 1
                if c == fpos:
                    nb = max(nb, pg.item(x0 + c * (cw + gutter), cw, bl, plan['bank_index'], pg.counter,
                                         framed=True, score=score, force_one=True, gap_after=0))
                else:
                    k = pg.pick('short', cw - 3 * E)
                    nb = max(nb, pg.item(x0 + c * (cw + gutter), cw, bl, k, pg.counter, gap_after=0,
                                         score=score))
                    pg.problems[-1]['row_mate'] = True
            bl = nb + st['row_gap'] * E
            framed_col = (x0 + fpos * (cw + gutter), cw)
            bl = fill_grid(pg, x0, Wt, bl, int(rng.integers(3, 7)), ncols, gutter)
        else:
            pg.counter += 1
            fbl = bl
            bl = pg.item(x0, Wt, bl, plan['bank_index'], pg.counter, framed=True, score=score, force_one=True)
            framed_col = (x0, Wt)
            if spaced or plan['below'] in ('answer_line', 'ruled', 'box'):
                bl, info = pg.answer_space(x0, Wt, fbl, plan['below'])
                ctx['below_box'] = info[1]
            # following problems (same block style)
            for _ in range(int(rng.integers(4, 10))):
                want = 'short' if rng.random() < 0.8 else 'any'
                k = pg.pick(want, Wt - 3 * E)
                pg.counter += 1
                sc = score if rng.random() < 0.8 else None
                bl = pg.item(x0, Wt, bl, k, pg.counter, score=sc)
                if spaced:
                    bl, _ = pg.answer_space(x0, Wt, pg.problems[-1]['last_baseline'], plan['below'])
        post = bl + E * u(rng, 25, 45)
        if rng.random() < 0.5 and layout != 'spaced':
            bl, _, _ = pg.heading(x0, bl, width=Wt)
        if layout == 'grid' or rng.random() < 0.3:
            bl = fill_grid(pg, x0, Wt, bl, int(rng.integers(2, 5)), max(2, plan['ncols']), gutter)
        bl = fill_list(pg, x0, Wt, bl, post, long_p=0.3, spaced=spaced)
        page_h = max(bl + pitch, pw * 1.3) + E * 4
    if st['doc_type'] == 'exam_paper' and rng.random() < 0.6:
        # binding line on the left margin
        xb = ml * 0.45
        pg.ops.append(('dash', xb, mt, xb, page_h - mt, max(1, 0.04 * E), st['ink']))
    if st['doc_type'] in ('textbook', 'homework') and rng.random() < 0.7:
        s = str(int(rng.integers(12, 180)))
        pg.text(x0 + Wt / 2, page_h - E * 2, s, size=E * 0.9)
    pg.page_w = pw
    pg.page_h = page_h
    pg.text_w = Wt
    pg.framed_col = framed_col
    pg.ctx = ctx
    add_label_effect(pg)
    add_marks(pg)
    return pg


# --------------------------------------------------------------------------
# pen marks (page space)
# --------------------------------------------------------------------------

def rect_overlap(a, b):
    return not (a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1])


def pen_colour(rng, red=False):
    if red:
        return (int(rng.integers(170, 215)), int(rng.integers(20, 50)), int(rng.integers(30, 60)))
    return choice(rng, [(25, 45, 140), (30, 30, 40), (20, 60, 160), (50, 50, 60)])


def wobble_ellipse(rng, cx, cy, rx, ry, n=48):
    a0 = u(rng, 0, 2 * math.pi)
    sweep = 2 * math.pi * u(rng, 1.05, 1.2)
    pts = []
    ph = u(rng, 0, 6.28)
    for j in range(n + 1):
        a = a0 + sweep * j / n
        r = 1.0 + 0.06 * math.sin(3 * a + ph) + 0.03 * (j / n)
        pts.append((cx + rx * r * math.cos(a), cy + ry * r * math.sin(a)))
    return pts


def tick_pts(rng, x, y, s):
    """A tick whose lower-left start is at (x, y - s*0.4), size s."""
    return [(x, y - 0.45 * s), (x + 0.35 * s, y), (x + s * u(rng, 0.9, 1.2), y - s * u(rng, 0.9, 1.2))]


def add_label_effect(pg):
    rng = pg.rng
    eff = pg.plan['label_effect']
    fr = pg.framed
    E = pg.E
    if eff == 'none' or not fr.get('label_box'):
        return
    lb = fr['label_box']
    cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2
    w, h = lb[2] - lb[0], lb[3] - lb[1]
    if eff == 'hand_circle':
        rx = w / 2 + 0.3 * E
        rx = min(rx, cx - lb[0] + (fr['text_box'][0] - lb[2]) * 0.9 + w / 2 * 0 + 0.25 * E)
        pts = wobble_ellipse(rng, cx, cy, max(rx, 0.45 * E), h / 2 + 0.35 * E)
        pg.ops_pen.append(('poly', pts, max(1.5, E * 0.07), pen_colour(rng, red=rng.random() < 0.5)))
        pg.marks.append({'type': 'label_circle', 'box': bbox_of(pts)})
    elif eff == 'tick':
        s = max(h, 0.8 * E) * u(rng, 0.9, 1.3)
        x = lb[0] - 0.2 * E
        pts = tick_pts(rng, x, lb[3] + 0.1 * E, s)
        pts = [(min(px, fr['text_box'][0] - 0.15 * E), py) for px, py in pts]
        pg.ops_pen.append(('poly', pts, max(1.5, E * 0.08), pen_colour(rng, red=True)))
        pg.marks.append({'type': 'label_tick', 'box': bbox_of(pts)})
    elif eff == 'cross':
        s = max(h, 0.7 * E) * 0.6
        xr = min(cx + s, fr['text_box'][0] - 0.15 * E)
        xl = cx - s
        for a, b in (((xl, cy - s), (xr, cy + s)), ((xl, cy + s), (xr, cy - s))):
            pg.ops_pen.append(('poly', [a, b], max(1.5, E * 0.08), pen_colour(rng, red=True)))
        pg.marks.append({'type': 'label_cross', 'box': (xl, cy - s, xr, cy + s)})
    # finger / pen are drawn in image space later


def bbox_of(pts):
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def hand_text_op(pg, x, bl, s, size, colour):
    """Handwriting: glyphs with per-character jitter (drawn in page space)."""
    rng = pg.rng
    chars = []
    xx = x
    slant = u(rng, -0.15, 0.05)
    for ch in s:
        sc = u(rng, 0.85, 1.12)
        chars.append((ch, xx, bl + u(rng, -0.08, 0.08) * size, size * sc, u(rng, -10, 10)))
        cw = advance(ch, chain_for('sans_sc'), size * sc)
        xx += cw * u(rng, 0.85, 1.05) if ch != ' ' else size * 0.3
    op = ('hand', chars, colour, slant)
    box = (x - 0.1 * size, bl - 1.0 * size, xx + 0.1 * size, bl + 0.3 * size)
    return op, box


def add_marks(pg):
    rng = pg.rng
    E = pg.E
    fr = pg.framed
    probs = [p for p in pg.problems if not p['framed']]
    near = sorted(probs, key=lambda p: abs(p['baseline'] - fr['baseline']) + abs(p['text_box'][0] - fr['text_box'][0]) * 0.3)[:8]
    hand_size = E * u(rng, 0.9, 1.3)
    colour = pen_colour(rng)

    def free(box, printed=True):
        if any(rect_overlap(box, f) for f in pg.forbid):
            return False
        if printed:
            m = 0.1 * E
            mx = 0.5 * E
            return not any(rect_overlap(box, (o[0] - mx, o[1] - m, o[2] + mx, o[3] + m)) for o in pg.occupied)
        return True

    todo = list(pg.plan['marks'])
    if 'circled_number' in todo and not any(p.get('label_box') for p in [fr] + near):
        todo = [('tick' if m == 'circled_number' else m) for m in todo]   # nothing to circle on this page
    for m in todo:
        if m == 'hand_answer':
            s = choice(rng, ZH_HAND if pg.lang == 'zh' else EN_HAND)
            placed = False
            bb = pg.ctx.get('below_box')
            spots = []
            if bb:
                spots.append((bb[0] + E * u(rng, 2.5, 4), (bb[1] + bb[3]) / 2 + 0.4 * E if pg.ctx['below'] == 'box' else bb[3] - 0.05 * E))
            # to the right of the framed text
            right_end = fr['col'][1]
            if fr.get('score_box') and fr.get('score_pos') == 'margin':
                right_end = fr['score_box'][0] - 0.5 * E
            x = (fr['score_box'][2] if fr.get('score_pos') == 'inline' else fr['text_box'][2]) + E * u(rng, 0.8, 2.0)
            if x + advance(s, chain_for('sans_sc'), hand_size) < right_end:
                spots.append((x, fr['baseline'] + u(rng, -0.1, 0.15) * E))
            for p in near[:4]:
                spots.append((p['line_ends'][-1] + E * u(rng, 1.0, 2.5), p['last_baseline']))
            for sx, sy in spots:
                op, box = hand_text_op(pg, sx, sy, s, hand_size, colour)
                if free(box):
                    pg.ops_pen.append(op)
                    pg.marks.append({'type': 'hand_answer', 'text': s, 'box': box})
                    placed = True
                    break
            if not placed and near:
                p = near[0]
                op, box = hand_text_op(pg, p['text_box'][0], p['last_baseline'] - 0.2 * E, s, hand_size * 0.8, colour)
                if free(box):
                    pg.ops_pen.append(op)
                    pg.marks.append({'type': 'hand_answer', 'text': s, 'box': box})
        elif m == 'tick':
            targets = [fr] + near[:5]
            n = int(rng.integers(1, 4))
            red = rng.random() < 0.7
            for p in targets:
                if n <= 0:
                    break
                s = E * u(rng, 0.8, 1.3)
                if rng.random() < 0.5:
                    x = p['col'][0] - E * u(rng, 1.6, 2.4)
                else:
                    x = p['line_ends'][-1] + E * u(rng, 0.8, 2.5)
                    if p.get('score_pos') == 'inline':
                        x = p['score_box'][2] + E * 0.8
                pts = tick_pts(rng, x, p['last_baseline'] + 0.1 * E, s)
                box = bbox_of(pts)
                if free(box):
                    pg.ops_pen.append(('poly', pts, max(1.5, E * 0.08), pen_colour(rng, red=red)))
                    pg.marks.append({'type': 'tick', 'box': box, 'on': p['bank_id']})
                    n -= 1
        elif m == 'highlight':
            target = fr if rng.random() < 0.5 else (near[0] if near else fr)
            col = choice(rng, [(255, 242, 90), (190, 250, 140), (255, 190, 220), (255, 225, 120)])
            for b in target['lines']:
                x0, x1 = b[0] - u(rng, 0.1, 0.5) * E, b[2] + u(rng, 0.1, 0.6) * E
                yc = (b[1] + b[3]) / 2 + u(rng, -0.1, 0.1) * E
                hh = E * u(rng, 0.45, 0.62)
                tilt = u(rng, -0.15, 0.15) * E
                pts = [(x0, yc - hh + tilt), (x1, yc - hh - tilt), (x1 + 0.1 * E, yc + hh - tilt), (x0 - 0.1 * E, yc + hh + tilt)]
                pg.ops_bg.append(('hl', pts, col))
            pg.marks.append({'type': 'highlight', 'on': target['bank_id'], 'box': target['text_box']})
        elif m == 'circled_number':
            cands = [p for p in near if p.get('label_box')]
            if not cands and fr.get('label_box'):
                cands = [fr]
            for p in cands:
                lb = p['label_box']
                cx, cy = (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2
                rx, ry = (lb[2] - lb[0]) / 2 + 0.3 * E, (lb[3] - lb[1]) / 2 + 0.3 * E
                box = (cx - rx, cy - ry, cx + rx, cy + ry)
                if p is fr or free(box, printed=False):
                    pts = wobble_ellipse(rng, cx, cy, rx, ry)
                    pg.ops_pen.append(('poly', pts, max(1.5, E * 0.07), pen_colour(rng, red=rng.random() < 0.5)))
                    pg.marks.append({'type': 'circled_number', 'on': p['bank_id'], 'box': box})
                    break


# --------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------

def render_crop(pg, ox, oy, cw, ch, paper):
    img = Image.new('RGB', (cw, ch), paper)
    d = ImageDraw.Draw(img)
    for op in pg.ops_bg:
        if op[0] == 'hl':
            pts = [(x - ox, y - oy) for x, y in op[1]]
            d.polygon(pts, fill=op[2])
    for op in pg.ops:
        kind = op[0]
        if kind == 'text':
            _, x, y, s, chain, size, fill = op
            if y - oy < -3 * size or y - oy > ch + 3 * size:
                continue
            xx = x - ox
            for face, seg in split_runs(s, chain):
                f = get_font(face, size)
                if seg.strip():
                    d.text((xx, y - oy), seg, font=f, fill=fill, anchor='ls')
                xx += f.getlength(seg)
        elif kind == 'line':
            _, x0, y0, x1, y1, w, fill = op
            d.line([(x0 - ox, y0 - oy), (x1 - ox, y1 - oy)], fill=fill, width=max(1, int(round(w))))
        elif kind == 'dash':
            _, x0, y0, x1, y1, w, fill = op
            L = math.hypot(x1 - x0, y1 - y0)
            n = int(L / (pg.E * 0.8))
            for j in range(0, n, 2):
                a, b = j / n, (j + 1) / n
                d.line([(x0 + (x1 - x0) * a - ox, y0 + (y1 - y0) * a - oy),
                        (x0 + (x1 - x0) * b - ox, y0 + (y1 - y0) * b - oy)], fill=fill, width=max(1, int(round(w))))
        elif kind == 'rect':
            _, x0, y0, x1, y1, w, fill = op
            d.rectangle([x0 - ox, y0 - oy, x1 - ox, y1 - oy], outline=fill, width=max(1, int(round(w))))
    for op in pg.ops_pen:
        if op[0] == 'poly':
            pts = [(x - ox, y - oy) for x, y in op[1]]
            d.line(pts, fill=op[3], width=max(1, int(round(op[2]))), joint='curve')
        elif op[0] == 'hand':
            _, chars, colour, slant = op
            for chv, x, y, size, rot in chars:
                if chv == ' ':
                    continue
                face = split_runs(chv, chain_for('sans_sc'))[0][0]
                f = get_font(face, size)
                S = int(size * 2)
                gl = Image.new('L', (S, S), 0)
                ImageDraw.Draw(gl).text((S / 2, S / 2 + size * 0.35), chv, font=f, fill=255, anchor='ms',
                                        stroke_width=max(0, int(size * 0.02)), stroke_fill=255)
                gl = gl.transform((S, S), Image.AFFINE, (1, slant, -slant * S / 2, 0, 1, 0), resample=Image.BILINEAR)
                gl = gl.rotate(rot, resample=Image.BILINEAR)
                px, py = int(round(x - ox)), int(round(y - oy - size * 0.35 - S / 2))
                img.paste(colour, (px, py), gl)
    return img


def H_translate(tx, ty):
    return np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]], dtype=np.float64)


def map_pts(H, pts):
    a = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    a = np.hstack([a, np.ones((len(a), 1))]) @ H.T
    return a[:, :2] / a[:, 2:3]


def box_quad(b):
    return [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]


def camera_matrix(p0, W, H, scale, rot_deg, ga, gb, aspect, shear):
    th = math.radians(rot_deg)
    R = np.array([[math.cos(th), -math.sin(th), 0], [math.sin(th), math.cos(th), 0], [0, 0, 1]])
    S = np.array([[scale * aspect, scale * shear, 0], [0, scale / aspect, 0], [0, 0, 1]])
    P = np.array([[1, 0, 0], [0, 1, 0], [ga / W, gb / H, 1]])
    return H_translate(W / 2, H / 2) @ P @ R @ S @ H_translate(-p0[0], -p0[1])


def inside(pts, W, H, m):
    return bool(np.all(pts[:, 0] >= m) and np.all(pts[:, 0] <= W - m) and np.all(pts[:, 1] >= m) and np.all(pts[:, 1] <= H - m))


def smooth_noise(rng, W, H, cells, amp):
    g = rng.standard_normal((cells[1], cells[0]), dtype=np.float32)
    return cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC) * amp


def capsule_field(W, H, a, b, r, box=None):
    """Distance of each pixel to segment a-b."""
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    ax, ay = a
    bx, by = b
    vx, vy = bx - ax, by - ay
    L2 = vx * vx + vy * vy + 1e-6
    t = np.clip(((xs - ax) * vx + (ys - ay) * vy) / L2, 0, 1)
    dx = xs - (ax + t * vx)
    dy = ys - (ay + t * vy)
    return np.sqrt(dx * dx + dy * dy)


def seg_dist(p, a, b):
    p, a, b = np.asarray(p, float), np.asarray(a, float), np.asarray(b, float)
    v = b - a
    t = np.clip(np.dot(p - a, v) / (np.dot(v, v) + 1e-9), 0, 1)
    return float(np.linalg.norm(p - (a + t * v)))


def poly_min_dist_to_seg(poly, a, b, n=12):
    """Minimum distance from points sampled on/in a quad to segment a-b."""
    poly = np.asarray(poly, float)
    best = 1e9
    for s in np.linspace(0, 1, n):
        for t in np.linspace(0, 1, 5):
            top = poly[0] + (poly[1] - poly[0]) * s
            bot = poly[3] + (poly[2] - poly[3]) * s
            p = top + (bot - top) * t
            best = min(best, seg_dist(p, a, b))
    return best


def add_occluder(rng, img, kind, lab_q, txt_q, em):
    """Finger or pen over the framed problem's label (image space)."""
    H, W = img.shape[:2]
    lab_q = np.asarray(lab_q, float)
    txt_q = np.asarray(txt_q, float)
    lc = lab_q.mean(axis=0)
    ux = (txt_q[1] - txt_q[0])
    ux /= np.linalg.norm(ux) + 1e-9
    uy = np.array([-ux[1], ux[0]])          # points "down" in page
    lw = np.linalg.norm(lab_q[1] - lab_q[0])
    lh = np.linalg.norm(lab_q[3] - lab_q[0])
    ang = math.radians(u(rng, 25, 75))
    dvec = -ux * math.cos(ang) + uy * math.sin(ang)
    if kind == 'finger':
        # a finger is 3-4 em wide; its tip rests on the label, just short of the text
        r = max(u(rng, 1.3, 2.0) * em, 0.6 * lw, 14.0)
        tstart = (txt_q[0] + txt_q[3]) / 2
        tip = tstart - ux * (r + 0.15 * em) + uy * u(rng, -0.1, 0.25) * em
    else:
        r = max(u(rng, 0.55, 0.85) * em, 0.45 * lh, 6.0)
        tip = lc.copy()
    for _ in range(40):
        far = tip + dvec * (W + H)
        if poly_min_dist_to_seg(txt_q, tip, far) > r + 0.12 * em:
            break
        tip = tip - ux * 0.08 * em
    far = tip + dvec * (W + H)
    # fields at half resolution (the occluder is out of focus anyway)
    f2 = 2.0
    W2, H2 = (W + 1) // 2, (H + 1) // 2
    dist = capsule_field(W2, H2, tuple(tip / f2), tuple(far / f2), r / f2) * f2
    if kind == 'finger':
        base = np.array([u(rng, 190, 225), u(rng, 140, 170), u(rng, 115, 145)], np.float32)
        soft = max(2.0, r * 0.18)
    else:
        base = np.array(choice(rng, [(30, 35, 60), (200, 205, 210), (170, 30, 40), (20, 20, 25), (40, 90, 170)]), np.float32)
        soft = max(1.5, r * 0.08)
    alpha = np.clip((r - dist) / soft, 0, 1)
    shade = np.sqrt(np.clip(1 - (dist / r) ** 2, 0, 1))
    col = base[None, None, :] * (0.55 + 0.45 * shade[..., None])
    if kind == 'pen':
        # specular line along the barrel
        spec = np.exp(-((dist - 0.35 * r) / (0.12 * r + 0.5)) ** 2)
        col = col + 90 * spec[..., None]
    a3 = cv2.GaussianBlur(alpha, (0, 0), max(0.5, r * 0.02))
    a3 = cv2.resize(a3, (W, H), interpolation=cv2.INTER_LINEAR)[..., None]
    col = cv2.resize(col.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    # cast shadow
    d2 = capsule_field(W2, H2, tuple((tip + uy * 0.3 * r - ux * 0.2 * r) / f2), tuple(far / f2), r / f2) * f2
    sh = cv2.GaussianBlur(np.clip((r * 1.25 - d2) / (r * 0.4), 0, 1), (0, 0), r * 0.3 / f2)
    sh = cv2.resize(sh, (W, H), interpolation=cv2.INTER_LINEAR)
    if kind == 'finger':
        # nail: a lighter patch near the tip
        nail_c = tip + dvec * 0.55 * r
        dn = capsule_field(W2, H2, tuple(nail_c / f2), tuple((nail_c + dvec * 0.6 * r) / f2), 0) * f2
        nail = np.clip((0.45 * r - dn) / (0.1 * r), 0, 1)
        nail = cv2.resize(cv2.GaussianBlur(nail, (0, 0), 1.0), (W, H), interpolation=cv2.INTER_LINEAR)
        col = col * (1 - 0.35 * nail[..., None]) + np.array([235, 205, 195], np.float32) * 0.35 * nail[..., None]
    img = img * (1 - 0.35 * sh[..., None] * (1 - a3))
    img = img * (1 - a3) + np.clip(col, 0, 255) * a3
    return img, {'type': kind, 'tip': [round(float(tip[0]), 1), round(float(tip[1]), 1)],
                 'dir': [round(float(dvec[0]), 3), round(float(dvec[1]), 3)], 'radius': round(float(r), 1)}


SIZES = [(1280, 960), (960, 1280), (1600, 1200), (1200, 1600)]


def make_one(bank, plan, seed, out_dir):
    i = plan['i']
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    r = rng.random()
    W, Hh = SIZES[0] if r < 0.38 else SIZES[1] if r < 0.82 else SIZES[2] if r < 0.91 else SIZES[3]
    short = min(W, Hh)
    q = bank[plan['bank_index']]['question']
    # image em (px) by distance
    dist = plan['distance']
    # where along the framed text the image centre falls
    t = {'start': u(rng, 0.03, 0.18), 'middle': u(rng, 0.35, 0.65), 'end': u(rng, 0.82, 0.97)}[plan['centre_at']]
    est = est_em(q) * (1.0 if plan['lang'] == 'zh' else 1.05)
    half = W / 2 - 12
    close_frac = u(rng, 0.8, 0.95)
    if dist == 'close':
        # as large as the whole problem allows, given where the centre falls
        img_em = close_frac * half / max(t * est + 2.5, (1 - t) * est + 0.3)
        img_em = float(np.clip(img_em, short * 0.03, short * 0.1))
    elif dist == 'medium':
        img_em = short / 960 * u(rng, 27, 42)
    else:
        img_em = short / 960 * u(rng, 16.5, 23)
    ss = u(rng, 1.15, 1.5)
    E = int(np.clip(round(img_em * ss), 24, 170))
    pg = build_page(rng, bank, plan, E)
    fr = pg.framed
    tb = fr['text_box']
    p0 = (tb[0] + t * (tb[2] - tb[0]), (tb[1] + tb[3]) / 2 + u(rng, -0.15, 0.15) * (tb[3] - tb[1]))
    if dist == 'close':
        # refine with the real extents of label and text (page px -> em)
        left = p0[0] - (fr['label_box'][0] if fr.get('label_box') else tb[0])
        right = tb[2] - p0[0]
        em_fit = close_frac * half / (max(left, right) / E + 0.3)
        img_em = float(min(em_fit, E / 1.1, short * 0.1))
    rot = u(rng, -8, 8)
    ga, gb = u(rng, -0.22, 0.22), u(rng, -0.22, 0.22)
    aspect, shear = u(rng, 0.97, 1.03), u(rng, -0.03, 0.03)
    fq_pts = box_quad(tb)
    full_pts = list(fq_pts)
    if fr.get('label_box'):
        full_pts += box_quad(fr['label_box'])
    centres = [((p['text_box'][0] + p['text_box'][2]) / 2, (p['text_box'][1] + p['text_box'][3]) / 2) for p in pg.problems]
    # row mates (grid) / the long problem beside it (two columns) must show in part
    # (medium and far shots; a close shot may cut them away)
    mate_pts = []
    for p in pg.problems:
        if dist != 'close' and (p.get('row_mate') or p.get('beside_framed')):
            b = p['text_box']
            ym = (b[1] + b[3]) / 2
            if b[0] > tb[2]:
                mate_pts.append((min(b[2], b[0] + 1.5 * E), ym))
            else:
                mate_pts.append((max(b[0], b[2] - 1.5 * E), ym))
    # at least one student mark (kind 7) must show
    mark_pts = [((mk['box'][0] + mk['box'][2]) / 2, (mk['box'][1] + mk['box'][3]) / 2) for mk in pg.marks
                if mk['type'] in MARK_TYPES and mk.get('box') is not None]
    scale = img_em / E
    for attempt in range(60):
        A = camera_matrix(p0, W, Hh, scale, rot, ga, gb, aspect, shear)
        m = max(10.0, 0.35 * scale * E)
        ok = inside(map_pts(A, full_pts), W, Hh, m)
        for grp in (mate_pts, mark_pts):
            if ok and grp:
                mp = map_pts(A, grp)
                ok = bool(np.any((mp[:, 0] >= 0) & (mp[:, 0] < W) & (mp[:, 1] >= 0) & (mp[:, 1] < Hh)))
        cpts = map_pts(A, centres)
        vis = int(np.sum((cpts[:, 0] >= 0) & (cpts[:, 0] < W) & (cpts[:, 1] >= 0) & (cpts[:, 1] < Hh)))
        if ok and (dist != 'far' or vis >= 8 or scale * E < 13):
            break
        scale *= 0.93
    else:
        raise RuntimeError('photo %d: framed problem does not fit' % i)
    img_em = scale * E
    # page crop that covers the image
    Ainv = np.linalg.inv(A)
    corners = map_pts(Ainv, [(0, 0), (W, 0), (W, Hh), (0, Hh)])
    pad = 4
    x0 = int(max(0, math.floor(corners[:, 0].min()) - pad))
    y0 = int(max(0, math.floor(corners[:, 1].min()) - pad))
    x1 = int(min(math.ceil(pg.page_w), math.ceil(corners[:, 0].max()) + pad))
    y1 = int(min(math.ceil(pg.page_h), math.ceil(corners[:, 1].max()) + pad))
    paper = tuple(int(v) for v in np.clip(np.array([u(rng, 236, 252)] * 3) + rng.integers(-6, 5, size=3), 0, 255))
    crop = render_crop(pg, x0, y0, x1 - x0, y1 - y0, paper)
    crop = np.asarray(crop, dtype=np.uint8)
    sig = 0.42 / max(scale, 1e-3) - 0.3
    if sig > 0.15:
        crop = cv2.GaussianBlur(crop, (0, 0), sig)
    M = A @ H_translate(x0, y0)
    page = cv2.warpPerspective(crop, M, (W, Hh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=0).astype(np.float32)
    mask = cv2.warpPerspective(np.full((y1 - y0, x1 - x0), 255, np.uint8), M, (W, Hh), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32) * (1.0 / 255)
    # background (desk)
    desk = np.array(choice(rng, [(120, 85, 55), (150, 110, 70), (70, 70, 75), (180, 175, 165), (95, 60, 40), (40, 40, 45)]),
                    np.float32)
    bg = desk[None, None, :] * (1 + smooth_noise(rng, W, Hh, (9, 7), 0.08)[..., None])
    streak = smooth_noise(rng, W, Hh, (3, 40), 0.05)
    bg = bg * (1 + streak[..., None])
    small = cv2.resize(mask, (W // 4, Hh // 4), interpolation=cv2.INTER_AREA)
    soft = cv2.resize(cv2.GaussianBlur(small, (0, 0), max(0.5, img_em * 0.25 / 4)), (W, Hh),
                      interpolation=cv2.INTER_LINEAR)
    bg = bg * (1 - 0.35 * soft[..., None])
    img = page * mask[..., None] + bg * (1 - mask[..., None])
    # paper texture
    tex = smooth_noise(rng, W, Hh, (40, 30), u(rng, 0.005, 0.016)) + \
        rng.standard_normal((Hh, W), dtype=np.float32) * u(rng, 0.004, 0.012)
    img = img * (1 + tex[..., None] * mask[..., None])
    # quads
    fq_img = map_pts(A, fq_pts)
    lab_img = map_pts(A, box_quad(fr['label_box'])) if fr.get('label_box') else None
    occl = []
    if plan['label_effect'] in ('finger', 'pen') and lab_img is not None:
        img, info = add_occluder(rng, img, plan['label_effect'], lab_img, fq_img, img_em)
        occl.append(info)
    # lighting
    xn = (np.arange(W, dtype=np.float32) / W - 0.5)[None, :]
    yn = (np.arange(Hh, dtype=np.float32) / Hh - 0.5)[:, None]
    light = u(rng, 0.88, 1.05) * (1 + u(rng, -0.25, 0.25) * xn + u(rng, -0.25, 0.25) * yn)
    cxv, cyv = u(rng, -0.4, 0.4), u(rng, -0.4, 0.4)
    light = light * (1 - u(rng, 0.05, 0.3) * ((xn - cxv) ** 2 + (yn - cyv) ** 2))
    shadow = None
    if rng.random() < 0.45:
        ang = u(rng, 0, math.pi)
        off = u(rng, -0.45, 0.45)
        wband = u(rng, 0.08, 0.4)
        depth = u(rng, 0.2, 0.45)
        dd = (xn * math.cos(ang) + yn * math.sin(ang) - off)
        edge = u(rng, 0.01, 0.06)
        def sgm(v):
            return 1 / (1 + np.exp(np.clip(-v, -50, 50)))
        band = sgm((dd + wband / 2) / edge) * sgm(-(dd - wband / 2) / edge)
        if rng.random() < 0.4:   # half-plane shadow instead of a band
            band = sgm(dd / edge)
        light = light * (1 - depth * band)
        shadow = {'angle': round(ang, 3), 'offset': round(off, 3), 'depth': round(depth, 3)}
    wb = np.array([u(rng, 0.93, 1.05), u(rng, 0.97, 1.02), u(rng, 0.88, 1.03)], np.float32)
    img = img * light[..., None] * wb[None, None, :]
    # blur
    blur = {'type': 'none'}
    br = rng.random()
    if br < 0.15:
        k = int(rng.integers(3, 4 + int(np.clip(img_em / 6, 1, 4))))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        Mr = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), u(rng, 0, 180), 1.0)
        kern = cv2.warpAffine(kern, Mr, (k, k))
        kern /= kern.sum()
        img = cv2.filter2D(img, -1, kern)
        blur = {'type': 'motion', 'len': k}
    elif br < 0.75:
        s = u(rng, 0.3, float(np.clip(img_em / 25, 0.6, 1.4)))
        img = cv2.GaussianBlur(img, (0, 0), s)
        blur = {'type': 'gauss', 'sigma': round(s, 2)}
    # sensor noise
    ns = u(rng, 1.5, 6.0)
    noise = rng.standard_normal((Hh, W), dtype=np.float32) * ns
    cn = rng.standard_normal((Hh // 2, W // 2, 3), dtype=np.float32) * u(rng, 0.5, 2.0)
    img = img + noise[..., None] + cv2.resize(cn, (W, Hh), interpolation=cv2.INTER_LINEAR)
    img = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    qual = int(rng.integers(60, 93))
    qid = 'c%03d' % i
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, 'JPEG', quality=qual)
    with open(os.path.join(out_dir, qid + '.jpg'), 'wb') as f:
        f.write(buf.getvalue())
    # ---- meta
    def rq(pts):
        return [[round(float(x), 1), round(float(y), 1)] for x, y in pts]

    def cut_state(pts):
        pts = np.asarray(pts)
        ins = (pts[:, 0] >= 0) & (pts[:, 0] < W) & (pts[:, 1] >= 0) & (pts[:, 1] < Hh)
        return bool(ins.all()), bool(ins.any())

    neighbours = []
    f_order = fr['order']
    for p in pg.problems:
        if p['framed']:
            continue
        qd = map_pts(A, box_quad(p['text_box']))
        samp = np.vstack([qd, qd.mean(axis=0, keepdims=True), (qd[0] + qd[1]) / 2, (qd[2] + qd[3]) / 2])
        full, anyin = cut_state(samp)
        if not anyin:
            # a quad can still cross the image without any sample point inside
            if not (qd[:, 0].max() >= 0 and qd[:, 0].min() < W and qd[:, 1].max() >= 0 and qd[:, 1].min() < Hh):
                continue
        nb = {'bank_id': p['bank_id'], 'label': p['label'], 'quad': rq(qd), 'lines': len(p['lines']),
              'cut': not full, 'order': p['order'] - f_order}
        if p.get('label_box'):
            nb['label_quad'] = rq(map_pts(A, box_quad(p['label_box'])))
        if p.get('beside_framed'):
            nb['beside_framed'] = True
        if p.get('row_mate'):
            nb['row_mate'] = True
        if p.get('score_text'):
            nb['score_note'] = p['score_text']
        neighbours.append(nb)
    marks = []
    for mk in pg.marks:
        mm = {k: v for k, v in mk.items() if k != 'box'}
        if mk.get('box') is not None:
            mm['quad'] = rq(map_pts(A, box_quad(mk['box'])))
        marks.append(mm)
    ctx = dict(pg.ctx)
    if ctx.get('below_box') is not None:
        ctx['below_quad'] = rq(map_pts(A, box_quad(ctx['below_box'])))
    ctx.pop('below_box', None)
    face = pg.st['body']
    meta = {
        'qid': qid, 'bank_id': plan['bank_id'], 'text': q, 'size': [W, Hh], 'seed': seed,
        'kinds': plan['kinds'], 'kind_names': [KIND_NAMES[k] for k in plan['kinds']],
        'plan': {k: plan[k] for k in ('layout', 'lang', 'ncols', 'pos', 'above', 'below', 'label_style',
                                      'label_effect', 'score', 'marks', 'distance', 'centre_at')},
        'quad': rq(fq_img),
        'label': fr['label'], 'label_quad': rq(lab_img) if lab_img is not None else None,
        'centre': [W / 2, Hh / 2], 'centre_t': round(t, 3),
        'score_note': ({'text': fr['score_text'], 'position': fr['score_pos'],
                        'quad': rq(map_pts(A, box_quad(fr['score_box'])))} if fr.get('score_text') else None),
        'neighbours': neighbours,
        'visible_problems': vis,
        'fully_visible_problems': 1 + sum(1 for n in neighbours if not n['cut']),
        'context': ctx,
        'layout': {'layout': plan['layout'], 'columns': 2 if plan['layout'] == 'twocol' else 1,
                   'items_per_row': plan['ncols'] if plan['layout'] == 'grid' else 1, 'pos': plan['pos'],
                   'doc_type': pg.st['doc_type'], 'font': face, 'font_chain': list(pg.st['chain']),
                   'page_font_px': E, 'image_em_px': round(img_em, 2), 'label_style': plan['label_style'],
                   'line_pitch_em': round(pg.st['pitch'], 3), 'problem_gap_em': round(pg.st['gap'], 3),
                   'text_width_em': round(pg.text_w / E, 2), 'hanging_indent': pg.st['hanging']},
        'marks': marks, 'occluders': occl,
        'camera': {'rotation_deg': round(rot, 2), 'perspective': [round(ga, 3), round(gb, 3)], 'scale': round(scale, 4),
                   'distance': dist, 'blur': blur, 'noise_sigma': round(ns, 2), 'jpeg_quality': qual,
                   'shadow': shadow, 'homography_page_to_image': [[round(float(v), 8) for v in row] for row in A]},
        'missing_glyphs': missing_glyphs(q, pg.st['chain']),
    }
    truth_row = csv_line([qid, q])
    query_row = csv_line([qid, q, plan['bank_id'], 'exact'])
    meta_line = json.dumps(meta, ensure_ascii=False, sort_keys=True) + '\n'
    return qid, truth_row, query_row, meta_line


def csv_line(fields):
    buf = io.StringIO()
    csv.writer(buf, lineterminator='\n').writerow(fields)
    return buf.getvalue()


# --------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------

_G = {}


def _init(bank_path, seed, out_dir, count):
    cv2.setNumThreads(1)
    bank = load_bank(bank_path)
    _G['bank'] = bank
    _G['plans'] = plan_table(bank, count)
    _G['seed'] = seed
    _G['out'] = out_dir


def _work(i):
    return make_one(_G['bank'], _G['plans'][i - 1], _G['seed'], _G['out'])


def read_rows(path, header):
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for ln in lines:
        if not ln or ln == header:
            continue
        if ln.startswith('{'):
            qid = json.loads(ln)['qid']
        else:
            qid = ln.split(',', 1)[0]
        rows[qid] = ln + '\n'
    return rows


def write_rows(path, header, rows):
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8', newline='') as f:
        if header:
            f.write(header + '\n')
        for qid in sorted(rows):
            f.write(rows[qid])
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=231)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--only', default='')
    a = ap.parse_args(argv)
    jobs = max(1, min(2, a.jobs))
    os.makedirs(a.out, exist_ok=True)
    if a.only:
        idx = sorted({int(s) for s in a.only.split(',') if s.strip()})
        bad = [k for k in idx if k < 1 or k > a.count]
        if bad:
            ap.error('--only out of range 1..%d: %s' % (a.count, bad))
    else:
        idx = list(range(1, a.count + 1))
    t0 = time.time()
    results = []
    if jobs == 1 or len(idx) == 1:
        _init(a.bank, a.seed, a.out, a.count)
        for i in idx:
            results.append(_work(i))
    else:
        import multiprocessing as mp
        ctx = mp.get_context('fork')
        with ctx.Pool(jobs, initializer=_init, initargs=(a.bank, a.seed, a.out, a.count)) as pool:
            for r in pool.imap_unordered(_work, idx, chunksize=1):
                results.append(r)
    files = [('truth.csv', 'qid,text', 1), ('queries.csv', 'qid,query,expected_id,kind', 2), ('meta.jsonl', '', 3)]
    for name, header, col in files:
        path = os.path.join(a.out, name)
        rows = read_rows(path, header) if a.only else {}
        if not a.only:
            # a full run owns the folder's rows
            rows = {}
        for r in results:
            rows[r[0]] = r[col]
        write_rows(path, header, rows)
    if not a.only:
        # remove photos of an earlier, larger run
        for fn in sorted(os.listdir(a.out)):
            if fn.endswith('.jpg') and fn[0] == 'c' and fn[1:-4].isdigit() and int(fn[1:-4]) > a.count:
                os.remove(os.path.join(a.out, fn))
    print('made %d photo(s) in %.1f s -> %s' % (len(results), time.time() - t0, a.out))


if __name__ == '__main__':
    main()
