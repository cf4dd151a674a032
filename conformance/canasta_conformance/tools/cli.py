"""The ``canasta`` command: run the suite, validate data, and more (``canasta --help``)."""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..contract.defaults import DEFAULT_ENGINE, DEFAULT_TIMEOUT
from ..contract.paths import scenarios_dir, spec_dir
from ..contract.suggest import did_you_mean
from ..contract.yamlio import Problem, excerpt

#: the exit status when stdout was closed early (as a program killed by SIGPIPE, e.g. ``| head``)
CLOSED_PIPE = 141


class _Parser(argparse.ArgumentParser):
    """Argument errors are one line on stderr and exit status 2 (no usage block, no traceback)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        if extra and args.command not in ("run", "known-failures"):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        return int(args.handler(args, extra) or 0)
    except BrokenPipeError:
        _quiet_stdout()
        return CLOSED_PIPE


def _quiet_stdout() -> None:
    """Point stdout at the null device: a reader that went away (``| head``) must not turn the
    interpreter's final flush into an error message."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise ValueError(text)
    return value


_positive_int.__name__ = "positive integer"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    _engine_arguments(run)
    run.set_defaults(handler=_run)

    serve = commands.add_parser(
        "serve", help="answer the JSON-lines engine protocol on stdin/stdout with a Python engine (default: the reference engine)",
        description="Put a Python engine behind the JSON-lines protocol (docs/protocol.md): read one request per line "
        "on stdin, write one reply per line on stdout, until 'stop' or the end of input.",
    )
    serve.add_argument("--engine", default=DEFAULT_ENGINE, metavar="NAME|MODULE:FACTORY", help=f"the engine to serve (default: {DEFAULT_ENGINE})")
    serve.set_defaults(handler=_serve)

    known = commands.add_parser("known-failures", help="keep an engine's file of known failures (scenario id -> reason)")
    known_actions = known.add_subparsers(dest="action", metavar="ACTION", required=True)
    write = known_actions.add_parser(
        "write", help="run the suite and write the failing scenarios to FILE, keeping the reasons already there",
        description="Run the suite against an engine and write FILE: every failing scenario with a reason (reasons "
        "already in FILE are kept; entries that now pass are removed). Extra arguments go to pytest.",
    )
    write.add_argument("file", type=Path, metavar="FILE", help="the YAML file to write (e.g. known-failures.yaml)")
    _engine_arguments(write)
    write.set_defaults(handler=_write_known_failures)

    validate = commands.add_parser("validate", help="check the spec and scenario files; report every problem as file:line: path: message")
    validate.add_argument("paths", nargs="*", type=Path, help="scenario files or folders (default: the installed corpus)")
    validate.set_defaults(handler=_validate)

    spec = commands.add_parser("spec", help="browse the rules: list them, show one across variants, diff two variants")
    views = spec.add_subparsers(dest="view", metavar="VIEW", required=True)
    listing = views.add_parser("list", help="rules by area")
    listing.add_argument("--area", help="only this area (e.g. pile)")
    show = views.add_parser("show", help="one rule: statement, sources, its parameters in every variant, conflicts")
    show.add_argument("rule", help="a rule ID, e.g. pile.frozen.by-wild")
    diff = views.add_parser("diff", help="every parameter that differs between two variants")
    diff.add_argument("first", help="a variant, e.g. classic")
    diff.add_argument("second", help="another variant, e.g. modern-american")
    views.add_parser("variants", help="the variants with their titles")
    spec.set_defaults(handler=_spec)

    coverage = commands.add_parser(
        "coverage", help="which scenarios exercise each rule; flags testable rules with none (exit 1 if any)",
    )
    coverage.add_argument("paths", nargs="*", type=Path, help="scenario files or folders (default: the installed corpus)")
    coverage.add_argument("--all", action="store_true", help="list the scenarios of every rule")
    coverage.add_argument("--strict", action="store_true", help="also fail when a testable prohibition has no rejecting scenario, or none beside an accepted action")
    coverage.add_argument("--variants", action="store_true", help="also fail for variant-specific rules of variants the default engine does not declare (those of declared variants always fail)")
    coverage.set_defaults(handler=_coverage)

    fuzz = commands.add_parser(
        "fuzz", help="differential fuzzing: random games on the reference engine mirrored in an engine; disagreements become scenarios",
        description="Play random games on the reference engine and mirror every step in the engine under test, comparing "
        "verdicts (also on near-miss illegal actions), positions, score sheets and legal-action lists. A disagreement is "
        "shrunk into a minimal scenario file that expects what the reference does (docs/guides/fuzzing.md).",
    )
    fuzz_engine = fuzz.add_mutually_exclusive_group()
    fuzz_engine.add_argument("--engine", default=None, metavar="MODULE:FACTORY", help=f"the engine under test, in Python (default: {DEFAULT_ENGINE})")
    fuzz_engine.add_argument("--engine-cmd", default=None, metavar="COMMAND", help="the engine under test: a program speaking the JSON-lines protocol")
    fuzz.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS", help=f"how long an engine program may take to answer one request (default {DEFAULT_TIMEOUT:g})")
    fuzz.add_argument("--variant", default="classic", help="a variant of spec/variants (default classic)")
    fuzz.add_argument("--options", default=None, metavar="JSON", help='parameter overrides as a JSON object, e.g. \'{"draw.count": 2}\'')
    budget = fuzz.add_mutually_exclusive_group()
    budget.add_argument("--games", type=int, default=None, metavar="N", help="play N games (default: 20 unless --minutes)")
    budget.add_argument("--minutes", type=float, default=None, metavar="M", help="play until M minutes have passed")
    fuzz.add_argument("--seed", type=int, default=0, help="the campaign's seed: game g of seed s is always the same game (default 0)")
    fuzz.add_argument("--out", type=Path, default=None, metavar="DIR", help="write each shrunk scenario to DIR/<id>.yaml (default: print it)")
    fuzz.add_argument("--max-findings", type=int, default=1, metavar="K", help="stop after K disagreements (default 1)")
    fuzz.add_argument("--hands", type=int, default=2, metavar="H", help="hands per game (default 2)")
    fuzz.add_argument("--no-shrink", action="store_true", help="report disagreements as found, without shrinking them into scenarios")
    fuzz.add_argument("--quiet", action="store_true", help="no progress line")
    fuzz.set_defaults(handler=_fuzz)

    export = commands.add_parser(
        "export", help="write the corpus as JSON for runners in any language (a manifest and one file per scenario)",
        description="Write the scenario corpus as JSON into DIR: manifest.json (variants resolved to their full "
        "parameter sets, one entry per scenario) and scenarios/AREA/ID.json; docs/guides/writing-a-runner.md "
        "says how to run them.",
    )
    export.add_argument("directory", type=Path, metavar="DIR", help="the folder to write (created if needed)")
    export.add_argument("--scenarios", type=Path, default=None, metavar="PATH", help="scenario folder (default: the installed corpus)")
    export.set_defaults(handler=_export)

    play = commands.add_parser(
        "play", help="play a whole game between random legal players on any engine, or replay a record",
        description="Play a whole game between random players choosing among the engine's legal actions "
        "(the reference engine unless --engine) and print a readable record; --json writes a machine record "
        "that 'canasta play --replay' replays in any engine.",
    )
    play.add_argument("--seed", type=int, default=0, help="random seed: the same seed plays the same game (default 0)")
    play.add_argument("--variant", default="classic", help="a variant of spec/variants (default classic)")
    play.add_argument("--json", type=Path, metavar="FILE", help="write the game record as JSON to FILE ('-' for stdout)")
    play.add_argument("--record", type=Path, metavar="FILE", help="write the game as a text record to FILE ('-' for stdout; docs/guides/game-records.md)")
    play.add_argument("--show", action="store_true", help="print the game turn by turn: draws, takes, melds, discards, red threes, score sheets")
    play.add_argument("--replay", type=Path, metavar="FILE", help="replay a game record (text or JSON) instead of playing")
    play.add_argument("--engine", default=DEFAULT_ENGINE, metavar="NAME|MODULE:FACTORY", help="the engine that plays, or replays a record (default: the reference engine)")
    play.add_argument("--max-hands", type=_positive_int, default=200, help="stop after this many hands (default 200)")
    play.set_defaults(handler=_play)
    return parser


