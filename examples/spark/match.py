#!/usr/bin/env python3
"""The match stage of staged detection on Spark (README, "More than one machine").

Reads the sign stage's Parquet files (`spotcheck stage sign`, one per shard) and writes a
run that `spotcheck stage import --run OUT` reads: a directory of Parquet part files, one
row per pair (`a`, `b`, `score`, `detail`), plus `_run.parquet` written by the driver
holding the run's metadata (method, parameters, documents) and, for I-Match, the clusters.

The same rules as `spotcheck stage match` (the method's own `find_pairs`, which is what
`detect` runs), as a handful of joins and group-bys with no per-partition loop, so the
pairs (scores to the last bit) and clusters are exactly those of `spotcheck detect`:

- SpotSigs: a set-similarity join with prefix filtering (Vernica, Carey, Li, SIGMOD 2010).
  The vectors as `build_vectors` makes them: per (document, signature) its multiplicity;
  signature document frequencies (a group-by) and the idf window (decided on the driver
  per distinct df value, with Python's libm `log` as Rust's); the site rule (per site and
  signature: a group-by); documents under `min_sigs` left out. Each document's multiset
  becomes a set of 64-bit integer tokens ((signature id << bits) + k for its k-th
  occurrence; ids from the frequency table, increasing with the document frequency), so
  Σmin is the size of the intersection, ordered rarest first; each emits its first
  |A| − ⌈t|A|⌉ + 1 tokens (any
  pair with Jaccard ≥ t shares one of them), one join on the token with the length bound
  min/max ≥ t gives the candidates, deduplicated, and each is verified once with the exact
  overlap (t is detect's matching threshold: τ, or with the containment rule its floor).
  Then detect's filter (Jaccard ≥ τ, or containment ≥ `containment`; two differently named
  pages of one site only at Jaccard ≥ `sibling_tau`), and the exact
  duplicates and equal content texts at 1 (a group over 200 members as a star from its
  first member), a pair found both ways keeping the matcher's score.
- I-Match: a group-by on (coordinate, signature); pairs of buckets of at most
  `max_pair_bucket` documents, scored by agreeing coordinates / (K+1); clusters are the
  union-find of every bucket, on the driver (one edge per bucket member: N·(K+1) rows at
  most, small next to the pairs; a cluster-wide alternative is a few rounds of min-label
  propagation).
- Cooper: the term lists as 64-bit term ids, rarest first; one prefix join (the earlier
  list's first |S| − α + 1 + e terms with the later list's first |L| − α + 1 + e, α the
  fewest terms a passing pair shares, e the count margin `COOPER_MARGIN`) with the size
  bounds, the hits counted per pair (at least e + 1), then the delta test for every pair
  and the containment rule for pairs across sites on the exact intersection; a pair whose
  smaller list has fewer than `min_terms` terms then needs equal text keys.

SpotSigs' and Cooper's clusters are the connected components of the pairs, which
`stage import` makes (with each cluster's weakest bridge) as it stores the pairs: the pairs
are collected there anyway, and they are few next to the documents (830 per 950 pages on
the CI corpus), so no distributed components pass is needed.

Usage:
  spark-submit examples/spark/match.py --out RUN_DIR SIGNED.parquet...
  (or python3 match.py --master local[4] ...; the method and parameters are read from the
  signed files' metadata, written by `stage sign`.)
"""

import argparse
import json
import math
import os
import sys
import time
import urllib.request

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

MAX_EXACT_GROUP_PAIRS = 200


def normalized_idf(n_docs, df):
    # sig::spotsigs::normalized_idf
    if n_docs <= 1 or df == 0:
        return 1.0
    return math.log(float(n_docs) / float(df)) / math.log(float(n_docs))


def file_meta(path):
    meta = pq.read_schema(path).metadata or {}
    return {k.decode(): v.decode() for k, v in meta.items()}


def load(spark, files):
    """Every signed row with a document index: (shard file number, row in it)."""
    frames = []
    for k, path in enumerate(files):
        d = spark.read.parquet(path).withColumn("idx", F.lit(k).cast("long") * (1 << 32) + F.col("row"))
        frames.append(d)
    out = frames[0]
    for d in frames[1:]:
        out = out.unionByName(d)
    return out


