#!/usr/bin/env python3
"""Synthetic phone photos of printed worksheet / exam pages.

Each photo frames ONE bank problem (the one nearest the image centre); the
set stresses problem-boundary cues: tight spacing, many label styles,
indents, trailers (options / answer lines / workspace), two columns,
headings, off-centre framing, long and one-line problems.

Usage:
  make_photos.py --bank BANK OUT_DIR --count 120 --seed 191 --jobs 2 [--only 3,17]

Written from the question bank and the list of case kinds only.
"""
import argparse
import csv
import glob
import json
import math
import os
import re
import sys
import time
import unicodedata
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------
NOTO = '/usr/share/fonts/opentype/noto/'
TT = '/usr/share/fonts/truetype/'


def _mpl_dir():
    hits = glob.glob(os.path.join(sys.prefix, 'lib', 'python*', 'site-packages',
                                  'matplotlib', 'mpl-data', 'fonts', 'ttf'))
    return hits[0] if hits else ''


MPL = _mpl_dir()

FONT_FILES = {
    'zh_sans': (NOTO + 'NotoSansCJK-Regular.ttc', 2),
    'zh_sans_b': (NOTO + 'NotoSansCJK-Bold.ttc', 2),
    'zh_serif': (NOTO + 'NotoSerifCJK-Regular.ttc', 2),
    'zh_serif_b': (NOTO + 'NotoSerifCJK-Bold.ttc', 2),
    'lib_serif': (TT + 'liberation/LiberationSerif-Regular.ttf', 0),
    'lib_serif_b': (TT + 'liberation/LiberationSerif-Bold.ttf', 0),
    'lib_sans': (TT + 'liberation/LiberationSans-Regular.ttf', 0),
    'lib_sans_b': (TT + 'liberation/LiberationSans-Bold.ttf', 0),
    'lib_narrow': (TT + 'liberation/LiberationSansNarrow-Regular.ttf', 0),
    'lib_narrow_b': (TT + 'liberation/LiberationSansNarrow-Bold.ttf', 0),
    'dv_serif': (TT + 'dejavu/DejaVuSerif.ttf', 0),
    'dv_serif_b': (TT + 'dejavu/DejaVuSerif-Bold.ttf', 0),
    'dv_sans': (TT + 'dejavu/DejaVuSans.ttf', 0),
    'dv_sans_b': (TT + 'dejavu/DejaVuSans-Bold.ttf', 0),
    'dv_sans_xl': (TT + 'dejavu/DejaVuSans-ExtraLight.ttf', 0),
    'dv_cond': (TT + 'dejavu/DejaVuSansCondensed.ttf', 0),
    'dv_cond_b': (TT + 'dejavu/DejaVuSansCondensed-Bold.ttf', 0),
    'stix': (os.path.join(MPL, 'STIXGeneral.ttf'), 0),
    'stix_b': (os.path.join(MPL, 'STIXGeneralBol.ttf'), 0),
}
# available latin body faces with (regular, bold) pairing
LATIN_FACES = [('lib_serif', 'lib_serif_b'), ('lib_sans', 'lib_sans_b'),
               ('dv_serif', 'dv_serif_b'), ('dv_sans', 'dv_sans_b'),
               ('dv_sans_xl', 'dv_sans'), ('lib_narrow', 'lib_narrow_b'),
               ('stix', 'stix_b'), ('dv_cond', 'dv_cond_b'),
               ('lib_sans_b', 'lib_sans_b'), ('dv_serif_b', 'dv_serif_b')]
LATIN_FACE_P = [0.2, 0.16, 0.1, 0.1, 0.08, 0.08, 0.12, 0.06, 0.05, 0.05]
CJK_FACES = [('zh_sans', 'zh_sans_b'), ('zh_serif', 'zh_serif_b'),
             ('zh_sans_b', 'zh_sans_b')]
CJK_FACE_P = [0.45, 0.47, 0.08]


@lru_cache(maxsize=48)
def font_obj(key, size):
    path, idx = FONT_FILES[key]
    return ImageFont.truetype(path, int(size), index=idx,
                              layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=None)
def font_cmap(key):
    from fontTools.ttLib import TTFont
    path, idx = FONT_FILES[key]
    tt = TTFont(path, fontNumber=idx, lazy=True)
    cm = set(tt.getBestCmap().keys())
    tt.close()
    return cm


def covered(key, ch):
    return ord(ch) in font_cmap(key)


# --------------------------------------------------------------------------
# text helpers
# --------------------------------------------------------------------------
def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF
            or 0x3000 <= o <= 0x303F or 0x2460 <= o <= 0x24FF)


def has_cjk(s):
    return any(is_cjk(c) for c in s)


@lru_cache(maxsize=None)
def supsub(ch):
    d = unicodedata.decomposition(ch)
    if d.startswith('<super>'):
        return chr(int(d.split()[1], 16)), 'sup'
    if d.startswith('<sub>'):
        return chr(int(d.split()[1], 16)), 'sub'
    return None


CLOSE = set('，。、？！：；）》」』】〕”’,.;:?!)]}%')
OPEN = set('（《「『【〔“‘([{')


def tokenize(text):
    """-> list of [kind, str]; kind 'b' (unbreakable box) or 'g' (space glue)."""
    toks = []
    buf = ''
    for ch in text:
        if ch == ' ':
            if buf:
                toks.append(['b', buf])
                buf = ''
            toks.append(['g', ' '])
        elif is_cjk(ch) or ch in '“”‘’':
            if buf:
                toks.append(['b', buf])
                buf = ''
            toks.append(['b', ch])
        else:
            buf += ch
    if buf:
        toks.append(['b', buf])
    out = []
    for t in toks:
        if t[0] == 'b' and out and out[-1][0] == 'b':
            if t[1][0] in CLOSE or out[-1][1][-1] in OPEN:
                out[-1][1] += t[1]
                continue
        out.append(t)
    return out


class Style:
    pass


def font_key(ch, st, bold):
    cjk = st.cjk_b if bold else st.cjk
    lat = st.latin_b if bold else st.latin
    if is_cjk(ch) or (st.lang == 'zh' and ch in '“”‘’'):
        return cjk
    if lat == 'cjk':
        lat = cjk
    if covered(lat, ch):
        return lat
    if covered(cjk, ch):
        return cjk
    return 'dv_sans'


def text_runs(text, st, size, bold=False, color=None, x0=0.0):
    """Lay a string (no line breaks) out as runs starting at x0.
    Run kinds: ('t', x, dy, seg, fontkey, size, color) ; ('u', x, w, thick, color)."""
    color = st.ink if color is None else color
    runs = []
    x = x0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == '_':
            j = i
            while j < n and text[j] == '_':
                j += 1
            w = max(2.2, 0.75 * (j - i)) * size
            runs.append(('u', x + 0.05 * size, w - 0.1 * size, max(1.0, 0.055 * size), color))
            x += w
            i = j
            continue
        ss = supsub(ch)
        if ss is not None:
            base, kind = ss
            fk = font_key(base, st, bold)
            sz = max(8, round(size * 0.62))
            dy = -0.40 * size if kind == 'sup' else 0.17 * size
            f = font_obj(fk, sz)
            x += 0.02 * size
            runs.append(('t', x, dy, base, fk, sz, color))
            x += f.getlength(base) + 0.03 * size
            i += 1
            continue
        fk = font_key(ch, st, bold)
        j = i + 1
        while j < n and text[j] != '_' and supsub(text[j]) is None and font_key(text[j], st, bold) == fk:
            j += 1
        seg = text[i:j]
        f = font_obj(fk, size)
        runs.append(('t', x, 0.0, seg, fk, int(size), color))
        x += f.getlength(seg)
        i = j
    return runs, x - x0


def shift_runs(runs, dx):
    out = []
    for r in runs:
        if r[0] == 't':
            out.append(('t', r[1] + dx) + r[2:])
        else:
            out.append(('u', r[1] + dx) + r[2:])
    return out


def runs_bbox(runs, baseline):
    """ink bbox of runs drawn on a baseline; None if no ink."""
    bb = None
    for r in runs:
        if r[0] == 't':
            _, x, dy, seg, fk, sz, _c = r
            if not seg.strip():
                continue
            l, t, rr, b = font_obj(fk, sz).getbbox(seg, anchor='ls')
            box = (x + l, baseline + dy + t, x + rr, baseline + dy + b)
        else:
            _, x, w, th, _c = r
            box = (x, baseline + th * 1.2, x + w, baseline + th * 2.2)
        if bb is None:
            bb = list(box)
        else:
            bb = [min(bb[0], box[0]), min(bb[1], box[1]), max(bb[2], box[2]), max(bb[3], box[3])]
    return bb


def shapes_bbox(shapes):
    bb = None
    for s in shapes:
        box = s[1:5]
        if bb is None:
            bb = list(box)
        else:
            bb = [min(bb[0], box[0]), min(bb[1], box[1]), max(bb[2], box[2]), max(bb[3], box[3])]
    return bb


def union_bb(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]


# --------------------------------------------------------------------------
# labels
# --------------------------------------------------------------------------
ZH_LABELS = ['dot', 'paren', 'fparen', 'dun', 'fdot', 'di_ti', 'bracket', 'bracket_li',
             'li', 'roman', 'A3', 'decimal', 'circled', 'boxed', 'circle_drawn', 'bold',
             'grey', 'margin', 'none', 'bullet', 'triangle', 'Q']
