#!/usr/bin/env python3
"""Check a photo set written by make_photos.py.

Usage: check.py OUTDIR [--bank BANK]
Verifies: every qid in truth/queries/cases has a readable JPEG of sane size,
truth text == bank question for expected_id, queries consistent, framed quad
inside the photo; prints a summary of the case columns. Exits 1 on error.
"""
import collections
import csv
import json
import os
import sys

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.join(HERE, "..", "..", "appliance", "data", "demo_bank.jsonl")
SUMMARY_COLS = ["subject", "q_lang", "page_lang", "n_lines", "family", "num_style", "answer_space", "filled",
                "crossed_out", "teacher_mark", "extra", "tinted_box", "layout", "neighbours", "holder", "shadow", "cast",
                "blur", "rotation", "tilt", "zoom", "position", "size_src", "block_complete"]


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def main():
    args = sys.argv[1:]
    bank_path = DEFAULT_BANK
    if "--bank" in args:
        k = args.index("--bank")
        bank_path = args[k + 1]
        del args[k:k + 2]
    if len(args) != 1:
        print(__doc__)
        return 2
    out = args[0]
    bank = {}
    with open(bank_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                e = json.loads(line)
                bank[e["id"]] = e
    errs = []
    truth = read(os.path.join(out, "truth.csv"))
    queries = read(os.path.join(out, "queries.csv"))
    cases = read(os.path.join(out, "cases.csv"))
    if not truth:
        errs.append("truth.csv empty")
    tq = {r["qid"]: r["text"] for r in truth}
    qq = {r["qid"]: r for r in queries}
    cc = {r["qid"]: r for r in cases}
    if set(tq) != set(qq) or set(tq) != set(cc):
        errs.append("qid sets differ between truth/queries/cases")
    jpgs = sorted(f[:-4] for f in os.listdir(out) if f.startswith("wb") and f.endswith(".jpg"))
    if set(jpgs) != set(tq):
        errs.append(f"jpg set differs from truth qids: extra={sorted(set(jpgs) - set(tq))[:5]} missing={sorted(set(tq) - set(jpgs))[:5]}")
    for qid, text in tq.items():
        q = qq.get(qid)
        c = cc.get(qid)
        if q is None or c is None:
            continue
        eid = q["expected_id"]
        if eid not in bank:
            errs.append(f"{qid}: expected_id {eid} not in bank")
            continue
        if text != bank[eid]["question"]:
            errs.append(f"{qid}: truth != bank question of {eid}")
        if q["query"] != text or q["kind"] != "exact":
            errs.append(f"{qid}: query row inconsistent")
        if c.get("expected_id") != eid:
            errs.append(f"{qid}: cases expected_id mismatch")
        if c.get("truth_ok") not in (None, "1"):
            errs.append(f"{qid}: printed lines do not reproduce the question")
        p = os.path.join(out, qid + ".jpg")
        if not os.path.exists(p):
            continue
        try:
            im = Image.open(p)
            im.load()
        except Exception as ex:  # noqa: BLE001
            errs.append(f"{qid}: unreadable jpg ({ex})")
            continue
        W, H = im.size
        if im.format != "JPEG" or not (640 <= max(W, H) <= 4096 and 480 <= min(W, H)):
            errs.append(f"{qid}: odd image {im.format} {W}x{H}")
        if (str(W), str(H)) != (c["width"], c["height"]):
            errs.append(f"{qid}: size {W}x{H} != cases {c['width']}x{c['height']}")
        quad = np.array(c["framed_quad"].split(), float).reshape(4, 2)
        if quad[:, 0].min() < 0 or quad[:, 1].min() < 0 or quad[:, 0].max() > W or quad[:, 1].max() > H:
            errs.append(f"{qid}: framed quad outside photo")
        # projective centre of the quad = intersection of its diagonals
        p0, p1, p2, p3 = quad
        d1, d2 = p2 - p0, p3 - p1
        den = d1[0] * (-d2[1]) - d1[1] * (-d2[0])
        if abs(den) > 1e-9:
            t = ((p1 - p0)[0] * (-d2[1]) - (p1 - p0)[1] * (-d2[0])) / den
            cen = p0 + t * d1
        else:
            cen = quad.mean(0)
        cx, cy = cen[0] / W - 0.5, cen[1] / H - 0.5
        if abs(cx - float(c["centre_dx"])) > 0.05 or abs(cy - float(c["centre_dy"])) > 0.05:
            errs.append(f"{qid}: centre_dx/dy disagree with framed_quad")
        a = np.array(im.convert("L"), np.float32)
        if a.std() < 8:
            errs.append(f"{qid}: nearly flat image")
    # summary
    n = len(cases)
    print(f"{out}: {n} photos, {len(set(r['expected_id'] for r in queries))} distinct bank questions")
    for col in SUMMARY_COLS:
        if cases and col in cases[0]:
            cnt = collections.Counter(r[col] or "-" for r in cases)
            print(f"  {col:15s} " + ", ".join(f"{k}:{v}" for k, v in sorted(cnt.items(), key=lambda kv: -kv[1])))
    if cases:
        dx = np.array([abs(float(r["centre_dx"])) for r in cases])
        dy = np.array([abs(float(r["centre_dy"])) for r in cases])
        off = np.maximum(dx, dy)
        print(f"  centre offset   <=3%: {(off <= 0.03).sum()}, 3-8%: {((off > 0.03) & (off <= 0.08)).sum()}, >8%: {(off > 0.08).sum()}, max {off.max():.3f}")
        tp = np.array([float(r["text_px"]) for r in cases])
        print(f"  text_px         min {tp.min():.1f}, median {np.median(tp):.1f}, max {tp.max():.1f}")
        wf = np.array([float(r["framed_w_frac"]) for r in cases])
        print(f"  framed_w_frac   min {wf.min():.2f}, median {np.median(wf):.2f}, max {wf.max():.2f}")
        sizes = collections.Counter(f"{r['width']}x{r['height']}" for r in cases)
        print("  photo sizes     " + ", ".join(f"{k}:{v}" for k, v in sizes.most_common()))
        jq = [int(r["jpeg_q"]) for r in cases]
        print(f"  jpeg_q          {min(jq)}..{max(jq)}")
    for e in errs[:50]:
        print("ERROR", e)
    print("OK" if not errs else f"{len(errs)} error(s)")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
