"""The property checks of tests/test_legal_actions.py over many positions (the longer run).

    python benchmarks/legal_long_check.py [--positions 100000] [--seed 0] [--variant V,...] [--options name=value,...]

Random walks over every supported variant (a fresh deal per hand, then random listed actions,
"yes" answered more often, half the time the melding self-play player's choice): at every position the list must not be empty while the hand
is live, every listed action must be accepted by apply, and every action accepted among the
candidates of tests/test_legal_actions.py (random melds and takes, near misses of listed ones)
must be listed up to the equivalence documented in canasta_reference/movegen.py. ``--variant``
walks only the named variants, ``--options`` plays them with options (name=value, comma-separated,
values read as YAML, as in listing_latency.py: meld.sequences=true is the Canasta Palace
"Sequences" option).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from canasta_conformance.contract.model import Meld
from test_legal_actions import SUPPORTED, check_position, choose, walk


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default=",".join(SUPPORTED), help="comma-separated variants (default: every supported one)")
    parser.add_argument("--options", default="", help="variant options, name=value comma-separated (values read as YAML)")
    args = parser.parse_args()
    variants = args.variant.split(",")
    options = {name: yaml.safe_load(value) for name, _, value in (item.partition("=") for item in args.options.split(",") if item)}
    started, cpu = time.time(), time.process_time()
    positions = accepted = hands = with_sequences = 0
    seed = args.seed
    while positions < args.positions:
        variant = variants[seed % len(variants)]
        engine = walk(variant, seed, 0, options)
        rng = random.Random(seed)
        while engine.state is not None and engine.state.phase != "over" and positions < args.positions:
            accepted += check_position(engine, rng)
            positions += 1
            with_sequences += any(isinstance(a, Meld) and any(g.sequence for g in a.melds) for a in engine.legal_actions())
            if positions % 5000 == 0:
                print(f"... {positions} positions, {accepted} accepted candidates, {time.time() - started:.0f} s", file=sys.stderr, flush=True)
            assert engine.apply(choose(engine, rng)).accepted
        hands += 1
        seed += 1
    print(
        f"method: every position of random walks over {len(variants)} variant(s){f' with options {options}' if options else ''} checked (non-empty, listed => accepted, "
        f"accepted near misses => listed up to the equivalence)"
    )
    print(
        f"{positions} positions in {hands} hands (seeds {args.seed}-{seed - 1}), {accepted} accepted candidates all listed"
        f"{f', {with_sequences} positions listing sequence melds' if with_sequences else ''}; "
        f"{time.time() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU"
    )


if __name__ == "__main__":
    main()
