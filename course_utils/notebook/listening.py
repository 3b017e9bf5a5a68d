"""Listening sessions with a known structure, for notebook 10's next-item recommender (SASRec).

Notebook 10 trains a causal Transformer to continue a listener's session, and it needs data whose
answer is known: real play logs are large, licensed and say nothing about the best any model could
do. This module generates sessions from a small, explicit process instead, seeded, offline and in
well under a second:

- a **catalogue** of genres, artists (each in one genre), albums (each by one artist) and tracks;
  albums are drawn with a Zipf-like **popularity skew**, so a few albums account for many plays;
- **albums are played in track order**: after track t of an album comes track t + 1 with
  probability `p_continue`, otherwise (and always after the album's last track) a new album;
- a new album is one the session has not touched yet: with probability `p_same_artist` another
  album by the same artist (if one is left); otherwise it comes from a genre that **drifts**: the
  current genre (`p_stay`), the genre the session started in (`p_home`, a memory of the listener's
  taste that only the whole session reveals), or a neighbouring genre on a ring. The album is drawn
  by popularity among the genre's untouched albums (all but the current one if none is left); it
  starts at its first track with probability `p_first` and at a random track otherwise;
- **repeats**, decided before all of the above: with probability `p_repeat` the next play is an item
  played earlier in the session (uniformly among the distinct ones, the last play excluded).

Because the process is explicit, `ListeningSessions.next_item_probs(prefix)` gives the **true**
next-item distribution after any prefix: ranking items by it is the best any model can do on
average, and notebook 10 reports that bound beside its trained model. Item ids start at 1; id 0 is
padding.

Splits follow SASRec (Kang & McAuley, 2018), leave-last-out: every user has one session; the last
play is the test target, the one before it the validation target, and training sees the rest.
This module holds data handling only, no exercise answer.
"""
from __future__ import annotations

import bisect
import random
from dataclasses import dataclass

import numpy as np
import torch

PAD_ID = 0


@dataclass(frozen=True)
class Track:
    item: int       # the item id (1 .. num_items)
    genre: int
    artist: int
    album: int
    number: int     # the track's position on its album, from 0

    @property
    def label(self) -> str:
        """A short name for plots: genre, artist, album, track ("g2 a7 b13 t4")."""
        return f"g{self.genre} a{self.artist} b{self.album} t{self.number}"


@dataclass(frozen=True)
class Split:
    """Prefixes (each a list of item ids, oldest first) and the item that followed each."""
    prefixes: list[list[int]]
    targets: list[int]

    def __len__(self) -> int:
        return len(self.targets)


