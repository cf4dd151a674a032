"""When two actions are the same move: the equivalence under which legal-action lists compare.

Suits are irrelevant (``eq.suits.irrelevant``) except that red and black threes differ and that a
sequence group (meld.sequences) keeps its cards' suits, so two
actions that differ only in the suits of their cards are one move: an engine listing either has
listed it. The harness compares a scenario's ``legal_actions`` includes and excludes, and the
fuzzer compares whole lists, up to this equivalence (docs/protocol.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cards import Card
from .model import Action, Answer, Discard, Meld, MeldGroup, NextHand, SpecialHand, TakePile


def suit_class(action: Action) -> tuple[Any, ...]:
    """An action with suits forgotten (``eq.suits.irrelevant``): naturals by rank, jokers, twos,
    red and black threes apart."""

    def key(c: Card) -> str:
        if c.rank == "3":
            return "3r" if c.is_red_three else "3b"
        return c.rank

    def cards(items: Sequence[Card]) -> tuple[str, ...]:
        return tuple(sorted(key(c) for c in items))

    def groups(items: Sequence[MeldGroup]) -> tuple[Any, ...]:
        # a sequence group (meld.sequences) keeps its suit: a run of hearts is not one of spades
        return tuple(sorted(
            (tuple(sorted(c.token for c in g.cards)), "sequence") if g.sequence else (cards(g.cards), g.rank or "") for g in items
        ))

    if isinstance(action, TakePile):
        return ("take", cards(action.cards), groups(action.melds))
    if isinstance(action, Meld):
        return ("meld", groups(action.melds))
    if isinstance(action, Discard):
        return ("discard", key(action.card))
    if isinstance(action, Answer):
        return ("answer", action.permit)
    if isinstance(action, SpecialHand):
        return ("special_hand", action.kind, key(action.discard))
    if isinstance(action, NextHand):
        return ("next_hand", len(action.deck))
    return (action.type,)
