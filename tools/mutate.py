"""Mutation testing of the reference engine with the scenario corpus alone as the test set.

A small AST mutator: each mutant changes one operator, constant or statement inside one function
of a rule module of ``canasta_reference`` (a comparison flipped or loosened, ``and``/``or`` swapped,
a ``not`` dropped, a number moved by one, ``True``/``False`` swapped, ``+``/``-`` swapped, a
``raise`` or a call statement removed). The mutated function is compiled and its code object
swapped into the live function, so every module that imported it sees the mutant; the corpus then
runs in-process through the harness's runner and the mutant is *killed* when any scenario fails
or errors (or a scenario takes longer than the time limit), cites another rule than the scenario
expects (``rule-differs``: the reference declares ``cites_rules``, and a strict run fails on it),
or is unsupported (the reference must run every scenario of the corpus). Messages, rule IDs, docstrings and
assertions are never mutated.

    python tools/mutate.py                      # every mutant, 2 worker processes
    python tools/mutate.py --modules pile,melds --jobs 1
    python tools/mutate.py --sample 20 --seed 1 # a random sample
    python tools/mutate.py --list               # the mutants, without running them
    python tools/mutate.py --survivors-of benchmarks/mutation/results.json --update
                                                # re-run only the survivors, merging the results

The modules measured are those the engine runs (engine.py and the modules of the package it
imports, directly or not). The engine's memo tables (its memo module) are emptied around each mutant.

Writes a JSON file of results (``--json``, default ``benchmarks/mutation/results.json``) and
prints the score per module and the survivors.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import json
import multiprocessing
import random
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT / "conformance", ROOT / "reference_impl"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

PACKAGE = "canasta_reference"
#: modules of the package that hold no rule: the exceptions, the self-play driver, the package's __init__,
#: the memo tables, the packed counts and the compiled-build check
NOT_RULES = ("__init__", "errors", "selfplay", "memo", "packed", "_build")


def _engine_modules() -> tuple[str, ...]:
    """The modules the engine runs: engine.py and every module of the package it imports, directly
    or not (a module nothing imports any more is dead code, not a rule the corpus could pin)."""
    folder = ROOT / "reference_impl" / PACKAGE
    seen: set[str] = set()
    todo = ["engine"]
    while todo:
        name = todo.pop()
        if name in seen or not (folder / f"{name}.py").exists():
            continue
        seen.add(name)
        for node in ast.walk(ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                todo += [node.module] if node.module else [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(f"{PACKAGE}."):
                todo.append(node.module.split(".", 1)[1])
    return tuple(sorted(seen - set(NOT_RULES)))


#: the modules holding the rules: those the engine runs, as they are when the tool runs
RULE_MODULES = _engine_modules()
SCENARIO_SECONDS = 5.0  # a scenario slower than this under a mutant: the mutant loops, it is killed

_COMPARE_SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
_BINOP_SWAPS: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult}


@dataclass(frozen=True)
class Mutant:
    id: str  # module:function:ordinal
    module: str
    function: str  # qualified name inside the module (Class.method)
    line: int
    operator: str
    original: str
    mutated: str


# ------------------------------------------------------------------------------------------------
# Finding mutation points


def _skipped(node: ast.AST, parents: list[ast.AST]) -> bool:
    """Inside a message, a rule ID, an assertion or a docstring: not mutated."""
    for parent in parents:
        if isinstance(parent, (ast.Raise, ast.Assert, ast.JoinedStr)):
            return True
        if isinstance(parent, ast.Call) and _call_name(parent) in ("Illegal", "Malformed", "ValueError", "RuntimeError"):
            return True
    return False


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _points(function: ast.FunctionDef) -> Iterator[tuple[ast.AST, str]]:
    """(node, operator) for every mutation point in ``function`` (document order)."""

    def walk(node: ast.AST, parents: list[ast.AST]) -> Iterator[tuple[ast.AST, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Expr) and isinstance(child.value, ast.Constant) and isinstance(child.value.value, str):
                continue  # a docstring
            if not _skipped(child, [*parents, node]):
                yield from _child_points(child)
            yield from walk(child, [*parents, node])

    yield from walk(function, [])


def _child_points(node: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    if isinstance(node, ast.Compare):
        for index, op in enumerate(node.ops):
            if type(op) in _COMPARE_SWAPS:
                yield node, f"compare:{index}"
    elif isinstance(node, ast.BoolOp):
        yield node, "boolop"
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield node, "not"
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        yield node, "bool"
    elif isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        yield node, "int+1"
        if node.value != 0:
            yield node, "int-1"
    elif isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
        yield node, "binop"
    elif isinstance(node, ast.AugAssign) and type(node.op) in (ast.Add, ast.Sub):
        yield node, "augassign"
    elif isinstance(node, ast.Raise):
        yield node, "drop-raise"
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        yield node, "drop-call"


def _mutate(node: ast.AST, operator: str) -> ast.AST:
    """A mutated copy of ``node``."""
    new = copy.deepcopy(node)
    if operator.startswith("compare:"):
        index = int(operator.split(":")[1])
        assert isinstance(new, ast.Compare)
        new.ops[index] = _COMPARE_SWAPS[type(new.ops[index])]()
    elif operator == "boolop":
        assert isinstance(new, ast.BoolOp)
        new.op = ast.Or() if isinstance(new.op, ast.And) else ast.And()
    elif operator == "not":
        assert isinstance(new, ast.UnaryOp)
        return new.operand
    elif operator == "bool":
        assert isinstance(new, ast.Constant)
        new.value = not new.value
    elif operator in ("int+1", "int-1"):
        assert isinstance(new, ast.Constant)
        new.value = new.value + (1 if operator == "int+1" else -1)
    elif operator == "binop":
        assert isinstance(new, ast.BinOp)
        new.op = _BINOP_SWAPS[type(new.op)]()
    elif operator == "augassign":
        assert isinstance(new, ast.AugAssign)
        new.op = ast.Sub() if isinstance(new.op, ast.Add) else ast.Add()
    elif operator in ("drop-raise", "drop-call"):
        return ast.copy_location(ast.Pass(), new)
    return new


class _Replace(ast.NodeTransformer):
    def __init__(self, target: ast.AST, replacement: ast.AST) -> None:
        self.target = target
        self.replacement = replacement

    def visit(self, node: ast.AST) -> Any:
        if node is self.target:
            return self.replacement
        return self.generic_visit(node)


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef]]:
    """Module-level functions and methods of module-level classes, by qualified name."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    yield f"{node.name}.{item.name}", item


