#!/usr/bin/env python3
"""Pairwise P/R/F1 of every default detector, of their union (what the review queue can show),
and of MinHash, plus the recall of the non-English stories' true pairs, on a corpus made by
`examples/make_news_corpus.rs` (gold.tsv, stories.tsv) or by `debian-docs.sh` (gold.tsv only).

Usage: python3 examples/union_eval.py SPOTCHECK_BIN DB LAYOUT_DIR   (after `ingest`, `detect`,
`detect --method minhash` on DB). `spotcheck eval` gives the same per-method numbers.

"union" is what the review queue shows: every default detector's pairs, less the pairs only one
detector found whose pages are template siblings, and less the pairs of two pages of one site
whose titles or URL file names each carry a name of their own (the two rules of `src/model/siblings.rs`, mirrored
below on the content texts and titles read from DB; neither judges two pages at one place of their
site, the same last directory and file name: one page in two releases; a site is a family of
sites, `src/extract/sites.rs`, also mirrored: releases laid out as sites are one); "union raw" is the
plain union, before them; "queue" is the union less the pairs with a page noise triage keeps out
of the default queue (the rules of `src/model/triage.rs`, mirrored below).

On a doc corpus (no stories.tsv) it then prints a line per documentation package ("family": the
URL's first path segment, its releases the second) with each detector's and the queue's P/R/F1
on that family: its true pairs, and every found pair with a page in it (a false pair across two
packages counts against both). A family is "patch" when all its releases share the upstream
major.minor version (linux-doc 6.1.x, libgtk 3.24.x: the near-duplicates the issue asks for),
"major" otherwise (rust-doc 1.48/1.63/1.85, sqlite 3.34/3.40/3.46: graded, years of edits apart),
"one" with a single release (look-alikes only: no true pair)."""
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
    tp = len(s & true); p = tp / len(s) if s else 1.0; r = tp / len(true) if true else 1.0
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
text_of, title_of = {}, {}
for u, t, ti in con.execute(
        "SELECT d.url, coalesce(c.text, d.visible_text), d.title FROM documents d LEFT JOIN content_texts c ON c.doc_id = d.id"):
    text_of[u] = t; title_of[u] = ti
tokens_of = {}
def tokens(u):
    if u not in tokens_of: tokens_of[u] = set(TOKEN.findall(text_of.get(u, "")))
    return tokens_of[u]
def site_key(u):
    return u.split("://", 1)[1].split("/")[0].split("?")[0].split("#")[0] if "://" in u else u.split("/")[0]
# Sites that are one (extract::sites::SiteFamilies): two sites of which the smaller has at
# least 8 places, and at least half its places, at places of the other (a place: the path's
# last directory and file name; none for a root, a URL with a query, a name without a letter;
# places on more than 64 sites count for none): releases of one manual laid out as sites of
# their own.
def place_key(u):
    u = u.split("#")[0]
    path, _, query = u.partition("?")
    if query: return None
    path = path.split("://", 1)[1] if "://" in path else path
    path = path.split("/", 1)[1] if "/" in path else ""
    segs = path.split("/")
    name = segs[-1]; d = segs[-2] if len(segs) >= 2 else ""
    if not any(c.isalpha() for c in (name or d)): return None
    return (d, name)
def site_families(urls):
    places = collections.defaultdict(set); sites = set()
    for u in urls:
        s = site_key(u); sites.add(s); k = place_key(u)
        if k is not None: places[s].add(k)
    on = collections.defaultdict(list)
    for s, ks in places.items():
        for k in ks: on[k].append(s)
    shared = collections.Counter()
    for k, ss in on.items():
        if 2 <= len(ss) <= 64:
            ss = sorted(ss)
            for i in range(len(ss)):
                for j in range(i + 1, len(ss)): shared[(ss[i], ss[j])] += 1
    parent = {s: s for s in sites}
    def find(x):
        while parent[x] != x: parent[x] = parent[parent[x]]; x = parent[x]
        return x
    for (a, b), n in shared.items():
        if n >= 8 and n >= 0.5 * min(len(places[a]), len(places[b])): parent[find(a)] = find(b)
    members = collections.defaultdict(list)
    for s in sites: members[find(s)].append(s)
    return {s: min(m) for m in members.values() if len(m) > 1 for s in m}
FAMILY = site_families(title_of)
def site_of(u):
    s = site_key(u); return FAMILY.get(s, s)
# Pages at one place of one site (same last directory and file name, same query; siblings::same_place)
# are one page in two releases: neither rule judges them.
def place(u):
    u = u.split("#")[0]
    path, _, query = u.partition("?")
    path = path.split("://", 1)[1] if "://" in path else path
    path = path.split("/", 1)[1] if "/" in path else ""
    segs = path.split("/")
    if len(segs) < 2 or not segs[-1] or not segs[-2]: return None
    return (segs[-2], segs[-1], query)
def same_place(a, b):
    return a != b and site_of(a) == site_of(b) and place(a) is not None and place(a) == place(b)
def siblings(a, b):
    if same_place(a, b): return False
    A, B = tokens(a), tokens(b)
    differing = len(A ^ B)
    if differing == 0 or len(A & B) < SIBLING_MIN_JACCARD * len(A | B): return False
    only = lambda x, y: sum(1 for t in x - y if is_identifier(t))
    return 2 * min(only(A, B), only(B, A)) / differing >= SIBLING_SHARE
