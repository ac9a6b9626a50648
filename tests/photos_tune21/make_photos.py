#!/usr/bin/env python3
"""Synthetic phone photos of printed worksheet pages -- set "photos_tune21".

Theme: problems whose own lines stop short of the column's right side
(teacher line breaks between sentences, one-line problems in a tight list,
answer / working lines, bracketed data or score notes on their own line,
paragraph styles, faint / small / missing labels) next to separate problems.

Every photo frames ONE bank problem: the image centre lies on one of that
problem's printed text lines, the whole problem is inside the photo and the
neighbouring problems above and below are visible.

Usage:
  python make_photos.py --bank BANK.jsonl OUTDIR --count 120 --seed 221 --jobs 2
  python make_photos.py --bank BANK.jsonl OUTDIR --count 120 --seed 221 --only 3,17

All random draws of photo i come from
np.random.default_rng(np.random.SeedSequence([seed, i])) (i = 1..count), so
any photo can be remade alone with --only and gives identical bytes.
"""
import argparse
import csv
import json
import math
import os
import time

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

EM = 80.0            # layout: one em of body text = 80 page units ("page px")
MARGIN_IMG = 12.0    # target must keep this many image px from the border
XH_MIN, XH_MAX = 14.0, 40.0

# ----------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------
_NOTO = '/usr/share/fonts/opentype/noto/'
_LIB = '/usr/share/fonts/truetype/liberation/'
_DV = '/usr/share/fonts/truetype/dejavu/'
FONT_FILES = {
    'noto_serif': (_NOTO + 'NotoSerifCJK-Regular.ttc', 2),
    'noto_serif_b': (_NOTO + 'NotoSerifCJK-Bold.ttc', 2),
    'noto_sans': (_NOTO + 'NotoSansCJK-Regular.ttc', 2),
    'noto_sans_b': (_NOTO + 'NotoSansCJK-Bold.ttc', 2),
    'lib_serif': (_LIB + 'LiberationSerif-Regular.ttf', 0),
    'lib_serif_b': (_LIB + 'LiberationSerif-Bold.ttf', 0),
    'lib_sans': (_LIB + 'LiberationSans-Regular.ttf', 0),
    'lib_sans_b': (_LIB + 'LiberationSans-Bold.ttf', 0),
    'lib_narrow': (_LIB + 'LiberationSansNarrow-Regular.ttf', 0),
    'lib_narrow_b': (_LIB + 'LiberationSansNarrow-Bold.ttf', 0),
    'dv_serif': (_DV + 'DejaVuSerif.ttf', 0),
    'dv_serif_b': (_DV + 'DejaVuSerif-Bold.ttf', 0),
    'dv_sans': (_DV + 'DejaVuSans.ttf', 0),
    'dv_sans_b': (_DV + 'DejaVuSans-Bold.ttf', 0),
    'dv_cond': (_DV + 'DejaVuSansCondensed.ttf', 0),
    'dv_cond_b': (_DV + 'DejaVuSansCondensed-Bold.ttf', 0),
}
# (name, CJK font, Latin font, fallback for symbols the Latin font lacks)
FACES = [
    ('song+times', 'noto_serif', 'lib_serif', 'dv_serif'),
    ('hei+arial', 'noto_sans', 'lib_sans', 'dv_sans'),
    ('song+dejavu_serif', 'noto_serif', 'dv_serif', 'dv_serif'),
    ('hei+dejavu_sans', 'noto_sans', 'dv_sans', 'dv_sans'),
    ('hei+arial_narrow', 'noto_sans', 'lib_narrow', 'dv_cond'),
    ('noto_sans_all', 'noto_sans', 'noto_sans', 'dv_sans'),
    ('noto_serif_all', 'noto_serif', 'noto_serif', 'dv_serif'),
    ('song+dejavu_cond', 'noto_serif', 'dv_cond', 'dv_cond'),
]

_CMAPS = {}
_FONTS = {}


def cmap(key):
    base = key[:-2] if key.endswith('_b') else key
    if base not in _CMAPS:
        from fontTools.ttLib import TTFont
        path, idx = FONT_FILES[base]
        t = TTFont(path, fontNumber=idx, lazy=True)
        _CMAPS[base] = set(t.getBestCmap().keys())
        t.close()
    return _CMAPS[base]


def font(key, size):
    size = round(float(size) * 8) / 8.0
    k = (key, size)
    f = _FONTS.get(k)
    if f is None:
        path, idx = FONT_FILES[key]
        f = ImageFont.truetype(path, size, index=idx,
                               layout_engine=ImageFont.Layout.BASIC)
        if len(_FONTS) > 400:
            _FONTS.clear()
        _FONTS[k] = f
    return f


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or
            0xFF00 <= o <= 0xFFEF or 0x3000 <= o <= 0x303F or
            ch in '\u201c\u201d\u2018\u2019\u2026\u2014')


def has_cjk(s):
    return any(is_cjk(c) and c not in '\u201c\u201d\u2018\u2019' for c in s)


class Face:
    def __init__(self, spec, bold=False):
        self.name = spec[0] + ('/bold' if bold else '')
        sfx = '_b' if bold else ''
        self.cjk, self.lat, self.fb = spec[1] + sfx, spec[2] + sfx, spec[3] + sfx

    def font_for(self, ch):
        if is_cjk(ch):
            return self.cjk
        o = ord(ch)
        if o in cmap(self.lat):
            return self.lat
        if o in cmap(self.fb):
            return self.fb
        return self.cjk

    def runs(self, s):
        out = []
        for ch in s:
            fk = self.font_for(ch)
            if out and out[-1][1] == fk:
                out[-1][0] += ch
            else:
                out.append([ch, fk])
        return [(a, b) for a, b in out]

    def measure(self, s, size=EM):
        return sum(font(fk, size).getlength(sub) for sub, fk in self.runs(s))

    def space(self, size=EM):
        return font(self.lat, size).getlength(' ')

    def x_ratio(self):
        b = font(self.lat, EM).getbbox('x', anchor='ls')
        return (b[3] - b[1]) / EM


# ----------------------------------------------------------------------------
# bank analysis
# ----------------------------------------------------------------------------
def load_bank(path):
    out = []
    with open(path, encoding='utf-8') as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            o = json.loads(line)
            out.append({'id': o['id'], 'question': o['question']})
    return out


def split_points(text):
    """Sentence/question ends inside the text -> [(pos, kind)], kind =
    'bracket' when the rest is one bracketed group (given data / choices)."""
    pts = []
    n = len(text)
    for p in range(1, n):
        ch = text[p - 1]
        rest = text[p:].strip()
        if not rest:
            continue
        ok = False
        if ch in '\uff1f?\u3002\uff01!':
            ok = True
        elif ch == '.' and text[p] == ' ' and p + 1 < n and (
                text[p + 1].isupper() or text[p + 1] in '(\uff08'):
            ok = True
        if ok:
            kind = 'sentence'
            if rest[0] in '(\uff08' and rest[-1] in ')\uff09' and \
                    rest.count('(') + rest.count('\uff08') == 1:
                kind = 'bracket'
            pts.append((p, kind))
    return pts


def subpart_split(text):
    """'(1) ... (2) ...' sub-parts inside the bank text (kind 7)."""
    import re
    m1 = re.search(r'[\(\uff08]1[\)\uff09]', text)
    m2 = re.search(r'[\(\uff08]2[\)\uff09]', text)
    if m1 and m2 and m1.start() < m2.start():
        return m1.start(), m2.start()
    return None


def lang_of(text):
    return 'zh' if has_cjk(text) else 'en'


def subject_of(qid):
    parts = qid.split('-')
    return parts[1] if len(parts) > 2 else 'x'


# ----------------------------------------------------------------------------
# labels, headings, small texts
# ----------------------------------------------------------------------------
LABEL_STYLES_ZH = ['dot_full', 'dot_ascii', 'dun', 'paren_full', 'paren_ascii']
LABEL_STYLES_EN = ['dot_ascii', 'paren_ascii', 'question', 'q']


def label_text(style, n):
    return {
        'dot_full': '%d\uff0e' % n,
        'dot_ascii': '%d.' % n,
        'dun': '%d\u3001' % n,
        'paren_full': '\uff08%d\uff09' % n,
        'paren_ascii': '(%d)' % n,
        'question': 'Question %d' % n,
        'q': 'Q%d.' % n,
    }[style]


ZH_NUM = '一二三四五六七八九十'
HEAD_ZH = ['选择题', '填空题', '计算题', '解答题', '简答题', '基础知识', '综合应用',
           '探究与实践']
HEAD_ZH_NOTE = ['', '（每小题 4 分）', '（共 20 分）', '（本大题共 6 小题）', '']
HEAD_EN = ['Part A  Short Answer', 'Part B  Problems', 'Section 2: Practice',
           'Exercise 3', 'Part C  Review', 'Section 1: Basics']
