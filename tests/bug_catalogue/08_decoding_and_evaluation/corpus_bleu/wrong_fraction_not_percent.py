"""Returns BLEU as a fraction in [0, 1] instead of sacreBLEU's 0-100 scale."""
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
    if min(matches) == 0:
        return 0.0
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return bp * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n)
