"""Reference engine throughput: complete random hands per second and applied actions per second.

    python benchmarks/engine_speed.py [--hands 200] [--runs 5]

Hands/s: the random legal player (canasta_reference.selfplay) plays complete hands from shuffled
decks, engine checks included. Actions/s: the recorded actions of those hands are applied again
(deal + apply only, no player), which is what an engine's apply costs. Each figure is the median
of --runs runs, printed with the machine's details. Run it on an idle machine, one core.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from canasta_conformance.cards import full_deck
from canasta_conformance.engine import DealSetup
from canasta_conformance.spec import load_spec
from canasta_reference.engine import ReferenceEngine
from canasta_reference.selfplay import HandRecord, RandomPlayer, play_hand


def play_hands(count: int, seed: int) -> tuple[float, list[HandRecord]]:
    engine = ReferenceEngine()
    rng = random.Random(seed)
    player = RandomPlayer(rng)
    hands = []
    started = time.perf_counter()
    for number in range(count):
        deck = full_deck()
        rng.shuffle(deck)
        hand = HandRecord(number % 4, tuple(deck))
        engine.deal(DealSetup("classic", {}, hand.dealer, hand.deck))
        play_hand(engine, player, hand, 5000)
        hands.append(hand)
    return time.perf_counter() - started, hands


def apply_actions(hands: list[HandRecord]) -> tuple[float, int]:
    engine = ReferenceEngine()
    applied = 0
    started = time.perf_counter()
    for hand in hands:
        engine.deal(DealSetup("classic", {}, hand.dealer, hand.deck))
        for action in hand.actions:
            engine.apply(action)
        applied += len(hand.actions)
    return time.perf_counter() - started, applied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    load_spec()  # once, outside the timings
    hand_rates, action_rates, sizes = [], [], []
    for run in range(args.runs):
        seconds, hands = play_hands(args.hands, seed=run)
        hand_rates.append(args.hands / seconds)
        apply_seconds, applied = apply_actions(hands)
        action_rates.append(applied / apply_seconds)
        sizes.append(applied / args.hands)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()} ({platform.python_implementation()})")
    print(f"complete random hands per second: median {statistics.median(hand_rates):,.0f} (runs: {', '.join(f'{r:,.0f}' for r in hand_rates)}; {args.hands} hands each, {statistics.mean(sizes):.0f} actions per hand)")
    print(f"applied actions per second:       median {statistics.median(action_rates):,.0f} (runs: {', '.join(f'{r:,.0f}' for r in action_rates)})")


if __name__ == "__main__":
    main()
