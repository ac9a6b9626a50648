#!/usr/bin/env python3
"""Synthetic phone photos of printed school worksheets (independent test-data generator).

Each photo shows part of a worksheet page; the problem block nearest the image
centre (the "framed" problem) is always completely inside the frame, and its bank
question text is the ground truth.  Neighbouring numbered bank problems, headers,
teacher marks, fingers/pens, camera geometry, lighting and sensor effects vary.

Usage:
  python make_photos.py --bank appliance/data/demo_bank.jsonl OUT_DIR --count 120 --seed 381 [--jobs 2]

Only numpy, Pillow and opencv are used.
"""
import argparse
import bisect
import csv
import glob
import json
import math
import os
import struct
import sys
import time
from collections import Counter
from multiprocessing import Pool

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

# ----------------------------------------------------------------------------
# character classes
# ----------------------------------------------------------------------------
SUP_MAP = {'⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6',
           '⁷': '7', '⁸': '8', '⁹': '9', '⁺': '+', '⁻': '-', 'ⁿ': 'n'}
SUB_MAP = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6',
           '₇': '7', '₈': '8', '₉': '9', '₊': '+', '₋': '-', 'ₙ': 'n', 'ₐ': 'a',
           'ₓ': 'x', 'ₑ': 'e', 'ₒ': 'o'}
# characters that must not begin a line / end a line (Chinese line-breaking rules)
NO_START = set('，。、；：？！）》」』】〕”’％,.;:?!)]}%·…—～')
NO_END = set('（《「『【〔“‘([{')
CJK_QUOTES = set('“”‘’')


def is_cjk(ch):
    cp = ord(ch)
    return (0x2E80 <= cp <= 0x2FDF or 0x3000 <= cp <= 0x30FF or 0x3400 <= cp <= 0x4DBF
            or 0x4E00 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or 0xFE30 <= cp <= 0xFE4F
            or 0xFF00 <= cp <= 0xFFEF)


def prefers_cjk_font(ch, ctx_cjk):
    cp = ord(ch)
    return is_cjk(ch) or (ctx_cjk and ch in CJK_QUOTES) or cp == 0x2103 or 0x2460 <= cp <= 0x24FF


def has_script(text):
    return any(ch in SUP_MAP or ch in SUB_MAP for ch in text)


# ----------------------------------------------------------------------------
# fonts: own cmap reader so every character can fall back to a font that has it
# ----------------------------------------------------------------------------
class Cmap:
    def __init__(self, path, index=0):
        self.kind = None
        with open(path, 'rb') as f:
            def rd(off, n):
                f.seek(off)
                return f.read(n)
            base = 0
            if rd(0, 4) == b'ttcf':
                base = struct.unpack('>I', rd(12 + 4 * index, 4))[0]
            num_tables = struct.unpack('>H', rd(base + 4, 2))[0]
            cmap_off = None
            for t in range(num_tables):
                rec = rd(base + 12 + 16 * t, 16)
                if rec[:4] == b'cmap':
                    cmap_off = struct.unpack('>I', rec[8:12])[0]
            if cmap_off is None:
                return
            nsub = struct.unpack('>H', rd(cmap_off + 2, 2))[0]
            subs = {}
            for k in range(nsub):
                pid, eid, off = struct.unpack('>HHI', rd(cmap_off + 4 + 8 * k, 8))
                subs[(pid, eid)] = cmap_off + off
            for key in [(3, 10), (0, 6), (0, 4), (3, 1), (0, 3), (0, 2), (0, 1), (0, 0)]:
                if key not in subs:
                    continue
                off = subs[key]
                fmt = struct.unpack('>H', rd(off, 2))[0]
                if fmt == 12:
                    ngroups = struct.unpack('>I', rd(off + 12, 4))[0]
                    raw = rd(off + 16, 12 * ngroups)
                    arr = np.frombuffer(raw, dtype='>u4').reshape(-1, 3)
                    self.starts = arr[:, 0].astype(np.int64).tolist()
                    self.ends = arr[:, 1].astype(np.int64).tolist()
                    self.sg = arr[:, 2].astype(np.int64).tolist()
                    self.kind = 12
                    return
                if fmt == 4:
                    length = struct.unpack('>H', rd(off + 2, 2))[0]
                    raw = rd(off, length)
                    seg2 = struct.unpack('>H', raw[6:8])[0]
                    n = seg2 // 2
                    ends = struct.unpack('>%dH' % n, raw[14:14 + seg2])
                    p = 14 + seg2 + 2
                    starts = struct.unpack('>%dH' % n, raw[p:p + seg2])
                    p += seg2
                    deltas = struct.unpack('>%dh' % n, raw[p:p + seg2])
                    p += seg2
                    self.ro_pos = p
                    ros = struct.unpack('>%dH' % n, raw[p:p + seg2])
                    self.raw4 = raw
                    self.starts, self.ends, self.deltas, self.ros = list(starts), list(ends), deltas, ros
                    self.kind = 4
                    return

    def has(self, ch):
        c = ord(ch)
        if self.kind == 12:
            i = bisect.bisect_right(self.starts, c) - 1
            return i >= 0 and c <= self.ends[i] and (self.sg[i] + c - self.starts[i]) != 0
        if self.kind == 4:
            if c > 0xFFFF:
                return False
            i = bisect.bisect_left(self.ends, c)
            if i >= len(self.ends) or self.starts[i] > c:
                return False
            if self.ros[i] == 0:
                return ((c + self.deltas[i]) & 0xFFFF) != 0
            addr = self.ro_pos + 2 * i + self.ros[i] + 2 * (c - self.starts[i])
            if addr + 2 > len(self.raw4):
                return False
            g = struct.unpack('>H', self.raw4[addr:addr + 2])[0]
            return g != 0
        return False


def _first(patterns):
    for p in patterns:
        hits = sorted(glob.glob(p))
        if hits:
            return hits[0]
    return None


class FontLib:
    """Font registry; keys are (path, face index)."""

    def __init__(self):
        nsr = _first(['/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc',
                      '/usr/share/fonts/*/*/NotoSansCJK-Regular.ttc'])
        nsb = _first(['/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc',
                      '/usr/share/fonts/*/*/NotoSansCJK-Bold.ttc']) or nsr
        ser = _first(['/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc',
                      '/usr/share/fonts/*/*/NotoSerifCJK-Regular.ttc']) or nsr
        seb = _first(['/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc',
                      '/usr/share/fonts/*/*/NotoSerifCJK-Bold.ttc']) or ser
        self.sc_index = {}
        self.cjk = {
            'sans': ((nsr, self._face(nsr, 'Noto Sans CJK SC')), (nsb, self._face(nsb, 'Noto Sans CJK SC'))),
            'serif': ((ser, self._face(ser, 'Noto Serif CJK SC')), (seb, self._face(seb, 'Noto Serif CJK SC'))),
            'mono': ((nsr, self._face(nsr, 'Noto Sans Mono CJK SC')), (nsb, self._face(nsb, 'Noto Sans Mono CJK SC'))),
        }
        d = '/usr/share/fonts/truetype/'

        def lat(reg, bold):
            r = _first([d + reg, '/usr/share/fonts/*/*/' + os.path.basename(reg)])
            b = _first([d + bold, '/usr/share/fonts/*/*/' + os.path.basename(bold)]) or r
            return ((r, 0), (b, 0)) if r else None
        cands = {
            'dejavu_sans': lat('dejavu/DejaVuSans.ttf', 'dejavu/DejaVuSans-Bold.ttf'),
            'dejavu_serif': lat('dejavu/DejaVuSerif.ttf', 'dejavu/DejaVuSerif-Bold.ttf'),
            'dejavu_mono': lat('dejavu/DejaVuSansMono.ttf', 'dejavu/DejaVuSansMono-Bold.ttf'),
            'lib_sans': lat('liberation/LiberationSans-Regular.ttf', 'liberation/LiberationSans-Bold.ttf'),
            'lib_serif': lat('liberation/LiberationSerif-Regular.ttf', 'liberation/LiberationSerif-Bold.ttf'),
            'lib_mono': lat('liberation/LiberationMono-Regular.ttf', 'liberation/LiberationMono-Bold.ttf'),
        }
        self.latin = {k: v for k, v in cands.items() if v}
        ital = _first([d + 'dejavu/DejaVuSans-Oblique.ttf', d + 'liberation/LiberationSerif-Italic.ttf'])
        self.hand = (ital, 0) if ital else self.latin['dejavu_sans'][0]
        math_f = _first([d + 'dejavu/DejaVuMathTeXGyre.ttf'])
        self.global_chain = [self.cjk['sans'][0]] + [v[0] for v in self.latin.values()]
        if math_f:
            self.global_chain.append((math_f, 0))
        self._cmaps = {}
        self._fonts = {}
        self._has = {}
        self._w = {}

    @staticmethod
    def _face(path, name):
        for i in range(12):
            try:
                f = ImageFont.truetype(path, 20, index=i)
            except Exception:
                break
            if f.getname()[0] == name:
                return i
        return 0

    def has(self, key, ch):
        k = (key, ch)
        r = self._has.get(k)
        if r is None:
            cm = self._cmaps.get(key)
            if cm is None:
                cm = self._cmaps[key] = Cmap(key[0], key[1])
            r = self._has[k] = cm.has(ch)
        return r

    def font(self, key, size):
        k = (key, int(size))
        f = self._fonts.get(k)
        if f is None:
            f = self._fonts[k] = ImageFont.truetype(key[0], int(size), index=key[1])
        return f

    def width(self, key, text):
        """advance width in em"""
        k = (key, text)
        w = self._w.get(k)
        if w is None:
            w = self._w[k] = self.font(key, 200).getlength(text) / 200.0
        return w


