#!/usr/bin/env python3
"""Synthetic phone photos of printed homework pages (set photos_tune31).

Each photo shows a rendered worksheet / exam paper / textbook page full of
question-bank problems; the camera is pointed at ONE of them (the "framed"
problem), which lies complete near the photo centre.  truth.csv holds that
problem's bank question text; queries.csv the matching retrieval query;
cases.csv the kinds of case each photo shows (plus the framed problem's
quadrilateral in photo pixels).

  python tests/photos_tune31/make_photos.py --bank appliance/data/demo_bank.jsonl \
      OUTDIR --count 120 --seed 321 [--jobs N]

Only numpy, Pillow, OpenCV and system fonts are used.  Output depends only on
(seed, count): the plan is drawn from the seed, each photo's random streams
from (seed, index), so --jobs does not change a single byte.
"""
import argparse
import csv
import difflib
import json
import math
import os
import time
import zlib
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# --------------------------------------------------------------------------
# fonts
# --------------------------------------------------------------------------
_FONT_FILES = None
_FONTS = {}
_GLYPH = {}
_NOTDEF = {}


def font_path(name):
    global _FONT_FILES
    if _FONT_FILES is None:
        _FONT_FILES = {}
        for root, _, files in os.walk('/usr/share/fonts'):
            for f in sorted(files):
                _FONT_FILES.setdefault(f, os.path.join(root, f))
    if name not in _FONT_FILES:
        raise SystemExit('missing system font: %s (see fc-list)' % name)
    return _FONT_FILES[name]


def get_font(name, size):
    key = (name, int(size))
    if key not in _FONTS:
        idx = 2 if name.endswith('.ttc') else 0   # Noto CJK collections: 2 = SC
        _FONTS[key] = ImageFont.truetype(font_path(name), int(size), index=idx,
                                         layout_engine=ImageFont.Layout.BASIC)
    return _FONTS[key]


def _sig(font, ch):
    im = Image.new('L', (72, 72))
    ImageDraw.Draw(im).text((10, 54), ch, font=font, fill=255, anchor='ls')
    return im.tobytes()


def has_glyph(name, ch):
    key = (name, ch)
    if key not in _GLYPH:
        if ch.isspace():
            _GLYPH[key] = True
        else:
            f = get_font(name, 40)
            if name not in _NOTDEF:
                _NOTDEF[name] = _sig(f, '\U000FFFFD')
            _GLYPH[key] = _sig(f, ch) != _NOTDEF[name]
    return _GLYPH[key]


def bold_of(name):
    table = {'NotoSansCJK-Regular.ttc': 'NotoSansCJK-Bold.ttc',
             'NotoSerifCJK-Regular.ttc': 'NotoSerifCJK-Bold.ttc',
             'DejaVuSans.ttf': 'DejaVuSans-Bold.ttf', 'DejaVuSerif.ttf': 'DejaVuSerif-Bold.ttf',
             'DejaVuSansCondensed.ttf': 'DejaVuSansCondensed-Bold.ttf',
             'DejaVuSerifCondensed.ttf': 'DejaVuSerifCondensed-Bold.ttf'}
    if name in table:
        return table[name]
    return name.replace('-Regular.', '-Bold.')


# body styles: name -> (latin font, CJK font)
STYLES = {
    'noto-serif': ('NotoSerifCJK-Regular.ttc', 'NotoSerifCJK-Regular.ttc'),
    'songti+times': ('LiberationSerif-Regular.ttf', 'NotoSerifCJK-Regular.ttc'),
    'noto-sans': ('NotoSansCJK-Regular.ttc', 'NotoSansCJK-Regular.ttc'),
    'heiti+arial': ('LiberationSans-Regular.ttf', 'NotoSansCJK-Regular.ttc'),
    'noto-serif-bold': ('NotoSerifCJK-Bold.ttc', 'NotoSerifCJK-Bold.ttc'),
    'noto-sans-bold': ('NotoSansCJK-Bold.ttc', 'NotoSansCJK-Bold.ttc'),
    'songti+dejavu-serif': ('DejaVuSerif.ttf', 'NotoSerifCJK-Regular.ttc'),
    'heiti+narrow': ('LiberationSansNarrow-Regular.ttf', 'NotoSansCJK-Regular.ttc'),
    'times': ('LiberationSerif-Regular.ttf', 'NotoSerifCJK-Regular.ttc'),
    'arial': ('LiberationSans-Regular.ttf', 'NotoSansCJK-Regular.ttc'),
    'dejavu-sans': ('DejaVuSans.ttf', 'NotoSansCJK-Regular.ttc'),
    'dejavu-serif': ('DejaVuSerif.ttf', 'NotoSerifCJK-Regular.ttc'),
    'arial-narrow': ('LiberationSansNarrow-Regular.ttf', 'NotoSansCJK-Regular.ttc'),
    'dejavu-condensed': ('DejaVuSansCondensed.ttf', 'NotoSansCJK-Regular.ttc'),
    'times-bold': ('LiberationSerif-Bold.ttf', 'NotoSerifCJK-Bold.ttc'),
    'arial-bold': ('LiberationSans-Bold.ttf', 'NotoSansCJK-Bold.ttc'),
    'narrow-bold': ('LiberationSansNarrow-Bold.ttf', 'NotoSansCJK-Bold.ttc'),
    'dejavu-serif-cond-bold': ('DejaVuSerifCondensed-Bold.ttf', 'NotoSerifCJK-Bold.ttc'),
}
ZH_STYLES = ['noto-serif', 'songti+times', 'noto-sans', 'heiti+arial', 'noto-serif-bold',
             'noto-sans-bold', 'songti+dejavu-serif', 'heiti+narrow']
EN_STYLES = ['times', 'arial', 'dejavu-sans', 'dejavu-serif', 'arial-narrow', 'dejavu-condensed',
             'times-bold', 'arial-bold', 'narrow-bold', 'dejavu-serif-cond-bold', 'noto-sans',
             'noto-serif']


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF
            or 0x3000 <= o <= 0x303F)


SUP = dict(zip('⁰¹²³⁴⁵⁶⁷⁸⁹ⁿ⁺⁻', '0123456789n+-'))
SUB = dict(zip('₀₁₂₃₄₅₆₇₈₉ₙₐₓ₊₋', '0123456789nax+-'))


class FontSet:
    """One type size of one style; sup/sub drawn smaller and raised/lowered."""

    def __init__(self, latin, cjk, em, cjk_punct=True, blank_em=3.5, blank_mode='line'):
        self.latin, self.cjk, self.em = latin, cjk, int(round(em))
        self.small = max(6, int(round(em * 0.62)))
        self.asc, self.desc = 0.9 * em, 0.24 * em
        self.cjk_punct = cjk_punct
        self.blank_w = blank_em * em
        self.blank_mode = blank_mode
        self._w = {}

    def bold(self):
        return FontSet(bold_of(self.latin), bold_of(self.cjk), self.em, self.cjk_punct,
                       self.blank_w / self.em, self.blank_mode)

    def scaled(self, k, latin=None, cjk=None):
        return FontSet(latin or self.latin, cjk or self.cjk, self.em * k, self.cjk_punct,
                       self.blank_w / self.em, self.blank_mode)

    def font(self, ch, st):
        size = self.small if st in ('sup', 'sub') else self.em
        use_cjk = (is_cjk(ch) or (self.cjk_punct and ch in '“”‘’…—·')
                   or not has_glyph(self.latin, ch))
        return get_font(self.cjk if use_cjk else self.latin, size)

    def dy(self, st):
        return -0.36 * self.em if st == 'sup' else (0.16 * self.em if st == 'sub' else 0.0)

    def width(self, ch, st):
        key = (ch, st)
        if key not in self._w:
            if st == 'blank':
                w = self.blank_w
            elif st == 'nblank':
                w = 5.0 * self.em
            else:
                w = self.font(ch, st).getlength(ch)
                if st in ('sup', 'sub'):
                    w += 0.04 * self.em
            self._w[key] = w
        return self._w[key]


