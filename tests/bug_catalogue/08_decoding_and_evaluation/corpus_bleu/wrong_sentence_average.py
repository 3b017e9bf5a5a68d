"""The mean of sentence-level BLEU scores instead of one BLEU from counts pooled over the corpus."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    scores = []
    for hypothesis, reference in zip(hypotheses, references):
        log_sum = 0.0
        for n in range(1, max_n + 1):
            h = ngram_counts(hypothesis, n)
            matched = sum((h & ngram_counts(reference, n)).values())
            if matched == 0:
                log_sum = None
                break
            log_sum += math.log(matched / sum(h.values()))
        if log_sum is None:
            scores.append(0.0)
            continue
        c, r = len(hypothesis), len(reference)
        brevity_penalty = 1.0 if c >= r else math.exp(1 - r / c)
        scores.append(100 * brevity_penalty * math.exp(log_sum / max_n))
    return sum(scores) / len(scores)