FL = None  # per-process font library


def fontlib():
    global FL
    if FL is None:
        FL = FontLib()
    return FL


class FontSet:
    """fonts used on one page"""

    def __init__(self, fl, cjk_style, latin_name, bold_numbers):
        self.fl = fl
        self.cjk, self.cjk_bold = fl.cjk[cjk_style]
        if latin_name and latin_name in fl.latin:
            self.latin, self.latin_bold = fl.latin[latin_name]
        else:
            self.latin, self.latin_bold = self.cjk, self.cjk_bold
        self.bold_numbers = bold_numbers
        self.chain_tail = [k for k in fl.global_chain]
        self.missing = set()

    def resolve(self, ch, ctx_cjk, bold=False):
        pref = (self.cjk_bold if bold else self.cjk) if prefers_cjk_font(ch, ctx_cjk) else \
            (self.latin_bold if bold else self.latin)
        chain = [pref, self.cjk_bold if bold else self.cjk, self.latin] + self.chain_tail
        for k in chain:
            if self.fl.has(k, ch):
                return k
        self.missing.add(ch)
        return pref


# ----------------------------------------------------------------------------
# text -> atoms -> wrapped lines
# ----------------------------------------------------------------------------
# a segment: (text, fontkey, size_factor, dy_em, width_em, kind)  kind 't' text | 'b' blank rule

def make_atoms(text, fs, bold=False, blank_w=3.5, ctx_cjk=None):
    if ctx_cjk is None:
        ctx_cjk = any(is_cjk(c) for c in text)
    fl = fs.fl
    atoms = []
    i, n = 0, len(text)
    space_w = fl.width(fs.latin, ' ') if not ctx_cjk else max(0.25, fl.width(fs.latin, ' '))

    def word_atom(s):
        segs = []
        for ch in s:
            if ch in SUP_MAP:
                st, disp, sz, dy = 's', SUP_MAP[ch], 0.62, -0.40
            elif ch in SUB_MAP:
                st, disp, sz, dy = 'u', SUB_MAP[ch], 0.62, 0.17
            else:
                st, disp, sz, dy = 'n', ch, 1.0, 0.0
            key = fs.resolve(disp, ctx_cjk, bold and st == 'n')
            if segs and segs[-1][0] == st and segs[-1][1] == key:
                segs[-1][2] += disp
            else:
                segs.append([st, key, disp, sz, dy])
        out = []
        for st, key, disp, sz, dy in segs:
            out.append((disp, key, sz, dy, fl.width(key, disp) * sz, 't'))
        w = sum(s[4] for s in out)
        first, last = s[0], s[-1]
        return dict(segs=out, w=w, sp=False, nbb=(first in NO_START or first in SUP_MAP or first in SUB_MAP),
                    nba=(last in NO_END), cjk=False)

    while i < n:
        ch = text[i]
        if ch == ' ':
            atoms.append(dict(segs=[], w=space_w, sp=True, nbb=False, nba=False, cjk=False))
            i += 1
            continue
        if ch == '_' and i + 1 < n and text[i + 1] == '_':
            j = i
            while j < n and text[j] == '_':
                j += 1
            atoms.append(dict(segs=[('', None, 1.0, 0.0, blank_w, 'b')], w=blank_w, sp=False,
                              nbb=False, nba=False, cjk=False))
            i = j
            continue
        if is_cjk(ch) or (ctx_cjk and ch in CJK_QUOTES):
            key = fs.resolve(ch, ctx_cjk, bold)
            w = fl.width(key, ch)
            atoms.append(dict(segs=[(ch, key, 1.0, 0.0, w, 't')], w=w, sp=False,
                              nbb=ch in NO_START, nba=ch in NO_END, cjk=True))
            i += 1
            continue
        j = i
        while j < n and text[j] != ' ' and not is_cjk(text[j]) and not (ctx_cjk and text[j] in CJK_QUOTES) \
                and not text.startswith('__', j):
            j += 1
        atoms.append(word_atom(text[i:j]))
        i = j
    return atoms


def wrap_atoms(atoms, avail_first, avail_rest):
    """Greedy line filling with Chinese line-breaking rules.
    returns list of lines; each line = list of (x_em, seg)"""
    chunks = []  # each: [pre_space, items(list of (x, seg)), width, last_atom]
    pend = 0.0
    cur = None
    for a in atoms:
        if a['sp']:
            if cur is not None:
                pend += a['w']
            continue
        if cur is not None:
            prev = cur[3]
            if pend == 0.0:
                glue = prev['nba'] or a['nbb'] or not (prev['cjk'] or a['cjk'])
            else:
                glue = a['nbb'] or prev['nba']
            if glue:
                x = cur[2] + pend
                for s in a['segs']:
                    cur[1].append((x, s))
                    x += s[4]
                cur[2] = x
                cur[3] = a
                pend = 0.0
                continue
        x = 0.0
        items = []
        for s in a['segs']:
            items.append((x, s))
            x += s[4]
        cur = [pend if cur is not None else 0.0, items, x, a]
        chunks.append(cur)
        pend = 0.0
    lines = []
    line, x, avail = [], 0.0, avail_first
    for pre, items, w, _ in chunks:
        if line and x + pre + w > avail + 1e-6:
            lines.append(line)
            line, x, avail = [], 0.0, avail_rest
        off = x + (pre if line else 0.0)
        for xi, s in items:
            line.append((off + xi, s))
        x = off + w
    if line:
        lines.append(line)
    return lines


def line_width(line):
    if not line:
        return 0.0
    x, s = line[-1]
    return x + s[4]


# ----------------------------------------------------------------------------
# page layout
# ----------------------------------------------------------------------------
NUM_STYLES = ['dot_full', 'dot', 'paren_full', 'paren', 'circled', 'question', 'di', 'q', 'dun']
TITLES = ['Homework 3', '第一单元 练习（二）', '第三章 综合测试', 'Unit 2 Review', '期中复习（一）',
          '课时作业 5', 'Worksheet 7', '周末练习（四）', 'Practice Test B', '第二单元 检测题']
NAME_LINES = ['姓名：____ 班级：____', 'Name: ____ Class: ____', '姓名：____ 班级：____ 学号：____',
              'Name: ____ Class: ____ Date: ____', '班级：____ 姓名：____ 得分：____']
SECTIONS = ['一、解答题（每小题5分）', '二、填空题', '三、计算题（共20分）', '一、选择题（每小题3分）',
            'Part A  Answer the questions', 'I. Short answer (4 points each)', '四、简答题',
            'Section B', '二、解答题（本大题共6小题）']


def label_text(style, n):
    if style == 'dot_full':
        return '%d．' % n
    if style == 'dot':
        return '%d.' % n
    if style == 'paren_full':
        return '（%d）' % n
    if style == 'paren':
        return '(%d)' % n
    if style == 'circled':
        return chr(0x2460 + n - 1)
    if style == 'question':
        return 'Question %d.' % n
    if style == 'di':
        return '第%d题' % n
    if style == 'q':
        return 'Q%d' % n
    return '%d、' % n


def label_gap(style):
    return {'dot_full': 0.1, 'dot': 0.35, 'paren_full': 0.05, 'paren': 0.3, 'circled': 0.3,
            'question': 0.45, 'di': 0.5, 'q': 0.45, 'dun': 0.05}[style]


class Page:
    pass


def problem_block(P, fs, qtext, qid, number, x0, ytop, colw, framed=False):
    lab = make_atoms(label_text(P.nstyle, number), fs, bold=P.bold_numbers, ctx_cjk=True)
    items = []
    x = 0.0
    for a in lab:
        if a['sp']:
            x += a['w']
            continue
        for s in a['segs']:
            items.append((x, s))
            x += s[4]
    lw = x + label_gap(P.nstyle)
    flow = []
    if P.score_note:
        pts = P.score_pts
        note = ('（%d分）' % pts) if P.note_cn else ('(%d points) ' % pts)
        flow += make_atoms(note, fs, ctx_cjk=P.note_cn)
    flow += make_atoms(qtext, fs, blank_w=P.blank_w)
    indent = lw if P.hanging else 0.0
    lines = wrap_atoms(flow, colw - lw, colw - indent)
    out = []
    asc = 0.9
    for k, line in enumerate(lines):
        bl = ytop + asc + k * P.line_h
        xs = x0 + (lw if k == 0 else indent)
        segs = [(xs + xx, bl, s) for xx, s in line]
        if k == 0:
            segs = [(x0 + xx, bl, s) for xx, s in items] + segs
        out.append(segs)
    x1 = max([x0 + lw + line_width(lines[0])] + [x0 + indent + line_width(l) for l in lines[1:]])
    ybot = ytop + asc + (len(lines) - 1) * P.line_h + 0.22
    ends = [s[-1][0] + s[-1][2][4] for s in out]
    return dict(kind='problem', qid=qid, text=qtext, number=number, lines=out, nlines=len(lines),
                bbox=(x0, ytop - 0.02, x1, ybot), ends=ends, framed=framed, col=None)


def text_block(kind, fs, text, x0, ytop, size, bold, align_w=None, blank_w=4.0):
    atoms = make_atoms(text, fs, bold=bold, blank_w=blank_w / size)
    lines = wrap_atoms(atoms, 1e9, 1e9)
    line = lines[0] if lines else []
    w = line_width(line) * size
    if align_w is not None:
        x0 = x0 + (align_w - w) / 2.0
    bl = ytop + 0.9 * size
    segs = [(x0 + xx * size, bl, (s[0], s[1], s[2] * size, s[3] * size, s[4] * size, s[5])) for xx, s in line]
    return dict(kind=kind, lines=[segs], bbox=(x0, ytop, x0 + w, bl + 0.22 * size), text=text)


