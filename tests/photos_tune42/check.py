#!/usr/bin/env python
"""Sanity checks for a photo folder written by make_photos.py.

Usage:
  .venv/bin/python tests/photos_tune42/check.py OUT_DIR --bank appliance/data/demo_bank.jsonl \
      [--manifest M.jsonl] [--sheets SHEET_DIR] [--per-sheet 12]

Checks: every qsNNN.jpg listed in truth.csv / queries.csv exists, decodes, is 1280x960 or
960x1280 JPEG; CSV headers and rows are well formed; truth text equals a bank question;
queries.csv query == truth text, expected_id is the bank id of that text, kind == exact;
qids unique and consecutive; targets distinct. With --manifest prints case counts.
With --sheets writes PNG contact sheets (thumbnail + qid + truth text) for viewing.
Exit status 1 on any failure.
"""
import argparse
import collections
import csv
import json
import os
import re
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2)


def load_bank(path):
    bank = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                d = json.loads(line)
                bank[d["id"]] = d["question"]
    return bank


def read_csv(path, header):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != header:
        raise ValueError(f"{path}: header {rows[:1]} != {header}")
    for k, r in enumerate(rows[1:], 2):
        if len(r) != len(header):
            raise ValueError(f"{path}:{k}: {len(r)} fields")
    return rows[1:]


SUPSUB = {"²": "^2", "³": "^3", "₀": "_0", "₁": "_1", "₂": "_2", "₅": "_5", "ₙ": "_n"}


def caption_text(t):
    # the caption font has no sub/superscript glyphs
    return "".join(SUPSUB.get(c, c) for c in t)


def wrap_px(text, font, width):
    lines, cur = [], ""
    for ch in text:
        if font.getlength(cur + ch) > width:
            lines.append(cur)
            cur = ch
        else:
            cur += ch
    if cur:
        lines.append(cur)
    return lines


