"""Modern American Canasta on the reference engine: the variant is fully implemented, whole hands
conserve every card (talons included), every listed legal action is accepted, and the special
hands have exactly their shapes."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from canasta_conformance.contract.cards import cards, full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import Discard
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.tools.selfplay import play_game
from canasta_reference.engine import ReferenceEngine
from canasta_reference.errors import Illegal
from canasta_reference.selfplay import RandomPlayer
from canasta_reference.special_hands import check_special_hand
from players import EngineMeldingPlayer

SPEC = load_spec()
VARIANT = "modern-american"


def test_modern_american_sets_no_unimplemented_parameter():
    params = SPEC.variant_parameters(VARIANT)
    unimplemented = [
        name for name, p in SPEC.parameters.items() if not p.implemented and params[name] != p.default
    ]
    assert unimplemented == []
    assert VARIANT in ReferenceEngine(SPEC).capabilities().variants


def test_the_deal_sets_two_talons_aside_and_turns_no_upcard():
    engine = ReferenceEngine(SPEC)
    deck = full_deck()
    random.Random(7).shuffle(deck)
    deck = [c for c in deck if not c.is_red_three]  # no exposures, so the counts are exact
    engine.deal(DealSetup(VARIANT, {}, 3, tuple(deck)))
    position = engine.observe()
    assert [len(h) for h in position.hands] == [13, 13, 13, 13]
    assert [len(t) for t in position.talons] == [4, 3]
    assert position.pile == ()
    assert Counter(position.talons[0]) == Counter(deck[52:56])
    assert Counter(position.talons[1]) == Counter(deck[56:59])
    assert position.stock == tuple(deck[59:])


@pytest.mark.parametrize("seed", range(4))
def test_whole_modern_hands_conserve_cards_and_replay_from_observed_positions(seed):
    engine = ReferenceEngine(SPEC)
    probe = ReferenceEngine(SPEC)
    rng = random.Random(seed)
    player = RandomPlayer(rng)
    deck = full_deck()
    rng.shuffle(deck)
    engine.deal(DealSetup(VARIANT, {}, seed % 4, tuple(deck)))
    held = Counter(engine.observe().all_cards())
    assert sum(held.values()) == len(deck)
    steps = 0
    while engine.state is not None and engine.state.phase != "over":
        if steps % 7 == 0:  # the observed position (talons included) carries the whole state: every listed action replays
            position = engine.observe()
            for action in engine.legal_actions():
                probe.load(position)
                assert probe.apply(action).accepted, action
        assert engine.apply(player.choose(engine)).accepted
        assert Counter(engine.observe().all_cards()) == held
        steps += 1
    sheet = engine.score()
    assert all(
        s.total == s.canastas + s.red_threes + s.going_out + s.melded + s.in_hand + s.special_hand + s.penalties
        for s in sheet.sides
    )


RULES = ReferenceEngine(SPEC).rules_for(VARIANT, {})


@pytest.mark.parametrize(("kind", "hand"), [
    ("straight", "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3S 2C JK"),
    ("pairs", "KC KD QC QD 9C 9D 8C 8D 6C 6D 5C 5D 4C 4D"),
    ("pairs", "KC KD KH KS 9C 9D 8C 8D 6C 6D 5C 5D 4C 4D"),
    ("pairs_with_wilds", "JK JK KC KD QC QD 9C 9D 8C 8D 6C 6D 5C 5D"),
    ("pairs_with_wilds", "2C 2D KC KD QC QD 9C 9D 8C 8D 6C 6D 5C 5D"),
    ("garbage", "KC KD KH KS QC QD QH QS 9C 9D 9H 8C 8D 8H"),
    ("garbage", "KC KD KH QC QD QH QS 9C 9D 9H 9S 8C 8D 8H"),
])
def test_special_hand_shapes(kind, hand):
    check_special_hand(kind, list(cards(hand)), RULES)


@pytest.mark.parametrize(("kind", "hand"), [
    ("straight", "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3S 2C 2D"),  # a second two, no joker
    ("straight", "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3S 2C"),  # thirteen cards
    ("pairs", "JK JK KC KD QC QD 9C 9D 8C 8D 6C 6D 5C 5D"),  # a pair of jokers is not natural
    ("pairs", "KC KD QC QD 9C 9D 8C 8D 6C 6D 5C 5D 4C 3S"),  # an odd card
    ("pairs", "KC KD QC QD 9C 9D 8C 8D 6C 6D 5C 5D 3S 3C"),  # black threes are not natural pairs
    ("pairs_with_wilds", "KC KD QC QD 9C 9D 8C 8D 6C 6D 5C 5D 4C 4D"),  # no wild pair
    ("garbage", "KC KD KH KS QC QD QH QS 9C 9D 9H 8C 8D 2H"),  # a wild card
    ("garbage", "KC KD KH KS QC QD QH QS 9C 9D 8C 8D 8H 8S"),  # four, four, two, four
])
def test_special_hand_shapes_refused(kind, hand):
    with pytest.raises(Illegal) as refused:
        check_special_hand(kind, list(cards(hand)), RULES)
    assert refused.value.rule == "modern.special-hand.shape"


@pytest.mark.parametrize("seed", range(3))
def test_the_melding_self_play_player_conserves_cards_and_only_plays_listed_actions(seed):
    """Self-play of Modern American with the player of `canasta play`: every action it applies is
    one legal_actions() listed, every card stays in play (talons included), and melds keep their
    limits (seven cards, two wild cards, no wild card in sevens)."""
    engine = ReferenceEngine(SPEC)
    rng = random.Random(seed)
    player = EngineMeldingPlayer(rng)
    deck = full_deck()
    rng.shuffle(deck)
    engine.deal(DealSetup(VARIANT, {}, seed % 4, tuple(deck)))
    held = Counter(engine.observe().all_cards())
    while engine.state is not None and engine.state.phase != "over":
        action = player.choose(engine)
        assert action in engine.legal_actions()
        assert engine.apply(action).accepted
        position = engine.observe()
        assert Counter(position.all_cards()) == held
        for side in position.melds:
            for meld in side:
                wild = [c for c in meld if RULES.is_wild(c)]
                assert len(meld) <= RULES.meld_max_cards
                assert len(wild) == len(meld) or len(wild) <= RULES.meld_max_wilds
                assert not (wild and any(c.rank == "7" for c in meld))


def test_self_play_plays_modern_hands_that_end_by_going_out():
    """`canasta play --variant modern-american` plays real Modern: some hands end by a player going
    out (two canastas and a final discard), not only by the end of the stock."""
    record = play_game(ReferenceEngine(SPEC), SPEC, 1, VARIANT, max_hands=20)
    endings = [hand.final.ended for hand in record.hands if hand.final is not None and hand.final.ended is not None]
    went_out = [e for e in endings if e.reason == "went_out"]
    assert went_out, [e.reason for e in endings]
    for hand in record.hands:
        if hand.final is not None and hand.final.ended is not None and hand.final.ended.reason == "went_out" and not hand.final.ended.special_hand:
            side = hand.final.ended.seat % 2
            canastas = [m for m in hand.final.melds[side] if len(m) >= RULES.canasta_min_cards]
            assert len(canastas) >= RULES.going_out_canastas_required
            assert isinstance(hand.actions[-1], Discard)  # modern.out.discard-required
