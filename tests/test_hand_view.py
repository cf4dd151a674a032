"""The state keeps each hand's view for the move generator (hand_view.HandView) up to date card by
card: after every action of whole hands of every variant, each seat's kept view reads as the hand
read afresh."""

from __future__ import annotations

import copy
import random

import pytest

from canasta_conformance.contract.cards import card, full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.spec import load_spec
from canasta_reference.engine import ReferenceEngine
from canasta_reference.hand_view import HandView

SPEC = load_spec()
VARIANTS = ReferenceEngine(SPEC).capabilities().variants


def fresh(engine: ReferenceEngine, seat: int) -> HandView:
    state = engine.state
    assert state is not None
    return HandView(state.hands[seat], state.rules.cards_wild_ranks)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_kept_view_reads_as_the_hand_read_afresh(variant):
    engine = ReferenceEngine(SPEC)
    rules = engine.rules_for(variant, {})
    checked = 0
    for seed in (3, 4):
        rng = random.Random(seed)
        deck = full_deck(rules.deck_packs, rules.deck_jokers)
        rng.shuffle(deck)
        first = rng.randrange(rules.players) if rules.deal_first_player == "random" else None
        engine.deal(DealSetup(variant, {}, seed % rules.players, tuple(deck), first_player=first))
        step = 0
        while engine.state is not None and engine.state.phase != "over":
            state = engine.state
            for seat in range(rules.players):
                view = state.view(seat)
                assert view.same_as(fresh(engine, seat)), (variant, seed, step, seat)
                if view.wild_facts is not None:  # (kept while the wild cards stay: their cards)
                    assert view.wild_facts[0] == tuple(c for cards in view.wilds.values() for c in cards)
                checked += 1
            listed = engine.legal_actions()
            action = listed[rng.randrange(len(listed))]
            # an equal copy every other step: the handlers' checks, then the same commits
            assert engine.apply(action if step % 2 else copy.deepcopy(action)).accepted
            step += 1
    assert checked > 100


def test_a_view_keeps_ranks_and_cards_in_canonical_order():
    view = HandView({card("9S"): 1, card("2C"): 1}, frozenset({"2", "JK"}))
    for token, had in (("KD", 0), ("9C", 0), ("JK", 0), ("9S", 1), ("3H", 0), ("3C", 0), ("AH", 0)):
        view.add(card(token), had)
    hand = {card(t): n for t, n in (("9S", 2), ("2C", 1), ("KD", 1), ("9C", 1), ("JK", 1), ("3H", 1), ("3C", 1), ("AH", 1))}
    assert view.same_as(HandView(hand, frozenset({"2", "JK"})))
    assert list(view.naturals) == ["A", "K", "9", "3"] and list(view.wilds) == ["JK", "2"]
    assert view.naturals["9"] == [card("9C"), card("9S"), card("9S")]
    assert view.red_threes == 1 and view.size == 9
    view.remove(card("9S"), 1)
    view.remove(card("3H"), 0)
    view.remove(card("JK"), 0)
    assert list(view.wilds) == ["2"] and view.naturals["9"] == [card("9C"), card("9S")]
    assert view.red_threes == 0 and view.size == 6 and card("JK") not in view.distinct
