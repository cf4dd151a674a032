"""When two actions are the same move: the equivalence under which legal-action lists compare.

Suits are irrelevant (``eq.suits.irrelevant``) except that red and black threes differ and that a
sequence group (meld.sequences) keeps its cards' suits, so two
actions that differ only in the suits of their cards are one move: an engine listing either has
listed it. The sequence groups of one action that touch (same suit, ranks overlapping or meeting
end to end) are one group: laying 4H-5H-6H and 7H in one action is laying 4H-5H-6H-7H, however an
engine splits it. The harness compares a scenario's ``legal_actions`` includes and excludes, and the
fuzzer compares whole lists, up to this equivalence (docs/protocol.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import JOKER, Card
from .model import WILD_MELD, Action, Answer, Discard, Meld, MeldGroup, NextHand, SpecialHand, TakePile
from .sequences import has_rank_order, span


def joined_sequences(groups: Sequence[MeldGroup]) -> list[list[Card]]:
    """The cards of an action's sequence groups, the groups that touch joined: of one suit, with rank
    spans that overlap or meet end to end (4H-5H-6H and 7H are one run; 4H-5H-6H and 8H are not).
    A group that is no run of one suit (a joker in it, two suits: an illegal group an engine may
    still list) joins none and stays as it is."""
    runs: list[list[Card]] = []
    apart: list[list[Card]] = []
    for group in groups:
        if group.sequence and group.cards:
            (runs if _one_suit_in_rank_order(group.cards) else apart).append(list(group.cards))
    joined: list[list[Card]] = []
    for run in sorted(runs, key=lambda run: (run[0].suit, span(run))):
        if joined and joined[-1][0].suit == run[0].suit and span(run)[0] <= span(joined[-1])[1] + 1:
            joined[-1].extend(run)
        else:
            joined.append(run)
    return joined + apart


def _one_suit_in_rank_order(cards: Sequence[Card]) -> bool:
    return len({c.suit for c in cards}) == 1 and all(has_rank_order(c.rank) for c in cards)


#: the ranks of the wild cards (jokers and twos), which name no meld's rank by themselves
_WILD_RANKS = frozenset({JOKER, "2"})


def _card_class(c: Card) -> str:
    if c.rank == "3":
        return "3r" if c.is_red_three else "3b"
    return c.rank


def cards_class(items: Sequence[Card]) -> tuple[str, ...]:
    """Cards with suits forgotten: their rank-classes, sorted (red and black threes apart)."""
    return tuple(sorted(_card_class(c) for c in items))


def group_class(group: MeldGroup) -> tuple[Any, ...]:
    """A group of one rank (not a sequence group) with suits forgotten, as :func:`suit_class`
    compares it: its cards by rank-class and the rank it names, where naming it says something (a
    group naming the rank of its natural cards is the same group unnamed; a group of wild cards
    alone named ``wild`` is the side's wild-card meld, as it is unnamed)."""
    naturals = {c.rank for c in group.cards if c.rank not in _WILD_RANKS}
    rank = group.rank or ""
    if naturals == {rank} or (not naturals and rank == WILD_MELD):
        rank = ""
    return (cards_class(group.cards), rank)


def suit_class(action: Action) -> tuple[Any, ...]:
    """An action with suits forgotten (``eq.suits.irrelevant``): naturals by rank, jokers, twos,
    red and black threes apart."""

    def groups(items: Sequence[MeldGroup]) -> tuple[Any, ...]:
        # a sequence group (meld.sequences) keeps its suit: a run of hearts is not one of spades
        one_rank = [group_class(g) for g in items if not g.sequence]
        runs = [(tuple(sorted(c.token for c in run)), "sequence") for run in joined_sequences(items)]
        return tuple(sorted(one_rank + runs))

    if isinstance(action, TakePile):
        return ("take", cards_class(action.cards), groups(action.melds))
    if isinstance(action, Meld):
        return ("meld", groups(action.melds))
    if isinstance(action, Discard):
        return ("discard", _card_class(action.card))
    if isinstance(action, Answer):
        return ("answer", action.permit)
    if isinstance(action, SpecialHand):
        return ("special_hand", action.kind, _card_class(action.discard))
    if isinstance(action, NextHand):
        return ("next_hand", len(action.deck))
    return (action.type,)
