#!/usr/bin/env python3
"""Synthetic phone photos of printed homework problems (independent test-data generator).

Usage:
  python make_photos.py --bank BANK.jsonl OUT_DIR --count 120 --seed 151 --jobs 2 [--only 3,17]

Every photo i draws all of its randomness from numpy.random.SeedSequence([seed, i]),
so the output does not depend on --jobs or --only.
"""
import argparse, csv, json, math, os, re, sys, time
import multiprocessing as mp

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont
from fontTools.ttLib import TTFont, TTCollection

MARGIN_RATIO = 0.04

# ----------------------------------------------------------------------------- fonts
FD = '/usr/share/fonts/'
FACES = {
    'serif_cjk': (FD + 'opentype/noto/NotoSerifCJK-Regular.ttc', 'Noto Serif CJK SC'),
    'serif_cjk_b': (FD + 'opentype/noto/NotoSerifCJK-Bold.ttc', 'Noto Serif CJK SC'),
    'sans_cjk': (FD + 'opentype/noto/NotoSansCJK-Regular.ttc', 'Noto Sans CJK SC'),
    'sans_cjk_b': (FD + 'opentype/noto/NotoSansCJK-Bold.ttc', 'Noto Sans CJK SC'),
    'dj_serif': (FD + 'truetype/dejavu/DejaVuSerif.ttf', None),
    'dj_sans': (FD + 'truetype/dejavu/DejaVuSans.ttf', None),
    'dj_sans_b': (FD + 'truetype/dejavu/DejaVuSans-Bold.ttf', None),
    'dj_sans_o': (FD + 'truetype/dejavu/DejaVuSans-Oblique.ttf', None),
    'dj_math': (FD + 'truetype/dejavu/DejaVuMathTeXGyre.ttf', None),
    'lib_serif': (FD + 'truetype/liberation/LiberationSerif-Regular.ttf', None),
    'lib_serif_b': (FD + 'truetype/liberation/LiberationSerif-Bold.ttf', None),
    'lib_sans': (FD + 'truetype/liberation/LiberationSans-Regular.ttf', None),
    'lib_sans_i': (FD + 'truetype/liberation/LiberationSans-Italic.ttf', None),
    'lib_narrow': (FD + 'truetype/liberation/LiberationSansNarrow-Regular.ttf', None),
}
FALLBACK = ['sans_cjk', 'dj_sans', 'dj_math', 'dj_serif']
STYLES = {
    'cn_serif': ['serif_cjk'], 'cn_sans': ['sans_cjk'], 'cn_bold': ['sans_cjk_b'],
    'cn_serif_bold': ['serif_cjk_b'],
    'en_serif': ['lib_serif', 'serif_cjk'], 'en_sans': ['lib_sans', 'sans_cjk'],
    'en_dj': ['dj_serif', 'serif_cjk'], 'en_narrow': ['lib_narrow', 'sans_cjk'],
    'en_bold': ['lib_serif_b', 'sans_cjk_b'], 'ui': ['dj_sans', 'sans_cjk'],
    'hand_lat': ['dj_sans_o', 'lib_sans_i', 'sans_cjk'], 'hand_cjk': ['sans_cjk', 'dj_sans_o'],
}
_CMAP, _INDEX, _PIL, _CW = {}, {}, {}, {}


def load_fonts():
    if _CMAP:
        return
    for name, (path, fam) in FACES.items():
        if not os.path.exists(path):
            continue
        if path.endswith('.ttc'):
            col = TTCollection(path, lazy=True)
            idx = 0
            for i, f in enumerate(col.fonts):
                if f['name'].getDebugName(1) == fam:
                    idx = i
                    break
            _CMAP[name] = set(col.fonts[idx].getBestCmap().keys())
            _INDEX[name] = idx
        else:
            _CMAP[name] = set(TTFont(path, lazy=True).getBestCmap().keys())
            _INDEX[name] = 0


def pil_font(face, size):
    k = (face, size)
    f = _PIL.get(k)
    if f is None:
        f = ImageFont.truetype(FACES[face][0], size, index=_INDEX[face])
        _PIL[k] = f
    return f


def face_for(ch, style):
    chain = [f for f in STYLES[style] if f in _CMAP] + [f for f in FALLBACK if f in _CMAP]
    if ch.isspace():
        return chain[0]
    o = ord(ch)
    for f in chain:
        if o in _CMAP[f]:
            return f
    return chain[0]


def segments(text, style):
    out = []
    for ch in text:
        f = face_for(ch, style)
        if out and out[-1][0] == f:
            out[-1][1] += ch
        else:
            out.append([f, ch])
    return out


def cw(ch, style, size):
    k = (ch, style, size)
    w = _CW.get(k)
    if w is None:
        w = pil_font(face_for(ch, style), size).getlength(ch)
        _CW[k] = w
    return w


def tw(text, style, size):
    return sum(cw(c, style, size) for c in text)


# ----------------------------------------------------------------------------- content pools
CN_HEADERS = ['2024—2025学年度第一学期期中考试  七年级数学试卷', '八年级物理单元检测卷（第三单元 压强）',
              '九年级化学期末复习练习（二）', '高一生物随堂练习  第5课时', '八年级地理课时作业本',
              '七年级历史阶段性测试卷', '初三综合练习  语文·数学·英语', '课后作业（第12课时）  班级作业单']
EN_HEADERS = ['Grade 8 Science — Unit 3 Review Worksheet', 'Mid-term Test · English · Class 7B',
              'Homework Sheet 12 — Algebra and Geometry', 'Chemistry Practice Paper 2', 'Weekly Quiz — Week 6']
CN_NAME = ['姓名：__________  班级：________  学号：______', '班级________ 姓名________ 得分________',
           '学校：____________  姓名：__________  考号：__________']
EN_NAME = ['Name: ______________  Class: ______  Date: ________', 'Name ____________________   Score ______ / 50']
CN_SECT = ['一、选择题（每小题3分，共24分）', '二、填空题（每空2分，共20分）', '三、解答题（共46分）', '四、计算题',
           '五、实验探究题', '一、基础知识', '二、阅读理解', '三、综合运用']
EN_SECT = ['Part A  Multiple Choice', 'Part B  Short Answer (20 marks)', 'Section 2: Grammar', 'Exercise 3',
           'Part C  Problem Solving']
TB_SECT = ['§3.2  一元一次方程的解法', '练习', '习题 2.1', '例题精讲', 'Lesson 5  Practice', '课堂练习']
PAGE_NUM = ['第 {n} 页（共 {m} 页）', '— {n} —', 'Page {n} of {m}', '{n}', '- {n} -']
CN_OPT_WORDS = {
    'biology': ['细胞核', '线粒体', '叶绿体', '细胞膜', '显性', '隐性', '1/4', '1/2', '3/4', '全部'],
    'geography': ['长江', '黄河', '珠江', '季风气候', '温带大陆性气候', '亚热带', '热带', '东北地区', '西南地区'],
    'history': ['秦朝', '汉朝', '唐朝', '宋朝', '1840年', '1911年', '1949年', '商鞅变法', '戊戌变法'],
    'chinese': ['比喻', '拟人', '夸张', '排比', '李白', '杜甫', '苏轼', '白居易', '对偶'],
    'other': ['增大', '减小', '不变', '无法确定', '甲', '乙', '丙', '丁'],
}
EN_OPT_WORDS = ['go', 'goes', 'went', 'gone', 'a', 'an', 'the', 'since', 'for', 'in', 'on', 'at', 'is', 'are',
                'was', 'were', 'bigger', 'biggest']
CN_LONG = ['该物体所受的重力和支持力是一对平衡力', '只有①和③正确，②和④都不正确', '温度越高，分子的无规则运动越剧烈',
           '这首诗表达了诗人对家乡的深切思念之情', '该反应属于置换反应，反应前后元素的化合价都发生了变化',
           '地球自转产生了昼夜交替现象，公转产生了四季变化', '该朝代推行郡县制，加强了中央集权']
EN_LONG = ['The boy who is standing under the tree is my brother.', 'Because it rained heavily, the match was put off.',
           'The speed stays the same because no net force acts on it.', 'Both statements are true, but only the second explains the first.',
           'It depends on the temperature of the water.']
CN_SUB = ['求出结果，并写出计算过程；', '说明你的理由；', '若条件改变，结果如何变化？', '用学过的知识解释这一现象。',
          '画出示意图并标出相关数据；', '写出所用的公式；', '判断结论是否正确。']
EN_SUB = ['Show your working.', 'Explain your answer in one sentence.', 'Write down the formula you used.',
          'What would change if the number were doubled?', 'Check your answer.']
HAND_LAT = ['2x=10', 'x=5', '8×5=40', 'S=πr²', '=28.26', 'G=mg=500N', 'p=ρgh', 'x=12', '3x-2x=12', 'goes',
            'an apple', 'since', '=2×10³Pa', 'k=(8-2)/(3-1)=3', 'M=18', '1/4', 'v=s/t', '(-3)²=9', 'f(2)=3']