def pick_neighbor(rng, bank, used_ids, framed_idx, near_dup):
    n = len(bank)
    if near_dup:
        cands = []
        fid = bank[framed_idx]['id']
        pre = fid.rsplit('-', 1)[0]
        for j in (framed_idx - 1, framed_idx + 1):
            if 0 <= j < n and bank[j]['id'].rsplit('-', 1)[0] == pre and bank[j]['id'] not in used_ids:
                cands.append(j)
        if cands:
            return cands[int(rng.integers(len(cands)))]
    for _ in range(50):
        j = int(rng.integers(n))
        if j != framed_idx and bank[j]['id'] not in used_ids:
            return j
    return (framed_idx + 1) % n


def layout_page(rng, P, fs, bank, framed_idx):
    """Lay out a whole worksheet page (em units).  Returns Page."""
    pg = Page()
    pg.colw = P.colw
    ncol = P.ncols
    pg.margin = P.margin
    content_w = ncol * P.colw + (ncol - 1) * P.gap
    pg.w = content_w + 2 * P.margin
    pg.h = pg.w * P.aspect
    blocks = []
    extras = []  # ('line', x0, y0, x1, y1, width_em)
    y = P.margin_top
    if P.top_header:
        tb = text_block('title', fs, P.title, P.margin, y, P.title_size, True, align_w=content_w)
        blocks.append(tb)
        y = tb['bbox'][3] + 0.6
        if P.name_line:
            nb = text_block('nameline', fs, P.name_text, P.margin + (0 if P.name_left else 0), y, 1.0, False,
                            align_w=None if P.name_left else content_w, blank_w=P.name_blank)
            blocks.append(nb)
            y = nb['bbox'][3] + 0.5
        if P.top_rule:
            extras.append(('line', P.margin, y + 0.1, P.margin + content_w, y + 0.1, 0.06))
            y += 0.6
        y += 0.5
    col_top = y
    used = {bank[framed_idx]['id']}
    number = P.n0
    framed_block = None
    framed_col = P.framed_col if ncol == 2 else 0
    bottom = pg.h - P.margin_bot
    for c in range(ncol):
        x0 = P.margin + c * (P.colw + P.gap)
        y = col_top
        k = 0
        place_framed_at = P.framed_slot if c == framed_col else -1
        # optional section heading at the top of the first column
        if c == 0 and P.top_section:
            sb = text_block('section', fs, P.section_top, x0, y, P.section_size, True)
            blocks.append(sb)
            y = sb['bbox'][3] + 0.55
        while True:
            is_framed = (k == place_framed_at) and framed_block is None
            if framed_block is None and c == framed_col and k > place_framed_at:
                is_framed = True
            if is_framed and P.section_above:
                sec_text = P.section_mid
                sb = text_block('section', fs, sec_text, x0, y + 0.3, P.section_size, True)
                sb['above_framed'] = True
                blocks.append(sb)
                y = sb['bbox'][3] + 0.55
                if P.nstyle == 'circled':
                    number = 1
            if P.nstyle == 'circled' and number > 20:
                number = 1
            if is_framed:
                qi = framed_idx
            else:
                near = P.near_dup and framed_block is None and c == framed_col and k == place_framed_at - 1 \
                    or (P.near_dup and framed_block is not None and blocks and blocks[-1] is framed_block)
                qi = pick_neighbor(rng, bank, used, framed_idx, near)
            b = problem_block(P, fs, bank[qi]['question'], bank[qi]['id'], number, x0, y, P.colw, framed=is_framed)
            if b['bbox'][3] > bottom:
                if is_framed:
                    # must place framed: put it anyway (page grows)
                    pg.h = b['bbox'][3] + P.margin_bot
                    bottom = pg.h - P.margin_bot
                else:
                    if framed_block is None and c == framed_col:
                        # framed not yet placed in this column: force it into next slot
                        place_framed_at = k
                        continue
                    break
            b['col'] = c
            blocks.append(b)
            used.add(bank[qi]['id'])
            if is_framed:
                framed_block = b
            number += 1
            k += 1
            y = b['bbox'][3] + P.para_gap + P.answer_space * (0.6 + 0.8 * rng.random())
            if y > bottom and not (framed_block is None and c == framed_col):
                break
    if P.col_rule and ncol == 2:
        xr = P.margin + P.colw + P.gap / 2
        extras.append(('line', xr, col_top - 0.2, xr, pg.h - P.margin_bot, 0.05))
    if P.frame:
        f = P.margin * 0.45
        extras.append(('rect', f, f, pg.w - f, pg.h - f, P.frame_w))
        if P.frame_double:
            f2 = f + 0.25
            extras.append(('rect', f2, f2, pg.w - f2, pg.h - f2, 0.04))
    pg.blocks = blocks
    pg.extras = extras
    pg.framed = framed_block
    return pg


def add_teacher_marks(rng, P, pg):
    """teacher marks in em coordinates, never over the framed problem"""
    marks = []
    fb = pg.framed['bbox']
    keep = (fb[0] - 0.35, fb[1] - 0.35, fb[2] + 0.35, fb[3] + 0.35)
    fcx, fcy = (fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2
    probs = []
    for b in pg.blocks:
        if b['kind'] != 'problem':
            continue
        bx = (b['bbox'][0] + b['bbox'][2]) / 2
        by = (b['bbox'][1] + b['bbox'][3]) / 2
        dist = math.hypot(bx - fcx, by - fcy)
        if dist > 40:
            continue
        p = 0.6 if b['framed'] else (0.45 if dist < 12 else 0.22)
        probs.append((b, p))
    for b, p in probs:
        if rng.random() > p:
            continue
        t = rng.choice(['tick', 'tick', 'tick', 'cross', 'score', 'score'])
        size = float(rng.uniform(1.1, 2.1))
        for _ in range(6):
            where = rng.choice(['end', 'end', 'left', 'topleft'])
            x0, y0, x1, y1 = b['bbox']
            if where == 'end':
                mx = b['ends'][-1] + rng.uniform(0.6, 2.0)
                my = b['lines'][-1][0][1] - 0.35 - size * 0.3
            elif where == 'left':
                mx = x0 - size - rng.uniform(0.3, 0.9)
                my = y0 + rng.uniform(-0.3, 0.3)
            else:
                mx = x0 - size * 0.6
                my = y0 - size * 0.9
            r = (mx - 0.3, my - 0.3, mx + size * 1.2 + 0.3, my + size * 1.1 + 0.3)
            if t == 'score':
                r = (mx - 0.4, my - 0.4, mx + size * 1.4 + 0.4, my + size * 1.2 + 0.4)
            if r[2] < keep[0] or r[0] > keep[2] or r[3] < keep[1] or r[1] > keep[3]:
                marks.append(dict(type=t, x=mx, y=my, s=size, rot=float(rng.uniform(-15, 15)),
                                  score=str(rng.choice(['8', '10', '5', '-2', '9', '4', '6', '+3', '3'])),
                                  framed=b['framed'], jit=rng.normal(0, 0.06, 8).tolist()))
                break
    return marks


# ----------------------------------------------------------------------------
# geometry helpers
# ----------------------------------------------------------------------------
def T(tx, ty):
    return np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]], dtype=np.float64)


def apply_h(H, pts):
    pts = np.asarray(pts, dtype=np.float64)
    p = np.concatenate([pts, np.ones((len(pts), 1))], 1) @ H.T
    return p[:, :2] / p[:, 2:3]


def bend_d(q, bend):
    if bend is None:
        return np.zeros_like(q)
    A, xa, Lb, A2, ya, Lb2 = bend
    dy = A * np.sin(np.pi * (q[:, 0] - xa) / Lb)
    dx = A2 * np.sin(np.pi * (q[:, 1] - ya) / Lb2)
    return np.stack([dx, dy], 1)


def fwd(H, q, bend):
    q = np.asarray(q, dtype=np.float64)
    return apply_h(H, q + bend_d(q, bend))


def rect_samples(b, n=8):
    x0, y0, x1, y1 = b
    t = np.linspace(0, 1, n)
    pts = [np.stack([x0 + (x1 - x0) * t, np.full(n, y0)], 1), np.stack([x0 + (x1 - x0) * t, np.full(n, y1)], 1),
           np.stack([np.full(n, x0), y0 + (y1 - y0) * t], 1), np.stack([np.full(n, x1), y0 + (y1 - y0) * t], 1)]
    return np.concatenate(pts, 0)


def make_H(W, Hh, theta_deg, s, anchor, px, py):
    th = math.radians(theta_deg)
    c, sn = math.cos(th) * s, math.sin(th) * s
    R = np.array([[c, -sn, 0], [sn, c, 0], [0, 0, 1]])
    Pp = T(W / 2, Hh / 2) @ np.array([[1, 0, 0], [0, 1, 0], [px, py, 1]]) @ T(-W / 2, -Hh / 2)
    return Pp @ T(W / 2, Hh / 2) @ R @ T(-anchor[0], -anchor[1])


def glyph_heights(H, q, bend):
    a = fwd(H, q, bend)
    b = fwd(H, q + np.array([0.0, 0.9]), bend)
    return np.hypot(*(b - a).T)


