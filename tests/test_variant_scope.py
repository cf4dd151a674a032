"""The rule-to-variant scope (``variants:`` / ``except_variants:`` in spec/rules) and per-variant
coverage: a rule is asked of the rule sets it belongs to, not of every variant that happens to
share one of its parameter values."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from canasta_conformance.contract.paths import scenarios_dir, spec_dir
from canasta_conformance.contract.spec import load_spec, read_spec
from canasta_conformance.tools.cli import main
from canasta_conformance.tools.coverage import compute_variant_coverage
from corpus_once import PROBLEMS, SCENARIOS

SPEC = load_spec()


@pytest.fixture(scope="module")
def by_variant():  # type: ignore[no-untyped-def]
    scenarios, problems = SCENARIOS, PROBLEMS
    assert problems == []
    return {entry.variant: entry for entry in compute_variant_coverage(SPEC, scenarios)}


def test_a_modern_rule_is_asked_only_of_modern_american(by_variant) -> None:  # type: ignore[no-untyped-def]
    assert SPEC.rules["modern.deal.thirteen"].variants == ("modern-american",)
    # classic-3p and classic-6p deal thirteen cards too, but the Modern deal is not their rule
    for variant in ("classic-2p", "classic-3p", "classic-6p", "hoyle-computer-2p"):
        assert not any(rule.startswith("modern.") for rule in by_variant[variant].specific), variant
    assert "modern.deal.thirteen" in by_variant["modern-american"].specific


def test_a_classic_rule_that_modern_replaces_is_not_a_gap_of_modern(by_variant) -> None:  # type: ignore[no-untyped-def]
    rule = SPEC.rules["meld.no-wild-only"]
    assert "modern-american" in rule.except_variants and rule.holds_in("classic") and not rule.holds_in("modern-american")
    assert "meld.no-wild-only" not in by_variant["modern-american"].specific


def test_scoped_rules_are_pinned_only_by_scenarios_of_their_variant(by_variant) -> None:  # type: ignore[no-untyped-def]
    three = by_variant["classic-3p"]
    for rule in ("setup.three-player.lone-hand", "setup.three-player.score"):
        assert rule in three.specific
        assert three.pinned[rule] and all("classic-3p" in sid for sid in three.pinned[rule])
    assert "red3.all-four.one-player" in by_variant["regal"].specific
    assert "red3.all-four.one-player" not in by_variant["classic-6p"].specific  # same all-four parameter, not its rule


def test_every_declared_variant_has_its_specific_rules_pinned(by_variant) -> None:  # type: ignore[no-untyped-def]
    assert {variant: entry.uncovered for variant, entry in by_variant.items() if entry.uncovered} == {}


def test_validate_rejects_a_scope_naming_an_unknown_variant(tmp_path: Path) -> None:
    copy = tmp_path / "spec"
    shutil.copytree(spec_dir(), copy)
    red3 = copy / "rules" / "red3.yaml"
    red3.write_text(red3.read_text(encoding="utf-8").replace("variants: [regal]", "variants: [regall]"), encoding="utf-8")
    problems = [str(p) for p in read_spec(copy).problems]
    assert any("unknown variant 'regall'" in p and "red3.yaml" in p for p in problems), problems


def test_plain_coverage_fails_naming_a_declared_variants_gap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "scenarios"
    shutil.copytree(scenarios_dir(), copy)
    for path in copy.rglob("*.yaml"):
        if "setup.three-player.stock-out" in path.read_text(encoding="utf-8"):
            path.unlink()
    assert main(["coverage", str(copy)]) == 1
    err = capsys.readouterr().err
    assert "variant classic-3p: no scenario pins setup.three-player.stock-out" in err
