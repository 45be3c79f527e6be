#!/usr/bin/env python3
"""Fixes the provenance labels of the dd-held3 corpus (BENCHMARKS.md, issue 14 session 3) after
`debian-docs.sh DIR libcairomm-1.0-doc libpangomm-1.4-doc libxml2-doc`.

libxml2-doc moved its manual from usr/share/doc/libxml2-doc/ (bullseye, 2.9.10) to
usr/share/doc/libxml2/html/ (bookworm 2.9.14, trixie): debian-docs.sh labels a page by its path
inside the package, so the same page of two releases got two clusters. This relabels the
bullseye paths to the later layout (the same file name under the moved directory), keeping the
original as gold.orig.tsv. Nothing else changes. Usage: dd_held3_gold.py DIR"""
import os, re, sys
d = sys.argv[1]
src = os.path.join(d, "gold.orig.tsv")
if not os.path.exists(src):
    os.rename(os.path.join(d, "gold.tsv"), src)
out, moved = [], 0
for line in open(src):
    if line.startswith("#") or not line.strip():
        out.append(line); continue
    url, cluster = line.rstrip("\n").split("\t")
    new = re.sub(r"^libxml2-doc:usr/share/doc/libxml2-doc/", "libxml2-doc:usr/share/doc/libxml2/html/", cluster)
    moved += new != cluster
    out.append(f"{url}\t{new}\n")
open(os.path.join(d, "gold.tsv"), "w").writelines(out)
print(f"relabeled {moved} libxml2-doc pages", file=sys.stderr)
