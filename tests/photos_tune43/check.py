#!/usr/bin/env python3
"""Sanity checks for a folder written by make_photos.py, case counts, and PNG contact sheets.

Usage:
  .venv/bin/python tests/photos_tune43/check.py OUT_DIR --bank appliance/data/demo_bank.jsonl \
      [--manifest M.jsonl] [--sheets SHEET_DIR] [--full hm001,hm017 | --full-count 6]

Checks: hmNNN.jpg present for every truth row (and nothing extra), each decodes as a JPEG of
1280x960 or 960x1280; truth.csv / queries.csv well formed, same qids in the same order; every truth
text is exactly a bank question, the query equals it, expected_id is that question's bank id,
kind == "exact", targets distinct.  With --manifest: one line per photo, ids agree, and the case
counts are printed.  With --sheets: contact sheets (12 photos each, with qid and truth text under
each thumbnail) and full-size PNG copies of chosen photos are written there.
Exit status 1 if any check failed.
"""
import argparse
import collections
import csv
import json
import os
import re
import sys

from PIL import Image, ImageDraw, ImageFont

CJK_FONT = ('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', 2)


def load_font(size):
    try:
        return ImageFont.truetype(CJK_FONT[0], size, index=CJK_FONT[1])
    except OSError:
        return ImageFont.load_default()


def read_csv(path):
    with open(path, newline='', encoding='utf-8') as fh:
        rows = list(csv.reader(fh))
    return rows


def wrap(text, fnt, width):
    lines, cur = [], ''
    for ch in text:
        if fnt.getlength(cur + ch) > width:
            lines.append(cur)
            cur = ch
        else:
            cur += ch
    if cur:
        lines.append(cur)
    return lines


