#!/usr/bin/env python3
"""Photo set "tune28": phone photos of photocopied tutoring-centre handouts and
printed past papers, each framing ONE problem taken from the question bank.

Run (from the repository root):
    .venv/bin/python tests/photos_tune28/make_photos.py \
        --bank appliance/data/demo_bank.jsonl OUTDIR --count 120 --seed 291

Writes OUTDIR/x001.jpg ..., truth.csv, queries.csv, cases.csv.
Only numpy, Pillow, OpenCV and the system fonts are used; no network.
Every photo is drawn from its own random stream (seed, index), so the output
is the same for a given seed whatever the number of worker processes.
"""
import argparse
import csv
import json
import math
import os
import sys
import time

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

# ----------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------

FONT_FILES = {
    # key: (file name, ttc index)
    "noto_sans_sc": ("NotoSansCJK-Regular.ttc", 2),
    "noto_sans_sc_bold": ("NotoSansCJK-Bold.ttc", 2),
    "noto_serif_sc": ("NotoSerifCJK-Regular.ttc", 2),
    "noto_serif_sc_bold": ("NotoSerifCJK-Bold.ttc", 2),
    "noto_sans_mono_sc": ("NotoSansCJK-Regular.ttc", 7),
    "liberation_serif": ("LiberationSerif-Regular.ttf", 0),
    "liberation_serif_bold": ("LiberationSerif-Bold.ttf", 0),
    "liberation_serif_italic": ("LiberationSerif-Italic.ttf", 0),
    "liberation_sans": ("LiberationSans-Regular.ttf", 0),
    "liberation_sans_bold": ("LiberationSans-Bold.ttf", 0),
    "liberation_sans_italic": ("LiberationSans-Italic.ttf", 0),
    "liberation_sans_narrow": ("LiberationSansNarrow-Regular.ttf", 0),
    "liberation_sans_narrow_bold": ("LiberationSansNarrow-Bold.ttf", 0),
    "liberation_mono": ("LiberationMono-Regular.ttf", 0),
    "dejavu_sans": ("DejaVuSans.ttf", 0),
    "dejavu_sans_bold": ("DejaVuSans-Bold.ttf", 0),
    "dejavu_sans_oblique": ("DejaVuSans-Oblique.ttf", 0),
    "dejavu_sans_condensed": ("DejaVuSansCondensed.ttf", 0),
    "dejavu_sans_condensed_bold": ("DejaVuSansCondensed-Bold.ttf", 0),
    "dejavu_serif": ("DejaVuSerif.ttf", 0),
    "dejavu_serif_bold": ("DejaVuSerif-Bold.ttf", 0),
    "dejavu_serif_italic": ("DejaVuSerif-Italic.ttf", 0),
    "dejavu_serif_condensed": ("DejaVuSerifCondensed.ttf", 0),
    "dejavu_serif_condensed_bold": ("DejaVuSerifCondensed-Bold.ttf", 0),
}
FONT_PATHS = {}


def find_fonts():
    found = {}
    for root in ("/usr/share/fonts", "/usr/local/share/fonts",
                 os.path.expanduser("~/.fonts"), os.path.expanduser("~/.local/share/fonts")):
        if not os.path.isdir(root):
            continue
        for dp, _dn, fns in os.walk(root):
            for fn in fns:
                found.setdefault(fn, os.path.join(dp, fn))
    for key, (fn, idx) in FONT_FILES.items():
        if fn in found:
            FONT_PATHS[key] = (found[fn], idx)
    if not any(k.startswith("noto_") for k in FONT_PATHS):
        sys.exit("no Noto CJK font found (fc-list :lang=zh); cannot draw Chinese")
    if not any(k.startswith(("liberation", "dejavu")) for k in FONT_PATHS):
        sys.exit("no Latin font (DejaVu / Liberation) found")


def fk(key, fallback):
    """key if installed, else the first installed fallback."""
    if key in FONT_PATHS:
        return key
    for k in fallback:
        if k in FONT_PATHS:
            return k
    return next(iter(FONT_PATHS))


_FONT_CACHE = {}


def get_font(key, size):
    size = max(6, int(round(size)))
    k = (key, size)
    f = _FONT_CACHE.get(k)
    if f is None:
        path, idx = FONT_PATHS[key]
        f = ImageFont.truetype(path, size, index=idx)
        _FONT_CACHE[k] = f
    return f


_GLYPH_CACHE = {}


def _mask_sig(font, ch):
    m = font.getmask(ch)
    if m.size[0] * m.size[1] == 0:
        return (m.size, b"")
    return (m.size, np.asarray(m).tobytes())


def has_glyph(key, ch):
    k = (key, ch)
    r = _GLYPH_CACHE.get(k)
    if r is None:
        if ch == " ":
            r = True
        else:
            f = get_font(key, 32)
            r = _mask_sig(f, ch) != _mask_sig(f, "\U000F0001")
        _GLYPH_CACHE[k] = r
    return r


def is_cjk(ch):
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF
            or 0x2460 <= o <= 0x24FF or 0x3400 <= o <= 0x4DBF)


def has_cjk(s):
    return any(is_cjk(c) for c in s)


CLOSE_PUNCT = set("，。、；：？！）》」』”’,.;:?!)]…%")
SUP_MAP = {"²": "2", "³": "3", "¹": "1", "⁰": "0", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
           "⁸": "8", "⁹": "9", "⁻": "-", "ⁿ": "n"}
SUB_MAP = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7",
           "₈": "8", "₉": "9", "ₙ": "n", "ₘ": "m"}


class Typesetter:
    """Font routing for one page: a CJK face, a Latin face, fall-backs."""

    def __init__(self, cjk, cjk_bold, lat, lat_bold, lat_is_serif):
        self.cjk, self.cjk_bold, self.lat, self.lat_bold = cjk, cjk_bold, lat, lat_bold
        dv = "dejavu_serif" if lat_is_serif else "dejavu_sans"
        self.fallback = [fk(dv, ["dejavu_sans"]), cjk, fk("dejavu_sans", [cjk])]
        self.fallback_bold = [fk(dv + "_bold", ["dejavu_sans_bold", dv]), cjk_bold,
                              fk("dejavu_sans_bold", [cjk_bold])]

    def route(self, ch, cjk_ctx, bold=False):
        c = self.cjk_bold if bold else self.cjk
        l = self.lat_bold if bold else self.lat
        if is_cjk(ch) or (cjk_ctx and ch in "“”‘’…—"):
            return c if has_glyph(c, ch) else self.route_fb(ch, bold)
        if has_glyph(l, ch):
            return l
        return self.route_fb(ch, bold)

    def route_fb(self, ch, bold):
        for k in (self.fallback_bold if bold else self.fallback):
            if has_glyph(k, ch):
                return k
        return self.fallback[-1]

    def runs(self, text, cjk_ctx, bold=False):
        out = []
        for ch in text:
            k = self.route(ch, cjk_ctx, bold)
            if out and out[-1][1] == k:
                out[-1][0] += ch
            else:
                out.append([ch, k])
        return [(t, k) for t, k in out]

    def width(self, text, size, cjk_ctx, bold=False):
        return sum(get_font(k, size).getlength(t) for t, k in self.runs(text, cjk_ctx, bold))


# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------

def pick(rng, seq, p=None):
    if p is not None:
        p = np.asarray(p, dtype=float)
        p = p / p.sum()
    return seq[int(rng.choice(len(seq), p=p))]


def chance(rng, p):
    return bool(rng.random() < p)


def apply_h(H, pts):
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.c_[pts, np.ones(len(pts))] @ np.asarray(H, dtype=np.float64).T
    return q[:, :2] / q[:, 2:3]


def affine3(M):
    return np.vstack([np.asarray(M, dtype=np.float64), [0, 0, 1]])


