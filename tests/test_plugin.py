"""The pytest plugin, exercised through pytester as a user would run it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from canasta_conformance.contract.paths import scenarios_dir
from canasta_conformance.contract.scenario import scenario_files
from example_scenario import EXAMPLE


def scenario(pytester: pytest.Pytester, name: str, text: str | None = None, area: str = "pile") -> Path:
    folder = pytester.path / "scenarios" / area
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(text if text is not None else EXAMPLE.format(id=name))
    return path


def test_scenario_files_become_items_and_pass_on_the_reference_engine(pytester):
    scenario(pytester, "blocked-one")
    scenario(pytester, "blocked-two")
    result = pytester.runpytest("-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*blocked-one.yaml::blocked-one PASSED*", "*Canasta conformance by rule area*", "pile * 2 * 0 * 0 * 0"])


def test_ordinary_yaml_files_are_ignored(pytester):
    pytester.makefile(".yaml", config="name: not a scenario\nsteps: [1, 2]\n")
    (pytester.path / "docker-compose.yaml").write_text("services: {}\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_broken_scenario_is_an_error_for_that_file_only(pytester):
    scenario(pytester, "fine-one")
    scenario(pytester, "broken-one", EXAMPLE.format(id="broken-one").replace("[4D, 4H]", "[4D, 4X]"))
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    output = result.stdout.str()
    assert "invalid scenario file" in output
    assert "broken-one.yaml:8: position.hands[1][1]: '4X' is not a card token" in output
    result.stdout.fnmatch_lines(["check it with: canasta validate *broken-one.yaml"])


def test_k_selects_scenarios_by_id(pytester):
    scenario(pytester, "alpha-case")
    scenario(pytester, "beta-case")
    result = pytester.runpytest("-k", "beta", "-v")
    result.assert_outcomes(passed=1, deselected=1)
    result.stdout.fnmatch_lines(["*beta-case PASSED*"])


def test_area_markers_are_registered_for_strict_markers(pytester):
    scenario(pytester, "marked-one")
    scenario(pytester, "melded-one", area="meld")
    result = pytester.runpytest("--strict-markers", "-m", "canasta_pile")
    result.assert_outcomes(passed=2)  # both exercise pile rules (by the rules they name, not the folder)
    result = pytester.runpytest("--strict-markers", "-m", "canasta_meld")
    result.assert_outcomes(deselected=2)


def test_the_header_names_the_engine_and_spec_version(pytester):
    scenario(pytester, "header-one")
    result = pytester.runpytest("--canasta-engine", "canasta_reference:create_engine")
    result.stdout.fnmatch_lines(["canasta: engine canasta-reference * (canasta_reference:create_engine); spec Canasta rules specification *.*.*"])


def test_a_failure_shows_the_step_the_expectation_the_engine_and_a_rerun_command(pytester):
    text = EXAMPLE.format(id="diff-one") + (
        "  - action: {type: draw}\n"
        "    expect:\n"
        "      position:\n"
        "        hands: [[9H, 9S, KH, 5C, AC]]\n"
        "        stock: [AD, QH]\n"
    )
    path = scenario(pytester, "diff-one", text)
    result = pytester.runpytest("--canasta-engine", "fake_engines:RejectEverything")
    result.assert_outcomes(failed=1)
    # the wrong citation of step 1 is not the failure, and does not hide the real one at step 2
    result.stdout.fnmatch_lines([
        "*scenario failed: diff-one: A wild card on top*",
        "*rules: pile.blocked.wild-top*",
        "step 2 (draw): expected the action to be accepted, the engine rejected citing turn.nothing-is-allowed (this engine rejects everything)",
        "citations (not failures): step 1: cited turn.nothing-is-allowed, the scenario expects pile.blocked.wild-top",
        "rerun just this scenario: *pytest scenarios/pile/diff-one.yaml --canasta-engine fake_engines:RejectEverything",
    ])
    result = pytester.runpytest("--canasta-engine", "fake_engines:RejectEverything", "--canasta-strict-rules")
    result.stdout.fnmatch_lines([
        "step 1 (take [9H 9S]): expected a rejection citing pile.blocked.wild-top, the engine rejected citing turn.nothing-is-allowed (another rule)",
        "rerun just this scenario: *pytest scenarios/pile/diff-one.yaml --canasta-engine fake_engines:RejectEverything --canasta-strict-rules",
    ])
    result = pytester.runpytest("--canasta-engine", "fake_engines:AcceptEverything")
    result.stdout.fnmatch_lines([
        "step 1 (take [9H 9S]): expected a rejection citing pile.blocked.wild-top, the engine accepted",
    ])
    shortened = text.replace("  - action: {type: take, cards: [9H, 9S]}\n    expect: {legal: false, violates: pile.blocked.wild-top}\n", "")
    path.write_text(shortened)
    result = pytester.runpytest("--canasta-engine", "fake_engines:AcceptEverything")
    assert "\n".join([
        "step 1 (draw): the position differs from the expected one",
        "    hands[0]: expected AC KH 9H 9S 5C",
        "              actual   KH 9H 9S 5C",
        "              missing AC; unexpected -",
        "    stock: expected AD QH",
        "           actual   AC AD QH",
    ]) in result.stdout.str()


def test_an_engine_that_raises_is_an_error_for_the_scenario_and_the_run_goes_on(pytester):
    scenario(pytester, "raise-one")
    scenario(pytester, "raise-two")
    result = pytester.runpytest("--canasta-engine", "fake_engines:Raising")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*engine error: raise-one*", "*the engine raised RuntimeError('boom')*"])


def test_an_unknown_engine_is_a_usage_error(pytester):
    scenario(pytester, "engine-one")
    result = pytester.runpytest("--canasta-engine", "no_such_module:factory")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*cannot import engine module 'no_such_module'*"])


GC_PROBE = """
import gc
from pathlib import Path
import pytest
def pytest_runtest_call(item):
    with Path("gc-probe.txt").open("a") as out:
        out.write(f"run {gc.isenabled()}\\n")
