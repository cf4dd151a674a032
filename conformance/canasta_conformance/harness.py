"""One engine for a run: built from a factory, its capabilities asked once, rebuilt after an
error so that one misbehaving scenario cannot spoil the next."""

from __future__ import annotations

from dataclasses import dataclass, field

from .engine import Capabilities, Engine, EngineFactory, resolve_factory
from .runner import Result, run_scenario
from .scenario import Scenario


@dataclass
class EngineSession:
    factory: EngineFactory
    label: str
    _engine: Engine | None = field(default=None, repr=False)
    _capabilities: Capabilities | None = field(default=None, repr=False)

    @classmethod
    def from_spec(cls, spec: str) -> EngineSession:
        return cls(resolve_factory(spec), spec)

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

    def run(self, scenario: Scenario) -> Result:
        result = run_scenario(scenario, self.engine, self.capabilities)
        if result.status == "error":
            self.restart()
        return result

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
