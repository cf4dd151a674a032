"""The Markdown of every generated page of the rules site, from the spec and the scenarios.

``build_site()`` loads the data with the project's loaders, runs the corpus on the reference
engine (for the conformance report and the positions after each step) and returns a
:class:`Site`: a mapping of docs paths to Markdown, the navigation of the generated sections and
the problems found on the way. Nothing here knows about MkDocs.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from canasta_conformance.data import scenarios_dir, schema_dir
from canasta_conformance.engine import DEFAULT_ENGINE, EngineFactory, resolve_factory
from canasta_conformance.model import format_action
from canasta_conformance.scenario import Scenario, Step, load_scenarios, scenario_files
from canasta_conformance.spec import Conflict, Parameter, Rule, Spec, VariantError, load_spec
from .board import Table
from .links import table_cell as _cell
from .links import (
    CONFLICTS, PARAMETERS, REPORT, RULES_INDEX, SCENARIOS_INDEX, SCHEMAS_INDEX, SOURCES, VARIANTS,
    Linker, href, parameter_anchor, rel, rule_page, scenario_area_page, scenario_page,
)
from .runs import Report, Trace, run_report
from .schemadoc import SchemaFile, SchemaWriter, schema_files

Nav = list[tuple[str, str]]
_SLOT = re.compile(r"<!--cc:(\d+)-->")
_HTML_NAME = re.compile(r"(?<![\w.`/#\[-])([a-z][a-z0-9_]*(?:\.[a-z0-9_]+(?:-[a-z0-9_]+)*)+|C\d{2})(?![\w`/-]|\.[a-z0-9])")


@dataclass
class Site:
    """The generated part of the site."""

    spec: Spec
    scenarios: list[Scenario]
    pages: dict[str, str] = field(default_factory=dict)
    #: section index page -> the pages under it, in order: (title, path)
    sections: dict[str, Nav] = field(default_factory=dict)
    #: generated pages reachable by links but left out of the navigation (one page per scenario)
    not_in_nav: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    report: Report | None = None
    linker: Linker | None = None
    #: drawn HTML kept out of the Markdown: pages hold a placeholder that :meth:`fill` replaces
    stash: list[str] = field(default_factory=list)

    def slot(self, html: str) -> str:
        """A placeholder for ``html`` (an HTML comment that Markdown passes through untouched).

        Cards are filled in after Markdown and after the search index has read the page, which
        keeps the build fast and the suit symbols out of the search index."""
        self.stash.append(html)
        return f"<!--cc:{len(self.stash) - 1}-->"

    def fill(self, html: str) -> str:
        """Replace every placeholder in a rendered page by its drawn HTML."""
        return _SLOT.sub(lambda m: self.stash[int(m.group(1))], html)

    def counts_text(self) -> str:
        s = self.spec
        return (f"{len(s.rules)} rules in {len(s.areas)} areas, {len(self.scenarios)} scenarios, "
                f"{len(s.parameters)} parameters, {len(s.variants)} variants, {len(s.conflicts)} conflicts "
                f"between the sources and {len(s.sources)} sources")


def default_engine() -> EngineFactory:
    """The reference engine, found by name like any other engine."""
    return resolve_factory(DEFAULT_ENGINE)


def build_site(
    spec: Spec | None = None,
    scenarios_root: Path | None = None,
    schemas: Path | None = None,
    engine: EngineFactory | None = None,
    engine_label: str = DEFAULT_ENGINE,
    directory_urls: bool = True,
) -> Site:
    spec = spec or load_spec()
    files = scenario_files(scenarios_root or scenarios_dir())
    scenarios, problems = load_scenarios(files, spec)
    scenarios.sort(key=lambda s: (_area_order(spec, s.area), s.id))
    site = Site(spec, scenarios, problems=[str(p) for p in problems])
    site.linker = Linker({r.id: r.area for r in spec.rules.values()})
    factory = engine or default_engine()
    site.report = run_report(scenarios, factory, engine_label)
    Writer(site, site.report.traces, schema_files(schemas or schema_dir()), directory_urls).write()
    return site


def _area_order(spec: Spec, area: str) -> int:
    order = list(spec.areas)
    return order.index(area) if area in order else len(order)


# --------------------------------------------------------------------------------------------
# Formatting helpers

def value_text(value: Any) -> str:
    """A parameter value, short: ``1``, ``true``, ``JK, 2``, ``below 0: 15; 0: 50``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, Mapping) and "minimum" in v for v in value):
            return "; ".join(("below " + str(_next_from(value, i)) if row.get("from") is None else f"{row['from']}+") + f": {row['minimum']}"
                             for i, row in enumerate(value))
        if not value:
            return "none"
        return ", ".join(value_text(v) for v in value)
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {value_text(v)}" for k, v in value.items())
    return str(value)


def _next_from(rows: Sequence[Mapping[str, Any]], index: int) -> Any:
    for row in rows[index + 1:]:
        if row.get("from") is not None:
            return row["from"]
    return "any"


def _md(text: str | None) -> str:
    """Spec prose as Markdown: one paragraph, angle brackets escaped."""
    return " ".join(str(text or "").split()).replace("<", "&lt;")


