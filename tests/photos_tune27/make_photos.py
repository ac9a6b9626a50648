#!/usr/bin/env python3
"""Synthetic phone photos of one printed school problem -- "an ordinary school week".

Each photo shows a printed page (exam paper, homework sheet, textbook exercise page or a
teacher's worksheet) photographed with a phone, centred on ONE problem (the "framed"
problem) whose text is a question of the bank.  The framed problem is complete and fully
inside the photo, and the photo centre lies on one of its lines.

    make_photos.py --bank PATH OUTDIR --count N --seed S [--jobs J] [--only 3,17]

Self-contained (numpy, Pillow, opencv-python, optionally fontTools for glyph coverage).
All randomness comes from numpy default_rng seeded with (seed, i, stream), so photo i
depends only on (seed, i, bank) and --only remakes photos byte for byte.
"""
import argparse
import csv
import json
import math
import multiprocessing as mp
import os
import re
import sys
import time

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# ----------------------------------------------------------------------------- randomness
STREAMS = {'perm': 1, 'slots': 2, 'page': 3, 'cap': 4, 'marks': 5, 'fx': 6, 'occ': 7,
           'noise': 8, 'facing': 9, 'content': 10, 'layout': 11}
SLOT_CYCLE = 120      # stratified kinds repeat every 120 photos


def rng_for(seed, i, stream):
    return np.random.default_rng([int(seed), int(i), STREAMS[stream]])


def pick(rng, seq, p=None):
    if p is not None:
        p = np.asarray(p, float)
        p = p / p.sum()
    return seq[int(rng.choice(len(seq), p=p))]


def U(rng, a, b):
    return float(rng.uniform(a, b))


# ----------------------------------------------------------------------------- fonts
NOTO = '/usr/share/fonts/opentype/noto/'
DJV = '/usr/share/fonts/truetype/dejavu/'
LIB = '/usr/share/fonts/truetype/liberation/'
FONT_FILES = {
    'zh_serif': (NOTO + 'NotoSerifCJK-Regular.ttc', 'SC'), 'zh_serif_b': (NOTO + 'NotoSerifCJK-Bold.ttc', 'SC'),
    'zh_sans': (NOTO + 'NotoSansCJK-Regular.ttc', 'SC'), 'zh_sans_b': (NOTO + 'NotoSansCJK-Bold.ttc', 'SC'),
    'dv_serif': DJV + 'DejaVuSerif.ttf', 'dv_serif_b': DJV + 'DejaVuSerif-Bold.ttf',
    'dv_serif_i': DJV + 'DejaVuSerif-Italic.ttf', 'dv_sans': DJV + 'DejaVuSans.ttf',
    'dv_sans_b': DJV + 'DejaVuSans-Bold.ttf', 'dv_sans_o': DJV + 'DejaVuSans-Oblique.ttf',
    'lib_serif': LIB + 'LiberationSerif-Regular.ttf', 'lib_serif_b': LIB + 'LiberationSerif-Bold.ttf',
    'lib_serif_i': LIB + 'LiberationSerif-Italic.ttf', 'lib_sans': LIB + 'LiberationSans-Regular.ttf',
    'lib_sans_b': LIB + 'LiberationSans-Bold.ttf', 'lib_sans_i': LIB + 'LiberationSans-Italic.ttf',
    'math': DJV + 'DejaVuMathTeXGyre.ttf',
}
BOLD_OF = {'zh_serif': 'zh_serif_b', 'zh_sans': 'zh_sans_b', 'zh_serif_b': 'zh_serif_b', 'zh_sans_b': 'zh_sans_b',
           'dv_serif': 'dv_serif_b', 'dv_sans': 'dv_sans_b', 'lib_serif': 'lib_serif_b', 'lib_sans': 'lib_sans_b'}
ITALIC_OF = {'dv_serif': 'dv_serif_i', 'dv_sans': 'dv_sans_o', 'lib_serif': 'lib_serif_i', 'lib_sans': 'lib_sans_i'}
FALLBACK = ['dv_serif', 'dv_sans', 'zh_sans', 'math']
_FONTS, _CMAPS, _ADV, _IDX = {}, {}, {}, {}


def font_file(key):
    spec = FONT_FILES[key]
    if isinstance(spec, str):
        return spec, 0
    path, want = spec
    if path not in _IDX:
        _IDX[path] = 0
        for k in range(12):
            try:
                name = ImageFont.truetype(path, 12, index=k).getname()[0]
            except OSError:
                break
            if name.endswith(' ' + want) and 'Mono' not in name:
                _IDX[path] = k
                break
    return path, _IDX[path]


def get_font(key, px):
    px = max(3.0, round(px * 4) / 4)
    f = _FONTS.get((key, px))
    if f is None:
        if len(_FONTS) > 400:
            _FONTS.clear()
        path, idx = font_file(key)
        f = ImageFont.truetype(path, px, index=idx, layout_engine=ImageFont.Layout.BASIC)
        _FONTS[(key, px)] = f
    return f


def has_glyph(key, ch):
    if key not in _CMAPS:
        try:
            from fontTools.ttLib import TTFont
            path, idx = font_file(key)
            _CMAPS[key] = set(TTFont(path, fontNumber=idx, lazy=True).getBestCmap())
        except Exception:          # no fontTools: trust the font
            _CMAPS[key] = None
    cm = _CMAPS[key]
    return cm is None or all(ord(c) in cm for c in ch if not c.isspace())


def pick_key(key, ch):
    if not ch or has_glyph(key, ch):
        return key
    for alt in FALLBACK:
        if has_glyph(alt, ch):
            return alt
    return key


def adv(key, s):
    """Advance width of s in em."""
    v = _ADV.get((key, s))
    if v is None:
        v = get_font(key, 100).getlength(s) / 100.0
        _ADV[(key, s)] = v
    return v


# ----------------------------------------------------------------------------- text -> units
SUP = dict(zip('⁰¹²³⁴⁵⁶⁷⁸⁹ⁿ', '0123456789n'))
SUB = dict(zip('₀₁₂₃₄₅₆₇₈₉ₙ', '0123456789n'))
CJK_OPEN = '（《“‘【〔「'
CJK_CLOSE = '）》”’】〕」，。、？！：；'
MATHY_RE = re.compile(r'[0-9=+\-×÷<>²³₀-₉ₙ√∩∪{}()/]')
VAR1 = set('xyfdqnS')
CIRCLED = '①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳'


def is_cjk(ch):
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF
            or 0x2460 <= o <= 0x2473 or ch in '℃…—★☆')


def math_italic(ch):
    if 'a' <= ch <= 'z':
        return '\u210e' if ch == 'h' else chr(0x1D44E + ord(ch) - 97)
    if 'A' <= ch <= 'Z':
        return chr(0x1D434 + ord(ch) - 65)
    return ch


def word_units(w, P, subject, lk, setops):
    """Units of one Latin 'word' (maths variables italic / maths font, scripts raised)."""
    mathy = subject == 'math' and bool(MATHY_RE.search(w) or w in VAR1 or (setops and w in ('A', 'B')))
    ms = P['math'] if mathy else 'plain'
    out = []
    for m in re.finditer(r'[A-Za-z]+|[^A-Za-z]+', w):
        run = m.group(0)
        alpha = run[0].isascii() and run[0].isalpha()
        for k, ch in enumerate(run):
            nxt = w[m.start() + k + 1] if m.start() + k + 1 < len(w) else ''
            key, disp, sc, dy = lk, ch, 1.0, 0.0
            if ch in SUP or ch in SUB:
                if P['script'] == 'raised':
                    disp = SUP.get(ch) or SUB.get(ch)
                    sc, dy = 0.62, (-0.36 if ch in SUP else 0.16)
                    if disp == 'n' and mathy and ms == 'italic':
                        key = P['fonts']['var']
            elif alpha and mathy and len(run) == 1 and (run in VAR1 or (run == 'a' and nxt in SUB)
                                                       or (setops and run in 'AB')):
                if ms == 'italic':
                    key = P['fonts']['var']
                elif ms == 'mathfont':
                    key, disp = 'math', math_italic(ch)
            elif mathy and ms == 'mathfont' and not alpha:
                key = 'math'
            key = pick_key(key, disp)
            out.append([disp, key, sc, dy, 'lat', adv(key, disp) * sc])
    return out


def text_units(text, P, subject='', bold=False):
    """Split text into drawable units [char, fontkey, scale, dy(em), role, width(em)]."""
    fs = P['fonts']
    ck = fs['cjk_b'] if bold else fs['cjk']
    lk = fs['lat_b'] if bold else fs['lat']
    has_cjk = any(is_cjk(c) for c in text)
    setops = '∩' in text or '∪' in text

    def cjkish(c):
        return is_cjk(c) or (has_cjk and c in '“”‘’')
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '_':
            j = i
            while j < n and text[j] == '_':
                j += 1
            if P['blank'] == 'line':
                out.append(['', lk, 1.0, 0.0, 'blank', P['blank_em']])
            else:
                s = '_' * max(j - i, P['us_n'])
                out.append([s, lk, 1.0, 0.0, 'lat', adv(lk, s)])
            i = j
        elif ch == ' ':
            out.append([' ', lk, 1.0, 0.0, 'sp', adv(lk, ' ')])
            i += 1
        elif cjkish(ch):
            key = pick_key(ck, ch)
            role = 'open' if ch in CJK_OPEN else 'close' if ch in CJK_CLOSE else 'cjk'
            out.append([ch, key, 1.0, 0.0, role, adv(key, ch)])
            i += 1
        else:
            j = i
            while j < n and text[j] not in ' _' and not cjkish(text[j]):
                j += 1
            out.extend(word_units(text[i:j], P, subject, lk, setops))
            i = j
    return out


def units_w(units):
    return sum(u[5] for u in units)


def atoms_of(units):
    """Group units into unbreakable atoms (Latin words, CJK chars with kinsoku glue)."""
    atoms, glue = [], False
    for u in units:
        role = u[4]
        if role == 'sp':
            atoms.append({'u': [u], 'w': u[5], 'sp': True})
            glue = False
            continue
        attach = False
        if atoms and not atoms[-1]['sp']:
            prev = atoms[-1]['u'][-1][4]
            attach = glue or role == 'close' or (role == 'lat' and prev in ('lat', 'blank'))
        if attach:
            atoms[-1]['u'].append(u)
            atoms[-1]['w'] += u[5]
        else:
            atoms.append({'u': [u], 'w': u[5], 'sp': False})
        glue = role == 'open'
    return atoms


def wrap(atoms, size, x_first, x_cont, x_right):
    lines, cur, x, sp = [], [], x_first, 0.0
    for a in atoms:
        if a['sp']:
            if cur:
                sp += a['w'] * size
            continue
        w = a['w'] * size
        if cur and x + sp + w > x_right + 1e-6:
            lines.append(cur)
            cur, x, sp = [], x_cont, 0.0
        x += sp
        sp = 0.0
        cur.append([x, a])
        x += w
    if cur:
        lines.append(cur)
    return lines


def emit_units(items, units, x, base, size, color):
    for u in units:
        ch, key, sc, dy, role, w = u
        if role == 'blank':
            items.append(('l', x + 0.1 * size, base + 0.12 * size, x + (w - 0.1) * size, base + 0.12 * size,
                          color, 0.055 * size))
        elif role != 'sp':
            items.append(('c', x, base + dy * size, ch, key, size * sc, color))
        x += w * size
    return x


def put_text(items, P, text, x, base, size, color, bold=False, align='l', x1=None, subject=''):
    u = text_units(text, P, subject=subject, bold=bold)
    w = units_w(u) * size
    if align == 'c':
        x = (x + x1 - w) / 2
    elif align == 'r':
        x = x1 - w
    emit_units(items, u, x, base, size, color)
    return x, x + w


# ----------------------------------------------------------------------------- content pools
SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'biology': '生物', 'geography': '地理',
           'history': '历史', 'chinese': '语文', 'english': '英语'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry', 'biology': 'Biology',
           'geography': 'Geography', 'history': 'History', 'chinese': 'Chinese', 'english': 'English'}
GRADE_ZH = {1: '一年级', 2: '二年级', 3: '三年级', 4: '四年级', 5: '五年级', 6: '六年级', 7: '七年级',
            8: '八年级', 9: '九年级', 10: '高一', 11: '高二', 12: '高三'}
ZH_NUM = '一二三四五六七八九十'

