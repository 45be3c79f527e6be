#!/usr/bin/env python3
"""Reads spotcheck's exports back the way their users would, with no options, and checks the
columns' types (tests/ingest/formats.rs runs it; exits non-zero with the reason on failure).

    check_export.py DOCS.parquet DOCS.csv PAIRS.parquet CLUSTERS.csv
"""
import sys

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

docs_pq, docs_csv, pairs_pq, clusters_csv = sys.argv[1:5]

t = pq.read_table(docs_pq)
s = t.schema
assert s.field("id").type == pa.int64(), s
assert s.field("url").type == pa.string(), s
assert s.field("date").type == pa.timestamp("ms", tz="UTC"), s
assert s.field("cluster").type == pa.int64(), s
assert s.field("labels").type == pa.list_(pa.string()), s
assert "language" in s.names and "site" in s.names and "title" in s.names, s
assert t.column("date").null_count < t.num_rows, "no capture dates"

p = pl.read_parquet(docs_pq)
assert p.schema["date"] == pl.Datetime("ms", "UTC"), p.schema
assert p.schema["cluster"] == pl.Int64, p.schema
assert p.schema["labels"] == pl.List(pl.String), p.schema
assert p.height == t.num_rows

c = pd.read_csv(docs_csv)
assert list(c.columns) == s.names, (list(c.columns), s.names)
assert len(c) == t.num_rows, (len(c), t.num_rows)
assert list(c["url"]) == t.column("url").to_pylist(), "csv and parquet urls differ"
assert list(c["id"]) == t.column("id").to_pylist()
iso = [d.strftime("%Y-%m-%dT%H:%M:%SZ") if d is not None else None for d in t.column("date").to_pylist()]
assert [None if isinstance(x, float) else x for x in c["date"]] == iso, "csv and parquet dates differ"
assert list(c["title"].fillna("")) == t.column("title").to_pylist()

pairs = pq.read_table(pairs_pq)
ps = pairs.schema
assert ps.field("id_a").type == pa.int64() and ps.field("url_a").type == pa.string(), ps
scores = [n for n in ps.names if n.startswith("score_")]
assert scores and all(ps.field(n).type == pa.float64() for n in scores), ps
assert ps.field("label").type == pa.string() and ps.field("labels").type == pa.list_(pa.string()), ps
assert pl.read_parquet(pairs_pq).height == pairs.num_rows

cl = pd.read_csv(clusters_csv)
assert list(cl.columns) == ["method", "run_id", "cluster", "size", "urls", "labels"], list(cl.columns)

print(f"docs {t.num_rows} pairs {pairs.num_rows} methods {','.join(s[6:] for s in scores)} clusters {len(cl)}")
