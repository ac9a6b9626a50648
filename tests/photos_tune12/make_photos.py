#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Synthetic phone photos of printed school worksheets with one hand-framed problem.

Independent test-data generator.  It was written from the question bank file and a
list of kinds of case only; it does not use or import any code of the product.

Usage (from the repository root):
    .venv/bin/python tests/photos_tune12/make_photos.py --bank appliance/data/demo_bank.jsonl \
        OUT_DIR [QID ...] [--jobs N]

Writes OUT_DIR/w001.jpg ... w120.jpg, truth.csv, queries.csv and meta.jsonl.
Everything is seeded: photo i is always made from seed (SEED, i), whatever --jobs is.
Giving QIDs (w007 or 7) re-renders only those photos; the csv/jsonl files are always
written for the whole set (the page layout and camera geometry are cheap and are
planned for every photo, only the pixels are skipped).
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import time
from multiprocessing import get_context

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont
from fontTools.ttLib import TTFont, TTCollection

cv2.setNumThreads(1)

SEED = 120612
N_PHOTOS = 120
REF = 256          # reference pixel size used for all text measurements

# =====================================================================================
# fonts
# =====================================================================================
FONT_SPECS = {
    'zh_sans': ('NotoSansCJK-Regular.ttc', 'Noto Sans CJK SC'),
    'zh_sans_b': ('NotoSansCJK-Bold.ttc', 'Noto Sans CJK SC'),
    'zh_serif': ('NotoSerifCJK-Regular.ttc', 'Noto Serif CJK SC'),
    'zh_serif_b': ('NotoSerifCJK-Bold.ttc', 'Noto Serif CJK SC'),
    'zh_mono': ('NotoSansCJK-Regular.ttc', 'Noto Sans Mono CJK SC'),
    'serif': ('LiberationSerif-Regular.ttf', None),
    'serif_b': ('LiberationSerif-Bold.ttf', None),
    'serif_i': ('LiberationSerif-Italic.ttf', None),
    'sans': ('LiberationSans-Regular.ttf', None),
    'sans_b': ('LiberationSans-Bold.ttf', None),
    'sans_i': ('LiberationSans-Italic.ttf', None),
    'narrow': ('LiberationSansNarrow-Regular.ttf', None),
    'narrow_b': ('LiberationSansNarrow-Bold.ttf', None),
    'dv_sans': ('DejaVuSans.ttf', None),
    'dv_sans_b': ('DejaVuSans-Bold.ttf', None),
    'dv_sans_i': ('DejaVuSans-Oblique.ttf', None),
    'dv_serif': ('DejaVuSerif.ttf', None),
    'dv_serif_b': ('DejaVuSerif-Bold.ttf', None),
    'dv_serif_i': ('DejaVuSerif-Italic.ttf', None),
    'dv_cond': ('DejaVuSansCondensed.ttf', None),
    'dv_cond_b': ('DejaVuSansCondensed-Bold.ttf', None),
    'dv_light': ('DejaVuSans-ExtraLight.ttf', None),
}
FALLBACK = ['zh_sans', 'dv_sans']


class Font:
    def __init__(self, key, path, index):
        self.key, self.path, self.index = key, path, index
        if path.lower().endswith('.ttc'):
            tt = TTCollection(path, lazy=True).fonts[index]
        else:
            tt = TTFont(path, lazy=True)
        self.cmap = frozenset(tt.getBestCmap().keys())
        self.ref = ImageFont.truetype(path, REF, index=index)
        self._w, self._b, self._pil = {}, {}, {}

    def has(self, ch):
        return ord(ch) in self.cmap

    def width(self, s):
        v = self._w.get(s)
        if v is None:
            v = self._w[s] = self.ref.getlength(s) / REF
        return v

    def bbox(self, s):
        v = self._b.get(s)
        if v is None:
            b = self.ref.getbbox(s, anchor='ls')
            v = self._b[s] = tuple(x / REF for x in b)
        return v

    def pil(self, px):
        px = max(3.0, round(float(px) * 20) / 20.0)     # fractional sizes keep the layout exact
        f = self._pil.get(px)
        if f is None:
            f = self._pil[px] = ImageFont.truetype(self.path, px, index=self.index)
        return f


FONTS = {}


def load_fonts():
    if FONTS:
        return
    out = subprocess.run(['fc-list', '--format', '%{file}\n'], capture_output=True, text=True).stdout
    paths = {}
    for line in sorted(out.splitlines()):
        p = line.strip()
        if p:
            paths.setdefault(os.path.basename(p), p)
    for key, (fname, family) in FONT_SPECS.items():
        path = paths.get(fname)
        if path is None:
            raise SystemExit('font file not found: %s' % fname)
        index = 0
        if family:
            coll = TTCollection(path, lazy=True)
            index = None
            for j, f in enumerate(coll.fonts):
                full = f['name'].getDebugName(4) or ''
                if full == family or (full.startswith(family) and full[len(family)] == ' '):
                    index = j
                    break
            if index is None:
                raise SystemExit('family %s not in %s' % (family, path))
        FONTS[key] = Font(key, path, index)


def font_for(ch, prefs):
    """First font in prefs (then the fallbacks) that has a glyph for ch."""
    for k in list(prefs) + FALLBACK:
        if FONTS[k].has(ch):
            return k
    raise ValueError('no font has a glyph for %r' % ch)


# =====================================================================================
# text model
# =====================================================================================
CJK_RE = re.compile('[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f'
                    '\u2460-\u24ff\u3200-\u32ff\u2605\u2606\u25a1\u25cb]')
NO_START = set('，。？！：；、）》」』”’％…,.;:!?)]}%')
OPEN = set('（《「『“‘([{')
SUP = {'²': '2', '³': '3', '¹': '1', '⁰': '0', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8',
       '⁹': '9', '⁻': '-', '⁺': '+', 'ⁿ': 'n'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6', '₇': '7', '₈': '8',
       '₉': '9', 'ₙ': 'n', 'ₐ': 'a', 'ₑ': 'e', 'ₓ': 'x', 'ₘ': 'm'}
SS = 0.62          # size of a formatted superscript / subscript
SUP_DY = -0.37     # baseline shift (em, + is down)
SUB_DY = 0.14


def is_cjk(ch, lang):
    if CJK_RE.match(ch):
        return True
    return lang == 'zh' and ch in '“”‘’—…·'


def tokenize(text):
    """Split into line-breaking tokens: 'w' latin word, 'c' cjk char (glued with
    punctuation), 's' space, 'b' blank (underscores)."""
    toks = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if text.startswith('___', i):
            j = i
            while j < n and text[j] == '_':
                j += 1
            toks.append({'t': 'b', 'chars': text[i:j]})
            i = j
            continue
        if ch == ' ':
            toks.append({'t': 's', 'chars': ' '})
            i += 1
            continue
        if CJK_RE.match(ch) or ch in '“”‘’':
            toks.append({'t': 'c', 'chars': ch})
            i += 1
            continue
        j = i
        while (j < n and text[j] != ' ' and not CJK_RE.match(text[j])
               and not text.startswith('___', j) and text[j] not in '“”‘’'):
            j += 1
        toks.append({'t': 'w', 'chars': text[i:j]})
        i = j
    out = []
    for tk in toks:
        if out and tk['t'] not in 'sb' and out[-1]['t'] not in 'sb' and (
                tk['chars'][0] in NO_START or out[-1]['chars'][-1] in OPEN):
            out[-1] = {'t': 'x', 'chars': out[-1]['chars'] + tk['chars']}
        else:
            out.append(dict(tk))
    return out


def make_runs(chars, ctx, font_prefs=None, size=1.0):
    """Turn a token's characters into drawing runs (font, style, text, x offset)."""
    lang = ctx['lang']
    items = []
    for ch in chars:
        st, c = 'n', ch
        if ctx.get('script', 'fmt') == 'fmt':
            if ch in SUP:
                c, st = SUP[ch], 'sup'
            elif ch in SUB:
                c, st = SUB[ch], 'sub'
        items.append([c, st, False, False])       # char, style, italic, vinculum
    if ctx.get('italic'):
        nI = len(items)
        for a in range(nI):
            c, st = items[a][0], items[a][1]
            if c.isascii() and c.isalpha():
                prev_al = a > 0 and items[a - 1][0].isascii() and items[a - 1][0].isalpha() and items[a - 1][1] == st
                next_al = a + 1 < nI and items[a + 1][0].isascii() and items[a + 1][0].isalpha() and items[a + 1][1] == st
                if not prev_al and not next_al:
                    items[a][2] = True
    if ctx.get('vinculum'):
        for a in range(len(items) - 1):
            if items[a][0] == '√':
                b = a + 1
                while b < len(items) and items[b][0].isdigit():
                    items[b][3] = True
                    b += 1
    runs = []
    fp = font_prefs or ctx['fonts']
    for c, st, it, vin in items:
        if c == ' ':
            fk = fp['lat'] if FONTS[fp['lat']].has(' ') else 'dv_sans'
        elif is_cjk(c, lang):
            fk = font_for(c, [fp['zh']])
        else:
            fk = font_for(c, [fp['lat_i'] if it else fp['lat'], fp['zh']])
        key = (fk, st, vin, c == '√')
        if runs and runs[-1]['key'] == key and c != '√':
            runs[-1]['s'] += c
        else:
            runs.append({'key': key, 's': c, 'fk': fk, 'st': st, 'vin': vin})
    x = 0.0
    for r in runs:
        rel = size * (SS if r['st'] != 'n' else 1.0)
        r['rel'] = rel
        r['dy'] = size * (SUP_DY if r['st'] == 'sup' else SUB_DY if r['st'] == 'sub' else 0.0)
        r['x'] = x
        r['w'] = FONTS[r['fk']].width(r['s']) * rel
        x += r['w']
    return runs, x


def prep_tokens(text, ctx, font_prefs=None, size=1.0, kind='q'):
    toks = tokenize(text)
    for tk in toks:
        tk['kind'] = kind
        if tk['t'] == 'b':
            if ctx.get('blank_mode') == 'line':
                tk['runs'] = []
                tk['w'] = ctx.get('blank_em', 3.5) * size
            else:
                tk['runs'], tk['w'] = make_runs(tk['chars'], ctx, font_prefs, size)
        elif tk['t'] == 's':
            fp = font_prefs or ctx['fonts']
            tk['runs'] = []
            tk['w'] = FONTS[fp['lat']].width(' ') * size
        else:
            tk['runs'], tk['w'] = make_runs(tk['chars'], ctx, font_prefs, size)
    return toks


def layout_tokens(toks, em, x_first, x_rest, x_end, base0, pitch, color, ctx):
    """Greedy line breaking.  Returns dict with ops, bbox, token positions."""
    lines, cur = [], []
    x = x_first
    for tk in toks:
        w = tk['w'] * em
        if tk['t'] == 's':
            if cur:
                x += w
            continue
        if cur and x + w > x_end + 1e-6:
            lines.append(cur)
            cur = []
            x = x_rest
        cur.append((tk, x))
        x += w
    if cur:
        lines.append(cur)
    ops, tokpos = [], []
    bb = [1e9, 1e9, -1e9, -1e9]
    line_ends = []
    for li, line in enumerate(lines):
        base = base0 + li * pitch
        for tk, tx in line:
            if tk['t'] == 'b' and not tk['runs']:
                x1 = tx + tk['w'] * em
                th = 0.055 * em
                ops.append(('line', tx + 0.05 * em, base + 0.13 * em, x1 - 0.05 * em, base + 0.13 * em, th, color))
                bx = (tx + 0.05 * em, base + 0.13 * em - th, x1 - 0.05 * em, base + 0.13 * em + th)
                _bb_union(bb, bx)
            for r in tk['runs']:
                if r['s'].strip() == '':
                    continue
                rx = tx + r['x'] * em
                ry = base + r['dy'] * em
                size = r['rel'] * em
                ops.append(('text', rx, ry, r['s'], r['fk'], size, color))
                b = FONTS[r['fk']].bbox(r['s'])
                _bb_union(bb, (rx + b[0] * size, ry + b[1] * size, rx + b[2] * size, ry + b[3] * size))
                if r['vin']:
                    top = FONTS[r['fk']].bbox('√')[1] * size
                    ops.append(('line', rx - 0.03 * em, base + top + 0.03 * em, rx + r['w'] * em + 0.02 * em,
                                base + top + 0.03 * em, 0.05 * em, color))
            tokpos.append({'t': tk['t'], 'chars': tk['chars'], 'kind': tk.get('kind', 'q'), 'x0': tx,
                           'x1': tx + tk['w'] * em, 'base': base, 'line': li})
        last_tk, last_x = line[-1]
        line_ends.append(last_x + last_tk['w'] * em)
    return {'ops': ops, 'bbox': bb, 'tokpos': tokpos, 'nlines': len(lines), 'line_ends': line_ends,
            'base0': base0, 'pitch': pitch}


def _bb_union(bb, b):
    bb[0] = min(bb[0], b[0])
    bb[1] = min(bb[1], b[1])
    bb[2] = max(bb[2], b[2])
    bb[3] = max(bb[3], b[3])


def shift_block(blk, dx, dy):
    ops = []
    for op in blk['ops']:
        if op[0] == 'text':
            ops.append((op[0], op[1] + dx, op[2] + dy) + op[3:])
        elif op[0] == 'line':
            ops.append((op[0], op[1] + dx, op[2] + dy, op[3] + dx, op[4] + dy) + op[5:])
        elif op[0] in ('rect', 'fill'):
            ops.append((op[0], op[1] + dx, op[2] + dy, op[3] + dx, op[4] + dy) + op[5:])
        else:
            ops.append(op)
    blk['ops'] = ops
    b = blk['bbox']
    blk['bbox'] = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy]
    for t in blk['tokpos']:
        t['x0'] += dx
        t['x1'] += dx
        t['base'] += dy
    blk['line_ends'] = [e + dx for e in blk['line_ends']]
    blk['base0'] += dy
    return blk


# =====================================================================================
# bank and global plan
# =====================================================================================
BANK, BANK_BY_ID, GPLAN = [], {}, []

SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'biology': '生物',
           'geography': '地理', 'history': '历史', 'chinese': '语文', 'english': '英语'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry', 'biology': 'Biology',
           'geography': 'Geography', 'history': 'History', 'chinese': 'Chinese', 'english': 'English'}
ZH_NUM = '一二三四五六七八九十'


def q_lang(q):
    return 'zh' if re.search('[\u4e00-\u9fff]', q) else 'en'


def load_bank(path):
    rows = []
    with open(path, encoding='utf-8') as fh:
        for line in fh:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


SIZES = ([((1280, 960), 1)] * 44 + [((960, 1280), 1)] * 40 + [((1600, 1200), 1)] * 8 +
         [((1200, 1600), 1)] * 8 + [((2000, 1500), 1)] * 8 + [((2016, 1512), 1)] * 6 +
         [((1512, 2016), 1)] * 4 + [((1008, 756), 2)] * 2)


