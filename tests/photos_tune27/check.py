#!/usr/bin/env python3
"""Sanity checks of an output folder of make_photos.py.

    check.py OUTDIR --bank PATH [--count N] [--regen K] [--summary]

Checks: CSV files present, UTF-8 without BOM, exact headers; photos u001..uNNN present and
decodable with an expected size; truth/queries rows match the bank; the framed problem's
box (cases.csv) is fully inside the photo, contains the photo centre, holds printed ink and
is not covered by the finger/pen; the framed problem is the one nearest the centre.
--regen K remakes K photos with --only into a temporary folder and compares bytes.
"""
import argparse
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

SIZES = {(1280, 960), (960, 1280), (1600, 1200), (1200, 1600), (2000, 1500), (1500, 2000)}
HEADERS = {'truth.csv': ['qid', 'text'], 'queries.csv': ['qid', 'query', 'expected_id', 'kind']}
SUMMARY_COLS = ['page_kind', 'page_lang', 'columns', 'spread', 'number_style', 'sub_of_stem', 'score_pos',
                'answer_style', 'font_cjk', 'font_latin', 'math_style', 'script_style', 'shot_actual', 'anchor_line',
                'device', 'orientation', 'curl', 'occluder', 'blur', 'cast', 'phone_shadow', 'screen', 'background']


def read_csv(path, errors):
    raw = open(path, 'rb').read()
    if raw.startswith(b'\xef\xbb\xbf'):
        errors.append(f'{os.path.basename(path)}: has a UTF-8 BOM')
    text = raw.decode('utf-8')
    rows = list(csv.reader(text.splitlines()))
    return rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('outdir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--count', type=int)
    ap.add_argument('--regen', type=int, default=0)
    ap.add_argument('--summary', action='store_true')
    a = ap.parse_args()
    errors, notes = [], []
    bank = {}
    with open(a.bank, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                o = json.loads(line)
                bank[o['id']] = o['question']
    tables = {}
    for name in ('truth.csv', 'queries.csv', 'cases.csv'):
        p = os.path.join(a.outdir, name)
        if not os.path.exists(p):
            errors.append(f'missing {name}')
            continue
        head, rows = read_csv(p, errors)
        if name in HEADERS and head != HEADERS[name]:
            errors.append(f'{name}: header {head} != {HEADERS[name]}')
        tables[name] = {r['qid']: r for r in rows}
    if errors:
        print('\n'.join('FAIL ' + e for e in errors))
        sys.exit(1)
    truth, queries, cases = tables['truth.csv'], tables['queries.csv'], tables['cases.csv']
    n = a.count or len(truth)
    ids = [f'u{i:03d}' for i in range(1, n + 1)]
    for name, t in tables.items():
        if sorted(t) != ids:
            errors.append(f'{name}: ids are not exactly u001..u{n:03d} ({len(t)} rows)')
    sizes = collections.Counter()
    for q in ids:
        t, qq, c = truth.get(q), queries.get(q), cases.get(q)
        if not (t and qq and c):
            continue
        eid = qq['expected_id']
        if eid not in bank:
            errors.append(f'{q}: expected_id {eid} not in bank')
        elif t['text'] != bank[eid] or qq['query'] != bank[eid]:
            errors.append(f'{q}: truth/query text differs from bank question {eid}')
        if qq['kind'] != 'exact':
            errors.append(f'{q}: kind {qq["kind"]!r}')
        if c.get('expected_id') != eid:
            errors.append(f'{q}: cases expected_id {c.get("expected_id")} != {eid}')
        p = os.path.join(a.outdir, q + '.jpg')
        if not os.path.exists(p):
            errors.append(f'{q}: missing photo')
            continue
        try:
            im = Image.open(p)
            im.load()
        except Exception as e:            # noqa: BLE001
            errors.append(f'{q}: cannot decode ({e})')
            continue
        W, H = im.size
        sizes[f'{W}x{H}'] += 1
        if (W, H) not in SIZES:
            errors.append(f'{q}: unexpected size {W}x{H}')
        if (int(c['photo_w']), int(c['photo_h'])) != (W, H):
            errors.append(f'{q}: cases size {c["photo_w"]}x{c["photo_h"]} != photo {W}x{H}')
        x0, y0, x1, y1 = (int(c[k]) for k in ('box_x0', 'box_y0', 'box_x1', 'box_y1'))
        if not (2 <= x0 < x1 <= W - 3 and 2 <= y0 < y1 <= H - 3):
            errors.append(f'{q}: framed box {x0},{y0},{x1},{y1} not fully inside {W}x{H}')
            continue
        if not (x0 <= W / 2 <= x1 and y0 <= H / 2 <= y1) or c['centre_in_box'] != '1':
            errors.append(f'{q}: photo centre not inside the framed box')
        if c['nearest_other_px'] not in ('',) and float(c['nearest_other_px']) <= 0:
            errors.append(f'{q}: another problem touches the photo centre')
        if int(c['occluder_overlap_px']) != 0:
            errors.append(f'{q}: occluder overlaps the framed box')
        g = np.asarray(im.convert('L'), np.float32)[y0:y1 + 1, x0:x1 + 1]
        ink = (g < np.median(g) - 45).mean()
        if ink < 0.01:
            errors.append(f'{q}: framed box holds almost no ink ({ink:.3f})')
    notes.append(f'{len(ids)} photos; sizes: ' + ', '.join(f'{k}={v}' for k, v in sorted(sizes.items())))
    if a.regen and not errors:
        step = max(1, n // a.regen)
        pick = list(range(1, n + 1, step))[:a.regen]
        seed = cases[ids[0]]['seed']
        gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'make_photos.py')
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, gen, '--bank', a.bank, tmp, '--count', str(n), '--seed', seed,
                            '--only', ','.join(map(str, pick))], check=True, stdout=subprocess.DEVNULL)
            _, again = read_csv(os.path.join(tmp, 'cases.csv'), errors)
            again = {r['qid']: r for r in again}
            for i in pick:
                q = f'u{i:03d}'
                if open(os.path.join(tmp, q + '.jpg'), 'rb').read() != open(os.path.join(a.outdir, q + '.jpg'), 'rb').read():
                    errors.append(f'{q}: --only remake differs byte for byte')
                if again.get(q) != cases[q]:
                    errors.append(f'{q}: --only remake gives a different cases row')
        notes.append(f'determinism: remade {",".join(f"u{i:03d}" for i in pick)} with --only; identical bytes'
                     if not errors else 'determinism check failed')
    for line in notes:
        print('OK  ' + line)
    if a.summary:
        marks = collections.Counter()
        for c in cases.values():
            for m in c['marks'].split('+'):
                marks[m] += 1
        for col in SUMMARY_COLS:
            cnt = collections.Counter(c[col] for c in cases.values())
            print(f'  {col:14s} ' + ', '.join(f'{k or "-"}={v}' for k, v in sorted(cnt.items(), key=lambda kv: -kv[1])))
        print('  marks          ' + ', '.join(f'{k}={v}' for k, v in sorted(marks.items(), key=lambda kv: -kv[1])))
        px = np.array([float(c['char_px']) for c in cases.values()])
        niv = np.array([int(c['n_in_view']) for c in cases.values()])
        far = px < 24
        print(f'  char_px        min={px.min():.1f} median={np.median(px):.1f} max={px.max():.1f}; '
              f'far shots with >=8 problems in view: {(niv[far] >= 8).sum()}/{far.sum()}')
    if errors:
        print('\n'.join('FAIL ' + e for e in errors))
        sys.exit(1)
    print(f'ALL CHECKS PASSED ({n} photos)')


if __name__ == '__main__':
    main()
