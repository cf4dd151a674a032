"""Results of a run as data: one entry per scenario, counts by rule area, the JSON report and the
Markdown conformance matrix. Nothing here knows pytest.

A :class:`ReportEntry` is the one object a scenario's result travels as: the pytest plugin builds it
from the runner's result (:meth:`ReportEntry.from_result`) and records its :meth:`~ReportEntry.to_json`
as one user property, which crosses pytest-xdist's transport as plain JSON data; :mod:`.collector`
reads it back with :meth:`~ReportEntry.from_json` for the summary, the JSON report, the matrix and
the known-failures file.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..contract.defaults import TIERS
from ..contract.tier_records import Tier, TierReason
from .citations import Citation

if TYPE_CHECKING:
    from ..contract.scenario import Scenario
    from .runner import Result

REPORT_FORMAT = "canasta-report/1"
#: every status of a report entry; rule-differs: the behaviour passed but an engine that cites
#: rules cited another one (not a failure); xfail: a known failure that failed, xpass: one that passed
STATUSES: tuple[str, ...] = ("passed", "failed", "error", "unsupported", "rule-differs", "xfail", "xpass")
#: the statuses always shown as columns (the others only when a run has them)
MAIN_STATUSES: tuple[str, ...] = ("passed", "failed", "error", "unsupported", "rule-differs")
#: the statuses that fail a run
FAILURES = frozenset({"failed", "error", "xpass"})
FILE_AREA = "(file)"  # the area of a scenario file that does not load


@dataclass(frozen=True)
class ReportEntry:
    id: str
    status: str
    rules: tuple[str, ...] = ()
    areas: tuple[str, ...] = ()
    message: str = ""
    step: int | None = None  # 1-based
    action: str | None = None
    seconds: float = 0.0  # to the microsecond
    path: str | None = None
    known_failure: str | None = None
    details: tuple[str, ...] = field(default=())
    tier: str | None = None
    #: rules that make the scenario a reading
    tier_reasons: tuple[TierReason, ...] = ()
    #: the scenario's reason when it overrides its computed tier
    tier_override: str | None = None
    #: judged citations that are not an expected rule
    citations: tuple[Citation, ...] = ()

    @classmethod
    def from_result(
        cls, scenario: Scenario, result: Result, *, tier: Tier, path: str | None = None, known_failure: str | None = None,
    ) -> ReportEntry:
        """The entry of a scenario the runner ran (``tier``: the one computed at collection, unless
        the result carries its own)."""
        tier = result.tier or tier
        return cls(
            id=scenario.id, status=result.status, rules=scenario.rules, areas=scenario.rule_areas,
            message=result.message if result.status != "passed" else "",
            step=None if result.step is None else result.step + 1,
            action=result.action if result.step is not None and result.action else None,
            seconds=round(result.seconds, 6), path=path, known_failure=known_failure,
            details=result.details if result.status in ("failed", "error") else (),
            tier=tier.name, tier_reasons=tier.reasons, tier_override=tier.override, citations=result.citations,
        )

    @property
    def headline(self) -> str:
        """The message with the step it happened at: ``step 2 (discard 5C): expected ...``."""
        if self.step is None:
            return self.message
        return f"step {self.step}" + (f" ({self.action})" if self.action else "") + f": {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "status": self.status, "rules": list(self.rules), "areas": list(self.areas),
            "message": self.message, "step": self.step, "action": self.action, "seconds": round(self.seconds, 6),
            "path": self.path, "known_failure": self.known_failure, "details": list(self.details),
            "tier": self.tier, "tier_reasons": [r.to_json() for r in self.tier_reasons], "tier_override": self.tier_override,
            "citations": [c.to_json() for c in self.citations],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReportEntry:
        """The inverse of :meth:`to_json`: ``ReportEntry.from_json(e.to_json()) == e`` (seconds kept to
        the microsecond)."""
        return cls(
            id=data["id"], status=data["status"], rules=tuple(data.get("rules", ())), areas=tuple(data.get("areas", ())),
            message=data.get("message", ""), step=data.get("step"), action=data.get("action"),
            seconds=float(data.get("seconds", 0.0)), path=data.get("path"), known_failure=data.get("known_failure"),
            details=tuple(data.get("details", ())), tier=data.get("tier"),
            tier_reasons=tuple(TierReason.from_json(r) for r in data.get("tier_reasons", ())),
            tier_override=data.get("tier_override"),
            citations=tuple(Citation.from_json(c) for c in data.get("citations", ())),
        )


def counts_by_area(entries: Iterable[ReportEntry]) -> tuple[dict[str, Counter[str]], Counter[str]]:
    """(area -> status counts, total status counts): a scenario counts once in the total and once
    in each area it touches."""
    by_area: dict[str, Counter[str]] = defaultdict(Counter)
    totals: Counter[str] = Counter()
    for entry in entries:
        totals[entry.status] += 1
        for area in entry.areas or (FILE_AREA,):
            by_area[area][entry.status] += 1
    return dict(sorted(by_area.items())), totals


def counts_by_tier(entries: Iterable[ReportEntry]) -> dict[str, Counter[str]]:
    """tier -> status counts (both tiers always present; entries without a tier are left out)."""
    by_tier: dict[str, Counter[str]] = {tier: Counter() for tier in TIERS}
    for entry in entries:
        if entry.tier in by_tier:
            by_tier[entry.tier][entry.status] += 1
    return by_tier


def citation_counts(entries: Iterable[ReportEntry]) -> Counter[str]:
    """How many judged citations were a broader rule ("broader") or another rule ("differs")."""
    return Counter(c.agreement for entry in entries for c in entry.citations)


def shown_statuses(totals: Mapping[str, int]) -> tuple[str, ...]:
    """The main columns always; xfail and xpass only when a run has them."""
    return tuple(s for s in STATUSES if s in MAIN_STATUSES or totals.get(s))


def build_report(header: Mapping[str, Any], entries: Sequence[ReportEntry]) -> dict[str, Any]:
    by_area, totals = counts_by_area(entries)
    citations = citation_counts(entries)
    return {
        "format": REPORT_FORMAT,
        "header": dict(header),
        "summary": {
            "total": len(entries), **{s: totals.get(s, 0) for s in STATUSES},
            "by_area": {area: {s: counts.get(s, 0) for s in STATUSES} for area, counts in by_area.items()},
            "by_tier": {tier: {s: counts.get(s, 0) for s in STATUSES} for tier, counts in counts_by_tier(entries).items()},
            "citations": {"broader": citations.get("broader", 0), "differs": citations.get("differs", 0)},
        },
        "results": [e.to_json() for e in sorted(entries, key=lambda e: e.id)],
    }


def write_json_report(path: Path, header: Mapping[str, Any], entries: Sequence[ReportEntry]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(build_report(header, entries), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def failing_rules(entries: Iterable[ReportEntry]) -> dict[str, dict[str, list[str]]]:
    """area -> rule ID -> the failing scenarios that name it (failed, error or xpass)."""
    out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for entry in sorted(entries, key=lambda e: e.id):
        if entry.status not in FAILURES:
            continue
        for rule in entry.rules or (entry.id,):
            area = rule.split(".")[0] if entry.rules else FILE_AREA
            out[area][rule].append(entry.id)
    return {area: dict(sorted(rules.items())) for area, rules in sorted(out.items())}


def render_matrix(header: Mapping[str, Any], entries: Sequence[ReportEntry]) -> str:
    """The conformance matrix in Markdown: rule areas x statuses, then the failing rules per area."""
    by_area, totals = counts_by_area(entries)
    columns = shown_statuses(totals)
    engine = header.get("engine") or {}
    spec = header.get("spec") or {}
    title = f"{engine.get('name', 'unknown engine')} {engine.get('version', '')}".strip()
    lines = [
        f"# Canasta conformance: {title}",
        "",
        f"Spec {spec.get('version', '?')}; run started {header.get('started', '?')}; "
        f"{len(entries)} scenarios: " + ", ".join(f"{totals.get(s, 0)} {s}" for s in columns) + ".",
        "",
        "| Rule area | " + " | ".join(columns) + " | conformance |",
        "| --- | " + " | ".join("---:" for _ in columns) + " | ---: |",
    ]
    for area, counts in by_area.items():
        lines.append(f"| {area} | " + " | ".join(str(counts.get(s, 0)) for s in columns) + f" | {_rate(counts)} |")
    lines.append("| **all scenarios** | " + " | ".join(f"**{totals.get(s, 0)}**" for s in columns) + f" | **{_rate(totals)}** |")
    lines += ["", "A scenario counts once in the total and once in each rule area it touches. "
              "Conformance: passed / (passed + failed + error + xpass); unsupported, rule-differs and known failures are left out.", ""]
    lines += _tier_table(entries, columns)
    lines += _citation_section(entries)
    failing = failing_rules(entries)
    lines.append("## Failing rules")
    lines.append("")
    if not failing:
        lines.append("None: every scenario the engine supports passes.")
    for area, rules in failing.items():
        lines += [f"### {area}", ""]
        lines += [f"- `{rule}`: " + ", ".join(f"`{sid}`" for sid in ids) for rule, ids in rules.items()]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def write_matrix(path: Path, header: Mapping[str, Any], entries: Sequence[ReportEntry]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_matrix(header, entries), encoding="utf-8")


def _tier_table(entries: Sequence[ReportEntry], columns: Sequence[str]) -> list[str]:
    """Core and readings side by side: a failure in a reading is the engine reading a rule
    differently from this spec where the sources do not settle it."""
    lines = [
        "## Core and readings", "",
        "| Tier | " + " | ".join(columns) + " | conformance |",
        "| --- | " + " | ".join("---:" for _ in columns) + " | ---: |",
    ]
    for tier, counts in counts_by_tier(entries).items():
        lines.append(f"| {tier} | " + " | ".join(str(counts.get(s, 0)) for s in columns) + f" | {_rate(counts)} |")
    lines += [
        "", "core: every expectation rests on rules the sources state (confidence A or B); reading: a step rests "
        "on a rule the sources do not settle (confidence C, a design note of the spec, or a conflict reading no "
        "source states).", "",
    ]
    readings = sorted((e for e in entries if e.tier == "reading" and e.status in FAILURES), key=lambda e: e.id)
    if readings:
        lines += ["### Readings the engine does not share", ""]
        for entry in readings:
            rules = ", ".join(f"`{r.rule}` ({r.why})" for r in entry.tier_reasons) or "(tier set by the scenario)"
            lines.append(f"- `{entry.id}`: reads {rules} differently")
        lines.append("")
    return lines


def _citation_section(entries: Sequence[ReportEntry]) -> list[str]:
    differs = sorted((e for e in entries if any(c.agreement == "differs" for c in e.citations)), key=lambda e: e.id)
    broader = citation_counts(entries).get("broader", 0)
    lines = ["## Rule citations", ""]
    if not any(e.citations for e in entries):
        lines += ["Every judged citation names the scenario's rule (or the engine does not declare cites_rules).", ""]
        return lines
    lines += [f"{len(differs)} scenarios cite a rule the scenario does not expect; {broader} citations name a broader rule (they agree).", ""]
    for entry in differs:
        notes = "; ".join(
            f"step {c.step + 1}: cited `{c.cited}`, expects " + " or ".join(f"`{r}`" for r in c.expected)
            for c in entry.citations if c.agreement == "differs"
        )
        lines.append(f"- `{entry.id}` ({entry.status}): {notes}")
    lines.append("")
    return lines


def _rate(counts: Mapping[str, int]) -> str:
    judged = sum(counts.get(s, 0) for s in ("passed", "failed", "error", "xpass"))
    return f"{100 * counts.get('passed', 0) / judged:.0f}%" if judged else "-"
