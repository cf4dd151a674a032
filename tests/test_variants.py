"""Variants: what the reference engine declares, and refusing what an engine cannot play."""

from __future__ import annotations

import pytest
from canasta_conformance.cli import main
from canasta_conformance.engine import Capabilities, DealSetup, OperationUnsupported, cannot_play
from canasta_conformance.spec import load_spec
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


def test_play_refuses_a_variant_the_engine_cannot_play(capsys):
    assert main(["play", "--variant", "modern-american"]) == 2
    err = capsys.readouterr().err
    assert "modern-american" in err and "not implemented" in err and "meld.max_cards" in err


def _problems(variant: str, **changes: object) -> list[str]:
    from canasta_conformance.model import Position
    from canasta_conformance.scenario import position_problems

    raw = {
        "variant": variant, "hands": [["4C", "5D"], ["3H", "6S"], ["4H"], ["4S"]], "melds": [[], []],
        "pile": ["8D"], "stock": ["7C"], "turn": 1, "phase": "draw", **changes,
    }
    position = Position.from_json(raw)
    return [message for _, message in position_problems(position, SPEC.variant_parameters(variant))]


def test_hoyle_positions_keep_dealt_red_threes_only_before_their_holders_turn():
    assert _problems("hoyle-bicycle") == []
    assert any("laid down dealt red threes" in m for m in _problems("hoyle-bicycle", phase="play"))
    assert any("no hand holds one" in m for m in _problems("classic"))


def test_a_turn_never_begins_with_an_empty_stock_where_the_hand_ends_with_it():
    hands = [["4C", "5D"], ["6S"], ["4H"], ["4S"]]
    assert _problems("canasta-palace", hands=hands, stock=["7C"]) == []
    assert any("empties the stock" in m for m in _problems("canasta-palace", hands=hands, stock=[]))
    assert _problems("classic", hands=hands, stock=[]) == []
