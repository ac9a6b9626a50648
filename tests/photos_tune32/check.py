#!/usr/bin/env python3
"""Check a photo set made by make_photos.py and print a summary of its cases.

    python tests/photos_tune32/check.py OUTDIR [--bank appliance/data/demo_bank.jsonl] [--count N]

Exit code 0 when everything is in order, 1 when a problem was found (each one is printed).
"""
import argparse
import collections
import csv
import json
import os
import re
import sys

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.join(HERE, '..', '..', 'appliance', 'data', 'demo_bank.jsonl')
# (long side, short side) a phone gives here; chat apps shrink some to a long side of 1280
SIZES = {(2000, 1500), (1600, 1200), (1440, 1080), (1280, 960), (800, 600),
         (1920, 1080), (1706, 960), (1600, 900), (1280, 720)}
FLAG_COLS = ['whole_page', 'small', 'sharpen_halo', 'beauty_filter', 'phone_shadow', 'window_stripes', 'glare',
             'crooked_print', 'stapled', 'corner_turned', 'spine_curl', 'page_bend', 'hw_name', 'hw_work_neighbour',
             'hw_work_framed', 'hw_cross_out', 'hw_arrow', 'hw_circled_number', 'hw_margin_mark', 'title_visible',
             'nameline_visible', 'section_visible', 'score_note_framed', 'options_neighbour', 'twin_neighbour',
             'sup_sub', 'blank', 'table_visible', 'framed_inside']
CAT_COLS = ['distance', 'aspect', 'orientation', 'light', 'paper', 'number_style', 'subject']


