"""Text views of the spec for the terminal: rules by area, one rule across variants, and the
difference between two variants (``canasta spec``)."""

from __future__ import annotations

import difflib
import json
import textwrap
from typing import Any

from ..contract.spec import Spec, thaw


def _value(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value), separators=(", ", ": "))


_plain = thaw


def list_rules(spec: Spec, area: str | None = None) -> str:
    if area is not None and area not in spec.areas:
        raise KeyError(f"unknown area {area!r} (areas: {', '.join(spec.areas)})")
    lines = []
    for area_id, info in spec.areas.items():
        if area is not None and area_id != area:
            continue
        rules = spec.rules_in(area_id)
        lines.append(f"{area_id}: {info.title} ({len(rules)} rules)")
        for rule in rules:
            flag = "" if rule.testable else "  [informative]"
            lines.append(f"  {rule.id:<44} {rule.title}{flag}")
    testable = sum(r.testable for r in spec.rules.values())
    lines.append(f"{len(spec.rules)} rules ({testable} testable) in {len(spec.areas)} areas; spec {spec.version}")
    return "\n".join(lines)


def show_rule(spec: Spec, rule_id: str) -> str:
    rule = spec.rules.get(rule_id)
    if rule is None:
        containing = [r for r in spec.rules if rule_id in r]  # "pile.froze" -> the pile.frozen.* rules first
        spelled = difflib.get_close_matches(rule_id, list(spec.rules), n=3, cutoff=0.6)
        same_area = [r for r in spec.rules if r.startswith(rule_id.split(".")[0] + ".")]
        close = list(dict.fromkeys([*containing, *spelled, *same_area]))[:8]
        hint = f" (did you mean: {', '.join(close)})" if close else ""
        raise KeyError(f"unknown rule {rule_id!r}{hint}")
    lines = [f"{rule.id}: {rule.title}", ""]
    lines += textwrap.wrap(rule.statement, 96)
    lines += ["", f"area: {rule.area}   kind: {rule.kind or '-'}   testable: {'yes' if rule.testable else 'no (informative)'}   confidence: {rule.confidence or '-'}"]
    if rule.note:
        lines += ["", *textwrap.wrap(f"note: {rule.note}", 96)]
    narrower = sorted(r.id for r in spec.rules.values() if rule.id in r.narrows)
    if rule.narrows or narrower:
        lines.append("")
        if rule.narrows:
            lines.append(f"narrows: {', '.join(rule.narrows)} (a citation of those agrees with this rule)")
        if narrower:
            lines.append(f"narrowed by: {', '.join(narrower)}")
    lines += ["", "sources:"]
    for source in rule.sources:
        title = spec.sources[source["source"]].title if source["source"] in spec.sources else source["source"]
        quote = f': "{source["quote"]}"' if source.get("quote") else ""
        lines.append(f"  - {source['source']} ({title}){quote}")
    if rule.parameters:
        variants = list(spec.variants)
        lines += ["", "parameters by variant:"]
        width = max(len(v) for v in variants)
        for name in rule.parameters:
            lines.append(f"  {name}")
            default = spec.parameters[name].default
            for variant in variants:
                value = spec.variant_parameters(variant)[name]
                marker = "" if _plain(value) == _plain(default) else "   (differs from Classic)"
                lines.append(f"    {variant:<{width}}  {_value(value)}{marker}")
    conflicts = [c for c in spec.conflicts.values() if rule.id in c.rules]
    if conflicts:
        lines += ["", "conflicts:"]
        lines += [f"  {c.id}: {c.title} (Classic: {c.default})" for c in conflicts]
    return "\n".join(lines)


def diff_variants(spec: Spec, first: str, second: str) -> str:
    a = spec.variant_parameters(first)
    b = spec.variant_parameters(second)
    differing = [name for name in spec.parameters if _plain(a[name]) != _plain(b[name])]
    if not differing:
        return f"{first} and {second} have the same parameters"
    width = max(len(n) for n in differing)
    col = max(len(first), max(len(_value(a[n])) for n in differing))
    lines = [f"{'parameter':<{width}}  {first:<{col}}  {second}"]
    lines += [f"{name:<{width}}  {_value(a[name]):<{col}}  {_value(b[name])}" for name in differing]
    lines.append(f"{len(differing)} of {len(spec.parameters)} parameters differ")
    return "\n".join(lines)
