"""Glues the corpus into one long hypothesis and one long reference: n-grams cross sentence boundaries."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    hyp = [w for sentence in hypotheses for w in sentence]
    ref = [w for sentence in references for w in sentence]
    log_sum = 0.0
    for n in range(1, max_n + 1):
        h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
        g = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
        matched = sum((h & g).values())
        if matched == 0:
            return 0.0
        log_sum += math.log(matched / sum(h.values()))
    bp = 1.0 if len(hyp) >= len(ref) else math.exp(1 - len(ref) / len(hyp))
    return 100 * bp * math.exp(log_sum / max_n)
