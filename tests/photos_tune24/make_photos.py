#!/usr/bin/env python3
"""Synthetic phone photos of printed homework pages (set "tune24").

Theme: the framed problem (the one the camera points at) is printed in
several pieces with more vertical space inside it than between ordinary
lines: display lines, stem / gap / question, a drawing between stem and
question, wrapped problems with a paragraph break.

Usage (from the repository root):
  .venv/bin/python tests/photos_tune24/make_photos.py \
      --bank appliance/data/demo_bank.jsonl /tmp/s25 --count 120 --seed 251 --jobs 1 [--only 3,17]

Writes a001.jpg ..., truth.csv (qid,text), queries.csv (qid,query,expected_id,kind)
and cases.csv (what each photo contains; the printed pieces of the framed problem).
Photo i depends only on (seed, i) and the bank, so --only remakes the same bytes.
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
from functools import lru_cache

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

try:
    from fontTools.ttLib import TTFont, TTCollection
except Exception:  # pragma: no cover
    TTFont = TTCollection = None

cv2.setNumThreads(1)

BLOCK = 120  # plans are balanced over blocks of this many photos
CJK_RE = re.compile(r'[\u4e00-\u9fff]')
FULLWIDTH = re.compile(r'[\u3000-\u303f\uff00-\uffef\u4e00-\u9fff“”‘’《》…—]')
NO_START = set('，。、：；？！）》」』”’,.;:?!)]}%℃°')
NO_END = set('（《「『“‘([{')
OPENERS = '（([{【《“'
CLOSERS = '）)]}】》”'

# --------------------------------------------------------------------------- fonts

FONT_WANT = {
    # name: (family, regular style, bold style)
    'notosans': ('Noto Sans CJK SC', 'Regular', 'Bold'),
    'notoserif': ('Noto Serif CJK SC', 'Regular', 'Bold'),
    'dejavusans': ('DejaVu Sans', 'Book', 'Bold'),
    'dejavuserif': ('DejaVu Serif', 'Book', 'Bold'),
    'libsans': ('Liberation Sans', 'Regular', 'Bold'),
    'libserif': ('Liberation Serif', 'Regular', 'Bold'),
    'dejavucond': ('DejaVu Sans Condensed', 'Condensed', 'Condensed Bold'),
}
FONT_FALLBACK_PATHS = {
    ('Noto Sans CJK SC', 'Regular'): ('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', 2),
    ('Noto Sans CJK SC', 'Bold'): ('/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc', 2),
    ('Noto Serif CJK SC', 'Regular'): ('/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc', 2),
    ('Noto Serif CJK SC', 'Bold'): ('/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc', 2),
    ('DejaVu Sans', 'Book'): ('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', 0),
    ('DejaVu Sans', 'Bold'): ('/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf', 0),
    ('DejaVu Serif', 'Book'): ('/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf', 0),
    ('DejaVu Serif', 'Bold'): ('/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf', 0),
    ('Liberation Sans', 'Regular'): ('/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf', 0),
    ('Liberation Sans', 'Bold'): ('/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf', 0),
    ('Liberation Serif', 'Regular'): ('/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf', 0),
    ('Liberation Serif', 'Bold'): ('/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf', 0),
    ('DejaVu Sans Condensed', 'Condensed'): ('/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf', 0),
    ('DejaVu Sans Condensed', 'Condensed Bold'): ('/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf', 0),
}


@lru_cache(maxsize=None)
def font_table():
    """(family, style) -> (path, index), found with fc-list."""
    table = {}
    try:
        out = subprocess.run(['fc-list', '--format', '%{file}|%{index}|%{family}|%{style}\n'],
                             capture_output=True, text=True, timeout=30).stdout
    except Exception:
        out = ''
    for line in out.splitlines():
        parts = line.split('|')
        if len(parts) != 4:
            continue
        path, idx, fams, styles = parts
        for fam in fams.split(','):
            for sty in styles.split(','):
                table.setdefault((fam.strip(), sty.strip()), (path, int(idx or 0)))
    return table


def font_path(family, style):
    t = font_table()
    if (family, style) in t and os.path.exists(t[(family, style)][0]):
        return t[(family, style)]
    p = FONT_FALLBACK_PATHS.get((family, style))
    if p and os.path.exists(p[0]):
        return p
    raise SystemExit('font not found: %s %s' % (family, style))


@lru_cache(maxsize=None)
def cmap_of(path, idx):
    if TTFont is None:
        return None
    if path.endswith('.ttc'):
        f = TTCollection(path).fonts[idx]
    else:
        f = TTFont(path, lazy=True)
    return frozenset(f.getBestCmap().keys())


@lru_cache(maxsize=None)
def pil_font(path, idx, size):
    return ImageFont.truetype(path, size, index=idx)


class Face:
    """A font with per-character fallback (e.g. subscripts missing in Noto CJK)."""

    def __init__(self, chain, size):
        self.size = size
        self.chain = chain
        self.fonts = [pil_font(p, i, size) for p, i in chain]
        self.cmaps = [cmap_of(p, i) for p, i in chain]

    def _fidx(self, ch):
        if ch == ' ':
            return 0
        for k, cm in enumerate(self.cmaps):
            if cm is None or ord(ch) in cm:
                return k
        return 0

    def runs(self, text):
        out = []
        for ch in text:
            k = self._fidx(ch)
            if out and out[-1][1] == k:
                out[-1][0] += ch
            else:
                out.append([ch, k])
        return [(t, self.fonts[k]) for t, k in out]

    def length(self, text):
        return sum(f.getlength(t) for t, f in self.runs(text))

    def draw(self, d, x, base, text, fill=255):
        for t, f in self.runs(text):
            d.text((x, base), t, font=f, fill=fill, anchor='ls')
            x += f.getlength(t)

    def ink_bbox(self, x, base, text):
        bb = None
        for t, f in self.runs(text):
            if t.strip():
                b = f.getbbox(t, anchor='ls')
                b = (x + b[0], base + b[1], x + b[2], base + b[3])
                bb = b if bb is None else (min(bb[0], b[0]), min(bb[1], b[1]), max(bb[2], b[2]), max(bb[3], b[3]))
            x += f.getlength(t)
        if bb is None:
            bb = (x, base - self.size * 0.7, x + 1, base)
        return bb

    def char_boxes(self, x, base, text):
        out = []
        for t, f in self.runs(text):
            for k, ch in enumerate(t):
                if ch.strip():
                    ox = x + f.getlength(t[:k])
                    b = f.getbbox(ch, anchor='ls')
                    if b[2] > b[0] and b[3] > b[1]:
                        out.append((ox + b[0], base + b[1], ox + b[2], base + b[3]))
            x += f.getlength(t)
        return out


def make_face(name, size, bold=False, lang='zh'):
    fam, reg, bst = FONT_WANT[name]
    chain = [font_path(fam, bst if bold else reg)]
    chain.append(font_path('DejaVu Sans', 'Bold' if bold else 'Book'))
    if lang == 'en' or name not in ('notosans', 'notoserif'):
        chain.append(font_path('Noto Sans CJK SC', 'Regular'))
    return Face(tuple(chain), int(size))


# --------------------------------------------------------------------------- question analysis

def is_zh(q):
    return bool(CJK_RE.search(q))


def cjk_count(s):
    return len(CJK_RE.findall(s))


def em_est(s):
    e = 0.0
    for ch in s:
        if FULLWIDTH.match(ch):
            e += 1.0
        elif ch == ' ':
            e += 0.3
        else:
            e += 0.55
    return e


QPHRASE_ZH = ('求', '则', '问', '写出', '计算')
QPHRASE_EN = ('What', 'Which', 'How', 'Find', 'Calculate', 'Why', 'Who', 'When')


def find_splits(q):
    """Natural split points: list of (end, start): a piece ends at `end`, the next starts at `start`.
    start == end + 1 means the split is at a space and the space is the break."""
    res = {}
    depth = 0
    inq = False
    depth_at = []
    for i, ch in enumerate(q):
        if ch in OPENERS:
            depth += 1
        elif ch in CLOSERS:
            depth = max(0, depth - 1)
        elif ch == '"':
            inq = not inq
        depth_at.append(depth + (1 if inq else 0))
        if depth or inq or i == len(q) - 1:
            continue
        if ch in '，：。；？！':
            res[i + 1] = i + 1 + (1 if q[i + 1] == ' ' else 0)
        elif ch in ',:;?!.' and q[i + 1] == ' ':
            res[i + 1] = i + 2
    for m in re.finditer(r' (?=(?:%s)\b)' % '|'.join(QPHRASE_EN), q):
        p = m.start()
        if depth_at[p] == 0 and p not in res and (p - 1) not in res.values():
            res[p] = p + 1
    for m in re.finditer(r' (?=[求则问])', q):
        p = m.start()
        if depth_at[p] == 0 and p not in res:
            res[p] = p + 1
    return sorted(res.items())


def pieces_of(q):
    sp = find_splits(q)
    pieces, joins = [], []
    st = 0
    for end, nst in sp:
        pieces.append(q[st:end])
        joins.append(q[end:nst])  # '' or ' '
        st = nst
    pieces.append(q[st:])
    return pieces, joins, sp


def is_paren(p):
    return len(p) > 2 and p[0] in '（(' and p[-1] in '）)'


def starts_q(p):
    return p.startswith(QPHRASE_ZH) or p.startswith(QPHRASE_EN)


def display_ok(pieces, j):
    if j < 1:
        return False
    p, prev = pieces[j], pieces[j - 1]
    if len(p) > 40 or starts_q(p):
        return False
    if prev.rstrip().endswith(('：', ':')):
        return True
    if is_paren(p) and re.search(r'\d', p):
        return True
    if is_paren(p) and '/' in p:
        return True
    if re.search(r'[=<>≤≥÷×√∩∪²°]', p) and cjk_count(p) <= 4:
        return True
    return False


class QInfo:
    def __init__(self, row):
        self.id = row['id']
        self.subject = row.get('subject', '')
        self.q = row['question']
        self.lang = 'zh' if is_zh(self.q) else 'en'
        self.pieces, self.joins, self.splits = pieces_of(self.q)
        n = len(self.pieces)
        self.n = n
        self.disp = [j for j in range(1, n) if display_ok(self.pieces, j)]
        self.qsplits = [k for k in range(1, n) if self.question_ok(k)]
        self.combos = self._combos()

    def text(self, a, b):
        """The bank substring covering pieces a..b-1."""
        if a >= b:
            return ''
        st = 0 if a == 0 else self.splits[a - 1][1]
        en = len(self.q) if b == self.n else self.splits[b - 1][0]
        return self.q[st:en]

    def question_ok(self, k):
        if is_paren(self.pieces[k]):
            return False
        rest = self.text(k, self.n)
        main = rest
        if is_paren(self.pieces[-1]) and k < self.n - 1:
            main = self.text(k, self.n - 1)
        if starts_q(main):
            return True
        if main.rstrip().endswith(('？', '?')):
            return True
        if self.lang == 'zh' and main.rstrip().endswith('。') and cjk_count(main) >= 4:
            return True
        if self.lang == 'en' and main.rstrip().endswith('.') and len(re.findall(r'[A-Za-z]{2,}', main)) >= 3:
            return True
        return False

    def _combos(self):
        c = set()
        if self.n < 2:
            return c
        wmin = 15.0 if self.lang == 'zh' else 16.0
        if self.disp:
            c.add('D')
        if self.qsplits:
            c.update(['G', 'F'])
            for j in self.disp:
                if any(k > j for k in self.qsplits):
                    c.update(['DG', 'DF'])
        for k in range(1, self.n):
            if max(em_est(self.text(0, k)), em_est(self.text(k, self.n))) >= wmin:
                c.add('W')
                if k in self.qsplits:
                    c.update(['WG', 'WF'])
        if self.disp and self.disp[-1] == self.n - 1 and em_est(self.text(0, self.n - 1)) >= wmin:
            c.add('WD')
        return c


def load_bank(path):
    rows = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


# --------------------------------------------------------------------------- global plan

def stratified(rng, n, shares):
    """List of n labels with the given shares, shuffled."""
    labels = []
    keys = list(shares)
    counts = [int(round(shares[k] * n)) for k in keys]
    while sum(counts) > n:
        counts[int(np.argmax(counts))] -= 1
    while sum(counts) < n:
        counts[int(np.argmin(counts))] += 1
    for k, c in zip(keys, counts):
        labels += [k] * c
    rng.shuffle(labels)
    return labels


def build_plan(seed, infos):
    """Per-slot plan (question, recipe, centre zone, framing, page flags). Depends only on seed and bank."""
    rng = np.random.default_rng([seed, 424242])
    fr = [x for x in infos if x.combos]
    en = [x for x in fr if x.lang == 'en'] * 2
    zh = [x for x in fr if x.lang == 'zh'] * 2
    rng.shuffle(en)
    rng.shuffle(zh)
    # avoid the same question twice in a row
    slots = []
    while en or zh:
        b = min(BLOCK, len(en) + len(zh))
        n_en = min(len(en), int(round(b / 3.0)))
        pos = set()
        if n_en:
            for k in range(n_en):
                pos.add(min(b - 1, int((k + rng.uniform(0.05, 0.95)) * b / n_en)))
            while len(pos) < n_en:
                pos.add(int(rng.integers(0, b)))
        block = []
        for p in range(b):
            if (p in pos and en) or not zh:
                block.append(en.pop())
            else:
                block.append(zh.pop())
        slots.append(block)
    plan = []
    for bi, block in enumerate(slots):
        b = len(block)
        brng = np.random.default_rng([seed, 5150, bi])
        target = {'D': 0.34 * b, 'G': 0.30 * b, 'F': 0.25 * b, 'W': 0.24 * b}
        got = {k: 0 for k in target}
        order = sorted(range(b), key=lambda t: (len(block[t].combos), brng.random()))
        recipe = [None] * b
        for t in order:
            best, bs = None, -1e9
            for c in sorted(block[t].combos):
                kinds = [ch for ch in c]
                sc = sum(max(0.0, target[k] - got[k]) / target[k] for k in kinds)
                sc *= (0.6 if len(kinds) > 1 else 1.0)
                sc += brng.random() * 0.15
                if sc > bs:
                    best, bs = c, sc
            recipe[t] = best
            for k in best:
                got[k] += 1
        zones = stratified(brng, b, {'gap': 0.4, 'glyph': 0.4, 'other': 0.2})
        framing = stratified(brng, b, {'close': 0.35, 'medium': 0.45, 'far': 0.20})
        twocol = stratified(brng, b, {True: 0.06, False: 0.94})
        numbered = stratified(brng, b, {False: 0.2, True: 0.8})
        header = stratified(brng, b, {True: 0.3, False: 0.7})
        npieces = stratified(brng, b, {True: 0.36, False: 0.64})
        # close-ups of two-column pages show the other column too: keep planned two-column pages off close framing
        for t in range(b):
            if twocol[t] and framing[t] == 'close':
                for u in range(b):
                    if not twocol[u] and framing[u] != 'close':
                        twocol[t], twocol[u] = twocol[u], twocol[t]
                        break
        for t in range(b):
            plan.append(dict(info=block[t], recipe=recipe[t], zone=zones[t], framing=framing[t],
                             twocol=bool(twocol[t]), numbered=bool(numbered[t]), header=bool(header[t]),
                             npieces=bool(npieces[t])))
    return plan


# --------------------------------------------------------------------------- layout

def tokenize(text):
    return re.findall(r' +|[\u3000-\u303f\uff00-\uffef\u4e00-\u9fff“”‘’《》…—]|[^ \u3000-\u303f\uff00-\uffef\u4e00-\u9fff“”‘’《》…—]+', text)


def wrap(face, text, w1, w2):
    toks = tokenize(text)
    lines = []
    cur = ''
    w = w1
    for tok in toks:
        if tok.startswith(' '):
            if cur:
                cur += tok
            continue
        cand = cur + tok
        if not cur.strip() or face.length(cand) <= w:
            cur = cand
        elif len(tok) == 1 and tok in NO_START:
            cur = cand  # hanging punctuation
        else:
            carry = ''
            if cur and cur[-1] in NO_END:
                carry, cur = cur[-1], cur[:-1]
            lines.append(cur.rstrip(' '))
            cur = carry + tok
            w = w2
    if cur.strip():
        lines.append(cur.rstrip(' '))
    return lines


class Pg:
    """Page-wide typography settings."""
    pass


def base_of(pg, ytop):
    return ytop + (pg.P - pg.F) / 2.0 + 0.86 * pg.F


def layout_problem(spec, x, y, col_w, pg):
    """Lay out one problem at column x, top y. Returns a record with items and geometry."""
    face = pg.face
    P, F = pg.P, pg.F
    items = []
    figs = []
    rules = []
    lab = spec.get('label')
    lw = (pg.lface.length(lab) + pg.label_gap) if lab else 0.0
    first_x = x + lw
    body_x = x + lw if pg.hanging else x
    right = x + col_w
    ycur = y
    first = True
    brk = None  # pending extra-spaced break kind
    seg = 0
    for blk in spec['blocks']:
        t = blk[0]
        if t == 'text':
            lx0 = first_x if first else body_x
            lines = wrap(face, blk[1], right - lx0, right - body_x)
            for li, s in enumerate(lines):
                lx = first_x if first else body_x
                b = base_of(pg, ycur)
                items.append(dict(role='text', x=lx, base=b, text=s, face=face, seg=seg, line=li,
                                  brk=(brk if li == 0 else None)))
                if first and lab:
                    items.append(dict(role='label', x=x, base=b, text=lab, face=pg.lface, seg=-1, line=0, brk=None))
                first = False
                ycur += P
            brk = None
            seg += 1
        elif t == 'space':
            ycur += blk[1] * P
            brk = blk[2]
        elif t == 'display':
            for li, s in enumerate(blk[1]):
                w = face.length(s)
                if blk[2] == 'center':
                    lx = max(body_x + F, x + (col_w - w) / 2.0)
                else:
                    lx = body_x + blk[3] * F
                if lx + w > right:
                    lx = max(body_x, right - w)
                b = base_of(pg, ycur)
                items.append(dict(role='display', x=lx, base=b, text=s, face=face, seg=seg, line=0,
                                  brk=(brk if li == 0 else None)))
                ycur += P
                seg += 1
                brk = None
        elif t == 'figure':
            kind, hu, align, fseed = blk[1], blk[2], blk[3], blk[4]
            pad1, pad2 = blk[5] * P, blk[6] * P
            h = hu * P
            w = min(h * FIG_ASPECT.get(kind, 1.2), right - body_x - F)
            h = min(h, w / FIG_ASPECT.get(kind, 1.2) * 1.05) if w < h * FIG_ASPECT.get(kind, 1.2) else h
            if align == 'center':
                fx = body_x + (right - body_x - w) / 2.0
            elif align == 'right':
                fx = right - w - F * 1.5
            else:
                fx = body_x + F * 1.5
            fy = ycur + pad1
            figs.append(dict(kind=kind, box=(fx, fy, fx + w, fy + h), seed=fseed))
            ycur += pad1 + h + pad2
            brk = 'figure'
    # score note
    if spec.get('score'):
        sc = spec['score']
        sw = face.length(sc)
        last = [it for it in items if it['role'] in ('text', 'display')][-1]
        lend = last['x'] + face.length(last['text'])
        mode = spec.get('score_mode', 'inline')
        if mode == 'inline' and lend + 0.4 * F + sw <= right:
            items.append(dict(role='score', x=lend + 0.4 * F, base=last['base'], text=sc, face=face, seg=-1, line=0, brk=None))
        elif lend + 1.0 * F + sw <= right:
            items.append(dict(role='score', x=right - sw, base=last['base'], text=sc, face=face, seg=-1, line=0, brk=None))
        else:
            items.append(dict(role='score', x=right - sw, base=base_of(pg, ycur), text=sc, face=face, seg=-1, line=0, brk=None))
            ycur += P
    for it in items:
        it['bbox'] = it['face'].ink_bbox(it['x'], it['base'], it['text'])
    bottom = ycur
    after = spec.get('after')
    if after:
        if after[0] == 'blank':
            ycur += after[1] * P
        elif after[0] == 'lines':
            for _ in range(after[1]):
                ycur += P
                yy = base_of(pg, ycur - P) + 0.15 * F
                rules.append((body_x, yy, right, yy))
    boxes = [it['bbox'] for it in items] + [f['box'] for f in figs]
    bb = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    return dict(items=items, figs=figs, rules=rules, bbox=bb, top=y, bottom=bottom, end=ycur,
                x=x, col_w=col_w, body_x=body_x, spec=spec)


# --------------------------------------------------------------------------- figures

FIG_ASPECT = {'triangle': 1.4, 'circle': 1.0, 'rect': 1.6, 'cube': 1.0, 'numline': 3.2, 'axes': 1.2,
              'circuit': 1.5, 'beaker': 0.85, 'block': 2.0, 'ball': 0.7, 'bag': 1.0, 'globe': 1.0}


def figure_kind_for(q, rng):
    rules = [
        (r'三角形|triangle|斜边', 'triangle'), (r'圆', 'circle'), (r'长方形', 'rect'), (r'正方体', 'cube'),
        (r'inequality|不等式', 'numline'), (r'函数|slope|数列|一次函数|集合|直线', 'axes'),
        (r'电阻|电压|电流|灯泡|电能|串联|并联', 'circuit'),
        (r'溶液|氧气|燃烧|化学|pH|H₂O|CO₂|氯化钠|moles|盐酸|空气', 'beaker'),
        (r'拉力|物体|合外力|重力|功率|object', 'block'), (r'dropped|ball is', 'ball'), (r'bag', 'bag'),
        (r'地球|地图|纬度|回归线|比例尺', 'globe'),
    ]
    for pat, k in rules:
        if re.search(pat, q):
            return k
    return ['triangle', 'axes', 'circle', 'rect', 'numline', 'cube'][int(rng.integers(0, 6))]


def arrow(d, p, q, lw, head):
    d.line([p, q], fill=255, width=lw)
    ang = math.atan2(q[1] - p[1], q[0] - p[0])
    a1 = (q[0] - head * math.cos(ang - 0.4), q[1] - head * math.sin(ang - 0.4))
    a2 = (q[0] - head * math.cos(ang + 0.4), q[1] - head * math.sin(ang + 0.4))
    d.polygon([q, a1, a2], fill=255)


def dashed(d, p, q, lw, dash):
    L = math.hypot(q[0] - p[0], q[1] - p[1])
    n = max(1, int(L / (2 * dash)))
    for k in range(n):
        t0, t1 = (2 * k) / (2 * n), (2 * k + 1) / (2 * n)
        d.line([(p[0] + (q[0] - p[0]) * t0, p[1] + (q[1] - p[1]) * t0),
                (p[0] + (q[0] - p[0]) * t1, p[1] + (q[1] - p[1]) * t1)], fill=255, width=lw)


def draw_figure(d, fig, pg):
    kind = fig['kind']
    x0, y0, x1, y1 = fig['box']
    w, h = x1 - x0, y1 - y0
    r = np.random.default_rng(fig['seed'])
    lw = max(2, int(round(pg.F * r.uniform(0.05, 0.08))))
    lf = pg.figface
    labels = r.random() < 0.7

    def lab(t, x, y):
        if labels:
            lf.draw(d, x, y, t)

    fs = lf.size
    if kind == 'triangle':
        A = (x0 + 0.15 * w, y0 + 0.12 * h)
        C = (x0 + 0.15 * w, y1 - 0.18 * h)
        B = (x1 - 0.1 * w, y1 - 0.18 * h)
        if r.random() < 0.5:
            A = (x0 + r.uniform(0.3, 0.6) * w, y0 + 0.1 * h)
        d.line([A, B, C, A], fill=255, width=lw, joint='curve')
        m = 0.1 * h
        if A[0] == C[0]:
            d.line([(C[0] + m, C[1]), (C[0] + m, C[1] - m), (C[0], C[1] - m)], fill=255, width=max(1, lw - 1))
        lab('A', A[0] - fs * 0.9, A[1] + fs * 0.4)
        lab('B', B[0] - fs * 0.2, B[1] + fs * 1.0)
        lab('C', C[0] - fs * 0.9, C[1] + fs * 0.9)
    elif kind == 'circle':
        cx, cy, rad = x0 + w / 2, y0 + h / 2, min(w, h) * 0.42
        d.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], outline=255, width=lw)
        ang = r.uniform(-0.6, 0.6)
        d.line([(cx, cy), (cx + rad * math.cos(ang), cy - rad * math.sin(ang))], fill=255, width=lw)
        d.ellipse([cx - lw * 1.5, cy - lw * 1.5, cx + lw * 1.5, cy + lw * 1.5], fill=255)
        lab('O', cx - fs * 0.9, cy + fs * 0.9)
    elif kind == 'rect':
        d.rectangle([x0 + 0.1 * w, y0 + 0.15 * h, x1 - 0.1 * w, y1 - 0.15 * h], outline=255, width=lw)
        if r.random() < 0.5:
            dashed(d, (x0 + 0.1 * w, y0 + 0.15 * h), (x1 - 0.1 * w, y1 - 0.15 * h), max(1, lw - 1), lw * 3)
        lab('A', x0 + 0.1 * w - fs * 0.9, y0 + 0.15 * h)
        lab('B', x1 - 0.1 * w + fs * 0.2, y0 + 0.15 * h)
        lab('C', x1 - 0.1 * w + fs * 0.2, y1 - 0.15 * h + fs * 0.6)
    elif kind == 'cube':
        s = min(w, h) * 0.62
        ox, oy = x0 + 0.1 * w, y1 - 0.08 * h
        dx, dy = s * 0.38, -s * 0.3
        f = [(ox, oy), (ox + s, oy), (ox + s, oy - s), (ox, oy - s)]
        b = [(px + dx, py + dy) for px, py in f]
        d.line(f + [f[0]], fill=255, width=lw)
        d.line([f[3], b[3], b[2], f[2]], fill=255, width=lw)
        d.line([f[1], b[1], b[2]], fill=255, width=lw)
        dashed(d, f[0], b[0], max(1, lw - 1), lw * 3)
        dashed(d, b[0], b[1], max(1, lw - 1), lw * 3)
        dashed(d, b[0], b[3], max(1, lw - 1), lw * 3)
    elif kind == 'numline':
        yy = y0 + 0.55 * h
        arrow(d, (x0 + 0.03 * w, yy), (x1 - 0.02 * w, yy), lw, fs * 0.6)
        n = int(r.integers(6, 10))
        step = (w * 0.85) / n
        z = int(r.integers(1, n - 2))
        for k in range(n):
            tx = x0 + 0.06 * w + k * step
            d.line([(tx, yy - 0.12 * h), (tx, yy)], fill=255, width=max(1, lw - 1))
            if k == z:
                lab('O', tx - fs * 0.35, yy + fs * 1.1)
        px = x0 + 0.06 * w + int(r.integers(z + 1, n)) * step
        rad = 0.07 * h + lw
        if r.random() < 0.5:
            d.ellipse([px - rad, yy - rad, px + rad, yy + rad], outline=255, width=lw)
        else:
            d.ellipse([px - rad, yy - rad, px + rad, yy + rad], fill=255)
        side = 1 if r.random() < 0.5 else -1
        ex = x1 - 0.05 * w if side > 0 else x0 + 0.05 * w
        d.line([(px, yy - rad), (px, yy - 0.35 * h), (ex, yy - 0.35 * h)], fill=255, width=max(1, lw - 1))
        lab('x', x1 - fs * 0.8, yy + fs * 1.1)
    elif kind == 'axes':
        ox, oy = x0 + 0.25 * w, y0 + 0.7 * h
        arrow(d, (x0 + 0.05 * w, oy), (x1 - 0.03 * w, oy), lw, fs * 0.55)
        arrow(d, (ox, y1 - 0.03 * h), (ox, y0 + 0.03 * h), lw, fs * 0.55)
        lab('x', x1 - fs * 0.7, oy + fs * 1.1)
        lab('y', ox + fs * 0.35, y0 + fs * 0.9)
        lab('O', ox - fs * 0.9, oy + fs * 1.0)
        if r.random() < 0.5:
            d.line([(x0 + 0.1 * w, y1 - 0.05 * h), (x1 - 0.15 * w, y0 + 0.1 * h)], fill=255, width=lw)
        else:
            pts = []
            for k in range(40):
                t = -1 + 2 * k / 39.0
                pts.append((ox + 0.15 * w + t * 0.45 * w, oy - 0.05 * h - (1 - t * t) * 0.55 * h))
            d.line(pts, fill=255, width=lw, joint='curve')
    elif kind == 'circuit':
        L, T, R_, B = x0 + 0.08 * w, y0 + 0.12 * h, x1 - 0.08 * w, y1 - 0.12 * h
        mx = (L + R_) / 2
        gap = 0.05 * w
        d.line([(L, T), (mx - gap, T)], fill=255, width=lw)
        d.line([(mx + gap, T), (R_, T), (R_, B), (L, B), (L, T)], fill=255, width=lw)
        d.line([(mx - gap, T - 0.16 * h), (mx - gap, T + 0.16 * h)], fill=255, width=lw)
        d.line([(mx + gap, T - 0.08 * h), (mx + gap, T + 0.08 * h)], fill=255, width=lw * 2)
        rw, rh = 0.22 * w, 0.11 * h
        nres = int(r.integers(1, 3))
        for k in range(nres):
            cx = L + (k + 1) * (R_ - L) / (nres + 1)
            d.rectangle([cx - rw / 2, B - rh / 2, cx + rw / 2, B + rh / 2], fill=0, outline=255, width=lw)
        if r.random() < 0.6:
            sy = (T + B) / 2
            d.rectangle([R_ - lw * 3, sy - 0.1 * h, R_ + lw * 3, sy + 0.1 * h], fill=0)
            d.line([(R_, sy - 0.1 * h), (R_ + 0.07 * w, sy + 0.08 * h)], fill=255, width=lw)
    elif kind == 'beaker':
        L, T, R_, B = x0 + 0.15 * w, y0 + 0.08 * h, x1 - 0.15 * w, y1 - 0.05 * h
        d.line([(L - 0.05 * w, T), (L, T + 0.04 * h), (L, B), (R_, B), (R_, T)], fill=255, width=lw, joint='curve')
        lv = T + r.uniform(0.35, 0.55) * (B - T)
        d.line([(L, lv), (R_, lv)], fill=255, width=max(1, lw - 1))
        for k in range(1, 5):
            yy = T + k * (B - T) / 6
            d.line([(L, yy), (L + 0.12 * w, yy)], fill=255, width=max(1, lw - 1))
        for k in range(int(r.integers(3, 7))):
            bx, by = r.uniform(L + 0.2 * w, R_ - 0.1 * w), r.uniform(lv + 0.05 * h, B - 0.05 * h)
            rr = r.uniform(0.015, 0.035) * h + 1
            d.ellipse([bx - rr, by - rr, bx + rr, by + rr], outline=255, width=max(1, lw - 1))
    elif kind == 'block':
        gy = y1 - 0.2 * h
        d.line([(x0 + 0.02 * w, gy), (x1 - 0.02 * w, gy)], fill=255, width=lw)
        for k in range(14):
            hx = x0 + 0.04 * w + k * 0.068 * w
            d.line([(hx, gy), (hx - 0.04 * w, gy + 0.12 * h)], fill=255, width=max(1, lw - 1))
        bw, bh = 0.3 * w, 0.45 * h
        bx = x0 + 0.25 * w
        d.rectangle([bx, gy - bh, bx + bw, gy], outline=255, width=lw)
        arrow(d, (bx + bw, gy - bh / 2), (x1 - 0.08 * w, gy - bh / 2), lw, fs * 0.6)
    elif kind == 'ball':
        cx = x0 + w * 0.5
        rad = 0.1 * h
        d.ellipse([cx - rad, y0 + 0.05 * h, cx + rad, y0 + 0.05 * h + 2 * rad], outline=255, width=lw)
        dashed(d, (cx, y0 + 0.05 * h + 2 * rad + lw), (cx, y1 - 0.15 * h), max(1, lw - 1), lw * 3)
        arrow(d, (cx + 0.3 * w, y0 + 0.3 * h), (cx + 0.3 * w, y0 + 0.6 * h), lw, fs * 0.5)
        d.line([(x0 + 0.05 * w, y1 - 0.1 * h), (x1 - 0.05 * w, y1 - 0.1 * h)], fill=255, width=lw)
    elif kind == 'bag':
        d.rounded_rectangle([x0 + 0.1 * w, y0 + 0.2 * h, x1 - 0.1 * w, y1 - 0.05 * h], radius=0.15 * w, outline=255, width=lw)
        d.line([(x0 + 0.3 * w, y0 + 0.2 * h), (x0 + 0.4 * w, y0 + 0.05 * h), (x1 - 0.4 * w, y0 + 0.05 * h), (x1 - 0.3 * w, y0 + 0.2 * h)], fill=255, width=lw)
        for k in range(8):
            bx = x0 + 0.25 * w + (k % 4) * 0.16 * w
            by = y0 + 0.45 * h + (k // 4) * 0.22 * h
            rr = 0.06 * w
            if k < 3:
                d.ellipse([bx - rr, by - rr, bx + rr, by + rr], fill=255)
            else:
                d.ellipse([bx - rr, by - rr, bx + rr, by + rr], outline=255, width=max(1, lw - 1))
    elif kind == 'globe':
        cx, cy, rad = x0 + w / 2, y0 + h / 2, min(w, h) * 0.42
        d.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], outline=255, width=lw)
        d.ellipse([cx - rad, cy - rad * 0.25, cx + rad, cy + rad * 0.25], outline=255, width=max(1, lw - 1))
        a = math.radians(23.5)
        d.line([(cx - math.sin(a) * rad * 1.25, cy - math.cos(a) * rad * 1.25),
                (cx + math.sin(a) * rad * 1.25, cy + math.cos(a) * rad * 1.25)], fill=255, width=lw)


# --------------------------------------------------------------------------- page content

SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'biology': '生物', 'geography': '地理',
           'history': '历史', 'chinese': '语文', 'english': '英语'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry', 'biology': 'Biology',
           'geography': 'Geography', 'history': 'History', 'chinese': 'Chinese', 'english': 'English'}
CN_NUM = '一二三四五六七八'
SECT_ZH = ['选择题', '填空题', '计算题', '解答题', '简答题', '综合题', '基础题', '应用题']
SECT_EN = ['Short answer', 'Calculation', 'Problem solving', 'Structured questions', 'Review', 'Practice']


def label_text(style, n):
    return {'dot': '%d.' % n, 'fdot': '%d．' % n, 'dun': '%d、' % n, 'paren': '（%d）' % n,
            'q': 'Q%d' % n, 'rparen': '%d)' % n, 'eparen': '(%d)' % n, 'qdot': 'Q%d.' % n}[style]


def score_text(rng, lang, fmt=0):
    if lang == 'zh':
        return ('（%d分）' if fmt == 0 else '(%d分)') % int(rng.choice([2, 3, 4, 5, 6, 8, 10]))
    k = int(rng.choice([1, 2, 3, 4, 5]))
    return ('(%d marks)' % k if k > 1 else '(1 mark)') if fmt == 0 else '[%d]' % k


def section_header(rng, lang, k):
    if lang == 'zh':
        name = SECT_ZH[int(rng.integers(0, len(SECT_ZH)))]
        num = CN_NUM[k % len(CN_NUM)]
        v = rng.random()
        if v < 0.45:
            per = int(rng.choice([3, 4, 5, 6]))
            return '%s、%s（每小题%d分，共%d分）' % (num, name, per, per * int(rng.integers(3, 7)))
        if v < 0.75:
            return '%s、%s（共%d分）' % (num, name, int(rng.choice([12, 16, 20, 24, 30])))
        return '%s、%s' % (num, name)
    letter = 'ABCDEF'[k % 6]
    name = SECT_EN[int(rng.integers(0, len(SECT_EN)))]
    v = rng.random()
    if v < 0.5:
        return 'Part %s: %s (%d marks)' % (letter, name, int(rng.choice([8, 10, 12, 15, 20])))
    if v < 0.8:
        return 'Section %s - %s' % (letter, name)
    return 'Part %s  %s' % (letter, name)


def page_titles(rng, lang, style, subject):
    if lang == 'zh':
        s = SUBJ_ZH.get(subject, '综合')
        g = CN_NUM[int(rng.integers(0, 3))]
        if style == 'exam':
            t = '%d—%d学年第%s学期期%s考试' % ((y := int(rng.integers(2019, 2025))), y + 1,
                                        rng.choice(['一', '二']), rng.choice(['中', '末']))
            return [t, '%s年级%s试卷' % (rng.choice(['七', '八', '九', '高一']), s)], '班级：________  姓名：________  得分：______'
        if style == 'worksheet':
            return ['%s课时练习（%d）' % (s, int(rng.integers(1, 20)))], '姓名：__________  日期：______'
        return ['习题 %d.%d' % (int(rng.integers(1, 9)), int(rng.integers(1, 6)))], None
    s = SUBJ_EN.get(subject, 'General Review')
    if style == 'exam':
        return ['%s Test - Term %d' % (s, int(rng.integers(1, 4)))], 'Name: ______________   Class: ______   Score: ____'
    if style == 'worksheet':
        return ['Year %d %s - Homework Sheet %d' % (int(rng.integers(7, 11)), s, int(rng.integers(1, 12)))], 'Name: ______________   Date: ________'
    return ['Exercise %d.%d' % (int(rng.integers(1, 9)), int(rng.integers(1, 6)))], None


def pieces_blocks(info, recipe, rng, for_neighbour=False):
    """Blocks of a problem printed in pieces, following a recipe (combination of D, G, F, W)."""
    n = info.n
    blocks = []
    D = 'D' in recipe
    G = 'G' in recipe
    Fg = 'F' in recipe
    W = 'W' in recipe
    if (G or Fg) and info.qsplits:
        ks = info.qsplits
        if D:
            ks = [k for k in ks if any(j < k for j in info.disp)] or ks
        pref = [k for k in ks if starts_q(info.pieces[k])]
        k = int(rng.choice(pref if pref and rng.random() < 0.7 else ks))
    else:
        k = None
    j = j2 = None
    if D and info.disp:
        js = [jj for jj in info.disp if k is None or jj < k]
        if W:
            js = [info.n - 1] if info.disp[-1] == info.n - 1 else js
        if js:
            j = int(rng.choice(js))
            j2 = j
            while (j2 + 1 in info.disp) and (k is None or j2 + 1 < k) and not W and rng.random() < 0.8:
                j2 += 1
    if W and not (G or Fg) and j is None:
        # paragraph break at a split that leaves a long segment
        cands = [kk for kk in range(1, n)
                 if max(em_est(info.text(0, kk)), em_est(info.text(kk, n))) >= 13]
        k = int(rng.choice(cands)) if cands else int(rng.integers(1, n))
    # build
    start = 0
    if j is not None:
        blocks.append(('text', info.text(0, j)))
        disp_lines = [info.pieces[t] for t in range(j, j2 + 1)]
        if len(disp_lines) > 1 and rng.random() < 0.35 and sum(em_est(s) for s in disp_lines) < 18:
            disp_lines = [info.text(j, j2 + 1)]
        align = 'center' if rng.random() < 0.55 else 'indent'
        blocks.append(('space', float(rng.uniform(0.6, 1.5)), 'display'))
        blocks.append(('display', disp_lines, align, float(rng.uniform(2.0, 5.0))))
        start = j2 + 1
        if start < n:
            if k is None or start < k:
                if k is None:
                    blocks.append(('space', float(rng.uniform(0.6, 1.5)), 'display'))
                    blocks.append(('text', info.text(start, n)))
                    start = n
                else:
                    blocks.append(('space', float(rng.uniform(0.6, 1.5)), 'display'))
                    blocks.append(('text', info.text(start, k)))
                    start = k
            else:
                start = k
    if k is not None and start <= k:
        if start < k:
            blocks.append(('text', info.text(start, k)))
        if Fg:
            kind = figure_kind_for(info.q, rng)
            hu = float(rng.uniform(2.6, 4.8)) if kind != 'numline' else float(rng.uniform(1.6, 2.4))
            align = ['left', 'center', 'right'][int(rng.integers(0, 3))]
            blocks.append(('figure', kind, hu, align, int(rng.integers(0, 2**31)),
                           float(rng.uniform(0.25, 0.6)), float(rng.uniform(0.2, 0.5))))
        elif G:
            blocks.append(('space', float(rng.uniform(1.0, 3.0)), 'gap'))
        else:
            blocks.append(('space', float(rng.uniform(0.6, 1.2)), 'para'))
        blocks.append(('text', info.text(k, n)))
        start = n
    elif start < n:
        blocks.append(('text', info.text(start, n)))
    return blocks


def printed_pieces(blocks):
    """The printed segments of a problem (text blocks and display lines) in reading order."""
    out = []
    for b in blocks:
        if b[0] == 'text':
            out.append(b[1])
        elif b[0] == 'display':
            out.extend(b[1])
    return out


def rejoin(q, segs):
    """Join printed segments back; returns (text, joiners) - joiner is ' ' where a space was the break."""
    pos = 0
    joins = []
    for i, s in enumerate(segs):
        if i > 0:
            if q.startswith(s, pos):
                joins.append('')
            elif q[pos] == ' ' and q.startswith(s, pos + 1):
                joins.append(' ')
                pos += 1
            else:
                return None, None
        elif not q.startswith(s, 0):
            return None, None
        pos += len(s)
    if pos != len(q):
        return None, None
    return ''.join(j + s for j, s in zip([''] + joins, segs)), joins


# --------------------------------------------------------------------------- page building

def choose_fonts(rng, lang):
    if lang == 'zh':
        name = 'notosans' if rng.random() < 0.5 else 'notoserif'
    else:
        name = ['dejavusans', 'dejavuserif', 'libsans', 'libserif', 'dejavucond'][int(rng.integers(0, 5))]
    return name


def build_page(rng, slot, infos_by_lang):
    info = slot['info']
    lang = info.lang
    pg = Pg()
    pg.lang = lang
    pg.style = ['exam', 'worksheet', 'textbook'][int(rng.integers(0, 3))]
    pg.F = int(rng.integers(32, 43))
    pg.P = int(round(pg.F * rng.uniform(1.42, 1.85)))
    fname = choose_fonts(rng, lang)
    pg.fontname = fname
    pg.face = make_face(fname, pg.F, lang=lang)
    bold_labels = rng.random() < 0.35
    pg.lface = make_face(fname, pg.F, bold=bold_labels, lang=lang)
    pg.hface = make_face(fname, int(pg.F * rng.uniform(1.0, 1.12)), bold=True, lang=lang)
    pg.tface = make_face(fname, int(pg.F * rng.uniform(1.2, 1.45)), bold=True, lang=lang)
    fig_font = 'dejavuserif' if rng.random() < 0.5 else 'libserif'
    pg.figface = make_face(fig_font, int(pg.F * 0.85), lang='en')
    if lang == 'zh':
        pg.numstyle = ['dot', 'fdot', 'dun', 'paren', 'dot', 'dun'][int(rng.integers(0, 6))]
    else:
        pg.numstyle = ['dot', 'q', 'rparen', 'eparen', 'qdot', 'dot'][int(rng.integers(0, 6))]
    if not slot['numbered']:
        pg.numstyle = None
    pg.label_gap = pg.F * (0.5 if pg.numstyle in ('q', 'qdot') else rng.uniform(0.15, 0.45))
    pg.hanging = rng.random() < 0.75
    recipe = slot['recipe']

    # framed problem blocks
    fblocks = pieces_blocks(info, recipe, rng)
    segs = printed_pieces(fblocks)
    txt, joins = rejoin(info.q, segs)
    assert txt == info.q, (info.id, segs)

    # column geometry
    twocol = slot['twocol']
    disp_w = max([pg.face.length(s) for b in fblocks if b[0] == 'display' for s in b[1]] + [0])
    lab_w = (pg.lface.length(label_text(pg.numstyle, 18)) + pg.label_gap) if pg.numstyle else 0
    col_em = None
    if 'W' in recipe:
        texts = [b[1] for b in fblocks if b[0] == 'text']
        lens = [pg.face.length(t) for t in texts]
        L = max(lens)
        good = []
        for _ in range(24):
            nl = 2 if (rng.random() < 0.75 or L < 30 * pg.F) else 3
            avail = L / rng.uniform(nl - 0.9, nl - 0.2)
            col = avail + lab_w
            if col / pg.F < 12.5 or col < disp_w + lab_w + 2 * pg.F:
                continue
            lines = [len(wrap(pg.face, t, col - lab_w, col - (lab_w if pg.hanging else 0))) for t in texts]
            tot = sum(lines) + sum(len(b[1]) for b in fblocks if b[0] == 'display')
            if max(lines) >= 2 and tot <= 5 and max(lines) <= 4:
                good.append(col / pg.F)
        if good:
            if twocol:
                pref = [c for c in good if c < 22]
            else:
                pref = [c for c in good if c >= 22] or [c for c in good if c >= 18]
            col_em = float(rng.choice(pref if pref else good))
        if col_em is not None:
            if col_em > 44:
                col_em = None
            elif col_em < 18 or (col_em < 22 and (twocol or rng.random() < 0.4)):
                twocol = True   # narrow columns: a two-column page
            else:
                twocol = False  # 18-22 em: a narrow single-column workbook page
    if col_em is None:
        if twocol:
            col_em = rng.uniform(15, 22)
        else:
            col_em = rng.uniform(30, 42) if lang == 'zh' else rng.uniform(30, 44)
            if slot['framing'] == 'close':
                col_em = rng.uniform(24, 34)
        need = (disp_w + lab_w) / pg.F + 2.5
        if col_em < need:
            col_em = need
            if twocol and col_em > 24:
                twocol = False
    pg.twocol = twocol
    col_w = col_em * pg.F
    margin_l = pg.F * rng.uniform(1.8, 4.0)
    margin_r = pg.F * rng.uniform(1.8, 4.0)
    gutter = pg.F * rng.uniform(1.5, 3.0)
    ncol = 2 if twocol else 1
    text_w = ncol * col_w + (ncol - 1) * gutter
    W = int(margin_l + text_w + margin_r)
    H = int(W * (1.414 if rng.random() < 0.75 else rng.uniform(1.3, 1.45)))
    H = max(H, int(pg.P * 26))
    pg.W, pg.H = W, H
    top = pg.F * rng.uniform(2.0, 4.0)
    bottom_lim = H - pg.F * rng.uniform(2.0, 4.0)
    cols = [margin_l + c * (col_w + gutter) for c in range(ncol)]

    # header
    header_items = []
    accent_rects = []
    rules = []
    titles, nameline = page_titles(rng, lang, pg.style, info.subject)
    y = top
    if pg.style == 'textbook':
        band_h = pg.P * 1.2
        if rng.random() < 0.7:
            accent_rects.append((margin_l, y, margin_l + text_w, y + band_h))
            pg.band_text_light = True
        else:
            pg.band_text_light = False
            rules.append((margin_l, y + band_h, margin_l + text_w, y + band_h, 2))
        b = y + (band_h + pg.tface.size * 0.7) / 2
        header_items.append(dict(role='title', x=margin_l + pg.F, base=b, text=titles[0], face=pg.tface, accent=True))
        y += band_h + pg.P * 0.6
    else:
        for t in titles:
            tw = pg.tface.length(t)
            b = y + pg.tface.size
            header_items.append(dict(role='title', x=margin_l + (text_w - tw) / 2, base=b, text=t, face=pg.tface, accent=False))
            y += pg.tface.size * 1.5
        if nameline:
            nw = pg.face.length(nameline)
            b = y + pg.F * 1.1
            header_items.append(dict(role='title', x=margin_l + max(0, (text_w - nw) / 2), base=b, text=nameline, face=pg.face, accent=False))
            y += pg.P * 1.2
        if rng.random() < 0.5:
            rules.append((margin_l, y, margin_l + text_w, y, 2))
            y += pg.P * 0.4
    if pg.style == 'textbook' and rng.random() < 0.8:
        pn = ('— %d —' if lang == 'zh' else '%d') % int(rng.integers(12, 180))
        header_items.append(dict(role='title', x=margin_l + (text_w - pg.face.length(pn)) / 2,
                                 base=H - pg.F * 1.2, text=pn, face=pg.face, accent=False))
        bottom_lim = min(bottom_lim, H - pg.F * 2.6)
    y_start = y + pg.P * 0.3

    # neighbours
    pool = [x for x in infos_by_lang[lang] if x.id != info.id]
    same = [x for x in pool if x.subject == info.subject]
    other = [x for x in pool if x.subject != info.subject]
    rng.shuffle(same)
    rng.shuffle(other)
    if rng.random() < 0.3:
        neigh = same + other
        rng.shuffle(neigh)
    else:
        neigh = same + other
    neigh = neigh[:40]

    score_page = rng.random() < 0.5
    score_fmt = int(rng.random() < 0.3)
    after_mode = ['none', 'blank', 'lines', 'mixed'][int(rng.integers(0, 4))]
    after_scale = 1.0
    if slot['framing'] == 'far' and rng.random() < 0.6:
        after_mode = 'none'
    if slot['framing'] == 'close' and rng.random() < 0.85:
        after_mode = ['blank', 'lines', 'mixed'][int(rng.integers(0, 3))]
        after_scale = float(rng.uniform(1.5, 2.2))
    if slot['framing'] == 'medium' and rng.random() < 0.6:
        after_mode = ['blank', 'lines', 'mixed'][int(rng.integers(0, 3))]
        after_scale = float(rng.uniform(1.0, 1.6))
    sp_base = rng.uniform(0.6, 1.4) if pg.numstyle is None else rng.uniform(0.25, 1.1)
    n0 = int(rng.integers(1, 14))

    def after_for():
        if after_mode == 'none' or rng.random() < 0.4 / after_scale:
            return None
        if after_mode == 'blank' or (after_mode == 'mixed' and rng.random() < 0.5):
            return ('blank', float(rng.uniform(1.0, 3.5) * after_scale))
        return ('lines', int(rng.integers(1, 4 if after_scale < 1.3 else 6)))

    def plain_spec(x):
        return dict(info=x, blocks=[('text', x.q)], score=(score_text(rng, lang, score_fmt) if score_page and rng.random() < 0.6 else None),
                    score_mode=('inline' if rng.random() < 0.5 else 'right'), after=after_for(), sp=sp_base * rng.uniform(0.8, 1.25))

    specs = [plain_spec(x) for x in neigh]
    framed_spec = dict(info=info, blocks=fblocks, score=(score_text(rng, lang, score_fmt) if score_page and rng.random() < 0.6 else None),
                       score_mode=('inline' if rng.random() < 0.5 else 'right'), after=after_for(),
                       sp=sp_base * rng.uniform(0.8, 1.25), framed=True)
    # section headers
    sect_at = set()
    if slot['header']:
        sect_at.add(0)
        if rng.random() < 0.6:
            sect_at.add(int(rng.integers(2, 9)))
    sect_k0 = int(rng.integers(0, 4))

    def run_layout(seq):
        """Place specs in columns; returns list of placed records (None when they did not fit)."""
        placed = []
        c = 0
        y = y_start
        num = n0
        sk = sect_k0
        for idx, sp in enumerate(seq):
            hdr = None
            if idx in sect_at:
                for _ in range(8):
                    hdr = section_header(rng_h, lang, sk)
                    if pg.hface.length(hdr) <= col_w:
                        break
                else:
                    hdr = ('%s、计算题' % CN_NUM[sk % len(CN_NUM)]) if lang == 'zh' else 'Part %s' % 'ABCDEF'[sk % 6]
                sk += 1
            for attempt in range(2):
                yy = y
                hrec = None
                if hdr:
                    yy += pg.P * 0.3
                    hrec = dict(role='section', x=cols[c], base=base_of(pg, yy), text=hdr, face=pg.hface)
                    yy += pg.P * 1.15
                spec = dict(sp)
                spec['label'] = label_text(pg.numstyle, num) if pg.numstyle else None
                rec = layout_problem(spec, cols[c], yy, col_w, pg)
                if rec['bottom'] <= bottom_lim:
                    break
                c += 1
                y = y_start
                if c >= ncol:
                    return placed
            rec['col'] = c
            rec['section'] = hrec
            placed.append(rec)
            num += 1
            y = rec['end'] + rec['spec']['sp'] * pg.P
        return placed

    rng_h_seed = int(rng.integers(0, 2**31))
    # choose framed position
    want_col = int(rng.integers(0, ncol))
    rng_h = np.random.default_rng(rng_h_seed)
    probe = run_layout(specs)
    rng_h = np.random.default_rng(rng_h_seed)
    in_col = [i for i, r in enumerate(probe) if r['col'] == want_col] or list(range(len(probe)))
    fr = slot['framing']
    if fr == 'far' and len(in_col) > 5:
        cand = in_col[len(in_col) // 3: max(len(in_col) // 3 + 1, (2 * len(in_col)) // 3)]
    elif len(in_col) >= 3 and rng.random() < 0.85:
        cand = in_col[1:-1]
    else:
        cand = in_col[:-1] if len(in_col) > 1 else in_col
    result = None
    tries = [int(rng.choice(cand))] + [int(t) for t in rng.permutation(cand)] + list(range(len(probe), -1, -1))
    for fpos in tries[:30]:
        seq = specs[:fpos] + [framed_spec] + specs[fpos:]
        # a neighbour printed in pieces
        npos = None
        if slot['npieces']:
            side = [p for p in (fpos - 1, fpos + 1) if 0 <= p < len(seq)]
            if side:
                npos = side[int(rng.integers(0, len(side)))]
                cand_n = [x for x in neigh[len(specs):] + pool if x.combos and x.id != info.id and
                          all(x.id != s['info'].id for s in seq)]
                nx = seq[npos]['info']
                if not nx.combos and cand_n:
                    nx = cand_n[int(rng.integers(0, len(cand_n)))]
                if nx.combos:
                    nrec = [c for c in ('D', 'G', 'F', 'W', 'DG') if c in nx.combos]
                    nr = nrec[int(rng.integers(0, len(nrec)))]
                    ns = dict(seq[npos])
                    ns['info'] = nx
                    ns['blocks'] = pieces_blocks(nx, nr, rng, for_neighbour=True)
                    ns['npieces'] = nr
                    seq[npos] = ns
                else:
                    npos = None
        rng_h = np.random.default_rng(rng_h_seed)
        placed = run_layout(seq)
        fi = [i for i, r in enumerate(placed) if r['spec'].get('framed')]
        if fi:
            result = (placed, fi[0])
            if placed[fi[0]]['col'] == want_col or ncol == 1:
                break
    if result is None:
        raise RuntimeError('framed problem does not fit on the page')
    placed, fidx = result
    pg.placed = placed
    pg.fidx = fidx
    pg.header_items = header_items
    pg.accent_rects = accent_rects
    pg.rules = rules
    pg.cols = cols
    pg.col_w = col_w
    pg.recipe = recipe
    pg.segs = segs
    pg.joins = joins
    pg.ncol = ncol
    return pg


# --------------------------------------------------------------------------- framed problem geometry

def framed_geometry(pg):
    rec = pg.placed[pg.fidx]
    items = [it for it in rec['items'] if it['role'] in ('text', 'display')]
    bands = []
    for a, b in zip(items[:-1], items[1:]):
        if b['brk']:
            y0 = a['bbox'][3]
            y1 = b['bbox'][1]
            bands.append(dict(kind=b['brk'], y0=y0, y1=y1))
    first_line = items[0]
    qline = None
    # question line: first line of the last printed segment
    last_seg = items[-1]['seg']
    for it in items:
        if it['seg'] == last_seg:
            qline = it
            break
    x_right = max(it['bbox'][2] for it in rec['items'])
    return dict(rec=rec, items=items, bands=bands, first=first_line, qline=qline,
                bbox=rec['bbox'], x_left=rec['body_x'], x_right=x_right)


def text_stats(pg):
    rec = pg.placed[pg.fidx]
    items = [it for it in rec['items'] if it['role'] in ('text', 'display')]
    nbreaks = sum(1 for it in items if it['brk'])
    seglines = {}
    for it in items:
        if it['role'] == 'text':
            seglines[it['seg']] = seglines.get(it['seg'], 0) + 1
    blocks = rec['spec']['blocks']
    kinds = set()
    if any(b[0] == 'display' for b in blocks):
        kinds.add('display')
    if any(b[0] == 'space' and b[2] == 'gap' for b in blocks):
        kinds.add('gap')
    if any(b[0] == 'figure' for b in blocks):
        kinds.add('drawing')
    if nbreaks == 1 and seglines and max(seglines.values()) >= 2 and 3 <= len(items) <= 5:
        kinds.add('wrapped')
    return kinds, len(items), nbreaks


# --------------------------------------------------------------------------- camera

def homography(pc, s, theta, a, b, Wp, Hp):
    T1 = np.array([[1, 0, -pc[0]], [0, 1, -pc[1]], [0, 0, 1]], float)
    S = np.diag([s, s, 1.0])
    c, sn = math.cos(theta), math.sin(theta)
    R = np.array([[c, -sn, 0], [sn, c, 0], [0, 0, 1]], float)
    Pm = np.array([[1, 0, 0], [0, 1, 0], [a, b, 1]], float)
    T2 = np.array([[1, 0, Wp / 2.0], [0, 1, Hp / 2.0], [0, 0, 1]], float)
    return T2 @ Pm @ R @ S @ T1


def apply_h(Hm, pts):
    pts = np.asarray(pts, float)
    ph = np.concatenate([pts, np.ones((len(pts), 1))], 1) @ Hm.T
    return ph[:, :2] / ph[:, 2:3]


def box_corners(boxes):
    b = np.asarray(boxes, float).reshape(-1, 4)
    return np.stack([b[:, [0, 1]], b[:, [2, 1]], b[:, [2, 3]], b[:, [0, 3]]], 1)  # N,4,2


def point_in_box(p, b, pad=0.0):
    return b[0] - pad <= p[0] <= b[2] + pad and b[1] - pad <= p[1] <= b[3] + pad


def pick_center(rng, zone, geo, pg):
    """Page point the photo centre should land on, and the zone it really is in."""
    bb = geo['bbox']
    if zone == 'gap' and geo['bands']:
        band = geo['bands'][int(rng.integers(0, len(geo['bands'])))]
        h = band['y1'] - band['y0']
        y = band['y0'] + h * rng.uniform(0.25, 0.75)
        xl = geo['x_left'] + pg.F * 0.5
        xr = max(geo['x_left'] + 2 * pg.F, min(geo['x_right'], geo['x_left'] + pg.col_w) - pg.F)
        x = float(np.clip(rng.normal((bb[0] + bb[2]) / 2.0, 0.2 * (bb[2] - bb[0])), xl, xr))
        return (x, y), 'gap'
    if zone in ('glyph', 'gap'):
        line = geo['first'] if rng.random() < 0.5 else geo['qline']
        boxes = line['face'].char_boxes(line['x'], line['base'], line['text'])
        cxs = np.array([(bx[0] + bx[2]) / 2.0 for bx in boxes])
        wts = np.exp(-((cxs - (bb[0] + bb[2]) / 2.0) / (0.3 * (bb[2] - bb[0]) + 1e-6)) ** 2) + 0.02
        b = boxes[int(rng.choice(len(boxes), p=wts / wts.sum()))]
        return ((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0), 'glyph'
    # elsewhere inside the bounding box
    gl = []
    for line in (geo['first'], geo['qline']):
        gl += line['face'].char_boxes(line['x'], line['base'], line['text'])
    for _ in range(200):
        p = (float(np.clip(rng.normal((bb[0] + bb[2]) / 2.0, 0.25 * (bb[2] - bb[0])), bb[0], bb[2])),
             rng.uniform(bb[1], bb[3]))
        if any(bd['y0'] <= p[1] <= bd['y1'] for bd in geo['bands']):
            continue
        if any(point_in_box(p, b) for b in gl):
            continue
        return p, 'other'
    return ((bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2), 'other'


def classify_center(p, geo):
    for bd in geo['bands']:
        if bd['y0'] < p[1] < bd['y1'] and geo['bbox'][0] <= p[0] <= geo['bbox'][2]:
            return 'gap'
    for line in (geo['first'], geo['qline']):
        for b in line['face'].char_boxes(line['x'], line['base'], line['text']):
            if point_in_box(p, b):
                return 'glyph'
    return 'other'


def framing_of(n):
    if n <= 3:
        return 'close'
    if n <= 7:
        return 'medium'
    return 'far'


def choose_camera(rng, pg, slot, Wp, Hp):
    geo = framed_geometry(pg)
    placed = pg.placed
    fidx = pg.fidx
    frec = placed[fidx]
    # line boxes per problem
    prob_lines = []
    prob_all = []
    for r in placed:
        lb = [it['bbox'] for it in r['items'] if it['role'] in ('text', 'display', 'label')]
        prob_lines.append(box_corners(lb))
        allb = [it['bbox'] for it in r['items']] + [f['box'] for f in r['figs']]
        prob_all.append(box_corners(allb))
    fb = geo['bbox']
    m = pg.F * 0.25
    fcorners = box_corners([(fb[0] - m, fb[1] - m, fb[2] + m, fb[3] + m)])[0]
    above = [i for i in range(len(placed)) if i < fidx and placed[i]['col'] == frec['col']]
    below = [i for i in range(len(placed)) if i > fidx and placed[i]['col'] == frec['col']]
    nb = ([above[-1]] if above else []) + ([below[0]] if below else [])
    want = slot['framing']
    want_complete = rng.random() < 0.8
    lh_target = {'close': rng.uniform(36, 60), 'medium': rng.uniform(26, 56), 'far': rng.uniform(22, 36)}[want]
    zone = slot['zone']
    pad = 6.0
    P = pg.P
    gx, gy = np.meshgrid(np.linspace(0, Wp, 17), np.linspace(0, Hp, 13))
    grid = np.stack([gx.ravel(), gy.ravel()], 1)

    def inside(pts):
        return (pts[..., 0] >= pad) & (pts[..., 0] <= Wp - pad) & (pts[..., 1] >= pad) & (pts[..., 1] <= Hp - pad)

    best = None
    fallback = None
    for attempt in range(14):
        z = zone if attempt < 9 else ['glyph', 'other', 'gap'][attempt % 3]
        pc, realzone = pick_center(rng, z, geo, pg)
        theta = math.radians(float(np.clip(rng.normal(0, 2.6), -6, 6)))
        a = float(rng.uniform(-1.0, 1.0)) * 9e-5
        b = float(rng.uniform(-1.0, 1.0)) * 9e-5
        lo, hi = 22.0 / P, 60.0 / P
        svals = np.exp(np.linspace(math.log(lo), math.log(hi), 34))
        cands = []
        for s in svals:
            Hm = homography(pc, s, theta, a, b, Wp, Hp)
            if not inside(apply_h(Hm, fcorners)).all():
                continue
            nvis = 0
            for i, pl in enumerate(prob_lines):
                q = apply_h(Hm, pl.reshape(-1, 2)).reshape(pl.shape)
                if inside(q).all(axis=1).any():
                    nvis += 1
            comp = []
            for i in nb:
                q = apply_h(Hm, prob_all[i].reshape(-1, 2)).reshape(prob_all[i].shape)
                comp.append(bool(inside(q).all()))
            Hi = np.linalg.inv(Hm)
            pp_ = apply_h(Hi, grid)
            cover = float(np.mean((pp_[:, 0] >= 0) & (pp_[:, 0] <= pg.W) & (pp_[:, 1] >= 0) & (pp_[:, 1] <= pg.H)))
            cands.append((s, nvis, comp, Hm, cover))
        if not cands:
            continue
        lh_lo, lh_hi = {'close': (34, 60), 'medium': (26, 56), 'far': (22, 38)}[want]
        min_cover = {'close': 0.6, 'medium': 0.45, 'far': 0.35}[want]
        inwant = [c for c in cands if framing_of(c[1]) == want and c[1] >= 2 and c[4] >= min_cover]
        pool = [c for c in inwant if lh_lo <= c[0] * P <= lh_hi] or inwant
        if pool:
            if want_complete:
                pp = [c for c in pool if all(c[2])]
            else:
                pp = [c for c in pool if c[2] and not all(c[2])]
            if pp:
                pool = pp
            c = min(pool, key=lambda c: abs(c[0] * P - lh_target))
            best = (c, pc, theta, a, b, realzone)
            break
        order = {'close': 0, 'medium': 1, 'far': 2}
        for c in cands:
            key = (abs(order[framing_of(c[1])] - order[want]) + (1 if c[1] < 2 else 0) + (1 if c[4] < 0.45 else 0),
                   abs(c[1] - {'close': 3, 'medium': 5, 'far': 8}[want]), -c[4])
            if fallback is None or key < fallback[0]:
                fallback = (key, (c, pc, theta, a, b, realzone))
    if best is None and fallback is not None:
        best = fallback[1]
    if best is None:
        raise RuntimeError('no camera found')
    (s, nvis, comp, Hm, cover), pc, theta, a, b, realzone = best
    return dict(H=Hm, s=s, nvis=nvis, neigh_complete=comp, pc=pc, theta=theta, zone=classify_center(pc, geo),
                framing=framing_of(nvis), lh=s * P, geo=geo, cover=cover)


# --------------------------------------------------------------------------- rendering

def render_layers(pg):
    W, H = pg.W, pg.H
    ink = Image.new('L', (W, H), 0)
    acc = Image.new('L', (W, H), 0)
    di = ImageDraw.Draw(ink)
    da = ImageDraw.Draw(acc)
    for r in pg.accent_rects:
        da.rectangle(r, fill=70)
    for it in pg.header_items:
        if it.get('accent'):
            it['face'].draw(da, it['x'], it['base'], it['text'], fill=255)
        else:
            it['face'].draw(di, it['x'], it['base'], it['text'], fill=255)
    for r in pg.rules:
        di.line([(r[0], r[1]), (r[2], r[3])], fill=200, width=r[4])
    for rec in pg.placed:
        if rec.get('section'):
            h = rec['section']
            h['face'].draw(di, h['x'], h['base'], h['text'], fill=255)
        for it in rec['items']:
            it['face'].draw(di, it['x'], it['base'], it['text'], fill=255)
        for f in rec['figs']:
            draw_figure(di, f, pg)
        for r in rec['rules']:
            di.line([(r[0], r[1]), (r[2], r[3])], fill=150, width=max(1, pg.F // 20))
    return np.asarray(ink), np.asarray(acc)


def lowfreq(rng, h, w, gh, gw):
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def make_background(rng, h, w):
    kind = int(rng.integers(0, 4))
    if kind == 0:  # wood
        base = np.array([rng.uniform(120, 175), rng.uniform(85, 125), rng.uniform(50, 85)], np.float32)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        t = xx * math.cos(ang) + yy * math.sin(ang)
        grain = np.sin(t / rng.uniform(10, 30) + 5 * lowfreq(rng, h, w, 5, 5)) * rng.uniform(0.015, 0.04)
        grain += 0.02 * cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 3)
        img = base[None, None, :] * (1 + grain[..., None] + 0.06 * lowfreq(rng, h, w, 5, 5)[..., None])
    elif kind == 1:  # grey / dark desk
        v = rng.uniform(50, 150)
        base = np.array([v, v * rng.uniform(0.97, 1.03), v * rng.uniform(0.95, 1.06)], np.float32)
        img = base[None, None, :] * (1 + 0.06 * lowfreq(rng, h, w, 6, 6)[..., None])
    elif kind == 2:  # light table
        v = rng.uniform(170, 215)
        base = np.array([v, v * rng.uniform(0.96, 1.0), v * rng.uniform(0.9, 0.98)], np.float32)
        img = base[None, None, :] * (1 + 0.04 * lowfreq(rng, h, w, 5, 5)[..., None])
    else:  # fabric / colour
        base = np.array([rng.uniform(40, 160), rng.uniform(40, 160), rng.uniform(40, 160)], np.float32)
        img = base[None, None, :] * (1 + 0.05 * lowfreq(rng, h, w, 8, 8)[..., None])
    img += rng.normal(0, 3, (h, w, 1)).astype(np.float32)
    return img


def render_photo(rng, pg, cam, Wp, Hp):
    ink, acc = render_layers(pg)
    s = cam['s']
    Hm = cam['H']
    k = min(1.0, s * 1.4)
    if k < 0.98:
        nw, nh = max(1, int(round(pg.W * k))), max(1, int(round(pg.H * k)))
        ink = cv2.resize(ink, (nw, nh), interpolation=cv2.INTER_AREA)
        acc = cv2.resize(acc, (nw, nh), interpolation=cv2.INTER_AREA)
        Hm2 = Hm @ np.diag([1.0 / k, 1.0 / k, 1.0])
    else:
        Hm2 = Hm
    inkw = cv2.warpPerspective(ink, Hm2, (Wp, Hp), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32) / 255.0
    accw = cv2.warpPerspective(acc, Hm2, (Wp, Hp), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32) / 255.0
    corners = apply_h(Hm, [(0, 0), (pg.W, 0), (pg.W, pg.H), (0, pg.H)])
    mask8 = np.zeros((Hp, Wp), np.uint8)
    cv2.fillConvexPoly(mask8, np.round(corners * 16).astype(np.int32), 255, lineType=cv2.LINE_AA, shift=4)
    mask = mask8.astype(np.float32) / 255.0

    paper = np.array([rng.uniform(232, 252), rng.uniform(230, 250), rng.uniform(218, 244)], np.float32)
    ink_v = rng.uniform(15, 75)
    ink_col = np.array([ink_v, ink_v * rng.uniform(0.95, 1.05), ink_v * rng.uniform(0.95, 1.25)], np.float32)
    ink_strength = rng.uniform(0.82, 1.0)
    acc_col = [np.array([40, 90, 170], np.float32), np.array([30, 120, 80], np.float32),
               np.array([170, 60, 40], np.float32)][int(rng.integers(0, 3))]
    page = paper[None, None, :] * (1 + 0.015 * lowfreq(rng, Hp, Wp, 6, 6)[..., None])
    page = page * (1 - accw[..., None]) + acc_col[None, None, :] * accw[..., None]
    a = np.clip(inkw * ink_strength, 0, 1)[..., None]
    page = page * (1 - a) + ink_col[None, None, :] * a
    bg = make_background(rng, Hp, Wp)
    # soft shadow of the page on the desk
    sh = cv2.GaussianBlur(mask, (0, 0), sigmaX=rng.uniform(4, 12))
    off = float(rng.integers(2, 10))
    sh = cv2.warpAffine(sh, np.float32([[1, 0, off], [0, 1, off]]), (Wp, Hp), borderMode=cv2.BORDER_REPLICATE)
    bg = bg * (1 - 0.35 * sh[..., None] * (1 - mask[..., None]))
    img = bg * (1 - mask[..., None]) + page * mask[..., None]

    # lighting
    yy, xx = np.mgrid[0:Hp, 0:Wp].astype(np.float32)
    xn = xx / Wp * 2 - 1
    yn = yy / Hp * 2 - 1
    L = 1 + rng.uniform(-0.13, 0.13) * xn + rng.uniform(-0.13, 0.13) * yn
    L *= 1 - rng.uniform(0.03, 0.18) * (xn ** 2 + yn ** 2) / 2
    if rng.random() < 0.55:
        cx, cy = rng.uniform(-1.3, 1.3), rng.uniform(-1.3, 1.3)
        rx, ry = rng.uniform(0.5, 1.6), rng.uniform(0.5, 1.6)
        dep = rng.uniform(0.08, 0.22)
        dd = ((xn - cx) / rx) ** 2 + ((yn - cy) / ry) ** 2
        L *= 1 - dep / (1 + np.exp(np.clip((dd - 1) * rng.uniform(1.5, 3.0), -30, 30)))
    if rng.random() < 0.3:
        cx, cy = rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8)
        L += rng.uniform(0.03, 0.08) * np.exp(-((xn - cx) ** 2 + (yn - cy) ** 2) / 0.3)
    L *= rng.uniform(0.88, 1.04)
    L = np.clip(L, 0.62, 1.1)
    cast = np.array([rng.uniform(0.96, 1.04), 1.0, rng.uniform(0.92, 1.05)], np.float32)
    img = img * L[..., None] * cast[None, None, :]
    # blur
    sig = rng.uniform(0.45, 1.15)
    img = cv2.GaussianBlur(img, (0, 0), sigmaX=sig)
    if rng.random() < 0.15:
        ksz = int(rng.integers(3, 6))
        kern = np.zeros((ksz, ksz), np.float32)
        kern[ksz // 2, :] = 1.0 / ksz
        M = cv2.getRotationMatrix2D(((ksz - 1) / 2, (ksz - 1) / 2), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, M, (ksz, ksz))
        kern /= max(kern.sum(), 1e-6)
        img = cv2.filter2D(img, -1, kern)
    # noise
    sl = rng.uniform(1.5, 4.5)
    n_l = rng.standard_normal((Hp, Wp, 1)).astype(np.float32) * sl
    n_c = rng.standard_normal((Hp, Wp, 3)).astype(np.float32) * rng.uniform(0.5, 1.6)
    img = img + n_l * (0.7 + 0.6 * (1 - img.mean(axis=2, keepdims=True) / 255.0)) + n_c
    img = np.clip(img, 0, 255).astype(np.uint8)
    return img


# --------------------------------------------------------------------------- one photo

def make_one(args):
    seed, i, bank_path, outdir = args
    infos, plan, by_lang = context(bank_path, seed)
    slot = plan[i - 1]
    rng = np.random.default_rng([seed, i, 2025])
    v = rng.random()
    if slot['framing'] == 'close':
        v = 0.5 + v / 2  # no 1600x1200 close-ups
    p_land = {'close': 0.85, 'medium': 0.5, 'far': 0.4}[slot['framing']]
    if v < 0.1 and slot['framing'] != 'close':
        Wp, Hp = (1600, 1200) if rng.random() < p_land else (1200, 1600)
    elif rng.random() < p_land:
        Wp, Hp = 1280, 960
    else:
        Wp, Hp = 960, 1280
    pg = None
    cam = None
    for attempt in range(6):
        try:
            pg = build_page(rng, slot, by_lang)
            cam = choose_camera(rng, pg, slot, Wp, Hp)
            break
        except RuntimeError:
            pg = cam = None
    if cam is None:
        raise RuntimeError('photo %d: could not build page/camera' % i)
    img = render_photo(rng, pg, cam, Wp, Hp)
    quality = int(rng.integers(80, 93))
    qid = 'a%03d' % i
    path = os.path.join(outdir, qid + '.jpg')
    Image.fromarray(img, 'RGB').save(path, 'JPEG', quality=quality)
    kinds, nlines, nbreaks = text_stats(pg)
    frec = pg.placed[pg.fidx]
    nrec = [r for r in pg.placed if r['spec'].get('npieces')]
    nb_pieces = False
    for r in nrec:
        idx = pg.placed.index(r)
        if abs(idx - pg.fidx) == 1 and r['col'] == frec['col']:
            nb_pieces = True
    comp = cam['neigh_complete']
    row = dict(qid=qid, expected_id=slot['info'].id, lang=pg.lang, recipe=slot['recipe'],
               kinds='+'.join(sorted(kinds)), n_lines=nlines, n_breaks=nbreaks,
               center_zone=cam['zone'], planned_zone=slot['zone'], framing=cam['framing'], planned_framing=slot['framing'],
               n_visible=cam['nvis'], page_cover=round(cam['cover'], 2), line_height=round(cam['lh'], 1), size='%dx%d' % (Wp, Hp),
               rotation=round(math.degrees(cam['theta']), 2), page_style=pg.style, font=pg.fontname,
               numbering=pg.numstyle or 'none', section_headers=int(any(r.get('section') for r in pg.placed)),
               two_column=int(pg.ncol == 2), framed_column=frec['col'],
               framed_score_note=int(bool(frec['spec'].get('score'))),
               score_notes=int(any(r['spec'].get('score') for r in pg.placed)),
               answer_space=int(any(r['spec'].get('after') for r in pg.placed)),
               neighbour_in_pieces=int(nb_pieces),
               neighbours_complete=int(bool(comp) and all(comp)), neighbour_cut=int(bool(comp) and not all(comp)),
               jpeg_quality=quality,
               pieces=json.dumps(pg.segs, ensure_ascii=False), joiners=json.dumps(pg.joins, ensure_ascii=False))
    return row


_CTX = {}


def context(bank_path, seed):
    key = (bank_path, seed)
    if key not in _CTX:
        rows = load_bank(bank_path)
        infos = [QInfo(r) for r in rows]
        plan = build_plan(seed, infos)
        by_lang = {'zh': [x for x in infos if x.lang == 'zh'], 'en': [x for x in infos if x.lang == 'en']}
        _CTX[key] = (infos, plan, by_lang)
    return _CTX[key]


CASE_FIELDS = ['qid', 'expected_id', 'lang', 'recipe', 'kinds', 'n_lines', 'n_breaks', 'center_zone', 'planned_zone',
               'framing', 'planned_framing', 'n_visible', 'page_cover', 'line_height', 'size', 'rotation', 'page_style', 'font',
               'numbering', 'section_headers', 'two_column', 'framed_column', 'framed_score_note', 'score_notes',
               'answer_space', 'neighbour_in_pieces', 'neighbours_complete', 'neighbour_cut', 'jpeg_quality',
               'pieces', 'joiners']


def summarize(rows):
    from collections import Counter
    n = len(rows)
    out = []
    kc = Counter()
    for r in rows:
        for k in r['kinds'].split('+'):
            if k:
                kc[k] += 1
    out.append('photos: %d' % n)
    out.append('kind 1 display line: %d' % kc['display'])
    out.append('kind 2 stem/gap/question: %d' % kc['gap'])
    out.append('kind 3 drawing between stem and question: %d' % kc['drawing'])
    out.append('kind 4 wrapped with one paragraph break: %d' % kc['wrapped'])
    for key in ('center_zone', 'framing', 'lang', 'page_style', 'numbering', 'size', 'font'):
        out.append('%s: %s' % (key, dict(Counter(r[key] for r in rows))))
    for key in ('section_headers', 'two_column', 'score_notes', 'framed_score_note', 'answer_space',
                'neighbour_in_pieces', 'neighbours_complete', 'neighbour_cut'):
        out.append('%s: %d' % (key, sum(int(r[key]) for r in rows)))
    cv = [float(r['page_cover']) for r in rows]
    out.append('share of photo covered by the page: min %.2f  median %.2f' % (min(cv), float(np.median(cv))))
    lh = [float(r['line_height']) for r in rows]
    out.append('line height px: min %.1f  median %.1f  max %.1f' % (min(lh), float(np.median(lh)), max(lh)))
    out.append('two-column pages with framed problem in right column: %d' % sum(1 for r in rows if int(r['two_column']) and int(r['framed_column']) == 1))
    return '\n'.join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True)
    ap.add_argument('outdir')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=251)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--only', default=None, help='comma-separated photo numbers to (re)make; CSV files are not rewritten')
    args = ap.parse_args()
    t0 = time.time()
    os.makedirs(args.outdir, exist_ok=True)
    infos, plan, _ = context(args.bank, args.seed)
    if args.count > len(plan):
        raise SystemExit('--count %d is more than the %d photos this bank allows (each question framed at most twice)'
                         % (args.count, len(plan)))
    if args.only:
        todo = sorted({int(t) for t in args.only.split(',') if t.strip()})
        bad = [t for t in todo if not 1 <= t <= args.count]
        if bad:
            raise SystemExit('--only out of range: %s' % bad)
    else:
        todo = list(range(1, args.count + 1))
    jobs = [(args.seed, i, args.bank, args.outdir) for i in todo]
    if args.jobs > 1:
        import multiprocessing as mp
        with mp.Pool(args.jobs) as pool:
            rows = pool.map(make_one, jobs, chunksize=1)
    else:
        rows = []
        for j in jobs:
            rows.append(make_one(j))
            if len(rows) % 10 == 0:
                print('  %d/%d  %.1fs' % (len(rows), len(jobs), time.time() - t0), file=sys.stderr, flush=True)
    if not args.only:
        with open(os.path.join(args.outdir, 'truth.csv'), 'w', newline='', encoding='utf-8') as f:
            w = csv.writer(f)
            w.writerow(['qid', 'text'])
            for i in range(1, args.count + 1):
                w.writerow(['a%03d' % i, plan[i - 1]['info'].q])
        with open(os.path.join(args.outdir, 'queries.csv'), 'w', newline='', encoding='utf-8') as f:
            w = csv.writer(f)
            w.writerow(['qid', 'query', 'expected_id', 'kind'])
            for i in range(1, args.count + 1):
                w.writerow(['a%03d' % i, plan[i - 1]['info'].q, plan[i - 1]['info'].id, 'exact'])
        with open(os.path.join(args.outdir, 'cases.csv'), 'w', newline='', encoding='utf-8') as f:
            w = csv.DictWriter(f, fieldnames=CASE_FIELDS)
            w.writeheader()
            for r in rows:
                w.writerow(r)
        print(summarize(rows))
    print('made %d photo(s) in %s in %.1f s' % (len(rows), args.outdir, time.time() - t0))


if __name__ == '__main__':
    main()
