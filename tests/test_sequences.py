"""Sequences (meld.sequences, the Canasta Palace custom option): the contract's sequence group and
keys, the engine's play of them, exact legal-action lists and self-play with the option on."""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from canasta_conformance.contract.cards import cards, full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.equivalence import suit_class
from canasta_conformance.contract.model import (
    FormatError,
    Meld,
    MeldGroup,
    Position,
    TurnFacts,
    action_from_json,
    action_text,
    parse_action,
)
from canasta_conformance.contract.schemas import schema_errors
from canasta_conformance.contract.spec import load_spec
from canasta_reference.engine import ReferenceEngine
from canasta_reference.selfplay import RandomPlayer
from players import EngineMeldingPlayer
from test_legal_actions import check_position, choose, walk

SPEC = load_spec()
PALACE = "canasta-palace"
ON = {"meld.sequences": True}


def run(text: str) -> MeldGroup:
    return MeldGroup(tuple(cards(text)), None, True)


# --- the contract ---------------------------------------------------------------------------------
def test_a_sequence_group_reads_and_writes_in_json_and_text():
    action = Meld((run("4H 5H 6H"), MeldGroup(tuple(cards("KC KD KS")))))
    data = action.to_json()
    assert data["melds"][0] == {"sequence": True, "cards": ["6H", "5H", "4H"]}
    assert action_from_json(data) == action
    assert action_text(action) == "meld [seq: 6H 5H 4H] [KC KD KS]"
    assert parse_action("meld [seq: 4h 5H 6H] [KC KD KS]") == action
    assert parse_action(action_text(action)) == action
    assert list(schema_errors("action", data)) == []


def test_a_sequence_group_names_no_rank():
    with pytest.raises(FormatError, match="names no rank"):
        action_from_json({"type": "meld", "melds": [{"sequence": True, "rank": "4", "cards": ["4H", "5H", "6H"]}]})
    with pytest.raises(FormatError, match="true or false"):
        action_from_json({"type": "meld", "melds": [{"sequence": "yes", "cards": ["4H"]}]})
    assert list(schema_errors("action", {"type": "meld", "melds": [{"sequence": False, "cards": ["4H"]}]})) != []


def test_turn_facts_name_a_sequence_by_its_lowest_card():
    facts = TurnFacts.from_json({"melded_ranks": ["seq:4h", "K"], "new_ranks": ["seq:4H"]})
    assert facts.melded_ranks == ("K", "seq:4H") and facts.new_ranks == ("seq:4H",)
    assert facts.to_json()["melded_ranks"] == ["K", "seq:4H"]
    with pytest.raises(FormatError, match="sequence's key"):
        TurnFacts.from_json({"melded_ranks": ["seq:4X"]})


def test_legal_action_lists_compare_sequences_with_their_suits():
    hearts = Meld((run("4H 5H 6H"),))
    assert suit_class(hearts) != suit_class(Meld((run("4S 5S 6S"),)))
    assert suit_class(hearts) == suit_class(Meld((run("6H 4H 5H"),)))


def test_an_actions_touching_sequence_groups_compare_as_one_group():
    # protocol: the cards an action lays into one sequence are one move, however an engine splits them
    whole = suit_class(Meld((run("4H 5H 6H 7H"),)))
    assert suit_class(Meld((run("4H 5H 6H"), run("7H")))) == whole
    assert suit_class(Meld((run("7H"), run("4H 5H 6H")))) == whole
    assert suit_class(Meld((run("4H 5H"), run("5H 6H 7H")))) != whole  # two fives: not the same cards
    # a gap, or another suit, keeps them apart
    assert suit_class(Meld((run("4H 5H 6H"), run("8H")))) != suit_class(Meld((run("4H 5H 6H 8H"),)))
    assert suit_class(Meld((run("4H 5H 6H"), run("7S")))) != suit_class(Meld((run("4H 5H 6H 7H"),)))
    # three pieces that join only through the middle one
    assert suit_class(Meld((run("4H"), run("8H 9H"), run("5H 6H 7H")))) == suit_class(Meld((run("4H 5H 6H 7H 8H 9H"),)))
    # an illegal group an engine lists (a joker, two suits) is compared as it is, never joined
    assert suit_class(Meld((run("4H 5H JK"),))) != suit_class(Meld((run("4H 5H"),)))
    assert suit_class(Meld((run("JK 4H 5H"), run("6H")))) != suit_class(Meld((run("JK 4H 5H 6H"),)))
    assert suit_class(Meld((run("4H 5S"), run("6H")))) != suit_class(Meld((run("4H 5S 6H"),)))


