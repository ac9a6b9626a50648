#!/usr/bin/env python3
"""Sanity checks for a photo set made by make_photos.py.

    check.py --bank BANK OUT [--count N]

Checks: photo/CSV counts agree, qids match across truth/queries/cases,
each truth text is a bank question (unchanged), query == truth text,
expected_id names that question, kind == exact, every photo opens and has
the size cases.csv states.  Prints per-kind counts.  Exit status 1 on error.
"""
import argparse
import collections
import csv
import json
import os
import sys

from PIL import Image


def read_csv(path):
    with open(path, encoding='utf-8', newline='') as f:
        return list(csv.DictReader(f))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bank', required=True)
    ap.add_argument('out')
    ap.add_argument('--count', type=int, default=None)
    a = ap.parse_args()
    bank = {}
    with open(a.bank, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                bank[r['id']] = r['question']
    questions = set(bank.values())
    errs = []
    truth = read_csv(os.path.join(a.out, 'truth.csv'))
    queries = read_csv(os.path.join(a.out, 'queries.csv'))
    cases = read_csv(os.path.join(a.out, 'cases.csv'))
    jpgs = sorted(x for x in os.listdir(a.out) if x.startswith('t') and x.endswith('.jpg'))
    n = a.count if a.count is not None else len(truth)
    for name, rows in (('truth', truth), ('queries', queries), ('cases', cases)):
        if len(rows) != n:
            errs.append('%s.csv has %d rows, expected %d' % (name, len(rows), n))
    if len(jpgs) != n:
        errs.append('%d photos, expected %d' % (len(jpgs), n))
    want = ['t%03d' % i for i in range(1, n + 1)]
    for name, rows in (('truth', truth), ('queries', queries), ('cases', cases)):
        if [r['qid'] for r in rows] != want:
            errs.append('%s.csv qids are not t001..t%03d in order' % (name, n))
    if [x[:-4] for x in jpgs] != want:
        errs.append('photo names are not t001..t%03d' % n)
    tq = {r['qid']: r['text'] for r in truth}
    for r in queries:
        t = tq.get(r['qid'])
        if t not in questions:
            errs.append('%s: truth text is not a bank question: %r' % (r['qid'], t))
        if r['query'] != t:
            errs.append('%s: query differs from truth' % r['qid'])
        if bank.get(r['expected_id']) != t:
            errs.append('%s: expected_id %s does not hold the truth text' % (r['qid'], r['expected_id']))
        if r['kind'] != 'exact':
            errs.append('%s: kind %r' % (r['qid'], r['kind']))
    for r in cases:
        if tq.get(r['qid']) != bank.get(r['bank_id']):
            errs.append('%s: cases bank_id disagrees with truth' % r['qid'])
        p = os.path.join(a.out, r['qid'] + '.jpg')
        try:
            with Image.open(p) as im:
                im.load()
                if im.size != (int(r['photo_w']), int(r['photo_h'])):
                    errs.append('%s: size %s, cases says %sx%s' % (r['qid'], im.size, r['photo_w'], r['photo_h']))
        except Exception as e:  # noqa: BLE001
            errs.append('%s: cannot open photo: %s' % (r['qid'], e))
    kinds = collections.Counter(k for r in cases for k in r['kinds'].split(';') if k)
    langs = collections.Counter(r['lang'] for r in cases)
    use = collections.Counter(r['bank_id'] for r in cases)
    print('photos: %d  languages: %s' % (len(cases), dict(langs)))
    print('kinds: %s' % dict(sorted(kinds.items())))
    print('marks: %s' % dict(collections.Counter(k for r in cases for k in r['marks'].split(';') if k)))
    print('furniture: %s' % dict(collections.Counter(k for r in cases for k in r['furniture'].split(';') if k)))
    print('bank questions used: %d, most uses of one question: %d' % (len(use), max(use.values()) if use else 0))
    for sc in ('far', 'near', 'normal'):
        rs = [r for r in cases if r['scale'] == sc]
        if rs:
            ch = [float(r['char_px']) for r in rs]
            iv = [int(r['problems_in_view']) for r in rs]
            print('%-6s n=%3d char_px %.1f..%.1f  problems in view %d..%d' % (sc, len(rs), min(ch), max(ch),
                                                                          min(iv), max(iv)))
    if errs:
        for e in errs[:50]:
            print('ERROR', e)
        sys.exit(1)
    print('OK')


if __name__ == '__main__':
    main()
