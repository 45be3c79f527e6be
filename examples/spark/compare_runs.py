#!/usr/bin/env python3
"""Compares a single-process `stage match` run file with the Spark job's run directory:
the pairs with their scores to 9 decimals and, for a method with clusters of its own
(I-Match), the clusters as member sets. Prints EQUAL or DIFFERENT; exit 0 or 1.

  compare_runs.py METHOD ONE.run.parquet SPARK_RUN_DIR
"""
import os
import sys

import pyarrow.parquet as pq


def rows(tables):
    pairs, clusters = set(), {}
    for t in tables:
        d = t.to_pydict()
        cl = d.get("cluster", [None] * t.num_rows)
        for a, b, s, c in zip(d["a"], d["b"], d["score"], cl):
            if c is None:
                pairs.add((min(a, b), max(a, b), f"{s:.9f}"))
            else:
                clusters.setdefault(c, []).append(a)
    return pairs, {tuple(sorted(m)) for m in clusters.values()}


def main():
    method, one, spark = sys.argv[1:4]
    op, oc = rows([pq.read_table(one)])
    files = sorted(f for f in os.listdir(spark) if f.endswith(".parquet") and not f.startswith("."))
    sp, sc = rows([pq.read_table(os.path.join(spark, f)) for f in files])
    same = op == sp and (method != "imatch" or oc == sc)
    extra = f"; clusters {len(oc)} / {len(sc)}" if method == "imatch" else ""
    print(
        f"{method}: stage match {len(op)} pairs, Spark {len(sp)} pairs; only stage match "
        f"{len(op - sp)}, only Spark {len(sp - op)}{extra}; {'EQUAL' if same else 'DIFFERENT'}"
    )
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
