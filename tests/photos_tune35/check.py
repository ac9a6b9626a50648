#!/usr/bin/env python3
# -*- coding: utf-8 -*-
"""Validate a photo set written by make_photos.py.

    check.py OUTDIR [--bank BANK.jsonl]

Exit status 0 when everything is consistent, 1 on any error.
"""
import argparse
import csv
import json
import os
import re
import sys

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.normpath(os.path.join(HERE, '..', '..', 'appliance', 'data', 'demo_bank.jsonl'))
SIZES = {(1280, 960), (960, 1280), (1600, 1200), (1200, 1600)}


def read_csv(path, errors):
    if not os.path.isfile(path):
        errors.append('missing file: %s' % path)
        return None, []
    try:
        with open(path, newline='', encoding='utf-8') as f:
            rows = list(csv.reader(f))
    except Exception as e:  # noqa: BLE001
        errors.append('cannot read %s: %s' % (path, e))
        return None, []
    if not rows:
        errors.append('empty csv: %s' % path)
        return None, []
    return rows[0], rows[1:]


def inside_poly(pt, poly):
    x, y = pt
    n = len(poly)
    ins = False
    for i in range(n):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % n]
        if (y1 > y) != (y2 > y):
            xc = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if xc > x:
                ins = not ins
    return ins


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outdir')
    ap.add_argument('--bank', default=DEFAULT_BANK)
    a = ap.parse_args(argv)
    errors = []
    warnings = []

    bank = {}
    try:
        with open(a.bank, encoding='utf-8') as f:
            for line in f:
                line = line.strip()
                if line:
                    d = json.loads(line)
                    bank[d['id']] = d['question']
    except Exception as e:  # noqa: BLE001
        print('ERROR: cannot read bank %s: %s' % (a.bank, e))
        return 1
    questions = set(bank.values())

    out = a.outdir
    if not os.path.isdir(out):
        print('ERROR: no such directory: %s' % out)
        return 1

    # truth.csv
    hdr, truth = read_csv(os.path.join(out, 'truth.csv'), errors)
    truth_map = {}
    qids = []
    if hdr is not None:
        if hdr != ['qid', 'text']:
            errors.append('truth.csv header is %r, expected qid,text' % hdr)
        for i, row in enumerate(truth):
            if len(row) != 2:
                errors.append('truth.csv row %d has %d fields' % (i + 2, len(row)))
                continue
            qid, text = row
            want = 'ex%03d' % (i + 1)
            if qid != want:
                errors.append('truth.csv row %d: qid %r, expected %r' % (i + 2, qid, want))
            if qid in truth_map:
                errors.append('truth.csv: duplicate qid %s' % qid)
            if text not in questions:
                errors.append('truth.csv %s: text is not a bank question: %r' % (qid, text))
            truth_map[qid] = text
            qids.append(qid)
    if not qids:
        errors.append('truth.csv lists no photos')

    # queries.csv
    hdr, queries = read_csv(os.path.join(out, 'queries.csv'), errors)
    if hdr is not None:
        if hdr != ['qid', 'query', 'expected_id', 'kind']:
            errors.append('queries.csv header is %r' % hdr)
        seen = []
        for i, row in enumerate(queries):
            if len(row) != 4:
                errors.append('queries.csv row %d has %d fields' % (i + 2, len(row)))
                continue
            qid, query, eid, kind = row
            seen.append(qid)
            if qid not in truth_map:
                errors.append('queries.csv: unknown qid %s' % qid)
                continue
            if query != truth_map[qid]:
                errors.append('queries.csv %s: query differs from truth text' % qid)
            if eid not in bank:
                errors.append('queries.csv %s: expected_id %s not in bank' % (qid, eid))
            elif bank[eid] != truth_map[qid]:
                errors.append('queries.csv %s: bank question of %s differs from truth text' % (qid, eid))
            if kind != 'exact':
                errors.append('queries.csv %s: kind %r, expected exact' % (qid, kind))
        if seen != qids:
            errors.append('queries.csv qids do not match truth.csv (%d vs %d rows)' % (len(seen), len(qids)))

    # cases.csv
    hdr, cases = read_csv(os.path.join(out, 'cases.csv'), errors)
    case_rows = {}
    if hdr is not None:
        if 'qid' not in hdr:
            errors.append('cases.csv has no qid column')
        else:
            for row in cases:
                if len(row) != len(hdr):
                    errors.append('cases.csv: row with %d fields, header has %d' % (len(row), len(hdr)))
                    continue
                d = dict(zip(hdr, row))
                case_rows[d['qid']] = d
            if sorted(case_rows) != sorted(qids):
                errors.append('cases.csv qids do not match truth.csv')

    # photos
    present = sorted(n for n in os.listdir(out) if re.fullmatch(r'ex\d+\.jpg', n))
    expected = ['%s.jpg' % q for q in qids]
    extra = sorted(set(present) - set(expected))
    missing = sorted(set(expected) - set(present))
    for n in missing:
        errors.append('missing photo %s' % n)
    for n in extra:
        errors.append('unexpected photo %s' % n)
    sizes = {}
    for q in qids:
        p = os.path.join(out, q + '.jpg')
        if not os.path.isfile(p):
            continue
        try:
            with Image.open(p) as im:
                fmt = im.format
                im.verify()
            with Image.open(p) as im:
                im.load()
                size, mode = im.size, im.mode
                arr = np.asarray(im.convert('L'), np.float32)
        except Exception as e:  # noqa: BLE001
            errors.append('%s: not a readable image (%s)' % (q, e))
            continue
        if fmt != 'JPEG':
            errors.append('%s: format %s, expected JPEG' % (q, fmt))
        if size not in SIZES:
            errors.append('%s: size %dx%d not allowed' % (q, size[0], size[1]))
        if mode != 'RGB':
            errors.append('%s: mode %s, expected RGB' % (q, mode))
        if arr.std() < 8:
            errors.append('%s: image looks blank (std %.1f)' % (q, arr.std()))
        sizes[size] = sizes.get(size, 0) + 1
        try:
            import cv2
            img = cv2.imread(p)
            if img is None or (img.shape[1], img.shape[0]) != size:
                errors.append('%s: OpenCV cannot read it consistently' % q)
        except ImportError:
            pass
        d = case_rows.get(q)
        if d and d.get('framed_quad'):
            try:
                quad = [tuple(float(v) for v in pt.split(',')) for pt in d['framed_quad'].split()]
            except ValueError:
                errors.append('%s: bad framed_quad in cases.csv' % q)
                continue
            W, H = size
            if len(quad) != 4 or not all(0 <= x <= W and 0 <= y <= H for x, y in quad):
                errors.append('%s: framed problem is not wholly inside the photo' % q)
            if not inside_poly((W / 2.0, H / 2.0), quad):
                errors.append('%s: photo centre is not on the framed problem' % q)
        if d and d.get('xh_px'):
            try:
                if float(d['xh_px']) < 13.0:
                    errors.append('%s: x-height %.1f px too small' % (q, float(d['xh_px'])))
            except ValueError:
                errors.append('%s: bad xh_px' % q)
        if d and d.get('centre_gap_px'):
            try:
                if float(d['centre_gap_px']) < 0:
                    errors.append('%s: camera fell back to an unchecked frame' % q)
            except ValueError:
                pass

    for w in warnings:
        print('WARNING:', w)
    for e in errors[:200]:
        print('ERROR:', e)
    if len(errors) > 200:
        print('... %d more errors' % (len(errors) - 200))
    print('%d photos, %d errors; sizes: %s' % (len(qids), len(errors),
          ', '.join('%dx%d=%d' % (k[0], k[1], v) for k, v in sorted(sizes.items()))))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
