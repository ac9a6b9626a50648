#!/usr/bin/env python3
"""Checker for the photos_tune23 set.  Prints PASS or FAIL (with the reasons).

usage: check.py OUT --bank BANK [--count 120] [--seed 241] [--remake 3,17] [--no-remake]
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

import numpy as np
import cv2
from PIL import Image

cv2.setNumThreads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # keep the test folder to its three files
import make_photos as MP  # noqa: E402  (plan, kind names, minimum counts)

ALLOWED_SIZES = {(1280, 960), (960, 1280), (1600, 1200)}
OBJ_TYPES = {"ruler", "pencil", "pen", "calculator", "eraser", "sticky_note"}
FRAMING = {"close": (2, 3), "medium": (4, 7), "far": (8, 10 ** 6)}
LABEL_STYLES = ["1.", "1．", "(1)", "（1）", "【1】", "Q1", "第1题"]

STD_LUMA = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
            14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
            49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]


def jpeg_quality(path):
    """estimate the libjpeg quality setting from the luminance quantisation table."""
    with Image.open(path) as im:
        q = getattr(im, "quantization", None)
        if not q:
            return None
        tab = list(q[0])
    tot = sum(tab)
    best, be = None, None
    for qq in range(1, 101):
        sc = 5000 / qq if qq < 50 else 200 - 2 * qq
        t = [min(255, max(1, int((v * sc + 50) // 100))) for v in STD_LUMA]
        e = abs(sum(t) - tot)
        if be is None or e < be:
            best, be = qq, e
    return best


def point_in_poly(pt, poly):
    return cv2.pointPolygonTest(np.asarray(poly, np.float32).reshape(-1, 1, 2), (float(pt[0]), float(pt[1])), False) >= 0


def poly_mask(poly, W, H):
    m = np.zeros((H, W), np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(poly, float) * 4).astype(np.int32)], 1, cv2.LINE_8, 2)
    return m


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=241)
    ap.add_argument("--remake", default="3,17")
    ap.add_argument("--no-remake", action="store_true")
    a = ap.parse_args()
    out = a.out
    errors = []
    warn = []

    def err(msg):
        if len(errors) < 400:
            errors.append(msg)

    bank = MP.load_bank(a.bank)
    n = a.count
    qids = ["j%03d" % i for i in range(1, n + 1)]
    # ---------------- files present
    for name in ["truth.csv", "queries.csv", "meta.jsonl"]:
        if not os.path.isfile(os.path.join(out, name)):
            err("missing " + name)
    for q in qids:
        if not os.path.isfile(os.path.join(out, q + ".jpg")):
            err("missing %s.jpg" % q)
    if errors:
        print("FAIL")
        for e in errors:
            print("  -", e)
        sys.exit(1)
    truth = read_csv(os.path.join(out, "truth.csv"))
    queries = read_csv(os.path.join(out, "queries.csv"))
    if truth[0] != ["qid", "text"]:
        err("truth.csv header %r" % truth[0])
    if queries[0] != ["qid", "query", "expected_id", "kind"]:
        err("queries.csv header %r" % queries[0])
    truth_rows = {r[0]: r for r in truth[1:]}
    query_rows = {r[0]: r for r in queries[1:]}
    metas = {}
    with open(os.path.join(out, "meta.jsonl"), encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                m = json.loads(line)
                metas[m["qid"]] = m
    for name, rows in (("truth.csv", truth_rows), ("queries.csv", query_rows), ("meta.jsonl", metas)):
        if sorted(rows) != qids:
            err("%s rows are not exactly j001..j%03d (%d rows)" % (name, n, len(rows)))
    if [r[0] for r in truth[1:]] != sorted(r[0] for r in truth[1:]):
        err("truth.csv not sorted by qid")

    kind_counts = Counter()
    framed_use = Counter()
    langs = Counter()
    nlines = Counter()
    label_styles = Counter()
    columns = Counter()
    framing_counts = Counter()
    nb_above_below = 0
    desk_textures = Counter()
    obj_types = Counter()
    bend_variants = Counter()
    furn_types = Counter()
    sheet_modes = Counter()
    hand_or_shadow = Counter()
    near_edge = 0
    for i, q in enumerate(qids, start=1):
        m = metas.get(q)
        if m is None:
            continue
        P = MP.plan(i, bank)
        # ---------------- truth / queries
        bid = m["bank_id"]
        if bid not in bank:
            err("%s: bank id %s not in bank" % (q, bid))
            continue
        text = bank[bid]
        tr = truth_rows.get(q)
        if not tr or tr[1] != text:
            err("%s: truth text differs from bank question" % q)
        qr = query_rows.get(q)
        if not qr or qr[1] != text or qr[2] != bid or qr[3] != "exact":
            err("%s: queries row wrong: %r" % (q, qr))
        if m["text"] != text:
            err("%s: meta text differs from bank" % q)
        # ---------------- plan
        if m["kinds"] != P["kinds"] or m["bank_id"] != P["bank_id"] or m["framing"] != P["framing"] or m["lang"] != P["lang"] \
                or list(m["size"]) != list(P["size"]):
            err("%s: meta does not follow the plan" % q)
        for k in m["kinds"]:
            kind_counts[k] += 1
        framed_use[bid] += 1
        langs[m["lang"]] += 1
        # ---------------- image
        path = os.path.join(out, q + ".jpg")
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            err("%s: unreadable jpg" % q)
            continue
        H, W = img.shape[:2]
        if (W, H) not in ALLOWED_SIZES or [W, H] != list(m["size"]):
            err("%s: size %dx%d (meta %s)" % (q, W, H, m["size"]))
        jq = jpeg_quality(path)
        if not (60 <= m["jpeg_quality"] <= 92) or jq is None or abs(jq - m["jpeg_quality"]) > 2:
            err("%s: jpeg quality meta %s estimated %s" % (q, m["jpeg_quality"], jq))
        # ---------------- centre on framed printed text
        c = m["centre"]
        if abs(c[0] - W / 2) > 0.01 or abs(c[1] - H / 2) > 0.01:
            err("%s: centre %s is not the image centre" % (q, c))
        fr = m["framed"]
        if not any(point_in_poly(c, lq) for lq in fr["line_quads"]):
            err("%s: image centre not on a framed text line" % q)
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
        r = int(max(4, 0.45 * fr["char_height_px"]))
        patch = gray[int(H / 2) - r:int(H / 2) + r + 1, int(W / 2) - r:int(W / 2) + r + 1]
        if patch.size == 0 or float(np.percentile(patch, 95) - np.percentile(patch, 3)) < 35:
            err("%s: no ink contrast at the image centre" % q)
        # ---------------- framed problem inside and uncovered
        fq = np.array(fr["quad"], float)
        if fq[:, 0].min() < 2 or fq[:, 1].min() < 2 or fq[:, 0].max() > W - 2 or fq[:, 1].max() > H - 2:
            err("%s: framed problem not entirely inside the photo" % q)
        if not (1 <= fr["n_lines"] <= 4) or len(fr["line_quads"]) != fr["n_lines"]:
            err("%s: framed problem has %s lines" % (q, fr["n_lines"]))
        nlines[fr["n_lines"]] += 1
        fmask = poly_mask(fq, W, H)
        for oc in m["occluders"]:
            om = poly_mask(oc["poly"], W, H)
            if (om & fmask).any():
                err("%s: %s covers the framed problem" % (q, oc["what"]))
        # ---------------- layout facts
        lay = m["layout"]
        label_styles[lay["label_style"]] += 1
        columns[lay["columns"]] += 1
        if lay["label_style"] not in LABEL_STYLES:
            err("%s: unknown label style %s" % (q, lay["label_style"]))
        lo, hi = FRAMING[m["framing"]]
        if not (lo <= m["visible_problems"] <= hi):
            err("%s: %s framing but %d problems visible" % (q, m["framing"], m["visible_problems"]))
        framing_counts[m["framing"]] += 1
        rels = {nb["relation"] for nb in m["neighbours"] if nb["inside_frac"] > 0}
        if "above" in rels or "below" in rels:
            nb_above_below += 1
        for nb in m["neighbours"]:
            if nb["bank_id"] == bid:
                err("%s: framed question repeated as a neighbour" % q)
        # ---------------- kinds: evidence present exactly for the planned kinds
        ks = set(m["kinds"])
        d = m["desk"]
        if 1 in ks:
            desk_textures[d["texture"]] += 1
            if d["fraction"] < 0.02 or not (1 <= len(d["sides"]) <= 2) or not d["page_corners_in_view"]:
                err("%s: kind 1 but desk %s sides %s corners %s" % (q, d["fraction"], d["sides"], d["page_corners_in_view"]))
            pg = lay["page_size_px"]
            H_ = np.array(m["camera"]["homography_page_to_photo"])
            fpts = cv2.perspectiveTransform(fq.reshape(-1, 1, 2), np.linalg.inv(H_)).reshape(-1, 2)
            if fpts[:, 1].min() < 0.3 * pg[1] or fpts[:, 1].max() > 0.7 * pg[1]:
                near_edge += 1
        elif d["fraction"] > 0:
            err("%s: desk visible (%.3f) but kind 1 not planned" % (q, d["fraction"]))
        if 2 in ks:
            if not m["objects"]:
                err("%s: kind 2 without objects" % q)
            if not any(o["over_neighbours"] for o in m["objects"]):
                err("%s: no object over a neighbouring problem" % q)
            for o in m["objects"]:
                obj_types[o["type"]] += 1
                if o["type"] not in OBJ_TYPES or not o["text"].strip():
                    err("%s: bad object %s" % (q, o["type"]))
                if poly_mask(o["quad"], W, H).sum() == 0:
                    err("%s: object %s not in view" % (q, o["type"]))
        elif m["objects"]:
            err("%s: objects but kind 2 not planned" % q)
        sh = m["second_sheet"]
        if 3 in ks:
            if not sh:
                err("%s: kind 3 without second sheet" % q)
            else:
                sheet_modes[sh["mode"]] += 1
                if not (5 - 1e-6 <= abs(sh["angle_deg"]) <= 25 + 1e-6):
                    err("%s: second sheet angle %s" % (q, sh["angle_deg"]))
                if not sh["problems"] or any(p["bank_id"] not in bank for p in sh["problems"]):
                    err("%s: second sheet without bank problems in view" % q)
                if sh["mode"] == "under" and 1 not in ks:
                    err("%s: sheet under page without desk" % q)
        elif sh:
            err("%s: second sheet but kind 3 not planned" % q)
        if 4 in ks:
            if not m["bend"] or m["bend"]["variant"] not in ("spine", "curl", "crease"):
                err("%s: kind 4 without bend/crease" % q)
            else:
                bend_variants[m["bend"]["variant"]] += 1
        elif m["bend"]:
            err("%s: bend but kind 4 not planned" % q)
        if 5 in ks:
            if not m["hand"] and not m["shadows"]:
                err("%s: kind 5 without hand or shadow" % q)
            if m["hand"]:
                hand_or_shadow["hand_" + m["hand"]["mode"]] += 1
                if not m["hand"]["covers_neighbours"]:
                    err("%s: hand covers no neighbouring line" % q)
            for s_ in m["shadows"]:
                hand_or_shadow[s_["type"]] += 1
        elif m["hand"] or m["shadows"]:
            err("%s: hand/shadow but kind 5 not planned" % q)
        if 6 in ks:
            if not m["furniture"] or not any(f_["inside_frac"] >= 0.5 for f_ in m["furniture"]):
                err("%s: kind 6 without page furniture in view" % q)
            for f_ in m["furniture"]:
                furn_types[f_["type"]] += 1
                if (poly_mask(f_["quad"], W, H) & fmask).sum() > 0.02 * fmask.sum():
                    err("%s: furniture %s overlaps the framed problem" % (q, f_["type"]))
        elif m["furniture"]:
            err("%s: furniture but kind 6 not planned" % q)
    # ---------------- set-level checks
    plan_counts = Counter()
    for i in range(1, n + 1):
        for k in MP.plan_kinds(i):
            plan_counts[k] += 1
    if kind_counts != plan_counts:
        err("kind counts %s differ from the plan %s" % (dict(kind_counts), dict(plan_counts)))
    if n >= 120:
        for k, mn in MP.MIN_COUNTS.items():
            if kind_counts[k] < mn:
                err("kind %d has %d photos (< %d)" % (k, kind_counts[k], mn))
        zh_share = langs["zh"] / max(1, n)
        if not (0.6 <= zh_share <= 0.8):
            err("Chinese share %.2f not about 70%%" % zh_share)
        for v in (1, 2, 3, 4):
            if nlines[v] < 3:
                err("only %d framed problems with %d lines" % (nlines[v], v))
        for st in LABEL_STYLES:
            if label_styles[st] == 0:
                err("label style %s never used" % st)
        if columns[1] == 0 or columns[2] == 0:
            err("one- and two-column pages not both present")
        for fc in FRAMING:
            if framing_counts[fc] < 15:
                err("framing %s only %d photos" % (fc, framing_counts[fc]))
        if nb_above_below < 0.8 * n:
            err("a neighbour above/below is in view in only %d photos" % nb_above_below)
        if near_edge < 10:
            err("framed problem near the page top/bottom in only %d desk photos" % near_edge)
        for t in OBJ_TYPES:
            if obj_types[t] == 0:
                err("object %s never used" % t)
        for t in ("wood", "plain", "cloth"):
            if desk_textures[t] == 0:
                err("desk texture %s never used" % t)
    over = {b: c for b, c in framed_use.items() if c > 3}
    if over:
        err("bank questions framed more than 3 times: %s" % over)
    # ---------------- README counts
    readme = os.path.join(HERE, "README.md")
    if os.path.isfile(readme) and n == 120:
        txt = open(readme, encoding="utf-8").read()
        for k in range(1, 7):
            mm = re.search(r"^\|\s*%d\s*\|[^|\n]*\|\s*(\d+)\s*\|" % k, txt, re.M)
            if not mm or int(mm.group(1)) != kind_counts[k]:
                err("README count for kind %d does not match (%s vs %d)" % (k, mm and mm.group(1), kind_counts[k]))
    # ---------------- remake two photos with --only: byte-identical
    if not a.no_remake and not errors:
        ids = [int(x) for x in a.remake.split(",") if x.strip()]
        tmp = tempfile.mkdtemp(prefix="tune23_chk_")
        try:
            dst = os.path.join(tmp, "out")
            shutil.copytree(out, dst)
            names = ["j%03d" % i for i in ids]
            for nm in names:
                os.remove(os.path.join(dst, nm + ".jpg"))
            for fn in ("truth.csv", "queries.csv"):
                rows = read_csv(os.path.join(dst, fn))
                s = io.StringIO()
                w = csv.writer(s, lineterminator="\n")
                for r in rows:
                    if r and r[0] not in names:
                        w.writerow(r)
                open(os.path.join(dst, fn), "w", encoding="utf-8", newline="").write(s.getvalue())
            with open(os.path.join(dst, "meta.jsonl"), encoding="utf-8") as fh:
                keep = [l for l in fh if json.loads(l)["qid"] not in names]
            open(os.path.join(dst, "meta.jsonl"), "w", encoding="utf-8").writelines(keep)
            cmd = [sys.executable, os.path.join(HERE, "make_photos.py"), "--bank", a.bank, dst, "--count", str(n),
                   "--seed", str(a.seed), "--jobs", "2", "--only", ",".join(str(i) for i in ids)]
            rr = subprocess.run(cmd, capture_output=True, text=True)
            if rr.returncode != 0:
                err("remake failed: " + rr.stderr[-500:])
            else:
                for fn in sorted(os.listdir(out)):
                    p1, p2 = os.path.join(out, fn), os.path.join(dst, fn)
                    if not os.path.isfile(p1):
                        continue
                    if not os.path.isfile(p2) or open(p1, "rb").read() != open(p2, "rb").read():
                        err("remake with --only %s: %s differs" % (a.remake, fn))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    # ---------------- report
    print("photos: %d  kinds: %s" % (n, ", ".join("%d=%d" % (k, kind_counts[k]) for k in range(1, 7))))
    print("lang: %s  framing: %s  lines: %s" % (dict(langs), dict(framing_counts), dict(sorted(nlines.items()))))
    print("label styles: %s  columns: %s" % (dict(label_styles), dict(columns)))
    print("objects: %s  desk: %s  sheet: %s" % (dict(obj_types), dict(desk_textures), dict(sheet_modes)))
    print("bend: %s  hand/shadow: %s  furniture: %s" % (dict(bend_variants), dict(hand_or_shadow), dict(furn_types)))
    print("max framed uses of one question: %d; neighbour above/below in view: %d/%d; desk photos with framed near top/bottom: %d"
          % (max(framed_use.values()) if framed_use else 0, nb_above_below, n, near_edge))
    if errors:
        print("FAIL")
        for e in errors:
            print("  -", e)
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