EN_LABELS = ['dot', 'paren', 'fparen', 'Q', 'Qdot', 'hash', 'problem', 'exercise', 'roman',
             'A3', 'decimal', 'circled', 'boxed', 'circle_drawn', 'bold', 'grey', 'margin',
             'none', 'bullet', 'triangle']


def roman(n):
    vals = [(10, 'X'), (9, 'IX'), (5, 'V'), (4, 'IV'), (1, 'I')]
    s = ''
    for v, r in vals:
        while n >= v:
            s += r
            n -= v
    return s


def label_text(style, n, st):
    zh = st.lang == 'zh'
    ch = st.chapter
    return {
        'dot': f'{n}.', 'paren': f'{n})', 'fparen': (f'（{n}）' if zh and st.full_paren else f'({n})'),
        'dun': f'{n}、', 'fdot': f'{n}．', 'di_ti': f'第{n}题', 'bracket': f'【{n}】',
        'bracket_li': f'【例{n}】', 'li': f'例{n}', 'Q': f'Q{n}', 'Qdot': f'Q{n}.', 'hash': f'#{n}',
        'problem': f'Problem {n}', 'exercise': f'Exercise {ch}.{n}', 'roman': f'{roman(n)}.',
        'A3': f'A{n}', 'decimal': f'{ch}.{n}', 'circled': chr(0x2460 + n - 1),
        'boxed': f'{n}', 'circle_drawn': f'{n}', 'bold': f'{n}.', 'grey': f'{n}.',
        'none': '', 'bullet': '•', 'triangle': '▲',
    }[style]


def make_label(st, n):
    """-> dict(text, runs, shapes, w, gap) at x=0, baseline 0."""
    em = st.em
    style = st.label_style
    if style == 'margin':
        inner = st.margin_inner
        txt = label_text(inner, n, st)
        bold = st.margin_bold
        runs, w = text_runs(txt, st, em, bold=bold)
        return dict(text=txt, runs=runs, shapes=[], w=w, gap=0.0)
    txt = label_text(style, n, st)
    if style == 'none':
        return dict(text='', runs=[], shapes=[], w=0.0, gap=0.0)
    shapes = []
    if style in ('boxed', 'circle_drawn'):
        sz = em if len(txt) == 1 else round(em * 0.78)
        runs, tw = text_runs(txt, st, sz, bold=st.label_bold)
        pad = 0.18 * em
        if style == 'boxed':
            w = tw + 2 * pad
            runs = shift_runs(runs, pad)
            shapes.append(('rect', 0.0, -0.86 * em, w, 0.16 * em, max(1.0, 0.06 * em), st.ink))
        else:
            d = max(tw + 2 * pad, 1.02 * em)
            runs = shift_runs(runs, (d - tw) / 2)
            cy = -0.34 * em
            shapes.append(('ellipse', 0.0, cy - d / 2, d, cy + d / 2, max(1.0, 0.06 * em), st.ink))
            w = d
        return dict(text=txt, runs=runs, shapes=shapes, w=w, gap=0.35 * em)
    bold = style == 'bold' or (st.label_bold and style != 'grey')
    color = st.grey if style == 'grey' else st.ink
    runs, w = text_runs(txt, st, em, bold=bold, color=color)
    if txt and txt[-1] in '、．】）' or style in ('circled',):
        gap = st.zh_gap * em
    elif style in ('bullet', 'triangle'):
        gap = 0.45 * em
    else:
        gap = st.lat_gap * em
    return dict(text=txt, runs=runs, shapes=shapes, w=w, gap=gap)


# --------------------------------------------------------------------------
# paragraph layout
# --------------------------------------------------------------------------
def measure_items(text, st, size, tag='q'):
    items = []
    for kind, s in tokenize(text):
        if kind == 'g':
            items.append(dict(k='g', s=' ', w=st.space_w, tag=tag))
        else:
            runs, w = text_runs(s, st, size)
            items.append(dict(k='b', s=s, w=w, runs=runs, tag=tag))
    return items


def wrap_items(items, avail_first, avail_cont):
    """greedy line fill -> list of lines, each list of items; plus glue_dropped flags."""
    lines = []
    drops = []
    cur = []
    curw = 0.0
    avail = avail_first
    pend = None
    for it in items:
        if it['k'] == 'g':
            if cur:
                pend = it
            continue
        add = it['w'] + (pend['w'] if pend else 0.0)
        if cur and curw + add > avail + 0.01:
            lines.append(cur)
            drops.append(pend is not None)
            cur = [it]
            curw = it['w']
            avail = avail_cont
            pend = None
        else:
            if pend is not None:
                cur.append(pend)
            cur.append(it)
            curw += add
            pend = None
    if cur:
        lines.append(cur)
    return lines, drops


def line_natural_w(line):
    return sum(it['w'] for it in line)


def place_line(line, x0, avail, justify, cjk_style=False):
    """-> runs (absolute x), width used, text of tagged 'q' items"""
    nat = line_natural_w(line)
    slack = avail - nat if justify else 0.0
    glue_idx = [k for k, it in enumerate(line) if it['k'] == 'g']
    extra_g = 0.0
    extra_b = 0.0
    if justify and slack > 0:
        if glue_idx and not cjk_style:
            extra_g = slack / len(glue_idx)
        else:
            nb = len(line) - 1
            if nb > 0:
                extra_b = slack / nb
    runs = []
    x = x0
    qtext = ''
    for k, it in enumerate(line):
        if it['tag'] == 'q':
            qtext += it['s']
        if it['k'] == 'g':
            x += it['w'] + extra_g
            if k < len(line) - 1 and extra_b:
                x += extra_b
            continue
        runs += shift_runs(it['runs'], x)
        x += it['w']
        if k < len(line) - 1:
            x += extra_b
    return runs, x - x0, qtext


# --------------------------------------------------------------------------
# blocks
# --------------------------------------------------------------------------
def layout_question_lines(st, q, note, lab, col_x, col_w):
    """Wrap question (+score note) with label. Returns (lines, info) where lines are
    dicts with runs/shapes/x/baseline offset(row index)."""
    em = st.em
    mode = st.indent_mode
    if st.label_style == 'margin':
        mw = max(lab['w'] + 0.55 * em, st.margin_w * em)
        label_x = col_x + (mw - 0.45 * em - lab['w'] if st.margin_right else 0.0)
        first_x = col_x + mw
        cont_x = col_x + mw
    else:
        ind = st.first_indent * em if mode == 'first' else 0.0
        label_x = col_x + ind
        first_x = label_x + lab['w'] + lab['gap']
        cont_x = first_x if mode == 'hanging' else col_x
    right = col_x + col_w
    items = measure_items(q, st, em, 'q')
    if note:
        if st.lang == 'en' or not note.startswith('（'):
            items.append(dict(k='g', s=' ', w=st.space_w, tag='n'))
        for it in measure_items(note, st, em, 'n'):
            it['tag'] = 'n'
            items.append(it)
    wl, drops = wrap_items(items, right - first_x, right - cont_x)
    lines = []
    qtexts = []
    for k, ln in enumerate(wl):
        x0 = first_x if k == 0 else cont_x
        last = k == len(wl) - 1
        runs, w, qt = place_line(ln, x0, right - x0, st.justify and not last, st.lang == 'zh')
        shapes = []
        if k == 0 and lab['text']:
            runs = shift_runs(lab['runs'], label_x) + runs
            shapes = [(s[0], s[1] + label_x, s[2], s[3] + label_x, s[4], s[5], s[6]) for s in lab['shapes']]
        lines.append(dict(kind='text', runs=runs, shapes=shapes, row=k, width=w, x0=x0,
                          avail=right - x0))
        qtexts.append(qt)
    drops = [bool(dr) and qtexts[k + 1] != '' for k, dr in enumerate(drops)]
    info = dict(first_x=first_x, cont_x=cont_x, label_x=label_x, drops=drops, qtexts=qtexts)
    return lines, info


def option_texts(rec, rng, pool):
    ans = rec.get('answer', '').replace('$', ' ')
    nums = re.findall(r'(?<![\w.])-?\d+(?:\.\d+)?', ans)
    if nums and rng.random() < 0.85:
        s = nums[-1]
        dec = len(s.split('.')[1]) if '.' in s else 0
        v = float(s)
        mag = max(1.0, abs(v))
        d = float(rng.choice([1, 2, 5])) * (10 ** max(0, int(math.log10(mag)) - 1))
        cands = [v, v + d, v - d, v + 2 * d, v * 2, v / 2 if v else 1.0, v + 3 * d]
        outs = []
        for c in cands:
            t = f'{c:.{dec}f}' if dec else (f'{int(round(c))}' if abs(c - round(c)) < 1e-9 else f'{c:.1f}')
            if t not in outs:
                outs.append(t)
        sel = [outs[0]] + list(rng.choice(outs[1:], size=3, replace=False))
        rng.shuffle(sel)
        return sel
    sel = list(rng.choice(pool, size=4, replace=False))
    return sel


