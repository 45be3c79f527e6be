#!/usr/bin/env python3
"""Why a debian-docs corpus's pairs are wrong: every false pair and every missed true pair of
each default detector and of the union the queue shows, by cause, with counts (issue 14,
session 7). Run after `ingest`, `detect` (defaults) and `detect --method minhash` on DB.

Usage: python3 examples/doc_causes.py SPOTCHECK_BIN DB CORPUS_DIR [ALT_GOLD]
  ALT_GOLD (optional): a second gold (e.g. dd-held3's gold-alt.tsv) whose extra true pairs
  are counted as the cause "arguable gold" and under which P/R/F1 are printed too.
  Also printed: each column's precision with the "equal text" pairs (two pages of different
  gold clusters whose content texts are equal) left out of the count.

The union and the queue's two rules are union_eval.py's (run here, its table printed first).
Causes are tested in the order listed; a pair gets the first that fits:

false pairs
  arguable gold    true under ALT_GOLD (two renderings of one text)
  equal text       the two content texts are equal (case and white space folded)
  cross-package    two sites (packages); "same name" when the file names are equal
                   (a generator's generic page: inherits.html, pages.html, graph_legend.html)
  member lists     doxygen CLASS-members.html of two classes (one hierarchy: inherited members)
  index variants   doxygen functions_X / functions_func_X, namespacemembers_X / _eval_X ...
  stub             a content text of fewer than 30 words on either side
  same name, other directory: one file name in two directories of one site that are not one
                   place (a manual's section in two language editions, `map/Range.html` and
                   `set/Range.html`)
  named apart: url the file names each carry a token the other lacks that at most 5% of the
                   site's file names carry (what the title rule would see in the URL)
  other
missed true pairs
  removed by rule  found by a detector, left out by the queue's rules (union only), split by
                   the rule: "sibling" (one detector, template siblings by identifiers),
                   "title" or "file name" (named apart)
  empty content    a content text without words on either side
  no signature     the detector signed a page with nothing to match (SpotSigs: fewer than 3
                   signatures after the site rule; I-Match: no bag signed; Cooper: no term)
  (token Jaccard of the content texts under 0.9:)
  no own lines     every line of one page is also on more pages of the site than it has
                   releases (an index or directory page made of lines other pages carry)
  template lines of one release: 0.9 or more once those lines are left out of both texts
                   (a heading a newer generator puts on every page of one index)
  restructured (size x2): one content text at least twice the other's length
  changed J<0.5, changed 0.5-0.9, close 0.9-1, same tokens: token Jaccard of the content texts
Also printed: the missed pairs' token Jaccard (quartiles) and content/visible length ratio."""
import collections, json, re, runpy, statistics, subprocess, sys

B, db, d = sys.argv[1:4]
alt_path = sys.argv[4] if len(sys.argv) > 4 else None
sys.argv = ["union_eval.py", B, db, d]
g = runpy.run_path(__file__.rsplit("/", 1)[0] + "/union_eval.py")
gold, true, raw, found = g["gold"], g["true"], g["raw"], g["found"]
siblings, named_apart, tokens, text_of, con = g["siblings"], g["named_apart"], g["tokens"], g["text_of"], g["con"]
pairs, site_key, TOKEN = g["pairs"], g["site_key"], g["TOKEN"]
per = {m: pairs(m) for m in ["spotsigs", "imatch", "cooper"]}
union = {p for p in raw if (found[p] > 1 or not siblings(*p)) and not named_apart(*p)}
per["union"] = union
cols = ["spotsigs", "imatch", "cooper", "union"]

alt_true = set()
if alt_path:
    alt = {}
    for l in open(alt_path):
        if l.startswith("#") or not l.strip(): continue
        u, c = l.rstrip("\n").split("\t"); alt[u] = c
    by = collections.defaultdict(list)
    for u, c in alt.items(): by[c].append(u)
    alt_true = {tuple(sorted((a, b))) for m in by.values() for i, a in enumerate(m) for b in m[i + 1:]}

visible = {u: v for u, v in con.execute("SELECT url, visible_text FROM documents")}
def words(u): return text_of.get(u, "").split()
def folded(u): return " ".join(words(u)).lower()
def jac(a, b):
    A, B = tokens(a), tokens(b)
    return len(A & B) / len(A | B) if A | B else 1.0
def fname(u): return u.rsplit("/", 1)[-1]
NAME_TOKEN = re.compile(r"[A-Za-z0-9]+")
def name_tokens(u): return {t.lower() for t in NAME_TOKEN.findall(re.sub(r"\.[A-Za-z]+$", "", fname(u)))}
site_names = collections.Counter(site_key(u) for u in gold)
name_with = collections.Counter((site_key(u), t) for u in gold for t in name_tokens(u))
def url_named_apart(a, b):
    s = site_key(a)
    if s != site_key(b): return False
    lim = 0.05 * site_names[s]
    own = lambda x, y: any(name_with[(s, t)] <= lim for t in name_tokens(x) - name_tokens(y))
    return own(a, b) and own(b, a)