def styled(text):
    """Bank text -> [(char, style)]: '²'->('2','sup'), '₁'->('1','sub'), '___'->blank."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == '_':
            j = i
            while j < len(text) and text[j] == '_':
                j += 1
            if j - i >= 2:
                out.append(('', 'blank'))
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


NO_START = set('，。、；：？！）》」』”’,.;:?!)]}%℃°')
NO_END = set('（《「『“‘([{')


def tokens(text, fs, name_blanks=False):
    """Line-breaking units: a CJK char, a latin word, a space or a blank."""
    sc = styled(text)
    if name_blanks:
        sc = [(c, 'nblank' if s == 'blank' else s) for c, s in sc]
    toks, cur = [], []
    for ch, st in sc:
        if st == 'n' and ch == ' ':
            if cur:
                toks.append(cur)
                cur = []
            toks.append([(' ', 'space', fs)])
        elif st in ('blank', 'nblank') or (st == 'n' and is_cjk(ch)):
            if cur:
                toks.append(cur)
                cur = []
            toks.append([(ch, st, fs)])
        else:
            cur.append((ch, st, fs))
    if cur:
        toks.append(cur)
    merged = []
    for t in toks:
        if merged and t[0][1] == 'n' and t[0][0] in NO_START and merged[-1][0][1] != 'space':
            merged[-1] = merged[-1] + t
        else:
            merged.append(t)
    out, carry = [], None
    for t in merged:
        if carry is not None:
            t, carry = carry + t, None
        if t[-1][1] == 'n' and t[-1][0] in NO_END:
            carry = t
            continue
        out.append(t)
    if carry:
        out.append(carry)
    return out


def tok_w(tok):
    return sum(fs.width(ch, st) if st != 'space' else fs.width(' ', 'n') for ch, st, fs in tok)


def flow(toks, x_first, x_cont, x_right, base, line_h):
    """Greedy line filling. Returns placements, [(x0, x1, base)], next base."""
    pl, lines = [], []
    x = start = x_first
    has = False
    for tok in toks:
        if tok[0][1] == 'space':
            if has:
                x += tok_w(tok)
            continue
        w = tok_w(tok)
        if has and x + w > x_right:
            lines.append((start, line_x1, base))
            base += line_h
            x = start = x_cont
            has = False
        for ch, st, fs in tok:
            pl.append((x, base, ch, st, fs))
            x += fs.width(ch, st)
        line_x1, has = x, True
    if has:
        lines.append((start, line_x1, base))
    return pl, lines, base + line_h


def box_of(lines, fs):
    return (min(l[0] for l in lines), min(l[2] for l in lines) - fs.asc,
            max(l[1] for l in lines), max(l[2] for l in lines) + fs.desc)


def union(*boxes):
    bs = [b for b in boxes if b]
    return (min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs))


# --------------------------------------------------------------------------
# page content
# --------------------------------------------------------------------------
ZH_SUBJ = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'biology': '生物',
           'geography': '地理', 'history': '历史', 'chinese': '语文', 'english': '英语'}
EN_SUBJ = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry',
           'biology': 'Biology', 'geography': 'Geography', 'history': 'History',
           'chinese': 'Chinese', 'english': 'English'}
EN_TOPIC = {'math': 'Algebra and Geometry', 'physics': 'Forces and Motion',
            'chemistry': 'Atoms and Reactions', 'biology': 'Cells and Organisms',
            'geography': 'Our Planet', 'history': 'World History',
            'chinese': 'Reading', 'english': 'Grammar Review'}
CN_DIG = '零一二三四五六七八九'
CIRCLED = [chr(0x2460 + i) for i in range(20)]
ZH_NUM_STYLES = ['dot', 'dun', 'fwparen', 'di', 'circled', 'paren', 'dot', 'dun']
EN_NUM_STYLES = ['dot', 'paren', 'Q', 'rparen', 'question', 'circled', 'dot']


def cn_num(n):
    if n < 10:
        return CN_DIG[n]
    if n < 20:
        return '十' + (CN_DIG[n % 10] if n % 10 else '')
    return CN_DIG[n // 10] + '十' + (CN_DIG[n % 10] if n % 10 else '')


def label_text(style, n):
    return {'dot': '%d.' % n, 'dun': '%d、' % n, 'fwparen': '（%d）' % n, 'paren': '(%d)' % n,
            'Q': 'Q%d.' % n, 'rparen': '%d)' % n, 'di': '第%d题' % n,
            'circled': CIRCLED[n - 1] if n <= 20 else '(%d)' % n, 'question': 'Question %d:' % n}[style]


def has_cjk(s):
    return any(is_cjk(c) for c in s)


ZH_WORDS = {
    'biology': ['叶绿体', '线粒体', '细胞核', '细胞膜', '液泡', '左心室', '右心室', '肝脏', '小肠', '23对'],
    'geography': ['太平洋', '大西洋', '亚洲', '长江', '黄河', '新疆', '澳门', '青藏高原', '珠穆朗玛峰', '约24小时'],
    'chinese': ['李白', '杜甫', '孟浩然', '王之涣', '朱自清', '鲁迅', '诸葛亮', '范仲淹', '苏轼', '孔子'],
    'chemistry': ['氧气', '氮气', '二氧化碳', 'H₂O', 'H₂O₂', 'Fe₃O₄', '稀有气体', '氢气'],
    'physics': ['3×10⁸ m/s', '340 m/s', '100 ℃', '0 ℃', '牛顿', '焦耳', '瓦特', '20 Ω'],
    'english': ['went', 'gone', 'goes', 'better', 'best', 'children', 'teeth', 'cheap'],
}
EN_WORDS = ['went', 'gone', 'goes', 'better', 'best', 'cheap', 'the cell', 'the Nile',
            'mitochondria', 'newton', 'joule', 'watt', 'since', 'for', 'an', 'a']


def make_options(entry, rng):
    q, subj = entry['question'], entry['subject']
    if '哪一年' in q or 'what year' in q:
        y = int(rng.integers(-300, 1960))
        vals = sorted(set([y, y + int(rng.integers(1, 40)), y - int(rng.integers(1, 40)),
                           y + int(rng.integers(41, 90))]))
        opts = [('公元前%d年' % -v if v < 0 else '%d年' % v) if has_cjk(q) else str(abs(v))
                for v in vals]
    elif subj in ('math', 'physics') and any(c.isdigit() for c in q):
        b = int(rng.integers(2, 60))
        vals = list(dict.fromkeys([b, b + int(rng.integers(1, 9)), max(1, b - int(rng.integers(1, 9))),
                                   b * 2, b + 10, b + 3]))[:4]
        unit = ['', '', ' cm', ' m/s', '厘米', ' N'][int(rng.integers(6))] if has_cjk(q) else ''
        opts = ['%d%s' % (v, unit) for v in vals]
    else:
        pool = ZH_WORDS.get(subj, ZH_WORDS['geography']) if has_cjk(q) else EN_WORDS
        opts = [pool[i] for i in rng.permutation(len(pool))[:4]]
    while len(opts) < 4:
        opts.append(str(int(rng.integers(1, 99))))
    return opts[:4]


class PageBuilder:
    def __init__(self, F, framed, bank, rng, em, col_em):
        self.F, self.framed, self.rng = F, framed, rng
        lang = F['page_lang']
        self.lang = lang
        self.zh_head = lang in ('zh', 'mixed')
        latin, cjk = STYLES[F['font']]
        blank_mode = 'line' if rng.random() < 0.6 else 'underscore'
        self.fs = FontSet(latin, cjk, em, cjk_punct=(lang != 'en'),
                          blank_em=float(rng.uniform(2.5, 5.0)), blank_mode=blank_mode)
        self.blank_mode = blank_mode
        self.fs_bold = self.fs.bold()
        head_latin = 'LiberationSans-Bold.ttf' if rng.random() < 0.5 else bold_of(latin)
        self.fs_head = self.fs.scaled(1.0, latin=head_latin, cjk='NotoSansCJK-Bold.ttc') \
            if self.zh_head and rng.random() < 0.6 else self.fs_bold
        self.fs_label = self.fs_bold if rng.random() < 0.3 else self.fs
        self.fs_small = self.fs.scaled(0.8)
        em = self.fs.em
        self.em = em
        k0 = int(rng.integers(15, 60))
        self.ink = (k0, k0 + int(rng.integers(0, 8)), k0 + int(rng.integers(0, 14)))
        self.last_heading = False
        tight = F['tight']
        self.line_h = em * (float(rng.uniform(1.15, 1.3)) if tight else float(rng.uniform(1.5, 1.95)))
        self.gap = em * (float(rng.uniform(0.05, 0.3)) if tight else float(rng.uniform(0.45, 1.3)))
        self.answer_space = 0.0 if tight or rng.random() < 0.55 else em * float(rng.uniform(1.0, 3.5))
        self.cols = F['columns']
        self.col_w = col_em * em
        self.gutter = em * float(rng.uniform(1.5, 3.0))
        text_w = self.cols * self.col_w + (self.cols - 1) * self.gutter
        mfrac = float(rng.uniform(0.07, 0.12))
        self.W = int(text_w / (1 - 2 * mfrac))
        self.H = int(self.W * float(rng.uniform(1.33, 1.42)))
        self.left = int(self.W * mfrac)
        self.top = int(self.H * float(rng.uniform(0.04, 0.07)))
        self.bottom = self.H - int(self.H * 0.06)
        paper = [(247, 246, 240), (250, 250, 247), (244, 240, 228), (240, 241, 238), (252, 251, 246)]
        self.paper = paper[int(rng.integers(len(paper)))]
        self.img = Image.new('RGB', (self.W, self.H), self.paper)
        self.draw = ImageDraw.Draw(self.img)
        self.blocks = []
        self.info = {'title': 0, 'name_line': 0, 'section_heading': 0, 'problem_header': 0,
                     'score_note': 0, 'framed_score_note': 0, 'options_neighbours': 0,
                     'heading_above_framed': 0, 'seal_line': 0, 'score_table': 0}
        # problem pools: same subject & language first
        fl = 'zh' if has_cjk(framed['question']) else 'en'
        others = [e for e in bank if e['id'] != framed['id']]
        if lang == 'zh':
            others = [e for e in others if has_cjk(e['question'])]
        elif lang == 'en':
            others = [e for e in others if not has_cjk(e['question'])]
        same = [e for e in others if e['subject'] == framed['subject']]
        diff = [e for e in others if e['subject'] != framed['subject']]
        self.pool = [same[i] for i in rng.permutation(len(same))] + \
                    [diff[i] for i in rng.permutation(len(diff))]
        if lang == 'mixed':
            self.pool = [self.pool[i] for i in rng.permutation(len(self.pool))]
        self.framed_lang = fl
        self.subject = framed['subject']
        self.number = 1 if rng.random() < 0.45 else int(rng.integers(2, 24))
        self.hw = int(rng.integers(1, 15))
        self.hdr_fmt = int(rng.integers(4))
        self.num_style = F['num_style']
        if F['numbering'] in ('none', 'header'):
            self.num_style = 'none'
        if self.num_style == 'circled':
            self.number = 1
        self.label_gap = em * (0.05 if self.num_style in ('dun', 'fwparen') else float(rng.uniform(0.25, 0.6)))
        self.score_mode = None
        if F['score_note']:
            self.score_mode = ['prefix', 'right'][int(rng.integers(2))] if self.zh_head and fl == 'zh' \
                else ['suffix', 'right', 'prefix'][int(rng.integers(3))]
        self.score_p = float(rng.uniform(0.5, 1.0))
        self.opt_p = float(rng.uniform(0.5, 0.9)) if F['options'] else 0.0
        self.opt_style = ['A．', 'A.', '(A)', 'A)'][int(rng.integers(4))]
        self.para_indent = fl == 'zh' and rng.random() < 0.5

    # ---- drawing helpers
    def put(self, pl, color=None):
        color = color or self.ink
        d = self.draw
        for x, base, ch, st, fs in pl:
            if st in ('blank', 'nblank'):
                w = fs.width(ch, st)
                y = base + 0.14 * fs.em
                if fs.blank_mode == 'line' or st == 'nblank':
                    d.line([(x + 2, y), (x + w - 2, y)], fill=color, width=max(1, round(fs.em / 16)))
                else:
                    f = fs.font('_', 'n')
                    uw = max(1.0, f.getlength('_'))
                    d.text((x, base), '_' * max(2, int(w // uw)), font=f, fill=color, anchor='ls')
            elif st != 'space':
                d.text((x, base + fs.dy(st)), ch, font=fs.font(ch, st), fill=color, anchor='ls')

    def text_line(self, text, fs, x0, x1, y, align='left', color=None, name_blanks=False, draw=True):
        toks = tokens(text, fs, name_blanks)
        w = tok_w([c for t in toks for c in t])
        x = x0 if align == 'left' else (x0 + (x1 - x0 - w) / 2 if align == 'center' else x1 - w)
        pl, lines, nb = flow(toks, max(x0, x), x0, x1, y + fs.asc, fs.em * 1.35)
        if draw:
            self.put(pl, color)
        return nb - fs.em * 1.35 + fs.desc, box_of(lines, fs) if lines else None

    # ---- header area (full width)
    def header(self):
        F, rng, fs, em = self.F, self.rng, self.fs, self.em
        x0, x1 = self.left, self.W - self.left
        y = self.top
        zh = self.zh_head
        subj = ZH_SUBJ[self.subject] if zh else EN_SUBJ[self.subject]
        grade = str(self.framed.get('grade', '7'))
        gi = int(grade) if grade.isdigit() else 7
        gz = '高%s' % cn_num(gi - 9) if gi > 9 else cn_num(gi) + '年级'
        k = int(rng.integers(1, 9))
        doc = F['doc']
        if doc == 'textbook':
            run = self.framed.get('source', '') if zh else 'Chapter %d  %s' % (k, EN_TOPIC[self.subject])
            pg = str(int(rng.integers(12, 180)))
            sm = self.fs_small
            rw = tok_w([c for t in tokens(run + '    ' + pg, sm) for c in t])
            if rw > x1 - x0:
                run = run.split(' ')[-1] if zh else 'Chapter %d' % k
            y2, _ = self.text_line(run, sm, x0, x1, y, color=(90, 90, 90))
            self.text_line(pg, sm, x0, x1, y, align='right', color=(90, 90, 90))
            self.draw.line([(x0, y2 + 0.3 * em), (x1, y2 + 0.3 * em)], fill=(120, 120, 120), width=max(1, em // 14))
            y = y2 + 1.3 * em
            acc = [(30, 90, 170), (20, 130, 90), (200, 100, 20), (150, 40, 90)][int(rng.integers(4))]
            title = ('练习 %d.%d' % (k, int(rng.integers(1, 5))) if rng.random() < 0.5 else '习题 %d.%d' % (k, int(rng.integers(1, 5)))) \
                if zh else ['Exercise %d%s' % (k, 'ABC'[int(rng.integers(3))]), 'Practice Problems', 'Exercises %d.%d' % (k, int(rng.integers(1, 6)))][int(rng.integers(3))]
            hf = self.fs_head.scaled(1.25)
            if rng.random() < 0.5:
                w = tok_w([c for t in tokens(title, hf) for c in t])
                self.draw.rectangle([x0, y, x0 + w + 1.4 * em, y + 1.7 * em], fill=acc)
                self.text_line(title, hf, x0 + 0.7 * em, x1, y + 0.2 * em, color=(255, 255, 255))
                y += 2.3 * em
            else:
                y, _ = self.text_line(title, hf, x0, x1, y, color=acc)
                self.draw.line([(x0, y + 0.25 * em), (x1, y + 0.25 * em)], fill=acc, width=max(2, em // 8))
                y += 0.9 * em
            self.info['title'] = 1
            self.acc = acc
            if rng.random() < 0.35:
                y, _ = self.text_line(('复习巩固' if zh else 'Consolidation'), self.fs_bold, x0, x1, y, color=acc)
                y += 0.4 * em
                self.info['section_heading'] = 1
            return y
        hf = self.fs_head.scaled(float(rng.uniform(1.3, 1.6)))
        if doc == 'exam':
            yr = int(rng.integers(2018, 2026))
            if zh:
                l1 = '%d—%d学年度第%s学期%s考试' % (yr, yr + 1, '一二'[int(rng.integers(2))], ['期中', '期末'][int(rng.integers(2))])
                l2 = '%s%s试卷' % (gz, subj)
                l3 = ['（满分100分，考试时间90分钟）', '（本试卷共4页，满分120分）'][int(rng.integers(2))]
            else:
                l1 = '%s %s Examination %d' % (subj, ['Mid-term', 'Final', 'Unit %d' % k][int(rng.integers(3))], yr)
                l2 = 'Paper %d' % int(rng.integers(1, 3))
                l3 = '(Total: 100 marks    Time: 90 minutes)'
            y, _ = self.text_line(l1, hf.scaled(0.85), x0, x1, y, align='center')
            y += 0.35 * em
            y, _ = self.text_line(l2, hf, x0, x1, y, align='center')
            y += 0.3 * em
            y, _ = self.text_line(l3, self.fs_small, x0, x1, y, align='center')
            y += 0.6 * em
            if zh and rng.random() < 0.5 and self.left > 2.2 * em:
                self.seal_line()
        else:
            if zh:
                t = ['%s%s课后练习（%s）' % (gz, subj, cn_num(k)), '%s周末作业 第%d周' % (subj, k + 3),
                     '%s基础训练 %d' % (subj, k)][int(rng.integers(3))]
            else:
                t = ['%s Homework %d' % (subj, self.hw), 'Worksheet %d: Review' % k,
                     'Homework %d' % self.hw, '%s Practice Sheet %d' % (subj, k)][int(rng.integers(4))]
            y, _ = self.text_line(t, hf, x0, x1, y, align='center' if rng.random() < 0.7 else 'left')
            y += 0.6 * em
        self.info['title'] = 1
        if F['name_line']:
            nl = ('姓名：___  班级：___  学号：___' if doc == 'exam' else '姓名：___  班级：___  日期：___') if zh \
                else 'Name: ___   Class: ___   Date: ___'
            y, _ = self.text_line(nl, self.fs, x0, x1, y, align='center' if rng.random() < 0.5 else 'left',
                                  name_blanks=True)
            y += 0.5 * em
            self.info['name_line'] = 1
        if doc == 'exam' and rng.random() < 0.5:
            y = self.score_table(x0, x1, y) + 0.6 * em
        if rng.random() < 0.35:
            ins = '说明：请将答案写在横线上，解答题要写出必要的步骤。' if zh else \
                'Instructions: Answer all questions. Show your working clearly.'
            y, _ = self.text_line(ins, self.fs_small, x0, x1, y)
            y += 0.5 * em
        return y + 0.3 * em

    def score_table(self, x0, x1, y):
        em = self.em
        hdr = ['题号', '一', '二', '三', '四', '总分'] if self.zh_head else ['Question', '1', '2', '3', '4', 'Total']
        row = ['得分'] if self.zh_head else ['Mark']
        cw, ch = 3.2 * em if self.zh_head else 4.2 * em, 1.6 * em
        tw = cw * len(hdr)
        if tw > x1 - x0:
            return y
        tx = x0 + (x1 - x0 - tw) / 2
        lw = max(1, em // 14)
        for r in range(3):
            self.draw.line([(tx, y + r * ch), (tx + tw, y + r * ch)], fill=self.ink, width=lw)
        for c in range(len(hdr) + 1):
            self.draw.line([(tx + c * cw, y), (tx + c * cw, y + 2 * ch)], fill=self.ink, width=lw)
        for c, t in enumerate(hdr):
            self.text_line(t, self.fs_small, tx + c * cw, tx + (c + 1) * cw, y + 0.3 * em, align='center')
        self.text_line(row[0], self.fs_small, tx, tx + cw, y + ch + 0.3 * em, align='center')
        self.info['score_table'] = 1
        return y + 2 * ch

    def seal_line(self):
        em = self.em
        x = self.left * 0.45
        for yy in range(int(self.top), int(self.bottom), max(4, int(em * 0.6))):
            self.draw.line([(x, yy), (x, yy + em * 0.3)], fill=(110, 110, 110), width=max(1, em // 24))
        txt = '密 封 线 内 不 要 答 题'
        f = get_font('NotoSansCJK-Regular.ttc', int(em * 0.8))
        w = int(f.getlength(txt)) + 4
        im = Image.new('L', (w, int(em * 1.2)), 0)
        ImageDraw.Draw(im).text((2, em * 0.95), txt, font=f, fill=255, anchor='ls')
        im = im.rotate(90, expand=True)
        py = int(self.H / 2 - im.size[1] / 2)
        px = int(x - im.size[0] - 0.2 * em)
        if px > 0:
            self.img.paste(Image.new('RGB', im.size, self.ink), (px, py), im)
        self.info['seal_line'] = 1

    def heading_text(self):
        rng = self.rng
        k = getattr(self, '_sec', 0)
        self._sec = k + 1
        if self.zh_head:
            names = ['选择题', '填空题', '解答题', '计算题', '简答题']
            t = '%s、%s' % (cn_num(k + 1), names[k % len(names)])
            if rng.random() < 0.6:
                t += ['（每小题3分，共30分）', '（每空2分，共20分）', '（本大题共4小题）'][int(rng.integers(3))]
        else:
            t = ['Part %s' % 'ABCDE'[k % 5], 'Section %d: %s' % (k + 1, ['Multiple Choice', 'Short Answer', 'Problem Solving'][k % 3]),
                 'Part %s (20 marks)' % 'ABCDE'[k % 5]][int(rng.integers(3))]
        return t

    def section_heading(self, x0, x1, y, t=None, draw=True):
        t = t or self.heading_text()
        y2, _ = self.text_line(t, self.fs_head, x0, x1, y + 0.2 * self.em, draw=draw,
                               color=getattr(self, 'acc', None) if self.F['doc'] == 'textbook' else None)
        if draw:
            self.info['section_heading'] = 1
            self.last_heading = True
        return y2 + 0.55 * self.em

    # ---- one problem
    def plan_problem(self, entry, framed):
        rng = self.rng
        p = {'entry': entry, 'framed': framed}
        n = self.number
        st = self.num_style
        if st != 'none' and not (self.F['numbering'] == 'some' and rng.random() < 0.45):
            p['label'] = label_text(st, n)
        if self.F['numbering'] == 'header':
            s = int(rng.integers(2, 13))
            p['header'] = ['第%s题（%d分）' % (cn_num(n), s), '第%d题' % n, '第%s题' % cn_num(n)][self.hdr_fmt % 3] \
                if self.zh_head else ['Homework %d, Question %d' % (self.hw, n), 'Question %d (%d points)' % (n, s),
                                      'Problem %d' % n, 'Exercise %d' % n][self.hdr_fmt]
        if self.score_mode and rng.random() < self.score_p:
            s = int(rng.integers(2, 13))
            zh = self.zh_head and has_cjk(entry['question'])
            if self.score_mode == 'prefix':
                p['pre'] = ['（本题%d分）' % s, '（%d分）' % s][int(rng.integers(2))] if zh else '(%d points) ' % s
            elif self.score_mode == 'suffix':
                p['post'] = ' (%d points)' % s if not zh else '（%d分）' % s
            else:
                p['right'] = '（%d分）' % s if zh else ['[%d marks]' % s, '(%d pts)' % s][self.hdr_fmt % 2]
        if not framed and rng.random() < self.opt_p:
            p['options'] = make_options(entry, rng)
        self.number += 1
        return p

    def layout_problem(self, p, x0, x1, y):
        fs, em = self.fs, self.em
        pl, full = [], []
        base = y + fs.asc
        if p.get('header'):
            hp, hl, base = flow(tokens(p['header'], self.fs_head), x0, x0, x1, base, self.line_h)
            pl += hp
            full.append(box_of(hl, self.fs_head))
        lbox = None
        xt = x0
        if p.get('label'):
            lp, ll, _ = flow(tokens(p['label'], self.fs_label), x0, x0, x1, base, self.line_h)
            pl += lp
            lbox = box_of(ll, self.fs_label)
            xt = lbox[2] + self.label_gap
        elif self.para_indent and not p.get('header'):
            xt = x0 + 2 * em
        xc = xt if (p.get('label') and self.F['indent'] == 'hanging') else x0
        toks = []
        if p.get('pre'):
            toks += tokens(p['pre'], fs)
        toks += tokens(p['entry']['question'], fs)
        if p.get('post'):
            toks += tokens(p['post'], fs)
        tp, tl, nb = flow(toks, xt, xc, x1, base, self.line_h)
        pl += tp
        rbox = None
        if p.get('right'):
            rt = tokens(p['right'], fs)
            rw = tok_w([c for t in rt for c in t])
            last = tl[-1]
            rb = last[2] if last[1] + em + rw <= x1 else nb
            if rb == nb:
                nb += self.line_h
            rp, rl, _ = flow(rt, x1 - rw, x1 - rw, x1 + 1, rb, self.line_h)
            pl += rp
            rbox = box_of(rl, fs)
        bbox = union(lbox, box_of(tl, fs), rbox if p.get('framed') else None)
        full += [bbox, rbox]
        end = nb - self.line_h + fs.desc
        if p.get('options'):
            ol = self.opt_style
            labs = [ol.replace('A', L) for L in 'ABCD']
            ots = [tokens(l + ('' if l.endswith('．') else ' ') + o, fs) for l, o in zip(labs, p['options'])]
            ows = [tok_w([c for t in ot for c in t]) for ot in ots]
            ox = xc if xc > x0 else x0 + 2 * em
            avail = x1 - ox
            per = 4 if max(ows) + em < avail / 4 else (2 if max(ows) + em < avail / 2 else 1)
            ob = nb + 0.1 * em
            for i, ot in enumerate(ots):
                r, c = divmod(i, per)
                op, olines, _ = flow(ot, ox + c * avail / per, ox, x1, ob + r * self.line_h, self.line_h)
                pl += op
                full.append(box_of(olines, fs))
            end = ob + (3 // per) * self.line_h + fs.desc
            self.info['options_neighbours'] = 1
        full = union(*full)
        return {'pl': pl, 'bbox': bbox, 'full': full, 'label_box': lbox, 'lines': tl, 'end': end,
                'entry': p['entry'], 'framed': p['framed'], 'plan': p}

    def commit(self, blk, col):
        self.put(blk['pl'])
        blk['col'] = col
        del blk['pl']
        self.blocks.append(blk)
        self.last_heading = False
        p = blk['plan']
        if p.get('header'):
            self.info['problem_header'] = 1
        if p.get('pre') or p.get('post') or p.get('right'):
            self.info['score_note'] = 1
            if blk['framed']:
                self.info['framed_score_note'] = 1
        return blk['end'] + self.gap + (self.answer_space if not p.get('options') else 0)

    def build(self):
        F, rng = self.F, self.rng
        y0 = self.header()
        framed_col = F['framed_col'] if self.cols == 2 else 0
        n_before = [0, 1, 1, 2, 2, 3, 4][int(rng.integers(7))]
        pool = list(self.pool)
        for c in range(self.cols):
            x0 = self.left + c * (self.col_w + self.gutter)
            x1 = x0 + self.col_w
            y = y0
            placed = 0
            need_framed = c == framed_col
            self.last_heading = c == 0
            if F['sections'] and (c == 0 or rng.random() < 0.4):
                y = self.section_heading(x0, x1, y)
            fh = 0.0
            if need_framed:   # height estimate of the framed block in this column
                n_saved = self.number
                fh = self.layout_problem(self.plan_problem(self.framed, True), x0, x1, 0)['end']
                self.number = n_saved
            while True:
                if need_framed and placed >= n_before:
                    if placed and F['sections'] and not self.last_heading and rng.random() < 0.25:
                        ht = self.heading_text()
                        if self.section_heading(x0, x1, y, ht, draw=False) + fh <= self.bottom:
                            y = self.section_heading(x0, x1, y, ht)
                    self.info['heading_above_framed'] = int(self.last_heading)
                    blk = self.layout_problem(self.plan_problem(self.framed, True), x0, x1, y)
                    y = self.commit(blk, c)
                    need_framed = False
                    placed += 1
                    continue
                ht = self.heading_text() if (F['sections'] and placed > 1 and rng.random() < 0.1) else None
                if not pool:
                    if need_framed:
                        n_before = placed
                        continue
                    break
                p = self.plan_problem(pool.pop(0), False)
                yb = self.section_heading(x0, x1, y, ht, draw=False) if ht else y
                blk = self.layout_problem(p, x0, x1, yb)
                need = blk['end'] - y
                if need_framed:
                    need += self.gap + self.answer_space + fh
                if y + need > self.bottom:
                    self.number -= 1
                    if need_framed:
                        n_before = placed
                        continue
                    break
                if ht:
                    self.section_heading(x0, x1, y, ht)
                y = self.commit(blk, c)
                placed += 1
        if F['doc'] != 'worksheet' or rng.random() < 0.3:
            pg = int(rng.integers(1, 9))
            t = ('第%d页 共%d页' % (pg, pg + 2) if rng.random() < 0.5 else '— %d —' % pg) if self.zh_head else 'Page %d' % pg
            self.text_line(t, self.fs_small, self.left, self.W - self.left, self.bottom + 0.3 * self.em, align='center')
        return self


# --------------------------------------------------------------------------
# marks on the page (teacher / student)
# --------------------------------------------------------------------------
def hand_poly(pts, rng, jit):
    pts = np.asarray(pts, np.float32)
    return (pts + rng.normal(0, jit, pts.shape)).astype(np.float32)


def draw_stroke(arr, pts, color, th):
    p = np.round(np.asarray(pts) * 16).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(arr, [p], False, color, max(1, int(round(th))), cv2.LINE_AA, shift=4)


def mark_page(pb, arr, F, rng, masks):
    em = pb.em

    def mk(name):   # page-space mask of where each kind of mark went (for visibility)
        if name not in masks:
            masks[name] = np.zeros(arr.shape[:2], np.uint8)
        return masks[name]

    info = {'marks': '', 'mark_on_framed': 0, 'circled_number': 0, 'circle_on_framed': 0,
            'highlighter': 0, 'highlight_on_framed': 0, 'underline': 0, 'underline_on_framed': 0}
    blocks = pb.blocks
    fi = [i for i, b in enumerate(blocks) if b['framed']][0]
    red = (int(rng.integers(180, 225)), int(rng.integers(20, 60)), int(rng.integers(30, 70)))

    def pick(p_framed):
        if rng.random() < p_framed:
            return blocks[fi]
        near = [b for b in blocks if not b['framed'] and abs(blocks.index(b) - fi) <= 4]
        return near[int(rng.integers(len(near)))] if near else blocks[fi]

    if F['marks']:
        kinds = []
        for _ in range(int(rng.integers(1, 4))):
            b = pick(0.3)
            kind = ['tick', 'cross', 'score', 'tick'][int(rng.integers(4))]
            x0, y0, x1, y1 = b['bbox']
            last = b['lines'][-1]
            colx1 = pb.left + b['col'] * (pb.col_w + pb.gutter) + pb.col_w
            if last[1] + 3 * em < colx1 and rng.random() < 0.6:
                cx, cy = last[1] + 1.6 * em, last[2] - 0.4 * em
            else:
                cx, cy = x0 - 1.1 * em, y0 + 0.5 * em
                if cx < 0.6 * em:
                    cx, cy = last[1] + 1.2 * em, last[2] - 0.4 * em
            s = em * float(rng.uniform(0.8, 1.3))
            th = max(1.5, em * 0.1)
            if kind == 'tick':
                pts = hand_poly([(cx - 0.5 * s, cy), (cx - 0.1 * s, cy + 0.45 * s), (cx + 0.7 * s, cy - 0.6 * s)], rng, s * 0.04)
                draw_stroke(arr, pts, red, th)
                draw_stroke(mk('marks'), pts, 255, th + 2)
            elif kind == 'cross':
                for pts in ([(cx - 0.45 * s, cy - 0.45 * s), (cx + 0.45 * s, cy + 0.45 * s)],
                            [(cx + 0.45 * s, cy - 0.5 * s), (cx - 0.4 * s, cy + 0.45 * s)]):
                    pts = hand_poly(pts, rng, s * 0.04)
                    draw_stroke(arr, pts, red, th)
                    draw_stroke(mk('marks'), pts, 255, th + 2)
            else:
                t = ['+%d' % int(rng.integers(1, 9)), '-%d' % int(rng.integers(1, 5)), '%d' % int(rng.integers(2, 11)),
                     '%d/10' % int(rng.integers(3, 11))][int(rng.integers(4))]
                f = get_font('DejaVuSans-BoldOblique.ttf' if rng.random() < 0.5 else 'LiberationSans-Italic.ttf', int(s * 1.1))
                im = Image.new('L', (int(s * 5), int(s * 2)), 0)
                ImageDraw.Draw(im).text((s * 0.2, s * 1.4), t, font=f, fill=255, anchor='ls')
                im = im.rotate(float(rng.uniform(-15, 15)), resample=Image.BILINEAR)
                m = np.asarray(im, np.float32)[..., None] / 255.0
                ox, oy = int(cx - s * 0.5), int(cy - s * 1.2)
                h, w = m.shape[:2]
                if 0 <= ox and ox + w <= arr.shape[1] and 0 <= oy and oy + h <= arr.shape[0]:
                    reg = arr[oy:oy + h, ox:ox + w].astype(np.float32)
                    arr[oy:oy + h, ox:ox + w] = (reg * (1 - m) + np.array(red, np.float32) * m).astype(np.uint8)
                    mk('marks')[oy:oy + h, ox:ox + w][m[..., 0] > 0.3] = 255
            kinds.append(kind)
            if b['framed']:
                info['mark_on_framed'] = 1
        info['marks'] = '+'.join(sorted(set(kinds)))
    if F['circle']:
        b = pick(0.4)
        if not b['label_box']:   # circle a problem number, never the framed problem's text
            cands = [c for c in blocks if c['label_box']]
            b = min(cands, key=lambda c: abs(blocks.index(c) - fi)) if cands else None
    if F['circle'] and b is not None:
        x0, y0, x1, y1 = b['label_box']
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        rx, ry = (x1 - x0) / 2 + 0.15 * em, (y1 - y0) / 2 + 0.2 * em
        a0 = float(rng.uniform(0, 6.28))
        t = np.linspace(a0, a0 + 2 * math.pi * 1.08, 40)
        pts = np.stack([cx + rx * np.cos(t) * (1 + 0.05 * np.sin(3 * t)), cy + ry * np.sin(t)], 1)
        col = red if rng.random() < 0.6 else (40, 60, 160)
        pts = hand_poly(pts, rng, em * 0.03)
        draw_stroke(arr, pts, col, max(1.5, em * 0.08))
        draw_stroke(mk('circle'), pts, 255, max(1.5, em * 0.08) + 2)
        info['circled_number'] = 1
        info['circle_on_framed'] = int(b['framed'])
    fl = arr.astype(np.float32)
    changed = False
    if F['highlight']:
        b = pick(0.45)
        ln = b['lines'][int(rng.integers(len(b['lines'])))]
        xa = ln[0] + (ln[1] - ln[0]) * float(rng.uniform(0, 0.4))
        xb = ln[0] + (ln[1] - ln[0]) * float(rng.uniform(0.6, 1.0))
        ya, yb = ln[2] - 0.95 * em, ln[2] + 0.3 * em
        sk = float(rng.uniform(-0.2, 0.2)) * em
        m = np.zeros(arr.shape[:2], np.float32)
        cv2.fillPoly(m, [np.int32([(xa, ya + sk), (xb, ya - sk), (xb, yb - sk), (xa, yb + sk)])], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), max(0.8, em * 0.06))
        col = np.array([(255, 240, 80), (150, 250, 120), (255, 150, 200), (120, 220, 255)][int(rng.integers(4))], np.float32) / 255
        fl *= 1 - m[..., None] * (1 - col) * float(rng.uniform(0.6, 0.9))
        mk('highlight')[m > 0.3] = 255
        info['highlighter'] = 1
        info['highlight_on_framed'] = int(b['framed'])
        changed = True
    if changed:
        arr[:] = np.clip(fl, 0, 255).astype(np.uint8)
    if F['underline']:
        b = pick(0.4)
        ln = b['lines'][int(rng.integers(len(b['lines'])))]
        xa = ln[0] + (ln[1] - ln[0]) * float(rng.uniform(0, 0.3))
        xb = ln[0] + (ln[1] - ln[0]) * float(rng.uniform(0.5, 1.0))
        yy = ln[2] + 0.3 * em
        xs = np.linspace(xa, xb, 12)
        pts = np.stack([xs, yy + np.sin(xs / em * float(rng.uniform(0.5, 2))) * em * 0.05], 1)
        col = [(30, 50, 150), (30, 30, 35), (190, 30, 40)][int(rng.integers(3))]
        pts = hand_poly(pts, rng, em * 0.02)
        draw_stroke(arr, pts, col, max(1.2, em * 0.07))
        draw_stroke(mk('underline'), pts, 255, max(1.2, em * 0.07) + 2)
        info['underline'] = 1
        info['underline_on_framed'] = int(b['framed'])
    return info


def page_effects(pb, arr, F, rng, masks):
    """Paper texture, show-through, fold, textbook gutter shade; returns float RGB + alpha."""
    H, W = arr.shape[:2]
    img = arr.astype(np.float32) / 255.0
    info = {'fold': 0, 'fold_crosses_framed': 0, 'show_through': 0}
    lo = cv2.resize(rng.normal(0, 1, (max(2, H // 64), max(2, W // 64))).astype(np.float32), (W, H),
                    interpolation=cv2.INTER_CUBIC)
    img *= (1 + 0.012 * lo)[..., None]
    if not F['screen'] and rng.random() < 0.2:
        mir = cv2.GaussianBlur(img[:, ::-1].mean(2), (0, 0), 1.5)
        img *= (1 - float(rng.uniform(0.03, 0.07)) * (1 - mir / mir.max()))[..., None]
        info['show_through'] = 1
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    if F['fold'] and not F['screen']:
        if rng.random() < 0.65:
            pos = H * float(rng.choice([1 / 3, 1 / 2, 2 / 3])) + float(rng.normal(0, H * 0.03))
            ang = float(rng.normal(0, 0.01))
            d = (yy - pos) * math.cos(ang) - (xx - W / 2) * math.sin(ang)
            fb = pb.blocks[[b['framed'] for b in pb.blocks].index(True)]['bbox']
            info['fold_crosses_framed'] = int(fb[1] < pos < fb[3])
        else:
            pos = W * 0.5 + float(rng.normal(0, W * 0.03))
            d = xx - pos
            fb = pb.blocks[[b['framed'] for b in pb.blocks].index(True)]['bbox']
            info['fold_crosses_framed'] = int(fb[0] < pos < fb[2])
        w1, w2 = pb.em * 0.12, pb.em * float(rng.uniform(1.5, 4))
        sgn = 1 if rng.random() < 0.5 else -1
        shade = 1 - 0.22 * np.exp(-(d / w1) ** 2) + sgn * 0.05 * np.tanh(d / w2) * np.exp(-np.abs(d) / (8 * w2))
        img *= shade[..., None]
        info['fold'] = 1
        masks['fold'] = (np.abs(d) < max(2.0, 3 * w1)).astype(np.uint8) * 255
    if F['doc'] == 'textbook' and not F['screen']:
        side = 0 if rng.random() < 0.5 else 1
        dist = xx if side == 0 else (W - 1 - xx)
        g = 1 - 0.3 * np.exp(-dist / (W * 0.04))
        img *= g[..., None]
    alpha = np.ones((H, W), np.float32)
    return img, alpha, info


def curl_page(img, alpha, fb, F, rng, masks):
    """Curl one page corner (or the spine edge) or fold a corner over (dog-ear), away from
    the framed problem.  Returns image, alpha, kind ('' when nothing was done)."""
    H, W = alpha.shape
    cx, cy = (fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2
    corners = [(0, 0), (W, 0), (0, H), (W, H)]
    fcorn = [(fb[0], fb[1]), (fb[2], fb[1]), (fb[0], fb[3]), (fb[2], fb[3])]
    spine = F['doc'] == 'textbook' and rng.random() < 0.5
    dogear = not spine and rng.random() < 0.5
    if spine:   # bound page bulging at the spine edge
        cands = [((0, cy), np.array([-1.0, 0.0])), ((W, cy), np.array([1.0, 0.0]))]
    else:
        jit = rng.normal(0, 0.2, 2)
        cands = []
        for p in corners:
            n = np.array([1.0 if p[0] else -1.0, 1.0 if p[1] else -1.0]) + jit
            cands.append((p, n / np.linalg.norm(n)))
    cands.sort(key=lambda cn: (cn[0][0] - cx) ** 2 + (cn[0][1] - cy) ** 2)
    for c, n in cands:   # nearest corner (most likely in view) that leaves the framed problem flat
        max_l = min(-((px - c[0]) * n[0] + (py - c[1]) * n[1]) for px, py in fcorn) - 0.03 * W
        if dogear:
            max_l /= 2   # the flap lands on the page up to 2L from the corner
        if max_l >= 0.08 * W:
            break
    L = min(float(rng.uniform(0.1, 0.3)) * W, max_l)
    if L < 0.04 * W:
        return img, alpha, ''
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    if dogear:
        s_q = (xx - c[0]) * n[0] + (yy - c[1]) * n[1] + L
        mx = (xx - 2 * s_q * n[0]).astype(np.float32)   # reflection across the fold line
        my = (yy - 2 * s_q * n[1]).astype(np.float32)
        fa = cv2.remap(alpha, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        fa[s_q > 0] = 0
        back = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        gray = back.mean(2, keepdims=True)
        paper = np.percentile(gray[fa > 0.5], 90) if (fa > 0.5).any() else 0.95
        back = paper * float(rng.uniform(0.86, 0.95)) * (1 - 0.08 * (paper - gray)) * np.ones(3, np.float32)
        a2 = alpha.copy()
        a2[s_q > 0] = 0
        sh = cv2.GaussianBlur(fa, (0, 0), max(2.0, 0.01 * W))
        img = img * (1 - 0.3 * sh * (1 - fa))[..., None]
        img = img * (1 - fa[..., None]) + back * fa[..., None]
        masks['curl'] = ((s_q > -L) & (alpha > 0)).astype(np.uint8) * 255
        return img.astype(np.float32), a2, 'dog-ear'
    R = L * float(rng.uniform(0.45, 0.8))
    s_out = (xx - c[0]) * n[0] + (yy - c[1]) * n[1] + L
    inside = s_out > 0
    so = np.clip(s_out, 0, R * 0.999)
    s_src = R * np.arcsin(so / R)
    shift = np.where(inside, s_src - s_out, 0).astype(np.float32)
    mx = (xx + shift * n[0]).astype(np.float32)
    my = (yy + shift * n[1]).astype(np.float32)
    img2 = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    a2 = cv2.remap(alpha, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    a2[s_out >= R * 0.999] = 0
    shade = np.where(inside, 0.72 + 0.28 * np.cos(np.arcsin(so / R)), 1.0).astype(np.float32)
    masks['curl'] = (inside & (alpha > 0)).astype(np.uint8) * 255
    return img2 * shade[..., None], a2, 'spine-curl' if spine else 'corner-curl'


# --------------------------------------------------------------------------
# camera
# --------------------------------------------------------------------------
def T(x, y):
    return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], np.float64)


def apply_h(Hm, pts):
    p = np.c_[np.asarray(pts, np.float64), np.ones(len(pts))] @ Hm.T
    return p[:, :2] / p[:, 2:3]


def homography(fb, W, H, scale, squeeze, phi, g, off):
    cx, cy = (fb[0] + fb[2]) / 2, (fb[1] + fb[3]) / 2
    c, s = math.cos(math.radians(phi)), math.sin(math.radians(phi))
    A = T(W / 2 + off[0], H / 2 + off[1]) @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ \
        np.diag([scale * squeeze, scale, 1.0]) @ T(-cx, -cy)
    P = T(W / 2, H / 2) @ np.array([[1, 0, 0], [0, 1, 0], [g[0], g[1], 1]]) @ T(-W / 2, -H / 2)
    return P @ A


def background(W, H, rng, screen):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    lo = cv2.resize(rng.normal(0, 1, (12, 16)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    if screen:
        bg = np.full((H, W, 3), float(rng.uniform(0.03, 0.09)), np.float32)
        return bg + 0.01 * lo[..., None], 'monitor'
    kind = ['wood', 'table', 'cloth', 'table'][int(rng.integers(4))]
    if kind == 'wood':
        base = np.array([0.55, 0.38, 0.22], np.float32) * float(rng.uniform(0.7, 1.2))
        a = float(rng.uniform(0, math.pi))
        u = xx * math.cos(a) + yy * math.sin(a)
        grain = np.sin(u / float(rng.uniform(6, 14)) + 4 * lo) * 0.5 + 0.5
        bg = base[None, None] * (0.8 + 0.25 * grain[..., None])
    elif kind == 'table':
        pal = [(0.85, 0.85, 0.83), (0.62, 0.64, 0.66), (0.9, 0.86, 0.78), (0.35, 0.36, 0.4), (0.2, 0.45, 0.3)]
        bg = np.array(pal[int(rng.integers(len(pal)))], np.float32)[None, None] * (1 + 0.05 * lo[..., None])
    else:
        base = np.array(rng.uniform(0.1, 0.35, 3), np.float32)
        bg = base[None, None] * (1 + 0.15 * rng.normal(0, 1, (H, W, 1)).astype(np.float32) + 0.08 * lo[..., None])
    return np.clip(bg, 0, 1).astype(np.float32), kind


def occluder(W, H, rng, forbid, kind):
    """Finger or pen entering from a photo edge; None if it can't avoid the framed problem."""
    mn = min(W, H)
    for _ in range(30):
        edge = int(rng.integers(4))
        t = float(rng.uniform(0.1, 0.9))
        start = [(0, t * H), (W, t * H), (t * W, 0), (t * W, H)][edge]
        inward = [(1, 0), (-1, 0), (0, 1), (0, -1)][edge]
        ang = math.atan2(inward[1], inward[0]) + float(rng.uniform(-0.6, 0.6))
        d = np.array([math.cos(ang), math.sin(ang)])
        if kind == 'finger':
            width = float(rng.uniform(0.11, 0.17)) * mn
            length = float(rng.uniform(0.12, 0.3)) * mn
        else:
            width = float(rng.uniform(0.025, 0.04)) * mn
            length = float(rng.uniform(0.2, 0.42)) * mn
        p0 = np.array(start) - d * width
        p1 = np.array(start) + d * length
        m = np.zeros((H, W), np.uint8)
        cv2.line(m, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 255, int(width), cv2.LINE_AA)
        if kind == 'pen':
            tip = p1 + d * width * 2.2
            nrm = np.array([-d[1], d[0]])
            cv2.fillConvexPoly(m, np.int32([p1 + nrm * width / 2, p1 - nrm * width / 2, tip]), 255, cv2.LINE_AA)
        if (m[forbid > 0] > 0).any():
            continue
        a = m.astype(np.float32) / 255
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        nrm = np.array([-d[1], d[0]])
        across = ((xx - p0[0]) * nrm[0] + (yy - p0[1]) * nrm[1]) / (width / 2)
        along = ((xx - p0[0]) * d[0] + (yy - p0[1]) * d[1])
        across = np.clip(across, -1, 1)
        if kind == 'finger':
            skin = np.array([(0.87, 0.66, 0.55), (0.78, 0.56, 0.42), (0.6, 0.4, 0.3), (0.92, 0.75, 0.65)][int(rng.integers(4))], np.float32)
            shade = 0.55 + 0.45 * np.sqrt(np.clip(1 - across ** 2, 0, 1)) + 0.08 * across
            col = skin[None, None] * shade[..., None]
            if rng.random() < 0.6:   # nail near the tip
                nl = along - (np.linalg.norm(p1 - p0) - width * 0.3)
                nail = np.clip(1 - (nl / (width * 0.42)) ** 2 - (across / 0.72) ** 2, 0, 1)
                nail = np.clip(nail * 4, 0, 1)[..., None]
                col = col * (1 - nail) + (col * 0.35 + np.array([0.6, 0.55, 0.55], np.float32)) * nail
            sig = float(rng.uniform(3, 8)) * mn / 960
        else:
            body = np.array([(0.1, 0.15, 0.45), (0.08, 0.08, 0.09), (0.7, 0.1, 0.1), (0.85, 0.85, 0.88)][int(rng.integers(4))], np.float32)
            shade = 0.5 + 0.5 * np.sqrt(np.clip(1 - across ** 2, 0, 1)) + 0.35 * np.exp(-((across + 0.4) / 0.15) ** 2)
            col = body[None, None] * shade[..., None]
            tipm = (along > np.linalg.norm(p1 - p0))[..., None]
            col = np.where(tipm, np.array([0.7, 0.7, 0.72], np.float32) * shade[..., None], col)
            sig = float(rng.uniform(1.5, 4)) * mn / 960
        a = cv2.GaussianBlur(a, (0, 0), sig)
        col = cv2.GaussianBlur(col.astype(np.float32), (0, 0), sig)
        return a, col, ['left', 'right', 'top', 'bottom'][edge]
    return None