def build_problem(st, rec, num, col_x, col_w, trailer, note, rng, pool):
    em = st.em
    lab = make_label(st, num)
    lines, info = layout_question_lines(st, rec['question'], note, lab, col_x, col_w)
    n_text = len(lines)
    trail_rows = []
    tx = info['cont_x'] if st.label_style == 'margin' or st.indent_mode == 'hanging' else col_x + (
        st.opt_indent * em)
    right = col_x + col_w
    kind = trailer
    if trailer in ('opt1', 'opt2', 'opt4'):
        opts = option_texts(rec, rng, pool)
        fmt = st.opt_fmt
        cells = []
        for k, o in enumerate(opts):
            L = 'ABCD'[k]
            lt = {'dot': f'{L}.', 'fdot': f'{L}．', 'paren': f'({L})', 'dun': f'{L}、', 'rp': f'{L})'}[fmt]
            r1, w1 = text_runs(lt, st, em)
            r2, w2 = text_runs(o, st, em, x0=w1 + 0.3 * em)
            cells.append((r1 + r2, w1 + 0.3 * em + w2))
        avail = right - tx
        maxw = max(c[1] for c in cells)
        per = {'opt1': 4, 'opt2': 2, 'opt4': 1}[trailer]
        while per > 1 and maxw > avail / per - 0.6 * em:
            per //= 2
        kind = {4: 'opt1', 2: 'opt2', 1: 'opt4'}[per]
        for r0 in range(0, 4, per):
            runs = []
            for c in range(per):
                runs += shift_runs(cells[r0 + c][0], tx + c * avail / per)
            trail_rows.append(dict(kind='opt', runs=runs, shapes=[]))
    elif trailer == 'answer':
        txt = st.answer_txt
        runs, w = text_runs(txt, st, em, x0=tx)
        trail_rows.append(dict(kind='answer', runs=runs, shapes=[]))
    for k, r in enumerate(trail_rows):
        r['row'] = n_text + k
    ws = 0.0
    if trailer == 'workspace':
        ws = float(rng.uniform(1.0, 4.0))
    blk = dict(type='problem', bank_id=rec['id'], question=rec['question'], num=num,
               label=lab['text'], note=note or '', lines=lines, trail=trail_rows, n_text=n_text,
               trailer=kind, workspace_em=ws, info=info, col_w=col_w, col_x=col_x)
    return blk


def build_single_line(st, text, x, size, bold, color=None, center_w=None):
    runs, w = text_runs(text, st, size, bold=bold, color=color)
    if center_w is not None:
        x = x + (center_w - w) / 2
    return dict(kind='text', runs=shift_runs(runs, x), shapes=[], row=0, width=w, x0=x)


# --------------------------------------------------------------------------
# page content
# --------------------------------------------------------------------------
ZH_SECTIONS = ['一、选择题（每小题3分，共30分）', '二、填空题（每空2分，共20分）', '三、解答题（写出必要的步骤）',
               '四、计算题', '一、基础知识（每题2分）', '二、阅读与理解', '【巩固练习】', '【课后作业】',
               '第二部分　能力提升', '五、实验探究题', '三、简答题（每题4分）', '【基础过关】']
EN_SECTIONS = ['Part A: Multiple choice', 'Part B: Short answer', 'Section 2 — Calculations',
               'Exercises', 'Practice Set 4', 'Review Questions', 'Part C: Problem solving (3 marks each)',
               'Warm-up', 'Section B (2 points each)', 'Check your understanding']
ZH_TITLES = ['七年级数学期中测试卷', '初二物理单元练习（第三章）', '化学课时作业（二）', '八年级生物期末复习题',
             '地理同步练习', '语文基础知识检测', '历史随堂小测', '九年级综合训练']
EN_TITLES = ['Unit 5 Worksheet', 'Grade 8 Science Quiz', 'Algebra Practice', 'Homework 7',
             'End-of-Term Review', 'Chapter 3 Exercises']
ZH_NAMELINES = ['班级：________  姓名：________  学号：______', '学校：__________ 班级：______ 姓名：______ 得分：____',
                '姓名：__________　　日期：______']
EN_NAMELINES = ['Name: ____________  Class: ______  Date: ______', 'Name: __________________   Score: ____ / 50']
ZH_NOTES = ['（3分）', '（4分）', '（5分）', '（2分）', '（6分）']
EN_NOTES = ['(3 points)', '(2 marks)', '[4]', '(5 pts)', '(1 mark)']


def lang_of(q):
    return 'zh' if has_cjk(q) else 'en'


class Bank:
    def __init__(self, path):
        self.rows = [json.loads(l) for l in open(path, encoding='utf-8') if l.strip()]
        self.by_lang = {'zh': [], 'en': []}
        for k, r in enumerate(self.rows):
            self.by_lang[lang_of(r['question'])].append(k)
        pz, pe = [], []
        for r in self.rows:
            a = r.get('answer', '')
            if '$' in a:
                continue
            for seg in re.split(r'[，。；：！？,;:!?()（）]', a):
                seg = seg.strip()
                if not seg or '=' in seg:
                    continue
                if has_cjk(seg) and 2 <= len(seg) <= 7:
                    pz.append(seg)
                elif not has_cjk(seg) and 2 <= len(seg) <= 18:
                    pe.append(seg)
        self.pool = {'zh': sorted(set(pz)), 'en': sorted(set(pe))}


def weyl(i, k):
    alphas = [math.sqrt(2), math.sqrt(3), math.sqrt(5), math.sqrt(7), math.sqrt(11), math.sqrt(13),
              math.sqrt(17), math.sqrt(19), math.sqrt(23), math.sqrt(29), math.sqrt(31), math.sqrt(37)]
    return ((i + 1) * alphas[k] + 0.113 * k) % 1.0


def make_plan(i):
    """Per-photo quotas from a deterministic low-discrepancy sequence of the index."""
    u = [weyl(i, k) for k in range(12)]
    p = {}
    p['spacing'] = 'tight' if u[0] < 0.58 else ('equal' if u[0] < 0.67 else 'normal')
    p['two_col'] = u[1] < 0.30
    p['length'] = 'long' if u[2] < 0.25 else ('one' if u[2] < 0.52 else 'medium')
    p['lang'] = 'en' if u[3] < 0.30 else 'zh'
    labs = EN_LABELS if p['lang'] == 'en' else ZH_LABELS
    p['label'] = labs[int(u[4] * len(labs)) % len(labs)]
    p['occluder'] = ('finger' if u[5] < 0.09 else 'pen') if u[5] < 0.15 else None
    p['moire'] = u[6] < 0.06
    p['head_above'] = u[7] < 0.25
    p['trailer'] = ['opt1', 'opt2', 'opt4', 'answer', 'workspace', 'none'][int(u[8] * 6) % 6]
    p['landscape'] = u[9] < 0.5
    p['aligned'] = u[10] < 0.5
    if p['spacing'] == 'equal' and p['label'] in ('none',):
        p['label'] = 'dot'
    if p['spacing'] != 'normal' and p['trailer'] == 'workspace':
        p['trailer'] = 'answer' if u[11] < 0.5 else 'opt2'
    return p


def sample_style(rng, plan, stage):
    st = Style()
    st.lang = plan['lang']
    if st.lang == 'zh':
        k = rng.choice(len(CJK_FACES), p=CJK_FACE_P)
        st.cjk, st.cjk_b = CJK_FACES[k]
        st.latin, st.latin_b = [('cjk', 'cjk'), ('lib_serif', 'lib_serif_b'), ('dv_sans', 'dv_sans_b'),
                                ('lib_sans', 'lib_sans_b'), ('stix', 'stix_b')][
            rng.choice(5, p=[0.35, 0.3, 0.1, 0.15, 0.1])]
    else:
        k = rng.choice(len(LATIN_FACES), p=LATIN_FACE_P)
        st.latin, st.latin_b = LATIN_FACES[k]
        st.cjk, st.cjk_b = CJK_FACES[rng.choice(2)]
    st.ink = tuple(int(v) for v in (rng.integers(15, 55),) * 3)
    if rng.random() < 0.15:
        st.ink = (int(rng.integers(20, 40)), int(rng.integers(25, 45)), int(rng.integers(60, 95)))
    g = int(rng.integers(135, 175))
    st.grey = (g, g, g)
    st.label_color = st.ink
    st.paper = (int(rng.integers(232, 253)), int(rng.integers(230, 250)), int(rng.integers(218, 245)))
    st.L = float(rng.uniform(1.4, 1.9) if st.lang == 'zh' else rng.uniform(1.3, 1.75))
    st.justify = bool(rng.random() < (0.75 if st.lang == 'zh' else 0.4))
    st.label_style = plan['label']
    st.indent_mode = str(rng.choice(['hanging', 'flush', 'first'], p=[0.45, 0.35, 0.2]))
    if st.label_style in ('none',):
        st.indent_mode = 'first' if rng.random() < 0.6 else 'flush'
    st.first_indent = float(rng.choice([1.0, 2.0])) if st.lang == 'en' else 2.0
    st.label_bold = bool(rng.random() < (0.6 if st.label_style in ('problem', 'exercise', 'bracket_li',
                                                                      'li', 'di_ti') else 0.2))
    st.zh_gap = float(rng.uniform(0.0, 0.3))
    st.lat_gap = float(rng.uniform(0.25, 0.6))
    st.full_paren = bool(rng.random() < 0.6)
    st.chapter = int(rng.integers(1, 9))
    st.margin_inner = str(rng.choice(['dot', 'paren', 'Q', 'fparen'] if st.lang == 'en' else
                                     ['dot', 'dun', 'fparen', 'fdot', 'paren']))
    st.margin_bold = bool(rng.random() < 0.5)
    st.margin_w = float(rng.uniform(2.0, 3.5))
    st.margin_right = bool(rng.random() < 0.5)
    st.opt_fmt = str(rng.choice(['dot', 'fdot', 'paren', 'dun', 'rp'] if st.lang == 'zh'
                                else ['dot', 'paren', 'rp']))
    st.opt_indent = float(rng.choice([0.0, 1.0, 2.0]))
    if st.lang == 'zh':
        st.answer_txt = str(rng.choice(['答：________________', '答：____________', '解：', '答案：__________']))
    else:
        st.answer_txt = str(rng.choice(['Answer: ________________', 'Answer: ____________', 'Ans: __________',
                                        'Working:']))
    return st