TITLES_ZH = ['七年级 数学 课后练习', '物理 单元测试卷（二）', '期中复习 · 综合练习',
             '课堂小测  第 3 课时', '寒假作业 · 第 5 天', '化学 周末练习',
             '八年级 生物 复习学案', '地理 · 历史 综合检测', '语文 基础知识过关']
TITLES_EN = ['Unit 4 Review Worksheet', 'Homework Sheet 7', 'Practice Test - Part 2',
             'Science Quiz', 'Weekly Revision', 'Class Exercise 12']
INFO_ZH = '班级：__________  姓名：__________  学号：______'
INFO_EN = 'Name: ______________   Class: ________   Date: ________'
INSTR_ZH = ['说明：请在每题下方写出答案，计算题要写出必要的过程。',
            '注意：本练习共 40 分钟，字迹要工整。']
INSTR_EN = ['Instructions: Answer all questions. Show your working where needed.',
            'Write your answers clearly in the space provided.']
FOOT = ['第 %d 页（共 4 页）', '\u2014 %d \u2014', 'Page %d of 4', '%d']


# ----------------------------------------------------------------------------
# line setting
# ----------------------------------------------------------------------------
OPEN_P = set('\uff08\u300a\u201c\u2018\u3010\u3014')
CLOSE_P = set('\uff0c\u3002\u3001\uff1b\uff1a\uff1f\uff01\uff09\u300b\u201d\u2019\u3011\u3015')


def make_atoms(text, face, size=EM):
    toks = []          # [string, glue]
    buf, buf_glue = '', 'none'
    pending = 'none'
    for ch in text:
        if ch == ' ':
            if buf:
                toks.append([buf, buf_glue])
                buf = ''
            pending = 'space'
        elif is_cjk(ch):
            if buf:
                toks.append([buf, buf_glue])
                buf = ''
            toks.append([ch, pending])
            pending = 'none'
        else:
            if not buf:
                buf_glue = pending
                pending = 'none'
            buf += ch
    if buf:
        toks.append([buf, buf_glue])
    merged = []
    for s, g in toks:        # closing punctuation sticks to what precedes it
        if merged and g == 'none' and all(c in CLOSE_P for c in s):
            merged[-1][0] += s
        else:
            merged.append([s, g])
    out = []
    carry = None             # opening punctuation sticks to what follows it
    for s, g in merged:
        if carry is not None:
            s2 = carry[0] + s
            carry = None
            s, g = s2, cg
        if all(c in OPEN_P for c in s):
            carry, cg = [s], g
            continue
        out.append([s, g])
    if carry is not None:
        out.append([carry[0], cg])
    atoms = []
    for s, g in out:
        runs = face.runs(s)
        w = sum(font(fk, size).getlength(sub) for sub, fk in runs)
        atoms.append({'s': s, 'glue': g, 'runs': runs, 'w': w})
    return atoms


def break_lines(atoms, w_first, w_other, space_w):
    lines, cur, curw, avail = [], [], 0.0, w_first
    for a in atoms:
        g = space_w if (cur and a['glue'] == 'space') else 0.0
        if cur and curw + g + a['w'] > avail + 1e-6:
            lines.append(cur)
            cur, curw, avail, g = [], 0.0, w_other, 0.0
        cur.append((a, g))
        curw += g + a['w']
    if cur:
        lines.append(cur)
    return lines


def natural_width(line):
    return sum(g + a['w'] for a, g in line)


def line_string(line):
    return ''.join((' ' if (j and a['glue'] == 'space') else '') + a['s']
                   for j, (a, g) in enumerate(line))


def run_ink_box(r):
    f = font(r['fk'], r['size'])
    b = f.getbbox(r['s'], anchor='ls')
    return [r['x'] + b[0], r['y'] + b[1], r['x'] + b[2], r['y'] + b[3]]


def union(boxes):
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return None
    return [min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes)]


def set_line(line, x_start, avail, baseline, justify, size, ink):
    n = len(line)
    extras = [0.0] * n
    nat = natural_width(line)
    justified = False
    if justify and n > 1 and avail > nat:
        cj = any(has_cjk(a['s']) for a, g in line)
        idx = [j for j in range(1, n) if cj or line[j][1] > 0]
        if idx:
            e = (avail - nat) / len(idx)
            if e < 3.0 * EM:
                for j in idx:
                    extras[j] = e
                justified = True
    x = x_start
    runs = []
    for j, (a, g) in enumerate(line):
        if j:
            x += g + extras[j]
        for sub, fk in a['runs']:
            runs.append({'x': x, 'y': baseline, 's': sub, 'fk': fk,
                         'size': size, 'ink': ink})
            x += font(fk, size).getlength(sub)
    return runs, x_start, x, justified


def text_line(face, s, x, baseline, size, ink):
    runs = []
    for sub, fk in face.runs(s):
        runs.append({'x': x, 'y': baseline, 's': sub, 'fk': fk, 'size': size,
                     'ink': ink})
        x += font(fk, size).getlength(sub)
    return runs, x


# ----------------------------------------------------------------------------
# item layout
# ----------------------------------------------------------------------------
def item_one_line_width(page, text, label):
    face = page['face']
    w = face.measure(text.replace('  ', ' '))
    if label:
        w += page['lab_face'].measure(label) + page['label_gap']
    if page['indent_mode'] == 'hanging':
        w = page['tab'] + face.measure(text)
    elif page['indent_mode'] == 'first_line':
        w += page['first_indent']
    return w


def layout_item(page, item, x0, x1, cur):
    """Lay one problem out starting at slot top `cur` -> (result, new_cur)."""
    face, lab_face = page['face'], page['lab_face']
    pitch = page['pitch']
    mode = page['indent_mode']
    space_w = face.space()
    res = {'lines': [], 'notes': [], 'after': [], 'runs': [], 'decos': []}

    def bl(c):
        return c + 0.5 * pitch + 0.32 * EM

    lab = item['label']
    lmode = item.get('label_mode', 'normal')
    lab_size = EM * (item.get('label_scale', 1.0) if lmode == 'small' else 1.0)
    lab_ink = item.get('label_ink', 1.0) if lmode == 'faint' else 1.0
    lx = x0 + (page['first_indent'] if mode == 'first_line' else 0.0)
    full_lab = lab if lab else label_text(page['label_style'], item['num'])
    full_w = lab_face.measure(full_lab)
    if lab and lmode == 'small':
        lab_w = lab_face.measure(lab, lab_size)
    else:
        lab_w = full_w
    if mode == 'hanging':
        tx = x0 + page['tab']
    elif lab is None and not item.get('missing_keep_space', False):
        tx = lx
    else:
        tx = lx + (lab_w if lab else full_w) + page['label_gap']
    cont_x = x0 + page['tab'] if mode == 'hanging' else x0

    for pi, piece in enumerate(item['pieces']):
        atoms = make_atoms(piece, face)
        first_x = tx if pi == 0 else cont_x
        align = item['piece_align'][pi]
        if align == 'right':
            nat = sum(a['w'] for a in atoms) + space_w * sum(
                1 for j, a in enumerate(atoms) if j and a['glue'] == 'space')
            if nat <= x1 - cont_x:
                first_x = x1 - nat
        broken = break_lines(atoms, x1 - first_x, x1 - cont_x, space_w)
        for li, la in enumerate(broken):
            xs = first_x if li == 0 else cont_x
            last = li == len(broken) - 1
            b = bl(cur)
            just = page['align'] == 'justified' and not last and align != 'right'
            runs, tx0, tx1, did = set_line(la, xs, x1 - xs, b, just, EM, 1.0)
            box = union([run_ink_box(r) for r in runs])
            line = {'runs': runs, 'baseline': b, 'text': line_string(la),
                    'text_span': [tx0, tx1], 'box': box, 'piece': pi,
                    'wrap_index': li, 'justified': did, 'has_label': False,
                    'slot': [cur, cur + pitch]}
            if pi == 0 and li == 0 and lab:
                lruns, _ = text_line(lab_face, lab, lx, b, lab_size, lab_ink)
                line['runs'] = lruns + runs
                line['box'] = union([box] + [run_ink_box(r) for r in lruns])
                line['has_label'] = True
                line['label_box'] = union([run_ink_box(r) for r in lruns])
            res['lines'].append(line)
            cur += pitch
    # score note on its own line at the right
    if item.get('score_note'):
        s = item['score_note']
        w = face.measure(s)
        b = bl(cur)
        runs, _ = text_line(face, s, x1 - w, b, EM, 1.0)
        res['notes'].append({'runs': runs, 'text': s, 'box': union(
            [run_ink_box(r) for r in runs]), 'baseline': b})
        cur += pitch
    # answer line / working lines
    ans = item.get('answer')
    if ans:
        if ans['gap'] == 'small_gap':
            cur += ans['gap_frac'] * pitch
        typ = ans['type']
        thick = 0.045 * EM
        ax = cont_x if ans.get('at') == 'cont' else tx
        b = bl(cur)
        if typ == 'answer_label':
            s = ans['text']
            runs, xe = text_line(face, s, ax, b, EM, 1.0)
            xe2 = x1 - ans['short'] * (x1 - xe)
            res['decos'].append({'t': 'line', 'p': [xe + 0.15 * EM, b + 0.12 * EM,
                                                    xe2, b + 0.12 * EM],
                                 'w': thick, 'ink': 0.9})
            res['after'].append({'type': typ, 'text': s, 'runs': runs,
                                 'box': [ax, b - 0.85 * EM, xe2, b + 0.2 * EM]})
            cur += pitch
        elif typ == 'blank_rule':
            res['decos'].append({'t': 'line', 'p': [ax, b + 0.1 * EM, x1, b + 0.1 * EM],
                                 'w': thick, 'ink': 0.85})
            res['after'].append({'type': typ, 'text': '', 'runs': [],
                                 'box': [ax, b, x1, b + 0.2 * EM]})
            cur += pitch
        elif typ == 'ans_dots':
            s = ans['text']
            runs, xe = text_line(face, s, ax, b, EM, 1.0)
            step = 0.3 * EM
            x = xe + 0.3 * EM
            pts = []
            while x < x1 - 0.05 * EM:
                pts.append(x)
                x += step
            res['decos'].append({'t': 'dots', 'xs': pts, 'y': b - 0.06 * EM,
                                 'r': 0.045 * EM, 'ink': 0.9})
            res['after'].append({'type': typ, 'text': s, 'runs': runs,
                                 'box': [ax, b - 0.85 * EM, x1, b + 0.2 * EM]})
            cur += pitch
        elif typ == 'working':
            for k in range(ans['n']):
                b = bl(cur)
                res['decos'].append({'t': 'line', 'p': [x0, b + 0.1 * EM, x1, b + 0.1 * EM],
                                     'w': thick * 0.8, 'ink': 0.6})
                res['after'].append({'type': typ, 'text': '', 'runs': [],
                                     'box': [x0, b, x1, b + 0.2 * EM]})
                cur += pitch
    for ln in res['lines']:
        res['runs'] += ln['runs']
    for nt in res['notes']:
        res['runs'] += nt['runs']
    for af in res['after']:
        res['runs'] += af['runs']
    res['text_box'] = union([ln['box'] for ln in res['lines']])
    res['block_box'] = union([res['text_box']] + [nt['box'] for nt in res['notes']])
    res['full_box'] = union([res['block_box']] + [af['box'] for af in res['after']])
    cur += item.get('gap', 0.0)
    return res, cur


