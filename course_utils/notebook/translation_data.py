"""A small, deterministic translation task for notebooks 07 and 08: English clauses -> German.

    source  the old man knows that the children wake up the big dog
    target  der alte mann weiß , dass die kinder den großen hund aufwecken

A toy grammar, but with the three things that make English -> German hard for a model that
copies word by word, and easy for one that attends:

- **reordering beyond neighbours**: German puts the verb at the *end* of a subordinate
  clause ("..., dass die kinder den großen hund aufwecken") and moves the particle of a
  separable verb to the end of a main clause ("die kinder wecken den großen hund auf");
- **agreement**: the article and the adjective ending depend on the noun's gender, on its
  number and on whether it is subject or object (der alte mann / den alten mann / die alten
  männer), the verb on the subject's number (weckt / wecken);
- **lexical ambiguity** that only the rest of the sentence resolves: "knows" is *kennt* before
  a noun and *weiß* before "that"; "wakes up" is *weckt ... auf* with an object and *wacht
  auf* without one.

Sentences nest: a clause can take another one ("... says that ...", "... because ..."), and
the *depth* of a sentence counts its embedded clauses. Depths 0 to 2 are split into train,
valid and test (80/10/10 % by a hash of the English sentence, so the splits are fixed and
disjoint for every sample). Depth 3 never appears in training: it is the **generalisation
split**, longer sentences than any in training, nested one level deeper.

Every example also carries its **word alignment** (`Example.alignment`): which English word(s)
each German word translates, known exactly because the grammar builds both sentences together.
German "," has no English word and is aligned to nothing. Notebook 08 holds the model's
cross-attention against it.

Notebook 08 also asks whether failures on the generalisation split come from the new depth or
from the new length; `ClauseTranslation.sample` draws the control sets that separate the two
(deeper sentences at training lengths; sentences of training depth made longer by stacking
adjectives, `max_adjectives`).

Everything is generated here from a seed: nothing is downloaded, every run sees the same
sentences. This module holds data handling only, no exercise answer.
"""
from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import torch

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)  # ids 0, 1, 2, 3 in every vocabulary
PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3

# English singular, English plural, German singular, German plural, German gender.
NOUNS = (
    ("dog", "dogs", "hund", "hunde", "m"),
    ("man", "men", "mann", "männer", "m"),
    ("teacher", "teachers", "lehrer", "lehrer", "m"),
    ("cat", "cats", "katze", "katzen", "f"),
    ("woman", "women", "frau", "frauen", "f"),
    ("mouse", "mice", "maus", "mäuse", "f"),
    ("child", "children", "kind", "kinder", "n"),
    ("horse", "horses", "pferd", "pferde", "n"),
    ("girl", "girls", "mädchen", "mädchen", "n"),
)
# English, German stem (ending added by agreement: der alte mann, den alten mann).
ADJECTIVES = (("big", "groß"), ("small", "klein"), ("old", "alt"), ("young", "jung"), ("fast", "schnell"))
# English 3rd person singular, plural; German singular, plural; separable particle ("" if none).
TRANSITIVE_VERBS = (
    ("sees", "see", "sieht", "sehen", ""),
    ("hears", "hear", "hört", "hören", ""),
    ("finds", "find", "findet", "finden", ""),
    ("likes", "like", "mag", "mögen", ""),
    ("knows", "know", "kennt", "kennen", ""),
    ("calls", "call", "ruft", "rufen", "an"),
    ("picks up", "pick up", "holt", "holen", "ab"),
    ("wakes up", "wake up", "weckt", "wecken", "auf"),
)
INTRANSITIVE_VERBS = (
    ("sleeps", "sleep", "schläft", "schlafen", ""),
    ("runs", "run", "läuft", "laufen", ""),
    ("laughs", "laugh", "lacht", "lachen", ""),
    ("wakes up", "wake up", "wacht", "wachen", "auf"),
)
# Verbs that take a clause ("that ..."); they never move, having no object.
CLAUSE_VERBS = (
    ("knows", "know", "weiß", "wissen", ""),
    ("says", "say", "sagt", "sagen", ""),
    ("thinks", "think", "denkt", "denken", ""),
    ("hopes", "hope", "hofft", "hoffen", ""),
)
_ARTICLES = {("nom", "m"): "der", ("nom", "f"): "die", ("nom", "n"): "das",
             ("acc", "m"): "den", ("acc", "f"): "die", ("acc", "n"): "das"}