def module_source(module: str) -> tuple[Path, str]:
    path = ROOT / "reference_impl" / PACKAGE / f"{module}.py"
    return path, path.read_text(encoding="utf-8")


def list_mutants(modules: tuple[str, ...] = RULE_MODULES) -> list[Mutant]:
    out = []
    for module in modules:
        path = ROOT / "reference_impl" / PACKAGE / f"{module}.py"
        if not path.exists():
            continue
        _, source = module_source(module)
        tree = ast.parse(source)
        for qualname, function in _functions(tree):
            for ordinal, (node, operator) in enumerate(_points(function)):
                mutated = _mutate(node, operator)
                out.append(Mutant(
                    f"{module}:{qualname}:{ordinal}", module, qualname, getattr(node, "lineno", function.lineno), operator,
                    _short(ast.unparse(node)), _short(ast.unparse(mutated)),
                ))
    return out


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ------------------------------------------------------------------------------------------------
# Applying a mutant to the live function


def _live_function(module: Any, qualname: str) -> FunctionType:
    owner: Any = module
    parts = qualname.split(".")
    for part in parts[:-1]:
        owner = getattr(owner, part)
    value = owner.__dict__[parts[-1]] if isinstance(owner, type) else getattr(owner, parts[-1])
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        value = value.fget
    return value  # type: ignore[no-any-return]


def mutated_code(mutant: Mutant) -> tuple[FunctionType, CodeType]:
    """The live function and the code object of its mutated version."""
    module = importlib.import_module(f"{PACKAGE}.{mutant.module}")
    _, source = module_source(mutant.module)
    tree = ast.parse(source)
    function = dict(_functions(tree))[mutant.function]
    node, operator = list(_points(function))[int(mutant.id.rsplit(":", 1)[1])]
    replaced = _Replace(node, _mutate(node, operator)).visit(function)
    replaced.decorator_list = []
    holder = ast.Module(body=[replaced], type_ignores=[])
    ast.fix_missing_locations(holder)
    namespace: dict[str, Any] = dict(vars(module))
    exec(compile(holder, str(module.__file__), "exec"), namespace)
    live = _live_function(module, mutant.function)
    compiled = namespace[replaced.name]
    new = compiled.__code__
    if new.co_freevars != live.__code__.co_freevars:
        raise ValueError(f"{mutant.id}: closure variables differ")
    # a default argument value lives in the function object, not in its code: keep the mutated
    # function's defaults beside its code so that swap_in applies a mutant of a default too
    _DEFAULTS[new] = (compiled.__defaults__, compiled.__kwdefaults__)
    return live, new