def exact_group_pairs(docs, key):
    """Pairs at 1 inside each group of `key` (spotsigs::exact_duplicate_pairs)."""
    g = docs.where(F.col(key).isNotNull()).select(key, "idx")
    w = Window.partitionBy(key)
    g = g.withColumn("n", F.count("*").over(w)).withColumn("first", F.min("idx").over(w))
    small = g.where(F.col("n") <= MAX_EXACT_GROUP_PAIRS)
    pairs = (
        small.alias("x")
        .join(small.alias("y"), F.col(f"x.{key}") == F.col(f"y.{key}"))
        .where(F.col("x.idx") < F.col("y.idx"))
        .select(F.col("x.idx").alias("a"), F.col("y.idx").alias("b"))
    )
    star = (
        g.where((F.col("n") > MAX_EXACT_GROUP_PAIRS) & (F.col("idx") != F.col("first")))
        .select(F.col("first").alias("a"), F.col("idx").alias("b"))
    )
    return pairs.unionByName(star).withColumn("score", F.lit(1.0))


def ranked_ids(counts, key):
    """`counts` (one row per distinct `key` with its document frequency `df`) with `id`: a
    64-bit integer increasing with (`df`, `key`), so that ordering a document's ids orders
    its tokens rarest first, one global order (what prefix filtering needs). A sort and
    `monotonically_increasing_id` (partition number << 33 + row in it: increasing along the
    sorted partitions), no single-partition window; the ids are not dense."""
    return materialized(counts.orderBy("df", key).withColumn("id", F.monotonically_increasing_id()))


def id_lists(rows, token, arrays=False):
    """Per document (`idx`), the array of its `token`s (64-bit integers; with `arrays`,
    arrays of them) sorted ascending, and its length `len`. Integers, not the signatures'
    or terms' strings: the prefix join and the verification ship these lists (8 bytes a
    token instead of a string's ~20-40)."""
    tokens = F.collect_list(token)
    if arrays:
        tokens = F.flatten(tokens)
    per = rows.groupBy("idx").agg(F.array_sort(tokens).alias("tokens"))
    return per.withColumn("len", F.size("tokens"))


def prefix_join(pre, size_ok):
    """Candidate pairs (a < b) whose prefix tokens (`pre`: `idx`, `len`, `tok`) meet,
    passing `size_ok(l_a, l_b)`: one join on the token, deduplicated."""
    x = pre.select(F.col("idx").alias("x"), F.col("len").alias("lx"), "tok")
    y = pre.select(F.col("idx").alias("y"), F.col("len").alias("ly"), "tok")
    return (
        x.join(y, "tok")
        .where((F.col("x") < F.col("y")) & size_ok(F.col("lx"), F.col("ly")))
        .select(F.col("x").alias("a"), F.col("y").alias("b"))
        .distinct()
    )


# The verification joins broadcast the documents' token lists when they take at most this
# many bytes (8 per token): every candidate then looks its two lists up in memory, and no
# list travels with a candidate through a shuffle (what made Cooper's 6.5 M candidates at
# 20,000 pages spill 5 GB). Larger collections (a cluster's) use the shuffle joins.
BROADCAST_LISTS_BYTES = int(os.environ.get("BROADCAST_LISTS_BYTES", str(512 << 20)))


def verified(cand, per):
    """Candidates with both token lists' lengths and their exact overlap `m`."""
    tokens = per.agg(F.sum("len").alias("n")).collect()[0]["n"] or 0
    small = tokens * 8 + per.count() * 24 <= BROADCAST_LISTS_BYTES
    ta = per.select(F.col("idx").alias("a"), F.col("tokens").alias("ta"), F.col("len").alias("la"))
    tb = per.select(F.col("idx").alias("b"), F.col("tokens").alias("tb"), F.col("len").alias("lb"))
    if small:
        ta, tb = F.broadcast(ta), F.broadcast(tb)
    return (
        cand.join(ta, "a")
        .join(tb, "b")
        .withColumn("m", F.size(F.array_intersect("ta", "tb")).cast("long"))
        .drop("ta", "tb")
    )


def materialized(frame):
    """`frame` computed once and kept: a frame two later steps read would otherwise be
    recomputed by each (Spark caches lazily, and concurrent jobs do not share the work)."""
    frame = frame.cache()
    frame.count()
    return frame


# The prefix and length filters use τ lowered by this factor: a pair whose similarity,
# computed in floating point as in Rust, reaches τ is then never filtered out by a bound
# computed in floating point too (the filters only make candidates; the verification uses
# the exact expression of `spotsigs_matcher::ratio`).
TAU_SLACK = 1.0 - 1e-9


