#!/usr/bin/env python3
"""Synthetic phone photos of printed school problems (test set "photos_tune10").

Each photo u001..u120 shows one printed page region aimed at ONE bank problem
(the framed problem), with other bank problems around it.  Everything random is
derived from SEED and the photo id, so any subset of photos can be remade
byte-identically.

Usage:
  python make_photos.py --bank BANK OUT_DIR [qid ...] [--jobs N]
"""
import argparse
import csv
import hashlib
import json
import math
import os
import random
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache

import numpy as np
import cv2
from PIL import Image, ImageDraw, ImageFont

cv2.setNumThreads(1)

SEED = "photos_tune10/v1"
NPHOTO = 120
S = 8.0                      # page pixels per millimetre

# ----------------------------------------------------------------------------
# randomness
# ----------------------------------------------------------------------------

def h64(*parts):
    s = "|".join(str(p) for p in parts).encode("utf-8")
    return int.from_bytes(hashlib.sha256(s).digest()[:8], "big")


def rnd_for(*parts):
    return random.Random(h64(SEED, *parts))


def nrng_for(*parts):
    return np.random.default_rng(h64(SEED, *parts))


# ----------------------------------------------------------------------------
# fonts
# ----------------------------------------------------------------------------
FD = "/usr/share/fonts/truetype/dejavu/"
FL = "/usr/share/fonts/truetype/liberation/"
FN = "/usr/share/fonts/opentype/noto/"

CJK = {
    "sans": ((FN + "NotoSansCJK-Regular.ttc", 2), (FN + "NotoSansCJK-Bold.ttc", 2)),
    "serif": ((FN + "NotoSerifCJK-Regular.ttc", 2), (FN + "NotoSerifCJK-Bold.ttc", 2)),
    "mono": ((FN + "NotoSansCJK-Regular.ttc", 7), (FN + "NotoSansCJK-Bold.ttc", 7)),
}
LATIN = {
    "serif": [((FL + "LiberationSerif-Regular.ttf", 0), (FL + "LiberationSerif-Bold.ttf", 0)),
              ((FD + "DejaVuSerif.ttf", 0), (FD + "DejaVuSerif-Bold.ttf", 0))],
    "sans": [((FL + "LiberationSans-Regular.ttf", 0), (FL + "LiberationSans-Bold.ttf", 0)),
             ((FD + "DejaVuSans.ttf", 0), (FD + "DejaVuSans-Bold.ttf", 0))],
    "mono": [((FD + "DejaVuSansMono.ttf", 0), (FD + "DejaVuSansMono-Bold.ttf", 0)),
             ((FL + "LiberationMono-Regular.ttf", 0), (FL + "LiberationMono-Bold.ttf", 0))],
    "condensed": [((FD + "DejaVuSansCondensed.ttf", 0), (FD + "DejaVuSansCondensed-Bold.ttf", 0)),
                  ((FL + "LiberationSansNarrow-Regular.ttf", 0), (FL + "LiberationSansNarrow-Bold.ttf", 0)),
                  ((FD + "DejaVuSerifCondensed.ttf", 0), (FD + "DejaVuSerifCondensed-Bold.ttf", 0))],
}
FALLBACK = ((FD + "DejaVuSans.ttf", 0), (FD + "DejaVuSans-Bold.ttf", 0))
ITALIC_PEN = [(FD + "DejaVuSans-Oblique.ttf", 0), (FL + "LiberationSerif-Italic.ttf", 0),
              (FD + "DejaVuSansCondensed-BoldOblique.ttf", 0)]


@lru_cache(maxsize=None)
def get_font(spec, size):
    path, idx = spec
    return ImageFont.truetype(path, max(4, int(round(size))), index=idx,
                              layout_engine=ImageFont.Layout.BASIC)


@lru_cache(maxsize=None)
def cmap_of(spec):
    from fontTools.ttLib import TTFont
    path, idx = spec
    kw = {"fontNumber": idx} if path.endswith(".ttc") else {}
    f = TTFont(path, lazy=True, **kw)
    cm = set(f.getBestCmap().keys())
    f.close()
    return frozenset(cm)


def has_glyph(spec, ch):
    return ord(ch) in cmap_of(spec)


CJK_EXTRA = set("“”‘’…—℃、。《》（），：？！；【】「」　")


def is_cjk(ch):
    o = ord(ch)
    return (0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFE30 <= o <= 0xFE4F
            or 0xFF00 <= o <= 0xFFEF or 0x3000 <= o <= 0x303F or 0x2460 <= o <= 0x24FF
            or ch in CJK_EXTRA)


def has_cjk(s):
    return any(0x4E00 <= ord(c) <= 0x9FFF for c in s)


class TS:
    """Text style."""

    def __init__(self, fam, latin, cjk, em, bold=False, ls=0.0, latin_in_cjk=False, lh=1.55):
        self.fam, self.latin, self.cjk = fam, latin, cjk
        self.em, self.bold, self.ls, self.latin_in_cjk, self.lh = em, bold, ls, latin_in_cjk, lh

    def derive(self, **kw):
        t = TS(self.fam, self.latin, self.cjk, self.em, self.bold, self.ls, self.latin_in_cjk, self.lh)
        for k, v in kw.items():
            setattr(t, k, v)
        return t

    def font(self, ch, bold, size):
        b = 1 if bold else 0
        if is_cjk(ch) or self.latin_in_cjk:
            cands = [self.cjk[b], self.latin[b], FALLBACK[b]]
        else:
            cands = [self.latin[b], FALLBACK[b], self.cjk[b]]
        for spec in cands:
            if has_glyph(spec, ch):
                return get_font(spec, size)
        return get_font(cands[0], size)


# ----------------------------------------------------------------------------
# rich text: items, units, wrapping, drawing
# ----------------------------------------------------------------------------
SUP = {"²": "2", "³": "3", "¹": "1", "⁰": "0", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
       "⁸": "8", "⁹": "9", "ⁿ": "n", "⁺": "+", "⁻": "-"}
SUB = {"₀": "0", "₁": "1", "₂": "2", "₃": "3", "₄": "4", "₅": "5", "₆": "6", "₇": "7",
       "₈": "8", "₉": "9", "ₙ": "n", "ₐ": "a", "ₓ": "x", "ₘ": "m"}
OPEN = set("（《“‘【「([{")
CLOSE = set("，。、；：？！）》”’】」,.;:?!)]}%℃°")

# item: ('c', ch, var)  var in n b sup sub ; ('s',) space ; ('bl', width_em)


def text_items(text, blank_mode="line", blank_em=4.0, bold=False, us_count=6):
    items = []
    i = 0
    v = "b" if bold else "n"
    while i < len(text):
        ch = text[i]
        if ch == "_":
            j = i
            while j < len(text) and text[j] == "_":
                j += 1
            if j - i >= 2:
                if blank_mode == "line":
                    items.append(("bl", blank_em))
                else:
                    items.extend(("c", "_", "n") for _ in range(us_count))
                i = j
                continue
        if ch == " ":
            items.append(("s",))
        elif ch in SUP:
            items.append(("c", SUP[ch], "sup"))
        elif ch in SUB:
            items.append(("c", SUB[ch], "sub"))
        else:
            items.append(("c", ch, v))
        i += 1
    return items


def item_type(it):
    if it[0] == "s":
        return "space"
    if it[0] == "bl":
        return "blank"
    ch = it[1]
    if ch in CLOSE:
        return "close"
    if ch in OPEN:
        return "open"
    if is_cjk(ch):
        return "cjk"
    return "lat"


def make_units(items):
    units, cur, cur_t = [], [], None

    def flush():
        nonlocal cur, cur_t
        if cur:
            units.append(cur)
        cur, cur_t = [], None

    for it in items:
        t = item_type(it)
        if t == "space":
            flush()
            units.append([it])
        elif t == "blank":
            flush()
            units.append([it])
        elif t == "close":
            if cur:
                cur.append(it)
            elif units and units[-1][0][0] not in ("s",):
                units[-1].append(it)
            else:
                cur = [it]
                cur_t = "lat"
        elif t == "open":
            if cur_t == "lat" and it[1] in "([{":
                cur.append(it)
            else:
                flush()
                cur = [it]
                cur_t = "open"
        elif t == "lat":
            if cur_t in ("lat", "open"):
                cur.append(it)
                cur_t = "lat"
            else:
                flush()
                cur = [it]
                cur_t = "lat"
        else:  # cjk
            if cur_t == "open":
                cur.append(it)
                cur_t = "cjk"
            else:
                flush()
                cur = [it]
                cur_t = "cjk"
    flush()
    return units


def item_width(it, ts):
    em = ts.em
    if it[0] == "s":
        f = get_font(ts.cjk[0] if ts.latin_in_cjk else ts.latin[0], em)
        return f.getlength(" ") + ts.ls * em
    if it[0] == "bl":
        return it[1] * em
    ch, var = it[1], it[2]
    small = var in ("sup", "sub")
    size = em * (0.62 if small else 1.0)
    f = ts.font(ch, ts.bold or var == "b", size)
    return f.getlength(ch) + ts.ls * em * (0.6 if small else 1.0)


def items_width(items, ts):
    return sum(item_width(it, ts) for it in items)


def wrap_units(units, ts, first_avail, rest_avail):
    lines, cur, w = [], [], 0.0
    avail = first_avail
    for u in units:
        uw = items_width(u, ts)
        is_space = u[0][0] == "s"
        if cur and w + uw > avail and not is_space:
            while cur and cur[-1][0] == "s":
                w -= item_width(cur.pop(), ts)
            lines.append(cur)
            cur, w = [], 0.0
            avail = rest_avail
        if not cur and is_space:
            continue
        cur.extend(u)
        w += uw
    while cur and cur[-1][0] == "s":
        cur.pop()
    if cur:
        lines.append(cur)
    return lines


def draw_items(draw, items, x, baseline, ts, fill=255):
    """Draw items; returns (x_end, bbox or None)."""
    em = ts.em
    bb = None

    def ub(b):
        nonlocal bb
        if b is None:
            return
        bb = list(b) if bb is None else [min(bb[0], b[0]), min(bb[1], b[1]), max(bb[2], b[2]), max(bb[3], b[3])]

    for it in items:
        w = item_width(it, ts)
        if it[0] == "c":
            ch, var = it[1], it[2]
            small = var in ("sup", "sub")
            size = em * (0.62 if small else 1.0)
            dy = -0.37 * em if var == "sup" else (0.15 * em if var == "sub" else 0.0)
            f = ts.font(ch, ts.bold or var == "b", size)
            if ch.strip():
                draw.text((x, baseline + dy), ch, font=f, fill=fill, anchor="ls")
                ub(draw.textbbox((x, baseline + dy), ch, font=f, anchor="ls"))
        elif it[0] == "bl":
            yy = baseline + 0.16 * em
            t = max(2, int(round(em * 0.055)))
            draw.line([(x, yy), (x + w, yy)], fill=fill, width=t)
            ub((x, yy - t, x + w, yy + t))
        x += w
    return x, bb


def ubox(a, b):
    if a is None:
        return None if b is None else list(b)
    if b is None:
        return list(a)
    return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]


# ----------------------------------------------------------------------------
# blocks
# ----------------------------------------------------------------------------

class Blk:
    def __init__(self, img, kind, colour=(25, 25, 25)):
        self.img = img            # PIL 'L' image, unscaled
        self.kind = kind
        self.colour = colour
        self.boxes = {}           # name -> [x0,y0,x1,y1] (block coords)
        self.deco = []            # (rect, rgb) drawn under ink
        self.info = {}
        self.sx = 1.0

    @property
    def h(self):
        return self.img.size[1]

    @property
    def w(self):
        return self.img.size[0]


def label_text(style, n, variant=0):
    if style == "dot":
        return f"{n}."
    if style == "dun":
        return f"{n}、"
    if style == "paren":
        return f"({n})"
    if style == "fparen":
        return f"（{n}）"
    if style == "circled":
        return chr(0x245F + n) if 1 <= n <= 20 else f"({n})"
    if style == "di_ti":
        return f"第{n}题" + ("：" if variant else "")
    if style == "q":
        return f"Q{n}" + ("." if variant else "")
    if style == "question":
        return f"Question {n}:"
    if style == "exercise":
        return f"Exercise {n}"
    if style == "rparen":
        return f"{n})"
    if style == "sub_a":
        return f"{'abcdefgh'[n - 1]})"
    if style == "sub_pa":
        return f"({'abcdefgh'[n - 1]})"
    return f"{n}."


LABEL_GAP = {"dot": 0.35, "dun": 0.1, "paren": 0.3, "fparen": 0.05, "circled": 0.3, "di_ti": 0.5,
             "q": 0.45, "question": 0.4, "exercise": 0.6, "rparen": 0.35, "sub_a": 0.35, "sub_pa": 0.35}


def label_width(style, nums, ts, bold, variant):
    lts = ts.derive(bold=bold)
    return max(items_width(text_items(label_text(style, n, variant), bold=bold), lts) for n in nums)


