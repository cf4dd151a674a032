"""Property tests of the reference engine over thousands of random hands and steps."""

from __future__ import annotations

import copy
import os
import random
from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canasta_conformance.contract.cards import Card, full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import Position, meld_rank
from canasta_conformance.contract.records import GameRecord
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.replay import replay
from canasta_conformance.tools.selfplay import play_game
from canasta_reference.engine import ReferenceEngine
from canasta_reference.selfplay import RandomPlayer
from players import EngineMeldingPlayer
from strategies import actions

SPEC = load_spec()
PARAMS = SPEC.variant_parameters("classic")
#: random classic hands in CI (400: 20 chunks of 20, each chunk goes out at least once); the
#: longer run in the README sets CANASTA_RANDOM_HANDS=2000
CHUNKS = 20
HANDS_PER_CHUNK = max(1, int(os.environ.get("CANASTA_RANDOM_HANDS", "400")) // CHUNKS)


def card_value(card: Card) -> int:
    """Card values straight from the parameter catalogue (independent of the engine's table)."""
    if card.is_joker:
        return PARAMS["card_value.joker"]
    if card.rank == "2":
        return PARAMS["card_value.two"]
    if card.rank == "A":
        return PARAMS["card_value.ace"]
    if card.rank in "KQJT98":
        return PARAMS["card_value.king_to_eight"]
    if card.rank in "7654":
        return PARAMS["card_value.seven_to_four"]
    return PARAMS["card_value.black_three"] if card.is_black_three else 0


def all_cards(position: Position) -> dict[Card, int]:
    """How many of each card the position holds, as a plain dict: compared after every step, and
    dict's == is C (Counter's is a Python loop over both sides; without zero counts they agree)."""
    return dict(Counter(position.all_cards()))


def check_melds(position: Position, params=PARAMS) -> None:  # type: ignore[no-untyped-def]
    wild = frozenset(params["cards.wild_ranks"])
    # three players: the partners' melds merged when the lone hand formed may hold more wild cards
    # than one meld may be laid with (setup.three-player.lone-hand), in the lower partner's list only
    pooled = None if position.lone_hand is None else min(s for s in range(len(position.hands)) if s != position.lone_hand)
    for index, side in enumerate(position.melds):
        ranks = [meld_rank(m, wild) for m in side]
        wild_melds = ranks.count(None)
        assert wild_melds == 0 or (params["meld.wild_only_melds"] and wild_melds == 1), side
        assert len(ranks) == len(set(ranks)), f"two melds of one rank: {side}"
        for meld, rank in zip(side, ranks, strict=True):
            naturals = sum(1 for c in meld if c.rank not in wild)
            assert len(meld) >= params["meld.min_cards"]
            if params["meld.max_cards"] is not None:
                assert len(meld) <= params["meld.max_cards"], meld
            if rank is None:  # the wild-card meld: wild cards only
                assert naturals == 0, meld
                continue
            assert naturals >= params["meld.min_naturals"]
            assert index == pooled or len(meld) - naturals <= params["meld.max_wilds"]
            if params["meld.sevens_no_wilds"] and rank == "7":
                assert naturals == len(meld), f"wild cards in sevens: {meld}"
            assert not any(c.is_red_three for c in meld)
    if params["red_three.dealt_timing"] == "before_play":  # (Hoyle: dealt ones wait for the first turn)
        for hand in position.hands:
            assert not any(c.is_red_three for c in hand), "a red three stayed in a hand"


def check_sheet(engine: ReferenceEngine, before: Position) -> None:
    position = engine.observe()
    sheet = engine.score()
    for side, score in enumerate(sheet.sides):
        assert score.total == score.canastas + score.red_threes + score.going_out + score.melded + score.in_hand
        assert score.cumulative == before.scores[side] + score.total
        assert score.melded == sum(card_value(c) for meld in position.melds[side] for c in meld)
        seats = [s for s in range(position.players) if s % position.sides == side]
        assert score.in_hand == -sum(card_value(c) for s in seats for c in position.hands[s])
        assert score.canastas % 100 == 0 and score.going_out in (0, 100, 200)
        assert score.total % 5 == 0


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_hands_conserve_cards_keep_melds_legal_and_add_up(chunk):
    engine = ReferenceEngine(SPEC)
    rng = random.Random(chunk)
    player = RandomPlayer(rng)
    went_out = 0
    for number in range(HANDS_PER_CHUNK):
        deck = full_deck()
        rng.shuffle(deck)
        engine.deal(DealSetup("classic", {}, number % 4, tuple(deck)))
        start = engine.observe()
        cards = all_cards(start)
        assert sum(cards.values()) == 108
        assert all(len(h) == PARAMS["deal.hand_size"] for h in start.hands)
        while engine.state is not None and engine.state.phase != "over":
            action = player.choose(engine)
            assert engine.apply(action).accepted
            position = engine.observe()
            assert all_cards(position) == cards, f"cards changed after {action}"
            check_melds(position)
        check_sheet(engine, start)
        went_out += engine.state.ended.reason == "went_out"
    assert went_out > 0  # the random players do finish hands by going out


SUPPORTED = ReferenceEngine(SPEC).capabilities().variants
#: hands per variant in CI; the longer run in the README sets CANASTA_SELFPLAY_HANDS=200
SELFPLAY_HANDS = int(os.environ.get("CANASTA_SELFPLAY_HANDS", "15"))


@pytest.mark.parametrize("variant", SUPPORTED)
def test_every_supported_variant_plays_whole_hands_that_conserve_cards(variant):
    """Both self-play players (the cheap random one, and the melding one that picks from
    legal_actions() and goes out), hand by hand in turn, in every variant the engine plays."""
    params = SPEC.variant_parameters(variant)
    engine = ReferenceEngine(SPEC)
    rng = random.Random(variant)
    players = (RandomPlayer(rng), EngineMeldingPlayer(rng))
    for number in range(SELFPLAY_HANDS):
        player = players[number % 2]
        deck = full_deck(params["deck.packs"], params["deck.jokers"])
        rng.shuffle(deck)
        engine.deal(DealSetup(variant, {}, number % params["players"], tuple(deck), first_player=number % params["players"] if params["deal.first_player"] == "random" else None))
        start = engine.observe()
        cards = all_cards(start)
        assert sum(cards.values()) == len(deck)
        while engine.state.phase != "over":
            assert engine.apply(copy.copy(player.choose(engine))).accepted  # a copy: the very objects listed are committed unchecked; a copy is checked
            position = engine.observe()
            assert all_cards(position) == cards
            check_melds(position, params)
        sheet = engine.score()
        assert all(s.total == s.canastas + s.red_threes + s.going_out + s.melded + s.in_hand + s.special_hand + s.penalties for s in sheet.sides)


def _random_position(seed: int, steps: int, variant: str = "classic") -> ReferenceEngine:
    engine = ReferenceEngine(SPEC)
    rng = random.Random(seed)
    params = SPEC.variant_parameters(variant)
    deck = full_deck(params["deck.packs"], params["deck.jokers"])
    rng.shuffle(deck)
    first = seed % params["players"] if params["deal.first_player"] == "random" else None
    engine.deal(DealSetup(variant, {}, seed % params["players"], tuple(deck), first_player=first))
    player = EngineMeldingPlayer(rng) if seed % 2 else RandomPlayer(rng)
    for _ in range(steps):
        if engine.state.phase == "over":
            break
        engine.apply(player.choose(engine))
    return engine


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 150), attempts=st.lists(actions, min_size=1, max_size=8))
def test_rejected_actions_leave_the_position_unchanged(seed, steps, attempts):
    engine = _random_position(seed, steps)
    for action in attempts:
        before = engine.observe()
        outcome = engine.apply(action)
        if outcome.accepted:
            continue
        assert engine.observe() == before, f"{outcome} changed the position"
        if outcome.status == "rejected":
            assert outcome.rule in SPEC.rules, f"rejection cites unknown rule {outcome.rule}"
        else:
            assert outcome.rule is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 150), variant=st.sampled_from(ReferenceEngine(SPEC).capabilities().variants))
