"""Random hands of every variant the reference engine plays, written as JSON lines: what two builds
of the engine (Python source and compiled, tests/test_compiled_build.py) must answer alike.

    python tests/engine_walks.py [--hands 3] [--seed 0] [--variant classic,modern-american] [--options meld.sequences=true]

Each hand is a fresh shuffled deal; at every position the line holds the observed position, the
legal list, the verdicts (rule and message) on near misses (every action listed at the position
before, a draw, a discard of each card in hand) and the chosen action with its outcome; the last
line of a hand holds its score sheet. The choice alternates between a uniformly random listed
action and the melding self-play player's (which goes out), so melds, canastas and going out are
reached. --variant names the variants to walk (comma-separated; by default every variant the engine
plays); --options sets variant options for each (name=value, comma-separated, values read as YAML),
e.g. ``--variant canasta-palace --options meld.sequences=true`` for sequences."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any

import yaml

from canasta_conformance.contract.cards import full_deck
from canasta_conformance.contract.engine_protocol import DealSetup
from canasta_conformance.contract.model import Action, Discard, Draw, action_text
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.tools.selfplay import MeldingPlayer
from canasta_reference.engine import ReferenceEngine

MAX_STEPS = 3000


def walk(engine: ReferenceEngine, variant: str, seed: int, options: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    options = dict(options or {})
    rules = engine.rules_for(variant, options)
    rng = random.Random(seed)
    deck = full_deck(rules.deck_packs, rules.deck_jokers)
    rng.shuffle(deck)
    first = rng.randrange(rules.players) if rules.deal_first_player == "random" else None
    engine.deal(DealSetup(variant, options, seed % rules.players, tuple(deck), first_player=first))
    melder = MeldingPlayer(rng)
    lines: list[dict[str, Any]] = []
    before: list[Action] = []
    for step in range(MAX_STEPS):
        state = engine.state
        assert state is not None
        if state.phase == "over":
            lines.append({"variant": variant, "seed": seed, "score": engine.score().to_json()})
            break
        position = engine.observe()
        listed = engine.legal_actions()
        misses: list[Action] = [*before, Draw(), *(Discard(c) for c in sorted(set(state.hands[state.turn]), key=str))]
        verdicts = [[action_text(a), engine.check(a).to_json()] for a in misses]
        action = listed[rng.randrange(len(listed))] if step % 2 else melder.choose(listed, position, state.rules)
        outcome = engine.apply(action)
        lines.append({
            "variant": variant, "seed": seed, "step": step, "position": position.to_json(),
            "legal": [action_text(a) for a in listed], "near_misses": verdicts,
            "action": action_text(action), "outcome": outcome.to_json(),
        })
        before = listed
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="", help="comma-separated variants (default: every variant the engine plays)")
    parser.add_argument("--options", default="", help="variant options, name=value comma-separated (values read as YAML)")
    args = parser.parse_args()
    options = {name: yaml.safe_load(value) for name, _, value in (item.partition("=") for item in args.options.split(",") if item)}
    engine = ReferenceEngine(load_spec())
    variants = args.variant.split(",") if args.variant else engine.capabilities().variants
    for variant in variants:
        for seed in range(args.seed, args.seed + args.hands):
            for line in walk(engine, variant, seed, options):
                sys.stdout.write(json.dumps(line, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