def render_problem(qtext, ts, colw, P):
    """Render one problem block (label slot left empty; see finalize_label)."""
    em = ts.em
    lh = ts.lh * em
    x0 = P.get("indent", 0.0)
    own = P.get("own_line", False)
    slot = P["slot_w"]
    gap = P["label_gap"] * em
    if own:
        tx_first = x0
        tx_cont = x0
    else:
        tx_first = x0 + slot + gap
        tx_cont = tx_first if P.get("hang", True) else x0
    units = []
    if P.get("score"):
        units += make_units(text_items(P["score"])) + [[("s",)]]
    q_items = text_items(qtext, P.get("blank_mode", "line"), P.get("blank_em", 4.0),
                         us_count=P.get("us_count", 6))
    units += make_units(q_items)
    tail = P.get("tail", "none")
    if tail == "blank_line":
        units += [[("s",)], [("bl", P.get("blank_em", 5.0))]]
    elif tail == "blank_us":
        units += [[("s",)], [("c", "_", "n")] * P.get("us_count", 8)]
    elif tail == "bracket_inline":
        units += [[("s",)], text_items(P["bracket"])]
    avail_first = colw - tx_first
    avail_rest = colw - tx_cont
    lines = wrap_units(units, ts, avail_first, avail_rest)
    n_label_lines = 1 if own else 0
    n_lines = len(lines) + n_label_lines
    top = 0.35 * em
    base0 = top + 0.95 * em
    # options
    opt_rows = []
    if P.get("options"):
        opts = P["options"]
        oit = [text_items(o) for o in opts]
        ow = [items_width(o, ts) for o in oit]
        ox = tx_cont if P.get("hang", True) else x0 + 1.0 * em
        avail = colw - ox
        cell = max(ow) + 1.6 * em
        if cell * 4 <= avail:
            per = 4
        elif cell * 2 <= avail:
            per = 2
        else:
            per = 1
        cellw = max(cell, avail / per) if per > 1 else cell
        for r in range(0, len(opts), per):
            opt_rows.append([(ox + (k - r) * cellw, oit[k]) for k in range(r, min(r + per, len(opts)))])
    n_rows = n_lines + len(opt_rows)
    ans_lines = P.get("answer_lines", 0)
    ans_pitch = P.get("ans_pitch", 1.7) * em
    h = base0 + (n_rows - 1) * lh + 0.5 * em + ans_lines * ans_pitch + (0.3 * em if ans_lines else 0)
    W = int(math.ceil(colw))
    img = Image.new("L", (W, int(math.ceil(h))), 0)
    d = ImageDraw.Draw(img)
    blk = Blk(img, "problem")
    text_bb = None
    full_bb = None
    line_ends = []
    ink_boxes = []
    for i, ln in enumerate(lines):
        bl = base0 + (i + n_label_lines) * lh
        x = tx_first if i == 0 else tx_cont
        xe, bb = draw_items(d, ln, x, bl, ts)
        line_ends.append((xe, bl))
        text_bb = ubox(text_bb, bb)
        if bb is not None:
            ink_boxes.append(list(bb))
    full_bb = ubox(None, text_bb)
    if tail == "bracket_right":
        br = text_items(P["bracket"])
        bw = items_width(br, ts)
        xe, bl = line_ends[-1] if line_ends else (tx_first, base0)
        if xe + 1.5 * em + bw <= colw:
            _, bb = draw_items(d, br, colw - bw, bl, ts)
        else:
            bl2 = bl + lh
            _, bb = draw_items(d, br, colw - bw, bl2, ts)
            # this took an option row slot: shift options one row down
            opt_rows = [None] + opt_rows if opt_rows else [None]
        blk.boxes["bracket"] = bb
        if bb is not None:
            ink_boxes.append(list(bb))
    for r, row in enumerate(opt_rows):
        if row is None:
            continue
        bl = base0 + (n_lines + r) * lh
        for (ox, oi) in row:
            _, bb = draw_items(d, oi, ox, bl, ts)
            full_bb = ubox(full_bb, bb)
            if bb is not None:
                ink_boxes.append(list(bb))
    last_row_base = base0 + (n_lines + len(opt_rows) - 1) * lh
    if ans_lines:
        for k in range(ans_lines):
            yy = last_row_base + 0.35 * em + (k + 1) * ans_pitch
            d.line([(tx_cont, yy), (colw - 0.2 * em, yy)], fill=120, width=max(1, int(em * 0.05)))
        blk.boxes["answer_lines"] = [tx_cont, last_row_base + 0.35 * em, colw, last_row_base + 0.35 * em + ans_lines * ans_pitch + 2]
    # the image may need to grow if bracket forced an extra row
    need_h = int(math.ceil(last_row_base + 0.5 * em + (ans_lines * ans_pitch + 0.3 * em if ans_lines else 0)))
    if need_h > img.size[1]:
        big = Image.new("L", (W, need_h), 0)
        big.paste(img, (0, 0))
        blk.img = big
    blk.boxes["text"] = text_bb
    blk.boxes["full"] = full_bb
    blk.boxes["outer"] = ubox(full_bb, blk.boxes.get("bracket"))
    blk.info.update(dict(ink_boxes=ink_boxes, n_lines=len(lines), base0=base0, label_x=x0, line_ends=line_ends,
                         tx_first=tx_first, own=own, lh=lh, colw=colw))
    return blk


def finalize_label(blk, label, ts, bold, boxed, colour_bold=False):
    """Draw the problem label into the block, update boxes."""
    img = blk.img.copy()
    d = ImageDraw.Draw(img)
    em = ts.em
    lts = ts.derive(bold=bold, ls=min(ts.ls, 0.05))
    it = text_items(label, bold=bold)
    x = blk.info["label_x"] + (0.18 * em if boxed else 0)
    bl = blk.info["base0"]
    xe, bb = draw_items(d, it, x, bl, lts)
    if boxed and bb is not None:
        pad = 0.16 * em
        r = [bb[0] - pad, bl - 0.98 * em, bb[2] + pad, bl + 0.26 * em]
        d.rectangle(r, outline=255, width=max(2, int(em * 0.06)))
        bb = r
    nb = Blk(img, blk.kind, blk.colour)
    nb.boxes = {k: (list(v) if v is not None else None) for k, v in blk.boxes.items()}
    nb.deco = list(blk.deco)
    nb.info = dict(blk.info)
    nb.boxes["label"] = bb
    nb.info["ink_boxes"] = list(blk.info.get("ink_boxes", [])) + ([list(bb)] if bb is not None else [])
    nb.boxes["text"] = ubox(nb.boxes["text"], bb)
    nb.boxes["full"] = ubox(nb.boxes["full"], bb)
    nb.boxes["outer"] = ubox(nb.boxes.get("outer"), bb)
    return nb


def scale_block(blk, sx):
    if abs(sx - 1.0) < 1e-3:
        return blk
    w, h = blk.img.size
    nw = max(1, int(round(w * sx)))
    nb = Blk(blk.img.resize((nw, h), Image.Resampling.LANCZOS), blk.kind, blk.colour)
    for k, v in blk.boxes.items():
        nb.boxes[k] = None if v is None else [v[0] * sx, v[1], v[2] * sx, v[3]]
    nb.deco = [([r[0] * sx, r[1], r[2] * sx, r[3]], c) for r, c in blk.deco]
    nb.info = dict(blk.info)
    nb.info["line_ends"] = [(x * sx, y) for x, y in blk.info.get("line_ends", [])]
    nb.info["label_x"] = blk.info.get("label_x", 0) * sx
    nb.info["ink_boxes"] = [[v[0] * sx, v[1], v[2] * sx, v[3]] for v in blk.info.get("ink_boxes", [])]
    nb.sx = sx
    return nb


def render_lines_block(lines_spec, width, kind, colour=(25, 25, 25), align="left", pad_top=0.2, pad_bot=0.3):
    """lines_spec: list of (items, ts, extra_gap_em_before). Returns Blk."""
    ys = []
    y = 0.0
    for k, (items, ts, g) in enumerate(lines_spec):
        if k == 0:
            y = pad_top * ts.em + 0.95 * ts.em
        else:
            y += g * ts.em + ts.lh * ts.em * 0.5 + 0.5 * lines_spec[k - 1][1].lh * lines_spec[k - 1][1].em
        ys.append(y)
    last_ts = lines_spec[-1][1]
    h = y + (pad_bot + 0.3) * last_ts.em
    img = Image.new("L", (int(math.ceil(width)), int(math.ceil(h))), 0)
    d = ImageDraw.Draw(img)
    bb = None
    for (items, ts, g), bl in zip(lines_spec, ys):
        w = items_width(items, ts)
        if align == "center":
            x = (width - w) / 2
        elif align == "right":
            x = width - w
        else:
            x = 0
        _, b = draw_items(d, items, x, bl, ts)
        bb = ubox(bb, b)
    blk = Blk(img, kind, colour)
    blk.boxes["text"] = bb
    blk.boxes["full"] = bb
    return blk


# ----------------------------------------------------------------------------
# bank & plan
# ----------------------------------------------------------------------------

