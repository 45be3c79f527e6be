#!/bin/bash
# Issue 19's 20,000-page / 8-shard run (BENCHMARKS.md, "Issue 19 (session 3)"): debian-docs
# pages of the dd50k cache (linux-doc 5.10/6.1/6.12 and postgresql-doc 13/15: 21,284
# pages) dealt round-robin into 8 shards; the stages per shard with their times and
# Parquet bytes; single-process `stage match` and the Spark job (local[1], local[2],
# local[4]) against `detect` on one database of every page.
#
#   examples/spark/bench_20k.sh SPOTCHECK-BINARY WORKDIR [METHODS]
#
# ROUNDS=2: every match setting (one process, then each Spark master) that many times in
# turn, each under `nice -n -19` with the load before and after. Every Spark run is
# compared with the single-process `stage match` run before it (compare_runs.py: pairs
# with scores to 9 decimals; I-Match's clusters), and the last of each (one process and
# Spark) with `detect` on one database of every page (pairs and clusters). SKIP_DETECT=1:
# no database of every page and no `detect` (session 3 showed `stage match` equal to it).
set -euo pipefail
BIN=$(realpath "$1")
WORK=$2
METHODS=${3:-spotsigs imatch cooper}
MASTERS=${MASTERS:-local[1] local[2] local[4]}
ROUNDS=${ROUNDS:-1}
SKIP_DETECT=${SKIP_DETECT:-}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${DD50K:-$HOME/.cache/spotcheck/dd50k}/html
VENV=${SPARK_VENV:-$HOME/.cache/spotcheck/spark-venv}
PACKAGES=${PACKAGES:-linux-doc-5.10 linux-doc-6.1 linux-doc-6.12 postgresql-doc-13 postgresql-doc-15}
PARAMS='{"text":"Visible"}'
mkdir -p "$WORK"
t() { local s; s=$(date +%s.%N); "$@"; echo "$(echo "$(date +%s.%N) - $s" | bc)"; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
if [ ! -d "$WORK/shard7" ]; then
  (cd "$SRC" && for p in $PACKAGES; do find "$p" -type f; done) | sort | awk '{print NR % 8 "\t" $0}' |
    while IFS=$'\t' read -r k f; do
      mkdir -p "$WORK/shard$k/$(dirname "$f")"
      ln "$SRC/$f" "$WORK/shard$k/$f"
    done
fi
echo "pages: $(find "$WORK"/shard* -type f | wc -l); load: $(uptime)"
s=$(now)
for k in 0 1 2 3 4 5 6 7; do
  [ -f "$WORK/shard$k.db" ] || "$BIN" ingest --quiet --no-main --db "$WORK/shard$k.db" "$WORK/shard$k" >/dev/null
done
echo "ingest 8 shards: $(since "$s") s"
s=$(now)
if [ -z "$SKIP_DETECT" ] && [ ! -f "$WORK/whole.db" ]; then
  for k in 0 1 2 3 4 5 6 7; do
    "$BIN" ingest --quiet --no-main --db "$WORK/whole.db" "$WORK/shard$k" >/dev/null
  done
fi
echo "ingest whole: $(since "$s") s"
for method in $METHODS; do
  # Cooper's passage rule (--cooper-passage) reads the texts, which the stages do not carry:
  # they refuse it, so both sides run without it.
  extra=(); PARAMS='{"text":"Visible"}'
  if [[ $method == cooper ]]; then extra=(--cooper-passage 0); PARAMS='{"text":"Visible","passage_min_terms":0}'; fi
  # SpotSigs' fallback for unsigned pages (--fallback-tau, issue 14 session 14) reads the
  # texts too: both sides run without it.
  if [[ $method == spotsigs ]]; then extra=(--fallback-tau 0); PARAMS='{"text":"Visible","fallback_tau":0}'; fi
  if [ -z "$SKIP_DETECT" ] && [ ! -s "$WORK/$method.detect.clusters" ]; then
    s=$(now)
    "$BIN" detect --db "$WORK/whole.db" --method "$method" --text visible "${extra[@]}" 2>&1 | tail -1
    echo "$method detect: $(since "$s") s"
    "$BIN" pairs --db "$WORK/whole.db" --method "$method" > "$WORK/$method.detect.pairs"
    "$BIN" clusters --db "$WORK/whole.db" --method "$method" > "$WORK/$method.detect.clusters"
  fi
  s=$(now)
  for k in 0 1 2 3 4 5 6 7; do
    "$BIN" stage count --db "$WORK/shard$k.db" --method "$method" --params "$PARAMS" \
      --out "$WORK/$k.$method.counts.parquet" 2>/dev/null
  done
  echo "$method count x8: $(since "$s") s; $(cat "$WORK"/*."$method".counts.parquet | wc -c) bytes"
  s=$(now)
  "$BIN" stage stats --out "$WORK/$method.stats.parquet" "$WORK"/*."$method".counts.parquet 2>/dev/null
  echo "$method stats: $(since "$s") s; $(wc -c < "$WORK/$method.stats.parquet") bytes"
  s=$(now)
  signed=()
  for k in 0 1 2 3 4 5 6 7; do
    "$BIN" stage sign --db "$WORK/shard$k.db" --method "$method" --params "$PARAMS" \
      --stats "$WORK/$method.stats.parquet" --out "$WORK/$k.$method.signed.parquet" 2>/dev/null
    signed+=("$WORK/$k.$method.signed.parquet")
  done
  echo "$method sign x8: $(since "$s") s; $(cat "${signed[@]}" | wc -c) bytes"
  for ((round = 1; round <= ROUNDS; round++)); do
    l0=$(cut -d' ' -f1-3 /proc/loadavg)
    s=$(now)
    nice -n -19 "$BIN" stage match --method "$method" --params "$PARAMS" --stats "$WORK/$method.stats.parquet" \
      --out "$WORK/$method.run.parquet" "${signed[@]}"
    echo "$method match (one process) round $round: $(since "$s") s; $(wc -c < "$WORK/$method.run.parquet") bytes; load $l0 -> $(cut -d' ' -f1-3 /proc/loadavg)"
    for master in $MASTERS; do
      l0=$(cut -d' ' -f1-3 /proc/loadavg)
      s=$(now)
      # The job's whole stderr is kept (a failure's cause is in it); its summary line shown.
      log="$WORK/$method.spark.$round.${master//[^a-z0-9]/}.stderr"
      rc=0
      rm -rf "$WORK/$method.spark.run"
      PYSPARK_PYTHON="$VENV/bin/python" nice -n -19 "$VENV/bin/python" "$HERE/match.py" --master "$master" \
        --out "$WORK/$method.spark.run" "${signed[@]}" 2>"$log" || rc=$?
      grep -E "^match" "$log" || echo "$method: the Spark job failed (exit $rc); its stderr: $log"
      echo "$method match (Spark $master) round $round: $(since "$s") s; load $l0 -> $(cut -d' ' -f1-3 /proc/loadavg)"
      # Every Spark run's result checked (not only the last): against this round's
      # single-process run, which is checked against `detect` below.
      [ "$rc" = 0 ] && { "$VENV/bin/python" "$HERE/compare_runs.py" "$method" "$WORK/$method.run.parquet" "$WORK/$method.spark.run" || true; }
    done
  done
  [ -n "$SKIP_DETECT" ] && continue
  for run in "$WORK/$method.run.parquet" "$WORK/$method.spark.run"; do
    [ -e "$run" ] || continue
    cp "$WORK/whole.db" "$WORK/check.db"
    "$BIN" stage import --db "$WORK/check.db" --run "$run"
    "$BIN" pairs --db "$WORK/check.db" --method "$method" > "$WORK/$method.staged.pairs"
    "$BIN" clusters --db "$WORK/check.db" --method "$method" > "$WORK/$method.staged.clusters"
    rm -f "$WORK/check.db"
    "$VENV/bin/python" - "$WORK/$method" "$method" "$(basename "$run")" <<'EOF'
import json, sys
base, method, run = sys.argv[1:4]
def pairs(p):
    out = set()
    for line in open(p):
        r = json.loads(line)
        a, b = sorted([r["a"], r["b"]])
        out.add((a, b, f'{r["score"]:.9f}'))
    return out
def clusters(p):
    return {tuple(sorted(json.loads(l)["urls"])) for l in open(p)}
dp, sp = pairs(base + ".detect.pairs"), pairs(base + ".staged.pairs")
dc, sc = clusters(base + ".detect.clusters"), clusters(base + ".staged.clusters")
print(f"{method} {run}: detect {len(dp)} pairs {len(dc)} clusters; staged {len(sp)} pairs "
      f"{len(sc)} clusters; {'EQUAL' if dp == sp and dc == sc else 'DIFFERENT'}")
EOF
  done
done
