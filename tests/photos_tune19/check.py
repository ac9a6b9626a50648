#!/usr/bin/env python3
"""Validate a photo set made by make_photos.py.

Usage:
    check.py OUT_DIR --bank BANK [--regen 2] [--no-coverage]

Re-computes every framing promise from the stored polygons with its own geometry code
(plain numpy; no OpenCV, nothing imported from make_photos.py), checks the CSV files
against the bank, checks the JPEG files (size, format, quality from the quantisation
tables), looks for printed ink inside the framed problem's hull, and remakes a few photos
with --only to confirm byte-for-byte reproducibility. Prints PASS or FAIL.
"""
import argparse
import collections
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageDraw

# the promises (must match README.md)
EDGE_MARGIN_FRAC = 0.03
CLAIM_MARGIN_FRAC = 0.05
CLAIM_MARGIN_LINES = 1.0
CENTROID_MARGIN_FRAC = 0.02
CENTROID_FACTOR = 1.15
OCCLUDER_PAD_FRAC = 0.03
FAR_MIN_OTHERS = 8
INVIEW_FRAC = 0.5
CLOSE_LINE_FRAC = 0.045
CLOSE_WIDTH_FRAC = 0.7
CLOSE_LINE_FRAC2 = 0.038
OFFCENTRE_FRAC = 0.12
ALLOWED_SIZES = {(1280, 960), (960, 1280), (1600, 1200), (1200, 1600), (2000, 1500), (1500, 2000)}
MAX_ROT_DEG = 6.0
JPEG_Q = (60, 92)

# kinds that a full set (>= 100 photos) must show at least MIN_KIND times
REQUIRED_KINDS = [
    "problems_boxed", "problems_ruled", "seen_figure", "seen_table", "seen_answer_ruled", "seen_answer_dotted",
    "seen_answer_box", "seen_answer_da_line", "marks_column", "seen_marks_column_visible", "seen_instructions_line",
    "seen_section_heading", "seen_page_header", "seen_page_footer", "seen_school_name", "seen_name_class_date",
    "seen_worked_example", "seen_hint_line", "label_none", "target_sub_label", "spacing_tight", "spacing_normal",
    "spacing_generous", "two_column", "one_column", "gutter_narrow", "gutter_medium", "gutter_wide",
    "wide_left_margin", "mark_tick", "mark_cross", "mark_circled_number", "mark_highlighter", "mark_underline",
    "mark_scribble", "frame_close", "frame_medium", "frame_far", "off_centre", "rotated", "perspective",
    "page_curl", "page_bend", "uneven_light", "shadow", "blur", "noise", "jpeg_low", "occluder_finger",
    "occluder_pen", "moire", "size_large", "portrait", "landscape", "bilingual_page", "monolingual_page",
    "page_worksheet", "page_exam", "page_textbook", "page_homework", "neighbour_other_column_visible",
    "problems_cut_by_edge", "target_figure_beside", "target_figure_under", "target_hint_line",
    "target_options", "seen_score_inline", "lang_zh", "lang_en",
]
MIN_KIND = 3

# ---------------------------------------------------------------------------- geometry (own code)


