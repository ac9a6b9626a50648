#!/usr/bin/env python3
"""Check a photo set made by make_photos.py; prints PASS or FAIL.

Usage: check.py OUT --bank BANK [--remake 7,118] [--no-remake]
"""
import argparse
import collections
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True      # keep the folder to its three files
sys.path.insert(0, HERE)
import make_photos as mp  # noqa: E402  (plan, pools and kind names only)

SIZES = {(1280, 960), (960, 1280), (1600, 1200), (1200, 1600)}
STD_LUMA = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
            14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
            49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]


class Report:
    def __init__(self):
        self.fails = []
        self.notes = []

    def fail(self, msg):
        self.fails.append(msg)

    def note(self, msg):
        self.notes.append(msg)


def jpeg_quality(im):
    """Estimate the libjpeg quality from the luminance quantisation table."""
    q = getattr(im, 'quantization', None)
    if not q or 0 not in q:
        return None
    t = list(q[0])
    # PIL gives the table in zigzag order; compare sums, which do not depend on order
    scale = 100.0 * sum(t) / sum(STD_LUMA)
    if scale <= 100:
        return (200 - scale) / 2
    return 5000 / scale


def point_in_quad(p, quad, tol=1.0):
    q = np.asarray(quad, float)
    x, y = p
    sign = 0
    for k in range(4):
        a, b = q[k], q[(k + 1) % 4]
        cross = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0])
        edge = np.hypot(b[0] - a[0], b[1] - a[1]) + 1e-9
        d = cross / edge
        if abs(d) <= tol:
            continue
        s = 1 if d > 0 else -1
        if sign == 0:
            sign = s
        elif s != sign:
            return False
    return True


