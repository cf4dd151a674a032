"""Self-play with move listing: the engine's speed as a driver of it experiences it.

    python benchmarks/selfplay_speed.py [--hands 200] [--runs 5] [--variant classic] [--no-ask] [--json]

Each hand is dealt from a freshly shuffled deck (the deal is timed), then, until the hand is over,
the driver lists ``legal_actions()`` and applies a uniformly random element of the list. Actions
are the applied player moves (answers to "may I go out?" included unless --no-ask, which drops
the question from the choices, so no answer follows either). Each figure is the median of --runs
runs on one process (one core). Run it on an idle machine and compare only figures measured side
by side.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from typing import Any

from _games import random_deal
from canasta_conformance.contract.model import Ask
from canasta_reference.engine import ReferenceEngine

MAX_ACTIONS_PER_HAND = 20_000


def run(hands: int, seed: int, variant: str, no_ask: bool) -> tuple[float, float, int]:
    """Wall and CPU seconds for ``hands`` complete hands, and the actions applied."""
    engine = ReferenceEngine()
    rules = engine.rules_for(variant, {})
    rng = random.Random(seed)
    applied = 0
    started, cpu = time.perf_counter(), time.process_time()
    for number in range(hands):
        engine.deal(random_deal(rules, variant, number, rng))
        state = engine.state
        for _ in range(MAX_ACTIONS_PER_HAND):
            if state.phase == "over":
                break
            choices = engine.legal_actions()
            if no_ask:
                choices = [a for a in choices if type(a) is not Ask]
            outcome = engine.apply(choices[rng.randrange(len(choices))])
            if not outcome.accepted:
                raise RuntimeError(f"a listed action was refused: {outcome}")
            applied += 1
            state = engine.state
        else:
            raise RuntimeError(f"a hand did not end within {MAX_ACTIONS_PER_HAND} actions")
    return time.perf_counter() - started, time.process_time() - cpu, applied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--no-ask", action="store_true", help="never ask partner (so never answer)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ReferenceEngine().rules_for(args.variant, {})  # load the spec outside the timings
    hand_rates, action_rates, cpu_hand_rates, cpu_action_rates, per_hand = [], [], [], [], []
    for number in range(args.runs):
        seconds, cpu, applied = run(args.hands, number, args.variant, args.no_ask)
        hand_rates.append(args.hands / seconds)
        action_rates.append(applied / seconds)
        cpu_hand_rates.append(args.hands / cpu)
        cpu_action_rates.append(applied / cpu)
        per_hand.append(applied / args.hands)
    method = (
        f"self-play, {args.variant}: fresh shuffled deal per hand (timed), then a uniformly random element of "
        f"legal_actions() applied until the hand is over{' (ask never chosen)' if args.no_ask else ''}; "
        f"median of {args.runs} runs of {args.hands} hands, one process; per wall-clock second and per CPU second of the process"
    )
    result: dict[str, Any] = {
        "benchmark": "selfplay_speed", "method": method, "variant": args.variant, "no_ask": args.no_ask,
        "actions_per_second": statistics.median(action_rates), "hands_per_second": statistics.median(hand_rates),
        "cpu_actions_per_second": statistics.median(cpu_action_rates), "cpu_hands_per_second": statistics.median(cpu_hand_rates),
        "actions_per_hand": statistics.mean(per_hand),
        "runs": {"actions_per_second": action_rates, "hands_per_second": hand_rates, "cpu_actions_per_second": cpu_action_rates},
        "python": f"{platform.python_implementation()} {platform.python_version()}", "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"method: {method}")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()} ({platform.python_implementation()})")
    print(f"applied actions per second: median {result['actions_per_second']:,.0f} (runs: {', '.join(f'{r:,.0f}' for r in action_rates)})")
    print(f"hands per second:           median {result['hands_per_second']:,.1f} (runs: {', '.join(f'{r:,.1f}' for r in hand_rates)}; {result['actions_per_hand']:.0f} actions per hand)")
    print(f"per CPU second:             median {result['cpu_actions_per_second']:,.0f} actions, {result['cpu_hands_per_second']:,.1f} hands (equals wall clock on an idle core)")


if __name__ == "__main__":
    main()