def _engine_arguments(parser: argparse.ArgumentParser) -> None:
    engine = parser.add_mutually_exclusive_group()
    engine.add_argument("--engine", default=None, metavar="NAME|MODULE:FACTORY", help=f"the engine under test, in Python (default: {DEFAULT_ENGINE})")
    engine.add_argument(
        "--engine-cmd", default=None, metavar="COMMAND",
        help="the engine under test: a program speaking the JSON-lines protocol (docs/protocol.md), e.g. 'node engine.js'",
    )
    parser.add_argument("--scenarios", type=Path, default=None, metavar="PATH", help="scenario files or folder (default: the installed corpus)")


def _pytest_args(args: argparse.Namespace, extra: list[str]) -> list[str]:
    target = str(args.scenarios) if args.scenarios else str(scenarios_dir())
    engine = ["--canasta-engine-cmd", args.engine_cmd] if args.engine_cmd else ["--canasta-engine", args.engine or DEFAULT_ENGINE]
    # A run of scenarios only, which hold no asserts:
    # - Hypothesis's pytest plugin, where installed, would import Hypothesis at the end of the run
    #   for its summary (about 0.3 s of CPU) and has nothing to report;
    # - pytest rewrites the asserts of every module of a plugin's distribution (the harness, the
    #   engine and the site) as it imports them; without a bytecode cache to keep the result
    #   (PYTHONDONTWRITEBYTECODE, common in containers) it did so in every run: about 0.4 s of CPU
    #   of the 2 s a corpus run takes.
    quiet = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "--assert=plain"]
    return [target, "--canasta-scenarios", target, *engine, *quiet, "-q", "-rfE", *extra]