def load_bank(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            d = json.loads(line)
            q = d["question"]
            subj = d["id"].split("-")[1] if d["id"].count("-") >= 2 else "misc"
            out.append({"id": d["id"], "question": q, "lang": "zh" if has_cjk(q) else "en", "subj": subj})
    return out


def has_script(q):
    return any(c in SUP or c in SUB for c in q)


NUM_POOLS = {
    "zh": ["dot", "dun", "paren", "fparen", "circled", "di_ti", "rparen"],
    "en": ["dot", "paren", "q", "question", "exercise", "rparen"],
    "mixed": ["dot", "dun", "paren", "fparen", "circled", "di_ti", "q", "question", "exercise", "rparen"],
}


def greedy(n, targets, allowed, R):
    order = list(range(n))
    R.shuffle(order)
    counts = {k: 0 for k in targets}
    out = [None] * n
    for i in order:
        opts = [k for k in targets if k in allowed(i)]
        best = min(opts, key=lambda k: (counts[k] / max(targets[k], 1e-9), R.random()))
        counts[best] += 1
        out[i] = best
    return out


def flags(n, count, name):
    R = rnd_for("flags", name)
    v = [True] * count + [False] * (n - count)
    R.shuffle(v)
    return v


def build_plan(bank):
    R = rnd_for("plan")
    en = [q for q in bank if q["lang"] == "en"]
    zh = [q for q in bank if q["lang"] == "zh"]
    special = [q for q in zh if has_script(q["question"]) or "___" in q["question"]]
    rest = [q for q in zh if q not in special]
    R.shuffle(rest)
    chosen = en + special + rest
    chosen = chosen[:NPHOTO]
    R.shuffle(chosen)
    n = len(chosen)
    every = lambda opts: (lambda i: set(opts))  # noqa

    page_kind = greedy(n, {"worksheet": 24, "exam": 24, "homework": 24, "textbook": 24, "workbook": 24},
                       every(["worksheet", "exam", "homework", "textbook", "workbook"]), rnd_for("g", "pk"))
    two_col = flags(n, int(round(n * 0.4)), "twocol")
    colpos = greedy(n, {"L": 1, "R": 1}, every(["L", "R"]), rnd_for("g", "colpos"))
    colpos = [c if two_col[i] else "L" for i, c in enumerate(colpos)]
    sizes = greedy(n, {(1280, 960): 44, (960, 1280): 40, (1600, 1200): 10, (1200, 1600): 10, (1024, 768): 16},
                   every([(1280, 960), (960, 1280), (1600, 1200), (1200, 1600), (1024, 768)]), rnd_for("g", "size"))
    # page language
    Rl = rnd_for("g", "lang")
    page_lang = []
    for q in chosen:
        if q["lang"] == "en":
            page_lang.append("en" if Rl.random() < 0.74 else "mixed")
        else:
            page_lang.append("zh" if Rl.random() < 0.84 else "mixed")
    numstyle = greedy(n, {k: 1 for k in NUM_POOLS["mixed"]}, lambda i: set(NUM_POOLS[page_lang[i]]),
                      rnd_for("g", "num"))
    deco = greedy(n, {"bold": 22, "boxed": 14, "plain": 84},
                  lambda i: {"bold", "plain"} | ({"boxed"} if numstyle[i] in ("dot", "dun", "rparen", "q") else set()),
                  rnd_for("g", "deco"))
    subq = flags(n, 12, "subq")
    focus = greedy(n, {"title": 18, "section": 30, "footer": 14, "mid": 58},
                   lambda i: {"section", "footer", "mid"} | ({"title"} if colpos[i] == "L" else set()),
                   rnd_for("g", "focus"))
    score = flags(n, 30, "score")
    sectype = greedy(n, {"choice": 30, "judge": 16, "fill": 18, "short": 30, "solve": 26},
                     lambda i: ({"choice", "fill", "short"} if "___" in chosen[i]["question"]
                                else {"choice", "judge", "fill", "short", "solve"}),
                     rnd_for("g", "sectype"))
    tickx = greedy(n, {"tick": 18, "cross": 12, "none": 90}, every(["tick", "cross", "none"]), rnd_for("g", "tick"))
    circle = flags(n, 16, "circle")
    tscore = flags(n, 18, "tscore")
    fam = greedy(n, {"serif": 40, "sans": 40, "mono": 18, "condensed": 22},
                 every(["serif", "sans", "mono", "condensed"]), rnd_for("g", "fam"))
    bold = flags(n, 18, "bold")
    psize = greedy(n, {"small": 24, "normal": 72, "large": 24}, every(["small", "normal", "large"]), rnd_for("g", "ps"))
    lsp = flags(n, 18, "ls")
    occl = greedy(n, {"finger": 14, "pen": 12, "none": 94}, every(["finger", "pen", "none"]), rnd_for("g", "occl"))
    screen = flags(n, 14, "screen")
    shadow = flags(n, 30, "shadow")
    uneven = flags(n, 48, "uneven")
    curl = flags(n, 24, "curl")
    persp = flags(n, 48, "persp")
    rot = flags(n, 48, "rot")
    blur = flags(n, 24, "blur")
    jpegn = flags(n, 24, "jpegn")
    ptex = flags(n, 50, "ptex")
    ruled = flags(n, 14, "ruled")
    ablank = greedy(n, {"line": 1, "us": 1}, every(["line", "us"]), rnd_for("g", "blank"))
    plans = {}
    for i, q in enumerate(chosen):
        qid = f"u{i + 1:03d}"
        plans[qid] = dict(
            qid=qid, bank_id=q["id"], page_kind=page_kind[i], two_col=two_col[i], colpos=colpos[i],
            size=sizes[i], lang=page_lang[i], numstyle=numstyle[i], numdeco=deco[i], subq=subq[i],
            focus=focus[i], score=score[i], sectype=sectype[i], tickx=tickx[i], circle=circle[i],
            tscore=tscore[i], fam=fam[i], bold=bold[i], psize=psize[i], ls=lsp[i], occl=occl[i],
            screen=screen[i], shadow=shadow[i], uneven=uneven[i], curl=curl[i] and not screen[i],
            persp=persp[i], rot=rot[i], blur=blur[i], jpegn=jpegn[i], ptex=ptex[i] and not screen[i],
            ruled=ruled[i], blank=ablank[i])
    return plans


# ----------------------------------------------------------------------------
# page content pools
# ----------------------------------------------------------------------------
SUBJ_ZH = {"math": "数学", "phys": "物理", "chem": "化学", "bio": "生物", "geo": "地理", "hist": "历史",
           "chn": "语文", "eng": "英语"}
SUBJ_EN = {"math": "Mathematics", "phys": "Physics", "chem": "Chemistry", "bio": "Biology",
           "geo": "Geography", "hist": "History", "chn": "Chinese", "eng": "English"}
ZH_ORD = "一二三四五六七八"
EN_ORD = ["I", "II", "III", "IV", "V", "VI", "VII"]

SEC_ZH = {
    "choice": ["选择题（每题3分）", "选择题（每小题3分，共30分）", "单项选择题", "选择题（本大题共8小题，每小题4分）"],
    "judge": ["判断题（对的打“√”，错的打“×”）", "判断题（每题2分）"],
    "fill": ["填空题（每空2分，共20分）", "填空题", "填一填"],
    "short": ["简答题", "基础知识", "回答下列问题", "想一想，答一答"],
    "solve": ["解答题（共40分）", "计算题（写出必要的步骤）", "解答题（解答应写出文字说明或演算步骤）"],
}
SEC_EN = {
    "choice": ["Multiple Choice (2 points each)", "Choose the best answer.", "Multiple Choice"],
    "judge": ["True or False", "Write T for true or F for false."],
    "fill": ["Vocabulary", "Fill in the blanks.", "Complete the sentences."],
    "short": ["Short Answer", "Answer the questions.", "Vocabulary"],
    "solve": ["Problem Solving (show your work)", "Calculations", "Long Answer"],
}
TOPIC_ZH = {"math": ["一元一次方程", "有理数", "整式的加减", "分数的加减法", "二次函数", "数列"],
            "phys": ["运动和力", "欧姆定律", "机械能", "压强"], "chem": ["化学式与化合价", "氧气", "溶液"],
            "bio": ["细胞", "遗传与变异", "人体的消化"], "geo": ["地球的运动", "中国的疆域", "世界的海陆"],
            "hist": ["中国古代史", "近代史", "世界近代史"], "chn": ["古诗词", "现代文阅读", "文学常识"],
            "eng": ["Unit 3 语法", "Unit 5 词汇", "时态"]}
TOPIC_EN = {"math": ["Linear Equations", "Probability", "Geometry Review", "Algebra"],
            "phys": ["Forces and Motion", "Energy", "Units"], "chem": ["The Mole", "Chemical Formulas"],
            "bio": ["Cells", "Living Things"], "geo": ["Rivers and Oceans", "World Geography"],
            "hist": ["Age of Exploration", "World History"], "chn": ["Chinese Reading"],
            "eng": ["Grammar Review", "Vocabulary", "Tenses"]}

OPT_ZH = [["细胞核", "细胞膜", "叶绿体", "线粒体"], ["长江", "黄河", "珠江", "黑龙江"],
          ["1840年", "1842年", "1911年", "1949年"], ["李白", "杜甫", "王维", "孟浩然"],
          ["氧气", "氮气", "二氧化碳", "稀有气体"], ["太平洋", "大西洋", "印度洋", "北冰洋"],
          ["左心室", "右心室", "左心房", "右心房"], ["鲁迅", "朱自清", "老舍", "巴金"],
          ["亚洲", "非洲", "欧洲", "北美洲"], ["唐太宗", "唐玄宗", "汉武帝", "秦始皇"]]
OPT_EN = [["go", "goes", "went", "gone"], ["better", "best", "good", "well"],
          ["the Nile", "the Amazon", "the Yangtze", "the Mississippi"], ["newton", "joule", "watt", "pascal"],
          ["1492", "1498", "1519", "1620"], ["cell", "tissue", "organ", "atom"], ["cheap", "costly", "dear", "high"],
          ["a", "an", "the", "/"], ["since", "for", "from", "in"]]


def make_options(q, rnd, lang, fmt):
    nums = re.findall(r"\d+(?:\.\d+)?", q["question"])
    letters = "ABCD"
    if nums:
        base = float(rnd.choice(nums))
        isint = base == int(base)
        vals = set()
        tries = 0
        while len(vals) < 4 and tries < 50:
            tries += 1
            m = rnd.choice([0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10])
            v = base * m + rnd.choice([0, 1, -1, 2, 3])
            if isint or v == int(v):
                v = int(round(v))
                if v <= 0:
                    continue
                vals.add(str(v))
            else:
                vals.add(f"{v:.2f}".rstrip("0").rstrip("."))
        vals = sorted(vals, key=lambda s: float(s))[:4]
        while len(vals) < 4:
            vals.append(str(len(vals) + 1))
    else:
        pools = OPT_ZH if (lang == "zh" or (lang == "mixed" and has_cjk(q["question"]))) else OPT_EN
        vals = list(pools[h64(q["id"]) % len(pools)])
        rnd.shuffle(vals)
    return [fmt.format(letters[k], v) for k, v in enumerate(vals)]


# ----------------------------------------------------------------------------
# page building
# ----------------------------------------------------------------------------

def choose_style(plan, rnd, attempt):
    fam = plan["fam"]
    lang = plan["lang"]
    latin = rnd.choice(LATIN[fam])
    cjk_fam = {"serif": "serif", "sans": "sans", "mono": "mono", "condensed": rnd.choice(["sans", "serif"])}[fam]
    cjk = CJK[cjk_fam]
    pt = {"small": rnd.uniform(8.5, 9.5), "normal": rnd.uniform(10.5, 12.0), "large": rnd.uniform(14.0, 16.5)}[plan["psize"]]
    pt += 1.2 * attempt if plan["psize"] == "small" and attempt >= 2 else 0
    em = pt * 0.3528 * S
    ls = rnd.uniform(0.08, 0.2) if plan["ls"] else 0.0
    latin_in_cjk = fam == "mono" or (lang == "zh" and rnd.random() < 0.35)
    lh = rnd.uniform(1.45, 1.75)
    ts = TS(fam, latin, cjk, em, bold=plan["bold"], ls=ls, latin_in_cjk=latin_in_cjk, lh=lh)
    sx = 1.0
    if fam == "condensed" and lang != "en":
        sx = rnd.uniform(0.84, 0.92)
    ink = rnd.choice([(22, 22, 22), (30, 30, 34), (18, 22, 40), (45, 45, 45), (12, 12, 12)])
    return ts, sx, ink


def hdr_style(ts, rnd, scale=1.08, bold=True):
    # headings mostly in a sans (hei) face
    fam = rnd.choice(["sans", "sans", ts.fam if ts.fam in CJK else "serif"])
    return TS(fam, LATIN["sans"][0] if fam == "sans" else ts.latin, CJK.get(fam, ts.cjk), ts.em * scale,
              bold=bold, ls=0.0, latin_in_cjk=ts.latin_in_cjk, lh=1.4)


class Page:
    pass


def neighbour_order(bank, framed, lang, rnd):
    cands = [q for q in bank if q["id"] != framed["id"]]
    scored = []
    for q in cands:
        s = rnd.random() * 2.5
        if q["subj"] == framed["subj"]:
            s += 2.0
        if lang == "zh":
            s += 3.5 if q["lang"] == "zh" else 0
        elif lang == "en":
            s += 3.5 if q["lang"] == "en" else 0
        scored.append((s, q["id"], q))
    scored.sort(key=lambda t: (-t[0], t[1]))
    order = [t[2] for t in scored]
    if lang in ("zh", "en"):
        main = [q for q in order if q["lang"] == lang]
        other = [q for q in order if q["lang"] != lang]
        out = list(main)
        if other and rnd.random() < 0.45:  # one odd-language neighbour somewhere
            out.insert(rnd.randint(1, 8), other[0])
        if lang == "en" and rnd.random() < 0.3 and len(other) > 1:
            out.insert(rnd.randint(3, 12), other[1])
        return out
    # mixed: interleave
    a = [q for q in order if q["lang"] == "zh"]
    b = [q for q in order if q["lang"] == "en"]
    out = []
    while a or b:
        pick = a if (rnd.random() < 0.5 and a) or not b else b
        out.append(pick.pop(0))
    return out


def build_page(plan, bank_by_id, bank, attempt, cam_hint):
    """Render the page. Returns Page with image and element boxes (page px)."""
    qid = plan["qid"]
    rnd = rnd_for(qid, "page", attempt)
    lang = plan["lang"]
    zh = lang != "en"
    framed_q = bank_by_id[plan["bank_id"]]
    subj = framed_q["subj"]
    kind = plan["page_kind"]
    ts, sx, ink = choose_style(plan, rnd, attempt)
    em = ts.em
    # page geometry (mm)
    paper = rnd.choice([(210, 297), (210, 297), (184, 260), (216, 279), (176, 250)])
    pw, ph = paper
    mx = rnd.uniform(14, 22) + (8 if attempt >= 1 and not plan["two_col"] else 0) * min(attempt, 2)
    mt = rnd.uniform(12, 20)
    mb = rnd.uniform(14, 20)
    Wp, Hp = int(pw * S), int(ph * S)
    left, right = mx * S, Wp - mx * S
    ncols = 2 if plan["two_col"] else 1
    gutter = rnd.uniform(8, 13) * S
    colw = (right - left - gutter * (ncols - 1)) / ncols
    col_x = [left + c * (colw + gutter) for c in range(ncols)]
    colw_u = colw / sx               # unscaled layout width

    numstyle = plan["numstyle"]
    n0 = 1 if (plan["focus"] == "title" or numstyle == "circled" or rnd.random() < 0.45) else rnd.randint(3, 11)
    nums_range = list(range(n0, n0 + 22))
    lbl_variant = rnd.randint(0, 1)
    lbl_bold = plan["numdeco"] == "bold" or numstyle in ("exercise",) or (numstyle == "question" and rnd.random() < 0.5)
    lbl_boxed = plan["numdeco"] == "boxed"
    own_line = (numstyle == "exercise" and rnd.random() < 0.5) or (numstyle in ("question", "di_ti") and rnd.random() < 0.3)
    slot = label_width(numstyle, nums_range if numstyle != "circled" else range(1, 21), ts, lbl_bold, lbl_variant)
    if lbl_boxed:
        slot += 0.36 * em
    hang = rnd.random() < 0.75
    blank_mode = plan["blank"]
    bracket = "（　　）" if zh and rnd.random() < 0.85 else "(    )"
    ans_lines_page = kind == "workbook"
    ruled = plan["ruled"]
    if ruled:
        ts.lh = round(ts.lh * 4) / 4
    pitch = ts.lh * em

    # section types around the framed one
    sec_types_all = ["choice", "judge", "fill", "short", "solve"]
    has_sections = kind == "exam" or plan["focus"] == "section" or rnd.random() < 0.5
    ftype = plan["sectype"]

    # gap (page px) between consecutive problems; grown if the camera needs it
    base_gap = rnd.uniform(1.0, 2.4) * em
    gap = max(base_gap, cam_hint.get("gap", 0.0))

    opts_cache = {}

    def prob_params(q, stype, is_sub=False):
        P = dict(slot_w=slot, label_gap=LABEL_GAP.get(numstyle, 0.35), hang=hang, own_line=own_line and not is_sub,
                 blank_mode=blank_mode, blank_em=rnd_for(qid, q["id"], "bl").uniform(3.0, 5.5),
                 us_count=rnd_for(qid, q["id"], "us").randint(5, 9), bracket=bracket, tail="none")
        if is_sub:
            P["slot_w"] = sub_slot
            P["label_gap"] = 0.3
            P["indent"] = 1.6 * em if rnd_for(qid, q["id"], "ind").random() < 0.7 else 0.0
            P["hang"] = True
        r2 = rnd_for(qid, q["id"], "pp", stype)
        if plan["score"] and not is_sub:
            pts = r2.choice([2, 3, 4, 5, 6, 8, 10])
            P["score"] = score_fmt.format(pts)
        if stype == "choice":
            P["options"] = opts_cache.setdefault(q["id"], make_options(q, r2, lang, opt_fmt))
            if zh and r2.random() < 0.7:
                P["tail"] = "bracket_right" if r2.random() < 0.6 else "bracket_inline"
        elif stype == "judge":
            P["tail"] = "bracket_right" if r2.random() < 0.6 else "bracket_inline"
        elif stype == "fill":
            if "___" not in q["question"]:
                P["tail"] = "blank_line" if blank_mode == "line" else "blank_us"
        if ans_lines_page and stype in ("short", "solve", "fill"):
            P["answer_lines"] = r2.randint(2, 3)
        return P

    opt_fmt = rnd.choice(["{}. {}", "{}．{}", "{}、{}", "({}) {}"] if zh else ["{}. {}", "({}) {}", "{}) {}"])
    score_fmt = rnd.choice(["（{}分）", "({}分)"] if zh else ["[{} marks]", "({} points)", "[{} pts]"])
    sub_style = rnd.choice(["paren", "circled"] if zh else ["sub_a", "sub_pa", "paren"])
    sub_slot = label_width(sub_style, range(1, 5), ts, False, 0)

    block_cache = {}

    def get_block(q, stype, is_sub=False):
        key = (q["id"], stype, is_sub)
        if key not in block_cache:
            P = prob_params(q, stype, is_sub)
            b = render_problem(q["question"], ts, colw_u, P)
            b.info["P"] = P
            b.info["q"] = q
            block_cache[key] = b
        return block_cache[key]


    # ---- header / title / footer blocks
    full_w = right - left
    hts = hdr_style(ts, rnd)
    tts = hdr_style(ts, rnd, scale=rnd.uniform(1.45, 1.8))
    sts = ts.derive(em=em * 0.9, bold=False, ls=0.0, lh=1.4)
    subj_zh, subj_en = SUBJ_ZH.get(subj, "综合"), SUBJ_EN.get(subj, "Science")
    grade = rnd.choice(["七", "八", "九", "六", "五"])
    topic = rnd.choice(TOPIC_ZH.get(subj, ["综合练习"])) if zh else rnd.choice(TOPIC_EN.get(subj, ["Review"]))
    chap = rnd.randint(1, 9)
    pageno = rnd.randint(2, 120)
    sheet_p = rnd.randint(1, 4)
    has_title = plan["focus"] == "title" or (kind != "textbook" and rnd.random() < 0.45)
    top_blocks = []      # full-width blocks at the top
    title_kinds = []

    def it(s, bold=False):
        return text_items(s, bold=bold)

    def name_items(fields):
        out = []
        for k, (lab, w) in enumerate(fields):
            if k:
                out += [("s",), ("s",), ("s",)] if not zh else it("　")
            out += it(lab) + [("bl", w)]
        return out

    if kind == "textbook":
        run_l = f"第{ZH_ORD[chap % 8]}章　{topic}" if zh else f"Chapter {chap}  {topic}"
        spec = [(it(run_l), sts, 0)]
        rb = render_lines_block(spec, full_w, "running", colour=(90, 90, 90))
        pn = render_lines_block([(it(str(pageno)), sts, 0)], full_w, "running", colour=(90, 90, 90), align="right")
        rb.img = Image.fromarray(np.maximum(np.array(rb.img), np.array(pn.img.resize(rb.img.size))))
        d = ImageDraw.Draw(rb.img)
        d.line([(0, rb.h - 3), (full_w, rb.h - 3)], fill=140, width=2)
        rb.boxes["text"] = [0, 0, full_w, rb.h]
        top_blocks.append(("running", rb, 0.3 * em))
        ex = f"习题 {chap}.{rnd.randint(1, 4)}" if zh else f"Exercises {chap}.{rnd.randint(1, 4)}"
        col = rnd.choice([(20, 70, 150), (0, 110, 90), (160, 60, 20)])
        xb = render_lines_block([(it(ex, True), hdr_style(ts, rnd, 1.3), 0)], full_w, "title", colour=(255, 255, 255), pad_top=0.35, pad_bot=0.35)
        tb = xb.boxes["text"]
        xb.deco = [([tb[0] - 0.4 * em, 0, tb[2] + 0.5 * em, xb.h], col)]
        xb.info["kind2"] = "title"
        top_blocks.append(("title", xb, 0.8 * em))
        if rnd.random() < 0.5:
            bandcol = tuple(int(c * 0.25 + 255 * 0.75) for c in col)
            xb.deco.insert(0, ([tb[2] + 0.5 * em, xb.h * 0.45, full_w, xb.h * 0.55], bandcol))
    elif has_title:
        spec = []
        if kind == "exam":
            if zh:
                spec.append((it(f"{rnd.choice(['实验中学', '第一中学', '育才学校', '外国语学校'])}"
                                f"{rnd.choice(['2023—2024', '2024—2025'])}学年第{rnd.choice('一二')}学期"
                                f"{rnd.choice(['期中', '期末', '月考'])}考试"), sts.derive(em=em * 1.05), 0))
                spec.append((it(f"{grade}年级{subj_zh}试卷", True), tts, 0.3))
                spec.append((it("（满分：100分　考试时间：90分钟）"), sts, 0.2))
            else:
                spec.append((it(f"{rnd.choice(['Riverside', 'Greenfield', 'Hillview'])} Middle School  ·  "
                                f"{rnd.choice(['Fall', 'Spring'])} Term {rnd.choice(['2023', '2024'])}"), sts.derive(em=em * 1.05), 0))
                spec.append((it(f"Grade {rnd.randint(6, 9)} {subj_en} {rnd.choice(['Midterm', 'Final', 'Unit'])} Exam", True), tts, 0.3))
                spec.append((it("(Total: 100 points   Time: 90 minutes)"), sts, 0.2))
        elif kind == "worksheet":
            spec.append((it(f"{subj_zh}课堂练习（{rnd.randint(1, 12)}）" if zh and rnd.random() < 0.5 else
                            (f"{topic} 练习题" if zh else f"Worksheet {rnd.randint(1, 15)}: {topic}"), True), tts, 0))
        elif kind == "homework":
            spec.append((it(f"{subj_zh}家庭作业　第{rnd.randint(3, 30)}次" if zh else
                            f"Homework {rnd.randint(3, 30)} — {subj_en}", True), tts, 0))
            spec.append((it(f"日期：{rnd.randint(9, 12)}月{rnd.randint(1, 28)}日　星期{rnd.choice('一二三四五')}" if zh else
                            f"Due: {rnd.choice(['Monday', 'Wednesday', 'Friday'])}, {rnd.choice(['Oct', 'Nov', 'Mar'])} {rnd.randint(1, 28)}"), sts, 0.2))
        else:  # workbook
            spec.append((it(f"{subj_zh}同步练习册　第{rnd.randint(1, 20)}课时" if zh else
                            f"{subj_en} Workbook · Unit {rnd.randint(1, 12)}", True), tts, 0))
        tb = render_lines_block(spec, full_w, "title", colour=ink, align="center" if rnd.random() < 0.8 else "left")
        top_blocks.append(("title", tb, 0.6 * em))
        if kind != "textbook" and (kind in ("exam", "homework", "workbook") or rnd.random() < 0.6):
            if zh:
                flds = [("姓名：", 5.5), ("班级：", 5.0), (rnd.choice(["学号：", "考号：", "日期："]), 5.0)]
            else:
                flds = [("Name: ", 8.0), ("Class: ", 5.0), ("Date: ", 6.0)]
            nb = render_lines_block([(name_items(flds), ts.derive(bold=False, ls=0.0), 0)], full_w, "name",
                                    colour=ink, align=rnd.choice(["center", "left"]))
            top_blocks.append(("name", nb, 0.6 * em))
        if kind == "exam" and zh and rnd.random() < 0.6:
            # score table
            cells = ["题号", "一", "二", "三", "四", "总分"]
            cw = 3.2 * em
            th = 1.5 * em
            tw = cw * len(cells)
            img = Image.new("L", (int(full_w), int(2 * th + 0.6 * em)), 0)
            d = ImageDraw.Draw(img)
            x0 = (full_w - tw) / 2
            y0 = 0.3 * em
            tsm = ts.derive(em=em * 0.9, bold=False, ls=0.0)
            for r in range(3):
                d.line([(x0, y0 + r * th), (x0 + tw, y0 + r * th)], fill=255, width=2)
            for c in range(len(cells) + 1):
                d.line([(x0 + c * cw, y0), (x0 + c * cw, y0 + 2 * th)], fill=255, width=2)
            for c, s in enumerate(cells):
                w = items_width(it(s), tsm)
                draw_items(d, it(s), x0 + c * cw + (cw - w) / 2, y0 + 0.5 * th + 0.35 * em, tsm)
            w = items_width(it("得分"), tsm)
            draw_items(d, it("得分"), x0 + (cw - w) / 2, y0 + 1.5 * th + 0.35 * em, tsm)
            sb = Blk(img, "table", ink)
            sb.boxes["text"] = [x0, y0, x0 + tw, y0 + 2 * th]
            top_blocks.append(("table", sb, 0.5 * em))
    elif kind in ("exam", "worksheet") and rnd.random() < 0.5:
        # continuation page: small running header
        s = (f"{grade}年级{subj_zh}试卷" if kind == "exam" else f"{subj_zh}练习") if zh else f"{subj_en} {'Exam' if kind == 'exam' else 'Worksheet'} (continued)"
        rb = render_lines_block([(it(s), sts, 0)], full_w, "running", colour=(100, 100, 100), align=rnd.choice(["left", "right"]))
        top_blocks.append(("running", rb, 0.8 * em))

    footer = None
    if plan["focus"] == "footer" or rnd.random() < 0.7:
        if kind == "textbook":
            fs = f"— {pageno} —" if zh else f"{pageno}"
        elif zh:
            fs = rnd.choice([f"第 {sheet_p} 页（共 4 页）", f"{grade}年级{subj_zh} 第{sheet_p}页 共4页", f"— {sheet_p} —"])
        else:
            fs = rnd.choice([f"Page {sheet_p} of 4", f"- {sheet_p} -", f"{subj_en} · page {sheet_p}"])
        footer = render_lines_block([(it(fs), sts.derive(em=em * 0.85), 0)], full_w, "footer", colour=(60, 60, 60),
                                    align=rnd.choice(["center", "center", "right"]))

    # ---- section headers
    sec_ord0 = 0 if has_title else rnd.randint(0, 2)
    en_sec_style = rnd.choice(["part", "roman", "section"])

    def sec_header(idx, stype):
        r3 = rnd_for(qid, "sec", idx, stype, attempt)
        if kind == "textbook":
            names = (["复习巩固", "综合运用", "拓广探索", "练习", "想一想"] if zh else
                     ["Practice", "Apply", "Extend", "Check your understanding", "Challenge"])
            s = names[(sec_ord0 + idx) % len(names)]
        elif zh:
            s = f"{ZH_ORD[(sec_ord0 + idx) % 8]}、{r3.choice(SEC_ZH[stype])}"
        else:
            t = r3.choice(SEC_EN[stype])
            k = sec_ord0 + idx
            s = {"part": f"Part {'ABCDEFGH'[k % 8]} {t}", "roman": f"{EN_ORD[k % 7]}. {t}",
                 "section": f"Section {k + 1}: {t}"}[en_sec_style]
        b = render_lines_block([(it(s, True), hts, 0)], colw_u, "header", colour=ink if rnd_for(qid, "hc").random() < 0.8 else (20, 60, 140))
        b.info["hdr"] = s
        return scale_block(b, sx)

    # ---- neighbour pool
    pool = neighbour_order(bank, framed_q, lang, rnd)
    pool = [q for q in pool]
    sub_pool = []
    if plan["subq"]:
        # siblings of the framed sub-question: same language as framed, same subject preferably
        sib = [q for q in pool if q["lang"] == framed_q["lang"]][:2]
        sub_pool = sib
        pool = [q for q in pool if q not in sib]
    before_pool = pool[0::2]
    after_pool = pool[1::2]

    n_sub = rnd.randint(2, 3) if plan["subq"] else 0
    sub_pos = rnd.randint(0, n_sub - 1) if n_sub else 0
    sec_len = [rnd.randint(2, 5) for _ in range(12)]
    pF = 0 if plan["focus"] in ("section", "title") else rnd.randint(1, 4)
    other_types = [t for t in sec_types_all if t != ftype]
    rnd.shuffle(other_types)

    def build_seq(nb, na):
        """Sequence of entries around the framed problem."""
        # section boundaries (relative to framed index 0): framed section spans [-pF, qF)
        seq = []
        prob_entries = []
        # before: items B[nb-1] ... B[0]
        rel = []
        for k in range(nb, 0, -1):
            rel.append((-k, before_pool[k - 1]))
        rel.append((0, framed_q))
        for k in range(1, na + 1):
            rel.append((k, after_pool[k - 1]))
        # section index for relative position r
        qF = sec_len[0]

        def sec_of(r):
            if -pF <= r < qF:
                return 0
            if r < -pF:
                # earlier sections
                d = -pF - r
                s = 0
                acc = 0
                while True:
                    s -= 1
                    acc += sec_len[(-s) % 12]
                    if d <= acc:
                        return s
            d = r - qF
            s = 0
            acc = 0
            while True:
                s += 1
                acc += sec_len[(s + 5) % 12]
                if d < acc:
                    return s

        first_sec = sec_of(rel[0][0])
        prev_sec = None
        for r, q in rel:
            s = sec_of(r)
            stype = ftype if s == 0 else other_types[(s % len(other_types))]
            if (prev_sec is None or s != prev_sec) and has_sections:
                if not (prev_sec is None and r != -pF and s == 0 and first_sec == 0 and nb > pF):
                    seq.append({"t": "hdr", "sec": s - first_sec, "stype": stype})
            prev_sec = s
            if r == 0 and plan["subq"]:
                seq.append({"t": "stem", "q": None, "stype": stype})
                sibs = list(sub_pool[: n_sub - 1])
                items = sibs[:sub_pos] + [framed_q] + sibs[sub_pos:]
                for k, sq in enumerate(items):
                    seq.append({"t": "prob", "q": sq, "stype": stype, "sub": k + 1, "framed": sq is framed_q})
            else:
                seq.append({"t": "prob", "q": q, "stype": stype, "sub": 0, "framed": r == 0})
        return seq

    # heights of entries
    hdr_cache = {}

    def entry_block(e):
        if e["t"] == "hdr":
            key = (e["sec"], e["stype"])
            if key not in hdr_cache:
                hdr_cache[key] = sec_header(e["sec"], e["stype"])
            return hdr_cache[key]
        if e["t"] == "stem":
            return None
        return get_block(e["q"], e["stype"], e["sub"] > 0)

    stem_txt = {"zh": ["回答下列问题：", "解答下列各题。", "按要求完成下列各题。"],
                "en": ["Answer the following questions.", "Answer each part.", "Complete parts (a)-(c)."]}
    stem_text = rnd.choice(stem_txt["zh" if (zh and framed_q["lang"] == "zh") or lang == "zh" else "en"])
    stem_blk = render_problem(stem_text, ts, colw_u, dict(slot_w=slot, label_gap=LABEL_GAP.get(numstyle, 0.35),
                                                          hang=hang, own_line=False))
    stem_blk.kind = "stem"

    def eh(e):
        if e["t"] == "stem":
            return stem_blk.h
        b = entry_block(e)
        return b.h

    def gap_before(prev, e):
        if prev is None:
            return 0.0
        if e["t"] == "hdr":
            # keep problems on both sides of a heading at least `gap` apart
            return max(1.1 * em, gap - eh(e) - 0.45 * em) + extra_after(prev)
        if prev["t"] == "hdr":
            return 0.45 * em
        if prev["t"] == "stem":
            return 0.35 * em
        return gap + extra_after(prev)

    def extra_after(prev):
        if prev["t"] == "prob" and prev["stype"] == "solve" and not ans_lines_page:
            return rnd_for(qid, prev["q"]["id"], "space").uniform(2.0, 5.0) * em
        return 0.0

    # vertical extents
    top_y = mt * S
    y = top_y
    top_pos = []
    for name, b, g in top_blocks:
        top_pos.append((name, b, left, y))
        y += b.h + g
    content_top = y + 0.3 * em
    footer_y = Hp - mb * S - (footer.h if footer else 0)
    content_bot = footer_y - 0.6 * em if footer else Hp - mb * S

    def snap(yv):
        if not ruled:
            return yv
        # block baseline0 + 0.25em should sit on a rule at rule0 + j*pitch
        off = 0.35 * em + 0.95 * em + 0.38 * em
        j = math.ceil((yv + off - rule0) / pitch - 1e-6)
        return rule0 + j * pitch - off

    rule0 = content_top + 0.5 * em

    def place(seq, force_break_after_framed):
        res = []
        col = 0
        yv = content_top
        prev = None
        i = 0
        fidx = None
        while i < len(seq):
            e = seq[i]
            h = eh(e)
            g = gap_before(prev, e)
            need = h
            if e["t"] in ("hdr", "stem") and i + 1 < len(seq):
                need = h + gap_before(e, seq[i + 1]) + eh(seq[i + 1])
            if yv + g + need > content_bot:
                if prev is None:  # does not fit even alone
                    return res, fidx
                col += 1
                if col >= ncols:
                    break
                yv = content_top
                prev = None
                continue
            yy = snap(yv + g)
            res.append((i, col, yy))
            if e.get("framed"):
                fidx = len(res) - 1
            yv = yy + h
            prev = e
            i += 1
            if force_break_after_framed and e.get("framed"):
                col += 1
                if col >= ncols:
                    break
                yv = content_top
                prev = None
        return res, fidx

    want_col = 0 if plan["colpos"] == "L" else 1
    focus = plan["focus"]
    max_before = min(len(before_pool), 16)
    max_after = min(len(after_pool), 16)
    cands = []
    for nb in range(0, max_before + 1):
        if focus == "title" and nb > 0:
            break
        if focus == "section" and nb > 0 and nb < pF:
            continue
        seq = build_seq(nb, max_after)
        res, fidx = place(seq, focus == "footer")
        if fidx is None:
            continue
        fi, fcol, fy = res[fidx]
        if fcol != want_col:
            continue
        same_col = [r for r in res if r[1] == fcol and seq[r[0]]["t"] == "prob" and not seq[r[0]].get("framed")]
        above = [r for r in same_col if r[2] < fy]
        below = [r for r in same_col if r[2] > fy]
        if focus == "mid" and (not above or not below):
            continue
        if focus == "footer" and not above:
            continue
        if focus == "section":
            # the header must directly precede framed (or its stem) in the same column
            k = fidx - (1 + (1 + sub_pos) if plan["subq"] else 1)
            if k < 0 or seq[res[k][0]]["t"] != "hdr" or res[k][1] != fcol:
                continue
        if focus == "title":
            if fcol != 0:
                continue
        cands.append((nb, seq, res, fidx))
    if not cands:
        return None
    r4 = rnd_for(qid, "cand", attempt)
    nb, seq, res, fidx = cands[r4.randrange(len(cands))]

    # justify the framed column for footer focus
    offs = {}
    if focus == "footer":
        fcol = res[fidx][1]
        colitems = [k for k, r in enumerate(res) if r[1] == fcol]
        last = res[colitems[-1]]
        endy = last[2] + eh(seq[last[0]])
        spare = content_bot - endy
        ng = max(1, len(colitems) - 1)
        add = min(spare / ng, 3.0 * em)
        if not ruled:
            for j, k in enumerate(colitems):
                offs[k] = add * j

    # ---- numbering
    numbers = {}
    nn = n0
    for i, e in enumerate(seq):
        if e["t"] == "stem" or (e["t"] == "prob" and e["sub"] == 0):
            numbers[i] = nn
            nn += 1

    # ---- compose page image
    pg = Page()
    pg.W, pg.H = Wp, Hp
    paper_col = np.array([255, 255, 255], np.float32)
    img = np.empty((Hp, Wp, 3), np.float32)
    img[:] = paper_col
    pg.ruled = ruled
    if ruled:
        rule_col = np.array([150, 185, 225], np.float32)
        yv = rule0
        while yv < Hp - 8 * S:
            yy = int(round(yv))
            img[yy:yy + 2, int(4 * S):Wp - int(4 * S)] = rule_col
            yv += pitch
        if rnd.random() < 0.6:
            xm = int(left - 4 * S)
            img[:, xm:xm + 2] = np.array([225, 130, 130], np.float32)

    def paste(b, x, y):
        x = int(round(x))
        y = int(round(y))
        for r, c in b.deco:
            x0, y0, x1, y1 = [int(round(v)) for v in (r[0] + x, r[1] + y, r[2] + x, r[3] + y)]
            img[max(0, y0):max(0, y1), max(0, x0):max(0, x1)] = np.array(c, np.float32)
        a = np.asarray(b.img, np.float32) / 255.0
        h, w = a.shape
        h2 = min(h, Hp - y)
        w2 = min(w, Wp - x)
        if h2 <= 0 or w2 <= 0:
            return
        a = a[:h2, :w2, None]
        reg = img[y:y + h2, x:x + w2]
        reg *= (1 - a)
        reg += a * np.array(b.colour, np.float32)

    def absbox(bx, x, y):
        return None if bx is None else [bx[0] + x, bx[1] + y, bx[2] + x, bx[3] + y]

    pg.elements = []   # dicts: type, box, ...
    pg.problems = []
    for name, b, x, y in top_pos:
        paste(b, x, y)
        tb = b.boxes.get("text") or [0, 0, b.w, b.h]
        pg.elements.append({"type": name, "box": absbox(tb, x, y)})
    if footer is not None:
        paste(footer, left, footer_y)
        pg.elements.append({"type": "footer", "box": absbox(footer.boxes["text"], left, footer_y)})
    if ncols == 2 and rnd.random() < 0.5:
        xl = int(left + colw + gutter / 2)
        img[int(content_top):int(content_bot), xl:xl + 2] = np.array([120, 120, 120], np.float32)

    pg.ts = ts
    pg.sx = sx
    pg.ink = ink
    pg.framed = None
    for k, (i, col, yy) in enumerate(res):
        e = seq[i]
        yy = yy + offs.get(k, 0.0)
        x = col_x[col]
        if e["t"] == "hdr":
            b = entry_block(e)
            paste(b, x, yy)
            pg.elements.append({"type": "header", "box": absbox(b.boxes["text"], x, yy), "col": col})
            continue
        if e["t"] == "stem":
            lab = label_text(numstyle, numbers[i], lbl_variant)
            b = scale_block(finalize_label(stem_blk, lab, ts, lbl_bold, lbl_boxed), sx)
            paste(b, x, yy)
            pg.elements.append({"type": "stem", "box": absbox(b.boxes["text"], x, yy), "col": col})
            continue
        b0 = entry_block(e)
        if e["sub"]:
            lab = label_text(sub_style, e["sub"])
            b = finalize_label(b0, lab, ts, False, False)
            lstyle = sub_style
        else:
            lab = label_text(numstyle, numbers[i], lbl_variant)
            b = finalize_label(b0, lab, ts, lbl_bold, lbl_boxed)
            lstyle = numstyle
        b = scale_block(b, sx)
        paste(b, x, yy)
        tbx = absbox(b.boxes["text"], x, yy)
        pr = {"id": e["q"]["id"], "q": e["q"], "text": tbx, "row": [x, tbx[1], x + colw, tbx[3]],
              "full": absbox(b.boxes["full"], x, yy), "outer": absbox(b.boxes["outer"], x, yy), "label": absbox(b.boxes.get("label"), x, yy),
              "col": col, "framed": bool(e.get("framed")), "stype": e["stype"], "x": x, "y": yy,
              "ink": [absbox(v, x, yy) for v in b.info.get("ink_boxes", [])],
              "blk": b, "label_str": lab, "label_style": lstyle, "sub": e["sub"], "seq_i": i}
        pg.problems.append(pr)
        if pr["framed"]:
            pg.framed = pr
    # score note is decided per page for the framed problem only -> re-render framed with score
    pg.col_x, pg.colw, pg.ncols, pg.left, pg.right = col_x, colw, ncols, left, right
    pg.gap = gap
    pg.attempt = attempt
    pg.img = img
    pg.seq = seq
    pg.numstyle = numstyle
    pg.lbl_bold, pg.lbl_boxed, pg.own_line = lbl_bold, lbl_boxed, own_line
    pg.sub_style = sub_style
    pg.kind = kind
    pg.has_sections = has_sections
    return pg


# ----------------------------------------------------------------------------
# pen marks on the page
# ----------------------------------------------------------------------------

def pen_stroke(img, pts, colour, thick):
    p = np.array(pts, np.float64)
    sh = 4
    ip = np.round(p * (1 << sh)).astype(np.int32).reshape(-1, 1, 2)
    col = tuple(float(c) for c in colour)
    cv2.polylines(img, [ip], False, col, int(max(1, round(thick))), cv2.LINE_AA, sh)


def draw_tick(img, cx, cy, size, colour, thick, rnd):
    pts = [(cx - 0.45 * size, cy - 0.05 * size), (cx - 0.1 * size, cy + 0.35 * size),
           (cx + 0.15 * size, cy - 0.05 * size), (cx + 0.55 * size, cy - 0.6 * size)]
    pts = [(x + rnd.uniform(-0.04, 0.04) * size, y + rnd.uniform(-0.04, 0.04) * size) for x, y in pts]
    pen_stroke(img, pts, colour, thick)
    return [cx - 0.5 * size, cy - 0.65 * size, cx + 0.6 * size, cy + 0.4 * size]


def draw_cross(img, cx, cy, size, colour, thick, rnd):
    s = size * 0.45
    j = lambda: rnd.uniform(-0.08, 0.08) * size  # noqa
    pen_stroke(img, [(cx - s + j(), cy - s + j()), (cx + s + j(), cy + s + j())], colour, thick)
    pen_stroke(img, [(cx + s + j(), cy - s + j()), (cx - s + j(), cy + s + j())], colour, thick)
    return [cx - s * 1.2, cy - s * 1.2, cx + s * 1.2, cy + s * 1.2]


def draw_circle_around(img, box, em, colour, thick, rnd):
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    ax = (box[2] - box[0]) / 2 + 0.4 * em
    ay = (box[3] - box[1]) / 2 + 0.3 * em
    a0 = rnd.uniform(0, 2 * math.pi)
    sweep = rnd.uniform(2.0 * math.pi * 0.95, 2.0 * math.pi * 1.12)
    n = 40
    pts = []
    for k in range(n + 1):
        a = a0 + sweep * k / n
        r = 1 + 0.06 * math.sin(3 * a + a0) + 0.03 * (k / n)
        pts.append((cx + ax * r * math.cos(a), cy + ay * r * math.sin(a)))
    pen_stroke(img, pts, colour, thick)
    return [cx - ax * 1.1, cy - ay * 1.1, cx + ax * 1.1, cy + ay * 1.1]


def draw_pen_text(img, s, x, y, size, colour, rnd):
    spec = rnd.choice(ITALIC_PEN)
    f = get_font(spec, size)
    w = int(f.getlength(s) + size)
    h = int(size * 1.6)
    m = Image.new("L", (w, h), 0)
    ImageDraw.Draw(m).text((size * 0.3, size * 1.15), s, font=f, fill=255, anchor="ls")
    m = m.rotate(rnd.uniform(-12, 12), resample=Image.Resampling.BICUBIC, expand=True)
    a = np.asarray(m, np.float32)[..., None] / 255.0
    x0, y0 = int(x), int(y)
    H, W = img.shape[:2]
    hh, ww = a.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + ww > W or y0 + hh > H:
        return None
    reg = img[y0:y0 + hh, x0:x0 + ww]
    reg *= (1 - a * 0.92)
    reg += a * 0.92 * np.array(colour, np.float32)
    return [x0, y0, x0 + ww, y0 + hh]


def add_marks(pg, plan, rnd):
    """Pen marks near the framed problem (and on some neighbours), never on printed ink."""
    marks = []
    img = pg.img
    em = pg.ts.em
    red = rnd.choice([(200, 30, 35), (215, 40, 50), (185, 20, 60)])
    blue = (30, 60, 170)
    thick = max(2.0, em * rnd.uniform(0.07, 0.1))
    F = pg.framed
    taken = []
    for p in pg.problems:
        taken += [b for b in p["ink"] if b is not None]
    for e in pg.elements:
        if e["box"] is not None:
            taken.append(e["box"])

    def free(box):
        pad = 0.15 * em
        if box[0] < 2 * S or box[1] < 2 * S or box[2] > pg.W - 2 * S or box[3] > pg.H - 2 * S:
            return False
        for t in taken:
            if box[0] < t[2] + pad and box[2] > t[0] - pad and box[1] < t[3] + pad and box[3] > t[1] - pad:
                return False
        return True

    def spots(p, w, h):
        blk = p["blk"]
        ends = blk.info["line_ends"]
        out = []
        if ends:
            xe, bl = ends[-1]
            out.append((p["x"] + xe + 0.7 * em + w / 2, p["y"] + bl - 0.35 * em))
            xe0, bl0 = ends[0]
            out.append((p["x"] + xe0 + 0.7 * em + w / 2, p["y"] + bl0 - 0.35 * em))
        tb = p["text"]
        cl = pg.col_x[p["col"]]
        out.append((cl - 0.4 * em - w / 2, (tb[1] + tb[3]) / 2))
        out.append((cl - 0.4 * em - w / 2, tb[1] + 0.5 * em))
        fb = p["full"]
        out.append((cl + pg.colw - w / 2 - 0.3 * em, fb[3] + 0.25 * em + h / 2))
        out.append((tb[2] + 0.6 * em + w / 2, (tb[1] + tb[3]) / 2))
        return out

    def place(p, w, h):
        for c in spots(p, w, h):
            box = [c[0] - w / 2, c[1] - h / 2, c[0] + w / 2, c[1] + h / 2]
            if free(box):
                taken.append(box)
                return c
        return None

    if plan["tickx"] in ("tick", "cross"):
        colr = red if rnd.random() < 0.8 else blue
        sz = (1.4 if plan["tickx"] == "tick" else 1.2) * em
        c = place(F, sz * 1.1, sz * 1.05)
        if c is not None:
            fn = draw_tick if plan["tickx"] == "tick" else draw_cross
            bx = fn(img, c[0], c[1], sz, colr, thick, rnd)
            marks.append({"type": "mark_" + plan["tickx"], "box": bx})
        for p in pg.problems:
            if p is F or rnd.random() < 0.45:
                continue
            good = rnd.random() < 0.7
            sz2 = (1.3 if good else 1.1) * em
            c2 = place(p, sz2 * 1.1, sz2 * 1.05)
            if c2 is not None:
                (draw_tick if good else draw_cross)(img, c2[0], c2[1], sz2, colr, thick, rnd)
    if plan["circle"] and F.get("label") is not None:
        bx = draw_circle_around(img, F["label"], em, red if rnd.random() < 0.6 else blue, thick * 0.8, rnd)
        marks.append({"type": "mark_circled_number", "box": bx})
    if plan["tscore"]:
        s = rnd.choice(["+2", "+3", "-2", "8/10", "4/5", "+5", "6/8", "-1", "10/10", "3/4"])
        size = 1.45 * em
        w = (len(s) * 0.62 + 1.2) * size
        h = 1.9 * size
        c = place(F, w, h)
        if c is not None:
            bx = draw_pen_text(img, s, c[0] - w / 2, c[1] - h / 2, size, red, rnd)
            if bx is not None:
                marks.append({"type": "mark_teacher_score", "box": bx})
    return marks


# ----------------------------------------------------------------------------
# camera geometry
# ----------------------------------------------------------------------------

def box_pts(b, n=4):
    xs = np.linspace(b[0], b[2], n)
    ys = np.linspace(b[1], b[3], n)
    pts = [(x, b[1]) for x in xs] + [(x, b[3]) for x in xs] + [(b[0], y) for y in ys] + [(b[2], y) for y in ys]
    return np.array(pts, np.float64)


class Curl:
    def __init__(self, W, H, kind, amp, side, bamp, x0frac, yfac):
        self.W, self.H, self.kind, self.amp, self.side, self.bamp = W, H, kind, amp, side, bamp
        self.x0 = x0frac * W
        self.yfac = yfac
        xs = np.arange(0, W + 1, dtype=np.float64)
        self.xs = xs
        self.g = self._g(xs)
        self.dx = self._dx(xs)
        self.src_x = xs + self.dx

    def _t(self, x):
        if self.side == "right":
            return np.clip((x - self.x0) / max(1.0, self.W - self.x0), 0, 1)
        return np.clip((self.W - self.x0 - x) / max(1.0, self.W - self.x0), 0, 1)

    def _g(self, x):
        if self.kind == "edge":
            return self._t(x) ** 2
        return np.sin(np.pi * np.clip(x / self.W, 0, 1))

    def _dx(self, x):
        if self.kind == "edge":
            t = self._t(x)
            s = 1 if self.side == "right" else -1
            return s * self.bamp * t ** 3 * (self.W - self.x0)
        return np.zeros_like(x)

    def maps(self):
        W, H = self.W, self.H
        xs = np.arange(W, dtype=np.float32)
        ys = np.arange(H, dtype=np.float32)
        g = self._g(xs.astype(np.float64)).astype(np.float32)
        dx = self._dx(xs.astype(np.float64)).astype(np.float32)
        mx = np.repeat((xs + dx)[None, :], H, axis=0)
        my = ys[:, None] + (g[None, :] * self.amp * (1 - self.yfac + self.yfac * ys[:, None] / H))
        return mx.astype(np.float32), my.astype(np.float32)

    def fwd(self, pts):
        xs_src = pts[:, 0]
        x = np.interp(xs_src, self.src_x, self.xs)
        g = self._g(x)
        a0 = self.amp * (1 - self.yfac)
        a1 = self.amp * self.yfac
        y = (pts[:, 1] - a0 * g) / (1 + a1 * g / self.H)
        return np.stack([x, y], 1)

    def shade(self):
        xs = np.arange(self.W, dtype=np.float64)
        if self.kind == "edge":
            return (1 - 0.22 * self._t(xs) ** 1.5).astype(np.float32)
        return (1 - 0.06 * (1 - np.sin(np.pi * xs / self.W))).astype(np.float32)


def map_pts(Hm, pts, curl):
    p = np.hstack([pts, np.ones((len(pts), 1))]) @ Hm.T
    p = p[:, :2] / p[:, 2:3]
    if curl is not None:
        p = curl.fwd(p)
    return p


def map_box(Hm, b, curl):
    p = map_pts(Hm, box_pts(b), curl)
    return [p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max()]


def make_H(W, H, k, theta_deg, c, persp):
    th = math.radians(theta_deg)
    a, b = k * math.cos(th), -k * math.sin(th)
    cc, d = k * math.sin(th), k * math.cos(th)
    A = np.array([[a, b, W / 2 - (a * c[0] + b * c[1])],
                  [cc, d, H / 2 - (cc * c[0] + d * c[1])],
                  [0, 0, 1]], np.float64)
    if persp is None:
        return A
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    dst = src + np.array(persp, np.float32)
    P = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    # keep the centre fixed
    q = P @ np.array([W / 2, H / 2, 1.0])
    q = q[:2] / q[2]
    T = np.array([[1, 0, W / 2 - q[0]], [0, 1, H / 2 - q[1]], [0, 0, 1]], np.float64)
    return T @ P @ A


def _centre(b):
    return np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2])


