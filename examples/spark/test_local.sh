#!/bin/bash
# The Spark match stage on local-mode Spark gives exactly the pairs (with their scores to 9
# decimals) and the clusters of a single-process `spotcheck detect`, for SpotSigs, I-Match
# with bags and Cooper. CI's check (.ci/run, "Spark check"): a small corpus in 4 shards —
# the first $MAX_PAGES pages (by path) of every package release of the debian-docs corpus
# (ci-dd: linux-doc, qtbase5, sqlite3; pairs across releases) and the news-v2 stories
# $NEWS_STORIES (each story's copies on several sites, so Cooper's cross-site containment
# rule and the site rule of SpotSigs are exercised) — all three methods in one Spark
# application (one JVM start).
#
#   examples/spark/test_local.sh [SPOTCHECK-BINARY] [MASTER]
#
# Installs what is missing and fails loudly if it cannot: pyspark and pyarrow from PyPI
# into ~/.cache/spotcheck/spark-venv (or $SPARK_VENV), a JDK from the system's packages
# (apt-get install openjdk-17-jre-headless) when `java` is absent. The corpora are
# ~/.cache/spotcheck/ci-dd ($SPOTCHECK_DD_CORPUS) and ~/.cache/spotcheck/news-v2/whole
# ($SPOTCHECK_NEWS_CORPUS). Exit 0: every method equal; 1: a difference or a failure.
set -euo pipefail
BIN=$(realpath "${1:-target/release/spotcheck}")
MASTER=${2:-local[2]}
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS=${SPOTCHECK_DD_CORPUS:-$HOME/.cache/spotcheck/ci-dd}
NEWS=${SPOTCHECK_NEWS_CORPUS:-$HOME/.cache/spotcheck/news-v2/whole}
VENV=${SPARK_VENV:-$HOME/.cache/spotcheck/spark-venv}
MAX_PAGES=${MAX_PAGES:-100}
NEWS_STORIES=${NEWS_STORIES:-^story0[0-2][0-9]\$}
SHARDS=${SHARDS:-4}
METHODS=${METHODS:-spotsigs imatch cooper}
fail() { echo "test_local: $*" >&2; exit 1; }
started=$(date +%s.%N)

[ -x "$BIN" ] || fail "no spotcheck binary at $BIN (cargo build --release)"
if ! command -v java >/dev/null; then
  echo "test_local: no java on PATH; installing openjdk-17-jre-headless" >&2
  if command -v apt-get >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless) >&2 ||
      fail "could not install a JDK with apt-get (install Java 17+ and put java on PATH)"
  else
    fail "no java on PATH and no apt-get to install one (install Java 17+)"
  fi
  command -v java >/dev/null || fail "java still not on PATH after installing openjdk-17-jre-headless"
fi
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import pyspark, pyarrow' 2>/dev/null; then
  echo "test_local: installing pyspark and pyarrow into $VENV" >&2
  python3 -m venv "$VENV" || fail "python3 -m venv $VENV failed (apt-get install python3-venv)"
  "$VENV/bin/pip" install --quiet pyspark pyarrow || fail "pip install pyspark pyarrow into $VENV failed"
  "$VENV/bin/python" -c 'import pyspark, pyarrow' || fail "pyspark or pyarrow does not import from $VENV"
