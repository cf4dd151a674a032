"""Every generated page of the rules site, rendered from the Jinja2 templates in ``templates/``.

:func:`build_site` loads the data with the project's loaders, runs the corpus once on the
reference engine (for the conformance report and the positions after each step) and returns a
:class:`Site`: a mapping of docs paths to Markdown, the navigation of the generated sections and
the problems found on the way. :class:`Pages` gathers what each page kind shows and hands it to
that kind's template; links and spec prose go through :class:`PageLinks`, bound to the page being
written. Nothing here knows about MkDocs.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from canasta_conformance.contract.defaults import DEFAULT_ENGINE
from canasta_conformance.contract.engine_protocol import EngineFactory, resolve_factory
from canasta_conformance.contract.model import format_action
from canasta_conformance.contract.paths import scenarios_dir, schema_dir
from canasta_conformance.contract.scenario import Scenario, Step, load_scenarios, scenario_files
from canasta_conformance.contract.spec import Rule, Spec, VariantError, load_spec
from canasta_conformance.running.scenario_cache import load_scenario_cached

from .board import Table
from .links import (
    CONFLICTS,
    PARAMETERS,
    REPORT,
    RULES_INDEX,
    SCENARIOS_INDEX,
    SCHEMAS_INDEX,
    SOURCES,
    VARIANTS,
    Linker,
    parameter_anchor,
    rel,
    rule_page,
    scenario_area_page,
    scenario_page,
    table_cell,
    variant_page,
)
from .runs import CorpusRun, Trace, report_statuses, run_corpus
from .schemadoc import SchemaFile, SchemaWriter, schema_files
from .templating import render, templates

Nav = list[tuple[str, str]]
_SLOT = re.compile(r"<!--cc:(\d+)-->")


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
    corpus_run: CorpusRun | None = None
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
    scenarios, problems = load_scenarios(files, spec, load_scenario_cached)  # an unchanged file is not parsed again
    scenarios.sort(key=lambda s: (_area_order(spec, s.area), s.id))
    site = Site(spec, scenarios, problems=[str(p) for p in problems])
    site.linker = Linker({r.id: r.area for r in spec.rules.values()}, spec.parameters, spec.conflicts, directory_urls)
    site.corpus_run = run_corpus(scenarios, engine or default_engine(), engine_label)
    Pages(site, schema_files(schemas or schema_dir())).write()
    return site


def _area_order(spec: Spec, area: str) -> int:
    order = list(spec.areas)
    return order.index(area) if area in order else len(order)


# --------------------------------------------------------------------------------------------
# Formatting helpers (also the templates' filters)

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


def _md(text: Any) -> str:
    """Spec prose as Markdown: one paragraph, angle brackets escaped."""
    return " ".join(str(text or "").split()).replace("<", "&lt;")


def _h(text: Any) -> str:
    return escape(str(text))


def _diff(html: str, differs: bool = True) -> str:
    """A value shown as differing from the default variant's."""
    return f'<span class="cc-diff">{html}</span>' if differs else html


def badge(expect_outcome: str, text: str | None = None) -> str:
    kind, default = {"accepted": ("cc-ok", "legal"), "rejected": ("cc-no", "illegal"),
                     "malformed": ("cc-bad", "malformed"), "check": ("cc-check", "check")}[expect_outcome]
    return f'<span class="cc-badge {kind}">{escape(text or default)}</span>'


def first_sentence(text: str) -> str:
    """What a parameter description says the parameter is: its first sentence, without the list of
    its values (``...: `continue` (...), ...``) or the full stop."""
    text = " ".join(text.split())
    head = re.split(r"(?<=[a-z0-9)])\.\s", text, maxsplit=1)[0]
    return head.split(": `", 1)[0].rstrip(".")


