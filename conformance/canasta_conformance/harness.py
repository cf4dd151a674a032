"""One engine for a run: built from a factory, its capabilities asked once, rebuilt after an
error so that one misbehaving scenario cannot spoil the next. An engine that cannot start is an
error of each scenario (tried once: an engine that never started is not retried)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .engine import Capabilities, Engine, EngineFactory, EngineLoadError, resolve_factory
from .runner import Judging, Result, describe_error, run_scenario
from .scenario import Scenario


@dataclass
class EngineSession:
    factory: EngineFactory
    label: str
    judging: Judging = field(default_factory=Judging)
    _engine: Engine | None = field(default=None, repr=False)
    _capabilities: Capabilities | None = field(default=None, repr=False)
    _start_failure: tuple[str, tuple[str, ...]] | None = field(default=None, repr=False)

    @classmethod
    def from_spec(cls, spec: str, judging: Judging | None = None) -> EngineSession:
        return cls(resolve_factory(spec), spec, judging or Judging())

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            self._engine = self.factory()
        return self._engine

    @property
    def capabilities(self) -> Capabilities:
        if self._capabilities is None:
            self._capabilities = self.engine.capabilities()
        return self._capabilities

    @property
    def started(self) -> bool:
        return self._engine is not None

    def run(self, scenario: Scenario) -> Result:
        failure = self._start_failure or self._start()
        if failure is not None:
            return Result(scenario.id, "error", failure[0], details=failure[1], rules=scenario.rules)
        result = run_scenario(scenario, self.engine, self.capabilities, self.judging)
        if result.status == "error":
            self.restart()
        return result

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
