"""Core and readings: the tier of a scenario, computed from the spec.

A scenario is ``core`` when every rule it rests on (the rules it names and the rules its steps
expect a rejection to cite) is stated by the sources: confidence A or B, stated by at least one
source other than this spec's design notes, and, where the rule is part of a conflict settled by
a parameter, the value the scenario plays is a reading some source states. Otherwise it is a
``reading``: an engine that fails it reads a rule differently from this spec, on a point the
sources do not settle. A scenario may override the computed tier with a reason (``tier:``).
"""

from __future__ import annotations

from .scenario import Scenario
from .spec import Spec, VariantError, thaw
from .tier_records import Tier as Tier
from .tier_records import TierReason as TierReason

#: the source that stands for this spec's own decisions (cited where no outside source settles a point)
DESIGN_NOTE = "design-note"
STATED = frozenset({"A", "B"})


def rests_on(scenario: Scenario) -> tuple[str, ...]:
    """The rules a scenario's expectations rest on: those it names, then those its steps cite."""
    cited = (rule for step in scenario.steps for rule in step.expect.violates)
    return tuple(dict.fromkeys((*scenario.rules, *cited)))


def rule_reading_reasons(spec: Spec, rule_id: str) -> list[str]:
    """Why a rule is a reading rather than a statement of the sources (empty: it is stated)."""
    rule = spec.rules.get(rule_id)
    if rule is None:
        return []
    reasons = []
    if rule.confidence is not None and rule.confidence not in STATED:
        reasons.append(f"confidence {rule.confidence}: the sources do not settle it")
    if rule.sources and all(source["source"] == DESIGN_NOTE for source in rule.sources):
        reasons.append("stated only by a design note of this spec")
    return reasons


def conflict_reading_reasons(spec: Spec, rule_id: str, variant: str, options: dict[str, object]) -> list[str]:
    """Conflicts of ``rule_id`` settled by a parameter whose value in play no source reads. A value
    the scenario sets in its options is stated by the scenario itself, not read by the engine."""
    reasons = []
    for conflict in spec.conflicts_of(rule_id):
        if conflict.parameter is None or conflict.parameter in options:
            continue
        try:
            value = thaw(spec.variant_parameters(variant, options)[conflict.parameter])
        except (VariantError, KeyError):
            continue
        stated = [
            reading for reading in conflict.readings
            if "value" in reading and reading["value"] == value and any(s != DESIGN_NOTE for s in reading["sources"])
        ]
        if not stated:
            reasons.append(f"conflict {conflict.id} ({conflict.title}): no source reads {conflict.parameter} = {value!r}")
    return reasons


def scenario_tier(scenario: Scenario, spec: Spec) -> Tier:
    found = (
        (rule, [*rule_reading_reasons(spec, rule), *conflict_reading_reasons(spec, rule, scenario.variant, dict(scenario.options))])
        for rule in rests_on(scenario)
    )
    reasons = tuple(TierReason(rule, "; ".join(whys)) for rule, whys in found if whys)
    if scenario.tier_override is not None:
        name, why = scenario.tier_override
        return Tier("reading" if name == "reading" else "core", reasons, why)
    return Tier("reading" if reasons else "core", reasons)
