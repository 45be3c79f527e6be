import re
import sys

# count.py TRACE LABEL: the UI thread's pread64 calls per phase of bench::merged, from an
# `strace -f -e trace=pread64,write` log. The UI thread is the one that writes the report
# lines; each phase ends where the bench prints its line.
lines = open(sys.argv[1]).read().splitlines()
marks = ["first frame, queue prebuilt", "first frame, review's start", "queue move", "queue page down", "open entry", "open pair", "pair text (v)",
         "group view (w", "group view: j", "group view confirm", "chart screen (p)",
         "chart screen closed", "chart: what-if threshold (])", "chart: what-if threshold ([)", "chart: next run",
         "tag prompt (t)", "tag prompt: typed", "cut (c)", "adjudication: ",
         "adjudication screen (A)", "adjudication keys", "queue keys: sort"]
tid = None
for l in lines:
    if re.search(r'write\(2, "queue move', l):
        tid = l.split()[0]; break
# The queue keys of session 13 name themselves ("bench key: NAME") after each press: their
# reads are summed per key.
count, out, per_key = 0, [], {}
for l in lines:
    if l.split()[0] != tid: continue
    if 'pread64' in l:
        # A call strace split in two ("<unfinished ...>", "resumed>") is counted once.
        if 'pread64(' in l:
            count += 1
        continue
    m = re.search(r'write\(2, "(.*?)"', l)
    if m and m.group(1).startswith("bench key: "):
        name = m.group(1)[len("bench key: "):].replace("\\n", "")
        n, c = per_key.get(name, (0, 0))
        per_key[name] = (n + 1, c + count); count = 0
        continue
    if m:
        for k in marks:
            if m.group(1).startswith(k):
                out.append((k, count)); count = 0
print(sys.argv[2], 'UI thread', tid)
for k, c in out:
    print(f'  {c:6d} preads before "{k}"')
for k, (n, c) in per_key.items():
    print(f'  {c:6d} preads in {n} presses of "{k}"')
