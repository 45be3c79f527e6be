#!/usr/bin/env python3
"""Recall of the true pairs per story language on a corpus made by
`examples/make_news_corpus.rs` (gold.tsv, stories.tsv), with overall precision, for SpotSigs,
I-Match, Cooper and their union (what the review queue shows). A story's language is the one
`spotcheck docs` identifies for most of its copies (`stories.tsv` marks only en/other).

Usage: python3 examples/lang_eval.py SPOTCHECK_BIN DB LAYOUT_DIR   (after `ingest` and
`detect` on DB)."""
import collections, itertools, json, subprocess, sys
B, db, d = sys.argv[1], sys.argv[2], sys.argv[3]
gold = {}
for l in open(f"{d}/gold.tsv"):
    if l.startswith("#") or not l.strip(): continue
    u, c = l.rstrip("\n").split("\t"); gold[u] = c
marked = {}
for l in open(f"{d}/stories.tsv"):
    if l.startswith("#"): continue
    c, g, *_ = l.rstrip("\n").split("\t"); marked[c] = g
doc_lang = {}
for l in subprocess.run([B, "docs", "--db", db], capture_output=True, text=True, check=True).stdout.splitlines():
    o = json.loads(l); doc_lang[o["url"]] = o.get("lang") or "und"
by = collections.defaultdict(list)
for u, c in gold.items(): by[c].append(u)
story_lang = {}
for c, urls in by.items():
    votes = collections.Counter(doc_lang.get(u, "und") for u in urls)
    story_lang[c] = votes.most_common(1)[0][0]
true = {tuple(sorted(p)) for m in by.values() for p in itertools.combinations(m, 2)}
def pairs(m):
    out = subprocess.run([B, "pairs", "--db", db, "--method", m, "--format", "tsv"], capture_output=True, text=True).stdout
    s = set()
    for l in out.splitlines()[1:]:
        a, b = l.split("\t")[:2]
        if a in gold and b in gold: s.add(tuple(sorted((a, b))))
    return s
found = {m: pairs(m) for m in ["spotsigs", "imatch", "cooper"]}
found["union"] = set().union(*found.values())
groups = collections.defaultdict(set)
for p in true:
    c = gold[p[0]]
    groups[story_lang[c]].add(p)
    groups["(marked other)" if marked.get(c, "en") != "en" else "(marked en)"].add(p)
print("stories per language:", dict(collections.Counter(story_lang.values())))
print("other-marked stories:", {c: story_lang[c] for c in sorted(by) if marked.get(c, "en") != "en"})
print("copies identified per story language (identified/all):")
for c in sorted(by):
    if marked.get(c, "en") != "en":
        print(f"  {c} {story_lang[c]}: " + ",".join(doc_lang.get(u, "?") for u in sorted(by[c])))
hdr = "lang\tstories\tpairs\t" + "\t".join(f"{m} R" for m in found)
print(hdr)
for g in sorted(groups, key=lambda g: (-len(groups[g]), g)):
    ps = groups[g]
    n = len({gold[p[0]] for p in ps})
    print(f"{g}\t{n}\t{len(ps)}\t" + "\t".join(f"{len(found[m] & ps) / len(ps):.3f}" for m in found))
for m, s in found.items():
    tp = len(s & true); p = tp / len(s) if s else 1.0; r = tp / len(true)
    f = 2 * p * r / (p + r) if p + r else 0.0
    print(f"{m}: P {p:.3f} R {r:.3f} F1 {f:.3f} ({len(s)} pairs, {len(s) - tp} false)")