DEFS = ("text", "full", "row")


def evaluate(pg, Hm, curl, W, H, marg=0.025):
    """Check the framed problem is fully inside and clearly nearest the centre.

    The rule is checked separately for three definitions of a problem's extent
    (printed text, text plus options/brackets, the full column-wide rows), and
    for neighbours also for the part that is visible in the photo."""
    C = np.array([W / 2, H / 2])
    F = pg.framed
    fx = {key: map_box(Hm, F[key], curl) for key in DEFS}
    fb = map_box(Hm, F["outer"], curl)
    inside = fb[0] >= marg * W and fb[1] >= marg * H and fb[2] <= (1 - marg) * W and fb[3] <= (1 - marg) * H
    dF = {key: float(np.linalg.norm(_centre(b) - C)) for key, b in fx.items() if key != "row"}
    ok_near = True
    worst = 1e9
    vis = []
    for p in pg.problems:
        if p is F:
            continue
        mb = {}
        for key in DEFS:
            b = map_box(Hm, p[key], curl)
            mb[key] = b
            if key == "row":
                # same-column rows must also be clearly apart vertically
                if p["col"] == F["col"]:
                    dy = abs(_centre(b)[1] - C[1]) - abs(_centre(fx["row"])[1] - C[1])
                    worst = min(worst, dy - 0.05 * H)
                    if dy < 0.05 * H:
                        ok_near = False
                continue
            ds = [np.linalg.norm(_centre(b) - C)]
            cb = [max(b[0], 0), max(b[1], 0), min(b[2], W), min(b[3], H)]
            if cb[2] > cb[0] and cb[3] > cb[1]:
                ds.append(np.linalg.norm(_centre(cb) - C))
            d = min(ds)
            need = max(1.6 * dF[key], dF[key] + 0.095 * H)
            worst = min(worst, d - need)
            if d < need:
                ok_near = False
        b = map_box(Hm, p["outer"], curl)
        area = max(1e-6, (b[2] - b[0]) * (b[3] - b[1]))
        ix = max(0, min(b[2], W) - max(b[0], 0)) * max(0, min(b[3], H) - max(b[1], 0))
        vis.append((p, ix / area, b))
    whole_nb = sum(1 for p, f, b in vis if f > 0.97)
    return inside and ok_near, dict(inside=inside, near=ok_near, dF=max(dF.values()), slack=worst, vis=vis,
                                    fbox=fx, whole_nb=whole_nb)