MC_ZH = [
    ('math', '下列各数中，最小的数是', ['−3', '0', '2', '−1']),
    ('math', '下列运算正确的是', ['a² · a³ = a⁶', '(a²)³ = a⁵', 'a⁶ ÷ a² = a⁴', '2a + 3b = 5ab']),
    ('math', '−2 的相反数是', ['2', '−2', '1/2', '−1/2']),
    ('math', '下列图形中，既是轴对称图形又是中心对称图形的是', ['等边三角形', '平行四边形', '正方形', '等腰梯形']),
    ('math', '若 a > b，则下列不等式一定成立的是', ['a − 1 < b − 1', '−2a > −2b', 'a + 3 > b + 3', 'a/2 < b/2']),
    ('math', '数据 2，3，3，5，7 的众数是', ['2', '3', '5', '7']),
    ('physics', '下列物理量中，以“牛顿”为单位的是', ['质量', '力', '压强', '功']),
    ('physics', '下列现象中，属于光的折射的是', ['小孔成像', '水中倒影', '海市蜃楼', '日食']),
    ('physics', '下列物体中，通常情况下属于导体的是', ['塑料尺', '橡皮', '铅笔芯', '玻璃杯']),
    ('chemistry', '下列物质属于纯净物的是', ['空气', '海水', '蒸馏水', '矿泉水']),
    ('chemistry', '下列变化中，属于化学变化的是', ['冰雪融化', '酒精挥发', '纸张燃烧', '矿石粉碎']),
    ('chemistry', '地壳中含量最多的元素是', ['氧', '硅', '铝', '铁']),
    ('biology', '下列细胞结构中，能控制物质进出细胞的是', ['细胞壁', '细胞膜', '细胞核', '液泡']),
    ('biology', '人体内最大的器官是', ['心脏', '肝脏', '皮肤', '肺']),
    ('geography', '世界上人口最多的大洲是', ['亚洲', '非洲', '欧洲', '南美洲']),
    ('geography', '赤道的纬度是', ['0°', '23.5°N', '66.5°N', '90°N']),
    ('history', '秦始皇统一六国的时间是', ['公元前230年', '公元前221年', '公元前206年', '公元前202年']),
    ('history', '被誉为“诗圣”的唐代诗人是', ['李白', '杜甫', '白居易', '王维']),
    ('chinese', '下列词语中没有错别字的一项是', ['再接再励', '迫不及待', '谈笑风声', '一愁莫展']),
    ('chinese', '下列加点字读音相同的一组是', ['朝阳 朝代', '快乐 音乐', '长短 成长', '重要 重量']),
    ('english', '—Would you like some tea?  —________', ['Yes, I would.', 'No, thanks.', 'Here you are.', "That's right."]),
]
MC_EN = [
    ('math', 'Which of the following is a prime number?', ['21', '27', '29', '33']),
    ('math', 'What is 15% of 80?', ['8', '12', '15', '20']),
    ('math', 'The value of 2³ is', ['5', '6', '8', '9']),
    ('math', 'If 3y = 21, then y =', ['6', '7', '8', '18']),
    ('biology', 'Which gas do plants take in during photosynthesis?', ['Oxygen', 'Nitrogen', 'Carbon dioxide', 'Hydrogen']),
    ('geography', 'Which planet is closest to the Sun?', ['Venus', 'Mercury', 'Earth', 'Mars']),
    ('geography', 'The largest continent is', ['Africa', 'Asia', 'Europe', 'Antarctica']),
    ('physics', 'Which unit is used to measure electric current?', ['volt', 'ampere', 'ohm', 'watt']),
    ('chemistry', 'Which of these is a chemical change?', ['melting ice', 'burning paper', 'cutting wood', 'boiling water']),
    ('english', 'She ___ her homework already.', ['finish', 'finishes', 'has finished', 'finishing']),
    ('english', 'Choose the correct sentence.', ["He don't like milk.", "He doesn't likes milk.", "He doesn't like milk.", 'He not like milk.']),
    ('history', 'Who wrote Romeo and Juliet?', ['Charles Dickens', 'William Shakespeare', 'Mark Twain', 'Jane Austen']),
]
FILL_ZH = ['“海内存知己”的下一句是 ______。', '植物细胞中能进行光合作用的结构是 ______。', '我国最大的淡水湖是 ______。',
           '“三顾茅庐”的故事与 ______ 有关。', '化学反应前后，原子的种类和 ______ 不变。', '电流的单位是 ______，符号是 ______。',
           '“但使龙城飞将在”的下一句是 ______。', '地球上的五带中，______ 带既没有太阳直射也没有极昼极夜。',
           '单项式 −{a}x²y 的系数是 ______。', '计算：{a} × {b} = ______。', '比较大小：−{a} ______ −{b}（填“>”或“<”）。',
           '{a} 千克 = ______ 克。', '{a}/{b} 的倒数是 ______。', '用科学记数法表示 {n}：______。']
SOLVE_ZH = ['解方程：{a}x − {b} = {c}', '计算：{a}/{b} + {c}/{d}', '先化简，再求值：(x + {a})² − x(x − {b})，其中 x = {c}。',
            '一块长方形菜地长 {a} 米，宽 {b} 米，这块菜地的面积是多少平方米？', '小明买了 {a} 支铅笔，每支 {b} 元，一共花了多少元？',
            '一列火车 {a} 小时行驶 {b}0 千米，照这样的速度，{c} 小时能行驶多少千米？',
            '一个物体重 {a} N，放在水平桌面上，与桌面的接触面积为 0.{b} m²，求它对桌面的压强。',
            '简述植物蒸腾作用的意义。', '简要说明我国南方地区与北方地区在气候上的主要差异。',
            '用所学知识解释“潭清疑水浅”中蕴含的物理现象。', '列举两项辛亥革命的历史意义。']
FILL_EN = ['Complete: {a} × {b} = ______.', 'The opposite of "hot" is ______.', 'Write 3/5 as a decimal: ______.',
           'The chemical symbol for sodium is ______.', 'Water freezes at ______ °C.', 'The capital of Japan is ______.',
           '{a} kg = ______ g', 'The plural of "mouse" is ______.', 'She ______ (be) at home last night.']
SOLVE_EN = ['Solve for x: {a}x − {b} = {c}.', 'Simplify: {a}(x + {b}) − {c}x.',
            'A rectangle is {a} cm long and {b} cm wide. Find its area.', 'Find the mean of {a}, {b}, {c} and {d}.',
            'A car travels {b}0 km in {a} hours. Find its average speed.', 'Explain why the Moon has phases.',
            'Describe two effects of the Industrial Revolution.', 'Write a sentence using the word "although".',
            'Calculate the density of a block of mass {b}0 g and volume {a} cm³.']
STEMS_ZH = [('计算下列各题：', ['{a} × {b} − {c}', '{a}.{b} + {c}.{d}', '({a}0 − {b}) × {c}', '{a}{b} ÷ {c} + {d}']),
            ('解下列方程：', ['{a}x + {b} = {c}{d}', '{a}(x − {b}) = {c}', 'x/{a} + {b} = {c}']),
            ('按要求改写句子。', ['我们打扫教室。（改为被动句）', '他的成绩不好吗？（改为陈述句）', '春天来了。（扩句）'])]
STEMS_EN = [('Work out:', ['{a}.{b} × {c}', '{a}/{b} − 1/{d}', '{a}{b} ÷ {c}']),
            ('Solve each equation.', ['{a}x + {b} = {c}{d}', 'x/{a} − {b} = {c}']),
            ('Rewrite each sentence in the past tense.', ['I walk to school.', 'They play football after class.',
                                                          'She reads a book every night.'])]
FRAMED_STEMS = {'zh': ['解答下列各题。', '回答下列问题。', '完成下列各题。', '按要求作答。'],
                'en': ['Answer the following questions.', 'Answer each question below.', 'Answer these questions.']}
HAND_ANS = {'math': ['x=5', '48', '5', '1/2', 'x=2', '26', '-3', '√3'], 'physics': ['5 m/s²', '12Ω', '20J', '3×10⁸m/s'],
            'chemistry': ['H₂O', '18', 'O₂', '10%'], 'biology': ['叶绿体', '线粒体', '23对', '细胞核'],
            'geography': ['亚洲', '约24小时', '长江', '太平洋'], 'history': ['1949年', '1840年', '唐太宗', '1911'],
            'chinese': ['李白', '王之涣', '疑是地上霜', '朱自清'], 'english': ['went', 'an', 'since', 'better', 'goes']}


def fill_template(rng, t):
    v = {k: int(rng.integers(lo, hi)) for k, lo, hi in
         (('a', 2, 10), ('b', 2, 10), ('c', 2, 10), ('d', 2, 10), ('p', 10, 90), ('q', 10, 99))}
    v['n'] = int(rng.integers(12, 99)) * 10 ** int(rng.integers(3, 6))
    return t.format(**v)


# ----------------------------------------------------------------------------- labels
def fmt_label(style, n):
    return {'dot': f'{n}.', 'fwdot': f'{n}．', 'dun': f'{n}、', 'paren': f'({n})', 'fwparen': f'（{n}）',
            'circled': CIRCLED[n - 1] if 1 <= n <= 20 else f'{n}.', 'ti': f'第{n}题', 'Q': f'Q{n}',
            'Qdot': f'Q{n}.', 'rparen': f'{n})', 'question': f'Question {n}', 'boxed': str(n), 'ring': str(n),
            'none': '', 'alpha': f'({"abcdefgh"[(n - 1) % 8]})', 'alpha_r': f'{"abcdefgh"[(n - 1) % 8]})',
            'roman': f'({["i", "ii", "iii", "iv", "v", "vi"][(n - 1) % 6]})'}[style]


LABELS_ZH = (['dot', 'fwdot', 'dun', 'fwparen', 'paren', 'circled', 'ti', 'boxed', 'ring', 'none', 'Q', 'rparen'],
             [.19, .15, .17, .06, .04, .05, .06, .08, .06, .05, .03, .03])
LABELS_EN = (['dot', 'rparen', 'paren', 'Q', 'Qdot', 'question', 'boxed', 'ring', 'none'],
             [.27, .12, .08, .10, .06, .14, .09, .06, .08])