# ----------------------------------------------------------------------------
# plan (deterministic per photo index; independent of --count)
# ----------------------------------------------------------------------------
K3_TYPES = ['answer_label', 'blank_rule', 'ans_dots', 'working']
K4_TYPES = ['bracket_left', 'bracket_right', 'score_note']
K5_STYLES = ['ragged', 'justified', 'hanging', 'first_line']
K6_MODES = ['faint', 'small', 'missing']


def plan_for(i):
    primary = (i - 1) % 5 + 1
    occ = (i - 1) // 5
    return {
        'primary': primary,
        'k1_role': 'target' if occ % 2 == 0 else 'neighbour',
        'k3_type': K3_TYPES[occ % 4],
        'k4_type': K4_TYPES[occ % 3],
        'k5_style': K5_STYLES[occ % 4],
        'k6': (i % 7 == 3),
        'k6_mode': K6_MODES[(i // 7) % 3],
    }


# ----------------------------------------------------------------------------
# page design + layout
# ----------------------------------------------------------------------------
def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


def uni(rng, a, b):
    return float(rng.uniform(a, b))


class Retry(Exception):
    pass


def design_page(rng, plan, bank, info):
    P = plan['primary']
    face_spec = FACES[int(rng.integers(len(FACES)))]
    face = Face(face_spec)
    lab_bold = rng.random() < 0.45
    page = {'face': face, 'lab_face': Face(face_spec, bold=lab_bold),
            'face_name': face.name, 'label_bold': bool(lab_bold)}
    xr = face.x_ratio()
    page['x_ratio'] = xr
    # paragraph style
    if P == 5:
        st = plan['k5_style']
        if st == 'ragged':
            mode, align = 'flush', 'ragged'
        elif st == 'justified':
            mode, align = pick(rng, ['flush', 'hanging', 'flush']), 'justified'
        elif st == 'hanging':
            mode, align = 'hanging', 'ragged'
        else:
            mode, align = 'first_line', pick(rng, ['ragged', 'ragged', 'justified'])
    else:
        r = rng.random()
        mode = 'flush' if r < 0.45 else ('hanging' if r < 0.8 else 'first_line')
        align = 'justified' if rng.random() < 0.4 else 'ragged'
    page['indent_mode'], page['align'] = mode, align
    # column width limits from the x-height constraint (full-width target must
    # fit a landscape frame at x-height XH_MIN)
    k_min = XH_MIN / (xr * EM)
    col_fit = 0.86 * (1280 - 2 * MARGIN_IMG) / k_min
    one_rng = (20 * EM, min(34 * EM, col_fit))
    two_rng = (13 * EM, min(22 * EM, col_fit))
    ncols = 2 if rng.random() < 0.3 else 1

    # ---- target choice
    items_info = info
    en_pref = rng.random() < 0.3

    def choose(pool):
        if not pool:
            raise Retry('empty pool')
        pe = [q for q in pool if q['lang'] == 'en']
        pz = [q for q in pool if q['lang'] == 'zh']
        if en_pref and pe:
            return pick(rng, pe)
        if pz and (not en_pref or not pe):
            return pick(rng, pz)
        return pick(rng, pool)

    # label style decided from target language later; measure with worst case
    if P == 1 and plan['k1_role'] == 'target':
        tq = choose([q for q in items_info if q['splits'] and q['splits'][0][1] == 'sentence'])
    elif P == 1:
        tq = choose([q for q in items_info if not q['splits']])
    elif P == 4 and plan['k4_type'] in ('bracket_left', 'bracket_right'):
        tq = choose([q for q in items_info if q['bracket_split'] is not None])
    elif P == 5:
        tq = choose([q for q in items_info if face.measure(q['text']) >= 20 * EM])
    else:
        tq = None        # kind 2/3/4-note: chosen after the column width
    page_lang = None
    if tq is not None:
        page_lang = tq['lang'] if rng.random() < 0.7 else 'mixed'
    else:
        page_lang = ('en' if en_pref else 'zh') if rng.random() < 0.7 else 'mixed'
    if page_lang == 'zh':
        lstyle = pick(rng, LABEL_STYLES_ZH)
    elif page_lang == 'en':
        lstyle = pick(rng, LABEL_STYLES_EN)
    else:
        lstyle = pick(rng, LABEL_STYLES_ZH + LABEL_STYLES_EN)
    page['label_style'] = lstyle
    page['page_lang'] = page_lang
    start_no = int(rng.integers(1, 16))
    page['start_no'] = start_no
    lf = page['lab_face']
    wide_lab = label_text(lstyle, 88)
    full_punct = lstyle in ('dot_full', 'dun', 'paren_full')
    page['label_gap'] = (uni(rng, 0.0, 0.25) if full_punct else uni(rng, 0.3, 0.6)) * EM
    page['tab'] = lf.measure(wide_lab) + page['label_gap'] + 0.1 * EM
    page['first_indent'] = (2.0 if page_lang == 'zh' else uni(rng, 1.0, 2.0)) * EM

    def w1(text):   # one-line width of a problem incl. its label
        return item_one_line_width(page, text, wide_lab)

    # ---- column width
    if P == 2:
        cap_lo, cap_hi = (one_rng if ncols == 1 else two_rng)
        cap = uni(rng, cap_lo, cap_hi)
        fit = [q for q in items_info if w1(q['text']) <= cap * 0.98]
        longs = [q for q in fit if w1(q['text']) >= 0.88 * cap]
        if not longs:
            raise Retry('no long one-liners')
        page['_k2_fit'] = fit
        page['_k2_long'] = longs
        page['_k2_cap'] = cap
        col = None
    elif P == 5:
        wt = w1(tq['text'])
        if wt > one_rng[0] * 1.15 and rng.random() < 0.6:
            ncols = 1
        else:
            ncols = 2
        lo, hi = (one_rng if ncols == 1 else two_rng)
        hi = min(hi, wt / 1.12)
        lo = max(lo, wt / 3.5)
        if lo > hi:
            lo, hi = (two_rng[0], min(two_rng[1], wt / 1.12))
            ncols = 2
            if lo > hi:
                raise Retry('kind5 target too short')
        page['ncols_forced'] = ncols
        col = uni(rng, lo, hi)
    elif P == 1 and plan['k1_role'] == 'target':
        p0 = tq['splits'][0][0]
        first = tq['text'][:p0].rstrip()
        wf = w1(first)
        lo, hi = (one_rng if ncols == 1 else two_rng)
        lo2 = max(lo, wf * 1.1)
        if lo2 > hi:
            ncols = 1
            lo, hi = one_rng
            lo2 = max(lo, wf * 1.1)
        col = uni(rng, lo2, max(lo2, hi)) if lo2 <= hi else hi
    else:
        lo, hi = (one_rng if ncols == 1 else two_rng)
        col = uni(rng, lo, hi)
    page['ncols'] = ncols
    page['x_ratio'] = xr
    return page, tq, col


def build_layout(rng, plan, bank_info, i):
    """Design a page around the target and lay it out. Returns page dict."""
    P = plan['primary']
    page, tq, col = design_page(rng, plan, bank_info, bank_info)
    face = page['face']
    lstyle = page['label_style']
    wide_lab = label_text(lstyle, 88)

    def w1(text):
        return item_one_line_width(page, text, wide_lab)

    # ---- page-level features
    k2 = P == 2
    page['pitch'] = EM * (uni(rng, 1.3, 1.6) if k2 else uni(rng, 1.35, 1.85))
    if k2:
        gap_mode = 'none'
    else:
        gap_mode = pick(rng, ['none', 'none', 'small', 'large'])
    page['gap_mode'] = gap_mode
    gap = {'none': 0.0, 'small': uni(rng, 0.2, 0.5),
           'large': uni(rng, 0.6, 1.2)}[gap_mode] * page['pitch']
    p_break = 0.0 if k2 else 0.5
    p_bracket_line = 0.0 if k2 else 0.5
    bracket_right = rng.random() < 0.4
    if P == 3:
        ans_page = {'type': plan['k3_type'], 'p': 0.85}
    elif k2:
        ans_page = None
    elif rng.random() < 0.3:
        ans_page = {'type': pick(rng, K3_TYPES), 'p': 0.7}
    else:
        ans_page = None
    if P == 4 and plan['k4_type'] == 'score_note':
        note_page = True
    elif not k2 and rng.random() < 0.15:
        note_page = True
    else:
        note_page = False
    note_lang_en = page['page_lang'] == 'en' or (page['page_lang'] == 'mixed' and rng.random() < 0.5)
    if note_lang_en:
        note_fmt = pick(rng, ['(%d marks)', '[%d marks]', '(%d points)'])
    else:
        note_fmt = pick(rng, ['（%d分）', '（本题 %d 分）', '（%d 分）'])
    ans_gap = pick(rng, ['pitch', 'small_gap'])
    ans_gap_frac = uni(rng, 0.2, 0.6)
    working_n = int(rng.integers(1, 4))
    ans_short = uni(rng, 0.0, 0.5) if rng.random() < 0.5 else 0.0
    ans_at = pick(rng, ['cont', 'text'])

    # ---- choose kind-2 / generic target
    target_text_pool = bank_info
    if k2:
        fit = page['_k2_fit']
        longs = page['_k2_long']
        cap = page['_k2_cap']
        shorts = [q for q in fit if w1(q['text']) <= 0.55 * cap]
        if rng.random() < 0.3:
            tq = pick(rng, longs)
        elif rng.random() < 0.5 and shorts:
            tq = pick(rng, shorts)
        else:
            tq = pick(rng, fit)
    elif tq is None:
        pool = bank_info
        if page['page_lang'] in ('zh', 'en'):
            pl = [q for q in pool if q['lang'] == page['page_lang']]
            if pl:
                pool = pl
        tq = pick(rng, pool)
    target_text = tq['text']

    # ---- fillers
    def filler_ok(q, used):
        return (q['id'] not in used and q['text'] != target_text and
                target_text not in q['text'] and q['text'] not in target_text)

    def draw_filler(used, cond=None):
        cands = [q for q in bank_info if filler_ok(q, used) and (cond is None or cond(q))]
        if not cands:
            return None
        pl = page['page_lang']
        r = rng.random()
        if r < 0.45:
            c2 = [q for q in cands if q['subject'] == tq['subject']]
            if c2:
                cands = c2
        elif pl in ('zh', 'en') and r < 0.9:
            c2 = [q for q in cands if q['lang'] == pl]
            if c2:
                cands = c2
        return pick(rng, cands)

    ncols = page['ncols']
    for attempt in range(40):
        used = {tq['id']}
        nb = int(rng.integers(1, 7 if ncols == 1 else 13))
        if k2:
            nb = max(nb, 3)     # the special slots -3..-1 must exist
        seq = [None] * nb + [tq]
        k1_nb_slot = None
        if P == 1 and plan['k1_role'] == 'neighbour':
            k1_nb_slot = pick(rng, [-1, 1])
        # special slots around the target
        special = {}
        if k2:
            slots = [-3, -2, -1, 1, 2, 3]
            long_slot = None if w1(tq['text']) >= 0.88 * page['_k2_cap'] else pick(rng, [-2, -1, 1, 2])
            short_slot = pick(rng, [s for s in [-2, -1, 1, 2] if s != long_slot])
            for s in slots:
                if s == long_slot:
                    special[s] = lambda q: q in page['_k2_long']
                elif s == short_slot:
                    special[s] = lambda q: w1(q['text']) <= 0.55 * page['_k2_cap']
                else:
                    special[s] = lambda q: w1(q['text']) <= page['_k2_cap'] * 0.98
        if k1_nb_slot is not None:
            col_w = col
            special[k1_nb_slot] = lambda q: bool(q['splits']) and \
                q['splits'][0][1] == 'sentence' and \
                w1(q['text'][:q['splits'][0][0]].rstrip()) <= col_w * 0.92
        items_q = []
        ok = True
        n_after = 26 if ncols == 1 else 40
        full = [None] * nb + [tq] + [None] * n_after
        for idx in range(len(full)):
            if full[idx] is not None:
                continue
            rel = idx - nb
            cond = special.get(rel)
            q = draw_filler(used, cond)
            if q is None:
                if cond is not None:
                    ok = False
                    break
                full = full[:idx]
                break
            full[idx] = q
            used.add(q['id'])
        if not ok:
            continue
        full = [q for q in full if q is not None]
        t_idx = nb
        # column width for kind 2 from the actual neighbours
        if k2:
            ws = [w1(full[j]['text']) for j in range(max(0, t_idx - 3), min(len(full), t_idx + 4))]
            col = max(ws) * uni(rng, 1.01, 1.05)
        # ---- items
        items = []
        for j, q in enumerate(full):
            num = page['start_no'] + j
            it = {'qid': q['id'], 'text': q['text'], 'num': num,
                  'label': label_text(lstyle, num), 'label_mode': 'normal',
                  'pieces': [q['text']], 'piece_align': ['left'],
                  'break': None, 'gap': gap, 'answer': None, 'score_note': None,
                  'role': 'target' if j == t_idx else (
                      'above' if j == t_idx - 1 else ('below' if j == t_idx + 1 else 'other'))}
            rel = j - t_idx
            near2 = k2 and abs(rel) <= 3
            # teacher line break / bracket on own line
            force_break = None
            if P == 1 and plan['k1_role'] == 'target' and rel == 0:
                force_break = 'first'
            if P == 1 and plan['k1_role'] == 'neighbour':
                if rel == k1_nb_slot:
                    force_break = 'first'
                elif rel == 0:
                    force_break = 'no'
            if P == 4 and plan['k4_type'] != 'score_note' and rel == 0:
                force_break = 'bracket'
            if P in (2, 5) and rel == 0:
                force_break = 'no'
            if near2:
                force_break = 'no'
            if force_break is None:
                # random sentence breaks stay off the two immediate neighbours
                # (kind 1 with a neighbour is scheduled), so that the framed
                # problem is the two-sentence one in about half of kind 1
                r_ = rng.random()
                if q['splits'] and r_ < p_break and (abs(rel) != 1 or q['splits'][0][1] == 'bracket'):
                    force_break = 'first'
                elif q['bracket_split'] is not None and rng.random() < p_bracket_line:
                    force_break = 'bracket'
            if force_break == 'first' and q['splits']:
                p0, kd = q['splits'][0]
                it['pieces'] = [q['text'][:p0].rstrip(), q['text'][p0:].lstrip()]
                al = 'left'
                if kd == 'bracket':
                    if P == 4 and rel == 0:
                        al = 'right' if plan['k4_type'] == 'bracket_right' else 'left'
                    elif bracket_right:
                        al = 'right'
                it['piece_align'] = ['left', al]
                it['break'] = {'pos': p0, 'kind': kd, 'align': al}
            elif q['subparts'] is not None and not near2:
                # kind 7: '(1) ... (2) ...' sub-parts of the bank text on their own lines
                m1, m2 = q['subparts']
                parts = [q['text'][:m1].rstrip(), q['text'][m1:m2].strip(), q['text'][m2:].lstrip()]
                parts = [x for x in parts if x]
                it['pieces'] = parts
                it['piece_align'] = ['left'] * len(parts)
                it['break'] = {'pos': [m1, m2], 'kind': 'subparts', 'align': 'left'}
            elif force_break == 'bracket' and q['bracket_split'] is not None:
                p0 = q['bracket_split']
                al = 'right' if (plan['k4_type'] == 'bracket_right' if (P == 4 and rel == 0)
                                 else bracket_right) else 'left'
                it['pieces'] = [q['text'][:p0].rstrip(), q['text'][p0:].lstrip()]
                it['piece_align'] = ['left', al]
                it['break'] = {'pos': p0, 'kind': 'bracket', 'align': al}
            # score notes
            if note_page and not near2:
                it['score_note'] = note_fmt % int(rng.integers(2, 9))
            # answer / working lines
            if ans_page and not near2 and (rel == 0 or rng.random() < ans_page['p']):
                a_en = (q['lang'] == 'en')
                typ = ans_page['type']
                txt = ''
                if typ == 'answer_label':
                    txt = pick(rng, ['Answer:', 'Answer:', 'Ans:']) if a_en else pick(rng, ['答：', '答：', '解：'])
                elif typ == 'ans_dots':
                    txt = 'Ans.' if a_en else pick(rng, ['答', '答：'])
                it['answer'] = {'type': typ, 'text': txt, 'gap': ans_gap,
                                'gap_frac': ans_gap_frac, 'n': working_n,
                                'short': ans_short, 'at': ans_at}
            if near2:
                it['gap'] = 0.0
            items.append(it)
        # kind 6: the target's label is faint / very small / missing
        tgt = items[t_idx]
        if plan['k6']:
            m = plan['k6_mode']
            tgt['label_mode'] = m
            if m == 'faint':
                tgt['label_ink'] = uni(rng, 0.16, 0.32)
            elif m == 'small':
                tgt['label_scale'] = uni(rng, 0.45, 0.6)
            else:
                tgt['label'] = None
                tgt['missing_keep_space'] = bool(rng.random() < 0.5)
        # ---- geometry of the page
        mleft = uni(rng, 3.0, 6.0) * EM
        gutter = uni(rng, 1.5, 3.0) * EM
        page_w = 2 * mleft + ncols * col + (ncols - 1) * gutter
        page_h = page_w * uni(rng, 1.36, 1.44)
        top = uni(rng, 3.0, 6.0) * EM
        bottom = page_h - uni(rng, 3.5, 6.0) * EM
        page.update({'col_w': col, 'page_w': page_w, 'page_h': page_h,
                     'margin_l': mleft, 'gutter': gutter})
        cols = [(mleft + c * (col + gutter), mleft + c * (col + gutter) + col)
                for c in range(ncols)]
        runs, decos = [], []
        y = top
        hdr = {}
        first_page = rng.random() < 0.55
        en_hdr = page['page_lang'] == 'en' or (page['page_lang'] == 'mixed' and rng.random() < 0.5)
        tx0, tx1 = cols[0][0], cols[-1][1]
        hface = Face(pick(rng, FACES), bold=True)
        if first_page:
            title = pick(rng, TITLES_EN if en_hdr else TITLES_ZH)
            ts = EM * uni(rng, 1.25, 1.6)
            tw = hface.measure(title, ts)
            b = y + ts
            r, _ = text_line(hface, title, (tx0 + tx1) / 2 - tw / 2, b, ts, 1.0)
            runs += r
            y = b + 0.7 * EM
            info_s = INFO_EN if en_hdr else INFO_ZH
            iw = face.measure(info_s)
            if iw < tx1 - tx0:
                b = y + 1.0 * EM
                r, _ = text_line(face, info_s, (tx0 + tx1) / 2 - iw / 2, b, EM, 1.0)
                runs += r
                y = b + 0.6 * EM
            if rng.random() < 0.6:
                s = pick(rng, INSTR_EN if en_hdr else INSTR_ZH)
                atoms = make_atoms(s, face, EM * 0.9)
                for la in break_lines(atoms, tx1 - tx0, tx1 - tx0, face.space(EM * 0.9)):
                    b = y + 1.0 * EM
                    r, _, _, _ = set_line(la, tx0, tx1 - tx0, b, False, EM * 0.9, 1.0)
                    runs += r
                    y = b + 0.5 * EM
            if rng.random() < 0.6:
                decos.append({'t': 'line', 'p': [tx0, y + 0.2 * EM, tx1, y + 0.2 * EM],
                              'w': 0.05 * EM, 'ink': 0.9})
            y += 0.6 * EM
        else:
            s = pick(rng, TITLES_EN if en_hdr else TITLES_ZH)
            b = y + 0.7 * EM
            r, _ = text_line(face, s, tx0, b, EM * 0.75, 0.8)
            runs += r
            y = b + 0.8 * EM
        col_top = y
        # section headings: at the top of the first column, maybe one more inside
        head_at = {}
        if rng.random() < 0.7:
            head_at[0] = True
        if rng.random() < 0.35 and len(items) > 4:
            cand = [j for j in range(2, len(items)) if j not in (t_idx, t_idx + 1)]
            head_at[pick(rng, cand)] = True
        head_no = int(rng.integers(0, 4))
        # flow
        c, cur = 0, col_top
        placed = []
        for j, it in enumerate(items):
            x0, x1 = cols[c]
            if j in head_at:
                hs = EM * uni(rng, 1.0, 1.12)
                if en_hdr or page['page_lang'] == 'en':
                    hs_text = pick(rng, HEAD_EN)
                else:
                    hs_text = ZH_NUM[head_no % 10] + '、' + pick(rng, HEAD_ZH) + pick(rng, HEAD_ZH_NOTE)
                head_no += 1
                hpitch = page['pitch'] * 1.25
                if cur + hpitch > bottom:
                    c += 1
                    if c >= ncols:
                        break
                    cur = col_top
                    x0, x1 = cols[c]
                hw = hface.measure(hs_text, hs)
                if hw <= x1 - x0:
                    r, _ = text_line(hface, hs_text, x0, cur + 0.5 * hpitch + 0.35 * hs, hs, 1.0)
                    runs += r
                    cur += hpitch
            res, ncur = layout_item(page, it, x0, x1, cur)
            if res['full_box'][3] > bottom or ncur - it['gap'] > bottom + 0.3 * EM:
                c += 1
                if c >= ncols:
                    break
                cur = col_top
                x0, x1 = cols[c]
                res, ncur = layout_item(page, it, x0, x1, cur)
            res['col'] = c
            res['item'] = it
            placed.append(res)
            runs += res['runs']
            decos += res['decos']
            cur = ncur
        # target must be placed with an item above and below in its column
        if len(placed) <= t_idx + 1:
            continue
        tr = placed[t_idx]
        if placed[t_idx - 1]['col'] != tr['col'] or placed[t_idx + 1]['col'] != tr['col']:
            continue
        # kind-1 checks: the break must really give a short first line
        if k2:
            if any(len(placed[j]['lines']) != 1 for j in range(t_idx - 1, t_idx + 2)):
                continue
        if P == 5 and not any(ln['wrap_index'] > 0 for ln in tr['lines']):
            continue
        # columns rule / footer
        if ncols == 2 and rng.random() < 0.5:
            gx = (cols[0][1] + cols[1][0]) / 2
            decos.append({'t': 'line', 'p': [gx, col_top, gx, bottom], 'w': 0.04 * EM, 'ink': 0.7})
        if rng.random() < 0.7:
            fs = pick(rng, FOOT)
            s = fs % int(rng.integers(1, 5)) if '%d' in fs else fs
            w = face.measure(s, EM * 0.8)
            r, _ = text_line(face, s, page_w / 2 - w / 2, page_h - 2.2 * EM, EM * 0.8, 0.9)
            runs += r
        page.update({'items': placed, 't_idx': t_idx, 'runs': runs, 'decos': decos,
                     'cols': cols, 'col_top': col_top, 'bottom': bottom,
                     'first_page': bool(first_page)})
        return page
    raise Retry('layout failed')


# ----------------------------------------------------------------------------
# camera
# ----------------------------------------------------------------------------
def homography(cx, cy, k, rot_deg, aspect, shear, pa, pb, W, H):
    t1 = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], float)
    s = np.array([[k, k * shear, 0], [0, k * aspect, 0], [0, 0, 1]], float)
    th = math.radians(rot_deg)
    r = np.array([[math.cos(th), -math.sin(th), 0], [math.sin(th), math.cos(th), 0],
                  [0, 0, 1]], float)
    p = np.array([[1, 0, 0], [0, 1, 0], [pa, pb, 1]], float)
    t2 = np.array([[1, 0, W / 2.0], [0, 1, H / 2.0], [0, 0, 1]], float)
    return t2 @ p @ r @ s @ t1