def spotsigs(spark, docs, s):
    """The set-similarity join with prefix filtering (Vernica, Carey, Li, SIGMOD 2010) on
    the multiset Jaccard of `cluster::spotsigs_matcher`, over the vectors of
    `sig::spotsigs::build_vectors` (idf window, site rule, min_sigs), then detect's
    containment rule and exact-duplicate / equal-content pairs."""
    # The fallback for unsigned pages (`--fallback-tau`; issue 14 session 14) reads the
    # documents' texts, which the signed files do not carry: refuse rather than differ.
    if float(s.get("fallback_tau", 0) or 0) > 0:
        raise SystemExit(
            "spotsigs: the fallback for unsigned pages is not in the Spark job (it reads the "
            "texts); sign with --params '{\"fallback_tau\":0}'"
        )
    n = docs.count()
    idf_min = s["idf_min"]
    idf_max = s["idf_max"]
    if idf_max is None:
        idf_max = normalized_idf(max(n, 2), 2) + 1e-12
    occ = docs.select("idx", "site", F.explode("spotsigs").alias("sig"))
    # One row per (document, signature) with its multiplicity: the vectors before filtering.
    vec = materialized(occ.groupBy("idx", "site", "sig").agg(F.count("*").alias("c")))
    df = materialized(vec.groupBy("sig").agg(F.count("*").alias("df")))
    # The idf window, decided per distinct df value in Python (the same libm log as Rust).
    dfs = [r["df"] for r in df.select("df").distinct().collect()]
    allowed = [f for f in dfs if idf_min <= normalized_idf(n, f) <= idf_max]
    # The kept signatures' ids, rarest first (the global order of the prefix filter).
    ids = ranked_ids(df.where(F.col("df").isin(allowed)), "sig")
    kept = vec.join(ids.select("sig", "id"), "sig")
    rule = s.get("site_boilerplate")
    if rule is not None:
        min_site_docs, fraction = rule
        cap = s.get("site_boilerplate_pages")
        site_docs = docs.groupBy("site").agg(F.count("*").alias("docs"))
        site_df = vec.groupBy("site", "sig").agg(F.count("*").alias("f"))
        limit = F.lit(float(fraction)) * F.col("docs").cast("double")
        if cap is not None:
            limit = F.least(limit, F.lit(float(cap)))
        floor = F.greatest(limit, F.lit(float(min_site_docs)))
        boiler = (
            site_df.join(site_docs, "site")
            .where((F.col("docs") >= max(min_site_docs, 1)) & (F.col("f").cast("double") > floor))
            .select("site", "sig")
        )
        kept = kept.join(boiler, ["site", "sig"], "left_anti")
    # A signature found c times in a document is c tokens (id << bits) + k, k < c, so
    # the multiset overlap Σmin is the size of the two token sets' intersection and |A|
    # their size; every token of a signature sorts next to its id's place.
    top = kept.agg(F.max("c").alias("c"), F.max("id").alias("id")).collect()[0]
    bits = max(int(top["c"] or 1) - 1, 1).bit_length()
    if (int(top["id"] or 0) + 1) << bits >= 1 << 63:
        sys.exit(f"spotsigs: {top['id']} signature ids with multiplicities up to {top['c']} "
                 "do not fit 64-bit tokens (fewer shuffle partitions make smaller ids)")
    base = F.shiftleft(F.col("id"), bits)
    toks = kept.select("idx", F.sequence(base, base + F.col("c") - 1).alias("toks"))
    per = materialized(id_lists(toks, "toks", arrays=True).where(F.col("len") >= max(s["min_sigs"], 1)))
    tau = s["tau"]
    containment = s.get("containment")
    # With the truncation rule the join goes down to its floor (as detect's matcher).
    match_tau = tau if containment is None else min(tau, max(s["containment_floor"], sys.float_info.min))
    t = match_tau * TAU_SLACK
    # J ≥ t needs an overlap of at least ⌈t·|A|⌉ tokens of A (J ≤ m/|A|): every pair
    # shares a token among the first |A| − ⌈t·|A|⌉ + 1 of each document's ordered list.
    plen = (F.col("len") - F.ceil(F.lit(t) * F.col("len")) + 1).cast("int")
    pre = per.select("idx", "len", F.explode(F.slice("tokens", 1, plen)).alias("tok"))
    # The length filter: J ≤ min/max.
    cand = prefix_join(pre, lambda la, lb: F.least(la, lb).cast("double") >= F.lit(t) * F.greatest(la, lb))
    cand = verified(cand, per)
    union = F.col("la") + F.col("lb") - F.col("m")
    cand = cand.withColumn("score", F.col("m").cast("double") / union.cast("double"))
    if containment is not None:
        contained = F.col("m").cast("double") / F.least("la", "lb").cast("double")
        cond = (F.col("score") >= match_tau) & ((F.col("score") >= tau) | (contained >= containment))
    else:
        cond = F.col("score") >= tau
    # `--sibling-tau`: two pages of one site under two names (`name`, the stage's key of the
    # URL's last path segment and query) pass only at Jaccard ≥ max(τ, sibling τ), never by
    # containment. A stage file from before names were kept has no `name`: τ alone.
    sibling_tau = s.get("sibling_tau")
    if sibling_tau is not None and "name" in docs.columns:
        meta_a = docs.select(F.col("idx").alias("a"), F.col("site").alias("site_a"), F.col("name").alias("name_a"))
        meta_b = docs.select(F.col("idx").alias("b"), F.col("site").alias("site_b"), F.col("name").alias("name_b"))
        cand = cand.join(meta_a, "a").join(meta_b, "b")
        sibling = (
            (F.col("site_a") == F.col("site_b"))
            & F.col("name_a").isNotNull()
            & F.col("name_b").isNotNull()
            & (F.col("name_a") != F.col("name_b"))
        )
        cond = F.when(sibling, F.col("score") >= F.lit(max(tau, sibling_tau))).otherwise(cond)
    matched = materialized(cand.where(cond).select("a", "b", "score"))
    exact = exact_group_pairs(docs, "dup_group").unionByName(exact_group_pairs(docs, "same_content"))
    # A pair both matched and exact keeps the matcher's score (detect's dedup keeps the
    # first); the exact pairs of both groupings are deduplicated among themselves.
    exact = exact.dropDuplicates(["a", "b"]).join(matched.select("a", "b"), ["a", "b"], "left_anti")
    pairs = matched.unionByName(exact).withColumn("detail", F.lit(None).cast("string"))
    return pairs, None, n


