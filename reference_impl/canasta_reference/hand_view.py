"""A hand as the move generator reads it, kept up to date card by card.

The generator reads the hand of the player to move as count vectors (position_facts.Facts): its
distinct cards, its naturals of each rank and its wild cards of each kind, in canonical order.
Reading them from the hand at every position sorted and grouped the whole hand each time, while
an action changes a card or two of it: the state keeps each seat's view (HandState.view) and
every change of a hand goes through HandState.add_card and HandState.remove_cards, which update
the view with the hand. No rule lives here."""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping
from typing import Any

from canasta_conformance.contract.cards import _RANK_ORDER, RED_SUITS, TOKENS, Card, card, sort_key

#: every card's place in canonical order
ORDINAL: dict[Card, int] = {c: i for i, c in enumerate(sorted((card(t) for t in TOKENS), key=sort_key))}
_PLACE = ORDINAL.__getitem__


class HandView:
    """One hand's distinct cards in canonical order; its naturals by rank (black threes too) and its
    wild cards by rank, each list in canonical card order and the ranks in canonical order (the
    lists hold a card as often as the hand does); how many red threes it holds; its size.

    Read-only for everyone but HandState, which changes it with the hand: the generator's facts
    of a position share these lists and dicts (valid until the next action)."""

    __slots__ = ("distinct", "naturals", "red_threes", "size", "wild_facts", "wild_ranks", "wilds")

    def __init__(self, hand: Mapping[Card, int], wild_ranks: frozenset[str]) -> None:
        self.wild_ranks = wild_ranks
        distinct = sorted((c for c, n in hand.items() if n), key=_PLACE)
        self.distinct: list[Card] = distinct
        naturals: dict[str, list[Card]] = {}
        wilds: dict[str, list[Card]] = {}
        red_threes = size = 0
        last = ""  # the rank of the group being filled (cards of a rank come together)
        same: list[Card] = []
        for c in distinct:
            n = hand[c]
            size += n
            rank = c.rank
            if rank == last:
                same += [c] * n
            elif rank == "3":  # red and black threes interleave in suit order
                if c.suit in RED_SUITS:
                    red_threes += n
                else:
                    naturals.setdefault(rank, []).extend([c] * n)
            else:
                last = rank
                same = [c] * n
                (wilds if rank in wild_ranks else naturals)[rank] = same
        self.naturals = naturals
        self.wilds = wilds
        self.red_threes = red_threes
        self.size = size
        #: what the generator's facts derive from the wild cards alone (position_facts.Facts), kept
        #: until a wild card joins or leaves the hand
        self.wild_facts: tuple[Any, ...] | None = None

    def add(self, c: Card, had: int) -> None:
        """One card joins the hand, which held ``had`` of it."""
        self.size += 1
        if not had:
            insort(self.distinct, c, key=_PLACE)
        rank = c.rank
        if rank == "3" and c.suit in RED_SUITS:
            self.red_threes += 1
            return
        group = self._group(rank)
        cards = group.get(rank)
        if cards is not None:
            insort(cards, c, key=_PLACE)
            return
        last = next(reversed(group), None)
        group[rank] = [c]
        if last is not None and _RANK_ORDER[last] > _RANK_ORDER[rank]:  # (a new rank: keep the ranks in order)
            ordered = {key: group[key] for key in sorted(group, key=_RANK_ORDER.__getitem__)}
            if group is self.wilds:
                self.wilds = ordered
            else:
                self.naturals = ordered

    def _group(self, rank: str) -> dict[str, list[Card]]:
        """Where a card of ``rank`` is kept: the wild cards (whose facts it then changes) or the
        naturals."""
        if rank in self.wild_ranks:
            self.wild_facts = None
            return self.wilds
        return self.naturals

    def remove(self, c: Card, left: int) -> None:
        """One card leaves the hand, which holds ``left`` of it afterwards."""
        self.size -= 1
        if not left:
            self.distinct.remove(c)
        rank = c.rank
        if rank == "3" and c.suit in RED_SUITS:
            self.red_threes -= 1
            return
        group = self._group(rank)
        cards = group[rank]
        cards.remove(c)
        if not cards:
            del group[rank]

    def same_as(self, other: HandView) -> bool:
        """The same cards read the same way (what a test compares: a kept view with one read afresh)."""
        return (
            self.distinct == other.distinct and list(self.naturals.items()) == list(other.naturals.items())
            and list(self.wilds.items()) == list(other.wilds.items()) and self.red_threes == other.red_threes
            and self.size == other.size
        )
