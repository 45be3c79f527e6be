"""Synthetic Cooper load with millions of pairs (issue 16, the end of a Cooper run).

Usage: python3 examples/cooper/many_pairs.py G M W OUT.jsonl

G groups of M near-identical short documents, each on its own host (so its content text is
the page's own); a document is its group's W words (letters only) plus one word of its own,
shuffled, so every two documents of a group differ by 2 of W+1 salient terms: Cooper pairs
all of them, G*M*(M-1)/2 pairs. `50 450 60` gives 22,500 documents and 5,051,250 pairs.
"""
import sys, json, random
G, M, W = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
def word(n, pre):
    s = ''
    while True:
        s += chr(97 + n % 26); n //= 26
        if n == 0: break
    return pre + s
rnd = random.Random(7)
out = open(sys.argv[4], 'w')
d = 0
for g in range(G):
    base = [word(g * W + k, 'grp') for k in range(W)]
    for m in range(M):
        words = base[:] + [word(d, 'own')]
        rnd.shuffle(words)
        text = ' '.join(words[:len(words)//2]) + '. ' + ' '.join(words[len(words)//2:]) + '.'
        out.write(json.dumps({"url": f"http://{word(d,'h')}.example/p.html", "text": text}) + "\n")
        d += 1
