"""The compiled schema check (contract.schema_check) gives jsonschema's verdict, valid or not, on
the corpus, the spec, the bad-input files, protocol messages and many mutations of each: a
document it calls valid has no jsonschema error (so skipping jsonschema for it hides nothing), and
one it refuses has at least one (so jsonschema's messages are never asked for nothing)."""

from __future__ import annotations

import copy
import functools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from canasta_conformance.contract import schemas
from canasta_conformance.contract.paths import scenarios_dir, schema_dir, spec_dir
from canasta_conformance.contract.scenario import scenario_files
from canasta_conformance.contract.schema_check import Uncompilable, compile_check, equal
from canasta_conformance.contract.yamlio import YamlError, read_yaml
from canasta_conformance.transports.protocol import reply_definition
from canasta_conformance.transports.server import Server
from canasta_reference import create_engine

TESTS = Path(__file__).resolve().parent
SCHEMA_NAMES = sorted(p.name.removesuffix(".schema.json") for p in schema_dir().glob("*.schema.json"))
PROTOCOL_DEFINITIONS = sorted(schemas.schema("protocol")["definitions"])


@functools.cache
def corpus() -> list[Any]:
    """Every corpus file's data, read when a test first needs it (not by every test process as it
    collects)."""
    return [read_yaml(path).data for path in scenario_files(scenarios_dir())]


#: values put in place of a node: the type confusions and near misses a hand-written file holds
ODD_VALUES: list[Any] = [
    True, False, 0, 1, -1, 1.0, 2.5, 10**6, "", "x", "KH", "JK", "10H", "kh", "yes", "draw", "classic", None,
    [], {}, ["KH"], ["KH", "KH"], [[]], {"type": "draw"}, {"type": "meld", "melds": []}, [1, True], [0, False],
]


def agree(checker: Any, data: Any) -> bool:
    """Assert the compiled verdict is jsonschema's; return it."""
    check = schemas._compiled(checker)
    assert check is not None, "the schema is not compiled: every document would go through jsonschema"
    expected = next(iter(checker.iter_errors(data)), None) is None
    assert check(data) == expected, f"compiled {check(data)}, jsonschema {expected} for {json.dumps(data)[:600]}"
    return expected


def nodes(data: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) of a document."""
    out: list[tuple[Any, Any]] = []
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.extend((node, key) for key in node)
            stack.extend(node.values())
        elif isinstance(node, list):
            out.extend((node, index) for index in range(len(node)))
            stack.extend(node)
    return out


def mutate(data: Any, rng: random.Random) -> Any:
    """A copy of ``data`` with one to three changes: a value replaced (by an odd value or by
    another node of the document), a key or an item removed, an unknown key or an item added."""
    data = copy.deepcopy(data)
    for _ in range(rng.randint(1, 3)):
        places = nodes(data)
        if not places:
            return rng.choice(ODD_VALUES)
        container, key = rng.choice(places)
        change = rng.randrange(5)
        if change == 0:
            container[key] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif change == 1:
            other, other_key = rng.choice(places)
            container[key] = copy.deepcopy(other[other_key])
        elif change == 2:
            del container[key]
        elif isinstance(container, dict):
            container[rng.choice(["extra", "notes", "type", "rank", "seq", key + "s"])] = copy.deepcopy(rng.choice(ODD_VALUES))
        else:
            container.insert(key, copy.deepcopy(container[key] if change == 3 else rng.choice(ODD_VALUES)))
    return data


def test_every_schema_and_every_protocol_message_is_compiled():
    assert [n for n in SCHEMA_NAMES if schemas._compiled(schemas.validator(n)) is None] == []
    assert [d for d in PROTOCOL_DEFINITIONS if schemas._compiled(schemas.definition_validator("protocol", d)) is None] == []


def test_the_corpus_spec_and_bad_input_files_get_jsonschemas_verdict():
    scenario = schemas.validator("scenario")
    assert all(agree(scenario, data) for data in corpus())
    spec_files = {"spec-meta": [spec_dir() / "spec.yaml"], "sources": [spec_dir() / "sources.yaml"],
                  "parameters": [spec_dir() / "parameters.yaml"], "conflicts": [spec_dir() / "conflicts.yaml"],
                  "rules": sorted((spec_dir() / "rules").glob("*.yaml")), "variant": sorted((spec_dir() / "variants").glob("*.yaml"))}
    for name, paths in spec_files.items():
        assert paths and all(agree(schemas.validator(name), read_yaml(path).data) for path in paths), name
    refused = 0
    for path in sorted((TESTS / "bad_input" / "scenario").glob("*.yaml")):
        try:
            data = read_yaml(path).data
        except YamlError:
            continue
        refused += not agree(scenario, data)
    assert refused >= 5


@pytest.mark.parametrize("seed", range(4))
def test_mutated_scenarios_get_jsonschemas_verdict(seed):
    rng = random.Random(seed)
    scenario = schemas.validator("scenario")
    verdicts = [agree(scenario, mutate(rng.choice(corpus()), rng)) for _ in range(150)]
    assert verdicts.count(True) >= 5 and verdicts.count(False) >= 50


def _messages() -> list[tuple[str, str, dict[str, Any]]]:
    """(kind, definition, message): the requests and replies of a served reference engine playing
    the steps of some corpus scenarios."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    server = Server(create_engine())
    seq = 0

    def ask(request: dict[str, Any]) -> None:
        nonlocal seq
        seq += 1
        request = {"seq": seq, **request}
        reply = server.handle(request)
        assert reply is not None
        out.append(("request", "request", request))
        out.append(("reply", reply_definition(request["op"], reply), reply))

    ask({"op": "handshake", "protocol": 1})
    for data in random.Random(0).sample([d for d in corpus() if "position" in d], 25):
        position = {"variant": data.get("variant", "classic"), "options": data.get("options", {}), **data["position"]}
        ask({"op": "load", "position": position})
        ask({"op": "legal_actions"})
        for step in data["steps"]:
            if "action" in step:
                ask({"op": "apply", "action": step["action"]})
        ask({"op": "observe"})
        ask({"op": "score"})
    ask({"op": "no-such-op"})
    return out