def pick_questions(rng, bank, plan, stage):
    lang = plan['lang']
    idx = bank.by_lang[lang]
    qs = [bank.rows[k] for k in idx]
    L = plan['length']
    if stage >= 2 and L == 'one':
        L = 'medium'
    if L == 'long':
        c = [r for r in qs if len(r['question']) >= (36 if lang == 'zh' else 67)]
    elif L == 'one':
        c = [r for r in qs if len(r['question']) <= (22 if lang == 'zh' else 45)]
    else:
        c = [r for r in qs if len(r['question']) >= (12 if lang == 'zh' else 30)]
    return c[int(rng.integers(len(c)))]


def choose_neighbours(rng, bank, framed, n, lang):
    same = [k for k in bank.by_lang[lang] if bank.rows[k]['id'] != framed['id']]
    other = [k for k in bank.by_lang['en' if lang == 'zh' else 'zh']]
    out = []
    used = {framed['id']}
    while len(out) < n:
        src = same if (rng.random() < 0.85 or not other) else other
        r = bank.rows[src[int(rng.integers(len(src)))]]
        if r['id'] in used:
            continue
        used.add(r['id'])
        out.append(r)
    return out


def sample_layout(rng, plan, stage, bank):
    """Build the page (text blocks with page-pixel coordinates). None if this draw fails."""
    st = sample_style(rng, plan, stage)
    W, H = (1280, 960) if plan['landscape'] else (960, 1280)
    lo, hi = (23.0, 47.0) if stage == 0 else (31.0, 47.0)
    if plan['length'] == 'long':
        hi = min(hi, 40.0)
        lo = min(lo, 36.0)
    body = float(rng.uniform(lo, hi))
    s = float(rng.uniform(0.9, 1.1))
    em = int(round(body / s))
    st.em = em
    st.space_w = font_obj(st.latin if st.latin != 'cjk' else st.cjk, em).getlength(' ')
    if st.lang == 'zh' and st.latin == 'cjk':
        st.space_w = 0.3 * em
    scale = body / em
    framed = pick_questions(rng, bank, plan, stage)
    two = plan['two_col']
    maxfit = 0.84 * W / body
    if two:
        wlo, whi = (9.5 if plan['length'] == 'long' else 11.0), min(24.0, maxfit)
    else:
        wlo, whi = (12.0 if plan['length'] == 'long' else 18.0), min(44.0, maxfit)
    if whi < wlo:
        return None
    # numbering
    n_before = int(rng.integers(1, 5))
    n_after = int(rng.integers(1, 4))
    n_other = int(rng.integers(3, 7)) if two else 0
    framed_col = int(rng.integers(2)) if two else 0
    total = n_before + n_after + 1 + n_other
    n0 = int(rng.integers(1, max(2, 21 - total)))
    if framed_col == 1:
        fnum = n0 + n_other + n_before
    else:
        fnum = n0 + n_before
    trailer = plan['trailer']
    force_trail = stage >= 1 and trailer in ('none', 'workspace')
    if force_trail:
        trailer = str(rng.choice(['opt4', 'opt2', 'answer'], p=[0.5, 0.3, 0.2]))
    note = None
    if rng.random() < 0.15:
        note = str(rng.choice(ZH_NOTES if st.lang == 'zh' else EN_NOTES))
    # choose column width by wrapping the framed question
    lab = make_label(st, fnum)
    want = plan['length'] if not (stage >= 2 and plan['length'] == 'one') else 'medium'
    grid = np.linspace(wlo, whi, 24)
    good = []
    for cw in grid:
        lines, info = layout_question_lines(st, framed['question'], note, lab, 0.0, cw * em)
        n = len(lines)
        ok = {'long': 4 <= n <= 8, 'one': n == 1, 'medium': 2 <= n <= 3}[want]
        if ok and n * st.L * body < 0.62 * H:
            lastw = lines[-1]['width'] / max(1.0, lines[-1]['avail'])
            good.append((cw, n, lastw))
    if not good:
        return None
    if rng.random() < 0.35 and any(g[2] < 0.35 and g[1] >= 2 for g in good):
        good = [g for g in good if g[2] < 0.35 and g[1] >= 2]
    wts = np.array([float(g[1]) ** 2 for g in good])
    cw_em = good[int(rng.choice(len(good), p=wts / wts.sum()))][0]
    if want == 'one':
        cw_em = float(rng.uniform(cw_em, max(cw_em, whi)))
    col_w = cw_em * em
    gutter_em = float(rng.uniform(1.0, 4.0)) if two else 0.0
    ml = float(rng.uniform(1.5, 4.0)) * em
    mr = float(rng.uniform(1.5, 4.0)) * em
    mt = float(rng.uniform(2.0, 4.0)) * em
    fig_x = None
    if not two and cw_em < 25.0:
        # narrow text column: the page keeps a figure strip on the right
        fig_w = float(rng.uniform(7.0, 13.0)) * em
        fig_x = ml + col_w + float(rng.uniform(1.2, 2.5)) * em
        mr = mr + (fig_x - ml - col_w) + fig_w
    page_w = ml + mr + (2 * col_w + gutter_em * em if two else col_w)
    col_xs = [ml, ml + col_w + gutter_em * em] if two else [ml]

    # spacing between problems
    spacing = plan['spacing'] if stage < 3 else 'normal'

    def gap_extra():
        if spacing == 'tight':
            return float(rng.uniform(0.3 if st.label_style == 'none' else 0.1, 0.6))
        if spacing == 'equal':
            return 0.0
        return float(rng.uniform(0.8, 2.4))

    pool = bank.pool[st.lang]
    neigh = choose_neighbours(rng, bank, framed, n_before + n_after + n_other, st.lang)

    def neigh_trailer():
        if force_trail or rng.random() < 0.75:
            return trailer
        c = ['opt1', 'opt2', 'opt4', 'answer', 'none'] + ([] if spacing != 'normal' else ['workspace'])
        return str(rng.choice(c))

    def neigh_note():
        return note if (note and rng.random() < 0.7) else None

    # sequences per column
    seqs = [[] for _ in col_xs]
    fc = framed_col
    k_ne = 0
    nums_fc = list(range(fnum - n_before, fnum + n_after + 1))
    for k, num in enumerate(nums_fc):
        if num == fnum:
            seqs[fc].append(('P', framed, num, trailer, note, True))
        else:
            seqs[fc].append(('P', neigh[k_ne], num, neigh_trailer(), neigh_note(), False))
            k_ne += 1
    if two:
        oc = 1 - fc
        start = n0 if oc == 0 else fnum + n_after + 1
        for k in range(n_other):
            seqs[oc].append(('P', neigh[k_ne], start + k, neigh_trailer(), neigh_note(), False))
            k_ne += 1
    # headings
    sections = ZH_SECTIONS if st.lang == 'zh' else EN_SECTIONS
    head_bold = bool(rng.random() < 0.8)
    head_size = int(round(em * float(rng.uniform(1.0, 1.2))))
    for c in range(len(seqs)):
        out = []
        for k, item in enumerate(seqs[c]):
            is_f = item[5]
            if k > 0 or (c == 1 and rng.random() < 0.3):
                prev_f = k > 0 and seqs[c][k - 1][5]
                if (is_f and plan['head_above']) or (not is_f and not prev_f and rng.random() < 0.12):
                    out.append(('H', sections[int(rng.integers(len(sections)))]))
            out.append(item)
        seqs[c] = out
    if fc == 0 and plan['head_above'] and seqs[0][0][0] == 'P' and seqs[0][0][5]:
        seqs[0].insert(0, ('H', sections[int(rng.integers(len(sections)))]))
    # ---- vertical stacking
    blocks = []
    y = mt
    header = rng.random() < 0.55
    if header:
        tsize = int(round(em * float(rng.uniform(1.25, 1.6))))
        title = str(rng.choice(ZH_TITLES if st.lang == 'zh' else EN_TITLES))
        y += tsize
        ln = build_single_line(st, title, ml, tsize, True, center_w=page_w - ml - mr)
        ln['baseline'] = y
        blocks.append(dict(type='header', text=title, lines=[ln]))
        if rng.random() < 0.75:
            nl = str(rng.choice(ZH_NAMELINES if st.lang == 'zh' else EN_NAMELINES))
            y += 1.9 * em
            cen = rng.random() < 0.5
            nsz = em
            while nsz > 0.6 * em and text_runs(nl, st, nsz)[1] > page_w - ml - mr:
                nsz -= 1
            if text_runs(nl, st, nsz)[1] <= page_w - ml - mr:
                ln = build_single_line(st, nl, ml, nsz, False, center_w=(page_w - ml - mr) if cen else None)
                ln['baseline'] = y
                blocks.append(dict(type='name', text=nl, lines=[ln]))
        y += float(rng.uniform(0.6, 1.6)) * em
        rule = rng.random() < 0.5
        if rule:
            blocks.append(dict(type='rule', y=y, x0=ml, x1=page_w - mr))
        y += 0.4 * em
    y_top_cols = y
    col_last = []
    framed_blk = None
    for c, seq in enumerate(seqs):
        y = y_top_cols + em * 0.9
        prev = None  # 'P' or 'H'
        last_base = None
        for item in seq:
            if item[0] == 'H':
                if last_base is not None:
                    y = last_base + st.L * em + float(rng.uniform(0.3, 1.4)) * em
                ln = build_single_line(st, item[1], col_xs[c], head_size, head_bold)
                ln['baseline'] = y
                blocks.append(dict(type='heading', text=item[1], lines=[ln], col=c))
                last_base = y
                prev = 'H'
                continue
            _, rec, num, tr, nt, is_f = item
            if last_base is not None:
                if prev == 'H':
                    y = last_base + st.L * em + float(rng.uniform(0.0, 0.6)) * em
                else:
                    y = last_base + st.L * em + gap_extra() * em
            blk = build_problem(st, rec, num, col_xs[c], col_w, tr, nt, rng, pool)
            blk['col'] = c
            blk['framed'] = is_f
            blk['gap_before_em'] = None if last_base is None else (y - last_base) / em - st.L
            blk['prev_kind'] = prev
            for ln in blk['lines'] + blk['trail']:
                ln['baseline'] = y + ln['row'] * st.L * em
            nrows = len(blk['lines']) + len(blk['trail'])
            last_base = y + (nrows - 1) * st.L * em + blk['workspace_em'] * em
            blocks.append(blk)
            if is_f:
                framed_blk = blk
            prev = 'P'
        col_last.append(last_base)
    # figures in the side strip (line drawings only, no text)
    if fig_x is not None:
        fy = 0.0
        for b in blocks:
            if b['type'] != 'problem' or rng.random() > 0.55:
                continue
            top = b['lines'][0]['baseline'] - em
            if top < fy:
                continue
            size = min(fig_w, float(rng.uniform(4.0, 8.0)) * em)
            blocks.append(dict(type='figure', kind=int(rng.integers(4)), x=fig_x, y=top, w=size,
                               h=size * float(rng.uniform(0.7, 1.0)), lines=[]))
            fy = top + size + em
    # aligned other column
    aligned = False
    if two and plan['aligned']:
        fb = framed_blk['lines'][0]['baseline']
        oc = 1 - fc
        obases = [ln['baseline'] for b in blocks if b.get('col') == oc for ln in b['lines'] + b.get('trail', [])]
        cand = [b for b in obases if b <= fb + 0.5]
        if cand:
            shift = fb - max(cand)
            for b in blocks:
                if b.get('col') == oc:
                    for ln in b['lines'] + b.get('trail', []):
                        ln['baseline'] += shift
            col_last[oc] += shift
            aligned = True
    page_h = max(col_last) + float(rng.uniform(2.5, 8.0)) * em
    page_h = max(page_h, page_w * float(rng.uniform(1.0, 1.45)))
    # page number
    if rng.random() < 0.5:
        ln = build_single_line(st, str(int(rng.integers(2, 120))), 0, int(em * 0.8), False,
                               center_w=page_w)
        ln['baseline'] = page_h - 1.5 * em
        blocks.append(dict(type='pageno', text='', lines=[ln]))
    # bboxes
    for b in blocks:
        for ln in b.get('lines', []) + b.get('trail', []):
            bb = runs_bbox(ln['runs'], ln['baseline'])
            sb = shapes_bbox([(s[0], s[1], s[2] + ln['baseline'], s[3], s[4] + ln['baseline'])
                              for s in ln['shapes']]) if ln['shapes'] else None
            ln['bbox'] = union_bb(bb, sb)
    page = dict(st=st, W=W, H=H, body=body, em=em, scale=scale, blocks=blocks, framed=framed_blk,
                page_w=int(math.ceil(page_w)), page_h=int(math.ceil(page_h)), two=two,
                gutter_em=gutter_em, aligned=aligned, col_w_em=cw_em, framed_col=fc,
                force_trail=force_trail)
    return page