# --- the engine -----------------------------------------------------------------------------------
def _engine(hand: str, melds: list[list[str]], options: dict[str, object] | None = None, **extra: object) -> ReferenceEngine:
    engine = ReferenceEngine(SPEC)
    engine.load(Position.from_json({
        "variant": PALACE, "options": ON if options is None else options, "turn": 0, "phase": "play",
        "hands": [hand.split(), ["QD", "QS", "7C"], ["TD", "TS", "4C"], ["JD", "JH", "4D"]],
        "melds": [melds, []], "pile": ["6C"], "stock": ["AC", "AD", "AS"], **extra,
    }))
    return engine


def test_a_side_holding_a_sequence_has_melded_and_its_melds_keep_the_run():
    engine = _engine("7H 9C 9D", [["4H", "5H", "6H"]], facts={"melded_seats": [0]})
    position = engine.observe()
    assert position.melds[0] == (tuple(cards("6H 5H 4H")),)
    assert engine.state is not None and engine.state.has_melded(0)
    assert engine.apply(Meld((run("7H"),))).accepted
    assert engine.observe().melds[0] == (tuple(cards("7H 6H 5H 4H")),)
    assert engine.observe().facts.melded_ranks == ("seq:4H",) and engine.observe().facts.new_ranks == ()


def test_a_downward_extension_renames_the_sequence_in_the_turn_facts():
    engine = _engine("4H 5H 6H 7H 9C 9D", [["KC", "KD", "KS"]], facts={"melded_seats": [0]})
    assert engine.apply(Meld((run("5H 6H 7H"),))).accepted
    assert engine.observe().facts.new_ranks == ("seq:5H",)
    assert engine.apply(Meld((run("4H"),))).accepted
    assert engine.observe().facts.new_ranks == ("seq:4H",)  # still a meld started this turn


def test_the_sequence_checks_name_their_rules():
    engine = _engine("4H 5H 7H 8H 2H JK 3S 4S 5S 9C 9D", [["KC", "KD", "KS"]], facts={"melded_seats": [0]})
    for text, rule in [
        ("4H 5H", "meld.sequence.min-cards"), ("4H 5H 7H", "meld.sequence.consecutive"),
        ("4H 5H JK", "meld.sequence.naturals-only"), ("2H 4H 5H", "meld.sequence.naturals-only"),
        ("3S 4S 5S", "meld.sequence.naturals-only"), ("4H 5H 4S", "meld.sequence.one-suit"),
    ]:
        outcome = engine.check(Meld((run(text),)))
        assert (outcome.status, outcome.rule) == ("rejected", rule), text
    without = _engine("4H 5H 6H 9C", [["KC", "KD", "KS"]], options={}, facts={"melded_seats": [0]})
    assert without.check(Meld((run("4H 5H 6H"),))).rule == "eq.no-sequences"


def test_a_sequence_canasta_scores_the_sequence_bonus_from_the_spec():
    bonus = SPEC.variant_rules(PALACE, ON).canasta_sequence_bonus
    assert bonus == SPEC.parameters["canasta.sequence_bonus"].default
    engine = _engine("JC", [["5C", "6C", "7C", "8C", "9C", "TC"]], facts={"melded_seats": [0, 1, 2]})
    assert engine.apply(Meld((run("JC"),))).accepted
    assert engine.observe().phase == "over"
    assert engine.score().sides[0].canastas == bonus


# --- exact lists and self-play with the option on ------------------------------------------------------
@settings(max_examples=int(os.environ.get("CANASTA_SEQUENCE_EXAMPLES", "25")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 200))
def test_the_list_is_exactly_the_legal_actions_with_sequences(seed, steps):
    engine = walk_to_sequences(seed, steps)
    check_position(engine, random.Random(seed))


