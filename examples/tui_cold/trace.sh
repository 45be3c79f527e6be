#!/bin/bash
# trace.sh BIN LABEL: one cold run of bench::merged under strace; count.py then counts the
# UI thread's pread64 calls (SQLite's reads of the database file) per phase of the bench.
set -e
bin=$1; label=$2
here=$(cd "$(dirname "$0")" && pwd)
cd "${DIR:?set DIR to the directory holding pristine.db}"
rm -f run.db run.db-wal run.db-shm; cp pristine.db run.db
sync; echo 1 > /proc/sys/vm/drop_caches; cat "$bin" > /dev/null
SPOTCHECK_BENCH_DB=$PWD/run.db SPOTCHECK_BENCH_WARM=1 strace -f -qq -e trace=pread64,write \
  -o "trace-$label.txt" "$bin" --ignored --nocapture bench::merged > /dev/null 2>&1
python3 "$here/count.py" "trace-$label.txt" "$label"
