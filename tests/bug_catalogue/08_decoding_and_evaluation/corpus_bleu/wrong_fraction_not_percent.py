"""Returns BLEU as a fraction in [0, 1] instead of sacreBLEU's 0-100 scale."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    matches, totals = [0] * max_n, [0] * max_n
    for hypothesis, reference in zip(hypotheses, references):
        for n in range(1, max_n + 1):
            hypothesis_ngrams = ngram_counts(hypothesis, n)
            matches[n - 1] += sum((hypothesis_ngrams & ngram_counts(reference, n)).values())
            totals[n - 1] += sum(hypothesis_ngrams.values())
    if min(matches) == 0:
        return 0.0
    c, r = sum(map(len, hypotheses)), sum(map(len, references))
    brevity_penalty = 1.0 if c >= r else math.exp(1 - r / c)
    return brevity_penalty * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n)
