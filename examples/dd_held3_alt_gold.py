#!/usr/bin/env python3
"""An alternative gold for dd-held3 (issue 14, session 7), written next to its gold as
gold-alt.tsv; gold.tsv is not touched. Usage: dd_held3_alt_gold.py DIR

The rule: libxml2-doc ships its API reference twice, rendered by two generators from the same
header comments: `.../html/libxml-MODULE.html` (libxml2's own generator) and
`usr/share/gtk-doc/html/libxml2/libxml2-MODULE.html` (gtk-doc). Both pages of one MODULE
(in every release) are one cluster here: the same text, which any coder calls a duplicate,
whereas gold.tsv (by provenance: the path inside the package) gives them two clusters.
Nothing else changes."""
import os, re, sys

d = sys.argv[1]
rows = []
for line in open(os.path.join(d, "gold.tsv")):
    if line.startswith("#") or not line.strip():
        rows.append(line); continue
    url, cluster = line.rstrip("\n").split("\t")
    m = re.match(r"^libxml2-doc:.*/html/libxml-([^/]+)\.html$", cluster) or \
        re.match(r"^libxml2-doc:usr/share/gtk-doc/html/libxml2/libxml2-([^/]+)\.html$", cluster)
    if m:
        cluster = f"libxml2-doc:module {m.group(1)}"
    rows.append(f"{url}\t{cluster}\n")
open(os.path.join(d, "gold-alt.tsv"), "w").writelines(rows)
merged = sum(1 for r in rows if "\tlibxml2-doc:module " in r)
print(f"wrote {d}/gold-alt.tsv: {merged} libxml2 pages relabeled by module", file=sys.stderr)
