"""Throughput of the differential fuzz loop (canasta fuzz) with the reference engine on both sides,
in-process: games, steps (actions played) and checks (every comparison: the chosen action, the
near-miss illegal actions, the legal-action lists) per second.

    python benchmarks/fuzz_speed.py [--games 10] [--runs 3] [--seed 0] [--no-legal-actions]

Each figure is the median of --runs runs of the same games, printed with the machine's details,
per wall-clock second and per CPU second of the process (on a shared machine the second is the
one to compare).
A step costs two legal_actions() listings of the reference (the oracle's choice and the
comparison of lists), the near misses' checks and the mirrored apply/observe calls, so the
figure follows the speed of the reference's move generator. Run it on an idle machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.fuzz import Fuzzer, FuzzSettings
from canasta_reference.engine import ReferenceEngine


def run(games: int, seed: int, legal_actions: bool) -> tuple[float, float, int, int, int]:
    spec = load_spec()
    settings = FuzzSettings(seed=seed, legal_actions_every=1 if legal_actions else 0)
    fuzzer = Fuzzer(ReferenceEngine(spec), settings, oracle=ReferenceEngine(spec), spec=spec)
    started, cpu_started = time.perf_counter(), time.process_time()
    findings = fuzzer.run(range(games))
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    if findings:
        raise SystemExit(f"the reference disagrees with itself: {findings[0].report()}")
    return seconds, cpu, fuzzer.stats.hands, fuzzer.stats.steps, fuzzer.stats.checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-legal-actions", action="store_true", help="skip the comparison of legal-action lists")
    args = parser.parse_args()
    results = [run(args.games, args.seed, not args.no_legal_actions) for _ in range(args.runs)]
    seconds = statistics.median(r[0] for r in results)
    cpu = statistics.median(r[1] for r in results)
    _, _, hands, steps, checks = results[0]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}")
    print(f"fuzz loop, reference vs reference in-process: {args.games} games, {hands} hands, {steps} steps, {checks} checks "
          f"(seed {args.seed}, legal-action lists {'off' if args.no_legal_actions else 'on'})")
    print(f"median of {args.runs} runs: {seconds:.2f} s = {args.games / seconds:.2f} games/s, {steps / seconds:.0f} steps/s, {checks / seconds:.0f} checks/s")
    print(f"per CPU second (median {cpu:.2f} s of CPU, load average {os.getloadavg()[0]:.1f}): "
          f"{steps / cpu:.0f} steps/s, {checks / cpu:.0f} checks/s")


if __name__ == "__main__":
    main()
