"""The engine protocol (Python transport) and how the harness finds an engine.

An engine is any object with these methods; the harness calls ``load`` once per scenario, then
``apply`` for each step, ``observe`` to compare positions and ``score`` when the hand is over.
Engines in other languages speak the same operations as JSON lines (see the protocol schemas).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .cards import Card
from .errors import CanastaError
from .model import Action, Outcome, Position, ScoreSheet
from .suggest import did_you_mean

if TYPE_CHECKING:
    from .spec import Spec

#: optional features an engine may declare (a scenario lists those it needs in ``requires``);
#: ``cites_rules``: the engine's rejections cite this spec's rule IDs, so the harness judges them
FEATURES = ("legal_actions", "deal", "cites_rules")
CITES_RULES = "cites_rules"


@dataclass(frozen=True)
class Capabilities:
    """What an engine says about itself in the handshake."""

    name: str
    version: str
    variants: tuple[str, ...]
    #: parameter names the engine honours as scenario options ("*" = all parameters of the spec)
    options: tuple[str, ...] = ()
    features: tuple[str, ...] = ()
    spec_version: str | None = None

    @cached_property
    def declared(self) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        """The variants, options and features as sets, made once (a run asks for every scenario;
        an engine lists about a hundred options)."""
        return frozenset(self.variants), frozenset(self.options), frozenset(self.features)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name, "version": self.version, "variants": list(self.variants),
            "options": list(self.options), "features": list(self.features), "spec_version": self.spec_version,
        }


def cannot_play(spec: Spec, capabilities: Capabilities, variant: str, options: Mapping[str, Any] | None = None) -> str | None:
    """Why an engine with these capabilities cannot play ``variant`` with ``options``, naming the
    parameters at fault; None when it can. Every command that starts a game or a hand asks this
    first, so that no engine silently plays a rule set it does not implement.

    An undeclared variant is refused, naming every parameter the variant (with the options) sets
    away from its default that the engine does not list among its options; a declared variant is
    refused for each option the engine does not list (``"*"`` lists them all)."""
    options = dict(options or {})
    if variant not in spec.variants:
        return f"unknown variant {variant!r}{did_you_mean(variant, spec.variants)} (known: {', '.join(sorted(spec.variants))})"
    unknown = sorted(set(options) - set(spec.parameters))
    if unknown:
        return f"unknown parameter(s) {', '.join(name + did_you_mean(name, spec.parameters) for name in unknown)}"
    honoured = set(spec.parameters) if "*" in capabilities.options else set(capabilities.options)
    missing = [name for name in options if name not in honoured]
    if variant in capabilities.variants:
        if missing:
            return f"{capabilities.name} does not implement option(s) {', '.join(sorted(missing))}"
        return None
    from .spec import thaw  # the spec module loads with the spec a caller passes in

    values = spec.variant_parameters(variant, options)
    changed = [name for name, p in spec.parameters.items() if thaw(values[name]) != thaw(p.default) and name not in honoured]
    named = sorted({*missing, *changed})
    why = f": parameter(s) not implemented: {', '.join(named)}" if named else ""
    return f"{capabilities.name} does not play variant {variant!r}{why}"


@dataclass(frozen=True)
class DealSetup:
    """Start a hand from an explicit deck order (top first)."""

    variant: str
    options: dict[str, object]
    dealer: int
    deck: tuple[Card, ...]
    scores: tuple[int, ...] = field(default=())
    #: the first player, for variants that choose it at random (deal.first_player: random)
    first_player: int | None = None


@runtime_checkable
class Engine(Protocol):
    def capabilities(self) -> Capabilities: ...

    def load(self, position: Position) -> None:
        """Set up the position. Raise :class:`OperationUnsupported` for a position this engine cannot
        play (the scenario is then reported unsupported, as an ``unsupported`` reply is); any other
        exception, a ValueError too, is reported as an error of the engine."""

    def apply(self, action: Action) -> Outcome:
        """Apply an action of the player to move; a rejection leaves the position unchanged."""

    def observe(self) -> Position: ...

    def score(self) -> ScoreSheet:
        """The score sheet of the hand, once it is over."""


class LegalActions(Protocol):
    def legal_actions(self) -> Sequence[Action]: ...


class Dealer(Protocol):
    def deal(self, setup: DealSetup) -> None: ...


class EngineLoadError(CanastaError, RuntimeError):
    pass


class OperationUnsupported(CanastaError):
    """Raised by an engine for an operation it does not implement (the JSON-lines transport
    answers ``unsupported``). The harness reports the scenario as unsupported, not failed."""


class EngineFault(CanastaError, RuntimeError):
    """The engine misbehaved in a way the harness caught: a crash, a hang, an answer that breaks
    the protocol, or an error the engine reported. ``details`` hold the evidence (for an engine
    process: its traceback, the last messages both ways and its stderr)."""

    def __init__(self, message: str, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.details = tuple(details)


EngineFactory = Callable[[], Engine]


#: the entry-point group under which installed engines register a zero-argument factory:
#: ``[project.entry-points."canasta.engines"] my-engine = "my_engine:create_engine"``
ENGINE_GROUP = "canasta.engines"


def installed_engines() -> dict[str, str]:
    """Engines registered in the ``canasta.engines`` entry-point group: name -> ``module:factory``."""
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENGINE_GROUP)}


def resolve_factory(spec: str) -> EngineFactory:
    """``module:attribute``, or the name of an installed engine -> a zero-argument factory of
    engines (a class or a function)."""
    if ":" not in spec:
        engines = installed_engines()
        if spec not in engines:
            known = ", ".join(sorted(engines)) or "none"
            raise EngineLoadError(
                f"no installed engine named {spec!r}{did_you_mean(spec, engines)}; installed engines: {known} "
                f"(or give a factory as 'module:factory')"
            )
        spec = engines[spec]
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise EngineLoadError(f"--canasta-engine wants 'module:factory' or an installed engine's name, got {spec!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m pytest` does: engines next to the user are found
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise EngineLoadError(f"cannot import engine module {module_name!r}: {error}") from error
    factory = module
    for part in attribute.split("."):
        try:
            factory = getattr(factory, part)
        except AttributeError:
            raise EngineLoadError(f"module {module_name!r} has no attribute {attribute!r}") from None
    if not callable(factory):
        raise EngineLoadError(f"{spec!r} is not callable")
    return factory
