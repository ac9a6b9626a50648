#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Sanity checks for a photos_tune41 output folder.

  .venv/bin/python tests/photos_tune41/check.py --bank appliance/data/demo_bank.jsonl OUT_DIR \
      [--count 120] [--manifest M.jsonl] [--sheet DIR]

Checks: pcNNN.jpg present, decodable, 1280x960 or 960x1280; truth.csv / queries.csv
well-formed, one row per photo, texts equal to bank questions exactly, expected_id
matching the question, kind == exact.  With --manifest prints case counts.  With
--sheet writes PNG contact sheets (downscaled) to DIR for eyeballing.
"""
import argparse
import collections
import csv
import json
import os
import sys

from PIL import Image


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--manifest", default=None)
    ap.add_argument("--sheet", default=None)
    a = ap.parse_args()
    bank = [json.loads(l) for l in open(a.bank, encoding="utf-8") if l.strip()]
    by_id = {q["id"]: q for q in bank}
    by_text = collections.defaultdict(list)
    for q in bank:
        by_text[q["question"]].append(q["id"])
    errs = []
    with open(os.path.join(a.out_dir, "truth.csv"), encoding="utf-8", newline="") as f:
        truth = list(csv.DictReader(f))
    with open(os.path.join(a.out_dir, "queries.csv"), encoding="utf-8", newline="") as f:
        queries = list(csv.DictReader(f))
    n = a.count or len(truth)
    if len(truth) != n or len(queries) != n:
        errs.append(f"row counts truth={len(truth)} queries={len(queries)} expected {n}")
    qmap = {r["qid"]: r for r in queries}
    for k, r in enumerate(truth):
        qid = f"pc{k + 1:03d}"
        if r["qid"] != qid:
            errs.append(f"truth row {k}: qid {r['qid']} != {qid}")
        if r["text"] not in by_text:
            errs.append(f"{qid}: truth text not an exact bank question: {r['text']!r}")
        qr = qmap.get(r["qid"])
        if qr is None:
            errs.append(f"{qid}: missing in queries.csv")
            continue
        if qr["query"] != r["text"]:
            errs.append(f"{qid}: query != truth")
        if qr["expected_id"] not in by_id or by_id[qr["expected_id"]]["question"] != r["text"]:
            errs.append(f"{qid}: expected_id {qr['expected_id']} does not match text")
        if qr["kind"] != "exact":
            errs.append(f"{qid}: kind {qr['kind']}")
        p = os.path.join(a.out_dir, qid + ".jpg")
        try:
            im = Image.open(p)
            im.load()
            if im.size not in ((1280, 960), (960, 1280)) or im.mode != "RGB":
                errs.append(f"{qid}: size/mode {im.size} {im.mode}")
        except Exception as e:  # noqa: BLE001
            errs.append(f"{qid}: cannot read image: {e}")
    ids = [r["expected_id"] for r in queries]
    print(f"{len(truth)} rows, {len(set(ids))} distinct targets")
    zh = sum(1 for r in truth if any("\u4e00" <= c <= "\u9fff" for c in r["text"]))
    print(f"chinese targets {zh}, english targets {len(truth) - zh}")
    subj = collections.Counter(by_id[i]["subject"] for i in ids if i in by_id)
    print("subjects:", dict(subj))
    if a.manifest:
        ms = [json.loads(l) for l in open(a.manifest, encoding="utf-8")]
        c = collections.Counter()
        for m in ms:
            for k in m["cases"]:
                c[k] += 1
            for k, v in m["visible"].items():
                if isinstance(v, bool) and v:
                    c["visible:" + k] += 1
            c[f"cols={m['cols']}"] += 1
            c[f"target_col={m['col']}"] += 1
            c[f"copy_gen={m['gen']}"] += 1
            if m["tilt_deg"] >= 8:
                c["tilt>=8deg"] += 1
            if abs(m["rot_deg"]) >= 4:
                c["|rotation|>=4deg"] += 1
            c["landscape" if m["landscape"] else "portrait"] += 1
            c["multiline_target" if m["target_lines"] > 1 else "single_line_target"] += 1
        for k in sorted(c):
            print(f"  {k:28s} {c[k]}")
        ems = sorted(m["em_px"] for m in ms)
        print(f"target em px: min {ems[0]} median {ems[len(ems) // 2]} max {ems[-1]}")
    if a.sheet:
        os.makedirs(a.sheet, exist_ok=True)
        per = 12
        for s in range(0, n, per):
            tiles = []
            for k in range(s, min(n, s + per)):
                im = Image.open(os.path.join(a.out_dir, f"pc{k + 1:03d}.jpg"))
                im.thumbnail((480, 480))
                tiles.append(im)
            sheet = Image.new("RGB", (4 * 480, 3 * 480), (255, 255, 255))
            for t, im in enumerate(tiles):
                sheet.paste(im, ((t % 4) * 480, (t // 4) * 480))
            sheet.save(os.path.join(a.sheet, f"sheet_{s // per + 1:02d}.png"))
    if errs:
        print("ERRORS:")
        for e in errs[:50]:
            print("  " + e)
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
