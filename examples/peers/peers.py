"""The Python side of the issue-16 comparison: what a user would assemble instead of spotcheck.

    peers.py dedup datasketch|rensa HTML_DIR OUT.tsv   raw HTML -> pairs (url_a<TAB>url_b)
    peers.py score PAIRS.tsv GOLD.tsv                   pairwise P/R/F1 of those pairs on the gold
    peers.py warc fastwarc|warcio WARC                  bare iteration, payloads read

dedup: every .html/.htm file under HTML_DIR (URL = path relative to HTML_DIR, as
`spotcheck ingest HTML_DIR` names it), decoded with resiliparse's encoding detection, text by
resiliparse `extract_plain_text(main_content=True)` (its boilerplate removal, the closest to
spotcheck's default content text), word 5-shingles of the whitespace-split, lowercased text,
MinHash with 128 permutations, LSH at threshold 0.8; every pair of documents the LSH returns
as candidates is a pair. One process, one core, as a user's script would run.
"""

import os
import sys


def pages(root):
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if name.lower().endswith((".html", ".htm")):
                path = os.path.join(dirpath, name)
                yield os.path.relpath(path, root).replace(os.sep, "/"), path


def shingles(text, k=5):
    words = text.lower().split()
    if not words:
        return []
    if len(words) < k:
        return [" ".join(words)]
    return [" ".join(words[i : i + k]) for i in range(len(words) - k + 1)]


def texts(root):
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.encoding import detect_encoding
    from resiliparse.parse.html import HTMLTree

    for url, path in pages(root):
        with open(path, "rb") as f:
            data = f.read()
        tree = HTMLTree.parse_from_bytes(data, detect_encoding(data))
        yield url, extract_plain_text(tree, main_content=True)


def dedup(lib, root, out):
    num_perm, threshold = 128, 0.8
    keys, sigs = [], []
    if lib == "datasketch":
        from datasketch import MinHash, MinHashLSH

        lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
        for url, text in texts(root):
            sh = shingles(text)
            if not sh:
                continue
            m = MinHash(num_perm=num_perm)
            m.update_batch([s.encode("utf-8") for s in sh])
            lsh.insert(url, m)
            keys.append(url)
            sigs.append(m)
    elif lib == "rensa":
        from rensa import RMinHash, RMinHashLSH

        # rensa's LSH takes the band count; 16 bands x 8 rows, as rensa's own examples for
        # threshold 0.8 and 128 permutations (datasketch derives 9 bands x 13 rows itself).
        lsh = RMinHashLSH(threshold=threshold, num_perm=num_perm, num_bands=16)
        for url, text in texts(root):
            sh = shingles(text)
            if not sh:
                continue
            m = RMinHash(num_perm=num_perm, seed=42)
            m.update(sh)
            lsh.insert(len(keys), m)
            keys.append(url)
            sigs.append(m)
    else:
        sys.exit(f"unknown library {lib}")
    pairs = set()
    for i, m in enumerate(sigs):
        for c in lsh.query(m):
            j = c if lib == "rensa" else None
            other = keys[j] if j is not None else c
            a = keys[i]
            if other != a:
                pairs.add((a, other) if a < other else (other, a))
    with open(out, "w") as f:
        for a, b in sorted(pairs):
            f.write(f"{a}\t{b}\n")
    print(f"{lib}: {len(keys)} documents, {len(pairs)} pairs", file=sys.stderr)


def score(pairs_path, gold_path):
    gold = {}
    with open(gold_path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            url, cluster = line.rstrip("\n").split("\t")[:2]
            gold[url] = cluster
    # as `spotcheck eval`: only documents present in both the gold and the input count
    present = {u for u, _ in pages(os.environ["PEERS_HTML"])} if "PEERS_HTML" in os.environ else set(gold)
    members = {}
    for url, c in gold.items():
        if url in present:
            members.setdefault(c, []).append(url)
    gold_pairs = sum(len(m) * (len(m) - 1) // 2 for m in members.values())
    predicted = tp = 0
    with open(pairs_path) as f:
        for line in f:
            a, b = line.rstrip("\n").split("\t")
            if a in gold and b in gold and a in present and b in present:
                predicted += 1
                tp += gold[a] == gold[b]
    p = tp / predicted if predicted else 0.0
    r = tp / gold_pairs if gold_pairs else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    print(f"P={p:.3f} R={r:.3f} F1={f1:.3f} tp={tp} predicted={predicted} gold={gold_pairs}")


def warc(lib, path):
    n = size = 0
    if lib == "fastwarc":
        from fastwarc.warc import ArchiveIterator

        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                size += len(rec.reader.read())
                n += 1
    elif lib == "warcio":
        from warcio.archiveiterator import ArchiveIterator

        with open(path, "rb") as f:
            for rec in ArchiveIterator(f, arc2warc=True):
                size += len(rec.content_stream().read())
                n += 1
    else:
        sys.exit(f"unknown library {lib}")
    print(f"{lib}: {n} records, {size} payload bytes", file=sys.stderr)


if __name__ == "__main__":
    cmd, *args = sys.argv[1:] or ["-h"]
    if cmd == "dedup" and len(args) == 3:
        dedup(*args)
    elif cmd == "score" and len(args) == 2:
        score(*args)
    elif cmd == "warc" and len(args) == 2:
        warc(*args)
    else:
        sys.exit(__doc__)