INDEX = re.compile(r"^(functions|namespacemembers|globals)(_[a-z]+)?(_.)?\.html$")

def false_cause(a, b):
    if (a, b) in alt_true: return "arguable gold"
    if folded(a) and folded(a) == folded(b): return "equal text"
    if site_key(a) != site_key(b):
        return "cross-package, same name" if fname(a) == fname(b) else "cross-package, other"
    if fname(a).endswith("-members.html") and fname(b).endswith("-members.html"): return "member lists"
    if INDEX.match(fname(a)) and INDEX.match(fname(b)): return "index variants"
    if min(len(words(a)), len(words(b))) < 30: return "stub"
    if fname(a) == fname(b): return "same name, other directory"
    if url_named_apart(a, b): return "named apart: url"
    return "other"

# Each detector's signatures, to tell a page it could not sign.
runs = dict(con.execute("SELECT method, max(id) FROM runs GROUP BY method"))
doc_url = dict(con.execute("SELECT id, url FROM documents"))
# A stored signature is JSON text, or from 200 bytes up that JSON zstd-compressed as a BLOB
# (src/store/detections.rs); Python's standard library has no zstd, so the `zstd` tool reads those.
# Since issue 16 session 14 it is binary (src/detect/sig_codec.rs, format byte 0xB1), read by
# `binary_sig` into the JSON shapes older versions stored.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
class Bin:
    def __init__(s, b): s.b, s.i = b, 1
    def varint(s):
        v = shift = 0
        while True:
            x = s.b[s.i]; s.i += 1; v |= (x & 0x7F) << shift; shift += 7
            if x < 0x80: return v
    def zigzag(s): z = s.varint(); return (z >> 1) ^ -(z & 1)
    def raw(s, n): r = s.b[s.i:s.i + n]; s.i += n; return r
    def u64(s): return int.from_bytes(s.raw(8), "little")
    def byte(s): return s.raw(1)[0]
    def str(s): return s.raw(s.varint()).decode()
def binary_sig(method, b, vocab):
    r = Bin(b)
    if method == "spotsigs":
        # The strings this row adds to the run's vocabulary (rows are read in document order),
        # the site, flags, then the signatures as ids.
        r.varint(); vocab.extend(r.str() for _ in range(r.varint()))
        site = r.str(); flags = r.byte()
        if flags & 1: r.zigzag()
        if flags & 2: r.u64()
        if flags & 4: r.u64()
        return {"site": site, "sigs": [vocab[r.varint()] for _ in range(r.varint())]}
    if method == "imatch":
        outcomes = []
        for _ in range(r.varint()):
            tag = r.byte()
            if tag == 0: r.raw(20); outcomes.append({"Signed": {"terms": r.varint(), "extended": r.varint()}})
            elif tag == 1: outcomes.append({"TooFewTerms": {"terms": r.varint()}})
            else: outcomes.append({"Unreliable": {"terms": r.varint(), "unique": r.varint()}})
        return {"outcomes": outcomes}
    site = r.u64()
    if r.byte(): r.u64()
    terms, prev = [], b""
    for _ in range(r.varint()):
        shared = r.varint(); prev = prev[:shared] + r.raw(r.varint()); terms.append(prev.decode())
    return [site, terms]
def sig_json(method, v, vocab):
    b = v if isinstance(v, bytes) else v.encode()
    if b.startswith(ZSTD_MAGIC):
        b = subprocess.run(["zstd", "-dc"], input=b, capture_output=True, check=True).stdout
    if b[:1] == b"\xb1": return binary_sig(method, b, vocab)
    return json.loads(b)
def sigs_of(method):
    vocab = []
    return {doc_url[i]: sig_json(method, s, vocab) for i, s in con.execute(
        "SELECT doc_id, sig FROM run_signatures WHERE run_id = ? ORDER BY doc_id", (runs[method],))}
spot = sigs_of("spotsigs")
# SpotSigs' site rule (src/sig/spotsigs.rs site_boilerplate, default 10 / 0.02 / 50 pages).
site_docs = collections.Counter(v["site"] for v in spot.values())
on_site = collections.Counter((v["site"], s) for v in spot.values() for s in set(v["sigs"]))
def spot_kept(u):
    v = spot.get(u)
    if not v: return 0
    n = site_docs[v["site"]]; floor = max(min(0.02 * n, 50), 10)
    if n <= floor: return len(set(v["sigs"]))
    return sum(1 for s in set(v["sigs"]) if on_site[(v["site"], s)] <= floor)
im = sigs_of("imatch"); co = sigs_of("cooper")
def imatch_outcomes(v):
    # Since session 11 an I-Match signature is an object (`outcomes` per coordinate, beside
    # the cross-site coordinates and the site); before, the list of outcomes itself.
    if isinstance(v, dict): return v.get("outcomes", [])
    return v or []
