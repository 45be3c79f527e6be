#!/usr/bin/env python3
"""Pairwise P/R/F1 of every default detector, of their union (what the review queue can show),
and of MinHash, plus the recall of the non-English stories' true pairs, on a corpus made by
`examples/make_news_corpus.rs` (gold.tsv, stories.tsv) or by `debian-docs.sh` (gold.tsv only).

Usage: python3 examples/union_eval.py SPOTCHECK_BIN DB LAYOUT_DIR   (after `ingest`, `detect`,
`detect --method minhash` on DB). `spotcheck eval` gives the same per-method numbers.

"union" is what the review queue shows: every default detector's pairs, less the pairs only one
detector found whose pages are template siblings (the rule of `src/model/siblings.rs`, mirrored
below on the content texts read from DB); "union raw" is the plain union, before that rule."""
import subprocess, sys, itertools, collections, os, re, sqlite3
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
# src/model/siblings.rs, in Python: tokens, identifiers, the two-sided share.
SIBLING_SHARE = 0.08
SIBLING_MIN_JACCARD = 0.1
TOKEN = re.compile(r"[^\W]+(?:[.:\-]+[^\W]+)*")
def is_identifier(t):
    return t.isascii() and ("_" in t.strip("_") or "::" in t or re.search(r"[a-z][A-Z]|[A-Za-z][0-9]|[A-Za-z]\.[A-Za-z]", t) is not None)
con = sqlite3.connect(db)
text_of = {u: t for u, t in con.execute(
    "SELECT d.url, coalesce(c.text, d.visible_text) FROM documents d LEFT JOIN content_texts c ON c.doc_id = d.id")}
tokens_of = {}
def tokens(u):
    if u not in tokens_of: tokens_of[u] = set(TOKEN.findall(text_of.get(u, "")))
    return tokens_of[u]
def siblings(a, b):
    A, B = tokens(a), tokens(b)
    differing = len(A ^ B)
    if differing == 0 or len(A & B) < SIBLING_MIN_JACCARD * len(A | B): return False
    only = lambda x, y: sum(1 for t in x - y if is_identifier(t))
    return 2 * min(only(A, B), only(B, A)) / differing >= SIBLING_SHARE
found = collections.Counter()
raw = set()
for m in ["spotsigs", "imatch", "cooper"]:
    s = pairs(m); raw |= s; found.update(s); row(m, s)
row("union raw", raw)
row("union", {p for p in raw if found[p] > 1 or not siblings(*p)})
row("minhash", pairs("minhash"))
