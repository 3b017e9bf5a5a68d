"""Tokenises again with a regular expression: punctuation is split off words and dropped."""
import math
import re


def corpus_bleu(hypotheses, references, max_n=4):
    hypotheses = [re.findall(r"\w+", " ".join(h)) for h in hypotheses]
    references = [re.findall(r"\w+", " ".join(r)) for r in references]
    matches, totals = [0] * max_n, [0] * max_n
    for hypothesis, reference in zip(hypotheses, references):
        for n in range(1, max_n + 1):
            hypothesis_ngrams = ngram_counts(hypothesis, n)
            matches[n - 1] += sum((hypothesis_ngrams & ngram_counts(reference, n)).values())   # & clips
            totals[n - 1] += sum(hypothesis_ngrams.values())
    if min(matches) == 0:          # a precision of 0 (or no n-grams at all): the geometric mean is 0
        return 0.0
    c, r = sum(map(len, hypotheses)), sum(map(len, references))   # total hypothesis and reference lengths
    log_mean = sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n
    brevity_penalty = 1.0 if c >= r else math.exp(1 - r / c)
    return 100 * brevity_penalty * math.exp(log_mean)
