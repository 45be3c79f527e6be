#!/usr/bin/env python3
"""The match stage of staged detection on Spark (README, "More than one machine").

Reads the sign stage's Parquet files (`spotcheck stage sign`, one per shard) and writes a
run that `spotcheck stage import --run OUT` reads: a directory of Parquet part files, one
row per pair (`a`, `b`, `score`, `detail`), plus `_run.parquet` written by the driver
holding the run's metadata (method, parameters, documents) and, for I-Match, the clusters.

The same rules as `spotcheck stage match` (the method's own `find_pairs`), as joins and
group-bys, so the pairs and clusters are exactly those of `spotcheck detect`:

- SpotSigs: signature document frequencies (a group-by) and the idf window (decided on the
  driver per distinct df value, with Python's libm `log` as Rust's), the site rule (per
  site and signature: a group-by), then the exact join: documents sharing a kept
  signature, their multiset overlap Σmin, Jaccard m/(|A|+|B|−m) ≥ τ or the containment
  rule; exact duplicates and equal content texts pair at 1 (a group over 200 members as a
  star from its first member).
- I-Match: a group-by on (coordinate, signature); pairs of buckets of at most
  `max_pair_bucket` documents, scored by agreeing coordinates / (K+1); clusters are the
  union-find of every bucket (on the driver).
- Cooper: documents sharing a salient term, the size and delta tests on the counts.

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


def spotsigs(spark, docs, s):
    n = docs.count()
    idf_min = s["idf_min"]
    idf_max = s["idf_max"]
    if idf_max is None:
        idf_max = normalized_idf(max(n, 2), 2) + 1e-12
    occ = docs.select("idx", "site", F.explode("spotsigs").alias("sig"))
    df = occ.select("idx", "sig").distinct().groupBy("sig").agg(F.count("*").alias("df"))
    # The idf window, decided per distinct df value in Python (the same libm log as Rust).
    dfs = [r["df"] for r in df.select("df").distinct().collect()]
    allowed = [f for f in dfs if idf_min <= normalized_idf(n, f) <= idf_max]
    keep = df.where(F.col("df").isin(allowed)).select("sig")
    kept = occ.join(keep, "sig")
    rule = s.get("site_boilerplate")
    if rule is not None:
        min_site_docs, fraction = rule
        cap = s.get("site_boilerplate_pages")
        site_docs = docs.groupBy("site").agg(F.count("*").alias("docs"))
        site_df = occ.select("site", "idx", "sig").distinct().groupBy("site", "sig").agg(
            F.count("*").alias("f")
        )
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
    vec = kept.groupBy("idx", "sig").agg(F.count("*").alias("c"))
    lens = vec.groupBy("idx").agg(F.sum("c").alias("len"))
    matchable = lens.where(F.col("len") >= max(s["min_sigs"], 1))
    vec = vec.join(matchable.select("idx"), "idx")
    cand = (
        vec.alias("x")
        .join(vec.alias("y"), "sig")
        .where(F.col("x.idx") < F.col("y.idx"))
        .groupBy(F.col("x.idx").alias("a"), F.col("y.idx").alias("b"))
        .agg(F.sum(F.least(F.col("x.c"), F.col("y.c"))).alias("m"))
    )
    la = matchable.select(F.col("idx").alias("a"), F.col("len").alias("la"))
    lb = matchable.select(F.col("idx").alias("b"), F.col("len").alias("lb"))
    cand = cand.join(la, "a").join(lb, "b")
    union = F.col("la") + F.col("lb") - F.col("m")
    sim = F.when(union == 0, F.lit(0.0)).otherwise(F.col("m").cast("double") / union.cast("double"))
    cand = cand.withColumn("score", sim)
    tau = s["tau"]
    containment = s.get("containment")
    if containment is not None:
        floor = max(s["containment_floor"], sys.float_info.min)
        match_tau = min(tau, floor)
        contained = F.col("m").cast("double") / F.least("la", "lb").cast("double")
        cond = (F.col("score") >= match_tau) & (
            (F.col("score") >= tau) | (contained >= containment)
        )
    else:
        cond = F.col("score") >= tau
    matched = cand.where(cond).select("a", "b", "score").withColumn("prio", F.lit(0))
    exact = exact_group_pairs(docs, "dup_group").unionByName(exact_group_pairs(docs, "same_content"))
    exact = exact.withColumn("prio", F.lit(1))
    # A pair both matched and exact keeps the matcher's score (detect's dedup keeps the first).
    w = Window.partitionBy("a", "b").orderBy("prio")
    pairs = (
        matched.unionByName(exact)
        .withColumn("k", F.row_number().over(w))
        .where(F.col("k") == 1)
        .select("a", "b", "score", F.lit(None).cast("string").alias("detail"))
    )
    return pairs, None, n


def imatch(spark, docs, s):
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
    kept = pairs.where(F.col("agreeing") >= s["min_agree"]).select(
        "a",
        "b",
        (F.col("agreeing").cast("double") / F.lit(float(k1))).alias("score"),
        F.concat(F.col("agreeing").cast("string"), F.lit(f" of {k1} lexicons agree")).alias("detail"),
    )
    clusters = None
    if s["min_agree"] <= 1:
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


def cooper(spark, docs, s):
    """Cooper: the paper's test (sizes within `size_pct`, fewer than `delta_pct` of the
    shorter list's size differing) for every pair, and the containment rule (fewer than
    `contained_pct` of the shorter list missing from a list at most `contained_size_pct`
    larger) for pairs of different sites only, as `sig::cooper::detect_across_sites`."""
    n = docs.count()
    terms = docs.select(
        "idx",
        F.col("cooper_site").alias("site"),
        F.size("cooper_terms").alias("len"),
        F.explode("cooper_terms").alias("t"),
    )
    cand = (
        terms.alias("x")
        .join(terms.alias("y"), "t")
        .where(F.col("x.idx") < F.col("y.idx"))
        .groupBy(
            F.col("x.idx").alias("a"),
            F.col("y.idx").alias("b"),
            F.col("x.len").alias("la"),
            F.col("y.len").alias("lb"),
            F.col("x.site").alias("sa"),
            F.col("y.site").alias("sb"),
        )
        .agg(F.count("*").alias("common"))
    )
    small = F.least("la", "lb").cast("long")
    large = F.greatest("la", "lb").cast("long")
    differing = (F.col("la") + F.col("lb") - F.lit(2) * F.col("common")).cast("long")
    # The shorter list's terms absent from the longer (on equal sizes both directions agree).
    missing = (small - F.col("common")).cast("long")
    contained_pct = int(s.get("contained_pct", 0) or 0)
    contained_size_pct = int(s.get("contained_size_pct", 0) or 0)
    delta = (large * 100 <= small * (100 + s["size_pct"])) & (differing * 100 < small * s["delta_pct"])
    contained = (
        (F.lit(contained_pct) > 0)
        & (F.col("sa") != F.col("sb"))
        & (large * 100 <= small * (100 + contained_size_pct))
        & (missing * 100 < small * contained_pct)
    )
    pairs = (
        cand.withColumn("differing", differing)
        .withColumn("smaller", small)
        .withColumn("missing", missing)
        .withColumn("delta", delta)
        .where(F.col("delta") | contained)
        .select(
            "a",
            "b",
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("signed", nargs="+", help="the sign stage's Parquet files")
    ap.add_argument("--out", required=True, help="the run directory stage import reads")
    ap.add_argument("--master", default=None, help="e.g. local[4] (default: spark-submit's)")
    args = ap.parse_args()
    metas = [file_meta(p) for p in args.signed]
    for p, m in zip(args.signed, metas):
        if m.get("spotcheck.stage") != "signed":
            sys.exit(f"{p}: not a spotcheck sign stage file")
    methods = {m["spotcheck.method"] for m in metas}
    params = {m["spotcheck.params"] for m in metas}
    if len(methods) != 1 or len(params) != 1:
        sys.exit("the signed files come from different methods or parameters")
    method = methods.pop()
    params_json = params.pop()
    settings = json.loads(params_json)

    b = SparkSession.builder.appName(f"spotcheck match {method}")
    if args.master:
        b = b.master(args.master)
    # Shuffle partitions: a few per core on one machine; set SHUFFLE_PARTITIONS on a cluster
    # (e.g. 2-3 per executor core).
    spark = (
        b.config("spark.sql.shuffle.partitions", os.environ.get("SHUFFLE_PARTITIONS", "8"))
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    import time

    started = time.time()
    docs = load(spark, [os.path.abspath(p) for p in args.signed]).cache()
    pairs, clusters, n = METHODS[method](spark, docs, settings)
    urls_a = docs.select(F.col("idx").alias("a"), F.col("url").alias("url_a"))
    urls_b = docs.select(F.col("idx").alias("b"), F.col("url").alias("url_b"))
    out = pairs.join(urls_a, "a").join(urls_b, "b").select(
        F.col("url_a").alias("a"), F.col("url_b").alias("b"), "score", "detail"
    )
    out.write.mode("overwrite").parquet(args.out)

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
        metadata={
            "spotcheck.stage": "run",
            "spotcheck.method": method,
            "spotcheck.params": params_json,
            "spotcheck.documents": str(n),
            "spotcheck.seconds": str(time.time() - started),
        },
    )
    pq.write_table(pa.table(rows, schema=schema), os.path.join(args.out, "_run.parquet"))
    print(
        f"match {method} on Spark: {n} documents, {spark.read.parquet(args.out).count()} pairs, "
        f"{len(clusters) if clusters else 'component'} clusters; {time.time() - started:.1f}s",
        file=sys.stderr,
    )
    spark.stop()


if __name__ == "__main__":
    main()
