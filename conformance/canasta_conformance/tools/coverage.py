"""Which scenarios exercise which rules (``canasta coverage``).

A scenario exercises the rules it names in ``rules``; it rejects with a rule when a step expects
a rejection citing it (``violates``). A testable rule with no scenario is uncovered; a testable
prohibition with no rejecting scenario has no negative test, and one whose scenarios never show
an accepted action lacks the nearest allowed action beside the forbidden one.

Per variant: a rule is specific to a variant when its scope (``variants:``) names the variant, or
when it holds there and one of its parameters takes another value than in the default variant; a
scenario pins it for the variant when it names the rule and plays the variant (scoped rules) or
its variant and options give every parameter of the rule the variant's value. A rule whose scope
excludes a variant (``variants:`` without it, ``except_variants:`` with it) is never asked of it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..contract.defaults import TIERS
from ..contract.scenario import Scenario
from ..contract.spec import Spec
from ..contract.tiers import scenario_tier


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


@dataclass(frozen=True)
class VariantCoverage:
    variant: str
    title: str
    scenarios: tuple[str, ...]  # scenarios played in this variant
    specific: tuple[str, ...]  # testable rules whose parameters the variant sets apart from the default
    pinned: Mapping[str, tuple[str, ...]]  # rule -> scenarios that pin it with the variant's values

    @property
    def uncovered(self) -> list[str]:
        return [rule for rule in self.specific if not self.pinned.get(rule)]


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=list) == json.dumps(b, sort_keys=True, default=list)


def compute_variant_coverage(spec: Spec, scenarios: list[Scenario]) -> list[VariantCoverage]:
    """Per variant, the rules specific to it and the scenarios pinning each with its values.

    A testable rule is specific to a variant when its scope (``variants:`` in spec/rules) names the
    variant, or when it holds there (not excluded by ``variants:`` or ``except_variants:``) and
    one of its parameters takes another value than in the default variant. A scenario pins a rule
    for the variant when it names the rule and plays the variant (a scoped rule), or gives every
    parameter of the rule the variant's value (any other rule)."""
    base = spec.variant_parameters(spec.default_variant)
    resolved = [(s, spec.variant_parameters(s.variant, s.options)) for s in scenarios]
    out = []
    for variant in spec.variants.values():
        values = spec.variant_parameters(variant.id)
        changed = {name for name in spec.parameters if not _same(values[name], base[name])}
        specific = tuple(
            r.id for r in spec.rules.values()
            if r.testable and r.holds_in(variant.id) and (variant.id in r.variants or changed & set(r.parameters))
        )
        pinned = {
            rule: tuple(
                s.id for s, params in resolved
                if rule in s.rules and (
                    s.variant == variant.id if spec.rules[rule].variants
                    else all(_same(params[p], values[p]) for p in spec.rules[rule].parameters)
                )
            )
            for rule in specific
        }
        out.append(VariantCoverage(
            variant.id, variant.title, tuple(s.id for s in scenarios if s.variant == variant.id), specific, pinned,
        ))
    return out


def format_variant_coverage(result: list[VariantCoverage], show_all: bool = False) -> str:
    lines = ["variants (rules scoped to the variant or whose parameters differ from the default variant, pinned by a scenario with the variant's values):"]
    for entry in result:
        gaps = entry.uncovered
        lines.append(
            f"  {entry.variant:<20} {len(entry.scenarios):>4} scenarios; {len(entry.specific)} variant-specific rules, "
            f"{len(entry.specific) - len(gaps)} pinned" + (f"; NO SCENARIO: {', '.join(gaps)}" if gaps else "")
        )
        if show_all:
            for rule in entry.specific:
                names = entry.pinned.get(rule, ())
                lines.append(f"      {rule:<44} {', '.join(names[:4]) + (' ...' if len(names) > 4 else '') or '-'}")
    return "\n".join(lines)
