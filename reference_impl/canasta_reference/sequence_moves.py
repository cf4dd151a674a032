"""The legal sequence melds of a position (meld.sequences), for the move generator.

Suits matter in a sequence, so its cards are listed as they are (eq.suits.irrelevant does not
apply to them). What is listed (the documented equivalence of :mod:`canasta_reference.movegen`):

* a meld of one sequence group: every legal one, a new sequence (three to seven cards of one suit
  in consecutive rank order from the hand) or an extension of one of the side's sequences at one
  end or both;
* the initial meld of one sequence group with new melds of one rank (any of their legal forms),
  or of two sequence groups, every group needed to reach the minimum (with two melds of one rank
  or more: those that leave the player two cards or more, as in initial_melds.initial_meld_sets).

Actions that combine sequence groups with other groups otherwise are steps of one turn: a listed
meld followed by the rest. Not listed (and not reachable by steps): an initial meld that needs
two sequences and another group, or a sequence and several ranks leaving one card or none; and a
going-out meld that needs a sequence together with another group at once, no part of it being
legal alone. And one-rank melds are listed up to suits (eq.suits.irrelevant) even where the suits
matter to the sequences still to be laid: with 5H 5H 5S 6H 7H and a joker, [5H 5H JK] is listed,
[5S 5H JK] (which leaves 5H 6H 7H for a sequence in the same meld action) is not. So with this
option on, legal_actions() is not complete: these moves are legal (apply accepts them) but not
listed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from canasta_conformance.contract.cards import Card, sort_cards
from canasta_conformance.contract.model import Meld, MeldGroup
from canasta_conformance.contract.sequences import rank_order, span

from .initial_melds import _new_meld_options, initial_meld_sets
from .position_facts import Facts

if TYPE_CHECKING:
    from .engine import ReferenceEngine


def _runs_in_hand(f: Facts) -> dict[str, dict[int, Card]]:
    """The hand's natural cards by suit, one card of each rank order (two of a card are alike)."""
    out: dict[str, dict[int, Card]] = {}
    for rank, cards in f.naturals.items():
        for c in cards:
            if f.rules.is_natural(c) and c.suit is not None:
                out.setdefault(c.suit, {})[rank_order(rank)] = c
    return out


def _intervals(held: dict[int, Card], low: int, high: int, max_len: int) -> Iterator[tuple[int, int]]:
    """Every interval [a, b] of rank orders within [low, high], at most ``max_len`` long, whose
    every rank the hand holds."""
    for a in range(low, high + 1):
        b = a
        while b <= high and b in held and b - a < max_len:
            yield a, b
            b += 1


def sequence_groups(f: Facts) -> Iterator[MeldGroup]:
    """Candidate sequence groups: new runs of three to seven cards, and the extensions of each
    sequence of the side at one end or both (the engine judges them)."""
    rules = f.rules
    size = rules.canasta_min_cards
    held_by_suit = _runs_in_hand(f)
    seen: set[tuple[Card, ...]] = set()

    def group(orders: list[int], held: dict[int, Card]) -> MeldGroup | None:
        cards = tuple(sort_cards([held[o] for o in orders]))
        if cards in seen:
            return None
        seen.add(cards)
        return MeldGroup(cards, None, True)

    for suit, held in held_by_suit.items():
        orders = sorted(held)
        for a, b in _intervals(held, orders[0], orders[-1], size):
            if b - a + 1 >= rules.meld_min_cards and (g := group(list(range(a, b + 1)), held)) is not None:
                yield g
        for cards in f.sequences.values():
            if cards[0].suit != suit:
                continue
            low, high = span(cards)
            room = size - len(cards)
            below = [0] + [n for n in range(1, room + 1) if all(low - i in held for i in range(1, n + 1))]
            above = [0] + [n for n in range(1, room + 1) if all(high + i in held for i in range(1, n + 1))]
            for n_below in below:
                for n_above in above:
                    if 0 < n_below + n_above <= room:
                        picked = [*range(low - n_below, low), *range(high + 1, high + n_above + 1)]
                        if (g := group(picked, held)) is not None:
                            yield g


def sequence_melds(engine: ReferenceEngine, f: Facts) -> Iterator[Meld]:
    """The listed sequence melds (see the module's documentation)."""
    short: list[tuple[MeldGroup, int]] = []  # sequences below the initial-meld minimum alone
    for g in sequence_groups(f):
        alone = Meld((g,))
        if engine.is_legal(alone):
            yield alone
        elif not f.melded and (value := f.rules.count(g.cards)) < f.minimum:
            short.append((g, value))
    for g, value in short:
        yield from _initial_with_ranks(engine, f, g, value)
    for i, (g, value) in enumerate(short):  # initial.table: two sequences, each needed
        for h, other in short[i + 1:]:
            if value + other >= f.minimum and not set(g.cards) & set(h.cards):
                both = Meld(tuple(sorted((g, h), key=lambda x: [c.token for c in x.cards])))
                if engine.is_legal(both):
                    yield both


def _initial_with_ranks(engine: ReferenceEngine, f: Facts, g: MeldGroup, value: int) -> Iterator[Meld]:
    """initial.table: the sequence ``g`` (counting ``value``, short of the minimum) with new melds
    of one rank from the rest of the hand, every group needed to reach the minimum."""
    state = f.state
    rest = state.hand.copy()
    rest.subtract(g.cards)
    hands = list(state.hands)
    hands[state.turn] = +rest
    other = Facts(replace(state, hands=hands))
    for parts in _new_meld_options(other, None):
        for part in parts:
            if part.value >= f.minimum or value + part.value < f.minimum:
                continue
            both = Meld((*other.groups((part,)), g))
            if engine.is_legal(both):
                yield both
    for chosen in initial_meld_sets(other, (), counted=value):
        if sum(p.value for p in chosen) < f.minimum:  # the sequence is needed too
            laid = Meld((*other.groups(chosen), g))
            if engine.is_legal(laid):
                yield laid
