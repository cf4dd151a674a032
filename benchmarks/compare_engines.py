"""Two versions of the reference engine compared in one process, in alternating batches of hands.

    python benchmarks/compare_engines.py BEFORE_DIR AFTER_DIR [--variant classic] [--batches 16] [--hands 5] [--repeats 1] [--json]

BEFORE_DIR and AFTER_DIR are copies of the ``canasta_reference`` package (for example
``git archive <commit> reference_impl | tar -x -C /tmp/before`` gives
``/tmp/before/reference_impl/canasta_reference``). Each is imported under its own name; then
batches of self-play hands (fresh shuffled deals, a uniformly random element of
``legal_actions()`` applied until the hand is over, as selfplay_speed.py) are played by the two
engines in turn, A B A B ..., the same deals for both. Each engine's figure is its applied actions
per CPU second of the process over all its batches. On a shared machine, the load changes from
minute to minute: engines measured in the same seconds, in one process, compare far better than
two runs of selfplay_speed.py. The speedup is A's CPU time over B's (the same actions). With
``--repeats N`` each batch is played N times by each engine (A B A B ...) and each engine's fastest
time of the batch is kept: on a machine shared with other jobs, the slower runs measure the load.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _games import random_deal


def load(name: str, source: Path, root: Path) -> Any:
    """The ReferenceEngine class of the package at ``source``, imported as ``name``."""
    shutil.copytree(source, root / name)
    return importlib.import_module(f"{name}.engine").ReferenceEngine


def play(engine_class: Any, variant: str, hands: int, seed: int) -> tuple[float, int]:
    """CPU seconds and applied actions for ``hands`` hands of self-play."""
    engine = engine_class()
    rules = engine.rules_for(variant, {})
    rng = random.Random(seed)
    applied = 0
    started = time.process_time()
    for number in range(hands):
        engine.deal(random_deal(rules, variant, number, rng))
        state = engine.state
        while state.phase != "over":
            choices = engine.legal_actions()
            engine.apply(choices[rng.randrange(len(choices))])
            applied += 1
            state = engine.state
    return time.process_time() - started, applied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--batches", type=int, default=16)
    parser.add_argument("--hands", type=int, default=5, help="hands per batch")
    parser.add_argument("--repeats", type=int, default=1,
                        help="play each batch this many times with each engine, alternately, and keep each engine's fastest "
                             "(on a loaded machine the slow runs are the load's, not the engine's)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="canasta-engines-"))
    sys.path.insert(0, str(root))
    try:
        engines = (load("engine_before", args.before, root), load("engine_after", args.after, root))
        for engine_class in engines:
            play(engine_class, args.variant, args.hands, -1)  # warm up: imports, spec, tables
        cpu = [0.0, 0.0]
        actions = [0, 0]
        ratios = []
        for batch in range(args.batches):
            seconds = [float("inf"), float("inf")]
            played = [0, 0]
            for _ in range(args.repeats):
                for i, engine_class in enumerate(engines):
                    spent, played[i] = play(engine_class, args.variant, args.hands, batch)
                    seconds[i] = min(seconds[i], spent)
            for i in range(2):
                cpu[i] += seconds[i]
                actions[i] += played[i]
            ratios.append(seconds[0] / seconds[1])
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if actions[0] != actions[1]:
        raise SystemExit(f"the two engines played different games ({actions[0]} and {actions[1]} actions): their lists differ")
    method = (
        f"in-process A/B, {args.variant}: {args.batches} batches of {args.hands} self-play hands (fresh shuffled deals, uniformly "
        f"random listed actions), played by the two engines in turn with the same deals"
        f"{f', each batch {args.repeats} times by each engine alternately, its fastest kept' if args.repeats > 1 else ''}; "
        f"actions per CPU second of the process"
    )
    result: dict[str, Any] = {
        "benchmark": "compare_engines", "method": method, "variant": args.variant, "actions": actions[0],
        "before_actions_per_cpu_second": actions[0] / cpu[0], "after_actions_per_cpu_second": actions[1] / cpu[1],
        "speedup": cpu[0] / cpu[1], "median_batch_speedup": statistics.median(ratios), "batch_speedups": ratios,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"method: {method}")
    print(f"before: {result['before_actions_per_cpu_second']:,.0f} actions/s   after: {result['after_actions_per_cpu_second']:,.0f} actions/s   "
          f"({actions[0]} actions each)")
    print(f"speedup: {result['speedup']:.3f} (median of the batches {result['median_batch_speedup']:.3f}, "
          f"range {min(ratios):.2f}-{max(ratios):.2f})")


if __name__ == "__main__":
    main()
