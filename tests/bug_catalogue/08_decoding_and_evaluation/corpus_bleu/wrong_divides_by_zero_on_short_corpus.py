"""Computes every precision m / t before checking for zeros: a corpus without 4-grams divides by zero."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    matches, totals = [0] * max_n, [0] * max_n
    for hypothesis, reference in zip(hypotheses, references):
        for n in range(1, max_n + 1):
            hypothesis_ngrams = ngram_counts(hypothesis, n)
            matches[n - 1] += sum((hypothesis_ngrams & ngram_counts(reference, n)).values())
            totals[n - 1] += sum(hypothesis_ngrams.values())
    precisions = [m / t for m, t in zip(matches, totals)]
    if min(precisions) == 0:
        return 0.0
    c, r = sum(map(len, hypotheses)), sum(map(len, references))
    brevity_penalty = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * brevity_penalty * math.exp(sum(math.log(p) for p in precisions) / max_n)
