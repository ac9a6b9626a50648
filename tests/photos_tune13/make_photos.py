#!/usr/bin/env python3
"""Synthetic phone photos of printed school worksheets, one framed problem each.

Usage:
    python make_photos.py --bank BANK.jsonl OUT_DIR [--count 120] [--seed 131] [--jobs 2]

Writes v001.jpg ..., truth.csv, queries.csv and meta.jsonl into OUT_DIR.
Only numpy, Pillow, OpenCV, fontTools (optional) and system fonts are used.
"""

import argparse
import csv
import json
import math
import os
import re
import sys
import time
import unicodedata
from multiprocessing import get_context

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

KINDS = [
    "worksheet",        # 1 complete neighbours above and below (1/2/3 columns)
    "header",           # 2 header line/block or section heading visible
    "fonts",            # 3 unusual faces / sizes
    "marks",            # 4 circled number, tick, cross
    "blanks_scripts",   # 5 printed blank lines, raised/lowered script glyphs
    "occluder",         # 6 finger / thumb / pen over an edge
    "screen",           # 7 photo of a screen
    "camera",           # 8 strong camera effects
    "handwriting",      # 9 student answer / teacher score
    "cut_neighbours",   # 10 neighbour cut by the photo edge
]

SUP = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6",
       "⁷": "7", "⁸": "8", "⁹": "9", "⁺": "+", "⁻": "-", "ⁿ": "n"}
SUB = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6",
       "₇": "7", "₈": "8", "₉": "9", "₊": "+", "₋": "-", "ₙ": "n", "ₐ": "a",
       "ₓ": "x"}
CLOSE_PUNCT = set("，。？！；：、）》」』”’,.;:!?)]%")
OPEN_PUNCT = set("（《「『“‘([")
CN_NUM = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十",
          "十一", "十二", "十三", "十四", "十五", "十六", "十七", "十八", "十九", "二十"]
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"

# ----------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------

FONT_DIRS = ["/usr/share/fonts", "/usr/local/share/fonts",
             os.path.expanduser("~/.fonts"), os.path.expanduser("~/.local/share/fonts")]


class Face:
    __slots__ = ("key", "path", "index", "family", "sub", "name", "cmap", "cjk",
                 "bold", "italic", "narrow", "serif", "mono", "light", "math")

    def __repr__(self):
        return "Face(%s)" % self.name


def _name(tt, ids):
    try:
        nt = tt["name"]
    except Exception:
        return ""
    for i in ids:
        n = nt.getDebugName(i)
        if n:
            return n
    return ""


def discover_faces():
    """Find every usable face under the font dirs, with its cmap (fontTools)."""
    try:
        from fontTools.ttLib import TTFont, TTCollection
    except ImportError:  # pragma: no cover
        TTFont = TTCollection = None
    files = []
    for d in FONT_DIRS:
        if not os.path.isdir(d):
            continue
        for root, _, names in os.walk(d):
            for n in names:
                if n.lower().endswith((".ttf", ".otf", ".ttc", ".otc")):
                    files.append(os.path.join(root, n))
    files.sort()
    faces = []
    for path in files:
        base = os.path.basename(path)
        if "emoji" in base.lower():
            continue
        entries = []
        if TTFont is None:
            # crude fallback without fontTools: trust PIL, no cmap
            entries.append((0, None, base, "Regular", base))
        else:
            try:
                if path.lower().endswith((".ttc", ".otc")):
                    coll = TTCollection(path, lazy=True)
                    fonts = list(enumerate(coll.fonts))
                else:
                    fonts = [(0, TTFont(path, lazy=True))]
            except Exception:
                continue
            fams = [_name(tt, [16, 1]) for _, tt in fonts]
            has_sc = any(" SC" in f for f in fams)
            for (idx, tt), fam in zip(fonts, fams):
                if has_sc and not (" SC" in fam):
                    continue  # keep only simplified-Chinese variants of a CJK collection
                try:
                    cmap = frozenset(tt.getBestCmap().keys())
                except Exception:
                    continue
                sub = _name(tt, [17, 2]) or "Regular"
                full = _name(tt, [4]) or (fam + " " + sub)
                weight = 400
                try:
                    weight = tt["OS/2"].usWeightClass
                except Exception:
                    pass
                entries.append((idx, cmap, fam, sub, full, weight))
        for e in entries:
            if len(e) == 5:
                idx, cmap, fam, sub, full = e
                weight = 700 if "bold" in sub.lower() else 400
            else:
                idx, cmap, fam, sub, full, weight = e
            f = Face()
            f.path, f.index, f.family, f.sub, f.name = path, idx, fam, sub, full
            f.key = "%s#%d" % (path, idx)
            f.cmap = cmap
            low = (fam + " " + sub + " " + base).lower()
            f.cjk = bool(cmap) and (0x4E2D in cmap and 0x9898 in cmap and 0x3002 in cmap)
            f.bold = ("bold" in sub.lower()) or weight >= 650
            f.italic = ("italic" in low) or ("oblique" in low)
            f.narrow = ("narrow" in low) or ("condensed" in low)
            f.mono = "mono" in low
            f.serif = ("serif" in low and "sans" not in low) or ("times" in low)
            f.light = ("light" in low) or ("thin" in low) or weight < 350
            f.math = "math" in low
            faces.append(f)
    return faces


class Registry:
    def __init__(self, faces):
        self.faces = faces
        self.by_key = {f.key: f for f in faces}
        cjk = [f for f in faces if f.cjk]
        if not cjk:
            raise SystemExit("no CJK font found under /usr/share/fonts")

        def pick(pool, **want):
            for f in pool:
                if all(getattr(f, k) == v for k, v in want.items()):
                    return f
            return None

        plain_cjk = [f for f in cjk if not f.light]
        self.cjk_sans_r = (pick(plain_cjk, serif=False, mono=False, bold=False)
                           or plain_cjk[0] if plain_cjk else cjk[0])
        self.cjk_sans_b = pick(plain_cjk, serif=False, mono=False, bold=True) or self.cjk_sans_r
        self.cjk_serif_r = pick(plain_cjk, serif=True, bold=False) or self.cjk_sans_r
        self.cjk_serif_b = pick(plain_cjk, serif=True, bold=True) or self.cjk_serif_r
        self.cjk_mono = pick(plain_cjk, mono=True, bold=False) or self.cjk_sans_r
        lat = [f for f in faces if not f.cjk and not f.math and f.cmap and 0x41 in f.cmap
               and 0x7A in f.cmap]
        self.latin = lat
        self.lat_serif = [f for f in lat if f.serif and not f.italic and not f.bold
                          and not f.mono and not f.narrow and not f.light]
        self.lat_sans = [f for f in lat if not f.serif and not f.italic and not f.bold
                         and not f.mono and not f.narrow and not f.light]
        self.lat_italic = [f for f in lat if f.italic and not f.bold and not f.mono]
        self.lat_narrow = [f for f in lat if f.narrow and not f.mono]
        self.lat_mono = [f for f in lat if f.mono and not f.bold and not f.italic]
        self.lat_bold = [f for f in lat if f.bold and not f.italic and not f.mono]
        self.hand_latin = [f for f in lat if (f.italic and not f.bold and not f.serif
                                              and not f.mono) or (f.light and not f.serif)]
        if not self.hand_latin:
            self.hand_latin = lat[:1] or [self.cjk_sans_r]
        # fallback chain for characters the chosen face lacks
        order = [self.cjk_sans_r, self.cjk_serif_r]
        order += [f for f in lat if not f.bold and not f.italic and "dejavu" in f.name.lower()]
        order += [f for f in faces if f not in order]
        self.fallback = order

    def bold_of(self, face):
        """Bold face of the same family when there is one."""
        if face.bold:
            return face
        for f in self.faces:
            if f.family == face.family and f.bold and f.italic == face.italic and \
                    f.narrow == face.narrow:
                return f
        return face

    def has(self, face, ch):
        return face.cmap is None or ord(ch) in face.cmap

    def face_for(self, ch, chain):
        for f in chain:
            if f is not None and self.has(f, ch):
                return f
        for f in self.fallback:
            if self.has(f, ch):
                return f
        return chain[0]


REG = None           # set in main before the workers fork
_FONT_CACHE = {}


def get_font(face, size):
    size = max(6, int(round(size)))
    k = (face.key, size)
    f = _FONT_CACHE.get(k)
    if f is None:
        f = ImageFont.truetype(face.path, size, index=face.index,
                               layout_engine=ImageFont.Layout.BASIC)
        _FONT_CACHE[k] = f
    return f


# ----------------------------------------------------------------------------
# bank helpers
# ----------------------------------------------------------------------------

def has_cjk(s):
    return re.search(r"[\u3400-\u9fff]", s) is not None


def has_special(q):
    return ("__" in q) or any(c in SUP or c in SUB for c in q)


