"""The JSON Schemas in ``spec/schema``, compiled once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from .cards import TOKENS
from .docpath import PathPart
from .errors import CanastaError
from .paths import schema_dir
from .schema_check import Check, compile_check
from .yamlio import EXCERPT_CHARS, Problem, YamlError, decode_text, display_path, excerpt


class SchemaFileError(CanastaError, ValueError):
    """A schema file of ``spec/schema`` that cannot be read: one :class:`Problem`, never a traceback."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


@cache
def schema(name: str) -> dict[str, Any]:
    """Load ``spec/schema/<name>.schema.json``."""
    return _read_json(schema_dir() / f"{name}.schema.json")


def _read_json(path: Path) -> dict[str, Any]:
    shown = display_path(path)
    try:
        document = json.loads(decode_text(path.read_bytes(), shown))
    except OSError as error:
        raise SchemaFileError(Problem(shown, 0, None, f"cannot read the schema: {error.strerror or error}")) from None
    except YamlError as error:
        raise SchemaFileError(error.problem) from None
    except json.JSONDecodeError as error:
        raise SchemaFileError(Problem(shown, error.lineno, None, f"not JSON: {error.msg} at column {error.colno}")) from None
    except RecursionError:
        raise SchemaFileError(Problem(shown, 0, None, "not JSON: nested too deeply")) from None
    if not isinstance(document, dict):
        raise SchemaFileError(Problem(shown, 1, None, f"a JSON Schema is an object, not {type(document).__name__}"))
    return document


@cache
def _registry() -> Any:
    from referencing import Registry, Resource

    resources = []
    for path in sorted(schema_dir().glob("*.schema.json")):
        resources.append((path.name, Resource.from_contents(_read_json(path))))
    return Registry().with_resources(resources)


