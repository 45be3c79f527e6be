#!/usr/bin/env python3
"""Pairwise P/R/F1 of every default detector, of their union (what the review queue can show),
and of MinHash, plus the recall of the non-English stories' true pairs, on a corpus made by
`examples/make_news_corpus.rs` (gold.tsv, stories.tsv) or by `debian-docs.sh` (gold.tsv only).

Usage: python3 examples/union_eval.py SPOTCHECK_BIN DB LAYOUT_DIR   (after `ingest`, `detect`,
`detect --method minhash` on DB). `spotcheck eval` gives the same per-method numbers."""
import subprocess, sys, itertools, collections, os
B, db, d = sys.argv[1], sys.argv[2], sys.argv[3]
gold = {}
for l in open(f"{d}/gold.tsv"):
    if l.startswith("#") or not l.strip(): continue
    u, c = l.rstrip("\n").split("\t"); gold[u] = c
lang = {}
# Doc corpora (debian-docs.sh) have no stories.tsv: every cluster counts as English.
if os.path.exists(f"{d}/stories.tsv"):
    for l in open(f"{d}/stories.tsv"):
        if l.startswith("#"): continue
        c, g, *_ = l.rstrip("\n").split("\t"); lang[c] = g
by = collections.defaultdict(list)
for u, c in gold.items(): by[c].append(u)
true = {tuple(sorted(p)) for m in by.values() for p in itertools.combinations(m, 2)}
true_ne = {p for p in true if lang.get(gold[p[0]], "en") != "en"}
def pairs(m):
    out = subprocess.run([B, "pairs", "--db", db, "--method", m, "--format", "tsv"], capture_output=True, text=True).stdout
    s = set()
    for l in out.splitlines()[1:]:
        a, b = l.split("\t")[:2]
        if a in gold and b in gold: s.add(tuple(sorted((a, b))))
    return s
def row(name, s):
    tp = len(s & true); p = tp / len(s) if s else 1.0; r = tp / len(true)
    f = 2*p*r/(p+r) if p+r else 0.0
    ne = f"  non-English recall {len(s & true_ne) / len(true_ne):.3f} ({len(true_ne)} pairs)" if true_ne else ""
    print(f"{name:10} P {p:.3f} R {r:.3f} F1 {f:.3f}{ne}")
union = set()
for m in ["spotsigs", "imatch", "cooper"]:
    s = pairs(m); union |= s; row(m, s)
row("union", union)
row("minhash", pairs("minhash"))
