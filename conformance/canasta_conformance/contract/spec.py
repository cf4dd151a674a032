"""Loading the rules specification: areas, rules, parameters, variants, conflicts and sources.

``load_spec()`` reads ``spec/`` once per process. ``Spec.variant_parameters(name, options)``
resolves a variant to the full parameter mapping: catalogue defaults, then the variant's
overrides, then a scenario's options, each value checked against the parameter's schema;
``Spec.variant_rules(name, options)`` is the same as one typed value (:mod:`.variant_rules`), which
is what the engine and the checks read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .disk_cache import cache_root, context, read_entry, write_entry
from .docpath import PathPart
from .errors import CanastaError
from .paths import spec_dir
from .schema_check import Check, compile_check
from .suggest import did_you_mean
from .variant_rules import VariantRules

# JSON Schema (about 0.13 s to import) loads only to read the spec's files or to explain a value a
# parameter refuses: a spec read back from the disk cache, and the parameter values it accepts,
# need none of it (every process that runs scenarios reads the spec)
if TYPE_CHECKING:
    import jsonschema
from .yamlio import Problem, YamlDocument, YamlError, read_yaml

RULE_ID = re.compile(r"^[a-z][a-z0-9]*(\.[a-z0-9]+(-[a-z0-9]+)*)+$")


class SpecError(CanastaError, ValueError):
    """The spec is broken; ``problems`` lists every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("the Canasta spec has problems:\n" + "\n".join(f"  {p}" for p in problems))
        self.problems = problems


class VariantError(CanastaError, ValueError):
    """An unknown variant, an unknown parameter or a value outside the parameter's schema."""


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    kind: str
    primary: bool = False
    url: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class Rule:
    id: str
    area: str
    title: str
    statement: str
    sources: tuple[Mapping[str, str], ...]
    parameters: tuple[str, ...]
    testable: bool
    kind: str | None = None
    confidence: str | None = None
    note: str | None = None
    #: the more general rules this one is a special case of (``narrows:`` in spec/rules)
    narrows: tuple[str, ...] = ()
    #: the variants in which alone the rule holds (``variants:``; empty: every variant)
    variants: tuple[str, ...] = ()
    #: the variants in which the rule does not hold (``except_variants:``)
    except_variants: tuple[str, ...] = ()

    def holds_in(self, variant: str) -> bool:
        """Whether the rule belongs to the rule set ``variant`` (its ``variants`` scope)."""
        return (not self.variants or variant in self.variants) and variant not in self.except_variants

    @property
    def forbids(self) -> bool:
        return self.kind == "prohibition"


@dataclass(frozen=True)
class Parameter:
    name: str
    description: str
    schema: Mapping[str, Any]
    default: Any
    implemented: bool = True
    #: the values other parameters must have whenever this one is set away from its default (the
    #: rule it sets only makes sense at such a table, e.g. the three-player lone hand)
    requires: Mapping[str, Any] | None = None

    def check(self, value: Any) -> str | None:
        """Why ``value`` is not allowed for this parameter, or None. The schema's compiled check
        (:mod:`.schema_check`) answers for a value it finds valid; any other is explained by
        ``jsonschema``."""
        schema = json.dumps(thaw(self.schema), sort_keys=True)
        data = thaw(value)
        check = _parameter_check(schema)
        try:
            if check is not None and check(data):
                return None
        except Exception:  # noqa: BLE001 - jsonschema reports it
            pass
        import jsonschema

        error = jsonschema.exceptions.best_match(_parameter_validator(self.name, schema).iter_errors(data))
        return None if error is None else f"{value!r} is not allowed for {self.name}: {error.message}"


@cache
def _parameter_check(schema: str) -> Check | None:
    """The compiled yes-or-no check of a parameter's schema, None if it does not compile."""
    try:
        return compile_check(json.loads(schema))
    except Exception:  # noqa: BLE001 - anything the compiler cannot take is left to jsonschema
        return None


@cache
def _parameter_validator(name: str, schema: str) -> jsonschema.Draft7Validator:
    """One validator per parameter schema, built once (building one costs more than using it)."""
    import jsonschema

    return jsonschema.Draft7Validator(json.loads(schema))


@dataclass(frozen=True)
class Variant:
    id: str
    title: str
    description: str
    sources: tuple[str, ...]
    overrides: Mapping[str, Any]
    base: str | None = None
    open_questions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Conflict:
    id: str
    title: str
    rules: tuple[str, ...]
    parameter: str | None
    readings: tuple[Mapping[str, Any], ...]
    default: str
    rationale: str