def contact_sheets(out_dir, qids, truth, sheets, per=12, cols=4, tw=420):
    os.makedirs(sheets, exist_ok=True)
    fnt = load_font(15)
    th = int(tw * 4 / 3)
    cap = 62
    made = []
    for s in range(0, len(qids), per):
        chunk = qids[s:s + per]
        rows = (len(chunk) + cols - 1) // cols
        sheet = Image.new('RGB', (cols * (tw + 8) + 8, rows * (th + cap + 8) + 8), (40, 40, 40))
        dr = ImageDraw.Draw(sheet)
        for i, q in enumerate(chunk):
            im = Image.open(os.path.join(out_dir, q + '.jpg')).convert('RGB')
            im.thumbnail((tw, th), Image.LANCZOS)
            x = 8 + (i % cols) * (tw + 8)
            y = 8 + (i // cols) * (th + cap + 8)
            sheet.paste(im, (x + (tw - im.width) // 2, y + (th - im.height) // 2))
            lines = wrap(f'{q}: {truth.get(q, "")}', fnt, tw - 4)[:3]
            for k, ln in enumerate(lines):
                dr.text((x + 2, y + th + 2 + k * 19), ln, font=fnt, fill=(235, 235, 235))
        name = os.path.join(sheets, f'sheet_{s // per + 1:02d}.png')
        sheet.save(name)
        made.append(name)
    return made


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out_dir')
    ap.add_argument('--bank', default='appliance/data/demo_bank.jsonl')
    ap.add_argument('--manifest', default=None)
    ap.add_argument('--sheets', default=None, help='folder for PNG contact sheets and full-size copies')
    ap.add_argument('--full', default='', help='comma-separated qids to copy full size as PNG')
    ap.add_argument('--full-count', type=int, default=0, help='also copy the first N photos full size')
    a = ap.parse_args(argv)

    errors = []
    err = errors.append
    bank = [json.loads(l) for l in open(a.bank, encoding='utf-8') if l.strip()]
    by_text = {}
    for q in bank:
        by_text.setdefault(q['question'], []).append(q['id'])
    by_id = {q['id']: q for q in bank}

    tp = os.path.join(a.out_dir, 'truth.csv')
    qp = os.path.join(a.out_dir, 'queries.csv')
    truth_rows = read_csv(tp) if os.path.exists(tp) else None
    query_rows = read_csv(qp) if os.path.exists(qp) else None
    if truth_rows is None:
        err('truth.csv missing')
        truth_rows = [['qid', 'text']]
    if query_rows is None:
        err('queries.csv missing')
        query_rows = [['qid', 'query', 'expected_id', 'kind']]
    if truth_rows[0] != ['qid', 'text']:
        err(f'truth.csv header {truth_rows[0]}')
    if query_rows[0] != ['qid', 'query', 'expected_id', 'kind']:
        err(f'queries.csv header {query_rows[0]}')
    truth = {}
    qids = []
    for i, row in enumerate(truth_rows[1:], 1):
        if len(row) != 2:
            err(f'truth.csv row {i}: {len(row)} fields')
            continue
        q, text = row
        if not re.fullmatch(r'hm\d{3}', q):
            err(f'truth.csv row {i}: bad qid {q!r}')
        if q in truth:
            err(f'truth.csv: duplicate qid {q}')
        truth[q] = text
        qids.append(q)
        if text not in by_text:
            err(f'{q}: truth text is not a bank question: {text!r}')
        if text != text.strip() or '\n' in text:
            err(f'{q}: stray whitespace in truth')
    expect = [f'hm{i:03d}' for i in range(1, len(qids) + 1)]
    if qids != expect:
        err('truth.csv qids are not hm001..hmNNN in order')
    exp_ids = []
    qrows = query_rows[1:]
    if len(qrows) != len(qids):
        err(f'queries.csv has {len(qrows)} rows, truth.csv {len(qids)}')
    for i, row in enumerate(qrows, 1):
        if len(row) != 4:
            err(f'queries.csv row {i}: {len(row)} fields')
            continue
        q, query, eid, kind = row
        if i - 1 < len(qids) and q != qids[i - 1]:
            err(f'queries.csv row {i}: qid {q} != truth qid {qids[i - 1]}')
        if query != truth.get(q):
            err(f'{q}: query differs from truth text')
        if kind != 'exact':
            err(f'{q}: kind {kind!r}')
        if eid not in by_id:
            err(f'{q}: expected_id {eid} not in bank')
        elif by_id[eid]['question'] != query:
            err(f'{q}: bank question of {eid} differs from the query')
        exp_ids.append(eid)
    if len(set(exp_ids)) != len(exp_ids):
        err('target questions are not distinct')

    sizes = collections.Counter()
    for q in qids:
        p = os.path.join(a.out_dir, q + '.jpg')
        if not os.path.exists(p):
            err(f'{q}.jpg missing')
            continue
        try:
            with Image.open(p) as im:
                fmt = im.format
                im.load()
                sz = im.size
        except Exception as e:  # noqa: BLE001
            err(f'{q}.jpg does not decode: {e}')
            continue
        if fmt != 'JPEG':
            err(f'{q}.jpg is {fmt}, not JPEG')
        if sz not in ((1280, 960), (960, 1280)):
            err(f'{q}.jpg size {sz}')
        sizes[sz] += 1
    extra = sorted(set(f for f in os.listdir(a.out_dir) if f.endswith('.jpg')) - {q + '.jpg' for q in qids})
    if extra:
        err(f'unexpected images: {extra[:5]}')

    langs = collections.Counter('zh' if re.search(r'[\u4e00-\u9fff]', truth[q]) else 'en' for q in qids)
    subj = collections.Counter(by_id[e]['subject'] for e in exp_ids if e in by_id)
    print(f'{len(qids)} photos; sizes {dict(sizes)}; languages {dict(langs)}')
    print('subjects:', dict(sorted(subj.items())))

    if a.manifest:
        mans = [json.loads(l) for l in open(a.manifest, encoding='utf-8') if l.strip()]
        if [m['qid'] for m in mans] != qids:
            err('manifest qids differ from truth.csv')
        for m, e in zip(mans, exp_ids):
            if m.get('expected_id') != e:
                err(f'{m["qid"]}: manifest expected_id {m.get("expected_id")} != {e}')
        cnt = collections.Counter(c for m in mans for c in m.get('cases', []))
        print('\ncase counts (photos in which the case is visible):')
        groups = collections.OrderedDict()
        for c in sorted(cnt):
            key = c.split('_')[0] if c.split('_')[0] in ('numstyle', 'face', 'page', 'desk', 's', 't', 'neighbour', 'target') else 'other'
            groups.setdefault(key, []).append(c)
        for key, cs in groups.items():
            print(f'  [{key}]')
            for c in cs:
                print(f'    {c:34s} {cnt[c]:4d}')
        cpx = sorted(m['char_px'] for m in mans if 'char_px' in m)
        if cpx:
            print(f'\ntarget char height px: min {cpx[0]}  median {cpx[len(cpx) // 2]}  max {cpx[-1]}; '
                  f'<=30 px: {sum(1 for c in cpx if c <= 30)}')
            mins = sorted(m['char_px_min'] for m in mans)
            print(f'smallest local char height: {mins[0]} px')
        rot = [abs(m['rotation_deg']) for m in mans]
        print(f'|rotation| max {max(rot):.1f} deg; >5 deg: {sum(1 for x in rot if x > 5)}')
        light = collections.Counter(m['light'] for m in mans)
        print('light:', dict(light))
        att = collections.Counter(m['shot_attempts'] for m in mans)
        print('shot attempts:', dict(sorted(att.items())))
        print('min target-line contrast:', min(m['min_contrast'] for m in mans))

    if a.sheets:
        made = contact_sheets(a.out_dir, [q for q in qids if os.path.exists(os.path.join(a.out_dir, q + '.jpg'))],
                              truth, a.sheets)
        full = [q for q in a.full.split(',') if q] + qids[:a.full_count]
        for q in dict.fromkeys(full):
            p = os.path.join(a.out_dir, q + '.jpg')
            if os.path.exists(p):
                Image.open(p).convert('RGB').save(os.path.join(a.sheets, q + '.png'))
        print(f'\nwrote {len(made)} contact sheets and {len(set(full))} full-size PNGs to {a.sheets}')

    if errors:
        print(f'\n{len(errors)} PROBLEMS:')
        for e in errors[:50]:
            print('  -', e)
        return 1
    print('\nall checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
