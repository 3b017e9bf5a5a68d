"""A small, deterministic translation task for notebook 07: German number words -> English.

    source  "vierundfünfzigtausenddreihunderteinundzwanzig"
            -> ["vier", "und", "fünfzig", "tausend", "drei", "hundert", "ein", "und", "zwanzig"]
    target  "fifty-four thousand, three hundred and twenty-one"
            -> ["fifty", "four", "thousand", "three", "hundred", "and", "twenty", "one"]

German says the units before the tens ("vier und fünfzig" = "four and fifty"), English the
other way round, so a model must *reorder* words, and the English "and" after "hundred" has
no German counterpart: a word-by-word copy cannot solve it, cross-attention can.

Both sides are generated with `num2words` (pinned at 0.5.14), so nothing is downloaded at
run time and every run sees the same sentences. Which split (train, valid, test) a number
belongs to depends only on the number (a hash), so the splits are fixed and disjoint for
every range and sample size.

This module holds data handling only, no exercise answer.
"""
from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import torch
from num2words import num2words

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)  # ids 0, 1, 2, 3 in every vocabulary
PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3

# The German pieces a number word is glued from. Teens are one piece ("siebzehn"), as are
# the tens ("siebzig"); "ein" is the prefix form (einhundert, einundzwanzig), "eins" the
# final one (einhunderteins).
GERMAN_MORPHEMES = (
    "null", "ein", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun",
    "zehn", "elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn",
    "achtzehn", "neunzehn", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig",
    "achtzig", "neunzig", "hundert", "tausend", "und",
)
_BY_LENGTH = sorted(GERMAN_MORPHEMES, key=len, reverse=True)
# Every English word num2words uses for 0..999999, in a fixed, readable order.
ENGLISH_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    "hundred", "thousand", "and",
)
SPLIT_NAMES = ("train", "valid", "test")


def split_german(word: str) -> list[str]:
    """Split a German number word into morphemes, greedily taking the longest piece that fits.

    >>> split_german("vierundfünfzig")
    ['vier', 'und', 'fünfzig']
    """
    pieces, i = [], 0
    while i < len(word):
        for piece in _BY_LENGTH:
            if word.startswith(piece, i):
                pieces.append(piece)
                i += len(piece)
                break
        else:
            raise ValueError(f"cannot split {word!r} at position {i} ({word[i:]!r}) into number morphemes")
    return pieces


def german_tokens(n: int) -> list[str]:
    """Source tokens of the number n: German number word split into morphemes."""
    return split_german(num2words(int(n), lang="de"))


def english_tokens(n: int) -> list[str]:
    """Target tokens of the number n: English number words, hyphens split, commas dropped."""
    return num2words(int(n), lang="en").replace("-", " ").replace(",", " ").split()


def split_of(n: int, valid_percent: int = 10, test_percent: int = 10) -> str:
    """'train', 'valid' or 'test' for the number n, from a hash of n alone (fixed, disjoint)."""
    bucket = int.from_bytes(hashlib.blake2b(str(int(n)).encode(), digest_size=8).digest(), "big") % 100
    if bucket < test_percent:
        return "test"
    if bucket < test_percent + valid_percent:
        return "valid"
    return "train"


