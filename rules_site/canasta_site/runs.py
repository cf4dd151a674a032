"""Running the corpus on an engine for the site: the conformance report and step-by-step traces."""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from canasta_conformance.engine import Capabilities, Engine, EngineFactory
from canasta_conformance.runner import start_scenario
from canasta_conformance.model import Position
from canasta_conformance.runner import Result, run_scenario
from canasta_conformance.scenario import Scenario

STATUSES = ("passed", "failed", "error", "unsupported")
#: longest a scenario may run in-process before it counts as an error (a hanging engine must not
#: hang the site build)
TIME_LIMIT = 10.0


class ScenarioTimeout(Exception):
    """Raised inside the engine when a scenario runs longer than :data:`TIME_LIMIT`."""


@contextmanager
def time_limit(seconds: float = TIME_LIMIT) -> Iterator[None]:
    """Interrupt the block after ``seconds`` (SIGALRM, main thread only; elsewhere no limit)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise ScenarioTimeout(f"the scenario did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Report:
    """Results of one engine on the corpus."""

    engine: str
    capabilities: Capabilities | None
    results: dict[str, Result] = field(default_factory=dict)
    seconds: float = 0.0

    def counts_by_area(self, scenarios: Iterable[Scenario]) -> dict[str, Counter[str]]:
        table: dict[str, Counter[str]] = {}
        for scenario in scenarios:
            result = self.results.get(scenario.id)
            table.setdefault(scenario.area, Counter())[result.status if result else "not run"] += 1
        return table

    @property
    def totals(self) -> Counter[str]:
        return Counter(r.status for r in self.results.values())


def run_report(scenarios: Iterable[Scenario], factory: EngineFactory, label: str) -> Report:
    """Run every scenario with a fresh engine after each error (as the CLI does)."""
    started = time.perf_counter()
    engine: Engine | None = None
    capabilities: Capabilities | None = None
    report = Report(label, None)
    for scenario in scenarios:
        if engine is None:
            engine = factory()
            capabilities = capabilities or engine.capabilities()
        try:
            with time_limit():
                result = run_scenario(scenario, engine, capabilities)
        except ScenarioTimeout as error:  # raised between two guarded engine calls
            result = Result(scenario.id, "error", str(error), rules=scenario.rules)
        report.results[scenario.id] = result
        if result.status == "error":
            engine = None
    report.capabilities = capabilities
    report.seconds = time.perf_counter() - started
    return report


@dataclass(frozen=True)
class Trace:
    """Positions an engine went through in a scenario: ``start``, then after each step."""

    start: Position | None
    after: tuple[Position | None, ...]
    error: str | None = None

    def before(self, step: int) -> Position | None:
        if step == 0:
            return self.start
        return self.after[step - 1] if step - 1 < len(self.after) else None


def trace(scenario: Scenario, engine: Engine) -> Trace:
    """Play a scenario on ``engine`` and record the position after each step (never raises)."""
    try:
        with time_limit():
            return _trace(scenario, engine)
    except ScenarioTimeout as error:
        return Trace(None, (), str(error))


def _trace(scenario: Scenario, engine: Engine) -> Trace:
    try:
        start_scenario(scenario, engine)
        start = engine.observe()
    except Exception as error:  # noqa: BLE001 - the site shows what it can
        return Trace(None, (), repr(error))
    after: list[Position | None] = []
    for step in scenario.steps:
        try:
            if step.action is not None:
                engine.apply(step.action)
            after.append(engine.observe())
        except Exception as error:  # noqa: BLE001
            return Trace(start, tuple(after), repr(error))
    return Trace(start, tuple(after))