@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    with Path("gc-probe.txt").open("a") as out:
        out.write(f"end {gc.get_freeze_count() > 0}\\n")
"""


def test_the_run_freezes_what_it_collected_until_its_end_and_leaves_the_garbage_collector_as_it_was(pytester):
    scenario(pytester, "heap-one")
    scenario(pytester, "heap-two")
    pytester.makeconftest(GC_PROBE)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)
    # engines run with the collector on; pytest's end-of-run gc.collect() (at unconfigure) still
    # finds the collected scenarios frozen; afterwards nothing stays frozen and the collector is on
    assert (pytester.path / "gc-probe.txt").read_text().splitlines() == ["run True", "run True", "end True"]
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_run_stopped_during_collection_turns_the_garbage_collector_back_on(pytester):
    scenario(pytester, "stopped-one")
    result = pytester.runpytest("--canasta-engine", "no_such_module:factory")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_scenario_item_has_the_location_pytest_computes(pytester):
    scenario(pytester, "located-one")
    items, _ = pytester.inline_genitems()
    (item,) = items
    computed = pytest.Item.location.func(item)  # type: ignore[attr-defined]  # pytest's own
    assert item.location == computed == ("scenarios/pile/located-one.yaml", 0, "scenario located-one")


def test_a_conftest_collected_after_a_scenario_does_not_hook_into_its_run(pytester):
    # "scenarios" is collected before "zz", whose conftest then loads: its hooks are for zz only
    scenario(pytester, "early-one")
    (pytester.path / "zz").mkdir()
    (pytester.path / "zz" / "conftest.py").write_text(
        "from pathlib import Path\n"
        "def pytest_runtest_setup(item):\n"
        "    with Path(str(item.config.rootpath), 'zz-hooks.txt').open('a') as out:\n"
        "        out.write(item.nodeid + '\\n')\n"
    )
    (pytester.path / "zz" / "test_late.py").write_text("def test_late():\n    pass\n")
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2)
    assert (pytester.path / "zz-hooks.txt").read_text().splitlines() == ["zz/test_late.py::test_late"]


def test_canasta_option_adds_the_installed_corpus(pytester):
    result = pytester.runpytest("--canasta", "-q", "-k", "pile-wild-top-blocks-take")
    result.assert_outcomes(passed=1, deselected=len(scenario_files(scenarios_dir())) - 1)


@pytest.mark.parametrize("engine", ["fake_engines:AcceptEverything", "fake_engines:RejectEverything"])
def test_deliberately_wrong_engines_fail_at_least_90_percent_of_the_corpus(pytester, engine):
    total = len(scenario_files(scenarios_dir()))
    result = pytester.runpytest("--canasta", "--canasta-engine", engine, "-q", "-p", "no:randomly")
    outcomes = result.parseoutcomes()
    failed = outcomes.get("failed", 0)
    assert outcomes.get("errors", 0) == 0
    assert failed >= 0.9 * total, f"{engine} failed only {failed} of {total} scenarios"


def test_an_engine_module_next_to_the_user_is_found(pytester):
    scenario(pytester, "local-engine")
    pytester.makepyfile(my_local_engine="from canasta_reference import create_engine\n")
    result = pytester.runpytest("--canasta-engine", "my_local_engine:create_engine")
    result.assert_outcomes(passed=1)


def test_an_engine_that_cannot_be_imported_stops_the_run_once(pytester):
    scenario(pytester, "stop-one")
    scenario(pytester, "stop-two")
    result = pytester.runpytest("--canasta-engine", "no_such_module:factory")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*Exit: --canasta-engine: cannot import engine module 'no_such_module'*"])
    assert "FAILED" not in result.stdout.str() and "failed" not in result.stdout.lines[-1]


class _NoEndOfRunCollection:
    """Sets a config's end-of-run garbage collections to none, as ``pytester.inline_run`` does."""

    @staticmethod
    def pytest_configure(config: pytest.Config) -> None:
        from _pytest.unraisableexception import gc_collect_iterations_key

        config.stash[gc_collect_iterations_key] = 0


