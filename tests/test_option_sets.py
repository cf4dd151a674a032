"""The engine under random rule sets: every variant with a few of the catalogue's options set at
random (booleans, choices, small numbers). Each playable rule set is walked for a hand by random
listed actions (half the hands melding little, so that the stock runs out): the list is never empty
while the hand is live, the positions reached load again, and every listed action, applied as
a copy (so that it goes through every check: the very objects listed are committed unchecked), is
accepted. A rule set whose options contradict each other is refused by name."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from canasta_conformance.contract.cards import full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import Answer, Ask, Discard
from canasta_conformance.contract.spec import VariantError, load_spec
from canasta_reference.engine import ReferenceEngine

SPEC = load_spec()
#: (parameter, the values tried): the rule parameters with a few possible values (table size,
#: card values and scores are left at the variant's)
CHOICES: list[tuple[str, list[Any]]] = []
for parameter in SPEC.parameters.values():
    schema = parameter.schema
    if parameter.name.startswith(("card_value.", "score.", "game.", "deal.hand_size", "deck.")):
        continue
    if schema.get("type") == "boolean":
        CHOICES.append((parameter.name, [True, False]))
    elif "enum" in schema:
        CHOICES.append((parameter.name, list(schema["enum"])))
    elif schema.get("type") == "integer" and "minimum" in schema and "maximum" in schema and schema["maximum"] - schema["minimum"] <= 8:
        CHOICES.append((parameter.name, list(range(schema["minimum"], schema["maximum"] + 1))))
VARIANTS = sorted(ReferenceEngine(SPEC).capabilities().variants)


def random_rule_sets(seed: int, count: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    return [
        (rng.choice(VARIANTS), {name: rng.choice(values) for name, values in rng.sample(CHOICES, rng.randint(1, 4))})
        for _ in range(count)
    ]


@pytest.mark.parametrize("seed", range(8))
def test_every_listed_action_is_accepted_under_random_rule_sets(seed: int) -> None:
    engine, reloaded = ReferenceEngine(SPEC), ReferenceEngine(SPEC)
    rng = random.Random(seed)
    played = 0
    ends = []
    for variant, options in random_rule_sets(seed, 30):
        try:
            rules = engine.rules_for(variant, options)
        except VariantError as refusal:
            assert "needs" in str(refusal)  # contradicting options, refused by name
            continue
        deck = full_deck(rules.deck_packs, rules.deck_jokers)
        rng.shuffle(deck)
        # the first player, where the rule set draws one: a seat in play (one may sit out)
        firsts = rng.sample(range(rules.players), rules.players) if rules.deal_first_player == "random" else [None]
        refusals = []
        for first in firsts:
            try:
                engine.deal(DealSetup(variant, options, 0, tuple(deck), first_player=first))
                break
            except ValueError as refusal:
                refusals.append(str(refusal))
        else:
            assert all("cannot exist" in why for why in refusals), refusals  # e.g. a deck too small for the deal
            continue
        played += 1
        steps = 0
        slow = rng.random() < 0.5
        while engine.state is not None and engine.state.phase != "over" and steps < 1500:
            listed = engine.legal_actions()
            assert listed, (variant, options, engine.observe().to_json())
            discards = [a for a in listed if isinstance(a, Discard)]
            if Ask() in listed and rng.random() < 0.5:
                action = Ask()
            elif Answer(True) in listed and rng.random() < 0.8:
                action = Answer(True)
            elif discards and slow:  # (half the hands meld little, so that the stock runs out)
                action = rng.choice(discards)
            else:
                action = rng.choice(listed)
            outcome = engine.apply(copy.copy(action))
            assert outcome.accepted, (variant, options, action, outcome, engine.observe().to_json())
            steps += 1
            if steps % 5 == 0:  # a position the engine reached can be loaded again
                reloaded.load(engine.observe())
        ends.append(engine.observe().ended)
    assert played >= 20
    assert sum(end is not None and end.reason == "stock_exhausted" for end in ends) >= 5  # the end of the stock is reached


def test_a_question_pending_in_the_three_player_game_loads_once_the_lone_hand_has_formed():
    # with asking turned on, the two partners of the three-player game (after the lone hand formed)
    # may ask each other: the position with the question pending is one an engine can load
    options = {"going_out.ask_partner": "optional"}
    engine, reloaded = ReferenceEngine(SPEC), ReferenceEngine(SPEC)
    rules = engine.rules_for("classic-3p", options)
    rng = random.Random(1)
    deck = full_deck(rules.deck_packs, rules.deck_jokers)
    rng.shuffle(deck)
    engine.deal(DealSetup("classic-3p", options, 0, tuple(deck)))
    while engine.state is not None and engine.state.phase != "over" and Ask() not in engine.legal_actions():
        assert engine.apply(copy.copy(rng.choice(engine.legal_actions()))).accepted
    assert engine.state is not None and engine.state.lone_hand is not None
    assert engine.apply(Ask()).accepted
    reloaded.load(engine.observe())
    assert reloaded.legal_actions() == [Answer(True), Answer(False)]
