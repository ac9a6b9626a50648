#!/usr/bin/env python3
"""Validate a photo set made by make_photos.py.

Usage: check.py OUTDIR [--bank BANK.jsonl]
Exit status 0 when everything is consistent, 1 on any error (all errors are listed).
"""

import argparse
import csv
import json
import os
import re
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.normpath(os.path.join(HERE, '..', '..', 'appliance', 'data', 'demo_bank.jsonl'))
SIZES = {(1280, 960), (960, 1280), (1600, 1200), (1200, 1600), (2000, 1500), (1500, 2000)}
MIN_XHEIGHT = 14.0


def read_csv(path, header, errors):
    if not os.path.isfile(path):
        errors.append('missing %s' % path)
        return []
    with open(path, newline='', encoding='utf-8') as f:
        rows = list(csv.reader(f))
    if not rows:
        errors.append('%s is empty' % path)
        return []
    if header is not None and rows[0] != header:
        errors.append('%s: header %r, expected %r' % (os.path.basename(path), rows[0], header))
        return []
    return [dict(zip(rows[0], r)) for r in rows[1:]] if header is None else [dict(zip(header, r)) for r in rows[1:]]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('outdir')
    ap.add_argument('--bank', default=DEFAULT_BANK)
    args = ap.parse_args(argv)
    errors = []
    out = args.outdir
    if not os.path.isdir(out):
        print('ERROR: no such directory %s' % out)
        return 1
    bank = {}
    try:
        with open(args.bank, encoding='utf-8') as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    bank[d['id']] = d['question']
    except OSError as e:
        print('ERROR: cannot read bank: %s' % e)
        return 1
    questions = set(bank.values())

    truth = read_csv(os.path.join(out, 'truth.csv'), ['qid', 'text'], errors)
    queries = read_csv(os.path.join(out, 'queries.csv'), ['qid', 'query', 'expected_id', 'kind'], errors)
    cases = read_csv(os.path.join(out, 'cases.csv'), None, errors)

    photos = sorted(fn for fn in os.listdir(out) if fn.endswith('.jpg'))
    bad_names = [fn for fn in photos if not re.fullmatch(r'tp\d{3}\.jpg', fn)]
    if bad_names:
        errors.append('unexpected photo names: %s' % bad_names[:5])
    n = len(truth)
    if n == 0:
        errors.append('truth.csv has no rows')
    expect_q = ['tp%03d' % (k + 1) for k in range(n)]
    if [r['qid'] for r in truth] != expect_q:
        errors.append('truth.csv qids are not tp001..tp%03d in order' % n)
    if sorted(photos) != [q + '.jpg' for q in expect_q]:
        missing = sorted(set(q + '.jpg' for q in expect_q) - set(photos))
        extra = sorted(set(photos) - set(q + '.jpg' for q in expect_q))
        errors.append('photo files do not match truth.csv (missing %s, extra %s)' % (missing[:5], extra[:5]))
    for r in truth:
        if r['text'] not in questions:
            errors.append('%s: truth text is not a bank question: %r' % (r['qid'], r['text'][:60]))
    # queries
    if len(queries) != n:
        errors.append('queries.csv has %d rows, truth.csv %d' % (len(queries), n))
    tmap = {r['qid']: r['text'] for r in truth}
    for r in queries:
        if r['qid'] not in tmap:
            errors.append('queries.csv: unknown qid %s' % r['qid'])
            continue
        if r['query'] != tmap[r['qid']]:
            errors.append('%s: query differs from truth text' % r['qid'])
        if r['kind'] != 'exact':
            errors.append('%s: kind %r (expected exact)' % (r['qid'], r['kind']))
        if r['expected_id'] not in bank:
            errors.append('%s: expected_id %s not in bank' % (r['qid'], r['expected_id']))
        elif bank[r['expected_id']] != r['query']:
            errors.append('%s: expected_id %s question differs from query' % (r['qid'], r['expected_id']))
    # cases
    if len(cases) != n:
        errors.append('cases.csv has %d rows, truth.csv %d' % (len(cases), n))
    cmap = {r.get('qid'): r for r in cases}
    # photos
    for q in expect_q:
        path = os.path.join(out, q + '.jpg')
        if not os.path.isfile(path):
            continue
        with open(path, 'rb') as f:
            data = f.read()
        if data[:3] != b'\xff\xd8\xff':
            errors.append('%s: not a JPEG file' % q)
            continue
        if not data.rstrip(b'\x00').endswith(b'\xff\xd9'):
            errors.append('%s: truncated JPEG (no end-of-image marker)' % q)
            continue
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            errors.append('%s: unreadable photo' % q)
            continue
        h, w = img.shape[:2]
        if (w, h) not in SIZES:
            errors.append('%s: unexpected size %dx%d' % (q, w, h))
        if float(img.std()) < 8:
            errors.append('%s: photo is nearly uniform' % q)
        c = cmap.get(q)
        if c is None:
            errors.append('%s: no row in cases.csv' % q)
            continue
        try:
            if (int(c['photo_w']), int(c['photo_h'])) != (w, h):
                errors.append('%s: cases.csv size %sx%s differs from photo %dx%d' % (q, c['photo_w'], c['photo_h'], w, h))
            if c['expected_id'] != (queries[expect_q.index(q)]['expected_id'] if len(queries) == n else c['expected_id']):
                errors.append('%s: cases.csv expected_id differs from queries.csv' % q)
            x0, y0, x1, y1 = [float(v) for v in c['target_bbox'].split()]
            if not (0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h):
                errors.append('%s: framed problem box %s is not inside the photo' % (q, c['target_bbox']))
            cx, cy = w / 2.0, h / 2.0
            if not (x0 - 0.1 * w <= cx <= x1 + 0.1 * w and y0 - 0.1 * h <= cy <= y1 + 0.1 * h):
                errors.append('%s: framed problem box %s is far from the photo centre' % (q, c['target_bbox']))
            if float(c['xheight_px']) < MIN_XHEIGHT:
                errors.append('%s: printed x-height %.1f px < %.0f' % (q, float(c['xheight_px']), MIN_XHEIGHT))
        except (KeyError, ValueError) as e:
            errors.append('%s: bad cases.csv row (%s)' % (q, e))
    if errors:
        for e in errors:
            print('ERROR:', e)
        print('%d error(s)' % len(errors))
        return 1
    print('OK: %d photos, truth/queries/cases consistent with %s' % (n, os.path.relpath(args.bank)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
