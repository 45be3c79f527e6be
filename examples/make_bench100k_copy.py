"""Second copy of dd50k with one seeded edit per page, for the 100,000-page review benchmark
(issue 15; BENCHMARKS.md "Review workbench on 100,000 pages").

Copies ~/.cache/spotcheck/dd50k/html (56,638 real debian-docs pages) to
/tmp/bench100k-copy/html, replacing one lowercase word of 4+ letters in the page's text
(chosen among the first 2,000 text runs by random.Random(100000 + page index), pages in
sorted path order) with "edited". Ingesting both folders gives 113,276 pages where every
page has a near-duplicate twin besides the corpus' own version-to-version duplicates.
Usage: python3 examples/make_bench100k_copy.py   (about 80 s; 1.5 GB under /tmp)
"""
import os
import random
import re

SRC = os.path.expanduser("~/.cache/spotcheck/dd50k/html")
DST = "/tmp/bench100k-copy/html"

files = sorted(os.path.join(d, f) for d, _, fs in os.walk(SRC) for f in fs)
for i, path in enumerate(files):
    data = open(path, "rb").read()
    rng = random.Random(100000 + i)
    runs = [m.start() for m in re.finditer(rb">[^<]*?\b([a-z]{4,})\b", data)][:2000]
    if runs:
        at = runs[rng.randrange(len(runs))] + 1
        word = re.compile(rb"[a-z]{4,}").search(data, at)
        if word:
            data = data[: word.start()] + b"edited" + data[word.end() :]
    out = os.path.join(DST, os.path.relpath(path, SRC))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    open(out, "wb").write(data)
print(len(files))