# ----------------------------------------------------------------------------
# textures and drawing
# ----------------------------------------------------------------------------
def smooth_noise(rng, h, w, cell, amp=1.0):
    sh, sw = max(2, h // cell + 2), max(2, w // cell + 2)
    n = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
    return n * amp


def make_desk(rng, W, Hh):
    kind = rng.choice(['wood', 'wood', 'plain', 'cloth', 'laminate'])
    if kind == 'wood':
        r_ = rng.uniform(0.35, 0.72)
        g_ = r_ * rng.uniform(0.58, 0.78)
        base = np.array([r_, g_, g_ * rng.uniform(0.45, 0.7)], np.float32)
        ang = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:Hh, 0:W].astype(np.float32)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        warp = smooth_noise(rng, Hh, W, 220, 2.5)
        f = rng.uniform(0.04, 0.12)
        stripes = 0.5 + 0.5 * np.sin(u * f + warp + 0.8 * np.sin(v * 0.004 + rng.uniform(0, 6)))
        grain = 0.5 + 0.5 * np.sin(u * f * rng.uniform(4, 7) + 2 * warp)
        fine = smooth_noise(rng, Hh, W, 5, 0.03)
        m = (0.8 + 0.14 * stripes + 0.05 * grain + fine)[..., None]
        img = base[None, None, :] * m
    elif kind == 'cloth':
        base = rng.uniform(0.15, 0.75, 3).astype(np.float32)
        img = np.ones((Hh, W, 3), np.float32) * base
        img *= (1 + smooth_noise(rng, Hh, W, 3, 0.05))[..., None]
    elif kind == 'laminate':
        g = rng.uniform(0.55, 0.9)
        base = np.array([g, g * rng.uniform(0.95, 1.02), g * rng.uniform(0.9, 1.0)], np.float32)
        img = np.ones((Hh, W, 3), np.float32) * base
        img *= (1 + smooth_noise(rng, Hh, W, 40, 0.03) + smooth_noise(rng, Hh, W, 2, 0.02))[..., None]
    else:
        g = rng.uniform(0.1, 0.45)
        base = np.array([g, g, g * rng.uniform(0.9, 1.15)], np.float32)
        img = np.ones((Hh, W, 3), np.float32) * base
        img *= (1 + smooth_noise(rng, Hh, W, 80, 0.05))[..., None]
    return np.clip(img, 0, 1), kind


def draw_segments(d, fl, blocks, E, ox, oy, win_em, fill=255):
    wx0, wy0, wx1, wy1 = win_em
    for b in blocks:
        x0, y0, x1, y1 = b['bbox']
        if x1 < wx0 - 2 or x0 > wx1 + 2 or y1 < wy0 - 2 or y0 > wy1 + 2:
            continue
        for line in b['lines']:
            for x, bl, s in line:
                text, key, sz, dy, w, kind = s
                X = x * E - ox
                Y = (bl + dy) * E - oy
                if kind == 'b':
                    th = max(1, int(round(0.055 * E)))
                    yb = Y + 0.1 * E
                    d.rectangle([X + 0.05 * E, yb, X + (w - 0.05) * E, yb + th - 1], fill=fill)
                else:
                    d.text((X, Y), text, font=fl.font(key, max(6, int(round(E * sz)))), fill=fill, anchor='ls')


def draw_marks(d, fl, marks, E, ox, oy):
    for m in marks:
        s = m['s'] * E
        x, y = m['x'] * E - ox, m['y'] * E - oy
        j = [v * s for v in m['jit']]
        w = max(2, int(round(s * 0.09)))
        if m['type'] == 'tick':
            pts = [(x + j[0], y + 0.5 * s + j[1]), (x + 0.35 * s + j[2], y + 0.95 * s + j[3]),
                   (x + 0.6 * s, y + 0.62 * s), (x + 1.1 * s + j[4], y + j[5])]
            d.line(pts, fill=255, width=w, joint='curve')
        elif m['type'] == 'cross':
            d.line([(x + j[0], y + j[1]), (x + s, y + s + j[2])], fill=255, width=w)
            d.line([(x + s + j[3], y + j[4]), (x + j[5], y + s + j[6])], fill=255, width=w)
        else:
            d.ellipse([x + j[0], y + j[1], x + 1.4 * s, y + 1.15 * s], outline=255, width=max(2, w - 1))
            f = fl.font(fl.hand, max(8, int(s * 0.7)))
            d.text((x + 0.7 * s, y + 0.6 * s), m['score'], font=f, fill=255, anchor='mm')


def render_window(rng, P, pg, fl, E, win_em, marks, screen=False):
    """Render the page region win_em (em coords) at E px/em.  returns float32 RGB [0,1]"""
    wx0, wy0, wx1, wy1 = win_em
    ox, oy = int(math.floor(wx0 * E)), int(math.floor(wy0 * E))
    w = int(math.ceil(wx1 * E)) - ox
    h = int(math.ceil(wy1 * E)) - oy
    ink = Image.new('L', (w, h), 0)
    d = ImageDraw.Draw(ink)
    draw_segments(d, fl, pg.blocks, E, ox, oy, win_em)
    for e in pg.extras:
        lw = max(1, int(round(e[5] * E)))
        pts = [e[1] * E - ox, e[2] * E - oy, e[3] * E - ox, e[4] * E - oy]
        if e[0] == 'line':
            d.line(pts, fill=255, width=lw)
        else:
            d.rectangle(pts, outline=255, width=lw)
    a = np.asarray(ink, dtype=np.float32) / 255.0
    if screen:
        paper = np.ones((h, w, 3), np.float32) * np.array(P.screen_white, np.float32)
        # outside the page (viewer background)
        yy = (np.arange(h) + oy) / E
        xx = (np.arange(w) + ox) / E
        outside = (yy[:, None] < 0) | (yy[:, None] > pg.h) | (xx[None, :] < 0) | (xx[None, :] > pg.w)
        paper[outside] = np.array(P.viewer_bg, np.float32)
        ink_col = np.array([0.05, 0.05, 0.06], np.float32)
        img = paper * (1 - a[..., None]) + ink_col * a[..., None]
    else:
        base = np.array(P.paper_col, np.float32)
        tex = smooth_noise(rng, h, w, max(8, E * 3), 0.006) + smooth_noise(rng, h, w, 2, 0.006)
        paper = base[None, None, :] * (1 + tex[..., None])
        dens = P.ink_density
        ink_col = np.array(P.ink_col, np.float32)
        a = a * dens
        img = paper * (1 - a[..., None]) + ink_col * a[..., None]
        if P.show_through:
            st = Image.new('L', (w, h), 0)
            sd = ImageDraw.Draw(st)
            draw_segments(sd, fl, P.back_blocks, E, ox, oy, (wx0 - 60, wy0 - 60, wx1 + 60, wy1 + 60))
            m = np.asarray(st, dtype=np.float32)[:, ::-1] / 255.0
            m = cv2.GaussianBlur(m, (0, 0), max(1.2, 0.11 * E))
            img *= (1 - P.show_k * m)[..., None]
    if marks:
        ml = Image.new('L', (w, h), 0)
        draw_marks(ImageDraw.Draw(ml), fl, marks, E, ox, oy)
        ma = np.asarray(ml, dtype=np.float32) / 255.0 * P.mark_alpha
        col = np.array(P.mark_col, np.float32)
        img = img * (1 - ma[..., None] + ma[..., None] * col)
    return np.clip(img, 0, 1), ox, oy


