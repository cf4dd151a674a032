"""The property checks of tests/test_legal_actions.py over many positions (the longer run).

    python benchmarks/legal_long_check.py [--positions 100000] [--seed 0]

Random walks over every supported variant (a fresh deal per hand, then random listed actions,
"yes" answered more often, half the time the melding self-play player's choice): at every position the list must not be empty while the hand
is live, every listed action must be accepted by apply, and every action accepted among the
candidates of tests/test_legal_actions.py (random melds and takes, near misses of listed ones)
must be listed up to the equivalence documented in canasta_reference/movegen.py.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_legal_actions import SUPPORTED, check_position, choose, walk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started, cpu = time.time(), time.process_time()
    positions = accepted = hands = 0
    seed = args.seed
    while positions < args.positions:
        variant = SUPPORTED[seed % len(SUPPORTED)]
        engine = walk(variant, seed, 0)
        rng = random.Random(seed)
        while engine.state is not None and engine.state.phase != "over" and positions < args.positions:
            accepted += check_position(engine, rng)
            positions += 1
            if positions % 5000 == 0:
                print(f"... {positions} positions, {accepted} accepted candidates, {time.time() - started:.0f} s", file=sys.stderr, flush=True)
            assert engine.apply(choose(engine, rng)).accepted
        hands += 1
        seed += 1
    print(
        f"method: every position of random walks over {len(SUPPORTED)} variants checked (non-empty, listed => accepted, "
        f"accepted near misses => listed up to the equivalence)"
    )
    print(
        f"{positions} positions in {hands} hands (seeds {args.seed}-{seed - 1}), {accepted} accepted candidates all listed; "
        f"{time.time() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU"
    )


if __name__ == "__main__":
    main()
