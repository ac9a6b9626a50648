#!/usr/bin/env python3
"""Validate a photo set written by make_photos.py.

Usage: check.py OUT_DIR --bank BANK [--sheets PREVIEW_DIR]

Independent of make_photos.py: it re-reads the files and recomputes the
centre-to-hull distances with its own point-to-polygon code.
"""
import argparse
import collections
import csv
import json
import math
import os
import sys
import unicodedata

from PIL import Image, ImageDraw

TAG_MIN = 0.05  # (next nearest other - framed) >= TAG_MIN * diagonal


def cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull(points):
    pts = sorted(set((float(x), float(y)) for x, y in points))
    if len(pts) <= 2:
        return pts
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def seg_dist(p, a, b):
    ax, ay = a
    bx, by = b
    px, py = p
    dx, dy = bx - ax, by - ay
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / L2))
    return math.hypot(px - (ax + t * dx), py - (ay + t * dy))


def inside_convex(p, poly):
    sign = 0
    n = len(poly)
    for k in range(n):
        c = cross(poly[k], poly[(k + 1) % n], p)
        if abs(c) < 1e-9:
            continue
        s = 1 if c > 0 else -1
        if sign == 0:
            sign = s
        elif s != sign:
            return False
    return True


def point_poly_dist(p, pts):
    poly = convex_hull(pts)  # robust to vertex order
    if len(poly) == 0:
        return float('inf')
    if len(poly) == 1:
        return math.hypot(p[0] - poly[0][0], p[1] - poly[0][1])
    if len(poly) >= 3 and inside_convex(p, poly):
        return 0.0
    return min(seg_dist(p, poly[k], poly[(k + 1) % len(poly)]) for k in range(len(poly)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out_dir')
    ap.add_argument('--bank', required=True)
    ap.add_argument('--sheets', default='')
    a = ap.parse_args()
    errs = []

    def err(msg):
        errs.append(msg)

    bank = {}
    for l in open(a.bank, encoding='utf-8'):
        if l.strip():
            r = json.loads(l)
            bank[r['id']] = r['question']
    nf = lambda s: unicodedata.normalize('NFKC', s)

    def read_csv(name, header):
        p = os.path.join(a.out_dir, name)
        with open(p, encoding='utf-8', newline='') as f:
            rows = list(csv.reader(f))
        if not rows or rows[0] != header:
            err(f'{name}: header {rows[0] if rows else None} != {header}')
        return rows[1:]

    truth = read_csv('truth.csv', ['qid', 'text'])
    queries = read_csv('queries.csv', ['qid', 'query', 'expected_id', 'kind'])
    metas = [json.loads(l) for l in open(os.path.join(a.out_dir, 'meta.jsonl'), encoding='utf-8') if l.strip()]
    if not (len(truth) == len(queries) == len(metas)):
        err(f'row counts differ: truth {len(truth)} queries {len(queries)} meta {len(metas)}')
    kinds = collections.Counter()
    nphotos = 0
    margins, diffs, bdiffs = [], [], []
    for k, (t, q, m) in enumerate(zip(truth, queries, metas)):
        qid = m['qid']
        nphotos += 1
        if not (t[0] == q[0] == qid):
            err(f'row {k}: qid mismatch {t[0]} {q[0]} {qid}')
        if qid != f'm{k + 1:03d}':
            err(f'row {k}: qid {qid} not in sequence')
        if m['file'] != f'{qid}.jpg':
            err(f'{qid}: file name {m["file"]}')
        bid = m['bank_id']
        if bid not in bank:
            err(f'{qid}: bank id {bid} unknown')
            continue
        if t[1] != bank[bid]:
            err(f'{qid}: truth text differs from bank')
        if nf(t[1]) != nf(bank[bid]):
            err(f'{qid}: truth text differs after NFKC')
        if q[1] != bank[bid] or q[2] != bid or q[3] != 'exact':
            err(f'{qid}: queries row wrong {q}')
        # printed lines reconstruct the question exactly
        lt, sp = m.get('line_texts'), m.get('line_break_space')
        if lt is not None:
            rec = lt[0]
            for s, br in zip(lt[1:], sp):
                rec += (' ' if br else '') + s
            if rec != bank[bid]:
                err(f'{qid}: printed lines {lt!r} do not rebuild the question')
            if len(lt) != m['n_lines']:
                err(f'{qid}: n_lines {m["n_lines"]} != {len(lt)}')
        # image
        p = os.path.join(a.out_dir, m['file'])
        if not os.path.exists(p):
            err(f'{qid}: image missing')
            continue
        with Image.open(p) as im:
            if im.format != 'JPEG':
                err(f'{qid}: not a JPEG')
            if im.size != (m['width'], m['height']):
                err(f'{qid}: size {im.size} != meta {(m["width"], m["height"])}')
        W, H = m['width'], m['height']
        if (W, H) not in ((1280, 960), (960, 1280)):
            err(f'{qid}: unexpected size {(W, H)}')
        if not (60 <= m['jpeg_quality'] <= 92):
            err(f'{qid}: jpeg quality {m["jpeg_quality"]}')
        if abs(m['rotation']) > 6.0:
            err(f'{qid}: rotation {m["rotation"]}')
        if not (22 <= m['body_px'] <= 48):
            err(f'{qid}: body_px {m["body_px"]}')
        hull = m['hull']
        if len(hull) < 3:
            err(f'{qid}: hull has {len(hull)} points')
        xs = [x for x, _ in hull]
        ys = [y for _, y in hull]
        mg = min(min(xs), min(ys), W - max(xs), H - max(ys))
        margins.append(mg)
        if mg < 4:
            err(f'{qid}: framed hull only {mg:.1f}px inside the image')
        hc = ((min(xs) + max(xs)) / 2 - W / 2, (min(ys) + max(ys)) / 2 - H / 2)
        if math.hypot(*hc) > 0.18 * math.hypot(W, H):
            err(f'{qid}: framed hull centre {math.hypot(*hc):.1f}px from the image centre (> 18% of diagonal)')
        if abs(math.hypot(*hc) / math.hypot(W, H) - m['centre_offset_frac']) > 0.001:
            err(f'{qid}: centre_offset_frac does not match the hull')
        bx = m['box']
        if abs(bx[0] - min(xs)) > 0.2 or abs(bx[1] - min(ys)) > 0.2 or abs(bx[2] - max(xs)) > 0.2 or abs(bx[3] - max(ys)) > 0.2:
            err(f'{qid}: box does not match hull')
        # one bank problem once per page
        ids = [bid] + [o['bank_id'] for o in m['others']]
        if len(ids) != len(set(ids)):
            err(f'{qid}: a bank problem appears twice on the page')
        for o in m['others']:
            if o['bank_id'] not in bank:
                err(f'{qid}: other {o["bank_id"]} unknown')
        # distances and the nearest rule
        c = (W / 2.0, H / 2.0)
        diag = math.hypot(W, H)
        fd = point_poly_dist(c, hull)
        if abs(fd - m['framed_dist']) > 0.6:
            err(f'{qid}: framed_dist {m["framed_dist"]} recomputed {fd:.2f}')
        od = []
        for o in m['others']:
            d = point_poly_dist(c, o['hull'])
            if abs(d - o['dist']) > 0.6:
                err(f'{qid}: other {o["bank_id"]} dist {o["dist"]} recomputed {d:.2f}')
            dv = point_poly_dist(c, o['hull_visible']) if o['hull_visible'] else float('inf')
            od.append(min(d, dv))
        if not od:
            err(f'{qid}: no other problems on the page')
            continue
        diff = min(od) - fd
        diffs.append(diff / diag)
        if diff < TAG_MIN * diag:
            err(f'{qid}: nearest rule fails: framed {fd:.1f}, next other {min(od):.1f}, need gap {TAG_MIN * diag:.1f}')
        # the same rule with every problem's block (question lines + options / answer line)
        fbd = point_poly_dist(c, m['block_hull'])
        obd = [point_poly_dist(c, o['block_hull']) for o in m['others']]
        if min(obd) - fbd < TAG_MIN * diag:
            err(f'{qid}: block rule fails: framed block {fbd:.1f}, next other block {min(obd):.1f}')
        bdiffs.append((min(obd) - fbd) / diag)
        near = sorted(m['others'], key=lambda o: o['dist'])[:3]
        if [n[0] for n in m['nearest_others']] != [o['bank_id'] for o in near]:
            err(f'{qid}: nearest_others not the 3 nearest')
        if not m['kinds']:
            err(f'{qid}: no kinds')
        kinds.update(m['kinds'])
    ids_seen = collections.Counter(m['bank_id'] for m in metas)
    print(f'photos: {nphotos}; distinct framed bank ids: {len(ids_seen)}')
    if margins:
        print(f'framed hull min margin: {min(margins):.1f}px; rule gap min: {min(diffs):.4f} x diag '
              f'(need {TAG_MIN}), median {sorted(diffs)[len(diffs) // 2]:.4f}; '
              f'block rule gap min: {min(bdiffs):.4f} x diag')
    print('kinds:')
    for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f'  {k:26s} {v}')
    if a.sheets:
        make_sheets(a.out_dir, metas, a.sheets)
    if errs:
        print(f'FAIL: {len(errs)} problem(s)')
        for e in errs[:200]:
            print('  ' + e)
        sys.exit(1)
    print('PASS')


def make_sheets(out_dir, metas, dest, per=12, cols=4, tw=420):
    """Downscaled contact sheets; framed hull green, other hulls red, centre cross blue."""
    os.makedirs(dest, exist_ok=True)
    for s in range(0, len(metas), per):
        chunk = metas[s:s + per]
        th = tw
        sheet = Image.new('RGB', (cols * tw, ((len(chunk) + cols - 1) // cols) * (th + 18)), (255, 255, 255))
        d = ImageDraw.Draw(sheet)
        for k, m in enumerate(chunk):
            im = Image.open(os.path.join(out_dir, m['file'])).convert('RGB')
            W, H = im.size
            sc = tw / max(W, H)
            im = im.resize((int(W * sc), int(H * sc)), Image.LANCZOS)
            dd = ImageDraw.Draw(im)
            for o in m['others']:
                if o['hull_visible']:
                    dd.polygon([(x * sc, y * sc) for x, y in o['hull_visible']], outline=(220, 0, 0))
            dd.polygon([(x * sc, y * sc) for x, y in m['hull']], outline=(0, 190, 0))
            cx, cy = W * sc / 2, H * sc / 2
            dd.line([(cx - 6, cy), (cx + 6, cy)], fill=(0, 0, 255))
            dd.line([(cx, cy - 6), (cx, cy + 6)], fill=(0, 0, 255))
            x0 = (k % cols) * tw
            y0 = (k // cols) * (th + 18)
            sheet.paste(im, (x0, y0 + 16))
            d.text((x0 + 2, y0 + 2), f"{m['qid']} {m['bank_id']} {m['label']!r} n={m['n_lines']}", fill=(0, 0, 0))
        sheet.save(os.path.join(dest, f'sheet_{s // per + 1:02d}.png'))


if __name__ == '__main__':
    main()