# --------------------------------------------------------------------------
# geometry
# --------------------------------------------------------------------------
def problem_pts(blk, with_trailer=False):
    pts = []
    for ln in blk['lines'] + (blk['trail'] if with_trailer else []):
        if ln['bbox'] is None:
            continue
        l, t, r, b = ln['bbox']
        pts += [(l, t), (r, t), (r, b), (l, b)]
    return np.array(pts, dtype=np.float64)


def apply_H(H, pts):
    p = np.c_[pts, np.ones(len(pts))] @ H.T
    return p[:, :2] / p[:, 2:3]


def hull_of(pts):
    h = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2).astype(np.float64)
    return h


def poly_dist(p, poly):
    d = cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2), (float(p[0]), float(p[1])), True)
    return max(0.0, -d)


def clip_rect(poly, W, H):
    def clip(pts, inside, inter):
        out = []
        n = len(pts)
        for k in range(n):
            a, b = pts[k], pts[(k + 1) % n]
            ia, ib = inside(a), inside(b)
            if ia:
                out.append(a)
                if not ib:
                    out.append(inter(a, b))
            elif ib:
                out.append(inter(a, b))
        return out

    def ix(xv):
        return lambda a, b: (xv, a[1] + (b[1] - a[1]) * (xv - a[0]) / (b[0] - a[0]))

    def iy(yv):
        return lambda a, b: (a[0] + (b[0] - a[0]) * (yv - a[1]) / (b[1] - a[1]), yv)

    pts = [tuple(p) for p in poly]
    for inside, inter in [(lambda p: p[0] >= 0, ix(0.0)), (lambda p: p[0] <= W, ix(float(W))),
                          (lambda p: p[1] >= 0, iy(0.0)), (lambda p: p[1] <= H, iy(float(H)))]:
        if not pts:
            break
        pts = clip(pts, inside, inter)
    return np.array(pts, dtype=np.float64).reshape(-1, 2)


