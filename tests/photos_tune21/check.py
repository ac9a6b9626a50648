#!/usr/bin/env python3
"""Check a photos_tune21 set made by make_photos.py.

  python check.py OUTDIR --bank BANK.jsonl [--remake 17,88] [--no-remake]

Verifies: every photo exists, decodes, has the right size; truth.csv,
queries.csv and meta.jsonl agree with each other and with the bank; the image
centre lies on a text line of the target; the target is entirely inside the
photo; neighbours above/below are visible; the target text appears once on
the page; kind coverage minimums; remaking two photos with --only gives
identical bytes. Prints PASS or FAIL.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
EDGE = 4.0          # target must stay this many px inside the border

# minimum share of photos per kind (kinds 1-5 are scheduled 1/5 each as the
# primary case and also occur as secondary cases)
MIN_FRAC = {'k1_teacher_break': 0.15, 'k2_oneline_list': 0.15, 'k3_answer_line': 0.15,
            'k4_bracket_or_note': 0.15, 'k5_para_style': 0.15, 'k6_label_variant': 0.07}
MAX_FRAC = {'k6_label_variant': 0.35}


def project(Hm, pts):
    pts = np.asarray(pts, float).reshape(-1, 2)
    v = np.c_[pts, np.ones(len(pts))] @ np.asarray(Hm).T
    return v[:, :2] / v[:, 2:3]


def corners(b):
    return [[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]


def in_poly(pt, poly):
    """point in convex quad (either orientation), boundary counts."""
    poly = np.asarray(poly, float)
    s = []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        s.append((b[0] - a[0]) * (pt[1] - a[1]) - (b[1] - a[1]) * (pt[0] - a[0]))
    s = np.array(s)
    return bool(np.all(s >= -1e-6) or np.all(s <= 1e-6))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('outdir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--remake', default='', help='two photo numbers to remake')
    ap.add_argument('--no-remake', action='store_true')
    a = ap.parse_args(argv)
    d = a.outdir
    errs = []

    def err(msg):
        errs.append(msg)

    bank = {}
    with open(a.bank, encoding='utf-8') as fh:
        for line in fh:
            if line.strip():
                o = json.loads(line)
                bank[o['id']] = o['question']
    run = json.load(open(os.path.join(d, 'run.json')))
    count, seed = run['count'], run['seed']
    metas = [json.loads(l) for l in open(os.path.join(d, 'meta.jsonl'), encoding='utf-8') if l.strip()]
    with open(os.path.join(d, 'truth.csv'), encoding='utf-8', newline='') as fh:
        truth = list(csv.reader(fh))
    with open(os.path.join(d, 'queries.csv'), encoding='utf-8', newline='') as fh:
        queries = list(csv.reader(fh))
    names = ['e%03d' % i for i in range(1, count + 1)]
    if [m['qid'] for m in metas] != names:
        err('meta.jsonl qids are not e001..e%03d in order' % count)
    if truth[0] != ['qid', 'text']:
        err('truth.csv header %r' % truth[0])
    if queries[0] != ['qid', 'query', 'expected_id', 'kind']:
        err('queries.csv header %r' % queries[0])
    if [r[0] for r in truth[1:]] != names:
        err('truth.csv rows are not e001..e%03d' % count)
    if [r[0] for r in queries[1:]] != names:
        err('queries.csv rows are not e001..e%03d' % count)
    tmap = {r[0]: r[1] for r in truth[1:] if len(r) == 2}
    qmap = {r[0]: r[1:] for r in queries[1:] if len(r) == 4}
    extra = sorted(f for f in os.listdir(d) if f.endswith('.jpg') and f[:-4] not in names)
    if extra:
        err('unexpected photos: %s' % extra[:5])

    counts = {}
    role = {'target': 0, 'neighbour': 0}
    styles, k3t, k4t, shots, orients, langs, cols, faces = {}, {}, {}, {}, {}, {}, {}, {}
    xhs = []
    for m in metas:
        n = m['qid']
        p = os.path.join(d, m['file'])
        W, H = m['size']
        if (W, H) not in ((1280, 960), (960, 1280)):
            err('%s: size %s' % (n, m['size']))
        if not os.path.exists(p):
            err('%s: missing photo' % n)
            continue
        try:
            im = Image.open(p)
            if im.format != 'JPEG':
                err('%s: not a JPEG' % n)
            im.load()
            if im.size != (W, H):
                err('%s: decoded size %s != %s' % (n, im.size, (W, H)))
            g = np.asarray(im.convert('L'), np.float32)
        except Exception as e:  # noqa
            err('%s: does not decode (%s)' % (n, e))
            continue
        if not 60 <= m['jpeg_quality'] <= 92:
            err('%s: quality %s' % (n, m['jpeg_quality']))
        # truth / queries / bank
        bid = m['bank_id']
        if bid not in bank:
            err('%s: bank id %s not in bank' % (n, bid))
            continue
        if m['text'] != bank[bid]:
            err('%s: meta text differs from bank' % n)
        if tmap.get(n) != bank[bid]:
            err('%s: truth text differs from bank question' % n)
        if qmap.get(n) != [bank[bid], bid, 'exact']:
            err('%s: queries row wrong: %r' % (n, qmap.get(n)))
        # geometry
        Hm = np.array(m['camera']['homography'])
        tq = project(Hm, corners(m['target_box_page']))
        if np.abs(tq - np.array(m['target_quad'])).max() > 0.6:
            err('%s: target_quad does not match homography' % n)
        if not (tq[:, 0].min() >= EDGE and tq[:, 0].max() <= W - EDGE and
                tq[:, 1].min() >= EDGE and tq[:, 1].max() <= H - EDGE):
            err('%s: target not entirely inside the photo' % n)
        bx = m['target_box']
        if abs(bx[0] - tq[:, 0].min()) > 0.6 or abs(bx[3] - tq[:, 1].max()) > 0.6:
            err('%s: target_box inconsistent' % n)
        if m.get('occluders'):
            err('%s: occluders present' % n)
        c = (W / 2.0, H / 2.0)
        if list(m['centre']) != [W / 2.0, H / 2.0]:
            err('%s: centre is not the image centre' % n)
        hit = [j for j, ln in enumerate(m['target_lines']) if in_poly(c, project(Hm, corners(ln['page_box'])))]
        if not hit:
            err('%s: frame centre not on a target text line' % n)
        else:
            ln = m['target_lines'][m['centre_line']]
            if m['centre_line'] not in hit:
                err('%s: centre_line %d not hit (%s)' % (n, m['centre_line'], hit))
            pc = project(np.linalg.inv(Hm), [c])[0]
            s0, s1 = ln['text_span_page']
            if not (s0 - 0.5 <= pc[0] <= s1 + 0.5):
                err('%s: centre outside the text span of its line' % n)
            if not (ln['page_box'][1] <= pc[1] <= ln['page_box'][3]):
                err('%s: centre outside the line box vertically' % n)
            # pixels: the centre line carries printed text
            q = project(Hm, corners(ln['page_box']))
            x0, y0 = max(0, int(q[:, 0].min())), max(0, int(q[:, 1].min()))
            x1, y1 = min(W, int(q[:, 0].max()) + 1), min(H, int(q[:, 1].max()) + 1)
            crop = g[y0:y1, x0:x1]
            if crop.size == 0 or np.percentile(crop, 97) - np.percentile(crop, 3) < 30:
                err('%s: no text contrast on the centre line' % n)
        for ln in m['target_lines']:
            lq = project(Hm, corners(ln['page_box']))
            if np.abs(lq - np.array(ln['quad'])).max() > 0.6:
                err('%s: line quad does not match homography' % n)
        # neighbours
        pos = [nb['position'] for nb in m['neighbours']]
        if pos != ['above', 'below']:
            err('%s: neighbours %s' % (n, pos))
        for nb in m['neighbours']:
            if nb['qid'] == bid:
                err('%s: neighbour is the target' % n)
            if not nb['adjacent_line_visible']:
                err('%s: %s neighbour not visible' % (n, nb['position']))
            bxa = nb['adjacent_line_page_box']
            ym = (bxa[1] + bxa[3]) / 2.0
            pr = project(Hm, [[bxa[0] + (bxa[2] - bxa[0]) * t, ym] for t in np.linspace(0, 1, 41)])
            vis = ((pr[:, 0] >= 0) & (pr[:, 0] <= W) & (pr[:, 1] >= 0) & (pr[:, 1] <= H)).mean()
            if vis < 0.25:
                err('%s: %s neighbour line only %.0f%% in the photo' % (n, nb['position'], 100 * vis))
        # the target's text appears once on the page
        if m['page_items'].count(bid) != 1:
            err('%s: target appears %d times on page' % (n, m['page_items'].count(bid)))
        for o in m['page_items']:
            if o != bid and (bank[bid] in bank[o]):
                err('%s: target text inside another problem %s' % (n, o))
        if bid not in m['visible_items']:
            err('%s: target not in visible_items' % n)
        # tallies
        for k in m['kinds']:
            counts[k] = counts.get(k, 0) + 1
        det = m['kind_detail']
        if 'k1_teacher_break' in m['kinds']:
            role[det['k1_role']] += 1
            if det['k1_role'] == 'target':
                # the teacher's break leaves the first sentence's line short
                p0 = [ln for ln in m['target_lines'] if ln['piece'] == 0][-1]
                p1 = [ln for ln in m['target_lines'] if ln['piece'] == 1]
                if p0['end_short_by_em'] < 1.0 or not p1:
                    err('%s: kind 1 target line does not end short' % n)
        if 'k2_oneline_list' in m['kinds'] and m['primary_kind'] == 2:
            fw = det.get('k2_fill_window', [])
            if not fw or max(fw) < 0.85 or min(fw) > 0.65:
                err('%s: kind 2 list lacks a near-full and a short problem: %s' % (n, fw))
        if 'k5_para_style' in m['kinds']:
            for st in det['para_styles']:
                styles[st] = styles.get(st, 0) + 1
        if 'k3_answer_line' in m['kinds']:
            t = det['k3']['target'] or det['k3']['above']
            k3t[t] = k3t.get(t, 0) + 1
        for r, t in det.get('k4', []):
            k4t[t] = k4t.get(t, 0) + 1
        xh = m['camera']['x_height_px']
        xhs.append(xh)
        if not 13.0 <= xh <= 41.0:
            err('%s: x-height %.1f out of range' % (n, xh))
        for dct, key in ((shots, m['camera']['shot']), (orients, m['orientation']),
                         (langs, m['lang']), (cols, m['layout']['columns']),
                         (faces, m['layout']['face'])):
            dct[key] = dct.get(key, 0) + 1
        if abs(m['camera']['rotation_deg']) > 4.01:
            err('%s: rotation %.2f' % (n, m['camera']['rotation_deg']))

    N = len(metas)
    for k, f in MIN_FRAC.items():
        if counts.get(k, 0) < f * N:
            err('kind %s: %d photos < %.0f%%' % (k, counts.get(k, 0), 100 * f))
    for k, f in MAX_FRAC.items():
        if counts.get(k, 0) > f * N:
            err('kind %s: %d photos > %.0f%%' % (k, counts.get(k, 0), 100 * f))
    k1n = role['target'] + role['neighbour']
    if k1n and not (0.35 <= role['target'] / k1n <= 0.65):
        err('kind 1: framed problem is the two-sentence one in %d of %d' % (role['target'], k1n))
    for s in ('ragged', 'justified', 'hanging', 'first_line'):
        if styles.get(s, 0) < max(1, 0.025 * N):
            err('kind 5 style %s: %d photos' % (s, styles.get(s, 0)))
    for t in ('answer_label', 'blank_rule', 'ans_dots', 'working'):
        if k3t.get(t, 0) < max(1, 0.025 * N):
            err('kind 3 type %s: %d photos' % (t, k3t.get(t, 0)))
    for t in ('bracket_left', 'bracket_right', 'score_note'):
        if k4t.get(t, 0) < max(1, 0.025 * N):
            err('kind 4 type %s: %d' % (t, k4t.get(t, 0)))
    subparts = [b for b, t in bank.items() if ('(1)' in t or '（1）' in t) and ('(2)' in t or '（2）' in t)]
    if subparts and counts.get('k7_subparts', 0) < 1:
        err('kind 7: bank has sub-part problems but none printed')
    for name, dct, need in (('shots', shots, ('close', 'medium', 'far')),
                            ('orientation', orients, ('landscape', 'portrait')),
                            ('language', langs, ('zh', 'en')), ('columns', cols, (1, 2))):
        for v in need:
            if dct.get(v, 0) < max(1, 0.05 * N):
                err('%s %s: only %d photos' % (name, v, dct.get(v, 0)))

    # remake two photos with --only and compare bytes
    remade = []
    if not a.no_remake and N:
        if a.remake:
            pick = [int(x) for x in a.remake.split(',')][:2]
        else:
            pick = sorted({max(1, N // 3), max(1, (2 * N) // 3 + 1)})
        with tempfile.TemporaryDirectory() as td:
            cmd = [sys.executable, os.path.join(HERE, 'make_photos.py'), '--bank', a.bank, td,
                   '--count', str(count), '--seed', str(seed), '--jobs', '1',
                   '--only', ','.join(str(x) for x in pick)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                err('remake failed: %s' % r.stderr[-500:])
            else:
                new_meta = {json.loads(l)['index']: json.loads(l)
                            for l in open(os.path.join(td, 'meta.jsonl'), encoding='utf-8')}
                old_meta = {m['index']: m for m in metas}
                for i in pick:
                    f = 'e%03d.jpg' % i
                    b1 = open(os.path.join(d, f), 'rb').read()
                    b2 = open(os.path.join(td, f), 'rb').read()
                    same = b1 == b2
                    m1 = dict(old_meta[i]); m2 = dict(new_meta[i])
                    m1.pop('gen_seconds', None); m2.pop('gen_seconds', None)
                    if not same:
                        err('remake of %s gives different bytes' % f)
                    if m1 != m2:
                        err('remake of %s gives different meta' % f)
                    remade.append('%s %s' % (f, 'identical' if same and m1 == m2 else 'DIFFERENT'))

    print('photos: %d  (run: count=%d seed=%d, %.1f s)' % (N, count, seed, run.get('seconds', 0)))
    print('kinds:', json.dumps(dict(sorted(counts.items()))))
    print('kind 1 framed problem is the two-sentence one: %d, neighbour is: %d' % (role['target'], role['neighbour']))
    print('kind 3 types:', json.dumps(k3t), ' kind 4 types:', json.dumps(k4t))
    print('kind 5 styles:', json.dumps(styles))
    print('kind 7: bank problems with (1)/(2) sub-parts: %d%s' % (len(subparts), ' (kind skipped)' if not subparts else ''))
    print('shots:', json.dumps(shots), ' orientation:', json.dumps(orients), ' columns:', json.dumps(cols),
          ' target language:', json.dumps(langs))
    if xhs:
        print('x-height px: min %.1f median %.1f max %.1f' % (min(xhs), float(np.median(xhs)), max(xhs)))
    print('fonts:', json.dumps(faces, ensure_ascii=False))
    for r in remade:
        print('remake:', r)
    if errs:
        for e in errs[:60]:
            print('ERROR', e)
        if len(errs) > 60:
            print('... %d more' % (len(errs) - 60))
        print('FAIL')
        return 1
    print('PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())
