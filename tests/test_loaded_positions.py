"""A loaded position plays like the dealt one it was observed from, in every variant.

The Hoyle dealt-red-three bug was of this class: a fact that only the dealing code set up (red
threes waiting for their holder's first turn) was missing when the same position was loaded. Here
random legal games of every declared variant are played in one engine while, before every action,
a fresh engine loads the observed position and applies the same action: the outcome and the
position afterwards (and at the end the score sheet) must agree. Near misses (what was legal a
step before, a draw, a discard of each card in hand) are judged alike too, message included: a
meld on the table is kept in laying order by the dealt engine and in canonical order by the loaded
one, and a refusal quoting it read differently.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable

import pytest

from canasta_conformance.contract.cards import Card, cards, full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import Action, Discard, Draw, Position
from canasta_conformance.contract.scenario import position_problems
from canasta_conformance.contract.spec import load_spec
from canasta_reference import create_engine
from canasta_reference.errors import Illegal
from canasta_reference.melds import check_max_cards, check_min_cards
from canasta_reference.selfplay import RandomPlayer

SPEC = load_spec()
VARIANTS = create_engine().capabilities().variants
HANDS = int(os.environ.get("CANASTA_LOADED_HANDS", "2"))


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_loaded_position_plays_like_the_dealt_one(variant: str) -> None:
    params = SPEC.variant_parameters(variant)
    dealt, loaded = create_engine(), create_engine()
    rng = random.Random(f"loaded-{variant}")
    player = RandomPlayer(rng)
    for number in range(HANDS):
        deck = full_deck(params["deck.packs"], params["deck.jokers"])
        rng.shuffle(deck)
        first = number % params["players"] if params["deal.first_player"] == "random" else None
        dealt.deal(DealSetup(variant, {}, number % params["players"], tuple(deck), first_player=first))
        before: list[Action] = []
        while dealt.observe().phase != "over":
            position = dealt.observe()
            loaded.load(position)
            assert loaded.observe() == position, "loading changed the position"
            hand = position.hands[position.turn]
            for miss in [*before, Draw(), *(Discard(card) for card in sorted(set(hand), key=str))]:
                assert loaded.check(miss) == dealt.check(miss), f"{miss} judged differently once loaded"
            before = dealt.legal_actions()
            action = player.choose(dealt)
            outcome = dealt.apply(action)
            assert outcome.accepted
            assert loaded.apply(action) == outcome, f"{action} judged differently once loaded"
            assert loaded.observe() == dealt.observe(), f"{action} led elsewhere once loaded"
        assert loaded.score() == dealt.score()


def _three_player(**changes: object) -> list[str]:
    raw = {
        "variant": "classic-3p", "hands": [["4C"], ["5D"], ["6H"]], "melds": [[], [], []],
        "pile": ["8D"], "stock": ["7C"], "turn": 0, **changes,
    }
    return [m for _, m in position_problems(Position.from_json(raw), SPEC.variant_rules(str(raw["variant"])))]


def test_three_player_positions_pool_the_partners_melds_under_the_lower_seat() -> None:
    kings, queens = [["KC", "KD", "KH"]], [["QC", "QD", "QH"]]
    assert _three_player(lone_hand=1, melds=[kings, queens, []]) == []
    assert any("listed under seat 0" in m for m in _three_player(lone_hand=1, melds=[kings, [], queens]))
    assert any("listed under seat 1" in m for m in _three_player(lone_hand=0, melds=[[], kings, queens]))
    assert any("does not exist" in m for m in _three_player(lone_hand=3))
    # merged melds of one rank may hold more than three wild cards
    wild_kings = [["KC", "KD", "JK", "JK", "2C", "2D"]]
    assert _three_player(lone_hand=1, melds=[wild_kings, [], []]) == []
    assert any("wild" in m for m in _three_player(melds=[wild_kings, [], []]))


def test_only_the_three_player_game_has_a_lone_hand() -> None:
    raw = {"variant": "classic", "hands": [["4C"], ["5D"], ["6H"], ["7S"]], "melds": [[], []], "pile": ["8D"],
           "stock": ["7C"], "lone_hand": 1}
    problems = [m for _, m in position_problems(Position.from_json(raw), SPEC.variant_rules("classic"))]
    assert any("no lone hand" in m for m in problems)


def test_three_player_self_play_forms_the_lone_hand() -> None:
    params = SPEC.variant_parameters("classic-3p")
    engine = create_engine()
    rng = random.Random("lone")
    player = RandomPlayer(rng)
    formed = 0
    for number in range(4):
        deck = full_deck(params["deck.packs"], params["deck.jokers"])
        rng.shuffle(deck)
        engine.deal(DealSetup("classic-3p", {}, number % 3, tuple(deck)))
        while engine.observe().phase != "over":
            assert engine.apply(player.choose(engine)).accepted
        end = engine.observe()
        formed += end.lone_hand is not None
        if end.lone_hand is not None:
            partners = [s for s in range(3) if s != end.lone_hand]
            assert end.melds[max(partners)] == ()  # pooled under the lower partner seat
            sheet = engine.score()
            assert sheet.sides[partners[0]].total - sheet.sides[partners[0]].red_threes == (
                sheet.sides[partners[1]].total - sheet.sides[partners[1]].red_threes
            )
    assert formed > 0


def test_turn_facts_name_only_ranks_on_the_table() -> None:
    """A fact that the player laid kings this turn needs a meld of kings (a loaded position
    naming a rank with no meld made the reference engine fail when the player went out)."""
    raw = {"variant": "classic", "hands": [["4C", "4D"], ["5D"], ["6H"], ["7S"]], "melds": [[["QC", "QD", "QH"]], []],
           "pile": ["8D"], "stock": ["7C"], "phase": "play", "facts": {"melded_ranks": ["K"], "new_ranks": ["K"]}}
    problems = [m for _, m in position_problems(Position.from_json(raw), SPEC.variant_rules("classic"))]
    assert sum("no meld of rank K" in m for m in problems) == 2
    raw["facts"] = {"melded_ranks": ["Q"], "new_ranks": ["Q"]}
    assert list(position_problems(Position.from_json(raw), SPEC.variant_rules("classic"))) == []


def test_observe_gives_positions_in_canonical_order() -> None:
    """observe() builds its position already sorted: it equals its own normalized() after every
    step of every scenario of the corpus (the rejected-action check compares observations with ==)."""
    from canasta_conformance.contract.paths import scenarios_dir
    from canasta_conformance.contract.scenario import load_scenario, scenario_files
    from canasta_conformance.running.runner import start_scenario

    checked = 0
    for path in scenario_files(scenarios_dir()):
        scenario = load_scenario(path, SPEC)
        engine = create_engine()
        start_scenario(scenario, engine)
        for step in (None, *scenario.steps):
            if step is not None and step.action is not None:
                engine.apply(step.action)
            observed = engine.observe()
            assert observed == observed.normalized(), (scenario.id, step)
            checked += 1
    assert checked > 1500


def _refusal(check: Callable[[list[Card]], object], laid: list[Card]) -> str:
    with pytest.raises(Illegal) as refused:
        check(laid)
    return refused.value.message


def test_a_refusal_quotes_a_melds_cards_the_same_in_whatever_order_they_were_laid() -> None:
    """What the test above meets only in long games, directly: the dealt engine keeps a meld in
    laying order, a loaded one in canonical order; the refusals quoting it must read the same."""
    classic, modern = SPEC.variant_rules("classic"), SPEC.variant_rules("modern-american")
    too_wild = list(cards("9S 2C 9H 2H 9C 2D JK"))
    fault = classic.wild_limit_fault(too_wild)
    assert fault is not None and fault == classic.wild_limit_fault(too_wild[::-1])
    eight = list(cards("QS QC 2C QD QH QD QC QH"))
    assert _refusal(lambda laid: check_max_cards(laid, modern), eight) == _refusal(lambda laid: check_max_cards(laid, modern), eight[::-1])
    two = list(cards("9S 2C"))
    assert _refusal(lambda laid: check_min_cards(laid, classic), two) == _refusal(lambda laid: check_min_cards(laid, classic), two[::-1])
