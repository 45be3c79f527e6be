#!/usr/bin/env python3
"""Sampled pair precision of every finished run and of the review queue on the million-page
corpus, against its provenance gold (`build.sh`'s OUT/gold/*.tsv), with an estimate of each
side's recall of the gold's true pairs (sampled precision x pairs / true pairs).

    precision.py DB GOLD_DIR [SAMPLE] [--family] [--causes]

--family: one cluster per page across the versioned packages of one family as well
  (openjdk-11-doc and openjdk-17-doc, libboost1.74-doc and 1.83, linux-doc-5.10 and 6.1:
  the version numbers are dropped from the package and the path), since the provenance gold
  counts the same class page of two JDKs as two pages.
--causes: the sampled false queue pairs by site (same package or two) and the detectors that
  found them, with a few URLs of each (printed as repr: crawled text never reaches a terminal raw).
"""
import collections, glob, json, random, re, sqlite3, sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
flags = {a for a in sys.argv[1:] if a.startswith("--")}
if len(args) < 2:
    sys.exit(__doc__)
db, gold_dir = args[0], args[1]
sample_size = int(args[2]) if len(args) > 2 else 3000
VERSION = re.compile(r"-\d+(\.\d+)*(?=[-/:])|(?<=[a-z+])\d+\.\d+")

gold = {}
for path in glob.glob(gold_dir + "/*.tsv"):
    for line in open(path, encoding="utf-8", errors="replace"):
        url, _, cluster = line.rstrip("\n").partition("\t")
        if cluster:
            gold[url] = VERSION.sub("", cluster) if "--family" in flags else cluster

con = sqlite3.connect(db)
url = dict(con.execute("SELECT id, url FROM documents"))
sizes = collections.Counter(gold[u] for u in url.values() if u in gold)
true_pairs = sum(n * (n - 1) // 2 for n in sizes.values())
print(f"documents {len(url)}, labeled {sum(sizes.values())}, true pairs {true_pairs}")


def judged(pairs):
    v = [(gold.get(url.get(a)), gold.get(url.get(b))) for a, b in pairs]
    return [ga == gb for ga, gb in v if ga is not None and gb is not None]


def report(name, total, sample):
    j = judged(sample)
    p = sum(j) / max(1, len(j))
    print(f"{name}: pairs {total}, sampled {len(sample)}, judged {len(j)}, precision ~{p:.3f}, "
          f"est. true pairs {p * total:.0f} (recall ~{p * total / max(1, true_pairs):.3f})")


random.seed(9)
for run, method in con.execute(
        "SELECT id, method FROM runs WHERE finished_at IS NOT NULL ORDER BY id").fetchall():
    rows = con.execute("SELECT a, b FROM run_pairs WHERE run_id = ?", (run,)).fetchall()
    report(f"run {run} {method}", len(rows), random.sample(rows, min(sample_size, len(rows))))
    del rows
queue = con.execute("SELECT a, b, detectors FROM review_entry_pairs").fetchall()
sample = random.sample(queue, min(sample_size, len(queue)))
report("review queue", len(queue), [(a, b) for a, b, _ in sample])

if "--causes" in flags:
    kinds, examples = collections.Counter(), collections.defaultdict(list)
    for a, b, detectors in sample:
        ua, ub = url[a], url[b]
        ga, gb = gold.get(ua), gold.get(ub)
        if ga is None or gb is None or ga == gb:
            continue
        where = "same package" if ua.split("/")[2] == ub.split("/")[2] else "two packages"
        kind = f"{where}, {'+'.join(sorted(json.loads(detectors)))}"
        kinds[kind] += 1
        if len(examples[kind]) < 3:
            examples[kind].append((ua[:120], ub[:120]))
    for kind, n in kinds.most_common():
        print(f"{n:5d} false: {kind}")
        for e in examples[kind]:
            print("       ", repr(e[0]), repr(e[1]))
