#!/usr/bin/env bash
# Issue 16's guard for speed work: every default detector's output must stay byte-identical.
#
#   examples/speed/outputs.sh OUT_DIR INPUT...
#
# Ingests INPUT (folders, WARCs) into a fresh OUT_DIR/db with default options, runs `detect`
# with no options, and writes what a user sees of the result as files in OUT_DIR: the pairs and
# clusters of every method that ran (TSV), the signatures (TSV), the document listing, and a
# digest of every stored text column. Compare two OUT_DIRs with `diff -r` (the database itself
# and the files with timings are excluded: `diff -r -x db -x 'db-*' -x timing -x detect.txt A B`).
# spotcheck is the release binary of this checkout, or $SPOTCHECK; $INGEST_FLAGS are added to
# `ingest` (e.g. `--main` to compare the opt-in main-content text too).
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,12p' "$0" >&2; exit 2; }
out=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
spotcheck=${SPOTCHECK:-$here/../../target/release/spotcheck}
mkdir -p "$out"
rm -f "$out"/db "$out"/db-*
t0=$(date +%s.%N)
# shellcheck disable=SC2086
"$spotcheck" ingest --db "$out/db" "$@" --quiet ${INGEST_FLAGS:-}
t1=$(date +%s.%N)
"$spotcheck" detect --db "$out/db" > "$out/detect.txt" 2>&1
t2=$(date +%s.%N)
echo "ingest $(echo "$t1 - $t0" | bc) s, detect $(echo "$t2 - $t1" | bc) s, load $(uptime | sed 's/.*load average: //')" > "$out/timing"
for m in spotsigs imatch cooper andd minhash; do
  grep -q "\"method\":\"$m\"" <("$spotcheck" runs --db "$out/db" --json) || continue
  "$spotcheck" pairs --db "$out/db" --method "$m" --format tsv > "$out/pairs-$m.tsv"
  "$spotcheck" clusters --db "$out/db" --method "$m" --format tsv > "$out/clusters-$m.tsv"
done
"$spotcheck" sigs --db "$out/db" --format tsv > "$out/sigs.tsv"
"$spotcheck" docs --db "$out/db" --format tsv > "$out/docs.tsv"
# Every stored text, by document (what the review shows and the detectors read).
sqlite3 "$out/db" "SELECT url, title, encoding, length(visible_text), hex(visible_text) FROM documents ORDER BY url" | sha256sum > "$out/visible.sha256"
sqlite3 "$out/db" "SELECT url, hex(main_text) FROM documents ORDER BY url" | sha256sum > "$out/main_text.sha256"
sqlite3 "$out/db" "SELECT d.url, c.* FROM content_texts c JOIN documents d ON d.id = c.doc_id ORDER BY d.url" | sha256sum > "$out/content_texts.sha256"
# The languages (kept with the content texts) and the blocks' structure signals.
sqlite3 "$out/db" "SELECT d.url, l.lang FROM document_langs l JOIN documents d ON d.id = l.doc_id ORDER BY d.url" | sha256sum > "$out/langs.sha256"
sqlite3 "$out/db" "SELECT d.url, hex(s.signals) FROM block_signals s JOIN documents d ON d.id = s.doc_id ORDER BY d.url" | sha256sum > "$out/block_signals.sha256"
# Every document row's other columns, by id (ids, exact-duplicate groups, revisit links).
sqlite3 "$out/db" "SELECT id, source_id, record_offset, record_length, compression, record_type, url, title, fetch_time, content_type, encoding, http_status, raw_hash, text_hash, dup_group, revisit_of FROM documents ORDER BY id" | sha256sum > "$out/documents.sha256"
cat "$out/timing"
