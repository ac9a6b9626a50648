#!/usr/bin/env python3
"""Validate a photos_tune29 output directory.

Usage:
  python check.py OUTDIR --bank appliance/data/demo_bank.jsonl [--summary]

Checks: q001.jpg ... exist, decode and are 1280x960 or 960x1280; truth.csv,
queries.csv and cases.csv are UTF-8 without BOM, have the expected columns and
one row per photo in the same order; every truth text equals the bank question
of its expected_id (and of cases.csv bank_id); query == truth, kind == exact;
entries with a superscript / subscript / ___ blank come first and every bank
entry is used once before any repeats; recorded framed text height is in the
22-60 px range and the framed quad lies inside the photo.  Exits 1 on a problem.
With --summary, prints counts of the case kinds.
"""
from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import re
import sys

import cv2

SUP_SUB = set('²³¹⁰⁴⁵⁶⁷⁸⁹⁺⁻ⁿ₀₁₂₃₄₅₆₇₈₉ₙ₊₋ₓ')
CASE_COLS = ['qid', 'bank_id', 'orientation', 'sideways_rot', 'panel_style', 'label_style', 'text_color',
             'framed_mode', 'print', 'columns', 'text_h_px', 'framed_lines', 'answer_style', 'framed_pencil',
             'icons', 'tip_box', 'worked_example', 'page_lang', 'mixed_lang', 'book_spread', 'curl_amp',
             'rotation_deg', 'lighting', 'shadow', 'occluder', 'blur_sigma', 'jpeg_quality', 'framed_quad',
             'framed_centre_offset_px', 'nearest_other_centre_offset_px']


def is_special(q):
    return '___' in q or any(c in SUP_SUB for c in q)


