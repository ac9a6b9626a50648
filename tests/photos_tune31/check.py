#!/usr/bin/env python3
"""Check an output directory of make_photos.py and print a summary.

  python tests/photos_tune31/check.py OUTDIR [--bank appliance/data/demo_bank.jsonl] [--count 120]

Exit code 0 when everything holds, 1 when a problem was found (each is printed).
"""
import argparse
import collections
import csv
import json
import os
import sys

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BANK = os.path.normpath(os.path.join(HERE, '..', '..', 'appliance', 'data', 'demo_bank.jsonl'))
SIZES = {(1280, 960), (960, 1280), (1600, 1200), (1200, 1600), (1024, 768), (768, 1024), (800, 600), (600, 800)}
HEADERS = {'truth.csv': ['qid', 'text'], 'queries.csv': ['qid', 'query', 'expected_id', 'kind']}

# cases.csv columns summarised as "how many photos show it"
FLAGS = [
    ('framed problem in Chinese', lambda r: r['framed_lang'] == 'zh'),
    ('framed problem in English', lambda r: r['framed_lang'] == 'en'),
    ('mixed-language page', lambda r: r['page_lang'] == 'mixed'),
    ('worksheet', lambda r: r['doc_type'] == 'worksheet'),
    ('exam paper', lambda r: r['doc_type'] == 'exam'),
    ('textbook page', lambda r: r['doc_type'] == 'textbook'),
    ('serif body font', lambda r: any(k in r['font'] for k in ('serif', 'songti', 'times'))),
    ('bold body font', lambda r: r['bold'] == '1'),
    ('narrow / condensed text', lambda r: r['narrow'] == '1'),
    ('char height < 22 px', lambda r: float(r['char_px']) < 22),
    ('char height 22-32 px', lambda r: 22 <= float(r['char_px']) <= 32),
    ('char height > 32 px', lambda r: float(r['char_px']) > 32),
    ('two-column page', lambda r: r['columns'] == '2'),
    ('  framed in right column', lambda r: r['columns'] == '2' and r['framed_col'] == '2'),
    ('tight line spacing', lambda r: r['tight_spacing'] == '1'),
    ('framed problem has a number', lambda r: r['framed_label'] != ''),
    ('framed problem has no number', lambda r: r['framed_label'] == ''),
    ('some problems unnumbered', lambda r: r['numbering'] in ('some', 'none', 'header')),
    ('per-problem header line', lambda r: r['problem_header'] == '1'),
    ('hanging indent', lambda r: r['indent'] == 'hanging'),
    ('flush-left wrap', lambda r: r['indent'] == 'flush'),
    ('name/class/date line', lambda r: r['name_line'] == '1'),
    ('section heading', lambda r: r['section_heading'] == '1'),
    ('heading directly above framed', lambda r: r['heading_above_framed'] == '1'),
    ('score notes on page', lambda r: r['score_note'] == '1'),
    ('score note on framed', lambda r: r['framed_score_note'] == '1'),
    ('A-D options under neighbours', lambda r: r['options_neighbours'] == '1'),
    ('framed has sup/subscript', lambda r: r['framed_has_supsub'] == '1'),
    ('framed has fill-in blank', lambda r: r['framed_has_blank'] == '1'),
    ('near-duplicate neighbour adjacent', lambda r: r['near_dup_adjacent'] == '1'),
    ('complete neighbour above framed', lambda r: r['complete_above'] == '1'),
    ('complete neighbour below framed', lambda r: r['complete_below'] == '1'),
    ('neighbours cut at photo edge', lambda r: int(r['neighbours_cut']) > 0),
    ('teacher tick/cross/score in view', lambda r: r['marks_visible'] == '1'),
    ('  mark next to framed', lambda r: r['mark_on_framed'] == '1'),
    ('circled number in view', lambda r: r['circle_visible'] == '1'),
    ('  circle on framed number', lambda r: r['circle_on_framed'] == '1'),
    ('highlighter in view', lambda r: r['highlight_visible'] == '1'),
    ('  highlighter on framed', lambda r: r['highlight_on_framed'] == '1'),
    ('student underline in view', lambda r: r['underline_visible'] == '1'),
    ('  underline on framed', lambda r: r['underline_on_framed'] == '1'),
    ('finger at edge', lambda r: r['occluder'].startswith('finger')),
    ('pen at edge', lambda r: r['occluder'].startswith('pen')),
    ('page curl / dog-ear in view', lambda r: r['curl_visible'] == '1'),
    ('fold line in view', lambda r: r['fold_visible'] == '1'),
    ('show-through', lambda r: r['show_through'] == '1'),
    ('rotation > 3 deg', lambda r: abs(float(r['rot_deg'])) > 3 and r['orientation'] == '0'),
    ('sideways (90/270)', lambda r: r['orientation'] in ('90', '270')),
    ('upside-down (180)', lambda r: r['orientation'] == '180'),
    ('strong perspective', lambda r: float(r['persp']) > 0.5),
    ('uneven lighting', lambda r: r['lighting'] == '1'),
    ('shadow', lambda r: r['shadow'] == '1'),
    ('defocus blur', lambda r: r['blur'].startswith('defocus')),
    ('motion blur', lambda r: r['blur'].startswith('motion')),
    ('JPEG quality < 70', lambda r: int(r['jpeg_q']) < 70),
    ('screen photo with moire', lambda r: r['screen_moire'] == '1'),
    ('1280x960 / 960x1280', lambda r: (r['width'], r['height']) in (('1280', '960'), ('960', '1280'))),
    ('portrait', lambda r: int(r['height']) > int(r['width'])),
    ('1600x1200 / 1200x1600', lambda r: '1600' in (r['width'], r['height'])),
    ('smaller 4:3', lambda r: max(int(r['width']), int(r['height'])) < 1280),
]


