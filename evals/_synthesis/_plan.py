"""Which passages each question is written from: a seeded order of anchors, quotas per
kind, and the partner of a ``multi`` anchor.

Every draw is a function of the corpus, the seed and how earlier candidates ended, so
a resumed run draws the same candidates again, in the same order.
"""

from __future__ import annotations

import math
import random
import re
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scorers import Chunk

from ..quickstart import tokenize

MIN_ANCHOR_WORDS = 8
"""Passages with fewer content words (CJK text: character bigrams) are not asked about;
they stay in the corpus for retrieval."""
MIN_SHARED_WORDS = 3
"""The fewest rare words two passages must share to be paired without a shared name."""

_ENTITY = re.compile(r"\b(?:[A-Z][\w'’-]*|\d{3,})(?:\s+(?:[A-Z][\w'’-]*|\d{3,}))*")
_NOT_NAMES = frozenset(
    "a an and as at after before but by during for from he her his however i if in is it "
    "its of on or she so that the their there these they this those to we what when where "
    "which while who why with you".split()
)


@dataclass(frozen=True)
class Candidate:
    """One question to write: its serial number, kind and gold passages (indices)."""

    serial: int
    kind: str
    passages: tuple[int, ...]
    pairing: dict[str, Any] | None = None


def entities(text: str) -> set[str]:
    """Capitalised names (runs of capitalised words) and numbers of 3+ digits, lower-cased;
    a lone common word that only starts a sentence is not a name."""
    found = set()
    lower = set(re.findall(r"\b[a-z][\w'’-]*", text))
    for match in _ENTITY.finditer(text):
        words = match.group(0).split()
        while words and words[0].lower() in _NOT_NAMES:
            words = words[1:]
        if len(words) == 1 and words[0].lower() in lower:
            continue  # a common word that starts a sentence here
        if words:
            found.add(" ".join(words).lower())
    return found