#: the default argument values of each mutated code object (see mutated_code)
_DEFAULTS: dict[CodeType, tuple[Any, Any]] = {}


def swap_in(live: FunctionType, new: CodeType) -> Callable[[], None]:
    """Put the mutated code (and its default argument values) into the live function; returns
    the call that puts the original back."""
    original = (live.__code__, live.__defaults__, live.__kwdefaults__)
    live.__code__ = new
    if new in _DEFAULTS:
        live.__defaults__, live.__kwdefaults__ = _DEFAULTS[new]

    def restore() -> None:
        live.__code__, live.__defaults__, live.__kwdefaults__ = original

    return restore


# ------------------------------------------------------------------------------------------------
# Running the corpus


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout()


class Corpus:
    """The scenario corpus, loaded once per process, run on a fresh reference engine."""

    def __init__(self) -> None:
        from canasta_conformance.contract.paths import scenarios_dir
        from canasta_conformance.contract.scenario import load_scenarios, scenario_files
        from canasta_conformance.contract.spec import load_spec

        self.spec = load_spec()
        self.scenarios, problems = load_scenarios(scenario_files(scenarios_dir()), self.spec)
        if problems:
            raise SystemExit(f"the corpus has problems: {problems[0]}")
        self.order = list(range(len(self.scenarios)))  # scenarios that killed a mutant move to the front

    def first_failure(self) -> str | None:
        """The id of the first scenario that fails (or errs, or times out), None if all pass."""
        from canasta_conformance.running.runner import run_scenario
        from canasta_reference.engine import ReferenceEngine

        engine = ReferenceEngine(self.spec)
        for position, index in enumerate(self.order):
            scenario = self.scenarios[index]
            signal.setitimer(signal.ITIMER_REAL, SCENARIO_SECONDS)
            try:
                status = run_scenario(scenario, engine).status
            except _Timeout:
                status = "timeout"
            except Exception:  # noqa: BLE001 - the mutant broke the harness's assumptions
                status = "error"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if status in ("failed", "error", "timeout", "rule-differs", "unsupported"):
                self.order.insert(0, self.order.pop(position))
                return f"{scenario.id} ({status})"
        return None


_CORPUS: Corpus | None = None


def _init_worker() -> None:
    global _CORPUS
    signal.signal(signal.SIGALRM, _alarm)
    _CORPUS = Corpus()


def run_mutant(mutant: Mutant) -> dict[str, Any]:
    assert _CORPUS is not None
    started = time.perf_counter()
    try:
        live, new = mutated_code(mutant)
    except (ValueError, SyntaxError, KeyError, AttributeError) as error:  # e.g. a function wrapped by a cache
        return {**asdict(mutant), "status": "skipped", "killed_by": None, "seconds": 0.0, "note": str(error)}
    _clear_caches()
    restore = swap_in(live, new)
    try:
        killer = _CORPUS.first_failure()
    finally:
        restore()
        _clear_caches()
    status = "killed" if killer else "survived"
    return {**asdict(mutant), "status": status, "killed_by": killer, "seconds": round(time.perf_counter() - started, 3)}


def _clear_caches() -> None:
    """Empty the engine's memo tables (all registered in its memo module), before and after each
    mutant, or a mutant of a function filling one would be served the original's answers."""
    importlib.import_module(f"{PACKAGE}.memo").clear_all()