def imatch(spark, docs, s):
    # The cross-site bags (`--across-bags`; issue 14 session 11) are not in this job: refuse
    # rather than make other pairs than `detect`. `--across-min-overlap` judges only the pairs
    # those bags find, so with `--across-bags 0` it changes nothing and is not looked at.
    if s.get("across_bags", 0) > 0:
        raise SystemExit(
            "imatch: the cross-site bags are not in the Spark job; run the single-process "
            "match stage, or sign with --across-bags 0"
        )
    n = docs.count()
    k1 = docs.select(F.max(F.size("imatch_sigs")).alias("k")).collect()[0]["k"] or 0
    k1 = max(k1, 1)
    occ = docs.select("idx", F.posexplode("imatch_sigs").alias("c", "sig")).where(F.col("sig") != "")
    buckets = occ.groupBy("c", "sig").agg(
        F.count("*").alias("size"), F.min("idx").alias("first")
    ).where(F.col("size") > 1)
    occ_b = occ.join(buckets, ["c", "sig"])
    listable = occ_b.where(F.col("size") <= s["max_pair_bucket"])
    pairs = (
        listable.alias("x")
        .join(listable.alias("y"), ["c", "sig"])
        .where(F.col("x.idx") < F.col("y.idx"))
        .select(F.col("x.idx").alias("a"), F.col("y.idx").alias("b"))
        .distinct()
    )
    sig_a = docs.select(F.col("idx").alias("a"), F.col("imatch_sigs").alias("sa"))
    sig_b = docs.select(F.col("idx").alias("b"), F.col("imatch_sigs").alias("sb"))
    agree = F.aggregate(
        F.arrays_zip("sa", "sb"),
        F.lit(0),
        lambda acc, z: acc
        + F.when((z["sa"] != "") & (z["sa"] == z["sb"]), 1).otherwise(0),
    )
    pairs = pairs.join(sig_a, "a").join(sig_b, "b").withColumn("agreeing", agree)
    pairs = pairs.select("a", "b", "agreeing").cache()
    enough = pairs.where(F.col("agreeing") >= s["min_agree"])
    # The overlap check (`--min-overlap`): the weighted Jaccard of the two pages' primary
    # lexicon terms (`imatch_terms`, indices into the weights the sign stage stored), summed
    # in index order as sig::imatch::sorted_overlap_holds does, so the same pairs pass.
    below_min_overlap = 0
    weights = s.get("_imatch_weights")
    if s.get("min_overlap", 0.0) > 0.0 and weights is not None:
        w = spark.sparkContext.broadcast(weights)
        min_overlap = float(s["min_overlap"])

        def holds(ta, tb):
            if ta is None or tb is None:
                return True
            a = [int(x) for x in ta.split()]
            b = [int(x) for x in tb.split()]
            ws = w.value
            weight = lambda k: ws[k] if k < len(ws) else 1.0
            i = j = 0
            shared = union = 0.0
            while i < len(a) or j < len(b):
                if i < len(a) and j < len(b) and a[i] == b[j]:
                    x = weight(a[i])
                    shared += x
                    union += x
                    i += 1
                    j += 1
                elif i < len(a) and (j >= len(b) or a[i] < b[j]):
                    union += weight(a[i])
                    i += 1
                else:
                    union += weight(b[j])
                    j += 1
            return union <= 0.0 or shared >= min_overlap * union - 1e-9 * max(union, 1.0)

        holds_udf = F.udf(holds, "boolean")
        terms_a = docs.select(F.col("idx").alias("a"), F.col("imatch_terms").alias("ta"))
        terms_b = docs.select(F.col("idx").alias("b"), F.col("imatch_terms").alias("tb"))
        checked = enough.join(terms_a, "a").join(terms_b, "b").withColumn("ok", holds_udf("ta", "tb")).cache()
        below_min_overlap = checked.where(~F.col("ok")).count()
        enough = checked.where(F.col("ok")).select("a", "b", "agreeing")
    kept = enough.select(
        "a",
        "b",
        (F.col("agreeing").cast("double") / F.lit(float(k1))).alias("score"),
        F.concat(F.col("agreeing").cast("string"), F.lit(f" of {k1} lexicons agree")).alias("detail"),
    )
    clusters = None
    # As detect: the buckets' union-find unless a pair was left out (then the components of
    # the pairs kept, which the importer makes when no clusters are given).
    if s["min_agree"] <= 1 and below_min_overlap == 0:
        # Union-find over every bucket, oversized ones included (cluster_signatures).
        parent = {}

        def find(x):
            while parent.get(x, x) != x:
                parent[x] = parent.get(parent[x], parent[x])
                x = parent[x]
            return x

        for r in occ_b.select("first", "idx").where(F.col("first") != F.col("idx")).toLocalIterator():
            a, b = find(r["first"]), find(r["idx"])
            if a != b:
                parent[max(a, b)] = min(a, b)
        members = {}
        for x in list(parent):
            members.setdefault(find(x), []).append(x)
        for root in list(members):
            if root not in members[root]:
                members[root].append(root)
        lo, hi = {}, {}
        for r in pairs.toLocalIterator():
            root = find(r["a"])
            g = r["agreeing"]
            lo[root] = min(lo.get(root, g), g)
            hi[root] = max(hi.get(root, g), g)
        clusters = [
            (sorted(m), lo.get(root), hi.get(root), k1) for root, m in members.items() if len(m) > 1
        ]
    return kept, clusters, n