HAND_CJK = ['解：', '答：', '因为', '所以', '由题意得', '面积', '长×宽', '答：略', '同理可得']
SUB_NUM = [lambda k: '(%d)' % k, lambda k: '（%d）' % k, lambda k: '%d)' % k, lambda k: '①②③④⑤'[k - 1]]
CIRCLED = '①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳'
CN_NUM = '一二三四五六七八九十'
NUM_STYLES = {
    'dot': lambda n: '%d.' % n, 'fwdot': lambda n: '%d．' % n, 'paren': lambda n: '(%d)' % n,
    'fwparen': lambda n: '（%d）' % n, 'rparen': lambda n: '%d)' % n, 'di_ti': lambda n: '第%d题' % n,
    'circled': lambda n: CIRCLED[(n - 1) % 20], 'Q': lambda n: 'Q%d' % n, 'Question': lambda n: 'Question %d' % n,
    'cn_dun': lambda n: CN_NUM[(n - 1) % 10] + '、', 'dun': lambda n: '%d、' % n,
}
NOTES = ['(5分)', '（3分）', '[4 marks]', '(2 marks)', '（本题6分）', '(8分)', '[3]', '（4分）']
NO_START = set('，。、；：？！）」”’,.;:?!)]%』】')
TOKRE = re.compile(r'_{2,}|[A-Za-z0-9\.\,\-\+\=\/%²³°℃πρΩ√×÷₀₁₂₅ₙ\'"“”!?;:()\[\]^]+ *|\s+|.', re.S)


def detex(t):
    t = t.replace('$', '')
    for a, b in [('^{\\circ}', '°'), ('^\\circ', '°'), ('\\pi', 'π'), ('\\times', '×'), ('\\div', '÷'), ('\\cdot', '·'), ('\\leq', '≤'), ('\\geq', '≥'),
                 ('\\le', '≤'), ('\\ge', '≥'), ('\\neq', '≠'), ('\\angle', '∠'), ('\\triangle', '△'),
                 ('\\rho', 'ρ'), ('\\Omega', 'Ω'), ('\\circ', '°'), ('\\%', '%'), ('\\,', ' '), ('\\rightarrow', '→'),
                 ('^{2}', '²'), ('^2', '²'), ('^{3}', '³'), ('^3', '³')]:
        t = t.replace(a, b)
    for w in ('sin', 'cos', 'tan', 'log', 'ln'):
        t = t.replace('\\' + w, w)
    t = t.replace('\\cap', '∩').replace('\\cup', '∪')
    sup, sub = dict(zip('0123456789n', '⁰¹²³⁴⁵⁶⁷⁸⁹ⁿ')), dict(zip('0123456789nk', '₀₁₂₃₄₅₆₇₈₉ₙₖ'))
    t = re.sub(r'\^\{?([0-9n])\}?', lambda m: sup[m.group(1)], t)
    t = re.sub(r'_\{?([0-9nk])\}?', lambda m: sub[m.group(1)], t)
    t = re.sub(r'\\frac\{([^{}]*)\}\{([^{}]*)\}', r'\1/\2', t)
    t = re.sub(r'\\sqrt\{([^{}]*)\}', r'√\1', t)
    t = re.sub(r'_\{([^{}]*)\}', r'\1', t)
    t = re.sub(r'\\[A-Za-z]+', '', t)
    return t.replace('{', '').replace('}', '').replace('\\', '')


def is_en(text):
    return sum(1 for c in text if '\u4e00' <= c <= '\u9fff') < 2


# ----------------------------------------------------------------------------- page builder
class Page:
    pass


def tokens_of(text):
    out = []
    for m in TOKRE.finditer(text):
        t = m.group(0)
        out.append(('b', t) if t.startswith('__') else ('t', t))
    return out


def wrap(tokens, width_fn, meas):
    lines, cur, w = [], [], 0.0
    for tok in tokens:
        t_w = meas(tok)
        maxw = width_fn(len(lines))
        if cur and w + t_w > maxw and tok[1][0] not in NO_START:
            lines.append(cur)
            cur, w = [], 0.0
            if tok[1].isspace():
                continue
        cur.append(tok)
        w += t_w
    if cur:
        lines.append(cur)
    return lines


