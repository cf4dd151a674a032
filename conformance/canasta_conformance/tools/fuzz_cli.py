"""``canasta fuzz``: the command around :mod:`canasta_conformance.running.fuzz` and :mod:`.shrink`."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from ..contract.defaults import DEFAULT_ENGINE
from ..contract.engine_protocol import Engine, EngineFault, EngineLoadError, resolve_factory
from ..running.fuzz import Finding, Fuzzer, FuzzSettings, FuzzStats, FuzzUnsupported, oracle_factory
from ..running.shrink import Shrinker, WrittenScenario, write_scenario

DEFAULT_GAMES = 20


def engine_factory(engine: str | None, engine_cmd: str | None, timeout: float) -> tuple[Callable[[], Engine], str]:
    """A factory of the engine under test and its label (raises EngineLoadError)."""
    if engine_cmd:
        from ..transports.subprocess_engine import SubprocessEngine

        return partial(SubprocessEngine, engine_cmd, timeout=timeout), engine_cmd
    spec = engine or DEFAULT_ENGINE
    return resolve_factory(spec), spec


def parse_options(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    options = json.loads(text)
    if not isinstance(options, dict):
        raise ValueError("--options is a JSON object of parameter names and values")
    return options


def report_finding(
    finding: Finding, fuzzer: Fuzzer, label: str, out: Path | None, shrink: bool, stream: TextIO,
) -> WrittenScenario | None:
    """Print a finding; shrink it into a scenario, check it and write it (to ``out``, or print it)."""
    print(finding.report(), file=stream)
    if not shrink:
        return None
    shrinker = Shrinker(fuzzer.mirror, fuzzer.spec)
    reproduction = shrinker.shrink(finding)
    with tempfile.TemporaryDirectory() as scratch:
        target = out or Path(scratch)
        written = write_scenario(reproduction, finding, fuzzer.mirror, fuzzer.spec, label, target, oracle_factory())
    cards = reproduction.cards_in_play
    size = f", {cards} cards in play" if cards is not None else ""
    if written.problems:
        print(f"  the shrunk scenario does not validate (please report this):\n{written.problems}", file=stream)
    else:
        ref = written.reference.status if written.reference else "-"
        eng = written.engine.status if written.engine else "-"
        verdict = "confirmed" if written.confirmed else "NOT confirmed"
        print(f"  shrunk in {reproduction.tries} replays{size}: {verdict} (reference: {ref}; engine: {eng})", file=stream)
    if out is not None and written.path is not None:
        print(f"  scenario written to {written.path}", file=stream)
    else:
        print(written.text, file=stream)
    return written


def run_fuzz(args: argparse.Namespace, stream: TextIO | None = None) -> int:
    stream = stream or sys.stdout
    try:
        options = parse_options(args.options)
        factory, label = engine_factory(args.engine, args.engine_cmd, args.timeout)
        engine = factory()
    except (EngineLoadError, EngineFault, ValueError) as error:
        print(f"canasta fuzz: {error}", file=sys.stderr)
        return 2
    settings = FuzzSettings(variant=args.variant, options=options, seed=args.seed, hands_per_game=args.hands)
    try:
        fuzzer = Fuzzer(engine, settings, restart=factory if args.engine_cmd else None)
    except Exception as error:  # noqa: BLE001 - an unknown variant or option, a spec problem
        print(f"canasta fuzz: {error}", file=sys.stderr)
        _close(engine)
        return 2
    reason = fuzzer.unsupported_reason()
    if reason:
        print(f"canasta fuzz: {reason}", file=sys.stderr)
        _close(engine)
        return 2
    games: Sequence[int] | None = None
    seconds = args.minutes * 60 if args.minutes is not None else None
    if seconds is None:
        games = range(args.games if args.games is not None else DEFAULT_GAMES)

    def progress(stats: FuzzStats, findings: int) -> None:
        print(stats.line(findings), file=sys.stderr, flush=True)

    print(f"canasta fuzz: {label} against the reference engine; variant {args.variant}, seed {args.seed}", file=stream)
    interrupted = False
    try:
        fuzzer.run(games, seconds=seconds, max_findings=args.max_findings, on_progress=None if args.quiet else progress)
    except KeyboardInterrupt:
        interrupted = True
        print("\ninterrupted: the findings so far", file=stream)
    except FuzzUnsupported as error:
        print(f"canasta fuzz: {error}", file=sys.stderr)
        _close(fuzzer.mirror.engine)
        return 2
    print(fuzzer.stats.line(len(fuzzer.findings)), file=stream)
    try:
        for finding in fuzzer.findings:
            report_finding(finding, fuzzer, label, args.out, not args.no_shrink and not interrupted, stream)
    except KeyboardInterrupt:
        pass
    _close(fuzzer.mirror.engine)
    return 1 if fuzzer.findings else 0


def _close(engine: Any) -> None:
    close = getattr(engine, "close", None)
    if callable(close):
        close()