# Pages of one site named apart: each title has a token the other lacks that at most
# PAGE_NAME_MAX_SHARE of the site's titles carry (SiteTitles::named_apart).
PAGE_NAME_MAX_SHARE = 0.05
title_tokens = {u: set(TOKEN.findall(t.lower())) for u, t in title_of.items()}
site_pages = collections.Counter(site_of(u) for u in title_of)
titles_with = collections.Counter((site_of(u), t) for u, ts in title_tokens.items() for t in ts)
# ...or each URL's file name (path's last segment, no query or extension, split at every
# non-alphanumeric character, numbers left out: SiteTitles' file_name_tokens) has such a token of its own.
def file_name_tokens(u):
    path = u.split("://", 1)[1] if "://" in u else u
    if "://" in u: path = path[path.index("/"):] if "/" in path else ""
    name = re.split(r"[?#]", path)[0].rsplit("/", 1)[-1]
    stem, dot, ext = name.rpartition(".")
    if dot and stem and 1 <= len(ext) <= 5 and ext.isascii() and ext.isalnum(): name = stem
    return {t.lower() for t in re.split(r"[\W_]+", name) if t and not (t.isascii() and t.isdigit())}
name_tokens = {u: file_name_tokens(u) for u in title_of}
names_with = collections.Counter((site_of(u), t) for u, ts in name_tokens.items() for t in ts)
def named_apart(a, b):
    s = site_of(a)
    if s != site_of(b) or a not in title_tokens or b not in title_tokens or same_place(a, b): return False
    limit = PAGE_NAME_MAX_SHARE * site_pages[s]
    def apart(tok, with_):
        own = lambda x, y: any(with_[(s, t)] <= limit for t in tok[x] - tok[y])
        return own(a, b) and own(b, a)
    return apart(title_tokens, titles_with) or apart(name_tokens, names_with)
found = collections.Counter()
raw = set()
for m in ["spotsigs", "imatch", "cooper"]:
    s = pairs(m); raw |= s; found.update(s); row(m, s)
row("union raw", raw)
union = {p for p in raw if (found[p] > 1 or not siblings(*p)) and not named_apart(*p)}
row("union", union)
# The default queue: the union less every pair with a page noise triage keeps out (a noise page
# joins only entries of its own rule's pages, hidden by default; src/model/triage.rs, mirrored:
# HTTP error or redirect status, robots.txt, under 50 visible characters, and the client-side
# redirect stubs ingest marked, where the database has that column).
cols = {r[1] for r in con.execute("PRAGMA table_info(documents)")}
stub_col = "coalesce(redirect_stub, 0)" if "redirect_stub" in cols else "0"
noise = collections.Counter()
noisy = set()
for u, st, n, stub in con.execute(f"SELECT url, http_status, length(visible_text), {stub_col} FROM documents"):
    path = u.split("?")[0].split("#")[0].lower()
    rule = ("error" if st is not None and st >= 400 else "redirect" if st is not None and 300 <= st < 400
            else "client-redirect" if stub else "robots" if path.endswith("/robots.txt") or path == "robots.txt"
            else "near-empty" if n < 50 else None)
    if rule: noise[rule] += 1; noisy.add(u)
queue = {p for p in union if p[0] not in noisy and p[1] not in noisy}
row("queue", queue)
gone = union - queue
both = {p for p in gone if p[0] in noisy and p[1] in noisy}
print(f"queue drops {len(gone & true)} true / {len(gone - true)} false union pairs "
      f"(both pages noise: {len(both & true)} true / {len(both - true)} false)")
# The queue collapses byte-identical texts into one member ("×N captures"), never a pair a coder
# judges: "queue≠text" scores the queue on the pairs of pages whose texts differ (gold and found).
hash_of = dict(con.execute("SELECT url, text_hash FROM documents"))
differ = lambda p: hash_of.get(p[0]) != hash_of.get(p[1])
true_all = true
true = {p for p in true_all if differ(p)}
row("queue≠text", {p for p in queue if differ(p)})
true = true_all
print("triaged:", " ".join(f"{k} {v}" for k, v in sorted(noise.items())) or "none")
row("minhash", pairs("minhash"))

# Per documentation package (see the header): patch-release families apart from major ones.
def family(u): return u.split("/", 1)[0]
def release(u): return u.split("/", 2)[1] if u.count("/") >= 2 else ""
def upstream(r):
    v = r.split(":", 1)[-1].split("-", 1)[0].split("+", 1)[0]
    return tuple(v.split(".")[:2])
if not lang and all("://" not in u for u in gold):
    releases = collections.defaultdict(set)
    for u in gold: releases[family(u)].add(release(u))
    columns = [("spotsigs", pairs("spotsigs")), ("imatch", pairs("imatch")), ("cooper", pairs("cooper")), ("queue", queue)]
    print("families (P/R/F1 on each package's true pairs and the found pairs touching it):")
    for f in sorted(releases):
        rs = releases[f]
        kind = "one" if len(rs) == 1 else "patch" if len({upstream(r) for r in rs}) == 1 else "major"
        tf = {p for p in true if family(p[0]) == f}
        cells = []
        for name, s in columns:
            df = {p for p in s if family(p[0]) == f or family(p[1]) == f}
            tp = len(df & tf); P = tp / len(df) if df else 1.0; R = tp / len(tf) if tf else 1.0
            F = 2 * P * R / (P + R) if P + R else 0.0
            cells.append(f"{name} {P:.3f}/{R:.3f}/{F:.3f}")
        print(f"  {f} [{kind}: {' '.join(sorted(rs))}] true {len(tf)}: " + "  ".join(cells))
