"""The two ways an action fails: it breaks a rule, or it is not an action of this position."""

from __future__ import annotations

from canasta_conformance.contract.errors import CanastaError


class Illegal(CanastaError):
    """The action breaks rule ``rule`` (a spec rule ID)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class Malformed(CanastaError):
    """The action does not fit the position at all (a card not in the hand, ...)."""
