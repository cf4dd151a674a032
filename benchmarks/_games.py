"""Shared by the benchmarks: recorded self-play hands (uniformly random listed actions)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from canasta_conformance.contract.cards import Card, full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import Action, Position
from canasta_conformance.contract.variant_rules import VariantRules
from canasta_reference.engine import ReferenceEngine


@dataclass
class Hand:
    setup: DealSetup
    actions: list[Action] = field(default_factory=list)
    positions: list[Position] = field(default_factory=list)


@cache
def _whole_deck(packs: int, jokers: int) -> tuple[Card, ...]:
    """The variant's whole deck in canonical order (built once: sorting it cost more than the shuffle)."""
    return tuple(full_deck(packs, jokers))


def random_deal(rules: VariantRules, variant: str, number: int, rng: random.Random, options: dict[str, Any] | None = None) -> DealSetup:
    """Hand ``number``'s deal: the variant's whole deck shuffled by ``rng``, the deal passing to the
    left each hand, the first player drawn where the variant draws one."""
    deck: list[Card] = list(_whole_deck(rules.deck_packs, rules.deck_jokers))
    rng.shuffle(deck)
    first = rng.randrange(rules.players) if rules.deal_first_player == "random" else None
    return DealSetup(variant, dict(options or {}), number % rules.players, tuple(deck), first_player=first)


def record_hands(count: int, seed: int, variant: str = "classic", positions: bool = False,
                 options: dict[str, Any] | None = None) -> list[Hand]:
    """``count`` hands of self-play: a fresh deal, then uniformly random elements of legal_actions()."""
    engine = ReferenceEngine()
    rules = engine.rules_for(variant, dict(options or {}))
    rng = random.Random(seed)
    hands = []
    for number in range(count):
        hand = Hand(random_deal(rules, variant, number, rng, options))
        engine.deal(hand.setup)
        while engine.state is not None and engine.state.phase != "over":
            if positions:
                hand.positions.append(engine.observe())
            listed = engine.legal_actions()
            action = listed[rng.randrange(len(listed))]
            engine.apply(action)
            hand.actions.append(action)
        hands.append(hand)
    return hands