def choose_camera(pg, plan, W, H, rnd):
    """Search a camera pose. Returns (Hm, curl, info, params) or None, plus a hint."""
    F = pg.framed
    em = pg.ts.em
    fb = F["full"]
    tb = F["text"]
    ob = F["outer"]
    bw, bh = ob[2] - ob[0], ob[3] - ob[1]
    scale_ref = min(W, H) / 960.0
    em_read = max(16.0, 16.5 * scale_ref)
    theta_max = rnd.uniform(3.0, 8.0) if plan["rot"] else rnd.uniform(0.0, 2.0)
    theta0 = theta_max * rnd.choice([-1, 1])
    th = math.radians(abs(theta0))
    bw_r = bw * math.cos(th) + bh * math.sin(th)
    bh_r = bh * math.cos(th) + bw * math.sin(th)
    pm = 0.05 + (0.05 if plan["persp"] else 0.0)
    k_fit = min(W * (1 - 2 * pm) / bw_r, H * (1 - 2 * pm) / bh_r)
    k_read = em_read / em
    # camera aim: between the text centre and the row centre, vertically at the block centre
    rb = F["row"]
    mixx = rnd.uniform(0.4, 0.6)
    cF = _centre(tb) * (1 - mixx) + _centre(fb) * mixx
    # page distance needed per definition: k * (d_def - 1.7*off_def) >= ~0.11 H
    eff = 1e9
    for key in ("text", "full"):
        cdef = _centre(F[key])
        off = float(np.linalg.norm(cdef - cF))
        for p in pg.problems:
            if p is F:
                continue
            d = float(np.linalg.norm(_centre(p[key]) - cdef))
            eff = min(eff, d - 1.7 * off)
    eff = max(eff, 1.0)
    if k_fit < k_read:
        return None, {"reason": "fit", "k_fit": k_fit, "k_read": k_read}
    k_nb = 0.115 * H / eff
    em_pref = rnd.uniform(19, 34) * scale_ref
    k_pref = max(em_pref / em, k_read)
    k_cap = min(k_fit, 46 * scale_ref / em)
    if k_nb > k_cap or (k_nb > 1.2 * k_pref and pg.attempt < 3 and rnd.random() < 0.75):
        kk = min(k_cap, k_pref) if k_nb <= k_cap else k_cap
        kk = max(kk, k_read)
        need = 0.115 * H / (kk * 0.95)
        return None, {"reason": "near", "need_extra": need - eff}
    lo = max(k_read, k_nb)
    k = min(max(k_pref, lo), k_fit * rnd.uniform(0.8, 0.97))
    k = max(k, lo)
    curl = None
    for att in range(16):
        shrink = 1.0 - att / 16.0
        theta = theta0 * (shrink if att > 6 else 1.0)
        persp = None
        if plan["persp"]:
            mag = rnd.uniform(0.04, 0.09) * (shrink if att > 6 else 1.0)
            kind = rnd.choice(["top", "bottom", "left", "right"])
            dx, dy = W * mag, H * mag
            z = [[0, 0], [0, 0], [0, 0], [0, 0]]
            if kind == "top":
                z[0] = [dx, 0]; z[1] = [-dx, 0]
            elif kind == "bottom":
                z[3] = [dx, 0]; z[2] = [-dx, 0]
            elif kind == "left":
                z[0] = [0, dy]; z[3] = [0, -dy]
            else:
                z[1] = [0, dy]; z[2] = [0, -dy]
            persp = [[a + rnd.uniform(-0.012, 0.012) * W, b + rnd.uniform(-0.012, 0.012) * H] for a, b in z]
        # offset of the photo centre from the framed problem, in photo px
        omax = (0.05 * H) * (shrink if att > 4 else 1.0)
        slack_x = max(0.0, (W * (1 - 2 * pm) - k * bw_r) / 2)
        slack_y = max(0.0, (H * (1 - 2 * pm) - k * bh_r) / 2)
        ox = rnd.uniform(-1, 1) * min(omax * 1.4, slack_x)
        oy = rnd.uniform(-1, 1) * min(omax, slack_y)
        c = cF + np.array([ox, oy]) / k
        Hm = make_H(W, H, k, theta, c, persp)
        curl = None
        if plan["curl"]:
            ck = rnd.choice(["edge", "edge", "arch"])
            amp = rnd.uniform(0.02, 0.045) * H * rnd.choice([-1, 1]) * (shrink if att > 8 else 1.0)
            curl = Curl(W, H, ck, amp, rnd.choice(["left", "right"]), rnd.uniform(0.03, 0.08),
                        rnd.uniform(0.5, 0.7), rnd.uniform(0.0, 0.6))
        ok, info = evaluate(pg, Hm, curl, W, H)
        if ok and info["whole_nb"] == 0 and att < 10:
            # prefer a pose that shows a whole neighbour: zoom out a bit
            k = max(lo, k * 0.93)
            continue
        if ok:
            return (Hm, curl, info, dict(k=k, theta=theta, persp=persp is not None and plan["persp"], ox=ox, oy=oy)), {}
        if not info["inside"]:
            k = max(lo, k * 0.95)
        elif not info["near"]:
            k = min(k_fit, k * 1.04)
    return None, {"reason": "pose"}