def global_plan(bank):
    g = np.random.default_rng([SEED, 0])
    N = N_PHOTOS
    en_q = [r for r in bank if q_lang(r['question']) == 'en']
    zh_q = [r for r in bank if q_lang(r['question']) == 'zh']
    n_en = min(30, len(en_q))
    n_zh = N - n_en
    en_pick = [en_q[j] for j in g.permutation(len(en_q))[:n_en]]
    zh_pick = [zh_q[j] for j in g.permutation(len(zh_q))[:n_zh]]
    order = g.permutation(N)
    specs = [None] * N
    for j, i in enumerate(order):
        row = en_pick[j] if j < n_en else zh_pick[j - n_en]
        specs[i] = {'i': int(i), 'fid': row['id'], 'lang': q_lang(row['question']),
                    'subject': row['subject'], 'K': set()}
    K = [s['K'] for s in specs]

    sev = [0.0] * N
    SEV = {'far': 1.0, 'screen': 0.5, 'curl': 0.5, 'persp': 0.5, 'colour_paper': 0.25, 'grey_print': 1.0,
           'thin_print': 1.0, 'glare': 0.5, 'shadow': 0.5, 'dim': 1.0, 'bright': 1.0, 'blur': 1.0}

    def alloc(name, n, ok=lambda i: True):
        # the photos stay legible: a budget on how many hard conditions meet in one photo
        c = 0
        w = SEV.get(name, 0.0)
        for i in g.permutation(N):
            if c >= n:
                break
            if ok(int(i)) and name not in K[i] and sev[i] + w <= 2.5:
                K[i].add(name)
                sev[i] += w
                c += 1

    has = lambda i, *names: any(nm in K[i] for nm in names)
    alloc('far', 26)
    alloc('close', 22, lambda i: not has(i, 'far'))
    alloc('screen', 10, lambda i: not has(i, 'far'))
    alloc('curl', 18, lambda i: not has(i, 'screen'))
    alloc('persp', 28, lambda i: not has(i, 'curl') or True)
    alloc('col3', 24, lambda i: not has(i, 'curl'))
    alloc('col2', 40, lambda i: not has(i, 'col3'))
    alloc('table', 14, lambda i: not has(i, 'curl'))
    alloc('boxes', 16, lambda i: not has(i, 'table'))
    alloc('band', 24)
    alloc('ruled', 14, lambda i: not has(i, 'table', 'boxes', 'screen'))
    alloc('grid', 12, lambda i: not has(i, 'table', 'ruled', 'screen'))
    alloc('colour_paper', 18, lambda i: not has(i, 'screen'))
    alloc('grey_print', 16, lambda i: not has(i, 'screen'))
    alloc('thin_print', 12, lambda i: not has(i, 'far', 'grey_print', 'screen'))
    alloc('glare', 18)
    alloc('shadow', 16, lambda i: not has(i, 'screen'))
    alloc('dim', 12, lambda i: not has(i, 'far', 'glare'))
    alloc('bright', 10, lambda i: not has(i, 'dim', 'thin_print', 'grey_print'))
    alloc('warm', 16)
    alloc('cool', 14, lambda i: not has(i, 'warm'))
    alloc('mark', 34)
    alloc('hand', 30)
    alloc('note', 22)
    alloc('finger', 10, lambda i: not has(i, 'close'))
    alloc('pen', 8, lambda i: not has(i, 'finger'))
    alloc('blur', 48)
    sizes = [SIZES[j] for j in g.permutation(len(SIZES))]
    styles = ['exam', 'worksheet', 'homework', 'textbook', 'workbook']
    for i, s in enumerate(specs):
        (w, h), sc = sizes[i]
        s['size'] = (w, h)
        s['rscale'] = sc
        s['rw'], s['rh'] = w * sc, h * sc
        k = s['K']
        if 'curl' in k:
            st = 'textbook'
        elif 'ruled' in k:
            st = ['homework', 'worksheet'][int(g.integers(2))]
        elif 'grid' in k:
            st = ['workbook', 'homework'][int(g.integers(2))]
        else:
            st = styles[int(g.choice(5, p=[0.32, 0.24, 0.14, 0.14, 0.16]))]
        s['style'] = st
        s['dist'] = 'far' if 'far' in k else 'close' if 'close' in k else 'normal'
        s['ncols'] = 3 if 'col3' in k else 2 if 'col2' in k else 1
        s['K'] = sorted(k)
    return specs


# =====================================================================================
# page design
# =====================================================================================
LABELS_ZH = ['{n}．', '{n}.', '{n}、', '({n})', '（{n}）', 'circ', '第{n}题', '【{n}】', '{n})', 'Q{n}']
LABELS_ZH_P = [0.16, 0.16, 0.14, 0.08, 0.1, 0.08, 0.08, 0.08, 0.06, 0.06]
LABELS_EN = ['{n}.', '{n})', '({n})', 'Q{n}.', 'Q{n}', 'Question {n}', '{n}．', '【{n}】']
LABELS_EN_P = [0.3, 0.14, 0.12, 0.1, 0.08, 0.12, 0.06, 0.08]
CIRCLED = {n: chr(0x2460 + n - 1) for n in range(1, 21)}
CIRCLED.update({n: chr(0x3251 + n - 21) for n in range(21, 36)})
CIRCLED.update({n: chr(0x32B1 + n - 36) for n in range(36, 51)})


def pick(g, seq, p=None):
    return seq[int(g.choice(len(seq), p=p))]


def design_page(spec, g):
    lang, st, K = spec['lang'], spec['style'], spec['K']
    P = {'lang': lang, 'style': st, 'subject': spec['subject'], 'ncols': spec['ncols']}
    # page size (mm)
    if st == 'textbook':
        pw, ph = pick(g, [(185, 260), (184, 260), (176, 250), (210, 285)])
    elif st == 'workbook':
        pw, ph = pick(g, [(176, 250), (210, 297), (185, 260)])
    elif st == 'exam' and P['ncols'] >= 2 and g.random() < 0.4:
        pw, ph = 420, 297
    elif lang == 'en' and g.random() < 0.35:
        pw, ph = 216, 279
    else:
        pw, ph = 210, 297
    P['pw'], P['ph'] = pw, ph
    P['ml'] = g.uniform(13, 22)
    P['mr'] = g.uniform(13, 22)
    P['mt'] = g.uniform(12, 20)
    P['mb'] = g.uniform(14, 22)
    P['seal'] = st == 'exam' and pw < 400 and g.random() < 0.5
    if P['seal']:
        P['ml'] = g.uniform(26, 32)
    if pw > 400:
        P['ml'] = P['mr'] = g.uniform(16, 22)
    P['gutter'] = g.uniform(7, 12) if pw < 400 else g.uniform(16, 24)
    P['colsep'] = P['ncols'] > 1 and g.random() < 0.45
    # fonts
    if lang == 'zh':
        zh = pick(g, ['zh_serif', 'zh_sans', 'zh_mono'], [0.58, 0.37, 0.05])
        if zh == 'zh_serif':
            lat = pick(g, ['serif', 'dv_serif', 'zh_serif'], [0.7, 0.12, 0.18])
        else:
            lat = pick(g, ['sans', 'dv_sans', 'zh_sans', 'serif'], [0.35, 0.2, 0.25, 0.2])
    else:
        lat = pick(g, ['serif', 'sans', 'dv_sans', 'dv_serif', 'narrow', 'dv_cond'],
                   [0.3, 0.22, 0.14, 0.14, 0.1, 0.1])
        zh = 'zh_sans' if lat in ('sans', 'dv_sans', 'narrow', 'dv_cond') else 'zh_serif'
    if 'thin_print' in K and lang == 'en' and g.random() < 0.6:
        lat = 'dv_light'
    lat_i = {'serif': 'serif_i', 'sans': 'sans_i', 'dv_sans': 'dv_sans_i', 'dv_serif': 'dv_serif_i',
             'zh_serif': 'serif_i', 'zh_sans': 'sans_i', 'zh_mono': 'sans_i', 'narrow': 'sans_i',
             'dv_cond': 'dv_sans_i', 'dv_light': 'dv_sans_i'}[lat]
    lat_b = {'serif': 'serif_b', 'sans': 'sans_b', 'dv_sans': 'dv_sans_b', 'dv_serif': 'dv_serif_b',
             'zh_serif': 'zh_serif_b', 'zh_sans': 'zh_sans_b', 'zh_mono': 'zh_sans_b',
             'narrow': 'narrow_b', 'dv_cond': 'dv_cond_b', 'dv_light': 'dv_sans_b'}[lat]
    zh_b = pick(g, ['zh_sans_b', 'zh_serif_b']) if zh != 'zh_mono' else 'zh_sans_b'
    P['fonts'] = {'zh': zh, 'lat': lat, 'lat_i': lat_i}
    P['fonts_b'] = {'zh': zh_b, 'lat': lat_b, 'lat_i': lat_b}
    P['fonts_h'] = {'zh': 'zh_sans_b' if g.random() < 0.6 else zh_b, 'lat': lat_b, 'lat_i': lat_b}
    # sizes
    if lang == 'zh':
        P['em'] = g.uniform(3.6, 4.7) if st not in ('textbook', 'workbook') else g.uniform(3.8, 5.2)
        P['pitch_em'] = g.uniform(1.5, 1.95)
    else:
        P['em'] = g.uniform(3.6, 4.6)
        P['pitch_em'] = g.uniform(1.4, 1.8)
    # numbering
    if lang == 'zh':
        P['label'] = pick(g, LABELS_ZH, LABELS_ZH_P)
    else:
        P['label'] = pick(g, LABELS_EN, LABELS_EN_P)
    if P['ncols'] >= 3 and P['label'] in ('Question {n}', '第{n}题'):
        P['label'] = '{n}.'
    P['label_bold'] = g.random() < 0.25
    P['hang'] = g.random() < 0.6
    P['n0'] = 1 if g.random() < 0.45 else int(g.integers(3, 22))
    if g.random() < 0.38:
        if lang == 'zh':
            sfmt = pick(g, ['（{s}分）', '[{s}分]', '({s}分)'], [0.6, 0.25, 0.15])
        else:
            sfmt = pick(g, ['({s} points)', '({s} pts)', '[{s} marks]', '（{s}分）'], [0.45, 0.25, 0.15, 0.15])
        P['score'] = {'fmt': sfmt, 'pos': pick(g, ['pre', 'post'], [0.55, 0.45])}
    else:
        P['score'] = None
    ctx = {'lang': lang, 'fonts': P['fonts'],
           'script': 'fmt' if g.random() < 0.78 else 'glyph',
           'blank_mode': 'line' if g.random() < 0.6 else 'typed',
           'blank_em': g.uniform(2.6, 5.0),
           'italic': lang == 'zh' and g.random() < 0.5,
           'vinculum': g.random() < 0.5}
    P['ctx'] = ctx
    # ink and paper
    P['ink'] = tuple(int(v) for v in [g.integers(12, 45)] * 3)
    if 'grey_print' in K:
        gv = int(g.integers(80, 135))
        P['ink'] = (gv, gv, gv + int(g.integers(-6, 6)))
        P['faded'] = g.random() < 0.5
    else:
        P['faded'] = False
    P['thin'] = 'thin_print' in K
    P['head_ink'] = P['ink'] if g.random() < 0.7 else pick(g, [(150, 30, 35), (25, 60, 140), (20, 100, 70)])
    if 'colour_paper' in K:
        P['paper'] = pick(g, [(255, 244, 196), (226, 244, 218), (218, 232, 250), (251, 226, 234),
                              (236, 230, 214), (255, 232, 200)])
    else:
        v = int(g.integers(242, 256))
        P['paper'] = (v, v, max(0, v - int(g.integers(0, 8))))
    P['mode'] = 'table' if 'table' in K else 'boxes' if 'boxes' in K else 'plain'
    P['pad_em'] = g.uniform(0.7, 1.0)
    P['box_round'] = g.random() < 0.4
    P['box_fill'] = (g.random() < 0.25 and P['mode'] == 'boxes')
    P['band'] = pick(g, [(222, 234, 250), (232, 232, 232), (252, 236, 212), (222, 244, 228), (248, 226, 230)]) \
        if 'band' in K else None
    P['ruled'] = None
    P['grid'] = None
    if 'ruled' in K:
        P['ruled'] = {'color': pick(g, [(150, 190, 228), (175, 175, 175), (190, 160, 200)]),
                      'margin_line': g.random() < 0.5}
    if 'grid' in K:
        P['grid'] = {'step': pick(g, [5.0, 5.0, 4.0, 6.0, 10.0]),
                     'color': pick(g, [(170, 205, 230), (180, 215, 180), (190, 190, 190), (235, 185, 160)])}
    P['gap_em'] = g.uniform(1.0, 2.2)
    return P


def fit_page_to_camera(spec, P, g, fnat_em, relax):
    """Choose the target character height and, for close-ups, adapt the layout so that
    the framed problem can fill much of the photo width while staying whole."""
    W, H = spec['rw'], spec['rh']
    d = spec['dist']
    if d == 'far':
        ch = g.uniform(16.8, 23.2)
    elif d == 'close':
        ch = g.uniform(62, 86)
    else:
        ch = g.uniform(27, 48)
    ch *= 0.93 ** relax
    if d == 'close':
        ch = max(ch, 60.5)
    # ranges are in final photo pixels; the camera works in render pixels
    rs = spec['rscale']
    ch *= rs
    frac = 0.78 if 'persp' not in spec['K'] else 0.68
    lo = {'far': 16.5, 'normal': 26.0, 'close': 60.5}[d] * rs
    em_max = {'far': 5.0, 'normal': 5.6, 'close': 6.4}[d]
    for _ in range(14):
        tw = P['pw'] - P['ml'] - P['mr']
        colw = (tw - (P['ncols'] - 1) * P['gutter']) / P['ncols']
        inner = colw - (2 * P['pad_em'] * P['em'] if P['mode'] != 'plain' else 0)
        width_em = min(fnat_em, inner / P['em'])
        if width_em * ch / 0.9 <= frac * W:
            break
        ch_fit = 0.9 * frac * W / width_em
        if ch_fit >= lo:
            ch = ch_fit
            break
        # the column must become narrower in units of the font size
        max_em = frac * W / (lo / 0.9)
        need = inner / max_em
        if need <= em_max:
            P['em'] = max(P['em'], need * 1.01)
            continue
        if P['em'] < em_max:
            P['em'] = em_max
            continue
        if d == 'close' and P['ncols'] < 3:
            P['ncols'] += 1
            P['gutter'] = min(P['gutter'], 9.0)
            continue
        if d != 'far' and P['ml'] + P['mr'] < 0.36 * P['pw']:
            P['ml'] += 6
            P['mr'] += 6
            continue
        ch = max(15.0 * rs, ch_fit)
        break
    P['char_h'] = ch
    return P


# =====================================================================================
# layout
# =====================================================================================
def label_text(P, n):
    f = P['label']
    if f == 'circ':
        c = CIRCLED.get(n)
        if c and FONTS[P['fonts']['zh']].has(c):
            return c
        f = '{n}．'
    return f.format(n=n)


def label_gap(P, lab):
    if lab[-1] in '．、）】题' or lab[-1] in ''.join(CIRCLED.values()):
        return 0.12
    return 0.35


def headings_for(P, g):
    if P['lang'] == 'zh':
        names = ['选择题', '填空题', '计算题', '解答题', '简答题', '判断题', '实验探究题', '综合题', '基础练习', '拓展提升']
        out = []
        for j, nm in enumerate([names[k] for k in g.permutation(len(names))[:6]]):
            tail = pick(g, ['', '（每题3分）', '（每小题4分，共24分）', '（每空2分，共20分）', '（共30分）', '（本大题共5小题）'])
            out.append('%s、%s%s' % (ZH_NUM[j], nm, tail))
        return out
    parts = ['Vocabulary', 'Reading', 'Grammar', 'Short Answers', 'Problems', 'Calculations', 'Review', 'Challenge']
    out = []
    roman = ['I', 'II', 'III', 'IV', 'V', 'VI']
    style = int(g.integers(3))
    for j, nm in enumerate([parts[k] for k in g.permutation(len(parts))[:6]]):
        tail = pick(g, ['', ' (10 points)', ' (2 points each)', ' (20 marks)'])
        if style == 0:
            out.append('Part %s %s%s' % (roman[j], nm, tail))
        elif style == 1:
            out.append('Section %s  %s%s' % ('ABCDEF'[j], nm, tail))
        else:
            out.append('%s. %s%s' % (roman[j], nm, tail))
    return out


def title_texts(P, spec, g, mixed):
    lang, subj = P['lang'], spec['subject']
    grade = BANK_BY_ID[spec['fid']].get('grade', '8')
    try:
        gn = int(grade)
    except ValueError:
        gn = 8
    if lang == 'zh':
        sz = '综合' if mixed else SUBJ_ZH.get(subj, '综合')
        gz = (['一', '二', '三', '四', '五', '六'][gn - 1] + '年级') if 1 <= gn <= 6 else \
            (['七', '八', '九'][gn - 7] + '年级') if 7 <= gn <= 9 else '高一'
        st = P['style']
        if st == 'exam':
            t = pick(g, ['%s%s上学期期中测试卷' % (gz, sz), '2023—2024学年度第二学期期末考试\n%s%s试题' % (gz, sz),
                         '%s%s单元检测卷（三）' % (gz, sz), '%s月考试卷 %s' % (gz, sz)])
            sub = pick(g, ['（考试时间：90分钟　满分：100分）', '（满分120分，考试时间100分钟）', ''])
        elif st == 'worksheet':
            t = pick(g, ['%s课堂练习' % sz, '%s%s 随堂小测' % (gz, sz), '%s 第%d课时 当堂检测' % (sz, int(g.integers(2, 15))),
                         '%s周末练习（%d）' % (sz, int(g.integers(1, 12)))])
            sub = ''
        elif st == 'homework':
            t = pick(g, ['%s家庭作业' % sz, '%s 课后作业（第%d课时）' % (sz, int(g.integers(1, 20))), '%s%s寒假作业' % (gz, sz)])
            sub = ''
        elif st == 'textbook':
            t = pick(g, ['练习 %d.%d' % (int(g.integers(1, 8)), int(g.integers(1, 5))), '习题 %d.%d' % (int(g.integers(1, 8)), int(g.integers(1, 5))),
                         '复习题', '课后练习'])
            sub = ''
        else:
            t = pick(g, ['%s同步练习册' % sz, '%s%s 基础训练' % (gz, sz), '%s 课时作业本' % sz])
            sub = ''
        return t, sub
    sz = 'Review' if mixed else SUBJ_EN.get(subj, 'Review')
    st = P['style']
    if st == 'exam':
        t = pick(g, ['Grade %d %s Midterm Test' % (gn, sz), '%s Final Examination' % sz, 'Unit %d Test  %s' % (int(g.integers(1, 9)), sz)])
        sub = pick(g, ['Time: 60 minutes    Total: 100 points', '(Answer all questions)', ''])
    elif st == 'worksheet':
        t = pick(g, ['%s Worksheet %d' % (sz, int(g.integers(1, 20))), 'Practice Sheet: %s' % sz, 'Class Exercise'])
        sub = ''
    elif st == 'homework':
        t = pick(g, ['Homework  Unit %d' % int(g.integers(1, 12)), '%s Homework' % sz, 'Weekend Homework'])
        sub = ''
    elif st == 'textbook':
        t = pick(g, ['Exercise %d.%d' % (int(g.integers(1, 8)), int(g.integers(1, 5))), 'Review Questions', 'Check Your Understanding'])
        sub = ''
    else:
        t = pick(g, ['%s Workbook' % sz, 'Skills Practice %d' % int(g.integers(1, 30)), 'Practice Book: %s' % sz])
        sub = ''
    return t, sub