def read_csv(path, header, problems):
    if not os.path.exists(path):
        problems.append(f'missing {os.path.basename(path)}')
        return []
    with open(path, encoding='utf-8', newline='') as fh:
        raw = fh.read()
    if raw.startswith('\ufeff'):
        problems.append(f'{os.path.basename(path)}: has a byte-order mark')
    rows = list(csv.reader(raw.splitlines()))
    if not rows or (header and rows[0] != header):
        problems.append(f'{os.path.basename(path)}: header {rows[0] if rows else None} != {header}')
        return []
    width = len(rows[0])
    for n, row in enumerate(rows[1:], 2):
        if len(row) != width:
            problems.append(f'{os.path.basename(path)} line {n}: {len(row)} fields, expected {width}')
    return [dict(zip(rows[0], row)) for row in rows[1:] if len(row) == width]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outdir')
    ap.add_argument('--bank', default=DEFAULT_BANK)
    ap.add_argument('--count', type=int, default=None, help='expected number of photos (default: as many as truth.csv)')
    a = ap.parse_args(argv)
    problems = []
    with open(a.bank, encoding='utf-8') as fh:
        bank = {e['id']: e for e in (json.loads(line) for line in fh if line.strip())}
    truth = read_csv(os.path.join(a.outdir, 'truth.csv'), ['qid', 'text'], problems)
    queries = read_csv(os.path.join(a.outdir, 'queries.csv'), ['qid', 'query', 'expected_id', 'kind'], problems)
    cases = read_csv(os.path.join(a.outdir, 'cases.csv'), None, problems)
    n = a.count if a.count is not None else len(truth)
    want = [f'o{i:03d}' for i in range(1, n + 1)]
    for name, rows in (('truth.csv', truth), ('queries.csv', queries), ('cases.csv', cases)):
        got = [r.get('qid') for r in rows]
        if got != want:
            problems.append(f'{name}: qids are not o001..o{n:03d} in order ({len(got)} rows)')
    qmap = {r['qid']: r for r in queries}
    cmap = {r['qid']: r for r in cases}
    for t in truth:
        qid, q = t['qid'], qmap.get(t['qid'])
        if q is None:
            continue
        e = bank.get(q['expected_id'])
        if e is None:
            problems.append(f'{qid}: expected_id {q["expected_id"]!r} not in the bank')
            continue
        if t['text'] != e['question']:
            problems.append(f'{qid}: truth text differs from the bank question of {e["id"]}')
        if q['query'] != e['question']:
            problems.append(f'{qid}: query differs from the bank question of {e["id"]}')
        if q['kind'] != 'exact':
            problems.append(f'{qid}: kind {q["kind"]!r} != exact')
        c = cmap.get(qid)
        if c and c.get('bank_id') != e['id']:
            problems.append(f'{qid}: cases.csv bank_id {c.get("bank_id")} != {e["id"]}')
    # photos
    sizes = collections.Counter()
    for qid in want:
        path = os.path.join(a.outdir, qid + '.jpg')
        if not os.path.exists(path):
            problems.append(f'missing {qid}.jpg')
            continue
        try:
            with Image.open(path) as im:
                im.load()
                fmt, size, mode = im.format, im.size, im.mode
        except Exception as ex:      # noqa: BLE001 - any unreadable file is a problem
            problems.append(f'{qid}.jpg unreadable: {ex}')
            continue
        if fmt != 'JPEG' or mode != 'RGB':
            problems.append(f'{qid}.jpg: {fmt} {mode}, expected an RGB JPEG')
        if (max(size), min(size)) not in SIZES:
            problems.append(f'{qid}.jpg: unexpected size {size}')
        c = cmap.get(qid)
        if c and (int(c['width']), int(c['height'])) != size:
            problems.append(f'{qid}.jpg: size {size} != cases.csv {c["width"]}x{c["height"]}')
        if c and c.get('framed_inside') != '1':
            problems.append(f'{qid}: framed problem not inside the photo')
        if c and float(c.get('char_px', 0)) < 13.5:
            problems.append(f'{qid}: framed characters only {c["char_px"]} px high')
        sizes[f'{size[0]}x{size[1]}'] += 1
    extra = sorted(f for f in os.listdir(a.outdir) if re.fullmatch(r'o\d+\.jpg', f) and f[:-4] not in want)
    if extra:
        problems.append(f'extra photos: {extra[:5]}{"..." if len(extra) > 5 else ""}')
    # summary
    print(f'{a.outdir}: {len(truth)} photos, {len({q["expected_id"] for q in queries})} distinct bank entries')
    print('sizes: ' + ', '.join(f'{k} {v}' for k, v in sorted(sizes.items(), key=lambda kv: -kv[1])))
    for col in CAT_COLS:
        cnt = collections.Counter(r.get(col, '') for r in cases)
        print(f'{col}: ' + ', '.join(f'{k} {v}' for k, v in sorted(cnt.items(), key=lambda kv: -kv[1])))
    if cases:
        print('flags: ' + ', '.join(f'{col} {sum(r.get(col) == "1" for r in cases)}' for col in FLAG_COLS))
        objs = collections.Counter(o for r in cases for o in r.get('objects', '').split(';') if o)
        print('objects: ' + ', '.join(f'{k} {v}' for k, v in objs.most_common()))
        for d in ('close', 'mid', 'far'):
            rs = [r for r in cases if r['distance'] == d]
            if rs:
                ch = sorted(float(r['char_px']) for r in rs)
                nb = collections.Counter(min(int(r['neighbours_above']), int(r['neighbours_below'])) for r in rs)
                print(f'{d}: char height {ch[0]:.0f}-{ch[-1]:.0f} px (median {ch[len(ch) // 2]:.0f}); '
                      f'neighbours on both sides (min of above/below): ' +
                      ', '.join(f'{k}:{v}' for k, v in sorted(nb.items())))
        print(f'digital zoom {sum(r["digital_zoom"] != "0" for r in cases)}, re-compressed twice '
              f'{sum(bool(r["jpeg_q2"]) for r in cases)}, JPEG quality '
              f'{min(int(r["jpeg_q"]) for r in cases)}-{max(int(r["jpeg_q"]) for r in cases)}, '
              f'|tilt| > 7 deg {sum(abs(float(r["tilt_deg"])) > 7 for r in cases)}')
    for p in problems:
        print('PROBLEM:', p)
    print('OK' if not problems else f'{len(problems)} problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