# ----------------------------------------------------------------------------
# photo rendering
# ----------------------------------------------------------------------------

def smooth_noise(rng, H, W, cells, amp):
    g = rng.normal(0, 1, (cells + 2, int(cells * W / H) + 3)).astype(np.float32)
    n = cv2.resize(g, (W, H), interpolation=cv2.INTER_CUBIC)
    return n * amp


def desk_background(rng, rnd, H, W):
    kind = rnd.choice(["wood", "wood", "grey", "dark", "white", "fabric"])
    if kind == "wood":
        base = np.array([rnd.uniform(120, 170), rnd.uniform(80, 115), rnd.uniform(45, 70)], np.float32)
        ang = rnd.uniform(0, math.pi)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        streak = np.sin(u / rnd.uniform(5, 9) + 1.2 * smooth_noise(rng, H, W, 3, 1.0) + v / 900.0)
        f = 1 + 0.05 * streak + 0.03 * np.sin(u / 1.7) + smooth_noise(rng, H, W, 6, 0.05)
        bg = base[None, None, :] * f[..., None]
    elif kind == "fabric":
        base = np.array([rnd.uniform(40, 90), rnd.uniform(50, 90), rnd.uniform(70, 130)], np.float32)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        f = 1 + 0.06 * np.sin(xx / 1.7) * np.sin(yy / 1.9) + smooth_noise(rng, H, W, 5, 0.08)
        bg = base[None, None, :] * f[..., None]
    else:
        v = {"grey": rnd.uniform(110, 160), "dark": rnd.uniform(30, 60), "white": rnd.uniform(200, 230)}[kind]
        tint = np.array([1.0, rnd.uniform(0.97, 1.02), rnd.uniform(0.92, 1.04)], np.float32)
        f = 1 + smooth_noise(rng, H, W, 5, 0.05)
        bg = v * tint[None, None, :] * f[..., None]
    bg += rng.normal(0, 3, bg.shape).astype(np.float32)
    return bg