def _run(args: argparse.Namespace, extra: list[str]) -> int:
    import pytest

    return int(pytest.main(_pytest_args(args, extra)))


def _serve(args: argparse.Namespace, extra: list[str]) -> int:
    from ..contract.engine_protocol import EngineLoadError, resolve_factory
    from ..transports.server import serve

    try:
        engine = resolve_factory(args.engine)()
    except EngineLoadError as error:
        print(f"canasta serve: {error}", file=sys.stderr)
        return 2
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")  # bytes that are not UTF-8 make a line that is not JSON, not a crash
    protocol_out, sys.stdout = sys.stdout, sys.stderr  # a stray print() of the engine must not break the protocol
    try:
        code = serve(engine, sys.stdin, protocol_out)
        try:
            protocol_out.flush()
        except BrokenPipeError:
            pass
        return code
    finally:
        sys.stdout = protocol_out
        if protocol_out.closed or _pipe_closed(protocol_out):
            _quiet_stdout()


def _pipe_closed(stream: Any) -> bool:
    try:
        stream.flush()
        return False
    except (BrokenPipeError, ValueError):
        return True


def _write_known_failures(args: argparse.Namespace, extra: list[str]) -> int:
    import pytest

    code = int(pytest.main([*_pytest_args(args, extra), "--canasta-write-known-failures", str(args.file)]))
    # failing scenarios are what this command is for: only a broken run is an error
    return 0 if code in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) else code


def _scenario_files(paths: Sequence[Path], problems: list[Problem]) -> list[Path]:
    """The scenario files of the paths given (default: the installed corpus): every YAML file of
    a folder, a file as named. A path that does not exist is a problem; the others are still read."""
    from ..contract.scenario import scenario_files

    files: list[Path] = []
    for path in paths or [scenarios_dir()]:
        if path.is_dir():
            files.extend(scenario_files(path, problems))
        elif path.exists():
            files.append(path)
        else:
            problems.append(Problem(str(path), 0, None, "no such file or folder"))
    return files


def _validate(args: argparse.Namespace, extra: list[str]) -> int:
    from ..contract.scenario import Scenario, load_scenarios
    from ..contract.spec import read_spec
    from ..running.scenario_cache import load_scenario_cached

    spec = read_spec(spec_dir())
    problems = list(spec.problems)
    path_problems: list[Problem] = []
    files = _scenario_files(args.paths, path_problems)
    if spec.problems:  # scenarios are checked against the spec: a broken one would only add noise
        scenarios: list[Scenario] = []
        scenario_problems: list[Problem] = []
        print(f"canasta validate: the {len(files)} scenario files are not checked until the spec has no problems", file=sys.stderr)
    else:
        scenarios, scenario_problems = load_scenarios(files, spec, load_scenario_cached)  # an unchanged valid file is not checked again
    problems.extend(path_problems)
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
    if any(not path.exists() for path in args.paths):
        return 2
    return 1 if problems else 0