@cache
def validator(name: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(_inlined(schema(name), f"{name}.schema.json"), registry=_registry())


#: the compiled check of each validator, keyed by the validator's identity (the validator is kept
#: with it, so a validator built again after its cache is cleared gets its own check)
_CHECKS: dict[int, tuple[jsonschema.Draft7Validator, Check | None]] = {}


def _compiled(checker: jsonschema.Draft7Validator) -> Check | None:
    """The compiled yes-or-no check of a validator's schema, None when it cannot be compiled
    (then jsonschema alone decides)."""
    found = _CHECKS.get(id(checker))
    if found is None or found[0] is not checker:
        try:
            check: Check | None = compile_check(checker.schema)
        except Exception:  # noqa: BLE001 - anything the compiler cannot take is left to jsonschema
            check = None
        found = _CHECKS[id(checker)] = (checker, check)
    return found[1]


def _valid(checker: jsonschema.Draft7Validator, data: Any) -> bool:
    """True when the compiled check finds ``data`` valid (then jsonschema finds no error either);
    False means: ask jsonschema, which explains every error."""
    check = _compiled(checker)
    try:
        return check is not None and check(data)
    except Exception:  # noqa: BLE001 - e.g. a document nested too deeply: jsonschema reports it
        return False


@cache
def definition_validator(name: str, definition: str) -> jsonschema.Draft7Validator:
    """A validator for one definition of ``spec/schema/<name>.schema.json`` (e.g. one protocol message)."""
    if definition not in schema(name).get("definitions", {}):
        raise KeyError(f"{name}.schema.json has no definition {definition!r}")
    return jsonschema.Draft7Validator(_inlined(schema(name)["definitions"][definition], f"{name}.schema.json"), registry=_registry())


CARD_PATTERN = "^(?:[2-9TJQKA][CDHS]|JK)$"
_CARD_ENUM = list(TOKENS)


def _inlined(node: Any, base: str, depth: int = 0) -> Any:
    """The schema with every ``$ref`` replaced by its target (our schemas are not recursive).
    Resolving references while validating costs most of the time of loading a scenario."""
    if depth > 50:
        raise ValueError(f"{base}: $ref nesting too deep (a recursive schema?)")
    if isinstance(node, list):
        return [_inlined(item, base, depth) for item in node]
    if not isinstance(node, dict):
        return node
    if node.get("enum") == _CARD_ENUM:  # the same check as the 53-token enum, without 53 comparisons a card
        return {**{k: v for k, v in node.items() if k != "enum"}, "type": "string", "pattern": CARD_PATTERN}
    if "$ref" in node and isinstance(node["$ref"], str):
        target_file, _, pointer = node["$ref"].partition("#")
        target_file = target_file or base
        target: Any = schema(target_file.removesuffix(".schema.json"))
        for part in filter(None, pointer.split("/")):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        resolved = _inlined(target, target_file, depth + 1)
        return {**resolved, **_inlined(siblings, base, depth)} if siblings and isinstance(resolved, dict) else resolved
    return {key: (_inlined(value, base, depth) if key not in ("enum", "const", "default", "examples") else value) for key, value in node.items()}


def schema_errors(name: str, data: Any) -> Iterator[tuple[list[PathPart], str]]:
    """Every schema violation of ``data``: (path inside the document, message). A document the
    compiled check (:mod:`.schema_check`) finds valid has none; any other is walked by jsonschema."""
    try:
        checker = validator(name)
        if _valid(checker, data):
            return
        errors = sorted(checker.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    except SchemaFileError:
        raise
    except (KeyError, TypeError, ValueError, LookupError, jsonschema.SchemaError) as error:
        shown = display_path(schema_dir() / f"{name}.schema.json")
        raise SchemaFileError(Problem(shown, 0, None, f"the schema does not work: {type(error).__name__}: {error}")) from None
    for found in errors:
        yield _located(found)


def definition_errors(name: str, definition: str, data: Any) -> Iterator[tuple[list[PathPart], str]]:
    """Like :func:`schema_errors`, against one definition of a schema file."""
    checker = definition_validator(name, definition)
    if _valid(checker, data):
        return
    errors = checker.iter_errors(data)
    for error in sorted(errors, key=lambda e: list(map(str, e.absolute_path))):
        yield _located(error)


def _located(error: jsonschema.ValidationError) -> tuple[list[PathPart], str]:
    """Where the error is and what it says. For a oneOf whose meant branch is clear (the one whose
    ``type`` matched), the error inside that branch, at its own place in the document."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        meant = _meant_branch(error)
        if meant is not None:
            return _located(meant)
    return list(error.absolute_path), _message(error)


def _message(error: jsonschema.ValidationError) -> str:
    """The message of a schema error, quoting at most an excerpt of the value at fault."""
    message = _full_message(error)
    quoted = repr(error.instance)
    return message.replace(quoted, excerpt(error.instance)) if len(quoted) > EXCERPT_CHARS else message


def _full_message(error: jsonschema.ValidationError) -> str:
    listed = error.validator_value if isinstance(error.validator_value, list) else []  # an enum's values
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown key")
    if (error.validator == "pattern" and error.validator_value == CARD_PATTERN) or (
        error.validator == "enum" and len(listed) > 20 and "JK" in listed
    ):
        return (f"{error.instance!r} is not a card token: a rank (A K Q J T 9 8 7 6 5 4 3 2) and a "
                f"suit (C D H S), e.g. 'KH' or 'TD', or 'JK' for a joker")
    if error.validator == "enum" and isinstance(error.instance, bool) and {"yes", "no"} & set(map(str, listed)):
        word = "yes" if error.instance else "no"
        return f"{error.instance!r} is not one of {error.validator_value!r}: YAML reads a bare {word} as a boolean, write \"{word}\" in quotes"
    if error.validator in ("oneOf", "anyOf") and error.context:
        return _branch_message(error)
    return error.message


def _meant_branch(error: jsonschema.ValidationError) -> jsonschema.ValidationError | None:
    """The first error of the oneOf branch the document meant (the one branch whose ``type``
    matched), or None when that is not clear."""
    branches: dict[str | int, list[jsonschema.ValidationError]] = {}
    for sub in error.context or ():
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    meant = [errs for errs in branches.values() if not any(list(e.relative_path)[:1] == ["type"] for e in errs)]
    if len(meant) == 1 and len(meant[0]) < len(error.context or ()):
        return meant[0][0]
    return None


def _branch_message(error: jsonschema.ValidationError) -> str:
    """For a oneOf, explain the branch the document meant (its error's place is found by
    :func:`_located`)."""
    meant = _meant_branch(error)
    if meant is not None:
        return _message(meant)
    if isinstance(error.instance, dict) and "type" in error.instance:
        return f"{error.instance['type']!r} is not a known type, or the keys do not fit it"
    best = jsonschema.exceptions.best_match(error.context)
    return _message(best)
