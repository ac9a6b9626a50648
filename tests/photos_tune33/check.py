#!/usr/bin/env python3
"""Consistency check for a photo set written by make_photos.py.

    check.py OUTDIR [--bank BANK]

Checks that every qid in truth.csv / queries.csv / cases.csv has a JPEG,
that the three CSVs agree, that the truth text is exactly the bank question
of expected_id, that image sizes are sane and match cases.csv, and that the
framed quad lies inside the photo and agrees with centre_dx/centre_dy.
Prints a summary table of the case columns.  Exit status 1 on any error.
"""

import argparse
import csv
import glob
import json
import os
import statistics
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.normpath(os.path.join(HERE, '..', '..', 'appliance', 'data', 'demo_bank.jsonl'))

QUAD_COLS = ('framed_quad', 'question_quad')
SKIP_SUMMARY = ('qid', 'expected_id', 'label', 'section_heading', 'score_note') + QUAD_COLS


def read_csv(path):
    with open(path, newline='', encoding='utf-8') as fh:
        return list(csv.DictReader(fh))


def image_size(path):
    try:
        from PIL import Image
        with Image.open(path) as im:
            im.load()
            return im.size, im.format
    except ImportError:
        import cv2
        im = cv2.imread(path)
        if im is None:
            raise ValueError('cannot decode')
        return (im.shape[1], im.shape[0]), 'JPEG'


def quad(s):
    v = [float(x) for x in s.split()]
    if len(v) != 8:
        raise ValueError('quad needs 8 numbers')
    return [(v[k], v[k + 1]) for k in range(0, 8, 2)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('outdir')
    ap.add_argument('--bank', default=DEFAULT_BANK)
    a = ap.parse_args()
    errors = []

    def err(msg):
        errors.append(msg)

    bank = {}
    with open(a.bank, encoding='utf-8') as fh:
        for line in fh:
            if line.strip():
                q = json.loads(line)
                bank[q['id']] = q
    truth = read_csv(os.path.join(a.outdir, 'truth.csv'))
    queries = read_csv(os.path.join(a.outdir, 'queries.csv'))
    cases = read_csv(os.path.join(a.outdir, 'cases.csv'))
    if truth and list(truth[0].keys()) != ['qid', 'text']:
        err('truth.csv header is %s' % list(truth[0].keys()))
    if queries and list(queries[0].keys()) != ['qid', 'query', 'expected_id', 'kind']:
        err('queries.csv header is %s' % list(queries[0].keys()))
    tq = [r['qid'] for r in truth]
    qq = [r['qid'] for r in queries]
    cq = [r['qid'] for r in cases]
    if tq != qq or tq != cq:
        err('qid lists differ between truth/queries/cases')
    if len(set(tq)) != len(tq):
        err('duplicate qids')
    expected = ['l%03d' % k for k in range(1, len(tq) + 1)]
    if tq != expected:
        err('qids are not l001..l%03d in order' % len(tq))
    jpgs = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(a.outdir, 'l*.jpg')))
    extra = sorted(set(jpgs) - set(tq))
    if extra:
        err('jpgs without a row: %s' % ' '.join(extra[:10]))
    T = {r['qid']: r for r in truth}
    Q = {r['qid']: r for r in queries}
    framed_ids = Counter()
    for c in cases:
        qid = c['qid']
        eid = c['expected_id']
        framed_ids[eid] += 1
        path = os.path.join(a.outdir, qid + '.jpg')
        if not os.path.exists(path):
            err('%s: missing jpg' % qid)
            continue
        if eid not in bank:
            err('%s: expected_id %s not in bank' % (qid, eid))
            continue
        text = bank[eid]['question']
        t = T.get(qid, {}).get('text')
        if t != text:
            err('%s: truth text differs from bank question of %s' % (qid, eid))
        qr = Q.get(qid, {})
        if qr.get('query') != text or qr.get('expected_id') != eid or qr.get('kind') != 'exact':
            err('%s: queries.csv row inconsistent' % qid)
        try:
            (w, h), fmt = image_size(path)
        except Exception as e:   # noqa
            err('%s: unreadable jpg (%s)' % (qid, e))
            continue
        if fmt != 'JPEG':
            err('%s: not a JPEG (%s)' % (qid, fmt))
        if (w, h) != (int(c['photo_w']), int(c['photo_h'])):
            err('%s: size %dx%d != cases %sx%s' % (qid, w, h, c['photo_w'], c['photo_h']))
        if not (640 <= min(w, h) and max(w, h) <= 4000 and 1.2 <= max(w, h) / min(w, h) <= 1.5):
            err('%s: odd size %dx%d' % (qid, w, h))
        if os.path.getsize(path) < 20000:
            err('%s: jpg suspiciously small (%d bytes)' % (qid, os.path.getsize(path)))
        try:
            fq = quad(c['framed_quad'])
            qq_ = quad(c['question_quad'])
        except Exception as e:   # noqa
            err('%s: bad quad (%s)' % (qid, e))
            continue
        for x, y in fq:
            if not (0 <= x <= w and 0 <= y <= h):
                err('%s: framed_quad corner (%.0f,%.0f) outside the photo' % (qid, x, y))
                break
        cx = sum(p[0] for p in fq) / 4
        cy = sum(p[1] for p in fq) / 4
        if abs(cx / w - 0.5 - float(c['centre_dx'])) > 0.002 or abs(cy / h - 0.5 - float(c['centre_dy'])) > 0.002:
            err('%s: centre_dx/dy disagree with framed_quad' % qid)
        xs = [p[0] for p in fq]
        ys = [p[1] for p in fq]
        for x, y in qq_:
            if not (min(xs) - 3 <= x <= max(xs) + 3 and min(ys) - 3 <= y <= max(ys) + 3):
                err('%s: question_quad not inside framed_quad' % qid)
                break
    # ---- summary --------------------------------------------------------
    n = len(cases)
    print('%d photos in %s' % (n, a.outdir))
    print('distinct framed bank ids: %d (most repeated: %s)' % (
        len(framed_ids), ', '.join('%s x%d' % kv for kv in framed_ids.most_common(3))))
    if cases:
        print('\n%-20s %s' % ('column', 'summary'))
        print('%-20s %s' % ('-' * 20, '-' * 58))
        for col in cases[0].keys():
            if col in SKIP_SUMMARY:
                continue
            vals = [r[col] for r in cases]
            try:
                nums = [float(v) for v in vals]
            except ValueError:
                nums = None
            distinct = Counter(vals)
            if nums is not None and len(distinct) > 8:
                s = 'min %.3g  median %.3g  max %.3g' % (min(nums), statistics.median(nums), max(nums))
                if col in ('centre_dx', 'centre_dy'):
                    a5 = sum(1 for v in nums if abs(v) <= 0.05)
                    s += '   |v|<=0.05: %d' % a5
            else:
                items = distinct.most_common()
                s = '  '.join('%s:%d' % (k if k != '' else '(none)', v) for k, v in items[:12])
                if len(items) > 12:
                    s += '  ... (%d values)' % len(items)
            print('%-20s %s' % (col, s))
        extra_cols = {
            'score_note': sum(1 for r in cases if r['score_note']),
            'section_heading': sum(1 for r in cases if r['section_heading']),
        }
        for k, v in extra_cols.items():
            print('%-20s non-empty: %d' % (k, v))
    print()
    if errors:
        for e in errors[:50]:
            print('ERROR', e)
        print('%d error(s)' % len(errors))
        sys.exit(1)
    print('OK: %d photos consistent' % n)


if __name__ == '__main__':
    main()