def moire(W, H, Hm, scale, rng):
    Hi = np.linalg.inv(Hm)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
    den = Hi[2, 0] * xx + Hi[2, 1] * yy + Hi[2, 2]
    u = (Hi[0, 0] * xx + Hi[0, 1] * yy + Hi[0, 2]) / den
    v = (Hi[1, 0] * xx + Hi[1, 1] * yy + Hi[1, 2]) / den
    tp = float(rng.choice([-1, 1])) * float(rng.uniform(0.03, 0.09)) + 1.0
    p = tp / scale
    amp = float(rng.uniform(0.12, 0.25))
    pat = np.empty((H, W, 3), np.float32)
    vert = 0.5 + 0.5 * np.cos(2 * np.pi * v / p)
    for ch in range(3):
        pat[..., ch] = 0.5 + 0.5 * np.cos(2 * np.pi * (u / p + ch / 3.0))
    return (1 - amp * (0.65 * pat + 0.35 * vert[..., None])).astype(np.float32)


def photograph(page_img, page_alpha, fb, blocks, F, rng, W, H, em_photo, K, masks):
    info = {}
    orient = F['orient']
    theta = float(rng.uniform(-8, 8)) * (1.0 if rng.random() < 0.5 else 0.4)
    squeeze = float(rng.uniform(0.84, 0.92)) if F['condensed'] else 1.0
    pm = F['persp'] * 0.34 / max(W, H)
    pa = float(rng.uniform(0, 2 * math.pi))
    g = [pm * math.cos(pa), pm * math.sin(pa)]
    off = [float(rng.uniform(-0.06, 0.06)) * W, float(rng.uniform(-0.06, 0.06)) * H]
    scale0 = scale = 1.0 / K
    m = 0.035 * min(W, H)
    fcorn = [(fb[0], fb[1]), (fb[2], fb[1]), (fb[2], fb[3]), (fb[0], fb[3])]
    for _ in range(25):
        Hm = homography(fb, W, H, scale, squeeze, orient + theta, g, off)
        q = apply_h(Hm, fcorn)
        c = q.mean(0)
        if (q[:, 0].min() >= m and q[:, 0].max() <= W - m and q[:, 1].min() >= m and q[:, 1].max() <= H - m
                and abs(c[0] - W / 2) <= 0.085 * W and abs(c[1] - H / 2) <= 0.085 * H):
            break
        scale *= 0.94
        off = [off[0] * 0.8, off[1] * 0.8]
        g = [g[0] * 0.85, g[1] * 0.85]
    else:
        raise RuntimeError('framed problem does not fit')
    info.update(rot_deg=round(theta, 2), orientation=orient, persp=round(F['persp'], 2),
                condensed=int(F['condensed']), char_px=round(F['char_h'] * scale / scale0, 1),
                centre_dx=round(float(c[0] - W / 2), 1), centre_dy=round(float(c[1] - H / 2), 1))
    for k in ('marks', 'circle', 'highlight', 'underline', 'fold', 'curl'):   # in view at all?
        info[k + '_visible'] = 0
        if k in masks:
            wm = cv2.warpPerspective(masks[k], Hm, (W, H), flags=cv2.INTER_NEAREST, borderValue=0)
            info[k + '_visible'] = int(np.count_nonzero(wm) > 12)
    # anti-alias before minification
    if scale < 0.95:
        page_img = cv2.GaussianBlur(page_img, (0, 0), 0.45 / scale)
    warped = cv2.warpPerspective(page_img, Hm, (W, H), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    a = cv2.warpPerspective(page_alpha, Hm, (W, H), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)[..., None]
    bg, bgk = background(W, H, rng, F['screen'])
    info['background'] = bgk
    if F['screen']:
        glow = np.array([0.93, 0.97, 1.0], np.float32) * float(rng.uniform(0.85, 1.0))
        warped = 0.06 + warped * glow * 0.92
        warped = warped * moire(W, H, Hm, scale, rng)
        hx, hy = float(rng.uniform(0, W)), float(rng.uniform(0, H))
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        haze = float(rng.uniform(0.03, 0.12)) * np.exp(-((xx - hx) ** 2 + (yy - hy) ** 2) / (2 * (0.3 * W) ** 2))
        warped = warped + haze[..., None]
    else:
        sh = cv2.GaussianBlur(a[..., 0], (0, 0), 0.01 * W)
        sh = np.roll(sh, (int(0.006 * H), int(0.006 * W)), (0, 1))
        bg = bg * (1 - 0.35 * sh[..., None])
    photo = bg * (1 - a) + warped * a
    forbid = np.zeros((H, W), np.uint8)
    cv2.fillPoly(forbid, [np.int32(np.round(q))], 255)
    forbid = cv2.dilate(forbid, np.ones((int(0.04 * min(W, H)) * 2 + 1,) * 2, np.uint8))
    info['occluder'] = 'none'
    occ_mask = None
    if F['occluder'] != 'none':
        r = occluder(W, H, rng, forbid, F['occluder'])
        if r is not None:
            oa, oc, edge = r
            photo = photo * (1 - oa[..., None]) + oc * oa[..., None]
            info['occluder'] = '%s-%s' % (F['occluder'], edge)
            occ_mask = oa > 0.3
    # neighbours: complete / cut at the photo edge
    comp = cut = 0
    fi = [i for i, b in enumerate(blocks) if b['framed']][0]
    above = below = 0
    for i, b in enumerate(blocks):
        if b['framed']:
            continue
        x0, y0, x1, y1 = b['full']
        qq = apply_h(Hm, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        ins = [(0 <= x < W and 0 <= y < H) for x, y in qq]
        blocked = False
        if occ_mask is not None and all(ins):
            pm_ = np.zeros((H, W), np.uint8)
            cv2.fillPoly(pm_, [np.int32(np.round(qq))], 1)
            blocked = bool((occ_mask & (pm_ > 0)).any())
        if all(ins) and not blocked:
            comp += 1
            if b['col'] == blocks[fi]['col']:
                above |= int(i == fi - 1)
                below |= int(i == fi + 1)
        elif any(ins) or blocked:
            cut += 1
        else:
            cx_ = qq.mean(0)
            if 0 <= cx_[0] < W and 0 <= cx_[1] < H:
                cut += 1
    info.update(neighbours_complete=comp, neighbours_cut=cut, complete_above=above, complete_below=below)
    # lighting
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    xn, yn = (xx - W / 2) / max(W, H), (yy - H / 2) / max(W, H)
    L = np.ones((H, W), np.float32)
    if F['lighting']:
        la = float(rng.uniform(0, 2 * math.pi))
        L *= 1 + float(rng.uniform(0.15, 0.45)) * (xn * math.cos(la) + yn * math.sin(la))
        L *= 1 - float(rng.uniform(0.1, 0.35)) * (xn ** 2 + yn ** 2) * 2
    info['lighting'] = int(F['lighting'])
    info['shadow'] = 0
    if F['shadow'] and not F['screen']:
        sm = np.zeros((H, W), np.float32)
        k = float(rng.uniform(0.2, 0.6))
        la = float(rng.uniform(0, 2 * math.pi))
        dd = xn * math.cos(la) + yn * math.sin(la)
        if rng.random() < 0.5:
            sm[dd > float(rng.uniform(0.0, 0.3))] = 1
        else:
            cx, cy = int(W / 2 + math.cos(la) * W * 0.55), int(H / 2 + math.sin(la) * H * 0.55)
            cv2.ellipse(sm, (cx, cy), (int(W * rng.uniform(0.3, 0.5)), int(H * rng.uniform(0.25, 0.45))),
                        float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        sm = cv2.GaussianBlur(sm, (0, 0), float(rng.uniform(0.02, 0.08)) * W)
        L *= 1 - (1 - float(rng.uniform(0.6, 0.8))) * sm * (k / 0.6 + 0.3) / 1.3
        info['shadow'] = 1
    cast = np.array(rng.normal(1, 0.02, 3), np.float32)
    if not F['screen'] and rng.random() < 0.4:
        cast *= np.array([1.03, 1.0, 0.92], np.float32)   # warm indoor light
    photo = photo * L[..., None] * cast[None, None] * float(rng.uniform(0.9, 1.1))
    # blur
    sm = F['char_h'] * scale / scale0
    info['blur'] = F['blur']
    if F['blur'] == 'defocus':
        sig = float(rng.uniform(0.6, 1.5)) * min(1.0, sm / 24)
        photo = cv2.GaussianBlur(photo, (0, 0), max(0.4, sig))
        info['blur'] = 'defocus-%.1f' % sig
    elif F['blur'] == 'motion':
        ln = max(1.5, float(rng.uniform(2.0, 5.0)) * min(1.0, sm / 24))
        k = int(math.ceil(ln)) | 1
        k += 2
        kern = np.zeros((k, k), np.float32)
        for t in np.linspace(-ln / 2, ln / 2, 64):
            kern[k // 2, int(round(k // 2 + t))] += 1
        kern = cv2.GaussianBlur(kern, (0, 0), 0.5)
        M = cv2.getRotationMatrix2D((k // 2, k // 2), float(rng.uniform(0, 180)), 1.0)
        kern = cv2.warpAffine(kern, M, (k, k), flags=cv2.INTER_LINEAR)
        photo = cv2.filter2D(photo, -1, kern / kern.sum())
        info['blur'] = 'motion-%.1f' % ln
    else:
        photo = cv2.GaussianBlur(photo, (0, 0), 0.45)
    # sensor noise, phone sharpening
    nl = 0.008 + 0.03 * F['noise']
    photo = photo + rng.normal(0, 1, (H, W, 1)).astype(np.float32) * nl * np.sqrt(np.clip(photo, 0.02, 1)) \
        + rng.normal(0, nl * 0.4, (H, W, 3)).astype(np.float32)
    if rng.random() < 0.5:
        bl = cv2.GaussianBlur(photo, (0, 0), 1.2)
        photo = photo + float(rng.uniform(0.2, 0.6)) * (photo - bl)
    info['noise'] = round(nl, 3)
    photo = np.clip(photo, 0, 1)
    return (photo * 255 + 0.5).astype(np.uint8), q, info


# --------------------------------------------------------------------------
# one photo
# --------------------------------------------------------------------------
def make_one(args):
    idx, seed, F, entry, bank, outdir = args
    rng_page = np.random.default_rng([seed, idx, 1])
    rng_mark = np.random.default_rng([seed, idx, 2])
    rng_cam = np.random.default_rng([seed, idx, 3])
    W, H = F['size']
    K = 1.3
    latin, cjk = STYLES[F['font']]
    # em size from the wanted ink height of the body text
    ref = '国' if F['page_lang'] != 'en' else 'H'
    fnt = get_font(cjk if ref == '国' else latin, 200)
    bb = fnt.getbbox(ref, anchor='ls')
    ink = (bb[3] - bb[1]) / 200.0
    em_photo = F['char_h'] / ink
    wp = W if F['orient'] in (0, 180) else H
    col_max = 0.84 * wp / em_photo
    if col_max < 12:
        em_photo = 0.84 * wp / 12
        F = dict(F, char_h=em_photo * ink)
        col_max = 12
    col_em = float(rng_page.uniform(24, 40)) if F['columns'] == 1 else float(rng_page.uniform(13, 21))
    col_em = min(col_em, col_max)
    pb = PageBuilder(F, entry, bank, rng_page, em_photo * K, col_em).build()
    arr = np.asarray(pb.img).copy()
    masks = {}
    minfo = mark_page(pb, arr, F, rng_mark, masks)
    img, alpha, einfo = page_effects(pb, arr, F, rng_mark, masks)
    fblk = [b for b in pb.blocks if b['framed']][0]
    fb = fblk['bbox']
    curled = ''
    if F['curl'] and not F['screen']:
        img, alpha, curled = curl_page(img, alpha, fb, F, rng_mark, masks)
    if F['screen']:   # PDF-viewer grey around the page on the monitor
        pad = int(0.12 * pb.W)
        gcol = float(rng_mark.uniform(0.35, 0.6))
        img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(gcol, gcol, gcol))
        alpha = cv2.copyMakeBorder(alpha, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=1.0)
        fb = (fb[0] + pad, fb[1] + pad, fb[2] + pad, fb[3] + pad)
        masks = {k: cv2.copyMakeBorder(v, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0) for k, v in masks.items()}
        for b in pb.blocks:
            b['full'] = tuple(v + pad for v in b['full'])
    photo, quad, cinfo = photograph(img, alpha, fb, pb.blocks, F, rng_cam, W, H, em_photo, K, masks)
    qid = 'i%03d' % idx
    Image.fromarray(photo).save(os.path.join(outdir, qid + '.jpg'), quality=int(F['jpeg_q']), optimize=False)
    q = entry['question']
    fi = [i for i, b in enumerate(pb.blocks) if b['framed']][0]
    adj = [pb.blocks[j]['entry']['question'] for j in (fi - 1, fi + 1) if 0 <= j < len(pb.blocks)]
    near = int(any(difflib.SequenceMatcher(None, q, a).ratio() > 0.8 for a in adj))
    lab = fblk['plan'].get('label', '')
    cases = {
        'qid': qid, 'expected_id': entry['id'], 'subject': entry['subject'],
        'framed_lang': 'zh' if has_cjk(q) else 'en', 'page_lang': F['page_lang'], 'doc_type': F['doc'],
        'font': F['font'], 'bold': int('bold' in F['font']),
        'narrow': int(F['condensed'] or 'narrow' in F['font'] or 'cond' in F['font']),
        'columns': F['columns'], 'framed_col': fblk['col'] + 1, 'tight_spacing': int(F['tight']),
        'num_style': pb.num_style, 'numbering': F['numbering'], 'framed_label': lab,
        'indent': F['indent'] if pb.num_style != 'none' else 'n/a',
        'framed_has_supsub': int(any(c in SUP or c in SUB for c in q)),
        'framed_has_blank': int('__' in q), 'blank_style': pb.blank_mode if '__' in q else '',
        'framed_problem_header': int(bool(fblk['plan'].get('header'))),
        'near_dup_adjacent': near, 'problems_on_page': len(pb.blocks), 'curl': int(bool(curled)),
        'curl_kind': curled,
        'jpeg_q': F['jpeg_q'], 'screen_moire': int(F['screen']), 'width': W, 'height': H,
    }
    cases.update(pb.info)
    cases.update(minfo)
    cases.update(einfo)
    cases.update(cinfo)
    cases['framed_quad'] = ' '.join('%.1f' % v for v in np.asarray(quad).ravel())
    return qid, entry['id'], q, cases


# --------------------------------------------------------------------------
# plan
# --------------------------------------------------------------------------
def balanced(seed, name, count, opts):
    """count values with the given weights (largest remainder), shuffled by (seed, name)."""
    vals, ws = zip(*opts)
    ws = np.array(ws, float) / sum(ws)
    raw = ws * count
    n = np.floor(raw).astype(int)
    for i in np.argsort(-(raw - n), kind='stable')[:count - n.sum()]:
        n[i] += 1
    out = [v for v, k in zip(vals, n) for _ in range(k)]
    r = np.random.default_rng([seed, zlib.crc32(name.encode())])
    return [out[i] for i in r.permutation(count)]


def strat(seed, name, count):
    r = np.random.default_rng([seed, zlib.crc32(name.encode())])
    return list((r.permutation(count) + r.uniform(0, 1, count)) / count)


def make_plan(bank, count, seed):
    r = np.random.default_rng([seed, 7])
    special = [i for i, e in enumerate(bank) if any(c in SUP or c in SUB for c in e['question'])
               or '___' in e['question'] or not has_cjk(e['question'])]
    rest = [i for i in range(len(bank)) if i not in special]
    order = [special[i] for i in r.permutation(len(special))] + [rest[i] for i in r.permutation(len(rest))]
    sel = [order[i % len(order)] for i in range(count)]
    sel = [sel[i] for i in r.permutation(count)]
    B = lambda name, opts: balanced(seed, name, count, opts)
    feats = {
        'doc': B('doc', [('worksheet', 1), ('exam', 1), ('textbook', 1)]),
        'mixed': B('mixed', [(True, 0.3), (False, 0.7)]),
        'char_h': [16 + 24 * v for v in strat(seed, 'char_h', count)],
        'numbering': B('numbering', [('all', 0.62), ('some', 0.14), ('none', 0.1), ('header', 0.14)]),
        'indent': B('indent', [('hanging', 1), ('flush', 1)]),
        'columns': B('columns', [(1, 0.68), (2, 0.32)]), 'framed_col': B('fcol', [(0, 1), (1, 1)]),
        'tight': B('tight', [(True, 0.25), (False, 0.75)]),
        'name_line': B('name', [(True, 0.5), (False, 0.5)]),
        'sections': B('sections', [(True, 0.55), (False, 0.45)]),
        'score_note': B('score', [(True, 0.4), (False, 0.6)]),
        'options': B('options', [(True, 0.5), (False, 0.5)]),
        'marks': B('marks', [(True, 0.45), (False, 0.55)]),
        'circle': B('circle', [(True, 0.22), (False, 0.78)]),
        'highlight': B('highlight', [(True, 0.22), (False, 0.78)]),
        'underline': B('underline', [(True, 0.22), (False, 0.78)]),
        'occluder': B('occluder', [('none', 0.72), ('finger', 0.16), ('pen', 0.12)]),
        'curl': B('curl', [(True, 0.18), (False, 0.82)]),
        'fold': B('fold', [(True, 0.18), (False, 0.82)]),
        'orient': B('orient', [(0, 0.9), (90, 0.03), (270, 0.03), (180, 0.04)]),
        'screen': B('screen', [(True, 0.1), (False, 0.9)]),
        'condensed': B('condensed', [(True, 0.12), (False, 0.88)]),
        'size': B('size', [((1280, 960), 0.38), ((960, 1280), 0.38), ((1600, 1200), 0.05), ((1200, 1600), 0.05),
                           ((1024, 768), 0.05), ((768, 1024), 0.05), ((800, 600), 0.04)]),
        'blur': B('blur', [('none', 0.45), ('defocus', 0.43), ('motion', 0.12)]),
        'lighting': B('lighting', [(True, 0.7), (False, 0.3)]),
        'shadow': B('shadow', [(True, 0.3), (False, 0.7)]),
        'persp': strat(seed, 'persp', count),
        'jpeg_q': [int(round(55 + 35 * v)) for v in strat(seed, 'jpeg', count)],
        'noise': strat(seed, 'noise', count),
    }
    plans = []
    for i in range(count):
        F = {k: v[i] for k, v in feats.items()}
        e = bank[sel[i]]
        fl = 'zh' if has_cjk(e['question']) else 'en'
        F['page_lang'] = 'mixed' if F['mixed'] else fl
        if F['screen']:
            F['curl'] = F['fold'] = False
        plans.append((F, e))
    # fonts and number styles: cycle through each page language's list so all appear
    for lang in ('zh', 'en', 'mixed'):
        members = [i for i in range(count) if plans[i][0]['page_lang'] == lang]
        styles = EN_STYLES if lang == 'en' else ZH_STYLES
        nums = ZH_NUM_STYLES if lang == 'zh' else (EN_NUM_STYLES if lang == 'en'
                                                   else sorted(set(ZH_NUM_STYLES + EN_NUM_STYLES)))
        r = np.random.default_rng([seed, zlib.crc32(lang.encode())])
        for k, i in enumerate(r.permutation(members)):
            plans[i][0]['font'] = styles[k % len(styles)]
            plans[i][0]['num_style'] = nums[(k * 5 + 3) % len(nums)]
    return plans


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('outdir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=321)
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    with open(a.bank, encoding='utf-8') as f:
        bank = [json.loads(l) for l in f if l.strip()]
    os.makedirs(a.outdir, exist_ok=True)
    t0 = time.time()
    plans = make_plan(bank, a.count, a.seed)
    tasks = [(i + 1, a.seed, F, e, bank, a.outdir) for i, (F, e) in enumerate(plans)]
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs) as ex:
            res = list(ex.map(make_one, tasks, chunksize=1))
    else:
        res = [make_one(t) for t in tasks]
    res.sort(key=lambda r: r[0])
    with open(os.path.join(a.outdir, 'truth.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['qid', 'text'])
        for qid, eid, q, _ in res:
            w.writerow([qid, q])
    with open(os.path.join(a.outdir, 'queries.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for qid, eid, q, _ in res:
            w.writerow([qid, q, eid, 'exact'])
    cols = list(res[0][3].keys())
    with open(os.path.join(a.outdir, 'cases.csv'), 'w', encoding='utf-8', newline='') as f:
        w = csv.DictWriter(f, cols, lineterminator='\n')
        w.writeheader()
        for r in res:
            w.writerow(r[3])
    print('wrote %d photos to %s in %.1f s' % (len(res), a.outdir, time.time() - t0))


if __name__ == '__main__':
    main()