def balanced_sample(max_number: int, num_examples: int, seed: int = 0) -> list[int]:
    """`num_examples` distinct numbers in [0, max_number], as balanced by length as possible.

    A uniform draw from 0..999999 is 90 % six-digit numbers, and a model trained on it rarely
    sees a short number. Here each count of digits gets an equal share of the sample; a length
    with fewer numbers than its share (0-9, 10-99, ...) is taken whole and the rest of its share
    goes to the longer ones. Sorted, and the same for the same arguments.
    """
    rng = random.Random(seed)
    strata, low = [], 0
    while low <= max_number:
        high = min(max(10 * low, 10) - 1, max_number)
        strata.append(range(low, high + 1))
        low = high + 1
    chosen, remaining = [], num_examples
    for i, stratum in enumerate(strata):
        take = min(remaining // (len(strata) - i), len(stratum))
        chosen.extend(rng.sample(stratum, take))
        remaining -= take
    return sorted(chosen)


class Vocab:
    """Token <-> id maps. Ids 0-3 are <pad>, <bos>, <eos>, <unk>; the others follow in order."""

    def __init__(self, tokens: Iterable[str]) -> None:
        words = [t for t in dict.fromkeys(tokens) if t not in SPECIALS]
        self.itos = list(SPECIALS) + words
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        self.pad_id, self.bos_id, self.eos_id, self.unk_id = PAD_ID, BOS_ID, EOS_ID, UNK_ID

    def __len__(self) -> int:
        return len(self.itos)

    def __repr__(self) -> str:
        return f"Vocab({len(self)} tokens: {' '.join(self.itos[:12])} ...)"

    def encode(self, tokens: Iterable[str], bos: bool = False, eos: bool = True) -> list[int]:
        ids = [self.stoi.get(t, self.unk_id) for t in tokens]
        return ([self.bos_id] if bos else []) + ids + ([self.eos_id] if eos else [])

    def decode(self, ids: Iterable[int] | torch.Tensor) -> list[str]:
        """Tokens of a sequence of ids: <bos> and <pad> skipped, stops at the first <eos>."""
        if hasattr(ids, "tolist"):
            ids = ids.tolist()
        out = []
        for i in ids:
            i = int(i)
            if i == self.eos_id:
                break
            if i in (self.pad_id, self.bos_id):
                continue
            out.append(self.itos[i] if 0 <= i < len(self.itos) else UNK)
        return out


@dataclass(frozen=True)
class Example:
    number: int
    src: tuple[str, ...]  # German morphemes
    tgt: tuple[str, ...]  # English words


@dataclass
class Batch:
    """A padded batch. `src` (B, Ls) ends with <eos>; `tgt` (B, Lt) is <bos> ... <eos>.

    Teacher forcing feeds `tgt_in = tgt[:, :-1]` and predicts `tgt_out = tgt[:, 1:]`.
    """
    src: torch.Tensor
    tgt: torch.Tensor
    numbers: list[int] = field(default_factory=list)

    @property
    def tgt_in(self) -> torch.Tensor:
        return self.tgt[:, :-1]

    @property
    def tgt_out(self) -> torch.Tensor:
        return self.tgt[:, 1:]

    def to(self, device: torch.device | str) -> Batch:
        return Batch(self.src.to(device), self.tgt.to(device), self.numbers)


@lru_cache(maxsize=None)
def _example(n: int) -> Example:
    return Example(int(n), tuple(german_tokens(n)), tuple(english_tokens(n)))


class NumberTranslation:
    """German number words -> English number words for numbers in [0, max_number].

    `num_examples=None` takes every number in the range; otherwise a sample drawn with
    `seed`, balanced by number length (see `balanced_sample`); the split of a number never
    depends on the sample. The vocabularies hold
    every morpheme / word of the whole range, so they are the same for every sample.
    """

    def __init__(self, max_number: int = 999_999, num_examples: int | None = None, seed: int = 0,
                 valid_percent: int = 10, test_percent: int = 10) -> None:
        if max_number < 0 or max_number > 999_999:
            raise ValueError("max_number must lie in [0, 999999] (the German morphemes stop at 'tausend')")
        self.max_number = int(max_number)
        population = range(self.max_number + 1)
        if num_examples is None or num_examples >= len(population):
            numbers = list(population)
        else:
            numbers = balanced_sample(self.max_number, int(num_examples), seed)
        self.splits = {name: [] for name in SPLIT_NAMES}
        for n in numbers:
            self.splits[split_of(n, valid_percent, test_percent)].append(_example(n))
        self.src_vocab = Vocab(GERMAN_MORPHEMES)
        self.tgt_vocab = Vocab(ENGLISH_WORDS)
        self.pad_id, self.bos_id, self.eos_id = PAD_ID, BOS_ID, EOS_ID

    @property
    def train(self) -> list[Example]:
        return self.splits["train"]

    @property
    def valid(self) -> list[Example]:
        return self.splits["valid"]

    @property
    def test(self) -> list[Example]:
        return self.splits["test"]

    def __repr__(self) -> str:
        sizes = ", ".join(f"{k} {len(v)}" for k, v in self.splits.items())
        return (f"NumberTranslation(0..{self.max_number}: {sizes}; "
                f"src vocab {len(self.src_vocab)}, tgt vocab {len(self.tgt_vocab)})")

    def collate(self, examples: list[Example], device: torch.device | str | None = None) -> Batch:
        """Pad a list of examples into a Batch of LongTensors (pad id 0)."""
        src = [self.src_vocab.encode(e.src, bos=False, eos=True) for e in examples]
        tgt = [self.tgt_vocab.encode(e.tgt, bos=True, eos=True) for e in examples]
        return Batch(_pad(src, device), _pad(tgt, device), [e.number for e in examples])

    def batches(self, split: str | list[Example], batch_size: int, shuffle: bool = False, seed: int = 0,
                device: torch.device | str | None = None) -> list[Batch]:
        """Batches of examples of similar length (less padding), as a list of Batch.

        Examples are sorted by (source length, target length) and cut into batches; with
        `shuffle`, the examples are shuffled first within each length (seeded) and the order
        of the batches is shuffled too, so every epoch sees the same lengths together but
        in a new order.
        """
        examples = list(self.splits[split] if isinstance(split, str) else split)
        rng = random.Random(seed)
        if shuffle:
            rng.shuffle(examples)
        examples.sort(key=lambda e: (len(e.src), len(e.tgt)))  # stable: keeps the shuffle within a length
        chunks = [examples[i:i + batch_size] for i in range(0, len(examples), batch_size)]
        if shuffle:
            rng.shuffle(chunks)
        return [self.collate(chunk, device) for chunk in chunks]

    def encode_source(self, numbers_or_tokens: Iterable[int | list[str]],
                      device: torch.device | str | None = None) -> torch.Tensor:
        """(B, Ls) source batch for numbers (ints) or German token lists."""
        rows = [german_tokens(x) if isinstance(x, int) else list(x) for x in numbers_or_tokens]
        return _pad([self.src_vocab.encode(r) for r in rows], device)


def _pad(rows: list[list[int]], device: torch.device | str | None = None) -> torch.Tensor:
    width = max(len(r) for r in rows)
    out = torch.full((len(rows), width), PAD_ID, dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, :len(r)] = torch.tensor(r, dtype=torch.long)
    return out.to(device) if device is not None else out
