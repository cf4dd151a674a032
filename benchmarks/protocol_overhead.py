"""What the JSON-lines protocol costs: the whole corpus in-process vs through ``canasta serve``.

    python benchmarks/protocol_overhead.py [--runs 3]

Two measures, each the median of --runs runs:

- suite: the wall time of a whole pytest run of the corpus (what ``canasta run`` does: start,
  collect, run every scenario, summary), with the reference engine in-process and with the same
  engine behind ``canasta serve`` (``--canasta-engine-cmd``). The target is a ratio of at most 2.
- scenarios only: the corpus loaded once, then every scenario run by the runner against the engine
  in-process and against a SubprocessEngine talking to ``canasta serve`` (started and handshaken
  before the clock starts): the protocol's cost per message, with nothing around it.

Run it on an idle machine; the figures are printed with the machine's details.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from canasta_conformance.contract.paths import scenarios_dir
from canasta_conformance.contract.scenario import load_scenarios, scenario_files
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.runner import run_scenario
from canasta_conformance.transports.subprocess_engine import SubprocessEngine
from canasta_reference import create_engine

SERVE = [sys.executable, "-m", "canasta_conformance", "serve"]


def suite_seconds(engine: list[str]) -> float:
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        completed = subprocess.run(
            [sys.executable, "-m", "pytest", str(scenarios_dir()), "-q", "-p", "no:cacheprovider", *engine],
            cwd=folder, capture_output=True, text=True,
        )
        seconds = time.perf_counter() - started
    if completed.returncode not in (0, 1):
        raise SystemExit(f"the suite run failed:\n{completed.stdout[-2000:]}{completed.stderr[-2000:]}")
    return seconds


def scenarios_seconds(make_engine: Callable[[], object]) -> tuple[float, int]:
    spec = load_spec()
    scenarios, _ = load_scenarios(scenario_files(scenarios_dir()), spec)
    engine = make_engine()
    capabilities = engine.capabilities()  # type: ignore[attr-defined]
    try:
        started = time.perf_counter()
        for scenario in scenarios:
            run_scenario(scenario, engine, capabilities)  # type: ignore[arg-type]
        return time.perf_counter() - started, len(scenarios)
    finally:
        close = getattr(engine, "close", None)
        if close:
            close()


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{platform.python_implementation()} {platform.python_version()} on {platform.platform()}, "
          f"{os.cpu_count()} CPUs; median of {args.runs} runs")

    in_process = median_of(args.runs, lambda: suite_seconds(["--canasta-engine", "canasta_reference:create_engine"]))
    served = median_of(args.runs, lambda: suite_seconds(["--canasta-engine-cmd", shlex.join(SERVE)]))
    print(f"suite (pytest run of the corpus): in-process {in_process:.2f} s, canasta serve {served:.2f} s, "
          f"ratio {served / in_process:.2f} (target <= 2)")

    count = 0

    def local() -> float:
        nonlocal count
        seconds, count = scenarios_seconds(create_engine)
        return seconds

    scenarios_local = median_of(args.runs, local)
    scenarios_served = median_of(args.runs, lambda: scenarios_seconds(lambda: SubprocessEngine(SERVE))[0])
    print(f"scenarios only ({count} scenarios, runner alone): in-process {scenarios_local:.3f} s, "
          f"canasta serve {scenarios_served:.3f} s, ratio {scenarios_served / scenarios_local:.1f} "
          f"({1000 * (scenarios_served - scenarios_local) / count:.2f} ms per scenario)")


if __name__ == "__main__":
    main()