class ListeningSessions:
    """`num_users` sessions of the process in the module docstring, with leave-last-out splits.

    The same arguments give the same catalogue and sessions. `sessions[u]` is user u's session (item
    ids, oldest first); `train` holds each session without its last two plays, `valid` and `test`
    the prefixes and targets of the last two (`Split`). `tracks[i]` describes item i (index 0 is
    None: padding). `num_items` counts the items; score vectors have `num_items + 1` entries, the
    first for padding.
    """

    def __init__(self, num_users: int = 3000, seed: int = 0, num_genres: int = 6, artists_per_genre: int = 5,
                 albums_per_artist: int = 2, tracks_per_album: tuple[int, int] = (4, 8),
                 session_length: tuple[int, int] = (6, 30), p_continue: float = 0.6, p_same_artist: float = 0.3,
                 p_stay: float = 0.3, p_home: float = 0.4, p_first: float = 0.7, p_repeat: float = 0.05,
                 popularity_skew: float = 1.0) -> None:
        if num_users < 1 or num_genres < 3 or artists_per_genre < 1 or albums_per_artist < 1:
            raise ValueError("need num_users >= 1, num_genres >= 3 (a ring of neighbours), artists_per_genre >= 1 "
                             "and albums_per_artist >= 1")
        if artists_per_genre * albums_per_artist < 2 or albums_per_artist < 2 and p_same_artist > 0:
            raise ValueError("each genre needs at least two albums, and p_same_artist > 0 needs albums_per_artist >= 2")
        if not (2 <= session_length[0] <= session_length[1] and 1 <= tracks_per_album[0] <= tracks_per_album[1]):
            raise ValueError("session_length needs 2 <= shortest <= longest, tracks_per_album 1 <= fewest <= most "
                             "(leave-last-out needs at least one training play before the two held out)")
        for name, p in dict(p_continue=p_continue, p_same_artist=p_same_artist, p_stay=p_stay, p_home=p_home,
                            p_first=p_first, p_repeat=p_repeat).items():
            if not 0 <= p <= 1:
                raise ValueError(f"{name} must be a probability, not {p}")
        if p_stay + p_home > 1:
            raise ValueError("p_stay + p_home must be at most 1 (the rest drifts to a neighbouring genre)")
        self.params = dict(p_continue=p_continue, p_same_artist=p_same_artist, p_stay=p_stay, p_home=p_home,
                           p_first=p_first, p_repeat=p_repeat)
        self.num_genres, self.seed = num_genres, seed
        rng = random.Random(seed)
        self._build_catalogue(rng, num_genres, artists_per_genre, albums_per_artist, tracks_per_album,
                              popularity_skew)
        self.sessions = [self._session(rng, rng.randint(*session_length)) for _ in range(num_users)]
        self.train = [s[:-2] for s in self.sessions]
        self.valid = Split([s[:-2] for s in self.sessions], [s[-2] for s in self.sessions])
        self.test = Split([s[:-1] for s in self.sessions], [s[-1] for s in self.sessions])

    # --- the catalogue -------------------------------------------------------------------------------------

    def _build_catalogue(self, rng: random.Random, num_genres: int, artists_per_genre: int, albums_per_artist: int,
                         tracks_per_album: tuple[int, int], skew: float) -> None:
        self.tracks: list[Track | None] = [None]
        self.album_items: list[list[int]] = []       # album -> its item ids in track order
        self.album_genre, self.album_artist = [], []
        self.artist_albums: list[list[int]] = []
        for genre in range(num_genres):
            for _ in range(artists_per_genre):
                artist = len(self.artist_albums)
                self.artist_albums.append([])
                for _ in range(albums_per_artist):
                    album = len(self.album_items)
                    items = []
                    for number in range(rng.randint(*tracks_per_album)):
                        items.append(len(self.tracks))
                        self.tracks.append(Track(len(self.tracks), genre, artist, album, number))
                    self.album_items.append(items)
                    self.album_genre.append(genre)
                    self.album_artist.append(artist)
                    self.artist_albums[artist].append(album)
        # Popularity: a Zipf-like weight 1 / rank^skew, ranks shuffled over all albums.
        ranks = list(range(1, len(self.album_items) + 1))
        rng.shuffle(ranks)
        self.album_popularity = np.array([r ** -skew for r in ranks])
        self.genre_albums = [[a for a, g in enumerate(self.album_genre) if g == genre] for genre in range(num_genres)]
        self._genre_cumulative = [np.cumsum(self.album_popularity[albums]).tolist() for albums in self.genre_albums]
        genre_weight = np.array([self.album_popularity[albums].sum() for albums in self.genre_albums])
        self.genre_popularity = genre_weight / genre_weight.sum()
        # Per-item arrays for next_item_probs (index 0, padding, never gets probability).
        self._item_album = np.array([-1] + [t.album for t in self.tracks[1:]])
        self._item_first = np.array([False] + [t.number == 0 for t in self.tracks[1:]])
        self._album_length = np.array([len(items) for items in self.album_items])

    @property
    def num_items(self) -> int:
        return len(self.tracks) - 1

    @property
    def num_albums(self) -> int:
        return len(self.album_items)

    def __repr__(self) -> str:
        lengths = [len(s) for s in self.sessions]
        return (f"ListeningSessions({len(self.sessions)} users, {self.num_items} items in {self.num_albums} albums "
                f"by {len(self.artist_albums)} artists in {self.num_genres} genres; sessions of "
                f"{min(lengths)}-{max(lengths)} plays, {sum(lengths):,} in all)")

    # --- sampling ------------------------------------------------------------------------------------------

    def _genre_weights(self, current: int, home: int) -> np.ndarray:
        p = self.params
        weights = np.zeros(self.num_genres)
        weights[current] += p["p_stay"]
        weights[home] += p["p_home"]
        drift = (1 - p["p_stay"] - p["p_home"]) / 2
        weights[(current + 1) % self.num_genres] += drift
        weights[(current - 1) % self.num_genres] += drift
        return weights

    def _popular_album(self, rng: random.Random, genre: int, avoid: set[int], current: int = -1) -> int:
        albums, cumulative = self.genre_albums[genre], self._genre_cumulative[genre]
        if set(albums) <= avoid:             # every album of the genre touched: any but the current one
            avoid = {current}
        while True:   # rejection keeps the popularity proportions among the albums allowed
            album = albums[bisect.bisect_right(cumulative, rng.random() * cumulative[-1])]
            if album not in avoid:
                return album

    def _start_album(self, rng: random.Random, album: int) -> int:
        items = self.album_items[album]
        return items[0] if rng.random() < self.params["p_first"] else rng.choice(items)

    def _session(self, rng: random.Random, length: int) -> list[int]:
        p = self.params
        genre = rng.choices(range(self.num_genres), weights=self.genre_popularity.tolist())[0]
        session = [self._start_album(rng, self._popular_album(rng, genre, set()))]
        home, touched = genre, {self.tracks[session[0]].album}
        while len(session) < length:
            last = self.tracks[session[-1]]
            earlier = sorted(set(session) - {last.item})
            if earlier and rng.random() < p["p_repeat"]:
                session.append(rng.choice(earlier))
                continue
            items = self.album_items[last.album]
            if last.number + 1 < len(items) and rng.random() < p["p_continue"]:
                session.append(items[last.number + 1])
                continue
            same_artist = [a for a in self.artist_albums[last.artist] if a not in touched]
            if same_artist and rng.random() < p["p_same_artist"]:
                album = rng.choice(same_artist)
            else:
                weights = self._genre_weights(last.genre, home)
                genre = rng.choices(range(self.num_genres), weights=weights.tolist())[0]
                album = self._popular_album(rng, genre, touched, last.album)
            touched.add(album)
            session.append(self._start_album(rng, album))
        return session

    # --- the truth -----------------------------------------------------------------------------------------

    def next_item_probs(self, prefix: list[int]) -> np.ndarray:
        """The true probability of every item being played right after `prefix` (item ids, oldest first).

        A float64 array of `num_items + 1` entries summing to 1; entry 0 (padding) is 0. It is the
        process that generated the sessions, evaluated exactly: no model can rank better on average.
        """
        if not prefix:
            raise ValueError("prefix must hold at least one play")
        p = self.params
        probs = np.zeros(self.num_items + 1)
        last = self.tracks[prefix[-1]]
        earlier = sorted(set(prefix) - {last.item})
        rest = 1.0
        if earlier:
            probs[earlier] += p["p_repeat"] / len(earlier)
            rest -= p["p_repeat"]
        items = self.album_items[last.album]
        if last.number + 1 < len(items):
            probs[items[last.number + 1]] += rest * p["p_continue"]
            rest *= 1 - p["p_continue"]
        # A new album, one the session has not touched: by the same artist, or drawn by popularity from a genre.
        touched = {self.tracks[i].album for i in prefix}
        album_probs = np.zeros(self.num_albums)
        others = [a for a in self.artist_albums[last.artist] if a not in touched]
        same_artist = p["p_same_artist"] if others else 0.0
        if others:
            album_probs[others] += same_artist / len(others)
        home = self.tracks[prefix[0]].genre
        for genre, weight in enumerate(self._genre_weights(last.genre, home)):
            if weight == 0:
                continue
            albums = [a for a in self.genre_albums[genre] if a not in touched]
            if not albums:                   # every album of the genre touched: any but the current one
                albums = [a for a in self.genre_albums[genre] if a != last.album]
            popularity = self.album_popularity[albums]
            album_probs[albums] += (1 - same_artist) * weight * popularity / popularity.sum()
        # Within the album: the first track with probability p_first, else any track uniformly.
        real = self._item_album >= 0
        album_of = self._item_album[real]
        within = (1 - p["p_first"]) / self._album_length[album_of] + p["p_first"] * self._item_first[real]
        probs[real] += rest * album_probs[album_of] * within
        return probs

    def true_scores(self, prefixes: list[list[int]], device: torch.device | str | None = None) -> torch.Tensor:
        """(len(prefixes), num_items + 1) float32 tensor of `next_item_probs` for each prefix: the oracle's scores."""
        return torch.tensor(np.stack([self.next_item_probs(prefix) for prefix in prefixes]), dtype=torch.float32,
                            device=device)

    # --- batches for a model -------------------------------------------------------------------------------

    @staticmethod
    def left_pad(sequences: list[list[int]], length: int, device: torch.device | str | None = None) -> torch.Tensor:
        """(B, length) LongTensor: each sequence's last `length` items, padded with 0 on the LEFT.

        Left padding puts every sequence's most recent item in the last column, so a causal model's
        prediction for "what comes next" is always read at position -1.
        """
        rows = [[PAD_ID] * max(0, length - len(s)) + list(s[-length:]) for s in sequences]
        return torch.tensor(rows, dtype=torch.long, device=device)

    def played_mask(self, prefixes: list[list[int]], device: torch.device | str | None = None) -> torch.Tensor:
        """(B, num_items + 1) bool: True at padding (id 0) and at every item already played in the prefix."""
        mask = torch.zeros(len(prefixes), self.num_items + 1, dtype=torch.bool)
        mask[:, PAD_ID] = True
        for row, prefix in enumerate(prefixes):
            mask[row, list(set(prefix))] = True
        return mask.to(device)