def project(Hm, pts):
    pts = np.asarray(pts, float).reshape(-1, 2)
    v = np.c_[pts, np.ones(len(pts))] @ Hm.T
    return v[:, :2] / v[:, 2:3]


def box_corners(b):
    return [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]


def inside(pts, W, H, m):
    pts = np.asarray(pts)
    return bool(np.all(pts[:, 0] >= m) and np.all(pts[:, 0] <= W - m) and
                np.all(pts[:, 1] >= m) and np.all(pts[:, 1] <= H - m))




def line_visible_frac(Hm, box, W, H, n=41):
    ym = (box[1] + box[3]) / 2.0
    pts = [[box[0] + (box[2] - box[0]) * t, ym] for t in np.linspace(0, 1, n)]
    pr = project(Hm, pts)
    ok = (pr[:, 0] >= 0) & (pr[:, 0] <= W) & (pr[:, 1] >= 0) & (pr[:, 1] <= H)
    return float(ok.mean())


def kmax_for(cx, cy, bb, rot, aspect, shear, hw, hh):
    """Largest scale at which box bb (page) fits in +-hw x +-hh around (cx, cy)
    under rotation/aspect/shear (perspective is checked afterwards)."""
    c, s_ = math.cos(math.radians(rot)), math.sin(math.radians(rot))
    km = float('inf')
    for bx, by in box_corners(bb):
        dx, dy = bx - cx, by - cy
        u, v = dx + shear * dy, aspect * dy
        x, y = c * u - s_ * v, s_ * u + c * v
        if abs(x) > 1e-9:
            km = min(km, hw / abs(x))
        if abs(y) > 1e-9:
            km = min(km, hh / abs(y))
    return km