def contact_sheets(out_dir, truth, sheet_dir, per_sheet=12, manifest=None):
    os.makedirs(sheet_dir, exist_ok=True)
    try:
        font = ImageFont.truetype(FONT[0], 15, index=FONT[1])
    except Exception:
        font = ImageFont.load_default()
    cols = 4 if per_sheet >= 8 else 2
    tw, th = 400, 400
    cap = 62
    qids = [q for q, _ in truth]
    written = []
    for s0 in range(0, len(qids), per_sheet):
        chunk = truth[s0:s0 + per_sheet]
        rows = (len(chunk) + cols - 1) // cols
        sheet = Image.new("RGB", (cols * tw, rows * (th + cap)), (255, 255, 255))
        d = ImageDraw.Draw(sheet)
        for k, (qid, text) in enumerate(chunk):
            im = Image.open(os.path.join(out_dir, qid + ".jpg")).convert("RGB")
            im.thumbnail((tw - 6, th - 6))
            r, c = divmod(k, cols)
            x, y = c * tw, r * (th + cap)
            sheet.paste(im, (x + (tw - im.width) // 2, y + (th - im.height) // 2))
            cap_lines = wrap_px(qid + "  " + caption_text(text), font, tw - 8)[:2]
            for li, ln in enumerate(cap_lines):
                d.text((x + 4, y + th + 2 + 18 * li), ln, font=font, fill=(0, 0, 0))
            if manifest and qid in manifest:
                lab = manifest[qid].get("label", "")
                cs = [c for c in manifest[qid]["cases"] if c.startswith(("screen:", "finger", "pen_object"))]
                d.text((x + 4, y + th + 38), f"label {lab} " + " ".join(cs), font=font, fill=(150, 0, 0))
        p = os.path.join(sheet_dir, f"sheet_{s0 // per_sheet + 1:02d}.png")
        sheet.save(p)
        written.append(p)
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--bank", required=True)
    ap.add_argument("--manifest", default=None)
    ap.add_argument("--sheets", default=None)
    ap.add_argument("--per-sheet", type=int, default=12)
    ap.add_argument("--full", default="", help="comma-separated qids (or 'all') to also copy as full-size PNG "
                                              "into the sheets folder")
    a = ap.parse_args(argv)
    errors = []
    bank = load_bank(a.bank)
    text2id = {}
    for k, v in bank.items():
        text2id.setdefault(v, []).append(k)
    truth = read_csv(os.path.join(a.out_dir, "truth.csv"), ["qid", "text"])
    queries = read_csv(os.path.join(a.out_dir, "queries.csv"), ["qid", "query", "expected_id", "kind"])
    qids = [r[0] for r in truth]
    if len(set(qids)) != len(qids):
        errors.append("duplicate qids in truth.csv")
    for n, q in enumerate(qids, 1):
        if q != f"qs{n:03d}":
            errors.append(f"qid {q} out of sequence (expected qs{n:03d})")
            break
    if [r[0] for r in queries] != qids:
        errors.append("queries.csv qids differ from truth.csv")
    tmap = dict((r[0], r[1]) for r in truth)
    for qid, text in truth:
        if text not in text2id:
            errors.append(f"{qid}: truth text not a bank question: {text!r}")
        if re.match(r"^\s*(\(?\d+[.)．、]|（\d+）|第\d+题|Q\d+|【\d+】|[①-⑳])", text):
            errors.append(f"{qid}: truth text starts with a problem number: {text!r}")
    if len(set(tmap.values())) != len(tmap):
        errors.append("target texts are not distinct")
    for qid, query, eid, kind in queries:
        if query != tmap.get(qid):
            errors.append(f"{qid}: query != truth text")
        if eid not in bank:
            errors.append(f"{qid}: expected_id {eid} not in bank")
        elif bank[eid] != query:
            errors.append(f"{qid}: bank[{eid}] != query")
        if kind != "exact":
            errors.append(f"{qid}: kind {kind!r} != exact")
    sizes = collections.Counter()
    for qid in qids:
        p = os.path.join(a.out_dir, qid + ".jpg")
        if not os.path.exists(p):
            errors.append(f"{qid}: missing {p}")
            continue
        with open(p, "rb") as f:
            if f.read(3) != b"\xff\xd8\xff":
                errors.append(f"{qid}: not a JPEG")
        try:
            im = Image.open(p)
            im.load()
            sizes[im.size] += 1
            if im.size not in ((1280, 960), (960, 1280)):
                errors.append(f"{qid}: size {im.size}")
            arr = np.asarray(im.convert("L"))
            if arr.std() < 8:
                errors.append(f"{qid}: image nearly flat (std {arr.std():.1f})")
        except Exception as e:
            errors.append(f"{qid}: decode failed: {e}")
    extra = sorted(f for f in os.listdir(a.out_dir) if f.endswith(".jpg") and f[:-4] not in tmap)
    if extra:
        errors.append(f"jpgs not in truth.csv: {extra[:5]}")
    print(f"{len(qids)} photos, sizes: " + ", ".join(f"{w}x{h}: {n}" for (w, h), n in sorted(sizes.items())))
    langs = collections.Counter("zh" if re.search(r"[\u4e00-\u9fff]", t) else "en" for t in tmap.values())
    print("target languages:", dict(langs))
    subj = collections.Counter(eid.split("-")[1] for _, _, eid, _ in queries)
    print("target subjects:", dict(sorted(subj.items())))
    man = None
    if a.manifest:
        man = {}
        with open(a.manifest, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    m = json.loads(line)
                    man[m["qid"]] = m
        if set(man) != set(qids):
            errors.append("manifest qids differ from truth.csv")
        for qid, m in man.items():
            if m.get("text") != tmap.get(qid):
                errors.append(f"{qid}: manifest text differs from truth")
            bb = m.get("target_bbox")
            w, h = m.get("size", (0, 0))
            if bb and not (0 <= bb[0] and 0 <= bb[1] and bb[2] <= w and bb[3] <= h):
                errors.append(f"{qid}: target bbox {bb} not inside frame {w}x{h}")
        counts = collections.Counter()
        for m in man.values():
            for c in m["cases"]:
                key = c
                # fold numeric-valued cases into buckets
                if c.startswith(("rotation:", "jpeg_q:", "text_px:", "gutter:", "tilt:")):
                    name, v = c.split(":", 1)
                    v = float(v.rstrip("fs"))
                    if name == "rotation":
                        key = f"rotation:|θ|{'<2' if abs(v) < 2 else ('<5' if abs(v) < 5 else '>=5')}"
                    elif name == "jpeg_q":
                        key = f"jpeg_q:{int(v // 10 * 10)}s"
                    elif name == "tilt":
                        key = f"tilt:{'<4' if v < 4 else ('<8' if v < 8 else '>=8')}deg"
                    elif name == "text_px":
                        key = f"text_px:{int(v // 5 * 5)}-{int(v // 5 * 5 + 4)}"
                    else:
                        key = f"gutter:{'<1.5' if v < 1.5 else ('<3' if v < 3 else '>=3')}fs"
                elif "(cut)" in c:
                    counts[c.replace("(cut)", "(any)")] += 0
                counts[key] += 1
        # combined neighbour counts
        for base in ("neighbour_above", "neighbour_below", "column_left", "column_right"):
            counts[base + "(any)"] = sum(v for k, v in counts.items() if k in (base, base + "(cut)"))
        groups = collections.OrderedDict()
        for k in sorted(counts):
            g = k.split(":")[0].split("(")[0]
            groups.setdefault(g, []).append((k, counts[k]))
        print("\ncase counts (photos containing the case):")
        for g, items in groups.items():
            print("  " + ", ".join(f"{k}={v}" for k, v in items if v))
    if a.sheets:
        ws = contact_sheets(a.out_dir, truth, a.sheets, a.per_sheet, man)
        print(f"\nwrote {len(ws)} contact sheets to {a.sheets}")
        if a.full:
            sel = qids if a.full == "all" else [q.strip() for q in a.full.split(",") if q.strip()]
            for q in sel:
                Image.open(os.path.join(a.out_dir, q + ".jpg")).save(os.path.join(a.sheets, q + ".png"))
            print(f"wrote {len(sel)} full-size PNG copies to {a.sheets}")
    if errors:
        print(f"\nFAILED: {len(errors)} problem(s)")
        for e in errors[:50]:
            print("  " + e)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
