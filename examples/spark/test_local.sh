#!/bin/bash
# The Spark match stage on local-mode Spark gives exactly the pairs (with their scores) and
# the clusters of a single-process `spotcheck detect`, for SpotSigs, I-Match with bags and
# Cooper, on sqlite3-doc of the debian-docs corpus (3 releases = 3 shards, 1,200 pages).
#
#   examples/spark/test_local.sh [SPOTCHECK-BINARY] [MASTER]
#
# Installs pyspark and pyarrow from PyPI into ~/.cache/spotcheck/spark-venv on first use
# (Java 17 from the system's packages: `apt-get install openjdk-17-jre-headless`). The
# corpus is ~/.cache/spotcheck/ci-dd (or $SPOTCHECK_DD_CORPUS). Exit 0: equal; 1: not.
set -euo pipefail
BIN=$(realpath "${1:-target/release/spotcheck}")
MASTER=${2:-local[2]}
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS=${SPOTCHECK_DD_CORPUS:-$HOME/.cache/spotcheck/ci-dd}
VENV=${SPARK_VENV:-$HOME/.cache/spotcheck/spark-venv}
if ! command -v java >/dev/null; then
  echo "test_local: no java on PATH (apt-get install openjdk-17-jre-headless)" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import pyspark, pyarrow' 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet pyspark pyarrow
fi
[ -d "$CORPUS/html/sqlite3-doc" ] || { echo "test_local: no corpus at $CORPUS" >&2; exit 1; }
WORK=$(mktemp -d /tmp/spotcheck-spark-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
k=0
for release in "$CORPUS"/html/sqlite3-doc/*/; do
  mkdir -p "$WORK/shard$k/sqlite3-doc"
  cp -rl "$release" "$WORK/shard$k/sqlite3-doc/" 2>/dev/null || cp -r "$release" "$WORK/shard$k/sqlite3-doc/"
  "$BIN" ingest --quiet --no-main --db "$WORK/shard$k.db" "$WORK/shard$k"
  "$BIN" ingest --quiet --no-main --db "$WORK/whole.db" "$WORK/shard$k"
  k=$((k + 1))
done
PARAMS='{"text":"Visible"}'
status=0
for method in spotsigs imatch cooper; do
  "$BIN" detect --db "$WORK/whole.db" --method "$method" --text visible >/dev/null 2>&1
  "$BIN" pairs --db "$WORK/whole.db" --method "$method" > "$WORK/$method.detect.pairs"
  "$BIN" clusters --db "$WORK/whole.db" --method "$method" > "$WORK/$method.detect.clusters"
  signed=()
  for ((i = 0; i < k; i++)); do
    "$BIN" stage count --db "$WORK/shard$i.db" --method "$method" --params "$PARAMS" \
      --out "$WORK/$i.$method.counts.parquet" 2>/dev/null
  done
  "$BIN" stage stats --out "$WORK/$method.stats.parquet" "$WORK"/*."$method".counts.parquet 2>/dev/null
  for ((i = 0; i < k; i++)); do
    "$BIN" stage sign --db "$WORK/shard$i.db" --method "$method" --params "$PARAMS" \
      --stats "$WORK/$method.stats.parquet" --out "$WORK/$i.$method.signed.parquet" 2>/dev/null
    signed+=("$WORK/$i.$method.signed.parquet")
  done
  start=$(date +%s.%N)
  PYSPARK_PYTHON="$VENV/bin/python" "$VENV/bin/python" "$HERE/match.py" --master "$MASTER" \
    --out "$WORK/$method.run" "${signed[@]}" 2> >(grep -v -E 'WARN|^\s*$|Setting default log level|To adjust logging' >&2)
  echo "spark match $method ($MASTER): $(echo "$(date +%s.%N) - $start" | bc) s" >&2
  "$BIN" stage import --db "$WORK/whole.db" --run "$WORK/$method.run"
  "$BIN" pairs --db "$WORK/whole.db" --method "$method" > "$WORK/$method.spark.pairs"
  "$BIN" clusters --db "$WORK/whole.db" --method "$method" > "$WORK/$method.spark.clusters"
  if ! "$VENV/bin/python" - "$WORK/$method" "$method" <<'EOF'
import json, sys
base, method = sys.argv[1], sys.argv[2]
def pairs(p):
    out = set()
    for line in open(p):
        r = json.loads(line)
        a, b = sorted([r["a"], r["b"]])
        out.add((a, b, f'{r["score"]:.9f}'))
    return out
def clusters(p):
    return {tuple(sorted(json.loads(l)["urls"])) for l in open(p)}
dp, sp = pairs(base + ".detect.pairs"), pairs(base + ".spark.pairs")
dc, sc = clusters(base + ".detect.clusters"), clusters(base + ".spark.clusters")
ok = dp == sp and dc == sc and len(dp) > 100
print(f"{method}: detect {len(dp)} pairs {len(dc)} clusters; spark {len(sp)} pairs {len(sc)} clusters; "
      f"only detect {len(dp - sp)} only spark {len(sp - dp)}; {'EQUAL' if ok else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
EOF
  then status=1; fi
done
exit $status
