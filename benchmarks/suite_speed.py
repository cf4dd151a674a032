"""The conformance suite's own speed: plugin import time, CPU per scenario, and when xdist pays.

    python benchmarks/suite_speed.py [--runs 5] [--sizes 250,500,1000,2000] [--compare CHECKOUT] [--project-suite] [--engine-cmd CMD] [--floor MS,...] [--no-bytecode] [--json]

Every figure is the median of --runs runs, each in a fresh process, and is printed after a
one-line description of how it was measured:

- plugin import: ``import canasta_conformance.pytest_plugin.plugin`` timed inside an interpreter that has
  already imported pytest (what the plugin adds to every pytest run of an environment where the
  package is installed).
- CPU per scenario: the corpus copied to a temporary folder and run in-process
  (``pytest -n 0 -q``) on the reference engine; the run's CPU time (user + system, from
  ``getrusage``) minus that of the same command over one scenario, divided by the number of
  further scenarios. ``cold``: an empty scenario cache; ``warm``: the cache the cold run left.
- xdist: the corpus copied K times (ids renamed) to reach each size, wall and CPU time in-process
  against ``-n 2`` (alternating), with the ratio of the wall times (and the same for the
  ``--compare`` checkout, in the same rounds). ``--engine-cmd CMD``: against the engine CMD serves
  over the adapter protocol (a subprocess per worker, as an engine in another language is run),
  instead of the reference engine in-process.
- ``--floor 0,0.5,1,2``: pytest-xdist's own break-even, without scenarios: at each size, one module
  of that many parametrized tests, each spending the given milliseconds of CPU in a loop, wall
  time of ``-n 0`` and ``-n 2`` alternating (this plugin installed, as in the scenario runs). It
  says how much CPU a test must cost for two workers to beat one process at that size on this
  machine, whatever the tests are.
- ``--project-suite``: the README's test command (``pytest -n 2`` in the checkout), wall time.
- bytecode: the checkout's modules are byte-compiled first and Python's bytecode cache is on, as
  for a harness installed with pip (which byte-compiles what it installs); ``--no-bytecode`` keeps
  the environment's ``PYTHONDONTWRITEBYTECODE``, with which every process (three with ``-n 2``)
  compiles the harness's modules again.

On a shared machine compare the side-by-side ratios, not the absolute figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "scenarios"
ID_LINE = re.compile(r"^id: (\S+)$", re.MULTILINE)
IMPORT_CODE = (
    "import time, pytest; t = time.perf_counter(); import canasta_conformance.pytest_plugin.plugin; "
    "print(time.perf_counter() - t)"
)


def environment(root: Path = ROOT, bytecode: bool = True) -> dict[str, str]:
    """The environment of a pytest run importing the harness and the engine of the checkout ``root``.
    ``bytecode``: the checkout's modules are byte-compiled ahead, as ``pip install`` does for an
    installed harness, and Python's default bytecode cache is on; otherwise the environment's
    setting is kept (``PYTHONDONTWRITEBYTECODE=1``, as in CI, has every process compile every
    module of the harness again: about 0.3 s of CPU a process, which ``-n 2`` pays three times)."""
    env = dict(os.environ)
    paths = [str(root / "conformance"), str(root / "reference_impl")]
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("PYTEST_ADDOPTS", None)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-m", "compileall", "-q", *paths], env=env, capture_output=True, check=True)
    return env


def plugin_import_seconds(env: dict[str, str]) -> float:
    out = subprocess.run([sys.executable, "-c", IMPORT_CODE], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def copy_corpus(target: Path, copies: int = 1, limit: int | None = None) -> int:
    """The corpus (``copies`` times, ids renamed; at most ``limit`` files) under ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    (target / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    files = sorted(CORPUS.rglob("*.yaml"))
    written = 0
    for copy in range(copies):
        for path in files:
            if limit is not None and written >= limit:
                return written
            text = path.read_text(encoding="utf-8")
            match = ID_LINE.search(text)
            if match is None:
                continue
            new_id = match.group(1) if copy == 0 else f"{match.group(1)}-copy{copy}"
            folder = target / "scenarios" / path.parent.name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{new_id}.yaml").write_text(ID_LINE.sub(f"id: {new_id}", text, count=1), encoding="utf-8")
            written += 1
    return written


def run_pytest(folder: Path, env: dict[str, str], *args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the pytest process and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *args],
        cwd=folder, env=env, capture_output=True, text=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"pytest failed in {folder}:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def cpu_per_scenario(runs: int, env: dict[str, str], work: Path, others: dict[str, dict[str, str]] | None = None) -> dict[str, object]:
    """CPU per scenario of this checkout, and of each of ``others`` (label -> environment) measured
    in the same minutes: every round runs each checkout in turn (A B A B ...)."""
    corpus, single = work / "corpus", work / "single"
    count = copy_corpus(corpus)
    copy_corpus(single, limit=1)
    checkouts = {"this": env, **(others or {})}
    cold: dict[str, list[float]] = {label: [] for label in checkouts}
    warm: dict[str, list[float]] = {label: [] for label in checkouts}
    for run in range(runs):
        for index, (label, checkout_env) in enumerate(checkouts.items()):
            run_env = {**checkout_env, "CANASTA_CACHE_DIR": str(work / f"cache-{index}-{run}")}
            _, base = run_pytest(single, {**run_env, "CANASTA_CACHE_DIR": str(work / f"single-cache-{index}-{run}")}, "-n", "0")
            _, full_cold = run_pytest(corpus, run_env, "-n", "0")
            _, full_warm = run_pytest(corpus, run_env, "-n", "0")
            cold[label].append((full_cold - base) / (count - 1))
            warm[label].append((full_warm - base) / (count - 1))
    figures: dict[str, object] = {"scenarios": count}
    for label in checkouts:
        prefix = "" if label == "this" else f"{label}_"
        figures[f"{prefix}cold_ms"] = statistics.median(cold[label]) * 1e3
        figures[f"{prefix}warm_ms"] = statistics.median(warm[label]) * 1e3
    return figures


def xdist_scaling(
    sizes: list[int], runs: int, env: dict[str, str], work: Path, compared: dict[str, str] | None = None,
    engine_args: tuple[str, ...] = (),
) -> list[dict[str, float]]:
    """Wall and CPU time (the pytest process and its workers) of ``-n 0`` and ``-n 2`` over the
    corpus copied to each size, warm cache; the two commands alternate, run by run. With
    ``compared`` (another checkout's environment), its ``-n 0`` and ``-n 2`` run in the same rounds.
    ``engine_args``: the engine's options of every run (none: the reference engine in-process)."""
    corpus_size = len(list(CORPUS.rglob("*.yaml")))
    rows = []
    for size in sizes:
        folder = work / f"size-{size}"
        count = copy_corpus(folder, copies=-(-size // corpus_size), limit=size)
        checkouts = {"": env, **({"compared_": compared} if compared else {})}
        times: dict[str, list[tuple[float, float]]] = {}
        temproot = work / "pytest-temp"  # see the method line: pytest's temporary folders of these runs only
        temproot.mkdir(exist_ok=True)
        for prefix, checkout_env in checkouts.items():
            run_env = {**checkout_env, "CANASTA_CACHE_DIR": str(work / f"cache-size-{size}{prefix}"), "PYTEST_DEBUG_TEMPROOT": str(temproot)}
            checkouts[prefix] = run_env
            run_pytest(folder, run_env, "-n", "0", *engine_args)  # fill the cache: both modes then read it
        for _ in range(runs):
            for prefix, run_env in checkouts.items():
                for mode in ("0", "2"):
                    times.setdefault(f"{prefix}{mode}", []).append(run_pytest(folder, run_env, "-n", mode, *engine_args))
        row: dict[str, float] = {"scenarios": count}
        for prefix in checkouts:
            serial, parallel = times[f"{prefix}0"], times[f"{prefix}2"]
            wall, cpu = statistics.median(w for w, _ in serial), statistics.median(c for _, c in serial)
            n2_wall, n2_cpu = statistics.median(w for w, _ in parallel), statistics.median(c for _, c in parallel)
            row.update({
                f"{prefix}in_process_s": wall, f"{prefix}in_process_cpu_s": cpu, f"{prefix}n2_s": n2_wall,
                f"{prefix}n2_cpu_s": n2_cpu, f"{prefix}n2_over_in_process": n2_wall / wall,
            })
        rows.append(row)
    return rows


FLOOR_MODULE = """import time

import pytest


@pytest.mark.parametrize("case", range({count}))
def test_spends_cpu(case):
    end = time.process_time() + {seconds!r}
    while time.process_time() < end:
        pass
"""


def xdist_floor(sizes: list[int], costs_ms: list[float], runs: int, env: dict[str, str], work: Path) -> list[dict[str, float]]:
    """Wall time of ``-n 0`` and ``-n 2`` (alternating) over ``size`` parametrized tests that each
    spend ``cost`` ms of CPU, for every size and cost: pytest-xdist's break-even on this machine."""
    temproot = work / "pytest-temp"
    temproot.mkdir(exist_ok=True)
    run_env = {**env, "PYTEST_DEBUG_TEMPROOT": str(temproot)}
    rows = []
    for size in sizes:
        for cost in costs_ms:
            folder = work / f"floor-{size}-{cost}"
            folder.mkdir()
            (folder / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
            (folder / "test_floor.py").write_text(FLOOR_MODULE.format(count=size, seconds=cost / 1e3))
            times: dict[str, list[float]] = {"0": [], "2": []}
            for _ in range(runs):
                for mode, walls in times.items():
                    walls.append(run_pytest(folder, run_env, "-n", mode)[0])
            serial, parallel = statistics.median(times["0"]), statistics.median(times["2"])
            rows.append({"tests": size, "cpu_ms": cost, "in_process_s": serial, "n2_s": parallel, "n2_over_in_process": parallel / serial})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="250,500,1000,2000", help="corpus sizes for the xdist comparison ('' to skip)")
    parser.add_argument("--project-suite", action="store_true", help="also time the README's test command")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--engine-cmd", metavar="CMD", default=None,
        help="run the xdist comparison against the engine served by CMD over the adapter protocol (e.g. "
        "\"python -m canasta_conformance serve\": the reference engine as a subprocess, as an engine in another "
        "language is run) instead of the reference engine in-process",
    )
    parser.add_argument(
        "--floor", metavar="MS,...", default="",
        help="also time pytest-xdist on its own: at each --sizes, that many parametrized tests spending each of these "
        "milliseconds of CPU (e.g. 0,0.5,1,2), -n 0 against -n 2",
    )
    parser.add_argument(
        "--no-bytecode", action="store_true",
        help="keep the environment's PYTHONDONTWRITEBYTECODE (every process then compiles the harness again); by "
        "default the checkout's modules are byte-compiled first, as an installed harness is",
    )
    parser.add_argument(
        "--compare", metavar="CHECKOUT", default=None,
        help="another checkout (e.g. `git worktree add /tmp/before <commit>`): its CPU per scenario and its xdist "
        "figures are measured in the same rounds, alternating with this one's, on the same corpus",
    )
    args = parser.parse_args(argv)
    bytecode = not args.no_bytecode
    env = environment(bytecode=bytecode)
    figures: dict[str, object] = {
        "machine": f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
        f"load {os.getloadavg()[0]:.1f}",
    }
    print("method: median of", args.runs, "fresh processes each; plugin import timed after `import pytest`;",
          "the harness byte-compiled ahead, as installed" if bytecode else "no bytecode cache (PYTHONDONTWRITEBYTECODE kept)")
    print("        CPU per scenario = (CPU of `pytest -n 0` over the corpus - over one scenario) / (scenarios - 1)")
    figures["plugin_import_ms"] = statistics.median(plugin_import_seconds(env) for _ in range(args.runs)) * 1e3
    print(f"plugin import: {figures['plugin_import_ms']:.1f} ms")
    with tempfile.TemporaryDirectory(prefix="canasta-suite-speed-") as tmp:
        work = Path(tmp)
        others = {"compared": environment(Path(args.compare).resolve(), bytecode)} if args.compare else None
        per = cpu_per_scenario(args.runs, env, work, others)
        figures["cpu_per_scenario"] = per
        print(f"CPU per scenario, in-process ({per['scenarios']}): cold cache {per['cold_ms']:.2f} ms, "
              f"warm cache {per['warm_ms']:.2f} ms")
        if args.compare:
            print(f"  {args.compare}, same rounds: cold cache {per['compared_cold_ms']:.2f} ms, "
                  f"warm cache {per['compared_warm_ms']:.2f} ms")
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
        if sizes:
            engine = f"the engine of `{args.engine_cmd}`" if args.engine_cmd else "the reference engine in-process"
            print("method: wall and CPU time (user + system, workers included) of `pytest -n 0` and `pytest -n 2`, "
                  f"alternating, over the corpus copied to each size, warm cache, {engine}; pytest's temporary folders "
                  "in a folder of these runs (an xdist controller makes one for its workers and, as pytest does, deletes "
                  "old ones: in the shared one, those that other runs left)")
            engine_args = ("--canasta-engine-cmd", args.engine_cmd) if args.engine_cmd else ()
            rows = xdist_scaling(sizes, args.runs, env, work, others["compared"] if others else None, engine_args)
            figures["xdist"] = rows
            for row in rows:
                for prefix, label in (("", "this"), ("compared_", args.compare)):
                    if f"{prefix}n2_s" in row:
                        print(f"  {row['scenarios']:>6.0f} scenarios ({label}): in-process {row[f'{prefix}in_process_s']:.2f} s wall "
                              f"({row[f'{prefix}in_process_cpu_s']:.2f} s CPU), -n 2 {row[f'{prefix}n2_s']:.2f} s wall "
                              f"({row[f'{prefix}n2_cpu_s']:.2f} s CPU), wall ratio {row[f'{prefix}n2_over_in_process']:.2f}")
        costs = [float(c) for c in args.floor.split(",") if c.strip()]
        if costs and sizes:
            print("method: wall time of `pytest -n 0` and `pytest -n 2`, alternating, over one module of N parametrized tests "
                  "that each spend the given CPU time in a loop (no scenarios; this plugin installed)")
            floor = xdist_floor(sizes, costs, args.runs, env, work)
            figures["xdist_floor"] = floor
            for row in floor:
                print(f"  {row['tests']:>6.0f} tests of {row['cpu_ms']:g} ms CPU: in-process {row['in_process_s']:.2f} s, "
                      f"-n 2 {row['n2_s']:.2f} s, wall ratio {row['n2_over_in_process']:.2f}")
        shutil.rmtree(work, ignore_errors=True)
    if args.project_suite:
        print("method: wall time of the README's test command, `pytest -n 2`, in the checkout (one run)")
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-q"], cwd=ROOT, env=environment(bytecode=bytecode), capture_output=True, check=False)
        figures["project_suite_s"] = time.perf_counter() - started
        print(f"project suite: {figures['project_suite_s']:.0f} s")
    print(f"machine: {figures['machine']}")
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
