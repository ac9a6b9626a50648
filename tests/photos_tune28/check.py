#!/usr/bin/env python3
"""Check that a photos_tune28 output folder is complete and consistent.

    .venv/bin/python tests/photos_tune28/check.py OUTDIR [--bank appliance/data/demo_bank.jsonl]

Checks: truth.csv, queries.csv and cases.csv exist with the expected columns;
the three files list the same qids, once each; every qid has a photo xNNN.jpg
that opens, whose size matches cases.csv; truth text is non-empty and equals
the query; kind is "exact"; the framed box lies inside the photo; with --bank,
every expected_id exists and the truth is that entry's question.
Exits 1 and lists the problems if any check fails.
"""
import argparse
import csv
import json
import os
import re
import sys

from PIL import Image


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        r = csv.DictReader(f)
        return r.fieldnames or [], list(r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--bank", help="optional: bank JSONL to check ids and texts against")
    a = ap.parse_args()
    d = a.outdir
    errs = []

    def err(msg):
        errs.append(msg)

    need = {"truth.csv": ["qid", "text"], "queries.csv": ["qid", "query", "expected_id", "kind"],
            "cases.csv": ["qid", "expected_id", "photo_w", "photo_h", "box_x0", "box_y0", "box_x1", "box_y1"]}
    tables = {}
    for fn, cols in need.items():
        p = os.path.join(d, fn)
        if not os.path.isfile(p):
            err(f"missing {fn}")
            continue
        header, rows = read_csv(p)
        miss = [c for c in cols if c not in header]
        if miss:
            err(f"{fn}: missing columns {miss}")
        qids = [r.get("qid", "") for r in rows]
        dup = sorted({q for q in qids if qids.count(q) > 1})
        if dup:
            err(f"{fn}: duplicate qids {dup[:5]}")
        tables[fn] = {r.get("qid", ""): r for r in rows}
    if len(tables) < 3:
        return report(errs, 0)

    truth, queries, cases = tables["truth.csv"], tables["queries.csv"], tables["cases.csv"]
    photos = {os.path.splitext(f)[0] for f in os.listdir(d) if f.lower().endswith(".jpg")}
    all_q = set(truth) | set(queries) | set(cases) | photos
    for q in sorted(all_q):
        if not re.fullmatch(r"x\d{3,}", q):
            err(f"{q}: qid not of the form xNNN")
        for name, t in (("truth.csv", truth), ("queries.csv", queries), ("cases.csv", cases)):
            if q not in t:
                err(f"{q}: no row in {name}")
        if q not in photos:
            err(f"{q}: no photo {q}.jpg")

    bank = None
    if a.bank:
        bank = {}
        with open(a.bank, encoding="utf-8-sig") as f:
            for line in f:
                if line.strip():
                    e = json.loads(line)
                    bank[e["id"]] = e

    for q in sorted(set(truth) & set(queries) & set(cases)):
        t, qu, c = truth[q], queries[q], cases[q]
        text = t.get("text", "")
        if not text.strip():
            err(f"{q}: empty truth")
        if qu.get("query", "") != text:
            err(f"{q}: query differs from truth")
        if qu.get("kind") != "exact":
            err(f"{q}: kind is {qu.get('kind')!r}, expected 'exact'")
        if not qu.get("expected_id"):
            err(f"{q}: empty expected_id")
        if c.get("expected_id") != qu.get("expected_id"):
            err(f"{q}: expected_id differs between queries.csv and cases.csv")
        if bank is not None:
            e = bank.get(qu.get("expected_id"))
            if e is None:
                err(f"{q}: expected_id {qu.get('expected_id')} not in bank")
            elif e["question"] != text:
                err(f"{q}: truth is not the bank question of {qu.get('expected_id')}")
        p = os.path.join(d, q + ".jpg")
        if os.path.isfile(p):
            try:
                with Image.open(p) as im:
                    im.load()
                    w, h = im.size
                if (str(w), str(h)) != (c.get("photo_w"), c.get("photo_h")):
                    err(f"{q}: photo is {w}x{h}, cases.csv says {c.get('photo_w')}x{c.get('photo_h')}")
                try:
                    x0, y0, x1, y1 = (float(c[k]) for k in ("box_x0", "box_y0", "box_x1", "box_y1"))
                    if not (0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h):
                        err(f"{q}: framed box {x0, y0, x1, y1} not inside the {w}x{h} photo")
                    elif not (x0 <= w / 2 <= x1 and y0 <= h / 2 <= y1):
                        err(f"{q}: photo centre is not inside the framed box")
                except (KeyError, ValueError):
                    err(f"{q}: bad box values in cases.csv")
            except Exception as ex:  # noqa: BLE001
                err(f"{q}: photo does not open: {ex}")
    return report(errs, len(all_q))


def report(errs, n):
    if errs:
        print(f"FAIL: {len(errs)} problem(s)")
        for e in errs[:200]:
            print("  " + e)
        sys.exit(1)
    print(f"OK: {n} photos, truth, queries and cases consistent")


if __name__ == "__main__":
    main()
