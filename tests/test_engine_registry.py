"""Installed engines by name (the ``canasta.engines`` entry-point group), and "did you mean"."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from canasta_conformance.contract.engine_protocol import ENGINE_GROUP, EngineLoadError, resolve_factory
from canasta_conformance.contract.scenario import load_scenario
from canasta_conformance.contract.spec import VariantError, load_spec
from canasta_conformance.contract.suggest import did_you_mean
from canasta_reference.engine import ReferenceEngine
from example_scenario import EXAMPLE


def install_fake_distribution(root: Path, engines: dict[str, str]) -> None:
    info = root / "fake_canasta_engines-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-canasta-engines\nVersion: 1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in engines.items())
    (info / "entry_points.txt").write_text(f"[{ENGINE_GROUP}]\n{lines}")


def test_an_installed_engine_is_found_by_name(tmp_path, monkeypatch):
    install_fake_distribution(tmp_path, {"house-oracle": "canasta_reference:create_engine"})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert isinstance(resolve_factory("house-oracle")(), ReferenceEngine)
    with pytest.raises(EngineLoadError, match="did you mean 'house-oracle'"):
        resolve_factory("house-orcle")


def test_the_reference_engine_is_registered_under_the_group():
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    registered = pyproject["project"]["entry-points"][ENGINE_GROUP]
    assert registered["reference"] == "canasta_reference:create_engine"
    assert resolve_factory(registered["reference"]) is not None


def test_did_you_mean_names_the_closest_known_names():
    assert did_you_mean("clasic", ["classic", "modern-american"]) == " (did you mean 'classic'?)"
    assert did_you_mean("zzz", ["classic"]) == ""


def test_unknown_variants_options_and_rules_suggest_the_close_ones(tmp_path):
    spec = load_spec()
    with pytest.raises(VariantError, match="did you mean 'classic'"):
        spec.variant_parameters("clasic")
    assert "did you mean 'meld.max_wilds'" in spec.option_problems({"meld.max_wild": 2})[0]
    folder = tmp_path / "pile"
    folder.mkdir()
    path = folder / "typo-case.yaml"
    path.write_text(EXAMPLE.format(id="typo-case").replace("pile.blocked.wild-top", "pile.blocked.wild-tip", 1))
    with pytest.raises(Exception, match=re.escape("did you mean 'pile.blocked.wild-top'")):
        load_scenario(path, spec)
