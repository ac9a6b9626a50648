"""Sanity checks over a folder written by make_photos.py.

Usage:
  python check.py OUT --bank BANK.jsonl [--count 120] [--sheets DIR] [--per-sheet 4]

Checks: photo count, CSV row counts and agreement (truth / queries / cases), every
truth text is a bank question with the stated id, every photo opens with the size
given in cases.csv, the framed problem is inside the photo and under its centre.
With --sheets, draws PNG contact sheets (outside the repository) for looking at.
"""

import argparse
import csv
import json
import os
import sys
from collections import Counter

from PIL import Image, ImageDraw, ImageFont

LABEL_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def contact_sheets(out, cases, sheets, per_sheet, width=900):
    os.makedirs(sheets, exist_ok=True)
    lab = ImageFont.truetype(LABEL_FONT, 18, index=2)
    cols = 2
    for s in range(0, len(cases), per_sheet):
        chunk = cases[s:s + per_sheet]
        tiles = []
        for c in chunk:
            im = Image.open(os.path.join(out, c["qid"] + ".jpg")).convert("RGB")
            im = im.resize((width, int(im.height * width / im.width)))
            tile = Image.new("RGB", (width, im.height + 48), "white")
            tile.paste(im, (0, 48))
            d = ImageDraw.Draw(tile)
            d.text((6, 2), f"{c['qid']} {c['framed_id']} [{c['kinds']}] line={c['line_px']}px q={c['jpeg_q']}",
                   font=lab, fill="black")
            d.text((6, 24), c["effects"][:110], font=lab, fill=(90, 90, 90))
            tiles.append(tile)
        rows = (len(tiles) + cols - 1) // cols
        hrow = [max(t.height for t in tiles[r * cols:(r + 1) * cols]) for r in range(rows)]
        sheet = Image.new("RGB", (cols * width + (cols - 1) * 8, sum(hrow) + 8 * (rows - 1)), (60, 60, 60))
        y = 0
        for r in range(rows):
            for k, t in enumerate(tiles[r * cols:(r + 1) * cols]):
                sheet.paste(t, (k * (width + 8), y))
            y += hrow[r] + 8
        name = os.path.join(sheets, f"sheet_{chunk[0]['qid']}_{chunk[-1]['qid']}.png")
        sheet.save(name)
        print("sheet", name)


def main(argv=None):
    ap = argparse.ArgumentParser(description="check a photo set")
    ap.add_argument("out")
    ap.add_argument("--bank", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                    "appliance", "data", "demo_bank.jsonl"))
    ap.add_argument("--count", type=int, default=None)
    ap.add_argument("--sheets", default=None, help="folder for PNG contact sheets (keep it outside the repo)")
    ap.add_argument("--per-sheet", type=int, default=4)
    ap.add_argument("--only", default="", help="comma-separated qids for the sheets")
    a = ap.parse_args(argv)

    bank = {}
    with open(a.bank, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                bank[r["id"]] = r["question"]
    questions = set(bank.values())
    errors = []
    truth = read_csv(os.path.join(a.out, "truth.csv"))
    queries = read_csv(os.path.join(a.out, "queries.csv"))
    cases = read_csv(os.path.join(a.out, "cases.csv"))
    jpgs = sorted(f for f in os.listdir(a.out) if f.endswith(".jpg"))
    n = a.count if a.count is not None else len(truth)
    if len(jpgs) != n:
        errors.append(f"{len(jpgs)} photos, expected {n}")
    for name, rows in (("truth", truth), ("queries", queries), ("cases", cases)):
        if len(rows) != n:
            errors.append(f"{name}.csv has {len(rows)} rows, expected {n}")
    expect = [f"b{i:03d}" for i in range(1, n + 1)]
    for name, rows in (("truth", truth), ("queries", queries), ("cases", cases)):
        if [r["qid"] for r in rows] != expect:
            errors.append(f"{name}.csv qids are not b001..b{n:03d} in order")
    if [f[:-4] for f in jpgs] != expect:
        errors.append("photo names are not b001.jpg.. in order")
    for t, q, c in zip(truth, queries, cases):
        qid = t["qid"]
        if t["text"] not in questions:
            errors.append(f"{qid}: truth text is not a bank question: {t['text']!r}")
        if q["query"] != t["text"] or q["kind"] != "exact":
            errors.append(f"{qid}: queries.csv disagrees with truth.csv")
        if bank.get(q["expected_id"]) != t["text"] or c["framed_id"] != q["expected_id"]:
            errors.append(f"{qid}: expected_id / framed_id do not give the truth text")
        path = os.path.join(a.out, qid + ".jpg")
        try:
            with Image.open(path) as im:
                im.load()
                size = im.size
                fmt = im.format
        except Exception as e:  # noqa: BLE001 - report any unreadable photo
            errors.append(f"{qid}: cannot open photo: {e}")
            continue
        if fmt != "JPEG" or size != (int(c["width"]), int(c["height"])):
            errors.append(f"{qid}: {fmt} {size}, cases.csv says {c['width']}x{c['height']}")
        if c["framed_inside"] != "1" or c["centre_on_framed"] != "1":
            errors.append(f"{qid}: framed problem not fully inside / not under the centre")
        if float(c["framed_contrast"]) < 0.15:
            print(f"warning {qid}: low framed contrast {c['framed_contrast']}")
    kinds = Counter(k for c in cases for k in c["kinds"].split(";"))
    print("photos:", len(jpgs))
    print("kinds:", dict(sorted(kinds.items())))
    print("signs-preferred photos:", sum(1 for c in cases if c["signs"]))
    print("languages:", dict(Counter(c["lang"] for c in cases)))
    print("sizes:", dict(Counter(f"{c['width']}x{c['height']}" for c in cases)))
    lp = sorted(float(c["line_px"]) for c in cases)
    if lp:
        print(f"line_px: min {lp[0]} median {lp[len(lp) // 2]} max {lp[-1]}")
    print("distinct framed questions:", len({c["framed_id"] for c in cases}))
    if a.sheets:
        chosen = cases
        if a.only:
            want = set(a.only.split(","))
            chosen = [c for c in cases if c["qid"] in want]
        contact_sheets(a.out, chosen, a.sheets, a.per_sheet)
    for e in errors:
        print("ERROR", e)
    print("OK" if not errors else f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