def poly_area(p):
    if len(p) < 3:
        return 0.0
    x, y = p[:, 0], p[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def place_camera(rng, page, plan, stage):
    W, H = page['W'], page['H']
    diag = math.hypot(W, H)
    ctr = np.array([W / 2.0, H / 2.0])
    fb = page['framed']
    fpts = problem_pts(fb)
    c1 = np.array([(fpts[:, 0].min() + fpts[:, 0].max()) / 2, (fpts[:, 1].min() + fpts[:, 1].max()) / 2])
    probs = [b for b in page['blocks'] if b['type'] == 'problem']
    others = [b for b in probs if not b['framed']]
    opts = [problem_pts(b) for b in others]
    fbpts = problem_pts(fb, True)
    obpts = [problem_pts(b, True) for b in others]
    # immediate neighbours in the framed column
    colp = [b for b in probs if b['col'] == fb['col']]
    kf = colp.index(fb)
    adj = [colp[kf - 1]] if kf > 0 else []
    adj += [colp[kf + 1]] if kf + 1 < len(colp) else []
    em = page['em']
    s0 = page['scale']
    for tr in range(40):
        rmax = 0.18 * (1.0 - tr / 55.0)
        r = float(rng.uniform(0.0, rmax)) * diag
        phi = float(rng.uniform(0, 2 * math.pi))
        if rng.random() < 0.5:  # horizontal offsets are more often feasible
            phi = float(rng.choice([0.0, math.pi])) + float(rng.normal(0, 0.35))
        c2 = ctr + r * np.array([math.cos(phi), math.sin(phi)])
        th = math.radians(float(rng.uniform(-5.0, 5.0)))
        sh = float(rng.uniform(-0.03, 0.03))
        asp = float(rng.uniform(0.97, 1.03))
        a = float(rng.uniform(-1, 1)) * 1.3e-4
        b = float(rng.uniform(-1, 1)) * 1.3e-4
        T1 = np.array([[1, 0, -c1[0]], [0, 1, -c1[1]], [0, 0, 1.0]])
        A = np.array([[s0 * asp, s0 * sh, 0], [0, s0 / asp, 0], [0, 0, 1.0]])
        R = np.array([[math.cos(th), -math.sin(th), 0], [math.sin(th), math.cos(th), 0], [0, 0, 1.0]])
        P = np.array([[1, 0, 0], [0, 1, 0], [a, b, 1.0]])
        T2 = np.array([[1, 0, c2[0]], [0, 1, c2[1]], [0, 0, 1.0]])
        Hm = T2 @ P @ R @ A @ T1
        # page corners must stay in front of the camera
        pc = np.array([[0, 0, 1], [page['page_w'], 0, 1], [0, page['page_h'], 1],
                       [page['page_w'], page['page_h'], 1.0]]) @ Hm.T
        if (pc[:, 2] < 0.3).any():
            continue
        fh = hull_of(apply_H(Hm, fpts))
        m = max(6.0, 0.5 * page['body'])
        if fh[:, 0].min() < m or fh[:, 1].min() < m or fh[:, 0].max() > W - m or fh[:, 1].max() > H - m:
            continue
        # rotation and local scale at framed centre
        q = apply_H(Hm, np.array([c1, c1 + [50.0, 0], c1 + [0, 50.0]]))
        rot = math.degrees(math.atan2(q[1, 1] - q[0, 1], q[1, 0] - q[0, 0]))
        if abs(rot) > 6.0:
            continue
        J = np.c_[(q[1] - q[0]) / 50.0, (q[2] - q[0]) / 50.0]
        body_px = em * math.sqrt(abs(np.linalg.det(J)))
        if not (22.3 <= body_px <= 47.7):
            continue
        fd = poly_dist(ctr, fh)
        if fd > 0.09 * diag:
            continue
        # the image centre must fall on the page, at least 1 em inside its edge
        pq = apply_H(Hm, np.array([[0, 0], [page['page_w'], 0], [page['page_w'], page['page_h']],
                                    [0, page['page_h']]], dtype=np.float64))
        if cv2.pointPolygonTest(pq.astype(np.float32).reshape(-1, 1, 2), (float(ctr[0]), float(ctr[1])),
                                True) < body_px:
            continue
        ohulls = [hull_of(apply_H(Hm, p)) for p in opts]
        od = [poly_dist(ctr, h) for h in ohulls]
        odv = []
        for h in ohulls:
            cl = clip_rect(h, W, H)
            odv.append(poly_dist(ctr, cl) if poly_area(cl) > 1.0 else float('inf'))
        if min(od) - fd < 0.05 * diag + 2.0 or min(odv) - fd < 0.05 * diag + 2.0:
            continue
        # same rule when every problem's block includes its trailer (options / answer line):
        # the centre must not sit on a neighbour's options either
        fbh = hull_of(apply_H(Hm, fbpts))
        obh = [hull_of(apply_H(Hm, p)) for p in obpts]
        fbd = poly_dist(ctr, fbh)
        obd = [poly_dist(ctr, h) for h in obh]
        if min(obd) - fbd < 0.05 * diag + 2.0:
            continue
        # immediate neighbours must show (complete or cut)
        ok = True
        for nb in adj:
            vis = False
            for ln in nb['lines']:
                l, t, rr, bb = ln['bbox']
                cc = apply_H(Hm, np.array([[(l + rr) / 2, (t + bb) / 2], [l, (t + bb) / 2],
                                           [rr, (t + bb) / 2]]))
                if any(0 < x < W and 0 < yv < H for x, yv in cc):
                    vis = True
                    break
            ok &= vis
        if not ok:
            continue
        off = np.array([(fh[:, 0].min() + fh[:, 0].max()) / 2, (fh[:, 1].min() + fh[:, 1].max()) / 2]) - ctr
        if np.hypot(*off) > 0.178 * diag:
            continue
        return dict(H=Hm, rot=rot, body_px=body_px, fhull=fh, fdist=fd, others=others, ohulls=ohulls,
                    od=od, odv=odv, fbhull=fbh, fbdist=fbd, obhulls=obh, obd=obd, offset=float(np.hypot(*off) / diag), adj=adj)
    return None


# --------------------------------------------------------------------------
# rendering
# --------------------------------------------------------------------------
def draw_figure(d, b, st, em):
    x, y, w, h = b['x'], b['y'], b['w'], b['h']
    lw = max(1, int(round(0.06 * em)))
    k = b['kind']
    if k == 0:  # right triangle with right-angle mark
        A, B, C = (x + 0.1 * w, y + 0.9 * h), (x + 0.9 * w, y + 0.9 * h), (x + 0.1 * w, y + 0.15 * h)
        d.line([A, B, C, A], fill=st.ink, width=lw)
        m = 0.08 * w
        d.line([(A[0] + m, A[1]), (A[0] + m, A[1] - m), (A[0], A[1] - m)], fill=st.ink, width=lw)
    elif k == 1:  # circle with radius
        r = 0.4 * min(w, h)
        cx, cy = x + w / 2, y + h / 2
        d.ellipse([cx - r, cy - r, cx + r, cy + r], outline=st.ink, width=lw)
        d.line([(cx, cy), (cx + r * 0.8, cy - r * 0.6)], fill=st.ink, width=lw)
        d.ellipse([cx - 2 * lw, cy - 2 * lw, cx + 2 * lw, cy + 2 * lw], fill=st.ink)
    elif k == 2:  # axes with a line
        ox, oy = x + 0.2 * w, y + 0.8 * h
        d.line([(x + 0.05 * w, oy), (x + 0.95 * w, oy)], fill=st.ink, width=lw)
        d.line([(ox, y + 0.95 * h), (ox, y + 0.05 * h)], fill=st.ink, width=lw)
        d.polygon([(x + 0.95 * w, oy), (x + 0.9 * w, oy - 0.03 * h), (x + 0.9 * w, oy + 0.03 * h)], fill=st.ink)
        d.polygon([(ox, y + 0.05 * h), (ox - 0.03 * w, y + 0.1 * h), (ox + 0.03 * w, y + 0.1 * h)], fill=st.ink)
        d.line([(x + 0.1 * w, y + 0.9 * h), (x + 0.85 * w, y + 0.15 * h)], fill=st.ink, width=lw)
    else:  # cube sketch
        s = 0.55 * min(w, h)
        o = 0.22 * s
        x0, y0 = x + 0.1 * w, y + 0.3 * h
        d.rectangle([x0, y0, x0 + s, y0 + s], outline=st.ink, width=lw)
        d.line([(x0, y0), (x0 + o, y0 - o), (x0 + s + o, y0 - o), (x0 + s, y0)], fill=st.ink, width=lw)
        d.line([(x0 + s + o, y0 - o), (x0 + s + o, y0 + s - o), (x0 + s, y0 + s)], fill=st.ink, width=lw)


def render_page(page, rng):
    st = page['st']
    pw, ph = page['page_w'], page['page_h']
    img = Image.new('RGB', (pw, ph), st.paper)
    d = ImageDraw.Draw(img)
    for b in page['blocks']:
        if b['type'] == 'rule':
            d.line([(b['x0'], b['y']), (b['x1'], b['y'])], fill=st.ink, width=max(1, int(page['em'] * 0.06)))
            continue
        if b['type'] == 'figure':
            draw_figure(d, b, st, page['em'])
            continue
        for ln in b['lines'] + b.get('trail', []):
            y = ln['baseline']
            for r in ln['runs']:
                if r[0] == 't':
                    _, x, dy, seg, fk, sz, col = r
                    d.text((x, y + dy), seg, font=font_obj(fk, sz), fill=col, anchor='ls')
                else:
                    _, x, w, th, col = r
                    yy = y + th * 1.7
                    d.line([(x, yy), (x + w, yy)], fill=col, width=max(1, int(round(th))))
            for s in ln['shapes']:
                kind, x0, y0, x1, y1, wd, col = s
                box = [x0, y + y0, x1, y + y1]
                if kind == 'rect':
                    d.rectangle(box, outline=col, width=max(1, int(round(wd))))
                else:
                    d.ellipse(box, outline=col, width=max(1, int(round(wd))))
    arr = np.asarray(img).astype(np.float32)
    # paper texture (low frequency blotches + fine grain)
    sm = rng.normal(0, 1, (max(2, ph // 64), max(2, pw // 64))).astype(np.float32)
    sm = cv2.resize(sm, (pw, ph), interpolation=cv2.INTER_CUBIC)
    arr *= (1.0 + 0.012 * sm)[..., None]
    arr += rng.normal(0, 2.0, (ph, pw, 1)).astype(np.float32)
    return np.clip(arr, 0, 255).astype(np.uint8)


def desk_background(rng, W, H):
    kind = int(rng.integers(4))
    base = [np.array([150, 108, 70]), np.array([118, 118, 124]), np.array([52, 50, 55]),
            np.array([196, 196, 190])][kind].astype(np.float32)
    base = base * float(rng.uniform(0.85, 1.15))
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    sm = rng.normal(0, 1, (H // 60 + 2, W // 60 + 2)).astype(np.float32)
    sm = cv2.resize(sm, (W, H), interpolation=cv2.INTER_CUBIC)
    tex = 1.0 + 0.04 * sm
    if kind == 0:  # wood: fine streaks along one direction
        st_ = rng.normal(0, 1, (H // 3 + 2, W // 90 + 2)).astype(np.float32)
        st_ = cv2.resize(st_, (W, H), interpolation=cv2.INTER_CUBIC)
        if rng.random() < 0.5:
            st_ = cv2.resize(rng.normal(0, 1, (H // 90 + 2, W // 3 + 2)).astype(np.float32), (W, H),
                             interpolation=cv2.INTER_CUBIC)
        tex += 0.07 * st_ + 0.03 * np.sin(3 * st_)
    img = base[None, None, :] * tex[..., None]
    img += rng.normal(0, 3, (H, W, 1)).astype(np.float32)
    return img


def finger_or_pen(rng, kind, W, H, fhull, body):
    """-> (rgb float image, alpha float, shadow alpha) or None if no placement avoids framed text."""
    fmask = np.zeros((H, W), np.uint8)
    cv2.fillConvexPoly(fmask, np.round(fhull).astype(np.int32), 255)
    k = int(max(3, 0.6 * body)) * 2 + 1
    fmask = cv2.dilate(fmask, np.ones((k, k), np.uint8))
    # edge preference: farthest from framed hull
    cx, cy = fhull[:, 0].mean(), fhull[:, 1].mean()
    edges = ['left', 'right', 'top', 'bottom']
    room = {'left': fhull[:, 0].min(), 'right': W - fhull[:, 0].max(), 'top': fhull[:, 1].min(),
            'bottom': H - fhull[:, 1].max()}
    for tr in range(60):
        weights = np.array([room[e] for e in edges]) ** 2 + 1.0
        e = edges[rng.choice(4, p=weights / weights.sum())]
        if kind == 'finger':
            width = float(rng.uniform(85, 150))
            length = float(rng.uniform(110, 260))
        else:
            width = float(rng.uniform(16, 30))
            length = float(rng.uniform(200, 520))
        t = float(rng.uniform(0.1, 0.9))
        if e == 'left':
            p0, n = np.array([-width, t * H]), np.array([1.0, 0])
        elif e == 'right':
            p0, n = np.array([W + width, t * H]), np.array([-1.0, 0])
        elif e == 'top':
            p0, n = np.array([t * W, -width]), np.array([0, 1.0])
        else:
            p0, n = np.array([t * W, H + width]), np.array([0, -1.0])
        ang = float(rng.normal(0, 0.45))
        dvec = np.array([n[0] * math.cos(ang) - n[1] * math.sin(ang), n[0] * math.sin(ang) + n[1] * math.cos(ang)])
        tip = p0 + dvec * (length + width)
        mask = np.zeros((H, W), np.float32)
        if kind == 'finger':
            cv2.line(mask, tuple(int(v) for v in p0), tuple(int(v) for v in tip), 1.0, int(width), cv2.LINE_AA)
        else:
            cone = float(rng.uniform(2.0, 3.0)) * width
            base = tip - dvec * cone
            cv2.line(mask, tuple(int(v) for v in p0), tuple(int(v) for v in base), 1.0, int(width), cv2.LINE_AA)
            perp = np.array([-dvec[1], dvec[0]])
            tri = np.array([base + perp * width / 2, base - perp * width / 2, tip])
            cv2.fillConvexPoly(mask, np.round(tri).astype(np.int32), 1.0, cv2.LINE_AA)
        if (mask > 0.02).sum() < 500:
            continue
        if ((mask > 0.01) & (fmask > 0)).any():
            continue
        # colour
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        perp = np.array([-dvec[1], dvec[0]])
        across = ((xx - p0[0]) * perp[0] + (yy - p0[1]) * perp[1]) / (width / 2)
        along = ((xx - p0[0]) * dvec[0] + (yy - p0[1]) * dvec[1])
        if kind == 'finger':
            skin = np.array([[224, 172, 140], [205, 150, 115], [170, 115, 85], [235, 190, 160]][rng.integers(4)],
                            np.float32)
            shade = np.clip(1.0 - 0.45 * across ** 2, 0.35, 1.0)
            rgb = skin[None, None, :] * shade[..., None]
            # nail near tip
            nail_c = tip - dvec * (width * 0.55)
            nd = ((xx - nail_c[0]) * dvec[0] + (yy - nail_c[1]) * dvec[1]) / (width * 0.32)
            nail = np.clip(1.0 - (nd ** 2 + (across / 0.62) ** 2), 0, 1)
            rgb = rgb * (1 - 0.5 * nail[..., None]) + np.array([240, 200, 190], np.float32) * 0.5 * nail[..., None]
            blur = float(rng.uniform(2.0, 5.0))
        else:
            body_c = np.array([[30, 40, 120], [25, 25, 28], [170, 30, 35], [235, 235, 230], [40, 110, 60]][
                rng.integers(5)], np.float32)
            shade = np.clip(1.0 - 0.5 * np.abs(across) ** 1.5, 0.3, 1.0) + 0.35 * np.exp(-((across + 0.35) / 0.15) ** 2)
            rgb = body_c[None, None, :] * shade[..., None]
            tipzone = np.clip((along - (length + width - cone)) / (0.3 * width), 0, 1)
            rgb = rgb * (1 - tipzone[..., None]) + np.array([150, 150, 150], np.float32) * shade[..., None] * tipzone[
                ..., None]
            blur = float(rng.uniform(0.8, 2.0))
        alpha = cv2.GaussianBlur(mask, (0, 0), blur)
        alpha[fmask > 0] = np.minimum(alpha[fmask > 0], 0.0)
        sh = np.roll(np.roll(mask, int(rng.integers(6, 20)), axis=0), int(rng.integers(-12, 12)), axis=1)
        sh = cv2.GaussianBlur(sh, (0, 0), float(rng.uniform(8, 18))) * float(rng.uniform(0.25, 0.45))
        sh[fmask > 0] *= 0.5
        return rgb, alpha, sh, dict(type=kind, edge=e, tip=[round(float(tip[0]), 1), round(float(tip[1]), 1)])
    return None


def moire_field(rng, W, H):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = float(rng.uniform(0, math.pi))
    u = xx * math.cos(ang) + yy * math.sin(ang)
    v = -xx * math.sin(ang) + yy * math.cos(ang)
    p = float(rng.uniform(2.05, 3.3))
    P = float(rng.uniform(18, 70))
    curv = float(rng.uniform(-1, 1)) * 4e-4
    amp = float(rng.uniform(0.03, 0.08))
    amp2 = float(rng.uniform(0.03, 0.07))
    out = np.empty((H, W, 3), np.float32)
    for c in range(3):
        hf = np.cos(2 * np.pi * u / p + c * 2 * np.pi / 3) * np.cos(2 * np.pi * v / (p * 1.03))
        lf = np.cos(2 * np.pi * (u + curv * v * v) / P + c * 0.9)
        out[..., c] = 1.0 + amp * hf + amp2 * lf
    return out


def render_photo(page, cam, rng, plan, occl_kind):
    W, H = page['W'], page['H']
    pimg = render_page(page, rng)
    Hm = cam['H']
    warped = cv2.warpPerspective(pimg, Hm, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                 borderValue=0).astype(np.float32)
    mask = cv2.warpPerspective(np.full(pimg.shape[:2], 255, np.uint8), Hm, (W, H), flags=cv2.INTER_LINEAR,
                               borderValue=0).astype(np.float32) / 255.0
    del pimg
    bg = desk_background(rng, W, H)
    shadow = cv2.GaussianBlur(np.roll(np.roll(mask, 8, 0), 6, 1), (0, 0), 12)
    bg *= (1 - 0.4 * shadow)[..., None]
    img = warped * mask[..., None] + bg * (1 - mask[..., None])
    del warped, bg
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    # lighting: gradient, vignette, optional soft shadow blob
    ang = float(rng.uniform(0, 2 * math.pi))
    g = (xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)
    g /= float(np.abs(g).max()) + 1e-6
    light = 1.0 - float(rng.uniform(0.05, 0.32)) * (0.5 + 0.5 * g)
    rr = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
    light *= 1.0 - float(rng.uniform(0.0, 0.22)) * rr
    if rng.random() < 0.35:
        cxs, cys = float(rng.uniform(0, W)), float(rng.uniform(0, H))
        blob = np.exp(-(((xx - cxs) / float(rng.uniform(150, 450))) ** 2 + ((yy - cys) / float(rng.uniform(150, 450))) ** 2))
        light *= 1.0 - float(rng.uniform(0.12, 0.28)) * blob
    light = np.maximum(light, 0.58)
    img *= light[..., None]
    if plan['moire']:  # page shown on a phone screen, photographed
        img = img * 0.9 + 18
        img *= moire_field(rng, W, H)
        img *= np.array([0.95, 1.0, 1.07], np.float32)[None, None, :]
    occ_meta = None
    if occl_kind:
        res = finger_or_pen(rng, occl_kind, W, H, cam['fhull'], cam['body_px'])
        if res is not None:
            rgb, alpha, sh, occ_meta = res
            img *= (1 - sh)[..., None]
            img = img * (1 - alpha[..., None]) + rgb * light[..., None] * alpha[..., None]
    del xx, yy
    sig = float(rng.uniform(0.35, 0.9)) * min(1.25, cam['body_px'] / 30.0)
    img = cv2.GaussianBlur(img, (0, 0), sig)
    if rng.random() < 0.12 and cam['body_px'] >= 30:
        L = int(rng.integers(1, 3))
        k = np.zeros((L * 2 + 1, L * 2 + 1), np.float32)
        a = float(rng.uniform(0, math.pi))
        for t in np.linspace(-L, L, 4 * L + 1):
            k[int(round(L + t * math.sin(a))), int(round(L + t * math.cos(a)))] = 1
        img = cv2.filter2D(img, -1, k / k.sum())
    nsig = float(rng.uniform(1.5, 6.0))
    noise = rng.normal(0, 1, (H, W, 1)).astype(np.float32) * nsig * (0.6 + 0.4 * img.mean(2, keepdims=True) / 255)
    noise = noise + rng.normal(0, nsig * 0.35, (H, W, 3)).astype(np.float32)
    img += cv2.GaussianBlur(noise, (0, 0), 0.6)
    del noise
    wb = np.array([rng.uniform(0.94, 1.06), 1.0, rng.uniform(0.92, 1.06)], np.float32)
    img *= wb[None, None, :]
    gam = float(rng.uniform(0.9, 1.1))
    img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** gam
    return np.clip(img + 0.5, 0, 255).astype(np.uint8), occ_meta


# --------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------
_BANK = None


def _init(bank_path):
    global _BANK
    _BANK = Bank(bank_path)


def r1(v):
    return round(float(v), 1)


def make_one(args):
    i, seed, out_dir = args
    bank = _BANK
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    plan = make_plan(i)
    page = cam = None
    attempts = 0
    for attempt in range(400):
        attempts = attempt + 1
        stage = 0 if attempt < 90 else (1 if attempt < 200 else (2 if attempt < 300 else 3))
        page = sample_layout(rng, plan, stage, bank)
        if page is None:
            continue
        cam = place_camera(rng, page, plan, stage)
        if cam is not None:
            break
    if cam is None:
        raise RuntimeError(f'photo {i}: no layout satisfied the nearest rule')
    img, occ = render_photo(page, cam, rng, plan, plan['occluder'])
    q = int(rng.integers(60, 93))
    qid = f'm{i:03d}'
    fname = f'{qid}.jpg'
    Image.fromarray(img).save(os.path.join(out_dir, fname), quality=q)
    del img
    # ---------------- meta / kinds
    W, H = page['W'], page['H']
    diag = math.hypot(W, H)
    st = page['st']
    fb = page['framed']
    fh = cam['fhull']
    kinds = []
    # spacing: gaps to adjacent problems in the same column
    probs = [b for b in page['blocks'] if b['type'] == 'problem']
    colp = [b for b in probs if b['col'] == fb['col']]
    kf = colp.index(fb)
    gaps = []
    if fb['prev_kind'] == 'P':
        gaps.append(fb['gap_before_em'])
    if kf + 1 < len(colp) and colp[kf + 1]['prev_kind'] == 'P':
        gaps.append(colp[kf + 1]['gap_before_em'])
    if any(g is not None and abs(g) < 1e-6 for g in gaps):
        kinds.append('equal_spacing')
    if any(g is not None and 0.1 - 1e-6 <= g <= 0.6 + 1e-6 for g in gaps):
        kinds.append('tight_spacing')
    if not kinds:
        kinds.append('loose_spacing')
    kinds.append('label_' + st.label_style)
    nl = fb['n_text']
    if nl >= 2 and (st.label_style == 'margin' or (st.indent_mode == 'hanging' and fb['label'])):
        kinds.append('hanging_indent')
    if st.indent_mode == 'first' and st.label_style != 'margin':
        kinds.append('first_line_indent')
    if st.justify and nl >= 2:
        kinds.append('justified')
    qtxt = fb['question']
    if has_cjk(qtxt) and re.search('[A-Za-z]', qtxt):
        kinds.append('mixed_zh_en')
    kinds.append({'opt1': 'options_1row', 'opt2': 'options_2rows', 'opt4': 'options_4rows',
                  'answer': 'answer_line', 'workspace': 'workspace', 'none': 'no_trailer'}[fb['trailer']])
    lastl = fb['lines'][-1]
    if nl >= 2 and lastl['width'] / max(1.0, lastl['avail']) < 0.35:
        kinds.append('short_last_line')
    if page['two']:
        kinds.append('two_column')
        kinds.append('gutter_narrow' if page['gutter_em'] <= 2.0 else (
            'gutter_wide' if page['gutter_em'] >= 3.0 else 'gutter_mid'))
        fbases = [ln['baseline'] for ln in fb['lines']]
        obases = [ln['baseline'] for b in probs if b['col'] != fb['col'] for ln in b['lines'] + b['trail']]
        same = sum(1 for y in fbases if any(abs(y - o) < 0.5 for o in obases))
        if same >= min(2, len(fbases)):
            kinds.append('cross_column_aligned')
    Hm = cam['H']
    heads = []
    for b in page['blocks']:
        if b['type'] in ('header', 'name', 'heading'):
            ln = b['lines'][0]
            l, t, r, bt = ln['bbox']
            pts = apply_H(Hm, np.array([[l, t], [r, t], [r, bt], [l, bt]]))
            hh = hull_of(pts)
            cl = clip_rect(hh, W, H)
            vis = poly_area(cl) > 0.3 * poly_area(hh)
            heads.append(dict(type=b['type'], text=b['text'], hull=[[r1(x), r1(y)] for x, y in hh], visible=bool(vis)))
    if fb['prev_kind'] == 'H':
        kinds.append('heading_directly_above')
    if any(h['visible'] and h['type'] == 'heading' for h in heads):
        kinds.append('section_heading_visible')
    if any(h['visible'] and h['type'] in ('header', 'name') for h in heads):
        kinds.append('page_header_visible')
    kinds.append('off_centre' if cam['offset'] >= 0.06 else 'near_centre')
    kinds.append('long_framed' if nl >= 4 else ('one_line_framed' if nl == 1 else 'medium_framed'))
    adjn = [b['n_text'] for b in cam['adj']]
    if any(n > nl for n in adjn):
        kinds.append('neighbour_longer')
    if any(n < nl for n in adjn):
        kinds.append('neighbour_shorter')
    if fb['note']:
        kinds.append('score_note')
    if occ:
        kinds.append(occ['type'])
    if plan['moire']:
        kinds.append('moire')
    kinds.append('lang_' + st.lang)
    kinds.append('landscape' if W > H else 'portrait')
    # others
    others = []
    for b, h, d, dv, bh, bd in zip(cam['others'], cam['ohulls'], cam['od'], cam['odv'], cam['obhulls'], cam['obd']):
        cl = clip_rect(h, W, H)
        others.append(dict(bank_id=b['bank_id'], label=b['label'], n_lines=b['n_text'],
                           hull=[[r1(x), r1(y)] for x, y in h],
                           block_hull=[[r1(x), r1(y)] for x, y in bh], block_dist=r1(bd), trailer=b['trailer'],
                           hull_visible=[[r1(x), r1(y)] for x, y in cl] if poly_area(cl) > 1.0 else [],
                           dist=r1(d), dist_visible=(r1(dv) if dv != float('inf') else None),
                           column=b['col'], same_column=b['col'] == fb['col']))
    order = sorted(range(len(others)), key=lambda k: cam['od'][k])
    nearest = [[others[k]['bank_id'], others[k]['dist']] for k in order[:3]]
    # trailer hull of the framed problem (not part of truth)
    thull = []
    if fb['trail']:
        pts = []
        for ln in fb['trail']:
            if ln['bbox'] is None:
                continue
            l, t, r, bt = ln['bbox']
            pts += [(l, t), (r, t), (r, bt), (l, bt)]
        if pts:
            thull = [[r1(x), r1(y)] for x, y in hull_of(apply_H(Hm, np.array(pts)))]
    fhull_r = [[r1(x), r1(y)] for x, y in fh]
    meta = dict(
        qid=qid, file=fname, bank_id=fb['bank_id'], width=W, height=H, rotation=round(cam['rot'], 2),
        box=[r1(fh[:, 0].min()), r1(fh[:, 1].min()), r1(fh[:, 0].max()), r1(fh[:, 1].max())],
        hull=fhull_r, label=fb['label'], label_style=st.label_style, score_note=fb['note'],
        framed_dist=r1(poly_dist(np.array([W / 2, H / 2]), np.array(fhull_r))),
        nearest_others=nearest, body_px=round(cam['body_px'], 1), kinds=kinds, n_lines=nl,
        line_texts=fb['info']['qtexts'], line_break_space=fb['info']['drops'],
        jpeg_quality=q, centre_offset_frac=round(cam['offset'], 4),
        gap_extra_em=[None if g is None else round(g, 3) for g in gaps],
        line_pitch_em=round(st.L, 3), page_em_px=page['em'],
        columns=2 if page['two'] else 1, gutter_em=round(page['gutter_em'], 2), column_width_em=round(page['col_w_em'], 2),
        trailer=fb['trailer'], trailer_hull=thull, block_hull=[[r1(x), r1(y)] for x, y in cam['fbhull']],
        block_dist=r1(cam['fbdist']), fonts=dict(cjk=st.cjk, latin=st.latin),
        occluder=occ, moire=bool(plan['moire']), headings=heads, others=others,
        plan=plan, attempts=attempts,
        question=fb['question'],
    )
    return meta


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------
def write_outputs(out_dir, metas):
    metas = sorted(metas, key=lambda m: m['qid'])
    with open(os.path.join(out_dir, 'truth.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for m in metas:
            w.writerow([m['qid'], m['question']])
    with open(os.path.join(out_dir, 'queries.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for m in metas:
            w.writerow([m['qid'], m['question'], m['bank_id'], 'exact'])
    with open(os.path.join(out_dir, 'meta.jsonl'), 'w', encoding='utf-8') as f:
        for m in metas:
            mm = {k: v for k, v in m.items() if k != 'question'}
            f.write(json.dumps(mm, ensure_ascii=False) + '\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out_dir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=191)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--only', default='')
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    idx = list(range(1, a.count + 1))
    if a.only:
        idx = [int(x) for x in a.only.split(',') if x.strip()]
    jobs = max(1, min(2, a.jobs))
    t0 = time.time()
    tasks = [(i, a.seed, a.out_dir) for i in idx]
    metas = []
    if jobs == 1:
        _init(a.bank)
        for t in tasks:
            metas.append(make_one(t))
            print(metas[-1]['qid'], ' '.join(metas[-1]['kinds']), flush=True)
    else:
        import multiprocessing as mp
        with mp.get_context('fork').Pool(jobs, initializer=_init, initargs=(a.bank,), maxtasksperchild=20) as pool:
            for m in pool.imap_unordered(make_one, tasks):
                metas.append(m)
                print(m['qid'], ' '.join(m['kinds']), flush=True)
    if a.only:
        # merge with an existing set: replace the regenerated rows
        old = {}
        mp_ = os.path.join(a.out_dir, 'meta.jsonl')
        tp = os.path.join(a.out_dir, 'truth.csv')
        if os.path.exists(mp_) and os.path.exists(tp):
            texts = {r['qid']: r['text'] for r in csv.DictReader(open(tp, encoding='utf-8'))}
            for l in open(mp_, encoding='utf-8'):
                m = json.loads(l)
                m['question'] = texts[m['qid']]
                old[m['qid']] = m
        for m in metas:
            old[m['qid']] = m
        metas = list(old.values())
    write_outputs(a.out_dir, metas)
    print(f'done {len(idx)} photos in {time.time() - t0:.1f}s', flush=True)


if __name__ == '__main__':
    main()
