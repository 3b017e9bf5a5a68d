"""The number-translation data set of notebook 07 (German number words -> English)."""
import pytest
import torch
from num2words import num2words

from course_utils.notebook import translation_data as td
from course_utils.notebook.translation_data import NumberTranslation, Vocab


def test_num2words_is_the_pinned_version():
    from importlib.metadata import version

    assert version("num2words") == "0.5.14", "the data (and the notebook's figures) assume num2words 0.5.14"


@pytest.mark.parametrize("n, pieces, words", [
    (0, ["null"], ["zero"]),
    (1, ["eins"], ["one"]),
    (17, ["siebzehn"], ["seventeen"]),
    (54, ["vier", "und", "fünfzig"], ["fifty", "four"]),
    (101, ["ein", "hundert", "eins"], ["one", "hundred", "and", "one"]),
    (54321, ["vier", "und", "fünfzig", "tausend", "drei", "hundert", "ein", "und", "zwanzig"],
     ["fifty", "four", "thousand", "three", "hundred", "and", "twenty", "one"]),
])
def test_tokens_of_known_numbers(n, pieces, words):
    assert td.german_tokens(n) == pieces
    assert td.english_tokens(n) == words


def test_split_german_covers_the_range_and_rejects_junk():
    for n in list(range(0, 1200)) + list(range(1200, 1_000_000, 997)) + [999_999]:
        pieces = td.split_german(num2words(n, lang="de"))
        assert "".join(pieces) == num2words(n, lang="de")
        assert set(pieces) <= set(td.GERMAN_MORPHEMES)
        assert set(td.english_tokens(n)) <= set(td.ENGLISH_WORDS)
    with pytest.raises(ValueError, match="cannot split"):
        td.split_german("einemillion")


def test_reordering_is_needed():
    # German units come before the tens; English tens come first: a monotone copy cannot work.
    src, tgt = td.german_tokens(54), td.english_tokens(54)
    assert src.index("vier") < src.index("fünfzig")
    assert tgt.index("fifty") < tgt.index("four")
    swapped = sum(1 for n in range(21, 100) if n % 10 and td.german_tokens(n)[1] == "und")
    assert swapped == 72  # every two-digit number from 21 on with a unit digit


def test_generation_is_deterministic_and_splits_are_fixed_and_disjoint():
    a = NumberTranslation(max_number=999_999, num_examples=3000, seed=0)
    b = NumberTranslation(max_number=999_999, num_examples=3000, seed=0)
    assert a.splits == b.splits
    numbers = {name: {e.number for e in a.splits[name]} for name in td.SPLIT_NAMES}
    assert not (numbers["train"] & numbers["valid"]) and not (numbers["train"] & numbers["test"])
    assert not (numbers["valid"] & numbers["test"])
    assert sum(map(len, numbers.values())) == 3000
    assert 0.7 < len(numbers["train"]) / 3000 < 0.9
    # A number's split does not depend on the sample it was drawn in.
    other = NumberTranslation(max_number=999_999, num_examples=3000, seed=1)
    for name in td.SPLIT_NAMES:
        assert all(td.split_of(e.number) == name for e in other.splits[name])
    full = NumberTranslation(max_number=999)
    assert sum(len(v) for v in full.splits.values()) == 1000


def test_vocab_specials_and_round_trip():
    data = NumberTranslation(max_number=9999, num_examples=500)
    for vocab in (data.src_vocab, data.tgt_vocab):
        assert vocab.itos[:4] == ["<pad>", "<bos>", "<eos>", "<unk>"]
        assert (vocab.pad_id, vocab.bos_id, vocab.eos_id, vocab.unk_id) == (0, 1, 2, 3)
    assert len(data.src_vocab) == 4 + len(td.GERMAN_MORPHEMES)
    assert len(data.tgt_vocab) == 4 + len(td.ENGLISH_WORDS)
    for e in data.train[:50]:
        ids = data.tgt_vocab.encode(e.tgt, bos=True, eos=True)
        assert ids[0] == 1 and ids[-1] == 2
        assert data.tgt_vocab.decode(ids + [0, 0]) == list(e.tgt)
        assert data.src_vocab.decode(torch.tensor(data.src_vocab.encode(e.src))) == list(e.src)
    assert Vocab(["a"]).encode(["b"], eos=False) == [3]


def test_batches_pad_sort_by_length_and_shuffle_reproducibly():
    data = NumberTranslation(max_number=999_999, num_examples=2000)
    batches = data.batches("train", 32)
    assert sum(b.src.shape[0] for b in batches) == len(data.train)
    lengths = [b.src.shape[1] for b in batches]
    assert lengths == sorted(lengths)  # unshuffled: by length
    for b in batches:
        assert b.src.dtype == torch.long and b.tgt.dtype == torch.long
        assert bool((b.tgt[:, 0] == 1).all())
        assert torch.equal(b.tgt_in, b.tgt[:, :-1]) and torch.equal(b.tgt_out, b.tgt[:, 1:])
        # every row has exactly one <eos>, followed only by padding
        for row in list(b.src) + list(b.tgt):
            eos = (row == 2).nonzero().flatten()
            assert len(eos) == 1 and bool((row[eos[0] + 1:] == 0).all())
        # little padding: batching by length keeps source lengths within a batch close
        src_lengths = (b.src != 0).sum(1)
        assert int(src_lengths.max() - src_lengths.min()) <= 2
    one = [b.numbers for b in data.batches("train", 32, shuffle=True, seed=5)]
    two = [b.numbers for b in data.batches("train", 32, shuffle=True, seed=5)]
    three = [b.numbers for b in data.batches("train", 32, shuffle=True, seed=6)]
    assert one == two and one != three
    assert sorted(n for b in one for n in b) == sorted(e.number for e in data.train)


def test_encode_source_and_range_check():
    data = NumberTranslation(max_number=99, num_examples=10)
    src = data.encode_source([54, 7])
    assert src.shape == (2, 4)
    assert data.src_vocab.decode(src[0]) == ["vier", "und", "fünfzig"]
    assert data.src_vocab.decode(src[1]) == ["sieben"] and src[1, -2:].tolist() == [0, 0]
    with pytest.raises(ValueError):
        NumberTranslation(max_number=1_000_000)
