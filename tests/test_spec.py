"""The rules specification: its size, its cross-checks, and the `canasta spec` views."""

from __future__ import annotations

import copy as copy_module
import shutil
from pathlib import Path

import pytest
import yaml

from canasta_conformance.contract.paths import spec_dir
from canasta_conformance.contract.spec import load_spec, read_spec
from canasta_conformance.tools.cli import main

SPEC = load_spec()


def test_the_spec_is_complete_enough():
    assert len(SPEC.rules) >= 170
    assert all(rule.sources for rule in SPEC.rules.values())
    assert len(SPEC.variants) >= 9
    assert len(SPEC.conflicts) >= 35
    assert all(c.default and len(c.readings) >= 2 for c in SPEC.conflicts.values())


def test_every_rule_id_is_well_formed_and_in_its_area():
    for rule in SPEC.rules.values():
        assert rule.id.split(".")[0] == rule.area
        assert rule.area in SPEC.areas


def test_every_variant_resolves_to_valid_values():
    for variant in SPEC.variants:
        values = SPEC.variant_parameters(variant)
        for name, parameter in SPEC.parameters.items():
            assert parameter.check(values[name]) is None, (variant, name)


def test_sources_and_variants_are_named_for_what_they_are():
    # a reader meets these ids and titles on the site: no name taken from the project's own file names
    for source in SPEC.sources.values():
        assert "seed" not in source.id and "seed" not in source.title.lower(), source.id
    for variant in SPEC.variants.values():
        assert "seed" not in variant.id and "seed" not in variant.title.lower(), variant.id
    assert sum(source.primary for source in SPEC.sources.values()) == 9


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "spec"
    shutil.copytree(spec_dir(), target)
    return target


def problems(root: Path) -> list[str]:
    return [str(p) for p in read_spec(root).problems]


def test_the_spec_itself_has_no_problems():
    assert problems(spec_dir()) == []


def test_a_duplicate_rule_id_is_reported_with_file_and_path(copy):
    path = copy / "rules" / "pile.yaml"
    data = yaml.safe_load(path.read_text())
    data["rules"].append(copy_module.deepcopy(data["rules"][0]))  # a deep copy: shared objects would be dumped as YAML aliases
    path.write_text("# yaml-language-server: $schema=../schema/rules.schema.json\n" + yaml.safe_dump(data, sort_keys=False))
    found = problems(copy)
    index = len(data["rules"]) - 1
    assert len(found) == 1
    assert "rules/pile.yaml:" in found[0]
    assert f": rules[{index}].id: duplicate rule id {data['rules'][0]['id']!r}" in found[0]


def test_an_unknown_parameter_in_a_variant_is_reported(copy):
    path = copy / "variants" / "classic-2p.yaml"
    path.write_text(path.read_text().replace("parameters:", "parameters:\n  meld.no_such_thing: 3", 1))
    found = problems(copy)
    assert len(found) == 1
    assert "variants/classic-2p.yaml:" in found[0] and "parameters.meld.no_such_thing: unknown parameter 'meld.no_such_thing'" in found[0]


def test_an_out_of_range_value_is_reported(copy):
    path = copy / "variants" / "classic-2p.yaml"
    data = yaml.safe_load(path.read_text())
    data["parameters"]["players"] = 9
    data["parameters"]["going_out.final_discard"] = "sometimes"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    found = problems(copy)
    assert any("variants/classic-2p.yaml:" in p and "parameters.players: 9 is not allowed for players: 9 is greater than the maximum of 6" in p for p in found)
    assert any("parameters.going_out.final_discard: 'sometimes' is not allowed" in p for p in found)
    assert len(found) == 2


def test_a_conflict_naming_an_unknown_rule_is_reported(copy):
    path = copy / "conflicts.yaml"
    path.write_text(path.read_text().replace("rules: [", "rules: [pile.not-a-rule, ", 1))
    found = problems(copy)
    assert len(found) == 1 and "conflicts.yaml:" in found[0] and "unknown rule 'pile.not-a-rule'" in found[0]


def test_a_rule_citing_an_unknown_parameter_or_source_is_reported(copy):
    path = copy / "rules" / "meld.yaml"
    data = yaml.safe_load(path.read_text())
    data["rules"][0]["parameters"] = ["meld.nope"]
    data["rules"][0]["sources"][0]["source"] = "nowhere"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    found = problems(copy)
    assert any("rules[0].parameters[0]: unknown parameter 'meld.nope'" in p for p in found)
    assert any("rules[0].sources[0].source: unknown source 'nowhere'" in p for p in found)


def test_validate_exits_non_zero_on_a_broken_spec(copy, monkeypatch, capsys):
    path = copy / "variants" / "classic-2p.yaml"
    path.write_text(path.read_text().replace("parameters:", "parameters:\n  meld.no_such_thing: 3", 1))
    import canasta_conformance.tools.cli as cli

    monkeypatch.setattr(cli, "spec_dir", lambda: copy)
    assert main(["validate"]) == 1
    assert "unknown parameter 'meld.no_such_thing'" in capsys.readouterr().out


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(["spec", *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_spec_diff_prints_every_differing_parameter(capsys):
    code, out = run(capsys, "diff", "classic", "modern-american")
    assert code == 0
    classic = SPEC.variant_parameters("classic")
    modern = SPEC.variant_parameters("modern-american")
    differing = [n for n in SPEC.parameters if classic[n] != modern[n]]
    assert differing
    for name in differing:
        assert any(line.split()[0] == name for line in out.splitlines() if line.strip())
    assert f"{len(differing)} of {len(SPEC.parameters)} parameters differ" in out


def test_spec_show_gives_the_rule_and_its_parameters_per_variant(capsys):
    code, out = run(capsys, "show", "going_out.canastas_required".replace("going_out.canastas_required", "out.requires-canasta"))
    assert code == 0
    assert out.startswith("out.requires-canasta: ")
    assert "going_out.canastas_required" in out
    assert "classic-2p" in out and "(differs from Classic)" in out


def test_spec_list_by_area_and_unknown_names(capsys):
    code, out = run(capsys, "list", "--area", "pile")
    assert code == 0 and "pile.blocked.wild-top" in out and "meld.min-cards" not in out
    assert run(capsys, "show", "pile.nope")[0] == 2
    assert run(capsys, "diff", "classic", "nope")[0] == 2


def test_spec_show_of_an_unknown_rule_suggests_the_rules_it_begins(capsys):
    assert main(["spec", "show", "pile.froze"]) != 0
    said = capsys.readouterr()
    suggested = (said.err + said.out).split("did you mean: ", 1)[1].rstrip(")\n").split(", ")
    assert suggested and all(rule.startswith("pile.froze") for rule in suggested), suggested