def lowfreq(rng, h, w, cell):
    gh, gw = max(2, h // cell + 2), max(2, w // cell + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def rect_points(box, n=5):
    x0, y0, x1, y1 = box
    t = np.linspace(0, 1, n)
    pts = [np.c_[x0 + (x1 - x0) * t, np.full(n, y0)], np.c_[x0 + (x1 - x0) * t, np.full(n, y1)],
           np.c_[np.full(n, x0), y0 + (y1 - y0) * t], np.c_[np.full(n, x1), y0 + (y1 - y0) * t]]
    return np.vstack(pts)


def union_box(boxes):
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return None
    a = np.array(boxes, dtype=np.float64)
    return (a[:, 0].min(), a[:, 1].min(), a[:, 2].max(), a[:, 3].max())


CN_NUM = "零一二三四五六七八九十"


def cn_numeral(n):
    if n <= 10:
        return CN_NUM[n]
    if n < 20:
        return "十" + CN_NUM[n - 10]
    t, u = divmod(n, 10)
    return CN_NUM[t] + "十" + (CN_NUM[u] if u else "")


SUBJECT_NAMES = {
    "math": ("数学", "Mathematics"), "physics": ("物理", "Physics"), "chemistry": ("化学", "Chemistry"),
    "biology": ("生物", "Biology"), "geography": ("地理", "Geography"), "history": ("历史", "History"),
    "chinese": ("语文", "Chinese"), "english": ("英语", "English"),
}

CENTRES_ZH = ["博学堂课外辅导中心", "启航教育 · 培优班", "新思维学科辅导", "明德教育 初三冲刺班",
              "优学堂 周末提高班", "睿智教育 暑期同步班", "学而思远辅导学校", "致远培训 精品小班"]
CENTRES_EN = ["Bright Minds Tutoring Centre", "Top Scholar Learning Center", "Brainy Owl Tuition",
              "Pathway Education - Saturday Class", "North Star Learning Hub", "Apex Tutors"]

# ----------------------------------------------------------------------------
# text -> units
# ----------------------------------------------------------------------------


def parse_pieces(q, supsub_raised):
    """Split a question into (text, style) pieces: style n / sup / sub / blank."""
    pieces = []
    i = 0
    while i < len(q):
        ch = q[i]
        if ch == "_":
            j = i
            while j < len(q) and q[j] == "_":
                j += 1
            if j - i >= 2:
                pieces.append(("___", "blank"))
                i = j
                continue
        if supsub_raised and (ch in SUP_MAP or ch in SUB_MAP):
            m = SUP_MAP if ch in SUP_MAP else SUB_MAP
            st = "sup" if m is SUP_MAP else "sub"
            j = i
            s = ""
            while j < len(q) and q[j] in m:
                s += m[q[j]]
                j += 1
            pieces.append((s, st))
            i = j
            continue
        if pieces and pieces[-1][1] == "n":
            pieces[-1] = (pieces[-1][0] + ch, "n")
        else:
            pieces.append((ch, "n"))
        i += 1
    return pieces


def make_units(q, supsub_raised, role="text"):
    """Units are unbreakable groups; breaks are allowed between units."""
    units = []
    pending_space = False
    cur = None  # current latin word unit

    def new_unit(kind):
        nonlocal pending_space
        u = {"pieces": [], "space": pending_space, "close": False, "kind": kind, "role": role}
        pending_space = False
        units.append(u)
        return u

    for text, st in parse_pieces(q, supsub_raised):
        if st in ("sup", "sub"):
            if units and not pending_space:
                units[-1]["pieces"].append((text, st))
            else:
                u = new_unit("word")
                u["pieces"].append((text, st))
                cur = u
            continue
        if st == "blank":
            u = new_unit("blank")
            u["pieces"].append(("___", "blank"))
            cur = None
            continue
        for ch in text:
            if ch == " ":
                pending_space = True
                cur = None
                continue
            if is_cjk(ch) or ch in "“”":
                u = new_unit("cjk")
                u["pieces"].append((ch, "n"))
                u["close"] = ch in CLOSE_PUNCT
                cur = None
                continue
            if cur is not None and not pending_space and units and units[-1] is cur:
                p = cur["pieces"]
                if p and p[-1][1] == "n":
                    p[-1] = (p[-1][0] + ch, "n")
                else:
                    p.append((ch, "n"))
                continue
            u = new_unit("word")
            u["pieces"].append((ch, "n"))
            u["close"] = ch in CLOSE_PUNCT and len(ch) == 1
            cur = u
    return units


# ----------------------------------------------------------------------------
# page layout
# ----------------------------------------------------------------------------


class Page:
    def __init__(self, ts, fs, lh, cfg, rng):
        self.ts, self.fs, self.lh, self.cfg, self.rng = ts, fs, lh, cfg, rng
        self.ops = []          # drawing operations
        self.blocks = []       # laid-out blocks (problems, stems, sections, header lines)

    # ---- measuring -------------------------------------------------------
    def piece_width(self, text, st, cjk_ctx, bold=False):
        fs = self.fs
        if st == "n":
            return self.ts.width(text, fs, cjk_ctx, bold)
        if st in ("sup", "sub"):
            return self.ts.width(text, fs * 0.62, cjk_ctx, bold) + fs * 0.04
        if st == "blank":
            return self.cfg["blank_w"] * fs
        return 0.0

    def unit_width(self, u, cjk_ctx):
        return sum(self.piece_width(t, st, cjk_ctx, u.get("bold", False)) for t, st in u["pieces"])

    # ---- emitting ----------------------------------------------------------
    def emit_text(self, x, base, text, size, owner, role, cjk_ctx, bold=False):
        for t, k in self.ts.runs(text, cjk_ctx, bold):
            self.ops.append({"op": "text", "x": x, "y": base, "text": t, "font": k,
                             "size": size, "owner": owner, "role": role})
            x += get_font(k, size).getlength(t)
        return x

    def emit_unit(self, u, x, base, owner, cjk_ctx):
        fs = self.fs
        bold = u.get("bold", False)
        role = u["role"]
        for t, st in u["pieces"]:
            if st == "n":
                x = self.emit_text(x, base, t, fs, owner, role, cjk_ctx, bold)
            elif st == "sup":
                x = self.emit_text(x + fs * 0.02, base - fs * 0.36, t, fs * 0.62, owner, role, cjk_ctx, bold) + fs * 0.02
            elif st == "sub":
                x = self.emit_text(x + fs * 0.02, base + fs * 0.15, t, fs * 0.62, owner, role, cjk_ctx, bold) + fs * 0.02
            elif st == "blank":
                w = self.cfg["blank_w"] * fs
                if self.cfg["blank_style"] == "underscores":
                    n = max(3, int(round(w / max(1.0, self.ts.width("_", fs, False)))))
                    s = "_" * n
                    self.emit_text(x, base, s, fs, owner, role, False)
                else:
                    lw = max(1.5, fs * 0.055)
                    self.ops.append({"op": "line", "pts": [(x + fs * 0.12, base + fs * 0.13), (x + w - fs * 0.12, base + fs * 0.13)],
                                     "w": lw, "owner": owner, "role": role})
                x += w
        return x

    # ---- paragraph -------------------------------------------------------
    def layout_par(self, units, x_first, x_rest, x_right, base0, owner, cjk_ctx):
        """Greedy line breaking.  Returns list of lines (x_start, x_end, baseline)."""
        fs, lh = self.fs, self.lh
        lines = []
        x = x_first
        line_start = x_first
        base = base0
        sp = self.ts.width(" ", fs, False)
        first_on_line = True
        for u in units:
            w = self.unit_width(u, cjk_ctx)
            gap = sp if (u["space"] and not first_on_line) else 0.0
            if not first_on_line and x + gap + w > x_right and not (u["close"] and x + gap + w < x_right + fs * 0.9):
                lines.append((line_start, x, base))
                base += lh
                x = x_rest
                line_start = x_rest
                gap = 0.0
                first_on_line = True
            x = self.emit_unit(u, x + gap, base, owner, cjk_ctx)
            first_on_line = False
        lines.append((line_start, x, base))
        return lines


def make_label(style, n):
    return {
        "dot": f"{n}.", "dun": f"{n}、", "paren": f"({n})", "fwparen": f"（{n}）",
        "circled": chr(0x2460 + n - 1) if 1 <= n <= 20 else f"({n})",
        "di_ti": f"第{n}题", "Q": f"Q{n}", "Q_dot": f"Q{n}.", "Question": f"Question {n}", "li": f"例{n}",
        "ex": f"Ex. {n}", "rparen": f"{n})", "none": "",
        "heading_cn": f"第{cn_numeral(n)}题", "heading_en": f"Question {n}",
        "sub_paren": f"({n})", "sub_fwparen": f"（{n}）", "sub_circled": chr(0x2460 + n - 1) if 1 <= n <= 20 else f"({n})",
        "sub_alpha": f"({chr(96 + n)})", "sub_alpha_r": f"{chr(96 + n)})",
    }[style]


def score_text(style, pts):
    return {
        "fw_fen": f"（{pts}分）", "hw_fen": f"({pts}分)", "marks": f"({pts} marks)", "bracket": f"[{pts}]",
        "bracket_marks": f"[{pts} marks]", "benti": f"（本题{pts}分）", "pts": f"({pts} pts)",
    }[style]


STEMS_ZH = ["根据下列条件，完成下面各小题。", "阅读下列问题，并分别作答。", "综合练习：请回答下列各小题。",
            "按要求完成下列各题。", "结合所学知识，回答下列问题。"]
STEMS_EN = ["Answer each of the following parts.", "Read the questions below and answer them.",
            "Answer both parts of this question.", "Use what you have learnt to answer the following."]


def build_layout(bank, framed, rng, photo_idx):
    """Choose page style, lay out the page.  Returns (page, info)."""
    cfg = {}
    lang = "zh" if has_cjk(framed["question"]) else "en"
    if chance(rng, 0.12):
        lang = "en" if lang == "zh" else "zh"      # mixed-language worksheets
    cfg["lang"] = lang

    kind = pick(rng, ["handout_copy", "pastpaper_copy", "pastpaper_print", "screen"], [0.45, 0.30, 0.15, 0.10])
    cfg["page_kind"] = kind
    pastpaper = kind.startswith("pastpaper") or (kind == "screen" and chance(rng, 0.5))
    cfg["pastpaper"] = pastpaper

    # fonts ------------------------------------------------------------------
    cjk_family = pick(rng, ["sans", "serif", "mono"], [0.45, 0.47, 0.08])
    if cjk_family == "sans":
        cjk, cjk_b = fk("noto_sans_sc", ["noto_serif_sc"]), fk("noto_sans_sc_bold", ["noto_sans_sc"])
    elif cjk_family == "serif":
        cjk, cjk_b = fk("noto_serif_sc", ["noto_sans_sc"]), fk("noto_serif_sc_bold", ["noto_serif_sc"])
    else:
        cjk, cjk_b = fk("noto_sans_mono_sc", ["noto_sans_sc"]), fk("noto_sans_sc_bold", ["noto_sans_sc"])
    lat_choices = ["liberation_serif", "liberation_sans", "dejavu_serif", "dejavu_sans", "liberation_sans_narrow",
                   "dejavu_sans_condensed", "dejavu_serif_condensed", "same_as_cjk"]
    lat_p = [0.26, 0.16, 0.12, 0.12, 0.07, 0.07, 0.08, 0.12] if lang == "zh" else [0.3, 0.2, 0.14, 0.14, 0.07, 0.07, 0.08, 0.0]
    lat = pick(rng, lat_choices, lat_p)
    if lat == "same_as_cjk":
        lat_k, lat_b, serif = cjk, cjk_b, cjk_family == "serif"
    else:
        lat_k = fk(lat, ["dejavu_sans"])
        bold_map = {"liberation_serif": "liberation_serif_bold", "liberation_sans": "liberation_sans_bold",
                    "dejavu_serif": "dejavu_serif_bold", "dejavu_sans": "dejavu_sans_bold",
                    "liberation_sans_narrow": "liberation_sans_narrow_bold",
                    "dejavu_sans_condensed": "dejavu_sans_condensed_bold",
                    "dejavu_serif_condensed": "dejavu_serif_condensed_bold"}
        lat_b = fk(bold_map[lat], [lat_k])
        serif = "serif" in lat
    ts = Typesetter(cjk, cjk_b, lat_k, lat_b, serif)
    cfg["font_cjk"], cfg["font_latin"] = cjk, lat_k

    # geometry -----------------------------------------------------------------
    cols = 2 if chance(rng, 0.34) else 1
    fs = float(rng.uniform(27, 38))
    cpl = float(rng.uniform(30, 42)) if cols == 1 else float(rng.uniform(38, 48))
    Wc = fs * cpl
    margin = fs * float(rng.uniform(2.6, 4.2))
    Wp = int(Wc + 2 * margin)
    Hp = int(Wp * 1.414)
    lh = fs * float(rng.uniform(1.42, 1.85))
    cfg.update(cols=cols, font_px_page=round(fs, 1), line_pitch=round(lh / fs, 2), page_w=Wp, page_h=Hp)
    gutter = fs * float(rng.uniform(1.3, 2.6)) if cols == 2 else 0
    colw = (Wc - gutter) / cols
    col_x = [margin + c * (colw + gutter) for c in range(cols)]

    cfg["supsub_mode"] = pick(rng, ["raised", "unicode"])
    cfg["blank_style"] = pick(rng, ["underscores", "drawn_line"])
    cfg["blank_w"] = float(rng.uniform(2.6, 5.0))
    page = Page(ts, fs, lh, cfg, rng)

    # label styles ---------------------------------------------------------------
    styles = ["dot", "dun", "paren", "fwparen", "circled", "di_ti", "Q", "Q_dot", "Question", "li", "ex", "rparen", "none",
              "heading_cn", "heading_en"]
    if lang == "zh":
        sp = [1.0, 1.2, 0.8, 1.0, 0.9, 1.0, 0.3, 0.2, 0.35, 0.8, 0.3, 0.6, 0.6, 0.8, 0.2]
    else:
        sp = [1.0, 0.3, 0.9, 0.4, 0.6, 0.3, 0.7, 0.5, 1.0, 0.3, 1.0, 0.9, 0.6, 0.2, 0.8]
    label_style = pick(rng, styles, sp)
    if label_style == "Question" and chance(rng, 0.45):
        label_style = "heading_en"
    cfg["label_style"] = label_style
    label_bold = chance(rng, 0.4) or label_style.startswith("heading")
    hanging = chance(rng, 0.6)
    cfg["indent"] = "hanging" if hanging else "flush"

    score_p = 0.8 if pastpaper else 0.45
    if label_style.startswith("heading"):
        score_p = 0.75
    if chance(rng, score_p):
        if label_style == "heading_cn":
            score_style = pick(rng, ["fw_fen", "hw_fen"])
        elif lang == "zh":
            score_style = pick(rng, ["fw_fen", "hw_fen", "benti", "bracket", "marks"], [3, 2, 1, 1, 0.4])
        else:
            score_style = pick(rng, ["marks", "bracket", "bracket_marks", "pts", "fw_fen"], [3, 2, 1, 1, 0.4])
        score_pos = "heading" if label_style.startswith("heading") else pick(rng, ["after_label", "end", "right"], [1, 1.2, 1])
        if label_style == "none" and score_pos == "after_label":
            score_pos = "end"
    else:
        score_style, score_pos = "none", "none"
    cfg["score_style"], cfg["score_pos"] = score_style, score_pos
    score_all = chance(rng, 0.7)

    ans_style = pick(rng, ["none", "lines", "box", "answer_label"], [0.55, 0.18, 0.12, 0.15])
    cfg["answer_area"] = ans_style
    ans_all = chance(rng, 0.5)

    # sub-question group -------------------------------------------------------
    framed_is_sub = chance(rng, 0.14)
    group = framed_is_sub or chance(rng, 0.15)
    sub_style = pick(rng, ["sub_paren", "sub_fwparen", "sub_circled", "sub_alpha", "sub_alpha_r"],
                     [1, 1, 0.8, 0.5, 0.4] if lang == "zh" else [1, 0.3, 0.3, 1, 0.8])
    if sub_style == "sub_paren" and label_style == "paren":
        sub_style = "sub_circled"
    if sub_style == "sub_fwparen" and label_style == "fwparen":
        sub_style = "sub_circled"
    if sub_style == "sub_circled" and label_style == "circled":
        sub_style = "sub_alpha"
    cfg["subq_group"] = group
    cfg["framed_is_sub"] = framed_is_sub
    cfg["sub_label_style"] = sub_style if group else ""

    # neighbour pool -------------------------------------------------------------
    same = [e for e in bank if e["subject"] == framed["subject"] and e["id"] != framed["id"]]
    other = [e for e in bank if e["subject"] != framed["subject"]]
    same = [same[i] for i in rng.permutation(len(same))]
    other = [other[i] for i in rng.permutation(len(other))]
    if chance(rng, 0.75):
        pool = same + other
    else:
        pool = []
        a, b = list(same), list(other)
        while a or b:
            if a and (not b or chance(rng, 0.6)):
                pool.append(a.pop(0))
            else:
                pool.append(b.pop(0))
    pool = pool[:24]

    # items sequence -------------------------------------------------------------
    k_target = int(rng.integers(0, 7))
    n_items = 16
    items = []
    pi = 0
    group_pos = k_target if framed_is_sub else int(rng.integers(0, 8))
    for i in range(n_items):
        if group and i == group_pos:
            nsub = int(rng.integers(2, 4))
            subs = []
            fpos = int(rng.integers(0, nsub)) if framed_is_sub else -1
            for j in range(nsub):
                if j == fpos:
                    subs.append(framed)
                else:
                    subs.append(pool[pi % len(pool)])
                    pi += 1
            items.append({"type": "group", "subs": subs,
                          "stem": pick(rng, STEMS_ZH if lang == "zh" else STEMS_EN)})
        elif i == k_target and not framed_is_sub:
            items.append({"type": "problem", "entry": framed})
        else:
            items.append({"type": "problem", "entry": pool[pi % len(pool)]})
            pi += 1

    # sections
    sec_names_zh = ["选择题", "填空题", "计算题", "解答题", "简答题", "综合题"]
    sec_names_en = ["Multiple choice", "Short answers", "Fill in the blanks", "Problems", "Structured questions"]
    sections = []
    if chance(rng, 0.6 if pastpaper else 0.4):
        sections.append(0)
        if chance(rng, 0.5):
            sections.append(int(rng.integers(2, 7)))
    sec_style = pick(rng, ["cn_enum", "part", "section", "cn_ti"], [1.3, 1, 0.6, 0.4] if lang == "zh" else [0.2, 1, 1, 0.1])
    sec_counter = int(rng.integers(0, 3))

    def section_text():
        nonlocal sec_counter
        sec_counter += 1
        pts = int(rng.integers(2, 7))
        if sec_style == "cn_enum":
            nm = pick(rng, sec_names_zh)
            tail = pick(rng, ["", f"（每题{pts}分）", f"（每题{pts}分，共{pts * 5}分）", f"（共{pts * 6}分）"])
            return f"{cn_numeral(sec_counter)}、{nm}{tail}"
        if sec_style == "cn_ti":
            return f"第{cn_numeral(sec_counter)}题（{pts + 2}分）"
        if sec_style == "part":
            nm = pick(rng, sec_names_en)
            return pick(rng, [f"Part {chr(64 + sec_counter)}", f"Part {chr(64 + sec_counter)}  {nm}",
                              f"Part {chr(64 + sec_counter)} ({pts * 5} marks)"])
        nm = pick(rng, sec_names_en)
        return pick(rng, [f"Section {sec_counter}  {nm}", f"Section {'I' * sec_counter if sec_counter < 4 else sec_counter}: {nm}"])

    number0 = 1 if chance(rng, 0.4) else int(rng.integers(2, 16))
    cfg["first_number"] = number0

    # header -------------------------------------------------------------------
    subj_zh, subj_en = SUBJECT_NAMES.get(framed["subject"], ("综合", "General"))
    y = fs * float(rng.uniform(2.0, 3.6))
    header_lines = []
    if chance(rng, 0.86):
        if pastpaper:
            if lang == "zh":
                yr = int(rng.integers(2018, 2025))
                title = pick(rng, [f"{yr}年某市初中学业水平考试 {subj_zh}试卷", f"{yr}—{yr + 1}学年第一学期期末考试 {subj_zh}",
                                   f"{yr}年春季学期期中检测 八年级{subj_zh}", f"{yr}年中考模拟试题（二） {subj_zh}"])
                sub = pick(rng, ["（满分100分，考试时间90分钟）", "（考试时间：60分钟  满分：100分）", "注意事项：答案写在答题卡上。", ""])
            else:
                yr = int(rng.integers(2016, 2025))
                title = pick(rng, [f"{yr} Mock Examination - {subj_en} Paper 1", f"{subj_en} Past Paper {yr} (Section B)",
                                   f"Mid-term Test {yr}  {subj_en}", f"{yr} Final Examination: {subj_en}"])
                sub = pick(rng, ["Time allowed: 1 hour 30 minutes", "Answer ALL questions. Total: 100 marks", ""])
            header_lines.append(("title", title))
            if sub:
                header_lines.append(("sub", sub))
        else:
            if lang == "zh":
                header_lines.append(("title", pick(rng, CENTRES_ZH) + pick(rng, ["", f" {subj_zh}讲义", f" · {subj_zh}"])))
                hw = pick(rng, [f"课后作业（{cn_numeral(int(rng.integers(1, 12)))}）", f"第{int(rng.integers(1, 20))}讲 随堂练习",
                                f"Homework {int(rng.integers(1, 15))}", "周末练习卷", ""])
                if hw:
                    header_lines.append(("sub", hw))
            else:
                header_lines.append(("title", pick(rng, CENTRES_EN)))
                hw = pick(rng, [f"Homework {int(rng.integers(1, 15))}", f"Worksheet {int(rng.integers(1, 15))}: {subj_en}",
                                f"Weekly Quiz {int(rng.integers(1, 9))}", ""])
                if hw:
                    header_lines.append(("sub", hw))
        if chance(rng, 0.5):
            if lang == "zh":
                d = pick(rng, [f"日期：{int(rng.integers(2019, 2026))}年{int(rng.integers(1, 13))}月{int(rng.integers(1, 29))}日",
                               "日期：______年____月____日", f"{int(rng.integers(2019, 2026))}.{int(rng.integers(1, 13)):02d}.{int(rng.integers(1, 29)):02d}  授课老师：王老师"])
            else:
                d = pick(rng, [f"Date: {int(rng.integers(1, 29))} {pick(rng, ['Jan', 'Mar', 'May', 'Sep', 'Oct', 'Nov'])} {int(rng.integers(2019, 2026))}",
                               "Date: ____________", f"Term {int(rng.integers(1, 4))}, Week {int(rng.integers(1, 12))}"])
            header_lines.append(("date", d))
        if chance(rng, 0.6):
            header_lines.append(("name", "姓名：__________  班级：________  得分：______" if lang == "zh" and chance(rng, 0.7)
                                 else "Name: ______________  Class: ________"))
    for kind_h, text in header_lines:
        cjk_ctx = has_cjk(text)
        if kind_h == "title":
            size = fs * float(rng.uniform(1.15, 1.45))
            w = ts.width(text, size, cjk_ctx, True)
            base = y + size
            x = (Wp - w) / 2
            for t, k in ts.runs(text, cjk_ctx, True):
                page.ops.append({"op": "text", "x": x, "y": base, "text": t, "font": k, "size": size, "owner": -1, "role": "header"})
                x += get_font(k, size).getlength(t)
            y = base + size * 0.7
        else:
            w = ts.width(text, fs, cjk_ctx)
            base = y + fs
            x = (Wp - w) / 2 if kind_h == "sub" or chance(rng, 0.5) else margin
            page.emit_text(x, base, text, fs, -1, "header", cjk_ctx)
            y = base + fs * 0.75
    if header_lines and chance(rng, 0.5):
        page.ops.append({"op": "line", "pts": [(margin, y + fs * 0.2), (Wp - margin, y + fs * 0.2)], "w": max(2, fs * 0.07), "owner": -1, "role": "header"})
        y += fs * 0.6
    cfg["header"] = " | ".join(t for _, t in header_lines)
    y += fs * float(rng.uniform(0.5, 1.3))
    y_cols_top = y

    bottom = Hp - fs * float(rng.uniform(2.4, 3.6))

    # footer / sealing line ------------------------------------------------------
    footer = ""
    if chance(rng, 0.75 if pastpaper else 0.35):
        np_ = int(rng.integers(2, 7))
        pg = int(rng.integers(1, np_ + 1))
        footer = pick(rng, [f"第 {pg} 页 共 {np_} 页", f"{subj_zh}试卷 第{pg}页（共{np_}页）", f"- {pg} -"]) if lang == "zh" else \
            pick(rng, [f"Page {pg} of {np_}", f"- {pg} -", f"{subj_en}  {pg}/{np_}"])
        w = ts.width(footer, fs * 0.85, has_cjk(footer))
        page.emit_text((Wp - w) / 2, Hp - fs * 1.4, footer, fs * 0.85, -1, "footer", has_cjk(footer))
    cfg["footer"] = footer
    cfg["sealing_line"] = bool(pastpaper and lang == "zh" and chance(rng, 0.35))
    if cfg["sealing_line"]:
        page.ops.append({"op": "sealing", "x": margin * 0.42, "y0": fs * 3, "y1": Hp - fs * 3,
                         "text": "学校：__________  班级：________  姓名：__________  考号：__________",
                         "owner": -1, "role": "sealing"})
    if cols == 2 and chance(rng, 0.5):
        xg = margin + colw + gutter / 2
        page.ops.append({"op": "line", "pts": [(xg, y_cols_top), (xg, bottom)], "w": max(1.5, fs * 0.04), "owner": -1, "role": "divider"})
    cfg["divider"] = any(o["role"] == "divider" for o in page.ops)

    # flow ------------------------------------------------------------------------
    gap_base = float(rng.uniform(0.15, 1.6))
    cfg["gap_lines"] = round(gap_base, 2)
    col = 0
    y = y_cols_top
    number = number0
    blocks = page.blocks
    owner_id = 0
    framed_owner = None
    done = False

    def fits(h):
        return y + h <= bottom

    def layout_problem_block(entry, label, x0, x_right, y_top, kind_b, lbl_style, lvl):
        """Lay out one problem (or stem) at y_top; returns block dict (ops emitted)."""
        nonlocal owner_id
        oid = owner_id
        owner_id += 1
        q = entry["question"] if entry is not None else None
        text = q if q is not None else kind_b
        cjk_ctx = has_cjk(text)
        units = make_units(text, cfg["supsub_mode"] == "raised")
        pts = int(rng.integers(2, 13))
        sc = ""
        show_score = score_style != "none" and lvl == 0 and (score_all or chance(rng, 0.5))
        if show_score:
            sc = score_text(score_style, pts)
        base0 = y_top + fs * 1.0
        heading = lbl_style.startswith("heading")
        label_box_ops_start = len(page.ops)
        x_text = x0
        if heading:
            htxt = label + (sc if sc and score_pos == "heading" else "")
            if lbl_style == "heading_en" and sc:
                htxt = label + "  " + sc
            page.emit_text(x0, base0, label, fs, oid, "label", has_cjk(label), True)
            if htxt != label:
                xx = x0 + ts.width(label, fs, has_cjk(label), True) + (fs * 0.3 if lbl_style == "heading_en" else 0)
                page.emit_text(xx, base0, htxt[len(label):].strip(), fs, oid, "score", has_cjk(htxt), True)
            base0 += lh
            x_first = x0 + (fs * 2 if cjk_ctx and chance(rng, 0.3) else 0)
            x_rest = x0
        else:
            if label:
                lb = label_bold
                page.emit_text(x0, base0, label, fs, oid, "label", has_cjk(label), lb)
                lw = ts.width(label, fs, has_cjk(label), lb)
                gap = fs * (0.12 if label.endswith(("、", "）")) or label[0] in "①②③④⑤⑥⑦⑧⑨⑩" else float(rng.uniform(0.3, 0.6)))
                x_text = x0 + lw + gap
            x_first = x_text
            x_rest = x_text if (hanging and label) else x0
            if sc and score_pos == "after_label":
                su = {"pieces": [(sc, "n")], "space": False, "close": False, "kind": "word", "role": "score"}
                x_first = page.emit_unit(su, x_first, base0, oid, has_cjk(sc)) + fs * 0.25
        if sc and score_pos == "end":
            su = make_units(sc, False, role="score")
            su[0]["space"] = not cjk_ctx or not has_cjk(sc)
            units = units + su
        lines = page.layout_par(units, x_first, x_rest, x_right, base0, oid, cjk_ctx)
        if sc and score_pos == "right":
            w = ts.width(sc, fs, has_cjk(sc))
            ls, le, b = lines[-1]
            if le + fs * 1.0 + w > x_right:
                b += lh
                lines.append((x_right - w, x_right - w, b))
            page.emit_text(x_right - w, b, sc, fs, oid, "score", has_cjk(sc))
        height = (lines[-1][2] - y_top) + fs * 0.45
        blk = {"owner": oid, "kind": kind_b if entry is None else "problem", "entry": entry, "label": label,
               "label_style": lbl_style, "score": sc, "lines": lines, "x0": x0, "x_right": x_right,
               "x_text": x_text, "y_top": y_top, "height": height, "col": col, "level": lvl}
        return blk, label_box_ops_start

    def answer_area(blk, y_after, want):
        """Answer lines / box under a problem.  Returns extra height."""
        if not want:
            return 0.0
        x0 = blk["x_text"] if hanging else blk["x0"]
        xr = blk["x_right"]
        oid = blk["owner"]
        if ans_style == "lines":
            n = int(rng.integers(1, 4))
            yy = y_after
            for _ in range(n):
                yy += lh * 1.05
                page.ops.append({"op": "line", "pts": [(x0, yy), (xr, yy)], "w": max(1.2, fs * 0.035), "owner": oid, "role": "answer"})
            blk["answer_area"] = (x0, y_after, xr, yy)
            return yy - y_after + fs * 0.3
        if ans_style == "box":
            hbox = lh * float(rng.uniform(1.6, 3.2))
            page.ops.append({"op": "rect", "box": (x0, y_after + fs * 0.3, xr, y_after + fs * 0.3 + hbox), "w": max(1.5, fs * 0.045), "owner": oid, "role": "answer"})
            blk["answer_area"] = (x0, y_after + fs * 0.3, xr, y_after + fs * 0.3 + hbox)
            return hbox + fs * 0.6
        if ans_style == "answer_label":
            t = "答：" if lang == "zh" else "Answer:"
            b = y_after + lh * 0.9
            xe = page.emit_text(x0, b, t, fs, oid, "answer", lang == "zh")
            page.ops.append({"op": "line", "pts": [(xe + fs * 0.2, b + fs * 0.12), (x0 + (xr - x0) * float(rng.uniform(0.5, 0.95)), b + fs * 0.12)],
                             "w": max(1.2, fs * 0.04), "owner": oid, "role": "answer"})
            blk["answer_area"] = (xe, y_after, xr, b + fs * 0.3)
            return lh * 0.9 + fs * 0.4
        return 0.0

    sec_set = set(sections)
    for i, it in enumerate(items):
        if i in sec_set:
            t = section_text()
            h = fs * 1.9
            if not fits(h + lh * 2):
                if col + 1 < cols:
                    col += 1
                    y = y_cols_top
                else:
                    break
            oid = owner_id
            owner_id += 1
            x0 = col_x[col] - (fs * 0.0 if cols == 2 else fs * float(rng.uniform(0, 1.2)))
            page.emit_text(x0, y + fs * 1.05, t, fs * 1.02, oid, "section", has_cjk(t), True)
            blocks.append({"owner": oid, "kind": "section", "entry": None, "label": "", "text": t,
                           "x0": x0, "x_right": col_x[col] + colw, "y_top": y, "height": h, "col": col, "level": 0})
            y += h
        placed = False
        for attempt in range(2):
            n_ops = len(page.ops)
            n_blocks = len(blocks)
            save_owner = owner_id
            y_start = y
            x0 = col_x[col]
            xr = col_x[col] + colw
            new_blocks = []
            if it["type"] == "problem":
                blk, _ = layout_problem_block(it["entry"], make_label(label_style, number), x0, xr, y, "problem", label_style, 0)
                new_blocks.append(blk)
                yy = y + blk["height"]
                want = ans_style != "none" and (ans_all or chance(rng, 0.45))
                yy += answer_area(blk, yy, want)
            else:
                st_label = make_label(label_style, number)
                blk, _ = layout_problem_block(None, st_label, x0, xr, y, it["stem"], label_style, 0)
                blk["kind"] = "stem"
                blk["text"] = it["stem"]
                new_blocks.append(blk)
                yy = y + blk["height"] + fs * 0.15
                ind = fs * float(rng.uniform(0.8, 2.0))
                for j, e in enumerate(it["subs"]):
                    sb, _ = layout_problem_block(e, make_label(sub_style, j + 1), x0 + ind, xr, yy, "problem", sub_style, 1)
                    sb["group_owner"] = blk["owner"]
                    new_blocks.append(sb)
                    yy += sb["height"] + fs * float(rng.uniform(0.1, 0.5))
            if yy <= bottom:
                blocks.extend(new_blocks)
                y = yy + lh * gap_base * float(rng.uniform(0.6, 1.4))
                placed = True
                break
            # does not fit: undo and try next column
            del page.ops[n_ops:]
            del blocks[n_blocks:]
            owner_id = save_owner
            if col + 1 < cols:
                col += 1
                y = y_cols_top
            else:
                break
        if not placed:
            break
        number += 1

    cfg["bottom"] = bottom
    page.Wp, page.Hp = Wp, Hp
    page.col_x, page.colw, page.margin = col_x, colw, margin
    # which is framed?
    fr = [b for b in blocks if b.get("entry") is not None and b["entry"]["id"] == framed["id"]]
    return page, fr[0] if fr else None


def layout_with_framed(bank, framed, rng_seed_seq, photo_idx):
    """Lay out; if the framed problem did not fit on the page, retry with a new stream."""
    for t in range(12):
        rng = np.random.default_rng(list(rng_seed_seq) + [t])
        page, fb = build_layout(bank, framed, rng, photo_idx)
        if fb is not None:
            return page, fb, rng, t
    raise RuntimeError("framed problem does not fit on any page layout for " + framed["id"])


# ----------------------------------------------------------------------------
# painting the printed page (ink layer)
# ----------------------------------------------------------------------------


def paint_ink(page):
    img = Image.new("L", (page.Wp, page.Hp), 0)
    dr = ImageDraw.Draw(img)
    boxes = {}
    for o in page.ops:
        key = (o["owner"], o["role"])
        if o["op"] == "text":
            f = get_font(o["font"], o["size"])
            dr.text((o["x"], o["y"]), o["text"], fill=255, font=f, anchor="ls")
            bb = dr.textbbox((o["x"], o["y"]), o["text"], font=f, anchor="ls")
            if bb[2] > bb[0] and o["text"].strip():
                boxes.setdefault(key, []).append(bb)
        elif o["op"] == "line":
            (x0, y0), (x1, y1) = o["pts"]
            dr.line([(x0, y0), (x1, y1)], fill=255, width=max(1, int(round(o["w"]))))
            boxes.setdefault(key, []).append((min(x0, x1), min(y0, y1) - o["w"] / 2, max(x0, x1), max(y0, y1) + o["w"] / 2))
        elif o["op"] == "rect":
            dr.rectangle(o["box"], outline=255, width=max(1, int(round(o["w"]))))
            boxes.setdefault(key, []).append(o["box"])
        elif o["op"] == "sealing":
            size = page.fs * 0.8
            f = get_font(page.ts.cjk, size)
            tw = int(dr.textlength(o["text"], font=f)) + 10
            tim = Image.new("L", (tw, int(size * 1.6)), 0)
            ImageDraw.Draw(tim).text((5, size * 1.2), o["text"], fill=255, font=f, anchor="ls")
            tim = tim.rotate(90, expand=True)
            ycen = (o["y0"] + o["y1"]) / 2
            px, py = int(o["x"] - tim.size[0] - size * 0.3), int(ycen - tim.size[1] / 2)
            if px > 0 and py > 0:
                img.paste(255, (px, py), tim)
            # dashed line
            yy = o["y0"]
            seg = page.fs * 0.5
            while yy < o["y1"]:
                dr.line([(o["x"], yy), (o["x"], min(o["y1"], yy + seg))], fill=255, width=2)
                yy += seg * 1.8
            t2 = "密 封 线 内 不 要 答 题"
            f2 = get_font(page.ts.cjk, size * 0.7)
            tw2 = int(dr.textlength(t2, font=f2)) + 10
            tim2 = Image.new("L", (tw2, int(size * 1.4)), 0)
            ImageDraw.Draw(tim2).text((5, size * 1.0), t2, fill=255, font=f2, anchor="ls")
            tim2 = tim2.rotate(90, expand=True)
            px2, py2 = int(o["x"] + size * 0.25), int(o["y0"] + (o["y1"] - o["y0"]) * 0.15)
            img.paste(255, (px2, py2), tim2)
    ink = np.asarray(img, dtype=np.float32) / 255.0
    return ink, boxes


def block_boxes(page, boxes):
    """Attach tight boxes: box (label+text+score), text_box, label_box."""
    for b in page.blocks:
        o = b["owner"]
        lab = boxes.get((o, "label"))
        txt = boxes.get((o, "text"))
        sco = boxes.get((o, "score"))
        sec = boxes.get((o, "section"))
        b["label_box"] = union_box(lab) if lab else None
        b["text_box"] = union_box(txt) if txt else None
        b["score_box"] = union_box(sco) if sco else None
        b["box"] = union_box((lab or []) + (txt or []) + (sco or []) + (sec or []))


# ----------------------------------------------------------------------------
# photocopy / print simulation (sheet space == page space, M_copy maps page->sheet)
# ----------------------------------------------------------------------------


def copy_process(ink, page, rng, cfg, framed_blk):
    Hp, Wp = ink.shape
    fs = page.fs
    kind = cfg["page_kind"]
    copy = kind in ("handout_copy", "pastpaper_copy") or (kind == "screen" and cfg.get("screen_scan", False))
    cfg["photocopy"] = copy
    if copy:
        theta = float(np.clip(rng.normal(0, 1.1), -2.8, 2.8))
    else:
        theta = float(rng.uniform(-0.3, 0.3))
    dx = float(rng.normal(0, 0.01 * Wp))
    dy = float(rng.normal(0, 0.008 * Hp))
    cut = "none"
    if copy and chance(rng, 0.3):
        fb = framed_blk["box"]
        opts = ["top", "bottom"]
        if page.cfg["cols"] == 2:
            opts += ["left"] if framed_blk["col"] == 1 else ["right"]
        cut = pick(rng, opts)
        amt = fs * float(rng.uniform(0.5, 3.0))
        if cut == "top":
            dy = -(fs * 2.0 + amt)
        elif cut == "bottom":
            dy = (Hp - page.cfg["bottom"]) * 0 + fs * 2.0 + amt
            dy = min(dy, Hp * 0.1)
        elif cut == "left":
            dx = -(page.margin + amt)
        elif cut == "right":
            dx = page.margin + amt
    cx, cy = Wp / 2, Hp / 2
    M = cv2.getRotationMatrix2D((cx, cy), theta, 1.0)
    M[0, 2] += dx
    M[1, 2] += dy
    # framed problem must stay whole on the sheet
    fpts = apply_h(affine3(M), rect_points(framed_blk["box"]))
    pad = fs * 0.6
    if (fpts[:, 0].min() < pad or fpts[:, 1].min() < pad or fpts[:, 0].max() > Wp - pad or fpts[:, 1].max() > Hp - pad):
        cut = "none"
        M = cv2.getRotationMatrix2D((cx, cy), theta, 1.0)
    cfg["copy_skew_deg"] = round(theta, 2)
    cfg["margin_cut"] = cut
    ink_s = cv2.warpAffine(ink, M, (Wp, Hp), flags=cv2.INTER_LINEAR, borderValue=0)
    scale = Wp / 1700.0

    if not copy:
        # laser print: crisp black, white paper with light texture
        paper = float(rng.uniform(0.93, 0.985))
        tex = lowfreq(rng, Hp, Wp, 160) * 0.008 + rng.standard_normal((Hp, Wp), dtype=np.float32) * 0.006
        gray = (paper + tex) * (1 - ink_s * float(rng.uniform(0.86, 0.93)))
        cfg.update(copy_bg=round(paper, 3), toner="print", speckle=0, streaks=0, ghost=False, edge_band="none")
        return np.clip(gray, 0, 1), M

    toner = pick(rng, ["light", "normal", "dark"], [0.3, 0.4, 0.3])
    k = np.ones((2, 2), np.uint8)
    if toner == "dark":
        ink_s = cv2.dilate(ink_s, k, iterations=1 if fs < 32 else 2)
        gain = float(rng.uniform(0.95, 1.0))
    elif toner == "light":
        ink_s = cv2.erode(ink_s, k, iterations=1) * 0.5 + ink_s * 0.5
        gain = float(rng.uniform(0.72, 0.86))
        # broken strokes
        drop = lowfreq(rng, Hp, Wp, max(6, int(fs * 0.3))) * 0.3 + 0.9
        ink_s = ink_s * np.clip(drop, 0.6, 1.0)
    else:
        gain = float(rng.uniform(0.82, 0.95))
    sig = float(rng.uniform(0.5, 1.0)) * scale
    ink_s = cv2.GaussianBlur(ink_s, (0, 0), sig)
    # copier contrast: push strokes towards solid toner, but keep thin strokes
    kk = float(rng.uniform(1.8, 3.0))
    thr = float(rng.uniform(0.22, 0.36))
    ink_s = np.clip((ink_s - thr) * kk + 0.5, 0, 1) * 0.7 + np.clip(ink_s * 1.3, 0, 1) * 0.3
    ink_s *= gain
    # ghost (double image)
    ghost = chance(rng, 0.2)
    if ghost:
        Mg = np.float32([[1, 0, rng.uniform(-6, 6) * scale], [0, 1, rng.uniform(2, 9) * scale]])
        ink_s = np.maximum(ink_s, cv2.warpAffine(ink_s, Mg, (Wp, Hp)) * float(rng.uniform(0.06, 0.14)))
    # region not covered by the original (copier lid / platen edge)
    cover = cv2.warpAffine(np.ones((Hp, Wp), np.float32), M, (Wp, Hp), flags=cv2.INTER_LINEAR, borderValue=0)
    edge_band = pick(rng, ["dark", "grey", "none"], [0.45, 0.35, 0.2])
    extra = np.zeros_like(ink_s)
    if edge_band != "none":
        lvl = float(rng.uniform(0.55, 0.9)) if edge_band == "dark" else float(rng.uniform(0.15, 0.35))
        outside = 1 - cover
        outside = cv2.GaussianBlur(outside, (0, 0), 2.5 * scale)
        extra += outside * lvl * (1 + 0.15 * lowfreq(rng, Hp, Wp, 50))
        # thin shadow line along the original's edge
        edge = cv2.dilate(cover, np.ones((5, 5), np.uint8)) - cv2.erode(cover, np.ones((5, 5), np.uint8))
        extra += cv2.GaussianBlur(edge, (0, 0), 1.5) * float(rng.uniform(0.2, 0.6))
    # streaks along the feed direction
    n_str = int(rng.integers(0, 5))
    if n_str:
        prof = np.zeros(Wp, np.float32)
        for _ in range(n_str):
            x = int(rng.integers(0, Wp))
            w = max(1, int(rng.uniform(1, 8) * scale))
            prof[max(0, x - w):x + w] += float(rng.uniform(0.05, 0.35))
        prof = cv2.GaussianBlur(prof.reshape(1, -1), (0, 0), 1.2).ravel()
        along = np.clip(1 + 0.6 * lowfreq(rng, Hp, 1, 200)[:, :1], 0, 2)
        extra += along * prof[None, :]
    if chance(rng, 0.25):   # a horizontal drum band
        yb = int(rng.integers(0, Hp))
        wb = int(rng.uniform(10, 60) * scale)
        band = np.zeros((Hp, 1), np.float32)
        band[max(0, yb - wb):yb + wb] = float(rng.uniform(0.04, 0.12))
        extra += cv2.GaussianBlur(band, (0, 0), wb / 2 + 1)
    # toner speckle (clustered dots) + fine dust
    sp_density = pick(rng, [60, 300, 900, 2200], [0.2, 0.35, 0.3, 0.15])
    speck = np.zeros((Hp, Wp), np.float32)
    n_cl = max(1, sp_density // 60)
    centres = np.c_[rng.uniform(0, Wp, n_cl), rng.uniform(0, Hp, n_cl)]
    spread = rng.uniform(30, 300, n_cl) * scale
    cl = rng.integers(0, n_cl, sp_density)
    pts = centres[cl] + rng.standard_normal((sp_density, 2)) * spread[cl, None]
    rad = rng.uniform(0.4, 2.6, sp_density) * scale
    val = rng.uniform(0.3, 1.0, sp_density)
    for (px, py), r, v in zip(pts, rad, val):
        cv2.circle(speck, (int(px), int(py)), max(1, int(round(r))), float(v), -1, lineType=cv2.LINE_AA)
    dust = (rng.random((Hp, Wp), dtype=np.float32) < float(rng.uniform(0.0003, 0.003))).astype(np.float32)
    speck += cv2.GaussianBlur(dust, (0, 0), 0.6) * 1.5
    total = np.clip(ink_s + extra + speck * 0.9, 0, 1)
    # grey background, blotchy
    paper = float(rng.uniform(0.74, 0.93))
    blot = lowfreq(rng, Hp, Wp, 220) * float(rng.uniform(0.01, 0.035)) + lowfreq(rng, Hp, Wp, 40) * float(rng.uniform(0.003, 0.012))
    grain = rng.standard_normal((Hp, Wp), dtype=np.float32) * float(rng.uniform(0.008, 0.025))
    grain = cv2.GaussianBlur(grain, (0, 0), 0.7)
    black = float(rng.uniform(0.06, 0.18)) if toner != "light" else float(rng.uniform(0.14, 0.24))
    gray = (paper + blot + grain) * (1 - total) + black * total
    cfg.update(copy_bg=round(paper, 3), toner=toner, speckle=sp_density, streaks=n_str, ghost=ghost, edge_band=edge_band)
    return np.clip(gray, 0, 1), M


# ----------------------------------------------------------------------------
# student marks, handwriting
# ----------------------------------------------------------------------------

HAND_LAT = ["dejavu_sans_oblique", "liberation_sans_italic", "liberation_serif_italic", "dejavu_serif_italic"]


def hand_mask(text, size, rng):
    """Rough 'handwritten' mask: jittered, rotated glyphs, uneven strokes."""
    lat = fk(pick(rng, HAND_LAT), ["dejavu_sans"])
    cjk = fk("noto_sans_sc", ["noto_serif_sc"])
    text = "".join(SUP_MAP.get(c, SUB_MAP.get(c, c)) for c in text)
    size = max(10, size)
    H = int(size * 2.2)
    W = int(size * (len(text) * 1.2 + 2))
    canvas = np.zeros((H, W), np.float32)
    x = size * 0.3
    slant = float(rng.uniform(-0.25, 0.05))
    for ch in text:
        if ch == " ":
            x += size * 0.35
            continue
        key = cjk if (is_cjk(ch) or not has_glyph(lat, ch)) else lat
        s = size * float(rng.uniform(0.85, 1.12)) * (0.92 if key == cjk else 1.0)
        f = get_font(key, s)
        cw = int(s * 1.6)
        im = Image.new("L", (cw, cw), 0)
        ImageDraw.Draw(im).text((cw * 0.2, cw * 0.8), ch, fill=255, font=f, anchor="ls")
        im = im.rotate(float(rng.uniform(-9, 9)), resample=Image.BILINEAR)
        a = np.asarray(im, np.float32) / 255
        cols_ = np.where(a.max(0) > 0.2)[0]
        if len(cols_) == 0:
            x += s * 0.5
            continue
        a = a[:, max(0, cols_[0] - 1):cols_[-1] + 2]
        yoff = int(H * 0.85 - cw * 0.8 + rng.normal(0, size * 0.06))
        xi = int(x)
        h_, w_ = a.shape
        y0, y1 = max(0, yoff), min(H, yoff + h_)
        x1 = min(W, xi + w_)
        if x1 > xi and y1 > y0:
            canvas[y0:y1, xi:x1] = np.maximum(canvas[y0:y1, xi:x1], a[y0 - yoff:y1 - yoff, :x1 - xi])
        x += w_ + size * float(rng.uniform(0.02, 0.14))
    canvas = canvas[:, :int(min(W, x + size * 0.3))]
    Ms = np.float32([[1, slant, -slant * H * 0.5], [0, 1, 0]])
    canvas = cv2.warpAffine(canvas, Ms, (canvas.shape[1] + int(abs(slant) * H), H))
    # wobbly strokes: smooth random displacement field
    h_, w_ = canvas.shape
    cell = max(4, int(size * 0.45))
    amp = size * float(rng.uniform(0.04, 0.08))
    gx, gy = np.meshgrid(np.arange(w_, dtype=np.float32), np.arange(h_, dtype=np.float32))
    canvas = cv2.remap(canvas, gx + lowfreq(rng, h_, w_, cell) * amp, gy + lowfreq(rng, h_, w_, cell) * amp,
                       cv2.INTER_LINEAR, borderValue=0)
    # uneven pen pressure / stroke width
    if chance(rng, 0.35):
        canvas = cv2.dilate(canvas, np.ones((2, 2), np.uint8))
    elif chance(rng, 0.5) and size > 24:
        canvas = cv2.erode(canvas, np.ones((2, 2), np.uint8))
    canvas *= np.clip(0.75 + 0.35 * lowfreq(rng, canvas.shape[0], canvas.shape[1], max(4, int(size // 2))), 0.4, 1)
    return cv2.GaussianBlur(canvas, (0, 0), 0.6), H * 0.85   # mask, baseline y inside mask


def pen_colour(rng, kind):
    if kind == "pencil":
        return np.array([0.33, 0.33, 0.36], np.float32), float(rng.uniform(0.5, 0.75))
    if kind == "red":
        return np.array([0.78, 0.12, 0.12], np.float32), 0.92
    if kind == "black":
        return np.array([0.07, 0.07, 0.1], np.float32), 0.93
    return np.array([0.1, 0.2, 0.62], np.float32), 0.92   # blue


def paint_mask(rgb, mask, x, y, colour, alpha, mode="ink"):
    """Composite a mask (float 0..1) with top-left at x,y onto rgb (float32)."""
    H, W = rgb.shape[:2]
    h, w = mask.shape
    x, y = int(round(x)), int(round(y))
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - y:y1 - y, x0 - x:x1 - x, None] * alpha
    reg = rgb[y0:y1, x0:x1]
    if mode == "ink":
        rgb[y0:y1, x0:x1] = reg * (1 - m) + colour[None, None, :] * reg.mean(axis=2, keepdims=True).clip(0.6, 1) * m
    else:  # highlighter multiply
        rgb[y0:y1, x0:x1] = reg * (1 - m * (1 - colour[None, None, :]))


def stroke_mask(shape, polys, width):
    m = np.zeros(shape, np.uint8)
    for p in polys:
        p = np.round(np.asarray(p) * 4).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(m, [p], False, 255, max(1, int(round(width))), lineType=cv2.LINE_AA, shift=2)
    return m.astype(np.float32) / 255


def draw_marks(rgb, page, M, framed, rng, cfg):
    """Student's marks on the sheet (sheet coords = M applied to page coords)."""
    fs = page.fs
    H, W = rgb.shape[:2]
    A = affine3(M)
    marks = []
    pen = pick(rng, ["blue", "black", "pencil", "red"], [0.4, 0.25, 0.25, 0.1])
    colour, alpha = pen_colour(rng, pen)
    cfg["pen"] = pen
    framed_marks = []

    def to_sheet(pts):
        return apply_h(A, pts)

    def local_mask(points, width, pad):
        pts = np.asarray(points)
        x0, y0 = pts.min(0) - pad
        x1, y1 = pts.max(0) + pad
        x0, y0 = int(x0), int(y0)
        shp = (int(y1 - y0) + 1, int(x1 - x0) + 1)
        return stroke_mask(shp, [pts - [x0, y0]], width), x0, y0

    def ring(b):
        lb = b["label_box"]
        cxy = to_sheet([((lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2)])[0]
        rx = (lb[2] - lb[0]) / 2 + fs * float(rng.uniform(0.25, 0.5))
        ry = (lb[3] - lb[1]) / 2 + fs * float(rng.uniform(0.2, 0.4))
        t0 = float(rng.uniform(0, 2 * np.pi))
        t = np.linspace(t0, t0 + 2 * np.pi + float(rng.uniform(0.2, 0.8)), 80)
        wob = 1 + 0.07 * np.sin(2 * t + rng.uniform(0, 6)) + np.linspace(0, float(rng.uniform(-0.12, 0.12)), 80)
        pts = np.c_[cxy[0] + rx * wob * np.cos(t), cxy[1] + ry * wob * np.sin(t)]
        m, x0, y0 = local_mask(pts, fs * 0.09, fs * 0.3)
        paint_mask(rgb, m, x0, y0, colour, alpha)

    def tick(x, y, size, cross=False):
        if cross:
            p1 = [(x, y - size * 0.5), (x + size * 0.8, y + size * 0.35)]
            p2 = [(x + size * 0.75, y - size * 0.55), (x + size * 0.05, y + size * 0.4)]
            pts = np.array(p1 + p2)
            x0, y0 = pts.min(0) - fs * 0.3
            x1, y1 = pts.max(0) + fs * 0.3
            shp = (int(y1 - y0) + 1, int(x1 - x0) + 1)
            m = stroke_mask(shp, [np.array(p1) - [x0, y0], np.array(p2) - [x0, y0]], fs * 0.09)
            paint_mask(rgb, m, int(x0), int(y0), np.array([0.78, 0.12, 0.12], np.float32) if chance(rng, 0.6) else colour, 0.92)
        else:
            t = np.linspace(0, 1, 12)
            a = np.c_[x + size * 0.3 * t, y + size * 0.35 * t ** 0.8]
            b_ = np.c_[x + size * 0.3 + size * 0.75 * t, y + size * 0.35 - size * 0.95 * t ** 1.1]
            pts = np.vstack([a, b_])
            m, x0, y0 = local_mask(pts, fs * 0.1, fs * 0.3)
            paint_mask(rgb, m, x0, y0, np.array([0.78, 0.12, 0.12], np.float32) if chance(rng, 0.6) else colour, 0.92)

    def short_answer(entry):
        a = entry.get("answer", "")
        for tok in ("$", "\\frac", "\\sqrt", "\\sin", "\\cos", "{", "}", "\\"):
            a = a.replace(tok, "")
        for key in ("答：", "Answer:", "得 ", "是", "为"):
            if key in a:
                a = a.split(key)[-1]
                break
        a = a.replace("。", "，").split("，")[0].split(". ")[0].strip()
        return (a[:8] or "?").strip()

    def space_below(b):
        """free vertical space under block b before the next printed thing in its column"""
        bottom = b["box"][3]
        tops = [o["box"][1] for o in page.blocks if o is not b and o["box"] is not None and o["col"] == b["col"]
                and o["box"][1] > b["box"][1] + 1]
        nxt = min(tops) if tops else page.cfg["bottom"]
        return nxt - bottom

    def handwrite(b, where):
        entry = b["entry"]
        txt = short_answer(entry) if chance(rng, 0.8) else pick(rng, ["x=5", "B", "√", "?", "60", "不会", "= 3"])
        size = fs * float(rng.uniform(0.8, 1.15))
        m, base_in = hand_mask(txt, size, rng)
        ls, le, base = b["lines"][-1]
        aa = b.get("answer_area")
        free = space_below(b)
        if where == "after" and le + fs + m.shape[1] < b["x_right"] + fs * 0.5:
            px, py = le + fs * float(rng.uniform(0.6, 1.6)), base
        elif aa is not None:
            where = "below"
            px = aa[0] + fs * float(rng.uniform(0.2, 2))
            py = aa[1] + min(aa[3] - aa[1] - fs * 0.1, lh_ * 1.0) if page.cfg["answer_area"] != "answer_label" else aa[3] - fs * 0.35
        elif free > size * 1.5:
            where = "below"
            px = b["x_text"] + fs * float(rng.uniform(0, 3))
            py = b["box"][3] + min(free - size * 0.4, size * float(rng.uniform(1.0, 1.3)))
        elif le + fs + m.shape[1] < b["x_right"] + fs * 0.5:
            where = "after"
            px, py = le + fs * float(rng.uniform(0.6, 1.6)), base
        else:
            return None
        sx, sy = to_sheet([(px, py)])[0]
        paint_mask(rgb, m, sx, sy - base_in, colour, alpha)
        return where

    lh_ = page.lh
    probs = [b for b in page.blocks if b["kind"] == "problem" and b["box"] is not None]
    # ---- marks on the framed problem ------------------------------------
    fb = framed
    if fb["label_box"] is not None and chance(rng, 0.3):
        ring(fb)
        framed_marks.append("ring")
    if chance(rng, 0.28):
        cross = chance(rng, 0.35)
        lb = fb["label_box"] or fb["box"]
        if chance(rng, 0.6) and lb[0] - fs * 1.3 > 0:
            x, y = lb[0] - fs * 1.25, (lb[1] + lb[3]) / 2
        else:
            ls, le, base = fb["lines"][-1]
            x, y = le + fs * 0.5, base - fs * 0.4
            if x + fs > fb["x_right"] + fs * 0.8:
                x, y = lb[0] - fs * 1.25, (lb[1] + lb[3]) / 2
        sx, sy = to_sheet([(x, y)])[0]
        tick(sx, sy, fs * float(rng.uniform(0.8, 1.2)), cross)
        framed_marks.append("cross" if cross else "tick")
    if chance(rng, 0.36):
        wh = handwrite(fb, pick(rng, ["after", "below"]))
        if wh:
            framed_marks.append("hand_answer_" + wh)
    if chance(rng, 0.16):
        li = int(rng.integers(0, len(fb["lines"])))
        ls, le, base = fb["lines"][li]
        a = ls + (le - ls) * float(rng.uniform(0, 0.4))
        bx = ls + (le - ls) * float(rng.uniform(0.6, 1.0))
        n = 20
        xs = np.linspace(a, bx, n)
        ys = base + fs * 0.22 + np.sin(np.linspace(0, rng.uniform(3, 12), n)) * fs * 0.03 + np.linspace(0, rng.uniform(-0.1, 0.1), n) * fs
        pts = to_sheet(np.c_[xs, ys])
        m, x0, y0 = local_mask(pts, fs * 0.07, fs * 0.3)
        paint_mask(rgb, m, x0, y0, colour, alpha)
        framed_marks.append("underline")
    if chance(rng, 0.16):
        hcol = pick(rng, [np.array([1.0, 0.93, 0.25], np.float32), np.array([0.55, 1.0, 0.45], np.float32),
                          np.array([1.0, 0.55, 0.78], np.float32)])
        nl = len(fb["lines"])
        for li in range(nl if chance(rng, 0.5) else 1):
            ls, le, base = fb["lines"][li]
            a = ls - fs * 0.1
            bx = le + fs * 0.1 if li < nl - 1 or chance(rng, 0.5) else ls + (le - ls) * float(rng.uniform(0.4, 0.9))
            n = 10
            pts = to_sheet(np.c_[np.linspace(a, bx, n), base - fs * 0.33 + rng.normal(0, fs * 0.03, n)])
            m, x0, y0 = local_mask(pts, fs * float(rng.uniform(0.85, 1.05)), fs)
            paint_mask(rgb, cv2.GaussianBlur(m, (0, 0), 1.0), x0, y0, hcol, float(rng.uniform(0.45, 0.65)), mode="hl")
        framed_marks.append("highlighter")
    # ---- marks on neighbours ------------------------------------------------
    others = [b for b in probs if b is not fb]
    for b in others:
        r = rng.random()
        if r < 0.12 and b["label_box"] is not None:
            lb = b["label_box"]
            sx, sy = to_sheet([(lb[0] - fs * 1.25, (lb[1] + lb[3]) / 2)])[0]
            tick(sx, sy, fs, chance(rng, 0.3))
            marks.append("tick_other")
        elif r < 0.32:
            if handwrite(b, pick(rng, ["after", "below"])):
                marks.append("hand_other")
        elif r < 0.34 and b["label_box"] is not None:
            ring(b)
            marks.append("ring_other")
    cfg["marks_framed"] = ";".join(framed_marks)
    cfg["marks_other"] = len(marks)


# ----------------------------------------------------------------------------
# physical sheet features, curl
# ----------------------------------------------------------------------------


def sheet_features(rgb, alpha, page, rng, cfg, framed_sheet_box):
    H, W = alpha.shape
    scale = W / 1700.0
    fx0, fy0, fx1, fy1 = framed_sheet_box
    holes = "none"
    if cfg["page_kind"] != "screen" and chance(rng, 0.3):
        side = pick(rng, ["left", "top"], [0.8, 0.2])
        n = pick(rng, [2, 3, 4], [0.6, 0.3, 0.1])
        r = 0.0145 * W
        off = 0.058 * W
        if side == "left":
            ys = [H / 2 + (i - (n - 1) / 2) * (0.28 * H if n == 2 else 0.2 * H) for i in range(n)]
            centres = [(off, y) for y in ys]
        else:
            xs = [W / 2 + (i - (n - 1) / 2) * 0.3 * W for i in range(n)]
            centres = [(x, off) for x in xs]
        ok = all(not (fx0 - r < cx_ < fx1 + r and fy0 - r < cy_ < fy1 + r) for cx_, cy_ in centres)
        if ok:
            for cx_, cy_ in centres:
                cv2.circle(alpha, (int(cx_), int(cy_)), int(r), 0.0, -1, lineType=cv2.LINE_AA)
                # slight ring of compressed paper
                cv2.circle(rgb, (int(cx_), int(cy_)), int(r + 2 * scale), (0.6, 0.6, 0.6), max(1, int(1.5 * scale)), lineType=cv2.LINE_AA)
            holes = f"{n}_{side}"
    cfg["holes"] = holes
    staple = "none"
    if cfg["page_kind"] != "screen" and chance(rng, 0.3):
        corner = pick(rng, ["top_left", "top_right"], [0.75, 0.25])
        L = 0.06 * W
        ang = math.radians(float(rng.uniform(30, 60)) if chance(rng, 0.7) else float(rng.uniform(-8, 8)))
        cx_ = 0.05 * W if corner == "top_left" else W - 0.05 * W
        cy_ = 0.045 * W
        if corner == "top_right":
            ang = math.pi - ang
        dx, dy = math.cos(ang) * L / 2, -math.sin(ang) * L / 2
        p0, p1 = (cx_ - dx, cy_ - dy), (cx_ + dx, cy_ + dy)
        th = max(2, int(5 * scale))
        # shadow, body, highlight
        sh = np.zeros((H, W), np.float32)
        cv2.line(sh, (int(p0[0] + 3 * scale), int(p0[1] + 4 * scale)), (int(p1[0] + 3 * scale), int(p1[1] + 4 * scale)), 1.0, th + 2, cv2.LINE_AA)
        sh = cv2.GaussianBlur(sh, (0, 0), 3 * scale)
        rgb *= (1 - 0.45 * sh)[..., None]
        cv2.line(rgb, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), (0.45, 0.46, 0.5), th, cv2.LINE_AA)
        cv2.line(rgb, (int(p0[0]), int(p0[1] - th / 3)), (int(p1[0]), int(p1[1] - th / 3)), (0.85, 0.86, 0.9), max(1, th // 3), cv2.LINE_AA)
        # dents and crease from the staple
        for p in (p0, p1):
            cv2.circle(rgb, (int(p[0]), int(p[1])), max(2, th // 2 + 1), (0.35, 0.35, 0.38), -1, cv2.LINE_AA)
        staple = corner
    cfg["staple"] = staple
    return staple != "none"


def curl_maps(W, H, side, wb, cx, cy, sy):
    xs = np.arange(-W * 0.2, W * 1.2, 0.5, dtype=np.float64)

    def d_of(x):
        if side == "left":
            return np.clip((wb - x) / wb, 0, 1)
        return np.clip((x - (W - wb)) / wb, 0, 1)

    sgn = 1 if side == "left" else -1
    xf = xs + sgn * cx * d_of(xs) ** 2
    xo = np.arange(W, dtype=np.float64)
    xin = np.interp(xo, xf, xs)
    d = d_of(xin)
    yo = np.arange(H, dtype=np.float64)
    yc = H / 2
    yin = yc + (yo[:, None] - sy * d[None, :] ** 2 - yc) / (1 + cy * d[None, :] ** 2)
    mapx = np.broadcast_to(xin[None, :], (H, W)).astype(np.float32)
    mapy = yin.astype(np.float32)
    return mapx, mapy, d.astype(np.float32)


def curl_forward(pts, W, H, side, wb, cx, cy, sy):
    pts = np.asarray(pts, dtype=np.float64)
    x, y = pts[:, 0], pts[:, 1]
    d = np.clip((wb - x) / wb, 0, 1) if side == "left" else np.clip((x - (W - wb)) / wb, 0, 1)
    sgn = 1 if side == "left" else -1
    xo = x + sgn * cx * d ** 2
    yc = H / 2
    yo = yc + (y - yc) * (1 + cy * d ** 2) + sy * d ** 2
    return np.c_[xo, yo]


# ----------------------------------------------------------------------------
# scene: background, screen, lighting, occluders, camera
# ----------------------------------------------------------------------------


def desk_background(rng, W, H):
    kind = pick(rng, ["wood", "grey", "white", "dark_cloth", "green_mat"], [0.4, 0.2, 0.15, 0.15, 0.1])
    if kind == "wood":
        base = np.array([rng.uniform(0.45, 0.7), rng.uniform(0.3, 0.45), rng.uniform(0.16, 0.28)], np.float32)
        ang = float(rng.uniform(0, np.pi))
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        warp = lowfreq(rng, H, W, 200) * 25
        g = np.sin((v + warp) * float(rng.uniform(0.05, 0.12))) * 0.5 + 0.5
        g = g * 0.12 + lowfreq(rng, H, W, 60) * 0.04
        img = base[None, None, :] * (0.9 + g[..., None])
        del u
    elif kind == "grey":
        v = float(rng.uniform(0.45, 0.7))
        img = np.full((H, W, 3), v, np.float32) + lowfreq(rng, H, W, 100)[..., None] * 0.02
    elif kind == "white":
        v = float(rng.uniform(0.78, 0.9))
        img = np.full((H, W, 3), v, np.float32) * np.array([1, 0.99, 0.96], np.float32)
    elif kind == "dark_cloth":
        v = float(rng.uniform(0.12, 0.28))
        img = np.full((H, W, 3), v, np.float32) * np.array([rng.uniform(0.8, 1.2), 1, rng.uniform(0.8, 1.3)], np.float32)
        img += rng.standard_normal((H, W, 1)).astype(np.float32) * 0.02
    else:
        img = np.full((H, W, 3), 1, np.float32) * np.array([0.18, 0.42, 0.3], np.float32)
        step = int(rng.uniform(30, 60))
        img[::step, :, :] += 0.12
        img[:, ::step, :] += 0.12
    return np.clip(img, 0, 1).astype(np.float32), kind


def make_screen(sheet_gray_rgb, rng, cfg, fsb):
    """Put the page into a screen image (pixel = screen pixel).  Returns
    screen rgb, mask of emitting area, 3x3 map sheet->screen, device."""
    device = pick(rng, ["laptop", "phone"], [0.6, 0.4])
    Hs, Ws = sheet_gray_rgb.shape[:2]
    if device == "laptop":
        SW, SH = pick(rng, [(1440, 900), (1600, 1000), (1920, 1200)])
        bez = int(rng.uniform(30, 60))
        scr = np.zeros((SH + 2 * bez, SW + 2 * bez, 3), np.float32) + 0.04
        dark_ui = chance(rng, 0.5)
        view = np.full((SH, SW, 3), 0.32 if dark_ui else 0.9, np.float32)
        view[:int(SH * 0.06)] = 0.2 if dark_ui else 0.95
        disp_w = int(SW * float(rng.uniform(0.55, 0.8)))
        k = disp_w / Ws
        ox = int((SW - disp_w) / 2 + rng.uniform(-40, 40))
        oy = int(SH * 0.06 - rng.uniform(0, 0.3) * Hs * k)
    else:
        SW, SH = 1080, 2340
        bez = int(rng.uniform(25, 45))
        scr = np.zeros((SH + 2 * bez, SW + 2 * bez, 3), np.float32) + 0.03
        view = np.full((SH, SW, 3), 0.97, np.float32)
        view[:int(SH * 0.04)] = 0.1
        k = SW / Ws * float(rng.uniform(1.0, 1.6))
        ox = int(-rng.uniform(0, max(1, Ws * k - SW)))
        oy = int(SH * 0.06 - rng.uniform(0, 0.5) * Hs * k)
    # keep the framed problem inside the viewer (fsb = its box on the sheet)
    mgn = 24
    top = SH * 0.07
    fw, fh = fsb[2] - fsb[0], fsb[3] - fsb[1]
    k = min(k, (SW - 2 * mgn) / fw, (SH - top - 2 * mgn) / fh)
    ox = int(np.clip(ox, mgn - k * fsb[0], SW - mgn - k * fsb[2]))
    oy = int(np.clip(oy, top + mgn - k * fsb[1], SH - mgn - k * fsb[3]))
    small = cv2.resize(sheet_gray_rgb, (max(1, int(round(Ws * k))), max(1, int(round(Hs * k)))),
                       interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    k = small.shape[1] / Ws
    S = np.array([[k, 0, ox], [0, k, oy], [0, 0, 1]], np.float64)
    page_img = view.copy()
    cv2.warpAffine(small, np.float32([[1, 0, ox], [0, 1, oy]]), (SW, SH), dst=page_img,
                   flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_TRANSPARENT)
    scr[bez:bez + SH, bez:bez + SW] = page_img
    mask = np.zeros(scr.shape[:2], np.float32)
    mask[bez:bez + SH, bez:bez + SW] = 1
    S2 = np.array([[1, 0, bez], [0, 1, bez], [0, 0, 1]], np.float64) @ S
    cfg["screen"] = f"{device}_{SW}x{SH}"
    return scr, mask, S2, device


def add_finger_or_pen(img, rng, W, H, forbid, cfg):
    """Occluder along an edge, never on the framed box (forbid = x0,y0,x1,y1)."""
    kind = pick(rng, ["finger", "pen"], [0.55, 0.45])
    fx0, fy0, fx1, fy1 = forbid
    for attempt in range(25):
        side = pick(rng, ["bottom", "left", "right", "top"], [0.4, 0.25, 0.25, 0.1])
        mask = np.zeros((H, W), np.float32)
        if kind == "finger":
            wid = float(rng.uniform(0.09, 0.16)) * min(W, H)
            length = float(rng.uniform(0.12, 0.3)) * max(W, H)
            ang = float(rng.uniform(-35, 35))
        else:
            wid = float(rng.uniform(0.025, 0.045)) * min(W, H)
            length = float(rng.uniform(0.3, 0.6)) * max(W, H)
            ang = float(rng.uniform(-50, 50))
        if side == "bottom":
            base = (float(rng.uniform(0.1, 0.9)) * W, H + wid * 0.3)
            dirv = (math.sin(math.radians(ang)), -math.cos(math.radians(ang)))
        elif side == "top":
            base = (float(rng.uniform(0.1, 0.9)) * W, -wid * 0.3)
            dirv = (math.sin(math.radians(ang)), math.cos(math.radians(ang)))
        elif side == "left":
            base = (-wid * 0.3, float(rng.uniform(0.15, 0.85)) * H)
            dirv = (math.cos(math.radians(ang)), math.sin(math.radians(ang)))
        else:
            base = (W + wid * 0.3, float(rng.uniform(0.15, 0.85)) * H)
            dirv = (-math.cos(math.radians(ang)), math.sin(math.radians(ang)))
        tip = (base[0] + dirv[0] * length, base[1] + dirv[1] * length)
        if kind == "finger":
            cv2.line(mask, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 1.0, int(wid), cv2.LINE_AA)
            cv2.circle(mask, (int(tip[0]), int(tip[1])), int(wid / 2), 1.0, -1, cv2.LINE_AA)
        else:
            tip2 = (tip[0] + dirv[0] * wid * 1.6, tip[1] + dirv[1] * wid * 1.6)
            cv2.line(mask, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 1.0, int(wid), cv2.LINE_AA)
            nx, ny = -dirv[1], dirv[0]
            cone = np.array([[tip[0] + nx * wid / 2, tip[1] + ny * wid / 2], [tip[0] - nx * wid / 2, tip[1] - ny * wid / 2],
                             [tip2[0], tip2[1]]], np.int32)
            cv2.fillConvexPoly(mask, cone, 0.5, cv2.LINE_AA)
        pad = 10
        ys0, ys1 = max(0, int(fy0) - pad), min(H, int(fy1) + pad)
        xs0, xs1 = max(0, int(fx0) - pad), min(W, int(fx1) + pad)
        blur = float(rng.uniform(3, 9)) if kind == "finger" else float(rng.uniform(1, 3))
        soft = cv2.GaussianBlur(mask, (0, 0), blur)
        if soft[ys0:ys1, xs0:xs1].max() > 0.02 or mask.mean() < 0.004:
            continue
        # shadow on the page
        shm = cv2.GaussianBlur(np.roll(np.roll(soft, int(rng.uniform(5, 25)), 0), int(rng.uniform(-20, 20)), 1), (0, 0), 12)
        shm[ys0:ys1, xs0:xs1] *= 0.3
        img *= (1 - 0.35 * shm)[..., None]
        if kind == "finger":
            skin = np.array([rng.uniform(0.78, 0.92), rng.uniform(0.55, 0.68), rng.uniform(0.45, 0.56)], np.float32)
            dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
            shade = np.clip(dist / (wid / 2 + 1e-6), 0, 1) ** 0.5
            col = skin[None, None, :] * (0.55 + 0.5 * shade[..., None])
            col = cv2.GaussianBlur(col, (0, 0), blur)
        else:
            body = pick(rng, [np.array([0.1, 0.15, 0.5], np.float32), np.array([0.08, 0.08, 0.08], np.float32),
                              np.array([0.85, 0.85, 0.82], np.float32), np.array([0.7, 0.1, 0.1], np.float32)])
            dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 5)
            shade = np.clip(dist / (wid / 2 + 1e-6), 0, 1)
            col = body[None, None, :] * (0.6 + 0.6 * shade[..., None]) + 0.25 * (shade[..., None] > 0.8) * (shade[..., None] < 0.95)
            col = cv2.GaussianBlur(col, (0, 0), blur)
        a = soft[..., None]
        img[:] = img * (1 - a) + np.clip(col, 0, 1) * a
        cfg["occluder"] = kind
        cfg["occluder_side"] = side
        return
    cfg["occluder"] = "none"
    cfg["occluder_side"] = ""


def lighting(img, rng, W, H, forbid, cfg):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    nx, ny = xx / W - 0.5, yy / H - 0.5
    light = pick(rng, ["room", "desk_lamp", "flash", "daylight"], [0.38, 0.25, 0.17, 0.2])
    cfg["lighting"] = light
    gain = np.ones((H, W), np.float32)
    # uneven light gradient
    a = float(rng.uniform(0.04, 0.3))
    phi = float(rng.uniform(0, 2 * np.pi))
    gain *= 1 + a * (nx * math.cos(phi) + ny * math.sin(phi))
    cfg["uneven"] = round(a, 2)
    wb = np.array([1, 1, 1], np.float32)
    shadow = "none"
    glare = "none"
    if light == "room":
        wb = np.array([rng.uniform(0.95, 1.05), 1, rng.uniform(0.88, 1.02)], np.float32)
    elif light == "daylight":
        wb = np.array([rng.uniform(0.92, 1.0), 1, rng.uniform(1.0, 1.08)], np.float32)
    elif light == "desk_lamp":
        wb = np.array([1.0, rng.uniform(0.85, 0.93), rng.uniform(0.62, 0.78)], np.float32)
        lx, ly = float(rng.uniform(-0.6, 0.6)), float(rng.uniform(-0.7, 0.1))
        r2 = (nx - lx) ** 2 + (ny - ly) ** 2
        gain *= 1.1 / (1 + float(rng.uniform(0.8, 2.5)) * r2)
        # hard shadow (arm of the lamp / hand / phone)
        pts = []
        side = int(rng.integers(0, 4))
        c0 = float(rng.uniform(0.15, 0.85))
        c1 = float(rng.uniform(0.15, 0.85))
        depth = float(rng.uniform(0.15, 0.45))
        if side == 0:
            pts = [(0, 0), (W * c0, 0), (W * (c0 + rng.uniform(-0.2, 0.2)), H * depth), (0, H * depth * rng.uniform(0.5, 1.5))]
        elif side == 1:
            pts = [(W, H), (W, H * c0), (W * (1 - depth), H * c1), (W * (1 - depth * 0.8), H)]
        elif side == 2:
            pts = [(0, H), (0, H * c0), (W * depth, H * c1), (W * depth * 1.2, H)]
        else:
            pts = [(W, 0), (W * c0, 0), (W * c1, H * depth), (W, H * depth * 1.3)]
        m = np.zeros((H, W), np.float32)
        cv2.fillPoly(m, [np.array(pts, np.int32)], 1.0, cv2.LINE_AA)
        m = cv2.GaussianBlur(m, (0, 0), float(rng.uniform(2, 8)))
        dark = float(rng.uniform(0.35, 0.55))
        gain *= 1 - dark * m
        shadow = "hard"
    elif light == "flash":
        wb = np.array([rng.uniform(0.97, 1.02), 1, rng.uniform(1.0, 1.06)], np.float32)
        gain *= 1.12 - float(rng.uniform(0.25, 0.5)) * (nx ** 2 + ny ** 2) * 2
        # glare spot not on top of the framed problem
        fx0, fy0, fx1, fy1 = forbid
        for _ in range(40):
            gx, gy = float(rng.uniform(0.15, 0.85)) * W, float(rng.uniform(0.15, 0.85)) * H
            r = float(rng.uniform(0.04, 0.1)) * min(W, H)
            if not (fx0 - r * 1.2 < gx < fx1 + r * 1.2 and fy0 - r * 1.2 < gy < fy1 + r * 1.2):
                break
        else:
            gx, gy, r = W * 0.9, H * 0.9, 0.04 * min(W, H)
        ex = float(rng.uniform(0.6, 1.6))
        d2 = ((xx - gx) / (r * ex)) ** 2 + ((yy - gy) / (r / ex)) ** 2
        spot = np.exp(-d2 * 0.8) + 0.35 * np.exp(-d2 * 0.08)
        cfg["glare_xy"] = f"{int(gx)};{int(gy)}"
        glare = "spot"
    if chance(rng, 0.15) and shadow == "none":
        # soft shadow of the phone/hand
        m = np.zeros((H, W), np.float32)
        cx_, cy_ = float(rng.uniform(0, W)), float(pick(rng, [0.0, H * 1.0]))
        cv2.ellipse(m, (int(cx_), int(cy_)), (int(W * rng.uniform(0.2, 0.5)), int(H * rng.uniform(0.2, 0.4))), 0, 0, 360, 1.0, -1)
        m = cv2.GaussianBlur(m, (0, 0), float(rng.uniform(30, 70)))
        gain *= 1 - float(rng.uniform(0.2, 0.4)) * m
        shadow = "soft"
    cfg["shadow"] = shadow
    cfg["glare"] = glare
    exposure = float(rng.uniform(0.85, 1.12))
    out = img * (gain * exposure)[..., None] * wb[None, None, :]
    if glare == "spot":
        s = np.clip(spot * float(rng.uniform(0.8, 1.3)), 0, 1)[..., None]
        out = out + (1.08 - out) * s
    return np.clip(out, 0, 1)


def camera_finish(img, rng, cfg):
    H, W = img.shape[:2]
    bk = pick(rng, ["none", "gauss", "strong", "motion"], [0.3, 0.42, 0.13, 0.15])
    if cfg.get("toner") == "light" and bk in ("strong", "motion"):
        bk = "gauss"      # a faint copy that is also badly blurred is unreadable
    sig = 0.0
    if bk == "gauss":
        sig = float(rng.uniform(0.4, 1.0))
        img = cv2.GaussianBlur(img, (0, 0), sig)
    elif bk == "strong":
        sig = float(rng.uniform(1.0, 1.6)) * min(1.0, cfg["text_px_photo"] / 30.0)
        img = cv2.GaussianBlur(img, (0, 0), sig)
    elif bk == "motion":
        L = int(rng.integers(2, max(3, int(cfg["text_px_photo"] / 5)) + 1))
        ang = float(rng.uniform(0, 180))
        k = np.zeros((L * 2 + 1, L * 2 + 1), np.float32)
        c = L
        dx, dy = math.cos(math.radians(ang)) * L / 2, math.sin(math.radians(ang)) * L / 2
        cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1, cv2.LINE_AA)
        k /= k.sum()
        img = cv2.filter2D(img, -1, k)
        sig = L
    cfg["blur"] = bk
    cfg["blur_param"] = round(sig, 2)
    if chance(rng, 0.35):   # phone sharpening
        amt = float(rng.uniform(0.3, 0.8))
        img = np.clip(img * (1 + amt) - cv2.GaussianBlur(img, (0, 0), 1.5) * amt, 0, 1)
        cfg["sharpen"] = round(amt, 2)
    else:
        cfg["sharpen"] = 0
    ns = float(rng.uniform(0.006, 0.03))
    lum = img.mean(axis=2, keepdims=True)
    noise = rng.standard_normal((H, W, 1), dtype=np.float32) * ns * (0.5 + lum)
    chroma = rng.standard_normal((H // 2 + 1, W // 2 + 1, 3), dtype=np.float32) * ns * 0.5
    chroma = cv2.resize(chroma, (W, H), interpolation=cv2.INTER_LINEAR)
    img = np.clip(img + noise + chroma, 0, 1)
    cfg["noise"] = round(ns * 255, 1)
    return img


# ----------------------------------------------------------------------------
# one photo
# ----------------------------------------------------------------------------

PHOTO_SIZES = [(1280, 960), (960, 1280), (1600, 1200), (1200, 1600)]
PHOTO_P = [0.42, 0.33, 0.15, 0.10]


def make_one(idx, framed, bank, seed, outdir):
    t0 = time.time()
    seq = [seed, idx]
    page, fb, rng, relayouts = layout_with_framed(bank, framed, seq, idx)
    cfg = page.cfg
    ink, boxes = paint_ink(page)
    block_boxes(page, boxes)
    if fb["box"] is None:
        raise RuntimeError("framed has no box")
    fs = page.fs
    Wp, Hp = page.Wp, page.Hp
    screen = cfg["page_kind"] == "screen"
    cfg["screen_scan"] = screen and chance(rng, 0.4)
    gray, M = copy_process(ink, page, rng, cfg, fb)
    del ink
    # paper tint
    if cfg["photocopy"]:
        tint = np.array([rng.uniform(0.97, 1.0), 1.0, rng.uniform(0.97, 1.03)], np.float32)
    else:
        tint = np.array([1.0, rng.uniform(0.99, 1.0), rng.uniform(0.96, 1.0)], np.float32)
    rgb = gray[..., None] * tint[None, None, :]
    del gray
    alpha = np.ones((Hp, Wp), np.float32)
    A = affine3(M)
    if not screen:
        draw_marks(rgb, page, M, fb, rng, cfg)
    else:
        cfg["pen"], cfg["marks_framed"], cfg["marks_other"] = "", "", 0
    fpts_sheet = apply_h(A, rect_points(fb["box"]))
    fsb = (fpts_sheet[:, 0].min(), fpts_sheet[:, 1].min(), fpts_sheet[:, 0].max(), fpts_sheet[:, 1].max())
    stack = False
    if not screen:
        stack = sheet_features(rgb, alpha, page, rng, cfg, fsb)
    else:
        cfg["holes"], cfg["staple"] = "none", "none"

    # chain of point maps page -> surface (sheet or screen)
    curl = None
    if not screen and chance(rng, 0.16):
        side = pick(rng, ["left", "right"], [0.7, 0.3])
        wb = float(rng.uniform(0.12, 0.3)) * Wp
        cxp = float(rng.uniform(0.05, 0.35)) * wb
        cyp = float(rng.uniform(-0.05, 0.06))
        syp = float(rng.uniform(-0.015, 0.02)) * Hp
        # keep the framed problem out of the strongest curl
        if side == "left" and fsb[0] < wb * 0.5:
            side = "right"
        if side == "right" and fsb[2] > Wp - wb * 0.5:
            wb = max(Wp * 0.06, (Wp - fsb[2]) * 1.6)
            cxp = min(cxp, wb * 0.3)
        curl = (side, wb, cxp, cyp, syp)
        mapx, mapy, d = curl_maps(Wp, Hp, *curl)
        rgb = cv2.remap(rgb, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
        alpha = cv2.remap(alpha, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        rgb *= (1 - float(rng.uniform(0.25, 0.5)) * d[None, :, None] ** 2)
        del mapx, mapy
    cfg["curl"] = f"{curl[0]}_{int(curl[1])}" if curl else "none"

    def page_to_surface(pts):
        q = apply_h(A, pts)
        if curl:
            q = curl_forward(q, Wp, Hp, *curl)
        if screen:
            q = apply_h(S2, q)
        return q

    if screen:
        surf, smask, S2, device = make_screen(rgb, rng, cfg, fsb)
        salpha = np.ones(surf.shape[:2], np.float32)
        rgb = surf
        alpha = salpha
    else:
        cfg["screen"] = "none"
        smask = None

    # -------- camera geometry --------------------------------------------
    W, H = pick(rng, PHOTO_SIZES, PHOTO_P)
    f_target = float(rng.uniform(21, 46)) if chance(rng, 0.85) else float(rng.uniform(44, 58))
    rot = float(np.clip(rng.normal(0, 6.0), -15, 15))
    if chance(rng, 0.1):
        rot = float(rng.choice([-1, 1]) * rng.uniform(10, 15))
    persp = float(rng.uniform(0.0, 0.1)) if chance(rng, 0.8) else float(rng.uniform(0.1, 0.16))
    jitter = (float(rng.normal(0, 0.03)) * W, float(rng.normal(0, 0.03)) * H)
    corner_j = rng.uniform(-1, 1, (4, 2))

    fpts_all = page_to_surface(rect_points(fb["box"], 7))
    fc = page_to_surface([((fb["box"][0] + fb["box"][2]) / 2, (fb["box"][1] + fb["box"][3]) / 2)])[0]
    fs_surface = fs * (S2[0, 0] if screen else 1.0)
    others = [b for b in page.blocks if b is not fb and b["kind"] in ("problem", "stem") and b["box"] is not None]
    other_c = np.array([page_to_surface([((b["box"][0] + b["box"][2]) / 2, (b["box"][1] + b["box"][3]) / 2)])[0] for b in others]) if others else np.zeros((0, 2))

    def build_H(f_ph, rot_, persp_, jit):
        s = f_ph / fs_surface
        c, sn = math.cos(math.radians(rot_)), math.sin(math.radians(rot_))
        Af = np.array([[s * c, -s * sn, 0], [s * sn, s * c, 0], [0, 0, 1]], np.float64)
        Af[:2, 2] = np.array([W / 2 + jit[0], H / 2 + jit[1]]) - Af[:2, :2] @ fc
        src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
        dst = src + np.float32(corner_j * persp_ * np.array([W, H]) * 0.5)
        P = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
        Hm = P @ Af
        # re-centre and re-scale so the framed centre / text size are as asked
        for _ in range(2):
            pc = apply_h(Hm, [fc])[0]
            ex = apply_h(Hm, [fc + [fs_surface, 0], fc + [0, fs_surface]])
            loc = (np.linalg.norm(ex[0] - pc) + np.linalg.norm(ex[1] - pc)) / 2
            k = f_ph / loc
            T = np.array([[k, 0, (1 - k) * pc[0]], [0, k, (1 - k) * pc[1]], [0, 0, 1]])
            Hm = T @ Hm
            pc = apply_h(Hm, [fc])[0]
            tgt = np.array([W / 2 + jit[0], H / 2 + jit[1]])
            Hm = np.array([[1, 0, tgt[0] - pc[0]], [0, 1, tgt[1] - pc[1]], [0, 0, 1]]) @ Hm
        return Hm

    tl, tr = page_to_surface([(fb["box"][0], fb["box"][3]), (fb["box"][2], fb["box"][3])])

    def text_angle(Hm):
        a, b = apply_h(Hm, [tl, tr])
        return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))

    def check(Hm):
        if abs(text_angle(Hm)) > 16.0:
            return False
        q = apply_h(Hm, fpts_all)
        m = max(8, 0.025 * min(W, H))
        if q[:, 0].min() < m or q[:, 1].min() < m or q[:, 0].max() > W - m or q[:, 1].max() > H - m:
            return False
        ctr = np.array([W / 2, H / 2])
        # photo centre inside the framed box, framed centre nearest the photo centre
        x0, y0 = q.min(0)
        x1, y1 = q.max(0)
        dfr = np.linalg.norm(apply_h(Hm, [fc])[0] - ctr)
        if len(other_c):
            oc = apply_h(Hm, other_c)
            if np.linalg.norm(oc - ctr, axis=1).min() <= dfr * 1.05 + 4:
                return False
        return x0 < ctr[0] < x1 and y0 < ctr[1] < y1

    f_ph, rot_, persp_, jit = f_target, rot, persp, jitter
    Hm = None
    for attempt in range(60):
        Hm = build_H(f_ph, rot_, persp_, jit)
        if check(Hm):
            break
        if attempt % 3 == 0:
            jit = (jit[0] * 0.5, jit[1] * 0.5)
        if abs(text_angle(Hm)) > 16.0:
            persp_ *= 0.6
            rot_ = rot_ * 0.85
            continue
        if f_ph > 20.5:
            f_ph = max(20.0, f_ph * 0.93)
        elif abs(rot_) > 1:
            rot_ *= 0.7
            persp_ *= 0.7
        else:
            f_ph = max(15.0, f_ph * 0.95)
            jit = (0.0, 0.0)
    else:
        raise RuntimeError(f"cannot frame {framed['id']} in photo {idx}")
    cfg.update(text_px_photo=round(f_ph, 1), rotation_deg=round(rot_, 2), perspective=round(persp_, 3),
               photo_w=W, photo_h=H, text_angle_photo=round(text_angle(Hm), 2))

    # -------- render the photo --------------------------------------------
    bg, bg_kind = desk_background(rng, W, H)
    cfg["background"] = bg_kind
    Hcur = Hm
    src_rgb, src_a = rgb, alpha
    s_eff = f_ph / fs_surface
    if s_eff < 0.8:
        f = min(1.0, s_eff * 1.5)
        src_rgb = cv2.resize(rgb, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        src_a = cv2.resize(alpha, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        Hcur = Hm @ np.diag([1 / f, 1 / f, 1.0])
    if stack:
        # the next sheet of the stapled set, slightly offset underneath
        off = np.array([[1, 0, rng.uniform(-25, 25)], [0, 1, rng.uniform(-25, 25)], [0, 0, 1]])
        ang = math.radians(float(rng.uniform(-2.5, 2.5)))
        Rr = np.array([[math.cos(ang), -math.sin(ang), 0], [math.sin(ang), math.cos(ang), 0], [0, 0, 1]])
        Hs = Hm @ off @ Rr
        under = cv2.warpPerspective(np.ones((Hp // 4, Wp // 4), np.float32), Hs @ np.diag([4, 4, 1.0]), (W, H))
        pv = float(rng.uniform(0.75, 0.9))
        bg = bg * (1 - under[..., None]) + pv * under[..., None]
    warped = cv2.warpPerspective(src_rgb, Hcur, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    wa = cv2.warpPerspective(src_a, Hcur, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    # cast shadow of the sheet on the desk
    sh = cv2.GaussianBlur(np.roll(wa, (4, 3), (0, 1)), (0, 0), 6)
    bg = bg * (1 - 0.3 * sh[..., None] * (1 - wa[..., None]))
    img = warped * wa[..., None] + bg * (1 - wa[..., None])
    del warped, src_rgb, rgb

    q = apply_h(Hm, fpts_all)
    fbox_photo = (float(q[:, 0].min()), float(q[:, 1].min()), float(q[:, 0].max()), float(q[:, 1].max()))
    quad = apply_h(Hm, page_to_surface([(fb["box"][0], fb["box"][1]), (fb["box"][2], fb["box"][1]),
                                        (fb["box"][2], fb["box"][3]), (fb["box"][0], fb["box"][3])]))

    if screen:
        # moire: screen pixel grid sampled by the camera sensor
        sm = cv2.warpPerspective(smask, Hm, (W, H), flags=cv2.INTER_NEAREST)
        Hinv = np.linalg.inv(Hm)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
        den = Hinv[2, 0] * xx + Hinv[2, 1] * yy + Hinv[2, 2]
        u = (Hinv[0, 0] * xx + Hinv[0, 1] * yy + Hinv[0, 2]) / den
        v = (Hinv[1, 0] * xx + Hinv[1, 1] * yy + Hinv[1, 2]) / den
        fu = (u - np.floor(u)).astype(np.float32)
        fv = (v - np.floor(v)).astype(np.float32)
        strength = float(rng.uniform(0.2, 0.45))
        pat = np.empty((H, W, 3), np.float32)
        for ch in range(3):
            inside = ((fu >= ch / 3) & (fu < (ch + 1) / 3)).astype(np.float32)
            pat[..., ch] = 1 - strength * (1 - inside)
        pat *= (1 - strength * 0.6 * (fv < 0.18))[..., None]
        pat = cv2.GaussianBlur(pat, (0, 0), 0.7)
        pat /= pat.mean(axis=(0, 1), keepdims=True)
        glow = np.array([rng.uniform(0.9, 1.0), rng.uniform(0.95, 1.0), 1.0], np.float32) * float(rng.uniform(1.0, 1.15))
        m3 = sm[..., None]
        img = img * (1 - m3) + np.clip(img * pat * glow, 0, 1) * m3
        # reflection haze
        refl = np.clip(lowfreq(rng, H, W, 300) * 0.5 + 0.2, 0, 1) * float(rng.uniform(0.04, 0.15))
        img = img + refl[..., None] * m3
        cfg["moire_strength"] = round(strength, 2)
        del u, v, fu, fv, xx, yy, den
    else:
        cfg["moire_strength"] = 0

    # occluder
    if chance(rng, 0.24):
        add_finger_or_pen(img, rng, W, H, fbox_photo, cfg)
    else:
        cfg["occluder"], cfg["occluder_side"] = "none", ""
    img = lighting(img, rng, W, H, fbox_photo, cfg)
    img = camera_finish(img, rng, cfg)
    q_jpg = int(rng.integers(55, 94))
    cfg["jpeg_quality"] = q_jpg
    out8 = (np.clip(img, 0, 1) * 255 + 0.5).astype(np.uint8)
    qid = f"x{idx:03d}"
    cv2.imwrite(os.path.join(outdir, qid + ".jpg"), cv2.cvtColor(out8, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, q_jpg])

    # -------- record --------------------------------------------------------
    ctr = np.array([W / 2, H / 2])
    cen = lambda b: np.array([(b["box"][0] + b["box"][2]) / 2, (b["box"][1] + b["box"][3]) / 2])
    vis = []
    for b in others:
        qq = apply_h(Hm, page_to_surface(rect_points(b["box"], 3)))
        inside = (qq[:, 0] >= 0) & (qq[:, 0] < W) & (qq[:, 1] >= 0) & (qq[:, 1] < H)
        if inside.any():
            vis.append((b, "whole" if inside.all() else "part", float(np.linalg.norm(apply_h(Hm, page_to_surface([cen(b)]))[0] - ctr))))
    above = [b for b in others if b["col"] == fb["col"] and b["box"][3] <= fb["box"][1] + 1]
    below = [b for b in others if b["col"] == fb["col"] and b["box"][1] >= fb["box"][3] - 1]
    nb_above = max(above, key=lambda b: b["box"][3]) if above else None
    nb_below = min(below, key=lambda b: b["box"][1]) if below else None
    ident = lambda b: (b["entry"]["id"] if b and b.get("entry") else (b["kind"] if b else ""))
    gap = lambda a, b: round((b["box"][1] - a["box"][3]) / fs, 2) if a and b else ""
    fb_owner = fb["owner"]
    # section line just above
    secs = [b for b in page.blocks if b["kind"] == "section" and b["col"] == fb["col"] and b["y_top"] < fb["y_top"]]
    staple_vis = holes_vis = ""
    row = {
        "qid": qid, "expected_id": framed["id"], "subject": framed["subject"],
        "lang": cfg["lang"], "page_kind": cfg["page_kind"], "photocopy": int(cfg["photocopy"]),
        "page_w": Wp, "page_h": Hp, "font_cjk": cfg["font_cjk"], "font_latin": cfg["font_latin"],
        "font_px_page": cfg["font_px_page"], "line_pitch_em": cfg["line_pitch"], "columns": cfg["cols"],
        "divider": int(cfg["divider"]), "framed_column": fb["col"] + 1, "indent": cfg["indent"],
        "label_style": fb["label_style"], "framed_label": fb["label"], "page_label_style": cfg["label_style"],
        "first_number": cfg["first_number"],
        "subq_group": int(cfg["subq_group"]), "framed_is_sub": int(fb["level"] == 1),
        "score_style": cfg["score_style"], "score_pos": cfg["score_pos"], "framed_score": fb["score"],
        "header": cfg["header"], "footer": cfg["footer"], "sealing_line": int(cfg["sealing_line"]),
        "section_above": secs[-1]["text"] if secs else "",
        "supsub_mode": cfg["supsub_mode"],
        "has_supsub": int(any(c in SUP_MAP or c in SUB_MAP for c in framed["question"])),
        "blank_style": cfg["blank_style"], "has_blank": int("___" in framed["question"]),
        "answer_area": cfg["answer_area"], "framed_answer_area": int("answer_area" in fb),
        "gap_lines": cfg["gap_lines"], "n_blocks_on_page": sum(1 for b in page.blocks if b["kind"] == "problem"),
        "neighbour_above": ident(nb_above), "gap_above_em": gap(nb_above, fb),
        "neighbour_below": ident(nb_below), "gap_below_em": gap(fb, nb_below),
        "visible_neighbours": ";".join(f"{ident(b)}:{w}" for b, w, _ in sorted(vis, key=lambda t: t[2])),
        "n_framed_lines": len(fb["lines"]),
        "pen": cfg.get("pen", ""), "marks_framed": cfg.get("marks_framed", ""), "marks_other": cfg.get("marks_other", 0),
        "copy_bg": cfg["copy_bg"], "toner": cfg["toner"], "copy_skew_deg": cfg["copy_skew_deg"],
        "speckle": cfg["speckle"], "streaks": cfg["streaks"], "ghost": int(cfg["ghost"]), "edge_band": cfg["edge_band"],
        "margin_cut": cfg["margin_cut"], "staple": cfg["staple"], "holes": cfg["holes"], "curl": cfg["curl"],
        "screen": cfg["screen"], "screen_scan": int(cfg["screen_scan"]), "moire_strength": cfg["moire_strength"],
        "occluder": cfg["occluder"], "occluder_side": cfg["occluder_side"],
        "lighting": cfg["lighting"], "shadow": cfg["shadow"], "glare": cfg["glare"], "uneven": cfg["uneven"],
        "background": cfg["background"],
        "rotation_deg": cfg["rotation_deg"], "text_angle_photo_deg": cfg["text_angle_photo"],
        "perspective": cfg["perspective"], "blur": cfg["blur"], "blur_param": cfg["blur_param"],
        "sharpen": cfg["sharpen"], "noise": cfg["noise"], "jpeg_quality": q_jpg,
        "photo_w": W, "photo_h": H, "text_px_photo": cfg["text_px_photo"],
        "box_x0": round(fbox_photo[0], 1), "box_y0": round(fbox_photo[1], 1),
        "box_x1": round(fbox_photo[2], 1), "box_y1": round(fbox_photo[3], 1),
        "box_quad": ";".join(f"{v:.1f}" for v in quad.ravel()),
        "centre_offset_px": round(float(np.linalg.norm(apply_h(Hm, [fc])[0] - ctr)), 1),
        "relayouts": relayouts, "seconds": round(time.time() - t0, 2),
    }
    # staple/holes visible in the photo?
    if cfg["staple"] != "none":
        sx = 0.05 * Wp if cfg["staple"] == "top_left" else Wp * 0.95
        p = apply_h(Hm, (curl_forward([(sx, 0.045 * Wp)], Wp, Hp, *curl) if curl else np.array([(sx, 0.045 * Wp)])))[0]
        staple_vis = int(0 <= p[0] < W and 0 <= p[1] < H)
    if cfg["holes"] != "none":
        side = cfg["holes"].split("_")[1]
        pts = [(0.058 * Wp, Hp * t) for t in np.linspace(0.2, 0.8, 7)] if side == "left" else [(Wp * t, 0.058 * Wp) for t in np.linspace(0.2, 0.8, 7)]
        p = apply_h(Hm, curl_forward(pts, Wp, Hp, *curl) if curl else np.array(pts))
        holes_vis = int(((p[:, 0] >= 0) & (p[:, 0] < W) & (p[:, 1] >= 0) & (p[:, 1] < H)).any())
    row["staple_visible"] = staple_vis
    row["holes_visible"] = holes_vis
    return row


def _worker(args):
    idx, framed, bank, seed, outdir = args
    find_fonts()
    return make_one(idx, framed, bank, seed, outdir)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--bank", required=True, help="question bank, JSON lines with id / question")
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=291)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="worker processes (output does not depend on it)")
    a = ap.parse_args()
    find_fonts()
    bank = []
    with open(a.bank, encoding="utf-8-sig") as f:
        for line in f:
            line = line.strip()
            if line:
                e = json.loads(line)
                if e.get("question", "").strip():
                    bank.append(e)
    if len(bank) < 4:
        sys.exit("bank too small")
    os.makedirs(a.outdir, exist_ok=True)
    # which bank entry each photo frames: every entry with super/subscripts or a
    # blank first (they are few and are what the typesetting cases are about),
    # then the rest; each round is a permutation of the bank, shown in random order
    order_rng = np.random.default_rng([a.seed, 999999])
    special = [i for i, e in enumerate(bank)
               if "___" in e["question"] or any(c in SUP_MAP or c in SUB_MAP for c in e["question"])]
    plain = [i for i in range(len(bank)) if i not in set(special)]
    order = []
    while len(order) < a.count:
        rnd = [special[i] for i in order_rng.permutation(len(special))] + [plain[i] for i in order_rng.permutation(len(plain))]
        take = rnd[:a.count - len(order)]
        order.extend(take[i] for i in order_rng.permutation(len(take)))
    jobs = [(i + 1, bank[order[i]], bank, a.seed, a.outdir) for i in range(a.count)]
    t0 = time.time()
    rows = []
    if a.jobs > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(a.jobs) as pool:
            for r in pool.imap(_worker, jobs):
                rows.append(r)
                print(f"{r['qid']} {r['expected_id']} {r['seconds']}s", flush=True)
    else:
        for j in jobs:
            r = make_one(*j)
            rows.append(r)
            print(f"{r['qid']} {r['expected_id']} {r['seconds']}s", flush=True)
    rows.sort(key=lambda r: r["qid"])
    byid = {e["id"]: e for e in bank}
    with open(os.path.join(a.outdir, "truth.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "text"])
        for r in rows:
            w.writerow([r["qid"], byid[r["expected_id"]]["question"]])
    with open(os.path.join(a.outdir, "queries.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "query", "expected_id", "kind"])
        for r in rows:
            w.writerow([r["qid"], byid[r["expected_id"]]["question"], r["expected_id"], "exact"])
    with open(os.path.join(a.outdir, "cases.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow(r)
    print(f"wrote {len(rows)} photos to {a.outdir} in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
