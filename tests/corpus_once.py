"""The spec and the scenario corpus, loaded once per test process: many test modules read the
whole corpus, and each loading it again cost every xdist worker a second or more a module."""

from __future__ import annotations

from canasta_conformance.contract.paths import scenarios_dir
from canasta_conformance.contract.scenario import load_scenarios, scenario_files
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.scenario_cache import load_scenario_cached

SPEC = load_spec()
FILES = scenario_files(scenarios_dir())
#: every scenario that loads, and the problems of those that do not (none, test_corpus checks);
#: through the scenario cache, as the plugin loads them (CANASTA_CACHE_DIR=off: parsed every time)
SCENARIOS, PROBLEMS = load_scenarios(FILES, SPEC, load_scenario_cached)
