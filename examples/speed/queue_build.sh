#!/usr/bin/env bash
# Issue 16's measurement of the review queue's build: forces a rebuild of DB's merged queue,
# times `spotcheck queue --db DB > /dev/null` (which rebuilds it) under /usr/bin/time -v, and
# dumps the queue tables (entries, members, merged pairs, triage counts) and the build's
# stage costs (meta review_queue_build) into OUT/LABEL.*, so two builds' tables compare with
# `cmp OUT/A.pairs OUT/B.pairs` (and .clusters, .members, .triage).
#
#   examples/speed/queue_build.sh SPOTCHECK DB LABEL OUT
set -euo pipefail
[[ $# -eq 4 ]] || { sed -n '2,8p' "$0" >&2; exit 2; }
bin=$1 db=$2 label=$3 out=$4
mkdir -p "$out"
sqlite3 "$db" "DELETE FROM meta WHERE key = 'review_queue_runs'"
l0=$(cut -d' ' -f1 /proc/loadavg)
nice -n -19 /usr/bin/time -v "$bin" queue --db "$db" > /dev/null 2> "$out/$label.time"
l1=$(cut -d' ' -f1 /proc/loadavg)
g() { grep "$1" "$out/$label.time" | awk '{print $NF}'; }
u=$(g "User time"); s=$(g "System time"); rss=$(g "Maximum resident"); wall=$(g "Elapsed")
echo "$label cpu $(echo "$u + $s" | bc) (user $u sys $s) rss_mb $((rss / 1024)) wall $wall load $l0 -> $l1" | tee -a "$out/summary"
sqlite3 "$db" "SELECT run_id, cluster, method, latest, size, printf('%.17g', min_score), printf('%.17g', max_score), members_key, title, disagree, detectors, agreement, detectors_total, noise, captures, bridge_a, bridge_b, printf('%.17g', bridge_score), rank_size_desc, rank_size_asc, rank_score_desc, rank_score_asc, rank_agreement_desc, rank_active FROM review_clusters ORDER BY run_id, cluster" > "$out/$label.clusters"
sqlite3 "$db" "SELECT entry, doc_id, captures FROM review_entry_members ORDER BY entry, doc_id" > "$out/$label.members"
sqlite3 "$db" "SELECT entry, a, b, printf('%.17g', score), detectors FROM review_entry_pairs ORDER BY entry, a, b" > "$out/$label.pairs"
sqlite3 "$db" "SELECT value FROM meta WHERE key = 'review_triage'" > "$out/$label.triage"
sqlite3 "$db" "SELECT value FROM meta WHERE key = 'review_queue_build'" > "$out/$label.trace"