SPLIT_NAMES = ("train", "valid", "test", "generalisation")
TRAIN_DEPTHS, GENERALISATION_DEPTH = (0, 1, 2), 3


@dataclass(frozen=True)
class NounPhrase:
    noun: tuple[str, str, str, str, str]
    plural: bool
    adjective: tuple[str, str] | None
    # Further adjectives after the first ("the big old dog"); only the length controls of
    # notebook 08 draw them (`max_adjectives` > 1), the four splits never do.
    more_adjectives: tuple[tuple[str, str], ...] = ()

    def _adjectives(self) -> list[tuple[str, str]]:
        return ([self.adjective] if self.adjective else []) + list(self.more_adjectives)

    def english(self) -> list[str]:
        return ["the", *(a[0] for a in self._adjectives()), self.noun[1 if self.plural else 0]]

    def german(self, case: str) -> list[str]:
        """Weak declension after the definite article: -e in the singular (but -en for a
        masculine object), -en in the plural; every adjective of the phrase takes the same ending.

        Word for word the same length and order as `english()`: article, adjectives, noun.
        """
        gender = self.noun[4]
        article = "die" if self.plural else _ARTICLES[case, gender]
        ending = "en" if self.plural or (case, gender) == ("acc", "m") else "e"
        return [article, *(a[1] + ending for a in self._adjectives()), self.noun[3 if self.plural else 2]]


def _verb_english(verb: tuple, plural: bool) -> list[str]:
    return verb[1 if plural else 0].split()


def _verb_german(verb: tuple, plural: bool, subordinate: bool) -> tuple[list[str], list[str]]:
    """(the verb where it stands in a main clause, what goes to the clause's end).

    Main clause: "weckt ... auf"; subordinate clause: "... aufweckt" (particle and verb
    written as one word, at the end).
    """
    form, particle = verb[3 if plural else 2], verb[4]
    if subordinate:
        return [], [particle + form]
    return [form], [particle] if particle else []


def _noun_phrase(rng: random.Random, max_adjectives: int = 1) -> NounPhrase:
    phrase = NounPhrase(rng.choice(NOUNS), rng.random() < 0.4,
                        rng.choice(ADJECTIVES) if rng.random() < 0.4 else None)
    # With max_adjectives == 1 no further draw happens: the four splits stay exactly as they were.
    if max_adjectives > 1 and phrase.adjective is not None:
        others = [a for a in ADJECTIVES if a != phrase.adjective]
        more = tuple(rng.sample(others, rng.randint(0, min(max_adjectives, len(ADJECTIVES)) - 1)))
        phrase = NounPhrase(phrase.noun, phrase.plural, phrase.adjective, more)
    return phrase


Alignment = tuple[tuple[int, int], ...]   # (target index, source index) pairs, sorted


def clause(rng: random.Random, depth: int, subordinate: bool = False) -> tuple[list[str], list[str]]:
    """One (English, German) clause with exactly `depth` clauses embedded in it.

    German word order: verb second in a main clause, verb last in a subordinate one. A
    clause that takes another is either "SUBJ says that ..." or "SUBJ VERB [OBJ] because ...".
    """
    english, german, _ = aligned_clause(rng, depth, subordinate)
    return english, german


