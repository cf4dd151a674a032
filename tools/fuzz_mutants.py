"""Fuzz every deliberately wrong engine of tests/mutants.py against the reference, in-process, and
report how long each took to be found and whether its shrunk scenario is confirmed (valid, passes
on the reference, fails on the mutant).

    python tools/fuzz_mutants.py [--seconds 120] [--seed 0] [--out DIR]

The budget per mutant is --seconds; the report is one line per mutant (seconds, games, kind,
cards in play of the scenario) and a total.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT / "conformance", ROOT / "reference_impl", ROOT / "tests"):
    sys.path.insert(0, str(path))

from canasta_conformance.contract.spec import load_spec  # noqa: E402
from canasta_conformance.running.fuzz import Fuzzer, FuzzSettings  # noqa: E402
from canasta_conformance.running.shrink import shrink_and_write  # noqa: E402
from mutants import MUTANTS  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0, help="budget per mutant (default 120)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default=None, help="comma-separated mutant names")
    parser.add_argument("--out", type=Path, default=None, help="keep the scenarios in DIR")
    args = parser.parse_args()
    spec = load_spec()
    found = 0
    chosen = [m for m in MUTANTS if not args.only or m.name in args.only.split(",")]
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch)
        for mutant in chosen:
            fuzzer = Fuzzer(mutant.factory()(), FuzzSettings(seed=args.seed), spec=spec)
            started = time.perf_counter()
            findings = fuzzer.run(seconds=args.seconds)
            seconds = time.perf_counter() - started
            if not findings:
                print(f"{mutant.name:<36} NOT FOUND in {seconds:.0f} s ({fuzzer.stats.games} games)", flush=True)
                continue
            try:
                written = shrink_and_write(findings[0], fuzzer, spec, f"tests.mutants:{mutant.name}", out)
            except Exception as error:  # noqa: BLE001 - report it and go on with the next mutant
                print(f"{mutant.name:<36} found in {seconds:5.1f} s, but shrinking failed: {error!r}", flush=True)
                continue
            status = "confirmed" if written.confirmed else "NOT CONFIRMED"
            found += written.confirmed
            print(
                f"{mutant.name:<36} found in {seconds:5.1f} s, game {findings[0].game:3d}: {findings[0].kind:<13} "
                f"{status}, {written.cards_in_play} cards in play: {written.id}", flush=True,
            )
    print(f"{found}/{len(chosen)} mutants found with a confirmed scenario within {args.seconds:.0f} s each (seed {args.seed})")
    return 0 if found == len(chosen) else 1


if __name__ == "__main__":
    sys.exit(main())
