#!/bin/bash
# run.sh BIN LABEL cold|warm: bench::merged (tests/tui/bench.rs) on a fresh copy of
# $DIR/pristine.db (a database after `ingest` and `detect`), under nice -n -19, either with
# the page cache dropped (cold; the test binary itself read back in, so its own pages are not
# what is timed) or with the copy read once (warm). Needs root for drop_caches.
set -e
bin=$1; label=$2; mode=$3
cd "${DIR:?set DIR to the directory holding pristine.db}"
rm -f run.db run.db-wal run.db-shm
cp pristine.db run.db
if [ "$mode" = cold ]; then sync; echo 1 > /proc/sys/vm/drop_caches; cat "$bin" > /dev/null; else cat run.db > /dev/null; fi
echo "== $label $mode $(date -u +%H:%M:%S) load: $(cat /proc/loadavg)"
SPOTCHECK_BENCH_DB=$PWD/run.db SPOTCHECK_BENCH_WARM=1 nice -n -19 /usr/bin/time -v \
  "$bin" --ignored --nocapture bench::merged 2>&1 | grep -v '^\s*$' \
  | grep -E 'entry|pair|group|chart|queue|tag|cut|adjudication|first frame|Elapsed|Maximum resident|User time|System time|test result|panicked|documents'
echo "== end $(date -u +%H:%M:%S) load: $(cat /proc/loadavg)"
