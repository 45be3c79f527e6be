# who.py: under gdb, counts which store call (and which session call above it) made each of
# SQLite's reads (`unixRead`) on the bench's own thread (the UI thread) over a run of
# bench::merged; the counts go to $WHO_OUT (default who.txt) when the process exits:
#   SPOTCHECK_BENCH_DB=$PWD/run.db SPOTCHECK_BENCH_WARM=1 WHO_OUT=who-new.txt \
#     gdb -batch -x examples/tui_cold/who.py -ex run --args BIN --ignored --nocapture bench::merged
# Every read of every thread stops at the breakpoint (the worker's too): slow, minutes.
import collections
import os
import re

import gdb

counts = collections.Counter()


class BP(gdb.Breakpoint):
    def stop(self):
        t = gdb.selected_thread()
        if not (t.name or '').startswith('bench::'):
            return False
        f = gdb.newest_frame()
        store = sess = None
        depth = 0
        while f is not None and depth < 60:
            n = f.name() or ''
            if store is None and 'spotcheck::store::' in n:
                store = n
            if sess is None and ('spotcheck::review::' in n or 'spotcheck::tui::' in n):
                sess = n
            if store and sess:
                break
            f = f.older()
            depth += 1
        short = lambda s: re.sub(r'::h[0-9a-f]{16}$', '', (s or '?').replace('spotcheck::', ''))
        counts[short(store) + ' <- ' + short(sess)] += 1
        return False


BP('unixRead')


def report(event):
    with open(os.environ.get('WHO_OUT', 'who.txt'), 'w') as out:
        for k, c in counts.most_common():
            out.write(f'{c:6d} {k}\n')


gdb.events.exited.connect(report)