def _front(title: str, extra: Mapping[str, Any] | None = None) -> list[str]:
    lines = ["---", f"title: {json.dumps(title, ensure_ascii=False)}"]
    for key, value in (extra or {}).items():
        lines.append(f"{key}: {json.dumps(value)}")
    return [*lines, "---", ""]


def badge(expect_outcome: str, text: str | None = None) -> str:
    kind, default = {"accepted": ("cc-ok", "legal"), "rejected": ("cc-no", "illegal"),
                     "malformed": ("cc-bad", "malformed"), "check": ("cc-check", "check")}[expect_outcome]
    return f'<span class="cc-badge {kind}">{escape(text or default)}</span>'


_CONFLICT_ID = re.compile(r"\bC\d{2}\b")
_PARAM_OR_RULE = re.compile(r"(?<![\w.`/#\[-])([a-z][a-z0-9_]*(?:\.[a-z0-9_]+(?:-[a-z0-9_]+)*)+)(?![\w`/-]|\]\(|\.[a-z0-9])")
_PROTECTED = re.compile(r"(`+)(?:.+?)\1|\[[^\]]*\]\([^)]*\)|<[^>]+>")


# --------------------------------------------------------------------------------------------

class Writer:
    def __init__(self, site: Site, traces: Mapping[str, Trace], schemas: list[SchemaFile], directory_urls: bool = True) -> None:
        self.site = site
        self.directory_urls = directory_urls
        self.spec = site.spec
        self.linker = site.linker or Linker({})
        self.traces = traces
        self.schemas = SchemaWriter(schemas)
        self.scenarios_by_rule: dict[str, list[Scenario]] = defaultdict(list)
        for scenario in site.scenarios:
            for rule_id in scenario.rules:
                self.scenarios_by_rule[rule_id].append(scenario)
        self.scenarios_by_area: dict[str, list[Scenario]] = defaultdict(list)
        for scenario in site.scenarios:
            self.scenarios_by_area[scenario.area].append(scenario)
        self.conflicts_by_rule: dict[str, list[Conflict]] = defaultdict(list)
        for conflict in self.spec.conflicts.values():
            for rule_id in conflict.rules:
                self.conflicts_by_rule[rule_id].append(conflict)
        self.rules_by_parameter: dict[str, list[Rule]] = defaultdict(list)
        for rule in self.spec.rules.values():
            for name in rule.parameters:
                self.rules_by_parameter[name].append(rule)
        self.variant_values: dict[str, dict[str, Any]] = {}
        for variant in self.spec.variants:
            try:
                self.variant_values[variant] = dict(self.spec.variant_parameters(variant))
            except VariantError as error:
                site.problems.append(f"variant {variant}: {error}")
        self.default = self.spec.default_variant
        self.tables: dict[tuple[str, str], Table] = {}

    # ---- shared pieces

    def add(self, path: str, lines: Iterable[str]) -> None:
        self.site.pages[path] = "\n".join(lines).rstrip() + "\n"

    def text(self, text: str | None, page: str, prefer_parameters: bool = False) -> str:
        """Spec prose with rule IDs, parameter names and conflict IDs linked (a name that is both a
        rule ID and a parameter links to the rule, or to the parameter if ``prefer_parameters``)."""
        text = _md(text)
        if prefer_parameters:
            text = self._protected(text, lambda part: _PARAM_OR_RULE.sub(
                lambda m: self.param_link(m.group(1), page) if m.group(1) in self.spec.parameters else m.group(0), part))
        text = self.linker.link_text(text, page)
        out: list[str] = []
        last = 0
        for protected in _PROTECTED.finditer(text):
            out.append(self._link_names(text[last:protected.start()], page))
            out.append(protected.group(0))
            last = protected.end()
        out.append(self._link_names(text[last:], page))
        return "".join(out)

    @staticmethod
    def _protected(text: str, function: Callable[[str], str]) -> str:
        out: list[str] = []
        last = 0
        for protected in _PROTECTED.finditer(text):
            out.append(function(text[last:protected.start()]))
            out.append(protected.group(0))
            last = protected.end()
        out.append(function(text[last:]))
        return "".join(out)

    def _link_names(self, text: str, page: str) -> str:
        def name(match: re.Match[str]) -> str:
            word = match.group(1)
            if word in self.spec.parameters:
                return f"[`{word}`]({rel(PARAMETERS + '#' + parameter_anchor(word), page)})"
            return word

        text = _PARAM_OR_RULE.sub(name, text)
        return _CONFLICT_ID.sub(lambda m: f"[{m.group(0)}]({rel(CONFLICTS + '#' + m.group(0), page)})" if m.group(0) in self.spec.conflicts else m.group(0), text)

    def param_link(self, name: str, page: str) -> str:
        if name not in self.spec.parameters:
            return f"`{name}`"
        return f"[`{name}`]({rel(PARAMETERS + '#' + parameter_anchor(name), page)})"

    def variant_link(self, variant: str, page: str) -> str:
        if variant not in self.spec.variants:
            return f"`{variant}`"
        return f"[{variant}]({rel(VARIANTS + '#variant-' + variant, page)})"

    def source_link(self, source: str, page: str) -> str:
        if source not in self.spec.sources:
            return escape(source)
        return f"[{source}]({rel(SOURCES + '#' + source, page)})"

    def scenario_link(self, scenario: Scenario, page: str, text: str | None = None) -> str:
        return f"[{text or scenario.id}]({rel(scenario_page(scenario.area, scenario.id), page)})"

    def table_for(self, scenario: Scenario) -> Table:
        key = (scenario.variant, json.dumps(scenario.options, sort_keys=True, default=str))
        if key not in self.tables:
            try:
                rules = self.spec.variant_rules(scenario.variant, scenario.options)
            except VariantError:
                rules = self.spec.variant_rules(self.default)
            self.tables[key] = Table(rules)
        return self.tables[key]

    def values_by_variant(self, name: str) -> list[tuple[str, list[str]]]:
        """Distinct values of a parameter, each with the variants that use it (default first)."""
        groups: dict[str, list[str]] = {}
        order = [self.default, *sorted(v for v in self.variant_values if v != self.default)]
        for variant in order:
            if variant in self.variant_values and name in self.variant_values[variant]:
                groups.setdefault(value_text(self.variant_values[variant][name]), []).append(variant)
        return list(groups.items())

    # ---- all pages

    def write(self) -> None:
        self.rules_index()
        for area in self.spec.areas.values():
            self.rules_area(area.id, area.title)
        self.parameters_page()
        self.variants_page()
        self.conflicts_page()
        self.sources_page()
        self.scenarios_pages()
        self.reference_pages()
        self.report_page()

    # ---- rules

    def rules_index(self) -> None:
        page = RULES_INDEX
        lines = [*_front("Rules"), "# The rules", "",
                 "Every rule point of the spec, by area. Each rule has a stable ID (its anchor on the area page), "
                 "a normative statement (MUST, MUST NOT, MAY), the sources that state it, the parameters it depends "
                 "on with their value in each variant, the conflicts between sources that touch it and the scenarios "
                 "that exercise it.", "",
                 "| area | rules | scenarios | testable rules without a scenario |", "| --- | --- | --- | --- |"]
        nav: Nav = []
        for area in self.spec.areas.values():
            rules = self.spec.rules_in(area.id)
            exercised = {s.id for r in rules for s in self.scenarios_by_rule.get(r.id, ())}
            missing = sum(1 for r in rules if r.testable and not self.scenarios_by_rule.get(r.id))
            lines.append(f"| [{area.title}]({rel(rule_page(area.id), page)}) `{area.id}` | {len(rules)} | {len(exercised)} | {missing} |")
            nav.append((area.title, rule_page(area.id)))
        kinds = Counter(r.kind or "unclassified" for r in self.spec.rules.values())
        lines += ["", "Rule kinds: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ". "
                  "Confidence A means the sources agree, B that one good source states it, C that it is inferred or contested.", ""]
        self.add(page, lines)
        self.site.sections[RULES_INDEX] = nav

    def rules_area(self, area: str, title: str) -> None:
        page = rule_page(area)
        rules = self.spec.rules_in(area)
        lines = [*_front(title), f"# {title}", "",
                 f"Area `{area}`: {len(rules)} rule{'s' if len(rules) != 1 else ''}. "
                 f"[All areas]({rel(RULES_INDEX, page)}) · [scenarios of this area]({rel(scenario_area_page(area), page)})"
                 if area in self.scenarios_by_area else
                 f"Area `{area}`: {len(rules)} rule{'s' if len(rules) != 1 else ''}. [All areas]({rel(RULES_INDEX, page)})", ""]
        for rule in rules:
            lines += self.rule_block(rule, page)
        self.add(page, lines)

    def rule_block(self, rule: Rule, page: str) -> list[str]:
        facts = []
        if rule.kind:
            facts.append(rule.kind)
        if rule.confidence:
            facts.append(f"confidence {rule.confidence}")
        facts.append("testable" if rule.testable else "not testable by a scenario")
        # The ID is part of the heading, so that a search for it ranks the rule first.
        title = _md(rule.title)
        lines = [f'## <span class="cc-rid">{rule.id}</span> {title} {{#{rule.id} data-toc-label="{escape(title)}"}}', "",
                 " · ".join(facts), "", self.text(rule.statement, page), ""]
        if rule.note:
            lines += ["!!! note", "", f"    {self.text(rule.note, page)}", ""]
        if rule.sources:
            lines += ["**Sources**", ""]
            for source in rule.sources:
                quote = f": “{_md(source['quote'])}”" if source.get("quote") else ""
                lines.append(f"- {self.source_link(source['source'], page)}{quote}")
            lines.append("")
        if rule.parameters:
            lines += ["**Parameters**", "", "| parameter | value | variants |", "| --- | --- | --- |"]
            for name in rule.parameters:
                groups = self.values_by_variant(name)
                for index, (value, variants) in enumerate(groups):
                    shown = f'<span class="cc-diff">{escape(value)}</span>' if index else escape(value)
                    lines.append(f"| {self.param_link(name, page) if index == 0 else ''} | {_cell(shown)} | "
                                 f"{', '.join(self.variant_link(v, page) for v in variants)} |")
            lines.append("")
        conflicts = self.conflicts_by_rule.get(rule.id, ())
        if conflicts:
            lines += ["**Conflicts between the sources**", ""]
            for conflict in conflicts:
                lines.append(f"- [{conflict.id}]({rel(CONFLICTS + '#' + conflict.id, page)}): {_md(conflict.title)}. Default: {_md(conflict.default)}")
            lines.append("")
        scenarios = self.scenarios_by_rule.get(rule.id, [])
        if scenarios:
            rows = "".join(
                f'<tr><td><a href="{self.url(scenario_page(s.area, s.id), page)}">{s.id}</a></td>'
                f"<td>{self.html_text(s.title, page)}</td><td>{self.key_step(s, rule.id)}</td></tr>"
                for s in scenarios)
            lines += [f"**Scenarios** ({len(scenarios)})", "",
                      self.site.slot(f'<table><thead><tr><th>scenario</th><th>what it shows</th>'
                                     f"<th>key step</th></tr></thead><tbody>{rows}</tbody></table>"), ""]
        elif rule.testable:
            lines += ["*No scenario exercises this rule yet.*", ""]
        return lines

    def key_step(self, scenario: Scenario, rule_id: str) -> str:
        steps = [s for s in scenario.steps if s.action is not None]
        chosen = next((s for s in steps if rule_id in s.expect.violates), steps[0] if steps else None)
        if chosen is None or chosen.action is None:
            return "checks the position"
        return f"{self.table_for(scenario).action(chosen.action)} {badge(chosen.expect.outcome)}"

    # ---- parameters and variants

    def parameters_page(self) -> None:
        page = PARAMETERS
        lines = [*_front("Parameters"), "# Parameters", "",
                 "Every number and every choice in the rules is a parameter. Its default is the Classic value; "
                 f"a [variant]({rel(VARIANTS, page)}) overrides some of them and a scenario may set others as "
                 "`options`. Values that differ from the default variant's are highlighted.", ""]
        for parameter in self.spec.parameters.values():
            lines += self.parameter_block(parameter, page)
        self.add(page, lines)

    def parameter_block(self, parameter: Parameter, page: str) -> list[str]:
        name = parameter.name
        schema = self.schemas.type_text(dict(parameter.schema), _PARAMETER_SCHEMA, page)
        lines = [f"## {name} {{#{parameter_anchor(name)}}}", "", self.text(parameter.description, page, prefer_parameters=True), "",
                 f"Allowed values: {schema}. Default: `{_md(value_text(parameter.default))}`."
                 + ("" if parameter.implemented else " *The reference engine plays only the default value so far.*"), ""]
        lines += ["| value | variants |", "| --- | --- |"]
        for index, (value, variants) in enumerate(self.values_by_variant(name)):
            shown = f'<span class="cc-diff">{escape(value)}</span>' if index else escape(value)
            lines.append(f"| {_cell(shown)} | {', '.join(self.variant_link(v, page) for v in variants)} |")
        lines.append("")
        rules = self.rules_by_parameter.get(name, [])
        if rules:
            lines += ["Rules: " + ", ".join(self.linker.rule_link(r.id, page) for r in rules), ""]
        conflicts = [c for c in self.spec.conflicts.values() if c.parameter == name]
        if conflicts:
            lines += ["Conflicts: " + ", ".join(f"[{c.id}]({rel(CONFLICTS + '#' + c.id, page)})" for c in conflicts), ""]
        using = [s for s in self.site.scenarios if name in s.options]
        if using:
            lines += [f"Scenarios that set it ({len(using)}): " + ", ".join(self.scenario_link(s, page) for s in using), ""]
        return lines

    def variants_page(self) -> None:
        page = VARIANTS
        variants = [self.default, *sorted(v for v in self.variant_values if v != self.default)]
        lines = [*_front("Variants", {"hide": ["navigation", "toc"]}), "# Variants", "",
                 "A variant is a named set of parameter values, not a separate rulebook. The table compares every "
                 f"variant with the default, **{self.default}**; a highlighted value differs from it. "
                 f"Each parameter name links to its description on the [parameters]({rel(PARAMETERS, page)}) page.", "",
                 "| variant | title | players |", "| --- | --- | --- |"]
        for variant in variants:
            title = self.spec.variants[variant].title
            lines.append(f"| [{variant}](#variant-{variant}) | {_cell(_md(title))} | {self.variant_values[variant].get('players', '')} |")
        lines.append("")
        differing = [p for p in self.spec.parameters if len({value_text(self.variant_values[v].get(p)) for v in variants}) > 1]
        same = [p for p in self.spec.parameters if p not in differing]
        lines += ["## Comparison {#comparison}", "",
                  f"{len(differing)} parameters differ between the variants; the other {len(same)} have the same value in all of them (below the table).", ""]
        header = "| parameter | " + " | ".join(f"[{v}](#variant-{v})" for v in variants) + " |"
        lines += ['<div class="cc-matrix" markdown>', "", header, "| --- | " + " | ".join("---" for _ in variants) + " |"]
        for name in differing:
            base = value_text(self.variant_values[self.default].get(name))
            cells = []
            for variant in variants:
                value = value_text(self.variant_values[variant].get(name))
                cells.append(_cell(f'<span class="cc-diff" title="differs from {self.default}">{escape(value)}</span>' if value != base else escape(value)))
            lines.append(f"| {self.param_link(name, page)} | " + " | ".join(cells) + " |")
        lines += ["", "</div>", "", f'??? info "The {len(same)} parameters every variant leaves at the same value"', "",
                  "    | parameter | value |", "    | --- | --- |"]
        for name in same:
            lines.append(f"    | {self.param_link(name, page)} | {_cell(escape(value_text(self.variant_values[self.default].get(name))))} |")
        lines += ["", "## The variants", ""]
        for variant_id in variants:
            info = self.spec.variants[variant_id]
            lines += [f"### {_md(info.title)} {{#variant-{variant_id}}}", "", f"`{variant_id}`" + (f" · based on {self.variant_link(info.base, page)}" if info.base else ""), "",
                      self.text(info.description, page, prefer_parameters=True), ""]
            if info.sources:
                lines += ["Sources: " + ", ".join(self.source_link(s, page) for s in info.sources), ""]
            if info.overrides:
                lines += ["| parameter | value | default |", "| --- | --- | --- |"]
                for name, value in info.overrides.items():
                    lines.append(f"| {self.param_link(name, page)} | {_cell(escape(value_text(value)))} | "
                                 f"{_cell(escape(value_text(self.spec.parameters[name].default))) if name in self.spec.parameters else ''} |")
                lines.append("")
            for note in info.notes:
                lines += [f"- {self.text(note, page, prefer_parameters=True)}"]
            if info.notes:
                lines.append("")
            if info.open_questions:
                lines += ['??? question "Open questions"', ""]
                for question in info.open_questions:
                    lines.append(f"    - {self.text(question, page, prefer_parameters=True)}")
                lines.append("")
            count = sum(1 for s in self.site.scenarios if s.variant == variant_id)
            if count:
                lines += [f"{count} scenario{'s' if count != 1 else ''} play this info.", ""]
        self.add(page, lines)

    # ---- conflicts and sources

    def conflicts_page(self) -> None:
        page = CONFLICTS
        lines = [*_front("Conflicts"), "# Conflicts between the sources", "",
                 "Where the sources disagree, the spec records every reading, picks a Classic default and, where the "
                 "difference is a choice, names the alternatives as values of a parameter.", ""]
        for conflict in self.spec.conflicts.values():
            lines += [f"## {conflict.id}: {_md(conflict.title)} {{#{conflict.id}}}", "",
                      "Rules: " + self.linker.rule_links(conflict.rules, page)
                      + (f" · parameter {self.param_link(conflict.parameter, page)}" if conflict.parameter else ""), "",
                      "| reading | sources | value |", "| --- | --- | --- |"]
            for reading in conflict.readings:
                value = f"`{value_text(reading['value'])}`" if "value" in reading else ""
                lines.append(f"| {_cell(self.text(reading.get('summary', ''), page))} | "
                             f"{', '.join(self.source_link(s, page) for s in reading.get('sources', ()))} | {_cell(value)} |")
            lines += ["", f"**Default:** {self.text(conflict.default, page)}", "", f"**Why:** {self.text(conflict.rationale, page)}", ""]
        self.add(page, lines)

    def sources_page(self) -> None:
        page = SOURCES
        cited_rules: dict[str, list[str]] = defaultdict(list)
        for rule in self.spec.rules.values():
            for source in dict.fromkeys(s["source"] for s in rule.sources):
                cited_rules[source].append(rule.id)
        cited_variants: dict[str, list[str]] = defaultdict(list)
        for variant in self.spec.variants.values():
            for source in variant.sources:
                cited_variants[source].append(variant.id)
        cited_conflicts: dict[str, list[str]] = defaultdict(list)
        for conflict in self.spec.conflicts.values():
            for reading in conflict.readings:
                for source in reading.get("sources", ()):
                    if conflict.id not in cited_conflicts[source]:
                        cited_conflicts[source].append(conflict.id)
        kinds = sorted({s.kind for s in self.spec.sources.values()}, key=lambda k: (k == "secondary", k))
        lines = [*_front("Sources"), "# Sources", "",
                 "Every source the rules, variants and conflicts cite, with what cites it. Primary sources are the "
                 "documents whose full text the project started from.", ""]
        for kind in kinds:
            lines += [f"## {kind.replace('-', ' ').capitalize()}{'s' if not kind.endswith('s') else ''}", ""]
            for src in (s for s in self.spec.sources.values() if s.kind == kind):
                lines += [f"### {src.id} {{#{src.id}}}", "", f"**{_md(src.title)}**", ""]
                details = []
                if src.primary:
                    details.append("primary source (full text held)")
                if src.url:
                    details.append(f"<{src.url}>")
                if details:
                    lines += [" · ".join(details), ""]
                if src.note:
                    lines += [self.text(src.note, page), ""]
                if cited_rules.get(src.id):
                    lines += [f"Cited by {len(cited_rules[src.id])} rule{'s' if len(cited_rules[src.id]) != 1 else ''}: "
                              + self.linker.rule_links(cited_rules[src.id], page), ""]
                if cited_variants.get(src.id):
                    lines += ["Variants: " + ", ".join(self.variant_link(v, page) for v in cited_variants[src.id]), ""]
                if cited_conflicts.get(src.id):
                    lines += ["Conflicts: " + ", ".join(f"[{c}]({rel(CONFLICTS + '#' + c, page)})" for c in cited_conflicts[src.id]), ""]
        self.add(page, lines)

    # ---- scenarios

    def scenarios_pages(self) -> None:
        page = SCENARIOS_INDEX
        lines = [*_front("Scenarios"), "# Scenarios", "",
                 f"{len(self.site.scenarios)} scenarios, each a position, a few actions and what must happen. Every "
                 "page draws the position with cards: hands per seat, melds per side, red threes, the discard pile "
                 "(cards that freeze it lie crosswise) and the stock.", "",
                 "| area | scenarios | rules exercised |", "| --- | --- | --- |"]
        nav: Nav = []
        areas = [a for a in self.spec.areas if a in self.scenarios_by_area] + sorted(a for a in self.scenarios_by_area if a not in self.spec.areas)
        for area in areas:
            scenarios = self.scenarios_by_area[area]
            title = self.spec.areas[area].title if area in self.spec.areas else area.capitalize()
            rules = {r for s in scenarios for r in s.rules}
            lines.append(f"| [{title}]({rel(scenario_area_page(area), page)}) `{area}` | {len(scenarios)} | {len(rules)} |")
            nav.append((title, scenario_area_page(area)))
            self.scenario_area(area, title, scenarios)
            for index, scenario in enumerate(scenarios):
                previous = scenarios[index - 1] if index else None
                following = scenarios[index + 1] if index + 1 < len(scenarios) else None
                self.scenario_page(scenario, previous, following)
        empty = [a for a in self.spec.areas if a not in self.scenarios_by_area]
        if empty:
            lines += ["", "No scenarios yet in: " + ", ".join(f"[{self.spec.areas[a].title}]({rel(rule_page(a), page)})" for a in empty) + "."]
        self.add(page, lines)
        self.site.sections[SCENARIOS_INDEX] = nav

    def scenario_area(self, area: str, title: str, scenarios: list[Scenario]) -> None:
        page = scenario_area_page(area)
        lines = [*_front(f"Scenarios: {title}"), f"# Scenarios: {title}", "",
                 f"{len(scenarios)} scenarios in `scenarios/{area}/`."
                 + (f" The rules of this area: [{title}]({rel(rule_page(area), page)})." if area in self.spec.areas else ""), "",
                 "| scenario | what it shows | rules | variant |", "| --- | --- | --- | --- |"]
        for scenario in scenarios:
            variant = self.variant_link(scenario.variant, page) + (" + options" if scenario.options else "")
            lines.append(f"| {self.scenario_link(scenario, page)} | {_cell(_md(scenario.title))} | "
                         f"{self.linker.rule_links(scenario.rules, page)} | {variant} |")
        self.add(page, lines)

    def scenario_page(self, scenario: Scenario, previous: Scenario | None, following: Scenario | None) -> None:
        page = scenario_page(scenario.area, scenario.id)
        self.site.not_in_nav.add(page)
        table = self.table_for(scenario)
        traced = self.traces.get(scenario.id)
        result = self.site.report.results.get(scenario.id) if self.site.report else None
        meta = [f"[{scenario.area}]({rel(scenario_area_page(scenario.area), page)})",
                "variant " + self.variant_link(scenario.variant, page)]
        if scenario.source:
            meta.append("source " + self.source_link(scenario.source, page))
        if scenario.requires:
            meta.append("requires " + ", ".join(f"`{r}`" for r in scenario.requires))
        # The ID is part of the heading, so that a search for it ranks the scenario first.
        lines = [*_front(scenario.id), f'# <span class="cc-rid">{scenario.id}</span> {_md(scenario.title)}', "",
                 "Scenario of area " + " · ".join(meta), ""]
        lines += ["**Rules exercised**", ""]
        for rule_id in scenario.rules:
            rule = self.spec.rules.get(rule_id)
            lines.append(f"- {self.linker.rule_link(rule_id, page)}" + (f": {_md(rule.title)}" if rule else ""))
        lines.append("")
        if scenario.options:
            lines += ["**Options** (on top of the variant)", ""]
            for key, value in scenario.options.items():
                lines.append(f"- {self.param_link(key, page)} = `{_md(value_text(value))}`")
            lines.append("")
        if scenario.notes:
            lines += ["!!! note", "", f"    {self.text(scenario.notes, page)}", ""]
        lines += ["## The position", ""]
        if scenario.position is not None:
            lines += [self.site.slot(table.position(scenario.position, caption="Starting position")), ""]
        elif scenario.deal is not None:
            deal = scenario.deal
            lines += [f"The hand is dealt by seat {deal.dealer} from a deck of {len(deal.deck)} cards (top first)"
                      + (f", with scores {', '.join(map(str, deal.scores))} before the hand" if deal.scores else "")
                      + (f"; seat {deal.first_player} plays first" if getattr(deal, "first_player", None) is not None else "") + ":", "",
                      self.site.slot(f'<div class="cc-table">{table.stock(deal.deck, what="Deck")}</div>'), ""]
            if traced and traced.start is not None:
                lines += ["After the deal, as the reference engine deals it:", "",
                          self.site.slot(table.position(traced.start, caption="Position after the deal")), ""]
        lines += ["## Steps", "", self.site.slot("".join(self.step_block(scenario, step, table, traced, page) for step in scenario.steps)), ""]
        status = result.status if result else "not run"
        lines += ["## On the reference engine", "",
                  f"This scenario **{status}** on the reference engine"
                  + (f": {_md(result.report())}" if result and result.status not in ("passed",) and result.message else ".")
                  + f" See the [conformance report]({rel(REPORT, page)}).", ""]
        lines += self.source_file(scenario)
        links = []
        if previous:
            links.append(f"← {self.scenario_link(previous, page)}")
        links.append(f"[all {scenario.area} scenarios]({rel(scenario_area_page(scenario.area), page)})")
        if following:
            links.append(f"{self.scenario_link(following, page)} →")
        lines += ["", " · ".join(links), ""]
        self.add(page, lines)

    def step_block(self, scenario: Scenario, step: Step, table: Table, traced: Trace | None, page: str) -> str:
        """One step as HTML: the action drawn, the verdict and everything the step expects."""
        before = traced.before(step.index) if traced else None
        expect = step.expect
        number = step.index + 1
        anchor = f"step-{number}"
        out: list[str] = []
        if step.action is None:
            title = f"Step {number}: check"
        else:
            title = f"Step {number}: {escape(format_action(step.action).split(' ')[0])}"
        out.append(f'<h3 id="{anchor}">{title}<a class="headerlink" href="#{anchor}" title="Permanent link">&para;</a></h3>')
        if step.action is not None:
            kind = step.action.type
            who = ("The partner" if kind == "answer" else "The dealer" if kind == "next_hand"
                   else f"Seat {before.turn}" if before is not None else "The player")
            out.append(f"<p>{who} {table.action(step.action, before=before)}</p>")
            if expect.outcome == "accepted":
                verdict = f"{badge('accepted')} The action is accepted."
            elif expect.outcome == "rejected":
                verdict = (f"{badge('rejected')} The action is rejected, citing "
                           + " or ".join(self.rule_a(r, page) for r in expect.violates) + "; the position does not change.")
            else:
                verdict = f"{badge('malformed')} The action is malformed: it is not an action of this position."
            out.append(f"<p>{verdict}</p>")
        if step.note:
            out.append(f"<p><em>{self.html_text(step.note, page)}</em></p>")
        if expect.position is not None:
            out.append("<p>Expected afterwards (only what is shown is compared):</p>")
            out.append(table.expected(expect.position))
        if expect.hand_over is not None:
            out.append("<p>The hand is <strong>over</strong>.</p>" if expect.hand_over else "<p>The hand is <strong>not over</strong>.</p>")
        if expect.score is not None:
            keys = [k for k in ("canastas", "red_threes", "going_out", "melded", "in_hand", "total", "cumulative") if any(k in s for s in expect.score)]
            head = "".join(f'<th style="text-align:right">{k.replace("_", " ")}</th>' for k in keys)
            rows = "".join(f"<tr><td>{side}</td>" + "".join(f'<td style="text-align:right">{row.get(k, "")}</td>' for k in keys) + "</tr>"
                           for side, row in enumerate(expect.score))
            out.append(f"<p>Expected score sheet:</p><table><thead><tr><th>side</th>{head}</tr></thead><tbody>{rows}</tbody></table>")
        if expect.game:
            parts = []
            if "over" in expect.game:
                parts.append("the game is <strong>over</strong>" if expect.game["over"] else "the game goes on")
            if expect.game.get("winner") is not None:
                parts.append(f"side {expect.game['winner']} wins")
            out.append("<p>Then " + ", ".join(parts) + ".</p>")
        if expect.legal_includes or expect.legal_excludes:
            items = [f"<li>{badge('accepted', 'listed')} {table.action(a)}</li>" for a in expect.legal_includes]
            items += [f"<li>{badge('rejected', 'not listed')} {table.action(a)}</li>" for a in expect.legal_excludes]
            out.append(f"<p>Legal actions listed by the engine:</p><ul>{''.join(items)}</ul>")
        after = traced.after[step.index] if traced and step.index < len(traced.after) else None
        if after is not None and step.action is not None and expect.outcome == "accepted":
            out.append(f'<details class="abstract"><summary>The whole position after step {number}, as the reference engine plays it</summary>'
                       f'{table.position(after, caption=f"After step {number}")}</details>')
        return "".join(out)

    # ---- HTML pieces (for drawn parts, where MkDocs does not rewrite links)

    def url(self, target: str, page: str) -> str:
        return href(target, page, self.directory_urls)

    def rule_a(self, rule_id: str, page: str) -> str:
        if rule_id not in self.spec.rules:
            return f"<code>{escape(rule_id)}</code>"
        return f'<a href="{self.url(self.linker.rule_target(rule_id), page)}"><code>{rule_id}</code></a>'

    def html_text(self, text: str, page: str) -> str:
        """A sentence of the spec or a scenario as HTML, with rule IDs and parameter names linked."""
        out = []
        for index, part in enumerate(" ".join(str(text).split()).split("`")):
            if index % 2:
                out.append(self._html_name(part, page, code=True))
            else:
                out.append(_HTML_NAME.sub(lambda m: self._html_name(m.group(1), page), escape(part, quote=False)))
        return "".join(out)

    def _html_name(self, word: str, page: str, code: bool = False) -> str:
        if word in self.spec.rules:
            return self.rule_a(word, page)
        if word in self.spec.parameters and ("." in word or code):
            return f'<a href="{self.url(PARAMETERS + "#" + parameter_anchor(word), page)}"><code>{word}</code></a>'
        if word in self.spec.conflicts:
            return f'<a href="{self.url(CONFLICTS + "#" + word, page)}">{word}</a>'
        return f"<code>{escape(word)}</code>" if code else word

    def source_file(self, scenario: Scenario) -> list[str]:
        try:
            text = scenario.path.read_text(encoding="utf-8")
        except OSError:
            return []
        html = (f'<details class="example"><summary>The scenario file <code>scenarios/{escape(scenario.area)}/{escape(scenario.path.name)}</code></summary>'
                f'<pre><code class="language-yaml">{escape(text.rstrip())}</code></pre></details>')
        return [self.site.slot(html), ""]

    # ---- reference

    def reference_pages(self) -> None:
        page = SCHEMAS_INDEX
        nav: Nav = []
        intro = "\n".join([*_front("Reference"), "# Reference", "",
                           "The file formats and messages, generated from the JSON Schemas in `spec/schema/`, and the "
                           f"[conformance report]({rel(REPORT, page)}) of the reference engine."])
        self.add(page, [self.schemas.index(page, intro)])
        for schema_file in self.schemas.files:
            self.add(schema_file.page, [self.schemas.page(schema_file)])
            nav.append((schema_file.path.name, schema_file.page))
        nav.append(("Conformance report", REPORT))
        self.site.sections[SCHEMAS_INDEX] = nav

    def report_page(self) -> None:
        page = REPORT
        report = self.site.report
        lines = [*_front("Conformance report"), "# Conformance report of the reference engine", ""]
        if report is None:
            self.add(page, [*lines, "The corpus was not run."])
            return
        caps = report.capabilities
        engine = f"{caps.name} {caps.version}" if caps else report.engine
        totals = report.totals
        lines += [f"Generated when the site was built: every scenario of the corpus run on **{escape(engine)}** "
                  f"(`{report.engine}`) with `canasta_conformance.runner`, spec {self.spec.version}. "
                  f"Run it yourself with `canasta run`.", "",
                  "**" + ", ".join(f"{totals.get(s, 0)} {s}" for s in ("passed", "failed", "error", "unsupported")) + f"** of {len(report.results)} scenarios.", "",
                  "| area | passed | failed | error | unsupported | total |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for area, counts in report.counts_by_area(self.site.scenarios).items():
            title = self.spec.areas[area].title if area in self.spec.areas else area.capitalize()
            lines.append(f"| [{title}]({rel(scenario_area_page(area), page)}) | {counts.get('passed', 0)} | {counts.get('failed', 0)} | "
                         f"{counts.get('error', 0)} | {counts.get('unsupported', 0)} | {sum(counts.values())} |")
        lines.append("")
        bad = [r for r in report.results.values() if not r.ok]
        if bad:
            lines += ["## Failures", ""]
            by_id = {s.id: s for s in self.site.scenarios}
            for result in bad:
                scenario = by_id[result.scenario]
                lines += [f"- {self.scenario_link(scenario, page)} ({result.status})", "", "    ```text",
                          *(f"    {line}" for line in result.report().splitlines()), "    ```", ""]
        unsupported = [r for r in report.results.values() if r.status == "unsupported"]
        if unsupported:
            lines += ["## Unsupported", ""] + [f"- {r.scenario}: {_md(r.message)}" for r in unsupported] + [""]
        uncovered = [r for r in self.spec.rules.values() if r.testable and not self.scenarios_by_rule.get(r.id)]
        lines += ["## Coverage of the rules", "",
                  f"{len(self.spec.rules) - len(uncovered)} of {len(self.spec.rules)} rules are exercised by at least one scenario. "
                  f"Testable rules that no scenario exercises yet ({len(uncovered)}):", ""]
        lines += [", ".join(self.linker.rule_link(r.id, page) for r in uncovered) or "none.", ""]
        self.add(page, lines)


#: stands in for a schema file when describing a parameter's inline schema (it has no $ref)
_PARAMETER_SCHEMA = SchemaFile("parameters", Path("parameters.schema.json"), "schema/parameters.schema.json", {})
