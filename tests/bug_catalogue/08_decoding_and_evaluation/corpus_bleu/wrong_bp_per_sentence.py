"""Pooled precisions, but the brevity penalty averaged over sentences instead of taken from total lengths."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    matches, totals, penalties = [0] * max_n, [0] * max_n, []
    for hypothesis, reference in zip(hypotheses, references):
        if len(hypothesis) >= len(reference):
            penalties.append(1.0)
        else:
            penalties.append(math.exp(1 - len(reference) / len(hypothesis)) if hypothesis else 0.0)
        for n in range(1, max_n + 1):
            hypothesis_ngrams = ngram_counts(hypothesis, n)
            matches[n - 1] += sum((hypothesis_ngrams & ngram_counts(reference, n)).values())
            totals[n - 1] += sum(hypothesis_ngrams.values())
    if min(matches) == 0:
        return 0.0
    brevity_penalty = sum(penalties) / len(penalties)
    return 100 * brevity_penalty * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n)
