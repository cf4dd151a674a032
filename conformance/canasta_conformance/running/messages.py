"""Failure messages an engine author acts on.

The failing step's own expected rules come first, each with its title and a short quote of a
source; then, for a scenario of the ``reading`` tier, which rule the engine reads differently
and what the sources say; then the scenario's notes; then expected vs actual.
"""

from __future__ import annotations

from ..contract.scenario import Scenario
from ..contract.spec import Rule, Spec
from ..contract.tiers import DESIGN_NOTE
from .runner import Result

QUOTE_CHARS = 110


def _short(text: str, limit: int = QUOTE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def source_name(spec: Spec, source_id: str) -> str:
    source = spec.sources.get(source_id)
    return source.title if source is not None else source_id


def rule_quote(spec: Spec, rule: Rule) -> str | None:
    """The first quoted source of a rule, as ``Title: "quote"`` (None when no source is quoted)."""
    for entry in rule.sources:
        if entry.get("quote"):
            return f'{source_name(spec, entry["source"])}: "{_short(entry["quote"])}"'
    return None


def rule_line(spec: Spec, rule_id: str, quote: bool = True) -> str:
    rule = spec.rules.get(rule_id)
    if rule is None:
        return rule_id
    text = f"{rule_id}: {rule.title}"
    quoted = rule_quote(spec, rule) if quote else None
    return f"{text} ({quoted})" if quoted else text


def what_the_sources_say(spec: Spec, rule_id: str) -> str:
    """For a rule the sources do not settle: who states what, then the spec's note."""
    rule = spec.rules.get(rule_id)
    if rule is None:
        return "(not in this spec)"
    parts = []
    for entry in rule.sources:
        name = "this spec's design note" if entry["source"] == DESIGN_NOTE else source_name(spec, entry["source"])
        said = entry.get("quote") or entry.get("note")
        parts.append(f'{name}: "{_short(said)}"' if said else name)
    for conflict in spec.conflicts.values():
        if rule_id in conflict.rules:
            parts.append(f"conflict {conflict.id}, {conflict.title}: this spec takes {_short(conflict.default)}")
    if rule.note:
        parts.append(_short(rule.note))
    return "; ".join(parts)


def failure_lines(scenario: Scenario, result: Result, spec: Spec | None) -> list[str]:
    """The report of a failed (or errored) scenario, without the rerun command."""
    kind = "engine error" if result.status == "error" else "scenario failed"
    lines = [f"{kind}: {scenario.id}: {scenario.title}"]
    if spec is not None:
        if result.step_rules:
            lines.append("the failing step expects a rejection by:")
            lines += [f"  {rule_line(spec, rule)}" for rule in result.step_rules]
        else:
            lines.append("rules: " + ", ".join(scenario.rules))
        tier = result.tier
        if tier is not None and tier.name == "reading":
            if tier.reasons:
                for reason in tier.reasons:
                    lines.append(
                        f"tier reading: your engine reads {reason.rule} differently ({reason.why}); "
                        f"the sources: {what_the_sources_say(spec, reason.rule)}"
                    )
            else:
                lines.append(f"tier reading (set by the scenario: {tier.override})")
    else:
        lines.append("rules: " + ", ".join(scenario.rules))
    if scenario.notes:
        lines.append(f"notes: {_short(scenario.notes, 600)}")
    if result.step is not None and result.step < len(scenario.steps) and scenario.steps[result.step].note:
        lines.append(f"step note: {_short(scenario.steps[result.step].note or '', 400)}")
    lines.append(result.report())
    earlier = [c.describe() for c in result.citations]
    if earlier:
        lines.append("citations (not failures): " + "; ".join(earlier))
    return lines