def neighbour_pool(spec, g):
    fid = spec['fid']
    lang, subj = spec['lang'], spec['subject']
    same, other = [], []
    for j in g.permutation(len(BANK)):
        r = BANK[int(j)]
        if r['id'] == fid:
            continue
        ql = q_lang(r['question'])
        if lang == 'en':
            if ql != 'en':
                continue
        else:
            if ql != 'zh' and not (subj == 'english' and r['subject'] == 'english'):
                continue
        (same if r['subject'] == subj else other).append(r)
    if g.random() < 0.3:
        pool = same + other
        mixed = len(same) < 6
    else:
        # mostly same subject, a few others mixed in
        pool = same[:] + other
        mixed = False
    if g.random() < 0.35 or len(same) < 5:
        allr = same + other
        pool = [allr[int(j)] for j in g.permutation(len(allr))]
        mixed = True
    return pool, mixed


def make_slots(P, g, n=60):
    slots = []
    heads = P['headings']
    hi = 0
    next_head = 0
    for j in range(n):
        s = {'heading': None, 'space': 0.0, 'score': int(pick(g, [2, 3, 4, 5, 6, 8, 10]))}
        if heads and j == next_head and hi < len(heads):
            s['heading'] = heads[hi]
            hi += 1
            next_head = j + int(g.integers(3, 8))
        if g.random() < 0.28:
            s['space'] = float(g.uniform(1.0, 4.0))
        slots.append(s)
    return slots


def prob_tokens(P, row, n, slot):
    ctx = P['ctx']
    lab = label_text(P, n)
    lab_fonts = P['fonts_b'] if P['label_bold'] else P['fonts']
    ltoks = prep_tokens(lab, dict(ctx, script='glyph', italic=False, vinculum=False), lab_fonts, kind='label')
    qt = prep_tokens(row['question'], dict(ctx, italic=ctx['italic'] and row['subject'] == 'math'), kind='q')
    if P['score']:
        sc = P['score']['fmt'].format(s=slot['score'])
        stoks = [merge_tokens(prep_tokens(sc, dict(ctx, italic=False), kind='score'), 'score')]
        if P['score']['pos'] == 'pre':
            if P['lang'] == 'en' or sc[0] in '([':
                stoks = stoks + prep_tokens(' ', ctx, kind='score')
            qt = stoks + qt
        else:
            qt = qt + prep_tokens(' ', ctx, kind='score') + stoks
    return lab, ltoks, qt


def merge_tokens(toks, kind):
    """Glue several tokens into one unbreakable token (spaces become advances)."""
    runs, x = [], 0.0
    for tk in toks:
        for r in tk['runs']:
            r2 = dict(r)
            r2['x'] = r['x'] + x
            runs.append(r2)
        x += tk['w']
    return {'t': 'x', 'chars': ''.join(t['chars'] for t in toks), 'runs': runs, 'w': x, 'kind': kind}


def layout_problem(P, row, n, slot, x0, width):
    em = P['em']
    pitch = P['pitch_em'] * em
    lab, ltoks, qt = prob_tokens(P, row, n, slot)
    lab_w = sum(t['w'] for t in ltoks) * em
    gap = label_gap(P, lab) * em
    lblk = layout_tokens(ltoks, em, x0, x0, x0 + 1e6, 0.0, pitch, P['ink'], P['ctx'])
    x1 = x0 + lab_w + gap
    qblk = layout_tokens(qt, em, x1, x1 if P['hang'] else x0, x0 + width, 0.0, pitch, P['ink'], P['ctx'])
    blk = {'ops': lblk['ops'] + qblk['ops'], 'bbox': list(qblk['bbox']), 'tokpos': lblk['tokpos'] + qblk['tokpos'],
           'nlines': qblk['nlines'], 'line_ends': qblk['line_ends'], 'base0': 0.0, 'pitch': pitch}
    _bb_union(blk['bbox'], lblk['bbox'])
    blk['label'] = lab
    return blk


def layout_heading(P, text, x0, width, size=1.1, fonts=None, align='left'):
    em = P['em'] * size
    toks = prep_tokens(text, dict(P['ctx'], italic=False, script='glyph'), fonts or P['fonts_h'], kind='head')
    tot = sum(t['w'] for t in toks) * em
    if align == 'center' and tot < width:
        xs = x0 + (width - tot) / 2
    else:
        xs = x0
    blk = layout_tokens(toks, em, xs, x0, x0 + width, 0.0, em * 1.45, P['head_ink'], P['ctx'])
    blk['em'] = em
    return blk


def text_line_ops(P, text, x, base, size_mm, fonts, color):
    toks = prep_tokens(text, dict(P['ctx'], italic=False, script='glyph'), fonts, kind='head')
    blk = layout_tokens(toks, size_mm, x, x, x + 1e6, base, size_mm * 1.4, color, P['ctx'])
    return blk


def build_page(spec, P, rows, slots, g_fixed):
    """Lay out the header and the body.  Deterministic given its inputs (g_fixed is a
    dict of pre-drawn numbers).  Returns the layout dict."""
    pw, ph = P['pw'], P['ph']
    em = P['em']
    ops, obst = [], []
    x_l, x_r = P['ml'], pw - P['mr']
    tw = x_r - x_l
    y = P['mt']
    lang = P['lang']
    # ---- running header (textbook / workbook)
    if P['style'] in ('textbook', 'workbook') and g_fixed['runhead']:
        hs = em * 0.78
        left = g_fixed['runhead_text']
        blk = text_line_ops(P, left, x_l, y + hs, hs, P['fonts'], (90, 90, 90))
        ops += blk['ops']
        obst.append(blk['bbox'])
        pg = str(g_fixed['page_no'])
        w = FONTS[P['fonts']['lat']].width(pg) * hs
        blk2 = text_line_ops(P, pg, x_r - w, y + hs, hs, P['fonts'], (90, 90, 90))
        ops += blk2['ops']
        ops.append(('line', x_l, y + hs * 1.6, x_r, y + hs * 1.6, 0.25, (120, 120, 120)))
        y += hs * 2.6
    # ---- title
    title, sub = g_fixed['title'], g_fixed['subtitle']
    for tl in title.split('\n'):
        tsize = g_fixed['title_size'] if tl == title.split('\n')[-1] else g_fixed['title_size'] * 0.8
        blk = layout_heading(P, tl, x_l, tw, tsize, P['fonts_b'],
                             'center' if P['style'] != 'textbook' else g_fixed['title_align'])
        shift_block(blk, 0, y + blk['em'] * 0.95)
        if P['band'] is not None and P['style'] in ('textbook', 'workbook'):
            b = blk['bbox']
            ops.append(('fill', x_l - 1.5, b[1] - 1.6, x_r + 0.5 if P['style'] == 'workbook' else b[2] + 3.0, b[3] + 1.6, P['band']))
        ops += blk['ops']
        obst.append(blk['bbox'])
        y = blk['bbox'][3] + blk['em'] * 0.45
    if sub:
        blk = layout_heading(P, sub, x_l, tw, 0.85, P['fonts'], 'center')
        shift_block(blk, 0, y + blk['em'] * 1.0)
        ops += blk['ops']
        obst.append(blk['bbox'])
        y = blk['bbox'][3] + em * 0.4
    # ---- score table (exam)
    if P['style'] == 'exam' and g_fixed['scoretable']:
        ncell = 6
        cw, chh = em * 3.0, em * 1.9
        tx0 = x_l + (tw - cw * ncell) / 2
        ty0 = y + em * 0.5
        hdr = ['题号', '一', '二', '三', '四', '总分'] if lang == 'zh' else ['Part', 'I', 'II', 'III', 'IV', 'Total']
        r2 = ['得分'] if lang == 'zh' else ['Score']
        for c in range(ncell + 1):
            ops.append(('line', tx0 + c * cw, ty0, tx0 + c * cw, ty0 + 2 * chh, 0.22, P['ink']))
        for rr in range(3):
            ops.append(('line', tx0, ty0 + rr * chh, tx0 + ncell * cw, ty0 + rr * chh, 0.22, P['ink']))
        for c, t in enumerate(hdr):
            w = sum(tk['w'] for tk in prep_tokens(t, P['ctx'], P['fonts'])) * em * 0.85
            blk = text_line_ops(P, t, tx0 + c * cw + (cw - w) / 2, ty0 + chh * 0.68, em * 0.85, P['fonts'], P['ink'])
            ops += blk['ops']
        blk = text_line_ops(P, r2[0], tx0 + cw * 0.12, ty0 + chh * 1.68, em * 0.85, P['fonts'], P['ink'])
        ops += blk['ops']
        obst.append([tx0, ty0, tx0 + ncell * cw, ty0 + 2 * chh])
        y = ty0 + 2 * chh + em * 0.4
    # ---- name / class / date line
    if g_fixed['nameline']:
        if lang == 'zh':
            fields = g_fixed['name_fields_zh']
        else:
            fields = g_fixed['name_fields_en']
        size = em * 0.95
        base = y + size * 1.5
        x = x_l + (tw * 0.04 if P['style'] != 'exam' else tw * 0.12)
        for f in fields:
            blk = text_line_ops(P, f, x, base, size, P['fonts'], P['ink'])
            ops += blk['ops']
            obst.append(blk['bbox'])
            x = blk['bbox'][2] + size * 0.2
            ln = size * g_fixed['name_blank']
            ops.append(('line', x, base + size * 0.15, x + ln, base + size * 0.15, 0.2, P['ink']))
            x += ln + size * 1.2
        y = base + size * 0.9
    if P['style'] == 'exam' and g_fixed['rule_under_header']:
        ops.append(('line', x_l, y + em * 0.3, x_r, y + em * 0.3, 0.35, P['ink']))
        y += em * 0.6
    y += em * 0.6
    # ---- sealing line
    if P['seal']:
        xs = P['ml'] * 0.45
        seal = '密封线内不要答题' if lang == 'zh' else 'DO NOT WRITE HERE'
        sz = em * 0.8
        cy0 = ph * 0.35
        cy = cy0
        for ch in seal:
            if ch == ' ':
                cy += sz * 0.5
                continue
            fk = font_for(ch, [P['fonts']['zh'] if is_cjk(ch, 'zh') else P['fonts']['lat']])
            w = FONTS[fk].width(ch) * sz
            ops.append(('text', xs - w / 2, cy, ch, fk, sz, (110, 110, 110)))
            cy += sz * 1.5
        gap0, gap1 = cy0 - sz * 1.6, cy - sz * 0.6
        yy = P['mt'] + 10
        while yy < ph - P['mb'] - 5:
            if not (gap0 < yy + 2.2 and yy < gap1):
                ops.append(('line', xs, yy, xs, yy + 2.2, 0.18, (110, 110, 110)))
            yy += 3.6
    # ---- footer
    fsize = em * 0.8
    if lang == 'zh':
        foot = g_fixed['footer_zh']
    else:
        foot = g_fixed['footer_en']
    toks = prep_tokens(foot, P['ctx'], P['fonts'])
    fw = sum(t['w'] for t in toks) * fsize
    fb = layout_tokens(toks, fsize, x_l + (tw - fw) / 2, x_l, x_r + 1e6, ph - P['mb'] * 0.55, fsize, (70, 70, 70), P['ctx'])
    ops += fb['ops']
    y_bottom = ph - P['mb']
    body_top = y
    # ---- paper rules
    pitch = P['pitch_em'] * em
    if P['ruled'] is not None:
        P['rule_y0'] = body_top + em * 1.0
    # ---- body
    probs = []
    ncols = P['ncols']
    colw = (tw - (ncols - 1) * P['gutter']) / ncols
    cols_x = [x_l + c * (colw + P['gutter']) for c in range(ncols)]
    n = P['n0']
    mode = P['mode']
    pad = P['pad_em'] * em
    gap = P['gap_em'] * em

    def snap(base):
        if P['ruled'] is None:
            return base
        k = math.ceil((base - P['rule_y0']) / pitch - 1e-6)
        return P['rule_y0'] + k * pitch

    if mode in ('plain', 'boxes'):
        c = 0
        yc = body_top
        ri = 0
        body_ops = []
        for si, slot in enumerate(slots):
            if ri >= len(rows):
                break
            row = rows[ri]
            items = []
            hb = None
            if slot['heading']:
                hb = layout_heading(P, slot['heading'], cols_x[c], colw, g_fixed['head_size'], P['fonts_h'])
            pb = layout_problem(P, row, n, slot, cols_x[c] + (pad if mode == 'boxes' else 0),
                                colw - (2 * pad if mode == 'boxes' else 0))
            # height of this element
            h_head = (hb['nlines'] - 1) * hb['em'] * 1.45 + hb['em'] * 1.25 + em * 0.9 if hb else 0
            h_prob = (pb['nlines'] - 1) * pitch + em * 1.25 + (2 * pad if mode == 'boxes' else 0) + slot['space'] * pitch
            if yc + h_head + h_prob > y_bottom:
                c += 1
                yc = body_top
                if c >= ncols:
                    break
                # re-layout in the new column
                if slot['heading']:
                    hb = layout_heading(P, slot['heading'], cols_x[c], colw, g_fixed['head_size'], P['fonts_h'])
                pb = layout_problem(P, row, n, slot, cols_x[c] + (pad if mode == 'boxes' else 0),
                                    colw - (2 * pad if mode == 'boxes' else 0))
                if yc + h_head + h_prob > y_bottom:
                    break
            if hb:
                base = snap(yc + hb['em'] * 0.95)
                shift_block(hb, 0, base)
                if P['band'] is not None:
                    b = hb['bbox']
                    body_ops.append(('fill', cols_x[c] - 1.0, b[1] - em * 0.35, cols_x[c] + colw, b[3] + em * 0.35, P['band']))
                body_ops += hb['ops']
                obst.append(hb['bbox'])
                yc = hb['bbox'][3] + em * 0.75
            top = yc
            base = snap(yc + (pad if mode == 'boxes' else 0) + em * 0.95)
            shift_block(pb, 0, base)
            bottom = base + (pb['nlines'] - 1) * pitch + em * 0.3 + slot['space'] * pitch
            cont = None
            if mode == 'boxes':
                bottom += pad - em * 0.1
                cont = [cols_x[c], top, cols_x[c] + colw, bottom]
                if P['box_fill']:
                    body_ops.append(('fill', cont[0], cont[1], cont[2], cont[3], (246, 246, 240)))
                body_ops.append(('rect', cont[0], cont[1], cont[2], cont[3], 0.28, P['ink'], P['box_round']))
            body_ops += pb['ops']
            probs.append({'id': row['id'], 'q': row['question'], 'n': n, 'label': pb['label'],
                          'bbox': pb['bbox'], 'tokpos': pb['tokpos'], 'line_ends': pb['line_ends'],
                          'nlines': pb['nlines'], 'col': c, 'slot': si, 'container': cont,
                          'col_x': (cols_x[c], cols_x[c] + colw), 'pitch': pitch, 'base0': pb['base0']})
            n += 1
            ri += 1
            yc = bottom + (gap if mode == 'plain' else max(gap * 0.8, em * 1.0))
        ops += body_ops
        if P['colsep'] and ncols > 1:
            for c in range(1, ncols):
                xsep = cols_x[c] - P['gutter'] / 2
                ops.append(('line', xsep, body_top, xsep, y_bottom, 0.2, (120, 120, 120)))
    else:  # table
        yc = body_top
        ri = 0
        body_ops = []
        row_i = 0
        si = 0
        lw = 0.25
        ops.append(('line', x_l, yc, x_r, yc, lw * 1.6, P['ink']))
        while ri < len(rows) and si < len(slots):
            slot = slots[si]
            if slot['heading'] and ri > 0 or (slot['heading'] and ri == 0):
                hb = layout_heading(P, slot['heading'], x_l + pad, tw - 2 * pad, g_fixed['head_size'], P['fonts_h'])
                hh = (hb['nlines'] - 1) * hb['em'] * 1.45 + hb['em'] * 1.2 + 2 * pad * 0.6
                if yc + hh > y_bottom:
                    break
                shift_block(hb, 0, yc + pad * 0.6 + hb['em'] * 0.95)
                if P['band'] is not None:
                    body_ops.append(('fill', x_l, yc, x_r, yc + hh, P['band']))
                body_ops += hb['ops']
                obst.append(hb['bbox'])
                body_ops.append(('line', x_l, yc + hh, x_r, yc + hh, lw, P['ink']))
                body_ops.append(('line', x_l, yc, x_l, yc + hh, lw * 1.6, P['ink']))
                body_ops.append(('line', x_r, yc, x_r, yc + hh, lw * 1.6, P['ink']))
                yc += hh
            cells = []
            for c in range(ncols):
                if ri + c >= len(rows) or si + c >= len(slots):
                    break
                pb = layout_problem(P, rows[ri + c], n + c, slots[si + c], cols_x[c] + pad, colw - 2 * pad)
                cells.append(pb)
            if not cells:
                break
            hmax = max((pb['nlines'] - 1) * pitch + em * 1.25 + slots[si + j]['space'] * pitch * 0.6
                       for j, pb in enumerate(cells)) + 2 * pad
            if yc + hmax > y_bottom:
                break
            for c, pb in enumerate(cells):
                shift_block(pb, 0, yc + pad + em * 0.95)
                body_ops += pb['ops']
                cx0 = cols_x[c] - (P['gutter'] / 2 if c > 0 else 0)
                cx1 = cols_x[c] + colw + (P['gutter'] / 2 if c < ncols - 1 else 0)
                probs.append({'id': rows[ri + c]['id'], 'q': rows[ri + c]['question'], 'n': n + c, 'label': pb['label'],
                              'bbox': pb['bbox'], 'tokpos': pb['tokpos'], 'line_ends': pb['line_ends'],
                              'nlines': pb['nlines'], 'col': c, 'slot': si + c, 'container': [cx0, yc, cx1, yc + hmax],
                              'col_x': (cols_x[c], cols_x[c] + colw), 'pitch': pitch, 'base0': pb['base0']})
            for c in range(ncols + 1):
                xx = x_l if c == 0 else x_r if c == ncols else cols_x[c] - P['gutter'] / 2
                body_ops.append(('line', xx, yc, xx, yc + hmax, lw * (1.6 if c in (0, ncols) else 1.0), P['ink']))
            body_ops.append(('line', x_l, yc + hmax, x_r, yc + hmax, lw, P['ink']))
            n += len(cells)
            ri += len(cells)
            si += len(cells)
            yc += hmax
            row_i += 1
        ops += body_ops
        if probs:
            ops.append(('line', x_l, yc, x_r, yc, lw * 1.6, P['ink']))
    P['body_top'] = body_top
    P['y_bottom'] = y_bottom
    return {'ops': ops, 'probs': probs, 'obst': obst, 'cols_x': cols_x, 'colw': colw}