def load_bank(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                r = json.loads(line)
                if r.get("id") and r.get("question"):
                    rows.append(r)
    return rows


def choose_framed(bank, count, seed):
    """Order of framed questions: all English ones plus Chinese ones, shuffled by seed."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 999_001]))
    eng = [r for r in bank if not has_cjk(r["question"])]
    chn = [r for r in bank if has_cjk(r["question"])]
    chn_perm = [chn[j] for j in rng.permutation(len(chn))]
    # questions with blanks or raised/lowered glyphs always get framed
    chn_perm = [r for r in chn_perm if has_special(r["question"])] + \
        [r for r in chn_perm if not has_special(r["question"])]
    n_first = max(120, len(eng))
    first = eng + chn_perm[:max(0, n_first - len(eng))]
    rest = chn_perm[max(0, n_first - len(eng)):]
    first = [first[j] for j in rng.permutation(len(first))]
    order = first + rest
    if count > len(order):
        raise SystemExit("bank has only %d questions, --count %d asks for more" % (len(order), count))
    return order[:count]


def subject_of(r):
    s = r.get("subject")
    if s:
        return s
    m = re.match(r"[a-z]+-([a-z]+)-", r["id"])
    return m.group(1) if m else "misc"


def short_answer(r, rng):
    """A short, plausible student answer for handwriting."""
    a = r.get("answer") or ""
    a = a.replace("$", "")
    a = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", a)
    a = a.replace("\\times", "×").replace("\\div", "÷").replace("\\cdot", "·")
    a = re.sub(r"\\sqrt\{([^{}]*)\}", r"√\1", a)
    a = re.sub(r"\^\{?(\d)\}?", lambda m: "⁰¹²³⁴⁵⁶⁷⁸⁹"[int(m.group(1))], a)
    a = re.sub(r"_\{?(\w+)\}?", r"\1", a)
    a = re.sub(r"\\[a-zA-Z]+", "", a)
    cands = []
    eqs = re.findall(r"([A-Za-z]\w{0,2})\s*=\s*(-?[\d./]+(?:\s*[A-Za-zΩ°℃²³/]+)?)", a)
    if eqs:
        v, val = eqs[-1]
        cands.append("%s=%s" % (v, val.replace(" ", "")))
    q = re.findall(r"[\"“]([A-Za-z][A-Za-z ]{0,18})[\"”]", a)
    if q and not has_cjk(r["question"]):
        cands.append(q[-1])
    if has_cjk(a):
        m = re.search(r"是([^，。；（(]{1,10})", a)
        if m:
            cands.append(m.group(1))
        m = re.search(r"为\s*([^，。；（(]{1,10})", a)
        if m:
            cands.append(m.group(1).strip())
    if not cands:
        first = re.split(r"[，。；,.;]", a)[0].strip()
        if first:
            cands.append(first[:10])
    if not cands:
        cands = ["?"]
    s = cands[int(rng.integers(len(cands)))]
    s = s.strip()[:14]
    if has_cjk(r["question"]) and rng.random() < 0.3:
        s = ("解：" if rng.random() < 0.5 else "答：") + s
    return s


OPT_POOLS = {
    "biology": ["叶绿体", "线粒体", "细胞核", "液泡", "细胞膜", "细胞壁", "左心室", "右心室",
                "左心房", "右心房", "23对", "46对", "1/4", "1/2", "3/4", "肝脏", "小肠", "胃"],
    "geography": ["长江", "黄河", "珠江", "太平洋", "大西洋", "印度洋", "亚洲", "非洲",
                  "青藏高原", "内蒙古高原", "新疆", "西藏", "澳门", "自西向东", "自东向西",
                  "约1天", "约1年", "23.5°N"],
    "history": ["1840年", "1842年", "1911年", "1919年", "1921年", "1949年", "前221年",
                "前206年", "1914年", "1939年", "1945年", "唐太宗", "唐玄宗", "汉武帝", "刘邦"],
    "chinese": ["李白", "杜甫", "孟浩然", "王之涣", "鲁迅", "朱自清", "诸葛亮", "范仲淹",
                "苏轼", "孔子", "举头望明月", "处处闻啼鸟", "黄河入海流", "更上一层楼"],
    "chemistry": ["H₂O", "H₂O₂", "CO₂", "O₂", "N₂", "Fe₃O₄", "NaCl", "18", "44", "7",
                  "11", "10%", "20%", "0.5 mol"],
    "physics": ["5 m/s²", "2 m/s²", "12 Ω", "20 Ω", "5 Ω", "500 N", "100 J", "10 W",
                "1 kW·h", "3×10⁸ m/s", "340 m/s", "100 ℃", "0 ℃", "2.7 g/cm³"],
    "english": ["go", "goes", "went", "gone", "a", "an", "since", "for", "better", "best",
                "cheap", "children", "teeth", "1492", "the Nile", "force", "newton", "cell"],
}


OPT_POOLS_EN = {
    "physics": None, "chemistry": None, "math": None,
    "biology": ["the cell", "the nucleus", "mitochondria", "chloroplast", "the tissue", "the organ"],
    "geography": ["the Nile", "the Amazon", "the Yangtze", "the Mississippi", "Asia", "Africa"],
    "history": ["1492", "1498", "1519", "1453", "1588", "1607"],
}


def make_options(r, rng, allow_special=True):
    subj = subject_of(r)
    q = r["question"]
    if not has_cjk(q):
        pool = OPT_POOLS_EN.get(subj, OPT_POOLS["english"])
    else:
        pool = OPT_POOLS.get(subj)
    if pool is not None and not allow_special:
        pool = [o for o in pool if not has_special(o)]
    if pool is None or (subj == "math"):
        nums = re.findall(r"\d+(?:\.\d+)?", q)
        base = int(float(nums[-1])) if nums else int(rng.integers(3, 30))
        vals = set()
        while len(vals) < 4:
            v = max(1, base + int(rng.integers(-6, 12)))
            if rng.random() < 0.2:
                v = base * int(rng.integers(2, 5))
            vals.add(v)
        unit = ""
        for u in ["平方厘米", "立方厘米", "厘米", "千米", "元", "°"]:
            if u in q:
                unit = u
                break
        if not unit and not has_cjk(q):
            for u in [" m/s", " J", " kg", " mol", "°", " N"]:
                if u.strip() in q:
                    unit = u
                    break
        return ["%d%s" % (v, unit) for v in vals]
    idx = rng.choice(len(pool), size=4, replace=False)
    return [pool[int(j)] for j in idx]


# ----------------------------------------------------------------------------
# text shaping / layout
# ----------------------------------------------------------------------------

def is_wide(ch):
    return unicodedata.east_asian_width(ch) in ("W", "F")


class Style:
    pass


def make_style(rng, plan_fonts, lang_en):
    st = Style()
    st.size = float(rng.uniform(31, 40))
    st.cjk = REG.cjk_sans_r
    st.latin = None
    st.head = REG.cjk_sans_b
    st.num = REG.cjk_sans_r
    st.traits = []
    if plan_fonts:
        opts = ["serif", "latin_sans", "latin_serif", "italic_latin", "narrow", "bold_body",
                "mono", "size", "bold_numbers", "serif_heading"]
        p = np.array([1.6, 1.0, 1.2, 1.3 + (1.0 if lang_en else 0), 1.0 + (0.6 if lang_en else 0),
                      0.6, 0.5, 1.0, 0.8, 0.6])
        n = int(rng.choice([1, 2, 2, 3]))
        picks = set(rng.choice(opts, size=n, replace=False, p=p / p.sum()).tolist())
        order = [o for o in opts if o in picks]
        for o in order:
            if o == "serif":
                st.cjk = REG.cjk_serif_r
                if st.latin is None and REG.lat_serif:
                    st.latin = REG.lat_serif[int(rng.integers(len(REG.lat_serif)))]
            elif o == "latin_sans" and REG.lat_sans:
                st.latin = REG.lat_sans[int(rng.integers(len(REG.lat_sans)))]
            elif o == "latin_serif" and REG.lat_serif:
                st.latin = REG.lat_serif[int(rng.integers(len(REG.lat_serif)))]
            elif o == "italic_latin" and REG.lat_italic:
                st.latin = REG.lat_italic[int(rng.integers(len(REG.lat_italic)))]
            elif o == "narrow" and REG.lat_narrow:
                st.latin = REG.lat_narrow[int(rng.integers(len(REG.lat_narrow)))]
            elif o == "bold_body":
                st.cjk = REG.cjk_serif_b if st.cjk is REG.cjk_serif_r else REG.cjk_sans_b
                if st.latin is not None:
                    st.latin = REG.bold_of(st.latin)
            elif o == "mono":
                st.cjk = REG.cjk_mono
                if REG.lat_mono:
                    st.latin = REG.lat_mono[int(rng.integers(len(REG.lat_mono)))]
            elif o == "size":
                st.size = float(rng.uniform(25, 29)) if rng.random() < 0.45 else float(rng.uniform(43, 50))
            elif o == "bold_numbers":
                st.num = REG.bold_of(st.latin) if (st.latin is not None and rng.random() < 0.5) \
                    else REG.cjk_sans_b
            elif o == "serif_heading":
                st.head = REG.cjk_serif_b
            st.traits.append(o)
    if st.num is REG.cjk_sans_r and "bold_numbers" not in st.traits:
        st.num = st.cjk if st.latin is None else st.latin
    st.spacing = float(rng.uniform(1.35, 1.75))
    g = int(rng.integers(15, 60))
    st.ink = (g, g, g + int(rng.integers(0, 12)))
    st.blank_mode = str(rng.choice(["line", "underscores", "line"]))
    st.hang = str(rng.choice(["hang", "hang", "flush", "indent"]))
    return st


def char_face(ch, st, cjk_ctx):
    if is_wide(ch) or (cjk_ctx and ch in "“”‘’"):
        chain = [st.cjk]
    else:
        chain = [st.latin, st.cjk] if st.latin is not None else [st.cjk]
    return REG.face_for(ch, chain)


def shape(text, st, size, q=True, face_override=None):
    """Turn text into breakable tokens.  Each token: dict(type, pieces, w, close, q).
    pieces: [face, size, text, dy, kind] with kind 'text' or 'blank'."""
    toks = []
    i = 0
    n = len(text)

    def ctx_cjk(j):
        a = text[j - 1] if j > 0 else ""
        b = text[j + 1] if j + 1 < n else ""
        return (a and is_wide(a)) or (b and is_wide(b))

    def add_char(tok, ch, cjk_ctx):
        dy = 0.0
        sz = size
        rc = ch
        if ch in SUP:
            rc, sz, dy = SUP[ch], size * 0.62, -size * 0.38
        elif ch in SUB:
            rc, sz, dy = SUB[ch], size * 0.62, size * 0.17
        face = face_override if (face_override is not None and REG.has(face_override, rc)) \
            else char_face(rc, st, cjk_ctx)
        pcs = tok["pieces"]
        if pcs and pcs[-1][0] is face and pcs[-1][1] == sz and pcs[-1][3] == dy and pcs[-1][4] == "text":
            pcs[-1][2] += rc
        else:
            pcs.append([face, sz, rc, dy, "text"])

    while i < n:
        ch = text[i]
        if ch == "_" and i + 1 < n and text[i + 1] == "_":
            j = i
            while j < n and text[j] == "_":
                j += 1
            ln = j - i
            w = size * max(2.6, min(7.0, ln * 0.9)) * (1.0 + 0.3 * (ln <= 3))
            toks.append({"type": "blank", "pieces": [[None, size, "_" * ln, 0.0, "blank"]],
                         "w": w, "close": False, "q": q})
            i = j
            continue
        if ch == " " or ch == "\u3000":
            toks.append({"type": "space", "pieces": [], "w": 0.0, "close": False, "q": q,
                         "sp": ch})
            i += 1
            continue
        if is_wide(ch) or (ch in "“”‘’" and ctx_cjk(i)):
            tok = {"type": "cjk", "pieces": [], "w": 0.0, "close": ch in CLOSE_PUNCT, "q": q}
            add_char(tok, ch, True)
            # trailing scripts attach
            i += 1
            while i < n and (text[i] in SUP or text[i] in SUB):
                add_char(tok, text[i], True)
                i += 1
            toks.append(tok)
            continue
        tok = {"type": "word", "pieces": [], "w": 0.0, "close": ch in CLOSE_PUNCT, "q": q}
        while i < n:
            c = text[i]
            if c == " " or c == "\u3000" or is_wide(c) or (c == "_" and i + 1 < n and text[i + 1] == "_"):
                break
            if c in "“”‘’" and ctx_cjk(i):
                break
            add_char(tok, c, ctx_cjk(i))
            i += 1
        toks.append(tok)
    # widths
    for t in toks:
        if t["type"] == "space":
            f = get_font(st.latin or st.cjk, size)
            t["w"] = f.getlength(" ") * (2.8 if t.get("sp") == "\u3000" else 1.0)
        elif t["type"] != "blank":
            t["w"] = sum(get_font(p[0], p[1]).getlength(p[2]) for p in t["pieces"])
    return toks


def layout_tokens(toks, x_first, x_cont, x_right, base0, line_h):
    """Greedy line breaking.  Returns list of placed pieces and lines."""
    placed = []
    lines = []
    x = x_first
    base = base0
    cur = []
    pending_space = 0.0
    line_x0 = x_first

    def flush():
        nonlocal cur
        if cur:
            x0 = min(p[0] for p in cur)
            x1 = max(p[0] + p[2] for p in cur)
            lines.append([x0, x1, base])
        placed.extend(cur)
        cur = []

    for t in toks:
        if t["type"] == "space":
            if cur:
                pending_space += t["w"]
            continue
        w = t["w"]
        if cur and x + pending_space + w > x_right and not (t["close"] and x + w <= x_right + w * 1.01):
            flush()
            base += line_h
            x = x_cont
            pending_space = 0.0
        x += pending_space
        pending_space = 0.0
        cur.append((x, base, w, t))
        x += w
    flush()
    return placed, lines


def draw_placed(draw, placed, st, ink, fonts_used, boxes):
    """Draw placed tokens; boxes: dict flag->list of bboxes (q True/False)."""
    for (x, base, w, t) in placed:
        px = x
        for face, sz, s, dy, kind in t["pieces"]:
            if kind == "blank":
                th = max(2, int(round(sz / 16)))
                if st.blank_mode == "underscores":
                    f = get_font(st.latin or REG.lat_sans[0] if REG.lat_sans else st.cjk, sz)
                    uw = f.getlength("_")
                    k = max(3, int(w / max(1, uw)))
                    draw.text((px, base), "_" * k, font=f, fill=ink, anchor="ls")
                    bb = draw.textbbox((px, base), "_" * k, font=f, anchor="ls")
                    fonts_used.add(f.getname()[0] + " " + f.getname()[1])
                else:
                    yb = base + sz * 0.14
                    draw.line([(px + 2, yb), (px + w - 2, yb)], fill=ink, width=th)
                    bb = (px + 2, yb - th, px + w - 2, yb + th)
                boxes.setdefault(t["q"], []).append(bb)
                px += w
                continue
            f = get_font(face, sz)
            draw.text((px, base + dy), s, font=f, fill=ink, anchor="ls")
            bb = draw.textbbox((px, base + dy), s, font=f, anchor="ls")
            if bb[2] > bb[0]:
                boxes.setdefault(t["q"], []).append(bb)
            fonts_used.add(face.name)
            px += f.getlength(s)


def union(bbs):
    bbs = [b for b in bbs if b is not None]
    if not bbs:
        return None
    return [float(min(b[0] for b in bbs)), float(min(b[1] for b in bbs)),
            float(max(b[2] for b in bbs)), float(max(b[3] for b in bbs))]


# ----------------------------------------------------------------------------
# numbering and headers
# ----------------------------------------------------------------------------

NUM_STYLES_CN = ["{n}.", "{n}．", "({n})", "（{n}）", "第{n}题", "{cn}、", "{n}、", "【{n}】", "{n}."]
NUM_STYLES_EN = ["{n}.", "({n})", "{n})", "Q{n}", "Q{n}.", "Question {n}", "{n}.", "No.{n}"]

TITLES_CN = ["第一单元测试", "第二单元测试卷", "七年级数学期中练习", "八年级物理课后作业（三）",
             "化学周末练习", "生物学期末复习题", "历史与社会小测", "地理随堂练习", "语文基础知识检测",
             "综合练习（二）", "课时作业 第5课时", "寒假作业 第12天"]
TITLES_EN = ["Homework 3", "Unit 5 Quiz", "Weekly Practice 7", "Science Review Sheet",
             "Grammar Check - Part 1", "Midterm Revision", "English Homework 12"]
INFO_CN = ["班级：________  姓名：________  学号：______",
           "学校：__________ 班级：______ 姓名：______ 得分：______",
           "日期：____月____日    姓名：________",
           "姓名________ 班级________ 成绩________"]
INFO_EN = ["Name: __________  Class: ______  Date: ________",
           "Name ______________ No. ____ Score ______",
           "Name: ____________   Date: ________"]
SECT_CN = ["一、选择题（每题3分，共30分）", "二、填空题（每空2分）", "三、解答题", "一、基础知识",
           "二、计算题（写出必要的步骤）", "四、简答题（每题5分）", "三、实验探究题", "一、选择题",
           "二、填空题", "五、综合题"]
SECT_EN = ["Part A", "Part B  Vocabulary", "Part C  Short answers",
           "Section 2: Fill in the blanks", "I. Multiple choice (2 points each)", "Part B"]


def fmt_number(style, n):
    if style == "circled":
        return CIRCLED[(n - 1) % len(CIRCLED)]
    cn = CN_NUM[n] if n < len(CN_NUM) else str(n)
    return style.format(n=n, cn=cn)


# ----------------------------------------------------------------------------
# page rendering
# ----------------------------------------------------------------------------

def build_page(rng, framed, bank, plan, lang_en):
    """Render one worksheet page; return (rgb ndarray, info)."""
    st = make_style(rng, plan["fonts"], lang_en)
    Wp = 1800
    Hp = int(round(Wp * float(rng.choice([1.414, 1.414, 1.33, 1.5]))))
    ml = float(rng.uniform(110, 190))
    mr = float(rng.uniform(110, 190))
    mt = float(rng.uniform(110, 190))
    mb = float(rng.uniform(120, 200))
    qlen = len(framed["question"])
    ncol = plan["columns"]
    if ncol == 3 and qlen > 45:
        ncol = 2
    gutter = float(rng.uniform(60, 110))
    colw = (Wp - ml - mr - gutter * (ncol - 1)) / ncol
    if ncol == 3:
        st.size = min(st.size, 34.0)
    size = st.size
    line_h = size * st.spacing
    paper = np.array([int(rng.integers(240, 256)), int(rng.integers(238, 254)),
                      int(rng.integers(228, 250))])
    img = Image.new("RGB", (Wp, Hp), tuple(int(v) for v in paper))
    draw = ImageDraw.Draw(img)
    ink = st.ink
    fonts_used = set()
    info = {"elements": [], "style": st, "size": (Wp, Hp), "columns": ncol}

    # --- numbering
    if plan.get("circled_print"):
        nstyle = "circled"
    else:
        nstyle = str(rng.choice(NUM_STYLES_EN if lang_en else NUM_STYLES_CN))
    score_mode = str(rng.choice(["none", "none", "start", "end"])) if plan.get("score_note") is None \
        else plan["score_note"]
    if score_mode != "none" and lang_en:
        score_fmt = str(rng.choice(["({k} points)", "[{k} marks]", "({k} pts)"]))
    else:
        score_fmt = str(rng.choice(["（{k}分）", "({k}分)", "（{k}分）"]))
    choice_page = rng.random() < (0.45 if plan.get("options") else 0.12)
    n0 = int(rng.integers(1, 5)) if nstyle == "circled" else int(rng.integers(1, 16))

    # --- header
    y = mt
    if plan["header"]:
        want_header = plan["header_mode"] == "top" or rng.random() < 0.5
    else:
        want_header = plan.get("tj", 0) >= 3 and rng.random() < 0.6
    if want_header:
        title = str(rng.choice(TITLES_EN if lang_en else TITLES_CN))
        hs = size * float(rng.uniform(1.25, 1.6))
        toks = shape(title, st, hs, q=False, face_override=st.head)
        tw = sum(t["w"] for t in toks)
        x0 = (Wp - tw) / 2 if rng.random() < 0.75 else ml
        placed, _ = layout_tokens(toks, x0, x0, Wp - mr, y + hs * 0.9, hs * 1.3)
        bx = {}
        draw_placed(draw, placed, st, ink, fonts_used, bx)
        tb = union(bx.get(False, []))
        info["elements"].append({"type": "header", "text": title, "box": tb, "title": True})
        y = tb[3] + size * 0.8
        if rng.random() < 0.85:
            line = str(rng.choice(INFO_EN if lang_en else INFO_CN))
            toks = shape(line, st, size * 0.9, q=False)
            placed, _ = layout_tokens(toks, ml + size, ml + size, Wp - mr, y + size * 0.9, line_h)
            bx = {}
            draw_placed(draw, placed, st, ink, fonts_used, bx)
            ib = union(bx.get(False, []))
            info["elements"].append({"type": "header", "text": line, "box": ib})
            y = ib[3] + size * 0.9
        if rng.random() < 0.25:
            draw.line([(ml, y), (Wp - mr, y)], fill=ink, width=2)
            y += size * 0.6
        if rng.random() < 0.7:
            sect = str(rng.choice(SECT_EN if lang_en else SECT_CN))
            toks = shape(sect, st, size * 1.05, q=False, face_override=st.head)
            placed, _ = layout_tokens(toks, ml, ml, Wp - mr, y + size * 0.95, line_h)
            bx = {}
            draw_placed(draw, placed, st, ink, fonts_used, bx)
            sb = union(bx.get(False, []))
            info["elements"].append({"type": "header", "text": sect, "box": sb})
            y = sb[3] + size * 0.8
    top_y = y
    # column separators
    if ncol > 1 and rng.random() < 0.4:
        for c in range(1, ncol):
            xs = ml + c * (colw + gutter) - gutter / 2
            draw.line([(xs, top_y), (xs, Hp - mb)], fill=(150, 150, 150), width=2)

    # --- neighbour pool
    same = [r for r in bank if r["id"] != framed["id"] and subject_of(r) == subject_of(framed)]
    lang_same = [r for r in bank if r["id"] != framed["id"] and has_cjk(r["question"]) != lang_en]
    anyr = [r for r in bank if r["id"] != framed["id"]]
    special = [r for r in bank if r["id"] != framed["id"] and has_special(r["question"])]
    if not plan["blanks_scripts"]:
        # keep blanks / raised glyphs out of the picture unless asked for
        same = [r for r in same if not has_special(r["question"])]
        lang_same = [r for r in lang_same if not has_special(r["question"])]
        anyr = [r for r in anyr if not has_special(r["question"])]
    used = {framed["id"]}

    def next_neigh(force_special=False):
        for _ in range(50):
            u = rng.random()
            if force_special and special:
                pool = special
            elif u < 0.55 and same:
                pool = same
            elif u < 0.9 and lang_same:
                pool = lang_same
            else:
                pool = anyr
            r = pool[int(rng.integers(len(pool)))]
            if r["id"] not in used:
                used.add(r["id"])
                return r
        r = anyr[int(rng.integers(len(anyr)))]
        return r

    # --- where the framed problem goes
    tcol = min(plan["tcol"], ncol - 1)
    tj = plan["tj"]
    special_slots = set()
    if plan["blanks_scripts"] and not has_special(framed["question"]):
        special_slots = {tj - 1, tj + 1}

    col = 0
    j_in_col = 0
    ycol = top_y
    placed_framed = False
    k = 0
    nprob = 0
    while col < ncol:
        x_col = ml + col * (colw + gutter)
        is_framed = (not placed_framed) and ((col == tcol and j_in_col >= tj) or col > tcol)
        rec = framed if is_framed else next_neigh(force_special=(col == tcol and j_in_col in special_slots))
        # section heading before framed
        heading_box = None
        head_toks = None
        if is_framed and plan["header"] and plan["header_mode"] == "heading":
            sect = str(rng.choice(SECT_EN if lang_en else SECT_CN))
            head_toks = shape(sect, st, size * 1.05, q=False, face_override=st.head)
        elif (not is_framed) and rng.random() < 0.06 and j_in_col > 0 and \
                (plan["header"] or col != tcol or abs(j_in_col - tj) > 2):
            sect = str(rng.choice(SECT_EN if lang_en else SECT_CN))
            head_toks = shape(sect, st, size * 1.05, q=False, face_override=st.head)
        number = n0 + nprob
        label = fmt_number(nstyle, number)
        score = None
        if score_mode != "none" and rng.random() < 0.8:
            score = score_fmt.format(k=int(rng.choice([2, 3, 4, 5, 6, 8, 10])))
        lab_toks = shape(label, st, size, q=False, face_override=st.num)
        lab_w = sum(t["w"] for t in lab_toks)
        gap = size * (0.25 if label.endswith(("、", "．", "）", "】")) else 0.45)
        q_toks = shape(rec["question"], st, size, q=True)
        sc_toks = shape(score, st, size, q=False) if score else []
        if score and score_mode == "start":
            gap_tok = {"type": "space", "pieces": [], "w": size * (0.3 if lang_en else 0.12),
                       "close": False, "q": False}
            body = sc_toks + [gap_tok] + q_toks
        elif score:
            body = q_toks + [{"type": "space", "pieces": [], "w": size * 0.3, "close": False,
                              "q": False}] + sc_toks
        else:
            body = q_toks
        x_text = x_col + lab_w + gap
        if st.hang == "hang":
            x_cont = x_text
        elif st.hang == "indent":
            x_cont = x_col + size
        else:
            x_cont = x_col
        yy = ycol
        if head_toks is not None:
            yy += size * 0.3
        hplaced = None
        if head_toks is not None:
            hplaced, hl = layout_tokens(head_toks, x_col, x_col, x_col + colw, yy + size * 0.95, line_h)
            yy = hl[-1][2] + size * 0.9
        base0 = yy + size * 0.92
        placed, lines = layout_tokens(body, x_text, x_cont, x_col + colw, base0, line_h)
        lab_placed, _ = layout_tokens(lab_toks, x_col, x_col, x_col + colw + 999, base0, line_h)
        last_base = lines[-1][2] if lines else base0
        opts = None
        has_opts = choice_page and (not plan.get("no_options_framed") or not is_framed)
        opt_placed = []
        if has_opts:
            opts = make_options(rec, rng, allow_special=plan["blanks_scripts"])
            lab_fmt = str(rng.choice(["{L}.", "{L}．", "{L}、", "({L})"])) if k == 0 or "ofmt" not in info \
                else info["ofmt"]
            info["ofmt"] = lab_fmt
            otoks = []
            for L, o in zip("ABCD", opts):
                t = shape(lab_fmt.format(L=L) + " " + o, st, size, q=False)
                otoks.append(t)
            ows = [sum(t["w"] for t in ot) for ot in otoks]
            ox0 = x_cont if st.hang == "hang" else x_col + size * 0.5
            avail = x_col + colw - ox0
            if max(ows) < avail / 4 - size * 0.6:
                per, cw = 4, avail / 4
            elif max(ows) < avail / 2 - size * 0.6:
                per, cw = 2, avail / 2
            else:
                per, cw = 1, avail
            ob = last_base
            for oi, ot in enumerate(otoks):
                if oi % per == 0:
                    ob += line_h
                op, _ = layout_tokens(ot, ox0 + (oi % per) * cw, ox0, x_col + colw + 2000, ob, line_h)
                opt_placed.extend(op)
            last_base = ob
        bottom = last_base + size * 0.3
        if has_opts:
            space = line_h * float(rng.uniform(0.6, 1.4))
        else:
            space = line_h * float(rng.uniform(1.0, 3.6))
            if re.search(r"解方程|计算|求|Solve|How|写出", rec["question"]):
                space += line_h * float(rng.uniform(0.5, 2.0))
        if bottom > Hp - mb:
            # does not fit: next column
            if j_in_col == 0 and col == ncol - 1:
                break
            col += 1
            j_in_col = 0
            ycol = top_y
            if is_framed:
                pass  # will be retried at next column top
            else:
                used.discard(rec["id"])
            continue
        # draw
        if hplaced is not None:
            bx = {}
            draw_placed(draw, hplaced, st, ink, fonts_used, bx)
            heading_box = union(bx.get(False, []))
            info["elements"].append({"type": "header", "text": "heading", "box": heading_box})
        fu = set()
        bx = {}
        draw_placed(draw, placed, st, ink, fu, bx)
        nbx = {}
        draw_placed(draw, lab_placed, st, ink, fu, nbx)
        obx = {}
        draw_placed(draw, opt_placed, st, ink, fu, obx)
        fonts_used |= fu
        text_box = union(bx.get(True, []))
        num_box = union(nbx.get(False, []))
        box = union(bx.get(True, []) + bx.get(False, []) + nbx.get(False, []) + obx.get(False, []))
        qlines = []
        for (x, base, w, t) in placed:
            if t["q"]:
                qlines.append((x, base, w))
        line_ends = {}
        for x, base, w in qlines:
            line_ends[base] = max(line_ends.get(base, 0), x + w)
        el = {"type": "problem", "id": rec["id"], "rec": rec, "framed": is_framed, "col": col,
              "j": j_in_col, "label": label, "score": score, "options": opts,
              "box": box, "text_box": text_box, "num_box": num_box,
              "line_ends": sorted((b, e) for b, e in line_ends.items()),
              "line_starts": sorted(set(b for _, b, _ in qlines)),
              "answer_area": [x_col, bottom, x_col + colw, min(Hp - mb, bottom + space)],
              "size": size, "fonts": sorted(fu), "x_col": x_col, "colw": colw}
        info["elements"].append(el)
        if is_framed:
            placed_framed = True
        ycol = bottom + space
        j_in_col += 1
        nprob += 1
        k += 1
        if ruled := (rng.random() < 0.08 and not has_opts):
            yl = bottom + line_h * 0.9
            while yl < ycol - line_h * 0.3:
                draw.line([(x_col + size, yl), (x_col + colw, yl)], fill=(185, 185, 185), width=2)
                yl += line_h
    if not placed_framed:
        return None
    # footer page number
    if rng.random() < 0.5:
        ft = str(rng.choice(["第 1 页（共 2 页）", "- 2 -", "Page 1 of 2", "1"]))
        toks = shape(ft, st, size * 0.75, q=False)
        tw = sum(t["w"] for t in toks)
        placed, _ = layout_tokens(toks, (Wp - tw) / 2, (Wp - tw) / 2, Wp, Hp - mb * 0.45, size)
        draw_placed(draw, placed, st, ink, fonts_used, {})
    info["fonts_used"] = sorted(fonts_used)
    info["number_style"] = nstyle
    info["choice_page"] = bool(choice_page)
    return np.asarray(img).copy(), info


# ----------------------------------------------------------------------------
# pen marks and handwriting on the page
# ----------------------------------------------------------------------------

def composite_ink(canvas, alpha, x0, y0, color):
    """Multiply-blend ink (alpha in 0..1) into uint8 canvas at x0,y0."""
    h, w = alpha.shape
    H, W = canvas.shape[:2]
    x0 = int(round(x0))
    y0 = int(round(y0))
    ax0, ay0 = max(0, -x0), max(0, -y0)
    bx0, by0 = max(0, x0), max(0, y0)
    bx1, by1 = min(W, x0 + w), min(H, y0 + h)
    if bx1 <= bx0 or by1 <= by0:
        return
    a = alpha[ay0:ay0 + (by1 - by0), ax0:ax0 + (bx1 - bx0)][..., None]
    reg = canvas[by0:by1, bx0:bx1].astype(np.float32)
    col = np.array(color, np.float32)[None, None, :] / 255.0
    out = reg * (1 - a) + reg * col * a * 0.35 + col * 255 * a * 0.65
    out = np.minimum(out, reg)  # ink only darkens
    canvas[by0:by1, bx0:bx1] = np.clip(out, 0, 255).astype(np.uint8)


def stroke(canvas, pts_list, thick, color):
    allp = np.concatenate([np.asarray(p, np.float64) for p in pts_list])
    pad = thick * 2 + 4
    x0, y0 = allp.min(0) - pad
    x1, y1 = allp.max(0) + pad
    w, h = int(x1 - x0) + 1, int(y1 - y0) + 1
    if w <= 0 or h <= 0 or w > 4000 or h > 4000:
        return
    m = np.zeros((h, w), np.uint8)
    for p in pts_list:
        q = ((np.asarray(p) - [x0, y0]) * 16).astype(np.int32)
        cv2.polylines(m, [q], False, 255, int(max(1, round(thick))), cv2.LINE_AA, shift=4)
    composite_ink(canvas, m.astype(np.float32) / 255.0, x0, y0, color)


def curve(p0, p1, p2, n=20):
    t = np.linspace(0, 1, n)[:, None]
    p0, p1, p2 = map(np.asarray, (p0, p1, p2))
    return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t ** 2 * p2


def draw_tick(canvas, cx, cy, s, color, thick, rng):
    j = lambda: rng.normal(0, s * 0.05)
    a = (cx - 0.45 * s + j(), cy + j())
    b = (cx - 0.1 * s + j(), cy + 0.45 * s + j())
    c = (cx + 0.6 * s + j(), cy - 0.6 * s + j())
    p1 = curve(a, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2 + s * 0.05), b, 10)
    p2 = curve(b, ((b[0] + c[0]) / 2 - s * 0.08, (b[1] + c[1]) / 2 + s * 0.05), c, 14)
    stroke(canvas, [np.vstack([p1, p2])], thick, color)


def draw_cross(canvas, cx, cy, s, color, thick, rng):
    j = lambda: rng.normal(0, s * 0.05)
    stroke(canvas, [curve((cx - s / 2 + j(), cy - s / 2 + j()), (cx + j(), cy + j()),
                          (cx + s / 2 + j(), cy + s / 2 + j()))], thick, color)
    stroke(canvas, [curve((cx + s / 2 + j(), cy - s / 2 + j()), (cx + j(), cy + j()),
                          (cx - s / 2 + j(), cy + s / 2 + j()))], thick, color)


def draw_circle(canvas, box, color, thick, rng):
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    rx = (x1 - x0) / 2 + thick * 2 + rng.uniform(4, 12)
    ry = (y1 - y0) / 2 + thick * 2 + rng.uniform(4, 12)
    t0 = rng.uniform(0, 2 * np.pi)
    t = np.linspace(t0, t0 + 2 * np.pi * rng.uniform(1.05, 1.2), 60)
    r = 1 + 0.06 * np.sin(3 * t + rng.uniform(0, 6)) + np.linspace(0, rng.uniform(-0.1, 0.12), 60)
    pts = np.stack([cx + rx * r * np.cos(t), cy + ry * r * np.sin(t)], 1)
    stroke(canvas, [pts], thick, color)


def hand_text(canvas, text, x, base, size, color, rng, writer):
    """Render text as crude handwriting; return bbox."""
    xs = x
    bbs = []
    drift = 0.0
    for ch in text:
        if ch == " ":
            x += size * 0.35
            continue
        if ch in SUP or ch in SUB:
            rch, sz, dy = (SUP.get(ch) or SUB.get(ch)), size * 0.6, (-size * 0.4 if ch in SUP else size * 0.15)
        else:
            rch, sz, dy = ch, size, 0.0
        if is_wide(rch):
            face = writer["cjk"]
        else:
            face = writer["latin"] if REG.has(writer["latin"], rch) else REG.face_for(rch, [writer["cjk"]])
        sz = sz * rng.uniform(0.88, 1.12)
        f = get_font(face, sz)
        S = int(sz * 2.4) + 4
        ox, oy = int(sz * 0.6), int(sz * 1.5)
        im = Image.new("L", (S, S), 0)
        ImageDraw.Draw(im).text((ox, oy), rch, font=f, fill=255, anchor="ls")
        a = np.asarray(im, np.float32) / 255.0
        ang = math.radians(rng.normal(0, 6))
        sh = writer["slant"] + rng.normal(0, 0.05)
        sc = rng.uniform(0.92, 1.08)
        ca, sa = math.cos(ang) * sc, math.sin(ang) * sc
        M = np.array([[ca, -sa + sh, 0], [sa, ca, 0]], np.float64)
        M[:, 2] = np.array([ox, oy]) - M[:, :2] @ np.array([ox, oy])
        a = cv2.warpAffine(a, M, (S, S), flags=cv2.INTER_LINEAR)
        # wobble
        g = rng.normal(0, sz * writer["wobble"], (2, 4, 4)).astype(np.float32)
        dx = cv2.resize(g[0], (S, S), interpolation=cv2.INTER_CUBIC)
        dyf = cv2.resize(g[1], (S, S), interpolation=cv2.INTER_CUBIC)
        gx, gy = np.meshgrid(np.arange(S, dtype=np.float32), np.arange(S, dtype=np.float32))
        a = cv2.remap(a, gx + dx, gy + dyf, cv2.INTER_LINEAR)
        if writer["weight"] > 0:
            a = cv2.dilate(a, np.ones((2, 2), np.uint8))
        a = np.clip(a * writer["alpha"], 0, 1)
        drift += rng.normal(0, sz * 0.02)
        composite_ink(canvas, a, x - ox, base + dy + drift - oy, color)
        adv = f.getlength(rch) * rng.uniform(0.95, 1.15) + sz * writer["track"]
        bbs.append((x, base + dy + drift - sz * 0.85, x + adv, base + dy + drift + sz * 0.2))
        x += adv
    return union(bbs) if bbs else [xs, base - size, xs, base]


PEN_COLORS = {"blue": (30, 60, 170), "black": (30, 30, 40), "darkblue": (25, 35, 110),
              "red": (215, 35, 45)}


def make_writer(rng):
    lat = REG.hand_latin[int(rng.integers(len(REG.hand_latin)))]
    return {"latin": lat, "cjk": REG.cjk_sans_r if rng.random() < 0.7 else REG.cjk_serif_r,
            "slant": float(rng.uniform(-0.05, 0.35)), "weight": int(rng.random() < 0.4),
            "alpha": float(rng.uniform(0.8, 1.0)), "track": float(rng.uniform(0.0, 0.12)),
            "wobble": float(rng.uniform(0.035, 0.065))}


def add_marks_and_writing(canvas, info, plan, rng, framed_rec):
    """Pen work on the page.  Returns descriptions for meta."""
    els = [e for e in info["elements"] if e["type"] == "problem"]
    fr = [e for e in els if e["framed"]][0]
    fi = els.index(fr)
    near = [e for e in els if e is not fr and e["col"] == fr["col"] and abs(e["j"] - fr["j"]) <= 2]
    near += [e for e in els if e is not fr and e["col"] != fr["col"] and abs(e["col"] - fr["col"]) == 1
             and abs((e["box"][1] + e["box"][3]) / 2 - (fr["box"][1] + fr["box"][3]) / 2) < 500]
    marks = []
    writing = []
    size = fr["size"]
    if plan["marks"]:
        n = int(rng.choice([1, 1, 2, 3]))
        cands = [fr] * 2 + near
        for _ in range(n):
            e = cands[int(rng.integers(len(cands)))]
            what = str(rng.choice(["tick", "tick", "cross", "circle_number", "circle_number"]))
            if plan.get("circled_print") and not marks:
                marks.append({"type": "printed_circled_number", "target": e["id"]})
                continue
            color = PEN_COLORS["red"] if rng.random() < 0.65 else PEN_COLORS[str(rng.choice(["blue", "black"]))]
            th = float(rng.uniform(3, 6))
            if what == "circle_number" and e["num_box"] is not None:
                draw_circle(canvas, e["num_box"], color, th, rng)
            else:
                s = size * float(rng.uniform(1.0, 1.8))
                b = e["box"]
                where = rng.random()
                if where < 0.4:   # left of the number, in the margin
                    cx, cy = b[0] - s * 0.8, (b[1] + b[3]) / 2
                elif where < 0.8:  # after the end of the first line
                    le = e["line_ends"][0] if e["line_ends"] else (b[1] + size, b[2])
                    cx, cy = le[1] + s * 0.9, le[0] - size * 0.4
                else:              # over the number
                    nb = e["num_box"] or b
                    cx, cy = (nb[0] + nb[2]) / 2, (nb[1] + nb[3]) / 2
                if what == "cross":
                    draw_cross(canvas, cx, cy, s * 0.8, color, th, rng)
                else:
                    draw_tick(canvas, cx, cy, s, color, th, rng)
                    what = "tick"
            marks.append({"type": what, "target": e["id"], "framed": e is fr,
                          "color": "red" if color == PEN_COLORS["red"] else "pen"})
    if plan["handwriting"]:
        writer = make_writer(rng)
        pen = PEN_COLORS[str(rng.choice(["blue", "black", "darkblue", "blue"]))]
        targets = [fr] if rng.random() < 0.7 else []
        targets += [e for e in near if rng.random() < 0.5][:2]
        if not targets:
            targets = [fr]
        for e in targets:
            if e["options"]:
                ans = str(rng.choice(list("ABCD")))
            else:
                ans = short_answer(e["rec"], rng)
            hs = size * float(rng.uniform(1.05, 1.5))
            last_base, last_end = e["line_ends"][-1] if e["line_ends"] else (e["box"][3], e["box"][2])
            aa = e["answer_area"]
            room_after = e["x_col"] + e["colw"] - last_end
            est_w = hs * 0.8 * len(ans)
            if e["options"]:
                # letter written in the brackets area after first line end or left margin
                le = e["line_ends"][0] if e["line_ends"] else (e["box"][1] + size, e["box"][2])
                x, b = le[1] + hs * 0.6, le[0]
                mode = "after"
            elif room_after > est_w + hs and rng.random() < 0.5:
                x, b = last_end + hs * 0.5, last_base + rng.normal(0, size * 0.05)
                mode = "after"
            elif aa[3] - aa[1] > hs * 1.2:
                x, b = aa[0] + size * rng.uniform(0.5, 2.5), aa[1] + hs * 1.05
                mode = "under"
            else:
                x, b = e["x_col"] + size * rng.uniform(0.5, 2.0), last_base + hs * 1.1
                mode = "under"
            maxc = max(2, int((e["x_col"] + e["colw"] + size * 2 - x) / (hs * 0.75)))
            if len(ans) > maxc:
                ans = ans[:maxc]
            bb = hand_text(canvas, ans, x, b, hs, pen, rng, writer)
            writing.append({"type": "student_answer", "target": e["id"], "framed": e is fr,
                            "text": ans, "where": mode})
            if rng.random() < 0.55:
                red = PEN_COLORS["red"]
                sc = str(rng.choice(["+3", "+5", "-2", "-1", "5", "3分", "8", "0", "√", "2"]))
                tw = writer.copy()
                tw["slant"] = float(rng.uniform(0.0, 0.3))
                hs2 = size * float(rng.uniform(1.3, 1.9))
                bx = e["box"]
                if rng.random() < 0.65 or bb[2] + hs2 * 2.5 > e["x_col"] + e["colw"]:
                    x2, b2 = bx[0] - hs2 * 1.6, (bx[1] + bx[3]) / 2 + hs2 * 0.35
                else:
                    x2, b2 = min(bb[2] + hs2 * 0.8, e["x_col"] + e["colw"] - hs2), bb[3] - hs2 * 0.1
                if sc == "√":
                    draw_tick(canvas, x2 + hs2 * 0.4, b2 - hs2 * 0.4, hs2, red, 5, rng)
                else:
                    hand_text(canvas, sc, x2, b2, hs2, red, rng, tw)
                writing.append({"type": "teacher_score", "target": e["id"], "framed": e is fr,
                                "text": sc})
        if rng.random() < 0.15:
            hd = [h for h in info["elements"] if h["type"] == "header" and h.get("title")]
            fb = fr["box"]
            if hd and hd[0]["box"][3] < fb[1] - size * 2.5:
                red = PEN_COLORS["red"]
                b = hd[0]["box"]
                sc = str(int(rng.integers(62, 100)))
                hs2 = size * 2.0
                bb = hand_text(canvas, sc, b[2] + hs2, b[3], hs2, red, rng, writer)
                stroke(canvas, [np.array([[bb[0] - 5, bb[3] + 8], [bb[2] + 10, bb[3] + 4]])], 4, red)
                writing.append({"type": "teacher_total", "text": sc})
    return marks, writing


# ----------------------------------------------------------------------------
# geometry
# ----------------------------------------------------------------------------

def proj(Hm, pts):
    p = np.asarray(pts, np.float64)
    ph = np.hstack([p, np.ones((len(p), 1))]) @ Hm.T
    return ph[:, :2] / ph[:, 2:3]


def quad(b):
    x0, y0, x1, y1 = b
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def rot_hom(W, H, f, ax, ay):
    K = np.array([[f, 0, W / 2], [0, f, H / 2], [0, 0, 1.0]])
    a, b = math.radians(ax), math.radians(ay)
    Rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    Ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    return K @ Rx @ Ry @ np.linalg.inv(K)


def vis_area(q, W, H):
    rect = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    qa = abs(cv2.contourArea(q.astype(np.float32)))
    if qa <= 0:
        return 0.0, 0.0
    try:
        ia, _ = cv2.intersectConvexConvex(q.astype(np.float32), rect)
    except cv2.error:
        ia = 0.0
    return float(ia), float(qa)


def plan_camera(rng, info, plan, W, H, cam):
    """Search for a page->photo homography satisfying the framing rules."""
    els = [e for e in info["elements"] if e["type"] == "problem"]
    fr = [e for e in els if e["framed"]][0]
    others = [e for e in els if e is not fr]
    heads = [e for e in info["elements"] if e["type"] == "header" and e["box"] is not None]
    b = fr["box"]
    bw, bh = b[2] - b[0], b[3] - b[1]
    cpage = np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2])
    em = fr["size"]
    above = [e for e in others if e["col"] == fr["col"] and e["j"] == fr["j"] - 1]
    below = [e for e in others if e["col"] == fr["col"] and e["j"] == fr["j"] + 1]
    L = max(W, H)
    s_hi = min(0.86 * W / bw, 0.72 * H / bh, 0.037 * L / em, 1.3)
    # a student holds the phone close enough that the problem is large in the frame
    s_lo = max(0.019 * L / em, min(0.42 * W / bw, 0.34 * H / bh))
    s_lo = min(s_lo, s_hi * 0.92)
    s_lo_k1 = min(0.016 * L / em, s_hi * 0.9)
    s_k1 = None
    if above and below:
        span = union([above[0]["box"], below[0]["box"], b])
        s_k1 = min(0.93 * H / (span[3] - span[1]), 0.95 * W / (span[2] - span[0]))
    diag = math.hypot(W, H)
    best = None
    for t in range(140):
        shrink = max(0.25, 1.0 - t / 120.0)
        if plan["worksheet"] and s_k1 is not None and s_k1 >= s_lo_k1 and t < 100:
            hi = min(s_hi, s_k1)
            s = float(rng.uniform(max(s_lo_k1, hi * 0.75), hi))
        else:
            u = rng.random() ** (0.7 if plan["cut_neighbours"] else 1.3)
            s = s_lo + (s_hi - s_lo) * u
        theta = cam["theta"] if t < 60 else cam["theta"] * shrink
        ax, ay = (cam["tilt"][0] * (shrink if t >= 60 else 1), cam["tilt"][1] * (shrink if t >= 60 else 1))
        off = rng.uniform(-0.085, 0.085, 2) * shrink
        th = math.radians(theta)
        A = np.array([[s * math.cos(th), -s * math.sin(th), 0],
                      [s * math.sin(th), s * math.cos(th), 0], [0, 0, 1.0]])
        T0 = np.array([[1, 0, -cpage[0]], [0, 1, -cpage[1]], [0, 0, 1.0]])
        T1 = np.array([[1, 0, W / 2], [0, 1, H / 2], [0, 0, 1.0]])
        Hm = rot_hom(W, H, cam["focal"] * max(W, H), ax, ay) @ T1 @ A @ T0
        fq = proj(Hm, quad(b))
        c = (fq.min(0) + fq.max(0)) / 2
        want = np.array([W / 2 + off[0] * W, H / 2 + off[1] * H])
        Hm = np.array([[1, 0, want[0] - c[0]], [0, 1, want[1] - c[1]], [0, 0, 1.0]]) @ Hm
        fq = proj(Hm, quad(b))
        m = 0.02 * min(W, H)
        if fq[:, 0].min() < m or fq[:, 1].min() < m or fq[:, 0].max() > W - m or fq[:, 1].max() > H - m:
            continue
        c = (fq.min(0) + fq.max(0)) / 2
        dfr = math.hypot(c[0] - W / 2, c[1] - H / 2)
        ok = True
        nb = []
        for e in others:
            q = proj(Hm, quad(e["box"]))
            ce = (q.min(0) + q.max(0)) / 2
            d = math.hypot(ce[0] - W / 2, ce[1] - H / 2)
            if d <= dfr + 0.02 * diag:
                ok = False
                break
            ia, qa = vis_area(q, W, H)
            if ia > max(0.02 * qa, 300):
                nb.append((e, "whole" if ia >= 0.995 * qa else "cut", q))
        if not ok:
            continue
        whole_ids = {id(e) for e, v, _ in nb if v == "whole"}
        k1 = bool(above and below and id(above[0]) in whole_ids and id(below[0]) in whole_ids)
        k10 = any(v == "cut" for _, v, _ in nb)
        hv = False
        for h in heads:
            ia, qa = vis_area(proj(Hm, quad(h["box"])), W, H)
            if qa > 0 and ia >= 0.6 * qa:
                hv = True
        score = 0
        score += 2 if k1 == plan["worksheet"] else 0
        score += 2 if k10 == plan["cut_neighbours"] else 0
        score += 2 if hv == plan["header"] else 0
        cand = (score, Hm, s, theta, (ax, ay), nb, k1, k10, hv)
        if best is None or score > best[0]:
            best = cand
        if score >= 6:
            break
    return best


# ----------------------------------------------------------------------------
# photo effects
# ----------------------------------------------------------------------------

def smooth_noise(rng, H, W, cells, amp):
    g = rng.normal(0, 1, (cells, max(2, int(cells * W / H)))).astype(np.float32)
    n = cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC)
    return n * amp


def background(rng, H, W):
    kind = str(rng.choice(["wood", "wood", "table", "cloth", "paper"]))
    if kind == "wood":
        r_ = rng.uniform(120, 195)
        g_ = r_ * rng.uniform(0.58, 0.74)
        base = np.array([g_ * rng.uniform(0.45, 0.7), g_, r_])  # BGR
        g = rng.normal(0, 1, (max(2, H // 3), 6)).astype(np.float32)
        grain = cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC)
        if rng.random() < 0.5:
            grain = cv2.resize(rng.normal(0, 1, (6, max(2, W // 3))).astype(np.float32), (W, H),
                               interpolation=cv2.INTER_CUBIC)
        img = base[None, None, :] * (1 + 0.12 * grain[..., None]) + smooth_noise(rng, H, W, 4, 12)[..., None]
    elif kind == "table":
        v = rng.uniform(150, 225)
        img = np.full((H, W, 3), v) + smooth_noise(rng, H, W, 5, 10)[..., None]
        img[..., 0] += rng.uniform(-10, 10)
    elif kind == "cloth":
        base = rng.uniform(40, 160, 3)
        img = base[None, None, :] + smooth_noise(rng, H, W, 8, 10)[..., None] + rng.normal(0, 6, (H, W, 1))
    else:
        img = np.full((H, W, 3), rng.uniform(200, 240)) + smooth_noise(rng, H, W, 3, 6)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8), kind


def illumination(rng, H, W, strength):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    g = ((xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)) / max(W, H)
    L = 1.0 + strength * rng.uniform(0.3, 0.9) * g
    r2 = ((xx - W / 2) / W) ** 2 + ((yy - H / 2) / H) ** 2
    L *= 1.0 - strength * rng.uniform(0.1, 0.6) * r2
    cx, cy = rng.uniform(0, W), rng.uniform(0, H)
    hot = np.exp(-(((xx - cx) / (0.6 * W)) ** 2 + ((yy - cy) / (0.6 * H)) ** 2))
    L += strength * rng.uniform(0.0, 0.25) * hot
    return L


def shadow_mask(rng, H, W):
    """Soft polygon shadow (phone / hand / head) coming from an edge."""
    m = np.zeros((H, W), np.float32)
    side = int(rng.integers(4))
    depth = rng.uniform(0.15, 0.45)
    pts = []
    n = 5
    if side == 0:    # top
        xs = np.sort(rng.uniform(-0.1, 1.1, n)) * W
        pts = [(xs[0], -10)] + [(x, rng.uniform(0.05, depth) * H) for x in xs[1:-1]] + [(xs[-1], -10)]
    elif side == 1:  # right
        ys = np.sort(rng.uniform(-0.1, 1.1, n)) * H
        pts = [(W + 10, ys[0])] + [(W - rng.uniform(0.05, depth) * W, y) for y in ys[1:-1]] + [(W + 10, ys[-1])]
    elif side == 2:  # bottom
        xs = np.sort(rng.uniform(-0.1, 1.1, n)) * W
        pts = [(xs[0], H + 10)] + [(x, H - rng.uniform(0.05, depth) * H) for x in xs[1:-1]] + [(xs[-1], H + 10)]
    else:
        ys = np.sort(rng.uniform(-0.1, 1.1, n)) * H
        pts = [(-10, ys[0])] + [(rng.uniform(0.05, depth) * W, y) for y in ys[1:-1]] + [(-10, ys[-1])]
    cv2.fillPoly(m, [np.array(pts, np.int32)], 1.0)
    sig = rng.uniform(0.02, 0.07) * max(W, H)
    return cv2.GaussianBlur(m, (0, 0), sig)


def seg_dist(xx, yy, p0, p1):
    d = np.array(p1, np.float32) - np.array(p0, np.float32)
    L2 = float(d @ d) + 1e-6
    t = ((xx - p0[0]) * d[0] + (yy - p0[1]) * d[1]) / L2
    t = np.clip(t, 0, 1)
    px = p0[0] + t * d[0]
    py = p0[1] + t * d[1]
    return np.sqrt((xx - px) ** 2 + (yy - py) ** 2), t


def edge_entry(rng, W, H, side, along):
    if side == "left":
        return np.array([-0.15 * W, along * H]), np.array([1.0, 0.0])
    if side == "right":
        return np.array([1.15 * W, along * H]), np.array([-1.0, 0.0])
    if side == "bottom":
        return np.array([along * W, 1.15 * H]), np.array([0.0, -1.0])
    return np.array([along * W, -0.15 * H]), np.array([0.0, 1.0])


def render_occluder(img, rng, kind, p0, p1, r, light_dir):
    """Composite a finger/thumb/pen (capsule) onto float image (0..1, BGR)."""
    H, W = img.shape[:2]
    # work at half resolution for speed, then upsample
    sc = 0.5
    h2, w2 = int(H * sc), int(W * sc)
    yy, xx = np.mgrid[0:h2, 0:w2].astype(np.float32)
    q0, q1, rr = np.array(p0) * sc, np.array(p1) * sc, r * sc
    d, t = seg_dist(xx, yy, q0, q1)
    if kind in ("finger", "thumb"):
        rad = rr * (1.0 - 0.12 * t)
    else:
        rad = rr * np.ones_like(t)
    mask = np.clip((rad - d) / 1.5, 0, 1)
    n = np.clip(d / np.maximum(rad, 1e-3), 0, 1)
    axis = (q1 - q0) / (np.linalg.norm(q1 - q0) + 1e-6)
    perp = np.array([-axis[1], axis[0]])
    side = ((xx - q0[0]) * perp[0] + (yy - q0[1]) * perp[1]) / np.maximum(rad, 1e-3)
    side = np.clip(side, -1, 1)
    shade = 0.55 + 0.45 * np.sqrt(np.clip(1 - n ** 2, 0, 1)) + 0.12 * side * light_dir
    if kind in ("finger", "thumb"):
        tone = rng.uniform(0.55, 1.0)
        base = np.array([rng.uniform(150, 200) * tone, rng.uniform(170, 205) * tone,
                         rng.uniform(215, 245) * tone]) / 255.0  # BGR skin
        col = base[None, None, :] * shade[..., None]
        col[..., 2] += 0.05 * n  # redder rim
        # nail
        along = ((xx - q1[0]) * axis[0] + (yy - q1[1]) * axis[1])
        across = ((xx - q1[0]) * perp[0] + (yy - q1[1]) * perp[1])
        nc = -rr * (0.55 if kind == "finger" else 0.45)
        nail = np.clip(1 - (((along - nc) / (rr * 0.55)) ** 2 + (across / (rr * 0.6)) ** 2), 0, 1)
        nail = np.clip(nail * 4, 0, 1) * (rng.random() < 0.85)
        ncol = np.array([0.78, 0.80, 0.92]) * tone ** 0.5
        col = col * (1 - 0.8 * nail[..., None]) + 0.8 * nail[..., None] * ncol[None, None, :] * shade[..., None] * 1.08
    else:
        body = np.array(PEN_BODY[int(rng.integers(len(PEN_BODY)))]) / 255.0
        col = body[None, None, :] * (0.35 + 0.75 * shade[..., None])
        spec = np.exp(-((side + 0.45) / 0.12) ** 2) * 0.5
        col += spec[..., None]
        # tip cone drawn as darker/metal segment near p1
        tipz = np.clip((t - 0.93) / 0.07, 0, 1)
        col = col * (1 - tipz[..., None]) + tipz[..., None] * np.array([0.6, 0.6, 0.62]) * shade[..., None]
        if kind == "pen":
            taper = 1 - 0.75 * tipz
            mask = np.clip((rad * taper - d) / 1.5, 0, 1)
    col = np.clip(col, 0, 1).astype(np.float32)
    mask = mask.astype(np.float32)
    col = cv2.resize(col, (W, H), interpolation=cv2.INTER_LINEAR)
    mask = cv2.resize(mask, (W, H), interpolation=cv2.INTER_LINEAR)
    # shadow on the page
    off = (np.array([light_dir * 0.3, 0.5]) * r * rng.uniform(0.3, 0.9))
    Ms = np.float32([[1, 0, off[0]], [0, 1, off[1]]])
    sh = cv2.warpAffine(mask, Ms, (W, H))
    sh = cv2.GaussianBlur(sh, (0, 0), r * 0.4 + 3)
    img *= (1 - rng.uniform(0.2, 0.45) * sh)[..., None]
    # defocus (close to lens)
    sig = (r * rng.uniform(0.05, 0.18) + 1.0) if kind in ("finger", "thumb") else rng.uniform(1.0, 3.0)
    col = cv2.GaussianBlur(col, (0, 0), sig)
    mask = cv2.GaussianBlur(mask, (0, 0), sig)
    img[:] = img * (1 - mask[..., None]) + col * mask[..., None]
    return mask


PEN_BODY = [(180, 60, 20), (40, 40, 40), (230, 230, 235), (40, 40, 180), (60, 130, 40), (190, 150, 30)]


def screen_texture(page, s, rng):
    """Page shown on a display: pixel grid with RGB sub-pixels."""
    q = float(rng.uniform(1.35, 2.4))   # display pixel pitch in photo pixels
    f = s / q
    Hp, Wp = page.shape[:2]
    dw, dh = max(8, int(round(Wp * f))), max(8, int(round(Hp * f)))
    disp = cv2.resize(page, (dw, dh), interpolation=cv2.INTER_AREA).astype(np.float32)
    tex = np.repeat(np.repeat(disp, 3, axis=0), 3, axis=1)
    pat = np.full((3, 3, 3), float(rng.uniform(0.2, 0.4)), np.float32)
    for c in range(3):
        pat[:, c, 2 - c] = 1.0   # BGR order: column 0 = R (index 2)
    pat[2, :, :] *= rng.uniform(0.45, 0.75)
    reps = (tex.shape[0] // 3, tex.shape[1] // 3, 1)
    tex = tex * np.tile(pat, reps) * (3.0 / (1.0 + 2.0 * pat[0, 0, 0])) * rng.uniform(0.95, 1.1)
    return np.clip(tex, 0, 255).astype(np.uint8), 1.0 / (3 * f), q


def apply_screen_look(img, rng, W, H):
    """Glow, cool tint, moire bands and reflections on a float BGR image (0..1)."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    glow = cv2.GaussianBlur(img, (0, 0), max(W, H) / 80)
    img = img * 0.9 + glow * rng.uniform(0.12, 0.3)
    tint = np.array([rng.uniform(1.0, 1.1), 1.0, rng.uniform(0.85, 0.98)], np.float32)
    img = img * tint[None, None, :]
    # moire: beat pattern of two slightly different gratings, warped
    f1 = rng.uniform(0.02, 0.07)
    a1 = rng.uniform(0, np.pi)
    warp = smooth_noise(rng, H, W, 3, rng.uniform(5, 25))
    ph = 2 * np.pi * f1 * (xx * math.cos(a1) + yy * math.sin(a1) + warp)
    amp = rng.uniform(0.03, 0.09)
    mo = np.stack([np.cos(ph), np.cos(ph + 2.1), np.cos(ph + 4.2)], -1)
    img = img * (1 + amp * mo)
    # reflection band
    ang = rng.uniform(0, np.pi)
    pos = rng.uniform(-0.3, 0.3) * max(W, H)
    d = (xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang) - pos
    band = np.exp(-(d / (rng.uniform(0.05, 0.25) * max(W, H))) ** 2)
    img = img + rng.uniform(0.06, 0.22) * band[..., None]
    if rng.random() < 0.5:  # dim silhouette reflection
        cx, cy = rng.uniform(0.2, 0.8) * W, rng.uniform(0.2, 0.8) * H
        blob = np.exp(-(((xx - cx) / (0.25 * W)) ** 2 + ((yy - cy) / (0.35 * H)) ** 2))
        img = img * (1 - 0.18 * blob[..., None]) + 0.05 * blob[..., None]
    return img


# ----------------------------------------------------------------------------
# one photo
# ----------------------------------------------------------------------------

SIZES = [((1280, 960), 0.34), ((960, 1280), 0.34), ((1600, 1200), 0.08), ((1200, 1600), 0.08),
         ((1440, 1080), 0.06), ((1080, 1440), 0.06), ((1024, 768), 0.02), ((768, 1024), 0.02)]


def make_plan(rng, framed):
    q = framed["question"]
    p = {
        "worksheet": rng.random() < 0.4,
        "header": rng.random() < 0.3,
        "fonts": rng.random() < 0.42,
        "marks": rng.random() < 0.28,
        "blanks_scripts": has_special(q) or rng.random() < 0.22,
        "occluder": rng.random() < 0.22,
        "screen": rng.random() < 0.13,
        "camera": rng.random() < 0.45,
        "handwriting": rng.random() < 0.3,
        "cut_neighbours": rng.random() < 0.4,
    }
    p["header_mode"] = "top" if rng.random() < 0.55 else "heading"
    u = rng.random()
    p["columns"] = 1 if u < 0.6 else (2 if u < 0.9 else 3)
    p["tcol"] = int(rng.integers(p["columns"])) if rng.random() < 0.6 else 0
    if p["header"] and p["header_mode"] == "top":
        p["tcol"], p["tj"] = 0, int(rng.integers(0, 2))
    elif p["worksheet"]:
        p["tj"] = int(rng.integers(1, 4))
    else:
        p["tj"] = int(rng.integers(0, 5))
    p["circled_print"] = p["marks"] and rng.random() < 0.2
    p["options"] = rng.random() < 0.35
    p["score_note"] = None
    p["occlude_framed"] = p["occluder"] and rng.random() < 0.2
    return p


def make_photo(task):
    i, framed, bank, seed, out_dir = task
    qid = "v%03d" % (i + 1)
    rng = np.random.default_rng(np.random.SeedSequence([seed, i + 1]))
    plan = make_plan(rng, framed)
    lang_en = not has_cjk(framed["question"])
    # photo size and coarse orientation
    idx = rng.choice(len(SIZES), p=np.array([w for _, w in SIZES]) / sum(w for _, w in SIZES))
    Wf, Hf = SIZES[int(idx)][0]
    orient = 0
    if plan["camera"] and rng.random() < 0.2:
        orient = int(rng.choice([90, 270, 180, 90]))
    W, H = (Hf, Wf) if orient in (90, 270) else (Wf, Hf)
    # camera parameters
    if plan["camera"]:
        pool = ["rotation", "perspective", "shadow", "blur", "motion_blur", "low_light",
                "uneven_light", "curl"]
        if plan["screen"]:
            pool = ["rotation", "perspective", "uneven_light"]
        effects = set(rng.choice(pool, size=int(rng.integers(1, 4)), replace=False).tolist())
    else:
        effects = set()
    theta = float(rng.uniform(3, 9) * rng.choice([-1, 1])) if "rotation" in effects else float(rng.normal(0, 0.8))
    theta = float(np.clip(theta, -9, 9))
    if "perspective" in effects:
        tilt = (float(rng.uniform(7, 17) * rng.choice([-1, 1])), float(rng.uniform(3, 14) * rng.choice([-1, 1])))
    else:
        tilt = (float(rng.uniform(-4, 4)), float(rng.uniform(-4, 4)))
    cam = {"theta": theta, "tilt": tilt, "focal": float(rng.uniform(0.9, 1.3))}

    page = None
    for attempt in range(6):
        res = build_page(rng, framed, bank, plan, lang_en)
        if res is not None:
            page, info = res
            break
        plan["columns"] = max(1, plan["columns"] - 1)
    if page is None:
        raise RuntimeError("could not lay out page for %s" % framed["id"])
    marks, writing = add_marks_and_writing(page, info, plan, rng, framed)
    best = plan_camera(rng, info, plan, W, H, cam)
    if best is None:
        cam["theta"], cam["tilt"] = 0.0, (0.0, 0.0)
        best = plan_camera(rng, info, plan, W, H, cam)
    if best is None:
        raise RuntimeError("no framing found for %s" % framed["id"])
    _, Hm, s, theta, tilt, nb, k1, k10, hv = best

    els = [e for e in info["elements"] if e["type"] == "problem"]
    fr = [e for e in els if e["framed"]][0]
    details = []

    # ---------------- warp page into the photo
    curl = None
    if plan["screen"]:
        pad = int(rng.uniform(80, 320))
        vbg = np.array([rng.uniform(40, 90)] * 3) if rng.random() < 0.5 else np.array([rng.uniform(200, 235)] * 3)
        padded = cv2.copyMakeBorder(page[..., ::-1], pad, pad, pad, pad, cv2.BORDER_CONSTANT,
                                    value=[float(v) for v in vbg])
        tex, inv, pitch = screen_texture(padded, s, rng)
        Hs = Hm @ np.array([[1, 0, -pad], [0, 1, -pad], [0, 0, 1.0]]) @ np.diag([inv, inv, 1.0])
        bezel = int(rng.uniform(5, 30))
        warped = cv2.warpPerspective(tex, Hs, (W, H), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(bezel, bezel, bezel))
        img = warped.astype(np.float32) / 255.0
        img = apply_screen_look(img, rng, W, H)
        details.append("screen_pitch_%.1fpx" % pitch)
        screen_info = {"pixel_pitch_photo_px": round(pitch, 2),
                       "viewer_bg": "dark" if vbg[0] < 128 else "light"}
    else:
        screen_info = None
        bg, bgkind = background(rng, H, W)
        f = min(1.0, s * 1.3)
        src = page[..., ::-1]
        Huse = Hm
        if f < 0.95:
            src = cv2.resize(src, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            Huse = Hm @ np.diag([1 / f, 1 / f, 1.0])
        # paper shadow on the desk
        pm = cv2.warpPerspective(np.ones(src.shape[:2], np.float32), Huse, (W, H))
        shd = cv2.GaussianBlur(np.roll(pm, (6, 6), (0, 1)), (0, 0), 8)
        bgf = bg.astype(np.float32) * (1 - 0.35 * shd[..., None])
        bg = np.clip(bgf, 0, 255).astype(np.uint8)
        img = cv2.warpPerspective(src, Huse, (W, H), dst=bg.copy(), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_TRANSPARENT)
        img = img.astype(np.float32) / 255.0
        # paper grain
        img *= (1 + smooth_noise(rng, H, W, 60, 0.005) + rng.normal(0, 0.005, (H, W)).astype(np.float32))[..., None]
        if "curl" in effects:
            amp = rng.uniform(4, 12)
            dxm = smooth_noise(rng, H, W, 2, amp)
            dym = smooth_noise(rng, H, W, 2, amp)
            gx, gy = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
            img = cv2.remap(img, gx + dxm, gy + dym, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            curl = (dxm, dym)
            details.append("page_curl")
        details.append("background_" + bgkind)

    # ---------------- light
    strength = 0.55 if ("uneven_light" in effects or "low_light" in effects) else 0.2
    L = illumination(rng, H, W, strength)
    if "low_light" in effects:
        L *= rng.uniform(0.45, 0.7)
    img *= L[..., None]
    if "shadow" in effects or (not plan["screen"] and rng.random() < 0.15):
        sm = shadow_mask(rng, H, W)
        img *= (1 - rng.uniform(0.25, 0.55) * sm)[..., None]
        details.append("shadow")
    wb = np.array([rng.uniform(0.9, 1.02), 1.0, rng.uniform(0.98, 1.1)], np.float32)  # BGR warmish
    img *= wb[None, None, :]
    for e in sorted(effects):
        if e not in ("curl", "shadow"):
            details.append(e)

    # ---------------- occluder
    occ = None
    fq_up = proj(Hm, quad(fr["box"]))
    fmask_small = np.zeros((H // 4 + 1, W // 4 + 1), np.uint8)
    cv2.fillConvexPoly(fmask_small, (fq_up / 4).astype(np.int32), 1)
    occ_mask = None
    if plan["occluder"]:
        kind = str(rng.choice(["finger", "finger", "thumb", "pen"]))
        light_dir = float(rng.choice([-1, 1]))
        mind = min(W, H)
        r = {"finger": rng.uniform(0.06, 0.09), "thumb": rng.uniform(0.085, 0.12),
             "pen": rng.uniform(0.016, 0.026)}[kind] * mind
        placed = False
        for attempt in range(25):
            if plan["occlude_framed"] and attempt < 15:
                # reach in from the right to the end of a framed text line
                le = fr["line_ends"][int(rng.integers(len(fr["line_ends"])))]
                tgt = proj(Hm, [[le[1] - fr["size"] * rng.uniform(0.3, 1.6), le[0] - fr["size"] * 0.4]])[0]
                side = "right" if tgt[0] > W * 0.4 else "left"
                if side == "left":
                    le0 = fr["line_starts"][0]
                    tgt = proj(Hm, [[fr["text_box"][0] + fr["size"] * 0.8, le0 - fr["size"] * 0.4]])[0]
                p0, dirv = edge_entry(rng, W, H, side, tgt[1] / H + rng.uniform(0.05, 0.25))
                p1 = tgt
            else:
                side = str(rng.choice(["left", "right", "bottom", "bottom", "top"]))
                along = rng.uniform(0.1, 0.9)
                p0, dirv = edge_entry(rng, W, H, side, along)
                if kind == "pen":
                    ang = rng.uniform(-0.9, 0.9)
                    depth = rng.uniform(0.2, 0.45) * (W if side in ("left", "right") else H)
                else:
                    ang = rng.uniform(-0.5, 0.5)
                    depth = rng.uniform(0.12, 0.3) * (W if side in ("left", "right") else H) * (1 - attempt / 40)
                R2 = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
                dv = R2 @ dirv
                # tip at `depth` inside the frame edge
                edge_pt = p0 + dv * (0.15 * (W if side in ("left", "right") else H)) / max(abs(dv @ dirv), 0.3)
                p1 = edge_pt + dv * depth
            # test overlap with the framed problem on a coarse grid
            hh, ww = fmask_small.shape
            yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32)
            d, _ = seg_dist(xx, yy, p0 / 4, p1 / 4)
            cov = (d < r / 4 * 1.15).astype(np.uint8)
            inter = int((cov & fmask_small).sum())
            if plan["occlude_framed"] and attempt < 15:
                fa = int(fmask_small.sum())
                if 0 < inter < 0.25 * fa:
                    placed = True
                    break
                continue
            if inter == 0:
                placed = True
                break
        if placed:
            occ_mask = render_occluder(img, rng, kind, p0, p1, r, light_dir)
            occ_framed = bool(inter > 0)
            occ = {"type": kind, "side": side, "covers_framed": occ_framed}
    # ---------------- blur / sharpen / noise
    if "blur" in effects:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(1.1, 2.0))
    elif "motion_blur" in effects:
        ln = int(rng.integers(5, 11))
        k = np.zeros((ln, ln), np.float32)
        k[ln // 2, :] = 1
        Mr = cv2.getRotationMatrix2D((ln / 2 - 0.5, ln / 2 - 0.5), rng.uniform(0, 180), 1.0)
        k = cv2.warpAffine(k, Mr, (ln, ln))
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
    else:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.35, 0.6 if plan["screen"] else 0.7))
    if rng.random() < 0.5:
        bl = cv2.GaussianBlur(img, (0, 0), 1.6)
        img = img + rng.uniform(0.3, 0.8) * (img - bl)
    sig = rng.uniform(0.006, 0.018) * (2.0 if "low_light" in effects else 1.0)
    lum = rng.normal(0, 1, (H, W, 1)).astype(np.float32)
    chroma = rng.normal(0, 0.5, (H, W, 3)).astype(np.float32)
    img = img + sig * (lum + chroma) * np.sqrt(np.clip(img, 0.02, 1))
    img = np.clip(img * 255.0, 0, 255).astype(np.uint8)

    # ---------------- orientation
    k = {0: 0, 90: 1, 180: 2, 270: 3}[orient]
    img = np.ascontiguousarray(np.rot90(img, k))
    Wo, Ho = img.shape[1], img.shape[0]

    def uncurl(pts):
        """Where page points end up after the bend (out = in - d(out), solved by iteration)."""
        pts = np.asarray(pts, np.float64)
        if curl is None:
            return pts
        out = pts.copy()
        for _ in range(3):
            xi = np.clip(np.round(out[:, 0]).astype(int), 0, W - 1)
            yi = np.clip(np.round(out[:, 1]).astype(int), 0, H - 1)
            out = pts - np.stack([curl[0][yi, xi], curl[1][yi, xi]], 1)
        return out

    def to_final(pts):
        pts = uncurl(pts)
        x, y = pts[:, 0], pts[:, 1]
        if k == 0:
            return pts
        if k == 1:
            return np.stack([y, W - x], 1)
        if k == 2:
            return np.stack([W - x, H - y], 1)
        return np.stack([H - y, x], 1)

    q = int(rng.integers(55, 93))
    ok, buf = cv2.imencode(".jpg", img, [int(cv2.IMWRITE_JPEG_QUALITY), q])
    with open(os.path.join(out_dir, qid + ".jpg"), "wb") as fh:
        fh.write(buf.tobytes())

    # ---------------- meta
    fq = to_final(proj(Hm, quad(fr["box"])))
    tq = to_final(proj(Hm, quad(fr["text_box"])))
    bb = [float(fq[:, 0].min()), float(fq[:, 1].min()), float(fq[:, 0].max()), float(fq[:, 1].max())]
    cx, cy = (bb[0] + bb[2]) / 2, (bb[1] + bb[3]) / 2
    neigh = []
    fb = fr["box"]
    for e, vis, qq in nb:
        ebx = e["box"]
        if ebx[2] > fb[0] + 20 and ebx[0] < fb[2] - 20:
            pos = "above" if ebx[1] < fb[1] else "below"
        else:
            hpos = "left" if ebx[0] < fb[0] else "right"
            if ebx[3] < fb[1] + 10:
                pos = "above-" + hpos
            elif ebx[1] > fb[3] - 10:
                pos = "below-" + hpos
            else:
                pos = hpos
        occl = False
        if occ_mask is not None:
            m = np.zeros((H // 4 + 1, W // 4 + 1), np.uint8)
            cv2.fillConvexPoly(m, (qq / 4).astype(np.int32), 1)
            om = occ_mask[::4, ::4][:m.shape[0], :m.shape[1]] > 0.5
            occl = bool((m[:om.shape[0], :om.shape[1]].astype(bool) & om).sum() > 0)
        neigh.append({"id": e["id"], "position": pos, "visible": vis, "number": e["label"],
                      "occluded": occl})
    kinds = []
    if k1:
        kinds.append("worksheet")
    if hv:
        kinds.append("header")
    if info["style"].traits:
        kinds.append("fonts")
    vis_ids = {e["id"] for e, _, _ in nb} | {fr["id"]}
    if marks and any(m.get("target") in vis_ids for m in marks):
        kinds.append("marks")
    vis_special = [e for e in els if e["id"] in vis_ids and
                   (has_special(e["rec"]["question"]) or
                    (e["options"] and any(has_special(o) for o in e["options"])))]
    if vis_special:
        kinds.append("blanks_scripts")
    if occ is not None:
        kinds.append("occluder")
    if plan["screen"]:
        kinds.append("screen")
    if effects or orient:
        kinds.append("camera")
    if writing and any(w.get("target") in vis_ids or w["type"] == "teacher_total" for w in writing):
        kinds.append("handwriting")
    if k10:
        kinds.append("cut_neighbours")
    if orient in (90, 270):
        details.append("sideways")
    elif orient == 180:
        details.append("upside_down")
    if info["columns"] > 1:
        details.append("%d_columns" % info["columns"])
    # rotation: counter-clockwise degrees of the sheet's text baseline in the final photo
    v = proj(Hm, [[fb[0], fb[3]], [fb[2], fb[3]]])
    vf = to_final(v)
    rot = -math.degrees(math.atan2(vf[1, 1] - vf[0, 1], vf[1, 0] - vf[0, 0]))
    meta = {
        "qid": qid, "id": framed["id"], "kinds": kinds, "details": details,
        "photo_size": [Wo, Ho], "jpeg_quality": q,
        "rotation_deg": round(rot, 2), "orientation": orient,
        "fine_rotation_deg": round(-theta, 2), "tilt_deg": [round(tilt[0], 2), round(tilt[1], 2)],
        "framed_box": [round(v, 1) for v in bb],
        "framed_quad": [[round(a, 1), round(b_, 1)] for a, b_ in fq],
        "framed_text_quad": [[round(a, 1), round(b_, 1)] for a, b_ in tq],
        "centre_offset": [round((cx - Wo / 2) / Wo, 4), round((cy - Ho / 2) / Ho, 4)],
        "framed_number": fr["label"], "framed_score_note": fr["score"],
        "framed_options": fr["options"],
        "framed_glyph_px": round(fr["size"] * s, 1),
        "columns": info["columns"], "number_style": info["number_style"],
        "neighbours": neigh,
        "fonts": info["fonts_used"], "framed_fonts": fr["fonts"],
        "font_traits": info["style"].traits,
        "marks": marks, "handwriting": writing, "occluder": occ, "screen": screen_info,
    }
    truth = framed["question"]
    return qid, framed["id"], truth, meta


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

def _init_worker():
    cv2.setNumThreads(1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bank", required=True)
    ap.add_argument("out_dir")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=131)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    t0 = time.time()
    global REG
    REG = Registry(discover_faces())
    bank = load_bank(a.bank)
    framed = choose_framed(bank, a.count, a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    tasks = [(i, framed[i], bank, a.seed, a.out_dir) for i in range(a.count)]
    results = []
    if a.jobs > 1:
        ctx = get_context("fork")
        with ctx.Pool(a.jobs, initializer=_init_worker) as pool:
            for r in pool.imap_unordered(make_photo, tasks, chunksize=1):
                results.append(r)
    else:
        for t in tasks:
            results.append(make_photo(t))
    results.sort(key=lambda r: r[0])
    with open(os.path.join(a.out_dir, "truth.csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["qid", "text"])
        for qid, bid, truth, _ in results:
            w.writerow([qid, truth])
    with open(os.path.join(a.out_dir, "queries.csv"), "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for qid, bid, truth, _ in results:
            w.writerow([qid, truth, bid, "exact"])
    with open(os.path.join(a.out_dir, "meta.jsonl"), "w", encoding="utf-8") as fh:
        for _, _, _, m in results:
            fh.write(json.dumps(m, ensure_ascii=False) + "\n")
    counts = {k: 0 for k in KINDS}
    for _, _, _, m in results:
        for k in m["kinds"]:
            counts[k] += 1
    print("wrote %d photos to %s in %.1f s" % (len(results), a.out_dir, time.time() - t0))
    print("kinds: " + ", ".join("%s=%d" % (k, v) for k, v in counts.items()))


if __name__ == "__main__":
    main()
