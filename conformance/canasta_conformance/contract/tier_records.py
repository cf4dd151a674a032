"""A scenario's tier as values (computed by :mod:`.tiers`): light to import, so a process that only
reads results (the xdist controller, the report writer) does not load the spec and scenario code."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .defaults import TierName


@dataclass(frozen=True)
class TierReason:
    """One rule a scenario rests on that the sources do not settle, and why."""

    rule: str
    why: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "why": self.why}

    @classmethod
    def from_json(cls, data: Mapping[str, str]) -> TierReason:
        return cls(data["rule"], data["why"])


@dataclass(frozen=True)
class Tier:
    name: TierName
    reasons: tuple[TierReason, ...] = ()
    #: the scenario's own reason when it overrides the computed tier
    override: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"tier": self.name, "reasons": [r.to_json() for r in self.reasons], "override": self.override}