def finger_layer(rng, rnd, W, H, avoid_mask, kind):
    """Returns (rgb, alpha) of an occluder or None."""
    for attempt in range(40):
        edge = rnd.choice(["left", "right", "bottom", "bottom", "top", "left", "right"])
        md = min(W, H)
        if kind == "finger":
            wid = rnd.uniform(0.12, 0.2) * md
            depth = rnd.uniform(0.12, 0.3) * md
        else:
            wid = rnd.uniform(0.028, 0.045) * md
            depth = rnd.uniform(0.35, 0.9) * md
        ang = rnd.uniform(-35, 35)
        if edge == "left":
            e = np.array([-wid, rnd.uniform(0.1, 0.9) * H]); dirv = np.array([1.0, 0.0])
        elif edge == "right":
            e = np.array([W + wid, rnd.uniform(0.1, 0.9) * H]); dirv = np.array([-1.0, 0.0])
        elif edge == "bottom":
            e = np.array([rnd.uniform(0.1, 0.9) * W, H + wid]); dirv = np.array([0.0, -1.0])
        else:
            e = np.array([rnd.uniform(0.1, 0.9) * W, -wid]); dirv = np.array([0.0, 1.0])
        a = math.radians(ang)
        dirv = np.array([dirv[0] * math.cos(a) - dirv[1] * math.sin(a), dirv[0] * math.sin(a) + dirv[1] * math.cos(a)])
        tip = e + dirv * (depth + wid)
        start = e - dirv * md
        mask = np.zeros((H, W), np.uint8)
        sh = 4
        p0 = tuple(int(v * 16) for v in start)
        p1 = tuple(int(v * 16) for v in tip)
        cv2.line(mask, p0, p1, 255, int(wid), cv2.LINE_AA, sh)
        if kind == "pen":
            # conical tip
            nrm = np.array([-dirv[1], dirv[0]])
            t0 = tip
            t1 = tip + dirv * wid * 1.8
            poly = np.array([t0 + nrm * wid / 2, t0 - nrm * wid / 2, t1], np.float64)
            cv2.fillPoly(mask, [np.round(poly * 16).astype(np.int32)], 255, cv2.LINE_AA, sh)
            cv2.circle(mask, tuple(int(v) for v in t1), max(1, int(wid * 0.12)), 255, -1, cv2.LINE_AA)
        cv2.circle(mask, tuple(int(v * 16) for v in tip), int(wid / 2 * 16), 255, -1, cv2.LINE_AA, sh)
        if (mask[avoid_mask > 0] > 0).any():
            continue
        if mask.sum() < 255 * 0.01 * W * H:
            continue
        # shading by distance from the axis
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        rel_x = xx - start[0]
        rel_y = yy - start[1]
        dist = np.abs(rel_x * (-dirv[1]) + rel_y * dirv[0]) / (wid / 2)
        along = (rel_x * dirv[0] + rel_y * dirv[1])
        if kind == "finger":
            skin = np.array(rnd.choice([(222, 178, 150), (205, 160, 128), (232, 190, 165), (180, 132, 100)]), np.float32)
            skin = skin * rnd.uniform(0.92, 1.05)
            shade = 1.0 - 0.45 * np.clip(dist, 0, 1) ** 2
            rgb = skin[None, None, :] * shade[..., None]
            # nail near the tip
            tip_d = np.linalg.norm(np.stack([xx - tip[0], yy - tip[1]]), axis=0)
            nail = (tip_d < wid * 0.42) & (dist < 0.55) & (along < np.linalg.norm(tip - start) - wid * 0.05)
            rgb[nail] = rgb[nail] * 0.6 + np.array([240, 200, 195], np.float32) * 0.4
            blur = rnd.uniform(4, 9)
        else:
            barrel = np.array(rnd.choice([(30, 50, 140), (20, 20, 25), (180, 30, 30), (230, 230, 235), (40, 120, 60)]), np.float32)
            shade = 0.55 + 0.6 * (1 - np.clip(np.abs(dist - 0.0) * 1.2, 0, 1)) ** 2
            rgb = barrel[None, None, :] * shade[..., None]
            hl = (np.abs(dist + 0.35) < 0.12)
            rgb[hl] = rgb[hl] * 0.4 + 230 * 0.6
            tipzone = along > np.linalg.norm(tip - start) - wid * 0.05
            rgb[tipzone] = np.array([190, 190, 180], np.float32) * shade[tipzone][:, None]
            blur = rnd.uniform(1.0, 3.0)
        alpha = cv2.GaussianBlur(mask.astype(np.float32) / 255.0, (0, 0), blur)
        rgb = cv2.GaussianBlur(rgb.astype(np.float32), (0, 0), blur * 0.6)
        # soft shadow next to it
        sh_off = (np.array([rnd.uniform(-1, 1), rnd.uniform(0.3, 1)]) * wid * 0.35).astype(np.float32)
        M = np.float32([[1, 0, sh_off[0]], [0, 1, sh_off[1]]])
        shadow = cv2.warpAffine(alpha, M, (W, H))
        shadow = cv2.GaussianBlur(shadow, (0, 0), wid * 0.25)
        return rgb, alpha, shadow
    return None