def pip(pt, P):
    """point in polygon by ray casting (boundary counts as inside up to float noise)."""
    x, y = pt
    inside = False
    n = len(P)
    for i in range(n):
        x1, y1 = P[i]
        x2, y2 = P[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            xi = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if xi > x:
                inside = not inside
    return inside


def seg_dist(p, a, b):
    p, a, b = np.asarray(p, float), np.asarray(a, float), np.asarray(b, float)
    ab = b - a
    L = float(ab @ ab)
    t = 0.0 if L == 0 else max(0.0, min(1.0, float((p - a) @ ab) / L))
    return float(np.hypot(*(a + t * ab - p)))


def pt_poly_dist(pt, P):
    if pip(pt, P):
        return 0.0
    return min(seg_dist(pt, P[i], P[(i + 1) % len(P)]) for i in range(len(P)))


def segs_intersect(a, b, c, d):
    def orient(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    return (o1 * o2 < 0) and (o3 * o4 < 0)


def poly_poly_dist(A, B):
    for i in range(len(A)):
        for j in range(len(B)):
            if segs_intersect(A[i], A[(i + 1) % len(A)], B[j], B[(j + 1) % len(B)]):
                return 0.0
    if pip(A[0], B) or pip(B[0], A):
        return 0.0
    d = min(pt_poly_dist(p, B) for p in A)
    return min(d, min(pt_poly_dist(p, A) for p in B))


def area(P):
    P = np.asarray(P, float)
    if len(P) < 3:
        return 0.0
    x, y = P[:, 0], P[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def centroid(P):
    P = np.asarray(P, float)
    x, y = P[:, 0], P[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cr = x * y1 - x1 * y
    a = cr.sum() / 2.0
    if abs(a) < 1e-9:
        return P.mean(0)
    return np.array([((x + x1) * cr).sum() / (6 * a), ((y + y1) * cr).sum() / (6 * a)])


def clip_rect(P, W, H):
    poly = [tuple(map(float, p)) for p in P]
    for axis, val, keep_ge in [(0, 0.0, True), (0, float(W), False), (1, 0.0, True), (1, float(H), False)]:
        out = []
        n = len(poly)
        if n == 0:
            break
        for i in range(n):
            a, b = poly[i - 1], poly[i]
            ina = a[axis] >= val if keep_ge else a[axis] <= val
            inb = b[axis] >= val if keep_ge else b[axis] <= val
            if inb:
                if not ina:
                    t = (val - a[axis]) / (b[axis] - a[axis])
                    out.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
                out.append(b)
            elif ina:
                t = (val - a[axis]) / (b[axis] - a[axis])
                out.append((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])))
        poly = out
    return poly


def vis_frac(P, W, H):
    a = area(P)
    return area(clip_rect(P, W, H)) / a if a > 0 else 0.0


def quad_line_height(q):
    q = np.asarray(q, float)
    top = (q[0] + q[1]) / 2
    bot = (q[2] + q[3]) / 2
    return float(np.hypot(*(bot - top)))


def jpeg_quality(im):
    """Estimate the libjpeg quality setting from the luminance quantisation table."""
    base = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
            14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
            49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
    q = getattr(im, "quantization", None)
    if not q or 0 not in q:
        return None
    tab = sorted(list(q[0]))
    for qual in range(1, 101):
        sc = 5000 // qual if qual < 50 else 200 - 2 * qual
        t = sorted(min(255, max(1, (b * sc + 50) // 100)) for b in base)
        if t == tab:
            return qual
    return None


# ---------------------------------------------------------------------------- line breaking
CLOSE_PUNCT = set("，。、；：？！）》」』】〕”’,.;:?!)]}%°℃…·～")
OPEN_PUNCT = set("（《「『【〔“‘([{")


def cjkish(c):
    o = ord(c)
    return (0x4E00 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF or 0x2460 <= o <= 0x2473
            or c in "“”‘’…—")


def line_break_errors(question, lines):
    """The printed lines must rebuild the question exactly; breaks only at spaces or next to Chinese
    characters; no line starts with closing punctuation or ends with opening punctuation."""
    errs = []
    pos = 0
    for i, ln in enumerate(lines):
        if not ln or ln != ln.strip(" "):
            errs.append("line %d empty or padded: %r" % (i, ln))
        if i > 0:
            if ln and ln[0] in CLOSE_PUNCT:
                errs.append("line %d starts with closing punctuation %r" % (i, ln[0]))
            if pos < len(question) and question[pos] == " ":
                pos += 1
            elif not (cjkish(question[pos - 1]) or (pos < len(question) and cjkish(question[pos]))):
                errs.append("line %d splits a word at %r|%r" % (i, question[pos - 1], question[pos:pos + 1]))
        if i < len(lines) - 1 and ln and ln[-1] in OPEN_PUNCT:
            errs.append("line %d ends with opening punctuation" % i)
        if not question.startswith(ln, pos):
            errs.append("line %d %r does not continue the question at %d" % (i, ln, pos))
            return errs
        pos += len(ln)
    if pos != len(question):
        errs.append("printed lines stop at %d of %d characters" % (pos, len(question)))
    return errs


# ---------------------------------------------------------------------------- main checks
class Report:
    def __init__(self):
        self.errors = []
        self.notes = []

    def err(self, qid, msg):
        self.errors.append("%s: %s" % (qid, msg))

    def note(self, msg):
        self.notes.append(msg)


def lang_of(t):
    return "zh" if re.search(r"[\u4e00-\u9fff]", t) else "en"


def check_csvs(out, metas, bank, rep):
    with open(os.path.join(out, "truth.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != ["qid", "text"]:
        rep.err("truth.csv", "header is %r, want ['qid', 'text']" % (rows[0] if rows else None))
    truth = {r[0]: r[1] for r in rows[1:] if len(r) == 2}
    if len(rows) - 1 != len(metas) or len(truth) != len(metas):
        rep.err("truth.csv", "%d rows for %d photos" % (len(rows) - 1, len(metas)))
    with open(os.path.join(out, "queries.csv"), encoding="utf-8", newline="") as f:
        qrows = list(csv.reader(f))
    if not qrows or qrows[0] != ["qid", "query", "expected_id", "kind"]:
        rep.err("queries.csv", "header is %r" % (qrows[0] if qrows else None))
    queries = {r[0]: r for r in qrows[1:] if len(r) == 4}
    if len(qrows) - 1 != len(metas) or len(queries) != len(metas):
        rep.err("queries.csv", "%d rows for %d photos" % (len(qrows) - 1, len(metas)))
    order_t = [r[0] for r in rows[1:]]
    if order_t != sorted(order_t):
        rep.err("truth.csv", "rows not in qid order")
    for m in metas:
        qid = m["qid"]
        want = bank.get(m["bank_id"])
        if want is None:
            rep.err(qid, "bank_id %s not in bank" % m["bank_id"])
            continue
        if truth.get(qid) != want:
            rep.err(qid, "truth text differs from bank question")
        q = queries.get(qid)
        if q is None:
            rep.err(qid, "missing from queries.csv")
        else:
            if q[1] != want or q[2] != m["bank_id"] or q[3] != "exact":
                rep.err(qid, "queries.csv row wrong: %r" % (q,))
            if bank.get(q[2]) != q[1]:
                rep.err(qid, "query text is not the bank question of expected_id")


def check_photo(out, m, bank, rep, stats):
    qid = m["qid"]
    W, H = m["width"], m["height"]
    S = min(W, H)
    C = (W / 2.0, H / 2.0)
    if not re.fullmatch(r"n\d{3}", qid) or m["file"] != qid + ".jpg":
        rep.err(qid, "bad qid/file naming %s %s" % (qid, m["file"]))
    if (W, H) not in ALLOWED_SIZES:
        rep.err(qid, "size %dx%d not promised" % (W, H))
    path = os.path.join(out, m["file"])
    if not os.path.exists(path):
        rep.err(qid, "image missing")
        return
    im = Image.open(path)
    if im.format != "JPEG":
        rep.err(qid, "not a JPEG")
    if im.size != (W, H):
        rep.err(qid, "image is %s, meta says %dx%d" % (im.size, W, H))
    q = jpeg_quality(im)
    if q is None or q != m["jpeg_quality"] or not (JPEG_Q[0] <= q <= JPEG_Q[1]):
        rep.err(qid, "JPEG quality estimated %s, meta %s" % (q, m["jpeg_quality"]))
    fr = m["framing"]
    t = m["target"]
    for rec in [t] + m["others"]:
        if rec["bank_id"] in bank:
            for e in line_break_errors(bank[rec["bank_id"]], rec["line_texts"]):
                rep.err(qid, "%s: %s" % (rec["bank_id"], e))
        if len(rec["line_texts"]) != len(rec["line_quads"]):
            rep.err(qid, "%s: %d printed lines but %d line quads" % (rec["bank_id"], len(rec["line_texts"]),
                                                                     len(rec["line_quads"])))
    stats["lines"] += len(t["line_texts"])
    stats["multi_line_targets"] += len(t["line_texts"]) > 1
    hull = np.array(t["hull"], float)
    em = EDGE_MARGIN_FRAC * S
    pts = hull if not t.get("label_hull") else np.concatenate([hull, np.array(t["label_hull"], float)])
    if pts[:, 0].min() < em - 0.01 or pts[:, 1].min() < em - 0.01 or pts[:, 0].max() > W - em + 0.01 \
            or pts[:, 1].max() > H - em + 0.01:
        rep.err(qid, "target text/label not wholly inside the photo with the edge margin")
    if not pip(C, hull) and pt_poly_dist(C, hull) > 0.05:
        rep.err(qid, "image centre is not inside the target text hull")
    # hull must contain its own line quads (tolerance for rounding)
    for qd in t["line_quads"]:
        for p in qd:
            if not pip(p, hull) and pt_poly_dist(p, hull) > 1.5:
                rep.err(qid, "target line quad corner outside hull")
                break
    lh = float(np.mean([quad_line_height(qd) for qd in t["line_quads"]]))
    if abs(lh - t["line_height_px"]) > 0.6:
        rep.err(qid, "line height recomputed %.2f vs stored %.2f" % (lh, t["line_height_px"]))
    M = max(CLAIM_MARGIN_FRAC * S, CLAIM_MARGIN_LINES * lh)
    if abs(M - fr["claim_margin_px"]) > 0.6:
        rep.err(qid, "claim margin recomputed %.2f vs stored %.2f" % (M, fr["claim_margin_px"]))
    tc = float(np.hypot(*(centroid(hull) - np.array(C))))
    ids = [t["bank_id"]]
    n_inview = 0
    min_d = None
    for o in m["others"]:
        P = np.array(o["hull"], float)
        d = pt_poly_dist(C, P)
        if o.get("label_hull"):
            d = min(d, pt_poly_dist(C, np.array(o["label_hull"], float)))
        if abs(d - o["centre_dist"]) > 0.6:
            rep.err(qid, "centre distance of %s recomputed %.2f vs stored %.2f" % (o["bank_id"], d, o["centre_dist"]))
        if d < M - 0.05:
            rep.err(qid, "%s is %.1f px from the centre (< claim margin %.1f)" % (o["bank_id"], d, M))
        oc = float(np.hypot(*(centroid(P) - np.array(C))))
        if oc < CENTROID_FACTOR * tc + CENTROID_MARGIN_FRAC * S - 0.05:
            rep.err(qid, "%s hull centroid %.1f px from centre vs target %.1f (needs >= %.2f x + %.1f)"
                    % (o["bank_id"], oc, tc, CENTROID_FACTOR, CENTROID_MARGIN_FRAC * S))
        vf = vis_frac(P, W, H)
        if abs(vf - o["visible_fraction"]) > 0.01:
            rep.err(qid, "visible fraction of %s recomputed %.3f vs %.3f" % (o["bank_id"], vf, o["visible_fraction"]))
        if (vf >= INVIEW_FRAC) != o["in_view"] and abs(vf - INVIEW_FRAC) > 0.01:
            rep.err(qid, "in_view flag of %s inconsistent" % o["bank_id"])
        n_inview += vf >= INVIEW_FRAC
        ids.append(o["bank_id"])
        if o["bank_id"] not in bank:
            rep.err(qid, "other problem %s not in bank" % o["bank_id"])
        min_d = d if min_d is None else min(min_d, d)
        if vf > 0:
            stats["others_visible"] += 1
    if len(ids) != len(set(ids)):
        rep.err(qid, "a question appears twice on the page")
    # occluders never over the framed problem
    for ocl in m["occluders"]:
        if poly_poly_dist(np.array(ocl["poly"], float), hull) < OCCLUDER_PAD_FRAC * S - 0.05:
            rep.err(qid, "occluder %s within %.1f px of the target" % (ocl["kind"], OCCLUDER_PAD_FRAC * S))
    # tags that follow from the geometry
    kinds = set(m["kinds"])
    want_far = n_inview >= FAR_MIN_OTHERS
    bw = hull[:, 0].max() - hull[:, 0].min()
    want_close = (not want_far) and (lh >= CLOSE_LINE_FRAC * S or
                                     (bw >= CLOSE_WIDTH_FRAC * W and lh >= CLOSE_LINE_FRAC2 * S))
    for tag, want in [("frame_far", want_far), ("frame_close", want_close),
                      ("frame_medium", not want_far and not want_close),
                      ("off_centre", tc >= OFFCENTRE_FRAC * S),
                      ("landscape", W > H), ("portrait", H > W), ("size_large", max(W, H) > 1280),
                      ("jpeg_low", m["jpeg_quality"] <= 70),
                      ("occluder_finger", any(o["kind"] == "finger" for o in m["occluders"])),
                      ("occluder_pen", any(o["kind"] == "pen" for o in m["occluders"])),
                      ("rotated", abs(m["camera"]["rotation_deg"]) >= 2.0),
                      ("moire", bool(m["effects"]["screen_moire"]))]:
        if (tag in kinds) != bool(want):
            rep.err(qid, "tag %s is %s but geometry/effects say %s" % (tag, tag in kinds, want))
    if abs(m["camera"]["rotation_deg"]) > MAX_ROT_DEG + 1e-6:
        rep.err(qid, "rotation %.2f > %.1f" % (m["camera"]["rotation_deg"], MAX_ROT_DEG))
    # languages on the page
    tl = lang_of(bank[t["bank_id"]])
    langs = set(lang_of(bank[i]) for i in ids if i in bank)
    if m["lang"] != tl:
        rep.err(qid, "lang field %s but question is %s" % (m["lang"], tl))
    if "bilingual_page" in kinds:
        stats["bilingual"] += 1
        if langs != {"zh", "en"}:
            rep.err(qid, "bilingual page without both languages")
    else:
        stats["mono"] += 1
        if langs != {tl}:
            rep.err(qid, "monolingual page holds a question in another language")
    # printed ink inside the framed problem's hull
    g = np.asarray(im.convert("L"), np.float32)
    mask = Image.new("L", (W, H), 0)
    ImageDraw.Draw(mask).polygon([tuple(p) for p in hull], fill=255)
    vals = g[np.asarray(mask) > 0]
    if vals.size < 50:
        rep.err(qid, "target hull covers almost no pixels")
    else:
        contrast = float(np.percentile(vals, 97) - np.percentile(vals, 3))
        stats["contrast"].append(contrast)
        if contrast < 35:
            rep.err(qid, "little ink contrast inside the target hull (%.1f)" % contrast)
    stats["min_other_dist"].append((min_d if min_d is not None else 1e9) / S)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--regen", type=int, default=2, help="photos to remake with --only and compare (0 = skip)")
    ap.add_argument("--no-coverage", action="store_true", help="skip the kind-coverage check")
    a = ap.parse_args()
    rep = Report()
    bank = {}
    with open(a.bank, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                bank[r["id"]] = r["question"]
    out = a.out_dir
    metas = []
    mpath = os.path.join(out, "meta.jsonl")
    if not os.path.exists(mpath):
        print("FAIL: no meta.jsonl")
        sys.exit(1)
    with open(mpath, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            if line.strip():
                try:
                    metas.append(json.loads(line))
                except ValueError:
                    rep.err("meta.jsonl", "line %d is not JSON" % ln)
    need = ["qid", "file", "bank_id", "width", "height", "target", "others", "kinds", "framing", "fonts",
            "jpeg_quality", "camera", "effects", "occluders", "marks", "page", "index", "seed"]
    for m in metas:
        miss = [k for k in need if k not in m]
        if miss:
            rep.err(m.get("qid", "?"), "meta lacks %s" % miss)
    metas = [m for m in metas if all(k in m for k in need)]
    qids = [m["qid"] for m in metas]
    if len(set(qids)) != len(qids):
        rep.err("meta.jsonl", "duplicate qids")
    idx = sorted(m["index"] for m in metas)
    if idx != list(range(1, len(idx) + 1)):
        rep.note("photo numbers are not 1..N (a partial --only set?)")
    check_csvs(out, metas, bank, rep)
    stats = dict(others_visible=0, bilingual=0, mono=0, contrast=[], min_other_dist=[], lines=0,
                 multi_line_targets=0)
    kinds = collections.Counter()
    for m in metas:
        check_photo(out, m, bank, rep, stats)
        kinds.update(m["kinds"])
    jpgs = sorted(f for f in os.listdir(out) if f.endswith(".jpg"))
    if jpgs != sorted(m["file"] for m in metas):
        rep.err(out, "JPEG files on disk do not match meta rows")
    n = len(metas)
    if n >= 100:
        mono = stats["mono"] / n
        if not (0.75 <= mono <= 0.95):
            rep.err(out, "monolingual share %.2f outside 0.75..0.95 (promised about 0.85)" % mono)
        if not a.no_coverage:
            for k in REQUIRED_KINDS:
                if kinds[k] < MIN_KIND:
                    rep.err(out, "kind %s appears %d times (< %d)" % (k, kinds[k], MIN_KIND))
        labels = [k for k in kinds if k.startswith("label_")]
        if len(labels) < 8:
            rep.err(out, "only %d label styles" % len(labels))
    # reproducibility
    if a.regen > 0 and metas:
        here = os.path.dirname(os.path.abspath(__file__))
        picks = sorted(set([metas[0]["index"], metas[len(metas) // 2]["index"], metas[-1]["index"]]))[:a.regen]
        seed = metas[0]["seed"]
        byq = {m["index"]: m for m in metas}
        with tempfile.TemporaryDirectory() as td:
            cmd = [sys.executable, os.path.join(here, "make_photos.py"), "--bank", a.bank, td,
                   "--seed", str(seed), "--only", ",".join(map(str, picks))]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                rep.err("regen", "make_photos.py failed: %s" % r.stderr[-500:])
            else:
                new = {}
                with open(os.path.join(td, "meta.jsonl"), encoding="utf-8") as f:
                    for line in f:
                        mm = json.loads(line)
                        new[mm["index"]] = mm
                for i in picks:
                    fa = os.path.join(out, byq[i]["file"])
                    fb = os.path.join(td, byq[i]["file"])
                    if open(fa, "rb").read() != open(fb, "rb").read():
                        rep.err(byq[i]["qid"], "regenerated JPEG differs byte-wise")
                    if new.get(i) != byq[i]:
                        rep.err(byq[i]["qid"], "regenerated meta row differs")
                rep.note("regenerated %s: identical" % picks if not any("regenerated" in e for e in rep.errors)
                         else "regeneration mismatch")
    # summary
    print("photos: %d   monolingual pages: %d   bilingual pages: %d" % (n, stats["mono"], stats["bilingual"]))
    if stats["contrast"]:
        print("ink contrast inside target hull: min %.1f  median %.1f" %
              (min(stats["contrast"]), float(np.median(stats["contrast"]))))
    if stats["min_other_dist"]:
        print("nearest other problem / short side: min %.3f  median %.3f" %
              (min(stats["min_other_dist"]), float(np.median(stats["min_other_dist"]))))
    print("framed problems printed on more than one line: %d" % stats["multi_line_targets"])
    print("other problems at least partly visible: %d (%.1f per photo)" %
          (stats["others_visible"], stats["others_visible"] / max(1, n)))
    print("kind counts:")
    for k, v in sorted(kinds.items()):
        print("  %-40s %d" % (k, v))
    for nt in rep.notes:
        print("note:", nt)
    if rep.errors:
        for e in rep.errors[:60]:
            print("ERROR", e)
        if len(rep.errors) > 60:
            print("... %d more" % (len(rep.errors) - 60))
        print("FAIL (%d problems)" % len(rep.errors))
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
