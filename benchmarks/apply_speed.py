"""Apply-only replay: what ``apply`` costs, with no move listing and no choice.

    python benchmarks/apply_speed.py [--hands 200] [--runs 5] [--variant classic] [--json]

Hands of self-play (uniformly random elements of legal_actions(), fresh deals) are recorded
first, untimed; then each run deals every hand again and applies its recorded actions, timing
only the apply calls (every one is validated as usual). The figure is the median of --runs runs
on one process (one core). This is not the engine's speed as a driver sees it: see
selfplay_speed.py for that.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from typing import Any

from _games import record_hands
from canasta_reference.engine import ReferenceEngine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    hands = record_hands(args.hands, 0, args.variant)
    engine = ReferenceEngine()
    rates, cpu_rates = [], []
    applied = sum(len(h.actions) for h in hands)
    for _ in range(args.runs):
        seconds = cpu = 0.0
        for hand in hands:
            engine.deal(hand.setup)
            apply = engine.apply
            started, cpu_started = time.perf_counter(), time.process_time()
            for action in hand.actions:
                apply(action)
            seconds += time.perf_counter() - started
            cpu += time.process_time() - cpu_started
        rates.append(applied / seconds)
        cpu_rates.append(applied / cpu)
    method = (
        f"apply-only replay, {args.variant}: {args.hands} recorded self-play hands ({applied} actions) dealt again and "
        f"their actions applied, only the apply calls timed; median of {args.runs} runs, one process; per wall-clock and per CPU second"
    )
    result: dict[str, Any] = {
        "benchmark": "apply_speed", "method": method, "variant": args.variant,
        "actions_per_second": statistics.median(rates), "cpu_actions_per_second": statistics.median(cpu_rates), "runs": rates,
        "python": f"{platform.python_implementation()} {platform.python_version()}", "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"method: {method}")
    print(f"applied actions per second: median {result['actions_per_second']:,.0f} (runs: {', '.join(f'{r:,.0f}' for r in rates)})")
    print(f"per CPU second:             median {result['cpu_actions_per_second']:,.0f}")


if __name__ == "__main__":
    main()
