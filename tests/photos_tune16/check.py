import csv, json, sys
from PIL import Image, ImageDraw
out=sys.argv[1]
bank={json.loads(l)['id']:json.loads(l)['question'] for l in open(__import__('pathlib').Path(__file__).resolve().parents[2] / 'appliance/data/demo_bank.jsonl', encoding='utf-8')}
T=list(csv.DictReader(open(out+'/truth.csv',encoding='utf-8')))
Q=list(csv.DictReader(open(out+'/queries.csv',encoding='utf-8')))
M=[json.loads(l) for l in open(out+'/meta.jsonl')]
print('rows', len(T), len(Q), len(M))
bad=0
for t,q,m in zip(T,Q,M):
    assert t['qid']==q['qid']==m['qid']
    assert t['text']==bank[m['bank_id']]==q['query'] and q['expected_id']==m['bank_id'] and q['kind']=='exact'
    assert '\n' not in t['text']
    im=Image.open(out+'/'+m['file']); assert im.size==(m['width'],m['height']), (im.size, m)
    x0,y0,x1,y1=m['box']
    ok = 0<=x0 and 0<=y0 and x1<m['width'] and y1<m['height']
    ok &= m['min_gap_ratio'] is None or m['min_gap_ratio']>=0.06
    ok &= 18<=m['body_px']<=60
    ok &= m['nearest_others'][0]['dist'] - m['framed_dist'] >= 0.06*max(m['width'],m['height'])
    if not ok: bad+=1; print('BAD', m['qid'])
print('bad', bad, 'min gap', min(m['min_gap_ratio'] for m in M), 'body px', min(m['body_px'] for m in M), max(m['body_px'] for m in M))
import collections
print(collections.Counter(m['rotation'] for m in M), collections.Counter((m['width'],m['height']) for m in M))
print(len(set(m['bank_id'] for m in M)), 'distinct bank ids')