# Cooper's count-filter margin (see `cooper`); any value gives the same pairs.
COOPER_MARGIN = int(os.environ.get("COOPER_MARGIN", "2"))


def cooper(spark, docs, s):
    """Cooper: the paper's test (sizes within `size_pct`, fewer than `delta_pct` of the
    shorter list's size differing) for every pair, and the containment rule (fewer than
    `contained_pct` of the shorter list missing from a list at most `contained_size_pct`
    larger) for pairs of different sites only, as `sig::cooper::detect_across_sites`.

    Candidates as `detect_ranked` finds them, as one join: lists ordered rarest term
    first (term ids from the frequency table), visited shortest first; each list's
    indexed prefix (`indexed_len`) meets a later list's probe (its own prefix, or with
    containment its whole list) on a term, the later list no longer than the size rules
    allow; with containment the hits are counted (the count filter: a pair needs at least
    `indexed_len − may_miss` of the earlier list's indexed terms in the later list) before
    any list is shipped, and only those candidates are verified on the exact intersection
    of their two id lists."""
    # The passage rule (`--cooper-passage`; issue 14 session 12) reads the documents' texts,
    # which the signed files do not carry: refuse rather than make other pairs than `detect`.
    if int(s.get("passage_min_terms", 0) or 0) > 0:
        raise SystemExit(
            "cooper: the passage rule is not in the Spark job (it reads the texts); sign with "
            "--params '{\"passage_min_terms\":0}'"
        )
    n = docs.count()
    size_pct, delta_pct = int(s["size_pct"]), int(s["delta_pct"])
    contained_pct = int(s.get("contained_pct", 0) or 0)
    contained_size_pct = int(s.get("contained_size_pct", 0) or 0)
    contained_min_terms = int(s.get("contained_min_terms", 0) or 0)
    min_terms = int(s.get("min_terms", 0) or 0)
    contained = contained_pct > 0
    occ = docs.select("idx", F.explode("cooper_terms").alias("t"))
    ids = ranked_ids(occ.groupBy("t").agg(F.count("*").alias("df")), "t")
    per = id_lists(occ.join(ids.select("t", "id"), "t"), "id")
    per = materialized(per.join(docs.select("idx", F.col("cooper_site").alias("site")), "idx"))
    length = F.col("len").cast("long")

    def max_missing(n, pct):
        # sig::cooper::max_missing: one less than prefix_len (one more than the terms a
        # tolerance of pct percent lets go missing from a list of n terms).
        scaled = n * F.lit(pct)
        plen = F.when(scaled == 0, F.lit(0)).otherwise(F.least(n, F.floor((scaled - 1) / 100) + 1))
        return F.greatest(plen - 1, F.lit(0)).cast("long")

    def may_miss(n):
        # The most terms of a shorter list of n terms either rule lets go missing.
        if contained:
            return F.greatest(max_missing(n, delta_pct), max_missing(n, contained_pct))
        return max_missing(n, delta_pct)

    def extra(n):
        # The count filter's margin e: a candidate must share e + 1 prefix terms. Each
        # unit of it lengthens both prefixes by a term (more join rows) and turns away
        # the pairs that share only one of their rare terms (fewer lists shipped to the
        # verification); detect's in-memory index uses e = may_miss.
        return F.least(may_miss(n), F.lit(COOPER_MARGIN).cast("long"))

    # shortest_partner: the fewest terms an earlier list may have. (The quotients of these
    # small integers are exact in doubles when whole and at least 1/1100 from a whole
    # number otherwise, so floor and ceil are the integer ones.)
    shortest = F.ceil(length * 100 / F.lit(100 + size_pct))
    if contained:
        shortest = F.least(shortest, F.ceil(length * 100 / F.lit(100 + contained_size_pct)))
    shortest = F.greatest(shortest.cast("long"), F.lit(1).cast("long"))
    # A pair (S, L), S no later than L in the visiting order (length, then index), shares
    # at least α = |S| − may_miss(|S|) terms. Ordered rarest first, the shared terms among
    # S's first p_S = |S| − α + 1 + e terms and those among L's first p_L = |L| − α + 1 + e
    # are each a run of the shared terms from the rarest, of at least e + 1 terms, so the
    # two prefixes share at least e + 1 terms (the prefix-filtering lemma with a count
    # margin e; Bayardo et al. 2007, Xiao et al. 2008). p_L is taken for the worst |S| L
    # can meet (any length from `shortest` to |L|), so one probe prefix serves them all;
    # the join's rows are the (term, S, L) with the term in both prefixes.
    p_s = F.least(length, may_miss(length) + 1 + extra(length))
    worst = F.aggregate(
        F.sequence(F.col("shortest"), length),
        F.lit(-(1 << 62)).cast("long"),
        lambda acc, n: F.greatest(acc, may_miss(n) + extra(n) - n),
    )
    p_l = F.least(length, length + 1 + worst)
    per = per.withColumn("shortest", shortest).withColumn("p_s", p_s.cast("int"))
    per = per.withColumn("p_l", p_l.cast("int"))
    x = per.select(
        F.col("idx").alias("a"), F.col("len").alias("la"), F.col("site").alias("sa"),
        F.explode(F.slice("tokens", 1, F.col("p_s"))).alias("tok"),
    )
    y = per.where(F.col("p_l") > 0).select(
        F.col("idx").alias("b"), F.col("len").alias("lb"), F.col("site").alias("sb"),
        "shortest", F.explode(F.slice("tokens", 1, F.col("p_l"))).alias("tok"),
    )
    earlier = (F.col("la") < F.col("lb")) | ((F.col("la") == F.col("lb")) & (F.col("a") < F.col("b")))
    # The join's input is small (the prefixes) and its output large (a row per shared
    # prefix term: 97 M at 20,000 pages), so adaptive execution would coalesce it into a
    # few tasks, fewer than the cores; a fixed partitioning keeps every core busy.
    parts = int(spark.conf.get("spark.sql.shuffle.partitions"))
    x = x.where(F.col("la") > 0).repartition(parts, "tok")
    y = y.repartition(parts, "tok")
    hits = (
        x.join(y, "tok")
        .where(earlier & (F.col("la") >= F.col("shortest")))
        .groupBy("a", "b", "la", "lb", (F.col("sa") != F.col("sb")).alias("cross"))
        .agg(F.count("*").alias("hits"))
    )
    la, lb = F.col("la").cast("long"), F.col("lb").cast("long")
    # Same-site pairs (or no containment) need the paper's size rule; every pair needs
    # e + 1 hits.
    paper_size = lb * 100 <= la * (100 + size_pct)
    keep = (F.col("cross") | paper_size) if contained else paper_size
    keep = keep & (F.col("hits") >= extra(la) + 1)
    cand = verified(hits.where(keep).select("a", "b", "cross"), per).withColumnRenamed("m", "common")
    small = F.least("la", "lb").cast("long")
    large = F.greatest("la", "lb").cast("long")
    differing = (F.col("la") + F.col("lb") - F.lit(2) * F.col("common")).cast("long")
    # The shorter list's terms absent from the longer (on equal sizes both directions agree).
    missing = (small - F.col("common")).cast("long")
    delta = (large * 100 <= small * (100 + size_pct)) & (differing * 100 < small * delta_pct)
    contained_ok = (
        (F.lit(contained_pct) > 0)
        & F.col("cross")
        & (small >= F.lit(contained_min_terms))
        & (large * 100 <= small * (100 + contained_size_pct))
        & (missing * 100 < small * contained_pct)
    )
    passing = (
        cand.withColumn("differing", differing)
        .withColumn("smaller", small)
        .withColumn("missing", missing)
        .withColumn("delta", delta)
        .where(F.col("delta") | contained_ok)
    )
    if min_terms > 0:
        # The equal-text rule (`--cooper-min-terms`, `sig::cooper::keep_short_pairs`): a pair
        # whose smaller list has fewer than `min_terms` terms stands only when the two texts'
        # keys are equal (a null key equals nothing). The keys (16 bytes a document) are
        # broadcast as the token lists are when small. A file signed before the key existed
        # has no key column: no keys, as detect reads it.
        if "cooper_text_key" in docs.columns:
            keys = docs.select("idx", F.col("cooper_text_key").alias("k"))
        else:
            keys = docs.select("idx", F.lit(None).cast("long").alias("k"))
        ka = keys.select(F.col("idx").alias("a"), F.col("k").alias("ka"))
        kb = keys.select(F.col("idx").alias("b"), F.col("k").alias("kb"))
        if n * 16 <= BROADCAST_LISTS_BYTES:
            ka, kb = F.broadcast(ka), F.broadcast(kb)
        equal = F.col("ka").isNotNull() & (F.col("ka") == F.col("kb"))
        passing = (
            passing.join(ka, "a", "left")
            .join(kb, "b", "left")
            .where((F.col("smaller") >= F.lit(min_terms)) | equal)
            .drop("ka", "kb")
        )
    pairs = (
        passing.select(
            F.least("a", "b").alias("a"),
            F.greatest("a", "b").alias("b"),
            F.when(
                F.col("delta"),
                F.lit(1.0) - F.col("differing").cast("double") / F.col("smaller").cast("double"),
            )
            .otherwise(F.lit(1.0) - F.col("missing").cast("double") / F.col("smaller").cast("double"))
            .alias("score"),
            F.when(F.col("delta"), F.format_string("%d of %d terms differ", "differing", "smaller"))
            .otherwise(
                F.format_string(
                    "%d of %d terms of the shorter missing from the longer (%d more there)",
                    "missing",
                    "smaller",
                    F.col("differing") - F.col("missing"),
                )
            )
            .alias("detail"),
        )
    )
    return pairs, None, n