def test_every_option_has_an_ini_key_and_the_command_line_wins(pytester):
    scenario(pytester, "ini-one")
    scenario(pytester, "ini-two", area="meld")
    pytester.makeini("[pytest]\ncanasta_report = out/report.json\ncanasta_timeout = 3\ncanasta_tier = core\ncanasta_strict_rules = true\n")
    (pytester.path / "out").mkdir()
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)
    report = pytester.path / "out" / "report.json"  # relative to the ini file
    assert '"ini-one"' in report.read_text()
    # the configs made below are unconfigured at the end of this test; each would then walk this
    # process's whole heap twice (pytest's end-of-run gc.collect() for unraisable exceptions), which
    # pytester's own in-process runs skip the same way
    pytester.plugins.append(_NoEndOfRunCollection())
    option = pytester.parseconfigure().option
    assert (option.canasta_timeout, option.canasta_tier, option.canasta_strict_rules) == (3.0, "core", True)
    other = pytester.path / "other.json"
    pytester.runpytest("--canasta-report", str(other))
    assert other.exists()  # the command line wins over the ini key
    assert pytester.parseconfigure("--canasta-timeout", "10").option.canasta_timeout == 10.0  # even with the default value
    config = pytester.parseconfigure()
    options = [o.dest for o in config._parser.getgroup("canasta").options]
    assert len(options) >= 19
    assert [dest for dest in options if dest not in config._parser._inidict] == []


def test_a_bad_ini_value_is_a_usage_error(pytester):
    pytester.makeini("[pytest]\ncanasta_tier = golden\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*canasta_tier = 'golden': choose one of core, reading*"])
    pytester.makeini("[pytest]\ncanasta_timeout = soon\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*canasta_timeout = 'soon': not a valid value*"])


def test_importing_the_plugin_loads_neither_the_harness_nor_yaml_nor_jsonschema():
    import subprocess
    import sys

    code = (
        "import sys, pytest; before = set(sys.modules); import canasta_conformance.pytest_plugin.plugin; "
        "print(sorted(m for m in set(sys.modules) - before))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "'canasta_conformance.pytest_plugin.plugin'" in loaded
    for heavy in ("yaml", "jsonschema", "canasta_conformance.contract.scenario", "canasta_conformance.contract.spec",
                  "canasta_conformance.contract.model", "canasta_conformance.running.runner", "canasta_reference"):
        assert f"'{heavy}'" not in loaded, loaded


def test_area_markers_are_listed_by_markers(pytester):
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["*canasta_meld: Canasta scenarios of rule area 'meld'*"])


def test_the_terminal_keeps_no_silent_set_up_or_tear_down_of_a_scenario(pytester):
    """pytest's terminal looks through every passing set-up and tear-down report it keeps for each
    failure it shows (time quadratic in the run's size when most scenarios fail); a scenario's that
    passed with no output are not kept. Another test's are, and a teardown's output is still shown."""
    for sid in ("kept-one", "kept-two", "kept-three"):
        scenario(pytester, sid)
    pytester.makepyfile(test_plain="""
        import pytest

        @pytest.fixture
        def noisy():
            yield
            print("said at teardown")

        def test_plain(noisy):
            assert False
    """)
    pytester.makeconftest("""
        def pytest_terminal_summary(terminalreporter):
            kept = terminalreporter.stats.get("", [])
            print("kept:", sorted({(r.nodeid.split("::")[-1], r.when) for r in kept}))
    """)
    result = pytester.runpytest("--canasta-engine", "fake_engines:AcceptEverything", "-p", "no:randomly")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(["*Captured stdout teardown*", "said at teardown", "kept: [('test_plain', 'setup'), ('test_plain', 'teardown')]"])


def test_durations_still_list_the_scenarios_set_ups_and_tear_downs(pytester):
    for sid in ("timed-one", "timed-two"):
        scenario(pytester, sid)
    result = pytester.runpytest("--durations=0", "-vv", "-p", "no:randomly")
    result.assert_outcomes(passed=2)
    for line in ("*setup    scenarios/pile/timed-one.yaml::timed-one*", "*teardown scenarios/pile/timed-two.yaml::timed-two*"):
        result.stdout.fnmatch_lines([line])  # one at a time: the list is slowest first, an order the machine decides
