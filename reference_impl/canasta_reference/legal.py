"""Enumerating legal actions.

Complete for draw, decline, ask, answer and discard (one action per distinct card in the hand).
For takes and melds the enumeration is complete under this bound:

* Suits are irrelevant to the rules (``eq.suits.irrelevant``), so for a rank the naturals are
  taken in canonical suit order, and wild cards by kind (jokers, twos in canonical suit order):
  one representative per rule-equivalent choice.
* A meld action lays one group (any number of naturals of one rank plus up to the wild-card
  limit of jokers and twos, or a lone run of wild cards added to a meld of the side), or, for the
  side's initial meld, up to three groups of different ranks, each with all the hand's naturals
  of its rank plus zero or one wild card.
* Modern American: a lone group of wild cards (every mix of jokers and twos by kind), with each
  full natural group for an initial meld, and every special hand with every discard.
* A take melds the top card with k naturals of its rank (k from 0 up) plus any choice of wild
  cards by kind (so takes that are not an initial meld are listed completely, one per suit-class);
  when it makes the initial meld it may add up to two further groups as above.

Every listed action is accepted by ``apply``; an action outside the bound may be legal too.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import TYPE_CHECKING

from canasta_conformance.cards import Card, sort_cards
from canasta_conformance.model import (
    Action, Answer, Ask, Decline, Discard, Draw, EndTurn, Meld, MeldGroup, SpecialHand, TakePile,
)

if TYPE_CHECKING:
    from .engine import ReferenceEngine
    from .state import HandState


def legal_actions(engine: ReferenceEngine) -> list[Action]:
    state = engine.state
    if state is None or state.phase == "over":
        return []
    if state.question == "pending":
        return [Answer(True), Answer(False)]
    candidates: list[Action] = [Ask()]
    if state.phase == "draw":
        candidates += [Draw(), Decline(), *candidate_takes(state)]
    else:
        candidates += [EndTurn(), *(Discard(card) for card in sort_cards(state.hand))]
        candidates += _melds(state)
        candidates += _modern(state)
    seen: set[Action] = set()
    out = []
    for action in candidates:
        if action not in seen and engine.is_legal(action):
            seen.add(action)
            out.append(action)
    return out


def _by_rank(state: HandState) -> tuple[dict[str, list[Card]], list[list[Card]]]:
    """The hand's naturals (and black threes) by rank, and its wild-card choices by kind."""
    rules = state.rules
    naturals: dict[str, list[Card]] = {}
    for card in sort_cards(state.hand.elements()):
        if not rules.is_wild(card) and not card.is_red_three:
            naturals.setdefault(card.rank, []).append(card)
    wilds = [c for c in sort_cards(state.hand.elements()) if rules.is_wild(c)]
    jokers = [c for c in wilds if c.is_joker]
    twos = [c for c in wilds if not c.is_joker]
    choices: list[list[Card]] = []
    for n_jokers in range(len(jokers) + 1):
        for n_twos in range(len(twos) + 1):
            if n_jokers + n_twos <= rules.meld_max_wilds:
                choices.append(jokers[:n_jokers] + twos[:n_twos])
    choices.sort(key=len)
    return naturals, choices


def _melds(state: HandState) -> list[Action]:
    naturals, wild_choices = _by_rank(state)
    side_melds = state.melds[state.side]
    out: list[Action] = []
    for cards in naturals.values():
        for k in range(1, len(cards) + 1):
            for wilds in wild_choices:
                out.append(Meld((MeldGroup(tuple(cards[:k]) + tuple(wilds)),)))
    for rank in side_melds:
        for wilds in wild_choices[1:]:
            out.append(Meld((MeldGroup(tuple(wilds), rank),)))
    if not side_melds:
        groups = _full_groups(naturals, wild_choices)
        for size in (2, 3):
            for combo in combinations(groups, size):
                if len({g.cards[0].rank for g in combo}) == size and _disjoint(combo, state):
                    out.append(Meld(combo))
    return out


def _full_groups(naturals: dict[str, list[Card]], wild_choices: list[list[Card]]) -> list[MeldGroup]:
    groups = []
    singles = [w for w in wild_choices if len(w) <= 1]
    for cards in naturals.values():
        for wilds in singles:
            groups.append(MeldGroup(tuple(cards) + tuple(wilds)))
    return groups


def _disjoint(groups: tuple[MeldGroup, ...], state: HandState) -> bool:
    needed = Counter(c for g in groups for c in g.cards)
    return not (needed - state.hand)


def candidate_takes(state: HandState) -> list[TakePile]:
    """The takes listed by :func:`legal_actions`, before the legality check."""
    if not state.pile:
        return []
    top = state.pile[-1]
    naturals, wild_choices = _by_rank(state)
    same = naturals.get(top.rank, [])
    out: list[TakePile] = []
    firsts = [tuple(same[:k]) + tuple(w) for k in range(len(same) + 1) for w in wild_choices]
    extras: list[tuple[MeldGroup, ...]] = [()]
    if not state.melds[state.side]:
        groups = [g for g in _full_groups({r: c for r, c in naturals.items() if r != top.rank}, wild_choices)]
        extras += [(g,) for g in groups] + [c for c in combinations(groups, 2) if c[0].cards[0].rank != c[1].cards[0].rank]
    for first in firsts:
        for extra in extras:
            action = TakePile(sort_cards(first), extra)
            if _disjoint((MeldGroup(first), *extra), state) if first else _disjoint(extra, state):
                out.append(action)
    return out


def _modern(state: HandState) -> list[Action]:
    """Modern American: wild-card melds (every count of jokers and twos, started or added to; for
    the initial meld also beside each full natural group) and special hands (each kind with each
    card of the hand as the discard)."""
    rules = state.rules
    out: list[Action] = []
    if rules.meld_wild_only_melds:
        wilds = [c for c in sort_cards(state.hand.elements()) if rules.is_wild(c)]
        jokers = [c for c in wilds if c.is_joker]
        twos = [c for c in wilds if not c.is_joker]
        groups = [
            MeldGroup(tuple(jokers[:j] + twos[:t]))
            for j in range(len(jokers) + 1) for t in range(len(twos) + 1) if j + t
        ]
        out += [Meld((g,)) for g in groups]
        if not state.melds[state.side]:
            naturals, _ = _by_rank(state)
            for group in groups:
                for cards in naturals.values():
                    out.append(Meld((group, MeldGroup(tuple(cards)))))
    for kind in rules.special_hands:
        out += [SpecialHand(kind, card) for card in sort_cards(set(state.hand))]
    return out
