#!/usr/bin/env python3
"""Validator for a photos_tune20 set.

    check.py OUT_DIR --bank BANK [--regen 2] [--no-coverage]

Checks files, CSVs, meta, the framing rule (recomputed from the stored hulls),
occluders, ink under the target, JPEG quality, tag coverage, and (with
--regen N, default 2) that make_photos.py --only remakes N photos byte for byte.
Prints one line per check group and PASS or FAIL; exit status 0 on PASS.
"""
import argparse
import collections
import csv
import difflib
import io
import json
import os
import re
import subprocess
import sys
import tempfile

import cv2
import numpy as np
from PIL import Image

# must match the rule stated in README.md
INSET_EM, INSET_MIN = 0.4, 12.0
DT_MAX_EM = 1.2
MARGIN_EM = 0.6
RATIO = 2.0
OCC_DILATE_EM = 0.25
TOL = 0.75   # px tolerance for recomputed distances (hulls are stored rounded to 0.1 px)

FAMILIES = ['labels_', 'target_label_', 'gap_', 'para_', 'cols_', 'centre_', 'shot_', 'page_', 'target_lines_']

# minimum counts for a full set of >= 100 photos (scaled for smaller sets)
COVERAGE = {
    'labels_none': 30, 'labels_all': 25, 'labels_mixed': 25,
    'target_label_faint': 3, 'target_label_tiny': 3, 'target_label_margin': 3, 'target_label_circled': 5,
    'target_label_covered_*': 5, 'labelled_unlabelled_adjacent': 5,
    'gap_equal': 35, 'gap_slight': 20, 'gap_generous': 12,
    'oneliner_above_multiline': 8, 'multiline_above_oneliner': 8, 'target_short_last_line': 8,
    'para_flush': 15, 'para_hanging': 15, 'para_firstindent': 15, 'para_justified': 15,
    'cols_1': 30, 'cols_2': 30, 'gutter_narrow': 5, 'gutter_medium': 5, 'gutter_wide': 5,
    'headings': 20, 'instructions': 10, 'page_options': 10, 'page_answer_lines': 10, 'page_workspace': 5,
    'target_options': 3, 'target_answer_lines': 3,
    'centre_first': 10, 'centre_last': 10, 'centre_between': 10, 'centre_beside': 5,
    'neighbour_above_whole': 40, 'neighbour_below_whole': 40,
    'shot_close': 15, 'shot_medium': 15, 'shot_far': 15, 'landscape': 25, 'portrait': 25,
    'rotation_3to6': 20, 'perspective_mild': 20, 'uneven_light': 15, 'blur': 10, 'noise': 10, 'jpeg_low': 10,
    'page_worksheet': 10, 'page_exam': 10, 'page_homework': 10, 'page_textbook': 10,
}


class Report:
    def __init__(self):
        self.fails = collections.OrderedDict()
        self.notes = []

    def fail(self, group, msg):
        self.fails.setdefault(group, []).append(msg)

    def group(self, name, n_checked):
        errs = self.fails.get(name, [])
        status = 'ok' if not errs else 'FAIL (%d)' % len(errs)
        print('%-14s %-10s checked %d' % (name, status, n_checked))
        for e in errs[:8]:
            print('    - ' + e)
        if len(errs) > 8:
            print('    ... %d more' % (len(errs) - 8))


def hull(pts):
    return cv2.convexHull(np.asarray(pts, np.float32).reshape(-1, 1, 2))


def dist(h, pt):
    return max(0.0, -cv2.pointPolygonTest(h, (float(pt[0]), float(pt[1])), True))


def std_quant_tables(q):
    b = io.BytesIO()
    Image.new('RGB', (16, 16), (128, 128, 128)).save(b, format='JPEG', quality=q)
    return Image.open(io.BytesIO(b.getvalue())).quantization


