"""Which scenarios exercise which rules (``canasta coverage``).

A scenario exercises the rules it names in ``rules``; it rejects with a rule when a step expects
a rejection citing it (``violates``). A testable rule with no scenario is uncovered; a testable
prohibition with no rejecting scenario has no negative test, and one whose scenarios never show
an accepted action lacks the nearest allowed action beside the forbidden one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from .scenario import Scenario
from .spec import Spec
from .tiers import TIERS, scenario_tier


@dataclass(frozen=True)
class RuleCoverage:
    rule: str
    testable: bool
    forbids: bool
    scenarios: tuple[str, ...]
    rejecting: tuple[str, ...]
    allowing: tuple[str, ...] = ()  # scenarios of the rule that also show an accepted action

    @property
    def missing_allowed(self) -> bool:
        return self.testable and self.forbids and not self.allowing

    @property
    def uncovered(self) -> bool:
        return self.testable and not self.scenarios

    @property
    def missing_rejection(self) -> bool:
        return self.testable and self.forbids and not self.rejecting


@dataclass(frozen=True)
class Coverage:
    rules: tuple[RuleCoverage, ...]
    scenario_count: int
    #: scenarios per tier (core, reading), computed from the spec
    tiers: tuple[tuple[str, int], ...] = ()

    @property
    def uncovered(self) -> list[RuleCoverage]:
        return [r for r in self.rules if r.uncovered]

    @property
    def missing_rejection(self) -> list[RuleCoverage]:
        return [r for r in self.rules if r.missing_rejection]

    @property
    def missing_allowed(self) -> list[RuleCoverage]:
        return [r for r in self.rules if r.missing_allowed]


def compute_coverage(spec: Spec, scenarios: list[Scenario]) -> Coverage:
    exercising: dict[str, list[str]] = defaultdict(list)
    rejecting: dict[str, list[str]] = defaultdict(list)
    allowing: dict[str, list[str]] = defaultdict(list)
    for scenario in scenarios:
        rejected = {rule for step in scenario.steps for rule in step.expect.violates}
        accepts = any(step.action is not None and step.expect.outcome == "accepted" for step in scenario.steps)
        for rule in scenario.rules:
            exercising[rule].append(scenario.id)
        for rule in rejected:
            rejecting[rule].append(scenario.id)
        if accepts:
            for rule in {*scenario.rules, *rejected}:
                allowing[rule].append(scenario.id)
    rules = tuple(
        RuleCoverage(
            rule.id, rule.testable, rule.forbids, tuple(exercising[rule.id]), tuple(rejecting[rule.id]),
            tuple(allowing[rule.id]),
        )
        for rule in spec.rules.values()
    )
    tiers = Counter(scenario_tier(scenario, spec).name for scenario in scenarios)
    return Coverage(rules, len(scenarios), tuple((tier, tiers.get(tier, 0)) for tier in TIERS))


def format_coverage(spec: Spec, coverage: Coverage, show_all: bool = False) -> str:
    lines = []
    for area in spec.areas:
        entries = [c for c in coverage.rules if c.rule.split(".")[0] == area]
        if not entries:
            continue
        lines.append(f"{area}:")
        for entry in entries:
            flags = []
            if entry.uncovered:
                flags.append("UNCOVERED")
            if entry.missing_rejection:
                flags.append("NO REJECTING SCENARIO")
            if entry.missing_allowed:
                flags.append("NO ALLOWED COUNTERPART")
            if not entry.testable:
                flags.append("informative")
            if not show_all and not (entry.uncovered or entry.missing_rejection or entry.missing_allowed) and entry.testable:
                count = f"{len(entry.scenarios)} scenarios" + (f", {len(entry.rejecting)} rejecting" if entry.forbids else "")
                lines.append(f"  {entry.rule:<46} {count}")
                continue
            names = ", ".join(entry.scenarios[:6]) + (" ..." if len(entry.scenarios) > 6 else "")
            lines.append(f"  {entry.rule:<46} {len(entry.scenarios)} scenarios{(' [' + ', '.join(flags) + ']') if flags else ''}" + (f": {names}" if show_all and names else ""))
    testable = [c for c in coverage.rules if c.testable]
    prohibitions = [c for c in testable if c.forbids]
    lines.append("")
    if coverage.tiers:
        lines.append("scenarios by tier: " + ", ".join(f"{count} {tier}" for tier, count in coverage.tiers))
    lines.append(
        f"{coverage.scenario_count} scenarios; {len(coverage.rules)} rules, {len(testable)} testable: "
        f"{len(testable) - len(coverage.uncovered)} covered, {len(coverage.uncovered)} uncovered; "
        f"{len(prohibitions)} testable prohibitions: {len(prohibitions) - len(coverage.missing_rejection)} with a rejecting scenario, "
        f"{len(coverage.missing_rejection)} without, "
        f"{len(prohibitions) - len(coverage.missing_allowed)} beside an accepted action"
    )
    return "\n".join(lines)