def render_photo(pg, plan, Hm, curl, W, H, rnd, rng, avoid_poly):
    kinds = set()
    screen = plan["screen"]
    # crop region of the page that is visible
    Hinv = np.linalg.inv(Hm)
    corners = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float64)
    pad = 0.12
    corners = corners + np.array([[-pad * W, -pad * H], [pad * W, -pad * H], [pad * W, pad * H], [-pad * W, pad * H]])
    pc = np.hstack([corners, np.ones((4, 1))]) @ Hinv.T
    pc = pc[:, :2] / pc[:, 2:3]
    x0, y0 = np.floor(pc.min(0)).astype(int)
    x1, y1 = np.ceil(pc.max(0)).astype(int)
    x0, y0 = max(x0, -200), max(y0, -200)
    x1, y1 = min(x1, pg.W + 200), min(y1, pg.H + 200)
    cw, ch = x1 - x0, y1 - y0
    crop = np.zeros((ch, cw, 3), np.float32)
    cmask = np.zeros((ch, cw), np.float32)
    sx0, sy0 = max(0, x0), max(0, y0)
    sx1, sy1 = min(pg.W, x1), min(pg.H, y1)
    crop[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = pg.img[sy0:sy1, sx0:sx1]
    cmask[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = 1.0
    T = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
    Hc = Hm @ T
    kscale = math.sqrt(abs(np.linalg.det(Hm[:2, :2])))
    if kscale < 0.95:
        f = kscale * 1.05
        nw, nh = max(2, int(round(cw * f))), max(2, int(round(ch * f)))
        crop = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA)
        cmask = cv2.resize(cmask, (nw, nh), interpolation=cv2.INTER_AREA)
        Sm = np.array([[cw / nw, 0, 0], [0, ch / nh, 0], [0, 0, 1]], np.float64)
        Hc = Hc @ Sm
    warped = cv2.warpPerspective(crop, Hc, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    mask = cv2.warpPerspective(cmask, Hc, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    mask = np.clip(mask, 0, 1)
    if (mask < 0.5).mean() > 0.02:
        kinds.add("page_edge_visible")

    if screen:
        # page shown on a screen: backlit white, lifted blacks, sub-pixel grid -> moire
        kinds.add("screen_moire")
        white = np.array([rnd.uniform(225, 245), rnd.uniform(232, 250), 255], np.float32)
        black = np.array([28, 30, 36], np.float32)
        lum = warped / 255.0
        photo = black + lum * (white - black)
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float64)
        pts = np.stack([xx.ravel(), yy.ravel(), np.ones(xx.size)], 1) @ Hinv.T
        u = (pts[:, 0] / pts[:, 2]).reshape(H, W)
        v = (pts[:, 1] / pts[:, 2]).reshape(H, W)
        k_ = kscale
        per_photo = rnd.choice([rnd.uniform(0.82, 0.96), rnd.uniform(1.05, 1.22)])
        per = per_photo / k_
        amp = rnd.uniform(0.05, 0.1)
        for chn in range(3):
            ph = 2 * math.pi * chn / 3
            g = 0.5 + 0.5 * np.cos(2 * math.pi * u / per - ph)
            photo[..., chn] *= (1 - amp + amp * 2 * g).astype(np.float32)
        rows = 0.92 + 0.08 * np.cos(2 * math.pi * v / per)
        photo *= rows[..., None].astype(np.float32)
        bg = np.zeros((H, W, 3), np.float32) + np.array([12, 12, 14], np.float32)
        photo = photo * mask[..., None] + bg * (1 - mask[..., None])
        # glare
        gx, gy = rnd.uniform(0, W), rnd.uniform(0, H)
        r = np.sqrt((xx - gx) ** 2 + (yy - gy) ** 2) / max(W, H)
        photo += (40 * np.exp(-(r / rnd.uniform(0.2, 0.45)) ** 2))[..., None].astype(np.float32)
        photo = cv2.GaussianBlur(photo, (0, 0), rnd.uniform(0.55, 0.8))
    else:
        bg = desk_background(rng, rnd, H, W)
        # drop shadow of the page onto the desk
        sh = cv2.GaussianBlur(mask, (0, 0), rnd.uniform(6, 14))
        M = np.float32([[1, 0, rnd.uniform(-6, 10)], [0, 1, rnd.uniform(2, 12)]])
        sh = cv2.warpAffine(sh, M, (W, H))
        bg *= (1 - 0.45 * sh)[..., None]
        paper = warped
        tint = np.array([rnd.uniform(0.95, 1.0), rnd.uniform(0.94, 0.99), rnd.uniform(0.86, 0.97)], np.float32)
        paper = paper * tint
        if plan["ptex"]:
            kinds.add("paper_texture")
            tex = 1 + smooth_noise(rng, H, W, 10, rnd.uniform(0.008, 0.016)) + smooth_noise(rng, H, W, 60, 0.008)
            paper = paper * tex[..., None]
            fib = np.zeros((H, W), np.float32)
            for _ in range(int(rnd.uniform(40, 120) * W * H / 1.2e6)):
                x, y = rnd.uniform(0, W), rnd.uniform(0, H)
                L = rnd.uniform(6, 25)
                a = rnd.uniform(0, math.pi)
                pts = [(x + t * L * math.cos(a) + rnd.uniform(-1.5, 1.5), y + t * L * math.sin(a) + rnd.uniform(-1.5, 1.5)) for t in (0, 0.33, 0.66, 1)]
                cv2.polylines(fib, [np.round(np.array(pts) * 16).astype(np.int32)], False, 1.0, 1, cv2.LINE_AA, 4)
            paper = paper * (1 - 0.08 * fib)[..., None]
            paper += rng.normal(0, 2.5, paper.shape).astype(np.float32)
        photo = paper * mask[..., None] + bg * (1 - mask[..., None])
        if curl is not None:
            kinds.add("page_curl")
            mx, my = curl.maps()
            photo = cv2.remap(photo, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
            photo *= curl.shade()[None, :, None]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    if plan["uneven"]:
        kinds.add("uneven_light")
        gx, gy = rnd.uniform(-1, 1), rnd.uniform(-1, 1)
        lin = 1 + rnd.uniform(0.12, 0.25) * ((xx / W - 0.5) * gx + (yy / H - 0.5) * gy) * 2
        cx, cy = rnd.uniform(0.2, 0.8) * W, rnd.uniform(0.2, 0.8) * H
        rr = np.sqrt(((xx - cx) / W) ** 2 + ((yy - cy) / H) ** 2)
        light = lin * (1.04 - rnd.uniform(0.15, 0.3) * rr ** 2 * 2)
        photo *= light[..., None]
    else:
        rr = np.sqrt(((xx - W / 2) / W) ** 2 + ((yy - H / 2) / H) ** 2)
        photo *= (1 - 0.08 * rr ** 2 * 2)[..., None]
    if plan["shadow"]:
        kinds.add("shadow")
        m = np.zeros((H, W), np.float32)
        side = rnd.choice(["left", "right", "top", "bottom", "corner"])
        cxp, cyp = {"left": (0, rnd.uniform(0, H)), "right": (W, rnd.uniform(0, H)),
                    "top": (rnd.uniform(0, W), 0), "bottom": (rnd.uniform(0, W), H),
                    "corner": (rnd.choice([0, W]), rnd.choice([0, H]))}[side]
        n = 9
        pts = []
        R0 = rnd.uniform(0.3, 0.6) * max(W, H)
        for kk in range(n):
            a = 2 * math.pi * kk / n
            rr_ = R0 * rnd.uniform(0.7, 1.2)
            pts.append((cxp + rr_ * math.cos(a), cyp + rr_ * math.sin(a)))
        cv2.fillPoly(m, [np.round(np.array(pts)).astype(np.int32)], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rnd.uniform(0.03, 0.07) * max(W, H))
        dark = rnd.uniform(0.28, 0.42)
        photo *= (1 - dark * m)[..., None] * np.array([1.0, 1.0, 1.0 + 0.05 * dark], np.float32)[None, None, :]
    # occluder
    if plan["occl"] != "none":
        lay = finger_layer(rng, rnd, W, H, avoid_poly, plan["occl"])
        if lay is not None:
            rgb, alpha, shadow = lay
            photo *= (1 - 0.35 * shadow)[..., None]
            photo = photo * (1 - alpha[..., None]) + rgb * alpha[..., None]
            kinds.add("occlusion_" + plan["occl"])
    # white balance / exposure
    wb = np.array([rnd.uniform(0.96, 1.04), 1.0, rnd.uniform(0.93, 1.05)], np.float32)
    photo = photo * wb * rnd.uniform(0.95, 1.06)
    if plan["blur"]:
        kinds.add("blur")
        if rnd.random() < 0.5:
            photo = cv2.GaussianBlur(photo, (0, 0), rnd.uniform(0.9, 1.5))
        else:
            L = rnd.randint(4, 7)
            kern = np.zeros((L, L), np.float32)
            a = rnd.uniform(0, math.pi)
            c = (L - 1) / 2
            cv2.line(kern, (int(round(c - c * math.cos(a))), int(round(c - c * math.sin(a)))),
                     (int(round(c + c * math.cos(a))), int(round(c + c * math.sin(a)))), 1.0, 1)
            kern /= kern.sum()
            photo = cv2.filter2D(photo, -1, kern)
    else:
        photo = cv2.GaussianBlur(photo, (0, 0), rnd.uniform(0.35, 0.6))
    sigma = rnd.uniform(4.0, 7.0) if plan["jpegn"] else rnd.uniform(1.2, 2.8)
    photo += rng.normal(0, sigma, photo.shape).astype(np.float32)
    out = np.clip(photo + 0.5, 0, 255).astype(np.uint8)
    im = Image.fromarray(out, "RGB")
    if plan["jpegn"]:
        kinds.add("jpeg_noise")
        import io
        buf = io.BytesIO()
        im.save(buf, "JPEG", quality=rnd.randint(22, 38))
        buf.seek(0)
        im = Image.open(buf).convert("RGB")
        q = rnd.randint(68, 80)
    else:
        q = rnd.randint(84, 93)
    return im, q, kinds


# ----------------------------------------------------------------------------
# one photo
# ----------------------------------------------------------------------------

def make_one(args):
    plan, bank_path, out_dir = args
    bank = load_bank(bank_path)
    by_id = {q["id"]: q for q in bank}
    qid = plan["qid"]
    W, H = plan["size"]
    hint = {}
    result = None
    for attempt in range(8):
        pg = build_page(plan, by_id, bank, attempt, hint)
        if pg is None or pg.framed is None:
            hint["gap"] = hint.get("gap", 0) * 0.8
            continue
        rnd = rnd_for(qid, "cam", attempt)
        res, why = choose_camera(pg, plan, W, H, rnd)
        if res is None:
            if why.get("reason") == "near":
                hint["gap"] = pg.gap + why["need_extra"] * 1.15 + pg.ts.em * 0.3
            elif why.get("reason") == "pose":
                hint["gap"] = max(pg.gap, pg.ts.em * 2.0) * 1.25
            continue
        result = (pg, res, attempt)
        break
    if result is None:
        raise RuntimeError(f"{qid}: no valid layout/camera")
    pg, (Hm, curl, info, cam), attempt = result
    rnd = rnd_for(qid, "marks", attempt)
    marks = add_marks(pg, plan, rnd)
    # avoid mask for occluders: framed problem region (+ margin)
    F = pg.framed
    em = pg.ts.em
    b = F["outer"]
    b = [b[0] - 0.6 * em, b[1] - 0.5 * em, b[2] + 0.6 * em, b[3] + 0.5 * em]
    poly = map_pts(Hm, box_pts(b, 6), curl)
    avoid = np.zeros((H, W), np.uint8)
    hull = cv2.convexHull(np.round(poly).astype(np.int32))
    cv2.fillConvexPoly(avoid, hull, 255)
    rnd2 = rnd_for(qid, "photo", attempt)
    rng = nrng_for(qid, "photo", attempt)
    im, q, pkinds = render_photo(pg, plan, Hm, curl, W, H, rnd2, rng, avoid)
    path = os.path.join(out_dir, f"{qid}.jpg")
    im.save(path, "JPEG", quality=q, optimize=False, progressive=False, subsampling=2 if q < 90 else 0)

    # ---------------- kinds
    kinds = set(pkinds)
    kinds.add("page_" + pg.kind)
    kinds.add("two_column" if pg.ncols == 2 else "one_column")
    if pg.ncols == 2:
        kinds.add("framed_left_column" if F["col"] == 0 else "framed_right_column")
    kinds.add("lang_" + plan["lang"])
    nm = {"dot": "num_dot", "dun": "num_dunhao", "paren": "num_paren", "fparen": "num_fullwidth_paren",
          "circled": "num_circled", "di_ti": "num_di_ti", "q": "num_q", "question": "num_question",
          "exercise": "num_exercise", "rparen": "num_rparen", "sub_a": "num_rparen", "sub_pa": "num_paren"}
    kinds.add(nm[F["label_style"]])
    if F["sub"]:
        kinds.add("sub_question")
    else:
        if pg.lbl_bold:
            kinds.add("num_bold")
        if pg.lbl_boxed:
            kinds.add("num_boxed")
        if pg.own_line:
            kinds.add("num_own_line")

    def visible(box, frac=0.6):
        if box is None:
            return False
        mb = map_box(Hm, box, curl)
        area = max(1e-6, (mb[2] - mb[0]) * (mb[3] - mb[1]))
        ix = max(0, min(mb[2], W) - max(mb[0], 0)) * max(0, min(mb[3], H) - max(mb[1], 0))
        return ix / area >= frac

    for e in pg.elements:
        if e["box"] is None or not visible(e["box"], 0.5):
            continue
        t = e["type"]
        if t == "header":
            kinds.add("header_section")
        elif t == "title":
            kinds.add("page_title")
        elif t == "name":
            kinds.add("name_class_date")
        elif t == "footer":
            kinds.add("page_footer")
        elif t == "running":
            kinds.add("running_header")
        elif t == "table":
            kinds.add("score_table")
    P = F["blk"].info.get("P", {})
    if P.get("score"):
        kinds.add("score_note")
    for m in marks:
        if visible(m["box"], 0.5):
            kinds.add(m["type"])
    if P.get("tail", "").startswith("bracket"):
        kinds.add("answer_bracket")
    if P.get("options"):
        kinds.add("mc_options")
    if "___" in F["q"]["question"]:
        kinds.add("blank_in_text")
        kinds.add("blank_line" if P.get("blank_mode") == "line" else "blank_underscores")
    if P.get("tail") == "blank_line":
        kinds.add("blank_line")
    if P.get("tail") == "blank_us":
        kinds.add("blank_underscores")
    if P.get("answer_lines"):
        kinds.add("answer_lines")
    qt = F["q"]["question"]
    if any(c in SUP for c in qt):
        kinds.add("superscript")
    if any(c in SUB for c in qt):
        kinds.add("subscript")
    nl = F["blk"].info["n_lines"]
    if nl >= 2:
        kinds.add("long_wrapped")
    elif len(qt) <= 16:
        kinds.add("short")
    ts = pg.ts
    kinds.add("font_" + ts.fam)
    if ts.bold:
        kinds.add("font_bold")
    if plan["psize"] != "normal":
        kinds.add("print_" + plan["psize"])
    if ts.ls > 0:
        kinds.add("letter_spacing")
    if pg.ruled:
        kinds.add("ruled_paper")
    if cam["persp"]:
        kinds.add("perspective")
    if abs(cam["theta"]) >= 2.5:
        kinds.add("rotation")
    kinds.add(f"size_{W}x{H}")
    # neighbours
    for p, frac, mb in info["vis"]:
        if frac <= 0.02:
            continue
        if frac < 0.97:
            kinds.add("neighbour_cut")
        if p["col"] != F["col"]:
            kinds.add("neighbour_other_column")
        elif p["y"] < F["y"]:
            kinds.add("neighbour_above")
        else:
            kinds.add("neighbour_below")
    fb = info["fbox"]["text"]
    vis_ids = sorted(p["id"] for p, frac, mb in info["vis"] if frac > 0.02)
    meta = {"qid": qid, "bank_id": plan["bank_id"], "kinds": sorted(kinds),
            "box": [int(round(v)) for v in fb], "label": F["label_str"], "visible_ids": vis_ids}
    if os.environ.get("PHOTOS_DEBUG"):
        meta["debug"] = dict(attempt=attempt, em_px=round(cam["k"] * pg.ts.em, 1), dF=round(info["dF"], 1),
                             slack=round(info["slack"], 1), gap_em=round(pg.gap / pg.ts.em, 2))
    return meta


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bank", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("out_dir")
    ap.add_argument("qids", nargs="*")
    a = ap.parse_args(argv)
    bank = load_bank(a.bank)
    by_id = {q["id"]: q for q in bank}
    plans = build_plan(bank)
    qids = a.qids or sorted(plans)
    bad = [q for q in qids if q not in plans]
    if bad:
        ap.error(f"unknown qids: {bad}")
    os.makedirs(a.out_dir, exist_ok=True)
    t0 = time.time()
    jobs = [(plans[q], a.bank, a.out_dir) for q in qids]
    metas = {}
    if a.jobs <= 1:
        for j in jobs:
            m = make_one(j)
            metas[m["qid"]] = m
    else:
        with ProcessPoolExecutor(max_workers=a.jobs) as ex:
            for m in ex.map(make_one, jobs, chunksize=1):
                metas[m["qid"]] = m
    order = sorted(metas)
    with open(os.path.join(a.out_dir, "truth.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["qid", "text"])
        for q in order:
            w.writerow([q, by_id[plans[q]["bank_id"]]["question"]])
    with open(os.path.join(a.out_dir, "queries.csv"), "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["qid", "query", "expected_id", "kind"])
        for q in order:
            bid = plans[q]["bank_id"]
            w.writerow([q, by_id[bid]["question"], bid, "exact"])
    with open(os.path.join(a.out_dir, "meta.jsonl"), "w", encoding="utf-8") as f:
        for q in order:
            f.write(json.dumps(metas[q], ensure_ascii=False) + "\n")
    print(f"made {len(order)} photos in {time.time() - t0:.1f}s -> {a.out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