unsigned = {
    "spotsigs": lambda u: spot_kept(u) < 3,
    "imatch": lambda u: not any("Signed" in b for b in imatch_outcomes(im.get(u))),
    "cooper": lambda u: not (co.get(u) and co[u][1]),
}
# A page's own lines are on at most one page per release; lines on more pages of the site
# (RELEASES+1 or more) are a template's, even when too few to be removed (a heading a newer
# generator puts on every page of one index: doxygen 1.9.8's "Here is a list of all ...").
releases = collections.defaultdict(set)
for u in gold: releases[site_key(u)].add(u.split("/")[1] if u.count("/") > 1 else "")
line_pages = collections.Counter((site_key(u), l) for u in gold for l in set(text_of.get(u, "").splitlines()) if l.strip())
def own_tokens(u):
    s = site_key(u)
    return set(TOKEN.findall("\n".join(l for l in text_of.get(u, "").splitlines() if line_pages[(s, l)] <= len(releases[s]))))
def jac_own(a, b):
    A, B = own_tokens(a), own_tokens(b)
    return len(A & B) / len(A | B) if A | B else 1.0
def missed_cause(m, a, b):
    if m == "union" and (a, b) in raw:
        if found[(a, b)] == 1 and siblings(a, b): return "removed by rule: sibling"
        return "removed by rule: file name" if url_named_apart(a, b) else "removed by rule: title"
    if not words(a) or not words(b): return "empty content"
    ms = [m] if m != "union" else ["spotsigs", "imatch", "cooper"]
    if all(unsigned[x](a) or unsigned[x](b) for x in ms):
        if folded(a) != folded(b): return "no signature"
    j = jac(a, b)
    if j < 0.9:
        if not own_tokens(a) or not own_tokens(b): return "no own lines"
        if jac_own(a, b) >= 0.9: return "template lines of one release"
        la, lb = len(text_of.get(a, "")), len(text_of.get(b, ""))
        if max(la, lb) >= 2 * max(1, min(la, lb)): return "restructured (size x2)"
    return "changed J<0.5" if j < 0.5 else "changed 0.5-0.9" if j < 0.9 else "close 0.9-1" if j < 1 else "same tokens"

def table(title, rows, counts):
    print(f"\n{title}\n| cause | " + " | ".join(cols) + " |\n|---|" + "---|" * len(cols))
    for r in rows:
        if any(counts[c][r] for c in cols):
            print(f"| {r} | " + " | ".join(str(counts[c][r]) for c in cols) + " |")
    print("| **total** | " + " | ".join(str(sum(counts[c].values())) for c in cols) + " |")

fc = {c: collections.Counter(false_cause(*p) for p in per[c] - true) for c in cols}
table("False pairs by cause", ["arguable gold", "equal text", "cross-package, same name", "cross-package, other",
      "member lists", "index variants", "stub", "same name, other directory", "named apart: url", "other"], fc)
mc = {c: collections.Counter(missed_cause(c, *p) for p in true - per[c]) for c in cols}
table("Missed true pairs by cause", ["removed by rule: sibling", "removed by rule: title", "removed by rule: file name", "empty content", "no signature", "no own lines", "template lines of one release",
      "restructured (size x2)", "changed J<0.5",
      "changed 0.5-0.9", "close 0.9-1", "same tokens"], mc)

print("\nMissed true pairs by package (union): " + ", ".join(
    f"{k} {v}" for k, v in sorted(collections.Counter(site_key(a) for a, b in true - union).items())))
js = sorted(jac(*p) for p in true - union)
if len(js) >= 4:
    q = statistics.quantiles(js, n=4)
    print(f"missed (union) token Jaccard: n {len(js)}, quartiles {q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f}")
fj = sorted(jac(*p) for p in true & union)
if len(fj) >= 4: print(f"found (union) token Jaccard median {statistics.median(fj):.3f}")
ratio = [min(len(text_of.get(u, "")) / max(1, len(visible.get(u) or "")) for u in p) for p in true - union]
if ratio:
    print(f"missed (union): content/visible length of the shorter-kept page, median {statistics.median(ratio):.2f}, "
          f"under 0.2: {sum(r < 0.2 for r in ratio)}")

def prf(s, t):
    tp = len(s & t); p = tp / len(s) if s else 1.0; r = tp / len(t); f = 2 * p * r / (p + r) if p + r else 0
    return f"{p:.3f}/{r:.3f}/{f:.3f}"
equal = {p for p in raw if folded(p[0]) and folded(p[0]) == folded(p[1])}
print("\nprecision with the 'equal text' false pairs counted as neither true nor false: " + ", ".join(
    f"{c} {len(per[c] & true) / max(1, len(per[c] - (equal - true))):.3f}" for c in cols))
if alt_path:
    print("\nP/R/F1 under gold | under ALT_GOLD")
    for c in cols: print(f"{c:9} {prf(per[c], true)} | {prf(per[c], alt_true)}")