def run_all(mutants: list[Mutant], jobs: int, progress: bool = True) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    if jobs <= 1:
        _init_worker()
        iterator: Iterator[dict[str, Any]] = map(run_mutant, mutants)
        pool = None
    else:
        pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_init_worker)
        iterator = pool.imap_unordered(run_mutant, mutants, chunksize=4)
    started = time.perf_counter()
    try:
        for result in iterator:
            results.append(result)
            if progress and len(results) % 25 == 0:
                killed = sum(r["status"] == "killed" for r in results)
                print(f"  {len(results)}/{len(mutants)} mutants, {killed} killed, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return sorted(results, key=lambda r: (r["module"], r["line"], r["id"]))


def summary(results: list[dict[str, Any]]) -> str:
    lines = [f"{'module':<12}{'mutants':>9}{'killed':>8}{'survived':>10}{'score':>8}"]
    by_module: dict[str, list[dict[str, Any]]] = {}
    for result in results:
        if result["status"] != "skipped":
            by_module.setdefault(result["module"], []).append(result)
    total = killed = 0
    for module, items in sorted(by_module.items()):
        k = sum(r["status"] == "killed" for r in items)
        total, killed = total + len(items), killed + k
        lines.append(f"{module:<12}{len(items):>9}{k:>8}{len(items) - k:>10}{100 * k / len(items):>7.1f}%")
    if total:
        lines.append(f"{'all':<12}{total:>9}{killed:>8}{total - killed:>10}{100 * killed / total:>7.1f}%")
    return "\n".join(lines)


def serve_mutant(mutant: Mutant) -> int:
    """The mutated reference engine behind the JSON-lines protocol (stdin/stdout)."""
    from canasta_conformance.transports.server import serve
    from canasta_reference.engine import ReferenceEngine

    live, new = mutated_code(mutant)
    _clear_caches()
    swap_in(live, new)
    protocol_out, sys.stdout = sys.stdout, sys.stderr
    try:
        return serve(ReferenceEngine(), sys.stdin, protocol_out)
    finally:
        sys.stdout = protocol_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modules", default=",".join(RULE_MODULES), help="comma-separated rule modules of canasta_reference")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2; the corpus runs in each)")
    parser.add_argument("--sample", type=int, default=None, help="run a random sample of this many mutants")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument("--only", default=None, help="comma-separated mutant ids to run")
    parser.add_argument(
        "--survivors-of", type=Path, default=None, metavar="RESULTS",
        help="run only the mutants that survived in this results file (checking that new scenarios kill them)",
    )
    parser.add_argument(
        "--update", action="store_true",
        help="merge the results into the --json file (the mutants run replace their earlier results) instead of overwriting it",
    )
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument(
        "--serve", metavar="ID", default=None,
        help="serve the reference engine with mutant ID applied over the JSON-lines protocol (for "
        "canasta fuzz --engine-cmd 'python tools/mutate.py --serve ID', which hunts a scenario that kills it)",
    )
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "mutation" / "results.json", help="where to write the results")
    args = parser.parse_args(argv)
    mutants = list_mutants(tuple(m for m in args.modules.split(",") if m))
    if args.serve:
        return serve_mutant(next(m for m in mutants if m.id == args.serve))
    if args.only:
        wanted = set(args.only.split(","))
        mutants = [m for m in mutants if m.id in wanted]
    if args.survivors_of:
        survived = {r["id"] for r in json.loads(args.survivors_of.read_text(encoding="utf-8"))["results"] if r["status"] == "survived"}
        mutants = [m for m in mutants if m.id in survived]
    if args.sample is not None:
        mutants = random.Random(args.seed).sample(mutants, min(args.sample, len(mutants)))
    if args.list:
        for m in mutants:
            print(f"{m.id:<50} {m.module}.py:{m.line:<5} {m.operator:<11} {m.original}  ->  {m.mutated}")
        print(f"{len(mutants)} mutants", file=sys.stderr)
        return 0
    started = time.perf_counter()
    results = run_all(mutants, args.jobs)
    seconds = time.perf_counter() - started
    args.json.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"seconds": round(seconds, 1), "jobs": args.jobs, "results": results}
    if args.update and args.json.exists():
        earlier = json.loads(args.json.read_text(encoding="utf-8"))
        ran = {r["id"] for r in results}
        merged = [r for r in earlier["results"] if r["id"] not in ran] + results
        data = {**earlier, "results": sorted(merged, key=lambda r: (r["module"], r["line"], r["id"])),
                "updated": f"{len(results)} mutants re-run in {seconds:.0f} s"}
        print(f"re-run: {summary(results)}", file=sys.stderr)
        results = data["results"]
    args.json.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(summary(results))
    survivors = [r for r in results if r["status"] == "survived"]
    for r in survivors:
        print(f"survived {r['id']:<50} {r['module']}.py:{r['line']:<5} {r['original']}  ->  {r['mutated']}")
    print(f"{len(results)} mutants in {seconds:.0f} s; results in {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
