"""The mean of sentence-level BLEU scores instead of one BLEU from counts pooled over the corpus."""
from collections import Counter
import math


def sentence_bleu(hyp, ref, max_n):
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


def corpus_bleu(hypotheses, references, max_n=4):
    scores = [sentence_bleu(h, r, max_n) for h, r in zip(hypotheses, references)]
    return sum(scores) / len(scores)
