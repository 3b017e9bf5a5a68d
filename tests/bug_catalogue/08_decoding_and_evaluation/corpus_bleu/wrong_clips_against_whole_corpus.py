"""Clips against the n-gram counts of all references together, not against each sentence's own reference."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    log_sum = 0.0
    for n in range(1, max_n + 1):
        h, g = Counter(), Counter()
        for hyp, ref in zip(hypotheses, references):
            h.update(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            g.update(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        matched = sum((h & g).values())
        if matched == 0:
            return 0.0
        log_sum += math.log(matched / sum(h.values()))
    c, r = sum(map(len, hypotheses)), sum(map(len, references))
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * bp * math.exp(log_sum / max_n)