def aligned_clause(rng: random.Random, depth: int, subordinate: bool = False,
                   max_adjectives: int = 1) -> tuple[list[str], list[str], Alignment]:
    """`clause`, with its word alignment: (German index, English index) for every pair of words
    that translate each other.

    Noun phrases align word for word (der-the, alte-old, mann-man); a verb's German form aligns
    with the English verb ("weckt"-"wakes"), a separated particle with the English particle
    ("auf"-"up", or "an"-"calls" where English has none), and the joined subordinate form with
    every English word of the verb ("aufweckt"-"wakes", "aufweckt"-"up"); "dass"-"that" and
    "weil"-"because". The comma before "dass"/"weil" translates no English word: it has no pair.
    It draws from `rng` exactly as `clause` always did, so the same seed gives the same sentences.
    """
    english: list[str] = []
    german: list[str] = []
    links: list[tuple[int, int]] = []

    def say(words: list[str]) -> list[int]:
        english.extend(words)
        return list(range(len(english) - len(words), len(english)))

    def write(words: list[str], sources: list[list[int]]) -> None:
        for word, positions in zip(words, sources, strict=True):
            links.extend((len(german), s) for s in positions)
            german.append(word)

    def phrase(np: NounPhrase, case: str) -> None:
        write(np.german(case), [[s] for s in say(np.english())])

    def verb_parts(verb: tuple, plural: bool) -> tuple[list[str], list[list[int]], list[str], list[list[int]]]:
        positions = say(_verb_english(verb, plural))
        middle, end = _verb_german(verb, plural, subordinate)
        if subordinate:
            return middle, [], end, [positions]
        return middle, [[positions[0]]], end, [[positions[-1]]] * len(end)

    def embed(connective: str, german_connective: str, inner: tuple[list[str], list[str], Alignment]) -> None:
        write([",", german_connective], [[], say([connective])])
        inner_en, inner_de, inner_links = inner
        links.extend((t + len(german), s + len(english)) for t, s in inner_links)
        english.extend(inner_en)
        german.extend(inner_de)

    subject = _noun_phrase(rng, max_adjectives)
    phrase(subject, "nom")
    if depth > 0 and rng.random() < 0.5:
        verb = rng.choice(CLAUSE_VERBS)
        inner = aligned_clause(rng, depth - 1, True, max_adjectives)
        middle, middle_sources, end, end_sources = verb_parts(verb, subject.plural)
        write(middle + end, middle_sources + end_sources)
        embed("that", "dass", inner)
        return english, german, tuple(sorted(links))
    transitive = rng.random() < 0.7
    verb = rng.choice(TRANSITIVE_VERBS if transitive else INTRANSITIVE_VERBS)
    obj = _noun_phrase(rng, max_adjectives) if transitive else None
    middle, middle_sources, end, end_sources = verb_parts(verb, subject.plural)
    write(middle, middle_sources)
    if obj:
        phrase(obj, "acc")
    write(end, end_sources)
    if depth > 0:
        embed("because", "weil", aligned_clause(rng, depth - 1, True, max_adjectives))
    return english, german, tuple(sorted(links))


def split_of(sentence: Iterable[str], valid_percent: int = 10, test_percent: int = 10) -> str:
    """'train', 'valid' or 'test' for an English sentence, from a hash of it alone (fixed, disjoint)."""
    return _split_of_key(_key(sentence), valid_percent, test_percent)


def _key(sentence: Iterable[str]) -> int:
    return int.from_bytes(hashlib.blake2b(" ".join(sentence).encode(), digest_size=8).digest(), "big")


def _split_of_key(key: int, valid_percent: int, test_percent: int) -> str:
    bucket = key % 100
    if bucket < test_percent:
        return "test"
    if bucket < test_percent + valid_percent:
        return "valid"
    return "train"


def english_words() -> list[str]:
    """Every English word of the grammar, in a fixed, readable order."""
    words = ["the", *(a for a, _ in ADJECTIVES)]
    words += [w for noun in NOUNS for w in noun[:2]]
    for verb in TRANSITIVE_VERBS + INTRANSITIVE_VERBS + CLAUSE_VERBS:
        words += verb[0].split() + verb[1].split()
    return list(dict.fromkeys(words + ["that", "because"]))


def german_words() -> list[str]:
    """Every German word of the grammar, in a fixed, readable order."""
    words = ["der", "die", "das", "den"]
    words += [stem + ending for _, stem in ADJECTIVES for ending in ("e", "en")]
    words += [w for noun in NOUNS for w in noun[2:4]]
    for verb in TRANSITIVE_VERBS + INTRANSITIVE_VERBS + CLAUSE_VERBS:
        words += [verb[2], verb[3]] + ([verb[4], verb[4] + verb[2], verb[4] + verb[3]] if verb[4] else [])
    return list(dict.fromkeys(words + [",", "dass", "weil"]))