def read_csv(path, problems):
    try:
        with open(path, 'rb') as f:
            raw = f.read()
    except OSError as e:
        problems.append('%s: %s' % (os.path.basename(path), e))
        return None, []
    if raw.startswith(b'\xef\xbb\xbf'):
        problems.append('%s: starts with a BOM' % os.path.basename(path))
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as e:
        problems.append('%s: not UTF-8 (%s)' % (os.path.basename(path), e))
        return None, []
    rows = list(csv.reader(text.lstrip('\ufeff').splitlines()))
    if not rows:
        problems.append('%s: empty' % os.path.basename(path))
        return None, []
    head, body = rows[0], rows[1:]
    for i, r in enumerate(body, 2):
        if len(r) != len(head):
            problems.append('%s line %d: %d fields, header has %d' % (os.path.basename(path), i, len(r), len(head)))
    return head, [dict(zip(head, r)) for r in body if len(r) == len(head)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('outdir')
    ap.add_argument('--bank', default=DEFAULT_BANK)
    ap.add_argument('--count', type=int, default=None, help='expected number of photos')
    a = ap.parse_args()
    problems = []
    with open(a.bank, encoding='utf-8') as f:
        bank = {e['id']: e for e in (json.loads(l) for l in f if l.strip())}

    tables = {}
    for name in ('truth.csv', 'queries.csv', 'cases.csv'):
        head, rows = read_csv(os.path.join(a.outdir, name), problems)
        if head is None:
            continue
        if name in HEADERS and head != HEADERS[name]:
            problems.append('%s: header %r, expected %r' % (name, head, HEADERS[name]))
        if name == 'cases.csv' and head[:2] != ['qid', 'expected_id']:
            problems.append('cases.csv: header must start with qid,expected_id')
        tables[name] = rows
    if len(tables) < 3:
        return report(problems, None)

    truth, queries, cases = tables['truth.csv'], tables['queries.csv'], tables['cases.csv']
    n = len(truth)
    want = ['i%03d' % i for i in range(1, n + 1)]
    if a.count is not None and n != a.count:
        problems.append('truth.csv has %d rows, expected %d' % (n, a.count))
    for name, rows in tables.items():
        qids = [r['qid'] for r in rows]
        if qids != want:
            problems.append('%s: qids are not i001..i%03d in order' % (name, n))
    jpgs = sorted(f for f in os.listdir(a.outdir) if f.lower().endswith(('.jpg', '.jpeg')))
    if jpgs != [q + '.jpg' for q in want]:
        extra = set(jpgs) - {q + '.jpg' for q in want}
        missing = {q + '.jpg' for q in want} - set(jpgs)
        problems.append('image files differ from qids: missing %s, extra %s' % (sorted(missing)[:5], sorted(extra)[:5]))

    tq = {r['qid']: r for r in truth}
    qq = {r['qid']: r for r in queries}
    sizes = collections.Counter()
    for r in cases:
        qid = r['qid']
        t, q = tq.get(qid), qq.get(qid)
        if t is None or q is None:
            continue
        eid = q['expected_id']
        if eid not in bank:
            problems.append('%s: expected_id %s not in bank' % (qid, eid))
            continue
        if t['text'] != bank[eid]['question']:
            problems.append('%s: truth text differs from bank question of %s' % (qid, eid))
        if q['query'] != t['text']:
            problems.append('%s: query differs from truth text' % qid)
        if q['kind'] != 'exact':
            problems.append('%s: kind %r' % (qid, q['kind']))
        if r['expected_id'] != eid:
            problems.append('%s: cases.csv expected_id %s != queries.csv %s' % (qid, r['expected_id'], eid))
        path = os.path.join(a.outdir, qid + '.jpg')
        if not os.path.exists(path):
            continue
        try:
            with Image.open(path) as im:
                fmt, size, mode = im.format, im.size, im.mode
                im.load()
        except Exception as e:   # noqa: BLE001 - report any unreadable image
            problems.append('%s: unreadable image (%s)' % (qid, e))
            continue
        sizes[size] += 1
        if fmt != 'JPEG' or mode != 'RGB':
            problems.append('%s: %s %s, expected RGB JPEG' % (qid, fmt, mode))
        if size not in SIZES:
            problems.append('%s: unexpected size %dx%d' % (qid, size[0], size[1]))
        if (int(r.get('width', 0)), int(r.get('height', 0))) != size:
            problems.append('%s: cases.csv size differs from image' % qid)
        try:
            v = [float(x) for x in r['framed_quad'].split()]
            assert len(v) == 8
        except (ValueError, AssertionError, KeyError):
            problems.append('%s: bad framed_quad' % qid)
            continue
        W, H = size
        xs, ys = v[0::2], v[1::2]
        if min(xs) < 0 or max(xs) > W or min(ys) < 0 or max(ys) > H:
            problems.append('%s: framed problem not fully inside the photo' % qid)
        cx, cy = sum(xs) / 4, sum(ys) / 4
        if abs(cx - W / 2) > 0.1 * W or abs(cy - H / 2) > 0.1 * H:
            problems.append('%s: framed centre (%.0f, %.0f) more than a tenth off the photo centre' % (qid, cx, cy))
        cp = float(r['char_px'])
        if not 14.0 <= cp <= 41.0:
            problems.append('%s: character height %.1f px out of range' % (qid, cp))
    return report(problems, (cases, sizes, bank))


def report(problems, data):
    if data is not None:
        cases, sizes, bank = data
        n = len(cases)
        print('%d photos, %d distinct bank entries framed (bank has %d)' %
              (n, len({r['expected_id'] for r in cases}), len(bank)))
        print('sizes: ' + ', '.join('%dx%d: %d' % (w, h, c) for (w, h), c in sorted(sizes.items())))
        cps = sorted(float(r['char_px']) for r in cases)
        if cps:
            print('character height in photo: %.1f .. %.1f px (median %.1f)' % (cps[0], cps[-1], cps[len(cps) // 2]))
        print('%-38s %s' % ('case', 'photos'))
        for name, fn in FLAGS:
            try:
                c = sum(1 for r in cases if fn(r))
            except (KeyError, ValueError):
                c = 'n/a'
                problems.append('cases.csv: cannot evaluate %r' % name)
            print('%-38s %s' % (name, c))
        styles = collections.Counter(r['num_style'] for r in cases)
        print('number styles: ' + ', '.join('%s %d' % kv for kv in sorted(styles.items())))
    if problems:
        print('\n%d PROBLEM(S):' % len(problems))
        for p in problems[:200]:
            print('  ' + p)
        return 1
    print('\nOK')
    return 0


if __name__ == '__main__':
    sys.exit(main())
