#!/usr/bin/env python3
"""Validate a tune30 photo set.

Usage:
    python tests/photos_tune30/check.py OUTDIR --bank appliance/data/demo_bank.jsonl [--count N]

Checks that every photo exists and is a 1280x960 or 960x1280 JPEG, that
truth.csv / queries.csv / cases.csv agree with each other and with the bank
(truth text == bank question of the expected id, kind == exact), that the
framed-problem box lies inside the photo, that bank entries are not repeated
before every entry was used once, and prints the case counts.
Exits non-zero on any problem.
"""
import argparse
import csv
import json
import os
import re
import sys
from collections import Counter

from PIL import Image

CASE_REQUIRED = [
    "qid", "bank_id", "scene", "content", "display", "orientation", "theme", "label_style", "label_text",
    "in_group", "columns", "text_lines", "text_px", "yaw", "pitch", "roll", "pixel_grid", "moire", "glare",
    "bezel_visible", "pointer", "hand_shadow", "blur_sigma", "jpeg_quality", "target_box", "fit_ok",
]
SUP_SUB = set("⁰¹²³⁴⁵⁶⁷⁸⁹ⁿ⁺⁻₀₁₂₃₄₅₆₇₈₉ₙₐₓₘ₊₋")


def special(q):
    return "___" in q or any(c in SUP_SUB for c in q)


