#!/usr/bin/env python3
"""Synthetic phone photos of ONE printed homework problem (already worked on and marked).

Usage:
  .venv/bin/python tests/photos_tune43/make_photos.py --bank appliance/data/demo_bank.jsonl OUT_DIR \
      --count 120 --seed 441 [--manifest M.jsonl] [--workers 2]

Writes OUT_DIR/hm001.jpg ... (1280x960 or 960x1280), truth.csv (qid,text), queries.csv
(qid,query,expected_id,kind) and optionally a JSON-lines manifest listing the cases that are
really visible in each frame.  Deterministic for a given seed (each photo has its own RNG stream,
so the worker count does not change the output).

The target problem's words are a bank question printed exactly; everything that makes the photo
hard (neighbouring problems, student writing, teacher marks, objects, camera and light) is kept
off the target's words by a keep-out mask, and a final contrast check on the target lines rejects
a shot that would make them illegible (it is retaken with gentler effects).
"""
import argparse
import csv
import json
import math
import os
import re
import sys
import time
from functools import lru_cache

os.environ.setdefault('OMP_NUM_THREADS', '1')        # stay within the 2-process budget
os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# ----------------------------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------------------------
NOTO = '/usr/share/fonts/opentype/noto/'
DV = '/usr/share/fonts/truetype/dejavu/'
LIB = '/usr/share/fonts/truetype/liberation/'

F_SANS = (NOTO + 'NotoSansCJK-Regular.ttc', 2)
F_SANS_B = (NOTO + 'NotoSansCJK-Bold.ttc', 2)
F_SERIF = (NOTO + 'NotoSerifCJK-Regular.ttc', 2)
F_SERIF_B = (NOTO + 'NotoSerifCJK-Bold.ttc', 2)
F_MONO = (NOTO + 'NotoSansCJK-Regular.ttc', 7)
F_MONO_B = (NOTO + 'NotoSansCJK-Bold.ttc', 7)
L_DVS = (DV + 'DejaVuSans.ttf', 0)
L_DVS_B = (DV + 'DejaVuSans-Bold.ttf', 0)
L_DVS_I = (DV + 'DejaVuSans-Oblique.ttf', 0)
L_DVSC = (DV + 'DejaVuSansCondensed.ttf', 0)
L_DVSC_B = (DV + 'DejaVuSansCondensed-Bold.ttf', 0)
L_DVSC_I = (DV + 'DejaVuSansCondensed-Oblique.ttf', 0)
L_DVSE = (DV + 'DejaVuSerif.ttf', 0)
L_DVSE_B = (DV + 'DejaVuSerif-Bold.ttf', 0)
L_DVSE_I = (DV + 'DejaVuSerif-Italic.ttf', 0)
L_DVM = (DV + 'DejaVuSansMono.ttf', 0)
L_DVM_B = (DV + 'DejaVuSansMono-Bold.ttf', 0)
L_LSE = (LIB + 'LiberationSerif-Regular.ttf', 0)
L_LSE_B = (LIB + 'LiberationSerif-Bold.ttf', 0)
L_LSE_I = (LIB + 'LiberationSerif-Italic.ttf', 0)
L_LSA = (LIB + 'LiberationSans-Regular.ttf', 0)
L_LSA_B = (LIB + 'LiberationSans-Bold.ttf', 0)
L_LSA_I = (LIB + 'LiberationSans-Italic.ttf', 0)
L_LSN = (LIB + 'LiberationSansNarrow-Regular.ttf', 0)
L_LSN_B = (LIB + 'LiberationSansNarrow-Bold.ttf', 0)
L_LMO = (LIB + 'LiberationMono-Regular.ttf', 0)
L_LMO_B = (LIB + 'LiberationMono-Bold.ttf', 0)

# print faces: name -> cjk, cjk bold, latin, latin bold, latin italic (None: the CJK font's own Latin)
FACES_ZH = {
    'song_times': (F_SERIF, F_SERIF_B, L_LSE, L_LSE_B, L_LSE_I),
    'hei_arial': (F_SANS, F_SANS_B, L_LSA, L_LSA_B, L_LSA_I),
    'song_dejavu': (F_SERIF, F_SANS_B, L_DVSE, L_DVSE_B, L_DVSE_I),
    'sans_plain': (F_SANS, F_SANS_B, None, None, None),
    'serif_plain': (F_SERIF, F_SERIF_B, None, None, None),
    'mono': (F_MONO, F_MONO_B, None, None, None),
    'hei_dejavu': (F_SANS, F_SANS_B, L_DVS, L_DVS_B, L_DVS_I),
    'hei_cond': (F_SANS, F_SANS_B, L_DVSC, L_DVSC_B, L_DVSC_I),
}
FACES_EN = {
    'times': (F_SERIF, F_SERIF_B, L_LSE, L_LSE_B, L_LSE_I),
    'arial': (F_SANS, F_SANS_B, L_LSA, L_LSA_B, L_LSA_I),
    'dejavu_sans': (F_SANS, F_SANS_B, L_DVS, L_DVS_B, L_DVS_I),
    'dejavu_serif': (F_SERIF, F_SERIF_B, L_DVSE, L_DVSE_B, L_DVSE_I),
    'narrow': (F_SANS, F_SANS_B, L_LSN, L_LSN_B, L_LSA_I),
    'courier': (F_MONO, F_MONO_B, L_LMO, L_LMO_B, L_LMO),
    'dejavu_cond': (F_SANS, F_SANS_B, L_DVSC, L_DVSC_B, L_DVSC_I),
}
HAND_LATIN = [L_DVS_I, L_LSA_I, L_LSE_I, L_DVSE_I, L_DVSC_I]
HAND_CJK = [F_SANS, F_SANS, F_MONO]


def font(spec, size):
    return _font(spec, int(max(6, round(size))))


@lru_cache(maxsize=None)
def _font(spec, size):
    path, idx = spec
    return ImageFont.truetype(path, size, index=idx)


@lru_cache(maxsize=None)
def _notdef(spec):
    m = font(spec, 32).getmask('\U000F0001')
    return (m.size, bytes(m))


@lru_cache(maxsize=None)
def has_glyph(spec, ch):
    if ch.isspace():
        return True
    m = font(spec, 32).getmask(ch)
    return (m.size, bytes(m)) != _notdef(spec)


SUP = {'²': '2', '³': '3', '¹': '1', '⁰': '0', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8',
       '⁹': '9', 'ⁿ': 'n', '⁺': '+', '⁻': '-'}
SUB = {'₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6', '₇': '7', '₈': '8',
       '₉': '9', 'ₙ': 'n', 'ₓ': 'x', 'ₐ': 'a', 'ₘ': 'm', 'ₖ': 'k'}
CLOSE_P = set('，。？！：；、）》”’」』】,.?!:;)]%')
OPEN_P = set('（《“‘「『【([')


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF
            or 0x2460 <= o <= 0x24FF or 0xF900 <= o <= 0xFAFF or ch in '“”‘’…—【】《》')


def has_cjk(s):
    return bool(re.search(r'[\u4e00-\u9fff]', s))


class Face:
    def __init__(self, name, spec):
        self.name = name
        self.cjk, self.cjk_b, self.lat, self.lat_b, self.lat_i = spec

    def pick(self, ch, bold=False, italic=False):
        if is_cjk(ch) or self.lat is None:
            spec = self.cjk_b if bold else self.cjk
        else:
            spec = self.lat_b if bold else (self.lat_i if italic else self.lat)
        if not has_glyph(spec, ch):
            for alt in (self.cjk, L_DVS, F_SANS):
                if has_glyph(alt, ch):
                    return alt
        return spec


# ----------------------------------------------------------------------------------------------
# text atoms and line layout
# ----------------------------------------------------------------------------------------------
class Atom:
    __slots__ = ('glyphs', 'w', 'space', 'tags')

    def __init__(self, glyphs, w, space, tags):
        self.glyphs = glyphs      # list of (dx, dy, ch, spec, size)
        self.w = w
        self.space = space
        self.tags = tags


def make_atoms(text, face, size, tags, bold=False, italic_vars=False, atomic=False, spacing=1.0):
    """Split text into breakable atoms; sup/subscripts drawn as smaller raised/lowered glyphs."""
    chars = []
    for i, ch in enumerate(text):
        if ch in SUP:
            d, sz, dy = SUP[ch], size * 0.62, -size * 0.40
        elif ch in SUB:
            d, sz, dy = SUB[ch], size * 0.62, size * 0.14
        else:
            d, sz, dy = ch, size, 0.0
        it = (italic_vars and d.isascii() and d.isalpha()
              and not (i > 0 and text[i - 1].isascii() and text[i - 1].isalpha())
              and not (i + 1 < len(text) and text[i + 1].isascii() and text[i + 1].isalpha()))
        spec = face.pick(d, bold=bold, italic=it)
        adv = font(spec, sz).getlength(d) * (spacing if is_cjk(d) else 1.0)
        chars.append((ch, d, spec, sz, dy, adv))
    groups = []
    cur = []
    for c in chars:
        ch = c[0]
        if ch == ' ':
            if cur:
                groups.append(('w', cur))
                cur = []
            groups.append(('s', [c]))
        elif is_cjk(ch) and ch not in SUP and ch not in SUB:
            if cur:
                groups.append(('w', cur))
                cur = []
            groups.append(('w', [c]))
        else:
            cur.append(c)
    if cur:
        groups.append(('w', cur))
    # kinsoku: closing punctuation sticks to previous word, opening to next
    merged = []
    i = 0
    while i < len(groups):
        kind, g = groups[i]
        if kind == 'w' and len(g) == 1 and g[0][0] in CLOSE_P and merged and merged[-1][0] == 'w':
            merged[-1] = ('w', merged[-1][1] + g)
        elif kind == 'w' and merged and merged[-1][0] == 'w' and merged[-1][1][-1][0] in OPEN_P:
            merged[-1] = ('w', merged[-1][1] + g)
        else:
            merged.append((kind, list(g)))
        i += 1
    if atomic:
        allc = [c for _, g in merged for c in g]
        merged = [('w', allc)]
    atoms = []
    for kind, g in merged:
        x = 0.0
        gl = []
        for (ch, d, spec, sz, dy, adv) in g:
            gl.append((x, dy, d, spec, sz))
            x += adv
        atoms.append(Atom(gl, x, kind == 's', tags))
    return atoms


class Page:
    """Everything printed/written on the canvas, in canvas pixel coordinates."""

    def __init__(self):
        self.glyphs = []      # (x, base, ch, spec, size, layer)
        self.rules = []       # (x0, y0, x1, y1, width, layer)
        self.fills = []       # (x0, y0, x1, y1, rgb)
        self.boxes = {}       # tag -> {base: [x0, y0, x1, y1]}
        self.elements = []    # dict(case=..., bbox=(x0,y0,x1,y1), kind=...)

    def add_box(self, tag, base, b):
        d = self.boxes.setdefault(tag, {})
        k = int(round(base))
        if k in d:
            o = d[k]
            d[k] = [min(o[0], b[0]), min(o[1], b[1]), max(o[2], b[2]), max(o[3], b[3])]
        else:
            d[k] = list(b)

    def tag_lines(self, tag):
        d = self.boxes.get(tag, {})
        return [d[k] for k in sorted(d)]

    def tag_bbox(self, *tags):
        bs = [b for t in tags for b in self.tag_lines(t)]
        if not bs:
            return None
        return [min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs)]


def place(pg, atoms, x_first, x_cont, x_right, base, lh, size, layer=0):
    """Greedy line breaking.  Returns (end_x, last_base, n_lines)."""
    x = x_first
    line_start = True
    nlines = 1
    for a in atoms:
        if a.space:
            if line_start:
                continue
            x += a.w
            continue
        if not line_start and x + a.w > x_right:
            base += lh
            x = x_cont
            nlines += 1
        for (dx, dy, ch, spec, sz) in a.glyphs:
            gx = x + dx
            pg.glyphs.append((gx, base + dy, ch, spec, sz, layer))
            f = font(spec, sz)
            adv = f.getlength(ch)
            l, t, r, b = f.getbbox(ch, anchor='ls')
            box = [min(gx + l, gx), min(base + dy + t, base - 0.86 * size), max(gx + r, gx + adv),
                   max(base + dy + b, base + 0.24 * size)]
            for tg in a.tags:
                pg.add_box(tg, base, box)
        x += a.w
        line_start = False
    return x, base, nlines


# ----------------------------------------------------------------------------------------------
# content: synthetic neighbour problems
# ----------------------------------------------------------------------------------------------
BL = '[_]'      # blank marker in templates
BK = '[()]'     # answer bracket marker


def P(text, ans=(), work=(), opts=None, wrong=None):
    return dict(text=text, ans=list(ans), work=list(work), opts=opts, wrong=wrong)