def _lists_sequences(engine: ReferenceEngine) -> bool:
    return any(isinstance(a, Meld) and any(g.sequence for g in a.melds) for a in engine.legal_actions())


def walk_to_sequences(seed: int, steps: int) -> ReferenceEngine:
    """A reachable position with the option on, walked on (at most 150 more steps) to one where
    some sequence meld is listed, if the hand reaches one: most positions of a random walk list
    none (the draw phase, an unmelded side short of the minimum)."""
    engine = walk(PALACE, seed, steps, ON)
    rng = random.Random(seed)
    for _ in range(150):
        if engine.state is None or engine.state.phase == "over" or _lists_sequences(engine):
            break
        assert engine.apply(choose(engine, rng)).accepted
    return engine


def test_the_walks_reach_positions_listing_sequences():
    """The property check above is not vacuous: most of its walks end where sequences are listed."""
    reached = sum(_lists_sequences(walk_to_sequences(seed, seed % 50)) for seed in range(20))
    assert reached >= 10


def test_a_hand_with_sequences_is_walked_to_its_end_with_exact_lists():
    """Deterministic companion: whole hands with the option on, every position checked; sequences
    are listed and laid on the way (so the check is not vacuous)."""
    laid = accepted = 0
    for seed in (3, 11):
        engine = walk(PALACE, seed, 0, ON)
        rng = random.Random(seed)
        while engine.state is not None and engine.state.phase != "over":
            accepted += check_position(engine, rng)
            action = choose(engine, rng)
            laid += isinstance(action, Meld) and any(g.sequence for g in action.melds)
            assert engine.apply(action).accepted
    assert laid > 0 and accepted > 20


@pytest.mark.parametrize("melding", [False, True], ids=["random", "melding"])
def test_self_play_with_sequences_conserves_cards(melding):
    rules = SPEC.variant_rules(PALACE, ON)
    engine = ReferenceEngine(SPEC)
    rng = random.Random(f"sequences-{melding}")
    player = EngineMeldingPlayer(rng) if melding else RandomPlayer(rng)
    sequences = 0
    for number in range(int(os.environ.get("CANASTA_SELFPLAY_HANDS", "10"))):
        deck = full_deck(rules.deck_packs, rules.deck_jokers)
        rng.shuffle(deck)
        engine.deal(DealSetup(PALACE, ON, number % rules.players, tuple(deck), first_player=rng.randrange(rules.players)))
        held = Counter(engine.observe().all_cards())
        assert sum(held.values()) == len(deck)
        while engine.observe().phase != "over":
            action = player.choose(engine)
            assert engine.apply(action).accepted, action
            assert Counter(engine.observe().all_cards()) == held
        sequences += sum(1 for side in engine.observe().melds for meld in side if len({c.rank for c in meld}) > 1)
        sheet = engine.score()
        assert all(s.total == s.canastas + s.red_threes + s.going_out + s.melded + s.in_hand for s in sheet.sides)
    assert sequences > 0


def test_initial_melds_needing_a_sequence_and_more_groups_are_listed():
    """initial.table with meld.sequence.counts: 4D-5D-6D (15) with the eights (30) and the fours
    (15) makes 60, and every group is needed (45 without any one of them): listed. Two sequences,
    30 each, short alone, make an initial meld together: listed."""
    engine = _engine("4D 5D 6D 8C 8H 8S 4C 4H 4S 9H JC KD", [])
    listed = engine.legal_actions()
    eights, fours = MeldGroup(tuple(cards("8C 8H 8S"))), MeldGroup(tuple(cards("4C 4H 4S")))
    three = Meld((eights, fours, run("4D 5D 6D")))
    assert engine.check(three).accepted and three in listed
    assert not engine.check(Meld((eights, run("4D 5D 6D")))).accepted  # 45
    two = _engine("4D 5D 6D 7D 8D 9S TS JS 5C 9C", [])
    pair = Meld((run("4D 5D 6D 7D 8D"), run("9S TS JS")))  # 30 + 30, listed by lowest card token
    assert not two.check(Meld((run("9S TS JS"),))).accepted
    assert two.check(pair).accepted and pair in two.legal_actions()


