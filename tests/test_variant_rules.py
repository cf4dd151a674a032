"""The typed variant view matches the parameter catalogue exactly, and nothing else reads a
parameter by its dotted name."""

from __future__ import annotations

import ast
import typing
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import pytest

from canasta_conformance.contract.cards import card, cards
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.contract.variant_rules import InitialMeldRow, VariantRules, field_name, parameter_fields

SPEC = load_spec()
HINTS = typing.get_type_hints(VariantRules)


def test_every_parameter_has_one_typed_field_and_every_field_a_parameter():
    fields = [f.name for f in parameter_fields()]
    assert sorted(fields) == sorted(field_name(name) for name in SPEC.parameters)
    assert len(set(fields)) == len(fields)


def _expected_annotation(schema: dict[str, Any]) -> Any:
    """The Python type a parameter's JSON Schema asks for."""
    if "enum" in schema:
        return Literal[tuple(schema["enum"])]
    kind = schema["type"]
    if kind == "integer":
        return int
    if kind == "boolean":
        return bool
    if kind == ["integer", "null"]:
        return int | None
    if kind == "array" and "enum" in schema["items"]:
        return frozenset[Literal[tuple(schema["items"]["enum"])]]  # type: ignore[misc]
    if kind == "array" and schema["items"].get("type") == "object":
        return tuple[InitialMeldRow, ...]
    if kind == "array" and schema["items"].get("type") == "integer":
        return tuple[int, ...]
    if kind == "object" and all(p.get("type") == "integer" for p in schema["properties"].values()):
        return Mapping[str, int]
    raise AssertionError(f"no Python type known for the schema {schema}")


@pytest.mark.parametrize("name", sorted(SPEC.parameters))
def test_each_field_has_the_type_its_schema_asks_for(name):
    expected = _expected_annotation(dict(SPEC.parameters[name].schema))
    actual = HINTS[field_name(name)]
    if typing.get_origin(expected) is Literal:
        assert typing.get_origin(actual) is Literal and set(typing.get_args(actual)) == set(typing.get_args(expected)), name
    elif typing.get_origin(expected) is frozenset:
        (item,) = typing.get_args(actual)
        assert typing.get_origin(actual) is frozenset, name
        assert set(typing.get_args(item)) == set(typing.get_args(typing.get_args(expected)[0])), name
    else:
        assert actual == expected, name


@pytest.mark.parametrize("variant", sorted(SPEC.variants))
def test_every_variant_is_filled_with_its_resolved_values(variant):
    raw = SPEC.variant_parameters(variant)
    rules = SPEC.variant_rules(variant)
    for name, value in raw.items():
        typed = getattr(rules, field_name(name))
        if isinstance(typed, frozenset):
            assert typed == frozenset(value), name
        elif name == "initial_meld.table":
            assert [(row.from_score, row.minimum) for row in typed] == [(row["from"], row["minimum"]) for row in value]
        else:
            assert typed == value and type(typed) is type(value), name


def test_options_reach_the_typed_view():
    rules = SPEC.variant_rules("classic", {"meld.max_wilds": 2, "cards.wild_ranks": ["JK"]})
    assert rules.meld_max_wilds == 2 and rules.cards_wild_ranks == frozenset({"JK"})
    assert not rules.is_wild(card("2C")) and SPEC.variant_rules("classic").is_wild(card("2C"))


def test_a_catalogue_parameter_without_a_field_is_named():
    raw = dict(SPEC.variant_parameters("classic"))
    with pytest.raises(KeyError, match="meld_shiny"):
        VariantRules.from_parameters({**raw, "meld.shiny": True})
    del raw["meld.max_wilds"]
    with pytest.raises(KeyError, match="meld_max_wilds"):
        VariantRules.from_parameters(raw)


def test_card_values_follow_the_parameters():
    raw = SPEC.variant_parameters("classic")
    rules = replace(SPEC.variant_rules("classic"), card_value_king_to_eight=11, card_value_black_three=7)
    assert rules.value(card("KH")) == rules.value(card("8S")) == 11
    assert rules.value(card("7H")) == raw["card_value.seven_to_four"]
    assert rules.value(card("3S")) == 7 and rules.value(card("3H")) == 0
    assert rules.count(cards("JK 2C AD")) == raw["card_value.joker"] + raw["card_value.two"] + raw["card_value.ace"]


def test_the_initial_minimum_is_read_from_the_table():
    rules = replace(SPEC.variant_rules("classic"), initial_meld_table=(
        InitialMeldRow(None, 10), InitialMeldRow(0, 40), InitialMeldRow(100, 70),
    ))
    assert [rules.initial_minimum(s) for s in (-5, 0, 99, 100, 10_000)] == [10, 40, 40, 70, 70]


def test_freezing_cards_follow_the_variant():
    classic = SPEC.variant_rules("classic")
    assert [classic.freezes_pile(card(t)) for t in ("JK", "2C", "3D", "3S", "KH")] == [True, True, True, False, False]
    freezing_threes = replace(classic, black_three_discard_effect="freeze", pile_frozen_by_red_three=False)
    assert [freezing_threes.freezes_pile(card(t)) for t in ("3D", "3S")] == [False, True]
    assert replace(classic, pile_always_frozen=True).pile_frozen_by([]) and not classic.pile_frozen_by(cards("KH 4C"))


def test_the_meld_shape_names_the_rule_it_breaks():
    classic = SPEC.variant_rules("classic")
    assert classic.meld_shape_fault(cards("KH KS JK")) is None
    assert [
        getattr(classic.meld_shape_fault(cards(meld)), "rule", None)
        for meld in ("KH KS", "KH 2C JK", "KH KS KD 2C 2D JK 2S")
    ] == ["meld.min-cards", "meld.min-naturals", "meld.max-wilds"]
    ratio = replace(classic, meld_wilds_not_more_than_naturals=True)
    assert ratio.meld_shape_fault(cards("KH KS 2C 2D JK")).rule == "meld.wild-ratio"  # type: ignore[union-attr]
    assert classic.wild_limit_fault(cards("KH KS 2C 2D JK 2S"), "meld.merge-wild-limit").rule == "meld.merge-wild-limit"  # type: ignore[union-attr]


PACKAGES = [
    Path(__import__("canasta_conformance").__file__).parent,
    Path(__import__("canasta_reference").__file__).parent,
]


def _raw_parameter_reads(path: Path, names: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and isinstance(node.args[0], ast.Constant)):
            key = node.args[0].value
        if isinstance(key, str) and key in names and "." in key:
            found.append(f"{path.name}:{node.lineno}: {key}")
    return found


def test_no_package_module_reads_a_parameter_by_its_dotted_name():
    names = set(SPEC.parameters)
    found = [hit for root in PACKAGES for path in sorted(root.rglob("*.py")) for hit in _raw_parameter_reads(path, names)]
    assert found == []


def test_the_raw_read_check_can_fail(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('def f(params):\n    return params["meld.max_wilds"], params.get("pile.always_frozen")\n')
    assert len(_raw_parameter_reads(sample, set(SPEC.parameters))) == 2