def draw_finger_or_pen(rng, img, kind, forbid, em_px):
    """composite a finger or pen entering from an image edge, avoiding the forbid mask"""
    Hh, W = img.shape[:2]
    for _ in range(40):
        edge = rng.choice(['bottom', 'bottom', 'right', 'left', 'top'])
        t = rng.uniform(0.1, 0.9)
        if edge == 'bottom':
            s = np.array([t * W, Hh + 40.0]); ang = -90 + rng.uniform(-35, 35)
        elif edge == 'top':
            s = np.array([t * W, -40.0]); ang = 90 + rng.uniform(-35, 35)
        elif edge == 'left':
            s = np.array([-40.0, t * Hh]); ang = 0 + rng.uniform(-35, 35)
        else:
            s = np.array([W + 40.0, t * Hh]); ang = 180 + rng.uniform(-35, 35)
        dvec = np.array([math.cos(math.radians(ang)), math.sin(math.radians(ang))])
        if kind == 'finger':
            width = em_px * rng.uniform(2.8, 4.2)
            length = rng.uniform(0.18, 0.42) * min(W, Hh) + 40
        else:
            width = em_px * rng.uniform(0.55, 0.85)
            length = rng.uniform(0.35, 0.7) * max(W, Hh)
        tip = s + dvec * length
        mask = np.zeros((Hh, W), np.uint8)
        if kind == 'finger':
            cv2.line(mask, tuple(int(v) for v in s), tuple(int(v) for v in tip), 255, int(width), cv2.LINE_AA)
            cv2.circle(mask, tuple(int(v) for v in tip), int(width / 2), 255, -1, cv2.LINE_AA)
        else:
            back = tip - dvec * (width * 2.2)
            cv2.line(mask, tuple(int(v) for v in s), tuple(int(v) for v in back), 255, int(width), cv2.LINE_AA)
            nrm = np.array([-dvec[1], dvec[0]])
            cone = np.array([back + nrm * width / 2, back - nrm * width / 2, tip], np.int32)
            cv2.fillConvexPoly(mask, cone, 255, cv2.LINE_AA)
        if (mask.astype(bool) & forbid).any():
            continue
        m = mask.astype(np.float32) / 255.0
        # shadow
        off = (em_px * rng.uniform(0.4, 1.2)) * np.array([rng.uniform(-1, 1), rng.uniform(0.3, 1)])
        M = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
        sh = cv2.warpAffine(m, M, (W, Hh))
        sh = cv2.GaussianBlur(sh, (0, 0), width * 0.25 + 3)
        img *= (1 - 0.45 * sh)[..., None]
        # cylinder shading across the object
        yy, xx = np.mgrid[0:Hh, 0:W].astype(np.float32)
        nrm = np.array([-dvec[1], dvec[0]], np.float32)
        dist = ((xx - s[0]) * nrm[0] + (yy - s[1]) * nrm[1]) / (width / 2)
        along = ((xx - s[0]) * dvec[0] + (yy - s[1]) * dvec[1])
        shade = np.clip(1 - 0.45 * np.clip(np.abs(dist), 0, 1) ** 2 + 0.12 * dist, 0.3, 1.2)
        if kind == 'finger':
            tone = rng.choice([0, 1, 2, 3])
            base = [np.array([0.93, 0.74, 0.62]), np.array([0.86, 0.64, 0.50]), np.array([0.70, 0.50, 0.38]),
                    np.array([0.52, 0.36, 0.27])][tone].astype(np.float32)
            base = base * np.array([rng.uniform(0.95, 1.05), rng.uniform(0.95, 1.05), rng.uniform(0.95, 1.05)],
                                   np.float32)
            lg = np.clip(0.9 + 0.1 * along / max(1.0, length), 0.85, 1.0)  # slightly darker towards the hand
            col = base[None, None, :] * (shade * lg)[..., None]
            # knuckle creases
            for kk in (1.6, 2.6):
                cz = np.exp(-((along - (length - width * kk)) / (width * 0.05)) ** 2) * (np.abs(dist) < 0.8)
                col *= (1 - 0.12 * cz)[..., None]
            # nail near the tip
            nail = np.zeros((Hh, W), np.uint8)
            c = tip - dvec * width * 0.42
            cv2.ellipse(nail, (int(c[0]), int(c[1])), (int(width * 0.36), int(width * 0.27)),
                        ang, 0, 360, 255, -1, cv2.LINE_AA)
            nm = cv2.GaussianBlur(nail.astype(np.float32) / 255, (0, 0), 2)[..., None]
            col = col * (1 - nm * 0.6) + nm * 0.6 * np.array([0.97, 0.86, 0.84], np.float32) * shade[..., None]
        else:
            body = rng.choice([0, 1, 2, 3])
            base = [np.array([0.1, 0.15, 0.55]), np.array([0.08, 0.08, 0.09]), np.array([0.85, 0.85, 0.82]),
                    np.array([0.7, 0.1, 0.12])][body].astype(np.float32)
            col = base[None, None, :] * shade[..., None]
            tipzone = np.clip((along - (length - width * 2.2)) / (width * 0.5), 0, 1)[..., None]
            col = col * (1 - tipzone) + tipzone * np.array([0.75, 0.75, 0.72], np.float32) * shade[..., None]
            hl = np.exp(-((dist + 0.35) / 0.12) ** 2)[..., None] * 0.25
            col = col + hl
        img[:] = img * (1 - m[..., None]) + np.clip(col, 0, 1) * m[..., None]
        return True
    return False


# ----------------------------------------------------------------------------
# plan
# ----------------------------------------------------------------------------
def choose_k(rng, n, k, pool=None):
    idx = np.arange(n) if pool is None else np.array(sorted(pool))
    k = int(min(max(k, 0), len(idx)))
    sel = set(rng.choice(idx, size=k, replace=False).tolist()) if k > 0 else set()
    return np.array([i in sel for i in range(n)])


def select_items(bank, count, rng):
    must = [i for i, r in enumerate(bank) if has_script(r['question']) or '___' in r['question']
            or len(r['question']) > 60]
    others = [i for i in range(len(bank)) if i not in set(must)]
    order = []
    while len(order) < count:
        need = count - len(order)
        rnd_must = list(rng.permutation(must))
        rnd_oth = list(rng.permutation(others))
        chunk = rnd_must + rnd_oth  # one full pass = every item once, must-items first
        order += chunk[:need]
    order = [int(i) for i in order]
    perm = rng.permutation(len(order))
    return [order[i] for i in perm]