# ----------------------------------------------------------------------------- problem layout
def lay_problem(P, spec, x0, x1, y, number, style=None):
    """Lay out one problem at (x0..x1, top y).  Returns a block dict with items and boxes."""
    size, ink = P['size'], P['ink']
    lh = P['lh'] * size
    style = style or spec.get('label_style') or P['label']
    it, rects, slots = [], [], []
    blk = {'framed': spec.get('framed', False), 'qid': spec.get('qid'), 'kind': spec['kind'],
           'level': spec.get('level', 0), 'subs': [], 'lines': []}
    base = y + 0.9 * size
    fig = spec.get('fig')
    tx1 = x1 - (fig[0] + 3 if fig else 0)
    lab = fmt_label(style, number)
    blk['label'] = lab
    lab_w, lab_box = 0.0, None
    if lab and style == 'question' and P['qline']:
        a, b = put_text(it, P, lab, x0, base, size, ink, bold=True)
        lab_box = (a, base - 0.9 * size, b, base + 0.22 * size)
        rects.append(lab_box)
        base += lh
    elif lab:
        u = text_units(lab, P, bold=P['label_bold'])
        w = units_w(u) * size
        col = ink
        if style in ('boxed', 'ring'):
            pad = 0.22 * size
            bw = max(w + 2 * pad, 1.05 * size)
            bx = (x0, base - 0.92 * size, x0 + bw, base + 0.2 * size)
            if style == 'boxed':
                if P['box_fill']:
                    it.append(('r', *bx, P['accent'], None, 0, 0.12 * size))
                    col = (255, 255, 255)
                else:
                    it.append(('r', *bx, None, ink, 0.06 * size, 0))
            else:
                cx, cy, rr = x0 + bw / 2, base - 0.36 * size, bw / 2 + 0.05 * size
                it.append(('e', cx - rr, cy - rr, cx + rr, cy + rr, P['accent'] if P['box_fill'] else ink, 0.06 * size))
            emit_units(it, u, x0 + (bw - w) / 2, base, size, col)
            w = bw + 0.1 * size
            lab_box = (x0 - 0.1 * size, base - 1.05 * size, x0 + w, base + 0.35 * size)
        else:
            emit_units(it, u, x0, base, size, col)
            lab_box = (x0, base - 0.9 * size, x0 + w, base + 0.22 * size)
        rects.append(lab_box)
        lab_w = w + (0.08 if lab[-1] in '．、）】' else 0.35) * size
    xf = x0 + lab_w
    xc = xf if (P['hang'] and lab_w) else x0 + P['cont_indent'] * size
    units = []
    score, spos = spec.get('score'), spec.get('score_pos')
    sp = [' ', P['fonts']['lat'], 1.0, 0.0, 'sp', adv(P['fonts']['lat'], ' ')]
    if score and spos == 'after_label':
        units += text_units(score, P) + [sp]
    units += text_units(spec['text'], P, subject=spec.get('subject', ''))
    if score and spos == 'end':
        units += [sp] + text_units(score, P)
    bracket = spec.get('bracket')
    br_units = text_units(P['bracket_text'], P) if bracket else []
    if bracket == 'inline':
        units += br_units
    lines = wrap(atoms_of(units), size, xf, xc, tx1)
    end_x = xf
    for li, line in enumerate(lines):
        last = li == len(lines) - 1
        if not last and P['justify'] and len(line) > 1:
            extra = tx1 - (line[-1][0] + line[-1][1]['w'] * size)
            if 0 < extra < 1.2 * size:
                for k, a in enumerate(line):
                    a[0] += extra * k / (len(line) - 1)
        for xa, a in line:
            xe = emit_units(it, a['u'], xa, base, size, ink)
        end_x = xe
        lb = (line[0][0], base - 0.9 * size, end_x, base + 0.22 * size)
        rects.append(lb)
        blk['lines'].append(lb + (base,))
        if bracket == 'inline' and last:
            bw = units_w(br_units) * size
            slots.append(('bracket', end_x - bw / 2, base))
        if not last:
            base += lh
    tail = score if (score and spos == 'right') else (P['bracket_text'] if bracket == 'right' else None)
    if tail:
        u = text_units(tail, P)
        w = units_w(u) * size
        if end_x + 1.2 * size + w > x1:
            base += lh
        emit_units(it, u, x1 - w, base, size, ink)
        tb = (x1 - w, base - 0.9 * size, x1, base + 0.22 * size)
        rects.append(tb)
        if tb[1] > blk['lines'][-1][1] + 0.1:     # the tail went onto its own line
            blk['lines'].append(tb + (base,))
        if bracket == 'right':
            slots.append(('bracket', x1 - w / 2, base))
    blk['rects'] = rects
    blk['box'] = bbox_union(rects)
    blk['end'] = (end_x, base)
    blk['xc'], blk['x1'] = xc, x1
    y_cur = base + 0.25 * size
    # multiple-choice options (neighbours only)
    opts = spec.get('options')
    if opts:
        ou = [text_units(P['opt_fmt'].format(L) + ' ' + o, P, subject=spec.get('subject', ''))
              for L, o in zip('ABCD', opts)]
        ow = max(units_w(u) for u in ou) * size + 1.5 * size
        avail = x1 - xc
        per = 4 if 4 * ow <= avail else 2 if 2 * ow <= avail else 1
        per = min(per, P['opt_per'])
        for k, u in enumerate(ou):
            if k % per == 0:
                base += lh
            emit_units(it, u, xc + (k % per) * avail / per, base, size, ink)
        y_cur = base + 0.25 * size
    # sub-questions under a stem
    for k, sub in enumerate(spec.get('subs', [])):
        sb = lay_problem(P, sub, x0 + P['sub_indent'] * size, x1, y_cur + (P['lh'] - 1.15) * size, k + 1,
                         style=P['sub_label'])
        it += sb['items']
        blk['subs'].append(sb)
        y_cur = sb['bottom']
    # answer area
    ans = spec.get('answer')
    if ans:
        kind, n = ans
        if kind == 'lines':
            for k in range(n):
                yy = y_cur + (k + 1) * lh * 1.05
                it.append(('l', xc, yy, x1, yy, P['rule'], 0.045 * size))
                slots.append(('line', xc + 1.0 * size, yy - 0.18 * size))
            y_cur += n * lh * 1.05 + 0.3 * size
        elif kind == 'prefix':
            bb = y_cur + lh * 1.0
            _, xe = put_text(it, P, '答：' if P['lang'] == 'zh' else 'Answer:', xc, bb, size, ink)
            it.append(('l', xe + 0.3 * size, bb + 0.12 * size, x1, bb + 0.12 * size, ink, 0.05 * size))
            slots.append(('line', xe + 0.8 * size, bb - 0.05 * size))
            y_cur = bb + 0.5 * size
        elif kind == 'space':
            slots.append(('space', xc + 0.5 * size, y_cur + lh * 0.8))
            y_cur += n * lh
    if fig:
        draw_figure(it, P, fig, x1 - fig[0], y + 0.3 * size)
        y_cur = max(y_cur, y + fig[1] + 0.8 * size)
    blk['slots'] = slots
    blk['items'] = it
    blk['full'] = (x0, y, x1, y_cur)
    blk['bottom'] = y_cur
    return blk


def bbox_union(rects):
    a = np.array(rects, float)
    return (float(a[:, 0].min()), float(a[:, 1].min()), float(a[:, 2].max()), float(a[:, 3].max()))


def draw_figure(it, P, fig, x, y):
    w, h, kind = fig
    ink, ls, s = P['ink'], 0.05 * P['size'], P['size'] * 0.9
    if kind == 'triangle':
        A, B, C = (x + w * 0.35, y + 0.5 * s), (x + 0.6 * s, y + h - 0.8 * s), (x + w - 0.6 * s, y + h - 0.8 * s)
        for p, q in ((A, B), (B, C), (C, A)):
            it.append(('l', *p, *q, ink, ls))
        for name, p, dx, dy in (('A', A, -0.3, -0.15), ('B', B, -0.9, 0.9), ('C', C, 0.2, 0.9)):
            put_text(it, P, name, p[0] + dx * s, p[1] + dy * s, s, ink)
    elif kind == 'rect':
        it.append(('r', x + 0.5 * s, y + 0.5 * s, x + w - 0.5 * s, y + h - 1.2 * s, None, ink, ls, 0))
        put_text(it, P, f'{int(w)} cm', x, y + h - 0.2 * s, s * 0.9, ink, align='c', x1=x + w)
    else:   # number line
        yy = y + h / 2
        it.append(('l', x, yy, x + w, yy, ink, ls))
        it.append(('l', x + w - 0.5 * s, yy - 0.3 * s, x + w, yy, ink, ls))
        for k in range(5):
            xx = x + 0.5 * s + k * (w - 1.5 * s) / 4
            it.append(('l', xx, yy - 0.25 * s, xx, yy, ink, ls))
            put_text(it, P, str(k - 2), xx - 0.25 * s, yy + 1.0 * s, s * 0.85, ink)


# ----------------------------------------------------------------------------- page style & content
def page_style(rng, kind, lang, cap):
    P = {'kind': kind, 'lang': lang}
    close = cap['shot'] == 'close'
    if kind == 'exam':
        paper = pick(rng, [('A4', 210, 297), ('A3', 420, 297)], [.7, .3])
        cols = 2 if paper[0] == 'A3' or rng.random() < (0.55 if close else 0.2) else 1
        size, lh = pick(rng, [3.7, 3.9, 4.2]), U(rng, 1.5, 1.85)
    elif kind == 'homework':
        paper = ('A4', 210, 297)
        cols = 2 if rng.random() < (0.5 if close else 0.15) else 1
        size, lh = pick(rng, [4.0, 4.2, 4.6, 4.9]), U(rng, 1.55, 1.9)
    elif kind == 'textbook':
        paper = pick(rng, [('16K', 185, 260), ('B5', 176, 250)])
        cols = 2 if rng.random() < (0.6 if close else 0.3) else 1
        size, lh = pick(rng, [3.7, 3.9, 4.2]), U(rng, 1.45, 1.75)
    else:
        paper = ('A4', 210, 297)
        cols = 2 if rng.random() < (0.4 if close else 0.15) else 1
        size, lh = pick(rng, [4.9, 5.3, 5.6, 6.3]), U(rng, 1.8, 2.3)
    P.update(paper=paper[0], pw=float(paper[1]), ph=float(paper[2]), cols=cols, size=size, lh=lh)
    P['mx'] = U(rng, 16, 24) + (12 if kind == 'exam' and rng.random() < 0.5 else 0)
    P['binding'] = P['mx'] > 27
    P['mt'], P['mb'] = U(rng, 14, 22), U(rng, 16, 24)
    P['colgap'] = U(rng, 8, 16)
    # fonts
    if lang == 'zh':
        cjk = pick(rng, ['zh_serif', 'zh_sans', 'zh_serif_b'],
                   [.3, .6, .1] if kind == 'worksheet' else [.62, .3, .08])
        lat = pick(rng, ['same', 'lib_serif', 'dv_serif', 'lib_sans', 'dv_sans'], [.3, .35, .15, .1, .1])
        lat = cjk if lat == 'same' else lat
    else:
        lat = pick(rng, ['lib_serif', 'dv_serif', 'lib_sans', 'dv_sans'], [.35, .2, .25, .2])
        cjk = pick(rng, ['zh_serif', 'zh_sans'])
    var = ITALIC_OF.get(lat, 'lib_serif_i')
    P['fonts'] = {'cjk': cjk, 'cjk_b': BOLD_OF[cjk], 'lat': lat, 'lat_b': BOLD_OF.get(lat, lat), 'var': var}
    P['math'] = pick(rng, ['plain', 'italic', 'mathfont'], [.4, .38, .22])
    P['script'] = pick(rng, ['unicode', 'raised'], [.6, .4])
    P['blank'] = pick(rng, ['line', 'underscore'])
    P['blank_em'], P['us_n'] = U(rng, 2.5, 4.5), int(rng.integers(3, 9))
    P['justify'] = lang == 'zh' and rng.random() < 0.6
    # labels
    names, probs = LABELS_ZH if lang == 'zh' else LABELS_EN
    probs = list(probs)
    if kind == 'textbook':
        probs[names.index('boxed')] *= 3
    P['label'] = pick(rng, names, probs)
    P['label_bold'] = rng.random() < 0.35
    P['qline'] = rng.random() < 0.5
    P['hang'] = rng.random() < 0.7
    P['cont_indent'] = pick(rng, [0.0, 2.0]) if lang == 'zh' else 0.0
    P['sub_label'] = pick(rng, ['paren', 'fwparen', 'circled']) if lang == 'zh' else pick(rng, ['alpha', 'alpha_r', 'paren', 'roman'])
    P['sub_indent'] = pick(rng, [1.0, 2.0])
    P['score_fmt'] = (pick(rng, ['（{}分）', '({}分)', '【{}分】']) if lang == 'zh'
                      else pick(rng, ['({} marks)', '[{}]', '({} points)', '[{} marks]']))
    P['score_pos'] = pick(rng, ['after_label', 'end', 'right'], [.4, .32, .28])
    P['bracket_text'] = pick(rng, ['（　　）', '（　　　）', '(　　)']) if lang == 'zh' else '(\u2003\u2003\u2003)'
    P['opt_fmt'] = pick(rng, ['{}.', '{}．', '{}、', '({})']) if lang == 'zh' else pick(rng, ['{}.', '({})', '{})'])
    P['opt_per'] = pick(rng, [4, 2, 1], [.55, .3, .15])
    P['gap'] = size * (U(rng, 0.8, 1.8) if kind == 'worksheet' else U(rng, 0.3, 1.1))
    P['boxes'] = kind == 'worksheet' and rng.random() < 0.35
    # colours
    g = int(rng.integers(12, 45))
    P['ink'] = (g, g + int(rng.integers(0, 6)), g + int(rng.integers(0, 10)))
    P['rule'] = (int(rng.integers(60, 140)),) * 3
    P['accent'] = pick(rng, [(30, 100, 180), (20, 130, 90), (215, 100, 30), (120, 70, 160), (200, 50, 60)])
    P['box_fill'] = kind == 'textbook' and rng.random() < 0.7
    pc = pick(rng, [(246, 245, 240), (250, 249, 244), (242, 240, 232), (248, 248, 248), (240, 242, 240)])
    P['paper_rgb'] = tuple(int(c + rng.integers(-4, 4)) for c in pc)
    P['compact'] = cap['shot'] == 'far'
    if P['compact'] and kind == 'worksheet':      # a far shot of a worksheet: smaller print, tighter rows
        P['size'], P['lh'], P['gap'] = pick(rng, [4.6, 4.9]), U(rng, 1.65, 1.9), size * U(rng, 0.3, 0.8)
    return P


