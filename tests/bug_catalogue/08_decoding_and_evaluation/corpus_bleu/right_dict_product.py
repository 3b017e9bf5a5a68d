"""Plain dicts for the counts, and the product of the precisions to the power 1 / max_n."""
import math


def corpus_bleu(hypotheses, references, max_n=4):
    correct = {n: 0 for n in range(1, max_n + 1)}
    total = {n: 0 for n in range(1, max_n + 1)}
    for hyp, ref in zip(hypotheses, references):
        for n in range(1, max_n + 1):
            ref_counts = {}
            for i in range(len(ref) - n + 1):
                gram = tuple(ref[i:i + n])
                ref_counts[gram] = ref_counts.get(gram, 0) + 1
            hyp_counts = {}
            for i in range(len(hyp) - n + 1):
                gram = tuple(hyp[i:i + n])
                hyp_counts[gram] = hyp_counts.get(gram, 0) + 1
            for gram, count in hyp_counts.items():
                correct[n] += min(count, ref_counts.get(gram, 0))
                total[n] += count
    product = 1.0
    for n in range(1, max_n + 1):
        if correct[n] == 0:
            return 0.0
        product *= correct[n] / total[n]
    c = sum(len(h) for h in hypotheses)
    r = sum(len(x) for x in references)
    brevity = math.exp(1 - r / c) if c < r else 1.0
    return float(100 * brevity * product ** (1 / max_n))
