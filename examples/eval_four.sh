#!/usr/bin/env bash
# Issue 14's four corpora with default settings: ingest (unless the DB exists and KEEP=1),
# `detect` (the default methods), `detect --method minhash`, then union_eval.py on each.
# Usage: examples/eval_four.sh SPOTCHECK_BIN DB_DIR [extra detect args...]
# Corpora are read from $HOME/.cache/spotcheck (news-v2/whole, news-v2/single: make_news_corpus;
# ci-dd, cc-held, dd-held3: debian-docs.sh; see BENCHMARKS.md "issue 14"); a corpus whose
# directory is missing is skipped with a note; EXTRA_CORPORA="name=dir ..." adds more (each dir
# with html/ and gold.tsv). dd-held3 (a third held-out doc family, session 3):
#   debian-docs.sh ~/.cache/spotcheck/dd-held3 libcairomm-1.0-doc libpangomm-1.4-doc libxml2-doc
#   then examples/dd_held3_gold.py ~/.cache/spotcheck/dd-held3 (libxml2-doc moved its manual).
# news-v3 (untuned, session 4): make_news_corpus NEWS_DIR ~/.cache/spotcheck/news-v3 --seed 2026 --cross
# news-v4 (untuned, session 11): make_news_corpus NEWS_DIR ~/.cache/spotcheck/news-v4 --seed 4242 --copies 8 --stories 120
# news-v5 (untuned, session 13): make_news_corpus NEWS_DIR ~/.cache/spotcheck/news-v5 --seed 505 --web-edits
# Every corpus here: examples/corpora.sh.
# dd-held4 (a fourth held-out doc family, session 7):
#   debian-docs.sh ~/.cache/spotcheck/dd-held4 libatkmm-1.6-doc libxml++2.6-doc libsoup2.4-doc
# Why a doc corpus's pairs are wrong, by cause: examples/doc_causes.py BIN DB DIR [ALT_GOLD].
# Why I-Match misses or makes a pair, by cause, and its flags swept in seconds:
#   cargo run --release --example imatch_study -- DB DIR/gold.tsv [I-Match flags].
set -euo pipefail
bin=$1; dbdir=$2; shift 2
cache=${SPOTCHECK_CACHE:-$HOME/.cache/spotcheck}
here=$(dirname "$0")
mkdir -p "$dbdir"
corpora="news-whole=$cache/news-v2/whole news-single=$cache/news-v2/single ci-dd=$cache/ci-dd cc-held=$cache/cc-held dd-held3=$cache/dd-held3 news-v3-whole=$cache/news-v3/whole news-v3-single=$cache/news-v3/single dd-held4=$cache/dd-held4 news-v4-whole=$cache/news-v4/whole news-v4-single=$cache/news-v4/single news-v5-whole=$cache/news-v5/whole news-v5-single=$cache/news-v5/single ${EXTRA_CORPORA:-}"
for c in $corpora; do
    name=${c%%=*}; dir=${c#*=}
    db=$dbdir/$name.db
    if [[ ! -f $dir/gold.tsv ]]; then echo "== $name: skipped, $dir/gold.tsv missing"; continue; fi
    if [[ ${KEEP:-0} != 1 || ! -f $db ]]; then
        rm -f "$db"
        "$bin" ingest --db "$db" "$dir/html" >/dev/null
    fi
    "$bin" detect --db "$db" "$@" >/dev/null
    "$bin" detect --db "$db" --method minhash >/dev/null
    echo "== $name (load $(cut -d' ' -f1 /proc/loadavg))"
    python3 "$here/union_eval.py" "$bin" "$db" "$dir"
done
