"""Card notation: canonical two-character tokens, canonical order and deck multiplicities.

A token is a rank (``A K Q J T 9 8 7 6 5 4 3 2``) followed by a suit (``C D H S``), or ``JK``
for a joker. The parser also accepts ``10H`` and lower case, and always writes the canonical form.
Hands, melds and piles are multisets (two packs hold every card twice), so compare them as
counts in canonical order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Literal

from .errors import CanastaError

RANKS: tuple[str, ...] = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
JOKER = "JK"
RED_SUITS = frozenset({"D", "H"})

Rank = Literal["A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2", "JK"]

RANK_NAMES = {
    "A": "Ace", "K": "King", "Q": "Queen", "J": "Jack", "T": "Ten", "9": "Nine", "8": "Eight",
    "7": "Seven", "6": "Six", "5": "Five", "4": "Four", "3": "Three", "2": "Two", JOKER: "Joker",
}
SUIT_NAMES = {"C": "Clubs", "D": "Diamonds", "H": "Hearts", "S": "Spades"}


_INTERNED: dict[tuple[str, str | None], Card] = {}  # the one card of each (rank, suit): see Card


class CardError(CanastaError, ValueError):
    """A token that is not a card."""


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One playing card. Build cards with :func:`card` or :meth:`Card.parse`.

    A card is a value, and there is one object per value: ``Card(rank, suit)`` returns the one
    card of that rank and suit (made the first time it is asked for), as do :func:`card`, copying
    and unpickling. So equal cards are the same object, and cards compare and hash by identity,
    in C (cards are hashed in every multiset operation of an engine and the harness)."""

    rank: str
    suit: str | None

    def __new__(cls, rank: str, suit: str | None) -> Card:
        found = _INTERNED.get((rank, suit))
        if found is None:  # (setdefault: two threads making one new value at once still share one object)
            found = _INTERNED.setdefault((rank, suit), object.__new__(cls))
        return found

    def __reduce__(self) -> tuple[Callable[[str, str | None], Card], tuple[str, str | None]]:
        """Copied and unpickled as the one card of its value (so identity stays equality)."""
        return (Card, (self.rank, self.suit))

    @property
    def token(self) -> str:
        return JOKER if self.rank == JOKER else self.rank + (self.suit or "")

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    @property
    def is_red_three(self) -> bool:
        return self.rank == "3" and self.suit in RED_SUITS

    @property
    def is_black_three(self) -> bool:
        return self.rank == "3" and self.suit is not None and self.suit not in RED_SUITS

    @property
    def name(self) -> str:
        if self.is_joker:
            return "Joker"
        return f"{RANK_NAMES[self.rank]} of {SUIT_NAMES[self.suit or '']}"

    def __str__(self) -> str:
        return self.token

    def __repr__(self) -> str:
        return f"card({self.token!r})"

    @staticmethod
    def parse(text: str) -> Card:
        return card(text)


def _build() -> dict[str, Card]:
    table = {JOKER: Card(JOKER, None)}
    for rank in RANKS:
        for suit in SUITS:
            table[rank + suit] = Card(rank, suit)
    return table


_BY_TOKEN: dict[str, Card] = _build()
#: The 53 canonical tokens in canonical order (see :func:`sort_key`).
TOKENS: tuple[str, ...] = ()  # filled below, once sort_key exists

_ALIASES = {"10": "T", "RJ": JOKER, "BJ": JOKER, "JOKER": JOKER, "JKR": JOKER}


def card(text: str) -> Card:
    """Parse one card token (lenient: ``10h``, ``kh``, ``Jk`` are accepted)."""
    if not isinstance(text, str):
        raise CardError(f"a card must be a token string such as 'KH', not {text!r}")
    found = _BY_TOKEN.get(text)
    if found is not None:
        return found
    upper = text.strip().upper()
    if upper in _ALIASES and _ALIASES[upper] == JOKER:
        return _BY_TOKEN[JOKER]
    if upper.startswith("10"):
        upper = "T" + upper[2:]
    found = _BY_TOKEN.get(upper)
    if found is None:
        raise CardError(
            f"{text!r} is not a card: write a rank (A K Q J T 9 8 7 6 5 4 3 2) and a suit "
            f"(C D H S), e.g. 'KH' or 'TD', or 'JK' for a joker"
        )
    return found


def cards(items: Iterable[str] | str) -> tuple[Card, ...]:
    """Parse a list of tokens or one space-separated string, in canonical order."""
    if isinstance(items, str):
        items = items.split()
    return sort_cards(card(item) for item in items)


# Canonical order: jokers, twos, then aces down to threes; suits C D H S within a rank.
_RANK_ORDER = {rank: index for index, rank in enumerate((JOKER, "2", *RANKS[:-1]))}
_SUIT_ORDER = {None: 0, "C": 0, "D": 1, "H": 2, "S": 3}


def sort_key(c: Card) -> tuple[int, int]:
    return (_RANK_ORDER[c.rank], _SUIT_ORDER[c.suit])


def sort_cards(items: Iterable[Card]) -> tuple[Card, ...]:
    return tuple(sorted(items, key=_ORDER.__getitem__))


def card_order(c: Card) -> int:
    """The card's place in canonical order (ordering by it orders as :func:`sort_key`)."""
    return _ORDER[c]


def format_cards(items: Iterable[Card]) -> str:
    """Space-separated canonical tokens in canonical order (for messages and diffs)."""
    return " ".join(c.token for c in sort_cards(items))


def tokens(items: Iterable[Card]) -> list[str]:
    return [c.token for c in items]


#: each card's place in canonical order: sorting by it sorts as by :func:`sort_key` (one dict
#: look-up a card instead of a call building a pair: positions are sorted at every observe)
_ORDER: dict[Card, int] = {c: index for index, c in enumerate(sorted(_BY_TOKEN.values(), key=sort_key))}
TOKENS = tuple(c.token for c in sort_cards(_BY_TOKEN.values()))


def deck_multiplicity(packs: int = 2, jokers: int = 4) -> Counter[Card]:
    """How many copies of each card a deck of ``packs`` standard packs plus ``jokers`` holds."""
    counts: Counter[Card] = Counter({c: packs for c in _BY_TOKEN.values() if not c.is_joker})
    counts[_BY_TOKEN[JOKER]] = jokers
    return counts


def full_deck(packs: int = 2, jokers: int = 4) -> list[Card]:
    """Every card of the deck in canonical order (108 cards for two packs and four jokers)."""
    return [c for c, n in sorted(deck_multiplicity(packs, jokers).items(), key=lambda kv: sort_key(kv[0])) for _ in range(n)]


@cache
def _deck_counts(packs: int, jokers: int) -> Mapping[Card, int]:
    """:func:`deck_multiplicity`, built once per deck and never changed (read-only callers)."""
    return MappingProxyType(dict(deck_multiplicity(packs, jokers)))


def excess_cards(counts: Counter[Card], packs: int = 2, jokers: int = 4) -> list[tuple[Card, int, int]]:
    """Cards that occur more often than the deck holds them: (card, seen, allowed)."""
    allowed = _deck_counts(packs, jokers)
    excess = [(c, n, allowed.get(c, 0)) for c, n in counts.items() if n > allowed.get(c, 0)]
    return sorted(excess, key=lambda found: sort_key(found[0]))