class Content:
    """Makes neighbour problems: bank questions (same language, same subject preferred) and fillers."""

    def __init__(self, rng, bank, framed, page_lang, mixed):
        self.rng, self.bank, self.framed, self.mixed = rng, bank, framed, mixed
        self.lang, self.subject = page_lang, framed.get('subject', '')
        self.used = {framed['id']}
        self.texts = {b['question'] for b in bank}

    def nlang(self):
        return pick(self.rng, ['zh', 'en']) if self.mixed else self.lang

    def bank_q(self, lang):
        cands = [b for b in self.bank if b['lang'] == lang and b['id'] not in self.used]
        if not cands:
            return None
        w = np.array([3.0 if b.get('subject') == self.subject else 1.0 for b in cands])
        b = cands[int(self.rng.choice(len(cands), p=w / w.sum()))]
        self.used.add(b['id'])
        return {'kind': 'bank', 'text': b['question'], 'subject': b.get('subject', ''), 'qid': b['id']}

    def filler(self, pool, lang, subject=''):
        for k in range(16):
            tpl = pick(self.rng, pool)
            t = fill_template(self.rng, tpl)
            if t not in self.texts and (tpl not in self.used or k >= 8):   # templates repeat only when exhausted
                self.used.add(tpl)
                self.texts.add(t)
                break
        return {'kind': 'filler', 'text': t, 'subject': subject or ('math' if re.search('[0-9]x', t) else '')}

    def make(self, sect):
        r, lang = self.rng, self.nlang()
        zh = lang == 'zh'
        if sect == 'mc':
            pool = MC_ZH if zh else MC_EN
            w = np.array([3.0 if p[0] == self.subject else 1.0 for p in pool])
            subj, stem, opts = pool[int(r.choice(len(pool), p=w / w.sum()))]
            return {'kind': 'mc', 'text': stem, 'options': opts, 'subject': subj,
                    'bracket': 'right' if zh and r.random() < 0.5 else ('inline' if zh else None)}
        roll = r.random()
        if sect == 'fill':
            s = self.bank_q(lang) if roll < 0.45 else None
            s = s or self.filler(FILL_ZH if zh else FILL_EN, lang)
            if s['kind'] == 'bank' and r.random() < 0.5:
                s['answer'] = ('lines', 1)
            return s
        if sect == 'solve':
            if roll < 0.25:
                return self.stem(lang)
            s = (self.bank_q(lang) if roll < 0.65 else None) or self.filler(SOLVE_ZH if zh else SOLVE_EN, lang)
            s['answer'] = ('space', int(r.integers(1, 3))) if r.random() < 0.5 else ('lines', int(r.integers(1, 3)))
            if r.random() < 0.18 and s['kind'] == 'filler':
                s['fig'] = (U(r, 28, 40), U(r, 20, 28), pick(r, ['triangle', 'rect', 'numberline']))
                s['answer'] = ('space', 1)
            return s
        # 'list' (homework / textbook / worksheet)
        if roll < 0.12:
            return self.stem(lang)
        if roll < 0.2:
            return self.make('mc')
        s = (self.bank_q(lang) if roll < 0.72 else None) or self.filler(
            (FILL_ZH + SOLVE_ZH) if zh else (FILL_EN + SOLVE_EN), lang)
        if r.random() < 0.35:
            s['answer'] = pick(r, [('lines', 1), ('space', 1), ('prefix', 1)])
        return s

    def stem(self, lang):
        stem, subs = pick(self.rng, STEMS_ZH if lang == 'zh' else STEMS_EN)
        k = int(self.rng.integers(2, len(subs) + 1))
        idx = self.rng.permutation(len(subs))[:k]
        return {'kind': 'stem', 'text': stem, 'subject': 'math',
                'subs': [{'kind': 'sub', 'text': fill_template(self.rng, subs[j]), 'subject': 'math', 'level': 1}
                         for j in sorted(idx)]}


def framed_spec(rng, P, framed, sect):
    zh = P['lang'] == 'zh'
    s = {'kind': 'bank', 'text': framed['question'], 'subject': framed.get('subject', ''),
         'qid': framed['id'], 'framed': True}
    if rng.random() < (0.55 if P['kind'] in ('exam', 'worksheet') else 0.2):
        s['score'] = P['score_fmt'].format(int(rng.integers(2, 13)) if sect == 'solve' else int(rng.integers(2, 6)))
        s['score_pos'] = P['score_pos']
    if zh and 'score_pos' not in s and rng.random() < 0.18:
        s['bracket'] = pick(rng, ['inline', 'right'])
    roll = rng.random()
    if sect == 'solve':
        s['answer'] = pick(rng, [('space', int(rng.integers(1, 4))), ('lines', int(rng.integers(1, 4))),
                                 ('prefix', 1)], [.45, .35, .2])
    elif roll < 0.45 and 'bracket' not in s:
        s['answer'] = pick(rng, [('lines', 1), ('lines', 2), ('prefix', 1), ('space', 1)])
    return s


# ----------------------------------------------------------------------------- page composition
def is_framed(spec):
    return bool(spec.get('framed') or any(x.get('framed') for x in spec.get('subs', [])))


def section_plan(rng, P, content, framed, sub_of_stem, page_no=1, facing=False):
    """Sections [(heading, type, [specs])] with the framed problem inserted (unless facing page)."""
    zh = P['lang'] == 'zh'
    kind = P['kind']
    secs = []
    if kind == 'exam':
        first = 0 if page_no == 1 else pick(rng, [1, 2], [.7, .3])
        types = ['mc', 'fill', 'solve'][first:]
        heads_zh = {'mc': '选择题（每小题3分，共30分）', 'fill': '填空题（每小题4分，共24分）', 'solve': '解答题（共46分）'}
        heads_en = {'mc': 'Multiple Choice (3 marks each)', 'fill': 'Short Answer (4 marks each)',
                    'solve': 'Problem Solving (46 marks)'}
        for k, t in enumerate(types):
            n = ZH_NUM[k + first]
            head = f'{n}、{heads_zh[t]}' if zh else f'Part {"ABC"[k + first]}  {heads_en[t]}'
            cnt = int(rng.integers(3, 7)) if t != 'solve' else int(rng.integers(3, 7))
            secs.append([head, t, [content.make(t) for _ in range(cnt)]])
        secs[-1][2] += [content.make('solve') for _ in range(6)]
    elif kind == 'textbook':
        heads = (['复习巩固', '综合运用', '拓广探索'] if zh else ['Practice', 'Problem solving', 'Challenge'])
        nsec = int(rng.integers(1, 4))
        for k in range(nsec):
            secs.append([heads[k] if (nsec > 1 or rng.random() < 0.4) else None, 'list',
                         [content.make('list') for _ in range(int(rng.integers(4, 9)))]])
        secs[-1][2] += [content.make('list') for _ in range(10)]
    else:
        head = None
        if rng.random() < 0.3:
            head = '一、基础练习' if zh else 'A. Basic practice'
        secs.append([head, 'list', [content.make('list') for _ in range(int(rng.integers(12, 22)))]])
    if facing:
        return secs
    elig = [k for k, s in enumerate(secs) if s[1] != 'mc']
    si = elig[int(rng.integers(0, len(elig)))] if kind != 'exam' else elig[min(len(elig) - 1, int(rng.random() < 0.6))]
    fs = framed_spec(rng, P, framed, secs[si][1])
    if sub_of_stem:
        fs.pop('score', None)
        fs['level'] = 1
        sibs = [content.make('fill') for _ in range(int(rng.integers(1, 3)))]
        for sb in sibs:
            sb.pop('answer', None)
            sb['level'] = 1
        pos = int(rng.integers(0, len(sibs) + 1))
        sibs.insert(pos, fs)
        fs = {'kind': 'stem', 'text': pick(rng, FRAMED_STEMS[P['lang']]), 'subs': sibs, 'subject': ''}
    sect_specs = secs[si][2]
    k = int(rng.integers(0, min(len(sect_specs), 6) + 1))
    sect_specs.insert(k, fs)
    return secs


def header(rng, P, items, ox, meta, framed, page_no):
    """Title lines / name line / band.  Returns y below the header."""
    zh, kind, size, ink = P['lang'] == 'zh', P['kind'], P['size'], P['ink']
    x0, x1 = ox + P['mx'], ox + P['pw'] - P['mx'] * (0.75 if P['binding'] else 1)
    y = P['mt']
    subj = framed.get('subject', 'math')
    grade = int(framed.get('grade', 8) or 8)
    sz, sen = SUBJ_ZH.get(subj, '数学'), SUBJ_EN.get(subj, 'Mathematics')
    yr = int(rng.integers(2019, 2026))
    if page_no != 1 and kind in ('exam', 'homework', 'worksheet'):
        pass                                # a continuation page: no title block
    elif kind == 'exam':
        t1 = (f'{yr}—{yr + 1}学年度第{pick(rng, list("一二"))}学期{pick(rng, ["期中", "期末", "第一次月考", "单元"])}考试'
              if zh else f'{pick(rng, ["Mid-term", "End-of-term", "Unit 4", "Monthly"])} Test {yr}–{yr + 1}')
        t2 = f'{GRADE_ZH.get(grade, "八年级")}{sz}试卷' if zh else f'Grade {grade} {sen}'
        put_text(items, P, t1, x0, y + 1.1 * size, 1.1 * size, ink, bold=True, align='c', x1=x1)
        put_text(items, P, t2, x0, y + 3.0 * size, 1.6 * size, ink, bold=True, align='c', x1=x1)
        note = '（满分 100 分，考试时间 90 分钟）' if zh else 'Time: 90 minutes      Total: 100 marks'
        put_text(items, P, note, x0, y + 4.5 * size, 0.9 * size, ink, align='c', x1=x1)
        y += 5.4 * size
        if rng.random() < 0.5:
            y = score_table(items, P, (x0 + x1) / 2, y + 0.4 * size, zh) + 0.6 * size
        y = name_line(items, P, x0, x1, y, ['学校', '班级', '姓名', '考号'] if zh else ['Name', 'Class', 'Number'])
    elif kind == 'homework':
        t = (f'{sz}{pick(rng, ["家庭作业", "课时作业", "作业纸"])}（{pick(rng, ["第3课时", "第5周", "周三", "第12课"])}）'
             if zh else f'{sen} Homework {int(rng.integers(2, 20))}')
        put_text(items, P, t, x0, y + 1.4 * size, 1.35 * size, ink, bold=True,
                 align=pick(rng, ['l', 'c']), x1=x1)
        y = name_line(items, P, x0, x1, y + 2.0 * size, ['姓名', '班级', '日期'] if zh else ['Name', 'Class', 'Date'])
        items.append(('l', x0, y - 0.3 * size, x1, y - 0.3 * size, ink, 0.05 * size))
    elif kind == 'textbook':
        ch = int(rng.integers(1, 9))
        kp = (framed.get('knowledge_points') or [sz])[0] if zh else sen
        run = f'第{ZH_NUM[ch - 1]}章  {kp}' if zh else f'Chapter {ch}  {kp}'
        put_text(items, P, run, x0, y + 0.8 * size, 0.8 * size, P['accent'],
                 align='r' if meta.get('right_page') else 'l', x1=x1)
        items.append(('l', x0, y + 1.2 * size, x1, y + 1.2 * size, P['accent'], 0.08 * size))
        y += 2.2 * size
        band = (pick(rng, [f'习题 {ch}.{int(rng.integers(1, 5))}', '练习', '复习题', '练一练', '课后练习'])
                if zh else pick(rng, [f'Exercise {ch}{pick(rng, list("ABC"))}', f'Exercises {ch}.{int(rng.integers(1, 5))}', 'Review']))
        bw = (x1 - x0) if rng.random() < 0.5 else units_w(text_units(band, P, bold=True)) * 1.2 * size + 3 * size
        items.append(('r', x0, y, x0 + bw, y + 1.9 * size, P['accent'], None, 0, 0.3 * size))
        put_text(items, P, band, x0 + 1.0 * size, y + 1.35 * size, 1.2 * size, (255, 255, 255), bold=True)
        y += 2.9 * size
    elif kind == 'worksheet':
        t = (pick(rng, [f'{sz}随堂小练', '周末练习', f'{sz}练习单（{int(rng.integers(1, 20))}）', '课堂小测'])
             if zh else pick(rng, ['Weekend Practice', 'Quick Quiz', f'{sen} Worksheet {int(rng.integers(1, 20))}', 'Warm-up Sheet']))
        put_text(items, P, ('★ ' if rng.random() < 0.4 else '') + t, x0, y + 1.5 * size, 1.4 * size, ink,
                 bold=True, align='c', x1=x1)
        y = name_line(items, P, x0, x1, y + 2.4 * size, ['姓名', '得分'] if zh else ['Name', 'Score'])
    if P['binding'] and kind == 'exam':
        bx = ox + P['mx'] * 0.45
        text = '密封线内不要答题' if zh else 'DO NOT WRITE HERE'
        ya, yb = P['ph'] / 2 - 8 * size, P['ph'] / 2 - 8 * size + 1.6 * size * len(text)
        items.append(('d', bx, P['mt'], bx, ya - 1.5 * size, ink, 0.05 * size, 1.0 * size, 0.6 * size))
        items.append(('d', bx, yb, bx, P['ph'] - P['mb'], ink, 0.05 * size, 1.0 * size, 0.6 * size))
        for c in text:
            if c != ' ':
                items.append(('c', bx - 0.42 * size, ya, c, P['fonts']['cjk' if zh else 'lat'], 0.85 * size, ink))
            ya += 1.6 * size
    return y + 0.5 * size


def name_line(items, P, x0, x1, y, fields):
    size, ink = P['size'], P['ink']
    base = y + 1.3 * size
    slot = (x1 - x0) / len(fields)
    for k, f in enumerate(fields):
        _, xe = put_text(items, P, f + ('：' if P['lang'] == 'zh' else ':'), x0 + k * slot, base, size, ink)
        items.append(('l', xe + 0.2 * size, base + 0.15 * size, x0 + (k + 1) * slot - 1.2 * size,
                      base + 0.15 * size, ink, 0.05 * size))
    return base + 1.2 * size


def score_table(items, P, cx, y, zh):
    size, ink = P['size'], P['ink']
    heads = (['题号', '一', '二', '三', '总分'] if zh else ['Part', 'A', 'B', 'C', 'Total'])
    cw, chh = 3.2 * size, 1.7 * size
    x0 = cx - cw * len(heads) / 2
    for r in range(3):
        items.append(('l', x0, y + r * chh, x0 + cw * len(heads), y + r * chh, ink, 0.05 * size))
    for c in range(len(heads) + 1):
        items.append(('l', x0 + c * cw, y, x0 + c * cw, y + 2 * chh, ink, 0.05 * size))
    for c, h in enumerate(heads):
        put_text(items, P, h, x0 + c * cw, y + chh * 0.7, 0.9 * size, ink, align='c', x1=x0 + (c + 1) * cw)
    put_text(items, P, '得分' if zh else 'Score', x0, y + chh * 1.7, 0.9 * size, ink, align='c', x1=x0 + cw)
    return y + 2 * chh


