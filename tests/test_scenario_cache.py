"""The scenario cache answers only for unchanged files in an unchanged context."""

from __future__ import annotations

import shutil

import pytest

from canasta_conformance.contract import spec as spec_module
from canasta_conformance.contract.paths import scenarios_dir
from canasta_conformance.contract.scenario import ScenarioError, load_scenario, scenario_files
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.contract.tiers import scenario_tier
from canasta_conformance.running import scenario_cache
from canasta_conformance.running.scenario_cache import cache_root, load_scenario_cached
from example_scenario import EXAMPLE

SPEC = load_spec()
FILES = scenario_files(scenarios_dir())


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("CANASTA_CACHE_DIR", str(folder))
    return folder


def write(tmp_path, name, text=None):
    folder = tmp_path / "scenarios" / "pile"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(text if text is not None else EXAMPLE.format(id=name))
    return path


def test_a_cached_scenario_equals_a_fresh_load_and_is_not_parsed_again(tmp_path, cache_dir, monkeypatch):
    path = write(tmp_path, "cached-one")
    first = load_scenario_cached(path, SPEC)
    assert list(cache_dir.rglob("*.pickle"))
    monkeypatch.setattr(scenario_cache, "load_scenario", lambda *a: pytest.fail("parsed again"))
    assert load_scenario_cached(path, SPEC) == first == load_scenario(path, SPEC)


def test_an_entry_read_back_gives_what_collection_needs_and_the_scenario_only_when_asked(tmp_path, cache_dir):
    path = write(tmp_path, "collected-one")
    fresh = load_scenario(path, SPEC)
    assert scenario_cache.load_cached(path, SPEC).scenario() == fresh  # written
    read = scenario_cache.load_cached(path, SPEC)
    assert isinstance(read.held, bytes)  # the scenario still pickled: collecting does not rebuild it
    assert (read.id, read.rules, read.rule_areas) == (fresh.id, fresh.rules, fresh.rule_areas)
    assert read.tier == scenario_tier(fresh, SPEC)
    assert read.scenario() == fresh


def test_the_cached_tier_is_the_tier_computed_afresh(tmp_path, cache_dir, monkeypatch):
    sample = [write(tmp_path, "tiered-one"), *FILES[::20]]  # every twentieth corpus file: both tiers
    fresh = [scenario_tier(load_scenario(path, SPEC), SPEC) for path in sample]
    assert {tier.name for tier in fresh} == {"core", "reading"}
    assert [scenario_cache.load_cached(path, SPEC).tier for path in sample] == fresh  # stored
    monkeypatch.setattr(scenario_cache, "load_scenario", lambda *a: pytest.fail("parsed again"))
    monkeypatch.setattr(scenario_cache, "scenario_tier", lambda *a: pytest.fail("tier computed again"))
    assert [scenario_cache.load_cached(path, SPEC).tier for path in sample] == fresh  # read back


def test_a_changed_file_is_loaded_again(tmp_path, cache_dir):
    path = write(tmp_path, "changed-one")
    load_scenario_cached(path, SPEC)
    path.write_text(EXAMPLE.format(id="changed-one").replace("title: A wild", "title: Changed, a wild", 1))
    assert load_scenario_cached(path, SPEC).title.startswith("Changed, a wild")
    path.write_text(EXAMPLE.format(id="changed-one").replace("[4D, 4H]", "[4D, 4X]"))
    with pytest.raises(ScenarioError, match="4X"):
        load_scenario_cached(path, SPEC)


def test_a_corrupt_entry_is_a_miss(tmp_path, cache_dir):
    path = write(tmp_path, "corrupt-one")
    load_scenario_cached(path, SPEC)
    for entry in cache_dir.rglob("*.pickle"):
        entry.write_bytes(b"not a pickle")
    assert load_scenario_cached(path, SPEC) == load_scenario(path, SPEC)


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("CANASTA_CACHE_DIR", "off")
    assert cache_root() is None
    path = write(tmp_path, "uncached-one")
    assert load_scenario_cached(path, SPEC) == load_scenario(path, SPEC)


def test_a_cached_scenario_is_sound_in_another_process(tmp_path, cache_dir):
    """String hashes differ between processes: cards read from the cache must hash afresh."""
    import subprocess
    import sys

    path = write(tmp_path, "cross-process")
    code = (
        "import sys; from pathlib import Path; from collections import Counter; "
        "from canasta_conformance.running.scenario_cache import load_scenario_cached; "
        "from canasta_conformance.contract.spec import load_spec; from canasta_conformance.contract.cards import full_deck; "
        "s = load_scenario_cached(Path(sys.argv[1]), load_spec()); deck = Counter(full_deck()); "
        "print(all(deck[c] for c in s.position.all_cards()))"
    )
    runs = [subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True).stdout.strip() for _ in range(2)]
    assert runs == ["True", "True"]  # the first run writes the entry, the second reads it


def test_the_spec_is_read_back_from_the_cache_and_read_again_when_a_file_changes(tmp_path, cache_dir, monkeypatch):
    root = tmp_path / "spec"
    shutil.copytree(SPEC.root, root)
    load = spec_module.load_spec.__wrapped__  # as another process would: without the in-process cache
    first = load(root)
    assert list(cache_dir.rglob("spec.pickle"))
    with monkeypatch.context() as patched:
        patched.setattr(spec_module, "read_spec", lambda *a: pytest.fail("parsed again"))
        again = load(root)
    assert again is not first and again.root == root
    assert (again.rules, again.parameters, again.variants, again.conflicts) == (first.rules, first.parameters, first.variants, first.conflicts)
    assert again.variant_rules("classic") == first.variant_rules("classic") == SPEC.variant_rules("classic")
    meta = root / "spec.yaml"
    meta.write_text(meta.read_text(encoding="utf-8").replace("version: 0.1.0", "version: 9.9.9", 1), encoding="utf-8")
    assert load(root).version == "9.9.9"