def ink_contrast(gray, centre, quad):
    """Contrast of the print around the centre: a high percentile of a wide window
    minus a low percentile of a window about one text height wide."""
    q = np.asarray(quad, float)
    h = 0.5 * (np.hypot(*(q[3] - q[0])) + np.hypot(*(q[2] - q[1])))
    H, W = gray.shape
    cx, cy = int(round(centre[0])), int(round(centre[1]))
    r = max(3, int(round(0.6 * h)))
    R = max(6, int(round(2.0 * h)))
    win = gray[max(0, cy - r):cy + r + 1, max(0, cx - r):cx + r + 1]
    big = gray[max(0, cy - R):cy + R + 1, max(0, cx - R):cx + R + 1]
    return float(np.percentile(big, 90) - np.percentile(win, 3)), h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--remake', default='')
    ap.add_argument('--no-remake', action='store_true')
    a = ap.parse_args()
    R = Report()
    out = a.out
    bank = mp.load_bank(a.bank)
    by_id = {r['id']: r for r in bank}

    # ---------------- files
    for fn in ('truth.csv', 'queries.csv', 'meta.jsonl'):
        if not os.path.isfile(os.path.join(out, fn)):
            R.fail('missing %s' % fn)
    if R.fails:
        return finish(R)
    metas = []
    with open(os.path.join(out, 'meta.jsonl'), encoding='utf-8') as f:
        for ln in f:
            if ln.strip():
                metas.append(json.loads(ln))
    N = len(metas)
    qids = ['c%03d' % i for i in range(1, N + 1)]
    if [m['qid'] for m in metas] != qids:
        R.fail('meta.jsonl qids are not c001..c%03d in order' % N)
    jpgs = sorted(fn for fn in os.listdir(out) if fn.endswith('.jpg'))
    if jpgs != [q + '.jpg' for q in qids]:
        R.fail('photos present do not match meta rows (%d jpg, %d rows)' % (len(jpgs), N))
    seeds = {m.get('seed') for m in metas}
    if len(seeds) != 1:
        R.fail('meta rows disagree on the seed: %s' % seeds)
    seed = sorted(seeds, key=str)[0]
    R.note('photos: %d, seed %s' % (N, seed))

    # ---------------- csv files
    with open(os.path.join(out, 'truth.csv'), encoding='utf-8', newline='') as f:
        truth = list(csv.reader(f))
    with open(os.path.join(out, 'queries.csv'), encoding='utf-8', newline='') as f:
        queries = list(csv.reader(f))
    if not truth or truth[0] != ['qid', 'text']:
        R.fail('truth.csv header is not qid,text')
    if not queries or queries[0] != ['qid', 'query', 'expected_id', 'kind']:
        R.fail('queries.csv header is not qid,query,expected_id,kind')
    truth_rows = {r[0]: r for r in truth[1:]}
    query_rows = {r[0]: r for r in queries[1:]}
    if [r[0] for r in truth[1:]] != qids:
        R.fail('truth.csv rows are not c001..c%03d' % N)
    if [r[0] for r in queries[1:]] != qids:
        R.fail('queries.csv rows are not c001..c%03d' % N)

    plans = mp.plan_table(bank, N)
    zh_pool, en_pool = mp.short_pools(bank)
    short_ids = {bank[k]['id'] for k in zh_pool + en_pool}
    use = collections.Counter()
    kind_counts = collections.Counter()
    lang_counts = collections.Counter()
    dist_counts = collections.Counter()
    contrasts = []
    required = ['qid', 'bank_id', 'text', 'size', 'kinds', 'quad', 'centre', 'neighbours', 'layout', 'plan']
    for i, m in enumerate(metas, start=1):
        qid = 'c%03d' % i
        miss = [k for k in required if k not in m]
        if miss:
            R.fail('%s: meta lacks %s' % (qid, miss))
            continue
        for k in ('columns', 'font', 'label_style', 'line_pitch_em', 'problem_gap_em'):
            if k not in m['layout']:
                R.fail('%s: meta layout lacks %s' % (qid, k))
        bid = m['bank_id']
        if bid not in by_id:
            R.fail('%s: bank id %s not in the bank' % (qid, bid))
            continue
        q = by_id[bid]['question']
        if m['text'] != q:
            R.fail('%s: meta text differs from the bank question' % qid)
        tr = truth_rows.get(qid)
        if not tr or len(tr) != 2 or tr[1] != q:
            R.fail('%s: truth text differs from the bank question of %s' % (qid, bid))
        qr = query_rows.get(qid)
        if not qr or len(qr) != 4 or qr[1] != q or qr[2] != bid or qr[3] != 'exact':
            R.fail('%s: queries.csv row wrong: %r' % (qid, qr))
        if bid not in short_ids:
            R.fail('%s: framed problem %s is not a short question' % (qid, bid))
        use[bid] += 1
        if m.get('missing_glyphs'):
            R.fail('%s: glyphs missing from the fonts: %s' % (qid, m['missing_glyphs']))
        # plan and kinds
        p = plans[i - 1]
        if p['bank_id'] != bid or p['kinds'] != m['kinds']:
            R.fail('%s: meta does not follow the case plan' % qid)
        for k in m['kinds']:
            kind_counts[k] += 1
        lang_counts[p['lang']] += 1
        dist_counts[p['distance']] += 1
        # image
        path = os.path.join(out, qid + '.jpg')
        try:
            im = Image.open(path)
            im.load()
        except Exception as e:  # noqa: BLE001
            R.fail('%s: cannot read photo (%s)' % (qid, e))
            continue
        if im.format != 'JPEG':
            R.fail('%s: not a JPEG' % qid)
        W, H = im.size
        if (W, H) not in SIZES or [W, H] != list(m['size']):
            R.fail('%s: size %dx%d not allowed or differs from meta %s' % (qid, W, H, m['size']))
        jq = jpeg_quality(im)
        mq = m.get('camera', {}).get('jpeg_quality')
        if mq is None or not (60 <= mq <= 92) or jq is None or abs(jq - mq) > 3:
            R.fail('%s: JPEG quality %s (estimated %s) outside 60..92 or inconsistent' % (qid, mq, jq))
        # geometry: centre on the framed text, whole problem inside the photo
        cx, cy = m['centre']
        if abs(cx - W / 2) > 1 or abs(cy - H / 2) > 1:
            R.fail('%s: centre %s is not the image centre' % (qid, m['centre']))
        if not point_in_quad((W / 2, H / 2), m['quad']):
            R.fail('%s: image centre is not on the framed text quad' % qid)
        pts = list(m['quad']) + (list(m['label_quad']) if m.get('label_quad') else [])
        for x, y in pts:
            if not (0 <= x <= W - 1 and 0 <= y <= H - 1):
                R.fail('%s: framed problem not wholly inside the photo (%.1f, %.1f)' % (qid, x, y))
                break
        for oc in m.get('occluders', []):
            d = mp.seg_dist((W / 2, H / 2), oc['tip'], (oc['tip'][0] + oc['dir'][0] * 5000,
                                                         oc['tip'][1] + oc['dir'][1] * 5000))
            if d < oc['radius']:
                R.fail('%s: the %s covers the image centre' % (qid, oc['type']))
        gray = np.asarray(im.convert('L'), dtype=np.float32)
        c, h = ink_contrast(gray, (W / 2, H / 2), m['quad'])
        contrasts.append((c, qid))
        if c < 25:
            R.fail('%s: no printed text visible at the image centre (contrast %.1f)' % (qid, c))
        if 7 in m['kinds']:
            seen = False
            for mk in m.get('marks', []):
                if mk['type'] in ('hand_answer', 'tick', 'highlight', 'circled_number') and mk.get('quad'):
                    qq = np.asarray(mk['quad'])
                    if qq[:, 0].max() >= 0 and qq[:, 0].min() < W and qq[:, 1].max() >= 0 and qq[:, 1].min() < H:
                        seen = True
            if not seen:
                R.fail('%s: planned student marks are not in the photo' % qid)
        if p['distance'] == 'far' and m.get('visible_problems', 0) < 8:
            R.fail('%s: far shot shows only %s problems' % (qid, m.get('visible_problems')))

    # ---------------- set-level checks
    over = {k: v for k, v in use.items() if v > 3}
    if over:
        R.fail('short questions used more than 3 times: %s' % over)
    plan_counts = collections.Counter(k for p in plans for k in p['kinds'])
    if plan_counts != kind_counts:
        R.fail('kind counts %s differ from the plan %s' % (dict(kind_counts), dict(plan_counts)))
    for k, mn in sorted(mp.KIND_MIN_120.items()):
        need = mn if N >= 120 else int(mn * N / 120 * 0.8)
        if kind_counts[k] < need:
            R.fail('kind %d (%s): %d photos, want >= %d' % (k, mp.KIND_NAMES[k], kind_counts[k], need))
    en_frac = lang_counts['en'] / max(1, N)
    if N >= 40 and not (0.2 <= en_frac <= 0.4):
        R.fail('English share %.2f outside 0.2..0.4' % en_frac)
    R.note('kinds: ' + ', '.join('%d %s=%d' % (k, mp.KIND_NAMES[k], kind_counts[k]) for k in sorted(mp.KIND_NAMES)))
    R.note('languages: %s; distances: %s; distinct framed questions: %d, max uses %d' % (
        dict(lang_counts), dict(dist_counts), len(use), max(use.values()) if use else 0))
    if contrasts:
        R.note('lowest centre contrasts: %s' % ', '.join('%s %.0f' % (q, c) for c, q in sorted(contrasts)[:3]))

    # ---------------- remake two photos with --only: byte-identical
    if not a.no_remake and N >= 2 and not R.fails:
        if a.remake:
            idx = [int(s) for s in a.remake.split(',')][:2]
        else:
            idx = [min(7, N), max(1, N - 2)] if N > 7 else [1, N]
        tmp = tempfile.mkdtemp(prefix='chk_photos_')
        try:
            for fn in os.listdir(out):
                shutil.copy2(os.path.join(out, fn), os.path.join(tmp, fn))
            gone = {'c%03d' % i for i in idx}
            for i in idx:
                os.remove(os.path.join(tmp, 'c%03d.jpg' % i))
            # drop their rows too, so that the merge has to put them back
            for fn in ('truth.csv', 'queries.csv', 'meta.jsonl'):
                with open(os.path.join(tmp, fn), encoding='utf-8') as f:
                    lines = f.read().split('\n')
                keep = [ln for ln in lines if not any(ln.startswith(g + ',') or ln.startswith('{') and
                                                      json.loads(ln)['qid'] == g for g in gone)]
                with open(os.path.join(tmp, fn), 'w', encoding='utf-8') as f:
                    f.write('\n'.join(keep))
            cmd = [sys.executable, os.path.join(HERE, 'make_photos.py'), '--bank', a.bank, tmp,
                   '--count', str(N), '--seed', str(seed), '--jobs', '1', '--only', ','.join(map(str, idx))]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                R.fail('remake failed: %s' % r.stderr[-500:])
            else:
                diff = []
                for fn in sorted(set(os.listdir(out)) | set(os.listdir(tmp))):
                    pa, pb = os.path.join(out, fn), os.path.join(tmp, fn)
                    if not (os.path.isfile(pa) and os.path.isfile(pb)):
                        diff.append(fn)
                        continue
                    with open(pa, 'rb') as fa, open(pb, 'rb') as fb:
                        if fa.read() != fb.read():
                            diff.append(fn)
                if diff:
                    R.fail('remake of photos %s is not byte-identical: %s' % (idx, diff[:6]))
                else:
                    R.note('remake of photos %s with --only: byte-identical (all %d files)' % (
                        idx, len(os.listdir(out))))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return finish(R)


def finish(R):
    for n in R.notes:
        print('  ' + n)
    for f in R.fails[:40]:
        print('  FAIL: ' + f)
    if len(R.fails) > 40:
        print('  ... %d more failures' % (len(R.fails) - 40))
    print('PASS' if not R.fails else 'FAIL')
    return 0 if not R.fails else 1


if __name__ == '__main__':
    sys.exit(main())