class Partners:
    """Finds the passage a ``multi`` anchor belongs with: the one sharing the most names
    with it, by weight (idf; ties: more shared rare words, then another source, then
    corpus order); without a shared name, the one sharing the most rare words by weight (idf), if it
    shares at least `MIN_SHARED_WORDS`. A name or word in more than a fifth of the corpus
    is common, not shared knowledge, and does not count."""

    def __init__(self, passages: Sequence[Chunk], copies: Collection[int] = ()):
        self.passages = passages
        self.copies = copies  # never a partner: each is a copy of an earlier passage
        self.names = [entities(p.text) for p in passages]
        self.words = [set(tokenize(p.text)) for p in passages]
        common = max(2, len(passages) // 5)
        self.name_index = _index(self.names, common)
        self.word_index = _index(self.words, common)
        self.idf = _idf(self.word_index, len(passages))
        self.name_idf = _idf(self.name_index, len(passages))
        self.sources = [p.metadata.get("source") for p in passages]

    def find(self, anchor: int, exclude: Collection[int] = ()) -> tuple[int, dict[str, Any]] | None:
        """The partner of ``anchor`` (not one of ``exclude``) and how it was chosen, or None."""
        names = _shared(self.name_index, self.names[anchor], anchor, self.name_idf.__getitem__)
        words = _shared(self.word_index, self.words[anchor], anchor, self.idf.__getitem__)
        for other in (*exclude, *self.copies):
            names.pop(other, None)
            words.pop(other, None)
        if names:
            pool = list(names)
        else:
            pool = [i for i, (count, _) in words.items() if count >= MIN_SHARED_WORDS]
        if not pool:
            return None
        partner = max(
            pool,
            key=lambda i: (
                names.get(i, (0, 0.0))[1],
                words.get(i, (0, 0.0))[1],
                self.sources[i] != self.sources[anchor],
                -i,
            ),
        )
        if names:
            return partner, {
                "by": "names",
                "shared": sorted(self.names[anchor] & self.names[partner])[:5],
            }
        shared = sorted(
            self.words[anchor] & self.words[partner] & self.idf.keys(),
            key=lambda w: (-self.idf[w], w),
        )
        return partner, {"by": "words", "shared": shared[:5]}


def _index(sets: Sequence[set[str]], common: int) -> dict[str, list[int]]:
    """Term -> the passages holding it, for terms in at most ``common`` passages."""
    index: dict[str, list[int]] = defaultdict(list)
    for i, terms in enumerate(sets):
        for term in terms:
            index[term].append(i)
    return {term: found for term, found in index.items() if len(found) <= common}


def _idf(index: Mapping[str, list[int]], size: int) -> dict[str, float]:
    return {term: math.log(size / len(found)) for term, found in index.items()}


def _shared(
    index: Mapping[str, list[int]], terms: set[str], anchor: int, weight: Any
) -> dict[int, tuple[int, float]]:
    """Per other passage: how many of ``terms`` it shares, and their summed weight."""
    found: dict[int, tuple[int, float]] = {}
    for term in terms:
        for other in index.get(term, ()):
            if other != anchor:
                count, total = found.get(other, (0, 0.0))
                found[other] = (count + 1, total + weight(term))
    return found


def quotas(n: int, kinds: Sequence[str]) -> dict[str, int]:
    """``n`` rows split over ``kinds`` as evenly as possible (the first kinds get one more)."""
    base, extra = divmod(n, len(kinds))
    return {kind: base + (1 if i < extra else 0) for i, kind in enumerate(kinds)}


@dataclass
class Planner:
    """Draws candidates: anchors in a seeded order, each passage an anchor at most once.
    A passage that copies an earlier one (``copies``) is neither an anchor nor a partner."""

    passages: Sequence[Chunk]
    kinds: Sequence[str]
    seed: int
    copies: frozenset[int] = frozenset()
    order: list[int] = field(init=False)
    used: set[int] = field(default_factory=set)
    paired: dict[int, set[int]] = field(default_factory=dict)
    no_partner: set[int] = field(default_factory=set)
    cursors: dict[str, int] = field(default_factory=dict)
    serial: int = 0
    partners: Partners | None = None

    def __post_init__(self) -> None:
        order = list(range(len(self.passages)))
        random.Random(self.seed).shuffle(order)
        self.order = [
            i
            for i in order
            if i not in self.copies and len(tokenize(self.passages[i].text)) >= MIN_ANCHOR_WORDS
        ]
        if "multi" in self.kinds:
            self.partners = Partners(self.passages, self.copies)

    @property
    def anchors(self) -> int:
        """Passages long enough to be asked about."""
        return len(self.order)

    def draw(self, kind: str) -> Candidate | None:
        """The next candidate of ``kind``, or None when the corpus has no anchor left."""
        cursor = self.cursors.get(kind, 0)
        while cursor < len(self.order):
            anchor = self.order[cursor]
            cursor += 1
            if anchor in self.used or (kind == "multi" and anchor in self.no_partner):
                continue
            pairing = None
            chosen: tuple[int, ...] = (anchor,)
            if kind == "multi":
                assert self.partners is not None
                found = self.partners.find(anchor, self.paired.get(anchor, ()))
                if found is None:
                    self.no_partner.add(anchor)
                    continue
                chosen, pairing = (anchor, found[0]), found[1]
                self.paired.setdefault(found[0], set()).add(anchor)
            self.cursors[kind] = cursor
            self.used.add(anchor)
            self.serial += 1
            return Candidate(self.serial, kind, chosen, pairing)
        self.cursors[kind] = cursor
        return None

    def round(self, need: Mapping[str, int], rates: Mapping[str, float]) -> list[Candidate]:
        """Candidates for one round: per kind, its need over its keep rate so far (at
        least a quarter, at most four times the need), drawn in turn so that the kinds
        share a corpus too small for all of them."""
        wanted = {
            kind: min(4 * need[kind], math.ceil(need[kind] / max(rates.get(kind, 0.8), 0.25)))
            for kind in self.kinds
            if need.get(kind, 0) > 0
        }
        planned: list[Candidate] = []
        while wanted:
            for kind in list(wanted):
                candidate = self.draw(kind)
                if candidate is not None:
                    planned.append(candidate)
                    wanted[kind] -= 1
                if candidate is None or not wanted[kind]:
                    del wanted[kind]
        return planned