def compose_page(rng, P, secs, framed, ox, page_no, meta):
    items, blocks = [], []
    size = P['size']
    y_top = header(rng, P, items, ox, meta, framed, page_no)
    left = ox + P['mx']
    right = ox + P['pw'] - P['mx'] * (0.75 if P['binding'] else 1)
    cw = (right - left - (P['cols'] - 1) * P['colgap']) / P['cols']
    cols = [(left + c * (cw + P['colgap']), left + c * (cw + P['colgap']) + cw) for c in range(P['cols'])]
    ybot = P['ph'] - P['mb'] - (1.8 * size if P['kind'] in ('exam', 'textbook') else 0)
    ci, y = 0, y_top
    num = 1 if P['label'] == 'circled' or page_no == 1 else int(rng.integers(5, 16))
    num = meta.get('n0', num)
    placed = False
    if P['cols'] == 2 and rng.random() < 0.6:
        items.append(('l', (cols[0][1] + cols[1][0]) / 2, y_top, (cols[0][1] + cols[1][0]) / 2, ybot, P['rule'], 0.04 * size))
    done = False
    for head, stype, specs in secs:
        if done:
            break
        if head:
            if y + 4 * size > ybot:
                if ci + 1 >= len(cols):
                    break
                ci, y = ci + 1, y_top
            x0, x1 = cols[ci]
            if units_w(text_units(head, P, bold=True)) * 1.05 * size > x1 - x0 - 1.5 * size:
                head = re.sub(r'\s*[（(].*[）)]$', '', head)      # too wide for the column: drop the note
            if P['kind'] == 'textbook':
                items.append(('r', x0, y + 0.35 * size, x0 + 0.6 * size, y + 0.95 * size, P['accent'], None, 0, 0))
                put_text(items, P, head, x0 + 1.0 * size, y + 1.0 * size, 1.05 * size, P['accent'], bold=True)
            else:
                put_text(items, P, head, x0, y + 1.0 * size, 1.05 * size, P['ink'], bold=True)
            y += 1.9 * size
        for spec in specs:
            if P['compact'] and spec.get('answer') and spec['answer'][0] == 'space' and not spec.get('framed'):
                spec = dict(spec, answer=('space', 1))
            blk = lay_problem(P, spec, cols[ci][0], cols[ci][1], y, num)
            if blk['bottom'] > ybot:
                if ci + 1 >= len(cols):
                    done = True
                    break
                ci, y = ci + 1, y_top
                blk = lay_problem(P, spec, cols[ci][0], cols[ci][1], y, num)
                if blk['bottom'] > ybot:
                    done = True
                    break
            if P['boxes']:
                fx0, fy0, fx1, fy1 = blk['full']
                items.append(('r', fx0 - 1.5, fy0 - 1.2, fx1 + 1.5, fy1 + 0.8, None, P['rule'], 0.25, 2.0))
            items += blk['items']
            blocks.append(blk)
            for sb in blk['subs']:
                blocks.append(sb)
            placed = placed or blk['framed'] or any(sb['framed'] for sb in blk['subs'])
            y = blk['bottom'] + (P['lh'] - 1.15) * size + P['gap'] + (1.5 if P['boxes'] else 0)
            if P['label'] != 'none':
                num += 1
    # footer
    fy = P['ph'] - P['mb'] * 0.55
    zh = P['lang'] == 'zh'
    if P['kind'] == 'exam':
        tot = page_no + int(rng.integers(1, 4))
        put_text(items, P, f'第 {page_no} 页（共 {tot} 页）' if zh else f'Page {page_no} of {tot}',
                 ox, fy, 0.85 * size, P['ink'], align='c', x1=ox + P['pw'])
    elif P['kind'] == 'textbook':
        pn = str(meta.get('page_number', 40))
        if meta.get('right_page'):
            put_text(items, P, pn, ox, fy, 1.1 * size, P['accent'], bold=True, align='r', x1=ox + P['pw'] - P['mx'])
        else:
            put_text(items, P, pn, ox + P['mx'], fy, 1.1 * size, P['accent'], bold=True)
    page = {'ox': ox, 'w': P['pw'], 'h': P['ph'], 'items': items, 'blocks': blocks, 'paper': P['paper_rgb'],
            'placed': placed, 'next_num': num}
    return page


# ----------------------------------------------------------------------------- marks (student / teacher traces)
PENS = {'blue': (28, 58, 150), 'black': (35, 35, 45), 'red': (205, 35, 40), 'pencil': (110, 110, 115)}


def hand_mark(rng, text, x, base, size, color, lang):
    n = len(text)
    jit = np.column_stack([rng.normal(0, 6, n), rng.normal(0, 0.06, n), rng.uniform(0.9, 1.15, n),
                           rng.normal(0, 0.03, n)])
    key = pick(rng, ['dv_sans_o', 'lib_sans_i', 'dv_sans']) if not any(is_cjk(c) for c in text) else 'zh_sans'
    return {'t': 'hand', 'x': x, 'base': base, 'text': text, 'size': size, 'color': color, 'key': key,
            'jit': jit.tolist(), 'slant': U(rng, -0.3, 0.05), 'wob': rng.normal(0, 1, (n, 2, 3, 3)).tolist()}


def make_marks(rng, P, page, fblk, framed):
    """Pen / pencil / highlighter traces in page coordinates.  Returns (marks, names)."""
    marks, names = [], []
    size = P['size']
    neigh = [b for b in page['blocks'] if not b['framed'] and b['kind'] != 'stem' and b['lines']]
    pen = PENS[pick(rng, ['blue', 'black', 'pencil'], [.5, .3, .2])]
    subj = framed.get('subject', 'math')
    homework_like = P['kind'] in ('homework', 'exam', 'worksheet')
    # highlighter band (under everything else)
    if rng.random() < 0.13:
        tgt = fblk if rng.random() < 0.6 or not neigh else neigh[int(rng.integers(len(neigh)))]
        lb = tgt['lines'][int(rng.integers(len(tgt['lines'])))]
        xa = lb[0] + (lb[2] - lb[0]) * U(rng, 0, 0.3)
        xb = lb[0] + (lb[2] - lb[0]) * U(rng, 0.6, 1.0)
        col = pick(rng, [(255, 240, 90), (170, 250, 150), (255, 180, 220), (150, 220, 255)])
        marks.append({'t': 'hl', 'pts': [(xa, lb[1] + 0.1 * size), (xb, lb[1] + 0.1 * size + U(rng, -.3, .3)),
                                         (xb, lb[3]), (xa, lb[3])], 'color': col})
        names.append('highlight_framed' if tgt is fblk else 'highlight_neighbour')
    # handwritten answer to the framed problem
    if rng.random() < 0.3 and homework_like:
        ans = pick(rng, HAND_ANS.get(subj, HAND_ANS['math']))
        hs = size * U(rng, 1.0, 1.35)
        slots = fblk['slots'] + [('end', fblk['end'][0] + 1.2 * size, fblk['end'][1])]
        ok = [s for s in slots if s[0] != 'end' or s[1] + len(ans) * 0.75 * hs < fblk['x1']]
        if ok:
            s = ok[int(rng.integers(len(ok)))]
            x = s[1] - (len(ans) * 0.3 * hs if s[0] == 'bracket' else 0)
            marks.append(hand_mark(rng, ans, x, s[2], hs, pen, P['lang']))
            names.append('hand_answer_' + ('below' if s[0] in ('line', 'space') else 'after'))
    # student answered some neighbours
    if rng.random() < 0.3 and homework_like:
        for b in neigh[:10]:
            if b['slots'] and rng.random() < 0.6:
                s = b['slots'][0]
                a = pick(rng, list('ABCD')) if s[0] == 'bracket' else pick(rng, HAND_ANS.get(subj, HAND_ANS['math']))
                marks.append(hand_mark(rng, a, s[1] - (0.3 * size if s[0] == 'bracket' else 0), s[2], size * 1.15, pen, P['lang']))
        names.append('hand_answers_neighbours')
    # teacher ticks / crosses
    if rng.random() < 0.2 and homework_like:
        red = PENS['red']
        for b in ([fblk] if rng.random() < 0.4 else []) + neigh[:8]:
            if rng.random() < 0.5:
                continue
            x, base = b['box'][2] + 1.0 * size, b['lines'][-1][4]
            if b is not fblk and rng.random() < 0.5:
                x = b['box'][0] - 0.2 * size
            h = size * U(rng, 1.2, 2.0)
            if rng.random() < 0.75:
                pts = [(x, base - 0.5 * h), (x + 0.35 * h, base), (x + 1.1 * h, base - 1.2 * h)]
                marks.append({'t': 'poly', 'pts': pts, 'color': red, 'w': 0.09 * size})
            else:
                marks.append({'t': 'poly', 'pts': [(x, base - h), (x + h, base)], 'color': red, 'w': 0.09 * size})
                marks.append({'t': 'poly', 'pts': [(x + h, base - h), (x, base)], 'color': red, 'w': 0.09 * size})
        names.append('teacher_ticks')
    # circle round the framed number
    lab = [r for r in fblk['rects'][:1]] if fblk.get('has_label') else []
    if lab and rng.random() < 0.14:
        x0, y0, x1, y1 = lab[0]
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        rx, ry = (x1 - x0) / 2 + 0.45 * size, (y1 - y0) / 2 + 0.35 * size
        a0 = U(rng, 0, 2 * np.pi)
        t = np.linspace(a0, a0 + 2 * np.pi * U(rng, 1.02, 1.15), 40)
        rr = 1 + 0.06 * np.sin(t * 2 + U(rng, 0, 6))
        marks.append({'t': 'poly', 'pts': list(zip(cx + rx * rr * np.cos(t), cy + ry * rr * np.sin(t))),
                      'color': pick(rng, [pen, PENS['red']]), 'w': 0.07 * size})
        names.append('circle_number')
    # underline part of the framed text
    if rng.random() < 0.13:
        lb = fblk['lines'][int(rng.integers(len(fblk['lines'])))]
        xa = lb[0] + (lb[2] - lb[0]) * U(rng, 0.0, 0.4)
        xb = lb[0] + (lb[2] - lb[0]) * U(rng, 0.55, 1.0)
        xs = np.linspace(xa, xb, 12)
        ys = lb[3] + 0.02 * size + rng.normal(0, 0.04 * size, 12).cumsum() * 0.3
        marks.append({'t': 'poly', 'pts': list(zip(xs, ys)), 'color': pen, 'w': 0.06 * size})
        names.append('underline_framed')
    # crossed-out neighbour
    if rng.random() < 0.1 and neigh:
        b = neigh[int(rng.integers(len(neigh)))]
        x0, y0, x1, y1 = b['box']
        if rng.random() < 0.5:
            marks.append({'t': 'poly', 'pts': [(x0, y0), (x1, y1)], 'color': pen, 'w': 0.08 * size})
            marks.append({'t': 'poly', 'pts': [(x0, y1), (x1, y0)], 'color': pen, 'w': 0.08 * size})
        else:
            for lb in b['lines']:
                yy = (lb[1] + lb[3]) / 2 + 0.1 * size
                marks.append({'t': 'poly', 'pts': [(lb[0], yy), (lb[2], yy + U(rng, -.4, .4))], 'color': pen,
                              'w': 0.08 * size})
        names.append('crossed_neighbour')
    return marks, names


# ----------------------------------------------------------------------------- rendering of the page plane
def render_plane(pages, clip, r, marks, screen, frects, bezel):
    x0, y0, x1, y1 = clip
    cw, ch = int(math.ceil((x1 - x0) * r)), int(math.ceil((y1 - y0) * r))
    img = Image.new('RGB', (cw, ch), (0, 0, 0))
    alpha = Image.new('L', (cw, ch), 0)
    d, da = ImageDraw.Draw(img), ImageDraw.Draw(alpha)

    def px(x, y):
        return (x - x0) * r, (y - y0) * r
    if screen:
        (bx0, by0, bx1, by1), (sx0, sy0, sx1, sy1), grey = bezel
        d.rectangle([*px(bx0, by0), *px(bx1, by1)], fill=(14, 14, 16))
        da.rectangle([*px(bx0, by0), *px(bx1, by1)], fill=255)
        d.rectangle([*px(sx0, sy0), *px(sx1, sy1)], fill=grey)
    for pg in pages:
        rect = [*px(pg['ox'], 0), *px(pg['ox'] + pg['w'], pg['h'])]
        d.rectangle(rect, fill=(255, 255, 255) if screen else pg['paper'])
        da.rectangle(rect, fill=255)
    for pg in pages:
        for itm in pg['items']:
            draw_item(d, itm, x0, y0, x1, y1, r)
    fm = Image.new('L', (cw, ch), 0)
    dm = ImageDraw.Draw(fm)
    for rx0, ry0, rx1, ry1 in frects:
        dm.rectangle([*px(rx0, ry0), *px(rx1, ry1)], fill=255)
    arr = np.array(img)
    if marks:
        draw_marks(arr, marks, x0, y0, r)
    return arr, np.array(alpha), np.array(fm)


