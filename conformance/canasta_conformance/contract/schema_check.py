"""A JSON Schema compiled into one yes-or-no check, for the documents that are valid.

``jsonschema`` explains every violation, which the messages need, but walking a scenario with it
costs most of the time of loading one. A valid document has nothing to explain: :func:`compile_check`
turns a schema (``$ref`` already inlined, see :mod:`.schemas`) into nested closures that answer only
"valid or not", with draft 7's meaning of each keyword (``jsonschema``'s types: an integer may be
written ``1.0``, a boolean is not a number; ``enum`` and ``const`` tell ``true`` from ``1``;
``pattern`` searches). :func:`.schemas.schema_errors` asks it first and hands a document it refuses
to ``jsonschema`` for the messages, so the compiled check never decides a message and never hides a
violation on its own: ``tests/test_schema_check.py`` compares the two verdicts on the corpus, the
spec and mutated documents.

A schema using a keyword outside :data:`KEYWORDS` (or :data:`ANNOTATIONS`) is not compiled
(:class:`Uncompilable`): such a schema is checked by ``jsonschema`` alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from .errors import CanastaError

Check = Callable[[Any], bool]

#: the validation keywords compiled here (draft 7)
KEYWORDS = frozenset({
    "type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
    "propertyNames", "minProperties", "maxProperties", "items", "additionalItems", "minItems", "maxItems",
    "uniqueItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
    "maxLength", "pattern", "allOf", "anyOf", "oneOf", "not",
})
#: keywords that never change the verdict
ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "default", "examples", "definitions", "readOnly", "writeOnly"})


class Uncompilable(CanastaError, ValueError):
    """The schema uses something :func:`compile_check` does not compile."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


_TYPES: dict[str, Check] = {
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "integer": _is_integer,
    "null": lambda v: v is None,
    "number": _is_number,
    "object": lambda v: isinstance(v, dict),
    "string": lambda v: isinstance(v, str),
}


def equal(one: Any, two: Any) -> bool:
    """JSON equality: ``true`` is not ``1``, ``1`` is ``1.0``, containers compare item by item."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(equal(one[key], two[key]) for key in one)
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one is two
    if isinstance(one, (list, dict)) or isinstance(two, (list, dict)):
        return False
    return bool(one == two)


def _unique(items: list[Any]) -> bool:
    if all(isinstance(item, str) for item in items):
        return len(set(items)) == len(items)
    return not any(equal(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, len(items)))


def compile_check(schema: Any) -> Check:
    """The yes-or-no check of ``schema`` (a draft 7 schema without ``$ref``)."""
    if schema is True:
        return lambda value: True
    if schema is False:
        return lambda value: False
    if not isinstance(schema, Mapping):
        raise Uncompilable(f"a schema is an object or a boolean, not {type(schema).__name__}")
    unknown = set(schema) - KEYWORDS - ANNOTATIONS
    if unknown:
        raise Uncompilable(f"keywords not compiled: {sorted(unknown)}")
    checks: list[Check] = []
    for keyword in schema:
        check = _compile_keyword(schema, keyword) if keyword in KEYWORDS else None
        if check is not None:
            checks.append(check)
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(each(value) for each in checks)


def _compile_keyword(schema: Mapping[str, Any], keyword: str) -> Check | None:
    value = schema[keyword]
    if keyword == "type":
        names = [value] if isinstance(value, str) else list(value)
        try:
            tests = [_TYPES[name] for name in names]
        except (KeyError, TypeError):
            raise Uncompilable(f"type {value!r}") from None
        if len(tests) == 1:
            return tests[0]
        return lambda v: any(test(v) for test in tests)
    if keyword == "enum":
        options = list(value)
        if options and all(isinstance(o, str) for o in options):
            strings = frozenset(options)
            return lambda v: isinstance(v, str) and v in strings
        return lambda v: any(equal(v, option) for option in options)
    if keyword == "const":
        return lambda v: equal(v, value)
    if keyword == "properties":
        children = [(name, compile_check(sub)) for name, sub in value.items()]
        return lambda v: not isinstance(v, dict) or all(check(v[name]) for name, check in children if name in v)
    if keyword == "required":
        names = list(value)
        return lambda v: not isinstance(v, dict) or all(name in v for name in names)
    if keyword == "additionalProperties":
        known = frozenset(schema.get("properties", {}))
        patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
        extra = compile_check(value)

        def additional(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            return all(
                extra(item) for key, item in v.items()
                if key not in known and not any(p.search(key) for p in patterns)
            )
        return additional
    if keyword == "patternProperties":
        compiled = [(re.compile(p), compile_check(sub)) for p, sub in value.items()]
        return lambda v: not isinstance(v, dict) or all(
            check(item) for key, item in v.items() for pattern, check in compiled if pattern.search(key)
        )
    if keyword == "propertyNames":
        names_check = compile_check(value)
        return lambda v: not isinstance(v, dict) or all(names_check(key) for key in v)
    if keyword == "minProperties":
        return lambda v: not isinstance(v, dict) or len(v) >= value
    if keyword == "maxProperties":
        return lambda v: not isinstance(v, dict) or len(v) <= value
    if keyword == "items":
        if isinstance(value, list):
            prefix = [compile_check(sub) for sub in value]
            rest = compile_check(schema.get("additionalItems", True))
            return lambda v: not isinstance(v, list) or (
                all(check(item) for check, item in zip(prefix, v, strict=False)) and all(rest(item) for item in v[len(prefix):])
            )
        each = compile_check(value)
        return lambda v: not isinstance(v, list) or all(each(item) for item in v)
    if keyword == "additionalItems":
        compile_check(value)  # checked with a list of items (above); alone it changes nothing
        return None
    if keyword == "minItems":
        return lambda v: not isinstance(v, list) or len(v) >= value
    if keyword == "maxItems":
        return lambda v: not isinstance(v, list) or len(v) <= value
    if keyword == "uniqueItems":
        return (lambda v: not isinstance(v, list) or _unique(v)) if value else None
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if not _is_number(value):
            raise Uncompilable(f"{keyword} {value!r}")
        compare: dict[str, Check] = {
            "minimum": lambda v: v >= value, "maximum": lambda v: v <= value,
            "exclusiveMinimum": lambda v: v > value, "exclusiveMaximum": lambda v: v < value,
        }
        test = compare[keyword]
        return lambda v: not _is_number(v) or test(v)
    if keyword == "minLength":
        return lambda v: not isinstance(v, str) or len(v) >= value
    if keyword == "maxLength":
        return lambda v: not isinstance(v, str) or len(v) <= value
    if keyword == "pattern":
        search = re.compile(value).search
        return lambda v: not isinstance(v, str) or search(v) is not None
    if keyword in ("allOf", "anyOf", "oneOf"):
        subs = [compile_check(sub) for sub in value]
        if keyword == "allOf":
            return lambda v: all(check(v) for check in subs)
        if keyword == "anyOf":
            return lambda v: any(check(v) for check in subs)
        return lambda v: sum(1 for check in subs if check(v)) == 1
    if keyword == "not":
        inner = compile_check(value)
        return lambda v: not inner(v)
    raise Uncompilable(keyword)  # pragma: no cover - KEYWORDS lists only the branches above
