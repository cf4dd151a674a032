"""Variants: what the reference engine declares, and refusing what an engine cannot play."""

from __future__ import annotations

import copy

import pytest

from canasta_conformance.contract.engine_protocol import Capabilities, DealSetup, OperationUnsupported, cannot_play
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.tools.cli import main
from canasta_reference import create_engine

SPEC = load_spec()


def test_an_undeclared_variant_is_refused_naming_the_parameters_it_sets():
    caps = Capabilities("tiny", "1", variants=("classic",), options=("game.target",))
    why = cannot_play(SPEC, caps, "classic-2p")
    assert why is not None
    assert "'classic-2p'" in why
    for name in ("players", "deal.hand_size", "draw.count", "going_out.canastas_required"):
        assert name in why
    assert "game.target" not in why and "sides" not in why and "cards.wild_ranks" not in why


def test_a_declared_variant_is_refused_only_for_options_the_engine_does_not_list():
    caps = Capabilities("tiny", "1", variants=("classic",), options=("game.target",))
    assert cannot_play(SPEC, caps, "classic") is None
    assert cannot_play(SPEC, caps, "classic", {"game.target": 1500}) is None
    why = cannot_play(SPEC, caps, "classic", {"draw.count": 2})
    assert why is not None and "draw.count" in why
    assert cannot_play(SPEC, Capabilities("all", "1", ("classic",), ("*",)), "classic", {"draw.count": 2}) is None


def test_unknown_variants_and_parameters_are_named():
    caps = Capabilities("tiny", "1", variants=("classic",), options=("*",))
    assert "unknown variant 'nope'" in (cannot_play(SPEC, caps, "nope") or "")
    assert "unknown parameter(s) no.such" in (cannot_play(SPEC, caps, "classic", {"no.such": 1}) or "")


def test_the_reference_engine_refuses_to_deal_a_variant_it_cannot_play():
    engine = create_engine()
    declared = set(engine.capabilities().variants)
    refused = [v for v in SPEC.variants if v not in declared]
    for variant in refused:
        with pytest.raises(OperationUnsupported, match="parameter"):
            engine.deal(DealSetup(variant, {}, 0, ()))
    # every variant is declared now, and every parameter is implemented (the engine declares each
    # one as an option it plays)
    assert declared == set(SPEC.variants)
    assert [name for name, p in SPEC.parameters.items() if not p.implemented] == []
    assert set(engine.capabilities().options) == set(SPEC.parameters)


def test_the_sequences_option_is_played_not_refused():
    """meld.sequences (the Canasta Palace custom option) was the last option the engine refused:
    a deal with it on starts a hand (its play: tests/test_sequences.py)."""
    from canasta_conformance.contract.cards import full_deck

    engine = create_engine()
    engine.deal(DealSetup("canasta-palace", {"meld.sequences": True}, 0, tuple(full_deck(2, 4)), first_player=1))
    position = engine.observe()
    assert position.options == {"meld.sequences": True} and position.phase == "draw"
    assert sum(len(h) for h in position.hands) == 4 * SPEC.variant_rules("canasta-palace", {}).deal_hand_size



def test_play_refuses_a_variant_the_engine_cannot_play(capsys, monkeypatch):
    import dataclasses

    import canasta_reference

    full = canasta_reference.create_engine

    def without_penalties():  # the reference engine as it was before it implemented the PAIRS table penalties
        engine = full()
        caps = engine.capabilities()
        engine._capabilities = dataclasses.replace(
            caps, variants=tuple(v for v in caps.variants if v != "pairs-classic"),
            options=tuple(o for o in caps.options if not o.startswith("penalty.")),
        )
        return engine

    monkeypatch.setattr(canasta_reference, "create_engine", without_penalties)
    assert main(["play", "--variant", "pairs-classic"]) == 2
    err = capsys.readouterr().err
    assert "pairs-classic" in err and "not implemented" in err and "penalty.table_penalties" in err


def _problems(variant: str, **changes: object) -> list[str]:
    from canasta_conformance.contract.model import Position
    from canasta_conformance.contract.scenario import position_problems

    raw = {
        "variant": variant, "hands": [["4C", "5D"], ["3H", "6S"], ["4H"], ["4S"]], "melds": [[], []],
        "pile": ["8D"], "stock": ["7C"], "turn": 1, "phase": "draw", **changes,
    }
    position = Position.from_json(raw)
    return [message for _, message in position_problems(position, SPEC.variant_rules(variant))]


def test_hoyle_positions_keep_dealt_red_threes_only_before_their_holders_turn():
    assert _problems("hoyle-bicycle") == []
    assert any("laid down dealt red threes" in m for m in _problems("hoyle-bicycle", phase="play"))
    assert any("no hand holds one" in m for m in _problems("classic"))


def test_a_turn_never_begins_with_an_empty_stock_where_the_hand_ends_with_it():
    hands = [["4C", "5D"], ["6S"], ["4H"], ["4S"]]
    assert _problems("canasta-palace", hands=hands, stock=["7C"]) == []
    assert any("empties the stock" in m for m in _problems("canasta-palace", hands=hands, stock=[]))
    assert _problems("classic", hands=hands, stock=[]) == []


def test_five_player_positions_name_the_player_sitting_out():
    hands = [[], ["9C"], ["5D"], ["8S"], ["6H"]]
    base = {"hands": hands, "melds": [[], []], "turn": 1}
    assert _problems("classic-5p", **base, sitting_out=[0]) == []
    assert any("sitting out each hand" in m for m in _problems("classic-5p", **base))
    assert any("holds no cards" in m for m in _problems("classic-5p", **{**base, "turn": 2}, sitting_out=[1]))
    assert any("has no turn" in m for m in _problems("classic-5p", **{**base, "turn": 0}, sitting_out=[0]))