def choose_camera(rng, page):
    tr = page['items'][page['t_idx']]
    ab = page['items'][page['t_idx'] - 1]
    be = page['items'][page['t_idx'] + 1]
    xr = page['x_ratio']
    bb = tr['block_box']
    lines = tr['lines']
    portrait = rng.random() < 0.35
    adj_a = ab['lines'][-1]['box']
    adj_b = be['lines'][0]['box']

    def span(L):
        # the text part of the line (not the label), kept off its very ends
        a0 = max(L['text_span'][0], L['box'][0]) + 0.12 * EM
        a1 = min(L['text_span'][1], L['box'][2]) - 0.12 * EM
        if a1 < a0:
            a0 = a1 = (L['text_span'][0] + L['text_span'][1]) / 2.0
        return a0, a1

    def best_xh(W, H):
        hw = (W / 2.0 - MARGIN_IMG) * 0.94
        hh = (H / 2.0 - MARGIN_IMG) * 0.94
        best = 0.0
        for L in lines:
            cy = L['baseline'] - 0.30 * EM
            for x in np.linspace(*span(L), 31):
                best = max(best, kmax_for(x, cy, bb, 0.0, 1.0, 0.0, hw, hh))
        return min(XH_MAX, best * xr * EM)

    # how large the text can be at most, then the shot: often near that
    # limit (a student fills the frame with the problem), else anything
    # between far and that limit
    xh_best = best_xh(*((960, 1280) if portrait else (1280, 960)))
    if xh_best < XH_MIN + 1.0 and portrait:
        portrait = False
        xh_best = best_xh(1280, 960)
    if rng.random() < 0.55:
        xh_want = xh_best * uni(rng, 0.78, 1.0)
    else:
        xh_want = uni(rng, XH_MIN, max(XH_MIN, xh_best))
    xh_want = float(np.clip(xh_want, XH_MIN, XH_MAX))
    shot0 = 'close' if xh_want >= 28 else ('medium' if xh_want >= 20 else 'far')
    for attempt in range(160):
        if attempt == 80:
            portrait = False
        W, H = (960, 1280) if portrait else (1280, 960)
        li = int(rng.integers(len(lines)))
        L = lines[li]
        cy = L['baseline'] - (0.30 + uni(rng, -0.05, 0.05)) * EM
        sx0, sx1 = span(L)
        rot = uni(rng, -4.0, 4.0)
        aspect = uni(rng, 0.97, 1.03)
        shear = uni(rng, -0.02, 0.02)
        pm = uni(rng, 0.0, 0.12)
        ang = uni(rng, 0, 2 * math.pi)
        pa = pm * math.cos(ang) / max(W, H)
        pb = pm * math.sin(ang) / max(W, H)
        hw = (W / 2.0 - MARGIN_IMG) * 0.94
        hh = (H / 2.0 - MARGIN_IMG) * 0.94
        # the centre may be anywhere along the text of the line: find where
        # the wanted scale still lets the whole problem fit
        xs = np.linspace(sx0, sx1, 61)
        xhm = np.array([kmax_for(x, cy, bb, rot, aspect, shear, hw, hh) for x in xs]) * xr * EM
        xhm = np.minimum(xhm, XH_MAX)
        xh = xh_want * uni(rng, 0.95, 1.05)
        if attempt >= 20:
            xh = xh * 0.97 ** (attempt - 19)
        xh = max(XH_MIN, min(XH_MAX, xh))
        ok = np.nonzero(xhm >= xh)[0]
        if len(ok) == 0:
            best = float(xhm.max())
            if best < XH_MIN or (best < xh * 0.9 and attempt < 10):
                continue
            xh = uni(rng, max(XH_MIN, 0.9 * best), best)
            ok = np.nonzero(xhm >= xh)[0]
        j = int(ok[int(rng.integers(len(ok)))])
        step = (sx1 - sx0) / 60.0 if sx1 > sx0 else 0.0
        cx = float(np.clip(xs[j] + uni(rng, -0.5, 0.5) * step, sx0, sx1))
        k = xh / (xr * EM)
        Hm = homography(cx, cy, k, rot, aspect, shear, pa, pb, W, H)
        if not inside(project(Hm, box_corners(bb)), W, H, MARGIN_IMG):
            continue
        # neighbours: a good part of their adjacent line must be in the frame
        fa = line_visible_frac(Hm, adj_a, W, H)
        fb = line_visible_frac(Hm, adj_b, W, H)
        if fa < 0.3 or fb < 0.3:
            continue
        return {'W': W, 'H': H, 'H_mat': Hm, 'xh': xh, 'k': k, 'rot': rot,
                'aspect': aspect, 'shear': shear, 'persp': [pa, pb],
                'centre_page': [cx, cy], 'centre_line': li,
                'centre_along': (cx - sx0) / max(1e-6, sx1 - sx0),
                'shot_wanted': shot0}
    raise Retry('camera failed')


