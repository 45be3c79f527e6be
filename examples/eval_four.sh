#!/usr/bin/env bash
# Issue 14's four corpora with default settings: ingest (unless the DB exists and KEEP=1),
# `detect` (the default methods), `detect --method minhash`, then union_eval.py on each.
# Usage: examples/eval_four.sh SPOTCHECK_BIN DB_DIR [extra detect args...]
# Corpora are read from $HOME/.cache/spotcheck (news/whole, news/single: make_news_corpus;
# ci-dd, cc-held: debian-docs.sh; see BENCHMARKS.md "issue 14"); EXTRA_CORPORA="name=dir ..."
# adds more (each dir with html/ and gold.tsv).
set -euo pipefail
bin=$1; dbdir=$2; shift 2
cache=${SPOTCHECK_CACHE:-$HOME/.cache/spotcheck}
here=$(dirname "$0")
mkdir -p "$dbdir"
corpora="news-whole=$cache/news/whole news-single=$cache/news/single ci-dd=$cache/ci-dd cc-held=$cache/cc-held ${EXTRA_CORPORA:-}"
for c in $corpora; do
    name=${c%%=*}; dir=${c#*=}
    db=$dbdir/$name.db
    if [[ ${KEEP:-0} != 1 || ! -f $db ]]; then
        rm -f "$db"
        "$bin" ingest --db "$db" "$dir/html" >/dev/null
    fi
    "$bin" detect --db "$db" "$@" >/dev/null
    "$bin" detect --db "$db" --method minhash >/dev/null
    echo "== $name (load $(cut -d' ' -f1 /proc/loadavg))"
    python3 "$here/union_eval.py" "$bin" "$db" "$dir"
done