def test_going_out_may_extend_a_sequence_by_some_of_the_cards_that_fit():
    """out.ask.binding reads can_go_out: with 4H-5H-6H and a canasta of kings on the table, the hand
    7H 8H 8C 8S 7C goes out by 7H on the sequence, the eights as a meld and 7C discarded. Laying
    both 7H and 8H on the sequence (every card that fits, as can_go_out used to) leaves 8C 8S 7C,
    which cannot go out; so after partner's yes the player may not discard."""
    from canasta_reference.going_out import can_go_out

    engine = _engine("7H 8H 8C 8S 7C", [["4H", "5H", "6H"], ["KC", "KD", "KH", "KS", "KC", "KD", "KH"]],
                     facts={"melded_seats": [0], "question": "yes"})
    assert engine.state is not None and can_go_out(engine.state)
    assert not engine.check(parse_action("discard 7C")).accepted
    out = Meld((MeldGroup(tuple(cards("8C 8H 8S"))), run("7H")))
    assert engine.apply(out).accepted and engine.apply(parse_action("discard 7C")).accepted
    assert engine.observe().phase == "over"


#: the cards of _engine's position outside the hand
_ELSEWHERE = "QD QS 7C TD TS 4C JD JH 4D 6C AC AD AS".split()


def _rich_in_runs(rng: random.Random, size: int) -> list[str]:
    """A hand of runs of several suits that compete for the naturals of their ranks, other cards of
    those ranks, and maybe wild cards and black threes."""
    order = "456789TJQKA"
    held = Counter(_ELSEWHERE)  # no card more often than the two packs hold it
    hand: list[str] = []

    def add(token: str) -> None:
        if held[token] < 2 and len(hand) < size:
            held[token] += 1
            hand.append(token)

    while len(hand) < size:
        roll = rng.random()
        if roll < 0.5:
            start, suit = rng.randrange(len(order) - 2), rng.choice("CDHS")
            for rank in order[start:start + rng.randint(2, 5)]:
                add(rank + suit)
        elif roll < 0.8:
            add(rng.choice(order[:6]) + rng.choice("CDHS"))
        elif roll < 0.92:
            add(rng.choice(["JK", "2C", "2H"]))
        else:
            add(rng.choice(["3C", "3S"]))
    return hand


@settings(max_examples=int(os.environ.get("CANASTA_SEQUENCE_EXAMPLES", "25")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), score=st.sampled_from([0, 1500, 3000]), size=st.integers(6, 16))
def test_the_list_is_exactly_the_legal_actions_for_initial_melds_rich_in_runs(seed, score, size):
    """Positions random walks seldom reach: a side yet to meld (each initial-meld minimum), its hand
    rich in runs of several suits competing for the naturals of one rank; the candidates include
    runs with groups of one rank of the rest of the hand (all of it, all but one card, some ranks)."""
    rng = random.Random(seed)
    engine = _engine(" ".join(_rich_in_runs(rng, size)), [], scores=[score, 0])
    check_position(engine, rng)


#: a side's melds and cards that fit them: one canasta to go out, or two (going_out.canastas_required
#: 2, where two cards each completing one go out only together)
_NEAR_OUT = {
    "one": ({}, [["5H", "6H", "7H"], ["9S", "TS", "JS", "QS"], ["KC", "KD", "KS"]], ["8C", "8D", "8H", "8S", "8C", "8D", "JK"],
            ["4H", "8H", "9H", "8S", "AH", "KS", "AS", "KH", "KC", "7C", "7D", "7S", "2C", "JK", "4C", "4D", "5C", "6C", "4S", "3C"]),
    "two": ({"going_out.canastas_required": 2}, [["5H", "6H", "7H", "8H", "9H", "TH"], ["KC", "KD", "KS", "KH", "KC", "2D"], ["9C", "9D", "9S"]],
            ["8C", "8D", "8S", "8C", "8D", "8S", "JK"], ["4H", "JH", "KH", "KS", "9H", "9C", "2C", "JK", "5C", "6C", "7C", "3C", "QH"]),
}


