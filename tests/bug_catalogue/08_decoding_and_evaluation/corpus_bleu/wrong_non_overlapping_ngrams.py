"""Counts its own n-grams instead of using ngram_counts, cutting each sentence into consecutive
non-overlapping n-grams (a step of n) instead of every window."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    matches, totals = [0] * max_n, [0] * max_n
    for hypothesis, reference in zip(hypotheses, references):
        for n in range(1, max_n + 1):
            hypothesis_ngrams = Counter(tuple(hypothesis[i:i + n]) for i in range(0, len(hypothesis) - n + 1, n))
            reference_ngrams = Counter(tuple(reference[i:i + n]) for i in range(0, len(reference) - n + 1, n))
            matches[n - 1] += sum((hypothesis_ngrams & reference_ngrams).values())
            totals[n - 1] += sum(hypothesis_ngrams.values())
    if min(matches) == 0:
        return 0.0
    c, r = sum(map(len, hypotheses)), sum(map(len, references))
    brevity_penalty = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * brevity_penalty * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n)
