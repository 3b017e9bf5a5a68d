"""Skips an order whose precision is 0 (to avoid log 0) instead of returning 0."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    matches, totals = [0] * max_n, [0] * max_n
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c, r = c + len(hyp), r + len(ref)
        for n in range(1, max_n + 1):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            g = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            matches[n - 1] += sum((h & g).values())
            totals[n - 1] += sum(h.values())
    logs = [math.log(m / t) for m, t in zip(matches, totals) if m > 0]
    if not logs:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(logs) / len(logs))