def twins_of(bank_rows, qtext):
    return {r['id'] for r in bank_rows
            if r['question'] != qtext and difflib.SequenceMatcher(None, qtext, r['question'], autojunk=False).ratio() >= 0.8}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out_dir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--regen', type=int, default=2, help='remake N photos with --only and compare bytes (0: skip)')
    ap.add_argument('--no-coverage', action='store_true')
    a = ap.parse_args()
    R = Report()
    d = a.out_dir
    bank_rows = [json.loads(l) for l in open(a.bank, encoding='utf-8') if l.strip()]
    bank = {r['id']: r for r in bank_rows}

    # ------------------------------------------------------------------ files
    need = ['truth.csv', 'queries.csv', 'meta.jsonl']
    for f in need:
        if not os.path.exists(os.path.join(d, f)):
            R.fail('files', 'missing ' + f)
    if R.fails:
        R.group('files', 0)
        print('FAIL')
        return 1
    metas = [json.loads(l) for l in open(os.path.join(d, 'meta.jsonl'), encoding='utf-8') if l.strip()]
    n = len(metas)
    qids = [m['qid'] for m in metas]
    if qids != ['d%03d' % k for k in range(1, n + 1)]:
        R.fail('files', 'qids are not d001..d%03d in order' % n)
    jpgs = sorted(f for f in os.listdir(d) if f.endswith('.jpg'))
    if jpgs != [m['file'] for m in metas]:
        R.fail('files', 'jpg files %d do not match meta files %d' % (len(jpgs), n))
    extra = set(os.listdir(d)) - set(jpgs) - set(need)
    if extra:
        R.fail('files', 'unexpected files: %s' % sorted(extra)[:5])
    R.group('files', n)

    # ------------------------------------------------------------------ csv
    with open(os.path.join(d, 'truth.csv'), encoding='utf-8', newline='') as fh:
        tr = list(csv.reader(fh))
    with open(os.path.join(d, 'queries.csv'), encoding='utf-8', newline='') as fh:
        qr = list(csv.reader(fh))
    if tr[0] != ['qid', 'text']:
        R.fail('csv', 'truth.csv header %r' % tr[0])
    if qr[0] != ['qid', 'query', 'expected_id', 'kind']:
        R.fail('csv', 'queries.csv header %r' % qr[0])
    if len(tr) - 1 != n or len(qr) - 1 != n:
        R.fail('csv', 'row counts truth %d queries %d meta %d' % (len(tr) - 1, len(qr) - 1, n))
    for m, t, q in zip(metas, tr[1:], qr[1:]):
        b = bank.get(m['bank_id'])
        if b is None:
            R.fail('csv', '%s: bank_id %s not in bank' % (m['qid'], m['bank_id']))
            continue
        if t != [m['qid'], b['question']]:
            R.fail('csv', '%s: truth row differs from bank question' % m['qid'])
        if q != [m['qid'], b['question'], m['bank_id'], 'exact']:
            R.fail('csv', '%s: queries row wrong' % m['qid'])
    R.group('csv', n)

    # ------------------------------------------------------------------ meta + rule + image
    qt_cache = {}
    tag_counts = collections.Counter()
    for m in metas:
        qid = m['qid']
        W, H = m['width'], m['height']
        if (W, H) not in ((1280, 960), (960, 1280)):
            R.fail('meta', '%s: size %dx%d' % (qid, W, H))
        kinds = m['kinds']
        tag_counts.update(kinds)
        for fam in FAMILIES:
            if not any(k.startswith(fam) for k in kinds):
                R.fail('meta', '%s: no %s* tag' % (qid, fam))
        rot = m['camera']['rotation_deg']
        if abs(rot) > 6.0 + 1e-6:
            R.fail('meta', '%s: rotation %.2f' % (qid, rot))
        jq = m['camera']['jpeg_quality']
        if not 60 <= jq <= 92:
            R.fail('meta', '%s: jpeg quality %d' % (qid, jq))
        ids = [o['bank_id'] for o in m['others']]
        if len(set(ids)) != len(ids) or m['bank_id'] in ids:
            R.fail('meta', '%s: a question appears twice on the page' % qid)
        for i_ in ids:
            if i_ not in bank:
                R.fail('meta', '%s: other bank id %s unknown' % (qid, i_))
        tw = twins_of(bank_rows, bank[m['bank_id']]['question']) if m['bank_id'] in bank else set()
        if tw & set(ids):
            R.fail('meta', '%s: near-duplicate of the target on the page: %s' % (qid, sorted(tw & set(ids))))
        # ---- rule, recomputed
        em = m['target']['em_px']
        quads = [np.asarray(qd, float) for qd in m['target']['line_quads']]
        if len(quads) != m['target']['n_lines']:
            R.fail('rule', '%s: line quads %d != n_lines' % (qid, len(quads)))
        allp = np.vstack(quads)
        inset = max(INSET_MIN, INSET_EM * em)
        if allp[:, 0].min() < inset - 0.2 or allp[:, 1].min() < inset - 0.2 or allp[:, 0].max() > W - inset + 0.2 \
                or allp[:, 1].max() > H - inset + 0.2:
            R.fail('rule', '%s: target text not wholly inside the photo with inset %.1f' % (qid, inset))
        box = m['target']['box']
        if max(abs(box[0] - allp[:, 0].min()), abs(box[1] - allp[:, 1].min()), abs(box[2] - allp[:, 0].max()),
               abs(box[3] - allp[:, 1].max())) > 0.3:
            R.fail('rule', '%s: target box inconsistent with its line quads' % qid)
        th = hull(allp)
        th_meta = hull(m['target']['hull'])
        if abs(cv2.contourArea(th) - cv2.contourArea(th_meta)) > 0.01 * cv2.contourArea(th) + 20:
            R.fail('rule', '%s: target hull inconsistent with its line quads' % qid)
        c = (W / 2.0, H / 2.0)
        dt = dist(th, c)
        if abs(dt - m['target']['distance']) > TOL:
            R.fail('rule', '%s: stored target distance %.2f, recomputed %.2f' % (qid, m['target']['distance'], dt))
        if dt > DT_MAX_EM * em + TOL:
            R.fail('rule', '%s: centre %.1f px from target text (max %.1f)' % (qid, dt, DT_MAX_EM * em))
        needd = max(dt + MARGIN_EM * em, RATIO * dt)
        for o in m['others']:
            do = dist(hull(o['block_hull']), c)
            if abs(do - o['block_distance']) > TOL:
                R.fail('rule', '%s: stored block distance of %s %.2f vs %.2f' % (qid, o['bank_id'], o['block_distance'], do))
            if do < needd - TOL:
                R.fail('rule', '%s: other problem %s at %.1f px, needs >= %.1f' % (qid, o['bank_id'], do, needd))
        for t in m['non_problem_text']:
            do = dist(hull(t['hull']), c)
            if do < needd - TOL:
                R.fail('rule', '%s: %s text at %.1f px, needs >= %.1f' % (qid, t['kind'], do, needd))
        shot = m['camera']['shot']
        ok_shot = {'close': em >= 29, 'medium': 19.5 <= em < 29, 'far': 13.5 <= em < 19.5}.get(shot, False)
        if not ok_shot or 'shot_' + shot not in kinds:
            R.fail('meta', '%s: shot %s inconsistent with em %.1f px' % (qid, shot, em))
        # ---- occluders never touch the target text
        tmask = np.zeros((H, W), np.uint8)
        for qd in quads:
            cv2.fillPoly(tmask, [np.round(qd).astype(np.int32)], 1)
        k = int(max(3, 2 * OCC_DILATE_EM * em + 1))
        tmask = cv2.dilate(tmask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        for oc in m['occluders']:
            om = np.zeros((H, W), np.uint8)
            cv2.fillPoly(om, [np.round(np.asarray(oc['polygon'])).astype(np.int32)], 1)
            if (om & tmask).any():
                R.fail('rule', '%s: %s occluder overlaps the target text' % (qid, oc['kind']))
        if any(k_.startswith('target_label_covered') for k_ in kinds) and not any(
                oc['covers'] == 'target_label' for oc in m['occluders']):
            R.fail('meta', '%s: covered-label tag without occluder' % qid)
        # ---- image
        path = os.path.join(d, m['file'])
        try:
            im = Image.open(path)
            fmt = im.format
            qtab = im.quantization
            im = im.convert('L')
        except Exception as e:  # noqa
            R.fail('image', '%s: cannot open (%s)' % (qid, e))
            continue
        if fmt != 'JPEG' or im.size != (W, H):
            R.fail('image', '%s: format %s size %s' % (qid, fmt, im.size))
        if jq not in qt_cache:
            qt_cache[jq] = std_quant_tables(jq)
        if {k_: list(v) for k_, v in qtab.items()} != {k_: list(v) for k_, v in qt_cache[jq].items()}:
            R.fail('image', '%s: JPEG tables do not match quality %d' % (qid, jq))
        g = np.asarray(im, np.float32)
        hm = np.zeros((H, W), np.uint8)
        cv2.fillPoly(hm, [np.round(np.asarray(m['target']['hull'])).astype(np.int32)], 1)
        vals = g[hm > 0]
        if vals.size < 50 or np.percentile(vals, 95) - np.percentile(vals, 3) < 45:
            R.fail('image', '%s: little ink contrast under the target hull' % qid)
    R.group('meta', n)
    R.group('rule', n)
    R.group('image', n)

    # ------------------------------------------------------------------ coverage
    if not a.no_coverage:
        scale = min(1.0, n / 120.0)
        for tag, mn in COVERAGE.items():
            if tag.endswith('*'):
                cnt = sum(v for k_, v in tag_counts.items() if k_.startswith(tag[:-1]))
            else:
                cnt = tag_counts.get(tag, 0)
            if cnt < int(mn * scale):
                R.fail('coverage', '%s: %d < %d' % (tag, cnt, int(mn * scale)))
        if n >= 30:
            frac = tag_counts.get('labels_none', 0) / n
            if not 0.25 <= frac <= 0.42:
                R.fail('coverage', 'unlabelled pages %.2f, want about a third' % frac)
        R.group('coverage', len(COVERAGE))

    # ------------------------------------------------------------------ reproducibility
    if a.regen > 0 and n:
        gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'make_photos.py')
        seed = metas[0]['seed']
        picks = sorted(set([1 + (k * 37) % n for k in range(a.regen)]))
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, gen, '--bank', a.bank, tmp, '--count', str(n), '--seed', str(seed),
                   '--only', ','.join(str(p) for p in picks)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                R.fail('reproduce', 'generator failed: %s' % r.stderr[-300:])
            else:
                new = {json.loads(l)['qid']: l for l in open(os.path.join(tmp, 'meta.jsonl'), encoding='utf-8')}
                old = {json.loads(l)['qid']: l for l in open(os.path.join(d, 'meta.jsonl'), encoding='utf-8')}
                for p in picks:
                    q = 'd%03d' % p
                    if open(os.path.join(tmp, q + '.jpg'), 'rb').read() != open(os.path.join(d, q + '.jpg'), 'rb').read():
                        R.fail('reproduce', '%s: jpg bytes differ' % q)
                    if new.get(q) != old.get(q):
                        R.fail('reproduce', '%s: meta line differs' % q)
        R.group('reproduce', len(picks))

    print()
    print('tag counts: ' + ', '.join('%s=%d' % kv for kv in sorted(tag_counts.items())))
    ok = not R.fails
    print('PASS' if ok else 'FAIL')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