def most_adjectives(example: Example) -> int:
    """The most adjectives that one noun phrase of the English sentence has (0, 1, or more in a
    control set drawn with `max_adjectives` > 1)."""
    adjectives, most, run = {a for a, _ in ADJECTIVES}, 0, 0
    for word in example.src:
        run = run + 1 if word in adjectives else 0
        most = max(most, run)
    return most


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
    key: int                 # a hash of the English sentence: identifies the example
    src: tuple[str, ...]     # English words
    tgt: tuple[str, ...]     # German words
    depth: int               # embedded clauses
    # (target index, source index) pairs of words that translate each other (see aligned_clause);
    # derived from the sentence, so it takes no part in comparing examples.
    alignment: Alignment = field(default=(), compare=False, repr=False)

    def alignment_matrix(self, eos: bool = False) -> torch.Tensor:
        """(len(tgt), len(src)) bool tensor, True where a German word translates an English word.

        With `eos`, one more row and column for the <eos> of each side, aligned with each other
        (the shape of a teacher-forced cross-attention map: rows predict tgt + <eos>, columns
        read src + <eos>). A row of False is a word with no English counterpart (",").
        """
        extra = 1 if eos else 0
        matrix = torch.zeros(len(self.tgt) + extra, len(self.src) + extra, dtype=torch.bool)
        for t, s in self.alignment:
            matrix[t, s] = True
        if eos:
            matrix[-1, -1] = True
        return matrix


@dataclass
class Batch:
    """A padded batch. `src` (B, Ls) ends with <eos>; `tgt` (B, Lt) is <bos> ... <eos>.

    Teacher forcing feeds `tgt_in = tgt[:, :-1]` and predicts `tgt_out = tgt[:, 1:]`.
    """
    src: torch.Tensor
    tgt: torch.Tensor
    keys: list[int] = field(default_factory=list)

    @property
    def tgt_in(self) -> torch.Tensor:
        return self.tgt[:, :-1]

    @property
    def tgt_out(self) -> torch.Tensor:
        return self.tgt[:, 1:]

    def to(self, device: torch.device | str) -> Batch:
        return Batch(self.src.to(device), self.tgt.to(device), self.keys)


def _sample(rng: random.Random, depths: tuple[int, ...], count: int, seen: set[int], max_adjectives: int = 1,
            keep: Callable[[Example], bool] | None = None) -> list[Example]:
    """`count` new distinct sentences, depths drawn uniformly from `depths` (and kept only if `keep` says so)."""
    examples, attempts = [], 0
    while len(examples) < count:
        attempts += 1
        if attempts > 50 * count + 1000:
            raise ValueError(f"found only {len(examples)} of {count} new sentences of depth {depths} in {attempts - 1} "
                             "draws: the grammar has too few of them, or `keep` rejects almost all; ask for fewer "
                             "or loosen `keep`")
        depth = rng.choice(depths)
        english, german, alignment = aligned_clause(rng, depth, max_adjectives=max_adjectives)
        key = _key(english)
        if key in seen:
            continue
        example = Example(key, tuple(english), tuple(german), depth, alignment)
        if keep is None or keep(example):
            seen.add(key)
            examples.append(example)
    return examples


