"""Deliberately wrong engines for testing the harness (in the style of Bowtie's miniatures)."""

from __future__ import annotations

from canasta_conformance.contract.engine_protocol import Capabilities
from canasta_conformance.contract.model import Action, Outcome, Position, ScoreSheet, SideScore
from canasta_conformance.contract.spec import load_spec


class _Base:
    FEATURES: tuple[str, ...] = ("legal_actions", "deal")

    def __init__(self) -> None:
        self.position: Position | None = None

    def capabilities(self) -> Capabilities:
        spec = load_spec()
        return Capabilities(self.__class__.__name__, "0", tuple(spec.variants), ("*",), self.FEATURES, spec.version)

    def load(self, position: Position) -> None:
        self.position = position

    def observe(self) -> Position:
        assert self.position is not None
        return self.position

    def score(self) -> ScoreSheet:
        assert self.position is not None
        return ScoreSheet(tuple(SideScore() for _ in self.position.melds))

    def legal_actions(self) -> list[Action]:
        return []

    def deal(self, setup: object) -> None:
        raise NotImplementedError("this fake engine cannot deal")


class AcceptEverything(_Base):
    """Accepts every action and never changes the position."""

    def apply(self, action: Action) -> Outcome:
        return Outcome.accept()


class RejectEverything(_Base):
    """Rejects every action, citing a rule that does not exist (and declaring that it cites rules)."""

    FEATURES = ("legal_actions", "deal", "cites_rules")

    def apply(self, action: Action) -> Outcome:
        return Outcome.reject("turn.nothing-is-allowed", "this engine rejects everything")


class Raising(_Base):
    """Raises inside apply."""

    def apply(self, action: Action) -> Outcome:
        raise RuntimeError("boom")


class SupportsNothing(AcceptEverything):
    """Declares no variant: every scenario is unsupported, so a run executes none."""

    def capabilities(self) -> Capabilities:
        return Capabilities("SupportsNothing", "0", (), (), (), load_spec().version)
