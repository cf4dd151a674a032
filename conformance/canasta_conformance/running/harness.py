"""One engine for a run: built from a factory, its capabilities asked once, rebuilt after an
error so that one misbehaving scenario cannot spoil the next. An engine that cannot start is an
error of each scenario (tried once: an engine that never started is not retried)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..contract.defaults import MAX_CONSECUTIVE_FAULTS
from ..contract.engine_protocol import Capabilities, Engine, EngineFactory, EngineLoadError, resolve_factory
from ..contract.scenario import Scenario
from ..contract.tiers import Tier
from .runner import Judging, Result, describe_error, run_scenario


@dataclass
class EngineSession:
    factory: EngineFactory
    label: str
    judging: Judging = field(default_factory=Judging)
    max_consecutive_faults: int = MAX_CONSECUTIVE_FAULTS
    _engine: Engine | None = field(default=None, repr=False)
    _capabilities: Capabilities | None = field(default=None, repr=False)
    _start_failure: tuple[str, tuple[str, ...]] | None = field(default=None, repr=False)
    _start_error: Exception | None = field(default=None, repr=False)
    _faults_in_a_row: list[str] = field(default_factory=list, repr=False)
    #: set when the circuit breaker opened: why no more scenario is run
    broken: str | None = None
    #: time.monotonic() after which no scenario is started (the run's time budget), or None
    deadline: float | None = None

    @classmethod
    def from_spec(cls, spec: str, judging: Judging | None = None) -> EngineSession:
        return cls(resolve_factory(spec), spec, judging or Judging())

    @property
    def engine(self) -> Engine:
        if self._start_error is not None and self._capabilities is None:
            raise self._start_error  # it never started: the one attempt (and its handshake) is not repeated
        if self._engine is None:
            try:
                self._engine = self.factory()
            except EngineLoadError:
                raise
            except Exception as error:
                if self._capabilities is None:
                    self._start_error = error
                raise
        return self._engine

    @property
    def capabilities(self) -> Capabilities:
        if self._capabilities is None:
            self._capabilities = self.engine.capabilities()
        return self._capabilities

    @property
    def started(self) -> bool:
        return self._engine is not None

    def run(self, scenario: Scenario, tier: Tier | None = None) -> Result:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.broken = "the run's time budget (--canasta-run-timeout) is spent"
        if self.broken is not None:
            return Result(scenario.id, "error", f"not run: {self.broken}", rules=scenario.rules)
        failure = self._start_failure or self._start()
        if failure is not None:
            return Result(scenario.id, "error", failure[0], details=failure[1], rules=scenario.rules)
        engine = self.engine
        result = run_scenario(scenario, engine, self.capabilities, self.judging, tier)
        if result.status == "error":
            self._count_fault(scenario, engine, result)
            self.restart()
        elif result.status != "unsupported":
            self._faults_in_a_row.clear()
        return result

    def _count_fault(self, scenario: Scenario, engine: Engine, result: Result) -> None:
        """The circuit breaker: N scenarios in a row that lost the engine program stop the run."""
        if not getattr(engine, "lost", False):
            self._faults_in_a_row.clear()
            return
        self._faults_in_a_row.append(scenario.id)
        if len(self._faults_in_a_row) >= self.max_consecutive_faults > 0:
            self.broken = (
                f"the engine program was lost (timeout, crash or garbage) in {len(self._faults_in_a_row)} scenarios "
                f"in a row ({', '.join(self._faults_in_a_row)}; last: {result.message})"
            )

    def _start(self) -> tuple[str, tuple[str, ...]] | None:
        """Start the engine unless it runs; (message, details) if it does not start."""
        try:
            self.engine  # noqa: B018 - starts it
            self.capabilities  # noqa: B018
            return None
        except EngineLoadError:
            raise
        except Exception as error:  # noqa: BLE001 - an engine that cannot start fails the scenario at hand
            message, details = describe_error(error, "the engine raised")
            failure = (f"the engine did not start: {message}", details)
            if self._capabilities is None:
                self._start_failure = failure  # it never started: do not try again for every scenario
            self.restart()
            return failure

    def restart(self) -> None:
        engine, self._engine = self._engine, None
        close = getattr(engine, "close", None)
        if callable(close):
            try:
                close()
            except Exception:  # noqa: BLE001 - a broken engine may fail to close too
                pass

    def close(self) -> None:
        self.restart()