def fixed_page_choices(spec, P, g, mixed):
    lang = P['lang']
    t, s = title_texts(P, spec, g, mixed)
    subj = SUBJ_ZH.get(spec['subject'], '') if lang == 'zh' else SUBJ_EN.get(spec['subject'], '')
    d = {
        'title': t, 'subtitle': s,
        'title_size': float(g.uniform(1.35, 1.85)),
        'title_align': pick(g, ['left', 'center']),
        'head_size': float(g.uniform(1.0, 1.15)),
        'runhead': g.random() < 0.8,
        'runhead_text': (pick(g, ['第三章　一元一次方程', '第二单元　物质构成的奥秘', '第五章　透镜及其应用', '第四单元　生物圈中的人',
                                  '第一章　地球和地图', '第六单元　古诗词诵读'])
                         if lang == 'zh' else pick(g, ['Chapter 3  Linear Equations', 'Unit 5  Forces and Motion',
                                                       'Chapter 2  Cells', 'Module 4  Grammar in Use'])),
        'page_no': int(g.integers(12, 180)),
        'scoretable': g.random() < 0.45,
        'nameline': P['style'] != 'textbook' and g.random() < 0.85,
        'name_fields_zh': pick(g, [['班级：', '姓名：', '学号：'], ['姓名：', '班级：', '得分：'], ['学校：', '班级：', '姓名：', '考号：'],
                                   ['日期：', '姓名：']]),
        'name_fields_en': pick(g, [['Name:', 'Class:', 'Date:'], ['Name:', 'Score:'], ['Name:', 'Class:', 'No.:']]),
        'name_blank': float(g.uniform(4.5, 8.0)),
        'rule_under_header': g.random() < 0.4,
        'footer_zh': pick(g, ['第 %d 页（共 4 页）' % int(g.integers(1, 4)), '— %d —' % int(g.integers(2, 99)),
                              '%s试卷 第%d页' % (subj, int(g.integers(1, 5)))]),
        'footer_en': pick(g, ['Page %d of 4' % int(g.integers(1, 4)), '- %d -' % int(g.integers(2, 99))]),
    }
    if P['style'] in ('textbook',) or g.random() < 0.15:
        d['scoretable'] = False
    return d


def natural_width_em(P, row):
    lab, ltoks, qt = prob_tokens(P, row, 9, {'score': 5})
    return sum(t['w'] for t in ltoks) + label_gap(P, lab) + sum(t['w'] for t in qt)


def build_layout(spec, P, g):
    framed = BANK_BY_ID[spec['fid']]
    pool, mixed = neighbour_pool(spec, g)
    fixed = fixed_page_choices(spec, P, g, mixed)
    P['headings'] = headings_for(P, g) if (P['style'] in ('exam', 'worksheet', 'workbook') or g.random() < 0.5) else []
    slots = make_slots(P, g)
    L1 = build_page(spec, P, pool, slots, fixed)
    ncap = len(L1['probs'])
    if ncap < 2:
        return None
    # choose the framed position
    cands = list(range(ncap))
    if ncap >= 3:
        cands = list(range(1, ncap - 1)) if g.random() < 0.85 else cands
    if 'curl' in spec['K']:
        side_col = 0 if P['curl']['side'] == 'left' else P['ncols'] - 1
        cc = [j for j in cands if L1['probs'][j]['col'] == side_col]
        if cc:
            cands = cc
    p = cands[int(g.integers(len(cands)))]
    for attempt in range(6):
        rows = pool[:p] + [framed] + pool[p:]
        L = build_page(spec, P, rows, slots, fixed)
        fi = [j for j, pr in enumerate(L['probs']) if pr['id'] == framed['id']]
        if fi and len(L['probs']) >= 2:
            L['fi'] = fi[0]
            L['mixed'] = mixed
            return L
        p = max(0, p - 2)
    return None


# =====================================================================================
# student's frame and pen marks (page coordinates, mm)
# =====================================================================================
def clearance(L, fr_bbox, fr_idx, P):
    """Free space around the framed box: up, down, left, right (mm)."""
    x0, y0, x1, y1 = fr_bbox
    up = down = left = right = 40.0
    boxes = [pr['bbox'] for j, pr in enumerate(L['probs']) if j != fr_idx] + list(L['obst'])
    for pr_j, pr in enumerate(L['probs']):
        if pr_j != fr_idx and pr['container'] is not None:
            boxes.append(pr['container'])
    for b in boxes:
        hov = b[0] < x1 and b[2] > x0
        vov = b[1] < y1 and b[3] > y0
        if hov:
            if b[3] <= y0:
                up = min(up, y0 - b[3])
            elif b[1] >= y1:
                down = min(down, b[1] - y1)
        if vov:
            if b[2] <= x0:
                left = min(left, x0 - b[2])
            elif b[0] >= x1:
                right = min(right, b[0] - x1)
    cont = L['probs'][fr_idx]['container']
    if cont is not None:
        up = min(up, y0 - cont[1])
        down = min(down, cont[3] - y1)
        left = min(left, x0 - cont[0])
        right = min(right, cont[2] - x1)
    else:
        pr = L['probs'][fr_idx]
        cx0, cx1 = pr['col_x']
        gut = P['gutter']
        left = min(left, x0 - (cx0 - gut / 2 + 0.5 if pr['col'] > 0 else 2.0))
        right = min(right, (cx1 + gut / 2 - 0.5 if pr['col'] < P['ncols'] - 1 else P['pw'] - 2.0) - x1)
    return up, down, left, right


