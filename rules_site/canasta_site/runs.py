"""Running the corpus on an engine for the site, once: the conformance report and the positions
after each step (the runner drives the engine; a :class:`Recorder` around it keeps what it saw)."""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, get_args

from canasta_conformance.contract.engine_protocol import Capabilities, DealSetup, Engine, EngineFactory
from canasta_conformance.contract.errors import CanastaError
from canasta_conformance.contract.model import Action, Outcome, Position, ScoreSheet
from canasta_conformance.contract.scenario import Scenario
from canasta_conformance.running.runner import Result, Status, run_scenario


def report_statuses() -> tuple[str, ...]:
    """Every status the runner gives a scenario, in its order (a column each in the report)."""
    return get_args(Status)
#: longest a scenario may run in-process before it counts as an error (a hanging engine must not
#: hang the site build)
TIME_LIMIT = 10.0


class ScenarioTimeout(CanastaError):
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


@dataclass
class CorpusRun:
    """One engine run over the corpus: its results, with the positions it went through."""

    engine: str
    capabilities: Capabilities | None
    results: dict[str, Result] = field(default_factory=dict)
    traces: dict[str, Trace] = field(default_factory=dict)
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


class Recorder:
    """An engine seen through the runner: every call goes to ``inner``; after the starting position
    is set and after each action, the position is observed and kept (the site draws them)."""

    def __init__(self, inner: Engine) -> None:
        self.inner = inner
        self.start: Position | None = None
        self.after: list[Position | None] = []
        self.error: str | None = None

    def __getattr__(self, name: str) -> Any:  # legal_actions, deal and anything else an engine offers
        if name == "deal":
            return self._deal
        return getattr(self.inner, name)

    def capabilities(self) -> Capabilities:
        return self.inner.capabilities()

    def load(self, position: Position) -> None:
        self.inner.load(position)
        self.start = self._observe()

    def _deal(self, setup: DealSetup) -> None:
        self.inner.deal(setup)  # type: ignore[attr-defined]
        self.start = self._observe()

    def apply(self, action: Action) -> Outcome:
        outcome = self.inner.apply(action)
        self.after.append(self._observe())
        return outcome

    def observe(self) -> Position:
        return self.inner.observe()

    def score(self) -> ScoreSheet:
        return self.inner.score()

    def _observe(self) -> Position | None:
        try:
            return self.inner.observe()
        except Exception as error:  # noqa: BLE001 - the site shows what it can
            self.error = self.error or repr(error)
            return None

    def trace(self, scenario: Scenario) -> Trace:
        """The positions per step: a step without an action leaves the position as it was."""
        applied = iter(self.after)
        after: list[Position | None] = []
        last = self.start
        for step in scenario.steps:
            if step.action is not None:
                last = next(applied, None)
                if last is None:
                    break
            after.append(last)
        return Trace(self.start, tuple(after), self.error)


def run_corpus(scenarios: Iterable[Scenario], factory: EngineFactory, label: str) -> CorpusRun:
    """Run every scenario once, with a fresh engine after each error (as the CLI does), keeping
    the result and the positions the engine went through."""
    started = time.perf_counter()
    engine: Engine | None = None
    capabilities: Capabilities | None = None
    run = CorpusRun(label, None)
    for scenario in scenarios:
        if engine is None:
            engine = factory()
            capabilities = capabilities or engine.capabilities()
        recorder = Recorder(engine)
        try:
            with time_limit():
                result = run_scenario(scenario, recorder, capabilities)
        except ScenarioTimeout as error:  # raised between two guarded engine calls
            result = Result(scenario.id, "error", str(error), rules=scenario.rules)
        run.results[scenario.id] = result
        run.traces[scenario.id] = recorder.trace(scenario)
        if result.status == "error":
            engine = None
    run.capabilities = capabilities
    run.seconds = time.perf_counter() - started
    return run
