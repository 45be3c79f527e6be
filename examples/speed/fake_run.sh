#!/usr/bin/env bash
# Issue 16's stress for the review queue's build: adds to DB (an ingested, detected database;
# use a copy) a finished Cooper-like run with about PAIRS pairs among its documents, a
# deterministic share of all pairs (so a few thousand documents make one giant component),
# scores in [0.5, 1), and one cluster of every document. It becomes Cooper's latest run, so
# the next `spotcheck queue --db DB` rebuilds the merged queue from it and the stored
# SpotSigs and I-Match runs.
#
#   examples/speed/fake_run.sh DB PAIRS
set -euo pipefail
[[ $# -eq 2 ]] || { sed -n '2,9p' "$0" >&2; exit 2; }
db=$1; want=$2
n=$(sqlite3 "$db" "SELECT count(*) FROM documents")
total=$(( n * (n - 1) / 2 ))
# Keep a pair when a hash of it falls under this many in 100,000.
keep=$(( want >= total ? 100000 : want * 100000 / total ))
sqlite3 "$db" <<SQL
PRAGMA cache_size = -262144;
BEGIN;
INSERT INTO runs(method, params, started_at, finished_at, summary)
  VALUES ('cooper', '{"fake_pairs":$want}', strftime('%s','now'), strftime('%s','now'), '{}');
DROP INDEX IF EXISTS run_pairs_b;
INSERT INTO run_pairs(run_id, a, b, score, detail)
  SELECT (SELECT max(id) FROM runs), d1.id, d2.id,
         0.5 + ((d1.id * 31 + d2.id * 17) % 500) / 1000.0, NULL
  FROM documents d1 JOIN documents d2 ON d2.id > d1.id
  WHERE (d1.id * 7919 + d2.id * 104729) % 100000 < $keep
  ORDER BY d1.id, d2.id;
CREATE INDEX run_pairs_b ON run_pairs(run_id, b);
INSERT INTO run_clusters(run_id, cluster, size, min_score, max_score)
  SELECT (SELECT max(id) FROM runs), 1, count(*), 0.5, 0.999 FROM documents;
INSERT INTO run_cluster_members(run_id, cluster, doc_id)
  SELECT (SELECT max(id) FROM runs), 1, id FROM documents;
COMMIT;
SELECT 'run ' || max(id) || ': ' || (SELECT count(*) FROM run_pairs WHERE run_id = (SELECT max(id) FROM runs)) || ' pairs among $n documents' FROM runs;
SQL