def synth_zh(r, subject):
    ri = lambda a, b: int(r.integers(a, b + 1))
    ch = lambda seq: seq[int(r.integers(len(seq)))]
    if subject == 'math':
        k = ri(0, 11)
        if k == 0:
            a, b = ri(12, 48), ri(3, 19)
            return P(f'计算：{a} × {b} = {BL}', [str(a * b)], [f'{a}×{b}={a*b}'], wrong=str(a * b + 10))
        if k == 1:
            x, a = ri(2, 9), ri(2, 7)
            b = ri(1, 15)
            c = a * x + b
            return P(f'解方程：{a}x + {b} = {c}', [], ['解：' + f'{a}x = {c} - {b}', f'{a}x = {c-b}', f'x = {x}'],
                     wrong=f'x = {x+1}')
        if k == 2:
            return P(f'下列各数中，最小的数是{BK}', ['A'], opts=['A. −3', 'B. 0', 'C. 2', 'D. −1'], wrong='D')
        if k == 3:
            a = ri(3, 9)
            m = a * ri(3, 12)
            return P(f'一个数的 {a} 倍是 {m}，这个数是{BL}。', [str(m // a)], [f'{m}÷{a}={m//a}'])
        if k == 4:
            a, b = ri(2, 6), ri(1, 5)
            return P(f'化简：{a}(x + {b}) - x', [], [f'={a}x+{a*b}-x', f'={a-1}x+{a*b}'])
        if k == 5:
            v = ri(2, 9)
            return P(f'若 |x| = {v}，则 x = {BL}。', [f'±{v}'], wrong=str(v))
        if k == 6:
            a, b = ri(2, 9), ri(2, 9)
            return P(f'若 a = {a}，b = {b}，则 a² + b² = {BL}。', [str(a * a + b * b)], [f'{a*a}+{b*b}={a*a+b*b}'])
        if k == 7:
            return P(f'一个三角形三个内角的度数之比为 1:2:3，这个三角形是{BL}三角形。', ['直角'], ['180÷6=30', '30×3=90°'])
        if k == 8:
            n, p = ri(3, 9), ri(2, 8)
            return P(f'小明买了 {n} 本练习本，每本 {p} 元，一共花了多少元？', [],
                     [f'{n}×{p}={n*p}（元）', f'答：一共花了{n*p}元。'], wrong=f'{n+p}')
        if k == 9:
            return P(f'下列图形中，既是轴对称图形又是中心对称图形的是{BK}', ['C'],
                     opts=['A. 等边三角形', 'B. 平行四边形', 'C. 矩形', 'D. 等腰梯形'], wrong='B')
        if k == 10:
            a, b = ri(2, 9), ri(10, 30)
            return P(f'比较大小：-{a} {BL} -{b}（填“>”或“<”）', ['>'], wrong='<')
        a = ri(2, 6)
        return P(f'{a}的相反数是{BL}，倒数是{BL}。', [f'-{a}', f'1/{a}'])
    if subject == 'physics':
        k = ri(0, 7)
        if k == 0:
            return P(f'下列物体中，通常情况下属于导体的是{BK}', ['B'], opts=['A. 塑料尺', 'B. 铅笔芯', 'C. 橡皮', 'D. 玻璃杯'], wrong='C')
        if k == 1:
            v = ri(2, 9)
            return P(f'{v} km = {BL} m', [str(v * 1000)], wrong=str(v * 100))
        if k == 2:
            return P(f'声音是由物体的{BL}产生的。', ['振动'])
        if k == 3:
            m = ri(2, 9)
            return P(f'一个物体的质量为 {m} kg，它受到的重力为{BL}N。（g 取 10 N/kg）', [str(m * 10)], [f'G=mg={m}×10={m*10}N'])
        if k == 4:
            return P(f'凸透镜对光有{BL}作用。', ['会聚'], wrong='发散')
        if k == 5:
            return P(f'电流的单位是{BL}，用符号{BL}表示。', ['安培', 'A'])
        if k == 6:
            s, t = ri(2, 9) * 10, ri(2, 5)
            return P(f'一个人 {t} s 内走了 {s} m，他的速度是多少？', [], [f'v=s/t={s}/{t}', f'={s/t:g} m/s'])
        return P(f'下列现象属于光的反射的是{BK}', ['C'], opts=['A. 小孔成像', 'B. 海市蜃楼', 'C. 水中倒影', 'D. 雨后彩虹'])
    if subject == 'chemistry':
        k = ri(0, 6)
        if k == 0:
            return P(f'下列变化中，属于化学变化的是{BK}', ['B'], opts=['A. 冰雪融化', 'B. 纸张燃烧', 'C. 酒精挥发', 'D. 矿石粉碎'], wrong='A')
        if k == 1:
            return P(f'地壳中含量最多的元素是{BL}。', ['氧'], wrong='硅')
        if k == 2:
            return P(f'用化学符号表示：2 个氢原子{BL}，3 个水分子{BL}。', ['2H', '3H₂O'])
        if k == 3:
            return P(f'下列物质属于纯净物的是{BK}', ['D'], opts=['A. 空气', 'B. 海水', 'C. 石灰石', 'D. 冰水混合物'])
        if k == 4:
            return P(f'写出镁在空气中燃烧的化学方程式。', [], ['2Mg+O₂=点燃=2MgO'], wrong='Mg+O₂=MgO₂')
        if k == 5:
            return P(f'氧气能使带火星的木条{BL}。', ['复燃'])
        return P(f'二氧化碳的相对分子质量是{BL}。', ['44'], ['12+16×2=44'])
    if subject == 'biology':
        k = ri(0, 5)
        if k == 0:
            return P(f'细胞分裂时，{BL}的变化最明显。', ['染色体'])
        if k == 1:
            return P(f'下列动物中，属于哺乳动物的是{BK}', ['B'], opts=['A. 鲨鱼', 'B. 鲸', 'C. 青蛙', 'D. 企鹅'], wrong='A')
        if k == 2:
            return P(f'绿色植物通过根尖的{BL}区吸收水分。', ['成熟'])
        if k == 3:
            return P(f'人体的血液由{BL}和{BL}组成。', ['血浆', '血细胞'])
        if k == 4:
            return P(f'显微镜的放大倍数等于目镜和物镜放大倍数的乘积。目镜 10×、物镜 40× 时，放大倍数是多少？', [], ['10×40=400（倍）'])
        return P(f'种子萌发需要的外界条件是什么？', [], ['适量的水、充足的空气', '和适宜的温度'])
    if subject == 'geography':
        k = ri(0, 5)
        if k == 0:
            return P(f'地球的形状是一个两极稍扁、赤道略鼓的{BL}。', ['球体'])
        if k == 1:
            return P(f'下列城市中，位于我国南方地区的是{BK}', ['C'], opts=['A. 北京', 'B. 西安', 'C. 广州', 'D. 哈尔滨'], wrong='B')
        if k == 2:
            return P(f'世界上面积最大的国家是{BL}。', ['俄罗斯'])
        if k == 3:
            return P(f'我国的首都是{BL}，我国人口最多的民族是{BL}族。', ['北京', '汉'])
        if k == 4:
            return P(f'在等高线地形图上，等高线越密集，坡度越{BL}。', ['陡'], wrong='缓')
        return P(f'七大洲中，跨经度最广的大洲是哪一个？', [], ['南极洲'])
    if subject == 'history':
        k = ri(0, 5)
        if k == 0:
            return P(f'唐朝的建立者是{BL}。', ['李渊'], wrong='李世民')
        if k == 1:
            return P(f'下列事件中，发生最早的是{BK}', ['A'], opts=['A. 商鞅变法', 'B. 张骞出使西域', 'C. 郑和下西洋', 'D. 戊戌变法'])
        if k == 2:
            return P(f'我国历史上第一个统一的多民族封建国家是{BL}。', ['秦朝'])
        if k == 3:
            return P(f'“丝绸之路”的起点是{BL}。', ['长安'])
        if k == 4:
            return P(f'洋务运动的口号是“{BL}”和“求富”。', ['自强'])
        return P(f'简述郑和下西洋的意义。', [], ['促进了中外经济文化', '交流，加强了友好往来。'])
    if subject == 'chinese':
        k = ri(0, 5)
        if k == 0:
            return P(f'“海内存知己”的下一句是{BL}。', ['天涯若比邻'])
        if k == 1:
            return P(f'《红楼梦》的作者是{BL}。', ['曹雪芹'])
        if k == 2:
            return P(f'下列词语中，没有错别字的一项是{BK}', ['C'], opts=['A. 迫不急待', 'B. 再接再励', 'C. 川流不息', 'D. 一愁莫展'], wrong='B')
        if k == 3:
            return P(f'解释加点的词：学而时习之，不亦说乎。 说：{BL}', ['同“悦”，高兴'])
        if k == 4:
            return P(f'《从百草园到三味书屋》选自鲁迅的散文集《{BL}》。', ['朝花夕拾'])
        return P(f'默写：会当凌绝顶，{BL}。', ['一览众山小'], wrong='一览纵山小')
    # english taught in Chinese
    k = ri(0, 5)
    if k == 0:
        return P(f'写出下列单词的复数形式：box {BL}', ['boxes'], wrong='boxs')
    if k == 1:
        return P(f'根据汉语提示填空：I like {BL}（读书）very much.', ['reading'])
    if k == 2:
        return P(f'单项选择：— Where is Tom?  — He {BL} in the library. {BK}', ['', 'B'], opts=['A. are', 'B. is', 'C. am', 'D. be'])
    if k == 3:
        return P(f'写出 good 的比较级：{BL}', ['better'])
    if k == 4:
        return P(f'翻译句子：我每天步行上学。', [], ['I walk to school', 'every day.'])
    return P(f'用所给词的适当形式填空：She {BL}（watch）TV every evening.', ['watches'], wrong='watchs')


def synth_en(r, subject):
    ri = lambda a, b: int(r.integers(a, b + 1))
    if subject == 'math':
        k = ri(0, 6)
        if k == 0:
            a, b = ri(12, 39), ri(3, 12)
            return P(f'Calculate: {a} × {b} = {BL}', [str(a * b)], [f'{a}×{b}={a*b}'], wrong=str(a * b - 10))
        if k == 1:
            x, a = ri(3, 9), ri(2, 8)
            return P(f'Solve for x: {a}x = {a*x}.', [], [f'x = {a*x}/{a}', f'x = {x}'])
        if k == 2:
            return P(f'Which of the following is a prime number? {BK}', ['C'], opts=['A. 9', 'B. 15', 'C. 17', 'D. 21'], wrong='B')
        if k == 3:
            a, b = ri(2, 5), ri(2, 6)
            return P(f'Simplify: {a}(x + {b}) - x', [], [f'= {a}x + {a*b} - x', f'= {a-1}x + {a*b}'])
        if k == 4:
            p, q = ri(1, 9) * 10, ri(2, 9) * 20
            return P(f'What is {p}% of {q}?', [], [f'{p}/100 × {q} = {p*q//100}'])
        if k == 5:
            return P(f'Round 3.467 to the nearest tenth: {BL}', ['3.5'], wrong='3.4')
        a = ri(3, 9)
        return P(f'The area of a square is {a*a} cm². Find its side length.', [], [f'side = √{a*a} = {a} cm'])
    if subject == 'english':
        k = ri(0, 7)
        if k == 0:
            return P(f'She {BL} (read) a book now.', ['is reading'], wrong='reads')
        if k == 1:
            return P(f'Choose the correct word: I {BL} a student. (am / is / are)', ['am'])
        if k == 2:
            return P(f'Write the plural form of "box": {BL}', ['boxes'], wrong='boxs')
        if k == 3:
            return P(f'There {BL} (be) some milk in the glass.', ['is'], wrong='are')
        if k == 4:
            return P(f'What is the past tense of "see"?', [], ['saw'])
        if k == 5:
            return P(f'— ____ you like some tea?  — Yes, please. {BK}', ['A'], opts=['A. Would', 'B. Do', 'C. Are', 'D. Will'])
        if k == 6:
            return P(f'Translate into English: 我喜欢读书。', [], ['I like reading.'])
        return P(f'Complete the sentence: My brother is two years {BL} than me. (old)', ['older'])
    pool = [
        P(f'What is the chemical symbol for sodium? {BL}', ['Na']),
        P(f'Name the largest planet in the solar system.', [], ['Jupiter']),
        P(f'Water boils at {BL} °C at sea level.', ['100']),
        P(f'What is the capital of France?', [], ['Paris']),
        P(f'Who was the first president of the United States?', [], ['George Washington']),
        P(f'Convert 2.5 km to metres: {BL}', ['2500 m'], wrong='250 m'),
        P(f'Which gas do plants absorb during photosynthesis? {BK}', ['B'], opts=['A. oxygen', 'B. carbon dioxide', 'C. nitrogen', 'D. hydrogen']),
        P(f'What force pulls objects towards the Earth?', [], ['gravity']),
        P(f'How many continents are there on Earth? {BL}', ['7'], wrong='6'),
        P(f'A car travels 150 km in 3 h. Find its average speed.', [], ['v = 150/3 = 50 km/h']),
    ]
    return pool[ri(0, len(pool) - 1)]


def parse_template(text):
    """'a [_] b [()]' -> [(kind, text)] with kind text/blank/bracket."""
    out = []
    for part in re.split(r'(\[_\]|\[\(\)\])', text):
        if not part:
            continue
        if part == BL:
            out.append(('blank', None))
        elif part == BK:
            out.append(('bracket', None))
        else:
            out.append(('text', part))
    return out


def clean_answer(a):
    """Bank answers (markdown + LaTeX) -> short plain lines a student might write."""
    s = a.replace('$', '')
    for _ in range(3):
        s = re.sub(r'\\frac\{([^{}]*)\}\{([^{}]*)\}', r'\1/\2', s)
    s = re.sub(r'\\sqrt\{([^{}]*)\}', r'√\1', s)
    rep = {'\\pi': 'π', '\\rho': 'ρ', '\\cap': '∩', '\\cup': '∪', '\\sin': 'sin', '\\cos': 'cos',
           '\\log': 'log', '\\times': '×', '\\div': '÷', '\\cdot': '·'}
    for k, v in rep.items():
        s = s.replace(k, v)
    sup = {'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹',
           'n': 'ⁿ', '-': '⁻', '+': '⁺'}
    sub = {'0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈', '9': '₉',
           'n': 'ₙ', 'k': 'ₖ', 'x': 'ₓ', 'a': 'ₐ', 'm': 'ₘ'}
    s = re.sub(r'\^\{([0-9n+\- ]+)\}', lambda m: ''.join(sup.get(c, '') for c in m.group(1)), s)
    s = re.sub(r'\^([0-9n])', lambda m: sup.get(m.group(1), m.group(1)), s)
    s = re.sub(r'_\{([0-9n]+)\}', lambda m: ''.join(sub.get(c, c) for c in m.group(1)), s)
    s = re.sub(r'_([0-9a-z])', lambda m: sub.get(m.group(1), m.group(1)), s)
    s = s.replace('{', '').replace('}', '').replace('\\', '')
    parts = [p.strip() for p in re.split(r'[，。；;]|(?<=[a-z0-9])\. ', s) if p.strip()]
    lines = []
    wid = lambda c: 1.0 if is_cjk(c) else 0.55
    for p in parts:
        while sum(wid(c) for c in p) > 16:
            acc, lim = 0.0, len(p)
            for i, c in enumerate(p):
                acc += wid(c)
                if acc > 16:
                    lim = i
                    break
            cut = max([i for i in range(lim // 2, lim) if p[i] == ' ' and (i + 1 < len(p) and p[i + 1] in '=+-×÷')] or
                      [i for i in range(lim // 2, lim) if p[i] in ' ，,'] or [lim])
            lines.append(p[:cut].strip())
            p = p[cut:].strip()
        if p:
            lines.append(p)
    return lines


# ----------------------------------------------------------------------------------------------
# page text: headers, numbering
# ----------------------------------------------------------------------------------------------
SUBJ_ZH = {'math': '数学', 'physics': '物理', 'chemistry': '化学', 'biology': '生物', 'geography': '地理',
           'history': '历史', 'chinese': '语文', 'english': '英语'}
SUBJ_EN = {'math': 'Mathematics', 'physics': 'Physics', 'chemistry': 'Chemistry', 'biology': 'Biology',
           'geography': 'Geography', 'history': 'History', 'chinese': 'Chinese', 'english': 'English'}
CN_NUM = '一二三四五六七八九十'
CIRCLED = '①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳'
NUM_STYLES_ZH = ['dot', 'fwdot', 'dun', 'paren', 'fwparen', 'di', 'lent', 'circled']
NUM_STYLES_EN = ['dot', 'paren', 'q', 'question', 'circled', 'dot']


def num_label(style, n):
    return {'dot': f'{n}.', 'fwdot': f'{n}．', 'dun': f'{n}、', 'paren': f'({n})', 'fwparen': f'（{n}）',
            'di': f'第{n}题', 'q': f'Q{n}.', 'question': f'Question {n}', 'lent': f'【{n}】',
            'circled': CIRCLED[n - 1] if 1 <= n <= 20 else f'{n}.'}[style]


def score_note(r, lang, fmt):
    p = int(r.integers(2, 9))
    if lang == 'zh':
        return [f'（{p}分）', f'({p}分)', f'（本题{p}分）', f'[{p}分]'][fmt % 4]
    return [f'[{p} marks]', f'({p} marks)', f'({p} points)', f'[{p}]'][fmt % 4]


def section_heading(r, lang, k):
    if lang == 'zh':
        names = ['选择题', '填空题', '解答题', '计算题', '简答题', '基础练习', '能力提升']
        nm = names[int(r.integers(len(names)))]
        pts = int(r.integers(2, 6))
        return f'{CN_NUM[k % 10]}、{nm}（每题{pts}分，共{pts * int(r.integers(4, 9))}分）' if r.random() < 0.6 else f'{CN_NUM[k % 10]}、{nm}'
    names = ['Multiple choice', 'Short answers', 'Fill in the blanks', 'Problems', 'Vocabulary', 'Calculations']
    roman = ['I', 'II', 'III', 'IV', 'V']
    nm = names[int(r.integers(len(names)))]
    if r.random() < 0.5:
        return f'Part {roman[k % 5]} {nm}'
    return f'Section {"ABCDE"[k % 5]}  {nm} ({int(r.integers(2, 5))} marks each)'


STUDENT_NAMES_ZH = ['李明', '王小红', '张伟', '刘洋', '陈静', '赵磊', '周婷', '孙浩']
STUDENT_NAMES_EN = ['Li Ming', 'Wang Lei', 'Amy Chen', 'Zhang Wei', 'Tom Liu', 'Lucy Zhou']
COMMENTS_ZH = ['订正', '过程！', '认真审题', '很好', '单位？', '再想想', '书写工整', '注意符号']
COMMENTS_EN = ['see me', 'Good!', 'Careful!', 'Check units', 'Well done', 'Show working', 'Neat!']


# ----------------------------------------------------------------------------------------------
# ink drawing primitives (canvas = HxWx3 uint8 numpy, alpha patches = float32 0..1)
# ----------------------------------------------------------------------------------------------
class Hand:
    """A student's (or teacher's) handwriting style."""

    def __init__(self, r, color, size):
        self.color = color
        self.size = size
        self.lat = HAND_LATIN[int(r.integers(len(HAND_LATIN)))]
        self.cjk = HAND_CJK[int(r.integers(len(HAND_CJK)))]
        self.slant = float(r.uniform(-0.05, 0.28))
        self.jit = float(r.uniform(0.02, 0.06))
        self.rot = float(r.uniform(2.0, 7.0))
        self.weight = int(r.choice([-1, 0, 0, 1]))
        self.opacity = float(r.uniform(0.78, 0.97))
        self.spacing = float(r.uniform(0.88, 1.08))


def hand_mask(r, hand, text, size=None):
    """Render handwriting-like text.  Returns (alpha float32, x_origin, baseline_y) in the patch."""
    size = float(size or hand.size)
    pad = int(size * 0.8) + 4
    est_w = int(sum((size if is_cjk(c) else size * 0.7) for c in text) * 1.35) + 2 * pad + 10
    hgt = int(size * 2.6) + 2 * pad
    base = pad + int(size * 1.25)
    canvas = np.zeros((hgt, est_w), np.uint8)
    x = float(pad)
    for ch in text:
        if ch == ' ':
            x += size * 0.33 * float(r.uniform(0.7, 1.4))
            continue
        d, sz, dy = ch, size, 0.0
        if ch in SUP:
            d, sz, dy = SUP[ch], size * 0.6, -size * 0.42
        elif ch in SUB:
            d, sz, dy = SUB[ch], size * 0.6, size * 0.16
        cjk = is_cjk(d)
        spec = hand.cjk if cjk else hand.lat
        if not has_glyph(spec, d):
            spec = F_SANS if has_glyph(F_SANS, d) else L_DVS
        s = sz * float(r.uniform(0.86, 1.14)) * (0.95 if cjk else 1.08)
        f = font(spec, s)
        l, t, rr, b = f.getbbox(d, anchor='ls')
        gw, gh = int(rr - l) + 8, int(b - t) + 8
        if gw <= 8 or gh <= 8:
            x += f.getlength(d)
            continue
        g = Image.new('L', (gw, gh), 0)
        ImageDraw.Draw(g).text((4 - l, 4 - t), d, font=f, fill=255, anchor='ls')
        ang = float(r.normal(0, hand.rot))
        g = g.rotate(ang, resample=Image.BILINEAR, expand=True)
        ga = np.asarray(g)
        gx = int(round(x + l - (ga.shape[1] - gw) / 2 - 4))
        gy = int(round(base + dy + t - (ga.shape[0] - gh) / 2 - 4 + r.normal(0, hand.jit * size)))
        y0, x0 = max(gy, 0), max(gx, 0)
        y1, x1 = min(gy + ga.shape[0], hgt), min(gx + ga.shape[1], est_w)
        if y1 > y0 and x1 > x0:
            sub = ga[y0 - gy:y1 - gy, x0 - gx:x1 - gx]
            np.maximum(canvas[y0:y1, x0:x1], sub, out=canvas[y0:y1, x0:x1])
        x += f.getlength(d) * hand.spacing * float(r.uniform(0.92, 1.06)) + size * 0.03
    wdt = min(int(x) + pad, est_w)
    canvas = canvas[:, :wdt]
    # slant (shear about the baseline) + elastic wobble
    hh, ww = canvas.shape
    M = np.float32([[1, -hand.slant, hand.slant * base], [0, 1, 0]])
    canvas = cv2.warpAffine(canvas, M, (ww, hh), flags=cv2.INTER_LINEAR)
    gh_, gw_ = max(2, int(hh / size * 2)), max(2, int(ww / size * 2))
    amp = size * 0.045
    dx = cv2.resize(r.normal(0, 1, (gh_, gw_)).astype(np.float32), (ww, hh), interpolation=cv2.INTER_CUBIC) * amp
    dy_ = cv2.resize(r.normal(0, 1, (gh_, gw_)).astype(np.float32), (ww, hh), interpolation=cv2.INTER_CUBIC) * amp
    gx_, gy_ = np.meshgrid(np.arange(ww, dtype=np.float32), np.arange(hh, dtype=np.float32))
    canvas = cv2.remap(canvas, gx_ + dx, gy_ + dy_, cv2.INTER_LINEAR)
    k = max(1, int(round(size / 28)))
    if hand.weight > 0:
        canvas = cv2.dilate(canvas, np.ones((k + hand.weight - 1, k + hand.weight - 1), np.uint8)) if k + hand.weight - 1 > 1 else canvas
    elif hand.weight < 0 and size > 30:
        canvas = cv2.erode(canvas, np.ones((2, 2), np.uint8))
    a = canvas.astype(np.float32) / 255.0
    return a, pad, base


def stroke_mask(pts, thick, shape_pad=None, taper=(1.0, 0.6)):
    """Polyline stroke with tapering width.  pts absolute; returns (alpha, x0, y0)."""
    pts = np.asarray(pts, np.float32)
    t = max(thick, 1.0)
    x0 = int(math.floor(pts[:, 0].min() - 2 * t - 2))
    y0 = int(math.floor(pts[:, 1].min() - 2 * t - 2))
    x1 = int(math.ceil(pts[:, 0].max() + 2 * t + 2))
    y1 = int(math.ceil(pts[:, 1].max() + 2 * t + 2))
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    n = len(pts)
    for i in range(n - 1):
        f = i / max(1, n - 2)
        w = t * (taper[0] * (1 - f) + taper[1] * f)
        p = (int(round((pts[i, 0] - x0) * 16)), int(round((pts[i, 1] - y0) * 16)))
        q = (int(round((pts[i + 1, 0] - x0) * 16)), int(round((pts[i + 1, 1] - y0) * 16)))
        cv2.line(m, p, q, 255, max(1, int(round(w))), cv2.LINE_AA, shift=4)
    return m.astype(np.float32) / 255.0, x0, y0


def smooth_path(r, ctrl, n=24, wob=0.0):
    ctrl = np.asarray(ctrl, np.float64)
    out = []
    for i in range(len(ctrl) - 1):
        for s in np.linspace(0, 1, n, endpoint=False):
            out.append(ctrl[i] * (1 - s) + ctrl[i + 1] * s)
    out.append(ctrl[-1])
    out = np.array(out)
    if wob > 0:
        k = np.cumsum(r.normal(0, wob, out.shape), axis=0)
        k -= np.linspace(0, 1, len(out))[:, None] * k[-1]
        out += k * 0.3
    # chaikin smoothing
    for _ in range(2):
        q = 0.75 * out[:-1] + 0.25 * out[1:]
        rr = 0.25 * out[:-1] + 0.75 * out[1:]
        out = np.vstack([out[:1], np.column_stack([q, rr]).reshape(-1, 2), out[-1:]])
    return out


def tick_pts(r, x, y, s):
    """Tick whose bottom vertex is near (x, y); s = size."""
    a = np.array([x - s * r.uniform(0.28, 0.42), y - s * r.uniform(0.30, 0.45)])
    b = np.array([x, y])
    c = np.array([x + s * r.uniform(0.5, 0.75), y - s * r.uniform(0.85, 1.2)])
    mid = (b + c) / 2 + np.array([s * 0.05, s * 0.05])
    return smooth_path(r, [a, b, mid, c], n=10, wob=s * 0.004)


def cross_strokes(r, cx, cy, s):
    h = s / 2
    p1 = smooth_path(r, [[cx - h, cy - h * r.uniform(0.8, 1.1)], [cx + h, cy + h * r.uniform(0.8, 1.1)]], n=16, wob=s * 0.004)
    p2 = smooth_path(r, [[cx + h * r.uniform(0.8, 1.1), cy - h], [cx - h * r.uniform(0.8, 1.1), cy + h]], n=16, wob=s * 0.004)
    return [p1, p2]


def ring_pts(r, cx, cy, rx, ry):
    a0 = r.uniform(0, 2 * math.pi)
    sweep = 2 * math.pi * r.uniform(1.04, 1.16)
    n = 90
    ang = a0 + np.linspace(0, sweep, n)
    wob = 1 + np.cumsum(r.normal(0, 0.006, n))
    grow = np.linspace(1.0, r.uniform(0.9, 1.12), n)
    return np.column_stack([cx + rx * np.cos(ang) * wob * grow, cy + ry * np.sin(ang) * wob * grow])


class Ink:
    """Compositing onto the page canvas, with a keep-out mask guarding the target's words."""

    def __init__(self, canvas, keep):
        self.c = canvas
        self.keep = keep
        self.H, self.W = canvas.shape[:2]

    def _clip(self, a, x0, y0):
        h, w = a.shape
        cx0, cy0 = max(0, x0), max(0, y0)
        cx1, cy1 = min(self.W, x0 + w), min(self.H, y0 + h)
        if cx1 <= cx0 or cy1 <= cy0:
            return None
        return a[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0], cx0, cy0, cx1, cy1

    def hits_keep(self, a, x0, y0, pad=0):
        if pad:
            a = cv2.dilate((a > 0.03).astype(np.uint8), np.ones((2 * pad + 1, 2 * pad + 1), np.uint8))
            a = np.pad(a, 0)
        cl = self._clip(a, x0, y0)
        if cl is None:
            return False
        s, cx0, cy0, cx1, cy1 = cl
        return bool(np.any((s > 0.03) & self.keep[cy0:cy1, cx0:cx1]))

    def put(self, a, x0, y0, color, opacity=0.92, texture=None):
        cl = self._clip(a, x0, y0)
        if cl is None:
            return
        s, cx0, cy0, cx1, cy1 = cl
        if texture is not None:
            tx0, ty0 = cx0 - x0, cy0 - y0
            texture = texture[ty0:ty0 + s.shape[0], tx0:tx0 + s.shape[1]]
        col = np.asarray(color, np.float32) / 255.0
        for r0 in range(0, s.shape[0], 256):          # strips keep memory low on big canvases
            ss = s[r0:r0 + 256] * opacity
            if texture is not None:
                ss = ss * texture[r0:r0 + 256]
            reg = self.c[cy0 + r0:cy0 + r0 + ss.shape[0], cx0:cx1].astype(np.float32)
            f = 1.0 - ss[..., None] * (1.0 - col[None, None, :])
            self.c[cy0 + r0:cy0 + r0 + ss.shape[0], cx0:cx1] = np.clip(reg * f, 0, 255).astype(np.uint8)

    def put_rgba(self, rgb, alpha, x0, y0):
        cl = self._clip(alpha, x0, y0)
        if cl is None:
            return
        s, cx0, cy0, cx1, cy1 = cl
        src = rgb[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0].astype(np.float32)
        reg = self.c[cy0:cy1, cx0:cx1].astype(np.float32)
        self.c[cy0:cy1, cx0:cx1] = np.clip(reg * (1 - s[..., None]) + src * s[..., None], 0, 255).astype(np.uint8)

    def darken(self, a, x0, y0, strength):
        cl = self._clip(a, x0, y0)
        if cl is None:
            return
        s, cx0, cy0, cx1, cy1 = cl
        reg = self.c[cy0:cy1, cx0:cx1].astype(np.float32)
        self.c[cy0:cy1, cx0:cx1] = np.clip(reg * (1 - strength * s[..., None]), 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------------------------
# page layout
# ----------------------------------------------------------------------------------------------
def choice(r, seq, p=None):
    if p is not None:
        p = np.asarray(p, float)
        p = p / p.sum()
        return seq[int(r.choice(len(seq), p=p))]
    return seq[int(r.integers(len(seq)))]


def title_text(r, lang, subject, grade, style):
    g = str(grade)
    gz = {'1': '一', '2': '二', '3': '三', '4': '四', '5': '五', '6': '六', '7': '七', '8': '八', '9': '九',
          '10': '高一', '11': '高二', '12': '高三'}.get(g, '八')
    gz = gz if gz.startswith('高') else gz + '年级'
    sz = SUBJ_ZH.get(subject, '综合')
    se = SUBJ_EN.get(subject, 'Science')
    n = int(r.integers(2, 19))
    if lang == 'zh':
        if style == 'test':
            return choice(r, [f'2024—2025学年度第一学期期中考试 {gz}{sz}试卷', f'{gz}{sz}第{CN_NUM[n % 10]}单元测试卷',
                              f'{gz}{sz}月考试题'])
        if style == 'book':
            return choice(r, [f'第{CN_NUM[n % 10]}章  课时练习（{n}）', f'{sz}同步练习 第{n}课时', f'单元复习（{CN_NUM[n % 10]}）'])
        return choice(r, [f'{gz}{sz}课时作业（{n}）', f'{sz}周末作业  第{n}周', f'{gz}{sz}练习卷'])
    if style == 'test':
        return choice(r, [f'Mid-term Test: {se} (Grade {g})', f'Unit {n} Test — {se}', f'{se} Quiz {n}'])
    if style == 'book':
        return choice(r, [f'Unit {n}  Practice', f'Lesson {n} Exercises', f'{se} Workbook · Unit {n}'])
    return choice(r, [f'Grade {g} {se} — Worksheet {n}', f'{se} Homework Sheet {n}', f'Weekly Practice {n}: {se}'])


class Builder:
    def __init__(self, r, row, bank, lang, k_target):
        self.r = r
        self.row = row
        self.bank = bank
        self.lang = lang
        self.subject = row['subject']
        self.k_target = k_target
        self.pg = Page()
        self.probs = []          # info dicts for every placed problem
        self.used_ids = {row['id']}
        self.used_texts = {row['question']}

    # -- one problem -------------------------------------------------------------------------
    def place_problem(self, prob, x0, x1, y):
        S = self.S
        pg = self.pg
        F = S['F']
        face = S['face']
        lh = S['lh']
        pre = prob['prefix']
        base = y + F * 0.95
        lab = make_atoms(prob['label'], face, F, (pre + 'n',), bold=S['label_bold'])
        lw = sum(a.w for a in lab)
        gap = S['label_gap']
        score_atoms = make_atoms(prob['score'], face, F * S['score_scale'], (pre + 's',), atomic=True) if prob['score'] else []
        sw = sum(a.w for a in score_atoms)
        if prob['own_line']:
            place(pg, lab, x0, x0, x1, base, lh, F)
            if score_atoms:
                place(pg, score_atoms, x0 + lw + gap, x0, x1, base, lh, F)
            base += lh
            xf = x0 + S['indent']
            xc = x0
        else:
            place(pg, lab, x0, x0, x1, base, lh, F)
            xf = x0 + lw + gap
            if score_atoms and S['score_pos'] == 'after':
                place(pg, score_atoms, xf, xf, x1, base, lh, F)
                xf += sw + gap * 0.6
            xc = (x0 + lw + gap) if S['hang'] else x0
        atoms = []
        nb = nk = 0
        ans = prob.get('ans') or []
        for kind, txt in prob['segs']:
            if kind == 'text':
                atoms += make_atoms(txt, face, F, (pre,), italic_vars=S['italic_vars'] and prob['is_target'] is False)
            elif kind == 'blank':
                a_ = ans[nb] if nb < len(ans) else ''
                need = int(sum(2.2 if is_cjk(c) else 1.2 for c in a_)) + 3
                atoms += make_atoms('_' * max(S['blank_len'], need), face, F, (pre, f'{pre}b{nb}'), atomic=True)
                nb += 1
            else:
                atoms += make_atoms(S['bracket'], face, F, (pre, f'{pre}k{nk}'), atomic=True)
                nk += 1
        if prob['is_target'] and S['italic_vars']:
            atoms = []
            for kind, txt in prob['segs']:
                atoms += make_atoms(txt, face, F, (pre,), italic_vars=True)
        if score_atoms and S['score_pos'] == 'end' and not prob['own_line']:
            atoms += make_atoms(' ', face, F, (pre + 's',)) + make_atoms(prob['score'], face, F * S['score_scale'], (pre + 's',), atomic=True)
        ex, base, nl = place(pg, atoms, xf, xc, x1, base, lh, F)
        info = dict(prob)
        info.update(y_top=y, x0=x0, x1=x1, xt=xf, xc=xc, nblank=nb, nbracket=nk, end_x=ex, last_base=base)
        if prob.get('opts'):
            base += lh
            ox = xc if S['hang'] else xf
            avail = x1 - ox
            oat = [make_atoms(o, face, F, (pre, pre + 'o')) for o in prob['opts']]
            ows = [sum(a.w for a in at) for at in oat]
            for per in (4, 2, 1):
                if max(ows) + F * 1.5 <= avail / per:
                    break
            colw = avail / per
            for i, at in enumerate(oat):
                if i and i % per == 0:
                    base += lh
                place(pg, at, ox + (i % per) * colw, ox, x1, base, lh, F)
            info['last_base'] = base
        info['text_bottom'] = base + F * 0.35
        work_h = prob['work_lines'] * S['hand_lh'] + (F * 0.35 if prob['work_lines'] else 0)
        bottom = info['text_bottom'] + work_h + S['para_gap']
        info['bottom'] = bottom
        info['work_rect'] = (xf if not prob['own_line'] else x0, info['text_bottom'], x1, info['text_bottom'] + work_h)
        return bottom, info

    # -- content for a neighbour slot ----------------------------------------------------------
    def neighbour_content(self, subject=None):
        r = self.r
        subject = subject or self.subject
        use_bank = r.random() < 0.5
        if not use_bank:
            for _ in range(8):
                t = synth_zh(r, subject) if self.lang == 'zh' else synth_en(r, subject)
                if t['text'] not in self.used_texts:
                    self.used_texts.add(t['text'])
                    return dict(segs=parse_template(t['text']), ans=t['ans'], work=t['work'], opts=t['opts'],
                                wrong=t['wrong'], src='synthetic')
        if True:
            cands = [q for q in self.bank if q['id'] not in self.used_ids and q['question'] not in self.used_texts
                     and (has_cjk(q['question']) == (self.lang == 'zh'))]
            same = [q for q in cands if q['subject'] == subject]
            pool = same if (same and r.random() < 0.9) else cands
            if pool:
                q = pool[int(r.integers(len(pool)))]
                self.used_ids.add(q['id'])
                self.used_texts.add(q['question'])
                work = clean_answer(q['answer'])[:int(r.integers(1, 4))]
                return dict(segs=[('text', q['question'])], ans=[], work=work, opts=None, wrong=None, src=q['id'])
        subs = list(SUBJ_ZH)
        for k in range(16):
            sj = subject if k < 4 else subs[int(r.integers(len(subs)))]
            t = synth_zh(r, sj) if self.lang == 'zh' else synth_en(r, sj)
            if t['text'] not in self.used_texts:
                break
        self.used_texts.add(t['text'])
        return dict(segs=parse_template(t['text']), ans=t['ans'], work=t['work'], opts=t['opts'], wrong=t['wrong'],
                    src='synthetic')

    def make_prob(self, num, is_target, prefix):
        r = self.r
        S = self.S
        if is_target:
            c = dict(segs=[('text', self.row['question'])], ans=[], work=[], opts=None, wrong=None, src=self.row['id'])
            wl = int(r.integers(0, 4))
        else:
            c = self.neighbour_content()
            has_blank = any(k == 'blank' for k, _ in c['segs'])
            c['wrong_in_work'] = bool(c['wrong'] and c['work'] and not has_blank and r.random() < 0.5)
            wl = len(c['work']) + (1 if c['wrong_in_work'] else 0)
            if r.random() < 0.3:
                wl += 1
        own = S['num_style'] in ('question', 'di') and S['own_line']
        return dict(num=num, label=num_label(S['num_style'], num), is_target=is_target, prefix=prefix,
                    score=score_note(r, self.lang, S['score_fmt']) if S['scores'] else None, own_line=own, work_lines=wl, **c)

    # -- headers -------------------------------------------------------------------------------
    def place_header(self, x0, x1, y):
        S = self.S
        r = self.r
        pg = self.pg
        F = S['F']
        face = S['face']
        style = S['style']
        lang = self.lang
        if style == 'book':
            base = y + F * 0.8
            left = make_atoms(S['unit'], face, F * 0.8, ('hdr_run',))
            place(pg, left, x0, x0, x1, base, F, F)
            pn = make_atoms(str(S['page_no']), face, F * 0.8, ('hdr_run',))
            place(pg, pn, x1 - sum(a.w for a in pn), x0, x1 + 10, base, F, F)
            pg.rules.append((x0, base + F * 0.35, x1, base + F * 0.35, max(2, F // 14), 1))
            pg.elements.append(dict(case='header_title', bbox=pg.tag_bbox('hdr_run')))
            y = base + F * 1.3
            if r.random() < 0.6:
                ttl = make_atoms(S['title'], face, F * 1.25, ('hdr_title',), bold=True)
                tw = sum(a.w for a in ttl)
                base = y + F * 1.3
                pg.fills.append((x0, base - F * 1.35, x0 + tw + F * 2.0, base + F * 0.45, S['accent_fill']))
                place(pg, ttl, x0 + F, x0, x1, base, F, F * 1.25, layer=1)
                y = base + F * 1.2
            return y
        base = y + F * 1.5
        tsz = F * float(r.uniform(1.25, 1.55))
        ttl = make_atoms(S['title'], face, tsz, ('hdr_title',), bold=True)
        tw = sum(a.w for a in ttl)
        if tw > x1 - x0:
            tsz *= (x1 - x0) / tw * 0.97
            ttl = make_atoms(S['title'], face, tsz, ('hdr_title',), bold=True)
            tw = sum(a.w for a in ttl)
        place(pg, ttl, (x0 + x1) / 2 - tw / 2, x0, x1 + 10, base, F, tsz, layer=S['title_layer'])
        pg.elements.append(dict(case='header_title', bbox=pg.tag_bbox('hdr_title')))
        y = base + tsz * 0.5
        if style == 'test' and r.random() < 0.6:
            sub = '（满分 100 分，考试时间 90 分钟）' if lang == 'zh' else '(Total: 100 marks   Time: 90 minutes)'
            sa = make_atoms(sub, face, F * 0.85, ('hdr_sub',))
            sw = sum(a.w for a in sa)
            base = y + F * 1.4
            place(pg, sa, (x0 + x1) / 2 - sw / 2, x0, x1 + 10, base, F, F)
            y = base + F * 0.4
        if r.random() < 0.85:
            if lang == 'zh':
                fields = ['班级：', '姓名：', '学号：'] + (['得分：'] if style == 'test' or r.random() < 0.4 else [])
            else:
                fields = ['Name: ', 'Class: ', 'No.: '] + (['Score: '] if style == 'test' or r.random() < 0.4 else [])
            base = y + F * 1.6
            x = x0 + F * float(r.uniform(0, 2))
            for i, f in enumerate(fields):
                at = make_atoms(f, face, F, ('hdr_name',)) + make_atoms('_' * int(r.integers(7, 11)), face, F,
                                                                        ('hdr_name', f'hdr_nf{i}'), atomic=True)
                ex, _, _ = place(pg, at, x, x, x1 + 10 * F, base, F, F)
                x = ex + F * float(r.uniform(1.0, 2.2))
            S['name_fields'] = len(fields)
            pg.elements.append(dict(case='name_class_line', bbox=pg.tag_bbox('hdr_name')))
            y = base + F * 0.6
        if S['ncols'] == 1 or r.random() < 0.5:
            pass
        y += F * 0.6
        pg.rules.append((x0, y, x1, y, max(1, F // 20), 0)) if r.random() < 0.3 else None
        return y + F * 0.4

    def place_section(self, x0, x1, y, k):
        S = self.S
        F = S['F']
        txt = section_heading(self.r, self.lang, k)
        tag = f'sec{k}'
        at = make_atoms(txt, S['face'], F * 1.05, (tag,), bold=True)
        base = y + F * 1.35
        if S['style'] == 'book' and self.r.random() < 0.6:
            tw = sum(a.w for a in at)
            self.pg.fills.append((x0 - F * 0.3, base - F * 1.2, x0 + tw + F * 0.6, base + F * 0.45, S['accent_fill']))
            place(self.pg, at, x0, x0, x1, base, F * 1.4, F, layer=1)
        else:
            place(self.pg, at, x0, x0, x1, base, F * 1.4, F, layer=S['title_layer'])
        self.pg.elements.append(dict(case='section_heading', bbox=self.pg.tag_bbox(tag)))
        return base + F * 0.75

    # -- one column ----------------------------------------------------------------------------
    def fill_column(self, x0, x1, y, y_end, num, k_target, sec_k, tag_base, allow_target=True):
        """Lay out problems down a column; returns (ok, next_num, sec_k)."""
        r = self.r
        pg = self.pg
        k = 0
        placed_target = not allow_target
        while True:
            if r.random() < (0.22 if k == 0 else 0.08) and not (allow_target and k == k_target):
                yy = self.place_section(x0, x1, y, sec_k)
                sec_k += 1
                if yy > y_end:
                    break
                y = yy
            is_t = allow_target and k == k_target
            prefix = 'T' if is_t else f'{tag_base}{k}'
            prob = self.make_prob(num, is_t, prefix)
            n0 = (len(pg.glyphs), len(pg.rules), len(pg.elements), len(pg.fills))
            bottom, info = self.place_problem(prob, x0, x1, y)
            if info['text_bottom'] > y_end:
                # overflow: undo this block
                del pg.glyphs[n0[0]:]
                del pg.rules[n0[1]:]
                del pg.elements[n0[2]:]
                del pg.fills[n0[3]:]
                for t in [t for t in pg.boxes if t == prefix or t.startswith(prefix + 'n') or t.startswith(prefix + 's')
                          or t.startswith(prefix + 'b') or t.startswith(prefix + 'k') or t.startswith(prefix + 'o')]:
                    del pg.boxes[t]
                break
            self.probs.append(info)
            if is_t:
                placed_target = True
            y = bottom
            num += 1
            k += 1
            if k > 30:
                break
        return placed_target, num, sec_k


def page_style(r, row, lang):
    S = {}
    S['style'] = choice(r, ['worksheet', 'test', 'book'], [0.38, 0.32, 0.30])
    if S['style'] == 'test':
        S['ncols'] = 2 if r.random() < 0.5 else 1
        S['landscape_sheet'] = S['ncols'] == 2 and r.random() < 0.6
    elif S['style'] == 'worksheet':
        S['ncols'] = 2 if r.random() < 0.2 else 1
        S['landscape_sheet'] = False
    else:
        S['ncols'] = 2 if r.random() < 0.15 else 1
        S['landscape_sheet'] = False
    faces = FACES_ZH if lang == 'zh' else FACES_EN
    fn = choice(r, list(faces))
    S['face_name'] = fn
    S['face'] = Face(fn, faces[fn])
    S['F'] = int(r.integers(40, 54)) if S['ncols'] == 1 else int(r.integers(36, 46))
    F = S['F']
    if S['landscape_sheet']:
        W = int(F * r.uniform(84, 94))
        H = int(W / 1.414)
    else:
        W = int(F * (r.uniform(44, 52) if S['ncols'] == 1 else r.uniform(50, 56)))
        H = int(W * r.uniform(1.38, 1.45))
    S['W'], S['H'] = W, H
    S['lh'] = F * float(r.uniform(1.45, 1.9))
    S['para_gap'] = F * float(r.uniform(0.3, 1.3))
    S['label_gap'] = F * float(r.uniform(0.2, 0.6))
    S['label_bold'] = r.random() < 0.45
    S['num_style'] = choice(r, NUM_STYLES_ZH if lang == 'zh' else NUM_STYLES_EN)
    S['own_line'] = r.random() < 0.5
    S['hang'] = r.random() < 0.7
    S['indent'] = F * 2 if (lang == 'zh' and r.random() < 0.5) else 0
    S['scores'] = r.random() < 0.35
    S['score_pos'] = 'after' if r.random() < 0.5 else 'end'
    S['score_fmt'] = int(r.integers(4))
    S['score_scale'] = float(r.uniform(0.8, 1.0))
    S['hand_size'] = F * float(r.uniform(0.95, 1.25))
    S['hand_lh'] = max(S['lh'], S['hand_size'] * float(r.uniform(1.3, 1.5)))
    S['italic_vars'] = row['subject'] in ('math', 'physics') and S['face'].lat_i is not None and r.random() < 0.35
    S['blank_len'] = int(r.integers(6, 11))
    S['bracket'] = '（　　）' if lang == 'zh' else choice(r, ['(    )', '(　　)', '[    ]'])
    S['print_color'] = tuple(int(v) for v in (r.integers(15, 50, 3) if r.random() < 0.8 else r.integers(55, 85, 3)))
    S['accent'] = choice(r, [(30, 70, 150), (20, 110, 110), (140, 40, 50), (60, 60, 60), (90, 50, 130)])
    S['accent_fill'] = tuple(int(255 - (255 - c) * 0.18) for c in S['accent'])
    S['title_layer'] = 1 if (S['style'] == 'book' or r.random() < 0.2) else 0
    S['paper'] = tuple(int(v) for v in (np.array([250, 248, 242]) - r.integers(0, 14) - np.array([0, r.integers(0, 6), r.integers(0, 14)])))
    S['page_no'] = int(r.integers(3, 120))
    S['unit'] = (f'第{CN_NUM[int(r.integers(10))]}章  {SUBJ_ZH.get(row["subject"], "")}' if lang == 'zh'
                 else f'Unit {int(r.integers(1, 12))}  {SUBJ_EN.get(row["subject"], "")}')
    S['title'] = title_text(r, lang, row['subject'], row.get('grade', '8'), S['style'])
    S['book'] = S['style'] == 'book' and not S['landscape_sheet']
    S['gutter_side'] = choice(r, ['left', 'right'])
    return S


def layout_page(r, row, bank, lang):
    S = page_style(r, row, lang)
    W, H, F = S['W'], S['H'], S['F']
    k_t = int(choice(r, [0, 1, 2, 3, 4, 5], [0.2, 0.24, 0.22, 0.15, 0.11, 0.08]))
    num0 = int(r.integers(1, 13))
    state = r.bit_generator.state
    for attempt in range(8):
        r.bit_generator.state = state
        b = Builder(r, row, bank, lang, k_t)
        b.S = S
        ml = W * float(r.uniform(0.07, 0.11))
        mr = W * float(r.uniform(0.06, 0.10))
        mt = H * float(r.uniform(0.04, 0.06))
        mb = H * float(r.uniform(0.05, 0.07))
        ox = W if (S['book'] and S['gutter_side'] == 'left') else 0
        y = mt
        header = S['style'] != 'book' or r.random() < 0.8
        has_header = header and r.random() < 0.75
        if has_header:
            y = b.place_header(ox + ml, ox + W - mr, y)
        ncols = S['ncols']
        gapc = F * 2.0
        colw = (W - ml - mr - (ncols - 1) * gapc) / ncols
        tcol = int(r.integers(ncols))
        num = num0
        sec_k = 0 if num0 == 1 else int(r.integers(1, 3))
        ok = False
        for c in range(ncols):
            cx0 = ox + ml + c * (colw + gapc)
            placed, num, sec_k = b.fill_column(cx0, cx0 + colw, y, H - mb, num, k_t, sec_k, f'c{c}p',
                                               allow_target=(c == tcol))
            if c == tcol:
                ok = placed
            if c > 0 and r.random() < 0.6:
                xm = cx0 - gapc / 2
                b.pg.rules.append((xm, y, xm, H - mb, max(1, F // 18), 0))
        if ok:
            break
        k_t = max(0, k_t - 1)
    else:
        raise RuntimeError('target did not fit on the page')
    b.S.update(ml=ml, mr=mr, mt=mt, mb=mb, ox=ox, has_header=has_header, tcol=tcol, k_t=k_t)
    # page number at the bottom
    pn = (f'— {S["page_no"]} —' if r.random() < 0.5 else f'第 {S["page_no"] % 4 + 1} 页（共 4 页）') if lang == 'zh' else f'- {S["page_no"]} -'
    at = make_atoms(pn, S['face'], F * 0.8, ('page_no',))
    place(b.pg, at, ox + W / 2 - sum(a.w for a in at) / 2, 0, ox + W, H - mb * 0.45, F, F)
    b.pg.elements.append(dict(case='page_number', bbox=b.pg.tag_bbox('page_no')))
    # opposite page of an open exercise book
    if S['book']:
        oxo = 0 if ox == W else W
        b2 = Builder(r, row, bank, lang, -1)
        b2.S = dict(S)
        b2.S['num_style'] = choice(r, NUM_STYLES_ZH if lang == 'zh' else NUM_STYLES_EN)
        b2.pg = b.pg
        b2.used_ids, b2.used_texts = b.used_ids, b.used_texts
        b2.fill_column(oxo + W * 0.09, oxo + W * 0.91, H * 0.05, H * 0.94, int(r.integers(1, 9)), -1, 0, 'opp',
                       allow_target=False)
        bb = b.pg.tag_bbox(*[t for t in b.pg.boxes if t.startswith('opp')])
        if bb:
            b.pg.elements.append(dict(case='opposite_page', bbox=bb))
        b.opp_probs = b2.probs
    return b


# ----------------------------------------------------------------------------------------------
# rendering the page, then what the student and the teacher wrote on it
# ----------------------------------------------------------------------------------------------
def lowres_noise(r, h, w, cell, amp):
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    n = r.normal(0, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def render_page(r, b):
    S = b.S
    pg = b.pg
    W, H = S['W'], S['H']
    Wc = 2 * W if S['book'] else W
    paper = np.array(S['paper'], np.float32)
    can = np.empty((H, Wc, 3), np.float32)
    can[:] = paper
    tex = lowres_noise(r, H, Wc, S['F'] * 6, 2.2) + lowres_noise(r, H, Wc, S['F'] * 0.6, 0.9)
    can += tex[..., None]
    can += r.standard_normal((H, Wc), dtype=np.float32)[..., None] * 1.3
    if S['book']:
        oxo = 0 if S['ox'] == W else W
        can[:, oxo:oxo + W] *= float(r.uniform(0.95, 1.0))
    for (x0, y0, x1, y1, col) in pg.fills:
        can[max(0, int(y0)):int(y1), max(0, int(x0)):int(x1)] *= (np.array(col, np.float32) / 255.0)
    can = np.clip(can, 0, 255).astype(np.uint8)
    layers = [Image.new('L', (Wc, H), 0), Image.new('L', (Wc, H), 0)]
    draws = [ImageDraw.Draw(l) for l in layers]
    for (x, base, ch, spec, sz, layer) in pg.glyphs:
        draws[layer].text((x, base), ch, font=font(spec, sz), fill=255, anchor='ls')
    for (x0, y0, x1, y1, w, layer) in pg.rules:
        draws[layer].line([(x0, y0), (x1, y1)], fill=200, width=int(w))
    ink = Ink(can, np.zeros((H, Wc), bool))
    pc = S['print_color']
    for li, l in enumerate(layers):
        a = np.asarray(l).astype(np.float32) / 255.0
        if li == 0 and r.random() < 0.3:
            a = cv2.GaussianBlur(a, (0, 0), 0.7)
        col = pc if li == 0 else S['accent']
        ink.put(a, 0, 0, col, opacity=float(r.uniform(0.88, 0.98)))
    return ink


def target_keepout(b, H, Wc):
    """Keep-out: the target's text lines (not its number or score note), gaps between lines filled."""
    F = b.S['F']
    lines = b.pg.tag_lines('T')
    keep = np.zeros((H, Wc), bool)
    rects = []
    for i, (x0, y0, x1, y1) in enumerate(lines):
        y0e = y0 - F * 0.10
        y1e = y1 + F * 0.10
        if i + 1 < len(lines):
            y1e = max(y1e, lines[i + 1][1])
        rects.append((x0 - F * 0.12, y0e, x1 + F * 0.12, y1e))
    for (x0, y0, x1, y1) in rects:
        keep[max(0, int(y0)):int(math.ceil(y1)), max(0, int(x0)):int(math.ceil(x1))] = True
    return keep, rects


class Marker:
    def __init__(self, r, b, ink):
        self.r = r
        self.b = b
        self.ink = ink
        self.S = b.S
        self.F = b.S['F']
        self.pg = b.pg
        self.cases = []   # (case, bbox)
        F = self.F
        self.student = Hand(r, choice(r, [(25, 45, 150), (20, 30, 110), (30, 30, 40), (60, 60, 70), (40, 70, 170)],
                                      [0.42, 0.22, 0.15, 0.06, 0.15]), b.S['hand_size'])
        self.teacher = Hand(r, (int(r.integers(190, 225)), int(r.integers(15, 50)), int(r.integers(25, 60))),
                            F * float(r.uniform(1.1, 1.6)))
        self.teacher.weight = int(r.integers(0, 3))
        self.tthick = F * float(r.uniform(0.07, 0.12))
        self.near = cv2.dilate(ink.keep.astype(np.uint8), np.ones((int(F * 0.9) | 1, int(F * 0.9) | 1), np.uint8)).astype(bool)

    def touches_target(self, a, x0, y0):
        cl = self.ink._clip(a, x0, y0)
        if cl is None:
            return False
        s, cx0, cy0, cx1, cy1 = cl
        return bool(np.any((s > 0.05) & self.near[cy0:cy1, cx0:cx1]))

    def put(self, a, x0, y0, color, case, opacity=0.92, texture=None, pad=None):
        pad = int(self.F * 0.06) if pad is None else pad
        if self.ink.hits_keep(a, x0, y0, pad=pad):
            return False
        self.ink.put(a, x0, y0, color, opacity=opacity, texture=texture)
        h, w = a.shape
        ys, xs = np.nonzero(a > 0.05)
        if len(xs):
            bb = (x0 + xs.min(), y0 + ys.min(), x0 + xs.max(), y0 + ys.max())
            self.cases.append((case, bb))
            if case.startswith('t_') and self.touches_target(a, x0, y0):
                self.cases.append(('mark_touching_target_margin', bb))
        return True

    def write(self, hand, text, x, base, case, size=None, center=False, color=None, max_w=None):
        a, ox, by = hand_mask(self.r, hand, text, size)
        if max_w is not None:
            xs = np.nonzero(a.max(axis=0) > 0.1)[0]
            wid = (xs.max() - ox) if len(xs) else 0
            if wid > max_w:
                sz = (size or hand.size) * max_w / wid
                if sz < 0.72 * (size or hand.size):
                    return None
                a, ox, by = hand_mask(self.r, hand, text, sz)
        if center:
            ys, xs = np.nonzero(a > 0.1)
            if len(xs):
                x -= (xs.min() + xs.max()) / 2 - ox
        x0, y0 = int(round(x - ox)), int(round(base - by))
        tex = np.clip(0.82 + lowres_noise(self.r, a.shape[0], a.shape[1], max(4, self.F * 0.5), 0.12), 0.55, 1.0)
        ok = self.put(a, x0, y0, color or hand.color, case, opacity=hand.opacity, texture=tex)
        if not ok:
            return None
        ys, xs = np.nonzero(a > 0.1)
        if not len(xs):
            return None
        return (x0 + xs.min(), y0 + ys.min(), x0 + xs.max(), y0 + ys.max())

    def strike(self, bb, color, case):
        r = self.r
        x0, y0, x1, y1 = bb
        F = self.F
        kind = r.random()
        if kind < 0.45:
            n = int(r.integers(1, 3))
            paths = []
            for i in range(n):
                yy = (y0 + y1) / 2 + (i - (n - 1) / 2) * F * 0.18
                paths.append(smooth_path(r, [[x0 - F * 0.15, yy + r.normal(0, F * 0.05)], [x1 + F * 0.15, yy + r.normal(0, F * 0.05)]], n=12, wob=F * 0.01))
        elif kind < 0.75:
            paths = cross_strokes(r, (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * 0.9)
        else:
            pts = []
            nz = max(4, int((x1 - x0) / (F * 0.22)))
            for i in range(nz + 1):
                pts.append([x0 + (x1 - x0) * i / nz, y0 + F * 0.1 if i % 2 == 0 else y1 - F * 0.1])
            paths = [smooth_path(r, pts, n=4, wob=F * 0.01)]
        for p in paths:
            a, ax, ay = stroke_mask(p, self.F * 0.07, taper=(1.0, 0.85))
            self.put(a, ax, ay, color, case)

    # -- the student ---------------------------------------------------------------------------
    def student_work(self, info):
        r = self.r
        F = self.F
        pg = self.pg
        hand = self.student
        pre = info['prefix']
        written = []
        wrong_done = False
        for j in range(info['nblank']):
            it = pg.boxes.get(f'{pre}b{j}')
            if not it or j >= len(info['ans']) or not info['ans'][j]:
                continue
            base = sorted(it)[0]
            bx = it[base]
            cx = (bx[0] + bx[2]) / 2
            yb = base - F * float(r.uniform(0.02, 0.18))
            if info['wrong'] and not wrong_done and r.random() < 0.35:
                bbw = self.write(hand, info['wrong'], cx - F * 0.8, yb, 's_answer_blank', center=True)
                if bbw:
                    self.strike(bbw, hand.color, 's_crossed_out')
                    wrong_done = True
                    bb = self.write(hand, info['ans'][j], bbw[2] + F * 0.4, yb - F * 0.1, 's_answer_blank')
                else:
                    bb = None
            else:
                bb = self.write(hand, info['ans'][j], cx, yb, 's_answer_blank', center=True)
            if bb:
                written.append(bb)
        for j in range(info['nbracket']):
            it = pg.boxes.get(f'{pre}k{j}')
            ans = info['ans'][-1] if info['ans'] else None
            if not it or not ans:
                continue
            base = sorted(it)[0]
            bx = it[base]
            bb = self.write(hand, ans, (bx[0] + bx[2]) / 2, base - F * 0.05, 's_answer_bracket', center=True)
            if bb:
                written.append(bb)
        wx0, wy0, wx1, wy1 = info['work_rect']
        work = info.get('work') or []
        hl = self.S['hand_lh']
        y = wy0 + F * 0.3 + hand.size * 1.0
        x = wx0 + F * float(r.uniform(0.0, 1.5))
        if info.get('wrong_in_work') and not wrong_done:
            bbw = self.write(hand, info['wrong'], x, y, 's_working', max_w=info['x1'] + F * 0.8 - x)
            if bbw:
                self.strike(bbw, hand.color, 's_crossed_out')
                y += hl
        for line in work:
            if y > wy1 + hl * 0.2:
                break
            xx = x + r.normal(0, F * 0.15)
            bb = self.write(hand, line, xx, y, 's_working', max_w=info['x1'] + F * 0.8 - xx)
            if bb:
                written.append(bb)
            y += hl
        return written

    # -- the teacher ---------------------------------------------------------------------------
    def tick_or_cross(self, x, y, good, case_prefix='t_'):
        r = self.r
        s = self.F * float(r.uniform(1.1, 2.0))
        col = self.teacher.color
        if good:
            paths = [tick_pts(r, x, y, s)]
            case = case_prefix + 'tick'
        else:
            paths = cross_strokes(r, x, y - s * 0.3, s * 0.8)
            case = case_prefix + 'cross'
        masks = [stroke_mask(p, self.tthick, taper=(1.1, 0.5)) for p in paths]
        if any(self.ink.hits_keep(a, ax, ay, pad=int(self.F * 0.06)) for a, ax, ay in masks):
            return False
        for a, ax, ay in masks:
            self.put(a, ax, ay, col, case)
        return True

    def ring(self, box, case):
        r = self.r
        x0, y0, x1, y1 = box
        F = self.F
        for shrink in (1.0, 0.8, 0.65, 0.5):
            rx = ((x1 - x0) / 2 + F * 0.35) * shrink + F * 0.1
            ry = ((y1 - y0) / 2 + F * 0.3) * max(shrink, 0.85)
            p = ring_pts(r, (x0 + x1) / 2, (y0 + y1) / 2, rx, ry)
            a, ax, ay = stroke_mask(p, self.tthick * 0.85, taper=(1.0, 0.7))
            if self.put(a, ax, ay, self.teacher.color, case):
                return True
        return False

    def score_mark(self, x, base, case='t_score'):
        r = self.r
        txt = choice(r, ['-2', '-1', '+1', '-3', '8/10', '3/5', '0', '-4', '2\'', '½'])
        return self.write(self.teacher, txt, x, base, case)

    def teacher_marks(self, answered):
        r = self.r
        F = self.F
        pg = self.pg
        S = self.S
        tcol = self.teacher.color
        for info in self.b.probs:
            pre = info['prefix']
            lab = pg.tag_bbox(pre + 'n')
            txt_lines = pg.tag_lines(pre)
            if not txt_lines or lab is None:
                continue
            first = txt_lines[0]
            if info['is_target']:
                # the target was left unanswered; marks may touch its margin but never its words
                if r.random() < 0.4:
                    self.ring(lab, 't_circle_target_number')
                if r.random() < 0.45:
                    good = r.random() < 0.15
                    spots = [(lab[0] - F * 1.2, lab[3]), (txt_lines[-1][2] + F * 0.9, txt_lines[-1][3]),
                             (info['x1'] + F * 0.6, first[3])]
                    for (x, y) in [spots[int(i)] for i in r.permutation(len(spots))]:
                        if self.tick_or_cross(x, y, good):
                            break
                if r.random() < 0.2:
                    self.score_mark(info['x1'] + F * float(r.uniform(0.2, 1.2)), first[3] - F * 0.1)
                if r.random() < 0.1:
                    self.write(self.teacher, '?', txt_lines[-1][2] + F * 0.5, txt_lines[-1][3] - F * 0.2, 't_question_mark')
                continue
            if not answered.get(pre) and r.random() < 0.8:
                continue
            if r.random() < 0.85:
                good = r.random() < 0.65 and bool(answered.get(pre))
                wb = answered.get(pre)
                if wb and r.random() < 0.6:
                    last = max(wb, key=lambda q: q[2])
                    spot = (last[2] + F * 0.5, last[3])
                elif r.random() < 0.5:
                    spot = (lab[0] - F * 1.0, lab[3])
                else:
                    spot = ((lab[0] + lab[2]) / 2 + F * 0.2, lab[3] + F * 0.2)
                self.tick_or_cross(spot[0], spot[1], good)
                if not good and r.random() < 0.35:
                    self.ring(lab, 't_circle_neighbour_number')
            if r.random() < 0.22:
                self.score_mark(info['x1'] + F * float(r.uniform(0.2, 0.9)), first[3])
            if r.random() < 0.08:
                # wavy underline under part of a neighbour's text
                ln = txt_lines[int(r.integers(len(txt_lines)))]
                xa = ln[0] + (ln[2] - ln[0]) * float(r.uniform(0, 0.4))
                xb = xa + (ln[2] - xa) * float(r.uniform(0.4, 1.0))
                xs = np.linspace(xa, xb, 40)
                ys = ln[3] + F * 0.08 + np.sin((xs - xa) / (F * 0.35)) * F * 0.08
                a, ax, ay = stroke_mask(np.column_stack([xs, ys]), self.tthick * 0.7)
                self.put(a, ax, ay, tcol, 't_underline')
        # a comment in red beside a neighbour
        neigh = [i for i in self.b.probs if not i['is_target']]
        tinfo = [i for i in self.b.probs if i['is_target']]
        near = sorted(neigh, key=lambda i: abs(i['text_bottom'] - tinfo[0]['text_bottom']))[:3] if tinfo else neigh
        if near and r.random() < 0.55:
            info = near[int(r.integers(len(near)))]
            txt = choice(r, COMMENTS_ZH if self.b.lang == 'zh' else COMMENTS_EN)
            lines = pg.tag_lines(info['prefix'])
            if lines:
                spots = [(lines[0][2] + F * 0.8, lines[0][3]), (info['work_rect'][0] + F * 4, info['work_rect'][1] + F * 1.2),
                         (info['x1'] - F * 4, lines[-1][3] + F * 1.3)]
                for (x, y) in [spots[int(i)] for i in r.permutation(len(spots))]:
                    if self.write(self.teacher, txt, x, y, 't_comment', size=self.teacher.size * 0.9):
                        break
        # big score at the top of the page
        if S.get('has_header') and S['style'] != 'book' and r.random() < 0.75:
            hb = pg.tag_bbox('hdr_title')
            nf = pg.tag_lines(f'hdr_nf{S.get("name_fields", 0) - 1}') if S.get('name_fields') else []
            sc = choice(r, ['86', '92', '78', '100', '65', '88', 'A', 'A+', 'B', '95'])
            if S['style'] == 'test' and nf and r.random() < 0.6:
                x, y = (nf[0][0] + nf[0][2]) / 2, nf[0][3] - F * 0.2
                bb = self.write(self.teacher, sc, x, y, 't_page_score', size=F * 1.6, center=True)
            else:
                x = S['ox'] + S['W'] - S['mr'] - F * float(r.uniform(3, 6))
                y = (hb[1] if hb else S['mt']) + F * 1.8
                bb = self.write(self.teacher, sc, x, y, 't_page_score', size=F * float(r.uniform(2.2, 3.4)))
            if bb and r.random() < 0.6:
                for k in range(2):
                    yy = bb[3] + F * (0.2 + 0.25 * k)
                    p = smooth_path(r, [[bb[0] - F * 0.2, yy], [bb[2] + F * 0.3, yy + r.normal(0, F * 0.06)]], n=10)
                    a, ax, ay = stroke_mask(p, self.tthick, taper=(1.0, 0.6))
                    self.put(a, ax, ay, tcol, 't_page_score')
        # stamps
        if r.random() < 0.45:
            self.stamp('date')
        if r.random() < 0.18:
            self.stamp('reward')

    def stamp(self, kind):
        r = self.r
        F = self.F
        S = self.S
        col = choice(r, [(200, 30, 50), (40, 60, 170), (120, 40, 140)], [0.6, 0.3, 0.1])
        if kind == 'date':
            m, d = int(r.integers(1, 13)), int(r.integers(1, 29))
            txt = choice(r, [f'2024.{m:02d}.{d:02d}', f'{m}月{d}日', f'24-{m:02d}-{d:02d}', f'已阅 {m}.{d}'])
            sz = F * float(r.uniform(0.7, 1.0))
            spec = F_SANS_B if has_cjk(txt) else L_DVS_B
            f = font(spec, sz)
            tw = int(f.getlength(txt))
            wpx, hpx = tw + int(sz * 1.2), int(sz * 1.9)
            im = Image.new('L', (wpx + 8, hpx + 8), 0)
            dr = ImageDraw.Draw(im)
            dr.rounded_rectangle([4, 4, wpx + 3, hpx + 3], radius=int(sz * 0.3), outline=255, width=max(2, int(sz * 0.09)))
            dr.text((4 + wpx / 2, 4 + hpx / 2), txt, font=f, fill=255, anchor='mm')
            case = 't_date_stamp'
        else:
            txt = choice(r, ['优', '棒', 'A+', 'Great!', '好'])
            sz = F * float(r.uniform(1.2, 1.8))
            spec = F_SERIF_B if has_cjk(txt) else L_DVSE_B
            f = font(spec, sz)
            dmt = int(max(f.getlength(txt) + sz * 0.9, sz * 2.0))
            im = Image.new('L', (dmt + 8, dmt + 8), 0)
            dr = ImageDraw.Draw(im)
            dr.ellipse([4, 4, dmt + 3, dmt + 3], outline=255, width=max(2, int(sz * 0.1)))
            dr.text((4 + dmt / 2, 4 + dmt / 2), txt, font=f, fill=255, anchor='mm')
            case = 't_reward_stamp'
        im = im.rotate(float(r.uniform(-18, 18)), resample=Image.BILINEAR, expand=True)
        a = np.asarray(im).astype(np.float32) / 255.0
        tex = np.clip(0.55 + lowres_noise(r, a.shape[0], a.shape[1], max(3, F * 0.15), 0.35) + r.normal(0, 0.15, a.shape), 0, 1).astype(np.float32)
        tlines = self.pg.tag_lines('T')
        spots = []
        xr = S['ox'] + S['W'] - S['mr']
        if S.get('has_header'):
            spots.append((xr - a.shape[1] - F * float(r.uniform(0, 3)), S['mt'] + F * float(r.uniform(0, 2))))
        tgt = [i for i in self.b.probs if i['is_target']]
        ty = tgt[0]['y_top'] if tgt else 0
        near = sorted([i for i in self.b.probs if not i['is_target']], key=lambda i: abs(i['y_top'] - ty))[:3]
        for info in near:
            spots.append((info['x1'] - a.shape[1] - F * float(r.uniform(0, 2)), info['text_bottom'] - a.shape[0] * 0.3))
            spots.append((info['x1'] + F * float(r.uniform(0.2, 1.0)), info['y_top']))
        if tlines:
            spots.append((S['ox'] + S['ml'] * 0.1, tlines[0][1] - a.shape[0] * 0.2))
        for i in r.permutation(len(spots)):
            x, y = spots[int(i)]
            if self.put(a, int(x), int(y), col, case, opacity=float(r.uniform(0.6, 0.85)), texture=tex):
                return True
        return False


# ----------------------------------------------------------------------------------------------
# objects lying on the page: pen, ruler
# ----------------------------------------------------------------------------------------------
def sprite_pen(r, W):
    L = int(W * r.uniform(0.5, 0.66))
    D = int(W * r.uniform(0.036, 0.05))
    pad = 4
    h, w = D + 2 * pad, L + 2 * pad
    u = np.arange(w, dtype=np.float32)[None, :] - pad
    v = (np.arange(h, dtype=np.float32)[:, None] - pad - D / 2) / (D / 2)
    tip = L * 0.11
    body_col = np.array(choice(r, [(40, 70, 190), (30, 30, 35), (235, 235, 232), (225, 185, 40), (200, 40, 50), (60, 140, 90)]), np.float32)
    cap_col = np.array(choice(r, [(30, 30, 35), (40, 70, 190), (200, 40, 50)]), np.float32)
    rad = np.ones_like(u)
    rad = np.where(u > L - tip, np.clip((L - u) / tip, 0, 1) * 0.75 + 0.05, rad)
    rad = np.where(u < D * 0.5, np.sqrt(np.clip(1 - ((D * 0.5 - u) / (D * 0.5)) ** 2, 0, 1)), rad)
    inside = (np.abs(v) <= rad) & (u >= 0) & (u <= L)
    vn = np.clip(np.abs(v) / np.maximum(rad, 1e-3), 0, 1)
    shade = 0.45 + 0.55 * np.sqrt(1 - vn ** 2)
    col = np.broadcast_to(body_col, (h, w, 3)).copy()
    capm = (u < L * 0.32)
    col[np.broadcast_to(capm, (h, w))] = cap_col
    tipm = np.broadcast_to(u > L - tip, (h, w))
    col[tipm] = (175, 175, 180)
    clip = (u > L * 0.06) & (u < L * 0.28) & (np.abs(v + 0.0) < 0.22)
    col[np.broadcast_to(clip, (h, w))] = (200, 200, 205)
    rgb = col * shade[..., None]
    hl = np.exp(-((v + 0.45) / 0.16) ** 2) * 90
    rgb = np.clip(rgb + hl[..., None], 0, 255)
    alpha = inside.astype(np.float32)
    alpha = cv2.GaussianBlur(alpha, (0, 0), 0.8)
    return rgb.astype(np.uint8), alpha


def sprite_ruler(r, W, mm):
    L = int(W * r.uniform(0.6, 0.8))
    D = int(mm * r.uniform(28, 36))
    kind = choice(r, ['clear', 'white', 'wood', 'yellow'], [0.45, 0.25, 0.15, 0.15])
    base = {'clear': (228, 236, 242, 60), 'white': (244, 244, 238, 255), 'wood': (206, 168, 112, 255),
            'yellow': (240, 212, 90, 240)}[kind]
    im = Image.new('RGBA', (L, D), base)
    dr = ImageDraw.Draw(im)
    tick_col = (25, 25, 30, 235) if kind != 'clear' else (20, 20, 25, 220)
    x0 = mm * 4
    n = int((L - 2 * x0) / mm)
    f = font(L_DVS, max(8, mm * 2.6))
    lw = max(1, int(mm * 0.14))
    for i in range(n + 1):
        x = x0 + i * mm
        tl = mm * (6 if i % 10 == 0 else 4.2 if i % 5 == 0 else 2.8)
        dr.line([(x, 0), (x, tl)], fill=tick_col, width=lw)
        if i % 10 == 0:
            dr.text((x, tl + mm * 0.8), str(i // 10), font=f, fill=tick_col, anchor='mt')
    dr.rectangle([0, 0, L - 1, D - 1], outline=(255, 255, 255, 160) if kind == 'clear' else (120, 110, 90, 200), width=max(1, int(mm * 0.25)))
    a = np.asarray(im).astype(np.float32)
    rgb = a[..., :3].astype(np.uint8)
    alpha = a[..., 3] / 255.0
    return rgb, alpha, kind


def place_sprite(mk, rgb, alpha, cx, cy, ang, case, shadow_off, shadow_blur, shadow_strength):
    h, w = alpha.shape
    M = cv2.getRotationMatrix2D((w / 2, h / 2), ang, 1.0)
    c, s = abs(M[0, 0]), abs(M[0, 1])
    nw, nh = int(h * s + w * c) + 4, int(h * c + w * s) + 4
    M[0, 2] += nw / 2 - w / 2
    M[1, 2] += nh / 2 - h / 2
    rgb2 = cv2.warpAffine(rgb, M, (nw, nh), flags=cv2.INTER_LINEAR)
    a2 = cv2.warpAffine(alpha.astype(np.float32), M, (nw, nh), flags=cv2.INTER_LINEAR)
    x0, y0 = int(cx - nw / 2), int(cy - nh / 2)
    pad = int(shadow_blur * 3 + max(abs(shadow_off[0]), abs(shadow_off[1]))) + 2
    sh = np.zeros((nh + 2 * pad, nw + 2 * pad), np.float32)
    ox, oy = pad + int(shadow_off[0]), pad + int(shadow_off[1])
    sh[oy:oy + nh, ox:ox + nw] = np.minimum(a2 * 1.5, 1)
    sh = cv2.GaussianBlur(sh, (0, 0), shadow_blur)
    if mk.ink.hits_keep(a2, x0, y0, pad=int(mk.F * 0.1)) or mk.ink.hits_keep((sh > 0.15).astype(np.float32), x0 - pad, y0 - pad):
        return None
    mk.ink.darken(sh, x0 - pad, y0 - pad, shadow_strength)
    mk.ink.put_rgba(rgb2, a2, x0, y0)
    ys, xs = np.nonzero(a2 > 0.05)
    bb = (x0 + xs.min(), y0 + ys.min(), x0 + xs.max(), y0 + ys.max())
    mk.cases.append((case, bb))
    return bb


def place_objects(r, mk):
    b = mk.b
    S = b.S
    F = S['F']
    W = S['W']
    mm = W / (420 if S['landscape_sheet'] else 210)
    tinfo = [i for i in b.probs if i['is_target']][0]
    neigh = [i for i in b.probs if not i['is_target'] and abs(i['x0'] - tinfo['x0']) < 5]
    neigh.sort(key=lambda i: abs(i['y_top'] - tinfo['y_top']))
    neigh = neigh[:3]
    out = []
    want = []
    if r.random() < 0.22:
        want.append('pen')
    if r.random() < 0.16:
        want.append('ruler')
    for obj in want:
        if obj == 'pen':
            rgb, alpha = sprite_pen(r, W)
        else:
            rgb, alpha, _ = sprite_ruler(r, W, mm)
        for attempt in range(14):
            if not neigh:
                break
            info = neigh[int(r.integers(len(neigh)))]
            bb = mk.pg.tag_bbox(info['prefix']) or (info['x0'], info['y_top'], info['x1'], info['text_bottom'])
            cy = (bb[1] + bb[3]) / 2 + r.normal(0, F * 0.4)
            if info['y_top'] > tinfo['y_top']:
                cy += F * 0.3 * attempt / 3
            else:
                cy -= F * 0.3 * attempt / 3
            cx = (bb[0] + bb[2]) / 2 + r.normal(0, W * 0.12)
            ang = float(r.normal(0, 12)) + (180 if r.random() < 0.5 else 0)
            res = place_sprite(mk, rgb, alpha, cx, cy, ang, obj, (F * 0.35, F * 0.45), F * 0.35,
                               0.35 if obj == 'pen' else 0.2)
            if res:
                out.append(obj)
                break
    return out


# ----------------------------------------------------------------------------------------------
# camera
# ----------------------------------------------------------------------------------------------
def curl_fwd(x, y, C):
    if C is None:
        return x, y
    d = np.abs(x - C['gx'])
    t = np.clip(1 - d / C['B'], 0, 1)
    sg = np.where(x >= C['gx'], 1.0, -1.0)
    x1 = C['gx'] + sg * d * (1 - C['alpha'] * t ** 2)
    k = 1 - C['kappa'] * t ** 2
    return C['pcx'] + (x1 - C['pcx']) * k, C['pcy'] + (y - C['pcy']) * k


def curl_inv(u, v, C):
    if C is None:
        return u, v
    x = u.copy()
    y = v.copy()
    for _ in range(8):
        t = np.clip(1 - np.abs(x - C['gx']) / C['B'], 0, 1)
        k = 1 - C['kappa'] * t ** 2
        x1 = C['pcx'] + (u - C['pcx']) / k
        y = C['pcy'] + (v - C['pcy']) / k
        d1 = np.abs(x1 - C['gx'])
        sg = np.where(x1 >= C['gx'], 1.0, -1.0)
        x = C['gx'] + sg * d1 / (1 - C['alpha'] * t ** 2)
    return x, y


def apply_h(Hm, x, y):
    den = Hm[2, 0] * x + Hm[2, 1] * y + Hm[2, 2]
    return (Hm[0, 0] * x + Hm[0, 1] * y + Hm[0, 2]) / den, (Hm[1, 0] * x + Hm[1, 1] * y + Hm[1, 2]) / den


def fwd(pts, Hm, C):
    pts = np.asarray(pts, np.float64)
    x, y = curl_fwd(pts[:, 0], pts[:, 1], C)
    u, v = apply_h(Hm, x, y)
    return np.column_stack([u, v])


def rect_outline(x0, y0, x1, y1, n=8):
    t = np.linspace(0, 1, n)
    return np.vstack([np.column_stack([x0 + (x1 - x0) * t, np.full(n, y0)]),
                      np.column_stack([np.full(n, x1), y0 + (y1 - y0) * t]),
                      np.column_stack([x1 - (x1 - x0) * t, np.full(n, y1)]),
                      np.column_stack([np.full(n, x0), y1 - (y1 - y0) * t])])


def desk_background(r, Hf, Wf):
    kind = choice(r, ['wood', 'light', 'dark', 'cloth', 'white'], [0.35, 0.2, 0.15, 0.15, 0.15])
    yy, xx = np.mgrid[0:Hf, 0:Wf].astype(np.float32)
    if kind == 'wood':
        base = np.array(choice(r, [(150, 105, 70), (180, 135, 90), (120, 80, 55), (200, 160, 115)]), np.float32)
        ang = r.uniform(0, math.pi)
        c = xx * math.cos(ang) + yy * math.sin(ang)
        warp = lowres_noise(r, Hf, Wf, 200, 25)
        grain = np.sin((c + warp) / r.uniform(6, 14)) * 0.5 + np.sin((c + warp * 2) / r.uniform(25, 60)) * 0.5
        img = base[None, None, :] * (1 + 0.08 * grain[..., None]) + lowres_noise(r, Hf, Wf, 8, 3)[..., None]
    elif kind == 'cloth':
        base = np.array(choice(r, [(70, 100, 150), (90, 130, 90), (150, 80, 80), (120, 120, 130)]), np.float32)
        weave = (np.sin(xx * 1.3) * np.sin(yy * 1.3)) * 6
        img = base[None, None, :] + weave[..., None] + lowres_noise(r, Hf, Wf, 60, 8)[..., None]
    else:
        base = np.array({'light': (205, 198, 185), 'dark': (55, 52, 50), 'white': (228, 228, 225)}[kind], np.float32)
        base = base + r.normal(0, 8, 3)
        img = base[None, None, :] + lowres_noise(r, Hf, Wf, 120, 6)[..., None]
    return np.clip(img, 0, 255).astype(np.float32), kind


def make_finger(r, Hf, Wf, keep_img):
    """A thumb/finger poking in from an edge, never over the target's words.  Returns (rgb, alpha) or None."""
    yy, xx = np.mgrid[0:Hf, 0:Wf].astype(np.float32)
    skin = np.array(choice(r, [(225, 175, 145), (205, 150, 120), (185, 130, 100), (235, 190, 165)]), np.float32)
    for attempt in range(16):
        edge = choice(r, ['bottom', 'left', 'right', 'top'], [0.45, 0.22, 0.22, 0.11])
        wdt = float(r.uniform(0.09, 0.15)) * max(Hf, Wf)
        lin = float(r.uniform(0.10, 0.24)) * (Hf if edge in ('bottom', 'top') else Wf)
        if edge == 'bottom':
            px, py, dx, dy = r.uniform(0.1, 0.9) * Wf, Hf + wdt * 0.3, 0.0, -1.0
        elif edge == 'top':
            px, py, dx, dy = r.uniform(0.1, 0.9) * Wf, -wdt * 0.3, 0.0, 1.0
        elif edge == 'left':
            px, py, dx, dy = -wdt * 0.3, r.uniform(0.15, 0.95) * Hf, 1.0, 0.0
        else:
            px, py, dx, dy = Wf + wdt * 0.3, r.uniform(0.15, 0.95) * Hf, -1.0, 0.0
        a = r.uniform(-0.6, 0.6)
        dx, dy = dx * math.cos(a) - dy * math.sin(a), dx * math.sin(a) + dy * math.cos(a)
        u = (xx - px) * dx + (yy - py) * dy
        v = -(xx - px) * dy + (yy - py) * dx
        tipc = lin + wdt * 0.3 - wdt / 2
        rr = wdt / 2 * (1 + 0.08 * np.clip(-u / wdt, 0, 3))
        body = (u <= tipc) & (np.abs(v) <= rr)
        cap = ((u - tipc) ** 2 / (wdt * 0.62) ** 2 + v ** 2 / (wdt / 2) ** 2) <= 1
        m = (body | cap).astype(np.float32)
        if m.sum() < 100:
            continue
        if np.any((m > 0) & keep_img):
            continue
        vn = np.clip(np.abs(v) / (wdt / 2), 0, 1)
        shade = 0.5 + 0.5 * np.sqrt(1 - vn ** 2) ** 0.7
        rgb = skin[None, None, :] * shade[..., None]
        nail = (((u - (tipc - wdt * 0.05)) ** 2 / (wdt * 0.42) ** 2 + v ** 2 / (wdt * 0.3) ** 2) <= 1) & (u > tipc - wdt * 0.45)
        rgb[nail] = rgb[nail] * 0.55 + np.array([245, 215, 210], np.float32) * 0.45
        rgb += lowres_noise(r, Hf, Wf, 30, 4)[..., None]
        blur = float(r.uniform(1.2, 3.5))
        alpha = cv2.GaussianBlur(m, (0, 0), blur)
        rgb = cv2.GaussianBlur(rgb, (0, 0), blur * 0.7)
        return np.clip(rgb, 0, 255), alpha, edge
    return None


def soft_shadow(r, Hf, Wf, kind):
    yy, xx = np.mgrid[0:Hf, 0:Wf].astype(np.float32)
    m = np.zeros((Hf, Wf), np.float32)
    if kind == 'phone':
        w, h = r.uniform(0.35, 0.6) * Wf, r.uniform(0.5, 0.9) * Hf
        cx = choice(r, [-w * 0.25, Wf + w * 0.25]) + r.normal(0, 30)
        cy = r.uniform(-0.2, 0.4) * Hf
        ang = r.uniform(-0.5, 0.5)
        u = (xx - cx) * math.cos(ang) + (yy - cy) * math.sin(ang)
        v = -(xx - cx) * math.sin(ang) + (yy - cy) * math.cos(ang)
        m = ((np.abs(u) < w / 2) & (np.abs(v) < h / 2)).astype(np.float32)
        m = cv2.GaussianBlur(m, (0, 0), float(r.uniform(12, 35)))
    else:
        side = choice(r, ['left', 'right', 'bottom', 'top'])
        for i in range(int(r.integers(3, 6))):
            if side in ('left', 'right'):
                cx = (0 if side == 'left' else Wf) + r.normal(0, 60)
                cy = r.uniform(0.1, 0.9) * Hf
            else:
                cx = r.uniform(0.1, 0.9) * Wf
                cy = (Hf if side == 'bottom' else 0) + r.normal(0, 60)
            ax, ay = r.uniform(0.12, 0.3) * Wf, r.uniform(0.1, 0.25) * Hf
            m = np.maximum(m, (((xx - cx) / ax) ** 2 + ((yy - cy) / ay) ** 2 <= 1).astype(np.float32))
        m = cv2.GaussianBlur(m, (0, 0), float(r.uniform(25, 60)))
    return m


def measure_char_px(Hm, C, lines, h_ref):
    hs = []
    for (x0, y0, x1, y1) in lines:
        ym = (y0 + y1) / 2
        for x in (x0 + 2, (x0 + x1) / 2, x1 - 2):
            p = fwd([[x, ym - h_ref / 2], [x, ym + h_ref / 2]], Hm, C)
            hs.append(float(np.hypot(*(p[1] - p[0]))))
    return min(hs), max(hs)


def shoot(r, b, ink, keep_rects, attempt):
    """Photograph the marked page.  Returns (jpeg bytes, info dict, ok)."""
    S = b.S
    F = S['F']
    W = S['W']
    pg = b.pg
    can = ink.c
    Hc, Wc = can.shape[:2]
    g = [1.0, 1.0, 0.7, 0.4, 0.0, 0.0][min(attempt, 5)]
    portrait = r.random() < 0.55
    Wf, Hf = (960, 1280) if portrait else (1280, 960)
    tlines = pg.tag_lines('T')
    parts = tlines + [pg.tag_bbox('Tn')] + ([pg.tag_bbox('Ts')] if pg.tag_bbox('Ts') else [])
    tb = [min(p[0] for p in parts), min(p[1] for p in parts), max(p[2] for p in parts), max(p[3] for p in parts)]
    ctx, cty = (tb[0] + tb[2]) / 2, (tb[1] + tb[3]) / 2
    if b.lang == 'zh':
        spec, ch = S['face'].cjk, '国'
    else:
        spec, ch = (S['face'].lat or S['face'].cjk), 'H'
    _, t_, _, b_ = font(spec, F).getbbox(ch, anchor='ls')
    h_ref = float(b_ - t_)
    far = r.random() < 0.55
    h_want = float(r.uniform(18.8, 29.5) if far else r.uniform(31, 50))
    C = None
    if S['book']:
        C = dict(gx=float(W), B=float(r.uniform(0.18, 0.32)) * W, alpha=float(r.uniform(0.12, 0.32)),
                 kappa=float(r.uniform(0.015, 0.06)), pcx=ctx, pcy=cty, shade=float(r.uniform(0.15, 0.4)))
    rot_big = r.random() < 0.35
    off = r.random() < 0.4
    persp = r.random() < 0.65
    pts_check = np.vstack([rect_outline(p[0] - F * 0.15, p[1] - F * 0.1, p[2] + F * 0.15, p[3] + F * 0.1) for p in parts])
    others = []
    for info in b.probs + getattr(b, 'opp_probs', []):
        if info['is_target']:
            continue
        bb = pg.tag_bbox(info['prefix'])
        if bb:
            others.append(((bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2))
    n_probs = len(others)
    if attempt < 4:
        for el in pg.elements:
            bb = el['bbox']
            if bb and el['case'] in ('header_title', 'name_class_line', 'section_heading'):
                others.append(((bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2))
    others = np.array(others, np.float64).reshape(-1, 2)
    margin = np.zeros(len(others))
    margin[:n_probs] = 0.06 if attempt < 3 else 0.03
    cov_need = 0.6 if attempt < 2 else (0.45 if attempt < 5 else 0.3)
    if attempt >= 5:
        rot_big = off = False
    outline = rect_outline(0, 0, Wc, Hc, 12)
    Hm = None
    for it in range(120):
        damp = 1.0 if it < 30 else (0.6 if it < 60 else (0.3 if it < 90 else 0.0))
        theta = float(r.uniform(-10, 10) if rot_big else np.clip(r.normal(0, 2.5), -6, 6)) * damp
        s = h_want / h_ref * (0.97 ** max(0, it - 8))
        if off:
            q = (Wf / 2 + float(r.choice([-1, 1]) * r.uniform(0.08, 0.2) * Wf) * damp,
                 Hf / 2 + float(r.choice([-1, 1]) * r.uniform(0.05, 0.17) * Hf) * damp)
        else:
            q = (Wf / 2 + r.normal(0, 0.035) * Wf * damp, Hf / 2 + r.normal(0, 0.035) * Hf * damp)
        c, sn = math.cos(math.radians(theta)) * s, math.sin(math.radians(theta)) * s
        A = np.array([[c, -sn, 0], [sn, c, 0], [0, 0, 1]], np.float64)
        A[0, 2] = q[0] - (c * ctx - sn * cty)
        A[1, 2] = q[1] - (sn * ctx + c * cty)
        pj = float(r.uniform(0.025, 0.085) if persp else r.uniform(0, 0.015)) * damp
        src = np.float32([[0, 0], [Wf, 0], [Wf, Hf], [0, Hf]])
        dst = (src + r.normal(0, 1, (4, 2)).astype(np.float32) * pj * np.float32([Wf, Hf])).astype(np.float32)
        Hp = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
        Hc_ = Hp @ A
        P = fwd(pts_check, Hc_, C)
        if not (np.all(P[:, 0] >= 14) and np.all(P[:, 0] <= Wf - 14) and np.all(P[:, 1] >= 14) and np.all(P[:, 1] <= Hf - 14)):
            continue
        if len(others):
            # the target must clearly be the problem meant: nearer the frame centre than any other
            Po = fwd(others, Hc_, C)
            Pt = fwd([[ctx, cty]], Hc_, C)[0]
            dn = lambda p: np.hypot((p[..., 0] - Wf / 2) / Wf, (p[..., 1] - Hf / 2) / Hf)
            vis = (Po[:, 0] > 0) & (Po[:, 0] < Wf) & (Po[:, 1] > 0) & (Po[:, 1] < Hf)
            if np.any(vis & (dn(Po) < dn(Pt) + margin)):
                continue
        # effective in-image rotation of the target's lines (similarity + perspective) stays within 10 degrees
        pa = fwd([[tb[0], cty], [tb[2], cty]], Hc_, C)
        eff = math.degrees(math.atan2(pa[1, 1] - pa[0, 1], pa[1, 0] - pa[0, 0]))
        if abs(eff) > 10.0:
            continue
        pv = fwd([[ctx, cty - F], [ctx, cty + F]], Hc_, C)
        effv = math.degrees(math.atan2(pv[1, 1] - pv[0, 1], pv[1, 0] - pv[0, 0]))
        if abs((effv - eff) - 90.0) > 6.0:      # keystone shear of the target's letters
            continue
        # the page should fill most of the frame (arm's length, not a desk photo)
        cov = np.zeros((Hf // 8, Wf // 8), np.uint8)
        cv2.fillPoly(cov, [np.round(fwd(outline, Hc_, C) / 8).astype(np.int32)], 1)
        if cov.mean() < cov_need:
            continue
        lo, hi = measure_char_px(Hc_, C, tlines, h_ref)
        if lo < 18.0 or hi > 62:
            if lo < 18.0:
                h_want *= 1.03
            continue
        Hm = Hc_
        break
    if Hm is None:
        return None, None, False
    lo, hi = measure_char_px(Hm, C, tlines, h_ref)
    char_px = float(np.median([lo, hi]))
    cases = ['portrait' if portrait else 'landscape', 'far_small_text' if hi <= 30.5 else 'close_up']
    pa = fwd([[tb[0], cty], [tb[2], cty]], Hm, C)
    theta = math.degrees(math.atan2(pa[1, 1] - pa[0, 1], pa[1, 0] - pa[0, 0]))
    if abs(theta) > 5:
        cases.append('rotation_gt5')
    if pj > 0.03:
        cases.append('perspective')
    tc = fwd([[ctx, cty]], Hm, C)[0]
    if abs(tc[0] - Wf / 2) > 0.12 * Wf or abs(tc[1] - Hf / 2) > 0.12 * Hf:
        cases.append('off_centre')

    # ---- warp the page
    s_loc = s
    f = min(1.0, s_loc * 1.6)
    if f < 0.97:
        small = cv2.resize(can, (max(1, int(Wc * f)), max(1, int(Hc * f))), interpolation=cv2.INTER_AREA)
        fx, fy = small.shape[1] / Wc, small.shape[0] / Hc
    else:
        small, fx, fy = can, 1.0, 1.0
    uu, vv = np.meshgrid(np.arange(Wf, dtype=np.float64) + 0.5, np.arange(Hf, dtype=np.float64) + 0.5)
    xc, yc = apply_h(np.linalg.inv(Hm), uu, vv)
    xp, yp = curl_inv(xc, yc, C)
    mapx = (xp * fx - 0.5).astype(np.float32)
    mapy = (yp * fy - 0.5).astype(np.float32)
    page = cv2.remap(small, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    inside = ((xp >= 0) & (xp < Wc) & (yp >= 0) & (yp < Hc)).astype(np.float32)
    inside = cv2.GaussianBlur(inside, (0, 0), 0.8)
    if C is not None:
        d = np.abs(xp - C['gx'])
        t = np.clip(1 - d / C['B'], 0, 1)
        shade = 1 - C['shade'] * t ** 2 - 0.35 * np.exp(-(d / (0.006 * W)) ** 2)
        page *= shade[..., None].astype(np.float32)
        if np.any((t > 0.35) & (inside > 0.5)):
            cases.append('page_curl')
    bg, bgkind = desk_background(r, Hf, Wf)
    shadow = np.zeros_like(inside)
    sh_off = (int(r.integers(3, 14)), int(r.integers(3, 14)))
    shadow[sh_off[1]:, sh_off[0]:] = inside[:Hf - sh_off[1], :Wf - sh_off[0]]
    shadow = cv2.GaussianBlur(shadow, (0, 0), 9)
    bg *= (1 - 0.45 * shadow)[..., None]
    img = page * inside[..., None] + bg * (1 - inside[..., None])
    if float((inside < 0.5).mean()) > 0.01:
        cases.append('desk_visible')
        cases.append('desk_' + bgkind)

    # ---- image-space keep-out (target words) for the finger
    keep_img = np.zeros((Hf, Wf), np.uint8)
    for (x0, y0, x1, y1) in keep_rects:
        poly = fwd(rect_outline(x0, y0, x1, y1, 10), Hm, C)
        cv2.fillPoly(keep_img, [np.round(poly).astype(np.int32)], 1)
    keep_img = cv2.dilate(keep_img, np.ones((9, 9), np.uint8)).astype(bool)
    if r.random() < 0.24 * g:
        res = make_finger(r, Hf, Wf, keep_img)
        if res is not None:
            frgb, fa, edge = res
            fs = np.zeros_like(fa)
            o = int(r.integers(8, 20))
            fs[o:, o:] = fa[:-o, :-o]
            fs = cv2.GaussianBlur(fs, (0, 0), 14)
            img *= (1 - 0.35 * fs)[..., None]
            img = img * (1 - fa[..., None]) + frgb * fa[..., None]
            cases.append('finger')
    # ---- shadows of a hand or the phone
    for kind, p in (('hand', 0.16), ('phone', 0.12)):
        if r.random() < p * g:
            m = soft_shadow(r, Hf, Wf, kind)
            if m.mean() > 0.01:
                img *= (1 - float(r.uniform(0.28, 0.5)) * m)[..., None]
                cases.append('shadow_' + kind)
    # ---- lighting
    mode = choice(r, ['day', 'indoor_warm', 'evening_lamp', 'cool'], [0.5, 0.24, 0.15 * g + 1e-6, 0.11])
    yy, xx = np.mgrid[0:Hf, 0:Wf].astype(np.float32)
    xn, yn = xx / Wf - 0.5, yy / Hf - 0.5
    grad = 1 + float(r.uniform(-0.22, 0.22)) * xn + float(r.uniform(-0.22, 0.22)) * yn
    vig = 1 - float(r.uniform(0.04, 0.28)) * (xn ** 2 + yn ** 2) * 2
    L = grad * vig
    if mode == 'evening_lamp':
        lx, ly = float(r.uniform(-0.3, 1.3)) * Wf, float(r.uniform(-0.4, 0.2)) * Hf
        dd = np.sqrt((xx - lx) ** 2 + (yy - ly) ** 2) / math.hypot(Wf, Hf)
        L = L * (0.45 + 0.55 * np.exp(-(dd / 0.75) ** 2))
        gain = float(r.uniform(0.42, 0.62))
        colm = np.array([1.0, float(r.uniform(0.72, 0.82)), float(r.uniform(0.42, 0.55))], np.float32)
        cases.append('dark_warm_lamp')
    elif mode == 'indoor_warm':
        gain = float(r.uniform(0.78, 0.95))
        colm = np.array([1.0, 0.95, 0.84], np.float32)
    elif mode == 'cool':
        gain = float(r.uniform(0.8, 0.98))
        colm = np.array([0.93, 0.98, 1.05], np.float32)
    else:
        gain = float(r.uniform(0.84, 1.02))
        colm = np.array([1.0, 1.0, 0.98], np.float32) + r.normal(0, 0.015, 3).astype(np.float32)
    img = img * (L * gain)[..., None] * colm[None, None, :]
    if r.random() < 0.2 * g:
        for _ in range(40):
            gx_, gy_ = float(r.uniform(0.05, 0.95)) * Wf, float(r.uniform(0.05, 0.95)) * Hf
            if inside[int(gy_), int(gx_)] > 0.5 and math.hypot(gx_ - tc[0], gy_ - tc[1]) > 0.16 * math.hypot(Wf, Hf):
                break
        sx, sy = float(r.uniform(50, 180)), float(r.uniform(35, 120))
        ang = float(r.uniform(0, math.pi))
        u = (xx - gx_) * math.cos(ang) + (yy - gy_) * math.sin(ang)
        v = -(xx - gx_) * math.sin(ang) + (yy - gy_) * math.cos(ang)
        G = np.exp(-0.5 * ((u / sx) ** 2 + (v / sy) ** 2))
        st = float(r.uniform(0.5, 0.92))
        img = img + (255 - img) * (st * G)[..., None]
        img = img + 40 * np.clip(G - 0.7, 0, 1)[..., None] / 0.3
        cases.append('glare')
    img = np.clip(img, 0, 255)
    # ---- optics, sensor, ISP
    motion = r.random() < 0.12 * g
    if r.random() < 0.5 * g + 0.1:
        sig = min(float(r.uniform(0.45, 1.1)), 0.035 * lo, 0.5 if motion else 9)
        img = cv2.GaussianBlur(img, (0, 0), sig)
        if sig > 0.7:
            cases.append('blur')
    if motion:
        ln = float(min(r.uniform(2.5, 5.0), max(2.0, lo / 7)))
        n = 41
        k = np.zeros((n, n), np.float32)
        a = float(r.uniform(0, math.pi))
        c0 = (n - 1) / 2
        for t in np.linspace(-ln / 2, ln / 2, 64):
            x, y = c0 + t * math.cos(a), c0 + t * math.sin(a)
            x0, y0 = int(math.floor(x)), int(math.floor(y))
            fx, fy = x - x0, y - y0
            k[y0, x0] += (1 - fx) * (1 - fy)
            k[y0, x0 + 1] += fx * (1 - fy)
            k[y0 + 1, x0] += (1 - fx) * fy
            k[y0 + 1, x0 + 1] += fx * fy
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        cases.append('motion_blur')
    nsig = float(r.uniform(4.5, 8.0) if mode == 'evening_lamp' else r.uniform(1.2, 4.2))
    img = img + r.normal(0, nsig, (Hf, Wf, 1)).astype(np.float32) + r.normal(0, nsig * 0.35, (Hf, Wf, 3)).astype(np.float32)
    if nsig >= 4.5:
        cases.append('noise_high')
    if r.random() < 0.3 and not motion:
        bl = cv2.GaussianBlur(img, (0, 0), 1.3)
        img = img + float(r.uniform(0.3, 0.9)) * (img - bl)
        cases.append('sharpened')
    img = np.clip(img, 0, 255).astype(np.uint8)
    bgr = img[..., ::-1].copy()
    q = int(r.integers(55, 93))
    if r.random() < 0.2:
        ok_, enc = cv2.imencode('.jpg', bgr, [cv2.IMWRITE_JPEG_QUALITY, int(r.integers(70, 96))])
        bgr = cv2.imdecode(enc, cv2.IMREAD_COLOR)
        cases.append('jpeg_double')
    ok_, enc = cv2.imencode('.jpg', bgr, [cv2.IMWRITE_JPEG_QUALITY, q])
    data = enc.tobytes()
    if q < 70:
        cases.append('jpeg_low')
    # ---- legibility of the target's words
    dec = cv2.imdecode(enc, cv2.IMREAD_GRAYSCALE).astype(np.float32)
    contrasts = []
    for (x0, y0, x1, y1) in tlines:
        mm = np.zeros((Hf, Wf), np.uint8)
        poly = fwd(rect_outline(x0, y0, x1, y1, 8), Hm, C)
        cv2.fillPoly(mm, [np.round(poly).astype(np.int32)], 1)
        vals = dec[mm > 0]
        if vals.size < 20:
            contrasts.append(0.0)
            continue
        contrasts.append(float(np.percentile(vals, 85) - np.percentile(vals, 3)))
    need = 52 if lo < 22 else 44
    ok = min(contrasts) >= need
    info = dict(size=[Wf, Hf], char_px=round(char_px, 1), char_px_min=round(lo, 1), char_px_max=round(hi, 1),
                rotation_deg=round(theta, 2), perspective=round(pj, 3), light=mode, jpeg_quality=q,
                noise_sigma=round(nsig, 2), min_contrast=round(min(contrasts), 1), cases=cases, Hm=Hm, C=C)
    return data, info, ok


def frac_visible(bbox, Hm, C, Wf, Hf):
    x0, y0, x1, y1 = bbox
    gx, gy = np.meshgrid(np.linspace(x0, x1, 6), np.linspace(y0, y1, 6))
    P = fwd(np.column_stack([gx.ravel(), gy.ravel()]), Hm, C)
    inside = (P[:, 0] >= 0) & (P[:, 0] < Wf) & (P[:, 1] >= 0) & (P[:, 1] < Hf)
    return float(inside.mean())


# ----------------------------------------------------------------------------------------------
# one photo
# ----------------------------------------------------------------------------------------------
BANK = []
SEED = 0
OUT = ''


def make_photo(job):
    idx, row = job
    t0 = time.time()
    lang = 'zh' if has_cjk(row['question']) else 'en'
    r = np.random.default_rng([SEED, idx, 1])
    b = layout_page(r, row, BANK, lang)
    S = b.S
    ink = render_page(r, b)
    Hc, Wc = ink.c.shape[:2]
    keep, keep_rects = target_keepout(b, Hc, Wc)
    ink.keep = keep
    mk = Marker(r, b, ink)
    answered = {}
    for info in b.probs:
        if info['is_target']:
            continue
        if r.random() < 0.88:
            wb = mk.student_work(info)
            if wb:
                answered[info['prefix']] = wb
    # the student's name in the header
    if S.get('name_fields'):
        order = (0, 1) if lang == 'zh' else (1, 0)
        cls_txt = (choice(r, ['七(3)班', '初二(5)', '八年级2班', '3班']) if lang == 'zh'
                   else choice(r, ['8B', 'Class 2', '9-3', 'G7 C4']))
        name_txt = choice(r, STUDENT_NAMES_ZH if lang == 'zh' else STUDENT_NAMES_EN)
        for i, txt in ((order[0], cls_txt), (order[1], name_txt)):
            it = b.pg.boxes.get(f'hdr_nf{i}')
            if it and r.random() < 0.8:
                base = sorted(it)[0]
                bx = it[base]
                mk.write(mk.student, txt, bx[0] + S['F'] * 0.4, base - S['F'] * 0.1, 's_name')
    mk.teacher_marks(answered)
    place_objects(r, mk)
    data = info = None
    attempts = 0
    fails = []
    for attempt in range(8):
        attempts += 1
        rc = np.random.default_rng([SEED, idx, 100 + attempt])
        data, info, ok = shoot(rc, b, ink, keep_rects, attempt)
        if ok:
            break
        fails.append('no_camera_fit' if info is None else f'low_contrast_{info["min_contrast"]}')
    if not ok:
        raise RuntimeError(f'photo {idx}: could not make a legible shot')
    qid = f'hm{idx:03d}'
    with open(os.path.join(OUT, qid + '.jpg'), 'wb') as fh:
        fh.write(data)
    Wf, Hf = info['size']
    Hm, C = info.pop('Hm'), info.pop('C')
    cases = list(info.pop('cases'))
    cases.append('page_' + S['style'])
    cases.append('numstyle_' + S['num_style'])
    cases.append('face_' + S['face_name'])
    if S['ncols'] == 2:
        cases.append('two_column')
    tgt = [i for i in b.probs if i['is_target']][0]
    if tgt['score']:
        cases.append('score_note')
    if tgt['own_line']:
        cases.append('label_own_line')
    if S['italic_vars']:
        cases.append('math_italic')
    q = row['question']
    if any(c in SUP for c in q):
        cases.append('target_superscript')
    if any(c in SUB for c in q):
        cases.append('target_subscript')
    if '___' in q:
        cases.append('target_blank_empty')
    for el in b.pg.elements:
        if el['case'] == 'opposite_page':
            continue
        if el['bbox'] is not None and frac_visible(el['bbox'], Hm, C, Wf, Hf) >= 0.3:
            cases.append(el['case'])
    for i in getattr(b, 'opp_probs', []):
        bb = b.pg.tag_bbox(i['prefix'])
        if bb and frac_visible(bb, Hm, C, Wf, Hf) >= 0.08:
            cases.append('opposite_page_visible')
            break
    for case, bb in mk.cases:
        thr = 0.3 if case in ('pen', 'ruler') else 0.5
        if frac_visible(bb, Hm, C, Wf, Hf) >= thr:
            cases.append(case)
    neigh_ids = []
    for i in b.probs:
        if i['is_target']:
            continue
        bb = (i['x0'], i['y_top'], i['x1'], i['text_bottom'])
        fv = frac_visible(bb, Hm, C, Wf, Hf)
        if fv < 0.12:
            continue
        neigh_ids.append(i['src'])
        if abs(i['x0'] - tgt['x0']) < 5:
            cases.append('neighbour_above' if i['y_top'] < tgt['y_top'] else 'neighbour_below')
        else:
            cases.append('neighbour_other_column')
        if fv < 0.97:
            cases.append('neighbour_cut_by_edge')
        if i['src'] != 'synthetic':
            cases.append('neighbour_from_bank')
        if i['nblank']:
            cases.append('blank_underline')
        if i['nbracket']:
            cases.append('answer_bracket')
        if i.get('opts'):
            cases.append('choice_options')
    seen = []
    for c in cases:
        if c not in seen:
            seen.append(c)
    man = dict(qid=qid, file=qid + '.jpg', expected_id=row['id'], subject=row['subject'], lang=lang,
               target_label=tgt['label'], target_score_note=tgt['score'], page_style=S['style'],
               num_style=S['num_style'], face=S['face_name'], print_px=S['F'], cases=sorted(seen),
               neighbours_visible=neigh_ids, shot_attempts=attempts, shot_fails=fails, seconds=round(time.time() - t0, 2))
    man.update(info)
    return man


def _init(bank, seed, out):
    global BANK, SEED, OUT
    BANK, SEED, OUT = bank, seed, out
    cv2.setNumThreads(1)


def select_targets(bank, count, seed):
    if count > len(bank):
        raise SystemExit(f'--count {count} exceeds the {len(bank)} bank questions (targets must be distinct)')
    r = np.random.default_rng([seed, 0xB00C])
    groups = {}
    for q in bank:
        groups.setdefault((q['subject'], has_cjk(q['question'])), []).append(q)
    keys = sorted(groups, key=lambda k: (k[0], k[1]))
    n = len(bank)
    exact = {k: count * len(groups[k]) / n for k in keys}
    quota = {k: int(math.floor(exact[k])) for k in keys}
    rest = count - sum(quota.values())
    order = sorted(keys, key=lambda k: (-(exact[k] - quota[k]), k[0], k[1]))
    for k in order[:rest]:
        quota[k] += 1
    picked = []
    for k in keys:
        g = groups[k]
        perm = r.permutation(len(g))
        picked += [g[int(i)] for i in perm[:quota[k]]]
    perm = r.permutation(len(picked))
    return [picked[int(i)] for i in perm]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--bank', required=True)
    ap.add_argument('out_dir')
    ap.add_argument('--count', type=int, default=120)
    ap.add_argument('--seed', type=int, default=441)
    ap.add_argument('--manifest', default=None)
    ap.add_argument('--workers', type=int, default=2, help='processes (at most 2)')
    a = ap.parse_args(argv)
    bank = [json.loads(l) for l in open(a.bank, encoding='utf-8') if l.strip()]
    targets = select_targets(bank, a.count, a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    t0 = time.time()
    jobs = [(i + 1, q) for i, q in enumerate(targets)]
    workers = max(1, min(2, a.workers))
    if workers == 1:
        _init(bank, a.seed, a.out_dir)
        mans = [make_photo(j) for j in jobs]
    else:
        import multiprocessing as mp
        ctx = mp.get_context('fork')
        with ctx.Pool(workers, initializer=_init, initargs=(bank, a.seed, a.out_dir)) as pool:
            mans = []
            for m in pool.imap(make_photo, jobs, chunksize=1):
                mans.append(m)
                if len(mans) % 10 == 0:
                    print(f'  {len(mans)}/{len(jobs)} photos, {time.time() - t0:.0f}s', flush=True)
    with open(os.path.join(a.out_dir, 'truth.csv'), 'w', newline='', encoding='utf-8') as fh:
        w = csv.writer(fh)
        w.writerow(['qid', 'text'])
        for (i, q) in jobs:
            w.writerow([f'hm{i:03d}', q['question']])
    with open(os.path.join(a.out_dir, 'queries.csv'), 'w', newline='', encoding='utf-8') as fh:
        w = csv.writer(fh)
        w.writerow(['qid', 'query', 'expected_id', 'kind'])
        for (i, q) in jobs:
            w.writerow([f'hm{i:03d}', q['question'], q['id'], 'exact'])
    if a.manifest:
        with open(a.manifest, 'w', encoding='utf-8') as fh:
            for m in mans:
                fh.write(json.dumps(m, ensure_ascii=False) + '\n')
    print(f'wrote {len(jobs)} photos to {a.out_dir} in {time.time() - t0:.1f}s ({workers} processes)')


if __name__ == '__main__':
    main()
