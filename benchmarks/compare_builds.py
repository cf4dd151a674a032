"""Two builds of the engine side by side: one benchmark script run alternately from two trees.

    taskset -c 0 python benchmarks/compare_builds.py TREE_A TREE_B [--pairs 4] -- apply_speed.py --hands 60 --runs 3

A tree is a checkout (or a ``git archive`` of one) holding ``conformance/`` and
``reference_impl/``, e.g. one as Python source and one after ``python tools/build_accelerated.py``.
The script (a benchmark of this folder, given with its arguments after ``--``) runs as a fresh
process with ``--json``, A B A B ... for ``--pairs`` pairs, each process importing the engine and
the contract from its tree. Every figure of its JSON is compared pair by pair (speed-up of B over
A: B/A for a rate, A/B for a time in ms); the median and range of the pair ratios are the result,
robust to load that changes between pairs. compare_engines.py does the same within one process
for two source trees; a compiled build cannot be imported twice in one process, hence this one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def flatten(value: Any, prefix: str = "") -> dict[str, float]:
    """The numeric figures of a benchmark's JSON, by dotted path (results per variant by the variant's
    name; other lists, such as the single runs, left out)."""
    if isinstance(value, dict):
        found: dict[str, float] = {}
        for key, item in value.items():
            found.update(flatten(item, f"{prefix}{key}."))
        return found
    if isinstance(value, list) and value and all(isinstance(item, dict) and "variant" in item for item in value):
        return flatten({item["variant"]: item for item in value}, prefix)  # one result per variant
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {prefix.rstrip("."): float(value)}
    return {}


def run(tree: Path, script: list[str]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree / "conformance"), str(tree / "reference_impl")])}
    done = subprocess.run([sys.executable, str(HERE / script[0]), *script[1:], "--json"], env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{script[0]} failed in {tree}:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("first", type=Path, help="tree A")
    parser.add_argument("second", type=Path, help="tree B")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    script = argv[split + 1:]  # -- SCRIPT [ARGS]: a benchmark of this folder and its arguments
    if not script:
        parser.error("name the benchmark script after --")
    runs: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    method = ""
    for _ in range(args.pairs):
        for side, tree in (("A", args.first), ("B", args.second)):
            result = run(tree, script)
            method = method or str(result.get("method") or result.get("variants", [{}])[0].get("method", ""))
            runs[side].append(flatten(result))
    figures: dict[str, dict[str, Any]] = {}
    for name in sorted(set(runs["A"][0]) & set(runs["B"][0])):
        if name.endswith(("cpus", "positions", "actions_per_hand", "listed")):
            continue
        a = [r[name] for r in runs["A"]]
        b = [r[name] for r in runs["B"]]
        if not all(a) or not all(b):
            continue
        ratios = [x / y if name.endswith("_ms") else y / x for x, y in zip(a, b, strict=True)]
        figures[name] = {"A": statistics.median(a), "B": statistics.median(b), "speedup": statistics.median(ratios),
                         "speedup_min": min(ratios), "speedup_max": max(ratios)}
    summary = (
        f"{' '.join(script)}: A = {args.first}, B = {args.second}; {args.pairs} pairs run alternately (A B A B ...), one process each; "
        "median of each side, and the speed-up of B over A pair by pair (median, range)"
    )
    if args.json:
        print(json.dumps({"benchmark": "compare_builds", "method": summary, "script_method": method, "figures": figures}, indent=2))
        return
    print(f"method: {summary}")
    print(f"script: {method}")
    for name, row in figures.items():
        print(f"{name:<40} A {row['A']:>12,.3f}  B {row['B']:>12,.3f}  speed-up {row['speedup']:.2f} ({row['speedup_min']:.2f}-{row['speedup_max']:.2f})")


if __name__ == "__main__":
    main()
