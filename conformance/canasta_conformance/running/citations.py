"""A judged rejection's citation as a value (made by :mod:`.runner`): light to import, so a process
that only reads results (the xdist controller, the report writer) does not load the runner."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

#: a citation that is a broader rule of an expected one agrees; any other differs
Agreement = Literal["broader", "differs"]


@dataclass(frozen=True)
class Citation:
    """A judged rejection that cited a rule other than the step's expected ones (or none)."""

    step: int  # 0-based, as Result.step
    action: str | None
    expected: tuple[str, ...]
    cited: str | None
    agreement: Agreement

    def describe(self) -> str:
        cited = f"cited {self.cited}" if self.cited else "cited no rule"
        expected = " or ".join(self.expected)
        if self.agreement == "broader":
            return f"step {self.step + 1}: {cited}, a broader rule than {expected} (agrees)"
        return f"step {self.step + 1}: {cited}, the scenario expects {expected}"

    def to_json(self) -> dict[str, object]:
        return {
            "step": self.step + 1, "action": self.action, "expected": list(self.expected),
            "cited": self.cited, "agreement": self.agreement,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Citation:
        """The inverse of :meth:`to_json` (whose step is 1-based)."""
        agreement: Agreement = "broader" if data["agreement"] == "broader" else "differs"
        return cls(int(data["step"]) - 1, data.get("action"), tuple(data.get("expected", ())), data.get("cited"), agreement)