def draw_item(d, itm, x0, y0, x1, y1, r):
    t = itm[0]
    if t == 'c':
        _, x, y, s, key, size, color = itm
        if x > x1 + 1 or y < y0 - size or y > y1 + size or x + size * len(s) < x0 - 1:
            return
        if size * r < 2.5:
            return
        d.text(((x - x0) * r, (y - y0) * r), s, font=get_font(key, size * r), fill=color, anchor='ls')
    elif t in ('l', 'd'):
        xa, ya, xb, yb, color, w = itm[1:7]
        if max(xa, xb) < x0 or min(xa, xb) > x1 or max(ya, yb) < y0 or min(ya, yb) > y1:
            return
        wpx = max(1, int(round(w * r)))
        if t == 'l':
            d.line([((xa - x0) * r, (ya - y0) * r), ((xb - x0) * r, (yb - y0) * r)], fill=color, width=wpx)
        else:
            on, off = itm[7], itm[8]
            L = math.hypot(xb - xa, yb - ya)
            k = 0.0
            while k < L:
                e = min(L, k + on)
                pa = (xa + (xb - xa) * k / L, ya + (yb - ya) * k / L)
                pb = (xa + (xb - xa) * e / L, ya + (yb - ya) * e / L)
                d.line([((pa[0] - x0) * r, (pa[1] - y0) * r), ((pb[0] - x0) * r, (pb[1] - y0) * r)], fill=color, width=wpx)
                k += on + off
    elif t == 'r':
        _, xa, ya, xb, yb, fill, outline, w, rad = itm
        if xb < x0 or xa > x1 or yb < y0 or ya > y1:
            return
        box = [(xa - x0) * r, (ya - y0) * r, (xb - x0) * r, (yb - y0) * r]
        wpx = max(1, int(round(w * r))) if outline else 0
        d.rounded_rectangle(box, radius=rad * r, fill=fill, outline=outline, width=wpx)
    elif t == 'e':
        _, xa, ya, xb, yb, outline, w = itm
        if xb < x0 or xa > x1 or yb < y0 or ya > y1:
            return
        d.ellipse([(xa - x0) * r, (ya - y0) * r, (xb - x0) * r, (yb - y0) * r], outline=outline,
                  width=max(1, int(round(w * r))))


def draw_marks(arr, marks, x0, y0, r):
    H, W = arr.shape[:2]
    for m in sorted(marks, key=lambda m: m['t'] != 'hl'):
        if m['t'] == 'hl':
            pts = ((np.array(m['pts']) - (x0, y0)) * r).astype(np.int32)
            mask = np.zeros((H, W), np.uint8)
            cv2.fillPoly(mask, [pts], 255)
            k = np.nonzero(mask)
            if len(k[0]) == 0:
                continue
            col = np.array(m['color'], np.float32) / 255.0
            sub = arr[k].astype(np.float32)
            arr[k] = np.clip(sub * (0.15 + 0.85 * col), 0, 255).astype(np.uint8)
        elif m['t'] == 'poly':
            pts = np.round((np.array(m['pts']) - (x0, y0)) * r * 16).astype(np.int32)
            cv2.polylines(arr, [pts], False, m['color'], max(1, int(round(m['w'] * r))), cv2.LINE_AA, shift=4)
        elif m['t'] == 'hand':
            draw_hand(arr, m, x0, y0, r)


def draw_hand(arr, m, x0, y0, r):
    H, W = arr.shape[:2]
    x = (m['x'] - x0) * r
    base = (m['base'] - y0) * r
    size = m['size'] * r
    col = np.array(m['color'], np.float32)
    for k, (ch, (rot, dy, sc, dx)) in enumerate(zip(m['text'], m['jit'])):
        if ch == ' ':
            x += 0.35 * size
            continue
        f = get_font(m['key'], size * sc)
        bb = f.getbbox(ch, anchor='ls')
        gw, gh = bb[2] - bb[0] + 4, bb[3] - bb[1] + 4
        g = Image.new('L', (gw, gh), 0)
        ImageDraw.Draw(g).text((2 - bb[0], 2 - bb[1]), ch, font=f, fill=255, anchor='ls')
        g = g.transform(g.size, Image.AFFINE, (1, m['slant'], -m['slant'] * gh / 2, 0, 1, 0), Image.BICUBIC)
        g = np.asarray(g.rotate(rot, Image.BICUBIC, expand=True), np.float32) / 255.0
        gh2, gw2 = g.shape
        wob = np.asarray(m['wob'][k], np.float32) * 0.045 * size          # wavy strokes, not print-straight
        mx = np.arange(gw2, dtype=np.float32)[None, :] + cv2.resize(wob[0], (gw2, gh2), interpolation=cv2.INTER_CUBIC)
        my = np.arange(gh2, dtype=np.float32)[:, None] + cv2.resize(wob[1], (gw2, gh2), interpolation=cv2.INTER_CUBIC)
        g = cv2.remap(g, mx, my, cv2.INTER_LINEAR)
        g = np.clip(g * 1.3 - 0.15, 0, 1)
        gx = int(round(x + bb[0] + dx * size - (g.shape[1] - gw) / 2))
        gy = int(round(base + bb[1] + dy * size - (g.shape[0] - gh) / 2))
        xa, ya, xb, yb = max(gx, 0), max(gy, 0), min(gx + g.shape[1], W), min(gy + g.shape[0], H)
        if xa < xb and ya < yb:
            a = g[ya - gy:yb - gy, xa - gx:xb - gx, None] * 0.92
            sub = arr[ya:yb, xa:xb].astype(np.float32)
            arr[ya:yb, xa:xb] = (sub * (1 - a) + col * a).astype(np.uint8)
        x += (f.getlength(ch) + 0.06 * size) * 1.0


# ----------------------------------------------------------------------------- camera
def rot_mat(pitch, yaw, roll):
    p, y, r = np.radians([pitch, yaw, roll])
    Rx = np.array([[1, 0, 0], [0, np.cos(p), -np.sin(p)], [0, np.sin(p), np.cos(p)]])
    Ry = np.array([[np.cos(y), 0, np.sin(y)], [0, 1, 0], [-np.sin(y), 0, np.cos(y)]])
    Rz = np.array([[np.cos(r), -np.sin(r), 0], [np.sin(r), np.cos(r), 0], [0, 0, 1]])
    return Rz @ Rx @ Ry


def camera_H(W, H, f, s, anchor, pitch, yaw, roll):
    """Homography page(mm) -> photo(px); the anchor lands on the photo centre."""
    R = rot_mat(pitch, yaw, roll)
    K = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1]])
    M = np.column_stack([R[:, 0], R[:, 1], [0, 0, f]])
    S = np.array([[s, 0, -s * anchor[0]], [0, s, -s * anchor[1]], [0, 0, 1]])
    return K @ M @ S


def project(Hm, pts):
    p = np.column_stack([np.asarray(pts, float), np.ones(len(pts))]) @ Hm.T
    return p[:, :2] / p[:, 2:3], p[:, 2]


def rect_pts(b, n=3):
    x0, y0, x1, y1 = b
    t = np.linspace(0, 1, n)
    return np.concatenate([np.column_stack([x0 + (x1 - x0) * t, np.full(n, y0)]),
                           np.column_stack([x0 + (x1 - x0) * t, np.full(n, y1)]),
                           np.column_stack([np.full(n, x0), y0 + (y1 - y0) * t]),
                           np.column_stack([np.full(n, x1), y0 + (y1 - y0) * t])])


def capture_plan(rng, slot_dev, slot_shot):
    c = {}
    if slot_dev < 7:
        c['device'] = 'screen_laptop' if slot_dev < 4 else 'screen_phone'
    elif slot_dev < 15:
        c['device'] = 'cam4000'
    elif slot_dev < 33:
        c['device'] = 'cam1600'
    else:
        c['device'] = 'cam1280'
    c['shot'] = 'far' if slot_shot < 40 else ('mid' if slot_shot < 85 else 'close')
    if c['device'].startswith('screen') and c['shot'] == 'far':
        c['shot'] = 'mid'
    land = rng.random() < {'far': 0.45, 'mid': 0.5, 'close': 0.7}[c['shot']]
    W, H = {'cam4000': (2000, 1500), 'cam1600': (1600, 1200)}.get(c['device'], (1280, 960))
    c['W'], c['H'] = (W, H) if land else (H, W)
    c['k'] = 2 if c['device'] == 'cam4000' else 1
    c['orientation'] = 'landscape' if land else 'portrait'
    c['char_px'] = {'far': U(rng, 16, 22), 'mid': U(rng, 24, 46), 'close': U(rng, 50, 80)}[c['shot']]
    t = U(rng, 0, 11) if rng.random() < 0.72 else U(rng, 11, 20)
    phi = U(rng, 0, 2 * np.pi)
    c['pitch'], c['yaw'] = t * np.cos(phi), t * np.sin(phi)
    c['tilt'] = t
    c['roll'] = float(np.clip(rng.normal(0, 3.2), -8, 8))
    c['f'] = 0.73 * max(c['W'], c['H']) * c['k'] * U(rng, 0.92, 1.2)
    c['anchor'] = pick(rng, ['first', 'middle', 'last'])
    c['ax_jit'] = U(rng, -0.15, 0.15)
    c['jpeg_q'] = int(rng.integers(60, 93))
    c['bg'] = pick(rng, ['wood', 'laminate', 'dark', 'fabric'])
    return c


# ----------------------------------------------------------------------------- photo effects
def lowres_field(rng, W, H, gh, gw, lo, hi):
    g = rng.uniform(lo, hi, (gh, gw)).astype(np.float32)
    return cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC)