def _coverage(args: argparse.Namespace, extra: list[str]) -> int:
    from ..contract.scenario import load_scenarios
    from ..contract.spec import read_spec
    from ..running.scenario_cache import load_scenario_cached
    from .coverage import compute_coverage, compute_variant_coverage, format_coverage, format_variant_coverage

    spec = read_spec(spec_dir())
    problems: list[Problem] = list(spec.problems)
    if spec.problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        print("canasta coverage: the spec has problems (run 'canasta validate')", file=sys.stderr)
        return 1
    files = _scenario_files(args.paths, problems)
    scenarios, scenario_problems = load_scenarios(files, spec, load_scenario_cached)
    problems.extend(scenario_problems)
    for problem in problems:
        print(problem, file=sys.stderr)
    result = compute_coverage(spec, scenarios)
    by_variant = compute_variant_coverage(spec, scenarios)
    print(format_variant_coverage(by_variant, show_all=args.all))
    print()
    print(format_coverage(spec, result, show_all=args.all))  # its last line: the totals
    declared = _declared_variants()
    gaps = [entry for entry in by_variant if entry.uncovered and (declared is None or entry.variant in declared)]
    for entry in gaps:  # a variant the reference engine plays must have every rule of its own pinned
        print(f"canasta coverage: variant {entry.variant}: no scenario pins {', '.join(entry.uncovered)}", file=sys.stderr)
    if problems or result.uncovered or (args.strict and (result.missing_rejection or result.missing_allowed)):
        return 1
    if gaps or (args.variants and any(entry.uncovered for entry in by_variant)):
        return 1
    return 0


def _declared_variants() -> set[str] | None:
    """The variants the default engine declares (None if it cannot be started)."""
    from ..contract.engine_protocol import resolve_factory

    try:
        return set(resolve_factory(DEFAULT_ENGINE)().capabilities().variants)
    except Exception:  # noqa: BLE001 - without the engine every variant is held to its rules
        return None


def _spec(args: argparse.Namespace, extra: list[str]) -> int:
    from ..contract.spec import SpecError, VariantError, load_spec
    from .spec_view import diff_variants, list_rules, show_rule

    try:
        spec = load_spec()
        if args.view == "list":
            print(list_rules(spec, args.area))
        elif args.view == "show":
            print(show_rule(spec, args.rule))
        elif args.view == "diff":
            print(diff_variants(spec, args.first, args.second))
        else:
            for variant in spec.variants.values():
                print(f"{variant.id:<20} {variant.title}")
    except (KeyError, VariantError) as error:
        print(f"canasta spec: {error.args[0]}", file=sys.stderr)
        return 2
    except SpecError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


def _fuzz(args: argparse.Namespace, extra: list[str]) -> int:
    from .fuzz_cli import run_fuzz

    return run_fuzz(args)


def _export(args: argparse.Namespace, extra: list[str]) -> int:
    from ..contract.spec import SpecError
    from .export import ExportError, export_corpus

    try:
        written = export_corpus(args.directory, scenarios_root=args.scenarios)
    except (ExportError, SpecError) as error:
        print(f"canasta export: {error}", file=sys.stderr)
        return 1
    manifest = written.manifest
    print(f"{len(manifest['scenarios'])} scenarios and {len(manifest['variants'])} variants written to {args.directory}")
    return 0