# ----------------------------------------------------------------------------
# rendering
# ----------------------------------------------------------------------------
BG_COLOURS = [(150, 112, 72), (118, 84, 55), (110, 110, 116), (58, 58, 62),
              (196, 196, 190), (70, 98, 76), (165, 150, 130), (40, 44, 60)]


def lowfreq(rng, h, w, gh, gw):
    g = rng.normal(0, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def render(rng, page, cam):
    W, H = cam['W'], cam['H']
    Hm = cam['H_mat']
    k = cam['k']
    f = min(1.0, k * 1.3)
    inv = np.linalg.inv(Hm)
    m = 0.04 * max(W, H)
    corners = project(inv, [[-m, -m], [W + m, -m], [W + m, H + m], [-m, H + m]])
    ox, oy = corners[:, 0].min(), corners[:, 1].min()
    cw = int(math.ceil((corners[:, 0].max() - ox) * f)) + 4
    ch = int(math.ceil((corners[:, 1].max() - oy) * f)) + 4
    ink = Image.new('L', (cw, ch), 0)
    d = ImageDraw.Draw(ink)
    rx0, ry0 = ox, oy
    rx1, ry1 = ox + cw / f, oy + ch / f
    for r in page['runs']:
        if r['x'] > rx1 + EM or r['y'] < ry0 - EM or r['y'] > ry1 + 2 * EM:
            continue
        if r['x'] + (len(r['s']) + 1) * 1.2 * r['size'] < rx0:
            continue
        fo = font(r['fk'], r['size'] * f)
        d.text(((r['x'] - ox) * f, (r['y'] - oy) * f), r['s'], font=fo,
               fill=int(round(255 * r['ink'])), anchor='ls')
    for dc in page['decos']:
        if dc['t'] == 'line':
            x0, y0, x1, y1 = dc['p']
            d.line([((x0 - ox) * f, (y0 - oy) * f), ((x1 - ox) * f, (y1 - oy) * f)],
                   fill=int(255 * dc['ink']), width=max(1, int(round(dc['w'] * f))))
        elif dc['t'] == 'dots':
            rr = max(0.6, dc['r'] * f)
            yy = (dc['y'] - oy) * f
            for x in dc['xs']:
                xx = (x - ox) * f
                d.ellipse([xx - rr, yy - rr, xx + rr, yy + rr], fill=int(255 * dc['ink']))
    a = np.asarray(ink, np.float32) / 255.0
    a = cv2.GaussianBlur(a, (0, 0), 0.35 + 0.3 * f)
    a *= uni(rng, 0.82, 1.0)
    # paper
    base = uni(rng, 226, 250)
    paper_c = np.array([base, base - uni(rng, 0, 6), base - uni(rng, 2, 15)], np.float32)
    paper = np.empty((ch, cw, 3), np.float32)
    paper[:] = paper_c
    paper += lowfreq(rng, ch, cw, 5, 7)[..., None] * uni(rng, 1.0, 4.0)
    paper += rng.normal(0, 1.6, (ch, cw, 1)).astype(np.float32)
    ink_c = np.array([uni(rng, 12, 50)] * 3, np.float32)
    if rng.random() < 0.2:
        ink_c += np.array([0, 4, 18], np.float32)
    img = paper * (1 - a[..., None]) + ink_c * a[..., None]
    # background outside the sheet
    px0, py0 = (0 - ox) * f, (0 - oy) * f
    px1, py1 = (page['page_w'] - ox) * f, (page['page_h'] - oy) * f
    yy, xx = np.mgrid[0:ch, 0:cw]
    on = (xx >= px0) & (xx < px1) & (yy >= py0) & (yy < py1)
    if not on.all():
        bgc = np.array(pick(rng, BG_COLOURS), np.float32)
        bg = np.empty_like(img)
        bg[:] = bgc
        bg += lowfreq(rng, ch, cw, 9, 12)[..., None] * 8
        bg += rng.normal(0, 3, (ch, cw, 1)).astype(np.float32)
        onf = cv2.GaussianBlur(on.astype(np.float32), (0, 0), 0.8)
        img = img * onf[..., None] + bg * (1 - onf[..., None])
    M = np.array([[f, 0, -f * ox], [0, f, -f * oy], [0, 0, 1]], float)
    Hc = Hm @ np.linalg.inv(M)
    out = cv2.warpPerspective(img, Hc, (W, H), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return photo_effects(rng, out, cam)


def photo_effects(rng, f, cam):
    W, H = cam['W'], cam['H']
    fx = {}
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    s = float(max(W, H))
    xn, yn = (xx - W / 2) / s, (yy - H / 2) / s
    g0 = uni(rng, 0.84, 1.04)
    gx, gy = uni(rng, -0.35, 0.35), uni(rng, -0.35, 0.35)
    vig = uni(rng, 0.0, 0.5)
    field = g0 * (1 + gx * xn + gy * yn) * (1 - vig * (xn ** 2 + yn ** 2))
    field *= 1 + lowfreq(rng, H, W, 4, 5) * uni(rng, 0.0, 0.04)
    fx['light'] = {'gain': g0, 'grad': [gx, gy], 'vignette': vig}
    if rng.random() < 0.45:
        side = int(rng.integers(4))
        depth = uni(rng, 0.2, 0.6)
        n = 6
        tvals = np.linspace(-0.1, 1.1, n)
        off = depth + rng.uniform(-0.12, 0.12, n)
        if side in (0, 1):   # from left / right
            xs = off * W if side == 0 else (1 - off) * W
            edge = -50 if side == 0 else W + 50
            pts = [(edge, -50)] + [(x, t * H) for x, t in zip(xs, tvals)] + [(edge, H + 50)]
        else:                # from top / bottom
            ys = off * H if side == 2 else (1 - off) * H
            edge = -50 if side == 2 else H + 50
            pts = [(-50, edge)] + [(t * W, y) for y, t in zip(ys, tvals)] + [(W + 50, edge)]
        mask = np.zeros((H, W), np.float32)
        cv2.fillPoly(mask, [np.array(pts, np.int32)], 1.0)
        sg = uni(rng, 25, 90)
        mask = cv2.GaussianBlur(mask, (0, 0), sg)
        dark = uni(rng, 0.58, 0.85)
        field *= 1 - (1 - dark) * mask
        fx['shadow'] = {'side': ['left', 'right', 'top', 'bottom'][side],
                        'depth': depth, 'softness': sg, 'level': dark}
    f = f * field[..., None]
    cast = 1 + rng.uniform(-0.06, 0.06, 3).astype(np.float32)
    f *= cast
    xh = cam['xh']
    sigma = uni(rng, 0.25, 0.55 + 0.55 * min(1.0, xh / 30.0))
    f = cv2.GaussianBlur(f, (0, 0), sigma)
    fx['blur_sigma'] = sigma
    if rng.random() < 0.15:
        L = int(rng.integers(3, 6))
        ang = uni(rng, 0, 180)
        kern = np.zeros((L, L), np.float32)
        c = (L - 1) / 2.0
        for t in np.linspace(-c, c, 4 * L):
            x = int(round(c + t * math.cos(math.radians(ang))))
            y = int(round(c + t * math.sin(math.radians(ang))))
            kern[y, x] = 1
        kern /= kern.sum()
        f = cv2.filter2D(f, -1, kern)
        fx['motion_blur'] = {'len': L, 'angle': ang}
    if rng.random() < 0.5:
        amt = uni(rng, 0.2, 0.7)
        f = f + amt * (f - cv2.GaussianBlur(f, (0, 0), 1.6))
        fx['sharpen'] = amt
    nl = uni(rng, 1.5, 6.0)
    f += rng.normal(0, nl, (H, W, 1)).astype(np.float32)
    f += rng.normal(0, nl * 0.35, (H, W, 3)).astype(np.float32)
    fx['noise'] = nl
    out = np.clip(f + 0.5, 0, 255).astype(np.uint8)
    return out, fx


# ----------------------------------------------------------------------------
# one photo
# ----------------------------------------------------------------------------
def analyse_bank(bank):
    info = []
    for q in bank:
        sp = split_points(q['question'])
        br = None
        for p, kd in sp:
            if kd == 'bracket':
                br = p
        info.append({'id': q['id'], 'text': q['question'], 'lang': lang_of(q['question']),
                     'subject': subject_of(q['id']), 'splits': sp, 'bracket_split': br,
                     'subparts': subpart_split(q['question'])})
    return info


def r2(v):
    if isinstance(v, dict):
        return {kk: r2(vv) for kk, vv in v.items()}
    if isinstance(v, (list, tuple, np.ndarray)):
        return [r2(x) for x in v]
    if isinstance(v, (float, np.floating)):
        return round(float(v), 2)
    return v


def item_features(res, col_right):
    it = res['item']
    wraps = [ln for ln in res['lines'] if ln['wrap_index'] > 0]
    p0 = [ln for ln in res['lines'] if ln['piece'] == 0]
    short = None
    if it['break'] and p0:
        short = round((col_right - p0[-1]['text_span'][1]) / EM, 2)
    return {'break_line_short_em': short,
            'qid': it['qid'], 'label': it['label'], 'label_mode': it['label_mode'],
            'n_lines': len(res['lines']),
            'teacher_break': it['break'],
            'natural_wrap': bool(wraps),
            'answer': (it['answer']['type'] if it['answer'] else None),
            'answer_gap': (it['answer']['gap'] if it['answer'] else None),
            'score_note': it['score_note'],
            'one_line': len(res['lines']) == 1}


def make_one(job):
    i, seed, bank_info, outdir = job
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    plan = plan_for(i)
    page = cam = None
    tries = []
    for attempt in range(30):
        try:
            page = build_layout(rng, plan, bank_info, i)
            cam = choose_camera(rng, page)
            break
        except Retry as e:
            tries.append(str(e))
            page = cam = None
    if cam is None:
        raise RuntimeError('photo %d: no layout/camera (%s)' % (i, tries[-3:]))
    img, fx = render(rng, page, cam)
    W, H = cam['W'], cam['H']
    q = int(rng.integers(60, 93))
    name = 'e%03d' % i
    path = os.path.join(outdir, name + '.jpg')
    Image.fromarray(img).save(path, 'JPEG', quality=q, subsampling=2, optimize=False)

    # ---- meta
    Hm = cam['H_mat']
    items = page['items']
    t_idx = page['t_idx']
    tr = items[t_idx]

    def quad(b):
        return r2(project(Hm, box_corners(b)))

    def aabb(qd):
        qd = np.asarray(qd)
        return r2([qd[:, 0].min(), qd[:, 1].min(), qd[:, 0].max(), qd[:, 1].max()])

    tq = quad(tr['text_box'])
    t_lines = []
    for ln in tr['lines']:
        t_lines.append({'text': ln['text'], 'page_box': r2(ln['box']),
                        'quad': quad(ln['box']), 'has_label': ln['has_label'],
                        'piece': ln['piece'], 'wrap_index': ln['wrap_index'],
                        'justified': ln['justified'],
                        'text_span_page': r2(ln['text_span']),
                        'end_short_by_em': r2((page['cols'][tr['col']][1] - ln['text_span'][1]) / EM)})
    feats = {}
    for role, j in (('above', t_idx - 1), ('target', t_idx), ('below', t_idx + 1)):
        feats[role] = item_features(items[j], page['cols'][items[j]['col']][1])
    neighbours = []
    for role, j in (('above', t_idx - 1), ('below', t_idx + 1)):
        res = items[j]
        adj = res['lines'][-1] if role == 'above' else res['lines'][0]
        aq = quad(adj['box'])
        vf = line_visible_frac(Hm, adj['box'], W, H)
        nb = dict(feats[role])
        nb.update({'position': role, 'text_quad': quad(res['text_box']),
                   'adjacent_line_quad': aq, 'adjacent_line_page_box': r2(adj['box']),
                   'adjacent_line_text': adj['text'],
                   'adjacent_line_visible_frac': round(vf, 3),
                   'adjacent_line_visible': bool(vf >= 0.3)})
        neighbours.append(nb)
    # kinds present around the target
    kinds = []
    detail = {}
    trio = [feats['above'], feats['target'], feats['below']]
    # kind 1 counts where the teacher's break really leaves the line short
    k1 = [(r, f_) for r, f_ in zip(('above', 'target', 'below'), trio)
          if f_['teacher_break'] and f_['teacher_break']['kind'] == 'sentence' and
          f_['break_line_short_em'] >= 1.0]
    if k1:
        kinds.append('k1_teacher_break')
        detail['k1_role'] = 'target' if any(r == 'target' for r, _ in k1) else 'neighbour'
        detail['k1_where'] = [r for r, _ in k1]
    if all(f_['one_line'] for f_ in trio) and page['gap_mode'] == 'none' and \
            not feats['above']['answer'] and not feats['target']['answer'] and \
            not feats['above']['score_note'] and not feats['target']['score_note']:
        kinds.append('k2_oneline_list')
        cw_ = page['col_w']
        detail['k2_fill'] = [r2((items[j]['text_box'][2] - page['cols'][items[j]['col']][0]) / cw_)
                             for j in (t_idx - 1, t_idx, t_idx + 1)]
        win = [j for j in range(t_idx - 3, t_idx + 4)
               if 0 <= j < len(items) and items[j]['col'] == tr['col'] and len(items[j]['lines']) == 1]
        detail['k2_fill_window'] = [r2((items[j]['text_box'][2] - page['cols'][items[j]['col']][0]) / cw_)
                                    for j in win]
    if feats['target']['answer'] or feats['above']['answer']:
        kinds.append('k3_answer_line')
        detail['k3'] = {'target': feats['target']['answer'], 'above': feats['above']['answer'],
                        'gap': feats['target']['answer_gap'] or feats['above']['answer_gap']}
    k4 = []
    for r, f_ in zip(('above', 'target', 'below'), trio):
        if f_['teacher_break'] and f_['teacher_break']['kind'] == 'bracket':
            k4.append((r, 'bracket_' + f_['teacher_break']['align']))
        if f_['score_note']:
            k4.append((r, 'score_note'))
    if k4:
        kinds.append('k4_bracket_or_note')
        detail['k4'] = k4
    if feats['target']['natural_wrap']:
        kinds.append('k5_para_style')
    pstyles = ['justified' if page['align'] == 'justified' else 'ragged']
    if page['indent_mode'] in ('hanging', 'first_line'):
        pstyles.append(page['indent_mode'])
    detail['para_styles'] = pstyles
    if any(f_['teacher_break'] and f_['teacher_break']['kind'] == 'subparts' for f_ in trio):
        kinds.append('k7_subparts')
    if feats['target']['label_mode'] != 'normal':
        kinds.append('k6_label_variant')
        detail['k6_mode'] = feats['target']['label_mode']
    xh = cam['xh']
    shot = 'close' if xh >= 28 else ('medium' if xh >= 20 else 'far')
    visible = []
    for res in items:
        for ln in res['lines']:
            c = project(Hm, [[(ln['box'][0] + ln['box'][2]) / 2, (ln['box'][1] + ln['box'][3]) / 2]])[0]
            if 0 <= c[0] <= W and 0 <= c[1] <= H:
                visible.append(res['item']['qid'])
                break
    meta = {
        'file': name + '.jpg', 'qid': name, 'index': i, 'seed': seed,
        'bank_id': tr['item']['qid'], 'text': tr['item']['text'],
        'lang': lang_of(tr['item']['text']),
        'size': [W, H], 'orientation': 'portrait' if H > W else 'landscape',
        'jpeg_quality': q,
        'primary_kind': plan['primary'], 'plan': plan, 'kinds': kinds, 'kind_detail': detail,
        'target_label': tr['item']['label'], 'target_label_text_if_normal':
            label_text(page['label_style'], tr['item']['num']),
        'target_box': aabb(tq), 'target_quad': tq, 'target_box_page': r2(tr['text_box']),
        'target_block_box': aabb(quad(tr['block_box'])),
        'target_after_boxes': [aabb(quad(a['box'])) for a in tr['after']],
        'target_lines': t_lines,
        'centre': [W / 2.0, H / 2.0], 'centre_page': r2(cam['centre_page']),
        'centre_line': cam['centre_line'], 'centre_along': r2(cam['centre_along']),
        'neighbours': neighbours,
        'page_items': [res['item']['qid'] for res in items],
        'visible_items': visible,
        'layout': {'columns': page['ncols'], 'col_w_em': r2(page['col_w'] / EM),
                   'target_column': tr['col'], 'face': page['face_name'],
                   'label_face_bold': page['label_bold'], 'label_style': page['label_style'],
                   'page_lang': page['page_lang'], 'indent_mode': page['indent_mode'],
                   'align': page['align'], 'pitch_em': r2(page['pitch'] / EM),
                   'gap_mode': page['gap_mode'], 'first_page': page['first_page'],
                   'page_size': r2([page['page_w'], page['page_h']]), 'em_units': EM},
        'camera': {'homography': [[float(v) for v in row] for row in Hm],
                   'x_height_px': r2(xh), 'shot': shot, 'rotation_deg': r2(cam['rot']),
                   'aspect': r2(cam['aspect']), 'shear': round(cam['shear'], 4),
                   'perspective': [float('%.3g' % v) for v in cam['persp']],
                   'scale': round(cam['k'], 4)},
        'effects': r2(fx),
        'occluders': [],
    }
    return meta


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------
def write_outputs(outdir, metas, bank_by_id):
    metas = sorted(metas, key=lambda m: m['index'])
    with open(os.path.join(outdir, 'meta.jsonl'), 'w', encoding='utf-8') as fh:
        for m in metas:
            fh.write(json.dumps(m, ensure_ascii=False) + '\n')
    with open(os.path.join(outdir, 'truth.csv'), 'w', encoding='utf-8', newline='') as fh:
        w = csv.writer(fh)
        w.writerow(['qid', 'text'])
        for m in metas:
            w.writerow([m['qid'], bank_by_id[m['bank_id']]])
    with open(os.path.join(outdir, 'queries.csv'), 'w', encoding='utf-8', newline='') as fh:
        w = csv.writer(fh)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for m in metas:
            w.writerow([m['qid'], bank_by_id[m['bank_id']], m['bank_id'], 'exact'])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outdir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=221)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--only', default='', help='comma separated photo numbers to (re)make')
    a = ap.parse_args(argv)
    jobs = max(1, min(2, a.jobs))
    bank = load_bank(a.bank)
    bank_by_id = {q['id']: q['question'] for q in bank}
    info = analyse_bank(bank)
    os.makedirs(a.outdir, exist_ok=True)
    if a.only:
        idx = sorted({int(x) for x in a.only.split(',') if x.strip()})
    else:
        idx = list(range(1, a.count + 1))
    t0 = time.time()
    todo = [(i, a.seed, info, a.outdir) for i in idx]
    metas = []
    if jobs == 1:
        for jb in todo:
            metas.append(make_one(jb))
            print('e%03d' % jb[0], flush=True)
    else:
        from multiprocessing import get_context
        with get_context('fork').Pool(jobs) as pool:
            for m in pool.imap_unordered(make_one, todo):
                metas.append(m)
                print(m['qid'], m['primary_kind'], m['kinds'], m['camera']['shot'], flush=True)
    if a.only:
        # merge with what is already there
        old = {}
        mp = os.path.join(a.outdir, 'meta.jsonl')
        if os.path.exists(mp):
            with open(mp, encoding='utf-8') as fh:
                for line in fh:
                    if line.strip():
                        o = json.loads(line)
                        old[o['index']] = o
        for m in metas:
            old[m['index']] = m
        metas = list(old.values())
    write_outputs(a.outdir, metas, bank_by_id)
    run = {'count': a.count, 'seed': a.seed, 'bank': os.path.abspath(a.bank),
           'only': a.only, 'jobs': jobs, 'seconds': round(time.time() - t0, 1)}
    if not a.only:
        with open(os.path.join(a.outdir, 'run.json'), 'w') as fh:
            json.dump(run, fh, indent=1)
    print('done %d photos in %.1f s' % (len(idx), time.time() - t0))


if __name__ == '__main__':
    main()
