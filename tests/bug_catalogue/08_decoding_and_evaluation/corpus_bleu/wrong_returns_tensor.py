"""Computes the geometric mean and brevity penalty with torch, and returns a 0-d tensor instead of a float."""
import math
import torch


def corpus_bleu(hypotheses, references, max_n=4):
    matches, totals = [0] * max_n, [0] * max_n
    for hypothesis, reference in zip(hypotheses, references):
        for n in range(1, max_n + 1):
            hypothesis_ngrams = ngram_counts(hypothesis, n)
            matches[n - 1] += sum((hypothesis_ngrams & ngram_counts(reference, n)).values())   # & clips
            totals[n - 1] += sum(hypothesis_ngrams.values())
    if min(matches) == 0:          # a precision of 0 (or no n-grams at all): the geometric mean is 0
        return 0.0
    c, r = sum(map(len, hypotheses)), sum(map(len, references))   # total hypothesis and reference lengths
    precisions = torch.tensor(matches, dtype=torch.float64) / torch.tensor(totals, dtype=torch.float64)
    brevity_penalty = torch.tensor(1.0 if c >= r else math.exp(1 - r / c), dtype=torch.float64)
    return 100 * brevity_penalty * torch.exp(precisions.log().mean())
