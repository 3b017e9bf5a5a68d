"""Clips against the n-gram counts of all references together, not against each sentence's own reference."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    log_sum = 0.0
    for n in range(1, max_n + 1):
        h, g = Counter(), Counter()
        for hypothesis, reference in zip(hypotheses, references):
            h.update(ngram_counts(hypothesis, n))
            g.update(ngram_counts(reference, n))
        matched = sum((h & g).values())
        if matched == 0:
            return 0.0
        log_sum += math.log(matched / sum(h.values()))
    c, r = sum(map(len, hypotheses)), sum(map(len, references))
    brevity_penalty = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * brevity_penalty * math.exp(log_sum / max_n)