def test_every_enumerated_action_is_accepted(seed, steps, variant):
    engine = _random_position(seed, steps, variant)
    position = engine.observe()
    listed = engine.legal_actions()
    if position.phase != "over":
        assert listed, "no legal action in a live position"
    probe = ReferenceEngine(SPEC)
    for action in listed:
        probe.load(position)
        outcome = probe.apply(action)
        assert outcome.accepted, f"{action} listed as legal but {outcome}"


@pytest.mark.parametrize("seed", [1, 2])
def test_a_game_record_replays_to_the_same_positions_and_scores(seed):
    record = play_game(ReferenceEngine(SPEC), SPEC, seed, max_hands=5)
    again = GameRecord.from_json(record.to_json())
    assert replay(again, ReferenceEngine(SPEC)) == sum(len(h.actions) for h in record.hands)
    assert again.hands[-1].final == record.hands[-1].final


def test_a_whole_game_reaches_the_target_and_names_the_winner():
    record = play_game(ReferenceEngine(SPEC), SPEC, 7)
    sheet = record.final_sheet
    assert sheet is not None and sheet.game_over
    totals = [s.cumulative for s in sheet.sides]
    assert max(totals) >= PARAMS["game.target"]
    assert sheet.winner == totals.index(max(totals))
    previous = [s.cumulative for s in record.hands[-2].score.sides]
    assert max(previous) < PARAMS["game.target"]  # the game ended with the first hand to reach it
    dealers = [h.dealer for h in record.hands]
    assert all((b - a) % 4 == 1 for a, b in pairwise(dealers))  # the deal rotates
