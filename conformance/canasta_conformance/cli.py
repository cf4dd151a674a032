"""The ``canasta`` command: run the suite, validate data, and more (``canasta --help``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .data import scenarios_dir, spec_dir
from .engine import DEFAULT_ENGINE


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if extra and args.command != "run":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return int(args.handler(args, extra) or 0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="canasta",
        description="The executable rulebook of Canasta: run the conformance suite against an engine, "
        "validate the spec and scenarios, browse the rules.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = commands.add_parser(
        "run", help="run the scenario corpus against an engine (a pytest run; extra arguments go to pytest)",
        description="Run every scenario against an engine and print a summary by rule area. "
        "Arguments this command does not know are passed to pytest (e.g. -k, -x, -n 2, --junitxml).",
    )
    run.add_argument("--engine", default=DEFAULT_ENGINE, metavar="MODULE:FACTORY", help=f"the engine under test (default: {DEFAULT_ENGINE})")
    run.add_argument("--scenarios", type=Path, default=None, metavar="PATH", help="scenario files or folder (default: the installed corpus)")
    run.set_defaults(handler=_run)

    validate = commands.add_parser("validate", help="check the spec and scenario files; report every problem as file:line: path: message")
    validate.add_argument("paths", nargs="*", type=Path, help="scenario files or folders (default: the installed corpus)")
    validate.set_defaults(handler=_validate)
    return parser


def _run(args: argparse.Namespace, extra: list[str]) -> int:
    import pytest

    target = str(args.scenarios) if args.scenarios else str(scenarios_dir())
    pytest_args = [target, "--canasta-engine", args.engine, "-p", "no:cacheprovider", "-q", "-rfE",
                   "-W", "ignore::pytest.PytestAssertRewriteWarning", *extra]
    return int(pytest.main(pytest_args))


def _validate(args: argparse.Namespace, extra: list[str]) -> int:
    from .scenario import load_scenarios, scenario_files
    from .spec import read_spec

    spec = read_spec(spec_dir())
    problems = list(spec.problems)
    files: list[Path] = []
    for path in args.paths or [scenarios_dir()]:
        if path.is_dir():
            files.extend(scenario_files(path))
        elif path.exists():
            files.append(path)
        else:
            problems_line = f"{path}: no such file or folder"
            print(problems_line)
            return 2
    scenarios, scenario_problems = load_scenarios(files, spec)
    problems.extend(scenario_problems)
    for problem in problems:
        print(problem)
    bad_files = len({p.file for p in scenario_problems})
    print(
        f"spec {spec.version}: {len(spec.rules)} rules, {len(spec.parameters)} parameters, "
        f"{len(spec.variants)} variants, {len(spec.conflicts)} conflicts, {len(spec.sources)} sources; "
        f"{len(files)} scenario files: {len(scenarios)} valid, {bad_files} with problems; "
        f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in all",
        file=sys.stderr,
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