def read_csv(path, errors):
    if not os.path.exists(path):
        errors.append(f"missing {path}")
        return None, []
    with open(path, "rb") as f:
        raw = f.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        errors.append(f"{path}: has a UTF-8 BOM")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        errors.append(f"{path}: not UTF-8 ({e})")
        return None, []
    rd = csv.DictReader(text.splitlines(keepends=True))
    rows = list(rd)
    return rd.fieldnames, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--count", type=int, default=None, help="expected number of photos")
    a = ap.parse_args()
    errors, warns = [], []
    bank = {}
    order = []
    with open(a.bank, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                e = json.loads(line)
                bank[e["id"]] = e
                order.append(e["id"])

    tf, truth = read_csv(os.path.join(a.outdir, "truth.csv"), errors)
    qf, queries = read_csv(os.path.join(a.outdir, "queries.csv"), errors)
    cf, cases = read_csv(os.path.join(a.outdir, "cases.csv"), errors)
    if tf is not None and tf != ["qid", "text"]:
        errors.append(f"truth.csv header {tf} != ['qid', 'text']")
    if qf is not None and qf != ["qid", "query", "expected_id", "kind"]:
        errors.append(f"queries.csv header {qf} != ['qid', 'query', 'expected_id', 'kind']")
    if cf is not None:
        miss = [c for c in CASE_REQUIRED if c not in cf]
        if miss:
            errors.append(f"cases.csv lacks columns {miss}")
    n = len(truth)
    if a.count is not None and n != a.count:
        errors.append(f"truth.csv has {n} rows, expected {a.count}")
    if not (len(truth) == len(queries) == len(cases)):
        errors.append(f"row counts differ: truth={len(truth)} queries={len(queries)} cases={len(cases)}")
    qids = [r["qid"] for r in truth]
    want = [f"s{i:03d}" for i in range(1, n + 1)]
    if qids != want:
        errors.append(f"truth.csv qids are not s001..s{n:03d} in order")
    if [r["qid"] for r in queries] != qids or [r["qid"] for r in cases] != qids:
        errors.append("qid order differs between the CSVs")
    qmap = {r["qid"]: r for r in queries}
    cmap = {r["qid"]: r for r in cases}
    used = []
    for r in truth:
        qid = r["qid"]
        q = qmap.get(qid)
        c = cmap.get(qid)
        if q is None or c is None:
            errors.append(f"{qid}: missing in queries.csv or cases.csv")
            continue
        bid = q["expected_id"]
        if bid not in bank:
            errors.append(f"{qid}: expected_id {bid!r} not in bank")
            continue
        bq = bank[bid]["question"]
        if r["text"] != bq:
            errors.append(f"{qid}: truth text differs from bank question of {bid}")
        if q["query"] != bq:
            errors.append(f"{qid}: query differs from bank question of {bid}")
        if q["kind"] != "exact":
            errors.append(f"{qid}: kind {q['kind']!r} != 'exact'")
        if c.get("bank_id") != bid:
            errors.append(f"{qid}: cases.csv bank_id {c.get('bank_id')!r} != {bid!r}")
        used.append(bid)
        # photo
        path = os.path.join(a.outdir, qid + ".jpg")
        if not os.path.exists(path):
            errors.append(f"{qid}: missing {path}")
            continue
        try:
            with Image.open(path) as im:
                fmt, size = im.format, im.size
                im.verify()
        except Exception as e:  # noqa: BLE001
            errors.append(f"{qid}: unreadable JPEG ({e})")
            continue
        if fmt != "JPEG":
            errors.append(f"{qid}: format {fmt} != JPEG")
        if size not in ((1280, 960), (960, 1280)):
            errors.append(f"{qid}: size {size}")
        exp = (1280, 960) if c.get("orientation") == "landscape" else (960, 1280)
        if size != exp:
            errors.append(f"{qid}: size {size} does not match orientation {c.get('orientation')}")
        try:
            x0, y0, x1, y1 = [float(v) for v in c["target_box"].split()]
            if x0 < 0 or y0 < 0 or x1 > size[0] or y1 > size[1] or x1 <= x0 or y1 <= y0:
                errors.append(f"{qid}: target_box {c['target_box']} outside the photo")
            cx, cy = (x0 + x1) / 2 / size[0], (y0 + y1) / 2 / size[1]
            if not (0.25 <= cx <= 0.75 and 0.25 <= cy <= 0.75):
                warns.append(f"{qid}: framed problem centre ({cx:.2f}, {cy:.2f}) far from the photo centre")
        except (KeyError, ValueError):
            errors.append(f"{qid}: bad target_box {c.get('target_box')!r}")
        try:
            tp = float(c["text_px"])
            if not (15 <= tp <= 65):
                warns.append(f"{qid}: text_px {tp} outside roughly 18-60")
        except (KeyError, ValueError):
            errors.append(f"{qid}: bad text_px")
        if c.get("fit_ok") != "1":
            warns.append(f"{qid}: framing did not fit the margin test")
        if c.get("in_group") == "1" and not re.match(r"^[（(]\d+[)）]$|^[①-⑳]$", c.get("label_text", "")):
            errors.append(f"{qid}: sub-question label {c.get('label_text')!r} is not (n)/（n）/①")
    # selection order: every entry once before repeats; special entries first
    if used:
        seen = set()
        for i, bid in enumerate(used):
            if bid in seen and len(seen) < len(bank):
                errors.append(f"entry {bid} repeated at photo {i + 1} before every entry was used")
                break
            seen.add(bid)
            if len(seen) == len(bank):
                seen = set()
        nspec = sum(1 for b in bank if special(bank[b]["question"]))
        first = used[:min(nspec, len(used))]
        if not all(special(bank[b]["question"]) for b in first):
            errors.append("special entries (superscript/subscript/___) are not framed first")
    # extra files
    extra = [f for f in os.listdir(a.outdir)
             if f not in ("truth.csv", "queries.csv", "cases.csv") and not re.match(r"^s\d{3}\.jpg$", f)]
    if extra:
        warns.append(f"extra files in {a.outdir}: {sorted(extra)[:5]}")
    # summary
    if cases:
        def show(name, key):
            cnt = Counter(key(r) for r in cases)
            print(f"{name:>14}: " + ", ".join(f"{k}={v}" for k, v in sorted(cnt.items(), key=lambda kv: (-kv[1], kv[0]))))

        show("scene", lambda r: r["scene"])
        show("content", lambda r: r["content"])
        show("display", lambda r: r["display"])
        show("theme", lambda r: r["theme"])
        show("orientation", lambda r: r["orientation"])
        show("label_style", lambda r: r["label_style"])
        show("in_group", lambda r: r["in_group"])
        show("columns", lambda r: r["columns"])
        show("text_lines", lambda r: r["text_lines"])
        show("pixel_grid", lambda r: r["pixel_grid"])
        show("moire", lambda r: r["moire"])
        show("glare", lambda r: r["glare"])
        show("bezel_visible", lambda r: r["bezel_visible"])
        show("pointer", lambda r: r["pointer"])
        show("hand_shadow", lambda r: r["hand_shadow"])
        tps = sorted(float(r["text_px"]) for r in cases)
        print(f"{'text_px':>14}: min={tps[0]:.1f} median={tps[len(tps) // 2]:.1f} max={tps[-1]:.1f}")
    for w in warns:
        print("WARN:", w)
    for e in errors:
        print("ERROR:", e)
    print(f"{len(truth)} photos, {len(errors)} errors, {len(warns)} warnings")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