def test_protocol_messages_and_their_mutations_get_jsonschemas_verdict():
    messages = _messages()
    rng = random.Random(1)
    verdicts = []
    for _, definition, message in messages:
        checker = schemas.definition_validator("protocol", definition)
        verdicts.append(agree(checker, message))
        for _ in range(3):
            verdicts.append(agree(checker, mutate(message, rng)))
    assert verdicts.count(True) >= 100 and verdicts.count(False) >= 100


def test_json_equality_and_types_follow_draft_7():
    assert equal(1, 1.0) and not equal(True, 1) and not equal(False, 0) and not equal([True], [1])
    assert equal({"a": [1, "x"]}, {"a": [1.0, "x"]}) and not equal({"a": 1}, {"a": 1, "b": 2})
    integer = compile_check({"type": "integer", "minimum": 0})
    assert integer(3) and integer(3.0) and not integer(3.5) and not integer(True) and not integer(-1)
    number = compile_check({"type": "number"})
    assert number(2.5) and not number(False) and not number("2")
    assert not compile_check({"enum": [1, "a"]})(True) and compile_check({"enum": [1, "a"]})(1.0)
    assert not compile_check({"const": False})(0) and compile_check({"const": False})(False)
    unique = compile_check({"uniqueItems": True})
    assert unique([1, True]) and not unique([1, 1.0]) and not unique(["a", "a"]) and unique("not a list")
    one_of = compile_check({"oneOf": [{"type": "integer"}, {"type": "number"}]})
    assert one_of(2.5) and not one_of(2)
    with pytest.raises(Uncompilable):
        compile_check({"type": "integer", "multipleOf": 2})
    with pytest.raises(Uncompilable):
        compile_check({"$ref": "#/definitions/card"})


def test_a_parameter_refuses_exactly_the_values_jsonschema_refuses():
    """Parameter.check answers from its schema's compiled check and asks jsonschema only to
    explain a refusal: every parameter's schema compiles, and on its default, each variant's
    value and the odd values, its verdict is jsonschema's (and a refusal has jsonschema's message)."""
    import jsonschema

    from canasta_conformance.contract import spec as spec_module

    spec = spec_module.load_spec()
    overrides = [variant.overrides for variant in spec.variants.values()]
    refused = 0
    for parameter in spec.parameters.values():
        schema = spec_module.thaw(parameter.schema)
        assert spec_module._parameter_check(json.dumps(schema, sort_keys=True)) is not None, parameter.name
        validator = jsonschema.Draft7Validator(schema)
        values = [parameter.default, *(o[parameter.name] for o in overrides if parameter.name in o), *ODD_VALUES]
        for value in values:
            why = parameter.check(value)
            assert (why is None) == validator.is_valid(spec_module.thaw(value)), (parameter.name, value)
            if why is not None:
                refused += 1
                assert why.startswith(f"{value!r} is not allowed for {parameter.name}: ")
    assert refused > len(spec.parameters)  # the odd values are refused often enough to matter
