"""The listening sessions of notebook 10: seeded, split as SASRec does, and true to their own next-item law."""
import time

import numpy as np
import pytest
import torch

from course_utils.notebook.listening import PAD_ID, ListeningSessions


@pytest.fixture(scope="module")
def data():
    return ListeningSessions(num_users=1500, seed=3)


def test_same_arguments_give_the_same_sessions_and_another_seed_others(data):
    again = ListeningSessions(num_users=1500, seed=3)
    assert again.sessions == data.sessions
    assert ListeningSessions(num_users=1500, seed=4).sessions != data.sessions


def test_leave_last_out_splits(data):
    for session, train, valid_prefix, valid_target, test_prefix, test_target in zip(
            data.sessions, data.train, data.valid.prefixes, data.valid.targets, data.test.prefixes, data.test.targets):
        assert train == session[:-2] and len(train) >= 1
        assert valid_prefix + [valid_target] == test_prefix and test_prefix + [test_target] == session
    assert all(1 <= item <= data.num_items for session in data.sessions for item in session), "0 is padding only"


def test_the_structure_is_there(data):
    """Albums play in order, popularity is skewed, sessions repeat items and change genre."""
    steps = [(a, b) for s in data.sessions for a, b in zip(s, s[1:])]
    in_order = sum(data.tracks[b].album == data.tracks[a].album and data.tracks[b].number == data.tracks[a].number + 1
                   for a, b in steps)
    assert 0.4 < in_order / len(steps) < 0.8
    counts = np.bincount([i for s in data.sessions for i in s], minlength=data.num_items + 1)[1:]
    top = np.sort(counts)[::-1]
    assert top[:len(top) // 10].sum() > 0.3 * top.sum(), "a tenth of the items should take a large share of plays"
    repeats = sum(b in s[:i] for s in data.sessions for i, b in enumerate(s) if i)
    assert repeats > 0.02 * len(steps)
    genre_changes = sum(data.tracks[a].genre != data.tracks[b].genre for a, b in steps)
    assert genre_changes > 0.05 * len(steps)


def test_next_item_probs_is_a_distribution_over_real_items(data):
    for prefix in data.test.prefixes[:50]:
        probs = data.next_item_probs(prefix)
        assert probs.shape == (data.num_items + 1,) and probs[PAD_ID] == 0
        assert np.all(probs >= 0) and abs(probs.sum() - 1) < 1e-9
    with pytest.raises(ValueError, match="at least one play"):
        data.next_item_probs([])


def test_the_sessions_follow_next_item_probs(data):
    """If the sampler draws from next_item_probs, then for every play: E[p(drawn item)] = sum p^2, and the
    summed probabilities of each item predict how often it is played. Both hold within sampling noise."""
    drawn, expected, item_expected = [], [], np.zeros(data.num_items + 1)
    item_observed = np.zeros(data.num_items + 1)
    for session in data.sessions[:600]:
        for i in range(1, len(session)):
            probs = data.next_item_probs(session[:i])
            drawn.append(probs[session[i]])
            expected.append((probs ** 2).sum())
            item_expected += probs
            item_observed[session[i]] += 1
    drawn, expected = np.array(drawn), np.array(expected)
    noise = np.sqrt(((drawn - expected) ** 2).sum())
    assert abs((drawn - expected).sum()) < 5 * noise
    z = (item_observed - item_expected)[1:] / np.sqrt(item_expected[1:] + 1)
    assert np.abs(z).max() < 5.5, "some item is played far more or less often than next_item_probs says"


KINDS = ("repeat", "next track", "same album", "same artist", "same genre", "home genre", "neighbour genre", "other")


def _kinds(data, prefix):
    """What each item would be as the next play after `prefix`: an index into KINDS (first that applies)."""
    last, home = data.tracks[prefix[-1]], data.tracks[prefix[0]].genre
    kinds = []
    for track in data.tracks[1:]:
        ring = (track.genre - last.genre) % data.num_genres
        kinds.append(next(i for i, applies in enumerate((
            track.item in prefix[:-1] and track.item != last.item,
            track.album == last.album and track.number == last.number + 1,
            track.album == last.album, track.artist == last.artist, track.genre == last.genre,
            track.genre == home, ring in (1, data.num_genres - 1), True)) if applies))
    return np.array(kinds)


def test_each_kind_of_next_play_is_as_frequent_as_next_item_probs_says(data):
    """Summed over plays, the probability next_item_probs gives each kind of move (a repeat, the next track, a
    return to the session's first genre, ...) predicts how often the sessions make it: the home-genre memory and
    the drift are in the law, not only in the sampler."""
    observed, expected = np.zeros(len(KINDS)), np.zeros(len(KINDS))
    for session in data.sessions[:300]:
        for i in range(1, len(session)):
            kinds = _kinds(data, session[:i])
            expected += np.bincount(kinds, weights=data.next_item_probs(session[:i])[1:], minlength=len(KINDS))
            observed[kinds[session[i] - 1]] += 1
    z = (observed - expected) / np.sqrt(expected + 1)
    assert np.abs(z).max() < 5, dict(zip(KINDS, z.round(1)))


def test_the_oracle_ranks_the_test_targets_well(data):
    scores = data.true_scores(data.test.prefixes[:500])
    targets = torch.tensor(data.test.targets[:500])
    rank = (scores > scores.gather(1, targets[:, None])).sum(1) + 1
    popular = torch.tensor(np.bincount([i for s in data.train for i in s], minlength=data.num_items + 1))
    popular_rank = (popular[None, :] > popular[targets][:, None]).sum(1) + 1
    assert (rank <= 10).float().mean() > 0.6 > (popular_rank <= 10).float().mean()


def test_left_pad_and_played_mask():
    padded = ListeningSessions.left_pad([[5, 6, 7], [8], [1, 2, 3, 4, 5, 6]], 4)
    assert padded.tolist() == [[0, 5, 6, 7], [0, 0, 0, 8], [3, 4, 5, 6]]
    data = ListeningSessions(num_users=5, seed=0)
    mask = data.played_mask([[3, 3, 4], [7]])
    assert mask.dtype == torch.bool and mask.shape == (2, data.num_items + 1)
    assert mask[0].nonzero().flatten().tolist() == [0, 3, 4] and mask[1].nonzero().flatten().tolist() == [0, 7]


def test_bad_arguments_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="p_stay"):
        ListeningSessions(num_users=5, p_stay=0.8, p_home=0.5)
    with pytest.raises(ValueError, match="session_length"):
        ListeningSessions(num_users=5, session_length=(1, 3))
    with pytest.raises(ValueError, match="albums_per_artist"):
        ListeningSessions(num_users=5, albums_per_artist=1)


def test_the_notebooks_fast_data_is_quick():
    started = time.process_time()
    ListeningSessions(num_users=4000, seed=0)
    assert time.process_time() - started < 4, "notebook 10 generates this in its fast mode"