METHODS = {"spotsigs": spotsigs, "imatch": imatch, "cooper": cooper}


def signed_run(files):
    """The method and parameters the sign stage recorded in `files` (all must agree): the
    job reads them there and never assumes a default, so it follows `detect`'s."""
    metas = [file_meta(p) for p in files]
    for p, m in zip(files, metas):
        if m.get("spotcheck.stage") != "signed":
            sys.exit(f"{p}: not a spotcheck sign stage file")
    methods = {m["spotcheck.method"] for m in metas}
    params = {m["spotcheck.params"] for m in metas}
    if len(methods) != 1 or len(params) != 1:
        sys.exit(f"{', '.join(files)}: the signed files come from different methods or parameters")
    return methods.pop(), params.pop()


def shuffle_totals(spark):
    """(stages, shuffle bytes written, shuffle bytes read) of the application so far, from
    the Spark UI's REST API (None when the UI is off)."""
    url = spark.sparkContext.uiWebUrl
    if not url:
        return None
    try:
        app = spark.sparkContext.applicationId
        with urllib.request.urlopen(f"{url}/api/v1/applications/{app}/stages?status=complete") as r:
            stages = json.load(r)
    except (OSError, ValueError):
        return None
    return (
        len(stages),
        sum(s.get("shuffleWriteBytes", 0) for s in stages),
        sum(s.get("shuffleReadBytes", 0) for s in stages),
    )