fi
[ -d "$CORPUS/html" ] || fail "no debian-docs corpus at $CORPUS (see .ci/run)"
if [ ! -s "$NEWS/gold.tsv" ]; then
  # The news syndication corpus is made from the shared corpus's real news pages (as
  # examples/eval_four.sh expects it), once, into ~/.cache/spotcheck/news-v2.
  news_src=${SPOTCHECK_NEWS_SOURCE:-$HERE/../../../shared/corpus/news}
  [ -d "$news_src" ] || fail "no news-v2 corpus at $NEWS and no news pages at $news_src to make it from"
  echo "test_local: making the news-v2 corpus in $(dirname "$NEWS") from $news_src" >&2
  # The example in the binary's own profile (CI passes the debug binary, whose examples
  # `cargo test` has built already).
  profile=--release
  case "$BIN" in */debug/*) profile= ;; esac
  (cd "$HERE/../.." && cargo run $profile --quiet --example make_news_corpus -- "$news_src" "$(dirname "$NEWS")") >&2 ||
    fail "make_news_corpus failed"
  [ -s "$NEWS/gold.tsv" ] || fail "make_news_corpus made no $NEWS/gold.tsv"
fi

WORK=$(mktemp -d /tmp/spotcheck-spark-XXXXXX)
trap '[ -n "${KEEP_WORK:-}" ] && echo "test_local: kept $WORK" >&2 || rm -rf "$WORK"' EXIT
# The pages, dealt round-robin into the shards by path (a release's pages and a story's
# copies land in different shards, so every pair and group crosses shards somewhere).
{
  (cd "$CORPUS/html" && for release in */*/; do find "${release%/}" -type f | sort | sed -n "1,${MAX_PAGES}p"; done) |
    sed "s|^|$CORPUS/html\t|"
  grep -v '^#' "$NEWS/gold.tsv" | awk -F'\t' -v pat="$NEWS_STORIES" '$2 ~ pat { print $1 }' |
    sed "s|^|$NEWS/html\t|"
} | sort -t$'\t' -k2 | awk -F'\t' -v k="$SHARDS" -v OFS='\t' '{ print NR % k, $1, $2 }' |
  while IFS=$'\t' read -r k root rel; do
    mkdir -p "$WORK/shard$k/$(dirname "$rel")"
    ln "$root/$rel" "$WORK/shard$k/$rel" 2>/dev/null || cp "$root/$rel" "$WORK/shard$k/$rel"
  done
echo "test_local: $(find "$WORK"/shard* -type f | wc -l) pages in $SHARDS shards" >&2
for ((k = 0; k < SHARDS; k++)); do
  "$BIN" ingest --quiet --no-main --db "$WORK/shard$k.db" "$WORK/shard$k" >/dev/null
  "$BIN" ingest --quiet --no-main --db "$WORK/whole.db" "$WORK/shard$k" >/dev/null
