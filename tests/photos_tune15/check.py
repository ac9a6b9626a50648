import csv, json, sys, collections
from PIL import Image
out = sys.argv[1]; bank = {json.loads(l)['id']: json.loads(l) for l in open(sys.argv[2])}
truth = list(csv.DictReader(open(out + '/truth.csv', encoding='utf-8')))
qs = list(csv.DictReader(open(out + '/queries.csv', encoding='utf-8')))
meta = [json.loads(l) for l in open(out + '/meta.jsonl', encoding='utf-8')]
print('rows', len(truth), len(qs), len(meta))
bad = 0
for t, q, m in zip(truth, qs, meta):
    assert t['qid'] == q['qid'] == m['qid']
    b = bank[m['bank_id']]
    assert t['text'] == b['question'] and '\n' not in t['text'], t
    assert q['query'] == b['question'] and q['expected_id'] == m['bank_id'] and q['kind'] == 'exact'
    im = Image.open(out + '/' + m['file'])
    assert im.size == (m['width'], m['height']), (im.size, m)
    x0, y0, x1, y1 = m['box']
    ok = 0 <= x0 and 0 <= y0 and x1 <= m['width'] and y1 <= m['height']
    mg = 0.04 * max(m['width'], m['height'])
    ok &= abs(mg - m['margin_px']) < 0.01
    ok &= all(o['dist'] - m['framed_dist'] >= mg - 1e-6 for o in m['nearest_others'])
    ok &= 16 <= m['text_px'] <= 60
    ok &= m['rotation'] in (0, 90, 180, 270)
    if not ok:
        bad += 1; print('BAD', m['qid'], m)
print('bad', bad)
print('distinct bank ids', len({m['bank_id'] for m in meta}))
c = collections.Counter(k for m in meta for k in m['kinds'])
for k, v in sorted(c.items()):
    print('%-32s %d' % (k, v))
sl = sorted(m['slack_px'] / max(m['width'], m['height']) for m in meta if m['slack_px'] is not None)
print('slack/maxdim quantiles', [round(sl[int(q * (len(sl) - 1))], 3) for q in (0, .1, .25, .5, .75, 1)])
tp = sorted(m['text_px'] for m in meta); print('text px', tp[0], tp[len(tp)//2], tp[-1])
print('framed_dist>0:', sum(m['framed_dist'] > 0 for m in meta))
