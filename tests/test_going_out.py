"""can_go_out (out.ask.binding: after partner's "yes" a player who can go out must) agrees with an
exhaustive search of the turn: some sequence of listed meld actions the engine accepts empties the hand,
or leaves one card whose discard goes out. Positions after a "yes" are reached by random walks of
rule sets that restrict where wild cards go (Modern American with asking turned on; Classic with
Modern American's restrictions as options), of Classic, and of Canasta Palace with sequences; hands
of a few cards keep the search short."""

from __future__ import annotations

import random

import pytest

from canasta_conformance.contract.cards import full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import Answer, Ask, Discard, Meld, Position
from canasta_conformance.contract.spec import load_spec
from canasta_reference.engine import ReferenceEngine
from canasta_reference.going_out import can_go_out

SPEC = load_spec()
MODERN_WILDS = {
    "meld.sevens_no_wilds": True, "meld.wild_add_min_naturals": 5, "meld.aces_wilds_only_in_initial_meld": True,
    "meld.closed_rank_after_canasta": True, "meld.wild_only_melds": True, "meld.wild_meld_blocks_wilds": True,
    "going_out.unfinished_wild_meld_blocks": True,
}
#: (variant, options, hands walked): Modern American's hands are long and reach few "yes" positions
RULE_SETS = [
    ("modern-american", {"going_out.ask_partner": "optional"}, 80), ("classic", MODERN_WILDS, 8), ("classic", {}, 8),
    ("canasta-palace", {"meld.sequences": True}, 8),
]
MAX_HAND = 8


def goes_out_by_search(position: Position, seen: set[str]) -> bool:
    """Some accepted meld actions, one after another, empty the hand or leave one card to discard
    going out (``seen``: positions already searched)."""
    probe = ReferenceEngine(SPEC)
    probe.load(position)
    state = probe.state
    assert state is not None
    if sum(state.hand.values()) == 1:
        if probe.apply(Discard(next(c for c, n in state.hand.items() if n))).accepted and probe.observe().ended is not None:
            return True
        probe.load(position)
        state = probe.state
        assert state is not None
    for action in [a for a in probe.legal_actions() if isinstance(a, Meld)]:  # (sequences included)
        probe.load(position)
        if not probe.apply(action).accepted:
            continue
        after = probe.observe()
        if after.ended is not None:
            return True
        key = after.to_json().__repr__()
        if key not in seen:
            seen.add(key)
            if goes_out_by_search(after, seen):
                return True
    return False


def positions_after_a_yes(variant: str, options: dict[str, object], seed: int, hands: int) -> list[Position]:
    """Positions where partner has said yes and the player holds at most MAX_HAND cards: random
    walks asking whenever they may (seven times in ten) and answering yes."""
    engine = ReferenceEngine(SPEC)
    rules = engine.rules_for(variant, options)
    rng = random.Random(seed)
    found: list[Position] = []
    for number in range(hands):
        deck = full_deck(rules.deck_packs, rules.deck_jokers)
        rng.shuffle(deck)
        first = rng.randrange(rules.players) if rules.deal_first_player == "random" else None
        engine.deal(DealSetup(variant, options, number % rules.players, tuple(deck), first_player=first))
        while engine.state is not None and engine.state.phase != "over":
            state = engine.state
            if state.question == "yes" and state.phase == "play" and sum(state.hand.values()) <= MAX_HAND:
                found.append(engine.observe())
            listed = engine.legal_actions()
            assert listed, engine.observe().to_json()  # never empty while the hand is live
            if Ask() in listed and rng.random() < 0.7:
                action = Ask()
            elif Answer(True) in listed:
                action = Answer(True)
            else:
                action = rng.choice(listed)
            assert engine.apply(action).accepted
    return found


@pytest.mark.parametrize(("variant", "options", "hands"), RULE_SETS)
def test_can_go_out_agrees_with_an_exhaustive_search(variant: str, options: dict[str, object], hands: int) -> None:
    engine = ReferenceEngine(SPEC)
    checked = {True: 0, False: 0}
    for position in positions_after_a_yes(variant, options, 7, hands):
        engine.load(position)
        assert engine.state is not None
        expected = goes_out_by_search(position, set())
        assert can_go_out(engine.state) == expected, position.to_json()
        checked[expected] += 1
    assert checked[True] >= 2 and checked[False] >= 10, checked  # both answers are reached
