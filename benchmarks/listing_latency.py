"""legal_actions() latency per position, median and 99th percentile, by phase.

    python benchmarks/listing_latency.py [--hands 100] [--repeat 1] [--variant classic,modern-american|all]
                                         [--options meld.sequences=true] [--worst N] [--json] [--against PACKAGE_DIR]

The positions of --hands hands of self-play (uniformly random listed actions, fresh deals) are
recorded, untimed; each is loaded into the engine (untimed) and its first legal_actions() is timed
in CPU time of the process, as a game lists a position once: nothing the position derives is known
yet, while the engine's tables hold what the positions before it left (they are emptied after the
recording, which listed these very positions). --repeat N loads and times
each position N times and keeps the fastest, to drop interruptions; its later timings find the
tables the first one filled for this very hand, so they flatter (about 1.5x at p99 for Modern
American's play before the initial meld): the default is 1. The recorded positions are frozen
out of the garbage collector first, so its passes over them do not count. Phases: "draw" (start of a turn),
"play" split by whether the side has made its initial meld, and "answer" (a question pending).
Each variant of the comma-separated --variant list is reported on its own (by default Classic and
Modern American, whose initial meld is generated as a whole; "all": every variant the engine plays).
--options sets variant options (name=value, comma-separated, values read as YAML) for every variant listed.
--worst N prints the N slowest positions of each variant as JSON lines (phase, time, list length and
the position itself), to profile them.
--against PACKAGE_DIR (a copy of the ``canasta_reference`` package, e.g. from ``git archive <commit>
reference_impl``) measures that engine side by side with this one, in the same process and the
same seconds: each position is loaded and listed once by each engine, in turns (which goes first
alternates), each engine keeping its own tables (both emptied after the recording, which listed the
same positions), so both meet the positions as a game would; the
figures of both are printed, with this engine's p99 and median over the other's by phase (on a
shared machine, far steadier than two runs). Both engines share the process's garbage collector:
a pass set off by one engine's allocations may fall in the other's listing, and what one leaves
to the collector (reference cycles) is collected in passes both meet. A change in what an engine
leaves to the collector therefore shows fully only in separate runs of each (alternated, in the
same minutes); the ratio here shows the rest.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from _games import record_hands
from canasta_conformance.contract.model import Position
from canasta_reference import memo
from canasta_reference.engine import ReferenceEngine


def phase_of(engine: ReferenceEngine) -> str:
    state = engine.state
    assert state is not None
    if state.question == "pending":
        return "answer"
    melded = "melded" if state.has_melded(state.side) else "unmelded"
    return f"{state.phase} ({melded})"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1, help="timings of each position (each after a fresh load), fastest kept")
    parser.add_argument("--variant", default="classic,modern-american", help='comma-separated variants, or "all"')
    parser.add_argument("--options", default="", help="variant options, name=value comma-separated (values read as YAML)")
    parser.add_argument("--worst", type=int, default=0, help="print the N slowest positions of each variant as JSON lines")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--against", type=Path, help="a copy of the canasta_reference package to measure side by side with this one")
    args = parser.parse_args()
    options = {name: yaml.safe_load(value) for name, _, value in (item.partition("=") for item in args.options.split(",") if item)}
    variants = ReferenceEngine().capabilities().variants if args.variant == "all" else tuple(args.variant.split(","))
    if args.against:
        other = _other_engine(args.against)
        results = [side_by_side(variant, args.hands, options, other) for variant in variants]
    else:
        results = [measure(variant, args.hands, args.repeat, options, args.worst) for variant in variants]
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else {"benchmark": "listing_latency", "variants": results}, indent=2))
        return
    for result in results:
        print(f"method: {result['method']}")
        for phase, row in result["phases"].items():
            print(f"{phase:<18} {row['positions']:6d} positions  {_row_text(row)}")
        for worst in result.get("worst", ()):
            print(json.dumps(worst))


def _row_text(row: dict[str, Any]) -> str:
    """A phase's figures: median, p99 and max; or, side by side (--against), the other engine's
    p99 and median, this one's, and their ratios."""
    if "other_p99_ms" not in row:
        return f"median {row['median_ms']:.3f} ms  p99 {row['p99_ms']:.3f} ms  max {row['max_ms']:.3f} ms"
    return (f"p99 {row['other_p99_ms']:.3f} -> {row['p99_ms']:.3f} ms ({row['p99_ratio']:.2f})  "
            f"median {row['other_median_ms']:.3f} -> {row['median_ms']:.3f} ms ({row['median_ratio']:.2f})")