done
# The stages take detect's defaults for every key left out (stage --params); visible text,
# as the content text's site templates are a whole-collection pass.
PARAMS='{"text":"Visible"}'
runs=()
for method in $METHODS; do
  # I-Match's cross-site bags (--across-bags, issue 14 session 11) are not in the Spark job,
  # which refuses them: both sides run without them.
  extra=()
  PARAMS='{"text":"Visible"}'
  if [[ $method == imatch ]]; then extra=(--across-bags 0); PARAMS='{"text":"Visible","across_bags":0}'; fi
  # Cooper's passage rule (--cooper-passage, issue 14 session 12) reads the texts, which the
  # stages do not carry; they refuse it: both sides run without it.
  if [[ $method == cooper ]]; then extra=(--cooper-passage 0); PARAMS='{"text":"Visible","passage_min_terms":0}'; fi
  # SpotSigs' fallback for unsigned pages (--fallback-tau, issue 14 session 14) reads the
  # texts too: both sides run without it.
  if [[ $method == spotsigs ]]; then extra=(--fallback-tau 0); PARAMS='{"text":"Visible","fallback_tau":0}'; fi
  "$BIN" detect --db "$WORK/whole.db" --method "$method" --text visible "${extra[@]}" >/dev/null 2>&1
  "$BIN" pairs --db "$WORK/whole.db" --method "$method" > "$WORK/$method.detect.pairs"
  "$BIN" clusters --db "$WORK/whole.db" --method "$method" > "$WORK/$method.detect.clusters"
  signed=()
  for ((i = 0; i < SHARDS; i++)); do
    "$BIN" stage count --db "$WORK/shard$i.db" --method "$method" --params "$PARAMS" \
      --out "$WORK/$i.$method.counts.parquet" 2>/dev/null
  done
  "$BIN" stage stats --out "$WORK/$method.stats.parquet" "$WORK"/*."$method".counts.parquet 2>/dev/null
  for ((i = 0; i < SHARDS; i++)); do
    "$BIN" stage sign --db "$WORK/shard$i.db" --method "$method" --params "$PARAMS" \
      --stats "$WORK/$method.stats.parquet" --out "$WORK/$i.$method.signed.parquet" 2>/dev/null
    signed+=("$WORK/$i.$method.signed.parquet")
  done
  runs+=(--run "$WORK/$method.run=$(IFS=,; echo "${signed[*]}")")
done
echo "test_local: detect and the stages before match took $(echo "$(date +%s.%N) - $started" | bc) s" >&2
spark_started=$(date +%s.%N)
# A short job on few cores: two shuffle partitions per stage, and the JVM's quick JIT
# (C1 only), which halved the job's time on the CI corpus (BENCHMARKS.md, issue 19 session 4).
SHUFFLE_PARTITIONS=${SHUFFLE_PARTITIONS:-2} SPARK_CONF=${SPARK_CONF:-spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1} \
  PYSPARK_PYTHON="$VENV/bin/python" "$VENV/bin/python" "$HERE/match.py" --master "$MASTER" "${runs[@]}" \
  2> >(grep -v -E 'WARN|^\s*$|Setting default log level|To adjust logging|NativeCodeLoader' >&2) ||
  fail "the Spark job failed"
echo "test_local: Spark match ($MASTER, all methods, JVM start included): $(echo "$(date +%s.%N) - $spark_started" | bc) s" >&2
status=0
for method in $METHODS; do
  "$BIN" stage import --db "$WORK/whole.db" --run "$WORK/$method.run" >/dev/null
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
cross = sum(1 for a, b, _ in dp if a.split("/")[0] != b.split("/")[0])
ok = dp == sp and dc == sc and len(dp) > 100
print(f"{method}: detect {len(dp)} pairs ({cross} across sites) {len(dc)} clusters; spark {len(sp)} "
      f"pairs {len(sc)} clusters; only detect {len(dp - sp)} only spark {len(sp - dp)}; "
      f"{'EQUAL' if ok else 'DIFFERENT'}")
for x in sorted(dp - sp)[:3]:
    print("  only detect:", x)
for x in sorted(sp - dp)[:3]:
    print("  only spark:", x)
sys.exit(0 if ok else 1)
EOF
  then status=1; fi
done
# The paths a large collection takes, at CI's size: Cooper's verification as shuffle joins
# (no broadcast lists) and its join without a count margin must give the same pairs
# (SHUFFLE_PATH_CHECK=0 skips it).
if [ "${SHUFFLE_PATH_CHECK:-1}" != 0 ] && [[ " $METHODS " == *" cooper "* ]]; then
  cooper_signed=$(ls "$WORK"/*.cooper.signed.parquet | paste -sd,)
  BROADCAST_LISTS_BYTES=0 COOPER_MARGIN=0 SHUFFLE_PARTITIONS=${SHUFFLE_PARTITIONS:-2} \
    SPARK_CONF=${SPARK_CONF:-spark.driver.extraJavaOptions=-XX:TieredStopAtLevel=1} PYSPARK_PYTHON="$VENV/bin/python" \
    "$VENV/bin/python" "$HERE/match.py" --master "$MASTER" --run "$WORK/cooper.shuffle.run=$cooper_signed" \
    2> >(grep -v -E 'WARN|^\s*$|Setting default log level|To adjust logging|NativeCodeLoader' >&2) ||
    fail "the Spark job (Cooper, shuffle joins, no margin) failed"
  "$VENV/bin/python" "$HERE/compare_runs.py" cooper "$WORK/cooper.run" "$WORK/cooper.shuffle.run" || status=1
fi
echo "test_local: $(echo "$(date +%s.%N) - $started" | bc) s in all" >&2
exit $status
