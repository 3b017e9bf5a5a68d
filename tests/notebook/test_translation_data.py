"""The translation task of notebook 07 (English clauses -> German), checked against German grammar."""
import random

import pytest
import torch

from course_utils.notebook import translation_data as td
from course_utils.notebook.translation_data import ClauseTranslation, NounPhrase, Vocab


@pytest.fixture(scope="module")
def data():
    return ClauseTranslation(num_examples=3000, num_generalisation=300, seed=0)


def _np(noun, plural=False, adjective=None):
    return NounPhrase(next(n for n in td.NOUNS if n[0] == noun), plural,
                      next(a for a in td.ADJECTIVES if a[0] == adjective) if adjective else None)


@pytest.mark.parametrize("phrase, case, german", [
    (_np("man", adjective="old"), "nom", "der alte mann"),
    (_np("man", adjective="old"), "acc", "den alten mann"),
    (_np("man", True, "old"), "acc", "die alten männer"),
    (_np("cat", adjective="small"), "acc", "die kleine katze"),
    (_np("child", adjective="big"), "acc", "das große kind"),
    (_np("girl", True), "nom", "die mädchen"),
])
def test_articles_and_adjective_endings_agree(phrase, case, german):
    assert " ".join(phrase.german(case)) == german


def test_verbs_move_as_german_word_order_wants(data):
    for e in data.train + data.generalisation:
        english, german = " ".join(e.src), " ".join(e.tgt)
        # a subordinate clause ends with its verb: nothing but "," follows a joined separable verb
        for i, word in enumerate(e.tgt):
            if word in {"anruft", "anrufen", "abholt", "abholen", "aufweckt", "aufwecken", "aufwacht", "aufwachen"}:
                assert i + 1 == len(e.tgt) or e.tgt[i + 1] == ",", german
        # "knows" is "weiß"/"wissen" before "that", "kennt"/"kennen" before a noun
        for i, word in enumerate(e.src[:-1]):
            if word in {"knows", "know"}:
                clause_verb = e.src[i + 1] == "that"
                assert (("weiß" in e.tgt or "wissen" in e.tgt) if clause_verb
                        else ("kennt" in e.tgt or "kennen" in e.tgt)), english
        assert e.tgt.count("dass") == e.src.count("that") and e.tgt.count("weil") == e.src.count("because")
        assert e.tgt.count(",") == e.depth == e.src.count("that") + e.src.count("because")


def test_known_sentences():
    rng = random.Random(0)
    seen = {}
    for _ in range(20_000):
        english, german = td.clause(rng, rng.choice((0, 1)))
        seen[" ".join(english)] = " ".join(german)
    # whichever of these the sample drew must be translated exactly like this
    known = {
        "the dog wakes up the cat": "der hund weckt die katze auf",
        "the dog wakes up": "der hund wacht auf",
        "the dogs know the man": "die hunde kennen den mann",
        "the woman knows that the dog sleeps": "die frau weiß , dass der hund schläft",
        "the man laughs because the child calls the cats": "der mann lacht , weil das kind die katzen anruft",
    }
    found = [s for s in known if s in seen]
    assert found, "none of the known sentences drawn: the grammar changed"
    for sentence in found:
        assert seen[sentence] == known[sentence]


def test_generation_is_deterministic_and_splits_are_fixed_and_disjoint(data):
    again = ClauseTranslation(num_examples=3000, num_generalisation=300, seed=0)
    assert again.splits == data.splits
    keys = {name: {e.key for e in data.splits[name]} for name in td.SPLIT_NAMES}
    for a in td.SPLIT_NAMES:
        for b in td.SPLIT_NAMES:
            assert a == b or not (keys[a] & keys[b])
    assert sum(len(keys[n]) for n in ("train", "valid", "test")) == 3000 and len(keys["generalisation"]) == 300
    assert 0.7 < len(keys["train"]) / 3000 < 0.9
    assert {e.depth for n in ("train", "valid", "test") for e in data.splits[n]} == set(td.TRAIN_DEPTHS)
    assert {e.depth for e in data.generalisation} == {td.GENERALISATION_DEPTH}
    # a sentence's split does not depend on the sample it was drawn in
    other = ClauseTranslation(num_examples=3000, num_generalisation=10, seed=1)
    for name in ("train", "valid", "test"):
        assert all(td.split_of(e.src) == name for e in other.splits[name])
    assert other.splits != data.splits


def test_the_generalisation_split_is_longer(data):
    lengths = data.max_lengths()
    assert lengths["generalisation"][0] > lengths["train"][0] and lengths["generalisation"][1] > lengths["train"][1]


def test_vocab_specials_cover_the_grammar_and_round_trip(data):
    for vocab in (data.src_vocab, data.tgt_vocab):
        assert vocab.itos[:4] == ["<pad>", "<bos>", "<eos>", "<unk>"]
        assert (vocab.pad_id, vocab.bos_id, vocab.eos_id, vocab.unk_id) == (0, 1, 2, 3)
    for e in data.train + data.generalisation:
        assert data.src_vocab.unk_id not in data.src_vocab.encode(e.src)
        assert data.tgt_vocab.unk_id not in data.tgt_vocab.encode(e.tgt)
    for e in data.train[:50]:
        ids = data.tgt_vocab.encode(e.tgt, bos=True, eos=True)
        assert ids[0] == 1 and ids[-1] == 2
        assert data.tgt_vocab.decode(ids + [0, 0]) == list(e.tgt)
        assert data.src_vocab.decode(torch.tensor(data.src_vocab.encode(e.src))) == list(e.src)
    assert Vocab(["a"]).encode(["b"], eos=False) == [3]


def test_batches_pad_sort_by_length_and_shuffle_reproducibly(data):
    batches = data.batches("train", 32)
    assert sum(b.src.shape[0] for b in batches) == len(data.train)
    lengths = [b.src.shape[1] for b in batches]
    assert lengths == sorted(lengths)  # unshuffled: by length
    for b in batches:
        assert b.src.dtype == torch.long and b.tgt.dtype == torch.long
        assert bool((b.tgt[:, 0] == 1).all())
        assert torch.equal(b.tgt_in, b.tgt[:, :-1]) and torch.equal(b.tgt_out, b.tgt[:, 1:])
        for row in list(b.src) + list(b.tgt):  # exactly one <eos>, followed only by padding
            eos = (row == 2).nonzero().flatten()
            assert len(eos) == 1 and bool((row[eos[0] + 1:] == 0).all())
        src_lengths = (b.src != 0).sum(1)
        assert int(src_lengths.max() - src_lengths.min()) <= 2  # the last batch holds the rare long ones
    one = [b.keys for b in data.batches("train", 32, shuffle=True, seed=5)]
    two = [b.keys for b in data.batches("train", 32, shuffle=True, seed=5)]
    three = [b.keys for b in data.batches("train", 32, shuffle=True, seed=6)]
    assert one == two and one != three
    assert sorted(k for b in one for k in b) == sorted(e.key for e in data.train)


def test_encode_source_and_bad_sizes(data):
    src = data.encode_source(["the dog sleeps", ["the", "cats", "wake", "up"]])
    assert src.shape == (2, 5)
    assert data.src_vocab.decode(src[0]) == ["the", "dog", "sleeps"] and src[0, -1].item() == 0
    with pytest.raises(ValueError):
        ClauseTranslation(num_examples=0)
