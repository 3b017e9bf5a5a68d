"""Pooled precisions, but the brevity penalty averaged over sentences instead of taken from total lengths."""
from collections import Counter
import math


def corpus_bleu(hypotheses, references, max_n=4):
    matches, totals, penalties = [0] * max_n, [0] * max_n, []
    for hyp, ref in zip(hypotheses, references):
        if len(hyp) >= len(ref):
            penalties.append(1.0)
        else:
            penalties.append(math.exp(1 - len(ref) / len(hyp)) if hyp else 0.0)
        for n in range(1, max_n + 1):
            h = Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            g = Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            matches[n - 1] += sum((h & g).values())
            totals[n - 1] += sum(h.values())
    if min(matches) == 0:
        return 0.0
    bp = sum(penalties) / len(penalties)
    return 100 * bp * math.exp(sum(math.log(m / t) for m, t in zip(matches, totals)) / max_n)
