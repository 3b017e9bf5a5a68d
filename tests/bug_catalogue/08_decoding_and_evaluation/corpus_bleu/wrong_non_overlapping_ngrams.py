"""Cuts each sentence into consecutive non-overlapping n-grams (a step of n) instead of every window."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    matches, totals = [0] * max_n, [0] * max_n
    c = r = 0
    for hyp, ref in zip(hypotheses, references):
        c, r = c + len(hyp), r + len(ref)
        for n in range(1, max_n + 1):
            h = Counter(tuple(hyp[i:i + n]) for i in range(0, len(hyp) - n + 1, n))
            g = Counter(tuple(ref[i:i + n]) for i in range(0, len(ref) - n + 1, n))
            matches[n - 1] += sum((h & g).values())
            totals[n - 1] += sum(h.values())
    if min(matches) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n)
