"""Exact precisions with fractions.Fraction and clipping by hand (min of two dict counts); float() at the very end."""
from fractions import Fraction
import math


def corpus_bleu(hypotheses, references, max_n=4):
    matched, total = [0] * max_n, [0] * max_n
    for hypothesis, reference in zip(hypotheses, references):
        for n in range(1, max_n + 1):
            in_reference = ngram_counts(reference, n)
            for gram, count in ngram_counts(hypothesis, n).items():
                matched[n - 1] += min(count, in_reference.get(gram, 0))
                total[n - 1] += count
    if any(m == 0 for m in matched):
        return 0.0
    product = Fraction(1)
    for m, t in zip(matched, total):
        product *= Fraction(m, t)
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    log_bp = 0.0 if c >= r else 1 - r / c
    return float(100 * math.exp(log_bp + math.log(product) / max_n))
