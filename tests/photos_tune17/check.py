#!/usr/bin/env python3
"""Check an s18 photo set: truth/queries/meta agree with the bank, the
nearest-problem rule holds on the stored hulls, images have the stated size.

    python check.py OUT_DIR --bank BANK.jsonl
Exit status 0 when every check passes."""
import argparse
import csv
import json
import math
import os
import sys

from PIL import Image

THR = 0.05
EDGE = 4.0


def seg_dist(p, a, b):
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    L = dx * dx + dy * dy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / L))
    return math.hypot(p[0] - (ax + t * dx), p[1] - (ay + t * dy))


def dist_convex(poly, p):
    """Distance from p to a convex polygon (0 inside)."""
    n = len(poly)
    if n == 0:
        return float('inf')
    signs = set()
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        cr = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
        if abs(cr) > 1e-9:
            signs.add(cr > 0)
    if len(signs) <= 1 and n >= 3:
        return 0.0
    return min(seg_dist(p, poly[i], poly[(i + 1) % n]) for i in range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out_dir')
    ap.add_argument('--bank', required=True)
    a = ap.parse_args()
    bank = {}
    with open(a.bank, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                bank[r['id']] = r
    errs = []

    def err(msg):
        errs.append(msg)

    metas = []
    with open(os.path.join(a.out_dir, 'meta.jsonl'), encoding='utf-8') as f:
        for line in f:
            if line.strip():
                metas.append(json.loads(line))
    with open(os.path.join(a.out_dir, 'truth.csv'), encoding='utf-8', newline='') as f:
        rd = csv.reader(f)
        th = next(rd)
        truth = list(rd)
    with open(os.path.join(a.out_dir, 'queries.csv'), encoding='utf-8', newline='') as f:
        rd = csv.reader(f)
        qh = next(rd)
        queries = list(rd)
    if th != ['qid', 'text']:
        err('truth.csv header %r' % th)
    if qh != ['qid', 'query', 'expected_id', 'kind']:
        err('queries.csv header %r' % qh)
    if not (len(truth) == len(queries) == len(metas)):
        err('row counts differ: truth %d queries %d meta %d' % (len(truth), len(queries), len(metas)))
    tmap = {r[0]: r[1] for r in truth}
    qmap = {r[0]: r[1:] for r in queries}
    if len(tmap) != len(truth):
        err('duplicate qids in truth.csv')
    worst = None
    for m in metas:
        q = m['qid']
        if m['file'] != q + '.jpg':
            err('%s: file name %s' % (q, m['file']))
        b = bank.get(m['bank_id'])
        if b is None:
            err('%s: bank id %s not in bank' % (q, m['bank_id']))
            continue
        if tmap.get(q) != b['question']:
            err('%s: truth text differs from bank question' % q)
        qq = qmap.get(q)
        if qq != [b['question'], m['bank_id'], 'exact']:
            err('%s: queries row %r' % (q, qq))
        path = os.path.join(a.out_dir, m['file'])
        if not os.path.exists(path):
            err('%s: image missing' % q)
            continue
        with Image.open(path) as im:
            if im.size != (m['width'], m['height']):
                err('%s: image size %r != %r' % (q, im.size, (m['width'], m['height'])))
        W, H = m['width'], m['height']
        cen = (W / 2.0, H / 2.0)
        hull = m['hull']
        xs = [p[0] for p in hull]
        ys = [p[1] for p in hull]
        if min(xs) < EDGE or min(ys) < EDGE or max(xs) > W - EDGE or max(ys) > H - EDGE:
            err('%s: framed problem not >= %dpx inside the photo' % (q, EDGE))
        bx = m['box']
        if max(abs(bx[0] - min(xs)), abs(bx[1] - min(ys)), abs(bx[2] - max(xs)), abs(bx[3] - max(ys))) > 1.0:
            err('%s: box does not match hull' % q)
        dF = dist_convex(hull, cen)
        if abs(dF - m['framed_dist']) > 0.6:
            err('%s: framed_dist %.2f, recomputed %.2f' % (q, m['framed_dist'], dF))
        ods = []
        ids = set()
        for o in m['others']:
            d = dist_convex(o['hull'], cen)
            if abs(d - o['dist']) > 0.6:
                err('%s: other %s dist %.2f, recomputed %.2f' % (q, o['bank_id'], o['dist'], d))
            if o['bank_id'] == m['bank_id']:
                err('%s: framed problem printed twice' % q)
            if o['bank_id'] in ids:
                err('%s: %s printed twice' % (q, o['bank_id']))
            ids.add(o['bank_id'])
            ods.append((d, o['bank_id']))
        ods.sort()
        if not ods:
            err('%s: no other problems on the page' % q)
            continue
        gap = (ods[0][0] - dF) / max(W, H)
        if gap < THR:
            err('%s: nearest other problem only %.4f*max(W,H) farther' % (q, gap))
        if abs(gap - m['min_gap_ratio']) > 0.001:
            err('%s: min_gap_ratio %.4f, recomputed %.4f' % (q, m['min_gap_ratio'], gap))
        no = m['nearest_others']
        rec = {bid: d for d, bid in ods}
        if any(abs(rec.get(x[0], -1e9) - x[1]) > 0.6 for x in no) or \
                any(abs(x[1] - o[0]) > 0.6 for x, o in zip(no, ods)):
            err('%s: nearest_others not the nearest' % q)
        if not (22.0 <= m['body_px'] <= 56.0):
            err('%s: body_px %.1f out of 22..56' % (q, m['body_px']))
        if worst is None or gap < worst[0]:
            worst = (gap, q)
    print('%d photos checked, %d problems' % (len(metas), len(errs)))
    if worst:
        print('smallest gap ratio %.4f (%s)' % worst)
    for e in errs[:50]:
        print('  ' + e)
    sys.exit(1 if errs else 0)


if __name__ == '__main__':
    main()