def _play(args: argparse.Namespace, extra: list[str]) -> int:
    import json

    from ..contract.engine_protocol import EngineLoadError, cannot_play, resolve_factory
    from ..contract.model import FormatError
    from ..contract.records import GameRecord
    from ..contract.spec import SpecError, load_spec
    from ..running.replay import ReplayError, replay
    from .game_text import game_log, is_text_record, record_from_text, record_to_text

    if args.replay:
        try:
            text = args.replay.read_text(encoding="utf-8")
            if is_text_record(text):  # the text record (docs/guides/game-records.md)
                data = None
                record = record_from_text(text)
            else:
                data = json.loads(text)
        except FormatError as error:
            return _usage(f"{args.replay}: not a game record: {error}")
        except OSError as error:
            return _usage(f"{args.replay}: cannot read the game record: {error.strerror or error}")
        except (ValueError, RecursionError) as error:
            return _usage(f"{args.replay}: the game record is not JSON: {excerpt(str(error), 200)}")
        try:
            if data is not None:
                record = GameRecord.from_json(data)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
            return _usage(f"{args.replay}: not a game record: {_reason(error)}")
        try:
            factory = resolve_factory(args.engine)
        except EngineLoadError as error:
            return _usage(f"canasta play: --engine: {error}")
        replaying = factory()
        refused = cannot_play(load_spec(), replaying.capabilities(), record.variant, record.options)
        if refused:  # never replay a rule set the engine plays only in part
            print(f"canasta play: {refused}", file=sys.stderr)
            return 2
        try:
            actions = replay(record, replaying)
        except ReplayError as error:
            print(f"{args.replay}: replay differs: {error}", file=sys.stderr)
            return 1
        except Exception as error:  # noqa: BLE001 - the engine refused the record (e.g. an impossible deck)
            print(f"{args.replay}: the engine cannot replay the record: {_reason(error)}", file=sys.stderr)
            return 1
        if args.show:
            for line in game_log(record, factory()):
                print(line)
        sheet = record.final_sheet
        scores = ", ".join(f"side {i} {s.cumulative}" for i, s in enumerate(sheet.sides)) if sheet else "-"
        if sheet is None:  # a text record holds no positions or sheets to compare
            print(f"replayed {_count(len(record.hands), 'hand')}, {_count(actions, 'action')} with {args.engine}: every action accepted")
        else:
            print(f"replayed {_count(len(record.hands), 'hand')}, {_count(actions, 'action')} with {args.engine}: identical positions and scores ({scores})")
        return 0
    from .selfplay import can_self_play, format_game, play_game

    try:
        variants = load_spec().variants
    except SpecError as error:
        print(error, file=sys.stderr)
        return 1
    if args.variant not in variants:
        return _usage(f"canasta play: --variant: unknown variant {args.variant!r}{did_you_mean(args.variant, variants)} (known: {', '.join(sorted(variants))})")
    if args.json and str(args.json) != "-" and not args.json.parent.is_dir():
        return _usage(f"canasta play: --json: the folder {str(args.json.parent)!r} does not exist")
    try:
        engine = resolve_factory(args.engine)()
    except EngineLoadError as error:
        return _usage(f"canasta play: --engine: {error}")
    if not can_self_play(engine):
        return _usage(f"canasta play: --engine: {args.engine} cannot self-play: it must deal (deal) and list its legal actions (legal_actions)")
    refused = cannot_play(load_spec(), engine.capabilities(), args.variant)
    if refused:  # never play a rule set silently in part: name the parameters it lacks
        print(f"canasta play: {refused}", file=sys.stderr)
        return 2
    try:
        record = play_game(engine, load_spec(), args.seed, args.variant, max_hands=args.max_hands)  # type: ignore[arg-type]
    except Exception as error:  # noqa: BLE001 - e.g. a variant the engine does not implement
        print(f"canasta play: {args.engine} cannot play {args.variant}: {_reason(error)}", file=sys.stderr)
        return 1
    if args.json:
        text = json.dumps(record.to_json(), indent=1)
        if str(args.json) == "-":
            print(text)
            return 0
        try:
            args.json.write_text(text + "\n", encoding="utf-8")
        except OSError as error:
            return _usage(f"canasta play: --json: cannot write {args.json}: {error.strerror or error}")
    if args.record:
        if str(args.record) == "-":
            print(record_to_text(record), end="")
            return 0
        try:
            args.record.write_text(record_to_text(record), encoding="utf-8")
        except OSError as error:
            return _usage(f"canasta play: --record: cannot write {args.record}: {error.strerror or error}")
    if args.show:
        for line in game_log(record, resolve_factory(args.engine)()):
            print(line)
    print(format_game(record))
    if args.json:
        print(f"record written to {args.json}")
    if args.record:
        print(f"text record written to {args.record}")
    return 0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _usage(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def _reason(error: BaseException) -> str:
    text = f"missing {error.args[0]!r}" if isinstance(error, KeyError) and error.args else str(error)
    return excerpt(text, 300) if len(text) > 300 else (text or type(error).__name__)


if __name__ == "__main__":
    sys.exit(main())
