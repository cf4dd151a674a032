"""Results of a run as data: one entry per scenario, counts by rule area, the JSON report and the
Markdown conformance matrix. Nothing here knows pytest; :mod:`.collector` builds the entries.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPORT_FORMAT = "canasta-report/1"
#: every status of a report entry; xfail: a known failure that failed, xpass: one that passed
STATUSES: tuple[str, ...] = ("passed", "failed", "error", "unsupported", "xfail", "xpass")
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
    seconds: float = 0.0
    path: str | None = None
    known_failure: str | None = None
    details: tuple[str, ...] = field(default=())

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
        }


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


def shown_statuses(totals: Mapping[str, int]) -> tuple[str, ...]:
    """The four main columns always; xfail and xpass only when a run has them."""
    return tuple(s for s in STATUSES if s in STATUSES[:4] or totals.get(s))


def build_report(header: Mapping[str, Any], entries: Sequence[ReportEntry]) -> dict[str, Any]:
    by_area, totals = counts_by_area(entries)
    return {
        "format": REPORT_FORMAT,
        "header": dict(header),
        "summary": {
            "total": len(entries), **{s: totals.get(s, 0) for s in STATUSES},
            "by_area": {area: {s: counts.get(s, 0) for s in STATUSES} for area, counts in by_area.items()},
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
              "Conformance: passed / (passed + failed + error + xpass); unsupported and known failures are left out.", ""]
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


def _rate(counts: Mapping[str, int]) -> str:
    judged = sum(counts.get(s, 0) for s in ("passed", "failed", "error", "xpass"))
    return f"{100 * counts.get('passed', 0) / judged:.0f}%" if judged else "-"
