#!/usr/bin/env python3
"""Check a folder made by make_photos.py.

  .venv/bin/python tests/photos_tune24/check.py /tmp/s25 [--bank appliance/data/demo_bank.jsonl]

Checks: csv headers; every qid has a photo (and every photo a qid); truth text equals the bank
question of expected_id; query equals truth and kind is "exact"; a question is framed at most twice;
photo sizes; and, when cases.csv is there, that the printed pieces give back the truth, that the
framed problem has at least two pieces, and the line heights / JPEG qualities are in range.
Exit status 1 when something is wrong.
"""
import argparse
import csv
import json
import os
import sys
from collections import Counter

from PIL import Image

SIZES = {(1280, 960), (960, 1280), (1600, 1200), (1200, 1600)}
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.normpath(os.path.join(HERE, '..', '..', 'appliance', 'data', 'demo_bank.jsonl'))


def read_csv(path):
    with open(path, newline='', encoding='utf-8') as f:
        r = csv.reader(f)
        header = next(r)
        return header, [row for row in r]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('folder')
    ap.add_argument('--bank', default=DEFAULT_BANK)
    args = ap.parse_args()
    errs = []
    bank = {}
    with open(args.bank, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                bank[d['id']] = d['question']

    th, truth = read_csv(os.path.join(args.folder, 'truth.csv'))
    qh, queries = read_csv(os.path.join(args.folder, 'queries.csv'))
    if th != ['qid', 'text']:
        errs.append('truth.csv header is %r' % th)
    if qh != ['qid', 'query', 'expected_id', 'kind']:
        errs.append('queries.csv header is %r' % qh)
    tmap = {}
    for row in truth:
        if len(row) != 2:
            errs.append('truth.csv bad row %r' % row)
            continue
        if row[0] in tmap:
            errs.append('duplicate qid %s in truth.csv' % row[0])
        tmap[row[0]] = row[1]
    qmap = {}
    for row in queries:
        if len(row) != 4:
            errs.append('queries.csv bad row %r' % row)
            continue
        qmap[row[0]] = row
    if set(tmap) != set(qmap):
        errs.append('qids differ between truth.csv and queries.csv')
    uses = Counter()
    sizes = Counter()
    for qid, text in sorted(tmap.items()):
        q = qmap.get(qid)
        if q:
            _, query, eid, kind = q
            uses[eid] += 1
            if eid not in bank:
                errs.append('%s: expected_id %s not in bank' % (qid, eid))
            elif bank[eid] != text:
                errs.append('%s: truth is not the bank question of %s' % (qid, eid))
            if query != text:
                errs.append('%s: query differs from truth' % qid)
            if kind != 'exact':
                errs.append('%s: kind %r' % (qid, kind))
        path = os.path.join(args.folder, qid + '.jpg')
        if not os.path.exists(path):
            errs.append('%s: photo missing' % qid)
            continue
        try:
            with Image.open(path) as im:
                if im.format != 'JPEG':
                    errs.append('%s: not a JPEG' % qid)
                if im.size not in SIZES:
                    errs.append('%s: size %s' % (qid, im.size))
                sizes['%dx%d' % im.size] += 1
                im.load()
        except Exception as e:  # noqa
            errs.append('%s: cannot read photo (%s)' % (qid, e))
    extra = sorted(f for f in os.listdir(args.folder) if f.endswith('.jpg') and f[:-4] not in tmap)
    if extra:
        errs.append('photos without a qid: %s' % extra[:10])
    for eid, n in uses.items():
        if n > 2:
            errs.append('%s is framed %d times' % (eid, n))

    cases_path = os.path.join(args.folder, 'cases.csv')
    kinds = Counter()
    if os.path.exists(cases_path):
        with open(cases_path, newline='', encoding='utf-8') as f:
            cases = list(csv.DictReader(f))
        seen = set()
        for c in cases:
            qid = c['qid']
            seen.add(qid)
            if qid not in tmap:
                errs.append('cases.csv: unknown qid %s' % qid)
                continue
            pieces = json.loads(c['pieces'])
            joins = json.loads(c['joiners'])
            if len(pieces) < 2:
                errs.append('%s: framed problem printed in %d piece(s)' % (qid, len(pieces)))
            if len(joins) != len(pieces) - 1 or any(j not in ('', ' ') for j in joins):
                errs.append('%s: bad joiners %r' % (qid, joins))
            else:
                back = pieces[0] + ''.join(j + p for j, p in zip(joins, pieces[1:]))
                if back != tmap[qid]:
                    errs.append('%s: pieces do not give back the truth: %r' % (qid, back))
            if c['expected_id'] != qmap.get(qid, [None, None, None])[2]:
                errs.append('%s: cases.csv expected_id differs' % qid)
            lh = float(c['line_height'])
            if not 21.5 <= lh <= 60.5:
                errs.append('%s: line height %.1f' % (qid, lh))
            if not 80 <= int(c['jpeg_quality']) <= 92:
                errs.append('%s: jpeg quality %s' % (qid, c['jpeg_quality']))
            for k in c['kinds'].split('+'):
                if k:
                    kinds[k] += 1
            if not c['kinds']:
                errs.append('%s: no kind of case recorded' % qid)
        missing = set(tmap) - seen
        if missing:
            errs.append('cases.csv lacks %d qids (e.g. %s)' % (len(missing), sorted(missing)[:3]))

    print('photos: %d  sizes: %s' % (len(tmap), dict(sizes)))
    print('questions framed twice: %d, once: %d' % (sum(1 for n in uses.values() if n == 2), sum(1 for n in uses.values() if n == 1)))
    if kinds:
        print('kinds: display %d, gap %d, drawing %d, wrapped %d' % (kinds['display'], kinds['gap'], kinds['drawing'], kinds['wrapped']))
    if errs:
        print('%d problem(s):' % len(errs))
        for e in errs[:60]:
            print('  ' + e)
        sys.exit(1)
    print('OK')


if __name__ == '__main__':
    main()