@dataclass(frozen=True)
class Area:
    id: str
    title: str
    #: the variant whose own rules the area holds (Modern American's), if any
    variant: str | None = None


@dataclass
class Spec:
    root: Path
    name: str
    version: str
    default_variant: str
    areas: dict[str, Area]
    rules: dict[str, Rule]
    parameters: dict[str, Parameter]
    variants: dict[str, Variant]
    conflicts: dict[str, Conflict]
    sources: dict[str, Source]
    problems: list[Problem] = field(default_factory=list)
    _resolved: dict[tuple[str, str], Mapping[str, Any]] = field(default_factory=dict, repr=False)
    _typed: dict[tuple[str, str], VariantRules] = field(default_factory=dict, repr=False)
    _conflicts_by_rule: dict[str, tuple[Conflict, ...]] | None = field(default=None, repr=False)

    def rules_in(self, area: str) -> list[Rule]:
        return [r for r in self.rules.values() if r.area == area]

    def conflicts_of(self, rule_id: str) -> tuple[Conflict, ...]:
        """The conflicts that name ``rule_id`` (indexed once: every scenario's tier asks)."""
        if self._conflicts_by_rule is None:
            index: dict[str, list[Conflict]] = {}
            for conflict in self.conflicts.values():
                for rule in conflict.rules:
                    index.setdefault(rule, []).append(conflict)
            self._conflicts_by_rule = {rule: tuple(found) for rule, found in index.items()}
        return self._conflicts_by_rule.get(rule_id, ())

    def broader_rules(self, rule_id: str) -> frozenset[str]:
        """Every rule ``rule_id`` narrows, directly or through others (``narrows:`` followed upward)."""
        found: set[str] = set()
        todo = list(self.rules[rule_id].narrows) if rule_id in self.rules else []
        while todo:
            current = todo.pop()
            if current not in found:
                found.add(current)
                todo.extend(self.rules[current].narrows if current in self.rules else ())
        return frozenset(found)

    def citation_agrees(self, cited: str | None, expected: Iterable[str]) -> bool:
        """Whether a rejection citing ``cited`` agrees with a step that expects one of ``expected``:
        the same rule, or a more general one that the expected rule narrows."""
        if cited is None:
            return False
        return any(cited == rule or cited in self.broader_rules(rule) for rule in expected)

    def variant_parameters(self, name: str, options: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        """The full parameter mapping of variant ``name`` with ``options`` applied on top."""
        return _resolved(self, name, tuple(sorted((options or {}).items())) if options else ())

    def variant_rules(self, name: str, options: Mapping[str, Any] | None = None) -> VariantRules:
        """The typed view of :meth:`variant_parameters` (what engines and checks read)."""
        key = (name, repr(sorted((options or {}).items())))
        found = self._typed.get(key)
        if found is None:
            try:
                found = self._typed[key] = VariantRules.from_parameters(self.variant_parameters(name, options))
            except KeyError as error:  # a broken spec: a variant sets a parameter the catalogue lacks
                raise VariantError(f"variant {name!r}: {error.args[0]}") from None
        return found

    def option_problems(self, options: Mapping[str, Any]) -> list[str]:
        out = []
        for key, value in options.items():
            parameter = self.parameters.get(key)
            if parameter is None:
                out.append(f"unknown parameter {key!r}{did_you_mean(key, self.parameters)}")
            elif (why := parameter.check(value)) is not None:
                out.append(why)
        return out


def requirement_problems(spec: Spec, values: Mapping[str, Any]) -> list[str]:
    """The parameters set away from their default whose ``requires`` the other values do not meet,
    each naming what it needs and what the rule set has."""
    out = []
    for parameter in spec.parameters.values():
        if parameter.requires and thaw(values[parameter.name]) != thaw(parameter.default):
            unmet = [f"{other}: {json.dumps(wanted)} (it has {json.dumps(thaw(values[other]))})"
                     for other, wanted in parameter.requires.items() if other in values and thaw(values[other]) != wanted]
            if unmet:
                out.append(f"{parameter.name}: {json.dumps(thaw(values[parameter.name]))} needs " + ", ".join(unmet))
    try:
        typed = VariantRules.from_parameters(values)
    except (KeyError, TypeError, ValueError):  # a broken spec or option: reported where the rules are read
        return out
    return out + typed.coherence_problems()


def thaw(value: Any) -> Any:
    """A resolved (frozen) parameter value as plain JSON data."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _resolved(spec: Spec, name: str, options: tuple[tuple[str, Any], ...]) -> Mapping[str, Any]:
    key = (name, repr(options))
    found = spec._resolved.get(key)
    if found is None:
        found = spec._resolved[key] = MappingProxyType({k: _freeze(v) for k, v in _values(spec, name, dict(options)).items()})
    return found


def _values(spec: Spec, name: str, option_map: dict[str, Any]) -> dict[str, Any]:
    """Every parameter's value in variant ``name`` with the options, checked (VariantError)."""
    chain: list[Variant] = []
    current: str | None = name
    while current is not None:
        variant = spec.variants.get(current)
        if variant is None:
            known = ", ".join(sorted(spec.variants))
            raise VariantError(f"unknown variant {current!r}{did_you_mean(current, spec.variants)} (known: {known})")
        if variant in chain:
            raise VariantError(f"variant {name!r} has a cycle of bases")
        chain.append(variant)
        current = variant.base
    values = {p.name: p.default for p in spec.parameters.values()}
    for variant in reversed(chain):
        values.update(variant.overrides)
    problems = spec.option_problems(option_map)
    if problems:
        raise VariantError("; ".join(problems))
    values.update(option_map)
    unmet = requirement_problems(spec, values)
    if unmet:
        raise VariantError(f"variant {name!r}" + (" with these options" if option_map else "") + ": " + "; ".join(unmet))
    return values


# --------------------------------------------------------------------------------------------
# Loading


def _documents(paths: Iterable[Path], problems: list[Problem]) -> Iterable[YamlDocument]:
    for path in paths:
        try:
            yield read_yaml(path)
        except YamlError as error:
            problems.extend(error.problems)


def _checked(document: YamlDocument, schema_name: str, problems: list[Problem]) -> bool:
    from .schemas import SchemaFileError, schema_errors

    try:
        errors = [document.problem(path, message) for path, message in schema_errors(schema_name, document.data)]
    except SchemaFileError as error:
        errors = [error.problem]
    problems.extend(errors)
    return not errors


@cache
def load_spec(root: Path | None = None) -> Spec:
    """Load and cross-check the spec; raises :class:`SpecError` if anything is wrong. A spec that
    loaded without a problem is kept in the harness's disk cache (:mod:`.disk_cache`), keyed by
    every file of the spec and the harness's source, so another process does not parse it again."""
    root = root or spec_dir()
    cache_folder = cache_root()
    # the digest read afresh (not the per-process one): a spec file changed since is read again
    entry = None if cache_folder is None else cache_folder / context.__wrapped__(str(root)) / "spec.pickle"
    if entry is not None:
        found = read_entry(entry)
        if isinstance(found, Spec) and found.root == root and not found.problems:
            return found
    spec = read_spec(root)
    if spec.problems:
        raise SpecError(spec.problems)
    if entry is not None:
        write_entry(entry, spec)  # before any variant is resolved: its caches are empty
    return spec


def read_spec(root: Path) -> Spec:
    """Read the spec and collect every problem in ``Spec.problems`` instead of raising."""
    problems: list[Problem] = []
    meta_doc = next(iter(_documents([root / "spec.yaml"], problems)), None)
    meta = meta_doc.data if meta_doc and _checked(meta_doc, "spec-meta", problems) else {}
    spec = Spec(
        root=root,
        name=meta.get("name", "Canasta"),
        version=meta.get("version", "0.0.0"),
        default_variant=meta.get("default_variant", "classic"),
        areas={a["id"]: Area(a["id"], a["title"], a.get("variant")) for a in meta.get("areas", [])},
        rules={}, parameters={}, variants={}, conflicts={}, sources={}, problems=problems,
    )
    _read_sources(spec, root / "sources.yaml")
    _read_parameters(spec, root / "parameters.yaml")
    rule_docs = _read_rules(spec, sorted((root / "rules").glob("*.yaml")))
    _read_variants(spec, sorted((root / "variants").glob("*.yaml")))
    _read_conflicts(spec, root / "conflicts.yaml")
    _cross_check_rules(spec, rule_docs)
    if spec.default_variant not in spec.variants:
        problems.append(Problem("spec.yaml", 0, "default_variant", f"unknown variant {spec.default_variant!r}"))
    for area in spec.areas.values():
        if area.variant is not None and area.variant not in spec.variants:
            problems.append(Problem("spec.yaml", 0, "areas", f"area {area.id!r}: unknown variant {area.variant!r}"))
    problems[:] = dict.fromkeys(problems)  # one broken schema file is met by every document checked against it
    return spec


def _optional(path: Path) -> list[Path]:
    return [path] if path.exists() else []


def _read_sources(spec: Spec, path: Path) -> None:
    for doc in _documents(_optional(path), spec.problems):
        if not _checked(doc, "sources", spec.problems):
            continue
        for index, item in enumerate(doc.data["sources"]):
            if item["id"] in spec.sources:
                spec.problems.append(doc.problem(["sources", index, "id"], f"duplicate source id {item['id']!r}"))
            spec.sources[item["id"]] = Source(**item)


def _read_parameters(spec: Spec, path: Path) -> None:
    for doc in _documents([path], spec.problems):
        if not _checked(doc, "parameters", spec.problems):
            continue
        for index, item in enumerate(doc.data["parameters"]):
            parameter = Parameter(**item)
            if parameter.name in spec.parameters:
                spec.problems.append(doc.problem(["parameters", index, "name"], f"duplicate parameter {parameter.name!r}"))
            import jsonschema

            try:
                jsonschema.Draft7Validator.check_schema(parameter.schema)
            except jsonschema.SchemaError as error:
                spec.problems.append(doc.problem(["parameters", index, "schema"], f"not a valid JSON Schema: {error.message}"))
                continue
            if (why := parameter.check(parameter.default)) is not None:
                spec.problems.append(doc.problem(["parameters", index, "default"], why))
            spec.parameters[parameter.name] = parameter
        for index, item in enumerate(doc.data["parameters"]):
            for other, wanted in (item.get("requires") or {}).items():
                needed = spec.parameters.get(other)
                why = f"unknown parameter {other!r}" if needed is None else needed.check(wanted)
                if why is not None:
                    spec.problems.append(doc.problem(["parameters", index, "requires", other], why))


def _read_rules(spec: Spec, paths: list[Path]) -> list[tuple[YamlDocument, list[Any]]]:
    """Rules by area; the documents are kept for the cross-checks that need every file read."""
    read: list[tuple[YamlDocument, list[Any]]] = []
    for doc in _documents(paths, spec.problems):
        if not _checked(doc, "rules", spec.problems):
            continue
        area = doc.data["area"]
        if area != doc.path.stem:
            spec.problems.append(doc.problem(["area"], f"area {area!r} must equal the file name {doc.path.stem!r}"))
        if spec.areas and area not in spec.areas:
            spec.problems.append(doc.problem(["area"], f"area {area!r} is not listed in spec.yaml"))
        for index, item in enumerate(doc.data["rules"]):
            rule_id = item["id"]
            if rule_id in spec.rules:
                first = spec.rules[rule_id]
                spec.problems.append(doc.problem(["rules", index, "id"], f"duplicate rule id {rule_id!r} (first in area {first.area!r})"))
                continue
            if rule_id.split(".")[0] != area:
                spec.problems.append(doc.problem(["rules", index, "id"], f"rule id {rule_id!r} must start with its area {area!r}"))
            spec.rules[rule_id] = Rule(
                id=rule_id, area=area, title=item["title"], statement=item["statement"],
                sources=tuple(item["sources"]), parameters=tuple(item.get("parameters", ())),
                testable=item["testable"], kind=item.get("kind"), confidence=item.get("confidence"),
                note=item.get("note"), narrows=tuple(item.get("narrows", ())),
                variants=tuple(item.get("variants", ())), except_variants=tuple(item.get("except_variants", ())),
            )
        read.append((doc, doc.data["rules"]))
    return read


def _read_variants(spec: Spec, paths: list[Path]) -> None:
    for doc in _documents(paths, spec.problems):
        if not _checked(doc, "variant", spec.problems):
            continue
        data = doc.data
        if data["id"] != doc.path.stem:
            spec.problems.append(doc.problem(["id"], f"variant id {data['id']!r} must equal the file name {doc.path.stem!r}"))
        for key, value in data["parameters"].items():
            parameter = spec.parameters.get(key)
            if parameter is None:
                spec.problems.append(doc.problem(["parameters", key], f"unknown parameter {key!r}{did_you_mean(key, spec.parameters)}"))
            elif (why := parameter.check(value)) is not None:
                spec.problems.append(doc.problem(["parameters", key], why))
        for index, source in enumerate(data["sources"]):
            if spec.sources and source not in spec.sources:
                spec.problems.append(doc.problem(["sources", index], f"unknown source {source!r}"))
        spec.variants[data["id"]] = Variant(
            id=data["id"], title=data["title"], description=data["description"],
            sources=tuple(data["sources"]), overrides=dict(data["parameters"]), base=data.get("base"),
            open_questions=tuple(data.get("open_questions", ())), notes=tuple(data.get("notes", ())),
        )
    for variant in spec.variants.values():
        if variant.base is not None and variant.base not in spec.variants:
            spec.problems.append(Problem(f"variants/{variant.id}.yaml", 0, "base", f"unknown base variant {variant.base!r}"))
        elif (cycle := _base_cycle(spec, variant.id)) is not None:
            spec.problems.append(Problem(f"variants/{variant.id}.yaml", 0, "base", f"a cycle of bases: {' -> '.join(cycle)}"))
        else:
            try:
                _values(spec, variant.id, {})  # every parameter's requires met (nothing cached yet)
            except VariantError as error:
                spec.problems.append(Problem(f"variants/{variant.id}.yaml", 0, "parameters", str(error)))


def _base_cycle(spec: Spec, start: str) -> list[str] | None:
    """The chain of bases from ``start`` back to ``start``, if it comes back (None otherwise)."""
    chain = [start]
    current = spec.variants[start].base
    while current is not None and current in spec.variants:
        chain.append(current)
        if current == start:
            return chain
        if chain.count(current) > 1:  # a cycle that does not pass through start: reported at its own variants
            return None
        current = spec.variants[current].base
    return None


def _read_conflicts(spec: Spec, path: Path) -> None:
    for doc in _documents(_optional(path), spec.problems):
        if not _checked(doc, "conflicts", spec.problems):
            continue
        for index, item in enumerate(doc.data["conflicts"]):
            where: list[PathPart] = ["conflicts", index]
            if item["id"] in spec.conflicts:
                spec.problems.append(doc.problem([*where, "id"], f"duplicate conflict id {item['id']!r}"))
            for r, rule_id in enumerate(item["rules"]):
                if rule_id not in spec.rules:
                    spec.problems.append(doc.problem([*where, "rules", r], f"unknown rule {rule_id!r}"))
            parameter = spec.parameters.get(item.get("parameter", ""))
            if "parameter" in item and parameter is None:
                spec.problems.append(doc.problem([*where, "parameter"], f"unknown parameter {item['parameter']!r}"))
            for r, reading in enumerate(item["readings"]):
                for s, source in enumerate(reading["sources"]):
                    if spec.sources and source not in spec.sources:
                        spec.problems.append(doc.problem([*where, "readings", r, "sources", s], f"unknown source {source!r}"))
                if parameter is not None and "value" in reading and (why := parameter.check(reading["value"])) is not None:
                    spec.problems.append(doc.problem([*where, "readings", r, "value"], why))
            spec.conflicts[item["id"]] = Conflict(
                id=item["id"], title=item["title"], rules=tuple(item["rules"]), parameter=item.get("parameter"),
                readings=tuple(item["readings"]), default=item["default"], rationale=item["rationale"],
            )


def _cross_check_rules(spec: Spec, rule_docs: list[tuple[YamlDocument, list[Any]]]) -> None:
    """Every parameter, source and broader rule a rule names exists; ``narrows`` has no cycle."""
    for doc, items in rule_docs:
        for index, item in enumerate(items):
            for n, broader in enumerate(item.get("narrows", ())):
                where: list[PathPart] = ["rules", index, "narrows", n]
                if broader == item["id"]:
                    spec.problems.append(doc.problem(where, f"rule {broader!r} cannot narrow itself"))
                elif broader not in spec.rules:
                    spec.problems.append(doc.problem(where, f"unknown rule {broader!r}"))
                elif item["id"] in spec.broader_rules(broader):
                    spec.problems.append(doc.problem(where, f"cycle: {broader!r} already narrows {item['id']!r}"))
            for p, name in enumerate(item.get("parameters", ())):
                if name not in spec.parameters:
                    spec.problems.append(doc.problem(["rules", index, "parameters", p], f"unknown parameter {name!r}"))
            for key in ("variants", "except_variants"):  # the rule's scope names known rule sets
                for v, variant in enumerate(item.get(key, ())):
                    if variant not in spec.variants:
                        spec.problems.append(doc.problem(["rules", index, key, v], f"unknown variant {variant!r}{did_you_mean(variant, spec.variants)}"))
            for s, source in enumerate(item["sources"]):
                if spec.sources and source["source"] not in spec.sources:
                    spec.problems.append(doc.problem(["rules", index, "sources", s, "source"], f"unknown source {source['source']!r}"))