def plan_frame(P, L, g):
    fi = L['fi']
    pr = L['probs'][fi]
    em = P['em']
    bb = pr['bbox']
    up, down, left, right = clearance(L, bb, fi, P)
    amp = em * g.uniform(0.03, 0.08)
    stroke = g.uniform(0.35, 0.7)
    inner_min = 0.25 * em + amp

    def fit(avail, want):
        hi = avail - amp - stroke / 2 - 0.22 * em
        return max(min(want, hi), min(inner_min, hi)), hi >= inner_min

    mt, ok1 = fit(up, em * g.uniform(0.3, 0.55))
    mb, ok2 = fit(down, em * g.uniform(0.34, 0.6))
    ml, ok3 = fit(left, em * g.uniform(0.35, 0.8))
    mr, ok4 = fit(right, em * g.uniform(0.35, 1.2))
    if not (ok1 and ok2 and ok3 and ok4):
        return None
    shape = 'rect'
    if g.random() < 0.35:
        # superellipse needs extra room
        p = g.uniform(3.0, 5.0)
        s = 2 ** (1 / p)
        e = 0.18 * em
        a = (bb[2] - bb[0]) / 2 + e
        b = (bb[3] - bb[1]) / 2 + e
        need_x, need_y = a * s - (bb[2] - bb[0]) / 2, b * s - (bb[3] - bb[1]) / 2
        if (need_y + amp + stroke / 2 + 0.12 * em < min(up, down) and
                need_x + amp + stroke / 2 + 0.12 * em < min(left, right)):
            shape = 'super'
    cx, cy = (bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2
    pts = []
    nseg = 240
    ph = g.uniform(0, 2 * math.pi, 4)
    fq = [int(g.integers(2, 5)), int(g.integers(5, 9)), int(g.integers(9, 15))]
    start = g.uniform(0, 1)
    over = g.uniform(0.03, 0.12)
    if shape == 'rect':
        X0, Y0, X1, Y1 = bb[0] - ml, bb[1] - mt, bb[2] + mr, bb[3] + mb
        rr = min(em * g.uniform(0.15, 0.7), (Y1 - Y0) / 2.2, (X1 - X0) / 2.2)
        per = _rrect_perimeter(X0, Y0, X1, Y1, rr)
    else:
        X0, Y0, X1, Y1 = cx - a * s, cy - b * s, cx + a * s, cy + b * s
    tilt_k = g.uniform(-0.015, 0.015)
    for j in range(int(nseg * (1 + over)) + 1):
        t = start + j / nseg
        tt = t % 1.0
        if shape == 'rect':
            x, y, nx, ny = _rrect_point(X0, Y0, X1, Y1, rr, tt * per)
        else:
            ang = 2 * math.pi * tt
            c_, s_ = math.cos(ang), math.sin(ang)
            x = cx + a * s * math.copysign(abs(c_) ** (2 / p), c_)
            y = cy + b * s * math.copysign(abs(s_) ** (2 / p), s_)
            nx, ny = (x - cx) / max(a, 1e-3), (y - cy) / max(b, 1e-3)
            nn = math.hypot(nx, ny) or 1
            nx, ny = nx / nn, ny / nn
        jit = amp * (0.55 * math.sin(2 * math.pi * fq[0] * t + ph[0]) + 0.3 * math.sin(2 * math.pi * fq[1] * t + ph[1])
                     + 0.15 * math.sin(2 * math.pi * fq[2] * t + ph[2]))
        if t - start > 1.0:      # the closing overshoot drifts outwards a little
            jit += amp * 1.2 * (t - start - 1.0) / over
        pts.append((x + nx * jit + tilt_k * (y - cy), y + ny * jit))
    pts = np.array(pts)
    fb = [float(pts[:, 0].min() - stroke), float(pts[:, 1].min() - stroke),
          float(pts[:, 0].max() + stroke), float(pts[:, 1].max() + stroke)]
    # verify: text inside, no other text crossed
    if fb[0] > bb[0] - 0.15 * em or fb[1] > bb[1] - 0.12 * em or fb[2] < bb[2] + 0.15 * em or fb[3] < bb[3] + 0.12 * em:
        return None
    inner = pts
    if (inner[:, 0].min() > bb[0] - 0.12 * em) or (inner[:, 1].min() > bb[1] - 0.1 * em):
        return None
    col = pick(g, [(205, 28, 38), (225, 40, 40), (30, 60, 175), (25, 25, 30), (95, 95, 100)],
               [0.42, 0.15, 0.2, 0.1, 0.13])
    return {'pts': pts, 'stroke': stroke, 'color': col, 'pencil': col == (95, 95, 100), 'bbox': fb,
            'shape': shape, 'margins': (ml, mt, mr, mb)}


def _rrect_perimeter(x0, y0, x1, y1, r):
    return 2 * (x1 - x0 - 2 * r) + 2 * (y1 - y0 - 2 * r) + 2 * math.pi * r


def _rrect_point(x0, y0, x1, y1, r, d):
    w, h = x1 - x0 - 2 * r, y1 - y0 - 2 * r
    segs = [('l', w, (x0 + r, y0), (1, 0)), ('a', math.pi * r / 2, (x1 - r, y0 + r), -math.pi / 2),
            ('l', h, (x1, y0 + r), (0, 1)), ('a', math.pi * r / 2, (x1 - r, y1 - r), 0.0),
            ('l', w, (x1 - r, y1), (-1, 0)), ('a', math.pi * r / 2, (x0 + r, y1 - r), math.pi / 2),
            ('l', h, (x0, y1 - r), (0, -1)), ('a', math.pi * r / 2, (x0 + r, y0 + r), math.pi)]
    for idx, (kind, ln, p0, dr) in enumerate(segs):
        if d <= ln or idx == len(segs) - 1:
            d = min(d, ln)
            if kind == 'l':
                return p0[0] + dr[0] * d, p0[1] + dr[1] * d, dr[1], -dr[0]
            ang = dr + (d / r if r > 0 else 0)
            return p0[0] + r * math.cos(ang), p0[1] + r * math.sin(ang), math.cos(ang), math.sin(ang)
        d -= ln
    return x0 + r, y0, 0, -1


def short_answer(row, g):
    a = row.get('answer', '')
    lang = q_lang(row['question'])
    s = ''
    if lang == 'en':
        qs = re.findall(r'"([A-Za-z ]{1,12})"', a)
        qs = [w for w in qs if w not in row['question']]
        if qs:
            s = qs[0]
        else:
            m = re.findall(r'\d+(?:\.\d+)?(?:/\d+)?\s?(?:°|m/s|J|N|m|s|%)?', a)
            if m:
                s = m[-1].strip()
    elif row['subject'] == 'english':
        ws = [w for w in re.findall(r'[A-Za-z][A-Za-z ]{0,14}[A-Za-z]', a) if w not in row['question']]
        s = ws[0] if ws else ''
    else:
        m = re.findall(r'答：([^。；;]+)', a)
        if m:
            s = m[-1]
        else:
            m = re.findall(r'\$([^$]+)\$', a)
            if m:
                s = m[-1]
            else:
                s = re.split(r'[，。,；;（(]', a)[0]
    s = re.sub(r'\\[a-zA-Z]+', '', s)
    for c in '{}^_\\$':
        s = s.replace(c, '')
    s = s.strip()
    if len(s) > 9 and '=' in s:
        s = s.split('=')[-1].strip()
    q = row['question']
    m = re.search(r'\(([^()]*/[^()]*)\)', q)
    if m:
        opts = [o.strip() for o in m.group(1).split('/') if o.strip()]
        s = opts[int(g.integers(len(opts)))]
    else:
        m = re.findall(r'"([^"]+)" or "([^"]+)"', q)
        if m:
            s = m[0][int(g.integers(2))]
    if len(s) > 9 or not s:
        s = pick(g, ['x=5', '40', '3', '1949年', '√', '略', '12', '26厘米', '0.5'] if lang == 'zh' else
                 ['went', 'better', '3', 'x>4', '1/4', 'N', 'cheap'])
    return s.replace(' ', '') if lang == 'zh' else s


def rect_overlap(a, b, pad=0.0):
    return a[0] - pad < b[2] and a[2] + pad > b[0] and a[1] - pad < b[3] and a[3] + pad > b[1]


def plan_marks(spec, P, L, fr, g):
    K = spec['K']
    em = P['em']
    marks = []
    fi = L['fi']
    frb = fr['bbox']
    probs = L['probs']
    pen_col = pick(g, [(30, 55, 165), (25, 25, 30), (100, 100, 105)], [0.55, 0.25, 0.2])
    busy = [pr['bbox'] for pr in probs] + list(L['obst'])

    def neigh_order():
        fr_c = probs[fi]
        ds = []
        for j, pr in enumerate(probs):
            if j == fi:
                continue
            d = math.hypot((pr['bbox'][0] + pr['bbox'][2]) / 2 - (fr_c['bbox'][0] + fr_c['bbox'][2]) / 2,
                           (pr['bbox'][1] + pr['bbox'][3]) / 2 - (fr_c['bbox'][1] + fr_c['bbox'][3]) / 2)
            ds.append((d, j))
        ds.sort()
        return [j for _, j in ds[:5]]

    near = neigh_order()
    if 'mark' in K:
        n_m = int(g.integers(1, 4))
        for _ in range(n_m):
            on_framed = g.random() < 0.5
            j = fi if on_framed else near[int(g.integers(len(near)))] if near else fi
            pr = probs[j]
            qt = [t for t in pr['tokpos'] if t['kind'] == 'q' and t['t'] != 'b']
            if not qt:
                continue
            a = int(g.integers(len(qt)))
            line = qt[a]['line']
            same = [t for t in qt if t['line'] == line]
            ia = same.index(qt[a])
            span = same[ia:ia + int(g.integers(1, 4)) if qt[a]['t'] == 'w' else ia + int(g.integers(2, 6))]
            x0, x1 = span[0]['x0'], span[-1]['x1']
            base = span[0]['base']
            if x1 - x0 < 0.8 * em:
                x1 = x0 + 0.8 * em
            kind = 'circle' if g.random() < 0.4 else 'underline'
            if kind == 'circle':
                rx, ry = (x1 - x0) / 2 + 0.3 * em, 0.62 * em
                cx, cy = (x0 + x1) / 2, base - 0.37 * em
                box = [cx - rx, cy - ry, cx + rx, cy + ry]
                mk = {'k': 'ellipse', 'c': (cx, cy), 'r': (rx, ry), 'ang': float(g.uniform(-4, 4)),
                      'w': g.uniform(0.3, 0.5), 'color': pen_col if g.random() < 0.6 else fr['color'], 'box': box}
            else:
                yy = base + 0.24 * em
                npt = 12
                xs = np.linspace(x0 - 0.1 * em, x1 + 0.1 * em, npt)
                wav = g.random() < 0.35
                ys = yy + (0.07 * em * np.sin(np.linspace(0, 6 * math.pi, npt)) if wav else g.normal(0, 0.02 * em, npt))
                box = [xs[0], yy - 0.1 * em, xs[-1], yy + 0.1 * em]
                mk = {'k': 'poly', 'pts': np.stack([xs, ys], 1), 'w': g.uniform(0.28, 0.45),
                      'color': pen_col if g.random() < 0.6 else fr['color'], 'box': box}
            if j == fi:
                if not (box[0] > frb[0] + 0.1 * em and box[2] < frb[2] - 0.1 * em and box[1] > frb[1] + 0.1 * em
                        and box[3] < frb[3] - 0.1 * em):
                    continue
            else:
                if rect_overlap(box, frb, 0.25 * em):
                    continue
            mk['what'] = 'underline' if kind == 'underline' else 'circle'
            mk['on'] = 'framed' if j == fi else probs[j]['id']
            marks.append(mk)
    if 'hand' in K:
        tries = 0
        placed = 0
        want = int(g.integers(1, 3))
        order = near[:]
        # prefer neighbours with a blank
        order.sort(key=lambda j: 0 if any(t['t'] == 'b' for t in probs[j]['tokpos']) else 1)
        for j in order:
            if placed >= want or tries > 6:
                break
            tries += 1
            pr = probs[j]
            txt = short_answer(BANK_BY_ID[pr['id']], g)
            hs = em * g.uniform(1.0, 1.3)
            wtxt = hand_width_est(txt) * hs
            blanks = [t for t in pr['tokpos'] if t['t'] == 'b']
            if blanks:
                b = blanks[0]
                x, base = b['x0'] + 0.15 * em, b['base'] - 0.05 * em
                bw = b['x1'] - b['x0']
                hs = float(np.clip(max(bw * 1.2, 1.6 * em) / max(hand_width_est(txt), 0.5), 0.75 * em, hs))
                wtxt = hand_width_est(txt) * hs
                where = 'blank'
            else:
                le = pr['line_ends'][-1]
                base = pr['tokpos'][-1]['base']
                col_r = pr['col_x'][1] if pr['container'] is None else pr['container'][2] - 0.3 * em
                if le + 1.2 * em + wtxt < col_r:
                    x = le + g.uniform(0.8, 2.0) * em
                    where = 'beside'
                else:
                    x = pr['bbox'][0] + g.uniform(0.5, 2.5) * em
                    base = pr['bbox'][3] + hs * 1.05
                    where = 'below'
            box = [x - 0.2 * hs, base - 1.05 * hs, x + wtxt + 0.3 * hs, base + 0.35 * hs]
            if rect_overlap(box, frb, 0.3 * em):
                continue
            bad = False
            for k2, pr2 in enumerate(probs):
                if k2 != j and rect_overlap(box, pr2['bbox'], 0.05 * em):
                    bad = True
            if where == 'below':
                for ob in L['obst']:
                    if rect_overlap(box, ob, 0.1 * em):
                        bad = True
            if bad:
                continue
            marks.append({'k': 'hand', 'text': txt, 'x': x, 'base': base, 'size': hs, 'color': pen_col,
                          'slant': float(g.uniform(-0.05, 0.3)), 'box': box, 'what': 'hand_' + where,
                          'on': pr['id'], 'seed': int(g.integers(1 << 30))})
            placed += 1
    if 'note' in K:
        notes = (['重点!', '易错', '?', '不会', '再看一遍', '★', '问老师', '!!'] if P['lang'] == 'zh'
                 else ['check!', '?', 'review', 'ask', '!!', 'hard'])
        for _ in range(4):
            j = near[int(g.integers(len(near)))] if near and g.random() < 0.7 else fi
            pr = probs[j]
            side = 'left' if g.random() < 0.5 else 'right'
            mw = P['ml'] if side == 'left' else P['mr']
            # only the outer columns touch the margins
            if side == 'left' and pr['col'] != 0 or side == 'right' and pr['col'] != P['ncols'] - 1:
                continue
            txt = notes[int(g.integers(len(notes)))]
            hs = min(em * g.uniform(0.9, 1.25), 6.0)
            wtxt = hand_width_est(txt) * hs
            if wtxt > mw - 3.0:
                hs *= (mw - 3.0) / wtxt
                wtxt = hand_width_est(txt) * hs
            if hs < 2.4:
                txt = '?'
                hs = min(em * 1.1, 5.0)
                wtxt = hand_width_est(txt) * hs
                if wtxt > mw - 2.0:
                    continue
            base = pr['bbox'][1] + 0.9 * hs + g.uniform(0, max(0.1, pr['bbox'][3] - pr['bbox'][1] - hs))
            if side == 'left':
                x = max(1.5, (mw - wtxt) / 2)
            else:
                x = P['pw'] - mw + max(1.5, (mw - wtxt) / 2)
            box = [x - 0.2 * hs, base - 1.05 * hs, x + wtxt + 0.2 * hs, base + 0.35 * hs]
            if rect_overlap(box, frb, 0.2 * em) or any(rect_overlap(box, pr2['bbox'], 0.05 * em) for pr2 in probs):
                continue
            marks.append({'k': 'hand', 'text': txt, 'x': x, 'base': base, 'size': hs, 'color': pen_col,
                          'slant': float(g.uniform(-0.05, 0.25)), 'box': box, 'what': 'margin_note', 'on': pr['id'],
                          'seed': int(g.integers(1 << 30))})
            break
    if g.random() < 0.2 and near:
        # teacher's tick / cross on a neighbour's number
        j = near[int(g.integers(len(near)))]
        pr = probs[j]
        lt = [t for t in pr['tokpos'] if t['kind'] == 'label']
        if lt:
            x, base = lt[0]['x0'] - 0.9 * em, lt[0]['base']
            box = [x - 0.3 * em, base - 1.1 * em, x + 0.9 * em, base + 0.2 * em]
            if x > 1.5 and not rect_overlap(box, frb, 0.2 * em) and not any(
                    rect_overlap(box, pr2['bbox'], 0.0) for pr2 in probs):
                s = em * 0.9
                if g.random() < 0.75:
                    pts = np.array([[x, base - 0.45 * s], [x + 0.3 * s, base - 0.1 * s], [x + 0.85 * s, base - 1.0 * s]])
                    marks.append({'k': 'poly', 'pts': pts, 'w': 0.4, 'color': (210, 30, 40), 'box': box, 'what': 'tick', 'on': pr['id']})
    return marks


def hand_width_est(txt):
    w = 0.0
    for ch in txt:
        w += 1.0 if is_cjk(ch, 'zh') else 0.3 if ch == ' ' else 0.62
    return w


# =====================================================================================
# camera / page surface
# =====================================================================================
def rot_x(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


class Surface:
    """Page (u, v) in mm -> world (X, Y, Z).  Z grows away from the camera.  With a curl
    the page dips into the book's gutter near the spine."""

    def __init__(self, pw, curl=None):
        self.pw = pw
        self.curl = curl
        if curl:
            depth, w, bow = curl['depth'], curl['width'], curl['bow']
            s = np.linspace(0, pw * 1.02, 2400)
            z = depth * np.clip(1 - s / w, 0, None) ** 2 - bow * np.sin(np.pi * np.clip(s / pw, 0, 1))
            dz = np.gradient(z, s)
            dx = np.sqrt(np.clip(1 - dz ** 2, 0.2, 1))
            x = np.concatenate([[0], np.cumsum(0.5 * (dx[1:] + dx[:-1]) * np.diff(s))])
            self.sg, self.xg, self.zg = s, x, z
            self.dzdx = np.gradient(z, x)
            self.slope = dz

    def to_world(self, u, v):
        u = np.asarray(u, float)
        v = np.asarray(v, float)
        if not self.curl:
            return u, v, np.zeros_like(u)
        left = self.curl['side'] == 'left'
        s = u if left else self.pw - u
        a = np.abs(s)
        xs = np.sign(s) * np.interp(a, self.sg, self.xg)
        z = np.interp(a, self.sg, self.zg)
        X = xs if left else self.pw - xs
        return X, v, z

    def from_ray(self, C, dx, dy, dz):
        if self.curl:
            # robust ray / surface intersection: bisection on t between the planes of the
            # lowest and highest surface points (handles the fold at the spine)
            left = self.curl['side'] == 'left'
            zlo, zhi = float(self.zg.min()) - 0.01, float(self.zg.max()) + 0.01
            ta = (zlo - C[2]) / dz
            tb = (zhi - C[2]) / dz

            def gfun(t):
                X = C[0] + t * dx
                xs = X if left else self.pw - X
                return np.interp(np.abs(xs), self.xg, self.zg) - (C[2] + t * dz)

            for _ in range(30):
                tm = 0.5 * (ta + tb)
                gm = gfun(tm)
                pos = gm >= 0
                ta = np.where(pos, tm, ta)
                tb = np.where(pos, tb, tm)
            t = 0.5 * (ta + tb)
            X = C[0] + t * dx
            xs = X if left else self.pw - X
            s = np.sign(xs) * np.interp(np.abs(xs), self.xg, self.sg)
            u = s if left else self.pw - s
        else:
            t = (0 - C[2]) / dz
            u = C[0] + t * dx
        v = C[1] + t * dy
        return u, v

    def shade(self, u):
        if not self.curl:
            return None
        left = self.curl['side'] == 'left'
        s = np.abs(u if left else self.pw - u)
        sl = np.interp(s, self.sg, self.slope)
        return (1.0 - 0.45 * np.clip(sl, -1, 1) ** 2 * 0.9 - 0.35 * np.exp(-s / 4.0)).astype(np.float32)


class Camera:
    def __init__(self, f, cx, cy, R, C, surf):
        self.f, self.cx, self.cy, self.R, self.C, self.surf = f, cx, cy, R, np.asarray(C, float), surf

    def project(self, u, v):
        X, Y, Z = self.surf.to_world(u, v)
        P = np.stack([X - self.C[0], Y - self.C[1], Z - self.C[2]])
        pc = self.R @ P.reshape(3, -1)
        z = pc[2]
        return self.f * pc[0] / z + self.cx, self.f * pc[1] / z + self.cy, z

    def unproject(self, xs, ys):
        rx = (xs - self.cx) / self.f
        ry = (ys - self.cy) / self.f
        Rt = self.R.T
        dx = Rt[0, 0] * rx + Rt[0, 1] * ry + Rt[0, 2]
        dy = Rt[1, 0] * rx + Rt[1, 1] * ry + Rt[1, 2]
        dz = Rt[2, 0] * rx + Rt[2, 1] * ry + Rt[2, 2]
        return self.surf.from_ray(self.C, dx, dy, dz)


def make_camera(surf, T, D, f, W, H, ax, ay, roll, cx, cy):
    R = rot_z(roll) @ rot_x(ax) @ rot_y(ay)
    axis = R.T @ np.array([0, 0, 1.0])
    C = np.asarray(T) - D * axis
    return Camera(f, cx, cy, R, C, surf)


def box_perimeter(b, n=7):
    x0, y0, x1, y1 = b
    t = np.linspace(0, 1, n)
    us = np.concatenate([x0 + (x1 - x0) * t, np.full(n, x1), x1 - (x1 - x0) * t, np.full(n, x0)])
    vs = np.concatenate([np.full(n, y0), y0 + (y1 - y0) * t, np.full(n, y1), y1 - (y1 - y0) * t])
    return us, vs


def proj_box(cam, b):
    us, vs = box_perimeter(b)
    x, y, z = cam.project(us, vs)
    return np.array([x.min(), y.min(), x.max(), y.max()]), z.min()


def plan_camera(spec, P, L, fr, g, relax):
    W, H = spec['rw'], spec['rh']
    K = spec['K']
    em = P['em']
    fi = L['fi']
    fb = L['probs'][fi]['bbox']
    surf = Surface(P['pw'], P.get('curl'))
    ch = P['char_h']
    close = spec['dist'] == 'close'
    if 'persp' in K:
        tilt = math.radians(g.uniform(14, 25) * (0.9 ** relax))
    elif 'curl' in K:
        tilt = math.radians(g.uniform(3, 12))
    else:
        tilt = math.radians(g.uniform(0, 8))
    phi = g.uniform(0, 2 * math.pi) if g.random() < 0.5 else pick(g, [0.0, math.pi]) + g.normal(0, 0.3)
    ax, ay = tilt * math.cos(phi), tilt * math.sin(phi)
    roll = math.radians(g.uniform(-8, 8) if g.random() < 0.75 else g.uniform(-2, 2))
    longside = max(W, H)
    f = longside * g.uniform(0.72, 0.95)
    if close and g.random() < 0.5:
        f *= g.uniform(1.5, 2.1)
    sx, sy = g.uniform(-0.04, 0.04), g.uniform(-0.04, 0.04)
    ucen, vcen = (fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2
    T = np.array(surf.to_world(np.array([ucen]), np.array([vcen]))).reshape(3)
    D = f * em * 0.9 / ch
    frame_us, frame_vs = fr['pts'][:, 0], fr['pts'][:, 1]
    for it in range(10):
        cx, cy = W / 2 + sx * W, H / 2 + sy * H
        cam = make_camera(surf, T, D, f, W, H, ax, ay, roll, cx, cy)
        for _ in range(3):
            # calibrate character height and centre position
            xa, ya, _ = cam.project(np.array([ucen, ucen]), np.array([vcen - 0.45 * em, vcen + 0.45 * em]))
            meas = math.hypot(xa[1] - xa[0], ya[1] - ya[0])
            D *= meas / ch
            cam = make_camera(surf, T, D, f, W, H, ax, ay, roll, cx, cy)
            pb, _ = proj_box(cam, fb)
            mx, my = (pb[0] + pb[2]) / 2, (pb[1] + pb[3]) / 2
            cx += (W / 2 + sx * W) - mx
            cy += (H / 2 + sy * H) - my
            cam = make_camera(surf, T, D, f, W, H, ax, ay, roll, cx, cy)
        # checks
        pb, zmin = proj_box(cam, fb)
        fx, fy, _ = cam.project(frame_us, frame_vs)
        m = 0.025 * min(W, H)
        inside = fx.min() > m and fy.min() > m and fx.max() < W - m and fy.max() < H - m
        fcx, fcy = (pb[0] + pb[2]) / 2, (pb[1] + pb[3]) / 2
        d0 = math.hypot(fcx - W / 2, fcy - H / 2)
        ok_c = abs(fcx - W / 2) <= 0.06 * W and abs(fcy - H / 2) <= 0.06 * H
        ratio = 1e9
        whole_adj = 0
        partial = 0
        vis = []
        for j, pr in enumerate(L['probs']):
            if j == fi:
                continue
            b, _ = proj_box(cam, pr['bbox'])
            c = ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)
            d = math.hypot(c[0] - W / 2, c[1] - H / 2)
            ratio = min(ratio, d / max(d0, 1e-6))
            whole = b[0] >= 1 and b[1] >= 1 and b[2] <= W - 2 and b[3] <= H - 2
            if whole and adjacent(L, fi, j):
                whole_adj += 1
            if b[2] > 0.03 * W and b[3] > 0.03 * H and b[0] < 0.97 * W and b[1] < 0.97 * H:
                partial += 1
        ok_r = ratio >= 1.6
        ok_n = (partial >= 1) if close else (whole_adj >= 1)
        # text rotation seen in the photo (roll plus perspective) stays within 8 degrees
        rx_, ry_, _ = cam.project(np.array([ucen - 5, ucen + 5]), np.array([vcen, vcen]))
        rot = math.degrees(math.atan2(ry_[1] - ry_[0], rx_[1] - rx_[0]))
        ok_rot = abs(rot) <= 8.0
        if inside and ok_c and ok_r and ok_n and ok_rot:
            return {'cam': cam, 'surf': surf, 'ax': ax, 'ay': ay, 'roll': roll, 'f': f, 'D': D, 'char_h': ch,
                    'ratio': ratio, 'tilt_deg': math.degrees(tilt)}
        if not ok_rot:
            if abs(roll) > math.radians(1.0):
                roll *= 0.6
            else:
                tilt *= 0.85
                ax, ay = tilt * math.cos(phi), tilt * math.sin(phi)
        if not ok_r:
            sx *= 0.4
            sy *= 0.4
        if not inside:
            if close and ch > 61 * spec['rscale']:
                ch = max(60.5 * spec['rscale'], ch * 0.93)
            elif not close:
                ch *= 0.92
            else:
                tilt *= 0.8
                ax, ay = tilt * math.cos(phi), tilt * math.sin(phi)
                sx *= 0.5
                sy *= 0.5
        if not ok_n:
            if close:
                ch = max(60.5 * spec['rscale'], ch * 0.95)
            else:
                ch = ch * 0.9 if spec['dist'] != 'far' else max(15.5 * spec['rscale'], ch * 0.95)
            sx *= 0.6
            sy *= 0.6
        D = f * em * 0.9 / ch
    return None


def adjacent(L, a, b):
    pa, pb = L['probs'][a], L['probs'][b]
    if pa['col'] == pb['col']:
        # same column: directly above/below in flow order within the column
        same = [j for j, p in enumerate(L['probs']) if p['col'] == pa['col']]
        ia, ib = same.index(a), same.index(b)
        return abs(ia - ib) == 1
    return False


# =====================================================================================
# photo-space plan: occluders and light
# =====================================================================================
def capsule_poly(p0, p1, w, n=14):
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    d = p1 - p0
    L_ = np.linalg.norm(d) + 1e-9
    d /= L_
    nrm = np.array([-d[1], d[0]])
    pts = [p0 + nrm * w / 2]
    for k in range(n + 1):
        a = math.pi / 2 - math.pi * k / n
        pts.append(p1 + (d * math.cos(a) + nrm * math.sin(a)) * w / 2)
    pts.append(p0 - nrm * w / 2)
    return np.array(pts)


def poly_hits_box(poly, box, W, H):
    sc = 0.25
    m = np.zeros((int(H * sc) + 1, int(W * sc) + 1), np.uint8)
    cv2.fillPoly(m, [np.round(poly * sc).astype(np.int32)], 1)
    x0, y0, x1, y1 = [int(round(v * sc)) for v in box]
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(m.shape[1] - 1, x1), min(m.shape[0] - 1, y1)
    if x1 < x0 or y1 < y0:
        return False
    return m[y0:y1 + 1, x0:x1 + 1].any()


def plan_photo_fx(spec, P, L, fr, camp, g):
    W, H = spec['rw'], spec['rh']
    K = spec['K']
    cam = camp['cam']
    fx, fy, _ = cam.project(fr['pts'][:, 0], fr['pts'][:, 1])
    fbox = [fx.min(), fy.min(), fx.max(), fy.max()]
    mrg = 0.03 * min(W, H)
    safe = [fbox[0] - mrg, fbox[1] - mrg, fbox[2] + mrg, fbox[3] + mrg]
    fi = L['fi']
    adj_boxes = []
    for j, pr in enumerate(L['probs']):
        if j != fi and adjacent(L, fi, j):
            b, _ = proj_box(cam, pr['bbox'])
            if b[0] >= 1 and b[1] >= 1 and b[2] <= W - 2 and b[3] <= H - 2:
                adj_boxes.append(b)
    fxp = {}
    S = min(W, H)
    # ---- occluder
    for kind in ('finger', 'pen'):
        if kind not in K:
            continue
        for _ in range(30):
            edge = pick(g, ['bottom', 'left', 'right', 'top'], [0.4, 0.25, 0.25, 0.1])
            along = g.uniform(0.08, 0.92)
            if edge == 'bottom':
                p0, dirv = np.array([along * W, H + 0.05 * S]), np.array([0, -1.0])
            elif edge == 'top':
                p0, dirv = np.array([along * W, -0.05 * S]), np.array([0, 1.0])
            elif edge == 'left':
                p0, dirv = np.array([-0.05 * S, along * H]), np.array([1.0, 0])
            else:
                p0, dirv = np.array([W + 0.05 * S, along * H]), np.array([-1.0, 0])
            ang = math.radians(g.uniform(-30, 30))
            dirv = np.array([dirv[0] * math.cos(ang) - dirv[1] * math.sin(ang),
                             dirv[0] * math.sin(ang) + dirv[1] * math.cos(ang)])
            if kind == 'finger':
                w = g.uniform(0.11, 0.17) * S
                ln = g.uniform(0.12, 0.26) * S + 0.05 * S
            else:
                w = g.uniform(0.028, 0.042) * S
                ln = g.uniform(0.2, 0.45) * S
            p1 = p0 + dirv * ln
            poly = capsule_poly(p0, p1, w)
            if poly_hits_box(poly, safe, W, H):
                continue
            if adj_boxes and all(poly_hits_box(poly, b, W, H) for b in adj_boxes):
                continue
            fxp['occ'] = {'kind': kind, 'p0': p0.tolist(), 'p1': p1.tolist(), 'w': w, 'poly': poly,
                          'edge': edge, 'tone': int(g.integers(4)), 'seed': int(g.integers(1 << 30))}
            break
    # ---- hard shadow (phone or hand)
    if 'shadow' in K:
        kind = pick(g, ['phone', 'hand'])
        edge = pick(g, ['top', 'left', 'right', 'bottom'], [0.35, 0.25, 0.25, 0.15])
        along = g.uniform(0.2, 0.8)
        depth = g.uniform(0.35, 0.7)
        if edge == 'top':
            p0, dv = np.array([along * W, -0.1 * H]), np.array([0, 1.0])
            ln = depth * H
        elif edge == 'bottom':
            p0, dv = np.array([along * W, 1.1 * H]), np.array([0, -1.0])
            ln = depth * H
        elif edge == 'left':
            p0, dv = np.array([-0.1 * W, along * H]), np.array([1.0, 0])
            ln = depth * W
        else:
            p0, dv = np.array([1.1 * W, along * H]), np.array([-1.0, 0])
            ln = depth * W
        ang = math.radians(g.uniform(-35, 35))
        dv = np.array([dv[0] * math.cos(ang) - dv[1] * math.sin(ang), dv[0] * math.sin(ang) + dv[1] * math.cos(ang)])
        polys = []
        if kind == 'phone':
            w = g.uniform(0.3, 0.5) * S
            p1 = p0 + dv * ln
            nrm = np.array([-dv[1], dv[0]])
            r = 0.08 * w
            body = [p0 + nrm * w / 2, p1 + nrm * w / 2 - dv * r, p1 + nrm * (w / 2 - r), p1 - nrm * (w / 2 - r),
                    p1 - nrm * w / 2 - dv * r, p0 - nrm * w / 2]
            polys.append(np.array(body))
        else:
            w = g.uniform(0.25, 0.38) * S
            p1 = p0 + dv * ln * 0.7
            polys.append(capsule_poly(p0, p1, w))
            nrm = np.array([-dv[1], dv[0]])
            for k in range(4):
                off = (k - 1.5) * w * 0.24
                a2 = math.radians((k - 1.5) * 7)
                d2 = np.array([dv[0] * math.cos(a2) - dv[1] * math.sin(a2), dv[0] * math.sin(a2) + dv[1] * math.cos(a2)])
                st = p1 + nrm * off - dv * w * 0.1
                polys.append(capsule_poly(st, st + d2 * ln * g.uniform(0.28, 0.45) * (0.8 if k in (0, 3) else 1), w * 0.19))
        fxp['shadow'] = {'kind': kind, 'polys': polys, 'dark': float(g.uniform(0.5, 0.68)),
                         'soft': float(g.uniform(1.2, 4.0)) * S / 960}
    # ---- glare
    if 'glare' in K:
        gx, gy = g.uniform(0.15, 0.85) * W, g.uniform(0.15, 0.85) * H
        rx, ry = g.uniform(0.08, 0.22) * S, g.uniform(0.06, 0.16) * S
        strength = g.uniform(0.75, 1.0)
        ang = g.uniform(0, math.pi)
        b_ = L['probs'][fi]['bbox']
        uu, vv = np.meshgrid(np.linspace(b_[0], b_[2], 25), np.linspace(b_[1], b_[3], 7))
        xs, ys, _ = cam.project(uu.ravel(), vv.ravel())
        core = float(g.uniform(0.3, 0.6))
        val = glare_total(xs, ys, gx, gy, rx, ry, ang, core, strength)
        if val.max() > 0.5:
            # weaken (and if needed move) the glare so that the framed text stays readable
            strength *= 0.5 / val.max()
        fxp['glare'] = {'c': (gx, gy), 'r': (rx, ry), 'ang': ang, 's': float(strength), 'core': core}
    # ---- global light / exposure / colour
    fxp['grad'] = (float(g.uniform(-0.18, 0.18)), float(g.uniform(-0.18, 0.18)), float(g.uniform(0.0, 0.3)))
    fxp['exposure'] = 1.0
    if 'dim' in K:
        fxp['exposure'] = float(g.uniform(0.38, 0.58))
    if 'bright' in K:
        fxp['exposure'] = float(g.uniform(1.6, 2.6))
    cast = np.array([1.0, 1.0, 1.0])
    if 'warm' in K:
        s_ = g.uniform(0.6, 1.0)
        cast = np.array([1.0 + 0.08 * s_, 1.0, 1.0 - 0.2 * s_])
    elif 'cool' in K:
        s_ = g.uniform(0.6, 1.0)
        cast = np.array([1.0 - 0.15 * s_, 1.0 - 0.02 * s_, 1.0 + 0.07 * s_])
    else:
        a_ = g.normal(0, 0.025)
        cast = np.array([1 + a_, 1.0, 1 - a_])
    fxp['cast'] = cast.tolist()
    ch = camp['char_h']
    if 'blur' in K:
        if g.random() < 0.6:
            fxp['blur'] = ('gauss', float(min(g.uniform(0.8, 1.8) * S / 960, 0.05 * ch)))
        else:
            fxp['blur'] = ('motion', float(min(g.uniform(3, 7) * S / 960, ch / 9.0)), float(g.uniform(0, 180)))
    else:
        fxp['blur'] = ('gauss', float(min(g.uniform(0.25, 0.55) * S / 960, 0.025 * ch)))
    fxp['noise'] = float(g.uniform(1.5, 5.0)) * (1.8 if 'dim' in K else 1.0)
    fxp['jpeg'] = int(g.integers(50, 91))
    fxp['vignette'] = float(g.uniform(0.05, 0.3))
    fxp['desk'] = pick(g, ['wood', 'plain', 'dark', 'fabric', 'white'], [0.35, 0.2, 0.15, 0.15, 0.15])
    fxp['desk_seed'] = int(g.integers(1 << 30))
    return fxp


def glare_total(x, y, gx, gy, rx, ry, ang, core, s):
    v = glare_val(x, y, gx, gy, rx, ry, ang) * s
    c = glare_val(x, y, gx, gy, rx * core, ry * core, ang)
    return np.clip(v + 0.5 * c * s, 0, s)


def glare_val(x, y, gx, gy, rx, ry, ang):
    c, s = math.cos(ang), math.sin(ang)
    dx, dy = x - gx, y - gy
    a = (dx * c + dy * s) / rx
    b = (-dx * s + dy * c) / ry
    return np.exp(-(a * a + b * b))


# =====================================================================================
# full plan of one photo
# =====================================================================================
def make_plan(i):
    spec = GPLAN[i]
    g = np.random.default_rng([SEED, i, 1])
    K = spec['K']
    last_err = None
    for attempt in range(14):
        relax = max(0, attempt - 2)
        P = design_page(spec, g)
        if 'curl' in K:
            depth = g.uniform(8, 18)
            P['curl'] = {'side': pick(g, ['left', 'right']), 'depth': depth,
                         'width': max(depth / 0.42, g.uniform(30, 55), P['ml'] + 12), 'bow': g.uniform(0, 5)}
        if 'screen' in K:
            P['ruled'] = P['grid'] = None
        framed = BANK_BY_ID[spec['fid']]
        fnat = natural_width_em(P, framed)
        fit_page_to_camera(spec, P, g, fnat, relax)
        L = build_layout(spec, P, g)
        if L is None:
            last_err = 'layout'
            continue
        fr = plan_frame(P, L, g)
        if fr is None:
            last_err = 'frame'
            continue
        camp = plan_camera(spec, P, L, fr, g, relax)
        if camp is None:
            last_err = 'camera'
            continue
        marks = plan_marks(spec, P, L, fr, g)
        fxp = plan_photo_fx(spec, P, L, fr, camp, g)
        if 'screen' in K:
            fxp['screen'] = plan_screen(spec, P, L, fr, camp, g)
        plan = {'i': i, 'spec': spec, 'P': P, 'L': L, 'fr': fr, 'cam': camp, 'marks': marks, 'fx': fxp,
                'attempt': attempt}
        plan['meta'] = make_meta(plan)
        return plan
    raise RuntimeError('photo %d: could not plan (%s)' % (i, last_err))


def plan_screen(spec, P, L, fr, camp, g):
    kind = pick(g, ['phone', 'laptop'])
    fb = fr['bbox']
    pw = P['pw']
    if kind == 'phone':
        sw = pw + g.uniform(-4, 6)
        sh = sw * g.uniform(1.9, 2.2)
        x0 = (pw - sw) / 2
        cy = (fb[1] + fb[3]) / 2 + g.uniform(-0.2, 0.2) * sh
        y0 = cy - sh / 2
        bez = sw * 0.035
        body = sw * 0.02
        bg = (242, 242, 242)
    else:
        sw = pw * g.uniform(1.5, 1.9)
        sh = sw * g.uniform(0.56, 0.64)
        x0 = (pw - sw) / 2 + g.uniform(-0.1, 0.1) * pw
        cy = (fb[1] + fb[3]) / 2 + g.uniform(-0.15, 0.15) * sh
        y0 = cy - sh / 2
        bez = sw * 0.025
        body = sw * 0.03
        bg = pick(g, [(82, 84, 88), (210, 212, 215), (50, 52, 56)])
    x0 = min(x0, fb[0] - 3)
    x1 = max(x0 + sw, fb[2] + 3)
    y0 = min(y0, fb[1] - 3)
    y1 = max(y0 + sh, fb[3] + 3)
    cam = camp['cam']
    # pixel pitch of the display in document mm, close to the photo's sampling (moire)
    xs, ys, _ = cam.project(np.array([(fb[0] + fb[2]) / 2, (fb[0] + fb[2]) / 2 + 10]), np.array([fb[1], fb[1]]))
    px_per_mm = math.hypot(xs[1] - xs[0], ys[1] - ys[0]) / 10
    # display pixel period close to 1 or 1/2 photo pixel -> broad aliasing bands
    per_px = 1.0 / (pick(g, [1.0, 2.0]) + pick(g, [-1, 1]) * g.uniform(0.03, 0.14))
    pitch = per_px / px_per_mm
    return {'kind': kind, 'rect': [x0, y0, x1, y1], 'bezel': bez, 'body': body, 'bg': bg,
            'pitch': pitch, 'amp': float(g.uniform(0.12, 0.28)), 'white': (int(g.integers(228, 250)), int(g.integers(236, 252)), 255),
            'moire_ang': float(g.uniform(-0.2, 0.2))}


def make_meta(plan):
    spec, P, L, fr, camp, fx = plan['spec'], plan['P'], plan['L'], plan['fr'], plan['cam'], plan['fx']
    cam = camp['cam']
    W, H = spec['rw'], spec['rh']
    sc = 1.0 / spec['rscale']
    fi = L['fi']
    pr = L['probs'][fi]
    b, _ = proj_box(cam, pr['bbox'])
    us, vs = pr['bbox'][0::2], pr['bbox'][1::2]
    qx, qy, _ = cam.project(np.array([us[0], us[1], us[1], us[0]]), np.array([vs[0], vs[0], vs[1], vs[1]]))
    fxs, fys, _ = cam.project(fr['pts'][:, 0], fr['pts'][:, 1])
    # measured text rotation and character height at the centre
    em = P['em']
    ucen, vcen = (pr['bbox'][0] + pr['bbox'][2]) / 2, (pr['bbox'][1] + pr['bbox'][3]) / 2
    rx, ry, _ = cam.project(np.array([ucen - 5, ucen + 5, ucen, ucen]), np.array([vcen, vcen, vcen - 0.45 * em, vcen + 0.45 * em]))
    rot = math.degrees(math.atan2(ry[1] - ry[0], rx[1] - rx[0]))
    ch = math.hypot(rx[3] - rx[2], ry[3] - ry[2])
    occ = fx.get('occ')
    occ_poly = occ['poly'] if occ else None
    neigh = []
    fcx, fcy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    d0 = math.hypot(fcx - W / 2, fcy - H / 2)
    nvis_whole = 0
    scr = fx.get('screen')
    for j, p2 in enumerate(L['probs']):
        if j == fi:
            continue
        bb, _ = proj_box(cam, p2['bbox'])
        inside_any = bb[2] > 0 and bb[3] > 0 and bb[0] < W and bb[1] < H
        if not inside_any:
            continue
        if scr:
            r = scr['rect']
            if p2['bbox'][2] < r[0] or p2['bbox'][0] > r[2] or p2['bbox'][3] < r[1] or p2['bbox'][1] > r[3]:
                continue
        whole = bb[0] >= 0 and bb[1] >= 0 and bb[2] <= W - 1 and bb[3] <= H - 1
        if scr:
            r = scr['rect']
            whole = whole and p2['bbox'][0] >= r[0] and p2['bbox'][2] <= r[2] and p2['bbox'][1] >= r[1] and p2['bbox'][3] <= r[3]
        if whole and occ_poly is not None and poly_hits_box(occ_poly, bb, W, H):
            whole = False
        if p2['col'] == pr['col']:
            pos = 'above' if p2['bbox'][1] < pr['bbox'][1] else 'below'
        else:
            pos = 'left' if p2['col'] < pr['col'] else 'right'
        nvis_whole += whole
        neigh.append({'id': p2['id'], 'n': p2['n'], 'pos': pos, 'visible': 'whole' if whole else 'partial',
                      'adjacent': adjacent(L, fi, j),
                      'dist_ratio': round(math.hypot((bb[0] + bb[2]) / 2 - W / 2, (bb[1] + bb[3]) / 2 - H / 2) / max(d0, 1e-6), 2)})
    K = spec['K']
    kinds = []
    if ch * sc <= 24.5:
        kinds.append('distance_far')
    elif ch * sc >= 58:
        kinds.append('distance_close')
    if camp['tilt_deg'] >= 13:
        kinds.append('perspective_strong')
    if P.get('curl'):
        kinds.append('page_curl')
    for k, name in [('glare', 'glare'), ('dim', 'dim'), ('bright', 'overexposed'), ('warm', 'warm_cast'),
                    ('cool', 'cool_cast')]:
        if k in K:
            kinds.append(name)
    if 'shadow' in fx:
        kinds.append('hard_shadow_' + fx['shadow']['kind'])
    if P['ruled']:
        kinds.append('ruled_paper')
    if P['grid']:
        kinds.append('grid_paper')
    if 'colour_paper' in K:
        kinds.append('coloured_paper')
    if 'grey_print' in K:
        kinds.append('faded_print' if P['faded'] else 'grey_print')
    if P['thin']:
        kinds.append('thin_print')
    if P['mode'] == 'boxes':
        kinds.append('boxed_problems')
    if P['mode'] == 'table':
        kinds.append('table_cells')
    if P['band'] is not None:
        kinds.append('tinted_bands')
    kinds.append('columns_%d' % P['ncols'])
    whats = sorted(set(m['what'] for m in plan['marks']))
    for w in whats:
        kinds.append('pen_' + w)
    if occ:
        kinds.append('occluder_' + occ['kind'])
    if scr:
        kinds.append('screen_moire_' + scr['kind'])
    if abs(rot) >= 3:
        kinds.append('rotated')
    if 'blur' in K:
        kinds.append('blur')
    kinds.append('jpeg_q%d' % (fx['jpeg'] // 10 * 10))
    kinds.append('lang_' + P['lang'])
    if P['headings']:
        kinds.append('section_headings')
    kinds.append('style_' + P['style'])
    kinds.append('label_' + ('circled' if P['label'] == 'circ' else P['label'].replace('{n}', '9')))
    if P['score']:
        kinds.append('score_note')
    if any(ch_ in pr['q'] for ch_ in list(SUP) + list(SUB)):
        kinds.append('sub_superscript_' + P['ctx']['script'])
    if '___' in pr['q']:
        kinds.append('blank_' + P['ctx']['blank_mode'])
    row = BANK_BY_ID[spec['fid']]
    meta = {
        'qid': 'w%03d' % (spec['i'] + 1), 'id': row['id'], 'subject': row['subject'], 'lang': P['lang'],
        'kinds': kinds, 'size': list(spec['size']),
        'render_size': [W, H] if spec['rscale'] != 1 else None,
        'rotation_deg': round(rot, 2), 'tilt_deg': round(camp['tilt_deg'], 1),
        'char_h_px': round(ch * sc, 1),
        'framed_box': [round(v * sc, 1) for v in b],
        'framed_quad': [[round(float(x) * sc, 1), round(float(y) * sc, 1)] for x, y in zip(qx, qy)],
        'frame_box': [round(float(fxs.min()) * sc, 1), round(float(fys.min()) * sc, 1),
                      round(float(fxs.max()) * sc, 1), round(float(fys.max()) * sc, 1)],
        'centre_offset': [round((fcx - W / 2) / W, 4), round((fcy - H / 2) / H, 4)],
        'nearest_ratio': round(min([n['dist_ratio'] for n in neigh] + [camp['ratio']]), 2),
        'label': pr['label'],
        'neighbours': neigh,
        'whole_neighbours': nvis_whole,
        'page': {'style': P['style'], 'size_mm': [round(P['pw']), round(P['ph'])], 'columns': P['ncols'],
                 'mode': P['mode'], 'n_problems': len(L['probs']), 'font': P['fonts']['zh'] + '+' + P['fonts']['lat'],
                 'frame_shape': fr['shape']},
        'jpeg_quality': fx['jpeg'],
    }
    return meta


# =====================================================================================
# rendering
# =====================================================================================
def render_page_crop(plan, x0, y0, x1, y1, k, r):
    """Render the printed page (white background, multiply semantics) for the page
    region [x0,x1]x[y0,y1] mm at k px/mm, with pen marks."""
    P, L, fr = plan['P'], plan['L'], plan['fr']
    wpx, hpx = int(math.ceil((x1 - x0) * k)), int(math.ceil((y1 - y0) * k))
    img = Image.new('RGB', (wpx, hpx), (255, 255, 255))
    dr = ImageDraw.Draw(img)
    X = lambda x: (x - x0) * k
    Y = lambda y: (y - y0) * k
    # paper rules / grid
    if P['grid'] is not None:
        st = P['grid']['step']
        col = P['grid']['color']
        lw = max(1, int(round(0.13 * k)))
        gx0 = 5.0
        xx = gx0 + math.ceil((x0 - gx0) / st) * st
        while xx < min(x1, P['pw'] - 5):
            dr.line([(X(xx), Y(max(y0, 6))), (X(xx), Y(min(y1, P['ph'] - 6)))], fill=col, width=lw)
            xx += st
        yy = 6 + math.ceil((y0 - 6) / st) * st
        while yy < min(y1, P['ph'] - 6):
            dr.line([(X(max(x0, 5)), Y(yy)), (X(min(x1, P['pw'] - 5)), Y(yy))], fill=col, width=lw)
            yy += st
    if P['ruled'] is not None:
        col = P['ruled']['color']
        pitch = P['pitch_em'] * P['em']
        lw = max(1, int(round(0.16 * k)))
        yy = P['rule_y0'] + P['em'] * 0.2
        while yy < P['ph'] - 8:
            if y0 - 1 < yy < y1 + 1:
                dr.line([(X(max(x0, 4)), Y(yy)), (X(min(x1, P['pw'] - 4)), Y(yy))], fill=col, width=lw)
            yy += pitch
        if P['ruled']['margin_line']:
            xm = P['ml'] - 4
            if x0 < xm < x1:
                dr.line([(X(xm), Y(max(y0, 0))), (X(xm), Y(min(y1, P['ph'])))], fill=(230, 120, 130), width=lw)
    ops = L['ops']
    vis = lambda bx0, by0, bx1, by1: bx1 >= x0 - 2 and bx0 <= x1 + 2 and by1 >= y0 - 2 and by0 <= y1 + 2
    for op in ops:
        if op[0] == 'fill' and vis(op[1], op[2], op[3], op[4]):
            col = op[5] if op[5] is not None else (255, 255, 255)
            dr.rectangle([X(op[1]), Y(op[2]), X(op[3]), Y(op[4])], fill=col)
    for op in ops:
        t = op[0]
        if t == 'line':
            _, ax, ay, bx, by, w, col = op
            if vis(min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)):
                dr.line([(X(ax), Y(ay)), (X(bx), Y(by))], fill=col, width=max(1, int(round(w * k))))
        elif t == 'rect':
            _, ax, ay, bx, by, w, col, rnd = op
            if vis(ax, ay, bx, by):
                wpx_ = max(1, int(round(w * k)))
                if rnd:
                    dr.rounded_rectangle([X(ax), Y(ay), X(bx), Y(by)], radius=2.0 * k, outline=col, width=wpx_)
                else:
                    dr.rectangle([X(ax), Y(ay), X(bx), Y(by)], outline=col, width=wpx_)
        elif t == 'text':
            _, tx, ty, s, fk, size, col = op
            if ty + size < y0 or ty - size > y1 or tx > x1 + 1 or tx + size * len(s) < x0 - 1:
                continue
            dr.text((X(tx), Y(ty)), s, font=FONTS[fk].pil(size * k), fill=col, anchor='ls')
    a = np.asarray(img).copy()
    em_px = P['em'] * k
    if P['thin']:
        # thinner strokes: erode the ink by one pixel where strokes are wide enough, and
        # print lighter.  Checked on the framed problem so that no stroke disappears.
        sans = P['fonts']['zh'] in ('zh_sans', 'zh_mono') and P['fonts']['lat'] != 'dv_light'
        fb = L['probs'][L['fi']]['bbox']
        fx0, fy0 = max(0, int(X(fb[0]))), max(0, int(Y(fb[1])))
        fx1, fy1 = min(a.shape[1], int(X(fb[2])) + 1), min(a.shape[0], int(Y(fb[3])) + 1)
        if sans and em_px * 0.065 >= 4.0:
            ker = np.ones((2, 2), np.uint8) if em_px * 0.065 < 7 else np.ones((3, 3), np.uint8)
            b_ = cv2.dilate(a, ker)
            before = (a[fy0:fy1, fx0:fx1].min(axis=2) < 128).sum()
            after = (b_[fy0:fy1, fx0:fx1].min(axis=2) < 128).sum()
            if after >= 0.6 * max(before, 1):
                a = b_
        a = (255 - (255 - a.astype(np.float32)) * 0.8).astype(np.uint8)
    if P['faded']:
        hh, ww = a.shape[:2]
        f_lo = 0.42 if plan['cam']['char_h'] >= 26 else 0.58
        lo = r.uniform(f_lo, f_lo + 0.33, (max(2, hh // 200), max(2, ww // 200))).astype(np.float32)
        fm = cv2.resize(lo, (ww, hh), interpolation=cv2.INTER_CUBIC)
        streak = 1 - 0.25 * (r.random((hh, 1)) < 0.02).astype(np.float32)
        fm = np.clip(fm * streak, 0.3, 0.9)[..., None]
        a = (255 - (255 - a.astype(np.float32)) * fm).astype(np.uint8)
    # ---- pen marks (frame + others)
    layers = []
    m = np.zeros(a.shape[:2], np.uint8)
    pts = np.stack([X(fr['pts'][:, 0]), Y(fr['pts'][:, 1])], 1)
    th = max(1, int(round(fr['stroke'] * k)))
    cv2.polylines(m, [np.round(pts * 16).astype(np.int32)], False, 255, th, cv2.LINE_AA, 4)
    layers.append((m, fr['color'], 0.8 if fr['pencil'] else 0.92, fr['pencil']))
    for mk in plan['marks']:
        m = np.zeros(a.shape[:2], np.uint8)
        col = mk['color']
        pencil = col == (100, 100, 105)
        if mk['k'] == 'ellipse':
            c = (int(round(X(mk['c'][0]) * 16)), int(round(Y(mk['c'][1]) * 16)))
            ax_ = (int(round(mk['r'][0] * k * 16)), int(round(mk['r'][1] * k * 16)))
            st_ = int(r.uniform(0, 360))
            cv2.ellipse(m, c, ax_, mk['ang'], st_, st_ + 375, 255, max(1, int(round(mk['w'] * k))), cv2.LINE_AA, 4)
        elif mk['k'] == 'poly':
            pp = np.stack([X(mk['pts'][:, 0]), Y(mk['pts'][:, 1])], 1)
            cv2.polylines(m, [np.round(pp * 16).astype(np.int32)], False, 255, max(1, int(round(mk['w'] * k))),
                          cv2.LINE_AA, 4)
        elif mk['k'] == 'hand':
            draw_hand(m, mk['text'], X(mk['x']), Y(mk['base']), mk['size'] * k, mk['slant'],
                      np.random.default_rng(mk['seed']))
        layers.append((m, col, 0.6 if pencil else 0.9, pencil))
    af = None
    for m, col, op_, pencil in layers:
        ys_, xs_ = np.nonzero(m)
        if len(ys_) == 0:
            continue
        ya, yb, xa, xb = ys_.min(), ys_.max() + 1, xs_.min(), xs_.max() + 1
        sub = a[ya:yb, xa:xb].astype(np.float32)
        al = m[ya:yb, xa:xb].astype(np.float32)[..., None] / 255.0 * op_
        if pencil:
            al = al * r.uniform(0.55, 1.0, al.shape).astype(np.float32)
        colv = np.array(col, np.float32)
        # ink multiplies with what is below (ballpoint on print)
        sub = sub * (1 - al) + np.minimum(sub, colv) * al
        a[ya:yb, xa:xb] = np.clip(sub, 0, 255).astype(np.uint8)
    return a


def draw_hand(mask, text, x, base, size, slant, r):
    """Handwriting: each glyph drawn from a font, then rotated, sheared, elastically
    warped and jittered."""
    H_, W_ = mask.shape
    drift = r.uniform(-0.05, 0.05)
    x0 = x
    for ci, ch in enumerate(text):
        if ch == ' ':
            x += size * 0.35
            continue
        fk = font_for(ch, ['zh_sans'] if is_cjk(ch, 'zh') else [pick(r, ['dv_sans_i', 'sans_i', 'zh_sans'])])
        s = size * r.uniform(0.85, 1.1)
        pf = FONTS[fk].pil(s)
        bb = pf.getbbox(ch, anchor='ls')
        pad = int(s * 0.35) + 3
        w, h = bb[2] - bb[0] + 2 * pad, bb[3] - bb[1] + 2 * pad
        if w <= 2 * pad or h <= 2 * pad:
            x += s * 0.5
            continue
        im = Image.new('L', (w, h), 0)
        ImageDraw.Draw(im).text((pad - bb[0], pad - bb[1]), ch, fill=255, font=pf, anchor='ls')
        g_ = np.asarray(im)
        ang = r.normal(0, 6)
        M = cv2.getRotationMatrix2D((w / 2, h / 2), ang, r.uniform(0.9, 1.08))
        sh = slant + r.normal(0, 0.07)
        S_ = np.array([[1, -sh, sh * h / 2], [0, 1, 0]], float)
        M = np.vstack([M, [0, 0, 1]])
        M = (np.vstack([S_, [0, 0, 1]]) @ M)[:2]
        g_ = cv2.warpAffine(g_, M, (w, h), flags=cv2.INTER_LINEAR)
        amp = s * r.uniform(0.03, 0.07)
        dxm = cv2.resize(r.normal(0, 1, (4, 4)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC) * amp
        dym = cv2.resize(r.normal(0, 1, (4, 4)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC) * amp
        gx, gy = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
        g_ = cv2.remap(g_, gx + dxm, gy + dym, cv2.INTER_LINEAR)
        if s > 40 and r.random() < 0.5:
            g_ = cv2.erode(g_, np.ones((2, 2), np.uint8))
        jy = r.normal(0, 0.05) * s + drift * (x - x0)
        px = int(round(x + bb[0] - pad))
        py = int(round(base + bb[1] - pad + jy))
        xa, ya = max(0, px), max(0, py)
        xb, yb = min(W_, px + w), min(H_, py + h)
        if xb > xa and yb > ya:
            reg = mask[ya:yb, xa:xb]
            np.maximum(reg, g_[ya - py:yb - py, xa - px:xb - px], out=reg)
        x += (bb[2] - bb[0]) * r.uniform(0.95, 1.15) + s * r.uniform(0.04, 0.12)


def desk_texture(kind, W, H, r):
    sw, sh = max(8, W // 8), max(8, H // 8)
    if kind == 'wood':
        base = np.array(pick(r, [(150, 105, 70), (120, 80, 50), (185, 145, 100), (95, 65, 45)]), np.float32)
        ang = r.uniform(-0.3, 0.3)
        yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
        coord = yy * math.cos(ang) + xx * math.sin(ang)
        warp = cv2.resize(r.normal(0, 1, (6, 6)).astype(np.float32), (sw, sh), interpolation=cv2.INTER_CUBIC) * 6
        grain = np.sin((coord + warp) * r.uniform(0.3, 0.7)) * 0.5 + 0.5
        grain = grain * 0.12 + r.normal(0, 0.03, (sh, sw))
        img = base[None, None, :] * (0.9 + grain[..., None])
    elif kind == 'fabric':
        base = np.array(pick(r, [(70, 90, 120), (120, 60, 60), (90, 110, 80), (160, 160, 165)]), np.float32)
        img = base[None, None, :] * (0.95 + r.normal(0, 0.05, (sh, sw, 1)))
    elif kind == 'dark':
        base = np.array(pick(r, [(40, 40, 45), (55, 50, 48), (30, 35, 40)]), np.float32)
        img = base[None, None, :] * (0.95 + r.normal(0, 0.04, (sh, sw, 1)))
    elif kind == 'white':
        base = np.array(pick(r, [(215, 215, 210), (200, 205, 210), (225, 220, 210)]), np.float32)
        img = base[None, None, :] * (0.97 + r.normal(0, 0.02, (sh, sw, 1)))
    else:
        base = np.array(pick(r, [(160, 160, 155), (130, 140, 150), (175, 165, 150)]), np.float32)
        img = base[None, None, :] * (0.96 + r.normal(0, 0.03, (sh, sw, 1)))
    img = cv2.resize(img.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    return np.clip(img / 255.0, 0, 1)


def render_photo(plan):
    spec, P, L, fr, camp, fx = plan['spec'], plan['P'], plan['L'], plan['fr'], plan['cam'], plan['fx']
    r = np.random.default_rng([SEED, plan['i'], 2])
    W, H = spec['rw'], spec['rh']
    cam, surf = camp['cam'], camp['surf']
    scr = fx.get('screen')
    # ---- coarse maps photo -> page (u, v)
    step = 4
    gx = np.arange(W // step + 1, dtype=np.float64) * step + (step - 1) / 2.0
    gy = np.arange(H // step + 1, dtype=np.float64) * step + (step - 1) / 2.0
    GX, GY = np.meshgrid(gx, gy)
    U, V = cam.unproject(GX, GY)
    # local scale (photo px per mm)
    du = np.hypot(np.gradient(U, axis=1), np.gradient(V, axis=1))
    dv = np.hypot(np.gradient(U, axis=0), np.gradient(V, axis=0))
    scale = step / np.maximum(np.maximum(du, dv), 1e-6)
    if scr:
        sr = scr['rect']
        lo_u, hi_u, lo_v, hi_v = max(0, sr[0]), min(P['pw'], sr[2]), max(0, sr[1]), min(P['ph'], sr[3])
    else:
        lo_u, hi_u, lo_v, hi_v = 0, P['pw'], 0, P['ph']
    inpage = (U >= lo_u) & (U <= hi_u) & (V >= lo_v) & (V <= hi_v)
    if inpage.any():
        x0 = max(lo_u, U[inpage].min() - 2)
        x1 = min(hi_u, U[inpage].max() + 2)
        y0 = max(lo_v, V[inpage].min() - 2)
        y1 = min(hi_v, V[inpage].max() + 2)
        kmax = float(np.percentile(scale[inpage], 99.5)) * 1.15
    else:
        x0, x1, y0, y1, kmax = 0, 10, 0, 10, 5
    x0, x1, y0, y1 = float(x0), float(x1), float(y0), float(y1)
    area = (x1 - x0) * (y1 - y0)
    k = min(kmax, math.sqrt(11e6 / max(area, 1)))
    k = max(k, 2.0)
    crop = render_page_crop(plan, x0, y0, x1, y1, k, r)
    # ---- full-resolution maps
    Uf = cv2.resize(U.astype(np.float32), (len(gx) * step, len(gy) * step), interpolation=cv2.INTER_LINEAR)[:H, :W]
    Vf = cv2.resize(V.astype(np.float32), (len(gx) * step, len(gy) * step), interpolation=cv2.INTER_LINEAR)[:H, :W]
    Sf = cv2.resize(scale.astype(np.float32), (len(gx) * step, len(gy) * step), interpolation=cv2.INTER_LINEAR)[:H, :W]
    mapx = ((Uf - np.float32(x0)) * np.float32(k) - np.float32(0.5)).astype(np.float32)
    mapy = ((Vf - np.float32(y0)) * np.float32(k) - np.float32(0.5)).astype(np.float32)
    warped = cv2.remap(crop, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(255, 255, 255))
    page = warped.astype(np.float32) / 255.0
    # page alpha (anti-aliased edge)
    if surf.curl:
        if surf.curl['side'] == 'left':
            ulo, uhi = -P['pw'], P['pw']
        else:
            ulo, uhi = 0, 2 * P['pw']
    else:
        ulo, uhi = 0, P['pw']
    dmm = np.minimum(np.minimum(Uf - ulo, uhi - Uf), np.minimum(Vf, P['ph'] - Vf))
    alpha = np.clip(dmm * Sf + 0.5, 0, 1)
    desk = desk_texture(fx['desk'] if not scr else 'dark', W, H, np.random.default_rng(fx['desk_seed']))
    if scr:
        sr = scr['rect']
        bez, body = scr['bezel'], scr['body']
        d_scr = np.minimum(np.minimum(Uf - sr[0], sr[2] - Uf), np.minimum(Vf - sr[1], sr[3] - Vf))
        in_scr = np.clip(d_scr * Sf + 0.5, 0, 1)[..., None]
        in_dev = np.clip((d_scr + bez + body) * Sf + 0.5, 0, 1)[..., None]
        in_bez = np.clip((d_scr + bez) * Sf + 0.5, 0, 1)[..., None]
        white = np.array(scr['white'], np.float32) / 255.0
        bg = np.array(scr['bg'], np.float32) / 255.0
        content = page * white
        content = content * alpha[..., None] + bg * (1 - alpha[..., None])
        # moire: display pixel grid sampled by the camera
        p_ = scr['pitch']
        ca, sa = math.cos(scr['moire_ang']), math.sin(scr['moire_ang'])
        uu = (Uf * ca + Vf * sa) / p_
        vv = (-Uf * sa + Vf * ca) / p_
        rowm = 0.5 + 0.5 * np.cos(2 * np.pi * vv)
        mo = np.empty_like(content)
        for c in range(3):
            mo[..., c] = (0.5 + 0.5 * np.cos(2 * np.pi * (uu - c / 3.0))) * (0.6 + 0.4 * rowm)
        amp = scr['amp']
        content = content * (1 - amp + amp * 1.6 * mo)
        black = 0.06
        content = black + (1 - black) * np.clip(content, 0, 1)
        bezc = np.array([0.06, 0.06, 0.07], np.float32)
        bodyc = np.array([0.55, 0.56, 0.58] if scr['kind'] == 'laptop' else [0.12, 0.12, 0.13], np.float32)
        img = desk * (1 - in_dev) + bodyc * in_dev
        img = img * (1 - in_bez) + bezc * in_bez
        img = img * (1 - in_scr) + content * in_scr
    else:
        paper = np.array(P['paper'], np.float32) / 255.0
        mott = cv2.resize(r.normal(0, 1, (max(2, H // 64), max(2, W // 64))).astype(np.float32), (W, H),
                          interpolation=cv2.INTER_CUBIC)
        pl = page * paper * (1 + 0.012 * mott[..., None])
        if surf.curl:
            sh = surf.shade(Uf)
            # facing page is blank paper
            pl = pl * sh[..., None]
        # desk shadow of the page
        a_small = cv2.resize(alpha, (W // 4, H // 4), interpolation=cv2.INTER_AREA)
        a_small = np.roll(a_small, (2, 2), (0, 1))
        shd = cv2.GaussianBlur(a_small, (0, 0), 3)
        shd = cv2.resize(shd, (W, H), interpolation=cv2.INTER_LINEAR)
        desk = desk * (1 - 0.35 * shd * (1 - alpha))[..., None]
        img = desk * (1 - alpha[..., None]) + pl * alpha[..., None]
    # ---- light
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xn, yn = xx / W - 0.5, yy / H - 0.5
    gxg, gyg, vig = fx['grad'][0], fx['grad'][1], fx['vignette']
    light = 1 + gxg * xn * 2 + gyg * yn * 2 - vig * (xn ** 2 + yn ** 2) * 2
    if scr:
        light = 1 + 0.4 * (light - 1)
    img = img * light[..., None]
    if 'shadow' in fx:
        sm = np.zeros((H, W), np.float32)
        for poly in fx['shadow']['polys']:
            cv2.fillPoly(sm, [np.round(poly * 4).astype(np.int32)], 1.0, cv2.LINE_AA, 2)
        sm = cv2.GaussianBlur(sm, (0, 0), fx['shadow']['soft'])
        dk = fx['shadow']['dark']
        tint = np.array([0.97, 1.0, 1.06], np.float32)
        img = img * (1 - sm[..., None] * (1 - dk * tint))
    if 'glare' in fx:
        gl = fx['glare']
        v = glare_total(xx, yy, gl['c'][0], gl['c'][1], gl['r'][0], gl['r'][1], gl['ang'], gl['core'], gl['s'])
        img = img + v[..., None] * (1.0 - img) * np.array([1.0, 1.0, 0.98], np.float32)
    img = np.clip(img * np.array(fx['cast'], np.float32), 0, 1)
    e = fx['exposure']
    if e > 1.0:
        img = 1.0 - np.power(1.0 - img, e)          # over-exposure: highlights roll off to white
    elif e < 1.0:
        img = np.power(img * e, 1.1)
    # ---- occluder
    occ = fx.get('occ')
    if occ:
        img = draw_occluder(img, occ, W, H, np.random.default_rng(occ['seed']))
    # ---- blur, noise
    bl = fx['blur']
    if bl[0] == 'gauss':
        img = cv2.GaussianBlur(img, (0, 0), bl[1])
    else:
        ln = max(2, int(round(bl[1])))
        ker = np.zeros((ln * 2 + 1, ln * 2 + 1), np.float32)
        c_ = ln
        a_ = math.radians(bl[2])
        cv2.line(ker, (int(round(c_ - math.cos(a_) * ln)), int(round(c_ - math.sin(a_) * ln))),
                 (int(round(c_ + math.cos(a_) * ln)), int(round(c_ + math.sin(a_) * ln))), 1.0, 1, cv2.LINE_AA)
        ker /= ker.sum()
        img = cv2.filter2D(img, -1, ker)
    nz = r.normal(0, fx['noise'] / 255.0, (H, W, 1)).astype(np.float32)
    nzc = r.normal(0, fx['noise'] * 0.4 / 255.0, (H // 2 + 1, W // 2 + 1, 3)).astype(np.float32)
    nzc = cv2.resize(nzc, (W, H), interpolation=cv2.INTER_LINEAR)
    img = img + nz + nzc
    out = np.clip(img * 255.0 + 0.5, 0, 255).astype(np.uint8)
    if spec['rscale'] != 1:
        out = cv2.resize(out, tuple(spec['size']), interpolation=cv2.INTER_AREA)
    return out[..., ::-1]   # RGB -> BGR for cv2


def draw_occluder(img, occ, W, H, r):
    H_, W_ = img.shape[:2]
    m = np.zeros((H_, W_), np.float32)
    poly = occ['poly']
    cv2.fillPoly(m, [np.round(poly * 4).astype(np.int32)], 1.0, cv2.LINE_AA, 2)
    S = min(W, H)
    p0, p1 = np.array(occ['p0']), np.array(occ['p1'])
    d = p1 - p0
    d /= np.linalg.norm(d) + 1e-9
    nrm = np.array([-d[1], d[0]])
    yy, xx = np.mgrid[0:H_, 0:W_].astype(np.float32)
    across = ((xx - p0[0]) * nrm[0] + (yy - p0[1]) * nrm[1]) / (occ['w'] / 2)
    along = ((xx - p0[0]) * d[0] + (yy - p0[1]) * d[1])
    if occ['kind'] == 'finger':
        skin = np.array(pick(r, [(0.93, 0.74, 0.62), (0.85, 0.64, 0.5), (0.72, 0.52, 0.4), (0.95, 0.8, 0.7)]), np.float32)
        shade = np.clip(1 - 0.45 * np.abs(across) ** 2.2, 0.35, 1)
        col = skin[None, None, :] * shade[..., None]
        # nail near the tip
        L_ = np.linalg.norm(p1 - p0)
        nail = np.exp(-(((along - (L_ - occ['w'] * 0.05)) / (occ['w'] * 0.3)) ** 2 + (across / 0.55) ** 2) ** 2 * 1.5)
        col = col * (1 - 0.3 * nail[..., None]) + np.array([0.98, 0.86, 0.82], np.float32) * 0.3 * nail[..., None]
        blur = S * 0.012
    else:
        body = np.array(pick(r, [(0.1, 0.15, 0.45), (0.08, 0.08, 0.09), (0.75, 0.76, 0.78), (0.7, 0.1, 0.12)]), np.float32)
        shade = np.clip(1 - 0.6 * np.abs(across) ** 2, 0.3, 1) + 0.35 * np.exp(-((across + 0.35) / 0.15) ** 2)
        col = body[None, None, :] * shade[..., None]
        L_ = np.linalg.norm(p1 - p0)
        tip = np.clip((along - (L_ - occ['w'] * 1.2)) / (occ['w'] * 0.8), 0, 1)
        col = col * (1 - tip[..., None]) + np.array([0.78, 0.78, 0.8], np.float32) * tip[..., None] * shade[..., None]
        blur = S * 0.006
    m = cv2.GaussianBlur(m, (0, 0), blur)
    col = cv2.GaussianBlur(col, (0, 0), blur)
    # soft contact shadow next to the occluder
    sh = cv2.GaussianBlur(m, (0, 0), blur * 4)
    img = img * (1 - 0.35 * np.roll(sh, (int(S * 0.02), int(S * 0.015)), (0, 1))[..., None])
    return img * (1 - m[..., None]) + col * m[..., None]


# =====================================================================================
# driver
# =====================================================================================
OUT_DIR = None


def work(job):
    i, do_render = job
    plan = make_plan(i)
    if do_render:
        img = render_photo(plan)
        path = os.path.join(OUT_DIR, 'w%03d.jpg' % (i + 1))
        ok, buf = cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, plan['fx']['jpeg']])
        with open(path, 'wb') as fh:
            fh.write(buf.tobytes())
    return i, plan['meta']


def _jsonable(o):
    if hasattr(o, 'item'):
        return o.item()
    if hasattr(o, 'tolist'):
        return o.tolist()
    return str(o)


def parse_qid(s):
    m = re.fullmatch(r'[wW]?0*(\d+)(\.jpg)?', s.strip())
    if not m:
        raise SystemExit('bad QID: %s' % s)
    n = int(m.group(1))
    if not 1 <= n <= N_PHOTOS:
        raise SystemExit('QID out of range: %s' % s)
    return n - 1


def main():
    global BANK, BANK_BY_ID, GPLAN, OUT_DIR
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True)
    ap.add_argument('out_dir')
    ap.add_argument('qids', nargs='*')
    ap.add_argument('--jobs', type=int, default=2)
    args = ap.parse_intermixed_args()
    t0 = time.time()
    load_fonts()
    BANK = load_bank(args.bank)
    BANK_BY_ID = {r['id']: r for r in BANK}
    GPLAN = global_plan(BANK)
    OUT_DIR = args.out_dir
    os.makedirs(OUT_DIR, exist_ok=True)
    sel = set(parse_qid(q) for q in args.qids) if args.qids else set(range(N_PHOTOS))
    jobs = [(i, i in sel) for i in range(N_PHOTOS)]
    # render the slow ones first for better load balance
    jobs.sort(key=lambda j: (not j[1], -GPLAN[j[0]]['rw'] * GPLAN[j[0]]['rh']))
    metas = {}
    if args.jobs <= 1:
        for j in jobs:
            i, m = work(j)
            metas[i] = m
    else:
        ctx = get_context('fork')
        with ctx.Pool(args.jobs) as pool:
            for i, m in pool.imap_unordered(work, jobs, chunksize=1):
                metas[i] = m
    with open(os.path.join(OUT_DIR, 'truth.csv'), 'w', encoding='utf-8', newline='') as fh:
        w = csv.writer(fh, lineterminator='\n')
        w.writerow(['qid', 'text'])
        for i in range(N_PHOTOS):
            w.writerow([metas[i]['qid'], BANK_BY_ID[metas[i]['id']]['question']])
    with open(os.path.join(OUT_DIR, 'queries.csv'), 'w', encoding='utf-8', newline='') as fh:
        w = csv.writer(fh, lineterminator='\n')
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for i in range(N_PHOTOS):
            w.writerow([metas[i]['qid'], BANK_BY_ID[metas[i]['id']]['question'], metas[i]['id'], 'exact'])
    with open(os.path.join(OUT_DIR, 'meta.jsonl'), 'w', encoding='utf-8') as fh:
        for i in range(N_PHOTOS):
            fh.write(json.dumps(metas[i], ensure_ascii=False, default=_jsonable) + '\n')
    print('wrote %d photos (%d planned) to %s in %.1f s' % (len(sel), N_PHOTOS, OUT_DIR, time.time() - t0))


if __name__ == '__main__':
    main()