def read_csv(path, problems):
    with open(path, 'rb') as f:
        raw = f.read()
    if raw.startswith(b'\xef\xbb\xbf'):
        problems.append(f'{path}: has a UTF-8 BOM')
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as e:
        problems.append(f'{path}: not UTF-8 ({e})')
        return [], []
    rows = list(csv.reader(text.splitlines(True)))
    if not rows:
        problems.append(f'{path}: empty')
        return [], []
    return rows[0], rows[1:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('outdir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--summary', action='store_true', help='print counts of case kinds')
    a = ap.parse_args(argv)
    problems = []
    bank = {}
    bank_order = []
    with open(a.bank, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                e = json.loads(line)
                bank[e['id']] = e['question']
                bank_order.append(e['id'])

    th, truth = read_csv(os.path.join(a.outdir, 'truth.csv'), problems)
    qh, queries = read_csv(os.path.join(a.outdir, 'queries.csv'), problems)
    ch, cases = read_csv(os.path.join(a.outdir, 'cases.csv'), problems)
    if th != ['qid', 'text']:
        problems.append(f'truth.csv header {th}')
    if qh != ['qid', 'query', 'expected_id', 'kind']:
        problems.append(f'queries.csv header {qh}')
    missing = [c for c in CASE_COLS if c not in ch]
    if missing:
        problems.append(f'cases.csv lacks columns {missing}')
    n = len(truth)
    if n == 0:
        problems.append('no photos listed')
    if len(queries) != n or len(cases) != n:
        problems.append(f'row counts differ: truth {n}, queries {len(queries)}, cases {len(cases)}')
    jpgs = sorted(f for f in os.listdir(a.outdir) if f.endswith('.jpg'))
    expect = [f'q{i:03d}' for i in range(1, n + 1)]
    if jpgs != [q + '.jpg' for q in expect]:
        problems.append(f'jpg files {len(jpgs)} do not match q001..q{n:03d}')
    cidx = {c: i for i, c in enumerate(ch)}
    used = []
    for i in range(n):
        qid = expect[i]
        t = truth[i] if i < len(truth) else None
        q = queries[i] if i < len(queries) else None
        c = cases[i] if i < len(cases) else None
        if not t or len(t) != 2 or t[0] != qid:
            problems.append(f'truth row {i + 1}: {t!r}')
            continue
        if not q or len(q) != 4 or q[0] != qid:
            problems.append(f'queries row {i + 1}: {q!r}')
            continue
        eid = q[2]
        used.append(eid)
        if eid not in bank:
            problems.append(f'{qid}: expected_id {eid} not in bank')
            continue
        if t[1] != bank[eid]:
            problems.append(f'{qid}: truth text differs from bank {eid}: {t[1]!r} vs {bank[eid]!r}')
        if q[1] != bank[eid]:
            problems.append(f'{qid}: query differs from bank text')
        if q[3] != 'exact':
            problems.append(f'{qid}: kind {q[3]!r}')
        if c is not None and len(c) == len(ch):
            if c[cidx['qid']] != qid or c[cidx['bank_id']] != eid:
                problems.append(f'{qid}: cases.csv row does not match ({c[cidx["qid"]]}, {c[cidx["bank_id"]]})')
            try:
                if float(c[cidx['framed_centre_offset_px']]) >= float(c[cidx['nearest_other_centre_offset_px']]):
                    problems.append(f'{qid}: another bank problem is nearer the photo centre than the framed one')
            except (KeyError, ValueError):
                problems.append(f'{qid}: bad centre offsets')
            try:
                h = float(c[cidx['text_h_px']])
                if not 21.5 <= h <= 60.5:
                    problems.append(f'{qid}: framed text height {h} px outside 22-60')
            except ValueError:
                problems.append(f'{qid}: bad text_h_px')
        elif c is not None:
            problems.append(f'{qid}: cases.csv row has {len(c)} fields, header {len(ch)}')
        path = os.path.join(a.outdir, qid + '.jpg')
        img = cv2.imread(path) if os.path.exists(path) else None
        if img is None:
            problems.append(f'{qid}: cannot read {path}')
            continue
        hh, ww = img.shape[:2]
        if (ww, hh) not in ((1280, 960), (960, 1280)):
            problems.append(f'{qid}: size {ww}x{hh}')
        if c is not None and len(c) == len(ch):
            want = (1280, 960) if c[cidx['orientation']] == 'landscape' else (960, 1280)
            if (ww, hh) != want:
                problems.append(f'{qid}: size {ww}x{hh} but orientation {c[cidx["orientation"]]}')
            try:
                v = [float(x) for x in c[cidx['framed_quad']].split()]
                xs, ys = v[0::2], v[1::2]
                if len(v) != 8 or min(xs) < 0 or max(xs) > ww or min(ys) < 0 or max(ys) > hh:
                    problems.append(f'{qid}: framed quad outside the photo: {v}')
            except ValueError:
                problems.append(f'{qid}: bad framed_quad')
    # ordering rule: special entries first, every entry once before any repeats
    nb = len(bank_order)
    specials = {e for e in bank_order if is_special(bank[e])}
    for start in range(0, len(used), nb):
        cyc = used[start:start + nb]
        if len(set(cyc)) != len(cyc):
            problems.append(f'an entry repeats within photos {start + 1}..{start + len(cyc)}')
        ns = len(specials)
        head = cyc[:ns]
        if len(cyc) >= ns and set(head) != specials:
            problems.append(f'photos {start + 1}..{start + ns}: not exactly the {ns} special entries')
        elif len(cyc) < ns and not set(cyc) <= specials:
            problems.append('non-special entry used before all special entries')
    for p in problems[:50]:
        print('PROBLEM:', p)
    if len(problems) > 50:
        print(f'... and {len(problems) - 50} more')
    if a.summary and cases:
        cnt = lambda col: collections.Counter(r[cidx[col]] for r in cases)
        for col in ['orientation', 'sideways_rot', 'panel_style', 'text_color', 'label_style', 'framed_mode',
                    'print', 'columns', 'side_column', 'page_lang', 'mixed_lang', 'page_has_zh_and_en', 'icons',
                    'tip_box', 'tip_place', 'worked_example', 'answer_style', 'framed_answer', 'book_spread',
                    'lighting', 'shadow', 'occluder', 'desk', 'framed_lines', 'header_style', 'special']:
            if col in cidx:
                print(f'{col}: ' + ', '.join(f'{k or "-"}={v}' for k, v in sorted(cnt(col).items())))
        pen = sum(1 for r in cases if r[cidx['framed_pencil']])
        print(f'framed problem with pencil answer: {pen}')
        hs = sorted(float(r[cidx['text_h_px']]) for r in cases)
        print(f'text_h_px: min {hs[0]}, median {hs[len(hs) // 2]}, max {hs[-1]}')
        rot = [abs(float(r[cidx['rotation_deg']])) for r in cases]
        print(f'|rotation| > 6 deg: {sum(1 for x in rot if x > 6)}; curl: {sum(1 for r in cases if float(r[cidx["curl_amp"]]) > 0)}; '
              f'blur>0: {sum(1 for r in cases if float(r[cidx["blur_sigma"]]) > 0 or r[cidx["motion_blur_px"]] != "0")}')
        jq = [int(r[cidx['jpeg_quality']]) for r in cases]
        print(f'jpeg quality {min(jq)}-{max(jq)}')
    if problems:
        print(f'FAILED: {len(problems)} problem(s) in {a.outdir}')
        return 1
    print(f'OK: {n} photos in {a.outdir}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