class Builder:
    """Lays out one page in page pixels; records draw ops and the boxes of printed problem lines."""

    def __init__(self, rng, P):
        self.rng, self.P = rng, P
        self.F = P['F']
        self.els = []

    def line_box(self, x0, x1, base):
        F = self.F
        return [x0, base - 0.86 * F, x1, base + 0.2 * F]

    def text_line(self, ops, x, base, toks, style, size, blank):
        """Draw a list of tokens; returns end x (ignoring trailing spaces)."""
        F = self.F
        end = x
        for kind, t in toks:
            if kind == 'b':
                if blank['style'] == 'rule':
                    w = blank['w']
                    ops.append(('line', [(x + 0.1 * F, base + 0.12 * F), (x + w - 0.1 * F, base + 0.12 * F)],
                                max(1, int(F / 15)), self.P['ink']))
                else:
                    w = tw(t, self.P['style'], size)
                    ops.append(('text', x, base, t, style, size, self.P['ink']))
                x += w
                end = x
            else:
                w = tw(t, style, size)
                ops.append(('text', x, base, t, style, size, self.P['ink']))
                x += w
                if t.strip():
                    end = x - tw(t[len(t.rstrip()):], style, size)
        return end

    def meas_fn(self, style, size, blank):
        def meas(tok):
            if tok[0] == 'b':
                return blank['w'] if blank['style'] == 'rule' else tw(tok[1], style, size)
            return tw(tok[1], style, size)
        return meas

    def add(self, kind, ops, box, **kw):
        e = dict(kind=kind, ops=ops, box=box)
        e.update(kw)
        self.els.append(e)
        return e

    def figure(self, x0, y0, w, h, kind):
        rng, F, ink = self.rng, self.F, self.P['ink']
        ops = []
        lw = max(1, int(F / 14))
        if kind == 'triangle':
            pts = [(x0 + w * rng.uniform(0.05, 0.3), y0 + h * 0.85), (x0 + w * rng.uniform(0.7, 0.95), y0 + h * 0.85),
                   (x0 + w * rng.uniform(0.3, 0.7), y0 + h * 0.12)]
            ops.append(('poly', pts, lw, ink, True))
            for (px, py), lab, dx, dy in zip(pts, 'BCA', (-0.8, 0.2, -0.3), (0.0, 0.0, -1.0)):
                ops.append(('text', px + dx * F, py + (0.9 if dy == 0 else -0.1) * F, lab, 'en_serif', int(F * 0.9), ink))
        elif kind == 'axes':
            ox, oy = x0 + 0.2 * w, y0 + 0.75 * h
            ops.append(('line', [(x0, oy), (x0 + w, oy)], lw, ink))
            ops.append(('line', [(ox, y0 + h), (ox, y0)], lw, ink))
            ops.append(('poly', [(x0 + w - 0.3 * F, oy - 0.2 * F), (x0 + w, oy), (x0 + w - 0.3 * F, oy + 0.2 * F)], lw, ink, False))
            ops.append(('poly', [(ox - 0.2 * F, y0 + 0.3 * F), (ox, y0), (ox + 0.2 * F, y0 + 0.3 * F)], lw, ink, False))
            ops.append(('text', x0 + w - 0.6 * F, oy + 1.0 * F, 'x', 'en_serif', int(F * 0.9), ink))
            ops.append(('text', ox + 0.3 * F, y0 + 0.8 * F, 'y', 'en_serif', int(F * 0.9), ink))
            ops.append(('text', ox - 0.8 * F, oy + 0.9 * F, 'O', 'en_serif', int(F * 0.9), ink))
            ops.append(('line', [(x0 + 0.1 * w, y0 + 0.95 * h), (x0 + 0.9 * w, y0 + 0.1 * h)], lw, ink))
        else:  # table
            r, c = int(rng.integers(2, 4)), int(rng.integers(3, 6))
            for i in range(r + 1):
                ops.append(('line', [(x0, y0 + h * i / r), (x0 + w, y0 + h * i / r)], lw, ink))
            for j in range(c + 1):
                ops.append(('line', [(x0 + w * j / c, y0), (x0 + w * j / c, y0 + h)], lw, ink))
            for i in range(r):
                for j in range(c):
                    s = str(int(rng.integers(1, 99))) if (i or j) else ('t/s' if rng.random() < .5 else '时间')
                    sz = int(min(F * 0.8, h / r * 0.6, (w / c - 0.3 * F) / max(1.0, tw(s, self.P['style'], 100) / 100)))
                    ops.append(('text', x0 + w * j / c + 0.15 * F, y0 + h * (i + 0.72) / r, s, self.P['style'],
                                max(6, sz), ink))
        self.add('figure', ops, [x0, y0, x0 + w, y0 + h])

    def options(self, x, y, width, lang, subject, layout, style):
        """Returns (ops, boxes, new_y, layout_used)."""
        rng, F, P = self.rng, self.F, self.P
        pitch = P['pitch']
        labs = rng.choice([['A.', 'B.', 'C.', 'D.'], ['A．', 'B．', 'C．', 'D．'], ['A、', 'B、', 'C、', 'D、'],
                           ['(A)', '(B)', '(C)', '(D)']])
        if layout == 'wrap':
            pool = EN_LONG if lang == 'en' else CN_LONG
            texts = [pool[k] for k in rng.choice(len(pool), 4, replace=False)]
        elif subject in ('math', 'physics', 'chemistry') and rng.random() < 0.75:
            base = int(rng.integers(2, 60))
            vals = sorted(set([base, base + int(rng.integers(1, 5)), max(1, base - int(rng.integers(1, 5))),
                               base * 2, base + 10]))[:4]
            while len(vals) < 4:
                vals.append(vals[-1] + 3)
            unit = rng.choice(['', '', ' cm', ' N', ' g', ' m/s', ' Pa']) if subject != 'math' else ''
            texts = [str(v) + unit for v in vals]
        else:
            pool = EN_OPT_WORDS if lang == 'en' else CN_OPT_WORDS.get(subject, CN_OPT_WORDS['other'])
            texts = [pool[k] for k in rng.choice(len(pool), 4, replace=False)]
        ops, boxes = [], []
        items = [l + (' ' if lang == 'en' or l.startswith('(') else '') + t for l, t in zip(labs, texts)]
        ws = [tw(s, style, F) for s in items]
        if layout == 'row4' and max(ws) > width / 4 - 0.8 * F:
            layout = '2x2'
        if layout == '2x2' and max(ws) > width / 2 - 0.8 * F:
            layout = 'col'
        if layout == 'col' and max(ws) > width:
            layout = 'wrap'
        base = y + 0.88 * F
        if layout == 'row4':
            for k, s in enumerate(items):
                xx = x + k * width / 4
                ops.append(('text', xx, base, s, style, F, P['ink']))
                boxes.append(self.line_box(xx, xx + ws[k], base))
            y += pitch
        elif layout == '2x2':
            for k, s in enumerate(items):
                xx = x + (k % 2) * width / 2
                bb = base + (k // 2) * pitch * P['opt_sp']
                ops.append(('text', xx, bb, s, style, F, P['ink']))
                boxes.append(self.line_box(xx, xx + ws[k], bb))
            y += pitch * (1 + P['opt_sp'])
        else:
            for k, s in enumerate(items):
                lw = tw(labs[k] + ' ', style, F)
                toks = tokens_of(s)
                lines = wrap(toks, lambda i: width if i == 0 else width - lw, self.meas_fn(style, F, None))
                for i, ln in enumerate(lines):
                    xx = x if i == 0 else x + lw
                    end = self.text_line(ops, xx, base, ln, style, F, None)
                    boxes.append(self.line_box(xx, end, base))
                    base += pitch
                    y += pitch
        return ops, boxes, y, layout

    def problem(self, item, label, x0, y0, width, feat):
        """Lay out one bank problem. Returns (problem element, bottom y)."""
        rng, F, P = self.rng, self.F, self.P
        pitch = P['pitch']
        style = P['style'] if not (P['lang'] == 'cn' and is_en(item['question']) and rng.random() < 0.3) else P['en_style']
        ink = P['ink']
        q = item['question']
        lang = 'en' if is_en(q) else 'cn'
        ops, boxes = [], []
        info = dict(label=label)
        blank = {'style': rng.choice(['rule', 'underscores']), 'w': F * rng.uniform(2.5, 5.0)}
        if '__' in q:
            info['blank'] = blank['style']
        note = None
        if feat.get('note'):
            note = NOTES[int(rng.integers(len(NOTES)))]
            info['note'] = feat['note']
        lab_txt = label + (' ' if rng.random() < 0.6 or lang == 'en' else '')
        lab_w = tw(lab_txt, style, F)
        hang = rng.random() < 0.6
        text = q
        if note and feat['note'] == 'before':
            text = note + ' ' + q
        elif note:
            text = q + ' ' + note
        toks = tokens_of(text)
        fig = feat.get('figure')
        fw = fh = 0
        if fig:
            fw = min(width * 0.4, F * rng.uniform(5, 8))
            fh = F * rng.uniform(3, 5)
        ind = lab_w if hang else 0

        def width_fn(i):
            w = width - (lab_w if i == 0 else ind)
            if fig and feat['fig_pos'] == 'beside' and i * pitch < fh + 0.5 * F:
                w -= fw + F
            return max(w, 4 * F)
        lines = wrap(toks, width_fn, self.meas_fn(style, F, blank))
        info['stem_lines'] = len(lines)
        if fig and feat['fig_pos'] == 'between' and len(lines) < 2:
            feat['fig_pos'] = 'after'
        if fig:
            info['figure'] = feat['fig_pos']
        y = y0
        fig_k = int(rng.integers(1, len(lines))) if fig and feat['fig_pos'] == 'between' else -1
        ops.append(('text', x0, y + 0.88 * F, lab_txt, P['label_style'], F, ink))
        boxes.append(self.line_box(x0, x0 + tw(label, style, F), y + 0.88 * F))
        for i, ln in enumerate(lines):
            if i == fig_k:
                fx = x0 + ind + rng.uniform(0, max(0, width - ind - fw))
                self.figure(fx, y + 0.2 * F, fw, fh, feat['fig_kind'])
                y += fh + 0.4 * F
            xs = x0 + (lab_w if i == 0 else ind)
            base = y + 0.88 * F
            end = self.text_line(ops, xs, base, ln, style, F, blank)
            boxes.append(self.line_box(xs, max(end, xs + 1), base))
            y += pitch
        if fig and feat['fig_pos'] == 'beside':
            self.figure(x0 + width - fw, y0 + 0.1 * F, fw, fh, feat['fig_kind'])
            y = max(y, y0 + fh + 0.4 * F)
        if fig and feat['fig_pos'] == 'after':
            self.figure(x0 + ind + 0.5 * F, y + 0.1 * F, fw, fh, feat['fig_kind'])
            y += fh + 0.4 * F
        if feat.get('options'):
            ox = x0 + (ind if hang else F)
            o_ops, o_boxes, y, lay = self.options(ox, y, width - (ox - x0), lang, item['subject'], feat['options'], style)
            ops += o_ops
            boxes += o_boxes
            info['options'] = lay
        if feat.get('subq'):
            n = int(rng.integers(2, 4))
            pool = EN_SUB if lang == 'en' else CN_SUB
            fmt = SUB_NUM[int(rng.integers(len(SUB_NUM)))]
            sind = F * rng.choice([0, 1, 2]) + (ind if hang else 0)
            ssp = rng.choice([0, 0, 0.4, 0.8]) * F
            for k in range(1, n + 1):
                s = fmt(k) + ' ' + pool[int(rng.integers(len(pool)))]
                y += ssp
                sl = wrap(tokens_of(s), lambda i: width - sind - (F if i else 0), self.meas_fn(style, F, None))
                for i, ln in enumerate(sl):
                    xs = x0 + sind + (F if i else 0)
                    base = y + 0.88 * F
                    end = self.text_line(ops, xs, base, ln, style, F, None)
                    boxes.append(self.line_box(xs, end, base))
                    y += pitch
            info['subq'] = 'indented' if sind > 0 else 'flush'
            if ssp > 0:
                info['subq'] += '_spaced'
        bottom = y - (pitch - 1.06 * F)  # ink bottom of the last line
        xs_all = [b[0] for b in boxes] + [b[2] for b in boxes]
        el = self.add('problem', ops, [min(xs_all), y0, max(xs_all), bottom], boxes=boxes, bank_id=item['id'],
                      info=info, x0=x0, width=width)
        # things printed under the problem (not part of it)
        if feat.get('solution'):
            sol = detex(item.get('answer', '')) or '略'
            sol = ('解：' if lang == 'cn' else 'Solution: ') + sol
            sops = []
            yy = y + 0.2 * F
            sstyle = P['style']
            sl = wrap(tokens_of(sol), lambda i: width - F, self.meas_fn(sstyle, F, None))[:4]
            col = P['sol_ink']
            for ln in sl:
                self.text_line(sops, x0 + F, yy + 0.88 * F, ln, sstyle, F, None)
                yy += pitch
            for o in sops:
                o_ = list(o)
                o_[-1] = col
                sops[sops.index(o)] = tuple(o_)
            self.add('solution', sops, [x0, y, x0 + width, yy])
            y = yy
        if feat.get('answer_lines'):
            aops = []
            n = int(rng.integers(1, 4))
            yy = y + 0.2 * F
            for k in range(n):
                yy += pitch * 1.1
                xa = x0 + (tw('答：', style, F) if (k == 0 and lang == 'cn' and rng.random() < .5) else 0)
                if xa > x0:
                    aops.append(('text', x0, yy, '答：', style, F, ink))
                aops.append(('line', [(xa, yy + 0.1 * F), (x0 + width, yy + 0.1 * F)], max(1, int(F / 20)), (120, 120, 120)))
            self.add('answer_lines', aops, [x0, y, x0 + width, yy + 0.3 * F])
            y = yy + 0.5 * F
        if feat.get('mark'):
            self.teacher_mark(el)
        return el, y

    def teacher_mark(self, el):
        rng, F = self.rng, self.F
        red = (int(rng.integers(180, 230)), int(rng.integers(10, 50)), int(rng.integers(20, 60)))
        lw = max(2, int(F * rng.uniform(0.08, 0.14)))
        b = el['boxes'][0]
        kind = rng.choice(['tick', 'cross', 'score', 'circle'])
        ops = []
        if kind == 'circle':
            ops.append(('ellipse', [b[0] - 0.25 * F, b[1] - 0.2 * F, b[2] + 0.25 * F, b[3] + 0.1 * F], red, lw))
            box = [b[0] - 0.3 * F, b[1] - 0.3 * F, b[2] + 0.3 * F, b[3] + 0.2 * F]
        else:
            last = el['boxes'][-1]
            if rng.random() < 0.5:
                x, y = last[2] + rng.uniform(0.3, 1.5) * F, last[1]
            else:
                x, y = el['box'][0] - rng.uniform(1.3, 2.0) * F, b[1]
            if kind == 'tick':
                ops.append(('poly', [(x, y + 0.4 * F), (x + 0.35 * F, y + 0.9 * F), (x + 1.1 * F, y - 0.4 * F)], lw, red, False))
            elif kind == 'cross':
                ops.append(('line', [(x, y - 0.2 * F), (x + 0.9 * F, y + 0.8 * F)], lw, red))
                ops.append(('line', [(x + 0.9 * F, y - 0.2 * F), (x, y + 0.8 * F)], lw, red))
            else:
                s = rng.choice(['-2', '5', '+3', '8', '0', '√', '-1'])
                ops.append(('text', x + 0.2 * F, y + 0.9 * F, s, 'hand_lat', int(F * 1.1), red))
                ops.append(('ellipse', [x - 0.2 * F, y - 0.3 * F, x + 1.4 * F, y + 1.2 * F], red, max(1, lw // 2)))
            box = [x - 0.3 * F, y - 0.5 * F, x + 1.5 * F, y + 1.3 * F]
        self.add('teacher_mark', ops, box)

    def handwriting(self, x0, y0, width, height):
        rng, F = self.rng, self.F
        col = [(25, 45, 150), (30, 30, 45), (95, 95, 100)][int(rng.integers(3))]
        ops = []
        size = int(F * rng.uniform(0.95, 1.3))
        y = y0 + size
        nlines = max(1, int(height / (size * 1.5)))
        for k in range(nlines):
            if y + 0.35 * size > y0 + height:
                break
            x = x0 + rng.uniform(0, 2) * F
            slope = rng.uniform(-0.04, 0.04)
            for w in range(int(rng.integers(1, 4))):
                pool = HAND_CJK if rng.random() < 0.3 else HAND_LAT
                s = pool[int(rng.integers(len(pool)))]
                for ch in s:
                    sz = int(size * rng.uniform(0.85, 1.15))
                    st = 'hand_cjk' if '\u4e00' <= ch <= '\u9fff' or ch in '：' else 'hand_lat'
                    ops.append(('text', x, y + (x - x0) * slope + rng.normal(0, 0.06 * size), ch, st, sz, col))
                    x += tw(ch, st, sz) * rng.uniform(0.85, 1.1)
                    if x > x0 + width - size:
                        break
                x += size * rng.uniform(0.8, 2.0)
                if x > x0 + width - 2 * size:
                    break
            if rng.random() < 0.3:  # crossed out / underline scribble
                xs = np.linspace(x0 + F, min(x, x0 + width), 12)
                pts = [(float(a), float(y - 0.3 * size + rng.normal(0, 0.12 * size))) for a in xs]
                ops.append(('poly', pts, max(1, int(size / 14)), col, False))
            y += size * rng.uniform(1.4, 1.9)
        self.add('handwriting', ops, [x0, y0, x0 + width, y0 + height])


NEAR_DUP_CACHE = {}


def near_dups(bank, k):
    if k not in NEAR_DUP_CACHE:
        q = bank[k]['question']
        NEAR_DUP_CACHE[k] = [j for j, r in enumerate(bank) if j != k and r['question'][:10] == q[:10]]
    return NEAR_DUP_CACHE[k]


def build_page(rng, bank, fidx, S, hard):
    """S: scene settings decided once per photo. hard: retry counter (0.. ) making layouts easier."""
    F = S['F']
    pt = S['page_type']
    lang = 'en' if (is_en(bank[fidx]['question']) and rng.random() < 0.7) or (rng.random() < 0.15) else 'cn'
    P = dict(F=F, lang=lang, page_type=pt)
    if lang == 'cn':
        P['style'] = rng.choice(['cn_serif', 'cn_serif', 'cn_sans'])
        P['en_style'] = rng.choice(['en_serif', 'en_dj'])
    else:
        P['style'] = rng.choice(['en_serif', 'en_sans', 'en_dj', 'en_narrow', 'cn_serif'])
        P['en_style'] = P['style']
    P['label_style'] = P['style'] if rng.random() < 0.7 else ('cn_bold' if lang == 'cn' else 'en_bold')
    g = int(rng.integers(10, 60))
    P['ink'] = (g, g, g + int(rng.integers(0, 10)))
    P['sol_ink'] = P['ink'] if rng.random() < 0.6 else (30, 60, 140)
    dense = S['dense']
    P['pitch'] = F * (rng.uniform(1.3, 1.6) if dense else rng.uniform(1.5, 1.95))
    P['opt_sp'] = rng.uniform(1.0, 1.6)
    lead = P['pitch'] - 1.06 * F
    relax = 1.0 + 0.25 * hard
    if pt == 'booklet':
        gap_fn = lambda: F * rng.uniform(2.5, 7) * min(relax, 1.5)
    elif dense:
        gap_fn = lambda: lead * (1.0 if rng.random() < 0.2 else rng.uniform(1.0, 1.7)) * relax
    else:
        gap_fn = lambda: lead + F * rng.uniform(0.4, 1.8) * relax
    ncols = S['ncols']
    colw = S['colw_em'] * F
    gutter = F * (rng.uniform(0.8, 1.5) if S['narrow_gutter'] else rng.uniform(2.0, 4.0))
    margin = F * rng.uniform(2.0, 4.0)
    W = int(2 * margin + ncols * colw + (ncols - 1) * gutter)
    H = int(max(W * rng.uniform(1.25, 1.45), F * 30))
    b = Builder(rng, P)
    y = margin * 0.8
    # header / name line
    if rng.random() < 0.75:
        hs = (EN_HEADERS if lang == 'en' else CN_HEADERS)
        h = hs[int(rng.integers(len(hs)))]
        hsz = int(F * rng.uniform(1.05, 1.35))
        st = 'cn_bold' if lang == 'cn' else 'en_bold'
        hw = tw(h, st, hsz)
        hx = max(margin, (W - hw) / 2) if rng.random() < 0.7 else margin
        b.add('header', [('text', hx, y + hsz * 0.88, h, st, hsz, P['ink']),
                         ('line', [(margin, y + hsz * 1.35), (W - margin, y + hsz * 1.35)], max(1, F // 16), P['ink'])],
              [hx, y, hx + hw, y + hsz * 1.4])
        y += hsz * 2.0
    if rng.random() < 0.6:
        ns = EN_NAME if lang == 'en' else CN_NAME
        s = ns[int(rng.integers(len(ns)))]
        b.add('name_line', [('text', margin, y + 0.88 * F, s, P['style'], F, P['ink'])], [margin, y, margin + tw(s, P['style'], F), y + F])
        y += F * 2.0
    # numbering
    ns_key = rng.choice(list(NUM_STYLES.keys()))
    if lang == 'en' and ns_key in ('di_ti', 'cn_dun', 'fwparen', 'fwdot') and rng.random() < .7:
        ns_key = rng.choice(['dot', 'Q', 'Question', 'rparen', 'paren'])
    num = int(rng.integers(1, 16))
    fc = int(rng.integers(ncols))
    fk = int(rng.integers(0, 4 if ncols > 1 else 5))
    used = {fidx}
    dups = near_dups(bank, fidx)
    dup_slot = None
    if dups and rng.random() < 0.4:
        dup_slot = fk + (1 if rng.random() < 0.5 or fk == 0 else -1)
    framed = None
    y_start = y
    y_bottom = H - margin * 1.2
    subj = bank[fidx]['subject']
    sec_pool = TB_SECT if pt == 'textbook' else (EN_SECT if lang == 'en' else CN_SECT)
    for c in range(ncols):
        x = margin + c * (colw + gutter)
        y = y_start + (F * rng.uniform(0, 1.5) if c else 0)
        k = 0
        prev_el = None
        while True:
            if (k == 0 and c == 0 and rng.random() < 0.7) or (k > 0 and rng.random() < 0.1):
                s = sec_pool[int(rng.integers(len(sec_pool)))]
                st = 'cn_bold' if lang == 'cn' else 'en_bold'
                ssz = int(F * rng.uniform(1.0, 1.15))
                b.add('section_heading', [('text', x, y + 0.88 * ssz, s, st, ssz, P['ink'])], [x, y, x + tw(s, st, ssz), y + ssz])
                y += ssz * rng.uniform(1.6, 2.2)
            is_f = (c == fc and k == fk)
            if is_f:
                idx = fidx
            elif c == fc and k == dup_slot:
                idx = dups[int(rng.integers(len(dups)))]
            else:
                for _ in range(20):
                    idx = int(rng.integers(len(bank)))
                    if rng.random() < 0.5 and bank[idx]['subject'] != subj:
                        continue
                    if idx not in used:
                        break
            used.add(idx)
            feat = {}
            pf = 1.0 if is_f else 0.0
            r = rng.random()
            if r < 0.33 + 0.07 * pf:
                feat['options'] = rng.choice(['row4', '2x2', '2x2', 'col', 'wrap'])
            elif r < 0.5 + 0.1 * pf:
                feat['subq'] = True
            if rng.random() < 0.12 + 0.12 * pf:
                feat['figure'] = True
                feat['fig_pos'] = rng.choice(['between', 'between', 'beside'])
                feat['fig_kind'] = rng.choice(['triangle', 'axes', 'table'])
            if rng.random() < S['note_p']:
                feat['note'] = rng.choice(['before', 'after'])
            label = NUM_STYLES[ns_key](num)
            if pt == 'textbook' and rng.random() < 0.45:
                label = rng.choice(['例%d', '例 %d', 'Example %d', '例%d.']) % int(rng.integers(1, 6))
                feat['solution'] = True
            if pt in ('worksheet', 'booklet') and rng.random() < 0.35:
                feat['answer_lines'] = True
            if pt in ('exam', 'booklet', 'worksheet') and rng.random() < S['mark_p']:
                feat['mark'] = True
            y_before = y
            el, y2 = b.problem(bank[idx], label, x, y, colw, feat)
            if y2 > y_bottom:
                # undo this problem (and its extras)
                while b.els and b.els[-1] is not el:
                    b.els.pop()
                b.els.pop()
                if is_f or (c == fc and k < fk):
                    return None
                break
            el['framed'] = is_f
            el['near_dup'] = (c == fc and k == dup_slot)
            if is_f:
                framed = el
            num += 1
            k += 1
            gap = gap_fn()
            el['gap_ratio'] = gap / lead
            if prev_el is not None:
                el['gap_above_ratio'] = prev_el['gap_ratio']
            prev_el = el
            if pt == 'booklet' and gap > 2.2 * F and rng.random() < 0.8:
                b.handwriting(x + F * rng.uniform(0, 3), y2 + 0.3 * F, colw - 3 * F, gap - 0.8 * F)
            y = y2 + gap
    if framed is None:
        return None
    if rng.random() < 0.6:
        s = PAGE_NUM[int(rng.integers(len(PAGE_NUM)))].format(n=int(rng.integers(1, 9)), m=int(rng.integers(9, 13)))
        st = P['style']
        b.add('page_number', [('text', (W - tw(s, st, F)) / 2, H - margin * 0.5, s, st, int(F * 0.9), P['ink'])],
              [(W - tw(s, st, F)) / 2, H - margin * 0.5 - F, (W + tw(s, st, F)) / 2, H - margin * 0.5])
    pg = Page()
    pg.W, pg.H, pg.F, pg.els, pg.P, pg.framed = W, H, F, b.els, P, framed
    pg.colw, pg.gutter, pg.ncols, pg.margin = colw, gutter, ncols, margin
    return pg


# ----------------------------------------------------------------------------- geometry
def box_points(bx, F):
    x0, y0, x1, y1 = bx
    n = max(2, int((x1 - x0) / (1.5 * F)) + 2)
    xs = np.linspace(x0, x1, n)
    return np.concatenate([np.stack([xs, np.full(n, y0)], 1), np.stack([xs, np.full(n, y1)], 1)])


class Camera:
    def __init__(self, Hm, Wu, Hu, curl):
        self.Hm, self.Wu, self.Hu, self.curl = Hm, Wu, Hu, curl
        self.Hinv = np.linalg.inv(Hm)

    def disp(self, q):
        c = self.curl
        if c is None:
            return np.zeros_like(q)
        side, a, e = c
        if side in ('left', 'right'):
            t = (q[:, 0] / self.Wu) if side == 'right' else (1 - q[:, 0] / self.Wu)
        else:
            t = (q[:, 1] / self.Hu) if side == 'bottom' else (1 - q[:, 1] / self.Hu)
        t = np.clip((t - (1 - e)) / e, 0, 1) ** 2
        d = np.zeros_like(q)
        if side in ('left', 'right'):
            d[:, 1] = a * t
            d[:, 0] = (-0.4 if side == 'right' else 0.4) * a * t
        else:
            d[:, 0] = a * t
            d[:, 1] = (-0.4 if side == 'bottom' else 0.4) * a * t
        return d

    def fwd(self, p):
        ph = np.concatenate([p, np.ones((len(p), 1))], 1) @ self.Hm.T
        q0 = ph[:, :2] / ph[:, 2:3]
        q = q0.copy()
        for _ in range(6):
            q = q0 - self.disp(q)
        return q

    def back_maps(self):
        ys, xs = np.mgrid[0:self.Hu, 0:self.Wu].astype(np.float32)
        q = np.stack([xs.ravel(), ys.ravel()], 1)
        if self.curl is not None:
            q = q + self.disp(q)
        ph = np.concatenate([q, np.ones((len(q), 1), np.float32)], 1) @ self.Hinv.T.astype(np.float32)
        p = ph[:, :2] / ph[:, 2:3]
        return p[:, 0].reshape(self.Hu, self.Wu), p[:, 1].reshape(self.Hu, self.Wu)


def make_camera(rng, S, c_page, Wu, Hu, text_px, F):
    s = text_px / F
    th = math.radians(S['skew'] * rng.uniform(0.6, 1.0))
    A = np.array([[s * math.cos(th), -s * math.sin(th), 0], [s * math.sin(th), s * math.cos(th), 0], [0, 0, 1.0]])
    A[:2, 2] = np.array([Wu / 2, Hu / 2]) - A[:2, :2] @ np.asarray(c_page)
    src = np.float32([[0, 0], [Wu, 0], [Wu, Hu], [0, Hu]])
    pj = S['persp']
    dst = src + np.float32(rng.uniform(-1, 1, (4, 2)) * pj * np.array([Wu, Hu]))
    Pm = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    return Camera(Pm @ A, Wu, Hu, S['curl'])


def coverage(cam, rect, F):
    """Fraction of the frame covered by the page (or device) rectangle."""
    x0, y0, x1, y1 = rect
    n = 24
    t = np.linspace(0, 1, n, endpoint=False)
    pts = np.concatenate([np.stack([x0 + (x1 - x0) * t, np.full(n, y0)], 1), np.stack([np.full(n, x1), y0 + (y1 - y0) * t], 1),
                          np.stack([x1 - (x1 - x0) * t, np.full(n, y1)], 1), np.stack([np.full(n, x0), y1 - (y1 - y0) * t], 1)])
    q = cam.fwd(pts)
    m = np.zeros((cam.Hu // 4, cam.Wu // 4), np.uint8)
    cv2.fillPoly(m, [np.round(q / 4).astype(np.int32)], 1)
    return float(m.mean())


def hull_dist(h, c):
    v = cv2.pointPolygonTest(h.astype(np.float32).reshape(-1, 1, 2), (float(c[0]), float(c[1])), True)
    return max(0.0, -v)


def evaluate(pg, cam, W, H):
    """Check the nearest-problem rule in upright photo coords. Returns dict or None."""
    Wu, Hu = cam.Wu, cam.Hu
    ctr = (Wu / 2, Hu / 2)
    margin = MARGIN_RATIO * max(W, H)
    fr = pg.framed
    fp = cam.fwd(np.concatenate([box_points(b, pg.F) for b in fr['boxes']]))
    if fp[:, 0].min() < 4 or fp[:, 1].min() < 4 or fp[:, 0].max() > Wu - 5 or fp[:, 1].max() > Hu - 5:
        return None
    fh = cv2.convexHull(fp.astype(np.float32)).reshape(-1, 2)
    dF = hull_dist(fh, ctr)
    # text height at the framed problem
    cen = np.array([[(fr['box'][0] + fr['box'][2]) / 2, (fr['box'][1] + fr['box'][3]) / 2]])
    q = cam.fwd(np.concatenate([cen, cen + [pg.F, 0], cen + [0, pg.F]]))
    v1, v2 = q[1] - q[0], q[2] - q[0]
    tpx = math.sqrt(abs(v1[0] * v2[1] - v1[1] * v2[0]))
    if not 16 <= tpx <= 60:
        return None
    others = []
    for e in pg.els:
        if e['kind'] != 'problem' or e is fr:
            continue
        b = e['box']
        pts = cam.fwd(np.concatenate([box_points(bb, pg.F) for bb in e['boxes']]))
        h = cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2)
        d = hull_dist(h, ctr)
        if d - dF < margin:
            return None
        others.append((d, e, h))
    others.sort(key=lambda t: t[0])
    return dict(dF=dF, hull=fh, others=others, text_px=tpx, margin=margin)


# ----------------------------------------------------------------------------- rendering
def draw_ops(draw, ops, ox, oy):
    for op in ops:
        k = op[0]
        if k == 'text':
            _, x, base, s, style, size, col = op
            size = max(6, int(size))
            xx = x - ox
            for face, seg in segments(s, style):
                f = pil_font(face, size)
                draw.text((xx, base - oy), seg, font=f, fill=col, anchor='ls')
                xx += f.getlength(seg)
        elif k == 'line':
            _, pts, w, col = op
            draw.line([(a - ox, b - oy) for a, b in pts], fill=col, width=int(w))
        elif k == 'poly':
            _, pts, w, col, closed = op
            pp = [(a - ox, b - oy) for a, b in pts]
            if closed:
                pp = pp + [pp[0]]
            draw.line(pp, fill=col, width=int(w), joint='curve')
        elif k == 'ellipse':
            _, bb, col, w = op
            draw.ellipse([bb[0] - ox, bb[1] - oy, bb[2] - ox, bb[3] - oy], outline=col, width=int(w))


def smooth_noise(rng, h, w, scale, ch=1):
    sh, sw = max(2, h // scale), max(2, w // scale)
    n = rng.normal(0, 1, (sh, sw, ch)).astype(np.float32)
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
    return n.reshape(h, w, ch)


def desk_bg(rng, h, w):
    kind = rng.integers(3)
    base = np.array([[120, 85, 55], [95, 95, 100], [40, 40, 45]][kind], np.float32) * rng.uniform(0.8, 1.2)
    img = np.ones((h, w, 3), np.float32) * base
    img += smooth_noise(rng, h, w, 64) * 12
    if kind == 0:
        ys = np.arange(h, dtype=np.float32)[:, None]
        xs = np.arange(w, dtype=np.float32)[None, :]
        img += (np.sin(ys * rng.uniform(0.02, 0.06) + 2 * np.sin(xs * 0.004) + 1.5 * smooth_noise(rng, h, w, 128)[..., 0]) * 6)[..., None]
    img += rng.normal(0, 3, (h, w, 3)).astype(np.float32)
    return img


def render(rng, pg, cam, S, ev, W, H):
    Wu, Hu, F = cam.Wu, cam.Hu, pg.F
    # region of the page seen by the camera
    bx = np.concatenate([np.stack([np.linspace(0, Wu, 30), np.full(30, y)], 1) for y in (0, Hu)] +
                        [np.stack([np.full(30, x), np.linspace(0, Hu, 30)], 1) for x in (0, Wu)])
    if cam.curl is not None:
        bx = bx + cam.disp(bx)
    ph = np.concatenate([bx, np.ones((len(bx), 1))], 1) @ cam.Hinv.T
    pp = ph[:, :2] / ph[:, 2:3]
    ox, oy = int(pp[:, 0].min() - 2 * F), int(pp[:, 1].min() - 2 * F)
    cw_, ch_ = int(pp[:, 0].max() + 2 * F) - ox, int(pp[:, 1].max() + 2 * F) - oy
    cw_, ch_ = min(cw_, 6000), min(ch_, 6000)
    screen = S['screen']
    # canvas: paper colour
    if screen:
        paper = np.array([250, 250, 252], np.float32) * rng.uniform(0.92, 1.0)
    else:
        paper = np.array([rng.uniform(232, 250), rng.uniform(230, 246), rng.uniform(218, 240)], np.float32)
    canvas = np.ones((ch_, cw_, 3), np.float32) * paper
    if not screen:
        canvas += smooth_noise(rng, ch_, cw_, 48) * 3 + rng.normal(0, 2.5, (ch_, cw_, 1)).astype(np.float32)
    img = Image.fromarray(np.clip(canvas, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(img)
    vis = [ox, oy, ox + cw_, oy + ch_]
    for e in pg.els:
        b = e['box']
        if b[2] < vis[0] - 5 * F or b[0] > vis[2] + 5 * F or b[3] < vis[1] - 5 * F or b[1] > vis[3] + 5 * F:
            continue
        draw_ops(draw, e['ops'], ox, oy)
    mask = np.zeros((ch_, cw_), np.float32)
    x0, y0, x1, y1 = -ox, -oy, pg.W - ox, pg.H - oy
    if screen:
        # viewport of a device showing the document, with a UI bar at the top
        vt, vl, vr, vb, bez = S['vp']
        ui = Image.new('RGB', (cw_, ch_), (18, 18, 20))
        arr = np.array(img)
        uarr = np.array(ui)
        ya, yb = int(max(vt - oy, 0)), int(min(vb - oy, ch_))
        xa, xb = int(max(vl - ox, 0)), int(min(vr - ox, cw_))
        if yb > ya and xb > xa:
            uarr[ya:yb, xa:xb] = arr[ya:yb, xa:xb]
        img = Image.fromarray(uarr)
        draw = ImageDraw.Draw(img)
        bar_col = (245, 245, 247) if rng.random() < .5 else (40, 44, 52)
        txt_col = (20, 20, 20) if bar_col[0] > 128 else (235, 235, 235)
        bt, bh = vt - oy, S['bar_h']
        draw.rectangle([vl - ox, bt, vr - ox, bt + bh], fill=bar_col)
        fs = int(bh * 0.42)
        draw.text((vl - ox + bh * 0.4, bt + bh * 0.68), rng.choice(['9:41', '21:07', '16:32', '07:55']), font=pil_font('dj_sans', fs), fill=txt_col, anchor='ls')
        title = rng.choice(['作业.pdf', 'Homework.pdf', '数学练习 - 班级群', 'Worksheet_week6.pdf', '期中试卷.pdf'])
        tx = (vl + vr) / 2 - ox - tw(title, 'ui', fs) / 2
        for face, seg in segments(title, 'ui'):
            f = pil_font(face, fs)
            draw.text((tx, bt + bh * 0.68), seg, font=f, fill=txt_col, anchor='ls')
            tx += f.getlength(seg)
        bxr = vr - ox - bh * 1.6
        draw.rectangle([bxr, bt + bh * 0.35, bxr + bh * 0.9, bt + bh * 0.65], outline=txt_col, width=max(1, int(bh / 20)))
        draw.rectangle([bxr + 2, bt + bh * 0.35 + 2, bxr + bh * 0.6, bt + bh * 0.65 - 2], fill=txt_col)
        for k in range(4):
            xk = vl - ox + bh * 2.6 + k * bh * 0.22
            draw.rectangle([xk, bt + bh * (0.65 - 0.08 * (k + 1)), xk + bh * 0.12, bt + bh * 0.65], fill=txt_col)
        x0, y0, x1, y1 = vl - bez - ox, vt - bez - oy, vr + bez - ox, vb + bez - oy
        # fine pixel grid -> aliasing / moire after the warp
        carr = np.array(img).astype(np.float32)
        per = S['pix_per']
        yy, xx = np.mgrid[0:ch_, 0:cw_]
        grid = 1 - 0.10 * ((xx % per) < 1) - 0.10 * ((yy % per) < 1)
        carr *= grid[..., None].astype(np.float32)
    else:
        carr = np.array(img).astype(np.float32)
    mask[max(0, int(y0)):max(0, int(y1)), max(0, int(x0)):max(0, int(x1))] = 1
    # anti-alias for downscale
    s = ev['text_px'] / F
    if s < 0.9:
        carr = cv2.GaussianBlur(carr, (0, 0), 0.38 / s)
    mx, my = cam.back_maps()
    mx -= ox
    my -= oy
    warped = cv2.remap(carr, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    wm = cv2.remap(mask, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)[..., None]
    bg = desk_bg(rng, Hu, Wu)
    # paper casts a small shadow on the desk
    sh = cv2.GaussianBlur(wm, (0, 0), 6)
    if sh.ndim == 2:
        sh = sh[..., None]
    bg *= (1 - 0.35 * sh)
    out = warped * wm + bg * (1 - wm)
    return out, wm[..., 0]


def add_effects(rng, img, S, ev, kinds, wm):
    Hu, Wu = img.shape[:2]
    fh = ev['hull']
    fmask = np.zeros((Hu, Wu), np.uint8)
    cv2.fillPoly(fmask, [fh.astype(np.int32)], 1)
    fmask = cv2.dilate(fmask, np.ones((25, 25), np.uint8))
    ys, xs = np.mgrid[0:Hu, 0:Wu].astype(np.float32)
    # lighting: gradient + vignette
    ang = rng.uniform(0, 2 * math.pi)
    g = ((xs / Wu - 0.5) * math.cos(ang) + (ys / Hu - 0.5) * math.sin(ang))
    light = 1 + rng.uniform(0.03, 0.15) * g - rng.uniform(0.02, 0.12) * (((xs / Wu - .5) ** 2 + (ys / Hu - .5) ** 2) * 2)
    if S['dim']:
        light *= rng.uniform(0.6, 0.8)
        # strong shadow with soft edge (hand / phone)
        p0 = np.array([rng.uniform(0, Wu), rng.uniform(0, Hu)])
        n = np.array([math.cos(ang + 1), math.sin(ang + 1)])
        dist = (xs - p0[0]) * n[0] + (ys - p0[1]) * n[1]
        soft = rng.uniform(10, 40)
        shadow = 1 - rng.uniform(0.3, 0.48) * (1 / (1 + np.exp(-dist / soft)))
        light *= shadow
        kinds.append('dim_strong_shadow')
    img = img * light[..., None]
    if S['dim']:
        img = img * np.array([1.0, 0.95, 0.82], np.float32)  # warm cast
    if S['screen']:
        # moire: two close gratings beating
        f1 = rng.uniform(0.25, 0.45)
        a1, a2 = rng.uniform(0, math.pi), rng.uniform(0, math.pi)
        f2 = f1 * rng.uniform(0.93, 1.07)
        m = np.cos(2 * math.pi * f1 * (xs * math.cos(a1) + ys * math.sin(a1))) + \
            np.cos(2 * math.pi * f2 * (xs * math.cos(a1 + 0.05) + ys * math.sin(a1 + 0.05)))
        env = 0.5 + 0.5 * np.cos(2 * math.pi * (xs * math.cos(a2) + ys * math.sin(a2)) / rng.uniform(60, 200))
        amp = rng.uniform(0.03, 0.07)
        ph = np.array([0, 2.1, 4.2], np.float32)
        for cidx in range(3):
            img[..., cidx] *= 1 + amp * env * wm * np.cos(m * 1.5 + ph[cidx])
        kinds.append('moire')
        # glare blob away from the framed problem
        for _ in range(10):
            gx, gy = rng.uniform(0, Wu), rng.uniform(0, Hu)
            sx, sy = rng.uniform(0.08, 0.2) * Wu, rng.uniform(0.05, 0.15) * Hu
            gl = np.exp(-(((xs - gx) / sx) ** 2 + ((ys - gy) / sy) ** 2))
            if (gl * fmask).max() < 0.2:
                img = img + (gl * (0.3 + 0.7 * wm))[..., None] * rng.uniform(90, 170)
                kinds.append('glare')
                break
    # occluders
    if S['occluder']:
        for _ in range(15):
            om = np.zeros((Hu, Wu), np.uint8)
            side = int(rng.integers(4))
            if S['occluder'] == 'finger':
                L = max(Wu, Hu)
                t = rng.uniform(0.1, 0.9)
                pa = [(t * Wu, Hu + 0.1 * L), (t * Wu, -0.1 * L), (-0.1 * L, t * Hu), (Wu + 0.1 * L, t * Hu)][side]
                a = [-math.pi / 2, math.pi / 2, 0, math.pi][side] + rng.uniform(-0.5, 0.5)
                ln = L * rng.uniform(0.12, 0.25)
                pb = (pa[0] + ln * math.cos(a), pa[1] + ln * math.sin(a))
                wd = int(L * rng.uniform(0.07, 0.11))
                cv2.line(om, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), 1, wd)
                cv2.circle(om, (int(pb[0]), int(pb[1])), wd // 2, 1, -1)
            else:
                t = rng.uniform(0.1, 0.9)
                pa = [(t * Wu, Hu + 20), (t * Wu, -20), (-20, t * Hu), (Wu + 20, t * Hu)][side]
                ln = rng.uniform(0.15, 0.35) * max(Wu, Hu)
                a = math.atan2(Hu / 2 - pa[1], Wu / 2 - pa[0]) + rng.uniform(-0.6, 0.6)
                pb = (pa[0] + ln * math.cos(a), pa[1] + ln * math.sin(a))
                cv2.line(om, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), 1, int(max(Wu, Hu) * rng.uniform(0.02, 0.035)))
            if om.sum() < 500 or (om & fmask).any():
                continue
            omf = cv2.GaussianBlur(om.astype(np.float32), (0, 0), 2.5)[..., None]
            if S['occluder'] == 'finger':
                col = np.array([rng.uniform(190, 225), rng.uniform(140, 175), rng.uniform(115, 145)], np.float32)
                dt = cv2.distanceTransform(om, cv2.DIST_L2, 5)
                shade = 0.7 + 0.35 * np.clip(dt / (dt.max() + 1e-6), 0, 1)[..., None] ** 0.5
                tex = col * shade + smooth_noise(rng, Hu, Wu, 20) * 5
            else:
                col = np.array([[20, 30, 90], [25, 25, 28], [160, 20, 30]][int(rng.integers(3))], np.float32)
                tex = col * (0.8 + 0.6 * cv2.GaussianBlur(om.astype(np.float32), (0, 0), 4)[..., None])
            img = img * (1 - omf) + tex * omf
            kinds.append('occluder_' + S['occluder'])
            break
    # blur
    if S['blur'] == 'gauss':
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.6, 1.4))
    elif S['blur'] == 'motion':
        k = int(rng.integers(3, 7))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1
        M = cv2.getRotationMatrix2D((k / 2 - .5, k / 2 - .5), rng.uniform(0, 180), 1)
        ker = cv2.warpAffine(ker, M, (k, k))
        ker /= ker.sum()
        img = cv2.filter2D(img, -1, ker)
    if S['blur']:
        kinds.append('blur_' + S['blur'])
    # sensor noise
    sig = S['noise'] * (1.8 if S['dim'] else 1.0)
    img = img + rng.normal(0, sig, img.shape).astype(np.float32) + smooth_noise(rng, Hu, Wu, 4, 3) * sig * 0.5
    return np.clip(img, 0, 255).astype(np.uint8)


def rot_points(pts, r, Wu, Hu):
    x, y = pts[:, 0], pts[:, 1]
    if r == 0:
        return np.stack([x, y], 1)
    if r == 90:
        return np.stack([Hu - 1 - y, x], 1)
    if r == 180:
        return np.stack([Wu - 1 - x, Hu - 1 - y], 1)
    return np.stack([y, Wu - 1 - x], 1)


# ----------------------------------------------------------------------------- one photo
SIZES = [(1280, 960), (960, 1280), (1600, 1200), (800, 600)]


def scene_settings(rng):
    S = {}
    S['size'] = SIZES[int(rng.choice(4, p=[0.32, 0.3, 0.2, 0.18]))]
    S['rotation'] = int(rng.choice([0, 90, 180, 270], p=[0.55, 0.15, 0.12, 0.18]))
    S['close_up'] = rng.random() < 0.25
    S['screen'] = rng.random() < 0.15
    S['page_type'] = rng.choice(['exam', 'exam', 'worksheet', 'textbook', 'booklet'])
    if S['screen'] and S['page_type'] == 'booklet':
        S['page_type'] = 'exam'
    S['dense'] = S['page_type'] in ('exam', 'worksheet', 'textbook') and rng.random() < 0.75
    S['ncols'] = int(rng.choice([1, 2, 3], p=[0.35, 0.45, 0.2]))
    S['narrow_gutter'] = rng.random() < 0.35
    S['note_p'] = rng.choice([0.0, 0.3, 0.7])
    S['mark_p'] = rng.choice([0.0, 0.0, 0.25, 0.5])
    S['skew'] = rng.uniform(-8, 8) if rng.random() < 0.7 else rng.uniform(-1.5, 1.5)
    S['persp'] = rng.uniform(0.0, 0.06) if rng.random() < 0.7 else 0.0
    S['curl'] = None
    if not S['screen'] and rng.random() < 0.35:
        S['curl'] = (rng.choice(['left', 'right', 'top', 'bottom']), float(rng.uniform(0.01, 0.035) * S['size'][1]),
                     float(rng.uniform(0.25, 0.5)))
    S['dim'] = rng.random() < 0.15
    S['occluder'] = rng.choice([None, None, None, 'finger', 'pen'])
    S['blur'] = rng.choice([None, None, 'gauss', 'motion'])
    S['noise'] = rng.uniform(1.5, 6)
    S['jpeg'] = int(rng.integers(45, 93))
    S['offcentre'] = rng.random() < 0.5
    return S


def make_one(i, seed, bank, out_dir):
    load_fonts()
    rng = np.random.default_rng(np.random.SeedSequence([seed, i]))
    n = len(bank)
    fidx = ((i - 1) * 97 + seed) % n
    S = scene_settings(rng)
    W, H = S['size']
    r = S['rotation']
    Wu, Hu = (W, H) if r in (0, 180) else (H, W)
    maxd = max(W, H)
    found = None
    for attempt in range(60):
        hard = attempt // 12
        if S['close_up']:
            text_px = rng.uniform(40, min(60, min(Wu, Hu) / 11))
        else:
            text_px = float(np.clip(maxd * rng.uniform(0.016, 0.031) * (1 + 0.08 * hard), 16, 40))
        k = rng.uniform(1.05, 1.45)
        F = int(round(text_px * k))
        fit = 0.86 * Wu / text_px
        if S['ncols'] == 1:
            colw = rng.uniform(22, 36)
        elif S['ncols'] == 2:
            colw = rng.uniform(14, 24)
        else:
            colw = rng.uniform(10, 16)
        S['colw_em'] = max(8.0, min(colw, fit))
        S['F'] = F
        S['bar_h'] = F * rng.uniform(1.6, 2.4)
        S['pix_per'] = int(rng.integers(3, 6))
        pg = build_page(rng, bank, fidx, S, hard)
        if pg is None:
            continue
        fb = pg.framed['box']
        if S['screen']:
            # device viewport; the UI bar at its top stays clear of the framed problem
            vt = fb[1] - F * rng.uniform(1.2, 3.5) - S['bar_h']
            vl = min(fb[0] - F * rng.uniform(0.5, 3), pg.W * 0.02)
            vr = max(fb[2] + F * rng.uniform(0.5, 3), pg.W * 0.98)
            vb = fb[3] + F * rng.uniform(12, 40)
            bez = F * rng.uniform(1.0, 2.5)
            S['vp'] = (vt, vl, vr, vb, bez)
            cover = (vl - bez, vt - bez, vr + bez, vb + bez)
        else:
            cover = (0, 0, pg.W, pg.H)
        for ct in range(14):
            if S['offcentre'] and ct < 10:
                u, v = rng.uniform(-0.15, 1.15), rng.uniform(-0.25, 1.25)
                c = (fb[0] + u * (fb[2] - fb[0]), fb[1] + v * (fb[3] - fb[1]))
            else:
                c = ((fb[0] + fb[2]) / 2 + rng.normal(0, 0.04) * (fb[2] - fb[0]),
                     (fb[1] + fb[3]) / 2 + rng.normal(0, 0.04) * (fb[3] - fb[1]))
            cam = make_camera(rng, S, c, Wu, Hu, text_px, F)
            ev = evaluate(pg, cam, W, H)
            if ev is not None and coverage(cam, cover, pg.F) < 0.6:
                ev = None
            if ev is not None:
                found = (pg, cam, ev)
                break
        if found:
            break
    if not found:
        raise RuntimeError('photo %d: could not satisfy the nearest-problem rule' % i)
    pg, cam, ev = found
    kinds = []
    img, wm = render(rng, pg, cam, S, ev, W, H)
    img = add_effects(rng, img, S, ev, kinds, wm)
    stored = np.ascontiguousarray(np.rot90(img, k=-(r // 90)))
    assert stored.shape[1] == W and stored.shape[0] == H
    qid = 'z%03d' % i
    fn = qid + '.jpg'
    Image.fromarray(stored).save(os.path.join(out_dir, fn), quality=S['jpeg'])
    # ---------------- meta + kinds
    fr = pg.framed
    info = fr['info']
    hull_s = rot_points(ev['hull'], r, Wu, Hu)
    box = [int(math.floor(hull_s[:, 0].min())), int(math.floor(hull_s[:, 1].min())),
           int(math.ceil(hull_s[:, 0].max())), int(math.ceil(hull_s[:, 1].max()))]
    frame_poly = np.float32([[0, 0], [Wu, 0], [Wu, Hu], [0, Hu]])
    f_area = cv2.contourArea(ev['hull'].astype(np.float32))
    big_nb = False
    for d, e, h in ev['others'][:6]:
        a, _ = cv2.intersectConvexConvex(h.astype(np.float32), frame_poly)
        if a > f_area * 1.05:
            big_nb = True
    ctr = np.array([Wu / 2, Hu / 2])
    cent = ev['hull'].mean(0)
    off = float(np.linalg.norm(cent - ctr)) / maxd
    kinds.append('page_' + pg.P['page_type'])
    kinds.append('lang_' + pg.P['lang'])
    if S['screen']:
        kinds += ['screen_photo', 'ui_bar']
    if S['dense']:
        kinds.append('dense_spacing')
    if S['close_up']:
        kinds.append('close_up')
    kinds.append('size_%dx%d' % (W, H))
    kinds.append('rotation_%d' % r)
    if abs(S['skew']) > 2:
        kinds.append('skew')
    if S['persp'] > 0.02:
        kinds.append('perspective')
    if S['curl']:
        kinds.append('page_curl')
    kinds.append('jpeg_q%s' % ('45-59' if S['jpeg'] < 60 else '60-79' if S['jpeg'] < 80 else '80-92'))
    if ev['dF'] > 0 or off > 0.08:
        kinds.append('off_centre')
    if ev['dF'] > 0:
        kinds.append('centre_outside_framed')
    if big_nb:
        kinds.append('bigger_neighbour_in_view')
    slack = (ev['others'][0][0] - ev['dF'] - ev['margin']) if ev['others'] else 1e9
    if slack < 0.02 * maxd:
        kinds.append('tight_margin')
    nl = info['stem_lines']
    kinds.append('framed_one_line' if nl == 1 else 'framed_2_lines' if nl == 2 else 'framed_3plus_lines')
    lab = info['label']
    kinds.append('number_' + ('example' if lab.startswith(('例', 'Example')) else
                              next((k for k in NUM_STYLES if _match_style(lab, k)), 'other')))
    if info.get('note'):
        kinds.append('score_note_' + info['note'])
    if info.get('options'):
        kinds.append('options_' + info['options'])
    if info.get('subq'):
        kinds.append('subquestions_' + info['subq'])
    if info.get('figure'):
        kinds.append('figure_' + info['figure'])
    if info.get('blank'):
        kinds.append('blank_' + info['blank'])
    vis_kinds = set()
    gutter_visible = False
    vis_lines = [info['stem_lines']]
    for e in pg.els:
        if e is fr:
            continue
        b = e['box']
        pts = cam.fwd(np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]], [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]]))
        inside = (pts[:, 0] > 0) & (pts[:, 0] < Wu) & (pts[:, 1] > 0) & (pts[:, 1] < Hu)
        if inside.any():
            vis_kinds.add(e['kind'])
            if e['kind'] == 'problem':
                vis_lines.append(e['info']['stem_lines'])
                if abs(e['x0'] - fr['x0']) > 1:
                    gutter_visible = True
                if e.get('near_dup'):
                    vis_kinds.add('near_duplicate_neighbour')
    for k in ['header', 'name_line', 'section_heading', 'page_number', 'handwriting', 'teacher_mark', 'solution',
              'answer_lines', 'figure', 'near_duplicate_neighbour']:
        if k in vis_kinds:
            kinds.append(k + '_in_view')
    if pg.ncols > 1:
        kinds.append('columns_%d' % pg.ncols)
        if gutter_visible:
            kinds.append('other_column_in_view')
            if pg.gutter < 1.6 * pg.F:
                kinds.append('narrow_gutter')
    if lab.startswith(('例', 'Example')):
        kinds.append('worked_example_framed')
    if min(vis_lines) == 1 and max(vis_lines) >= 3:
        kinds.append('long_and_one_line_problems_in_view')
    if S['dense'] and pg.P['page_type'] != 'booklet' and min(fr.get('gap_ratio', 9), fr.get('gap_above_ratio', 9)) < 1.0 + 1e-9:
        kinds.append('gap_equal_to_line_gap')
    meta = dict(qid=qid, file=fn, bank_id=fr['bank_id'], width=W, height=H, rotation=r,
                box=box, hull=[[round(float(a), 1), round(float(b), 1)] for a, b in hull_s],
                framed_dist=round(ev['dF'], 2),
                nearest_others=[dict(bank_id=e['bank_id'], dist=round(d, 2)) for d, e, h in ev['others'][:3]],
                margin_ratio=MARGIN_RATIO, margin_px=round(ev['margin'], 2),
                slack_px=round(float(slack), 2) if ev['others'] else None,
                text_px=round(ev['text_px'], 1), number_label=lab, jpeg_quality=S['jpeg'],
                centre_offset_ratio=round(off, 4), kinds=kinds)
    return meta, fr['bank_id']


def _match_style(lab, k):
    pats = {'dot': r'^\d+\.$', 'fwdot': r'^\d+．$', 'paren': r'^\(\d+\)$', 'fwparen': r'^（\d+）$', 'rparen': r'^\d+\)$',
            'di_ti': r'^第\d+题$', 'circled': '^[' + CIRCLED + ']$', 'Q': r'^Q\d+$', 'Question': r'^Question \d+$',
            'cn_dun': '^[' + CN_NUM + ']、$', 'dun': r'^\d+、$'}
    return re.match(pats[k], lab) is not None


_G = {}


def _work(i):
    return make_one(i, _G['seed'], _G['bank'], _G['out'])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bank', required=True)
    ap.add_argument('out_dir')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=151)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--only', default='')
    a = ap.parse_args()
    bank = [json.loads(l) for l in open(a.bank, encoding='utf-8') if l.strip()]
    os.makedirs(a.out_dir, exist_ok=True)
    ids = list(range(1, a.count + 1))
    if a.only:
        want = {int(x) for x in a.only.split(',') if x.strip()}
        ids = [i for i in ids if i in want]
    load_fonts()
    _G.update(seed=a.seed, bank=bank, out=a.out_dir)
    t0 = time.time()
    if a.jobs > 1:
        with mp.get_context('fork').Pool(a.jobs) as pool:
            res = pool.map(_work, ids, chunksize=1)
    else:
        res = [_work(i) for i in ids]
    byid = {r['id']: r for r in bank}
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['qid', 'text'])
        for m, bid in res:
            w.writerow([m['qid'], byid[bid]['question'].replace('\n', ' ')])
    with open(os.path.join(a.out_dir, 'queries.csv'), 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for m, bid in res:
            w.writerow([m['qid'], byid[bid]['question'].replace('\n', ' '), bid, 'exact'])
    with open(os.path.join(a.out_dir, 'meta.jsonl'), 'w', encoding='utf-8') as f:
        for m, bid in res:
            f.write(json.dumps(m, ensure_ascii=False) + '\n')
    print('wrote %d photos to %s in %.1fs' % (len(res), a.out_dir, time.time() - t0), file=sys.stderr)


if __name__ == '__main__':
    main()
