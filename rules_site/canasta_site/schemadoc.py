"""Reference pages written from the JSON Schemas: every key with its type, whether it is required,
its description and its allowed values, walked recursively (``$ref`` becomes a link)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .links import rel, schema_page
from .links import table_cell as _cell
from .templating import render

#: how schema files are grouped on the reference index (a name not listed goes to "Other")
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Scenario files", ("scenario", "position", "action")),
    ("Engine protocol (JSON lines)", ("protocol",)),
    ("Spec files", ("spec-meta", "rules", "parameters", "variant", "conflicts", "sources")),
    ("Reports", ("report", "known-failures")),
)


@dataclass(frozen=True)
class SchemaFile:
    name: str  # "scenario" for scenario.schema.json, "protocol/hello" for protocol/hello.schema.json
    path: Path
    relpath: str  # relative to the spec folder: schema/scenario.schema.json
    data: Mapping[str, Any]

    @property
    def title(self) -> str:
        return str(self.data.get("title") or self.name)

    @property
    def page(self) -> str:
        return schema_page(self.name)

    @property
    def group(self) -> str:
        for group, names in GROUPS:
            if self.name in names:
                return group
        if "protocol" in self.name or "message" in self.name:
            return "Engine protocol (JSON lines)"
        return "Other schemas"


def schema_files(schema_dir: Path) -> list[SchemaFile]:
    out = []
    for path in sorted(schema_dir.rglob("*.json")):
        name = path.relative_to(schema_dir).as_posix()
        for suffix in (".schema.json", ".json"):
            if name.endswith(suffix):
                name = name[: -len(suffix)]
                break
        out.append(SchemaFile(name, path, f"schema/{path.relative_to(schema_dir).as_posix()}",
                              json.loads(path.read_text(encoding="utf-8"))))
    return out


def anchor(definition: str) -> str:
    return "def-" + definition.replace("_", "-").replace("/", "-").lower()


class SchemaWriter:
    def __init__(self, files: list[SchemaFile]) -> None:
        self.files = files
        self.by_file = {f.path.name: f for f in files}

    # ---- types

    def ref_link(self, ref: str, current: SchemaFile, page: str) -> str:
        file_part, _, pointer = ref.partition("#")
        target = current
        if file_part:
            target = self._resolve_file(file_part, current) or current
        name = pointer.rsplit("/", 1)[-1] if pointer.startswith("/definitions/") else ""
        label = name or target.name
        where = target.page + (f"#{anchor(name)}" if name else "")
        return f"[{label}]({rel(where, page)})"

    def _resolve_file(self, file_part: str, current: SchemaFile) -> SchemaFile | None:
        path = (current.path.parent / file_part).resolve()
        for f in self.files:
            if f.path.resolve() == path:
                return f
        return self.by_file.get(Path(file_part).name)

    def type_text(self, schema: Any, current: SchemaFile, page: str) -> str:
        if schema is True or schema == {}:
            return "any"
        if schema is False:
            return "nothing"
        if not isinstance(schema, Mapping):
            return "any"
        if "$ref" in schema:
            return self.ref_link(schema["$ref"], current, page)
        if "const" in schema:
            return f"`{_json(schema['const'])}`"
        if "enum" in schema:
            return "one of " + ", ".join(f"`{_json(v)}`" for v in schema["enum"])
        for combinator, word in (("oneOf", " or "), ("anyOf", " or "), ("allOf", " and ")):
            if combinator in schema:
                return word.join(self.type_text(s, current, page) if not _inline_object(s) else "object (below)" for s in schema[combinator])
        kinds = schema.get("type")
        if isinstance(kinds, list):
            base = " or ".join(_kind(k) for k in kinds)
        elif kinds == "array":
            items = schema.get("items")
            base = "list" + (f" of {self.type_text(items, current, page)}" if items is not None else "")
        elif kinds == "object":
            extra = schema.get("additionalProperties")
            if isinstance(extra, Mapping) and extra and not schema.get("properties"):
                base = f"mapping of names to {self.type_text(extra, current, page)}"
            else:
                base = "object"
        elif kinds:
            base = _kind(kinds)
        elif "properties" in schema:
            base = "object"
        else:
            base = "any"
        return base + _constraints(schema)

    # ---- rows

    def rows(self, schema: Mapping[str, Any], prefix: str, current: SchemaFile, page: str) -> Iterator[tuple[str, str, bool, str]]:
        required = set(schema.get("required", ()))
        for key, sub in (schema.get("properties") or {}).items():
            path = f"{prefix}{key}"
            yield path, self.type_text(sub, current, page), key in required, _description(sub)
            if isinstance(sub, Mapping):
                yield from self._nested(sub, path, current, page)

    def _nested(self, sub: Mapping[str, Any], path: str, current: SchemaFile, page: str) -> Iterator[tuple[str, str, bool, str]]:
        if sub.get("properties"):
            yield from self.rows(sub, f"{path}.", current, page)
        items = sub.get("items")
        if isinstance(items, Mapping) and items.get("properties"):
            yield from self.rows(items, f"{path}[].", current, page)
        for combinator in ("oneOf", "anyOf"):
            for alt in sub.get(combinator, ()):
                if _inline_object(alt):
                    yield from self.rows(alt, f"{path}.", current, page)

    def table(self, schema: Mapping[str, Any], current: SchemaFile, page: str, prefix: str = "") -> str:
        rows = list(self.rows(schema, prefix, current, page))
        if not rows:
            return ""
        lines = ["| key | type | required | description |", "| --- | --- | --- | --- |"]
        for path, kind, required, description in rows:
            lines.append(f"| `{path}` | {_cell(kind)} | {'yes' if required else ''} | {_cell(description)} |")
        return "\n".join(lines) + "\n"

    def describe(self, schema: Mapping[str, Any], current: SchemaFile, page: str) -> str:
        """A schema as Markdown: its description, type, alternatives and keys."""
        parts: list[str] = []
        if schema.get("description"):
            parts.append(_escape(schema["description"]) + "\n")
        if not schema.get("properties"):
            kind = self.type_text(schema, current, page)
            if kind != "any":
                parts.append(f"Type: {kind}\n")
        for combinator in ("oneOf", "anyOf"):
            alts = [a for a in schema.get(combinator, ()) if _inline_object(a)]
            for index, alt in enumerate(alts):
                name = _alternative_name(alt) or f"alternative {index + 1}"
                parts.append(f"**{name}**" + (f": {_escape(alt['description'])}" if alt.get("description") else "") + "\n")
                parts.append(self.table(alt, current, page))
        if schema.get("properties"):
            parts.append(self.table(schema, current, page))
        return "\n".join(p for p in parts if p)

    def page(self, schema_file: SchemaFile) -> str:
        data = schema_file.data
        page = schema_file.page
        top = {k: v for k, v in data.items() if k not in ("definitions", "$defs", "title", "$schema", "$id")}
        definitions = data.get("definitions") or data.get("$defs") or {}
        return render("schema.md.j2", file=schema_file, draft=_draft(data),
                      top=self.describe(top, schema_file, page) if top else "",
                      definitions=[(name, anchor(name), self.describe(sub, schema_file, page) or "Any value.")
                                   for name, sub in definitions.items()])

    def index(self, page: str, intro: str) -> str:
        groups: dict[str, list[SchemaFile]] = {}
        for f in self.files:
            groups.setdefault(f.group, []).append(f)
        order = [g for g, _ in GROUPS] + sorted(g for g in groups if g not in {n for n, _ in GROUPS})
        rows = [(group, [(f, rel(f.page, page), _cell(_first_sentence(f.data.get("description", "")))) for f in groups[group]])
                for group in order if group in groups]
        return render("schemas_index.md.j2", intro=intro, groups=rows)


def _inline_object(schema: Any) -> bool:
    return isinstance(schema, Mapping) and "$ref" not in schema and bool(schema.get("properties"))


def _alternative_name(schema: Mapping[str, Any]) -> str:
    consts = [f"`{k}: {_json(v['const'])}`" for k, v in schema.get("properties", {}).items() if isinstance(v, Mapping) and "const" in v]
    return ", ".join(consts)


def _kind(kind: str) -> str:
    return {"integer": "integer", "number": "number", "string": "string", "boolean": "boolean", "null": "`null`",
            "object": "object", "array": "list"}.get(kind, kind)


def _constraints(schema: Mapping[str, Any]) -> str:
    out = []
    if "pattern" in schema:
        out.append(f"matching `{schema['pattern']}`")
    if "minimum" in schema:
        out.append(f"≥ {schema['minimum']}")
    if "maximum" in schema:
        out.append(f"≤ {schema['maximum']}")
    out += _count_bounds(schema, "minLength", "maxLength", "character")
    out += _count_bounds(schema, "minItems", "maxItems", "item")
    if schema.get("uniqueItems"):
        out.append("no duplicates")
    if "default" in schema:
        out.append(f"default `{_json(schema['default'])}`")
    return (" (" + ", ".join(out) + ")") if out else ""


def _count_bounds(schema: Mapping[str, Any], low_key: str, high_key: str, noun: str) -> list[str]:
    """A length or item-count bound: ``2 to 5 items``, ``at least 1 character``, ``at most 3 items``."""
    low, high = schema.get(low_key), schema.get(high_key)
    if low is not None and high is not None:
        return [f"{low} to {high} {noun}s"]
    if low is not None:
        return [f"at least {low} {noun}{'s' if low != 1 else ''}"]
    if high is not None:
        return [f"at most {high} {noun}{'s' if high != 1 else ''}"]
    return []


def _description(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return ""
    return _escape(str(schema.get("description", "")))


def _escape(text: str) -> str:
    return " ".join(text.split()).replace("<", "&lt;")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _first_sentence(text: str) -> str:
    text = " ".join(str(text).split())
    head, dot, _ = text.partition(". ")
    return _escape(head + ("." if dot else ""))


def _draft(data: Mapping[str, Any]) -> str:
    uri = str(data.get("$schema", ""))
    for needle, name in (("draft-07", "JSON Schema draft-07"), ("2020-12", "JSON Schema 2020-12"), ("2019-09", "JSON Schema 2019-09")):
        if needle in uri:
            return name
    return "JSON Schema"
