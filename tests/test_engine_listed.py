"""apply() of an action legal_actions() listed for the very position (the same object) commits it
without checking again what the generator proved (ReferenceEngine._listed_commit). It must leave
the same position as the full checks do, and every other action must still be checked."""

from __future__ import annotations

import random

import pytest

from canasta_conformance.contract.cards import card, cards, full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import Discard, Draw, Meld, MeldGroup, Position
from canasta_conformance.contract.spec import load_spec
from canasta_reference.engine import ReferenceEngine

SPEC = load_spec()
VARIANTS = ReferenceEngine(SPEC).capabilities().variants

MELDED = {  # Classic, the side has melded; the player to move has drawn
    "variant": "classic", "phase": "play", "turn": 0, "dealer": 3,
    "hands": [["4C", "4D", "9S", "KH", "KS", "2C"], ["5C", "5D"], ["6C", "6D"], ["7C", "7D"]],
    "melds": [[["QC", "QD", "QH"]], []], "pile": ["8C"], "stock": ["JC", "JD", "JH", "JS"],
}


def loaded(data: dict[str, object]) -> ReferenceEngine:
    engine = ReferenceEngine(SPEC)
    engine.load(Position.from_json(data))
    return engine


def test_an_action_that_was_not_listed_is_still_checked_with_its_rule_and_message():
    listing = loaded(MELDED)
    listed = listing.legal_actions()
    fresh = loaded(MELDED)  # never listed: every action goes through the full checks
    two_kings = Meld((MeldGroup(tuple(cards("KH KS"))),))
    wild_on_opponents = Meld((MeldGroup((card("2C"),), "5"),))
    for illegal in (two_kings, wild_on_opponents, Discard(card("AS")), Draw()):
        assert illegal not in listed
        outcome = listing.apply(illegal)
        assert not outcome.accepted
        assert outcome == fresh.apply(illegal)
    assert listing.apply(two_kings).rule == "meld.min-cards"
    assert "at least 3 cards" in (listing.apply(two_kings).message or "")
    assert listing.observe() == Position.from_json(MELDED).normalized()


def test_a_listed_object_is_checked_again_once_the_position_has_changed():
    engine = loaded({**MELDED, "phase": "draw"})
    draw = next(a for a in engine.legal_actions() if isinstance(a, Draw))
    assert engine.apply(draw).accepted
    again = engine.apply(draw)  # the same object, no longer listed: a second draw is refused
    assert not again.accepted and again.rule == "turn.phase"
    discard = next(a for a in engine.legal_actions() if isinstance(a, Discard))
    assert engine.apply(discard).accepted
    assert engine.apply(discard).rule == "turn.phase"  # (the next player draws first)


def walked_positions(variant: str, seed: int, every: int) -> list[Position]:
    """Every ``every``-th position of one hand of self-play (uniformly random listed actions)."""
    engine = ReferenceEngine(SPEC)
    rules = engine.rules_for(variant, {})
    rng = random.Random(seed)
    deck = full_deck(rules.deck_packs, rules.deck_jokers)
    rng.shuffle(deck)
    first = rng.randrange(rules.players) if rules.deal_first_player == "random" else None
    engine.deal(DealSetup(variant, {}, seed % rules.players, tuple(deck), first_player=first))
    positions = []
    step = 0
    while engine.state is not None and engine.state.phase != "over":
        if step % every == 0:
            positions.append(engine.observe())
        listed = engine.legal_actions()
        engine.apply(listed[rng.randrange(len(listed))])
        step += 1
    return positions


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_listed_action_leaves_the_position_the_full_checks_leave(variant):
    """Each listed action of sampled positions of every variant: applied as listed (the shortcut)
    and applied to the same position loaded afresh (the full checks), the same outcome and the
    same position after it."""
    compared = 0
    for seed in (11, 12):
        for position in walked_positions(variant, seed, every=13):
            lister, checker = ReferenceEngine(SPEC), ReferenceEngine(SPEC)
            lister.load(position)
            for i, action in enumerate(lister.legal_actions()):
                if i:
                    lister.load(position)
                    action = lister.legal_actions()[i]
                checker.load(position)
                assert lister.apply(action) == checker.apply(action), action
                assert lister.observe() == checker.observe(), action
                compared += 1
    assert compared > 30
