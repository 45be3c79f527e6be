#!/usr/bin/env bash
# Checks that two spotcheck builds give byte-identical detection output: for each corpus,
# ingests its html/ once (with BASE), then runs the default `detect` (SpotSigs, I-Match,
# Cooper) with each build on its own copy of that database and compares every method's
# pairs and clusters, `sigs`, and `query` on 40 pages of the first corpus (which reads the
# stored query index back). Prints each detect's CPU seconds and peak RSS (from
# /usr/bin/time) with the load, and exits 1 on any difference.
#
# Usage: examples/cooper/same_output.sh BASE_BIN NEW_BIN [CORPUS_DIR...]
#   CORPUS_DIR defaults to ~/.cache/spotcheck/ci-dd and ~/.cache/spotcheck/dd6k (each
#   with an html/ folder). Scratch goes to ${WORK:-/tmp/cooper-same}; delete it after.
set -euo pipefail
base=$1 new=$2; shift 2
corpora=("$@")
[[ ${#corpora[@]} -gt 0 ]] || corpora=("$HOME/.cache/spotcheck/ci-dd" "$HOME/.cache/spotcheck/dd6k")
work=${WORK:-/tmp/cooper-same}
mkdir -p "$work/q"
rm -f "$work"/q/*
mapfile -t pages < <(find "${corpora[0]}/html" -name '*.html' | sort)
for f in "${pages[@]:0:40}"; do
  cp "$f" "$work/q/$(echo "$f" | md5sum | cut -c1-8).html"
done
status=0
for corpus in "${corpora[@]}"; do
  name=$(basename "$corpus")
  ingested="$work/$name-ingested.db"
  if [[ ! -f $ingested ]]; then
    "$base" ingest --db "$ingested" "$corpus/html" --quiet > /dev/null
  fi
  for side in base new; do
    bin=$base; [[ $side == new ]] && bin=$new
    db="$work/$name-$side.db"
    rm -f "$db" "$db-wal" "$db-shm"
    cp "$ingested" "$db"
    out="$work/$name-$side"
    rm -rf "$out"; mkdir -p "$out"
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%U %S %M %e" -o "$out.time" "$bin" detect --db "$db" > "$out.detect" 2>/dev/null
    read -r user sys rss wall < "$out.time"
    echo "$name $side: detect user $user s + sys $sys s, peak RSS $((rss / 1024)) MB, wall $wall s (load $load)"
    for m in spotsigs imatch cooper; do
      "$bin" pairs --db "$db" --method "$m" --format tsv > "$out/pairs-$m.tsv"
      "$bin" clusters --db "$db" --method "$m" --format tsv > "$out/clusters-$m.tsv"
    done
    "$bin" sigs --db "$db" --format tsv > "$out/sigs.tsv"
    "$bin" query --db "$db" "$work/q" --format tsv > "$out/query.tsv"
  done
  if diff -rq "$work/$name-base" "$work/$name-new"; then
    echo "$name: identical ($(wc -l < "$work/$name-new/pairs-cooper.tsv") Cooper pairs, $(cat "$work/$name-new"/*.tsv | wc -c) bytes compared)"
  else
    status=1
  fi
done
exit $status
