#!/usr/bin/env python3
"""Synthetic phone photos of printed homework problems (set s17: what is printed
or written right before and around a problem).

Usage:
  python make_photos.py --bank BANK.jsonl OUT_DIR --count 120 --seed 171 --jobs 2 [--only 3,17]

Every photo i takes all of its randomness from numpy.random.SeedSequence([seed, i]).
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
from multiprocessing import Pool

import cv2
import numpy as np
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# ----------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------
NOTO = '/usr/share/fonts/opentype/noto/'
DJ = '/usr/share/fonts/truetype/dejavu/'
LB = '/usr/share/fonts/truetype/liberation/'
FACES = {
    'sans_cjk': (NOTO + 'NotoSansCJK-Regular.ttc', 2),
    'sans_cjk_b': (NOTO + 'NotoSansCJK-Bold.ttc', 2),
    'serif_cjk': (NOTO + 'NotoSerifCJK-Regular.ttc', 2),
    'serif_cjk_b': (NOTO + 'NotoSerifCJK-Bold.ttc', 2),
    'dejavu': (DJ + 'DejaVuSans.ttf', 0),
    'dejavu_b': (DJ + 'DejaVuSans-Bold.ttf', 0),
    'dejavu_serif': (DJ + 'DejaVuSerif.ttf', 0),
    'dejavu_serif_b': (DJ + 'DejaVuSerif-Bold.ttf', 0),
    'dejavu_cond': (DJ + 'DejaVuSansCondensed.ttf', 0),
    'dejavu_cond_b': (DJ + 'DejaVuSansCondensed-Bold.ttf', 0),
    'lib_sans': (LB + 'LiberationSans-Regular.ttf', 0),
    'lib_sans_b': (LB + 'LiberationSans-Bold.ttf', 0),
    'lib_serif': (LB + 'LiberationSerif-Regular.ttf', 0),
    'lib_serif_b': (LB + 'LiberationSerif-Bold.ttf', 0),
    'lib_narrow': (LB + 'LiberationSansNarrow-Regular.ttf', 0),
    'lib_narrow_b': (LB + 'LiberationSansNarrow-Bold.ttf', 0),
    'hand_lat1': (LB + 'LiberationSerif-Italic.ttf', 0),
    'hand_lat2': (DJ + 'DejaVuSans-Oblique.ttf', 0),
    'hand_lat3': (LB + 'LiberationSans-Italic.ttf', 0),
    'math': (DJ + 'DejaVuMathTeXGyre.ttf', 0),
}
FALLBACK = ['dejavu', 'sans_cjk', 'math', 'dejavu_serif', 'serif_cjk']
LATIN_PAIRS = [  # (regular, bold)
    ('dejavu', 'dejavu_b'), ('dejavu_serif', 'dejavu_serif_b'), ('dejavu_cond', 'dejavu_cond_b'),
    ('lib_sans', 'lib_sans_b'), ('lib_serif', 'lib_serif_b'), ('lib_narrow', 'lib_narrow_b'),
    ('sans_cjk', 'sans_cjk_b'), ('serif_cjk', 'serif_cjk_b'), ('lib_serif', 'lib_serif_b')]
CJK_PAIRS = [('sans_cjk', 'sans_cjk_b'), ('serif_cjk', 'serif_cjk_b')]

_CMAP = {}
_FONT = {}
_WID = {}


def cmap(face):
    c = _CMAP.get(face)
    if c is None:
        p, i = FACES[face]
        t = TTFont(p, fontNumber=i, lazy=True)
        c = set(t.getBestCmap().keys())
        t.close()
        _CMAP[face] = c
    return c


def font(face, size):
    size = max(6, int(round(size)))
    k = (face, size)
    f = _FONT.get(k)
    if f is None:
        p, i = FACES[face]
        f = ImageFont.truetype(p, size, index=i)
        _FONT[k] = f
    return f


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF) or (0xFF00 <= o <= 0xFFEF) or (0x2460 <= o <= 0x24FF) or \
        (0x3000 <= o <= 0x303F) or ch in '“”‘’…—·'


def pick_face(ch, lat, cjk):
    order = [cjk, lat] if is_cjk(ch) else [lat, cjk]
    for f in order + FALLBACK:
        if ord(ch) in cmap(f):
            return f
    return 'dejavu'


def cwidth(ch, face, size):
    k = (ch, face, int(round(size)))
    w = _WID.get(k)
    if w is None:
        w = font(face, size).getlength(ch)
        _WID[k] = w
    return w


def runs_of(text, lat, cjk):
    """split text into (substring, face) runs, each char in a face that has it"""
    out = []
    for ch in text:
        f = pick_face(ch, lat, cjk) if ch != ' ' else (out[-1][1] if out else lat)
        if out and out[-1][1] == f:
            out[-1][0] += ch
        else:
            out.append([ch, f])
    return [(a, b) for a, b in out]


def text_width(text, lat, cjk, size):
    return sum(cwidth(ch, pick_face(ch, lat, cjk) if ch != ' ' else lat, size) for ch in text)


# ----------------------------------------------------------------------------
# bank helpers
# ----------------------------------------------------------------------------
def load_bank(path):
    items = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if line:
                items.append(json.loads(line))
    return items


def near_dups(bank):
    qs = [b['question'] for b in bank]
    nd = {}
    for i in range(len(qs)):
        nd[i] = [j for j in range(len(qs)) if j != i and
                 difflib.SequenceMatcher(None, qs[i], qs[j]).ratio() > 0.8]
    return nd


def short_answer(ans, rng):
    a = re.sub(r'\$|\\[a-z]+|[{}]', '', ans)
    a = a.replace('\n', ' ')
    parts = re.split(r'[。；;]|\. ', a)
    cand = [p.strip() for p in parts if p.strip()]
    p = cand[-1] if cand else a
    if '=' in p and rng.random() < 0.6:
        p = p.split('=')[-1].strip()
    for sep in ('：', ': '):
        if sep in p:
            p = p.split(sep)[-1]
    lim = 11 if any(is_cjk(c) for c in p) else 26
    return p[:lim].strip() or 'ok'


# ----------------------------------------------------------------------------
# text pools
# ----------------------------------------------------------------------------
CN_NUM = '零一二三四五六七八九十'


def cn_num(n):
    if n <= 10:
        return CN_NUM[n]
    if n < 20:
        return '十' + CN_NUM[n - 10]
    return CN_NUM[n // 10] + '十' + (CN_NUM[n % 10] if n % 10 else '')


def circled(n):
    return chr(0x2460 + n - 1) if 1 <= n <= 20 else '(%d)' % n


LABEL_STYLES = {
    'dot': lambda n, c: '%d.' % n, 'paren': lambda n, c: '%d)' % n, 'paren2': lambda n, c: '(%d)' % n,
    'colon': lambda n, c: '%d:' % n, 'dash': lambda n, c: '%d -' % n, 'hash': lambda n, c: '#%d' % n,
    'Q': lambda n, c: 'Q%d' % n, 'Q.': lambda n, c: 'Q.%d' % n, 'Qdot': lambda n, c: 'Q%d.' % n,
    'Question': lambda n, c: 'Question %d' % n, 'QuestionOf': lambda n, c: 'Question %d of %d' % (n, c['total']),
    'Problem:': lambda n, c: 'Problem %d:' % n, 'Problem#': lambda n, c: 'Problem #%d' % n,
    'Exercise': lambda n, c: 'Exercise %d.%d' % (c['unit'], n), 'Task': lambda n, c: 'Task %d' % n,
    'Item': lambda n, c: 'Item %d' % n, 'No.': lambda n, c: 'No. %d' % n,
    'di_ti': lambda n, c: '第%d题' % n, 'bracket_di': lambda n, c: '【第%d题】' % n,
    'dun': lambda n, c: '%d、' % n, 'cn_dun': lambda n, c: cn_num(n) + '、', 'circ': lambda n, c: circled(n),
    'wenti': lambda n, c: '问题%d：' % n, 'xiti': lambda n, c: '习题%d' % n,
    'Example': lambda n, c: 'Example %d' % n, 'li': lambda n, c: '例%d' % n,
}
OWNLINE_LIKELY = {'Question', 'QuestionOf', 'Problem:', 'Problem#', 'Exercise', 'Task', 'Item', 'bracket_di',
                  'Example', 'xiti', 'di_ti', 'wenti'}
SCORE_EN = ['(%d points)', '[%d marks]', '— %d marks', '(%d marks)', '[%d]', '(%d pts)', '(%d point%s)']
SCORE_CN = ['（本题%d分）', '（%d分）', '(%d分)', '【%d分】', '（满分%d分）']

TITLES_EN = ['Unit %d Review Worksheet', 'Chapter %d Practice', 'Mid-term Practice Test', 'Homework %d',
             'Weekly Quiz %d', 'Grade %d Revision Sheet', 'Problem Set %d', 'Class Test %d']
TITLES_CN = ['第%s单元 练习卷', '期中复习题（%s）', '课后作业（%s）', '第%s章 检测题', '周末练习 %s', '单元测试卷（%s）',
             '同步练习 第%s课时']
SUB_EN = ['Lesson %d: Review', 'Unit %d · Lesson 3', 'Topic %d — Mixed practice', 'Section %d.2 Exercises']
SUB_CN = ['第%d课时 综合练习', '第%d节 基础训练', '专题%d 综合运用', '第%d讲 巩固提升']
INSTR_EN = ['Answer all questions.', 'Show your working.', 'Directions: Read each question carefully and answer in the space provided.',
            'Directions: Answer all questions. Calculators are not allowed.', 'Write your answers in the spaces provided.',
            'Answer all questions. Show your working.', 'Instructions: Use a pen. Give answers in full sentences.']
INSTR_CN = ['解答下列各题。', '请将答案写在横线上。', '解答题应写出文字说明、证明过程或演算步骤。', '请在答题区域内作答，超出区域无效。',
            '注意：本卷共三大题，请认真审题。', '把正确答案填在括号里。']
NAME_EN = ['Name: ____________   Class: ________   Date: ________', 'Name ______________  Form ____  Score ____',
           'Student: ______________    Date: ___/___/______']
NAME_CN = ['姓名：________  班级：______  学号：______', '姓名________ 班级________ 得分________', '班级：_____ 姓名：_______ 座号：____']
TIME_EN = ['Time: %d minutes      Total: %d marks', 'Time allowed: %d min   Maximum marks: %d', 'Duration: %d minutes   Total marks: %d']
TIME_CN = ['时间：%d分钟    满分：%d分', '考试时间%d分钟  满分%d分', '（时间：%d分钟  总分：%d分）']
SEC_EN = ['Section %s', 'Part %s', 'Section %s: Short answer', 'Part %s — Calculation', 'Section %s. Multiple choice']
SEC_EN_SC = [' (%d marks)', ' [%d marks]', ' — %d points']
SEC_CN = ['%s、选择题', '%s、填空题', '%s、解答题', '%s、计算题', '%s、简答题', '%s、基础知识']
SEC_CN_SC = ['（每小题%d分，共%d分）', '（本大题共%d小题，共%d分）', '（共%d分）']
HEAD_EN = ['Page %d of %d', 'Grade %d Mathematics', 'Worksheet %d', '— %d —', 'Science Homework · Week %d',
           'Spring Term Practice · p.%d']
HEAD_CN = ['第 %d 页  共 %d 页', '七年级 综合练习  第%d页', '— %d —', '初中%d年级 学科作业', '第%d页（共%d页）']
SUBQ_EN = ['Show your working.', 'Explain your answer.', 'Check your result.', 'Write the answer in a full sentence.',
           'Give your answer to 2 decimal places.', 'State the unit.', 'Draw a diagram to help.']
SUBQ_CN = ['写出计算过程。', '说明理由。', '检验你的结果。', '用两种方法解答。', '写出所用的公式。', '画出示意图。', '写出单位。']
MARGIN_NOTES = ['?', '??', 'check', 'ask!', '★', '不会', '重点', '难', '易错', '再做一遍', 'skip', 'hmm', '✓', '→']
SHORT_ANS = ['x = 5', '40 cm²', '答：5', 'B', '1/2', 'went', '12', 'C', '3.14', '约 340 m/s', 'yes', '北京', 'x=4', '6 Ω']
CROSS_PAIRS = [('goes', 'went'), ('8', '9'), ('x=3', 'x=2'), ('北京', '上海'), ('20', '25'), ('an', 'a'),
               ('错误', '正确'), ('since', 'for'), ('1/3', '3/8'), ('12 cm', '24 cm²')]
TEACHER = ['+5', '-2', '4/5', '3分', '✓', '5', '-1', '2/4', '满分', '×', '8', '½']


# ----------------------------------------------------------------------------
# ops: ('t', x, base, text, face, size, color)  printed run
#      ('h', x, base, text, size, color, seed, lat, cjk) handwriting
#      ('l', pts, color, width)  polyline
#      ('e', cx, cy, rx, ry, color, width, seed) hand-drawn ellipse
#      ('hl', poly, rgb) highlighter (multiply)
# ----------------------------------------------------------------------------
def shift_ops(ops, dx, dy):
    out = []
    for o in ops:
        t = o[0]
        if t in ('t', 'h'):
            out.append((t, o[1] + dx, o[2] + dy) + tuple(o[3:]))
        elif t == 'l':
            out.append(('l', [(x + dx, y + dy) for x, y in o[1]], o[2], o[3]))
        elif t == 'e':
            out.append(('e', o[1] + dx, o[2] + dy) + tuple(o[3:]))
        elif t == 'hl':
            out.append(('hl', [(x + dx, y + dy) for x, y in o[1]], o[2]))
    return out


def shift_box(b, dx, dy):
    return (b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy)


def line_box(x0, x1, base, em):
    return (x0, base - 0.88 * em, x1, base + 0.22 * em)


# ----------------------------------------------------------------------------
# text wrapping
# ----------------------------------------------------------------------------
def units_of(text):
    """words / CJK chars / spaces / blanks"""
    out = []
    for m in re.finditer(r'_{2,}|[ ]+|[\u2e80-\u9fff\uff00-\uffef\u3000-\u303f“”]|[^ \u2e80-\u9fff\uff00-\uffef\u3000-\u303f“”_]+|_', text):
        out.append(m.group(0))
    return out


NO_LINE_START = set('）)】」》。，、？！：；”’.,;:?!%℃°')


class Wrapper:
    """greedy line filler. tokens are (kind, payload): ('txt', (str, bold)), ('blank', None)"""

    def __init__(self, st, size, x_first, x_rest, right, lh):
        self.st, self.size, self.xf, self.xr, self.right, self.lh = st, size, x_first, x_rest, right, lh
        self.lines = [[]]  # each: list of (kind, text, bold, width)
        self.x = x_first

    def unit_w(self, u, bold):
        lat, cjk = (self.st['lat_b'], self.st['cjk_b']) if bold else (self.st['lat'], self.st['cjk'])
        return text_width(u, lat, cjk, self.size)

    def add_unit(self, kind, u, bold, w, tag):
        cur = self.lines[-1]
        if u.strip() == '' and kind == 'txt':
            if not cur:
                return
        no_break = u in NO_LINE_START and self.x + w <= self.right + 1.2 * self.size
        if cur and self.x + w > self.right + 0.5 and u.strip() != '' and not no_break:
            self.lines.append([])
            self.x = self.xr
            cur = self.lines[-1]
        cur.append((kind, u, bold, w, tag))
        self.x += w

    def add_text(self, s, bold=False, tag='stem'):
        if tag in ('label', 'score', 'bracket'):
            self.add_unit('txt', s, bold, self.unit_w(s, bold), tag)
            return
        for u in units_of(s):
            if u.startswith('__'):
                self.add_blank(len(u), tag)
                continue
            w = self.unit_w(u, bold)
            if w > self.right - self.xr:  # very long word: split by chars
                for ch in u:
                    self.add_unit('txt', ch, bold, self.unit_w(ch, bold), tag)
            else:
                self.add_unit('txt', u, bold, w, tag)

    def add_blank(self, n, tag):
        st = self.st
        if st['blank_mode'] == 'rule':
            w = self.size * st['blank_em']
            self.add_unit('rule', '_' * n, False, w, tag)
        else:
            u = '_' * st['blank_us']
            self.add_unit('txt', u, False, self.unit_w(u, False), tag)

    def add_gap(self, w, tag='gap'):
        self.add_unit('txt', ' ', False, w, tag)
        self.lines[-1][-1] = ('gap', ' ', False, w, tag)

    def newline(self):
        self.lines.append([])
        self.x = self.xr

    def emit(self, y0, color):
        """returns ops, per-line dict list, y after"""
        ops, info = [], []
        base = y0 + 0.9 * self.size
        for li, line in enumerate(self.lines):
            # strip trailing spaces
            while line and line[-1][0] in ('txt', 'gap') and line[-1][1].strip() == '':
                line = line[:-1]
            if not line:
                continue
            x = self.xf if li == 0 else self.xr
            segs = {}
            for kind, u, bold, w, tag in line:
                if kind == 'txt' and u.strip():
                    lat, cjk = (self.st['lat_b'], self.st['cjk_b']) if bold else (self.st['lat'], self.st['cjk'])
                    xx = x
                    for sub, face in runs_of(u, lat, cjk):
                        ops.append(('t', xx, base, sub, face, self.size, color))
                        xx += text_width(sub, lat, cjk, self.size)
                elif kind == 'rule':
                    yy = base + 0.12 * self.size
                    ops.append(('l', [(x + 0.1 * self.size, yy), (x + w - 0.1 * self.size, yy)], color,
                                max(1, self.size * 0.06)))
                if u.strip() or kind == 'rule':
                    s = segs.setdefault(tag, [x, x + w])
                    s[0] = min(s[0], x)
                    s[1] = max(s[1], x + w)
                x += w
            info.append({'base': base, 'segs': segs, 'x_end': x})
            base += self.lh
        y_after = base - self.lh + 0.3 * self.size
        return ops, info, y_after


# ----------------------------------------------------------------------------
# planning (all random decisions of the page)
# ----------------------------------------------------------------------------
def choice(rng, seq, p=None):
    if p is not None:
        p = np.asarray(p, float)
        p = p / p.sum()
    return seq[int(rng.choice(len(seq), p=p))]


def make_plan(rng, bank, nd, W_up, H_up, screen):
    P = {}
    en_page = rng.random() < 0.45
    P['lang'] = 'en' if en_page else 'cn'
    lat = LATIN_PAIRS[int(rng.integers(len(LATIN_PAIRS)))]
    cjk = CJK_PAIRS[int(rng.integers(2))]
    P['st'] = {'lat': lat[0], 'lat_b': lat[1], 'cjk': cjk[0], 'cjk_b': cjk[1],
               'blank_mode': 'rule' if rng.random() < 0.6 else 'us',
               'blank_em': float(rng.uniform(3, 6)), 'blank_us': int(rng.integers(5, 10))}
    P['em'] = int(rng.integers(28, 41))
    P['lh'] = float(rng.uniform(1.45, 1.8))
    P['screen'] = screen
    phone_screen = screen == 'phone'
    P['two_col'] = (not phone_screen) and rng.random() < 0.34
    # widest text a 23px-em photo can hold
    fit_em = 0.80 * W_up / 24.5
    if P['two_col']:
        col = float(min(rng.uniform(18, 25), fit_em))
        P['gutter'] = float(rng.uniform(1.4, 3.2))
        P['col_w'] = col
        P['text_w'] = 2 * col + P['gutter']
        P['right_offset'] = float(rng.choice([0, 0, rng.uniform(1.5, 7)]))
    else:
        P['col_w'] = float(min(rng.uniform(30, 46) if not phone_screen else rng.uniform(17, 24), fit_em))
        P['text_w'] = P['col_w']
        P['gutter'] = 0.0
        P['right_offset'] = 0.0
    P['margin'] = float(rng.uniform(3.0, 6.0)) if not phone_screen else float(rng.uniform(1.0, 2.0))
    P['ink'] = tuple(int(v) for v in (rng.integers(10, 60),) * 3) if rng.random() < 0.8 else (25, 30, 70)
    # furniture
    L = P['lang']
    P['header'] = rng.random() < 0.45
    P['footer'] = rng.random() < 0.35
    P['title'] = rng.random() < 0.55
    P['subtitle'] = rng.random() < 0.3
    P['name_line'] = rng.random() < 0.4
    P['time_line'] = rng.random() < 0.3
    P['instr'] = rng.random() < 0.5
    P['pageno'] = int(rng.integers(1, 6))
    u = int(rng.integers(1, 9))
    P['unit'] = u
    P['header_text'] = (choice(rng, HEAD_EN) if L == 'en' else choice(rng, HEAD_CN))
    P['header_text'] = P['header_text'].replace('%d', str(P['pageno']), 1).replace('%d', str(P['pageno'] + 2), 1)
    P['footer_text'] = choice(rng, HEAD_EN + HEAD_CN)
    P['footer_text'] = P['footer_text'].replace('%d', str(P['pageno']), 1).replace('%d', str(P['pageno'] + 3), 1)
    P['title_text'] = (choice(rng, TITLES_EN).replace('%d', str(u)) if L == 'en'
                       else choice(rng, TITLES_CN).replace('%s', cn_num(u)))
    P['subtitle_text'] = (choice(rng, SUB_EN) if L == 'en' else choice(rng, SUB_CN)).replace('%d', str(int(rng.integers(1, 9))))
    P['name_text'] = choice(rng, NAME_EN) if L == 'en' else choice(rng, NAME_CN)
    P['time_text'] = (choice(rng, TIME_EN) if L == 'en' else choice(rng, TIME_CN)) % (
        int(choice(rng, [30, 40, 45, 60, 90])), int(choice(rng, [20, 50, 60, 100, 120])))
    P['instr_text'] = [choice(rng, INSTR_EN) if L == 'en' else choice(rng, INSTR_CN)]
    if rng.random() < 0.25:
        P['instr_text'].append(choice(rng, INSTR_CN) if L == 'en' else choice(rng, INSTR_EN))
    # labels
    styles = list(LABEL_STYLES.keys())
    cn_styles = {'di_ti', 'bracket_di', 'dun', 'cn_dun', 'circ', 'wenti', 'xiti', 'li'}
    wts = [1.6 if ((s in cn_styles) == (L == 'cn')) else 0.8 for s in styles]
    P['label_style'] = choice(rng, styles, wts)
    P['label_style2'] = choice(rng, styles) if rng.random() < 0.25 else None  # a second style in section 2
    own_p = 0.6 if P['label_style'] in OWNLINE_LIKELY else 0.18
    P['own_line_p'] = own_p
    P['label_bold'] = rng.random() < 0.55
    P['start'] = int(choice(rng, [1, 1, 1, int(rng.integers(2, 16))]))
    P['score_mode'] = choice(rng, ['none', 'before', 'after', 'ownright', 'mixed'], [0.3, 0.2, 0.25, 0.1, 0.15])
    P['score_tpl'] = choice(rng, SCORE_EN) if (L == 'en') != (rng.random() < 0.25) else choice(rng, SCORE_CN)
    # problems
    n_prob = int(rng.integers(5, 12)) if not P['two_col'] else int(rng.integers(7, 14))
    f_idx = int(rng.integers(len(bank)))
    others = [int(j) for j in rng.permutation(len(bank)) if j != f_idx][:n_prob - 1]
    # where is the framed problem on the page
    r = rng.random()
    if r < 0.35:
        k = int(rng.integers(0, min(2, n_prob)))
    else:
        k = int(rng.integers(0, n_prob))
    items = others[:k] + [f_idx] + others[k:]
    if nd[f_idx] and rng.random() < 0.35:  # near-duplicate as a neighbour
        d = int(choice(rng, nd[f_idx]))
        if d not in items:
            pos = k + 1 if (k + 1 < n_prob and rng.random() < 0.6) or k == 0 else k - 1
            items[pos] = d
    P['framed'] = k
    P['total'] = n_prob + P['start'] - 1 + int(rng.integers(0, 6))
    # sections
    n_sec = int(choice(rng, [0, 1, 1, 2, 2, 3]))
    breaks = sorted(set(int(b) for b in rng.choice(np.arange(1, n_prob), size=min(max(n_sec - 1, 0), n_prob - 1), replace=False))) if n_sec > 1 else []
    P['sections'] = []
    if n_sec:
        starts = [0] + breaks
        for si, s0 in enumerate(starts):
            if L == 'en':
                h = choice(rng, SEC_EN) % 'ABCD'[si] if rng.random() < 0.5 else choice(rng, SEC_EN) % ['I', 'II', 'III', 'IV'][si]
                if rng.random() < 0.5:
                    h += choice(rng, SEC_EN_SC) % int(rng.integers(2, 7) * 5)
            else:
                h = choice(rng, SEC_CN) % cn_num(si + 1)
                if rng.random() < 0.55:
                    a = int(rng.integers(2, 7))
                    h += choice(rng, SEC_CN_SC).replace('%d', str(a), 1).replace('%d', str(a * 4), 1)
            P['sections'].append((s0, h))
    tight_list = rng.random() < 0.4
    probs = []
    for j, bi in enumerate(items):
        q = bank[bi]['question']
        sec = sum(1 for s0, _ in P['sections'] if s0 <= j) - 1
        style = P['label_style2'] if (P['label_style2'] and sec >= 1) else P['label_style']
        short = len(q) < 34 and not any(c in q for c in '_')
        tight = tight_list and short and rng.random() < 0.85
        pr = {'bank': bi, 'n': P['start'] + j, 'style': style, 'tight': tight}
        pr['own_line'] = (not tight) and rng.random() < P['own_line_p']
        sm = P['score_mode']
        if sm == 'mixed':
            sm = choice(rng, ['none', 'before', 'after', 'ownright'])
        if sm == 'ownright' and not pr['own_line']:
            sm = 'after'
        pts = int(rng.integers(1, 11))
        tpl = P['score_tpl']
        pr['score'] = None if sm == 'none' else (sm, (tpl % (pts, '' if pts == 1 else 's')) if tpl.count('%') == 2 else tpl % pts)
        pr['options'] = None
        pr['subq'] = None
        if not tight:
            r2 = rng.random()
            if r2 < 0.22:
                pr['options'] = make_options(rng, bank, bi)
            elif r2 < 0.38:
                nsq = int(rng.integers(2, 4))
                pool = SUBQ_EN if (rng.random() < 0.5) == (L == 'en') or True else SUBQ_CN
                pool = SUBQ_EN if not any(is_cjk(c) for c in q) else SUBQ_CN
                sqs = list(rng.choice(pool, size=nsq, replace=False))
                sty = choice(rng, ['(%d)', '(%s)', '%s)', '%c'])
                pr['subq'] = [(('(%d) ' % (m + 1)) if sty == '(%d)' else ('(%s) ' % 'abc'[m]) if sty == '(%s)' else
                               ('%s) ' % 'abc'[m]) if sty == '%s)' else (circled(m + 1) + ' ')) + s for m, s in enumerate(sqs)]
        pr['answer_rule'] = (not tight) and rng.random() < 0.25
        pr['bracket'] = (not tight) and pr['options'] is not None and rng.random() < 0.5
        pr['gap'] = float(rng.uniform(0.15, 0.45)) if tight else float(rng.uniform(0.7, 2.2))
        pr['hand_below'] = None
        probs.append(pr)
    P['probs'] = probs
    # ---- student / teacher writing and label damage
    D = {}
    fk = k
    D['hand_below'] = []
    for j in range(n_prob):
        near = abs(j - fk) <= 1
        if rng.random() < (0.45 if near else 0.12):
            D['hand_below'].append(j)
    D['crossed'] = rng.random() < 0.3
    D['inline_ans'] = rng.random() < 0.25
    D['margin_note'] = rng.random() < 0.35
    lm = rng.random()
    D['label_mark'] = None
    if lm < 0.12:
        D['label_mark'] = 'circle'
    elif lm < 0.22:
        D['label_mark'] = 'underline'
    elif lm < 0.32:
        D['label_mark'] = 'tick'
    elif lm < 0.40:
        D['label_mark'] = 'cross'
    D['teacher'] = rng.random() < 0.3
    dm = rng.random()
    D['damage'] = None
    if dm < 0.12:
        D['damage'] = 'finger'
    elif dm < 0.20:
        D['damage'] = 'pen'
    elif dm < 0.30:
        D['damage'] = 'faint'
    elif dm < 0.42:
        D['damage'] = 'highlighter'
    if D['damage'] == 'faint' and D['label_mark'] in ('tick', 'cross'):
        D['label_mark'] = None
    D['neighbour_marks'] = rng.random() < 0.3
    P['decor'] = D
    P['hand_color'] = choice(rng, [(25, 45, 150), (20, 20, 30), (90, 90, 95), (40, 60, 170)])
    P['layout_seed'] = int(rng.integers(2 ** 31))
    return P


def make_options(rng, bank, bi):
    q = bank[bi]['question']
    nums = re.findall(r'\d+', bank[bi]['answer'])
    if nums and rng.random() < 0.7:
        base = int(nums[-1]) if len(nums[-1]) < 6 else 5
        vals = sorted(set([base, base + 1, max(0, base - 1), base * 2, base + 2, abs(base - 3)]))
        vals = [int(v) for v in rng.choice(vals, size=min(4, len(vals)), replace=False)]
        while len(vals) < 4:
            vals.append(vals[-1] + 3)
        opts = [str(v) for v in vals]
    else:
        kps = []
        for b in bank:
            kps += b.get('knowledge_points', [])
        opts = [str(x) for x in rng.choice(kps, size=4, replace=False)]
        if not any(is_cjk(c) for c in q):
            opts = [str(x) for x in rng.choice(['goes', 'went', 'go', 'gone', 'since', 'for', 'a', 'an', 'the',
                                                 'true', 'false', 'none of these', 'both', '1492', '1776', '1914'],
                                                size=4, replace=False)]
    sty = choice(rng, ['A. ', 'A) ', '(A) ', 'A．', 'A、'])
    return [sty.replace('A', 'ABCD'[m]) + o for m, o in enumerate(opts)]


# ----------------------------------------------------------------------------
# layout (deterministic from plan + extra)
# ----------------------------------------------------------------------------
def label_text(pr, P):
    return LABEL_STYLES[pr['style']](pr['n'], {'total': P['total'], 'unit': P['unit']})


def layout_problem(P, pr, x0, width, em, extra_before, extra_after, is_framed, lr):
    st = P['st']
    lh = em * (P['lh'] if not pr['tight'] else min(P['lh'], 1.5))
    ink = P['ink']
    D = P['decor']
    faint = is_framed and D['damage'] == 'faint'
    lab_color = (185, 185, 185) if faint else ink
    ops, minb, maxb, stemb = [], [], [], []
    y = extra_before
    lab = label_text(pr, P)
    lab_box = None
    hanging = lr.random() < 0.6
    if pr['own_line']:
        w = Wrapper(st, em, x0, x0, x0 + width, lh)
        w.add_text(lab, bold=P['label_bold'], tag='label')
        if pr['score'] and pr['score'][0] in ('before', 'ownright'):
            if pr['score'][0] == 'ownright':
                sw = text_width(pr['score'][1], st['lat'], st['cjk'], em)
                w.add_gap(max(em, x0 + width - w.x - sw))
            else:
                w.add_gap(em * 0.5)
            w.add_text(pr['score'][1], tag='score')
        o, info, y2 = w.emit(y, ink)
        # recolour label ops if faint
        if faint:
            o = [(a[0], a[1], a[2], a[3], a[4], a[5], lab_color) if a[0] == 't' and a[1] < info[0]['segs']['label'][1] - 1
                 else a for a in o]
        ops += o
        for ln in info:
            for tag, (a, b) in ln['segs'].items():
                bx = line_box(a, b, ln['base'], em)
                minb.append(bx)
                if tag == 'label':
                    lab_box = bx
        y = y2 + em * float(lr.uniform(0.15, 0.5))
        ind = em * float(lr.choice([0, 0, 1, 2]))
        w = Wrapper(st, em, x0 + ind, x0 + ind, x0 + width, lh)
    else:
        lw = text_width(lab, st['lat_b'] if P['label_bold'] else st['lat'], st['cjk_b'] if P['label_bold'] else st['cjk'], em)
        gap = em * float(lr.uniform(0.3, 0.8))
        xr = x0 + (lw + gap if hanging else 0)
        w = Wrapper(st, em, x0, xr, x0 + width, lh)
        w.add_text(lab, bold=P['label_bold'], tag='label')
        w.add_gap(gap)
        if pr['score'] and pr['score'][0] == 'before':
            w.add_text(pr['score'][1], tag='score')
            w.add_gap(em * 0.4)
    q = P['bank_q'][pr['bank']]
    w.add_text(q, tag='stem')
    if pr['score'] and pr['score'][0] == 'after':
        w.add_gap(em * 0.5)
        w.add_text(pr['score'][1], tag='score')
    if pr['bracket']:
        w.add_gap(em * 0.3)
        w.add_text('（    ）' if any(is_cjk(c) for c in q) else '(      )', tag='bracket')
    o, info, y2 = w.emit(y, ink)
    if faint and not pr['own_line']:
        lx1 = info[0]['segs'].get('label', [0, -1])[1]
        o = [(a[0], a[1], a[2], a[3], a[4], a[5], lab_color) if (a[0] == 't' and a[1] < lx1 - 1 and abs(a[2] - info[0]['base']) < 1)
             else a for a in o]
    ops += o
    last_line_end = info[-1]['x_end'] if info else x0
    last_base = info[-1]['base'] if info else y
    for ln in info:
        for tag, (a, b) in ln['segs'].items():
            bx = line_box(a, b, ln['base'], em)
            if tag == 'bracket':
                maxb.append(bx)
            else:
                minb.append(bx)
            if tag == 'label':
                lab_box = bx
            if tag == 'stem':
                stemb.append(bx)
    y = y2
    sub_x = (w.xr if not pr['own_line'] else w.xf) + em * float(lr.choice([0, 0, 1]))
    if pr['options']:
        y += em * 0.2
        opts = pr['options']
        ow = [text_width(t, st['lat'], st['cjk'], em) for t in opts]
        avail = x0 + width - sub_x
        cell = max(ow) + 1.5 * em
        per = 4 if cell * 4 <= avail else (2 if cell * 2 <= avail else 1)
        for r0 in range(0, 4, per):
            base = y + 0.9 * em
            for c in range(per):
                t = opts[r0 + c]
                xx = sub_x + c * cell
                for sub, face in runs_of(t, st['lat'], st['cjk']):
                    ops.append(('t', xx, base, sub, face, em, ink))
                    xx += text_width(sub, st['lat'], st['cjk'], em)
                minb.append(line_box(sub_x + c * cell, sub_x + c * cell + ow[r0 + c], base, em))
            y += lh
        y += 0.1 * em
    if pr['subq']:
        y += em * 0.2
        for t in pr['subq']:
            ww = Wrapper(st, em, sub_x, sub_x + em * 1.6, x0 + width, lh)
            ww.add_text(t, tag='subq')
            o, info2, y = ww.emit(y, ink)
            ops += o
            for ln in info2:
                for tag, (a, b) in ln['segs'].items():
                    minb.append(line_box(a, b, ln['base'], em))
            y += 0.25 * em
    if pr['answer_rule']:
        y += em * 0.5
        base = y + 0.9 * em
        if lr.random() < 0.5:
            t = '答：' if any(is_cjk(c) for c in q) else 'Answer:'
            tw = text_width(t, st['lat'], st['cjk'], em)
            for sub, face in runs_of(t, st['lat'], st['cjk']):
                ops.append(('t', sub_x, base, sub, face, em, ink))
            ops.append(('l', [(sub_x + tw + 0.2 * em, base + 0.1 * em), (x0 + width * 0.8, base + 0.1 * em)], ink, max(1, em * 0.05)))
        else:
            ops.append(('l', [(sub_x, base + 0.1 * em), (x0 + width * 0.8, base + 0.1 * em)], (120, 120, 120), max(1, em * 0.04)))
        maxb.append((sub_x, base - 0.88 * em, x0 + width * 0.8, base + 0.2 * em))
        y += lh
    y_end_print = y
    res = {'ops': ops, 'min': minb, 'max': maxb + minb, 'stem': stemb, 'label': lab_box, 'label_text': lab,
           'last_end': last_line_end, 'last_base': last_base, 'y_print_end': y_end_print, 'x0': x0, 'w': width}
    res['h'] = y + pr['gap'] * em + extra_after
    return res


def layout_page(P, extra):
    """returns dict with ops, problems(list of boxes), decor items, page size"""
    lr = np.random.default_rng(P['layout_seed'])
    em = P['em']
    st = P['st']
    ink = P['ink']
    M = P['margin'] * em
    TW = P['text_w'] * em
    PW = TW + 2 * M
    ops = []
    decor = []  # (tag, box)
    y = M * 0.6
    hand = P['hand_color']
    if P['header']:
        s = em * 0.72
        for sub, face in runs_of(P['header_text'], st['lat'], st['cjk']):
            pass
        tw = text_width(P['header_text'], st['lat'], st['cjk'], s)
        xh = M if lr.random() < 0.5 else M + TW - tw
        xx = xh
        for sub, face in runs_of(P['header_text'], st['lat'], st['cjk']):
            ops.append(('t', xx, y + 0.9 * s, sub, face, s, (90, 90, 90)))
            xx += text_width(sub, st['lat'], st['cjk'], s)
        decor.append(('header', line_box(xh, xh + tw, y + 0.9 * s, s)))
        y += 1.4 * s
        if lr.random() < 0.6:
            ops.append(('l', [(M, y), (M + TW, y)], (110, 110, 110), 1.5))
        y += 0.9 * em
    if P['title']:
        s = em * float(lr.uniform(1.25, 1.7))
        t = P['title_text']
        tw = text_width(t, st['lat_b'], st['cjk_b'], s)
        xt = M + (TW - tw) / 2 if lr.random() < 0.7 else M
        xx = xt
        for sub, face in runs_of(t, st['lat_b'], st['cjk_b']):
            ops.append(('t', xx, y + 0.9 * s, sub, face, s, ink))
            xx += text_width(sub, st['lat_b'], st['cjk_b'], s)
        decor.append(('title', line_box(xt, xt + tw, y + 0.9 * s, s)))
        y += 1.6 * s
    if P['subtitle']:
        t = P['subtitle_text']
        s = em * 1.05
        tw = text_width(t, st['lat'], st['cjk'], s)
        xt = M + (TW - tw) / 2
        xx = xt
        for sub, face in runs_of(t, st['lat'], st['cjk']):
            ops.append(('t', xx, y + 0.9 * s, sub, face, s, ink))
            xx += text_width(sub, st['lat'], st['cjk'], s)
        decor.append(('subtitle', line_box(xt, xt + tw, y + 0.9 * s, s)))
        y += 1.7 * s
    for key, tag in (('name_line', 'name_line'), ('time_line', 'time_marks')):
        if P[key]:
            t = P['name_text'] if key == 'name_line' else P['time_text']
            s = em * 0.95
            w = Wrapper(st, s, M, M, M + TW, s * 1.5)
            w.add_text(t, tag=tag)
            o, info, y2 = w.emit(y, ink)
            ops += o
            for ln in info:
                for tg, (a, b) in ln['segs'].items():
                    decor.append((tag, line_box(a, b, ln['base'], s)))
            y = y2 + 0.7 * em
    if P['instr']:
        for t in P['instr_text']:
            w = Wrapper(st, em, M, M, M + TW, em * 1.5)
            w.add_text(t, bold=lr.random() < 0.3, tag='instructions')
            o, info, y2 = w.emit(y, ink)
            ops += o
            for ln in info:
                for tg, (a, b) in ln['segs'].items():
                    decor.append(('instructions', line_box(a, b, ln['base'], em)))
            y = y2 + 0.3 * em
        y += 0.6 * em
    y += 0.4 * em
    # --- blocks
    fk = P['framed']
    sec_at = {s0: h for s0, h in P['sections']}
    blocks = []
    for j, pr in enumerate(P['probs']):
        if j in sec_at:
            blocks.append(('sec', sec_at[j], j))
        blocks.append(('prob', pr, j))
    col_w = P['col_w'] * em
    cols = [(M, y)]
    if P['two_col']:
        cols = [(M, y), (M + col_w + P['gutter'] * em + extra.get('gutter', 0) * em, y + P['right_offset'] * em)]
        PW += extra.get('gutter', 0) * em
    # heights for split
    hs = []
    for b in blocks:
        if b[0] == 'sec':
            hs.append(em * 2.3)
        else:
            hs.append(layout_problem(P, b[1], 0, col_w, em, 0, 0, False, np.random.default_rng(1))['h'])
    split = len(blocks)
    if P['two_col']:
        tot = sum(hs)
        acc = 0
        for bi, h in enumerate(hs):
            if acc + h / 2 > tot / 2 and bi > 0:
                split = bi
                break
            acc += h
        if blocks[split - 1][0] == 'sec':
            split -= 1
    problems = [None] * len(P['probs'])
    ci = 0
    cx, cy = cols[0]
    ymax = 0
    for bi, b in enumerate(blocks):
        if bi == split and P['two_col']:
            ymax = max(ymax, cy)
            ci = 1
            cx, cy = cols[1]
        if b[0] == 'sec':
            s = em * 1.05
            w = Wrapper(st, s, cx, cx, cx + col_w, s * 1.5)
            w.add_text(b[1], bold=True, tag='section')
            o, info, y2 = w.emit(cy + 0.3 * em, ink)
            ops += o
            for ln in info:
                for tg, (a, bb) in ln['segs'].items():
                    decor.append(('section_heading' + ('_score' if re.search(r'\d+ ?(分|marks|points)', b[1]) else ''),
                                  line_box(a, bb, ln['base'], s)))
            cy = y2 + 0.6 * em
            continue
        pr, j = b[1], b[2]
        eb = extra.get('v', 0) * em if j == fk else 0
        ea = extra.get('v', 0) * em if j == fk else 0
        if j == fk - 1:
            ea = extra.get('v', 0) * em * 0.5
        hb = j in P['decor']['hand_below']
        r = layout_problem(P, pr, cx, col_w, em, eb, ea, j == fk, lr)
        r['ops'] = shift_ops(r['ops'], 0, cy)
        for key in ('min', 'max', 'stem'):
            r[key] = [shift_box(bx, 0, cy) for bx in r[key]]
        if r['label']:
            r['label'] = shift_box(r['label'], 0, cy)
        r['last_base'] += cy
        r['y_print_end'] += cy
        r['col'] = ci
        ops += r['ops']
        problems[j] = r
        cy += r['h']
        if hb:
            # student writing under this problem
            s = em * float(lr.uniform(1.0, 1.3))
            base = r['y_print_end'] + 0.25 * em + 0.95 * s
            q = P['bank_q'][pr['bank']]
            txt = P['answers'][pr['bank']]
            if lr.random() < 0.5:
                txt = ('答：' if any(is_cjk(c) for c in q) else 'Ans: ') + txt
            xs = cx + em * float(lr.uniform(0.5, 3))
            tw = text_width(txt, 'hand_lat1', 'sans_cjk', s)
            while len(txt) > 3 and xs + tw > cx + col_w - 0.5 * em:
                txt = txt[:-1]
                tw = text_width(txt, 'hand_lat1', 'sans_cjk', s)
            ops.append(('h', xs, base, txt, s, hand, int(lr.integers(1 << 30)), 'hand_lat1', 'sans_cjk'))
            decor.append(('student_answer_below', (xs, base - s, xs + tw, base + 0.3 * s)))
            if P['decor']['crossed'] and abs(j - fk) <= 1 and lr.random() < 0.7:
                a, bword = CROSS_PAIRS[int(lr.integers(len(CROSS_PAIRS)))]
                x2 = xs + tw + 1.5 * em
                wa = text_width(a, 'hand_lat1', 'sans_cjk', s)
                if x2 + wa + 2 * em + text_width(bword, 'hand_lat1', 'sans_cjk', s) < cx + col_w:
                    ops.append(('h', x2, base, a, s, hand, int(lr.integers(1 << 30)), 'hand_lat1', 'sans_cjk'))
                    ops.append(('l', [(x2 - 0.2 * s, base - 0.3 * s), (x2 + wa + 0.2 * s, base - 0.38 * s)], hand, max(2, s * 0.08)))
                    if lr.random() < 0.5:
                        ops.append(('l', [(x2 - 0.1 * s, base - 0.45 * s), (x2 + wa + 0.1 * s, base - 0.2 * s)], hand, max(2, s * 0.07)))
                    ops.append(('h', x2 + wa + 0.8 * em, base, bword, s, hand, int(lr.integers(1 << 30)), 'hand_lat1', 'sans_cjk'))
                    decor.append(('crossed_out', (x2, base - s, x2 + wa, base + 0.3 * s)))
            need = (base + 0.5 * s) - (r['y_print_end'] + 0.2 * em)
            cy += max(0.0, need + 0.6 * em - pr['gap'] * em)
    ymax = max(ymax, cy)
    PH = ymax + M * 0.9
    if P['footer']:
        s = em * 0.72
        t = P['footer_text']
        tw = text_width(t, st['lat'], st['cjk'], s)
        xf = M + (TW - tw) / 2 if lr.random() < 0.6 else M + TW - tw
        base = PH + 0.5 * em
        xx = xf
        for sub, face in runs_of(t, st['lat'], st['cjk']):
            ops.append(('t', xx, base, sub, face, s, (90, 90, 90)))
            xx += text_width(sub, st['lat'], st['cjk'], s)
        decor.append(('footer', line_box(xf, xf + tw, base, s)))
        PH = base + M * 0.7
    PH = max(PH, PW * 0.5)
    # --- decorations that need final problem positions
    D = P['decor']
    fr = problems[fk]
    lb = fr['label']
    red = (205, 35, 35)
    lab_h = lb[3] - lb[1]
    tagsf = []
    if D['label_mark'] == 'circle':
        ops.append(('e', (lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2, (lb[2] - lb[0]) / 2 + 0.45 * em, lab_h / 2 + 0.25 * em,
                    hand, max(2, em * 0.07), int(lr.integers(1 << 30))))
        tagsf.append('circled_label')
    elif D['label_mark'] == 'underline':
        yy = lb[3] + 0.02 * em
        ops.append(('l', [(lb[0] - 0.2 * em, yy), ((lb[0] + lb[2]) / 2, yy + 0.05 * em), (lb[2] + 0.2 * em, yy - 0.05 * em)], hand, max(2, em * 0.07)))
        tagsf.append('underlined_label')
    elif D['label_mark'] in ('tick', 'cross'):
        col = red if lr.random() < 0.6 else hand
        cxl, cyl = (lb[0] + min(lb[2], lb[0] + 3 * em)) / 2, (lb[1] + lb[3]) / 2
        sz = em * float(lr.uniform(1.0, 1.6))
        if D['label_mark'] == 'tick':
            ops.append(('l', [(cxl - 0.6 * sz, cyl), (cxl - 0.15 * sz, cyl + 0.55 * sz), (cxl + 0.8 * sz, cyl - 0.9 * sz)], col, max(3, em * 0.11)))
            tagsf.append('tick_over_label')
        else:
            ops.append(('l', [(cxl - 0.6 * sz, cyl - 0.6 * sz), (cxl + 0.6 * sz, cyl + 0.6 * sz)], col, max(3, em * 0.1)))
            ops.append(('l', [(cxl + 0.6 * sz, cyl - 0.6 * sz), (cxl - 0.6 * sz, cyl + 0.6 * sz)], col, max(3, em * 0.1)))
            tagsf.append('cross_over_label')
    if D['damage'] == 'highlighter':
        c = choice(lr, [(255, 240, 60), (140, 250, 120), (255, 150, 200), (120, 220, 255)])
        x0h, x1h = lb[0] - 0.3 * em, lb[2] + float(lr.uniform(0.2, 3.0)) * em
        yc = (lb[1] + lb[3]) / 2 + float(lr.uniform(-0.1, 0.15)) * em
        hh = lab_h * float(lr.uniform(0.45, 0.75))
        sl = float(lr.uniform(-0.2, 0.2)) * em
        ops.append(('hl', [(x0h, yc - hh + sl), (x1h, yc - hh - sl), (x1h, yc + hh - sl), (x0h, yc + hh + sl)], c))
        tagsf.append('highlighter_label')
    if D['damage'] == 'faint':
        tagsf.append('faint_label')
    if D['teacher']:
        t = TEACHER[int(lr.integers(len(TEACHER)))]
        s = em * float(lr.uniform(1.1, 1.5))
        tw = text_width(t, 'hand_lat2', 'sans_cjk', s)
        if fr['col'] == 0:
            xt = max(0.3 * em, lb[0] - tw - float(lr.uniform(0.6, 1.6)) * em)
        else:
            xt = min(PW - tw - 0.3 * em, fr['x0'] + col_w + 0.6 * em)
        base = lb[3] - 0.1 * em
        ops.append(('h', xt, base, t, s, red, int(lr.integers(1 << 30)), 'hand_lat2', 'sans_cjk'))
        if lr.random() < 0.4:
            ops.append(('e', xt + tw / 2, base - 0.35 * s, tw / 2 + 0.35 * s, 0.7 * s, red, max(2, em * 0.06), int(lr.integers(1 << 30))))
        decor.append(('teacher_score', (xt, base - s, xt + tw, base + 0.2 * s)))
    if D['inline_ans']:
        s = em * float(lr.uniform(0.95, 1.2))
        txt = P['answers'][P['probs'][fk]['bank']]
        tw = text_width(txt, 'hand_lat1', 'sans_cjk', s)
        x_s = fr['last_end'] + 1.2 * em
        if x_s + tw < fr['x0'] + col_w + (0.5 * em if fr['col'] == 0 and not P['two_col'] else 0):
            ops.append(('h', x_s, fr['last_base'] + 0.05 * em, txt, s, hand, int(lr.integers(1 << 30)), 'hand_lat1', 'sans_cjk'))
            decor.append(('student_answer_inline', (x_s, fr['last_base'] - s, x_s + tw, fr['last_base'] + 0.3 * s)))
    if D['margin_note']:
        t = MARGIN_NOTES[int(lr.integers(len(MARGIN_NOTES)))]
        s = em * float(lr.uniform(0.9, 1.3))
        tw = text_width(t, 'hand_lat1', 'sans_cjk', s)
        j = fk if lr.random() < 0.5 else max(0, fk - 1)
        rr = problems[j]
        if rr['col'] == 0 and M > tw + 0.8 * em:
            xt = M - tw - 0.5 * em
        else:
            xt = min(PW - tw - 0.2 * em, M + TW + 0.4 * em)
        base = rr['label'][3]
        ops.append(('h', xt, base, t, s, hand, int(lr.integers(1 << 30)), 'hand_lat1', 'sans_cjk'))
        decor.append(('margin_note', (xt, base - s, xt + tw, base + 0.3 * s)))
    if D['neighbour_marks']:
        for j in (fk - 1, fk + 1):
            if 0 <= j < len(problems) and lr.random() < 0.6:
                l2 = problems[j]['label']
                if lr.random() < 0.5:
                    ops.append(('e', (l2[0] + l2[2]) / 2, (l2[1] + l2[3]) / 2, (l2[2] - l2[0]) / 2 + 0.4 * em,
                                (l2[3] - l2[1]) / 2 + 0.2 * em, hand, max(2, em * 0.06), int(lr.integers(1 << 30))))
                    decor.append(('neighbour_label_marked', l2))
                else:
                    cxl, cyl = (l2[0] + min(l2[2], l2[0] + 3 * em)) / 2, (l2[1] + l2[3]) / 2
                    sz = em * 1.2
                    ops.append(('l', [(cxl - 0.6 * sz, cyl), (cxl - 0.15 * sz, cyl + 0.55 * sz), (cxl + 0.8 * sz, cyl - 0.9 * sz)],
                                red, max(3, em * 0.1)))
                    decor.append(('neighbour_label_marked', l2))
    return {'ops': ops, 'problems': problems, 'decor': decor, 'PW': PW, 'PH': PH, 'tagsf': tagsf}


# ----------------------------------------------------------------------------
# geometry
# ----------------------------------------------------------------------------
def box_pts(b, n=4):
    x0, y0, x1, y1 = b
    pts = []
    for t in np.linspace(0, 1, n + 1):
        pts += [(x0 + (x1 - x0) * t, y0), (x0 + (x1 - x0) * t, y1)]
    pts += [(x0, y0 + (y1 - y0) * 0.5), (x1, y0 + (y1 - y0) * 0.5)]
    return pts


def hull_of(pts):
    a = np.asarray(pts, np.float32).reshape(-1, 1, 2)
    return cv2.convexHull(a)


def hull_dist(h, p):
    d = cv2.pointPolygonTest(h, (float(p[0]), float(p[1])), True)
    return 0.0 if d >= 0 else -d


def apply_H(H, pts):
    a = np.asarray(pts, np.float64)
    a = np.hstack([a, np.ones((len(a), 1))]) @ H.T
    return a[:, :2] / a[:, 2:3]


def curl_fwd(pts, curl, W, H):
    if curl is None:
        return pts
    a, cx0, side = curl
    p = np.array(pts, float)
    u = (p[:, 0] - cx0) / W
    p[:, 1] = p[:, 1] - a * H * u * u * side
    return p


def photo_pts(pts, Hm, curl, W, H):
    return curl_fwd(apply_H(Hm, pts), curl, W, H)


def rot_pts(p, rot, W, H):
    """coordinates after rotating the upright W x H image clockwise by rot"""
    p = np.asarray(p, float)
    x, y = p[:, 0], p[:, 1]
    if rot == 0:
        return p
    if rot == 90:
        return np.stack([H - 1 - y, x], 1)
    if rot == 180:
        return np.stack([W - 1 - x, H - 1 - y], 1)
    return np.stack([y, W - 1 - x], 1)


def check_rule(L, Hm, curl, W, H, fk):
    """returns (ok, info) using photo-space hulls"""
    cen = (W / 2.0, H / 2.0)
    fr = L['problems'][fk]
    fpts = photo_pts(sum([box_pts(b) for b in fr['min']], []), Hm, curl, W, H)
    fmax = photo_pts(sum([box_pts(b) for b in fr['max']], []), Hm, curl, W, H)
    pad = 4
    inside = (fmax[:, 0].min() >= pad and fmax[:, 1].min() >= pad and fmax[:, 0].max() <= W - pad and fmax[:, 1].max() <= H - pad)
    df = hull_dist(hull_of(fpts), cen)
    others = []
    for j, r in enumerate(L['problems']):
        if j == fk:
            continue
        op = photo_pts(sum([box_pts(b) for b in r['max']], []), Hm, curl, W, H)
        others.append((hull_dist(hull_of(op), cen), j))
    others.sort()
    thr = 0.06 * max(W, H)
    ok = inside and (not others or others[0][0] - df >= thr + 2)
    return ok, {'df': df, 'others': others, 'fpts': fpts, 'inside': inside}


def page_em_scale(Hm, p, em):
    a = apply_H(Hm, [p, (p[0], p[1] + em), (p[0] + em, p[1])])
    return float(np.hypot(*(a[1] - a[0])))


# ----------------------------------------------------------------------------
# rendering
# ----------------------------------------------------------------------------
def draw_hand(img, drw, op, ox, oy):
    _, x, base, text, size, color, seed, lat, cjk = op
    r = np.random.default_rng(seed)
    x -= ox
    base -= oy
    slant = float(r.uniform(-6, 3))
    for ch in text:
        if ch == ' ':
            x += size * 0.3
            continue
        face = pick_face(ch, lat, cjk)
        sz = size * float(r.uniform(0.9, 1.1))
        f = font(face, sz)
        w = f.getlength(ch)
        pad = int(sz * 0.5)
        m = Image.new('L', (int(w + 2 * pad), int(sz * 1.6 + 2 * pad)), 0)
        ImageDraw.Draw(m).text((pad, pad + sz * 1.1), ch, font=f, fill=255, anchor='ls')
        m = m.rotate(slant + float(r.uniform(-7, 7)), resample=Image.BILINEAR, expand=False)
        dy = float(r.uniform(-0.08, 0.08)) * size
        img.paste(color, (int(round(x - pad)), int(round(base - sz * 1.1 - pad + dy))), m)
        x += w * float(r.uniform(0.92, 1.08)) + size * 0.02


def hand_ellipse(drw, op, ox, oy):
    _, cx, cy, rx, ry, color, width, seed = op
    r = np.random.default_rng(seed)
    a0 = float(r.uniform(0, 2 * np.pi))
    sweep = 2 * np.pi * float(r.uniform(1.05, 1.2))
    t = np.linspace(0, sweep, 60)
    wob = 1 + 0.06 * np.sin(t * float(r.uniform(1, 3)) + float(r.uniform(0, 6))) + np.linspace(0, float(r.uniform(-0.08, 0.08)), 60)
    rot = float(r.uniform(-0.15, 0.15))
    xs = rx * wob * np.cos(t + a0)
    ys = ry * wob * np.sin(t + a0)
    X = cx - ox + xs * math.cos(rot) - ys * math.sin(rot)
    Y = cy - oy + xs * math.sin(rot) + ys * math.cos(rot)
    drw.line(list(zip(X.tolist(), Y.tolist())), fill=color, width=int(round(width)), joint='curve')


def render_page_region(L, P, x0, y0, x1, y1, paper, rng):
    Wc, Hc = int(x1 - x0), int(y1 - y0)
    img = Image.new('RGB', (Wc, Hc), paper)
    drw = ImageDraw.Draw(img)
    hls = []
    for op in L['ops']:
        t = op[0]
        if t == 't':
            _, x, base, text, face, size, color = op
            if base - 2 * size > y1 or base + size < y0 or x > x1:
                continue
            drw.text((x - x0, base - y0), text, font=font(face, size), fill=color, anchor='ls')
        elif t == 'h':
            if op[2] - 2 * op[4] > y1 or op[2] + op[4] < y0:
                continue
            draw_hand(img, drw, op, x0, y0)
        elif t == 'l':
            drw.line([(a - x0, b - y0) for a, b in op[1]], fill=op[2], width=max(1, int(round(op[3]))), joint='curve')
        elif t == 'e':
            hand_ellipse(drw, op, x0, y0)
        elif t == 'hl':
            hls.append(op)
    a = np.asarray(img).astype(np.float32)
    for op in hls:
        m = Image.new('L', (Wc, Hc), 0)
        ImageDraw.Draw(m).polygon([(p - x0, q - y0) for p, q in op[1]], fill=255)
        m = np.asarray(m).astype(np.float32) / 255.0
        m = cv2.GaussianBlur(m, (0, 0), 1.5)[..., None]
        c = np.array(op[2], np.float32) / 255.0
        a = a * (1 - m) + a * c * m
    return a


def smooth_noise(rng, h, w, scale, amp):
    sh, sw = max(2, h // scale), max(2, w // scale)
    n = rng.standard_normal((sh, sw)).astype(np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def make_background(rng, W, H, screen):
    if screen:
        base = np.array(choice(rng, [(18, 18, 20), (35, 35, 38), (60, 60, 64), (12, 12, 14)]), np.float32)
        bg = np.ones((H, W, 3), np.float32) * base
        bg += smooth_noise(rng, H, W, 64, 6)[..., None]
        return bg
    kind = choice(rng, ['wood', 'gray', 'dark', 'cloth', 'paper'])
    cols = {'wood': (120, 85, 55), 'gray': (150, 150, 145), 'dark': (55, 52, 50), 'cloth': (70, 90, 120),
            'paper': (205, 200, 190)}
    base = np.array(cols[kind], np.float32) * float(rng.uniform(0.8, 1.15))
    bg = np.ones((H, W, 3), np.float32) * base
    if kind == 'wood':
        yy = np.arange(H, dtype=np.float32)[:, None]
        stripes = np.sin(yy / float(rng.uniform(6, 18)) + smooth_noise(rng, H, W, 40, 2.5)) * 12
        bg += stripes[..., None]
    bg += smooth_noise(rng, H, W, 32, 10)[..., None]
    bg += rng.normal(0, 3, (H, W, 1)).astype(np.float32)
    return bg


def render_photo(P, L, cam, rng, bank_q):
    W, H = cam['W'], cam['H']
    Hm = cam['Hm']
    # region of the page needed
    inv = np.linalg.inv(Hm)
    ext = 0.05 * H
    corners = apply_H(inv, [(-ext, -ext), (W + ext, -ext), (W + ext, H + ext), (-ext, H + ext)])
    x0 = max(0, int(math.floor(corners[:, 0].min())))
    y0 = max(0, int(math.floor(corners[:, 1].min())))
    x1 = min(int(math.ceil(L['PW'])), int(math.ceil(corners[:, 0].max())))
    y1 = min(int(math.ceil(L['PH'])), int(math.ceil(corners[:, 1].max())))
    paper = tuple(int(v) for v in cam['paper'])
    page = render_page_region(L, P, x0, y0, x1, y1, paper, rng)
    # paper texture
    ph, pw = page.shape[:2]
    if not cam['screen']:
        page += smooth_noise(rng, ph, pw, 6, 2.0)[..., None]
        page += smooth_noise(rng, ph, pw, 120, 3.0)[..., None]
    T = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
    Hr = Hm @ T
    if cam['s'] < 0.75:
        page = cv2.GaussianBlur(page, (0, 0), 0.5 / cam['s'] * 0.6)
    warped = cv2.warpPerspective(page, Hr, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    mask = np.ones((ph, pw), np.float32)
    # only true page edges get a hard border; region crops inside the page are extended
    mask_full = cv2.warpPerspective(mask, Hr, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    bg = make_background(rng, W, H, cam['screen'])
    if not cam['screen']:
        # page drop shadow
        sh = cv2.GaussianBlur(mask_full, (0, 0), 6)
        sh = np.roll(sh, (int(rng.integers(2, 8)), int(rng.integers(-6, 7))), (0, 1))
        bg *= (1 - 0.35 * sh)[..., None]
    m3 = mask_full[..., None]
    img = warped * m3 + bg * (1 - m3)
    # curl: dst(x,y) = src(x, y + a*H*u^2*side)
    if cam['curl'] is not None:
        a, cx0, side = cam['curl']
        xs = np.arange(W, dtype=np.float32)
        u = (xs - cx0) / W
        dy = (a * H * u * u * side).astype(np.float32)
        mapx = np.tile(xs[None, :], (H, 1))
        mapy = np.arange(H, dtype=np.float32)[:, None] + dy[None, :]
        img = cv2.remap(img, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        shade = 1 - 0.10 * np.clip(np.abs(u) * 2, 0, 1) ** 2
        img *= shade[None, :, None]
    # lighting
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    gx, gy = float(rng.uniform(-0.18, 0.18)), float(rng.uniform(-0.18, 0.18))
    light = 1 + gx * (xx / W - 0.5) + gy * (yy / H - 0.5)
    r2 = ((xx / W - 0.5) ** 2 + (yy / H - 0.5) ** 2)
    light *= 1 - float(rng.uniform(0.05, 0.3)) * r2
    light *= float(rng.uniform(0.82, 1.05))
    tags = []
    if cam['shadow']:
        sm = Image.new('L', (W, H), 0)
        d = ImageDraw.Draw(sm)
        side = int(rng.integers(4))
        pts = []
        if side == 0:
            pts = [(0, 0), (W * float(rng.uniform(0.2, 0.6)), 0), (W * float(rng.uniform(0.0, 0.4)), H), (0, H)]
        elif side == 1:
            pts = [(W, 0), (W * float(rng.uniform(0.5, 0.85)), 0), (W * float(rng.uniform(0.6, 1.0)), H), (W, H)]
        elif side == 2:
            pts = [(0, H), (W, H), (W, H * float(rng.uniform(0.55, 0.9))), (0, H * float(rng.uniform(0.6, 1.0)))]
        else:
            cxs, cys = W * float(rng.uniform(0.2, 0.8)), H * float(rng.uniform(0.6, 1.1))
            rr = W * float(rng.uniform(0.2, 0.35))
            d.ellipse([cxs - rr, cys - rr * 0.8, cxs + rr, cys + rr * 2], fill=255)
        if pts:
            d.polygon(pts, fill=255)
        smf = cv2.GaussianBlur(np.asarray(sm).astype(np.float32) / 255, (0, 0), float(rng.uniform(15, 50)))
        light *= 1 - float(rng.uniform(0.2, 0.4)) * smf
    img *= light[..., None]
    if cam['screen']:
        # subpixel stripes and moire, colour cast, glare
        f = float(rng.uniform(2.2, 3.4))
        ang = float(rng.uniform(-0.3, 0.3))
        ph_ = (xx * math.cos(ang) + yy * math.sin(ang)) * (2 * np.pi / f)
        mo = 1 - 0.07 * (0.5 + 0.5 * np.sin(ph_)) * m3[..., 0]
        img *= mo[..., None]
        img *= np.array([0.95, 0.98, 1.06], np.float32)
        gl = np.exp(-(((xx - W * float(rng.uniform(0.2, 0.8))) / (W * 0.3)) ** 2 + ((yy - H * float(rng.uniform(0.1, 0.9))) / (H * 0.25)) ** 2))
        img += 35 * gl[..., None]
    # occluders (finger / pen) in photo space
    if cam.get('occ') is not None:
        img = draw_occluder(img, cam['occ'], rng)
    img = np.clip(img, 0, 255)
    # blur
    if cam['blur'] > 0:
        if cam['motion']:
            k = int(cam['blur'] * 3) + 2
            ker = np.zeros((k, k), np.float32)
            ang = float(rng.uniform(0, np.pi))
            c = (k - 1) / 2
            for t in np.linspace(-c, c, 4 * k):
                ker[int(round(c + t * math.sin(ang))), int(round(c + t * math.cos(ang)))] = 1
            ker /= ker.sum()
            img = cv2.filter2D(img, -1, ker)
        else:
            img = cv2.GaussianBlur(img, (0, 0), cam['blur'])
    img += rng.normal(0, cam['noise'], img.shape).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    rot = cam['rot']
    if rot == 90:
        img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    elif rot == 180:
        img = cv2.rotate(img, cv2.ROTATE_180)
    elif rot == 270:
        img = cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE)
    pil = Image.fromarray(img, 'RGB')
    buf = io.BytesIO()
    pil.save(buf, format='JPEG', quality=cam['q'], optimize=False)
    return buf.getvalue()


def capsule_mask(W, H, p0, p1, r, cone=None):
    m = Image.new('L', (W, H), 0)
    d = ImageDraw.Draw(m)
    d.line([tuple(p0), tuple(p1)], fill=255, width=int(2 * r))
    d.ellipse([p0[0] - r, p0[1] - r, p0[0] + r, p0[1] + r], fill=255)
    d.ellipse([p1[0] - r, p1[1] - r, p1[0] + r, p1[1] + r], fill=255)
    if cone is not None:
        d.polygon([tuple(v) for v in cone], fill=255)
    return np.asarray(m).astype(np.float32) / 255.0


def occluder_geometry(occ, W, H):
    """returns float mask"""
    T = np.array(occ['tip'], float)
    dvec = np.array(occ['dir'], float)
    E = T + dvec * (W + H)
    if occ['kind'] == 'finger':
        return capsule_mask(W, H, T, E, occ['r'])
    # pen: cone from tip to body start, then body capsule
    Lc = occ['r'] * 2.5
    B = T + dvec * Lc
    nrm = np.array([-dvec[1], dvec[0]])
    cone = [T + nrm * 1.0, B + nrm * occ['r'], B - nrm * occ['r'], T - nrm * 1.0]
    return capsule_mask(W, H, B + dvec * occ['r'], E, occ['r'], cone=cone)


def draw_occluder(img, occ, rng):
    H, W = img.shape[:2]
    m = occluder_geometry(occ, W, H)
    # shadow
    sh = cv2.GaussianBlur(np.roll(m, (int(occ['r'] * 0.5), int(occ['r'] * 0.4)), (0, 1)), (0, 0), occ['r'] * 0.5)
    img = img * (1 - 0.45 * sh)[..., None]
    ms = cv2.GaussianBlur(m, (0, 0), 1.2 if occ['kind'] == 'pen' else 2.0)
    dist = cv2.distanceTransform((m > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
    dn = np.clip(dist / max(1.0, occ['r']), 0, 1)
    if occ['kind'] == 'finger':
        base = np.array(occ['color'], np.float32)
        shade = (0.62 + 0.38 * np.sqrt(dn))[..., None]
        col = base * shade
        col += smooth_noise(rng, H, W, 16, 4)[..., None]
        # finger nail near the tip
        T = np.array(occ['tip'], float)
        dv = np.array(occ['dir'], float)
        nc = T + dv * occ['r'] * 0.35
        nm = Image.new('L', (W, H), 0)
        ang = math.degrees(math.atan2(dv[1], dv[0]))
        el = Image.new('L', (int(occ['r'] * 2.4), int(occ['r'] * 2.4)), 0)
        ImageDraw.Draw(el).ellipse([occ['r'] * 0.55, occ['r'] * 0.7, occ['r'] * 1.85, occ['r'] * 1.7], fill=255)
        el = el.rotate(-ang, resample=Image.BILINEAR)
        nm.paste(el, (int(nc[0] - occ['r'] * 1.2), int(nc[1] - occ['r'] * 1.2)))
        nmf = cv2.GaussianBlur(np.asarray(nm).astype(np.float32) / 255, (0, 0), 2.0)[..., None] * 0.35
        col = col * (1 - nmf) + np.array([226, 186, 176], np.float32) * nmf
    else:
        base = np.array(occ['color'], np.float32)
        shade = (0.55 + 0.45 * dn ** 0.7)[..., None]
        col = base * shade
        hlm = ((dn > 0.55) & (dn < 0.75)).astype(np.float32)
        col += 90 * cv2.GaussianBlur(hlm, (0, 0), 1.5)[..., None]
    return img * (1 - ms[..., None]) + col * ms[..., None]


# ----------------------------------------------------------------------------
# camera search
# ----------------------------------------------------------------------------
def find_camera(P, L, rng, W, H, fk, relax=False):
    em = P['em']
    fr = L['problems'][fk]
    fpts = np.array(sum([box_pts(b) for b in fr['min']], []), float)
    fmaxp = np.array(sum([box_pts(b) for b in fr['max']], []), float)
    fh = hull_of(fpts)
    ohs = [hull_of(sum([box_pts(b) for b in r['max']], [])) for j, r in enumerate(L['problems']) if j != fk]
    bx0, by0 = fpts.min(0)
    bx1, by1 = fpts.max(0)
    need = 0.06 * max(W, H) + 6
    cands = []
    mx0, mx1 = fmaxp[:, 0].min(), fmaxp[:, 0].max()
    for gx in np.linspace(min(bx0, mx0), max(bx1, mx1), 9):
        for gy in np.linspace(by0 - 1.4 * em, by1 + 1.4 * em, 11):
            df = hull_dist(fh, (gx, gy))
            do = min([hull_dist(h, (gx, gy)) for h in ohs]) if ohs else 1e9
            m = do - df
            # scale limits
            dx = max(abs(fmaxp[:, 0] - gx).max(), 1)
            dy = max(abs(fmaxp[:, 1] - gy).max(), 1)
            s_fit = min((W / 2 - 14) / dx, (H / 2 - 14) / dy) / 1.13
            s_lo = max((22.8 if relax else 24.5) / em, need * 1.18 / max(m, 1e-3))
            s_hi = min(53.0 / em, s_fit)
            cands.append((s_hi - s_lo, gx, gy, s_lo, s_hi, m, df))
    feas = [c for c in cands if c[0] > 0]
    if not feas:
        best = max(cands, key=lambda c: c[5])
        return None, {'margin': best[5], 'need': need, 's_max': min(53.0 / em, 1e9), 'fitfail': max(c[4] for c in cands) < 24.5 / em}
    # prefer centres inside/close to the framed problem, pick randomly
    feas.sort(key=lambda c: (c[6] > 0, -c[0]))
    top = feas[:max(1, len(feas) // 3)]
    c = top[int(rng.integers(len(top)))]
    _, gx, gy, s_lo, s_hi, m, df = c
    s = float(rng.uniform(s_lo, s_lo + (s_hi - s_lo) * 0.85))
    return (gx, gy, s), None


def build_H(cx, cy, s, theta, W, H, pj, rng):
    c, sn = math.cos(theta), math.sin(theta)
    A = np.array([[s * c, -s * sn, 0], [s * sn, s * c, 0], [0, 0, 1]], np.float64)
    p = A @ np.array([cx, cy, 1.0])
    A[0, 2] = W / 2 - p[0]
    A[1, 2] = H / 2 - p[1]
    if pj > 0:
        src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
        dst = src + np.float32(rng.uniform(-pj, pj, (4, 2)) * np.array([W, H]))
        Hp = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
        # keep the centre fixed
        c0 = apply_H(Hp, [(W / 2, H / 2)])[0]
        Tc = np.array([[1, 0, W / 2 - c0[0]], [0, 1, H / 2 - c0[1]], [0, 0, 1]])
        A = Tc @ Hp @ A
    return A


SIZES = [(1280, 960), (960, 1280), (1600, 1200), (1024, 768)]


def make_one(args):
    i, seed, bank, nd = args
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    W0, H0 = SIZES[int(rng.choice(4, p=[0.58, 0.17, 0.13, 0.12]))]
    rot = int(rng.choice([0, 90, 180, 270], p=[0.76, 0.08, 0.08, 0.08]))
    W, H = (W0, H0) if rot in (0, 180) else (H0, W0)  # upright size
    sr = rng.random()
    screen = None if sr >= 0.09 else ('laptop' if sr < 0.05 else 'phone')
    P = make_plan(rng, bank, nd, W, H, screen)
    P['bank_q'] = [b['question'] for b in bank]
    P['answers'] = {}
    for pr in P['probs']:
        P['answers'][pr['bank']] = short_answer(bank[pr['bank']]['answer'], rng) if rng.random() < 0.6 else \
            SHORT_ANS[int(rng.integers(len(SHORT_ANS)))]
    fk = P['framed']
    extra = {'v': 0.0, 'gutter': 0.0}
    cam = None
    for attempt in range(14):
        L = layout_page(P, extra)
        res, fail = find_camera(P, L, rng, W, H, fk, relax=attempt >= 3)
        if res is None:
            deficit = fail['need'] * 1.2 / (fail['s_max'] * P['em']) - fail['margin'] / P['em']
            extra['v'] += max(0.4, deficit * 0.6)
            if P['two_col']:
                extra['gutter'] += 0.4
            continue
        gx, gy, s = res
        ok = False
        for t in range(8):
            theta = math.radians(float(np.clip(rng.normal(0, 2.5), -6, 6))) * (1 if t < 4 else 0.5)
            pj = float(rng.uniform(0, 0.035)) * (1 if t < 4 else 0.3) if rng.random() < 0.7 else 0.0
            Hm = build_H(gx, gy, s, theta, W, H, pj, rng)
            curl = None
            if (not screen) and rng.random() < 0.3 and t < 6:
                curl = (float(rng.uniform(0.006, 0.02)), float(rng.uniform(0.3, 0.7)) * W, float(rng.choice([-1, 1])))
            ok, info = check_rule(L, Hm, curl, W, H, fk)
            emp = page_em_scale(Hm, (gx, gy), P['em'])
            if ok and 22 <= emp <= 56:
                break
            ok = False
        if ok:
            cam = {'W': W, 'H': H, 'Hm': Hm, 'curl': curl, 'theta': theta, 'pj': pj, 's': s, 'rot': rot,
                   'screen': screen, 'em_photo': emp}
            break
        extra['v'] += 0.4
    if cam is None:
        raise RuntimeError('photo %d: could not satisfy the nearest-problem rule' % i)
    # photo parameters
    cam['paper'] = (np.array([250, 250, 250]) if screen else
                    np.array([float(rng.uniform(228, 252)), float(rng.uniform(226, 250)), float(rng.uniform(215, 245))]))
    cam['shadow'] = (not screen) and rng.random() < 0.4
    cam['blur'] = float(rng.choice([0, rng.uniform(0.3, 0.9), rng.uniform(0.6, 1.3)], p=[0.3, 0.5, 0.2]))
    cam['motion'] = cam['blur'] > 0.6 and rng.random() < 0.3
    cam['noise'] = float(rng.uniform(1.5, 6.0))
    cam['q'] = int(rng.integers(50, 93))
    # occluder on the framed label
    fr = L['problems'][fk]
    occ = None
    dmg = P['decor']['damage']
    kinds = []
    if dmg in ('finger', 'pen'):
        lb = fr['label']
        lab_pts = photo_pts([(lb[0], lb[1]), (lb[2], lb[1]), (lb[2], lb[3]), (lb[0], lb[3])], cam['Hm'], cam['curl'], W, H)
        stem_boxes = fr['stem'] + [b for b in fr['min'] if b[1] > lb[3] - 1 or b[0] > lb[2] + 1]
        stem_poly = [photo_pts([(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])], cam['Hm'], cam['curl'], W, H)
                     for b in stem_boxes if not (abs(b[0] - lb[0]) < 1 and abs(b[1] - lb[1]) < 1)]
        smask = Image.new('L', (W, H), 0)
        dd = ImageDraw.Draw(smask)
        for pp in stem_poly:
            dd.polygon([tuple(v) for v in pp.tolist()], fill=255)
        smask = np.asarray(smask) > 0
        emp = cam['em_photo']
        left_c = (lab_pts[0] + lab_pts[3]) / 2
        right_c = (lab_pts[1] + lab_pts[2]) / 2
        for t in range(10):
            frac = float(rng.uniform(0.25, 0.6))
            tip = left_c + (right_c - left_c) * frac
            ang = math.radians(float(rng.uniform(150, 215)) if t < 6 else float(rng.uniform(170, 190)))
            dvec = np.array([math.cos(ang), math.sin(ang)])
            # rotate direction with the page skew
            th = cam['theta']
            dvec = np.array([dvec[0] * math.cos(th) - dvec[1] * math.sin(th), dvec[0] * math.sin(th) + dvec[1] * math.cos(th)])
            if dmg == 'finger':
                r = emp * float(rng.uniform(0.9, 1.5)) * (1 if t < 5 else 0.6)
                tip = tip + dvec * r * 0.75
                o = {'kind': 'finger', 'tip': tip.tolist(), 'dir': dvec.tolist(), 'r': r,
                     'color': choice(rng, [(224, 172, 140), (200, 150, 120), (170, 120, 90), (236, 190, 160)])}
            else:
                r = emp * float(rng.uniform(0.35, 0.6))
                o = {'kind': 'pen', 'tip': tip.tolist(), 'dir': dvec.tolist(), 'r': r,
                     'color': choice(rng, [(30, 40, 120), (20, 20, 24), (160, 30, 30), (200, 200, 205), (40, 110, 60)])}
            m = occluder_geometry(o, W, H) > 0.3
            if not (m & smask).any():
                occ = o
                break
        if occ is not None:
            kinds.append('finger_on_label' if dmg == 'finger' else 'pen_on_label')
    cam['occ'] = occ
    jpg = render_photo(P, L, cam, rng, P['bank_q'])
    # ---- meta
    ok, info = check_rule(L, cam['Hm'], cam['curl'], W, H, fk)
    assert ok
    fpts_r = rot_pts(info['fpts'], rot, W, H)
    fh = hull_of(fpts_r)
    Wf, Hf = (W, H) if rot in (0, 180) else (H, W)
    neigh = []
    for d, j in info['others'][:3]:
        neigh.append({'bank_id': bank[P['probs'][j]['bank']]['id'], 'dist': round(float(d), 1),
                      'label': L['problems'][j]['label_text']})
    lb = fr['label']
    lab_r = rot_pts(photo_pts([(lb[0], lb[1]), (lb[2], lb[1]), (lb[2], lb[3]), (lb[0], lb[3])], cam['Hm'], cam['curl'], W, H), rot, W, H)
    # kinds
    pr = P['probs'][fk]
    kinds.append('label:' + pr['style'])
    kinds.append('label_own_line' if pr['own_line'] else 'label_same_line')
    if pr['score']:
        kinds.append('score_note_' + {'before': 'before', 'after': 'after', 'ownright': 'label_line'}[pr['score'][0]])
    if pr['options']:
        kinds.append('options')
    if pr['subq']:
        kinds.append('sub_questions')
    if pr['bracket']:
        kinds.append('answer_bracket')
    if pr['answer_rule']:
        kinds.append('printed_answer_line')
    if pr['tight']:
        kinds.append('tight_list')
    if '_' in pr.get('q', bank[pr['bank']]['question']):
        kinds.append('blank_as_rule' if P['st']['blank_mode'] == 'rule' else 'blank_as_underscores')
    kinds += L['tagsf']
    seen = set()
    for tag, b in L['decor']:
        cpt = photo_pts([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)], cam['Hm'], cam['curl'], W, H)[0]
        if 0 <= cpt[0] < W and 0 <= cpt[1] < H and tag not in seen:
            seen.add(tag)
    kinds += sorted(seen)
    vis_probs = 0
    for j, r in enumerate(L['problems']):
        pts = photo_pts(sum([box_pts(b, 1) for b in r['min']], []), cam['Hm'], cam['curl'], W, H)
        if ((pts[:, 0] >= 0) & (pts[:, 0] < W) & (pts[:, 1] >= 0) & (pts[:, 1] < H)).any():
            vis_probs += 1
    kinds.append('two_column' if P['two_col'] else 'one_column')
    if P['two_col'] and P['right_offset'] > 0:
        kinds.append('left_column_starts_higher')
    if P['two_col']:
        kinds.append('framed_in_%s_column' % ('left' if fr['col'] == 0 else 'right'))
    if any(difflib.SequenceMatcher(None, bank[P['probs'][j]['bank']]['question'], bank[pr['bank']]['question']).ratio() > 0.8
           for j in range(len(P['probs'])) if abs(j - fk) == 1):
        kinds.append('near_duplicate_neighbour')
    kinds.append('screen_' + screen if screen else 'paper')
    kinds.append('rotation_%d' % rot)
    if abs(cam['theta']) > math.radians(3):
        kinds.append('skew_over_3deg')
    if cam['pj'] > 0.015:
        kinds.append('perspective')
    if cam['curl']:
        kinds.append('curl')
    if cam['shadow']:
        kinds.append('shadow')
    if cam['blur'] > 0.6:
        kinds.append('motion_blur' if cam['motion'] else 'blur')
    if cam['q'] < 65:
        kinds.append('jpeg_low')
    kinds.append('q_' + ('cjk' if any(is_cjk(c) for c in bank[pr['bank']]['question']) else 'latin'))
    meta = {
        'qid': 'k%03d' % i, 'file': 'k%03d.jpg' % i, 'bank_id': bank[pr['bank']]['id'],
        'width': Wf, 'height': Hf, 'rotation': rot,
        'box': [round(float(v), 1) for v in (fpts_r[:, 0].min(), fpts_r[:, 1].min(), fpts_r[:, 0].max(), fpts_r[:, 1].max())],
        'hull': [[round(float(x), 1), round(float(y), 1)] for x, y in fh.reshape(-1, 2)],
        'label': fr['label_text'], 'label_box': [round(float(v), 1) for v in (lab_r[:, 0].min(), lab_r[:, 1].min(), lab_r[:, 0].max(), lab_r[:, 1].max())],
        'number': pr['n'],
        'framed_dist': round(float(info['df']), 1), 'nearest_others': neigh,
        'min_gap_ratio': round(float((info['others'][0][0] - info['df']) / max(W, H)), 4) if info['others'] else None,
        'body_px': round(float(cam['em_photo']), 1), 'skew_deg': round(math.degrees(cam['theta']), 2),
        'jpeg_quality': cam['q'], 'problems_on_page': len(L['problems']), 'problems_visible': vis_probs,
        'kinds': kinds,
    }
    return i, jpg, meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bank', required=True)
    ap.add_argument('out')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=171)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--only', default=None)
    a = ap.parse_args()
    bank = load_bank(a.bank)
    nd = near_dups(bank)
    os.makedirs(a.out, exist_ok=True)
    idx = list(range(1, a.count + 1))
    if a.only:
        want = set(int(x) for x in a.only.split(',') if x.strip())
        idx = [i for i in idx if i in want]
    t0 = time.time()
    tasks = [(i, a.seed, bank, nd) for i in idx]
    results = {}
    if a.jobs > 1:
        with Pool(a.jobs) as pool:
            for i, jpg, meta in pool.imap_unordered(make_one, tasks, chunksize=1):
                results[i] = meta
                with open(os.path.join(a.out, meta['file']), 'wb') as f:
                    f.write(jpg)
    else:
        for t in tasks:
            i, jpg, meta = make_one(t)
            results[i] = meta
            with open(os.path.join(a.out, meta['file']), 'wb') as f:
                f.write(jpg)
    qmap = {b['id']: b['question'] for b in bank}
    with open(os.path.join(a.out, 'truth.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'text'])
        for i in idx:
            m = results[i]
            w.writerow([m['qid'], qmap[m['bank_id']].replace('\r', ' ').replace('\n', ' ')])
    with open(os.path.join(a.out, 'queries.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for i in idx:
            m = results[i]
            w.writerow([m['qid'], qmap[m['bank_id']].replace('\r', ' ').replace('\n', ' '), m['bank_id'], 'exact'])
    with open(os.path.join(a.out, 'meta.jsonl'), 'w', encoding='utf-8') as f:
        for i in idx:
            f.write(json.dumps(results[i], ensure_ascii=False) + '\n')
    print('wrote %d photos to %s in %.1fs' % (len(idx), a.out, time.time() - t0))


if __name__ == '__main__':
    main()