def make_plan(bank, count, seed):
    rng = np.random.default_rng([seed, 7919])
    items = select_items(bank, count, rng)
    n = count
    fr = lambda f: int(round(n * f))
    screen = choose_k(rng, n, fr(15 / 120))
    rot180 = choose_k(rng, n, max(1, fr(6 / 120)) if n >= 10 else 0)
    rot90 = choose_k(rng, n, max(1, fr(4 / 120)) if n >= 10 else 0, pool=[i for i in range(n) if not rot180[i]])
    two_col = choose_k(rng, n, fr(1 / 3))
    col_rule = choose_k(rng, n, (two_col.sum() + 1) // 2, pool=[i for i in range(n) if two_col[i]])
    frame = choose_k(rng, n, fr(0.25))
    header = choose_k(rng, n, fr(0.5))
    hidx = [i for i in range(n) if header[i]]
    hmode = {}
    modes = (['top'] * 45 + ['above'] * 35 + ['both'] * 20)
    for j, i in enumerate(rng.permutation(hidx)):
        hmode[int(i)] = modes[int(j * 100 / max(1, len(hidx)))]
    score = choose_k(rng, n, fr(0.25))
    marks = choose_k(rng, n, fr(0.55))
    finger = choose_k(rng, n, fr(0.15))
    pen = choose_k(rng, n, fr(0.12), pool=[i for i in range(n) if not finger[i]])
    paper = [i for i in range(n) if not screen[i]]
    bend = choose_k(rng, n, fr(0.4), pool=paper)
    hard = choose_k(rng, n, fr(0.25), pool=paper)
    cast = choose_k(rng, n, fr(0.35))
    show = choose_k(rng, n, fr(0.35), pool=paper)
    motion = choose_k(rng, n, fr(0.2))
    bold = choose_k(rng, n, fr(0.3))
    hanging = choose_k(rng, n, fr(0.5))
    neardup = choose_k(rng, n, fr(0.2))
    land = choose_k(rng, n, fr(0.5))
    nstyles = [NUM_STYLES[i % len(NUM_STYLES)] for i in rng.permutation(n)]
    cjks = [['sans', 'serif', 'mono'][i % 3] for i in rng.permutation(n)]
    latins = [['dejavu_sans', 'dejavu_serif', 'dejavu_mono', 'lib_sans', 'lib_serif', 'lib_mono', None][i % 7]
              for i in rng.permutation(n)]
    lines_pref = [['1', '2', '3-5'][i % 3] for i in rng.permutation(n)]
    plan = []
    for i in range(n):
        plan.append(dict(item=items[i], screen=bool(screen[i]), rot180=bool(rot180[i]), rot90=bool(rot90[i]),
                         two_col=bool(two_col[i]), col_rule=bool(col_rule[i]), frame=bool(frame[i]),
                         header=hmode.get(i, 'none'), score=bool(score[i]), marks=bool(marks[i]),
                         finger=bool(finger[i]), pen=bool(pen[i]), bend=bool(bend[i]), hard=bool(hard[i]),
                         cast=bool(cast[i]), show=bool(show[i]), motion=bool(motion[i]), bold=bool(bold[i]),
                         hanging=bool(hanging[i]), neardup=bool(neardup[i]), landscape=bool(land[i]),
                         nstyle=nstyles[i], cjk=cjks[i], latin=latins[i], lines_pref=lines_pref[i]))
    return plan


# ----------------------------------------------------------------------------
# one photo
# ----------------------------------------------------------------------------
class Params:
    pass


def page_params(rng, pl, fs):
    P = Params()
    P.ncols = 2 if pl['two_col'] else 1
    P.gap = float(rng.uniform(1.5, 3.2))
    P.margin = float(rng.uniform(3.0, 7.5))
    P.margin_top = P.margin + float(rng.uniform(0, 1.5))
    P.margin_bot = P.margin
    P.aspect = float(rng.uniform(1.33, 1.45))
    P.line_h = float(rng.uniform(1.45, 1.95))
    P.para_gap = float(rng.uniform(0.45, 1.4))
    P.answer_space = float(rng.choice([0, 0, rng.uniform(1.0, 3.0), rng.uniform(3, 6)]))
    P.nstyle = pl['nstyle']
    P.bold_numbers = pl['bold']
    P.hanging = pl['hanging']
    P.score_note = pl['score']
    P.score_pts = int(rng.choice([2, 3, 4, 5, 6, 8, 10]))
    P.note_cn = bool(rng.random() < 0.6)
    P.blank_w = float(rng.uniform(2.5, 5.0))
    P.near_dup = pl['neardup']
    hm = pl['header']
    P.top_header = hm in ('top', 'both')
    P.section_above = hm in ('above', 'both')
    P.title = str(rng.choice(TITLES))
    P.title_size = float(rng.uniform(1.3, 1.7))
    P.name_line = bool(rng.random() < 0.75)
    P.name_text = str(rng.choice(NAME_LINES))
    P.name_left = bool(rng.random() < 0.5)
    P.name_blank = float(rng.uniform(4, 7))
    P.top_rule = bool(rng.random() < 0.4)
    P.top_section = P.top_header and not P.section_above and rng.random() < 0.6
    P.section_top = str(rng.choice(SECTIONS))
    P.section_mid = str(rng.choice(SECTIONS))
    P.section_size = float(rng.uniform(1.0, 1.15))
    P.col_rule = pl['col_rule']
    P.frame = pl['frame']
    P.frame_w = float(rng.uniform(0.04, 0.1))
    P.frame_double = bool(rng.random() < 0.3)
    if P.nstyle == 'circled':
        P.n0 = int(rng.integers(1, 4))
    else:
        P.n0 = int(rng.choice([1, 1, int(rng.integers(2, 12)), int(rng.integers(12, 30))]))
    # where the framed problem sits
    if P.top_header:
        P.framed_slot = int(rng.choice([0, 0, 1]))
    else:
        P.framed_slot = int(rng.integers(0, 7))
    P.framed_col = int(rng.integers(0, 2)) if P.ncols == 2 else 0
    if P.top_header and P.ncols == 2 and rng.random() < 0.5:
        P.framed_col = 0
    return P


def choose_colw(rng, P, fs, qtext, pref):
    lo, hi = (13.0, 26.0) if P.ncols == 2 else (22.0, 44.0)
    cands = np.sort(rng.uniform(lo, hi, 14))
    groups = {'1': [], '2': [], '3-5': []}
    for cw in cands:
        P.colw = float(cw)
        b = problem_block(P, fs, qtext, '', 8, 0, 0, P.colw)
        nl = b['nlines']
        g = '1' if nl == 1 else ('2' if nl == 2 else ('3-5' if nl <= 5 else None))
        if g:
            groups[g].append(float(cw))
    order = [pref] + [g for g in ['3-5', '2', '1'] if g != pref]
    for g in order:
        if groups[g]:
            return groups[g][int(rng.integers(len(groups[g])))]
    return float(hi)


def fit_camera(rng, pg, W, Hh, theta, px, py, bend, anchor):
    fb = pg.framed['bbox']
    fbx = (fb[0] - 0.15, fb[1] - 0.1, fb[2] + 0.15, fb[3] + 0.1)
    pts = rect_samples(fbx, 9)
    margin = 0.035 * min(W, Hh) + 6
    oks = []
    for em in np.linspace(23.2 / 0.9, 46.8 / 0.9, 30):
        H = make_H(W, Hh, theta, em, anchor, px, py)
        p = fwd(H, pts, bend)
        if p[:, 0].min() < margin or p[:, 0].max() > W - margin or p[:, 1].min() < margin \
                or p[:, 1].max() > Hh - margin:
            continue
        gh = glyph_heights(H, pts, bend)
        if gh.min() < 22.6 or gh.max() > 47.6:
            continue
        oks.append(em)
    if not oks:
        return None
    em = float(oks[int(rng.integers(len(oks)))])
    return make_H(W, Hh, theta, em, anchor, px, py), em


def nearest_ok(pg, H, bend, W, Hh):
    C = np.array([W / 2, Hh / 2])
    best = None
    for b in pg.blocks:
        if b['kind'] != 'problem':
            continue
        x0, y0, x1, y1 = b['bbox']
        c = fwd(H, [((x0 + x1) / 2, (y0 + y1) / 2)], bend)[0]
        dist = np.hypot(*(c - C))
        if best is None or dist < best[0]:
            best = (dist, b)
    return best[1] is pg.framed


def render_photo(args):
    idx, seed, pl, bank, debug = args
    cv2.setNumThreads(1)
    t0 = time.time()
    rng = np.random.default_rng([seed, idx])
    fl = fontlib()
    fs = FontSet(fl, pl['cjk'], pl['latin'], pl['bold'])
    item = pl['item']
    qtext = bank[item]['question']
    meta = dict(idx=idx, id=bank[item]['id'])
    P = page_params(rng, pl, fs)
    P.colw = choose_colw(rng, P, fs, qtext, pl['lines_pref'])
    screen = pl['screen']
    land = pl['landscape']
    result = None
    for attempt in range(12):
        pg = layout_page(rng, P, fs, bank, item)
        fb = pg.framed['bbox']
        W, Hh = (1280, 960) if land else (960, 1280)
        base = 180.0 if pl['rot180'] else (float(rng.choice([90.0, -90.0])) if pl['rot90'] else 0.0)
        jit = 10.0 if attempt < 4 else (5.0 if attempt < 8 else 2.0)
        theta = base + float(rng.uniform(-jit, jit) if rng.random() < 0.75 else rng.uniform(-2.5, 2.5))
        pk = (2.2e-4 if rng.random() < 0.3 else 1.2e-4) * (1.0 if attempt < 6 else 0.4)
        px, py = float(rng.uniform(-pk, pk)), float(rng.uniform(-pk, pk))
        bend = None
        if pl['bend'] and not screen:
            A = float(rng.uniform(0.25, 0.7)) * float(rng.choice([-1, 1]))
            bend = (A, float(rng.uniform(0, pg.w)), float(pg.w * rng.uniform(0.7, 1.4)),
                    float(rng.uniform(-0.3, 0.3)), float(rng.uniform(0, pg.h)), float(pg.h * rng.uniform(0.8, 1.5)))
        cx, cy = (fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2
        anchor = (cx + rng.uniform(-0.3, 0.3) * (fb[2] - fb[0]) / 2, cy + rng.uniform(-0.3, 0.3) * (fb[3] - fb[1]) / 2)
        if attempt >= 3:
            anchor = (cx, cy)
        r = fit_camera(rng, pg, W, Hh, theta, px, py, bend, anchor)
        if r is not None and not nearest_ok(pg, r[0], bend, W, Hh):
            r = None
            continue
        if r is not None:
            result = (pg, W, Hh, theta, px, py, bend, r[0], r[1])
            break
        # adapt: other orientation, then narrower column
        if attempt % 2 == 0:
            land = not land
        else:
            P.colw = max(8.0, P.colw * 0.85)
    if result is None:
        raise RuntimeError('could not fit framed problem for photo %d' % idx)
    pg, W, Hh, theta, px, py, bend, H, em_photo = result
    meta.update(W=W, H=Hh, theta=theta, em_photo=em_photo, char_px=em_photo * 0.9, ncols=P.ncols,
                nlines=pg.framed['nlines'], nstyle=P.nstyle, score=P.score_note, hanging=P.hanging,
                cjk=pl['cjk'], latin=pl['latin'] or 'cjk-own', bold=P.bold_numbers, persp=max(abs(px), abs(py)))
    # nearest-to-centre check
    meta['nearest_ok'] = nearest_ok(pg, H, bend, W, Hh)
    # marks
    marks = add_teacher_marks(rng, P, pg) if pl['marks'] else []
    Hinv = np.linalg.inv(H)

    def visible(x, y):
        p = fwd(H, [(x, y)], bend)[0]
        return 0 <= p[0] < W and 0 <= p[1] < Hh
    vis_marks = [m for m in marks if visible(m['x'] + m['s'] / 2, m['y'] + m['s'] / 2)]
    meta['marks'] = len(vis_marks)
    meta['mark_by_framed'] = any(m['framed'] for m in vis_marks)
    meta['mark_types'] = sorted(set(m['type'] for m in vis_marks))
    # header visibility
    hdr = [b for b in pg.blocks if b['kind'] in ('title', 'nameline', 'section')]
    vis_h = [b for b in hdr if visible((b['bbox'][0] + b['bbox'][2]) / 2, (b['bbox'][1] + b['bbox'][3]) / 2)]
    meta['header_visible'] = sorted(set(b['kind'] for b in vis_h))
    meta['header_above'] = any(b.get('above_framed') for b in vis_h)
    nb = [b for b in pg.blocks if b['kind'] == 'problem' and not b['framed']]
    meta['neighbors_visible'] = sum(1 for b in nb if visible((b['bbox'][0] + b['bbox'][2]) / 2,
                                                             (b['bbox'][1] + b['bbox'][3]) / 2))
    fidx = pg.blocks.index(pg.framed)
    meta['near_dup'] = any(b['kind'] == 'problem' and not b['framed'] and
                           b['qid'].rsplit('-', 1)[0] == pg.framed['qid'].rsplit('-', 1)[0] and
                           abs(int(b['qid'].rsplit('-', 1)[1]) - int(pg.framed['qid'].rsplit('-', 1)[1])) == 1
                           for b in pg.blocks[max(0, fidx - 2):fidx + 3])
    # show-through content (reverse side)
    P.show_through = pl['show'] and not screen
    if P.show_through:
        back = []
        y = P.margin_top
        while y < pg.h:
            j = int(rng.integers(len(bank)))
            bx = P.margin + rng.uniform(0, 3)
            b = text_block('back', fs, bank[j]['question'], bx, y, 1.0, False)
            # mirror: place in page coords so that after flipping the window it lands inside
            back.append(b)
            y += P.line_h * rng.uniform(1.0, 2.5)
        P.back_blocks = back
        P.show_k = float(rng.uniform(0.05, 0.11))
    # inks / colours
    g = rng.uniform(0.88, 0.985)
    P.paper_col = (g, g * rng.uniform(0.985, 1.0), g * rng.uniform(0.93, 0.995))
    ik = rng.uniform(0.04, 0.22)
    P.ink_col = (ik, ik, ik * rng.uniform(1.0, 1.25))
    P.ink_density = float(rng.uniform(0.85, 1.0))
    P.mark_col = (0.82, 0.1, 0.1) if rng.random() < 0.7 else (0.1, 0.22, 0.72)
    P.mark_alpha = float(rng.uniform(0.75, 0.95))
    meta['mark_color'] = 'red' if P.mark_col[0] > 0.5 else 'blue'
    # render resolution
    ss = float(rng.uniform(1.1, 1.35))
    E = max(20, int(round(em_photo * ss)))
    scale = np.diag([1.0 / E, 1.0 / E, 1.0])  # px -> em
    # window (em) covering the photo
    border = np.concatenate([np.stack([np.linspace(0, W, 24), np.zeros(24)], 1),
                             np.stack([np.linspace(0, W, 24), np.full(24, Hh)], 1),
                             np.stack([np.zeros(24), np.linspace(0, Hh, 24)], 1),
                             np.stack([np.full(24, W), np.linspace(0, Hh, 24)], 1)])
    u = apply_h(Hinv, border)
    bpad = (abs(bend[0]) + abs(bend[3]) if bend else 0) + 1.0
    win = [u[:, 0].min() - bpad, u[:, 1].min() - bpad, u[:, 0].max() + bpad, u[:, 1].max() + bpad]
    desk, desk_kind = make_desk(rng, W, Hh)
    meta['desk'] = desk_kind
    yy, xx = np.mgrid[0:Hh, 0:W].astype(np.float32)
    den = Hinv[2, 0] * xx + Hinv[2, 1] * yy + Hinv[2, 2]
    ux = (Hinv[0, 0] * xx + Hinv[0, 1] * yy + Hinv[0, 2]) / den
    uy = (Hinv[1, 0] * xx + Hinv[1, 1] * yy + Hinv[1, 2]) / den
    screen_mask = None
    fpoly = fwd(H, rect_samples((fb[0] - 0.5, fb[1] - 0.5, fb[2] + 0.5, fb[3] + 0.5), 12), bend)
    forbid = np.zeros((Hh, W), np.uint8)
    hull = cv2.convexHull(fpoly.astype(np.float32)).astype(np.int32)
    cv2.fillConvexPoly(forbid, hull, 1)
    forbid = forbid.astype(bool)
    if not screen:
        win = [max(win[0], 0.0), max(win[1], 0.0), min(win[2], pg.w), min(win[3], pg.h)]
        img, ox, oy = render_window(rng, P, pg, fl, E, win, vis_marks)
        if bend:
            dd = bend_d(np.stack([ux.ravel(), uy.ravel()], 1).astype(np.float64), bend)
            qx = ux - dd[:, 0].reshape(ux.shape).astype(np.float32)
            qy = uy - dd[:, 1].reshape(uy.shape).astype(np.float32)
        else:
            qx, qy = ux, uy
        mx = (qx * E - ox).astype(np.float32)
        my = (qy * E - oy).astype(np.float32)
        paper = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
        alpha = cv2.remap(np.ones(img.shape[:2], np.float32), mx, my, cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        meta['page_edge_visible'] = bool((alpha < 0.5).any())
        if bend:
            A, xa, Lb = bend[0], bend[1], bend[2]
            k = min(0.12, abs(A) * math.pi / Lb * 2.5)
            shade = 1 + k * np.cos(np.pi * (ux - xa) / Lb) * np.sign(A)
            paper *= shade[..., None]
        # paper drop shadow on desk
        off = rng.uniform(3, 10, 2)
        sh = cv2.warpAffine(alpha, np.float32([[1, 0, off[0]], [0, 1, off[1]]]), (W, Hh))
        sh = cv2.GaussianBlur(sh, (0, 0), 6)
        desk *= (1 - 0.45 * sh)[..., None]
        photo = desk * (1 - alpha[..., None]) + paper * alpha[..., None]
    else:
        # --- photo of a phone / laptop screen showing the page
        dev = 'phone' if rng.random() < 0.55 else 'laptop'
        meta['screen'] = dev
        P.screen_white = tuple(float(v) for v in (rng.uniform(0.9, 1.0), rng.uniform(0.9, 1.0), rng.uniform(0.92, 1.0)))
        P.viewer_bg = (0.35, 0.36, 0.38) if rng.random() < 0.5 else (0.82, 0.82, 0.84)
        if dev == 'phone':
            mxl, mxr = rng.uniform(0.8, 3.0), rng.uniform(0.8, 3.0)
            sw = (fb[2] - fb[0]) + mxl + mxr
            sh_ = sw * rng.uniform(1.7, 2.1)
            top = fb[1] - rng.uniform(0.25, 0.75) * (sh_ - (fb[3] - fb[1]))
            srect = (fb[0] - mxl, top, fb[2] + mxr, top + sh_)
            bez = rng.uniform(0.6, 1.6)
            rad = rng.uniform(1.5, 3.5)
            body = (0.04, 0.04, 0.05)
        else:
            mxl, mxr = rng.uniform(2, 15), rng.uniform(2, 15)
            sw = (fb[2] - fb[0]) + mxl + mxr
            sh_ = max(sw * 0.62, (fb[3] - fb[1]) + 6)
            top = fb[1] - rng.uniform(0.3, 0.7) * (sh_ - (fb[3] - fb[1]))
            srect = (fb[0] - mxl, top, fb[2] + mxr, top + sh_)
            bez = rng.uniform(1.2, 3.0)
            rad = rng.uniform(0.3, 1.0)
            body = (0.08, 0.08, 0.09)
        win = [max(win[0], srect[0] - 0.5), max(win[1], srect[1] - 0.5),
               min(win[2], srect[2] + 0.5), min(win[3], srect[3] + 0.5)]
        img, ox, oy = render_window(rng, P, pg, fl, E, win, vis_marks, screen=True)
        # screen pixel pitch in photo px
        p_s = float(rng.uniform(1.15, max(1.25, min(2.6, em_photo / 17.0))))
        meta['screen_pitch'] = p_s
        s_pp = em_photo / E  # photo px per page px (approx)
        f = s_pp / p_s  # screen px per page px
        sw_px = max(8, int(round(img.shape[1] * f)))
        sh_px = max(8, int(round(img.shape[0] * f)))
        scr = cv2.resize(img, (sw_px, sh_px), interpolation=cv2.INTER_AREA)
        sub = np.repeat(np.repeat(scr, 3, axis=0), 3, axis=1)
        pat = np.zeros((3, 3, 3), np.float32)
        rowgain = [1.0, 1.0, rng.uniform(0.3, 0.6)]
        for r_ in range(3):
            for c_ in range(3):
                pat[r_, c_, c_] = rowgain[r_]
        if rng.random() < 0.5:
            pat = pat.transpose(1, 0, 2).copy()
        kmod = float(rng.uniform(0.3, 0.7))  # visibility of the sub-pixel grid
        meta['moire_strength'] = kmod
        pat = (1 - kmod) + kmod * pat / np.mean(pat)
        sub *= np.tile(pat.astype(np.float32), (sh_px, sw_px, 1))
        # sub pixel -> page px -> em -> photo
        kx = img.shape[1] / (3.0 * sw_px)
        ky = img.shape[0] / (3.0 * sh_px)
        Hs = H @ scale @ T(ox, oy) @ np.diag([kx, ky, 1.0])
        warped = cv2.warpPerspective(sub, Hs, (W, Hh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        gain = rng.uniform(0.9, 1.05)
        warped = np.clip(warped * gain, 0, 1.2)

        def rrect_poly(r, radius, n=10):
            x0, y0, x1, y1 = r
            radius = min(radius, (x1 - x0) / 2, (y1 - y0) / 2)
            pts = []
            for cxy, a0 in [((x1 - radius, y0 + radius), -90), ((x1 - radius, y1 - radius), 0),
                            ((x0 + radius, y1 - radius), 90), ((x0 + radius, y0 + radius), 180)]:
                for a in np.linspace(a0, a0 + 90, n):
                    pts.append((cxy[0] + radius * math.cos(math.radians(a)), cxy[1] + radius * math.sin(math.radians(a))))
            return np.array(pts)
        outer = (srect[0] - bez, srect[1] - bez * (1.0 if dev == 'phone' else 1.2), srect[2] + bez,
                 srect[3] + bez * (1.0 if dev == 'phone' else 2.2))
        po = apply_h(H, rrect_poly(outer, rad + bez))
        ps = apply_h(H, rrect_poly(srect, rad * 0.6 if dev == 'phone' else 0.05))
        mo = np.zeros((Hh, W), np.uint8)
        ms = np.zeros((Hh, W), np.uint8)
        cv2.fillPoly(mo, [np.round(po * 4).astype(np.int32)], 255, cv2.LINE_AA, shift=2)
        cv2.fillPoly(ms, [np.round(ps * 4).astype(np.int32)], 255, cv2.LINE_AA, shift=2)
        mo = mo.astype(np.float32) / 255
        ms = ms.astype(np.float32) / 255
        meta['bezel_visible'] = bool((ms < 0.5).any())
        # shadow of the device on the desk
        shd = cv2.GaussianBlur(cv2.warpAffine(mo, np.float32([[1, 0, 8], [0, 1, 12]]), (W, Hh)), (0, 0), 10)
        desk *= (1 - 0.5 * shd)[..., None]
        bodyimg = np.ones((Hh, W, 3), np.float32) * np.array(body, np.float32)
        bodyimg *= (1 + smooth_noise(rng, Hh, W, 60, 0.15))[..., None]
        photo = desk * (1 - mo[..., None]) + bodyimg * mo[..., None]
        photo = photo * (1 - ms[..., None]) + warped * ms[..., None]
        screen_mask = mo
        meta['page_edge_visible'] = False
    # finger / pen
    obj = 'finger' if pl['finger'] else ('pen' if pl['pen'] else None)
    meta['object'] = None
    if obj:
        if draw_finger_or_pen(rng, photo, obj, forbid, em_photo):
            meta['object'] = obj
    # ---- lighting
    gx, gy = rng.uniform(-0.35, 0.35), rng.uniform(-0.35, 0.35)
    light = 1.0 + gx * (xx / W - 0.5) + gy * (yy / Hh - 0.5)
    r2 = ((xx / W - 0.5) ** 2 + (yy / Hh - 0.5) ** 2)
    light *= 1 - rng.uniform(0.1, 0.45) * r2
    light *= rng.uniform(0.85, 1.08)
    if pl['cast']:
        c = rng.uniform(0, 1, 2) * [W, Hh]
        sig = rng.uniform(0.2, 0.5) * max(W, Hh)
        blob = np.exp(-(((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * sig ** 2)))
        light *= 1 - rng.uniform(0.15, 0.35) * blob
    meta['cast_shadow'] = bool(pl['cast'])
    meta['hard_shadow'] = False
    if pl['hard'] and not screen:
        ang = rng.uniform(0, 2 * np.pi)
        nrm = np.array([math.cos(ang), math.sin(ang)])
        # line through a point so that 15-50 % of the image is in shadow
        frac = rng.uniform(0.15, 0.5)
        proj = (xx - W / 2) * nrm[0] + (yy - Hh / 2) * nrm[1]
        thr = np.quantile(proj[::8, ::8], 1 - frac)
        edge = np.clip((proj - thr) / rng.uniform(1.0, 4.0), -8, 8)
        hs = 1 / (1 + np.exp(-edge))
        light *= 1 - rng.uniform(0.25, 0.45) * hs
        meta['hard_shadow'] = True
    light = light.astype(np.float32)
    if screen_mask is not None:
        lm = screen_mask
        light = light * (1 - lm) + (0.92 + 0.08 * light) * lm
    photo = photo * light[..., None]
    if screen:
        # glare on the glass
        c = rng.uniform(0.1, 0.9, 2) * [W, Hh]
        sx, sy = rng.uniform(0.08, 0.3) * W, rng.uniform(0.08, 0.3) * Hh
        ga = np.exp(-((xx - c[0]) ** 2 / (2 * sx ** 2) + (yy - c[1]) ** 2 / (2 * sy ** 2)))
        g = (rng.uniform(0.15, 0.4) * ga * screen_mask)[..., None]
        photo = 1 - (1 - photo) * (1 - g)
        if rng.random() < 0.5:
            ang = rng.uniform(0, np.pi)
            band = np.abs((xx - c[0]) * math.cos(ang) + (yy - c[1]) * math.sin(ang))
            b2 = np.exp(-(band / rng.uniform(15, 60)) ** 2) * rng.uniform(0.08, 0.2) * screen_mask
            photo = 1 - (1 - photo) * (1 - b2[..., None])
    # white balance
    wb = np.array([rng.uniform(0.93, 1.07), 1.0, rng.uniform(0.9, 1.08)], np.float32)
    photo = photo * wb
    # ---- optics
    sig = float(rng.uniform(0.35, min(1.3, 0.3 + 0.022 * em_photo)))
    photo = cv2.GaussianBlur(photo.astype(np.float32), (0, 0), sig)
    meta['blur'] = sig
    meta['motion'] = False
    if pl['motion']:
        L = int(rng.integers(3, int(max(4, min(9, em_photo * 0.18))) + 1))
        k = np.zeros((L, L), np.float32)
        k[L // 2, :] = 1
        M = cv2.getRotationMatrix2D(((L - 1) / 2, (L - 1) / 2), float(rng.uniform(0, 180)), 1.0)
        k = cv2.warpAffine(k, M, (L, L))
        k /= k.sum()
        photo = cv2.filter2D(photo, -1, k)
        meta['motion'] = L
    # ---- sensor
    nsig = rng.uniform(0.006, 0.022)
    noise = rng.normal(0, nsig, (Hh, W, 1)).astype(np.float32)
    cn = rng.normal(0, nsig * 0.4, (Hh // 2 + 1, W // 2 + 1, 3)).astype(np.float32)
    cn = cv2.resize(cn, (W, Hh), interpolation=cv2.INTER_LINEAR)
    photo = photo + noise * np.sqrt(np.clip(photo, 0.02, 1)) * 1.6 + cn
    photo = np.clip(photo, 0, 1) ** rng.uniform(0.92, 1.08)
    out = (photo * 255 + 0.5).astype(np.uint8)
    if debug:
        cv2.polylines(out, [hull], True, (0, 255, 0), 1)
    q = int(rng.integers(65, 93))
    meta['jpeg_q'] = q
    ok, enc = cv2.imencode('.jpg', cv2.cvtColor(out, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q])
    meta['missing_glyphs'] = ''.join(sorted(fs.missing))
    meta['time'] = time.time() - t0
    return idx, enc.tobytes(), meta


# ----------------------------------------------------------------------------
def summarize(metas, plan, bank):
    c = Counter()
    n = len(metas)
    for m, pl in zip(metas, plan):
        q = bank[pl['item']]['question']
        c['number style ' + m['nstyle']] += 1
        c['score note'] += m['score']
        c['two-column page'] += m['ncols'] == 2
        c['column rule'] += pl['col_rule'] and m['ncols'] == 2
        c['page frame'] += pl['frame']
        c['header line visible'] += bool(m['header_visible'])
        c['section header directly above framed'] += m['header_above']
        for k in m['header_visible']:
            c['header visible: ' + k] += 1
        nl = m['nlines']
        c['framed lines ' + ('1' if nl == 1 else '2' if nl == 2 else '3-5')] += 1
        if nl > 1:
            c['multi-line indent ' + ('hanging' if m['hanging'] else 'flush')] += 1
        c['teacher marks visible'] += m['marks'] > 0
        c['teacher mark next to framed'] += m['mark_by_framed']
        if m['marks']:
            c['teacher marks ' + m['mark_color']] += 1
        for t in m['mark_types']:
            c['mark type ' + t] += 1
        c['finger'] += m['object'] == 'finger'
        c['pen'] += m['object'] == 'pen'
        c['turned 180'] += pl['rot180']
        c['turned 90'] += pl['rot90']
        c['tilt > 5 deg (excl. 90/180)'] += abs(((m['theta'] + 45) % 90) - 45) > 5
        c['strong perspective'] += m['persp'] > 1.3e-4
        c['screen photo'] += pl['screen']
        if pl['screen']:
            c['screen ' + m['screen']] += 1
        c['page edge / desk visible'] += m['page_edge_visible']
        c['paper bend'] += pl['bend']
        c['hard shadow edge'] += m['hard_shadow']
        c['cast shadow'] += m['cast_shadow']
        c['show-through'] += pl['show']
        c['motion blur'] += bool(m['motion'])
        c['cjk font ' + m['cjk']] += 1
        c['latin font ' + m['latin']] += 1
        c['bold numbers'] += m['bold']
        c['near-duplicate neighbour'] += m['near_dup']
        c['framed has sub/superscript'] += has_script(q)
        c['framed has blank ___'] += '___' in q
        c['framed longer than 60 chars'] += len(q) > 60
        c['landscape 1280x960'] += m['W'] == 1280
        c['nearest-to-centre ok'] += m['nearest_ok']
    hs = [m['char_px'] for m in metas]
    return c, (min(hs), float(np.median(hs)), max(hs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bank', required=True)
    ap.add_argument('out_dir')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=381)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--debug-boxes', action='store_true', help='draw the framed box (for eyeballing only)')
    ap.add_argument('--meta', help='optional path for a JSON dump of per-photo parameters')
    a = ap.parse_args()
    t0 = time.time()
    bank = [json.loads(l) for l in open(a.bank, encoding='utf-8') if l.strip()]
    os.makedirs(a.out_dir, exist_ok=True)
    plan = make_plan(bank, a.count, a.seed)
    slim = [dict(question=r['question'], id=r['id']) for r in bank]
    tasks = [(i + 1, a.seed, plan[i], slim, a.debug_boxes) for i in range(a.count)]
    metas = [None] * a.count
    if a.jobs > 1:
        with Pool(a.jobs) as pool:
            it = pool.imap_unordered(render_photo, tasks, chunksize=1)
            for idx, data, meta in it:
                with open(os.path.join(a.out_dir, 'qa%03d.jpg' % idx), 'wb') as f:
                    f.write(data)
                metas[idx - 1] = meta
    else:
        for t in tasks:
            idx, data, meta = render_photo(t)
            with open(os.path.join(a.out_dir, 'qa%03d.jpg' % idx), 'wb') as f:
                f.write(data)
            metas[idx - 1] = meta
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for i in range(a.count):
            w.writerow(['qa%03d' % (i + 1), bank[plan[i]['item']]['question']])
    with open(os.path.join(a.out_dir, 'queries.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for i in range(a.count):
            r = bank[plan[i]['item']]
            w.writerow(['qa%03d' % (i + 1), r['question'], r['id'], 'exact'])
    if a.meta:
        with open(a.meta, 'w', encoding='utf-8') as f:
            json.dump(metas, f, ensure_ascii=False, indent=0, default=str)
    c, hs = summarize(metas, plan, bank)
    print('wrote %d photos to %s in %.1f s' % (a.count, a.out_dir, time.time() - t0))
    print('framed char height px: min %.1f median %.1f max %.1f' % hs)
    for k in sorted(c):
        print('  %-42s %d' % (k, c[k]))
    miss = set(''.join(m['missing_glyphs'] for m in metas))
    if miss:
        print('glyphs missing in every font:', ''.join(sorted(miss)))
    bad = [m['idx'] for m in metas if not m['nearest_ok']]
    if bad:
        print('WARNING framed not nearest to centre:', bad)


if __name__ == '__main__':
    main()
