"""The reference engine behind thin wrappers that change only what its rejections cite: engines
that are right about legality, positions and scores but cite nothing, cite the most general rule,
or cite an unrelated rule (the proof that verdicts judge behaviour first)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from canasta_conformance.contract.engine_protocol import CITES_RULES, Capabilities
from canasta_conformance.contract.model import Action, Outcome
from canasta_conformance.contract.spec import Spec, load_spec
from canasta_reference import create_engine

#: a real rule no scenario expects a rejection to cite (informative: table talk)
UNRELATED_RULE = "info.partner-communication"


def broadest(spec: Spec, rule: str) -> str:
    """The most general rule above ``rule`` (following ``narrows:``; the first in order at a fork)."""
    current = rule
    while spec.rules[current].narrows:
        current = sorted(spec.rules[current].narrows)[0]
    return current


class _Wrapped:
    NAME = "wrapped"
    CITES = True

    def __init__(self) -> None:
        self.inner = create_engine()

    def capabilities(self) -> Capabilities:
        caps = self.inner.capabilities()
        features = tuple(f for f in caps.features if f != CITES_RULES) + ((CITES_RULES,) if self.CITES else ())
        return replace(caps, name=self.NAME, features=features)

    def cite(self, rule: str | None) -> str | None:
        return rule

    def apply(self, action: Action) -> Outcome:
        outcome = self.inner.apply(action)
        if outcome.status != "rejected":
            return outcome
        return Outcome.reject(self.cite(outcome.rule), outcome.message)

    def __getattr__(self, name: str) -> Any:  # load, observe, score, legal_actions, deal
        return getattr(self.inner, name)


class NoCitations(_Wrapped):
    """Cites no rule, and does not claim to."""

    NAME, CITES = "no-citations", False

    def cite(self, rule: str | None) -> str | None:
        return None


class BroadestCitations(_Wrapped):
    """Cites, for every rejection, the most general rule above the one the reference cites."""

    NAME = "broadest-citations"

    def cite(self, rule: str | None) -> str | None:
        return broadest(load_spec(), rule) if rule else None


class UnrelatedCitations(_Wrapped):
    """Declares cites_rules but cites a rule that has nothing to do with the rejection."""

    NAME = "unrelated-citations"

    def cite(self, rule: str | None) -> str | None:
        return UNRELATED_RULE