def background(rng, W, H, kind):
    w, h = max(8, W // 4), max(8, H // 4)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    n1 = cv2.resize(rng.random((h // 16 + 2, w // 16 + 2)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    if kind == 'wood':
        base = np.array(pick(rng, [(150, 105, 70), (185, 140, 95), (120, 80, 55)]), np.float32)
        streak = rng.random((h, 6)).astype(np.float32)          # varies across the grain, smooth along it
        streak = cv2.resize(cv2.GaussianBlur(streak, (0, 0), sigmaX=0.1, sigmaY=1.5), (w, h), interpolation=cv2.INTER_CUBIC)
        fine = cv2.resize(rng.random((h, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        grain = 0.5 + 0.5 * np.sin(yy * U(rng, 0.05, 0.12) + streak * 9 + n1 * 3)
        img = base * (0.8 + 0.16 * grain + 0.08 * fine)[..., None]
        if rng.random() < 0.5:
            img = cv2.resize(np.ascontiguousarray(img.transpose(1, 0, 2)), (w, h))
    elif kind == 'laminate':
        base = np.array(pick(rng, [(215, 215, 210), (200, 205, 200), (225, 220, 205)]), np.float32)
        img = base * (0.93 + 0.1 * n1)[..., None]
    elif kind == 'dark':
        base = np.array(pick(rng, [(55, 55, 60), (40, 45, 55), (70, 60, 55)]), np.float32)
        img = base * (0.85 + 0.3 * n1)[..., None]
    else:
        base = np.array(pick(rng, [(70, 90, 130), (120, 60, 60), (90, 110, 90)]), np.float32)
        weave = 0.5 + 0.25 * (np.sin(xx * 2.1) + np.sin(yy * 2.1))
        img = base * (0.85 + 0.12 * weave + 0.1 * n1)[..., None]
    return cv2.resize(img, (W, H), interpolation=cv2.INTER_LINEAR)


def occluder(rng, W, H, fbox, kind):
    """Finger or pen entering from an edge; never overlapping the framed box."""
    m = min(W, H)
    fx0, fy0, fx1, fy1 = fbox
    pad = 0.02 * m
    for _ in range(12):
        side = pick(rng, ['bottom', 'left', 'right', 'top'], [.4, .22, .22, .16])
        t = U(rng, 0.1, 0.9)
        ang = np.radians(rng.normal(0, 18))
        if kind == 'finger':
            width, length = U(rng, 0.1, 0.16) * m, U(rng, 0.12, 0.3) * m
        else:
            width, length = U(rng, 0.022, 0.038) * m, U(rng, 0.25, 0.6) * m
        p0 = {'bottom': (t * W, H + width), 'top': (t * W, -width), 'left': (-width, t * H), 'right': (W + width, t * H)}[side]
        nrm = {'bottom': (0, -1), 'top': (0, 1), 'left': (1, 0), 'right': (-1, 0)}[side]
        d = np.array([nrm[0] * np.cos(ang) - nrm[1] * np.sin(ang), nrm[0] * np.sin(ang) + nrm[1] * np.cos(ang)])
        p1 = np.array(p0) + d * (length + width)
        mask = np.zeros((H, W), np.uint8)
        cv2.line(mask, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 255, int(width), cv2.LINE_AA)
        cv2.circle(mask, tuple(int(v) for v in p1), int(width / 2), 255, -1, cv2.LINE_AA)
        if kind == 'pen':
            tip = p1 + d * width * 1.6
            q = np.array([p1 + np.array([-d[1], d[0]]) * width / 2, p1 - np.array([-d[1], d[0]]) * width / 2, tip])
            cv2.fillConvexPoly(mask, q.astype(np.int32), 255, cv2.LINE_AA)
        if mask[max(0, int(fy0 - pad)):int(fy1 + pad), max(0, int(fx0 - pad)):int(fx1 + pad)].any():
            continue
        if mask.sum() < 255 * 0.004 * W * H:
            continue
        return mask, side, p1, d, width
    return None


def composite_occluder(rng, img, occ, kind):
    mask, side, tip, d, width = occ
    H, W = mask.shape
    m = mask.astype(np.float32) / 255.0
    if kind == 'finger':
        m = cv2.GaussianBlur(m, (0, 0), max(1.0, width * 0.06))
        inner = cv2.GaussianBlur(m, (0, 0), width * 0.25)
        col = np.array(pick(rng, [(224, 172, 150), (200, 150, 120), (170, 120, 95), (235, 190, 170)]), np.float32)
        shade = (0.55 + 0.5 * inner)[..., None]
        layer = col * shade
    else:
        sh = cv2.GaussianBlur(np.roll(m, (int(width * 0.5), int(width * 0.4)), (0, 1)), (0, 0), width * 0.5)
        img *= (1 - 0.35 * sh)[..., None]
        col = np.array(pick(rng, [(30, 40, 110), (25, 25, 30), (230, 230, 235), (180, 30, 40)]), np.float32)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        nrm = np.array([-d[1], d[0]])
        dist = ((xx - tip[0]) * nrm[0] + (yy - tip[1]) * nrm[1]) / (width / 2)
        shade = np.clip(0.75 + 0.25 * np.cos(np.clip(dist, -1.5, 1.5) * 1.3) + 0.35 * np.exp(-((dist + 0.4) / 0.18) ** 2), 0.3, 1.4)
        layer = col * shade[..., None]
        m = cv2.GaussianBlur(m, (0, 0), 1.2)
    a = m[..., None]
    return img * (1 - a) + layer * a


def curl_remap(rgba, fmask, clip, r, curl):
    """Bend the page near a book spine (compression into the gutter, line bending, shading)."""
    x0, y0 = clip[0], clip[1]
    h, w = rgba.shape[:2]
    X = (np.arange(w, dtype=np.float32) / r + x0)[None, :]
    Y = (np.arange(h, dtype=np.float32) / r + y0)[:, None]
    dist = np.abs(X - curl['x'])
    t = np.clip(1 - dist / curl['D'], 0, 1)
    u = dist + curl['a'] * curl['D'] * t ** 2
    xs = curl['x'] + np.sign(X - curl['x'] + 1e-6) * u
    ys = curl['yc'] + (Y - curl['yc']) * (1 + curl['b'] * t ** 2)
    mapx = np.broadcast_to((xs - x0) * r, (h, w)).astype(np.float32)
    mapy = ((ys - y0) * r).astype(np.float32)
    mapy = np.broadcast_to(mapy, (h, w)).astype(np.float32)
    out = cv2.remap(rgba, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    fm = cv2.remap(fmask, mapx, mapy, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    shade = (1 - curl['k'] * t ** 2.2).astype(np.float32)
    out[..., :3] = (out[..., :3].astype(np.float32) * shade[..., None]).astype(np.uint8)
    return out, fm


def curl_forward(pts, curl):
    """Where page points appear after curl_remap (inverse of its mapping), for fitting the camera."""
    pts = np.array(pts, float)
    if not curl:
        return pts
    d = np.abs(pts[:, 0] - curl['x'])
    a, D = curl['a'], curl['D']
    inz = d < D
    t = np.zeros_like(d)
    c = 1 - d[inz] / D
    t[inz] = (1 - np.sqrt(np.clip(1 - 4 * a * c, 0, None))) / (2 * a) if a > 1e-6 else c
    dd = np.where(inz, D * (1 - t), d)
    out = pts.copy()
    out[:, 0] = curl['x'] + np.sign(pts[:, 0] - curl['x'] + 1e-6) * dd
    out[:, 1] = curl['yc'] + (pts[:, 1] - curl['yc']) / (1 + curl['b'] * t ** 2)
    return out


def subpixel_screen(rgb):
    big = np.repeat(np.repeat(rgb, 3, 0), 3, 1).astype(np.float32)
    h, w = big.shape[:2]
    pat = np.full((3, 3, 3), 0.45, np.float32)
    for c in range(3):
        pat[:, c, c] = 1.0
    pat[2, :, :] *= 0.8
    tile = np.tile(pat, (h // 3, w // 3, 1))
    return np.clip(big * tile * 1.6, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------- one photo
def make_photo(bank, seed, i, outdir):
    n = len(bank)
    perm = rng_for(seed, 0, 'perm').permutation(n)
    framed = bank[int(perm[(i - 1) % n])]
    rs = rng_for(seed, 0, 'slots')
    slots = [int(rs.permutation(SLOT_CYCLE)[(i - 1) % SLOT_CYCLE]) for _ in range(3)]
    rc, rp, rm, rf = rng_for(seed, i, 'cap'), rng_for(seed, i, 'page'), rng_for(seed, i, 'marks'), rng_for(seed, i, 'fx')
    cap = capture_plan(rc, slots[0], slots[2])
    screen = cap['device'].startswith('screen')
    kind = ['exam', 'homework', 'textbook', 'worksheet'][np.searchsorted([36, 66, 96, 120], slots[1], side='right')]
    lang = framed['lang']
    mixed = rp.random() < 0.1
    P = page_style(rp, kind, lang, cap)
    if mixed and rp.random() < 0.5:
        P['lang'] = 'en' if lang == 'zh' else 'zh'      # headings in the other language
        P['fonts']['cjk'], P['fonts']['cjk_b'] = 'zh_serif', 'zh_serif_b'
    content = Content(rng_for(seed, i, 'content'), bank, framed, lang, mixed)
    sub_of_stem = kind != 'worksheet' and rp.random() < 0.08
    spread = not screen and (kind == 'textbook' and rp.random() < 0.55 or kind == 'homework' and rp.random() < 0.12)
    right_page = rp.random() < 0.5
    page_number = int(rp.integers(8, 180)) * 2 + (1 if right_page else 0)
    # page layout; move the framed problem earlier until it lands on the page
    page_no = 1 if rp.random() < 0.7 else 2
    meta = {'right_page': right_page, 'page_number': page_number}
    secs = section_plan(rp, P, content, framed, sub_of_stem, page_no)
    for attempt in range(12):
        page = compose_page(rng_for(seed, i, 'layout'), P, secs, framed, 0.0, page_no, meta)
        if page['placed']:
            break
        si = next(k for k, sc in enumerate(secs) if any(is_framed(sp) for sp in sc[2]))
        fi = next(k for k, sp in enumerate(secs[si][2]) if is_framed(sp))
        if si > 0:
            secs.pop(0)                       # drop a whole earlier section
        elif fi > 0:
            del secs[si][2][:max(1, fi // 2)]  # drop neighbours before the framed problem
        else:
            fspec = [sp for sp in secs[si][2] if is_framed(sp)][0]
            fspec.pop('answer', None)
            fspec.pop('fig', None)
    pages = [page]
    fblk = [b for b in page['blocks'] if b['framed']][0]
    fblk['has_label'] = P['label'] != 'none' if fblk['level'] == 0 else True
    curl = None
    if spread:
        rfc = rng_for(seed, i, 'facing')
        ox = -P['pw'] if right_page else P['pw']
        fcontent = Content(rfc, bank, framed, lang, mixed)
        fsecs = section_plan(rfc, P, fcontent, framed, False, 1, facing=True)
        pages.append(compose_page(rfc, P, fsecs, framed, ox, 1, {'right_page': not right_page,
                                                               'page_number': page_number + (-1 if right_page else 1)}))
        inner = P['mx'] if right_page else P['mx']
        D = U(rp, 22, 42)
        curl = {'x': 0.0 if right_page else P['pw'], 'D': D, 'a': min(U(rp, 0.2, 0.45), (inner - 3) / D),
                'b': U(rp, 0.02, 0.07), 'k': U(rp, 0.25, 0.55), 'yc': 0.0}
    marks, mark_names = ([], []) if screen else make_marks(rm, P, page, fblk, framed)
    size = P['size']
    # camera: anchor on the framed problem's first / middle / last line
    lines = fblk['lines']
    li = {'first': 0, 'middle': len(lines) // 2, 'last': len(lines) - 1}[cap['anchor']]
    bx0, by0, bx1, by1 = fblk['box']
    anchor = ((bx0 + bx1) / 2 + cap['ax_jit'] * (bx1 - bx0), (lines[li][1] + lines[li][3]) / 2)
    if curl:
        curl['yc'] = anchor[1]
    SW, SH, k = cap['W'] * cap['k'], cap['H'] * cap['k'], cap['k']
    s = cap['char_px'] * k / size
    margin = (0.035 + (0.01 if curl else 0)) * min(SW, SH)
    for _ in range(80):
        Hm = camera_H(SW, SH, cap['f'], s, anchor, cap['pitch'], cap['yaw'], cap['roll'])
        q, w = project(Hm, curl_forward(rect_pts(fblk['box'], 6), curl))
        if (w > 0).all() and q[:, 0].min() > margin and q[:, 1].min() > margin and \
                q[:, 0].max() < SW - margin and q[:, 1].max() < SH - margin:
            break
        s *= 0.95
    char_px = s * size / k
    # visible page region
    Hinv = np.linalg.inv(Hm)
    e = 0.03 * max(SW, SH)
    cq, _ = project(Hinv, [(-e, -e), (SW + e, -e), (SW + e, SH + e), (-e, SH + e)])
    lo_x = min(p['ox'] for p in pages)
    hi_x = max(p['ox'] + p['w'] for p in pages)
    bezel = None
    if screen:
        lap = cap['device'] == 'screen_laptop'
        m_side = U(rf, 8, 30) if lap else U(rf, 1, 3)
        sx0, sx1 = -m_side, P['pw'] + m_side
        sh = (sx1 - sx0) * (U(rf, 0.6, 0.66) if lap else U(rf, 1.9, 2.2))
        sy0 = min(max(anchor[1] - sh * U(rf, 0.3, 0.7), -10), P['ph'] + 10 - sh)
        bw = (sx1 - sx0) * (0.025 if lap else 0.04)
        grey = pick(rf, [(82, 86, 89), (230, 230, 230), (50, 50, 52)])
        bezel = ((sx0 - bw, sy0 - bw, sx1 + bw, sy0 + sh + bw), (sx0, sy0, sx1, sy0 + sh), grey)
        lo_x, hi_x = sx0 - bw, sx1 + bw
        lo_y, hi_y = sy0 - bw, sy0 + sh + bw
    else:
        lo_y, hi_y = 0.0, P['ph']
    pad = 12.0 if curl else 2.0
    clip = [max(cq[:, 0].min() - pad, lo_x - 1), max(cq[:, 1].min() - pad, lo_y - 1),
            min(cq[:, 0].max() + pad, hi_x + 1), min(cq[:, 1].max() + pad, hi_y + 1)]
    if screen:
        r_screen = s / U(rf, 1.1, 2.2)
        r = r_screen
    else:
        r = s * 1.25
    max_px = (15e6 if k == 2 else 9e6) / (9 if screen else 1)
    area = (clip[2] - clip[0]) * (clip[3] - clip[1]) * r * r
    if area > max_px:
        r *= math.sqrt(max_px / area)
    frects = fblk['rects']
    rgb, alpha, fmask = render_plane(pages, clip, r, marks, screen, frects, bezel)
    rgba = np.dstack([rgb, alpha])
    if curl:
        rgba, fmask = curl_remap(rgba, fmask, clip, r, curl)
    if screen:
        rgba = np.dstack([subpixel_screen(rgba[..., :3]), np.repeat(np.repeat(rgba[..., 3], 3, 0), 3, 1)])
        fmask = np.repeat(np.repeat(fmask, 3, 0), 3, 1)
        r *= 3
    elif r / s > 1.1:
        rgba[..., :3] = cv2.GaussianBlur(rgba[..., :3], (0, 0), 0.42 * r / s)
    A = np.array([[1 / r, 0, clip[0]], [0, 1 / r, clip[1]], [0, 0, 1]])
    Ht = Hm @ A
    warped = cv2.warpPerspective(rgba, Ht, (SW, SH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    fw = cv2.warpPerspective(fmask, Ht, (SW, SH), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)
    W, H = cap['W'], cap['H']
    if k != 1:
        warped = cv2.resize(warped, (W, H), interpolation=cv2.INTER_AREA)
        fw = cv2.resize(fw, (W, H), interpolation=cv2.INTER_AREA)
    ys, xs = np.nonzero(fw > 100)
    fbox = (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max()))
    quad = cv2.boxPoints(cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32)))
    # compose with the desk / screen surroundings
    a = warped[..., 3:4].astype(np.float32) / 255.0
    bg = background(rf, W, H, 'dark' if screen else cap['bg'])
    shadow = cv2.GaussianBlur(a[..., 0], (0, 0), 0.012 * W)
    shadow = cv2.warpAffine(shadow, np.float32([[1, 0, U(rf, -8, 8)], [0, 1, U(rf, 2, 12)]]), (W, H))
    bg *= (1 - 0.45 * shadow)[..., None]
    img = warped[..., :3].astype(np.float32) * a + bg * (1 - a)
    fx = {}
    # finger / pen at an edge (never on the framed problem)
    ro = rng_for(seed, i, 'occ')
    fx['occluder'], fx['occluder_overlap_px'] = 'none', 0
    if ro.random() < 0.2:
        okind = pick(ro, ['finger', 'pen'], [.6, .4])
        occ = occluder(ro, W, H, fbox, okind)
        if occ:
            img = composite_occluder(ro, img, occ, okind)
            fx['occluder'] = f'{okind}_{occ[1]}'
            fx['occluder_overlap_px'] = int((occ[0][fbox[1]:fbox[3] + 1, fbox[0]:fbox[2] + 1] > 20).sum())
    # light: uneven field + vignette + optional phone shadow
    yy, xx = np.mgrid[0:H:8, 0:W:8].astype(np.float32)
    lw, lh = xx.shape[1], xx.shape[0]
    strength = U(rf, 0.05, 0.25)
    field = lowres_field(rf, lw, lh, 3, 4, 1 - strength, 1.0)
    g = U(rf, -0.15, 0.15), U(rf, -0.15, 0.15)
    field *= 1 + g[0] * (xx / W - 0.5) + g[1] * (yy / H - 0.5)
    field *= 1 - U(rf, 0.05, 0.3) * (((xx / W - 0.5) ** 2 + (yy / H - 0.5) ** 2) * 2)
    fx['light'] = f'uneven{strength:.2f}'
    fx['phone_shadow'] = 'none'
    if not screen and rf.random() < 0.25:
        sm = np.zeros((lh, lw), np.float32)
        side = pick(rf, ['left', 'right', 'top', 'bottom'])
        depth = U(rf, 0.15, 0.4)
        cx = U(rf, 0.2, 0.8)
        if side in ('left', 'right'):
            x_a = 0 if side == 'left' else int(lw * (1 - depth))
            cv2.rectangle(sm, (x_a, int(lh * (cx - 0.3))), (x_a + int(lw * depth), int(lh * (cx + 0.3))), 1.0, -1)
        else:
            y_a = 0 if side == 'top' else int(lh * (1 - depth))
            cv2.rectangle(sm, (int(lw * (cx - 0.3)), y_a), (int(lw * (cx + 0.3)), y_a + int(lh * depth)), 1.0, -1)
        sm = cv2.GaussianBlur(sm, (0, 0), lw * 0.05)
        kk = U(rf, 0.2, 0.4)
        field *= 1 - kk * sm
        fx['phone_shadow'] = side
    field = cv2.resize(field, (W, H), interpolation=cv2.INTER_LINEAR)
    img *= field[..., None]
    # colour cast
    cast = pick(rf, ['neutral', 'warm', 'cool'], [.5, .3, .2])
    gains = {'neutral': (1.0, 1.0, 1.0), 'warm': (1.05, 1.0, 0.87), 'cool': (0.93, 0.98, 1.05)}[cast]
    gains = np.array(gains, np.float32) * np.array([U(rf, 0.97, 1.03) for _ in range(3)], np.float32) * U(rf, 0.9, 1.06)
    img *= gains
    fx['cast'] = cast
    if screen:
        bl = U(rf, 20, 45)
        img = bl + img * (1 - bl / 300) * np.array([0.92, 0.97, 1.06], np.float32)
        gx, gy = U(rf, 0.1, 0.9) * W, pick(rf, [U(rf, 0.05, 0.3), U(rf, 0.7, 0.95)]) * H
        yy2, xx2 = np.mgrid[0:H:4, 0:W:4].astype(np.float32)
        glare = np.exp(-(((xx2 - gx) / (U(rf, 0.15, 0.35) * W)) ** 2 + ((yy2 - gy) / (U(rf, 0.08, 0.2) * H)) ** 2))
        img += cv2.resize(glare, (W, H))[..., None] * U(rf, 35, 80)
        fx['glare'] = 'yes'
    # optics: slight blur for a few, phone sharpening for all
    blur = 'none'
    if rf.random() < 0.12:
        if rf.random() < 0.6:
            sg = U(rf, 0.9, 1.5)
            img = cv2.GaussianBlur(img, (0, 0), sg)
            blur = f'gauss{sg:.1f}'
        else:
            L = int(rf.integers(3, 7))
            kern = np.zeros((L, L), np.float32)
            kern[L // 2, :] = 1.0 / L
            kern = cv2.warpAffine(kern, cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5), U(rf, 0, 180), 1.0), (L, L))
            img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
            blur = f'motion{L}'
    else:
        img = cv2.GaussianBlur(img, (0, 0), U(rf, 0.35, 0.6) if not screen else U(rf, 0.6, 0.9))
    amt = U(rf, 0.2, 0.7)
    img = img * (1 + amt) - cv2.GaussianBlur(img, (0, 0), 1.6) * amt
    rn = rng_for(seed, i, 'noise')
    sigma = U(rn, 1.2, 3.5)
    img += (rn.standard_normal((H, W)).astype(np.float32) * sigma)[..., None]
    out = np.clip(img, 0, 255).astype(np.uint8)
    qid = f'u{i:03d}'
    Image.fromarray(out).save(os.path.join(outdir, qid + '.jpg'), quality=cap['jpeg_q'])
    # bookkeeping
    cx, cy = W / 2, H / 2
    Hf = np.diag([1 / k, 1 / k, 1]) @ Hm
    others, n_view, n_full, nearest = [], 0, 0, 1e9
    for pg in pages:
        for b in pg['blocks']:
            if b is fblk:
                continue
            q, w = project(Hf, rect_pts(b['box'], 4))
            if not (w > 0).all():
                continue
            inside = (q[:, 0] >= 0) & (q[:, 0] < W) & (q[:, 1] >= 0) & (q[:, 1] < H)
            if b['level'] == 0 and inside.any():
                n_view += 1
                n_full += bool(inside.all())
            hull = cv2.convexHull(q.astype(np.float32))
            nearest = min(nearest, max(0.0, -cv2.pointPolygonTest(hull, (cx, cy), True)))
    row = {
        'qid': qid, 'expected_id': framed['id'], 'seed': seed, 'q_lang': lang,
        'page_lang': 'mixed' if mixed else lang, 'page_kind': kind, 'paper': P['paper'], 'columns': P['cols'],
        'spread': 'yes' if spread else 'no', 'body_size_mm': f'{size:.1f}', 'line_spacing': f'{P["lh"]:.2f}',
        'font_cjk': P['fonts']['cjk'], 'font_latin': P['fonts']['lat'], 'math_style': P['math'],
        'script_style': P['script'], 'blank_style': P['blank'],
        'number_style': P['sub_label'] if fblk['level'] else P['label'],
        'label_bold': int(P['label_bold']), 'sub_of_stem': int(bool(fblk['level'])),
        'score_note': fblk_score(secs) or '', 'score_pos': (fblk_spec(secs) or {}).get('score_pos', '') if fblk_score(secs) else '',
        'answer_style': answer_desc(fblk_spec(secs)), 'framed_lines': len(lines),
        'n_blocks_page': sum(len(p['blocks']) for p in pages),
        'marks': '+'.join(mark_names) or 'none', 'photo_w': W, 'photo_h': H,
        'sensor': f'{W}x{H}' if k == 1 else ('4000x3000' if W > H else '3000x4000'),
        'device': cap['device'], 'orientation': cap['orientation'], 'shot': cap['shot'],
        'shot_actual': 'far' if char_px < 24 else 'mid' if char_px < 48 else 'close',
        'char_px': f'{char_px:.1f}', 'anchor_line': cap['anchor'], 'tilt_deg': f'{cap["tilt"]:.1f}',
        'pitch_deg': f'{cap["pitch"]:.1f}', 'yaw_deg': f'{cap["yaw"]:.1f}', 'roll_deg': f'{cap["roll"]:.1f}',
        'focal_px': f'{cap["f"] / k:.0f}', 'curl': ('spine_left' if right_page else 'spine_right') if curl else 'none',
        'light': fx['light'], 'phone_shadow': fx['phone_shadow'], 'cast': cast, 'blur': blur,
        'jpeg_q': cap['jpeg_q'], 'occluder': fx['occluder'], 'occluder_overlap_px': fx['occluder_overlap_px'],
        'screen': cap['device'].replace('screen_', '') if screen else 'none',
        'background': 'screen_bezel' if screen else cap['bg'],
        'box_x0': fbox[0], 'box_y0': fbox[1], 'box_x1': fbox[2], 'box_y1': fbox[3],
        'box_quad': ';'.join(f'{x:.0f} {y:.0f}' for x, y in quad),
        'centre_in_box': int(fbox[0] <= cx <= fbox[2] and fbox[1] <= cy <= fbox[3]),
        'nearest_other_px': f'{nearest:.0f}' if nearest < 1e9 else '', 'n_in_view': n_view, 'n_full_in_view': n_full,
        'label_text': fblk['label'], 'page_no': page_no,
    }
    return row, framed


def fblk_spec(secs):
    for s in secs:
        for sp in s[2]:
            if sp.get('framed'):
                return sp
            for x in sp.get('subs', []):
                if x.get('framed'):
                    return x
    return None


def fblk_score(secs):
    sp = fblk_spec(secs)
    return sp.get('score') if sp else None


def answer_desc(sp):
    if not sp:
        return ''
    parts = []
    if sp.get('bracket'):
        parts.append('bracket_' + sp['bracket'])
    if sp.get('answer'):
        parts.append(f'{sp["answer"][0]}{sp["answer"][1]}')
    return '+'.join(parts) or 'none'


# ----------------------------------------------------------------------------- driver
_BANK = None


def _init(bank):
    global _BANK
    _BANK = bank


def _work(args):
    seed, i, outdir = args
    row, framed = make_photo(_BANK, seed, i, outdir)
    return i, row, framed


def load_bank(path):
    bank = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                o = json.loads(line)
                o['lang'] = 'zh' if re.search('[\u4e00-\u9fff]', o['question']) else 'en'
                bank.append(o)
    return bank


def write_csv(path, header, rows, only_ids=None):
    """Write rows (dicts keyed by header).  With only_ids, merge into an existing file."""
    keep = []
    if only_ids is not None and os.path.exists(path):
        with open(path, encoding='utf-8', newline='') as f:
            keep = [r for r in csv.DictReader(f) if r['qid'] not in only_ids]
    allrows = sorted(keep + rows, key=lambda r: r['qid'])
    with open(path, 'w', encoding='utf-8', newline='') as f:
        w = csv.DictWriter(f, fieldnames=header, lineterminator='\n')
        w.writeheader()
        for r in allrows:
            w.writerow({h: r.get(h, '') for h in header})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--bank', required=True)
    ap.add_argument('outdir')
    ap.add_argument('--count', type=int, required=True)
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--only', default='')
    a = ap.parse_args(argv)
    bank = load_bank(a.bank)
    os.makedirs(a.outdir, exist_ok=True)
    ids = [int(x) for x in a.only.split(',') if x.strip()] if a.only else list(range(1, a.count + 1))
    ids = [i for i in ids if 1 <= i <= a.count]
    t0 = time.time()
    jobs = [(a.seed, i, a.outdir) for i in ids]
    if a.jobs > 1:
        with mp.get_context('fork').Pool(a.jobs, initializer=_init, initargs=(bank,)) as pool:
            res = list(pool.imap_unordered(_work, jobs, chunksize=1))
    else:
        _init(bank)
        res = [_work(j) for j in jobs]
    res.sort(key=lambda t: t[0])
    only = {f'u{i:03d}' for i in ids} if a.only else None
    rows = [r for _, r, _ in res]
    write_csv(os.path.join(a.outdir, 'truth.csv'), ['qid', 'text'],
              [{'qid': r['qid'], 'text': fr['question']} for _, r, fr in res], only)
    write_csv(os.path.join(a.outdir, 'queries.csv'), ['qid', 'query', 'expected_id', 'kind'],
              [{'qid': r['qid'], 'query': fr['question'], 'expected_id': fr['id'], 'kind': 'exact'}
               for _, r, fr in res], only)
    write_csv(os.path.join(a.outdir, 'cases.csv'), list(rows[0].keys()), rows, only)
    print(f'wrote {len(rows)} photos to {a.outdir} in {time.time() - t0:.1f}s')


if __name__ == '__main__':
    main()