def measure(variant: str, count: int, repeat: int, options: dict[str, Any], worst: int = 0) -> dict[str, Any]:
    hands = record_hands(count, 0, variant, positions=True, options=options)
    memo.clear_all()  # the recording listed these very positions: the timing starts from empty tables
    gc.collect()
    gc.freeze()  # the recorded positions are not garbage: keep collections of them out of the timings
    engine = ReferenceEngine()
    times: dict[str, list[float]] = {}
    slowest: list[tuple[float, str, Position]] = []
    for hand in hands:
        for position in hand.positions:
            best = min(_time(engine, position) for _ in range(repeat))
            phase = phase_of(engine)
            times.setdefault(phase, []).append(best)
            times.setdefault("all", []).append(best)
            if worst:
                slowest = sorted([*slowest, (best, phase, position)], key=lambda entry: -entry[0])[:worst]
    gc.unfreeze()
    shown = f" with options {options}" if options else ""
    method = (
        f"legal_actions() latency, {variant}{shown}: every position of {count} self-play hands (uniformly random "
        f"listed actions, fresh deals) loaded and listed once (CPU time of the first listing after the load"
        f"{'' if repeat == 1 else f', fastest of {repeat} loads'}); median and p99 by phase"
    )
    rows = {
        phase: {"positions": len(values), "median_ms": 1000 * statistics.median(values), "p99_ms": 1000 * percentile(values, 0.99),
                "max_ms": 1000 * max(values)}
        for phase, values in sorted(times.items())
    }
    slow = []
    for best, phase, position in slowest:
        engine.load(position)
        slow.append({"variant": variant, "phase": phase, "ms": 1000 * best, "listed": len(engine.legal_actions()),
                     "position": position.to_json()})
    return {
        "benchmark": "listing_latency", "method": method, "variant": variant, "options": options, "phases": rows, "worst": slow,
        "python": f"{platform.python_implementation()} {platform.python_version()}", "cpus": os.cpu_count(),
    }


def _other_engine(package: Path) -> Any:
    """The ReferenceEngine class of the package copy at ``package``, imported under its own name."""
    root = Path(tempfile.mkdtemp(prefix="canasta-listing-"))
    shutil.copytree(package, root / "engine_against")
    sys.path.insert(0, str(root))
    return importlib.import_module("engine_against.engine").ReferenceEngine


def side_by_side(variant: str, count: int, options: dict[str, Any], other: Any) -> dict[str, Any]:
    """Every position of ``count`` hands listed once by this engine and once by ``other`` (see --against)."""
    hands = record_hands(count, 0, variant, positions=True, options=options)
    memo.clear_all()  # the recording listed these very positions: both engines start from empty tables
    importlib.import_module(other.__module__.rpartition(".")[0] + ".memo").clear_all()
    gc.collect()
    gc.freeze()
    engines = (ReferenceEngine(), other())
    times: tuple[dict[str, list[float]], dict[str, list[float]]] = ({}, {})
    turn = 0
    for hand in hands:
        for position in hand.positions:
            turn += 1
            for side in (0, 1) if turn % 2 else (1, 0):
                took = _time(engines[side], position)
                phase = phase_of(engines[side])
                times[side].setdefault(phase, []).append(took)
                times[side].setdefault("all", []).append(took)
    gc.unfreeze()
    shown = f" with options {options}" if options else ""
    method = (
        f"legal_actions() latency side by side, {variant}{shown}: every position of {count} self-play hands loaded and listed "
        "once by each engine in turns (which goes first alternating; CPU time of the first listing after the load; each engine "
        "with its own tables, both emptied after the recording); this engine's p99 and median over the other's, by phase"
    )
    rows = {}
    for phase, values in sorted(times[0].items()):
        before = times[1][phase]
        p99, other_p99 = percentile(values, 0.99), percentile(before, 0.99)
        median, other_median = statistics.median(values), statistics.median(before)
        rows[phase] = {"positions": len(values), "p99_ms": 1000 * p99, "other_p99_ms": 1000 * other_p99, "p99_ratio": p99 / other_p99,
                       "median_ms": 1000 * median, "other_median_ms": 1000 * other_median, "median_ratio": median / other_median}
    return {"benchmark": "listing_latency", "method": method, "variant": variant, "options": options, "phases": rows,
            "python": f"{platform.python_implementation()} {platform.python_version()}", "cpus": os.cpu_count()}


def _time(engine: ReferenceEngine, position: Position) -> float:
    """The first listing of ``position`` after it is loaded (untimed): what the position derives
    once (the frozen pile, whether the player can go out) is not yet known, as in a game."""
    engine.load(position)
    started = time.process_time()
    engine.legal_actions()
    return time.process_time() - started


if __name__ == "__main__":
    main()