@settings(max_examples=int(os.environ.get("CANASTA_SEQUENCE_EXAMPLES", "25")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), size=st.integers(2, 6), canasta=st.booleans(), question=st.sampled_from([None, "yes", "no"]),
       need=st.sampled_from(sorted(_NEAR_OUT)))
def test_the_list_is_exactly_the_legal_actions_for_a_side_with_sequences_near_going_out(seed, size, canasta, question, need):
    """A side holding sequences and melds, a few cards left that fit them (going out in two groups,
    with a sequence, neither legal alone, where each completes one of the two canastas needed)."""
    rng = random.Random(seed)
    options, melds, more, pool = _NEAR_OUT[need]
    hand = rng.sample(pool, min(size, len(pool)))
    facts: dict[str, object] = {"melded_seats": [0]}
    if question is not None:
        facts["question"] = question
    engine = _engine(" ".join(hand), [*melds, *([more] if canasta else [])], options={**ON, **options}, facts=facts)
    check_position(engine, rng)


def test_going_out_with_a_sequence_and_a_card_needing_both_at_once_is_listed():
    """Two canastas to go out (going_out.canastas_required 2): JH completes the hearts sequence, KH
    the kings; each alone leaves the other card without the two canastas, so only both at once go out."""
    options, melds, _, _ = _NEAR_OUT["two"]
    engine = _engine("JH KH", melds, options={**ON, **options}, facts={"melded_seats": [0]})
    out = Meld((MeldGroup(tuple(cards("KH"))), run("JH")))
    assert not engine.check(Meld((run("JH"),))).accepted and not engine.check(Meld(out.melds[:1])).accepted
    assert engine.check(out).accepted and out in engine.legal_actions()


def test_an_initial_meld_lists_the_suits_of_a_rank_that_its_sequence_leaves():
    """initial.table (50): [9H 9S 2C] (40) and 9H-TH-JH (30) make 70, each needed. The nines are
    taken from the hand without the run's cards: [9H 9H 2C] (the canonical suits of the whole hand)
    would leave no 9H for the run, so the listed action is the one with 9S."""
    engine = _engine("9H 9H 9S TH JH 2C KC KD KS", [])
    laid = Meld((MeldGroup(tuple(cards("2C 9H 9S"))), run("9H TH JH")))
    assert engine.check(laid).accepted and laid in engine.legal_actions()
    assert not engine.check(Meld(laid.melds[:1])).accepted and not engine.check(Meld(laid.melds[1:])).accepted


def test_initial_melds_with_two_sequences_and_a_rank_are_listed():
    """initial.table: 4D-5D-6D (15) and 4S-5S-6S (15) with the eights (30) make 60 against a
    minimum of 50; any two of the three groups make 45 at most: every group is needed."""
    engine = _engine("4D 5D 6D 4S 5S 6S 8C 8H 8S 9H JC KD", [])
    eights = MeldGroup(tuple(cards("8C 8H 8S")))
    three = Meld((eights, run("4D 5D 6D"), run("4S 5S 6S")))
    assert engine.check(three).accepted and three in engine.legal_actions()
    assert not engine.check(Meld((eights, run("4D 5D 6D")))).accepted


def test_an_initial_meld_with_a_sequence_and_ranks_leaving_one_card_is_listed():
    """initial.table at a cumulative score of 1500 (minimum 90): 4D-5D-6D (15), seven sevens (35,
    a canasta) and four eights (40) make 90, each needed; the 9H is left to discard."""
    engine = _engine("4D 5D 6D 7C 7D 7H 7S 7S 7D 7H 8C 8H 8S 8D 9H", [], scores=[1500, 0])
    laid = Meld((MeldGroup(tuple(cards("8C 8D 8H 8S"))), MeldGroup(tuple(cards("7C 7D 7D 7H 7H 7S 7S"))), run("4D 5D 6D")))
    assert engine.check(laid).accepted and laid in engine.legal_actions()
    assert not engine.check(Meld(laid.melds[::2])).accepted  # 55