class ClauseTranslation:
    """English -> German sentences of the toy grammar above, with four fixed splits.

    `num_examples` sentences of depth 0 to 2 (a third each) go into train, valid and test by a
    hash of the sentence (so a sentence's split never depends on the sample); another
    `num_generalisation` sentences of depth 3 make the generalisation split. The same
    arguments give the same sentences. The vocabularies hold every word of the grammar, so
    they are the same for every sample.
    """

    def __init__(self, num_examples: int = 20_000, num_generalisation: int = 1_000, seed: int = 0,
                 valid_percent: int = 10, test_percent: int = 10) -> None:
        if num_examples < 1 or num_generalisation < 0:
            raise ValueError("num_examples must be at least 1 and num_generalisation at least 0")
        rng, seen = random.Random(seed), set()
        self.splits: dict[str, list[Example]] = {name: [] for name in SPLIT_NAMES}
        for example in _sample(rng, TRAIN_DEPTHS, int(num_examples), seen):
            self.splits[_split_of_key(example.key, valid_percent, test_percent)].append(example)
        self.splits["generalisation"] = _sample(rng, (GENERALISATION_DEPTH,), int(num_generalisation), seen)
        self.src_vocab = Vocab(english_words())
        self.tgt_vocab = Vocab(german_words())
        self.pad_id, self.bos_id, self.eos_id = PAD_ID, BOS_ID, EOS_ID

    def sample(self, count: int, depths: Iterable[int], seed: int, max_adjectives: int = 1,
               keep: Callable[[Example], bool] | None = None) -> list[Example]:
        """`count` new sentences for a control set, none of them in any of the four splits.

        Depths are drawn uniformly from `depths`; `max_adjectives` > 1 lets a noun phrase that has
        an adjective take up to that many (distinct) ones, "the big old dog", a way to make
        sentences of training depth longer than any in training; `keep(example)` filters (e.g. by
        length). Seeded by `seed` alone and drawn from an rng of its own: the splits do not change,
        and the same arguments give the same sentences. Raises ValueError if `keep` rejects
        nearly every sentence.

            data.sample(200, depths=[3], seed=1, keep=lambda e: len(e.src) <= 26)   # deeper, not longer
        """
        depths = tuple(depths)
        if count < 0 or not depths or any(d < 0 for d in depths) or max_adjectives < 1:
            raise ValueError("count must be at least 0, depths a non-empty list of depths >= 0 and "
                             "max_adjectives at least 1")
        seen = {e.key for split in self.splits.values() for e in split}
        return _sample(random.Random(seed), depths, int(count), seen, max_adjectives, keep)

    @property
    def train(self) -> list[Example]:
        return self.splits["train"]

    @property
    def valid(self) -> list[Example]:
        return self.splits["valid"]

    @property
    def test(self) -> list[Example]:
        return self.splits["test"]

    @property
    def generalisation(self) -> list[Example]:
        return self.splits["generalisation"]

    def __repr__(self) -> str:
        sizes = ", ".join(f"{k} {len(v)}" for k, v in self.splits.items())
        return (f"ClauseTranslation({sizes}; "
                f"src vocab {len(self.src_vocab)}, tgt vocab {len(self.tgt_vocab)})")

    def max_lengths(self) -> dict[str, tuple[int, int]]:
        """Per split, the longest (source, target) sentence in words."""
        return {name: (max((len(e.src) for e in split), default=0), max((len(e.tgt) for e in split), default=0))
                for name, split in self.splits.items()}

    def collate(self, examples: list[Example], device: torch.device | str | None = None) -> Batch:
        """Pad a list of examples into a Batch of LongTensors (pad id 0)."""
        src = [self.src_vocab.encode(e.src, bos=False, eos=True) for e in examples]
        tgt = [self.tgt_vocab.encode(e.tgt, bos=True, eos=True) for e in examples]
        return Batch(_pad(src, device), _pad(tgt, device), [e.key for e in examples])

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

    def encode_source(self, sentences: Iterable[str | list[str]],
                      device: torch.device | str | None = None) -> torch.Tensor:
        """(B, Ls) source batch for English sentences (strings or word lists)."""
        rows = [s.split() if isinstance(s, str) else list(s) for s in sentences]
        return _pad([self.src_vocab.encode(r) for r in rows], device)


def _pad(rows: list[list[int]], device: torch.device | str | None = None) -> torch.Tensor:
    width = max(len(r) for r in rows)
    out = torch.full((len(rows), width), PAD_ID, dtype=torch.long)
    for i, r in enumerate(rows):
        out[i, :len(r)] = torch.tensor(r, dtype=torch.long)
    return out.to(device) if device is not None else out
