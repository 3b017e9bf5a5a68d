"""n-grams by zip over shifted copies, statistics gathered first, BLEU in log space: log BP = min(0, 1 - r/c)."""
from collections import Counter
import math


def ngrams(words, n):
    return Counter(zip(*(words[i:] for i in range(n))))


def corpus_bleu(hypotheses, references, max_n=4):
    stats = []
    for hyp, ref in zip(hypotheses, references):
        hyp, ref = list(hyp), list(ref)
        row = [len(hyp), len(ref)]
        for n in range(1, max_n + 1):
            h, g = ngrams(hyp, n), ngrams(ref, n)
            row += [sum(min(k, g[gram]) for gram, k in h.items()), sum(h.values())]
        stats.append(row)
    sums = [sum(column) for column in zip(*stats)] if stats else [0] * (2 + 2 * max_n)
    c, r, counts = sums[0], sums[1], sums[2:]
    matched, possible = counts[0::2], counts[1::2]
    if 0 in matched:
        return 0.0
    log_bleu = min(0.0, 1 - r / c) + sum(math.log(m) - math.log(t) for m, t in zip(matched, possible)) / max_n
    return 100 * math.exp(log_bleu)