def match_one(spark, method, params_json, files, out_dir):
    """Runs one method over its signed files and writes the run directory."""
    settings = json.loads(params_json)
    # What a method needs of the sign stage besides its rows (the same in every shard).
    extra = file_meta(files[0]).get("spotcheck.imatch_weights")
    if extra is not None:
        settings["_imatch_weights"] = json.loads(extra)
    before = shuffle_totals(spark)
    started = time.time()
    docs = load(spark, [os.path.abspath(p) for p in files]).cache()
    pairs, clusters, n = METHODS[method](spark, docs, settings)
    urls_a = docs.select(F.col("idx").alias("a"), F.col("url").alias("url_a"))
    urls_b = docs.select(F.col("idx").alias("b"), F.col("url").alias("url_b"))
    out = pairs.join(urls_a, "a").join(urls_b, "b").select(
        F.col("url_a").alias("a"), F.col("url_b").alias("b"), "score", "detail"
    )
    out.write.mode("overwrite").parquet(out_dir)

    # The driver's file: the run's metadata, and the clusters when the method has its own.
    rows = {"a": [], "b": [], "score": [], "detail": [], "cluster": [], "min_score": [], "max_score": []}
    if clusters:
        url = {r["idx"]: r["url"] for r in docs.select("idx", "url").toLocalIterator()}
        for k, (members, lo, hi, k1) in enumerate(clusters):
            for m in members:
                rows["a"].append(url[m])
                rows["b"].append(None)
                rows["score"].append(None)
                rows["detail"].append(None)
                rows["cluster"].append(k)
                rows["min_score"].append(None if lo is None else lo / k1)
                rows["max_score"].append(None if hi is None else hi / k1)
    seconds = time.time() - started
    after = shuffle_totals(spark)
    meta = {
        "spotcheck.stage": "run",
        "spotcheck.method": method,
        "spotcheck.params": params_json,
        "spotcheck.documents": str(n),
        "spotcheck.seconds": str(seconds),
    }
    schema = pa.schema(
        [
            ("a", pa.string()),
            ("b", pa.string()),
            ("score", pa.float64()),
            ("detail", pa.string()),
            ("cluster", pa.int64()),
            ("min_score", pa.float64()),
            ("max_score", pa.float64()),
        ],
        metadata=meta,
    )
    pq.write_table(pa.table(rows, schema=schema), os.path.join(out_dir, "_run.parquet"))
    # (pyarrow skips files starting with "_": the part files alone, the pairs.)
    n_pairs = pq.read_table(out_dir, columns=["a"]).num_rows
    shuffled = ""
    if before and after:
        shuffled = (
            f"; {after[0] - before[0]} Spark stages, shuffle written {after[1] - before[1]} B, "
            f"read {after[2] - before[2]} B"
        )
    print(
        f"match {method} on Spark: {n} documents, {n_pairs} pairs, "
        f"{len(clusters) if clusters else 'component'} clusters; {seconds:.1f}s{shuffled}",
        file=sys.stderr,
    )
    docs.unpersist()
    spark.catalog.clearCache()


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="Several runs in one Spark application (one JVM start): --run DIR=F1,F2,... "
        "repeated, instead of --out DIR F1 F2 ...",
    )
    ap.add_argument("signed", nargs="*", help="the sign stage's Parquet files")
    ap.add_argument("--out", help="the run directory stage import reads")
    ap.add_argument(
        "--run",
        action="append",
        default=[],
        metavar="DIR=F1,F2,...",
        help="one more run: its directory and its signed files (repeatable)",
    )
    ap.add_argument("--master", default=None, help="e.g. local[4] (default: spark-submit's)")
    args = ap.parse_args()
    runs = []
    if args.signed or args.out:
        if not (args.signed and args.out):
            ap.error("--out DIR and the signed files go together")
        runs.append((args.out, args.signed))
    for r in args.run:
        out_dir, eq, files = r.partition("=")
        if not eq or not files:
            ap.error(f"--run {r}: expected DIR=F1,F2,...")
        runs.append((out_dir, files.split(",")))
    if not runs:
        ap.error("nothing to match: give --out DIR SIGNED... or --run DIR=F1,F2,...")
    jobs = [(out_dir, files) + signed_run(files) for out_dir, files in runs]

    b = SparkSession.builder.appName("spotcheck match " + " ".join(j[2] for j in jobs))
    if args.master:
        b = b.master(args.master)
    # Shuffle partitions: a few per core on one machine (adaptive execution coalesces the
    # small ones); set SHUFFLE_PARTITIONS on a cluster (e.g. 2-3 per executor core).
    spark = (
        b.config("spark.sql.shuffle.partitions", os.environ.get("SHUFFLE_PARTITIONS", "8"))
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", "4g"))
    )
    # More settings as KEY=VALUE words (e.g. the CI check's JIT options for a short job).
    for kv in os.environ.get("SPARK_CONF", "").split():
        k, _, v = kv.partition("=")
        spark = spark.config(k, v)
    spark = spark.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    for out_dir, files, method, params_json in jobs:
        match_one(spark, method, params_json, files, out_dir)
    spark.stop()


if __name__ == "__main__":
    main()
