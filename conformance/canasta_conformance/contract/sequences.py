"""Sequences (meld.sequences, Samba's runs): natural cards of one suit in consecutive rank order,
ace high only. A sequence on the table identifies itself (its cards are of one suit and of distinct
consecutive ranks); the engine and the turn facts name it by its key, ``seq:`` and its lowest card
(``seq:4H`` is the hearts sequence that starts at the four).

Which ranks may stand in a sequence is the variant's business (natural cards only: no wild card,
no three); this module knows only the order of the ranks and the shape.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise

from .cards import RANKS, Card

#: the prefix of a sequence's key in the turn facts (melded_ranks, new_ranks)
SEQUENCE_PREFIX = "seq:"
#: rank order for sequences: ace high only (the two and three sit below the four but are never
#: natural sequence cards)
_ORDER: dict[str, int] = {rank: index for index, rank in enumerate(reversed(RANKS))}


def rank_order(rank: str) -> int:
    """The rank's place in a sequence, ace highest."""
    return _ORDER[rank]


def has_rank_order(rank: str) -> bool:
    """Whether the rank has a place in a sequence's order (a joker has none)."""
    return rank in _ORDER


def is_sequence_key(key: str) -> bool:
    return key.startswith(SEQUENCE_PREFIX)


def sequence_key(cards: Sequence[Card]) -> str:
    """The key naming a sequence: ``seq:`` and its lowest card's token."""
    low = min(cards, key=lambda c: _ORDER.get(c.rank, -1))
    return SEQUENCE_PREFIX + low.token


def span(cards: Sequence[Card]) -> tuple[int, int]:
    """The lowest and highest rank order of the cards."""
    orders = [_ORDER[c.rank] for c in cards]
    return min(orders), max(orders)


def is_run(cards: Sequence[Card], is_natural: Callable[[Card], bool]) -> bool:
    """Natural cards of one suit, of distinct ranks in consecutive order (any number of cards)."""
    if not cards or not all(is_natural(c) for c in cards) or len({c.suit for c in cards}) != 1:
        return False
    orders = sorted(_ORDER[c.rank] for c in cards)
    return all(b == a + 1 for a, b in pairwise(orders))


def looks_like_sequence(cards: Sequence[Card], is_natural: Callable[[Card], bool]) -> bool:
    """A meld of a position that is a sequence: a run of at least two ranks (a meld of one rank
    is a meld of that rank)."""
    return len({c.rank for c in cards}) > 1 and is_run(cards, is_natural)