def test_five_player_positions_sit_out_the_player_the_hand_number_rotates_to():
    hands = [[], ["9C"], ["5D"], ["8S"], ["6H"]]
    base = {"hands": hands, "melds": [[], []], "turn": 1}
    assert _problems("classic-5p", **base, sitting_out=[0]) == []
    third = {**base, "hands": [["4C"], ["9C"], ["5D"], ["8S"], []], "hand_number": 3}
    assert _problems("classic-5p", **third, sitting_out=[4]) == []
    moved = {**base, "hands": [["4C"], ["9C"], [], ["8S"], ["6H"]]}  # hand 1, but seat 2 sits out
    assert any("the rotation has seat(s) [0] sitting out" in m for m in _problems("classic-5p", **moved, sitting_out=[2]))
    assert _problems("classic-5p", **moved, sitting_out=[2], hand_number=2) == []


def test_the_reference_engine_declares_every_variant_whose_parameters_it_implements():
    declared = set(create_engine().capabilities().variants)
    assert {"classic", "classic-2p", "classic-5p", "classic-6p", "hoyle-bicycle", "regal"} <= declared


#: variants with the options their scenarios use, played by random legal players
OPTION_SETS = [
    ("classic", {"upcard.mode": "return_to_stock", "upcard.cover": ["wild", "red_three", "black_three"]}),
    ("hoyle-bicycle", {"upcard.covered_black_three_freezes": True}),
    ("classic-2p", {"draw.lone_last_card_full_draw": False}),
    ("classic", {"going_out.concealed_allowed_with_pile": False, "red_three.negative_cap": 150,
                 "red_three.positive_requires_canasta": True, "black_three.in_hand_value": 100}),
]


@pytest.mark.parametrize(("variant", "options"), OPTION_SETS, ids=[f"{v}-{i}" for i, (v, _) in enumerate(OPTION_SETS)])
def test_self_play_with_variant_options_conserves_cards(variant, options):
    import os
    import random
    from collections import Counter

    from canasta_conformance.contract.cards import full_deck
    from canasta_reference.selfplay import RandomPlayer

    params = SPEC.variant_parameters(variant, options)
    engine = create_engine()
    rng = random.Random(f"{variant}{sorted(options)}")
    player = RandomPlayer(rng)
    for number in range(int(os.environ.get("CANASTA_SELFPLAY_HANDS", "10"))):
        deck = full_deck(params["deck.packs"], params["deck.jokers"])
        rng.shuffle(deck)
        engine.deal(DealSetup(variant, options, number % params["players"], tuple(deck)))
        cards = Counter(engine.observe().all_cards())
        assert sum(cards.values()) == len(deck)
        while engine.observe().phase != "over":
            assert engine.apply(copy.copy(player.choose(engine))).accepted  # a copy: the very objects listed are committed unchecked; a copy is checked
            assert Counter(engine.observe().all_cards()) == cards
        sheet = engine.score()
        assert all(s.total == s.canastas + s.red_threes + s.going_out + s.melded + s.in_hand for s in sheet.sides)


def test_coverage_per_variant_names_variant_specific_rules_without_a_scenario():
    from canasta_conformance.tools.coverage import compute_variant_coverage
    from corpus_once import PROBLEMS, SCENARIOS

    scenarios, problems = SCENARIOS, PROBLEMS
    assert problems == []
    by_variant = {entry.variant: entry for entry in compute_variant_coverage(SPEC, scenarios)}
    five = by_variant["classic-5p"]
    assert "setup.sit-out" in five.specific
    assert "setup-classic-5p-first-hand-seat-0-sits-out" in five.pinned["setup.sit-out"]
    assert by_variant["classic"].specific == ()
    # a classic scenario does not pin a rule whose parameter the variant sets otherwise
    two = by_variant["classic-2p"]
    assert "turn.draw.count" in two.specific
    by_id = {s.id: s for s in scenarios}
    assert two.pinned["turn.draw.count"]
    assert all(SPEC.variant_parameters(by_id[sid].variant, by_id[sid].options)["draw.count"] == 2
               for sid in two.pinned["turn.draw.count"])
    without = [s for s in scenarios if s.variant != "classic-5p" and s.id not in five.pinned["setup.sit-out"]]
    gaps = {e.variant: e.uncovered for e in compute_variant_coverage(SPEC, without)}
    assert "setup.sit-out" in gaps["classic-5p"]


def test_coverage_command_reports_variants_and_fails_on_gaps_with_the_variants_flag(capsys):
    main(["coverage"])
    out = capsys.readouterr().out
    assert "classic-5p" in out and "variant-specific rules" in out
    gaps = main(["coverage", "--variants"])
    out = capsys.readouterr().out
    assert gaps == (1 if "NO SCENARIO" in out else 0)


def test_unknown_variant_and_parameter_names_suggest_the_known_ones():
    caps = create_engine().capabilities()
    assert "unknown variant 'classik' (did you mean 'classic'" in (cannot_play(SPEC, caps, "classik") or "")
    assert "unknown parameter(s) draw.cont (did you mean 'draw.count'?)" in (cannot_play(SPEC, caps, "classic", {"draw.cont": 2}) or "")
    assert main(["play", "--variant", "classik"]) == 2
