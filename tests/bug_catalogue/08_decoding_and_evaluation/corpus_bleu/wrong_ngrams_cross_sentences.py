"""Glues the corpus into one long hypothesis and one long reference: n-grams cross sentence boundaries."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    hypothesis = [w for sentence in hypotheses for w in sentence]
    reference = [w for sentence in references for w in sentence]
    log_sum = 0.0
    for n in range(1, max_n + 1):
        h = ngram_counts(hypothesis, n)
        matched = sum((h & ngram_counts(reference, n)).values())
        if matched == 0:
            return 0.0
        log_sum += math.log(matched / sum(h.values()))
    c, r = len(hypothesis), len(reference)
    brevity_penalty = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * brevity_penalty * math.exp(log_sum / max_n)