def readable(value: Any) -> str:
    """A parameter value for a sentence: ``yes``/``no`` for booleans, ``none`` for null."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    return value_text(value)


templates().filters.update(md=_md, h=_h, cell=table_cell, value=value_text, diff=_diff)
templates().globals.update(RULES_INDEX=RULES_INDEX, VARIANTS=VARIANTS, PARAMETERS=PARAMETERS, REPORT=REPORT,
                           rule_page=rule_page, scenario_page=scenario_page, scenario_area_page=scenario_area_page,
                           badge=badge)


class PageLinks:
    """Links from one page (``L`` in the templates): Markdown links checked by MkDocs, and HTML
    links for the drawn parts."""

    def __init__(self, linker: Linker, spec: Spec, page: str) -> None:
        self.linker = linker
        self.spec = spec
        self.page = page

    def rel(self, target: str) -> str:
        return rel(target, self.page)

    def url(self, target: str) -> str:
        return self.linker.url(target, self.page)

    def text(self, text: str | None, prefer_parameters: bool = False) -> str:
        """Spec prose as Markdown with rule IDs, parameter names and conflict IDs linked."""
        return self.linker.markdown(_md(text), self.page, prefer_parameters=prefer_parameters)

    def html(self, text: str | None) -> str:
        return self.linker.html(str(text or ""), self.page)

    def rule(self, rule_id: str) -> str:
        return self.linker.rule_link(rule_id, self.page)

    def rules(self, rule_ids: Iterable[Any]) -> str:
        return ", ".join(self.rule(getattr(r, "id", r)) for r in rule_ids)

    def rule_as(self, rule_ids: Iterable[str]) -> str:
        """HTML links to rules, joined by "or"."""
        return " or ".join(self.linker.rule_a(r, self.page) for r in rule_ids)

    def param(self, name: str) -> str:
        return self.linker.param_link(name, self.page)

    def params(self, names: Iterable[str]) -> str:
        return ", ".join(self.param(n) for n in names)

    def conflict(self, conflict: str) -> str:
        return self.linker.conflict_link(conflict, self.page)

    def conflicts(self, conflicts: Iterable[Any]) -> str:
        return ", ".join(self.conflict(getattr(c, "id", c)) for c in conflicts)

    def variant(self, variant: str) -> str:
        if variant not in self.spec.variants:
            return f"`{variant}`"
        return f"[{variant}]({self.rel(VARIANTS + '#variant-' + variant)})"

    def variants(self, variants: Iterable[str]) -> str:
        return ", ".join(self.variant(v) for v in variants)

    def source(self, source: str) -> str:
        if source not in self.spec.sources:
            return escape(source)
        return f"[{source}]({self.rel(SOURCES + '#' + source)})"

    def sources(self, sources: Iterable[str]) -> str:
        return ", ".join(self.source(s) for s in sources)

    def scenario(self, scenario: Scenario, text: str | None = None) -> str:
        return f"[{text or scenario.id}]({self.rel(scenario_page(scenario.area, scenario.id))})"

    def scenarios(self, scenarios: Iterable[Scenario]) -> str:
        return ", ".join(self.scenario(s) for s in scenarios)

    @staticmethod
    def codes(items: Iterable[str]) -> str:
        return ", ".join(f"`{item}`" for item in items)


@dataclass(frozen=True)
class Difference:
    """A rule a variant plays differently from the default variant, in words."""

    name: str
    text: str
    value: str
    default: str


# --------------------------------------------------------------------------------------------

class Pages:
    """What each page kind shows, rendered by its template into ``site.pages``."""

    def __init__(self, site: Site, schemas: list[SchemaFile]) -> None:
        self.site = site
        self.spec = site.spec
        self.linker = site.linker or Linker({})
        self.traces: Mapping[str, Trace] = site.corpus_run.traces if site.corpus_run else {}
        self.schemas = SchemaWriter(schemas)
        self.scenarios_by_rule: dict[str, list[Scenario]] = defaultdict(list)
        self.scenarios_by_area: dict[str, list[Scenario]] = defaultdict(list)
        self.scenarios_by_variant: dict[str, list[Scenario]] = defaultdict(list)
        for scenario in site.scenarios:
            for rule_id in scenario.rules:
                self.scenarios_by_rule[rule_id].append(scenario)
            self.scenarios_by_area[scenario.area].append(scenario)
            self.scenarios_by_variant[scenario.variant].append(scenario)
        self.variant_values: dict[str, dict[str, Any]] = {}
        for variant in self.spec.variants:
            try:
                self.variant_values[variant] = dict(self.spec.variant_parameters(variant))
            except VariantError as error:
                site.problems.append(f"variant {variant}: {error}")
        self.default = self.spec.default_variant
        self.variant_order = [self.default, *sorted(v for v in self.variant_values if v != self.default)]
        self.tables: dict[tuple[str, str], Table] = {}

    # ---- shared pieces

    def add(self, path: str, template: str, **context: Any) -> None:
        links = PageLinks(self.linker, self.spec, path)
        self.site.pages[path] = render(template, L=links, **context).rstrip() + "\n"

    def area_title(self, area: str) -> str:
        return self.spec.areas[area].title if area in self.spec.areas else area.capitalize()

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
        for variant in self.variant_order:
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
        self.variant_rulebooks()
        self.conflicts_page()
        self.sources_page()
        self.scenarios_pages()
        self.reference_pages()
        self.report_page()

    # ---- rules

    def rules_index(self) -> None:
        rows: list[dict[str, Any]] = []
        for area in self.spec.areas.values():
            rules = self.spec.rules_in(area.id)
            rows.append({"id": area.id, "title": area.title, "page": rule_page(area.id), "rules": len(rules),
                         "scenarios": len({s.id for r in rules for s in self.scenarios_by_rule.get(r.id, ())}),
                         "missing": sum(1 for r in rules if r.testable and not self.scenarios_by_rule.get(r.id))})
        kinds = Counter(r.kind or "unclassified" for r in self.spec.rules.values())
        self.add(RULES_INDEX, "rules_index.md.j2", areas=rows, kinds=[(k, n) for k, n in sorted(kinds.items())])
        self.site.sections[RULES_INDEX] = [(row["title"], row["page"]) for row in rows]

    def rules_area(self, area: str, title: str) -> None:
        page = rule_page(area)
        conflicts_by_rule: dict[str, list[Any]] = defaultdict(list)
        for conflict in self.spec.conflicts.values():
            for rule_id in conflict.rules:
                conflicts_by_rule[rule_id].append(conflict)
        links = PageLinks(self.linker, self.spec, page)
        rules = []
        for rule in self.spec.rules_in(area):
            facts = [*([rule.kind] if rule.kind else []), *([f"confidence {rule.confidence}"] if rule.confidence else []),
                     "testable" if rule.testable else "not testable by a scenario"]
            scenarios = self.scenarios_by_rule.get(rule.id, [])
            rows = [(s, self.key_step(s, rule.id)) for s in scenarios]
            rules.append({
                "id": rule.id, "title": rule.title, "statement": rule.statement, "note": rule.note,
                "testable": rule.testable, "facts": facts, "sources": rule.sources,
                "parameters": [(name, self.values_by_variant(name)) for name in rule.parameters],
                "conflicts": conflicts_by_rule.get(rule.id, []), "scenario_count": len(scenarios),
                "scenarios_html": self.site.slot(render("rule_scenarios.html.j2", L=links, rows=rows)) if rows else "",
            })
        self.add(page, "rules_area.md.j2", area=area, title=title, rules=rules,
                 has_scenarios=area in self.scenarios_by_area)

    def key_step(self, scenario: Scenario, rule_id: str) -> str:
        steps = [s for s in scenario.steps if s.action is not None]
        chosen = next((s for s in steps if rule_id in s.expect.violates), steps[0] if steps else None)
        if chosen is None or chosen.action is None:
            return "checks the position"
        return f"{self.table_for(scenario).action(chosen.action)} {badge(chosen.expect.outcome)}"

    # ---- parameters and variants

    def parameters_page(self) -> None:
        rules_by_parameter: dict[str, list[Rule]] = defaultdict(list)
        for rule in self.spec.rules.values():
            for name in rule.parameters:
                rules_by_parameter[name].append(rule)
        parameters = []
        for parameter in self.spec.parameters.values():
            name = parameter.name
            parameters.append({
                "name": name, "anchor": parameter_anchor(name), "description": parameter.description,
                "schema": self.schemas.type_text(dict(parameter.schema), _PARAMETER_SCHEMA, PARAMETERS),
                "default": parameter.default, "implemented": parameter.implemented, "requires": parameter.requires or {},
                "by_variant": self.values_by_variant(name), "rules": rules_by_parameter.get(name, []),
                "conflicts": [c for c in self.spec.conflicts.values() if c.parameter == name],
                "scenarios": [s for s in self.site.scenarios if name in s.options],
            })
        self.add(PARAMETERS, "parameters.md.j2", parameters=parameters)

    def differences(self, variant: str) -> list[Difference]:
        """The parameters ``variant`` sets differently from the default variant, in words."""
        base = self.variant_values.get(self.default, {})
        values = self.variant_values.get(variant, {})
        out = []
        for name, parameter in self.spec.parameters.items():
            if name in values and value_text(values[name]) != value_text(base.get(name)):
                out.append(Difference(name, first_sentence(parameter.description), readable(values[name]),
                                      readable(base.get(name))))
        return out

    def variants_page(self) -> None:
        report = self.site.corpus_run
        caps = report.capabilities if report else None
        plays = [v for v in self.variant_order if caps and v in caps.variants]
        engine = None
        if caps is not None:
            partial = [p.name for p in self.spec.parameters.values() if not p.implemented]
            engine = {"name": f"{caps.name} {caps.version}", "plays": plays,
                      "missing": [v for v in self.variant_order if v not in plays], "partial": partial}
        variants = []
        for variant_id in self.variant_order:
            info = self.spec.variants[variant_id]
            played = variant_id in plays
            variants.append({
                "id": variant_id, "title": info.title, "description": info.description, "base": info.base,
                "sources": info.sources, "notes": info.notes, "open_questions": info.open_questions,
                "players": self.variant_values[variant_id].get("players", ""), "is_default": variant_id == self.default,
                "differences": self.differences(variant_id), "scenarios": self.scenarios_by_variant.get(variant_id, []),
                "rulebook": variant_page(variant_id) if self.own_areas(variant_id) else None,
                "engine": "plays it" if played else "not yet" if caps else "not run",
                "engine_sentence": "played by the reference engine" if played else
                                   "not played by the reference engine yet" if caps else "the corpus was not run",
            })
        differing, same = [], []
        for name in self.spec.parameters:
            values = [value_text(self.variant_values[v].get(name)) for v in self.variant_order]
            if len(set(values)) > 1:
                differing.append((name, [(value, value != values[0]) for value in values]))
            else:
                same.append((name, values[0]))
        self.add(VARIANTS, "variants.md.j2", variants=variants, engine=engine, differing=differing, same=same,
                 default=self.spec.variants[self.default])

    def own_areas(self, variant: str) -> list[str]:
        """The rule areas holding the variant's own rules (spec.yaml: an area naming the variant)."""
        return [area.id for area in self.spec.areas.values() if area.variant == variant]

    def variant_rulebooks(self) -> None:
        """A rulebook page for each variant with rules of its own (Modern American): its rules in
        the spec's order under their topics, each with its statement and its scenarios drawn as on
        the rule pages, then the Classic rules it plays with other values."""
        pages: Nav = []
        for variant_id in self.variant_order:
            areas = self.own_areas(variant_id)
            if not areas:
                continue
            page = variant_page(variant_id)
            links = PageLinks(self.linker, self.spec, page)
            info = self.spec.variants[variant_id]
            topics: dict[str, list[dict[str, Any]]] = {}
            conflicts: dict[str, Any] = {}
            for area in areas:
                for rule in self.spec.rules_in(area):
                    scenarios = [s for s in self.scenarios_by_rule.get(rule.id, []) if s.variant == variant_id]
                    rows = [(s, self.key_step(s, rule.id)) for s in scenarios]
                    topic = _TOPICS.get(rule.id.split(".")[1], rule.id.split(".")[1].replace("-", " ").capitalize())
                    topics.setdefault(topic, []).append({
                        "id": rule.id, "title": rule.title, "statement": rule.statement, "note": rule.note,
                        "kind": rule.kind, "confidence": rule.confidence, "narrows": rule.narrows,
                        "sources": list(dict.fromkeys(src["source"] for src in rule.sources)),
                        "scenario_count": len(scenarios),
                        "scenarios_html": self.site.slot(render("rule_scenarios.html.j2", L=links, rows=rows)) if rows else "",
                    })
                    for conflict in self.spec.conflicts.values():
                        if rule.id in conflict.rules:
                            conflicts[conflict.id] = conflict
            self.add(page, "variant_rulebook.md.j2", v=info, topics=list(topics.items()),
                     differences=self.differences(variant_id), default=self.spec.variants[self.default],
                     conflicts=list(conflicts.values()), scenarios=self.scenarios_by_variant.get(variant_id, []),
                     area_pages=[(self.area_title(a), rule_page(a)) for a in areas])
            pages.append((f"{info.title}: the rulebook", page))
        if pages:
            self.site.sections[VARIANTS] = pages

    # ---- conflicts and sources

    def conflicts_page(self) -> None:
        self.add(CONFLICTS, "conflicts.md.j2", conflicts=list(self.spec.conflicts.values()))

    def sources_page(self) -> None:
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
        kinds = []
        for kind in sorted({s.kind for s in self.spec.sources.values()}, key=lambda k: (k == "secondary", k)):
            heading = kind.replace("-", " ").capitalize() + ("" if kind.endswith("s") else "s")
            sources = [{"id": src.id, "title": src.title, "note": src.note,
                        "details": [*(["primary source (full text held)"] if src.primary else []), *([f"<{src.url}>"] if src.url else [])],
                        "rules": cited_rules.get(src.id, []), "variants": cited_variants.get(src.id, []),
                        "conflicts": cited_conflicts.get(src.id, [])}
                       for src in self.spec.sources.values() if src.kind == kind]
            kinds.append((heading, sources))
        self.add(SOURCES, "sources.md.j2", kinds=kinds)

    # ---- scenarios

    def scenarios_pages(self) -> None:
        areas = [a for a in self.spec.areas if a in self.scenarios_by_area] + sorted(a for a in self.scenarios_by_area if a not in self.spec.areas)
        rows: list[dict[str, Any]] = []
        for area in areas:
            scenarios = self.scenarios_by_area[area]
            title = self.area_title(area)
            rows.append({"id": area, "title": title, "page": scenario_area_page(area), "scenarios": len(scenarios),
                         "rules": len({r for s in scenarios for r in s.rules})})
            self.add(scenario_area_page(area), "scenario_area.md.j2", area=area, title=title, scenarios=scenarios,
                     has_rules=area in self.spec.areas)
            for index, scenario in enumerate(scenarios):
                previous = scenarios[index - 1] if index else None
                following = scenarios[index + 1] if index + 1 < len(scenarios) else None
                self.scenario_page(scenario, previous, following)
        empty = [self.spec.areas[a] for a in self.spec.areas if a not in self.scenarios_by_area]
        self.add(SCENARIOS_INDEX, "scenarios_index.md.j2", total=len(self.site.scenarios), areas=rows, empty=empty)
        self.site.sections[SCENARIOS_INDEX] = [(row["title"], row["page"]) for row in rows]

    def scenario_page(self, scenario: Scenario, previous: Scenario | None, following: Scenario | None) -> None:
        page = scenario_page(scenario.area, scenario.id)
        self.site.not_in_nav.add(page)
        table = self.table_for(scenario)
        traced = self.traces.get(scenario.id)
        result = self.site.corpus_run.results.get(scenario.id) if self.site.corpus_run else None
        slot = self.site.slot
        start_html = deck_html = dealt_html = ""
        if scenario.position is not None:
            start_html = slot(table.position(scenario.position, caption="Starting position"))
        elif scenario.deal is not None:
            deck_html = slot(f'<div class="cc-table">{table.stock(scenario.deal.deck, what="Deck")}</div>')
            if traced and traced.start is not None:
                dealt_html = slot(table.position(traced.start, caption="Position after the deal"))
        links = PageLinks(self.linker, self.spec, page)
        steps_html = slot("".join(self.step_block(step, table, traced, links) for step in scenario.steps))
        message = result.report() if result and result.status != "passed" and result.message else ""
        self.add(page, "scenario.md.j2", s=scenario, rules=self.spec.rules, deal=scenario.deal,
                 start_html=start_html, deck_html=deck_html, dealt_html=dealt_html, steps_html=steps_html,
                 status=result.status if result else "not run", message=message,
                 file_html=self.source_file(scenario), previous=previous, following=following)

    def step_block(self, step: Step, table: Table, traced: Trace | None, links: PageLinks) -> str:
        """One step as HTML: the action drawn, the verdict and everything the step expects."""
        before = traced.before(step.index) if traced else None
        expect = step.expect
        action_html = who = ""
        if step.action is not None:
            kind = step.action.type
            who = ("The partner" if kind == "answer" else "The dealer" if kind == "next_hand"
                   else f"Seat {before.turn}" if before is not None else "The player")
            action_html = table.action(step.action, before=before)
        score = None
        if expect.score is not None:
            keys = [k for k in ("canastas", "red_threes", "going_out", "melded", "in_hand", "special_hand", "penalties", "total", "cumulative")
                    if any(k in s for s in expect.score)]
            score = {"columns": keys, "rows": expect.score}
        game = []
        if expect.game:
            if "over" in expect.game:
                game.append("the game is <strong>over</strong>" if expect.game["over"] else "the game goes on")
            if expect.game.get("winner") is not None:
                game.append(f"side {expect.game['winner']} wins")
        legal = [(True, table.action(a)) for a in expect.legal_includes] + [(False, table.action(a)) for a in expect.legal_excludes]
        after = traced.after[step.index] if traced and step.index < len(traced.after) else None
        after_html = ""
        if after is not None and step.action is not None and expect.outcome == "accepted":
            after_html = table.position(after, caption=f"After step {step.index + 1}")
        return render(
            "step.html.j2", L=links, number=step.index + 1,
            title="check" if step.action is None else format_action(step.action).split(" ")[0],
            who=who, action_html=action_html, outcome=expect.outcome, violates=expect.violates, note=step.note,
            expected_html=table.expected(expect.position) if expect.position is not None else "",
            hand_over=expect.hand_over, score=score, game=game, legal=legal, after_html=after_html,
        )

    def source_file(self, scenario: Scenario) -> str:
        try:
            text = scenario.path.read_text(encoding="utf-8")
        except OSError:
            return ""
        return self.site.slot(
            f'<details class="example"><summary>The scenario file <code>scenarios/{escape(scenario.area)}/{escape(scenario.path.name)}</code></summary>'
            f'<pre><code class="language-yaml">{escape(text.rstrip())}</code></pre></details>')

    # ---- reference

    def reference_pages(self) -> None:
        intro = render("reference_index.md.j2", L=PageLinks(self.linker, self.spec, SCHEMAS_INDEX)).rstrip()
        self.site.pages[SCHEMAS_INDEX] = self.schemas.index(SCHEMAS_INDEX, intro).rstrip() + "\n"
        nav: Nav = []
        for schema_file in self.schemas.files:
            self.site.pages[schema_file.page] = self.schemas.page(schema_file).rstrip() + "\n"
            nav.append((schema_file.path.name, schema_file.page))
        nav.append(("Conformance report", REPORT))
        self.site.sections[SCHEMAS_INDEX] = nav

    def report_page(self) -> None:
        report = self.site.corpus_run
        if report is None:
            self.add(REPORT, "report.md.j2", report=None)
            return
        caps = report.capabilities
        totals = report.totals
        statuses = [*report_statuses(), *sorted(s for s in totals if s not in report_statuses())]
        tiers: dict[str, Counter[str]] = {}
        for result in report.results.values():
            if result.tier is not None:
                tiers.setdefault(result.tier.name, Counter())[result.status] += 1
        areas = [{"title": self.area_title(area), "page": scenario_area_page(area), "counts": counts, "total": sum(counts.values())}
                 for area, counts in report.counts_by_area(self.site.scenarios).items()]
        by_id = {s.id: s for s in self.site.scenarios}
        self.add(REPORT, "report.md.j2", report=report, engine=f"{caps.name} {caps.version}" if caps else report.engine,
                 spec_version=self.spec.version, statuses=statuses, totals=totals, areas=areas,
                 tiers=[(name, tiers[name]) for name in sorted(tiers, key=lambda t: (t != "core", t))],
                 citations=[(by_id[r.scenario], c) for r in report.results.values() for c in r.citations],
                 failures=[(by_id[r.scenario], r) for r in report.results.values() if not r.ok],
                 unsupported=[r for r in report.results.values() if r.status == "unsupported"],
                 rule_count=len(self.spec.rules),
                 uncovered=[r.id for r in self.spec.rules.values() if r.testable and not self.scenarios_by_rule.get(r.id)])


#: stands in for a schema file when describing a parameter's inline schema (it has no $ref)
#: the topics of a variant's rulebook, by the second part of a rule ID (modern.talon.* -> Bonus talons)
_TOPICS = {
    "deal": "The deal", "draw": "The turn", "talon": "Bonus talons", "pile": "The discard pile",
    "initial": "The initial meld", "meld": "Melds", "sevens": "Sevens and aces", "aces": "Sevens and aces",
    "wild-meld": "The wild-card meld", "out": "Going out", "discard": "Discarding", "special-hand": "Special hands",
    "score": "Scoring", "game": "The game",
}

_PARAMETER_SCHEMA = SchemaFile("parameters", Path("parameters.schema.json"), "schema/parameters.schema.json", {})
